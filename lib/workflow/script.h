/* script.h — a `run:` step's script read into command lines of words, as its shell splits them (script.c). */
#ifndef WM_WORKFLOW_SCRIPT_H
#define WM_WORKFLOW_SCRIPT_H

#include "util/common.h"
#include "util/arena.h"

enum wm_shell { WM_SHELL_BASH, WM_SHELL_PWSH, WM_SHELL_CMD };

/*
 * A word: its text, or, when part of it is not known before the job runs (a variable the step's
 * env does not give, a command's output, an expression over a secret), `unknown` says which.
 */
struct wm_word {
	const char *text;
	const char *unknown;
};

/* A simple command: its words after the variable assignments before it, which are its `env`. */
struct wm_command {
	struct wm_word *words;
	size_t n;
	struct wm_word *env;          /* NAME=value words, text "NAME=value" */
	size_t nenv;
	unsigned line;                /* of the script, 1-based, where it starts */
	const char *bad;              /* why the line could not be read (an open quote), or NULL */
};

/*
 * The value of an environment variable as the script sees it, for `$NAME`, `${NAME}`, `$env:NAME`
 * and `%NAME%`: 1 with *value, 0 when it is not set, -1 when it is not known (*why says why).
 */
struct wm_script_env {
	int (*get)(void *ctx, const char *name, size_t len, const char **value, const char **why);
	void *ctx;
};

/*
 * Splits `script` into its simple commands (separated by new lines, `;`, `&&`, `||`, `|`, `&`),
 * each into words as `shell` would: quotes, escapes, line continuations (`\`, a backtick, `^`),
 * comments; variables read through `env` and the script's own assignments (those in an `if`,
 * `for` or `while` are not known); command substitutions unknown.  `unknowns` (n) names what the
 * bytes "\x01<i>\x01" stand for in the text: expressions whose value is not known.  At most
 * `max` commands are read; memory from `a`; only running out of it fails.
 */
int wm_script_read(struct wm_command **out, size_t *n, struct wm_arena *a, const char *script, enum wm_shell shell,
	const struct wm_script_env *env, const char *const *unknowns, size_t nunknowns, size_t max);

#endif
