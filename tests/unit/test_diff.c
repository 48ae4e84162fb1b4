/* test_diff.c — git blob ids, and git-format diffs that git apply turns into exactly the new text. */
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"
#include "util/buf.h"
#include "util/sha1.h"
#include "formats/diff.h"

static char dir[] = "/tmp/wm-test-diff-XXXXXX";

static void write_file(const char *name, const char *data, size_t len)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static char *read_file(const char *name, size_t *len)
{
	char path[256], *data;
	FILE *f;
	long n;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)n + 1);
	*len = fread(data, 1, (size_t)n, f);
	fclose(f);
	return data;
}

/* Diffs old into new, applies the patch with git apply outside any repository, compares. */
static void round_trip(const char *what, const char *old, const char *new)
{
	struct wm_buf patch = WM_BUF_INIT;
	char cmd[512], *got;
	size_t len = 0;
	int status;

	CHECK(wm_diff_git(&patch, "pyproject.toml", old, strlen(old), new, strlen(new)) == 0);
	write_file("pyproject.toml", old, strlen(old));
	write_file("p.patch", patch.ptr ? patch.ptr : "", patch.len);
	snprintf(cmd, sizeof(cmd), "cd %s && git apply --check p.patch 2>&1 && git apply p.patch 2>&1", dir);
	status = system(cmd);
	if (status != 0)
		fprintf(stderr, "%s: git apply failed on:\n%s\n", what, patch.ptr);
	CHECK(status == 0);
	got = read_file("pyproject.toml", &len);
	CHECK(got && len == strlen(new) && memcmp(got, new, len) == 0);
	free(got);
	/* formats/diff.c applies it exactly too, to the same bytes */
	{
		struct wm_buf post = WM_BUF_INIT;
		CHECK(wm_diff_apply(&post, patch.ptr, patch.len, "pyproject.toml", old, strlen(old)) == 0);
		CHECK(post.len == strlen(new) && memcmp(post.ptr ? post.ptr : "", new, post.len) == 0);
		wm_buf_release(&post);
	}
	wm_buf_release(&patch);
}

/*
 * The patch of old -> new applied to `pre` by git apply and by formats/diff.c: where the hunks
 * apply exactly where they say, both give the same bytes; elsewhere (moved, changed, not at the
 * end a hunk without trailing context must reach) formats/diff.c leaves it to git (1).
 */
static void exact(const char *what, const char *old, const char *new, const char *pre, bool applies)
{
	struct wm_buf patch = WM_BUF_INIT, post = WM_BUF_INIT;
	char cmd[512], *got;
	size_t len = 0;
	int git, ours;

	CHECK(wm_diff_git(&patch, "pyproject.toml", old, strlen(old), new, strlen(new)) == 0);
	write_file("pyproject.toml", pre, strlen(pre));
	write_file("p.patch", patch.ptr ? patch.ptr : "", patch.len);
	snprintf(cmd, sizeof(cmd), "cd %s && git apply p.patch >/dev/null 2>&1", dir);
	git = system(cmd);
	got = read_file("pyproject.toml", &len);
	ours = wm_diff_apply(&post, patch.ptr, patch.len, "pyproject.toml", pre, strlen(pre));
	if (applies) {
		CHECK(git == 0 && ours == 0);
		CHECK(got && post.len == len && memcmp(post.ptr ? post.ptr : "", got, len) == 0);
	} else {
		CHECK(ours == 1 && post.len == 0);
	}
	if (ours != (applies ? 0 : 1))
		fprintf(stderr, "%s: wm_diff_apply returned %d (git apply: %d)\n", what, ours, git);
	free(got);
	wm_buf_release(&patch);
	wm_buf_release(&post);
}

/* The number of hunks of a diff. */
static size_t hunks(const struct wm_buf *patch)
{
	size_t n = 0;
	for (const char *p = patch->ptr; p && (p = strstr(p, "\n@@ -")) != NULL; p++)
		n++;
	return n;
}

/*
 * Two texts of 20,000 lines with every third line changed: too many edits to search for the
 * fewest, so the part between the lines both begin and end with is replaced as a whole, in
 * linear time and memory, and git apply still makes the new text of it.  A few edits in
 * the same 20,000 lines are still found one by one.
 */
static void large(void)
{
	struct wm_buf old = WM_BUF_INIT, new = WM_BUF_INIT, few = WM_BUF_INIT, patch = WM_BUF_INIT;
	for (int i = 0; i < 20000; i++) {
		wm_buf_printf(&old, "line %d\n", i);
		wm_buf_printf(&new, i % 3 == 1 && i > 10 && i < 19990 ? "LINE %d\n" : "line %d\n", i);
		wm_buf_printf(&few, i == 5000 || i == 15000 ? "LINE %d\n" : "line %d\n", i);
	}
	CHECK(!old.oom && !new.oom && !few.oom);
	round_trip("every third line of 20,000", old.ptr, new.ptr);
	CHECK(wm_diff_git(&patch, "pyproject.toml", old.ptr, old.len, new.ptr, new.len) == 0);
	CHECK(hunks(&patch) == 1 && strstr(patch.ptr, "\n@@ -11,19981 +11,19981 @@\n line 10\n line 11\n line 12\n-line 13\n") != NULL);
	wm_buf_release(&patch);
	round_trip("two lines of 20,000", old.ptr, few.ptr);
	CHECK(wm_diff_git(&patch, "pyproject.toml", old.ptr, old.len, few.ptr, few.len) == 0);
	CHECK(hunks(&patch) == 2);
	wm_buf_release(&patch);
	wm_buf_release(&old);
	wm_buf_release(&new);
	wm_buf_release(&few);
}

int main(void)
{
	char id[41];
	struct wm_buf patch = WM_BUF_INIT;

	/* git hash-object of "", "hello\n" */
	wm_sha1_git_blob(id, "", 0);
	CHECK_STR(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
	wm_sha1_git_blob(id, "hello\n", 6);
	CHECK_STR(id, "ce013625030ba8dba906f756967f9e9ca394464a");

	if (!mkdtemp(dir))
		return 1;
	/* blob ids of every length about the block boundaries (the header "blob N\0" shifts them), as git hashes them */
	{
		static const size_t sizes[] = { 1, 50, 52, 53, 54, 55, 56, 63, 64, 65, 115, 116, 117, 118, 119, 120, 128,
			1000, 4096, 100000 };
		for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
			char *data = malloc(sizes[i]), cmd[512], want[41] = "";
			FILE *p;
			for (size_t k = 0; data && k < sizes[i]; k++)
				data[k] = (char)('a' + (k * 7 + i) % 26);
			write_file("blob", data ? data : "", data ? sizes[i] : 0);
			snprintf(cmd, sizeof(cmd), "git hash-object %s/blob", dir);
			if ((p = popen(cmd, "r"))) {
				if (!fgets(want, sizeof(want), p))
					want[0] = '\0';
				pclose(p);
			}
			wm_sha1_git_blob(id, data ? data : "", data ? sizes[i] : 0);
			CHECK_STR(id, want);
			free(data);
		}
	}
	round_trip("one line", "[project]\nname = \"llm-rs\"\n", "[project]\nname = \"llm-rs-cuda\"\n");
	round_trip("two far edits",
		"[project]\nname = \"a\"\n1\n2\n3\n4\n5\n6\n7\n8\n9\n[tool.maturin]\nfeatures = [\"x\"]\n",
		"[project]\nname = \"a-cuda\"\n1\n2\n3\n4\n5\n6\n7\n8\n9\n[tool.maturin]\nfeatures = [\"x\", \"cublas\"]\n");
	round_trip("two near edits", "a\nb\nc\nd\ne\n", "A\nb\nc\nD\ne\n");
	round_trip("insertion at the end", "[project]\nname = \"a\"\n", "[project]\nname = \"a\"\n\n[tool.maturin]\nfeatures = [\"f\"]\n");
	round_trip("no final newline", "[project]\nname = \"a\"", "[project]\nname = \"b\"");
	round_trip("adding the final newline", "x\ny", "x\ny\n");
	round_trip("CRLF", "[project]\r\nname = \"a\"\r\nversion = \"1\"\r\n", "[project]\r\nname = \"b\"\r\nversion = \"1\"\r\n");
	round_trip("from empty", "", "[project]\nname = \"a\"\n");
	large();

	/* applied exactly, or left to git */
	{
		const char *old = "[project]\nname = \"a\"\nversion = \"1\"\n\n[tool.maturin]\nfeatures = [\"x\"]\nstrip = true\n";
		const char *new = "[project]\nname = \"a-cuda\"\nversion = \"1\"\n\n[tool.maturin]\nfeatures = [\"x\", \"c\"]\nstrip = true\n";
		exact("the file it was made from", old, new, old, true);
		exact("moved down a line (git applies it with an offset)", old, new,
			"# a comment\n[project]\nname = \"a\"\nversion = \"1\"\n\n[tool.maturin]\nfeatures = [\"x\"]\nstrip = true\n", false);
		exact("a context line changed (git refuses it)", old, new,
			"[project]\nname = \"a\"\nversion = \"2\"\n\n[tool.maturin]\nfeatures = [\"x\"]\nstrip = true\n", false);
		exact("a line added at the end, after a hunk without trailing context", "a\nb\nc\nd\n", "a\nb\nc\nD\n",
			"a\nb\nc\nd\ne\n", false);
		exact("the final newline removed", "a\nb\n", "a\nB\n", "a\nb", false);
	}
	/* read: the shape generate writes, and nothing else */
	{
		struct wm_diff_file f;
		const char *two = "diff --git a/x b/x\nindex ce013625030ba8dba906f756967f9e9ca394464a..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 100644\n--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-hello\n"
			"diff --git a/y b/y\nindex ce013625030ba8dba906f756967f9e9ca394464a..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 100644\n--- a/y\n+++ b/y\n@@ -1 +0,0 @@\n-hello\n";
		const char *abbrev = "diff --git a/x b/x\nindex ce01362..e69de29 100644\n--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-hello\n";
		const char *quoted = "diff --git \"a/x y\" \"b/x y\"\nindex ce013625030ba8dba906f756967f9e9ca394464a..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 100644\n--- \"a/x y\"\n+++ \"b/x y\"\n@@ -1 +0,0 @@\n-hello\n";
		const char *renamed = "diff --git a/x b/z\nsimilarity index 90%\nrename from x\nrename to z\n";
		const char *counts = "diff --git a/x b/x\nindex ce013625030ba8dba906f756967f9e9ca394464a..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 100644\n--- a/x\n+++ b/x\n@@ -1,2 +0,0 @@\n-hello\n";
		CHECK(wm_diff_git(&patch, "sub/pyproject.toml", "hello\n", 6, "", 0) == 0);
		CHECK(wm_diff_read(&f, patch.ptr, patch.len) == 0);
		CHECK(f.pathlen == 18 && memcmp(f.path, "sub/pyproject.toml", 18) == 0);
		CHECK_STR(f.old_id, "ce013625030ba8dba906f756967f9e9ca394464a");
		CHECK_STR(f.new_id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
		wm_buf_release(&patch);
		CHECK(wm_diff_read(&f, two, strlen(two)) == 1);
		CHECK(wm_diff_read(&f, abbrev, strlen(abbrev)) == 1);
		CHECK(wm_diff_read(&f, quoted, strlen(quoted)) == 1);
		CHECK(wm_diff_read(&f, renamed, strlen(renamed)) == 1);
		CHECK(wm_diff_read(&f, counts, strlen(counts)) == 1);
		CHECK(wm_diff_read(&f, "", 0) == 1);
	}

	/* the header: full blob ids of both sides */
	CHECK(wm_diff_git(&patch, "pyproject.toml", "hello\n", 6, "", 0) == 0);
	CHECK(patch.ptr && strncmp(patch.ptr, "diff --git a/pyproject.toml b/pyproject.toml\n"
		"index ce013625030ba8dba906f756967f9e9ca394464a..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 100644\n", 134) == 0);
	wm_buf_release(&patch);

	/* a new file: git apply creates it, with the bytes and no more */
	CHECK(wm_diff_git_new(&patch, "sub/new.yml", "a: 1\nb: 2", 9) == 0);
	CHECK(patch.ptr && strncmp(patch.ptr, "diff --git a/sub/new.yml b/sub/new.yml\nnew file mode 100644\n"
		"index 0000000000000000000000000000000000000000..", 106) == 0);
	CHECK(patch.ptr && strstr(patch.ptr, "\n--- /dev/null\n+++ b/sub/new.yml\n@@ -0,0 +1,2 @@\n+a: 1\n+b: 2\n\\ No newline at end of file\n") != NULL);
	write_file("new.patch", patch.ptr ? patch.ptr : "", patch.len);
	{
		char cmd[512], *got;
		size_t len = 0;
		snprintf(cmd, sizeof(cmd), "cd %s && git apply new.patch 2>&1", dir);
		CHECK(system(cmd) == 0);
		got = read_file("sub/new.yml", &len);
		CHECK(got && len == 9 && memcmp(got, "a: 1\nb: 2", 9) == 0);
		free(got);
	}
	wm_buf_release(&patch);

	snprintf(id, sizeof(id), "rm -rf %s", dir);
	if (system(id) != 0)
		return 1;
	return harness_done();
}
