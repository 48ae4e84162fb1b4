/* test_gitlab.c — unit tests of the GitLab.com limits the GitLab emitter asserts: 200 permutations, 255-character names, 50 needs. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/arena.h"
#include "formats/yaml.h"
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

int main(void)
{
	wm_arena_init(&arena);
	test_permutations();
	test_names();
	test_needs();
	CHECK(!yb.oom);
	wm_arena_release(&arena);
	return harness_done();
}
