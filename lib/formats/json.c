/* json.c — the one module that uses Jansson: jobs as compact JSON, re-encoding only the members that changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/text.h"
#include "formats/json.h"
#include "index/plan.h"
#include "index/simple.h"

/*
 * Encoding a million jobs must stay cheap.  Consecutive jobs share their
 * backend and platform, so each member keeps its Jansson value, updated in
 * place, and the text Jansson encoded for it: a member whose value did not
 * change costs a comparison and a memcpy, not a free, a malloc and a dump
 * (which walks every character through a UTF-8 decoder).
 *
 * Strings are set without Jansson's UTF-8 check: everything in a job comes
 * from the catalog or from a matrix file that the loader checked is UTF-8.
 */

#define DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY)

enum job_member {
	J_ID, J_BACKEND, J_PLATFORM, J_PYTHON, J_DISTRIBUTION, J_FEATURES, J_OS, J_ARCH, J_TARGET,
	J_RUNNER, J_CROSS, J_CONTAINER, J_MANYLINUX, J_PLATFORM_TAG, J_PYTHON_TAG, J_ABI_TAG,
	J_INTERPRETER, J_GITLAB_IMAGE, J_GITLAB_TAGS, J_TOOLKITS, J_SMOKE, J_BUILD_JOB, J_COUNT
};

static const char *const job_keys[J_COUNT] = {
	"id", "backend", "platform", "python", "distribution", "features", "os", "arch", "target",
	"runner", "cross", "container", "manylinux", "platform_tag", "python_tag", "abi_tag",
	"interpreter", "gitlab_image", "gitlab_tags", "toolkits", "smoke", "build_job",
};

enum left_member { L_ID, L_BACKEND, L_PLATFORM, L_PYTHON, L_LEFT_OUT, L_REASON, L_RULE, L_COUNT };

static const char *const left_keys[L_COUNT] = {
	"id", "backend", "platform", "python", "left_out", "reason", "rule",
};

/* One member of an object: its value and, unless stale, its text `"key":value`. */
struct member {
	const char *key;
	json_t *value;
	char *text;
	size_t len, cap;
	bool stale;
};

struct wm_json {
	struct member job[J_COUNT], left[L_COUNT];
	char *text;              /* the last object's text */
	size_t len, cap;
	struct wm_buf matrix;    /* the last group matrix's text */
};

static void members_init(struct member *mb, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mb[i].key = keys[i];
		mb[i].value = json_null();
		mb[i].stale = true;
	}
}

static void members_release(struct member *mb, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		json_decref(mb[i].value);
		free(mb[i].text);
	}
}

/* Grows `*p` to at least `need` bytes. */
static int reserve(char **p, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 64;
	char *q;
	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(q = realloc(*p, c)))
		return WM_ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Replaces the member's value by `v`, taking the reference. */
static int replace(struct member *mb, json_t *v)
{
	if (!v)
		return WM_ENOMEM;
	json_decref(mb->value);
	mb->value = v;
	mb->stale = true;
	return 0;
}

/* The member becomes the string `s`, or null when `s` is NULL. */
static int set_string(struct member *mb, const char *s)
{
	json_t *v = mb->value;
	if (!s)
		return json_is_null(v) ? 0 : replace(mb, json_null());
	if (!json_is_string(v))
		return replace(mb, json_stringn_nocheck(s, strlen(s)));
	if (strcmp(json_string_value(v), s) == 0)
		return 0;
	mb->stale = true;
	return json_string_setn_nocheck(v, s, strlen(s)) < 0 ? WM_ENOMEM : 0;
}

static int set_bool(struct member *mb, bool b)
{
	if (json_is_boolean(mb->value) && json_is_true(mb->value) == b)
		return 0;
	return replace(mb, json_boolean(b));
}

/* The member becomes an array of the strings of `l`. */
static int set_strlist(struct member *mb, const struct wm_strlist *l)
{
	json_t *a = mb->value;
	bool same = json_is_array(a) && json_array_size(a) == l->n;
	for (size_t k = 0; same && k < l->n; k++)
		same = strcmp(json_string_value(json_array_get(a, k)), l->items[k]) == 0;
	if (same)
		return 0;
	if (!(a = json_array()))
		return WM_ENOMEM;
	for (size_t k = 0; k < l->n; k++)
		if (json_array_append_new(a, json_stringn_nocheck(l->items[k], strlen(l->items[k]))) < 0) {
			json_decref(a);
			return WM_ENOMEM;
		}
	return replace(mb, a);
}

/* The member becomes the object toolkit id -> version (null for a toolkit without versions). */
static int set_toolkits(struct member *mb, const struct wm_backend *b)
{
	json_t *t = mb->value;
	bool same = json_is_object(t) && json_object_size(t) == b->ntoolkits;
	void *it = same ? json_object_iter(t) : NULL;
	for (size_t k = 0; same && k < b->ntoolkits; k++, it = json_object_iter_next(t, it)) {
		const struct wm_toolkit_use *u = &b->toolkits[k];
		json_t *v = json_object_iter_value(it);
		same = strcmp(json_object_iter_key(it), u->toolkit->id) == 0 &&
			(u->version ? json_is_string(v) && strcmp(json_string_value(v), u->version) == 0
				: json_is_null(v));
	}
	if (same)
		return 0;
	if (!(t = json_object()))
		return WM_ENOMEM;
	for (size_t k = 0; k < b->ntoolkits; k++) {
		const struct wm_toolkit_use *u = &b->toolkits[k];
		json_t *v = u->version ? json_stringn_nocheck(u->version, strlen(u->version)) : json_null();
		if (json_object_set_new(t, u->toolkit->id, v) < 0) {
			json_decref(t);
			return WM_ENOMEM;
		}
	}
	return replace(mb, t);
}

/* Encodes a stale member as `"key":value` (keys are plain identifiers: nothing to escape). */
static int encode_member(struct member *mb)
{
	size_t klen = strlen(mb->key) + 3, n;
	if (reserve(&mb->text, &mb->cap, klen + 64) < 0)
		return WM_ENOMEM;
	while ((n = json_dumpb(mb->value, mb->text + klen, mb->cap - klen, DUMP_FLAGS)) > mb->cap - klen)
		if (reserve(&mb->text, &mb->cap, klen + n) < 0)
			return WM_ENOMEM;
	if (n == 0)
		return WM_ENOMEM;
	mb->text[0] = '"';
	memcpy(mb->text + 1, mb->key, klen - 3);
	memcpy(mb->text + klen - 2, "\":", 2);
	mb->len = klen + n;
	mb->stale = false;
	return 0;
}

/* The object of members `mb` as text, in the reusable buffer. */
static int assemble(struct wm_json *j, struct member *mb, size_t n, const char **text, size_t *len)
{
	size_t total = n + 2;  /* braces, commas and the NUL */
	char *p;
	for (size_t i = 0; i < n; i++) {
		if (mb[i].stale && encode_member(&mb[i]) < 0)
			return WM_ENOMEM;
		total += mb[i].len;
	}
	if (reserve(&j->text, &j->cap, total) < 0)
		return WM_ENOMEM;
	p = j->text;
	*p++ = '{';
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		memcpy(p, mb[i].text, mb[i].len);
		p += mb[i].len;
	}
	*p++ = '}';
	*p = '\0';
	j->len = (size_t)(p - j->text);
	*text = j->text;
	*len = j->len;
	return 0;
}

int wm_json_new(struct wm_json **out)
{
	struct wm_json *j = calloc(1, sizeof(*j));
	*out = NULL;
	if (!j)
		return WM_ENOMEM;
	members_init(j->job, job_keys, J_COUNT);
	members_init(j->left, left_keys, L_COUNT);
	*out = j;
	return 0;
}

void wm_json_free(struct wm_json *j)
{
	if (!j)
		return;
	members_release(j->job, J_COUNT);
	members_release(j->left, L_COUNT);
	free(j->text);
	wm_buf_release(&j->matrix);
	free(j);
}

static int update_job(struct member *mb, const struct wm_job *job)
{
	const struct wm_backend *b = job->backend;
	const struct wm_platform *p = job->platform;
	const struct wm_python *py = job->python;
	int ret = 0;

	/* every setter returns 0 or WM_ENOMEM */
	ret |= set_string(&mb[J_ID], job->id);
	ret |= set_string(&mb[J_BACKEND], b->id);
	ret |= set_string(&mb[J_PLATFORM], p->id);
	ret |= set_string(&mb[J_PYTHON], py->version);
	ret |= set_string(&mb[J_DISTRIBUTION], b->dist);
	ret |= set_strlist(&mb[J_FEATURES], &b->features);
	ret |= set_string(&mb[J_OS], wm_catalog_os_name(p->os));
	ret |= set_string(&mb[J_ARCH], p->arch);
	ret |= set_string(&mb[J_TARGET], p->target);
	ret |= set_string(&mb[J_RUNNER], p->runner);
	ret |= set_bool(&mb[J_CROSS], p->cross);
	ret |= set_string(&mb[J_CONTAINER], p->container);
	ret |= set_string(&mb[J_MANYLINUX], p->manylinux);
	ret |= set_string(&mb[J_PLATFORM_TAG], p->platform_tag);
	ret |= set_string(&mb[J_PYTHON_TAG], py->python_tag);
	ret |= set_string(&mb[J_ABI_TAG], py->abi_tag);
	ret |= set_string(&mb[J_INTERPRETER], py->interpreter);
	ret |= set_string(&mb[J_GITLAB_IMAGE], p->gitlab_image);
	ret |= set_strlist(&mb[J_GITLAB_TAGS], &p->gitlab_tags);
	ret |= set_toolkits(&mb[J_TOOLKITS], b);
	ret |= set_bool(&mb[J_SMOKE], b->smoke);
	ret |= set_string(&mb[J_BUILD_JOB], job->group ? job->group->name : NULL);
	return ret ? WM_ENOMEM : 0;
}

int wm_json_job(struct wm_json *j, const struct wm_job *job, const char **text, size_t *len)
{
	if (update_job(j->job, job) < 0)
		return WM_ENOMEM;
	return assemble(j, j->job, J_COUNT, text, len);
}

int wm_json_left_out(struct wm_json *j, const struct wm_job *job, const char **text, size_t *len)
{
	struct member *mb = j->left;
	char rule[512];
	int ret = 0;

	if (job->why_loc.line)
		snprintf(rule, sizeof(rule), "%s:%u:%u", job->why_loc.file ? job->why_loc.file : "",
			job->why_loc.line, job->why_loc.column);
	ret |= set_string(&mb[L_ID], job->id);
	ret |= set_string(&mb[L_BACKEND], job->backend->id);
	ret |= set_string(&mb[L_PLATFORM], job->platform->id);
	ret |= set_string(&mb[L_PYTHON], job->python->version);
	ret |= set_bool(&mb[L_LEFT_OUT], true);
	ret |= set_string(&mb[L_REASON], job->why);
	ret |= set_string(&mb[L_RULE], job->why_loc.line ? rule : NULL);
	if (ret)
		return WM_ENOMEM;
	return assemble(j, mb, L_COUNT, text, len);
}

int wm_json_group_matrix(struct wm_json *j, const struct wm_matrix *m, const struct wm_group *g,
	const char **text, size_t *len)
{
	struct wm_expand it;
	struct wm_job job;
	const char *s;
	size_t n, count = 0;
	int ret, more;

	if ((ret = wm_expand_init_group(&it, m, g)) < 0)
		return ret;
	wm_buf_clear(&j->matrix);
	wm_buf_puts(&j->matrix, "{\"include\":[");
	while ((more = wm_expand_next(&it, &job)) > 0) {
		if ((ret = wm_json_job(j, &job, &s, &n)) < 0)
			goto out;
		if (count++)
			wm_buf_putc(&j->matrix, ',');
		wm_buf_add(&j->matrix, s, n);
	}
	if (more < 0) {
		ret = more;
		goto out;
	}
	wm_buf_puts(&j->matrix, "]}");
	if (j->matrix.oom) {
		ret = WM_ENOMEM;
		goto out;
	}
	*text = j->matrix.ptr;
	*len = j->matrix.len;
out:
	wm_expand_release(&it);
	return ret;
}

/* ---- check findings ---------------------------------------------------------------- */

static json_t *diag_json(const struct wm_diag *d)
{
	static const char *const severities[] = { "error", "warning", "note" };
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (json_object_set_new(o, "file", d->file ? json_string(d->file) : json_null()) ||
	    json_object_set_new(o, "line", json_integer(d->line)) ||
	    json_object_set_new(o, "column", json_integer(d->column)) ||
	    json_object_set_new(o, "severity", json_string(severities[d->severity])) ||
	    json_object_set_new(o, "message", json_string(d->message))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int wm_json_findings(char **out, const struct wm_error *findings, const char *diff)
{
	json_t *root = json_object(), *list = json_array();
	size_t warnings = 0;
	int ret = WM_ENOMEM;

	*out = NULL;
	if (!root || !list)
		goto out;
	for (size_t i = 0; i < findings->ndiags; i++) {
		json_t *d = diag_json(&findings->diags[i]);
		if (!d || json_array_append_new(list, d))
			goto out;
		warnings += findings->diags[i].severity == WM_SEV_WARNING;
	}
	if (json_object_set_new(root, "ok", json_boolean(findings->nerrors == 0)) ||
	    json_object_set_new(root, "errors", json_integer((json_int_t)findings->nerrors)) ||
	    json_object_set_new(root, "warnings", json_integer((json_int_t)warnings)) ||
	    json_object_set(root, "findings", list) ||
	    (diff && json_object_set_new(root, "diff", json_string(diff))))
		goto out;
	*out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ret = *out ? 0 : WM_ENOMEM;
out:
	json_decref(list);
	json_decref(root);
	return ret;
}

/* ---- simple index pages (PEP 691) ------------------------------------------ */

int wm_json_simple_page(struct wm_index_page *out, struct wm_arena *a, const char *body, size_t len,
	const char **why)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr), *meta, *api, *files;
	int ret = WM_EINVALID;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->api = "json";
	if (!root) {
		*why = wm_arena_printf(a, "malformed JSON at line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
		return *why ? WM_EINVALID : WM_ENOMEM;
	}
	meta = json_object_get(root, "meta");
	api = json_object_get(meta, "api-version");
	files = json_object_get(root, "files");
	if (!json_is_object(root) || !json_is_string(api) || !json_is_array(files)) {
		*why = "the JSON is not a PEP 691 project page: it needs meta.api-version and a files array";
		goto out;
	}
	if (strncmp(json_string_value(api), "1.", 2) != 0) {
		*why = wm_arena_printf(a, "unsupported PEP 691 api-version '%s': this version of wheelmatrix reads 1.x",
			json_string_value(api));
		goto out;
	}
	n = json_array_size(files);
	if (n && !(out->files = wm_arena_array(a, n, sizeof(*out->files)))) {
		ret = WM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *f = json_array_get(files, i), *name = json_object_get(f, "filename"),
			*size = json_object_get(f, "size"), *yanked = json_object_get(f, "yanked");
		struct wm_index_file *o = &out->files[out->n];
		if (!json_is_string(name) || !*json_string_value(name)) {
			*why = wm_arena_printf(a, "files[%zu] of the PEP 691 page has no filename", i);
			goto out;
		}
		if (!(o->filename = wm_arena_strdup(a, json_string_value(name)))) {
			ret = WM_ENOMEM;
			goto out;
		}
		o->size = json_is_integer(size) && json_integer_value(size) >= 0 ? (int64_t)json_integer_value(size) : -1;
		/* `yanked` is false, or true, or the reason as a string */
		o->yanked = json_is_true(yanked) || (json_is_string(yanked));
		out->n++;
	}
	ret = 0;
out:
	if (ret == WM_EINVALID && !*why)
		ret = WM_ENOMEM;
	json_decref(root);
	return ret;
}

/* ---- the plan report ----------------------------------------------------------- */

/* A string, or null for NULL; text from the index is checked as UTF-8 by Jansson. */
static json_t *str_or_null(const char *s)
{
	json_t *v;
	if (!s)
		return json_null();
	/* not UTF-8 (a file name from the index): each bad byte becomes U+FFFD */
	if ((v = json_string(s)) == NULL) {
		struct wm_buf b = WM_BUF_INIT;
		wm_utf8_sanitize(&b, s, strlen(s));
		v = b.oom ? NULL : json_string(b.ptr ? b.ptr : "");
		wm_buf_release(&b);
	}
	return v;
}

/* Sets key to `v` (taking it); a NULL `v` marks the object as incomplete through *bad. */
static void put(json_t *o, const char *key, json_t *v, bool *bad)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		*bad = true;
}

static json_t *plan_artifact(const struct wm_artifact *a, bool *bad)
{
	json_t *o = json_object();
	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "file", str_or_null(a->filename), bad);
	put(o, "kind", json_string(a->sdist ? "sdist" : "wheel"), bad);
	put(o, "job", str_or_null(a->job), bad);
	put(o, "platform", str_or_null(a->platform ? a->platform->id : NULL), bad);
	put(o, "python", str_or_null(a->python ? a->python->version : NULL), bad);
	put(o, "state", json_string(wm_plan_artifact_state_name(a->state)), bad);
	put(o, "found", str_or_null(a->found), bad);
	return o;
}

static json_t *plan_dist(const struct wm_plan *p, const struct wm_plan_dist *d, bool *bad)
{
	json_t *o = json_object(), *arts = json_array(), *unexpected = json_array(), *large = json_array();
	if (!o || !arts || !unexpected || !large) {
		json_decref(o);
		json_decref(arts);
		json_decref(unexpected);
		json_decref(large);
		*bad = true;
		return NULL;
	}
	put(o, "name", str_or_null(d->name), bad);
	put(o, "normalized", str_or_null(d->normalized), bad);
	put(o, "backend", str_or_null(d->backend ? d->backend->id : NULL), bad);
	put(o, "url", str_or_null(d->url), bad);
	put(o, "state", json_string(wm_plan_dist_state_name(d->state)), bad);
	put(o, "summary", str_or_null(wm_plan_dist_summary(p, d)), bad);
	put(o, "error", str_or_null(d->error), bad);
	put(o, "api", str_or_null(d->api), bad);
	put(o, "attempts", json_integer(d->attempts), bad);
	put(o, "files_on_index", json_integer((json_int_t)d->nfiles), bad);
	for (size_t k = 0; k < d->nartifacts; k++)
		if (json_array_append_new(arts, plan_artifact(&d->artifacts[k], bad)) < 0)
			*bad = true;
	for (size_t k = 0; k < d->nunexpected; k++)
		if (json_array_append_new(unexpected, str_or_null(d->unexpected[k])) < 0)
			*bad = true;
	for (size_t k = 0; k < d->nlarge; k++) {
		json_t *f = json_object();
		if (f) {
			put(f, "file", str_or_null(d->large[k].filename), bad);
			put(f, "size", json_integer((json_int_t)d->large[k].size), bad);
		}
		if (json_array_append_new(large, f) < 0)
			*bad = true;
	}
	put(o, "artifacts", arts, bad);
	put(o, "unexpected", unexpected, bad);
	put(o, "near_limit", large, bad);
	return o;
}

int wm_json_plan(struct wm_buf *out, const struct wm_plan *p)
{
	static const char *const verdicts[] = { [WM_PLAN_OK] = "ok", [WM_PLAN_FAIL] = "fail",
		[WM_PLAN_INCOMPLETE] = "incomplete", [WM_PLAN_PARTIAL] = "partial", [WM_PLAN_NOT_FOUND] = "not-found" };
	static const enum wm_artifact_state states[] = { WM_ART_PRESENT, WM_ART_MISSING, WM_ART_UNKNOWN,
		WM_ART_UNCHECKED };
	json_t *root = json_object(), *dists = json_array(), *count = json_object();
	bool bad = !root || !dists || !count;
	char *text;

	if (bad) {
		json_decref(root);
		json_decref(dists);
		json_decref(count);
		return WM_ENOMEM;
	}
	put(root, "version", str_or_null(p->version), &bad);
	put(root, "index", str_or_null(p->index), &bad);
	put(root, "offline", json_boolean(p->offline), &bad);
	put(root, "verdict", json_string(p->offline ? "unchecked" : verdicts[wm_plan_verdict(p)]), &bad);
	for (size_t i = 0; i < WM_ARRAY_SIZE(states); i++)
		put(count, wm_plan_artifact_state_name(states[i]), json_integer((json_int_t)wm_plan_count(p, states[i])), &bad);
	put(root, "counts", count, &bad);
	for (size_t i = 0; i < p->ndists; i++)
		if (json_array_append_new(dists, plan_dist(p, &p->dists[i], &bad)) < 0)
			bad = true;
	put(root, "distributions", dists, &bad);
	/* every character outside ASCII as a \u escape: the names from the index stay exact, and none of
	   their C1 or bidi controls reaches a terminal that shows the JSON */
	text = bad ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(root);
	if (!text)
		return WM_ENOMEM;
	wm_buf_puts(out, text);
	wm_buf_putc(out, '\n');
	free(text);
	return 0;
}
