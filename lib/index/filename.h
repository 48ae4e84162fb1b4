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

enum wm_file_kind { WM_FILE_OTHER, WM_FILE_WHEEL, WM_FILE_SDIST };
/* A file name split into its parts (in the arena); tag parts may be '.'-separated sets. */
struct wm_filename {
	enum wm_file_kind kind;
	const char *name, *version, *build, *python, *abi, *platform;
};
int wm_filename_parse(struct wm_filename *out, struct wm_arena *a, const char *filename);
/* A wheel whose tag sets include these tags, its platform tags matched leniently. */
bool wm_filename_matches_wheel(const struct wm_filename *f, const char *python_tag, const char *abi_tag,
	const char *platform_tag);

#endif
