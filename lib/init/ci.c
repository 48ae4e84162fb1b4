/*
 * ci.c — the repository's CI as evidence: the distributions it publishes, the workflows that
 * build wheels in a release, and the ones that publish them, which check reads too.
 *
 * The workflows are read as GitHub runs them (workflow/read.c, workflow/builds.c); the names of
 * the distributions a file builds are read in its text (`llm-rs-cuda` in a PYPROJECT_NAME a
 * script writes into pyproject.toml), as are those of the scripts of scripts/, build_scripts/
 * and ci/, which no workflow reader reads.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "util/utf8.h"
#include "model/catalog.h"
#include "model/expand.h"
#include "model/project.h"
#include "emit/file.h"
#include "init/init.h"
#include "init/ci.h"

#define MAX_SCANNED 256 /* files read for evidence */
#define MAX_SCAN_FILE (1u << 20)   /* bytes of one (a workflow the reader parses is no larger) */
#define MAX_SCAN_TEXT (4u << 20)   /* bytes of them all */

/* Cargo features that name a GPU backend (init.c has the platforms of each). */
static const char *const gpu_features[] = { "cuda", "cublas", "cudnn", "metal", "mps", "rocm", "hipblas", "clblast",
	"opencl", "vulkan" };

static bool gpu_feature(const char *name)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(gpu_features); i++)
		if (!strcmp(gpu_features[i], name))
			return true;
	return false;
}

static bool is_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || is_sep(c);
}

/* The length of `name` at s, compared as PEP 503 names (case aside, a run of -_. is one separator), or 0. */
static size_t match_name(const char *s, const char *end, const char *name)
{
	const char *p = s, *q = name;
	while (*q) {
		if (p == end)
			return 0;
		if (is_sep(*q)) {
			if (!is_sep(*p))
				return 0;
			while (is_sep(*q))
				q++;
			while (p < end && is_sep(*p))
				p++;
		} else if (tolower((unsigned char)*p++) != tolower((unsigned char)*q++)) {
			return 0;
		}
	}
	return (size_t)(p - s);
}

static bool cargo_feature(const struct wm_project *p, const char *s, size_t n)
{
	for (size_t i = 0; p && i < p->nfeatures; i++)
		if (strlen(p->features[i]) == n && strncmp(p->features[i], s, n) == 0)
			return true;
	return false;
}

/*
 * A suffix that names a build of the project: a Cargo feature, a GPU feature of the table, or
 * one of the usual GPU names. Other suffixes (`llm-rs-python`, the repository; `-docs`) are no backend.
 */
static bool backend_suffix(const struct wm_project *p, const char *s)
{
	static const char *const more[] = { "gpu", "hip", "sycl", "xpu" };
	if (!wm_name_backend_id(s) || strcmp(s, "cpu") == 0)
		return false;
	if (gpu_feature(s) || cargo_feature(p, s, strlen(s)))
		return true;
	for (size_t i = 0; i < WM_ARRAY_SIZE(more); i++)
		if (strcmp(s, more[i]) == 0)
			return true;
	return false;
}

/*
 * The Cargo features a file builds with: each `--features A,B` (or `=`, quoted, space-separated
 * in quotes), only the project's own features kept (not `pyo3/extension-module`).
 */
static size_t scan_features(const char **out, size_t max, struct wm_arena *a, const struct wm_project *p,
	const char *text, size_t len)
{
	static const char flag[] = "--features";
	const char *end = text + len;
	size_t n = 0;
	for (const char *s = text; s + sizeof(flag) - 1 <= end && n < max; s++) {
		const char *t;
		char quote = 0;
		if (strncmp(s, flag, sizeof(flag) - 1) != 0)
			continue;
		t = s + sizeof(flag) - 1;
		if (t < end && *t == '=')
			t++;
		else
			while (t < end && (*t == ' ' || *t == '\t'))
				t++;
		if (t < end && (*t == '"' || *t == '\''))
			quote = *t++;
		while (t < end && *t != '\n' && *t != quote && n < max && (quote || (*t != ' ' && *t != '\t'))) {
			const char *w = t;
			bool seen = false;
			while (t < end && (isalnum((unsigned char)*t) || (*t && strchr("_-/:", *t))))
				t++;
			for (size_t i = 0; i < n; i++)
				seen |= strlen(out[i]) == (size_t)(t - w) && strncmp(out[i], w, (size_t)(t - w)) == 0;
			if (t > w && !seen && cargo_feature(p, w, (size_t)(t - w)))
				out[n++] = wm_arena_strndup(a, w, (size_t)(t - w));
			if (t < end && (*t == ',' || (quote && *t == ' ')))
				t++;
			else if (t == w)
				break;
		}
		s = t - 1;
	}
	return n;
}

/*
 * Whether a name ends at u: `llm-rs-cuda`, `llm-rs-cuda.`, `llm_rs_cuda-0.2.15-...whl`, but not
 * `llm-rs-cuda_12` or `llm-rs-cuda-dev`, whose name goes on.
 */
static bool name_ends(const char *u, const char *end)
{
	if (u == end || !is_name_char(*u))
		return true;
	return *u != '_' && (u + 1 == end || !isalpha((unsigned char)u[1]));
}

/* A distribution `<name>-<suffix>` a text names, whose suffix (lower case) is a backend's. */
struct named {
	const char *suffix;
	const char *dist;         /* as the text spells it */
};

/* Each distribution `<name>-<suffix>` the text names whose suffix is a backend, once each, at most `max`. */
static size_t find_names(struct named *out, size_t max, struct wm_arena *a, const struct wm_project *p,
	const char *name, const char *text, size_t len)
{
	const char *end = text + len;
	size_t found = 0;

	for (const char *s = text; s < end && found < max; s++) {
		const char *t, *u;
		char *suffix;
		bool seen = false;
		size_t n;
		if ((s > text && is_name_char(s[-1])) || !(n = match_name(s, end, name)))
			continue;
		t = s + n;
		if (t == end || !is_sep(*t))
			continue;
		for (u = ++t; u < end && isalnum((unsigned char)*u); u++)
			;
		if (u == t || !name_ends(u, end))
			continue;
		if (!(suffix = wm_arena_strndup(a, t, (size_t)(u - t))))
			break;
		for (char *c = suffix; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (!backend_suffix(p, suffix))
			continue;
		for (size_t i = 0; i < found; i++)
			seen |= strcmp(out[i].suffix, suffix) == 0;
		if (!seen)
			out[found++] = (struct named){ suffix, wm_arena_strndup(a, s, (size_t)(u - s)) };
	}
	return found;
}

/* Each distribution `<name>-<suffix>` the text names whose suffix is a backend, into ci->backends. */
static void scan_distributions(struct wm_init_ci *ci, struct wm_arena *a, const struct wm_project *p,
	const char *file, const char *text, size_t len, unsigned oses)
{
	const char *features[16];
	size_t nfeatures = scan_features(features, WM_ARRAY_SIZE(features), a, p, text, len);
	size_t first = ci->nbackends;
	struct named names[WM_INIT_MAX_FOUND];
	size_t nnames = find_names(names, WM_ARRAY_SIZE(names), a, p, p->name, text, len);

	for (size_t k = 0; k < nnames && ci->nbackends < WM_INIT_MAX_FOUND; k++) {
		bool seen = false;
		for (size_t i = 0; i < ci->nbackends; i++)
			seen |= strcmp(ci->backends[i].id, names[k].suffix) == 0;
		if (!seen)
			ci->backends[ci->nbackends++] = (struct wm_init_backend){ names[k].suffix, names[k].dist, file, NULL, 0, 0 };
	}
	/*
	 * The file's features belong to its distribution when it names one (a workflow per backend, as
	 * llm-rs has); with several, only a suffix that is itself a feature says which one it builds.
	 */
	for (size_t i = first; i < ci->nbackends; i++) {
		struct wm_init_backend *pb = &ci->backends[i];
		if (ci->nbackends - first == 1 && nfeatures) {
			pb->oses = oses;
			pb->features = wm_arena_array(a, nfeatures, sizeof(*pb->features));
			if (pb->features)
				memcpy(pb->features, features, nfeatures * sizeof(*features));
			pb->nfeatures = pb->features ? nfeatures : 0;
		} else if (cargo_feature(p, pb->id, strlen(pb->id))) {
			pb->features = wm_arena_array(a, 1, sizeof(*pb->features));
			if (pb->features)
				pb->features[0] = pb->id;
			pb->nfeatures = pb->features ? 1 : 0;
		}
	}
	/* no features, no backend: nothing says how it is built */
	size_t kept = first;
	for (size_t i = first; i < ci->nbackends; i++)
		if (ci->backends[i].nfeatures)
			ci->backends[kept++] = ci->backends[i];
	ci->nbackends = kept;
}


/* A path the matrix file's comments may name: nothing a YAML comment would read otherwise. */
static bool plain_path(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/", *s))
			return false;
	return true;
}

bool wm_init_ci_generated(void *ctx, const char *path, const char *text, size_t len)
{
	struct wm_file ours = { (char *)path, "", 0 };
	(void)ctx;
	return len > 0 && wm_file_compare(&ours, text, len) != WM_FILE_FOREIGN;
}

/* A file read as evidence, as UTF-8: one saved as UTF-16 (llm-rs's CI.yml is) is converted in place. */
static int as_utf8(char **text, size_t *len)
{
	struct wm_buf b = WM_BUF_INIT;
	size_t n;
	char *utf8;
	if (!wm_utf8_from_utf16(&b, *text, *len))
		return 0;
	n = b.len;
	if (!(utf8 = wm_buf_detach(&b)))
		return WM_ENOMEM;
	*len = n;
	free(*text);
	*text = utf8;
	return 0;
}

/* The operating systems the runs of a workflow build on, as a mask (0: not known). */
static unsigned oses_of(const struct wm_workflows *w, const char *path)
{
	unsigned oses = 0;
	for (size_t i = 0; i < w->nruns; i++)
		if (!strcmp(w->runs[i].file, path) && w->runs[i].os >= 0)
			oses |= 1u << w->runs[i].os;
	return oses;
}

/*
 * Whether every build of a workflow builds another project than `p` (the project's CLI, its
 * pure-Python package): its uploads are then not the matrix's.  A build whose project is not known
 * may be the matrix's.
 */
static bool others_only(struct wm_arena *a, const struct wm_builds *b, const char *path, const struct wm_project *p)
{
	char *own = p ? wm_arena_strdup(a, p->py_path) : NULL, *slash;
	bool any = false;
	if (!own)
		return false;
	slash = strrchr(own, '/');
	*(slash ? slash : own) = '\0';
	for (size_t i = 0; i < b->n; i++) {
		const char *manifest, *why, *dir;
		if (strcmp(b->items[i].run->file, path) != 0)
			continue;
		any = true;
		if (!(dir = wm_init_ci_project(a, &b->items[i], &manifest, &why)))
			return false;
		if (!strcmp(dir, own))
			return false;
		/* maturin's src layout: the project of rust/Cargo.toml is its parent's */
		if (manifest && ((!strncmp(dir, "rust", 4) && !dir[4] && !*own) ||
				(strlen(dir) == strlen(own) + 5 && !strncmp(dir, own, strlen(own)) && !strcmp(dir + strlen(own), "/rust"))))
			return false;
	}
	return any;
}

/* The first upload of a workflow to an index on a tag push or a release, or NULL. */
static const struct wm_upload *index_upload(const struct wm_builds *b, const char *path)
{
	for (size_t i = 0; i < b->nuploads; i++)
		if (b->uploads[i].index && b->uploads[i].events && !strcmp(b->uploads[i].run->file, path))
			return &b->uploads[i];
	return NULL;
}

static const char *event_name(unsigned events)
{
	return events & WM_WF_TAG ? "a tag push" : "a release";
}

/* Whether the workflow builds wheels. */
static bool builds_wheels(const struct wm_builds *b, const char *path)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->items[i].wheel && !strcmp(b->items[i].run->file, path))
			return true;
	return false;
}

/* Whether the workflow builds wheels in a release. */
static bool builds_in_release(const struct wm_builds *b, const char *path)
{
	return builds_wheels(b, path) && wm_builds_releases(b, path);
}

/* One file of the CI or its scripts: the backends' distributions it names (a workflow's, its runners' OSes). */
static void scan_file(struct wm_init_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p,
	struct wm_workflows *w, const char *path, size_t *budget)
{
	struct wm_error ignored;
	char *text = NULL;
	size_t len = 0;
	const char *file;

	wm_error_init(&ignored);
	if (!plain_path(path))
		ci->unplain++;
	if (!plain_path(path) || r->read(r->ctx, path, &text, &len, &ignored) != 0 || len > MAX_SCAN_FILE || len > *budget ||
			as_utf8(&text, &len) < 0 || wm_init_ci_generated(NULL, path, text, len) || !(file = wm_arena_strdup(a, path))) {
		wm_error_release(&ignored);
		free(text);
		return;
	}
	wm_error_release(&ignored);
	*budget -= len < *budget ? len : *budget;
	scan_distributions(ci, a, p, file, text, len, oses_of(w, path));
	free(text);
}

/* The workflows that build wheels in a release, and the backends' distributions each names. */
static void list_built(struct wm_init_ci *ci, struct wm_arena *a, const struct wm_workflows *w, const struct wm_builds *b)
{
	for (size_t i = 0; i < w->nfiles && ci->nbuilt < WM_INIT_MAX_FOUND; i++) {
		const char *path = w->files[i].path;
		struct wm_init_built *x;
		struct wm_buf names = WM_BUF_INIT;
		const struct wm_upload *u;
		if (!builds_in_release(b, path)) {
			if (builds_wheels(b, path) && ci->ntests < WM_INIT_MAX_FOUND)
				ci->tests[ci->ntests++] = path;
			continue;
		}
		x = &ci->built[ci->nbuilt++];
		x->path = path;
		for (size_t k = 0; k < ci->nbackends; k++)
			if (!strcmp(ci->backends[k].file, path))
				wm_buf_printf(&names, "%s%s, backend '%s'", names.len ? "; " : "", ci->backends[k].dist,
					ci->backends[k].id);
		x->backends = names.len && !names.oom ? wm_arena_strndup(a, names.ptr, names.len) : NULL;
		wm_buf_release(&names);
		if ((u = index_upload(b, path)) != NULL) {
			x->publisher = u->how;
			x->event = event_name(u->events);
		}
	}
}

void wm_init_ci_scan(struct wm_init_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p,
	struct wm_workflows *w, const struct wm_builds *b)
{
	static const char *const dirs[] = { ".github", "scripts", "build_scripts", "ci" };
	struct wm_error ignored;
	size_t scanned = 0, budget = MAX_SCAN_TEXT;
	char *text = NULL;
	size_t len = 0;

	memset(ci, 0, sizeof(*ci));
	wm_error_init(&ignored);
	if (r->read(r->ctx, ".gitlab-ci.yml", &text, &len, &ignored) == 0) {
		ci->gitlab = wm_init_ci_generated(NULL, ".gitlab-ci.yml", text, len);
		ci->gitlab_own = !ci->gitlab;
	}
	free(text);
	for (size_t d = 0; d < WM_ARRAY_SIZE(dirs) && r->list; d++) {
		struct wm_paths paths = { NULL, 0, 0 };
		if (r->list(r->ctx, dirs[d], &paths, &ignored) != 0)
			continue;
		if (d == 0)
			ci->github = true;
		for (size_t i = 0; i < paths.n && scanned < MAX_SCANNED; i++, scanned++) {
			char *path = wm_arena_printf(a, "%s/%s", dirs[d], paths.items[i]);
			if (path)
				scan_file(ci, a, r, p, w, path, &budget);
		}
		wm_io_paths_free(&paths);
	}
	wm_error_release(&ignored);
	list_built(ci, a, w, b);
}

/* ---- the project a build builds --------------------------------------------------------- */
const char *wm_init_ci_project(struct wm_arena *a, const struct wm_wf_build *b, const char **manifest, const char **why)
{
	const char *wd = b->working_directory ? b->working_directory : "", *m = b->args.manifest, *dir;
	char *path;
	*manifest = m;
	*why = NULL;
	if (b->unknown || b->args.manifest_unknown) {
		*why = "not known before the job runs";
		return NULL;
	}
	if (b->kind == WM_BUILD_PEP517 && b->project) {
		/* an sdist built again, or a directory */
		if (strstr(b->project, ".tar.gz") || strstr(b->project, ".zip") || strpbrk(b->project, "*?[")) {
			*why = "an sdist";
			return NULL;
		}
		m = NULL;
		wd = *wd ? wm_arena_printf(a, "%s/%s", wd, b->project) : b->project;
	}
	if (m) {
		const char *slash = strrchr(m, '/');
		path = slash ? (*wd && strcmp(wd, ".") ? wm_arena_printf(a, "%s/%.*s", wd, (int)(slash - m), m) :
			wm_arena_strndup(a, m, (size_t)(slash - m))) : wm_arena_strdup(a, wd);
	} else {
		path = wm_arena_strdup(a, wd);
	}
	if (!path)
		return NULL;
	/* ./x is x, x/ is x, . is the root */
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (size_t n = strlen(path); n && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
	if (!strcmp(path, "."))
		path[0] = '\0';
	dir = path;
	if (*dir && !wm_name_repo_path(dir, why))
		return NULL;
	return dir;
}

/* ---- the workflows that publish, as check reads them --------------------------------------- */

/* Whether the text names the distribution `dist` as a whole name (compared as PyPI compares names). */
static bool names_dist(const char *text, size_t len, const char *dist)
{
	const char *end = text + len;
	for (const char *s = text; s < end; s++) {
		size_t n;
		if ((s > text && is_name_char(s[-1])) || !(n = match_name(s, end, dist)))
			continue;
		if (s + n == end || (!isalnum((unsigned char)s[n]) && name_ends(s + n, end)))
			return true;
	}
	return false;
}

static bool same_name(const char *a, const char *b)
{
	size_t n = strlen(a);
	return match_name(a, a + n, b) == n && match_name(b, b + strlen(b), a) == strlen(b);
}

/* The distributions a workflow's text names (`<name>-<backend>`, one of `known`), else the project's own. */
static bool read_dists(struct wm_init_workflow *x, struct wm_arena *a, const char *text, size_t len, const char *name,
	const struct wm_project *p, const char *const *known, size_t nknown)
{
	struct named names[WM_INIT_MAX_FOUND];
	size_t nnames = p ? find_names(names, WM_ARRAY_SIZE(names), a, p, name, text, len) : 0;
	if (!(x->dists = wm_arena_array(a, nnames + nknown + 1, sizeof(*x->dists))))
		return false;
	for (size_t i = 0; i < nnames; i++)
		x->dists[x->ndists++] = names[i].dist;
	for (size_t k = 0; k < nknown; k++) {
		bool seen = same_name(known[k], name);
		for (size_t i = 0; i < x->ndists && !seen; i++)
			seen = same_name(known[k], x->dists[i]);
		if (!seen && names_dist(text, len, known[k]))
			x->dists[x->ndists++] = known[k];
	}
	if (!x->ndists)
		x->dists[x->ndists++] = name;
	return true;
}

/* The job of the workflow file a run is of: a called workflow's jobs are their caller's. */
static const char *file_job(struct wm_arena *a, const struct wm_wf_run *run)
{
	const char *slash = strchr(run->job, '/');
	return slash ? wm_arena_strndup(a, run->job, (size_t)(slash - run->job)) : run->job;
}

/* A job's entry in the list (made on first use). */
static struct wm_init_job *job_entry(struct wm_init_workflow *x, const struct wm_workflows *w, const char *id)
{
	const struct wm_node *jobs = NULL, *node;
	for (size_t i = 0; i < x->njobs; i++)
		if (!strcmp(x->jobs[i].id, id))
			return &x->jobs[i];
	for (size_t i = 0; i < w->nfiles; i++)
		if (!strcmp(w->files[i].path, x->path) && w->files[i].doc)
			jobs = wm_yaml_find(w->files[i].doc->root, "jobs");
	node = jobs ? wm_yaml_find(jobs, id) : NULL;
	x->jobs[x->njobs] = (struct wm_init_job){ id, node ? node->line : 0, node ? node->column : 0, true };
	return &x->jobs[x->njobs++];
}

/* A Python entry of a build ("3.12", "3.13t", "pp3.10", "abi3"): its bit in a set of 97. */
#define ENTRY_BITS (32 * 3 + 1)
#define ENTRY_ABI3 (32 * 3)

static void entry_name(char *out, size_t size, unsigned v)
{
	unsigned minor = v % 32;
	snprintf(out, size, v == ENTRY_ABI3 ? "abi3" : v < 32 ? "3.%u" : v < 64 ? "3.%ut" : "pp3.%u", minor);
}

/* The entries the matrix builds, per platform of it: one expansion, read for every build. */
struct made_set {
	const struct wm_matrix *m;
	uint32_t (*bits)[(ENTRY_BITS + 31) / 32];
};

static bool made_set_init(struct made_set *s, struct wm_arena *a, const struct wm_matrix *m)
{
	struct wm_expand *it = NULL;
	struct wm_job job;
	s->m = m;
	if (!(s->bits = wm_arena_array(a, m->nplatforms + 1, sizeof(*s->bits))) || wm_expand_new(&it, m, WM_EXPAND_JOBS) < 0)
		return false;
	while (wm_expand_next(it, &job) > 0)
		for (size_t p = 0; p < m->nplatforms; p++) {
			if (m->platforms[p] != job.platform)
				continue;
			for (unsigned v = 0; v < ENTRY_BITS; v++) {
				char entry[16];
				entry_name(entry, sizeof(entry), v);
				if (!strcmp(job.python->version, entry) || (v == ENTRY_ABI3 && job.python->abi3))
					s->bits[p][v / 32] |= 1u << (v % 32);
			}
		}
	wm_expand_free(it);
	return true;
}

/* Whether the matrix has a job of platform `p` and entry `v`. */
static bool made_has(const struct made_set *s, const struct wm_platform *p, unsigned v)
{
	for (size_t i = 0; i < s->m->nplatforms; i++)
		if (!strcmp(s->m->platforms[i]->id, p->id))
			return s->bits[i][v / 32] >> (v % 32) & 1;
	return false;
}

static void add_lost(struct wm_init_workflow *x, size_t cap, const char *what)
{
	for (size_t i = 0; i < x->nlost; i++)
		if (!strcmp(x->lost[i], what))
			return;
	if (x->nlost < cap && what)
		x->lost[x->nlost++] = what;
}

/*
 * What a workflow's builds make that the matrix `m` does not: a build init cannot read or whose
 * settings the matrix cannot carry, or a platform and Python entry without a job of m.
 */
static void builds_lost(struct wm_init_workflow *x, struct wm_arena *a, const struct wm_workflows *w,
	const struct wm_takeover *t, const struct made_set *made, size_t cap)
{
	for (size_t i = 0; i < t->nbuilds; i++) {
		const struct wm_takeover_build *tb = &t->builds[i];
		const char *job = file_job(a, tb->b->run);
		bool lost = false;
		if (strcmp(tb->b->run->file, x->path) != 0)
			continue;
		if (!tb->p || tb->note) {
			add_lost(x, cap, wm_arena_printf(a, "the wheels of job %s (%s:%u): %s", job, tb->b->file, tb->b->line,
				tb->note ? tb->note : "not read"));
			lost = true;
		} else {
			for (unsigned v = 0; v < ENTRY_BITS; v++) {
				char entry[16];
				unsigned minor = v % 32;
				bool has = v == ENTRY_ABI3 ? tb->abi3 : v < 32 ? tb->cpython[0] >> minor & 1 :
					v < 64 ? tb->cpython[1] >> minor & 1 : tb->pypy >> minor & 1;
				if (!has || made_has(made, tb->p, v))
					continue;
				entry_name(entry, sizeof(entry), v);
				add_lost(x, cap, wm_arena_printf(a, "%s %s (job %s, %s:%u)", tb->p->id, entry, job, tb->b->file,
					tb->b->line));
				lost = true;
			}
			if (tb->partial) {
				add_lost(x, cap, wm_arena_printf(a, "some wheels of job %s (%s:%u): %s", job, tb->b->file, tb->b->line,
					tb->partial_why ? tb->partial_why : "the matrix cannot express them"));
				lost = true;
			}
		}
		if (lost)
			job_entry(x, w, job)->replaced = false;
	}
}

/* The lines "#   lost: FILE (WORKFLOW)" of the matrix file's header that name this workflow, while m builds none of them. */
static void recorded_lost(struct wm_init_workflow *x, struct wm_arena *a, const char *record, size_t len,
	const struct wm_matrix *m, size_t cap)
{
	static const char mark[] = "#   lost: ";
	const char *p = record, *end = record + len;
	while (p < end && *p == '#' && x->nlost < cap) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *line_end = nl ? nl : end;
		if ((size_t)(line_end - p) > sizeof(mark) - 1 && !strncmp(p, mark, sizeof(mark) - 1)) {
			const char *file = p + sizeof(mark) - 1, *sp = memchr(file, ' ', (size_t)(line_end - file));
			const char *open = sp && sp + 1 < line_end && sp[1] == '(' ? sp + 2 : NULL;
			const char *close = open ? memchr(open, ')', (size_t)(line_end - open)) : NULL;
			if (close && (size_t)(close - open) == strlen(x->path) && !strncmp(open, x->path, strlen(x->path))) {
				char *name = wm_arena_strndup(a, file, (size_t)(sp - file));
				if (name && plain_path(name) && !wm_init_matrix_made(m, name))
					add_lost(x, cap, name);
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* A publishing workflow's jobs: replaced unless they build what the matrix does not, or do anything else. */
static void read_jobs(struct wm_init_workflow *x, struct wm_arena *a, const struct wm_workflows *w,
	const struct wm_builds *b)
{
	for (size_t i = 0; i < w->nruns; i++) {
		const struct wm_wf_run *run = &w->runs[i];
		struct wm_init_job *j;
		bool does = false;
		if (strcmp(run->file, x->path) != 0)
			continue;
		j = job_entry(x, w, file_job(a, run));
		for (size_t k = 0; k < b->n; k++)
			if (b->items[k].run == run)
				does = true;
		for (size_t k = 0; k < b->nuploads; k++)
			if (b->uploads[k].run == run) {
				does |= b->uploads[k].index;
				/* a GitHub release of the files, or of others: not the generated workflow's */
				if (!b->uploads[k].index)
					j->replaced = false;
			}
		if (!does)
			j->replaced = false;
	}
}

/* Whether a workflow's distributions are a backend's, not the project's own (`name`). */
static bool a_backend(const struct wm_init_workflow *x, const char *name)
{
	for (size_t d = 0; d < x->ndists; d++)
		if (same_name(x->dists[d], name))
			return false;
	return x->ndists > 0;
}

/* The matrix's backend whose distribution a workflow builds: a backend's named, else the default. */
static const struct wm_backend *backend_of(const struct wm_matrix *m, const struct wm_init_workflow *x, const char *name)
{
	const struct wm_backend *def = NULL;
	for (size_t i = 0; i < m->nbackends; i++) {
		if (m->backends[i]->is_default)
			def = m->backends[i];
		for (size_t d = 0; d < x->ndists && a_backend(x, name); d++)
			if (same_name(x->dists[d], m->backends[i]->dist))
				return m->backends[i];
	}
	return def;
}

/* Whether a build's --features are a backend's (the same set, in any order). */
static bool same_features(const struct wm_wf_build *b, const struct wm_backend *be)
{
	size_t n = 0;
	for (size_t i = 0; i < b->args.features.n; i++) {
		bool there = false;
		for (size_t k = 0; k < be->features.n && !there; k++)
			there = !strcmp(b->args.features.items[i], be->features.items[k]);
		if (!there)
			return false;
		n++;
	}
	return n == be->features.n;
}

/* A build's settings the matrix carries, against the backend that builds its wheels: features, before-script-linux. */
static void settings_lost(struct wm_init_workflow *x, struct wm_arena *a, const struct wm_workflows *w,
	const struct wm_takeover *t, const struct wm_matrix *m, const char *name, size_t cap)
{
	const struct wm_backend *be = backend_of(m, x, name);
	for (size_t i = 0; be && i < t->nbuilds; i++) {
		const struct wm_wf_build *b = t->builds[i].b;
		const char *job = file_job(a, b->run);
		bool lost = false;
		if (strcmp(b->run->file, x->path) != 0 || !t->builds[i].p)
			continue;
		if (!same_features(b, be)) {
			add_lost(x, cap, wm_arena_printf(a, "the wheels of job %s (%s:%u): built with other --features than "
				"backend '%s'", job, b->file, b->line, be->id));
			lost = true;
		}
		if (t->builds[i].p->os == WM_OS_LINUX && (b->before_script == NULL) != (be->before_script_linux == NULL)) {
			add_lost(x, cap, wm_arena_printf(a, "the wheels of job %s (%s:%u): built after another before-script-linux "
				"than backend '%s' runs", job, b->file, b->line, be->id));
			lost = true;
		}
		if (lost)
			job_entry(x, w, job)->replaced = false;
	}
}

int wm_init_ci_workflows(struct wm_init_workflows *out, const struct wm_reader *r, const char *name,
	const struct wm_project *p, const char *const *known, size_t nknown, const char *skip, const struct wm_matrix *m,
	const char *record, size_t record_len, struct wm_error *err)
{
	struct wm_workflows_options o = { wm_init_ci_generated, NULL, NULL };
	struct wm_builds b;
	struct wm_takeover t;
	struct made_set made = { 0 };
	struct wm_error quiet;
	struct wm_catalog *cat = NULL;
	struct wm_init_workflow *all = NULL;
	const char **backends = NULL;
	size_t nbackends = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	wm_arena_init(&out->arena);
	/* its own error: the loaders answer with what `err` already holds (a caller's findings) */
	wm_error_init(&quiet);
	ret = wm_catalog_load(&cat, &quiet);
	wm_error_release(&quiet);
	if (ret < 0) {
		wm_error_code(err, ret);
		return ret;
	}
	o.cat = cat;
	if ((ret = wm_workflows_read(&out->read, r, &o, err)) < 0 || (ret = wm_builds_read(&b, out->read)) < 0)
		goto out;
	ret = WM_ENOMEM;
	if (!(all = wm_arena_array(&out->arena, out->read->nfiles + 1, sizeof(*all))) ||
			!(backends = wm_arena_array(&out->arena, out->read->nfiles + 1, sizeof(*backends))) ||
			!(out->items = wm_arena_array(&out->arena, out->read->nfiles + 1, sizeof(*out->items))))
		goto out;
	/* each workflow's distributions first: those of a backend build its wheels, not the default's */
	for (size_t i = 0; i < out->read->nfiles; i++) {
		const struct wm_wf_file *f = &out->read->files[i];
		all[i].path = f->path;
		if (f->doc && !read_dists(&all[i], &out->arena, f->doc->text, f->doc->len, name, p, known, nknown))
			goto out;
		if (f->doc && a_backend(&all[i], name))
			backends[nbackends++] = f->path;
	}
	memset(&t, 0, sizeof(t));
	t.arena = &out->arena;
	t.cat = cat;
	t.project = p;
	wm_init_matrix_read(&t, out->read, &b, backends, nbackends);
	if (m && !made_set_init(&made, &out->arena, m))
		goto out;
	for (size_t i = 0; i < out->read->nfiles; i++) {
		const struct wm_wf_file *f = &out->read->files[i];
		const struct wm_upload *u;
		struct wm_init_workflow *x;
		if (!f->doc || (skip && !strcmp(f->path, skip)) || !(u = index_upload(&b, f->path)))
			continue;
		x = &out->items[out->n++];
		*x = all[i];
		x->publisher = u->how;
		x->event = event_name(u->events);
		x->line = u->line;
		x->column = u->column;
		x->job = file_job(&out->arena, u->run);
		if (!(x->jobs = wm_arena_array(&out->arena, out->read->nruns + 1, sizeof(*x->jobs))) ||
				!(x->lost = wm_arena_array(&out->arena, 64, sizeof(*x->lost))))
			goto out;
		read_jobs(x, &out->arena, out->read, &b);
		x->builds = builds_in_release(&b, f->path);
		x->others = x->builds && others_only(&out->arena, &b, f->path, p);
		x->partial = f->partial;
		if (m)
			builds_lost(x, &out->arena, out->read, &t, &made, 64);
		if (m)
			settings_lost(x, &out->arena, out->read, &t, m, name, 64);
		if (m && record)
			recorded_lost(x, &out->arena, record, record_len, m, 64);
	}
	ret = 0;
out:
	if (ret < 0)
		wm_error_code(err, ret);
	wm_catalog_free(cat);
	return ret;
}

void wm_init_ci_workflows_release(struct wm_init_workflows *w)
{
	if (!w)
		return;
	wm_workflows_free(w->read);
	wm_arena_release(&w->arena);
	memset(w, 0, sizeof(*w));
}

/* Whether the generated CI uploads backend `b`'s distribution to PyPI (the others go to an index of their own). */
static bool on_pypi(const struct wm_matrix *m, const struct wm_backend *b)
{
	return (m->strategy != WM_STRATEGY_INDEX && m->strategy != WM_STRATEGY_VARIANTS) || b->is_default;
}

/* Whether one of `w`'s distributions is `dist`, as PyPI compares names. */
static bool uploads(const struct wm_init_workflow *w, const char *dist)
{
	char a[256], b[256];
	if (strlen(dist) >= sizeof(a))
		return false;
	wm_name_normalize(a, dist);
	for (size_t d = 0; d < w->ndists; d++)
		if (strlen(w->dists[d]) < sizeof(b) && (wm_name_normalize(b, w->dists[d]), strcmp(a, b) == 0))
			return true;
	return false;
}

int wm_init_ci_publisher_moves(const struct wm_matrix *m, const struct wm_reader *r, struct wm_error *notes)
{
	const char *name = m->project && m->project->name ? m->project->name : m->name;
	const char *skip = m->github.enabled ? m->github.path : NULL, *file;
	struct wm_init_workflows found;
	struct wm_buf to = WM_BUF_INIT;
	const char **ours;
	size_t nours = 0;
	int ret;

	if (!m->trusted || (!m->github.enabled && !m->gitlab.enabled))
		return 0;
	if (!(ours = calloc(m->nbackends + 1, sizeof(*ours)))) {
		wm_error_code(notes, WM_ENOMEM);
		return WM_ENOMEM;
	}
	for (size_t b = 0; b < m->nbackends; b++)
		if (on_pypi(m, m->backends[b]))
			ours[nours++] = m->backends[b]->dist;
	if (m->strategy == WM_STRATEGY_META && m->meta)
		ours[nours++] = m->name;
	if ((ret = wm_init_ci_workflows(&found, r, name, m->project, ours, nours, skip, NULL, NULL, 0, notes)) < 0)
		goto out;
	/* what PyPI's trusted publisher must name instead: GitHub's workflow file name, GitLab's pipeline path */
	if (m->github.enabled) {
		file = strrchr(m->github.path, '/');
		wm_buf_printf(&to, "the GitHub workflow '%s' of this repository", file ? file + 1 : m->github.path);
	}
	if (m->gitlab.enabled)
		wm_buf_printf(&to, "%sthe GitLab pipeline file '%s' of this project", to.len ? ", and " : "",
			m->gitlab.path);
	wm_buf_printf(&to, ", environment '%s'", m->environment);
	for (size_t i = 0; i < found.n && !to.oom; i++) {
		const struct wm_init_workflow *w = &found.items[i];
		struct wm_buf both = WM_BUF_INIT;
		size_t n = 0, k = 0;
		if (!w->publisher || w->others || (m->gitlab.enabled && strcmp(w->path, m->gitlab.path) == 0))
			continue;
		for (size_t d = 0; d < nours; d++)
			n += uploads(w, ours[d]);
		for (size_t d = 0; d < nours; d++)
			if (uploads(w, ours[d])) {
				wm_buf_printf(&both, "%s'%s'", k == 0 ? "" : k + 1 == n ? " and " : ", ", ours[d]);
				k++;
			}
		if (both.oom) {
			wm_buf_release(&both);
			ret = WM_ENOMEM;
			wm_error_code(notes, ret);
			goto out;
		}
		if (n)
			wm_error_add(notes, WM_OK, WM_SEV_NOTE, w->path, NULL, 0, w->line, w->column, 0,
				"job '%s' uploads %s to an index on %s (%s), as the generated CI does to PyPI with trusted "
				"publishing, which PyPI accepts only from a trusted publisher that names the CI file: before the "
				"first release, make PyPI's trusted publisher of %s %s name %s (pypi.org, the project's "
				"Settings, Publishing: change the one naming this workflow, or add one), or PyPI refuses the "
				"upload", w->job, both.ptr, w->event, w->publisher, n == 1 ? "project" : "projects", both.ptr,
				to.ptr);
		wm_buf_release(&both);
	}
	if (to.oom) {
		ret = WM_ENOMEM;
		wm_error_code(notes, ret);
	}
out:
	wm_buf_release(&to);
	wm_init_ci_workflows_release(&found);
	free(ours);
	return ret < 0 ? ret : 0;
}
