/* cmd_generate.c — `wheelmatrix generate`: writes the CI files, refusing to overwrite hand edits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

const struct cli_option cmd_generate_options[GENERATE_NOPTIONS] = {
	[GENERATE_CHECK] = { 0, "check", NULL, NULL, "write nothing; exit 1 if any generated file would change" },
	[GENERATE_DRY_RUN] = { 'n', "dry-run", NULL, NULL, "say what would be written, write nothing" },
	[GENERATE_DIFF] = { 0, "diff", NULL, NULL,
		"with --check or --dry-run: print the diff from each file as it is to what would be written" },
	[GENERATE_STDOUT] = { 0, "stdout", "OUTPUT", NULL,
		"print one generated file (github, gitlab, patch:BACKEND or action:NAME) and write nothing" },
	[GENERATE_FORCE] = { 0, "force", NULL, NULL,
		"overwrite generated files that were edited by hand or not written by wheelmatrix" },
};

static const char *const state_names[] = {
	[WM_FILE_MISSING] = "missing",
	[WM_FILE_CURRENT] = "up to date",
	[WM_FILE_STALE] = "out of date",
	[WM_FILE_EDITED] = "edited by hand",
	[WM_FILE_FOREIGN] = "not written by wheelmatrix",
};

/* What generate does to a file in each state, as --dry-run says it. */
static const char *const dry_run_verbs[] = {
	[WM_FILE_MISSING] = "would write",
	[WM_FILE_CURRENT] = "unchanged",
	[WM_FILE_STALE] = "would update",
	[WM_FILE_EDITED] = "would overwrite",
	[WM_FILE_FOREIGN] = "would overwrite",
};

/* Refuses, before anything is written, to replace a file someone else wrote or edited. */
static bool protected(const struct wm_files *files, const enum wm_file_state *states)
{
	bool any = false;
	for (size_t i = 0; i < files->n; i++) {
		if (states[i] == WM_FILE_EDITED)
			cli_error("'%s' was edited by hand since it was generated: not overwriting it "
				"(move the change into the matrix file, or use --force)", files->items[i].path);
		else if (states[i] == WM_FILE_FOREIGN)
			cli_error("'%s' was not written by wheelmatrix: not overwriting it (use --force)",
				files->items[i].path);
		else
			continue;
		any = true;
	}
	return any;
}

/* The options that go together, before anything is read. */
static int check_options(const struct cli *cli)
{
	const char *const *v = cli->values;
	if (v[GENERATE_STDOUT] && (v[GENERATE_CHECK] || v[GENERATE_DRY_RUN] || v[GENERATE_DIFF] || v[GENERATE_FORCE])) {
		cli_error("--stdout prints one file and writes nothing: it goes with none of --check, --dry-run, "
			"--diff and --force");
		return CLI_EXIT_USAGE;
	}
	if (v[GENERATE_CHECK] && v[GENERATE_DRY_RUN]) {
		cli_error("--check and --dry-run both write nothing: give one of them");
		return CLI_EXIT_USAGE;
	}
	if (v[GENERATE_DIFF] && !v[GENERATE_CHECK] && !v[GENERATE_DRY_RUN]) {
		cli_error("--diff shows what would change: give it with --check or --dry-run");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(cli->file, "-") == 0) {
		cli_error("generate writes beside the matrix file: give its path, not '-'");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/*
 * The file --stdout names: `github` and `gitlab` the CI files, `patch:BACKEND`
 * a variant patch, `action:NAME` a local action of the workflow.  NULL, said
 * why, when the matrix writes no such file.
 */
static const struct wm_file *stdout_file(const struct wm_files *files, const struct wm_matrix *m, const char *what)
{
	static const char *const names[] = { "github", "gitlab", "patch:", "action:" };
	const char *backend = strncmp(what, "patch:", 6) == 0 ? what + 6 : NULL, *path = NULL, *hint;
	char patch[128];

	if (strncmp(what, "action:", 7) == 0) {
		for (size_t i = 0; i < files->n; i++) {
			size_t len;
			const char *name = wm_emit_github_local_name(files->items[i].path, &len);
			if (name && len == strlen(what + 7) && strncmp(name, what + 7, len) == 0)
				return &files->items[i];
		}
		cli_error("the workflow uses no local action '%s' ('wheelmatrix completion --outputs' lists those it uses)",
			what + 7);
		return NULL;
	}

	if (strcmp(what, "github") == 0 || strcmp(what, "gitlab") == 0) {
		const struct wm_output *o = what[3] == 'h' ? &m->github : &m->gitlab;
		if (!o->enabled) {
			cli_error("the matrix writes no %s file: %s has no ci.%s", what[3] == 'h' ? "GitHub Actions" : "GitLab CI",
				m->file, what);
			return NULL;
		}
		path = o->path;
	} else if (backend) {
		const char **ids = calloc(m->nbackends + 1, sizeof(*ids));
		bool known = false;
		for (size_t i = 0; ids && i < m->nbackends; i++)
			known |= strcmp(ids[i] = m->backends[i]->id, backend) == 0;
		hint = ids && !known ? wm_text_suggest(backend, ids, m->nbackends) : NULL;
		free(ids);
		if (!known) {
			if (hint)
				cli_error("unknown backend '%s' (did you mean 'patch:%s'?)", backend, hint);
			else
				cli_error("unknown backend '%s': %s has no such backend", backend, m->file);
			return NULL;
		}
		snprintf(patch, sizeof(patch), WM_PATCH_PATH, backend);
		path = patch;
	} else {
		if ((hint = wm_text_suggest(what, names, 2)) != NULL)
			cli_error("invalid value '%s' for '--stdout' (did you mean '%s'?)", what, hint);
		else
			cli_error("invalid value '%s' for '--stdout': expected github, gitlab, patch:BACKEND or action:NAME", what);
		return NULL;
	}
	for (size_t i = 0; i < files->n; i++)
		if (strcmp(files->items[i].path, path) == 0)
			return &files->items[i];
	cli_error("backend '%s' builds %s as it is: it has no patch", backend, m->pyproject);
	return NULL;
}

/* --check and --dry-run: what would change, and with --diff how; exit 1 when --check finds a change. */
static int report(const struct cli *cli, const struct wm_files *files, const enum wm_file_state *states,
	char **diffs, const size_t *difflens)
{
	bool check = cli->values[GENERATE_CHECK], diff = cli->values[GENERATE_DIFF];
	/* with --diff, stdout holds the diff alone, for git apply */
	FILE *says = diff ? stderr : stdout;
	int exit_code = CLI_EXIT_OK;

	for (size_t i = 0; i < files->n; i++) {
		const char *path = files->items[i].path;
		if (check && states[i] != WM_FILE_CURRENT) {
			cli_print(says, "%s: %s\n", path, state_names[states[i]]);
			exit_code = CLI_EXIT_STATE;
		} else if (!check && (states[i] != WM_FILE_CURRENT ? cli->verbosity >= 0 : cli->verbosity > 0)) {
			if (states[i] == WM_FILE_EDITED || states[i] == WM_FILE_FOREIGN)
				cli_print(says, "%s %s (%s)\n", dry_run_verbs[states[i]], path, state_names[states[i]]);
			else
				cli_print(says, "%s %s\n", dry_run_verbs[states[i]], path);
		}
	}
	for (size_t i = 0; diff && i < files->n; i++)
		if (diffs[i])
			cli_write_text(diffs[i], difflens[i]);
	return exit_code;
}

/* Whether this generate writes the CI for the first time: a CI file was missing. */
static bool first_ci(const struct wm_matrix *m, const struct wm_files *files, const enum wm_file_state *states)
{
	for (size_t i = 0; i < files->n; i++)
		if (states[i] == WM_FILE_MISSING && ((m->github.enabled && !strcmp(files->items[i].path, m->github.path)) ||
				(m->gitlab.enabled && !strcmp(files->items[i].path, m->gitlab.path))))
			return true;
	return false;
}

/*
 * The first CI written: the project's own workflows that upload what it uploads, whose PyPI trusted
 * publishers must name the new file (said once, here and by init, not by every generate).
 */
static int publisher_moves(const struct cli *cli, const struct wm_matrix *m, const char *root)
{
	struct wm_reader reader;
	struct wm_error notes;
	int ret;
	wm_io_tree_reader(&reader, root);
	wm_error_init(&notes);
	ret = wm_init_ci_publisher_moves(m, &reader, &notes);
	if (cli->verbosity >= 0 || ret < 0)
		cli_print_diags(&notes);
	wm_error_release(&notes);
	return ret;
}

int cmd_generate_prepare(struct cli *cli, unsigned *setup)
{
	(void)setup;
	return check_options(cli);
}

int cmd_generate(struct cli *cli, struct cli_ctx *ctx)
{
	bool check = cli->values[GENERATE_CHECK], force = cli->values[GENERATE_FORCE];
	bool dry_run = cli->values[GENERATE_DRY_RUN], diff = cli->values[GENERATE_DIFF];
	struct wm_error *err = &ctx->err;
	const struct wm_matrix *m = ctx->m;
	const char *root = ctx->root;
	struct wm_files files;
	enum wm_file_state *states = NULL;
	char **diffs = NULL;
	size_t *difflens = NULL;
	int ret = 0, exit_code = 0;

	wm_files_init(&files);
	if ((ret = wm_generate(&files, m, ctx->cat, ctx->base, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if (err->ndiags && cli->verbosity >= 0)
		cli_print_diags(err);
	/* a local build's patch does not change what is generated */
	if (ctx->applied && cli->verbosity > 0)
		cli_note("%s has the patch of backend '%s' applied: generating from the file without it",
			m->pyproject, ctx->applied);
	wm_error_release(err);
	wm_error_init(err);
	if (cli->values[GENERATE_STDOUT]) {
		const struct wm_file *f = stdout_file(&files, m, cli->values[GENERATE_STDOUT]);
		if (!f)
			exit_code = CLI_EXIT_USAGE;
		else
			cli_write_text(f->data, f->len);
		goto out;
	}
	if (!(states = calloc(files.n + 1, sizeof(*states))) || !(diffs = calloc(files.n + 1, sizeof(*diffs))) ||
	    !(difflens = calloc(files.n + 1, sizeof(*difflens)))) {
		ret = WM_ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < files.n; i++)
		if ((ret = wm_file_state_diff(&states[i], diff ? &diffs[i] : NULL, &difflens[i], root, &files.items[i],
				err)) < 0) {
			cli_print_diags(err);
			goto out;
		}
	if (check) {
		exit_code = report(cli, &files, states, diffs, difflens);
		goto out;
	}
	if (!force && protected(&files, states)) {
		exit_code = CLI_EXIT_STATE;
		goto out;
	}
	if (dry_run) {
		exit_code = report(cli, &files, states, diffs, difflens);
		goto out;
	}
	for (size_t i = 0; i < files.n; i++) {
		if (states[i] == WM_FILE_CURRENT) {
			if (cli->verbosity > 0)
				cli_print(stdout, "unchanged %s\n", files.items[i].path);
			continue;
		}
		if ((ret = wm_file_write(root, &files.items[i], err)) < 0) {
			cli_print_diags(err);
			goto out;
		}
		if (cli->verbosity >= 0)
			cli_print(stdout, "wrote %s\n", files.items[i].path);
	}
	if (first_ci(m, &files, states) && (ret = publisher_moves(cli, m, root)) < 0)
		goto out;
	goto out;
fail:
	cli_error("out of memory");
out:
	for (size_t i = 0; diffs && i < files.n; i++)
		free(diffs[i]);
	free(diffs);
	free(difflens);
	free(states);
	wm_files_release(&files);
	return ret < 0 ? cli_exit_code(ret) : exit_code;
}
