/*
 * matrix.c — the wheels of the workflows init replaces and of the release, as the matrix
 * that builds them, and what it cannot.
 *
 * Each wheel build the workflow reader found (workflow/builds.c) is mapped to the matrix through
 * tables: maturin-action's short targets and the runner's architecture to a platform of the
 * catalogue, `manylinux` and --compatibility to its level, -i, --find-interpreter and the
 * interpreter setup-python put on the PATH to Python entries (CPython, PyPy, GraalPy), and every
 * setting that changes what is compiled (the `settings` table) to the matrix key that carries it,
 * at its layer (the default backend, or a platform's entry), or, where the matrix has none or
 * the value is not known before the job runs, to a drop that names it.  When the index was asked, the release decides
 * which wheels are built (a wheel's tags are the truth) and the workflows only how.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "formats/toml.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/platforms.h"
#include "model/project.h"
#include "model/python.h"
#include "model/expand.h"
#include "model/untrusted.h"
#include "init/matrix.h"

/*
 * maturin-action's short targets, per platform family: PyO3/maturin-action@v1.51.0 src/index.ts,
 * TARGET_ALIASES.  A full triple is taken as it is.
 */
static const struct alias {
	const char *family, *name, *triple;
} aliases[] = {
	{ "macosx", "x64", "x86_64-apple-darwin" },
	{ "macosx", "x86_64", "x86_64-apple-darwin" },
	{ "macosx", "aarch64", "aarch64-apple-darwin" },
	{ "macosx", "arm64", "aarch64-apple-darwin" },
	{ "macosx", "universal2", "universal2-apple-darwin" },
	{ "manylinux", "x64", "x86_64-unknown-linux-gnu" },
	{ "manylinux", "x86_64", "x86_64-unknown-linux-gnu" },
	{ "manylinux", "i686", "i686-unknown-linux-gnu" },
	{ "manylinux", "x86", "i686-unknown-linux-gnu" },
	{ "manylinux", "aarch64", "aarch64-unknown-linux-gnu" },
	{ "manylinux", "armv7", "armv7-unknown-linux-gnueabihf" },
	{ "manylinux", "armv7l", "armv7-unknown-linux-gnueabihf" },
	{ "manylinux", "ppc64le", "powerpc64le-unknown-linux-gnu" },
	{ "manylinux", "ppc64", "powerpc64-unknown-linux-gnu" },
	{ "manylinux", "s390x", "s390x-unknown-linux-gnu" },
	{ "manylinux", "riscv64", "riscv64gc-unknown-linux-gnu" },
	{ "musllinux", "x64", "x86_64-unknown-linux-musl" },
	{ "musllinux", "x86_64", "x86_64-unknown-linux-musl" },
	{ "musllinux", "i686", "i686-unknown-linux-musl" },
	{ "musllinux", "x86", "i686-unknown-linux-musl" },
	{ "musllinux", "aarch64", "aarch64-unknown-linux-musl" },
	{ "musllinux", "armv7", "armv7-unknown-linux-musleabihf" },
	{ "musllinux", "armv7l", "armv7-unknown-linux-musleabihf" },
	{ "musllinux", "ppc64le", "powerpc64le-unknown-linux-musl" },
	{ "musllinux", "riscv64", "riscv64gc-unknown-linux-musl" },
	{ "win", "x64", "x86_64-pc-windows-msvc" },
	{ "win", "x86_64", "x86_64-pc-windows-msvc" },
	{ "win", "i686", "i686-pc-windows-msvc" },
	{ "win", "x86", "i686-pc-windows-msvc" },
	{ "win", "aarch64", "aarch64-pc-windows-msvc" },
	{ "win", "arm64", "aarch64-pc-windows-msvc" },
};

/*
 * Environment variables that change what is compiled (the compiler's and linker's flags, the
 * toolchain, a -sys crate's build, the macOS deployment target, PyO3's interpreter): a build that
 * sets one builds another wheel than the matrix does.  A prefix ends with '_' or '*'.
 */
static const char *const compiling_env[] = {
	"RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "RUSTC", "CARGO_BUILD_*", "CARGO_PROFILE_*", "CARGO_TARGET_*",
	"CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "AR", "MACOSX_DEPLOYMENT_TARGET", "PYO3_*",
	"JEMALLOC_*", "OPENSSL_*", "*_SYS_*",
};

/* A word fit to be quoted in a note and in a comment of the matrix file: nothing a terminal or YAML reads. */
static bool plain_word(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++, n++)
		if (!isalnum((unsigned char)*s) && !strchr("._-+/:=,", *s))
			return false;
	return n > 0 && n <= 64;
}

static const char *shown(const char *s)
{
	return plain_word(s) ? s : "(a value not shown)";
}

/* A longer value of the workflows (a script's environment, docker's options): shown when a comment can hold it. */
static const char *shown_text(const char *s)
{
	return s && strlen(s) <= 120 && wm_yaml_comment_ok(s) ? s : "(a value not shown)";
}

static void drop(struct wm_takeover *t, const char *file, const char *what)
{
	for (size_t i = 0; i < t->ndrops; i++)
		if (what && strcmp(t->drops[i].what, what) == 0 && (t->drops[i].file == NULL) == (file == NULL) &&
				(!file || !strcmp(t->drops[i].file, file)))
			return;
	if (t->ndrops == WM_TAKEOVER_MAX) {
		t->more_drops = true;
		return;
	}
	if (what) {
		t->drops[t->ndrops].file = file ? wm_arena_strdup(t->arena, file) : NULL;
		t->drops[t->ndrops++].what = what;
	}
}

/* ---- the settings that change what is compiled -------------------------------------------- */

struct reading {
	struct wm_takeover *t;
	struct wm_workflows *w;
	struct wm_takeover_build *tb;
	const struct wm_wf_build *b;
	const char *file;
};

static const char *strs_text(struct wm_arena *a, const struct wm_strs *s, const char *sep)
{
	struct wm_buf b = WM_BUF_INIT;
	char *out;
	for (size_t i = 0; i < s->n; i++)
		wm_buf_printf(&b, "%s%s", i ? sep : "", s->items[i]);
	out = b.oom || !b.len ? NULL : wm_arena_strndup(a, b.ptr, b.len);
	wm_buf_release(&b);
	return out;
}

static const char *features_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	return strs_text(a, &b->args.features, ",");
}

static const char *flag_no_default(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->args.no_default_features ? "--no-default-features" : NULL;
}

static const char *flag_all(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->args.all_features ? "--all-features" : NULL;
}

static const char *profile_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->args.profile && strcmp(b->args.profile, "release") != 0 ? b->args.profile : NULL;
}

static const char *flag_zig(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->args.zig ? "--zig" : NULL;
}

static const char *flag_pgo(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->args.pgo ? "--pgo" : NULL;
}

/*
 * A build for Pyodide (target wasm32-unknown-emscripten): its interpreter and Rust toolchain are the
 * Pyodide release's, which maturin's recipe (`maturin generate-ci github --platform emscripten`,
 * maturin 1.16) reads when the job runs (`pyodide config get python_version`, `rust_toolchain`),
 * as the matrix's pyodide-wasm32 takes them from the catalogue's release.
 */
static bool pyodide_build(const struct wm_wf_build *b)
{
	const char *t = b->target ? b->target : b->args.target;
	return t && strstr(t, "-emscripten") != NULL;
}

static const char *toolchain_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	if (b->settings_unknown && strstr(b->settings_unknown, "rust-toolchain"))
		return pyodide_build(b) ? NULL : "(not known before the job runs)";
	return b->toolchain && strcmp(b->toolchain, "stable") != 0 ? b->toolchain : NULL;
}

static const char *host_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	if (b->kind == WM_BUILD_ACTION && b->container && !strcmp(b->container, "off"))
		return "container: off";
	return NULL;
}

/* docker-options other than `-e NAME` passing a variable through (`-e CI`). */
static const char *docker_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	const char *s = b->docker_options;
	(void)a;
	if (b->settings_unknown && strstr(b->settings_unknown, "docker-options"))
		return "options not known before the job runs";
	while (s && *s) {
		size_t n;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		n = strcspn(s, " \t\n");
		if (n != 2 || strncmp(s, "-e", 2) != 0)
			return b->docker_options;
		s += n;
		while (isspace((unsigned char)*s))
			s++;
		n = strcspn(s, " \t\n");
		if (!n || memchr(s, '=', n))
			return b->docker_options;
		s += n;
	}
	return NULL;
}

static const char *compiler_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	return strs_text(a, &b->args.compiler, " ");
}

static bool compiling(const char *name, size_t n)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(compiling_env); i++) {
		const char *e = compiling_env[i];
		size_t k = strlen(e);
		if (e[0] == '*') {
			char inner[32];
			snprintf(inner, sizeof(inner), "%.*s", (int)(k - 2), e + 1);
			for (size_t j = 0; j + strlen(inner) <= n; j++)
				if (!strncmp(name + j, inner, strlen(inner)))
					return true;
		} else if (e[k - 1] == '*') {
			if (n >= k - 1 && !strncmp(name, e, k - 1))
				return true;
		} else if (n == k && !strncmp(name, e, n)) {
			return true;
		}
	}
	return false;
}

#define DEPLOYMENT "MACOSX_DEPLOYMENT_TARGET"

static const char *target_of(const struct wm_wf_build *b);
static int os_of(const struct wm_wf_build *b, const char *target);

/* A macOS build's MACOSX_DEPLOYMENT_TARGET, which the platform's deployment-target carries. */
static const char *deployment_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	if (os_of(b, target_of(b)) != WM_OS_MACOS)
		return NULL;
	for (size_t i = 0; i < b->nenv_unknown; i++)
		if (!strcmp(b->env_unknown[i], DEPLOYMENT))
			return "(not known before the job runs)";
	for (size_t i = 0; i < b->nenv; i++)
		if (!strncmp(b->env[i], DEPLOYMENT "=", sizeof(DEPLOYMENT)))
			return b->env[i] + sizeof(DEPLOYMENT);
	return NULL;
}

/*
 * The same variables as the matrix's `env` carries them: NAME=value a line each; a variable whose
 * value is not known makes the whole unknown (NAME and why), which no layer takes.
 */
static const char *env_lines(struct wm_arena *a, const struct wm_wf_build *b)
{
	struct wm_buf out = WM_BUF_INIT;
	char *s;
	for (size_t i = 0; i < b->nenv_unknown; i++)
		if (compiling(b->env_unknown[i], strlen(b->env_unknown[i])))
			return wm_arena_printf(a, "%s (not known before the job runs)", b->env_unknown[i]);
	for (size_t i = 0; i < b->nenv; i++) {
		size_t n = strcspn(b->env[i], "=");
		if (compiling(b->env[i], n) && strncmp(b->env[i], DEPLOYMENT "=", sizeof(DEPLOYMENT)) != 0)
			wm_buf_printf(&out, "%s%s", out.len ? "\n" : "", b->env[i]);
	}
	s = out.oom || !out.len ? NULL : wm_arena_strndup(a, out.ptr, out.len);
	wm_buf_release(&out);
	return s;
}

static const char *job_container_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->kind != WM_BUILD_ACTION && b->run->container ? b->run->container : NULL;
}

static const char *before_value(struct wm_arena *a, const struct wm_wf_build *b)
{
	(void)a;
	return b->before_script;
}

/* How the matrix carries a setting: not at all, as the default backend's before-script-linux, or in a layer's settings. */
enum carry { C_NONE, C_BEFORE, C_LIST, C_BOOL, C_WORD, C_WORDS, C_ENV };

/*
 * What changes the compiled code, and the matrix key that carries it (docs/matrix.md, "Build
 * settings"): a value every build shares goes to the default backend, one the builds of a platform
 * share to that platform's entry (wm_init_matrix_carry); `key` NULL: the matrix cannot express it,
 * and a build that sets one makes wheels the matrix does not.  A row per setting, so that each the
 * matrix learns to carry is one row.
 */
static const struct setting {
	const char *name;
	const char *(*value)(struct wm_arena *a, const struct wm_wf_build *b);
	const char *key;            /* the matrix key, or NULL: the matrix cannot express it */
	enum carry carry;
	int os;                     /* -1; else a platform's alone, and only on that OS (the loader refuses it elsewhere) */
} settings[] = {
	{ "--features", features_value, "features", C_LIST, -1 },
	{ "before-script-linux", before_value, "before-script-linux", C_BEFORE, -1 },
	{ "--no-default-features", flag_no_default, "no-default-features", C_BOOL, -1 },
	{ "--all-features", flag_all, NULL, C_NONE, -1 },
	{ "--profile", profile_value, "profile", C_WORD, -1 },
	{ "--zig", flag_zig, "zig", C_BOOL, WM_OS_LINUX },
	{ "--pgo", flag_pgo, NULL, C_NONE, -1 },
	{ "rust-toolchain", toolchain_value, "rust-toolchain", C_WORD, -1 },
	{ "maturin-action's container", host_value, NULL, C_NONE, -1 },
	{ "docker-options", docker_value, "docker-options", C_WORDS, WM_OS_LINUX },
	{ "flags for the compiler", compiler_value, NULL, C_NONE, -1 },
	{ "the environment", env_lines, "env", C_ENV, -1 },
	{ DEPLOYMENT, deployment_value, "deployment-target", C_WORD, WM_OS_MACOS },
	{ "the job's container", job_container_value, NULL, C_NONE, -1 },
};
_Static_assert(WM_ARRAY_SIZE(settings) <= WM_TAKEOVER_SETTINGS, "a layer holds every setting");

/* A value as a note shows it: an environment's lines on one line. */
static const char *note_value(struct wm_arena *a, const char *v)
{
	char *s = v ? wm_arena_strdup(a, v) : NULL;
	for (char *c = s; c && *c; c++)
		if (*c == '\n')
			*c = ' ';
	return shown_text(s ? s : v);
}

/* The build's settings the matrix cannot carry: its note (all its wheels), and a drop each. */
static void read_settings(struct reading *r)
{
	struct wm_takeover *t = r->t;
	for (size_t i = 0; i < WM_ARRAY_SIZE(settings); i++) {
		const char *v = settings[i].value(t->arena, r->b), *what;
		if (!v || (settings[i].key && !r->tb->backend) || settings[i].carry == C_LIST || settings[i].carry == C_BEFORE)
			continue;
		if (settings[i].key) {
			/* another backend's workflow: its entry is not written, its settings not carried */
			drop(t, r->file, wm_arena_printf(t->arena, "the wheels of job %s built with %s %s: init carries build "
				"settings for the default backend's builds only", shown(r->b->run->job), settings[i].name,
				note_value(t->arena, v)));
			if (!r->tb->note)
				r->tb->note = wm_arena_printf(t->arena, "built with %s %s (%s:%u), which init carries for the default "
					"backend's builds only", settings[i].name, note_value(t->arena, v), r->b->file, r->b->line);
			continue;
		}
		what = wm_arena_printf(t->arena, "the wheels of job %s built with %s %s: the matrix cannot express it",
			shown(r->b->run->job), settings[i].name, shown_text(v));
		if (!r->tb->note)
			r->tb->note = wm_arena_printf(t->arena, "built with %s %s (%s:%u), which the matrix cannot express",
				settings[i].name, shown_text(v), r->b->file, r->b->line);
		drop(t, r->file, what);
	}
}

/* ---- platforms --------------------------------------------------------------------------- */

static const struct wm_platform *platform_of(const struct wm_catalog *cat, const char *family, const char *target)
{
	const char *triple = target;
	if (!strchr(target, '-')) {
		triple = NULL;
		for (size_t i = 0; i < WM_ARRAY_SIZE(aliases) && !triple; i++)
			if (!strcmp(aliases[i].family, family) && !strcmp(aliases[i].name, target))
				triple = aliases[i].triple;
		if (!triple)
			return NULL;
	}
	for (size_t i = 0; i < wm_catalog_platform_count(cat); i++) {
		const struct wm_platform *p = wm_catalog_platform_at(cat, i);
		if (!strcmp(p->target, triple))
			return p;
	}
	return NULL;
}

/* Levels 2014 and 2_17 are one (PEP 600), as are 2010 and 2_12, 1 and 2_5. */
static const char *pep600(const char *level)
{
	return !strcmp(level, "2014") ? "2_17" : !strcmp(level, "2010") ? "2_12" : !strcmp(level, "1") ? "2_5" : level;
}

static bool same_level(const char *a, const char *b)
{
	return !strcmp(pep600(a), pep600(b));
}

/*
 * The target of a build: maturin-action's `target`, else --target, else the runner's own
 * architecture (maturin-action on Linux: its DEFAULT_TARGET of the runner); `universal2` for
 * --universal2.
 */
static const char *target_of(const struct wm_wf_build *b)
{
	if (b->args.universal2)
		return "universal2";
	if (b->target)
		return b->target;
	if (b->args.target)
		return b->args.target;
	return b->run->arch;
}

/* The OS of a build: its runner's, else its target triple's. */
static int os_of(const struct wm_wf_build *b, const char *target)
{
	if (b->run->os >= 0)
		return b->run->os;
	if (target && strstr(target, "windows"))
		return WM_OS_WINDOWS;
	if (target && (strstr(target, "darwin") || !strcmp(target, "universal2")))
		return WM_OS_MACOS;
	if (target && strstr(target, "linux"))
		return WM_OS_LINUX;
	if (target && strstr(target, "-emscripten"))
		return WM_OS_EMSCRIPTEN;
	return -1;
}

/*
 * maturin-action's `manylinux` (or --compatibility) as a level: `auto` is the manylinux2014 image
 * of each target of the catalogue (PyO3/maturin-action@v1.51.0 src/index.ts, DEFAULT_CONTAINERS),
 * where maturin tags the wheel 2_17; a musllinux level is 1_1 or 1_2; none (a build on the
 * runner, off a container) leaves the level to the runner's glibc: NULL, *host set.  A build
 * maturin-action cross-compiles on an x86_64 runner (a target other than x86_64 and i686) is
 * `auto` when not given (innerMain).
 */
static const char *level_of(const struct wm_wf_build *b, const char *triple, bool *musl, bool *host)
{
	const char *m = b->manylinux;
	*host = false;
	if (b->args.compatibility.n)
		m = b->args.compatibility.items[0];
	if (!m && b->kind == WM_BUILD_ACTION && (b->container && strcmp(b->container, "off") != 0))
		m = "auto";
	if (!m && b->kind == WM_BUILD_ACTION && b->run->arch && !strcmp(b->run->arch, "x86_64") && triple &&
			strstr(triple, "linux") && !strstr(triple, "x86_64") && !strstr(triple, "i686"))
		m = "auto";
	if (!m && b->args.zig)
		m = "2014";
	if (m && !strncmp(m, "manylinux", 9))
		m += m[9] == '_' ? 10 : 9;
	if (!m || !*m || !strcmp(m, "off") || !strcmp(m, "false")) {
		*host = true;
		return NULL;
	}
	if (!strncmp(m, "musllinux_", 10)) {
		*musl = true;
		return m + 10;
	}
	if (!strcmp(m, "auto") || !strcmp(m, "true"))
		return *musl ? "1_2" : "2014";
	return m;
}

/* ---- Python entries --------------------------------------------------------------------- */

enum interp { I_NONE, I_CPYTHON, I_PYPY, I_GRAALPY, I_PATH };

/* An interpreter word of -i: 3.12, python3.12, 3.14t, pypy3.11, graalpy3.11, a path to one; `python` the PATH's. */
static enum interp interpreter(const char *word, unsigned *minor, bool *ft)
{
	const char *s = strrchr(word, '/') ? strrchr(word, '/') + 1 : word;
	enum interp kind = I_CPYTHON;
	char *end;
	unsigned long m;
	if (strrchr(s, '\\'))
		s = strrchr(s, '\\') + 1;
	if (!strcasecmp(s, "python") || !strcasecmp(s, "python3") || !strcasecmp(s, "python.exe") ||
			!strcasecmp(s, "python3.exe") || !*s)
		return I_PATH;
	if (!strncmp(s, "python", 6))
		s += 6;
	else if (!strncmp(s, "pypy", 4))
		s += 4, kind = I_PYPY;
	else if (!strncmp(s, "graalpy", 7))
		s += 7, kind = I_GRAALPY;
	if (strncmp(s, "3.", 2) != 0 || !isdigit((unsigned char)s[2]))
		return I_NONE;
	m = strtoul(s + 2, &end, 10);
	*ft = *end == 't';
	if (*ft)
		end++;
	if ((*end && strcasecmp(end, ".exe") != 0) || m > 31 || (kind != I_CPYTHON && *ft))
		return I_NONE;
	*minor = (unsigned)m;
	return kind;
}

static void add_word(struct reading *r, const char *word, bool from_path);

/* The interpreter on the PATH: the last python-version setup-python or setup-uv gave before. */
static void add_path_interpreter(struct reading *r)
{
	const struct wm_wf_build *b = r->b;
	if (b->pythons.n) {
		add_word(r, b->pythons.items[b->pythons.n - 1], true);
		return;
	}
	/* a Pyodide build's: the release's CPython, which its cross-build environment runs */
	if (r->tb->p && r->tb->p->os == WM_OS_EMSCRIPTEN && r->tb->p->pyodide_minor) {
		r->tb->cpython[0] |= 1u << r->tb->p->pyodide_minor;
		return;
	}
	/* an abi3 crate's wheel is the same whichever CPython builds it */
	if (r->t->project && r->t->project->abi3) {
		r->tb->abi3 = true;
		return;
	}
	drop(r->t, r->file, wm_arena_printf(r->t->arena, "the wheels of job %s: the interpreter on its runner's PATH, "
		"which %s", shown(b->run->job), b->pythons_unknown ? b->pythons_unknown :
		"the workflow does not name (no setup-python before it)"));
	if (!r->tb->note)
		r->tb->note = "built for an interpreter the workflow does not name";
}

static void add_word(struct reading *r, const char *word, bool from_path)
{
	struct wm_takeover_build *tb = r->tb;
	unsigned minor = 0;
	bool ft = false;
	switch (interpreter(word, &minor, &ft)) {
	case I_PATH:
		if (!from_path)
			add_path_interpreter(r);
		return;
	case I_CPYTHON:
		tb->cpython[ft] |= 1u << minor;
		return;
	case I_PYPY:
		tb->pypy |= 1u << minor;
		return;
	case I_GRAALPY:
		/* where the matrix cannot build it, pythons_written names it */
		tb->graalpy |= 1u << minor;
		return;
	default:
		drop(r->t, r->file, wm_arena_printf(r->t->arena, "the interpreter %s (job %s): not a CPython or PyPy version "
			"the matrix can name", shown(word), shown(r->b->run->job)));
		tb->note = tb->note ? tb->note : "built for an interpreter the matrix cannot name";
	}
}

/* The PyO3 series the crate builds with, as the loader reads it (Cargo.lock, else one series). */
static const struct wm_pyo3 *crate_pyo3(const struct wm_takeover *t)
{
	const struct wm_project *p = t->project;
	const char *s = p ? (p->pyo3_locked ? p->pyo3_locked : p->pyo3_req) : NULL;
	unsigned long major, minor;
	char *end;
	if (!s || (p->pyo3_source && !p->pyo3_locked))
		return NULL;
	while (*s == '^' || *s == '~' || *s == '=' || *s == ' ')
		s++;
	major = strtoul(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return NULL;
	minor = strtoul(end + 1, &end, 10);
	return major == 0 ? wm_catalog_pyo3(t->cat, (unsigned)major, (unsigned)minor) : NULL;
}

/* The CPythons --find-interpreter finds: requires-python's minimum (3.8 at the lowest) to the newest the crate's PyO3 builds. */
static unsigned found_cpythons(const struct wm_takeover *t)
{
	const struct wm_pyo3 *pyo3 = crate_pyo3(t);
	unsigned lo = WM_PYTHON_MIN, hi = pyo3 ? pyo3->py_max : 14, out = 0;
	if (pyo3 && pyo3->py_min > lo)
		lo = pyo3->py_min;
	if (t->project && t->project->min_minor > lo)
		lo = t->project->min_minor;
	for (unsigned m = lo; m <= hi; m++)
		out |= 1u << m;
	return out;
}

/*
 * --find-interpreter on Linux builds for PyPy too.  A native build runs in the pypa manylinux
 * image of the runner's architecture (i686's on x86_64: maturin-action's DEFAULT_CONTAINERS), and
 * the x86_64 and aarch64 images carry pypy3.11, the i686 one none (pypa/manylinux
 * docker/build_scripts/finalize-one.sh); a cross build (the other targets, and every musllinux
 * one, in rust-cross images without Python) takes maturin's own sysconfig data, PyPy 3.8 to 3.12
 * (`maturin list-python --target ...`, maturin 1.16).  On macOS and Windows it finds the
 * interpreters on the runner's PATH, where no PyPy is.
 */
static unsigned found_pypys(const struct wm_wf_build *b, const struct wm_platform *p)
{
	const char *host = b->run->arch ? b->run->arch : "x86_64";
	bool native;
	if (p->os != WM_OS_LINUX)
		return 0;
	native = !strcmp(p->family, "manylinux") && (!strcmp(p->arch, host) || (!strcmp(p->arch, "i686") &&
		!strcmp(host, "x86_64")));
	return !native ? 0x1fu << 8 : strcmp(p->arch, "i686") != 0 ? 1u << 11 : 0;
}

static void read_pythons(struct reading *r)
{
	struct wm_takeover_build *tb = r->tb;
	const struct wm_wf_build *b = r->b;
	if (b->args.find_interpreter) {
		tb->cpython[0] |= found_cpythons(r->t);
		tb->pypy |= tb->p ? found_pypys(b, tb->p) : 0;
	}
	for (size_t i = 0; i < b->args.interpreters.n; i++)
		add_word(r, b->args.interpreters.items[i], false);
	if (b->interpreters_unknown && tb->p && tb->p->os == WM_OS_EMSCRIPTEN && tb->p->pyodide_minor)
		tb->cpython[0] |= 1u << tb->p->pyodide_minor;  /* -i ${{ env.PYTHON_VERSION }}: pyodide config's */
	else if ((b->args.interpreter && !b->args.interpreters.n) || (!b->args.interpreter && !b->args.find_interpreter))
		add_path_interpreter(r);
	/* an abi3 crate's CPython wheels are its one abi3 wheel; free-threaded and PyPy stay apart */
	if (r->t->project && r->t->project->abi3 && tb->cpython[0]) {
		tb->cpython[0] = 0;
		tb->abi3 = true;
	}
}

/* ---- one build --------------------------------------------------------------------------- */

static struct wm_takeover_platform *platform_entry(struct wm_takeover *t, const struct wm_platform *p)
{
	for (size_t i = 0; i < t->nplatforms; i++)
		if (t->platforms[i].p == p)
			return &t->platforms[i];
	if (t->nplatforms == WM_TAKEOVER_MAX)
		return NULL;
	memset(&t->platforms[t->nplatforms], 0, sizeof(t->platforms[0]));
	t->platforms[t->nplatforms].p = p;
	return &t->platforms[t->nplatforms++];
}

/* The platform a build makes wheels for, with its level; NULL (and a drop) when the matrix has none. */
static const struct wm_platform *read_platform(struct reading *r)
{
	const struct wm_wf_build *b = r->b;
	const char *target = target_of(b), *family, *level = NULL;
	bool musl = false, host = false;
	int os = os_of(b, target);
	const struct wm_platform *p;
	if (os < 0 || !target) {
		drop(r->t, r->file, wm_arena_printf(r->t->arena, "the wheels of job %s: its runner (runs-on) does not say "
			"its OS and architecture", shown(b->run->job)));
		r->tb->note = "built on a runner whose OS the workflow does not say";
		return NULL;
	}
	musl = os == WM_OS_LINUX && ((b->manylinux && !strncmp(b->manylinux, "musllinux", 9)) || strstr(target, "musl"));
	family = os == WM_OS_LINUX ? (musl ? "musllinux" : "manylinux") : os == WM_OS_MACOS ? "macosx" :
		os == WM_OS_EMSCRIPTEN ? "pyemscripten" : "win";
	p = platform_of(r->t->cat, family, target);
	if (p && os == WM_OS_LINUX && p->os == WM_OS_LINUX)
		level = level_of(b, p->target, &musl, &host);
	/* Pyodide's wheels are cross-built on a Linux or macOS runner */
	if (!p || ((int)p->os != os && !(p->os == WM_OS_EMSCRIPTEN && os != WM_OS_WINDOWS))) {
		drop(r->t, r->file, wm_arena_printf(r->t->arena, "target %s on %s (job %s): no platform of the catalogue "
			"builds it", shown(target), family, shown(b->run->job)));
		r->tb->note = wm_arena_printf(r->t->arena, "built for target %s, which no platform of the matrix builds",
			shown(target));
		return NULL;
	}
	r->tb->partial |= host;
	if (host && !r->tb->partial_why)
		r->tb->partial_why = "built on the runner, off a manylinux container: its level follows the runner's glibc";
	if (host)
		drop(r->t, r->file, wm_arena_printf(r->t->arena, "%s built on the runner, off a manylinux container: its "
			"wheel's level follows the runner's glibc; the matrix builds at the catalogue's level", p->id));
	r->tb->level = level;
	return p;
}

/* The platform's overrides a build gives: its level, a self-hosted runner, maturin-action's container. */
static void read_how(struct reading *r, struct wm_takeover_platform *tp)
{
	const struct wm_wf_build *b = r->b;
	const char *label = b->run->label, *why;
	if (r->tb->level && !same_level(r->tb->level, tp->p->manylinux)) {
		if (!wm_catalog_level_valid(tp->p, pep600(r->tb->level), &why)) {
			r->tb->partial = true;
			r->tb->partial_why = r->tb->partial_why ? r->tb->partial_why : why;
			drop(r->t, r->file, wm_arena_printf(r->t->arena, "%s at manylinux level %s: %s", tp->p->id,
				shown(r->tb->level), why));
		} else if (tp->level && !same_level(tp->level, r->tb->level)) {
			r->tb->partial = true;
			r->tb->partial_why = r->tb->partial_why ? r->tb->partial_why : "a second level of one platform";
			drop(r->t, r->file, wm_arena_printf(r->t->arena, "%s at level %s as well: the matrix builds one level per "
				"platform (%s)", tp->p->id, shown(r->tb->level), tp->level));
		} else {
			tp->level = r->tb->level;
		}
	}
	/* a hosted label the catalogue does not keep is only another of GitHub's images: the catalogue's is newer */
	if (label && !wm_catalog_runner(r->t->cat, label) && !strstr(label, "-latest") && !(b->run->os >= 0 &&
			strchr(label, '-') && isdigit((unsigned char)strchr(label, '-')[1]))) {
		if (plain_word(label) && !strchr(label, '$'))
			tp->runner = label;
		else
			drop(r->t, r->file, wm_arena_printf(r->t->arena, "job %s's runner: a label the matrix cannot name",
				shown(b->run->job)));
	} else if (!label && b->run->runner.kind == WM_VAL_ARRAY) {
		drop(r->t, r->file, wm_arena_printf(r->t->arena, "job %s's runner: a list of labels (a self-hosted runner); "
			"set platforms.%s.runner to one label", shown(b->run->job), tp->p->id));
	}
	if (b->container && strcmp(b->container, "off") != 0 && tp->p->os == WM_OS_LINUX) {
		if (plain_word(b->container))
			tp->container = b->container;
		else
			drop(r->t, r->file, wm_arena_printf(r->t->arena, "job %s's container: an image the matrix cannot name",
				shown(b->run->job)));
	}
}

static bool skipped(const char *path, const char *const *skip, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(skip[i], path))
			return true;
	return false;
}

static void read_build(struct wm_takeover *t, struct wm_workflows *w, const struct wm_wf_build *b, bool backend)
{
	struct wm_takeover_build *tb = &t->builds[t->nbuilds++];
	struct reading r = { t, w, tb, b, b->run->file };
	struct wm_takeover_platform *tp;
	memset(tb, 0, sizeof(*tb));
	tb->b = b;
	tb->backend = backend;
	if (!t->file)
		t->file = b->run->file;
	/* a Pyodide build whose -i is known only when the job runs builds for the release's CPython (read_pythons) */
	if ((b->unknown && !(b->interpreters_unknown == b->unknown && pyodide_build(b))) || b->bad) {
		const char *why = b->unknown ? b->unknown : b->bad;
		drop(t, r.file, wm_arena_printf(t->arena, "the wheels of job %s (%s:%u): %s", shown(b->run->job), b->file,
			b->line, why));
		tb->note = wm_arena_printf(t->arena, "built by a step init cannot read (%s:%u: %s)", b->file, b->line, why);
		return;
	}
	if (!(tb->p = read_platform(&r)))
		return;
	read_pythons(&r);
	read_settings(&r);
	if (!backend && (tp = platform_entry(t, tb->p)) != NULL) {
		read_how(&r, tp);
		tp->cpython[0] |= tb->cpython[0];
		tp->cpython[1] |= tb->cpython[1];
		tp->pypy |= tb->pypy;
		tp->graalpy |= tb->graalpy;
		tp->abi3 |= tb->abi3;
	}
}

/* The wheels a build makes: its Python entries. */
static size_t build_wheels(const struct wm_takeover_build *tb)
{
	size_t n = tb->abi3;
	for (unsigned m = 0; m < 32; m++)
		n += (tb->cpython[0] >> m & 1) + (tb->cpython[1] >> m & 1) + (tb->pypy >> m & 1) + (tb->graalpy >> m & 1);
	return n ? n : 1;
}

static int by_value(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return x == y ? 0 : !x ? -1 : !y ? 1 : strcmp(x, y);
}

static bool same_value(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A build's value, for grouping the builds by value (in sorted order, each group in build order). */
struct vb {
	const char *v;
	size_t i;
};

static int by_vb(const void *a, const void *b)
{
	const struct vb *x = a, *y = b;
	int c = by_value(&x->v, &y->v);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * The value of a setting that the project's own builds of the most wheels use (none counted too),
 * for the matrix to carry: the distinct values found by sorting, each weighed by its builds' wheels.
 */
static const char *most_common(const struct wm_takeover *t, const char *(*value)(struct wm_arena *, const struct wm_wf_build *),
	bool linux_only, const char **values)
{
	struct vb *sorted;
	const char *best = NULL;
	size_t n = 0, best_n = 0;
	for (size_t i = 0; i < t->nbuilds; i++)
		values[i] = !t->builds[i].p || t->builds[i].backend || (linux_only && t->builds[i].p->os != WM_OS_LINUX) ?
			"\x01" : value(t->arena, t->builds[i].b);
	if (!(sorted = malloc((t->nbuilds ? t->nbuilds : 1) * sizeof(*sorted))))
		return NULL;
	for (size_t i = 0; i < t->nbuilds; i++)
		if (!values[i] || strcmp(values[i], "\x01") != 0)
			sorted[n++] = (struct vb){values[i], i};
	qsort(sorted, n, sizeof(*sorted), by_vb);
	/* each value weighed by the wheels of the builds that use it: the matrix carries what makes the most */
	for (size_t i = 0; i < n;) {
		size_t k = i, wheels = 0;
		while (k < n && same_value(sorted[k].v, sorted[i].v))
			wheels += build_wheels(&t->builds[sorted[k++].i]);
		if (wheels > best_n) {
			best = sorted[i].v;
			best_n = wheels;
		}
		i = k;
	}
	free(sorted);
	return best;
}

/* Whether a value is a plain one for the matrix's `env`: printable, and nothing a shell or GitHub expands. */
static bool env_text(const char *v)
{
	size_t n = 0;
	for (; *v; v++, n++)
		if (*v < 0x20 || *v > 0x7e || strchr("$`\\\"'{}", *v))
			return false;
	return n <= 200;
}

/*
 * Why a build's features (or its defaults turned off) cannot be a layer's: they turn pyo3's abi3 on,
 * off or to another minimum, and the Python entries init writes (and the loader holds a backend's
 * layers to: one abi3 choice for all its platforms) are those of the crate's own build; else NULL.
 */
static const char *abi3_changed(const struct wm_takeover *t, const struct wm_build_features *bf)
{
	struct wm_abi3 own, with;
	struct wm_build_features none = { NULL, false };
	if (!t->project || !t->project->has_cargo)
		return NULL;
	wm_project_abi3(t->project, &none, &own);
	wm_project_abi3(t->project, bf, &with);
	if (own.abi3 == with.abi3 && own.minor == with.minor && own.abi3t == with.abi3t && own.abi3t_minor == with.abi3t_minor)
		return NULL;
	return "they turn pyo3's abi3 on, off or to another minimum, and init writes the Python versions of the crate's own build";
}

/*
 * Why feature `one` cannot be in the features of platform `p` (NULL: of the default backend, so
 * of every platform of `t`): a toolkit it needs that the CI installs per backend, or that one of
 * those platforms cannot build; else NULL.
 */
static const char *feature_toolkit_refused(const struct wm_takeover *t, const char *one, const struct wm_platform *p)
{
	size_t from = 0;
	const struct wm_toolkit *tk;
	while ((tk = wm_catalog_feature_toolkit(t->cat, one, &from)) != NULL) {
		/* a toolkit the CI installs per backend goes in a backend's own features alone */
		if (p && tk->installable)
			return wm_arena_printf(t->arena, "feature %s needs %s, which the CI installs per backend", shown(one),
				tk->title);
		for (size_t i = 0; i < t->nplatforms; i++) {
			bool there = false;
			if (p && t->platforms[i].p != p)
				continue;
			for (size_t k = 0; k < tk->platforms.n && !there; k++)
				there = !strcmp(tk->platforms.items[k], t->platforms[i].p->id);
			if (!there)
				return wm_arena_printf(t->arena, "feature %s needs a toolkit %s cannot build", shown(one),
					t->platforms[i].p->id);
		}
	}
	return NULL;
}

/* features: each one the crate's, with the toolkits it needs buildable there; the same abi3. */
static const char *refused_features(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p)
{
	struct wm_arena *a = t->arena;
	struct wm_strlist list = { 0 };
	struct wm_build_features bf = { &list, false };
	size_t n = 1;
	(void)s;
	for (const char *c = v; *c; c++)
		n += *c == ',';
	if (!t->project || !(list.items = wm_arena_array(a, n, sizeof(*list.items))))
		return "the crate's Cargo.toml was not read";
	for (const char *f = v; *f;) {
		size_t k = strcspn(f, ",");
		const char *one = wm_arena_strndup(a, f, k), *why;
		if (!one || strchr(one, '?') || !wm_name_feature(one, &why) || !wm_project_has_feature(t->project, one, NULL))
			return wm_arena_printf(a, "%s is not a feature of the crate's Cargo.toml", shown(one));
		if ((why = feature_toolkit_refused(t, one, p)) != NULL)
			return why;
		list.items[list.n++] = one;
		f += k + (f[k] == ',');
	}
	return abi3_changed(t, &bf);
}

/* A flag: no-default-features with the same abi3; zig where zig builds. */
static const char *refused_flag(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p)
{
	(void)v;
	if (!strcmp(s->key, "no-default-features")) {
		struct wm_build_features bf = { NULL, true };
		return abi3_changed(t, &bf);
	}
	if (!strcmp(s->key, "zig") && p && !strncmp(p->target, "s390x", 5))
		return "zig cannot build s390x (maturin-action drops --zig there)";
	return NULL;
}

/* A Cargo profile: a built-in one, or one the Cargo.toml Cargo reads profiles from defines. */
static const char *refused_profile(const struct wm_takeover *t, const char *v)
{
	const struct wm_toml_doc *root;
	const struct wm_toml_value *profiles;
	if (!wm_name_cargo_profile(v))
		return "not a Cargo profile's name";
	if (!strcmp(v, "dev") || !strcmp(v, "test") || !strcmp(v, "bench"))
		return NULL;
	/* Cargo reads profiles from the workspace root's manifest, else the crate's own */
	root = t->project && t->project->workspace_path ? &t->project->workspace :
		t->project && t->project->has_cargo ? &t->project->cargo : NULL;
	profiles = root ? wm_toml_get_path(root->root, "profile") : NULL;
	/* a crate below the repository's root may be a member of a workspace above, not read */
	if (root == &t->project->cargo && strchr(t->project->cargo_path, '/') &&
			!wm_toml_table_get(root->root, "workspace"))
		return "init cannot tell whether a workspace above the crate defines it";
	if (!profiles || !wm_toml_is_table(profiles) || !wm_toml_table_get(profiles->table, v))
		return "no [profile] of that name in the Cargo.toml init reads profiles from";
	return NULL;
}

/* A word: a macOS version, a toolchain rustup names, else a Cargo profile. */
static const char *refused_word(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p)
{
	unsigned major, minor;
	(void)p;
	if (!strcmp(s->key, "deployment-target"))
		return wm_catalog_macos_version(v, &major, &minor) ? NULL : "not a macOS version";
	if (!strcmp(s->key, "rust-toolchain"))
		return wm_name_rust_toolchain(v) ? NULL : "not a toolchain rustup names";
	return refused_profile(t, v);
}

/* Words: each one the matrix's docker-options take. */
static const char *refused_words(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p)
{
	(void)s, (void)p;
	for (const char *w = v; *w;) {
		size_t k = strcspn(w, " \t");
		char word[128];
		if (k) {
			if (k >= sizeof(word))
				return "an option longer than the matrix takes";
			snprintf(word, sizeof(word), "%.*s", (int)k, w);
			if (!wm_name_docker_option(word))
				return wm_arena_printf(t->arena, "%s is not a word the matrix's docker-options take", shown(word));
		}
		w += k;
		w += strspn(w, " \t");
	}
	return NULL;
}

/* Environment lines NAME=value: names the matrix may set, values it takes as they are. */
static const char *refused_env(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p)
{
	struct wm_arena *a = t->arena;
	(void)s, (void)p;
	for (const char *l = v; *l;) {
		size_t k = strcspn(l, "\n"), eq = strcspn(l, "=");
		char name[64];
		if (eq >= k || eq >= sizeof(name))
			return "a variable whose value is not known before the job runs";
		snprintf(name, sizeof(name), "%.*s", (int)eq, l);
		char *value = wm_arena_strndup(a, l + eq + 1, k - eq - 1);
		if (wm_untrusted_env_reserved(name, false))
			return wm_arena_printf(a, "%s: %s", shown(name), wm_untrusted_env_reserved(name, false));
		if (!wm_name_env(name) || !value || !env_text(value))
			return wm_arena_printf(a, "%s: a value the matrix's env does not take as it is (a $, a quote, a "
				"backslash or a brace)", shown(name));
		l += k + (l[k] == '\n');
	}
	return NULL;
}

/* What refuses a value, by how the matrix carries it (NULL: nothing does). */
static const char *(*const refusers[])(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p) = {
	[C_LIST] = refused_features,
	[C_BOOL] = refused_flag,
	[C_WORD] = refused_word,
	[C_WORDS] = refused_words,
	[C_ENV] = refused_env,
};

/*
 * Why the matrix file cannot take value `v` of setting `s` on platform `p` (NULL: on the default
 * backend, so on every platform of `t`), held to the grammars the loader checks it with
 * (model/settings.c, util/name.c); NULL when it can.
 */
static const char *refused(const struct wm_takeover *t, const struct setting *s, const char *v,
	const struct wm_platform *p)
{
	if (*v == '(')
		return "a step outputs it, and it is not known before the job runs";
	if ((size_t)s->carry >= WM_ARRAY_SIZE(refusers) || !refusers[s->carry])
		return NULL;
	return refusers[s->carry](t, s, v, p);
}

/* Notes a build whose value of a setting is not the one the matrix carries where it builds. */
static void note_other(struct wm_takeover *t, struct wm_takeover_build *tb, const struct setting *s, const char *v,
	const char *carried, const char *why)
{
	/* a flag is its name alone (--zig); without it, "no --zig" */
	const char *shown_v = !v ? (s->carry == C_BOOL ? s->name : "(none)") : s->carry == C_BOOL ? "" : note_value(t->arena, v);
	const char *name = s->carry == C_BOOL ? (v ? s->name : "no") : s->name;
	if (why)
		drop(t, tb->b->run->file, wm_arena_printf(t->arena, "the wheels of job %s built with %s%s%s: %s", shown(tb->b->run->job),
			name, *shown_v ? " " : "", shown_v, why));
	else
		drop(t, tb->b->run->file, wm_arena_printf(t->arena, "the wheels of job %s built with %s%s%s: the matrix builds %s "
			"with %s", shown(tb->b->run->job), name, *shown_v ? " " : "", shown_v, tb->p->id, carried ? note_value(t->arena, carried) :
			"none"));
	if (!tb->note)
		tb->note = why ? wm_arena_printf(t->arena, "built with %s%s%s (%s:%u), which the matrix cannot take: %s", name,
			*shown_v ? " " : "", shown_v, tb->b->file, tb->b->line, why) :
			wm_arena_printf(t->arena, "built with %s%s%s (%s:%u), not what the matrix builds %s with (%s)", name,
			*shown_v ? " " : "", shown_v,
			tb->b->file, tb->b->line, tb->p->id, carried ? note_value(t->arena, carried) : "none");
}

/*
 * One setting into the matrix's layers: every build's value alike, the default backend's; else per
 * platform the value of the builds of most of its wheels, the platform's entry (each other build
 * noted).  A value the matrix file cannot take is none, and its builds are noted with why.
 */
static void carry_setting(struct wm_takeover *t, size_t si, const char **vals, const char **whys, struct vb *on)
{
	const struct setting *s = &settings[si];
	bool alike = true, seen = false;
	const char *first = NULL;
	for (size_t i = 0; i < t->nbuilds; i++) {
		const struct wm_takeover_build *tb = &t->builds[i];
		vals[i] = !tb->p || tb->backend ? NULL : s->value(t->arena, tb->b);
		if (!tb->p || tb->backend)
			continue;
		alike &= !seen || same_value(first, vals[i]);
		first = seen ? first : vals[i];
		seen = true;
	}
	if (!seen)
		return;
	if (alike && s->os < 0 && (!first || !refused(t, s, first, NULL))) {
		t->backend_set[si] = first;
		return;
	}
	for (size_t k = 0; k < t->nplatforms; k++) {
		struct wm_takeover_platform *tp = &t->platforms[k];
		const char *best = NULL;
		size_t best_n = 0;
		/* why each build's value cannot be the platform's: those that can are the candidates */
		for (size_t i = 0; i < t->nbuilds; i++) {
			const struct wm_takeover_build *tb = &t->builds[i];
			whys[i] = NULL;
			if (tb->p != tp->p || tb->backend || !vals[i])
				continue;
			whys[i] = s->os >= 0 && (int)tp->p->os != s->os ? wm_arena_printf(t->arena, "the matrix takes %s on "
				"%s only", s->key, s->os == WM_OS_LINUX ? "Linux" : "macOS") : refused(t, s, vals[i], tp->p);
		}
		/*
		 * each value weighed by the wheels of the platform's builds that use it, one that can be the
		 * platform's: the most wheels win, then the value of the earliest such build
		 */
		size_t n = 0, best_at = SIZE_MAX;
		for (size_t i = 0; i < t->nbuilds; i++)
			if (t->builds[i].p == tp->p && !t->builds[i].backend)
				on[n++] = (struct vb){vals[i], i};
		qsort(on, n, sizeof(*on), by_vb);
		for (size_t g = 0; g < n;) {
			size_t k = g, wheels = 0, first = SIZE_MAX;
			for (; k < n && same_value(on[k].v, on[g].v); k++) {
				wheels += build_wheels(&t->builds[on[k].i]);
				if (!whys[on[k].i] && first == SIZE_MAX)
					first = on[k].i;
			}
			if (first != SIZE_MAX && (wheels > best_n || (wheels == best_n && first < best_at))) {
				best = vals[first];
				best_n = wheels;
				best_at = first;
			}
			g = k;
		}
		tp->set[si] = best;
		for (size_t i = 0; i < t->nbuilds; i++) {
			struct wm_takeover_build *tb = &t->builds[i];
			if (tb->p == tp->p && !tb->backend && !same_value(vals[i], best))
				note_other(t, tb, s, vals[i], best, whys[i]);
		}
	}
}

void wm_init_matrix_carry(struct wm_takeover *t)
{
	const char **sv = wm_arena_array(t->arena, t->nbuilds + 1, sizeof(*sv)), **vals = wm_arena_array(t->arena,
		t->nbuilds + 1, sizeof(*vals)), **whys = wm_arena_array(t->arena, t->nbuilds + 1, sizeof(*whys));
	struct vb *on = wm_arena_array(t->arena, t->nbuilds + 1, sizeof(*on));
	const char *script;
	if (!sv || !vals || !whys || !on)
		return;
	for (size_t i = 0; i < WM_ARRAY_SIZE(settings); i++)
		if (settings[i].carry != C_NONE && settings[i].carry != C_BEFORE)
			carry_setting(t, i, vals, whys, on);
	script = most_common(t, before_value, true, sv);
	for (size_t i = 0; i < t->nbuilds; i++) {
		struct wm_takeover_build *tb = &t->builds[i];
		const char *s;
		if (!tb->p || tb->backend)
			continue;
		s = tb->p->os == WM_OS_LINUX ? sv[i] : NULL;
		if (tb->p->os == WM_OS_LINUX && ((s == NULL) != (script == NULL) || (s && strcmp(s, script) != 0))) {
			drop(t, tb->b->run->file, wm_arena_printf(t->arena, "the wheels of job %s: a before-script-linux other "
				"than the one the default backend runs", shown(tb->b->run->job)));
			if (!tb->note)
				tb->note = wm_arena_printf(t->arena, "built after another before-script-linux (%s:%u)", tb->b->file,
					tb->b->line);
		}
	}
	t->before_script = script;
}

void wm_init_matrix_read(struct wm_takeover *t, struct wm_workflows *w, const struct wm_builds *b,
	const char *const *backends, size_t nbackends)
{
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++)
		n += b->items[i].wheel;
	if (!(t->builds = wm_arena_array(t->arena, n ? n : 1, sizeof(*t->builds))))
		return;
	for (size_t i = 0; i < b->n; i++) {
		const struct wm_wf_build *x = &b->items[i];
		if (!x->wheel || !wm_builds_releases(b, x->run->file))
			continue;
		read_build(t, w, x, skipped(x->run->file, backends, nbackends));
	}
}

/* ---- the release: its wheels decide what is built ------------------------------------------ */

/* The tag of a set to read: a universal2 one when there is one (the wheel is universal2), else the first. */
static void pick_tag(char *out, size_t size, const char *set)
{
	const char *u = strstr(set, "universal2"), *start = set, *end;
	if (u) {
		for (start = u; start > set && start[-1] != '.'; start--)
			;
	}
	end = strchr(start, '.');
	snprintf(out, size, "%.*s", (int)(end ? (size_t)(end - start) : strlen(start)), start);
}

/* `family_X_Y_arch` (manylinux_2_17_x86_64, musllinux_1_2_aarch64, macosx_11_0_arm64): its parts. */
static bool versioned(const char *tag, const char *family, char *level, size_t size, const char **arch)
{
	size_t k = strlen(family);
	const char *p = tag + k;
	unsigned a, b;
	int n = 0;
	if (strncmp(tag, family, k) != 0 || p[0] != '_' || sscanf(p + 1, "%u_%u_%n", &a, &b, &n) != 2 || !n)
		return false;
	snprintf(level, size, "%u_%u", a, b);
	*arch = p + 1 + n;
	return **arch != '\0';
}

/* The lowest manylinux or musllinux level of a set's tags of one family (a wheel of 2_28 runs on 2_31 too). */
static void lowest_level(const char *set, const char *family, char *level, size_t size)
{
	const char *p = set;
	unsigned best_a = ~0u, best_b = ~0u;
	while (*p) {
		char tag[96], lv[16];
		const char *arch, *dot = strchr(p, '.');
		unsigned a, b;
		snprintf(tag, sizeof(tag), "%.*s", (int)(dot ? (size_t)(dot - p) : strlen(p)), p);
		if (!strcmp(family, "manylinux") && !strncmp(tag, "manylinux2014_", 14))
			snprintf(tag, sizeof(tag), "manylinux_2_17_%s", strchr(tag, '_') + 1);
		else if (!strcmp(family, "manylinux") && !strncmp(tag, "manylinux2010_", 14))
			snprintf(tag, sizeof(tag), "manylinux_2_12_%s", strchr(tag, '_') + 1);
		else if (!strcmp(family, "manylinux") && !strncmp(tag, "manylinux1_", 11))
			snprintf(tag, sizeof(tag), "manylinux_2_5_%s", strchr(tag, '_') + 1);
		if (versioned(tag, family, lv, sizeof(lv), &arch) && sscanf(lv, "%u_%u", &a, &b) == 2 &&
				(a < best_a || (a == best_a && b < best_b))) {
			best_a = a;
			best_b = b;
		}
		p = dot ? dot + 1 : p + strlen(p);
	}
	if (best_a != ~0u)
		snprintf(level, size, "%u_%u", best_a, best_b);
}

static bool pypy_builds(const struct wm_platform *p);

/* Why the matrix does not build GraalPy 3.`minor` on `p`, as the loader refuses it (model/expand.c, check_graalpy); NULL where it does. */
static const char *graalpy_refused(const struct wm_takeover *t, const struct wm_platform *p, unsigned minor)
{
	return wm_catalog_graalpy_refused(t->cat, p, minor);
}

/*
 * A Pyodide wheel's platform (PEP 783's pyemscripten_2026_0_wasm32, or the name Pyodide gave the same
 * platform before, pyodide_2026_0_wasm32): the catalogue's Emscripten platform of that ABI; a wheel of
 * another Pyodide ABI (another release, another CPython) is none of the matrix's, and says which it builds.
 */
static void map_pyodide(struct wm_takeover *t, struct wm_published *w, const char *tag)
{
	const char *abi = strchr(tag, '_') + 1;
	const struct wm_platform *other = NULL;
	for (size_t i = 0; i < wm_catalog_platform_count(t->cat) && !w->p; i++) {
		const struct wm_platform *p = wm_catalog_platform_at(t->cat, i);
		size_t n;
		if (p->os != WM_OS_EMSCRIPTEN || !p->pyodide_abi)
			continue;
		n = strlen(p->pyodide_abi);
		if (!strncmp(abi, p->pyodide_abi, n) && abi[n] == '_' && !strcmp(abi + n + 1, p->arch))
			w->p = p;
		else if (!other && strlen(abi) > strlen(p->arch) && !strcmp(abi + strlen(abi) - strlen(p->arch), p->arch))
			other = p;
	}
	if (w->p)
		return;
	w->why = other ? wm_arena_printf(t->arena, "%s: a wheel of another Pyodide ABI than the matrix's %s builds "
		"(Pyodide %s, CPython %s: %s)", shown(tag), other->id, other->pyodide, other->pyodide_python, other->platform_tag) :
		wm_arena_printf(t->arena, "the matrix has no platform for %s", shown(tag));
}

/* A published wheel's platform: the catalogue's, its level; or why the matrix has none. */
static void map_platform(struct wm_takeover *t, struct wm_published *w)
{
	char tag[96], level[16] = "", family[16];
	const char *arch = NULL;
	pick_tag(tag, sizeof(tag), w->platform);
	if (!strncmp(tag, "pyemscripten_", 13) || !strncmp(tag, "pyodide_", 8)) {
		map_pyodide(t, w, tag);
		return;
	}
	if (!strncmp(tag, "manylinux2014_", 14) || !strncmp(tag, "manylinux2010_", 14) || !strncmp(tag, "manylinux1_", 11)) {
		snprintf(family, sizeof(family), "manylinux");
		arch = strchr(tag, '_') + 1;
	} else if (versioned(tag, "manylinux", level, sizeof(level), &arch) ||
			versioned(tag, "musllinux", level, sizeof(level), &arch) || versioned(tag, "macosx", level, sizeof(level), &arch)) {
		snprintf(family, sizeof(family), "%.*s", (int)strcspn(tag, "_"), tag);
	} else {
		snprintf(family, sizeof(family), "win");
	}
	for (size_t i = 0; i < wm_catalog_platform_count(t->cat) && !w->p; i++) {
		const struct wm_platform *p = wm_catalog_platform_at(t->cat, i);
		if (strcmp(p->family, family) != 0)
			continue;
		/* macOS by the tag's architecture: x86_64, arm64, universal2 (whose set is the platform's) */
		if (!strcmp(family, "win") ? !strcmp(p->platform_tag, tag) : p->os == WM_OS_LINUX ?
				arch && p->wheel_arch && !strcmp(p->wheel_arch, arch) : arch && !strcmp(p->arch, arch))
			w->p = p;
	}
	if (!w->p) {
		w->why = wm_arena_printf(t->arena, "the matrix has no platform for %s", shown(tag));
		return;
	}
	if (w->p->os == WM_OS_LINUX) {
		lowest_level(w->platform, family, level, sizeof(level));
		w->level = *level ? wm_arena_strdup(t->arena, level) : NULL;
	} else if (w->p->os == WM_OS_MACOS) {
		/* its macOS version: the platform's deployment-target when above rustc's default; below it, none */
		unsigned want_major = 0, want_minor = 0, major = 0, minor = 0;
		wm_catalog_macos_version(w->p->deployment_default, &want_major, &want_minor);
		if (sscanf(level, "%u_%u", &major, &minor) == 2 && (major < want_major || (major == want_major &&
				minor < want_minor)))
			w->why = wm_arena_printf(t->arena, "built for macOS %u.%u: below %s (rustc's default for %s), which maturin "
				"tags a wheel with at the lowest", major, minor, w->p->deployment_default, w->p->id);
		else if (major && (major != want_major || (major < 11 && minor != want_minor)))
			w->level = wm_arena_printf(t->arena, "%u.%u", major, major >= 11 ? 0 : minor);
	}
}

/*
 * Whether a Pyodide wheel's Python is one the matrix builds there (model/expand.c, check_pyodide): the
 * release's one CPython, not free-threaded, or an abi3 wheel of a minimum not above it.  A crate on
 * plain abi3 is named there by Pyodide's CPython (cp314-abi3), which stands for its abi3 entry.
 */
static void pyodide_python(struct wm_takeover *t, struct wm_published *w)
{
	const struct wm_platform *p = w->p;
	unsigned minor = 0;
	char ft = 0;
	if (!strcmp(w->entry, "abi3")) {
		if (w->abi3_minor > p->pyodide_minor)
			w->why = wm_arena_printf(t->arena, "abi3 from 3.%u on %s: Pyodide %s is CPython %s", w->abi3_minor, p->id,
				p->pyodide, p->pyodide_python);
		else if (t->project && t->project->abi3 && !t->project->abi3_minor && w->abi3_minor == p->pyodide_minor)
			w->abi3_minor = wm_project_abi3_minor(t->project);
		return;
	}
	if (sscanf(w->entry, "3.%u%c", &minor, &ft) >= 1 && minor == p->pyodide_minor && ft != 't')
		return;
	w->why = wm_arena_printf(t->arena, "%s %s on %s: Pyodide %s is CPython %s alone, not free-threaded",
		w->entry[0] == '3' ? "CPython" : "Python", w->entry, p->id, p->pyodide, p->pyodide_python);
}

/* A published wheel's Python entry ("3.12", "3.14t", "pp3.11", "abi3"); or why the matrix has none. */
static void map_python(struct wm_takeover *t, struct wm_published *w)
{
	unsigned py = 0, abi = 0;
	char tail[16] = "";
	int n = 0;
	if (sscanf(w->python, "cp3%u%n", &py, &n) == 1 && (w->python[n] == '\0' || w->python[n] == '.')) {
		if (!strcmp(w->abi, "abi3")) {
			snprintf(w->entry, sizeof(w->entry), "abi3");
			w->abi3_minor = py;
		} else if (sscanf(w->abi, "cp3%u%15s", &abi, tail) >= 1 && abi == py && (!*tail || !strcmp(tail, "t"))) {
			snprintf(w->entry, sizeof(w->entry), "3.%u%.1s", py % 100, tail);
		} else {
			w->why = wm_arena_printf(t->arena, "its ABI tag %s: the matrix cannot express it", shown(w->abi));
		}
	} else if (sscanf(w->python, "pp3%u%n", &py, &n) == 1 && (w->python[n] == '\0' || w->python[n] == '.')) {
		const char *api = wm_catalog_pypy_api(t->cat, py, w->p->os), *pp = strstr(w->abi, "_pp");
		snprintf(w->entry, sizeof(w->entry), "pp3.%u", py);
		if (api && pp && strcmp(pp + 3, api) != 0 && pypy_builds(w->p))
			w->why = wm_arena_printf(t->arena, "PyPy 3.%u of C API pp%s: the matrix builds PyPy 3.%u on %s with %s, "
				"whose wheels are pp%s", py, shown(pp + 3), py, w->p->id, w->p->os == WM_OS_LINUX ? "maturin's tables" :
				"the PyPy setup-python and uv install", api);
	} else if (sscanf(w->python, "graalpy3%u%n", &py, &n) == 1 && w->python[n] == '\0') {
		/* graalpy3N-graalpyXY_3N_native: the matrix's graalpy3.N when XY is the release maturin's table names */
		const char *release = wm_catalog_graalpy(t->cat, py);
		char want[64] = "";
		if (release)
			snprintf(want, sizeof(want), "graalpy%.*s%s_3%u_native", (int)strcspn(release, "."), release,
				strchr(release, '.') ? strchr(release, '.') + 1 : "", py);
		if (!release || strcmp(w->abi, want) != 0)
			w->why = wm_arena_printf(t->arena, "GraalPy ABI %s: the matrix builds GraalPy 3.%u as %s", shown(w->abi), py,
				*want ? want : "none");
		else if (graalpy_refused(t, w->p, py))
			w->why = wm_arena_printf(t->arena, "GraalPy 3.%u on %s: %s", py, w->p->id, graalpy_refused(t, w->p, py));
		else
			snprintf(w->entry, sizeof(w->entry), "graalpy3.%u", py);
	} else {
		w->why = wm_arena_printf(t->arena, "its Python tag %s: the matrix cannot express it", shown(w->python));
	}
	if (!w->why && w->p->os == WM_OS_EMSCRIPTEN)
		pyodide_python(t, w);
	if (!w->why && !strcmp(w->entry, "abi3") && (!t->project || !t->project->abi3))
		w->why = "an abi3 wheel of a crate whose default build is not abi3 (abi3 through --features a build passes): init does not carry that yet";
	else if (!w->why && !strcmp(w->entry, "abi3") && t->project && wm_project_abi3_minor(t->project) != w->abi3_minor)
		w->why = wm_arena_printf(t->arena, "abi3 from 3.%u: the crate's abi3 minimum is 3.%u", w->abi3_minor,
			wm_project_abi3_minor(t->project));
}

/* Whether a platform entry builds a Python entry. */
static bool builds_entry(unsigned cp0, unsigned cp1, unsigned pp, unsigned gp, bool abi3, const char *entry)
{
	unsigned minor;
	char t = 0;
	if (!strcmp(entry, "abi3"))
		return abi3;
	if (sscanf(entry, "graalpy3.%u", &minor) == 1)
		return minor < 32 && (gp >> minor & 1);
	if (sscanf(entry, "pp3.%u", &minor) == 1)
		return pp >> minor & 1;
	if (sscanf(entry, "3.%u%c", &minor, &t) >= 1)
		return (t == 't' ? cp1 : cp0) >> minor & 1;
	return false;
}

static void set_entry(struct wm_takeover_platform *tp, const char *entry)
{
	unsigned minor;
	char t = 0;
	if (!strcmp(entry, "abi3"))
		tp->abi3 = true;
	else if (sscanf(entry, "graalpy3.%u", &minor) == 1 && minor < 32)
		tp->graalpy |= 1u << minor;
	else if (sscanf(entry, "pp3.%u", &minor) == 1 && minor < 32)
		tp->pypy |= 1u << minor;
	else if (sscanf(entry, "3.%u%c", &minor, &t) >= 1 && minor < 32)
		tp->cpython[t == 't'] |= 1u << minor;
}

/* The index of a setting of the table, by its matrix key. */
static size_t setting_index(const char *key)
{
	size_t i = 0;
	while (i < WM_ARRAY_SIZE(settings) && !(settings[i].key && !strcmp(settings[i].key, key)))
		i++;
	return i;
}

/* The macOS deployment target most of a macOS platform's wheels have (NULL: rustc's default): the matrix's for it. */
static void published_deployment(struct wm_takeover *t, struct wm_takeover_platform *tp)
{
	const char *best = NULL;
	size_t best_n = 0, dt = setting_index("deployment-target");
	for (size_t i = 0; i < t->npublished; i++) {
		size_t n = 0;
		if (t->published[i].p != tp->p || t->published[i].why)
			continue;
		for (size_t k = 0; k < t->npublished; k++)
			n += t->published[k].p == tp->p && !t->published[k].why && same_value(t->published[k].level,
				t->published[i].level);
		if (n > best_n) {
			best = t->published[i].level;
			best_n = n;
		}
	}
	tp->set[dt] = best;
	for (size_t i = 0; i < t->npublished; i++) {
		struct wm_published *w = &t->published[i];
		if (w->p == tp->p && !w->why && !same_value(w->level, best))
			w->why = wm_arena_printf(t->arena, "macOS %s beside %s: the matrix builds one deployment target per platform",
				w->level ? w->level : tp->p->deployment_default, best ? best : tp->p->deployment_default);
	}
}

/* The level most of a platform's wheels have: the matrix's for it; the others cannot be. */
static void published_level(struct wm_takeover *t, struct wm_takeover_platform *tp)
{
	if (tp->p->os == WM_OS_MACOS) {
		published_deployment(t, tp);
		return;
	}
	const char *best = NULL, *why;
	size_t best_n = 0;
	for (size_t i = 0; i < t->npublished; i++) {
		size_t n = 0;
		if (t->published[i].p != tp->p || t->published[i].why || !t->published[i].level)
			continue;
		for (size_t k = 0; k < t->npublished; k++)
			n += t->published[k].p == tp->p && !t->published[k].why && t->published[k].level &&
				same_level(t->published[k].level, t->published[i].level);
		if (n > best_n) {
			best = t->published[i].level;
			best_n = n;
		}
	}
	tp->level = NULL;
	if (best && !wm_catalog_level_valid(tp->p, pep600(best), &why))
		best = NULL;
	if (best && !same_level(best, tp->p->manylinux))
		tp->level = best;
	for (size_t i = 0; i < t->npublished; i++) {
		struct wm_published *w = &t->published[i];
		const char *have = best ? best : tp->p->manylinux;
		if (w->p != tp->p || w->why || !w->level || same_level(w->level, have))
			continue;
		w->why = !wm_catalog_level_valid(tp->p, pep600(w->level), &why) ?
			wm_arena_printf(t->arena, "level %s: %s", w->level, why) :
			wm_arena_printf(t->arena, "level %s beside %s: the matrix builds one level per platform", w->level, have);
	}
}

void wm_init_matrix_publish(struct wm_takeover *t, struct wm_published *wheels, size_t n, const char *release)
{
	struct wm_takeover_platform built[WM_TAKEOVER_MAX];
	size_t nbuilt = t->nplatforms;
	t->published = wheels;
	t->npublished = n;
	t->release = release;
	for (size_t i = 0; i < n; i++) {
		map_platform(t, &wheels[i]);
		if (!wheels[i].why)
			map_python(t, &wheels[i]);
	}
	/* what the workflows build, then what the release has */
	memcpy(built, t->platforms, nbuilt * sizeof(*built));
	t->nplatforms = 0;
	for (size_t i = 0; i < n; i++) {
		struct wm_takeover_platform *tp;
		if (wheels[i].why)
			continue;
		if ((tp = platform_entry(t, wheels[i].p)) == NULL)
			continue;
		set_entry(tp, wheels[i].entry);
		for (size_t k = 0; k < nbuilt; k++)
			if (built[k].p == tp->p) {
				tp->runner = built[k].runner;
				tp->container = built[k].container;
				memcpy(tp->set, built[k].set, sizeof(tp->set));
				if (!builds_entry(built[k].cpython[0], built[k].cpython[1], built[k].pypy, built[k].graalpy, built[k].abi3,
						wheels[i].entry))
					k = nbuilt;
				else
					break;
			}
	}
	for (size_t i = 0; i < t->nplatforms; i++)
		published_level(t, &t->platforms[i]);
	/* the differences, said: the release wins */
	for (size_t k = 0; k < nbuilt; k++) {
		const struct wm_takeover_platform *b = &built[k], *now = NULL;
		for (size_t i = 0; i < t->nplatforms && !now; i++)
			if (t->platforms[i].p == b->p)
				now = &t->platforms[i];
		if (!now)
			drop(t, NULL, wm_arena_printf(t->arena, "%s: the workflows build it, but %s has no wheel of it: left out",
				b->p->id, release));
		else if ((b->cpython[0] & ~now->cpython[0]) || (b->cpython[1] & ~now->cpython[1]) || (b->pypy & ~now->pypy))
			drop(t, NULL, wm_arena_printf(t->arena, "%s: the workflows build Python versions %s has no wheel of "
				"there: left out", b->p->id, release));
	}
}

/* ---- the matrix written ------------------------------------------------------------------ */

/* The builds that make an entry the matrix drops on a platform (NULL: any): theirs are not all the matrix's. */
static void mark_partial(struct wm_takeover *t, const struct wm_platform *p, const char *entry, const char *why)
{
	for (size_t i = 0; i < t->npublished; i++) {
		struct wm_published *w = &t->published[i];
		if (!w->why && w->p && (!p || w->p == p) && !strcmp(w->entry, entry))
			w->why = why;
	}
	for (size_t i = 0; i < t->nbuilds; i++) {
		struct wm_takeover_build *tb = &t->builds[i];
		if (tb->p && (!p || tb->p == p) && builds_entry(tb->cpython[0], tb->cpython[1], tb->pypy, tb->graalpy, tb->abi3, entry)) {
			tb->partial = true;
			tb->partial_why = tb->partial_why ? tb->partial_why : why;
		}
	}
}

/* Where the matrix builds PyPy, as the loader allows it (model/platforms.c). */
static bool pypy_builds(const struct wm_platform *p)
{
	return wm_platforms_pypy_missing(p) == NULL;
}

/*
 * The PyPy versions python.versions names: those built somewhere that the matrix builds and the
 * crate's PyO3 admits; every other PyPy build is a drop, by version and platform.
 */
static unsigned pypy_written(struct wm_takeover *t, const struct wm_pyo3 *pyo3)
{
	unsigned lo = WM_PYPY_MIN, hi = WM_PYPY_MAX, out = 0;
	if (pyo3 && pyo3->pypy_min > lo)
		lo = pyo3->pypy_min;
	if (pyo3 && pyo3->pypy_max < hi)
		hi = pyo3->pypy_max;
	for (unsigned m = 0; m < 32; m++) {
		struct wm_buf where = WM_BUF_INIT;
		bool admitted = !(pyo3 && (m < pyo3->pypy_min || m > pyo3->pypy_max)) && (!t->project || m >= t->project->min_minor);
		for (size_t i = 0; i < t->nplatforms; i++) {
			const struct wm_takeover_platform *tp = &t->platforms[i];
			if (!(tp->pypy >> m & 1) || !admitted)
				continue;
			if (m >= lo && m <= hi && pypy_builds(tp->p)) {
				out |= 1u << m;
			} else {
				char entry[16];
				snprintf(entry, sizeof(entry), "pp3.%u", m);
				mark_partial(t, tp->p, entry, m < lo || m > hi ? wm_arena_printf(t->arena, "PyPy 3.%u: the matrix builds "
					"PyPy 3.%u to 3.%u", m, lo, hi) : wm_arena_printf(t->arena, "PyPy on %s: %s", tp->p->id,
					wm_platforms_pypy_missing(tp->p)));
				wm_buf_printf(&where, "%s%s", where.len ? ", " : "", tp->p->id);
			}
		}
		if (where.len && !where.oom)
			drop(t, t->file, wm_arena_printf(t->arena, "PyPy 3.%u on %s: %s", m, where.ptr, m < lo || m > hi ?
				wm_arena_printf(t->arena, "the matrix builds PyPy 3.%u to 3.%u", WM_PYPY_MIN, WM_PYPY_MAX) :
				"PyPy ships for Linux, macOS x86_64 and arm64 and Windows x86_64 only"));
		wm_buf_release(&where);
	}
	return out;
}

static void write_settings(struct wm_yb *b, struct wm_y *map, const char *const *set, const char *before);

/* The GraalPy versions python.versions names: those built where the matrix builds GraalPy; the others are drops. */
static unsigned graalpy_written(struct wm_takeover *t)
{
	unsigned out = 0;
	for (unsigned m = 0; m < 32; m++) {
		struct wm_buf where = WM_BUF_INIT;
		for (size_t i = 0; i < t->nplatforms; i++) {
			const struct wm_takeover_platform *tp = &t->platforms[i];
			if (!(tp->graalpy >> m & 1))
				continue;
			const char *why = wm_catalog_graalpy(t->cat, m) ? graalpy_refused(t, tp->p, m) :
				"maturin has no table of that GraalPy";
			if (!why) {
				out |= 1u << m;
				continue;
			}
			mark_partial(t, tp->p, wm_arena_printf(t->arena, "graalpy3.%u", m), wm_arena_printf(t->arena, "GraalPy 3.%u "
				"on %s: %s", m, tp->p->id, why));
			wm_buf_printf(&where, "%s%s (%s)", where.len ? ", " : "", tp->p->id, why);
		}
		if (where.len && !where.oom)
			drop(t, t->file, wm_arena_printf(t->arena, "GraalPy 3.%u on %s", m, where.ptr));
		wm_buf_release(&where);
	}
	return out;
}

/* The platforms, with their overrides. */
static void write_platforms(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root)
{
	bool overrides = false;
	struct wm_y *list;
	for (size_t i = 0; i < t->nplatforms; i++) {
		overrides |= t->platforms[i].level || t->platforms[i].runner || t->platforms[i].container;
		for (size_t k = 0; k < WM_ARRAY_SIZE(settings); k++)
			overrides |= t->platforms[i].set[k] != NULL;
	}
	list = wm_yaml_set(b, root, "platforms", overrides ? wm_yaml_map(b) : wm_yaml_seq(b));
	if (list && !overrides)
		list->style = WM_Y_FLOW;
	for (size_t i = 0; i < t->nplatforms; i++) {
		const struct wm_takeover_platform *tp = &t->platforms[i];
		struct wm_y *o;
		if (!overrides) {
			wm_yaml_push(b, list, wm_yaml_str(b, tp->p->id));
			continue;
		}
		if ((o = wm_yaml_set(b, list, tp->p->id, wm_yaml_map(b))) != NULL)
			o->style = WM_Y_FLOW;
		if (tp->runner)
			wm_yaml_set(b, o, "runner", wm_yaml_str(b, tp->runner));
		if (tp->container)
			wm_yaml_set(b, o, "container", wm_yaml_str(b, tp->container));
		if (tp->level)
			wm_yaml_set(b, o, "manylinux", wm_yaml_str(b, tp->level));
		write_settings(b, o, tp->set, NULL);
	}
}

/*
 * The backends' platforms narrowed to the matrix's: a GPU backend's platforms come from its
 * feature's table, which may name others.  A backend left with none is not written, and is a drop.
 */
static void fit_backends(struct wm_takeover *t, struct wm_y *root)
{
	struct wm_y *platforms = wm_yaml_get(root, "platforms"), *backends = wm_yaml_get(root, "backends");
	size_t step;

	if (!platforms || !backends || backends->type != WM_NODE_MAP)
		return;
	step = platforms->type == WM_NODE_MAP ? 2 : 1;  /* ids, or ids with their overrides */
	for (size_t i = 0; i + 1 < backends->n;) {
		struct wm_y *list = wm_yaml_get(backends->items[i + 1], "platforms");
		struct wm_buf was = WM_BUF_INIT;
		size_t kept = 0;
		if (!list || list->type != WM_NODE_SEQ) {
			i += 2;
			continue;
		}
		for (size_t k = 0; k < list->n; k++) {
			bool built = false;
			for (size_t j = 0; j < platforms->n && !built; j += step)
				built = fnmatch(list->items[k]->text, platforms->items[j]->text, 0) == 0;
			wm_buf_printf(&was, "%s%s", k ? ", " : "", list->items[k]->text);
			if (built)
				list->items[kept++] = list->items[k];
		}
		list->n = kept;
		if (kept) {
			wm_buf_release(&was);
			i += 2;
			continue;
		}
		drop(t, t->file, wm_arena_printf(t->arena, "backend '%s': its platforms (%s) are none of those the "
			"workflows build", backends->items[i]->text, was.ptr ? was.ptr : ""));
		wm_buf_release(&was);
		memmove(&backends->items[i], &backends->items[i + 2], (backends->n - i - 2) * sizeof(*backends->items));
		backends->n -= 2;
	}
}

/* Adds {platform: ID, python: VERSION} to the matrix's `exclude` (made on first use); false when it cannot be made. */
static bool add_exclude(struct wm_yb *b, struct wm_y *root, struct wm_y **exclude, const char *platform,
	struct wm_y *python)
{
	struct wm_y *e;
	if (!*exclude && (*exclude = wm_yaml_set(b, root, "exclude", wm_yaml_seq(b))) == NULL)
		return false;
	if ((e = wm_yaml_push(b, *exclude, wm_yaml_map(b))) != NULL)
		e->style = WM_Y_FLOW;
	wm_yaml_set(b, e, "platform", wm_yaml_str(b, platform));
	wm_yaml_set(b, e, "python", python);
	return true;
}

/* The CPython versions built anywhere that PyO3 and the matrix build; the others are drops. */
static void checked_cpythons(struct wm_takeover *t, const struct wm_pyo3 *pyo3, unsigned *cp, unsigned *ft)
{
	for (size_t i = 0; i < t->nplatforms; i++) {
		*cp |= t->platforms[i].cpython[0];
		*ft |= t->platforms[i].cpython[1];
	}
	for (unsigned m = 0; m < 32; m++) {
		if ((*cp >> m & 1) && (m < WM_PYTHON_MIN || m > WM_PYTHON_MAX || (pyo3 && (m < pyo3->py_min ||
				m > pyo3->py_max)))) {
			drop(t, t->file, wm_arena_printf(t->arena, "CPython 3.%u: %s", m, pyo3 ? wm_arena_printf(t->arena,
				"PyO3 %s builds for 3.%u to 3.%u", pyo3->series, pyo3->py_min, pyo3->py_max) :
				"the matrix builds 3.8 to 3.15"));
			mark_partial(t, NULL, wm_arena_printf(t->arena, "3.%u", m), t->drops[t->ndrops ? t->ndrops - 1 : 0].what);
			*cp &= ~(1u << m);
		}
		if ((*ft >> m & 1) && (m < WM_FT_MIN || m > WM_PYTHON_MAX || (pyo3 && (!pyo3->ft_min || m < pyo3->ft_min ||
				m > pyo3->py_max)))) {
			drop(t, t->file, wm_arena_printf(t->arena, "free-threaded CPython 3.%ut: the crate's PyO3 does not build it", m));
			mark_partial(t, NULL, wm_arena_printf(t->arena, "3.%ut", m), "the crate's PyO3 does not build it");
			*ft &= ~(1u << m);
		}
	}
}

/* The excludes: a version a platform's runner cannot build, and one the workflows did not build there. */
static bool write_excludes(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root, unsigned cp, unsigned ft,
	unsigned pp, unsigned gp, bool abi3)
{
	struct wm_y *exclude = NULL;
	for (size_t i = 0; i < t->nplatforms; i++) {
		const struct wm_takeover_platform *tp = &t->platforms[i];
		for (unsigned m = 0; m < 32; m++)
			for (int f = 0; f < 2; f++) {
				unsigned all = f ? ft : cp;
				/* below the runner's oldest (windows-arm64 from 3.11), or not built there */
				if ((all >> m & 1) && (m < tp->p->python_min || !(tp->cpython[f] >> m & 1)) &&
						!add_exclude(b, root, &exclude, tp->p->id, wm_yaml_strf(b, "3.%u%s", m, f ? "t" : "")))
					return false;
			}
		for (unsigned m = 0; m < 32; m++)
			if ((pp >> m & 1) && !(tp->pypy >> m & 1 && pypy_builds(tp->p)) &&
					!add_exclude(b, root, &exclude, tp->p->id, wm_yaml_strf(b, "pp3.%u", m)))
				return false;
		for (unsigned m = 0; m < 32; m++)
			if ((gp >> m & 1) && !(tp->graalpy >> m & 1 && !graalpy_refused(t, tp->p, m)) &&
					!add_exclude(b, root, &exclude, tp->p->id, wm_yaml_strf(b, "graalpy3.%u", m)))
				return false;
		if (abi3 && !tp->abi3 && !add_exclude(b, root, &exclude, tp->p->id, wm_yaml_str(b, "abi3")))
			return false;
	}
	return true;
}

/*
 * The CPythons a Pyodide platform builds: its release's one (model/expand.c, check_pyodide); a build
 * of another there (-i 3.13 for wasm32-unknown-emscripten), or a free-threaded one, is a drop, and
 * the excludes leave it out there.
 */
static void pyodide_written(struct wm_takeover *t)
{
	for (size_t i = 0; i < t->nplatforms; i++) {
		struct wm_takeover_platform *tp = &t->platforms[i];
		const struct wm_platform *p = tp->p;
		if (p->os != WM_OS_EMSCRIPTEN || !p->pyodide_minor)
			continue;
		for (unsigned m = 0; m < 32; m++)
			for (int f = 0; f < 2; f++) {
				const char *why;
				if (!(tp->cpython[f] >> m & 1) || (!f && m == p->pyodide_minor))
					continue;
				why = wm_arena_printf(t->arena, "CPython 3.%u%s on %s: Pyodide %s is CPython %s alone, not "
					"free-threaded", m, f ? "t" : "", p->id, p->pyodide, p->pyodide_python);
				drop(t, t->file, why);
				mark_partial(t, p, wm_arena_printf(t->arena, "3.%u%s", m, f ? "t" : ""), why);
				tp->cpython[f] &= ~(1u << m);
			}
	}
}

/* python.versions and the excludes that give each platform its own versions. */
static void write_pythons(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root)
{
	const struct wm_pyo3 *pyo3 = crate_pyo3(t);
	bool abi3 = t->project && t->project->abi3, any_abi3 = false;
	unsigned cp = 0, ft = 0, pp, gp;
	struct wm_y *python, *versions;

	pyodide_written(t);
	checked_cpythons(t, pyo3, &cp, &ft);
	pp = pypy_written(t, pyo3);
	gp = graalpy_written(t);
	for (size_t i = 0; i < t->nplatforms; i++)
		any_abi3 |= t->platforms[i].abi3;
	if (abi3)
		cp = 0;  /* the abi3 wheel stands for every CPython */
	if (!cp && !ft && !pp && !gp && (!abi3 || any_abi3))
		return;
	python = wm_yaml_get(root, "python");
	if (!python)
		python = wm_yaml_set_before(b, root, "platforms", "python", wm_yaml_map(b));
	if (cp || ft || pp || gp) {
		if ((versions = wm_yaml_set(b, python, "versions", wm_yaml_seq(b))) != NULL)
			versions->style = WM_Y_FLOW;
		for (unsigned m = 0; m < 32; m++) {
			if (cp >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "3.%u", m));
			if (ft >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "3.%ut", m));
		}
		for (unsigned m = 0; m < 32; m++)
			if (pp >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "pp3.%u", m));
		for (unsigned m = 0; m < 32; m++)
			if (gp >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "graalpy3.%u", m));
	}
	write_excludes(t, b, root, cp, ft, pp, gp, abi3 && any_abi3);
}

/* A layer's build settings into `map` (before its key `before`, when given), each as the matrix's key takes it. */
static void write_settings(struct wm_yb *b, struct wm_y *map, const char *const *set, const char *before)
{
	for (size_t i = 0; map && i < WM_ARRAY_SIZE(settings); i++) {
		const char *v = set[i];
		struct wm_y *node = NULL;
		if (!v || settings[i].carry == C_NONE || settings[i].carry == C_BEFORE)
			continue;
		switch (settings[i].carry) {
		case C_LIST:
		case C_WORDS:
			node = wm_yaml_seq(b);
			if (node)
				node->style = WM_Y_FLOW;
			for (const char *w = v; *w;) {
				size_t k = strcspn(w, settings[i].carry == C_LIST ? "," : " \t");
				if (k)
					wm_yaml_push(b, node, wm_yaml_str(b, wm_arena_strndup(b->arena, w, k)));
				w += k;
				w += strspn(w, settings[i].carry == C_LIST ? "," : " \t");
			}
			break;
		case C_BOOL:
			node = wm_yaml_bool(b, true);
			break;
		case C_WORD:
			node = wm_yaml_str(b, v);
			break;
		case C_ENV:
			if ((node = wm_yaml_map(b)) != NULL)
				node->style = WM_Y_FLOW;
			for (const char *l = v; *l;) {
				size_t k = strcspn(l, "\n"), eq = strcspn(l, "=");
				wm_yaml_set(b, node, wm_arena_strndup(b->arena, l, eq), wm_yaml_str(b, wm_arena_strndup(b->arena,
					l + eq + 1, k - eq - 1)));
				l += k + (l[k] == '\n');
			}
			break;
		default:
			break;
		}
		if (before)
			wm_yaml_set_before(b, map, before, settings[i].key, node);
		else
			wm_yaml_set(b, map, settings[i].key, node);
	}
}

/* The default backend's build settings and before-script-linux, those every build (or most) uses. */
static void write_backend(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root)
{
	struct wm_y *backends = wm_yaml_get(root, "backends"), *def = NULL;
	bool any = t->before_script != NULL;
	for (size_t i = 0; backends && i + 1 < backends->n; i += 2) {
		struct wm_y *d = wm_yaml_get(backends->items[i + 1], "default");
		if (d && d->text && !strcmp(d->text, "true"))
			def = backends->items[i + 1];
	}
	for (size_t i = 0; i < WM_ARRAY_SIZE(settings); i++)
		any |= t->backend_set[i] != NULL;
	if (!def || !any)
		return;
	def->style = WM_Y_AUTO;
	write_settings(b, def, t->backend_set, "default");
	if (t->before_script)
		wm_yaml_set_before(b, def, "default", "before-script-linux", wm_yaml_literal(b, t->before_script));
}

void wm_init_matrix_write(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root)
{
	if (!t->nplatforms)
		return;
	write_platforms(t, b, root);
	fit_backends(t, root);
	write_pythons(t, b, root);
	write_backend(t, b, root);
}

/* ---- judging ----------------------------------------------------------------------------- */

/* Whether a Rust target (or maturin-action's short one) is of a wheel tag's architecture (riscv64, ppc64, armv7l). */
static bool arch_of_target(const char *target, const char *arch)
{
	static const struct { const char *wheel, *rust; } names[] = {
		{ "ppc64", "powerpc64-" }, { "ppc64le", "powerpc64le" }, { "armv7l", "armv7" }, { "riscv64", "riscv64" },
		{ "loongarch64", "loongarch64" }, { "s390x", "s390x" }, { "i686", "i686" }, { "x86_64", "x86_64" },
		{ "aarch64", "aarch64" }, { "armv6l", "arm-" }, { "wasm32", "wasm32-" },
	};
	for (size_t i = 0; i < WM_ARRAY_SIZE(names); i++)
		if (!strcmp(arch, names[i].wheel))
			return !strncmp(target, names[i].rust, strlen(names[i].rust)) ||
				(!strchr(target, '-') && !strcmp(target, arch));
	return false;
}

static bool build_makes(const struct wm_takeover_build *tb, const struct wm_published *w)
{
	return !tb->backend && tb->p == w->p && builds_entry(tb->cpython[0], tb->cpython[1], tb->pypy, tb->graalpy, tb->abi3, w->entry);
}

const char *wm_init_matrix_why(const struct wm_takeover *t, const struct wm_published *w, const char **workflow)
{
	const struct wm_takeover_build *unread = NULL;
	const char *note = NULL;
	*workflow = NULL;
	for (size_t i = 0; i < t->nbuilds; i++) {
		const struct wm_takeover_build *tb = &t->builds[i];
		if (w->p && build_makes(tb, w)) {
			if (!*workflow || (tb->note && !note))
				*workflow = tb->b->run->file;
			if (tb->note && !note)
				note = tb->note;
		}
		if (!tb->p && !unread)
			unread = tb;
	}
	/* a wheel of no platform of the catalogue: the build for a target of its architecture makes it */
	for (size_t i = 0; !w->p && !*workflow && i < t->nbuilds; i++) {
		const struct wm_takeover_build *tb = &t->builds[i];
		const char *target = target_of(tb->b), *arch = strrchr(w->platform, '_');
		/* (a Pyodide wheel of another ABI: the build for wasm32, whose ABI is the cross-build environment's) */
		if ((!tb->p || tb->p->os == WM_OS_EMSCRIPTEN) && !tb->backend && target && arch && arch_of_target(target, arch + 1))
			*workflow = tb->b->run->file;
	}
	/* what the matrix cannot express of the wheel itself, first; then how it was built */
	if (w->why)
		return w->why;
	if (note)
		return note;
	if (!*workflow && unread) {
		*workflow = unread->b->run->file;
		return wm_arena_printf(t->arena, "no build init reads makes it, and one it cannot read may: %s", unread->note);
	}
	return NULL;
}

bool wm_init_matrix_keeps(const struct wm_takeover *t, const char *path)
{
	for (size_t i = 0; i < t->nbuilds; i++)
		if (!strcmp(t->builds[i].b->run->file, path) && (t->builds[i].note || t->builds[i].partial))
			return true;
	return false;
}

bool wm_init_matrix_made(const struct wm_matrix *m, const char *filename)
{
	char *copy, *parts[3], *end;
	struct wm_expand *it = NULL;
	struct wm_job job;
	bool made = false;
	size_t n = strlen(filename);
	if (!m || n < 5 || strcmp(filename + n - 4, ".whl") != 0 || !(copy = strndup(filename, n - 4)))
		return false;
	/* the last three parts: the Python, ABI and platform tag sets */
	end = copy + strlen(copy);
	for (int i = 2; i >= 0; i--) {
		char *dash = end;
		while (dash > copy && dash[-1] != '-')
			dash--;
		dash = dash > copy ? dash - 1 : NULL;
		if (!dash) {
			free(copy);
			return false;
		}
		*dash = '\0';
		parts[i] = dash + 1;
		end = dash;
	}
	if (wm_expand_new(&it, m, WM_EXPAND_JOBS) == 0) {
		while (!made && wm_expand_next(it, &job) > 0)
			made = wm_catalog_tag_in(parts[0], wm_python_tag(job.python, job.platform)) &&
				wm_catalog_tag_in(parts[1], job.python->abi_tag) &&
				wm_catalog_tag_in(parts[2], job.platform->platform_tag);
		wm_expand_free(it);
	}
	free(copy);
	return made;
}
