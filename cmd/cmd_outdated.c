/* cmd_outdated.c — `wheelmatrix outdated`: what the generated CI pins, against the newest releases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

static const char *const formats[] = { "table", "json", NULL };

const struct cli_option cmd_outdated_options[OUTDATED_NOPTIONS] = {
	[OUTDATED_FORMAT] = { 0, "format", "FORMAT", formats, "table (default) or json" },
	[OUTDATED_INDEX] = { 0, "index", "URL", NULL, "the PEP 691 index the tools and Pyodide (pyodide-py) come from (default: PyPI); credentials, ?query never shown" },
	[OUTDATED_GITHUB] = { 0, "github", "URL", NULL, "the forge the actions' repositories are on (default: https://github.com)" },
	[OUTDATED_CRATES] = { 0, "crates", "URL", NULL, "crates.io's sparse index, for PyO3 (default: https://index.crates.io/)" },
	[OUTDATED_PYTHON_RELEASES] = { 0, "python-releases", "URL", NULL, "CPython's release cycle JSON (default: https://peps.python.org/api/release-cycle.json)" },
	[OUTDATED_CATALOG] = { 0, "catalog", NULL, NULL, "check wheelmatrix's own catalogue instead of a matrix's pins" },
	[OUTDATED_STRICT] = { 0, "strict", NULL, NULL, "what could not be checked fails like what is outdated (exit 1)" },
	[OUTDATED_CACERT] = { 0, "cacert", "FILE", NULL, "CA certificates for https (default: $SSL_CERT_FILE, else the system's)" },
	[OUTDATED_JOBS] = { 0, "jobs", "N", NULL, "requests at once, 1 to 64 (default: 8)" },
	[OUTDATED_TIMEOUT] = { 0, "timeout", "SECONDS", NULL, "time allowed for each request (default: 30)" },
	[OUTDATED_RETRIES] = { 0, "retries", "N", NULL, "retries on 429, 5xx and dropped connections, 0 to 10 (default: 3)" },
};

/* The options of the command line (false, said, for a value out of range). */
static bool options(const struct cli *cli, struct wm_outdated_options *o)
{
	wm_outdated_options_init(o);
	o->index = cli->values[OUTDATED_INDEX];
	o->forge = cli->values[OUTDATED_GITHUB];
	o->crates = cli->values[OUTDATED_CRATES];
	o->python = cli->values[OUTDATED_PYTHON_RELEASES];
	o->cacert = cli->values[OUTDATED_CACERT] ? cli->values[OUTDATED_CACERT] : cli_env("SSL_CERT_FILE");
	o->netrc = cli_env("NETRC");
	o->username = cli_env("WHEELMATRIX_INDEX_USERNAME");
	o->password = cli_env("WHEELMATRIX_INDEX_PASSWORD");
	return cli_net_options(cli->values[OUTDATED_JOBS], cli->values[OUTDATED_TIMEOUT],
		cli->values[OUTDATED_RETRIES], &o->jobs, &o->timeout_ms, &o->connect_timeout_ms, &o->retries);
}

int cmd_outdated_prepare(struct cli *cli, unsigned *setup)
{
	struct wm_outdated_options o;
	(void)setup;
	return options(cli, &o) ? 0 : CLI_EXIT_USAGE;
}

int cmd_outdated(struct cli *cli, struct cli_ctx *ctx)
{
	struct wm_outdated_options o;
	struct wm_error *err = &ctx->err;
	struct wm_outdated *out = NULL;
	char *text = NULL;
	const char *format = cli->values[OUTDATED_FORMAT];
	size_t len = 0;
	bool stale = false, unknown = false;
	int ret = 0;

	if (!options(cli, &o))
		return CLI_EXIT_USAGE;
	if ((ret = wm_outdated_new(&out, ctx->m, ctx->cat, err)) < 0 ||
	    (ret = wm_outdated_query(out, &o, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if (err->ndiags && cli->verbosity >= 0)
		cli_print_diags(err);
	if ((ret = wm_outdated_render(&text, &len, out, format && strcmp(format, "json") == 0 ? WM_OUTDATED_JSON :
			WM_OUTDATED_TABLE)) < 0) {
		cli_error("out of memory");
		goto out;
	}
	fwrite(text, 1, len, stdout);
	for (size_t i = 0; i < out->n; i++) {
		stale |= out->items[i].state != WM_OUTDATED_CURRENT && out->items[i].state != WM_OUTDATED_UNKNOWN &&
			out->items[i].state != WM_OUTDATED_SELF_HOSTED;
		unknown |= out->items[i].state == WM_OUTDATED_UNKNOWN;
	}
out:
	free(text);
	wm_outdated_free(out);
	if (ret < 0)
		return cli_exit_code(ret);
	return stale || (unknown && cli->values[OUTDATED_STRICT]) ? CLI_EXIT_STATE : unknown ? CLI_EXIT_ENV : CLI_EXIT_OK;
}
