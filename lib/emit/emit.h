/* emit.h — what the emitters share (emit.c). */
#ifndef WM_EMIT_EMIT_H
#define WM_EMIT_EMIT_H

#include "util/common.h"
#include "util/arena.h"
#include "util/buf.h"
#include "formats/yaml.h"
#include "emit/jobs.h"

/* What both emitters share; strings they return live in b's arena. */
/* A copy of the skeleton's top-level piece `name`, or NULL (reported as a bug). */
struct wm_y *wm_emit_piece(struct wm_yb *b, const struct wm_doc *skel, const char *name, struct wm_error *err);
/* Moves a built string into the arena and releases the buffer; NULL when it is empty (or out of memory). */
const char *wm_emit_keep(struct wm_yb *b, struct wm_buf *out);
/*
 * Replaces @version@, @version-dash@, @version-underscore@, @major@, @full@, @packages@ and the
 * architectures @compute-cap@, @cuda-archs@ and @torch-archs@ in a recipe's text (or in a whole tree).
 */
const char *wm_emit_recipe_text(struct wm_yb *b, const char *text, const struct wm_toolkit_use *u);
void wm_emit_recipe_subst(struct wm_yb *b, struct wm_y *y, const struct wm_toolkit_use *u);
/*
 * The image a Linux build of backend `be` on `p` runs in: a toolkit's prebuilt image (its catalog
 * `images`) for the toolkit's version, the platform's level and architecture, when the matrix keeps
 * the platform's catalog image; else the platform's `container`, else its image.
 */
const char *wm_emit_build_image(struct wm_yb *b, const struct wm_catalog *cat, const struct wm_backend *be,
	const struct wm_platform *p);
/* The toolkit recipe's `provider`.`os`.`key` node, or NULL. */
const struct wm_node *wm_emit_recipe(const struct wm_toolkit_use *u, const char *provider, enum wm_os os,
	const char *key);
/* The libraries the wheel repair must leave out for backend `b` on `os`, space-separated, or NULL. */
const char *wm_emit_repair_exclude(struct wm_yb *yb, const struct wm_backend *b, enum wm_os os);
/*
 * Where the build takes the libraries the repair leaves out for backend `b`'s
 * import test on `os` (the toolkits' `smoke-libraries`), space-separated, or
 * NULL when it is not import-tested there or none leaves libraries out.
 */
const char *wm_emit_smoke_libraries(struct wm_yb *yb, const struct wm_backend *b, enum wm_os os);
/* The module a backend's wheel holds: the project's, or _<package>_<backend>.<leaf> under meta. */
const char *wm_emit_module(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b);
/* Backend b has a variant patch (`patched` NULL: no project was read, so guess from the matrix). */
bool wm_emit_has_patch(const struct wm_matrix *m, const bool *patched, const struct wm_backend *b);
const char *wm_emit_env_value(const struct wm_env *env, size_t n, const char *name);
/*
 * Where the tests of `job` run (see wm_jobs_tests): `own_job`, the backend has a test runner on this
 * provider (`test.runner` on GitHub, `test.tags` on GitLab); `cross`, the provider cross-builds the
 * job's platform.  *why is set when they are skipped.
 */
enum wm_tests wm_emit_tests(const struct wm_job *job, bool own_job, bool cross, const char **why);
/*
 * The wheel of `job` (cross-built or not) is a musllinux one whose import test and tests run in the
 * platform's musllinux image (gitlab_image) on the build runner: GitHub's step `test-image`, GitLab's
 * test job, which runs in that image.
 */
bool wm_emit_in_image(const struct wm_job *job, bool cross);
/*
 * The variables of an Emscripten platform's Pyodide release that both CIs' build steps read:
 * pyodide-build's pin, the release, its CPython, Emscripten, Rust toolchain and PEP 783 platform
 * version (templates/platforms.yaml), in that order.
 */
#define WM_EMIT_PYODIDE_NVARS 6
void wm_emit_pyodide_vars(const struct wm_catalog *cat, const struct wm_platform *p,
	const char *names[WM_EMIT_PYODIDE_NVARS], const char *values[WM_EMIT_PYODIDE_NVARS]);
/* A wheel built for `p` (cross-built or not) can be installed and imported where it was built. */
bool wm_emit_runnable(const struct wm_platform *p, bool cross);
/* The publish jobs' version check, templates/check-version.py, as a `python3 -` heredoc. */
const char *wm_emit_check_version(struct wm_yb *b);
/* Strategy index: templates/index-pages.py as a `python3 - ARGS <<'PY'` heredoc (ARGS shell words). */
const char *wm_emit_index_pages(struct wm_yb *b, const char *args);
/*
 * Strategy variants: backend b's properties as `variantlib make-variant --property` takes them,
 * `ns::feature::value`, space-separated ("" for the null variant).  The loader's grammar keeps
 * them to [a-z0-9_.:], safe to split on blanks.
 */
void wm_emit_variant_properties(struct wm_buf *out, const struct wm_backend *b);
/* pyproject.toml's directory, where maturin runs: "" at the repository root, else "python" (no '/'). */
const char *wm_emit_project_dir(struct wm_arena *a, const struct wm_matrix *m);
/* The repository root's dist/ as seen from that directory: "dist", "../dist", "../../dist", ... */
const char *wm_emit_out_dir(struct wm_arena *a, const struct wm_matrix *m);
/*
 * The shell lines a Linux build runs in its container before building, or
 * NULL: the toolkits' recipes for `provider` (`key` names the recipe's list
 * or text) joined, then the backend's own `before-script-linux`.
 */
const char *wm_emit_before_script(struct wm_yb *b, const struct wm_backend *be, const char *provider,
	const char *key);
/*
 * The drift-check job's `-f` argument: the matrix file's name (the matrix lives at the repository's
 * top, where the job runs), or NULL for wheelmatrix.yaml, which check finds itself.  A name that
 * holds what a CI file must not carry is an error naming `setting` (ci.github.check), which turns
 * the job off.
 */
int wm_emit_check_matrix(const char **out, const struct wm_matrix *m, const char *setting, struct wm_error *err);
/* The drift check's command line `text` with its @matrix@ written: ` -f "$WM_MATRIX"` when `matrix`; NULL without one. */
const char *wm_emit_check_command(struct wm_yb *b, const char *text, const char *matrix);
/*
 * Adds a generated file to `out` (wm_files_add), reporting why it cannot be; a
 * NULL `path` (or `data` with a length) is an allocation that failed (WM_ENOMEM).  The _buf form
 * takes a built string, incomplete when its allocation failed.
 */
int wm_emit_add(struct wm_files *out, const char *path, const char *matrix_file, const char *data, size_t len,
	struct wm_error *err);
int wm_emit_add_buf(struct wm_files *out, const char *path, const char *matrix_file, const struct wm_buf *body,
	struct wm_error *err);

#endif
