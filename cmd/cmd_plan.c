/* cmd_plan.c — `wheelmatrix plan`: the artifacts of a release, checked against a package index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

static const char *const formats[] = { "table", "json", "markdown", "html", NULL };

const struct cli_option cmd_plan_options[PLAN_NOPTIONS] = {
	[PLAN_INDEX] = { 0, "index", "URL", NULL, "PEP 691 or 503 simple index (default: PyPI); credentials, ?query never shown" },
	[PLAN_OFFLINE] = { 0, "offline", NULL, NULL, "list the artifacts without querying the index" },
	[PLAN_FIRST_RELEASE] = { 0, "first-release", NULL, NULL, "a first release: every project may be new (otherwise: exit 3)" },
	[PLAN_FORMAT] = { 0, "format", "FORMAT", formats, "table (default), json, markdown or html" },
	[PLAN_CACERT] = { 0, "cacert", "FILE", NULL, "CA certificates for https (default: $SSL_CERT_FILE, else the system's)" },
	[PLAN_JOBS] = { 0, "jobs", "N", NULL, "requests at once, 1 to 64 (default: 8)" },
	[PLAN_TIMEOUT] = { 0, "timeout", "SECONDS", NULL, "time allowed for each request (default: 30)" },
	[PLAN_RETRIES] = { 0, "retries", "N", NULL, "retries on 429, 5xx and dropped connections, 0 to 10 (default: 3)" },
};

/* The progress line, on a terminal only: it is rewritten in place. */
static void progress(void *ctx, size_t done, size_t total)
{
	(void)ctx;
	fprintf(stderr, "\rwheelmatrix: querying the index: %zu of %zu", done, total);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static enum wm_plan_format parse_format(const char *value)
{
	static const enum wm_plan_format of[] = { WM_PLAN_TABLE, WM_PLAN_JSON, WM_PLAN_MARKDOWN, WM_PLAN_HTML };
	for (size_t i = 0; value && formats[i]; i++)
		if (strcmp(formats[i], value) == 0)
			return of[i];
	return WM_PLAN_TABLE;
}

/* The options of the command line (false, said, when they do not go together). */
static bool options(const struct cli *cli, struct wm_plan_options *o)
{
	wm_plan_options_init(o);
	o->version = cli->nargs ? cli->args[0] : NULL;
	o->index = cli->values[PLAN_INDEX];
	o->offline = cli->values[PLAN_OFFLINE] != NULL;
	o->first_release = cli->values[PLAN_FIRST_RELEASE] != NULL;
	o->cacert = cli->values[PLAN_CACERT] ? cli->values[PLAN_CACERT] : cli_env("SSL_CERT_FILE");
	o->netrc = cli_env("NETRC");
	o->username = cli_env("WHEELMATRIX_INDEX_USERNAME");
	o->password = cli_env("WHEELMATRIX_INDEX_PASSWORD");
	if (!cli_net_options(cli->values[PLAN_JOBS], cli->values[PLAN_TIMEOUT], cli->values[PLAN_RETRIES],
			&o->jobs, &o->timeout_ms, &o->connect_timeout_ms, &o->retries))
		return false;
	if (o->offline && (o->index || cli->values[PLAN_CACERT])) {
		cli_error("'--offline' queries no index: '--%s' cannot be used with it", o->index ? "index" : "cacert");
		return false;
	}
	if (cli->verbosity >= 0 && isatty(STDERR_FILENO))
		o->progress = progress;
	return true;
}

int cmd_plan_prepare(struct cli *cli, unsigned *setup)
{
	struct wm_plan_options o;
	(void)setup;
	return options(cli, &o) ? 0 : CLI_EXIT_USAGE;
}

int cmd_plan(struct cli *cli, struct cli_ctx *ctx)
{
	struct wm_plan_options o;
	struct wm_error *err = &ctx->err;
	const struct wm_matrix *m = ctx->m;
	struct wm_plan *plan = NULL;
	char *text = NULL;
	size_t len;
	int ret, exit_code = CLI_EXIT_OK;

	if (!options(cli, &o))
		return CLI_EXIT_USAGE;
	if ((ret = wm_plan_new(&plan, m, &o, err)) < 0 ||
	    (ret = wm_plan_query(plan, &o, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if (err->ndiags && cli->verbosity >= 0)
		cli_print_diags(err);
	/* a local build's patch does not change the jobs */
	if (ctx->applied && cli->verbosity > 0)
		cli_note("%s has the patch of backend '%s' applied: reading the file without it", m->pyproject,
			ctx->applied);
	if ((ret = wm_report_render(&text, &len, plan, parse_format(cli->values[PLAN_FORMAT]))) < 0) {
		cli_error("out of memory");
		goto out;
	}
	fwrite(text, 1, len, stdout);
	switch (wm_plan_verdict(plan)) {
	case WM_PLAN_OK:
		break;
	case WM_PLAN_FAIL:
	case WM_PLAN_PARTIAL:  /* the publish jobs upload every file: the ones the index has are refused */
	case WM_PLAN_DROPPED:  /* wheels the last release had, lost without the matrix saying so */
		exit_code = CLI_EXIT_STATE;
		break;
	case WM_PLAN_INCOMPLETE:
	case WM_PLAN_NOT_FOUND:
		exit_code = CLI_EXIT_ENV;
		break;
	}
out:
	free(text);
	wm_plan_free(plan);
	return ret < 0 ? cli_exit_code(ret) : exit_code;
}
