/* io.c — reading input files within a size limit, with errors that name the path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

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
	size_t n = 0, cap = 0;
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
	for (;;) {
		ssize_t r;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64 * 1024;
			char *p;
			if (ncap > max + 1)
				ncap = max + 1;
			if (ncap <= cap) {
				wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, name, NULL, 0, 0, 0, 0,
					"the file is larger than the limit of %zu MiB", max >> 20);
				ret = WM_EINVALID;
				goto out;
			}
			p = realloc(data, ncap + 1);
			if (!p) {
				wm_error_add(err, WM_ENOMEM, WM_SEV_ERROR, name, NULL, 0, 0, 0, 0, "out of memory");
				ret = WM_ENOMEM;
				goto out;
			}
			data = p;
			cap = ncap;
		}
		r = read(fd, data + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = fail(err, name, errno == EISDIR ? "is a directory, not a file" : strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, name, NULL, 0, 0, 0, 0,
			"the file is larger than the limit of %zu MiB", max >> 20);
		ret = WM_EINVALID;
		goto out;
	}
	if (!data && !(data = malloc(1))) {
		ret = WM_ENOMEM;
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
