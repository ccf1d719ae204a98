/* sim_workload.h: the deterministic workload model behind the simulated PMU.
 * Each CPU runs a sequence of phases (idle, compute-bound, memory-bound,
 * branchy) that last a few seconds of simulated time; the sequence and every
 * phase's parameters come from a hash of (seed, cpu, phase number), so the
 * same seed always gives the same counts. A phase is cut into short
 * segments (2 to 40 ms) in each of which the rates are a blend of the
 * phase's own and those of a second, contrasting behaviour drawn with it:
 * real programs move at that grain, and a sampler that rotates counter
 * groups every 50 ms must be judged on rates that do. Within a segment
 * every quantity grows at a constant rate per nanosecond (unless
 * wl_params.fine moves it in spans of 0.1-2 ms), and the rates
 * of both behaviours are chosen so that
 * the quantities are physically consistent (misses <= accesses at every
 * level, ops >= instructions, the topdown slots add up, ...). The quantity
 * names are those of docs/definitions.md, "Simulated PMU formulas". */
#ifndef PMCTOP_SIM_WORKLOAD_H
#define PMCTOP_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* Workload quantities, in the order of the table in docs/definitions.md. */
enum wl_quantity {
	WQ_CYCLES, WQ_REF_CYCLES, WQ_BUSY_NS, WQ_TOTAL_NS,
	WQ_INSTRUCTIONS, WQ_OPS, WQ_OPS_DISPATCHED, WQ_DISPATCH_SLOTS,
	WQ_FE_STALL_SLOTS, WQ_FE_LATENCY_CYCLES, WQ_BE_STALL_SLOTS, WQ_SMT_STALL_SLOTS,
	WQ_BE_MEM_CYCLES, WQ_BE_CYCLES, WQ_MICROCODE_OPS,
	WQ_BRANCHES, WQ_BRANCH_MISSES, WQ_TAKEN_BRANCHES, WQ_RESYNCS,
	WQ_L1D_ACCESS, WQ_L1D_MISS, WQ_L1I_MISS,
	WQ_L2_ACCESS, WQ_L2_MISS, WQ_L2_HIT, WQ_L2_PF_HIT, WQ_L2_PF_MISS,
	WQ_L3_ACCESS, WQ_L3_MISS, WQ_L3_LAT_SUM, WQ_L3_LAT_REQ,
	WQ_DTLB_MISS, WQ_ITLB_MISS, WQ_DTLB_WALK, WQ_ITLB_WALK,
	WQ_FLOPS,
	WQ_MEM_READ_BYTES, WQ_MEM_WRITE_BYTES, WQ_MEMCLK, WQ_DATA_BUS_BUSY,
	WQ_CTX_SWITCHES, WQ_MIGRATIONS, WQ_PAGE_FAULTS,
	WQ_FLOPS_PACKED, WQ_OP_CACHE_ACCESS, WQ_OP_CACHE_MISS,
	WQ_L2_MISS_L1D, WQ_L2_MISS_L1I, WQ_DATA_BUS_BUSY_RD, WQ_DATA_BUS_BUSY_WR,
	WQ_L3_LAT_CYCLES, WQ_BE_MEM_SLOTS,
	WQ_CORE_ENERGY, WQ_UNCORE_ENERGY, WQ_DRAM_ENERGY,
	/* L1D fills by where the line came from, all fills and demand
	 * fills: the L2, the L3 (or another L2) of the CCX, another CCX's
	 * cache or DRAM, in the same NUMA node or another. */
	WQ_L1D_FILL_L2, WQ_L1D_FILL_CCX, WQ_L1D_FILL_NEAR_CACHE, WQ_L1D_FILL_FAR_CACHE,
	WQ_L1D_FILL_NEAR_DRAM, WQ_L1D_FILL_FAR_DRAM,
	WQ_L1D_DMND_FILL_L2, WQ_L1D_DMND_FILL_CCX, WQ_L1D_DMND_FILL_NEAR_CACHE, WQ_L1D_DMND_FILL_FAR_CACHE,
	WQ_L1D_DMND_FILL_NEAR_DRAM, WQ_L1D_DMND_FILL_FAR_DRAM,
	/* Instruction cache fetches (32-byte blocks) and those that missed;
	 * FP uops retired by width (scalar, 128-, 256- and 512-bit packed);
	 * load instructions' accesses to the L1D, the demand loads that
	 * missed it, those that missed the L2 too, and those that missed the
	 * L3 (the CCX) as well. */
	WQ_IC_FETCH, WQ_IC_FETCH_MISS,
	WQ_FP_UOPS_SCALAR, WQ_FP_UOPS_128, WQ_FP_UOPS_256, WQ_FP_UOPS_512,
	WQ_L1D_LOADS, WQ_L1D_LOAD_MISS, WQ_L2_LOAD_MISS, WQ_L3_LOAD_MISS,
	/* FP dispatch faults of mixed SSE/AVX code and of x87 code; write-
	 * combining buffer closes, and those with a full 64-byte line; cycles
	 * spent walking page tables for the data and instruction TLBs. */
	WQ_FP_FAULTS_SSE_AVX, WQ_FP_FAULTS_X87, WQ_WCB_CLOSE, WQ_WCB_FULL,
	WQ_DTLB_WALK_CYCLES, WQ_ITLB_WALK_CYCLES,
	/* DRAM accesses that found another row open in their bank. */
	WQ_DRAM_PAGE_CONFLICTS,
	/* The front-side bus of parts whose last-level cache is the L2 (Core
	 * 2): its clock, the dirty L2 lines written back, the partial (non-
	 * burst: uncacheable, I/O, part-line) transactions, and the bus
	 * clocks its address bus is busy. FP instructions retired by kind:
	 * x87 ops, SSE packed and scalar, single and double precision. */
	WQ_FSB_CLK, WQ_FSB_WRITEBACKS, WQ_FSB_PARTIAL, WQ_FSB_BUSY,
	WQ_FP_X87_OPS, WQ_SSE_PACKED_SINGLE, WQ_SSE_PACKED_DOUBLE, WQ_SSE_SCALAR_SINGLE, WQ_SSE_SCALAR_DOUBLE,
	/* Register allocation table stall cycles by cause (partial flags,
	 * partial registers, ROB read port, microcode scoreboard), x87<->MMX
	 * state transitions each way, and the branch address calculator's
	 * frontend resteers (BACLEARs). */
	WQ_RAT_STALL_FLAGS, WQ_RAT_STALL_REGISTERS, WQ_RAT_STALL_ROB_READ, WQ_RAT_STALL_SCOREBOARD,
	WQ_FP_TO_MMX, WQ_MMX_TO_FP, WQ_BACLEARS,
	/* The cycles and instructions spent in the kernel (the rest is user
	 * code): what an event with a privilege modifier (`:u`, `:k`) splits
	 * its count by (backend_sim_clock.c). */
	WQ_KERNEL_CYCLES, WQ_KERNEL_INSTRUCTIONS,
	/* Sources that "all" events count and narrower masks leave out
	 * (sim_workload.c, rare_sources): the L2 prefetches made for the L1
	 * data prefetchers (a part of l2_pf_hit and l2_pf_miss), L1D fills
	 * from extension (CXL) memory (a part of l1d_miss, all fills and
	 * demand ones) and FP16 FLOPs (a part of flops, scalar and packed). */
	WQ_L2_PF_HIT_L1DC, WQ_L2_PF_MISS_L1DC, WQ_L1D_FILL_EXT, WQ_L1D_DMND_FILL_EXT,
	WQ_FP16_FLOPS_SCALAR, WQ_FP16_FLOPS_PACKED,
	WQ_COUNT
};

/* The quantity's name as formulas spell it ("l3_miss"), NULL if out of range. */
const char *wl_quantity_name(int q);
/* The quantity named name, or -1. */
int wl_quantity_lookup(const char *name);

enum wl_phase_kind { WL_IDLE, WL_COMPUTE, WL_MEMORY, WL_BRANCHY, WL_NKINDS };
const char *wl_phase_name(enum wl_phase_kind k);

/* Machine-wide parameters of the model. */
struct wl_params {
	uint64_t seed;        /* mixed with the CPU number: each CPU differs */
	double ghz_max;       /* highest core clock: cycles <= ghz_max x busy_ns */
	double ghz_nominal;   /* reference clock: ref_cycles = ghz_nominal x busy_ns */
	int width;            /* dispatch slots per cycle (8 on Zen 5) */
	bool smt;             /* SMT siblings exist: smt_stall_slots may be non-zero */
	double memclk_ghz;    /* memory controller clock per channel (UMC figures) */
	bool ext_mem;         /* extension (CXL) memory behind the L3 (cxl=1: Zen 4 and 5) */
	bool fp16;            /* FP16 arithmetic among the FLOPs (fp16=1: Sapphire Rapids) */
	/* fine=F: the rates also move within a segment, in spans of 0.1 to
	 * 2 ms, by up to F of the contrasting behaviour either way (0: they
	 * are constant within a segment, the default). */
	double fine;
};
/* Defaults: seed 0, 5.0 GHz max, 3.0 GHz nominal, width 8, SMT, 3.0 GHz MEMCLK,
 * neither extension memory nor FP16 (a part that has them says so). */
void wl_params_default(struct wl_params *p);

/* One CPU's position in its phase sequence. Time only moves forward. */
struct wl_cpu {
	int cpu;
	uint64_t phase_no;        /* index of the current phase */
	uint64_t phase_start;     /* ns of simulated time */
	uint64_t phase_end;
	enum wl_phase_kind kind;
	double rate[WQ_COUNT];    /* the phase's own rates, per ns of wall time */
	double alt[WQ_COUNT];     /* the contrasting behaviour it is blended with */
	uint64_t seg_no;          /* segment within the phase */
	uint64_t seg_end;         /* ns; never past phase_end */
	double seg_w;             /* the segment's blend of alt */
	double seg[WQ_COUNT];     /* the rates in force (in this fine span, with fine) */
	uint64_t fine_no;         /* fine span within the segment (wl_params.fine) */
	uint64_t fine_end;        /* ns; never past seg_end */
};

/* Places cpu at time 0 in its first phase. */
void wl_cpu_init(struct wl_cpu *c, const struct wl_params *p, int cpu);
/* Moves c from time now to now + dt and adds the quantities of that span
 * to acc[WQ_COUNT]. now must be where the previous call left off (0 first).
 * memclk and data_bus_busy stay 0 here: they belong to memory channels,
 * not CPUs (see wl_channel_fill). */
void wl_cpu_advance(struct wl_cpu *c, const struct wl_params *p, uint64_t now, uint64_t dt,
		    double *acc);
/* The same, calling fn for each piece of the span that lies in one
 * segment, with c describing that segment (the simulated task mix,
 * sim_tasks.c, gives each segment to one task). */
typedef void (*wl_span_fn)(void *arg, const struct wl_cpu *c, uint64_t start, uint64_t len);
void wl_cpu_advance_spans(struct wl_cpu *c, const struct wl_params *p, uint64_t now, uint64_t dt,
			  double *acc, wl_span_fn fn, void *arg);
/* splitmix64's finaliser: the mixer behind every draw of the model. */
uint64_t wl_mix64(uint64_t x);
/* Fills the per-channel figures of acc (quantities already summed over
 * the CPUs a set of nch channels serves, during dt ns): memclk = nch x
 * memclk_ghz x dt, and data_bus_busy = the MEMCLK cycles spent moving the
 * bytes (4 per 64-byte burst), at most memclk. */
void wl_channel_fill(const struct wl_params *p, int nch, uint64_t dt, double *acc);
/* Adds a socket's static power over dt ns to the energy quantities of acc
 * (the socket's sums): the uncore's (fabric, I/O, L3 leakage) and that of
 * the DRAM behind its nch channels (refresh, background). The CPUs'
 * shares, which grow with their activity, are in their own quantities. */
void wl_socket_power_fill(int nch, uint64_t dt, double *acc);

/* Phase parameters for tests and the documentation. */
struct wl_phase_info {
	enum wl_phase_kind kind;
	uint64_t start, end;      /* ns */
};
/* The phase of cpu that contains time t (stateless: replays from 0). */
void wl_phase_at(const struct wl_params *p, int cpu, uint64_t t, struct wl_phase_info *out);

#endif
