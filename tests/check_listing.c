/* check_listing.c: the --list-* output over the fixture models, captured
 * in memory and compared with the exact expected text. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "evdef.h"
#include "listing.h"
#include "util.h"

#define FIXTURES TOP_SRCDIR "/tests/fixtures/models"

static struct model *load(void)
{
	return fx_model("tests/fixtures/models/amd/zen5");
}

/* Runs fn into a memory stream and returns what it wrote. */
#define CAPTURE(buf, call) do { \
		size_t len_; \
		FILE *f_ = open_memstream(&(buf), &len_); \
		ck_assert_ptr_nonnull(f_); \
		call; \
		fclose(f_); \
	} while (0)

START_TEST(test_models)
{
	char *out = NULL, *cause = NULL;
	int n = 0;
	CAPTURE(out, n = listing_models(f_, FIXTURES, &cause));
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(out,
		"MODEL           ALIAS  SIM SHAPE  DESCRIPTION\n"
		"amd-fam10h      -      -          Test model: AMD Family 10h\n"
		"                matches AuthenticAMD family=0x10\n"
		"amd-zen5        zen5   1x2x8x2    Test model: AMD Family 1Ah Model 00h-0Fh\n"
		"                matches AuthenticAMD family=0x1a model=0x00-0x0f\n"
		"generic         -      -          Test model: any CPU, perf generic and software events only\n"
		"                matches *\n"
		"intel-arch      -      -          Test model: Intel architectural events\n"
		"                matches GenuineIntel family=0x6\n"
		"intel-core2     -      -          Test model: Intel Core 2\n"
		"                matches GenuineIntel family=0x6 model=0x0f,0x17\n"
		"intel-westmere  -      -          Test model: Intel Westmere\n"
		"                matches GenuineIntel family=0x6 model=0x25,0x2c,0x2f\n");
	free(out);
	CAPTURE(out, n = listing_models(f_, "/nonexistent/pmctop", &cause));
	ck_assert_int_eq(n, -1);
	ck_assert_str_eq(out, "");
	free(out);
	free(cause);
}
END_TEST

START_TEST(test_events)
{
	struct model *m = load();
	char *out = NULL;
	int n = 0;
	CAPTURE(out, n = listing_events(f_, m, "INSTR"));
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"EVENT         PMU   ENCODING         DESCRIPTION\n"
		"ex_ret_instr  core  Event[0x4300C0]  Retired instructions # quoted\n");
	free(out);
	/* The pattern also matches descriptions. */
	CAPTURE(out, n = listing_events(f_, m, "/proc/STAT"));
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"EVENT        PMU   ENCODING            DESCRIPTION\n"
		"cpu_busy_ns  proc  /proc/stat:busy_ns  Time not idle, from /proc/stat\n");
	free(out);
	CAPTURE(out, n = listing_events(f_, m, NULL));
	ck_assert_int_eq(n, 6);
	ck_assert_ptr_nonnull(strstr(out, "\nl3_lookup_state.all  l3        amd_l3/event=0x04,umask=0xff/  L3 cache accesses\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nde_src_op_disp.all   core      Event[0x1004307AA]"));
	ck_assert_ptr_nonnull(strstr(out, "\ntask_clock           software  software:task-clock"));
	free(out);
	CAPTURE(out, n = listing_events(f_, m, "no such thing"));
	ck_assert_int_eq(n, 0);
	ck_assert_str_eq(out, "");
	free(out);
	model_free(m);
}
END_TEST

START_TEST(test_metrics)
{
	struct model *m = load();
	char *out = NULL;
	int n = 0;
	CAPTURE(out, n = listing_metrics(f_, m, false));
	ck_assert_int_eq(n, 5);
	ck_assert_str_eq(out,
		"METRIC        SCOPE   UNIT        GROUPS\n"
		"ipc           thread  insn/cyc    basic,branch\n"
		"    IPC: Instructions retired per core cycle\n"
		"    = ex_ret_instr / ls_not_halted_cyc\n"
		"cpi           thread  -           basic\n"
		"    CPI\n"
		"    = 1 / ipc\n"
		"l3_per_kinsn  ccx     /kinsn      -\n"
		"    L3/ki\n"
		"    = l3_lookup_state.all / ex_ret_instr * 1000\n"
		"    note: Summed over the CCX before dividing.\n"
		"ghz           thread  GHz         basic\n"
		"    GHz\n"
		"    = ls_not_halted_cyc / cpu_busy_ns\n"
		"cpu_util      thread  ratio       -\n"
		"    CPU%\n"
		"    = min(cpu_busy_ns / (interval_s * 1e9), 1)\n");
	free(out);
	CAPTURE(out, n = listing_metrics(f_, m, true));
	ck_assert_ptr_nonnull(strstr(out, "    = Event[0x4300C0] / Event[0x430076]\n"));
	ck_assert_ptr_nonnull(strstr(out, "    = 1 / ipc\n"));
	ck_assert_ptr_nonnull(strstr(out, "    = amd_l3/event=0x04,umask=0xff/ / Event[0x4300C0] * 1000\n"));
	ck_assert_ptr_nonnull(strstr(out, "    = min(proc:busy_ns / (interval_s * 1e9), 1)\n"));
	free(out);
	model_free(m);
}
END_TEST

START_TEST(test_views)
{
	struct model *m = load();
	char *out = NULL;
	int n = 0;
	CAPTURE(out, n = listing_views(f_, m));
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out,
		"VIEW   KEY  TITLE / COLUMNS\n"
		"basic  1    Basic\n"
		"            ipc cpu_util l3_per_kinsn\n"
		"            counted throughout: ipc cpu_util l3_per_kinsn\n"
		"\n"
		"METRIC GROUP  METRICS (pmctop -g GROUP)\n"
		"basic         ipc cpi ghz\n"
		"branch        ipc\n");
	free(out);
	model_free(m);
}
END_TEST

/* Each view says which of its figures the scheduler counts throughout
 * and which rotate, on the model's counters, and which pins do not fit:
 * Zen 5's basic view pins util, GHz and IPC; its five topdown shares need
 * six of the five counters the NMI watchdog leaves. */
START_TEST(test_views_pinned)
{
	char *cause = NULL;
	struct model *m = model_load_by_name(TOP_SRCDIR "/events", "amd-zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	char *out = NULL;
	CAPTURE(out, listing_views(f_, m));
	ck_assert_msg(strstr(out, " counted throughout: util ghz ipc l3_miss_rate cs_per_s; rotating: "
				  "branch_miss_ratio l1d_miss_rate l2_miss_rate\n"), "%s", out);
	ck_assert_msg(strstr(out, " pin not kept: frontend_bound: with the 5 shares of its tree: its events need 6 "
				  "counters of PMU core"), "%s", out);
	free(out);
	model_free(m);
}
END_TEST

/* Text planted in a loaded model (as if the loader had let it through)
 * reaches the listing neutralised: ESC, CR, BEL, C1 and bytes that are not
 * UTF-8 become '?', good UTF-8 stays. */
START_TEST(test_hostile_text)
{
	struct model *m = load();
	/* The loader's strings lie in the model's kept texts (model.h). */
	model_str_set(m, &m->events[0].desc, xstrdup("\033]0;pwned\007 caf\xc3\xa9 \r\xc2\x9b\x9b\xff."));
	model_str_set(m, &m->metrics[0].label, xstrdup("\033[2J"));
	free(m->views[0].title);
	m->views[0].title = xstrdup("t\x1b[31m");
	char *out = NULL;
	CAPTURE(out, listing_events(f_, m, NULL));
	ck_assert_ptr_nonnull(strstr(out, "?]0;pwned? caf\xc3\xa9 ?????.\n"));
	free(out);
	CAPTURE(out, listing_metrics(f_, m, false));
	ck_assert_ptr_nonnull(strstr(out, "    ?[2J"));
	free(out);
	CAPTURE(out, listing_views(f_, m));
	ck_assert_ptr_nonnull(strstr(out, "t?[31m\n"));
	free(out);
	model_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("listing");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_models);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_metrics);
	tcase_add_test(tc, test_views);
	tcase_add_test(tc, test_views_pinned);
	tcase_add_test(tc, test_hostile_text);
	suite_add_tcase(s, tc);
	return check_run(s);
}
