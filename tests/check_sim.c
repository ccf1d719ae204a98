/* check_sim.c: tests of the simulated PMU's workload model (sim_workload.c)
 * and of the backend (backend_sim.c): physical consistency of every
 * quantity, determinism, counter limits, scheduling, time accounting,
 * constant rates, injected faults and uncore instances. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_workload.h"

/* ---- workload model ---- */

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
		"ctx_switches", "migrations", "page_faults",
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

/* Asserts a <= b with a relative tolerance for rounding. */
#define LE(a, b) ck_assert_msg((a) <= (b) * (1 + 1e-9) + 1e-6, \
	"cpu %d t %.3f s: %s = %g > %s = %g", cpu, t / 1e9, #a, (double)(a), #b, (double)(b))

static void check_consistent(const struct wl_params *p, const double *q, uint64_t dt, int cpu,
			     uint64_t t)
{
	LE(q[WQ_BUSY_NS], q[WQ_TOTAL_NS]);
	ck_assert_double_eq_tol(q[WQ_TOTAL_NS], (double)dt, 1e-6);
	LE(q[WQ_CYCLES], p->ghz_max * q[WQ_BUSY_NS]);
	ck_assert_double_eq_tol(q[WQ_REF_CYCLES], p->ghz_nominal * q[WQ_BUSY_NS],
				1e-6 * q[WQ_REF_CYCLES] + 1e-6);
	LE(q[WQ_INSTRUCTIONS], q[WQ_OPS]);
	LE(q[WQ_OPS], q[WQ_OPS_DISPATCHED]);
	LE(q[WQ_MICROCODE_OPS], q[WQ_OPS]);
	ck_assert_double_eq_tol(q[WQ_DISPATCH_SLOTS], p->width * q[WQ_CYCLES],
				1e-9 * q[WQ_DISPATCH_SLOTS] + 1e-6);
	double slots = q[WQ_FE_STALL_SLOTS] + q[WQ_BE_STALL_SLOTS] + q[WQ_OPS_DISPATCHED] +
		       q[WQ_SMT_STALL_SLOTS];
	ck_assert_double_eq_tol(slots, q[WQ_DISPATCH_SLOTS], 1e-9 * slots + 1e-6);
	LE(p->width * q[WQ_FE_LATENCY_CYCLES], q[WQ_FE_STALL_SLOTS]);
	LE(q[WQ_BE_STALL_SLOTS], p->width * q[WQ_BE_CYCLES]);
	LE(q[WQ_BE_CYCLES], q[WQ_CYCLES]);
	LE(q[WQ_BE_MEM_CYCLES], q[WQ_BE_CYCLES]);
	if (!p->smt)
		ck_assert_double_eq(q[WQ_SMT_STALL_SLOTS], 0);
	LE(q[WQ_BRANCHES], q[WQ_INSTRUCTIONS]);
	LE(q[WQ_BRANCH_MISSES], q[WQ_BRANCHES]);
	LE(q[WQ_TAKEN_BRANCHES], q[WQ_BRANCHES]);
	LE(q[WQ_RESYNCS], q[WQ_BRANCH_MISSES]);
	LE(q[WQ_L1D_MISS], q[WQ_L1D_ACCESS]);
	LE(q[WQ_L1I_MISS], q[WQ_INSTRUCTIONS]);
	LE(q[WQ_L1D_MISS] + q[WQ_L1I_MISS], q[WQ_L2_ACCESS]);
	LE(q[WQ_L2_MISS], q[WQ_L2_ACCESS]);
	ck_assert_double_eq_tol(q[WQ_L2_HIT] + q[WQ_L2_MISS], q[WQ_L2_ACCESS],
				1e-9 * q[WQ_L2_ACCESS] + 1e-6);
	LE(q[WQ_L2_PF_HIT] + q[WQ_L2_PF_MISS], q[WQ_L2_ACCESS]);
	LE(q[WQ_L2_PF_MISS], q[WQ_L2_MISS]);
	LE(q[WQ_L2_PF_HIT], q[WQ_L2_HIT]);
	LE(q[WQ_L3_ACCESS], q[WQ_L2_MISS]);
	LE(q[WQ_L3_MISS], q[WQ_L3_ACCESS]);
	LE(q[WQ_L3_LAT_REQ], q[WQ_L3_MISS]);
	if (q[WQ_L3_LAT_REQ] > 0) {
		double lat = q[WQ_L3_LAT_SUM] / q[WQ_L3_LAT_REQ];
		ck_assert_msg(lat >= 7.5 - 1e-9 && lat <= 12 + 1e-9, "latency %g x 10 ns", lat);
	}
	LE(q[WQ_DTLB_WALK], q[WQ_DTLB_MISS]);
	LE(q[WQ_ITLB_WALK], q[WQ_ITLB_MISS]);
	LE(q[WQ_DTLB_MISS], q[WQ_L1D_ACCESS]);
	ck_assert_double_eq_tol(q[WQ_MEM_READ_BYTES], 64 * q[WQ_L3_MISS],
				1e-9 * q[WQ_MEM_READ_BYTES] + 1e-6);
	LE(q[WQ_MEM_WRITE_BYTES], q[WQ_MEM_READ_BYTES]);
	LE(q[WQ_MIGRATIONS], q[WQ_CTX_SWITCHES]);
	ck_assert_double_eq(q[WQ_MEMCLK], 0);
	ck_assert_double_eq(q[WQ_DATA_BUS_BUSY], 0);
	for (int i = 0; i < WQ_COUNT; i++)
		ck_assert_msg(q[i] >= 0 && isfinite(q[i]), "%s = %g", wl_quantity_name(i), q[i]);
}

/* Many CPUs over a simulated minute in uneven steps: every interval of
 * every CPU obeys every inequality, with and without SMT and at width 4. */
START_TEST(test_consistency)
{
	struct wl_params p;
	wl_params_default(&p);
	p.seed = 42;
	if (_i == 1) {
		p.smt = false;
		p.width = 4;
	}
	for (int cpu = 0; cpu < 48; cpu++) {
		struct wl_cpu c;
		wl_cpu_init(&c, &p, cpu);
		uint64_t t = 0;
		for (int k = 0; k < 150; k++) {
			uint64_t dt = 50000000ULL + (uint64_t)((k * 7919 + cpu * 104729) % 700) * 1000000ULL;
			double q[WQ_COUNT] = { 0 };
			wl_cpu_advance(&c, &p, t, dt, q);
			check_consistent(&p, q, dt, cpu, t);
			t += dt;
		}
	}
}
END_TEST

/* Every kind of phase occurs, phases last 1.5 to 6 s, and a memory-bound
 * phase shows a DRAM latency of 80-120 ns, a low IPC and many L3 misses
 * while a compute phase shows a high IPC. */
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
			double q[WQ_COUNT] = { 0 };
			uint64_t dt = c.phase_end - t;
			enum wl_phase_kind kind = c.kind;
			seen[kind]++;
			wl_cpu_advance(&c, &p, t, dt, q);
			t += dt;
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

static Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("workload");
	tcase_add_test(tc, test_quantity_names);
	tcase_add_loop_test(tc, test_consistency, 0, 2);
	tcase_add_test(tc, test_phases);
	tcase_add_test(tc, test_determinism);
	tcase_add_test(tc, test_channel_fill);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
