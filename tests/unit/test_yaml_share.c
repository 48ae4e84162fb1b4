/* test_yaml_share.c — nodes marked `share` written once by the YAML writer: an anchor, then aliases, read back expanded. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/error.h"
#include "formats/yaml.h"

static char *emit(const struct wm_y *root)
{
	struct wm_buf out = WM_BUF_INIT;
	struct wm_error err;
	char *s;
	wm_error_init(&err);
	CHECK(wm_yaml_emit(&out, root, &err) == 0);
	wm_error_release(&err);
	s = wm_buf_detach(&out);
	return s ? s : strdup("");
}

/* A step: name, uses with a comment, a script; marked `name`, its script `name-run`. */
static struct wm_y *step(struct wm_yb *b, struct wm_y *steps, const char *name, const char *mark, const char *run)
{
	struct wm_y *s = wm_yaml_push(b, steps, wm_yaml_map(b)), *v;
	wm_yaml_set(b, s, "name", wm_yaml_str(b, name));
	v = wm_yaml_set(b, s, "uses", wm_yaml_str(b, "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"));
	v->comment = "v4.2.2";
	v = wm_yaml_set(b, s, "run", wm_yaml_literal(b, run));
	s->share = mark;
	v->share = "x-run";
	return s;
}

/*
 * Equal marked trees: the first anchored, the later ones aliases, comments written once.  A name
 * is the anchor of the first tree repeated under it: the step "a" written once before does not
 * take it, and the other tree repeated under "x" is written in full each time, its script still
 * shared.  A marked tree written once has no anchor.
 */
static void test_write(void)
{
	struct wm_arena a;
	struct wm_yb b;
	struct wm_y *root, *steps;
	char *out;

	wm_arena_init(&a);
	b.arena = &a;
	b.oom = false;
	root = wm_yaml_map(&b);
	steps = wm_yaml_set(&b, root, "steps", wm_yaml_seq(&b));
	step(&b, steps, "a", "x", "echo a\n");
	step(&b, steps, "b", "x", "echo b\n");
	step(&b, steps, "b", "x", "echo b\n");
	step(&b, steps, "c", "x", "echo b\n");
	step(&b, steps, "c", "x", "echo b\n");
	step(&b, steps, "b", "x", "echo b\n");
	step(&b, steps, "d", "y", "echo d\n");
	CHECK(!b.oom);
	out = emit(root);
	CHECK_STR(out,
		"steps:\n"
		"- name: a\n"
		"  uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
		"  run: |\n"
		"    echo a\n"
		"- &x\n"
		"  name: b\n"
		"  uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
		"  run: &x-run |\n"
		"    echo b\n"
		"- *x\n"
		"- name: c\n"
		"  uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
		"  run: *x-run\n"
		"- name: c\n"
		"  uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
		"  run: *x-run\n"
		"- *x\n"
		"- name: d\n"
		"  uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
		"  run: |\n"
		"    echo d\n");
	/* read back: every alias is the tree it stands for */
	{
		const struct wm_yaml_limits limits = { 1u << 20, 64, 1000, 1u << 20 };
		struct wm_doc doc;
		struct wm_error err;
		const struct wm_node *seq;
		wm_error_init(&err);
		CHECK(wm_yaml_parse(&doc, "t.yaml", out, strlen(out), &limits, &err) == 0);
		seq = wm_yaml_find(doc.root, "steps");
		CHECK(seq && seq->type == WM_NODE_SEQ && seq->n == 7);
		for (size_t i = 0; seq && i < seq->n; i++) {
			static const char *const names[] = { "a", "b", "b", "c", "c", "b", "d" };
			static const char *const runs[] = { "echo a\n", "echo b\n", "echo b\n", "echo b\n", "echo b\n",
				"echo b\n", "echo d\n" };
			const struct wm_node *name = wm_yaml_find(seq->items[i], "name"), *run = wm_yaml_find(seq->items[i], "run");
			CHECK(name && strcmp(name->text, names[i]) == 0);
			CHECK(run && strcmp(run->text, runs[i]) == 0);
		}
		wm_yaml_release(&doc);
		wm_error_release(&err);
	}
	free(out);
	wm_arena_release(&a);
}

int main(void)
{
	test_write();
	return harness_done();
}
