/* cmd_init.c — `wheelmatrix init`: a starting wheelmatrix.yaml from the project, its CI and its newest release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"

static const char *const formats[] = { "text", "json", NULL };

const struct cli_option cmd_init_options[INIT_NOPTIONS] = {
	[INIT_FORCE] = { 0, "force", NULL, NULL, "replace an existing matrix file" },
	[INIT_PYPROJECT] = { 0, "pyproject", "FILE", NULL, "the project's pyproject.toml (default: pyproject.toml, else the one "
		"maturin builds that the workflows, the uv workspace or the tracked files point at)" },
	[INIT_INDEX] = { 0, "index", "URL", NULL, "PEP 691 or 503 simple index the release is read from (default: PyPI); "
		"credentials, ?query never shown" },
	[INIT_OFFLINE] = { 0, "offline", NULL, NULL, "ask no index: judge the matrix by the workflows alone" },
	[INIT_FORMAT] = { 0, "format", "FORMAT", formats, "the summary as text (default) or json" },
	[INIT_CACERT] = { 0, "cacert", "FILE", NULL, "CA certificates for https (default: $SSL_CERT_FILE, else the system's)" },
	[INIT_TIMEOUT] = { 0, "timeout", "SECONDS", NULL, "time allowed for the index's answer (default: 30)" },
	[INIT_RETRIES] = { 0, "retries", "N", NULL, "retries on 429, 5xx and dropped connections, 0 to 10 (default: 3)" },
};

/* The takeover's options from the command line and the environment; false, said, when they conflict. */
static bool options(struct cli *cli, struct wm_takeover_options *o)
{
	unsigned jobs;
	wm_takeover_options_init(o);
	o->index = cli->values[INIT_INDEX];
	o->offline = cli->values[INIT_OFFLINE] != NULL;
	o->cacert = cli->values[INIT_CACERT] ? cli->values[INIT_CACERT] : cli_env("SSL_CERT_FILE");
	o->netrc = cli_env("NETRC");
	o->username = cli_env("WHEELMATRIX_INDEX_USERNAME");
	o->password = cli_env("WHEELMATRIX_INDEX_PASSWORD");
	if (o->offline && (o->index || cli->values[INIT_CACERT])) {
		cli_error("'--offline' queries no index: '--%s' cannot be used with it", o->index ? "index" : "cacert");
		return false;
	}
	return cli_net_options(NULL, cli->values[INIT_TIMEOUT], cli->values[INIT_RETRIES], &jobs, &o->timeout_ms,
		&o->connect_timeout_ms, &o->retries);
}

/* The project init reads: --pyproject, else the one the repository points at, else the root's. */
static int project(struct cli *cli, const struct wm_reader *reader, char **found, const char **pyproject,
	struct wm_error *err)
{
	int ret;
	*pyproject = cli->values[INIT_PYPROJECT] ? cli->values[INIT_PYPROJECT] : "pyproject.toml";
	if (cli->values[INIT_PYPROJECT])
		return 0;
	if ((ret = wm_repo_tracked_init_project(found, reader, ".", err)) < 0)
		return ret;
	if (*found)
		*pyproject = *found;
	return 0;
}

/*
 * The workflows that upload what the matrix `f` uploads to PyPI with trusted publishing: the
 * trusted publishers must name the generated CI's file (notes in `err`).  A matrix that does not
 * load here adds nothing: init's own notes have said what it found.
 */
static int publisher_moves(struct cli *cli, const struct wm_reader *reader, const struct wm_file *f,
	struct wm_error *err)
{
	struct wm_catalog *cat = NULL;
	struct wm_matrix *m = NULL;
	struct wm_error quiet;
	int ret;
	wm_error_init(&quiet);
	if ((ret = cli_catalog_load(&cat, &quiet)) == 0 &&
			(ret = wm_matrix_load_project(&m, cat, cli->file, f->data, f->len, reader, &quiet)) == 0)
		ret = wm_init_ci_publisher_moves(m, reader, err);
	else
		ret = quiet.code == WM_ENOMEM ? WM_ENOMEM : 0;
	wm_matrix_free(m);
	wm_catalog_free(cat);
	wm_error_release(&quiet);
	return ret;
}

int cmd_init(struct cli *cli, struct cli_ctx *ctx)
{
	struct wm_takeover_options o;
	struct wm_error err;
	struct wm_reader reader;
	struct wm_file f = { NULL, NULL, 0 };
	struct wm_init *in = NULL;
	char *found = NULL, *report = NULL;
	const char *pyproject;
	size_t len;
	bool json = cli->values[INIT_FORMAT] && !strcmp(cli->values[INIT_FORMAT], "json");
	struct stat st;
	int ret = 0;

	(void)ctx;  /* init reads no matrix: it writes one */
	cli_show_asides(true);  /* the notes of what is not checked, once, when the matrix is made */
	if (strcmp(cli->file, "-") == 0 || strchr(cli->file, '/')) {
		cli_error("init writes the matrix file at the repository root: give a file name, not '%s' (use -C DIR)",
			cli->file);
		return CLI_EXIT_USAGE;
	}
	if (!options(cli, &o))
		return CLI_EXIT_USAGE;
	if (!cli->values[INIT_FORCE] && lstat(cli->file, &st) == 0) {
		cli_error("'%s' exists: not overwriting it (use --force)", cli->file);
		return CLI_EXIT_STATE;
	}
	wm_error_init(&err);
	wm_io_tree_reader(&reader, ".");
	/* the project, its CI, its release; the matrix written, loaded and judged; only then the file */
	if ((ret = project(cli, &reader, &found, &pyproject, &err)) < 0 ||
			(ret = wm_init_read(&in, &reader, pyproject, &err)) < 0 ||
			(ret = wm_takeover_fetch(in, &o, &err)) < 0 ||
			(ret = wm_takeover_judge(in, &err)) < 0 ||
			(ret = wm_init_render(&f.data, &f.len, in, &err)) < 0 ||
			(ret = wm_takeover_report(&report, &len, in, json)) < 0) {
		cli_print_diags(&err);
		goto out;
	}
	f.path = (char *)cli->file;
	if ((ret = wm_file_write(".", &f, &err)) < 0) {
		cli_print_diags(&err);
		goto out;
	}
	/* what init found in the repository's CI, and what to do about it before the first generate */
	wm_init_notes(in, &err);
	if ((ret = publisher_moves(cli, &reader, &f, &err)) < 0) {
		cli_print_diags(&err);
		goto out;
	}
	cli_print_diags(&err);
	if (json) {
		fwrite(report, 1, len, stdout);
	} else if (cli->verbosity >= 0) {
		cli_print(stdout, "wrote %s\n", cli->file);
		/* the summary quotes the index's file names: each line shown */
		for (const char *p = report; p && *p;) {
			const char *nl = strchr(p, '\n');
			int n = (int)(nl ? (size_t)(nl - p) : strlen(p));
			cli_print(stdout, "%.*s\n", n, p);
			p += n + (nl != NULL);
		}
	}
out:
	free(f.data);
	free(found);
	free(report);
	wm_init_free(in);
	wm_error_release(&err);
	return ret < 0 ? cli_exit_code(ret) : CLI_EXIT_OK;
}
