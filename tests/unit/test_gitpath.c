/* test_gitpath.c — the names git refuses under core.protectHFS and core.protectNTFS, refused in every repository path. */
#include <stdio.h>
#include <string.h>
#include "harness.h"
#include "util/name.h"

/* Each of these git refuses (t-git-paths proves it with git update-index): as a component of any path. */
static const char *const dotgit[] = {
	".git", ".GIT", ".Git", ".gIT",
	/* HFS+: the ignorable characters anywhere in the name, before the dot too */
	".g\xe2\x80\x8cit", ".g\xe2\x80\x8dit", ".g\xe2\x80\x8eit", ".gi\xe2\x80\x8ft", "\xe2\x80\x8c.git",
	".git\xe2\x80\x8c", ".g\xe2\x80\xaait", ".g\xe2\x80\xaeit", ".g\xe2\x81\xaait", ".g\xe2\x81\xafit",
	".g\xef\xbb\xbfit", ".G\xe2\x80\x8cI\xef\xbb\xbfT\xe2\x81\xac",
	/* HFS+ as git reads it: a byte that is not a character ends the name */
	".git\xff", ".git\xc0\xae", ".git\xef\xbf\xbe", ".git\xed\xa0\x80",
	/* NTFS: trailing dots and spaces, a stream, the short name */
	".git.", ".git ", ".git. .", ".GIT..", ".git:", ".git::$INDEX_ALLOCATION", ".git:stream",
	"git~1", "GIT~1", "Git~1", "git~1.", "git~1 ", "git~1::$DATA",
};
/* ... and these as the name of a symbolic link: what git reads as .gitmodules */
static const char *const dotgitmodules[] = {
	".gitmodules", ".GITMODULES", ".gitmodules.", ".gitmodules ", ".gitmodules::$DATA",
	".g\xe2\x80\x8citmodules", ".gitmodules\xe2\x80\x8d",
	"gitmod~1", "GITMOD~4", "gitmod~1 .", "gi7eba~1", "GI7EBA~9", "gi7eb~12", "gi~12345", "g~123456", "~1234567",
};
/* ... and these git accepts under both protections: so do we */
static const char *const accepted[] = {
	".github", ".gitlab-ci.yml", ".gitx", ".gitignore", ".gitattributes", ".git-blame-ignore-revs", ".git.foo",
	".gi", ".gitt", "x.git", "git", "git~2", "git~1x", "g~1", ".gitmodulesx", "gitmod~5", "~123456x",
	"gi7eba~", ".g\xe2\x80\x8cit.x", ".g\xe2\x80\x8c\xe2\x80\x8cit-x", "\xff.git", ".g\xc3\xaft", ".\xe2\x80\x8b" "git",
};

static void test_components(void)
{
	for (size_t i = 0; i < sizeof(dotgit) / sizeof(*dotgit); i++) {
		const char *why = wm_name_git_component(dotgit[i], strlen(dotgit[i]));
		if (!why || !strstr(why, "nothing is written into '.git'"))
			fprintf(stderr, "not refused as .git: %zu\n", i);
		CHECK(why && strstr(why, "nothing is written into '.git'"));
	}
	for (size_t i = 0; i < sizeof(dotgitmodules) / sizeof(*dotgitmodules); i++) {
		const char *why = wm_name_git_component(dotgitmodules[i], strlen(dotgitmodules[i]));
		if (!why || !strstr(why, "'.gitmodules'"))
			fprintf(stderr, "not refused as .gitmodules: %zu\n", i);
		CHECK(why && strstr(why, "'.gitmodules'"));
	}
	for (size_t i = 0; i < sizeof(accepted) / sizeof(*accepted); i++) {
		const char *why = wm_name_git_component(accepted[i], strlen(accepted[i]));
		if (why)
			fprintf(stderr, "refused: %zu: %s\n", i, why);
		CHECK(why == NULL);
	}
	/* the length bounds the name: ".git" is the start of ".github" */
	CHECK(wm_name_git_component(".github", 4) != NULL);
	CHECK(wm_name_git_component(".git.", 4) != NULL);
	CHECK(wm_name_git_component("", 0) == NULL);
}

static void test_paths(void)
{
	const char *why = NULL;
	char path[64];

	/* at any depth, as a directory or as the file */
	for (size_t i = 0; i < sizeof(dotgit) / sizeof(*dotgit); i++) {
		snprintf(path, sizeof(path), "vendor/%s/hooks/pre-commit", dotgit[i]);
		CHECK(!wm_name_repo_path(path, &why));
		snprintf(path, sizeof(path), "%s", dotgit[i]);
		CHECK(!wm_name_repo_path(path, &why));
	}
	CHECK(!wm_name_repo_path(".g\xe2\x80\x8cit/hooks/pre-commit", &why));
	CHECK_STR(why, "macOS reads a name as '.git' (HFS+ ignores U+200C to U+200F, U+202A to U+202E, U+206A to "
		"U+206F and U+FEFF): nothing is written into '.git'");
	CHECK(!wm_name_repo_path("git~1/config", &why));
	CHECK_STR(why, "Windows reads a name as '.git' (NTFS drops trailing dots and spaces, takes 'git~1' for its "
		"short name and ':' for a stream): nothing is written into '.git'");
	CHECK(!wm_name_repo_path("sub/.gitmodules", &why));
	CHECK_STR(why, "git reads a name as '.gitmodules' (also on macOS or Windows): nothing is written over git's "
		"list of submodules");
	CHECK(!wm_name_repo_path(".GIT/config", &why));
	CHECK_STR(why, "nothing is written into '.git'");
	CHECK(wm_name_repo_path(".github/workflows/wheels.yml", &why));
	CHECK(wm_name_repo_path(".gitlab-ci.yml", &why));
	CHECK(wm_name_repo_path(".gitx/git~2/x.git/y", &why));
}

int main(void)
{
	test_components();
	test_paths();
	return harness_done();
}
