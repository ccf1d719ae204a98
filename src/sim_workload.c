/* sim_workload.c: the deterministic per-CPU workload model of the simulated
 * PMU. A phase's parameters are drawn from a counter-based hash of (seed,
 * cpu, phase number) rather than from a running random generator, so that a
 * CPU's phase at any time depends on nothing but those three numbers: two
 * simulators with the same seed agree whatever order they advance in.
 *
 * Every quantity is derived from the ones above it in the memory or pipeline
 * hierarchy by a factor in [0, 1] (or >= 1 where the inequality goes the
 * other way), which is what keeps the counts physically consistent. */
#include "config.h"
#include "sim_workload.h"

#include <math.h>
#include <string.h>

#include "util.h"

static const char *const quantity_names[WQ_COUNT] = {
	[WQ_CYCLES] = "cycles", [WQ_REF_CYCLES] = "ref_cycles",
	[WQ_BUSY_NS] = "busy_ns", [WQ_TOTAL_NS] = "total_ns",
	[WQ_INSTRUCTIONS] = "instructions", [WQ_OPS] = "ops",
	[WQ_OPS_DISPATCHED] = "ops_dispatched", [WQ_DISPATCH_SLOTS] = "dispatch_slots",
	[WQ_FE_STALL_SLOTS] = "fe_stall_slots", [WQ_FE_LATENCY_CYCLES] = "fe_latency_cycles",
	[WQ_BE_STALL_SLOTS] = "be_stall_slots", [WQ_SMT_STALL_SLOTS] = "smt_stall_slots",
	[WQ_BE_MEM_CYCLES] = "be_mem_cycles", [WQ_BE_CYCLES] = "be_cycles",
	[WQ_MICROCODE_OPS] = "microcode_ops",
	[WQ_BRANCHES] = "branches", [WQ_BRANCH_MISSES] = "branch_misses",
	[WQ_TAKEN_BRANCHES] = "taken_branches", [WQ_RESYNCS] = "resyncs",
	[WQ_L1D_ACCESS] = "l1d_access", [WQ_L1D_MISS] = "l1d_miss", [WQ_L1I_MISS] = "l1i_miss",
	[WQ_L2_ACCESS] = "l2_access", [WQ_L2_MISS] = "l2_miss", [WQ_L2_HIT] = "l2_hit",
	[WQ_L2_PF_HIT] = "l2_pf_hit", [WQ_L2_PF_MISS] = "l2_pf_miss",
	[WQ_L3_ACCESS] = "l3_access", [WQ_L3_MISS] = "l3_miss",
	[WQ_L3_LAT_SUM] = "l3_lat_sum", [WQ_L3_LAT_REQ] = "l3_lat_req",
	[WQ_DTLB_MISS] = "dtlb_miss", [WQ_ITLB_MISS] = "itlb_miss",
	[WQ_DTLB_WALK] = "dtlb_walk", [WQ_ITLB_WALK] = "itlb_walk",
	[WQ_FLOPS] = "flops",
	[WQ_MEM_READ_BYTES] = "mem_read_bytes", [WQ_MEM_WRITE_BYTES] = "mem_write_bytes",
	[WQ_MEMCLK] = "memclk", [WQ_DATA_BUS_BUSY] = "data_bus_busy",
	[WQ_CTX_SWITCHES] = "ctx_switches", [WQ_MIGRATIONS] = "migrations",
	[WQ_PAGE_FAULTS] = "page_faults",
	[WQ_FLOPS_PACKED] = "flops_packed",
	[WQ_OP_CACHE_ACCESS] = "op_cache_access", [WQ_OP_CACHE_MISS] = "op_cache_miss",
	[WQ_L2_MISS_L1D] = "l2_miss_l1d", [WQ_L2_MISS_L1I] = "l2_miss_l1i",
	[WQ_DATA_BUS_BUSY_RD] = "data_bus_busy_rd", [WQ_DATA_BUS_BUSY_WR] = "data_bus_busy_wr",
	[WQ_L3_LAT_CYCLES] = "l3_lat_cycles", [WQ_BE_MEM_SLOTS] = "be_mem_slots",
	[WQ_CORE_ENERGY] = "core_energy", [WQ_UNCORE_ENERGY] = "uncore_energy",
	[WQ_DRAM_ENERGY] = "dram_energy",
	[WQ_L1D_FILL_L2] = "l1d_fill_l2", [WQ_L1D_FILL_CCX] = "l1d_fill_ccx",
	[WQ_L1D_FILL_NEAR_CACHE] = "l1d_fill_near_cache", [WQ_L1D_FILL_FAR_CACHE] = "l1d_fill_far_cache",
	[WQ_L1D_FILL_NEAR_DRAM] = "l1d_fill_near_dram", [WQ_L1D_FILL_FAR_DRAM] = "l1d_fill_far_dram",
	[WQ_L1D_DMND_FILL_L2] = "l1d_dmnd_fill_l2", [WQ_L1D_DMND_FILL_CCX] = "l1d_dmnd_fill_ccx",
	[WQ_L1D_DMND_FILL_NEAR_CACHE] = "l1d_dmnd_fill_near_cache",
	[WQ_L1D_DMND_FILL_FAR_CACHE] = "l1d_dmnd_fill_far_cache",
	[WQ_L1D_DMND_FILL_NEAR_DRAM] = "l1d_dmnd_fill_near_dram",
	[WQ_L1D_DMND_FILL_FAR_DRAM] = "l1d_dmnd_fill_far_dram",
	[WQ_IC_FETCH] = "ic_fetch", [WQ_IC_FETCH_MISS] = "ic_fetch_miss",
	[WQ_FP_UOPS_SCALAR] = "fp_uops_scalar", [WQ_FP_UOPS_128] = "fp_uops_128",
	[WQ_FP_UOPS_256] = "fp_uops_256", [WQ_FP_UOPS_512] = "fp_uops_512",
	[WQ_L1D_LOADS] = "l1d_loads", [WQ_L1D_LOAD_MISS] = "l1d_load_miss", [WQ_L2_LOAD_MISS] = "l2_load_miss",
	[WQ_L3_LOAD_MISS] = "l3_load_miss",
	[WQ_FP_FAULTS_SSE_AVX] = "fp_faults_sse_avx", [WQ_FP_FAULTS_X87] = "fp_faults_x87",
	[WQ_WCB_CLOSE] = "wcb_close", [WQ_WCB_FULL] = "wcb_full",
	[WQ_DTLB_WALK_CYCLES] = "dtlb_walk_cycles", [WQ_ITLB_WALK_CYCLES] = "itlb_walk_cycles",
	[WQ_DRAM_PAGE_CONFLICTS] = "dram_page_conflicts",
	[WQ_FSB_CLK] = "fsb_clk", [WQ_FSB_WRITEBACKS] = "fsb_writebacks", [WQ_FSB_PARTIAL] = "fsb_partial",
	[WQ_FSB_BUSY] = "fsb_busy",
	[WQ_FP_X87_OPS] = "fp_x87_ops", [WQ_SSE_PACKED_SINGLE] = "sse_packed_single",
	[WQ_SSE_PACKED_DOUBLE] = "sse_packed_double", [WQ_SSE_SCALAR_SINGLE] = "sse_scalar_single",
	[WQ_SSE_SCALAR_DOUBLE] = "sse_scalar_double",
	[WQ_RAT_STALL_FLAGS] = "rat_stall_flags", [WQ_RAT_STALL_REGISTERS] = "rat_stall_registers",
	[WQ_RAT_STALL_ROB_READ] = "rat_stall_rob_read", [WQ_RAT_STALL_SCOREBOARD] = "rat_stall_scoreboard",
	[WQ_FP_TO_MMX] = "fp_to_mmx", [WQ_MMX_TO_FP] = "mmx_to_fp", [WQ_BACLEARS] = "baclears",
	[WQ_KERNEL_CYCLES] = "kernel_cycles", [WQ_KERNEL_INSTRUCTIONS] = "kernel_instructions",
	[WQ_L2_PF_HIT_L1DC] = "l2_pf_hit_l1dc", [WQ_L2_PF_MISS_L1DC] = "l2_pf_miss_l1dc",
	[WQ_L1D_FILL_EXT] = "l1d_fill_ext", [WQ_L1D_DMND_FILL_EXT] = "l1d_dmnd_fill_ext",
	[WQ_FP16_FLOPS_SCALAR] = "fp16_flops_scalar", [WQ_FP16_FLOPS_PACKED] = "fp16_flops_packed",
};

const char *wl_quantity_name(int q)
{
	if (q < 0 || q >= WQ_COUNT)
		return NULL;
	return quantity_names[q];
}

int wl_quantity_lookup(const char *name)
{
	if (!name)
		return -1;
	for (int q = 0; q < WQ_COUNT; q++)
		if (strcmp(quantity_names[q], name) == 0)
			return q;
	return -1;
}

const char *wl_phase_name(enum wl_phase_kind k)
{
	static const char *const names[WL_NKINDS] = { "idle", "compute", "memory", "branchy" };
	return (unsigned)k < WL_NKINDS ? names[k] : "?";
}

void wl_params_default(struct wl_params *p)
{
	memset(p, 0, sizeof(*p));
	p->seed = 0;
	p->ghz_max = 5.0;
	p->ghz_nominal = 3.0;
	p->width = 8;
	p->smt = true;
	p->memclk_ghz = 3.0;
}

/* splitmix64's finaliser: a good 64-bit mixer, so that neighbouring
 * (cpu, phase) pairs give unrelated draws. */
uint64_t wl_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* A stream of uniform draws for one phase. */
struct draw { uint64_t state; };

static double draw_unit(struct draw *d)
{
	d->state = wl_mix64(d->state);
	return (double)(d->state >> 11) * (1.0 / 9007199254740992.0);
}

static double draw_range(struct draw *d, double lo, double hi)
{
	return lo + (hi - lo) * draw_unit(d);
}

static void draw_init(struct draw *d, const struct wl_params *p, int cpu, uint64_t phase_no)
{
	d->state = wl_mix64(p->seed ^ wl_mix64((uint64_t)(unsigned)cpu * 0x100000001b3ULL) ^
			 wl_mix64(phase_no * 0xd6e8feb86659fd93ULL + 1));
}

/* Phase lengths: 1.5 to 6 s of simulated time. */
#define PHASE_MIN_NS 1500000000.0
#define PHASE_MAX_NS 6000000000.0

static enum wl_phase_kind draw_kind(struct draw *d)
{
	double u = draw_unit(d);
	if (u < 0.30)
		return WL_IDLE;
	if (u < 0.55)
		return WL_COMPUTE;
	if (u < 0.80)
		return WL_MEMORY;
	return WL_BRANCHY;
}

/* Per-kind ranges of the model's free parameters. Each is drawn uniformly
 * within its range once per phase. */
struct kind_ranges {
	double busy[2];        /* fraction of wall time not idle */
	double freq[2];        /* fraction of ghz_max while busy */
	double ipc[2];         /* instructions per cycle */
	double ops_per_insn[2];
	double badspec[2];     /* dispatched ops that do not retire, per retired op */
	double ucode[2];       /* microcode share of retired ops */
	double fe_share[2];    /* share of the unused slots lost to the frontend */
	double smt_share[2];   /* share of the unused slots given to the sibling */
	double be_mem[2];      /* share of backend stall cycles due to memory */
	double branch[2];      /* branches per instruction */
	double misp[2];        /* mispredicts per branch */
	double l1d_per_insn[2];
	double l1d_miss[2];    /* per L1D access */
	double l1i_miss[2];    /* per instruction */
	double l2_miss[2];     /* per L2 access */
	double l3_miss[2];     /* per L3 access */
	double lat10[2];       /* L3 miss latency in 10 ns units */
	double dtlb[2];        /* DTLB misses per L1D access */
	double flops_per_op[2];
	double write_share[2]; /* written-back bytes per read byte */
	double ctx_per_s[2];   /* context switches per second */
	double packed[2];      /* packed (vector) share of FLOPs */
	double opc_miss[2];    /* op cache misses per op cache access */
	double kernel[2];      /* share of the busy cycles spent in the kernel */
	double kernel_ipc[2];  /* the kernel's IPC over user code's */
};

static const struct kind_ranges ranges[WL_NKINDS] = {
	[WL_IDLE] = {
		.busy = { 0.01, 0.05 }, .freq = { 0.40, 0.60 }, .ipc = { 0.5, 1.0 },
		.ops_per_insn = { 1.05, 1.20 }, .badspec = { 0.03, 0.08 }, .ucode = { 0.01, 0.03 },
		.fe_share = { 0.40, 0.60 }, .smt_share = { 0.00, 0.02 }, .be_mem = { 0.30, 0.50 },
		.branch = { 0.15, 0.20 }, .misp = { 0.01, 0.03 },
		.l1d_per_insn = { 0.35, 0.45 }, .l1d_miss = { 0.03, 0.06 }, .l1i_miss = { 0.005, 0.02 },
		.l2_miss = { 0.20, 0.40 }, .l3_miss = { 0.20, 0.40 }, .lat10 = { 7.5, 9.0 },
		.dtlb = { 0.001, 0.003 }, .flops_per_op = { 0.0, 0.01 }, .write_share = { 0.2, 0.4 },
		.ctx_per_s = { 100, 500 },
		.packed = { 0.05, 0.40 }, .opc_miss = { 0.05, 0.15 },
		.kernel = { 0.20, 0.50 }, .kernel_ipc = { 0.40, 0.70 },
	},
	[WL_COMPUTE] = {
		.busy = { 0.92, 1.00 }, .freq = { 0.80, 1.00 }, .ipc = { 3.0, 4.5 },
		.ops_per_insn = { 1.05, 1.25 }, .badspec = { 0.01, 0.04 }, .ucode = { 0.001, 0.005 },
		.fe_share = { 0.20, 0.40 }, .smt_share = { 0.05, 0.15 }, .be_mem = { 0.05, 0.20 },
		.branch = { 0.05, 0.10 }, .misp = { 0.001, 0.005 },
		.l1d_per_insn = { 0.30, 0.40 }, .l1d_miss = { 0.005, 0.015 }, .l1i_miss = { 0.0001, 0.0005 },
		.l2_miss = { 0.05, 0.15 }, .l3_miss = { 0.02, 0.08 }, .lat10 = { 7.5, 9.0 },
		.dtlb = { 0.0002, 0.001 }, .flops_per_op = { 0.5, 2.0 }, .write_share = { 0.3, 0.6 },
		.ctx_per_s = { 5, 50 },
		.packed = { 0.50, 0.95 }, .opc_miss = { 0.005, 0.03 },
		.kernel = { 0.04, 0.12 }, .kernel_ipc = { 0.30, 0.55 },
	},
	[WL_MEMORY] = {
		.busy = { 0.90, 1.00 }, .freq = { 0.75, 0.95 }, .ipc = { 0.25, 0.70 },
		.ops_per_insn = { 1.05, 1.15 }, .badspec = { 0.02, 0.05 }, .ucode = { 0.001, 0.005 },
		.fe_share = { 0.05, 0.15 }, .smt_share = { 0.03, 0.10 }, .be_mem = { 0.75, 0.95 },
		.branch = { 0.08, 0.14 }, .misp = { 0.005, 0.015 },
		.l1d_per_insn = { 0.40, 0.55 }, .l1d_miss = { 0.10, 0.25 }, .l1i_miss = { 0.0005, 0.002 },
		.l2_miss = { 0.45, 0.75 }, .l3_miss = { 0.40, 0.75 }, .lat10 = { 8.0, 12.0 },
		.dtlb = { 0.002, 0.01 }, .flops_per_op = { 0.0, 0.1 }, .write_share = { 0.2, 0.5 },
		.ctx_per_s = { 5, 50 },
		.packed = { 0.10, 0.50 }, .opc_miss = { 0.02, 0.06 },
		.kernel = { 0.08, 0.25 }, .kernel_ipc = { 0.60, 1.00 },
	},
	[WL_BRANCHY] = {
		.busy = { 0.85, 1.00 }, .freq = { 0.80, 1.00 }, .ipc = { 1.0, 2.0 },
		.ops_per_insn = { 1.10, 1.30 }, .badspec = { 0.15, 0.35 }, .ucode = { 0.005, 0.02 },
		.fe_share = { 0.45, 0.65 }, .smt_share = { 0.05, 0.12 }, .be_mem = { 0.20, 0.40 },
		.branch = { 0.20, 0.28 }, .misp = { 0.03, 0.08 },
		.l1d_per_insn = { 0.30, 0.40 }, .l1d_miss = { 0.02, 0.05 }, .l1i_miss = { 0.005, 0.02 },
		.l2_miss = { 0.15, 0.30 }, .l3_miss = { 0.10, 0.25 }, .lat10 = { 7.5, 9.5 },
		.dtlb = { 0.0005, 0.002 }, .flops_per_op = { 0.0, 0.05 }, .write_share = { 0.2, 0.4 },
		.ctx_per_s = { 20, 200 },
		.packed = { 0.02, 0.30 }, .opc_miss = { 0.06, 0.18 },
		.kernel = { 0.12, 0.32 }, .kernel_ipc = { 0.50, 0.90 },
	},
};

static void power_rates(const struct wl_params *p, double *rate);

/* The quantities below were added after the others: each takes its draws
 * after every earlier one, so that no earlier quantity moves. */

/* Instruction cache fetches: the IC is read in 32-byte blocks, one per 32
 * bytes of sequential code (3.5 to 5 bytes an instruction) and one more
 * for a share of the taken branches, whose target starts a new block.
 * A missed 64-byte line is fetched as two blocks, and the second misses
 * as well while the fill is still in flight: 1 to 1.5 missed fetches per
 * L1I miss, never more than the fetches. */
static void frontend_fetch(struct draw *d, double *rate)
{
	double bytes = draw_range(d, 3.5, 5.0);
	double redirect = draw_range(d, 0.3, 0.7);
	rate[WQ_IC_FETCH] = rate[WQ_INSTRUCTIONS] * bytes / 32.0 + redirect * rate[WQ_TAKEN_BRANCHES];
	rate[WQ_IC_FETCH_MISS] = fmin(rate[WQ_IC_FETCH], draw_range(d, 1.0, 1.5) * rate[WQ_L1I_MISS]);
}

/* FP uops retired by width. A scalar uop does one FLOP, or two for a
 * fused multiply-add; a packed uop does one per lane (4 single or 2
 * double per 128 bits) and twice that for an FMA. The packed FLOPs are
 * shared out among 128-, 256- and 512-bit code by per-phase draws, so
 * the share of packed uops differs from that of packed FLOPs (wider
 * vectors do more FLOPs per uop). */
static void fp_widths(struct draw *d, double *rate)
{
	double fma_scalar = draw_range(d, 1.0, 1.5), fma_packed = draw_range(d, 1.0, 1.6);
	double single = draw_range(d, 0.3, 0.8);
	double w128 = draw_range(d, 0.1, 1.0), w256 = draw_range(d, 0.0, 1.0), w512 = draw_range(d, 0.0, 0.5);
	double sum = w128 + w256 + w512;
	double lanes128 = (4.0 * single + 2.0 * (1.0 - single)) * fma_packed;
	double packed = rate[WQ_FLOPS_PACKED];
	rate[WQ_FP_UOPS_SCALAR] = (rate[WQ_FLOPS] - packed) / fma_scalar;
	rate[WQ_FP_UOPS_128] = packed * w128 / sum / lanes128;
	rate[WQ_FP_UOPS_256] = packed * w256 / sum / (2.0 * lanes128);
	rate[WQ_FP_UOPS_512] = packed * w512 / sum / (4.0 * lanes128);
}

/* Loads: 60 to 80 % of the L1D accesses. Demand loads that missed the
 * L1D: the loads' share (55 to 85 %, loads and stores miss at rates of
 * their own) of the demand fills, the rest being stores' fills; those of
 * them that missed the L2 (or the CCX's L3) as well are the same share of
 * the demand fills from beyond it. */
static void load_misses(struct draw *d, double *rate)
{
	rate[WQ_L1D_LOADS] = draw_range(d, 0.6, 0.8) * rate[WQ_L1D_ACCESS];
	double loads = draw_range(d, 0.55, 0.85);
	double ccx = 0;
	for (int q = WQ_L1D_DMND_FILL_NEAR_CACHE; q <= WQ_L1D_DMND_FILL_FAR_DRAM; q++)
		ccx += rate[q];
	double l2 = ccx + rate[WQ_L1D_DMND_FILL_CCX];
	rate[WQ_L1D_LOAD_MISS] = loads * (rate[WQ_L1D_DMND_FILL_L2] + l2);
	rate[WQ_L2_LOAD_MISS] = loads * l2;
	rate[WQ_L3_LOAD_MISS] = loads * ccx;
}

/* Events of particular code and of the page walker:
 *  - FP dispatch faults: code that mixes legacy SSE and VEX-encoded
 *    instructions makes the FP unit fill or spill the upper halves of
 *    the registers, 0.2 to 2 faults per 10,000 FP uops; x87 code faults
 *    too, 0 to 40 % as often.
 *  - Write combining: streaming stores (5 to 50 in 100,000 stores) fill
 *    a write-combining buffer, which closes with its whole 64-byte line
 *    written 50 to 95 % of the time (else evicted part-written).
 *  - Page walks take 20 to 80 core clocks for data, 20 to 60 for code.
 *  - 2 to 35 % of the DRAM accesses (64-byte lines read or written) find
 *    another row open in their bank: a page conflict. */
static void rare_events(struct draw *d, double *rate)
{
	double uops = rate[WQ_FP_UOPS_SCALAR] + rate[WQ_FP_UOPS_128] + rate[WQ_FP_UOPS_256] + rate[WQ_FP_UOPS_512];
	rate[WQ_FP_FAULTS_SSE_AVX] = draw_range(d, 0.2e-4, 2e-4) * uops;
	rate[WQ_FP_FAULTS_X87] = draw_range(d, 0.0, 0.4) * rate[WQ_FP_FAULTS_SSE_AVX];
	double stores = rate[WQ_L1D_ACCESS] - rate[WQ_L1D_LOADS];
	rate[WQ_WCB_CLOSE] = draw_range(d, 5e-5, 5e-4) * stores;
	rate[WQ_WCB_FULL] = draw_range(d, 0.5, 0.95) * rate[WQ_WCB_CLOSE];
	rate[WQ_DTLB_WALK_CYCLES] = draw_range(d, 20, 80) * rate[WQ_DTLB_WALK];
	rate[WQ_ITLB_WALK_CYCLES] = draw_range(d, 20, 60) * rate[WQ_ITLB_WALK];
	rate[WQ_DRAM_PAGE_CONFLICTS] = draw_range(d, 0.02, 0.35) *
				       (rate[WQ_MEM_READ_BYTES] + rate[WQ_MEM_WRITE_BYTES]) / 64.0;
}

/* The front-side bus of a part whose L2 is its last level (Core 2). The
 * bus runs at an eighth of the reference clock while the core is not
 * halted. Every L2 miss (demand or prefetch, data or code) is one burst
 * line read; 10 to 50 % as many dirty lines are written back; partial
 * transactions (uncacheable and I/O accesses, part-line writes) add 1 to
 * 5 % of the line reads. Each transaction, burst or not, holds the
 * address bus for two bus clocks (its request phase). The model does not
 * throttle a core whose misses would need more than the bus can carry:
 * in the heaviest memory phases fsb_busy exceeds fsb_clk, and a figure of
 * bus utilisation is clipped at 1 by its bound (docs/uncertainty.md). */
#define FSB_REF_PER_CLK 8.0
static void fsb_rates(struct draw *d, double *rate)
{
	rate[WQ_FSB_CLK] = rate[WQ_REF_CYCLES] / FSB_REF_PER_CLK;
	rate[WQ_FSB_WRITEBACKS] = draw_range(d, 0.1, 0.5) * rate[WQ_L2_MISS];
	rate[WQ_FSB_PARTIAL] = draw_range(d, 0.01, 0.05) * rate[WQ_L2_MISS];
	rate[WQ_FSB_BUSY] = 2.0 * (rate[WQ_L2_MISS] + rate[WQ_FSB_WRITEBACKS] + rate[WQ_FSB_PARTIAL]);
}

/* FP instructions retired by kind, on a part with 128-bit SSE and x87
 * (Core 2, Westmere): 0 to 50 % of the scalar FLOPs are x87 ops, the
 * rest SSE scalar instructions; packed FLOPs are 128-bit instructions of
 * 4 single or 2 double lanes. Each kind's single share is a draw of its
 * own (an FMA-less part: one FLOP per lane). */
static void fp_kinds(struct draw *d, double *rate)
{
	double x87 = draw_range(d, 0.0, 0.5), ss = draw_range(d, 0.2, 0.8), ps = draw_range(d, 0.2, 0.8);
	double scalar = rate[WQ_FLOPS] - rate[WQ_FLOPS_PACKED], packed = rate[WQ_FLOPS_PACKED];
	rate[WQ_FP_X87_OPS] = x87 * scalar;
	rate[WQ_SSE_SCALAR_SINGLE] = (1.0 - x87) * scalar * ss;
	rate[WQ_SSE_SCALAR_DOUBLE] = (1.0 - x87) * scalar * (1.0 - ss);
	rate[WQ_SSE_PACKED_SINGLE] = packed * ps / 4.0;
	rate[WQ_SSE_PACKED_DOUBLE] = packed * (1.0 - ps) / 2.0;
}

/* Events of the older Intel cores:
 *  - RAT stalls, 0.5 to 4 % of the cycles, shared among partial flag
 *    writes, partial register writes, the ROB read port and microcode
 *    scoreboarding (each cycle is counted under one cause).
 *  - x87<->MMX transitions, 0.05 to 0.3 a thousand instructions; they
 *    alternate, so as many go each way.
 *  - BACLEARs: the branch address calculator resteers the frontend for
 *    a taken branch the BTB did not predict (1 to 4 % of them) and for
 *    a share (30 to 60 %) of the mispredicted ones found at decode. */
static void old_core_events(struct draw *d, double *rate)
{
	double rat = draw_range(d, 0.005, 0.04) * rate[WQ_CYCLES];
	double w[4], sum = 0;
	for (int k = 0; k < 4; k++)
		sum += w[k] = draw_range(d, 0.1, 1.0);
	for (int k = 0; k < 4; k++)
		rate[WQ_RAT_STALL_FLAGS + k] = rat * w[k] / sum;
	rate[WQ_FP_TO_MMX] = draw_range(d, 0.5e-4, 3e-4) / 2.0 * rate[WQ_INSTRUCTIONS];
	rate[WQ_MMX_TO_FP] = rate[WQ_FP_TO_MMX];
	rate[WQ_BACLEARS] = draw_range(d, 0.01, 0.04) * rate[WQ_TAKEN_BRANCHES] +
			    draw_range(d, 0.3, 0.6) * rate[WQ_BRANCH_MISSES];
}

/* The backend's stalled slots that memory accounts for. A cycle in which
 * a load holds up retirement usually dispatches nothing at all (the
 * window is full behind it), while one stalled on a busy execution unit
 * still dispatches a few ops to the others: a memory stall cycle leaves
 * r = 1 to 1.25 times as many of its slots empty as a core stall cycle,
 * never more than the width. So memory's share of the stalled slots is
 * above its share of the stall cycles, which is what AMD's Table 2 uses
 * to split them (docs/uncertainty.md). */
static void backend_memory_slots(struct draw *d, double width, double *rate)
{
	double r = draw_range(d, 1.0, 1.25);
	double cyc = rate[WQ_BE_CYCLES], mem = rate[WQ_BE_MEM_CYCLES], slots = rate[WQ_BE_STALL_SLOTS];
	if (!(cyc > 0) || !(slots > 0)) {
		rate[WQ_BE_MEM_SLOTS] = 0;
		return;
	}
	double m = mem / cyc;
	double per_cpu = slots / cyc / (m * r + 1.0 - m);   /* empty slots in a core stall cycle */
	double per_mem = fmin(width, r * per_cpu);
	rate[WQ_BE_MEM_SLOTS] = fmin(slots, per_mem * mem);
}

#define R(field) draw_range(d, r->field[0], r->field[1])

/* The pipeline of one phase: clock, instructions and ops, the dispatch
 * slots by cause and the stall cycles. Returns the clock in GHz. */
static double pipeline_rates(const struct wl_params *p, const struct kind_ranges *r, struct draw *d, double width,
			     double *rate)
{
	memset(rate, 0, sizeof(double) * WQ_COUNT);
	double busy = R(busy);
	double ghz = p->ghz_max * R(freq);
	double ipc = R(ipc);
	double opi = R(ops_per_insn);
	double badspec = R(badspec);
	double ucode = R(ucode);
	double fe_share = R(fe_share);
	/* Drawn even without SMT so that the later draws do not shift. */
	double smt_share = R(smt_share);
	if (!p->smt)
		smt_share = 0.0;

	rate[WQ_TOTAL_NS] = 1.0;
	rate[WQ_BUSY_NS] = busy;
	rate[WQ_CYCLES] = ghz * busy;
	rate[WQ_REF_CYCLES] = p->ghz_nominal * busy;
	double cyc = rate[WQ_CYCLES];
	rate[WQ_INSTRUCTIONS] = ipc * cyc;
	rate[WQ_OPS] = opi * rate[WQ_INSTRUCTIONS];
	rate[WQ_MICROCODE_OPS] = ucode * rate[WQ_OPS];
	rate[WQ_DISPATCH_SLOTS] = width * cyc;
	/* Dispatched ops cannot exceed the slots; with the ranges above they
	 * stay below 6.5 per cycle, but a narrow width must still hold. */
	rate[WQ_OPS_DISPATCHED] = fmin((1.0 + badspec) * rate[WQ_OPS], rate[WQ_DISPATCH_SLOTS]);
	if (rate[WQ_OPS] > rate[WQ_OPS_DISPATCHED]) {
		/* Only reachable with a width below 7: scale the retirement
		 * side down so that ops <= dispatched still holds. */
		double k = rate[WQ_OPS_DISPATCHED] / rate[WQ_OPS];
		rate[WQ_OPS] *= k;
		rate[WQ_INSTRUCTIONS] *= k;
		rate[WQ_MICROCODE_OPS] *= k;
	}
	double unused = rate[WQ_DISPATCH_SLOTS] - rate[WQ_OPS_DISPATCHED];
	rate[WQ_FE_STALL_SLOTS] = fe_share * unused;
	rate[WQ_SMT_STALL_SLOTS] = smt_share * unused;
	/* The backend takes what is left, so that the four add up exactly. */
	rate[WQ_BE_STALL_SLOTS] = unused - rate[WQ_FE_STALL_SLOTS] - rate[WQ_SMT_STALL_SLOTS];
	if (rate[WQ_BE_STALL_SLOTS] < 0)
		rate[WQ_BE_STALL_SLOTS] = 0;
	/* Cycles in which the frontend delivered nothing at all: each one
	 * accounts for `width` empty slots, so at most fe_stall_slots / width. */
	rate[WQ_FE_LATENCY_CYCLES] = rate[WQ_FE_STALL_SLOTS] / width * draw_range(d, 0.4, 0.7);
	/* Backend stall cycles: at least the stalled slots' worth of whole
	 * cycles, at most all cycles. */
	rate[WQ_BE_CYCLES] = fmin(cyc, rate[WQ_BE_STALL_SLOTS] / width * draw_range(d, 1.0, 1.3));
	rate[WQ_BE_MEM_CYCLES] = R(be_mem) * rate[WQ_BE_CYCLES];

	return ghz;
}

/* Branches, and the L1, L2 and L3 traffic of one phase. Returns the L2's
 * miss ratio. */
static double branch_cache_rates(const struct kind_ranges *r, struct draw *d, double *rate)
{
	double insn = rate[WQ_INSTRUCTIONS];
	rate[WQ_BRANCHES] = R(branch) * insn;
	rate[WQ_BRANCH_MISSES] = R(misp) * rate[WQ_BRANCHES];
	rate[WQ_TAKEN_BRANCHES] = draw_range(d, 0.5, 0.7) * rate[WQ_BRANCHES];
	rate[WQ_RESYNCS] = draw_range(d, 0.02, 0.08) * rate[WQ_BRANCH_MISSES];

	rate[WQ_L1D_ACCESS] = R(l1d_per_insn) * insn;
	rate[WQ_L1D_MISS] = R(l1d_miss) * rate[WQ_L1D_ACCESS];
	rate[WQ_L1I_MISS] = R(l1i_miss) * insn;
	/* L2 sees the demand misses of both L1s plus hardware prefetches. */
	double pf = draw_range(d, 0.15, 0.35);
	double demand = rate[WQ_L1D_MISS] + rate[WQ_L1I_MISS];
	rate[WQ_L2_ACCESS] = demand * (1.0 + pf);
	double l2m = R(l2_miss);
	rate[WQ_L2_MISS] = l2m * rate[WQ_L2_ACCESS];
	rate[WQ_L2_HIT] = rate[WQ_L2_ACCESS] - rate[WQ_L2_MISS];
	rate[WQ_L2_PF_MISS] = l2m * demand * pf;
	rate[WQ_L2_PF_HIT] = demand * pf - rate[WQ_L2_PF_MISS];
	rate[WQ_L3_ACCESS] = rate[WQ_L2_MISS];
	rate[WQ_L3_MISS] = R(l3_miss) * rate[WQ_L3_ACCESS];
	/* The L3 samples one miss in 16 for its latency counters. */
	rate[WQ_L3_LAT_REQ] = rate[WQ_L3_MISS] / 16.0;
	rate[WQ_L3_LAT_SUM] = R(lat10) * rate[WQ_L3_LAT_REQ];

	return l2m;
}

/* TLBs, FLOPs, memory bytes, the kernel's software events and the op
 * cache of one phase. */
static void tlb_mem_os_rates(const struct kind_ranges *r, enum wl_phase_kind kind, struct draw *d, double *rate)
{
	double insn = rate[WQ_INSTRUCTIONS];
	rate[WQ_DTLB_MISS] = R(dtlb) * rate[WQ_L1D_ACCESS];
	rate[WQ_DTLB_WALK] = draw_range(d, 0.1, 0.4) * rate[WQ_DTLB_MISS];
	rate[WQ_ITLB_MISS] = draw_range(d, 0.00005, 0.0005) * insn;
	rate[WQ_ITLB_WALK] = draw_range(d, 0.1, 0.4) * rate[WQ_ITLB_MISS];
	rate[WQ_FLOPS] = R(flops_per_op) * rate[WQ_OPS];

	/* Every L3 miss is one 64-byte line read from memory. */
	rate[WQ_MEM_READ_BYTES] = 64.0 * rate[WQ_L3_MISS];
	rate[WQ_MEM_WRITE_BYTES] = R(write_share) * rate[WQ_MEM_READ_BYTES];

	rate[WQ_CTX_SWITCHES] = R(ctx_per_s) * 1e-9;
	rate[WQ_MIGRATIONS] = draw_range(d, 0.01, 0.1) * rate[WQ_CTX_SWITCHES];
	rate[WQ_PAGE_FAULTS] = draw_range(d, 1, 100) * 1e-9 * (kind == WL_IDLE ? 0.1 : 1.0);
	rate[WQ_FLOPS_PACKED] = R(packed) * rate[WQ_FLOPS];
	rate[WQ_OP_CACHE_ACCESS] = draw_range(d, 0.5, 0.9) * rate[WQ_OPS_DISPATCHED];
	rate[WQ_OP_CACHE_MISS] = R(opc_miss) * rate[WQ_OP_CACHE_ACCESS];
}

/* The L2 misses of each L1, the sampled latency in clocks and where each
 * L1D fill came from. */
static void fill_rates(struct draw *d, double ghz, double l2m, double *rate)
{
	/* The demand misses of each L1 that miss L2 as well. Kept as
	 * quantities of their own: event formulas must be linear in the
	 * quantities, or a count over a span would not be the sum of the
	 * counts over its parts. */
	rate[WQ_L2_MISS_L1D] = l2m * rate[WQ_L1D_MISS];
	rate[WQ_L2_MISS_L1I] = l2m * rate[WQ_L1I_MISS];
	/* The sampled latency in core clocks (for CPUs that count it so);
	 * the backend's stalled slots that memory accounts for come below
	 * (backend_memory_slots). */
	rate[WQ_L3_LAT_CYCLES] = rate[WQ_L3_LAT_SUM] * 10.0 * ghz;
	/* Where each L1D fill came from: the L1D misses that hit the L2,
	 * those that missed it and hit the CCX's L3, and the L3's misses,
	 * served by another CCX's cache or by DRAM, in this NUMA node or
	 * another. Demand fills (the rest are the L1D's prefetches) come from
	 * the same places in the same proportions. */
	double l3_hit = rate[WQ_L3_ACCESS] > 0 ? 1.0 - rate[WQ_L3_MISS] / rate[WQ_L3_ACCESS] : 1.0;
	double beyond = rate[WQ_L2_MISS_L1D] * (1.0 - l3_hit);
	double cache = draw_range(d, 0.05, 0.3), far = draw_range(d, 0.05, 0.35);
	double demand_share = draw_range(d, 0.5, 0.8);
	rate[WQ_L1D_FILL_L2] = rate[WQ_L1D_MISS] - rate[WQ_L2_MISS_L1D];
	rate[WQ_L1D_FILL_CCX] = rate[WQ_L2_MISS_L1D] * l3_hit;
	rate[WQ_L1D_FILL_NEAR_CACHE] = beyond * cache * (1.0 - far);
	rate[WQ_L1D_FILL_FAR_CACHE] = beyond * cache * far;
	rate[WQ_L1D_FILL_NEAR_DRAM] = beyond * (1.0 - cache) * (1.0 - far);
	rate[WQ_L1D_FILL_FAR_DRAM] = beyond * (1.0 - cache) * far;
	for (int q = 0; q < 6; q++)
		rate[WQ_L1D_DMND_FILL_L2 + q] = demand_share * rate[WQ_L1D_FILL_L2 + q];
}

/* The kernel's part of the work (system calls, interrupts, page faults):
 * a share of the busy cycles, at an IPC below user code's (its code is
 * branchy and cold), so that the kernel's share of the instructions is
 * smaller than its share of the cycles. With s of the cycles at r times
 * the user IPC, the kernel retires s r / (1 - s + s r) of the instructions. */
static void kernel_split(const struct kind_ranges *r, struct draw *d, double *rate)
{
	double s = draw_range(d, r->kernel[0], r->kernel[1]);
	double k = draw_range(d, r->kernel_ipc[0], r->kernel_ipc[1]);
	rate[WQ_KERNEL_CYCLES] = s * rate[WQ_CYCLES];
	rate[WQ_KERNEL_INSTRUCTIONS] = s * k / (1.0 - s + s * k) * rate[WQ_INSTRUCTIONS];
}

/* Sources that only an event's "all" mask counts, so that a mask narrower
 * than its name gives another number than the quantity it claims:
 *  - 20 to 60 % of the L2 prefetches (hits and misses alike) are made for
 *    the L1 data prefetchers rather than by the L2's own (AMD's PMCx070-072
 *    count them under unit mask 0xE0, the L2's under 0x1F);
 *  - 0 to 15 % of the L1D fills from beyond the CCX come from extension
 *    (CXL) memory rather than DRAM, on a part that has it (p->ext_mem;
 *    PMCx043/044 bit 7): they are taken out of the DRAM fills, near and
 *    far alike, so
 *    that the fills still add up to the L1D misses. The memory bytes stay
 *    as they were (a simplification: the UMC's figures are not judged
 *    against the fills);
 *  - 0 to 20 % of the scalar and of the packed FLOPs are FP16 ones, on a
 *    part that has FP16 arithmetic (p->fp16; Sapphire Rapids counts them
 *    apart, FP_ARITH_INST_RETIRED2).
 * The draws are taken whatever the part, so that later ones do not move. */
static void rare_sources(const struct wl_params *p, struct draw *d, double *rate)
{
	double l1dc = draw_range(d, 0.2, 0.6);
	rate[WQ_L2_PF_HIT_L1DC] = l1dc * rate[WQ_L2_PF_HIT];
	rate[WQ_L2_PF_MISS_L1DC] = l1dc * rate[WQ_L2_PF_MISS];
	double ext = draw_range(d, 0.0, 0.15);
	if (!p->ext_mem)
		ext = 0;
	double dram = rate[WQ_L1D_FILL_NEAR_DRAM] + rate[WQ_L1D_FILL_FAR_DRAM];
	double dmnd = rate[WQ_L1D_DMND_FILL_NEAR_DRAM] + rate[WQ_L1D_DMND_FILL_FAR_DRAM];
	rate[WQ_L1D_FILL_EXT] = ext * dram;
	rate[WQ_L1D_DMND_FILL_EXT] = ext * dmnd;
	for (int q = WQ_L1D_FILL_NEAR_DRAM; q <= WQ_L1D_FILL_FAR_DRAM; q++)
		rate[q] *= 1.0 - ext;
	for (int q = WQ_L1D_DMND_FILL_NEAR_DRAM; q <= WQ_L1D_DMND_FILL_FAR_DRAM; q++)
		rate[q] *= 1.0 - ext;
	double scalar = rate[WQ_FLOPS] - rate[WQ_FLOPS_PACKED];
	double fs = draw_range(d, 0.0, 0.2), fp = draw_range(d, 0.0, 0.2);
	rate[WQ_FP16_FLOPS_SCALAR] = p->fp16 ? fs * scalar : 0;
	rate[WQ_FP16_FLOPS_PACKED] = p->fp16 ? fp * rate[WQ_FLOPS_PACKED] : 0;
}

/* Computes the per-ns rates of one phase. The draws are taken in a fixed
 * order, so adding a quantity at the end does not change earlier ones. */
static void phase_rates(const struct wl_params *p, enum wl_phase_kind kind, struct draw *d,
			double *rate)
{
	const struct kind_ranges *r = &ranges[kind];
	double width = p->width > 0 ? p->width : 8;
	double ghz = pipeline_rates(p, r, d, width, rate);
	double l2m = branch_cache_rates(r, d, rate);
	tlb_mem_os_rates(r, kind, d, rate);
	fill_rates(d, ghz, l2m, rate);
	frontend_fetch(d, rate);
	fp_widths(d, rate);
	load_misses(d, rate);
	backend_memory_slots(d, width, rate);
	rare_events(d, rate);
	fsb_rates(d, rate);
	fp_kinds(d, rate);
	old_core_events(d, rate);
	power_rates(p, rate);
	kernel_split(r, d, rate);
	rare_sources(p, d, rate);
}

#undef R

/* The physical power model (docs/energy.md). Energies are in nJ, so that a
 * rate per ns of wall time is a power in W. A core thread's dynamic power
 * is C f V^2 times how busy its pipeline is, while it is not halted; the
 * supply voltage rises with the clock (0.6 V plus 0.5 V at the highest
 * clock), which is why power grows faster than the clock. Leakage grows
 * with V^2 while the core runs and is nearly gone in the idle state. The
 * uncore pays for each L3 access (data moved on the fabric) and DRAM for
 * each byte moved; the static parts of both are per socket
 * (wl_socket_power_fill). */
#define CORE_CDYN_W_PER_GHZ_V2 0.9     /* switched capacitance of one thread at full activity */
#define CORE_IDLE_ACTIVITY 0.3         /* share of that switched by a stalled pipeline */
#define CORE_LEAK_W_PER_V2 0.2         /* leakage of a running thread */
#define CORE_HALTED_W 0.03             /* a halted thread in its idle state */
#define UNCORE_NJ_PER_L3_ACCESS 2.0
#define DRAM_NJ_PER_BYTE 0.15          /* about 10 nJ per 64-byte line, DDR5's order */
#define UNCORE_STATIC_W 12.0           /* per socket */
#define UNCORE_STATIC_W_PER_CHANNEL 1.0
#define DRAM_STATIC_W_PER_CHANNEL 1.2

/* Sets the energy rates of one behaviour from its other rates. */
static void power_rates(const struct wl_params *p, double *rate)
{
	double busy = rate[WQ_BUSY_NS];
	double ghz = busy > 0 ? rate[WQ_CYCLES] / busy : 0;
	double volts = 0.6 + 0.5 * (p->ghz_max > 0 ? ghz / p->ghz_max : 1.0);
	double activity = rate[WQ_DISPATCH_SLOTS] > 0 ? rate[WQ_OPS_DISPATCHED] / rate[WQ_DISPATCH_SLOTS] : 0;
	double dynamic = CORE_CDYN_W_PER_GHZ_V2 * ghz * volts * volts *
			 (CORE_IDLE_ACTIVITY + (1.0 - CORE_IDLE_ACTIVITY) * activity);
	rate[WQ_CORE_ENERGY] = busy * (dynamic + CORE_LEAK_W_PER_V2 * volts * volts) +
			       (1.0 - busy) * CORE_HALTED_W;
	rate[WQ_UNCORE_ENERGY] = UNCORE_NJ_PER_L3_ACCESS * rate[WQ_L3_ACCESS];
	rate[WQ_DRAM_ENERGY] = DRAM_NJ_PER_BYTE * (rate[WQ_MEM_READ_BYTES] + rate[WQ_MEM_WRITE_BYTES]);
}

void wl_socket_power_fill(int nch, uint64_t dt, double *acc)
{
	double n = nch > 0 ? nch : 1;
	acc[WQ_UNCORE_ENERGY] += (UNCORE_STATIC_W + UNCORE_STATIC_W_PER_CHANNEL * n) * (double)dt;
	acc[WQ_DRAM_ENERGY] += DRAM_STATIC_W_PER_CHANNEL * n * (double)dt;
}

/* Segments: 2 to 40 ms, each blending in 0 to 70 % of the contrasting
 * behaviour. A blend of two consistent rate vectors with weights that add
 * up to one keeps every sum and inequality between quantities. */
#define SEG_MIN_NS 2000000.0
#define SEG_MAX_NS 40000000.0
#define SEG_MAX_BLEND 0.7

/* The rates at blend w of the contrasting behaviour, w in [0, 1]. */
static void blend_rates(struct wl_cpu *c, double w)
{
	for (int q = 0; q < WQ_COUNT; q++)
		c->seg[q] = (1.0 - w) * c->rate[q] + w * c->alt[q];
}

/* Fine spans (fine=F): 0.1 to 2 ms, each moving the segment's blend by
 * up to F either way, clamped to [0, 1]: still a blend of two consistent
 * rate vectors, so every sum and inequality holds. Real counters vary
 * below a millisecond (interrupts, idle entries, the scheduler's tick);
 * without this a slice of a few milliseconds misses only where a
 * segment begins (docs/uncertainty.md, "Other sampling schemes"). */
#define FINE_MIN_NS 100000.0
#define FINE_MAX_NS 2000000.0

static void enter_fine(struct wl_cpu *c, const struct wl_params *p, uint64_t n, uint64_t start)
{
	struct draw d;
	draw_init(&d, p, c->cpu,
		  wl_mix64(c->phase_no ^ (c->seg_no + 1) * 0x9e3779b97f4a7c15ULL) ^ (n + 1) * 0xc2b2ae3d27d4eb4fULL);
	c->fine_no = n;
	uint64_t end = start + (uint64_t)draw_range(&d, FINE_MIN_NS, FINE_MAX_NS);
	c->fine_end = end < c->seg_end ? end : c->seg_end;
	double w = c->seg_w + draw_range(&d, -p->fine, p->fine);
	blend_rates(c, w < 0 ? 0 : w > 1 ? 1 : w);
}

static void enter_segment(struct wl_cpu *c, const struct wl_params *p, uint64_t n, uint64_t start)
{
	struct draw d;
	draw_init(&d, p, c->cpu, c->phase_no ^ (n + 1) * 0x9e3779b97f4a7c15ULL);
	c->seg_no = n;
	uint64_t end = start + (uint64_t)draw_range(&d, SEG_MIN_NS, SEG_MAX_NS);
	c->seg_end = end < c->phase_end ? end : c->phase_end;
	c->seg_w = draw_range(&d, 0.0, SEG_MAX_BLEND);
	if (p->fine > 0)
		enter_fine(c, p, 0, start);
	else
		blend_rates(c, c->seg_w);
}

/* Sets c to phase number n starting at start. */
static void enter_phase(struct wl_cpu *c, const struct wl_params *p, uint64_t n, uint64_t start)
{
	struct draw d;
	draw_init(&d, p, c->cpu, n);
	c->phase_no = n;
	c->phase_start = start;
	c->phase_end = start + (uint64_t)draw_range(&d, PHASE_MIN_NS, PHASE_MAX_NS);
	c->kind = draw_kind(&d);
	phase_rates(p, c->kind, &d, c->rate);
	/* The contrasting behaviour: another kind's rates, from draws of
	 * their own so that the phase's own do not shift. */
	struct draw da;
	draw_init(&da, p, c->cpu, n ^ 0xa5a5a5a5a5a5a5a5ULL);
	enum wl_phase_kind ak = (enum wl_phase_kind)((c->kind + 1 + (int)(draw_unit(&da) * (WL_NKINDS - 1))) % WL_NKINDS);
	phase_rates(p, ak, &da, c->alt);
	enter_segment(c, p, 0, start);
}

void wl_cpu_init(struct wl_cpu *c, const struct wl_params *p, int cpu)
{
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	enter_phase(c, p, 0, 0);
}

void wl_cpu_advance(struct wl_cpu *c, const struct wl_params *p, uint64_t now, uint64_t dt,
		    double *acc)
{
	wl_cpu_advance_spans(c, p, now, dt, acc, NULL, NULL);
}

void wl_cpu_advance_spans(struct wl_cpu *c, const struct wl_params *p, uint64_t now, uint64_t dt,
			  double *acc, wl_span_fn fn, void *arg)
{
	uint64_t end = now + dt;
	bool fine = p->fine > 0;
	while (now < end) {
		if (now >= c->phase_end)
			enter_phase(c, p, c->phase_no + 1, c->phase_end);
		else if (now >= c->seg_end)
			enter_segment(c, p, c->seg_no + 1, c->seg_end);
		else if (fine && now >= c->fine_end)
			enter_fine(c, p, c->fine_no + 1, c->fine_end);
		/* Where the rates in force end: fine spans never pass seg_end. */
		uint64_t lim = fine ? c->fine_end : c->seg_end;
		if (now >= lim)
			continue;
		uint64_t stop = end < lim ? end : lim;
		double span = (double)(stop - now);
		for (int q = 0; q < WQ_COUNT; q++)
			acc[q] += c->seg[q] * span;
		if (fn)
			fn(arg, c, now, stop - now);
		now = stop;
	}
	/* Step into the next segment at once so that c always describes the
	 * one that the next nanosecond belongs to. */
	while (end >= c->seg_end) {
		if (end >= c->phase_end)
			enter_phase(c, p, c->phase_no + 1, c->phase_end);
		else
			enter_segment(c, p, c->seg_no + 1, c->seg_end);
	}
	while (fine && end >= c->fine_end)
		enter_fine(c, p, c->fine_no + 1, c->fine_end);
}

/* MEMCLK cycles the data bus is busy per 64-byte transfer. */
#define BUS_CYCLES_PER_LINE 4.0

void wl_channel_fill(const struct wl_params *p, int nch, uint64_t dt, double *acc)
{
	double clk = (nch > 0 ? nch : 1) * p->memclk_ghz * (double)dt;
	double busy = (acc[WQ_MEM_READ_BYTES] + acc[WQ_MEM_WRITE_BYTES]) / 64.0 * BUS_CYCLES_PER_LINE;
	acc[WQ_MEMCLK] = clk;
	acc[WQ_DATA_BUS_BUSY] = busy < clk ? busy : clk;
	double bytes = acc[WQ_MEM_READ_BYTES] + acc[WQ_MEM_WRITE_BYTES];
	acc[WQ_DATA_BUS_BUSY_RD] = bytes > 0 ? acc[WQ_DATA_BUS_BUSY] * acc[WQ_MEM_READ_BYTES] / bytes : 0;
	acc[WQ_DATA_BUS_BUSY_WR] = acc[WQ_DATA_BUS_BUSY] - acc[WQ_DATA_BUS_BUSY_RD];
}

void wl_phase_at(const struct wl_params *p, int cpu, uint64_t t, struct wl_phase_info *out)
{
	struct wl_cpu c;
	wl_cpu_init(&c, p, cpu);
	while (t >= c.phase_end)
		enter_phase(&c, p, c.phase_no + 1, c.phase_end);
	out->kind = c.kind;
	out->start = c.phase_start;
	out->end = c.phase_end;
}
