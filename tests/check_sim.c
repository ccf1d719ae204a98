/* check_sim.c: tests of the simulated PMU's workload model (sim_workload.c)
 * and of the backend (backend_sim.c): physical consistency of every
 * quantity, determinism, counter limits, scheduling and the kernel's
 * multiplexing, time accounting, the list of open groups as groups close,
 * constant rates, injected faults and uncore instances. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <inttypes.h>
#include <time.h>

#include "backend.h"
#include "evdef.h"
#include "expr.h"
#include "sim_masks.h"
#include "sim_workload.h"
#include "topo.h"
#include "util.h"

/* ---- workload model ---- */

/* Within a phase the rates move from segment to segment (2 to 40 ms):
 * IPC and the L3 miss ratio of 50 ms windows differ, while every window
 * stays physically consistent. */
START_TEST(test_segments)
{
	struct wl_params p;
	wl_params_default(&p);
	/* A part with extension memory and FP16: their quantities too. */
	p.ext_mem = p.fp16 = true;
	int moved = 0, windows = 0, ext = 0;
	for (int cpu = 0; cpu < 8; cpu++) {
		struct wl_cpu c;
		wl_cpu_init(&c, &p, cpu);
		double lo = 1e9, hi = 0;
		for (uint64_t t = 0; t < 3000000000ULL; t += 50000000ULL) {
			double q[WQ_COUNT] = { 0 };
			wl_cpu_advance(&c, &p, t, 50000000ULL, q);
			double ipc = q[WQ_INSTRUCTIONS] / q[WQ_CYCLES];
			lo = fmin(lo, ipc);
			hi = fmax(hi, ipc);
			windows++;
			ck_assert_double_le(q[WQ_BUSY_NS], q[WQ_TOTAL_NS] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_L3_MISS], q[WQ_L3_ACCESS] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_OPS], q[WQ_OPS_DISPATCHED] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_FLOPS_PACKED], q[WQ_FLOPS] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_OP_CACHE_MISS], q[WQ_OP_CACHE_ACCESS] * (1 + 1e-12));
			double fills = 0;
			for (int k = WQ_L1D_FILL_L2; k <= WQ_L1D_FILL_FAR_DRAM; k++) {
				ck_assert_double_ge(q[k], 0);
				ck_assert_double_le(q[k + WQ_L1D_DMND_FILL_L2 - WQ_L1D_FILL_L2], q[k] * (1 + 1e-12));
				fills += q[k];
			}
			/* Extension memory's fills are among the fills from beyond the
			 * CCX, the demand ones among them. */
			ck_assert_double_le(q[WQ_L1D_DMND_FILL_EXT], q[WQ_L1D_FILL_EXT] * (1 + 1e-12));
			fills += q[WQ_L1D_FILL_EXT];
			ext += q[WQ_L1D_FILL_EXT] > 0 && q[WQ_FP16_FLOPS_PACKED] > 0;
			ck_assert_double_eq_tol(fills, q[WQ_L1D_MISS], 1e-9 * q[WQ_L1D_MISS] + 1e-6);
			ck_assert_double_le(q[WQ_L2_PF_HIT_L1DC], q[WQ_L2_PF_HIT] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_L2_PF_MISS_L1DC], q[WQ_L2_PF_MISS] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_FP16_FLOPS_PACKED], q[WQ_FLOPS_PACKED] * (1 + 1e-12));
			ck_assert_double_le(q[WQ_FP16_FLOPS_SCALAR], (q[WQ_FLOPS] - q[WQ_FLOPS_PACKED]) * (1 + 1e-9));
			double slots = q[WQ_OPS_DISPATCHED] + q[WQ_FE_STALL_SLOTS] + q[WQ_BE_STALL_SLOTS] +
				       q[WQ_SMT_STALL_SLOTS];
			ck_assert_double_eq_tol(slots / q[WQ_DISPATCH_SLOTS], 1.0, 1e-9);
		}
		moved += hi > lo * 1.1;
	}
	ck_assert_int_gt(windows, 0);
	ck_assert_int_gt(ext, 0);
	ck_assert_msg(moved >= 6, "IPC moved by over 10%% within 3 s on only %d of 8 CPUs", moved);
}
END_TEST

/* fine=F moves the rates within a segment, and only then: two 0.5 ms
 * spans of one segment have the same IPC without it; with it, spans of
 * 0.5 ms differ while a whole second's total stays near the segments'
 * own (the moves go both ways). Runs with and without it are otherwise
 * the same: the segments and phases do not shift. */
START_TEST(test_fine_spans)
{
	struct wl_params p0, p1;
	wl_params_default(&p0);
	p0.seed = 7;
	p1 = p0;
	p1.fine = 0.5;
	int same0 = 0, moved1 = 0, spans = 0;
	double tot0[WQ_COUNT] = { 0 }, tot1[WQ_COUNT] = { 0 };
	for (int cpu = 0; cpu < 4; cpu++) {
		struct wl_cpu c0, c1;
		wl_cpu_init(&c0, &p0, cpu);
		wl_cpu_init(&c1, &p1, cpu);
		double last0 = NAN, last1 = NAN;
		uint64_t seg = UINT64_MAX;   /* the segment of the last span wholly in one */
		for (uint64_t t = 0; t < 1000000000ULL; t += 500000ULL) {
			double q0[WQ_COUNT] = { 0 }, q1[WQ_COUNT] = { 0 };
			uint64_t seg_before = c0.seg_no, phase_before = c0.phase_no;
			wl_cpu_advance(&c0, &p0, t, 500000ULL, q0);
			wl_cpu_advance(&c1, &p1, t, 500000ULL, q1);
			ck_assert_uint_eq(c0.seg_no, c1.seg_no);
			ck_assert_uint_eq(c0.phase_no, c1.phase_no);
			for (int q = 0; q < WQ_COUNT; q++) {
				tot0[q] += q0[q];
				tot1[q] += q1[q];
			}
			double ipc0 = q0[WQ_INSTRUCTIONS] / q0[WQ_CYCLES], ipc1 = q1[WQ_INSTRUCTIONS] / q1[WQ_CYCLES];
			/* Spans wholly inside one segment, this one and the one
			 * before in the same. */
			bool whole = seg_before == c0.seg_no && phase_before == c0.phase_no;
			if (whole && seg == seg_before && isfinite(last0) && isfinite(ipc0)) {
				spans++;
				same0 += fabs(ipc0 - last0) <= 1e-9 * fabs(ipc0);
				moved1 += fabs(ipc1 - last1) > 1e-3 * fabs(ipc1);
			}
			seg = whole ? c0.seg_no : UINT64_MAX;
			last0 = ipc0;
			last1 = ipc1;
		}
	}
	ck_assert_int_gt(spans, 1000);
	ck_assert_int_eq(same0, spans);
	/* Two spans of 0.5 ms often lie in one fine span (0.1-2 ms), or
	 * both at a blend clamped to 0: about half move. */
	ck_assert_msg(moved1 > spans / 3, "fine=0.5 moved IPC in only %d of %d spans", moved1, spans);
	ck_assert_double_eq_tol(tot1[WQ_INSTRUCTIONS] / tot0[WQ_INSTRUCTIONS], 1.0, 0.1);
}
END_TEST

START_TEST(test_quantity_names)
{
	/* Every quantity of docs/definitions.md resolves, and back. */
	static const char *const doc[] = {
		"cycles", "ref_cycles", "busy_ns", "total_ns", "instructions", "ops",
		"ops_dispatched", "dispatch_slots", "fe_stall_slots", "fe_latency_cycles",
		"be_stall_slots", "smt_stall_slots", "be_mem_cycles", "be_cycles",
		"microcode_ops", "branches", "branch_misses", "taken_branches", "resyncs",
		"l1d_access", "l1d_miss", "l1i_miss", "l2_access", "l2_miss", "l2_hit",
		"l2_pf_hit", "l2_pf_miss", "l3_access", "l3_miss", "l3_lat_sum", "l3_lat_req",
		"dtlb_miss", "itlb_miss", "dtlb_walk", "itlb_walk", "flops",
		"mem_read_bytes", "mem_write_bytes", "memclk", "data_bus_busy",
		"ctx_switches", "migrations", "page_faults", "flops_packed", "op_cache_access",
		"op_cache_miss", "l2_miss_l1d", "l2_miss_l1i", "data_bus_busy_rd", "data_bus_busy_wr",
		"l3_lat_cycles", "be_mem_slots", "core_energy", "uncore_energy", "dram_energy",
		"l1d_fill_l2", "l1d_fill_ccx", "l1d_fill_near_cache", "l1d_fill_far_cache",
		"l1d_fill_near_dram", "l1d_fill_far_dram", "l1d_dmnd_fill_l2", "l1d_dmnd_fill_ccx",
		"l1d_dmnd_fill_near_cache", "l1d_dmnd_fill_far_cache", "l1d_dmnd_fill_near_dram",
		"l1d_dmnd_fill_far_dram", "ic_fetch", "ic_fetch_miss", "fp_uops_scalar", "fp_uops_128",
		"fp_uops_256", "fp_uops_512", "l1d_loads", "l1d_load_miss", "l2_load_miss", "l3_load_miss", "fp_faults_sse_avx", "fp_faults_x87", "wcb_close", "wcb_full",
		"dtlb_walk_cycles", "itlb_walk_cycles", "dram_page_conflicts",
		"fsb_clk", "fsb_writebacks", "fsb_partial", "fsb_busy", "fp_x87_ops", "sse_packed_single",
		"sse_packed_double", "sse_scalar_single", "sse_scalar_double", "rat_stall_flags",
		"rat_stall_registers", "rat_stall_rob_read", "rat_stall_scoreboard", "fp_to_mmx", "mmx_to_fp",
		"baclears", "kernel_cycles", "kernel_instructions",
		"l2_pf_hit_l1dc", "l2_pf_miss_l1dc", "l1d_fill_ext", "l1d_dmnd_fill_ext",
		"fp16_flops_scalar", "fp16_flops_packed",
	};
	ck_assert_int_eq((int)(sizeof(doc) / sizeof(doc[0])), WQ_COUNT);
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		int q = wl_quantity_lookup(doc[i]);
		ck_assert_msg(q >= 0, "%s not found", doc[i]);
		ck_assert_str_eq(wl_quantity_name(q), doc[i]);
	}
	ck_assert_int_eq(wl_quantity_lookup("l4_miss"), -1);
	ck_assert_int_eq(wl_quantity_lookup(NULL), -1);
	ck_assert_ptr_null(wl_quantity_name(WQ_COUNT));
	ck_assert_ptr_null(wl_quantity_name(-1));
}
END_TEST

/* Check records the place of every assertion it evaluates, which costs a
 * system call; the loops below evaluate a million conditions, so they
 * call Check only when a condition fails. */
#define CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)
#define NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol), \
	"cpu %d t %.3f s: %s = %g, %s = %g", cpu, t / 1e9, #a, (double)(a), #b, (double)(b))

/* Asserts a <= b with a relative tolerance for rounding. */
#define LE(a, b) CHECK((a) <= (b) * (1 + 1e-9) + 1e-6, \
	"cpu %d t %.3f s: %s = %g > %s = %g", cpu, t / 1e9, #a, (double)(a), #b, (double)(b))

static void check_consistent(const struct wl_params *p, const double *q, uint64_t dt, int cpu,
			     uint64_t t)
{
	LE(q[WQ_BUSY_NS], q[WQ_TOTAL_NS]);
	NEAR(q[WQ_TOTAL_NS], (double)dt, 1e-6);
	LE(q[WQ_CYCLES], p->ghz_max * q[WQ_BUSY_NS]);
	NEAR(q[WQ_REF_CYCLES], p->ghz_nominal * q[WQ_BUSY_NS],
				1e-6 * q[WQ_REF_CYCLES] + 1e-6);
	LE(q[WQ_INSTRUCTIONS], q[WQ_OPS]);
	LE(q[WQ_OPS], q[WQ_OPS_DISPATCHED]);
	LE(q[WQ_MICROCODE_OPS], q[WQ_OPS]);
	NEAR(q[WQ_DISPATCH_SLOTS], p->width * q[WQ_CYCLES],
				1e-9 * q[WQ_DISPATCH_SLOTS] + 1e-6);
	double slots = q[WQ_FE_STALL_SLOTS] + q[WQ_BE_STALL_SLOTS] + q[WQ_OPS_DISPATCHED] +
		       q[WQ_SMT_STALL_SLOTS];
	NEAR(slots, q[WQ_DISPATCH_SLOTS], 1e-9 * slots + 1e-6);
	LE(p->width * q[WQ_FE_LATENCY_CYCLES], q[WQ_FE_STALL_SLOTS]);
	LE(q[WQ_BE_STALL_SLOTS], p->width * q[WQ_BE_CYCLES]);
	LE(q[WQ_BE_CYCLES], q[WQ_CYCLES]);
	LE(q[WQ_BE_MEM_CYCLES], q[WQ_BE_CYCLES]);
	if (!p->smt)
		CHECK(q[WQ_SMT_STALL_SLOTS] == 0, "smt stalls without SMT");
	LE(q[WQ_BRANCHES], q[WQ_INSTRUCTIONS]);
	LE(q[WQ_BRANCH_MISSES], q[WQ_BRANCHES]);
	LE(q[WQ_TAKEN_BRANCHES], q[WQ_BRANCHES]);
	LE(q[WQ_RESYNCS], q[WQ_BRANCH_MISSES]);
	LE(q[WQ_L1D_MISS], q[WQ_L1D_ACCESS]);
	LE(q[WQ_L1I_MISS], q[WQ_INSTRUCTIONS]);
	LE(q[WQ_L1D_MISS] + q[WQ_L1I_MISS], q[WQ_L2_ACCESS]);
	LE(q[WQ_L2_MISS], q[WQ_L2_ACCESS]);
	NEAR(q[WQ_L2_HIT] + q[WQ_L2_MISS], q[WQ_L2_ACCESS],
				1e-9 * q[WQ_L2_ACCESS] + 1e-6);
	LE(q[WQ_L2_PF_HIT] + q[WQ_L2_PF_MISS], q[WQ_L2_ACCESS]);
	LE(q[WQ_L2_PF_MISS], q[WQ_L2_MISS]);
	LE(q[WQ_L2_PF_HIT], q[WQ_L2_HIT]);
	LE(q[WQ_L3_ACCESS], q[WQ_L2_MISS]);
	LE(q[WQ_L3_MISS], q[WQ_L3_ACCESS]);
	LE(q[WQ_L3_LAT_REQ], q[WQ_L3_MISS]);
	if (q[WQ_L3_LAT_REQ] > 0) {
		double lat = q[WQ_L3_LAT_SUM] / q[WQ_L3_LAT_REQ];
		CHECK(lat >= 7.5 - 1e-9 && lat <= 12 + 1e-9, "latency %g x 10 ns", lat);
	}
	LE(q[WQ_DTLB_WALK], q[WQ_DTLB_MISS]);
	LE(q[WQ_ITLB_WALK], q[WQ_ITLB_MISS]);
	LE(q[WQ_DTLB_MISS], q[WQ_L1D_ACCESS]);
	NEAR(q[WQ_MEM_READ_BYTES], 64 * q[WQ_L3_MISS],
				1e-9 * q[WQ_MEM_READ_BYTES] + 1e-6);
	LE(q[WQ_MEM_WRITE_BYTES], q[WQ_MEM_READ_BYTES]);
	LE(q[WQ_MIGRATIONS], q[WQ_CTX_SWITCHES]);
	/* Memory's stalled slots: at most all stalled slots, and at most a
	 * full width in each of memory's stall cycles; IC fetches and their
	 * misses; FP uops by width do no more FLOPs than there are (at most
	 * two a scalar uop); load misses at each level. */
	LE(q[WQ_BE_MEM_SLOTS], q[WQ_BE_STALL_SLOTS]);
	LE(q[WQ_BE_MEM_SLOTS], p->width * q[WQ_BE_MEM_CYCLES]);
	LE(q[WQ_IC_FETCH_MISS], q[WQ_IC_FETCH]);
	LE(q[WQ_L1I_MISS], q[WQ_IC_FETCH_MISS]);
	LE(q[WQ_FLOPS] - q[WQ_FLOPS_PACKED], 2 * q[WQ_FP_UOPS_SCALAR]);
	LE(q[WQ_FP_UOPS_SCALAR], q[WQ_FLOPS] - q[WQ_FLOPS_PACKED]);
	LE(q[WQ_FP_UOPS_128] + q[WQ_FP_UOPS_256] + q[WQ_FP_UOPS_512], q[WQ_FLOPS_PACKED]);
	LE(q[WQ_L3_LOAD_MISS], q[WQ_L2_LOAD_MISS]);
	LE(q[WQ_L2_LOAD_MISS], q[WQ_L1D_LOAD_MISS]);
	LE(q[WQ_L2_LOAD_MISS], q[WQ_L2_MISS_L1D]);
	LE(q[WQ_L1D_LOAD_MISS], q[WQ_L1D_MISS]);
	LE(q[WQ_L1D_LOAD_MISS], q[WQ_L1D_LOADS]);
	LE(q[WQ_L1D_LOADS], q[WQ_L1D_ACCESS]);
	LE(q[WQ_FP_FAULTS_SSE_AVX] + q[WQ_FP_FAULTS_X87], q[WQ_FP_UOPS_SCALAR] + q[WQ_FP_UOPS_128] +
	   q[WQ_FP_UOPS_256] + q[WQ_FP_UOPS_512]);
	LE(q[WQ_WCB_FULL], q[WQ_WCB_CLOSE]);
	LE(q[WQ_WCB_CLOSE], q[WQ_L1D_ACCESS] - q[WQ_L1D_LOADS]);
	LE(20 * q[WQ_DTLB_WALK], q[WQ_DTLB_WALK_CYCLES]);
	LE(20 * q[WQ_ITLB_WALK], q[WQ_ITLB_WALK_CYCLES]);
	LE(64 * q[WQ_DRAM_PAGE_CONFLICTS], q[WQ_MEM_READ_BYTES] + q[WQ_MEM_WRITE_BYTES]);
	LE(q[WQ_FSB_WRITEBACKS] + q[WQ_FSB_PARTIAL], q[WQ_L2_MISS]);
	LE(q[WQ_FP_X87_OPS] + q[WQ_SSE_SCALAR_SINGLE] + q[WQ_SSE_SCALAR_DOUBLE] + 4 * q[WQ_SSE_PACKED_SINGLE] +
	   2 * q[WQ_SSE_PACKED_DOUBLE], q[WQ_FLOPS]);
	LE(q[WQ_RAT_STALL_FLAGS] + q[WQ_RAT_STALL_REGISTERS] + q[WQ_RAT_STALL_ROB_READ] + q[WQ_RAT_STALL_SCOREBOARD],
	   q[WQ_CYCLES]);
	LE(q[WQ_FP_TO_MMX] + q[WQ_MMX_TO_FP], q[WQ_INSTRUCTIONS]);
	LE(q[WQ_BACLEARS], q[WQ_TAKEN_BRANCHES] + q[WQ_BRANCH_MISSES]);
	CHECK(q[WQ_MEMCLK] == 0 && q[WQ_DATA_BUS_BUSY] == 0, "channel figures on a CPU");
	for (int i = 0; i < WQ_COUNT; i++)
		CHECK(q[i] >= 0 && isfinite(q[i]), "%s = %g", wl_quantity_name(i), q[i]);
}

/* Many CPUs over a simulated minute in uneven steps: every interval of
 * every CPU obeys every inequality, with and without SMT and at width 4,
 * and (third run) with the rates moving within segments (fine=1), in
 * steps of a few milliseconds that cut across its spans. */
START_TEST(test_consistency)
{
	struct wl_params p;
	wl_params_default(&p);
	p.seed = 42;
	if (_i == 1) {
		p.smt = false;
		p.width = 4;
	}
	if (_i == 2)
		p.fine = 1;
	for (int cpu = 0; cpu < 48; cpu++) {
		struct wl_cpu c;
		wl_cpu_init(&c, &p, cpu);
		uint64_t t = 0;
		for (int k = 0; k < 150; k++) {
			uint64_t dt = _i == 2 ? 300000ULL + (uint64_t)((k * 7919 + cpu * 104729) % 700) * 10000ULL
					      : 50000000ULL + (uint64_t)((k * 7919 + cpu * 104729) % 700) * 1000000ULL;
			double q[WQ_COUNT] = { 0 };
			wl_cpu_advance(&c, &p, t, dt, q);
			check_consistent(&p, q, dt, cpu, t);
			t += dt;
		}
	}
}
END_TEST

/* Every kind of phase occurs, phases last 1.5 to 6 s, and a memory-bound
 * phase's own rates show a DRAM latency of 80-120 ns, a low IPC and many
 * L3 misses while a compute phase's show a high IPC. (What a phase
 * delivers blends in a contrasting behaviour segment by segment; see
 * test_segments.) */
START_TEST(test_phases)
{
	struct wl_params p;
	wl_params_default(&p);
	int seen[WL_NKINDS] = { 0 };
	for (int cpu = 0; cpu < 16; cpu++) {
		struct wl_cpu c;
		wl_cpu_init(&c, &p, cpu);
		uint64_t t = 0;
		for (int k = 0; k < 20; k++) {
			uint64_t len = c.phase_end - c.phase_start;
			ck_assert_uint_ge(len, 1500000000ULL);
			ck_assert_uint_le(len, 6000000000ULL);
			double q[WQ_COUNT] = { 0 }, got[WQ_COUNT] = { 0 };
			uint64_t dt = c.phase_end - t;
			enum wl_phase_kind kind = c.kind;
			seen[kind]++;
			for (int i = 0; i < WQ_COUNT; i++)
				q[i] = c.rate[i] * (double)dt;
			wl_cpu_advance(&c, &p, t, dt, got);
			t += dt;
			ck_assert_double_eq_tol(got[WQ_TOTAL_NS], (double)dt, 1);
			double ipc = q[WQ_INSTRUCTIONS] / q[WQ_CYCLES];
			double lat_ns = 10 * q[WQ_L3_LAT_SUM] / q[WQ_L3_LAT_REQ];
			double busy = q[WQ_BUSY_NS] / q[WQ_TOTAL_NS];
			switch (kind) {
			case WL_IDLE:
				ck_assert_double_lt(busy, 0.06);
				break;
			case WL_COMPUTE:
				ck_assert_double_gt(ipc, 2.9);
				ck_assert_double_gt(busy, 0.9);
				ck_assert_double_gt(q[WQ_FLOPS], 0);
				break;
			case WL_MEMORY:
				ck_assert_double_lt(ipc, 0.8);
				ck_assert(lat_ns >= 80 && lat_ns <= 120);
				ck_assert_double_gt(q[WQ_L3_MISS] / q[WQ_L3_ACCESS], 0.39);
				ck_assert_double_gt(q[WQ_BE_MEM_CYCLES] / q[WQ_CYCLES], 0.3);
				break;
			case WL_BRANCHY:
				ck_assert_double_gt(q[WQ_BRANCH_MISSES] / q[WQ_BRANCHES], 0.029);
				break;
			default:
				ck_abort_msg("bad kind %d", kind);
			}
			/* The stateless lookup agrees with the running cursor. */
			struct wl_phase_info pi;
			wl_phase_at(&p, cpu, t - 1, &pi);
			ck_assert_int_eq(pi.kind, kind);
			ck_assert_uint_eq(pi.end, t);
		}
	}
	for (int k = 0; k < WL_NKINDS; k++)
		ck_assert_msg(seen[k] > 0, "no %s phase", wl_phase_name(k));
}
END_TEST

/* The same seed gives the same counts however time is sliced; another seed
 * or another CPU gives different counts. */
START_TEST(test_determinism)
{
	struct wl_params p;
	wl_params_default(&p);
	p.seed = 7;
	struct wl_cpu a, b;
	double qa[WQ_COUNT] = { 0 }, qb[WQ_COUNT] = { 0 };
	wl_cpu_init(&a, &p, 3);
	wl_cpu_init(&b, &p, 3);
	wl_cpu_advance(&a, &p, 0, 20000000000ULL, qa);
	uint64_t t = 0;
	while (t < 20000000000ULL) {
		uint64_t dt = 123456789ULL;
		if (t + dt > 20000000000ULL)
			dt = 20000000000ULL - t;
		wl_cpu_advance(&b, &p, t, dt, qb);
		t += dt;
	}
	for (int q = 0; q < WQ_COUNT; q++)
		ck_assert_double_eq_tol(qa[q], qb[q], 1e-9 * qa[q] + 1e-9);

	double qc[WQ_COUNT] = { 0 }, qd[WQ_COUNT] = { 0 };
	struct wl_cpu c, d;
	wl_cpu_init(&c, &p, 4);
	wl_cpu_advance(&c, &p, 0, 20000000000ULL, qc);
	ck_assert_double_ne(qa[WQ_CYCLES], qc[WQ_CYCLES]);
	p.seed = 8;
	wl_cpu_init(&d, &p, 3);
	wl_cpu_advance(&d, &p, 0, 20000000000ULL, qd);
	ck_assert_double_ne(qa[WQ_CYCLES], qd[WQ_CYCLES]);
}
END_TEST

/* Memory channel figures: MEMCLK runs at the channel clock, the data bus
 * is busy 4 MEMCLKs per line and never more than MEMCLK. */
START_TEST(test_channel_fill)
{
	struct wl_params p;
	wl_params_default(&p);
	double q[WQ_COUNT] = { 0 };
	q[WQ_MEM_READ_BYTES] = 64 * 1000;
	q[WQ_MEM_WRITE_BYTES] = 64 * 500;
	wl_channel_fill(&p, 2, 1000000, q);
	ck_assert_double_eq_tol(q[WQ_MEMCLK], 2 * 3.0 * 1e6, 1e-6);
	ck_assert_double_eq_tol(q[WQ_DATA_BUS_BUSY], 1500 * 4, 1e-6);
	q[WQ_MEM_READ_BYTES] = 1e15;
	wl_channel_fill(&p, 2, 1000000, q);
	ck_assert_double_eq(q[WQ_DATA_BUS_BUSY], q[WQ_MEMCLK]);
}
END_TEST


/* ---- backend ---- */

/* A hand-built model shaped like Zen 5 (6 core counters with one held by
 * the NMI watchdog, 6 L3 counters per CCX, 4 per UMC channel) plus an
 * Intel-like PMU with fixed counters, so that the tests do not depend on
 * the shipped definition files. */
enum { P_CORE, P_L3, P_UMC, P_SW, P_INTEL, NPMUS };
enum {
	E_CYCLES, E_INSN, E_OPS, E_FLOPS, E_NOSIM, E_L3_MISS, E_LAT_SUM, E_LAT_REQ, E_UMC_CAS,
	E_TASK, E_L3_ACCESS, E_BADSPEC, E_UMC_CLK, E_CORE_L3_MISS, E_I_CYC, E_I_INSN, E_I_GEN,
	NEVENTS
};

static const struct { const char *name; int pmu; unsigned flags; const char *sim; } ev_table[NEVENTS] = {
	[E_CYCLES] = { "cycles", P_CORE, 0, "cycles" },
	[E_INSN] = { "insn", P_CORE, 0, "instructions" },
	[E_OPS] = { "ops", P_CORE, 0, "ops" },
	[E_FLOPS] = { "flops", P_CORE, EVF_MERGE, "flops" },
	[E_NOSIM] = { "no_formula", P_CORE, 0, NULL },
	[E_L3_MISS] = { "l3_miss", P_L3, 0, "l3_miss" },
	[E_LAT_SUM] = { "lat_sum", P_L3, 0, "l3_lat_sum" },
	[E_LAT_REQ] = { "lat_req", P_L3, 0, "l3_lat_req" },
	[E_UMC_CAS] = { "umc_cas", P_UMC, EVF_SATURATES, "(mem_read_bytes + mem_write_bytes) / 64" },
	[E_TASK] = { "task_clock", P_SW, 0, "busy_ns" },
	[E_L3_ACCESS] = { "l3_access", P_L3, 0, "l3_access" },
	[E_BADSPEC] = { "badspec", P_CORE, 0, "ops_dispatched - ops" },
	[E_UMC_CLK] = { "umc_clk", P_UMC, 0, "memclk" },
	[E_CORE_L3_MISS] = { "core_l3_miss", P_CORE, 0, "l3_miss" },
	[E_I_CYC] = { "i_cycles", P_INTEL, EVF_FIXED, "cycles" },
	[E_I_INSN] = { "i_insn", P_INTEL, EVF_FIXED, "instructions" },
	[E_I_GEN] = { "i_gen", P_INTEL, 0, "branches" },
};

static struct model *test_model(const char *bad_sim)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->name = "test-zen";
	m->npmus = NPMUS;
	m->pmus = xcalloc(NPMUS, sizeof(*m->pmus));
	m->pmus[P_CORE] = (struct pmu_def){ .name = "core", .perf_name = "cpu", .kind = PMU_CORE,
		.scope = SCOPE_THREAD, .counters = 6, .nmi_reserved = 1 };
	m->pmus[P_L3] = (struct pmu_def){ .name = "l3", .perf_name = "amd_l3", .kind = PMU_UNCORE,
		.scope = SCOPE_CCX, .counters = 6 };
	m->pmus[P_UMC] = (struct pmu_def){ .name = "umc", .perf_name = "amd_umc_*", .kind = PMU_UNCORE,
		.scope = SCOPE_SOCKET, .counters = 4 };
	m->pmus[P_SW] = (struct pmu_def){ .name = "software", .perf_name = "software",
		.kind = PMU_SOFTWARE, .scope = SCOPE_THREAD };
	m->pmus[P_INTEL] = (struct pmu_def){ .name = "icore", .perf_name = "cpu", .kind = PMU_CORE,
		.scope = SCOPE_THREAD, .counters = 4, .fixed = 3, .nmi_reserved = 1,
		.nmi_takes_fixed = true };
	m->nevents = NEVENTS;
	m->events = xcalloc(NEVENTS, sizeof(*m->events));
	for (int i = 0; i < NEVENTS; i++) {
		m->events[i].name = (char *)ev_table[i].name;
		m->events[i].pmu = ev_table[i].pmu;
		m->events[i].flags = ev_table[i].flags;
		m->events[i].sim_text = (char *)ev_table[i].sim;
		m->events[i].file = "test.def";
		m->events[i].line = i + 1;
	}
	if (bad_sim)
		m->events[E_NOSIM].sim_text = (char *)bad_sim;
	return m;
}

static void test_model_free(struct model *m)
{
	free(m->pmus);
	free(m->events);
	free(m);
}

/* The fixture of most tests: the model on a 2-socket, 4-CCX-per-socket,
 * 8-core, 2-thread machine (128 CPUs). */
static struct model *M;
static struct topo *T;
static struct backend *B;

static struct backend *make_backend(const char *arg)
{
	return fx_sim(M, T, arg);
}

static void setup(void)
{
	M = test_model(NULL);
	T = fx_topo("2x4x8x2");
	B = make_backend("zen5:2x4x8x2,channels=2");
}

static void teardown(void)
{
	backend_sim.destroy(B);
	topo_free(T);
	test_model_free(M);
}

static struct bk_instance core_inst(int cpu)
{
	return (struct bk_instance){ .pmu = P_CORE, .perf_name = "cpu", .cpu = cpu,
				     .scope = SCOPE_THREAD, .scope_id = cpu };
}

static struct bk_group *open_ok(struct backend *b, struct bk_instance in, const int *ev, int n)
{
	struct bk_group *g = NULL;
	char *cause = NULL;
	int rc = backend_sim.open_group(b, &in, ev, n, &g, &cause);
	ck_assert_msg(rc == 0, "open: %d %s", rc, cause ? cause : "");
	ck_assert_ptr_nonnull(g);
	return g;
}

static int open_err(struct backend *b, struct bk_instance in, const int *ev, int n)
{
	struct bk_group *g = NULL;
	char *cause = NULL;
	int rc = backend_sim.open_group(b, &in, ev, n, &g, &cause);
	ck_assert_ptr_null(g);
	if (rc != 0) {
		ck_assert_msg(cause != NULL && *cause, "error %d without a cause", rc);
		free(cause);
	}
	return rc;
}

static void read_ok(struct backend *b, struct bk_group *g, struct bk_count *c)
{
	ck_assert_int_eq(backend_sim.read(b, g, c), 0);
}

#define SEC 1000000000ULL

static void free_instances(struct bk_instance *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].perf_name);
	free(v);
}

/* The shipped models' aliases and default shapes are data in their
 * model.def; these are the values this test expects of them. */
START_TEST(test_spec)
{
	char *lerr = NULL;
	struct model_info *models = NULL;
	int nmodels = model_list(TOP_SRCDIR "/events", &models, &lerr);
	ck_assert_msg(nmodels >= 6, "%s", lerr ? lerr : "too few models");
	static const struct { int line; const char *spec; const char *model; int s[4]; } ok[] = {
		{ __LINE__, "zen5", "amd-zen5", { 1, 2, 8, 2 } },
		{ __LINE__, "zen5:2x12x8x2", "amd-zen5", { 2, 12, 8, 2 } },
		{ __LINE__, "amd-zen5:1x1x1x1", "amd-zen5", { 1, 1, 1, 1 } },
		{ __LINE__, "arch", "intel-arch", { 1, 1, 8, 2 } },
		{ __LINE__, "core2", "intel-core2", { 1, 2, 2, 1 } },
		{ __LINE__, "westmere", "intel-westmere", { 2, 1, 6, 2 } },
		{ __LINE__, "intel-westmere", "intel-westmere", { 2, 1, 6, 2 } },
		{ __LINE__, "fam10h", "amd-fam10h", { 1, 1, 4, 1 } },
		{ __LINE__, "generic", "generic", { 1, 1, 4, 1 } },
		{ __LINE__, "my-model:1x1x2x1", "my-model", { 1, 1, 2, 1 } },
		{ __LINE__, "zen5:4x8x8x4", "amd-zen5", { 4, 8, 8, 4 } },
		/* The simulator's options follow a comma; the backend checks them. */
		{ __LINE__, "zen5,ff=1", "amd-zen5", { 1, 2, 8, 2 } },
		{ __LINE__, "zen5:1x1x2x1,seed=3,ff=1", "amd-zen5", { 1, 1, 2, 1 } },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		char *name = NULL, *cause = NULL;
		int shape[4] = { 0 };
		int rc = sim_parse_spec(ok[i].spec, models, nmodels, &name, shape, &cause);
		ck_assert_msg(rc == 0, "line %d: %s", ok[i].line, cause ? cause : "");
		ck_assert_str_eq(name, ok[i].model);
		for (int k = 0; k < 4; k++)
			ck_assert_msg(shape[k] == ok[i].s[k], "line %d: shape[%d] = %d", ok[i].line, k,
				      shape[k]);
		free(name);
	}
	static const struct { int line; const char *spec; const char *msg; } bad[] = {
		{ __LINE__, "", "expected MODEL" },
		{ __LINE__, NULL, "expected MODEL" },
		{ __LINE__, ":1x1x1x1", "model name is missing" },
		{ __LINE__, "zen5:", "expected SxCxNxT with positive numbers, e.g. zen5:2x12x8x2" },
		{ __LINE__, "zen5:2x12x8", "expected SxCxNxT" },
		{ __LINE__, "zen5:2x12x8x2x1", "expected SxCxNxT" },
		{ __LINE__, "zen5:0x1x1x1", "expected SxCxNxT" },
		{ __LINE__, "zen5:-1x1x1x1", "expected SxCxNxT" },
		{ __LINE__, "zen5:1x1x1x1x", "expected SxCxNxT" },
		{ __LINE__, "zen5:ax1x1x1", "expected SxCxNxT" },
		{ __LINE__, "zen5:1X1X1X1", "expected SxCxNxT" },
		{ __LINE__, "zen5:99999999999999999999x1x1x1", "expected SxCxNxT" },
		{ __LINE__, "zen5:16x16x16x2", "limit of 4096" },
		{ __LINE__, "zen 5", "bad character" },
		{ __LINE__, "zen5,", "KEY=VALUE options after the comma" },
		{ __LINE__, "zen5,ff", "KEY=VALUE options after the comma" },
		{ __LINE__, "zen5:1x1x1x1,ff=1,=2", "KEY=VALUE options after the comma" },
		{ __LINE__, "zen5:1x1x1x1x,ff=1", "expected SxCxNxT" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *name = NULL, *cause = NULL;
		int shape[4] = { 0 };
		ck_assert_msg(sim_parse_spec(bad[i].spec, models, nmodels, &name, shape, &cause) < 0, "line %d",
			      bad[i].line);
		ck_assert_ptr_null(name);
		ck_assert_msg(cause && strstr(cause, bad[i].msg), "line %d: %s", bad[i].line,
			      cause ? cause : "(none)");
		free(cause);
	}
	/* Without a model list only the shape is known: a default one. */
	char *name = NULL, *cause = NULL;
	int shape[4];
	ck_assert_int_eq(sim_parse_spec("zen5", NULL, 0, &name, shape, &cause), 0);
	ck_assert_str_eq(name, "zen5");
	ck_assert_int_eq(shape[0] * shape[1] * shape[2] * shape[3], 4);
	free(name);
	model_list_free(models, nmodels);
}
END_TEST

START_TEST(test_create_errors)
{
	static const struct { int line; const char *arg; const char *msg; } bad[] = {
		{ __LINE__, "nmi=2", "bad option 'nmi=2'" },
		{ __LINE__, "zen5,ff=2", "bad option 'ff=2'" },
		{ __LINE__, "zen5,bogus=1", "bad option 'bogus=1'" },
		{ __LINE__, "channels=0", "bad option" },
		{ __LINE__, "seed=x", "bad option" },
		{ __LINE__, "fine=1.5", "bad option 'fine=1.5'" },
		{ __LINE__, "fine=-0.1", "bad option" },
		{ __LINE__, "ghz=3,nominal=4", "above the maximum" },
		{ __LINE__, "absent=l4", "has no PMU 'l4'" },
	};
	struct model *m = test_model(NULL);
	struct topo *t = topo_synthetic(1, 1, 2, 1);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *cause = NULL;
		ck_assert_ptr_null(backend_sim.create(m, t, bad[i].arg, &cause));
		ck_assert_msg(cause && strstr(cause, bad[i].msg), "line %d: %s", bad[i].line,
			      cause ? cause : "(none)");
		free(cause);
	}
	/* The model's own defaults are checked too, and named as such; the
	 * caller's options are applied after them. */
	m->sim_args = "ghz=2,nominal=2.5";
	char *why = NULL;
	ck_assert_ptr_null(backend_sim.create(m, t, NULL, &why));
	ck_assert_msg(why && strstr(why, "'sim ghz=2,nominal=2.5' in model.def") && strstr(why, "above the maximum"),
		      "%s", why ? why : "(none)");
	free(why);
	m->sim_args = "ghz=4,nominal=2.5";
	struct backend *ok = backend_sim.create(m, t, "ghz=3", &why);
	ck_assert_msg(ok != NULL, "%s", why ? why : "");
	ck_assert(!sim_fast_forward(ok));
	backend_sim.destroy(ok);
	ok = backend_sim.create(m, t, "zen5:1x1x2x1,ff=1", &why);
	ck_assert_msg(ok != NULL, "%s", why ? why : "");
	ck_assert(sim_fast_forward(ok));
	backend_sim.destroy(ok);
	m->sim_args = NULL;
	test_model_free(m);
	/* A formula naming something the workload does not have. */
	m = test_model("l4_miss * 2");
	char *cause = NULL;
	ck_assert_ptr_null(backend_sim.create(m, t, NULL, &cause));
	ck_assert_msg(cause && strstr(cause, "l4_miss") && strstr(cause, "no_formula") &&
		      strstr(cause, "test.def:5"), "%s", cause ? cause : "(none)");
	free(cause);
	test_model_free(m);
	m = test_model("cycles +");
	cause = NULL;
	ck_assert_ptr_null(backend_sim.create(m, t, NULL, &cause));
	ck_assert_ptr_nonnull(cause);
	free(cause);
	test_model_free(m);
	topo_free(t);
}
END_TEST

/* Core PMUs on every CPU, L3 on the first CPU of each CCX, UMC channels
 * per socket on the socket's first CPU. */
START_TEST(test_instances)
{
	struct bk_instance *v = NULL;
	char *why = NULL;
	int n = backend_sim.instances(B, P_CORE, &v, &why);
	ck_assert_int_eq(n, 128);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(v[i].cpu, i);
		ck_assert_int_eq(v[i].scope_id, i);
		ck_assert_str_eq(v[i].perf_name, "cpu");
	}
	free_instances(v, n);
	n = backend_sim.instances(B, P_L3, &v, &why);
	ck_assert_int_eq(n, 8);
	for (int i = 0; i < n; i++) {
		/* CCX x holds cores 8x..8x+7, i.e. CPUs 8x.. and their siblings. */
		ck_assert_int_eq(v[i].cpu, 8 * i);
		ck_assert_int_eq(v[i].scope, SCOPE_CCX);
		ck_assert_int_eq(v[i].scope_id, i);
		ck_assert_str_eq(v[i].perf_name, "amd_l3");
	}
	free_instances(v, n);
	/* By default a socket has as many channels as CCX (4 here, within 2-12). */
	struct backend *bd = make_backend("zen5:2x4x8x2");
	n = backend_sim.instances(bd, P_UMC, &v, &why);
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(v[7].scope_id, 1);
	free_instances(v, n);
	backend_sim.destroy(bd);
	n = backend_sim.instances(B, P_UMC, &v, &why);
	ck_assert_int_eq(n, 4);
	static const char *const umc[] = { "amd_umc_0", "amd_umc_1", "amd_umc_2", "amd_umc_3" };
	for (int i = 0; i < n; i++) {
		ck_assert_str_eq(v[i].perf_name, umc[i]);
		ck_assert_int_eq(v[i].scope_id, i / 2);
		ck_assert_int_eq(v[i].cpu, i < 2 ? 0 : 32);
	}
	free_instances(v, n);
	n = backend_sim.instances(B, P_SW, &v, &why);
	ck_assert_int_eq(n, 128);
	free_instances(v, n);
	ck_assert_int_eq(backend_sim.free_counters(B, P_CORE), 5);
	ck_assert_int_eq(backend_sim.free_counters(B, P_L3), 6);
	ck_assert_int_eq(backend_sim.free_counters(B, P_INTEL), 4);

	/* A CPU taken offline in the topology drops out; the CCX is then read
	 * on its next CPU. */
	topo_set_online(T, 8, false);
	n = backend_sim.instances(B, P_CORE, &v, &why);
	ck_assert_int_eq(n, 127);
	free_instances(v, n);
	n = backend_sim.instances(B, P_L3, &v, &why);
	ck_assert_int_eq(v[1].cpu, 9);
	free_instances(v, n);
	ck_assert_int_eq(open_err(B, core_inst(8), (int[]){ E_CYCLES }, 1), -ENODEV);

	/* More channels, no NMI watchdog, and an absent L3. */
	struct backend *b = make_backend("channels=3,nmi=0,absent=l3");
	ck_assert_int_eq(backend_sim.free_counters(b, P_CORE), 6);
	n = backend_sim.instances(b, P_UMC, &v, &why);
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(v[5].perf_name, "amd_umc_5");
	ck_assert_int_eq(v[5].scope_id, 1);
	free_instances(v, n);
	why = NULL;
	ck_assert_int_eq(backend_sim.instances(b, P_L3, &v, &why), 0);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "amd_l3"));
	free(why);
	struct bk_instance l3 = { .pmu = P_L3, .perf_name = "amd_l3", .cpu = 0, .scope = SCOPE_CCX };
	ck_assert_int_eq(open_err(b, l3, (int[]){ E_L3_MISS }, 1), -ENOENT);
	backend_sim.destroy(b);

	/* A model with an L3 PMU on a machine without L3 domains. */
	struct topo *t = topo_synthetic(1, 1, 2, 1);
	for (int x = 0; x < t->nccx; x++) {
		free(t->ccxs[x].cpus);
		free(t->ccxs[x].cores);
	}
	free(t->ccxs);
	t->ccxs = NULL;
	t->nccx = 0;
	char *cause = NULL;
	b = backend_sim.create(M, t, NULL, &cause);
	ck_assert_ptr_nonnull(b);
	why = NULL;
	ck_assert_int_eq(backend_sim.instances(b, P_L3, &v, &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "no L3"));
	free(why);
	backend_sim.destroy(b);
	topo_free(t);
}
END_TEST

/* x86 validate_group: a group larger than the PMU fails with -EINVAL; one
 * that fits the PMU but not what the NMI watchdog leaves opens and never
 * runs while its time_enabled advances. */
START_TEST(test_limits)
{
	static const struct { int line; int n; int ev[8]; int rc; bool runs; bool nmi; } cases[] = {
		{ __LINE__, 5, { E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC }, 0, true, true },
		{ __LINE__, 6, { E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC, E_CYCLES }, 0, false, true },
		{ __LINE__, 6, { E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC, E_CYCLES }, 0, true, false },
		{ __LINE__, 7, { E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC, E_CYCLES, E_INSN }, -EINVAL, false, true },
		/* Merged events take an even/odd pair. */
		{ __LINE__, 3, { E_FLOPS, E_FLOPS, E_CYCLES }, 0, true, true },
		{ __LINE__, 3, { E_FLOPS, E_FLOPS, E_FLOPS }, 0, false, true },
		{ __LINE__, 3, { E_FLOPS, E_FLOPS, E_FLOPS }, 0, true, false },
		{ __LINE__, 4, { E_FLOPS, E_FLOPS, E_FLOPS, E_CYCLES }, -EINVAL, false, true },
		{ __LINE__, 6, { E_FLOPS, E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC }, -EINVAL, false, false },
		/* Software events take no counter and may join a hardware group. */
		{ __LINE__, 6, { E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC, E_TASK }, 0, true, true },
		/* Fixed-able events use the fixed counters first; the watchdog
		 * holds one fixed counter on this PMU. */
		{ __LINE__, 6, { E_I_CYC, E_I_INSN, E_I_GEN, E_I_GEN, E_I_GEN, E_I_GEN }, 0, true, true },
		{ __LINE__, 7, { E_I_CYC, E_I_INSN, E_I_CYC, E_I_GEN, E_I_GEN, E_I_GEN, E_I_GEN }, 0, false, true },
		{ __LINE__, 7, { E_I_CYC, E_I_INSN, E_I_CYC, E_I_GEN, E_I_GEN, E_I_GEN, E_I_GEN }, 0, true, false },
		{ __LINE__, 8, { E_I_CYC, E_I_INSN, E_I_CYC, E_I_CYC, E_I_GEN, E_I_GEN, E_I_GEN, E_I_GEN }, -EINVAL, false, false },
		/* A group stays on one PMU. */
		{ __LINE__, 2, { E_CYCLES, E_L3_MISS }, -EINVAL, false, true },
		{ __LINE__, 1, { NEVENTS }, -EINVAL, false, true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct backend *b = make_backend(cases[i].nmi ? "nmi=1" : "nmi=0");
		struct bk_instance in = core_inst(3);
		if (cases[i].ev[0] < NEVENTS && ev_table[cases[i].ev[0]].pmu == P_INTEL)
			in.pmu = P_INTEL;
		struct bk_group *g = NULL;
		char *cause = NULL;
		int rc = backend_sim.open_group(b, &in, cases[i].ev, cases[i].n, &g, &cause);
		ck_assert_msg(rc == cases[i].rc, "line %d: rc %d (%s)", cases[i].line, rc,
			      cause ? cause : "");
		free(cause);
		if (rc == 0) {
			backend_sim.advance(b, SEC / 2);
			ck_assert_int_eq(backend_sim.enable(b, g), 0);
			backend_sim.advance(b, SEC);
			struct bk_count c[8];
			read_ok(b, g, c);
			for (int k = 0; k < cases[i].n; k++) {
				ck_assert_uint_eq(c[k].time_enabled, SEC);
				ck_assert_msg(c[k].time_running == (cases[i].runs ? SEC : 0),
					      "line %d: running %llu", cases[i].line,
					      (unsigned long long)c[k].time_running);
				if (!cases[i].runs)
					ck_assert_uint_eq(c[k].value, 0);
			}
			if (cases[i].runs)
				ck_assert_uint_gt(c[0].value, 0);
			backend_sim.close(b, g);
		}
		backend_sim.destroy(b);
	}
}
END_TEST

/* Groups enabled together on one CPU share its 5 free counters as the
 * kernel multiplexes flexible groups: from the head of the list while they
 * fit, stopping at the first that does not, the list rotating by one every
 * 4 ms tick. A(3) B(3) C(2): rotation 0 runs {A} (B does not fit and stops
 * C), rotation 1 {B, C}, rotation 2 {C, A}; 250 ticks in a second are 83
 * cycles and one more rotation 0. Other CPUs are unaffected. */
START_TEST(test_placement)
{
	int three[] = { E_CYCLES, E_INSN, E_OPS };
	int two[] = { E_CYCLES, E_BADSPEC };
	struct bk_group *a = open_ok(B, core_inst(5), three, 3);
	struct bk_group *b2 = open_ok(B, core_inst(5), three, 3);
	struct bk_group *c = open_ok(B, core_inst(5), two, 2);
	struct bk_group *other = open_ok(B, core_inst(6), three, 3);
	struct bk_count ca[3], cb[3], cc[2], co[3];
	backend_sim.enable(B, a);
	backend_sim.enable(B, b2);
	backend_sim.enable(B, c);
	backend_sim.enable(B, other);
	struct bk_instance in5 = core_inst(5);
	double q0[WQ_COUNT], q1[WQ_COUNT], dq[WQ_COUNT];
	ck_assert_int_eq(sim_truth_source(B, &in5, q0), 0);
	backend_sim.advance(B, SEC);
	ck_assert_int_eq(sim_truth_source(B, &in5, q1), 0);
	read_ok(B, a, ca);
	read_ok(B, b2, cb);
	read_ok(B, c, cc);
	read_ok(B, other, co);
	const uint64_t tick = 4000000;
	ck_assert_uint_eq(ca[0].time_running, 167 * tick);
	ck_assert_uint_eq(cb[0].time_running, 83 * tick);
	ck_assert_uint_eq(cc[0].time_running, 166 * tick);
	ck_assert_uint_eq(cb[0].time_enabled, SEC);
	ck_assert_uint_eq(cc[1].time_enabled, SEC);
	ck_assert_uint_eq(co[0].time_running, SEC);
	ck_assert_uint_gt(cb[0].value, 0);
	/* A (rotations 0 and 2) and B (rotation 1) between them ran every
	 * tick once, so their cycles add up to the CPU's in that second,
	 * however its rates moved from tick to tick. */
	for (int k = 0; k < WQ_COUNT; k++)
		dq[k] = q1[k] - q0[k];
	ck_assert_double_eq_tol((double)ca[0].value + (double)cb[0].value, sim_truth_event(B, 5, E_CYCLES, dq, SEC),
				2.0);

	/* Without A, B and C fit together and both run all the time. */
	backend_sim.disable(B, a);
	backend_sim.advance(B, SEC);
	read_ok(B, a, ca);
	read_ok(B, b2, cb);
	read_ok(B, c, cc);
	ck_assert_uint_eq(ca[0].time_enabled, SEC);
	ck_assert_uint_eq(ca[0].time_running, 167 * tick);
	ck_assert_uint_eq(cb[0].time_enabled, 2 * SEC);
	ck_assert_uint_eq(cb[0].time_running, SEC + 83 * tick);
	ck_assert_uint_eq(cc[0].time_running, SEC + 166 * tick);

	/* Re-enabling A (last in the list) makes them take turns again: over
	 * one second each group runs for whole ticks, and nobody runs alone
	 * for more than its share. */
	backend_sim.enable(B, a);
	backend_sim.advance(B, SEC);
	read_ok(B, a, ca);
	read_ok(B, b2, cb);
	read_ok(B, c, cc);
	ck_assert_uint_eq(ca[0].time_enabled, 2 * SEC);
	uint64_t ra = ca[0].time_running - 167 * tick, rb = cb[0].time_running - SEC - 83 * tick;
	uint64_t rc = cc[0].time_running - SEC - 166 * tick;
	ck_assert_uint_eq(ra % tick, 0);
	ck_assert_uint_eq(rb % tick, 0);
	/* Each rotation runs two of the three except the one with B at the
	 * head (A and B do not fit together): 5 groups-ticks per 3 ticks. */
	ck_assert_uint_le(ra + rb + rc, 5 * 84 * tick);
	ck_assert_uint_ge(ra + rb + rc, 5 * 83 * tick);
	ck_assert_uint_gt(ra, 0);
	ck_assert_uint_lt(ra, SEC);
	/* Closing B lets A and C run together. */
	backend_sim.close(B, b2);
	backend_sim.advance(B, SEC);
	uint64_t before = ca[0].time_running;
	read_ok(B, a, ca);
	ck_assert_uint_eq(ca[0].time_running - before, SEC);
	backend_sim.close(B, a);
	backend_sim.close(B, c);
	backend_sim.close(B, other);
}
END_TEST

/* Three groups that each fill the five free counters, enabled together:
 * exactly one runs at any time, and after a second each has run a third of
 * it within one tick, also with another mux_ms and when enabled mid-tick. */
START_TEST(test_kernel_mux)
{
	static const struct { const char *arg; uint64_t tick; uint64_t start; } cases[] = {
		{ "channels=2", 4000000, 0 },
		{ "channels=2,mux_ms=10", 10000000, 0 },
		{ "mux_ms=4", 4000000, 1234567 },
		{ "mux_ms=1", 1000000, 999999 },
	};
	int full[] = { E_CYCLES, E_INSN, E_OPS, E_NOSIM, E_BADSPEC };
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct backend *b = make_backend(cases[k].arg);
		struct bk_group *g[3];
		for (int i = 0; i < 3; i++)
			g[i] = open_ok(b, core_inst(9), full, 5);
		backend_sim.advance(b, cases[k].start);
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(backend_sim.enable(b, g[i]), 0);
		backend_sim.advance(b, SEC);
		uint64_t sum = 0;
		for (int i = 0; i < 3; i++) {
			struct bk_count c[5];
			read_ok(b, g[i], c);
			ck_assert_uint_eq(c[0].time_enabled, SEC);
			double off = (double)c[0].time_running - (double)c[0].time_enabled / 3;
			ck_assert_msg(fabs(off) <= (double)cases[k].tick, "%s: group %d ran %llu ns",
				      cases[k].arg, i, (unsigned long long)c[0].time_running);
			ck_assert_uint_gt(c[0].value, 0);
			sum += c[0].time_running;
		}
		ck_assert_uint_eq(sum, SEC);
		/* Alone again, a group runs all the time. */
		backend_sim.close(b, g[0]);
		backend_sim.close(b, g[1]);
		struct bk_count c0[5], c1[5];
		read_ok(b, g[2], c0);
		backend_sim.advance(b, SEC / 2);
		read_ok(b, g[2], c1);
		ck_assert_uint_eq(c1[0].time_running - c0[0].time_running, SEC / 2);
		backend_sim.close(b, g[2]);
		backend_sim.destroy(b);
	}
	/* Groups that fit together all run: 2 + 3 counters of 5. */
	int two[] = { E_CYCLES, E_INSN }, three[] = { E_OPS, E_NOSIM, E_BADSPEC };
	struct bk_group *x = open_ok(B, core_inst(11), two, 2);
	struct bk_group *y = open_ok(B, core_inst(11), three, 3);
	backend_sim.enable(B, x);
	backend_sim.enable(B, y);
	backend_sim.advance(B, SEC);
	struct bk_count cx[2], cy[3];
	read_ok(B, x, cx);
	read_ok(B, y, cy);
	ck_assert_uint_eq(cx[0].time_running, SEC);
	ck_assert_uint_eq(cy[2].time_running, SEC);
	backend_sim.close(B, x);
	backend_sim.close(B, y);

	char *cause = NULL;
	struct backend *bad = backend_sim.create(M, T, "mux_ms=0", &cause);
	ck_assert_ptr_null(bad);
	ck_assert_ptr_nonnull(strstr(cause, "mux_ms"));
	free(cause);
}
END_TEST

/* Groups that take turns on one CPU's counters count what the workload
 * did in their own ticks, not a share of the whole span: after a second
 * without a read, each of n groups (2, then 3, so that some are settled
 * only at the ticks they start and end) counts the instructions of every
 * n-th tick, as a lone group on a second backend (same workload) counts
 * them tick by tick. The n parts differ by far more than rounding
 * (fine=0.5 moves the rates within segments), so crediting each group an
 * n-th of the second's instructions, the even spreading that scaling
 * assumes, fails here. */
START_TEST(test_kernel_mux_ticks)
{
	enum { TICKS = 252, CPU = 5, MAXG = 3 };
	const uint64_t tick = 4000000;
	int full[] = { E_INSN, E_CYCLES, E_OPS, E_NOSIM, E_BADSPEC };
	for (int ng = 2; ng <= MAXG; ng++) {
		struct backend *mux = make_backend("fine=0.5"), *solo = make_backend("fine=0.5");
		struct bk_group *g[MAXG];
		for (int i = 0; i < ng; i++) {
			g[i] = open_ok(mux, core_inst(CPU), full, 5);
			ck_assert_int_eq(backend_sim.enable(mux, g[i]), 0);
		}
		struct bk_group *lone = open_ok(solo, core_inst(CPU), full, 1);
		ck_assert_int_eq(backend_sim.enable(solo, lone), 0);
		double part[MAXG] = { 0 };
		uint64_t prev = 0;
		for (int k = 0; k < TICKS; k++) {
			struct bk_count c;
			backend_sim.advance(solo, tick);
			read_ok(solo, lone, &c);
			part[k % ng] += (double)(c.value - prev);
			prev = c.value;
		}
		backend_sim.advance(mux, TICKS * tick);
		bool used[MAXG] = { false };
		for (int i = 0; i < ng; i++) {
			struct bk_count c[5];
			read_ok(mux, g[i], c);
			ck_assert_uint_eq(c[0].time_running, TICKS / ng * tick);
			/* Which part is whose depends on the list's order. */
			int best = -1;
			for (int r = 0; r < ng; r++)
				if (!used[r] && (best < 0 || fabs((double)c[0].value - part[r]) <
							     fabs((double)c[0].value - part[best])))
					best = r;
			used[best] = true;
			ck_assert_msg(fabs((double)c[0].value - part[best]) <= TICKS,
				      "%d groups: group %d counted %" PRIu64 "; its ticks say %.0f", ng, i, c[0].value,
				      part[best]);
			for (int r = 0; r < ng; r++)
				if (r != best)
					ck_assert_msg(fabs(part[r] - part[best]) > 1e5,
						      "%d groups: the parts differ by %.0f: the test cannot tell", ng,
						      part[r] - part[best]);
		}
		for (int i = 0; i < ng; i++)
			backend_sim.close(mux, g[i]);
		backend_sim.close(solo, lone);
		backend_sim.destroy(mux);
		backend_sim.destroy(solo);
	}
}
END_TEST

/* The kernel's multiplexing at 1024 CPUs with 20 groups each enabled
 * together, as `--rotate kernel` runs it: after a simulated second every
 * group has counted and ran its share of the time. How long that takes is
 * bench/bench_sim's to measure: a bound here failed sanitizer builds. */
START_TEST(test_kernel_mux_large)
{
	enum { NG = 20, NCPU = 1024 };
	struct topo *t = fx_topo("4x8x8x4");
	struct backend *b = fx_sim(M, t, "nmi=0");
	int ev[4] = { E_CYCLES, E_INSN, E_OPS, E_BADSPEC };
	static struct bk_group *g[NCPU][NG];
	for (int cpu = 0; cpu < NCPU; cpu++)
		for (int k = 0; k < NG; k++) {
			g[cpu][k] = open_ok(b, core_inst(cpu), ev, 4);
			backend_sim.enable(b, g[cpu][k]);
		}
	int failed = 0;
	for (int rep = 0; rep < 3; rep++) {
		backend_sim.advance(b, SEC);
		for (int cpu = 0; cpu < NCPU; cpu++)
			for (int k = 0; k < NG; k++) {
				struct bk_count c[4];
				/* 6 counters, 4 per group: one group at a time. */
				if (backend_sim.read(b, g[cpu][k], c) != 0 || c[0].value == 0 ||
				    fabs((double)c[0].time_running - (double)c[0].time_enabled / NG) > 4e6)
					failed++;
			}
	}
	ck_assert_int_eq(failed, 0);
	for (int cpu = 0; cpu < NCPU; cpu++)
		for (int k = 0; k < NG; k++)
			backend_sim.close(b, g[cpu][k]);
	backend_sim.destroy(b);
	topo_free(t);
}
END_TEST

/* Time and counts advance only while enabled and running, cumulative since
 * open, and the counts are exactly the workload's over those spans. */
START_TEST(test_time_accounting)
{
	int ev[] = { E_CYCLES, E_INSN, E_TASK };
	struct bk_group *g = open_ok(B, core_inst(7), ev, 3);
	struct bk_count c[3];
	ck_assert_uint_eq(backend_sim.now(B), 0);
	backend_sim.advance(B, SEC);
	read_ok(B, g, c);
	ck_assert_uint_eq(c[0].time_enabled, 0);
	ck_assert_uint_eq(c[0].value, 0);
	backend_sim.enable(B, g);
	backend_sim.advance(B, SEC / 2);
	read_ok(B, g, c);
	uint64_t half = c[0].value;
	ck_assert_uint_eq(c[0].time_enabled, SEC / 2);
	ck_assert_uint_eq(c[0].time_running, SEC / 2);
	backend_sim.disable(B, g);
	backend_sim.advance(B, SEC);
	backend_sim.enable(B, g);
	backend_sim.advance(B, SEC / 4);
	read_ok(B, g, c);
	ck_assert_uint_eq(backend_sim.now(B), 11 * SEC / 4);
	ck_assert_uint_eq(c[0].time_enabled, 3 * SEC / 4);
	ck_assert_uint_eq(c[0].time_running, 3 * SEC / 4);
	ck_assert_uint_ge(c[0].value, half);

	/* The same spans of the workload model directly. */
	struct wl_params p;
	wl_params_default(&p);
	struct wl_cpu w;
	wl_cpu_init(&w, &p, 7);
	double skip[WQ_COUNT] = { 0 }, q[WQ_COUNT] = { 0 };
	wl_cpu_advance(&w, &p, 0, SEC, skip);
	wl_cpu_advance(&w, &p, SEC, SEC / 2, q);
	wl_cpu_advance(&w, &p, 3 * SEC / 2, SEC, skip);
	wl_cpu_advance(&w, &p, 5 * SEC / 2, SEC / 4, q);
	ck_assert_double_eq_tol((double)c[0].value, q[WQ_CYCLES], 1.0);
	ck_assert_double_eq_tol((double)c[1].value, q[WQ_INSTRUCTIONS], 1.0);
	ck_assert_double_eq_tol((double)c[2].value, q[WQ_BUSY_NS], 1.0);
	ck_assert_uint_le(c[2].value, c[0].time_running);
	backend_sim.close(B, g);
}
END_TEST

/* Which of the groups opened on CPUs 0-7 the ground truth still finds:
 * a bit per CPU. */
static unsigned open_cpus(struct backend *b, const int *ev, int n)
{
	unsigned found = 0;
	for (int cpu = 0; cpu < 8; cpu++) {
		struct bk_instance in = core_inst(cpu);
		double out[4], running;
		if (sim_truth_group(b, &in, ev, n, out, &running) == 0)
			found |= 1u << cpu;
	}
	return found;
}

/* Closing a group takes it out of the open groups wherever it stands
 * among them, and only it: the oldest (the sampler closes a plan in the
 * order it opened it), the newest twice in a row, ones between, one
 * opened after others were closed, and the last one left. */
START_TEST(test_close_order)
{
	int ev[] = { E_CYCLES, E_INSN };
	struct bk_group *g[8];
	for (int cpu = 0; cpu < 8; cpu++)
		g[cpu] = open_ok(B, core_inst(cpu), ev, 2);
	ck_assert_uint_eq(open_cpus(B, ev, 2), 0xffu);
	/* Each step: the CPU whose group closes (-1: CPU 0's opens again),
	 * then the CPUs the truth still finds. */
	static const struct { int cpu; unsigned left; } steps[] = {
		{ 0, 0xfeu },      /* the oldest */
		{ 7, 0x7eu },      /* the newest */
		{ 6, 0x3eu },      /* the newest again */
		{ 3, 0x36u },      /* between */
		{ 4, 0x26u },      /* between, beside the one closed before */
		{ -1, 0x27u },     /* CPU 0's again, the newest now */
		{ 2, 0x23u },
		{ 5, 0x03u },
		{ 0, 0x02u },      /* the newest, with one left behind it */
		{ 1, 0x00u },      /* the last one */
	};
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		if (steps[i].cpu < 0)
			g[0] = open_ok(B, core_inst(0), ev, 2);
		else
			backend_sim.close(B, g[steps[i].cpu]);
		ck_assert_msg(open_cpus(B, ev, 2) == steps[i].left, "step %zu: open on CPUs %#x, not %#x", i,
			      open_cpus(B, ev, 2), steps[i].left);
	}
	g[3] = open_ok(B, core_inst(3), ev, 2);      /* an empty list takes one again */
	ck_assert_uint_eq(open_cpus(B, ev, 2), 0x08u);
	backend_sim.close(B, g[3]);
}
END_TEST

static void read_all_cpus(struct backend *b, uint64_t *out)
{
	int ev[] = { E_CYCLES, E_INSN, E_BADSPEC, E_NOSIM };
	struct bk_group *g[16];
	for (int cpu = 0; cpu < 16; cpu++) {
		g[cpu] = open_ok(b, core_inst(cpu), ev, 4);
		backend_sim.enable(b, g[cpu]);
	}
	backend_sim.advance(b, 7 * SEC);
	for (int cpu = 0; cpu < 16; cpu++) {
		struct bk_count c[4];
		read_ok(b, g[cpu], c);
		for (int k = 0; k < 4; k++)
			out[cpu * 4 + k] = c[k].value;
		backend_sim.close(b, g[cpu]);
	}
}

START_TEST(test_backend_determinism)
{
	uint64_t a[64], b[64], c[64];
	struct backend *b1 = make_backend("seed=3"), *b2 = make_backend("seed=3"),
		       *b3 = make_backend("seed=4");
	read_all_cpus(b1, a);
	read_all_cpus(b2, b);
	read_all_cpus(b3, c);
	ck_assert_mem_eq(a, b, sizeof(a));
	ck_assert(memcmp(a, c, sizeof(a)) != 0);
	/* CPUs differ from each other, and events without a formula count a
	 * small share of cycles. */
	ck_assert_uint_ne(a[0], a[4]);
	for (int cpu = 0; cpu < 16; cpu++) {
		ck_assert_uint_gt(a[cpu * 4 + 3], 0);
		ck_assert_uint_le(a[cpu * 4 + 3], a[cpu * 4] / 20 + 1);
	}
	backend_sim.destroy(b1);
	backend_sim.destroy(b2);
	backend_sim.destroy(b3);
}
END_TEST

/* CCX and socket scopes see the sums of their CPUs: the L3 instance of a
 * CCX counts what the core counters of its 16 CPUs count, the UMC channels
 * of a socket together count the socket's L3 misses and write-backs as
 * 64-byte transfers, and every physical relation holds over many intervals. */
START_TEST(test_scopes_and_consistency)
{
	struct backend *b = make_backend("nmi=0,channels=2");
	struct bk_group *core[128], *l3[8], *umc[4];
	int cev[] = { E_CORE_L3_MISS, E_CYCLES, E_INSN, E_OPS, E_BADSPEC, E_TASK };
	int lev[] = { E_L3_MISS, E_L3_ACCESS, E_LAT_SUM, E_LAT_REQ };
	int uev[] = { E_UMC_CAS, E_UMC_CLK };
	struct bk_instance *v;
	char *why = NULL;
	for (int cpu = 0; cpu < 128; cpu++)
		core[cpu] = open_ok(b, core_inst(cpu), cev, 6);
	int n = backend_sim.instances(b, P_L3, &v, &why);
	for (int i = 0; i < n; i++)
		l3[i] = open_ok(b, v[i], lev, 4);
	free_instances(v, n);
	n = backend_sim.instances(b, P_UMC, &v, &why);
	for (int i = 0; i < n; i++)
		umc[i] = open_ok(b, v[i], uev, 2);
	free_instances(v, n);
	for (int cpu = 0; cpu < 128; cpu++)
		backend_sim.enable(b, core[cpu]);
	for (int i = 0; i < 8; i++)
		backend_sim.enable(b, l3[i]);
	for (int i = 0; i < 4; i++)
		backend_sim.enable(b, umc[i]);

	struct bk_count prev[128][6] = { 0 };
	for (int step = 0; step < 40; step++) {
		uint64_t dt = (uint64_t)(100 + 37 * (step % 11)) * 1000000ULL;
		backend_sim.advance(b, dt);
		double ccx_sum[8] = { 0 }, sock_sum[2] = { 0 };
		for (int cpu = 0; cpu < 128; cpu++) {
			struct bk_count c[6];
			read_ok(b, core[cpu], c);
			for (int k = 0; k < 6; k++)
				ck_assert_uint_ge(c[k].value, prev[cpu][k].value);
			double cyc = (double)(c[1].value - prev[cpu][1].value);
			double insn = (double)(c[2].value - prev[cpu][2].value);
			double ops = (double)(c[3].value - prev[cpu][3].value);
			double busy = (double)(c[5].value - prev[cpu][5].value);
			ck_assert(insn <= ops + 1);
			ck_assert(cyc <= 5.0 * busy + 2);
			ck_assert(busy <= (double)dt + 1);
			memcpy(prev[cpu], c, sizeof(c));
			const struct topo_cpu *tc = topo_cpu_by_num(T, cpu);
			ccx_sum[tc->ccx] += (double)c[0].value;
			sock_sum[tc->socket] += (double)c[0].value;
		}
		double chan[2] = { 0 };
		for (int i = 0; i < 8; i++) {
			struct bk_count c[4];
			read_ok(b, l3[i], c);
			/* Each of the 16 core counts was rounded on its own. */
			ck_assert_double_eq_tol((double)c[0].value, ccx_sum[i], 16);
			ck_assert_uint_le(c[0].value, c[1].value);
			double lat = (double)c[2].value / (double)c[3].value;
			ck_assert(lat >= 7.4 && lat <= 12.1);
		}
		for (int i = 0; i < 4; i++) {
			struct bk_count c[2];
			read_ok(b, umc[i], c);
			chan[i / 2] += (double)c[0].value;
			/* MEMCLK per channel: 3 GHz of the time so far. */
			ck_assert_double_eq_tol((double)c[1].value, 3.0 * (double)backend_sim.now(b), 2);
		}
		for (int s = 0; s < 2; s++) {
			/* Reads are L3 misses; writes add at most as many again. */
			ck_assert(chan[s] >= sock_sum[s] - 64);
			ck_assert(chan[s] <= 2 * sock_sum[s] + 64);
		}
	}
	for (int cpu = 0; cpu < 128; cpu++)
		backend_sim.close(b, core[cpu]);
	for (int i = 0; i < 8; i++)
		backend_sim.close(b, l3[i]);
	for (int i = 0; i < 4; i++)
		backend_sim.close(b, umc[i]);
	backend_sim.destroy(b);
}
END_TEST

START_TEST(test_constant_rates)
{
	double rates[NEVENTS];
	for (int i = 0; i < NEVENTS; i++)
		rates[i] = NAN;
	rates[E_CYCLES] = 2e9;
	rates[E_NOSIM] = 1000;
	rates[E_L3_MISS] = 12345;
	sim_set_constant_rates(B, 2, rates);
	sim_set_constant_rates(B, 8, rates);   /* the reader CPU of CCX 1 */
	int ev[] = { E_CYCLES, E_INSN, E_NOSIM };
	struct bk_group *g = open_ok(B, core_inst(2), ev, 3);
	struct bk_instance l3 = { .pmu = P_L3, .perf_name = "amd_l3", .cpu = 8,
				  .scope = SCOPE_CCX, .scope_id = 1 };
	struct bk_group *u = open_ok(B, l3, (int[]){ E_L3_MISS, E_L3_ACCESS }, 2);
	backend_sim.enable(B, g);
	backend_sim.enable(B, u);
	backend_sim.advance(B, 5 * SEC / 2);
	struct bk_count c[3], cu[2];
	read_ok(B, g, c);
	read_ok(B, u, cu);
	ck_assert_uint_eq(c[0].value, 5000000000ULL);
	ck_assert_uint_eq(c[2].value, 2500);
	ck_assert_uint_gt(c[1].value, 0);     /* NaN: the model */
	ck_assert_uint_eq(cu[0].value, 30863); /* 12345 x 2.5, rounded */
	ck_assert_uint_gt(cu[1].value, 0);
	/* Rates follow running time, not enabled time. */
	backend_sim.disable(B, g);
	backend_sim.advance(B, SEC);
	read_ok(B, g, c);
	ck_assert_uint_eq(c[0].value, 5000000000ULL);
	sim_set_constant_rates(B, 2, NULL);
	backend_sim.close(B, g);
	backend_sim.close(B, u);
}
END_TEST

START_TEST(test_faults)
{
	int ev[] = { E_CYCLES };
	struct bk_group *g3 = open_ok(B, core_inst(3), ev, 1);
	struct bk_group *g1 = open_ok(B, core_inst(1), ev, 1);
	struct bk_group *g0 = open_ok(B, core_inst(0), ev, 1);
	backend_sim.enable(B, g3);
	struct bk_count c;

	/* CPU 3 goes offline after two reads. */
	sim_inject_fault(B, &(struct sim_fault){ .cpu = 3, .err = -ENODEV, .after_reads = 2 });
	backend_sim.advance(B, SEC);
	read_ok(B, g3, &c);
	read_ok(B, g1, &c);    /* other CPUs do not count towards it */
	read_ok(B, g3, &c);
	ck_assert_int_eq(backend_sim.read(B, g3, &c), -ENODEV);
	ck_assert_int_eq(backend_sim.read(B, g3, &c), -ENODEV);
	ck_assert_int_eq(open_err(B, core_inst(3), ev, 1), -ENODEV);
	struct bk_instance *v;
	char *why = NULL;
	int n = backend_sim.instances(B, P_CORE, &v, &why);
	ck_assert_int_eq(n, 127);
	for (int i = 0; i < n; i++)
		ck_assert_int_ne(v[i].cpu, 3);
	free_instances(v, n);

	/* An interrupted read fires once. */
	sim_inject_fault(B, &(struct sim_fault){ .cpu = 1, .err = -EINTR, .after_reads = 0 });
	ck_assert_int_eq(backend_sim.read(B, g1, &c), -EINTR);
	read_ok(B, g1, &c);
	/* A short read, reported as -EIO, after one good read on any CPU. */
	sim_inject_fault(B, &(struct sim_fault){ .cpu = -1, .err = -EIO, .after_reads = 1 });
	read_ok(B, g0, &c);
	ck_assert_int_eq(backend_sim.read(B, g1, &c), -EIO);
	read_ok(B, g1, &c);

	/* Opens refused (perf_event_paranoid) until cleared; a positive errno
	 * is taken as its negative. */
	sim_inject_fault(B, &(struct sim_fault){ .cpu = -1, .err = EACCES, .on_open = true });
	ck_assert_int_eq(open_err(B, core_inst(4), ev, 1), -EACCES);
	ck_assert_int_eq(open_err(B, core_inst(5), ev, 1), -EACCES);
	read_ok(B, g1, &c);    /* open faults leave reads alone */
	sim_inject_fault(B, &(struct sim_fault){ .cpu = -1, .err = 0 });
	backend_sim.close(B, open_ok(B, core_inst(4), ev, 1));

	/* Opening fails after one success, and -ENODEV on open means the CPU
	 * is gone. */
	sim_inject_fault(B, &(struct sim_fault){ .cpu = 8, .err = -ENODEV, .after_reads = 1,
						 .on_open = true });
	backend_sim.close(B, open_ok(B, core_inst(8), ev, 1));
	ck_assert_int_eq(open_err(B, core_inst(8), ev, 1), -ENODEV);
	ck_assert_int_eq(open_err(B, core_inst(8), ev, 1), -ENODEV);
	n = backend_sim.instances(B, P_L3, &v, &why);
	ck_assert_int_eq(v[1].cpu, 9);    /* CCX 1 is read on its next CPU */
	free_instances(v, n);

	backend_sim.close(B, g3);
	backend_sim.close(B, g1);
	backend_sim.close(B, g0);
}
END_TEST

/* 1024 CPUs with 3 groups of 8 events each, rotated as the sampler does:
 * every group counts in its third of each interval. Its speed (well under
 * 10 ms an interval) is bench/bench_sim's to measure, not a unit test's. */
START_TEST(test_large_machine)
{
	struct topo *t = fx_topo("4x8x8x4");
	struct backend *b = fx_sim(M, t, "nmi=0");
	int ev[3][8] = {
		{ E_CYCLES, E_INSN, E_OPS, E_BADSPEC, E_NOSIM, E_CORE_L3_MISS, E_TASK, E_TASK },
		{ E_CYCLES, E_INSN, E_OPS, E_BADSPEC, E_NOSIM, E_CORE_L3_MISS, E_TASK, E_TASK },
		{ E_CYCLES, E_INSN, E_OPS, E_BADSPEC, E_NOSIM, E_CORE_L3_MISS, E_TASK, E_TASK },
	};
	static struct bk_group *g[1024][3];
	for (int cpu = 0; cpu < 1024; cpu++)
		for (int k = 0; k < 3; k++)
			g[cpu][k] = open_ok(b, core_inst(cpu), ev[k], 8);
	int failed = 0;
	for (int rep = 0; rep < 5; rep++) {
		/* The sampler's rotation: each group in turn for a third. */
		for (int k = 0; k < 3; k++) {
			for (int cpu = 0; cpu < 1024; cpu++)
				backend_sim.enable(b, g[cpu][k]);
			backend_sim.advance(b, SEC / 3);
			for (int cpu = 0; cpu < 1024; cpu++) {
				struct bk_count c[8];
				if (backend_sim.read(b, g[cpu][k], c) != 0 || c[0].value == 0)
					failed++;
				backend_sim.disable(b, g[cpu][k]);
			}
		}
	}
	ck_assert_int_eq(failed, 0);
	for (int cpu = 0; cpu < 1024; cpu++)
		for (int k = 0; k < 3; k++)
			backend_sim.close(b, g[cpu][k]);
	backend_sim.destroy(b);
	topo_free(t);
}
END_TEST

/* ---- every shipped model through the simulator ---- */

struct metric_ctx {
	const struct model *m;
	const double *count;     /* per event, NaN where not counted */
	double measured_s;
	int depth;
};

static double metric_value(void *ctx, int ref)
{
	struct metric_ctx *c = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return c->measured_s;
	if (ref >= METRIC_REF_BASE && ref < BUILTIN_INTERVAL_S) {
		int j = ref - METRIC_REF_BASE;
		if (j >= c->m->nmetrics || c->depth > 20)
			return NAN;
		c->depth++;
		double v = expr_eval(c->m->metrics[j].expr, metric_value, c);
		c->depth--;
		return v;
	}
	return ref >= 0 && ref < c->m->nevents ? c->count[ref] : NAN;
}

/* "ratio" metrics that may legitimately exceed 1 in the simulator. */
static bool may_exceed_one(const struct model *m, const struct metric_def *md)
{
	/* Core clock over reference clock: above 1 in turbo, and the sim
	 * runs every model up to 5/3 of its nominal clock. */
	if (strcmp(md->name, "freq_ratio") == 0)
		return true;
	/* Core 2's bus_trans_any.self sim formula adds l2_pf_miss to l2_miss,
	 * which already holds the prefetch misses, so a memory-bound phase
	 * shows more transactions than the bus can carry. */
	if (strcmp(m->name, "intel-core2") == 0 && strcmp(md->name, "bus_util") == 0)
		return true;
	return false;
}

/* Evaluates every metric whose events all live at its own scope. */
static void check_metrics(const struct model *m, const double *count, double measured_s)
{
	struct metric_ctx mc = { m, count, measured_s, 0 };
	for (int j = 0; j < m->nmetrics; j++) {
		const struct metric_def *md = &m->metrics[j];
		bool one_scope = true;
		for (int k = 0; k < md->nevents; k++)
			if (m->pmus[m->events[md->events[k]].pmu].scope != md->scope)
				one_scope = false;
		if (!one_scope)
			continue;
		double v = expr_eval(md->expr, metric_value, &mc);
		if (isnan(v))
			continue;   /* e.g. a zero denominator in an idle phase */
		if (md->unit && strcmp(md->unit, "ratio") == 0 && !may_exceed_one(m, md))
			CHECK(v >= -1e-6 && v <= 1 + 1e-6, "%s: %s = %g", m->name, md->name, v);
		else
			CHECK(v >= 0, "%s: %s = %g", m->name, md->name, v);
		if (strcmp(md->name, "ipc") == 0)
			CHECK(v > 0.1 && v < 6, "%s: ipc %g", m->name, v);
		if (strcmp(md->name, "ghz") == 0)
			CHECK(v > 1 && v <= 5.0 + 1e-6, "%s: ghz %g", m->name, v);
		if (strcmp(md->name, "l3_miss_latency_ns") == 0)
			CHECK(v >= 74 && v <= 121, "%s: latency %g ns", m->name, v);
	}
}

/* Loads every model under events/, builds its default --sim machine,
 * counts every event alone on the first instance of its PMU for 3 s and
 * evaluates every metric whose events are all of one PMU scope: the sim
 * formulas resolve, every event reads, ratios are fractions, and on Zen 5
 * the headline figures are plausible. */
/* The simulator counts an AMD event whose unit mask selects several cases
 * as the sum of those cases, where the model defines each (sim_masks.c).
 * Every shipped event counted that way must agree with its own formula on
 * random quantities, so that the two views of the hardware match; and the
 * rule must find the parts: zen4's ls_any_fills_from_sys.all (0xDF) is
 * the sum of its seven defined cases. */
static double quantity_of(void *ctx, int ref)
{
	const double *q = ctx;
	return ref >= 0 && ref < WQ_COUNT ? q[ref] : NAN;
}

static int resolve_quantity(void *ctx, const char *name)
{
	(void)ctx;
	return wl_quantity_lookup(name);
}

static double sim_formula(const struct event_def *ev, const double *q)
{
	int col = 0;
	char *why = NULL;
	struct expr *x = expr_parse(ev->sim_text, &col, &why);
	ck_assert_msg(x && expr_resolve(x, resolve_quantity, NULL, &col, &why) == 0, "%s: %s", ev->name,
		      why ? why : "?");
	double v = expr_eval(x, quantity_of, (void *)q);
	expr_free(x);
	return v;
}

START_TEST(test_mask_parts)
{
	static const char *const models[] = { "amd-zen3", "amd-zen4", "amd-zen5" };
	int checked = 0;
	for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		struct model *m = fx_model(models[k]);
		double q[WQ_COUNT];
		for (int i = 0; i < WQ_COUNT; i++)
			q[i] = 1e6 * (1 + (i * 7919) % 97);
		for (int e = 0; e < m->nevents; e++) {
			int n = 0, *parts = sim_mask_parts(m, e, &n);
			if (!parts)
				continue;
			ck_assert_ptr_nonnull(m->events[e].sim_text);
			double own = sim_formula(&m->events[e], q), sum = 0;
			for (int j = 0; j < n; j++)
				sum += sim_formula(&m->events[parts[j]], q);
			ck_assert_msg(fabs(own - sum) <= 1e-9 * fabs(own), "%s %s: its formula gives %g, its %d cases %g",
				      m->name, m->events[e].name, own, n, sum);
			if (!strcmp(m->name, "amd-zen4") && !strcmp(m->events[e].name, "ls_any_fills_from_sys.all"))
				ck_assert_int_eq(n, 7);
			checked++;
			free(parts);
		}
		model_free(m);
	}
	ck_assert_int_ge(checked, 50);
}
END_TEST

START_TEST(test_shipped_models)
{
	char *cause = NULL;
	struct model_info *list = NULL;
	int n = model_list(TOP_SRCDIR "/events", &list, &cause);
	ck_assert_msg(n > 0, "no models in %s: %s", TOP_SRCDIR "/events", cause ? cause : "");
	for (int i = 0; i < n; i++) {
		struct model *m = fx_model(list[i].dir);
		char *name = NULL;
		int shape[4];
		ck_assert_int_eq(sim_parse_spec(m->name, list, n, &name, shape, &cause), 0);
		ck_assert_str_eq(name, m->name);
		free(name);
		/* The smallest machine of the model's kind (one socket, one
		 * L3 domain, two cores): every PMU has an instance, and each of
		 * the thousands of short simulations below stays cheap. */
		struct topo *t = topo_synthetic(1, shape[1] > 0 ? 1 : 0, 2, shape[3] > 1 ? 2 : 1);
		struct backend *b = fx_sim(m, t, "nmi=0");
		struct bk_instance *first = xcalloc((size_t)m->npmus, sizeof(*first));
		struct bk_instance **all = xcalloc((size_t)m->npmus, sizeof(*all));
		int *nall = xcalloc((size_t)m->npmus, sizeof(int));
		for (int p = 0; p < m->npmus; p++) {
			char *why = NULL;
			nall[p] = backend_sim.instances(b, p, &all[p], &why);
			ck_assert_msg(nall[p] > 0, "%s: PMU %s: %s", m->name, m->pmus[p].name,
				      why ? why : "");
			first[p] = all[p][0];
		}
		/* Windows of CPU 0's workload (seed 0): memory-bound, memory then
		 * idle, compute, idle. */
		static const uint64_t win[][2] = {
			{ 0, 3 * SEC / 2 }, { 6 * SEC, 3 * SEC }, { 14700 * SEC / 1000, 3 * SEC / 2 },
			{ 21 * SEC, 3 * SEC },
		};
		double *count = xcalloc((size_t)m->nevents, sizeof(double));
		for (size_t w = 0; w < ARRAY_SIZE(win); w++) {
			/* Each event alone on a fresh simulator with the same seed,
			 * so that all of them see the same span of the workload. */
			for (int e = 0; e < m->nevents; e++) {
				struct backend *be = fx_sim(m, t, "nmi=0");
				/* A PERF_METRICS event opens only behind its slots. */
				int ev[2] = { e, e }, nev = 1;
				if (m->events[e].flags & EVF_TOPDOWN) {
					for (int k = 0; k < m->nevents; k++)
						if ((m->events[k].flags & EVF_SLOTS) && m->events[k].pmu == m->events[e].pmu)
							ev[0] = k;
					nev = 2;
				}
				struct bk_group *g = open_ok(be, first[m->events[e].pmu], ev, nev);
				backend_sim.advance(be, win[w][0]);
				backend_sim.enable(be, g);
				backend_sim.advance(be, win[w][1]);
				struct bk_count c[2];
				CHECK(backend_sim.read(be, g, c) == 0 && c[nev - 1].time_running == win[w][1],
				      "%s: event %s", m->name, m->events[e].name);
				count[e] = (double)c[nev - 1].value;
				backend_sim.close(be, g);
				backend_sim.destroy(be);
			}
			check_metrics(m, count, (double)win[w][1] / 1e9);
		}
		free(count);
		for (int p = 0; p < m->npmus; p++)
			free_instances(all[p], nall[p]);
		free(all);
		free(nall);
		free(first);
		backend_sim.destroy(b);
		topo_free(t);
		model_free(m);
	}
	model_list_free(list, n);
}
END_TEST

/* Privilege modifiers on the shipped Zen 5 model: `instructions:u` and
 * `instructions:k` (and cycles') add up to the plain count, equal the
 * simulator's physical split of each CPU's work (kernel_cycles,
 * kernel_instructions), and that split moves with the CPU and its phase:
 * the kernel takes a share of 4-50 % of the cycles, at a lower IPC. */
START_TEST(test_privilege_split)
{
	char *cause = NULL;
	struct model *m = fx_model("events/amd/zen5");
	static const char *const names[] = { "instructions", "instructions:u", "instructions:k",
					     "cycles", "cycles:u", "cycles:k" };
	int ev[6];
	for (int i = 0; i < 6; i++) {
		ev[i] = model_event_variant(m, names[i], &cause);
		ck_assert_msg(ev[i] >= 0, "%s: %s", names[i], cause ? cause : "");
	}
	struct topo *t = fx_topo("1x1x4x2");
	struct backend *b = fx_sim(m, t, "nmi=0,seed=5");
	struct bk_group *g[8];
	for (int cpu = 0; cpu < 8; cpu++) {
		g[cpu] = open_ok(b, core_inst(cpu), ev, 6);
		backend_sim.enable(b, g[cpu]);
	}
	double lo = 1, hi = 0;
	uint64_t prev[8][6] = { { 0 } };
	for (int step = 0; step < 20; step++) {
		backend_sim.advance(b, SEC / 2);
		for (int cpu = 0; cpu < 8; cpu++) {
			struct bk_count c[6];
			read_ok(b, g[cpu], c);
			double q[WQ_COUNT];
			struct bk_instance in = core_inst(cpu);
			ck_assert_int_eq(sim_truth_source(b, &in, q), 0);
			/* Counts are whole numbers: each part rounds on its own. */
			ck_assert_msg(llabs((long long)(c[1].value + c[2].value) - (long long)c[0].value) <= 2,
				      "CPU %d: instructions %" PRIu64 " = %" PRIu64 " :u + %" PRIu64 " :k", cpu,
				      c[0].value, c[1].value, c[2].value);
			ck_assert(llabs((long long)(c[4].value + c[5].value) - (long long)c[3].value) <= 2);
			ck_assert_double_eq_tol((double)c[2].value, q[WQ_KERNEL_INSTRUCTIONS], 1.0);
			ck_assert_double_eq_tol((double)c[5].value, q[WQ_KERNEL_CYCLES], 1.0);
			ck_assert_double_eq_tol((double)c[4].value, q[WQ_CYCLES] - q[WQ_KERNEL_CYCLES], 1.0);
			/* This half second's kernel share of the cycles, and the
			 * kernel's IPC below user code's. */
			double dk = (double)(c[5].value - prev[cpu][5]), dc = (double)(c[3].value - prev[cpu][3]);
			double ki = (double)(c[2].value - prev[cpu][2]), ui = (double)(c[1].value - prev[cpu][1]);
			double share = dk / dc;
			ck_assert_msg(share >= 0.04 && share <= 0.5, "CPU %d: kernel share %g", cpu, share);
			ck_assert_msg(ki / dk < ui / (dc - dk), "CPU %d: kernel IPC %g, user %g", cpu, ki / dk,
				      ui / (dc - dk));
			lo = share < lo ? share : lo;
			hi = share > hi ? share : hi;
			for (int k = 0; k < 6; k++)
				prev[cpu][k] = c[k].value;
		}
	}
	ck_assert_msg(hi - lo > 0.1, "kernel shares %g-%g: the split does not move", lo, hi);
	for (int cpu = 0; cpu < 8; cpu++)
		backend_sim.close(b, g[cpu]);
	backend_sim.destroy(b);
	topo_free(t);
	model_free(m);
}
END_TEST

static Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("workload");
	tcase_add_test(tc, test_quantity_names);
	tcase_add_loop_test(tc, test_consistency, 0, 3);
	tcase_add_test(tc, test_phases);
	tcase_add_test(tc, test_segments);
	tcase_add_test(tc, test_fine_spans);
	tcase_add_test(tc, test_determinism);
	tcase_add_test(tc, test_channel_fill);
	suite_add_tcase(s, tc);

	tc = tcase_create("backend");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_spec);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_instances);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_placement);
	tcase_add_test(tc, test_kernel_mux);
	tcase_add_test(tc, test_kernel_mux_ticks);
	tcase_add_test(tc, test_kernel_mux_large);
	tcase_add_test(tc, test_time_accounting);
	tcase_add_test(tc, test_close_order);
	tcase_add_test(tc, test_backend_determinism);
	tcase_add_test(tc, test_scopes_and_consistency);
	tcase_add_test(tc, test_constant_rates);
	tcase_add_test(tc, test_faults);
	tcase_add_test(tc, test_large_machine);
	tcase_add_test(tc, test_shipped_models);
	tcase_add_test(tc, test_privilege_split);
	tcase_add_test(tc, test_mask_parts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(sim_suite());
}
