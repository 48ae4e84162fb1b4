/*
 * workflows.c — a repository's GitHub workflows read as GitHub runs them: jobs, combinations, steps.
 *
 * What a workflow builds is only known job combination by job combination: `runs-on`, a step's
 * `with:` and its script are expressions over the combination's matrix, the env of the workflow,
 * the job and the step, and the inputs a local composite action or a called workflow is given.
 * So each job is expanded into its combinations (combos.c), a job that calls a workflow of the
 * repository into that workflow's jobs under each of its own, and each local composite action
 * into its steps, with the scope its expressions are evaluated in (eval.c).  What is not known
 * before a run starts (secrets, vars, the event's payload, steps' outputs) stays unknown and
 * named.  A run is read as a release's run: github.ref starts with refs/tags/.
 *
 * The files are data: only plain paths inside the repository are followed, each file within the
 * size and depth bounds of WORKFLOW_LIMITS, at most MAX_WORKFLOWS of them, calls and actions at
 * most MAX_NESTING deep with a guard against a cycle, and at most MAX_RUNS combinations and
 * MAX_STEPS steps in all, so that a hostile repository costs bounded time and memory.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "util/utf8.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "workflow/workflows.h"

#define MAX_WORKFLOWS 256
#define MAX_FILES 64         /* local actions and called workflows read besides, at least */
#define MAX_NESTING 10       /* calls and actions within each other (GitHub's own bound on calls) */
#define MAX_RUNS 4096
#define MAX_STEPS 65536
#define MAX_LAYERS 8         /* env mappings a step sees */
#define MAX_INPUTS 64
#define MAX_NOTES 256
#define EVAL_BUDGET (16u << 20)
#define MAX_TEXT (4u << 20)  /* bytes of workflows and actions parsed in all */
static const struct wm_yaml_limits limits = { 1u << 20, 64, 200000, 2u << 20 };

struct env_layer {
	const struct wm_node *map;
	const struct wm_wf_scope *scope;   /* where its values are evaluated */
};

struct input {
	const char *name;
	struct wm_val value;
};

/* A variable a step set for the steps after it by writing into $GITHUB_ENV. */
struct ghenv {
	const char *name;
	const char *value;                 /* a literal written (`echo "NAME=10.9" >> ...`), or NULL: not known */
	const char *why;
};

struct wm_wf_scope {
	struct wm_workflows *w;
	const struct wm_combo *matrix;
	struct env_layer env[MAX_LAYERS];  /* innermost first */
	size_t nenv;
	const struct input *inputs;
	size_t ninputs;
	bool has_inputs;                   /* a called workflow's or an action's: the others are the starter's */
	const struct wm_node *action;      /* an action's `inputs:`, for the defaults of `with:` */
	int os;
	const char *arch;
	unsigned event;                    /* 0: a release run, tag push or release; else WM_WF_TAG or WM_WF_RELEASE */
	const struct ghenv *ghenv;         /* set by the steps before */
	size_t nghenv;
};

/* A file read once: a workflow, a called workflow, an action. */
#define LINES_PER_MARK 64

struct loaded {
	const char *path;
	struct wm_doc doc;
	bool ok;
	bool skipped;                      /* the caller's skip() left it out */
	size_t *marks;                     /* where lines 1, 65, 129, ... start: made on first use */
	size_t nmarks;
};

struct wm_workflows_priv {
	const struct wm_reader *r;
	const struct wm_workflows_options *o;
	struct loaded *files;
	size_t nfiles;
	const char *stack[MAX_NESTING + 1];  /* the files being expanded: a cycle guard */
	size_t depth;
	size_t cap_runs, cap_steps, total_steps;
	struct ghenv *ghenv;                 /* of the run being read */
	size_t nghenv, cap_ghenv;
	size_t text;                         /* bytes parsed so far, of MAX_TEXT */
	bool oom, runs_full, steps_full, files_full;
	struct wm_wf_file *current;          /* the workflow being read */
};

/* ---- notes and small helpers -------------------------------------------------------------- */

/* The workflow being read has a part the reader did not read. */
static void mark_partial(struct wm_workflows *w)
{
	if (w->priv && w->priv->current)
		w->priv->current->partial = true;
}

void wm_workflows_note(struct wm_workflows *w, const char *file, const struct wm_node *at, const char *fmt, ...)
{
	struct wm_buf b = WM_BUF_INIT;
	va_list ap;
	mark_partial(w);
	if (w->nnotes == MAX_NOTES)
		return;
	for (size_t i = 0; i < w->nnotes; i++)  /* the same note of the same place, once */
		if (at && w->notes[i].line == at->line && w->notes[i].column == at->column && file && w->notes[i].file &&
				!strcmp(w->notes[i].file, file))
			return;
	va_start(ap, fmt);
	wm_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.oom) {
		struct wm_workflows_note *n = &w->notes[w->nnotes];
		n->file = file ? wm_arena_strdup(&w->arena, file) : NULL;
		n->line = at ? at->line : 0;
		n->column = at ? at->column : 0;
		n->text = wm_arena_strndup(&w->arena, b.ptr ? b.ptr : "", b.len);
		if (n->text)
			w->nnotes++;
	}
	wm_buf_release(&b);
}

static const char *scalar(const struct wm_node *n)
{
	return n && n->type == WM_NODE_SCALAR ? n->text : NULL;
}

/* A path the repository's files may be read at: letters, digits and ._-/ (nothing a terminal or YAML reads). */
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

/* ---- files ------------------------------------------------------------------------------ */

/* A file read as text, as UTF-8: one saved as UTF-16 (with its byte-order mark) is converted. */
static int read_text(struct wm_workflows *w, const char *path, char **text, size_t *len)
{
	struct wm_workflows_priv *p = w->priv;
	struct wm_error quiet;
	struct wm_buf b = WM_BUF_INIT;
	int ret;
	wm_error_init(&quiet);
	ret = p->r->read(p->r->ctx, path, text, len, &quiet);
	wm_error_release(&quiet);
	if (ret != 0)
		return ret == WM_ENOMEM ? ret : 1;
	if (wm_utf8_from_utf16(&b, *text, *len)) {
		if (b.oom) {
			wm_buf_release(&b);
			return WM_ENOMEM;
		}
		free(*text);
		*len = b.len;
		*text = wm_buf_detach(&b);
		if (!*text)
			return WM_ENOMEM;
	}
	return 0;
}

/* A file parsed (once): NULL when it cannot be read or is not YAML GitHub reads (noted once). */
static const struct loaded *load(struct wm_workflows *w, const char *path, bool workflow)
{
	struct wm_workflows_priv *p = w->priv;
	struct wm_error quiet;
	struct loaded *l;
	char *text = NULL;
	size_t len = 0;
	int ret;

	for (size_t i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].path, path))
			return p->files[i].ok ? &p->files[i] : NULL;
	if (p->nfiles == MAX_WORKFLOWS + MAX_FILES) {
		if (!p->files_full)
			wm_workflows_note(w, NULL, NULL, "the workflows and the local actions and workflows they use are more "
				"than %d files: the rest are not read", MAX_WORKFLOWS + MAX_FILES);
		p->files_full = true;
		return NULL;
	}
	l = &p->files[p->nfiles++];
	memset(l, 0, sizeof(*l));
	if (!(l->path = wm_arena_strdup(&w->arena, path))) {
		p->oom = true;
		return NULL;
	}
	if ((ret = read_text(w, path, &text, &len)) != 0) {
		p->oom |= ret == WM_ENOMEM;
		return NULL;
	}
	if (workflow && p->o && p->o->skip && p->o->skip(p->o->skip_ctx, path, text, len)) {
		l->skipped = true;
		free(text);
		return NULL;
	}
	if (len > limits.max_bytes || len > MAX_TEXT - p->text) {
		wm_workflows_note(w, path, NULL, "not read: %s", len > limits.max_bytes ? "larger than 1 MiB" :
			"the workflows and actions read before it make 4 MiB, as much as init reads in all");
		free(text);
		return NULL;
	}
	p->text += len;
	/* formats/yaml.c refuses it below; the first is kept, for init to refuse at its place */
	if (!w->hidden.path && (w->hidden.cp = wm_utf8_find_break(text, len, &w->hidden.line, &w->hidden.column)) != 0)
		w->hidden.path = l->path;
	wm_error_init(&quiet);
	ret = wm_yaml_parse(&l->doc, path, text, len, &limits, &quiet);
	free(text);
	if (ret == WM_ENOMEM)
		p->oom = true;
	else if (ret < 0 && quiet.ndiags) {
		/* the parser's own words (libyaml's, or a bound's), at its place: no text of the file */
		struct wm_node at = { .line = quiet.diags[0].line, .column = quiet.diags[0].column };
		wm_workflows_note(w, path, at.line ? &at : NULL, "not read: %s", quiet.diags[0].message);
	} else if (ret < 0 || !l->doc.root || l->doc.root->type != WM_NODE_MAP)
		wm_workflows_note(w, path, NULL, "not read: not a mapping");
	else
		l->ok = true;
	wm_error_release(&quiet);
	if (!l->ok) {
		wm_yaml_release(&l->doc);
		memset(&l->doc, 0, sizeof(l->doc));
	}
	return l->ok ? l : NULL;
}

/* ---- events ----------------------------------------------------------------------------- */

/* Whether a `push` trigger runs on a tag: no filter at all, or a tags filter (GitHub's rule). */
static bool push_on_tags(const struct wm_node *push)
{
	if (!push || push->type != WM_NODE_MAP)
		return true;
	if (wm_yaml_find(push, "tags") || wm_yaml_find(push, "tags-ignore"))
		return true;
	return !wm_yaml_find(push, "branches") && !wm_yaml_find(push, "branches-ignore") && !wm_yaml_find(push, "paths") &&
		!wm_yaml_find(push, "paths-ignore");
}

static unsigned trigger(const struct wm_node *event, const struct wm_node *filters)
{
	const char *e = scalar(event);
	if (!e)
		return 0;
	if (!strcmp(e, "push"))
		return push_on_tags(filters) ? WM_WF_TAG | WM_WF_OTHER : WM_WF_OTHER;
	if (!strcmp(e, "release"))
		return WM_WF_RELEASE;
	if (!strcmp(e, "workflow_call"))
		return WM_WF_CALL;
	if (!strcmp(e, "workflow_dispatch"))
		return WM_WF_MANUAL;
	return WM_WF_OTHER;
}

/* The events of `on:` (a name, a list of names or a mapping). */
static unsigned events_of(const struct wm_node *root)
{
	const struct wm_node *on = wm_yaml_find(root, "on");
	unsigned events = 0;
	if (!on)
		return 0;
	if (on->type == WM_NODE_SCALAR)
		return trigger(on, NULL);
	for (size_t i = 0; i < on->n; i++)
		events |= on->type == WM_NODE_SEQ ? trigger(on->items[i], NULL) : trigger(on->pairs[i].key, on->pairs[i].value);
	return events;
}

/* ---- the contexts ---------------------------------------------------------------------- */

static bool part_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* The parts of a path as written, joined with dots: what an unknown depends on. */
static const char *path_text(struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n)
{
	struct wm_buf b = WM_BUF_INIT;
	char *s;
	for (size_t i = 0; i < n; i++)
		wm_buf_printf(&b, "%s%.*s", i ? "." : "", (int)lens[i], parts[i]);
	s = b.oom ? NULL : wm_arena_strndup(e->arena, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	return s ? s : "a context";
}

static void unknown_path(struct wm_val *out, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n,
	size_t *used, enum wm_truth truth)
{
	wm_eval_unknown(out, e, path_text(e, parts, lens, n));
	out->truth = truth;
	*used = n;
}

/* The matrix context: a combination's value, or the combination as an object. */
static void matrix_context(const struct wm_wf_scope *s, struct wm_eval *e, const char *const *parts, const size_t *lens,
	size_t n, size_t *used, struct wm_val *out)
{
	const struct wm_combo *c = s->matrix;
	if (n >= 2) {
		const struct wm_node *v = wm_combos_get(c, parts[1], lens[1]);
		*used = 2;
		if (v && v->tag && !strcmp(v->tag, WM_COMBOS_UNKNOWN))
			wm_eval_unknown(out, e, v->text);
		else
			wm_eval_of_node(out, v);
		return;
	}
	{
		struct wm_node *map = wm_arena_alloc(e->arena, sizeof(*map));
		*used = 1;
		if (!map || (c && c->n && !(map->pairs = wm_arena_array(e->arena, c->n, sizeof(*map->pairs))))) {
			e->oom = true;
			wm_eval_unknown(out, e, "matrix");
			return;
		}
		map->type = WM_NODE_MAP;
		for (size_t i = 0; c && i < c->n; i++) {
			struct wm_node *k = wm_arena_alloc(e->arena, sizeof(*k));
			if (!k) {
				e->oom = true;
				break;
			}
			k->type = WM_NODE_SCALAR;
			k->style = WM_QUOTED;
			k->text = c->keys[i];
			k->len = strlen(c->keys[i]);
			map->pairs[map->n].key = k;
			map->pairs[map->n++].value = (struct wm_node *)c->values[i];
		}
		wm_eval_of_node(out, map);
	}
}

static int env_lookup(const struct wm_wf_scope *s, const char *name, size_t len, struct wm_val *out);

static void env_context(const struct wm_wf_scope *s, struct wm_eval *e, const char *const *parts, const size_t *lens,
	size_t n, size_t *used, struct wm_val *out)
{
	if (n < 2) {
		unknown_path(out, e, parts, lens, n, used, WM_TRUE);
		return;
	}
	*used = 2;
	if (env_lookup(s, parts[1], lens[1], out) == 0)
		wm_eval_of_node(out, NULL);
}

static void inputs_context(const struct wm_wf_scope *s, struct wm_eval *e, const char *const *parts, const size_t *lens,
	size_t n, size_t *used, struct wm_val *out)
{
	if (!s->has_inputs || n < 2) {
		/* a workflow's own inputs are the starter's (workflow_dispatch), not the workflow's */
		unknown_path(out, e, parts, lens, n < 2 ? n : 2, used, WM_MAYBE);
		return;
	}
	*used = 2;
	for (size_t i = 0; i < s->ninputs; i++)
		if (strlen(s->inputs[i].name) == lens[1] && !strncasecmp(s->inputs[i].name, parts[1], lens[1])) {
			*out = s->inputs[i].value;
			return;
		}
	wm_eval_of_node(out, NULL);
}

static void runner_context(const struct wm_wf_scope *s, struct wm_eval *e, const char *const *parts, const size_t *lens,
	size_t n, size_t *used, struct wm_val *out)
{
	static const char *const os_names[] = { [WM_OS_LINUX] = "Linux", [WM_OS_MACOS] = "macOS", [WM_OS_WINDOWS] = "Windows" };
	if (n >= 2 && part_is(parts[1], lens[1], "os") && s->os >= 0) {
		*used = 2;
		wm_eval_str(out, os_names[s->os], strlen(os_names[s->os]));
		return;
	}
	if (n >= 2 && part_is(parts[1], lens[1], "arch") && s->arch) {
		const char *a = !strcmp(s->arch, "aarch64") ? "ARM64" : "X64";
		*used = 2;
		wm_eval_str(out, a, strlen(a));
		return;
	}
	unknown_path(out, e, parts, lens, n < 2 ? n : 2, used, WM_TRUE);
}

/* What a release run of GitHub's sets: github.ref is refs/tags/..., the event a tag push or a release. */
static void github_context(const struct wm_wf_scope *s, struct wm_eval *e, const char *const *parts, const size_t *lens,
	size_t n, size_t *used, struct wm_val *out)
{
	if (n >= 2 && (part_is(parts[1], lens[1], "ref") || (n >= 3 && part_is(parts[1], lens[1], "event") &&
			part_is(parts[2], lens[2], "ref") && s->event == WM_WF_TAG))) {
		*used = part_is(parts[1], lens[1], "ref") ? 2 : 3;
		wm_eval_str(out, "refs/tags/", 10);
		out->prefix = true;
		out->why = "github.ref (the tag's name)";
		return;
	}
	if (n >= 2 && part_is(parts[1], lens[1], "ref_type")) {
		*used = 2;
		wm_eval_str(out, "tag", 3);
		return;
	}
	if (n >= 2 && part_is(parts[1], lens[1], "event_name") && s->event) {
		const char *name = s->event == WM_WF_TAG ? "push" : "release";
		*used = 2;
		wm_eval_str(out, name, strlen(name));
		return;
	}
	/* the event's payload, the commit, the repository: not known, and never empty where they are set */
	unknown_path(out, e, parts, lens, n, used, n >= 2 && (part_is(parts[1], lens[1], "event_name") ||
		part_is(parts[1], lens[1], "ref_name") || part_is(parts[1], lens[1], "sha") ||
		part_is(parts[1], lens[1], "repository") || part_is(parts[1], lens[1], "workspace")) ? WM_TRUE : WM_MAYBE);
}

static void resolve(void *ctx, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n, size_t *used,
	struct wm_val *out)
{
	const struct wm_wf_scope *s = ctx;
	if (part_is(parts[0], lens[0], "matrix"))
		matrix_context(s, e, parts, lens, n, used, out);
	else if (part_is(parts[0], lens[0], "env"))
		env_context(s, e, parts, lens, n, used, out);
	else if (part_is(parts[0], lens[0], "inputs"))
		inputs_context(s, e, parts, lens, n, used, out);
	else if (part_is(parts[0], lens[0], "runner"))
		runner_context(s, e, parts, lens, n, used, out);
	else if (part_is(parts[0], lens[0], "github"))
		github_context(s, e, parts, lens, n, used, out);
	else
		/* secrets, vars, steps, needs, job, jobs, strategy: what only the run knows */
		unknown_path(out, e, parts, lens, n, used, WM_MAYBE);
}

static struct wm_eval_scope eval_scope(const struct wm_wf_scope *s)
{
	return (struct wm_eval_scope){ resolve, (void *)s };
}

/* An environment variable where a scope is: 1 with its value, 0 when not set, -1 unknown (*out says why). */
static int env_lookup(const struct wm_wf_scope *s, const char *name, size_t len, struct wm_val *out)
{
	for (size_t i = s->nghenv; i-- > 0;)
		if (strlen(s->ghenv[i].name) == len && !strncmp(s->ghenv[i].name, name, len)) {
			if (s->ghenv[i].value) {
				wm_eval_str(out, s->ghenv[i].value, strlen(s->ghenv[i].value));
				return 1;
			}
			wm_eval_unknown(out, &s->w->eval, s->ghenv[i].why);
			return -1;
		}
	for (size_t i = 0; i < s->nenv; i++) {
		const struct wm_node *map = s->env[i].map;
		if (map && map->type == WM_NODE_SCALAR) {
			/* env: ${{ fromJSON(...) }}: the whole mapping is an expression */
			wm_eval_unknown(out, &s->w->eval, "an env given by an expression");
			return -1;
		}
		for (size_t k = 0; map && map->type == WM_NODE_MAP && k < map->n; k++) {
			const struct wm_node *key = map->pairs[k].key;
			struct wm_eval_scope es;
			const char *str;
			if (key->len != len || strncmp(key->text, name, len) != 0)
				continue;
			es = eval_scope(s->env[i].scope);
			wm_eval_node(out, &s->w->eval, &es, map->pairs[k].value);
			if (out->kind == WM_VAL_UNKNOWN)
				return -1;
			/* the environment holds strings */
			if (!(str = wm_eval_string(&s->w->eval, out))) {
				wm_eval_unknown(out, &s->w->eval, "a value too long");
				return -1;
			}
			wm_eval_str(out, str, strlen(str));
			return 1;
		}
	}
	return 0;
}

/* ---- scopes, runners ------------------------------------------------------------------- */

static struct wm_wf_scope *new_scope(struct wm_workflows *w, const struct wm_wf_scope *from)
{
	struct wm_wf_scope *s = wm_arena_alloc(&w->arena, sizeof(*s));
	if (!s) {
		w->priv->oom = true;
		return NULL;
	}
	if (from)
		*s = *from;
	else
		s->os = -1;
	s->w = w;
	return s;
}

/* A scope with one more env mapping, innermost; the outermost dropped when there are too many. */
static void push_env(struct wm_wf_scope *s, const struct wm_node *map, const struct wm_wf_scope *in)
{
	if (!map)
		return;
	if (s->nenv == MAX_LAYERS)
		s->nenv--;
	memmove(&s->env[1], &s->env[0], s->nenv * sizeof(s->env[0]));
	s->env[0] = (struct env_layer){ map, in };
	s->nenv++;
}

/*
 * The OS and architecture of a runner label GitHub hosts (ubuntu-*, macos-*, windows-*, their
 * -arm and -intel forms), or of a self-hosted runner's labels (linux, macOS, windows; x64, arm64).
 * macOS runners are Apple silicon since macos-14, but for the -intel ones and macos-13 and older.
 */
static void runner_of(const char *label, int *os, const char **arch)
{
	if (!strncasecmp(label, "ubuntu", 6) || !strcasecmp(label, "linux")) {
		*os = WM_OS_LINUX;
		if (!strcasecmp(label, "linux"))
			return;
		*arch = ends_with(label, "-arm") || ends_with(label, "-arm64") ? "aarch64" : "x86_64";
	} else if (!strncasecmp(label, "macos", 5)) {
		*os = WM_OS_MACOS;
		if (!strcasecmp(label, "macos"))
			return;
		*arch = ends_with(label, "-intel") || ends_with(label, "-large") || !strncmp(label, "macos-13", 8) ||
			!strncmp(label, "macos-12", 8) || !strncmp(label, "macos-11", 8) || !strncmp(label, "macos-10", 8) ?
			"x86_64" : "aarch64";
	} else if (!strncasecmp(label, "windows", 7)) {
		*os = WM_OS_WINDOWS;
		if (!strcasecmp(label, "windows"))
			return;
		*arch = ends_with(label, "-arm") || ends_with(label, "-arm64") ? "aarch64" : "x86_64";
	} else if (!strcasecmp(label, "x64") || !strcasecmp(label, "amd64")) {
		*arch = "x86_64";
	} else if (!strcasecmp(label, "arm64") || !strcasecmp(label, "aarch64")) {
		*arch = "aarch64";
	}
}

/* runs-on evaluated: one label, a list of labels, or {group, labels}; the runner's OS and architecture. */
static void read_runner(struct wm_workflows *w, struct wm_wf_run *run, const struct wm_wf_scope *s)
{
	struct wm_eval_scope es = eval_scope(s);
	const struct wm_node *on = wm_yaml_find(run->job_node, "runs-on");
	run->os = -1;
	wm_eval_node(&run->runner, &w->eval, &es, on);
	if (run->runner.kind == WM_VAL_OBJECT) {
		struct wm_val group = run->runner;
		wm_eval_member(&run->runner, &group, "labels", 6);
	}
	if (run->runner.kind == WM_VAL_STRING) {
		run->label = wm_eval_string(&w->eval, &run->runner);
		if (run->label)
			runner_of(run->label, &run->os, &run->arch);
	} else if (run->runner.kind == WM_VAL_ARRAY) {
		for (size_t i = 0; i < run->runner.node->n; i++) {
			struct wm_val v;
			wm_eval_node(&v, &w->eval, &es, run->runner.node->items[i]);
			if (v.kind == WM_VAL_STRING && !v.prefix) {
				const char *l = wm_arena_strndup(&w->arena, v.s, v.len);
				if (l)
					runner_of(l, &run->os, &run->arch);
			}
		}
	}
}

/* ---- steps ------------------------------------------------------------------------------- */

static enum wm_shell shell_of(const struct wm_node *step, const struct wm_node *job, const struct wm_node *root, int os)
{
	const char *sh = scalar(wm_yaml_find(step, "shell"));
	if (!sh && job)
		sh = scalar(wm_yaml_find(wm_yaml_find(wm_yaml_find(job, "defaults"), "run"), "shell"));
	if (!sh && root)
		sh = scalar(wm_yaml_find(wm_yaml_find(wm_yaml_find(root, "defaults"), "run"), "shell"));
	if (!sh)
		return os == WM_OS_WINDOWS ? WM_SHELL_PWSH : WM_SHELL_BASH;
	if (!strncmp(sh, "pwsh", 4) || !strncmp(sh, "powershell", 10))
		return WM_SHELL_PWSH;
	if (!strncmp(sh, "cmd", 3))
		return WM_SHELL_CMD;
	return WM_SHELL_BASH;
}

/* Where a `run:` step runs: its own working-directory, else its job's, else its workflow's defaults.run. */
static const struct wm_node *run_directory(const struct wm_node *step, const struct wm_node *job,
	const struct wm_node *root)
{
	const struct wm_node *wd = wm_yaml_find(step, "working-directory");
	if (!wd && job)
		wd = wm_yaml_find(wm_yaml_find(wm_yaml_find(job, "defaults"), "run"), "working-directory");
	if (!wd && root)
		wd = wm_yaml_find(wm_yaml_find(wm_yaml_find(root, "defaults"), "run"), "working-directory");
	return wd;
}

/*
 * The variables a script writes into $GITHUB_ENV for the steps after it: on each line that names
 * GITHUB_ENV, the NAME= before it (`echo "NAME=value" >> $GITHUB_ENV`, PowerShell's
 * `"NAME=value" | Out-File $env:GITHUB_ENV`).  Their values are the run's.
 */
/* The value after NAME= when it is a literal (no variable, substitution or expression), up to its quote or blank; else NULL. */
static const char *ghenv_literal(struct wm_arena *a, const char *v, const char *end)
{
	size_t n = 0;
	while (v + n < end && !strchr("\"' \t>", v[n]))
		n++;
	for (size_t i = 0; i < n; i++)
		if (strchr("$`\\%\x01", v[i]))
			return NULL;
	return v + n < end && (v[n] == '"' || v[n] == '\'' || v[n] == ' ' || v[n] == '>') ? wm_arena_strndup(a, v, n) : NULL;
}

static void note_ghenv(struct wm_workflows *w, const char *file, const struct wm_node *run)
{
	struct wm_workflows_priv *p = w->priv;
	for (const char *line = run->text; line && *line;) {
		const char *end = strchr(line, '\n'), *at;
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *copy = wm_arena_strndup(&w->arena, line, n);
		if (copy && (at = strstr(copy, "GITHUB_ENV")) != NULL) {
			for (const char *c = copy; c < at; c++) {
				size_t k = 0;
				if (!(isalpha((unsigned char)*c) || *c == '_') || (c > copy && (isalnum((unsigned char)c[-1]) || c[-1] == '_')))
					continue;
				while (isalnum((unsigned char)c[k]) || c[k] == '_')
					k++;
				if (c[k] != '=')
					continue;
				if (p->nghenv == p->cap_ghenv) {
					size_t cap = p->cap_ghenv ? 2 * p->cap_ghenv : 8;
					struct ghenv *more = wm_arena_array(&w->arena, cap, sizeof(*more));
					if (!more) {
						p->oom = true;
						return;
					}
					if (p->nghenv)
						memcpy(more, p->ghenv, p->nghenv * sizeof(*more));
					p->ghenv = more;
					p->cap_ghenv = cap;
				}
				p->ghenv[p->nghenv].name = wm_arena_strndup(&w->arena, c, k);
				p->ghenv[p->nghenv].value = ghenv_literal(&w->arena, c + k + 1, at);
				p->ghenv[p->nghenv++].why = wm_arena_printf(&w->arena, "$%.*s, which the step at %s:%u sets through "
					"$GITHUB_ENV", (int)k, c, file, run->line);
				break;
			}
		}
		line = end ? end + 1 : NULL;
	}
}

static bool add_step(struct wm_workflows *w, struct wm_wf_run *run, const struct wm_wf_step *step)
{
	struct wm_workflows_priv *p = w->priv;
	if (p->total_steps == MAX_STEPS) {
		p->steps_full = true;
		mark_partial(w);
		return false;
	}
	if (run->nsteps == p->cap_steps) {
		size_t cap = p->cap_steps ? 2 * p->cap_steps : 16;
		struct wm_wf_step *more = wm_arena_array(&w->arena, cap, sizeof(*more));
		if (!more) {
			p->oom = true;
			return false;
		}
		if (run->nsteps)
			memcpy(more, run->steps, run->nsteps * sizeof(*more));
		run->steps = more;
		p->cap_steps = cap;
	}
	run->steps[run->nsteps++] = *step;
	p->total_steps++;
	return true;
}

static bool entering(struct wm_workflows *w, const char *path, const char *file, const struct wm_node *at)
{
	struct wm_workflows_priv *p = w->priv;
	for (size_t i = 0; i < p->depth; i++)
		if (!strcmp(p->stack[i], path)) {
			wm_workflows_note(w, file, at, "%s uses itself (through %s): not read again", path, p->stack[p->depth - 1]);
			return false;
		}
	if (p->depth == MAX_NESTING) {
		wm_workflows_note(w, file, at, "%s is more than %d calls and actions deep: not read", path, MAX_NESTING);
		return false;
	}
	p->stack[p->depth++] = path;
	return true;
}

/* `./path` of `uses:` as a repository path, or NULL (noted) when it is not a plain one inside it. */
static const char *local_path(struct wm_workflows *w, const char *file, const struct wm_node *uses)
{
	const char *s = uses->text + 2, *why = NULL;
	char *path;
	size_t n = strlen(s);
	while (n && s[n - 1] == '/')
		n--;
	if (!(path = wm_arena_strndup(&w->arena, s, n))) {
		w->priv->oom = true;
		return NULL;
	}
	if (!*path)
		return "";
	if (!plain_path(path) || !wm_name_repo_path(path, &why)) {
		wm_workflows_note(w, file, uses, "a local action or workflow not read: not a plain path inside the repository");
		return NULL;
	}
	return path;
}

/* The inputs a local action or called workflow is given: `with:` evaluated by the caller, else each one's default. */
static bool read_inputs(struct wm_workflows *w, struct wm_wf_scope *inner, const struct wm_node *declared,
	const struct wm_node *with, const struct wm_wf_scope *caller)
{
	struct input *inputs;
	size_t n = 0;
	struct wm_eval_scope outer = eval_scope(caller), own;
	if (!(inputs = wm_arena_array(&w->arena, MAX_INPUTS, sizeof(*inputs)))) {
		w->priv->oom = true;
		return false;
	}
	inner->inputs = inputs;
	inner->ninputs = 0;
	inner->has_inputs = true;
	own = eval_scope(inner);
	for (size_t i = 0; with && with->type == WM_NODE_MAP && i < with->n && n < MAX_INPUTS; i++) {
		inputs[n].name = with->pairs[i].key->text;
		wm_eval_node(&inputs[n++].value, &w->eval, &outer, with->pairs[i].value);
		inner->ninputs = n;
	}
	for (size_t i = 0; declared && declared->type == WM_NODE_MAP && i < declared->n && n < MAX_INPUTS; i++) {
		const char *name = declared->pairs[i].key->text;
		const struct wm_node *def = wm_yaml_find(declared->pairs[i].value, "default");
		bool given = false;
		for (size_t k = 0; k < n && !given; k++)
			given = !strcasecmp(inputs[k].name, name);
		if (given || !def)
			continue;
		inputs[n].name = name;
		wm_eval_node(&inputs[n++].value, &w->eval, &own, def);
		inner->ninputs = n;
	}
	return true;
}

static void walk_steps(struct wm_workflows *w, struct wm_wf_run *run, const struct wm_node *steps, const char *file,
	const struct wm_wf_scope *scope, const char *via, enum wm_truth runs, const struct wm_node *job,
	const struct wm_node *root);

/* A step `uses: ./path`: a composite action's steps in its place; any other local action as one step. */
static bool composite(struct wm_workflows *w, struct wm_wf_run *run, const struct wm_wf_step *step,
	const struct wm_node *uses)
{
	const char *dir = local_path(w, step->file, uses), *path;
	const struct loaded *l = NULL;
	const struct wm_node *runs, *steps;
	struct wm_wf_scope *inner;
	if (!dir)
		return false;
	path = wm_arena_printf(&w->arena, "%s%saction.yml", dir, *dir ? "/" : "");
	if (path && !(l = load(w, path, false))) {
		path = wm_arena_printf(&w->arena, "%s%saction.yaml", dir, *dir ? "/" : "");
		l = path ? load(w, path, false) : NULL;
	}
	if (!l) {
		/* past the bound on files, the note that says so stands for each */
		if (!w->priv->files_full)
			wm_workflows_note(w, step->file, uses, "the local action %s: no action.yml or action.yaml that can be read "
				"there", uses->text);
		return false;
	}
	runs = wm_yaml_find(l->doc.root, "runs");
	if (!scalar(wm_yaml_find(runs, "using")) || strcmp(scalar(wm_yaml_find(runs, "using")), "composite") != 0 ||
			!(steps = wm_yaml_find(runs, "steps")) || steps->type != WM_NODE_SEQ)
		return false;  /* a JavaScript or Docker action: a step of its own */
	if (!entering(w, l->path, step->file, uses))
		return true;
	if ((inner = new_scope(w, step->scope)) != NULL) {
		/* the step's env stays, for the action's steps, beside their own */
		inner->action = wm_yaml_find(l->doc.root, "inputs");
		if (read_inputs(w, inner, inner->action, wm_yaml_find(step->node, "with"), step->scope))
			walk_steps(w, run, steps, l->path, inner, step->via ? step->via : uses->text, step->runs, NULL, NULL);
	}
	w->priv->depth--;
	return true;
}

static void walk_steps(struct wm_workflows *w, struct wm_wf_run *run, const struct wm_node *steps, const char *file,
	const struct wm_wf_scope *scope, const char *via, enum wm_truth runs, const struct wm_node *job,
	const struct wm_node *root)
{
	struct wm_workflows_priv *p = w->priv;
	for (size_t i = 0; steps && steps->type == WM_NODE_SEQ && i < steps->n && !p->oom; i++) {
		const struct wm_node *node = steps->items[i], *uses, *script;
		struct wm_wf_step step;
		struct wm_wf_scope *s;
		struct wm_eval_scope es;
		enum wm_truth own;
		if (node->type != WM_NODE_MAP || !(s = new_scope(w, scope)))
			continue;
		push_env(s, wm_yaml_find(node, "env"), s);
		s->ghenv = p->ghenv;
		s->nghenv = p->nghenv;
		es = eval_scope(s);
		own = wm_eval_if(&w->eval, &es, scalar(wm_yaml_find(node, "if")));
		memset(&step, 0, sizeof(step));
		step.node = node;
		step.file = file;
		step.via = via;
		step.scope = s;
		step.runs = runs == WM_FALSE || own == WM_FALSE ? WM_FALSE : runs == WM_MAYBE || own == WM_MAYBE ? WM_MAYBE : WM_TRUE;
		uses = wm_yaml_find(node, "uses");
		script = wm_yaml_find(node, "run");
		step.uses = scalar(uses);
		step.shell = shell_of(node, job, root, run->os);
		step.working_directory = script ? (job || root ? run_directory(node, job, root) : wm_yaml_find(node,
			"working-directory")) : NULL;
		if (step.uses && !strncmp(step.uses, "./", 2) && composite(w, run, &step, uses))
			continue;
		if (!add_step(w, run, &step))
			return;
		if (scalar(script) && step.runs != WM_FALSE)
			note_ghenv(w, file, script);
	}
}

/* ---- jobs ------------------------------------------------------------------------------ */

static struct wm_wf_run *new_run(struct wm_workflows *w)
{
	struct wm_workflows_priv *p = w->priv;
	if (w->nruns == MAX_RUNS) {
		p->runs_full = true;
		mark_partial(w);
		return NULL;
	}
	if (w->nruns == p->cap_runs) {
		size_t cap = p->cap_runs ? 2 * p->cap_runs : 64;
		struct wm_wf_run *more = wm_arena_array(&w->arena, cap, sizeof(*more));
		if (!more) {
			p->oom = true;
			return NULL;
		}
		if (w->nruns)
			memcpy(more, w->runs, w->nruns * sizeof(*more));
		w->runs = more;
		p->cap_runs = cap;
	}
	memset(&w->runs[w->nruns], 0, sizeof(w->runs[0]));
	return &w->runs[w->nruns++];
}

struct job_place {
	const char *top;                 /* the workflow GitHub starts */
	unsigned events;
	const char *prefix;              /* "caller/" for a called workflow's jobs, or "" */
	enum wm_truth runs;              /* the caller's `if:` */
};

static void read_jobs(struct wm_workflows *w, const struct loaded *l, const struct wm_wf_scope *file_scope,
	const struct job_place *place);

/* A job that calls a workflow of the repository: its jobs under each of this job's combinations. */
static void call_workflow(struct wm_workflows *w, const struct loaded *caller, const char *id, const struct wm_node *job,
	const struct wm_node *uses, const struct wm_combos *combos, const struct wm_wf_scope *job_scope,
	const struct job_place *place, enum wm_truth runs)
{
	const char *path = local_path(w, caller->path, uses);
	const struct loaded *called;
	if (!path)
		return;
	if (!ends_with(path, ".yml") && !ends_with(path, ".yaml")) {
		wm_workflows_note(w, caller->path, uses, "job %s: %s is not a workflow file: not read", id, uses->text);
		return;
	}
	if (!(called = load(w, path, false))) {
		if (!w->priv->files_full)
			wm_workflows_note(w, caller->path, uses, "job %s calls %s, which cannot be read", id, path);
		return;
	}
	if (!entering(w, called->path, caller->path, uses))
		return;
	for (size_t c = 0; c < combos->n && !w->priv->oom; c++) {
		struct wm_wf_scope *caller_scope = new_scope(w, job_scope), *inner;
		struct job_place in = { place->top, place->events, wm_arena_printf(&w->arena, "%s%s/", place->prefix, id), runs };
		if (!caller_scope || !in.prefix)
			break;
		caller_scope->matrix = &combos->combos[c];
		/* a called workflow has its own env, not the caller's */
		if (!(inner = new_scope(w, NULL)))
			break;
		inner->event = job_scope->event;
		if (!read_inputs(w, inner, wm_yaml_find(wm_yaml_find(wm_yaml_find(called->doc.root, "on"), "workflow_call"),
				"inputs"), wm_yaml_find(job, "with"), caller_scope))
			break;
		read_jobs(w, called, inner, &in);
	}
	w->priv->depth--;
}

/* One job: its combinations, each a run with its steps (or the jobs of the workflow it calls). */
static void read_job(struct wm_workflows *w, const struct loaded *l, const char *id, const struct wm_node *job,
	const struct wm_wf_scope *file_scope, const struct job_place *place)
{
	struct wm_workflows_priv *p = w->priv;
	struct wm_wf_scope *job_scope = new_scope(w, file_scope);
	struct wm_combos combos;
	struct wm_eval_scope es;
	const struct wm_node *uses = wm_yaml_find(job, "uses"), *matrix;
	enum wm_truth runs;
	if (!job_scope)
		return;
	push_env(job_scope, wm_yaml_find(job, "env"), job_scope);
	es = eval_scope(job_scope);
	runs = wm_eval_if(&w->eval, &es, scalar(wm_yaml_find(job, "if")));
	if (place->runs == WM_FALSE || runs == WM_FALSE)
		runs = WM_FALSE;
	else if (place->runs == WM_MAYBE)
		runs = WM_MAYBE;
	matrix = wm_yaml_find(wm_yaml_find(job, "strategy"), "matrix");
	if (wm_combos_expand(&combos, &w->arena, &w->eval, &es, matrix) < 0) {
		p->oom = true;
		return;
	}
	/* a place in the file: a value fromJSON made has none, its matrix has */
	if (combos.why)
		wm_workflows_note(w, l->path, combos.at && combos.at->line ? combos.at : matrix, "job %s%s's strategy.matrix: %s",
			place->prefix, id, combos.why);
	if (scalar(uses) && !strncmp(uses->text, "./", 2)) {
		call_workflow(w, l, id, job, uses, &combos, job_scope, place, runs);
		return;
	}
	if (scalar(uses)) {
		wm_workflows_note(w, l->path, uses, "job %s%s calls a workflow of another repository (%s): not read", place->prefix, id,
			uses->text);
		return;
	}
	for (size_t c = 0; c < combos.n && !p->oom; c++) {
		struct wm_wf_run *run = new_run(w);
		struct wm_wf_scope *s;
		struct wm_eval_scope rs;
		struct wm_val container;
		if (!run || !(s = new_scope(w, job_scope)))
			return;
		s->matrix = &combos.combos[c];
		/* the job's env reads its combination's matrix (GitHub: env of a job takes matrix.*) */
		if (s->nenv && s->env[0].map == wm_yaml_find(job, "env"))
			s->env[0].scope = s;
		run->file = place->top;
		run->job = wm_arena_printf(&w->arena, "%s%s", place->prefix, id);
		run->job_file = l->path;
		run->job_node = job;
		run->matrix = &combos.combos[c];
		run->combo = c;
		run->runs = runs;
		run->events = place->events;
		read_runner(w, run, s);
		s->os = run->os;
		s->arch = run->arch;
		rs = eval_scope(s);
		wm_eval_node(&container, &w->eval, &rs, wm_yaml_find(job, "container"));
		if (container.kind == WM_VAL_OBJECT) {
			struct wm_val map = container;
			wm_eval_member(&container, &map, "image", 5);
		}
		run->container = container.kind == WM_VAL_STRING ? wm_eval_string(&w->eval, &container) : NULL;
		p->nghenv = p->cap_ghenv = 0;
		p->ghenv = NULL;
		p->cap_steps = 0;
		walk_steps(w, run, wm_yaml_find(job, "steps"), l->path, s, NULL, runs, job, l->doc.root);
	}
}

static void read_jobs(struct wm_workflows *w, const struct loaded *l, const struct wm_wf_scope *file_scope,
	const struct job_place *place)
{
	const struct wm_node *jobs = wm_yaml_find(l->doc.root, "jobs");
	struct wm_wf_scope *s = new_scope(w, file_scope);
	if (!s || !jobs || jobs->type != WM_NODE_MAP)
		return;
	push_env(s, wm_yaml_find(l->doc.root, "env"), s);
	for (size_t j = 0; j < jobs->n && !w->priv->oom; j++)
		if (jobs->pairs[j].value->type == WM_NODE_MAP)
			read_job(w, l, jobs->pairs[j].key->text, jobs->pairs[j].value, s, place);
}

/* One workflow of .github/workflows/, as GitHub starts it. */
static void read_workflow(struct wm_workflows *w, struct wm_wf_file *f)
{
	struct wm_workflows_priv *p = w->priv;
	const struct loaded *l = load(w, f->path, true);
	struct wm_wf_scope *s;
	struct job_place place;
	if (!l) {
		/* a file skip() left out is none of the project's workflows */
		for (size_t i = 0; i < p->nfiles; i++)
			f->skipped |= !strcmp(p->files[i].path, f->path) && p->files[i].skipped;
		return;
	}
	f->doc = &l->doc;
	f->events = events_of(l->doc.root);
	/* a workflow only another calls runs only there: read under its callers, with their inputs */
	if (f->events == WM_WF_CALL)
		return;
	place = (struct job_place){ f->path, f->events, "", WM_TRUE };
	if (!(s = new_scope(w, NULL)))
		return;
	/*
	 * Its own inputs: none on a tag push or a release (GitHub's context is empty there); a workflow
	 * run by hand only gets its workflow_dispatch defaults when nobody changes them.
	 */
	if (!read_inputs(w, s, f->events & (WM_WF_TAG | WM_WF_RELEASE) ? NULL : wm_yaml_find(wm_yaml_find(
			wm_yaml_find(l->doc.root, "on"), "workflow_dispatch"), "inputs"), NULL, s))
		return;
	p->depth = 0;
	p->stack[p->depth++] = l->path;
	read_jobs(w, l, s, &place);
	p->depth = 0;
}

int wm_workflows_read(struct wm_workflows **out, const struct wm_reader *r, const struct wm_workflows_options *o,
	struct wm_error *err)
{
	struct wm_workflows *w = calloc(1, sizeof(*w));
	struct wm_paths paths = { NULL, 0, 0 };
	struct wm_error quiet;
	int ret = 0;

	*out = w;
	if (!w)
		goto oom;
	wm_arena_init(&w->arena);
	wm_eval_init(&w->eval, &w->arena, EVAL_BUDGET);
	if (!(w->priv = wm_arena_alloc(&w->arena, sizeof(*w->priv))) ||
			!(w->priv->files = wm_arena_array(&w->arena, MAX_WORKFLOWS + MAX_FILES, sizeof(*w->priv->files))) ||
			!(w->notes = wm_arena_array(&w->arena, MAX_NOTES, sizeof(*w->notes))))
		goto oom;
	w->priv->r = r;
	w->priv->o = o;
	wm_error_init(&quiet);
	/* a directory that cannot be listed (none, or a link out of the repository) holds no workflow */
	if (!r->list || r->list(r->ctx, ".github/workflows", &paths, &quiet) != 0) {
		wm_error_release(&quiet);
		return 0;
	}
	wm_error_release(&quiet);
	if (!(w->files = wm_arena_array(&w->arena, paths.n ? paths.n : 1, sizeof(*w->files))))
		goto oom;
	for (size_t i = 0; i < paths.n; i++) {
		const char *name = paths.items[i];
		char *path;
		if (strchr(name, '/') || !(ends_with(name, ".yml") || ends_with(name, ".yaml")))
			continue;
		if (w->nfiles == MAX_WORKFLOWS) {
			wm_workflows_note(w, NULL, NULL, "more than %d workflows: those after %s are not read", MAX_WORKFLOWS,
				w->files[w->nfiles - 1].path);
			break;
		}
		if (!plain_path(name)) {
			w->unplain++;
			continue;
		}
		if (!(path = wm_arena_printf(&w->arena, ".github/workflows/%s", name)))
			goto oom;
		w->files[w->nfiles].path = path;
		w->priv->current = &w->files[w->nfiles];
		read_workflow(w, &w->files[w->nfiles++]);
		w->priv->current = NULL;
		if (w->priv->oom)
			goto oom;
	}
	if (w->priv->runs_full)
		wm_workflows_note(w, NULL, NULL, "the workflows have more than %d job combinations: the rest are not read", MAX_RUNS);
	if (w->priv->steps_full)
		wm_workflows_note(w, NULL, NULL, "the workflows have more than %d steps in all: the rest are not read", MAX_STEPS);
	wm_io_paths_free(&paths);
	return 0;
oom:
	wm_io_paths_free(&paths);
	ret = WM_ENOMEM;
	wm_error_code(err, ret);
	return ret;
}

void wm_workflows_free(struct wm_workflows *w)
{
	if (!w)
		return;
	for (size_t i = 0; w->priv && i < w->priv->nfiles; i++)
		wm_yaml_release(&w->priv->files[i].doc);
	wm_arena_release(&w->arena);
	free(w);
}

/* ---- what callers ask of a step ------------------------------------------------------------ */

void wm_workflows_value(struct wm_val *out, struct wm_workflows *w, const struct wm_wf_step *s, const struct wm_node *node)
{
	struct wm_eval_scope es = eval_scope(s->scope);
	wm_eval_node(out, &w->eval, &es, node);
}

void wm_workflows_with(struct wm_val *out, struct wm_workflows *w, const struct wm_wf_step *s, const char *key)
{
	const struct wm_node *v = wm_yaml_find(wm_yaml_find(s->node, "with"), key);
	wm_workflows_value(out, w, s, v);
}

static const char *text_of(struct wm_workflows *w, const struct wm_wf_step *s, const struct wm_node *run,
	const char ***unknowns, size_t *n);

const char *wm_workflows_script(struct wm_workflows *w, const struct wm_wf_step *s, const char ***unknowns, size_t *n)
{
	return text_of(w, s, wm_yaml_find(s->node, "run"), unknowns, n);
}

const char *wm_workflows_with_text(struct wm_workflows *w, const struct wm_wf_step *s, const char *key,
	const char ***unknowns, size_t *n)
{
	return text_of(w, s, wm_yaml_find(wm_yaml_find(s->node, "with"), key), unknowns, n);
}

/* A scalar's text with its expressions evaluated, each one not known as "\x01<i>\x01" (unknowns[i] names it). */
static const char *text_of(struct wm_workflows *w, const struct wm_wf_step *s, const struct wm_node *run,
	const char ***unknowns, size_t *n)
{
	struct wm_eval_scope es = eval_scope(s->scope);
	struct wm_buf b = WM_BUF_INIT;
	const char *p, *open, **names;
	size_t count = 0;
	char *text;

	*unknowns = NULL;
	*n = 0;
	if (!scalar(run))
		return NULL;
	for (p = run->text; (open = strstr(p, "${{")) != NULL; p = open + 3)
		count++;
	if (!(names = wm_arena_array(&w->arena, count ? count : 1, sizeof(*names)))) {
		w->priv->oom = true;
		return NULL;
	}
	for (p = run->text; (open = strstr(p, "${{")) != NULL;) {
		const char *close = strstr(open, "}}"), *str;
		char *expr;
		struct wm_val v;
		wm_buf_add(&b, p, (size_t)(open - p));
		if (!close || !(expr = wm_arena_strndup(&w->arena, open, (size_t)(close + 2 - open)))) {
			p = open + strlen(open);
			wm_buf_printf(&b, "\x01%zu\x01", *n);
			names[(*n)++] = "an expression init cannot read";
			break;
		}
		wm_eval_text(&v, &w->eval, &es, expr);
		if (v.kind == WM_VAL_UNKNOWN || !(str = wm_eval_string(&w->eval, &v))) {
			wm_buf_printf(&b, "\x01%zu\x01", *n);
			names[(*n)++] = v.kind == WM_VAL_UNKNOWN && v.why ? v.why : "an expression";
		} else {
			wm_buf_puts(&b, str);
		}
		p = close + 2;
	}
	wm_buf_puts(&b, p);
	text = b.oom ? NULL : wm_arena_strndup(&w->arena, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	*unknowns = names;
	return text;
}

int wm_workflows_env(struct wm_workflows *w, const struct wm_wf_step *s, const char *name, size_t len, const char **value,
	const char **why)
{
	struct wm_val v;
	int got;
	*value = NULL;
	*why = NULL;
	/* the files GitHub gives a step to write into: their names stand for themselves */
	if ((len == 10 && !strncmp(name, "GITHUB_ENV", 10)) || (len == 13 && !strncmp(name, "GITHUB_OUTPUT", 13))) {
		*value = len == 10 ? "$GITHUB_ENV" : "$GITHUB_OUTPUT";
		return 1;
	}
	got = env_lookup(s->scope, name, len, &v);
	if (got > 0)
		*value = wm_eval_string(&w->eval, &v);
	else if (got < 0)
		*why = v.why ? v.why : "a variable not known";
	else
		/* not set by the workflow: the runner's own (RUNNER_TEMP, PATH) or none at all */
		*why = wm_arena_printf(&w->arena, "$%.*s, which the workflow does not set", (int)len, name);
	return got > 0 ? (*value ? 1 : -1) : -1;
}

static int script_env_get(void *ctx, const char *name, size_t len, const char **value, const char **why)
{
	const struct wm_wf_step *s = ctx;
	return wm_workflows_env(s->scope->w, s, name, len, value, why);
}

void wm_workflows_script_env(struct wm_script_env *out, struct wm_workflows *w, const struct wm_wf_step *s)
{
	(void)w;
	out->get = script_env_get;
	out->ctx = (void *)s;
}

size_t wm_workflows_env_names(const char ***out, struct wm_workflows *w, const struct wm_wf_step *s)
{
	size_t cap = s->scope->nghenv, n = 0;
	for (size_t i = 0; i < s->scope->nenv; i++)
		cap += s->scope->env[i].map && s->scope->env[i].map->type == WM_NODE_MAP ? s->scope->env[i].map->n : 0;
	if (!(*out = wm_arena_array(&w->arena, cap ? cap : 1, sizeof(**out))))
		return 0;
	for (size_t i = 0; i < s->scope->nghenv; i++)
		(*out)[n++] = s->scope->ghenv[i].name;
	for (size_t i = 0; i < s->scope->nenv; i++)
		for (size_t k = 0; s->scope->env[i].map && s->scope->env[i].map->type == WM_NODE_MAP &&
				k < s->scope->env[i].map->n; k++) {
			const char *name = s->scope->env[i].map->pairs[k].key->text;
			bool seen = false;
			for (size_t j = 0; j < n && !seen; j++)
				seen = !strcmp((*out)[j], name);
			if (!seen)
				(*out)[n++] = name;
		}
	return n;
}

enum wm_truth wm_workflows_runs_on(struct wm_workflows *w, const struct wm_wf_run *run, const struct wm_wf_step *s,
	unsigned event)
{
	struct wm_wf_scope as = *s->scope;
	struct wm_eval_scope es;
	enum wm_truth job, step;
	as.event = event;
	es = eval_scope(&as);
	job = wm_eval_if(&w->eval, &es, scalar(wm_yaml_find(run->job_node, "if")));
	step = wm_eval_if(&w->eval, &es, scalar(wm_yaml_find(s->node, "if")));
	if (run->runs == WM_FALSE || job == WM_FALSE || step == WM_FALSE || s->runs == WM_FALSE)
		return WM_FALSE;
	return job == WM_TRUE && step == WM_TRUE ? WM_TRUE : WM_MAYBE;
}

const char *wm_workflows_action(struct wm_workflows *w, const struct wm_wf_step *s)
{
	const char *at;
	char *name;
	if (!s->uses)
		return NULL;
	at = strchr(s->uses, '@');
	if (!(name = wm_arena_strndup(&w->arena, s->uses, at ? (size_t)(at - s->uses) : strlen(s->uses))))
		return NULL;
	for (char *c = name; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return name;
}

/* Where line `line` of a loaded file starts, through its marks (made once, in one pass over the text, in its arena). */
static size_t line_start(struct loaded *l, unsigned line)
{
	size_t at;
	if (!l->marks) {
		size_t lines = 1;
		for (size_t i = 0; i < l->doc.len; i++)
			lines += l->doc.text[i] == '\n' || l->doc.text[i] == '\r' || (unsigned char)l->doc.text[i] == 0x85 ||
				(unsigned char)l->doc.text[i] == 0xa8 || (unsigned char)l->doc.text[i] == 0xa9;
		if (!(l->marks = wm_arena_array(&l->doc.arena, lines / LINES_PER_MARK + 2, sizeof(*l->marks))))
			return wm_yaml_offset(&l->doc, line, 1);
		at = wm_yaml_offset(&l->doc, 1, 1);
		for (size_t n = 0; at < l->doc.len || n == 0; n++) {
			if (n % LINES_PER_MARK == 0)
				l->marks[l->nmarks++] = at;
			at = wm_yaml_next_line(&l->doc, at);
		}
	}
	if (!line || (line - 1) / LINES_PER_MARK >= l->nmarks)
		return l->doc.len;
	at = l->marks[(line - 1) / LINES_PER_MARK];
	for (unsigned n = (line - 1) % LINES_PER_MARK; n > 0 && at < l->doc.len; n--)
		at = wm_yaml_next_line(&l->doc, at);
	return at;
}

unsigned wm_workflows_column(const struct wm_workflows *w, const char *file, unsigned line, const char *text)
{
	for (size_t i = 0; i < w->priv->nfiles; i++) {
		struct loaded *l = &w->priv->files[i];
		size_t start, end, n = strlen(text);
		const char *at;
		if (!l->ok || strcmp(l->path, file) != 0)
			continue;
		start = line_start(l, line);
		end = start < l->doc.len ? wm_yaml_next_line(&l->doc, start) : start;
		if (start >= end || !n)
			return 0;
		for (at = l->doc.text + start; at + n <= l->doc.text + end; at++)
			if (!strncmp(at, text, n))
				return (unsigned)wm_utf8_len(l->doc.text + start, (size_t)(at - l->doc.text - start)) + 1;
		return 0;
	}
	return 0;
}
