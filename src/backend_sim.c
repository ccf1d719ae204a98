/* backend_sim.c: the simulated PMU, used by the tests and by `pmctop --sim`.
 * It follows the kernel's perf_event semantics for everything pmctop relies
 * on, with counts from the deterministic workload model of sim_workload.c
 * and time from a simulated clock that only ops->advance() moves.
 *
 * Semantics, and where they simplify the kernel's:
 *  - Instances: core, software and proc PMUs have one per online CPU; an
 *    uncore PMU of scope ccx has one per CCX, read on the CCX's first online
 *    CPU (amd_l3's cpumask); one of scope socket whose perf name is a glob
 *    (amd_umc_*) has `channels` instances per socket, named with the glob
 *    replaced by the channel's machine-wide number, all read on the socket's
 *    first online CPU; a socket PMU without a glob has one per socket.
 *  - Counters: a group needs one general counter per event, two for a
 *    merge-flagged event (an even/odd pair), and none for a fixed-flagged
 *    event while a fixed counter is left; software and proc events need
 *    none. A group that needs more than the PMU has in total fails to open
 *    with -EINVAL, as x86 validate_group() does. The NMI watchdog is on
 *    unless the argument says nmi=0: it holds pmu.nmi_reserved general
 *    counters of core PMUs, or fixed ones where pmu.nmi_takes_fixed. A group
 *    that fits the PMU but not what is free opens but never runs.
 *  - Sharing (the kernel's multiplexing of flexible groups, as on x86): the
 *    groups enabled on one instance form a list, newest last. The kernel
 *    schedules groups from the head of the list while they fit in the free
 *    counters and stops at the first that does not; groups that fit together
 *    all run. While some group cannot run, every mux tick (mux_ms, default
 *    4 ms as perf_event_mux_interval_ms on x86; ticks fall on multiples of
 *    it on the simulated clock, on every instance alike) rotates the list by
 *    one, the head going last. Such a schedule repeats every n ticks for n
 *    groups: the sim keeps, per instance, which groups run in each of the
 *    n rotations and works out a group's running time over any span from
 *    that table when the group is settled.
 *    Enabling, disabling or closing a group settles the others, keeps the
 *    list's current rotation and tabulates it again. pmctop's own rotation
 *    enables one group per PMU at a time, which therefore runs whenever it
 *    fits in what is free.
 *  - Time: time_enabled grows while a group is enabled, time_running while
 *    it is placed on counters; both and the values are cumulative since
 *    open, on the simulated clock. While some slot is contended the clock
 *    stops at every mux tick and settles its groups, so that a group is
 *    credited the workload quantities of the ticks it ran and of no other:
 *    a phase its ticks missed is missed, as on real counters. (Crediting
 *    each group its share of a whole read's quantities, as the sim once
 *    did, is the even spreading that the kernel's scaling assumes, and
 *    hid all of the multiplexing's sampling error.)
 *  - Counts: each event's `sim` formula is evaluated over the workload
 *    quantities accumulated while its group was running: per CPU for thread
 *    and core scope, summed over the CCX for ccx scope, summed over the
 *    socket and divided evenly among its channels for socket scope. An event
 *    without a formula counts a fixed fraction (0.1% to 5%, from a hash of its
 *    name) of cycles. sim_set_constant_rates() replaces the model for a CPU
 *    (or the instances read on it) with rates[i] per second of running time.
 *  - Faults (sim_inject_fault): a read fault fires after `after_reads`
 *    successful reads of groups on that CPU (any CPU for cpu -1). -ENODEV
 *    means the CPU went offline: from then on it has no instances, counts
 *    nothing, and every read or open on it fails with -ENODEV (an uncore
 *    PMU moves to the next online CPU of its CCX or socket, and its groups
 *    on the old CPU must be reopened, where the kernel would migrate them).
 *    Any other read error (-EINTR, or -EIO for a short read) fires once.
 *    An open fault (on_open) fails every open on that CPU after
 *    `after_reads` successful opens, until cleared by a fault with err 0.
 *  - Absent PMUs: an event of a PMU listed in absent=..., or of an uncore
 *    ccx PMU on a topology without L3, fails to open with -ENOENT.
 *  - Ground truth (sim_truth_*): the simulator knows what really happened,
 *    so tests can judge pmctop's figures: the quantities of any instance's
 *    source since time 0 (whole-interval truth is the difference at the
 *    interval's ends), and for each open group the unrounded count of each
 *    event over exactly the windows in which the group ran.
 *
 * The argument is a comma-separated list; items without '=' (the --sim spec
 * itself) are ignored, the others are nmi=0|1, seed=N, channels=N (memory
 * channels per socket, default: the CCX per socket, within 2-12), ghz=MAX, nominal=GHZ, width=SLOTS
 * (dispatch slots per cycle, default 8), mux_ms=N (the kernel's mux tick,
 * 1-10000, default 4), absent=PMU[+PMU...], features=0|1 (0: a kernel
 * without the features events name with `requires`, such as Intel's
 * PERF_METRICS: those events fail to open, as on a kernel before 5.9),
 * ff=0|1 (fast-forward: batch mode writes simulated intervals as fast as
 * they are computed instead of one every -d of real time; for soaks and
 * benchmarks, see docs/soak.md), cxl=0|1 (1: a part with extension memory
 * behind its L3, Zen 4 and 5: some L1D fills from beyond the CCX come from
 * it rather than DRAM; default 0), fp16=0|1 (1: a part with FP16
 * arithmetic, Sapphire Rapids: some FLOPs are FP16 ones; default 0).
 *
 * This file holds the set-up, the groups and the ops table: the entry,
 * which calls the rest and is called by none of it. The rest is split by
 * job, sharing the state in backend_sim_impl.h: backend_sim_inst.c (the
 * leaf) the instances, their CPUs and slots, backend_sim_args.c parses
 * --sim and its options, backend_sim_mux.c models
 * the kernel's counters and multiplexing (Counters, Sharing, Time above),
 * backend_sim_clock.c the clock and what each event counts (Counts),
 * backend_sim_tasks.c per-task sampling, and backend_sim_truth.c the ground
 * truth, the test controls and the injected faults. */
#include "config.h"
#include "backend.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "sim_sampling.h"
#include "sim_tasks.h"
#include "sim_masks.h"
#include "sim_counters.h"
#include "sim_workload.h"
#include "util.h"
#include "backend_sim_impl.h"

/* ---- set-up ---- */

static int resolve_quantity(void *ctx, const char *name)
{
	(void)ctx;
	return wl_quantity_lookup(name);
}

static double name_share(const char *name)
{
	/* FNV-1a: stable across runs and platforms. A privilege modifier's
	 * variant (`NAME:u`) hashes as its event, so that its part of what
	 * the event counts is the split of the same share. */
	uint32_t h = 2166136261u;
	const char *end = name ? strchr(name, ':') : NULL;
	for (const char *p = name ? name : ""; *p && p != end; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return 0.001 + 0.049 * (double)(h % 1000) / 999.0;
}

static int prepare_events(struct backend *b, char **cause)
{
	const struct model *m = b->m;
	b->ev = xcalloc((size_t)(m->nevents ? m->nevents : 1), sizeof(*b->ev));
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *e = &m->events[i];
		b->ev[i].cycles_share = name_share(e->name);
		if (!e->sim_text || !*e->sim_text)
			continue;
		/* A private tree: the model is shared and read-only. */
		int col = 0;
		char *why = NULL;
		struct expr *x = expr_parse(e->sim_text, &col, &why);
		if (x && expr_resolve(x, resolve_quantity, NULL, &col, &why) < 0) {
			expr_free(x);
			x = NULL;
		}
		if (!x) {
			set_cause(cause, "%s:%d: event %s: sim formula '%s': %s",
				  e->file ? e->file : m->name, e->line, e->name, e->sim_text,
				  why ? why : "invalid");
			free(why);
			return -1;
		}
		b->ev[i].expr = x;
	}
	for (int i = 0; i < m->nevents; i++)
		b->ev[i].parts = sim_mask_parts(m, i, &b->ev[i].nparts);
	return 0;
}

static void sim_destroy(struct backend *b);

static struct backend *sim_create(const struct model *m, struct topo *t, const char *arg, char **cause)
{
	if (!m || !t)
		return set_cause(cause, "sim: no model or topology"), NULL;
	if (t->max_cpu <= 0 || t->max_cpu > SIM_MAX_CPUS)
		return set_cause(cause, "sim: %d CPUs is outside 1-%d", t->max_cpu, SIM_MAX_CPUS), NULL;

	struct backend *b = xcalloc(1, sizeof(*b));
	b->m = m;
	b->t = t;
	wl_params_default(&b->wp);
	b->wp.smt = t->threads_per_core > 1;
	b->nmi = true;
	b->features = true;
	b->mux_ns = SIM_DEFAULT_MUX_NS;
	b->call_ns = SIM_DEFAULT_CALL_NS;
	/* Memory channels grow with the machine, as on real parts (a 2-CCX
	 * desktop has 2, a 12-CCX-per-socket server 12), so that simulated
	 * bandwidth per channel stays plausible at any shape. */
	int ccx_per_socket = t->nsockets > 0 ? t->nccx / t->nsockets : 1;
	b->channels = ccx_per_socket < 2 ? 2 : ccx_per_socket > 12 ? 12 : ccx_per_socket;
	b->absent = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(bool));
	/* The model's own defaults first (its clock and width, as data in its
	 * model.def), then what the caller asked for, which wins. */
	if (m->sim_args && sim_parse_options(b, m->sim_args, cause) < 0) {
		char *why = cause ? *cause : NULL;
		if (cause)
			*cause = xasprintf("%s: 'sim %s' in model.def: %s", m->name, m->sim_args, why ? why : "bad value");
		free(why);
		goto fail;
	}
	if (sim_parse_options(b, arg, cause) < 0 || prepare_events(b, cause) < 0)
		goto fail;

	b->ncpu_map = t->max_cpu;
	b->cpus = xcalloc((size_t)b->ncpu_map, sizeof(*b->cpus));
	for (int i = 0; i < b->ncpu_map; i++) {
		b->cpus[i].cpu = i;
		b->cpus[i].core = b->cpus[i].ccx = b->cpus[i].socket = -1;
	}
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (c->cpu < 0 || c->cpu >= b->ncpu_map)
			continue;
		b->cpus[c->cpu].present = true;
		wl_cpu_init(&b->cpus[c->cpu].wl, &b->wp, c->cpu);
	}
	b->ncores = t->ncores;
	b->nccx = t->nccx;
	b->nsockets = t->nsockets;
	for (int k = 0; k < t->ncores; k++)
		for (int j = 0; j < t->cores[k].ncpus; j++) {
			int cpu = t->cores[k].cpus[j];
			if (cpu >= 0 && cpu < b->ncpu_map)
				b->cpus[cpu].core = k;
		}
	for (int x = 0; x < t->nccx; x++)
		for (int k = 0; k < t->ccxs[x].ncpus; k++) {
			int cpu = t->ccxs[x].cpus[k];
			if (cpu >= 0 && cpu < b->ncpu_map)
				b->cpus[cpu].ccx = x;
		}
	for (int s = 0; s < t->nsockets; s++)
		for (int k = 0; k < t->sockets[s].ncpus; k++) {
			int cpu = t->sockets[s].cpus[k];
			if (cpu >= 0 && cpu < b->ncpu_map)
				b->cpus[cpu].socket = s;
		}
	b->core_q = xcalloc((size_t)(b->ncores ? b->ncores : 1), sizeof(*b->core_q));
	b->ccx_q = xcalloc((size_t)(b->nccx ? b->nccx : 1), sizeof(*b->ccx_q));
	b->sock_q = xcalloc((size_t)(b->nsockets ? b->nsockets : 1), sizeof(*b->sock_q));
	b->slots = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(*b->slots));
	b->nslots = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(int));
	for (int p = 0; p < m->npmus; p++) {
		/* Slots are indexed by CPU for per-CPU PMUs, by core, CCX,
		 * socket x channel, or 0 for system scope: see sim_slot_index(). */
		int n = b->ncpu_map;
		if (m->pmus[p].kind == PMU_UNCORE) {
			if (m->pmus[p].scope == SCOPE_CORE)
				n = b->ncores;
			else if (m->pmus[p].scope == SCOPE_CCX)
				n = b->nccx;
			else if (m->pmus[p].scope == SCOPE_SOCKET)
				n = b->nsockets * b->channels;
			else if (m->pmus[p].scope == SCOPE_SYSTEM)
				n = 1;
		}
		b->nslots[p] = n;
		b->slots[p] = xcalloc((size_t)(n ? n : 1), sizeof(struct sim_slot));
		for (int k = 0; k < n; k++)
			b->slots[p][k].pmu = p;
	}
	return b;
fail:
	sim_destroy(b);
	return NULL;
}

static void sim_destroy(struct backend *b)
{
	if (!b)
		return;
	if (b->ev)
		for (int i = 0; i < b->m->nevents; i++) {
			expr_free(b->ev[i].expr);
			free(b->ev[i].parts);
		}
	free(b->ev);
	if (b->cpus)
		for (int i = 0; i < b->ncpu_map; i++)
			free(b->cpus[i].rates);
	if (b->cpus)
		for (int i = 0; i < b->ncpu_map; i++)
			simsmp_free(b->cpus[i].smp);
	free(b->cpus);
	simt_free(b->tasks);
	simtruth_free(b->truth);
	free(b->pinned);
	if (b->slots)
		for (int p = 0; p < b->m->npmus; p++) {
			for (int k = 0; k < b->nslots[p]; k++) {
				free(b->slots[p][k].enabled);
				free(b->slots[p][k].runs);
				free(b->slots[p][k].nruns);
			}
			free(b->slots[p]);
		}
	free(b->slots);
	free(b->nslots);
	free(b->core_q);
	free(b->ccx_q);
	free(b->sock_q);
	free(b->absent);
	free(b);
}

static bool sim_has_feature(struct backend *b, int pmu, const char *path)
{
	(void)path;
	return b->features && pmu >= 0 && pmu < b->m->npmus && !sim_absent_why(b, pmu);
}

static bool sim_event_modelled(struct backend *b, int e)
{
	const struct model *m = b->m;
	if (e < 0 || e >= m->nevents || !m->imported)
		return true;
	enum pmu_kind k = m->pmus[m->events[e].pmu].kind;
	return (k != PMU_CORE && k != PMU_UNCORE) || b->ev[e].expr || b->ev[e].nparts > 0;
}

static int sim_free_counters(struct backend *b, int pmu)
{
	if (pmu < 0 || pmu >= b->m->npmus)
		return 0;
	int g, f;
	sim_free_on(b, pmu, false, &g, &f);
	return g;
}

/* ---- groups ---- */

static int sim_open_group(struct backend *b, const struct bk_instance *inst, const int *events,
			  int nevents, struct bk_group **out, char **cause)
{
	*out = NULL;
	if (!inst || inst->pmu < 0 || inst->pmu >= b->m->npmus || nevents <= 0 || !events) {
		set_cause(cause, "sim: bad group (no PMU or no events)");
		return -EINVAL;
	}
	const struct pmu_def *pd = &b->m->pmus[inst->pmu];
	int cpu = inst->cpu;
	if (cpu < 0 || cpu >= b->ncpu_map || !b->cpus[cpu].present) {
		set_cause(cause, "sim: CPU %d does not exist", cpu);
		return -ENODEV;
	}
	if (b->cpus[cpu].offline) {
		set_cause(cause, "sim: CPU %d went offline", cpu);
		return -ENODEV;
	}
	int fi = sim_match_fault(b, cpu, true);
	if (fi >= 0 && b->faults[fi].seen >= b->faults[fi].f.after_reads) {
		int err = b->faults[fi].f.err;
		if (err == -ENODEV)
			sim_go_offline(b, cpu);
		set_cause(cause, "sim: injected fault on open on CPU %d: %s", cpu, strerror(-err));
		return err;
	}
	if (!sim_cpu_usable(b, cpu)) {
		set_cause(cause, "sim: CPU %d is offline", cpu);
		return -ENODEV;
	}
	struct bk_group g0 = { 0 };
	for (int i = 0; i < nevents; i++) {
		int e = events[i];
		if (e < 0 || e >= b->m->nevents) {
			set_cause(cause, "sim: no event number %d", e);
			return -EINVAL;
		}
		const struct event_def *ed = &b->m->events[e];
		if (ed->pmu < 0 || ed->pmu >= b->m->npmus || sim_absent_why(b, ed->pmu)) {
			set_cause(cause, "sim: event %s: its PMU is not present on this simulated machine",
				  ed->name);
			return -ENOENT;
		}
		const struct pmu_def *epd = &b->m->pmus[ed->pmu];
		if (ed->pmu != inst->pmu && epd->kind != PMU_SOFTWARE) {
			/* As perf_event_open: a group stays on one hardware PMU;
			 * only software events may join another PMU's group. */
			set_cause(cause, "sim: event %s belongs to PMU %s, not %s", ed->name,
				  epd->name, pd->name);
			return -EINVAL;
		}
		if (ed->requires && !b->features) {
			set_cause(cause, "sim: event %s: this simulated kernel has no %s/%s", ed->name,
				  epd->perf_name, ed->requires);
			return -EINVAL;
		}
		if (ed->flags & EVF_TOPDOWN) {
			/* As the kernel: PERF_METRICS events take no counter and
			 * only join a group that slots leads. */
			const struct event_def *lead = &b->m->events[events[0]];   /* checked at i = 0 */
			if (!(lead->flags & EVF_SLOTS) || lead->pmu != ed->pmu) {
				set_cause(cause, "sim: event %s: a topdown event needs slots as its group leader",
					  ed->name);
				return -EINVAL;
			}
			continue;
		}
		if ((ed->flags & EVF_SLOTS) && i != 0) {
			set_cause(cause, "sim: event %s: slots must lead its group", ed->name);
			return -EINVAL;
		}
		if (sim_pmu_unlimited(epd) || sim_pmu_unlimited(pd))
			continue;
		if (ed->flags & EVF_MERGE)
			g0.need_pairs++;
		else if ((ed->flags & (EVF_FIXED | EVF_SLOTS)) && pd->fixed > 0)
			g0.need_fixed++;
		else
			g0.need_general++;
	}
	if (!sim_pmu_unlimited(pd) && !sim_group_fits(&g0, pd->counters, pd->fixed)) {
		set_cause(cause, "sim: group of %d events needs %d counters (merged pairs count 2), "
			  "%s has %d general and %d fixed", nevents,
			  2 * g0.need_pairs + g0.need_general + g0.need_fixed, pd->name,
			  pd->counters, pd->fixed);
		return -EINVAL;
	}
	if (!sim_pmu_unlimited(pd) && sim_check_counter_masks(b->m, pd, events, nevents, cause) < 0)
		return -EINVAL;
	int nch = 1;
	int k = sim_slot_index(b, pd, inst, &nch, cause);
	if (k < 0 || k >= b->nslots[inst->pmu]) {
		if (k >= 0)
			set_cause(cause, "sim: instance %s out of range", inst->perf_name);
		return -EINVAL;
	}
	if (fi >= 0)
		b->faults[fi].seen++;
	b->cpus[cpu].opens++;

	struct bk_group *g = xcalloc(1, sizeof(*g));
	*g = g0;
	g->slot = &b->slots[inst->pmu][k];
	g->pmu = inst->pmu;
	g->cpu = cpu;
	g->nch = nch;
	g->src = sim_source_of(b, pd, inst);
	g->nevents = nevents;
	g->events = xmalloc(sizeof(int) * (size_t)nevents);
	memcpy(g->events, events, sizeof(int) * (size_t)nevents);
	g->last = xcalloc((size_t)nevents, sizeof(uint64_t));
	g->since = b->now;
	memcpy(g->snap, g->src, sizeof(g->snap));
	g->next_open = b->open_groups;
	if (g->next_open)
		g->next_open->prev_open = &g->next_open;
	g->prev_open = &b->open_groups;
	b->open_groups = g;
	*out = g;
	return 0;
}

static int sim_read(struct backend *b, struct bk_group *g, struct bk_count *out)
{
	if (!g || !out)
		return -EINVAL;
	struct sim_cpu *c = &b->cpus[g->cpu];
	/* /proc/stat is a file that one parse serves for every CPU; the
	 * counters' reads are calls to the CPU that holds them. */
	if (b->m->pmus[b->m->events[g->events[0]].pmu].kind != PMU_PROC)
		b->kernel_ns += b->call_ns;
	if (!sim_cpu_usable(b, g->cpu))
		return -ENODEV;
	int fi = sim_match_fault(b, g->cpu, false);
	if (fi >= 0 && b->faults[fi].seen >= b->faults[fi].f.after_reads) {
		int err = b->faults[fi].f.err;
		if (err == -ENODEV)
			sim_go_offline(b, g->cpu);
		else
			sim_drop_fault(b, fi);    /* transient: fires once */
		return err;
	}
	if (fi >= 0)
		b->faults[fi].seen++;
	c->reads++;

	sim_settle(b, g);
	for (int i = 0; i < g->nevents; i++) {
		int e = g->events[i];
		const struct event_def *ed = &b->m->events[e];
		double v = sim_event_value(b, c, e, g->acc, (double)g->t_running);
		uint64_t u = 0;
		if (v > 0 && isfinite(v))
			u = v >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(v);
		if (ed->flags & EVF_SATURATES && u > SATURATED)
			u = SATURATED;
		/* Counters never go back, even if a formula subtracts. */
		if (u < g->last[i])
			u = g->last[i];
		g->last[i] = u;
		out[i].value = u;
		out[i].time_enabled = g->t_enabled;
		out[i].time_running = g->t_running;
	}
	return 0;
}

static void sim_close(struct backend *b, struct bk_group *g)
{
	if (!g)
		return;
	sim_disable(b, g);
	*g->prev_open = g->next_open;
	if (g->next_open)
		g->next_open->prev_open = g->prev_open;
	free(g->events);
	free(g->last);
	free(g);
}

const struct pmu_backend_ops backend_sim = {
	.name = "sim",
	.simulated = true,
	.create = sim_create,
	.destroy = sim_destroy,
	.instances = sim_instances,
	.has_feature = sim_has_feature,
	.event_modelled = sim_event_modelled,
	.free_counters = sim_free_counters,
	.open_group = sim_open_group,
	.enable = sim_enable,
	.disable = sim_disable,
	.read = sim_read,
	.close = sim_close,
	.sample_open = sim_sample_open,
	.sample_drain = sim_sample_drain,
	.sample_read = sim_sample_read,
	.sample_close = sim_sample_close,
	.task_info = sim_task_info,
	.advance = sim_advance,
	.now = sim_now,
	.kernel_ns = sim_kernel_ns,
	.max_ghz = sim_max_ghz,
};
