/* maturin.h — maturin's command line read as maturin reads it, and maturin-action's `args` (maturin.c). */
#ifndef WM_WORKFLOW_MATURIN_H
#define WM_WORKFLOW_MATURIN_H

#include "util/common.h"
#include "util/arena.h"
#include "workflow/script.h"

struct wm_strs {
	const char **items;
	size_t n;
};

/* What one maturin command line asks for (maturin 1.16's `build` options, and `publish`'s). */
struct wm_maturin {
	const char *command;          /* build, publish, develop, sdist, upload, ...; NULL: none given */
	struct wm_strs interpreters;  /* -i/--interpreter values, as written */
	bool interpreter;             /* -i given (maybe without values: the interpreter on the PATH) */
	bool find_interpreter;        /* -f/--find-interpreter */
	struct wm_strs features;      /* -F/--features, each list split at commas and blanks */
	bool no_default_features, all_features;
	const char *profile;          /* --profile NAME */
	bool release;                 /* -r/--release */
	const char *target;           /* --target TRIPLE */
	const char *manifest;         /* -m/--manifest-path */
	const char *manifest_unknown; /* why -m's value is not known, or NULL */
	struct wm_strs compatibility; /* --compatibility/--manylinux values */
	bool zig, sdist, universal2, pgo;
	struct wm_strs compiler;      /* what else changes the compiled code: -Z, --config, rustc flags after `--`, --cargo-extra-args */
	const char *unknown;          /* why a word of it is not known (an unknown variable, a secret), or NULL */
	const char *interpreters_unknown; /* why an -i value is not known, or NULL */
	bool other_unknown;           /* a word other than -i's values is not known */
	const char *bad;              /* a flag maturin does not have, or a value missing, or NULL */
};

/*
 * Reads maturin's words after the program (`build --release -i 3.12 ...`; the subcommand first,
 * when `command` is NULL; after it otherwise): values as clap gives them (`-i a b`, `-i=a`,
 * `-ia`, `--interpreter a`, `--features=a,b`, `-Fa`), `--` ending the options.  Memory from `a`.
 */
int wm_maturin_read(struct wm_maturin *out, struct wm_arena *a, const char *command, const struct wm_word *words,
	size_t n);
/*
 * maturin-action's `args` as maturin gets them: the action reads them with string-argv and joins
 * them again with blanks into one command line, which its shell (or @actions/exec) splits on
 * blanks, so quotes group nothing (PyO3/maturin-action@v1.51.0 src/index.ts, innerMain and
 * dockerBuild).  Memory from `a`.
 */
int wm_maturin_action_words(struct wm_word **out, size_t *n, struct wm_arena *a, const char *args);

/* How a command line builds: maturin, pip wheel, build (PEP 517 through maturin), or none. */
enum wm_builder { WM_BUILDER_NONE, WM_BUILDER_MATURIN, WM_BUILDER_PIP, WM_BUILDER_BUILD, WM_BUILDER_UV, WM_BUILDER_PYODIDE };
/*
 * What a shell command runs: maturin (`maturin`, `maturin.exe`, `python -m maturin`, `uvx
 * maturin`, `uv run maturin`, `pipx run maturin`, a path to any of them), `pip wheel` (or `python
 * -m pip wheel`), `python -m build`, `uv build`, `pyodide build` (pyodide-build's, a PEP 517 build for
 * Pyodide); *args is where that program's own arguments start.
 */
enum wm_builder wm_maturin_builder(const struct wm_command *c, size_t *args);

#endif
