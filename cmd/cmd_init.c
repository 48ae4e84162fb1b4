/* cmd_init.c — `wheelmatrix init`: a starting wheelmatrix.yaml from pyproject.toml and Cargo.toml. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"

const struct cli_option cmd_init_options[INIT_NOPTIONS] = {
	[INIT_FORCE] = { 0, "force", NULL, NULL, "replace an existing matrix file" },
	[INIT_PYPROJECT] = { 0, "pyproject", "FILE", NULL, "the project's pyproject.toml (default: pyproject.toml, else the one "
		"maturin builds that the workflows, the uv workspace or the tracked files point at)" },
};

int cmd_init(struct cli *cli)
{
	const char *pyproject = cli->values[INIT_PYPROJECT] ? cli->values[INIT_PYPROJECT] : "pyproject.toml";
	struct wm_error err;
	struct wm_reader reader;
	struct wm_file f = { NULL, NULL, 0 };
	char *found = NULL;
	struct stat st;
	int ret = 0, code = CLI_EXIT_OK;

	if (strcmp(cli->file, "-") == 0 || strchr(cli->file, '/')) {
		cli_error("init writes the matrix file at the repository root: give a file name, not '%s' (use -C DIR)",
			cli->file);
		return CLI_EXIT_USAGE;
	}
	if (!cli->values[INIT_FORCE] && lstat(cli->file, &st) == 0) {
		cli_error("'%s' exists: not overwriting it (use --force)", cli->file);
		return CLI_EXIT_STATE;
	}
	wm_error_init(&err);
	wm_io_tree_reader(&reader, ".");
	if (!cli->values[INIT_PYPROJECT]) {
		if ((ret = wm_repo_tracked_init_project(&found, &reader, ".", &err)) < 0) {
			cli_print_diags(&err);
			goto out;
		}
		if (found)
			pyproject = found;
	}
	if ((ret = wm_init_matrix(&f.data, &f.len, &reader, pyproject, &err)) < 0) {
		cli_print_diags(&err);
		goto out;
	}
	f.path = (char *)cli->file;
	if ((ret = wm_file_write(".", &f, &err)) < 0) {
		cli_print_diags(&err);
		goto out;
	}
	if (cli->verbosity >= 0)
		cli_print(stdout, "wrote %s\n", cli->file);
	/* what init found in the repository's CI, and what to do about it before the first generate */
	fflush(stdout);
	cli_print_diags(&err);
out:
	free(f.data);
	free(found);
	wm_error_release(&err);
	return ret < 0 ? cli_exit_code(ret) : code;
}
