/*
 * python.c — the matrix's `python` section: its CPython and PyPy versions and abi3 wheel, or the one
 * py3 wheel of a bindings = "bin" project.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/loader.h"
#include "model/project.h"
#include "model/python.h"
#include "model/schema.h"
#include "model/settings.h"
#include "util/text.h"


/*
 * The supported CPython releases (templates/pyo3.yaml's `cpython`: 3.10's life ended in October 2026,
 * 3.15 was released on 2026-10-01), oldest first, without gaps: DEFAULT_MIN is the first's minor.
 */
static const char *const default_versions[] = { "3.11", "3.12", "3.13", "3.14", "3.15" };
#define DEFAULT_MIN 11
const struct wm_names wm_python_defaults = WM_NAMES(default_versions);
static const char *const python_keys[] = { "versions", "abi3", "abi3t" };
const struct wm_names wm_python_keys = WM_NAMES(python_keys);

struct wm_python *wm_python_make(struct wm_loader *l, const char *version, unsigned minor, bool ft)
{
	struct wm_arena *a = l->c.arena;
	struct wm_python *py = wm_arena_alloc(a, sizeof(*py));
	if (wm_loader_oom(l, py))
		return NULL;
	py->version = version;
	py->minor = minor;
	py->freethreaded = ft;
	py->python_tag = wm_arena_printf(a, "cp3%u", minor);
	py->abi_tag = wm_arena_printf(a, "cp3%u%s", minor, ft ? "t" : "");
	py->tag = py->abi_tag;
	py->interpreter = wm_arena_printf(a, "python3.%u%s", minor, ft ? "t" : "");
	if (wm_loader_oom(l, py->python_tag) || wm_loader_oom(l, py->abi_tag) || wm_loader_oom(l, py->interpreter))
		return NULL;
	return py;
}

struct wm_python *wm_python_make_pypy(struct wm_loader *l, const char *version, unsigned minor)
{
	struct wm_python *py = wm_python_make(l, version, minor, false);
	if (!py)
		return NULL;
	/*
	 * maturin's and packaging's names, with the C API version of the PyPy that builds it
	 * (templates/interpreters.yaml): pp311-pypy311_pp73 from maturin's tables on Linux,
	 * pp311-pypy311_pp80 from the PyPy 8.0 that setup-python and uv install on macOS and Windows
	 */
	const char *tables = wm_catalog_pypy_api(l->cat, minor, WM_OS_LINUX);
	const char *installed = wm_catalog_pypy_api(l->cat, minor, WM_OS_MACOS);
	py->pypy = true;
	py->python_tag = py->tag = wm_arena_printf(l->c.arena, "pp3%u", minor);
	py->abi_tag = wm_arena_printf(l->c.arena, "pypy3%u_pp%s", minor, tables ? tables : "73");
	if (installed && (!tables || strcmp(installed, tables) != 0))
		py->abi_tag_installed = wm_arena_printf(l->c.arena, "pypy3%u_pp%s", minor, installed);
	py->interpreter = wm_arena_printf(l->c.arena, "pypy3.%u", minor);
	if (wm_loader_oom(l, py->python_tag) || wm_loader_oom(l, py->abi_tag) || wm_loader_oom(l, py->interpreter))
		return NULL;
	return py;
}

const char *wm_python_abi_tag(const struct wm_python *py, const struct wm_platform *p)
{
	return py->abi_tag_installed && p && p->os != WM_OS_LINUX ? py->abi_tag_installed : py->abi_tag;
}

const char *wm_python_tag(const struct wm_python *py, const struct wm_platform *p)
{
	return py->abi3_by_interpreter && p && p->os == WM_OS_EMSCRIPTEN && p->pyodide_python_tag ?
		p->pyodide_python_tag : py->python_tag;
}

const char *wm_python_interpreter(const struct wm_python *py, const struct wm_platform *p)
{
	return p && p->os == WM_OS_EMSCRIPTEN && p->pyodide_interpreter && !py->pypy && !py->graalpy ?
		p->pyodide_interpreter : py->interpreter;
}

struct wm_python *wm_python_make_graalpy(struct wm_loader *l, const char *version, unsigned minor)
{
	/* maturin's names from its table of GraalPy releases: graalpy312-graalpy250_312_native */
	struct wm_python *py = wm_python_make(l, version, minor, false);
	const char *release = wm_catalog_graalpy(l->cat, minor), *dot;
	if (!py)
		return NULL;
	dot = release ? strchr(release, '.') : NULL;
	py->graalpy = true;
	py->python_tag = py->tag = wm_arena_printf(l->c.arena, "graalpy3%u", minor);
	py->abi_tag = wm_arena_printf(l->c.arena, "graalpy%.*s%s_3%u_native", dot ? (int)(dot - release) : 0,
		release ? release : "", dot ? dot + 1 : "", minor);
	py->interpreter = wm_arena_printf(l->c.arena, "graalpy3.%u", minor);
	if (wm_loader_oom(l, py->python_tag) || wm_loader_oom(l, py->abi_tag) || wm_loader_oom(l, py->interpreter))
		return NULL;
	return py;
}

/* "pp3.N" (also "pypy3.N", maturin's spelling, for a clearer message): PyPy of Python 3.N. */
static bool parse_pypy(struct wm_loader *l, const struct wm_node *n, const char *s, unsigned *minor)
{
	const char *p = s;
	unsigned mi = 0;
	size_t digits = 0;

	if (strncmp(p, "pp3.", 4) != 0)
		goto grammar;
	for (p += 4; *p >= '0' && *p <= '9' && mi < 1000; p++, digits++)
		mi = mi * 10 + (unsigned)(*p - '0');
	if (digits == 0 || (digits > 1 && p[-(long)digits] == '0'))
		goto grammar;
	if (*p == 't' && !p[1]) {
		wm_schema_error(&l->c, n, "PyPy has no free-threaded build: write 'pp3.%u'",
			mi >= WM_PYPY_MIN && mi <= WM_PYPY_MAX ? mi : WM_PYPY_IMAGES);
		return false;
	}
	if (*p)
		goto grammar;
	if (mi < WM_PYPY_MIN || mi > WM_PYPY_MAX) {
		wm_schema_error(&l->c, n, "PyPy %s is not built: maturin builds PyPy 3.%u to 3.%u (such as 'pp3.%u')",
			s + 2, WM_PYPY_MIN, WM_PYPY_MAX, WM_PYPY_IMAGES);
		return false;
	}
	*minor = mi;
	return true;
grammar:
	if (strncmp(s, "pypy3.", 6) == 0)
		wm_schema_error(&l->c, n, "invalid Python version '%s': PyPy is written 'pp3.N', such as \"pp3.%u\"",
			s, WM_PYPY_IMAGES);
	else
		wm_schema_error(&l->c, n, "invalid PyPy version '%s': write pp3.N such as \"pp3.%u\"", s, WM_PYPY_IMAGES);
	return false;
}

/* "graalpy3.N": GraalPy of Python 3.N, one maturin has a table for (templates/interpreters.yaml). */
static bool parse_graalpy(struct wm_loader *l, const struct wm_node *n, const char *s, unsigned *minor)
{
	const char *p = s + 7;
	unsigned mi = 0, lo = 0, hi = 0;
	size_t digits = 0;
	for (unsigned m = 1; m < 100; m++)
		if (wm_catalog_graalpy(l->cat, m)) {
			lo = lo ? lo : m;
			hi = m;
		}
	if (strncmp(p, "3.", 2) != 0)
		goto grammar;
	for (p += 2; *p >= '0' && *p <= '9' && mi < 1000; p++, digits++)
		mi = mi * 10 + (unsigned)(*p - '0');
	if (digits == 0 || *p || (digits > 1 && s[9] == '0'))
		goto grammar;
	if (!wm_catalog_graalpy(l->cat, mi)) {
		wm_schema_error(&l->c, n, "GraalPy %s is not built: maturin builds GraalPy 3.%u to 3.%u (such as 'graalpy3.%u')",
			s + 7, lo, hi, hi > lo ? hi - 1 : hi);
		return false;
	}
	*minor = mi;
	return true;
grammar:
	wm_schema_error(&l->c, n, "invalid GraalPy version '%s': write graalpy3.N such as \"graalpy3.12\"", s);
	return false;
}

bool wm_python_parse_version(struct wm_loader *l, const struct wm_node *n, const char *what,
	unsigned lowest, bool allow_ft, unsigned *minor, bool *ft, bool *pypy, bool *graalpy)
{
	const char *s = n->text, *p;
	unsigned major = 0, mi = 0;
	size_t digits = 0;

	if (pypy)
		*pypy = false;
	if (graalpy)
		*graalpy = false;
	if (graalpy && strncmp(s, "graalpy", 7) == 0) {
		*ft = false;
		return (*graalpy = parse_graalpy(l, n, s, minor));
	}
	if (pypy && (strncmp(s, "pp", 2) == 0 || strncmp(s, "pypy", 4) == 0)) {
		*ft = false;
		return (*pypy = parse_pypy(l, n, s, minor));
	}
	for (p = s; *p >= '0' && *p <= '9' && major < 1000; p++)
		major = major * 10 + (unsigned)(*p - '0');
	if (p == s || *p != '.')
		goto grammar;
	for (p++; *p >= '0' && *p <= '9' && mi < 1000; p++, digits++)
		mi = mi * 10 + (unsigned)(*p - '0');
	if (digits == 0 || (digits > 1 && p[-(long)digits] == '0'))
		goto grammar;
	*ft = *p == 't';
	if (*ft)
		p++;
	if (*p)
		goto grammar;
	if (major != 3 || mi < lowest) {
		wm_schema_error(&l->c, n, "Python %u.%u is not supported: %s start%s at 3.%u%s", major, mi, what,
			strcmp(what, "versions") == 0 ? "" : "s", lowest,
			major == 3 && mi == 1 ? " (did you mean '3.10'?)" : "");
		return false;
	}
	if (mi > WM_PYTHON_MAX) {
		wm_schema_error(&l->c, n, "Python 3.%u is not known: the newest version is 3.%u", mi, WM_PYTHON_MAX);
		return false;
	}
	if (*ft && !allow_ft) {
		wm_schema_error(&l->c, n, "%s has no free-threaded form: write '3.%u'", what, mi);
		return false;
	}
	if (*ft && mi < WM_FT_MIN) {
		wm_schema_error(&l->c, n, "Python 3.%u has no free-threaded build: free-threaded versions start at 3.%ut",
			mi, WM_FT_MIN);
		return false;
	}
	*minor = mi;
	return true;
grammar:
	wm_schema_error(&l->c, n, "invalid Python version '%s': write 3.N such as \"3.12\", or 3.Nt for a "
		"free-threaded build such as \"3.14t\"%s", s, pypy ? ", or pp3.N for PyPy such as \"pp3.11\"" : "");
	return false;
}

/* "0.22.6", "0.22", "^0.22", "~0.22.1", "=0.22.2": the one PyO3 series it admits (MAJOR.MINOR). */
static bool one_series(const char *s, bool exact, unsigned *major, unsigned *minor)
{
	char *end;
	unsigned long a, b;
	bool tilde = false;
	if (!exact) {
		tilde = *s == '~';
		if (*s == '^' || *s == '~' || *s == '=')
			s++;
		while (*s == ' ')
			s++;
	}
	if (!(*s >= '0' && *s <= '9'))
		return false;
	a = strtoul(s, &end, 10);
	if (*end != '.' || !(end[1] >= '0' && end[1] <= '9'))
		return false;
	b = strtoul(end + 1, &end, 10);
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		strtoul(end + 1, &end, 10);
	if (exact ? (*end && *end != '+' && *end != '-') : *end)
		return false;
	/* a caret on 1.x or later admits every later minor: no one series */
	if (!exact && !tilde && a > 0)
		return false;
	*major = (unsigned)a;
	*minor = (unsigned)b;
	return true;
}

/* The range of the table's series that build `minor` (free-threaded when `ft`, PyPy when `pp`), as a phrase. */
static const char *who_builds(struct wm_loader *l, unsigned minor, bool ft, bool pp)
{
	const struct wm_pyo3 *newest = NULL, *oldest = NULL;
	for (size_t i = 0; i < wm_catalog_pyo3_count(l->cat); i++) {
		const struct wm_pyo3 *r = wm_catalog_pyo3_at(l->cat, i);
		bool ok = pp ? minor >= r->pypy_min && minor <= r->pypy_max :
			minor >= r->py_min && minor <= r->py_max && (!ft || (r->ft_min && minor >= r->ft_min));
		if (ok && !newest)
			newest = r;
		if (ok)
			oldest = r;
	}
	if (!newest)
		return "no PyO3 release wheelmatrix knows builds it";
	if (newest == wm_catalog_pyo3_at(l->cat, 0))
		return wm_arena_printf(l->c.arena, "PyO3 %s and later build it", oldest->series);
	if (newest == oldest)
		return wm_arena_printf(l->c.arena, "PyO3 %s builds it", oldest->series);
	return wm_arena_printf(l->c.arena, "PyO3 %s to %s build it", oldest->series, newest->series);
}

/*
 * The PyO3 series the crate builds with: the version its Cargo.lock resolved, else the one
 * series its requirement admits; NULL, with a note where pyo3 is declared, when neither
 * tells (a workspace, path or git dependency, a range, a series the table lacks).
 */
static const struct wm_pyo3 *project_pyo3(struct wm_loader *l)
{
	const struct wm_project *p = l->project;
	const struct wm_pyo3 *r;
	unsigned major, minor;
	const char *why = NULL;
	size_t from;

	if (!p || !p->has_cargo || (!p->pyo3_req && !p->pyo3_source))
		return NULL;
	if (p->pyo3_source)
		why = wm_arena_printf(l->c.arena, "pyo3 is a %s dependency", p->pyo3_source);
	else if (p->pyo3_locked ? !one_series(p->pyo3_locked, true, &major, &minor) :
			!one_series(p->pyo3_req, false, &major, &minor))
		why = wm_arena_printf(l->c.arena, "pyo3's requirement \"%s\" is not one release series, and no "
			"Cargo.lock resolves it", p->pyo3_req);
	else if (!(r = wm_catalog_pyo3(l->cat, major, minor)))
		why = wm_arena_printf(l->c.arena, "wheelmatrix's PyO3 table (%s to %s) has no %u.%u",
			wm_catalog_pyo3_at(l->cat, wm_catalog_pyo3_count(l->cat) - 1)->series,
			wm_catalog_pyo3_at(l->cat, 0)->series, major, minor);
	else
		return r;
	from = l->c.err->ndiags;
	wm_error_add(l->c.err, WM_OK, WM_SEV_NOTE, p->pyo3_file, p->pyo3_doc->text, p->pyo3_doc->len, p->pyo3_span.line,
		p->pyo3_span.column, (unsigned)(p->pyo3_span.end - p->pyo3_span.start),
		"%s: the Python versions are not checked against the PyO3 it builds with", why);
	wm_error_aside(l->c.err, from);
	return NULL;
}

/* The PyO3 releases that build abi3t wheels, as a phrase. */
static const char *who_builds_abi3t(struct wm_loader *l)
{
	const struct wm_pyo3 *oldest = NULL;
	for (size_t i = 0; i < wm_catalog_pyo3_count(l->cat); i++)
		if (wm_catalog_pyo3_at(l->cat, i)->abi3t_min)
			oldest = wm_catalog_pyo3_at(l->cat, i);
	return oldest ? wm_arena_printf(l->c.arena, "PyO3 %s and later build them", oldest->series) :
		"no PyO3 release wheelmatrix knows builds them";
}

/* Where the series came from, as a note at pyo3's requirement. */
static void pyo3_note(struct wm_loader *l, const struct wm_pyo3 *r)
{
	const struct wm_project *p = l->project;
	if (p->pyo3_locked)
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, p->pyo3_file, p->pyo3_doc->text, p->pyo3_doc->len,
			p->pyo3_span.line, p->pyo3_span.column, (unsigned)(p->pyo3_span.end - p->pyo3_span.start),
			"pyo3 \"%s\" is required here, and %s resolves it to %s", p->pyo3_req, p->pyo3_lock_file,
			p->pyo3_locked);
	else
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, p->pyo3_file, p->pyo3_doc->text, p->pyo3_doc->len,
			p->pyo3_span.line, p->pyo3_span.column, (unsigned)(p->pyo3_span.end - p->pyo3_span.start),
			"pyo3 \"%s\" is required here: PyO3 %s (no Cargo.lock resolves it)", p->pyo3_req, r->series);
}

/*
 * Python 3.`minor` (free-threaded when `ft`, PyPy when `pp`) against the crate's PyO3: an error
 * at `n` naming the PyO3 that would build it.
 */
static bool check_pyo3(struct wm_loader *l, const struct wm_pyo3 *r, const struct wm_node *n, unsigned minor,
	bool ft, bool pp, bool abi3)
{
	const char *v = wm_arena_printf(l->c.arena, "3.%u%s", minor, ft ? "t" : ""), *what;

	if (!r)
		return true;
	if (pp && (minor < r->pypy_min || minor > r->pypy_max))
		what = wm_arena_printf(l->c.arena, "PyO3 %s builds for PyPy 3.%u to 3.%u, not pp%s", r->series,
			r->pypy_min, r->pypy_max, v);
	else if (pp)
		return true;
	else if (minor < r->py_min || (minor > r->py_max && !abi3))
		what = wm_arena_printf(l->c.arena, "PyO3 %s builds for CPython 3.%u to 3.%u, not %s", r->series,
			r->py_min, r->py_max, v);
	else if (ft && !r->ft_min)
		what = wm_arena_printf(l->c.arena, "PyO3 %s does not build for free-threaded CPython, %s included",
			r->series, v);
	else if (ft && minor < r->ft_min)
		what = wm_arena_printf(l->c.arena, "PyO3 %s builds for free-threaded CPython 3.%ut and later, not %s",
			r->series, r->ft_min, v);
	else
		return true;
	wm_schema_error(&l->c, n, "%s: %s", what, who_builds(l, minor, ft, pp));
	pyo3_note(l, r);
	return false;
}

/*
 * CPython 3.`minor` past its end of life on the day the matrix is checked: a note, not an error (its
 * wheels still build and install, but python.org fixes nothing in it any more).
 */
static void note_end_of_life(struct wm_loader *l, const struct wm_node *n, unsigned minor)
{
	const struct wm_cpython *v = wm_catalog_cpython(l->cat, minor);
	long today = wm_catalog_today(l->cat);
	size_t from = l->c.err->ndiags;
	if (v && today && v->end_of_life_day <= today)
		wm_schema_note(&l->c, n, "CPython %s reached its end of life in %.7s (python.org's release cycle): its "
			"wheels still build, but it has no security fixes any more; consider dropping it", v->series,
			v->end_of_life);
	wm_error_aside(l->c.err, from);
}

static int cmp_python(const void *pa, const void *pb)
{
	const struct wm_python *a = *(const struct wm_python *const *)pa, *b = *(const struct wm_python *const *)pb;
	if (a->abi3 != b->abi3)
		return a->abi3 ? -1 : 1;
	if (a->abi3t != b->abi3t)
		return a->abi3t ? -1 : 1;
	if (a->graalpy != b->graalpy)
		return a->graalpy ? 1 : -1;
	if (a->pypy != b->pypy)
		return a->pypy ? 1 : -1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	return (int)a->freethreaded - (int)b->freethreaded;
}

static void load_abi3(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_project *p = l->project;
	struct wm_python *py;
	unsigned minor;
	bool ft;

	if (!wm_schema_string(&l->c, n, "'python.abi3'", &m->abi3))
		return;
	if (!wm_python_parse_version(l, n, "'python.abi3'", WM_ABI3_MIN, false, &minor, &ft, NULL, NULL)) {
		m->abi3 = NULL;
		return;
	}
	if (p && p->abi3 && p->abi3_minor && p->abi3_minor != minor) {
		/* maturin tags the wheel with pyo3's minimum: any other name is a file that never exists */
		wm_schema_error(&l->c, n, "'python.abi3' is \"%s\", but the crate builds its abi3 wheel for CPython 3.%u "
			"and later (cp3%u-abi3): write \"3.%u\", or change pyo3's feature", m->abi3, p->abi3_minor,
			p->abi3_minor, p->abi3_minor);
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, p->abi3_file, p->abi3_doc->text, p->abi3_doc->len,
			p->abi3_span.line, p->abi3_span.column, (unsigned)(p->abi3_span.end - p->abi3_span.start),
			"pyo3's feature '%s' sets the minimum", p->abi3_feature);
		m->abi3 = NULL;
		return;
	}
	if (l->pyo3 && minor < l->pyo3->abi3_min) {
		wm_schema_error(&l->c, n, "PyO3 %s builds abi3 wheels for CPython 3.%u and later, not %s: %s",
			l->pyo3->series, l->pyo3->abi3_min, m->abi3, who_builds(l, minor, false, false));
		pyo3_note(l, l->pyo3);
		m->abi3 = NULL;
		return;
	}
	l->abi3_node = n;
	py = wm_python_make(l, "abi3", minor, false);
	if (!py)
		return;
	py->abi3 = true;
	py->abi_tag = "abi3";
	py->tag = "abi3";
	/*
	 * Any interpreter at or above the minimum builds the same abi3 wheel: take one that every
	 * runner and build image provides (macOS and Windows on arm64 have no 3.8 or 3.9).  A crate
	 * with plain "abi3" and no abi3-py3X takes its minimum from the interpreter: build with the
	 * minimum itself.
	 */
	py->abi3_by_interpreter = p && p->abi3 && !p->abi3_minor;
	py->interpreter = wm_arena_printf(l->c.arena, "python3.%u",
		minor < WM_ABI3_BUILD && !py->abi3_by_interpreter ? WM_ABI3_BUILD : minor);
	py->loc = wm_loader_loc(l, n);
	m->pythons[m->npythons] = py;
	l->python_nodes[m->npythons++] = n;
}

/*
 * A `bindings = "bin"` project: its wheels carry a program, not a module,
 * one py3-none wheel per platform for every Python, built by any interpreter.
 */
static void load_bin(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	struct wm_python *py;

	if (n && !wm_yaml_is_null(n)) {
		wm_schema_error(&l->c, n, "'python' does not apply: %s sets bindings = \"bin\", whose wheels hold a "
			"program for every Python (one py3-none wheel per platform); remove it", l->project->py_path);
		return;
	}
	m->pythons = wm_arena_array(l->c.arena, 2, sizeof(*m->pythons));
	l->python_nodes = wm_arena_array(l->c.arena, 2, sizeof(*l->python_nodes));
	if (wm_loader_oom(l, m->pythons) || wm_loader_oom(l, l->python_nodes) ||
			!(py = wm_python_make(l, "py3", WM_ABI3_BUILD, false)))
		return;
	py->bin = true;
	py->python_tag = py->tag = "py3";
	py->abi_tag = "none";
	m->pythons[m->npythons++] = py;
}

/*
 * `python.abi3t` (PEP 803's free-threaded stable ABI, "3.15"), or, without it, a crate whose
 * build enables pyo3's abi3t: one abi3t entry, cp315-abi3.abi3t as maturin tags it (maturin 1.16.0
 * src/bridge/mod.rs: the ABI tags abi3 and abi3t), built with CPython 3.15t.  Returns its minimum,
 * 0 when there is none.
 */
static unsigned load_abi3t(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	struct wm_python *py;
	unsigned minor = 0;
	bool ft;
	if (n) {
		const char *s;
		if (!wm_schema_string(&l->c, n, "'python.abi3t'", &s) ||
				!wm_python_parse_version(l, n, "'python.abi3t'", WM_ABI3T_MIN, false, &minor, &ft, NULL, NULL))
			return 0;
		if (l->pyo3 && (!l->pyo3->abi3t_min || minor < l->pyo3->abi3t_min)) {
			if (l->pyo3->abi3t_min)
				wm_schema_error(&l->c, n, "PyO3 %s builds abi3t wheels for CPython 3.%u and later, not %s",
					l->pyo3->series, l->pyo3->abi3t_min, s);
			else
				wm_schema_error(&l->c, n, "PyO3 %s builds no abi3t wheel (PEP 803): %s", l->pyo3->series,
					who_builds_abi3t(l));
			pyo3_note(l, l->pyo3);
			return 0;
		}
	} else {
		struct wm_abi3 ab;
		if (!l->project || !l->project->has_cargo)
			return 0;
		wm_project_abi3(l->project, NULL, &ab);
		if (!ab.abi3t)
			return 0;
		minor = ab.abi3t_minor ? ab.abi3t_minor : WM_ABI3T_MIN;
	}
	if (!(py = wm_python_make(l, "abi3t", minor, false)))
		return 0;
	py->abi3t = true;
	py->tag = "abi3t";
	py->abi_tag = "abi3.abi3t";
	/* any CPython from the minimum builds it (maturin: has_abi3t), the GIL one as the free-threaded */
	py->interpreter = wm_arena_printf(l->c.arena, "python3.%u", minor);
	py->loc = n ? wm_loader_loc(l, n) : (struct wm_loc){ 0 };
	m->pythons[m->npythons] = py;
	l->python_nodes[m->npythons++] = n;
	l->abi3t_node = n;
	return minor;
}

/*
 * Whether a backend of the file (read before the backends are loaded) turns Cargo's default features
 * off: its build may then not be abi3 where the crate's defaults are, and use CPython versions.
 */
static bool backend_no_default(struct wm_loader *l)
{
	const struct wm_node *bs = l->root ? wm_yaml_find(l->root, "backends") : NULL, *v;
	for (size_t i = 0; bs && bs->type == WM_NODE_MAP && i < bs->n; i++)
		if (bs->pairs[i].value && bs->pairs[i].value->type == WM_NODE_MAP &&
				(v = wm_yaml_find(bs->pairs[i].value, "no-default-features")) && v->type == WM_NODE_SCALAR &&
				strcmp(v->text, "true") == 0)
			return true;
	return false;
}

/*
 * `python: 3.10` or `python: ["3.10", "3.12"]`: the versions written where the
 * mapping goes.  The error shows the form to write; true when it was that.
 */
static bool versions_not_map(struct wm_loader *l, const struct wm_node *n)
{
	char form[200];
	size_t len = 0, nitems = n->type == WM_NODE_SEQ ? n->n : 1;

	if (n->type == WM_NODE_MAP)
		return false;
	for (size_t i = 0; i < nitems; i++) {
		const struct wm_node *v = n->type == WM_NODE_SEQ ? n->items[i] : n;
		if (v->type != WM_NODE_SCALAR || strlen(v->text) > 16 || strpbrk(v->text, "\"\\"))
			return false;
		if (len + strlen(v->text) + 6 >= sizeof(form))
			return false;
		len += (size_t)snprintf(form + len, sizeof(form) - len, "%s\"%s\"", i ? ", " : "", v->text);
	}
	wm_schema_error(&l->c, n, "'python' must be a mapping, not %s: the versions go in its list 'versions' "
		"(write 'python: {versions: [%s]}')", wm_yaml_kind(n), form);
	return true;
}

/*
 * A crate that builds abi3 itself, without 'python.abi3': its one abi3 entry, from pyo3's minimum
 * (free-threaded ones beside it).  False when it could not be made.
 */
static bool load_crate_abi3(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	unsigned minor = wm_project_abi3_minor(l->project);
	struct wm_python *py = wm_python_make(l, "abi3", minor, false);
	if (!py)
		return false;
	py->abi3 = true;
	py->abi_tag = py->tag = "abi3";
	py->interpreter = wm_arena_printf(l->c.arena, "python3.%u", minor < WM_ABI3_BUILD ? WM_ABI3_BUILD : minor);
	m->abi3 = wm_arena_printf(l->c.arena, "3.%u", minor);
	m->pythons[m->npythons++] = py;
	return true;
}

/*
 * No versions: the supported CPython releases, from the lowest that requires-python admits, that the
 * crate's PyO3 builds for: nothing asked for the others.  False when one could not be made.
 */
static bool load_defaults(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	unsigned lowest = l->project && l->project->min_minor > DEFAULT_MIN ? l->project->min_minor : DEFAULT_MIN;
	for (size_t i = 0; i < WM_ARRAY_SIZE(default_versions); i++) {
		unsigned minor = DEFAULT_MIN + (unsigned)i;
		struct wm_python *py;
		if (minor < lowest || (l->pyo3 && (minor < l->pyo3->py_min || minor > l->pyo3->py_max)))
			continue;
		if (!(py = wm_python_make(l, default_versions[i], minor, false)))
			return false;
		m->pythons[m->npythons++] = py;
	}
	return true;
}

/* One entry of 'python.versions' as written and as parsed. */
struct listed {
	const struct wm_node *node;
	const char *text;
	unsigned minor;
	bool ft, pp, gp;
};

/* Whether `v` is listed before it, from the entry `start` of the axis on (each earlier one an error). */
static bool listed_twice(struct wm_loader *l, const struct listed *v, size_t start)
{
	struct wm_matrix *m = l->m;
	bool dup = false;
	for (size_t j = start; j < m->npythons; j++)
		if (m->pythons[j]->minor == v->minor && m->pythons[j]->freethreaded == v->ft &&
				m->pythons[j]->pypy == v->pp && m->pythons[j]->graalpy == v->gp && !m->pythons[j]->abi3t) {
			wm_schema_error(&l->c, v->node, "Python %s is listed twice (first at line %u, column %u)",
				v->text, l->python_nodes[j]->line, l->python_nodes[j]->column);
			dup = true;
		}
	return dup;
}

/*
 * Whether a wheel the abi3 or abi3t one covers makes `v` one that cannot be listed (the error given):
 * `abi3` when 'python.abi3' is written, `abi3t_min` the abi3t entry's minimum (0 without one).
 */
static bool covered(struct wm_loader *l, const struct listed *v, bool abi3, unsigned abi3t_min)
{
	struct wm_matrix *m = l->m;
	/* PyPy has no abi3: maturin builds its own wheel beside the abi3 one, as here */
	if (!abi3 && !v->ft && !v->pp && !v->gp && l->project && l->project->abi3 && !backend_no_default(l)) {
		const struct wm_project *p = l->project;
		wm_schema_error(&l->c, v->node, "'%s' cannot be listed: the crate builds one abi3 wheel for "
			"CPython %s and later; list only free-threaded versions (\"3.14t\"), or none",
			v->text, m->abi3);
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, p->abi3_file, p->abi3_doc->text,
			p->abi3_doc->len, p->abi3_span.line, p->abi3_span.column,
			(unsigned)(p->abi3_span.end - p->abi3_span.start),
			"pyo3's feature '%s' makes it abi3", p->abi3_feature);
		return true;
	}
	if (abi3 && l->abi3_node && !v->ft && !v->pp && !v->gp) {
		wm_schema_error(&l->c, v->node, "'%s' cannot be listed with 'abi3': the abi3 wheel already "
			"covers CPython %s and later; list only free-threaded versions (\"3.14t\") beside it",
			v->text, m->abi3);
		wm_schema_note(&l->c, l->abi3_node, "'abi3' is set here");
		return true;
	}
	if (abi3t_min && !v->pp && !v->gp && v->minor >= abi3t_min) {
		wm_schema_error(&l->c, v->node, "'%s' cannot be listed with 'abi3t': the abi3t wheel covers "
			"CPython 3.%u and later, free-threaded or not", v->text, abi3t_min);
		return true;
	}
	return false;
}

/*
 * One entry of 'python.versions' onto the axis, unless it is an error (given, and the entry left out).
 * False when its entry could not be made.
 */
static bool load_version(struct wm_loader *l, struct listed *v, bool abi3, unsigned abi3t_min, size_t start)
{
	struct wm_matrix *m = l->m;
	struct wm_python *py;
	if (!wm_python_parse_version(l, v->node, "versions", WM_PYTHON_MIN, true, &v->minor, &v->ft, &v->pp, &v->gp) ||
			(!v->gp && !check_pyo3(l, l->pyo3, v->node, v->minor, v->ft, v->pp, false)))
		return true;
	if (listed_twice(l, v, start) || covered(l, v, abi3, abi3t_min))
		return true;
	if (!v->pp && !v->gp)
		note_end_of_life(l, v->node, v->minor);
	if ((py = v->gp ? wm_python_make_graalpy(l, v->text, v->minor) : v->pp ?
			wm_python_make_pypy(l, v->text, v->minor) : wm_python_make(l, v->text, v->minor, v->ft)) == NULL)
		return false;
	py->loc = wm_loader_loc(l, v->node);
	m->pythons[m->npythons] = py;
	l->python_nodes[m->npythons++] = v->node;
	return true;
}

/*
 * 'python.versions' onto the axis, each checked against the entries from `start` on.  False when the
 * list is not one (the error given) or an entry could not be made.
 */
static bool load_versions(struct wm_loader *l, const struct wm_node *versions, bool abi3, unsigned abi3t_min,
	size_t start)
{
	struct wm_strlist list;
	const struct wm_node **nodes;
	if (!wm_schema_strlist(&l->c, versions, "'python.versions'", &list, &nodes))
		return false;
	if (list.n == 0 && !abi3) {
		wm_schema_error(&l->c, versions, "'python.versions' is empty: list at least one version, or set 'abi3'");
		return false;
	}
	for (size_t i = 0; i < list.n; i++) {
		struct listed v = { .node = nodes[i], .text = list.items[i] };
		if (!load_version(l, &v, abi3, abi3t_min, start))
			return false;
	}
	return true;
}

void wm_python_load(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_node *versions = n ? wm_yaml_find(n, "versions") : NULL;
	const struct wm_node *abi3 = n ? wm_yaml_find(n, "abi3") : NULL;
	const struct wm_node *abi3t = n ? wm_yaml_find(n, "abi3t") : NULL;
	unsigned abi3t_min;
	size_t nversions = versions && versions->type == WM_NODE_SEQ ? versions->n : 0;
	size_t start;

	if (wm_loader_bindings_bin(l)) {
		load_bin(l, n);
		return;
	}
	if (n && !wm_yaml_is_null(n) && versions_not_map(l, n))
		return;
	if (n && !wm_yaml_is_null(n) && !wm_schema_map(&l->c, n, "'python'", python_keys, WM_ARRAY_SIZE(python_keys)))
		return;
	l->pyo3 = project_pyo3(l);
	if (!versions && !abi3)
		nversions = WM_ARRAY_SIZE(default_versions);
	m->pythons = wm_arena_array(l->c.arena, nversions + 3, sizeof(*m->pythons));
	l->python_nodes = wm_arena_array(l->c.arena, nversions + 3, sizeof(*l->python_nodes));
	if (wm_loader_oom(l, m->pythons) || wm_loader_oom(l, l->python_nodes))
		return;
	if (abi3)
		load_abi3(l, abi3);
	abi3t_min = load_abi3t(l, abi3t);
	start = m->npythons;
	if (!abi3 && l->project && l->project->abi3) {
		if (!load_crate_abi3(l))
			return;
		start = m->npythons;
	} else if (!versions && !abi3 && !load_defaults(l)) {
		return;
	}
	if (versions && !load_versions(l, versions, abi3 != NULL, abi3t_min, start))
		return;
	/* l->python_nodes is in file order, for the checks above: a sorted entry's own `loc` says where it is */
	qsort(m->pythons, m->npythons, sizeof(*m->pythons), cmp_python);
}

/* The abi3 entry of the axis for CPython 3.`minor` and later, made when the axis has none. */
static const struct wm_python *abi3_entry(struct wm_loader *l, unsigned minor, struct wm_loc loc)
{
	struct wm_matrix *m = l->m;
	struct wm_python *py;
	for (size_t y = 0; y < m->npythons; y++)
		if (m->pythons[y]->abi3 && m->pythons[y]->minor == minor)
			return m->pythons[y];
	if (!(py = wm_python_make(l, "abi3", minor, false)))
		return NULL;
	py->abi3 = true;
	py->abi_tag = py->tag = "abi3";
	py->interpreter = wm_arena_printf(l->c.arena, "python3.%u", minor < WM_ABI3_BUILD ? WM_ABI3_BUILD : minor);
	py->loc = loc;
	m->pythons[m->npythons] = py;
	l->python_nodes[m->npythons++] = NULL;
	return py;
}

/* A note at the pyo3 feature that `ab` names, where it is written in the project's files. */
static void abi3_note(struct wm_loader *l, const struct wm_abi3 *ab, const char *what)
{
	if (!ab->at.file)
		return;
	wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, ab->at.file, ab->at.doc->text, ab->at.doc->len, ab->at.span.line,
		ab->at.span.column, (unsigned)(ab->at.span.end - ab->at.span.start), "pyo3's feature '%s' %s%s%s%s",
		ab->written, what, ab->via ? " (through the crate's feature '" : "", ab->via ? ab->via : "", ab->via ? "')" : "");
}

bool wm_python_backend_no_default(const struct wm_backend *b)
{
	return b->settings && b->settings->no_default_features == 1;
}

/*
 * With an abi3t entry, which backends it is for: those whose build enables pyo3's abi3t.  False (the
 * error given) when 'python.abi3t' is written and no backend's does.
 */
static bool abi3t_backends(struct wm_loader *l, bool abi3t)
{
	struct wm_matrix *m = l->m;
	bool any_abi3t = false;
	for (size_t i = 0; abi3t && i < m->nbackends; i++) {
		struct wm_build_features bf = { &m->backends[i]->features, wm_python_backend_no_default(m->backends[i]) };
		struct wm_abi3 ab;
		wm_project_abi3(l->project, &bf, &ab);
		m->backends[i]->abi3t = ab.abi3t;
		any_abi3t |= ab.abi3t;
	}
	if (abi3t && !any_abi3t && l->abi3t_node) {
		/* maturin would build cp315-cp315t wheels: the abi3t name would be a file that never exists */
		wm_schema_error(&l->c, l->abi3t_node, "'python.abi3t' is set, but no backend's build enables pyo3's "
			"abi3t: add its feature abi3t-py315 to the crate's pyo3 dependency (or a feature the build enables)");
		return false;
	}
	return true;
}

/* Room on the axis for one abi3 entry per backend.  False when there is none. */
static bool room_for_abi3(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	const struct wm_python **py = wm_arena_array(l->c.arena, m->npythons + m->nbackends + 1, sizeof(*py));
	const struct wm_node **nodes = wm_arena_array(l->c.arena, m->npythons + m->nbackends + 1, sizeof(*nodes));
	if (wm_loader_oom(l, py) || wm_loader_oom(l, nodes))
		return false;
	memcpy(py, m->pythons, m->npythons * sizeof(*py));
	memcpy(nodes, l->python_nodes, m->npythons * sizeof(*nodes));
	m->pythons = py;
	l->python_nodes = nodes;
	return true;
}

/*
 * The abi3 wheel of backend `b` when its features make it other than the crate's `crate`: none, or an
 * entry of its own; *differ set when so.  False when that entry could not be made.
 */
static bool backend_abi3(struct wm_loader *l, struct wm_backend *b, const struct wm_python *crate, bool *differ)
{
	struct wm_matrix *m = l->m;
	struct wm_build_features bf = { &b->features, wm_python_backend_no_default(b) };
	struct wm_abi3 ab;
	unsigned minor;
	if (b->features.n == 0 && !bf.no_default)
		return true;
	wm_project_abi3(l->project, &bf, &ab);
	if (!ab.abi3) {
		/* no-default-features turns off the abi3 the crate's default features turn on */
		if (b->abi3 && !l->abi3_node) {
			b->abi3 = NULL;
			*differ = true;
		}
		return true;
	}
	minor = ab.minor ? ab.minor : wm_project_abi3_minor(l->project);
	if (crate && crate->minor == minor)
		return true;
	if (l->abi3_node) {
		/* maturin tags the wheel with pyo3's minimum: any other name is a file that never exists */
		wm_schema_error(&l->c, l->abi3_node, "'python.abi3' is \"%s\", but backend '%s' builds its abi3 wheel "
			"for CPython 3.%u and later (cp3%u-abi3): write \"3.%u\", or change its features", m->abi3, b->id,
			minor, minor, minor);
		abi3_note(l, &ab, "sets its minimum");
		return true;
	}
	if (l->pyo3 && minor < l->pyo3->abi3_min) {
		wm_schema_error_at(&l->c, b->loc.line, b->loc.column, (unsigned)strlen(b->id), "backend '%s' builds "
			"abi3 wheels for CPython 3.%u and later, but PyO3 %s builds them for 3.%u and later: %s", b->id,
			minor, l->pyo3->series, l->pyo3->abi3_min, who_builds(l, minor, false, false));
		return true;
	}
	if (!(b->abi3 = abi3_entry(l, minor, b->loc)))
		return false;
	*differ = true;
	return true;
}

/*
 * Whether a backend without abi3 finds no CPython version on the axis (the error given, at the
 * first such backend).
 */
static bool cpython_missing(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	bool any = false;
	for (size_t y = 0; y < m->npythons && !any; y++)
		any = !m->pythons[y]->abi3 && !m->pythons[y]->abi3t && !m->pythons[y]->freethreaded &&
			!m->pythons[y]->pypy && !m->pythons[y]->graalpy;
	for (size_t i = 0; i < m->nbackends && !any; i++) {
		const struct wm_backend *b = m->backends[i];
		if (b->abi3)
			continue;
		wm_schema_error_at(&l->c, b->loc.line, b->loc.column, (unsigned)strlen(b->id), "backend '%s' builds "
			"no abi3 wheel (its no-default-features turns off the crate's abi3), and 'python.versions' lists "
			"no CPython version for it: list the versions it builds", b->id);
		return true;
	}
	return false;
}

/*
 * The axis without the entries no backend builds (each listed one an error), sorted: the CPython
 * versions are used when `cpython_used`, an abi3 entry by the backends that build it.
 */
static void keep_used(struct wm_loader *l, bool cpython_used)
{
	struct wm_matrix *m = l->m;
	const struct wm_python **kept;
	size_t n = 0;
	if (wm_loader_oom(l, kept = wm_arena_array(l->c.arena, m->npythons + 1, sizeof(*kept))))
		return;
	for (size_t y = 0; y < m->npythons; y++) {
		const struct wm_python *py = m->pythons[y];
		bool used = !py->abi3 ? cpython_used || py->freethreaded || py->pypy || py->graalpy || py->abi3t : false;
		for (size_t b = 0; py->abi3 && b < m->nbackends; b++)
			used |= m->backends[b]->abi3 == py;
		if (!used && py->loc.line) {
			const struct wm_backend *b = m->backends[0];
			wm_schema_error_at(&l->c, py->loc.line, py->loc.column, (unsigned)strlen(py->version) + 2,
				"'%s' cannot be listed: every backend builds one abi3 wheel (backend '%s' for CPython 3.%u and "
				"later); list only free-threaded versions (\"3.14t\"), or none", py->version, b->id, b->abi3->minor);
		}
		if (used)
			kept[n++] = py;
	}
	memcpy(m->pythons, kept, n * sizeof(*kept));
	m->npythons = n;
	qsort(m->pythons, m->npythons, sizeof(*m->pythons), cmp_python);
}

void wm_python_backends(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	const struct wm_project *p = l->project;
	const struct wm_python *crate = NULL;
	bool differ = false, cpython_used = false, abi3t = false;

	for (size_t y = 0; y < m->npythons && !crate; y++)
		if (m->pythons[y]->abi3)
			crate = m->pythons[y];
	for (size_t y = 0; y < m->npythons; y++)
		abi3t |= m->pythons[y]->abi3t;
	for (size_t b = 0; b < m->nbackends; b++) {
		m->backends[b]->abi3 = crate;
		m->backends[b]->abi3t = abi3t;
	}
	if (!p || !p->has_cargo || !l->python_ok || !l->backends_ok || wm_loader_bindings_bin(l) || !m->pythons)
		return;
	if (!abi3t_backends(l, abi3t) || !room_for_abi3(l))
		return;
	for (size_t i = 0; i < m->nbackends; i++)
		if (!backend_abi3(l, m->backends[i], crate, &differ))
			return;
	if (!differ)
		return;
	/* the CPython versions are for the backends without abi3; the abi3 entries for their backends */
	for (size_t b = 0; b < m->nbackends; b++)
		cpython_used |= m->backends[b]->abi3 == NULL;
	if (cpython_used && cpython_missing(l))
		return;
	keep_used(l, cpython_used);
}
