/* repo.c — the git repository through libgit2 (its only user): discovery, filters, patches applied in memory. */
/* realpath */
#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/sha1.h"
#include "repo/gitdir.h"
#include "repo/gitindex.h"
#include "repo/repo.h"

/*
 * A repository is found by repo/gitdir.c, as git finds it, and opened with
 * libgit2 only when something needs it (open_git): a file read from the
 * index whose copy in the working tree has the index's blob id, a tracked
 * file no ignore rule may match, a patch of ours applied exactly, need
 * nothing of libgit2, whose start costs more than the rest of check --staged.
 */
struct wm_repo {
	struct wm_gitdir where;
	git_repository *git;   /* NULL until open_git */
	const char *workdir;   /* with a final '/'; NULL for a bare repository */
};

/*
 * libgit2 is loaded here, by dlopen, the first time a command needs it, and
 * not linked into the program: linked, the dynamic loader would load and
 * relocate it and the libraries it needs (mbedTLS, libssh2, Kerberos,
 * OpenSSL's libcrypto, PCRE2...) when any command starts, some 4 ms that
 * `list` and most runs of `generate` have no use for.  Its functions are
 * called through the pointers of `lg`, of the types git2.h gives them;
 * WM_LIBGIT2_SONAME is the soname of the library the headers came with
 * (the Makefile reads it from the library pkg-config names).
 */
#if !defined(WM_LIBGIT2_SONAME) && !defined(WM_LINKED)
#error "WM_LIBGIT2_SONAME, the soname of libgit2 (libgit2.so.1.5 for Debian 12's), is not defined"
#endif
#define LIBGIT2_FUNCTIONS(X) \
	X(git_apply_to_tree) X(git_blob_free) X(git_blob_lookup) X(git_blob_rawcontent) \
	X(git_blob_rawsize) X(git_buf_dispose) X(git_config_free) X(git_config_get_path) \
	X(git_diff_free) X(git_diff_from_buffer) X(git_diff_get_delta) X(git_diff_num_deltas) \
	X(git_error_last) X(git_filter_list_apply_to_buffer) X(git_filter_list_free) \
	X(git_filter_list_load) X(git_ignore_path_is_ignored) X(git_index_entrycount) \
	X(git_index_find_prefix) X(git_index_free) X(git_index_get_byindex) X(git_index_get_bypath) \
	X(git_index_new) X(git_index_add) X(git_index_open) X(git_index_set_caps) \
	X(git_repository_set_index) X(git_repository_set_workdir) \
	X(git_config_get_bool) \
	X(git_libgit2_init) X(git_libgit2_shutdown) X(git_mempack_new) X(git_object_free) \
	X(git_object_peel) X(git_odb_add_backend) X(git_odb_free) X(git_odb_new) X(git_odb_write) \
	X(git_oid_tostr) X(git_repository_config_snapshot) X(git_repository_free) \
	X(git_repository_index) X(git_repository_item_path) X(git_repository_open_ext) \
	X(git_repository_workdir) X(git_repository_wrap_odb) X(git_revparse_single) \
	X(git_tree_entry_bypath) X(git_tree_entry_filemode) X(git_tree_entry_free) \
	X(git_tree_entry_id) X(git_tree_entry_name) X(git_tree_entry_type) X(git_tree_free) \
	X(git_tree_lookup) X(git_tree_walk) X(git_treebuilder_free) X(git_treebuilder_insert) \
	X(git_treebuilder_new) X(git_treebuilder_write)

static struct {
	void *handle;
#define X(f) __typeof__(f) *f;
	LIBGIT2_FUNCTIONS(X)
#undef X
} lg;

#ifdef WM_LINKED
/*
 * Built with WM_LINKED (make LINKED=1, as the wheel is: docs/install.md),
 * the program is linked with libgit2 and the pointers are its functions: a
 * wheel's repair (auditwheel) bundles only the libraries a program names as
 * needed, and renames them, so that a dlopen by soname would not find them.
 */
static int load(struct wm_error *err)
{
	(void)err;
#define X(f) lg.f = f;
	LIBGIT2_FUNCTIONS(X)
#undef X
	lg.handle = &lg;
	return 0;
}
#else
/* Loads libgit2 by its soname and fills `lg`: 0, or WM_EIO with the reason. */
static int load(struct wm_error *err)
{
	static const struct { const char *name; size_t offset; } fns[] = {
#define X(f) { #f, offsetof(__typeof__(lg), f) },
		LIBGIT2_FUNCTIONS(X)
#undef X
	};
	void *h;

	if (!(h = dlopen(WM_LIBGIT2_SONAME, RTLD_LAZY | RTLD_LOCAL))) {
		const char *why = dlerror();
		wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, NULL,
			"cannot load libgit2 (%s): install the libgit2 this program was built with, %s",
			why ? why : WM_LIBGIT2_SONAME, WM_LIBGIT2_SONAME);
		return WM_EIO;
	}
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *f = dlsym(h, fns[i].name);
		if (!f) {
			wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, NULL,
				"cannot load libgit2: %s has no %s", WM_LIBGIT2_SONAME, fns[i].name);
			dlclose(h);
			return WM_EIO;
		}
		/* POSIX: a function's address converts to and from void * through dlsym */
		memcpy((char *)&lg + fns[i].offset, &f, sizeof(f));
	}
	lg.handle = h;
	return 0;
}
#endif

/* Loads libgit2 (once) and starts it: 0, or WM_EIO with the reason; stop it with lg.git_libgit2_shutdown. */
static int start(struct wm_error *err)
{
	const git_error *e;

	if (!lg.handle && load(err) < 0)
		return WM_EIO;
	if (lg.git_libgit2_init() < 0) {
		e = lg.git_error_last();
		wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, NULL, "cannot initialise libgit2: %s",
			e && e->message ? e->message : "unknown libgit2 error");
		return WM_EIO;
	}
	return 0;
}


/* Reports libgit2's last error as "<what>: <libgit2's message>". */
static int git_fail(struct wm_error *err, enum wm_err code, const char *what)
{
	const git_error *e = lg.git_error_last();
	wm_error_nopos(err, code, WM_SEV_ERROR, NULL, "%s: %s", what,
		e && e->message ? e->message : "unknown libgit2 error");
	return code;
}

/*
 * Whether libgit2's working tree is already the one gitdir.c found, as
 * libgit2 would resolve it (links resolved, a final '/').  libgit2 1.5's
 * git_repository_set_workdir loses its copy of the path when asked for the
 * working tree it has: it is only called for another one.
 */
static bool same_dir(const char *theirs, const char *ours)
{
	char *real;
	size_t n;
	bool same;

	if (!theirs || !(real = realpath(ours, NULL)))
		return false;
	n = strlen(real);
	same = strncmp(theirs, real, n) == 0 && (theirs[n] == '\0' || (theirs[n] == '/' && theirs[n + 1] == '\0'));
	free(real);
	return same;
}

/*
 * Opens the repository with libgit2, the first time it is needed: the git
 * directory gitdir.c found, with the working tree it found (git's
 * environment, which libgit2 does not read).  Where gitdir.c is uncertain
 * (an includeIf, another user's repository), libgit2 decides the working
 * tree, and refuses what it refuses.
 */
static int open_git(struct wm_repo *r, struct wm_error *err)
{
	const char *tree = getenv("GIT_WORK_TREE");
	int ret;

	if (r->git)
		return 0;
	if ((ret = start(err)) < 0)
		return ret;
	if (lg.git_repository_open_ext(&r->git, r->where.gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		ret = git_fail(err, WM_EIO, "cannot open the git repository");
		r->git = NULL;
		lg.git_libgit2_shutdown();
		return ret;
	}
	if (r->where.workdir && (!r->where.uncertain || (tree && *tree)) &&
	    !same_dir(lg.git_repository_workdir(r->git), r->where.workdir) &&
	    lg.git_repository_set_workdir(r->git, r->where.workdir, 0) < 0) {
		ret = git_fail(err, WM_EIO, "cannot open the git repository's working tree");
		lg.git_repository_free(r->git);
		r->git = NULL;
		lg.git_libgit2_shutdown();
		return ret;
	}
	r->workdir = lg.git_repository_workdir(r->git);
	return 0;
}

int wm_repo_discover(struct wm_repo **out, const char *dir, struct wm_error *err)
{
	struct wm_repo *r;
	int ret;

	*out = NULL;
	if (!(r = calloc(1, sizeof(*r))))
		return wm_error_oom(err);
	if ((ret = wm_gitdir_find(&r->where, dir, err)) != 0) {
		free(r);
		return ret;
	}
	r->workdir = r->where.workdir;
	if (r->where.uncertain && (ret = open_git(r, err)) < 0) {
		wm_repo_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void wm_repo_free(struct wm_repo *r)
{
	if (!r)
		return;
	if (r->git) {
		lg.git_repository_free(r->git);
		lg.git_libgit2_shutdown();
	}
	wm_gitdir_release(&r->where);
	free(r);
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

	/* not even the filters are loaded (they read the attributes, and the index for them) */
	if (!to_worktree && wm_repo_filter_stores_as_is(data, len)) {
		wm_buf_add(out, data, len);
		if (out->oom)
			return wm_error_oom(err);
		return 0;
	}
	if ((ret = open_git(r, err)) < 0)
		return ret;
	if (lg.git_filter_list_load(&filters, r->git, NULL, path,
			to_worktree ? GIT_FILTER_TO_WORKTREE : GIT_FILTER_TO_ODB, GIT_FILTER_DEFAULT) < 0)
		return git_fail(err, WM_EIO, "cannot load the git filters");
	if (!filters) {  /* no filter applies to the path */
		wm_buf_add(out, data, len);
		ret = 0;
		goto out;
	}
	if (lg.git_filter_list_apply_to_buffer(&converted, filters, data, len) < 0) {
		ret = git_fail(err, WM_EIO, "cannot filter the file");
		goto out;
	}
	wm_buf_add(out, converted.ptr, converted.size);
	ret = 0;
out:
	if (out->oom) {
		ret = wm_error_oom(err);
	}
	lg.git_buf_dispose(&converted);
	lg.git_filter_list_free(filters);
	return ret;
}

bool wm_repo_filter_stores_as_is(const char *data, size_t len)
{
	if (memchr(data, '\r', len))
		return false;
	for (const char *p = data; (p = memchr(p, '$', len - (size_t)(p - data))) != NULL; p++)
		if (len - (size_t)(p - data) >= 3 && p[1] == 'I' && p[2] == 'd')
			return false;
	return true;
}

/*
 * ---- patches, parsed and applied in memory -----------------------------------
 * For the tests alone, as the judge of formats/diff.c: no file of the
 * repository is given to libgit2's patch reader (a planted binary patch with
 * a truncated zlib stream hangs its inflate, a NUL byte in a hunk makes its
 * parser read past its buffer); the commands read patches with diff.c only.
 */

int wm_repo_patch_read_git(struct wm_repo_patch *out, const char *patch, size_t len, struct wm_error *err)
{
	git_diff *diff = NULL;
	const git_diff_delta *d;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = start(err)) < 0)
		return ret;
	if (lg.git_diff_from_buffer(&diff, patch, len) < 0) {
		ret = git_fail(err, WM_EINVALID, "not a patch");
		goto out;
	}
	if (lg.git_diff_num_deltas(diff) != 1) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"a variant patch changes one file, not %zu", lg.git_diff_num_deltas(diff));
		ret = WM_EINVALID;
		goto out;
	}
	d = lg.git_diff_get_delta(diff, 0);
	if (d->status != GIT_DELTA_MODIFIED || !d->old_file.path || !d->new_file.path ||
	    strcmp(d->old_file.path, d->new_file.path) != 0) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"a variant patch modifies one file in place");
		ret = WM_EINVALID;
		goto out;
	}
	if (!(out->path = strdup(d->old_file.path))) {
		ret = wm_error_oom(err);
		goto out;
	}
	/* abbreviated ids cannot be compared: ours are always full */
	out->full_ids = d->old_file.id_abbrev == GIT_OID_HEXSZ && d->new_file.id_abbrev == GIT_OID_HEXSZ;
	lg.git_oid_tostr(out->old_id, sizeof(out->old_id), &d->old_file.id);
	lg.git_oid_tostr(out->new_id, sizeof(out->new_id), &d->new_file.id);
	ret = 0;
out:
	lg.git_diff_free(diff);
	lg.git_libgit2_shutdown();
	return ret;
}

void wm_repo_patch_release(struct wm_repo_patch *p)
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
	ret = lg.git_treebuilder_new(&tb, repo, NULL);
	if (ret == 0)
		ret = lg.git_treebuilder_insert(NULL, tb, slash ? name : path, slash ? &sub : blob,
			slash ? GIT_FILEMODE_TREE : GIT_FILEMODE_BLOB);
	if (ret == 0)
		ret = lg.git_treebuilder_write(out, tb);
	lg.git_treebuilder_free(tb);
	free(name);
	return ret;
}

int wm_repo_patch_apply_git(struct wm_buf *out, const char *patch, size_t patchlen, const char *path,
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

	if ((ret = start(err)) < 0)
		return ret;
	/* a repository of nothing but an in-memory object store: nothing reaches the disk */
	if (lg.git_odb_new(&odb) < 0 || lg.git_mempack_new(&mempack) < 0) {
		ret = git_fail(err, WM_EIO, "cannot create an in-memory object store");
		goto out;
	}
	if (lg.git_odb_add_backend(odb, mempack, 1) < 0) {
		ret = git_fail(err, WM_EIO, "cannot create an in-memory object store");
		mempack->free(mempack);
		goto out;
	}
	if (lg.git_repository_wrap_odb(&repo, odb) < 0 ||
	    lg.git_odb_write(&id, odb, pre, prelen, GIT_OBJECT_BLOB) < 0 ||
	    write_tree(&tree_id, repo, path, &id) < 0 ||
	    lg.git_tree_lookup(&tree, repo, &tree_id) < 0) {
		ret = git_fail(err, WM_EIO, "cannot store the file to patch");
		goto out;
	}
	if (lg.git_diff_from_buffer(&diff, patch, patchlen) < 0) {
		ret = git_fail(err, WM_EINVALID, "not a patch");
		goto out;
	}
	if (lg.git_apply_to_tree(&post, repo, tree, diff, NULL) < 0) {
		ret = git_fail(err, WM_ESTATE, "the patch does not apply");
		goto out;
	}
	if (!(e = lg.git_index_get_bypath(post, path, 0))) {
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
			"the patch does not apply: it removes '%s'", path);
		ret = WM_ESTATE;
		goto out;
	}
	if (lg.git_blob_lookup(&blob, repo, &e->id) < 0) {
		ret = git_fail(err, WM_EIO, "cannot read the patched file");
		goto out;
	}
	wm_buf_add(out, lg.git_blob_rawcontent(blob), (size_t)lg.git_blob_rawsize(blob));
	ret = 0;
	if (out->oom) {
		ret = wm_error_oom(err);
	}
out:
	lg.git_blob_free(blob);
	lg.git_index_free(post);
	lg.git_diff_free(diff);
	lg.git_tree_free(tree);
	lg.git_repository_free(repo);
	lg.git_odb_free(odb);
	lg.git_libgit2_shutdown();
	return ret;
}

/* ---- the root below the working tree ------------------------------------------- */

int wm_repo_prefix(char **out, const struct wm_repo *r, const char *root, struct wm_error *err)
{
	const char *wd = r->workdir;
	char *real;
	size_t n;

	*out = NULL;
	if (!wd) {  /* a bare repository: paths are the tree's */
		if (!(*out = strdup("")))
			goto oom;
		return 0;
	}
	if (!(real = realpath(root, NULL)))
		return 0;
	n = strlen(wd);  /* wd ends in '/' */
	if (strncmp(real, wd, n - 1) == 0 && (real[n - 1] == '\0' || real[n - 1] == '/')) {
		const char *below = real[n - 1] ? real + n : "";
		size_t len = strlen(below) + 2;
		if ((*out = malloc(len)))
			snprintf(*out, len, "%s%s", below, *below ? "/" : "");
	} else {
		free(real);
		return 0;
	}
	free(real);
	if (!*out)
		goto oom;
	return 0;
oom:
	return wm_error_oom(err);
}

/* ---- reading files from the index, a commit or the working tree ------------------ */

struct source {
	struct wm_repo *repo;
	enum wm_source kind;
	const char *root;      /* the directory paths are relative to, on disk */
	char *prefix;          /* the same below the top of the repository: "" or "dir/" */
	git_index *index;      /* libgit2's reading of the index, or a split index in memory */
	struct wm_gitindex ix; /* repo/gitindex.c's reading of it */
	bool direct;           /* lookups in ix, not index */
	git_tree *tree;
};

static int source_path(struct wm_buf *out, const struct source *s, const char *path)
{
	wm_buf_printf(out, "%s%s", s->prefix, path);
	return out->oom ? WM_ENOMEM : 0;
}

/* A split index, handed to libgit2 as an index in memory, which the repository then uses too. */
static int split_index(git_index **out, struct wm_repo *r, const struct wm_gitindex *ix, struct wm_error *err)
{
	int ret;

	if (lg.git_index_new(out) < 0)
		return git_fail(err, WM_EIO, "cannot read the index");
	for (size_t i = 0; i < ix->n; i++) {
		git_index_entry e;
		memset(&e, 0, sizeof(e));
		e.path = ix->entries[i].path;
		e.mode = wm_gitindex_mode(&ix->entries[i]);
		e.flags = (uint16_t)(wm_gitindex_stage(&ix->entries[i]) << GIT_INDEX_ENTRY_STAGESHIFT);
		memcpy(e.id.id, wm_gitindex_id(&ix->entries[i]), 20);
		if (lg.git_index_add(*out, &e) < 0)
			goto fail;
	}
	/* libgit2's own readers of the index (the filters' .gitattributes) read this one */
	if (lg.git_repository_set_index(r->git, *out) < 0)
		goto fail;
	return 0;
fail:
	ret = git_fail(err, WM_EIO, "cannot read the index");
	lg.git_index_free(*out);
	*out = NULL;
	return ret;
}

/*
 * The index libgit2 reads instead of repo/gitindex.c: the repository's own,
 * or the one $GIT_INDEX_FILE names (a commit's temporary index), made the
 * repository's so that its readers of .gitattributes read it too.
 */
static int open_git_index(struct source *s, struct wm_error *err)
{
	struct wm_repo *r = s->repo;
	char *own = NULL;
	size_t n = strlen(r->where.gitdir);
	bool default_index;
	int ret;

	if ((ret = open_git(r, err)) < 0)
		return ret;
	if (!(own = malloc(n + sizeof("/index"))))
		return wm_error_oom(err);
	snprintf(own, n + sizeof("/index"), "%s/index", r->where.gitdir);
	default_index = strcmp(own, r->where.index) == 0;
	free(own);
	if (default_index)
		return lg.git_repository_index(&s->index, r->git) < 0 ? -1 : 0;
	if (lg.git_index_open(&s->index, r->where.index) < 0)
		return -1;
	if (lg.git_repository_set_index(r->git, s->index) < 0 ||
	    lg.git_index_set_caps(s->index, GIT_INDEX_CAPABILITY_FROM_OWNER) < 0) {
		lg.git_index_free(s->index);
		s->index = NULL;
		return -1;
	}
	return 0;
}

/*
 * Opens the index of a source, the one git is committing when it runs the
 * hook ($GIT_INDEX_FILE, wm_gitdir): read by repo/gitindex.c, which is
 * several times faster than libgit2's reading (which verifies the file's
 * SHA-1 with collision detection and checks every path) and reads a split
 * index, which libgit2 1.5 refuses; or by libgit2, when the index has what
 * gitindex.c does not read (a sparse index, another extension that must be
 * understood, another version, SHA-256 ids), or under core.ignorecase,
 * whose lookups ignore case.  An index that cannot be read is an error
 * naming the file, never an empty one, unless it is the repository's own
 * and missing (a repository with nothing added yet).
 */
static int open_index(struct source *s, struct wm_error *err)
{
	struct wm_repo *r = s->repo;
	const char *env = getenv("GIT_INDEX_FILE");
	bool named = env && *env;
	struct wm_error quiet;
	struct stat st;
	int ret, icase = r->where.ignorecase;

	if (r->where.uncertain) {   /* libgit2 reads the configuration */
		git_config *cfg = NULL;
		if ((ret = open_git(r, err)) < 0)
			return ret;
		if (lg.git_repository_config_snapshot(&cfg, r->git) < 0)
			return git_fail(err, WM_EIO, "cannot read the git configuration");
		if (lg.git_config_get_bool(&icase, cfg, "core.ignorecase") < 0)
			icase = 0;
		lg.git_config_free(cfg);
	}
	if (named && stat(r->where.index, &st) != 0) {
		wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, r->where.index,
			"cannot read the index git is committing (GIT_INDEX_FILE): %s", strerror(errno));
		return WM_EIO;
	}
	wm_error_init(&quiet);
	ret = icase || !r->where.sha1 ? 1 : wm_gitindex_read(&s->ix, r->where.index, r->where.gitdir, &quiet);
	if (ret == 0 && !s->ix.split) {
		s->direct = true;
	} else if (ret == 0) {
		if ((ret = open_git(r, err)) == 0 && (ret = split_index(&s->index, s->repo, &s->ix, err)) == 0)
			s->direct = true;
	} else if (ret == WM_ENOMEM) {
		wm_error_code(err, ret);
	} else if ((ret = open_git_index(s, err)) == -1) {
		/* libgit2's reason, and this reader's when it had one */
		const git_error *e = lg.git_error_last();
		wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, r->where.index, "cannot read the index: %s%s%s",
			e && e->message ? e->message : "unknown libgit2 error",
			quiet.ndiags ? "; " : "", quiet.ndiags ? quiet.diags[0].message : "");
		ret = WM_EIO;
	}
	wm_error_release(&quiet);
	return ret;
}

/* The stage 0 entry of `path` in the index: 1 with its id and mode, 0 when there is none. */
static int index_find(const struct source *s, const char *path, git_oid *id, uint32_t *mode)
{
	if (s->direct) {
		const struct wm_gitindex_entry *e = wm_gitindex_find(&s->ix, path);
		if (!e)
			return 0;
		memcpy(id->id, wm_gitindex_id(e), 20);
		*mode = wm_gitindex_mode(e);
	} else {
		const git_index_entry *e = lg.git_index_get_bypath(s->index, path, 0);
		if (!e)
			return 0;
		*id = e->id;
		*mode = e->mode;
	}
	return 1;
}

/*
 * The blob `id` from the working tree's copy of `gitpath`, when that copy
 * has exactly the blob's content: the index's recorded size, then the id
 * of its bytes, are checked (the time stamps are not trusted).  1 when it
 * has not (changed since it was added, converted by a filter, not a file):
 * the object store must be read.
 */
static int blob_from_worktree(char **data, size_t *len, const struct source *s, const char *gitpath,
	const struct wm_gitindex_entry *e)
{
	const unsigned char *rec = e->rec;
	uint32_t recorded = (uint32_t)rec[36] << 24 | (uint32_t)rec[37] << 16 | (uint32_t)rec[38] << 8 | rec[39];
	struct wm_buf path = WM_BUF_INIT;
	struct wm_error quiet;
	struct stat st;
	char hex[41], want[41];
	int ret = 1;

	*data = NULL;
	uint32_t mode = wm_gitindex_mode(e);
	if (!s->repo->workdir || (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE))
		return 1;
	wm_buf_printf(&path, "%s%s", s->repo->workdir, gitpath);
	if (path.oom) {
		ret = WM_ENOMEM;
		goto out;
	}
	/* git records the size modulo 2^32 */
	if (lstat(path.ptr, &st) != 0 || !S_ISREG(st.st_mode) || (uint32_t)st.st_size != recorded ||
	    (uint64_t)st.st_size > WM_MATRIX_MAX_BYTES)
		goto out;
	wm_error_init(&quiet);
	ret = wm_io_read(data, len, path.ptr, WM_MATRIX_MAX_BYTES, &quiet);
	wm_error_release(&quiet);
	if (ret < 0) {
		ret = 1;
		goto out;
	}
	wm_sha1_git_blob(hex, *data, *len);
	for (int i = 0; i < 20; i++)
		snprintf(want + 2 * i, 3, "%02x", wm_gitindex_id(e)[i]);
	ret = memcmp(hex, want, 40) == 0 ? 0 : 1;
out:
	if (ret != 0) {
		free(*data);
		*data = NULL;
	}
	wm_buf_release(&path);
	return ret;
}

/* Copies a blob's content, within the matrix size limit. */
static int blob_data(char **data, size_t *len, git_repository *repo, const git_oid *id, const char *path,
	struct wm_error *err)
{
	git_blob *blob = NULL;
	git_object_size_t size;

	if (lg.git_blob_lookup(&blob, repo, id) < 0)
		return git_fail(err, WM_EIO, "cannot read a blob");
	size = lg.git_blob_rawsize(blob);
	if (size > WM_MATRIX_MAX_BYTES) {
		lg.git_blob_free(blob);
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, path,
			"the file is larger than %u MiB", WM_MATRIX_MAX_BYTES >> 20);
		return WM_EINVALID;
	}
	if (!(*data = malloc((size_t)size + 1))) {
		lg.git_blob_free(blob);
		return wm_error_oom(err);
	}
	memcpy(*data, lg.git_blob_rawcontent(blob), (size_t)size);
	(*data)[size] = '\0';
	*len = (size_t)size;
	lg.git_blob_free(blob);
	return 0;
}

static int read_source(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	struct source *s = ctx;
	struct wm_buf gitpath = WM_BUF_INIT, filtered = WM_BUF_INIT;
	git_tree_entry *entry = NULL;
	git_oid id;
	uint32_t mode;
	struct wm_reader tree;
	int ret;

	*data = NULL;
	*len = 0;
	if ((ret = source_path(&gitpath, s, path)) < 0) {
		wm_error_code(err, ret);
		goto out;
	}
	switch (s->kind) {
	case WM_SOURCE_WORKTREE:
		/* the file on disk, as `git add` would store it */
		wm_io_tree_reader(&tree, s->root);
		if ((ret = tree.read(tree.ctx, path, data, len, err)) != 0)
			goto out;
		if ((ret = wm_repo_filter(&filtered, s->repo, gitpath.ptr, false, *data, *len, err)) < 0)
			goto out;
		free(*data);
		*len = filtered.len;
		if (!(*data = wm_buf_detach(&filtered)) && !(*data = calloc(1, 1))) {
			wm_error_code(err, ret = WM_ENOMEM);
			goto out;
		}
		break;
	case WM_SOURCE_INDEX:
		if (!index_find(s, gitpath.ptr, &id, &mode)) {
			ret = 1;
			goto out;
		}
		if (s->direct && (ret = blob_from_worktree(data, len, s, gitpath.ptr,
				wm_gitindex_find(&s->ix, gitpath.ptr))) != 1) {
			if (ret == WM_ENOMEM)
				wm_error_code(err, ret);
			goto out;
		}
		if ((ret = open_git(s->repo, err)) < 0)
			goto out;
		ret = blob_data(data, len, s->repo->git, &id, path, err);
		break;
	case WM_SOURCE_REV:
		if ((ret = lg.git_tree_entry_bypath(&entry, s->tree, gitpath.ptr)) == GIT_ENOTFOUND) {
			ret = 1;
			goto out;
		}
		if (ret < 0) {
			ret = git_fail(err, WM_EIO, "cannot read the commit's tree");
			goto out;
		}
		if (lg.git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
			wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, path, "not a file in the commit");
			ret = WM_EREAD;
			goto out;
		}
		ret = blob_data(data, len, s->repo->git, lg.git_tree_entry_id(entry), path, err);
		break;
	}
out:
	if (ret != 0) {
		free(*data);
		*data = NULL;
		*len = 0;
	}
	if (entry)
		lg.git_tree_entry_free(entry);
	wm_buf_release(&gitpath);
	wm_buf_release(&filtered);
	return ret;
}

struct walk {
	struct wm_paths *out;
	int ret;
};

static int walk_blob(const char *root, const git_tree_entry *entry, void *payload)
{
	struct walk *w = payload;
	struct wm_buf path = WM_BUF_INIT;
	if (lg.git_tree_entry_type(entry) != GIT_OBJECT_BLOB || lg.git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
		return 0;
	wm_buf_printf(&path, "%s%s", root, lg.git_tree_entry_name(entry));
	w->ret = path.oom ? WM_ENOMEM : wm_io_paths_add(w->out, path.ptr, path.len);
	wm_buf_release(&path);
	return w->ret < 0 ? -1 : 0;
}

static int list_source(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	struct source *s = ctx;
	struct wm_buf gitdir = WM_BUF_INIT;
	git_tree_entry *entry = NULL;
	git_tree *tree = NULL;
	struct wm_reader disk;
	int ret = 0;

	if (s->kind == WM_SOURCE_WORKTREE) {
		wm_io_tree_reader(&disk, s->root);
		return disk.list(disk.ctx, dir, out, err);
	}
	wm_buf_printf(&gitdir, "%s%s", s->prefix, dir);
	while (gitdir.len && gitdir.ptr[gitdir.len - 1] == '/')
		gitdir.ptr[--gitdir.len] = '\0';
	if (gitdir.oom) {
		ret = WM_ENOMEM;
	} else if (s->kind == WM_SOURCE_INDEX && s->direct) {
		size_t pos;
		if (gitdir.len)
			wm_buf_putc(&gitdir, '/');
		ret = 1;
		for (pos = wm_gitindex_lower_bound(&s->ix, gitdir.ptr); pos < s->ix.n && ret >= 0; pos++) {
			const struct wm_gitindex_entry *e = &s->ix.entries[pos];
			if (strncmp(e->path, gitdir.ptr, gitdir.len) != 0)
				break;
			if (ret == 1)
				ret = 0;
			uint32_t m = wm_gitindex_mode(e);
			if (wm_gitindex_stage(e) == 0 && (m == GIT_FILEMODE_BLOB || m == GIT_FILEMODE_BLOB_EXECUTABLE))
				ret = wm_io_paths_add(out, e->path + gitdir.len, strlen(e->path + gitdir.len));
		}
	} else if (s->kind == WM_SOURCE_INDEX) {
		size_t pos = 0, n = lg.git_index_entrycount(s->index);
		if (gitdir.len)
			wm_buf_putc(&gitdir, '/');
		if (lg.git_index_find_prefix(&pos, s->index, gitdir.ptr) < 0)
			pos = n;
		ret = 1;
		for (; pos < n && ret >= 0; pos++) {
			const git_index_entry *e = lg.git_index_get_byindex(s->index, pos);
			if (strncmp(e->path, gitdir.ptr, gitdir.len) != 0)
				break;
			if (ret == 1)
				ret = 0;
			if (GIT_INDEX_ENTRY_STAGE(e) == 0 && (e->mode == GIT_FILEMODE_BLOB ||
					e->mode == GIT_FILEMODE_BLOB_EXECUTABLE))
				ret = wm_io_paths_add(out, e->path + gitdir.len, strlen(e->path + gitdir.len));
		}
	} else if (lg.git_tree_entry_bypath(&entry, s->tree, gitdir.ptr) < 0 ||
			lg.git_tree_entry_type(entry) != GIT_OBJECT_TREE) {
		ret = 1;
	} else if (lg.git_tree_lookup(&tree, s->repo->git, lg.git_tree_entry_id(entry)) < 0) {
		ret = git_fail(err, WM_EIO, "cannot read the commit's tree");
	} else {
		struct walk w = { out, 0 };
		if (lg.git_tree_walk(tree, GIT_TREEWALK_PRE, walk_blob, &w) < 0)
			ret = w.ret < 0 ? w.ret : git_fail(err, WM_EIO, "cannot read the commit's tree");
	}
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	if (ret < 0)
		wm_io_paths_free(out);
	else
		wm_io_paths_sort(out);
	if (tree)
		lg.git_tree_free(tree);
	if (entry)
		lg.git_tree_entry_free(entry);
	wm_buf_release(&gitdir);
	return ret;
}

int wm_repo_source_open(struct wm_reader *out, struct wm_repo *r, enum wm_source kind, const char *rev,
	const char *root, struct wm_error *err)
{
	struct source *s = calloc(1, sizeof(*s));
	git_object *obj = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!s)
		return wm_error_oom(err);
	s->repo = r;
	s->kind = kind;
	s->root = root;
	if ((ret = wm_repo_prefix(&s->prefix, r, root, err)) < 0)
		goto fail;
	if (!s->prefix) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"'%s' is not inside the repository's working tree", root);
		ret = WM_EINVALID;
		goto fail;
	}
	if (kind != WM_SOURCE_REV && !r->workdir) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"a bare repository has no %s: check a commit with --rev",
			kind == WM_SOURCE_INDEX ? "index" : "working tree");
		ret = WM_EINVALID;
		goto fail;
	}
	/* the index also says, for the working tree, what is tracked */
	if (kind != WM_SOURCE_REV && (ret = open_index(s, err)) < 0)
		goto fail;
	if (kind == WM_SOURCE_REV) {
		if ((ret = open_git(r, err)) < 0)
			goto fail;
		if (lg.git_revparse_single(&obj, r->git, rev) < 0) {
			wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
				"unknown revision '%s'", rev);
			ret = WM_EINVALID;
			goto fail;
		}
		if (lg.git_object_peel((git_object **)&s->tree, obj, GIT_OBJECT_TREE) < 0) {
			lg.git_object_free(obj);
			wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
				"'%s' is not a commit or a tree", rev);
			ret = WM_EINVALID;
			goto fail;
		}
		lg.git_object_free(obj);
	}
	out->read = read_source;
	out->list = list_source;
	out->ctx = s;
	return 0;
fail:
	if (s->index)
		lg.git_index_free(s->index);
	wm_gitindex_free(&s->ix);
	free(s->prefix);
	free(s);
	return ret;
}

void wm_repo_source_close(struct wm_reader *r)
{
	struct source *s = r ? r->ctx : NULL;
	if (!s)
		return;
	if (s->index)
		lg.git_index_free(s->index);
	wm_gitindex_free(&s->ix);
	if (s->tree)
		lg.git_tree_free(s->tree);
	free(s->prefix);
	free(s);
	r->ctx = NULL;
}

int wm_repo_source_status(struct wm_repo_status *out, const struct wm_reader *src, const char *path,
	struct wm_error *err)
{
	const struct source *s = src->ctx;
	struct wm_buf gitpath = WM_BUF_INIT;
	git_oid id;
	uint32_t mode;
	int ret, ignored = 0;

	memset(out, 0, sizeof(*out));
	out->tracked = true;
	if ((ret = source_path(&gitpath, s, path)) < 0) {
		wm_error_code(err, ret);
		goto out;
	}
	if (!s->repo->workdir)  /* a bare repository ignores nothing and tracks what its commits hold */
		goto out;
	/* no rule may match: git's need not be read */
	if (wm_gitdir_may_ignore(&s->repo->where, gitpath.ptr)) {
		if ((ret = open_git(s->repo, err)) < 0)
			goto out;
		if (lg.git_ignore_path_is_ignored(&ignored, s->repo->git, gitpath.ptr) < 0) {
			ret = git_fail(err, WM_EIO, "cannot read the ignore rules");
			goto out;
		}
	}
	out->ignored = ignored;
	if (s->kind == WM_SOURCE_WORKTREE)
		out->tracked = index_find(s, gitpath.ptr, &id, &mode);
out:
	wm_buf_release(&gitpath);
	return ret;
}

/* ---- the hooks -------------------------------------------------------------------- */

const char *const wm_repo_hooks[WM_HOOKS] = { "pre-commit", "pre-merge-commit" };

/* mkdir -p */
static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Where git runs hooks from: core.hooksPath (relative to the working tree's top), else the common hooks directory. */
static int hooks_dir(struct wm_buf *out, struct wm_repo *r, struct wm_error *err)
{
	git_config *cfg = NULL;
	git_buf path = { 0 };
	int ret;

	if ((ret = open_git(r, err)) < 0)
		return ret;
	if (lg.git_repository_config_snapshot(&cfg, r->git) < 0)
		return git_fail(err, WM_EIO, "cannot read the git configuration");
	if (lg.git_config_get_path(&path, cfg, "core.hooksPath") == 0) {
		if (path.ptr[0] != '/')
			wm_buf_puts(out, r->workdir);
		wm_buf_puts(out, path.ptr);
	} else {
		lg.git_buf_dispose(&path);
		if (lg.git_repository_item_path(&path, r->git, GIT_REPOSITORY_ITEM_HOOKS) < 0)
			ret = git_fail(err, WM_EIO, "cannot find the hooks directory");
		else
			wm_buf_puts(out, path.ptr);
	}
	/* without its final '/' */
	while (out->len > 1 && out->ptr[out->len - 1] == '/')
		out->ptr[--out->len] = '\0';
	lg.git_buf_dispose(&path);
	lg.git_config_free(cfg);
	return ret;
}

/*
 * The script of hook `name` (one of wm_repo_hooks).  git runs pre-commit and pre-merge-commit at
 * the top of the working tree, with the index it is committing in $GIT_INDEX_FILE (relative to
 * there) and, in a linked worktree, $GIT_DIR, whose working tree is the current directory: the
 * hook stays there and names the matrix below it (`file`, or NULL for the top's wheelmatrix.yaml).
 */
static void hook_script(struct wm_buf *hook, const char *name, const char *file)
{
	bool merge = strcmp(name, "pre-merge-commit") == 0;
	wm_buf_printf(hook, "#!/bin/sh\n# wheelmatrix %s hook: checks what is being committed (written by 'wheelmatrix "
		"hook install').\n", name);
	/* an installed hook outlives the binary it runs: say so rather than "wheelmatrix: not found" */
	wm_buf_printf(hook, "if ! command -v wheelmatrix >/dev/null 2>&1; then\n"
		"\techo \"%s: wheelmatrix is not on PATH: install it ('make install' in its source puts it in "
		"/usr/local/bin), or %s without this check: git %s --no-verify\" >&2\n"
		"\texit 1\n"
		"fi\n", name, merge ? "merge" : "commit", merge ? "merge" : "commit");
	wm_buf_puts(hook, "WHEELMATRIX_HOOK=1 exec wheelmatrix");
	if (file) {
		wm_buf_puts(hook, " -f ");
		wm_buf_shell_word(hook, file, false);
	}
	wm_buf_puts(hook, " check --staged\n");
}

/* Whether the hook text `old` is one wheelmatrix wrote as hook `name`. */
static bool ours(const char *old, const char *name)
{
	char mark[64];
	snprintf(mark, sizeof(mark), "\n# wheelmatrix %s hook", name);
	return strstr(old, mark) != NULL;
}

int wm_repo_hook_install(char *paths[WM_HOOKS], bool unchanged[WM_HOOKS], const char *root, const char *matrix,
	bool force, struct wm_error *err)
{
	struct wm_repo *r = NULL;
	struct wm_buf dir = WM_BUF_INIT, file = WM_BUF_INIT, hooks[WM_HOOKS], targets[WM_HOOKS];
	char *prefix = NULL;
	struct stat st;
	bool refused = false;
	int ret;

	for (size_t i = 0; i < WM_HOOKS; i++) {
		paths[i] = NULL;
		unchanged[i] = false;
		hooks[i] = targets[i] = (struct wm_buf)WM_BUF_INIT;
	}
	if ((ret = wm_repo_discover(&r, root, err)) != 0) {
		if (ret == 1) {
			wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, NULL,
				"not a git repository (or any parent): %s", root);
			ret = WM_EIO;
		}
		goto out;
	}
	if (!r->workdir) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"a bare repository has no commits made in it to check");
		ret = WM_EINVALID;
		goto out;
	}
	if ((ret = wm_repo_prefix(&prefix, r, root, err)) < 0 || (ret = hooks_dir(&dir, r, err)) < 0)
		goto out;
	if (strcmp(matrix, "wheelmatrix.yaml") != 0 || (prefix && *prefix))
		wm_buf_printf(&file, "%s%s", prefix ? prefix : "", matrix);
	for (size_t i = 0; i < WM_HOOKS; i++) {
		hook_script(&hooks[i], wm_repo_hooks[i], file.len ? file.ptr : NULL);
		wm_buf_printf(&targets[i], "%s/%s", dir.ptr ? dir.ptr : "", wm_repo_hooks[i]);
		if (hooks[i].oom || targets[i].oom) {
			wm_error_code(err, ret = WM_ENOMEM);
			goto out;
		}
	}
	if (dir.oom || file.oom) {
		wm_error_code(err, ret = WM_ENOMEM);
		goto out;
	}
	if (mkdir_parents(dir.ptr) != 0) {
		wm_error_nopos(err, WM_EIO, WM_SEV_ERROR, NULL,
			"cannot create the hooks directory '%s': %s", dir.ptr, strerror(errno));
		ret = WM_EIO;
		goto out;
	}
	/* every hook someone else wrote is named before anything is written */
	for (size_t i = 0; i < WM_HOOKS; i++) {
		char *old = NULL;
		size_t oldlen = 0;
		if (lstat(targets[i].ptr, &st) != 0 && errno == ENOENT)
			continue;  /* no hook yet */
		if ((ret = wm_io_read(&old, &oldlen, targets[i].ptr, 1u << 20, err)) < 0)
			goto out;
		if (oldlen == hooks[i].len && memcmp(old, hooks[i].ptr, oldlen) == 0) {
			unchanged[i] = true;
		} else if (!force && !ours(old, wm_repo_hooks[i])) {
			wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL,
				"'%s' is a hook wheelmatrix did not write: not replacing it (use --force, or have it run "
				"'wheelmatrix check --staged')", targets[i].ptr);
			refused = true;
		}
		free(old);
	}
	if (refused) {
		ret = WM_ESTATE;
		goto out;
	}
	for (size_t i = 0; i < WM_HOOKS; i++) {
		if (!unchanged[i] && (ret = wm_io_write_atomic(targets[i].ptr, targets[i].ptr, hooks[i].ptr, hooks[i].len,
				0755, err)) < 0)
			goto out;
	}
	for (size_t i = 0; i < WM_HOOKS; i++)
		if (!(paths[i] = wm_buf_detach(&targets[i]))) {
			wm_error_code(err, ret = WM_ENOMEM);
			goto out;
		}
	ret = 0;
out:
	if (ret < 0)
		for (size_t i = 0; i < WM_HOOKS; i++) {
			free(paths[i]);
			paths[i] = NULL;
		}
	for (size_t i = 0; i < WM_HOOKS; i++) {
		wm_buf_release(&hooks[i]);
		wm_buf_release(&targets[i]);
	}
	free(prefix);
	wm_buf_release(&dir);
	wm_buf_release(&file);
	wm_repo_free(r);
	return ret;
}
