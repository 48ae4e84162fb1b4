/* patchfile.c — libFuzzer target: a patch file from the repository, checked for the shape generate writes and applied by formats/diff.c alone. */
#include <git2.h>
#include "fuzz.h"
#include "util/buf.h"
#include "util/sha1.h"
#include "formats/diff.h"
#include "repo/repo.h"

/*
 * Input: a patch file, as a pull request could plant one under
 * .wheelmatrix/patches/, then (after its first NUL byte, which no patch may
 * hold) the pyproject.toml it is applied to.
 *
 * Properties:
 *   1. wm_diff_check returns 0 or 1 and never reads past the input; a
 *      refusal says why, at a line of the patch (or 0, the whole file);
 *   2. what it accepts is at most WM_DIFF_MAX_BYTES, holds no control byte
 *      but tab, LF and CR before LF, and is one file whose path and blob
 *      ids libgit2 (the judge, given only what the check accepted) reads
 *      the same;
 *   3. turned round (wm_diff_reverse), an accepted patch is accepted again,
 *      with its ids swapped;
 *   4. applied by wm_diff_apply to any text it either gives up (1, nothing
 *      appended) or makes a text from which the turned-round patch gives
 *      back exactly the text it was applied to.
 */

static bool controls_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];
		if ((b < 0x20 && b != '\t' && b != '\n' && !(b == '\r' && i + 1 < len && s[i + 1] == '\n')) || b == 0x7f)
			return false;
	}
	return true;
}

static void judge(const struct wm_diff_file *f, const char *patch, size_t len)
{
	struct wm_repo_patch info = { 0 };
	struct wm_error err;

	wm_error_init(&err);
	if (wm_repo_patch_read_git(&info, patch, len, &err) < 0) {
		fuzz_print_errors(&err);
		FUZZ_CHECK(0, "libgit2 does not read a patch wm_diff_check accepts:\n%.*s", (int)len, patch);
	}
	FUZZ_CHECK(strlen(info.path) == f->pathlen && memcmp(info.path, f->path, f->pathlen) == 0 &&
		strcmp(info.old_id, f->old_id) == 0 && strcmp(info.new_id, f->new_id) == 0,
		"libgit2 reads %s %s..%s", info.path, info.old_id, info.new_id);
	wm_repo_patch_release(&info);
	wm_error_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(text, '\0', size);
	size_t len = nul ? (size_t)(nul - text) : size, prelen = nul ? size - len - 1 : 0;
	const char *pre = nul ? nul + 1 : "";
	struct wm_buf reversed = WM_BUF_INIT, post = WM_BUF_INIT, back = WM_BUF_INIT;
	struct wm_diff_file f, r;
	struct wm_diff_problem why;
	char path[4096];
	int ret;

	ret = wm_diff_check(&f, text, len, &why);
	FUZZ_CHECK(ret == 0 || ret == 1, "wm_diff_check returned %d", ret);
	if (ret == 1) {
		FUZZ_CHECK(why.why[0] != '\0', "a refusal without a reason");
		FUZZ_CHECK(why.line <= len + 1, "a refusal at line %u of %zu bytes", why.line, len);
		return 0;
	}
	FUZZ_CHECK(len <= WM_DIFF_MAX_BYTES && controls_ok(text, len), "accepted a control byte or %zu bytes", len);
	FUZZ_CHECK(f.path > text && f.path + f.pathlen <= text + len && f.pathlen < sizeof(path), "the path is outside the patch");
	memcpy(path, f.path, f.pathlen);
	path[f.pathlen] = '\0';
	judge(&f, text, len);

	FUZZ_CHECK(wm_diff_reverse(&reversed, text, len) == 0 && !reversed.oom, "an accepted patch does not turn round");
	FUZZ_CHECK(wm_diff_check(&r, reversed.ptr, reversed.len, &why) == 0, "the turned-round patch is refused (%s, line %u):\n%s",
		why.why, why.line, reversed.ptr);
	FUZZ_CHECK(strcmp(r.old_id, f.new_id) == 0 && strcmp(r.new_id, f.old_id) == 0, "the turned-round ids are not swapped");

	ret = wm_diff_apply(&post, text, len, path, pre, prelen);
	FUZZ_CHECK(ret == 0 || ret == 1, "wm_diff_apply returned %d", ret);
	FUZZ_CHECK(ret == 0 || post.len == 0, "a patch that does not apply appended %zu bytes", post.len);
	if (ret == 0) {
		ret = wm_diff_apply(&back, reversed.ptr, reversed.len, path, post.ptr ? post.ptr : "", post.len);
		FUZZ_CHECK(ret == 0 && back.len == prelen && memcmp(back.ptr ? back.ptr : "", pre, prelen) == 0,
			"the turned-round patch does not give back the text (%d):\n%s", ret, reversed.ptr);
	}
	wm_buf_release(&reversed);
	wm_buf_release(&post);
	wm_buf_release(&back);
	return 0;
}
