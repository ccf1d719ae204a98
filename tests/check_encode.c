/* check_encode.c: tests for src/encode.c. Raw vendor values are encoded
 * against sysfs fixtures that copy the kernel's format/ files (a Zen 5 with
 * amd_l3 and amd_umc_N, an Intel core PMU); libpfm4 names are encoded with
 * LIBPFM_FORCE_PMU so that the results do not depend on the build machine.
 * Check forks every test, so each one may force its own libpfm4 PMU before
 * the first (and only) pfm_initialize() in that process. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "evdef.h"
#include "util.h"

#define ZEN5_SYSFS TOP_SRCDIR "/tests/fixtures/pmu/zen5"
#define INTEL_SYSFS TOP_SRCDIR "/tests/fixtures/pmu/intel"

/* A hand-built model with the PMUs of the Zen 5 and Intel definitions, so
 * that the encoder is tested independently of the definition parser. */
enum { P_ZEN_CORE, P_ZEN_L3, P_ZEN_UMC, P_INTEL_CORE, P_SOFTWARE, P_HW, P_PROC, P_COUNT };

static struct hw_field zen_core_fields[] = {
	{ "event", 2, { { 0, 7 }, { 32, 35 } } },
	{ "umask", 1, { { 8, 15 } } },
	{ "edge", 1, { { 18, 18 } } },
	{ "inv", 1, { { 23, 23 } } },
	{ "cmask", 1, { { 24, 31 } } },
};
static struct hw_field zen_l3_fields[] = {
	{ "event", 1, { { 0, 7 } } },
	{ "umask", 1, { { 8, 15 } } },
	{ "coreid", 1, { { 42, 44 } } },
	{ "enallslices", 1, { { 46, 46 } } },
	{ "enallcores", 1, { { 47, 47 } } },
	{ "sliceid", 1, { { 48, 50 } } },
	{ "threadmask", 1, { { 56, 57 } } },
};
static struct hw_field zen_umc_fields[] = {
	{ "event", 1, { { 0, 7 } } },
	{ "rdwrmask", 1, { { 8, 9 } } },
};
static struct hw_field intel_fields[] = {
	{ "event", 1, { { 0, 7 } } },
	{ "umask", 1, { { 8, 15 } } },
	{ "edge", 1, { { 18, 18 } } },
	{ "pc", 1, { { 19, 19 } } },
	{ "any", 1, { { 21, 21 } } },
	{ "inv", 1, { { 23, 23 } } },
	{ "cmask", 1, { { 24, 31 } } },
};

#define BITS(lo, hi) ((((hi) - (lo) == 63) ? ~0ULL : ((1ULL << ((hi) - (lo) + 1)) - 1)) << (lo))

static struct pmu_def pmus[P_COUNT] = {
	[P_ZEN_CORE] = { .name = "core", .perf_name = "cpu", .kind = PMU_CORE,
			 .counters = 6, .notation = "Event",
			 .nfields = ARRAY_SIZE(zen_core_fields), .fields = zen_core_fields },
	[P_ZEN_L3] = { .name = "l3", .perf_name = "amd_l3", .kind = PMU_UNCORE,
		       .scope = SCOPE_CCX, .counters = 6, .notation = "L3Event",
		       .nfields = ARRAY_SIZE(zen_l3_fields), .fields = zen_l3_fields },
	[P_ZEN_UMC] = { .name = "umc", .perf_name = "amd_umc_*", .kind = PMU_UNCORE,
			.scope = SCOPE_SOCKET, .counters = 4, .notation = "UMCEvent",
			.nfields = ARRAY_SIZE(zen_umc_fields), .fields = zen_umc_fields },
	[P_INTEL_CORE] = { .name = "core", .perf_name = "cpu", .kind = PMU_CORE,
			   .counters = 4, .fixed = 3, .notation = "Event",
			   .nfields = ARRAY_SIZE(intel_fields), .fields = intel_fields },
	[P_SOFTWARE] = { .name = "software", .perf_name = "software", .kind = PMU_SOFTWARE },
	[P_HW] = { .name = "hw", .perf_name = "hardware", .kind = PMU_CORE },
	[P_PROC] = { .name = "proc", .perf_name = "proc", .kind = PMU_PROC },
};

static struct model test_model = { .name = "test", .npmus = P_COUNT, .pmus = pmus };

static void setup_masks(void)
{
	/* USR, OS, Int, En on the core PMUs; En on the L3 (ChL3PmcCfg bit 22). */
	pmus[P_ZEN_CORE].ignore_mask = BITS(16, 17) | BITS(20, 20) | BITS(22, 22);
	pmus[P_INTEL_CORE].ignore_mask = BITS(16, 17) | BITS(20, 20) | BITS(22, 22);
	pmus[P_ZEN_L3].ignore_mask = BITS(22, 22);
}

static struct event_def raw_event(int pmu, uint64_t raw)
{
	struct event_def ev = { .name = "test_event", .pmu = pmu, .enc = ENC_RAW, .raw = raw,
				.arch_bit = -1 };
	return ev;
}

static struct event_def spec_event(int pmu, enum enc_kind enc, const char *spec)
{
	struct event_def ev = { .name = "test_event", .pmu = pmu, .enc = enc,
				.spec = (char *)spec, .arch_bit = -1 };
	return ev;
}

/* ---- raw vendor values ------------------------------------------------ */

static const struct {
	int line;
	int pmu;
	const char *perf_pmu;
	const char *sysfs;
	uint64_t raw;
	uint32_t type;
	uint64_t config;
} raw_cases[] = {
	/* Zen 5 core (seed 000): USR/OS/En dropped, EventSelect[11:8] to 35:32. */
	{ __LINE__, P_ZEN_CORE, "cpu", ZEN5_SYSFS, 0x4300C0, 4, 0xC0 },
	{ __LINE__, P_ZEN_CORE, "cpu", ZEN5_SYSFS, 0x4300C3, 4, 0xC3 },
	{ __LINE__, P_ZEN_CORE, "cpu", ZEN5_SYSFS, 0x1004301A0, 4, 0x1000001A0 },
	{ __LINE__, P_ZEN_CORE, "cpu", ZEN5_SYSFS, 0x1064301A0, 4, 0x1060001A0 },
	{ __LINE__, P_ZEN_CORE, "cpu", ZEN5_SYSFS, 0x43FF03, 4, 0xFF03 },
	/* Edge (18) and Inv (23) stay, En (22) goes. */
	{ __LINE__, P_ZEN_CORE, "cpu", ZEN5_SYSFS, 0x01C40076, 4, 0x01840076 },
	/* Zen 5 L3 (seed 000 1.5), through amd_l3's format files. */
	{ __LINE__, P_ZEN_L3, "amd_l3", ZEN5_SYSFS, 0x0300C0000040FF04, 11, 0x0300C0000000FF04 },
	{ __LINE__, P_ZEN_L3, "amd_l3", ZEN5_SYSFS, 0x0303C00000403FAC, 11, 0x0303C00000003FAC },
	{ __LINE__, P_ZEN_L3, "amd_l3", ZEN5_SYSFS, 0x0303C00000400FAD, 11, 0x0303C00000000FAD },
	/* UMC: the concrete PMU instance decides the type. */
	{ __LINE__, P_ZEN_UMC, "amd_umc_0", ZEN5_SYSFS, 0x0A, 12, 0x0A },
	{ __LINE__, P_ZEN_UMC, "amd_umc_1", ZEN5_SYSFS, 0x0A, 13, 0x0A },
	{ __LINE__, P_ZEN_UMC, "amd_umc_1", ZEN5_SYSFS, 0x114, 13, 0x114 },
	/* Intel architectural events (seed 003), USR+OS+En set as the SDM's
	 * tables are usually written, and without them. */
	{ __LINE__, P_INTEL_CORE, "cpu", INTEL_SYSFS, 0x3C, 4, 0x3C },
	{ __LINE__, P_INTEL_CORE, "cpu", INTEL_SYSFS, 0x4300C0, 4, 0xC0 },
	{ __LINE__, P_INTEL_CORE, "cpu", INTEL_SYSFS, 0x412E, 4, 0x412E },
	{ __LINE__, P_INTEL_CORE, "cpu", INTEL_SYSFS, 0x434F2E, 4, 0x4F2E },
	{ __LINE__, P_INTEL_CORE, "cpu", INTEL_SYSFS, 0x1A3C0, 4, 0x1A3C0 & ~0x10000ULL },
	{ __LINE__, P_INTEL_CORE, "cpu", INTEL_SYSFS, 0x01A400C0, 4, 0x01A400C0 & ~BITS(22, 22) },
};

START_TEST(test_raw_table)
{
	setup_masks();
	struct event_def ev = raw_event(raw_cases[_i].pmu, raw_cases[_i].raw);
	struct perf_event_attr attr;
	char *cause = NULL;
	int rc = encode_event(&test_model, &ev, raw_cases[_i].perf_pmu, raw_cases[_i].sysfs,
			      &attr, &cause);
	ck_assert_msg(rc == 0, "line %d: rc %d: %s", raw_cases[_i].line, rc, cause ? cause : "");
	ck_assert_msg(attr.type == raw_cases[_i].type, "line %d: type %u", raw_cases[_i].line,
		      attr.type);
	ck_assert_msg(attr.config == raw_cases[_i].config,
		      "line %d: config 0x%" PRIx64 ", expected 0x%" PRIx64, raw_cases[_i].line,
		      (uint64_t)attr.config, raw_cases[_i].config);
	ck_assert_uint_eq(attr.config1, 0);
	/* pmctop counts user and kernel: USR/OS never become exclude_*. */
	ck_assert_int_eq(attr.exclude_user, 0);
	ck_assert_int_eq(attr.exclude_kernel, 0);
	ck_assert_uint_eq(attr.size, sizeof(attr));
	free(cause);
}
END_TEST

START_TEST(test_raw_fields_split)
{
	setup_masks();
	const char *names[8];
	uint64_t values[8];
	int n = encode_raw_fields(&pmus[P_ZEN_CORE], 0x1064301A0, names, values, 8);
	ck_assert_int_eq(n, 5);
	ck_assert_str_eq(names[0], "event");
	ck_assert_uint_eq(values[0], 0x1A0);
	ck_assert_str_eq(names[1], "umask");
	ck_assert_uint_eq(values[1], 0x01);
	ck_assert_uint_eq(values[2], 0); /* edge */
	ck_assert_uint_eq(values[3], 0); /* inv */
	ck_assert_str_eq(names[4], "cmask");
	ck_assert_uint_eq(values[4], 6);

	n = encode_raw_fields(&pmus[P_ZEN_L3], 0x0303C00000403FAC, names, values, 8);
	ck_assert_int_eq(n, 7);
	ck_assert_uint_eq(values[0], 0xAC);
	ck_assert_uint_eq(values[1], 0x3F);
	ck_assert_uint_eq(values[2], 0);  /* coreid */
	ck_assert_uint_eq(values[3], 1);  /* enallslices */
	ck_assert_uint_eq(values[4], 1);  /* enallcores */
	ck_assert_str_eq(names[5], "sliceid");
	ck_assert_uint_eq(values[5], 3);
	ck_assert_str_eq(names[6], "threadmask");
	ck_assert_uint_eq(values[6], 3);

	/* max limits the output. */
	n = encode_raw_fields(&pmus[P_ZEN_L3], 0x0303C00000403FAC, names, values, 2);
	ck_assert_int_eq(n, 2);
}
END_TEST

START_TEST(test_raw_missing_pmu)
{
	setup_masks();
	struct event_def ev = raw_event(P_ZEN_L3, 0x0300C0000040FF04);
	struct perf_event_attr attr;
	char *cause = NULL;
	int rc = encode_event(&test_model, &ev, "amd_l3", INTEL_SYSFS, &attr, &cause);
	ck_assert_int_eq(rc, -ENOENT);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "amd_l3") && strstr(cause, "not present"), "%s", cause);
	free(cause);
}
END_TEST

START_TEST(test_raw_missing_format)
{
	setup_masks();
	/* A core value with Edge set, sent to a UMC PMU that has no edge field. */
	struct event_def ev = raw_event(P_ZEN_CORE, 0x440076);
	struct perf_event_attr attr;
	char *cause = NULL;
	int rc = encode_event(&test_model, &ev, "amd_umc_0", ZEN5_SYSFS, &attr, &cause);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "edge") && strstr(cause, "amd_umc_0"), "%s", cause);
	free(cause);

	/* The same value without Edge only needs event: it encodes. */
	ev.raw = 0x400076;
	ck_assert_int_eq(encode_event(&test_model, &ev, "amd_umc_0", ZEN5_SYSFS, &attr, NULL), 0);
	ck_assert_uint_eq(attr.config, 0x76);
	ck_assert_uint_eq(attr.type, 12);
}
END_TEST

START_TEST(test_raw_unmapped_bits)
{
	setup_masks();
	/* Bit 40 is in no Zen 5 core field and not owned by the kernel. */
	struct event_def ev = raw_event(P_ZEN_CORE, (1ULL << 40) | 0x4300C0);
	struct perf_event_attr attr;
	char *cause = NULL;
	ck_assert_int_eq(encode_event(&test_model, &ev, "cpu", ZEN5_SYSFS, &attr, &cause), -EINVAL);
	ck_assert_msg(cause && strstr(cause, "outside"), "%s", cause ? cause : "");
	free(cause);
}
END_TEST

/* ---- named sysfs fields ------------------------------------------------ */

static const struct {
	int line;
	int pmu;
	const char *perf_pmu;
	const char *spec;
	int rc;
	uint64_t config;
} fields_cases[] = {
	{ __LINE__, P_ZEN_L3, "amd_l3", "event=0x04,umask=0xff,enallcores=1", 0, 0x80000000FF04 },
	{ __LINE__, P_ZEN_L3, "amd_l3",
	  "event=0xac,umask=0x3f,sliceid=3,threadmask=3,enallcores=1,enallslices=1", 0,
	  0x0303C00000003FAC },
	{ __LINE__, P_ZEN_L3, "amd_l3", "event=0x04,enallslices", 0, 0x400000000004 },
	{ __LINE__, P_ZEN_UMC, "amd_umc_0", "event=0x0a,rdwrmask=1", 0, 0x10A },
	{ __LINE__, P_ZEN_CORE, "cpu", "event=0x1a0,umask=0x1", 0, 0x1000001A0 },
	{ __LINE__, P_ZEN_CORE, "cpu", "config=0x4300c0", 0, 0x4300C0 },
	/* Errors: a value wider than its field, an unknown field, a bad number. */
	{ __LINE__, P_ZEN_UMC, "amd_umc_0", "event=0x0a,rdwrmask=4", -EINVAL, 0 },
	{ __LINE__, P_ZEN_L3, "amd_l3", "event=0x04,bogus=1", -EINVAL, 0 },
	{ __LINE__, P_ZEN_L3, "amd_l3", "event=zz", -EINVAL, 0 },
	{ __LINE__, P_ZEN_L3, "amd_l3", "", -EINVAL, 0 },
	{ __LINE__, P_ZEN_L3, "amd_l3_missing", "event=1", -ENOENT, 0 },
};

START_TEST(test_fields_table)
{
	struct event_def ev = spec_event(fields_cases[_i].pmu, ENC_FIELDS, fields_cases[_i].spec);
	struct perf_event_attr attr;
	char *cause = NULL;
	int rc = encode_event(&test_model, &ev, fields_cases[_i].perf_pmu, ZEN5_SYSFS, &attr,
			      &cause);
	ck_assert_msg(rc == fields_cases[_i].rc, "line %d: rc %d (%s)", fields_cases[_i].line, rc,
		      cause ? cause : "");
	if (rc == 0)
		ck_assert_msg(attr.config == fields_cases[_i].config,
			      "line %d: config 0x%" PRIx64, fields_cases[_i].line,
			      (uint64_t)attr.config);
	else
		ck_assert_msg(cause != NULL, "line %d: no cause", fields_cases[_i].line);
	free(cause);
}
END_TEST

/* ---- perf generic and software ---------------------------------------- */

static const struct {
	const char *spec;
	uint32_t type;
	uint64_t config;
} perf_cases[] = {
	{ "hardware:cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "hardware:instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "hardware:cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "hardware:cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "hardware:branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "hardware:branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "hardware:ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "hardware:stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "hardware:stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "hardware:bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "software:task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "software:cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "software:context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "software:cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "software:page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "software:minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "software:major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

START_TEST(test_perf_table)
{
	struct event_def ev = spec_event(P_SOFTWARE, ENC_PERF, perf_cases[_i].spec);
	struct perf_event_attr attr;
	char *cause = NULL;
	/* No sysfs at all is needed for perf's generic events. */
	int rc = encode_event(&test_model, &ev, "software", "/nonexistent", &attr, &cause);
	ck_assert_msg(rc == 0, "%s: %s", perf_cases[_i].spec, cause ? cause : "");
	ck_assert_uint_eq(attr.type, perf_cases[_i].type);
	ck_assert_uint_eq(attr.config, perf_cases[_i].config);
	ck_assert_int_eq(attr.exclude_user, 0);
	ck_assert_int_eq(attr.exclude_kernel, 0);
}
END_TEST

START_TEST(test_perf_errors)
{
	const char *bad[] = { "hardware:cyclez", "cycles", "software:", "", "tracepoint:x" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct event_def ev = spec_event(P_SOFTWARE, ENC_PERF, bad[i]);
		struct perf_event_attr attr;
		char *cause = NULL;
		ck_assert_int_eq(encode_event(&test_model, &ev, NULL, NULL, &attr, &cause), -EINVAL);
		ck_assert_msg(cause && strstr(cause, "unknown perf event"), "%s", bad[i]);
		free(cause);
	}
	struct event_def ev = spec_event(P_PROC, ENC_PROC, "busy_ns");
	struct perf_event_attr attr;
	char *cause = NULL;
	ck_assert_int_eq(encode_event(&test_model, &ev, "proc", NULL, &attr, &cause), -EINVAL);
	ck_assert_ptr_nonnull(cause);
	free(cause);
}
END_TEST

/* ---- vendor notation -------------------------------------------------- */

START_TEST(test_notation)
{
	setup_masks();
	static const struct { int pmu; enum enc_kind enc; uint64_t raw; const char *spec;
			      const char *want; } cases[] = {
		{ P_ZEN_CORE, ENC_RAW, 0x4300C3, NULL, "Event[0x4300C3]" },
		{ P_ZEN_CORE, ENC_RAW, 0x1004301A0, NULL, "Event[0x1004301A0]" },
		{ P_ZEN_L3, ENC_RAW, 0x0300C0000040FF04, NULL, "L3Event[0x0300C0000040FF04]" },
		{ P_ZEN_L3, ENC_RAW, 0x40FF04, NULL, "L3Event[0x000000000040FF04]" },
		{ P_ZEN_UMC, ENC_RAW, 0x0A, NULL, "UMCEvent[0xA]" },
		{ P_HW, ENC_PERF, 0, "hardware:cycles", "perf:hardware:cycles" },
		{ P_SOFTWARE, ENC_PERF, 0, "software:task-clock", "perf:software:task-clock" },
		{ P_ZEN_L3, ENC_FIELDS, 0, "event=0x04,umask=0xff", "amd_l3/event=0x04,umask=0xff/" },
		{ P_PROC, ENC_PROC, 0, "busy_ns", "proc:busy_ns" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct event_def ev = { .name = "e", .pmu = cases[i].pmu, .enc = cases[i].enc,
					.raw = cases[i].raw, .spec = (char *)cases[i].spec };
		char *s = encode_vendor_notation(&test_model, &ev);
		ck_assert_str_eq(s, cases[i].want);
		free(s);
	}
}
END_TEST

/* ---- libpfm4 ------------------------------------------------------------ */

START_TEST(test_pfm_notation_core2)
{
	setenv("LIBPFM_FORCE_PMU", "core", 1);
	struct event_def ev = spec_event(P_INTEL_CORE, ENC_PFM, "INST_RETIRED:ANY_P");
	char *s = encode_vendor_notation(&test_model, &ev);
	ck_assert_str_eq(s, "pfm:INST_RETIRED:ANY_P(config=0xc0)");
	free(s);
}
END_TEST

START_TEST(test_pfm_unknown)
{
	setenv("LIBPFM_FORCE_PMU", "core", 1);
	/* A Westmere-only event is not known to the forced Core 2 PMU. */
	struct event_def ev = spec_event(P_INTEL_CORE, ENC_PFM, "MEM_LOAD_RETIRED:LLC_MISS");
	struct perf_event_attr attr;
	char *cause = NULL;
	ck_assert_int_eq(encode_event(&test_model, &ev, "cpu", NULL, &attr, &cause), -ENOENT);
	ck_assert_msg(cause && strstr(cause, "MEM_LOAD_RETIRED:LLC_MISS") && strstr(cause, "core"),
		      "%s", cause ? cause : "");
	free(cause);
	ev.spec = "NO_SUCH_EVENT_ANYWHERE";
	ck_assert_int_eq(encode_event(&test_model, &ev, "cpu", NULL, &attr, NULL), -ENOENT);
}
END_TEST

struct pfm_case {
	const char *spec;
	uint64_t config;
};

static void check_pfm_cases(const char *force, const struct pfm_case *c, size_t n)
{
	setenv("LIBPFM_FORCE_PMU", force, 1);
	ck_assert_int_eq(encode_pfm_init(NULL), 0);
	for (size_t i = 0; i < n; i++) {
		struct event_def ev = spec_event(P_INTEL_CORE, ENC_PFM, c[i].spec);
		struct perf_event_attr attr;
		char *cause = NULL;
		int rc = encode_event(&test_model, &ev, "cpu", "/nonexistent", &attr, &cause);
		ck_assert_msg(rc == 0, "%s on %s: %s", c[i].spec, force, cause ? cause : "");
		ck_assert_msg(attr.type == PERF_TYPE_RAW, "%s: type %u", c[i].spec, attr.type);
		ck_assert_msg(attr.config == c[i].config, "%s on %s: config 0x%" PRIx64
			      ", expected 0x%" PRIx64, c[i].spec, force, (uint64_t)attr.config,
			      c[i].config);
		ck_assert_int_eq(attr.exclude_user, 0);
		ck_assert_int_eq(attr.exclude_kernel, 0);
		free(cause);
	}
}

START_TEST(test_pfm_basic_core2)
{
	static const struct pfm_case c[] = {
		{ "INST_RETIRED:ANY_P", 0xc0 },
		{ "UNHALTED_CORE_CYCLES", 0x3c },
	};
	check_pfm_cases("core", c, ARRAY_SIZE(c));
}
END_TEST

static Suite *encode_suite(void)
{
	Suite *s = suite_create("encode");
	TCase *tc = tcase_create("raw");
	tcase_add_loop_test(tc, test_raw_table, 0, ARRAY_SIZE(raw_cases));
	tcase_add_test(tc, test_raw_fields_split);
	tcase_add_test(tc, test_raw_missing_pmu);
	tcase_add_test(tc, test_raw_missing_format);
	tcase_add_test(tc, test_raw_unmapped_bits);
	suite_add_tcase(s, tc);

	tc = tcase_create("fields");
	tcase_add_loop_test(tc, test_fields_table, 0, ARRAY_SIZE(fields_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("perf");
	tcase_add_loop_test(tc, test_perf_table, 0, ARRAY_SIZE(perf_cases));
	tcase_add_test(tc, test_perf_errors);
	tcase_add_test(tc, test_notation);
	suite_add_tcase(s, tc);

	tc = tcase_create("pfm");
	tcase_add_test(tc, test_pfm_notation_core2);
	tcase_add_test(tc, test_pfm_unknown);
	tcase_add_test(tc, test_pfm_basic_core2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(encode_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
