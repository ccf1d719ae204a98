/* check_zen5.c: the AMD Zen 5 model (events/amd/zen5) against its source,
 * the vendor's PMC document (seed 000, /work/shared/seeds). Every metric of
 * Table 1 and Table 2 must exist and print, the way --list-metrics --raw
 * prints it, the vendor's formula; the table below is transcribed from the
 * seed with its line number, and the four documented errata (and erratum 5,
 * docs/zen5-errata.md) are written in their corrected form. Then: every
 * raw value decodes into its PMU's fields, `merge` sits exactly on the
 * events the seed calls merge-able, and the simulated-PMU formulas keep the
 * metrics physically consistent (topdown fractions add up, misses <= accesses). */
#include "config.h"
#include <check.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "evdef.h"
#include "expr.h"
#include "listing.h"
#include "sched.h"
#include "util.h"

#define SEED_LINE(n) (n)   /* a line of seed 000_f8fc5e5ac55f83b0.txt */

static struct model *model;
static char *list_raw;        /* what `pmctop --list-metrics --raw` prints */

static void load_model(void)
{
	char *cause = NULL;
	model = model_load(TOP_SRCDIR "/events/amd/zen5", &cause);
	if (!model) {
		fprintf(stderr, "model_load: %s\n", cause ? cause : "?");
		free(cause);
		return;
	}
	size_t len = 0;
	FILE *f = open_memstream(&list_raw, &len);
	if (f) {
		listing_metrics(f, model, true);
		fclose(f);
	}
}

static void free_model(void)
{
	model_free(model);
	model = NULL;
	free(list_raw);
	list_raw = NULL;
}

/* ------------------------------------------------------------------------
 * Listing: events replaced by their vendor notation, metrics kept by name.
 * ------------------------------------------------------------------------ */

struct strings { char **v; int n; };

static const char *rename_vendor(void *ctx, int ref, const char *name)
{
	struct strings *keep = ctx;
	(void)name;
	if (ref < 0 || ref >= model->nevents)
		return NULL;  /* metric references and builtins keep their names */
	char *s = encode_vendor_notation(model, &model->events[ref]);
	keep->v = xrealloc(keep->v, sizeof(*keep->v) * (size_t)(keep->n + 1));
	keep->v[keep->n++] = s;
	return s;
}

static char *listing(const struct metric_def *md)
{
	struct strings keep = { NULL, 0 };
	char *s = expr_format(md->expr, rename_vendor, &keep);
	for (int i = 0; i < keep.n; i++)
		free(keep.v[i]);
	free(keep.v);
	return s;
}

/* Canonical form of a listing or of a formula copied from the seed: every
 * "Event[...]", "L3Event[...]" or "UMCEvent[...]" becomes a name carrying
 * the value in upper-case hex without leading zeros (the seed writes
 * "Event[430076]" in Table 2, "0x43f664" in Table 1 and 16 digits for L3),
 * and the text goes through expr_parse/expr_format once, so that redundant
 * parentheses of the tables do not matter while any other difference does. */
static char *canonical(const char *text)
{
	size_t cap = strlen(text) * 2 + 64, o = 0;
	char *buf = xmalloc(cap);
	const char *p = text;

	while (*p) {
		const char *lb = strchr(p, '[');
		const char *word = p;
		if (lb) {
			word = lb;
			while (word > p && (isalnum((unsigned char)word[-1]) || word[-1] == '_'))
				word--;
		}
		if (!lb || word == lb) {
			size_t n = lb ? (size_t)(lb - p) + 1 : strlen(p);
			memcpy(buf + o, p, n);
			o += n;
			p += n;
			continue;
		}
		memcpy(buf + o, p, (size_t)(word - p));
		o += (size_t)(word - p);
		const char *rb = strchr(lb, ']');
		ck_assert_msg(rb != NULL, "unbalanced [ in '%s'", text);
		uint64_t v = strtoull(lb + 1, NULL, 16);   /* accepts an optional 0x */
		o += (size_t)snprintf(buf + o, cap - o, "%.*s_0x%" PRIX64, (int)(lb - word), word, v);
		p = rb + 1;
	}
	buf[o] = '\0';

	char *cause = NULL;
	int col = 0;
	struct expr *e = expr_parse(buf, &col, &cause);
	ck_assert_msg(e != NULL, "cannot parse '%s': %s", buf, cause ? cause : "?");
	char *s = expr_format(e, NULL, NULL);
	expr_free(e);
	free(buf);
	return s;
}

/* Table 1 and Table 2 of the seed. `raw` is the seed's formula with the
 * metric names of pmctop for the vendor's named sub-formulas ("Total
 * Dispatch Slots" -> total_dispatch_slots); rows marked with an erratum
 * number hold the corrected formula (docs/zen5-errata.md). */
static const struct vendor_row {
	const char *metric;
	const char *raw;
	int seed_line;
	int erratum;
} vendor_rows[] = {
	/* Table 1 */
	{ "branch_miss_ratio", "Event[0x4300C3] / Event[0x4300C2]", SEED_LINE(81), 0 },
	{ "l1d_access_all", "Event[0x430729]", SEED_LINE(83), 0 },
	/* Erratum 14: unit mask 0xFF (the L2 prefetches made for the L1 data
	 * prefetchers too) for the printed 0x1F. */
	{ "l2_access_all", "Event[0x43F160] + Event[0x43FF70] + Event[0x43FF71] + Event[0x43FF72]", SEED_LINE(84), 14 },
	{ "l2_access_from_l1i", "Event[0x431060]", SEED_LINE(85), 0 },
	{ "l2_access_from_l1d", "Event[0x43E060]", SEED_LINE(86), 0 },
	{ "l2_access_from_l2_hwpf", "Event[0x43FF70] + Event[0x43FF71] + Event[0x43FF72]", SEED_LINE(87), 14 },
	{ "l2_miss_all", "Event[0x430964] + Event[0x43FF71] + Event[0x43FF72]", SEED_LINE(88), 14 },
	{ "l2_miss_from_l1i", "Event[0x430164]", SEED_LINE(89), 0 },
	{ "l2_miss_from_l1d", "Event[0x430864]", SEED_LINE(90), 0 },
	{ "l2_miss_from_l2_hwpf", "Event[0x43FF71] + Event[0x43FF72]", SEED_LINE(91), 14 },
	{ "l2_hit_all", "Event[0x43f664] + Event[0x43FF70]", SEED_LINE(92), 14 },
	{ "l2_hit_from_l1i", "Event[0x430664]", SEED_LINE(93), 0 },
	{ "l2_hit_from_l1d", "Event[0x43F064]", SEED_LINE(94), 0 },
	{ "l2_hit_from_l2_hwpf", "Event[0x43FF70]", SEED_LINE(95), 14 },
	{ "l3_access_all", "L3Event[0x0300C0000040FF04]", SEED_LINE(96), 0 },
	{ "l3_miss_all", "L3Event[0x0300C00000400104]", SEED_LINE(97), 0 },
	/* Erratum 4 changes the unit (ns), not the formula. */
	{ "l3_miss_latency_ns", "L3Event[0x0303C00000403FAC] * 10 / L3Event[0x0303C00000403FAD]", SEED_LINE(99), 4 },
	{ "op_cache_fetch_miss_ratio", "Event[0x20043048F] / Event[0x20043078F]", SEED_LINE(100), 0 },
	{ "ic_fetch_miss_ratio", "Event[0x10043188E] / Event[0x100431F8E]", SEED_LINE(101), 0 },
	{ "l1d_fills_from_dram_io", "Event[0x434844]", SEED_LINE(103), 0 },
	{ "l1d_fills_from_remote_node", "Event[0x435044]", SEED_LINE(104), 0 },
	{ "l1d_fills_from_local_ccx", "Event[0x430344]", SEED_LINE(105), 0 },
	{ "l1d_fills_from_remote_ccx", "Event[0x431444]", SEED_LINE(106), 0 },
	/* Erratum 7: unit mask 0xFF (extension memory too) for the printed 0x5F. */
	{ "l1d_fills_all", "Event[0x43FF44]", SEED_LINE(107), 7 },
	{ "l1d_demand_fills_from_local_l2", "Event[0x430143]", SEED_LINE(108), 0 },
	{ "l1d_demand_fills_from_local_ccx", "Event[0x430243]", SEED_LINE(109), 0 },
	{ "l1d_demand_fills_from_near_cache", "Event[0x430443]", SEED_LINE(110), 0 },
	{ "l1d_demand_fills_from_near_dram", "Event[0x430843]", SEED_LINE(111), 0 },
	{ "l1d_demand_fills_from_far_cache", "Event[0x431043]", SEED_LINE(112), 0 },
	{ "l1d_demand_fills_from_far_dram", "Event[0x434043]", SEED_LINE(113), 0 },
	{ "wcb_lines_per_close", "Event[0x430150] / Event[0x432063]", SEED_LINE(114), 0 },
	/* Erratum 6: unit mask 0x0F (walks for every page size, coalesced
	 * pages too) for the printed 0x07. */
	{ "itlb_miss_l1", "Event[0x430084] + Event[0x430F85]", SEED_LINE(116), 6 },
	{ "itlb_miss_l2", "Event[0x430F85]", SEED_LINE(117), 6 },
	{ "dtlb_miss_l1", "Event[0x43FF45]", SEED_LINE(118), 0 },
	{ "dtlb_miss_l2", "Event[0x43F045]", SEED_LINE(119), 0 },
	{ "tlb_flushes", "Event[0x43FF78]", SEED_LINE(120), 0 },
	{ "macro_ops_dispatched", "Event[0x4307AA]", SEED_LINE(122), 0 },
	{ "mixed_sse_avx_stalls", "Event[0x430E0E]", SEED_LINE(123), 0 },
	{ "macro_ops_retired", "Event[0x4300C1]", SEED_LINE(124), 0 },
	/* Table 2, level 1. Erratum 1: the text says 6 slots, the formula 8. */
	{ "total_dispatch_slots", "8 * Event[430076]", SEED_LINE(130), 1 },
	{ "frontend_bound", "Event[1004301A0] / total_dispatch_slots", SEED_LINE(131), 0 },
	{ "bad_speculation", "(Event[4307AA] - Event[4300C1]) / total_dispatch_slots", SEED_LINE(132), 0 },
	{ "backend_bound", "Event[100431EA0] / total_dispatch_slots", SEED_LINE(133), 0 },
	{ "smt_contention", "Event[1004360A0] / total_dispatch_slots", SEED_LINE(134), 0 },
	{ "retiring", "Event[4300C1] / total_dispatch_slots", SEED_LINE(136), 0 },
	/* Table 2, level 2. Erratum 5: CntMask 8 (0x108...) for the printed 6
	 * (0x106...); erratum 2: parentheses around the difference; erratum 3:
	 * Event[43019F] for the printed Event[430796]. */
	{ "frontend_bound_latency", "8 * Event[1084301A0] / total_dispatch_slots", SEED_LINE(138), 5 },
	{ "frontend_bound_bw", "(Event[1004301A0] - (8 * Event[1084301A0])) / total_dispatch_slots", SEED_LINE(139), 2 },
	{ "bad_speculation_mispredicts", "bad_speculation * Event[4300C3] / (Event[4300C3] + Event[43019F])", SEED_LINE(140), 0 },
	{ "bad_speculation_pipeline_restarts", "bad_speculation * Event[43019F] / (Event[4300C3] + Event[43019F])", SEED_LINE(141), 3 },
	{ "backend_bound_memory", "backend_bound * (Event[43A2D6] / Event[4302D6])", SEED_LINE(142), 0 },
	{ "backend_bound_cpu", "backend_bound * (1 - (Event[43A2D6] / Event[4302D6]))", SEED_LINE(143), 0 },
	{ "retiring_fastpath", "retiring * (Event[4300C1] - Event[1004300C2]) / Event[4300C1]", SEED_LINE(144), 0 },
	{ "retiring_microcode", "retiring * Event[1004300C2] / Event[4300C1]", SEED_LINE(145), 0 },
};

START_TEST(test_vendor_formula)
{
	const struct vendor_row *r = &vendor_rows[_i];
	ck_assert_msg(model != NULL, "model did not load");
	int j = model_find_metric(model, r->metric);
	ck_assert_msg(j >= 0, "seed line %d: no metric %s", r->seed_line, r->metric);
	const struct metric_def *md = &model->metrics[j];
	char *got = listing(md);
	char *a = canonical(got), *b = canonical(r->raw);
	ck_assert_msg(strcmp(a, b) == 0, "seed line %d: %s lists as '%s', the seed says '%s'",
		      r->seed_line, r->metric, got, r->raw);
	/* ... and the listing command prints that very line. */
	char *line = xasprintf("= %s\n", got);
	ck_assert_msg(list_raw && strstr(list_raw, line), "--list-metrics --raw lacks '%s'", line);
	free(line);
	/* The corrected rows explain themselves with a note. */
	if (r->erratum)
		ck_assert_msg(md->note && strstr(md->note, "erratum"),
			      "seed line %d: %s needs a note on erratum %d", r->seed_line, r->metric, r->erratum);
	free(a);
	free(b);
	free(got);
}
END_TEST

/* The printed value, kept as an event, must differ from the corrected one:
 * guards against a "fix" that reverts to the erratum by accident. */
START_TEST(test_errata_values_kept_but_unused)
{
	static const uint64_t printed[] = { 0x430796, 0x1064301A0 };
	ck_assert_ptr_nonnull(model);
	for (size_t k = 0; k < ARRAY_SIZE(printed); k++) {
		int found = -1;
		for (int i = 0; i < model->nevents; i++)
			if (model->events[i].enc == ENC_RAW && model->events[i].raw == printed[k])
				found = i;
		ck_assert_msg(found >= 0, "no event for printed value 0x%" PRIX64, printed[k]);
		for (int j = 0; j < model->nmetrics; j++)
			for (int e = 0; e < model->metrics[j].nevents; e++)
				ck_assert_msg(model->metrics[j].events[e] != found,
					      "metric %s uses erratum value 0x%" PRIX64,
					      model->metrics[j].name, printed[k]);
	}
}
END_TEST

/* Every raw value the two tables print exists as an event of the model. */
static const struct { uint64_t raw; const char *notation; int seed_line; } table_values[] = {
	{ 0x4300C3, "Event", 81 }, { 0x4300C2, "Event", 81 }, { 0x430729, "Event", 83 },
	{ 0x43F160, "Event", 84 }, { 0x431F70, "Event", 84 }, { 0x431F71, "Event", 84 },
	{ 0x431F72, "Event", 84 }, { 0x431060, "Event", 85 }, { 0x43E060, "Event", 86 },
	{ 0x430964, "Event", 88 }, { 0x430164, "Event", 89 }, { 0x430864, "Event", 90 },
	{ 0x43F664, "Event", 92 }, { 0x430664, "Event", 93 }, { 0x43F064, "Event", 94 },
	{ 0x0300C0000040FF04, "L3Event", 96 }, { 0x0300C00000400104, "L3Event", 97 },
	{ 0x0303C00000403FAC, "L3Event", 99 }, { 0x0303C00000403FAD, "L3Event", 99 },
	{ 0x20043048F, "Event", 100 }, { 0x20043078F, "Event", 100 },
	{ 0x10043188E, "Event", 101 }, { 0x100431F8E, "Event", 101 },
	{ 0x434844, "Event", 103 }, { 0x435044, "Event", 104 }, { 0x430344, "Event", 105 },
	{ 0x431444, "Event", 106 }, { 0x435F44, "Event", 107 }, { 0x430143, "Event", 108 },
	{ 0x430243, "Event", 109 }, { 0x430443, "Event", 110 }, { 0x430843, "Event", 111 },
	{ 0x431043, "Event", 112 }, { 0x434043, "Event", 113 }, { 0x430150, "Event", 114 },
	{ 0x432063, "Event", 114 }, { 0x430084, "Event", 116 }, { 0x430785, "Event", 116 },
	{ 0x43FF45, "Event", 118 }, { 0x43F045, "Event", 119 }, { 0x43FF78, "Event", 120 },
	{ 0x4307AA, "Event", 122 }, { 0x430E0E, "Event", 123 }, { 0x4300C1, "Event", 124 },
	{ 0x430076, "Event", 130 }, { 0x1004301A0, "Event", 131 }, { 0x100431EA0, "Event", 133 },
	{ 0x1004360A0, "Event", 134 }, { 0x1064301A0, "Event", 138 }, { 0x43019F, "Event", 140 },
	{ 0x430796, "Event", 141 }, { 0x43A2D6, "Event", 142 }, { 0x4302D6, "Event", 142 },
	{ 0x1004300C2, "Event", 144 },
};

START_TEST(test_table_value_exists)
{
	ck_assert_ptr_nonnull(model);
	bool found = false;
	for (int i = 0; i < model->nevents && !found; i++) {
		const struct event_def *ev = &model->events[i];
		found = ev->enc == ENC_RAW && ev->raw == table_values[_i].raw &&
			strcmp(model->pmus[ev->pmu].notation, table_values[_i].notation) == 0;
	}
	ck_assert_msg(found, "seed line %d: no event with %s[0x%" PRIX64 "]", table_values[_i].seed_line,
		      table_values[_i].notation, table_values[_i].raw);
}
END_TEST

/* ------------------------------------------------------------------------
 * Raw values against the PMUs' field layouts.
 * ------------------------------------------------------------------------ */

static uint64_t field_mask(const struct pmu_def *pmu)
{
	uint64_t m = 0;
	for (int f = 0; f < pmu->nfields; f++)
		for (int r = 0; r < pmu->fields[f].nranges; r++)
			for (int b = pmu->fields[f].range[r].lo; b <= pmu->fields[f].range[r].hi; b++)
				m |= UINT64_C(1) << b;
	return m;
}

START_TEST(test_raw_values_decode)
{
	ck_assert_ptr_nonnull(model);
	int nraw = 0;
	for (int i = 0; i < model->nevents; i++) {
		const struct event_def *ev = &model->events[i];
		if (ev->enc != ENC_RAW)
			continue;
		nraw++;
		const struct pmu_def *pmu = &model->pmus[ev->pmu];
		uint64_t stray = ev->raw & ~(field_mask(pmu) | pmu->ignore_mask);
		ck_assert_msg(stray == 0, "%s: raw 0x%" PRIX64 " sets bits 0x%" PRIX64 " outside %s's fields",
			      ev->name, ev->raw, stray, pmu->name);

		/* Splitting into fields and putting them back gives the value
		 * less the kernel-owned bits. */
		const char *names[16];
		uint64_t values[16];
		int n = encode_raw_fields(pmu, ev->raw, names, values, 16);
		ck_assert_int_eq(n, pmu->nfields);
		uint64_t back = 0;
		for (int f = 0; f < n; f++) {
			const struct hw_field *hf = NULL;
			for (int g = 0; g < pmu->nfields; g++)
				if (strcmp(pmu->fields[g].name, names[f]) == 0)
					hf = &pmu->fields[g];
			ck_assert_ptr_nonnull(hf);
			uint64_t v = values[f];
			for (int r = 0; r < hf->nranges; r++) {
				int w = hf->range[r].hi - hf->range[r].lo + 1;
				back |= (v & ((UINT64_C(1) << w) - 1)) << hf->range[r].lo;
				v >>= w;
			}
			ck_assert_msg(v == 0, "%s: field %s too wide", ev->name, names[f]);
		}
		ck_assert_msg(back == (ev->raw & ~pmu->ignore_mask), "%s: fields give 0x%" PRIX64, ev->name, back);

		/* The vendor's tables print core values with USR, OS and En set
		 * (0x43 in bits 23:16) and L3 values with En set. */
		if (strcmp(pmu->name, "core") == 0)
			ck_assert_msg((ev->raw & 0xFF0000) == 0x430000, "%s: bits 23:16 not 0x43", ev->name);
		if (strcmp(pmu->name, "l3") == 0)
			ck_assert_msg(ev->raw & (UINT64_C(1) << 22), "%s: En not set", ev->name);
	}
	ck_assert_int_gt(nraw, 300);
}
END_TEST

static uint64_t event_select(const struct event_def *ev)
{
	return (ev->raw & 0xFF) | ((ev->raw >> 24) & 0xF00);
}

/* Section 1.3: only PMCx003 (FP retired SSE/AVX FLOPs, "Use MergeEvent
 * feature for accurate results", seed line 186) needs a merged pair. */
START_TEST(test_merge_flags)
{
	ck_assert_ptr_nonnull(model);
	int nmerge = 0;
	for (int i = 0; i < model->nevents; i++) {
		const struct event_def *ev = &model->events[i];
		if (ev->enc != ENC_RAW || strcmp(model->pmus[ev->pmu].name, "core") != 0) {
			ck_assert_msg(!(ev->flags & EVF_MERGE), "%s: merge on a non-core event", ev->name);
			continue;
		}
		bool mergeable = event_select(ev) == 0x003;
		ck_assert_msg(!!(ev->flags & EVF_MERGE) == mergeable, "%s: merge flag %s", ev->name,
			      mergeable ? "missing" : "on an event the seed does not call merge-able");
		nmerge += mergeable;
	}
	ck_assert_int_ge(nmerge, 10);
}
END_TEST

/* fp_packed_ratio needs three PMCx003 events, each a merged pair: six
 * counters. FlopTypeSel (unit mask bits 7:5) is a number, not a set of
 * bits, so packed single and packed double cannot be one encoding. With
 * all six counters free (no NMI watchdog) the scheduler keeps the three in
 * one group and the ratio is one window's; with the watchdog holding one
 * (five free) no group can hold them, and the metric is planned across
 * groups (bounded to 0..1 and marked, derive_bounds.c). */
START_TEST(test_fp_packed_one_window)
{
	ck_assert_ptr_nonnull(model);
	int mi = model_find_metric(model, "fp_packed_ratio");
	ck_assert_int_ge(mi, 0);
	int core = model_find_pmu(model, "core");
	for (int free_core = 6; free_core >= 5; free_core--) {
		int *fc = xmalloc(sizeof(int) * (size_t)model->npmus);
		for (int p = 0; p < model->npmus; p++)
			fc[p] = p == core ? free_core : model->pmus[p].counters;
		struct sched_request rq = { 1, &mi, 0, NULL, fc, NULL, NULL, 0, NULL };
		char *cause = NULL;
		struct sched_plan *p = sched_plan(model, &rq, &cause);
		ck_assert_msg(p != NULL, "%s", cause ? cause : "?");
		const struct metric_def *md = &model->metrics[mi];
		int together = 0;
		for (int g = 0; g < p->ngroups; g++) {
			int held = 0;
			for (int k = 0; k < md->nevents; k++)
				for (int j = 0; j < p->groups[g].nevents; j++)
					held += p->groups[g].events[j] == md->events[k];
			together += held == md->nevents;
		}
		ck_assert_int_eq(together, free_core == 6 ? 1 : 0);
		ck_assert(p->metric_split[mi] == (free_core == 5));
		sched_plan_free(p);
		free(fc);
	}
}
END_TEST

/* UMC counters saturate; every UMC event says so. */
START_TEST(test_umc_saturates)
{
	ck_assert_ptr_nonnull(model);
	int n = 0;
	for (int i = 0; i < model->nevents; i++)
		if (strcmp(model->pmus[model->events[i].pmu].name, "umc") == 0) {
			ck_assert_msg(model->events[i].flags & EVF_SATURATES, "%s", model->events[i].name);
			n++;
		}
	ck_assert_int_ge(n, 13);
}
END_TEST

/* ------------------------------------------------------------------------
 * The simulated PMU's formulas against a consistent workload.
 * ------------------------------------------------------------------------ */

/* One interval of one busy CPU, consistent in the way the workload model
 * promises: the slots add up (fe + be + smt + dispatched = 8 x cycles),
 * fe_latency_cycles <= fe_stall_slots / 8, misses <= accesses. */
static const struct { const char *name; double v; } workload[] = {
	{ "cycles", 4e9 }, { "ref_cycles", 3e9 }, { "busy_ns", 1e9 }, { "total_ns", 1e9 },
	{ "instructions", 6e9 }, { "ops", 7e9 }, { "ops_dispatched", 7.7e9 }, { "dispatch_slots", 32e9 },
	{ "fe_stall_slots", 8e9 }, { "fe_latency_cycles", 0.5e9 }, { "be_stall_slots", 14.3e9 },
	{ "smt_stall_slots", 2e9 }, { "be_mem_cycles", 1e9 }, { "be_cycles", 2.2e9 },
	{ "microcode_ops", 0.1e9 }, { "branches", 1.2e9 }, { "branch_misses", 0.02e9 },
	{ "taken_branches", 0.7e9 }, { "resyncs", 0.001e9 }, { "l1d_access", 2.4e9 },
	{ "l1d_miss", 0.1e9 }, { "l1i_miss", 0.01e9 }, { "l2_access", 0.132e9 },
	{ "l2_miss", 0.0264e9 }, { "l2_hit", 0.1056e9 }, { "l2_pf_hit", 0.0176e9 },
	{ "l2_pf_miss", 0.0044e9 }, { "l3_access", 0.0264e9 }, { "l3_miss", 0.01e9 },
	{ "l3_lat_sum", 5e6 }, { "l3_lat_req", 0.625e6 }, { "dtlb_miss", 2e6 }, { "itlb_miss", 1e6 },
	{ "dtlb_walk", 0.5e6 }, { "itlb_walk", 0.2e6 }, { "flops", 3e9 },
	{ "mem_read_bytes", 0.64e9 }, { "mem_write_bytes", 0.2e9 }, { "memclk", 6e9 },
	{ "data_bus_busy", 0.05e9 }, { "ctx_switches", 1000 }, { "migrations", 10 }, { "page_faults", 50 },
	{ "flops_packed", 2.1e9 }, { "op_cache_access", 1.54e9 }, { "op_cache_miss", 0.077e9 },
	{ "l2_miss_l1d", 0.02e9 }, { "l2_miss_l1i", 0.002e9 }, { "data_bus_busy_rd", 0.038e9 },
	{ "data_bus_busy_wr", 0.012e9 }, { "l3_lat_cycles", 20e6 }, { "be_mem_slots", 5e9 },
	{ "core_energy", 5e9 }, { "uncore_energy", 14e9 }, { "dram_energy", 3e9 },
	/* L1D fills by source: the L1D misses (0.1e9) that hit the L2, the
	 * L3 (62 % of the 0.02e9 that miss the L2), another CCX's cache or
	 * DRAM; demand fills 60 % of each. */
	{ "l1d_fill_l2", 0.08e9 }, { "l1d_fill_ccx", 0.01242e9 }, { "l1d_fill_near_cache", 0.001e9 },
	{ "l1d_fill_far_cache", 0.0003e9 }, { "l1d_fill_near_dram", 0.0052e9 }, { "l1d_fill_far_dram", 0.00108e9 },
	{ "l1d_dmnd_fill_l2", 0.048e9 }, { "l1d_dmnd_fill_ccx", 0.007452e9 }, { "l1d_dmnd_fill_near_cache", 0.0006e9 },
	{ "l1d_dmnd_fill_far_cache", 0.00018e9 }, { "l1d_dmnd_fill_near_dram", 0.00312e9 },
	{ "l1d_dmnd_fill_far_dram", 0.000648e9 },
	/* Sources that only "all" masks count: 40 % of the L2 prefetches made
	 * for the L1 data prefetchers, and fills from extension memory on top
	 * of the DRAM ones above (so the fills add up to l1d_miss + ext). */
	{ "l2_pf_hit_l1dc", 0.00704e9 }, { "l2_pf_miss_l1dc", 0.00176e9 },
	{ "l1d_fill_ext", 0.0005e9 }, { "l1d_dmnd_fill_ext", 0.0003e9 },
	{ "fp16_flops_scalar", 0.09e9 }, { "fp16_flops_packed", 0.21e9 },
	/* 6e9 instructions of 4 bytes in 32-byte fetches, plus half the taken
	 * branches; 1.2 missed fetches per L1I miss. FP uops: 0.9e9 scalar
	 * FLOPs one each, 2.1e9 packed FLOPs in 128-, 256- and 512-bit uops.
	 * Loads are 70 % of the L1D accesses and of the demand fills (0.06e9, 0.012e9 of them from
	 * beyond the L2 and 0.004548e9 from beyond the CCX). */
	{ "ic_fetch", 1.1e9 }, { "ic_fetch_miss", 0.012e9 },
	{ "fp_uops_scalar", 0.9e9 }, { "fp_uops_128", 0.2e9 }, { "fp_uops_256", 0.1e9 }, { "fp_uops_512", 0.05e9 },
	{ "l1d_loads", 1.68e9 }, { "l1d_load_miss", 0.042e9 }, { "l2_load_miss", 0.0084e9 }, { "l3_load_miss", 0.0031836e9 },
	/* Rare events: 1 fault in 10,000 FP uops, a fifth as many x87 ones;
	 * write-combining closes, 80 % of them full; 40 clocks a page walk. */
	{ "fp_faults_sse_avx", 0.000125e9 }, { "fp_faults_x87", 0.000025e9 }, { "wcb_close", 0.0001e9 },
	{ "wcb_full", 0.00008e9 }, { "dtlb_walk_cycles", 20e6 }, { "itlb_walk_cycles", 6e6 },
	{ "dram_page_conflicts", 1.3e6 },
};

static int resolve_quantity(void *ctx, const char *name)
{
	(void)ctx;
	for (size_t q = 0; q < ARRAY_SIZE(workload); q++)
		if (strcmp(workload[q].name, name) == 0)
			return (int)q;
	return -1;
}

static double quantity_value(void *ctx, int ref)
{
	(void)ctx;
	return ref >= 0 && ref < (int)ARRAY_SIZE(workload) ? workload[ref].v : NAN;
}

static double *event_values;

/* Software and /proc figures (from generic/software.def) have no sim line
 * that this test can rely on; the ones the metrics use come from here. */
static double software_value(const char *name)
{
	if (strcmp(name, "cpu_busy_ns") == 0)
		return 1e9;
	if (strcmp(name, "cpu_total_ns") == 0)
		return 1e9;
	return NAN;
}

static double metric_value(void *ctx, int ref);

static double metric_value(void *ctx, int ref)
{
	(void)ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return 1.0;
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + model->nmetrics)
		return expr_eval(model->metrics[ref - METRIC_REF_BASE].expr, metric_value, NULL);
	if (ref >= 0 && ref < model->nevents)
		return event_values[ref];
	return NAN;
}

static double M(const char *name)
{
	int j = model_find_metric(model, name);
	ck_assert_msg(j >= 0, "no metric %s", name);
	return expr_eval(model->metrics[j].expr, metric_value, NULL);
}

static void compute_events(void)
{
	event_values = xcalloc((size_t)model->nevents, sizeof(double));
	for (int i = 0; i < model->nevents; i++) {
		const struct event_def *ev = &model->events[i];
		event_values[i] = NAN;
		if (ev->sim_text) {
			char *cause = NULL;
			int col = 0;
			struct expr *e = expr_parse(ev->sim_text, &col, &cause);
			ck_assert_msg(e != NULL, "%s: sim: %s", ev->name, cause ? cause : "?");
			ck_assert_msg(expr_resolve(e, resolve_quantity, NULL, &col, &cause) == 0,
				      "%s: sim: %s", ev->name, cause ? cause : "?");
			event_values[i] = expr_eval(e, quantity_value, NULL);
			expr_free(e);
			ck_assert_msg(isfinite(event_values[i]) && event_values[i] >= 0,
				      "%s: sim gives %g", ev->name, event_values[i]);
		} else {
			event_values[i] = software_value(ev->name);
		}
	}
}

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(a) + fabs(b) + 1e-12))

START_TEST(test_sim_physics)
{
	ck_assert_ptr_nonnull(model);
	compute_events();

	/* Every metric of every view computes a finite number. */
	for (int v = 0; v < model->nviews; v++)
		for (int c = 0; c < model->views[v].ncols; c++) {
			const struct metric_def *md = &model->metrics[model->views[v].cols[c].metric];
			if (md->scope != SCOPE_THREAD && md->scope != SCOPE_CCX && md->scope != SCOPE_SOCKET)
				continue;
			bool software = false;
			for (int e = 0; e < md->nevents; e++)
				software |= model->pmus[model->events[md->events[e]].pmu].kind == PMU_SOFTWARE;
			if (software)
				continue;  /* cs_per_s and util: generic/software.def's business */
			double x = expr_eval(md->expr, metric_value, NULL);
			ck_assert_msg(isfinite(x), "view %s: %s = %g", model->views[v].name, md->name, x);
		}

	/* Topdown level 1 adds up; each level-2 pair adds up to its parent. */
	double l1 = M("frontend_bound") + M("bad_speculation") + M("backend_bound") +
		    M("smt_contention") + M("retiring");
	ck_assert_msg(NEAR(l1, 1.0), "level 1 sums to %g", l1);
	ck_assert(NEAR(M("frontend_bound_latency") + M("frontend_bound_bw"), M("frontend_bound")));
	ck_assert(M("frontend_bound_bw") >= 0);
	ck_assert(NEAR(M("bad_speculation_mispredicts") + M("bad_speculation_pipeline_restarts"),
		       M("bad_speculation")));
	ck_assert(NEAR(M("backend_bound_memory") + M("backend_bound_cpu"), M("backend_bound")));
	ck_assert(NEAR(M("retiring_fastpath") + M("retiring_microcode"), M("retiring")));
	ck_assert(NEAR(M("total_dispatch_slots"), 32e9));

	/* Caches: hits + misses = accesses, misses <= accesses at each level. */
	ck_assert(NEAR(M("l2_hit_all") + M("l2_miss_all"), M("l2_access_all")));
	ck_assert(NEAR(M("l2_hit_from_l1d") + M("l2_miss_from_l1d"), M("l2_access_from_l1d")));
	ck_assert(NEAR(M("l2_hit_from_l1i") + M("l2_miss_from_l1i"), M("l2_access_from_l1i")));
	ck_assert(NEAR(M("l2_hit_from_l2_hwpf") + M("l2_miss_from_l2_hwpf"), M("l2_access_from_l2_hwpf")));
	ck_assert(NEAR(M("l2_access_all"), 0.132e9));
	/* Every L1D fill came from somewhere: a cache, DRAM or extension
	 * memory, which "all" counts too (erratum 7). */
	int ext = model_find_event(model, "ls_any_fills_from_sys.alternate_memories");
	ck_assert_int_ge(ext, 0);
	ck_assert(event_values[ext] > 0);
	ck_assert(NEAR(M("l1d_fills_from_local_ccx") + M("l1d_fills_from_remote_ccx") + M("l1d_fills_from_dram_io") +
		       event_values[ext], M("l1d_fills_all")));
	ck_assert(NEAR(M("l1d_fills_all"), 0.1005e9));
	ck_assert(NEAR(M("l2_miss_all"), 0.0264e9));
	ck_assert(M("l1d_miss_rate") > 0 && M("l1d_miss_rate") <= 1);
	ck_assert(M("l3_miss_rate") > 0 && M("l3_miss_rate") <= 1);
	ck_assert(NEAR(M("l3_hit_rate") + M("l3_miss_rate"), 1.0));
	ck_assert(M("ic_fetch_miss_ratio") <= 1 && M("op_cache_fetch_miss_ratio") <= 1);
	ck_assert(M("dtlb_miss_l2") <= M("dtlb_miss_l1") && M("itlb_miss_l2") <= M("itlb_miss_l1"));

	/* Latency = sum / requests, in 10 ns units; cycles at the measured clock. */
	ck_assert(NEAR(M("l3_miss_latency_ns"), 80.0));
	ck_assert(NEAR(M("ghz"), 4.0));
	ck_assert(NEAR(M("l3_miss_latency_cycles"), 320.0));
	ck_assert(NEAR(M("ipc"), 1.5) && NEAR(M("cpi"), 1.0 / 1.5));
	ck_assert(M("ops_per_instr") >= 1);

	/* Bandwidth = CAS x 64 B / s, in GB/s; the bus is busy at most always. */
	ck_assert(NEAR(M("mem_read_bw"), 0.64));
	ck_assert(NEAR(M("mem_write_bw"), 0.2));
	ck_assert(M("mem_bus_util") >= 0 && M("mem_bus_util") <= 1);
	ck_assert(NEAR(M("flops_per_s"), 3.03));

	free(event_values);
	event_values = NULL;
}
END_TEST

/* The model's identity, its scopes, and its views. */
START_TEST(test_model_shape)
{
	ck_assert_ptr_nonnull(model);
	ck_assert_str_eq(model->name, "amd-zen5");
	ck_assert_int_ge(model->nmatch, 1);
	ck_assert_str_eq(model->match[0].vendor, "AuthenticAMD");
	ck_assert_int_eq(model->match[0].family, 0x1a);
	ck_assert_int_eq(model->match[0].model_lo, 0x00);
	/* Every Zen 5 part of the family (docs/zen5-errata.md). */
	ck_assert_int_eq(model->match[0].model_hi, 0x2f);
	ck_assert_int_eq(model->nmatch, 3);
	ck_assert_int_eq(model->match[1].model_lo, 0x40);
	ck_assert_int_eq(model->match[1].model_hi, 0x4f);
	ck_assert_int_eq(model->match[2].model_lo, 0x60);
	ck_assert_int_eq(model->match[2].model_hi, 0x7f);

	static const struct { const char *pmu; enum scope scope; int counters; const char *notation; } pmus[] = {
		{ "core", SCOPE_THREAD, 6, "Event" },
		{ "l3", SCOPE_CCX, 6, "L3Event" },
		{ "umc", SCOPE_SOCKET, 4, "UMCEvent" },
	};
	for (size_t k = 0; k < ARRAY_SIZE(pmus); k++) {
		int p = model_find_pmu(model, pmus[k].pmu);
		ck_assert_msg(p >= 0, "no pmu %s", pmus[k].pmu);
		ck_assert_int_eq(model->pmus[p].scope, pmus[k].scope);
		ck_assert_int_eq(model->pmus[p].counters, pmus[k].counters);
		ck_assert_str_eq(model->pmus[p].notation, pmus[k].notation);
	}
	ck_assert_int_eq(model->pmus[model_find_pmu(model, "core")].nmi_reserved, 1);

	/* Digit keys 1-8, each once; only the batch summary, the tasks view
	 * (T opens it) and the power and privilege views (Tab reaches them;
	 * key 9 is left to the user's own views) have no key. */
	int seen[10] = { 0 };
	for (int v = 0; v < model->nviews; v++) {
		if (!strcmp(model->views[v].name, "power") || !strcmp(model->views[v].name, "privilege")) {
			ck_assert_int_eq(model->views[v].key, 0);
			continue;
		}
		if (!strcmp(model->views[v].name, "batch") || !strcmp(model->views[v].name, "tasks")) {
			ck_assert_int_eq(model->views[v].key, 0);
			ck_assert(model->views[v].tasks == !strcmp(model->views[v].name, "tasks"));
			continue;
		}
		ck_assert_int_ge(model->views[v].key, 1);
		ck_assert_int_le(model->views[v].key, 9);
		ck_assert_int_eq(seen[model->views[v].key]++, 0);
	}
	for (int k = 1; k <= 8; k++)
		ck_assert_msg(seen[k], "no view on key %d", k);

	/* The topdown bar holds the level-1 fractions. */
	int td = model_find_view(model, "topdown");
	ck_assert_int_ge(td, 0);
	ck_assert_int_eq(model->views[td].nbar, 5);
	ck_assert_int_eq(model->views[td].key, 2);

	/* Each metric group the brief names has members. */
	static const char *const groups[] = { "basic", "branch", "l1", "l2", "l3", "tlb", "fp",
					      "topdown_l1", "topdown_l2", "memory", "stalls" };
	for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
		int n = 0;
		for (int j = 0; j < model->nmetrics; j++)
			n += metric_in_group(&model->metrics[j], groups[g]);
		ck_assert_msg(n > 0, "group %s is empty", groups[g]);
	}
	ck_assert_int_eq(model->metrics[model_find_metric(model, "l3_hit_rate")].scope, SCOPE_CCX);
	ck_assert_int_eq(model->metrics[model_find_metric(model, "mem_read_bw")].scope, SCOPE_SOCKET);
	ck_assert_int_eq(model->metrics[model_find_metric(model, "ipc")].scope, SCOPE_THREAD);
}
END_TEST

static Suite *zen5_suite(void)
{
	Suite *s = suite_create("zen5");
	TCase *tc = tcase_create("model");
	tcase_add_unchecked_fixture(tc, load_model, free_model);
	tcase_add_test(tc, test_model_shape);
	tcase_add_loop_test(tc, test_vendor_formula, 0, (int)ARRAY_SIZE(vendor_rows));
	tcase_add_test(tc, test_errata_values_kept_but_unused);
	tcase_add_loop_test(tc, test_table_value_exists, 0, (int)ARRAY_SIZE(table_values));
	tcase_add_test(tc, test_raw_values_decode);
	tcase_add_test(tc, test_merge_flags);
	tcase_add_test(tc, test_fp_packed_one_window);
	tcase_add_test(tc, test_umc_saturates);
	tcase_add_test(tc, test_sim_physics);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(zen5_suite());
	/* No fork: the model is loaded once by the unchecked fixture. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
