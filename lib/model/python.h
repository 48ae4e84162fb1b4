/* python.h — the matrix's `python` section (python.c). */
#ifndef WM_MODEL_PYTHON_H
#define WM_MODEL_PYTHON_H

#include "util/common.h"
#include "formats/yaml.h"

#define WM_PYTHON_MIN 8     /* oldest CPython wheelmatrix builds for */
#define WM_PYTHON_MAX 15    /* newest it knows */
#define WM_FT_MIN 13        /* first free-threaded CPython */
#define WM_ABI3_MIN 7       /* oldest abi3 minimum */

struct wm_loader;

/* Loads `python` (`n` NULL when the key is absent) into the matrix's Python axis. */
void wm_python_load(struct wm_loader *l, const struct wm_node *n);
/* An entry of the Python axis, CPython 3.`minor` (free-threaded when `ft`), with its tags; NULL when out of memory. */
struct wm_python *wm_python_make(struct wm_loader *l, const char *version, unsigned minor, bool ft);
/*
 * Parses "3.N" or "3.Nt"; reports and returns false when the text is not a
 * version we build.  `lowest` is the oldest minor accepted (abi3 goes lower).
 */
bool wm_python_parse_version(struct wm_loader *l, const struct wm_node *n, const char *what,
	unsigned lowest, bool allow_ft, unsigned *minor, bool *ft);

#endif
