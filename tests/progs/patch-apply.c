/* patch-apply.c — applies a variant patch spec (tests/patches/NAME/spec) to a pyproject.toml, the result on stdout; libgit2 must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/io.h"
#include "util/sha1.h"
#include "formats/diff.h"
#include "formats/toml.h"
#include "emit/patch.h"
#include "repo/repo.h"

/*
 * usage: patch-apply SPEC PYPROJECT
 *
 * SPEC has one `key = value` a line (the value is the rest of the line,
 * blanks around it dropped, no quoting); blank lines and lines starting
 * with `#` are skipped.  Keys: name, old-name, feature, module-name,
 * python-source, manifest-path, dependency (feature and dependency repeat).
 * Exit 0 with the patched text on stdout; 1 with the diagnostics on stderr
 * (`file:line:column: error: message`) when patching fails; 2 on a bad
 * spec or usage; 3 when libgit2 disagrees: the git-format diff of the edit
 * (the variant patch `generate` writes) must parse with libgit2 as one
 * modified file with the blob ids of both texts, apply in libgit2's
 * in-memory object store to give exactly the patched text, and, turned
 * round, give back exactly the original; and formats/diff.c, which check
 * uses without libgit2, must read and apply both exactly, with the same
 * results.
 */

#define MAX_ITEMS 64

struct spec {
	struct wm_patch_spec s;
	const char *features[MAX_ITEMS], *dependencies[MAX_ITEMS];
};

static char *trim(char *s)
{
	char *e = s + strlen(s);
	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int add_item(const char **items, size_t *n, const char *value, const char *path, unsigned line)
{
	if (*n == MAX_ITEMS) {
		fprintf(stderr, "%s:%u: too many items (at most %d)\n", path, line, MAX_ITEMS);
		return -1;
	}
	items[(*n)++] = value;
	return 0;
}

/* Parses SPEC's text (modified in place; the spec points into it). */
static int parse_spec(struct spec *sp, char *text, const char *path)
{
	unsigned line = 0;
	memset(sp, 0, sizeof(*sp));
	sp->s.features = sp->features;
	sp->s.dependencies = sp->dependencies;
	for (char *next, *l = text; l && *l; l = next) {
		char *eq, *key, *value;
		line++;
		if ((next = strchr(l, '\n')))
			*next++ = '\0';
		l = trim(l);
		if (*l == '\0' || *l == '#')
			continue;
		if (!(eq = strchr(l, '='))) {
			fprintf(stderr, "%s:%u: expected 'key = value'\n", path, line);
			return -1;
		}
		*eq = '\0';
		key = trim(l);
		value = trim(eq + 1);
		if (!strcmp(key, "name"))
			sp->s.name = value;
		else if (!strcmp(key, "old-name"))
			sp->s.old_name = value;
		else if (!strcmp(key, "module-name"))
			sp->s.module_name = value;
		else if (!strcmp(key, "python-source"))
			sp->s.python_source = value;
		else if (!strcmp(key, "manifest-path"))
			sp->s.manifest_path = value;
		else if (!strcmp(key, "feature")) {
			if (add_item(sp->features, &sp->s.nfeatures, value, path, line) < 0)
				return -1;
		} else if (!strcmp(key, "dependency")) {
			if (add_item(sp->dependencies, &sp->s.ndependencies, value, path, line) < 0)
				return -1;
		} else {
			fprintf(stderr, "%s:%u: unknown key '%s'\n", path, line, key);
			return -1;
		}
	}
	return 0;
}

static void print_errors(const struct wm_error *err)
{
	for (size_t i = 0; i < err->ndiags; i++) {
		const struct wm_diag *d = &err->diags[i];
		const char *sev = d->severity == WM_SEV_ERROR ? "error" : d->severity == WM_SEV_WARNING ? "warning" : "note";
		if (d->line)
			fprintf(stderr, "%s:%u:%u: %s: %s\n", d->file ? d->file : "", d->line, d->column, sev, d->message);
		else
			fprintf(stderr, "%s: %s: %s\n", d->file ? d->file : "", sev, d->message);
	}
}

static int same(const char *what, const char *path, const struct wm_buf *got, const char *want, size_t len)
{
	if (got->len == len && memcmp(got->ptr ? got->ptr : "", want, len) == 0)
		return 0;
	fprintf(stderr, "%s: libgit2's %s differs from the expected text\n", path, what);
	return -1;
}

/*
 * formats/diff.c reads and applies, exactly, every patch generate writes, both ways, as libgit2
 * does: the same path and ids, the same texts.
 */
static int diff_agrees(const char *path, const struct wm_buf *patch, const struct wm_buf *reversed,
	const struct wm_repo_patch *info, const char *old, size_t oldlen, const char *new, size_t newlen)
{
	struct wm_buf post = WM_BUF_INIT, pre = WM_BUF_INIT;
	struct wm_diff_file ours;
	int ret = -1;

	if (wm_diff_read(&ours, patch->ptr, patch->len) != 0 || ours.pathlen != strlen(info->path) ||
	    memcmp(ours.path, info->path, ours.pathlen) != 0 || strcmp(ours.old_id, info->old_id) != 0 ||
	    strcmp(ours.new_id, info->new_id) != 0) {
		fprintf(stderr, "%s: formats/diff.c does not read the patch as libgit2 does\n", path);
		goto out;
	}
	if (wm_diff_apply(&post, patch->ptr, patch->len, "pyproject.toml", old, oldlen) != 0 ||
	    wm_diff_apply(&pre, reversed->ptr, reversed->len, "pyproject.toml", new, newlen) != 0) {
		fprintf(stderr, "%s: formats/diff.c does not apply the patch exactly\n", path);
		goto out;
	}
	if (post.len != newlen || memcmp(post.ptr ? post.ptr : "", new, newlen) != 0 ||
	    pre.len != oldlen || memcmp(pre.ptr ? pre.ptr : "", old, oldlen) != 0) {
		fprintf(stderr, "%s: formats/diff.c's result differs from libgit2's\n", path);
		goto out;
	}
	ret = 0;
out:
	wm_buf_release(&post);
	wm_buf_release(&pre);
	return ret;
}

/* The variant patch of old -> new, read and applied by libgit2 both ways, and by formats/diff.c. */
static int libgit2_agrees(const char *path, const char *old, size_t oldlen, const char *new, size_t newlen)
{
	struct wm_buf patch = WM_BUF_INIT, reversed = WM_BUF_INIT, post = WM_BUF_INIT, pre = WM_BUF_INIT;
	struct wm_repo_patch info = { 0 };
	struct wm_error err;
	char oldid[41], newid[41];
	int ret = -1;

	wm_error_init(&err);
	if (oldlen == newlen && memcmp(old, new, oldlen) == 0) {
		ret = 0;  /* no change, no patch */
		goto out;
	}
	wm_sha1_git_blob(oldid, old, oldlen);
	wm_sha1_git_blob(newid, new, newlen);
	if (wm_diff_git(&patch, "pyproject.toml", old, oldlen, new, newlen) < 0 ||
	    wm_diff_reverse(&reversed, patch.ptr, patch.len) < 0) {
		fprintf(stderr, "%s: cannot make the diff\n", path);
		goto out;
	}
	if (wm_repo_patch_read_git(&info, patch.ptr, patch.len, &err) < 0 ||
	    wm_repo_patch_apply_git(&post, patch.ptr, patch.len, "pyproject.toml", old, oldlen, &err) < 0 ||
	    wm_repo_patch_apply_git(&pre, reversed.ptr, reversed.len, "pyproject.toml", new, newlen, &err) < 0) {
		print_errors(&err);
		goto out;
	}
	if (strcmp(info.path, "pyproject.toml") != 0 || !info.full_ids || strcmp(info.old_id, oldid) != 0 ||
	    strcmp(info.new_id, newid) != 0) {
		fprintf(stderr, "%s: libgit2 reads the patch as %s %s..%s\n", path, info.path, info.old_id, info.new_id);
		goto out;
	}
	if (same("patched file", path, &post, new, newlen) < 0 || same("reverted file", path, &pre, old, oldlen) < 0)
		goto out;
	ret = diff_agrees(path, &patch, &reversed, &info, old, oldlen, new, newlen);
out:
	wm_repo_patch_release(&info);
	wm_buf_release(&patch);
	wm_buf_release(&reversed);
	wm_buf_release(&post);
	wm_buf_release(&pre);
	wm_error_release(&err);
	return ret;
}

int main(int argc, char **argv)
{
	struct wm_error err;
	struct wm_toml_doc doc;
	struct wm_buf out = WM_BUF_INIT;
	struct spec sp;
	char *spectext = NULL, *text = NULL;
	size_t speclen, len;
	int status = 1;

	wm_error_init(&err);
	memset(&doc, 0, sizeof(doc));
	if (argc != 3) {
		fprintf(stderr, "usage: patch-apply SPEC PYPROJECT\n");
		return 2;
	}
	if (wm_io_read(&spectext, &speclen, argv[1], 1 << 20, &err) < 0 || memchr(spectext, '\0', speclen)) {
		print_errors(&err);
		status = 2;
		goto out;
	}
	if (parse_spec(&sp, spectext, argv[1]) < 0) {
		status = 2;
		goto out;
	}
	if (wm_io_read(&text, &len, argv[2], WM_TOML_MAX_BYTES, &err) < 0 ||
			wm_toml_parse(&doc, argv[2], text, len, &err) < 0 ||
			wm_patch_pyproject(&out, &doc, &sp.s, &err) < 0) {
		print_errors(&err);
		goto out;
	}
	if (libgit2_agrees(argv[2], text, len, out.ptr ? out.ptr : "", out.len) < 0) {
		status = 3;
		goto out;
	}
	if (fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		perror("patch-apply: stdout");
		goto out;
	}
	status = 0;
out:
	wm_buf_release(&out);
	wm_toml_release(&doc);
	wm_error_release(&err);
	free(text);
	free(spectext);
	return status;
}
