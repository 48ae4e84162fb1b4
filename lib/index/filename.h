/* filename.h — wheel and sdist file names (filename.c). */
#ifndef WM_INDEX_FILENAME_H
#define WM_INDEX_FILENAME_H

#include "util/common.h"
#include "util/arena.h"

/* The name part of a wheel or sdist file name (`_` for runs of -_., lower case) into `out`. */
void wm_filename_dist(char *out, const char *name);
char *wm_filename_wheel(struct wm_arena *a, const char *dist, const char *version, const char *python_tag,
	const char *abi_tag, const char *platform_tag);
char *wm_filename_sdist(struct wm_arena *a, const char *dist, const char *version);
/* A variant wheel's name (PEP 825 draft): the wheel's with `-<label>` before `.whl`. */
char *wm_filename_variant_wheel(struct wm_arena *a, const char *dist, const char *version, const char *python_tag,
	const char *abi_tag, const char *platform_tag, const char *label);
/* The variant index's file of a release (PEP 825 draft): `<name>-<version>-variants.json`. */
char *wm_filename_variants_json(struct wm_arena *a, const char *dist, const char *version);

enum wm_file_kind { WM_FILE_OTHER, WM_FILE_WHEEL, WM_FILE_SDIST, WM_FILE_VARIANTS_JSON };
/*
 * A file name split into its parts (in the arena); tag parts may be '.'-separated sets.  A wheel
 * name of six parts holds a build tag when the third starts with a digit, else a variant label
 * (PEP 825: a Python tag never starts with a digit); one of seven parts holds both.
 */
struct wm_filename {
	enum wm_file_kind kind;
	const char *name, *version, *build, *python, *abi, *platform, *variant;
};
int wm_filename_parse(struct wm_filename *out, struct wm_arena *a, const char *filename);
/* A wheel whose tag sets include these tags, its platform tags matched leniently. */
bool wm_filename_matches_wheel(const struct wm_filename *f, const char *python_tag, const char *abi_tag,
	const char *platform_tag);
/* A wheel whose platform tag set includes `platform_tag`, matched leniently as above. */
bool wm_filename_platform_matches(const struct wm_filename *f, const char *platform_tag);

/* The same, strictly: each tag in its set, manylinux levels and macOS deployment targets too (PEP 600's legacy names read as theirs). */
bool wm_filename_matches_wheel_strict(const struct wm_filename *f, const char *python_tag, const char *abi_tag,
	const char *platform_tag);

#endif
