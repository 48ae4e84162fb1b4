/*
 * builds.c — what the workflows build and upload: maturin-action's and the scripts' wheel builds,
 * the uploads to an index or a release.
 *
 * Each step of each run that may run in a release is read for what it builds: maturin-action
 * (`PyO3/maturin-action`, or `messense/maturin-action` as it was first published) with its
 * inputs evaluated, and the command lines of `run:` scripts that run maturin, `pip wheel`,
 * `python -m build`, `uv build` or `pyodide build`, their arguments read as maturin reads them
 * (maturin.c).  The interpreter on the PATH is the last `python-version` setup-python or setup-uv
 * gave before.
 * Nothing is interpreted here: what a value means for the matrix is init/matrix.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "workflow/builds.h"

#define MAX_COMMANDS 4096   /* of one script */
#define MAX_BUILDS 4096     /* read in all: each keeps its arguments */

struct reading {
	struct wm_workflows *w;
	struct wm_builds *out;
	size_t cap, capu;
	const char *toolchain;            /* the Rust toolchain a step installed on the runner, so far */
	struct wm_strs pythons;           /* of the run being read, so far */
	const char *pythons_unknown;
	bool full;                        /* MAX_BUILDS read */
	bool oom;
};

/* Actions that upload to an index or to a GitHub release, by name. */
static const struct {
	const char *action;
	bool index;
} uploaders[] = {
	{ "pypa/gh-action-pypi-publish", true },
	{ "softprops/action-gh-release", false },
	{ "ncipollo/release-action", false },
	{ "svenstaro/upload-release-action", false },
	{ "actions/upload-release-asset", false },
};

static struct wm_wf_build *new_build(struct reading *r, const struct wm_wf_run *run)
{
	struct wm_builds *o = r->out;
	if (o->n == MAX_BUILDS) {
		/* the workflow whose build is not read is not read whole */
		for (size_t i = 0; i < r->w->nfiles; i++)
			if (!strcmp(r->w->files[i].path, run->file))
				r->w->files[i].partial = true;
		if (!r->full)
			wm_workflows_note(r->w, NULL, NULL, "the workflows build more than %d times in all (steps times "
				"combinations): the builds past those are not read", MAX_BUILDS);
		r->full = true;
		return NULL;
	}
	if (o->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct wm_wf_build *more = wm_arena_array(&r->w->arena, cap, sizeof(*more));
		if (!more) {
			r->oom = true;
			return NULL;
		}
		if (o->n)
			memcpy(more, o->items, o->n * sizeof(*more));
		o->items = more;
		r->cap = cap;
	}
	memset(&o->items[o->n], 0, sizeof(o->items[0]));
	return &o->items[o->n++];
}

/*
 * The deployment environment of an upload's job: `environment: NAME` or `environment: {name: NAME}`,
 * evaluated where the step runs (its job's matrix, the workflow's inputs); an empty name is none,
 * as GitHub takes it.  A value not known before the job runs is named in environment_unknown.
 */
static void upload_environment(struct reading *r, struct wm_upload *u)
{
	const struct wm_node *env = wm_yaml_find(u->run->job_node, "environment");
	struct wm_val v;
	const char *s;
	if (!env)
		return;
	u->environment_file = u->run->job_file;
	u->environment_line = env->line;
	u->environment_column = env->column;
	if (env->type == WM_NODE_MAP)
		env = wm_yaml_find(env, "name");
	wm_workflows_value(&v, r->w, u->step, env);
	if (v.kind == WM_VAL_NULL)
		return;
	if (v.kind == WM_VAL_UNKNOWN || !(s = wm_eval_string(&r->w->eval, &v))) {
		if (!(u->environment_unknown = wm_arena_printf(&r->w->arena, "its job's environment, which depends on %s",
			      v.why ? v.why : "a value not known")))
			r->oom = true;
		return;
	}
	u->environment = *s ? s : NULL;
}

static void add_upload(struct reading *r, const struct wm_wf_run *run, const struct wm_wf_step *step,
	const struct wm_node *at, unsigned line, unsigned column, const char *how, bool index)
{
	struct wm_builds *o = r->out;
	struct wm_upload *u;
	if (o->nuploads == r->capu) {
		size_t cap = r->capu ? 2 * r->capu : 16;
		struct wm_upload *more = wm_arena_array(&r->w->arena, cap, sizeof(*more));
		if (!more) {
			r->oom = true;
			return;
		}
		if (o->nuploads)
			memcpy(more, o->uploads, o->nuploads * sizeof(*more));
		o->uploads = more;
		r->capu = cap;
	}
	u = &o->uploads[o->nuploads++];
	memset(u, 0, sizeof(*u));
	u->run = run;
	u->step = step;
	u->file = step->file;
	u->line = at ? at->line : line;
	u->column = at ? at->column : column;
	u->how = how;
	u->index = index;
	for (unsigned e = WM_WF_TAG; e <= WM_WF_RELEASE; e <<= 1)
		if ((run->events & e) && wm_workflows_runs_on(r->w, run, step, e) != WM_FALSE)
			u->events |= e;
	upload_environment(r, u);
}

/* A value of the step's `with:` as a string: NULL when absent; an unknown one named in *unknown. */
static const char *with_string(struct reading *r, const struct wm_wf_step *step, const char *key, const char **unknown)
{
	struct wm_val v;
	const char *s;
	wm_workflows_with(&v, r->w, step, key);
	if (v.kind == WM_VAL_NULL)
		return NULL;
	if (v.kind == WM_VAL_UNKNOWN || !(s = wm_eval_string(&r->w->eval, &v))) {
		if (!*unknown)
			*unknown = wm_arena_printf(&r->w->arena, "its %s, which depends on %s", key, v.why ? v.why : "a value not known");
		return NULL;
	}
	return *s ? s : NULL;
}

static void add_str(struct reading *r, struct wm_strs *list, size_t cap, const char *s, size_t len)
{
	if (!list->items && !(list->items = wm_arena_array(&r->w->arena, cap, sizeof(*list->items)))) {
		r->oom = true;
		return;
	}
	if (list->n < cap && len && !(list->items[list->n++] = wm_arena_strndup(&r->w->arena, s, len)))
		r->oom = true;
}

/* What the build's environment sets: its values where known, the names of the others. */
static void build_env(struct reading *r, struct wm_wf_build *b, const struct wm_command *c)
{
	const char **names;
	size_t n = wm_workflows_env_names(&names, r->w, b->step), extra = c ? c->nenv : 0;
	if (!(b->env = wm_arena_array(&r->w->arena, n + extra + 1, sizeof(*b->env))) ||
			!(b->env_unknown = wm_arena_array(&r->w->arena, n + extra + 1, sizeof(*b->env_unknown)))) {
		r->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *value, *why;
		if (wm_workflows_env(r->w, b->step, names[i], strlen(names[i]), &value, &why) > 0)
			b->env[b->nenv++] = wm_arena_printf(&r->w->arena, "%s=%s", names[i], value);
		else
			b->env_unknown[b->nenv_unknown++] = names[i];
	}
	for (size_t i = 0; i < extra; i++) {
		if (c->env[i].unknown) {
			const char *eq = strchr(c->env[i].text ? c->env[i].text : "", '=');
			b->env_unknown[b->nenv_unknown++] = c->env[i].text && eq ?
				wm_arena_strndup(&r->w->arena, c->env[i].text, (size_t)(eq - c->env[i].text)) : "a variable";
		} else {
			b->env[b->nenv++] = c->env[i].text;
		}
	}
}

/*
 * The Rust toolchain a step installs on the runner: dtolnay/rust-toolchain's ref (@stable,
 * @nightly, @1.85) or its `toolchain` (@master), actions-rs/toolchain's and
 * actions-rust-lang/setup-rust-toolchain's `toolchain`.
 */
static void setup_rust(struct reading *r, const struct wm_wf_step *step, const char *action)
{
	const char *unknown = NULL, *toolchain = with_string(r, step, "toolchain", &unknown), *at = strchr(step->uses, '@');
	if (!toolchain && !strcmp(action, "dtolnay/rust-toolchain") && at && strcmp(at + 1, "master") != 0 &&
			strcmp(at + 1, "v1") != 0 && strlen(at + 1) != 40)
		toolchain = at + 1;
	if (unknown)
		toolchain = "(not known before the job runs)";
	if (toolchain)
		r->toolchain = toolchain;
}

/* setup-python's or setup-uv's python-version: lines (or blanks) of versions, the last the one on the PATH. */
static void setup_python(struct reading *r, const struct wm_wf_step *step)
{
	struct wm_val v;
	const char *s;
	wm_workflows_with(&v, r->w, step, "python-version");
	if (v.kind == WM_VAL_NULL)
		return;
	r->pythons.n = 0;
	r->pythons_unknown = NULL;
	if (v.kind == WM_VAL_UNKNOWN || !(s = wm_eval_string(&r->w->eval, &v))) {
		r->pythons_unknown = wm_arena_printf(&r->w->arena, "setup-python's python-version, which depends on %s",
			v.why ? v.why : "a value not known");
		return;
	}
	while (*s) {
		size_t n = strcspn(s, " \t\r\n,");
		add_str(r, &r->pythons, 64, s, n);
		s += n;
		while (*s && strchr(" \t\r\n,", *s))
			s++;
	}
}

/*
 * maturin-action's args of which an expression is not known: read word by word (each word holding
 * one not known), and taken for the build when only -i's values are not known (`-i ${{
 * env.PYTHON_VERSION }}`, as maturin's Pyodide recipe writes it); true then.
 */
static bool action_interpreters_unknown(struct reading *r, const struct wm_wf_step *step, struct wm_wf_build *b,
	const char *command)
{
	const char **names, *text = NULL;
	size_t nnames = 0, nwords;
	struct wm_word *words;
	struct wm_maturin m;
	if (!(text = wm_workflows_with_text(r->w, step, "args", &names, &nnames)) ||
			wm_maturin_action_words(&words, &nwords, &r->w->arena, text) < 0) {
		r->oom |= text == NULL && nnames;
		return false;
	}
	for (size_t i = 0; i < nwords; i++) {
		const char *mark = strchr(words[i].text, '\x01');
		unsigned long k = mark ? strtoul(mark + 1, NULL, 10) : 0;
		if (mark)
			words[i].unknown = k < nnames ? names[k] : "an expression";
	}
	if (wm_maturin_read(&m, &r->w->arena, command ? command : "build", words, nwords) < 0) {
		r->oom = true;
		return false;
	}
	if (!m.interpreters_unknown || m.other_unknown || m.bad)
		return false;
	b->args = m;
	return true;
}

static void action_build(struct reading *r, const struct wm_wf_run *run, const struct wm_wf_step *step)
{
	const struct wm_node *uses = wm_yaml_find(step->node, "uses");
	const char *unknown = NULL, *command = with_string(r, step, "command", &unknown), *args, *args_unknown = NULL;
	struct wm_word *words;
	size_t nwords;
	struct wm_wf_build *b;

	if (!command)
		command = unknown ? NULL : "build";
	if (command && !strcmp(command, "upload")) {
		add_upload(r, run, step, wm_yaml_find(wm_yaml_find(step->node, "with"), "command"), 0, 0,
			"maturin-action's command: upload", true);
		return;
	}
	if (command && strcmp(command, "build") && strcmp(command, "publish") && strcmp(command, "sdist"))
		return;  /* a cargo command, develop, ...: no distribution */
	if (!(b = new_build(r, run)))
		return;
	b->run = run;
	b->step = step;
	b->file = step->file;
	b->line = uses->line;
	b->column = uses->column;
	b->kind = WM_BUILD_ACTION;
	b->command = command;
	b->target = with_string(r, step, "target", &unknown);
	b->manylinux = with_string(r, step, "manylinux", &unknown);
	b->working_directory = with_string(r, step, "working-directory", &unknown);
	b->container = with_string(r, step, "container", &b->settings_unknown);
	b->docker_options = with_string(r, step, "docker-options", &b->settings_unknown);
	b->toolchain = with_string(r, step, "rust-toolchain", &b->settings_unknown);
	b->before_script = with_string(r, step, "before-script-linux", &b->settings_unknown);
	args = with_string(r, step, "args", &args_unknown);
	if (wm_maturin_action_words(&words, &nwords, &r->w->arena, args ? args : "") < 0 ||
			wm_maturin_read(&b->args, &r->w->arena, command ? command : "build", words, nwords) < 0) {
		r->oom = true;
		return;
	}
	if (args_unknown && !unknown && action_interpreters_unknown(r, step, b, command)) {
		b->interpreters_unknown = args_unknown;
		unknown = args_unknown;
	} else if (args_unknown && !unknown) {
		unknown = args_unknown;
	}
	/* a build on the runner (not in maturin-action's container) uses the toolchain a step installed there */
	if (!b->toolchain && r->toolchain && (run->os != WM_OS_LINUX || (b->manylinux && (!strcmp(b->manylinux, "off") ||
			!strcmp(b->manylinux, "false")))))
		b->toolchain = r->toolchain;
	b->sdist = (command && !strcmp(command, "sdist")) || b->args.sdist;
	b->wheel = !command || strcmp(command, "sdist") != 0;
	b->unknown = unknown ? unknown : b->args.unknown ?
		wm_arena_printf(&r->w->arena, "its args, which depend on %s", b->args.unknown) : NULL;
	if (!b->interpreters_unknown && !unknown && b->args.interpreters_unknown && !b->args.other_unknown)
		b->interpreters_unknown = b->unknown;
	b->bad = b->args.bad;
	b->pythons = r->pythons;
	b->pythons_unknown = r->pythons_unknown;
	build_env(r, b, NULL);
	if (command && !strcmp(command, "publish"))
		add_upload(r, run, step, uses, 0, 0, "maturin-action's command: publish", true);
}

/* Where a script's command is: its line in the workflow (a block's lines start after its key), and its first word's column. */
static void command_place(const struct wm_workflows *w, const struct wm_wf_step *s, const struct wm_node *run,
	const struct wm_command *c, unsigned *line, unsigned *column)
{
	*line = run->style == WM_BLOCK ? run->line + c->line : run->line + c->line - 1;
	*column = c->n && c->words[0].text ? wm_workflows_column(w, s->file, *line, c->words[0].text) : 0;
	if (!*column && run->style != WM_BLOCK && c->line == 1)
		*column = run->column;
}

static const char *word_at(const struct wm_command *c, size_t i)
{
	return i < c->n && !c->words[i].unknown ? c->words[i].text : NULL;
}

/* A PEP 517 build's path and whether it makes an sdist and a wheel: `pip wheel`, `python -m build`, `uv build`. */
static void pep517(struct wm_wf_build *b, const struct wm_command *c, size_t args, enum wm_builder how)
{
	static const char *const valued[] = { "-w", "--wheel-dir", "-o", "--outdir", "--out-dir", "-C", "--config-settings",
		"--config-setting", "-r", "--requirement", "-c", "--constraint", "--package", "-p", "--python", "--build-constraint",
		"--index-url", "-i", "--extra-index-url", "-f", "--find-links", "--installer",
		/* pyodide build's (pyodide-build 0.39.2, pyodide_build/cli/build.py) */
		"--exports", "--output-lockfile", "--skip-dependency", "--compression-level", "--xbuildenv-path" };
	bool sdist = false, wheel = false;
	for (size_t i = args; i < c->n; i++) {
		const char *s = word_at(c, i);
		if (!s)
			continue;  /* not known: the caller names it */
		if (how != WM_BUILDER_PIP && (!strcmp(s, "--sdist") || !strcmp(s, "-s")))
			sdist = true;
		else if (how != WM_BUILDER_PIP && (!strcmp(s, "--wheel") || !strcmp(s, "-w")))
			wheel = true;
		else if (s[0] == '-') {
			for (size_t k = 0; k < WM_ARRAY_SIZE(valued); k++)
				if (!strcmp(s, valued[k]) && !(how != WM_BUILDER_PIP && !strcmp(s, "-w"))) {
					i++;
					break;
				}
		} else if (!b->project) {
			b->project = s;
		}
	}
	b->wheel = how == WM_BUILDER_PIP || how == WM_BUILDER_PYODIDE || wheel || !sdist;
	b->sdist = how != WM_BUILDER_PIP && how != WM_BUILDER_PYODIDE && (sdist || !wheel);
	b->command = "wheel";
	/* pyodide build: a wheel for Pyodide's cross-build environment (maturin's target in it) */
	if (how == WM_BUILDER_PYODIDE)
		b->target = "wasm32-unknown-emscripten";
}

/*
 * `pyodide build -r FILE` builds the requirements' wheels (pyodide-build 0.39.2,
 * pyodide_build/cli/build.py, main), not the project's.
 */
static bool pyodide_requirements(const struct wm_command *c, size_t args)
{
	for (size_t i = args; i < c->n; i++) {
		const char *s = word_at(c, i);
		if (s && (!strcmp(s, "-r") || !strncmp(s, "--requirements", 14) || (!strncmp(s, "-r", 2) && s[2])))
			return true;
	}
	return false;
}

/* How a script command uploads (twine upload, uv publish, gh release upload or create), or NULL; *index when to an index. */
static const char *script_uploads(const struct wm_command *c, bool *index)
{
	const char *a = word_at(c, 0), *b = word_at(c, 1), *d = word_at(c, 2), *e = word_at(c, 3);
	const char *name = a ? strrchr(a, '/') ? strrchr(a, '/') + 1 : a : NULL;
	*index = true;
	if (!name)
		return NULL;
	if (!strcmp(name, "twine") && b && !strcmp(b, "upload"))
		return "twine upload";
	if (!strncmp(name, "python", 6) && b && !strcmp(b, "-m") && d && !strcmp(d, "twine") && e && !strcmp(e, "upload"))
		return "twine upload";
	if (!strcmp(name, "uv") && b && !strcmp(b, "publish"))
		return "uv publish";
	*index = false;
	if (!strcmp(name, "gh") && b && !strcmp(b, "release") && d && (!strcmp(d, "upload") || !strcmp(d, "create")))
		return "gh release";
	return NULL;
}

static void script_builds(struct reading *r, const struct wm_wf_run *run, const struct wm_wf_step *step)
{
	const struct wm_node *node = wm_yaml_find(step->node, "run");
	const char **unknowns;
	size_t nunknowns, ncommands;
	const char *script = wm_workflows_script(r->w, step, &unknowns, &nunknowns);
	struct wm_command *commands;
	struct wm_script_env env;

	if (!script)
		return;
	wm_workflows_script_env(&env, r->w, step);
	if (wm_script_read(&commands, &ncommands, &r->w->arena, script, step->shell, &env, unknowns, nunknowns,
			MAX_COMMANDS) < 0) {
		r->oom = true;
		return;
	}
	for (size_t i = 0; i < ncommands && !r->oom; i++) {
		const struct wm_command *c = &commands[i];
		size_t args = 0;
		enum wm_builder how = wm_maturin_builder(c, &args);
		unsigned line, column;
		struct wm_wf_build *b;
		const char *upload;
		bool index;
		if (how == WM_BUILDER_NONE) {
			/* placed only when it uploads: most commands are neither */
			if ((upload = script_uploads(c, &index))) {
				command_place(r->w, step, node, c, &line, &column);
				add_upload(r, run, step, NULL, line, column, upload, index);
			}
			continue;
		}
		if (how == WM_BUILDER_MATURIN) {
			struct wm_maturin m;
			if (wm_maturin_read(&m, &r->w->arena, NULL, c->words + args, c->n - args) < 0) {
				r->oom = true;
				return;
			}
			if (m.command && (!strcmp(m.command, "upload") || !strcmp(m.command, "publish"))) {
				command_place(r->w, step, node, c, &line, &column);
				add_upload(r, run, step, NULL, line, column, !strcmp(m.command, "upload") ? "maturin upload" :
					"maturin publish", true);
			}
			if (!m.command || (strcmp(m.command, "build") && strcmp(m.command, "publish") && strcmp(m.command, "sdist")))
				continue;
			if (!(b = new_build(r, run)))
				return;
			b->args = m;
			b->command = m.command;
			b->kind = WM_BUILD_MATURIN;
			b->wheel = strcmp(m.command, "sdist") != 0;
			b->sdist = !b->wheel || m.sdist;
			b->target = m.target;
			b->unknown = m.unknown ? wm_arena_printf(&r->w->arena, "its command line, which depends on %s", m.unknown) : NULL;
			if (m.interpreters_unknown && !m.other_unknown)
				b->interpreters_unknown = b->unknown;
			b->bad = m.bad ? m.bad : c->bad;
		} else {
			if (how == WM_BUILDER_PYODIDE && pyodide_requirements(c, args))
				continue;  /* builds the wheels of a requirements file, not the project's */
			if (!(b = new_build(r, run)))
				return;
			b->kind = WM_BUILD_PEP517;
			pep517(b, c, args, how);
			b->bad = c->bad;
			for (size_t k = args; k < c->n && !b->unknown; k++)
				if (c->words[k].unknown)
					b->unknown = wm_arena_printf(&r->w->arena, "its command line, which depends on %s", c->words[k].unknown);
		}
		command_place(r->w, step, node, c, &line, &column);
		b->run = run;
		b->step = step;
		b->file = step->file;
		b->line = line;
		b->column = column;
		if (step->working_directory) {
			struct wm_val v;
			wm_workflows_value(&v, r->w, step, step->working_directory);
			if (v.kind == WM_VAL_STRING && !v.prefix)
				b->working_directory = wm_eval_string(&r->w->eval, &v);
			else if (!b->unknown)
				b->unknown = wm_arena_printf(&r->w->arena, "its working-directory, which depends on %s",
					v.why ? v.why : "a value not known");
			else
				b->interpreters_unknown = NULL;  /* more than the interpreters is not known */
		}
		b->pythons = r->pythons;
		b->pythons_unknown = r->pythons_unknown;
		b->toolchain = r->toolchain;
		build_env(r, b, c);
	}
}

int wm_builds_read(struct wm_builds *out, struct wm_workflows *w)
{
	struct reading r = { .w = w, .out = out };
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < w->nruns && !r.oom; i++) {
		const struct wm_wf_run *run = &w->runs[i];
		r.pythons = (struct wm_strs){ NULL, 0 };
		r.pythons_unknown = NULL;
		r.toolchain = NULL;
		if (run->runs == WM_FALSE)
			continue;
		for (size_t k = 0; k < run->nsteps && !r.oom; k++) {
			const struct wm_wf_step *step = &run->steps[k];
			const char *action = wm_workflows_action(w, step);
			bool uploader = false;
			if (step->runs == WM_FALSE)
				continue;
			if (action && (!strcmp(action, "actions/setup-python") || !strcmp(action, "astral-sh/setup-uv"))) {
				setup_python(&r, step);
				continue;
			}
			if (action && (!strcmp(action, "dtolnay/rust-toolchain") || !strcmp(action, "actions-rs/toolchain") ||
					!strcmp(action, "actions-rust-lang/setup-rust-toolchain"))) {
				setup_rust(&r, step, action);
				continue;
			}
			if (action && (!strcmp(action, "pyo3/maturin-action") || !strcmp(action, "messense/maturin-action"))) {
				action_build(&r, run, step);
				continue;
			}
			for (size_t u = 0; action && u < WM_ARRAY_SIZE(uploaders); u++)
				if (!strcmp(action, uploaders[u].action)) {
					add_upload(&r, run, step, wm_yaml_find(step->node, "uses"), 0, 0, uploaders[u].action,
						uploaders[u].index);
					uploader = true;
				}
			if (!uploader && !step->uses && wm_yaml_find(step->node, "run"))
				script_builds(&r, run, step);
		}
	}
	return r.oom ? WM_ENOMEM : 0;
}

bool wm_builds_releases(const struct wm_builds *b, const char *path)
{
	for (size_t i = 0; i < b->nuploads; i++)
		if (b->uploads[i].events && !strcmp(b->uploads[i].run->file, path))
			return true;
	return false;
}
