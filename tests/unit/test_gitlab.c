/* test_gitlab.c — unit tests of the GitLab emitter: GitLab.com's limits (200 permutations, 255-character names, 50 needs), and its one variable writer. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/arena.h"
#include "util/buf.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "emit/gitlab.h"

static struct wm_arena arena;
static struct wm_yb yb = { &arena, false };

static const char *message(const struct wm_error *err)
{
	return err->ndiags > 0 && err->diags[0].message ? err->diags[0].message : "";
}

/* A job `name` with a parallel:matrix of `n` entries, each one value (or `lists` values per variable). */
static struct wm_y *matrix_job(struct wm_y *root, const char *name, size_t n, size_t lists, size_t value_len)
{
	struct wm_y *job = wm_yaml_set(&yb, root, name, wm_yaml_map(&yb));
	struct wm_y *matrix = wm_yaml_set(&yb, wm_yaml_set(&yb, job, "parallel", wm_yaml_map(&yb)), "matrix", wm_yaml_seq(&yb));
	wm_yaml_set(&yb, job, "script", wm_yaml_seq(&yb));
	for (size_t i = 0; i < n; i++) {
		struct wm_y *e = wm_yaml_push(&yb, matrix, wm_yaml_map(&yb));
		if (lists) {
			struct wm_y *a = wm_yaml_set(&yb, e, "A", wm_yaml_seq(&yb)), *b = wm_yaml_set(&yb, e, "B", wm_yaml_seq(&yb));
			for (size_t k = 0; k < lists; k++) {
				wm_yaml_push(&yb, a, wm_yaml_strf(&yb, "a%zu", k));
				wm_yaml_push(&yb, b, wm_yaml_strf(&yb, "b%zu", k));
			}
		} else {
			/* unique values of exactly value_len characters */
			const char *v = wm_arena_printf(&arena, "%0*zu", (int)value_len, i);
			wm_yaml_set(&yb, e, "WM_JOB_ID", wm_yaml_str(&yb, v));
			wm_yaml_set(&yb, e, "WM_PYTHON", wm_yaml_str(&yb, "3.12"));
		}
	}
	return job;
}

static struct wm_y *plain_job(struct wm_y *root, const char *name)
{
	struct wm_y *job = wm_yaml_set(&yb, root, name, wm_yaml_map(&yb));
	wm_yaml_set(&yb, job, "script", wm_yaml_seq(&yb));
	return job;
}

/* Runs the check; returns its code and keeps the first message in `msg`. */
static int check(struct wm_y *root, char *msg, size_t cap)
{
	struct wm_error err;
	int ret;
	wm_error_init(&err);
	ret = wm_emit_gitlab_limits(root, &err);
	snprintf(msg, cap, "%s", message(&err));
	wm_error_release(&err);
	return ret;
}

static void test_permutations(void)
{
	char msg[512];
	struct wm_y *root = wm_yaml_map(&yb);
	wm_yaml_set(&yb, root, "stages", wm_yaml_seq(&yb));
	matrix_job(root, "build-a", 200, 0, 20);
	CHECK(check(root, msg, sizeof(msg)) == 0);
	CHECK_STR(msg, "");
	matrix_job(root, "build-b", 201, 0, 20);
	CHECK(check(root, msg, sizeof(msg)) == WM_EINTERNAL);
	CHECK_STR(msg, "job 'build-b' has 201 parallel:matrix permutations: GitLab allows 200");

	/* lists multiply: one entry of 14 x 14 values is 196, of 15 x 15 is 225 */
	root = wm_yaml_map(&yb);
	matrix_job(root, "cartesian", 1, 14, 0);
	CHECK(check(root, msg, sizeof(msg)) == 0);
	matrix_job(root, "cartesian", 1, 15, 0);
	CHECK(check(root, msg, sizeof(msg)) == WM_EINTERNAL);
	CHECK_STR(msg, "job 'cartesian' has 225 parallel:matrix permutations: GitLab allows 200");
	/* hidden template jobs are not jobs */
	root = wm_yaml_map(&yb);
	matrix_job(root, ".template", 300, 0, 20);
	CHECK(check(root, msg, sizeof(msg)) == 0);
}

static void test_names(void)
{
	char msg[512], name[300];
	struct wm_y *root = wm_yaml_map(&yb);
	memset(name, 'n', 255);
	name[255] = 0;
	plain_job(root, name);
	CHECK(check(root, msg, sizeof(msg)) == 0);
	name[255] = 'n';
	name[256] = 0;
	root = wm_yaml_map(&yb);
	plain_job(root, name);
	CHECK(check(root, msg, sizeof(msg)) == WM_EINTERNAL);
	CHECK(strstr(msg, "has a name of 256 characters: GitLab allows 255") != NULL);
	/* an instance is named "NAME: [v1, v2]": 200 + 4 + 45 + 2 + 4 = 255 is fine, one more is not */
	memset(name, 'n', 200);
	name[200] = 0;
	root = wm_yaml_map(&yb);
	matrix_job(root, name, 2, 0, 45);
	CHECK(check(root, msg, sizeof(msg)) == 0);
	root = wm_yaml_map(&yb);
	matrix_job(root, name, 2, 0, 46);
	CHECK(check(root, msg, sizeof(msg)) == WM_EINTERNAL);
	CHECK(strstr(msg, "has a name of 256 characters with its matrix values: GitLab allows 255") != NULL);
	/* characters, not bytes: 255 two-byte characters pass */
	{
		char wide[600];
		for (int i = 0; i < 255; i++)
			memcpy(wide + 2 * i, "\xc3\xa9", 2);
		wide[510] = 0;
		root = wm_yaml_map(&yb);
		plain_job(root, wide);
		CHECK(check(root, msg, sizeof(msg)) == 0);
	}
}

static struct wm_y *need(struct wm_y *needs, const char *job)
{
	struct wm_y *n = wm_yaml_push(&yb, needs, wm_yaml_map(&yb));
	wm_yaml_set(&yb, n, "job", wm_yaml_str(&yb, job));
	return n;
}

static void test_needs(void)
{
	char msg[512];
	struct wm_y *root = wm_yaml_map(&yb), *job, *needs, *sel;
	/* 50 explicit jobs are fine, 51 are not */
	for (int i = 0; i < 51; i++)
		plain_job(root, wm_arena_printf(&arena, "build-%d", i));
	job = plain_job(root, "publish");
	needs = wm_yaml_set(&yb, job, "needs", wm_yaml_seq(&yb));
	for (int i = 0; i < 50; i++)
		need(needs, wm_arena_printf(&arena, "build-%d", i));
	CHECK(check(root, msg, sizeof(msg)) == 0);
	wm_yaml_push(&yb, needs, wm_yaml_str(&yb, "build-50"));
	CHECK(check(root, msg, sizeof(msg)) == WM_EINTERNAL);
	CHECK_STR(msg, "job 'publish' needs 51 jobs after matrix expansion: GitLab allows 50");

	/* one entry naming a parallel job counts its instances */
	root = wm_yaml_map(&yb);
	matrix_job(root, "build-m", 51, 0, 20);
	job = plain_job(root, "publish");
	needs = wm_yaml_set(&yb, job, "needs", wm_yaml_seq(&yb));
	need(needs, "build-m");
	CHECK(check(root, msg, sizeof(msg)) == WM_EINTERNAL);
	CHECK_STR(msg, "job 'publish' needs 51 jobs after matrix expansion: GitLab allows 50");
	/* unless it selects instances with needs:parallel:matrix */
	sel = wm_yaml_set(&yb, wm_yaml_set(&yb, needs->items[0], "parallel", wm_yaml_map(&yb)), "matrix", wm_yaml_seq(&yb));
	wm_yaml_push(&yb, sel, wm_yaml_map(&yb));
	wm_yaml_set(&yb, sel->items[0], "WM_JOB_ID", wm_yaml_str(&yb, "x"));
	CHECK(check(root, msg, sizeof(msg)) == 0);
}

/* Every '$' of a value is one of a `$$` pair. */
static bool doubled(const char *v)
{
	for (const char *d = strchr(v, '$'); d; d = strchr(d + 2, '$'))
		if (d[1] != '$')
			return false;
	return true;
}

/*
 * Every variable of every job the emitter writes goes through its one writer, which doubles '$':
 * here the model's paths, name and env values hold '$' (the loader refuses it in a path, so they
 * are set behind its back), and every value of every `variables:` and parallel:matrix entry of
 * the file has each '$' doubled, but for the template's own WM_TAG: $CI_COMMIT_TAG.
 */
static void test_one_writer(void)
{
	static const char matrix[] = "wheelmatrix: 1\nproject: {name: x, pyproject: py/pyproject.toml}\n"
		"python: {versions: [\"3.12\", \"3.13\"]}\nplatforms: [linux-x86_64, macos-arm64, windows-x86_64]\n"
		"backends:\n  gpu: {features: [cublas], platforms: [linux-x86_64], env: {A: \"$A\"}}\n"
		"  cpu: {default: true, env: {B: \"${B}$$\"}}\ninclude:\n"
		"  - {backend: cpu, platform: linux-x86_64, python: \"3.14\", env: {C: \"$C\"}}\n"
		"distribution: {strategy: index, index: {url: https://o.gitlab.io/x/whl}}\nci: {gitlab: {}}\n";
	struct wm_catalog *cat = NULL;
	struct wm_matrix *m = NULL;
	struct wm_error err;
	struct wm_buf out = WM_BUF_INIT;
	struct wm_doc doc;
	struct wm_yaml_limits lim = { WM_MATRIX_MAX_BYTES * 64, WM_MATRIX_MAX_DEPTH, UINT64_MAX, UINT64_MAX };
	size_t vars = 0;

	wm_error_init(&err);
	CHECK(wm_catalog_load(&cat, &err) == 0);
	CHECK(wm_matrix_load(&m, cat, "wheelmatrix.yaml", matrix, sizeof(matrix) - 1, &err) == 0);
	if (!m) {
		wm_catalog_free(cat);
		wm_error_release(&err);
		return;
	}
	m->pyproject = "py$CI_JOB_TOKEN/pyproject.toml";
	m->manifest = "rust${CI_PROJECT_DIR}/Cargo.toml";
	CHECK(wm_emit_gitlab(&out, m, cat, NULL, &err) == 0);
	CHECK(wm_yaml_parse(&doc, ".gitlab-ci.yml", out.ptr ? out.ptr : "", out.len, &lim, &err) == 0);
	for (size_t i = 0; doc.root && i < doc.root->n; i++) {
		const struct wm_node *job = doc.root->pairs[i].value;
		const struct wm_node *matrix_entries = wm_yaml_find(wm_yaml_find(job, "parallel"), "matrix");
		const struct wm_node *lists[2] = { wm_yaml_find(job, "variables"), NULL };
		for (size_t k = 0; k <= (matrix_entries ? matrix_entries->n : 0); k++) {
			const struct wm_node *v = k == 0 ? lists[0] : matrix_entries->items[k - 1];
			for (size_t x = 0; v && x < v->n; x++, vars++) {
				const char *name = v->pairs[x].key->text, *value = v->pairs[x].value->text;
				if (strcmp(name, "WM_TAG") == 0 && strcmp(value, "$CI_COMMIT_TAG") == 0)
					continue;
				if (!doubled(value))
					fprintf(stderr, "%s: %s = %s\n", doc.root->pairs[i].key->text, name, value);
				CHECK(doubled(value));
			}
		}
	}
	CHECK(vars > 50);
	CHECK(out.ptr && strstr(out.ptr, "WM_PROJECT_DIR: py$$CI_JOB_TOKEN\n"));
	CHECK(out.ptr && strstr(out.ptr, "WM_MANIFEST: rust$${CI_PROJECT_DIR}/Cargo.toml\n"));
	wm_yaml_release(&doc);
	wm_buf_release(&out);
	wm_matrix_free(m);
	wm_catalog_free(cat);
	wm_error_release(&err);
}

int main(void)
{
	wm_arena_init(&arena);
	test_permutations();
	test_names();
	test_needs();
	test_one_writer();
	CHECK(!yb.oom);
	wm_arena_release(&arena);
	return harness_done();
}
