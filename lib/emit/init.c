/* init.c — a starting wheelmatrix.yaml from the project and its CI: name, abi3, the backends it publishes or its GPU features, its CI providers; the wheel workflows it replaces, which check reads too. */
#include <ctype.h>
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
#include "model/expr.h"
#include "model/project.h"
#include "model/catalog.h"
#include "emit/init.h"
#include "emit/init_matrix.h"

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
	struct wm_init_workflow read[MAX_FOUND];  /* what each builds and how it publishes */
	size_t nworkflows;
	struct published published[MAX_FOUND];
	size_t npublished;
	size_t unplain;                     /* files passed over for their names */
	struct {                            /* the first workflow with a line break libyaml alone sees */
		const char *path;
		unsigned line, column;
		uint32_t cp;
	} hidden;
	struct wm_takeover takeover;        /* what the workflows that build the project's own distribution build,
	                                       read as a matrix (init_matrix.c); a backend's are its own */
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

/* Each distribution `<name>-<suffix>` the text names whose suffix is a backend, into ci->published. */
static void scan_distributions(struct repo_ci *ci, struct wm_arena *a, const struct wm_project *p,
	const char *file, const char *text, size_t len)
{
	const char *features[16];
	size_t nfeatures = scan_features(features, WM_ARRAY_SIZE(features), a, p, text, len);
	size_t first = ci->npublished;
	struct named names[MAX_FOUND];
	size_t nnames = find_names(names, WM_ARRAY_SIZE(names), a, p, p->name, text, len);

	for (size_t k = 0; k < nnames && ci->npublished < MAX_FOUND; k++) {
		bool seen = false;
		for (size_t i = 0; i < ci->npublished; i++)
			seen |= strcmp(ci->published[i].id, names[k].suffix) == 0;
		if (!seen)
			ci->published[ci->npublished++] = (struct published){ names[k].suffix, names[k].dist, file, NULL, 0, 0 };
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

/* ---- the project's own wheel workflows, and whether they publish on tags ------------------ */

#define WORKFLOW_LIMITS { 1u << 20, 64, 200000, 2u << 20 }  /* a workflow larger or deeper is passed over */

/* A direct child of .github/workflows/ that GitHub runs: `*.yml` or `*.yaml`. */
static bool workflow_path(const char *path)
{
	return strncmp(path, ".github/workflows/", 18) == 0 && !strchr(path + 18, '/') &&
		(ends_with(path, ".yml") || ends_with(path, ".yaml"));
}

enum { ON_TAG = 1, ON_RELEASE = 2 };

/* Whether a `push` trigger runs on a tag: no filter at all, or a tags filter (GitHub's rule). */
static bool push_on_tags(const struct wm_node *push)
{
	if (!push || push->type != WM_NODE_MAP)
		return true;
	if (wm_yaml_find(push, "tags") || wm_yaml_find(push, "tags-ignore"))
		return true;
	return !wm_yaml_find(push, "branches") && !wm_yaml_find(push, "branches-ignore");
}

static unsigned trigger(const struct wm_node *event, const struct wm_node *filters)
{
	if (!event || event->type != WM_NODE_SCALAR)
		return 0;
	if (strcmp(event->text, "push") == 0)
		return push_on_tags(filters) ? ON_TAG : 0;
	return strcmp(event->text, "release") == 0 ? ON_RELEASE : 0;
}

/* The events of `on:` (a name, a list of names or a mapping) that publish a version: a tag push, a release. */
static unsigned triggers(const struct wm_node *on)
{
	unsigned events = 0;
	if (!on)
		return 0;
	if (on->type == WM_NODE_SCALAR)
		return trigger(on, NULL);
	for (size_t i = 0; i < on->n; i++)
		events |= on->type == WM_NODE_SEQ ? trigger(on->items[i], NULL) : trigger(on->pairs[i].key, on->pairs[i].value);
	return events;
}

/* What GitHub sets on each of those events (github.ref: refs/tags/ and the tag's name). */
static const struct wm_expr_fact tag_push[] = {
	{ "github.event_name", "push", false }, { "github.ref", "refs/tags/", true }, { "github.ref_type", "tag", false },
	{ "github.event.ref", "refs/tags/", true },
};
static const struct wm_expr_fact release[] = {
	{ "github.event_name", "release", false }, { "github.ref", "refs/tags/", true }, { "github.ref_type", "tag", false },
};

/*
 * A workflow being read for its upload step.  Aliases let a small file repeat a large script or
 * condition many times over: what is read of them is bounded by a budget of the file's size.
 */
struct reading {
	const struct wm_doc *doc;
	size_t budget;
};

static bool spend(struct reading *rd, size_t n)
{
	if (n > rd->budget)
		return false;
	rd->budget -= n;
	return true;
}

/* Whether a job's or step's `if:` may hold on the event (absent: always; not understood: it may). */
static bool may_run(struct reading *rd, const struct wm_node *cond, unsigned event)
{
	if (!cond || cond->type != WM_NODE_SCALAR)
		return true;
	if (!spend(rd, cond->len))
		return false;
	return event == ON_TAG ? wm_expr_holds(cond->text, tag_push, WM_ARRAY_SIZE(tag_push)) != WM_EXPR_FALSE :
		wm_expr_holds(cond->text, release, WM_ARRAY_SIZE(release)) != WM_EXPR_FALSE;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/*
 * The first command in a script line that uploads to an index (`uv publish`, `python -m twine
 * upload`, ...): its name, with its offset in *at; NULL when there is none or the line is a comment.
 */
static const char *upload_command(const char *line, size_t n, size_t *at)
{
	static const char *const commands[][2] = {
		{ "maturin", "publish" }, { "maturin", "upload" }, { "twine", "upload" }, { "uv", "publish" },
	};
	static const char *const names[] = { "maturin publish", "maturin upload", "twine upload", "uv publish" };
	size_t i = 0;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < n && line[i] == '#')
		return NULL;
	for (; i < n; i++) {
		if (i > 0 && word_char(line[i - 1]))
			continue;
		for (size_t k = 0; k < WM_ARRAY_SIZE(commands); k++) {
			size_t a = strlen(commands[k][0]), b = strlen(commands[k][1]), j = i + a;
			if (n - i < a || memcmp(line + i, commands[k][0], a) != 0 || j == n || (line[j] != ' ' && line[j] != '\t'))
				continue;
			while (j < n && (line[j] == ' ' || line[j] == '\t'))
				j++;
			if (n - j < b || memcmp(line + j, commands[k][1], b) != 0 || (j + b < n && word_char(line[j + b])))
				continue;
			*at = i;
			return names[k];
		}
	}
	return NULL;
}

/* The uploading command of a script of several lines, or NULL. */
static const char *script_upload(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *how;
		size_t at;
		if ((how = upload_command(p, (size_t)((nl ? nl : end) - p), &at)) != NULL)
			return how;
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/*
 * The end of the line at p as YAML ends lines (and libyaml counts them): LF, CR LF, a lone CR,
 * NEL, U+2028 or U+2029; *next is where the following line starts.
 */
static const char *line_end(const char *p, const char *end, const char **next)
{
	for (; p < end; p++) {
		size_t n = *p == '\n' ? 1 : *p == '\r' ? (p + 1 < end && p[1] == '\n' ? 2 : 1) :
			end - p >= 2 && memcmp(p, "\xc2\x85", 2) == 0 ? 2 :
			end - p >= 3 && (memcmp(p, "\xe2\x80\xa8", 3) == 0 || memcmp(p, "\xe2\x80\xa9", 3) == 0) ? 3 : 0;
		if (n) {
			*next = p + n;
			return p;
		}
	}
	*next = end;
	return end;
}

/*
 * Where a script's uploading command is in the workflow's text: on the lines of the `run:` value
 * (for `run: |`, the lines after), or the value's start when the text does not show it as it
 * is (an escape in a quoted string).
 */
static void locate_script(struct wm_init_workflow *w, const struct wm_doc *doc, const struct wm_node *run)
{
	const char *p = doc->text, *end = doc->text + doc->len, *next;
	w->line = run->line;
	w->column = run->column;
	for (unsigned line = 1; p < end && line <= run->end_line; line++, p = next) {
		size_t n = (size_t)(line_end(p, end, &next) - p), at, skip = 0;
		if (line < run->line)
			continue;
		if (line == run->line)  /* from the value on, not the key before it */
			for (unsigned c = 1; c < run->column && skip < n; c++) {
				bool control;
				skip += wm_utf8_next(p + skip, n - skip, &control);
			}
		if (upload_command(p + skip, n - skip, &at)) {
			w->line = line;
			w->column = (unsigned)wm_utf8_len(p, skip + at) + 1;
			return;
		}
	}
}

/*
 * How a step uploads to an index: pypa's action, maturin-action's `command: upload` (or
 * `publish`), or a command in its `run:` script; *where is the node that says so.
 */
static const char *step_upload(struct reading *rd, const struct wm_node *step, const struct wm_node **where)
{
	const struct wm_node *uses = wm_yaml_find(step, "uses"), *run = wm_yaml_find(step, "run");

	*where = NULL;
	if (uses && uses->type == WM_NODE_SCALAR) {
		const struct wm_node *command = wm_yaml_find(wm_yaml_find(step, "with"), "command");
		if (strncasecmp(uses->text, "pypa/gh-action-pypi-publish", 27) == 0 &&
				(uses->text[27] == '@' || uses->text[27] == '/' || uses->text[27] == '\0')) {
			*where = uses;
			return "pypa/gh-action-pypi-publish";
		}
		/* PyO3/maturin-action, or messense/maturin-action as it was first published */
		if (strstr(uses->text, "/maturin-action") && command && command->type == WM_NODE_SCALAR &&
				(strcmp(command->text, "upload") == 0 || strcmp(command->text, "publish") == 0)) {
			*where = command;
			return strcmp(command->text, "upload") == 0 ? "maturin-action's command: upload" :
				"maturin-action's command: publish";
		}
		return NULL;
	}
	if (run && run->type == WM_NODE_SCALAR && spend(rd, run->len)) {
		*where = run;
		return script_upload(run->text, run->len);
	}
	return NULL;
}

/*
 * The first step of the workflow that uploads to an index and runs on a tag push or a release:
 * the workflow triggers on it and neither the job's `if:` nor the step's rules it out.
 */
static void find_upload(struct wm_init_workflow *w, const struct wm_doc *doc)
{
	const struct wm_node *jobs = wm_yaml_find(doc->root, "jobs");
	unsigned events = triggers(wm_yaml_find(doc->root, "on"));
	struct reading rd = { doc, 2 * doc->len + 4096 };

	for (size_t j = 0; events && jobs && jobs->type == WM_NODE_MAP && j < jobs->n; j++) {
		const struct wm_node *job = jobs->pairs[j].value, *steps = wm_yaml_find(job, "steps");
		for (size_t i = 0; steps && steps->type == WM_NODE_SEQ && i < steps->n; i++) {
			const struct wm_node *step = steps->items[i], *where;
			const char *how = step->type == WM_NODE_MAP ? step_upload(&rd, step, &where) : NULL;
			for (unsigned e = ON_TAG; how && e <= ON_RELEASE; e <<= 1) {
				if (!(events & e) || !may_run(&rd, wm_yaml_find(job, "if"), e) ||
						!may_run(&rd, wm_yaml_find(step, "if"), e))
					continue;
				w->publisher = how;
				w->event = e == ON_TAG ? "a tag push" : "a release";
				if (where == wm_yaml_find(step, "run")) {
					locate_script(w, doc, where);
				} else {
					w->line = where->line;
					w->column = where->column;
				}
				return;
			}
		}
	}
}

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

/*
 * What one of the project's own wheel workflows builds and how it publishes: the distributions it
 * names (`<name>-<backend>`, or one of `known`), else the project's own, which maturin builds
 * unrenamed.  1 for a wheel workflow, 0 for another text, WM_ENOMEM.
 */
static int read_workflow(struct wm_init_workflow *w, struct wm_arena *a, const char *path, const char *text,
	size_t len, const char *name, const struct wm_project *p, const char *const *known, size_t nknown,
	struct wm_takeover *takeover)
{
	static const struct wm_yaml_limits limits = WORKFLOW_LIMITS;
	struct named names[MAX_FOUND];
	size_t nnames;
	struct wm_error ignored;
	struct wm_doc doc;
	int ret;

	if (!workflow_path(path) || !builds_wheels(text, len))
		return 0;
	memset(w, 0, sizeof(*w));
	w->path = wm_arena_strdup(a, path);
	nnames = find_names(names, WM_ARRAY_SIZE(names), a, p, name, text, len);
	w->dists = wm_arena_array(a, nnames + nknown + 1, sizeof(*w->dists));
	if (!w->path || !w->dists)
		return WM_ENOMEM;
	for (size_t i = 0; i < nnames; i++)
		if (!(w->dists[w->ndists++] = names[i].dist))
			return WM_ENOMEM;
	for (size_t k = 0; k < nknown; k++) {
		bool seen = same_name(known[k], name);
		for (size_t i = 0; i < w->ndists && !seen; i++)
			seen = same_name(known[k], w->dists[i]);
		if (!seen && names_dist(text, len, known[k]) && !(w->dists[w->ndists++] = wm_arena_strdup(a, known[k])))
			return WM_ENOMEM;
	}
	if (!w->ndists && !(w->dists[w->ndists++] = wm_arena_strdup(a, name)))
		return WM_ENOMEM;
	/* evidence: a workflow GitHub could not read either publishes nothing */
	wm_error_init(&ignored);
	ret = wm_yaml_parse(&doc, path, text, len, &limits, &ignored);
	if (ret == 0 && doc.root && doc.root->type == WM_NODE_MAP) {
		find_upload(w, &doc);
		if (takeover)
			wm_init_matrix_read(takeover, w->path, doc.root);
	}
	wm_yaml_release(&doc);
	wm_error_release(&ignored);
	return ret == WM_ENOMEM ? ret : 1;
}

/* One file of the repository's CI or scripts: which distributions it builds; a wheel workflow is kept. */
static void scan_file(struct repo_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p,
	const char *path)
{
	struct wm_error ignored;
	char *text = NULL;
	size_t len = 0, before = ci->npublished;
	const char *file;

	/* evidence, not input: a file that cannot be read is passed over */
	wm_error_init(&ignored);
	if (!plain_path(path))
		ci->unplain++;
	if (!plain_path(path) || r->read(r->ctx, path, &text, &len, &ignored) != 0 || as_utf8(&text, &len) < 0 ||
			!(file = wm_arena_strdup(a, path))) {
		wm_error_release(&ignored);
		free(text);
		return;
	}
	wm_error_release(&ignored);
	if (written_by_wheelmatrix(path, text, len)) {
		free(text);
		return;  /* what generate wrote replaces the others, not itself */
	}
	/* formats/yaml.c refuses it, which evidence would pass over: init refuses it too, with its place */
	if (workflow_path(file) && !ci->hidden.path &&
	    (ci->hidden.cp = wm_utf8_find_break(text, len, &ci->hidden.line, &ci->hidden.column)) != 0)
		ci->hidden.path = file;
	scan_distributions(ci, a, p, file, text, len);
	if (ci->nworkflows < MAX_FOUND && read_workflow(&ci->read[ci->nworkflows], a, file, text, len, p->name, p, NULL, 0,
			ci->npublished == before ? &ci->takeover : NULL) > 0) {
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

int wm_init_workflows_scan(struct wm_init_workflows *out, const struct wm_reader *r, const char *name,
	const struct wm_project *p, const char *const *known, size_t nknown, const char *skip, struct wm_error *err)
{
	struct wm_paths paths = { NULL, 0, 0 };
	struct wm_error ignored;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	wm_arena_init(&out->arena);
	if (!r->list)
		return 0;
	wm_error_init(&ignored);
	/* a directory that cannot be listed (a link out of the repository) holds no workflow */
	if ((ret = r->list(r->ctx, ".github/workflows", &paths, &ignored)) != 0)
		goto out;
	if (!(out->items = wm_arena_array(&out->arena, paths.n ? paths.n : 1, sizeof(*out->items)))) {
		ret = WM_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < paths.n && i < MAX_SCANNED; i++) {
		char *path = wm_arena_printf(&out->arena, ".github/workflows/%s", paths.items[i]), *text = NULL;
		size_t len = 0;
		if (!path) {
			ret = WM_ENOMEM;
			goto out;
		}
		if (!workflow_path(path) || !plain_path(path) || (skip && strcmp(path, skip) == 0))
			continue;
		if ((ret = r->read(r->ctx, path, &text, &len, &ignored)) == 0 && (ret = as_utf8(&text, &len)) == 0 &&
				!written_by_wheelmatrix(path, text, len) &&
				(ret = read_workflow(&out->items[out->n], &out->arena, path, text, len, name, p, known, nknown,
				NULL)) > 0)
			out->n++;
		free(text);
		if (ret == WM_ENOMEM)
			goto out;
	}
	ret = 0;
out:
	if (ret == WM_ENOMEM) {
		wm_error_code(err, ret);
	} else {
		ret = 0;
	}
	wm_io_paths_free(&paths);
	wm_error_release(&ignored);
	return ret;
}

void wm_init_workflows_release(struct wm_init_workflows *w)
{
	if (!w)
		return;
	wm_arena_release(&w->arena);
	w->items = NULL;
	w->n = 0;
}

/*
 * What the repository's CI says: the providers it uses (.github/, a .gitlab-ci.yml, and whether
 * wheelmatrix wrote that one), the workflows that build wheels today, and the backends its
 * workflows and scripts publish as distributions of their own.
 */
static void scan_repo(struct repo_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p,
	const struct wm_catalog *cat)
{
	static const char *const dirs[] = { ".github", "scripts", "build_scripts", "ci" };
	struct wm_error ignored;
	size_t scanned = 0;
	char *text = NULL;
	size_t len = 0;

	memset(ci, 0, sizeof(*ci));
	ci->takeover.arena = a;
	ci->takeover.cat = cat;
	ci->takeover.project = p;
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
	if (ci->takeover.ndrops)
		wm_buf_puts(out, "#\n# These workflows build the wheels today; the matrix below builds what they build, but\n"
			"# not all of it (the drops below), so the workflow `generate` writes does not replace them yet:\n");
	else
		wm_buf_puts(out, "#\n# The workflow `generate` writes, .github/workflows/wheels.yml, replaces these, which build\n"
			"# the wheels today (remove them once it runs):\n");
	for (size_t i = 0; i < ci->nworkflows; i++) {
		wm_buf_printf(out, "#   %s", ci->workflows[i]);
		if (ci->built[i])
			wm_buf_printf(out, " (%s)", ci->built[i]);
		wm_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < ci->takeover.ndrops; i++)
		wm_buf_printf(out, "# drops %s (%s)\n", ci->takeover.drops[i].what, ci->takeover.drops[i].file);
	if (ci->takeover.more_drops)
		wm_buf_puts(out, "# drops more than these: read the workflows\n");
}

/* What the reader should know before the first generate, as notes that name the files. */
static void notes(const struct repo_ci *ci, struct wm_error *err)
{
	for (size_t i = 0; i < ci->nworkflows; i++) {
		const struct wm_init_workflow *w = &ci->read[i];
		struct wm_buf what = WM_BUF_INIT;
		if (ci->built[i])
			wm_buf_printf(&what, " (%s)", ci->built[i]);
		if (w->publisher)
			wm_buf_printf(&what, " and uploads them to an index on %s (%s)", w->event, w->publisher);
		if (ci->takeover.ndrops)
			wm_error_add(err, WM_OK, WM_SEV_NOTE, ci->workflows[i], NULL, 0, 0, 0, 0,
				"builds wheels%s: the matrix builds them too, except what it drops (the notes 'drops ...'), "
				"so keep it until those are built another way%s", what.ptr && !what.oom ? what.ptr : "",
				w->publisher ? " ('wheelmatrix check' reports the two publishers until then)" : "");
		else
			wm_error_add(err, WM_OK, WM_SEV_NOTE, ci->workflows[i], NULL, 0, 0, 0, 0,
				"builds wheels%s: the workflow generate writes, .github/workflows/wheels.yml, replaces it; "
				"remove it once that runs%s", what.ptr && !what.oom ? what.ptr : "",
				w->publisher ? " ('wheelmatrix check' reports the two publishers until then)" : "");
		wm_buf_release(&what);
	}
	for (size_t i = 0; i < ci->takeover.ndrops; i++)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, ci->takeover.drops[i].file, NULL, 0, 0, 0, 0, "drops %s",
			ci->takeover.drops[i].what);
	if (ci->takeover.more_drops)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, NULL, NULL, 0, 0, 0, 0, "drops more than these: read the workflows");
	if (ci->unplain)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, NULL, NULL, 0, 0, 0, 0,
			"%zu file%s of the CI not read: a name with characters other than letters, digits and ._-/",
			ci->unplain, ci->unplain == 1 ? "" : "s");
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
	struct wm_catalog *cat = NULL;
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
	if ((ret = wm_catalog_load(&cat, err)) < 0) {
		wm_arena_release(&arena);
		wm_project_free(p);
		return ret;
	}
	if ((ci = wm_arena_alloc(&arena, sizeof(*ci))) != NULL)
		scan_repo(ci, &arena, r, p, cat);
	if (ci && ci->hidden.path) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, ci->hidden.path, NULL, 0, ci->hidden.line, ci->hidden.column, 1,
			"a raw %s: YAML readers break the line here, while editors and diffs show one line, so what "
			"follows would be read unseen; remove it, and init reads the workflow", wm_utf8_break_name(ci->hidden.cp));
		wm_arena_release(&arena);
		wm_catalog_free(cat);
		wm_project_free(p);
		return WM_EINVALID;
	}
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
		wm_init_matrix_write(&ci->takeover, &b, root);
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
	wm_catalog_free(cat);
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
