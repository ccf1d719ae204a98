/* check_procstat.c: /proc/stat's per-CPU lines into busy and total ns
 * (procstat_parse): the arithmetic, missing and skipped lines, and the
 * malformed text that must be refused rather than half believed. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <stdint.h>
#include <stdlib.h>

#include "procstat.h"

#define NS_PER_TICK 10000000ull   /* clk_tck 100 */

/* A real file's shape: the total line, CPUs 0, 1 and 3 (2 offline), the
 * 10 figures of a recent kernel, and the long lines that follow. */
START_TEST(test_parse_real_shape)
{
	const char *text =
		"cpu  29 2 19 250 4 1 1 2 3 0\n"
		"cpu0 5 0 5 50 0 0 0 0 0 0\n"
		"cpu1 12 1 7 80 4 1 1 2 3 0\n"
		"cpu3 12 1 7 120 0 0 0 0 0 0\n"
		"intr 12345 0 0 0 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"ctxt 999\nbtime 1700000000\nprocesses 42\nprocs_running 1\n"
		"softirq 1 2 3 4 5 6 7 8 9 10 11\n";
	uint64_t busy[5], total[5];
	ck_assert_int_eq(procstat_parse(text, 100, busy, total, 5), 0);
	ck_assert_uint_eq(total[0], 60 * NS_PER_TICK);
	ck_assert_uint_eq(busy[0], 10 * NS_PER_TICK);
	/* guest (3) is inside user already: not added again; iowait is idle. */
	ck_assert_uint_eq(total[1], (12 + 1 + 7 + 80 + 4 + 1 + 1 + 2) * NS_PER_TICK);
	ck_assert_uint_eq(busy[1], (12 + 1 + 7 + 1 + 1 + 2) * NS_PER_TICK);
	ck_assert_uint_eq(total[2], PROCSTAT_NONE);
	ck_assert_uint_eq(busy[2], PROCSTAT_NONE);
	ck_assert_uint_eq(busy[3], 20 * NS_PER_TICK);
	ck_assert_uint_eq(total[4], PROCSTAT_NONE);
	/* The CPUs' lines end at the first line after them: what follows is
	 * not read, not even a "cpu" line or a damaged figure. */
	ck_assert_int_eq(procstat_parse("ctxt 1\ncpu0 1 2 3 4\nintr 1 2\ncpu1 1 1 1 1\nx -1\ncpu0 -1\n", 100, busy,
					total, 5), 0);
	ck_assert_uint_eq(total[0], 10 * NS_PER_TICK);
	ck_assert_uint_eq(total[1], PROCSTAT_NONE);
}
END_TEST

/* Old kernels have four figures; CPUs beyond the map are skipped; so are
 * lines that merely start with "cpu"; there may be no final newline. */
START_TEST(test_parse_short_and_skipped)
{
	uint64_t busy[2], total[2];
	ck_assert_int_eq(procstat_parse("cpufreq 1 2\ncpu0 1 2 3 4\ncpu9 1 1 1 1\ncpu1 0 0 1 9", 250,
					busy, total, 2), 0);
	ck_assert_uint_eq(total[0], 10 * 4000000ull);
	ck_assert_uint_eq(busy[0], 6 * 4000000ull);
	ck_assert_uint_eq(busy[1], 1 * 4000000ull);
	ck_assert_uint_eq(total[1], 10 * 4000000ull);
	ck_assert_int_eq(procstat_parse("", 100, busy, total, 2), 0);
	ck_assert_uint_eq(total[0], PROCSTAT_NONE);
}
END_TEST

static const char *const bad[] = {
	"cpu0 1 2 3\n",                          /* fewer than four figures */
	"cpu0\n",                                /* none at all */
	"cpu0 1 2 -3 4\n",                       /* a sign */
	"cpu0 1 2 3 4x\n",                       /* a letter in a figure */
	"cpu0 1 2 3 99999999999999999999\n",     /* beyond 64 bits */
	"cpu0 1 2 3 18446744073709551615\n",     /* 64 bits of ticks, not of ns */
	"cpu0 9223372036854775807 9223372036854775807 9223372036854775807 1\n", /* sum overflows */
	"cpu0 1 2 3 4\ncpu1 1 2\n",              /* a later line spoils the text */
};

START_TEST(test_parse_refuses)
{
	uint64_t busy[2], total[2];
	ck_assert_msg(procstat_parse(bad[_i], 100, busy, total, 2) == -1, "accepted %s", bad[_i]);
	/* Nothing half believed: the good line before a bad one is dropped too. */
	ck_assert_uint_eq(total[0], PROCSTAT_NONE);
	ck_assert_uint_eq(busy[0], PROCSTAT_NONE);
	ck_assert_int_eq(procstat_parse("cpu0 1 2 3 4\n", 0, busy, total, 2), -1);
	ck_assert_int_eq(procstat_parse(NULL, 100, busy, total, 2), -1);
	ck_assert_uint_eq(total[0], PROCSTAT_NONE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("procstat");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_real_shape);
	tcase_add_test(tc, test_parse_short_and_skipped);
	tcase_add_loop_test(tc, test_parse_refuses, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	suite_add_tcase(s, tc);
	return check_run(s);
}
