/* repo.c — the git repository through libgit2 (its only user): discovery, filters, patches applied in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include "internal.h"

struct wm_repo {
	git_repository *git;
	const char *workdir;   /* with a final '/'; NULL for a bare repository */
};

/* Reports libgit2's last error as "<what>: <libgit2's message>". */
static int git_fail(struct wm_error *err, enum wm_err code, const char *what)
{
	const git_error *e = git_error_last();
	wm_error_add(err, code, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0, "%s: %s", what,
		e && e->message ? e->message : "unknown libgit2 error");
	return code;
}

int wm_repo_discover(struct wm_repo **out, const char *dir, struct wm_error *err)
{
	struct wm_repo *r;
	git_repository *git = NULL;
	int ret;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return git_fail(err, WM_EIO, "cannot initialise libgit2");
	ret = git_repository_open_ext(&git, dir, 0, NULL);
	if (ret == GIT_ENOTFOUND) {
		git_libgit2_shutdown();
		return 1;
	}
	if (ret < 0) {
		ret = git_fail(err, WM_EIO, "cannot open the git repository");
		git_libgit2_shutdown();
		return ret;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		git_repository_free(git);
		git_libgit2_shutdown();
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	r->git = git;
	r->workdir = git_repository_workdir(git);
	*out = r;
	return 0;
}

void wm_repo_free(struct wm_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->git);
	free(r);
	git_libgit2_shutdown();
}

const char *wm_repo_workdir(const struct wm_repo *r)
{
	return r->workdir;
}

int wm_repo_filter(struct wm_buf *out, struct wm_repo *r, const char *path, bool to_worktree,
	const char *data, size_t len, struct wm_error *err)
{
	git_filter_list *filters = NULL;
	git_buf converted = { 0 };
	int ret;

	if (git_filter_list_load(&filters, r->git, NULL, path,
			to_worktree ? GIT_FILTER_TO_WORKTREE : GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT) < 0)
		return git_fail(err, WM_EIO, "cannot load the git filters");
	if (!filters) {  /* no filter applies to the path */
		wm_buf_add(out, data, len);
		ret = 0;
		goto out;
	}
	if (git_filter_list_apply_to_buffer(&converted, filters, data, len) < 0) {
		ret = git_fail(err, WM_EIO, "cannot filter the file");
		goto out;
	}
	wm_buf_add(out, converted.ptr, converted.size);
	ret = 0;
out:
	if (out->oom) {
		wm_error_code(err, WM_ENOMEM);
		ret = WM_ENOMEM;
	}
	git_buf_dispose(&converted);
	git_filter_list_free(filters);
	return ret;
}

/* ---- patches, parsed and applied in memory ----------------------------------- */

int wm_git_patch_read(struct wm_git_patch *out, const char *patch, size_t len, struct wm_error *err)
{
	git_diff *diff = NULL;
	const git_diff_delta *d;
	int ret;

	memset(out, 0, sizeof(*out));
	if (git_libgit2_init() < 0)
		return git_fail(err, WM_EIO, "cannot initialise libgit2");
	if (git_diff_from_buffer(&diff, patch, len) < 0) {
		ret = git_fail(err, WM_EINVALID, "not a patch");
		goto out;
	}
	if (git_diff_num_deltas(diff) != 1) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"a variant patch changes one file, not %zu", git_diff_num_deltas(diff));
		ret = WM_EINVALID;
		goto out;
	}
	d = git_diff_get_delta(diff, 0);
	if (d->status != GIT_DELTA_MODIFIED || !d->old_file.path || !d->new_file.path ||
	    strcmp(d->old_file.path, d->new_file.path) != 0) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"a variant patch modifies one file in place");
		ret = WM_EINVALID;
		goto out;
	}
	if (!(out->path = strdup(d->old_file.path))) {
		wm_error_code(err, WM_ENOMEM);
		ret = WM_ENOMEM;
		goto out;
	}
	/* abbreviated ids cannot be compared: ours are always full */
	out->full_ids = d->old_file.id_abbrev == GIT_OID_HEXSZ && d->new_file.id_abbrev == GIT_OID_HEXSZ;
	git_oid_tostr(out->old_id, sizeof(out->old_id), &d->old_file.id);
	git_oid_tostr(out->new_id, sizeof(out->new_id), &d->new_file.id);
	ret = 0;
out:
	git_diff_free(diff);
	git_libgit2_shutdown();
	return ret;
}

void wm_git_patch_release(struct wm_git_patch *p)
{
	free(p->path);
	p->path = NULL;
}

/*
 * Writes a tree holding only `data` at `path` (subdirectories included)
 * into the repository's object store.
 */
static int write_tree(git_oid *out, git_repository *repo, const char *path, const git_oid *blob)
{
	const char *slash = strchr(path, '/');
	git_treebuilder *tb = NULL;
	git_oid sub;
	char *name = NULL;
	int ret;

	if (slash) {
		if ((ret = write_tree(&sub, repo, slash + 1, blob)) < 0)
			return ret;
		if (!(name = strndup(path, (size_t)(slash - path))))
			return -1;
	}
	ret = git_treebuilder_new(&tb, repo, NULL);
	if (ret == 0)
		ret = git_treebuilder_insert(NULL, tb, slash ? name : path, slash ? &sub : blob,
			slash ? GIT_FILEMODE_TREE : GIT_FILEMODE_BLOB);
	if (ret == 0)
		ret = git_treebuilder_write(out, tb);
	git_treebuilder_free(tb);
	free(name);
	return ret;
}

int wm_git_patch_apply(struct wm_buf *out, const char *patch, size_t patchlen, const char *path,
	const char *pre, size_t prelen, struct wm_error *err)
{
	git_odb *odb = NULL;
	git_odb_backend *mempack = NULL;
	git_repository *repo = NULL;
	git_diff *diff = NULL;
	git_tree *tree = NULL;
	git_index *post = NULL;
	git_blob *blob = NULL;
	const git_index_entry *e;
	git_oid id, tree_id;
	int ret;

	if (git_libgit2_init() < 0)
		return git_fail(err, WM_EIO, "cannot initialise libgit2");
	/* a repository of nothing but an in-memory object store: nothing reaches the disk */
	if (git_odb_new(&odb) < 0 || git_mempack_new(&mempack) < 0) {
		ret = git_fail(err, WM_EIO, "cannot create an in-memory object store");
		goto out;
	}
	if (git_odb_add_backend(odb, mempack, 1) < 0) {
		ret = git_fail(err, WM_EIO, "cannot create an in-memory object store");
		mempack->free(mempack);
		goto out;
	}
	if (git_repository_wrap_odb(&repo, odb) < 0 ||
	    git_odb_write(&id, odb, pre, prelen, GIT_OBJECT_BLOB) < 0 ||
	    write_tree(&tree_id, repo, path, &id) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0) {
		ret = git_fail(err, WM_EIO, "cannot store the file to patch");
		goto out;
	}
	if (git_diff_from_buffer(&diff, patch, patchlen) < 0) {
		ret = git_fail(err, WM_EINVALID, "not a patch");
		goto out;
	}
	if (git_apply_to_tree(&post, repo, tree, diff, NULL) < 0) {
		ret = git_fail(err, WM_ESTATE, "the patch does not apply");
		goto out;
	}
	if (!(e = git_index_get_bypath(post, path, 0))) {
		wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"the patch does not apply: it removes '%s'", path);
		ret = WM_ESTATE;
		goto out;
	}
	if (git_blob_lookup(&blob, repo, &e->id) < 0) {
		ret = git_fail(err, WM_EIO, "cannot read the patched file");
		goto out;
	}
	wm_buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	ret = 0;
	if (out->oom) {
		wm_error_code(err, WM_ENOMEM);
		ret = WM_ENOMEM;
	}
out:
	git_blob_free(blob);
	git_index_free(post);
	git_diff_free(diff);
	git_tree_free(tree);
	git_repository_free(repo);
	git_odb_free(odb);
	git_libgit2_shutdown();
	return ret;
}
