/* index.c — libFuzzer target: a simple index's project page (simple.c, json.c) through wheel-name matching and PEP 440 into plan's reports. */
#include "fuzz.h"
#include "util/arena.h"
#include "util/buf.h"
#include "formats/pep440.h"
#include "index/filename.h"
#include "index/plan.h"
#include "index/simple.h"

/*
 * Input: CONTENT-TYPE \n BODY, an index's answer for the project page of a
 * distribution of the release of version 1.0.0 of a fixed matrix (llm-rs,
 * two backends, strategy meta: wheels, sdists and the meta package's pure
 * wheel).
 *
 * The page's files are matched against the plan's artifacts by plan.c's
 * own wm_plan_compare (file names parsed by wm_filename_parse, versions
 * compared with wm_pep440_equal, wheels matched leniently by
 * wm_filename_matches_wheel), which sets the results into the plan (found,
 * unexpected, near-limit files; for a refused page, the reader's reason)
 * and the reports are rendered.
 *
 * Properties:
 *   1. no crash, leak or undefined behaviour: a page is read or refused with
 *      a reason, and every file has a name;
 *   2. no control character reaches the terminal table or the Markdown
 *      report (C0 but tab and line feed, DEL, C1, U+2028/U+2029, the
 *      bidirectional controls), whatever the index puts in file names or
 *      its Content-Type; the HTML report has no raw C0 control either;
 *   3. PEP 440, for every version of a file name: normalisation is
 *      idempotent (the normal form normalises to itself), a version equals
 *      itself and its normal form, equality is symmetric, and for release
 *      versions (digits and dots) `==v` and `>=v` admit v and `<v`, `>v`
 *      do not, and `<w` cannot hold both ways between two of them;
 *   4. wheel names: a parsed wheel name matches its own (single) tags, and a
 *      name written back with wm_filename_wheel parses to the same parts;
 *   5. the matching: an artifact marked present stands for a file of the
 *      page, each file of the planned version is one artifact or unexpected,
 *      and the distribution's state agrees (ready, published, partial).
 */

static struct wm_catalog *catalog;
static struct wm_matrix *matrix;

static const char matrix_text[] =
	"wheelmatrix: 1\n"
	"project: {name: llm-rs, module: llm_rs}\n"
	"python: {versions: [\"3.12\", \"3.13t\"]}\n"
	"platforms: [linux-x86_64, macos-arm64, windows-x86_64]\n"
	"backends:\n"
	"  cuda: {features: [cublas], platforms: [linux-x86_64]}\n"
	"  cpu: {default: true}\n"
	"distribution: {strategy: meta}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct wm_error err;
	(void)argc;
	(void)argv;
	wm_error_init(&err);
	if (wm_catalog_load(&catalog, &err) < 0 ||
	    wm_matrix_load(&matrix, catalog, "wheelmatrix.yaml", matrix_text, strlen(matrix_text), &err) < 0) {
		fuzz_print_errors(&err);
		abort();
	}
	wm_error_release(&err);
	return 0;
}

static bool is_release(const char *v)
{
	if (!*v || *v == '.')
		return false;
	for (const char *p = v; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] && p[1] != '.')))
			return false;
	return strlen(v) < 64;
}

static int spec_match(const char *op, const char *v, const char *version)
{
	char spec[96];
	const char *why;
	snprintf(spec, sizeof(spec), "%s%s", op, v);
	return wm_pep440_specs_match(spec, version, &why);
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

static void check_pep440(const char *v, const char *other)
{
	struct wm_buf n1 = WM_BUF_INIT, n2 = WM_BUF_INIT;
	const char *why;
	bool ok1, ok2;
	int c1 = wm_pep440_compare(v, other, &ok1), c2 = wm_pep440_compare(other, v, &ok2);

	FUZZ_CHECK(wm_pep440_equal(v, v), "'%s' is not equal to itself", v);
	FUZZ_CHECK(wm_pep440_equal(v, other) == wm_pep440_equal(other, v), "equality of '%s' and '%s' is not symmetric",
		v, other);
	if (wm_pep440(&n1, v, &why) == 0 && n1.ptr) {
		FUZZ_CHECK(wm_pep440(&n2, n1.ptr, &why) == 0, "the normal form '%s' of '%s' is refused: %s", n1.ptr, v, why);
		FUZZ_CHECK(strcmp(n1.ptr, n2.ptr ? n2.ptr : "") == 0, "normalising '%s' gives '%s', then '%s'", v, n1.ptr,
			n2.ptr);
		FUZZ_CHECK(wm_pep440_equal(v, n1.ptr), "'%s' is not equal to its normal form '%s'", v, n1.ptr);
		bool ok;
		FUZZ_CHECK(wm_pep440_compare(v, n1.ptr, &ok) == 0 && ok, "'%s' is not level with its normal form '%s'", v,
			n1.ptr);
	}
	FUZZ_CHECK(ok1 == ok2 && sign(c1) == -sign(c2), "the order of '%s' and '%s' is not antisymmetric (%d, %d)", v,
		other, c1, c2);
	if (is_release(v)) {
		FUZZ_CHECK(spec_match("==", v, v) == 1 && spec_match(">=", v, v) == 1 && spec_match("<=", v, v) == 1,
			"'%s' does not satisfy ==, >= and <= itself", v);
		FUZZ_CHECK(spec_match("<", v, v) == 0 && spec_match(">", v, v) == 0, "'%s' is < or > itself", v);
		if (is_release(other))
			FUZZ_CHECK(!(spec_match("<", other, v) == 1 && spec_match("<", v, other) == 1),
				"'%s' < '%s' and '%s' < '%s'", v, other, other, v);
	}
	wm_buf_release(&n1);
	wm_buf_release(&n2);
}

static void check_wheel_name(struct wm_arena *a, const struct wm_filename *f, const char *filename)
{
	struct wm_filename g;
	char *again;

	if (f->kind != WM_FILE_WHEEL)
		return;
	if (!strchr(f->python, '.') && !strchr(f->abi, '.') && !strchr(f->platform, '.'))
		FUZZ_CHECK(wm_filename_matches_wheel(f, f->python, f->abi, f->platform), "'%s' does not match its own tags",
			filename);
	if (f->build || !*f->name)
		return;
	again = wm_filename_wheel(a, f->name, f->version, f->python, f->abi, f->platform);
	FUZZ_CHECK(again && wm_filename_parse(&g, a, again) == 0, "cannot read back '%s'", again ? again : "");
	FUZZ_CHECK(g.kind == WM_FILE_WHEEL && strcmp(g.version, f->version) == 0 && strcmp(g.python, f->python) == 0 &&
		strcmp(g.abi, f->abi) == 0 && strcmp(g.platform, f->platform) == 0,
		"'%s' written back as '%s' reads differently", filename, again);
}

/* The last release is a version of the page before the planned one; each wheel dropped since is its. */
static void check_dropped(struct wm_plan *p, const struct wm_plan_dist *d, const struct wm_index_page *page)
{
	bool ok, found = false;
	FUZZ_CHECK(d->previous || !d->ndropped, "%zu wheels dropped since no release", d->ndropped);
	if (!d->previous)
		return;
	FUZZ_CHECK(wm_pep440_compare(d->previous, d->version, &ok) < 0 && ok, "the last release '%s' is not before '%s'",
		d->previous, d->version);
	for (size_t i = 0; i < page->n; i++) {
		struct wm_filename f;
		found |= wm_filename_parse(&f, p->arena, page->files[i].filename) == 0 && f.kind != WM_FILE_OTHER &&
			strcmp(f.version, d->previous) == 0;
	}
	FUZZ_CHECK(found, "the last release '%s' is no version of the page's files", d->previous);
	for (size_t k = 0; k < d->ndropped; k++) {
		struct wm_filename f;
		bool on_page = false;
		for (size_t i = 0; !on_page && i < page->n; i++)
			on_page = page->files[i].filename == d->dropped[k].filename;
		FUZZ_CHECK(on_page && wm_filename_parse(&f, p->arena, d->dropped[k].filename) == 0 &&
			f.kind == WM_FILE_WHEEL && wm_pep440_equal(f.version, d->previous),
			"'%s' is dropped, but it is no wheel of the page's release %s", d->dropped[k].filename, d->previous);
	}
}

/*
 * The page's answer set into distribution d by plan.c's own matching (wm_plan_compare), after
 * each file's name and version are checked; then what the answer must say: every artifact
 * marked present stands for a file of the page, each file of the version is either one
 * artifact or unexpected, and the state agrees with the artifacts.
 */
static void answer(struct wm_plan *p, struct wm_plan_dist *d, const struct wm_index_page *page)
{
	struct wm_arena *a = p->arena;
	size_t present = 0, nversion = 0;

	for (size_t i = 0; i < page->n; i++) {
		const char *name = page->files[i].filename;
		struct wm_filename f;
		FUZZ_CHECK(name != NULL, "a file without a name");
		FUZZ_CHECK(wm_filename_parse(&f, a, name) == 0, "wm_filename_parse");
		if (f.kind != WM_FILE_OTHER) {
			check_pep440(f.version, p->version);
			if (i > 0)
				check_pep440(f.version, page->files[i - 1].filename);
			nversion += wm_pep440_equal(f.version, p->version);
		}
		check_wheel_name(a, &f, name);
	}
	FUZZ_CHECK(wm_plan_compare(p, d, page) == 0, "wm_plan_compare failed");
	for (size_t k = 0; k < d->nartifacts; k++) {
		const struct wm_artifact *art = &d->artifacts[k];
		const char *name = art->found ? art->found : art->filename;
		bool on_page = false;
		if (art->state != WM_ART_PRESENT) {
			FUZZ_CHECK(art->state == WM_ART_MISSING, "artifact '%s' is neither present nor missing", art->filename);
			continue;
		}
		present++;
		for (size_t i = 0; !on_page && i < page->n; i++)
			on_page = strcmp(page->files[i].filename, name) == 0;
		FUZZ_CHECK(on_page, "artifact '%s' is present as '%s', which the page does not have", art->filename, name);
	}
	FUZZ_CHECK(present + d->nunexpected == nversion, "%zu present and %zu unexpected of %zu files of the version",
		present, d->nunexpected, nversion);
	FUZZ_CHECK(d->state == (!nversion ? WM_DIST_READY : present == d->nartifacts ? WM_DIST_PUBLISHED : WM_DIST_PARTIAL),
		"state %d with %zu of %zu artifacts present and %zu files of the version", (int)d->state, present,
		d->nartifacts, nversion);
	check_dropped(p, d, page);
}

static void render(const struct wm_plan *p)
{
	static const enum wm_plan_format formats[] = { WM_PLAN_TABLE, WM_PLAN_MARKDOWN, WM_PLAN_HTML, WM_PLAN_JSON };
	static const char *const names[] = { "the table", "the Markdown report", "the HTML report", "the JSON report" };
	for (size_t i = 0; i < WM_ARRAY_SIZE(formats); i++) {
		char *out = NULL;
		size_t len = 0;
		FUZZ_CHECK(wm_report_render(&out, &len, p, formats[i]) == 0 && out, "rendering %s failed", names[i]);
		if (formats[i] == WM_PLAN_TABLE || formats[i] == WM_PLAN_MARKDOWN) {
			fuzz_check_no_control(names[i], out, len);
		} else if (formats[i] == WM_PLAN_HTML) {
			for (size_t k = 0; k < len; k++)
				FUZZ_CHECK(!((unsigned char)out[k] < 0x20 && out[k] != '\n' && out[k] != '\t') && out[k] != 0x7f,
					"the HTML report has the control byte 0x%02x", (unsigned char)out[k]);
		}
		free(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *nl = memchr(in, '\n', size);
	char *type = strndup(in, nl ? (size_t)(nl - in) : size);
	const char *body = nl ? nl + 1 : in + size;
	size_t len = (size_t)(in + size - body);
	struct wm_plan_options o;
	struct wm_plan *p = NULL;
	struct wm_index_page page;
	struct wm_error err;
	const char *why = NULL;
	int ret;

	if (!type)
		abort();
	wm_error_init(&err);
	wm_plan_options_init(&o);
	o.version = "1.0.0";
	o.offline = true;
	if (wm_plan_new(&p, matrix, &o, &err) < 0) {
		fuzz_print_errors(&err);
		abort();
	}
	FUZZ_CHECK(p->ndists >= 2, "the plan has %zu distributions", p->ndists);
	ret = wm_simple_parse(&page, p->arena, type, body, len, &why);
	FUZZ_CHECK(ret == 0 || ret == WM_EINVALID, "wm_simple_parse returned %d", ret);
	for (size_t i = 0; i < p->ndists; i++) {
		struct wm_plan_dist *d = &p->dists[i];
		if (ret < 0) {
			FUZZ_CHECK(why && *why, "a page refused without a reason");
			d->state = WM_DIST_FAILED;
			d->error = why;
			for (size_t k = 0; k < d->nartifacts; k++)
				d->artifacts[k].state = WM_ART_UNKNOWN;
		} else {
			answer(p, d, &page);
		}
	}
	render(p);
	wm_plan_free(p);
	wm_error_release(&err);
	free(type);
	return 0;
}
