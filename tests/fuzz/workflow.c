/* workflow.c — libFuzzer target: a workflow of the project's own as init and check read it (workflow/read.c, builds.c, init/ci.c), its `if:` conditions (workflow/eval.c). */
#include <strings.h>
#include "fuzz.h"
#include "util/buf.h"
#include "util/utf8.h"
#include "workflow/eval.h"
#include "init/init.h"

/*
 * Input: the bytes of .github/workflows/ci.yml, in a repository of the llm-rs project (the matrix's
 * distributions llm-rs, llm-rs-cuda and llm-rs-metal).
 *
 * Properties:
 *   1. no crash, leak or undefined behaviour: the scan succeeds (a workflow is evidence, never an
 *      error) and lists the file at most once;
 *   2. a wheel workflow builds at least one distribution, each a name; one that uploads says on
 *      which event, and its position lies inside the text (read as UTF-8, a UTF-16 file converted):
 *      a line of it, a column at most one past that line's last character;
 *   3. the scan is a function of the input: run twice, it gives the same workflow;
 *   4. the input as a condition (NUL-terminated, and wrapped in ${{ }}) evaluates to one of
 *      the three answers on a tag push, and !(it) to the opposite one when the answer is known;
 *   5. a workflow that publishes names the job that does, and lists what it builds that the
 *      matrix does not at most 64 times, each a text without a control character.
 */

static const uint8_t *input;
static size_t input_len;

static int mem_read(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	(void)ctx;
	(void)err;
	if (strcmp(path, ".github/workflows/ci.yml") != 0)
		return 1;
	if (!(*data = malloc(input_len + 1)))
		abort();
	memcpy(*data, input, input_len);
	(*data)[input_len] = '\0';
	*len = input_len;
	return 0;
}

static int mem_list(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	(void)ctx;
	(void)err;
	if (strcmp(dir, ".github/workflows") != 0)
		return 1;
	return wm_io_paths_add(out, "ci.yml", 6);
}

/* The length of the line break at p, as YAML's (LF, CR LF, CR, NEL, U+2028, U+2029), or 0. */
static size_t line_break(const char *p, const char *end)
{
	if (*p == '\n')
		return 1;
	if (*p == '\r')
		return p + 1 < end && p[1] == '\n' ? 2 : 1;
	if (end - p >= 2 && memcmp(p, "\xc2\x85", 2) == 0)
		return 2;
	if (end - p >= 3 && (memcmp(p, "\xe2\x80\xa8", 3) == 0 || memcmp(p, "\xe2\x80\xa9", 3) == 0))
		return 3;
	return 0;
}

/* The number of characters of line `line` (1-based) of the text, or -1 when there is no such line. */
static long line_length(const char *text, size_t len, unsigned line)
{
	const char *p = text, *end = text + len, *start = text;
	unsigned n = 1;
	while (p < end) {
		size_t k = line_break(p, end);
		if (!k) {
			p++;
			continue;
		}
		if (n == line)
			return (long)wm_utf8_len(start, (size_t)(p - start));
		n++;
		p += k;
		start = p;
	}
	return n == line ? (long)wm_utf8_len(start, (size_t)(end - start)) : -1;
}

static void scan(struct wm_init_workflows *w)
{
	static const char *const known[] = { "llm-rs", "llm-rs-cuda", "llm_rs.metal" };
	struct wm_reader r = { mem_read, NULL, mem_list };
	struct wm_error err;
	wm_error_init(&err);
	if (wm_init_ci_workflows(w, &r, "llm-rs", NULL, known, WM_ARRAY_SIZE(known), NULL, NULL, NULL, 0, &err) != 0) {
		fuzz_print_errors(&err);
		FUZZ_CHECK(0, "the scan failed");
	}
	wm_error_release(&err);
}

static void check_workflow(const struct wm_init_workflow *w)
{
	struct wm_buf utf8 = WM_BUF_INIT;
	const char *text = (const char *)input;
	size_t len = input_len;
	long n;

	FUZZ_CHECK(strcmp(w->path, ".github/workflows/ci.yml") == 0, "path %s", w->path);
	FUZZ_CHECK(w->ndists >= 1, "a wheel workflow builds no distribution");
	for (size_t i = 0; i < w->ndists; i++)
		FUZZ_CHECK(w->dists[i] && *w->dists[i], "distribution %zu is empty", i);
	if (!w->publisher)
		return;
	FUZZ_CHECK(w->event && (strcmp(w->event, "a tag push") == 0 || strcmp(w->event, "a release") == 0),
		"event %s", w->event ? w->event : "(none)");
	FUZZ_CHECK(w->job && *w->job, "a publishing workflow without its job");
	FUZZ_CHECK(w->nlost <= 64, "%zu wheels lost", w->nlost);
	if (wm_utf8_from_utf16(&utf8, text, len)) {
		FUZZ_CHECK(!utf8.oom, "out of memory");
		text = utf8.ptr ? utf8.ptr : "";
		len = utf8.len;
	}
	n = line_length(text, len, w->line);
	FUZZ_CHECK(w->line >= 1 && n >= 0, "line %u is not in the text", w->line);
	FUZZ_CHECK(w->column >= 1 && (long)w->column <= n + 1, "column %u of line %u, of %ld characters", w->column,
		w->line, n);
	wm_buf_release(&utf8);
}

/* A tag push's contexts: github.ref starts with refs/tags/, the event is a push; the rest unknown. */
static void tag_push(void *ctx, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t n, size_t *used,
	struct wm_val *out)
{
	(void)ctx;
	*used = n;
	if (n == 2 && lens[0] == 6 && !strncasecmp(parts[0], "github", 6) && lens[1] == 3 && !strncasecmp(parts[1], "ref", 3)) {
		wm_eval_str(out, "refs/tags/", 10);
		out->prefix = true;
	} else if (n == 2 && lens[0] == 6 && !strncasecmp(parts[0], "github", 6) && lens[1] == 10 &&
			!strncasecmp(parts[1], "event_name", 10)) {
		wm_eval_str(out, "push", 4);
	} else {
		wm_eval_unknown(out, e, "a context");
	}
}

static enum wm_truth holds(const char *cond)
{
	struct wm_arena arena;
	struct wm_eval e;
	struct wm_eval_scope s = { tag_push, NULL };
	enum wm_truth t;
	wm_arena_init(&arena);
	wm_eval_init(&e, &arena, 1u << 20);
	t = wm_eval_if(&e, &s, cond);
	wm_arena_release(&arena);
	return t;
}

static void check_condition(const char *cond)
{
	struct wm_buf wrapped = WM_BUF_INIT, negated = WM_BUF_INIT;
	enum wm_truth t = holds(cond), u, v;

	FUZZ_CHECK(t == WM_FALSE || t == WM_TRUE || t == WM_MAYBE, "answer %d", (int)t);
	/* the same expression in ${{ }} (when it cannot close early), and its negation */
	if (!strstr(cond, "}}") && !strstr(cond, "${{")) {
		wm_buf_printf(&wrapped, "${{ %s }}", cond);
		wm_buf_printf(&negated, "!(%s)", cond);
		FUZZ_CHECK(!wrapped.oom && !negated.oom, "out of memory");
		u = holds(wrapped.ptr);
		FUZZ_CHECK(u == t, "'%s' is %d, wrapped %d", cond, (int)t, (int)u);
		v = holds(negated.ptr);
		FUZZ_CHECK(t == WM_MAYBE || v == WM_MAYBE || v != t, "'%s' is %d, and !(it) %d", cond, (int)t, (int)v);
	}
	wm_buf_release(&wrapped);
	wm_buf_release(&negated);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_init_workflows a, b;
	char *cond;

	input = data;
	input_len = size;
	scan(&a);
	scan(&b);
	FUZZ_CHECK(a.n <= 1 && a.n == b.n, "%zu and %zu workflows", a.n, b.n);
	if (a.n) {
		const struct wm_init_workflow *x = &a.items[0], *y = &b.items[0];
		check_workflow(x);
		FUZZ_CHECK(x->ndists == y->ndists && x->line == y->line && x->column == y->column &&
			(x->publisher == NULL) == (y->publisher == NULL), "two scans differ");
	}
	wm_init_ci_workflows_release(&a);
	wm_init_ci_workflows_release(&b);

	if (!(cond = malloc(size + 1)))
		abort();
	memcpy(cond, data, size);
	cond[size] = '\0';
	check_condition(cond);
	free(cond);
	return 0;
}
