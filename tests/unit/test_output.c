/* test_output.c — unit tests of generated files: SHA-256, the header, stale/edited/foreign detection, confined atomic writes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "util/sha256.h"
#include "emit/file.h"

#define BODY "name: wheels\non: push\n"
#define BODY_DIGEST "54643c67186accd59189a05ec618fe7f53e7e3237f4e7f305973aec179ada2c8"

/* ---- helpers ------------------------------------------------------------------ */

static const char *sha256_of(const void *data, size_t len)
{
	static char hex[65];
	struct wm_sha256 s;
	unsigned char d[32];
	wm_sha256_init(&s);
	wm_sha256_update(&s, data, len);
	wm_sha256_final(&s, d);
	wm_sha256_hex(hex, d);
	return hex;
}

/* The first diagnostic's message, or "" when there is none. */
static const char *message(const struct wm_error *err)
{
	return err->ndiags > 0 && err->diags[0].message ? err->diags[0].message : "";
}

static char *join(const char *dir, const char *name)
{
	static char paths[8][4096];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static void put_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		perror(path);
		exit(2);
	}
	fputs(text, fp);
	fclose(fp);
}

/* The whole file (malloc'd, NUL-terminated), or NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *data = NULL;
	size_t n = 0, cap = 0, r;
	if (!fp)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			data = realloc(data, cap);
			if (!data)
				exit(2);
		}
		r = fread(data + n, 1, cap - n - 1, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	data[n] = '\0';
	if (len)
		*len = n;
	return data;
}

static bool file_is(const char *path, const char *want)
{
	char *got = slurp(path, NULL);
	bool ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}

/* The names in `dir` other than . and .., sorted and joined by spaces. */
static const char *listing(const char *dir)
{
	static char out[1024];
	char *names[64];
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	out[0] = '\0';
	if (!d)
		return "(cannot open)";
	while ((e = readdir(d)) && n < 64)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			names[n++] = strdup(e->d_name);
	closedir(d);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(names[j], names[i]) < 0) {
				char *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	for (size_t i = 0; i < n; i++) {
		if (i)
			strncat(out, " ", sizeof(out) - strlen(out) - 1);
		strncat(out, names[i], sizeof(out) - strlen(out) - 1);
		free(names[i]);
	}
	return out;
}

static void rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *e;
		chmod(path, 0700);
		if ((d = opendir(path))) {
			while ((e = readdir(d)))
				if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
					char sub[4096];
					snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
					rm_rf(sub);
				}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];
	char *dir;
	snprintf(tmpl, sizeof(tmpl), "%s/wm-test-output.XXXXXX", base && *base ? base : "/tmp");
	if (!(dir = mkdtemp(tmpl))) {
		perror("mkdtemp");
		exit(2);
	}
	return strdup(dir);
}

/* A file made by wm_files_add; the caller releases `files`. */
static const struct wm_file *make_file(struct wm_files *files, const char *path, const char *body)
{
	int r = wm_files_add(files, path, "wheelmatrix.yaml", body, strlen(body));
	CHECK(r == 0);
	if (r != 0)
		exit(2);
	return &files->items[files->n - 1];
}

/* `s` with every LF turned into CRLF (malloc'd). */
static char *to_crlf(const char *s, size_t len, size_t *outlen)
{
	char *out = malloc(2 * len + 1), *p = out;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			*p++ = '\r';
		*p++ = s[i];
	}
	*p = '\0';
	*outlen = (size_t)(p - out);
	return out;
}

/* ---- SHA-256 -------------------------------------------------------------------- */

static void test_sha256(void)
{
	static const char nist448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);
	struct wm_sha256 s;
	unsigned char d[32];
	char hex[65];

	CHECK_STR(sha256_of("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR(sha256_of("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR(sha256_of(nist448, strlen(nist448)),
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	CHECK_STR(sha256_of(million, 1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* the same million fed in uneven pieces goes through the partial-block buffer */
	wm_sha256_init(&s);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step % 131 + 7)
		wm_sha256_update(&s, million + off, off + step > 1000000 ? 1000000 - off : step);
	wm_sha256_final(&s, d);
	wm_sha256_hex(hex, d);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* padding edges: 55, 56, 63, 64 and 65 bytes, one call against one byte at a time */
	for (size_t len = 55; len <= 65; len++) {
		char one[65];
		strcpy(one, sha256_of(million, len));
		wm_sha256_init(&s);
		for (size_t i = 0; i < len; i++)
			wm_sha256_update(&s, million + i, 1);
		wm_sha256_final(&s, d);
		wm_sha256_hex(hex, d);
		CHECK_STR(hex, one);
	}
	free(million);
}

/* ---- the header ------------------------------------------------------------------ */

static void test_header(void)
{
	struct wm_files files;
	char *crlf;
	size_t crlflen;

	wm_files_init(&files);
	CHECK(wm_files_add(&files, ".github/workflows/wheels.yml", "wheelmatrix.yaml", BODY, strlen(BODY)) == 0);
	CHECK(wm_files_add(&files, ".gitlab-ci.yml", "ci/matrix.yaml", BODY, strlen(BODY)) == 0);
	/* a name the shell would split is quoted, so the command can be pasted */
	CHECK(wm_files_add(&files, "w.yml", "my matrix's.yaml", BODY, strlen(BODY)) == 0);
	crlf = to_crlf(BODY, strlen(BODY), &crlflen);
	CHECK(wm_files_add(&files, "crlf.yml", "wheelmatrix.yaml", crlf, crlflen) == 0);
	CHECK(wm_files_add(&files, "empty.yml", "wheelmatrix.yaml", NULL, 0) == 0);
	CHECK(files.n == 5);
	if (files.n != 5)
		goto out;

	CHECK_STR(files.items[0].path, ".github/workflows/wheels.yml");
	CHECK_STR(files.items[0].data,
		"# Generated by wheelmatrix from wheelmatrix.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix generate\n"
		"# wheelmatrix-digest: sha256:" BODY_DIGEST "\n"
		BODY);
	CHECK(files.items[0].len == strlen(files.items[0].data));
	CHECK_STR(files.items[1].data,
		"# Generated by wheelmatrix from ci/matrix.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix -f ci/matrix.yaml generate\n"
		"# wheelmatrix-digest: sha256:" BODY_DIGEST "\n"
		BODY);
	CHECK_STR(files.items[2].data,
		"# Generated by wheelmatrix from my matrix's.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix -f 'my matrix'\\''s.yaml' generate\n"
		"# wheelmatrix-digest: sha256:" BODY_DIGEST "\n"
		BODY);
	/* the digest is of the body with CRLF read as LF; the body itself is kept as given */
	CHECK(strstr(files.items[3].data, "sha256:" BODY_DIGEST "\n") != NULL);
	CHECK(files.items[3].len > crlflen && memcmp(files.items[3].data + files.items[3].len - crlflen, crlf, crlflen) == 0);
	CHECK(strstr(files.items[4].data,
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n") != NULL);

	/* names go into a comment line: no control characters, no YAML 1.1 line breaks */
	CHECK(wm_files_add(&files, "a\nb.yml", "wheelmatrix.yaml", BODY, 3) == WM_EINVALID);
	CHECK(wm_files_add(&files, "a.yml", "wheel\rmatrix.yaml", BODY, 3) == WM_EINVALID);
	CHECK(wm_files_add(&files, "a.yml", "wheel\tmatrix.yaml", BODY, 3) == WM_EINVALID);
	CHECK(wm_files_add(&files, "a\x7f.yml", "wheelmatrix.yaml", BODY, 3) == WM_EINVALID);
	CHECK(wm_files_add(&files, "a.yml", "m\xc2\x85.yaml", BODY, 3) == WM_EINVALID);      /* NEL */
	CHECK(wm_files_add(&files, "a.yml", "m\xe2\x80\xa8.yaml", BODY, 3) == WM_EINVALID);  /* LINE SEPARATOR */
	CHECK(wm_files_add(&files, "a.yml", "m\xff.yaml", BODY, 3) == WM_EINVALID);          /* not UTF-8 */
	/* bidirectional controls: the line would show other than it reads */
	CHECK(wm_files_add(&files, "a\xe2\x80\xae.yml", "wheelmatrix.yaml", BODY, 3) == WM_EINVALID);  /* RLO */
	CHECK(wm_files_add(&files, "a.yml", "m\xe2\x80\xaa.yaml", BODY, 3) == WM_EINVALID);  /* LRE */
	CHECK(wm_files_add(&files, "a.yml", "m\xe2\x81\xa6.yaml", BODY, 3) == WM_EINVALID);  /* LRI */
	CHECK(wm_files_add(&files, "a.yml", "m\xe2\x81\xa9.yaml", BODY, 3) == WM_EINVALID);  /* PDI */
	CHECK(wm_files_add(&files, "a.yml", "m\xe2\x80\xab\xe2\x80\xa7.yaml", BODY, 3) == WM_EINVALID);
	CHECK(wm_files_add(&files, "", "wheelmatrix.yaml", BODY, 3) == WM_EINVALID);
	CHECK(wm_files_add(&files, "a.yml", "m\xc3\xa4trix.yaml", BODY, 3) == 0);           /* UTF-8 is fine */
	CHECK(files.n == 6);
	CHECK(strstr(files.items[5].data, "wheelmatrix -f 'm\xc3\xa4trix.yaml' generate\n") != NULL);
out:
	free(crlf);
	wm_files_release(&files);
	CHECK(files.n == 0 && files.items == NULL);
}

/* ---- comparing ---------------------------------------------------------------- */

static void test_compare(void)
{
	struct wm_files files;
	const struct wm_file *f, *old, *renamed;
	char *crlf, *edited;
	size_t crlflen;
	static const char *const bad_digests[] = {
		/* 63 digits */
		"# Generated by wheelmatrix from wheelmatrix.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix generate\n"
		"# wheelmatrix-digest: sha256:4643c67186accd59189a05ec618fe7f53e7e3237f4e7f305973aec179ada2c8\n",
		/* not hex */
		"# Generated by wheelmatrix from wheelmatrix.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix generate\n"
		"# wheelmatrix-digest: sha256:g4643c67186accd59189a05ec618fe7f53e7e3237f4e7f305973aec179ada2c8\n",
		/* another algorithm */
		"# Generated by wheelmatrix from wheelmatrix.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix generate\n"
		"# wheelmatrix-digest: sha512:54643c67186accd59189a05ec618fe7f53e7e3237f4e7f305973aec179ada2c8\n",
		/* something after the digest */
		"# Generated by wheelmatrix from wheelmatrix.yaml: edit that file, then regenerate; a hand edit here is refused without --force.\n"
		"# Regenerate with: wheelmatrix generate\n"
		"# wheelmatrix-digest: sha256:54643c67186accd59189a05ec618fe7f53e7e3237f4e7f305973aec179ada2c8 \n",
	};

	wm_files_init(&files);
	make_file(&files, "w.yml", "name: wheels\non: [push]\n");
	if (wm_files_add(&files, "w.yml", "ci/matrix.yaml", BODY, strlen(BODY)) != 0)
		exit(2);
	make_file(&files, "w.yml", BODY);
	/* taken once the array stops growing */
	old = &files.items[0];
	renamed = &files.items[1];
	f = &files.items[2];

	CHECK(wm_file_compare(f, NULL, 0) == WM_FILE_MISSING);
	CHECK(wm_file_compare(f, f->data, f->len) == WM_FILE_CURRENT);
	crlf = to_crlf(f->data, f->len, &crlflen);
	CHECK(wm_file_compare(f, crlf, crlflen) == WM_FILE_CURRENT);  /* an autocrlf checkout */
	CHECK(wm_file_compare(f, old->data, old->len) == WM_FILE_STALE);
	/* the body is ours but the header names another matrix file */
	CHECK(wm_file_compare(f, renamed->data, renamed->len) == WM_FILE_STALE);
	/* the header of earlier releases: ours, out of date (to be rewritten), or edited by hand */
	{
		static const char previous[] =
			"# Generated by wheelmatrix from wheelmatrix.yaml; do not edit: changes are overwritten.\n"
			"# Regenerate with: wheelmatrix generate\n"
			"# wheelmatrix-digest: sha256:" BODY_DIGEST "\n"
			BODY;
		char text[1024];
		CHECK(wm_file_compare(f, previous, strlen(previous)) == WM_FILE_STALE);
		snprintf(text, sizeof(text), "%s  # mine\n", previous);
		CHECK(wm_file_compare(f, text, strlen(text)) == WM_FILE_EDITED);
	}
	/* a line added or changed after writing */
	edited = malloc(f->len + 32);
	memcpy(edited, f->data, f->len);
	memcpy(edited + f->len, "  # mine\n", 10);
	CHECK(wm_file_compare(f, edited, f->len + 9) == WM_FILE_EDITED);
	memcpy(edited, old->data, old->len);
	edited[old->len - 3] = 'l';  /* [push] -> [pusl] */
	CHECK(wm_file_compare(f, edited, old->len) == WM_FILE_EDITED);
	/* a lone CR is content, not a line ending */
	memcpy(edited, f->data, f->len);
	edited[f->len - 1] = '\r';
	CHECK(wm_file_compare(f, edited, f->len) == WM_FILE_EDITED);
	free(edited);

	CHECK(wm_file_compare(f, "", 0) == WM_FILE_FOREIGN);
	CHECK(wm_file_compare(f, BODY, strlen(BODY)) == WM_FILE_FOREIGN);
	/* only the first two lines */
	CHECK(wm_file_compare(f, f->data, (size_t)(strstr(f->data, "# wheelmatrix-digest") - f->data)) == WM_FILE_FOREIGN);
	/* the third line without its line end */
	CHECK(wm_file_compare(f, f->data, (size_t)(strstr(f->data, BODY) - f->data) - 1) == WM_FILE_FOREIGN);
	for (size_t i = 0; i < WM_ARRAY_SIZE(bad_digests); i++) {
		char text[1024];
		snprintf(text, sizeof(text), "%s%s", bad_digests[i], BODY);
		CHECK(wm_file_compare(f, text, strlen(text)) == WM_FILE_FOREIGN);
	}
	/* the header lines in another order */
	{
		char text[1024];
		const char *l2 = strchr(f->data, '\n') + 1, *body = strstr(f->data, BODY);
		snprintf(text, sizeof(text), "%.*s%.*s%s", (int)(body - l2), l2, (int)(l2 - f->data), f->data, BODY);
		CHECK(wm_file_compare(f, text, strlen(text)) == WM_FILE_FOREIGN);
	}
	free(crlf);
	wm_files_release(&files);
}

/* ---- writing ------------------------------------------------------------------ */

static void test_write_and_state(void)
{
	char *root = make_tmpdir();
	struct wm_files files;
	const struct wm_file *f, *other;
	struct wm_error err;
	enum wm_file_state state = WM_FILE_CURRENT;
	struct stat st;
	mode_t old_mask;

	wm_files_init(&files);
	wm_error_init(&err);
	make_file(&files, ".github/workflows/wheels.yml", BODY);
	make_file(&files, ".github/workflows/wheels.yml", "name: other\n");
	f = &files.items[0];
	other = &files.items[1];

	CHECK(wm_file_state(&state, root, f, &err) == 0);
	CHECK(state == WM_FILE_MISSING);

	old_mask = umask(027);
	CHECK(wm_file_write(root, f, &err) == 0);
	CHECK(err.ndiags == 0);
	CHECK(file_is(join(root, ".github/workflows/wheels.yml"), f->data));
	CHECK_STR(listing(join(root, ".github/workflows")), "wheels.yml");  /* no temporary file left */
	/* a new file gets what creat() would give it under the umask; directories too */
	CHECK(stat(join(root, ".github/workflows/wheels.yml"), &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK(stat(join(root, ".github"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0750);
	umask(old_mask);

	CHECK(wm_file_state(&state, root, f, &err) == 0);
	CHECK(state == WM_FILE_CURRENT);
	CHECK(wm_file_state(&state, root, other, &err) == 0);
	CHECK(state == WM_FILE_STALE);

	/* overwriting keeps the existing file's permissions */
	CHECK(chmod(join(root, ".github/workflows/wheels.yml"), 0604) == 0);
	CHECK(wm_file_write(root, other, &err) == 0);
	CHECK(file_is(join(root, ".github/workflows/wheels.yml"), other->data));
	CHECK(stat(join(root, ".github/workflows/wheels.yml"), &st) == 0 && (st.st_mode & 0777) == 0604);
	CHECK_STR(listing(join(root, ".github/workflows")), "wheels.yml");
	CHECK(err.ndiags == 0);

	/* an edit by hand */
	put_file(join(root, ".github/workflows/wheels.yml"), "# Generated by wheelmatrix\n# Regenerate with: x\n"
		"# wheelmatrix-digest: sha256:" BODY_DIGEST "\nname: mine\n");
	CHECK(wm_file_state(&state, root, f, &err) == 0);
	CHECK(state == WM_FILE_EDITED);
	put_file(join(root, ".github/workflows/wheels.yml"), "name: handwritten\n");
	CHECK(wm_file_state(&state, root, f, &err) == 0);
	CHECK(state == WM_FILE_FOREIGN);
	CHECK(err.ndiags == 0);

	wm_error_release(&err);
	wm_files_release(&files);
	rm_rf(root);
	free(root);
}

/* Writes `path` and expects `code` with `msg` as the only diagnostic. */
static void expect_write_error(const char *root, const char *path, int code, const char *msg)
{
	struct wm_files files;
	struct wm_error err;

	wm_files_init(&files);
	wm_error_init(&err);
	if (wm_files_add(&files, path, "wheelmatrix.yaml", BODY, strlen(BODY)) != 0) {
		CHECK(!"wm_files_add");
		return;
	}
	CHECK(wm_file_write(root, &files.items[0], &err) == code);
	CHECK(err.code == code);
	CHECK(err.ndiags == 1);
	CHECK_STR(message(&err), msg);
	/* the message names the path; no file position goes with it */
	CHECK_STR(err.ndiags ? err.diags[0].file : NULL, NULL);
	CHECK(err.ndiags == 0 || (err.diags[0].line == 0 && err.diags[0].column == 0));
	wm_error_release(&err);
	wm_files_release(&files);
}

static void expect_state_error(const char *root, const char *path, int code, const char *msg)
{
	struct wm_files files;
	struct wm_error err;
	enum wm_file_state state;

	wm_files_init(&files);
	wm_error_init(&err);
	if (wm_files_add(&files, path, "wheelmatrix.yaml", BODY, strlen(BODY)) != 0) {
		CHECK(!"wm_files_add");
		return;
	}
	CHECK(wm_file_state(&state, root, &files.items[0], &err) == code);
	CHECK(err.ndiags == 1);
	CHECK_STR(message(&err), msg);
	wm_error_release(&err);
	wm_files_release(&files);
}

static enum wm_file_state state_of(const char *root, const char *path)
{
	struct wm_files files;
	struct wm_error err;
	enum wm_file_state state = WM_FILE_FOREIGN;

	wm_files_init(&files);
	wm_error_init(&err);
	make_file(&files, path, BODY);
	CHECK(wm_file_state(&state, root, &files.items[0], &err) == 0);
	CHECK(err.ndiags == 0);
	wm_error_release(&err);
	wm_files_release(&files);
	return state;
}

static void test_refusals(void)
{
	char *root = make_tmpdir(), *outside = make_tmpdir();
	struct stat st;

	expect_write_error(root, "../x", WM_EINVALID, "cannot write '../x': '..' leaves the repository");
	expect_write_error(root, "/abs", WM_EINVALID,
		"cannot write '/abs': an absolute path leaves the repository: give a path relative to the repository root");
	expect_write_error(root, "a/../b", WM_EINVALID, "cannot write 'a/../b': '..' leaves the repository");
	expect_write_error(root, ".git/config", WM_EINVALID, "cannot write '.git/config': nothing is written into '.git'");
	/* the state of a file generate would write: refused as the write would be, before any file is written */
	expect_state_error(root, "../x", WM_EINVALID, "cannot write '../x': '..' leaves the repository");
	CHECK_STR(listing(root), "");
	CHECK_STR(listing(outside), "");

	/* a parent directory that is a symbolic link out of the root */
	CHECK(symlink(outside, join(root, "out")) == 0);
	expect_write_error(root, "out/x.yml", WM_EINVALID,
		"cannot write 'out/x.yml': 'out' is a symbolic link that leads outside the repository");
	CHECK(mkdir(join(root, "ci"), 0777) == 0);
	CHECK(symlink("../../", join(root, "ci/up")) == 0);
	expect_write_error(root, "ci/up/deep/x.yml", WM_EINVALID,
		"cannot write 'ci/up/deep/x.yml': 'ci/up' is a symbolic link that leads outside the repository");
	expect_state_error(root, "out/x.yml", WM_EINVALID,
		"cannot write 'out/x.yml': 'out' is a symbolic link that leads outside the repository");
	CHECK_STR(listing(outside), "");

	/* the file itself a symbolic link out of the root: the target is left alone */
	put_file(join(outside, "victim"), "keep\n");
	CHECK(symlink(join(outside, "victim"), join(root, "victim.yml")) == 0);
	expect_write_error(root, "victim.yml", WM_EINVALID,
		"cannot write 'victim.yml': 'victim.yml' is a symbolic link that leads outside the repository");
	expect_state_error(root, "victim.yml", WM_EINVALID,
		"cannot write 'victim.yml': 'victim.yml' is a symbolic link that leads outside the repository");
	CHECK(file_is(join(outside, "victim"), "keep\n"));
	CHECK(lstat(join(root, "victim.yml"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK_STR(listing(outside), "victim");

	/* nor into .git, which a written path may not name either */
	CHECK(mkdir(join(root, ".git"), 0777) == 0);
	CHECK(mkdir(join(root, ".git/hooks"), 0777) == 0);
	put_file(join(root, ".git/hooks/pre-commit"), "#!/bin/sh\n");
	CHECK(symlink(".git/hooks/pre-commit", join(root, "hook.yml")) == 0);
	expect_write_error(root, "hook.yml", WM_EINVALID,
		"cannot write 'hook.yml': 'hook.yml' is a symbolic link that leads into '.git'");
	CHECK(symlink(".git/hooks", join(root, "hooks")) == 0);
	expect_write_error(root, "hooks/x.yml", WM_EINVALID,
		"cannot write 'hooks/x.yml': 'hooks' is a symbolic link that leads into '.git'");
	CHECK(file_is(join(root, ".git/hooks/pre-commit"), "#!/bin/sh\n"));
	CHECK_STR(listing(join(root, ".git/hooks")), "pre-commit");

	/* a link to nothing: where it would lead cannot be checked, so nothing is written */
	CHECK(symlink("nowhere/x", join(root, "dangling.yml")) == 0);
	expect_write_error(root, "dangling.yml", WM_EINVALID,
		"cannot write 'dangling.yml': 'dangling.yml' is a symbolic link whose target does not exist");
	expect_state_error(root, "dangling.yml", WM_EINVALID,
		"cannot write 'dangling.yml': 'dangling.yml' is a symbolic link whose target does not exist");

	/* a loop */
	CHECK(symlink("loop.yml", join(root, "loop.yml")) == 0);
	expect_write_error(root, "loop.yml", WM_EIO, "cannot write 'loop.yml': Too many levels of symbolic links");
	expect_state_error(root, "loop.yml", WM_EIO, "cannot write 'loop.yml': Too many levels of symbolic links");
	CHECK(symlink("loop", join(root, "loop")) == 0);
	expect_write_error(root, "loop/x.yml", WM_EIO, "cannot write 'loop/x.yml': 'loop': Too many levels of symbolic links");

	/* things in the way */
	CHECK(mkdir(join(root, "dir.yml"), 0777) == 0);
	expect_write_error(root, "dir.yml", WM_EINVALID, "'dir.yml' is a directory");
	expect_state_error(root, "dir.yml", WM_EINVALID, "'dir.yml' is a directory");
	put_file(join(root, "plain"), "x\n");
	expect_write_error(root, "plain/x.yml", WM_EINVALID, "cannot write 'plain/x.yml': 'plain' is not a directory");
	expect_state_error(root, "plain/x.yml", WM_EINVALID, "cannot write 'plain/x.yml': 'plain' is not a directory");
	CHECK(mkfifo(join(root, "fifo.yml"), 0666) == 0);
	expect_state_error(root, "fifo.yml", WM_EINVALID, "'fifo.yml' is not a regular file");
	expect_write_error(root, "fifo.yml", WM_EINVALID, "'fifo.yml' is not a regular file");

	/* larger than the limit */
	{
		int fd = open(join(root, "big.yml"), O_WRONLY | O_CREAT | O_TRUNC, 0666);
		CHECK(fd >= 0 && ftruncate(fd, (16 << 20) + 1) == 0);
		close(fd);
		expect_state_error(root, "big.yml", WM_EINVALID, "cannot read 'big.yml': the file is larger than the limit of 16 MiB");
	}

	rm_rf(root);
	rm_rf(outside);
	free(root);
	free(outside);
}

static void test_symlinks_inside(void)
{
	char *root = make_tmpdir();
	struct wm_files files;
	struct wm_error err;
	struct stat st;

	wm_files_init(&files);
	wm_error_init(&err);
	CHECK(mkdir(join(root, "real"), 0777) == 0);
	put_file(join(root, "real/target.yml"), "old\n");
	CHECK(chmod(join(root, "real/target.yml"), 0640) == 0);
	CHECK(symlink("real/target.yml", join(root, "link.yml")) == 0);
	CHECK(symlink("real", join(root, "ci")) == 0);
	make_file(&files, "link.yml", BODY);
	make_file(&files, "ci/w.yml", BODY);

	/* through a link to a file: the target is written and the link stays */
	CHECK(state_of(root, "link.yml") == WM_FILE_FOREIGN);
	CHECK(wm_file_write(root, &files.items[0], &err) == 0);
	CHECK(file_is(join(root, "real/target.yml"), files.items[0].data));
	CHECK(lstat(join(root, "link.yml"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(stat(join(root, "real/target.yml"), &st) == 0 && (st.st_mode & 0777) == 0640);
	CHECK(state_of(root, "link.yml") == WM_FILE_CURRENT);

	/* through a link to a directory */
	CHECK(wm_file_write(root, &files.items[1], &err) == 0);
	CHECK(file_is(join(root, "real/w.yml"), files.items[1].data));
	CHECK_STR(listing(join(root, "real")), "target.yml w.yml");
	CHECK_STR(listing(root), "ci link.yml real");
	CHECK(err.ndiags == 0);

	/* a root given through a symbolic link, with a link back to the root inside */
	{
		char *alias = make_tmpdir();
		char *via = join(alias, "repo");
		CHECK(symlink(root, via) == 0);
		CHECK(symlink(".", join(root, "self")) == 0);
		make_file(&files, "self/ci/x.yml", BODY);
		CHECK(wm_file_write(via, &files.items[2], &err) == 0);
		CHECK(file_is(join(root, "real/x.yml"), files.items[2].data));
		CHECK(err.ndiags == 0);
		rm_rf(alias);
		free(alias);
	}

	wm_error_release(&err);
	wm_files_release(&files);
	rm_rf(root);
	free(root);
}

/* A failed write leaves the old file whole and no temporary file behind. */
static void test_write_failure(void)
{
	char *root = make_tmpdir();
	struct wm_files files;
	struct wm_error err;
	struct rlimit saved, small;
	void (*saved_handler)(int);
	const char *old = "# the old file\n";

	wm_files_init(&files);
	wm_error_init(&err);
	CHECK(mkdir(join(root, "ro"), 0777) == 0);
	put_file(join(root, "ro/w.yml"), old);
	make_file(&files, "ro/w.yml", BODY);

	/* the file system refuses the data: a file size limit, which holds for root too */
	CHECK(getrlimit(RLIMIT_FSIZE, &saved) == 0);
	small = saved;
	small.rlim_cur = 16;
	saved_handler = signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CHECK(wm_file_write(root, &files.items[0], &err) == WM_EIO);
	CHECK(setrlimit(RLIMIT_FSIZE, &saved) == 0);
	signal(SIGXFSZ, saved_handler);
	CHECK(err.code == WM_EIO && err.ndiags == 1);
	CHECK_STR(message(&err), "cannot write 'ro/w.yml': File too large");
	CHECK(file_is(join(root, "ro/w.yml"), old));
	CHECK_STR(listing(join(root, "ro")), "w.yml");
	wm_error_release(&err);

	/* a read-only directory */
	if (geteuid() == 0) {
		printf("note: running as root, which ignores permissions: the read-only directory check is skipped\n");
	} else {
		wm_error_init(&err);
		CHECK(chmod(join(root, "ro"), 0555) == 0);
		CHECK(wm_file_write(root, &files.items[0], &err) == WM_EIO);
		CHECK(err.code == WM_EIO && err.ndiags == 1);
		CHECK_STR(message(&err), "cannot write 'ro/w.yml': Permission denied");
		CHECK(chmod(join(root, "ro"), 0755) == 0);
		CHECK(file_is(join(root, "ro/w.yml"), old));
		CHECK_STR(listing(join(root, "ro")), "w.yml");
		wm_error_release(&err);
	}

	/* a root that is not there */
	wm_error_init(&err);
	CHECK(wm_file_write(join(root, "missing"), &files.items[0], &err) == WM_EIO);
	CHECK(strstr(message(&err), "cannot write 'ro/w.yml': '") == message(&err));
	CHECK(strstr(message(&err), "/missing': No such file or directory") != NULL);
	wm_error_release(&err);

	wm_files_release(&files);
	rm_rf(root);
	free(root);
}

int main(void)
{
	test_sha256();
	test_header();
	test_compare();
	test_write_and_state();
	test_refusals();
	test_symlinks_inside();
	test_write_failure();
	return harness_done();
}
