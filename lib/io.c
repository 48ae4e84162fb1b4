/* io.c — reading input files within a size limit, with errors that name the path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

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
	wm_error_add(err, WM_EREAD, WM_SEV_ERROR, path, NULL, 0, 0, 0, 0, "%s", what);
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
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, name, NULL, 0, 0, 0, 0,
			"the file is larger than the limit of %zu MiB", max >> 20);
		goto out;
	} else if (ret == WM_ENOMEM) {
		wm_error_add(err, WM_ENOMEM, WM_SEV_ERROR, name, NULL, 0, 0, 0, 0, "out of memory");
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

int wm_paths_add(struct wm_paths *p, const char *path, size_t len)
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

void wm_paths_sort(struct wm_paths *p)
{
	if (p->n > 1)
		qsort(p->items, p->n, sizeof(*p->items), cmp_paths);
}

void wm_paths_free(struct wm_paths *p)
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
			ret = wm_paths_add(out, full->ptr + base, full->len - base);
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
	if (!(rel = strndup(dir, n))) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	ret = wm_io_dir_below(&real, ctx, rel, err);
	free(rel);
	if (ret != 0)
		return ret;
	wm_buf_puts(&full, real);
	free(real);
	ret = full.oom ? WM_ENOMEM : list_dir(out, &full, full.len + 1, 0);
	if (ret == WM_EREAD)
		wm_error_add(err, WM_EREAD, WM_SEV_ERROR, dir, NULL, 0, 0, 0, 0, "cannot list the directory: %s",
			strerror(errno));
	else if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	if (ret < 0)
		wm_paths_free(out);
	else
		wm_paths_sort(out);
	wm_buf_release(&full);
	return ret;
}

void wm_io_tree_reader(struct wm_reader *r, const char *root)
{
	r->read = read_tree;
	r->ctx = (void *)root;
	r->list = list_tree;
}

void wm_reader_tree(struct wm_reader *r, const char *root)
{
	wm_io_tree_reader(r, root);
}

char *wm_path_dir(const char *path)
{
	const char *slash = strcmp(path, "-") == 0 ? NULL : strrchr(path, '/');
	return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}
