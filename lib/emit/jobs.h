/* jobs.h — jobs as JSON for `list` and for a build job's matrix, and where a job's tests run (jobs.c). */
#ifndef WM_EMIT_JOBS_H
#define WM_EMIT_JOBS_H

#include "util/common.h"

/* Where the tests of a job's wheel run (the matrix's `test:`; docs/matrix.md). */
enum wm_tests {
	WM_TESTS_NONE,        /* the backend has no tests */
	WM_TESTS_BUILD_JOB,   /* in the build job, after the import test */
	WM_TESTS_TEST_JOB,    /* in a job of their own, on the backend's test runner */
	WM_TESTS_SKIPPED,     /* nowhere: *why says why */
};
/*
 * Where the tests of `job` run in the GitHub workflow; *why (static text, or the matrix's) is set
 * when they are skipped, else NULL.
 */
enum wm_tests wm_jobs_tests(const struct wm_job *job, const char **why);

/* Encodes jobs as compact JSON objects, reusing its buffers between calls. */
struct wm_jobs;

int wm_jobs_new(struct wm_jobs **out);
void wm_jobs_free(struct wm_jobs *j);
/* The job as one JSON object; the text stays valid until the next call. */
int wm_jobs_encode(struct wm_jobs *j, const struct wm_job *job, const char **text, size_t *len);
/* A left-out combination with its reason. */
int wm_jobs_left_out(struct wm_jobs *j, const struct wm_job *job, const char **text, size_t *len);
/* A group's `{"include":[...]}` matrix for GitHub's fromJSON. */
int wm_jobs_group_matrix(struct wm_jobs *j, const struct wm_matrix *m, const struct wm_group *g,
	const char **text, size_t *len);

#endif
