/* test_yaml_text.c — the YAML reader's bound on text with aliases expanded: what counts, where it is reported. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/error.h"
#include "formats/yaml.h"

/*
 * Parses `text` with at most `max_text` bytes of scalar text; true when it is accepted.  A refusal
 * must be the one error of the text bound, at line:column.
 */
static bool accepted(const char *text, uint64_t max_nodes, uint64_t max_text, unsigned line, unsigned column)
{
	const struct wm_yaml_limits limits = { 1u << 20, 64, max_nodes, max_text };
	struct wm_doc doc;
	struct wm_error err;
	char want[96];
	int ret;

	wm_error_init(&err);
	ret = wm_yaml_parse(&doc, "t.yaml", text, strlen(text), &limits, &err);
	if (ret < 0) {
		if (max_text % (1u << 20) == 0)
			snprintf(want, sizeof(want), "aliases expand this document past %llu MiB of text (an alias bomb?)",
				(unsigned long long)(max_text >> 20));
		else
			snprintf(want, sizeof(want), "aliases expand this document past %llu bytes of text (an alias bomb?)",
				(unsigned long long)max_text);
		CHECK(ret == WM_EINVALID && err.nerrors == 1);
		if (err.ndiags >= 1) {
			CHECK_STR(err.diags[0].message, want);
			CHECK(err.diags[0].line == line && err.diags[0].column == column);
			if (err.diags[0].line != line || err.diags[0].column != column)
				fprintf(stderr, "    at %u:%u of: %.40s\n", err.diags[0].line, err.diags[0].column, text);
		}
	}
	wm_yaml_release(&doc);
	wm_error_release(&err);
	return ret == 0;
}

int main(void)
{
	char *bomb;
	size_t n = 0;

	/* keys count, and an alias counts what its anchor stands for: a, hello, b, hello = 12 bytes */
	CHECK(accepted("a: &x hello\nb: *x\n", 1000, 12, 0, 0));
	CHECK(!accepted("a: &x hello\nb: *x\n", 1000, 11, 2, 4));
	/* a collection's anchor stands for all of its scalars: a xy z, b xy z, c xy z = 12 */
	CHECK(accepted("a: &l [xy, z]\nb: *l\nc: *l\n", 1000, 12, 0, 0));
	CHECK(!accepted("a: &l [xy, z]\nb: *l\nc: *l\n", 1000, 11, 3, 4));
	/* aliases within an anchored collection are expanded in it: a xyz (4), b [xyz, xyz] (7), c (7) */
	CHECK(accepted("a: &a xyz\nb: &b [*a, *a]\nc: *b\n", 1000, 18, 0, 0));
	CHECK(!accepted("a: &a xyz\nb: &b [*a, *a]\nc: *b\n", 1000, 17, 3, 4));
	/* a merge key is a key and an alias like any other: base k vvvv (9), x << k vvvv (17), y 1 (19) */
	CHECK(accepted("base: &b {k: vvvv}\nx: {<<: *b, y: 1}\n", 1000, 19, 0, 0));
	CHECK(!accepted("base: &b {k: vvvv}\nx: {<<: *b, y: 1}\n", 1000, 16, 2, 9));
	/* past the bound on a plain value after the aliases: at that value */
	CHECK(!accepted("base: &b {k: vvvv}\nx: {<<: *b, y: 1}\n", 1000, 18, 2, 16));
	CHECK(!accepted("a: &x xy\nb: *x\nc: xyz\n", 1000, 9, 3, 4));

	/*
	 * Few nodes, much text: a 1,000-byte value, then five levels of ten aliases each.  Level e
	 * stands for 10 MB; the third *e of f passes 32 MiB, long before the aliases' 40,000 nodes
	 * come near the limit of nodes.
	 */
	bomb = malloc(2000);
	if (!bomb)
		return 1;
	n += (size_t)sprintf(bomb + n, "a: &a ");
	memset(bomb + n, 'x', 1000);
	n += 1000;
	n += (size_t)sprintf(bomb + n, "\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n");
	CHECK(!accepted(bomb, 8000000, 32u << 20, 6, 16));
	/* the same file under a bound of text it does not reach */
	CHECK(accepted(bomb, 8000000, 200u << 20, 0, 0));
	free(bomb);
	return harness_done();
}
