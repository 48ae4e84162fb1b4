/*
 * test_catalog.c — the toolkit catalog's installer lists: every version the catalog offers on an OS
 * is in the list of the installer pinned there, and a backend asking for a version its platform's
 * installer lacks is refused at the version, naming the installer and what it has.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/common.h"
#include "model/catalog.h"
#include "model/matrix.h"

/*
 * The network installers of the release pinned before (Jimver/cuda-toolkit@v0.2.24:
 * src/links/windows-links.ts, cudaVersionToNetworkUrl): it ends at 12.9.0, so the catalog's
 * 12.9 (12.9.1) and 13.x cannot be installed with it.
 */
static const char *v0_2_24[] = { "12.9.0", "12.8.1", "12.8.0", "12.6.3", "12.6.2", "12.6.1", "12.6.0",
	"12.5.1", "12.5.0", "12.4.1", "12.4.0", "12.3.2", "12.3.1", "12.3.0", "12.2.2", "12.2.1", "12.2.0",
	"12.1.1", "12.1.0", "12.0.1", "12.0.0", "11.8.0", "11.7.1", "11.7.0", "11.6.2", "11.6.1", "11.6.0",
	"11.5.2", "11.5.1", "11.5.0", "11.4.4", "11.4.3", "11.4.2", "11.4.1", "11.4.0", "11.3.1", "11.3.0",
	"11.2.2", "11.2.1", "11.2.0", "11.1.1", "11.0.3", "11.0.2", "11.0.1", "10.2.89", "10.1.243", "10.0.130",
	"9.2.148", "8.0.61" };

static const struct wm_diag *first_error(const struct wm_error *err)
{
	for (size_t i = 0; i < err->ndiags; i++)
		if (err->diags[i].severity == WM_SEV_ERROR)
			return &err->diags[i];
	return NULL;
}

/* Loads `text`; returns the first error's message (static), or NULL when it loads. */
static const char *load(const struct wm_catalog *cat, const char *text, unsigned *line, unsigned *column)
{
	static char msg[1100];
	struct wm_matrix *m = NULL;
	struct wm_error err;
	const struct wm_diag *d;
	int ret;

	wm_error_init(&err);
	ret = wm_matrix_load(&m, cat, "wheelmatrix.yaml", text, strlen(text), &err);
	d = first_error(&err);
	if (d) {
		snprintf(msg, sizeof(msg), "%s", d->message);
		*line = d->line;
		*column = d->column;
	}
	CHECK((ret == 0) == (d == NULL));
	wm_matrix_free(m);
	wm_error_release(&err);
	return d ? msg : NULL;
}

static void test_current_lists(const struct wm_catalog *cat)
{
	const struct wm_toolkit *cuda = wm_catalog_toolkit(cat, "cuda");
	const struct wm_toolkit_installer *win = &cuda->installers[WM_OS_WINDOWS];

	CHECK_STR(win->action, "Jimver/cuda-toolkit");
	CHECK_STR(win->ref, wm_catalog_action(cat, "Jimver/cuda-toolkit"));
	CHECK(cuda->installers[WM_OS_LINUX].versions.n == 0);
	/*
	 * every version the catalog offers installs on Windows with the pinned release, but those newer
	 * than its list: 13.3 to 13.5, whose releases came after Jimver/cuda-toolkit v0.2.35 (the newest
	 * tag reachable here), are offered on Linux only
	 */
	for (size_t i = 0; i < cuda->versions.n; i++) {
		const char *v = cuda->versions.items[i];
		bool later = strcmp(v, "13.3") == 0 || strcmp(v, "13.4") == 0 || strcmp(v, "13.5") == 0;
		if (wm_catalog_toolkit_installs(cuda, WM_OS_WINDOWS, v) == later)
			fprintf(stderr, "CUDA %s is %sin %s %s's list\n", v, later ? "" : "not ", win->action, win->ref);
		CHECK(wm_catalog_toolkit_installs(cuda, WM_OS_WINDOWS, v) != later);
	}
	CHECK_STR(wm_catalog_toolkit_full(cuda, "13.5"), "13.5.0");
	CHECK_STR(wm_catalog_toolkit_full(cuda, "12.9"), "12.9.1");
	CHECK_STR(wm_catalog_toolkit_full(cuda, "13.2"), "13.2.0");
	CHECK_STR(wm_catalog_toolkit_full(cuda, "9.9"), "9.9");
}

static void test_refused(const struct wm_catalog *cat)
{
	struct wm_toolkit *cuda = (struct wm_toolkit *)wm_catalog_toolkit(cat, "cuda");
	struct wm_strlist saved = cuda->installers[WM_OS_WINDOWS].versions;
	unsigned line = 0, column = 0;
	const char *msg;

	cuda->installers[WM_OS_WINDOWS].versions.items = v0_2_24;
	cuda->installers[WM_OS_WINDOWS].versions.n = WM_ARRAY_SIZE(v0_2_24);
	CHECK(!wm_catalog_toolkit_installs(cuda, WM_OS_WINDOWS, "12.9"));
	CHECK(wm_catalog_toolkit_installs(cuda, WM_OS_WINDOWS, "12.8"));
	CHECK(wm_catalog_toolkit_installs(cuda, WM_OS_LINUX, "12.9"));

	msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [linux-x86_64, windows-x86_64]\nbackends:\n"
		"  gpu:\n    toolkit: {cuda: \"12.9\"}\n", &line, &column);
	CHECK(msg != NULL);
	CHECK(line == 6 && column == 21);
	CHECK_STR(msg, "backend 'gpu' uses CUDA 12.9 (12.9.1), which Jimver/cuda-toolkit v0.2.35, the installer on "
		"windows-x86_64, cannot install: it has 12.9.0; of CUDA's versions it installs 11.8, 12.0, 12.1, 12.2, "
		"12.3, 12.4, 12.5, 12.6, 12.8");
	/* on Linux alone the Windows list does not apply */
	msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [linux-x86_64]\nbackends:\n  gpu: {toolkit: {cuda: \"12.9\"}}\n",
		&line, &column);
	CHECK_STR(msg, NULL);
	/* 13.0 has no release at all in that list */
	msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [windows-x86_64]\nbackends:\n  gpu: {toolkit: {cuda: {version: \"13.0\"}}}\n",
		&line, &column);
	CHECK(msg && strstr(msg, "it has no 13.0;"));
	CHECK(line == 5 && column == 35);
	/* a feature implies the default, which that list has */
	msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [windows-x86_64]\nbackends:\n  gpu: {features: [cublas]}\n", &line, &column);
	CHECK_STR(msg, NULL);
	cuda->installers[WM_OS_WINDOWS].versions = saved;
	msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [windows-x86_64]\nbackends:\n  gpu: {toolkit: {cuda: \"12.9\"}}\n",
		&line, &column);
	CHECK_STR(msg, NULL);
}

static void test_rocm(const struct wm_catalog *cat)
{
	unsigned line = 0, column = 0;
	const char *msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [linux-x86_64, linux-aarch64]\nbackends:\n"
		"  amd: {features: [hipblas]}\n", &line, &column);
	CHECK(msg && strstr(msg, "cannot be built on linux-aarch64"));
	msg = load(cat, "wheelmatrix: 1\nproject: {name: x}\nplatforms: [linux-x86_64]\nbackends:\n  amd: {features: [hipblas]}\n", &line, &column);
	CHECK_STR(msg, NULL);
}

/* PyPy on the Python axis: its tags, its place after CPython, and PyO3's PyPy range from the table. */
static void test_pypy(const struct wm_catalog *cat)
{
	static const char text[] = "wheelmatrix: 1\nproject: {name: demo}\n"
		"python: {versions: [\"pp3.11\", \"3.13t\", \"3.12\"]}\nplatforms: [linux-x86_64]\n";
	struct wm_matrix *m = NULL;
	struct wm_error err;
	unsigned line = 0, column = 0;

	wm_error_init(&err);
	CHECK(wm_matrix_load(&m, cat, "wheelmatrix.yaml", text, sizeof(text) - 1, &err) == 0);
	CHECK(m && m->npythons == 3);
	if (m && m->npythons == 3) {
		const struct wm_python *pp = m->pythons[2];
		CHECK_STR(m->pythons[0]->version, "3.12");
		CHECK_STR(m->pythons[1]->version, "3.13t");
		CHECK_STR(pp->version, "pp3.11");
		CHECK(pp->pypy && !pp->freethreaded && !pp->abi3 && pp->minor == 11);
		CHECK_STR(pp->python_tag, "pp311");
		CHECK_STR(pp->abi_tag, "pypy311_pp73");
		CHECK_STR(pp->tag, "pp311");
		CHECK_STR(pp->interpreter, "pypy3.11");
		CHECK(!m->pythons[0]->pypy && !m->pythons[1]->pypy);
	}
	wm_matrix_free(m);
	wm_error_release(&err);

	CHECK(wm_catalog_pyo3(cat, 0, 22)->pypy_min == 7 && wm_catalog_pyo3(cat, 0, 22)->pypy_max == 10);
	CHECK(wm_catalog_pyo3(cat, 0, 23)->pypy_min == 9 && wm_catalog_pyo3(cat, 0, 23)->pypy_max == 11);
	CHECK(wm_catalog_pyo3(cat, 0, 27)->pypy_min == 11);
	CHECK_STR(load(cat, "wheelmatrix: 1\nproject: {name: demo}\npython: {versions: [\"3.12\", \"pp3.13t\"]}\n",
		&line, &column), "PyPy has no free-threaded build: write 'pp3.11'");
	CHECK(line == 3 && column == 29);
	CHECK_STR(load(cat, "wheelmatrix: 1\nproject: {name: demo}\npython: {versions: [\"pypy3.11\"]}\n",
		&line, &column), "invalid Python version 'pypy3.11': PyPy is written 'pp3.N', such as \"pp3.11\"");
	CHECK(load(cat, "wheelmatrix: 1\nproject: {name: demo}\npython: {abi3: \"3.9\", versions: [\"pp3.11\"]}\n"
		"platforms: [linux-x86_64]\n", &line, &column) == NULL);
	/* every Linux platform builds PyPy (maturin's tables where the image has none); Windows arm64 none */
	CHECK(load(cat, "wheelmatrix: 1\nproject: {name: demo}\npython: {versions: [\"pp3.11\", \"pp3.12\"]}\n"
		"platforms: [musllinux-x86_64, linux-i686, linux-s390x]\n", &line, &column) == NULL);
	CHECK(load(cat, "wheelmatrix: 1\nproject: {name: demo}\npython: {versions: [\"pp3.11\"]}\n"
		"platforms: [windows-arm64]\n", &line, &column) != NULL);
	CHECK(load(cat, "wheelmatrix: 1\nproject: {name: demo}\npython: {versions: [\"pp3.13\"]}\n"
		"platforms: [linux-x86_64]\n", &line, &column) != NULL);
}

int main(void)
{
	struct wm_catalog *cat = NULL;
	struct wm_error err;

	wm_error_init(&err);
	CHECK(wm_catalog_load(&cat, &err) == 0);
	for (size_t i = 0; i < err.ndiags; i++)
		fprintf(stderr, "%s:%u:%u: %s\n", err.diags[i].file, err.diags[i].line, err.diags[i].column,
			err.diags[i].message);
	if (cat) {
		test_current_lists(cat);
		test_refused(cat);
		test_rocm(cat);
		test_pypy(cat);
	}
	wm_catalog_free(cat);
	wm_error_release(&err);
	return harness_done();
}
