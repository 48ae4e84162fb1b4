/* tracked.c — tracked files by name, from git's index read directly; init's project looked for among them and where the repository points (init/find.c). */
/* realpath() is XSI */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "init/find.h"
#include "repo/gitdir.h"
#include "repo/gitindex.h"
#include "repo/repo.h"
#include "repo/tracked.h"

int wm_repo_tracked_named(struct wm_paths *out, size_t *total, const char *dir, const char *leaf, size_t max,
	struct wm_error *err)
{
	struct wm_gitdir g;
	struct wm_gitindex ix;
	struct wm_error quiet;
	char real[PATH_MAX];
	size_t prefix = 0, k = strlen(leaf), first;
	int ret;

	*total = 0;
	memset(&ix, 0, sizeof(ix));
	wm_error_init(&quiet);
	if ((ret = wm_gitdir_find(&g, dir, &quiet)) != 0) {
		wm_error_release(&quiet);
		if (ret == WM_ENOMEM)
			wm_error_code(err, ret);
		return ret == WM_ENOMEM ? ret : 1;
	}
	/* evidence: no working tree, an index this reader does not handle, or none: nothing is tracked that it knows of */
	ret = 1;
	if (!g.workdir || !realpath(dir, real) || g.uncertain || g.ignorecase || !g.sha1)
		goto out;
	/* `dir` below the top of the working tree: its paths relative to dir are those after the prefix */
	prefix = strlen(g.workdir);
	if (strncmp(real, g.workdir, prefix - 1) != 0 || (real[prefix - 1] != '/' && real[prefix - 1] != '\0'))
		goto out;
	if (strlen(real) + 2 > sizeof(real))
		goto out;
	if (real[prefix - 1] == '\0')
		real[prefix - 1] = '/', real[prefix] = '\0';
	else
		strcat(real, "/");
	if (wm_gitindex_read(&ix, g.index, g.gitdir, &quiet) != 0)
		goto out;
	ret = 0;
	/* only the names are compared: the index is sorted, so the entries below dir are one run */
	first = wm_gitindex_lower_bound(&ix, real + prefix);
	for (size_t i = first; i < ix.n; i++) {
		const struct wm_gitindex_entry *e = &ix.entries[i];
		const char *rel = e->path + strlen(real + prefix);
		size_t n = e->len - (size_t)(rel - e->path);
		if (strncmp(e->path, real + prefix, strlen(real + prefix)) != 0)
			break;
		if (wm_gitindex_stage(e) != 0 || n < k || strcmp(rel + n - k, leaf) != 0 || (n > k && rel[n - k - 1] != '/'))
			continue;
		if (++*total <= max && wm_io_paths_add(out, rel, n) != 0) {
			ret = WM_ENOMEM;
			wm_error_code(err, ret);
			break;
		}
	}
out:
	wm_gitindex_free(&ix);
	wm_gitdir_release(&g);
	wm_error_release(&quiet);
	return ret;
}

#define MAX_TRACKED 4096  /* tracked pyproject.toml paths kept (only MAX_READ are read) */

static size_t depth(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* The shallowest first, as the project is rather in bindings/python than in a test's fixture. */
static int by_depth(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t dx = depth(x), dy = depth(y);
	return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x, y);
}

int wm_repo_tracked_init_project(char **pyproject, const struct wm_reader *r, const char *root, struct wm_error *err)
{
	struct wm_paths tracked = { NULL, 0, 0 };
	struct wm_init_found found;
	size_t total = 0;
	int ret = wm_repo_tracked_named(&tracked, &total, root, "pyproject.toml", MAX_TRACKED, err);

	*pyproject = NULL;
	memset(&found, 0, sizeof(found));
	if (ret == 0 && tracked.n)  /* qsort's array may not be NULL, even empty */
		qsort(tracked.items, tracked.n, sizeof(*tracked.items), by_depth);
	if (ret >= 0)
		ret = wm_init_find(&found, r, (const char *const *)tracked.items, tracked.n, total, err);
	wm_io_paths_free(&tracked);
	if (ret < 0)
		goto out;
	if (found.n == 1) {
		if (!(*pyproject = strdup(found.items[0].pyproject))) {
			ret = WM_ENOMEM;
			wm_error_code(err, ret);
			goto out;
		}
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, *pyproject,
			"the project (the root's pyproject.toml is not one maturin builds), found by %s; "
			"written as project.pyproject", found.items[0].why);
	} else if (found.n > 1) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
			"%zu maturin projects in the repository and none at the root: give init the one to build", found.n);
		for (size_t i = 0; i < found.n; i++)
			wm_error_nopos(err, WM_OK, WM_SEV_NOTE, found.items[i].pyproject,
				"found by %s: wheelmatrix init --pyproject %s", found.items[i].why, found.items[i].pyproject);
		ret = WM_EINVALID;
		wm_error_code(err, ret);
	} else if (found.missing) {
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, NULL,
			"no maturin project found elsewhere (the workflows' working-directory and --manifest-path, "
			"the uv workspace's members, the tracked pyproject.toml files): give its pyproject.toml with "
			"--pyproject PATH");
	}
out:
	wm_init_find_release(&found);
	return ret < 0 ? ret : 0;
}
