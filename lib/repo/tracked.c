/* tracked.c — tracked files by name, from git's index read directly (init looks for the project's pyproject.toml among them). */
/* realpath() is XSI */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "util/error.h"
#include "repo/gitdir.h"
#include "repo/gitindex.h"
#include "repo/repo.h"

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
