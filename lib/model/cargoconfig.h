/* cargoconfig.h — the repository's Cargo configuration against the targets the matrix builds (cargoconfig.c). */
#ifndef WM_MODEL_CARGOCONFIG_H
#define WM_MODEL_CARGOCONFIG_H

#include "util/common.h"

struct wm_loader;

/*
 * Warns, at its position in the file, at each `target-cpu=native` that reaches the rustc flags of a
 * target the matrix builds: in `.cargo/config.toml` (or `.cargo/config`) of pyproject.toml's
 * directory and each directory above it in the repository, as Cargo reads them when maturin runs
 * there (`build.rustflags`, `target.<triple>.rustflags`, `target.'cfg(...)'.rustflags`), and in the
 * jobs' environment (RUSTFLAGS, CARGO_ENCODED_RUSTFLAGS, CARGO_BUILD_RUSTFLAGS,
 * CARGO_TARGET_<TRIPLE>_RUSTFLAGS), each taken where Cargo takes it.  After the build settings are
 * merged (settings.c).
 */
void wm_cargoconfig_check(struct wm_loader *l);

/* Whether cfg predicate `cfg` (`cfg(target_os = "linux")`) may hold for Rust target `triple`. */
bool wm_cargoconfig_cfg_matches(const char *cfg, const char *triple);

#endif
