/* cmd_pin.c — `wheelmatrix pin`: each action of the generated workflow pinned to the commit its tag names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

const struct cli_option cmd_pin_options[PIN_NOPTIONS] = {
	[PIN_GITHUB] = { 0, "github", "URL", NULL, "the forge the actions' repositories are on (default: https://github.com)" },
	[PIN_UPDATE] = { 0, "update", NULL, NULL, "move each pin to the newest tag of its major version" },
	[PIN_MAJOR] = { 0, "major", NULL, NULL, "move each pin to the newest tag, whatever its major version" },
	[PIN_CHECK] = { 0, "check", NULL, NULL, "write nothing; exit 1 when a pin would change (one not its tag's commit, or missing)" },
	[PIN_CACERT] = { 0, "cacert", "FILE", NULL, "CA certificates for https (default: $SSL_CERT_FILE, else the system's)" },
	[PIN_JOBS] = { 0, "jobs", "N", NULL, "requests at once, 1 to 64 (default: 8)" },
	[PIN_TIMEOUT] = { 0, "timeout", "SECONDS", NULL, "time allowed for each request (default: 30)" },
	[PIN_RETRIES] = { 0, "retries", "N", NULL, "retries on 429, 5xx and dropped connections, 0 to 10 (default: 3)" },
};

static bool parse_options(const struct cli *cli, struct wm_pin_options *o)
{
	const char *const *v = cli->values;
	if (v[PIN_UPDATE] && v[PIN_MAJOR]) {
		cli_error("--update and --major move pins two ways: give one");
		return false;
	}
	o->move = v[PIN_MAJOR] ? WM_PIN_MAJOR : v[PIN_UPDATE] ? WM_PIN_UPDATE : WM_PIN_KEEP;
	o->forge = v[PIN_GITHUB];
	if (!cli_net_options(v[PIN_JOBS], v[PIN_TIMEOUT], v[PIN_RETRIES], &o->jobs, &o->timeout_ms,
			&o->connect_timeout_ms, &o->retries))
		return false;
	return true;
}

/* One line per action: what it is now, and what it becomes (or why the forge could not say). */
static void report(const struct wm_pin *p, bool check)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct wm_pin_action *a = &p->actions[i];
		char now[128];
		if (a->pinned)
			snprintf(now, sizeof(now), "%.12s # %s", a->ref, a->tag ? a->tag : "?");
		else
			snprintf(now, sizeof(now), "%s", a->ref);
		if (a->error)
			cli_print(stdout, "%-32s %s: unknown\n", a->action, now);
		else if (!a->changes)
			cli_print(stdout, "%-32s %s: pinned\n", a->action, now);
		else
			cli_print(stdout, "%-32s %s -> %s # %s%s\n", a->action, now, a->new_sha, a->new_tag,
				check ? " (would change)" : "");
	}
}

int cmd_pin_prepare(struct cli *cli, unsigned *setup)
{
	struct wm_pin_options o;
	(void)setup;
	wm_pin_options_init(&o);
	if (!parse_options(cli, &o))
		return CLI_EXIT_USAGE;
	if (!cli->values[PIN_CHECK] && strcmp(cli->file, "-") == 0) {
		cli_error("pin writes the matrix file: give its path, not standard input (or use --check)");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/*
 * The lock (CLI_LOCK, unless --check) is held from before the file is read until it is
 * written: another run waits for none of it.
 */
int cmd_pin(struct cli *cli, struct cli_ctx *ctx)
{
	struct wm_pin_options o;
	struct wm_error *err = &ctx->err;
	struct wm_pin *p = NULL;
	char *text = NULL;
	size_t len = 0, failed = 0, changes = 0;
	bool check = cli->values[PIN_CHECK] != NULL;
	int ret = 0, exit_code = CLI_EXIT_OK;

	wm_pin_options_init(&o);
	o.cacert = cli->values[PIN_CACERT] ? cli->values[PIN_CACERT] : cli_env("SSL_CERT_FILE");
	o.netrc = cli_env("NETRC");
	if (!parse_options(cli, &o))
		return CLI_EXIT_USAGE;
	if ((ret = wm_pin_new(&p, ctx->m, ctx->cat, err)) < 0 ||
	    (ret = wm_pin_resolve(p, &o, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if (err->ndiags && cli->verbosity >= 0)
		cli_print_diags(err);
	if (p->n == 0) {
		cli_note("the matrix generates no GitHub workflow: no action to pin");
		goto out;
	}
	report(p, check);
	for (size_t i = 0; i < p->n; i++) {
		if (p->actions[i].error) {
			cli_error("%s: %s", p->actions[i].action, p->actions[i].error);
			failed++;
		}
		changes += p->actions[i].changes;
	}
	if (failed) {
		cli_error("%zu of %zu actions could not be resolved: nothing written", failed, p->n);
		exit_code = CLI_EXIT_ENV;
		goto out;
	}
	if (check) {
		exit_code = changes ? CLI_EXIT_STATE : CLI_EXIT_OK;
		goto out;
	}
	if (!changes)
		goto out;
	if ((ret = wm_pin_edit(&text, &len, p, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if ((ret = wm_pin_write(p, ctx->lock, text, len, err)) < 0) {
		cli_print_diags(err);
		goto out;
	}
	if (cli->verbosity >= 0)
		cli_print(stderr, "wrote %s: %zu pin%s\n", cli->file, changes, changes == 1 ? "" : "s");
out:
	free(text);
	wm_pin_free(p);
	return ret < 0 ? cli_exit_code(ret) : exit_code;
}
