/* variant.c — applies or reverts a backend's variant patch on the working tree, for a local build. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/name.h"
#include "util/sha1.h"
#include "formats/diff.h"
#include "formats/toml.h"
#include "model/matrix.h"
#include "model/project.h"
#include "emit/file.h"
#include "emit/generate.h"
#include "repo/repo.h"
#include "repo/variant.h"

/*
 * One patch file under .wheelmatrix/patches/, of the shape generate writes
 * (formats/diff.c checked it before anything else read it), and what its
 * header says; info.start is its diff, after the generated header.
 */
struct patch_file {
	char *text;
	size_t len;
	struct wm_diff_file info;
	char *path;  /* the file it modifies, NUL-terminated */
};

static void patch_file_release(struct patch_file *f)
{
	free(f->text);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* Whether the patch's diff, after its header, is `body` to the byte. */
static bool patch_is(const struct patch_file *f, const char *body, size_t len)
{
	size_t start = (size_t)(f->info.start - f->text);
	return f->len - start == len && memcmp(f->info.start, body, len) == 0;
}

/*
 * The working tree below `root`, its files read as git stores them.  The
 * repository is opened (and libgit2 started) only when a file is read that
 * a filter could change: most commands read files that are stored as they
 * are, and starting libgit2 costs more than all the rest of `generate`.
 */
struct worktree {
	const char *root;
	struct wm_reader files;
	bool opened;           /* the repository was looked for */
	struct wm_repo *repo;  /* NULL outside a repository */
	char *prefix;          /* the root below the repository's working tree, "" or "dir/"; NULL: no filters */
};

static void worktree_open(struct worktree *w, const char *root)
{
	memset(w, 0, sizeof(*w));
	w->root = root;
	wm_io_tree_reader(&w->files, root);
}

/* Opens the repository that holds the root, once: 0, also when there is none. */
static int worktree_repo(struct worktree *w, struct wm_error *err)
{
	int ret;

	if (w->opened)
		return 0;
	w->opened = true;
	if ((ret = wm_repo_discover(&w->repo, w->root, err)) != 0)
		return ret < 0 ? ret : 0;
	if (!wm_repo_workdir(w->repo))  /* bare: no working tree to convert for */
		return 0;
	return wm_repo_prefix(&w->prefix, w->repo, w->root, err);
}

static void worktree_close(struct worktree *w)
{
	wm_repo_free(w->repo);
	free(w->prefix);
}

/*
 * Converts `data`, the content of root/path, as git does on its way into
 * the object store (`to_worktree` false, as `git hash-object` sees it) or
 * out to the working tree: line endings under core.autocrlf and
 * .gitattributes.  Copies it as it is outside a repository.
 */
static int worktree_filter(struct wm_buf *out, struct worktree *w, const char *path, bool to_worktree,
	const char *data, size_t len, struct wm_error *err)
{
	struct wm_buf gitpath = WM_BUF_INIT;
	int ret = 0;

	if (!to_worktree && wm_repo_filter_stores_as_is(data, len))
		;  /* stored as it is, in any repository */
	else if ((ret = worktree_repo(w, err)) < 0)
		return ret;
	if (w->prefix) {
		wm_buf_printf(&gitpath, "%s%s", w->prefix, path);
		ret = gitpath.oom ? WM_ENOMEM : wm_repo_filter(out, w->repo, gitpath.ptr, to_worktree, data, len, err);
	} else {
		wm_buf_add(out, data, len);
	}
	wm_buf_release(&gitpath);
	if (ret == 0 && out->oom)
		ret = WM_ENOMEM;
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	return ret;
}

/* Reads root/path as git stores it into `out`: 1 when there is no such file. */
static int worktree_read(struct wm_buf *out, struct worktree *w, const char *path, struct wm_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int ret = w->files.read(w->files.ctx, path, &data, &len, err);
	if (ret == 0)
		ret = worktree_filter(out, w, path, false, data, len, err);
	free(data);
	return ret;
}

/*
 * Checks that `text` (taken over) has exactly the shape generate writes
 * before anything reads it further, and keeps it in `out`: 0, or
 * WM_EINVALID with the reason at its line of `path`.
 */
static int take_patch(struct patch_file *out, char *text, size_t len, const char *path, struct wm_error *err)
{
	struct wm_diff_problem why;
	int ret;

	memset(out, 0, sizeof(*out));
	out->text = text;
	out->len = len;
	if ((ret = wm_diff_check(&out->info, text, len, &why)) < 0) {
		wm_error_code(err, ret);
		return ret;
	}
	if (ret == 1) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, path, NULL, 0, why.line, why.line ? 1 : 0, 0,
			"not a patch of the shape 'wheelmatrix generate' writes (%s): nothing reads it further; "
			"regenerate it with 'wheelmatrix generate', or remove it", why.why);
		return WM_EINVALID;
	}
	if (!(out->path = strndup(out->info.path, out->info.pathlen)))
		return wm_error_oom(err);
	return 0;
}

/* Reads root/path as git stores it, and checks its shape: 1 when there is no such file. */
static int read_patch(struct patch_file *out, struct worktree *w, const char *path, struct wm_error *err)
{
	struct wm_buf text = WM_BUF_INIT;
	size_t len;
	char *data;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = worktree_read(&text, w, path, err)) != 0) {
		wm_buf_release(&text);
		return ret;
	}
	len = text.len;
	if (!(data = wm_buf_detach(&text)) && !(data = calloc(1, 1)))
		return wm_error_oom(err);
	return take_patch(out, data, len, path, err);
}

/*
 * Applies `patch` (a diff of the shape generate writes, turned round with
 * `revert`) to `pre`, the content of `file` as git stores it, into `out`:
 * exactly where its hunks say, never by another reader, and only to make
 * the blob `want`.  0, or WM_ESTATE reported at `patch_path`.
 */
static int run_patch(struct wm_buf *out, const char *patch, size_t patchlen, bool revert, const char *want,
	const char *patch_path, const char *file, const char *pre, size_t prelen, struct wm_error *err)
{
	struct wm_buf reversed = WM_BUF_INIT;
	char id[41];
	int ret;

	if (revert) {
		if ((ret = wm_diff_reverse(&reversed, patch, patchlen)) < 0) {
			wm_error_code(err, ret == WM_EINVALID ? WM_EINTERNAL : ret);
			goto out;
		}
		patch = reversed.ptr;
		patchlen = reversed.len;
	}
	if ((ret = wm_diff_apply(out, patch, patchlen, file, pre, prelen)) < 0) {
		wm_error_code(err, ret);
		goto out;
	}
	wm_sha1_git_blob(id, out->ptr ? out->ptr : "", out->len);
	if (ret == 1 || strcmp(id, want) != 0) {
		/* the hunks and the index line disagree: the file was edited */
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, patch_path,
			"the patch does not %s the file its index line names (%.12s): it was edited; "
			"regenerate it with 'wheelmatrix generate'", revert ? "undo to" : "make", want);
		ret = WM_ESTATE;
	}
out:
	wm_buf_release(&reversed);
	return ret;
}

/*
 * Which backend's patch leaves the file with blob id `id`, other than
 * `except`: the name of the patch file's backend in `found` (NULL when none).
 */
static int applied_other(char **found, struct worktree *w, const char *const *backends, size_t n,
	const char *except, const char *id, struct wm_error *err)
{
	*found = NULL;
	for (size_t i = 0; i < n; i++) {
		struct patch_file f;
		struct wm_error quiet;
		char path[128];
		int ret;

		if (except && strcmp(backends[i], except) == 0)
			continue;
		snprintf(path, sizeof(path), WM_PATCH_PATH, backends[i]);
		wm_error_init(&quiet);  /* a broken patch of another backend is not this command's concern */
		ret = read_patch(&f, w, path, &quiet);
		wm_error_release(&quiet);
		if (ret == 0 && strcmp(f.info.new_id, id) == 0) {
			patch_file_release(&f);
			if (!(*found = strdup(backends[i])))
				return wm_error_oom(err);
			return 0;
		}
		patch_file_release(&f);
	}
	return 0;
}

static int applied_error(struct wm_error *err, const char *pyproject, const char *backend)
{
	wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
		"%s has the patch of backend '%s' applied: nothing was changed (undo it first with "
		"'wheelmatrix patch --revert %s')", pyproject, backend, backend);
	return WM_ESTATE;
}

/* The backend ids of the matrix, for "did you mean" and for finding an applied patch. */
static const char **backend_ids(const struct wm_matrix *m)
{
	const char **ids = calloc(m->nbackends + 1, sizeof(*ids));
	for (size_t i = 0; ids && i < m->nbackends; i++)
		ids[i] = m->backends[i]->id;
	return ids;
}

/* The closest backend when one is close, and every backend the matrix has: `patch nope` shows what it takes. */
static void unknown_backend(struct wm_error *err, const struct wm_matrix *m, const char *backend,
	const char *const *ids)
{
	const char *hint = wm_text_suggest(backend, ids, m->nbackends);
	struct wm_buf all = WM_BUF_INIT;
	for (size_t i = 0; i < m->nbackends; i++)
		wm_buf_printf(&all, "%s'%s'", i == 0 ? "" : i + 1 < m->nbackends ? ", " : " and ", ids[i]);
	if (all.oom)
		wm_error_code(err, WM_ENOMEM);
	else if (hint)
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"unknown backend '%s' (did you mean '%s'?): %s has backends %s", backend, hint, m->file, all.ptr);
	else
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"unknown backend '%s': %s has backends %s", backend, m->file, all.ptr);
	wm_buf_release(&all);
}

int wm_variant_patch(enum wm_variant_done *out, const struct wm_matrix *m, const char *root,
	const char *backend, unsigned flags, struct wm_error *err)
{
	bool revert = flags & WM_VARIANT_REVERT;
	const struct wm_backend *b = NULL;
	const char **ids = NULL;
	struct worktree w = { 0 };
	struct patch_file pf = { 0 };
	struct wm_buf odb = WM_BUF_INIT, post = WM_BUF_INIT, tree = WM_BUF_INIT, gen = WM_BUF_INIT;
	char *other = NULL, path[128], id[41];
	const char *from, *to;
	int ret;

	*out = WM_VARIANT_DONE;
	if (!(ids = backend_ids(m))) {
		ret = WM_ENOMEM;
		goto oom;
	}
	for (size_t i = 0; i < m->nbackends; i++)
		if (strcmp(m->backends[i]->id, backend) == 0)
			b = m->backends[i];
	if (!b) {
		unknown_backend(err, m, backend, ids);
		ret = WM_EINVALID;
		goto out;
	}
	/* compared and patched as git stores it, so that a checkout with core.autocrlf matches the patch */
	worktree_open(&w, root);
	if ((ret = worktree_read(&odb, &w, m->pyproject, err)) != 0) {
		if (ret == 1) {
			wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
				"there is no %s to patch", m->pyproject);
			ret = WM_EINVALID;
		}
		goto out;
	}
	wm_sha1_git_blob(id, odb.ptr ? odb.ptr : "", odb.len);
	snprintf(path, sizeof(path), WM_PATCH_PATH, b->id);
	if ((ret = read_patch(&pf, &w, path, err)) < 0)
		goto out;
	if (ret == 1) {
		if (!m->project) {  /* not read: invalid */
			ret = WM_EINVALID;
		} else if ((ret = wm_generate_variant(&post, m, b, err)) == 0) {
			/* it builds pyproject.toml as it is, which must not be another variant's */
			*out = WM_VARIANT_UNPATCHED;
			if (!revert && (ret = applied_other(&other, &w, ids, m->nbackends, b->id, id, err)) == 0 && other)
				ret = applied_error(err, m->pyproject, other);
		} else if (ret > 0) {
			wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
				"'%s' does not exist: write it with 'wheelmatrix generate'", path);
			ret = WM_ESTATE;
		}
		goto out;
	}
	if (strcmp(pf.path, m->pyproject) != 0) {
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, path,
			"the patch is for '%s', but the matrix builds '%s': regenerate it with 'wheelmatrix generate'",
			pf.path, m->pyproject);
		ret = WM_ESTATE;
		goto out;
	}

	from = revert ? pf.info.new_id : pf.info.old_id;
	to = revert ? pf.info.old_id : pf.info.new_id;
	if (strcmp(id, to) == 0) {
		*out = WM_VARIANT_ALREADY;
		goto out;
	}
	if (strcmp(id, from) != 0) {
		if ((ret = applied_other(&other, &w, ids, m->nbackends, b->id, id, err)) < 0)
			goto out;
		if (other)
			applied_error(err, m->pyproject, other);
		else if (revert)
			wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
				"%s is neither what '%s' makes of it nor the file it was made from: nothing was reverted "
				"(it changed since the patch was applied)", m->pyproject, path);
		else
			wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
				"%s changed since '%s' was generated (blob %.12s, the patch expects %.12s): nothing was "
				"changed; regenerate the patches with 'wheelmatrix generate'", m->pyproject, path, id, from);
		ret = WM_ESTATE;
		goto out;
	}

	/*
	 * Only the patch the matrix makes is applied, and only the file it was made from is put back: the
	 * one on disk must be that patch to the byte, or it could make any file (or undo to any file)
	 */
	if ((ret = wm_generate_variant(&gen, m, b, err)) < 0)
		goto out;
	if (ret == 0) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, path,
			"no backend of the matrix has this patch: backend '%s' builds %s as it is; nothing was changed "
			"(remove the file)", b->id, m->pyproject);
		ret = WM_EINVALID;
		goto out;
	}
	if (!patch_is(&pf, gen.ptr, gen.len)) {
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, path,
			"not the patch the matrix makes for backend '%s' (it was edited, or the matrix or %s changed "
			"since it was generated): nothing was changed; regenerate it with 'wheelmatrix generate'",
			b->id, m->pyproject);
		ret = WM_ESTATE;
		goto out;
	}
	if (revert) {
		/* the loader undid this very patch (wm_variant_load) and checked it: the file it read is the one to put back */
		const struct wm_toml_doc *base = &m->project->py;
		wm_sha1_git_blob(id, base->text, base->len);
		if (strcmp(id, pf.info.old_id) != 0) {
			wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, path,
				"the matrix was not read from the file the patch was made from (%.12s, not %.12s)", id,
				pf.info.old_id);
			ret = WM_EINTERNAL;
			goto out;
		}
		wm_buf_add(&post, base->text, base->len);
		if (post.oom) {
			ret = WM_ENOMEM;
			goto oom;
		}
	} else if ((ret = run_patch(&post, gen.ptr, gen.len, false, pf.info.new_id, path, m->pyproject,
			odb.ptr ? odb.ptr : "", odb.len, err)) < 0) {
		goto out;
	}
	if ((ret = worktree_filter(&tree, &w, m->pyproject, true, post.ptr ? post.ptr : "", post.len, err)) < 0)
		goto out;
	if (!(flags & WM_VARIANT_DRY_RUN)) {
		struct wm_file f = { .path = (char *)m->pyproject, .data = tree.ptr ? tree.ptr : "", .len = tree.len };
		if ((ret = wm_file_write(root, &f, err)) < 0)
			goto out;
	}
	ret = 0;
	goto out;
oom:
	wm_error_code(err, WM_ENOMEM);
out:
	free(ids);
	free(other);
	patch_file_release(&pf);
	worktree_close(&w);
	wm_buf_release(&odb);
	wm_buf_release(&post);
	wm_buf_release(&tree);
	wm_buf_release(&gen);
	return ret;
}

/* ---- a patch applied for one build ---------------------------------------------- */

/* Whether root/path now holds exactly data[0..len): 1, 0 (also when it is gone), or an error. */
static int holds_bytes(const char *root, const char *path, const char *data, size_t len, struct wm_error *err)
{
	char *now = NULL;
	size_t nowlen = 0;
	int ret = wm_io_read_below(&now, &nowlen, root, path, err);
	if (ret == 0)
		ret = nowlen == len && memcmp(now, data, len) == 0;
	else if (ret == 1)
		ret = 0;
	free(now);
	return ret;
}

int wm_variant_build_apply(struct wm_variant_build *vb, const struct wm_matrix *m, const char *root,
	const char *backend, struct wm_error *err)
{
	int ret;

	memset(vb, 0, sizeof(*vb));
	vb->done = WM_VARIANT_UNPATCHED;
	if (!(vb->root = strdup(root)) || !(vb->path = strdup(m->pyproject)) || !(vb->backend = strdup(backend)))
		return wm_error_oom(err);
	/* the bytes to put back, kept rather than made again by the reversed patch: byte for byte */
	if ((ret = wm_io_read_below(&vb->before, &vb->beforelen, root, m->pyproject, err)) < 0)
		return ret;
	if ((ret = wm_variant_patch(&vb->done, m, root, backend, 0, err)) < 0) {
		vb->done = WM_VARIANT_UNPATCHED;
		return ret;
	}
	if (vb->done == WM_VARIANT_DONE &&
	    (ret = wm_io_read_below(&vb->after, &vb->afterlen, root, m->pyproject, err)) != 0) {
		if (ret == 1) {
			wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
				"%s went away as it was patched", m->pyproject);
			ret = WM_ESTATE;
		}
		return ret;
	}
	return 0;
}

int wm_variant_build_revert(struct wm_variant_build *vb, struct wm_error *err)
{
	int ret;

	if (vb->done != WM_VARIANT_DONE)
		return 0;
	if ((ret = holds_bytes(vb->root, vb->path, vb->after, vb->afterlen, err)) < 0)
		return ret;
	if (ret == 1) {
		if ((ret = wm_io_write_below(vb->root, vb->path, vb->before, vb->beforelen, err)) == 0)
			vb->done = WM_VARIANT_ALREADY;
		return ret;
	}
	if ((ret = holds_bytes(vb->root, vb->path, vb->before, vb->beforelen, err)) != 0)
		return ret < 0 ? ret : 0;  /* reverted by someone else */
	wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
		"%s changed during the build: the patch of backend '%s' was not reverted, so that the change is "
		"kept; undo the patch's lines by hand (" WM_PATCH_PATH " lists them)", vb->path,
		vb->backend, vb->backend);
	return WM_ESTATE;
}

void wm_variant_build_release(struct wm_variant_build *vb)
{
	free(vb->root);
	free(vb->path);
	free(vb->backend);
	free(vb->before);
	free(vb->after);
	memset(vb, 0, sizeof(*vb));
}

/* ---- reading the project as it is without a variant ------------------------- */

/* Whether text[0..len) holds `word`. */
static bool holds(const char *text, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; len >= n && (p = memchr(p, word[0], len - n + 1 - (size_t)(p - text))) != NULL; p++)
		if (memcmp(p, word, n) == 0)
			return true;
	return false;
}

/*
 * A wm_reader over another that gives a file with an applied variant patch as
 * it is without it: only a patch of one of the matrix's backends, which the
 * loader names (wm_reader.backends) before it reads the project.
 */
struct base_reader {
	const struct wm_reader *inner;
	char **ids;           /* the matrix's backends */
	size_t nids;
	char *applied;        /* the backend whose patch was undone */
	struct patch_file patch;  /* that patch, for wm_variant_verify */
};

static int backends_base(void *ctx, const char *const *ids, size_t n)
{
	struct base_reader *br = ctx;
	for (size_t i = 0; i < br->nids; i++)
		free(br->ids[i]);
	free(br->ids);
	br->nids = 0;
	if (!(br->ids = calloc(n + 1, sizeof(*br->ids))))
		return WM_ENOMEM;
	for (; br->nids < n; br->nids++)
		if (!(br->ids[br->nids] = strdup(ids[br->nids])))
			return WM_ENOMEM;
	return 0;
}

/*
 * Backend `backend`'s patch, when it says it makes `data`, the content of
 * `path`: checked for the shape generate writes first, then turned round and
 * applied exactly to give `base`.  1 when it makes another file (or is none).
 */
static int unapply_one(struct wm_buf *base, struct patch_file *pf, const struct wm_reader *r, const char *backend,
	const char *path, const char *data, size_t len, const char *id, struct wm_error *err)
{
	struct wm_error quiet;
	char patch_path[128], newid[43], *text = NULL;
	size_t textlen = 0;
	int ret;

	snprintf(patch_path, sizeof(patch_path), WM_PATCH_PATH, backend);
	snprintf(newid, sizeof(newid), "..%s", id);
	wm_error_init(&quiet);
	ret = r->read(r->ctx, patch_path, &text, &textlen, &quiet);
	/* none, or one that cannot be read: not applied; but one behind a link out of the repository is an error */
	for (size_t i = 0; ret == WM_EINVALID && i < quiet.ndiags; i++)
		wm_error_nopos(err, ret, quiet.diags[i].severity, quiet.diags[i].file, "%s",
			quiet.diags[i].message);
	wm_error_release(&quiet);
	if (ret == WM_ENOMEM || ret == WM_EINVALID) {
		if (ret == WM_ENOMEM)
			wm_error_code(err, ret);
		free(text);
		return ret;
	}
	/* a patch whose index line ("index OLD..NEW") does not end in the file's id cannot have made it: not read */
	if (ret != 0 || !holds(text, textlen, newid)) {
		free(text);
		return 1;
	}
	if ((ret = take_patch(pf, text, textlen, patch_path, err)) < 0)
		return ret;
	if (strcmp(pf->path, path) != 0 || strcmp(id, pf->info.new_id) != 0) {
		patch_file_release(pf);
		return 1;
	}
	if ((ret = run_patch(base, pf->info.start, pf->len - (size_t)(pf->info.start - pf->text), true,
			pf->info.old_id, patch_path, path, data, len, err)) < 0) {
		patch_file_release(pf);
		return ret;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files of .wheelmatrix/patches/, sorted, when the reader can list them (*listed): 0; the
 * directory behind a link out of the repository or into .git is an error, as reading there is.
 */
static int list_patches(struct wm_paths *out, bool *listed, const struct wm_reader *r, struct wm_error *err)
{
	struct wm_error quiet;
	int ret;

	memset(out, 0, sizeof(*out));
	*listed = false;
	if (!r->list)
		return 0;
	wm_error_init(&quiet);
	ret = r->list(r->ctx, ".wheelmatrix/patches", out, &quiet);
	for (size_t i = 0; ret == WM_EINVALID && i < quiet.ndiags; i++)
		wm_error_nopos(err, ret, quiet.diags[i].severity, quiet.diags[i].file, "%s",
			quiet.diags[i].message);
	wm_error_release(&quiet);
	if (ret == WM_ENOMEM || ret == WM_EINVALID) {
		if (ret == WM_ENOMEM)
			wm_error_code(err, ret);
		wm_io_paths_free(out);
		return ret;
	}
	if (ret < 0) {  /* a directory that cannot be listed: each patch read as it is named */
		wm_io_paths_free(out);
		return 0;
	}
	*listed = true;  /* 1: no directory, no patch */
	wm_io_paths_sort(out);
	return 0;
}

static int read_base(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	struct base_reader *br = ctx;
	struct wm_paths names;
	bool listed;
	struct wm_buf base = WM_BUF_INIT;
	const char *base_name;
	char id[41];
	int ret;

	if ((ret = br->inner->read(br->inner->ctx, path, data, len, err)) != 0 || br->applied)
		return ret;
	/* variant patches change pyproject.toml and nothing else */
	base_name = strrchr(path, '/');
	if (strcmp(base_name ? base_name + 1 : path, "pyproject.toml") != 0)
		return 0;
	wm_sha1_git_blob(id, *data ? *data : "", *len);
	if ((ret = list_patches(&names, &listed, br->inner, err)) < 0) {
		free(*data);
		*data = NULL;
		*len = 0;
		return ret;
	}
	for (size_t i = 0; i < br->nids && !br->applied; i++) {
		char name[80];
		const char *key = name;
		/* a backend without a patch file costs no read: a matrix may have thousands */
		snprintf(name, sizeof(name), "%s.patch", br->ids[i]);
		if (listed && (!names.n || !bsearch(&key, names.items, names.n, sizeof(*names.items), cmp_name)))
			continue;
		if ((ret = unapply_one(&base, &br->patch, br->inner, br->ids[i], path, *data ? *data : "", *len, id,
				err)) < 0)
			break;
		if (ret == 0 && !(br->applied = strdup(br->ids[i]))) {
			ret = wm_error_oom(err);
			break;
		}
		ret = 0;
	}
	if (ret == 0 && br->applied) {
		free(*data);
		*len = base.len;
		if (!(*data = wm_buf_detach(&base)) && !(*data = calloc(1, 1))) {
			ret = wm_error_oom(err);
		}
	}
	wm_buf_release(&base);
	wm_io_paths_free(&names);
	if (ret < 0) {
		free(*data);
		*data = NULL;
		*len = 0;
	}
	return ret;
}

static int list_base(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	struct base_reader *br = ctx;
	return br->inner->list(br->inner->ctx, dir, out, err);
}

static void base_reader_release(struct base_reader *br)
{
	for (size_t i = 0; i < br->nids; i++)
		free(br->ids[i]);
	free(br->ids);
	free(br->applied);
	patch_file_release(&br->patch);
	memset(br, 0, sizeof(*br));
}

/*
 * The patch the loader undid must be the one the matrix makes, from the file
 * it undid it to, to the byte: else that file (anything the patch's author
 * wrote) is not what the commands read.
 */
static int verify(const struct wm_matrix *m, const struct base_reader *br, struct wm_error *err)
{
	const struct wm_backend *b = NULL;
	struct wm_buf gen = WM_BUF_INIT;
	char path[128];
	int ret;

	if (!br->applied)
		return 0;
	snprintf(path, sizeof(path), WM_PATCH_PATH, br->applied);
	for (size_t i = 0; i < m->nbackends; i++)
		if (strcmp(m->backends[i]->id, br->applied) == 0)
			b = m->backends[i];
	if (!b || !m->project) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, path,
			"%s is what this patch makes, but the matrix has no backend '%s': the file the patch would undo "
			"to is not read; remove the patch and restore %s without it by hand", m->pyproject, br->applied,
			m->pyproject);
		return WM_EINVALID;
	}
	if ((ret = wm_generate_variant(&gen, m, b, err)) < 0)
		goto out;
	if (ret == 0) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, path,
			"%s is what this patch makes, but no backend of the matrix has it: backend '%s' builds %s as it "
			"is; the file the patch would undo to is not read; remove the patch and restore %s without it "
			"by hand", m->pyproject, b->id, m->pyproject, m->pyproject);
		ret = WM_EINVALID;
	} else if (!patch_is(&br->patch, gen.ptr, gen.len)) {
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, path,
			"%s is what this patch makes, but it is not the patch the matrix makes for backend '%s' (it, the "
			"matrix or %s changed since it was applied): the file it would undo to is not read; restore %s "
			"without it by hand, then run 'wheelmatrix generate'", m->pyproject, b->id, m->pyproject,
			m->pyproject);
		ret = WM_ESTATE;
	} else {
		ret = 0;
	}
out:
	wm_buf_release(&gen);
	return ret;
}

/* The working tree's files as git stores them: a wm_reader. */
static int read_stored(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	struct wm_buf b = WM_BUF_INIT;
	int ret = worktree_read(&b, ctx, path, err);
	*data = NULL;
	*len = 0;
	if (ret == 0) {
		*len = b.len;
		if (!(*data = wm_buf_detach(&b)) && !(*data = calloc(1, 1))) {
			ret = wm_error_oom(err);
		}
	}
	wm_buf_release(&b);
	return ret;
}

static int list_stored(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	struct worktree *w = ctx;
	return w->files.list(w->files.ctx, dir, out, err);
}

int wm_variant_load(struct wm_matrix **out, char **applied, const struct wm_catalog *cat, const char *path,
	struct wm_error *err)
{
	struct worktree w;
	struct wm_reader stored = { read_stored, &w, list_stored, NULL };
	struct base_reader br = { .inner = &stored };
	struct wm_reader r = { read_base, &br, list_base, backends_base };
	char *root = wm_io_path_dir(path);
	int ret;

	*out = NULL;
	*applied = NULL;
	if (!root)
		return wm_error_oom(err);
	worktree_open(&w, root);
	ret = wm_matrix_load_path(out, cat, path, &r, err);
	if (ret == 0 && (ret = verify(*out, &br, err)) < 0) {
		wm_matrix_free(*out);
		*out = NULL;
	}
	if (ret == 0) {
		*applied = br.applied;
		br.applied = NULL;
	}
	base_reader_release(&br);
	worktree_close(&w);
	free(root);
	return ret;
}

int wm_variant_reader(struct wm_reader *out, const struct wm_reader *inner)
{
	struct base_reader *br = calloc(1, sizeof(*br));
	if (!br)
		return WM_ENOMEM;
	br->inner = inner;
	out->read = read_base;
	out->ctx = br;
	out->list = inner->list ? list_base : NULL;
	out->backends = backends_base;
	return 0;
}

const char *wm_variant_reader_applied(const struct wm_reader *r)
{
	return ((const struct base_reader *)r->ctx)->applied;
}

int wm_variant_reader_verify(const struct wm_reader *r, const struct wm_matrix *m, struct wm_error *err)
{
	return verify(m, r->ctx, err);
}

void wm_variant_reader_free(struct wm_reader *r)
{
	struct base_reader *br = r->ctx;
	if (br)
		base_reader_release(br);
	free(br);
	r->ctx = NULL;
}
