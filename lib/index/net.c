/* net.c — the one module that uses libcurl: a batch of GETs through the multi interface, bounded and retried. */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <curl/curl.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/text.h"
#include "index/net.h"

/*
 * libcurl is loaded here, by dlopen, when the first batch is fetched, and
 * not linked into the program: linked, the dynamic loader would load and
 * relocate it and the 20 libraries it needs (TLS, HTTP/2, LDAP, Kerberos,
 * SSH...) when any command starts, some 5 ms that only `plan` has a use for.
 * Its functions are called through the pointers below; curl.h gives their
 * types and constants.  The library is the one of curl.h's ABI, soname
 * libcurl.so.4 (Debian's libcurl4 package, installed with libcurl4-*-dev).
 */
#define CURL_SONAME "libcurl.so.4"

static struct {
	void *handle;
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_reset)(CURL *e);
	void (*easy_cleanup)(CURL *e);
	CURLcode (*easy_setopt)(CURL *e, CURLoption option, ...);
	CURLcode (*easy_getinfo)(CURL *e, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode code);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_cleanup)(CURLM *m);
	CURLMcode (*multi_setopt)(CURLM *m, CURLMoption option, ...);
	CURLMcode (*multi_add_handle)(CURLM *m, CURL *e);
	CURLMcode (*multi_remove_handle)(CURLM *m, CURL *e);
	CURLMcode (*multi_perform)(CURLM *m, int *running);
	CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra[], unsigned n, int timeout_ms, int *ret);
	CURLMsg *(*multi_info_read)(CURLM *m, int *left);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
} cu;

#ifdef WM_LINKED
/*
 * Built with WM_LINKED (make LINKED=1, as the wheel is: docs/install.md),
 * the program is linked with libcurl and the pointers are its functions: a
 * wheel's repair (auditwheel) bundles only the libraries a program names as
 * needed, and renames them, so that a dlopen by soname would not find them.
 */
int wm_net_init(struct wm_error *err)
{
	(void)err;
	if (cu.handle)
		return 0;
#define FN(f) cu.f = curl_##f;
	FN(global_init) FN(global_cleanup) FN(easy_init) FN(easy_reset) FN(easy_cleanup)
	FN(easy_setopt) FN(easy_getinfo) FN(easy_strerror) FN(multi_init) FN(multi_cleanup)
	FN(multi_setopt) FN(multi_add_handle) FN(multi_remove_handle) FN(multi_perform)
	FN(multi_poll) FN(multi_info_read) FN(slist_append) FN(slist_free_all)
#undef FN
	cu.handle = &cu;
	return 0;
}
#else
int wm_net_init(struct wm_error *err)
{
	static const struct { const char *name; size_t offset; } fns[] = {
#define FN(f) { "curl_" #f, offsetof(__typeof__(cu), f) }
		FN(global_init), FN(global_cleanup), FN(easy_init), FN(easy_reset), FN(easy_cleanup),
		FN(easy_setopt), FN(easy_getinfo), FN(easy_strerror), FN(multi_init), FN(multi_cleanup),
		FN(multi_setopt), FN(multi_add_handle), FN(multi_remove_handle), FN(multi_perform),
		FN(multi_poll), FN(multi_info_read), FN(slist_append), FN(slist_free_all),
#undef FN
	};
	void *h;

	if (cu.handle)
		return 0;
	if (!(h = dlopen(CURL_SONAME, RTLD_LAZY | RTLD_LOCAL))) {
		const char *why = dlerror();
		wm_error_add(err, WM_EIO, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"cannot load libcurl (%s): install it (Debian: apt-get install libcurl4)", why ? why : CURL_SONAME);
		return WM_EIO;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *f = dlsym(h, fns[i].name);
		if (!f) {
			wm_error_add(err, WM_EIO, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
				"cannot load libcurl: %s has no %s (libcurl 7.85 or later is needed)", CURL_SONAME, fns[i].name);
			dlclose(h);
			return WM_EIO;
		}
		/* POSIX: a function's address converts to and from void * through dlsym */
		memcpy((char *)&cu + fns[i].offset, &f, sizeof(f));
	}
	cu.handle = h;
	return 0;
}
#endif

/*
 * Every request of a batch is an easy handle on one multi handle, at most
 * `jobs` of them at once, so that connections are reused and a slow server
 * costs one round trip per `jobs` requests.  A request that gets a 429 or a
 * 5xx, or fails in a way that may pass (a refused or cut connection, a
 * timeout), waits and goes back in the queue: Retry-After when the server
 * sends it, else a delay that doubles each time.  TLS verification is never
 * turned off: there is no option for it.
 */

#define MAX_REDIRECTS 5
#define MAX_WAIT_MS 60000L   /* the longest Retry-After we wait for */

struct state {
	CURL *easy;
	struct curl_slist *headers;
	struct wm_buf body;
	bool too_big;
	bool done;
	uint64_t ready_at;       /* monotonic ms before which it is not started again */
	char errbuf[CURL_ERROR_SIZE];
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct sink {
	struct wm_net_request *req;
	struct state *st;
	size_t max;
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct state *st = ctx;
	size_t len = size * n;
	wm_buf_add(&st->body, data, len);
	return st->body.oom ? 0 : len;
}

/* The cap is checked here too: a chunked response has no length for CURLOPT_MAXFILESIZE to see. */
static size_t on_body_capped(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	if (s->st->body.len + size * n > s->max) {
		s->st->too_big = true;
		return 0;
	}
	return on_body(data, size, n, s->st);
}

static int setup(struct wm_net_request *r, struct sink *sink, const struct wm_net_options *o)
{
	struct state *st = r->priv;
	CURL *e = st->easy;
	bool https;
	int bad = 0;

	cu.easy_reset(e);
	wm_buf_clear(&st->body);
	st->too_big = false;
	st->errbuf[0] = '\0';
	sink->req = r;
	sink->st = st;
	sink->max = o->max_bytes;
	bad |= cu.easy_setopt(e, CURLOPT_URL, r->url);
	bad |= cu.easy_setopt(e, CURLOPT_PRIVATE, (void *)r);
	bad |= cu.easy_setopt(e, CURLOPT_ERRORBUFFER, st->errbuf);
	bad |= cu.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	/*
	 * A request that starts on https stays on https: a redirect to plain http would take the
	 * answer (a pin, a page of hashes) from anyone on the way, and a .netrc password of the same
	 * host with it.  Credentials never follow a redirect to another host, port or scheme
	 * (CURLOPT_UNRESTRICTED_AUTH off, said here rather than left to the default); .netrc is read
	 * for each host as it is reached.  http:// is only ever the loopback's (util/name.c).
	 */
	https = strncasecmp(r->url, "https://", 8) == 0;
	bad |= cu.easy_setopt(e, CURLOPT_PROTOCOLS_STR, https ? "https" : "http,https");
	bad |= cu.easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https");
	bad |= cu.easy_setopt(e, CURLOPT_UNRESTRICTED_AUTH, 0L);
	bad |= cu.easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	bad |= cu.easy_setopt(e, CURLOPT_MAXREDIRS, (long)MAX_REDIRECTS);
	bad |= cu.easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	bad |= cu.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	bad |= cu.easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
	bad |= cu.easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	bad |= cu.easy_setopt(e, CURLOPT_USERAGENT, "wheelmatrix/" WM_VERSION);
	bad |= cu.easy_setopt(e, CURLOPT_HTTPHEADER, st->headers);
	bad |= cu.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body_capped);
	bad |= cu.easy_setopt(e, CURLOPT_WRITEDATA, (void *)sink);
	bad |= cu.easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	bad |= cu.easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	bad |= cu.easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	if (o->netrc)
		bad |= cu.easy_setopt(e, CURLOPT_NETRC_FILE, o->netrc);
	if ((r->own ? r->own : o)->username)
		bad |= cu.easy_setopt(e, CURLOPT_USERNAME, (r->own ? r->own : o)->username);
	if ((r->own ? r->own : o)->password)
		bad |= cu.easy_setopt(e, CURLOPT_PASSWORD, (r->own ? r->own : o)->password);
	if (o->cacert)
		bad |= cu.easy_setopt(e, CURLOPT_CAINFO, o->cacert);
	return bad ? WM_EINTERNAL : 0;
}

static bool transient(CURLcode code)
{
	switch (code) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static char *seconds(long ms)
{
	char *s = malloc(32);
	if (s) {
		if (ms % 1000 == 0)
			snprintf(s, 32, "%ld s", ms / 1000);
		else
			snprintf(s, 32, "%ld ms", ms);
	}
	return s;
}

static void too_big(struct wm_buf *b, size_t max)
{
	if (max % (1u << 20) == 0)
		wm_buf_printf(b, "the response is larger than the limit of %zu MiB", max >> 20);
	else
		wm_buf_printf(b, "the response is larger than the limit of %zu bytes", max);
}

/*
 * Appends libcurl's own words on the failure, or `none` without any: through
 * wm_text_redact, since they may quote a URL with its password (a proxy's, say).
 */
static void curl_says(struct wm_buf *b, const struct state *st, const char *none)
{
	if (st->errbuf[0])
		wm_text_redact(b, st->errbuf);
	else if (none)
		wm_buf_puts(b, none);
}

/* Why a transfer failed, in words that do not change from run to run. */
static void describe(struct wm_buf *b, CURLcode code, const char *url, const struct state *st,
	const struct wm_net_options *o)
{
	char *t = seconds(o->timeout_ms), *ct = seconds(o->connect_timeout_ms);
	switch (code) {
	case CURLE_OPERATION_TIMEDOUT:
		wm_buf_printf(b, "timed out: the limits are %s to connect and %s in all", ct ? ct : "?", t ? t : "?");
		break;
	case CURLE_FILESIZE_EXCEEDED:
		too_big(b, o->max_bytes);
		break;
	case CURLE_WRITE_ERROR:
		if (st->too_big)
			too_big(b, o->max_bytes);
		else
			wm_buf_puts(b, "out of memory while reading the response");
		break;
	case CURLE_TOO_MANY_REDIRECTS:
		wm_buf_printf(b, "more than %d redirects (a redirect loop?)", MAX_REDIRECTS);
		break;
	case CURLE_PARTIAL_FILE:
		wm_buf_puts(b, "the connection closed before the whole response arrived");
		break;
	case CURLE_COULDNT_CONNECT:
		wm_buf_puts(b, "cannot connect to the server");
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
		wm_buf_puts(b, "cannot resolve the server's host name");
		break;
	case CURLE_COULDNT_RESOLVE_PROXY:
		wm_buf_puts(b, "cannot resolve the proxy's host name");
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
		wm_buf_puts(b, "the server's TLS certificate is not trusted (");
		curl_says(b, st, "verification failed");
		wm_buf_puts(b, "); give the CA that signed it with --cacert FILE or SSL_CERT_FILE");
		break;
	case CURLE_SSL_CACERT_BADFILE:
		wm_buf_puts(b, "cannot use the CA file (");
		curl_says(b, st, "bad file");
		wm_buf_putc(b, ')');
		break;
	case CURLE_UNSUPPORTED_PROTOCOL: {
		/* the URL the refused redirect led to is the transfer's last */
		char *to = NULL;
		cu.easy_getinfo(st->easy, CURLINFO_EFFECTIVE_URL, &to);
		if (strncasecmp(url, "https://", 8) == 0 && to && strncasecmp(to, "http://", 7) == 0) {
			wm_buf_puts(b, "a redirect from https to plain http (");
			wm_text_url(b, to, strlen(to));
			wm_buf_puts(b, "), refused: a request that starts on https stays on https");
		} else {
			wm_buf_puts(b, "a redirect to a URL that is neither http nor https");
		}
		break;
	}
	default:
		wm_buf_printf(b, "%s%s", cu.easy_strerror(code), st->errbuf[0] ? ": " : "");
		curl_says(b, st, NULL);
		break;
	}
	free(t);
	free(ct);
}

/* Decides what comes after a finished transfer: 1 to retry (ready_at set), 0 when the request is done. */
static int finish(struct wm_net_request *r, CURLcode code, const struct wm_net_options *o)
{
	struct state *st = r->priv;
	struct wm_buf msg = WM_BUF_INIT;
	long status = 0;
	curl_off_t after = 0;  /* the last response's Retry-After (seconds or a date) in seconds; 0 when none */
	bool retry_status;
	char *ct = NULL;

	cu.easy_getinfo(st->easy, CURLINFO_RESPONSE_CODE, &status);
	retry_status = code == CURLE_OK && (status == 429 || (status >= 500 && status <= 599));
	if (retry_status && cu.easy_getinfo(st->easy, CURLINFO_RETRY_AFTER, &after) != CURLE_OK)
		after = 0;
	if ((retry_status || transient(code)) && r->attempts <= o->retries) {
		long wait = (long)o->backoff_ms << (r->attempts - 1 < 16 ? r->attempts - 1 : 16);
		if (after > 0)
			wait = after > MAX_WAIT_MS / 1000 ? MAX_WAIT_MS + 1000 : (long)after * 1000;
		if (wait <= MAX_WAIT_MS) {
			st->ready_at = now_ms() + (uint64_t)wait;
			return 1;
		}
	}
	free(r->error);
	free(r->content_type);
	free(r->body);
	r->error = r->content_type = r->body = NULL;
	r->len = 0;
	r->status = code == CURLE_OK ? status : 0;
	if (code != CURLE_OK) {
		describe(&msg, code, r->url, st, o);
	} else if (retry_status) {
		wm_buf_printf(&msg, "HTTP %ld", status);
		if (after > MAX_WAIT_MS / 1000)
			wm_buf_printf(&msg, ": the server asks to wait more than %ld s before a retry", MAX_WAIT_MS / 1000);
	} else {
		if (cu.easy_getinfo(st->easy, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
			r->content_type = strdup(ct);
		r->len = st->body.len;
		r->body = wm_buf_detach(&st->body);
		if (!r->body || (ct && !r->content_type))
			return WM_ENOMEM;
	}
	if (msg.len || msg.oom) {
		if (r->attempts > 1)
			wm_buf_printf(&msg, " (%u attempts)", r->attempts);
		if (!(r->error = wm_buf_detach(&msg)))
			return WM_ENOMEM;
	}
	wm_buf_release(&msg);
	st->done = true;
	return 0;
}

static void release_state(struct wm_net_request *r)
{
	struct state *st = r->priv;
	if (!st)
		return;
	if (st->easy)
		cu.easy_cleanup(st->easy);
	cu.slist_free_all(st->headers);
	wm_buf_release(&st->body);
	free(st);
	r->priv = NULL;
}

void wm_net_request_release(struct wm_net_request *r)
{
	release_state(r);
	free(r->content_type);
	free(r->body);
	free(r->error);
	r->content_type = r->body = r->error = NULL;
}

/* "Accept: `type`", a header line; NULL when out of memory. */
static char *accept_line(const char *type)
{
	char *line = malloc(strlen(type) + 9);
	if (line)
		sprintf(line, "Accept: %s", type);
	return line;
}

/* Each request's state and handle, with its own Accept header, else `accept` (a header line or NULL). */
static int prepare(struct wm_net_request *reqs, size_t n, const char *accept)
{
	for (size_t i = 0; i < n; i++) {
		struct state *st = calloc(1, sizeof(*st));
		reqs[i].priv = st;
		reqs[i].attempts = 0;
		if (!st || !(st->easy = cu.easy_init()))
			return WM_ENOMEM;
		if (reqs[i].own && reqs[i].own->accept) {
			/* this request's own Accept header */
			char *own = accept_line(reqs[i].own->accept);
			if (own) {
				st->headers = cu.slist_append(NULL, own);
				free(own);
			}
			if (!st->headers)
				return WM_ENOMEM;
		} else if (accept && !(st->headers = cu.slist_append(NULL, accept))) {
			return WM_ENOMEM;
		}
	}
	return 0;
}

/* The requests of one wm_net_fetch, and how far they are. */
struct run {
	CURLM *multi;
	struct wm_net_request *reqs;
	struct sink *sinks;
	size_t n, done, active, next;  /* next: where the next look for a request to start begins */
	unsigned jobs;
	const struct wm_net_options *o;
};

/* Starts what may start: requests in order, each once it is ready, while a slot is free. */
static int start_ready(struct run *x)
{
	uint64_t now = now_ms();
	int ret;
	for (size_t k = 0; k < x->n && x->active < x->jobs; k++) {
		size_t i = (x->next + k) % x->n;
		struct state *st = x->reqs[i].priv;
		if (st->done || st->ready_at == UINT64_MAX || st->ready_at > now)
			continue;
		if ((ret = setup(&x->reqs[i], &x->sinks[i], x->o)) < 0)
			return ret;
		st->ready_at = UINT64_MAX;  /* running */
		x->reqs[i].attempts++;
		if (cu.multi_add_handle(x->multi, st->easy) != CURLM_OK)
			return WM_ENOMEM;
		x->active++;
		x->next = i + 1;
	}
	return 0;
}

/* Lets curl work, then finishes the transfers it is done with: a request done, or waiting to retry. */
static int collect(struct run *x)
{
	int running, left, ret;
	CURLMsg *msg;
	if (cu.multi_perform(x->multi, &running) != CURLM_OK)
		return WM_ENOMEM;
	while ((msg = cu.multi_info_read(x->multi, &left)) != NULL) {
		struct wm_net_request *r = NULL;
		if (msg->msg != CURLMSG_DONE)
			continue;
		cu.easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		cu.multi_remove_handle(x->multi, msg->easy_handle);
		x->active--;
		if ((ret = finish(r, msg->data.result, x->o)) < 0)
			return ret;
		if (ret == 0) {
			x->done++;
			if (x->o->progress)
				x->o->progress(x->o->progress_ctx, x->done, x->n);
		}
	}
	return 0;
}

/* Sleeps until a socket is ready, or a waiting request is due and a slot is free for it: a second at most. */
static int wait_next(struct run *x)
{
	int timeout = 1000;
	uint64_t now = now_ms(), wake = UINT64_MAX;
	for (size_t i = 0; x->active < x->jobs && i < x->n; i++) {
		struct state *st = x->reqs[i].priv;
		if (!st->done && st->ready_at != UINT64_MAX && st->ready_at < wake)
			wake = st->ready_at;
	}
	if (wake != UINT64_MAX)
		timeout = wake <= now ? 0 : wake - now < 1000 ? (int)(wake - now) : 1000;
	if (x->active && cu.multi_poll(x->multi, NULL, 0, timeout, NULL) != CURLM_OK)
		return WM_ENOMEM;
	if (!x->active && timeout > 0) {
		struct timespec ts = { timeout / 1000, (long)(timeout % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return 0;
}

int wm_net_fetch(struct wm_net_request *reqs, size_t n, const struct wm_net_options *o)
{
	struct run x = { .reqs = reqs, .n = n, .jobs = o->jobs ? o->jobs : 1, .o = o };
	char *accept = NULL;
	int ret = WM_ENOMEM;

	if (!cu.handle)
		return WM_EINTERNAL;  /* wm_net_init first */
	if (cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return WM_ENOMEM;
	if (!(x.multi = cu.multi_init()) || !(x.sinks = calloc(n + 1, sizeof(*x.sinks))))
		goto out;
	cu.multi_setopt(x.multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)x.jobs);
	if (o->accept && !(accept = accept_line(o->accept)))
		goto out;
	if ((ret = prepare(reqs, n, accept)) < 0)
		goto out;
	while (x.done < n) {
		if ((ret = start_ready(&x)) < 0 || (ret = collect(&x)) < 0)
			goto out;
		if (x.done == n)
			break;
		if ((ret = wait_next(&x)) < 0)
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++) {
		struct state *st = reqs[i].priv;
		if (st && st->easy && x.multi)
			cu.multi_remove_handle(x.multi, st->easy);
		release_state(&reqs[i]);
	}
	if (x.multi)
		cu.multi_cleanup(x.multi);
	free(x.sinks);
	free(accept);
	cu.global_cleanup();
	return ret;
}

int wm_net_cacert_check(const char *cacert, struct wm_error *err)
{
	FILE *f;
	if (!cacert)
		return 0;
	if (!(f = fopen(cacert, "r"))) {
		wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, NULL, "cannot read the CA file '%s': %s", cacert, strerror(errno));
		return WM_EREAD;
	}
	fclose(f);
	return 0;
}
