/* pin.h — what the other modules of index/ may call of pin.c beyond the public API. */
#ifndef WM_INDEX_PIN_H
#define WM_INDEX_PIN_H

#include "util/common.h"
#include "index/net.h"

/*
 * wm_pin_resolve, with `extra` (nextra requests of the caller's: outdated's
 * index pages) fetched in the same batch as the forge's refs, so that one
 * round of `jobs` requests serves both; their answers are left in them for
 * the caller to read and release.
 */
int wm_pin_resolve_with(struct wm_pin *p, const struct wm_pin_options *o, struct wm_net_request *extra,
	size_t nextra, struct wm_error *err);

#endif
