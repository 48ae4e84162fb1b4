/* wheelmatrix.h — the one public header of libwheelmatrix: load a build matrix, expand it, encode it. */
#ifndef WHEELMATRIX_H
#define WHEELMATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one place of the version: pyproject.toml reads it here for the wheel and the sdist. */
#define WM_VERSION "0.1.0"

/*
 * Ownership, once for the whole API: an object returned through `**out` belongs
 * to the caller and is released with the matching `_free` (which accepts NULL).
 * Everything reachable from a loaded matrix (strings, platforms, backends, rules)
 * lives in the matrix's arena and stays valid until wm_matrix_free.  Strings in
 * a struct wm_job point into the iterator and stay valid until the next call.
 */

/* Error codes: 0 is success, every failure is negative. */
enum wm_err {
	WM_OK = 0,
	WM_EINVALID = -1,  /* invalid input: the matrix file, a catalog, an option value */
	WM_EREAD = -2,     /* an input file is missing, unreadable or a directory */
	WM_ENOMEM = -3,    /* out of memory */
	WM_EIO = -4,       /* an I/O error while writing */
	WM_ESTATE = -5,    /* the repository is not in the state the operation needs */
	WM_EINTERNAL = -6, /* a bug: an invariant of ours did not hold */
};

enum wm_severity { WM_SEV_ERROR, WM_SEV_WARNING, WM_SEV_NOTE };

/* One message, positioned like a compiler's.  line/column are 1-based; 0 means unknown. */
struct wm_diag {
	enum wm_severity severity;
	char *file;      /* NULL when the message is about no file */
	unsigned line, column;
	unsigned span;   /* characters to underline from column; 0 or 1 = a caret only */
	char *message;   /* at most 1024 bytes: a longer one keeps its start and end, "..." between */
	/*
	 * The source line (no newline) as it is shown (wm_show_window): each
	 * character a terminal would act on escaped but tabs, and a line longer
	 * than WM_SHOW_WINDOW columns cut to a window around the column, "..."
	 * where cut.  NULL when not known.
	 */
	char *source;
	unsigned source_column;  /* the column's place in `source`, 1-based (0: no caret) */
	unsigned source_span;    /* the columns of `source` to underline there, at least 1 with a caret */
	size_t lead;     /* index of the error a note belongs to (itself for errors) */
	/*
	 * A note of its own that says what was not checked (pyo3 a workspace dependency, a
	 * CPython past its end of life): the same on every load, so the commands show it only
	 * where it can be acted on (init, -v, list --why), not on every hook run.
	 */
	bool aside;
};

/*
 * A caller-provided error report.  Lower layers append diagnostics and set
 * `code` to the first failure they hit; upper layers may add notes but never
 * overwrite.  Validation appends every error it finds before failing.
 */
struct wm_error {
	enum wm_err code;
	struct wm_diag *diags;
	size_t ndiags, cap;
	size_t nerrors;  /* diagnostics of severity error */
	size_t nwarnings;
	bool truncated;  /* more errors were found than WM_ERROR_MAX */
	bool warnings_truncated;  /* more warnings were found than WM_ERROR_MAX */
	bool dropping;   /* the last error or warning was over the limit: its notes are dropped too */
	struct wm_error_texts *texts;  /* where the lines start in the texts quoted (error.c) */
};

/* At most this many errors are kept, and as many warnings, each with its notes. */
#define WM_ERROR_MAX 100

void wm_error_init(struct wm_error *err);
void wm_error_release(struct wm_error *err);
/* Sorts the diagnostics by file, line and column (stable), notes staying after their error. */
void wm_error_sort(struct wm_error *err);

/*
 * The candidate closest to `word` if it is close enough to be a likely typo
 * (case and '-'/'_' differences count as typos), else NULL: the "did you
 * mean" of the loader's key names and of the command line's commands,
 * options and choices.
 */
const char *wm_text_suggest(const char *word, const char *const *candidates, size_t n);
/* The words as one POSIX shell command line, each quoted only when it needs it; malloc'd, NULL when out of memory. */
char *wm_text_shell_line(const char *const *words, size_t n);
/* The directory of `path` ("." for a bare name or "-"), malloc'd: the repository root of a matrix file. */
char *wm_io_path_dir(const char *path);

/* ---- catalogs ---------------------------------------------------------- */

/* Emscripten: Pyodide's wasm32 wheels, cross-built on a Linux runner */
enum wm_os { WM_OS_LINUX, WM_OS_MACOS, WM_OS_WINDOWS, WM_OS_EMSCRIPTEN };
#define WM_OS_COUNT 4
const char *wm_catalog_os_name(enum wm_os os);

struct wm_strlist {
	const char **items;
	size_t n;
};

/* Where a value came from: the matrix file or a catalog. */
struct wm_loc {
	const char *file;
	unsigned line, column;
};

/*
 * A platform: a catalog entry with the matrix file's overrides applied.
 * `family` is the wheel tag family: "manylinux", "musllinux", "macosx", "win" or "pyemscripten".
 */
struct wm_platform {
	const char *id;
	enum wm_os os;
	const char *arch;          /* x86_64, aarch64, armv7, i686, ppc64le, s390x, arm64, universal2, x86, wasm32 */
	const char *family;
	const char *target;        /* Rust target triple */
	const char *wheel_arch;    /* the architecture in Linux wheel tags (armv7l); NULL off Linux */
	const char *manylinux;     /* manylinux/musllinux level as written ("2_28", "2014", "1_2"); NULL off Linux */
	/*
	 * The wheel platform tag as maturin writes it: manylinux_2_28_x86_64, macosx_11_0_arm64,
	 * win_amd64; a compressed set where maturin writes one, sorted as it sorts them
	 * (manylinux2014_x86_64.manylinux_2_17_x86_64, and universal2's
	 * macosx_10_12_universal2.macosx_10_12_x86_64.macosx_11_0_arm64)
	 */
	const char *platform_tag;
	const char *catalog_id;    /* the catalog entry it is (linux-x86_64 for linux-x86_64-2_17) */
	/*
	 * macOS: the deployment target rustc builds for by default ("10.12" on x86_64, universal2's
	 * x86_64 half; "11.0" on arm64, universal2's arm64 half in deployment_arm64), and the one the
	 * matrix sets (MACOSX_DEPLOYMENT_TARGET of the build), NULL when none; NULL off macOS
	 */
	const char *deployment_default, *deployment_arm64, *deployment_target;
	const char *runner;        /* GitHub Actions runner label */
	struct wm_loc runner_loc;  /* where the matrix file chose it (`runner:`, or `cross:`); line 0: the catalog's */
	const char *container;     /* GitHub build container image, NULL for maturin-action's default */
	bool cross;                /* built on another architecture: the runner cannot run the wheel */
	unsigned python_min;       /* the oldest 3.minor its runners can build for, 0 when any */
	const char *python_min_why; /* why, for the error */
	const char *gitlab_image;  /* GitLab image (a VM image on macOS), NULL for Windows' shell runners */
	struct wm_strlist gitlab_tags; /* GitLab runner tags; empty when GitLab has no hosted runner */
	bool gitlab_hosted;        /* GitLab.com has a hosted runner for it (or the matrix gave tags) */
	bool gitlab_cross;         /* cross-built on GitLab (macos-x86_64 on Apple silicon) */
	struct wm_loc loc;         /* the catalog entry, or the matrix file's entry when listed there */
	const struct wm_settings *settings; /* what its entry says of the build (model/settings.h), or NULL */
	/*
	 * Emscripten: the Pyodide release it builds for (templates/platforms.yaml `pyodide`): its
	 * version ("314.0.5"), CPython ("3.14.2", whose minor, 14, is the only one it builds), the
	 * PyEmscripten platform version of the tag ("2026_0"), Emscripten ("5.0.3") and the Rust
	 * toolchain it is built with ("1.93.0"); NULL and 0 elsewhere
	 */
	const char *pyodide, *pyodide_python, *pyodide_abi, *emscripten, *pyodide_rust;
	unsigned pyodide_minor;
	const char *pyodide_interpreter; /* what maturin builds with there: python3.14 (wm_python_interpreter) */
	const char *pyodide_python_tag;  /* its Python tag, cp314 (wm_python_tag) */
};

/*
 * Where a backend's jobs run, when the backend says (`runner`, `tags` on the backend or on its
 * per-platform entry) instead of its platforms: a GitHub runner label, GitLab runner tags.
 */
struct wm_runs_on {
	const char *runner;        /* NULL: the platform's */
	struct wm_loc runner_loc;
	struct wm_strlist tags;
	bool tags_given;           /* `tags` is set (an empty list too) */
	struct wm_loc tags_loc;
};

/* A toolkit recipe: CUDA, ROCm, CLBlast, Vulkan, Metal. */
struct wm_toolkit {
	const char *id;
	const char *title;               /* "CUDA" */
	struct wm_strlist versions;      /* accepted versions; empty = any */
	const char *default_version;     /* NULL when the toolkit has no versions */
	struct wm_strlist platforms;     /* platform ids it can be built on */
	const char *platforms_text;      /* "manylinux x86_64/aarch64 and windows-x86_64", for messages */
	struct wm_strlist features;      /* Cargo feature names that imply the toolkit */
	unsigned smoke_os;               /* bit 1 << wm_os: an import works on a hosted runner without the hardware */
	bool installable;                /* has an install recipe (Metal ships with macOS: no) */
	const void *recipe;              /* the catalog entry, read by the emitters */
	/* per OS, the installer its recipe uses and the full releases it can install; none: not checked */
	struct wm_toolkit_installer {
		const char *action, *ref;    /* "Jimver/cuda-toolkit", "v0.2.35" */
		struct wm_strlist versions;  /* "13.2.0", ... */
	} installers[WM_OS_COUNT];
};

struct wm_catalog;

/* A GitHub-hosted runner label of the catalog (templates/runners.yaml). */
struct wm_runner {
	const char *label;
	const char *retires_text;  /* the day GitHub retires it, YYYY-MM-DD; NULL when none is announced */
	long retires;              /* the same in days since 1970-01-01 */
	const char *instead;       /* the label to move to, with retires_text */
};

/* Loads the platform, toolkit and runner catalogs compiled into the library. */
int wm_catalog_load(struct wm_catalog **out, struct wm_error *err);
/* The catalog's entry for a runner label, or NULL for a label it does not know (a self-hosted one). */
const struct wm_runner *wm_catalog_runner(const struct wm_catalog *cat, const char *label);
/* The runner labels of templates/runners.yaml, in its order. */
size_t wm_catalog_runner_count(const struct wm_catalog *cat);
const struct wm_runner *wm_catalog_runner_at(const struct wm_catalog *cat, size_t i);
/*
 * Sets the day the matrix is checked on, in days since 1970-01-01: loading a matrix then warns
 * about a runner label retiring within 90 days of it and refuses one retired.  0, the default,
 * checks nothing: the library reads no clock.
 */
void wm_catalog_set_today(struct wm_catalog *cat, long days);
long wm_catalog_today(const struct wm_catalog *cat);
/* Reads a date YYYY-MM-DD (1970 or later) as days since 1970-01-01; false when it is not one. */
bool wm_catalog_date(const char *s, long *days);
void wm_catalog_free(struct wm_catalog *cat);
size_t wm_catalog_platform_count(const struct wm_catalog *cat);
const struct wm_platform *wm_catalog_platform_at(const struct wm_catalog *cat, size_t i);
const struct wm_platform *wm_catalog_platform(const struct wm_catalog *cat, const char *id);
size_t wm_catalog_toolkit_count(const struct wm_catalog *cat);
const struct wm_toolkit *wm_catalog_toolkit_at(const struct wm_catalog *cat, size_t i);
const struct wm_toolkit *wm_catalog_toolkit(const struct wm_catalog *cat, const char *id);

/* ---- the matrix -------------------------------------------------------- */

/* One Python axis entry: "3.12", "3.13t" (free-threaded), "pp3.11" (PyPy) or "abi3". */
struct wm_python {
	const char *version;      /* as written: "3.12", "3.13t", "pp3.11"; "abi3" for the abi3 entry */
	unsigned minor;           /* 3.minor; the abi3 minimum for the abi3 entry */
	bool freethreaded;
	bool pypy;                /* PyPy of Python 3.minor: pp311-pypy311_pp73, never abi3 */
	bool abi3;
	bool abi3t;               /* the free-threaded stable ABI's entry (PEP 803): cp315-abi3.abi3t */
	bool graalpy;             /* GraalPy of Python 3.minor: graalpy312-graalpy250_312_native */
	bool bin;                 /* a `bindings = "bin"` project's one entry: py3-none, no module */
	bool abi3_by_interpreter; /* abi3 from pyo3's plain `abi3`: maturin names it by the interpreter's minor */
	const char *python_tag;   /* cp312, pp311; cp38 for abi3 (the minimum) */
	const char *abi_tag;      /* cp312, cp313t, pypy311_pp73, pypy312_pp80, abi3: a Linux build's */
	const char *abi_tag_installed; /* PyPy built off Linux, with the PyPy setup-python and uv install
	                                  (pypy311_pp80); NULL: abi_tag everywhere.  wm_python_abi_tag */
	const char *tag;          /* the job id suffix: cp312, cp313t, pp311, abi3 */
	const char *interpreter;  /* python3.12, python3.13t, pypy3.11; for abi3 python3.12, or the minimum when newer */
	struct wm_loc loc;
};

/* The ABI tag of the wheel of `py` built for `p`: pypy311_pp73 on Linux, pypy311_pp80 on macOS. */
const char *wm_python_abi_tag(const struct wm_python *py, const struct wm_platform *p);
/*
 * The Python tag of the wheel of `py` built for `p`: cp314 for a plain-abi3 entry on Pyodide, whose
 * build runs Pyodide's CPython, which maturin names the wheel by; else py->python_tag.
 */
const char *wm_python_tag(const struct wm_python *py, const struct wm_platform *p);
/* The interpreter the build of `py` for `p` runs maturin with: Pyodide's CPython for every entry there. */
const char *wm_python_interpreter(const struct wm_python *py, const struct wm_platform *p);

struct wm_toolkit_use {
	const struct wm_toolkit *toolkit;
	const char *version;      /* NULL when the toolkit has no versions */
	bool implied;             /* implied by a feature name, not declared under `toolkit:` */
	const struct wm_strlist *features; /* the backend's Cargo features: the packages its recipe installs */
	struct wm_strlist archs;  /* `archs:`, in the catalog's spelling ("8.6"); empty: the version's default */
	struct wm_loc loc;
	struct wm_loc version_loc; /* the version as written; `loc` when the default is taken */
};

struct wm_env {
	const char *name, *value;
	struct wm_loc loc;        /* the value in the matrix file */
};

struct wm_settings;
struct wm_per_platform;

/*
 * A job's build settings: what its platform's entry, its backend, the backend's `per-platform`
 * entries that match the platform (in file order) and its include say, merged in that order
 * (docs/matrix.md, "Build settings"): a later layer's scalar replaces an earlier one's, lists add
 * up (each item once), a later layer's variable replaces an earlier one's value.
 */
struct wm_build {
	/*
	 * The Cargo features the matrix turns on for the job: every layer's, in layer order, each once
	 * (the backend's among them).  [tool.maturin].features of pyproject.toml are not listed: the
	 * build takes them too, as maturin does.
	 */
	struct wm_strlist features;
	bool default_features;            /* Cargo's `default` feature is on: no layer says no-default-features */
	const char *profile;              /* the Cargo profile; NULL: --release */
	const char *rust_toolchain;       /* NULL: the CI's own (stable, or the repository's rust-toolchain file) */
	struct wm_strlist rustup_components;
	struct wm_strlist unstable_flags; /* maturin's -Z */
	bool zig;                         /* maturin's --zig (Linux only) */
	struct wm_strlist docker_options; /* GitHub's Linux build container (Linux only) */
	const struct wm_env *env;
	size_t nenv;
	/*
	 * What the build passes maturin for them: --release or --profile NAME, then --features LIST
	 * when `cli_features`, --no-default-features, --zig, -Z FLAG ...; and the same space-separated.
	 * Each word is one without quoting (util/name.h).
	 */
	struct wm_strlist args;
	const char *args_text;
	/*
	 * A layer other than the backend adds features: maturin's --features, which replaces
	 * [tool.maturin].features, carries the whole list (those of pyproject.toml, the backend's, the
	 * others'); otherwise the backend's reach the build through its variant patch, as ever.
	 */
	bool cli_features;
};

/*
 * `test:`, the matrix's and a backend's over it: the project's tests, run against each wheel
 * (docs/matrix.md).  Every value is the matrix file's, checked by the loader.
 */
struct wm_test {
	const char *command;             /* one shell line; {project} and {wheel} replaced */
	struct wm_strlist requires;      /* PEP 508 requirements installed beside the wheel */
	struct wm_strlist extras;        /* the wheel's extras installed with it */
	struct wm_strlist sources;       /* paths of the checkout copied into the tests' directory */
	struct wm_strlist skip;          /* globs of job ids whose tests do not run */
	struct wm_strlist runner;        /* a backend's: GitHub runs-on labels of its test jobs; empty: the build job */
	struct wm_strlist tags;          /* a backend's: GitLab runner tags of its test jobs; empty: the build's */
	struct wm_loc loc;
};

struct wm_backend {
	const char *id;
	size_t index;                    /* position in the file: priority for the meta dispatcher */
	struct wm_strlist features;
	const struct wm_loc *feature_locs;
	struct wm_strlist platforms;     /* the `platforms:` globs as written; empty = every platform */
	const struct wm_loc *platform_locs;
	const char *dist;                /* distribution name */
	bool dist_explicit;
	const char *local;               /* strategy index with local labels: the version label, else NULL */
	const char *variant_label;       /* strategy variants: the label in its wheels' names; "null" for the default */
	struct wm_strlist variant_properties; /* strategy variants: "namespace :: feature :: value", as written */
	bool is_default;
	bool smoke;                      /* an import test is wanted somewhere: smoke_os != 0 */
	unsigned smoke_os;               /* bit 1 << wm_os: where (the runner must also run the wheel) */
	struct wm_toolkit_use *toolkits;
	size_t ntoolkits;
	struct wm_env *env;
	size_t nenv;
	struct wm_strlist dependencies;
	const void *setup;               /* raw `setup:` steps for the emitters, NULL when absent */
	const char *before_script_linux; /* shell lines run in the Linux build container first, or NULL */
	const struct wm_test *test;      /* the tests of its wheels (the matrix's `test:` under its own), or NULL */
	/*
	 * The Python axis's abi3 entry its CPython wheels build, as its own features turn pyo3's abi3
	 * on (or the crate's, or python.abi3); NULL: a wheel per CPython version.  Its jobs take that
	 * entry, and the free-threaded and PyPy ones, never another backend's abi3 entry or, with one,
	 * a CPython version.
	 */
	const struct wm_python *abi3;
	bool abi3t;                      /* its build enables pyo3's abi3t: the axis's abi3t entry is its */
	struct wm_loc loc;
	const struct wm_settings *settings;          /* its build settings (model/settings.h), or NULL */
	const struct wm_per_platform *per_platform;  /* `per-platform`: its settings on some platforms */
	size_t nper_platform;
	struct wm_runs_on runs_on;       /* its own `runner` and `tags`, on every platform it builds on */
};

/* One `exclude` or `include` rule; fields NULL when absent.  Globs allowed in exclude. */
struct wm_rule {
	size_t index;
	const char *backend, *platform, *python;
	struct wm_loc loc;
	/* include only: */
	const struct wm_backend *include_backend;
	const struct wm_platform *include_platform;  /* with the include's overrides applied */
	const struct wm_python *include_python;
	struct wm_env *env;
	size_t nenv;
	const struct wm_settings *settings;  /* its build settings (model/settings.h), or NULL */
	const struct wm_build *build;        /* the job's build settings, merged */
};

/*
 * A planned drop (`dropped:`): the wheels of the last release that this one no longer builds, on
 * purpose.  `plan` takes such a wheel as planned when a rule matches every field it gives, and
 * prints its reason.  A field is NULL when the rule does not give it; `platform` is a catalog
 * platform id or a wheel platform tag, or a glob of either.
 */
struct wm_drop {
	const char *backend, *platform, *python, *reason;
	struct wm_strlist platform_tags;  /* `platform` as ids: the platform tags of the catalog platforms it names */
	struct wm_loc loc;
};

enum wm_strategy { WM_STRATEGY_RENAME, WM_STRATEGY_META, WM_STRATEGY_INDEX, WM_STRATEGY_VARIANTS };

/* Strategy variants: the provider plugin of one variant namespace (`distribution.providers`). */
struct wm_provider {
	const char *ns;                  /* the namespace: [a-z0-9_]+ */
	struct wm_strlist requires;      /* PEP 508 requirements that install the plugin */
	const char *plugin_api;          /* `module:attribute`, or NULL: the first requirement's name */
	bool optional;                   /* the installer asks the plugin only when the user enables it */
	struct wm_loc loc;
};

struct wm_output {
	bool enabled;
	const char *path;
	bool check;                      /* `check:` (default true): the drift-check job, which the publish jobs need */
	struct wm_strlist exclude_platforms;  /* ci.gitlab: platform patterns left out of this provider alone */
	struct wm_loc loc;
	/*
	 * ci.github.triggers: what runs the workflow.  A key not given keeps templates/github.yaml's:
	 * pushes to main and master, every tag, every pull request.
	 */
	bool has_branches, has_tags, has_pull_requests;
	struct wm_strlist branches;      /* pushes to these branches (GitHub filter patterns); empty: none */
	struct wm_strlist tags;          /* pushes of these tags: at least one, the publish jobs run on them */
	bool pull_requests;              /* pull requests run it: those into `pr_branches`, or every one */
	struct wm_strlist pr_branches;
};

struct wm_action_ref {
	const char *action;  /* owner/name */
	const char *ref;
	/*
	 * For a ref that is a full commit SHA, the tag it was pinned at: the comment after the
	 * value (`owner/name: <sha>  # v4.2.2`) when it reads as a reference; NULL otherwise
	 */
	const char *tag;
	struct wm_loc loc;
};

struct wm_arena;
struct wm_group;
struct wm_project;
struct wm_meta;

struct wm_matrix {
	struct wm_arena *arena;
	const char *file;                /* the matrix file's name, as given */
	unsigned format;                 /* `wheelmatrix:` */

	const char *name;                /* project.name */
	const char *pyproject, *manifest, *module;

	const struct wm_python **pythons; /* the Python axis, ascending; abi3 first */
	size_t npythons;
	const char *abi3;                /* python.abi3, NULL when absent */

	const struct wm_platform **platforms;  /* the matrix's platforms, in file order */
	size_t nplatforms;

	struct wm_backend **backends;    /* in file order */
	size_t nbackends;
	const struct wm_backend *default_backend;

	struct wm_rule *excludes;
	size_t nexcludes;
	struct wm_rule *includes;
	size_t nincludes;
	struct wm_drop *drops;           /* `dropped:`, in file order */
	size_t ndrops;

	const struct wm_project *project; /* pyproject.toml and Cargo.toml, NULL when there are none */
	const char *version;             /* the project's version as written (Cargo semver or PEP 440), or NULL */
	const char *maturin;             /* the maturin release the CI pins: within [build-system].requires */

	enum wm_strategy strategy;
	const struct wm_meta *meta;      /* strategy meta with a project: its layout and files, else NULL */
	const char *index_url;           /* strategy index: the backends' indexes are <index_url>/<backend>/;
	                                    strategy variants: the one index of every variant */
	bool index_local;                /* strategy index: a backend's version gains the label +<backend> */
	struct wm_loc index_loc;
	struct wm_provider *providers;   /* strategy variants: in priority order */
	size_t nproviders;
	struct wm_output github, gitlab;
	struct wm_action_ref *actions;
	size_t nactions;
	bool trusted;
	const char *environment;
	bool github_release;   /* publish.github-release: a GitHub release per tag with every file */
	const struct wm_test *test;      /* the top-level `test:`, or NULL */

	/* derived by expansion: */
	const struct wm_build **builds;  /* per backend and matrix platform (b * nplatforms + p): the merged build, or NULL */
	/* per backend and matrix platform (b * nplatforms + p): the platform as that backend's jobs run
	 * on it, with the backend's runner or tags; NULL: the platform itself.  NULL when no backend has any. */
	const struct wm_platform **runs_on;
	size_t njobs;
	struct wm_group *groups;
	size_t ngroups;
	void *priv;                      /* the expander's precomputed masks */
};

/*
 * Limits of the loader.  Without aliases a file's scalars never hold more text than the file
 * (escapes shrink, except \L and \P: 2 bytes for 3), so only aliases reach the text limit.
 */
#define WM_MATRIX_MAX_BYTES (16u << 20)   /* input size */
#define WM_MATRIX_MAX_DEPTH 64            /* nesting of collections */
#define WM_MATRIX_MAX_NODES 8000000u      /* nodes after alias expansion */
#define WM_MATRIX_MAX_TEXT (2ull * WM_MATRIX_MAX_BYTES)  /* bytes of scalar text after alias expansion */
/*
 * Each file `generate` writes (header included): twice the text a matrix can hold.  Only long
 * values repeated in many jobs (env through aliases or includes) come near it.
 */
#define WM_GENERATED_MAX_BYTES ((size_t)(2 * WM_MATRIX_MAX_TEXT))

/*
 * Loads and validates a matrix from `len` bytes of `text`; `name` is used in
 * diagnostics.  Every problem found is appended to `err` (all of them, not the
 * first), and on any error nothing is returned.  The text is copied.
 */
int wm_matrix_load(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *name, const char *text, size_t len, struct wm_error *err);
/* A malloc'd list of malloc'd paths. */
struct wm_paths {
	char **items;
	size_t n, cap;
};
int wm_io_paths_add(struct wm_paths *p, const char *path, size_t len);
void wm_io_paths_sort(struct wm_paths *p);
void wm_io_paths_free(struct wm_paths *p);

/*
 * Where the loader reads the files a matrix names (pyproject.toml, Cargo.toml):
 * the working tree, or a git tree for `check`.  `read` fills *data (malloc'd)
 * and *len and returns 0; returns 1 when the file does not exist (reporting
 * nothing); reports and returns a negative code on any other failure.  Paths
 * are relative to the repository root.
 */
struct wm_reader {
	int (*read)(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err);
	void *ctx;
	/*
	 * The files below the directory `dir` (recursively: symbolic links and
	 * submodules left out) as paths relative to it, sorted bytewise; returns 1
	 * when `dir` is not a directory.  NULL when the reader cannot list.
	 */
	int (*list)(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err);
	/*
	 * Told by the loader, before it reads the project's files, the ids of
	 * the matrix's backends (the keys of `backends:` that are ids, or the
	 * implied `cpu`): a reader that undoes a variant patch reads only
	 * theirs.  0 or WM_ENOMEM; NULL when the reader has no use for them.
	 */
	int (*backends)(void *ctx, const char *const *ids, size_t n);
};

/*
 * As wm_matrix_load, reading the project's pyproject.toml and Cargo.toml
 * through `r` (NULL: none): the defaults of the matrix come from them and the
 * backends' features are checked against Cargo's [features].
 */
int wm_matrix_load_project(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *name, const char *text, size_t len, const struct wm_reader *r, struct wm_error *err);
/* Reads `path` ("-" = standard input) within WM_MATRIX_MAX_BYTES and loads it. */
int wm_matrix_load_file(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *path, struct wm_error *err);
void wm_matrix_free(struct wm_matrix *m);

/* ---- expansion --------------------------------------------------------- */

enum wm_rule_kind {
	WM_KEPT = 0,
	WM_LEFT_BY_PLATFORMS,  /* the backend's `platforms:` filter */
	WM_LEFT_BY_EXCLUDE,    /* an `exclude` rule */
};

/*
 * A build job: one (backend, platform, python).  Within a job, `platform`
 * already carries an include's overrides.
 */
struct wm_job {
	const char *id;                    /* cuda-linux-x86_64-cp312 */
	const struct wm_backend *backend;
	const struct wm_platform *platform;
	const struct wm_python *python;
	const struct wm_rule *include;     /* the include rule that added it, or NULL */
	const struct wm_group *group;      /* the CI build job it belongs to */
	const struct wm_build *build;      /* its build settings, merged (NULL for a left-out combination) */
	/* with WM_EXPAND_LEFT_OUT only: */
	enum wm_rule_kind left_by;
	const struct wm_rule *exclude;     /* WM_LEFT_BY_EXCLUDE: the rule */
	const char *why;                   /* one sentence: which rule removed it and why */
	struct wm_loc why_loc;             /* where that rule is written */
};

/* A CI build job: the jobs of one backend on one OS, at most WM_GROUP_MAX of them. */
struct wm_group {
	const char *name;                  /* build-cuda-linux, build-cuda-linux-2 when split */
	const struct wm_backend *backend;
	enum wm_os os;
	unsigned part, nparts;             /* 1-based part of a split job; nparts 1 when not split */
	size_t njobs;
};

#define WM_GROUP_MAX 256   /* GitHub's limit of jobs per matrix */

enum {
	WM_EXPAND_JOBS = 1,      /* yield the jobs */
	WM_EXPAND_LEFT_OUT = 2,  /* yield the combinations that were left out, with `why` */
};

/*
 * Iterates the jobs in the order of docs/design.md §4 without materialising
 * them; the matrix must outlive it.
 */
struct wm_expand;

int wm_expand_new(struct wm_expand **out, const struct wm_matrix *m, unsigned flags);
/* Only the jobs of one build job. */
int wm_expand_new_group(struct wm_expand **out, const struct wm_matrix *m, const struct wm_group *g);
/*
 * The build settings of backend `b` on matrix platform `p` (by id): what a job of theirs builds
 * with, an include's aside (its rule's `build`); NULL when b is not built on p or p is not one of
 * the matrix's platforms.  Valid as long as the matrix.
 */
const struct wm_build *wm_settings_build(const struct wm_matrix *m, const struct wm_backend *b,
	const struct wm_platform *p);
/* Fills `out` with the next job (valid until the next call); returns 1, or 0 at the end. */
int wm_expand_next(struct wm_expand *it, struct wm_job *out);
void wm_expand_free(struct wm_expand *it);

/* ---- generate ----------------------------------------------------------- */

/*
 * Renders every file the matrix asks for into `out` (which the caller
 * initialised): the variant patches, the GitHub Actions workflow at
 * ci.github.path and the GitLab CI file at ci.gitlab.path.  Nothing is
 * written to disk.  `matrix_file` is the matrix file's path relative to the
 * repository root, as the headers name it.  A platform GitLab cannot host
 * without runner tags is WM_EINVALID, positioned in the matrix file.
 * Warnings are added to `err` without failing.
 */
struct wm_files;  /* emit/file.h */
int wm_generate(struct wm_files *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const char *matrix_file, struct wm_error *err);

/* The file of a local action of the workflow, in its directory .github/actions/NAME (emit/github.c). */
#define WM_GITHUB_LOCAL_FILE "/action.yml"
/*
 * The name of the local action whose file is `path` (.github/actions/NAME/action.yml, as
 * generate writes it), its length in *len; NULL when `path` is no local action's file.
 */
const char *wm_emit_github_local_name(const char *path, size_t *len);

/* ---- variant patches on the working tree (variant.c) ------------------------ */

/* Where generate writes backend `%s`'s patch, relative to the repository root (a printf format). */
#define WM_PATCH_PATH ".wheelmatrix/patches/%s.patch"

/*
 * Loads the matrix file at `path` as wm_matrix_load_file does, but reads
 * pyproject.toml as it is without any variant patch: when the working tree's
 * file is what one of .wheelmatrix/patches/ makes of it, that patch is undone
 * in memory first, and `*applied` (malloc'd, or NULL) names its backend.
 */
int wm_variant_load(struct wm_matrix **out, char **applied, const struct wm_catalog *cat, const char *path,
	struct wm_error *err);

enum wm_variant_done {
	WM_VARIANT_DONE,       /* applied or reverted (or, with WM_VARIANT_DRY_RUN, it would be) */
	WM_VARIANT_ALREADY,    /* the file already is as asked: nothing to do */
	WM_VARIANT_UNPATCHED,  /* the backend builds pyproject.toml as it is: it has no patch */
};

#define WM_VARIANT_REVERT 1u   /* undo the patch instead */
#define WM_VARIANT_DRY_RUN 2u  /* decide, write nothing */

/*
 * Applies (or reverts) backend `backend`'s patch, .wheelmatrix/patches/
 * <backend>.patch below `root`, to the working tree's pyproject.toml,
 * through libgit2, atomically.  Refuses with WM_ESTATE, changing nothing,
 * when the file is not the patch's preimage (its postimage, to revert),
 * compared as git stores it (line endings converted as core.autocrlf and
 * .gitattributes say).
 */
int wm_variant_patch(enum wm_variant_done *out, const struct wm_matrix *m, const char *root,
	const char *backend, unsigned flags, struct wm_error *err);

/*
 * Backend `backend`'s patch applied for the length of one build
 * (wm_variant_build_apply), then undone (wm_variant_build_revert).
 */
struct wm_variant_build {
	enum wm_variant_done done;  /* WM_VARIANT_DONE: applied here, to be reverted */
	char *root, *path;          /* pyproject.toml, below root */
	char *backend;
	char *before, *after;       /* its bytes before and after the patch */
	size_t beforelen, afterlen;
};

/*
 * Applies the patch as wm_variant_patch does, keeping the file's bytes from
 * before and after it.  A file that already has the patch applied, or a
 * backend with no patch, is left as it is and is not reverted later.
 */
int wm_variant_build_apply(struct wm_variant_build *vb, const struct wm_matrix *m, const char *root,
	const char *backend, struct wm_error *err);
/*
 * Puts back the bytes from before the patch, when the file is still byte for
 * byte what the patch made of it.  Refuses with WM_ESTATE, changing nothing,
 * when it changed meanwhile (an edit made during the build is not lost);
 * 0 when nothing was applied, or the file is already as it was.
 */
int wm_variant_build_revert(struct wm_variant_build *vb, struct wm_error *err);
void wm_variant_build_release(struct wm_variant_build *vb);

/* ---- git sources and hooks (repo.c) ------------------------------------------ */

/* Where `check` reads every file from (a reader of repo/repo.h). */
enum wm_source {
	WM_SOURCE_WORKTREE,  /* the working tree, as `git add` would store it */
	WM_SOURCE_INDEX,     /* the index: what is being committed */
	WM_SOURCE_REV,       /* the tree of a commit */
};

/* The hooks `hook install` writes: git runs pre-commit before `git commit`, pre-merge-commit before `git merge` commits. */
#define WM_HOOKS 2
extern const char *const wm_repo_hooks[WM_HOOKS];  /* "pre-commit", "pre-merge-commit" */
/*
 * Writes the repository's hooks of wm_repo_hooks, each of which runs
 * `wheelmatrix check --staged` on the project in `root` (its matrix file
 * `matrix`, relative to root), where git looks for hooks (core.hooksPath, or
 * the common hooks directory of linked worktrees).  Refuses (WM_ESTATE) to
 * replace a hook wheelmatrix did not write, unless `force`, and then writes
 * none.  paths[i] (malloc'd) names hook i; unchanged[i] says it was already there.
 */
int wm_repo_hook_install(char *paths[WM_HOOKS], bool unchanged[WM_HOOKS], const char *root, const char *matrix,
	bool force, struct wm_error *err);

/* ---- init ---------------------------------------------------------------- */

/*
 * init: a starting matrix file for the project, taken over from its CI and judged against its
 * newest release.  wm_init_read reads the project whose pyproject.toml is `pyproject` (through
 * `r`, with its Cargo.toml) and the repository's CI: its workflows read as GitHub runs them, the
 * wheels they build, the distributions they publish.  wm_takeover_fetch asks the index for the
 * project's newest release (unless o->offline); wm_takeover_judge writes the matrix, loads it and
 * matches each published wheel with its files; wm_init_render gives the file (malloc'd, the
 * caller's), wm_init_notes what init found in the CI, wm_takeover_report the summary, as text or
 * JSON (malloc'd).  `in` is freed with wm_init_free, also after a failure.
 */
struct wm_init;
int wm_init_read(struct wm_init **in, const struct wm_reader *r, const char *pyproject, struct wm_error *err);
int wm_init_render(char **out, size_t *len, struct wm_init *in, struct wm_error *err);
void wm_init_notes(const struct wm_init *in, struct wm_error *err);
void wm_init_free(struct wm_init *in);
/*
 * A note for each of the project's own workflows (read through `r`) that uploads a distribution
 * the matrix `m` uploads to PyPI with trusted publishing: PyPI's trusted publisher of those
 * projects names that workflow's file, so the generated CI's upload fails until it names the new
 * one (init, and the generate that first writes the CI, say so).  Only running out of memory fails.
 */
int wm_init_ci_publisher_moves(const struct wm_matrix *m, const struct wm_reader *r, struct wm_error *notes);

/*
 * The working tree below `root` as a reader (root is not copied): symbolic
 * links are followed while they stay below root and out of `.git`; one that
 * leads elsewhere is an error naming it, for a file and for a listed directory.
 */
void wm_io_tree_reader(struct wm_reader *r, const char *root);

/* ---- text ------------------------------------------------------------- */

/*
 * The length of the character at `s` (at most `avail` bytes, at least 1),
 * with *control true when a terminal must not get it as it is: a C0
 * control, DEL, a C1 control (U+0080 to U+009F: CSI, OSC), a format
 * character (Unicode's Cf: the bidi controls U+061C, U+200E, U+200F, U+202A
 * to U+202E, U+2066 to U+2069, and U+00AD, U+200B to U+200D, U+FEFF, ...),
 * U+2028, U+2029, or a byte that is not UTF-8 (a lone 0x9b is CSI to a
 * terminal).
 */
size_t wm_utf8_next(const char *s, size_t avail, bool *control);

/* ---- text shown to a person (show.c) ------------------------------------- */

/*
 * Every human-readable output (diagnostics, list's table, the messages of
 * check, generate and init, plan's report, a diff on a terminal) shows
 * what it quotes with each character wm_utf8_next calls a control escaped:
 * a character as <U+XXXX> (its code point in hexadecimal, four digits or
 * more), a byte that is not UTF-8 as <XX>.  Machine formats (JSON, list's
 * github lines, a diff into a pipe) stay exact.
 */
enum {
	WM_SHOW_TAB = 1,      /* a tab is shown as it is */
	WM_SHOW_NEWLINE = 2,  /* a line feed is shown as it is */
};
#define WM_SHOW_ESCAPE_SIZE 12  /* "<U+10FFFF>" and its NUL */
#define WM_SHOW_WINDOW 160      /* the columns a diagnostic quotes of its source line, at most */

/*
 * The next piece of s[0..len) as shown, for a writer that streams: returns
 * how many bytes of `s` it stands for (0 only when len is 0) and points
 * *piece at the *piecelen bytes to write: `s` itself (a run of characters
 * shown as they are, tabs and line feeds too when `keep` says so) or
 * `esc`, filled with one character's escape.  *width gets the columns the
 * piece takes (its characters).
 */
size_t wm_show_next(const char **piece, size_t *piecelen, size_t *width, char esc[WM_SHOW_ESCAPE_SIZE],
	const char *s, size_t len, unsigned keep);

/* ---- names ------------------------------------------------------------- */

/* PEP 503 normalisation into `out` (at least strlen(name)+1 bytes). */
void wm_name_normalize(char *out, const char *name);

/* ---- pin: the actions of the generated workflows pinned to commits -------- */

#define WM_PIN_FORGE "https://github.com"

enum wm_pin_move {
	WM_PIN_KEEP,     /* each action's tag stays: its commit is written */
	WM_PIN_UPDATE,   /* to the newest release tag of the tag's major version */
	WM_PIN_MAJOR,    /* to the newest release tag */
};

struct wm_pin_options {
	const char *forge;               /* NULL: WM_PIN_FORGE; <forge>/<owner>/<name>.git is asked */
	enum wm_pin_move move;
	unsigned jobs, retries;          /* as plan's */
	long timeout_ms, connect_timeout_ms;
	unsigned backoff_ms;
	size_t max_bytes;
	const char *cacert, *netrc;
};
/* The defaults: GitHub, the tags kept, plan's network defaults. */
void wm_pin_options_init(struct wm_pin_options *o);

/* An action a generated workflow uses, and what its forge says of it. */
struct wm_pin_action {
	const char *action;              /* owner/name */
	const char *ref;                 /* what `uses:` has now: the matrix's reference, else the catalogue's */
	const char *tag;                 /* the tag that stands for: ref, or a SHA's `# tag`; NULL when unknown */
	bool pinned;                     /* ref is a full commit SHA */
	bool in_table;                   /* the matrix's actions: names it */
	/* after wm_pin_resolve: */
	const char *new_tag, *new_sha;   /* the pin to write */
	const char *tag_sha;             /* the commit `tag` names now, NULL when it names none */
	const char *latest_major;        /* the newest release tag of tag's major version, or NULL */
	const char *latest;              /* the newest release tag, or NULL */
	const char *error;               /* why the forge could not say, or NULL */
	bool changes;                    /* the pin written differs from the file's */
	bool refs_read;                  /* the forge's refs were read: a tag without tag_sha is not there */
};

struct wm_pin {
	struct wm_arena *arena;
	const struct wm_matrix *matrix;
	const char *forge;               /* as messages show it */
	struct wm_pin_action *actions;   /* in the catalogue's order */
	size_t n;
};

/*
 * The actions the matrix's GitHub workflow uses (none without ci.github), read from the matrix; `m`
 * must outlive it.  With `m` NULL, every action of the catalogue at its reference.
 */
int wm_pin_new(struct wm_pin **out, const struct wm_matrix *m, const struct wm_catalog *cat, struct wm_error *err);
/*
 * Asks the forge for each action's tags and branches, concurrently, and sets
 * what to write.  Failures are set in their action, not returned; the return
 * value is 0, WM_EINVALID for a bad forge URL, WM_EREAD for an unreadable CA
 * file, WM_EIO when libcurl cannot be loaded, or WM_ENOMEM.
 */
int wm_pin_resolve(struct wm_pin *p, const struct wm_pin_options *o, struct wm_error *err);
/*
 * The matrix file's text with every resolved action's pin written into its
 * actions: table as `owner/name: <sha>  # <tag>` (malloc'd, the caller's):
 * each value and the comment after it replaced, each missing entry added at
 * the end of the table, a table added at the end of the file when there is
 * none; every other byte as it was.  A table in flow style is written again
 * in flow style, one entry a line (`{owner/name: <sha>,  # <tag>` ... `}`).
 * WM_EINVALID, with the position, where that cannot be done safely: a table
 * written with an alias or a merge key, a flow table with a comment other
 * than an entry's, a value over several lines.
 */
int wm_pin_edit(char **out, size_t *len, const struct wm_pin *p, struct wm_error *err);
/*
 * An exclusive lock on the matrix file at `path` for pin's edit, taken before
 * the file is read and held until wm_pin_unlock, so that two runs never
 * interleave: flock(2) on the file itself, found through a symbolic link
 * that stays inside the file's directory (one that leads out of it is refused,
 * as pin writes nothing outside the project).  WM_ESTATE when another process
 * holds it.
 */
struct wm_pin_lock;
int wm_pin_lock(struct wm_pin_lock **out, const char *path, struct wm_error *err);
void wm_pin_unlock(struct wm_pin_lock *l);
/*
 * Replaces the locked matrix file's text with `text` when it still holds the
 * text the matrix was read from (WM_ESTATE, nothing written, when it changed
 * while pin waited on the network), keeping the file the user has: a link's
 * target is written, its owner, group and mode kept; atomically by a rename,
 * or in place after a backup for a file of several hard links (util/io's
 * wm_io_replace_locked).
 */
int wm_pin_write(const struct wm_pin *p, const struct wm_pin_lock *lock, const char *text, size_t len,
	struct wm_error *err);
void wm_pin_free(struct wm_pin *p);

/* ---- plan: a release against a package index ------------------------------- */

#define WM_PLAN_INDEX "https://pypi.org/simple/"
#define WM_PLAN_FILE_LIMIT (100ull << 20)   /* PyPI's default upload limit per file */

enum wm_artifact_state {
	WM_ART_UNCHECKED,  /* --offline: the index was not asked */
	WM_ART_UNKNOWN,    /* the query for its distribution failed */
	WM_ART_MISSING,    /* not on the index: the release uploads it */
	WM_ART_PRESENT,    /* already on the index: its upload would be refused */
};

/* One file the release produces: a wheel of one job, or a distribution's sdist. */
struct wm_artifact {
	const char *filename;
	bool sdist;
	bool pure;                          /* the meta package's py3-none-any wheel */
	bool variants_json;                 /* strategy variants: the variant index's <name>-<version>-variants.json */
	const struct wm_platform *platform; /* a native wheel's; NULL otherwise */
	const struct wm_python *python;
	const char *job;                    /* the job id that builds it, NULL for an sdist or the meta wheel */
	enum wm_artifact_state state;
	const char *found;                  /* WM_ART_PRESENT: the index's file name when it differs */
};

/* A file an index lists for a project; size is -1 when the index does not say. */
struct wm_index_file {
	const char *filename;
	int64_t size;
	bool yanked;
};

/*
 * A wheel of the distribution's last release (the newest earlier version on the index) that
 * this release builds nothing in place of: no wheel of the same Python, ABI and platform (nor
 * an abi3 wheel that installs there).  Planned when a rule of the matrix's `dropped` matches it.
 */
struct wm_dropped {
	const char *filename;
	const struct wm_drop *planned;   /* the rule that records it as planned, or NULL */
};

enum wm_dist_state {
	WM_DIST_UNCHECKED,  /* --offline */
	WM_DIST_FAILED,     /* the query failed after its retries: `error` says why */
	WM_DIST_NEW,        /* no such project on the index */
	WM_DIST_READY,      /* the project exists and the version has no files yet */
	WM_DIST_PUBLISHED,  /* the version already has every planned file: nothing to upload */
	WM_DIST_PARTIAL,    /* the version has some files: only the missing ones can be uploaded */
};

struct wm_plan_dist {
	const char *name;                /* as the matrix spells it */
	const char *normalized;          /* PEP 503 */
	const struct wm_backend *backend;  /* NULL for the meta package */
	const char *url;                 /* the project page queried, without credentials */
	const char *version;             /* its files' version: the plan's, with the backend's local label */
	const char *own_index;           /* strategy index: the page on the backend's own index; strategy
	                                    variants: the page on the variant index; else NULL */
	const char *variant;             /* strategy variants: the label of its wheels on the variant index */
	struct wm_artifact *artifacts;
	size_t nartifacts;
	enum wm_dist_state state;
	const char *error;               /* WM_DIST_FAILED */
	const char *api;                 /* "json" (PEP 691) or "html" (PEP 503) once answered */
	unsigned attempts;               /* requests made, retries included */
	size_t nfiles;                   /* files the index lists for the project */
	const char **unexpected;         /* files of this version the release does not produce */
	size_t nunexpected;
	struct wm_index_file *large;     /* files of earlier versions near WM_PLAN_FILE_LIMIT */
	size_t nlarge;
	const char *previous;            /* the last release: the newest earlier version with files, or NULL */
	struct wm_dropped *dropped;      /* its wheels this release does not build */
	size_t ndropped;
};

struct wm_plan {
	struct wm_arena *arena;
	const struct wm_matrix *matrix;
	const char *version;             /* PEP 440, normalised */
	const char *index;               /* the index URL without credentials, its query as ?<redacted>; NULL offline */
	const char *query_base;          /* the index URL as given up to its query, credentials included: never shown */
	const char *query;               /* its query ("?token=..." or ""), after each project's path: never shown */
	bool offline;
	bool first_release;              /* every distribution may be new */
	bool strict;                     /* a wheel matches only with the same tags, levels and deployment targets (init's judgement) */
	struct wm_plan_dist *dists;      /* the meta package, then the backends in file order */
	size_t ndists;
};

struct wm_plan_options {
	const char *version;             /* NULL: the project's, converted to PEP 440 */
	const char *index;               /* NULL: WM_PLAN_INDEX */
	bool offline;
	bool first_release;              /* every distribution may be new: no index URL is suspected */
	unsigned jobs;                   /* requests at once */
	unsigned retries;                /* after the first attempt, on 429, 5xx and transient failures */
	long timeout_ms, connect_timeout_ms;
	unsigned backoff_ms;             /* the first retry's delay; doubled each time */
	size_t max_bytes;                /* the largest response accepted */
	const char *cacert;              /* CA bundle for https, NULL for the system's */
	const char *netrc;               /* netrc file, NULL for ~/.netrc */
	const char *username, *password; /* credentials for the index, or NULL */
	/* Called as requests finish (not from another thread); NULL for none. */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
};

/* The defaults: PyPI, 8 at once, 3 retries, 30 s per request, 10 s to connect, 32 MiB. */
void wm_plan_options_init(struct wm_plan_options *o);
/*
 * Lists the artifacts the release of `m` produces (every job's wheel, each
 * distribution's sdist, the meta package's under strategy meta) for the
 * version of `o`; invalid input (no version, a version PEP 440 cannot
 * write, a bad index URL) is reported in `err` as WM_EINVALID.  The plan
 * refers to `m`, which must outlive it.
 */
int wm_plan_new(struct wm_plan **out, const struct wm_matrix *m, const struct wm_plan_options *o,
	struct wm_error *err);
/*
 * Asks the index about every distribution, concurrently.  Failed queries are
 * recorded in their distribution, not returned; the return value is 0, or
 * an error for an unreadable CA file (WM_EREAD) or WM_ENOMEM.
 */
int wm_plan_query(struct wm_plan *p, const struct wm_plan_options *o, struct wm_error *err);

enum wm_plan_verdict {
	WM_PLAN_OK,          /* the release can go ahead */
	WM_PLAN_FAIL,        /* a version already published: an upload would fail */
	WM_PLAN_INCOMPLETE,  /* a query failed: the report lacks some distributions */
	WM_PLAN_PARTIAL,     /* a version partly published: only its missing files can be uploaded */
	WM_PLAN_NOT_FOUND,   /* no project on the index (every query 404): probably not its URL */
	WM_PLAN_DROPPED,     /* wheels of the last release dropped without a planned drop of the matrix */
};
enum wm_plan_verdict wm_plan_verdict(const struct wm_plan *p);
/* Counts of the artifacts in `state`. */
size_t wm_plan_count(const struct wm_plan *p, enum wm_artifact_state state);
/* Counts of the files of the planned version the release does not produce, and of the dropped wheels (planned ones only, or all). */
size_t wm_plan_count_unexpected(const struct wm_plan *p);
size_t wm_plan_count_dropped(const struct wm_plan *p, bool planned);
/* One sentence on a distribution's state, for reports. */
const char *wm_plan_dist_summary(const struct wm_plan *p, const struct wm_plan_dist *d);

enum wm_plan_format { WM_PLAN_TABLE, WM_PLAN_JSON, WM_PLAN_MARKDOWN, WM_PLAN_HTML };
/* The report as text (malloc'd, the caller's). */
int wm_report_render(char **out, size_t *len, const struct wm_plan *p, enum wm_plan_format format);
void wm_plan_free(struct wm_plan *p);

/*
 * The umbrella: what cmd/ sees, the headers of the modules whose declarations are not above,
 * for cmd/ includes this header first.  A module of the library reaches this header through
 * util/common.h, which defines WM_LIBRARY_MODULE, and so sees only the module headers it
 * includes itself, each of its own floor or below (tests/t-layers.sh).
 */
#ifndef WM_LIBRARY_MODULE
#include "emit/file.h"
#include "emit/jobs.h"
#include "init/find.h"
#include "repo/check.h"
#include "repo/tracked.h"
#include "index/outdated.h"
#include "index/takeover.h"
#endif

#endif
