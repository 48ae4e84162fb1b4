/* init.c — a starting wheelmatrix.yaml from the project and its CI: name, abi3, the backends it publishes or its GPU features, its CI providers. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "formats/yaml.h"
#include "model/project.h"

/* Cargo features that name a GPU backend, and where that backend can be built by default. */
static const struct gpu {
	const char *feature;
	const char *const *platforms;   /* NULL: every matrix platform */
} gpus[] = {
	{ "cuda", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "cublas", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "cudnn", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "metal", (const char *const[]){ "macos-*", NULL } },
	{ "mps", (const char *const[]){ "macos-*", NULL } },
	{ "rocm", (const char *const[]){ "linux-x86_64", NULL } },
	{ "hipblas", (const char *const[]){ "linux-x86_64", NULL } },
	{ "clblast", NULL },
	{ "opencl", NULL },
	{ "vulkan", NULL },
};

static const struct gpu *gpu_feature(const char *name)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(gpus); i++)
		if (strcmp(gpus[i].feature, name) == 0)
			return &gpus[i];
	return NULL;
}

/* ---- what the repository's CI already says ------------------------------------------ */

#define MAX_FOUND 32    /* workflows and distributions kept: more is no starting point */
#define MAX_SCANNED 256 /* files read for evidence */

/* A backend the project already publishes: the distribution `<name>-<id>` and the features it is built with. */
struct published {
	const char *id;
	const char *dist;         /* as the file spells it */
	const char *file;         /* where it was seen */
	const char **features;    /* Cargo features of the project, from the same file */
	size_t nfeatures;
	unsigned oses;            /* 1 << enum wm_os of the runners its workflow builds on; 0: not known */
};

struct repo_ci {
	bool github;              /* .github/ is there */
	bool gitlab;              /* .gitlab-ci.yml, written by wheelmatrix */
	bool gitlab_own;          /* the project's own .gitlab-ci.yml: generate would not replace it */
	const char *workflows[MAX_FOUND];   /* the wheel workflows the generated one replaces */
	const char *built[MAX_FOUND];       /* the distributions each builds, or NULL */
	size_t nworkflows;
	struct published published[MAX_FOUND];
	size_t npublished;
};

/* Whether text (not NUL-terminated) holds `needle`. */
static bool contains(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(text + i, needle, n) == 0)
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
	for (size_t i = 0; i < p->nfeatures; i++)
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

/* The operating systems of a workflow's hosted runners (`runs-on: ubuntu-latest`, ...), as a mask. */
static unsigned scan_oses(const char *text, size_t len)
{
	static const struct { const char *runner; enum wm_os os; } runners[] = {
		{ "runs-on: ubuntu", WM_OS_LINUX }, { "runs-on: macos", WM_OS_MACOS }, { "runs-on: windows", WM_OS_WINDOWS },
	};
	unsigned oses = 0;
	for (size_t i = 0; i < WM_ARRAY_SIZE(runners); i++)
		if (contains(text, len, runners[i].runner))
			oses |= 1u << runners[i].os;
	return oses;
}

/* Each distribution `<name>-<suffix>` the text names whose suffix is a backend, into ci->published. */
static void scan_distributions(struct repo_ci *ci, struct wm_arena *a, const struct wm_project *p,
	const char *file, const char *text, size_t len)
{
	const char *end = text + len;
	const char *features[16];
	size_t nfeatures = scan_features(features, WM_ARRAY_SIZE(features), a, p, text, len);
	size_t first = ci->npublished;

	for (const char *s = text; s < end && ci->npublished < MAX_FOUND; s++) {
		const char *t, *u;
		char *suffix;
		bool seen = false;
		size_t n;
		if ((s > text && is_name_char(s[-1])) || !(n = match_name(s, end, p->name)))
			continue;
		t = s + n;
		if (t == end || !is_sep(*t))
			continue;
		for (u = ++t; u < end && isalnum((unsigned char)*u); u++)
			;
		if (u == t || !name_ends(u, end))
			continue;
		if (!(suffix = wm_arena_strndup(a, t, (size_t)(u - t))))
			return;
		for (char *c = suffix; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (!backend_suffix(p, suffix))
			continue;
		for (size_t i = 0; i < ci->npublished; i++)
			seen |= strcmp(ci->published[i].id, suffix) == 0;
		if (seen)
			continue;
		ci->published[ci->npublished++] = (struct published){ suffix, wm_arena_strndup(a, s, (size_t)(u - s)), file,
			NULL, 0, 0 };
	}
	/*
	 * The file's features belong to its distribution when it names one (a workflow per backend, as
	 * llm-rs has); with several, only a suffix that is itself a feature says which one it builds.
	 */
	for (size_t i = first; i < ci->npublished; i++) {
		struct published *pb = &ci->published[i];
		if (ci->npublished - first == 1 && nfeatures) {
			pb->oses = scan_oses(text, len);
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
	for (size_t i = first; i < ci->npublished; i++)
		if (ci->published[i].nfeatures)
			ci->published[kept++] = ci->published[i];
	ci->npublished = kept;
}

/* A path the matrix file's comments may name: nothing a YAML comment would read otherwise. */
static bool plain_path(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-/", *s))
			return false;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A workflow that builds the project's wheels: maturin's action or maturin itself. */
static bool builds_wheels(const char *text, size_t len)
{
	static const char *const marks[] = { "maturin-action", "maturin build", "maturin publish" };
	for (size_t i = 0; i < WM_ARRAY_SIZE(marks); i++)
		if (contains(text, len, marks[i]))
			return true;
	return false;
}

/* A file that starts with the header generate writes (docs/generate.md), edited since or not. */
static bool written_by_wheelmatrix(const char *path, const char *text, size_t len)
{
	struct wm_file ours = { (char *)path, "", 0 };
	return len > 0 && wm_file_compare(&ours, text, len) != WM_FILE_FOREIGN;
}

/* One file of the repository's CI or scripts: which distributions it builds; a wheel workflow is kept. */
static void scan_file(struct repo_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p,
	const char *path)
{
	struct wm_error ignored;
	char *text = NULL;
	size_t len = 0, before = ci->npublished;
	const char *file;
	bool workflow = strncmp(path, ".github/workflows/", 18) == 0 && !strchr(path + 18, '/') &&
		(ends_with(path, ".yml") || ends_with(path, ".yaml"));

	/* evidence, not input: a file that cannot be read is passed over */
	wm_error_init(&ignored);
	if (!plain_path(path) || r->read(r->ctx, path, &text, &len, &ignored) != 0 || !(file = wm_arena_strdup(a, path))) {
		wm_error_release(&ignored);
		free(text);
		return;
	}
	wm_error_release(&ignored);
	if (written_by_wheelmatrix(path, text, len)) {
		free(text);
		return;  /* what generate wrote replaces the others, not itself */
	}
	scan_distributions(ci, a, p, file, text, len);
	if (workflow && builds_wheels(text, len) && ci->nworkflows < MAX_FOUND) {
		struct wm_buf names = WM_BUF_INIT;
		for (size_t i = before; i < ci->npublished; i++)
			wm_buf_printf(&names, "%s%s, backend '%s'", names.len ? "; " : "", ci->published[i].dist,
				ci->published[i].id);
		ci->built[ci->nworkflows] = names.len ? wm_arena_strndup(a, names.ptr, names.len) : NULL;
		ci->workflows[ci->nworkflows++] = file;
		wm_buf_release(&names);
	}
	free(text);
}

/*
 * What the repository's CI says: the providers it uses (.github/, a .gitlab-ci.yml, and whether
 * wheelmatrix wrote that one), the workflows that build wheels today, and the backends its
 * workflows and scripts publish as distributions of their own.
 */
static void scan_repo(struct repo_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p)
{
	static const char *const dirs[] = { ".github", "scripts", "build_scripts", "ci" };
	struct wm_error ignored;
	size_t scanned = 0;
	char *text = NULL;
	size_t len = 0;

	memset(ci, 0, sizeof(*ci));
	wm_error_init(&ignored);
	if (r->read(r->ctx, ".gitlab-ci.yml", &text, &len, &ignored) == 0) {
		ci->gitlab = written_by_wheelmatrix(".gitlab-ci.yml", text, len);
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
				scan_file(ci, a, r, p, path);
		}
		wm_io_paths_free(&paths);
	}
	wm_error_release(&ignored);
}

/* A flow list of strings under `key` of `map`. */
static void add_flow_list(struct wm_yb *b, struct wm_y *map, const char *key, const char *const *items, size_t n)
{
	struct wm_y *list = wm_yaml_set(b, map, key, wm_yaml_seq(b));
	if (list)
		list->style = WM_Y_FLOW;
	for (size_t i = 0; i < n; i++)
		wm_yaml_push(b, list, wm_yaml_str(b, items[i]));
}

static bool on_os(const char *platform, unsigned oses)
{
	static const char *const prefix[] = { [WM_OS_LINUX] = "linux-", [WM_OS_MACOS] = "macos-",
		[WM_OS_WINDOWS] = "windows-" };
	for (size_t os = 0; os < WM_OS_COUNT; os++)
		if ((oses & (1u << os)) && strncmp(platform, prefix[os], strlen(prefix[os])) == 0)
			return true;
	return false;
}

/*
 * A backend built with `features`, on the platforms the table gives its first GPU feature, narrowed
 * to the operating systems its workflow builds on (`oses`, 0 when not known): llm-rs builds OpenCL
 * on Linux and Windows only.
 */
static void add_backend(struct wm_yb *b, struct wm_y *backends, const char *id, const char *const *features,
	size_t nfeatures, unsigned oses)
{
	static const char *const every[] = { "linux-*", "macos-*", "windows-*", NULL };
	const char *const *table = NULL;
	struct wm_y *be = wm_yaml_set(b, backends, id, wm_yaml_map(b));
	const char *list[8];
	size_t n = 0;
	add_flow_list(b, be, "features", features, nfeatures);
	for (size_t i = 0; i < nfeatures && !table; i++) {
		const struct gpu *g = gpu_feature(wm_name_feature_leaf(features[i]));
		table = g ? g->platforms : NULL;
	}
	if (oses == (1u << WM_OS_COUNT) - 1)
		oses = 0;
	for (const char *const *s = table ? table : every; *s && n < WM_ARRAY_SIZE(list); s++)
		if (!oses || on_os(*s, oses))
			list[n++] = *s;
	/* the workflow and the table disagree (a cross build?): the table wins */
	if (!n)
		for (const char *const *s = table; s && *s && n < WM_ARRAY_SIZE(list); s++)
			list[n++] = *s;
	if (n && (table || oses))
		add_flow_list(b, be, "platforms", list, n);
}

static bool published_feature(const struct repo_ci *ci, const char *feature)
{
	for (size_t i = 0; i < ci->npublished; i++)
		for (size_t k = 0; k < ci->published[i].nfeatures; k++)
			if (strcmp(ci->published[i].features[k], feature) == 0)
				return true;
	return false;
}

/*
 * The backends: first those the project publishes already, named as their distributions are;
 * then one per GPU-looking Cargo feature none of them builds, named after it; then the default.
 */
static void add_backends(struct wm_yb *b, struct wm_y *root, const struct wm_project *p, const struct repo_ci *ci)
{
	struct wm_y *backends = wm_yaml_set(b, root, "backends", wm_yaml_map(b)), *cpu;
	for (size_t i = 0; i < ci->npublished; i++)
		add_backend(b, backends, ci->published[i].id, ci->published[i].features, ci->published[i].nfeatures,
			ci->published[i].oses);
	for (size_t i = 0; i < p->nfeatures; i++) {
		const char *f = p->features[i];
		if (gpu_feature(f) && wm_name_backend_id(f) && !wm_yaml_get(backends, f) && !published_feature(ci, f))
			add_backend(b, backends, f, &p->features[i], 1, 0);
	}
	cpu = wm_yaml_set(b, backends, wm_yaml_get(backends, "cpu") ? "base" : "cpu", wm_yaml_map(b));
	if (cpu)
		cpu->style = WM_Y_FLOW;
	wm_yaml_set(b, cpu, "default", wm_yaml_bool(b, true));
}

/*
 * `ci`: the providers the repository uses. A .gitlab-ci.yml of the project's own is left alone,
 * as generate would replace it; with no CI at all, both.
 */
static void add_ci(struct wm_yb *b, struct wm_y *root, const struct repo_ci *ci)
{
	struct wm_y *map = wm_yaml_set(b, root, "ci", wm_yaml_map(b));
	bool github = ci->github || !ci->gitlab;
	if (github)
		wm_yaml_set(b, map, "github", wm_yaml_map(b));
	if (ci->gitlab || (!ci->github && !ci->gitlab_own))
		wm_yaml_set(b, map, "gitlab", wm_yaml_map(b));
}

/* The header: what the matrix replaces, in comments, since generate will not remove those files. */
static void header(struct wm_buf *out, const struct repo_ci *ci)
{
	/* first: the line YAML editors read the schema from (docs/init.md) */
	wm_buf_puts(out, "# yaml-language-server: $schema=" WM_SCHEMA_URL "\n");
	wm_buf_puts(out, "# wheelmatrix.yaml: the build matrix of this project, written by `wheelmatrix init`.\n"
		"# Edit it freely; docs/matrix.md in wheelmatrix describes every key.\n");
	if (!ci->nworkflows)
		return;
	wm_buf_puts(out, "#\n# The workflow `generate` writes, .github/workflows/wheels.yml, replaces these, which build\n"
		"# the wheels today (remove them once it runs):\n");
	for (size_t i = 0; i < ci->nworkflows; i++) {
		wm_buf_printf(out, "#   %s", ci->workflows[i]);
		if (ci->built[i])
			wm_buf_printf(out, " (%s)", ci->built[i]);
		wm_buf_putc(out, '\n');
	}
}

/* What the reader should know before the first generate, as notes that name the files. */
static void notes(const struct repo_ci *ci, struct wm_error *err)
{
	for (size_t i = 0; i < ci->nworkflows; i++)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, ci->workflows[i], NULL, 0, 0, 0, 0,
			"builds wheels%s%s%s: the workflow generate writes, .github/workflows/wheels.yml, replaces it; "
			"remove it once that runs", ci->built[i] ? " (" : "", ci->built[i] ? ci->built[i] : "",
			ci->built[i] ? ")" : "");
	/* a script's distributions: a workflow's are in its note above */
	for (size_t i = 0; i < ci->npublished; i++) {
		bool workflow = false;
		for (size_t k = 0; k < ci->nworkflows; k++)
			workflow |= ci->workflows[k] == ci->published[i].file;
		if (!workflow)
			wm_error_add(err, WM_OK, WM_SEV_NOTE, ci->published[i].file, NULL, 0, 0, 0, 0,
				"publishes %s: backend '%s' keeps that name", ci->published[i].dist, ci->published[i].id);
	}
	if (ci->gitlab_own)
		wm_error_add(err, WM_OK, WM_SEV_WARNING, ".gitlab-ci.yml", NULL, 0, 0, 0, 0,
			"the project's own pipeline, not written by wheelmatrix: 'ci' leaves GitLab out (ci: {github: {}}), "
			"since generate would replace this file; to build on GitLab too, give 'ci.gitlab' another path and "
			"include that file from .gitlab-ci.yml, rather than generate --force");
	if (!ci->github && !ci->gitlab && !ci->gitlab_own)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, NULL, NULL, 0, 0, 0, 0,
			"no .github/ and no .gitlab-ci.yml: 'ci' names both providers; leave out the one the project "
			"does not use");
}

static int render(struct wm_buf *out, const struct wm_reader *r, const char *pyproject, struct wm_error *err)
{
	static const char *const platforms[] = { "linux-x86_64", "linux-aarch64", "macos-x86_64", "macos-arm64",
		"windows-x86_64" };
	struct wm_project *p = NULL;
	struct wm_arena arena;
	struct wm_yb b;
	struct wm_y *root, *project, *one;
	struct repo_ci *ci;
	int ret = wm_project_load(&p, r, pyproject, NULL, err);

	if (ret == 1) {
		wm_error_add(err, WM_EREAD, WM_SEV_ERROR, pyproject, NULL, 0, 0, 0, 0,
			"no such file: init reads the project's pyproject.toml and Cargo.toml");
		return WM_EREAD;
	}
	if (ret < 0)
		return ret;
	if (!p->name) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, p->py_path, NULL, 0, 0, 0, 0, "no [project].name");
		wm_project_free(p);
		return WM_EINVALID;
	}
	wm_arena_init(&arena);
	b.arena = &arena;
	b.oom = false;
	if ((ci = wm_arena_alloc(&arena, sizeof(*ci))) != NULL)
		scan_repo(ci, &arena, r, p);
	root = wm_yaml_map(&b);
	if ((one = wm_yaml_str(&b, "1")) != NULL)
		one->typed = true;  /* the format version is a number */
	wm_yaml_set(&b, root, "wheelmatrix", one);
	project = wm_yaml_set(&b, root, "project", wm_yaml_map(&b));
	wm_yaml_set(&b, project, "name", wm_yaml_str(&b, p->name));
	wm_yaml_set(&b, project, "module", wm_yaml_str(&b, wm_project_module(&arena, p->module_name, p->lib_name, p->name)));
	if (strcmp(p->py_path, "pyproject.toml") != 0)
		wm_yaml_set(&b, project, "pyproject", wm_yaml_str(&b, p->py_path));
	if (p->abi3) {
		struct wm_y *python = wm_yaml_set(&b, root, "python", wm_yaml_map(&b));
		wm_yaml_set(&b, python, "abi3", wm_yaml_strf(&b, "3.%u", wm_project_abi3_minor(p)));
	}
	add_flow_list(&b, root, "platforms", platforms, WM_ARRAY_SIZE(platforms));
	if (ci) {
		add_backends(&b, root, p, ci);
		add_ci(&b, root, ci);
	}
	if (b.oom || !root || !ci) {
		wm_error_add(err, WM_ENOMEM, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0, "out of memory");
		ret = WM_ENOMEM;
	} else {
		header(out, ci);
		if ((ret = wm_yaml_emit(out, root, err)) == 0)
			notes(ci, err);
	}
	wm_arena_release(&arena);
	wm_project_free(p);
	return ret;
}

int wm_init_matrix(char **out, size_t *len, const struct wm_reader *r, const char *pyproject, struct wm_error *err)
{
	struct wm_buf buf = WM_BUF_INIT;
	int ret = render(&buf, r, pyproject, err);
	*out = NULL;
	*len = 0;
	if (ret == 0 && buf.oom)
		ret = WM_ENOMEM;
	if (ret < 0) {
		wm_buf_release(&buf);
		wm_error_code(err, ret);
		return ret;
	}
	*len = buf.len;
	*out = wm_buf_detach(&buf);
	return *out ? 0 : WM_ENOMEM;
}
