/* index-dump.c — prints the index as repo/gitindex.c reads it, in the format of `git ls-files --stage`. */
#include <stdio.h>
#include <string.h>
#include <git2.h>
#include "util/error.h"
#include "repo/gitindex.h"

/* The index as libgit2 reads it (libgit2 is linked into this program), in the same format. */
static int dump_libgit2(const char *gitdir)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	int ret = 1;

	git_libgit2_init();
	if (git_repository_open(&repo, gitdir) < 0 || git_repository_index(&index, repo) < 0) {
		const git_error *e = git_error_last();
		fprintf(stderr, "index-dump: libgit2: %s\n", e && e->message ? e->message : "unknown error");
		goto out;
	}
	for (size_t i = 0; i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), &e->id);
		printf("%06o %s %d\t%s\n", (unsigned)e->mode, hex, GIT_INDEX_ENTRY_STAGE(e), e->path);
	}
	ret = 0;
out:
	git_index_free(index);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return ret;
}

/*
 * usage: index-dump [--libgit2 | --split] GITDIR
 *
 * Exit 0 with one line per entry on stdout, `MODE ID STAGE<TAB>PATH`
 * (the mode in octal, the id in hex), which must be what `git ls-files
 * --stage` prints for the same repository; 1 with the diagnostics on
 * stderr when the index cannot be read; 3 when it has what this reader
 * does not handle (libgit2 reads it instead).  With --libgit2, the index
 * as libgit2 reads it instead; with --split, nothing but the exit status:
 * 0 for a split index, 4 for one that is not.
 */
int main(int argc, char **argv)
{
	struct wm_gitindex ix;
	struct wm_error err;
	const char *mode = argc == 3 ? argv[1] : "";
	char index[4096];
	int ret;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(mode, "--libgit2") != 0 && strcmp(mode, "--split") != 0)) {
		fprintf(stderr, "usage: index-dump [--libgit2 | --split] GITDIR\n");
		return 2;
	}
	if (strcmp(mode, "--libgit2") == 0)
		return dump_libgit2(argv[2]);
	wm_error_init(&err);
	snprintf(index, sizeof(index), "%s/index", argv[argc - 1]);
	ret = wm_gitindex_read(&ix, index, argv[argc - 1], &err);
	for (size_t i = 0; i < err.ndiags; i++)
		fprintf(stderr, "index-dump: %s\n", err.diags[i].message);
	wm_error_release(&err);
	if (ret != 0)
		return ret == 1 ? 3 : 1;
	if (strcmp(mode, "--split") == 0) {
		ret = ix.split ? 0 : 4;
		wm_gitindex_free(&ix);
		return ret;
	}
	for (size_t i = 0; i < ix.n; i++) {
		const struct wm_gitindex_entry *e = &ix.entries[i];
		printf("%06o ", (unsigned)wm_gitindex_mode(e));
		for (int k = 0; k < 20; k++)
			printf("%02x", wm_gitindex_id(e)[k]);
		printf(" %u\t%s\n", wm_gitindex_stage(e), e->path);
	}
	wm_gitindex_free(&ix);
	return ferror(stdout) ? 1 : 0;
}
