/* patch.c — libFuzzer target: the pyproject.toml patcher (patch.c) with libgit2 applying its diff both ways (diff.c, repo.c). */
#include <git2.h>
#include "fuzz.h"
#include "util/buf.h"
#include "util/sha1.h"
#include "formats/diff.h"
#include "formats/toml.h"
#include "emit/patch.h"
#include "repo/repo.h"

/*
 * Input: a pyproject.toml.  Each of the variant specs below (a rename; a
 * rename with features and pinned maturin settings; dependencies with a
 * self-reference renamed; features only; a labelled version with features
 * and dependencies) is applied to it.
 *
 * Properties, for a document the TOML reader accepts:
 *   1. wm_patch_pyproject returns 0 or WM_EINVALID (never WM_EINTERNAL: two
 *      edits overlapping), WM_EINVALID when [project].name is no string; a refusal adds nothing to the output and has an
 *      error positioned inside the input;
 *   2. the patched text parses as TOML; [project].name is the new name (or
 *      the old one when the spec keeps it); [tool.maturin].features holds
 *      every feature asked for, [project].dependencies every dependency;
 *      module-name, python-source and manifest-path are the pinned values;
 *      [project].version is the version asked for, no longer dynamic;
 *   3. patching is idempotent: the spec applied to the patched text changes
 *      nothing more;
 *   4. the git-format diff of the edit (the variant patch `generate` writes),
 *      and the same turned round, have the shape wm_diff_check holds the
 *      patches of the repository to; it is read by libgit2 as one modified pyproject.toml with the blob ids of
 *      both texts; applied by libgit2 to the original it gives exactly the
 *      patched text, and turned round (wm_diff_reverse) and applied to the
 *      patched text it gives back exactly the original.
 */

static const char *const features_a[] = { "cublas", "pyo3/extension-module" };
static const char *const features_b[] = { "metal" };
static const char *const deps_a[] = { "numpy>=1.20", "llm-rs-meta[cuda]==0.2.15" };

static const struct wm_patch_spec specs[] = {
	{ .name = "llm-rs-cuda" },
	{ .name = "llm-rs-cuda", .features = features_a, .nfeatures = 2, .module_name = "_llm_rs_cuda.llm_rs",
	  .python_source = ".wheelmatrix/python/cuda", .manifest_path = "Cargo.toml" },
	{ .name = "llm-rs-metal", .old_name = "llm-rs", .dependencies = deps_a, .ndependencies = 2 },
	{ .features = features_b, .nfeatures = 1 },
	/* strategy index: the labelled version, with the features and the dependencies a variant adds */
	{ .features = features_b, .nfeatures = 1, .dependencies = deps_a, .ndependencies = 2, .version = "0.2.15+cuda" },
};

static void fail_errors(const struct wm_error *err, const char *what)
{
	fuzz_print_errors(err);
	FUZZ_CHECK(0, "%s", what);
}

static bool array_has(const struct wm_toml_value *arr, const char *s)
{
	if (!wm_toml_is_array(arr))
		return false;
	for (size_t i = 0; i < arr->array.n; i++) {
		const struct wm_toml_value *v = arr->array.items[i];
		if (wm_toml_is_string(v) && strcmp(v->str, s) == 0)
			return true;
	}
	return false;
}

static void check_string(const struct wm_toml_table *root, const char *path, const char *want)
{
	const struct wm_toml_value *v = wm_toml_get_path(root, path);
	FUZZ_CHECK(wm_toml_is_string(v) && strcmp(v->str, want) == 0, "%s is not '%s' after the patch", path, want);
}

/* libgit2 applies the diff of old -> new forward and, turned round, backward. */
static void check_diff(const char *old, size_t oldlen, const char *new, size_t newlen)
{
	struct wm_buf patch = WM_BUF_INIT, reversed = WM_BUF_INIT, post = WM_BUF_INIT, pre = WM_BUF_INIT;
	struct wm_repo_patch info = { 0 };
	struct wm_error err;
	char oldid[41], newid[41];

	wm_error_init(&err);
	wm_sha1_git_blob(oldid, old, oldlen);
	wm_sha1_git_blob(newid, new, newlen);
	FUZZ_CHECK(wm_diff_git(&patch, "pyproject.toml", old, oldlen, new, newlen) == 0, "wm_diff_git failed");
	FUZZ_CHECK(wm_diff_reverse(&reversed, patch.ptr, patch.len) == 0, "wm_diff_reverse failed");
	{
		/* what generate writes is what the commands read back: the shape wm_diff_check holds patches to */
		struct wm_diff_file f;
		struct wm_diff_problem why;
		FUZZ_CHECK(wm_diff_check(&f, patch.ptr, patch.len, &why) == 0, "wm_diff_check refuses the diff (%s, line %u):\n%s",
			why.why, why.line, patch.ptr);
		FUZZ_CHECK(wm_diff_check(&f, reversed.ptr, reversed.len, &why) == 0,
			"wm_diff_check refuses the reversed diff (%s, line %u):\n%s", why.why, why.line, reversed.ptr);
	}
	if (wm_repo_patch_read_git(&info, patch.ptr, patch.len, &err) < 0)
		fail_errors(&err, "libgit2 cannot read the diff");
	FUZZ_CHECK(strcmp(info.path, "pyproject.toml") == 0 && info.full_ids && strcmp(info.old_id, oldid) == 0 &&
		strcmp(info.new_id, newid) == 0, "libgit2 reads the diff as %s %s..%s", info.path, info.old_id,
		info.new_id);
	if (wm_repo_patch_apply_git(&post, patch.ptr, patch.len, "pyproject.toml", old, oldlen, &err) < 0)
		fail_errors(&err, "libgit2 cannot apply the diff");
	FUZZ_CHECK(post.len == newlen && memcmp(post.ptr ? post.ptr : "", new, newlen) == 0,
		"the diff applied by libgit2 does not give the patched text:\n%s", patch.ptr);
	if (wm_repo_patch_apply_git(&pre, reversed.ptr, reversed.len, "pyproject.toml", new, newlen, &err) < 0)
		fail_errors(&err, "libgit2 cannot apply the reversed diff");
	FUZZ_CHECK(pre.len == oldlen && memcmp(pre.ptr ? pre.ptr : "", old, oldlen) == 0,
		"the reversed diff applied by libgit2 does not give the original:\n%s", reversed.ptr);
	wm_repo_patch_release(&info);
	wm_buf_release(&patch);
	wm_buf_release(&reversed);
	wm_buf_release(&post);
	wm_buf_release(&pre);
	wm_error_release(&err);
}

static void check_spec(const struct wm_toml_doc *doc, const struct wm_patch_spec *spec)
{
	struct wm_buf out = WM_BUF_INIT, again = WM_BUF_INIT;
	struct wm_toml_doc patched;
	struct wm_error err;
	const struct wm_toml_value *old_name = wm_toml_get_path(doc->root, "project.name");
	int ret;

	wm_error_init(&err);
	ret = wm_patch_pyproject(&out, doc, spec, &err);
	if (ret == WM_EINTERNAL)
		fail_errors(&err, "the patcher's edits overlapped");
	FUZZ_CHECK(ret == 0 || ret == WM_EINVALID, "wm_patch_pyproject returned %d", ret);
	FUZZ_CHECK(ret < 0 || wm_toml_is_string(old_name), "patched a document without a string [project].name");
	if (ret < 0) {
		FUZZ_CHECK(out.len == 0, "a refused patch wrote %zu bytes", out.len);
		FUZZ_CHECK(err.nerrors > 0, "refused without an error");
		fuzz_check_positions(&err, "pyproject.toml", doc->text, doc->len);
		wm_error_release(&err);
		wm_buf_release(&out);
		return;
	}
	if (wm_toml_parse(&patched, "pyproject.toml", out.ptr ? out.ptr : "", out.len, &err) < 0) {
		fuzz_print_errors(&err);
		FUZZ_CHECK(0, "the patched text does not parse:\n%.*s", (int)out.len, out.ptr);
	}
	check_string(patched.root, "project.name", spec->name ? spec->name : old_name->str);
	for (size_t i = 0; i < spec->nfeatures; i++)
		FUZZ_CHECK(array_has(wm_toml_get_path(patched.root, "tool.maturin.features"), spec->features[i]),
			"feature '%s' is not in [tool.maturin].features", spec->features[i]);
	for (size_t i = 0; i < spec->ndependencies; i++)
		FUZZ_CHECK(array_has(wm_toml_get_path(patched.root, "project.dependencies"), spec->dependencies[i]),
			"dependency '%s' is not in [project].dependencies", spec->dependencies[i]);
	if (spec->version) {
		check_string(patched.root, "project.version", spec->version);
		FUZZ_CHECK(!array_has(wm_toml_get_path(patched.root, "project.dynamic"), "version"),
			"the version is still in [project].dynamic");
	}
	if (spec->module_name)
		check_string(patched.root, "tool.maturin.module-name", spec->module_name);
	if (spec->python_source)
		check_string(patched.root, "tool.maturin.python-source", spec->python_source);
	if (spec->manifest_path)
		check_string(patched.root, "tool.maturin.manifest-path", spec->manifest_path);

	/* the same spec again: nothing left to do */
	{
		struct wm_patch_spec s2 = *spec;
		if (!s2.old_name)
			s2.old_name = old_name->str;
		ret = wm_patch_pyproject(&again, &patched, &s2, &err);
		if (ret < 0)
			fail_errors(&err, "the patched text cannot be patched again");
		FUZZ_CHECK(again.len == out.len && memcmp(again.ptr ? again.ptr : "", out.ptr ? out.ptr : "", out.len) == 0,
			"patching twice changes more:\n--- once\n%.*s\n--- twice\n%.*s", (int)out.len, out.ptr,
			(int)again.len, again.ptr);
	}

	if (out.len != doc->len || memcmp(out.ptr ? out.ptr : "", doc->text, doc->len) != 0)
		check_diff(doc->text, doc->len, out.ptr ? out.ptr : "", out.len);
	wm_toml_release(&patched);
	wm_buf_release(&again);
	wm_buf_release(&out);
	wm_error_release(&err);
}

/*
 * libgit2 stays initialised for the whole run: repo.c initialises and shuts
 * it down around each call, and a shutdown to zero frees and reloads its
 * global state every time, which would leave a few dozen runs a second.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (git_libgit2_init() < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_toml_doc doc;
	struct wm_error err;

	wm_error_init(&err);
	if (wm_toml_parse(&doc, "pyproject.toml", (const char *)data, size, &err) == 0)
		for (size_t i = 0; i < WM_ARRAY_SIZE(specs); i++)
			check_spec(&doc, &specs[i]);
	wm_toml_release(&doc);
	wm_error_release(&err);
	return 0;
}
