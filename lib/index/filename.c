/* filename.c — artifact file names: building the wheel and sdist names of a release, reading the index's. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "model/catalog.h"
#include "index/filename.h"

/* The name part of a wheel or sdist file: PEP 503's name with `_` for its `-`. */
void wm_filename_dist(char *out, const char *name)
{
	wm_name_normalize(out, name);
	for (; *out; out++)
		if (*out == '-')
			*out = '_';
}

char *wm_filename_wheel(struct wm_arena *a, const char *dist, const char *version, const char *python_tag,
	const char *abi_tag, const char *platform_tag)
{
	char *name = wm_arena_alloc(a, strlen(dist) + 1);
	if (!name)
		return NULL;
	wm_filename_dist(name, dist);
	return wm_arena_printf(a, "%s-%s-%s-%s-%s.whl", name, version, python_tag, abi_tag, platform_tag);
}

char *wm_filename_sdist(struct wm_arena *a, const char *dist, const char *version)
{
	char *name = wm_arena_alloc(a, strlen(dist) + 1);
	if (!name)
		return NULL;
	wm_filename_dist(name, dist);
	return wm_arena_printf(a, "%s-%s.tar.gz", name, version);
}

char *wm_filename_variant_wheel(struct wm_arena *a, const char *dist, const char *version, const char *python_tag,
	const char *abi_tag, const char *platform_tag, const char *label)
{
	char *wheel = wm_filename_wheel(a, dist, version, python_tag, abi_tag, platform_tag);
	if (!wheel)
		return NULL;
	return wm_arena_printf(a, "%.*s-%s.whl", (int)(strlen(wheel) - 4), wheel, label);
}

char *wm_filename_variants_json(struct wm_arena *a, const char *dist, const char *version)
{
	char *name = wm_arena_alloc(a, strlen(dist) + 1);
	if (!name)
		return NULL;
	wm_filename_dist(name, dist);
	return wm_arena_printf(a, "%s-%s-variants.json", name, version);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && strcmp(s + len - n, suffix) == 0;
}

int wm_filename_parse(struct wm_filename *out, struct wm_arena *a, const char *filename)
{
	size_t len = strlen(filename), n = 0;
	char *stem, *parts[7], *p;

	memset(out, 0, sizeof(*out));
	out->kind = WM_FILE_OTHER;
	if (ends_with(filename, len, ".whl")) {
		if (!(stem = wm_arena_strndup(a, filename, len - 4)))
			return WM_ENOMEM;
		/* name-version[-build]-python-abi-platform[-label]; the name and the version hold no '-' */
		bool label;
		for (p = stem; n < WM_ARRAY_SIZE(parts); ) {
			parts[n++] = p;
			if (!(p = strchr(p, '-')))
				break;
			*p++ = '\0';
		}
		if (p || n < 5)
			return 0;
		label = n == 7 || (n == 6 && !isdigit((unsigned char)parts[2][0]));
		out->kind = WM_FILE_WHEEL;
		out->name = parts[0];
		out->version = parts[1];
		out->build = n == 7 || (n == 6 && !label) ? parts[2] : NULL;
		out->variant = label ? parts[n - 1] : NULL;
		n -= label;
		out->python = parts[n - 3];
		out->abi = parts[n - 2];
		out->platform = parts[n - 1];
		return 0;
	}
	if (ends_with(filename, len, "-variants.json")) {
		if (!(stem = wm_arena_strndup(a, filename, len - strlen("-variants.json"))))
			return WM_ENOMEM;
		if (!(p = strrchr(stem, '-')) || p == stem || !p[1])
			return 0;
		*p = '\0';
		out->kind = WM_FILE_VARIANTS_JSON;
		out->name = stem;
		out->version = p + 1;
		return 0;
	}
	{
		static const char *const sdists[] = { ".tar.gz", ".zip", ".tar.bz2", ".tgz" };
		for (size_t i = 0; i < WM_ARRAY_SIZE(sdists); i++) {
			if (!ends_with(filename, len, sdists[i]))
				continue;
			if (!(stem = wm_arena_strndup(a, filename, len - strlen(sdists[i]))))
				return WM_ENOMEM;
			/* legacy sdists keep the dashes of the name: the version follows the last one */
			if (!(p = strrchr(stem, '-')) || p == stem || !p[1])
				return 0;
			*p = '\0';
			out->kind = WM_FILE_SDIST;
			out->name = stem;
			out->version = p + 1;
			return 0;
		}
	}
	return 0;
}

/* Whether the dotted set has a tag that is the same as the first tagn bytes of tag. */
static bool set_has_n(const char *set, const char *tag, size_t tagn,
	bool (*same)(const char *, size_t, const char *, size_t))
{
	const char *p = set;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (same(p, n, tag, tagn))
			return true;
		if (!dot)
			return false;
		p = dot + 1;
	}
}

static bool set_has(const char *set, const char *tag, bool (*same)(const char *, size_t, const char *, size_t))
{
	return set_has_n(set, tag, strlen(tag), same);
}

static bool exact(const char *s, size_t n, const char *tag, size_t tagn)
{
	return tagn == n && strncmp(s, tag, n) == 0;
}

/* The family and architecture of a platform tag: manylinux2014_x86_64 -> "manylinux", "x86_64". */
static bool split_platform(const char *s, size_t n, char *family, size_t fsize, const char **arch, size_t *archlen)
{
	static const struct { const char *prefix, *family; } legacy[] = {
		{ "manylinux1_", "manylinux" }, { "manylinux2010_", "manylinux" }, { "manylinux2014_", "manylinux" },
	};
	static const char *const versioned[] = { "manylinux_", "musllinux_", "macosx_" };
	for (size_t i = 0; i < WM_ARRAY_SIZE(legacy); i++) {
		size_t k = strlen(legacy[i].prefix);
		if (n > k && strncmp(s, legacy[i].prefix, k) == 0) {
			snprintf(family, fsize, "%s", legacy[i].family);
			*arch = s + k;
			*archlen = n - k;
			return true;
		}
	}
	for (size_t i = 0; i < WM_ARRAY_SIZE(versioned); i++) {
		size_t k = strlen(versioned[i]);
		const char *p = s + k, *end = s + n;
		if (n <= k || strncmp(s, versioned[i], k) != 0)
			continue;
		/* _MAJOR_MINOR_ then the architecture */
		for (int part = 0; part < 2; part++) {
			if (p >= end || !isdigit((unsigned char)*p))
				return false;
			while (p < end && isdigit((unsigned char)*p))
				p++;
			if (p >= end || *p != '_')
				return false;
			p++;
		}
		if (p >= end)
			return false;
		snprintf(family, fsize, "%.*s", (int)(k - 1), s);
		*arch = p;
		*archlen = (size_t)(end - p);
		return true;
	}
	return false;
}

/*
 * PEP 783's pyemscripten_2026_0_wasm32 is the platform Pyodide named pyodide_2026_0_wasm32
 * before (maturin 1.16.0 src/target/platform_tag.rs): the same wheel.  Another platform version
 * is another ABI, never the same wheel.  True when s is the older name of the platform expected.
 */
static bool pyodide_name(const char *s, size_t n, const char *expected, size_t en)
{
	return en > 13 && strncmp(expected, "pyemscripten_", 13) == 0 && n > 8 && strncmp(s, "pyodide_", 8) == 0 &&
		exact(s + 8, n - 8, expected + 13, en - 13);
}

/*
 * Real platform tags vary where the build is the same: auditwheel and maturin
 * write compressed sets (manylinux_2_17_x86_64.manylinux2014_x86_64), a
 * manylinux or musllinux level may differ from the one asked for, and a macOS
 * wheel carries the deployment target it was built with.  So Linux and macOS
 * tags match on family and architecture; every other tag exactly.
 */
static bool platform_compatible(const char *s, size_t n, const char *expected, size_t en)
{
	char f1[16], f2[16];
	const char *a1, *a2;
	size_t n1, n2;
	if (exact(s, n, expected, en))
		return true;
	/* a Pyodide platform: its older name, or nothing else */
	if (en > 13 && strncmp(expected, "pyemscripten_", 13) == 0)
		return pyodide_name(s, n, expected, en);
	if (!split_platform(s, n, f1, sizeof(f1), &a1, &n1) ||
	    !split_platform(expected, en, f2, sizeof(f2), &a2, &n2))
		return false;
	return strcmp(f1, f2) == 0 && n1 == n2 && strncmp(a1, a2, n1) == 0;
}

/*
 * A PyPy wheel's ABI tag names the PyPy release that built it (pypy311_pp73 with PyPy 7.3,
 * pypy311_pp80 with 8.0: templates/interpreters.yaml), which changes under a release's feet: for one
 * Python version both are the same wheel.  Every other ABI tag matches exactly.
 */
static bool abi_compatible(const char *s, size_t n, const char *expected, size_t en)
{
	const char *pp = NULL;
	size_t k;
	for (size_t i = 0; !pp && i + 3 <= en; i++)
		if (strncmp(expected + i, "_pp", 3) == 0)
			pp = expected + i;
	if (exact(s, n, expected, en))
		return true;
	if (en < 4 || strncmp(expected, "pypy", 4) != 0 || !pp)
		return false;
	k = (size_t)(pp - expected) + 3;
	if (n <= k || strncmp(s, expected, k) != 0)
		return false;
	for (size_t i = k; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * The tag of a planned set that names the wheel: universal2's among its three, the PEP 600 one
 * beside its legacy alias (manylinux_2_17_x86_64 of manylinux2014_x86_64.manylinux_2_17_x86_64);
 * the tag itself when it is one.
 */
static void principal(char *out, size_t size, const char *set)
{
	const char *pick = set, *p = set;
	size_t n;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		if ((len > 11 && strncmp(p + len - 11, "_universal2", 11) == 0) || strncmp(p, "manylinux_", 10) == 0) {
			pick = p;
			break;
		}
		if (!dot)
			break;
		p = dot + 1;
	}
	n = strcspn(pick, ".");
	snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), pick);
}

/* The principal tag of platform_tag in buf; a tag longer than buf, no tag of ours, as it is. */
static const char *principal_of(char *buf, size_t size, const char *platform_tag)
{
	if (strlen(platform_tag) >= size)
		return platform_tag;
	principal(buf, size, platform_tag);
	return buf;
}

bool wm_filename_matches_wheel(const struct wm_filename *f, const char *python_tag, const char *abi_tag,
	const char *platform_tag)
{
	char buf[128];
	const char *tag = principal_of(buf, sizeof(buf), platform_tag);
	/* a compressed ABI set (abi3t's abi3.abi3t) is the same wheel when the file has each of its tags */
	for (const char *p = abi_tag; p; p = strchr(p, '.') ? strchr(p, '.') + 1 : NULL) {
		if (f->kind != WM_FILE_WHEEL || !set_has_n(f->abi, p, strcspn(p, "."), abi_compatible))
			return false;
	}
	return f->kind == WM_FILE_WHEEL && set_has(f->python, python_tag, exact) &&
		set_has(f->platform, tag, platform_compatible);
}

bool wm_filename_platform_matches(const struct wm_filename *f, const char *platform_tag)
{
	char buf[128];
	/* a compressed set (manylinux2014_i686.manylinux_2_17_i686): its PEP 600 tag */
	return f->kind == WM_FILE_WHEEL && set_has(f->platform, principal_of(buf, sizeof(buf), platform_tag), platform_compatible);
}

bool wm_filename_matches_wheel_strict(const struct wm_filename *f, const char *python_tag, const char *abi_tag,
	const char *platform_tag)
{
	if (f->kind != WM_FILE_WHEEL || !wm_catalog_tag_in(f->python, python_tag) || !wm_catalog_tag_in(f->abi, abi_tag))
		return false;
	if (wm_catalog_tag_in(f->platform, platform_tag))
		return true;
	/* the name Pyodide gave PEP 783's platform before: the same wheel, of the same version */
	return !strchr(platform_tag, '.') && set_has(f->platform, platform_tag, pyodide_name);
}
