/* test_yaml_comment.c — comments after a scalar: written by the YAML writer, read back by the reader and by PyYAML's rules. */
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

/* The writer: each comment after its scalar, whatever the emitter holds back; a text that looks like a mark stays. */
static void test_write(void)
{
	struct wm_arena a;
	struct wm_yb b;
	struct wm_y *root, *steps, *step, *v;
	char *out;

	wm_arena_init(&a);
	b.arena = &a;
	b.oom = false;
	root = wm_yaml_map(&b);
	steps = wm_yaml_set(&b, root, "steps", wm_yaml_seq(&b));
	/* `uses` first in its mapping: libyaml holds a mapping's start until three more events came */
	step = wm_yaml_push(&b, steps, wm_yaml_map(&b));
	v = wm_yaml_set(&b, step, "uses", wm_yaml_str(&b, "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"));
	v->comment = "v4.2.2";
	step = wm_yaml_push(&b, steps, wm_yaml_map(&b));
	wm_yaml_set(&b, step, "name", wm_yaml_str(&b, "Build"));
	v = wm_yaml_set(&b, step, "uses", wm_yaml_str(&b, "PyO3/maturin-action@v1"));
	v->comment = "v1.51.0";
	/* the text of another scalar holds what the first sentinel would be: another is chosen */
	wm_yaml_set(&b, step, "run", wm_yaml_str(&b, "echo x~wm-comment-0-0~"));
	/* a scalar that must be quoted gets no comment (it would not follow the value) */
	v = wm_yaml_set(&b, root, "on", wm_yaml_str(&b, "on"));
	v->comment = "dropped";
	CHECK(!b.oom);
	out = emit(root);
	CHECK_STR(out,
		"steps:\n"
		"- uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n"
		"- name: Build\n"
		"  uses: PyO3/maturin-action@v1 # v1.51.0\n"
		"  run: echo x~wm-comment-0-0~\n"
		"\"on\": \"on\"\n");
	free(out);
	wm_arena_release(&a);
}

/* Whether `n`'s trailing comment is `want` (NULL: none). */
static bool comment_is(const struct wm_doc *doc, const struct wm_node *n, const char *want)
{
	const char *c;
	size_t len;
	bool got = n && wm_yaml_trailing_comment(doc, n, &c, &len);
	if (!want)
		return !got;
	return got && len == strlen(want) && memcmp(c, want, len) == 0;
}

/* The reader: the comment after a node on its line, past blanks and a flow ',' only. */
static void test_read(void)
{
	static const char text[] =
		"a: x   # v1.2.3  \n"
		"b: {c: y,  # v2\n"
		"  d: z}\n"
		"e: w #no-space\n"
		"f: x#not # yes\n"
		"g: caf\xc3\xa9 # \xc3\xa9t\xc3\xa9\r\n";
	const struct wm_yaml_limits limits = { 1u << 20, 64, 1000, 1u << 20 };
	struct wm_doc doc;
	struct wm_error err;

	wm_error_init(&err);
	CHECK(wm_yaml_parse(&doc, "t.yaml", text, sizeof(text) - 1, &limits, &err) == 0);
	if (!doc.root) {
		wm_error_release(&err);
		return;
	}
#define COMMENT(node, want) CHECK(comment_is(&doc, (node), (want)))
	COMMENT(wm_yaml_find(doc.root, "a"), "v1.2.3");
	COMMENT(wm_yaml_find(wm_yaml_find(doc.root, "b"), "c"), "v2");
	COMMENT(wm_yaml_find(wm_yaml_find(doc.root, "b"), "d"), NULL);
	COMMENT(wm_yaml_find(doc.root, "e"), "no-space");
	COMMENT(wm_yaml_find(doc.root, "f"), "yes");
	COMMENT(wm_yaml_find(doc.root, "g"), "\xc3\xa9t\xc3\xa9");
#undef COMMENT
	wm_yaml_release(&doc);
	wm_error_release(&err);
}

/*
 * libyaml would break the line at NEL and make "i" a key of its own, which an editor shows inside
 * h's comment: refused at its place, line and column as an editor counts them.
 */
static void test_hidden_line(void)
{
	static const char text[] = "a: x\nh: v # note\xc2\x85i: u\n";
	const struct wm_yaml_limits limits = { 1u << 20, 64, 1000, 1u << 20 };
	struct wm_doc doc;
	struct wm_error err;

	wm_error_init(&err);
	CHECK(wm_yaml_parse(&doc, "t.yaml", text, sizeof(text) - 1, &limits, &err) == WM_EINVALID);
	CHECK(err.ndiags == 1 && err.diags[0].line == 2 && err.diags[0].column == 12 &&
		strstr(err.diags[0].message, "NEXT LINE (U+0085)"));
	wm_yaml_release(&doc);
	wm_error_release(&err);
}

int main(void)
{
	test_hidden_line();
	test_write();
	test_read();
	return harness_done();
}
