/* cmd_generate.c — `wheelmatrix generate`: writes the CI files, refusing to overwrite hand edits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

const struct cli_option cmd_generate_options[GENERATE_NOPTIONS] = {
	[GENERATE_CHECK] = { 0, "check", NULL, NULL, "write nothing; exit 1 if any generated file would change" },
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

int cmd_generate(struct cli *cli)
{
	bool check = cli->values[GENERATE_CHECK], force = cli->values[GENERATE_FORCE];
	struct wm_error err;
	struct wm_catalog *cat = NULL;
	struct wm_matrix *m = NULL;
	struct wm_files files;
	enum wm_file_state *states = NULL;
	char *root = NULL, *applied = NULL;
	const char *base;
	int ret = 0, exit_code = CLI_EXIT_OK;

	if (strcmp(cli->file, "-") == 0) {
		cli_error("generate writes beside the matrix file: give its path, not '-'");
		return CLI_EXIT_USAGE;
	}
	wm_error_init(&err);
	wm_files_init(&files);
	if (!(root = cli_matrix_root(cli->file, &base))) {
		ret = WM_ENOMEM;
		goto fail;
	}
	if ((ret = wm_catalog_load(&cat, &err)) < 0 ||
	    (ret = wm_variant_load(&m, &applied, cat, cli->file, &err)) < 0 ||
	    (ret = wm_generate(&files, m, cat, base, &err)) < 0) {
		cli_print_diags(&err);
		goto out;
	}
	if (err.ndiags && cli->verbosity >= 0)
		cli_print_diags(&err);
	/* a local build's patch does not change what is generated */
	if (applied && cli->verbosity > 0)
		cli_note("%s has the patch of backend '%s' applied: generating from the file without it",
			m->pyproject, applied);
	wm_error_release(&err);
	wm_error_init(&err);
	if (!(states = calloc(files.n + 1, sizeof(*states)))) {
		ret = WM_ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < files.n; i++)
		if ((ret = wm_file_state(&states[i], root, &files.items[i], &err)) < 0) {
			cli_print_diags(&err);
			goto out;
		}
	if (check) {
		for (size_t i = 0; i < files.n; i++)
			if (states[i] != WM_FILE_CURRENT) {
				printf("%s: %s\n", files.items[i].path, state_names[states[i]]);
				exit_code = CLI_EXIT_STATE;
			}
		goto out;
	}
	if (!force && protected(&files, states)) {
		exit_code = CLI_EXIT_STATE;
		goto out;
	}
	for (size_t i = 0; i < files.n; i++) {
		if (states[i] == WM_FILE_CURRENT) {
			if (cli->verbosity > 0)
				printf("unchanged %s\n", files.items[i].path);
			continue;
		}
		if ((ret = wm_file_write(root, &files.items[i], &err)) < 0) {
			cli_print_diags(&err);
			goto out;
		}
		if (cli->verbosity >= 0)
			printf("wrote %s\n", files.items[i].path);
	}
	goto out;
fail:
	cli_error("out of memory");
out:
	free(states);
	free(root);
	free(applied);
	wm_files_release(&files);
	wm_matrix_free(m);
	wm_catalog_free(cat);
	wm_error_release(&err);
	return ret < 0 ? cli_exit_code(ret) : exit_code;
}
