/* cmd_check.c — `wheelmatrix check`: everything against one source of the git repository, compiler-style. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

static const char *const formats[] = { "table", "json", NULL };

const struct cli_option cmd_check_options[CHECK_NOPTIONS] = {
	[CHECK_STAGED] = { 0, "staged", NULL, NULL,
		"read the files from the index (the default as a pre-commit hook, or with PRE_COMMIT=1)" },
	[CHECK_REV] = { 0, "rev", "REV", NULL, "read the files from commit REV" },
	[CHECK_WORKTREE] = { 0, "worktree", NULL, NULL, "read the files from the working tree (the default otherwise)" },
	[CHECK_DIFF] = { 0, "diff", NULL, NULL,
		"print the diff from each stale, missing or hand-edited file to what generate writes" },
	[CHECK_FORMAT] = { 0, "format", "FORMAT", formats, "table (default: findings on stderr) or json (on stdout)" },
};

/* The default source: the index when run as a pre-commit hook (pre-commit's PRE_COMMIT, or ours). */
static enum wm_source default_source(void)
{
	const char *pc = getenv("PRE_COMMIT"), *hook = getenv("WHEELMATRIX_HOOK");
	return (pc && strcmp(pc, "1") == 0) || (hook && strcmp(hook, "1") == 0) ? WM_SOURCE_INDEX : WM_SOURCE_WORKTREE;
}

static const char *source_name(const struct wm_check_options *o)
{
	return o->source == WM_SOURCE_INDEX ? "in the index (staged)" : o->source == WM_SOURCE_REV ? "in commit" :
		"in the working tree";
}

/* -v: what was compared, and where from, so that a passing check is not a silent one. */
static void say_checked(const struct wm_check_options *o, const struct cli *cli)
{
	cli_print(stderr, "wheelmatrix: checked %s and the %zu %s it generates %s%s%s: up to date\n", cli->file,
		o->checked->n, o->checked->n == 1 ? "file" : "files", source_name(o), o->rev ? " " : "",
		o->rev ? o->rev : "");
	for (size_t i = 0; i < o->checked->n; i++)
		cli_print(stderr, "  %s\n", o->checked->items[i]);
}

int cmd_check_prepare(struct cli *cli, unsigned *setup)
{
	int given = !!cli->values[CHECK_STAGED] + !!cli->values[CHECK_REV] + !!cli->values[CHECK_WORKTREE];
	(void)setup;
	if (given > 1) {
		cli_error("--staged, --rev and --worktree choose one source: give one of them");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(cli->file, "-") == 0) {
		cli_error("check reads the matrix file from the repository: give its path, not '-'");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int cmd_check(struct cli *cli, struct cli_ctx *ctx)
{
	struct wm_paths checked = { NULL, 0, 0 };
	struct wm_check_options o = { .source = default_source(), .diff = cli->values[CHECK_DIFF] != NULL,
		.checked = cli->verbosity > 0 ? &checked : NULL, .root = ctx->root, .matrix = ctx->base };
	bool json = cli->values[CHECK_FORMAT] && strcmp(cli->values[CHECK_FORMAT], "json") == 0;
	struct wm_error *findings = &ctx->err;
	char *diff = NULL, *text = NULL;
	size_t difflen = 0;
	int ret, code = CLI_EXIT_OK;

	if (cli->values[CHECK_STAGED])
		o.source = WM_SOURCE_INDEX;
	else if (cli->values[CHECK_REV])
		o.source = WM_SOURCE_REV, o.rev = cli->values[CHECK_REV];
	else if (cli->values[CHECK_WORKTREE])
		o.source = WM_SOURCE_WORKTREE;
	if ((ret = wm_check(findings, &diff, &difflen, ctx->cat, &o)) < 0) {
		cli_print_diags(findings);
		goto out;
	}
	if (json) {
		if ((ret = wm_check_json(&text, findings, diff)) < 0) {
			cli_error("out of memory");
			goto out;
		}
		puts(text);
	} else {
		cli_print_diags(findings);
		if (diff && difflen)
			cli_write_text(diff, difflen);
	}
	if (findings->nerrors)
		code = CLI_EXIT_STATE;
	else if (o.checked)
		say_checked(&o, cli);
out:
	wm_io_paths_free(&checked);
	free(text);
	free(diff);
	return ret < 0 ? cli_exit_code(ret) : code;
}
