/*
 * settings.h — build settings: what the matrix says about how a wheel is compiled, on a platform,
 * for a backend, for a backend on some platforms, for one included job; and each job's merge of
 * them (settings.c).
 */
#ifndef WM_MODEL_SETTINGS_H
#define WM_MODEL_SETTINGS_H

#include "util/common.h"
#include "formats/yaml.h"

struct wm_loader;

/*
 * What one place of the file says (a layer): a platform's entry, a backend, one of a backend's
 * `per-platform` entries, an include.  Unset scalars are -1 or NULL; lists are empty.
 */
struct wm_settings {
	const char *what;                   /* "platform 'linux-x86_64'", for messages */
	struct wm_loc loc;                  /* the mapping */
	struct wm_strlist features;
	const struct wm_loc *feature_locs;
	int no_default_features;
	const char *profile;
	const char *rust_toolchain;
	struct wm_loc toolchain_loc;
	struct wm_strlist rustup_components;
	struct wm_strlist unstable_flags;
	struct wm_loc unstable_loc;
	int zig;
	struct wm_loc zig_loc;
	struct wm_strlist docker_options;
	struct wm_loc docker_loc;
	const struct wm_env *env;
	size_t nenv;
	/* set while the jobs' settings are merged: */
	bool on_linux;                      /* some job it applies to is a Linux one */
	bool reported;                      /* an error across layers was reported at it */
};

/* A backend's `per-platform` entry: a platform pattern and the settings of the backend there. */
struct wm_per_platform {
	const char *pattern;
	struct wm_loc loc;
	const struct wm_settings *settings;
	struct wm_runs_on runs_on;          /* the backend's runner and tags there */
};

/*
 * The build-setting keys, in the documentation's order: every place takes them (a platform's
 * entry and an include beside their overrides, a backend beside its own keys, a per-platform
 * entry alone).  `features` and `env` are a backend's and an include's own keys already.
 */
extern const struct wm_names wm_settings_keys;
bool wm_settings_is_key(const char *key);

/* Where a layer is written, for what it may say: a per-platform entry or a platform has no `container` of its own here. */
enum wm_settings_place { WM_SETTINGS_PLATFORM, WM_SETTINGS_BACKEND, WM_SETTINGS_PER_PLATFORM, WM_SETTINGS_INCLUDE };

/*
 * Loads the build-setting keys of mapping `n` (whose keys the caller checked) into a new layer
 * named `what`, in the loader's arena; `features` and `env` the caller loaded itself (a backend's,
 * an include's env) are given, or NULL to read them here.  Every value is checked as it is read.
 * NULL when `n` says nothing (or out of memory, recorded).
 */
struct wm_settings *wm_settings_load(struct wm_loader *l, const struct wm_node *n, enum wm_settings_place place,
	const char *what, const struct wm_strlist *features, const struct wm_loc *feature_locs,
	const struct wm_env *env, size_t nenv);
/*
 * A `features:` list (a backend's, or of any place of the build settings) into *out, each
 * feature's position in *locs: Cargo's grammar, each once, and each a feature of the crate when
 * the project was read.
 */
void wm_settings_load_features(struct wm_loader *l, const struct wm_node *n, struct wm_strlist *out,
	const struct wm_loc **locs);
/*
 * Merges the layers of every (backend, platform) the backend builds on, and of every include, into
 * m->builds and each include's `build`; reports what holds only across layers: features a toolkit
 * limits to other platforms, Linux-only settings where no Linux job takes them, a profile Cargo.toml
 * lacks, unstable flags on a toolchain that is not nightly, words that cannot go on maturin's
 * command line.  After the backends, the includes and the toolkit checks.
 */
void wm_settings_merge(struct wm_loader *l);

#endif
