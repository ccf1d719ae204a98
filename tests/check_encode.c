/* check_encode.c: tests for src/encode.c. Raw vendor values are encoded
 * against sysfs fixtures that copy the kernel's format/ files (a Zen 5 with
 * amd_l3 and amd_umc_N, an Intel core PMU); libpfm4 names are encoded with
 * LIBPFM_FORCE_PMU so that the results do not depend on the build machine.
 * Check forks every test, so each one may force its own libpfm4 PMU before
 * the first (and only) pfm_initialize() in that process. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib.h>

#include "encode.h"
#include "evdef.h"
#include "expr.h"
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

/* ---- the shipped models ---------------------------------------------- */

#define EVENTS_DIR TOP_SRCDIR "/events"

/* The expected perf config of every libpfm4 or raw event of a model, as
 * worked out from the vendor tables (event select and unit mask; seed 001
 * for Core 2, seed 004 and libpfm4's wsm tables for Westmere, seed 002 with
 * libpfm4's amd64_fam10h tables for Family 10h, seed 003 for the
 * architectural events). A test fails if a model gains an event that is not
 * listed here, so every event's encoding is checked. */
struct model_case {
	const char *name;
	uint64_t config;
};

static const struct model_case core2_cases[] = {
	{ "inst_retired.any", 0xc0 },
	{ "cpu_clk_unhalted.core", 0x3c },
	{ "cpu_clk_unhalted.ref", 0x300 },
	{ "cpu_clk_unhalted.bus", 0x13c },
	{ "l1d_all_ref", 0x143 },
	{ "l1d_all_cache_ref", 0x243 },
	{ "l1d_repl", 0xf45 },
	{ "l1i_reads", 0x80 },
	{ "l1i_misses", 0x81 },
	{ "l2_rqsts.self.demand.mesi", 0x4f2e },
	{ "l2_rqsts.self.demand.i_state", 0x412e },
	{ "l2_lines_in.self.any", 0x7024 },
	{ "mem_load_retired.l1d_miss", 0x1cb },
	{ "mem_load_retired.l2_miss", 0x4cb },
	{ "dtlb_misses.any", 0x108 },
	{ "itlb.misses", 0x1282 },
	{ "page_walks.count", 0x10c },
	{ "page_walks.cycles", 0x20c },
	{ "br_inst_retired.any", 0xc4 },
	{ "br_inst_retired.taken", 0xcc4 },
	{ "br_inst_retired.mispred", 0xc5 },
	{ "uops_retired.any", 0xfc2 },
	{ "resource_stalls.any", 0x1fdc },
	{ "rs_uops_dispatched", 0xa0 },
	{ "x87_ops_retired.any", 0xfec1 },
	{ "simd_comp_inst_retired.packed_double", 0x4ca },
	{ "simd_comp_inst_retired.scalar_double", 0x8ca },
	{ "bus_trans_any.self", 0x4070 },
	{ "bus_trans_burst.self", 0x406e },
	{ "bus_trans_brd.self", 0x4065 },
};

static const struct model_case westmere_cases[] = {
	{ "inst_retired.any", 0xc0 },
	{ "cpu_clk_unhalted.thread", 0x3c },
	{ "cpu_clk_unhalted.ref", 0x300 },
	{ "fp_mmx_trans.to_fp", 0x1cc },
	{ "fp_mmx_trans.to_mmx", 0x2cc },
	{ "fp_mmx_trans.any", 0x3cc },
	{ "macro_insts.decoded", 0x1d0 },
	/* D1H 01H with INV=1 and CMASK=1, as seed 004 says. */
	{ "uops_decoded.stall_cycles", 0x018001d1 },
	{ "uops_decoded.ms", 0x2d1 },
	{ "uops_decoded.esp_folding", 0x4d1 },
	{ "uops_decoded.esp_sync", 0x8d1 },
	{ "rat_stalls.flags", 0x1d2 },
	{ "rat_stalls.registers", 0x2d2 },
	{ "rat_stalls.rob_read_port", 0x4d2 },
	{ "rat_stalls.scoreboard", 0x8d2 },
	{ "rat_stalls.any", 0xfd2 },
	{ "uops_issued.any", 0x10e },
	{ "uops_retired.any", 0x1c2 },
	{ "resource_stalls.any", 0x1a2 },
	{ "mem_inst_retired.loads", 0x10b },
	{ "mem_inst_retired.stores", 0x20b },
	{ "l1d.repl", 0x151 },
	{ "l1i.reads", 0x380 },
	{ "l1i.misses", 0x280 },
	{ "l2_rqsts.references", 0xff24 },
	{ "l2_rqsts.miss", 0xaa24 },
	{ "longest_lat_cache.reference", 0x4f2e },
	{ "longest_lat_cache.miss", 0x412e },
	{ "mem_load_retired.llc_miss", 0x10cb },
	{ "dtlb_misses.any", 0x149 },
	{ "dtlb_misses.walk_completed", 0x249 },
	{ "dtlb_misses.walk_cycles", 0x449 },
	{ "itlb_misses.any", 0x185 },
	{ "itlb_misses.walk_completed", 0x285 },
	{ "br_inst_retired.all_branches", 0xc4 },
	{ "br_misp_retired.all_branches", 0xc5 },
	{ "baclear.clear", 0x1e6 },
};

static const struct model_case fam10h_cases[] = {
	{ "cpu_clk_unhalted", 0x76 },
	{ "retired_instructions", 0xc0 },
	{ "retired_uops", 0xc1 },
	{ "retired_branch_instructions", 0xc2 },
	{ "retired_mispredicted_branch_instructions", 0xc3 },
	{ "retired_taken_branch_instructions", 0xc4 },
	{ "data_cache_accesses", 0x40 },
	{ "data_cache_misses", 0x41 },
	{ "data_cache_refills.all", 0x1f42 },
	{ "data_cache_refills_from_system.all", 0x1f43 },
	{ "requests_to_l2.all", 0x3f7d },
	{ "l2_cache_miss.all", 0xf7e },
	{ "instruction_cache_fetches", 0x80 },
	{ "instruction_cache_misses", 0x81 },
	{ "l1_dtlb_miss_and_l2_dtlb_hit.all", 0x345 },
	{ "l1_dtlb_and_l2_dtlb_miss.all", 0x746 },
	{ "l1_itlb_miss_and_l2_itlb_hit", 0x84 },
	{ "l1_itlb_miss_and_l2_itlb_miss.all", 0x385 },
	{ "dispatch_stalls", 0xd1 },
	{ "retired_branch_resyncs", 0xc7 },
	/* Northbridge: EventSelect 4E0h puts 4 in bits 35:32. */
	{ "read_request_to_l3_cache.all", 0x40000f7e0 },
	{ "l3_cache_misses.all", 0x40000f7e1 },
	{ "dram_accesses_page.all", 0x3fe0 },
	{ "dram_accesses_page.conflict", 0x24e0 },
};

static const struct model_case arch_cases[] = {
	{ "unhalted_core_cycles", 0x3c },
	{ "instruction_retired", 0xc0 },
	{ "unhalted_reference_cycles", 0x13c },
	{ "llc_reference", 0x4f2e },
	{ "llc_misses", 0x412e },
	{ "branch_instruction_retired", 0xc4 },
	{ "branch_misses_retired", 0xc5 },
};

/* Sapphire/Emerald Rapids: EventCode, UMask and CMask of Linux perf's
 * sapphirerapids event list, which the model's raw values must be. */
static const struct model_case spr_cases[] = {
	{ "inst_retired.any_p", 0xC0 },
	{ "cpu_clk_unhalted.thread_p", 0x3C },
	{ "cpu_clk_unhalted.ref_tsc", 0x0300 },
	{ "br_inst_retired.all_branches", 0xC4 },
	{ "br_misp_retired.all_branches", 0xC5 },
	{ "br_inst_retired.near_taken", 0x20C4 },
	{ "topdown.slots_p", 0x01A4 },
	/* The kernel's PERF_METRICS pseudo-encodings (its cpu/events files). */
	{ "topdown.slots", 0x0400 },
	{ "perf_metrics.retiring", 0x8000 },
	{ "perf_metrics.bad_spec", 0x8100 },
	{ "perf_metrics.fe_bound", 0x8200 },
	{ "perf_metrics.be_bound", 0x8300 },
	{ "perf_metrics.heavy_ops", 0x8400 },
	{ "perf_metrics.br_mispredict", 0x8500 },
	{ "perf_metrics.mem_bound", 0x8700 },
	{ "idq_uops_not_delivered.core", 0x019C },
	{ "idq_uops_not_delivered.cycles_0_uops_deliv.core", 0x0600019C },
	{ "int_misc.uop_dropping", 0x10AD },
	{ "topdown.backend_bound_slots", 0x02A4 },
	{ "topdown.bad_spec_slots", 0x04A4 },
	{ "topdown.br_mispredict_slots", 0x08A4 },
	{ "topdown.memory_bound_slots", 0x10A4 },
	{ "uops_retired.slots", 0x02C2 },
	{ "uops_retired.heavy", 0x01C2 },
	{ "uops_issued.any", 0x01AE },
	{ "mem_inst_retired.all_loads", 0x81D0 },
	{ "mem_inst_retired.any", 0x83D0 },
	{ "mem_load_retired.l1_miss", 0x08D1 },
	{ "mem_load_retired.l2_miss", 0x10D1 },
	{ "l1d.replacement", 0x0151 },
	{ "l2_rqsts.all_demand_references", 0xE724 },
	{ "l2_rqsts.all_demand_miss", 0x2724 },
	{ "l2_rqsts.all_code_rd", 0xE424 },
	{ "longest_lat_cache.reference", 0x4F2E },
	{ "longest_lat_cache.miss", 0x412E },
	{ "offcore_requests.l3_miss_demand_data_rd", 0x1021 },
	{ "offcore_requests_outstanding.l3_miss_demand_data_rd", 0x1020 },
	{ "dtlb_load_misses.stlb_hit", 0x2012 },
	{ "dtlb_load_misses.walk_completed", 0x0E12 },
	{ "dtlb_store_misses.stlb_hit", 0x2013 },
	{ "dtlb_store_misses.walk_completed", 0x0E13 },
	{ "itlb_misses.stlb_hit", 0x2011 },
	{ "itlb_misses.walk_completed", 0x0E11 },
	{ "fp_arith_inst_retired.scalar", 0x03C7 },
	{ "fp_arith_inst_retired.128b_packed_double", 0x04C7 },
	{ "fp_arith_inst_retired.4_flops", 0x18C7 },
	{ "fp_arith_inst_retired.8_flops", 0x60C7 },
	{ "fp_arith_inst_retired.512b_packed_single", 0x80C7 },
	/* AVX-512 FP16 (perf's FP_ARITH_INST_RETIRED2.*). */
	{ "fp_arith_inst_retired2.scalar_half", 0x01CF },
	{ "fp_arith_inst_retired2.complex_scalar_half", 0x02CF },
	{ "fp_arith_inst_retired2.128b_packed_half", 0x04CF },
	{ "fp_arith_inst_retired2.256b_packed_half", 0x08CF },
	{ "fp_arith_inst_retired2.512b_packed_half", 0x10CF },
};

/* Encodes every hardware event of the model (libpfm4 with the PMU forced,
 * raw values against sysfs) and checks each config against the table. */
static void check_model(const char *dir, const char *force, const char *sysfs,
			const struct model_case *cases, size_t ncases)
{
	if (force)
		setenv("LIBPFM_FORCE_PMU", force, 1);
	struct model *m = fx_model(dir);
	size_t checked = 0;
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		if (ev->enc != ENC_PFM && ev->enc != ENC_RAW)
			continue;
		struct perf_event_attr attr;
		char *cause = NULL;
		int rc = encode_event(m, ev, NULL, sysfs, &attr, &cause);
		ck_assert_msg(rc == 0, "%s: %s (%s): %s", dir, ev->name, ev->spec ? ev->spec : "raw",
			      cause ? cause : "");
		free(cause);
		ck_assert_msg(attr.type == PERF_TYPE_RAW, "%s: type %u", ev->name, attr.type);
		/* A privilege modifier's variant (events/generic/privilege.def
		 * uses cycles:u ...): its event's config, its exclude bits. */
		ck_assert_int_eq(attr.exclude_user, !!(ev->excl & EXCL_USER));
		ck_assert_int_eq(attr.exclude_kernel, !!(ev->excl & EXCL_KERNEL));
		size_t base = strcspn(ev->name, ":");
		size_t j;
		for (j = 0; j < ncases; j++)
			if (strlen(cases[j].name) == base && strncmp(cases[j].name, ev->name, base) == 0)
				break;
		ck_assert_msg(j < ncases, "%s: event %s has no expected encoding in the test",
			      dir, ev->name);
		ck_assert_msg(attr.config == cases[j].config,
			      "%s: %s: config 0x%" PRIx64 ", expected 0x%" PRIx64, dir, ev->name,
			      (uint64_t)attr.config, cases[j].config);
		checked += !ev->excl;
	}
	ck_assert_uint_eq(checked, ncases);
	model_free(m);
}

START_TEST(test_model_core2)
{
	check_model(EVENTS_DIR "/intel/core2", "core", "/nonexistent", core2_cases,
		    ARRAY_SIZE(core2_cases));
}
END_TEST

START_TEST(test_model_westmere)
{
	check_model(EVENTS_DIR "/intel/westmere", "wsm", "/nonexistent", westmere_cases,
		    ARRAY_SIZE(westmere_cases));
}
END_TEST

START_TEST(test_model_westmere_dp)
{
	/* Westmere-EP/EX (models 2CH, 2FH) are libpfm4's wsm_dp. */
	check_model(EVENTS_DIR "/intel/westmere", "wsm_dp", "/nonexistent", westmere_cases,
		    ARRAY_SIZE(westmere_cases));
}
END_TEST

START_TEST(test_model_fam10h)
{
	static const char *const fam10h_pmus[] = { "amd64_fam10h_barcelona", "amd64_fam10h_shanghai",
					    "amd64_fam10h_istanbul" };
	check_model(EVENTS_DIR "/amd/fam10h", fam10h_pmus[_i], "/nonexistent", fam10h_cases,
		    ARRAY_SIZE(fam10h_cases));
}
END_TEST

/* libpfm4's spr names for the same events (LIBPFM_FORCE_PMU=spr) must
 * encode to the same values; TOPDOWN.*_SLOTS other than SLOTS_P and the
 * OFFCORE_REQUESTS L3-miss pair are left out, libpfm4 4.13 has them wrong
 * or not at all (docs/spr.md). */
static const struct model_case spr_pfm_cases[] = {
	{ "INST_RETIRED:ANY_P", 0xC0 },
	{ "CPU_CLK_UNHALTED:THREAD_P", 0x3C },
	{ "CPU_CLK_UNHALTED:REF_TSC", 0x300 },
	{ "BR_INST_RETIRED:ALL_BRANCHES", 0xC4 },
	{ "BR_MISP_RETIRED:ALL_BRANCHES", 0xC5 },
	{ "BR_INST_RETIRED:NEAR_TAKEN", 0x20C4 },
	{ "TOPDOWN:SLOTS_P", 0x1A4 },
	{ "IDQ_UOPS_NOT_DELIVERED:CORE", 0x19C },
	{ "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 0x600019C },
	{ "INT_MISC:UOP_DROPPING", 0x10AD },
	{ "UOPS_RETIRED:SLOTS", 0x2C2 },
	{ "UOPS_RETIRED:HEAVY", 0x1C2 },
	{ "UOPS_ISSUED:ANY", 0x1AE },
	{ "MEM_INST_RETIRED:ALL_LOADS", 0x81D0 },
	{ "MEM_INST_RETIRED:ANY", 0x83D0 },
	{ "MEM_LOAD_RETIRED:L1_MISS", 0x8D1 },
	{ "MEM_LOAD_RETIRED:L2_MISS", 0x10D1 },
	{ "L1D:REPLACEMENT", 0x151 },
	{ "L2_RQSTS:ALL_DEMAND_REFERENCES", 0xE724 },
	{ "L2_RQSTS:ALL_DEMAND_MISS", 0x2724 },
	{ "L2_RQSTS:ALL_CODE_RD", 0xE424 },
	{ "LONGEST_LAT_CACHE:REFERENCE", 0x4F2E },
	{ "LONGEST_LAT_CACHE:MISS", 0x412E },
	{ "DTLB_LOAD_MISSES:STLB_HIT", 0x2012 },
	{ "DTLB_LOAD_MISSES:WALK_COMPLETED", 0xE12 },
	{ "DTLB_STORE_MISSES:STLB_HIT", 0x2013 },
	{ "DTLB_STORE_MISSES:WALK_COMPLETED", 0xE13 },
	{ "ITLB_MISSES:STLB_HIT", 0x2011 },
	{ "ITLB_MISSES:WALK_COMPLETED", 0xE11 },
	{ "FP_ARITH_INST_RETIRED:SCALAR", 0x3C7 },
	{ "FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE", 0x4C7 },
	{ "FP_ARITH_INST_RETIRED:4_FLOPS", 0x18C7 },
	{ "FP_ARITH_INST_RETIRED:8_FLOPS", 0x60C7 },
	{ "FP_ARITH_INST_RETIRED:512B_PACKED_SINGLE", 0x80C7 },
};

START_TEST(test_model_spr_vs_pfm)
{
	setenv("LIBPFM_FORCE_PMU", "spr", 1);
	ck_assert_int_eq(encode_pfm_init(NULL), 0);
	struct model *m = fx_model(EVENTS_DIR "/intel/spr");
	for (size_t i = 0; i < ARRAY_SIZE(spr_pfm_cases); i++) {
		struct event_def ev = spec_event(P_INTEL_CORE, ENC_PFM, spr_pfm_cases[i].name);
		struct perf_event_attr attr;
		char *cause = NULL;
		ck_assert_msg(encode_event(&test_model, &ev, "cpu", NULL, &attr, &cause) == 0, "%s: %s",
			      spr_pfm_cases[i].name, cause ? cause : "");
		ck_assert_msg(attr.config == spr_pfm_cases[i].config, "%s: libpfm4 0x%" PRIx64 ", model 0x%" PRIx64,
			      spr_pfm_cases[i].name, (uint64_t)attr.config, spr_pfm_cases[i].config);
		/* The model has an event with that raw value. */
		bool found = false;
		for (int e = 0; e < m->nevents && !found; e++)
			found = m->events[e].enc == ENC_RAW && m->events[e].raw == spr_pfm_cases[i].config;
		ck_assert_msg(found, "no event of intel-spr has raw 0x%" PRIx64 " (%s)", spr_pfm_cases[i].config,
			      spr_pfm_cases[i].name);
	}
	model_free(m);
}
END_TEST

/* The uncore events through the kernel's SPR formats (the emr-2s-snc2
 * fixture): the CHA's 32-bit unit mask goes to config bits 8-15 and 32-55. */
START_TEST(test_model_spr_uncore)
{
	static const struct model_case want[] = {
		{ "unc_cha_tor_inserts.ia", 0x00C001FF00000135ULL },
		{ "unc_cha_tor_inserts.ia_miss", 0x00C001FE00000135ULL },
		{ "unc_m_cas_count.rd", 0xCF05 },
		{ "unc_m_cas_count.wr", 0xF005 },
	};
	struct model *m = fx_model(EVENTS_DIR "/intel/spr");
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		int e = model_find_event(m, want[i].name);
		ck_assert_int_ge(e, 0);
		bool cha = !strcmp(m->pmus[m->events[e].pmu].name, "cha");
		const char *inst = cha ? "uncore_cha_3" : "uncore_imc_2";
		struct perf_event_attr attr;
		char *cause = NULL;
		ck_assert_msg(encode_event(m, &m->events[e], inst, TOP_SRCDIR "/tests/fixtures/sysfs/emr-2s-snc2", &attr,
					   &cause) == 0, "%s: %s", want[i].name, cause ? cause : "");
		ck_assert_msg(attr.config == want[i].config, "%s: 0x%" PRIx64, want[i].name, (uint64_t)attr.config);
		ck_assert_uint_eq(attr.type, cha ? 33u : 102u); /* the fixture's type files */
	}
	model_free(m);
}
END_TEST

START_TEST(test_model_spr)
{
	check_model(EVENTS_DIR "/intel/spr", NULL, INTEL_SYSFS, spr_cases, ARRAY_SIZE(spr_cases));
}
END_TEST

START_TEST(test_model_intel_arch)
{
	check_model(EVENTS_DIR "/intel/arch", NULL, INTEL_SYSFS, arch_cases,
		    ARRAY_SIZE(arch_cases));
}
END_TEST

/* Seed 003's bit order: arch_bit i is event i of Table 18-10. */
START_TEST(test_model_intel_arch_bits)
{
	struct model *m = fx_model(EVENTS_DIR "/intel/arch");
	for (size_t i = 0; i < ARRAY_SIZE(arch_cases); i++) {
		int e = model_find_event(m, arch_cases[i].name);
		ck_assert_int_ge(e, 0);
		ck_assert_msg(m->events[e].arch_bit == (int)i, "%s: arch_bit %d", arch_cases[i].name,
			      m->events[e].arch_bit);
	}
	/* Only the events the kernel puts on fixed counters are flagged. */
	ck_assert(m->events[model_find_event(m, "unhalted_core_cycles")].flags & EVF_FIXED);
	ck_assert(m->events[model_find_event(m, "instruction_retired")].flags & EVF_FIXED);
	ck_assert(!(m->events[model_find_event(m, "llc_misses")].flags & EVF_FIXED));
	int core = model_find_pmu(m, "core");
	ck_assert_int_ge(core, 0);
	ck_assert_int_eq(m->pmus[core].fixed, 3);
	ck_assert(m->pmus[core].nmi_takes_fixed);
	model_free(m);
}
END_TEST

/* Evaluates a metric with every event replaced by its encoded config, so
 * that "0xC0 / 0x3C" proves which event is the numerator. */
struct config_ctx {
	const struct model *m;
	const char *sysfs;
};

static double config_value(void *vctx, int ref)
{
	struct config_ctx *ctx = vctx;
	struct perf_event_attr attr;
	if (ref < 0 || ref >= ctx->m->nevents)
		return NAN;
	if (encode_event(ctx->m, &ctx->m->events[ref], NULL, ctx->sysfs, &attr, NULL) < 0)
		return NAN;
	return (double)attr.config;
}

static const struct {
	const char *dir;
	const char *force;
	const char *sysfs;
	const char *metric;
	double num, den;
} ratio_cases[] = {
	{ EVENTS_DIR "/intel/arch", NULL, INTEL_SYSFS, "ipc", 0xC0, 0x3C },
	{ EVENTS_DIR "/intel/arch", NULL, INTEL_SYSFS, "cpi", 0x3C, 0xC0 },
	{ EVENTS_DIR "/intel/arch", NULL, INTEL_SYSFS, "llc_miss_rate", 0x412E, 0x4F2E },
	{ EVENTS_DIR "/intel/arch", NULL, INTEL_SYSFS, "branch_miss_ratio", 0xC5, 0xC4 },
	{ EVENTS_DIR "/intel/core2", "core", NULL, "ipc", 0xC0, 0x3C },
	{ EVENTS_DIR "/intel/core2", "core", NULL, "l2_miss_rate", 0x412E, 0x4F2E },
	{ EVENTS_DIR "/intel/core2", "core", NULL, "branch_miss_ratio", 0xC5, 0xC4 },
	{ EVENTS_DIR "/intel/core2", "core", NULL, "l1d_miss_rate", 0xF45, 0x243 },
	{ EVENTS_DIR "/intel/westmere", "wsm", NULL, "ipc", 0xC0, 0x3C },
	{ EVENTS_DIR "/intel/westmere", "wsm", NULL, "llc_miss_rate", 0x412E, 0x4F2E },
	{ EVENTS_DIR "/intel/westmere", "wsm", NULL, "l2_miss_rate", 0xAA24, 0xFF24 },
	{ EVENTS_DIR "/intel/westmere", "wsm", NULL, "branch_miss_ratio", 0xC5, 0xC4 },
	{ EVENTS_DIR "/amd/fam10h", "amd64_fam10h_barcelona", NULL, "ipc", 0xC0, 0x76 },
	{ EVENTS_DIR "/amd/fam10h", "amd64_fam10h_barcelona", NULL, "l1d_miss_rate", 0x41, 0x40 },
	{ EVENTS_DIR "/amd/fam10h", "amd64_fam10h_barcelona", NULL, "l2_miss_rate", 0xF7E, 0x3F7D },
	{ EVENTS_DIR "/amd/fam10h", "amd64_fam10h_barcelona", NULL, "l3_miss_rate",
	  0x40000F7E1, 0x40000F7E0 },
	{ EVENTS_DIR "/amd/fam10h", "amd64_fam10h_barcelona", NULL, "branch_miss_ratio", 0xC3,
	  0xC2 },
	/* Zen 4 and Zen 3: perf's amdzen4/amdzen3 metrics of the same name. */
	{ EVENTS_DIR "/amd/zen4", NULL, ZEN5_SYSFS, "ipc", 0xC0, 0x76 },
	{ EVENTS_DIR "/amd/zen4", NULL, ZEN5_SYSFS, "branch_miss_ratio", 0xC3, 0xC2 },
	{ EVENTS_DIR "/amd/zen4", NULL, ZEN5_SYSFS, "op_cache_fetch_miss_ratio", 0x20000048F, 0x20000078F },
	{ EVENTS_DIR "/amd/zen4", NULL, ZEN5_SYSFS, "ic_fetch_miss_ratio", 0x10000188E, 0x100001F8E },
	{ EVENTS_DIR "/amd/zen4", NULL, ZEN5_SYSFS, "l1d_miss_rate", 0xE860, 0x0729 },
	{ EVENTS_DIR "/amd/zen3", NULL, ZEN5_SYSFS, "ipc", 0xC0, 0x76 },
	{ EVENTS_DIR "/amd/zen3", NULL, ZEN5_SYSFS, "branch_miss_ratio", 0xC3, 0xC2 },
	{ EVENTS_DIR "/amd/zen3", NULL, ZEN5_SYSFS, "ic_fetch_miss_ratio", 0x10000188E, 0x100001F8E },
	/* Sapphire Rapids (topdown: test_spr_tma below). */
	{ EVENTS_DIR "/intel/spr", NULL, INTEL_SYSFS, "ipc", 0xC0, 0x3C },
	{ EVENTS_DIR "/intel/spr", NULL, INTEL_SYSFS, "branch_miss_ratio", 0xC5, 0xC4 },
	{ EVENTS_DIR "/intel/spr", NULL, INTEL_SYSFS, "l2_miss_rate", 0x2724, 0xE724 },
	{ EVENTS_DIR "/intel/spr", NULL, INTEL_SYSFS, "l3_miss_latency_cycles", 0x1020, 0x1021 },
};

/* Sapphire Rapids topdown against perf's sapphirerapids tma_* formulas,
 * evaluated by hand on made-up counts: each PERF_METRICS category over the
 * sum of the four, uops dropped by a flush moved from frontend to bad
 * speculation (perf: tma_frontend_bound = topdown-fe-bound / sum -
 * INT_MISC.UOP_DROPPING / slots; tma_bad_speculation = max(1 - (fe + be +
 * retiring), 0)), fetch latency as 6 slots per cycle with no uop. */
static double spr_count(void *vctx, int ref)
{
	const struct model *m = vctx;
	static const struct { const char *name; double v; } counts[] = {
		{ "topdown.slots", 2000 }, { "perf_metrics.fe_bound", 100 }, { "perf_metrics.bad_spec", 200 },
		{ "perf_metrics.be_bound", 300 }, { "perf_metrics.retiring", 400 },
		{ "perf_metrics.heavy_ops", 50 }, { "perf_metrics.br_mispredict", 150 },
		{ "perf_metrics.mem_bound", 120 }, { "int_misc.uop_dropping", 20 },
		{ "idq_uops_not_delivered.cycles_0_uops_deliv.core", 30 },
	};
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + m->nmetrics)
		return expr_eval(m->metrics[ref - METRIC_REF_BASE].expr, spr_count, vctx);
	if (ref < 0 || ref >= m->nevents)
		return NAN;
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		if (!strcmp(m->events[ref].name, counts[i].name))
			return counts[i].v;
	return NAN;
}

START_TEST(test_spr_tma)
{
	struct model *m = fx_model(EVENTS_DIR "/intel/spr");
	/* sum = 1000 of slots 2000 (the kernel scales all of them alike). */
	static const struct { const char *metric; double want; } cases[] = {
		{ "frontend_bound", 0.1 - 20.0 / 2000 },
		{ "backend_bound", 0.3 },
		{ "retiring", 0.4 },
		{ "bad_speculation", 1 - (0.1 - 0.01 + 0.3 + 0.4) },
		{ "frontend_bound_latency", (6 * 30.0 - 20) / 2000 },
		{ "frontend_bound_bw", 0.1 - 0.01 - (6 * 30.0 - 20) / 2000 },
		{ "bad_speculation_mispredicts", 0.15 },
		{ "bad_speculation_pipeline_restarts", 0.21 - 0.15 },
		{ "backend_bound_memory", 0.12 },
		{ "backend_bound_cpu", 0.3 - 0.12 },
		{ "retiring_microcode", 0.05 },
		{ "retiring_fastpath", 0.4 - 0.05 },
		{ "total_dispatch_slots", 2000 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int k = model_find_metric(m, cases[i].metric);
		ck_assert_msg(k >= 0, "no metric %s", cases[i].metric);
		double v = expr_eval(m->metrics[k].expr, spr_count, m);
		ck_assert_msg(fabs(v - cases[i].want) < 1e-12, "%s: %.15g, expected %.15g", cases[i].metric, v,
			      cases[i].want);
	}
	model_free(m);
}
END_TEST

START_TEST(test_model_ratios)
{
	if (ratio_cases[_i].force)
		setenv("LIBPFM_FORCE_PMU", ratio_cases[_i].force, 1);
	struct model *m = fx_model(ratio_cases[_i].dir);
	int k = model_find_metric(m, ratio_cases[_i].metric);
	ck_assert_msg(k >= 0, "%s: no metric %s", ratio_cases[_i].dir, ratio_cases[_i].metric);
	struct config_ctx ctx = { m, ratio_cases[_i].sysfs };
	double v = expr_eval(m->metrics[k].expr, config_value, &ctx);
	double want = ratio_cases[_i].num / ratio_cases[_i].den;
	ck_assert_msg(fabs(v - want) < 1e-12 * want, "%s %s: %g, expected %g",
		      ratio_cases[_i].dir, ratio_cases[_i].metric, v, want);
	ck_assert_int_eq(m->metrics[k].nevents, 2);
	model_free(m);
}
END_TEST

/* libpfm4's own architectural tables, where this machine's CPUID lets
 * libpfm4 build them, must agree with the raw values of the arch model. */
START_TEST(test_model_intel_arch_vs_libpfm)
{
	static const char *const pfm_names[] = {
		"UNHALTED_CORE_CYCLES", "INSTRUCTION_RETIRED", NULL /* 0x13C: see core.def */,
		"LLC_REFERENCES", "LLC_MISSES", "BRANCH_INSTRUCTIONS_RETIRED",
		"MISPREDICTED_BRANCH_RETIRED",
	};
	setenv("LIBPFM_FORCE_PMU", "ix86arch", 1);
	ck_assert_int_eq(encode_pfm_init(NULL), 0);
	int compared = 0;
	for (size_t i = 0; i < ARRAY_SIZE(pfm_names); i++) {
		if (!pfm_names[i])
			continue;
		struct event_def ev = spec_event(P_INTEL_CORE, ENC_PFM, pfm_names[i]);
		struct perf_event_attr attr;
		if (encode_event(&test_model, &ev, "cpu", NULL, &attr, NULL) != 0)
			continue; /* this CPU's CPUID.0AH hides it from libpfm4 */
		ck_assert_msg(attr.config == arch_cases[i].config, "%s: 0x%" PRIx64, pfm_names[i],
			      (uint64_t)attr.config);
		compared++;
	}
	/* Nothing to compare on a CPU without architectural perfmon. */
	(void)compared;
}
END_TEST

START_TEST(test_model_generic)
{
	struct model *m = fx_model(EVENTS_DIR "/generic");
	int hw = 0, sw = 0;
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		struct perf_event_attr attr;
		char *cause = NULL;
		int rc = encode_event(m, ev, NULL, "/nonexistent", &attr, &cause);
		if (ev->enc == ENC_PROC) {
			ck_assert_int_eq(rc, -EINVAL);
		} else if (m->pmus[ev->pmu].kind == PMU_UNCORE) {
			/* The power PMU's events are placed by the kernel's sysfs
			 * format files, which this root does not have. */
			ck_assert_int_lt(rc, 0);
		} else {
			ck_assert_msg(rc == 0, "%s: %s", ev->name, cause ? cause : "");
			if (attr.type == PERF_TYPE_HARDWARE)
				hw += !ev->excl;
			else if (attr.type == PERF_TYPE_SOFTWARE)
				sw++;
		}
		free(cause);
	}
	ck_assert_int_eq(hw, 7);
	ck_assert_int_eq(sw, 4);
	struct perf_event_attr attr;
	ck_assert_int_eq(encode_event(m, &m->events[model_find_event(m, "task_clock")], NULL, NULL,
				      &attr, NULL), 0);
	ck_assert_uint_eq(attr.config, PERF_COUNT_SW_TASK_CLOCK);
	ck_assert_int_eq(encode_event(m, &m->events[model_find_event(m, "ref_cycles")], NULL, NULL,
				      &attr, NULL), 0);
	ck_assert_uint_eq(attr.config, PERF_COUNT_HW_REF_CPU_CYCLES);
	model_free(m);
}
END_TEST

/* perf's privilege modifiers set the exclude bits perf sets, on top of
 * the event's own encoding: software events (what the real-backend test
 * counts as root), generic hardware events and raw vendor values. */
START_TEST(test_modifiers)
{
	static const struct {
		const char *model, *name;
		uint32_t type;
		uint64_t config;
		int user, kernel, hv, host, guest;
	} cases[] = {
		{ "generic", "page-faults:u", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 1, 1, 0, 0 },
		{ "generic", "context-switches:k", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 0, 1, 0, 0 },
		{ "generic", "cpu-migrations:h", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1, 1, 0, 0, 0 },
		{ "generic", "instructions:ku", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 1, 0, 0 },
		{ "generic", "cycles:G", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0, 1, 0 },
		{ "generic", "cycles:uH", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1, 1, 0, 1 },
		{ "generic", "branches:ukhGH", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 0, 0, 0, 0 },
		{ "amd/zen5", "instructions:u", PERF_TYPE_RAW, 0xC0, 0, 1, 1, 0, 0 },
		{ "amd/zen5", "ls_not_halted_cyc:k", PERF_TYPE_RAW, 0x76, 1, 0, 1, 0, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *dir = xasprintf("%s/%s", EVENTS_DIR, cases[i].model);
		struct model *m = fx_model(dir);
		free(dir);
		char *cause = NULL;
		int e = model_event_variant(m, cases[i].name, &cause);
		ck_assert_msg(e >= 0, "%s: %s", cases[i].name, cause ? cause : "");
		struct perf_event_attr attr;
		ck_assert_int_eq(encode_event(m, &m->events[e], NULL, ZEN5_SYSFS, &attr, &cause), 0);
		ck_assert_msg(attr.type == cases[i].type && attr.config == cases[i].config,
			      "%s: type %u config 0x%" PRIx64, cases[i].name, attr.type, (uint64_t)attr.config);
		ck_assert_msg(attr.exclude_user == cases[i].user && attr.exclude_kernel == cases[i].kernel &&
				      attr.exclude_hv == cases[i].hv && attr.exclude_host == cases[i].host &&
				      attr.exclude_guest == cases[i].guest,
			      "%s: exclude user %d kernel %d hv %d host %d guest %d", cases[i].name,
			      attr.exclude_user, attr.exclude_kernel, attr.exclude_hv, attr.exclude_host,
			      attr.exclude_guest);
		model_free(m);
	}
	/* Where the kernel cannot tell the privilege level, a clear refusal. */
	struct model *m = fx_model(EVENTS_DIR "/generic");
	char *cause = NULL;
	ck_assert_int_eq(model_event_variant(m, "cpu_busy_ns:u", &cause), -2);
	ck_assert_str_eq(cause, "event 'cpu_busy_ns' takes no modifier ':u': it is read from /proc/stat, "
				"not counted by a PMU");
	free(cause);
	ck_assert_int_eq(model_event_variant(m, "energy_pkg:k", &cause), -2);
	free(cause);
	ck_assert_int_eq(model_event_variant(m, "page-faults:x", &cause), -2);
	ck_assert_str_eq(cause, "event 'page-faults:x': unknown modifier 'x' in ':x': expected u (user), "
				"k (kernel), h (hypervisor), G (guest) or H (host)");
	free(cause);
	model_free(m);
}
END_TEST

/* ---- newer AMD models against libpfm4's tables ------------------------ */

/* libpfm4's events of one PMU as (event select, union of its unit masks):
 * a raw value of the model is a known encoding when some libpfm4 event has
 * its event select and allows every bit of its unit mask. */
struct pfm_sel { uint64_t code, umasks; bool has_umasks; };

static int pfm_table(const char *pmu_name, struct pfm_sel *out, int max)
{
	pfm_pmu_info_t pi;
	int n = 0;
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || strcmp(pi.name, pmu_name) != 0)
			continue;
		ck_assert_msg(pi.is_present, "libpfm4 PMU %s is not active (LIBPFM_FORCE_PMU)", pmu_name);
		for (int e = pi.first_event; e != -1 && n < max; e = pfm_get_event_next(e)) {
			pfm_event_info_t ei;
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			ck_assert_int_eq(pfm_get_event_info(e, PFM_OS_NONE, &ei), PFM_SUCCESS);
			out[n] = (struct pfm_sel){ .code = ei.code };
			for (int a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai;
				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				ck_assert_int_eq(pfm_get_event_attr_info(e, a, PFM_OS_NONE, &ai), PFM_SUCCESS);
				if (ai.type == PFM_ATTR_UMASK) {
					out[n].umasks |= ai.code;
					out[n].has_umasks = true;
				}
			}
			n++;
		}
	}
	return n;
}

static const struct {
	const char *dir;   /* model directory */
	const char *pmu;   /* the model's PMU whose events are checked */
	const char *force; /* libpfm4 PMU with the same events */
	bool sel_hi;       /* EventSelect[11:8] in config bits 35:32 (core PMCs) */
	int min_checked;   /* a floor, so that a model that lost its events fails */
} pfm_table_cases[] = {
	{ EVENTS_DIR "/amd/zen4", "core", "amd64_fam19h_zen4", true, 60 },
	{ EVENTS_DIR "/amd/zen3", "core", "amd64_fam19h_zen3", true, 50 },
	{ EVENTS_DIR "/amd/zen3", "l3", "amd64_fam19h_zen3_l3", false, 5 },
};

/* Unit-mask bits that Linux perf's event lists define and libpfm4 4.13's
 * table leaves out; docs/zen3-zen4.md. */
static const struct { const char *force, *event; uint64_t bits; } pfm_table_gaps[] = {
	/* PMCx060 bit 0 (group2: requests counted in detail by PMCx061) */
	{ "amd64_fam19h_zen3", "l2_request_g1.all_no_prefetch", 0x01 },
};

static uint64_t pfm_gap(const char *force, const char *event)
{
	for (size_t g = 0; g < ARRAY_SIZE(pfm_table_gaps); g++)
		if (!strcmp(pfm_table_gaps[g].force, force) && !strcmp(pfm_table_gaps[g].event, event))
			return pfm_table_gaps[g].bits;
	return 0;
}

/* Every event of the model's PMU, encoded through the sysfs format files
 * (the same core layout on Zen 3, 4 and 5), must be an event select and unit
 * mask that libpfm4's table for the CPU defines. */
START_TEST(test_model_vs_pfm_table)
{
	setenv("LIBPFM_FORCE_PMU", pfm_table_cases[_i].force, 1);
	ck_assert_int_eq(encode_pfm_init(NULL), 0);
	static struct pfm_sel sel[512];
	int nsel = pfm_table(pfm_table_cases[_i].force, sel, (int)ARRAY_SIZE(sel));
	ck_assert_int_gt(nsel, 0);
	struct model *m = fx_model(pfm_table_cases[_i].dir);
	int pmu = model_find_pmu(m, pfm_table_cases[_i].pmu);
	ck_assert_int_ge(pmu, 0);
	int checked = 0;
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		if (ev->pmu != pmu)
			continue;
		struct perf_event_attr attr;
		char *cause = NULL;
		ck_assert_msg(encode_event(m, ev, NULL, ZEN5_SYSFS, &attr, &cause) == 0, "%s: %s", ev->name,
			      cause ? cause : "");
		uint64_t evsel = attr.config & 0xFF;
		if (pfm_table_cases[_i].sel_hi)
			evsel |= ((attr.config >> 32) & 0xF) << 8;
		uint64_t umask = (attr.config >> 8) & 0xFF & ~pfm_gap(pfm_table_cases[_i].force, ev->name);
		bool found = false;
		for (int k = 0; k < nsel && !found; k++)
			found = sel[k].code == evsel &&
				(umask == 0 ? true : sel[k].has_umasks && (umask & ~sel[k].umasks) == 0);
		ck_assert_msg(found, "%s:%d: %s: event 0x%" PRIx64 " unit mask 0x%02" PRIx64 " is not in libpfm4's %s",
			      ev->file, ev->line, ev->name, evsel, umask, pfm_table_cases[_i].force);
		checked++;
	}
	ck_assert_int_ge(checked, pfm_table_cases[_i].min_checked);
	model_free(m);
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

	/* One tcase per model, so a failure names the model. */
	tc = tcase_create("model-generic");
	tcase_add_test(tc, test_model_generic);
	tcase_add_test(tc, test_modifiers);
	suite_add_tcase(s, tc);
	tc = tcase_create("model-intel-arch");
	tcase_add_test(tc, test_model_intel_arch);
	tcase_add_test(tc, test_model_intel_arch_bits);
	tcase_add_test(tc, test_model_intel_arch_vs_libpfm);
	suite_add_tcase(s, tc);
	tc = tcase_create("model-core2");
	tcase_add_test(tc, test_model_core2);
	suite_add_tcase(s, tc);
	tc = tcase_create("model-westmere");
	tcase_add_test(tc, test_model_westmere);
	tcase_add_test(tc, test_model_westmere_dp);
	suite_add_tcase(s, tc);
	tc = tcase_create("model-spr");
	tcase_add_test(tc, test_model_spr);
	tcase_add_test(tc, test_model_spr_vs_pfm);
	tcase_add_test(tc, test_model_spr_uncore);
	tcase_add_test(tc, test_spr_tma);
	suite_add_tcase(s, tc);
	tc = tcase_create("model-fam10h");
	tcase_add_loop_test(tc, test_model_fam10h, 0, 3);
	suite_add_tcase(s, tc);
	tc = tcase_create("model-ratios");
	tcase_add_loop_test(tc, test_model_ratios, 0, ARRAY_SIZE(ratio_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("model-vs-libpfm4");
	tcase_add_loop_test(tc, test_model_vs_pfm_table, 0, ARRAY_SIZE(pfm_table_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(encode_suite());
}
