/* cmd_hook.c — `wheelmatrix hook install`: the repository's pre-commit and pre-merge-commit hooks run `check --staged`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

const struct cli_option cmd_hook_options[HOOK_NOPTIONS] = {
	[HOOK_FORCE] = { 0, "force", NULL, NULL, "replace a pre-commit or pre-merge-commit hook that wheelmatrix did not write" },
};

int cmd_hook_prepare(struct cli *cli, unsigned *setup)
{
	(void)setup;
	if (strcmp(cli->args[0], "install") != 0) {
		cli_error("unknown hook action '%s': the one action is 'install'", cli->args[0]);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(cli->file, "-") == 0) {
		cli_error("the hook checks the matrix file in the repository: give its path, not '-'");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int cmd_hook(struct cli *cli, struct cli_ctx *ctx)
{
	char *paths[WM_HOOKS];
	bool unchanged[WM_HOOKS];
	int ret;

	if ((ret = wm_repo_hook_install(paths, unchanged, ctx->root, ctx->base, cli->values[HOOK_FORCE] != NULL,
			&ctx->err)) < 0)
		cli_print_diags(&ctx->err);
	for (size_t i = 0; ret == 0 && i < WM_HOOKS; i++) {
		if (cli->verbosity >= 0)
			cli_print(stdout, "%s %s\n", unchanged[i] ? "unchanged" : "wrote", paths[i]);
		free(paths[i]);
	}
	return ret < 0 ? cli_exit_code(ret) : CLI_EXIT_OK;
}
