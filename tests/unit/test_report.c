/* test_report.c — unit tests of plan's reports: what an index puts in file names never reaches them raw. */
#include <stdlib.h>
#include "harness.h"
#include "util/common.h"

static const char matrix_text[] =
	"wheelmatrix: 1\n"
	"project: {name: x, module: x}\n"
	"python: {versions: [\"3.12\"]}\n"
	"platforms: [linux-x86_64]\n"
	"backends: {cpu: {default: true}}\n";

/* The names an index may list: C1 CSI and OSC, an ESC, NEL, LINE SEPARATOR, bidirectional controls. */
static const char *const hostile[] = {
	"x-1.0.0-cp312-cp312-\xc2\x9b" "2Jlinux.whl",
	"x-1.0.0-cp312-cp312-\xc2\x9d" "0;title\xc2\x9c.whl",
	"x-1.0.0-cp312-cp312-\x1b[31mred.whl",
	"x-1.0.0-cp312-cp312-a\xc2\x85" "b.whl",
	"x-1.0.0-cp312-cp312-a\xe2\x80\xa8" "b.whl",
	"x-1.0.0-cp312-cp312-\xe2\x80\xae" "lhw.exe",
	"x-1.0.0-cp312-cp312-\xe2\x81\xa6" "a\xe2\x81\xa9.whl",
};

/* The offset of the first control character (C0 but tab and LF, DEL, C1, U+2028/9, bidi), or -1. */
static long find_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len; i++) {
		if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n') || p[i] == 0x7f)
			return (long)i;
		if (i + 1 < len && p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f)
			return (long)i;
		if (i + 2 < len && p[i] == 0xe2 && ((p[i + 1] == 0x80 && p[i + 2] >= 0xa8 && p[i + 2] <= 0xae) ||
				(p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))
			return (long)i;
	}
	return -1;
}

static void test_hostile_names(void)
{
	struct wm_catalog *cat = NULL;
	struct wm_matrix *m = NULL;
	struct wm_plan *p = NULL;
	struct wm_plan_options o;
	struct wm_error err;
	struct wm_index_file large[WM_ARRAY_SIZE(hostile)];
	const char *names[WM_ARRAY_SIZE(hostile)];
	struct wm_dropped dropped[WM_ARRAY_SIZE(hostile)];
	/* a planned drop's reason comes from the matrix file, as untrusted as the index */
	struct wm_drop rule = { .python = "3.10", .reason = "end of life\xc2\x9b" "2J\xe2\x80\xae" };
	static const enum wm_plan_format formats[] = { WM_PLAN_TABLE, WM_PLAN_MARKDOWN };
	static const char *const shown_drop[] = {
		/* the table, then Markdown (which escapes '<' and '[') */
		"x-1.0.0-cp312-cp312-<U+001B>[31mred.whl (dropped since 0.9.0<U+001B>[2J, planned: end of life<U+009B>2J<U+202E>)",
		"| `x-1.0.0-cp312-cp312-<U+001B>[31mred.whl` | dropped | dropped since 0.9.0\\<U+001B>\\[2J, planned: end of life\\<U+009B>2J\\<U+202E> |",
	};

	wm_error_init(&err);
	wm_plan_options_init(&o);
	o.version = "1.0.0";
	o.offline = true;
	CHECK(wm_catalog_load(&cat, &err) == 0);
	CHECK(cat && wm_matrix_load(&m, cat, "wheelmatrix.yaml", matrix_text, strlen(matrix_text), &err) == 0);
	CHECK(m && wm_plan_new(&p, m, &o, &err) == 0);
	if (!p)
		goto out;
	/* every place a name from the index goes: found as, unexpected, near the limit, a failure's reason */
	CHECK_STR(p->version, "1.0.0");
	for (size_t i = 0; i < WM_ARRAY_SIZE(hostile); i++) {
		large[i] = (struct wm_index_file){ hostile[i], 95000000, false };
		names[i] = hostile[i];
		dropped[i] = (struct wm_dropped){ hostile[i], i % 2 ? NULL : &rule };
	}
	p->dists[0].state = WM_DIST_PARTIAL;
	p->dists[0].artifacts[0].state = WM_ART_PRESENT;
	p->dists[0].artifacts[0].found = hostile[0];
	p->dists[0].unexpected = names;
	p->dists[0].nunexpected = WM_ARRAY_SIZE(hostile);
	p->dists[0].large = large;
	p->dists[0].nlarge = WM_ARRAY_SIZE(large);
	p->dists[0].previous = "0.9.0\x1b[2J";
	p->dists[0].dropped = dropped;
	p->dists[0].ndropped = WM_ARRAY_SIZE(dropped);
	for (size_t f = 0; f < WM_ARRAY_SIZE(formats); f++) {
		char *out = NULL;
		size_t len = 0;
		long at;
		CHECK(wm_report_render(&out, &len, p, formats[f]) == 0);
		at = out ? find_control(out, len) : 0;
		CHECK(at < 0);
		if (at >= 0 && out)
			fprintf(stderr, "    format %zu: a control character at %ld: %.40s\n", f, at, out + at);
		/* each is shown as its code point, the rest kept; Markdown escapes the escape's '<' */
		CHECK(out && strstr(out, formats[f] == WM_PLAN_TABLE ? "x-1.0.0-cp312-cp312-<U+009B>2Jlinux.whl" :
			"x-1.0.0-cp312-cp312-<U+009B>2Jlinux.whl`") != NULL);
		CHECK(out && strstr(out, "x-1.0.0-cp312-cp312-<U+001B>[31mred.whl") != NULL);
		CHECK(out && strstr(out, shown_drop[f]) != NULL);
		if (out && !strstr(out, shown_drop[f]))
			fprintf(stderr, "    format %zu: no '%s' in:\n%s\n", f, shown_drop[f], out);
		free(out);
	}
	p->dists[0].state = WM_DIST_FAILED;
	p->dists[0].error = "unexpected Content-Type 'text/\xc2\x9b" "2J'";
	for (size_t f = 0; f < WM_ARRAY_SIZE(formats); f++) {
		char *out = NULL;
		size_t len = 0;
		CHECK(wm_report_render(&out, &len, p, formats[f]) == 0);
		CHECK(out && find_control(out, len) < 0);
		free(out);
	}
	/* the plan does not own these */
	p->dists[0].unexpected = NULL;
	p->dists[0].large = NULL;
	p->dists[0].dropped = NULL;
out:
	wm_plan_free(p);
	wm_matrix_free(m);
	wm_catalog_free(cat);
	wm_error_release(&err);
}

int main(void)
{
	test_hostile_names();
	return harness_done();
}
