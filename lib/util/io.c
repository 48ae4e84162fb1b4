/* io.c — files within a size limit, never through a link out of the repository, and atomic writes; errors name the path. */
/* realpath() is XSI: glibc declares it under _XOPEN_SOURCE, not under plain _POSIX_C_SOURCE */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/name.h"

#define FILE_MAX_BYTES (16u << 20)  /* a file read below the root */

int wm_io_read_fd(char **out, size_t *len, int fd, size_t max)
{
	char *data = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*len = 0;
	for (;;) {
		ssize_t r;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64 * 1024;
			char *p;
			if (ncap > max + 1)
				ncap = max + 1;
			if (ncap <= cap)
				break;  /* a byte more than the limit was read */
			if (!(p = realloc(data, ncap + 1))) {
				free(data);
				return WM_ENOMEM;
			}
			data = p;
			cap = ncap;
		}
		r = read(fd, data + n, cap - n);
		if (r < 0) {
			int saved = errno;
			if (saved == EINTR)
				continue;
			free(data);
			errno = saved;
			return WM_EREAD;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(data);
		return WM_EINVALID;
	}
	if (!data && !(data = malloc(1)))
		return WM_ENOMEM;
	data[n] = '\0';
	*out = data;
	*len = n;
	return 0;
}

static int fail(struct wm_error *err, const char *path, const char *what)
{
	wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, path, "%s", what);
	return WM_EREAD;
}

int wm_io_read(char **out, size_t *len, const char *path, size_t max, struct wm_error *err)
{
	int fd = 0;
	struct stat st;
	char *data = NULL;
	size_t n = 0;
	int ret = 0;
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;

	*out = NULL;
	*len = 0;
	if (!is_stdin && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return fail(err, name, "no such file");
		if (errno == EACCES)
			return fail(err, name, "cannot read the file: permission denied");
		if (errno == ENOTDIR)
			return fail(err, name, "no such file (a component of the path is not a directory)");
		return fail(err, name, strerror(errno));
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ret = fail(err, name, "is a directory, not a file");
		goto out;
	}
	if ((ret = wm_io_read_fd(&data, &n, fd, max)) == WM_EINVALID) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, name,
			"the file is larger than the limit of %zu MiB", max >> 20);
		goto out;
	} else if (ret == WM_ENOMEM) {
		wm_error_nopos(err, WM_ENOMEM, WM_SEV_ERROR, name, "out of memory");
		goto out;
	} else if (ret < 0) {
		ret = fail(err, name, errno == EISDIR ? "is a directory, not a file" : strerror(errno));
		goto out;
	}
	data[n] = '\0';
	*out = data;
	*len = n;
	data = NULL;
out:
	if (!is_stdin)
		close(fd);
	free(data);
	return ret;
}

/*
 * The working tree as a wm_reader: `ctx` is the repository root.  No file is
 * read through a symbolic link that leads outside the root or into `.git`
 * (wm_io_read_below, the confinement `generate` writes under).
 */
static int read_tree(void *ctx, const char *path, char **data, size_t *len, struct wm_error *err)
{
	return wm_io_read_below(data, len, ctx, path, err);
}

/* ---- lists of paths ---------------------------------------------------- */

int wm_io_paths_add(struct wm_paths *p, const char *path, size_t len)
{
	char *s;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		char **items = realloc(p->items, cap * sizeof(*items));
		if (!items)
			return WM_ENOMEM;
		p->items = items;
		p->cap = cap;
	}
	if (!(s = strndup(path, len)))
		return WM_ENOMEM;
	p->items[p->n++] = s;
	return 0;
}

static int cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void wm_io_paths_sort(struct wm_paths *p)
{
	if (p->n > 1)
		qsort(p->items, p->n, sizeof(*p->items), cmp_paths);
}

void wm_io_paths_free(struct wm_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->items[i]);
	free(p->items);
	memset(p, 0, sizeof(*p));
}

/* Adds the regular files below the directory `full` to `out`, as paths without full's first `base` bytes. */
static int list_dir(struct wm_paths *out, struct wm_buf *full, size_t base, unsigned depth)
{
	size_t here = full->len;
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (depth > WM_MATRIX_MAX_DEPTH)
		return 0;
	if (!(d = opendir(full->ptr)))
		return errno == ENOENT || errno == ENOTDIR ? 1 : WM_EREAD;
	while (ret >= 0 && (errno = 0, e = readdir(d))) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		full->len = here;
		wm_buf_printf(full, "/%s", e->d_name);
		if (full->oom) {
			ret = WM_ENOMEM;
			break;
		}
		if (lstat(full->ptr, &st) < 0)
			continue;  /* gone since readdir */
		if (S_ISREG(st.st_mode))
			ret = wm_io_paths_add(out, full->ptr + base, full->len - base);
		else if (S_ISDIR(st.st_mode) && strcmp(e->d_name, ".git") != 0 && (ret = list_dir(out, full, base,
				depth + 1)) > 0)
			ret = 0;
	}
	if (ret >= 0 && errno)
		ret = WM_EREAD;
	closedir(d);
	full->len = here;
	if (full->ptr)
		full->ptr[here] = '\0';
	return ret;
}

static int list_tree(void *ctx, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	struct wm_buf full = WM_BUF_INIT;
	char *rel, *real = NULL;
	size_t n = strlen(dir);
	int ret;

	/* the directory itself through links that stay inside; below it, links are left out */
	while (n > 0 && dir[n - 1] == '/')
		n--;
	if (!(rel = strndup(dir, n)))
		return wm_error_oom(err);
	ret = wm_io_dir_below(&real, ctx, rel, err);
	free(rel);
	if (ret != 0)
		return ret;
	wm_buf_puts(&full, real);
	free(real);
	ret = full.oom ? WM_ENOMEM : list_dir(out, &full, full.len + 1, 0);
	if (ret == WM_EREAD)
		wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, dir, "cannot list the directory: %s",
			strerror(errno));
	else if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	if (ret < 0)
		wm_io_paths_free(out);
	else
		wm_io_paths_sort(out);
	wm_buf_release(&full);
	return ret;
}

void wm_io_tree_reader(struct wm_reader *r, const char *root)
{
	r->read = read_tree;
	r->ctx = (void *)root;
	r->list = list_tree;
}

char *wm_io_path_dir(const char *path)
{
	const char *slash = strcmp(path, "-") == 0 ? NULL : strrchr(path, '/');
	return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

/* ---- confinement to the root --------------------------------------------------- */

/* Resolving a path relative to the root into a real path inside it, to read or to write. */
struct walk {
	const char *path;      /* relative to the root: what messages name */
	const char *verb;      /* "read" or "write" */
	enum wm_err io;        /* the code of a failed system call: WM_EREAD or WM_EIO */
	bool create;           /* create missing parent directories (writing) */
	bool probe;            /* decide as writing does, creating nothing */
	bool dir;              /* the path names a directory (listing), not a file */
	struct wm_error *err;
	char *root;            /* realpath of the root */
	size_t rootlen;
};

static int walk_fail(const struct walk *w, enum wm_err code, const char *fmt, ...) WM_PRINTF(3, 4);

/* Reports "cannot <verb> '<path>': <what>" about w->path. */
static int walk_fail(const struct walk *w, enum wm_err code, const char *fmt, ...)
{
	struct wm_buf what = WM_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	wm_buf_vprintf(&what, fmt, ap);
	va_end(ap);
	if (what.oom || !what.ptr) {
		wm_buf_release(&what);
		return wm_error_oom(w->err);
	}
	/* the message names the path: no file position to give */
	wm_error_nopos(w->err, code, WM_SEV_ERROR, NULL,
		"cannot %s '%s': %s", w->verb, w->path, what.ptr);
	wm_buf_release(&what);
	return code;
}

/* Reports a problem of the file itself, "'<path>' is a directory", the same when reading or writing. */
static int file_fail(const struct walk *w, const char *what)
{
	wm_error_nopos(w->err, WM_EINVALID, WM_SEV_ERROR, NULL, "'%s' %s", w->path, what);
	return WM_EINVALID;
}

static int walk_oom(const struct walk *w)
{
	wm_error_nopos(w->err, WM_ENOMEM, WM_SEV_ERROR, w->path, "out of memory");
	return WM_ENOMEM;
}

static int walk_init(struct walk *w, const char *root)
{
	const char *why;

	if (!wm_name_repo_path(w->path, &why))
		return walk_fail(w, WM_EINVALID, "%s", why);
	w->root = realpath(root, NULL);
	if (!w->root)
		return walk_fail(w, w->io, "'%s': %s", root, strerror(errno));
	w->rootlen = strlen(w->root);
	return 0;
}

/* The part of the real path `rp` below the root ("" for the root), or NULL when it is outside. */
static const char *below_root(const struct walk *w, const char *rp)
{
	if (strncmp(rp, w->root, w->rootlen) != 0)
		return NULL;
	if (w->root[w->rootlen - 1] == '/')  /* the root is "/" */
		return rp + w->rootlen;
	if (rp[w->rootlen] == '\0')
		return rp + w->rootlen;
	if (rp[w->rootlen] == '/')
		return rp + w->rootlen + 1;
	return NULL;
}

/* Reports errno for the component ending at `shown`, naming it unless it is the file itself. */
static int walk_errno(const struct walk *w, int shown)
{
	const char *why = strerror(errno);
	if ((size_t)shown >= strlen(w->path))
		return walk_fail(w, w->io, "%s", why);
	return walk_fail(w, w->io, "'%.*s': %s", shown, w->path, why);
}

/*
 * Follows the symbolic link `link`, which the first `n` bytes of w->path
 * name: 0 with its real path in *out, 1 when it leads to nothing,
 * or an error (reported) when it leads outside the root, or into a `.git`
 * directory at any depth (or what git reads as one: wm_name_git_component),
 * which wm_name_repo_path keeps a written path out of too.
 */
static int follow(char **out, const struct walk *w, const char *link, int n)
{
	char *rp = realpath(link, NULL);
	const char *rel;

	*out = NULL;
	if (!rp) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		return walk_errno(w, n);
	}
	rel = below_root(w, rp);
	if (!rel) {
		free(rp);
		return walk_fail(w, WM_EINVALID, "'%.*s' is a symbolic link that leads outside the repository", n, w->path);
	}
	for (const char *c = rel; *c; c += strcspn(c, "/"), c += *c == '/') {
		/* a nested repository's .git (vendor/lib/.git) as much as the repository's own, in any spelling */
		const char *why = wm_name_git_component(c, strcspn(c, "/"));
		if (why) {
			free(rp);
			return walk_fail(w, WM_EINVALID, "'%.*s' is a symbolic link that leads into '%s'", n, w->path,
				strstr(why, "'.gitmodules'") ? ".gitmodules" : ".git");
		}
	}
	*out = rp;
	return 0;
}

/*
 * Resolves w->path to a real path inside the root, following symbolic links
 * that stay inside and creating missing parent directories when w->create.
 * On success *out is the file's path (malloc'd) and *st its status when
 * *exists; when reading, *out stays NULL if there is no file there (no
 * directory there when w->dir).
 */
static int resolve(char **out, bool *exists, struct stat *st, const struct walk *w)
{
	struct wm_buf cur = WM_BUF_INIT;
	const char *p = w->path;
	int ret = 0;

	*out = NULL;
	*exists = false;
	wm_buf_puts(&cur, w->root);
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		int shown = (int)(p + n - w->path);  /* the path up to this component, for messages */
		bool last = !slash;

		if (cur.len > 0 && cur.ptr[cur.len - 1] != '/')
			wm_buf_putc(&cur, '/');
		wm_buf_add(&cur, p, n);
		if (cur.oom) {
			ret = walk_oom(w);
			goto out;
		}
		if (lstat(cur.ptr, st) != 0) {
			if (errno != ENOENT) {
				ret = walk_errno(w, shown);
				goto out;
			}
			if (!w->create)
				goto out;
			if (last)
				break;
			if (mkdir(cur.ptr, 0777) != 0 && errno != EEXIST) {
				ret = walk_fail(w, w->io, "cannot create '%.*s': %s", shown, w->path, strerror(errno));
				goto out;
			}
			if (lstat(cur.ptr, st) != 0) {
				ret = walk_errno(w, shown);
				goto out;
			}
		}
		if (S_ISLNK(st->st_mode)) {
			char *rp;
			int r = follow(&rp, w, cur.ptr, shown);
			if (r < 0) {
				ret = r;
				goto out;
			}
			if (r > 0) {
				if (w->create || w->probe)
					ret = walk_fail(w, WM_EINVALID,
						"'%.*s' is a symbolic link whose target does not exist", shown, w->path);
				goto out;
			}
			wm_buf_clear(&cur);
			wm_buf_puts(&cur, rp);
			free(rp);
			if (cur.oom) {
				ret = walk_oom(w);
				goto out;
			}
			if (stat(cur.ptr, st) != 0) {
				ret = walk_errno(w, shown);
				goto out;
			}
		}
		if (last && w->dir) {
			if (!S_ISDIR(st->st_mode))
				goto out;  /* then there is no directory there */
			*exists = true;
			break;
		}
		if (last) {
			if (S_ISDIR(st->st_mode))
				ret = file_fail(w, "is a directory");
			else if (!S_ISREG(st->st_mode))
				ret = file_fail(w, "is not a regular file");
			if (ret < 0)
				goto out;
			*exists = true;
			break;
		}
		if (!S_ISDIR(st->st_mode)) {
			if (w->create || w->probe)
				ret = walk_fail(w, WM_EINVALID, "'%.*s' is not a directory", shown, w->path);
			goto out;  /* reading: then there is no file there */
		}
		p = slash + 1;
	}
	*out = wm_buf_detach(&cur);
	if (!*out)
		ret = walk_oom(w);
out:
	wm_buf_release(&cur);
	return ret;
}

/* ---- reading --------------------------------------------------------------- */

/* Reads the regular file at the resolved path `real`, at most FILE_MAX_BYTES; *out NULL if it vanished. */
static int read_file(char **out, size_t *len, const struct walk *w, const char *real)
{
	/* no following a link swapped in since resolve, no blocking on a FIFO */
	int fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *data = NULL;
	size_t n = 0;
	int ret = 0;

	*out = NULL;
	*len = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return walk_fail(w, WM_EREAD, "%s", strerror(errno));
	}
	if (fstat(fd, &st) != 0) {
		ret = walk_fail(w, WM_EREAD, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = file_fail(w, S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
		goto out;
	}
	if ((ret = wm_io_read_fd(&data, &n, fd, FILE_MAX_BYTES)) == WM_EINVALID)
		ret = walk_fail(w, WM_EINVALID, "the file is larger than the limit of %u MiB", FILE_MAX_BYTES >> 20);
	else if (ret == WM_ENOMEM)
		ret = walk_oom(w);
	else if (ret < 0)
		ret = walk_fail(w, WM_EREAD, "%s", strerror(errno));
	if (ret < 0)
		goto out;
	*out = data;
	*len = n;
	data = NULL;
out:
	close(fd);
	free(data);
	return ret;
}

int wm_io_read_below(char **out, size_t *len, const char *root, const char *path, struct wm_error *err)
{
	struct walk w = { .path = path, .verb = "read", .io = WM_EREAD, .err = err };
	char *real = NULL;
	bool exists;
	struct stat st;
	int ret;

	*out = NULL;
	*len = 0;
	if ((ret = walk_init(&w, root)) < 0 || (ret = resolve(&real, &exists, &st, &w)) < 0)
		goto out;
	if (real && (ret = read_file(out, len, &w, real)) == 0 && !*out)
		ret = 1;  /* gone since resolve */
	else if (!real)
		ret = 1;
out:
	free(real);
	free(w.root);
	return ret;
}

int wm_io_dir_below(char **out, const char *root, const char *path, struct wm_error *err)
{
	struct walk w = { .path = path, .verb = "read", .io = WM_EREAD, .dir = true, .err = err };
	bool exists;
	struct stat st;
	int ret;

	*out = NULL;
	if (!*path) {
		/* the root itself */
		if (!(*out = realpath(root, NULL)))
			return walk_fail(&w, w.io, "'%s': %s", root, strerror(errno));
		return 0;
	}
	if ((ret = walk_init(&w, root)) == 0 && (ret = resolve(out, &exists, &st, &w)) == 0 && !*out)
		ret = 1;
	free(w.root);
	return ret;
}

/* ---- writing ----------------------------------------------------------------- */

/*
 * The umask, which only umask() itself sets and reports: read it from
 * /proc where the kernel shows it, since setting it to find out would
 * change it for a moment under the process's other threads.
 */
static mode_t current_umask(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	mode_t mask;

	if (fp) {
		while (fgets(line, sizeof(line), fp)) {
			if (strncmp(line, "Umask:", 6) == 0) {
				char *end;
				unsigned long v = strtoul(line + 6, &end, 8);
				if (end != line + 6) {
					fclose(fp);
					return (mode_t)(v & 0777);
				}
			}
		}
		fclose(fp);
	}
	mask = umask(022);
	umask(mask);
	return mask;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t r = write(fd, data, len > (1u << 30) ? (1u << 30) : len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		data += r;
		len -= (size_t)r;
	}
	return 0;
}

/* fsync, where EINVAL only says the file system has nothing to sync. */
static int sync_fd(int fd)
{
	return fsync(fd) != 0 && errno != EINVAL ? -1 : 0;
}

/* Makes the rename durable; best effort: the file is already in place. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int wm_io_write_atomic(const char *target, const char *shown, const char *data, size_t len, unsigned mode,
	struct wm_error *err)
{
	struct walk w = { .path = shown, .verb = "write", .io = WM_EIO, .err = err };
	char *tmp = NULL, *dir = NULL;
	const char *base = strrchr(target, '/');
	struct wm_buf name = WM_BUF_INIT;
	int fd = -1, ret;

	base = base ? base + 1 : target;
	dir = base - target > 1 ? strndup(target, (size_t)(base - target - 1)) : strdup(base > target ? "/" : ".");
	if (!dir) {
		ret = walk_oom(&w);
		goto out;
	}
	wm_buf_printf(&name, "%.*s.%s.tmpXXXXXX", (int)(base - target), target, base);
	if (!(tmp = wm_buf_detach(&name))) {
		ret = walk_oom(&w);
		goto out;
	}
	if ((fd = mkstemp(tmp)) < 0) {
		int e = errno;
		free(tmp);
		tmp = NULL;  /* nothing was created */
		errno = e;
		goto failed;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fchmod(fd, (mode_t)mode) != 0 ||
	    write_all(fd, data, len) != 0 || sync_fd(fd) != 0)
		goto failed;
	ret = close(fd);
	fd = -1;
	if (ret != 0 || rename(tmp, target) != 0)
		goto failed;
	free(tmp);
	tmp = NULL;  /* renamed: nothing to remove */
	sync_dir(dir);
	ret = 0;
	goto out;

failed:
	ret = walk_fail(&w, WM_EIO, "%s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(dir);
	wm_buf_release(&name);
	return ret;
}

int wm_io_check_below(const char *root, const char *path, struct wm_error *err)
{
	struct walk w = { .path = path, .verb = "write", .io = WM_EIO, .probe = true, .err = err };
	char *target = NULL;
	bool exists;
	struct stat st;
	int ret;

	if ((ret = walk_init(&w, root)) == 0)
		ret = resolve(&target, &exists, &st, &w);
	free(target);
	free(w.root);
	return ret;
}

int wm_io_write_below(const char *root, const char *path, const char *data, size_t len, struct wm_error *err)
{
	struct walk w = { .path = path, .verb = "write", .io = WM_EIO, .create = true, .err = err };
	char *target = NULL;
	bool exists;
	struct stat st;
	int ret;

	if ((ret = walk_init(&w, root)) < 0)
		goto out;
	if ((ret = resolve(&target, &exists, &st, &w)) < 0)
		goto out;
	/* the existing file's permissions, or what creat() would give a new one */
	ret = wm_io_write_atomic(target, path, data, len, exists ? st.st_mode & 0777 : 0666 & ~current_umask(), err);
out:
	free(target);
	free(w.root);
	return ret;
}

/* ---- a file of the user's, locked and replaced in place of its links ----------------- */

int wm_io_lock_below(struct wm_io_lock *out, const char *root, const char *path, struct wm_error *err)
{
	struct walk w = { .path = path, .verb = "lock", .io = WM_EIO, .probe = true, .err = err };
	bool exists;
	struct stat st, now;
	int ret;

	out->fd = -1;
	out->target = NULL;
	if (!(out->shown = strdup(path)))
		return walk_oom(&w);
	if ((ret = walk_init(&w, root)) < 0)
		goto out;
	for (int tries = 0;; tries++) {
		free(out->target);
		out->target = NULL;
		if ((ret = resolve(&out->target, &exists, &st, &w)) < 0)
			goto out;
		if (!out->target || !exists) {
			ret = walk_fail(&w, WM_EREAD, "no such file");
			goto out;
		}
		if ((out->fd = open(out->target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
			ret = walk_fail(&w, WM_EIO, "%s", strerror(errno));
			goto out;
		}
		if (flock(out->fd, LOCK_EX | LOCK_NB) != 0) {
			if (errno == EWOULDBLOCK)
				wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL, "another process holds the "
					"lock on '%s' (another 'wheelmatrix pin' writing it?): nothing was done; run again once "
					"it is done", path);
			else
				walk_fail(&w, WM_EIO, "%s", strerror(errno));
			ret = errno == EWOULDBLOCK ? WM_ESTATE : WM_EIO;
			goto out;
		}
		/* the holder before may have renamed a new file over the one locked: lock that one instead */
		if (fstat(out->fd, &st) == 0 && stat(out->target, &now) == 0 && st.st_dev == now.st_dev &&
		    st.st_ino == now.st_ino)
			break;
		close(out->fd);
		out->fd = -1;
		if (tries == 10) {
			ret = walk_fail(&w, WM_ESTATE, "it keeps being replaced");
			goto out;
		}
	}
	ret = 0;
out:
	free(w.root);
	if (ret < 0)
		wm_io_unlock(out);
	return ret;
}

void wm_io_unlock(struct wm_io_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);  /* which releases the lock */
	free(l->target);
	free(l->shown);
	l->fd = -1;
	l->target = l->shown = NULL;
}

/* A temporary file beside `target`, `.<name>.<what>XXXXXX`: its descriptor, *path set (malloc'd); -1 with errno. */
static int temp_beside(char **path, const char *target, const char *what)
{
	const char *base = strrchr(target, '/');
	struct wm_buf name = WM_BUF_INIT;
	int fd;

	base = base ? base + 1 : target;
	wm_buf_printf(&name, "%.*s.%s.%sXXXXXX", (int)(base - target), target, base, what);
	if (!(*path = wm_buf_detach(&name))) {
		errno = ENOMEM;
		return -1;
	}
	if ((fd = mkstemp(*path)) < 0) {
		int e = errno;
		free(*path);
		*path = NULL;
		errno = e;
		return -1;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

/* Whether the locked file is still the one at its path, holding `expect`: 1, 0, or -1 with errno. */
static int still(const struct wm_io_lock *l, const char *expect, size_t expect_len)
{
	struct stat locked, now;
	char *data = NULL;
	size_t n = 0;
	int fd, ret;

	if (fstat(l->fd, &locked) != 0)
		return -1;
	if ((fd = open(l->target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ELOOP ? 0 : -1;
	if (fstat(fd, &now) != 0 || now.st_dev != locked.st_dev || now.st_ino != locked.st_ino) {
		close(fd);
		return 0;
	}
	ret = wm_io_read_fd(&data, &n, fd, expect_len);
	close(fd);
	if (ret == WM_EINVALID)
		return 0;  /* longer than it was */
	if (ret < 0)
		return -1;
	ret = n == expect_len && memcmp(data, expect, n) == 0;
	free(data);
	return ret;
}

/* The file rewritten in place, through a descriptor of its own inode, after a backup of `expect` beside it. */
static int rewrite_in_place(const struct wm_io_lock *l, const struct walk *w, const char *expect, size_t expect_len,
	const char *data, size_t len)
{
	struct stat locked, st;
	char *backup = NULL;
	int fd = -1, bfd, ret;

	if ((bfd = temp_beside(&backup, l->target, "backup")) < 0)
		return walk_fail(w, WM_EIO, "cannot write a backup beside it: %s", strerror(errno));
	if (write_all(bfd, expect, expect_len) != 0 || sync_fd(bfd) != 0) {
		ret = walk_fail(w, WM_EIO, "cannot write a backup beside it: %s", strerror(errno));
		close(bfd);
		unlink(backup);
		goto out;
	}
	close(bfd);
	if ((fd = open(l->target, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0 ||
	    fstat(l->fd, &locked) != 0) {
		ret = walk_fail(w, WM_EIO, "%s (nothing was written)", strerror(errno));
		unlink(backup);
		goto out;
	}
	if (st.st_ino != locked.st_ino || st.st_dev != locked.st_dev) {
		ret = walk_fail(w, WM_ESTATE, "it was replaced since it was read (nothing was written)");
		unlink(backup);
		goto out;
	}
	/* the new text over the old, then cut to its length: never a moment the file is empty */
	for (size_t done = 0; done < len;) {
		ssize_t r = pwrite(fd, data + done, len - done > (1u << 30) ? (1u << 30) : len - done, (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = walk_fail(w, WM_EIO, "%s; it may be half written: what it held before is in '%s'",
				strerror(r < 0 ? errno : EIO), backup);
			goto out;
		}
		done += (size_t)r;
	}
	if (ftruncate(fd, (off_t)len) != 0 || sync_fd(fd) != 0) {
		ret = walk_fail(w, WM_EIO, "%s; it may be half written: what it held before is in '%s'", strerror(errno),
			backup);
		goto out;
	}
	unlink(backup);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(backup);
	return ret;
}

int wm_io_replace_locked(const struct wm_io_lock *l, const char *expect, size_t expect_len, const char *data,
	size_t len, struct wm_error *err)
{
	struct walk w = { .path = l->shown, .verb = "write", .io = WM_EIO, .err = err };
	struct stat st;
	char *tmp = NULL, *dir = NULL;
	int fd = -1, ret;

	switch (still(l, expect, expect_len)) {
	case 1:
		break;
	case 0:
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL, "'%s' changed since it was read: "
			"nothing was written, and the change is kept; run again", l->shown);
		return WM_ESTATE;
	default:
		return walk_fail(&w, WM_EIO, "%s", strerror(errno));
	}
	if (fstat(l->fd, &st) != 0)
		return walk_fail(&w, WM_EIO, "%s", strerror(errno));
	/* hard links: a rename would leave the other names with the old text */
	if (st.st_nlink > 1)
		return rewrite_in_place(l, &w, expect, expect_len, data, len);
	if ((fd = temp_beside(&tmp, l->target, "tmp")) < 0)
		goto failed;
	/* owner and group first: a chown may clear the set-id bits the mode then sets again */
	if (fchown(fd, st.st_uid, st.st_gid) != 0) {
		if (errno != EPERM)
			goto failed;
		/* a file of another owner's, which we may write but not give away: keep its inode */
		close(fd);
		fd = -1;
		unlink(tmp);
		ret = rewrite_in_place(l, &w, expect, expect_len, data, len);
		goto out;
	}
	if (fchmod(fd, st.st_mode & 07777) != 0 || write_all(fd, data, len) != 0 || sync_fd(fd) != 0)
		goto failed;
	ret = close(fd);
	fd = -1;
	if (ret != 0)
		goto failed;
	/* the last moment to see a change made while the temporary file was written */
	if ((ret = still(l, expect, expect_len)) != 1) {
		if (ret < 0)
			goto failed;
		wm_error_nopos(err, WM_ESTATE, WM_SEV_ERROR, NULL, "'%s' changed since it was read: "
			"nothing was written, and the change is kept; run again", l->shown);
		ret = WM_ESTATE;
		goto out;
	}
	if (rename(tmp, l->target) != 0)
		goto failed;
	free(tmp);
	tmp = NULL;
	if ((dir = wm_io_path_dir(l->target)) != NULL)
		sync_dir(dir);
	ret = 0;
	goto out;
failed:
	ret = walk_fail(&w, WM_EIO, "%s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(dir);
	return ret;
}
