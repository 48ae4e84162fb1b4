/* harness.h — the unit tests' twenty-line harness: CHECK macros and a closing "N passed, N failed" line. */
#ifndef WM_HARNESS_H
#define WM_HARNESS_H

#include <stdio.h>
#include <string.h>

static int harness_passed, harness_failed;

#define CHECK(cond) harness_check((cond), __FILE__, __LINE__, #cond, NULL, NULL)
/* Two strings equal (NULL equals only NULL); both are shown on failure. */
#define CHECK_STR(got, want) harness_check_str((got), (want), __FILE__, __LINE__, #got)

static void harness_check(int ok, const char *file, int line, const char *what, const char *got, const char *want)
{
	if (ok) {
		harness_passed++;
		return;
	}
	harness_failed++;
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what);
	if (got || want)
		fprintf(stderr, "    got:  %s\n    want: %s\n", got ? got : "(null)", want ? want : "(null)");
}

static void harness_check_str(const char *got, const char *want, const char *file, int line, const char *what)
{
	int ok = got && want ? strcmp(got, want) == 0 : got == want;
	harness_check(ok, file, line, what, ok ? NULL : got ? got : "(null)", ok ? NULL : want ? want : "(null)");
}

/* Prints the summary; the exit status of the test program. */
static int harness_done(void)
{
	printf("%d passed, %d failed\n", harness_passed, harness_failed);
	return harness_failed != 0;
}

#endif
