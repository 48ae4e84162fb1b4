/* cmd.h — what the files of the command-line tool share: option and command tables, messages. */
#ifndef WM_CMD_H
#define WM_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "wheelmatrix.h"

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Exit codes of design §2. */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_STATE = 1,  /* the repository is not in the state the command needs */
	CLI_EXIT_USAGE = 2,  /* bad options or invalid input */
	CLI_EXIT_ENV = 3,    /* I/O, git, network or memory failure */
};

/*
 * One option.  The same table drives parsing, "did you mean" and --help.
 * An option with `arg` takes a value (`--file FILE` or `--file=FILE`);
 * `choices`, when set, lists the values it accepts.
 */
struct cli_option {
	char short_name;              /* 0 when none */
	const char *long_name;        /* without "--"; NULL when none */
	const char *arg;              /* the value's name in --help, NULL for a flag */
	const char *const *choices;   /* NULL-terminated, or NULL for any value */
	const char *help;
};

/* An environment variable a command reads, for its --help. */
struct cli_env {
	const char *name;
	const char *help;
};

struct cli;
struct cli_ctx;

/*
 * What main.c does for a command before it runs (as git's RUN_SETUP), in
 * this order; each step's failure said and the command not run.
 */
enum {
	/* the matrix file looked for here, then up to the repository's top (unless -f names it) ... */
	CLI_FIND = 1 << 0,
	/* ... not finding it no error: check reads it from the index or a commit too, and says what it lacks */
	CLI_MAY_LACK = 1 << 1,
	CLI_ROOT = 1 << 2,     /* ctx->root and ctx->base: the matrix file's directory and its name there */
	CLI_CATALOG = 1 << 3,  /* ctx->cat, the catalogue, its diagnostics printed when it cannot be loaded */
	/*
	 * the catalogue checks runner labels' retirement dates against WHEELMATRIX_TODAY (YYYY-MM-DD),
	 * else the clock's UTC day: the commands whose output is the CI (list, generate, check,
	 * outdated, pin); without it none are checked
	 */
	CLI_TODAY = 1 << 4,
	CLI_LOCK = 1 << 5,     /* ctx->lock: the matrix file held for writing, from before it is read */
	/* ctx->m, the matrix, read through wm_variant_load: a local build's patch taken off, its backend in ctx->applied */
	CLI_MATRIX = 1 << 6,
};

/* What the setup hands a command; main.c releases it after the command. */
struct cli_ctx {
	struct wm_error err;          /* the matrix's warnings, for the command to print with its own */
	char *root;                   /* CLI_ROOT */
	const char *base;
	struct wm_catalog *cat;       /* CLI_CATALOG */
	struct wm_pin_lock *lock;     /* CLI_LOCK */
	struct wm_matrix *m;          /* CLI_MATRIX */
	char *applied;                /* the backend whose patch the project file has, or NULL */
};

struct cli_command {
	const char *name;
	const char *args;             /* what follows [options] in the usage line, or NULL */
	const char *summary;          /* one line, for `wheelmatrix help` and the top of --help */
	const struct cli_option *options;
	size_t noptions;
	size_t min_args, max_args;    /* positional arguments */
	int (*run)(struct cli *cli, struct cli_ctx *ctx);  /* returns an exit code */
	const char *example;          /* one command line, the last line of --help (and in its docs page) */
	const struct cli_env *env;    /* the environment variables it reads, for --help; NULL for none */
	size_t nenv;
	unsigned setup;               /* CLI_* flags: what main.c does before `run` */
	/* the option (an index of options) that, given, drops the flags `unless_drops` (-1 for none) */
	int unless;
	unsigned unless_drops;
	/*
	 * When set, called once the matrix file is found and before the rest of the setup: the
	 * command's checks of its options (an exit code, 0 to go on); it may drop flags of *setup.
	 */
	int (*prepare)(struct cli *cli, unsigned *setup);
};

enum cli_color { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

/* The parsed command line. */
struct cli {
	const char *file;             /* the matrix file; "-" is standard input */
	int verbosity;                /* -1 with -q, 1 with -v, else 0 */
	const struct cli_command *cmd;
	const char **values;          /* per option of cmd: its last value ("" for a flag), NULL if absent */
	const char **args;            /* positional arguments */
	size_t nargs;
};

/* commands (cmd_*.c); each command's options are indexed by an enum */
enum { LIST_FORMAT, LIST_WHY, LIST_NOPTIONS };
extern const struct cli_option cmd_list_options[LIST_NOPTIONS];
int cmd_list(struct cli *cli, struct cli_ctx *ctx);
int cmd_list_prepare(struct cli *cli, unsigned *setup);
enum { INIT_FORCE, INIT_PYPROJECT, INIT_INDEX, INIT_OFFLINE, INIT_FORMAT, INIT_CACERT, INIT_TIMEOUT, INIT_RETRIES,
	INIT_NOPTIONS };
extern const struct cli_option cmd_init_options[INIT_NOPTIONS];
int cmd_init(struct cli *cli, struct cli_ctx *ctx);
enum { GENERATE_CHECK, GENERATE_DRY_RUN, GENERATE_DIFF, GENERATE_STDOUT, GENERATE_FORCE, GENERATE_NOPTIONS };
extern const struct cli_option cmd_generate_options[GENERATE_NOPTIONS];
int cmd_generate(struct cli *cli, struct cli_ctx *ctx);
int cmd_generate_prepare(struct cli *cli, unsigned *setup);
enum { PLAN_INDEX, PLAN_OFFLINE, PLAN_FIRST_RELEASE, PLAN_FORMAT, PLAN_CACERT, PLAN_JOBS, PLAN_TIMEOUT, PLAN_RETRIES, PLAN_NOPTIONS };
extern const struct cli_option cmd_plan_options[PLAN_NOPTIONS];
int cmd_plan(struct cli *cli, struct cli_ctx *ctx);
int cmd_plan_prepare(struct cli *cli, unsigned *setup);

enum { OUTDATED_FORMAT, OUTDATED_INDEX, OUTDATED_GITHUB, OUTDATED_CRATES, OUTDATED_PYTHON_RELEASES, OUTDATED_CATALOG,
	OUTDATED_STRICT, OUTDATED_CACERT, OUTDATED_JOBS, OUTDATED_TIMEOUT, OUTDATED_RETRIES, OUTDATED_NOPTIONS };
extern const struct cli_option cmd_outdated_options[OUTDATED_NOPTIONS];
int cmd_outdated(struct cli *cli, struct cli_ctx *ctx);
int cmd_outdated_prepare(struct cli *cli, unsigned *setup);
enum { PIN_GITHUB, PIN_UPDATE, PIN_MAJOR, PIN_CHECK, PIN_CACERT, PIN_JOBS, PIN_TIMEOUT, PIN_RETRIES, PIN_NOPTIONS };
extern const struct cli_option cmd_pin_options[PIN_NOPTIONS];
int cmd_pin(struct cli *cli, struct cli_ctx *ctx);
int cmd_pin_prepare(struct cli *cli, unsigned *setup);

enum { CHECK_STAGED, CHECK_REV, CHECK_WORKTREE, CHECK_DIFF, CHECK_FORMAT, CHECK_NOPTIONS };
extern const struct cli_option cmd_check_options[CHECK_NOPTIONS];
int cmd_check(struct cli *cli, struct cli_ctx *ctx);
int cmd_check_prepare(struct cli *cli, unsigned *setup);

enum { HOOK_FORCE, HOOK_NOPTIONS };
extern const struct cli_option cmd_hook_options[HOOK_NOPTIONS];
int cmd_hook(struct cli *cli, struct cli_ctx *ctx);
int cmd_hook_prepare(struct cli *cli, unsigned *setup);

enum { PATCH_REVERT, PATCH_DRY_RUN, PATCH_NOPTIONS };
extern const struct cli_option cmd_patch_options[PATCH_NOPTIONS];
int cmd_patch(struct cli *cli, struct cli_ctx *ctx);
int cmd_patch_prepare(struct cli *cli, unsigned *setup);

int cmd_build(struct cli *cli, struct cli_ctx *ctx);
int cmd_build_prepare(struct cli *cli, unsigned *setup);

enum { COMPLETION_BACKENDS, COMPLETION_OUTPUTS, COMPLETION_NOPTIONS };
extern const struct cli_option cmd_completion_options[COMPLETION_NOPTIONS];
int cmd_completion(struct cli *cli, struct cli_ctx *ctx);
int cmd_completion_prepare(struct cli *cli, unsigned *setup);

/* main.c: the tables `completion` writes its scripts from */
const struct cli_command *cli_commands(size_t *n);
const struct cli_option *cli_global_options(size_t *n);
/*
 * Looks for the matrix file cli->file (a name) here, then in each parent up to
 * the top of the git working tree or the filesystem's root; when found, points
 * cli->file at it (a relative path such as ../../wheelmatrix.yaml) and returns true.
 */
bool cli_find_matrix(struct cli *cli);

/*
 * diag.c: everything written to stderr, and every text for a person: what it
 * quotes from the input (the matrix file, the repository's files and names,
 * the command line) shown with wm_show_next, a terminal's controls escaped.
 * A message goes out in one write.
 */
void cli_color_init(enum cli_color when);
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);
void cli_note(const char *fmt, ...) CLI_PRINTF(1, 2);
/* Writes `s` to `f` shown: every control escaped, tabs and line feeds too. */
void cli_show(FILE *f, const char *s);
/* The columns cli_show takes for `s`. */
size_t cli_show_width(const char *s);
/* Prints the format's text to `f` shown, the line feed it ends with kept (on stderr in one write). */
void cli_print(FILE *f, const char *fmt, ...) CLI_PRINTF(2, 3);
/*
 * Writes a file's text (a diff, a generated file) to stdout: byte for byte
 * into a pipe or a file, for git apply; shown, tabs and line feeds kept,
 * when stdout is a terminal.
 */
void cli_write_text(const char *data, size_t len);
/* Renders every diagnostic of `err` like a compiler, sorted by position. */
/*
 * The repository root, where the outputs live: the matrix file's directory
 * (malloc'd, NULL when out of memory); *base is the file's name in it.
 */
char *cli_matrix_root(const char *file, const char **base);
/*
 * Loads the catalog (its diagnostics printed when it cannot) and gives it the day runner
 * retirements are checked against: WHEELMATRIX_TODAY (YYYY-MM-DD) when set, else the clock's UTC
 * day; WM_EINVALID, said, when WHEELMATRIX_TODAY is not a date.
 */
int cli_catalog_load(struct wm_catalog **cat, struct wm_error *err);
void cli_print_diags(struct wm_error *err);
/* Whether cli_print_diags shows the asides (struct wm_diag): init, -v and list --why do. */
void cli_show_asides(bool on);
/*
 * The network options of plan, outdated and pin, each NULL when not given: --jobs (1 to 64),
 * --timeout (seconds, 1 to 3600; the connect timeout is kept no longer) and --retries (0 to 10);
 * false, said, for a value out of range.
 */
bool cli_net_options(const char *jobs, const char *timeout, const char *retries, unsigned *o_jobs,
	long *timeout_ms, long *connect_timeout_ms, unsigned *o_retries);
/* The environment variable `name`; NULL when it is unset or empty. */
const char *cli_env(const char *name);
/* The exit code for a library error. */
int cli_exit_code(int code);

/* suggest.c */
#endif
