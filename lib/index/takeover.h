/* takeover.h — init judged against the index: the project's newest release, its wheels matched with the matrix init writes, and the summary (takeover.c). */
#ifndef WM_INDEX_TAKEOVER_H
#define WM_INDEX_TAKEOVER_H

#include "util/common.h"

struct wm_takeover_options {
	const char *index;               /* NULL: WM_PLAN_INDEX */
	bool offline;                    /* ask no index */
	unsigned jobs, retries;          /* as plan's */
	long timeout_ms, connect_timeout_ms;
	unsigned backoff_ms;
	size_t max_bytes;
	const char *cacert, *netrc, *username, *password;
};
/* The defaults: PyPI, plan's network defaults. */
void wm_takeover_options_init(struct wm_takeover_options *o);
/*
 * The project's newest release on the index: its wheels, for the matrix init writes.  A project
 * the index does not have is none; a page that cannot be read is WM_EIO, said; a bad index URL
 * WM_EINVALID, libcurl that cannot be loaded WM_EIO, an unreadable CA file WM_EREAD.
 */
int wm_takeover_fetch(struct wm_init *in, const struct wm_takeover_options *o, struct wm_error *err);
/*
 * Writes the matrix and loads it (WM_EINTERNAL, said, when it does not: nothing is to be written),
 * then matches each wheel of the release with the matrix's files, strictly: the same Python, ABI
 * and platform tags, manylinux level and macOS deployment target.
 */
int wm_takeover_judge(struct wm_init *in, struct wm_error *err);
/* "N wheels published in X.Y.Z, M reproduced, K not:" and a line per wheel not, with why; or JSON. */
int wm_takeover_report(char **out, size_t *len, const struct wm_init *in, bool json);

#endif
