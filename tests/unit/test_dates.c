/* test_dates.c — wm_catalog_date, the runner retirement days' reader: every day 1970–2400 counted one by one, and what is not a date. */
#include <stdbool.h>
#include <stdio.h>
#include "harness.h"
#include "wheelmatrix.h"

static int month_days(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return days[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

int main(void)
{
	static const char *const bad[] = { "", "2027", "2027-4-17", "2027-04-7", "2027-04-17x", "2027/04/17",
		" 2027-04-17", "2027-00-10", "2027-13-01", "2027-04-00", "2027-04-31", "2027-02-29", "2100-02-29",
		"1969-12-31", "+027-04-17", "2027-0x-17" };
	long want = 0, got = -1, mismatches = 0;
	char text[32];

	/* the closed form against a day-by-day count */
	for (int y = 1970; y <= 2400; y++)
		for (int m = 1; m <= 12; m++)
			for (int d = 1; d <= month_days(y, m); d++, want++) {
				snprintf(text, sizeof(text), "%04d-%02d-%02d", y, m, d);
				if ((!wm_catalog_date(text, &got) || got != want) && mismatches++ < 5)
					fprintf(stderr, "%s: read as %ld, not day %ld\n", text, got, want);
			}
	CHECK(mismatches == 0);
	CHECK(want > 157000);  /* the walk went through four centuries */
	CHECK_STR(text, "2400-12-31");
	/* two days as Python's datetime counts them: (date(Y, M, D) - date(1970, 1, 1)).days */
	CHECK(wm_catalog_date("2000-02-29", &got) && got == 11016);
	CHECK(wm_catalog_date("2027-04-17", &got) && got == 20925);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		got = -1;
		bool read = wm_catalog_date(bad[i], &got);
		if (read)
			fprintf(stderr, "'%s' read as day %ld\n", bad[i], got);
		CHECK(!read);
	}
	return harness_done();
}
