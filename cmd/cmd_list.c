/* cmd_list.c — `wheelmatrix list`: the expanded jobs as a table, JSON, JSON lines or GitHub outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

static const char *const formats[] = { "table", "json", "jsonl", "github", NULL };
enum format { FORMAT_TABLE, FORMAT_JSON, FORMAT_JSONL, FORMAT_GITHUB };

const struct cli_option cmd_list_options[LIST_NOPTIONS] = {
	[LIST_FORMAT] = { 0, "format", "FORMAT", formats,
		"table (default), json (an array), jsonl (a line per job) or github ($GITHUB_OUTPUT lines)" },
	[LIST_WHY] = { 0, "why", NULL, NULL,
		"also list the combinations left out and the rule that removed each, and the jobs whose tests do not run "
		"(not with github); say the notes of what is not checked" },
};

/* Output is written as it is produced: a million jobs are never held in memory. */
static char outbuf[1 << 18];

/* Columns as shown (characters, a control as its escape): the table is aligned for the eye. */
static size_t width(const char *s)
{
	return cli_show_width(s);
}

static void pad(size_t n)
{
	while (n--)
		putchar(' ');
}

/* Prints a cell and the spaces up to the next column. */
static void cell(const char *s, size_t col)
{
	cli_show(stdout, s);
	pad(col - width(s) + 2);
}

/* ---- table ---------------------------------------------------------------- */

enum { C_ID, C_DIST, C_FEATURES, C_RUNNER, C_WHEEL, C_COUNT };
static const char *const headers[C_COUNT] = { "ID", "DISTRIBUTION", "FEATURES", "RUNNER", "WHEEL" };

static size_t features_width(const struct wm_strlist *f)
{
	size_t n = f->n ? f->n - 1 : 1;  /* the commas, or "-" */
	for (size_t i = 0; i < f->n; i++)
		n += width(f->items[i]);
	return n;
}

static size_t wheel_width(const struct wm_job *job)
{
	return width(job->python->python_tag) + width(wm_python_abi_tag(job->python, job->platform)) +
		width(job->platform->platform_tag) + 2;
}

static void print_job_row(const struct wm_job *job, const size_t *w)
{
	const struct wm_strlist *f = job->build ? &job->build->features : &job->backend->features;
	cell(job->id, w[C_ID]);
	cell(job->backend->dist, w[C_DIST]);
	if (f->n == 0)
		fputs("-", stdout);
	for (size_t i = 0; i < f->n; i++) {
		if (i)
			putchar(',');
		cli_show(stdout, f->items[i]);
	}
	pad(w[C_FEATURES] - features_width(f) + 2);
	cell(job->platform->runner, w[C_RUNNER]);
	cli_print(stdout, "%s-%s-%s\n", job->python->python_tag, wm_python_abi_tag(job->python, job->platform),
		job->platform->platform_tag);
}

static void print_left_row(const struct wm_job *job, size_t id_width, size_t why_width)
{
	const struct wm_loc *l = &job->why_loc;
	if (!l->line) {
		cell(job->id, id_width);
		cli_print(stdout, "%s\n", job->why);
		return;
	}
	cell(job->id, id_width);
	cell(job->why, why_width);
	cli_print(stdout, "(%s:%u:%u)\n", l->file ? l->file : "", l->line, l->column);
}

/*
 * Iterates `m` with `flags`, calling `fn` for each yielded item of the kind
 * asked for (jobs or left-out combinations); stops early on a write error.
 */
static int each(const struct wm_matrix *m, unsigned flags,
	int (*fn)(const struct wm_job *job, void *data), void *data)
{
	struct wm_expand *it = NULL;
	struct wm_job job;
	int ret, more;
	if ((ret = wm_expand_new(&it, m, flags)) < 0)
		return ret;
	while ((more = wm_expand_next(it, &job)) > 0) {
		if ((job.left_by != WM_KEPT) != (flags == WM_EXPAND_LEFT_OUT))
			continue;
		if ((ret = fn(&job, data)) < 0 || ferror(stdout))
			break;
	}
	if (more < 0)
		ret = more;
	wm_expand_free(it);
	return ret;
}

struct table {
	size_t w[C_COUNT];
	size_t left_id, left_why;  /* widths of the left-out lines */
	size_t n;
};

static int measure_job(const struct wm_job *job, void *data)
{
	struct table *t = data;
	size_t v[C_COUNT] = { width(job->id), width(job->backend->dist), features_width(job->build ? &job->build->features : &job->backend->features),
		width(job->platform->runner), wheel_width(job) };
	for (size_t i = 0; i < C_COUNT; i++)
		if (v[i] > t->w[i])
			t->w[i] = v[i];
	t->n++;
	return 0;
}

static int measure_left(const struct wm_job *job, void *data)
{
	struct table *t = data;
	size_t id = width(job->id), why = width(job->why);
	if (id > t->left_id)
		t->left_id = id;
	if (job->why_loc.line && why > t->left_why)
		t->left_why = why;
	t->n++;
	return 0;
}

static int print_job(const struct wm_job *job, void *data)
{
	struct table *t = data;
	print_job_row(job, t->w);
	t->n++;
	return 0;
}

static int print_left(const struct wm_job *job, void *data)
{
	struct table *t = data;
	print_left_row(job, t->left_id, t->left_why);
	return 0;
}

/* A job whose tests run nowhere (`test:`), for --why: its id's width, or the line itself. */
static int measure_untested(const struct wm_job *job, void *data)
{
	struct table *t = data;
	const char *why;
	if (wm_jobs_tests(job, &why) == WM_TESTS_SKIPPED) {
		size_t id = width(job->id);
		if (id > t->left_id)
			t->left_id = id;
		t->n++;
	}
	return 0;
}

static int print_untested(const struct wm_job *job, void *data)
{
	struct table *t = data;
	const char *why;
	if (wm_jobs_tests(job, &why) == WM_TESTS_SKIPPED) {
		cell(job->id, t->left_id);
		cli_print(stdout, "%s\n", why);
	}
	return 0;
}

static int list_table(const struct wm_matrix *m, bool why)
{
	struct table t;
	int ret;
	memset(&t, 0, sizeof(t));
	for (size_t i = 0; i < C_COUNT; i++)
		t.w[i] = width(headers[i]);
	/* a first pass for the column widths: expansion is cheap, storing the jobs is not */
	if ((ret = each(m, WM_EXPAND_JOBS, measure_job, &t)) < 0)
		return ret;
	if (t.n) {
		for (size_t i = 0; i + 1 < C_COUNT; i++)
			cell(headers[i], t.w[i]);
		puts(headers[C_COUNT - 1]);
	}
	t.n = 0;
	if ((ret = each(m, WM_EXPAND_JOBS, print_job, &t)) < 0)
		return ret;
	printf("%zu %s\n", t.n, t.n == 1 ? "job" : "jobs");
	if (!why)
		return 0;
	t.n = 0;
	if ((ret = each(m, WM_EXPAND_LEFT_OUT, measure_left, &t)) < 0)
		return ret;
	putchar('\n');
	if (t.n)
		puts("left out:");
	if ((ret = each(m, WM_EXPAND_LEFT_OUT, print_left, &t)) < 0)
		return ret;
	printf("%zu left out\n", t.n);
	/* the jobs built and imported whose project tests do not run: only a matrix with `test:` has any */
	t.n = t.left_id = 0;
	if ((ret = each(m, WM_EXPAND_JOBS, measure_untested, &t)) < 0)
		return ret;
	if (!t.n)
		return 0;
	puts("\nnot tested:");
	if ((ret = each(m, WM_EXPAND_JOBS, print_untested, &t)) < 0)
		return ret;
	printf("%zu not tested\n", t.n);
	return 0;
}

/* ---- JSON ----------------------------------------------------------------- */

struct json_out {
	struct wm_jobs *json;
	enum format format;
	size_t n;
};

static void emit(struct json_out *o, const char *text, size_t len)
{
	if (o->format == FORMAT_JSON)
		fputs(o->n ? ",\n" : "[\n", stdout);
	fwrite(text, 1, len, stdout);
	if (o->format == FORMAT_JSONL)
		putchar('\n');
	o->n++;
}

static int json_job(const struct wm_job *job, void *data)
{
	struct json_out *o = data;
	const char *text;
	size_t len;
	int ret = wm_jobs_encode(o->json, job, &text, &len);
	if (ret == 0)
		emit(o, text, len);
	return ret;
}

static int json_left(const struct wm_job *job, void *data)
{
	struct json_out *o = data;
	const char *text;
	size_t len;
	int ret = wm_jobs_left_out(o->json, job, &text, &len);
	if (ret == 0)
		emit(o, text, len);
	return ret;
}

static int list_json(const struct wm_matrix *m, struct wm_jobs *json, enum format format, bool why)
{
	struct json_out o = { json, format, 0 };
	int ret;
	if ((ret = each(m, WM_EXPAND_JOBS, json_job, &o)) < 0 ||
	    (why && (ret = each(m, WM_EXPAND_LEFT_OUT, json_left, &o)) < 0))
		return ret;
	if (format == FORMAT_JSON)
		fputs(o.n ? "\n]\n" : "[]\n", stdout);
	return 0;
}

static int list_github(const struct wm_matrix *m, struct wm_jobs *json)
{
	for (size_t i = 0; i < m->ngroups && !ferror(stdout); i++) {
		const char *text;
		size_t len;
		int ret = wm_jobs_group_matrix(json, m, &m->groups[i], &text, &len);
		if (ret < 0)
			return ret;
		printf("matrix-%s=", m->groups[i].name);
		fwrite(text, 1, len, stdout);
		putchar('\n');
	}
	return 0;
}

/* ---- the command ---------------------------------------------------------- */

static enum format parse_format(const char *value)
{
	for (size_t i = 0; value && formats[i]; i++)
		if (strcmp(formats[i], value) == 0)
			return (enum format)i;
	return FORMAT_TABLE;
}

int cmd_list_prepare(struct cli *cli, unsigned *setup)
{
	bool why = cli->values[LIST_WHY] != NULL;
	(void)setup;
	if (why)
		cli_show_asides(true);  /* the notes of what was not checked, where the jobs are explained */
	if (why && parse_format(cli->values[LIST_FORMAT]) == FORMAT_GITHUB) {
		cli_error("'--why' cannot be used with '--format github'");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int cmd_list(struct cli *cli, struct cli_ctx *ctx)
{
	enum format format = parse_format(cli->values[LIST_FORMAT]);
	bool why = cli->values[LIST_WHY] != NULL;
	const struct wm_matrix *m = ctx->m;
	const char *applied = ctx->applied;
	struct wm_jobs *json = NULL;
	int ret = 0;

	if (ctx->err.ndiags && cli->verbosity >= 0)
		cli_print_diags(&ctx->err);
	/* a local build's patch does not change the jobs */
	if (applied && cli->verbosity > 0)
		cli_note("%s has the patch of backend '%s' applied: reading the file without it", m->pyproject, applied);
	if (cli->verbosity > 0)
		cli_print(stderr, "wheelmatrix: %s: %zu %s in %zu build %s\n", m->file, m->njobs,
			m->njobs == 1 ? "job" : "jobs", m->ngroups, m->ngroups == 1 ? "job" : "jobs");
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (format != FORMAT_TABLE && (ret = wm_jobs_new(&json)) < 0)
		goto fail;
	switch (format) {
	case FORMAT_TABLE:
		ret = list_table(m, why);
		break;
	case FORMAT_JSON:
	case FORMAT_JSONL:
		ret = list_json(m, json, format, why);
		break;
	case FORMAT_GITHUB:
		ret = list_github(m, json);
		break;
	}
fail:
	if (ret < 0)
		cli_error("%s", ret == WM_ENOMEM ? "out of memory" : "cannot expand the matrix: internal error");
	wm_jobs_free(json);
	return cli_exit_code(ret);
}
