/* test_combos.c — unit tests of workflow/combos.c: a strategy.matrix expanded as GitHub's documentation says it is. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/buf.h"
#include "formats/yaml.h"
#include "workflow/combos.h"

static struct wm_arena arena;

/* Every context is unknown: the matrices here are literal. */
static void unknown(void *ctx, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n, size_t *used,
	struct wm_val *out)
{
	(void)ctx, (void)parts, (void)lens;
	*used = n;
	wm_eval_unknown(out, e, "a context");
}

/*
 * The combinations of the matrix written in `yaml` (a mapping, the job's strategy.matrix), one a
 * line, each "key=value ..." in the order its keys were set; then "why: ..." when one is given.
 */
static const char *expand(const char *yaml)
{
	static char out[8192];
	static const struct wm_yaml_limits lim = { 1u << 20, 64, 100000, 1u << 20 };
	struct wm_doc doc;
	struct wm_error err;
	struct wm_eval e;
	struct wm_eval_scope s = { unknown, NULL };
	struct wm_combos c;
	struct wm_buf b = WM_BUF_INIT;

	wm_error_init(&err);
	if (wm_yaml_parse(&doc, "matrix.yml", yaml, strlen(yaml), &lim, &err) != 0) {
		wm_error_release(&err);
		wm_yaml_release(&doc);
		return "<not YAML>";
	}
	wm_eval_init(&e, &arena, 1u << 20);
	if (wm_combos_expand(&c, &arena, &e, &s, doc.root) < 0) {
		wm_yaml_release(&doc);
		return "<out of memory>";
	}
	for (size_t i = 0; i < c.n; i++) {
		for (size_t k = 0; k < c.combos[i].n; k++) {
			const struct wm_node *v = c.combos[i].values[k];
			wm_buf_printf(&b, "%s%s=%s", k ? " " : "", c.combos[i].keys[k],
				v && v->type == WM_NODE_SCALAR ? v->text : v ? "{...}" : "null");
		}
		wm_buf_putc(&b, '\n');
	}
	if (c.why)
		wm_buf_printf(&b, "why: %s\n", c.why);
	snprintf(out, sizeof(out), "%s", b.ptr ? b.ptr : "");
	wm_buf_release(&b);
	wm_yaml_release(&doc);
	wm_error_release(&err);
	return out;
}

int main(void)
{
	wm_arena_init(&arena);

	/*
	 * docs.github.com, "Running variations of jobs in a workflow": "the following matrix ... will
	 * run six jobs", the first variable varying slowest.
	 */
	CHECK_STR(expand("version: [10, 12, 14]\nos: [ubuntu-latest, windows-latest]\n"),
		"version=10 os=ubuntu-latest\nversion=10 os=windows-latest\nversion=12 os=ubuntu-latest\n"
		"version=12 os=windows-latest\nversion=14 os=ubuntu-latest\nversion=14 os=windows-latest\n");

	/*
	 * The same page, "Example: Expanding configurations": an include entry that changes no
	 * original value joins each combination it fits; "Example: Adding configurations": one that
	 * fits none is a job of its own.
	 */
	CHECK_STR(expand("fruit: [apple, pear]\nanimal: [cat, dog]\ninclude:\n"
			"  - color: green\n"
			"  - color: pink\n    animal: cat\n"
			"  - fruit: apple\n    shape: circle\n"
			"  - fruit: banana\n"
			"  - fruit: banana\n    animal: cat\n"),
		/* the page's result: {apple, cat, pink, circle}, {apple, dog, green, circle}, {pear, cat, pink},
		   {pear, dog, green}, {banana}, {banana, cat} */
		"fruit=apple animal=cat color=pink shape=circle\n"
		"fruit=apple animal=dog color=green shape=circle\n"
		"fruit=pear animal=cat color=pink\n"
		"fruit=pear animal=dog color=green\n"
		"fruit=banana\n"
		"fruit=banana animal=cat\n");
	CHECK_STR(expand("os: [windows-latest, ubuntu-latest]\nnode: [14, 16]\ninclude:\n"
			"  - os: windows-latest\n    node: 16\n    npm: 6\n"),
		"os=windows-latest node=14\nos=windows-latest node=16 npm=6\nos=ubuntu-latest node=14\n"
		"os=ubuntu-latest node=16\n");
	/* "Example: Adding configurations": with no lists, every include entry is a job */
	CHECK_STR(expand("include:\n  - site: production\n    datacenter: site-a\n  - site: staging\n    datacenter: site-b\n"),
		"site=production datacenter=site-a\nsite=staging datacenter=site-b\n");

	/*
	 * "Excluding matrix configurations": an exclude entry removes every combination it matches,
	 * partly given ones too ("version: 16" on Windows: all its environments), before include.
	 */
	CHECK_STR(expand("os: [macos-latest, windows-latest]\nversion: [12, 14, 16]\nenvironment: [staging, production]\n"
			"exclude:\n  - os: macos-latest\n    version: 12\n    environment: production\n"
			"  - os: windows-latest\n    version: 16\n"),
		"os=macos-latest version=12 environment=staging\n"
		"os=macos-latest version=14 environment=staging\nos=macos-latest version=14 environment=production\n"
		"os=macos-latest version=16 environment=staging\nos=macos-latest version=16 environment=production\n"
		"os=windows-latest version=12 environment=staging\nos=windows-latest version=12 environment=production\n"
		"os=windows-latest version=14 environment=staging\nos=windows-latest version=14 environment=production\n");
	/* include after exclude: an excluded combination comes back only as an entry of its own */
	CHECK_STR(expand("os: [a, b]\nexclude:\n  - os: b\ninclude:\n  - os: b\n    x: 1\n"),
		"os=a\nos=b x=1\n");

	/* objects as values, matched by the keys an exclude entry gives (as cramjam's matrix is) */
	CHECK_STR(expand("conf:\n  - {os: linux, target: x86_64}\n  - {os: linux, target: aarch64}\n  - {os: macos, target: arm64}\n"
			"exclude:\n  - conf: {os: linux, target: aarch64}\n"),
		"conf={...}\nconf={...}\n");

	/* GitHub's bound: 256 jobs; past it, the first 256 and why */
	{
		struct wm_buf y = WM_BUF_INIT;
		const char *got, *why;
		size_t lines = 0;
		wm_buf_puts(&y, "a: [");
		for (int i = 0; i < 20; i++)
			wm_buf_printf(&y, "%s%d", i ? ", " : "", i);
		wm_buf_puts(&y, "]\nb: [");
		for (int i = 0; i < 20; i++)
			wm_buf_printf(&y, "%s%d", i ? ", " : "", i);
		wm_buf_puts(&y, "]\n");
		got = expand(y.ptr);
		for (const char *p = got; (p = strchr(p, '\n')) != NULL; p++)
			lines++;
		why = strstr(got, "why: ");
		CHECK(lines == 257);
		CHECK_STR(why, "why: more than 256 combinations (GitHub refuses such a matrix): the first 256 are read\n");
		wm_buf_release(&y);
	}
	/* 2^20 combinations: named, not expanded */
	CHECK_STR(expand("a0: [x, y]\na1: [x, y]\na2: [x, y]\na3: [x, y]\na4: [x, y]\na5: [x, y]\na6: [x, y]\na7: [x, y]\n"
			"a8: [x, y]\na9: [x, y]\na10: [x, y]\na11: [x, y]\na12: [x, y]\na13: [x, y]\na14: [x, y]\na15: [x, y]\n"
			"a16: [x, y]\na17: [x, y]\na18: [x, y]\na19: [x, y]\n"),
		"why: more combinations than init reads (its lists alone make over 4096)\n");
	/* a list GitHub refuses, and a matrix an expression gives that is not known */
	CHECK_STR(expand("os: []\n"), "why: its key 'os' is not a list of values (GitHub refuses it)\n");
	CHECK_STR(expand("os: ${{ fromJSON(needs.a.outputs.os) }}\n"), "why: its list 'os' depends on a context\n");

	wm_arena_release(&arena);
	return harness_done();
}
