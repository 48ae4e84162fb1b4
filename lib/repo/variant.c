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
#include "model/matrix.h"
#include "emit/generate.h"
#include "repo/repo.h"
#include "repo/variant.h"

/* One patch file under .wheelmatrix/patches/ and what its index line says. */
struct patch_file {
	char *text;
	size_t len;
	struct wm_repo_patch info;
};

static void patch_file_release(struct patch_file *f)
{
	free(f->text);
	wm_repo_patch_release(&f->info);
	memset(f, 0, sizeof(*f));
}

/* Gives the last diagnostic the file it is about, when it names none. */
static void blame(struct wm_error *err, size_t from, const char *file)
{
	for (size_t i = from; i < err->ndiags; i++)
		if (!err->diags[i].file)
			err->diags[i].file = strdup(file);
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

/* Reads and parses root/path: 1 when there is no such file. */
static int read_patch(struct patch_file *out, struct worktree *w, const char *path, struct wm_error *err)
{
	struct wm_buf text = WM_BUF_INIT;
	size_t from = err->ndiags;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = worktree_read(&text, w, path, err)) != 0) {
		wm_buf_release(&text);
		return ret;
	}
	out->len = text.len;
	if (!(out->text = wm_buf_detach(&text)) && !(out->text = calloc(1, 1))) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	if ((ret = wm_repo_patch_read(&out->info, out->text, out->len, err)) < 0) {
		blame(err, from, path);
		return ret;
	}
	if (!out->info.full_ids) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, path, NULL, 0, 0, 0, 0,
			"the patch's index line abbreviates the blob ids: regenerate it with 'wheelmatrix generate'");
		return WM_EINVALID;
	}
	return 0;
}

/*
 * Applies the patch of `pf` (turned round with `revert`) to `pre`, the
 * content of `file` as git stores it, into `out`, and makes sure the result
 * is the blob its index line names.
 */
static int run_patch(struct wm_buf *out, const struct patch_file *pf, bool revert, const char *patch_path,
	const char *file, const char *pre, size_t prelen, struct wm_error *err)
{
	struct wm_buf reversed = WM_BUF_INIT;
	const char *patch = pf->text;
	size_t patchlen = pf->len, before = err->ndiags;
	char id[41];
	int ret;

	if (revert) {
		if ((ret = wm_diff_reverse(&reversed, pf->text, pf->len)) < 0) {
			if (ret == WM_EINVALID)
				wm_error_add(err, ret, WM_SEV_ERROR, patch_path, NULL, 0, 0, 0, 0, "not a git-format patch");
			else
				wm_error_code(err, ret);
			goto out;
		}
		patch = reversed.ptr;
		patchlen = reversed.len;
	}
	if ((ret = wm_repo_patch_apply(out, patch, patchlen, file, pre, prelen, err)) < 0) {
		blame(err, before, patch_path);
		goto out;
	}
	wm_sha1_git_blob(id, out->ptr ? out->ptr : "", out->len);
	if (strcmp(id, revert ? pf->info.old_id : pf->info.new_id) != 0) {
		/* the hunks and the index line disagree: the file was edited */
		wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, patch_path, NULL, 0, 0, 0, 0,
			"the patch does not make the file its index line names (%.12s, not %.12s): it was edited; "
			"regenerate it with 'wheelmatrix generate'", id, revert ? pf->info.old_id : pf->info.new_id);
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
			if (!(*found = strdup(backends[i]))) {
				wm_error_code(err, WM_ENOMEM);
				return WM_ENOMEM;
			}
			return 0;
		}
		patch_file_release(&f);
	}
	return 0;
}

static int applied_error(struct wm_error *err, const char *pyproject, const char *backend)
{
	wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
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
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
			"unknown backend '%s' (did you mean '%s'?): %s has backends %s", backend, hint, m->file, all.ptr);
	else
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
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
	struct wm_buf odb = WM_BUF_INIT, post = WM_BUF_INIT, tree = WM_BUF_INIT;
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
			wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
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
			wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
				"'%s' does not exist: write it with 'wheelmatrix generate'", path);
			ret = WM_ESTATE;
		}
		goto out;
	}
	if (strcmp(pf.info.path, m->pyproject) != 0) {
		wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, path, NULL, 0, 0, 0, 0,
			"the patch is for '%s', but the matrix builds '%s': regenerate it with 'wheelmatrix generate'",
			pf.info.path, m->pyproject);
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
			wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
				"%s is neither what '%s' makes of it nor the file it was made from: nothing was reverted "
				"(it changed since the patch was applied)", m->pyproject, path);
		else
			wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
				"%s changed since '%s' was generated (blob %.12s, the patch expects %.12s): nothing was "
				"changed; regenerate the patches with 'wheelmatrix generate'", m->pyproject, path, id, from);
		ret = WM_ESTATE;
		goto out;
	}

	if ((ret = run_patch(&post, &pf, revert, path, m->pyproject, odb.ptr ? odb.ptr : "", odb.len, err)) < 0)
		goto out;
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
	if (!(vb->root = strdup(root)) || !(vb->path = strdup(m->pyproject)) || !(vb->backend = strdup(backend))) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
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
			wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
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
	wm_error_add(err, WM_ESTATE, WM_SEV_ERROR, NULL, NULL, 0, 0, 0, 0,
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

/* Parses a patch file's text (taken over); 1 when it is no patch of full blob ids. */
static int parse_patch(struct patch_file *out, char *text, size_t len)
{
	struct wm_error quiet;
	int ret;
	memset(out, 0, sizeof(*out));
	out->text = text;
	out->len = len;
	wm_error_init(&quiet);  /* a broken patch is not the concern of the file being read */
	ret = wm_repo_patch_read(&out->info, text, len, &quiet);
	wm_error_release(&quiet);
	if (ret == WM_ENOMEM)
		return ret;
	return ret < 0 || !out->info.full_ids ? 1 : 0;
}

/* Whether text[0..len) holds `word`. */
static bool holds(const char *text, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; len >= n && (p = memchr(p, word[0], len - n + 1 - (size_t)(p - text))) != NULL; p++)
		if (memcmp(p, word, n) == 0)
			return true;
	return false;
}

int wm_variant_unapply(struct wm_buf *base, char **applied, const struct wm_reader *r, const char *path,
	const char *data, size_t len, struct wm_error *err)
{
	static const char dir[] = ".wheelmatrix/patches";
	struct wm_paths names = { 0 };
	struct wm_error quiet;
	char id[41], newid[43];
	int ret = 0;

	*applied = NULL;
	if (!r->list)
		return 0;
	wm_sha1_git_blob(id, data, len);
	snprintf(newid, sizeof(newid), "..%s", id);
	wm_error_init(&quiet);  /* no patch directory, or one that cannot be read: no patch applied */
	ret = r->list(r->ctx, dir, &names, &quiet);
	/* but one behind a link out of the repository or into .git is an error: the workflow applies its patches */
	for (size_t i = 0; ret == WM_EINVALID && i < quiet.ndiags; i++)
		wm_error_add(err, ret, quiet.diags[i].severity, quiet.diags[i].file, NULL, 0, 0, 0, 0, "%s",
			quiet.diags[i].message);
	wm_error_release(&quiet);
	if (ret == WM_ENOMEM)
		goto oom;
	if (ret == WM_EINVALID) {
		wm_io_paths_free(&names);
		return ret;
	}
	wm_io_paths_sort(&names);
	for (size_t i = 0; ret >= 0 && i < names.n && !*applied; i++) {
		const char *name = names.items[i];
		size_t n = strlen(name);
		struct patch_file pf = { 0 };
		char patch_path[160], *text = NULL, *backend;
		size_t textlen = 0;

		if (n <= 6 || n - 6 >= 64 || strcmp(name + n - 6, ".patch") != 0 || strchr(name, '/'))
			continue;
		if (!(backend = strndup(name, n - 6)))
			goto oom;
		snprintf(patch_path, sizeof(patch_path), "%s/%s", dir, name);
		wm_error_init(&quiet);
		ret = wm_name_backend_id(backend) ? r->read(r->ctx, patch_path, &text, &textlen, &quiet) : 1;
		wm_error_release(&quiet);
		/*
		 * a patch whose index line ("index OLD..NEW") does not end in the file's id
		 * cannot have made it: not parsed (nor libgit2 started)
		 */
		if (ret == 0 && !holds(text, textlen, newid))
			ret = 1;
		if (ret == 0)
			ret = parse_patch(&pf, text, textlen);
		else
			free(text);
		if (ret == 0 && strcmp(pf.info.path, path) == 0 && strcmp(id, pf.info.new_id) == 0) {
			if ((ret = run_patch(base, &pf, true, patch_path, path, data, len, err)) == 0)
				*applied = backend, backend = NULL;
		} else if (ret != WM_ENOMEM) {
			ret = 0;
		}
		patch_file_release(&pf);
		free(backend);
		if (ret == WM_ENOMEM)
			goto oom;
	}
	wm_io_paths_free(&names);
	return ret < 0 ? ret : 0;
oom:
	wm_io_paths_free(&names);
	wm_error_code(err, WM_ENOMEM);
	return WM_ENOMEM;
}

/* A wm_reader over another that gives a file with an applied variant patch as it is without it. */
struct base_reader {
	const struct wm_reader *inner;
	char *applied;  /* the backend whose patch was undone */
};

static int read_base(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	struct base_reader *br = ctx;
	struct wm_buf base = WM_BUF_INIT;
	char *applied = NULL;
	const char *base_name;
	int ret;

	if ((ret = br->inner->read(br->inner->ctx, path, data, len, err)) != 0 || br->applied)
		return ret;
	/* variant patches change pyproject.toml and nothing else */
	base_name = strrchr(path, '/');
	if (strcmp(base_name ? base_name + 1 : path, "pyproject.toml") != 0)
		return 0;
	if ((ret = wm_variant_unapply(&base, &applied, br->inner, path, *data ? *data : "", *len, err)) == 0 && applied) {
		free(*data);
		*len = base.len;
		if (!(*data = wm_buf_detach(&base)) && !(*data = calloc(1, 1))) {
			free(applied);
			wm_error_code(err, WM_ENOMEM);
			return WM_ENOMEM;
		}
		br->applied = applied;
	}
	wm_buf_release(&base);
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
			wm_error_code(err, WM_ENOMEM);
			ret = WM_ENOMEM;
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
	struct wm_reader stored = { read_stored, &w, list_stored };
	struct base_reader br = { &stored, NULL };
	struct wm_reader r = { read_base, &br, list_base };
	char *root = wm_io_path_dir(path);
	int ret;

	*out = NULL;
	*applied = NULL;
	if (!root) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	worktree_open(&w, root);
	ret = wm_matrix_load_path(out, cat, path, &r, err);
	if (ret < 0)
		free(br.applied);
	else
		*applied = br.applied;
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
	return 0;
}

const char *wm_variant_reader_applied(const struct wm_reader *r)
{
	return ((const struct base_reader *)r->ctx)->applied;
}

void wm_variant_reader_free(struct wm_reader *r)
{
	struct base_reader *br = r->ctx;
	if (br)
		free(br->applied);
	free(br);
	r->ctx = NULL;
}
