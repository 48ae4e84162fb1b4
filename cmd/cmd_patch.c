/* cmd_patch.c — `wheelmatrix patch`: applies or reverts one variant's pyproject patch, for a local build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

const struct cli_option cmd_patch_options[PATCH_NOPTIONS] = {
	[PATCH_REVERT] = { 0, "revert", NULL, NULL, "undo the patch instead of applying it" },
	[PATCH_DRY_RUN] = { 'n', "dry-run", NULL, NULL, "say what would change, change nothing" },
};

static void report(enum wm_variant_done done, bool revert, bool dry_run, const char *backend,
	const struct wm_matrix *m)
{
	const char *py = m->pyproject;
	switch (done) {
	case WM_VARIANT_DONE:
		if (revert)
			cli_print(stdout, "%s " WM_PATCH_PATH " from %s\n", dry_run ? "would revert" : "reverted",
				backend, py);
		else
			cli_print(stdout, "%s " WM_PATCH_PATH " to %s\n", dry_run ? "would apply" : "applied", backend, py);
		break;
	case WM_VARIANT_ALREADY:
		if (revert)
			cli_print(stdout, "%s does not have " WM_PATCH_PATH " applied: nothing to revert\n", py, backend);
		else
			cli_print(stdout, "%s already has " WM_PATCH_PATH " applied\n", py, backend);
		break;
	case WM_VARIANT_UNPATCHED:
		cli_print(stdout, "backend '%s' builds %s as it is: it has no patch\n", backend, py);
		break;
	}
}

int cmd_patch_prepare(struct cli *cli, unsigned *setup)
{
	(void)setup;
	if (strcmp(cli->file, "-") == 0) {
		cli_error("patch works beside the matrix file: give its path, not '-'");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int cmd_patch(struct cli *cli, struct cli_ctx *ctx)
{
	bool revert = cli->values[PATCH_REVERT], dry_run = cli->values[PATCH_DRY_RUN];
	const char *backend = cli->args[0];
	enum wm_variant_done done;
	int ret;

	if ((ret = wm_variant_patch(&done, ctx->m, ctx->root, backend,
			(revert ? WM_VARIANT_REVERT : 0) | (dry_run ? WM_VARIANT_DRY_RUN : 0), &ctx->err)) < 0) {
		cli_print_diags(&ctx->err);
		return cli_exit_code(ret);
	}
	if (ctx->err.ndiags && cli->verbosity >= 0)
		cli_print_diags(&ctx->err);
	if (cli->verbosity >= 0 || dry_run)
		report(done, revert, dry_run, backend, ctx->m);
	return CLI_EXIT_OK;
}
