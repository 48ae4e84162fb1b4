/* github.c — the GitHub Actions workflow: one build job per (backend, OS), sdist, publish and release jobs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/matrix.h"
#include "emit/emit.h"
#include "emit/github.h"
#include "emit/jobs.h"

/* Fields a build matrix entry may carry; one written inline when all entries agree. */
enum field {
	F_ID, F_RUNNER, F_TARGET, F_MANYLINUX, F_CONTAINER, F_IMAGE, F_COMPAT, F_PYTHON, F_INTERPRETER, F_ARCH,
	F_SMOKE, F_TEST, F_TEST_IMAGE, F_IMAGE_TEST, F_ARGS, F_TOOLCHAIN, F_COMPONENTS, F_DOCKER, F_ZIG, F_DEPLOYMENT,
	F_COUNT
};

/*
 * F_IMAGE and F_COMPAT are set only for a build in our own container step (see build_in_container);
 * F_INTERPRETER only in a job with PyPy, whose interpreter is not python<python-version>.
 * F_TEST_IMAGE is the image a musllinux wheel is imported and tested in (wm_emit_in_image), NULL
 * for a wheel the runner imports itself (F_SMOKE, F_TEST); F_IMAGE_TEST says whether the
 * project's tests run there too.  F_ARGS to F_ZIG are the entry's build settings (struct wm_build):
 * maturin's arguments before --out (--release, --profile, --features ...), the Rust toolchain and
 * components, the build container's docker options, and whether zig links it.  F_DEPLOYMENT is a
 * macOS build's MACOSX_DEPLOYMENT_TARGET, set in a job where the matrix gives one (the others'
 * rustc default, so that none is empty).
 */
static const char *const field_names[F_COUNT] = {
	"id", "runner", "target", "manylinux", "container", "image", "compatibility", "python-version",
	"interpreter", "architecture", "smoke", "test", "test-image", "test-in-image", "build-args", "rust-toolchain",
	"rustup-components", "docker-options", "zig", "macosx-deployment-target"
};

struct gh {
	struct wm_yb b;
	const struct wm_matrix *m;
	const struct wm_catalog *cat;
	struct wm_error *err;
	const bool *patched;   /* per backend: a variant patch exists; NULL: no project was read */
	struct wm_doc skel;
	bool *used;            /* per action of the catalogue: a step uses it; NULL: not asked */
	bool tag;              /* a job needs the tag check job (TAG_JOB) */
	unsigned local;        /* bit k: a step runs local_actions[k] */
};

/* One build job's entries: per field, each entry's value (NULL = none). */
struct entries {
	size_t n;
	const char **values[F_COUNT];
	bool same[F_COUNT];
	const struct wm_rule **includes;  /* the include rule of each entry, or NULL */
	const struct wm_build **builds;   /* the build settings of each entry (NULL: none) */
	bool host;                        /* a Linux entry builds on the runner: `container: off`, or zig */
	bool *test_job;                   /* per entry: its tests run in the backend's test job */
	size_t ntest_job;
	const struct wm_platform *pyodide; /* an Emscripten group's platform (one Pyodide release), else NULL */
};

#define CHECK_JOB "wheelmatrix-check"

static void add_check_need(struct gh *g, struct wm_y *needs);

static struct wm_y *piece(struct gh *g, const char *name)
{
	return wm_emit_piece(&g->b, &g->skel, name, g->err);
}

static const char *lines(struct gh *g, const struct wm_strlist *l, const char *sep);

/*
 * The long scripts the workflow runs, each written once into a local composite action beside it
 * (its file, `<dir>/action.yml`, is one of generate's outputs): the step keeps its name, its `if`
 * and its `env:`, and `uses: ./<dir>` replaces its `run:`.  The action's one step runs the script
 * in bash, as the workflow's `defaults.run.shell` runs the others, in the workspace, with the
 * calling step's environment, which a composite action's steps inherit (actions/runner,
 * docs/adrs/0549-composite-run-steps.md, "Environment").  The values stay in the calling step's
 * `env:`, where a reviewer reads them; the action holds no expression and takes no input.
 */
#define LOCAL_ACTIONS ".github/actions/"

static const struct local_action {
	const char *piece;  /* the step's piece in templates/github.yaml */
	const char *dir;    /* the action's directory in the repository */
} local_actions[WM_GITHUB_NLOCAL] = {
	{ "build-container", LOCAL_ACTIONS "wheelmatrix-build-container" },
	{ "check-version", LOCAL_ACTIONS "wheelmatrix-check-version" },
};

const char *wm_emit_github_local_name(const char *path, size_t *len)
{
	const char *name = path + strlen(LOCAL_ACTIONS), *slash;
	if (strncmp(path, LOCAL_ACTIONS, strlen(LOCAL_ACTIONS)) != 0 || !(slash = strchr(name, '/')) ||
			slash == name || strcmp(slash, WM_GITHUB_LOCAL_FILE) != 0)
		return NULL;
	*len = (size_t)(slash - name);
	return name;
}

/* Step `step` runs local action k in place of its `run:` script. */
static void outline(struct gh *g, struct wm_y *step, unsigned k)
{
	for (size_t i = 0; step && i + 1 < step->n; i += 2)
		if (strcmp(step->items[i]->text, "run") == 0) {
			step->items[i] = wm_yaml_str(&g->b, "uses");
			step->items[i + 1] = wm_yaml_strf(&g->b, "./%s", local_actions[k].dir);
			g->local |= 1u << k;
			return;
		}
}

static struct wm_y *str_seq(struct gh *g, const struct wm_strlist *l)
{
	struct wm_y *seq = wm_yaml_seq(&g->b);
	for (size_t i = 0; i < l->n; i++)
		wm_yaml_push(&g->b, seq, wm_yaml_str(&g->b, l->items[i]));
	return seq;
}

/*
 * The `on:` section: the skeleton's, with what ci.github.triggers gives instead (branches, tags,
 * pull requests); rebuilt in the skeleton's order, since a trigger may go.
 */
static void set_triggers(struct gh *g, struct wm_y *workflow)
{
	const struct wm_output *o = &g->m->github;
	struct wm_y *skel = wm_yaml_get(workflow, "on"), *on, *push, *pr;
	if (!skel || !(o->has_branches || o->has_tags || o->has_pull_requests))
		return;
	on = wm_yaml_map(&g->b);
	push = wm_yaml_set(&g->b, on, "push", wm_yaml_map(&g->b));
	if (!o->has_branches)
		wm_yaml_set(&g->b, push, "branches", wm_yaml_get(wm_yaml_get(skel, "push"), "branches"));
	else if (o->branches.n)
		wm_yaml_set(&g->b, push, "branches", str_seq(g, &o->branches));
	wm_yaml_set(&g->b, push, "tags", o->has_tags ? str_seq(g, &o->tags) :
		wm_yaml_get(wm_yaml_get(skel, "push"), "tags"));
	if (!o->has_pull_requests || (o->pull_requests && !o->pr_branches.n)) {
		wm_yaml_set(&g->b, on, "pull_request", wm_yaml_get(skel, "pull_request"));
	} else if (o->pull_requests) {
		pr = wm_yaml_set(&g->b, on, "pull_request", wm_yaml_map(&g->b));
		wm_yaml_set(&g->b, pr, "branches", str_seq(g, &o->pr_branches));
	}
	wm_yaml_set(&g->b, on, "workflow_dispatch", wm_yaml_get(skel, "workflow_dispatch"));
	wm_yaml_set(&g->b, workflow, "on", on);
}

/* ---- recipes ------------------------------------------------------------------- */

/* ---- one build job ----------------------------------------------------------------- */

static unsigned build_minor(const struct wm_job *job)
{
	return (unsigned)atoi(strchr(job->python->interpreter, '.') + 1);
}

/*
 * A Linux build whose wheel is repaired with libraries left out runs in our
 * own container step, build and repair together, where the toolkit installed
 * those libraries (maturin-action has no step after its build in the
 * container).  The others use maturin-action, whose own audit repairs them.
 */
static bool build_in_container(const struct wm_group *grp, const char *exclude)
{
	return grp->os == WM_OS_LINUX && exclude != NULL;
}

/* Room for a group's entries: a value of each field, and each entry's include, build and test job. */
static int entries_alloc(struct gh *g, const struct wm_group *grp, struct entries *e)
{
	struct wm_arena *a = g->b.arena;

	memset(e, 0, sizeof(*e));
	for (int f = 0; f < F_COUNT; f++)
		if (!(e->values[f] = wm_arena_array(a, grp->njobs + 1, sizeof(char *))))
			return WM_ENOMEM;
	if (!(e->includes = wm_arena_array(a, grp->njobs + 1, sizeof(*e->includes))) ||
			!(e->builds = wm_arena_array(a, grp->njobs + 1, sizeof(*e->builds))) ||
			!(e->test_job = wm_arena_array(a, grp->njobs + 1, sizeof(*e->test_job))))
		return WM_ENOMEM;
	return 0;
}

/* Entry i's build settings (args, toolchain, components, docker options, zig). */
static void entry_build(struct gh *g, struct entries *e, size_t i, const struct wm_job *job)
{
	const struct wm_platform *p = job->platform;
	const struct wm_build *bd = job->build;
	bool off = p->os == WM_OS_LINUX && p->container && strcmp(p->container, "off") == 0;

	e->builds[i] = bd;
	e->values[F_ZIG][i] = bd && bd->zig ? "true" : "false";
	e->host |= off || (p->os == WM_OS_LINUX && bd && bd->zig);
	if (!bd)
		return;
	e->values[F_ARGS][i] = bd->args_text;
	e->values[F_TOOLCHAIN][i] = bd->rust_toolchain;
	e->values[F_COMPONENTS][i] = lines(g, &bd->rustup_components, " ");
	e->values[F_DOCKER][i] = lines(g, &bd->docker_options, " ");
}

/* Entry i's platform: runner, target, Pyodide's toolchain, the Linux level and image, macOS and Windows. */
static void entry_platform(struct gh *g, struct entries *e, size_t i, const struct wm_job *job, bool container)
{
	const struct wm_platform *p = job->platform;
	struct wm_arena *a = g->b.arena;

	e->values[F_RUNNER][i] = p->runner;
	e->values[F_TARGET][i] = p->target;
	if (p->os == WM_OS_EMSCRIPTEN) {
		/* the Pyodide release's toolchain, unless the matrix names another */
		if (!e->values[F_TOOLCHAIN][i])
			e->values[F_TOOLCHAIN][i] = p->pyodide_rust;
		e->pyodide = p;
	}
	if (p->os == WM_OS_LINUX) {
		e->values[F_MANYLINUX][i] = strcmp(p->family, "musllinux") == 0 ?
			wm_arena_printf(a, "musllinux_%s", p->manylinux) : p->manylinux;
		e->values[F_CONTAINER][i] = p->container ? p->container : "";
		if (container) {
			const char *level = e->values[F_MANYLINUX][i];
			e->values[F_IMAGE][i] = wm_emit_build_image(&g->b, g->cat, job->backend, p);
			e->values[F_COMPAT][i] = strncmp(level, "musllinux", 9) == 0 ? level :
				wm_arena_printf(a, strchr(level, '_') ? "manylinux_%s" : "manylinux%s", level);
			e->values[F_CONTAINER][i] = "";
		}
	}
	if (p->os == WM_OS_MACOS)
		e->values[F_DEPLOYMENT][i] = p->deployment_target ? p->deployment_target : p->deployment_default;
	if (p->os == WM_OS_WINDOWS)
		e->values[F_ARCH][i] = strcmp(p->arch, "x86") == 0 ? "x86" :
			strcmp(p->arch, "arm64") == 0 ? "arm64" : "x64";
}

/* Entry i's Python: setup-python's name for it, and maturin's -i. */
static void entry_python(struct gh *g, struct entries *e, size_t i, const struct wm_job *job)
{
	const struct wm_platform *p = job->platform;
	const struct wm_python *py = job->python;
	struct wm_arena *a = g->b.arena;

	/* setup-python's and uv's name for PyPy: pypy3.11; for GraalPy the GraalPy release, graalpy-25.0 */
	if (py->graalpy)
		e->values[F_PYTHON][i] = wm_arena_printf(a, "graalpy-%s", wm_catalog_graalpy(g->cat, py->minor));
	else if (p->os == WM_OS_EMSCRIPTEN)
		e->values[F_PYTHON][i] = wm_arena_printf(a, "3.%u", p->pyodide_minor);
	else
		e->values[F_PYTHON][i] = wm_arena_printf(a, "%s3.%u%s", py->pypy ? "pypy" : "", build_minor(job),
			py->freethreaded ? "t" : "");
	/*
	 * On macOS, maturin builds GraalPy under the GraalPy setup-python installs: its bin/graalpy
	 * (setup-python adds python and graalpy25.0, no graalpy3.12), whose ABI is maturin's table's
	 * (templates/interpreters.yaml); on Linux, in the image, from that table.
	 */
	e->values[F_INTERPRETER][i] = py->graalpy && p->os == WM_OS_MACOS ? "graalpy" : wm_python_interpreter(py, p);
}

/* Entry i's import test and the project's tests: in the build job, in an image, or in a test job. */
static void entry_tests(struct entries *e, size_t i, const struct wm_job *job)
{
	const struct wm_platform *p = job->platform;
	bool smoke = job->backend->smoke_os >> p->os & 1;
	const char *why;
	enum wm_tests where = wm_jobs_tests(job, &why);
	bool image = smoke && wm_emit_in_image(job, p->cross);

	/* Pyodide's import test runs in Node.js on the build runner */
	e->values[F_SMOKE][i] = smoke && (wm_emit_runnable(p, p->cross) || p->os == WM_OS_EMSCRIPTEN) ? "true" : "false";
	e->values[F_TEST][i] = where == WM_TESTS_BUILD_JOB && !image ? "true" : "false";
	e->values[F_TEST_IMAGE][i] = image ? p->gitlab_image : NULL;
	e->values[F_IMAGE_TEST][i] = where == WM_TESTS_BUILD_JOB && image ? "true" : "false";
	e->test_job[i] = where == WM_TESTS_TEST_JOB;
	e->ntest_job += e->test_job[i];
}

/* Which fields every entry gives the same value (the id never: each entry keeps its own). */
static void entries_same(struct entries *e)
{
	for (int f = 0; f < F_COUNT; f++) {
		e->same[f] = f != F_ID;
		for (size_t i = 1; i < e->n && e->same[f]; i++) {
			const char *x = e->values[f][0], *y = e->values[f][i];
			e->same[f] = (!x && !y) || (x && y && strcmp(x, y) == 0);
		}
	}
}

/* A group's build entries, a value of each field for each job; container: built in our own container step. */
static int collect(struct gh *g, const struct wm_group *grp, struct entries *e, bool container)
{
	struct wm_expand *it = NULL;
	struct wm_job job;
	bool pypy = false, deployment = false;
	int ret;

	if ((ret = entries_alloc(g, grp, e)) < 0 || (ret = wm_expand_new_group(&it, g->m, grp)) < 0)
		return ret;
	while (wm_expand_next(it, &job) > 0 && e->n < grp->njobs) {
		size_t i = e->n++;
		e->values[F_ID][i] = wm_arena_strdup(g->b.arena, job.id);
		e->includes[i] = job.include;
		entry_build(g, e, i, &job);
		entry_platform(g, e, i, &job, container);
		entry_python(g, e, i, &job);
		entry_tests(e, i, &job);
		pypy |= job.python->pypy || job.python->graalpy;
		deployment |= job.platform->deployment_target != NULL;
		if (!e->values[F_ID][i] || !e->values[F_PYTHON][i])
			g->b.oom = true;
	}
	wm_expand_free(it);
	if (!pypy)
		memset(e->values[F_INTERPRETER], 0, (grp->njobs + 1) * sizeof(char *));
	if (!deployment)
		memset(e->values[F_DEPLOYMENT], 0, (grp->njobs + 1) * sizeof(char *));
	/* one entry: every value is shared, but the entry keeps its id for names and logs */
	entries_same(e);
	return 0;
}

/* The value of a field on a step: the literal when every entry agrees, else the matrix expression. */
static struct wm_y *value(struct gh *g, const struct entries *e, enum field f)
{
	if (e->same[f])
		return e->values[f][0] ? wm_yaml_str(&g->b, e->values[f][0]) : NULL;
	return wm_yaml_strf(&g->b, "${{ matrix.%s }}", field_names[f]);
}

static bool all(const struct entries *e, enum field f, const char *v)
{
	return e->same[f] && e->values[f][0] && strcmp(e->values[f][0], v) == 0;
}

/* No entry has a value for field f. */
static bool all_null(const struct entries *e, enum field f)
{
	return e->same[f] && !e->values[f][0];
}

/* The variable of entry i's build settings (its platform's, backend's, include's ... merged), or NULL. */
static const struct wm_env *entry_var(const struct entries *e, size_t i, const char *name)
{
	const struct wm_build *bd = e->builds[i];
	for (size_t k = 0; bd && k < bd->nenv; k++)
		if (strcmp(bd->env[k].name, name) == 0)
			return &bd->env[k];
	return NULL;
}

/* The value of a variable for entry i, or empty. */
static const char *entry_env(const struct wm_backend *b, const struct entries *e, size_t i, const char *name)
{
	const struct wm_env *v = entry_var(e, i, name);
	(void)b;
	return v ? v->value : "";
}

/*
 * True when not every entry sets `name` alike (one sets another value, or none): it goes into the
 * matrix as env-<name>, in the entries that set it, and the step `set-env` sets it for those alone.
 */
static bool env_varies(const struct wm_backend *b, const struct entries *e, const char *name)
{
	const char *first = entry_env(b, e, 0, name);
	for (size_t i = 0; i < e->n; i++) {
		const struct wm_env *v = entry_var(e, i, name);
		if (!v || (v->value != first && strcmp(first, v->value) != 0))
			return true;
	}
	return false;
}

/* Each variable name of the entries' build settings, once, in the order they first come. */
static size_t env_names(struct gh *g, const struct wm_backend *b, const struct entries *e, const char ***out)
{
	size_t cap = 0, n = 0;
	const char **names;
	(void)b;
	for (size_t i = 0; i < e->n; i++)
		if (e->builds[i] && (i == 0 || e->builds[i] != e->builds[i - 1]))
			cap += e->builds[i]->nenv;
	if (!(names = wm_arena_array(g->b.arena, cap + 1, sizeof(*names)))) {
		g->b.oom = true;
		*out = NULL;
		return 0;
	}
	for (size_t i = 0; i < e->n; i++) {
		const struct wm_build *bd = e->builds[i];
		if (!bd || (i > 0 && bd == e->builds[i - 1]))
			continue;
		for (size_t k = 0; k < bd->nenv; k++) {
			size_t j;
			for (j = 0; j < n && strcmp(names[j], bd->env[k].name) != 0; j++)
				;
			if (j == n)
				names[n++] = bd->env[k].name;
		}
	}
	*out = names;
	return n;
}

/*
 * A variable whose value differs between a build job's entries is carried by its matrix, where
 * GitHub evaluates it before the job starts, with the contexts a strategy may read: `secrets` is
 * not one, so such a value cannot read a secret.  Reported at the include (or backend) that gives
 * an entry the secret.
 */
static int matrix_secrets(struct gh *g, const struct wm_group *grp, const struct entries *e, const char **names,
	size_t n)
{
	const struct wm_doc *doc = wm_matrix_doc(g->m);
	const struct wm_backend *b = grp->backend;
	for (size_t k = 0; k < n; k++) {
		if (!env_varies(b, e, names[k]))
			continue;
		for (size_t i = 0; i < e->n; i++) {
			const struct wm_env *var = entry_var(e, i, names[k]);
			const char *v = var ? var->value : "", *open = strstr(v, "${{");
			const struct wm_loc *at = var && var->loc.line ? &var->loc : &b->loc;
			if (!open || !strstr(open, "secrets."))
				continue;
			wm_error_add(g->err, WM_EINVALID, WM_SEV_ERROR, g->m->file, doc ? doc->text : NULL, doc ? doc->len : 0,
				at->line, at->column, 1, "environment variable '%s' reads a secret and differs between the jobs of "
				"the GitHub job %s: the values that differ go into its build matrix, where GitHub cannot read "
				"secrets; give it one value for all of them, or read the secret in a setup step's 'env:'",
				names[k], grp->name);
			return WM_EINVALID;
		}
	}
	return 0;
}

static struct wm_y *include_list(struct gh *g, const struct wm_backend *b, const struct entries *e)
{
	struct wm_y *list = wm_yaml_seq(&g->b);
	const char **names;
	size_t nnames = env_names(g, b, e, &names);
	bool *varies = wm_arena_array(g->b.arena, nnames + 1, sizeof(*varies));
	if (!varies) {
		g->b.oom = true;
		return list;
	}
	/* once a name: each comparison may read long values of every entry */
	for (size_t k = 0; k < nnames; k++)
		varies[k] = env_varies(b, e, names[k]);
	for (size_t i = 0; i < e->n; i++) {
		struct wm_y *entry = wm_yaml_push(&g->b, list, wm_yaml_map(&g->b));
		for (int f = 0; f < F_COUNT; f++) {
			if (e->same[f] || !e->values[f][i])
				continue;
			if (f == F_SMOKE || f == F_TEST || f == F_IMAGE_TEST || f == F_ZIG)
				wm_yaml_set(&g->b, entry, field_names[f], wm_yaml_bool(&g->b, strcmp(e->values[f][i], "true") == 0));
			else
				wm_yaml_set(&g->b, entry, field_names[f], wm_yaml_str(&g->b, e->values[f][i]));
		}
		for (size_t k = 0; k < nnames; k++)
			if (varies[k] && entry_var(e, i, names[k]))
				wm_yaml_set(&g->b, entry, wm_arena_printf(g->b.arena, "env-%s", names[k]),
					wm_yaml_str(&g->b, entry_env(b, e, i, names[k])));
	}
	return list;
}

static void add_env(struct gh *g, struct wm_y *step, const char *name, struct wm_y *v)
{
	struct wm_y *env = wm_yaml_get(step, "env");
	if (!env)
		env = wm_yaml_set_before(&g->b, step, "run", "env", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, env, name, v);
}

/* The step set-env: the variables not every entry sets alike, set for the steps after it where the entry has one. */
static void add_set_env(struct gh *g, struct wm_y *steps, const struct wm_backend *b, const struct entries *e,
	const char **names, size_t n)
{
	struct wm_buf list = WM_BUF_INIT;
	struct wm_y *step;
	for (size_t i = 0; i < n; i++)
		if (env_varies(b, e, names[i]))
			wm_buf_printf(&list, "%s%s", list.len ? " " : "", names[i]);
	if (!list.len && !list.oom)
		return;
	step = wm_yaml_push(&g->b, steps, piece(g, "set-env"));
	add_env(g, step, "WM_ENV_NAMES", wm_yaml_str(&g->b, wm_emit_keep(&g->b, &list)));
	for (size_t i = 0; i < n; i++)
		if (env_varies(b, e, names[i]))
			add_env(g, step, wm_arena_printf(g->b.arena, "WM_ENV_%s", names[i]),
				wm_yaml_strf(&g->b, "${{ matrix.env-%s }}", names[i]));
}

static void add_patch_step(struct gh *g, struct wm_y *steps, const struct wm_backend *b)
{
	struct wm_y *step;
	if (!wm_emit_has_patch(g->m, g->patched, b))
		return;
	step = wm_yaml_push(&g->b, steps, piece(g, "apply-patch"));
	add_env(g, step, "WM_PATCH", wm_yaml_strf(&g->b, WM_PATCH_PATH, b->id));
}

static void add_setup_python(struct gh *g, struct wm_y *steps, const struct entries *e, bool only_smoke)
{
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, "setup-python"));
	struct wm_y *with;
	if (only_smoke && !e->same[F_SMOKE])
		wm_yaml_set(&g->b, step, "if", wm_yaml_str(&g->b, "matrix.smoke"));
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "python-version", value(g, e, F_PYTHON));
	if (e->values[F_ARCH][0])
		wm_yaml_set(&g->b, with, "architecture", value(g, e, F_ARCH));
}

/*
 * The job's variables that reach the build container, space-separated, each
 * after `prefix`: "--env " for maturin-action's docker-options, "" for the
 * names our container step passes itself; NULL when there are none.
 */
static const char *container_env(struct gh *g, const struct wm_backend *b, const struct entries *e,
	const char *prefix)
{
	struct wm_buf out = WM_BUF_INIT;
	const char **names;
	size_t n = env_names(g, b, e, &names);
	for (size_t i = 0; i < n; i++)
		wm_buf_printf(&out, "%s%s%s", i ? " " : "", prefix, names[i]);
	return wm_emit_keep(&g->b, &out);
}

static void add_build_step(struct gh *g, struct wm_y *steps, const struct wm_group *grp, const struct entries *e)
{
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, "build"));
	struct wm_y *with = wm_yaml_get(step, "with"), *sccache = wm_yaml_get(with, "sccache");
	const char *script, *dir = wm_emit_project_dir(g->b.arena, g->m), *out = wm_emit_out_dir(g->b.arena, g->m);
	const char *args;
	struct wm_y *container;

	/* maturin-version first: the order people expect to read */
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "maturin-version", wm_yaml_str(&g->b, g->m->maturin));
	if (dir && *dir)
		wm_yaml_set(&g->b, with, "working-directory", wm_yaml_str(&g->b, dir));
	wm_yaml_set(&g->b, with, "target", value(g, e, F_TARGET));
	if (grp->os == WM_OS_LINUX) {
		const char *env = container_env(g, grp->backend, e, "--env ");
		wm_yaml_set(&g->b, with, "manylinux", value(g, e, F_MANYLINUX));
		if (!all(e, F_CONTAINER, "") && (container = value(g, e, F_CONTAINER)))
			wm_yaml_set(&g->b, with, "container", container);
		/* the variables by name, then the matrix's own options (words without quotes: util/name.h) */
		if (!e->same[F_DOCKER])
			wm_yaml_set(&g->b, with, "docker-options", wm_yaml_strf(&g->b, "%s%s${{ matrix.docker-options }}",
				env ? env : "", env ? " " : ""));
		else if (env || e->values[F_DOCKER][0])
			wm_yaml_set(&g->b, with, "docker-options", wm_yaml_strf(&g->b, "%s%s%s", env ? env : "",
				env && e->values[F_DOCKER][0] ? " " : "", e->values[F_DOCKER][0] ? e->values[F_DOCKER][0] : ""));
		if ((script = wm_emit_before_script(&g->b, grp->backend, "github", "before-script")) != NULL)
			wm_yaml_set(&g->b, with, "before-script-linux", wm_yaml_literal(&g->b, script));
	}
	/* maturin-action installs the toolchain and the components itself (rustup, on the runner or in the container) */
	if (!all_null(e, F_TOOLCHAIN))
		wm_yaml_set(&g->b, with, "rust-toolchain", value(g, e, F_TOOLCHAIN));
	if (!all_null(e, F_COMPONENTS))
		wm_yaml_set(&g->b, with, "rustup-components", value(g, e, F_COMPONENTS));
	/*
	 * The interpreter is python3.X, or pypy3.X: the one setup-python installs (for PyPy it
	 * links pypy3.X, python3 and python to it: actions/setup-python@v7 src/install-pypy.ts,
	 * createPyPySymlink, so the import test's `python` is PyPy too), or the manylinux
	 * image's /usr/local/bin/pypy3.X.  The build settings' arguments come first: --release, or
	 * --profile NAME, then --features and the others (struct wm_build).
	 */
	args = e->same[F_ARGS] ? e->values[F_ARGS][0] : "${{ matrix.build-args }}";
	wm_yaml_set(&g->b, with, "args", e->same[F_PYTHON] ?
		wm_yaml_strf(&g->b, "%s --out %s -i %s", args, out, e->values[F_INTERPRETER][0] ?
			e->values[F_INTERPRETER][0] : wm_arena_printf(g->b.arena, "python%s", e->values[F_PYTHON][0])) :
		!e->same[F_INTERPRETER] ?
		wm_yaml_strf(&g->b, "%s --out %s -i ${{ matrix.interpreter }}", args, out) :
		wm_yaml_strf(&g->b, "%s --out %s -i python${{ matrix.python-version }}", args, out));
	if (sccache)
		wm_yaml_set(&g->b, with, "sccache", sccache);
	/* maturin tags the wheel with it, and rustc builds for it */
	if (e->values[F_DEPLOYMENT][0]) {
		struct wm_y *env = wm_yaml_set(&g->b, step, "env", wm_yaml_map(&g->b));
		wm_yaml_set(&g->b, env, "MACOSX_DEPLOYMENT_TARGET", value(g, e, F_DEPLOYMENT));
	}
	/* the wheel's PEP 783 tag: maturin asks pyodide-build for it otherwise (src/target/platform_tag.rs) */
	if (e->pyodide) {
		struct wm_y *env = wm_yaml_set(&g->b, step, "env", wm_yaml_map(&g->b));
		wm_yaml_set(&g->b, env, "MATURIN_PYEMSCRIPTEN_PLATFORM_VERSION", wm_yaml_str(&g->b, e->pyodide->pyodide_abi));
	}
}

/*
 * An Emscripten build (Pyodide), the recipe `maturin generate-ci github --platform emscripten`
 * (maturin 1.16.0) prints, with the Pyodide release's values from the catalogue where maturin's
 * reads them from `pyodide config get`: the release's CPython (setup-python), pyodide-build at
 * its pin with the release's cross-build environment, whose `pyodide config get` answers are
 * checked against the catalogue's, and the release's Emscripten (setup-emsdk).  maturin-action
 * then builds on the runner (no container for a target without "linux": src/index.ts) with the
 * release's Rust toolchain, adding the wasm32-unknown-emscripten target itself.
 */
static void add_pyodide_steps(struct gh *g, struct wm_y *steps, const struct entries *e)
{
	const struct wm_platform *p = e->pyodide;
	struct wm_y *step, *with;
	add_setup_python(g, steps, e, false);
	const char *names[WM_EMIT_PYODIDE_NVARS], *values[WM_EMIT_PYODIDE_NVARS];
	step = wm_yaml_push(&g->b, steps, piece(g, "pyodide-build"));
	wm_emit_pyodide_vars(g->cat, p, names, values);
	for (size_t i = 0; i < WM_EMIT_PYODIDE_NVARS; i++)
		add_env(g, step, names[i], wm_yaml_str(&g->b, values[i]));
	step = wm_yaml_push(&g->b, steps, piece(g, "setup-emsdk"));
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "version", wm_yaml_str(&g->b, p->emscripten));
}

/* The build and the repair in the manylinux container (build_in_container). */
static void add_container_step(struct gh *g, struct wm_y *steps, const struct wm_group *grp, const struct entries *e,
	const char *exclude, const char *smoke_libraries)
{
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, "build-container"));
	const char *dir = wm_emit_project_dir(g->b.arena, g->m), *env = container_env(g, grp->backend, e, "");

	outline(g, step, 0);
	const char *script = wm_emit_before_script(&g->b, grp->backend, "github", "before-script");

	add_env(g, step, "WM_IMAGE", value(g, e, F_IMAGE));
	add_env(g, step, "WM_PROJECT_DIR", wm_yaml_str(&g->b, dir && *dir ? dir : "."));
	add_env(g, step, "WM_PYTHON", value(g, e, F_PYTHON));
	add_env(g, step, "WM_TARGET", value(g, e, F_TARGET));
	add_env(g, step, "WM_COMPATIBILITY", value(g, e, F_COMPAT));
	add_env(g, step, "WM_MATURIN", wm_yaml_str(&g->b, g->m->maturin));
	add_env(g, step, "WM_AUDITWHEEL", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "auditwheel")));
	add_env(g, step, "WM_REPAIR_EXCLUDE", wm_yaml_str(&g->b, exclude));
	/* set even when empty: the script passes it into the container by name */
	add_env(g, step, "WM_SMOKE_LIBRARIES", wm_yaml_str(&g->b, smoke_libraries ? smoke_libraries : ""));
	add_env(g, step, "WM_SCCACHE", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "sccache")));
	/* the build settings, each passed into the container by name where a job sets it */
	{
		struct wm_buf names = WM_BUF_INIT;
		if (env)
			wm_buf_puts(&names, env);
		if (!all(e, F_ARGS, "--release")) {
			add_env(g, step, "WM_BUILD_ARGS", value(g, e, F_ARGS));
			wm_buf_printf(&names, "%sWM_BUILD_ARGS", names.len ? " " : "");
		}
		if (!all_null(e, F_TOOLCHAIN)) {
			add_env(g, step, "WM_RUST_TOOLCHAIN", value(g, e, F_TOOLCHAIN));
			wm_buf_printf(&names, "%sWM_RUST_TOOLCHAIN", names.len ? " " : "");
		}
		if (!all_null(e, F_COMPONENTS)) {
			add_env(g, step, "WM_RUSTUP_COMPONENTS", value(g, e, F_COMPONENTS));
			wm_buf_printf(&names, "%sWM_RUSTUP_COMPONENTS", names.len ? " " : "");
		}
		if (!all(e, F_ZIG, "false")) {
			/* installed for every entry of the job, the zig of those that link with it */
			add_env(g, step, "WM_ZIGLANG", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "ziglang")));
			wm_buf_printf(&names, "%sWM_ZIGLANG", names.len ? " " : "");
		}
		if (!all_null(e, F_DOCKER))
			add_env(g, step, "WM_DOCKER_OPTIONS", value(g, e, F_DOCKER));
		env = wm_emit_keep(&g->b, &names);
	}
	if (env)
		add_env(g, step, "WM_CONTAINER_ENV", wm_yaml_str(&g->b, env));
	if (script)
		add_env(g, step, "WM_BEFORE_SCRIPT", wm_yaml_literal(&g->b, script));
}

static void add_toolkit_steps(struct gh *g, struct wm_y *steps, const struct wm_backend *b, enum wm_os os)
{
	for (size_t t = 0; t < b->ntoolkits; t++) {
		const struct wm_node *list = wm_emit_recipe(&b->toolkits[t], "github", os, "steps");
		for (size_t i = 0; list && i < list->n; i++) {
			struct wm_y *step = wm_yaml_copy(&g->b, list->items[i]);
			wm_emit_recipe_subst(&g->b, step, &b->toolkits[t]);
			wm_yaml_push(&g->b, steps, step);
		}
	}
}

static void add_setup_steps(struct gh *g, struct wm_y *steps, const struct wm_backend *b, enum wm_os os)
{
	const struct wm_node *list = wm_yaml_find(wm_yaml_find(b->setup, "github"), wm_catalog_os_name(os));
	for (size_t i = 0; list && i < list->n; i++)
		wm_yaml_push(&g->b, steps, wm_yaml_copy(&g->b, list->items[i]));
}

/* The items of `l`, one a line (NULL: none), for a script that reads them line by line. */
static const char *lines(struct gh *g, const struct wm_strlist *l, const char *sep)
{
	struct wm_buf out = WM_BUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		wm_buf_printf(&out, "%s%s", i ? sep : "", l->items[i]);
	return wm_emit_keep(&g->b, &out);
}

/* The project's tests (the piece `test`), their values from the matrix through `env:` alone. */
static struct wm_y *add_test_step(struct gh *g, struct wm_y *steps, const struct wm_backend *b)
{
	const struct wm_test *t = b->test;
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, "test"));
	const char *s;
	add_env(g, step, "WM_TEST_COMMAND", wm_yaml_str(&g->b, t->command));
	if ((s = lines(g, &t->requires, "\n")))
		add_env(g, step, "WM_TEST_REQUIRES", wm_yaml_str(&g->b, s));
	if ((s = lines(g, &t->extras, ",")))
		add_env(g, step, "WM_TEST_EXTRAS", wm_yaml_str(&g->b, s));
	if ((s = lines(g, &t->sources, "\n")))
		add_env(g, step, "WM_TEST_SOURCES", wm_yaml_str(&g->b, s));
	return step;
}

/*
 * The import test and the tests of the entries with a test image (F_TEST_IMAGE), in that image: the
 * piece `test-image`, the run: text of `smoke` and `test` in place of its line `# smoke, test`.
 */
static void add_image_step(struct gh *g, struct wm_y *steps, const struct wm_group *grp, const struct entries *e,
	const char *exclude, const char *smoke_libraries)
{
	const struct wm_backend *b = grp->backend;
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, "test-image"));
	struct wm_y *run = wm_yaml_get(step, "run"), *smoke = piece(g, "smoke"), *test = NULL;
	const char *env = container_env(g, b, e, ""), *at, *mark = "# smoke, test\n";
	struct wm_buf out = WM_BUF_INIT;

	if (!run || !run->text || !(at = strstr(run->text, mark)) || !(smoke = wm_yaml_get(smoke, "run"))) {
		g->b.oom = true;
		return;
	}
	if (!e->same[F_TEST_IMAGE])
		wm_yaml_set_before(&g->b, step, "run", "if", wm_yaml_str(&g->b, "matrix.test-image"));
	wm_buf_printf(&out, "%.*s(\n%s)\n", (int)(at - run->text), run->text, smoke->text);
	if (!all(e, F_IMAGE_TEST, "false")) {
		/* the step `test` holds the test's values in its env: */
		test = add_test_step(g, wm_yaml_seq(&g->b), b);
		if (!wm_yaml_get(test, "run")) {
			g->b.oom = true;
			wm_buf_release(&out);
			return;
		}
		wm_buf_printf(&out, "if [ \"$WM_TEST\" = true ]; then (\n%s) fi\n", wm_yaml_get(test, "run")->text);
	}
	wm_buf_puts(&out, at + strlen(mark));
	wm_yaml_set(&g->b, step, "run", wm_yaml_literal(&g->b, wm_emit_keep(&g->b, &out)));
	add_env(g, step, "WM_IMAGE", value(g, e, F_TEST_IMAGE));
	add_env(g, step, "WM_PYTHON", value(g, e, F_PYTHON));
	add_env(g, step, "WM_MODULE", wm_yaml_str(&g->b, wm_emit_module(g->b.arena, g->m, b)));
	if (exclude)
		add_env(g, step, "WM_REPAIR_EXCLUDE", wm_yaml_str(&g->b, exclude));
	if (smoke_libraries)
		add_env(g, step, "WM_LIBRARY_PATH", wm_yaml_str(&g->b, "smoke-libraries"));
	if (test) {
		struct wm_y *vars = wm_yaml_get(test, "env");
		add_env(g, step, "WM_TEST", value(g, e, F_IMAGE_TEST));
		for (size_t i = 0; vars && i + 1 < vars->n; i += 2)
			add_env(g, step, vars->items[i]->text, vars->items[i + 1]);
	}
	if (env)
		add_env(g, step, "WM_CONTAINER_ENV", wm_yaml_str(&g->b, env));
}

/* The test job of a build job, `test-<backend>-<os>`: the build job's name with `test` for `build`. */
static const char *test_job_name(struct gh *g, const struct wm_group *grp)
{
	const char *rest = strncmp(grp->name, "build-", 6) == 0 ? grp->name + 6 : grp->name;
	return wm_arena_printf(g->b.arena, "test-%s", rest);
}

static void add_download_to(struct gh *g, struct wm_y *steps, const char *kind, const char *key, struct wm_y *v,
	struct wm_y *path);

/*
 * A backend with a test runner (`test.runner`): its build job's wheels tested there, each in a job
 * of the test job's matrix, after the build job, from the build's artifact, with the build's
 * import test and then the project's tests.  Nothing is built on the test runner.
 */
static void test_job(struct gh *g, struct wm_y *jobs, const struct wm_group *grp, const struct entries *e)
{
	const struct wm_backend *b = grp->backend;
	const char *exclude = wm_emit_repair_exclude(&g->b, b, grp->os);
	struct wm_y *job, *needs, *strategy, *matrix, *list, *steps, *step, *with, *runs_on;

	job = wm_yaml_set(&g->b, jobs, test_job_name(g, grp), wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_str(&g->b, "test ${{ matrix.id }}"));
	needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, grp->name));
	if (b->test->runner.n == 1) {
		runs_on = wm_yaml_str(&g->b, b->test->runner.items[0]);
	} else {
		runs_on = wm_yaml_seq(&g->b);
		for (size_t i = 0; i < b->test->runner.n; i++)
			wm_yaml_push(&g->b, runs_on, wm_yaml_str(&g->b, b->test->runner.items[i]));
	}
	wm_yaml_set(&g->b, job, "runs-on", runs_on);
	strategy = wm_yaml_set(&g->b, job, "strategy", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, strategy, "fail-fast", wm_yaml_bool(&g->b, false));
	matrix = wm_yaml_set(&g->b, strategy, "matrix", wm_yaml_map(&g->b));
	list = wm_yaml_set(&g->b, matrix, "include", wm_yaml_seq(&g->b));
	for (size_t i = 0; i < e->n; i++) {
		struct wm_y *entry;
		if (!e->test_job[i])
			continue;
		entry = wm_yaml_push(&g->b, list, wm_yaml_map(&g->b));
		wm_yaml_set(&g->b, entry, "id", wm_yaml_str(&g->b, e->values[F_ID][i]));
		wm_yaml_set(&g->b, entry, "python-version", wm_yaml_str(&g->b, e->values[F_PYTHON][i]));
		if (e->values[F_ARCH][i])
			wm_yaml_set(&g->b, entry, "architecture", wm_yaml_str(&g->b, e->values[F_ARCH][i]));
	}
	/* the build job's environment where its entries agree on it (the tests may read it); a value
	 * that differs between entries stays the build's, in its matrix */
	{
		const char **names;
		size_t n = env_names(g, b, e, &names);
		struct wm_y *env = NULL;
		for (size_t i = 0; i < n; i++)
			if (!env_varies(b, e, names[i])) {
				if (!env)
					env = wm_yaml_set(&g->b, job, "env", wm_yaml_map(&g->b));
				wm_yaml_set(&g->b, env, names[i], wm_yaml_str(&g->b, entry_env(b, e, 0, names[i])));
			}
	}
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	step = wm_yaml_push(&g->b, steps, piece(g, "setup-python"));
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "python-version", wm_yaml_str(&g->b, "${{ matrix.python-version }}"));
	if (e->values[F_ARCH][0])
		wm_yaml_set(&g->b, with, "architecture", wm_yaml_str(&g->b, "${{ matrix.architecture }}"));
	add_download_to(g, steps, "download-sdist", "name", wm_yaml_str(&g->b, "wheels-${{ matrix.id }}"), NULL);
	if (steps && steps->n)
		wm_yaml_set(&g->b, steps->items[steps->n - 1], "name", wm_yaml_str(&g->b, "Download the wheel"));
	/* the import test too, whatever `smoke` says of the build runner: this one has the hardware */
	step = wm_yaml_push(&g->b, steps, piece(g, "smoke"));
	add_env(g, step, "WM_MODULE", wm_yaml_str(&g->b, wm_emit_module(g->b.arena, g->m, b)));
	if (exclude)
		add_env(g, step, "WM_REPAIR_EXCLUDE", wm_yaml_str(&g->b, exclude));
	add_test_step(g, steps, b);
}

static int build_job(struct gh *g, struct wm_y *jobs, const struct wm_group *grp)
{
	const struct wm_backend *b = grp->backend;
	struct wm_y *job, *strategy, *matrix, *steps, *step;
	struct entries e;
	const char *exclude = wm_emit_repair_exclude(&g->b, b, grp->os);
	/* the build copies what the import test needs only where the repair leaves libraries out */
	const char *smoke_libraries = build_in_container(grp, exclude) ? wm_emit_smoke_libraries(&g->b, b, grp->os) : NULL;
	const char **names;
	size_t nnames;
	bool host;
	int ret;

	if ((ret = collect(g, grp, &e, build_in_container(grp, exclude))) < 0)
		return ret;
	nnames = env_names(g, b, &e, &names);
	if ((ret = matrix_secrets(g, grp, &e, names, nnames)) < 0)
		return ret;
	job = wm_yaml_set(&g->b, jobs, grp->name, wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_str(&g->b, "build ${{ matrix.id }}"));
	wm_yaml_set(&g->b, job, "runs-on", value(g, &e, F_RUNNER));
	strategy = wm_yaml_set(&g->b, job, "strategy", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, strategy, "fail-fast", wm_yaml_bool(&g->b, false));
	matrix = wm_yaml_set(&g->b, strategy, "matrix", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, matrix, "include", include_list(g, b, &e));
	/* the variables every entry sets alike are the job's; the others, the step set-env's */
	for (size_t i = 0, varying = 0; i < nnames; i++) {
		struct wm_y *env = wm_yaml_get(job, "env");
		if (env_varies(b, &e, names[i])) {
			varying++;
			continue;
		}
		if (!env)
			env = wm_yaml_set(&g->b, job, "env", wm_yaml_map(&g->b));
		wm_yaml_set(&g->b, env, names[i], wm_yaml_str(&g->b, entry_env(b, &e, 0, names[i])));
		(void)varying;
	}
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	add_set_env(g, steps, b, &e, names, nnames);
	add_patch_step(g, steps, b);
	add_setup_steps(g, steps, b, grp->os);
	/* a Linux build on the runner (container off, zig) takes the interpreter from setup-python, as off Linux */
	host = grp->os == WM_OS_LINUX && e.host && !build_in_container(grp, exclude);
	if (e.pyodide)
		add_pyodide_steps(g, steps, &e);
	else if (grp->os != WM_OS_LINUX || host)
		add_setup_python(g, steps, &e, false);
	add_toolkit_steps(g, steps, b, grp->os);
	if (build_in_container(grp, exclude)) {
		wm_yaml_push(&g->b, steps, piece(g, "build-cache"));
		add_container_step(g, steps, grp, &e, exclude,
			all(&e, F_SMOKE, "false") && !e.values[F_TEST_IMAGE][0] && e.same[F_TEST_IMAGE] ? NULL : smoke_libraries);
	} else {
		/* maturin-action installs zig unpinned: the pinned one first, which pip then keeps */
		if (host && !all(&e, F_ZIG, "false")) {
			step = wm_yaml_push(&g->b, steps, piece(g, "install-zig"));
			if (!e.same[F_ZIG])
				wm_yaml_set_before(&g->b, step, "run", "if", wm_yaml_str(&g->b, "matrix.zig"));
			add_env(g, step, "WM_ZIGLANG", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "ziglang")));
		}
		add_build_step(g, steps, grp, &e);
		if (exclude && grp->os == WM_OS_WINDOWS) {
			step = wm_yaml_push(&g->b, steps, piece(g, "repair-windows"));
			add_env(g, step, "WM_REPAIR_EXCLUDE", wm_yaml_str(&g->b, exclude));
			add_env(g, step, "WM_DELVEWHEEL", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "delvewheel")));
		}
	}
	if (!all(&e, F_SMOKE, "false")) {
		if (grp->os == WM_OS_LINUX && !host)
			add_setup_python(g, steps, &e, true);
		step = wm_yaml_push(&g->b, steps, piece(g, e.pyodide ? "smoke-pyodide" : "smoke"));
		if (!e.same[F_SMOKE])
			wm_yaml_set_before(&g->b, step, "run", "if", wm_yaml_str(&g->b, "matrix.smoke"));
		add_env(g, step, "WM_MODULE", wm_yaml_str(&g->b, wm_emit_module(g->b.arena, g->m, grp->backend)));
		if (exclude)
			add_env(g, step, "WM_REPAIR_EXCLUDE", wm_yaml_str(&g->b, exclude));
		if (smoke_libraries)
			add_env(g, step, "WM_LIBRARY_PATH", wm_yaml_str(&g->b, "smoke-libraries"));
	}
	if (!all(&e, F_TEST, "false")) {
		step = add_test_step(g, steps, b);
		if (!e.same[F_TEST])
			wm_yaml_set_before(&g->b, step, "env", "if", wm_yaml_str(&g->b, "matrix.test"));
		if (smoke_libraries)
			add_env(g, step, "WM_LIBRARY_PATH", wm_yaml_str(&g->b, "smoke-libraries"));
	}
	if (!e.same[F_TEST_IMAGE] || e.values[F_TEST_IMAGE][0])
		add_image_step(g, steps, grp, &e, exclude, smoke_libraries);
	step = wm_yaml_push(&g->b, steps, piece(g, "upload-wheels"));
	wm_yaml_set(&g->b, wm_yaml_get(step, "with"), "name", wm_yaml_str(&g->b, "wheels-${{ matrix.id }}"));
	/* name first: move `path` and `if-no-files-found` after it */
	if (step) {
		struct wm_y *with = wm_yaml_get(step, "with"), *ordered = wm_yaml_map(&g->b);
		wm_yaml_set(&g->b, ordered, "name", wm_yaml_get(with, "name"));
		wm_yaml_set(&g->b, ordered, "path", wm_yaml_get(with, "path"));
		wm_yaml_set(&g->b, ordered, "if-no-files-found", wm_yaml_get(with, "if-no-files-found"));
		wm_yaml_set(&g->b, step, "with", ordered);
	}
	if (e.ntest_job)
		test_job(g, jobs, grp, &e);
	return 0;
}

/* ---- sdist and publish ---------------------------------------------------------------- */

static void sdist_job(struct gh *g, struct wm_y *jobs, const struct wm_backend *b)
{
	char name[64];
	struct wm_y *job, *steps, *step, *with;
	snprintf(name, sizeof(name), "sdist-%s", b->id);
	job = wm_yaml_set(&g->b, jobs, name, wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_strf(&g->b, "sdist %s", b->dist));
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	add_patch_step(g, steps, b);
	step = wm_yaml_push(&g->b, steps, piece(g, "sdist"));
	with = wm_yaml_get(step, "with");
	if (step) {
		struct wm_y *ordered = wm_yaml_map(&g->b);
		const char *dir = wm_emit_project_dir(g->b.arena, g->m);
		wm_yaml_set(&g->b, ordered, "maturin-version", wm_yaml_str(&g->b, g->m->maturin));
		if (dir && *dir)
			wm_yaml_set(&g->b, ordered, "working-directory", wm_yaml_str(&g->b, dir));
		wm_yaml_set(&g->b, ordered, "command", wm_yaml_get(with, "command"));
		wm_yaml_set(&g->b, ordered, "args", wm_yaml_strf(&g->b, "--out %s", wm_emit_out_dir(g->b.arena, g->m)));
		wm_yaml_set(&g->b, step, "with", ordered);
	}
	step = wm_yaml_push(&g->b, steps, piece(g, "upload-sdist"));
	if (step) {
		struct wm_y *ordered = wm_yaml_map(&g->b);
		with = wm_yaml_get(step, "with");
		wm_yaml_set(&g->b, ordered, "name", wm_yaml_str(&g->b, wm_arena_strdup(g->b.arena, name)));
		wm_yaml_set(&g->b, ordered, "path", wm_yaml_get(with, "path"));
		wm_yaml_set(&g->b, ordered, "if-no-files-found", wm_yaml_get(with, "if-no-files-found"));
		wm_yaml_set(&g->b, step, "with", ordered);
	}
}

#define TAG_JOB "wheelmatrix-tag"

/*
 * A job that publishes waits for the tag check, one job for all of them (tag_job): the tag must
 * name the project's version.
 */
static void add_tag_need(struct gh *g, struct wm_y *needs)
{
	wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, TAG_JOB));
	g->tag = true;
}

/*
 * The job wheelmatrix-tag, on tags only, when a job publishes: the checkout and the check that
 * the tag names the project's version (templates/check-version.py).  It goes just after the drift
 * check, before the build jobs.
 */
static void tag_job(struct gh *g, struct wm_y *jobs)
{
	struct wm_y *job, *steps, *step;
	const char *before = NULL;
	for (size_t i = 0; i + 1 < jobs->n && !before; i += 2)
		if (strcmp(jobs->items[i]->text, CHECK_JOB) != 0)
			before = jobs->items[i]->text;
	job = wm_yaml_set_before(&g->b, jobs, before, TAG_JOB, piece(g, "tag-job"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	step = wm_yaml_push(&g->b, steps, piece(g, "check-version"));
	outline(g, step, 1);
	add_env(g, step, "WM_PYPROJECT", wm_yaml_str(&g->b, g->m->pyproject));
	add_env(g, step, "WM_MANIFEST", wm_yaml_str(&g->b, g->m->manifest));
	add_env(g, step, "WM_TAG", wm_yaml_str(&g->b, "${{ github.ref_name }}"));
}

/*
 * A publish job of distribution `dist` up to its downloads: on tags only, in
 * the environment, the tag checked against the project's version.  Its
 * `needs` list is returned in *needs.
 */
static struct wm_y *publish_base(struct gh *g, struct wm_y *jobs, const char *name, const char *dist,
	struct wm_y **needs)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job, *env, *perms;

	job = wm_yaml_set(&g->b, jobs, wm_arena_strdup(g->b.arena, name), wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_strf(&g->b, "publish %s", dist));
	wm_yaml_set(&g->b, job, "if", wm_yaml_str(&g->b, "startsWith(github.ref, 'refs/tags/')"));
	*needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	add_check_need(g, *needs);
	add_tag_need(g, *needs);
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	env = wm_yaml_set(&g->b, job, "environment", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, env, "name", wm_yaml_str(&g->b, m->environment));
	wm_yaml_set(&g->b, env, "url", wm_yaml_strf(&g->b, "https://pypi.org/p/%s", dist));
	/* the OIDC token signs the build provenance (and, trusted, logs in to PyPI and signs the
	 * PEP 740 attestations); attestations: write stores the provenance */
	perms = wm_yaml_set(&g->b, job, "permissions", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, perms, "contents", wm_yaml_str(&g->b, "read"));
	wm_yaml_set(&g->b, perms, "id-token", wm_yaml_str(&g->b, "write"));
	wm_yaml_set(&g->b, perms, "attestations", wm_yaml_str(&g->b, "write"));
	return wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
}

/* A download step of the piece `kind` with `key` (pattern or name) first, into `path` (NULL: the piece's). */
static void add_download_to(struct gh *g, struct wm_y *steps, const char *kind, const char *key, struct wm_y *v,
	struct wm_y *path)
{
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, kind));
	if (step) {
		struct wm_y *with = wm_yaml_get(step, "with"), *ordered = wm_yaml_map(&g->b);
		wm_yaml_set(&g->b, ordered, key, v);
		wm_yaml_set(&g->b, ordered, "path", path ? path : wm_yaml_get(with, "path"));
		if (wm_yaml_get(with, "merge-multiple"))
			wm_yaml_set(&g->b, ordered, "merge-multiple", wm_yaml_get(with, "merge-multiple"));
		wm_yaml_set(&g->b, step, "with", ordered);
	}
}

static void add_download(struct gh *g, struct wm_y *steps, const char *kind, const char *key, struct wm_y *v)
{
	add_download_to(g, steps, kind, key, v, NULL);
}

/* The provenance of every wheel and sdist in dist/ (`actions/attest`). */
static void add_attest(struct gh *g, struct wm_y *steps)
{
	struct wm_y *step = wm_yaml_push(&g->b, steps, piece(g, "attest")), *with;
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "subject-path", wm_yaml_literal(&g->b, "dist/*.whl\ndist/*.tar.gz\n"));
}

/*
 * The provenance of the downloaded files, then their upload: with PEP 740
 * attestations under trusted publishing; with the token, without them (PyPI
 * takes attestations from a trusted publisher only).
 */
static void add_publish(struct gh *g, struct wm_y *steps)
{
	struct wm_y *step, *with;
	add_attest(g, steps);
	step = wm_yaml_push(&g->b, steps, piece(g, "publish"));
	with = wm_yaml_get(step, "with");
	if (!g->m->trusted)
		wm_yaml_set(&g->b, with, "password", wm_yaml_str(&g->b, "${{ secrets.PYPI_API_TOKEN }}"));
	wm_yaml_set(&g->b, with, "attestations", wm_yaml_bool(&g->b, g->m->trusted));
}

/* Whether build job `grp` has a test job (test_job): an entry whose tests run on the test runner. */
static bool has_test_job(const struct wm_matrix *m, const struct wm_group *grp)
{
	struct wm_expand *it = NULL;
	struct wm_job job;
	bool found = false;
	if (!grp->backend->test || !grp->backend->test->runner.n || wm_expand_new_group(&it, m, grp) < 0)
		return false;
	while (!found && wm_expand_next(it, &job) > 0) {
		const char *why;
		found = wm_jobs_tests(&job, &why) == WM_TESTS_TEST_JOB;
	}
	wm_expand_free(it);
	return found;
}

/* Build job `grp` and its test job, if it has one, into `needs`: a wheel is published once its tests pass. */
static void add_group_needs(struct gh *g, struct wm_y *needs, const struct wm_group *grp)
{
	wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, grp->name));
	if (has_test_job(g->m, grp))
		wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, test_job_name(g, grp)));
}

/* A backend's build jobs (and test jobs) and its sdist job, into `needs`. */
static void add_build_needs(struct gh *g, struct wm_y *needs, const struct wm_backend *b)
{
	for (size_t i = 0; i < g->m->ngroups; i++)
		if (g->m->groups[i].backend == b)
			add_group_needs(g, needs, &g->m->groups[i]);
	wm_yaml_push(&g->b, needs, wm_yaml_strf(&g->b, "sdist-%s", b->id));
}

static void publish_job(struct gh *g, struct wm_y *jobs, const struct wm_backend *b)
{
	char name[64];
	struct wm_y *needs, *steps;

	snprintf(name, sizeof(name), "publish-%s", b->id);
	steps = publish_base(g, jobs, name, b->dist, &needs);
	add_build_needs(g, needs, b);
	add_download(g, steps, "download-wheels", "pattern", wm_yaml_strf(&g->b, "wheels-%s-*", b->id));
	add_download(g, steps, "download-sdist", "name", wm_yaml_strf(&g->b, "sdist-%s", b->id));
	add_publish(g, steps);
}

/*
 * Strategy meta: the meta package's build job and artifact, `meta-package`,
 * and its publish job, which waits for every backend's: its pins must never
 * reach the index first.  No backend id has a '-', so neither name can be a
 * backend's job, and no backend's download pattern matches the artifact.
 */
static void meta_jobs(struct gh *g, struct wm_y *jobs, const bool *published)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job, *steps, *step, *with, *needs;

	job = wm_yaml_set(&g->b, jobs, "meta-package", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_strf(&g->b, "meta package %s", m->name));
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	step = wm_yaml_push(&g->b, steps, piece(g, "setup-python"));
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "python-version", wm_yaml_str(&g->b, "3.12"));
	step = wm_yaml_push(&g->b, steps, piece(g, "meta-build"));
	add_env(g, step, "WM_BUILD", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "build")));
	step = wm_yaml_push(&g->b, steps, piece(g, "upload-meta"));
	if (step) {
		struct wm_y *ordered = wm_yaml_map(&g->b);
		with = wm_yaml_get(step, "with");
		wm_yaml_set(&g->b, ordered, "name", wm_yaml_str(&g->b, "meta-package"));
		wm_yaml_set(&g->b, ordered, "path", wm_yaml_get(with, "path"));
		wm_yaml_set(&g->b, ordered, "if-no-files-found", wm_yaml_get(with, "if-no-files-found"));
		wm_yaml_set(&g->b, step, "with", ordered);
	}
	steps = publish_base(g, jobs, "publish-meta-package", m->name, &needs);
	wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, "meta-package"));
	for (size_t i = 0; i < m->nbackends; i++)
		if (published[i])
			wm_yaml_push(&g->b, needs, wm_yaml_strf(&g->b, "publish-%s", m->backends[i]->id));
	add_download(g, steps, "download-meta", "name", wm_yaml_str(&g->b, "meta-package"));
	add_publish(g, steps);
}

/*
 * publish.github-release: on tags, once every publish job has succeeded, a
 * release of the tag with every distribution's files; the job's token may
 * write the repository's contents (the release) and nothing else.
 */
static void release_job(struct gh *g, struct wm_y *jobs, const bool *published)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job, *needs, *perms, *steps;

	job = wm_yaml_set(&g->b, jobs, "github-release", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_str(&g->b, "GitHub release"));
	wm_yaml_set(&g->b, job, "if", wm_yaml_str(&g->b, "startsWith(github.ref, 'refs/tags/')"));
	needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	for (size_t i = 0; i < m->nbackends; i++)
		if (published[i])
			wm_yaml_push(&g->b, needs, wm_yaml_strf(&g->b, "publish-%s", m->backends[i]->id));
	if (m->strategy == WM_STRATEGY_META)
		wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, "publish-meta-package"));
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	perms = wm_yaml_set(&g->b, job, "permissions", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, perms, "contents", wm_yaml_str(&g->b, "write"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	if (m->strategy == WM_STRATEGY_INDEX || m->strategy == WM_STRATEGY_VARIANTS) {
		/* the default backend's files alone: the others are in releases of their own (index_job,
		 * variants_job) */
		const char *id = m->default_backend->id;
		add_download(g, steps, "download-wheels", "pattern", wm_yaml_strf(&g->b, "wheels-%s-*", id));
		add_download(g, steps, "download-sdist", "name", wm_yaml_strf(&g->b, "sdist-%s", id));
	} else {
		wm_yaml_push(&g->b, steps, piece(g, "download-all"));
	}
	wm_yaml_push(&g->b, steps, piece(g, "github-release"));
}

/* ---- strategy index ---------------------------------------------------------------------- */

/* A job that creates a GitHub release of attested files: it writes the repository's contents, signs and stores the provenance. */
static void add_release_permissions(struct gh *g, struct wm_y *job)
{
	struct wm_y *perms = wm_yaml_set(&g->b, job, "permissions", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, perms, "contents", wm_yaml_str(&g->b, "write"));
	wm_yaml_set(&g->b, perms, "id-token", wm_yaml_str(&g->b, "write"));
	wm_yaml_set(&g->b, perms, "attestations", wm_yaml_str(&g->b, "write"));
}

/*
 * A backend other than the default, on tags: its wheels and sdist, their
 * build provenance, and a GitHub release of their own, tag <tag>-<backend>
 * created at the workflow's commit.  The job may write the repository's
 * contents (the release) and sign and store the provenance, nothing else.
 */
static void index_job(struct gh *g, struct wm_y *jobs, const struct wm_backend *b)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job, *needs, *steps, *step;

	job = wm_yaml_set(&g->b, jobs, wm_arena_printf(g->b.arena, "index-%s", b->id), wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_strf(&g->b, "release %s %s", m->name, b->id));
	wm_yaml_set(&g->b, job, "if", wm_yaml_str(&g->b, "startsWith(github.ref, 'refs/tags/')"));
	needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	add_check_need(g, needs);
	add_tag_need(g, needs);
	add_build_needs(g, needs, b);
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	add_release_permissions(g, job);
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	add_download(g, steps, "download-wheels", "pattern", wm_yaml_strf(&g->b, "wheels-%s-*", b->id));
	add_download(g, steps, "download-sdist", "name", wm_yaml_strf(&g->b, "sdist-%s", b->id));
	add_attest(g, steps);
	step = wm_yaml_push(&g->b, steps, piece(g, "index-release"));
	add_env(g, step, "WM_BACKEND", wm_yaml_str(&g->b, b->id));
	add_env(g, step, "WM_PROJECT", wm_yaml_str(&g->b, m->name));
	add_env(g, step, "WM_INDEX_URL", wm_yaml_str(&g->b, m->index_url));
}

/* The step's `run` with the line holding `marker` from the marker on replaced by `text`. */
static void replace_marker(struct gh *g, struct wm_y *step, const char *marker, const char *text)
{
	struct wm_y *run = wm_yaml_get(step, "run");
	const char *at = run && run->text && text ? strstr(run->text, marker) : NULL;
	const char *rest;
	if (!at) {
		wm_error_nopos(g->err, WM_EINTERNAL, WM_SEV_ERROR, g->skel.file,
			"no '%s' in the piece's run", marker);
		return;
	}
	rest = at + strlen(marker);
	if (*rest == '\n')
		rest++;
	wm_yaml_set(&g->b, step, "run", wm_yaml_literal(&g->b, wm_arena_printf(g->b.arena, "%.*s%s%s",
		(int)(at - run->text), run->text, text, rest)));
}

/*
 * After every index-<backend> job: the indexes of those backends laid out by
 * templates/index-pages.py below the Pages site's base URL, where
 * distribution.index.url says, uploaded as the Pages artifact (the job reads
 * the repository and nothing else); then its deployment, in the github-pages
 * environment, with the permissions Pages asks for.
 */
static void index_pages_jobs(struct gh *g, struct wm_y *jobs, const bool *indexed)
{
	const struct wm_matrix *m = g->m;
	struct wm_y *job, *needs, *perms, *steps, *step, *env;
	struct wm_buf ids = WM_BUF_INIT;

	job = wm_yaml_set(&g->b, jobs, "index-pages", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_strf(&g->b, indexed ? "package indexes of %s" : "variant index of %s",
		m->name));
	wm_yaml_set(&g->b, job, "if", wm_yaml_str(&g->b, "startsWith(github.ref, 'refs/tags/')"));
	needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	for (size_t i = 0; indexed && i < m->nbackends; i++)
		if (indexed[i]) {
			wm_yaml_push(&g->b, needs, wm_yaml_strf(&g->b, "index-%s", m->backends[i]->id));
			wm_buf_printf(&ids, "%s%s", ids.len ? " " : "", m->backends[i]->id);
		}
	if (!indexed) {
		/* strategy variants: one index, <path>/<project>/, of the files in the release <tag>-variants */
		wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, "variants"));
		wm_buf_puts(&ids, "variants");
	}
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	perms = wm_yaml_set(&g->b, job, "permissions", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, perms, "contents", wm_yaml_str(&g->b, "read"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "configure-pages"));
	for (size_t i = 0; indexed && i < m->nbackends; i++)
		if (indexed[i]) {
			const char *id = m->backends[i]->id;
			struct wm_y *dir = wm_yaml_strf(&g->b, "dist/%s", id);
			add_download_to(g, steps, "download-wheels", "pattern", wm_yaml_strf(&g->b, "wheels-%s-*", id), dir);
			add_download_to(g, steps, "download-sdist", "name", wm_yaml_strf(&g->b, "sdist-%s", id), dir);
		}
	if (!indexed) {
		add_download_to(g, steps, "download-sdist", "name", wm_yaml_str(&g->b, "variants"),
			wm_yaml_str(&g->b, "dist/variants"));
		if (steps && steps->n)
			wm_yaml_set(&g->b, steps->items[steps->n - 1], "name", wm_yaml_str(&g->b, "Download the variant wheels"));
	}
	step = wm_yaml_push(&g->b, steps, piece(g, "index-pages"));
	if (step && !indexed)
		wm_yaml_set(&g->b, step, "name", wm_yaml_str(&g->b, "Lay out the variant index"));
	if (step && indexed)
		replace_marker(g, step, "@index-pages@", wm_emit_index_pages(&g->b,
			"--site \"$site\" --backend \"$backend\" --project \"$WM_PROJECT\" --files-url \"$files_url\" \\\n"
			"  --previous \"$index\" \"${files[@]}\""));
	else if (step)
		replace_marker(g, step, "@index-pages@", wm_emit_index_pages(&g->b,
			"--variants --site \"$site\" --project \"$WM_PROJECT\" --files-url \"$files_url\" \\\n"
			"  --previous \"$index\" \"${files[@]}\""));
	add_env(g, step, "WM_INDEX_URL", wm_yaml_str(&g->b, m->index_url));
	add_env(g, step, "WM_PROJECT", wm_yaml_str(&g->b, m->name));
	add_env(g, step, "WM_BACKENDS", wm_yaml_str(&g->b, wm_emit_keep(&g->b, &ids)));
	wm_yaml_push(&g->b, steps, piece(g, "upload-pages"));

	job = wm_yaml_set(&g->b, jobs, "deploy-pages", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_str(&g->b, "deploy the package indexes"));
	wm_yaml_set(&g->b, job, "if", wm_yaml_str(&g->b, "startsWith(github.ref, 'refs/tags/')"));
	needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, "index-pages"));
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	env = wm_yaml_set(&g->b, job, "environment", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, env, "name", wm_yaml_str(&g->b, "github-pages"));
	wm_yaml_set(&g->b, env, "url", wm_yaml_str(&g->b, "${{ steps.deploy.outputs.page_url }}"));
	/* pages: write deploys; the OIDC token proves the deployment comes from this workflow */
	perms = wm_yaml_set(&g->b, job, "permissions", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, perms, "pages", wm_yaml_str(&g->b, "write"));
	wm_yaml_set(&g->b, perms, "id-token", wm_yaml_str(&g->b, "write"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "deploy-pages"));
}

/* ---- strategy variants ------------------------------------------------------------------- */

/* A backend's variant properties for `variantlib make-variant --property` (see emit.h). */
static const char *variant_properties(struct gh *g, const struct wm_backend *b)
{
	struct wm_buf out = WM_BUF_INIT;
	const char *s;
	wm_emit_variant_properties(&out, b);
	s = wm_emit_keep(&g->b, &out);
	return s ? s : "";  /* the null variant has none */
}

/*
 * On tags, after every build job and the default backend's sdist: each backend's wheels made
 * variant wheels with variantlib (the default's the null variant), the release's variants.json,
 * the default backend's plain wheels and sdist beside them, their build provenance, and a GitHub
 * release of their own, tag <tag>-variants; the files also go to the artifact `variants` for the
 * Pages job.  The job may write the repository's contents (the release) and sign and store the
 * provenance, nothing else.  No backend id has a '-', so no backend's artifact is `variants`.
 */
static void variants_job(struct gh *g, struct wm_y *jobs)
{
	const struct wm_matrix *m = g->m;
	const struct wm_backend *def = m->default_backend;
	struct wm_y *job, *needs, *steps, *step, *with;

	job = wm_yaml_set(&g->b, jobs, "variants", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, job, "name", wm_yaml_strf(&g->b, "variant wheels of %s", m->name));
	wm_yaml_set(&g->b, job, "if", wm_yaml_str(&g->b, "startsWith(github.ref, 'refs/tags/')"));
	needs = wm_yaml_set(&g->b, job, "needs", wm_yaml_seq(&g->b));
	add_check_need(g, needs);
	add_tag_need(g, needs);
	for (size_t i = 0; i < m->ngroups; i++)
		add_group_needs(g, needs, &m->groups[i]);
	wm_yaml_push(&g->b, needs, wm_yaml_strf(&g->b, "sdist-%s", def->id));
	wm_yaml_set(&g->b, job, "runs-on", wm_yaml_str(&g->b, "ubuntu-24.04"));
	add_release_permissions(g, job);
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	/* every backend's patch writes the same [variant] table: the default's gives make-variant its pyproject.toml */
	add_patch_step(g, steps, def);
	step = wm_yaml_push(&g->b, steps, piece(g, "setup-python"));
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "python-version", wm_yaml_str(&g->b, "3.12"));
	step = wm_yaml_push(&g->b, steps, piece(g, "install-variantlib"));
	add_env(g, step, "WM_VARIANTLIB", wm_yaml_str(&g->b, wm_catalog_tool(g->cat, "variantlib")));
	for (size_t i = 0; i < m->nbackends; i++) {
		const struct wm_backend *b = m->backends[i];
		bool built = false;
		for (size_t k = 0; k < m->ngroups && !built; k++)
			built = m->groups[k].backend == b;
		if (!built)
			continue;
		add_download_to(g, steps, "download-wheels", "pattern", wm_yaml_strf(&g->b, "wheels-%s-*", b->id),
			wm_yaml_strf(&g->b, "dist/%s", b->id));
		step = wm_yaml_push(&g->b, steps, piece(g, "make-variant"));
		wm_yaml_set(&g->b, step, "name", wm_yaml_strf(&g->b, "Make the variant wheels of %s (%s)", b->id,
			b->variant_label));
		add_env(g, step, "WM_BACKEND", wm_yaml_str(&g->b, b->id));
		add_env(g, step, "WM_VARIANT_LABEL", wm_yaml_str(&g->b, b->variant_label));
		add_env(g, step, "WM_VARIANT_PROPERTIES", wm_yaml_str(&g->b, variant_properties(g, b)));
		add_env(g, step, "WM_PYPROJECT", wm_yaml_str(&g->b, m->pyproject));
	}
	add_download_to(g, steps, "download-wheels", "pattern", wm_yaml_strf(&g->b, "wheels-%s-*", def->id),
		wm_yaml_str(&g->b, "dist/plain"));
	add_download_to(g, steps, "download-sdist", "name", wm_yaml_strf(&g->b, "sdist-%s", def->id),
		wm_yaml_str(&g->b, "dist/plain"));
	wm_yaml_push(&g->b, steps, piece(g, "variants-json"));
	step = wm_yaml_push(&g->b, steps, piece(g, "attest"));
	with = wm_yaml_set(&g->b, step, "with", wm_yaml_map(&g->b));
	wm_yaml_set(&g->b, with, "subject-path", wm_yaml_literal(&g->b, "variants/*\n"));
	step = wm_yaml_push(&g->b, steps, piece(g, "variants-release"));
	add_env(g, step, "WM_PROJECT", wm_yaml_str(&g->b, m->name));
	add_env(g, step, "WM_INDEX_URL", wm_yaml_str(&g->b, m->index_url));
	wm_yaml_push(&g->b, steps, piece(g, "upload-variants"));
}

/* Strategy index: a backend named `pages` would give its release job the Pages job's name. */
static int index_names(struct gh *g)
{
	const struct wm_matrix *m = g->m;
	for (size_t i = 0; m->strategy == WM_STRATEGY_INDEX && i < m->nbackends; i++) {
		const struct wm_backend *b = m->backends[i];
		if (!b->is_default && strcmp(b->id, "pages") == 0) {
			const struct wm_doc *doc = wm_matrix_doc(m);
			wm_error_add(g->err, WM_EINVALID, WM_SEV_ERROR, m->file, doc ? doc->text : NULL, doc ? doc->len : 0,
				b->loc.line, b->loc.column, 1, "under strategy 'index' the GitHub workflow's job 'index-pages' "
				"lays out the package indexes, so no backend but the default can be called 'pages': "
				"rename the backend");
			return WM_EINVALID;
		}
	}
	return 0;
}

/* ---- the drift check ------------------------------------------------------------------- */

/*
 * The job wheelmatrix-check (ci.github.check): the checkout, the wheelmatrix release that wrote
 * the workflow installed from PyPI, and `check --rev` on the workflow's commit.
 */
static int check_job(struct gh *g, struct wm_y *jobs)
{
	struct wm_y *job, *steps, *step, *run;
	const char *matrix, *command;
	int ret;
	if (!g->m->github.check)
		return 0;
	if ((ret = wm_emit_check_matrix(&matrix, g->m, "ci.github.check", g->err)) < 0)
		return ret;
	job = wm_yaml_set(&g->b, jobs, CHECK_JOB, piece(g, "check-job"));
	steps = wm_yaml_set(&g->b, job, "steps", wm_yaml_seq(&g->b));
	wm_yaml_push(&g->b, steps, piece(g, "checkout"));
	step = wm_yaml_push(&g->b, steps, piece(g, "install-wheelmatrix"));
	add_env(g, step, "WM_WHEELMATRIX", wm_yaml_str(&g->b, WM_VERSION));
	step = wm_yaml_push(&g->b, steps, piece(g, "check-drift"));
	add_env(g, step, "WM_REV", wm_yaml_str(&g->b, "${{ github.sha }}"));
	if (matrix)
		add_env(g, step, "WM_MATRIX", wm_yaml_str(&g->b, matrix));
	run = wm_yaml_get(step, "run");
	if (!(command = wm_emit_check_command(&g->b, run ? run->text : NULL, matrix))) {
		wm_error_nopos(g->err, WM_EINTERNAL, WM_SEV_ERROR, g->skel.file,
			"no '@matrix@' in the piece check-drift");
		return WM_EINTERNAL;
	}
	wm_yaml_set(&g->b, step, "run", wm_yaml_literal(&g->b, command));
	return 0;
}

/* A job that publishes waits for the drift check, when the workflow has it. */
static void add_check_need(struct gh *g, struct wm_y *needs)
{
	if (g->m->github.check)
		wm_yaml_push(&g->b, needs, wm_yaml_str(&g->b, CHECK_JOB));
}

/* ---- written once ------------------------------------------------------------------- */

/* `text` as an anchor name: lower case letters and digits, other runs as one '-'. */
static const char *slug(struct gh *g, const char *text, const char *suffix)
{
	struct wm_buf b = WM_BUF_INIT;
	bool dash = false;
	for (const char *p = text; *p; p++) {
		if (isalnum((unsigned char)*p)) {
			if (dash && b.len)
				wm_buf_add(&b, "-", 1);
			wm_buf_printf(&b, "%c", tolower((unsigned char)*p));
			dash = false;
		} else {
			dash = true;
		}
	}
	if (suffix)
		wm_buf_printf(&b, "%s%s", b.len ? "-" : "", suffix);
	return wm_emit_keep(&g->b, &b);
}

/* Marks the multi-line texts of map `y` (a step, its env, its with) to be written once, as `name-key`. */
static void share_texts(struct gh *g, struct wm_y *y, const char *name)
{
	for (size_t i = 0; y && y->type == WM_NODE_MAP && i + 1 < y->n; i += 2) {
		struct wm_y *v = y->items[i + 1];
		if (v->type == WM_NODE_SCALAR && v->text && strchr(v->text, '\n'))
			v->share = slug(g, wm_arena_printf(g->b.arena, "%s %s", name, y->items[i]->text), NULL);
	}
}

/*
 * What the jobs repeat is written once (wm_yaml_emit's anchors and aliases, which GitHub Actions
 * reads): a step equal to an earlier one, `- *upload-the-wheel`, named after its `name` (or the
 * action it uses); else each multi-line script or value of it equal to an earlier one, `run:
 * *import-the-module-from-the-built-wheel-run`.  Each job keeps its own steps, in order, with
 * the names and values that differ written out.
 */
static void share_steps(struct gh *g, struct wm_y *jobs)
{
	for (size_t j = 1; jobs && j < jobs->n; j += 2) {
		struct wm_y *steps = wm_yaml_get(jobs->items[j], "steps");
		for (size_t i = 0; steps && i < steps->n; i++) {
			struct wm_y *step = steps->items[i], *name = wm_yaml_get(step, "name"), *uses = wm_yaml_get(step, "uses");
			const char *base;
			if (name && name->text)
				base = name->text;
			else if (uses && uses->text) {
				const char *action = strrchr(uses->text, '/') ? strrchr(uses->text, '/') + 1 : uses->text;
				base = wm_arena_printf(g->b.arena, "%.*s", (int)strcspn(action, "@"), action);
			}
			else
				base = "step";
			if (!base)
				continue;
			step->share = slug(g, base, NULL);
			share_texts(g, step, step->share);
			share_texts(g, wm_yaml_get(step, "env"), step->share);
			share_texts(g, wm_yaml_get(step, "with"), step->share);
		}
	}
}

/* ---- action references ---------------------------------------------------------------- */

/* Every `uses: owner/name` without a reference gets the matrix file's or the table's. */
static void resolve_uses(struct gh *g, struct wm_y *y)
{
	if (!y || y->type == WM_NODE_SCALAR)
		return;
	for (size_t i = 0; i < y->n; i++) {
		struct wm_y *item = y->items[i];
		if (y->type == WM_NODE_MAP && i % 2 == 1 && strcmp(y->items[i - 1]->text, "uses") == 0 &&
				item->type == WM_NODE_SCALAR && !strchr(item->text, '@')) {
			const char *ref = wm_catalog_action(g->cat, item->text), *tag = NULL;
			for (size_t a = 0; a < g->m->nactions; a++)
				if (strcmp(g->m->actions[a].action, item->text) == 0) {
					ref = g->m->actions[a].ref;
					tag = g->m->actions[a].tag;
				}
			for (size_t a = 0; g->used && a < wm_catalog_action_count(g->cat); a++)
				if (strcmp(wm_catalog_action_name(g->cat, a), item->text) == 0)
					g->used[a] = true;
			if (ref) {
				struct wm_y *v = wm_yaml_strf(&g->b, "%s@%s", item->text, ref);
				/* a commit SHA says nothing to a reader: the tag it was pinned at follows (`# v4.2.2`) */
				if (v && tag && wm_yaml_comment_ok(tag))
					v->comment = tag;
				if (v)
					y->items[i] = v;
			}
			continue;
		}
		resolve_uses(g, item);
	}
}

static int emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, bool *used, unsigned *local, struct wm_error *err);

int wm_emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, unsigned *local, struct wm_error *err)
{
	return emit_github(out, m, cat, patched, NULL, local, err);
}

/* The script local action k runs: its piece's, or check-version.py's. */
static const char *local_script(struct gh *g, unsigned k)
{
	struct wm_y *run;
	if (strcmp(local_actions[k].piece, "check-version") == 0)
		return wm_emit_check_version(&g->b);
	run = wm_yaml_get(piece(g, local_actions[k].piece), "run");
	return run ? run->text : NULL;
}

int wm_emit_github_local(struct wm_buf *out, const char **dir, unsigned k, struct wm_error *err)
{
	struct wm_arena arena;
	struct gh g;
	struct wm_y *root, *step = NULL, *name;
	const char *script;
	int ret;

	*dir = NULL;
	if (k >= WM_GITHUB_NLOCAL) {
		wm_error_code(err, WM_EINTERNAL);
		return WM_EINTERNAL;
	}
	wm_arena_init(&arena);
	memset(&g, 0, sizeof(g));
	g.b.arena = &arena;
	g.err = err;
	if ((ret = wm_catalog_template_parse(&g.skel, "github.yaml", err)) < 0)
		goto out;
	root = piece(&g, "local-action");
	name = wm_yaml_get(piece(&g, local_actions[k].piece), "name");
	script = local_script(&g, k);
	if (root && name && name->text && script) {
		struct wm_y *steps = wm_yaml_get(wm_yaml_get(root, "runs"), "steps");
		wm_yaml_set(&g.b, root, "name", wm_yaml_str(&g.b, name->text));
		step = steps && steps->n ? steps->items[0] : NULL;
		if (step)
			wm_yaml_set(&g.b, step, "run", wm_yaml_literal(&g.b, script));
	}
	if (err->code) {
		ret = err->code;
		goto out;
	}
	if (g.b.oom || !root || !step || !script) {
		ret = wm_error_oom(err);
		goto out;
	}
	if ((ret = wm_yaml_emit(out, root, err)) == 0)
		*dir = local_actions[k].dir;
out:
	wm_yaml_release(&g.skel);
	wm_arena_release(&arena);
	return ret;
}

int wm_emit_github_actions(bool *used, const struct wm_matrix *m, const struct wm_catalog *cat, struct wm_error *err)
{
	struct wm_buf out = WM_BUF_INIT;
	int ret;

	memset(used, 0, wm_catalog_action_count(cat) * sizeof(*used));
	ret = emit_github(&out, m, cat, NULL, used, NULL, err);
	wm_buf_release(&out);
	return ret;
}

static int emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, bool *used, unsigned *local, struct wm_error *err)
{
	struct wm_arena arena;
	struct gh g;
	struct wm_y *root, *jobs;
	bool *published = NULL, *indexed = NULL;
	size_t nindexed = 0;
	int ret = 0;

	wm_arena_init(&arena);
	memset(&g, 0, sizeof(g));
	g.b.arena = &arena;
	g.m = m;
	g.cat = cat;
	g.err = err;
	g.patched = patched;
	g.used = used;
	if ((ret = wm_catalog_template_parse(&g.skel, "github.yaml", err)) < 0)
		goto out;
	root = piece(&g, "workflow");
	set_triggers(&g, root);
	jobs = wm_yaml_set(&g.b, root, "jobs", wm_yaml_map(&g.b));
	if ((ret = index_names(&g)) < 0 || (ret = check_job(&g, jobs)) < 0)
		goto out;
	if (!(published = wm_arena_array(&arena, m->nbackends + 1, sizeof(*published))) ||
			!(indexed = wm_arena_array(&arena, m->nbackends + 1, sizeof(*indexed)))) {
		ret = WM_ENOMEM;
		wm_error_code(err, ret);
		goto out;
	}
	for (size_t b = 0; b < m->nbackends && ret == 0; b++) {
		bool any = false;
		for (size_t i = 0; i < m->ngroups && ret == 0; i++)
			if (m->groups[i].backend == m->backends[b]) {
				ret = build_job(&g, jobs, &m->groups[i]);
				any = true;
			}
		if (any && ret == 0 && m->strategy == WM_STRATEGY_VARIANTS) {
			/* the variants job takes every backend's wheels; PyPI gets the default's */
			if (m->backends[b]->is_default) {
				sdist_job(&g, jobs, m->backends[b]);
				publish_job(&g, jobs, m->backends[b]);
				published[b] = true;
			}
		} else if (any && ret == 0) {
			sdist_job(&g, jobs, m->backends[b]);
			if (m->strategy == WM_STRATEGY_INDEX && !m->backends[b]->is_default) {
				index_job(&g, jobs, m->backends[b]);
				indexed[b] = true;
				nindexed++;
			} else {
				publish_job(&g, jobs, m->backends[b]);
				published[b] = true;
			}
		}
	}
	if (ret == 0 && m->strategy == WM_STRATEGY_META && m->ngroups)
		meta_jobs(&g, jobs, published);
	if (ret == 0 && m->strategy == WM_STRATEGY_VARIANTS && m->ngroups && published[m->default_backend->index]) {
		variants_job(&g, jobs);
		index_pages_jobs(&g, jobs, NULL);
	}
	if (ret == 0 && nindexed)
		index_pages_jobs(&g, jobs, indexed);
	/* under strategy index the release holds the default backend's files: none without one */
	if (ret == 0 && g.tag)
		tag_job(&g, jobs);
	if (ret == 0 && m->github_release && m->ngroups &&
			((m->strategy != WM_STRATEGY_INDEX && m->strategy != WM_STRATEGY_VARIANTS) ||
			(m->default_backend && published[m->default_backend->index])))
		release_job(&g, jobs, published);
	if (ret < 0)
		goto out;
	if (err->code) {
		ret = err->code;
		goto out;
	}
	if (g.b.oom || !root) {
		wm_error_nopos(err, WM_ENOMEM, WM_SEV_ERROR, NULL, "out of memory");
		ret = WM_ENOMEM;
		goto out;
	}
	resolve_uses(&g, root);
	share_steps(&g, jobs);
	ret = wm_yaml_emit(out, root, err);
	if (local)
		*local = g.local;
out:
	wm_yaml_release(&g.skel);
	wm_arena_release(&arena);
	return ret;
}
