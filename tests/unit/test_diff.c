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
	wm_buf_release(&patch);
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
