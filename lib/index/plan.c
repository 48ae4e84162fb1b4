/* plan.c — release planning: the artifacts a version produces, checked against a simple index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/text.h"
#include "util/utf8.h"
#include "formats/pep440.h"
#include "formats/toml.h"
#include "model/project.h"
#include "index/filename.h"
#include "index/net.h"
#include "index/plan.h"
#include "index/simple.h"

#define ACCEPT "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"

void wm_plan_options_init(struct wm_plan_options *o)
{
	memset(o, 0, sizeof(*o));
	WM_NET_DEFAULTS(o);
}

void wm_plan_free(struct wm_plan *p)
{
	if (!p)
		return;
	wm_arena_release(p->arena);
	free(p->arena);
	free(p);
}

/* The URL as reports and messages show it (wm_text_url): no user name or password, no query. */
static char *shown_url(struct wm_arena *a, const char *url)
{
	struct wm_buf b = WM_BUF_INIT;
	char *s;

	wm_text_url(&b, url, strlen(url));
	s = b.oom ? NULL : wm_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	return s;
}

/*
 * True when the http(s) URL `url` has an '@' that does not end its user name
 * and password: a second one, or one in its path, query or fragment (also
 * after a '/', '?' or '#' written as it is in a password).  curl would take
 * part of the password for the host, or send it in the path.
 */
static bool stray_at(const char *url)
{
	const char *auth = strstr(url, "://") + 3, *end = auth + strcspn(auth, "/?#"), *at = memchr(auth, '@',
		(size_t)(end - auth));
	return strchr(end, '@') || (at && memchr(at + 1, '@', (size_t)(end - at - 1)));
}

/* Where the project's version is written, for a positioned error. */
static const struct wm_toml_doc *version_doc(const struct wm_project *p, const struct wm_toml_value **v)
{
	static const struct { size_t doc; const char *path; } where[] = {
		{ offsetof(struct wm_project, py), "project.version" },
		{ offsetof(struct wm_project, cargo), "package.version" },
		{ offsetof(struct wm_project, workspace), "workspace.package.version" },
	};
	for (size_t i = 0; i < WM_ARRAY_SIZE(where); i++) {
		const struct wm_toml_doc *d = (const struct wm_toml_doc *)((const char *)p + where[i].doc);
		if (d->file && p->version_file && strcmp(d->file, p->version_file) == 0 &&
		    wm_toml_is_string(*v = wm_toml_get_path(d->root, where[i].path)))
			return d;
	}
	*v = NULL;
	return NULL;
}

static int plan_version(struct wm_plan *plan, const struct wm_matrix *m, const char *given, struct wm_error *err)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *why = NULL, *v = given ? given : m->version;
	int ret;

	if (!v) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"no version to plan: %s; give it: wheelmatrix plan VERSION",
			m->project ? "the project's pyproject.toml and Cargo.toml have none"
				: "the matrix has no pyproject.toml beside it to take the version from");
		return WM_EINVALID;
	}
	if ((ret = wm_pep440(&b, v, &why)) == 0) {
		plan->version = wm_arena_strdup(plan->arena, b.ptr);
		wm_buf_release(&b);
		if (!plan->version)
			return wm_error_oom(err);
		return 0;
	}
	wm_buf_release(&b);
	if (ret != WM_EINVALID) {
		wm_error_code(err, ret);
		return ret;
	}
	if (!given && m->project) {
		const struct wm_toml_value *val;
		const struct wm_toml_doc *d = version_doc(m->project, &val);
		if (d) {
			wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, d->file, d->text, d->len, val->span.line,
				val->span.column, (unsigned)wm_utf8_len(d->text + val->span.start, val->span.end - val->span.start),
				"version '%s' has no PEP 440 form: %s; give the version to plan: wheelmatrix plan VERSION",
				v, why);
			return WM_EINVALID;
		}
	}
	wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL, "invalid version '%s': %s", v, why);
	return WM_EINVALID;
}

/*
 * The index: *query_base is the URL as given up to its query, which a
 * project's path goes after, and plan->query the query ("?..." or "");
 * *shown_base is what reports show of *query_base.
 */
static int plan_index(struct wm_plan *plan, const char *index, char **query_base, char **shown_base,
	struct wm_error *err)
{
	const char *url = index ? index : WM_PLAN_INDEX;
	size_t len = strcspn(url, "?#"), qlen = url[len] == '?' ? strcspn(url + len, "#") : 0;
	const char *sep = len && url[len - 1] == '/' ? "" : "/";
	char *shown = shown_url(plan->arena, url), *before = wm_arena_strndup(plan->arena, url, len);
	if (!shown || !before)
		return wm_error_oom(err);
	if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"invalid index URL '%s': a simple index is an http:// or https:// URL", shown);
		return WM_EINVALID;
	}
	if (strcspn(url, " \t\r\n\"<>") != strlen(url)) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"invalid index URL '%s': spaces, quotes and angle brackets must be percent-encoded", shown);
		return WM_EINVALID;
	}
	if (stray_at(url)) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"invalid index URL '%s': write '@', '/', '?' and '#' in a user name or password as %%40, %%2F, "
			"%%3F and %%23, and an '@' in the path or query as %%40", shown);
		return WM_EINVALID;
	}
	*query_base = wm_arena_printf(plan->arena, "%s%s", before, sep);
	plan->query = wm_arena_strndup(plan->arena, url + len, qlen);
	*shown_base = (before = shown_url(plan->arena, before)) ? wm_arena_printf(plan->arena, "%s%s", before, sep) : NULL;
	plan->index = *shown_base ? wm_arena_printf(plan->arena, "%s%s", *shown_base, qlen ? "?<redacted>" : "") : NULL;
	if (!*query_base || !plan->query || !plan->index)
		return wm_error_oom(err);
	return 0;
}

int wm_plan_url(struct wm_arena *a, const char *index, const char *name, char **url, char **shown, struct wm_error *err)
{
	struct wm_plan p = { .arena = a };
	char *base = NULL, *shown_base = NULL, *norm = wm_arena_alloc(a, strlen(name) + 1);
	int ret;
	if (!norm)
		return wm_error_oom(err);
	if ((ret = plan_index(&p, index, &base, &shown_base, err)) < 0)
		return ret;
	wm_name_normalize(norm, name);
	*url = wm_arena_printf(a, "%s%s/%s", base, norm, p.query);
	*shown = wm_arena_printf(a, "%s%s/%s", shown_base, norm, *p.query ? "?<redacted>" : "");
	if (!*url || !*shown)
		return wm_error_oom(err);
	return 0;
}

static int init_dist(struct wm_plan *plan, struct wm_plan_dist *d, const char *name, const struct wm_backend *b,
	size_t nartifacts, bool variant)
{
	char *norm = wm_arena_alloc(plan->arena, strlen(name) + 1);
	d->name = name;
	d->backend = b;
	d->version = plan->version;
	d->state = WM_DIST_UNCHECKED;
	if (!norm || !(d->artifacts = wm_arena_array(plan->arena, nartifacts, sizeof(*d->artifacts))))
		return WM_ENOMEM;
	wm_name_normalize(norm, name);
	d->normalized = norm;
	if (b && b->local && !(d->version = wm_arena_printf(plan->arena, "%s+%s", plan->version, b->local)))
		return WM_ENOMEM;
	/* strategy index: every backend but the default is on <url>/<backend>/ */
	if (b && plan->matrix->strategy == WM_STRATEGY_INDEX && !b->is_default &&
			!(d->own_index = wm_arena_printf(plan->arena, "%s/%s/%s/", plan->matrix->index_url, b->id, norm)))
		return WM_ENOMEM;
	/* strategy variants: every backend's variant wheels on <url>/<project>/ */
	if (variant && (!(d->own_index = wm_arena_printf(plan->arena, "%s/%s/", plan->matrix->index_url, norm)) ||
			!(d->variant = b->variant_label)))
		return WM_ENOMEM;
	return 0;
}

static struct wm_artifact *add_artifact(struct wm_plan_dist *d)
{
	struct wm_artifact *a = &d->artifacts[d->nartifacts++];
	a->state = WM_ART_UNCHECKED;
	return a;
}

/* Job `job`'s wheel as an artifact of d: a variant wheel with d's label on the variant index. */
static int add_wheel(struct wm_arena *a, struct wm_plan_dist *d, const struct wm_job *job)
{
	struct wm_artifact *w = add_artifact(d);
	const struct wm_python *py = job->python;
	w->platform = job->platform;
	w->python = py;
	w->job = wm_arena_strdup(a, job->id);
	w->filename = d->variant ?
		wm_filename_variant_wheel(a, job->backend->dist, d->version, wm_python_tag(py, job->platform), wm_python_abi_tag(py, job->platform),
			job->platform->platform_tag, d->variant) :
		wm_filename_wheel(a, job->backend->dist, d->version, wm_python_tag(py, job->platform), wm_python_abi_tag(py, job->platform),
			job->platform->platform_tag);
	return w->job && w->filename ? 0 : WM_ENOMEM;
}

/* Every job's wheel, grouped by distribution in the order of the backends, and one sdist each. */
static int plan_artifacts(struct wm_plan *plan, const struct wm_matrix *m)
{
	struct wm_arena *a = plan->arena;
	struct wm_plan_dist **of = NULL, **vof = NULL;
	size_t *count = NULL;
	struct wm_expand *it = NULL;
	struct wm_job job;
	bool meta = m->strategy == WM_STRATEGY_META, variants = m->strategy == WM_STRATEGY_VARIANTS;
	int ret = WM_ENOMEM, more;

	if (!(count = calloc(m->nbackends + 1, sizeof(*count))) || !(of = calloc(m->nbackends + 1, sizeof(*of))) ||
			!(vof = calloc(m->nbackends + 1, sizeof(*vof))))
		goto out;
	if ((ret = wm_expand_new(&it, m, WM_EXPAND_JOBS)) < 0)
		goto out;
	while ((more = wm_expand_next(it, &job)) > 0)
		count[job.backend->index]++;
	wm_expand_free(it);
	if ((ret = more) < 0)
		goto out;
	ret = WM_ENOMEM;
	if (!(plan->dists = wm_arena_array(a, 2 * m->nbackends + 1, sizeof(*plan->dists))))
		goto out;
	if (meta) {
		struct wm_plan_dist *d = &plan->dists[plan->ndists++];
		struct wm_artifact *w;
		if (init_dist(plan, d, m->name, NULL, 2, false) < 0)
			goto out;
		w = add_artifact(d);
		w->pure = true;
		if (!(w->filename = wm_filename_wheel(a, m->name, plan->version, "py3", "none", "any")))
			goto out;
	}
	/* under strategy variants, PyPI gets the default backend's wheels; the variant index every backend's */
	for (size_t i = 0; i < m->nbackends; i++) {
		if (!count[i] || (variants && !m->backends[i]->is_default))
			continue;
		of[i] = &plan->dists[plan->ndists++];
		if (init_dist(plan, of[i], m->backends[i]->dist, m->backends[i], count[i] + 1, false) < 0)
			goto out;
	}
	for (size_t i = 0; variants && i < m->nbackends; i++) {
		if (!count[i])
			continue;
		vof[i] = &plan->dists[plan->ndists++];
		if (init_dist(plan, vof[i], m->backends[i]->dist, m->backends[i], count[i] + 1, true) < 0)
			goto out;
	}
	if ((ret = wm_expand_new(&it, m, WM_EXPAND_JOBS)) < 0)
		goto out;
	while ((more = wm_expand_next(it, &job)) > 0) {
		struct wm_plan_dist *d = of[job.backend->index], *vd = vof[job.backend->index];
		if ((d && (more = add_wheel(a, d, &job)) < 0) || (vd && (more = add_wheel(a, vd, &job)) < 0))
			break;
	}
	wm_expand_free(it);
	if ((ret = more) < 0)
		goto out;
	for (size_t i = 0; i < plan->ndists; i++) {
		struct wm_artifact *s = add_artifact(&plan->dists[i]);
		/* the null variant's row has the release's variants.json; the variant index has no sdist */
		if (plan->dists[i].variant) {
			if (strcmp(plan->dists[i].variant, "null") != 0) {
				plan->dists[i].nartifacts--;
				continue;
			}
			s->variants_json = true;
			s->filename = wm_filename_variants_json(a, plan->dists[i].name, plan->dists[i].version);
		} else {
			s->sdist = true;
			s->filename = wm_filename_sdist(a, plan->dists[i].name, plan->dists[i].version);
		}
		if (!s->filename) {
			ret = WM_ENOMEM;
			goto out;
		}
	}
	ret = 0;
out:
	free(count);
	free(of);
	free(vof);
	return ret;
}

int wm_plan_new(struct wm_plan **out, const struct wm_matrix *m, const struct wm_plan_options *o,
	struct wm_error *err)
{
	struct wm_plan *p = calloc(1, sizeof(*p));
	char *base = NULL, *shown = NULL;
	int ret = WM_ENOMEM;

	*out = NULL;
	if (!p || !(p->arena = malloc(sizeof(*p->arena)))) {
		free(p);
		return wm_error_oom(err);
	}
	wm_arena_init(p->arena);
	p->matrix = m;
	p->offline = o->offline;
	p->first_release = o->first_release;
	if ((ret = plan_version(p, m, o->version, err)) < 0)
		goto fail;
	if (!o->offline && (ret = plan_index(p, o->index, &base, &shown, err)) < 0)
		goto fail;
	if ((ret = plan_artifacts(p, m)) < 0) {
		wm_error_code(err, ret);
		goto fail;
	}
	for (size_t i = 0; base && i < p->ndists; i++) {
		struct wm_plan_dist *d = &p->dists[i];
		/* the matrix's index URL holds no user, query or fragment: shown as every URL is all the same */
		if (d->own_index ? !(d->url = shown_url(p->arena, d->own_index)) :
				!(d->url = wm_arena_printf(p->arena, "%s%s/%s", shown, d->normalized, *p->query ? "?<redacted>" : ""))) {
			ret = WM_ENOMEM;
			wm_error_code(err, ret);
			goto fail;
		}
	}
	p->query_base = base;
	*out = p;
	return 0;
fail:
	wm_plan_free(p);
	return ret;
}

/* ---- the answers ----------------------------------------------------------- */

static void set_all(struct wm_plan_dist *d, enum wm_artifact_state s)
{
	for (size_t i = 0; i < d->nartifacts; i++)
		d->artifacts[i].state = s;
}

static bool artifact_matches(const struct wm_plan *plan, const struct wm_plan_dist *d, const struct wm_artifact *a,
	const struct wm_filename *f)
{
	if (a->sdist)
		return f->kind == WM_FILE_SDIST;
	if (a->variants_json)
		return f->kind == WM_FILE_VARIANTS_JSON;
	if (f->kind != WM_FILE_WHEEL || (d->variant ? !f->variant || strcmp(f->variant, d->variant) != 0 : f->variant != NULL))
		return false;
	if (a->pure)
		return wm_filename_matches_wheel(f, "py3", "none", "any");
	if (plan->strict)
		return wm_filename_matches_wheel_strict(f, wm_python_tag(a->python, a->platform), wm_python_abi_tag(a->python, a->platform),
			a->platform->platform_tag);
	return wm_filename_matches_wheel(f, wm_python_tag(a->python, a->platform), wm_python_abi_tag(a->python, a->platform),
		a->platform->platform_tag);
}

static size_t count_in(const struct wm_plan_dist *d, enum wm_artifact_state state);

/*
 * A file of the variant index page that variant row d answers for: its label's wheels, and for the
 * null row the release's variants.json and the wheels of labels no backend has.  The plain wheels and sdist that the index may also serve
 * (for installers without variant support) are PyPI's row's business.
 */
static bool variant_file_of(const struct wm_plan *plan, const struct wm_plan_dist *d, const struct wm_filename *f)
{
	bool null = strcmp(d->variant, "null") == 0;
	if (f->kind == WM_FILE_WHEEL && f->variant) {
		const struct wm_matrix *m = plan->matrix;
		if (strcmp(f->variant, d->variant) == 0)
			return true;
		/* a label no backend has: the null row reports it */
		for (size_t i = 0; null && i < m->nbackends; i++)
			if (m->backends[i]->variant_label && strcmp(m->backends[i]->variant_label, f->variant) == 0)
				return false;
		return null;
	}
	return f->kind == WM_FILE_VARIANTS_JSON && null;
}

/*
 * Wheel f is one of row d's: without a variant label on a plain row; on a variant row, of its
 * label, and for the null row also of a label no backend of the matrix has (a backend dropped).
 */
static bool row_variant(const struct wm_plan *plan, const struct wm_plan_dist *d, const struct wm_filename *f)
{
	return d->variant ? f->variant && variant_file_of(plan, d, f) : !f->variant;
}

/* ---- the last release: the wheels it had that this one does not build ------------------ */

/* Whether fn holds for one of the '.'-separated tags of the tag set `set` (each shorter than 64 bytes). */
static bool any_tag(const char *set, bool (*fn)(const char *tag, const void *ctx), const void *ctx)
{
	char tag[64];
	for (const char *p = set;;) {
		size_t n = strcspn(p, ".");
		if (n < sizeof(tag)) {
			memcpy(tag, p, n);
			tag[n] = '\0';
			if (fn(tag, ctx))
				return true;
		}
		if (!p[n])
			return false;
		p += n + 1;
	}
}

static bool is_tag(const char *tag, const void *want)
{
	return strcmp(tag, want) == 0;
}

/* A CPython ABI that is not free-threaded: cp312, cp37m, abi3. */
static bool gil_abi(const char *tag, const void *ctx)
{
	(void)ctx;
	return strcmp(tag, "abi3") == 0 || (strncmp(tag, "cp", 2) == 0 && tag[2] && tag[strlen(tag) - 1] != 't');
}

/* cp3N with N at least *minimum. */
static bool cpython_from(const char *tag, const void *minimum)
{
	return strncmp(tag, "cp3", 3) == 0 && tag[3] && strspn(tag + 3, "0123456789") == strlen(tag + 3) &&
		strtoul(tag + 3, NULL, 10) >= *(const unsigned *)minimum;
}

/*
 * Whether planned artifact `a` of row d takes the place of wheel f of an earlier release: a wheel
 * of the same slot (artifact_matches: the Python and ABI tags, the platform as leniently as for
 * the release's own files, the variant label), or an abi3 wheel that installs wherever f did: on
 * its platform, for CPython of f's version with the GIL, when that is the abi3 minimum or later.
 */
static bool takes_place_of(const struct wm_plan *plan, const struct wm_plan_dist *d, const struct wm_artifact *a,
	const struct wm_filename *f)
{
	if (artifact_matches(plan, d, a, f))
		return true;
	if (a->sdist || a->variants_json || a->pure || !a->python->abi3 || f->kind != WM_FILE_WHEEL ||
			!row_variant(plan, d, f))
		return false;
	return wm_filename_platform_matches(f, a->platform->platform_tag) && any_tag(f->abi, gil_abi, NULL) &&
		any_tag(f->python, cpython_from, &a->python->minor);
}

/* The Python entry, as the matrix writes it, of one Python tag of wheel f: 3.12, 3.13t, pp3.11, abi3, py3. */
static void python_entry(char *out, size_t size, const char *tag, const struct wm_filename *f)
{
	const char *digits = tag + 2;
	if (any_tag(f->abi, is_tag, "abi3"))
		snprintf(out, size, "abi3");
	else if (strncmp(tag, "py", 2) == 0 && tag[2] == '3')
		snprintf(out, size, "py3");
	else if ((strncmp(tag, "cp", 2) == 0 || strncmp(tag, "pp", 2) == 0) && strlen(digits) >= 2 &&
			strspn(digits, "0123456789") == strlen(digits)) {
		char ft[80];
		snprintf(ft, sizeof(ft), "%st", tag);
		snprintf(out, size, "%s%c.%s%s", tag[0] == 'p' ? "pp" : "", digits[0], digits + 1,
			tag[0] == 'c' && any_tag(f->abi, is_tag, ft) ? "t" : "");
	} else {
		snprintf(out, size, "%s", tag);
	}
}

struct drop_match {
	const struct wm_drop *rule;
	const struct wm_filename *f;
};

static bool python_matches(const char *tag, const void *ctx)
{
	const struct drop_match *dm = ctx;
	char entry[80];
	python_entry(entry, sizeof(entry), tag, dm->f);
	return wm_text_glob_match(dm->rule->python, entry);
}

static bool platform_matches(const char *tag, const void *ctx)
{
	return wm_text_glob_match(((const struct drop_match *)ctx)->rule->platform, tag);
}

/* The first rule of the matrix's `dropped` that matches wheel f of row d, or NULL. */
static const struct wm_drop *planned_drop(const struct wm_plan *plan, const struct wm_plan_dist *d,
	const struct wm_filename *f)
{
	const struct wm_matrix *m = plan->matrix;
	for (size_t i = 0; i < m->ndrops; i++) {
		const struct wm_drop *r = &m->drops[i];
		struct drop_match dm = { r, f };
		bool platform = !r->platform;
		if (r->backend && (!d->backend || !wm_text_glob_match(r->backend, d->backend->id)))
			continue;
		if (r->python && !any_tag(f->python, python_matches, &dm))
			continue;
		for (size_t k = 0; !platform && k < r->platform_tags.n; k++)
			platform = wm_filename_platform_matches(f, r->platform_tags.items[k]);
		if (!platform && !r->platform_tags.n)
			platform = any_tag(f->platform, platform_matches, &dm);
		if (platform)
			return r;
	}
	return NULL;
}

/* A version with a pre-release or development part (normalised: only those hold a, b, c, d, e or v). */
static bool prerelease(const char *v)
{
	struct wm_buf b = WM_BUF_INIT;
	bool pre = wm_pep440(&b, v, NULL) == 0 && b.ptr && strcspn(b.ptr, "+") > strcspn(b.ptr, "abcdev");
	wm_buf_release(&b);
	return pre;
}

/* The local label of version v as PEP 440 normalises it ("" for none): earlier releases of a row have its own. */
static bool same_local(const char *a, const char *b)
{
	struct wm_buf x = WM_BUF_INIT, y = WM_BUF_INIT;
	bool same = wm_pep440(&x, a, NULL) == 0 && wm_pep440(&y, b, NULL) == 0 && x.ptr && y.ptr &&
		strcmp(x.ptr + strcspn(x.ptr, "+"), y.ptr + strcspn(y.ptr, "+")) == 0;
	wm_buf_release(&x);
	wm_buf_release(&y);
	return same;
}

/*
 * Row d's last release on the page: the newest version before the planned one with a file of
 * the row that is not yanked (its wheels, with its variant label on the variant index, or its
 * sdist), of the row's local label; a final release when there is one, else the newest pre-
 * or development release.  Then its wheels that no planned artifact takes the place of.
 */
static int find_dropped(struct wm_plan *plan, struct wm_plan_dist *d, const struct wm_index_page *page,
	const struct wm_filename *names)
{
	const char *best = NULL, *best_pre = NULL;
	size_t n = 0;
	for (size_t i = 0; i < page->n; i++) {
		const struct wm_filename *f = &names[i];
		const char **slot;
		bool ok;
		if (page->files[i].yanked || (f->kind == WM_FILE_WHEEL ? !row_variant(plan, d, f) :
				f->kind != WM_FILE_SDIST || d->variant) ||
				wm_pep440_compare(f->version, d->version, &ok) >= 0 || !ok || !same_local(f->version, d->version))
			continue;
		slot = prerelease(f->version) ? &best_pre : &best;
		if (!*slot || (wm_pep440_compare(f->version, *slot, &ok) > 0 && ok))
			*slot = f->version;
	}
	if (!best)
		best = best_pre;
	if (!best)
		return 0;
	if (!(d->previous = wm_arena_strdup(plan->arena, best)))
		return WM_ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < page->n; i++) {
			const struct wm_filename *f = &names[i];
			bool taken = false;
			if (page->files[i].yanked || f->kind != WM_FILE_WHEEL || !row_variant(plan, d, f) ||
					!wm_pep440_equal(f->version, best))
				continue;
			for (size_t k = 0; !taken && k < d->nartifacts; k++)
				taken = takes_place_of(plan, d, &d->artifacts[k], f);
			if (taken)
				continue;
			if (pass == 0) {
				n++;
				continue;
			}
			d->dropped[d->ndropped].filename = page->files[i].filename;
			d->dropped[d->ndropped++].planned = planned_drop(plan, d, f);
		}
		if (pass == 0 && n && !(d->dropped = wm_arena_array(plan->arena, n, sizeof(*d->dropped))))
			return WM_ENOMEM;
	}
	return 0;
}

int wm_plan_compare(struct wm_plan *plan, struct wm_plan_dist *d, const struct wm_index_page *page)
{
	struct wm_filename *names = NULL;
	bool *used = NULL;
	size_t nversion = 0, nlarge = 0;
	int ret = WM_ENOMEM;

	d->nfiles = page->n;
	if (page->n && (!(names = calloc(page->n, sizeof(*names))) || !(used = calloc(page->n, sizeof(*used)))))
		goto out;
	for (size_t i = 0; i < page->n; i++) {
		if ((ret = wm_filename_parse(&names[i], plan->arena, page->files[i].filename)) < 0)
			goto out;
		/* the variant index's page: each row of the release looks at its own label's files */
		if (d->variant && !variant_file_of(plan, d, &names[i])) {
			used[i] = true;
			continue;
		}
		if (names[i].kind != WM_FILE_OTHER && wm_pep440_equal(names[i].version, d->version))
			nversion++;
		else if (page->files[i].size >= (int64_t)(WM_PLAN_FILE_LIMIT / 10 * 9))
			nlarge++;
		else
			used[i] = true;  /* neither this version nor large: nothing to say about it */
	}
	set_all(d, WM_ART_MISSING);
	for (int lenient = 0; lenient < 2; lenient++)
		for (size_t k = 0; k < d->nartifacts; k++) {
			struct wm_artifact *a = &d->artifacts[k];
			for (size_t i = 0; a->state != WM_ART_PRESENT && i < page->n; i++) {
				if (used[i] || names[i].kind == WM_FILE_OTHER || !wm_pep440_equal(names[i].version, d->version))
					continue;
				if (lenient ? !artifact_matches(plan, d, a, &names[i]) : strcmp(a->filename, page->files[i].filename) != 0)
					continue;
				a->state = WM_ART_PRESENT;
				a->found = lenient ? page->files[i].filename : NULL;
				used[i] = true;
			}
		}
	ret = WM_ENOMEM;
	if ((nversion && !(d->unexpected = wm_arena_array(plan->arena, nversion, sizeof(*d->unexpected)))) ||
	    (nlarge && !(d->large = wm_arena_array(plan->arena, nlarge, sizeof(*d->large)))))
		goto out;
	for (size_t i = 0; i < page->n; i++) {
		if (used[i])
			continue;
		if (names[i].kind != WM_FILE_OTHER && wm_pep440_equal(names[i].version, d->version))
			d->unexpected[d->nunexpected++] = page->files[i].filename;
		else
			d->large[d->nlarge++] = page->files[i];
	}
	if ((ret = find_dropped(plan, d, page, names)) < 0)
		goto out;
	/* the index takes new files for an existing version, never a file it has */
	if (!nversion)
		d->state = WM_DIST_READY;
	else
		d->state = count_in(d, WM_ART_PRESENT) == d->nartifacts ? WM_DIST_PUBLISHED : WM_DIST_PARTIAL;
	ret = 0;
out:
	free(names);
	free(used);
	return ret;
}

static int answer(struct wm_plan *plan, struct wm_plan_dist *d, const struct wm_net_request *r)
{
	struct wm_index_page page;
	const char *why = NULL;
	int ret;

	d->attempts = r->attempts;
	if (r->error) {
		d->error = wm_arena_strdup(plan->arena, r->error);
		goto failed;
	}
	if (r->status == 404 || r->status == 410) {
		d->state = WM_DIST_NEW;
		set_all(d, WM_ART_MISSING);
		return 0;
	}
	if (r->status == 401 || r->status == 403) {
		d->error = wm_arena_printf(plan->arena, "HTTP %ld: the index wants credentials (netrc, or "
			"WHEELMATRIX_INDEX_USERNAME and WHEELMATRIX_INDEX_PASSWORD)", r->status);
		goto failed;
	}
	if (r->status < 200 || r->status > 299) {
		d->error = wm_arena_printf(plan->arena, "unexpected HTTP status %ld", r->status);
		goto failed;
	}
	ret = wm_simple_parse(&page, plan->arena, r->content_type, r->body, r->len, &why);
	if (ret == WM_ENOMEM)
		return ret;
	d->api = page.api;
	if (ret < 0) {
		d->error = why;
		goto failed;
	}
	return wm_plan_compare(plan, d, &page);
failed:
	if (!d->error)
		return WM_ENOMEM;
	d->state = WM_DIST_FAILED;
	set_all(d, WM_ART_UNKNOWN);
	return 0;
}

/* Fetches the requests of the dists on the backends' own indexes (`own`) or on the index, in place. */
static int fetch_batch(struct wm_plan *plan, struct wm_net_request *reqs, bool own, struct wm_net_options *no,
	const struct wm_plan_options *o)
{
	struct wm_net_request *batch;
	size_t n = 0;
	int ret;

	for (size_t i = 0; i < plan->ndists; i++)
		n += (plan->dists[i].own_index != NULL) == own;
	if (n == 0)
		return 0;
	if (!(batch = calloc(n, sizeof(*batch))))
		return WM_ENOMEM;
	n = 0;
	for (size_t i = 0; i < plan->ndists; i++)
		if ((plan->dists[i].own_index != NULL) == own)
			batch[n++] = reqs[i];
	no->username = own ? NULL : o->username;
	no->password = own ? NULL : o->password;
	ret = wm_net_fetch(batch, n, no);
	n = 0;
	for (size_t i = 0; i < plan->ndists; i++)
		if ((plan->dists[i].own_index != NULL) == own)
			reqs[i] = batch[n++];
	free(batch);
	return ret;
}

int wm_plan_query(struct wm_plan *plan, const struct wm_plan_options *o, struct wm_error *err)
{
	struct wm_net_request *reqs = NULL;
	struct wm_net_options no;
	int ret;

	if (plan->offline || plan->ndists == 0)
		return 0;
	if ((ret = wm_net_cacert_check(o->cacert, err)) < 0 || (ret = wm_net_init(err)) < 0)
		return ret;
	if (!(reqs = calloc(plan->ndists, sizeof(*reqs))))
		return wm_error_oom(err);
	for (size_t i = 0; i < plan->ndists; i++) {
		const struct wm_plan_dist *d = &plan->dists[i];
		reqs[i].url = d->own_index ? d->own_index :
			wm_arena_printf(plan->arena, "%s%s/%s", plan->query_base, d->normalized, plan->query);
		if (!reqs[i].url) {
			free(reqs);
			return wm_error_oom(err);
		}
	}
	memset(&no, 0, sizeof(no));
	no.accept = ACCEPT;
	no.jobs = o->jobs;
	no.retries = o->retries;
	no.timeout_ms = o->timeout_ms;
	no.connect_timeout_ms = o->connect_timeout_ms;
	no.backoff_ms = o->backoff_ms;
	no.max_bytes = o->max_bytes;
	no.cacert = o->cacert;
	no.netrc = o->netrc;
	no.progress = o->progress;
	no.progress_ctx = o->progress_ctx;
	/*
	 * The index's user and password go to the index alone: the backends' own indexes
	 * (strategy index, hosts of their own) are asked in a second batch without them.
	 */
	ret = fetch_batch(plan, reqs, false, &no, o);
	if (ret == 0)
		ret = fetch_batch(plan, reqs, true, &no, o);
	for (size_t i = 0; ret == 0 && i < plan->ndists; i++)
		ret = answer(plan, &plan->dists[i], &reqs[i]);
	for (size_t i = 0; i < plan->ndists; i++)
		wm_net_request_release(&reqs[i]);
	free(reqs);
	if (ret < 0)
		wm_error_code(err, ret);
	return ret;
}

enum wm_plan_verdict wm_plan_verdict(const struct wm_plan *p)
{
	enum wm_plan_verdict v = WM_PLAN_OK;
	size_t new = 0;
	for (size_t i = 0; i < p->ndists; i++) {
		if (p->dists[i].state == WM_DIST_FAILED)
			return WM_PLAN_INCOMPLETE;
		new += p->dists[i].state == WM_DIST_NEW;
		if (p->dists[i].state == WM_DIST_PUBLISHED)
			v = WM_PLAN_FAIL;
		else if (p->dists[i].state == WM_DIST_PARTIAL && v == WM_PLAN_OK)
			v = WM_PLAN_PARTIAL;
	}
	/* an index where none of the projects exists: most likely not the index's simple URL */
	if (!p->offline && p->ndists && new == p->ndists && !p->first_release)
		return WM_PLAN_NOT_FOUND;
	if (v == WM_PLAN_OK && wm_plan_count_dropped(p, false) > wm_plan_count_dropped(p, true))
		return WM_PLAN_DROPPED;
	return v;
}

size_t wm_plan_count_unexpected(const struct wm_plan *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->ndists; i++)
		n += p->dists[i].nunexpected;
	return n;
}

size_t wm_plan_count_dropped(const struct wm_plan *p, bool planned)
{
	size_t n = 0;
	for (size_t i = 0; i < p->ndists; i++)
		for (size_t k = 0; k < p->dists[i].ndropped; k++)
			n += !planned || p->dists[i].dropped[k].planned;
	return n;
}

size_t wm_plan_count(const struct wm_plan *p, enum wm_artifact_state state)
{
	size_t n = 0;
	for (size_t i = 0; i < p->ndists; i++)
		for (size_t k = 0; k < p->dists[i].nartifacts; k++)
			n += p->dists[i].artifacts[k].state == state;
	return n;
}

static size_t count_in(const struct wm_plan_dist *d, enum wm_artifact_state state)
{
	size_t n = 0;
	for (size_t k = 0; k < d->nartifacts; k++)
		n += d->artifacts[k].state == state;
	return n;
}

/* The state's sentence; wm_plan_dist_summary adds what was dropped. */
static const char *state_summary(const struct wm_plan *p, const struct wm_plan_dist *d)
{
	size_t n = d->nartifacts;
	const char *files = n == 1 ? "file" : "files";
	switch (d->state) {
	case WM_DIST_UNCHECKED:
		return wm_arena_printf(p->arena, "%zu %s to build (not checked against an index)", n, files);
	case WM_DIST_FAILED:
		return wm_arena_printf(p->arena, "query failed: %s", d->error);
	case WM_DIST_NEW:
		return wm_arena_printf(p->arena, "new project: %zu %s to upload; the first upload needs a pending "
			"trusted publisher on the index", n, files);
	case WM_DIST_READY:
		return wm_arena_printf(p->arena, "%zu %s to upload", n, files);
	case WM_DIST_PUBLISHED:
		/* "all present" only when the index has nothing else of the version */
		if (d->nunexpected)
			return wm_arena_printf(p->arena, "version %s already published: its %zu planned %s present, and "
				"%zu %s of that version this release does not produce: nothing to upload", d->version, n, files,
				d->nunexpected, d->nunexpected == 1 ? "file" : "files");
		return wm_arena_printf(p->arena, "version %s already published (all %zu %s present): nothing to "
			"upload", d->version, n, files);
	case WM_DIST_PARTIAL: {
		size_t missing = count_in(d, WM_ART_MISSING);
		return wm_arena_printf(p->arena, "version %s partly published (%zu of %zu %s present): %zu %s still to "
			"upload, and only %s: the index refuses a file it has", d->version, count_in(d, WM_ART_PRESENT), n,
			files, missing, missing == 1 ? "file" : "files", missing == 1 ? "that one" : "those");
	}
	}
	return "";
}

const char *wm_plan_dist_summary(const struct wm_plan *p, const struct wm_plan_dist *d)
{
	const char *s = state_summary(p, d);
	size_t planned = 0;
	if (!s || !d->ndropped)
		return s;
	for (size_t k = 0; k < d->ndropped; k++)
		planned += d->dropped[k].planned != NULL;
	if (planned == d->ndropped)
		return wm_arena_printf(p->arena, "%s; %zu %s of %s dropped, as planned", s, d->ndropped,
			d->ndropped == 1 ? "wheel" : "wheels", d->previous);
	if (planned)
		return wm_arena_printf(p->arena, "%s; %zu wheels of %s dropped, %zu of them planned", s, d->ndropped,
			d->previous, planned);
	return wm_arena_printf(p->arena, "%s; %zu %s of %s dropped", s, d->ndropped, d->ndropped == 1 ? "wheel" :
		"wheels", d->previous);
}

const char *wm_plan_artifact_state_name(enum wm_artifact_state s)
{
	static const char *const names[] = {
		[WM_ART_UNCHECKED] = "unchecked", [WM_ART_UNKNOWN] = "unknown",
		[WM_ART_MISSING] = "missing", [WM_ART_PRESENT] = "present",
	};
	return (size_t)s < WM_ARRAY_SIZE(names) ? names[s] : "?";
}

const char *wm_plan_dist_state_name(enum wm_dist_state s)
{
	static const char *const names[] = {
		[WM_DIST_UNCHECKED] = "unchecked", [WM_DIST_FAILED] = "failed", [WM_DIST_NEW] = "new",
		[WM_DIST_READY] = "ready", [WM_DIST_PUBLISHED] = "published", [WM_DIST_PARTIAL] = "partial",
	};
	return (size_t)s < WM_ARRAY_SIZE(names) ? names[s] : "?";
}
