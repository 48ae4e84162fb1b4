/* index-dump.c — prints a split index as repo/gitindex.c reads it, in the format of `git ls-files --stage`. */
#include <stdio.h>
#include "util/error.h"
#include "repo/gitindex.h"

/*
 * usage: index-dump GITDIR
 *
 * Exit 0 with one line per entry on stdout, `MODE ID STAGE<TAB>PATH`
 * (the mode in octal, the id in hex), which must be what `git ls-files
 * --stage` prints for the same repository; 1 with the diagnostics on
 * stderr when the index cannot be read; 3 when it is not a split index
 * this reader handles (libgit2 reads it instead).
 */
int main(int argc, char **argv)
{
	struct wm_gitindex ix;
	struct wm_error err;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: index-dump GITDIR\n");
		return 2;
	}
	wm_error_init(&err);
	ret = wm_gitindex_read_split(&ix, argv[1], &err);
	for (size_t i = 0; i < err.ndiags; i++)
		fprintf(stderr, "index-dump: %s\n", err.diags[i].message);
	wm_error_release(&err);
	if (ret != 0)
		return ret == 1 ? 3 : 1;
	for (size_t i = 0; i < ix.n; i++) {
		const struct wm_gitindex_entry *e = &ix.entries[i];
		printf("%06o ", (unsigned)e->mode);
		for (int k = 0; k < 20; k++)
			printf("%02x", e->id[k]);
		printf(" %u\t%s\n", e->stage, e->path);
	}
	wm_gitindex_free(&ix);
	return ferror(stdout) ? 1 : 0;
}
