/* python.h — the matrix's `python` section (python.c). */
#ifndef WM_MODEL_PYTHON_H
#define WM_MODEL_PYTHON_H

#include "util/common.h"
#include "formats/yaml.h"

#define WM_PYTHON_MIN 8     /* oldest CPython wheelmatrix builds for */
#define WM_PYTHON_MAX 15    /* newest it knows */
#define WM_FT_MIN 13        /* first free-threaded CPython */
#define WM_ABI3_MIN 7       /* oldest abi3 minimum */
/*
 * The PyPy we build for, "pp3.N": the one the manylinux images carry under
 * /opt/python/pp311-pypy311_pp73 (pypa/manylinux docker/Dockerfile, finalize.sh's
 * argument, and docker/build_scripts/python_versions.json: pp311 only since 3.9 and
 * 3.10 left), and actions/setup-python and uv install as pypy3.11.
 */
#define WM_PYPY_MIN 11
#define WM_PYPY_MAX 11

struct wm_loader;

/* Loads `python` (`n` NULL when the key is absent) into the matrix's Python axis. */
void wm_python_load(struct wm_loader *l, const struct wm_node *n);
/* An entry of the Python axis, CPython 3.`minor` (free-threaded when `ft`), with its tags; NULL when out of memory. */
struct wm_python *wm_python_make(struct wm_loader *l, const char *version, unsigned minor, bool ft);
/* An entry of the Python axis, PyPy of Python 3.`minor`: pp3N-pypy3N_pp73, built with pypy3.N. */
struct wm_python *wm_python_make_pypy(struct wm_loader *l, const char *version, unsigned minor);
/*
 * Parses "3.N" or "3.Nt", and "pp3.N" when `pypy` is not NULL (setting it);
 * reports and returns false when the text is not a version we build.
 * `lowest` is the oldest CPython minor accepted (abi3 goes lower).
 */
bool wm_python_parse_version(struct wm_loader *l, const struct wm_node *n, const char *what,
	unsigned lowest, bool allow_ft, unsigned *minor, bool *ft, bool *pypy);

#endif
