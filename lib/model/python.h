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
 * The PyPy we build for, "pp3.N": those maturin builds without the interpreter, from its
 * own tables of PyPy's configuration, for every Linux target (`maturin list-python
 * --target ...`, maturin 1.16.0: PyPy 3.8 to 3.12; it takes them when cross-compiling,
 * and when an interpreter named by -i is not found), and actions/setup-python and uv
 * install as pypy3.N on macOS and Windows (uv 0.13.9's download list: 3.8 to 3.12 for
 * macOS x86_64 and arm64 and Windows x86_64).  t-pypy-maturin checks both lists.
 */
#define WM_ABI3T_MIN 15   /* the first free-threaded stable ABI (PEP 803) */
#define WM_PYPY_MIN 8
#define WM_PYPY_MAX 12
/*
 * The PyPy the manylinux images carry, /opt/python/pp311-pypy311_pp73 on x86_64 and
 * aarch64 (pypa/manylinux docker/Dockerfile, docker/build_scripts/python_versions.json:
 * pp311 only since 3.9 and 3.10 left): a GitLab job runs it there; the others have no
 * PyPy interpreter in a Linux image.
 */
#define WM_PYPY_IMAGES 11
/*
 * The CPythons the pypa images carry as /usr/local/bin/python3.X: 3.9 and later, free-threaded
 * from 3.14 (pypa/manylinux@ad3c453 README.rst, "Image content": "CPython 3.9, 3.10, 3.11, 3.12,
 * 3.13, 3.14, 3.14t, 3.15, 3.15t"; 638a3185, "break: drop Python 3.13t").  A musllinux wheel of
 * another is not imported or tested in its image.
 */
#define WM_CPYTHON_IMAGES_MIN 9
#define WM_FREETHREADED_IMAGES_MIN 14

struct wm_loader;

/* Loads `python` (`n` NULL when the key is absent) into the matrix's Python axis. */
void wm_python_load(struct wm_loader *l, const struct wm_node *n);
/*
 * After the backends: each backend's abi3 entry (wm_backend.abi3), from the features its build
 * enables through the crate's (model/project.c, wm_project_abi3); an abi3 entry added to the axis
 * for each minimum a backend's features set apart from the crate's, and the CPython versions kept
 * only while a backend builds them.
 */
void wm_python_backends(struct wm_loader *l);
/* Whether backend `b`'s own build settings turn Cargo's default features off (its abi3 is read so). */
bool wm_python_backend_no_default(const struct wm_backend *b);
/* An entry of the Python axis, CPython 3.`minor` (free-threaded when `ft`), with its tags; NULL when out of memory. */
struct wm_python *wm_python_make(struct wm_loader *l, const char *version, unsigned minor, bool ft);
/* An entry of the Python axis, PyPy of Python 3.`minor`: pp3N-pypy3N_ppXY (templates/interpreters.yaml), built with pypy3.N. */
struct wm_python *wm_python_make_pypy(struct wm_loader *l, const char *version, unsigned minor);
/* An entry of the Python axis, GraalPy of Python 3.`minor`: graalpy3N-graalpyXY_3N_native, built with graalpy3.N. */
struct wm_python *wm_python_make_graalpy(struct wm_loader *l, const char *version, unsigned minor);
/*
 * Parses "3.N" or "3.Nt", "pp3.N" when `pypy` is not NULL and "graalpy3.N" when `graalpy` is not
 * NULL (setting them);
 * reports and returns false when the text is not a version we build.
 * `lowest` is the oldest CPython minor accepted (abi3 goes lower).
 */
bool wm_python_parse_version(struct wm_loader *l, const struct wm_node *n, const char *what,
	unsigned lowest, bool allow_ft, unsigned *minor, bool *ft, bool *pypy, bool *graalpy);

#endif
