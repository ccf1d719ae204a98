/* check_perf_import.c: the importer of Linux perf's event and metric files
 * on small fixtures (tests/fixtures/perf-arch, laid out as perf's
 * pmu-events/arch), with no need of perf's real files, which
 * e2e_perf_import.sh loads in full:
 *  - the MetricExpr translator: operators, d_ratio, constants folded at
 *    import, the branch not taken ignored, and each refusal with its reason;
 *  - CPU identification: perf's CPUID strings from cpuinfo files and the
 *    mapfile's first match, as perf picks;
 *  - a whole import: encodings, PMUs, the PERF_METRICS events and their
 *    group leader, metric units and topdown parents, views, left-out metrics;
 *  - an Arm import: standard events and metrics, raw events in metrics. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evdef.h"
#include "perf_import.h"
#include "perf_import_impl.h"
#include "sim_counters.h"
#include "util.h"

#define ARCH TOP_SRCDIR "/tests/fixtures/perf-arch"
#define EVENTS TOP_SRCDIR "/events"
#define CPUINFO TOP_SRCDIR "/tests/fixtures/cpuinfo/"

/* ---- the translator -------------------------------------------------------- */

/* Names become lower case (PMU@EVENT@ the event's); "BAD" is unknown;
 * has_event knows HAVE_* (and cpu_core@HAVE_*@). */
static char *t_name(void *ctx, const char *n, char **why)
{
	(void)ctx;
	if (!strcmp(n, "BAD")) {
		*why = xstrdup("no event or metric 'BAD'");
		return NULL;
	}
	/* perf's PMU@EVENT@ form names the event, as the importer's does. */
	const char *at = strchr(n, '@');
	char *s = at && n[strlen(n) - 1] == '@' ? xstrndup(at + 1, strlen(at + 1) - 1) : xstrdup(n);
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return s;
}

static bool t_literal(void *ctx, const char *lit, double *v)
{
	(void)ctx;
	if (!strcmp(lit, "SMT_on")) {
		*v = 1;
		return true;
	}
	if (!strcmp(lit, "slots")) {
		*v = 5;
		return true;
	}
	return false;
}

static bool t_has(void *ctx, const char *n)
{
	(void)ctx;
	return !strncmp(n, "HAVE", 4) || !strncmp(n, "cpu_core@HAVE", 13);
}

static double t_cpuid(void *ctx, const char *id)
{
	(void)ctx;
	return !strcmp(id, "0x1");
}

static const struct perf_expr_env env = { NULL, t_name, t_literal, t_has, t_cpuid, NULL };

static const struct { int line; const char *in, *out; } tr_cases[] = {
	{ __LINE__, "A + B * C", "(a + (b * c))" },
	{ __LINE__, "(A + B) * C", "((a + b) * c)" },
	{ __LINE__, "d_ratio(A, B)", "(a / b)" },
	{ __LINE__, "d_ratio(A, 0)", "0" },
	{ __LINE__, "A if #SMT_on else B", "a" },
	{ __LINE__, "BAD if 0 else B", "b" },
	{ __LINE__, "A if has_event(HAVE_X) else B", "a" },
	{ __LINE__, "A if has_event(NO_X) else B", "b" },
	{ __LINE__, "max(A, 0) * 100", "(max(a, 0) * 100)" },
	{ __LINE__, "min(1, 2) + A", "(1 + a)" },
	{ __LINE__, "topdown\\-fe\\-bound / #slots", "(topdown-fe-bound / 5)" },
	{ __LINE__, "(strcmp_cpuid_str(0x1) | strcmp_cpuid_str(0x2) ^ 1)", "1" },
	{ __LINE__, "A if strcmp_cpuid_str(0x2) else B", "b" },
	{ __LINE__, "64 * A / 1e6 / duration_time", "(((64 * a) / 1000000) / interval_s)" },
	{ __LINE__, "-A", "(0 - a)" },
	{ __LINE__, "1 - 2 - A", "(-1 - a)" },
	{ __LINE__, "A if 1 > 2 else B if 3 > 2 else C", "b" },
	/* Privilege modifiers carry over to pmctop's name of the event. */
	{ __LINE__, "HAVE_C:k / HAVE_I:k", "(have_c:k / have_i:k)" },
	{ __LINE__, "A / HAVE_FAR\\:u", "(a / have_far:u)" },
	{ __LINE__, "cpu_core@HAVE_C@k / HAVE_C", "(have_c:k / have_c)" },
};

START_TEST(test_translate)
{
	char *why = NULL;
	char *s = perf_expr_translate(tr_cases[_i].in, &env, &why);
	ck_assert_msg(s, "line %d: '%s': %s", tr_cases[_i].line, tr_cases[_i].in, why);
	ck_assert_msg(!strcmp(s, tr_cases[_i].out), "line %d: '%s' gave '%s', expected '%s'", tr_cases[_i].line,
		      tr_cases[_i].in, s, tr_cases[_i].out);
	free(s);
}
END_TEST

static const struct { int line; const char *in, *why; } refuse_cases[] = {
	{ __LINE__, "A if B < C else D", "'b < c' compares counts" },
	{ __LINE__, "A if B else D", "'if b' depends on counts" },
	{ __LINE__, "A < B", "compares counts" },
	{ __LINE__, "#num_dies * A", "#num_dies is not known" },
	{ __LINE__, "source_count(A)", "has no pmctop equivalent" },
	{ __LINE__, "BAD + 1", "no event or metric 'BAD'" },
	{ __LINE__, "A / 0", "division by zero" },
	{ __LINE__, "A +", "syntax: col 4" },
	{ __LINE__, "A if B else", "syntax" },
	{ __LINE__, "min(A, B", "syntax" },
	{ __LINE__, "A B", "syntax: col 3: expected an operator" },
	{ __LINE__, "METRIC:k", "no event 'METRIC' to take the modifier ':k'" },
	{ __LINE__, "BAD:u", "no event or metric 'BAD'" },
};

START_TEST(test_refuse)
{
	char *why = NULL;
	char *s = perf_expr_translate(refuse_cases[_i].in, &env, &why);
	ck_assert_msg(!s, "line %d: '%s' translated to '%s'", refuse_cases[_i].line, refuse_cases[_i].in, s);
	ck_assert_msg(why && strstr(why, refuse_cases[_i].why), "line %d: '%s': reason '%s', expected '%s'",
		      refuse_cases[_i].line, refuse_cases[_i].in, why, refuse_cases[_i].why);
	free(why);
}
END_TEST

/* ---- CPU identification ------------------------------------------------------ */

START_TEST(test_cpuid_strings)
{
	char *why = NULL;
	char *s = perf_cpuid_string(CPUINFO "perf-import/ice-lake-sp.txt", &why);
	ck_assert_str_eq(s, "GenuineIntel-6-6A-6");
	free(s);
	s = perf_cpuid_string(CPUINFO "perf-import/zen2-rome.txt", &why);
	ck_assert_str_eq(s, "AuthenticAMD-23-31-0");
	free(s);
	/* Variant 1, revision 1 on the machine; the mapfile has them zero. */
	s = perf_cpuid_string(CPUINFO "perf-import/neoverse-v1-graviton3.txt", &why);
	ck_assert_str_eq(s, "0x00000000410fd400");
	free(s);
	ck_assert_ptr_null(perf_cpuid_string(CPUINFO "no-such-file.txt", &why));
	ck_assert_ptr_nonnull(strstr(why, "cannot open"));
	free(why);
}
END_TEST

START_TEST(test_mapfile_match)
{
	struct perf_cpu *map;
	char *why = NULL;
	int n = perf_map_read(ARCH, &map, &why);
	ck_assert_int_eq(n, 3);
	/* "6-6[AC]" has no stepping: the model alone is compared. */
	ck_assert_int_eq(perf_map_match(map, n, "GenuineIntel-6-6A-6"), 0);
	ck_assert_int_eq(perf_map_match(map, n, "GenuineIntel-6-6C-1"), 0);
	ck_assert_int_eq(perf_map_match(map, n, "GenuineIntel-6-6B-1"), -1);
	/* "6-55-[01234]" names steppings: Skylake-SP, not Cascade Lake (7). */
	ck_assert_int_eq(perf_map_match(map, n, "GenuineIntel-6-55-4"), 1);
	ck_assert_int_eq(perf_map_match(map, n, "GenuineIntel-6-55-7"), -1);
	/* A regular expression matches the whole identifier, not a part. */
	ck_assert_int_eq(perf_map_match(map, n, "GenuineIntel-6-6AA-1"), -1);
	ck_assert_int_eq(perf_map_match(map, n, "0x00000000410FD400"), 2);
	ck_assert_int_eq(perf_map_match(map, n, "0x00000000410fd490"), -1);
	perf_map_free(map, n);
	ck_assert_int_eq(perf_map_read(TOP_SRCDIR "/tests/fixtures", &map, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "no x86/mapfile.csv or arm64/mapfile.csv"));
	free(why);
}
END_TEST

/* perf's x86 mapfile patterns (Linux 6.12) and a few of other shapes:
 * perf_map_match, which skips the regex where a pattern's literal start,
 * bracket expression or group of alternatives rules a CPU out, picks
 * what the regex alone picks for every family, model and stepping. */
static const char *const map_patterns[] = {
	"GenuineIntel-6-(97|9A|B7|BA|BF)", "GenuineIntel-6-BE", "GenuineIntel-6-(1C|26|27|35|36)",
	"GenuineIntel-6-(3D|47)", "GenuineIntel-6-56", "GenuineIntel-6-4F", "GenuineIntel-6-55-[56789ABCDEF]",
	"GenuineIntel-6-9[6C]", "GenuineIntel-6-CF", "GenuineIntel-6-5[CF]", "GenuineIntel-6-7A", "GenuineIntel-6-B6",
	"GenuineIntel-6-A[DE]", "GenuineIntel-6-(3C|45|46)", "GenuineIntel-6-3F", "GenuineIntel-6-7[DE]",
	"GenuineIntel-6-6[AC]", "GenuineIntel-6-3A", "GenuineIntel-6-3E", "GenuineIntel-6-2D", "GenuineIntel-6-(57|85)",
	"GenuineIntel-6-BD", "GenuineIntel-6-A[AC]", "GenuineIntel-6-1[AEF]", "GenuineIntel-6-2E", "GenuineIntel-6-A7",
	"GenuineIntel-6-2A", "GenuineIntel-6-8F", "GenuineIntel-6-AF", "GenuineIntel-6-(37|4A|4C|4D|5A)",
	"GenuineIntel-6-(4E|5E|8E|9E|A5|A6)", "GenuineIntel-6-55-[01234]", "GenuineIntel-6-86", "GenuineIntel-6-8[CD]",
	"GenuineIntel-6-2C", "GenuineIntel-6-25", "GenuineIntel-6-2F", "GenuineIntel-6-1[0-3]?", "GenuineIntel-6-7[0-2]+",
	"GenuineIntel-6-(F0|F1)?", "GenuineIntel-6-(E(0|1)|E2)", "GenuineIntel-6-D.", "GenuineIntel-6-[^0-9]0",
	"AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])", "AuthenticAMD-23-[[:xdigit:]]+",
	"AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])", "AuthenticAMD-25-[[:xdigit:]]+", "AuthenticAMD-26-[[:xdigit:]]+",
};

START_TEST(test_mapfile_match_shapes)
{
	enum { N = ARRAY_SIZE(map_patterns) };
	struct perf_cpu map[N];
	regex_t re[N];
	int dashes[N];
	for (int i = 0; i < N; i++) {
		map[i] = (struct perf_cpu){ .arch = (char *)"x86", .id = (char *)map_patterns[i], .dir = (char *)"d" };
		char *a = xasprintf("^(%s)$", map_patterns[i]);
		ck_assert_int_eq(regcomp(&re[i], a, REG_EXTENDED | REG_NOSUB | REG_ICASE), 0);
		free(a);
		dashes[i] = 0;
		for (const char *p = map_patterns[i]; *p; p++)
			dashes[i] += *p == '-';
	}
	static const char *const vendors[] = { "GenuineIntel-6", "AuthenticAMD-23", "AuthenticAMD-25", "AuthenticAMD-26",
					       "GenuineIntel-19" };
	int hits = 0;
	for (size_t v = 0; v < ARRAY_SIZE(vendors); v++)
		for (int model = 0; model < 256; model++)
			for (int step = 0; step < 16; step += 5) {
				char id[64], cut[64];
				snprintf(id, sizeof(id), model & 1 ? "%s-%X-%X" : "%s-%x-%x", vendors[v], model, step);
				snprintf(cut, sizeof(cut), model & 1 ? "%s-%X" : "%s-%x", vendors[v], model);
				int want = -1;
				for (int i = 0; i < N && want < 0; i++)
					if (regexec(&re[i], dashes[i] < 3 ? cut : id, 0, NULL, 0) == 0)
						want = i;
				ck_assert_msg(perf_map_match(map, N, id) == want, "%s: line %d, the regex alone gives %d", id,
					      perf_map_match(map, N, id), want);
				hits += want >= 0;
			}
	ck_assert_int_gt(hits, 500);
	for (int i = 0; i < N; i++)
		regfree(&re[i]);
}
END_TEST

/* Writes text to dir/name, making dir/sub directories as needed. */
static void put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", path);
	ck_assert_int_eq(system(cmd), 0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(cmd);
	free(path);
}

/* Bad files give an error that names the file, the line and what was
 * expected; nothing outside the arch directory is read. */
/* ---- the JSON reader --------------------------------------------------------- */

/* perf_import_json.c against jansson's reader, which it replaced: the same
 * inputs accepted with equal values, the same refused, each refusal with
 * its line. */
static const struct { int src_line; const char *text; int err_line; } json_cases[] = {
	{ __LINE__, "[]", 0 },
	{ __LINE__, " {\n} ", 0 },
	{ __LINE__, "[{\"EventName\": \"A.B\", \"EventCode\": \"0x3c\", \"n\": 12, \"r\": -1.5e3}]", 0 },
	{ __LINE__, "[\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20ac \\ud83d\\ude00\"]", 0 },
	{ __LINE__, "[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]", 0 },
	{ __LINE__, "[true, false, null, 0, -0, 1.0, 2E-3, [[[]]], {\"a\": {\"b\": []}}]", 0 },
	{ __LINE__, "{\"k\": 1, \"k\": 2}", 0 },
	{ __LINE__, "[{\"EventName\": \"A\",\n  \"EventCode\": 0x1 }]", 2 },
	{ __LINE__, "", 1 },
	{ __LINE__, "\"top\"", 1 },
	{ __LINE__, "[1,]", 1 },
	{ __LINE__, "[1 2]", 1 },
	{ __LINE__, "{\"a\" 1}", 1 },
	{ __LINE__, "{1: 2}", 1 },
	{ __LINE__, "[01]", 1 },
	{ __LINE__, "[1.]", 1 },
	{ __LINE__, "[1e]", 1 },
	{ __LINE__, "[tru]", 1 },
	{ __LINE__, "[\"a\n\"]", 1 },
	{ __LINE__, "[\"\\x\"]", 1 },
	{ __LINE__, "[\"\\u00g0\"]", 1 },
	{ __LINE__, "[\"\\u0000\"]", 1 },
	{ __LINE__, "[\"\\udc00\"]", 1 },
	{ __LINE__, "[\"\\ud800x\"]", 1 },
	{ __LINE__, "[\"\xc0\xaf\"]", 1 },
	{ __LINE__, "[\"\xed\xa0\x80\"]", 1 },
	{ __LINE__, "[\"\xf4\x90\x80\x80\"]", 1 },
	{ __LINE__, "[\"cut\xe2\x82\"]", 1 },
	{ __LINE__, "[\"open", 1 },
	{ __LINE__, "[]\n\n]", 3 },
	{ __LINE__, "[99999999999999999999]", 1 },
	{ __LINE__, "[1e999]", 1 },
};

START_TEST(test_json_reader)
{
	for (size_t i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		const char *t = json_cases[i].text;
		char *why = NULL;
		json_t *ours = perf_json_parse(t, strlen(t), "t.json", &why);
		json_t *theirs = json_loadb(t, strlen(t), 0, NULL);
		ck_assert_msg(!ours == !theirs, "line %d: ours %s, jansson's %s (%s)", json_cases[i].src_line,
			      ours ? "accepts" : "refuses", theirs ? "accepts" : "refuses", why ? why : "");
		ck_assert_msg(!ours == (json_cases[i].err_line > 0), "line %d", json_cases[i].src_line);
		if (ours) {
			ck_assert_msg(json_equal(ours, theirs), "line %d: values differ", json_cases[i].src_line);
		} else {
			char *want = xasprintf("t.json:%d:", json_cases[i].err_line);
			ck_assert_msg(why && !strncmp(why, want, strlen(want)), "line %d: %s", json_cases[i].src_line,
				      why ? why : "no reason");
			free(want);
		}
		json_decref(ours);
		json_decref(theirs);
		free(why);
	}
	/* Nesting past jansson's depth is refused, not a deep recursion. */
	size_t deep = 5000;
	char *text = xmalloc(2 * deep + 1);
	memset(text, '[', deep);
	memset(text + deep, ']', deep);
	text[2 * deep] = '\0';
	char *why = NULL;
	ck_assert_ptr_null(perf_json_parse(text, 2 * deep, "t.json", &why));
	ck_assert_ptr_nonnull(strstr(why, "depth"));
	free(why);
	free(text);
	/* Every file of the fixtures, read from disk, as jansson reads it. */
	static const char *const files[] = { "x86/testlake/uncore-memory.json", "x86/testlake/pipeline.json",
					     "x86/testlake/tlx-metrics.json", "arm64/common-and-microarch.json", "arm64/arm/testverse/metrics.json" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = xasprintf("%s/%s", ARCH, files[i]);
		json_t *ours = perf_json_load(path, &why);
		json_t *theirs = json_load_file(path, 0, NULL);
		ck_assert_msg(ours && theirs && json_equal(ours, theirs), "%s: %s", path, why ? why : "differs");
		json_decref(ours);
		json_decref(theirs);
		free(path);
	}
	ck_assert_ptr_null(perf_json_load(ARCH "/x86/none.json", &why));
	ck_assert_ptr_nonnull(strstr(why, "none.json: cannot read"));
	free(why);
}
END_TEST

START_TEST(test_bad_files)
{
	char tmpl[] = "/tmp/check_perf_import.XXXXXX";
	char *dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	put(dir, "x86/mapfile.csv", "Family-model,Version,Filename,EventType\nGenuineIntel-6-6A,v1,../../etc,core\n");
	struct perf_cpu *map;
	char *why = NULL;
	ck_assert_int_eq(perf_map_read(dir, &map, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "x86/mapfile.csv:2: expected a directory below"));
	free(why);
	why = NULL;
	put(dir, "x86/mapfile.csv", "GenuineIntel-6-6A\n");
	ck_assert_int_eq(perf_map_read(dir, &map, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "x86/mapfile.csv:1: expected 'id,version,directory,type'"));
	free(why);
	why = NULL;
	put(dir, "x86/mapfile.csv", "GenuineIntel-6-6A,v1,broken,core\n");
	put(dir, "x86/broken/core.json", "[\n  { \"EventName\": \"A\",\n  \"EventCode\": 0x1 }\n]\n");
	ck_assert_ptr_null(perf_import_load(dir, EVENTS, "perf-broken", NULL, NULL, &why));
	ck_assert_msg(strstr(why, "x86/broken/core.json:3:"), "%s", why);
	free(why);
	char *rm = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(rm), 0);
	free(rm);
}
END_TEST

START_TEST(test_pick_prefers_hand_written)
{
	struct model_info *l;
	char *why = NULL;
	int n = model_list(EVENTS, &l, &why);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(perf_import_join(ARCH, EVENTS, &l, &n, &why), 0);
	ck_assert_ptr_nonnull(model_info_find(l, n, "perf-testlake"));
	char *note = NULL;
	/* Ice Lake-SP: intel-arch matches any family 6 CPU, perf's mapfile
	 * names the CPU itself. */
	char *got = perf_import_pick(CPUINFO "perf-import/ice-lake-sp.txt", ARCH, l, n, &note);
	ck_assert_str_eq(got, "perf-testlake");
	free(got);
	/* Sapphire Rapids: the hand-written model is made for it. */
	got = perf_import_pick(CPUINFO "perf-import/sapphire-rapids.txt", ARCH, l, n, &note);
	ck_assert_str_eq(got, "intel-spr");
	free(got);
	/* Without perf's files, the architectural fallback. */
	got = perf_import_pick(CPUINFO "perf-import/ice-lake-sp.txt", NULL, l, n, &note);
	ck_assert_str_eq(got, "intel-arch");
	free(got);
	free(note);
	model_list_free(l, n);
}
END_TEST

/* ---- whole imports ----------------------------------------------------------- */

static const struct event_def *event(const struct model *m, const char *name)
{
	int e = model_find_event(m, name);
	ck_assert_msg(e >= 0, "no event %s", name);
	return &m->events[e];
}

static const struct metric_def *metric(const struct model *m, const char *name)
{
	int j = model_find_metric(m, name);
	ck_assert_msg(j >= 0, "no metric %s", name);
	return &m->metrics[j];
}

START_TEST(test_import_x86)
{
	char *why = NULL, *skipped = NULL;
	struct perf_import_opts o = { .smt = true, .ncpus_online = 64, .npackages = 2 };
	struct model *m = perf_import_load(ARCH, EVENTS, "perf-testlake", &o, &skipped, &why);
	ck_assert_msg(m, "%s", why);
	ck_assert(m->imported);
	const struct pmu_def *core = &m->pmus[model_find_pmu(m, "core")];
	ck_assert_int_eq(core->counters, 8);
	ck_assert_int_eq(core->fixed, 4);
	/* Raw IA32_PERFEVTSELx values: event, umask, edge 18, inv 23, cmask 24-31. */
	/* The fixed counters' events as perf encodes them (jevents.py): the
	 * file's event 0 / umask 2 would count nothing on a real PMU (no
	 * kernel takes 0x0200 for fixed counter 1), nor would the older
	 * files' missing EventCode. */
	ck_assert_uint_eq(event(m, "inst_retired.any")->raw, 0xc0);
	ck_assert(event(m, "inst_retired.any")->flags & EVF_FIXED);
	ck_assert_uint_eq(event(m, "cpu_clk_unhalted.thread")->raw, 0x3c);
	ck_assert_uint_eq(event(m, "cpu_clk_unhalted.thread_any")->raw, 0x20003c);
	ck_assert_uint_eq(event(m, "cpu_clk_unhalted.ref")->raw, 0x300);
	ck_assert(event(m, "cpu_clk_unhalted.ref")->flags & EVF_FIXED);
	ck_assert_uint_eq(event(m, "topdown.slots")->raw, 0x400);
	ck_assert_uint_eq(event(m, "cycle_activity.stalls_total")->raw, 0x018404a3);
	ck_assert_uint_eq(event(m, "uops_issued.any")->raw, 0x010e);
	/* "Counter": "0,1,2,3" on an 8-counter core; all eight is no mask. */
	ck_assert_uint_eq(event(m, "cycle_activity.stalls_total")->counter_mask, 0xf);
	ck_assert_uint_eq(event(m, "uops_issued.any")->counter_mask, 0);
	/* The simulated kernel refuses five such events in one group. */
	int st = model_find_event(m, "cycle_activity.stalls_total");
	int five[5] = { st, st, st, st, st };
	char *mask_why = NULL;
	ck_assert_int_lt(sim_check_counter_masks(m, core, five, 5, &mask_why), 0);
	ck_assert_ptr_nonnull(strstr(mask_why, "counter masks"));
	free(mask_why);
	ck_assert_int_eq(sim_check_counter_masks(m, core, five, 4, NULL), 0);
	ck_assert_int_eq(model_find_event(m, "old.event"), -1);
	/* The variant a metric names: the same event with cmask 2. */
	ck_assert_uint_eq(event(m, "cycle_activity.stalls_total.cmask_2")->raw, 0x028404a3);
	/* An offcore event carries its MSR value in the kernel's field. */
	const struct event_def *ocr = event(m, "ocr.demand_data_rd.l3_miss");
	ck_assert_int_eq(ocr->enc, ENC_FIELDS);
	ck_assert_str_eq(ocr->spec, "event=0xb7,umask=0x1,offcore_rsp=0x3fbfc00001");
	/* PERF_METRICS: slots leads, the topdown events take no counter and
	 * fall back to nothing the files do not have. */
	ck_assert(event(m, "topdown.slots")->flags & EVF_SLOTS);
	const struct event_def *fe = event(m, "topdown_fe_bound");
	ck_assert(fe->flags & EVF_TOPDOWN);
	ck_assert_uint_eq(fe->raw, 0x8200);
	ck_assert_str_eq(fe->requires, "events/topdown-fe-bound");
	/* The uncore memory controller. */
	const struct event_def *cas = event(m, "unc_m_cas_count.rd");
	ck_assert_str_eq(m->pmus[cas->pmu].perf_name, "uncore_imc_*");
	ck_assert_int_eq(m->pmus[cas->pmu].scope, SCOPE_SOCKET);
	ck_assert_str_eq(cas->spec, "event=0x4,umask=0xf");
	/* Metrics: units, scales, topdown parents. */
	ck_assert_str_eq(metric(m, "uses_system")->perf, "uses_system");
	/* The common vocabulary (events/perf/common-intel.def): perf's TMA
	 * metrics under pmctop's names, perf's name kept; pmctop's metrics
	 * made of perf's events; a perf metric that has a common metric's
	 * name gives way. */
	ck_assert_int_eq(model_find_metric(m, "tma_retiring"), -1);
	ck_assert_str_eq(metric(m, "retiring")->perf, "tma_retiring");
	ck_assert_str_eq(metric(m, "retiring")->label, "Retiring");
	ck_assert_str_eq(metric(m, "retiring")->unit, "ratio");
	ck_assert_int_eq(metric(m, "retiring")->parent, METRIC_PARENT_WHOLE);
	ck_assert_int_eq(metric(m, "backend_bound_memory")->parent, model_find_metric(m, "backend_bound"));
	ck_assert_str_eq(metric(m, "backend_bound_memory")->perf, "tma_memory_bound");
	ck_assert_int_eq(metric(m, "backend_bound_cpu")->depth, 2);
	ck_assert_str_eq(metric(m, "ipc")->formula, "inst_retired.any / cpu_clk_unhalted.thread");
	ck_assert_str_eq(metric(m, "ipc")->label, "IPC");
	ck_assert_str_eq(metric(m, "ipc_metric")->perf, "ipc");
	ck_assert_str_eq(metric(m, "ghz")->formula, "cpu_clk_unhalted.thread / cpu_busy_ns");
	ck_assert_str_eq(metric(m, "mem_read_bw")->unit, "GB/s");
	/* Not made: the fixture has no branch events. */
	ck_assert_int_eq(model_find_metric(m, "branch_miss_ratio"), -1);
	ck_assert_str_eq(metric(m, "memory_bandwidth_read")->unit, "MB/s");
	ck_assert_int_eq(metric(m, "memory_bandwidth_read")->scope, SCOPE_SOCKET);
	ck_assert_str_eq(metric(m, "uops_per_slot")->formula, "((uops_issued.any / 2) / tma_info_thread_slots)");
	/* Row scope: #num_cpus_online is the row's CPUs, perf's TSC one CPU's
	 * time stamp counter; the machine's packages make a figure of the
	 * whole system, and so of whatever uses it. */
	ck_assert_str_eq(metric(m, "per_cpu_per_socket")->formula,
			 "((inst_retired.any / (cpu_online_ns / (interval_s * 1e9))) / 2)");
	ck_assert_int_eq(metric(m, "per_cpu_per_socket")->scope, SCOPE_SYSTEM);
	ck_assert_int_eq(metric(m, "uses_system")->scope, SCOPE_SYSTEM);
	ck_assert_int_eq(metric(m, "ipc")->scope, SCOPE_THREAD);
	ck_assert_ptr_nonnull(strstr(metric(m, "tsc_ghz")->formula, "(msr.tsc / (cpu_online_ns / (interval_s * 1e9)))"));
	ck_assert_int_eq(metric(m, "tsc_ghz")->scope, SCOPE_THREAD);
	/* Left out, with the reason and what depends on it. */
	ck_assert_int_eq(model_find_metric(m, "cond_on_counts"), -1);
	ck_assert_msg(strstr(skipped, "cond_on_counts: '") && strstr(skipped, "> 1' compares counts"), "%s", skipped);
	ck_assert_ptr_nonnull(strstr(skipped, "uses_cond: uses metric cond_on_counts, which is left out"));
	/* The kernel's msr PMU: no counter, and only the registers its
	 * sysfs events/ lists. */
	const struct event_def *smi = event(m, "msr.smi");
	ck_assert_str_eq(m->pmus[smi->pmu].perf_name, "msr");
	ck_assert_int_eq(m->pmus[smi->pmu].kind, PMU_SOFTWARE);
	ck_assert_str_eq(smi->spec, "event=0x04");
	ck_assert_str_eq(smi->requires, "events/smi");
	ck_assert_str_eq(metric(m, "smi_num")->formula, "msr.smi");
	/* The hand-written models' views: basic first (the default), the
	 * level-1 bar, level 2 with what the CPU has; a column the model
	 * cannot show is left out. */
	ck_assert_str_eq(m->views[0].name, "basic");
	ck_assert_int_eq(m->views[0].cols[1].metric, model_find_metric(m, "ghz"));
	const struct view_def *td = &m->views[model_find_view(m, "topdown")];
	ck_assert_int_eq(td->nbar, 4);
	ck_assert_int_eq(td->ncols, 5);
	/* Level 2: perf's two parts of backend bound, and the others from the
	 * kernel's topdown events (the fixture has PERF_METRICS). */
	const struct view_def *td2 = &m->views[model_find_view(m, "topdown_l2")];
	ck_assert_int_eq(td2->ncols, 8);
	ck_assert_int_eq(td2->nbar, 8);
	ck_assert_str_eq(metric(m, "retiring_microcode")->formula,
			 "topdown_heavy_ops / (topdown_fe_bound + topdown_bad_spec + topdown_be_bound + topdown_retiring)");
	ck_assert_int_ge(model_find_view(m, "memory"), 0);
	ck_assert_int_ge(model_find_metric(m, "util"), 0);   /* pmctop's own software metrics */
	free(skipped);
	model_free(m);

	/* #SMT_on off: the other branch; the packages unknown: left out (the
	 * CPUs online are each row's, so they are always known). */
	o = (struct perf_import_opts){ .smt = false };
	m = perf_import_load(ARCH, EVENTS, "perf-testlake", &o, &skipped, &why);
	ck_assert_str_eq(metric(m, "uops_per_slot")->formula, "(uops_issued.any / tma_info_thread_slots)");
	ck_assert_ptr_nonnull(strstr(skipped, "per_cpu_per_socket: #num_packages is not known"));
	ck_assert_int_ge(model_find_metric(m, "tsc_ghz"), 0);
	free(skipped);
	model_free(m);
}
END_TEST

START_TEST(test_import_arm)
{
	char *why = NULL, *skipped = NULL;
	struct model *m = perf_import_load(ARCH, EVENTS, "perf-testverse", NULL, &skipped, &why);
	ck_assert_msg(m, "%s", why);
	ck_assert_str_eq(m->pmus[model_find_pmu(m, "core")].perf_name, "armv8_pmuv3_0");
	ck_assert_uint_eq(event(m, "cpu_cycles")->raw, 0x11);
	ck_assert(event(m, "cpu_cycles")->flags & EVF_FIXED);   /* the cycle counter */
	ck_assert_uint_eq(event(m, "inst_retired")->raw, 0x08);
	ck_assert_uint_eq(event(m, "event_0x201d")->raw, 0x201d);
	ck_assert_str_eq(metric(m, "raw_ratio")->formula, "(event_0x201d / cpu_cycles)");
	/* sbsa.json's standard metric needs #slots, which models.txt does not
	 * give for this made-up core. */
	ck_assert_ptr_nonnull(strstr(skipped, "stalled_slots: #slots is not known"));
	free(skipped);
	model_free(m);
	ck_assert_ptr_null(perf_import_load(ARCH, EVENTS, "perf-nothing", NULL, NULL, &why));
	ck_assert_ptr_nonnull(strstr(why, "no CPU directory"));
	free(why);
}
END_TEST

/* Bounded inputs: a FIFO among the JSON files is refused by name at once
 * (its open once blocked start-up for ever), a file over the size limit is
 * refused without being read, and mapfile patterns that would make
 * regcomp() expand them into gigabytes are refused with file:line, while
 * every shape perf's own mapfiles use is still taken. */
static const char *const map_ok[] = {
	"GenuineIntel-6-(97|9A|B7|BA|BF)", "GenuineIntel-6-[4589]E", "AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])",
	"0x004[bcd][[:xdigit:]]{4}", "^IBM.390[67].*[13]\\.[1-5].[[:xdigit:]]+$", "0x67e-0x80000000db0000[89]0-0x[[:xdigit:]]+",
	"GenuineIntel-6-(1[AE]|2E)", "(a|b){3}x+",
};
static const struct {
	int src_line;
	const char *pattern, *why;
} map_bad[] = {
	{ __LINE__, "GenuineIntel-6-((6{255}){255}){255}", "a repetition count over 32" },
	{ __LINE__, "GenuineIntel-6-((6{2}){2}){2}", "a repeated group that holds a repetition" },
	{ __LINE__, "GenuineIntel-6-(6+)*", "a repeated group that holds a repetition" },
	{ __LINE__, "GenuineIntel-6-((a|(b+)c)d)?", "a repeated group that holds a repetition" },
	{ __LINE__, "GenuineIntel-6-6{33}", "a repetition count over 32" },
	{ __LINE__, "GenuineIntel-6-6{99999999999999999999}", "a repetition count over 32" },
	{ __LINE__, "GenuineIntel-6-(((((((((((((((((6)))))))))))))))))", "nested more than 16 deep" },
	{ __LINE__, "GenuineIntel-6-[6", "a '[' without its ']'" },
	{ __LINE__, "GenuineIntel-6-\\.{99}", "a repetition count over 32" },
	{ __LINE__, "GenuineIntel-6-6*{20}", "a repetition of nothing or of a repetition" },
	{ __LINE__, "GenuineIntel-6-6{2}{2}", "a repetition of nothing or of a repetition" },
	{ __LINE__, "*GenuineIntel", "a repetition of nothing or of a repetition" },
	{ __LINE__, "GenuineIntel-6-6)", "a ')' without its '('" },
};

START_TEST(test_bounded_inputs)
{
	char tmpl[] = "/tmp/check_perf_import.XXXXXX";
	char *dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	struct perf_cpu *map;
	char *why = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(map_ok); i++) {
		char *text = xasprintf("Family-model,Version,Filename,EventType\n%s,v1,ok,core\n", map_ok[i]);
		put(dir, "x86/mapfile.csv", text);
		free(text);
		int n = perf_map_read(dir, &map, &why);
		ck_assert_msg(n == 1, "%s: %s", map_ok[i], why ? why : "");
		perf_map_free(map, n);
	}
	for (size_t i = 0; i < ARRAY_SIZE(map_bad); i++) {
		char *text = xasprintf("Family-model,Version,Filename,EventType\n%s,v1,bad,core\n", map_bad[i].pattern);
		put(dir, "x86/mapfile.csv", text);
		free(text);
		ck_assert_msg(perf_map_read(dir, &map, &why) == -1, "line %d: taken", map_bad[i].src_line);
		ck_assert_msg(strstr(why, "x86/mapfile.csv:2: ") && strstr(why, map_bad[i].why), "line %d: %s",
			      map_bad[i].src_line, why);
		free(why);
		why = NULL;
	}
	char *longer = xmalloc(200);
	memset(longer, 'A', 199);
	longer[199] = '\0';
	char *text = xasprintf("%s,v1,long,core\n", longer);
	put(dir, "x86/mapfile.csv", text);
	ck_assert_int_eq(perf_map_read(dir, &map, &why), -1);
	ck_assert_msg(strstr(why, "x86/mapfile.csv:1: ") && strstr(why, "longer than 128 characters"), "%s", why);
	ck_assert_ptr_null(strstr(why, "AAAA"));
	free(why);
	why = NULL;
	free(text);
	free(longer);

	/* A FIFO: refused by name, not waited on (this test timed out). */
	put(dir, "x86/mapfile.csv", "GenuineIntel-6-6A,v1,fifo,core\n");
	put(dir, "x86/fifo/cache.json", "[]\n");
	char *fifo = xasprintf("%s/x86/fifo/pipeline.json", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_ptr_null(perf_json_load(fifo, &why));
	ck_assert_msg(strstr(why, "pipeline.json: cannot read: not a regular file"), "%s", why);
	free(why);
	why = NULL;
	ck_assert_ptr_null(perf_import_load(dir, EVENTS, "perf-fifo", NULL, NULL, &why));
	ck_assert_msg(strstr(why, "x86/fifo/pipeline.json: cannot read: not a regular file"), "%s", why);
	free(why);
	why = NULL;
	free(fifo);

	/* Over the size limit (a sparse file: nothing is written). */
	char *big = xasprintf("%s/x86/big.json", dir);
	FILE *f = fopen(big, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ftruncate(fileno(f), (off_t)17 << 20), 0);
	fclose(f);
	ck_assert_ptr_null(perf_json_load(big, &why));
	ck_assert_msg(strstr(why, "big.json: 17825792 bytes, more than the 16 MiB"), "%s", why);
	free(why);
	free(big);
	char *rm = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(rm), 0);
	free(rm);
}
END_TEST

/* ~/.local/share/pmctop/perf-events is the user's: where pmctop is
 * privileged (root under sudo -E, forced on here) it is taken only if it
 * belongs to the effective user, is no symlink and nobody else may write
 * it; else the search goes on to the system's directories. */
START_TEST(test_user_perf_events_dir)
{
	char tmpl[] = "/tmp/check_perf_import.XXXXXX";
	char *home = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(home);
	char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *old_env = getenv("PMCTOP_PERF_EVENTS") ? xstrdup(getenv("PMCTOP_PERF_EVENTS")) : NULL;
	setenv("HOME", home, 1);
	unsetenv("PMCTOP_PERF_EVENTS");
	user_files_force_rule(true);
	char *mine = xasprintf("%s/.local/share/pmctop/perf-events", home);
	put(mine, "x86/mapfile.csv", "GenuineIntel-6-6A,v1,x,core\n");
	ck_assert_int_eq(chmod(mine, 0755), 0);
	char *root = perf_import_root(NULL);
	ck_assert_msg(root && !strcmp(root, mine), "%s", root ? root : "(none)");
	free(root);
	ck_assert_int_eq(chmod(mine, 0777), 0);
	root = perf_import_root(NULL);
	ck_assert_msg(!root || strcmp(root, mine), "a directory others may write was taken");
	free(root);
	ck_assert_int_eq(chmod(mine, 0755), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(mine, 65534, 65534), 0);
		root = perf_import_root(NULL);
		ck_assert_msg(!root || strcmp(root, mine), "another user's directory was taken");
		free(root);
	}
	user_files_force_rule(false);
	if (old_home)
		setenv("HOME", old_home, 1);
	if (old_env)
		setenv("PMCTOP_PERF_EVENTS", old_env, 1);
	free(old_home);
	free(old_env);
	char *rm = xasprintf("rm -rf '%s'", home);
	ck_assert_int_eq(system(rm), 0);
	free(rm);
	free(mine);
}
END_TEST

static Suite *perf_import_suite(void)
{
	Suite *s = suite_create("perf_import");
	TCase *tc = tcase_create("translate");
	tcase_add_loop_test(tc, test_translate, 0, (int)ARRAY_SIZE(tr_cases));
	tcase_add_loop_test(tc, test_refuse, 0, (int)ARRAY_SIZE(refuse_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("identify");
	tcase_add_test(tc, test_cpuid_strings);
	tcase_add_test(tc, test_mapfile_match);
	tcase_add_test(tc, test_mapfile_match_shapes);
	tcase_add_test(tc, test_pick_prefers_hand_written);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_json_reader);
	tcase_add_test(tc, test_bounded_inputs);
	tcase_add_test(tc, test_user_perf_events_dir);
	suite_add_tcase(s, tc);
	tc = tcase_create("import");
	tcase_add_test(tc, test_import_x86);
	tcase_add_test(tc, test_import_arm);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(perf_import_suite());
}
