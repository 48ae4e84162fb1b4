/* gitlab.c — the GitLab CI file: build jobs per (backend, platform), smoke tests, sdist and publish jobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/matrix.h"
#include "model/python.h"
#include "emit/emit.h"
#include "emit/gitlab.h"
#include "emit/jobs.h"

/* One job of `list`, copied out of the iterator. */
struct ljob {
	const char *id;
	const struct wm_backend *backend;
	const struct wm_platform *platform;
	const char *python;        /* the interpreter's version: 3.12, 3.13t; pypy3.11 */
	const char *interpreter;   /* PyPy's: pypy3.11; NULL for python<version> */
	unsigned pypy;             /* PyPy's Python minor version (11), else 0 */
	bool graalpy;              /* GraalPy: on Linux, like PyPy, from maturin's table; on macOS under uv's GraalPy */
	const struct wm_rule *include;
	const struct wm_build *build;  /* its build settings, merged */
	bool smoke;                /* in its test job: the import test, then the project's tests where `tests` says */
	enum wm_tests tests;       /* where the project's tests run: the test job, for BUILD_JOB and TEST_JOB alike */
	size_t bucket;             /* the GitLab build job it belongs to */
};

/*
 * A GitLab build job: the jobs of one backend on one platform that share
 * image, tags and target, as one explicit job or one parallel:matrix job.
 */
struct bucket {
	const char *name;          /* build-cuda-linux-x86_64, or build-<job id> for a job of its own */
	const char *suffix;        /* the name without "build-" */
	const struct wm_backend *backend;
	const struct wm_platform *platform;
	const struct wm_rule *include;  /* a job of its own with an include's build settings (env too), else NULL */
	const struct wm_build *build;   /* the build settings of its jobs */
	size_t *jobs;
	size_t n, nsmoke;
};

struct gl {
	struct wm_yb b;
	const struct wm_matrix *m;
	const struct wm_catalog *cat;
	struct wm_error *err;
	const bool *patched;
	struct wm_doc skel;
	struct ljob *jobs;
	size_t njobs;
	struct bucket *buckets;
	size_t nbuckets;
	bool toolchain[WM_OS_COUNT];   /* a build job on the OS sets a Rust toolchain or components */
	bool zig;                      /* a Linux build job links with zig */
};

/* What of a template file's own header embed_template leaves out. */
enum embed_header { EMBED_WITHOUT_TITLE, EMBED_WITHOUT_COMMENTS };
static const char *embed_template(struct gl *g, const char *text, const char *name, enum embed_header header);
struct dep;
static void add_check_dep(struct gl *g, struct dep *deps, size_t *n);

static struct wm_y *piece(struct gl *g, const char *name)
{
	return wm_emit_piece(&g->b, &g->skel, name, g->err);
}

static struct wm_y *str(struct gl *g, const char *s)
{
	return wm_yaml_str(&g->b, s);
}

/*
 * The one writer of a GitLab variable: GitLab expands `$NAME` and `${NAME}` in `variables:` (the
 * server and the runner both), and reads `$$` as one '$'; so every '$' of the value is written
 * `$$`, and the job's environment gets the value byte for byte as the matrix file, the project's
 * files or the catalog give it.  `block` writes it as a literal block (lines of a list).  Scripts
 * need no such writer: GitLab hands `script:` lines to the shell as they are, and no value of the
 * matrix is written into one (the setup lines are the matrix's own shell code).
 */
static void set_var(struct gl *g, struct wm_y *vars, const char *name, const char *value, bool block)
{
	struct wm_buf out = WM_BUF_INIT;
	const char *kept = value;
	if (!value) {
		g->b.oom = true;  /* an allocation of the caller's failed */
		return;
	}
	if (strchr(value, '$')) {
		for (const char *s = value; *s; s++) {
			if (*s == '$')
				wm_buf_putc(&out, '$');
			wm_buf_putc(&out, *s);
		}
		kept = wm_emit_keep(&g->b, &out);
	}
	wm_yaml_set(&g->b, vars, name, block ? wm_yaml_literal(&g->b, kept ? kept : "") : str(g, kept ? kept : ""));
}

static const char *patch_path(struct gl *g, const struct wm_backend *b)
{
	return wm_arena_printf(g->b.arena, WM_PATCH_PATH, b->id);
}

/*
 * The CPython that runs the tools of a job building for another interpreter (maturin, for a
 * PyPy wheel in a Linux image: python.h) and of the sdist jobs: every Linux image we build
 * in has it (the pypa images' /usr/local/bin/python3.12, rust-cross's deadsnakes python3.12).
 */
static const char tool_python[] = "3.12";

/*
 * The newest CPython the cross images of GitLab's Linux cross jobs carry for the host, as python3.X
 * (platforms.yaml's ghcr.io/rust-cross/manylinux_2_28-cross: deadsnakes' 3.9 and 3.11 to 3.14 and
 * Ubuntu 22.04's 3.10, at rust-cross/manylinux-cross@6b05ad8, Dockerfile.j2).  A cross job for a
 * newer one runs maturin with tool_python and builds for python3.X from maturin's own tables of the
 * target's configuration, as for PyPy (`maturin list-python --target armv7-unknown-linux-gnueabihf`,
 * maturin 1.16.0: CPython 3.7 to 3.15): its own python3.X is not there to run it.
 */
#define CROSS_HOST_PYTHON_MAX 14

/* Whether the interpreter `python` ("3.15", not free-threaded) is newer than a cross image's host ones. */
static bool past_cross_hosts(const char *python)
{
	unsigned long minor;
	char *end;
	if (strncmp(python, "3.", 2) != 0)
		return false;
	minor = strtoul(python + 2, &end, 10);
	return !*end && minor > CROSS_HOST_PYTHON_MAX;
}

/* On GitLab, macos-x86_64 is cross-built on Apple silicon: no smoke test there. */
static bool gitlab_cross(const struct wm_platform *p)
{
	return p->cross || p->gitlab_cross;
}

/* Strategy index: every backend but the default is served from its own index by GitLab Pages. */
static bool on_pages(const struct wm_matrix *m, const struct wm_backend *b)
{
	return m->strategy == WM_STRATEGY_INDEX && !b->is_default;
}

/* ---- the jobs and their grouping ------------------------------------------------- */

static int collect(struct gl *g)
{
	struct wm_arena *a = g->b.arena;
	struct wm_expand *it = NULL;
	struct wm_job job;
	int ret;

	if (!(g->jobs = wm_arena_array(a, g->m->njobs + 1, sizeof(*g->jobs))))
		return WM_ENOMEM;
	if ((ret = wm_expand_new(&it, g->m, WM_EXPAND_JOBS)) < 0)
		return ret;
	while (wm_expand_next(it, &job) > 0 && g->njobs < g->m->njobs) {
		struct ljob *j;
		if (wm_matrix_output_excludes(&g->m->gitlab, job.platform))
			continue;  /* left out of GitLab alone: GitHub's workflow keeps it */
		j = &g->jobs[g->njobs++];
		j->id = wm_arena_strdup(a, job.id);
		j->backend = job.backend;
		j->platform = job.platform;
		/*
		 * uv's name for PyPy is its interpreter's: pypy3.11; GraalPy's likewise, graalpy3.12, the
		 * executable uv installs (astral-sh/uv 26a9dd4 crates/uv-python/src/installation.rs,
		 * executable_name_minor; implementation.rs, executable_install_name)
		 */
		j->python = job.python->pypy || job.python->graalpy ? job.python->interpreter :
			wm_python_interpreter(job.python, job.platform) + strlen("python");
		j->interpreter = job.python->pypy || job.python->graalpy ? job.python->interpreter : NULL;
		j->pypy = job.python->pypy ? job.python->minor : 0;
		j->graalpy = job.python->graalpy;
		j->include = job.include;
		j->build = job.build;
		/* a musllinux wheel is tested in its test job, which runs in the platform's musllinux image */
		j->smoke = (job.backend->smoke_os >> job.platform->os & 1) && (wm_emit_runnable(job.platform,
			gitlab_cross(job.platform)) || wm_emit_in_image(&job, gitlab_cross(job.platform)));
		{
			const struct wm_test *t = job.backend->test;
			const char *why;
			j->tests = wm_emit_tests(&job, t && t->tags.n, gitlab_cross(job.platform), &why);
			/* a backend with test tags: its wheels are tested on that runner, imported there too */
			j->smoke |= j->tests == WM_TESTS_TEST_JOB;
		}
		/* a Linux image's PyPy is its own (python.h): no other can run the smoke test or the tests there */
		if (((j->pypy && j->pypy != WM_PYPY_IMAGES) || j->graalpy) && job.platform->os == WM_OS_LINUX) {
			j->smoke = false;
			if (j->tests != WM_TESTS_NONE)
				j->tests = WM_TESTS_SKIPPED;
		}
		if (!j->id)
			g->b.oom = true;
	}
	wm_expand_free(it);
	return 0;
}

/* A platform GitLab's hosted runners cannot build needs runner tags from the matrix file. */
static void check_runners(struct gl *g)
{
	const struct wm_doc *doc = wm_matrix_doc(g->m);
	for (size_t i = 0; i < g->njobs; i++) {
		const struct ljob *j = &g->jobs[i];
		struct wm_loc loc = j->include ? j->include->loc : j->platform->loc;
		bool seen = false;
		if (j->platform->gitlab_hosted)
			continue;
		for (size_t k = 0; k < i && !seen; k++) {
			struct wm_loc o = g->jobs[k].include ? g->jobs[k].include->loc : g->jobs[k].platform->loc;
			seen = !g->jobs[k].platform->gitlab_hosted && o.line == loc.line && o.column == loc.column;
		}
		if (seen)
			continue;
		if (j->include)
			wm_error_add(g->err, WM_EINVALID, WM_SEV_ERROR, doc->file, doc->text, doc->len, loc.line, loc.column, 0,
				"GitLab's hosted runners cannot build %s: give the include the tags of a runner that can "
				"(tags: [...] in the rule), or leave the platform out of GitLab alone "
				"(ci: {gitlab: {exclude-platforms: [%s]}})", j->platform->id, j->platform->id);
		else
			wm_error_add(g->err, WM_EINVALID, WM_SEV_ERROR, doc->file, doc->text, doc->len, loc.line, loc.column,
				(unsigned)strlen(j->platform->id),
				"GitLab's hosted runners cannot build %s: give the platform the tags of a runner that can "
				"(%s: {tags: [...]}), or leave it out of GitLab alone (ci: {gitlab: {exclude-platforms: [%s]}})",
				j->platform->id, j->platform->id, j->platform->id);
	}
}

static bool same_list(const struct wm_strlist *a, const struct wm_strlist *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			return false;
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Two platforms (an include's copy and the matrix's) build the same way on GitLab. */
static bool same_spec(const struct wm_platform *p, const struct wm_platform *q)
{
	return p == q || (strcmp(p->id, q->id) == 0 && same_str(p->gitlab_image, q->gitlab_image) &&
		same_list(&p->gitlab_tags, &q->gitlab_tags) && same_str(p->target, q->target) &&
		same_str(p->manylinux, q->manylinux) && gitlab_cross(p) == gitlab_cross(q));
}

static struct bucket *find_bucket(struct gl *g, const char *name)
{
	for (size_t i = 0; i < g->nbuckets; i++)
		if (strcmp(g->buckets[i].name, name) == 0)
			return &g->buckets[i];
	return NULL;
}

static struct bucket *new_bucket(struct gl *g, const char *name, const struct ljob *j)
{
	struct bucket *k = &g->buckets[g->nbuckets++];
	k->name = name;
	k->suffix = name ? name + strlen("build-") : NULL;
	k->backend = j->backend;
	k->platform = j->platform;
	k->build = j->build;
	if (!name)
		g->b.oom = true;
	return k;
}

/*
 * Per backend (file order), each job joins the build job of its backend and
 * platform; one whose platform an include changed, or that carries an
 * include's env, gets a job of its own, build-<job id>.  Then each build
 * job gets the list of its jobs, in list's order.
 */
static int group(struct gl *g)
{
	struct wm_arena *a = g->b.arena;
	if (!(g->buckets = wm_arena_array(a, g->njobs + 1, sizeof(*g->buckets))))
		return WM_ENOMEM;
	for (size_t b = 0; b < g->m->nbackends; b++) {
		size_t first = g->nbuckets;
		for (size_t i = 0; i < g->njobs && !g->b.oom; i++) {
			struct ljob *j = &g->jobs[i];
			struct bucket *k = NULL;
			/* an include's own settings (its env among them) make a job of their own */
			bool own_env = j->include && j->include->settings;
			const char *name;
			if (j->backend != g->m->backends[b])
				continue;
			for (size_t n = first; n < g->nbuckets && !own_env && !k; n++)
				if (!g->buckets[n].include && strcmp(g->buckets[n].platform->id, j->platform->id) == 0 &&
						same_spec(g->buckets[n].platform, j->platform))
					k = &g->buckets[n];
			if (!k) {
				name = wm_arena_printf(a, "build-%s-%s", j->backend->id, j->platform->id);
				if (own_env || (name && find_bucket(g, name)))
					name = wm_arena_printf(a, "build-%s", j->id);
				k = new_bucket(g, name, j);
				if (own_env)
					k->include = j->include;
			}
			j->bucket = (size_t)(k - g->buckets);
			k->n++;
			k->nsmoke += j->smoke;
		}
	}
	for (size_t n = 0; n < g->nbuckets && !g->b.oom; n++) {
		if (!(g->buckets[n].jobs = wm_arena_array(a, g->buckets[n].n, sizeof(size_t))))
			g->b.oom = true;
		g->buckets[n].n = 0;
	}
	for (size_t i = 0; i < g->njobs && !g->b.oom; i++) {
		struct bucket *k = &g->buckets[g->jobs[i].bucket];
		k->jobs[k->n++] = i;
	}
	for (size_t n = 0; n < g->nbuckets; n++) {
		const struct wm_build *bd = g->buckets[n].build;
		g->toolchain[g->buckets[n].platform->os] |= (bd && (bd->rust_toolchain || bd->rustup_components.n)) ||
			g->buckets[n].platform->os == WM_OS_EMSCRIPTEN;  /* the Pyodide release's toolchain */
		g->zig |= bd && bd->zig;
	}
	return g->b.oom ? WM_ENOMEM : 0;
}

/* ---- pieces of jobs ----------------------------------------------------------------- */

static const char *shell_of(enum wm_os os)
{
	return os == WM_OS_WINDOWS ? "powershell" : "sh";
}

/* Appends every item of the skeleton's script piece `name` (a list of lines) to `list`. */
static void add_lines(struct gl *g, struct wm_y *list, const char *name)
{
	struct wm_y *lines = piece(g, name);
	for (size_t i = 0; lines && i < lines->n; i++)
		wm_yaml_push(&g->b, list, lines->items[i]);
}

/* The before_script of the build templates: (Windows) the scratch directory, the patch, Rust, and
 * maturin (Linux) or Python (elsewhere). */
static struct wm_y *base_before(struct gl *g, enum wm_os os)
{
	struct wm_y *list = wm_yaml_seq(&g->b);
	char name[32];
	if (os == WM_OS_WINDOWS)
		add_lines(g, list, "temp-powershell");
	snprintf(name, sizeof(name), "patch-%s", shell_of(os));
	add_lines(g, list, name);
	snprintf(name, sizeof(name), "rust-%s", shell_of(os));
	add_lines(g, list, name);
	if (g->toolchain[os] && list && list->n) {
		/* before the rust piece's last line, which adds the target to the toolchain then the default */
		struct wm_y *target = list->items[--list->n];
		snprintf(name, sizeof(name), "rust-toolchain-%s", shell_of(os));
		add_lines(g, list, name);
		wm_yaml_push(&g->b, list, target);
	}
	/* Emscripten's image is the CPython of the Pyodide release: maturin goes into it, as on Linux */
	if (os == WM_OS_LINUX || os == WM_OS_EMSCRIPTEN)
		add_lines(g, list, "maturin-sh");
	if (os == WM_OS_LINUX && g->zig)
		add_lines(g, list, "zig-sh");
	if (os != WM_OS_LINUX && os != WM_OS_EMSCRIPTEN) {
		snprintf(name, sizeof(name), "python-%s", shell_of(os));
		add_lines(g, list, name);
	}
	return list;
}

/* The backend's raw `setup.gitlab.<os>` lines, its toolkits' recipes and (Linux) its before-script-linux. */
static size_t add_backend_lines(struct gl *g, struct wm_y *list, const struct wm_backend *b, enum wm_os os)
{
	const struct wm_node *setup = wm_yaml_find(wm_yaml_find(b->setup, "gitlab"), wm_catalog_os_name(os));
	size_t n = 0;
	for (size_t i = 0; setup && i < setup->n; i++, n++)
		wm_yaml_push(&g->b, list, wm_yaml_copy(&g->b, setup->items[i]));
	for (size_t t = 0; t < b->ntoolkits; t++) {
		const struct wm_node *script = wm_emit_recipe(&b->toolkits[t], "gitlab", os, "script");
		for (size_t i = 0; script && i < script->n; i++, n++) {
			struct wm_y *line = wm_yaml_copy(&g->b, script->items[i]);
			wm_emit_recipe_subst(&g->b, line, &b->toolkits[t]);
			wm_yaml_push(&g->b, list, line);
		}
	}
	if (os == WM_OS_LINUX && b->before_script_linux) {
		wm_yaml_push(&g->b, list, wm_yaml_literal(&g->b, b->before_script_linux));
		n++;
	}
	return n;
}

static bool os_used(const struct gl *g, enum wm_os os, bool smoke)
{
	for (size_t i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].platform->os == os && (!smoke || g->buckets[i].nsmoke))
			return true;
	return false;
}

/* Whether some build job's backend is served by GitLab Pages (strategy index). */
static bool any_pages(const struct gl *g)
{
	for (size_t i = 0; i < g->nbuckets; i++)
		if (on_pages(g->m, g->buckets[i].backend))
			return true;
	return false;
}

/* Whether some build job's backend has tests (`test:`): the test templates run them. */
static bool any_tests(const struct gl *g)
{
	for (size_t i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].backend->test)
			return true;
	return false;
}

/* The hidden templates, those that some job extends. */
static void templates(struct gl *g, struct wm_y *root)
{
	static const char *const test_piece[WM_OS_COUNT] = { "test-sh", "test-sh", "test-powershell", "test-sh" };
	bool any_sdist = g->nbuckets > 0;
	for (int os = 0; os < WM_OS_COUNT; os++) {
		char name[64];
		struct wm_y *job;
		if (!os_used(g, (enum wm_os)os, false))
			continue;
		snprintf(name, sizeof(name), "build-%s", wm_catalog_os_name((enum wm_os)os));
		job = piece(g, name);
		wm_yaml_set_before(&g->b, job, "script", "before_script", base_before(g, (enum wm_os)os));
		snprintf(name, sizeof(name), ".wheelmatrix-build-%s", wm_catalog_os_name((enum wm_os)os));
		wm_yaml_set(&g->b, root, name, job);
	}
	for (int os = 0; os < WM_OS_COUNT; os++) {
		char name[64];
		struct wm_y *job;
		if (!os_used(g, (enum wm_os)os, true))
			continue;
		job = piece(g, test_piece[os]);
		if (any_tests(g)) {
			struct wm_y *script = wm_yaml_seq(&g->b), *old = wm_yaml_get(job, "script");
			snprintf(name, sizeof(name), "tests-checkout-%s", shell_of((enum wm_os)os));
			add_lines(g, script, name);
			for (size_t i = 0; old && i < old->n; i++)
				wm_yaml_push(&g->b, script, old->items[i]);
			snprintf(name, sizeof(name), "tests-%s", shell_of((enum wm_os)os));
			add_lines(g, script, name);
			wm_yaml_set(&g->b, job, "script", script);
		}
		if (os != WM_OS_LINUX) {
			struct wm_y *list = wm_yaml_seq(&g->b);
			snprintf(name, sizeof(name), "python-%s", shell_of((enum wm_os)os));
			add_lines(g, list, name);
			wm_yaml_set_before(&g->b, job, "script", "before_script", list);
		}
		snprintf(name, sizeof(name), ".wheelmatrix-test-%s", wm_catalog_os_name((enum wm_os)os));
		wm_yaml_set(&g->b, root, name, job);
	}
	if (any_sdist) {
		struct wm_y *job = piece(g, "sdist");
		struct wm_y *list = wm_yaml_seq(&g->b);
		add_lines(g, list, "patch-sh");
		add_lines(g, list, "rust-sh");
		add_lines(g, list, "maturin-sh");
		wm_yaml_set_before(&g->b, job, "script", "before_script", list);
		wm_yaml_set(&g->b, root, ".wheelmatrix-sdist", job);
		if (any_pages(g)) {
			job = wm_yaml_set(&g->b, root, ".wheelmatrix-sdist-index", piece(g, "sdist-index"));
			wm_yaml_set_before(&g->b, job, "script", "extends", str(g, ".wheelmatrix-sdist"));
		}
		job = piece(g, "publish");
		wm_yaml_set_before(&g->b, job, "script", "before_script", wm_yaml_seq(&g->b));
		if (job) {
			/* the version check first: the script piece is the upload */
			struct wm_y *before = wm_yaml_get(job, "before_script"), *script = wm_yaml_get(job, "script");
			wm_yaml_push(&g->b, before, wm_yaml_literal(&g->b, wm_emit_check_version(&g->b)));
			/* the hashed lock of what it installs, whole: pip reads its comments as such */
			for (size_t i = 0; script && i < script->n; i++)
				if (script->items[i]->type == WM_NODE_SCALAR && strstr(script->items[i]->text, "@publish-lock.txt@\n"))
					script->items[i] = wm_yaml_literal(&g->b, embed_template(g, script->items[i]->text,
						"publish-lock.txt", EMBED_WITHOUT_COMMENTS));
		}
		wm_yaml_set(&g->b, root, ".wheelmatrix-publish", job);
	}
}

static const char *compatibility(struct gl *g, const struct wm_platform *p)
{
	if (strcmp(p->family, "musllinux") == 0)
		return wm_arena_printf(g->b.arena, "musllinux_%s", p->manylinux);
	return wm_arena_printf(g->b.arena, strchr(p->manylinux, '_') ? "manylinux_%s" : "manylinux%s", p->manylinux);
}

static void set_tags(struct gl *g, struct wm_y *job, const struct wm_platform *p)
{
	struct wm_y *tags = wm_yaml_set(&g->b, job, "tags", wm_yaml_seq(&g->b));
	if (tags)
		tags->style = WM_Y_FLOW;
	for (size_t i = 0; i < p->gitlab_tags.n; i++)
		wm_yaml_push(&g->b, tags, str(g, p->gitlab_tags.items[i]));
}

/* A backend's test runner tags (`test.tags`), for its test jobs. */
static void set_test_tags(struct gl *g, struct wm_y *job, const struct wm_test *t)
{
	struct wm_y *tags = wm_yaml_set(&g->b, job, "tags", wm_yaml_seq(&g->b));
	if (tags)
		tags->style = WM_Y_FLOW;
	for (size_t i = 0; i < t->tags.n; i++)
		wm_yaml_push(&g->b, tags, str(g, t->tags.items[i]));
}

/*
 * The variables of the entries: WM_JOB_ID and WM_PYTHON, and a PyPy job's WM_INTERPRETER; in a
 * test job (`test`) of a backend with tests, WM_TEST: whether the entry runs them.  A PyPy build
 * on Linux is the tool CPython's maturin given -i pypy3.N (WM_TARGET_PYTHON), which takes the
 * image's PyPy where there is one and its own tables of PyPy's configuration where not: most
 * images have none.  So is a Linux cross build for a CPython the cross images do not carry.
 */
static struct wm_y *entry(struct gl *g, const struct ljob *j, bool test)
{
	struct wm_y *e = wm_yaml_map(&g->b);
	set_var(g, e, "WM_JOB_ID", j->id, false);
	if (!test && (j->pypy || j->graalpy) && j->platform->os == WM_OS_LINUX) {
		set_var(g, e, "WM_PYTHON", tool_python, false);
		set_var(g, e, "WM_TARGET_PYTHON", j->interpreter, false);
		return e;
	}
	/*
	 * GraalPy's extension suffix names its architecture (.graalpy242-311-native-aarch64-darwin.so;
	 * graalpython PythonContext.getSoAbi): macOS x86_64, built on the arm64 runner, installs none,
	 * and maturin, finding no graalpy3.N, takes its macOS table, whose suffix and tag are x86_64's
	 * (maturin 1.16.0 resolver.rs find_specified_interpreters, config.rs lookup_one).
	 */
	if (!test && j->graalpy && j->platform->os == WM_OS_MACOS && gitlab_cross(j->platform)) {
		set_var(g, e, "WM_PYTHON", tool_python, false);
		set_var(g, e, "WM_INTERPRETER", j->interpreter, false);
		return e;
	}
	if (!test && j->platform->os == WM_OS_LINUX && gitlab_cross(j->platform) && past_cross_hosts(j->python)) {
		set_var(g, e, "WM_PYTHON", tool_python, false);
		set_var(g, e, "WM_TARGET_PYTHON", wm_arena_printf(g->b.arena, "python%s", j->python), false);
		return e;
	}
	/* uv installs the runner's own architecture unless asked for another: Windows x86's is 32-bit */
	if (j->platform->os == WM_OS_WINDOWS && strcmp(j->platform->arch, "x86") == 0 && !j->pypy)
		set_var(g, e, "WM_PYTHON", wm_arena_printf(g->b.arena, "cpython-%s-windows-x86", j->python), false);
	else
		set_var(g, e, "WM_PYTHON", j->python, false);
	if (j->interpreter)
		set_var(g, e, "WM_INTERPRETER", j->interpreter, false);
	if (test && j->backend->test)
		set_var(g, e, "WM_TEST", j->tests == WM_TESTS_BUILD_JOB || j->tests == WM_TESTS_TEST_JOB ? "true" : "false",
			false);
	return e;
}

/*
 * The entries of a job: as job variables when there is one (an explicit
 * job), else a `parallel` mapping with one permutation per entry, which
 * the caller places after the variables.
 */
static struct wm_y *add_entries(struct gl *g, struct wm_y *vars, const struct bucket *k, bool smoke_only)
{
	size_t n = smoke_only ? k->nsmoke : k->n;
	struct wm_y *parallel, *matrix;
	if (n == 1) {
		for (size_t i = 0; i < k->n; i++)
			if (!smoke_only || g->jobs[k->jobs[i]].smoke) {
				struct wm_y *e = entry(g, &g->jobs[k->jobs[i]], smoke_only);
				for (size_t x = 0; e && x + 1 < e->n; x += 2)
					wm_yaml_set(&g->b, vars, e->items[x]->text, e->items[x + 1]);
			}
		return NULL;
	}
	parallel = wm_yaml_map(&g->b);
	matrix = wm_yaml_set(&g->b, parallel, "matrix", wm_yaml_seq(&g->b));
	for (size_t i = 0; i < k->n; i++)
		if (!smoke_only || g->jobs[k->jobs[i]].smoke)
			wm_yaml_push(&g->b, matrix, entry(g, &g->jobs[k->jobs[i]], smoke_only));
	return parallel;
}

/* Variables first in a job's own order: the entry (explicit jobs), then what the job sets. */
static struct wm_y *vars_of(struct gl *g, struct wm_y *job)
{
	return wm_yaml_set(&g->b, job, "variables", wm_yaml_map(&g->b));
}

/* WM_PROJECT_DIR, where maturin runs, for a pyproject.toml below the repository root. */
static void add_project_dir(struct gl *g, struct wm_y *vars)
{
	const char *dir = wm_emit_project_dir(g->b.arena, g->m);
	if (dir && *dir)
		set_var(g, vars, "WM_PROJECT_DIR", dir, false);
}

/*
 * The build settings of a build job (struct wm_build): maturin's arguments before --out where they
 * are not --release alone, the Rust toolchain and components, zig's pinned version; then the
 * environment of the platform, the backend, its per-platform entries and an include, merged.
 */
static void add_build_vars(struct gl *g, struct wm_y *vars, const struct wm_build *bd)
{
	if (!bd)
		return;
	if (strcmp(bd->args_text, "--release") != 0)
		set_var(g, vars, "WM_BUILD_ARGS", bd->args_text, false);
	if (bd->rust_toolchain)
		set_var(g, vars, "WM_RUST_TOOLCHAIN", bd->rust_toolchain, false);
	if (bd->rustup_components.n) {
		struct wm_buf out = WM_BUF_INIT;
		for (size_t i = 0; i < bd->rustup_components.n; i++)
			wm_buf_printf(&out, "%s%s", i ? " " : "", bd->rustup_components.items[i]);
		set_var(g, vars, "WM_RUSTUP_COMPONENTS", wm_emit_keep(&g->b, &out), false);
	}
	if (bd->zig)
		set_var(g, vars, "WM_ZIGLANG", wm_catalog_tool(g->cat, "ziglang"), false);
	for (size_t i = 0; i < bd->nenv; i++)
		set_var(g, vars, bd->env[i].name, bd->env[i].value, false);
}

/*
 * `needs` for a job in a later stage, when the instances it names (after
 * matrix expansion) are at most GitLab's 50; past that the job relies on the
 * stage order, and `dependencies:` picks the artifacts it downloads.
 */
struct dep {
	const char *job;
	size_t instances;
	bool artifacts;
};

static void add_needs(struct gl *g, struct wm_y *job, const struct dep *deps, size_t n)
{
	struct wm_y *list;
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += deps[i].instances;
	if (total <= WM_GITLAB_MAX_NEEDS) {
		list = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
		for (size_t i = 0; i < n; i++) {
			struct wm_y *need = wm_yaml_push(&g->b, list, wm_yaml_map(&g->b));
			wm_yaml_set(&g->b, need, "job", str(g, deps[i].job));
			wm_yaml_set(&g->b, need, "artifacts", wm_yaml_bool(&g->b, deps[i].artifacts));
		}
		return;
	}
	list = wm_yaml_set(&g->b, job, "dependencies", wm_yaml_seq(&g->b));
	for (size_t i = 0; i < n; i++)
		if (deps[i].artifacts)
			wm_yaml_push(&g->b, list, str(g, deps[i].job));
}

static const char *extends_build(struct gl *g, struct wm_y *root, const struct bucket *k)
{
	enum wm_os os = k->platform->os;
	const char *base = wm_arena_printf(g->b.arena, ".wheelmatrix-build-%s", wm_catalog_os_name(os));
	const char *name = wm_arena_printf(g->b.arena, ".wheelmatrix-build-%s-%s", k->backend->id, wm_catalog_os_name(os));
	struct wm_y *list, *job;
	if (!base || !name) {
		g->b.oom = true;
		return base;
	}
	if (wm_yaml_get(root, name))
		return name;
	list = base_before(g, os);
	if (add_backend_lines(g, list, k->backend, os) == 0)
		return base;
	job = wm_yaml_set(&g->b, root, name, wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "extends", str(g, base));
	wm_yaml_set(&g->b, job, "before_script", list);
	return name;
}

static void build_job(struct gl *g, struct wm_y *root, const struct bucket *k)
{
	const struct wm_platform *p = k->platform;
	const struct wm_backend *b = k->backend;
	const char *exclude = p->os == WM_OS_MACOS ? NULL : wm_emit_repair_exclude(&g->b, b, p->os);
	const char *extends = extends_build(g, root, k);
	struct wm_y *job = wm_yaml_set(&g->b, root, k->name, wm_yaml_map(&g->b)), *vars, *parallel;

	wm_yaml_set(&g->b, job, "extends", str(g, extends));
	if (p->gitlab_image)
		wm_yaml_set(&g->b, job, "image", str(g, p->os == WM_OS_LINUX ? wm_emit_build_image(&g->b, g->cat, b, p) :
			p->gitlab_image));
	set_tags(g, job, p);
	vars = vars_of(g, job);
	parallel = add_entries(g, vars, k, false);
	set_var(g, vars, "WM_TARGET", p->target, false);
	if (p->deployment_target)
		set_var(g, vars, "MACOSX_DEPLOYMENT_TARGET", p->deployment_target, false);
	if (p->os == WM_OS_LINUX) {
		set_var(g, vars, "WM_COMPATIBILITY", compatibility(g, p), false);
		set_var(g, vars, "WM_SCCACHE", wm_catalog_tool(g->cat, "sccache"), false);
	}
	set_var(g, vars, "WM_MATURIN", g->m->maturin, false);
	add_project_dir(g, vars);
	if (p->os == WM_OS_EMSCRIPTEN) {
		/* the Pyodide release (build-emscripten), its toolchain unless the matrix names another */
		const char *names[WM_EMIT_PYODIDE_NVARS], *values[WM_EMIT_PYODIDE_NVARS];
		wm_emit_pyodide_vars(g->cat, p, names, values);
		for (size_t i = 0; i < WM_EMIT_PYODIDE_NVARS; i++)
			set_var(g, vars, names[i], values[i], false);
		set_var(g, vars, "MATURIN_PYEMSCRIPTEN_PLATFORM_VERSION", p->pyodide_abi, false);
		if (!k->build || !k->build->rust_toolchain)
			set_var(g, vars, "WM_RUST_TOOLCHAIN", p->pyodide_rust, false);
	} else if (p->os != WM_OS_LINUX)
		set_var(g, vars, "WM_UV", wm_catalog_tool(g->cat, "uv"), false);
	if (wm_emit_has_patch(g->m, g->patched, b))
		set_var(g, vars, "WM_PATCH", patch_path(g, b), false);
	if (exclude) {
		set_var(g, vars, "WM_REPAIR_EXCLUDE", exclude, false);
		if (p->os == WM_OS_LINUX) {
			const char *libs = k->nsmoke ? wm_emit_smoke_libraries(&g->b, b, p->os) : NULL;
			set_var(g, vars, "WM_AUDITWHEEL", wm_catalog_tool(g->cat, "auditwheel"), false);
			if (libs)
				set_var(g, vars, "WM_SMOKE_LIBRARIES", libs, false);
		} else
			set_var(g, vars, "WM_DELVEWHEEL", wm_catalog_tool(g->cat, "delvewheel"), false);
	}
	add_build_vars(g, vars, k->build);
	if (parallel)
		wm_yaml_set(&g->b, job, "parallel", parallel);
}

static void test_job(struct gl *g, struct wm_y *root, const struct bucket *k)
{
	const struct wm_platform *p = k->platform;
	struct wm_y *job, *vars, *par;
	struct dep dep = { k->name, k->n, true };
	const char *name = wm_arena_printf(g->b.arena, "test-%s", k->suffix), *exclude;
	const struct wm_test *t = k->backend->test;

	if (!name) {
		g->b.oom = true;
		return;
	}
	job = wm_yaml_set(&g->b, root, name, wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "extends", wm_yaml_strf(&g->b, ".wheelmatrix-test-%s", wm_catalog_os_name(p->os)));
	if (p->gitlab_image)
		wm_yaml_set(&g->b, job, "image", str(g, p->gitlab_image));
	if (t && t->tags.n)
		set_test_tags(g, job, t);
	else
		set_tags(g, job, p);
	vars = vars_of(g, job);
	par = add_entries(g, vars, k, true);
	set_var(g, vars, "WM_MODULE", wm_emit_module(g->b.arena, g->m, k->backend), false);
	if (p->os == WM_OS_LINUX && (exclude = wm_emit_repair_exclude(&g->b, k->backend, p->os)) != NULL) {
		set_var(g, vars, "WM_REPAIR_EXCLUDE", exclude, false);
		/* the build's copies stand in for a driver the test runner of a backend's own has */
		if (wm_emit_smoke_libraries(&g->b, k->backend, p->os) && !(t && t->tags.n))
			set_var(g, vars, "WM_LIBRARY_PATH", "smoke-libraries", false);
	}
	if (t) {
		struct wm_buf lines = WM_BUF_INIT;
		set_var(g, vars, "WM_TEST_COMMAND", t->command, false);
		for (size_t i = 0; i < t->requires.n; i++)
			wm_buf_printf(&lines, "%s%s", i ? "\n" : "", t->requires.items[i]);
		if (t->requires.n)
			set_var(g, vars, "WM_TEST_REQUIRES", wm_emit_keep(&g->b, &lines), false);
		for (size_t i = 0; i < t->extras.n; i++)
			wm_buf_printf(&lines, "%s%s", i ? "," : "", t->extras.items[i]);
		if (t->extras.n)
			set_var(g, vars, "WM_TEST_EXTRAS", wm_emit_keep(&g->b, &lines), false);
		for (size_t i = 0; i < t->sources.n; i++)
			wm_buf_printf(&lines, "%s%s", i ? "\n" : "", t->sources.items[i]);
		if (t->sources.n)
			set_var(g, vars, "WM_TEST_SOURCES", wm_emit_keep(&g->b, &lines), false);
	}
	if (p->os != WM_OS_LINUX)
		set_var(g, vars, "WM_UV", wm_catalog_tool(g->cat, "uv"), false);
	/* the build's environment: the tests may read it */
	for (size_t i = 0; k->build && i < k->build->nenv; i++)
		set_var(g, vars, k->build->env[i].name, k->build->env[i].value, false);
	if (par)
		wm_yaml_set(&g->b, job, "parallel", par);
	add_needs(g, job, &dep, 1);
}

static void sdist_job(struct gl *g, struct wm_y *root, const struct wm_backend *b)
{
	const struct wm_platform *p = wm_catalog_platform(g->cat, "linux-x86_64");
	struct wm_y *job = wm_yaml_set(&g->b, root, wm_arena_printf(g->b.arena, "sdist-%s", b->id), wm_yaml_map(&g->b));
	struct wm_y *vars;
	wm_yaml_set(&g->b, job, "extends", str(g, on_pages(g->m, b) ? ".wheelmatrix-sdist-index" : ".wheelmatrix-sdist"));
	if (p) {
		wm_yaml_set(&g->b, job, "image", str(g, p->gitlab_image));
		set_tags(g, job, p);
	}
	vars = vars_of(g, job);
	set_var(g, vars, "WM_BACKEND", b->id, false);
	set_var(g, vars, "WM_TARGET", p ? p->target : "x86_64-unknown-linux-gnu", false);
	set_var(g, vars, "WM_MATURIN", g->m->maturin, false);
	set_var(g, vars, "WM_PYTHON", tool_python, false);
	add_project_dir(g, vars);
	if (wm_emit_has_patch(g->m, g->patched, b))
		set_var(g, vars, "WM_PATCH", patch_path(g, b), false);
}

/* A publish job of distribution `dist`, without its needs. */
static struct wm_y *publish_base(struct gl *g, struct wm_y *root, const char *name, const char *dist)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job, *env, *vars;

	job = wm_yaml_set(&g->b, root, name, wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "extends", str(g, ".wheelmatrix-publish"));
	env = wm_yaml_set(&g->b, job, "environment", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, env, "name", str(g, m->environment));
	wm_yaml_set(&g->b, env, "url", wm_yaml_strf(&g->b, "https://pypi.org/p/%s", dist));
	vars = vars_of(g, job);
	set_var(g, vars, "WM_DIST", dist, false);
	set_var(g, vars, "WM_PYPROJECT", m->pyproject, false);
	set_var(g, vars, "WM_MANIFEST", m->manifest, false);
	/* trusted publishing: a token for PyPI, and one for Sigstore that signs the PEP 740 attestations */
	if (m->trusted) {
		struct wm_y *tokens = wm_yaml_set(&g->b, job, "id_tokens", wm_yaml_map(&g->b));
		wm_yaml_set(&g->b, wm_yaml_set(&g->b, tokens, "PYPI_ID_TOKEN", wm_yaml_map(&g->b)), "aud", str(g, "pypi"));
		wm_yaml_set(&g->b, wm_yaml_set(&g->b, tokens, "SIGSTORE_ID_TOKEN", wm_yaml_map(&g->b)), "aud", str(g, "sigstore"));
	}
	return job;
}

static void publish_job(struct gl *g, struct wm_y *root, const struct wm_backend *b)
{
	struct wm_y *job;
	struct dep *deps = wm_arena_array(g->b.arena, 2 * g->nbuckets + 3, sizeof(*deps));
	size_t n = 0;

	if (!deps) {
		g->b.oom = true;
		return;
	}
	job = publish_base(g, root, wm_arena_printf(g->b.arena, "publish-%s", b->id), b->dist);
	add_check_dep(g, deps, &n);
	for (size_t i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].backend == b)
			deps[n++] = (struct dep){ g->buckets[i].name, g->buckets[i].n, true };
	for (size_t i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].backend == b && g->buckets[i].nsmoke) {
			const char *name = wm_arena_printf(g->b.arena, "test-%s", g->buckets[i].suffix);
			deps[n++] = (struct dep){ name, g->buckets[i].nsmoke, false };
		}
	deps[n++] = (struct dep){ wm_arena_printf(g->b.arena, "sdist-%s", b->id), 1, true };
	add_needs(g, job, deps, n);
}

/*
 * Strategy meta: the meta package's build job, and its publish job, which
 * waits for every backend's: its pins must never reach the index first.
 * No backend id has a '-', so neither name can be a backend's job.
 */
static void meta_jobs(struct gl *g, struct wm_y *root, const bool *published)
{
	const struct wm_platform *p = wm_catalog_platform(g->cat, "linux-x86_64");
	const struct wm_matrix *m = g->m;
	struct dep *deps = wm_arena_array(g->b.arena, m->nbackends + 2, sizeof(*deps));
	struct wm_y *job = piece(g, "meta"), *vars;
	size_t n = 0;

	if (!deps || !job) {
		g->b.oom = true;
		return;
	}
	wm_yaml_set(&g->b, root, "meta-package", job);
	if (p)
		set_tags(g, job, p);
	vars = vars_of(g, job);
	set_var(g, vars, "WM_BUILD", wm_catalog_tool(g->cat, "build"), false);
	job = publish_base(g, root, "publish-meta-package", m->name);
	add_check_dep(g, deps, &n);
	deps[n++] = (struct dep){ "meta-package", 1, true };
	for (size_t i = 0; i < m->nbackends; i++)
		if (published[i])
			deps[n++] = (struct dep){ wm_arena_printf(g->b.arena, "publish-%s", m->backends[i]->id), 1, false };
	add_needs(g, job, deps, n);
}

/*
 * The template file `name` (templates/) in a piece's heredoc, in place of its
 * line @name@, without its title line, or without all its leading comment lines.
 */
static const char *embed_template(struct gl *g, const char *text, const char *name, enum embed_header header)
{
	const struct wm_template *t = wm_template_get(name);
	const char *mark = strstr(text, wm_arena_printf(g->b.arena, "@%s@\n", name)), *body, *end;
	if (!t || !mark) {
		wm_error_nopos(g->err, WM_EINTERNAL, WM_SEV_ERROR, NULL,
			"no %s, or no @%s@ line in its piece", name, name);
		return text;
	}
	end = t->data + t->len;
	for (body = t->data; body < end && (header == EMBED_WITHOUT_TITLE ? body == t->data : *body == '#');) {
		const char *nl = memchr(body, '\n', (size_t)(end - body));
		body = nl ? nl + 1 : end;
	}
	return wm_arena_printf(g->b.arena, "%.*s%.*s%s", (int)(mark - text), text, (int)(end - body), body,
		mark + strlen(name) + 3);
}

/* Strategy index: templates/index-pages.py in the pages piece's heredoc, its title line left out. */
static const char *embed_index_pages(struct gl *g, const char *text)
{
	return embed_template(g, text, "index-pages.py", EMBED_WITHOUT_TITLE);
}

/*
 * Backend be's build jobs (their artifacts) and smoke tests appended to deps at *n: what a pages
 * job waits for of a backend.  Returns whether the backend has any build job.
 */
static bool add_build_deps(struct gl *g, const struct wm_backend *be, struct dep *deps, size_t *n)
{
	bool any = false;
	for (size_t i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].backend == be) {
			deps[(*n)++] = (struct dep){ g->buckets[i].name, g->buckets[i].n, true };
			any = true;
		}
	for (size_t i = 0; i < g->nbuckets; i++)
		if (g->buckets[i].backend == be && g->buckets[i].nsmoke)
			deps[(*n)++] = (struct dep){ wm_arena_printf(g->b.arena, "test-%s", g->buckets[i].suffix),
				g->buckets[i].nsmoke, false };
	return any;
}

/*
 * What both pages jobs share: the job set as root's `pages`, the publish jobs' version check as
 * its first before_script line, the project's files in its variables, and templates/index-pages.py
 * embedded in its script.  Returns its variables, for the job's own.
 */
static struct wm_y *pages_common(struct gl *g, struct wm_y *root, struct wm_y *job)
{
	struct wm_y *vars, *script;
	wm_yaml_set(&g->b, root, "pages", job);
	wm_yaml_set_before(&g->b, job, "script", "before_script", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, wm_yaml_get(job, "before_script"), wm_yaml_literal(&g->b, wm_emit_check_version(&g->b)));
	vars = wm_yaml_get(job, "variables");
	set_var(g, vars, "WM_PYPROJECT", g->m->pyproject, false);
	set_var(g, vars, "WM_MANIFEST", g->m->manifest, false);
	script = wm_yaml_get(job, "script");
	for (size_t i = 0; script && i < script->n; i++)
		if (script->items[i]->type == WM_NODE_SCALAR && strstr(script->items[i]->text, "@index-pages.py@\n"))
			script->items[i] = wm_yaml_literal(&g->b, embed_index_pages(g, script->items[i]->text));
	return vars;
}

/*
 * Strategy index: the `pages` job (GitLab Pages deploys the job of that
 * name), on tags, after the builds, smoke tests and sdists of every backend
 * but the default, which lays their indexes out under public/.
 */
static void pages_job(struct gl *g, struct wm_y *root)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job = piece(g, "pages"), *vars;
	struct dep *deps = wm_arena_array(g->b.arena, 2 * g->nbuckets + m->nbackends + 2, sizeof(*deps));
	struct wm_buf ids = WM_BUF_INIT;
	const char *backends;
	size_t n = 0;

	if (!deps || !job) {
		g->b.oom = true;
		return;
	}
	add_check_dep(g, deps, &n);
	for (size_t b = 0; b < m->nbackends; b++) {
		const struct wm_backend *be = m->backends[b];
		if (on_pages(m, be) && add_build_deps(g, be, deps, &n)) {
			deps[n++] = (struct dep){ wm_arena_printf(g->b.arena, "sdist-%s", be->id), 1, true };
			wm_buf_printf(&ids, "%s%s", ids.len ? " " : "", be->id);
		}
	}
	backends = wm_emit_keep(&g->b, &ids);
	vars = pages_common(g, root, job);
	set_var(g, vars, "WM_PROJECT", m->name, false);
	set_var(g, vars, "WM_INDEX_URL", m->index_url, false);
	set_var(g, vars, "WM_BACKENDS", backends ? backends : "", false);
	add_needs(g, job, deps, n);
}

/* A backend's line of WM_VARIANTS: `<backend> <label> <property>...`, each property `ns::feature::value`. */
static void variant_line(struct wm_buf *out, const struct wm_backend *b)
{
	wm_buf_printf(out, "%s %s", b->id, b->variant_label ? b->variant_label : "null");
	if (b->variant_properties.n)
		wm_buf_putc(out, ' ');
	wm_emit_variant_properties(out, b);
	wm_buf_putc(out, '\n');
}

/*
 * Strategy variants: the `pages` job (GitLab Pages deploys the job of that
 * name), on tags, after every build job, smoke test and the default
 * backend's sdist, which makes every backend's wheels variant wheels and
 * lays the one variant index out under public/.
 */
static void variants_pages_job(struct gl *g, struct wm_y *root)
{
	const struct wm_matrix *m = g->m;
	const struct wm_backend *def = m->default_backend;
	struct wm_y *job = piece(g, "pages-variants"), *vars;
	struct dep *deps = wm_arena_array(g->b.arena, 2 * g->nbuckets + 3, sizeof(*deps));
	struct wm_buf lines = WM_BUF_INIT;
	const char *variants;
	size_t n = 0;

	if (!deps || !job) {
		g->b.oom = true;
		return;
	}
	add_check_dep(g, deps, &n);
	for (size_t b = 0; b < m->nbackends; b++)
		if (add_build_deps(g, m->backends[b], deps, &n))
			variant_line(&lines, m->backends[b]);
	deps[n++] = (struct dep){ wm_arena_printf(g->b.arena, "sdist-%s", def->id), 1, true };
	variants = wm_emit_keep(&g->b, &lines);
	vars = pages_common(g, root, job);
	/* after the version check, the default backend's patch: its [variant] table */
	add_lines(g, wm_yaml_get(job, "before_script"), "patch-sh");
	if (wm_emit_has_patch(m, g->patched, def))
		set_var(g, vars, "WM_PATCH", patch_path(g, def), false);
	set_var(g, vars, "WM_VARIANTLIB", wm_catalog_tool(g->cat, "variantlib"), false);
	set_var(g, vars, "WM_PROJECT", m->name, false);
	set_var(g, vars, "WM_INDEX_URL", m->index_url, false);
	set_var(g, vars, "WM_DEFAULT", def->id, false);
	set_var(g, vars, "WM_VARIANTS", variants ? variants : "", variants != NULL);
	add_needs(g, job, deps, n);
}

/* ---- the drift check ------------------------------------------------------------------- */

#define CHECK_JOB "wheelmatrix-check"

/*
 * The job wheelmatrix-check (ci.gitlab.check), first in the build stage and needing nothing: the
 * wheelmatrix release that wrote the file installed from PyPI, and `check --rev` on the pipeline's
 * commit.
 */
static int check_job(struct gl *g, struct wm_y *root)
{
	const struct wm_platform *p = wm_catalog_platform(g->cat, "linux-x86_64");
	struct wm_y *job, *vars, *script;
	const char *matrix, *line;
	int ret;
	if (!g->m->gitlab.check)
		return 0;
	if ((ret = wm_emit_check_matrix(&matrix, g->m, "ci.gitlab.check", g->err)) < 0)
		return ret;
	job = wm_yaml_set(&g->b, root, CHECK_JOB, piece(g, "check"));
	if (p) {
		/* before the script, as in the other jobs: set_tags replaces the value in place */
		wm_yaml_set_before(&g->b, job, "script", "tags", wm_yaml_seq(&g->b));
		set_tags(g, job, p);
	}
	vars = wm_yaml_set_before(&g->b, job, "script", "variables", wm_yaml_map(&g->b));
	set_var(g, vars, "WM_WHEELMATRIX", WM_VERSION, false);
	if (matrix)
		set_var(g, vars, "WM_MATRIX", matrix, false);
	script = wm_yaml_get(job, "script");
	for (size_t i = 0; script && i < script->n; i++)
		if (script->items[i]->type == WM_NODE_SCALAR && strstr(script->items[i]->text, "@matrix@")) {
			if (!(line = wm_emit_check_command(&g->b, script->items[i]->text, matrix)))
				g->b.oom = true;
			else
				script->items[i] = str(g, line);
			return 0;
		}
	wm_error_nopos(g->err, WM_EINTERNAL, WM_SEV_ERROR, g->skel.file,
		"no '@matrix@' in the piece check");
	return WM_EINTERNAL;
}

/* A job that publishes waits for the drift check, when the file has it: appended to its deps at *n. */
static void add_check_dep(struct gl *g, struct dep *deps, size_t *n)
{
	if (g->m->gitlab.check)
		deps[(*n)++] = (struct dep){ CHECK_JOB, 1, false };
}

/* ---- the file -------------------------------------------------------------------------- */

static struct wm_y *pipeline(struct gl *g)
{
	struct wm_y *root = piece(g, "pipeline");
	bool smoke = false;
	for (size_t i = 0; i < g->nbuckets; i++)
		smoke |= g->buckets[i].nsmoke > 0;
	if (root && !smoke) {
		struct wm_y *stages = wm_yaml_seq(&g->b);
		stages->style = WM_Y_FLOW;
		wm_yaml_push(&g->b, stages, str(g, "build"));
		wm_yaml_push(&g->b, stages, str(g, "publish"));
		wm_yaml_set(&g->b, root, "stages", stages);
	}
	return root;
}

int wm_emit_gitlab(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, struct wm_error *err)
{
	struct wm_arena arena;
	struct gl g;
	struct wm_y *root;
	bool *published = NULL;
	int ret;

	wm_arena_init(&arena);
	memset(&g, 0, sizeof(g));
	g.b.arena = &arena;
	g.m = m;
	g.cat = cat;
	g.err = err;
	g.patched = patched;
	if ((ret = wm_catalog_template_parse(&g.skel, "gitlab.yaml", err)) < 0 || (ret = collect(&g)) < 0)
		goto out;
	check_runners(&g);
	if (err->code) {
		ret = err->code;
		goto out;
	}
	if ((ret = group(&g)) < 0)
		goto out;
	root = pipeline(&g);
	templates(&g, root);
	if ((ret = check_job(&g, root)) < 0)
		goto out;
	if (!(published = wm_arena_array(&arena, m->nbackends + 1, sizeof(*published)))) {
		ret = WM_ENOMEM;
		goto out;
	}
	for (size_t b = 0; b < m->nbackends; b++) {
		bool any = false;
		for (size_t i = 0; i < g.nbuckets; i++)
			if (g.buckets[i].backend == m->backends[b]) {
				build_job(&g, root, &g.buckets[i]);
				any = true;
			}
		for (size_t i = 0; i < g.nbuckets; i++)
			if (g.buckets[i].backend == m->backends[b] && g.buckets[i].nsmoke)
				test_job(&g, root, &g.buckets[i]);
		/* strategy variants: the pages job takes every backend's wheels; PyPI gets the default's */
		if (any && (m->strategy != WM_STRATEGY_VARIANTS || m->backends[b]->is_default)) {
			sdist_job(&g, root, m->backends[b]);
			if (!on_pages(m, m->backends[b])) {
				publish_job(&g, root, m->backends[b]);
				published[b] = true;
			}
		}
	}
	if (m->strategy == WM_STRATEGY_META && g.nbuckets)
		meta_jobs(&g, root, published);
	if (any_pages(&g))
		pages_job(&g, root);
	if (m->strategy == WM_STRATEGY_VARIANTS && m->default_backend && published[m->default_backend->index])
		variants_pages_job(&g, root);
	if (err->code) {
		ret = err->code;
		goto out;
	}
	if (g.b.oom || !root) {
		ret = WM_ENOMEM;
		goto out;
	}
	if ((ret = wm_emit_gitlab_limits(root, err)) < 0)
		goto out;
	ret = wm_yaml_emit(out, root, err);
out:
	if (ret == WM_ENOMEM && !err->code)
		wm_error_nopos(err, WM_ENOMEM, WM_SEV_ERROR, NULL, "out of memory");
	wm_yaml_release(&g.skel);
	wm_arena_release(&arena);
	return ret;
}

/* ---- GitLab.com's limits --------------------------------------------------------------- */

static bool reserved(const char *key)
{
	static const char *const words[] = { "stages", "default", "variables", "workflow", "include", "image",
		"services", "cache", "before_script", "after_script", "spec" };
	if (key[0] == '.')
		return true;
	for (size_t i = 0; i < WM_ARRAY_SIZE(words); i++)
		if (strcmp(key, words[i]) == 0)
			return true;
	return false;
}

/* Permutations of a parallel:matrix list, and the longest instance name's extra characters. */
static size_t permutations(const struct wm_y *matrix, size_t *longest)
{
	size_t total = 0;
	*longest = 0;
	for (size_t i = 0; matrix && matrix->type == WM_NODE_SEQ && i < matrix->n; i++) {
		const struct wm_y *e = matrix->items[i];
		size_t product = 1, chars = 0, nvars = 0;
		for (size_t v = 1; e->type == WM_NODE_MAP && v < e->n; v += 2, nvars++) {
			const struct wm_y *val = e->items[v];
			size_t count = val->type == WM_NODE_SEQ ? val->n : 1, widest = 0;
			for (size_t x = 0; x < count; x++) {
				const struct wm_y *s = val->type == WM_NODE_SEQ ? val->items[x] : val;
				size_t len = s->type == WM_NODE_SCALAR ? wm_utf8_len(s->text, s->len) : 0;
				widest = len > widest ? len : widest;
			}
			product *= count;
			chars += widest;
		}
		/* "NAME: [a, b]" */
		chars += 4 + (nvars > 1 ? 2 * (nvars - 1) : 0);
		*longest = chars > *longest ? chars : *longest;
		total += product;
	}
	return total;
}

static size_t instances(const struct wm_y *root, const char *name)
{
	const struct wm_y *job = wm_yaml_get(root, name);
	size_t longest;
	const struct wm_y *matrix = wm_yaml_get(wm_yaml_get(job, "parallel"), "matrix");
	return matrix ? permutations(matrix, &longest) : 1;
}

int wm_emit_gitlab_limits(const struct wm_y *root, struct wm_error *err)
{
	int ret = 0;
	for (size_t i = 0; root && root->type == WM_NODE_MAP && i + 1 < root->n; i += 2) {
		const char *name = root->items[i]->text;
		const struct wm_y *job = root->items[i + 1], *needs = wm_yaml_get(job, "needs");
		const struct wm_y *matrix = wm_yaml_get(wm_yaml_get(job, "parallel"), "matrix");
		size_t longest = 0, n = matrix ? permutations(matrix, &longest) : 1, len = wm_utf8_len(name, strlen(name));
		size_t nneeds = 0;
		if (reserved(name) || job->type != WM_NODE_MAP)
			continue;
		if (n > WM_GITLAB_MAX_PERMUTATIONS) {
			wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, NULL,
				"job '%s' has %zu parallel:matrix permutations: GitLab allows %d", name, n,
				WM_GITLAB_MAX_PERMUTATIONS);
			ret = WM_EINTERNAL;
		}
		if (len + longest > WM_GITLAB_MAX_NAME) {
			wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, NULL,
				"job '%.40s...' has a name of %zu characters%s: GitLab allows %d", name, len + longest,
				matrix ? " with its matrix values" : "", WM_GITLAB_MAX_NAME);
			ret = WM_EINTERNAL;
		}
		for (size_t k = 0; needs && needs->type == WM_NODE_SEQ && k < needs->n; k++) {
			const struct wm_y *need = needs->items[k];
			const struct wm_y *sel = wm_yaml_get(wm_yaml_get(need, "parallel"), "matrix");
			size_t unused;
			if (sel)
				nneeds += permutations(sel, &unused);
			else
				nneeds += instances(root, need->type == WM_NODE_SCALAR ? need->text :
					wm_yaml_get(need, "job") ? wm_yaml_get(need, "job")->text : "");
		}
		if (nneeds > WM_GITLAB_MAX_NEEDS) {
			wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, NULL,
				"job '%s' needs %zu jobs after matrix expansion: GitLab allows %d", name, nneeds,
				WM_GITLAB_MAX_NEEDS);
			ret = WM_EINTERNAL;
		}
	}
	return ret;
}
