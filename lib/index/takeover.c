/*
 * takeover.c — init judged against the index: the project's newest release, each of its wheels
 * matched with the matrix init writes, and the summary.
 *
 * The release is the truth: init asks the index (PyPI unless --index names another, PEP 691 JSON
 * with PEP 503 HTML as the fallback, through net.c and simple.c with plan's limits, proxies and
 * credentials) for the project's page, takes its newest release (the newest final one; a
 * pre-release only when there is none), and hands its wheels to the matrix writer
 * (init/matrix.c), which builds what they are.  The matrix written is then loaded as any
 * matrix is, its files planned (plan.c, strictly: the same tags, manylinux levels and macOS
 * deployment targets) and matched with the release's: a published wheel is reproduced when the
 * matrix makes a file of its tags and no build of it uses a setting the matrix cannot carry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/json.h"
#include "formats/pep440.h"
#include "model/project.h"
#include "init/init.h"
#include "init/ci.h"
#include "init/matrix.h"
#include "index/filename.h"
#include "index/net.h"
#include "index/plan.h"
#include "index/simple.h"
#include "index/takeover.h"

#define ACCEPT "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"

void wm_takeover_options_init(struct wm_takeover_options *o)
{
	memset(o, 0, sizeof(*o));
	WM_NET_DEFAULTS(o);
}

/* The newest release of a page's files: the newest final version with a file not yanked, else the newest at all. */
static const char *newest(struct wm_arena *a, const struct wm_index_page *page, const struct wm_filename *names)
{
	const char *best = NULL;
	bool best_final = false;
	for (size_t i = 0; i < page->n; i++) {
		bool ok, final;
		if (names[i].kind != WM_FILE_WHEEL && names[i].kind != WM_FILE_SDIST)
			continue;
		if (page->files[i].yanked)
			continue;
		final = !wm_pep440_prerelease(names[i].version);
		if (!best || (final && !best_final) || (final == best_final && wm_pep440_compare(names[i].version, best, &ok) > 0 &&
				ok)) {
			best = names[i].version;
			best_final = final;
		}
	}
	return best ? wm_arena_strdup(a, best) : NULL;
}

/* The wheels of `version` on the page, not yanked, for the matrix writer. */
static int release_wheels(struct wm_init *in, const struct wm_index_page *page, const struct wm_filename *names,
	const char *version)
{
	struct wm_published *w = wm_arena_array(&in->arena, page->n ? page->n : 1, sizeof(*w));
	size_t n = 0;
	if (!w)
		return WM_ENOMEM;
	for (size_t i = 0; i < page->n; i++) {
		if (names[i].kind != WM_FILE_WHEEL || page->files[i].yanked || !wm_pep440_equal(names[i].version, version))
			continue;
		w[n].filename = page->files[i].filename;
		w[n].python = names[i].python;
		w[n].abi = names[i].abi;
		w[n++].platform = names[i].platform;
	}
	if (!(in->verdicts = wm_arena_array(&in->arena, n ? n : 1, sizeof(*in->verdicts))))
		return WM_ENOMEM;
	wm_init_set_release(in, w, n, version);
	return 0;
}

static int fetch_failed(struct wm_error *err, const char *shown, const char *why)
{
	wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, NULL,
		"cannot read the project's page on the index (%s): %s; init judges the matrix against the newest release "
		"(give --offline to write it without)", shown, why);
	return WM_EIO;
}

/* The page's answer: the release read, the project absent, or a failure said. */
static int answer(struct wm_init *in, const struct wm_net_request *req, const char *shown, struct wm_error *err)
{
	struct wm_index_page page;
	struct wm_filename *names = NULL;
	const char *why = NULL, *version;
	int ret;

	if (req->error)
		return fetch_failed(err, shown, req->error);
	if (req->status == 404 || req->status == 410) {
		in->absent = true;
		return 0;
	}
	if (req->status == 401 || req->status == 403)
		return fetch_failed(err, shown, "the index wants credentials (netrc, or WHEELMATRIX_INDEX_USERNAME and "
			"WHEELMATRIX_INDEX_PASSWORD)");
	if (req->status < 200 || req->status > 299)
		return fetch_failed(err, shown, wm_arena_printf(&in->arena, "HTTP status %ld", req->status));
	if ((ret = wm_simple_parse(&page, &in->arena, req->content_type, req->body, req->len, &why)) < 0)
		return ret == WM_ENOMEM ? ret : fetch_failed(err, shown, why ? why : "not a project page");
	if (page.n && !(names = wm_arena_array(&in->arena, page.n, sizeof(*names))))
		return WM_ENOMEM;
	for (size_t i = 0; i < page.n; i++)
		if ((ret = wm_filename_parse(&names[i], &in->arena, page.files[i].filename)) < 0)
			return ret;
	if (!(version = newest(&in->arena, &page, names))) {
		in->absent = true;
		return 0;
	}
	return release_wheels(in, &page, names, version);
}

int wm_takeover_fetch(struct wm_init *in, const struct wm_takeover_options *o, struct wm_error *err)
{
	struct wm_net_request req;
	struct wm_net_options no;
	char *url = NULL, *shown = NULL;
	int ret;

	in->offline = o->offline;
	if (o->offline)
		return 0;
	if ((ret = wm_plan_url(&in->arena, o->index, in->project->name, &url, &shown, err)) < 0)
		return ret;
	in->index = shown;
	if (o->cacert) {
		FILE *f = fopen(o->cacert, "r");
		if (!f) {
			wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, NULL, "cannot read the CA file '%s'", o->cacert);
			return WM_EREAD;
		}
		fclose(f);
	}
	if ((ret = wm_net_init(err)) < 0)
		return ret;
	memset(&req, 0, sizeof(req));
	memset(&no, 0, sizeof(no));
	req.url = url;
	no.accept = ACCEPT;
	no.jobs = 1;
	no.retries = o->retries;
	no.timeout_ms = o->timeout_ms;
	no.connect_timeout_ms = o->connect_timeout_ms;
	no.backoff_ms = o->backoff_ms;
	no.max_bytes = o->max_bytes;
	no.cacert = o->cacert;
	no.netrc = o->netrc;
	no.username = o->username;
	no.password = o->password;
	if ((ret = wm_net_fetch(&req, 1, &no)) == 0)
		ret = answer(in, &req, shown, err);
	wm_net_request_release(&req);
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	return ret;
}

/* The distribution of the matrix the release is the project's: its default backend's. */
static struct wm_plan_dist *own_dist(struct wm_plan *plan, const char *name)
{
	char want[256], have[256];
	if (strlen(name) >= sizeof(want))
		return NULL;
	wm_name_normalize(want, name);
	for (size_t i = 0; i < plan->ndists; i++) {
		if (strlen(plan->dists[i].name) >= sizeof(have))
			continue;
		wm_name_normalize(have, plan->dists[i].name);
		if (!strcmp(have, want) && !plan->dists[i].variant)
			return &plan->dists[i];
	}
	return NULL;
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Each published wheel's verdict: a file of the matrix with its tags (plan.c, strictly), and no setting lost. */
static void verdicts(struct wm_init *in, const struct wm_plan_dist *d)
{
	in->reproduced = 0;
	for (size_t i = 0; i < in->npublished; i++) {
		struct wm_published *w = &in->published[i];
		struct wm_init_verdict *v = &in->verdicts[i];
		bool made = !d || !listed(d->unexpected, d->nunexpected, w->filename);
		v->why = wm_init_matrix_why(&in->takeover, w, &v->workflow);
		v->reproduced = made && d && !v->why;
		for (size_t k = 0; v->reproduced && k < d->nartifacts && !v->job; k++) {
			const struct wm_artifact *a = &d->artifacts[k];
			if (a->state == WM_ART_PRESENT && a->job && !strcmp(a->found ? a->found : a->filename, w->filename))
				v->job = wm_arena_strdup(&in->arena, a->job);  /* the plan and matrix go at the end */
		}
		if (!made && !v->why)
			v->why = !d ? "the matrix builds no wheel of the project's own distribution" :
				"the matrix does not build a wheel of its tags";
		in->reproduced += v->reproduced;
	}
}

int wm_takeover_judge(struct wm_init *in, struct wm_error *err)
{
	struct wm_plan_options po;
	struct wm_plan *plan = NULL;
	struct wm_matrix *m = NULL;
	struct wm_error load;
	struct wm_index_page page;
	int ret;

	if ((ret = wm_init_render_body(in, err)) < 0)
		return ret;
	/* the matrix init writes always loads: `list` shows its jobs straight away */
	wm_error_init(&load);
	if ((ret = wm_matrix_load_project(&m, in->cat, "wheelmatrix.yaml", in->body, in->body_len, &in->reader, &load)) < 0) {
		for (size_t i = 0; i < load.ndiags; i++)
			wm_error_add(err, WM_OK, WM_SEV_NOTE, load.diags[i].file, NULL, 0, load.diags[i].line, load.diags[i].column,
				0, "%s", load.diags[i].message);
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, NULL,
			"the matrix init made does not load (the notes say why): nothing is written");
		wm_error_release(&load);
		return ret == WM_ENOMEM ? ret : WM_EINTERNAL;
	}
	wm_error_release(&load);
	if (!in->version || in->offline) {
		wm_matrix_free(m);
		return 0;
	}
	wm_plan_options_init(&po);
	po.version = in->version;
	po.offline = true;
	if ((ret = wm_plan_new(&plan, m, &po, err)) < 0)
		goto out;
	plan->strict = true;
	/* the release's files: its wheels, as the index lists them */
	memset(&page, 0, sizeof(page));
	if (in->npublished && !(page.files = wm_arena_array(&in->arena, in->npublished, sizeof(*page.files)))) {
		ret = WM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < in->npublished; i++)
		page.files[page.n++] = (struct wm_index_file){ in->published[i].filename, -1, false };
	{
		struct wm_plan_dist *d = own_dist(plan, in->project->name);
		if (d && (ret = wm_plan_compare(plan, d, &page)) < 0)
			goto out;
		verdicts(in, d);
	}
	in->judged = true;
	ret = 0;
out:
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	wm_plan_free(plan);
	wm_matrix_free(m);
	return ret;
}

/* ---- the summary ------------------------------------------------------------------------- */

static int report_json(struct wm_buf *out, const struct wm_init *in)
{
	struct wm_json *root = wm_json_object(), *list = wm_json_array(), *flows = wm_json_array();
	int ret = WM_ENOMEM;
	if (!root || !list || !flows)
		goto out;
	wm_json_set(root, "index", in->index ? wm_json_string(in->index) : wm_json_null());
	wm_json_set(root, "project", wm_json_string(in->project->name));
	wm_json_set(root, "version", in->version ? wm_json_string(in->version) : wm_json_null());
	wm_json_set(root, "offline", wm_json_bool(in->offline));
	wm_json_set(root, "published", wm_json_int((int64_t)in->npublished));
	wm_json_set(root, "reproduced", wm_json_int((int64_t)in->reproduced));
	wm_json_set(root, "not_reproduced", wm_json_int((int64_t)(in->npublished - in->reproduced)));
	for (size_t i = 0; in->judged && i < in->npublished; i++) {
		const struct wm_init_verdict *v = &in->verdicts[i];
		struct wm_json *w = wm_json_object();
		if (!w || wm_json_push(list, w) < 0)
			goto out;
		wm_json_set(w, "file", wm_json_string(in->published[i].filename));
		wm_json_set(w, "reproduced", wm_json_bool(v->reproduced));
		wm_json_set(w, "why", v->why && !v->reproduced ? wm_json_string(v->why) : wm_json_null());
		wm_json_set(w, "workflow", v->workflow ? wm_json_string(v->workflow) : wm_json_null());
		wm_json_set(w, "job", v->job ? wm_json_string(v->job) : wm_json_null());
	}
	for (size_t i = 0; i < in->ci->nbuilt; i++) {
		struct wm_json *w = wm_json_object();
		if (!w || wm_json_push(flows, w) < 0)
			goto out;
		wm_json_set(w, "path", wm_json_string(in->ci->built[i].path));
		wm_json_set(w, "replaced", wm_json_bool(wm_init_replaced(in, in->ci->built[i].path)));
	}
	wm_json_set(root, "wheels", list);
	wm_json_set(root, "workflows", flows);
	list = flows = NULL;
	ret = wm_json_append(out, root, WM_JSON_INDENT);
	wm_buf_putc(out, '\n');
out:
	wm_json_free(list);
	wm_json_free(flows);
	wm_json_free(root);
	return ret;
}

static void report_text(struct wm_buf *out, const struct wm_init *in)
{
	size_t lost = in->npublished - in->reproduced;
	if (in->offline) {
		wm_buf_puts(out, "not judged against a package index (--offline)\n");
		return;
	}
	if (in->absent || !in->version) {
		wm_buf_printf(out, "%s has no release on %s: nothing to compare\n", in->project->name, in->index);
		return;
	}
	wm_buf_printf(out, "%zu wheel%s published in %s, %zu reproduced, %zu not%s\n", in->npublished,
		in->npublished == 1 ? "" : "s", in->version, in->reproduced, lost, lost ? ":" : "");
	for (size_t i = 0; i < in->npublished; i++) {
		const struct wm_init_verdict *v = &in->verdicts[i];
		if (v->reproduced)
			continue;
		wm_buf_printf(out, "  %s — %s", in->published[i].filename, v->why ? v->why : "not built");
		if (v->workflow)
			wm_buf_printf(out, " (%s)", v->workflow);
		wm_buf_putc(out, '\n');
	}
}

int wm_takeover_report(char **out, size_t *len, const struct wm_init *in, bool json)
{
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;
	*out = NULL;
	*len = 0;
	if (json)
		ret = report_json(&b, in);
	else
		report_text(&b, in);
	if (ret < 0 || b.oom) {
		wm_buf_release(&b);
		return WM_ENOMEM;
	}
	*len = b.len;
	*out = wm_buf_detach(&b);
	return *out ? 0 : WM_ENOMEM;
}
