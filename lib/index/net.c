/* net.c — the one module that uses libcurl: a batch of GETs through the multi interface, bounded and retried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <curl/curl.h>
#include "util/buf.h"
#include "index/net.h"

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
	int bad = 0;

	curl_easy_reset(e);
	wm_buf_clear(&st->body);
	st->too_big = false;
	st->errbuf[0] = '\0';
	sink->req = r;
	sink->st = st;
	sink->max = o->max_bytes;
	bad |= curl_easy_setopt(e, CURLOPT_URL, r->url);
	bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)r);
	bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, st->errbuf);
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	bad |= curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	bad |= curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	bad |= curl_easy_setopt(e, CURLOPT_MAXREDIRS, (long)MAX_REDIRECTS);
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	bad |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	bad |= curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
	bad |= curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	bad |= curl_easy_setopt(e, CURLOPT_USERAGENT, "wheelmatrix/" WM_VERSION);
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, st->headers);
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body_capped);
	bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, (void *)sink);
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	bad |= curl_easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	if (o->netrc)
		bad |= curl_easy_setopt(e, CURLOPT_NETRC_FILE, o->netrc);
	if (o->username)
		bad |= curl_easy_setopt(e, CURLOPT_USERNAME, o->username);
	if (o->password)
		bad |= curl_easy_setopt(e, CURLOPT_PASSWORD, o->password);
	if (o->cacert)
		bad |= curl_easy_setopt(e, CURLOPT_CAINFO, o->cacert);
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

/* Why a transfer failed, in words that do not change from run to run. */
static void describe(struct wm_buf *b, CURLcode code, const struct state *st, const struct wm_net_options *o)
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
		wm_buf_printf(b, "the server's TLS certificate is not trusted (%s); give the CA that signed it "
			"with --cacert FILE or SSL_CERT_FILE", st->errbuf[0] ? st->errbuf : "verification failed");
		break;
	case CURLE_SSL_CACERT_BADFILE:
		wm_buf_printf(b, "cannot use the CA file (%s)", st->errbuf[0] ? st->errbuf : "bad file");
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
		wm_buf_puts(b, "a redirect to a URL that is neither http nor https");
		break;
	default:
		wm_buf_printf(b, "%s%s%s", curl_easy_strerror(code), st->errbuf[0] ? ": " : "", st->errbuf);
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

	curl_easy_getinfo(st->easy, CURLINFO_RESPONSE_CODE, &status);
	retry_status = code == CURLE_OK && (status == 429 || (status >= 500 && status <= 599));
	if (retry_status && curl_easy_getinfo(st->easy, CURLINFO_RETRY_AFTER, &after) != CURLE_OK)
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
		describe(&msg, code, st, o);
	} else if (retry_status) {
		wm_buf_printf(&msg, "HTTP %ld", status);
		if (after > MAX_WAIT_MS / 1000)
			wm_buf_printf(&msg, ": the server asks to wait more than %ld s before a retry", MAX_WAIT_MS / 1000);
	} else {
		if (curl_easy_getinfo(st->easy, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
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
		curl_easy_cleanup(st->easy);
	curl_slist_free_all(st->headers);
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

int wm_net_fetch(struct wm_net_request *reqs, size_t n, const struct wm_net_options *o)
{
	CURLM *multi = NULL;
	struct sink *sinks = NULL;
	char *accept = NULL;
	size_t done = 0, active = 0, next = 0;
	int ret = WM_ENOMEM;
	unsigned jobs = o->jobs ? o->jobs : 1;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return WM_ENOMEM;
	if (!(multi = curl_multi_init()) || !(sinks = calloc(n + 1, sizeof(*sinks))))
		goto out;
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)jobs);
	if (o->accept && !(accept = malloc(strlen(o->accept) + 9)))
		goto out;
	if (accept)
		sprintf(accept, "Accept: %s", o->accept);
	for (size_t i = 0; i < n; i++) {
		struct state *st = calloc(1, sizeof(*st));
		reqs[i].priv = st;
		reqs[i].attempts = 0;
		if (!st || !(st->easy = curl_easy_init()))
			goto out;
		if (accept && !(st->headers = curl_slist_append(NULL, accept)))
			goto out;
	}
	while (done < n) {
		uint64_t now = now_ms(), wake = UINT64_MAX;
		int running, left, timeout;
		CURLMsg *msg;

		/* start what may start: requests in order, each once it is ready */
		for (size_t k = 0; k < n && active < jobs; k++) {
			size_t i = (next + k) % n;
			struct state *st = reqs[i].priv;
			if (st->done || st->ready_at == UINT64_MAX)
				continue;
			if (st->ready_at > now) {
				if (st->ready_at < wake)
					wake = st->ready_at;
				continue;
			}
			if ((ret = setup(&reqs[i], &sinks[i], o)) < 0)
				goto out;
			st->ready_at = UINT64_MAX;  /* running */
			reqs[i].attempts++;
			if (curl_multi_add_handle(multi, st->easy) != CURLM_OK) {
				ret = WM_ENOMEM;
				goto out;
			}
			active++;
			next = i + 1;
		}
		if (curl_multi_perform(multi, &running) != CURLM_OK) {
			ret = WM_ENOMEM;
			goto out;
		}
		while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
			struct wm_net_request *r = NULL;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
			curl_multi_remove_handle(multi, msg->easy_handle);
			active--;
			if ((ret = finish(r, msg->data.result, o)) < 0)
				goto out;
			if (ret == 0) {
				done++;
				if (o->progress)
					o->progress(o->progress_ctx, done, n);
			}
		}
		if (done == n)
			break;
		/* sleep until a socket is ready, or a waiting request is due and a slot is free for it */
		timeout = 1000;
		now = now_ms();
		wake = UINT64_MAX;
		for (size_t i = 0; active < jobs && i < n; i++) {
			struct state *st = reqs[i].priv;
			if (!st->done && st->ready_at != UINT64_MAX && st->ready_at < wake)
				wake = st->ready_at;
		}
		if (wake != UINT64_MAX)
			timeout = wake <= now ? 0 : wake - now < 1000 ? (int)(wake - now) : 1000;
		if (active && curl_multi_poll(multi, NULL, 0, timeout, NULL) != CURLM_OK) {
			ret = WM_ENOMEM;
			goto out;
		}
		if (!active && timeout > 0) {
			struct timespec ts = { timeout / 1000, (long)(timeout % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i < n; i++) {
		struct state *st = reqs[i].priv;
		if (st && st->easy && multi)
			curl_multi_remove_handle(multi, st->easy);
		release_state(&reqs[i]);
	}
	if (multi)
		curl_multi_cleanup(multi);
	free(sinks);
	free(accept);
	curl_global_cleanup();
	return ret;
}
