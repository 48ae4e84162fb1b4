/* net.h — a bounded, retried batch of GETs through libcurl (its only user) (net.c). */
#ifndef WM_INDEX_NET_H
#define WM_INDEX_NET_H

#include "util/common.h"

/* One GET of a batch.  Everything the caller reads is malloc'd and released with the request. */
struct wm_net_request {
	const char *url;           /* in: not copied */
	/*
	 * in: NULL, or options whose accept, username and password replace the batch's for this
	 * request, so that one batch asks hosts that want other headers and other credentials
	 */
	const struct wm_net_options *own;
	long status;               /* the final HTTP status, 0 when no response came */
	char *content_type;        /* NULL when the response had none */
	char *body;                /* NUL-terminated */
	size_t len;
	char *error;               /* why the request failed after its retries, NULL when a response came */
	unsigned attempts;
	/* the fetcher's own state */
	void *priv;
};
struct wm_net_options {
	const char *accept;
	unsigned jobs, retries;
	long timeout_ms, connect_timeout_ms;
	unsigned backoff_ms;
	size_t max_bytes;
	const char *cacert, *netrc, *username, *password;
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
};
/*
 * The defaults of the network options plan, outdated and pin share (theirs are wm_net_options'
 * fields by the same names): 8 requests at once, 3 retries from 500 ms, 30 s a request (10 to
 * connect), responses of at most 32 MiB.
 */
#define WM_NET_DEFAULTS(o) ((o)->jobs = 8, (o)->retries = 3, (o)->timeout_ms = 30000, \
	(o)->connect_timeout_ms = 10000, (o)->backoff_ms = 500, (o)->max_bytes = 32u << 20)
/*
 * Loads libcurl (once): 0, or WM_EIO when it cannot be loaded.  Call it
 * before wm_net_fetch, which is WM_EINTERNAL without it.
 */
int wm_net_init(struct wm_error *err);
/* 0 when `cacert` is NULL or a file that can be read; WM_EREAD, said, otherwise. */
int wm_net_cacert_check(const char *cacert, struct wm_error *err);
/*
 * Fetches every request, `jobs` at once, each retried on 429, 5xx and
 * transient transport failures with exponential backoff (Retry-After
 * honoured).  Returns 0, or WM_ENOMEM; failures are per request.
 */
int wm_net_fetch(struct wm_net_request *reqs, size_t n, const struct wm_net_options *o);
void wm_net_request_release(struct wm_net_request *r);

#endif
