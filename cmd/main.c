/* main.c — the wheelmatrix tool: the command table, the global options, parsing and help. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define HELP_WIDTH 20  /* the option spelling column of --help */

static const char *const color_choices[] = { "auto", "always", "never", NULL };

enum { G_DIR, G_FILE, G_COLOR, G_QUIET, G_VERBOSE, G_VERSION, G_HELP };

static const struct cli_option global_options[] = {
	[G_DIR] = { 'C', NULL, "DIR", NULL, "run as if started in DIR" },
	[G_FILE] = { 'f', "file", "FILE", NULL, "matrix file (default: wheelmatrix.yaml, - for stdin)" },
	[G_COLOR] = { 0, "color", "WHEN", color_choices,
		"colour diagnostics: auto (default; not when NO_COLOR is set), always or never" },
	[G_QUIET] = { 'q', "quiet", NULL, NULL, "print no warnings" },
	[G_VERBOSE] = { 'v', "verbose", NULL, NULL, "say more on stderr" },
	[G_VERSION] = { 0, "version", NULL, NULL, "print the version and exit" },
	[G_HELP] = { 'h', "help", NULL, NULL, "show help and exit" },
};

static int cmd_help(struct cli *cli, struct cli_ctx *ctx);

static bool set_today(struct wm_catalog *cat)
{
	const char *env = getenv("WHEELMATRIX_TODAY");
	long days;
	if (env && *env) {
		if (!wm_catalog_date(env, &days)) {
			cli_error("WHEELMATRIX_TODAY is '%s', not a date YYYY-MM-DD", env);
			return false;
		}
	} else {
		days = (long)(time(NULL) / 86400);
	}
	wm_catalog_set_today(cat, days);
	return true;
}

/* A whole number in [min, max] for option `name`; false (reported) otherwise. */
static bool number(const char *value, const char *name, long min, long max, long *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(value, &end, 10);
	if (!*value || *end || errno || v < min || v > max) {
		cli_error("invalid value '%s' for '--%s': expected a whole number from %ld to %ld", value, name, min, max);
		return false;
	}
	*out = v;
	return true;
}

bool cli_net_options(const char *jobs, const char *timeout, const char *retries, unsigned *o_jobs,
	long *timeout_ms, long *connect_timeout_ms, unsigned *o_retries)
{
	long v;
	if (jobs) {
		if (!number(jobs, "jobs", 1, 64, &v))
			return false;
		*o_jobs = (unsigned)v;
	}
	if (timeout) {
		if (!number(timeout, "timeout", 1, 3600, &v))
			return false;
		*timeout_ms = v * 1000;
		if (*connect_timeout_ms > *timeout_ms)
			*connect_timeout_ms = *timeout_ms;
	}
	if (retries) {
		if (!number(retries, "retries", 0, 10, &v))
			return false;
		*o_retries = (unsigned)v;
	}
	return true;
}

const char *cli_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

int cli_catalog_load(struct wm_catalog **cat, struct wm_error *err)
{
	int ret = wm_catalog_load(cat, err);
	if (ret < 0) {
		cli_print_diags(err);
		return ret;
	}
	return set_today(*cat) ? 0 : WM_EINVALID;
}

/* The setup of `flags` (cmd.h) for the command: 0, or the exit code of the step that failed (said). */
static int setup(const struct cli *cli, struct cli_ctx *ctx, unsigned flags)
{
	int ret;
	if ((flags & CLI_ROOT) && !(ctx->root = cli_matrix_root(cli->file, &ctx->base))) {
		cli_error("out of memory");
		return CLI_EXIT_ENV;
	}
	if (flags & CLI_CATALOG) {
		ret = flags & CLI_TODAY ? cli_catalog_load(&ctx->cat, &ctx->err) : wm_catalog_load(&ctx->cat, &ctx->err);
		if (ret < 0) {
			if (!(flags & CLI_TODAY))
				cli_print_diags(&ctx->err);
			return cli_exit_code(ret);
		}
	}
	if (((flags & CLI_LOCK) && (ret = wm_pin_lock(&ctx->lock, cli->file, &ctx->err)) < 0) ||
	    ((flags & CLI_MATRIX) && (ret = wm_variant_load(&ctx->m, &ctx->applied, ctx->cat, cli->file,
			&ctx->err)) < 0)) {
		cli_print_diags(&ctx->err);
		return cli_exit_code(ret);
	}
	return 0;
}

static void release(struct cli_ctx *ctx)
{
	wm_pin_unlock(ctx->lock);
	free(ctx->applied);
	wm_matrix_free(ctx->m);
	wm_catalog_free(ctx->cat);
	free(ctx->root);
	wm_error_release(&ctx->err);
}

char *cli_matrix_root(const char *file, const char **base)
{
	const char *slash = strrchr(file, '/');
	*base = slash ? slash + 1 : file;
	return wm_io_path_dir(file);
}

/* `dir` is the top of a git working tree, or the filesystem's root: the search stops there. */
static bool search_ends(const char *dir)
{
	char path[PATH_MAX];
	struct stat here, up;
	snprintf(path, sizeof(path), "%s/.git", dir);
	if (lstat(path, &here) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/..", dir);
	return stat(dir, &here) != 0 || stat(path, &up) != 0 || (here.st_dev == up.st_dev && here.st_ino == up.st_ino);
}

bool cli_find_matrix(struct cli *cli)
{
	/* a relative path, so that messages name it as the user would from here */
	static char path[PATH_MAX];
	const char *name = cli->file;
	size_t len = 0;

	for (;;) {
		struct stat st;
		snprintf(path + len, sizeof(path) - len, "%s", name);
		if (lstat(path, &st) == 0) {
			cli->file = path;
			return true;
		}
		path[len] = '\0';
		if (search_ends(len ? path : ".") || len + strlen(name) + 4 >= sizeof(path))
			return false;
		memcpy(path + len, "../", 4);
		len += 3;
	}
}

#define OPTIONS(o) o, ARRAY_SIZE(o)
#define NO_OPTIONS NULL, 0
#define ENV(e) e, ARRAY_SIZE(e)
#define NO_ENV NULL, 0

/* The environment variables the commands read (cmd_*.c), for their --help (and the manual page's ENVIRONMENT). */
#define TODAY_ENV { "WHEELMATRIX_TODAY", "the day runner labels' retirements are checked against, " \
	"YYYY-MM-DD (default: the clock's UTC day)" }
static const struct cli_env check_env[] = {
	{ "PRE_COMMIT", "when 1 (pre-commit sets it), read the index by default, as --staged" },
	{ "WHEELMATRIX_HOOK", "when 1 (the installed hook sets it), the same" },
	TODAY_ENV,
};
static const struct cli_env list_env[] = { TODAY_ENV };
static const struct cli_env generate_env[] = { TODAY_ENV };
static const struct cli_env build_env[] = {
	{ "MATURIN", "the maturin to run: a path, or a name looked up on PATH (default: maturin)" },
	{ "PATH", "where maturin is looked up" },
};
static const struct cli_env plan_env[] = {
	{ "NETRC", "the netrc file with the index's credentials (default: ~/.netrc)" },
	{ "WHEELMATRIX_INDEX_USERNAME", "the user name for the index" },
	{ "WHEELMATRIX_INDEX_PASSWORD", "its password or token" },
	{ "SSL_CERT_FILE", "CA certificates for https when --cacert is not given" },
};
static const struct cli_env outdated_env[] = {
	{ "NETRC", "the netrc file with the index's and the forge's credentials (default: ~/.netrc)" },
	{ "WHEELMATRIX_INDEX_USERNAME", "the user name for the index" },
	{ "WHEELMATRIX_INDEX_PASSWORD", "its password or token" },
	{ "SSL_CERT_FILE", "CA certificates for https when --cacert is not given" },
	TODAY_ENV,
};
static const struct cli_env pin_env[] = {
	{ "NETRC", "the netrc file with the forge's credentials (default: ~/.netrc)" },
	{ "SSL_CERT_FILE", "CA certificates for https when --cacert is not given" },
	TODAY_ENV,
};

/*
 * What main.c does before each command (cmd.h): the commands that read the matrix find and
 * load it alike.  Where they differ, the flags say so:
 * - CLI_TODAY only for the commands whose output is the CI or its pins (list, generate, check,
 *   outdated, pin): build, patch and plan run no runner, completion must print no warnings;
 * - check needs no matrix file in the working tree (CLI_MAY_LACK) and loads none: it reads the
 *   one of the index or the commit it checks;
 * - outdated --catalog reads no matrix; pin holds the file's lock unless --check;
 * - completion finds and loads the matrix only for --backends and --outputs (its prepare step);
 * - init loads the catalogue itself, after the file is written, only for its notes: a
 *   catalogue that cannot be loaded there stops nothing.
 */
#define MATRIX (CLI_FIND | CLI_CATALOG | CLI_MATRIX)
#define ALWAYS -1, 0
#define UNLESS(option, flags) option, flags

/* Every command of design §2, in the order `help` lists them, each with the example its --help ends with. */
static const struct cli_command commands[] = {
	{ "init", NULL, "Write a starting wheelmatrix.yaml from the repository, judged against its newest release",
		cmd_init_options, INIT_NOPTIONS, 0, 0, cmd_init, "wheelmatrix init --pyproject python/pyproject.toml",
		ENV(plan_env), 0, ALWAYS, NULL },
	{ "list", NULL, "Expand the matrix into concrete jobs", cmd_list_options, LIST_NOPTIONS, 0, 0, cmd_list,
		"wheelmatrix list --why", ENV(list_env), MATRIX | CLI_TODAY, ALWAYS, cmd_list_prepare },
	{ "generate", NULL, "Write the CI files, variant patches and meta package the matrix implies",
		cmd_generate_options, GENERATE_NOPTIONS, 0, 0, cmd_generate, "wheelmatrix generate --dry-run --diff",
		ENV(generate_env), MATRIX | CLI_ROOT | CLI_TODAY, ALWAYS, cmd_generate_prepare },
	{ "check", NULL, "Check the generated files against the git repository",
		cmd_check_options, CHECK_NOPTIONS, 0, 0, cmd_check, "wheelmatrix check --rev HEAD", ENV(check_env),
		CLI_FIND | CLI_MAY_LACK | CLI_ROOT | CLI_CATALOG | CLI_TODAY, ALWAYS, cmd_check_prepare },
	{ "patch", "BACKEND", "Apply a variant's patch to the working tree for a local build",
		cmd_patch_options, PATCH_NOPTIONS, 1, 1, cmd_patch, "wheelmatrix patch cuda && maturin build --release",
		NO_ENV, MATRIX | CLI_ROOT, ALWAYS, cmd_patch_prepare },
	{ "build", "BACKEND [-- MATURIN-ARGS]", "Build one variant's wheel with maturin, its patch applied for the build",
		NO_OPTIONS, 1, SIZE_MAX, cmd_build, "wheelmatrix build cuda -- --release --out dist",
		ENV(build_env), MATRIX | CLI_ROOT, ALWAYS, cmd_build_prepare },
	{ "plan", "[VERSION]", "Plan a release against a package index", cmd_plan_options, PLAN_NOPTIONS, 0, 1,
		cmd_plan, "wheelmatrix plan 0.3.0 --format markdown >> \"$GITHUB_STEP_SUMMARY\"", ENV(plan_env),
		MATRIX, ALWAYS, cmd_plan_prepare },
	{ "outdated", NULL, "Say which actions, tools, runner labels and toolkits the generated CI pins are outdated",
		cmd_outdated_options, OUTDATED_NOPTIONS, 0, 0, cmd_outdated, "wheelmatrix outdated --format json",
		ENV(outdated_env), MATRIX | CLI_TODAY, UNLESS(OUTDATED_CATALOG, CLI_FIND | CLI_MATRIX),
		cmd_outdated_prepare },
	{ "pin", NULL, "Pin each action of the GitHub workflow to the commit its tag names",
		cmd_pin_options, PIN_NOPTIONS, 0, 0, cmd_pin, "wheelmatrix pin --update", ENV(pin_env),
		MATRIX | CLI_TODAY | CLI_LOCK, UNLESS(PIN_CHECK, CLI_LOCK), cmd_pin_prepare },
	{ "hook", "install", "Install the pre-commit and pre-merge-commit hooks that run 'check --staged'", cmd_hook_options, HOOK_NOPTIONS,
		1, 1, cmd_hook, "wheelmatrix hook install", NO_ENV, CLI_FIND | CLI_ROOT, ALWAYS, cmd_hook_prepare },
	{ "completion", "SHELL", "Print the shell completion script for bash, zsh or fish",
		cmd_completion_options, COMPLETION_NOPTIONS, 0, 1, cmd_completion, "source <(wheelmatrix completion bash)",
		NO_ENV, CLI_CATALOG | CLI_MATRIX, ALWAYS, cmd_completion_prepare },
	{ "help", "[COMMAND]", "Show help for wheelmatrix or for one command", NO_OPTIONS, 0, 1, cmd_help,
		"wheelmatrix help build", NO_ENV, 0, ALWAYS, NULL },
};

const struct cli_command *cli_commands(size_t *n)
{
	*n = ARRAY_SIZE(commands);
	return commands;
}

const struct cli_option *cli_global_options(size_t *n)
{
	*n = ARRAY_SIZE(global_options);
	return global_options;
}

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *names[ARRAY_SIZE(commands)], *hint;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names[i] = commands[i].name;
	hint = wm_text_suggest(name, names, ARRAY_SIZE(names));
	if (hint)
		cli_error("unknown command '%s' (did you mean '%s'?)", name, hint);
	else
		cli_error("unknown command '%s'; 'wheelmatrix help' lists the commands", name);
	return CLI_EXIT_USAGE;
}

/* ---- help ----------------------------------------------------------------- */

/* The environment a command reads, in the options' columns (a longer name on a line of its own). */
static void print_env(FILE *f, const struct cli_env *env, size_t n)
{
	if (n == 0)
		return;
	fputs("\nenvironment:\n", f);
	for (size_t i = 0; i < n; i++) {
		if (strlen(env[i].name) > HELP_WIDTH)
			fprintf(f, "  %s\n  %-*s %s\n", env[i].name, HELP_WIDTH, "", env[i].help);
		else
			fprintf(f, "  %-*s %s\n", HELP_WIDTH, env[i].name, env[i].help);
	}
}

static void print_options(FILE *f, const char *title, const struct cli_option *opts, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "\n%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		char spelling[64];
		int len = 0;
		if (o->short_name)
			len += snprintf(spelling + len, sizeof(spelling) - (size_t)len, "-%c%s",
				o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			len += snprintf(spelling + len, sizeof(spelling) - (size_t)len, "--%s", o->long_name);
		if (o->arg)
			snprintf(spelling + len, sizeof(spelling) - (size_t)len, " %s", o->arg);
		fprintf(f, "  %-*s %s\n", HELP_WIDTH, spelling, o->help);
	}
}

static void print_command_help(FILE *f, const struct cli_command *cmd)
{
	fprintf(f, "usage: wheelmatrix %s [options]%s%s\n", cmd->name, cmd->args ? " " : "",
		cmd->args ? cmd->args : "");
	fprintf(f, "%s\n", cmd->summary);
	print_options(f, "options", cmd->options, cmd->noptions);
	print_env(f, cmd->env, cmd->nenv);
	print_options(f, "global options", global_options, ARRAY_SIZE(global_options));
	fprintf(f, "\nexample: %s\n", cmd->example);
}

static void print_main_help(FILE *f)
{
	size_t width = 0;
	fputs("usage: wheelmatrix [options] COMMAND [ARGS]\n"
		"Expand a declarative build matrix, wheelmatrix.yaml, into CI jobs\n"
		"\ncommands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strlen(commands[i].name) > width)
			width = strlen(commands[i].name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-*s  %s\n", (int)width, commands[i].name, commands[i].summary);
	print_options(f, "global options", global_options, ARRAY_SIZE(global_options));
	fputs("\n'wheelmatrix help COMMAND' shows the options of one command.\n"
		"\nexample: wheelmatrix -C python/demo generate --dry-run\n", f);
}

static int cmd_help(struct cli *cli, struct cli_ctx *ctx)
{
	const struct cli_command *cmd;
	(void)ctx;
	if (cli->nargs == 0) {
		print_main_help(stdout);
		return CLI_EXIT_OK;
	}
	if (!(cmd = find_command(cli->args[0])))
		return unknown_command(cli->args[0]);
	print_command_help(stdout, cmd);
	return CLI_EXIT_OK;
}

/* ---- parsing -------------------------------------------------------------- */

struct parse {
	struct cli *cli;
	bool help, version;
	bool file_given;          /* -f: no search for the matrix file */
	const char **dirs;        /* -C, in order */
	size_t ndirs;
	int late_version;         /* where --version came after a command taking a VERSION, else 0 */
	const char *late_value;   /* its value in `--version=VALUE` */
};

/* The option of `opts` with the long name `name` (`len` bytes), or the short name `*name` when len is 0. */
static const struct cli_option *lookup(const struct cli_option *opts, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];
		if (len ? o->long_name && strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0
			: o->short_name == *name)
			return o;
	}
	return NULL;
}

/* A global option, else one of the command's. */
static const struct cli_option *find_option(const struct parse *ps, const char *name, size_t len, bool *global)
{
	const struct cli_command *cmd = ps->cli->cmd;
	const struct cli_option *o = lookup(global_options, ARRAY_SIZE(global_options), name, len);
	*global = o != NULL;
	if (!o && cmd)
		o = lookup(cmd->options, cmd->noptions, name, len);
	return o;
}

/* The command takes a release's version as its argument (`plan [VERSION]`). */
static bool takes_version(const struct cli_command *cmd)
{
	return cmd && cmd->args && strstr(cmd->args, "VERSION");
}

static bool looks_like_version(const char *s)
{
	return s && (isdigit((unsigned char)s[0]) || ((s[0] == 'v' || s[0] == 'V') && isdigit((unsigned char)s[1])));
}

/*
 * An option after `plan` where the release's version belongs: `plan --version 0.3.0`
 * (which would print wheelmatrix's version and succeed) or an unknown option with
 * a version as its value (`plan --release 0.3.0`).  The error shows the command
 * line without it, the value of `--opt=0.3.0` kept as the argument.
 */
static int misplaced_version(const struct parse *ps, int argc, char **argv, int at, const char *value)
{
	const char *cmd = ps->cli->cmd->name, **words = calloc((size_t)argc, sizeof(*words));
	char *line = NULL;
	int optlen = (int)strcspn(argv[at], "="), n = 0;
	bool has_version = value != NULL, ours = at == ps->late_version;

	/* the command line without the option, the value of `--opt=0.3.0` kept as the argument */
	for (int i = 0; words && i < argc; i++) {
		if (i == at && !value)
			continue;
		has_version |= i > 0 && i != at && looks_like_version(argv[i]);
		words[n++] = i == 0 ? "wheelmatrix" : i == at ? value : argv[i];
	}
	if (!words || !(line = wm_text_shell_line(words, (size_t)n)))
		has_version = false;
	if (!ours && !line)
		cli_error("unknown option '%.*s': the release's version is the argument of '%s'", optlen, argv[at], cmd);
	else if (!ours)
		cli_error("unknown option '%.*s': the release's version is the argument of '%s': did you mean '%s'?",
			optlen, argv[at], cmd, line);
	else if (has_version)
		cli_error("'--version' after '%s' is wheelmatrix's own option, not the release's version: "
			"did you mean '%s'? ('wheelmatrix --version' prints wheelmatrix's version)", cmd, line);
	else
		cli_error("'--version' after '%s' is wheelmatrix's own option, not the release's version: "
			"'wheelmatrix %s VERSION' takes the release's, 'wheelmatrix --version' prints wheelmatrix's",
			cmd, cmd);
	free(words);
	free(line);
	return CLI_EXIT_USAGE;
}

/*
 * An unknown option after a command taking a VERSION, with what looks like a
 * version as its value (`plan --release 0.3.0`): the release's version is the
 * argument itself.  0 when it is not that.
 */
static int unknown_with_version(const struct parse *ps, int argc, char **argv, int at, const char *eq)
{
	if (!takes_version(ps->cli->cmd))
		return 0;
	if (eq && looks_like_version(eq + 1))
		return misplaced_version(ps, argc, argv, at, eq + 1);
	if (!eq && at + 1 < argc && looks_like_version(argv[at + 1]))
		return misplaced_version(ps, argc, argv, at, NULL);
	return 0;
}

/* The option `--word` may be a misspelling of, or NULL. */
static const char *suggest_option(const struct cli *cli, const char *spelling, size_t len)
{
	const char *names[64];
	char word[128];
	size_t n = 0;
	if (len <= 2 || len >= sizeof(word))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(global_options); i++)
		if (global_options[i].long_name)
			names[n++] = global_options[i].long_name;
	for (size_t i = 0; cli->cmd && i < cli->cmd->noptions && n < ARRAY_SIZE(names); i++)
		if (cli->cmd->options[i].long_name)
			names[n++] = cli->cmd->options[i].long_name;
	memcpy(word, spelling + 2, len - 2);
	word[len - 2] = '\0';
	return wm_text_suggest(word, names, n);
}

/*
 * An option `build` does not know, before any '--': most likely one of
 * maturin's (`build cpu --release`), which go after '--'.  The error shows
 * the line with everything from the option on moved after it, once the
 * backend is given; 0 for another command.
 */
static int maturin_option(const struct parse *ps, int argc, char **argv, int at, size_t len)
{
	const struct cli *cli = ps->cli;
	const char **words;
	char *line = NULL;
	int n = 0;

	if (!cli->cmd || !cli->cmd->args || !strstr(cli->cmd->args, "-- MATURIN-ARGS"))
		return 0;
	if (argv[at][1] == '-' && suggest_option(cli, argv[at], strcspn(argv[at], "=")))
		return 0;  /* a misspelling of one of ours */
	if (cli->nargs >= cli->cmd->min_args && (words = calloc((size_t)argc + 1, sizeof(*words)))) {
		words[n++] = "wheelmatrix";
		for (int i = 1; i < at; i++)
			words[n++] = argv[i];
		words[n++] = "--";
		for (int i = at; i < argc; i++)
			if (strcmp(argv[i], "--") != 0)
				words[n++] = argv[i];
		line = wm_text_shell_line(words, (size_t)n);
		free(words);
	}
	if (line)
		cli_error("unknown option '%.*s' of '%s': maturin's options go after '--': did you mean '%s'?",
			(int)len, argv[at], cli->cmd->name, line);
	else
		cli_error("unknown option '%.*s' of '%s': maturin's options go after '--' (wheelmatrix %s %s)",
			(int)len, argv[at], cli->cmd->name, cli->cmd->name, cli->cmd->args);
	free(line);
	return CLI_EXIT_USAGE;
}

static int unknown_option(const struct cli *cli, const char *spelling, size_t len)
{
	const char *hint = suggest_option(cli, spelling, len);
	if (hint) {
		cli_error("unknown option '%.*s' (did you mean '--%s'?)", (int)len, spelling, hint);
		return CLI_EXIT_USAGE;
	}
	/* a command's option before the command's name */
	for (size_t i = 0; !cli->cmd && i < ARRAY_SIZE(commands); i++) {
		const struct cli_command *c = &commands[i];
		if (lookup(c->options, c->noptions, spelling + (len > 2 ? 2 : 1), len > 2 ? len - 2 : 0)) {
			cli_error("unknown option '%.*s' (an option of '%s' goes after the command: "
				"'wheelmatrix %s %.*s')", (int)len, spelling, c->name, c->name, (int)len, spelling);
			return CLI_EXIT_USAGE;
		}
	}
	cli_error("unknown option '%.*s'", (int)len, spelling);
	return CLI_EXIT_USAGE;
}

static int check_choice(const struct cli_option *o, const char *spelling, const char *value)
{
	const char *hint;
	size_t n = 0;
	if (!o->choices)
		return 0;
	while (o->choices[n])
		if (strcmp(o->choices[n++], value) == 0)
			return 0;
	if ((hint = wm_text_suggest(value, o->choices, n)) != NULL) {
		cli_error("invalid value '%s' for '%s' (did you mean '%s'?)", value, spelling, hint);
	} else {
		char list[256];
		size_t len = 0;
		for (size_t i = 0; i < n; i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
				i == 0 ? "" : i + 1 < n ? ", " : " or ", o->choices[i]);
		cli_error("invalid value '%s' for '%s': expected %s", value, spelling, list);
	}
	return CLI_EXIT_USAGE;
}

/* Records option `o`'s value (NULL for a flag). */
static int apply(struct parse *ps, const struct cli_option *o, bool global, const char *spelling,
	const char *value)
{
	struct cli *cli = ps->cli;
	int ret;
	if (value && (ret = check_choice(o, spelling, value)) != 0)
		return ret;
	if (global) {
		switch (o - global_options) {
		case G_DIR:
			ps->dirs[ps->ndirs++] = value;
			break;
		case G_FILE:
			cli->file = value;
			ps->file_given = true;
			break;
		case G_COLOR:
			cli_color_init(strcmp(value, "always") == 0 ? CLI_COLOR_ALWAYS
				: strcmp(value, "never") == 0 ? CLI_COLOR_NEVER : CLI_COLOR_AUTO);
			break;
		case G_QUIET:
			cli->verbosity = -1;
			break;
		case G_VERBOSE:
			cli->verbosity = 1;
			break;
		case G_VERSION:
			ps->version = true;
			break;
		case G_HELP:
			ps->help = true;
			break;
		}
		return 0;
	}
	cli->values[o - cli->cmd->options] = value ? value : "";
	return 0;
}

/* `--name`, `--name=value` or `--name value`. */
static int parse_long(struct parse *ps, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct cli_option *o;
	char spelling[128];
	bool global;

	if (len == 2 || !(o = find_option(ps, arg + 2, len - 2, &global))) {
		int ret = len > 2 ? unknown_with_version(ps, argc, argv, *i, eq) : 0;
		if (!ret && len > 2)
			ret = maturin_option(ps, argc, argv, *i, strlen(arg));
		return ret ? ret : unknown_option(ps->cli, arg, len);
	}
	snprintf(spelling, sizeof(spelling), "--%s", o->long_name);
	/* judged once the whole line is read: the version may come before it */
	if (global && o == &global_options[G_VERSION] && takes_version(ps->cli->cmd)) {
		ps->late_version = *i;
		ps->late_value = eq ? eq + 1 : NULL;
		return 0;
	}
	if (!o->arg) {
		if (eq) {
			cli_error("option '%s' takes no value", spelling);
			return CLI_EXIT_USAGE;
		}
		return apply(ps, o, global, spelling, NULL);
	}
	if (eq)
		return apply(ps, o, global, spelling, eq + 1);
	if (*i + 1 >= argc) {
		cli_error("option '%s' needs a value (%s)", spelling, o->arg);
		return CLI_EXIT_USAGE;
	}
	return apply(ps, o, global, spelling, argv[++*i]);
}

/* `-q`, `-qv` (flags together), `-f FILE` or `-fFILE`. */
static int parse_short(struct parse *ps, int argc, char **argv, int *i)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		char spelling[3] = { '-', *p, '\0' };
		bool global;
		const struct cli_option *o = find_option(ps, p, 0, &global);
		int ret;
		if (!o && p == argv[*i] + 1 && (ret = unknown_with_version(ps, argc, argv, *i,
				p[1] ? p : NULL)) != 0)
			return ret;
		if (!o && p == argv[*i] + 1 && (ret = maturin_option(ps, argc, argv, *i, strlen(argv[*i]))) != 0)
			return ret;
		if (!o)
			return unknown_option(ps->cli, spelling, 2);
		if (!o->arg) {
			if ((ret = apply(ps, o, global, spelling, NULL)) != 0)
				return ret;
			continue;
		}
		if (p[1])
			return apply(ps, o, global, spelling, p + 1);
		if (*i + 1 >= argc) {
			cli_error("option '%s' needs a value (%s)", spelling, o->arg);
			return CLI_EXIT_USAGE;
		}
		return apply(ps, o, global, spelling, argv[++*i]);
	}
	return 0;
}

/* Global options go anywhere; the command's own options after its name. */
static int parse_args(struct parse *ps, int argc, char **argv)
{
	struct cli *cli = ps->cli;
	bool only_args = false;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!only_args && strcmp(arg, "--") == 0) {
			only_args = true;
		} else if (!only_args && arg[0] == '-' && arg[1] == '-') {
			if ((ret = parse_long(ps, argc, argv, &i)) != 0)
				return ret;
		} else if (!only_args && arg[0] == '-' && arg[1]) {
			if ((ret = parse_short(ps, argc, argv, &i)) != 0)
				return ret;
		} else if (!cli->cmd) {
			if (!(cli->cmd = find_command(arg)))
				return unknown_command(arg);
			if (cli->cmd->noptions && !(cli->values = calloc(cli->cmd->noptions, sizeof(*cli->values)))) {
				cli_error("out of memory");
				return CLI_EXIT_ENV;
			}
		} else {
			cli->args[cli->nargs++] = arg;
		}
	}
	return 0;
}

static int check_args(const struct cli *cli)
{
	const struct cli_command *cmd = cli->cmd;
	if (cli->nargs > cmd->max_args) {
		cli_error("unexpected argument '%s'", cli->args[cmd->max_args]);
		return CLI_EXIT_USAGE;
	}
	if (cli->nargs < cmd->min_args) {
		cli_error("'%s' needs %s (usage: wheelmatrix %s [options] %s)", cmd->name, cmd->args,
			cmd->name, cmd->args);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static int change_dirs(const struct parse *ps)
{
	for (size_t i = 0; i < ps->ndirs; i++)
		if (chdir(ps->dirs[i]) < 0) {
			cli_error("cannot change to directory '%s': %s", ps->dirs[i], strerror(errno));
			return CLI_EXIT_USAGE;
		}
	return 0;
}

static int run(struct cli *cli, struct parse *ps, int argc, char **argv)
{
	struct cli_ctx ctx = { .err = { 0 } };
	unsigned flags;
	int ret;
	if ((ret = parse_args(ps, argc, argv)) != 0)
		return ret;
	if (ps->late_version)
		return misplaced_version(ps, argc, argv, ps->late_version, ps->late_value);
	if (ps->help) {
		/* `help COMMAND --help` is still about COMMAND */
		if (cli->cmd && cli->cmd->run == cmd_help && cli->nargs)
			return cmd_help(cli, NULL);
		if (cli->cmd)
			print_command_help(stdout, cli->cmd);
		else
			print_main_help(stdout);
		return CLI_EXIT_OK;
	}
	if (ps->version) {
		puts("wheelmatrix " WM_VERSION);
		return CLI_EXIT_OK;
	}
	if (!cli->cmd) {
		print_main_help(stderr);
		return CLI_EXIT_USAGE;
	}
	if ((ret = check_args(cli)) != 0 || (ret = change_dirs(ps)) != 0)
		return ret;
	flags = cli->cmd->setup;
	if (cli->cmd->unless >= 0 && cli->values[cli->cmd->unless])
		flags &= ~cli->cmd->unless_drops;
	/* as git finds its repository: the matrix file here, or in a parent up to the repository's top */
	if (!ps->file_given && (flags & CLI_FIND) && !cli_find_matrix(cli) && !(flags & CLI_MAY_LACK)) {
		cli_error("no %s in this directory or any parent up to the repository's top: "
			"'wheelmatrix init' writes one", cli->file);
		return CLI_EXIT_USAGE;
	}
	cli_show_asides(cli->verbosity > 0);
	if (cli->cmd->prepare && (ret = cli->cmd->prepare(cli, &flags)) != 0)
		return ret;
	wm_error_init(&ctx.err);
	if ((ret = setup(cli, &ctx, flags)) == 0)
		ret = cli->cmd->run(cli, &ctx);
	release(&ctx);
	return ret;
}

int main(int argc, char **argv)
{
	struct cli cli = { "wheelmatrix.yaml", 0, NULL, NULL, NULL, 0 };
	struct parse ps = { &cli, false, false, false, NULL, 0, 0, NULL };
	int ret;

	cli_color_init(CLI_COLOR_AUTO);
	/* argc bounds both lists */
	cli.args = calloc((size_t)argc, sizeof(*cli.args));
	ps.dirs = calloc((size_t)argc, sizeof(*ps.dirs));
	if (!cli.args || !ps.dirs) {
		cli_error("out of memory");
		ret = CLI_EXIT_ENV;
	} else {
		ret = run(&cli, &ps, argc, argv);
	}
	/* a full disk or a closed pipe must not look like success */
	if ((fflush(stdout) != 0 || ferror(stdout)) && ret == CLI_EXIT_OK) {
		cli_error("cannot write output: %s", strerror(errno ? errno : EIO));
		ret = CLI_EXIT_ENV;
	}
	free(cli.args);
	free(cli.values);
	free(ps.dirs);
	return ret;
}
