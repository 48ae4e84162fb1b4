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

struct cli_command {
	const char *name;
	const char *args;             /* what follows [options] in the usage line, or NULL */
	const char *summary;          /* one line, for `wheelmatrix help` and the top of --help */
	const struct cli_option *options;
	size_t noptions;
	size_t min_args, max_args;    /* positional arguments */
	int (*run)(struct cli *cli);  /* returns an exit code */
	const char *example;          /* one command line, the last line of --help (and in its docs page) */
	const struct cli_env *env;    /* the environment variables it reads, for --help; NULL for none */
	size_t nenv;
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
int cmd_list(struct cli *cli);
enum { INIT_FORCE, INIT_PYPROJECT, INIT_INDEX, INIT_OFFLINE, INIT_FORMAT, INIT_CACERT, INIT_TIMEOUT, INIT_RETRIES,
	INIT_NOPTIONS };
extern const struct cli_option cmd_init_options[INIT_NOPTIONS];
int cmd_init(struct cli *cli);
enum { GENERATE_CHECK, GENERATE_DRY_RUN, GENERATE_DIFF, GENERATE_STDOUT, GENERATE_FORCE, GENERATE_NOPTIONS };
extern const struct cli_option cmd_generate_options[GENERATE_NOPTIONS];
int cmd_generate(struct cli *cli);
enum { PLAN_INDEX, PLAN_OFFLINE, PLAN_FIRST_RELEASE, PLAN_FORMAT, PLAN_CACERT, PLAN_JOBS, PLAN_TIMEOUT, PLAN_RETRIES, PLAN_NOPTIONS };
extern const struct cli_option cmd_plan_options[PLAN_NOPTIONS];
int cmd_plan(struct cli *cli);

enum { OUTDATED_FORMAT, OUTDATED_INDEX, OUTDATED_GITHUB, OUTDATED_CRATES, OUTDATED_PYTHON_RELEASES, OUTDATED_CATALOG,
	OUTDATED_STRICT, OUTDATED_CACERT, OUTDATED_JOBS, OUTDATED_TIMEOUT, OUTDATED_RETRIES, OUTDATED_NOPTIONS };
extern const struct cli_option cmd_outdated_options[OUTDATED_NOPTIONS];
int cmd_outdated(struct cli *cli);
enum { PIN_GITHUB, PIN_UPDATE, PIN_MAJOR, PIN_CHECK, PIN_CACERT, PIN_JOBS, PIN_TIMEOUT, PIN_RETRIES, PIN_NOPTIONS };
extern const struct cli_option cmd_pin_options[PIN_NOPTIONS];
int cmd_pin(struct cli *cli);

enum { CHECK_STAGED, CHECK_REV, CHECK_WORKTREE, CHECK_DIFF, CHECK_FORMAT, CHECK_NOPTIONS };
extern const struct cli_option cmd_check_options[CHECK_NOPTIONS];
int cmd_check(struct cli *cli);

enum { HOOK_FORCE, HOOK_NOPTIONS };
extern const struct cli_option cmd_hook_options[HOOK_NOPTIONS];
int cmd_hook(struct cli *cli);

enum { PATCH_REVERT, PATCH_DRY_RUN, PATCH_NOPTIONS };
extern const struct cli_option cmd_patch_options[PATCH_NOPTIONS];
int cmd_patch(struct cli *cli);

int cmd_build(struct cli *cli);

enum { COMPLETION_BACKENDS, COMPLETION_OUTPUTS, COMPLETION_NOPTIONS };
extern const struct cli_option cmd_completion_options[COMPLETION_NOPTIONS];
int cmd_completion(struct cli *cli);

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
