/* backend_sim_clock.c: the simulated clock and what the events count over
 * it: advancing the clock runs the workload model of every CPU and sums its
 * quantities per core, CCX and socket; an event's value over quantities is
 * its sim formula (or its unit mask's cases, a test's constant rate, a
 * share of cycles). Split from backend_sim.c so that the counts (Counts
 * atop backend_sim.c) are one file's job, apart from how groups are opened
 * and scheduled. */
#include "config.h"
#include "backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "sim_sampling.h"
#include "sim_tasks.h"
#include "sim_workload.h"
#include "util.h"
#include "backend_sim_impl.h"

/* ---- counts ---- */

struct eval_ctx { const double *q; };

static double quantity_value(void *ctx, int ref)
{
	const struct eval_ctx *c = ctx;
	return ref >= 0 && ref < WQ_COUNT ? c->q[ref] : NAN;
}

/* The same for the counts of an event as defined (no modifier). */
static double sim_event_plain(const struct backend *b, const struct sim_cpu *c, int e, const double *q,
			       double running_ns)
{
	const double *rates = c ? c->rates : NULL;
	if (rates && !isnan(rates[e]))
		return rates[e] * running_ns / 1e9;
	if (b->ev[e].nparts > 0) {
		double sum = 0;
		for (int k = 0; k < b->ev[e].nparts; k++)
			sum += sim_event_value(b, c, b->ev[e].parts[k], q, running_ns);
		return sum;
	}
	if (b->ev[e].expr) {
		struct eval_ctx ctx = { q };
		return expr_eval(b->ev[e].expr, quantity_value, &ctx);
	}
	return b->ev[e].cycles_share * q[WQ_CYCLES];
}

/* The quantities that a variant leaving out excl (privilege modifiers,
 * evdef_modifier.c) sees, into out: user code's part and the kernel's
 * part of each, kept or not. Retired work (instructions, ops) is split by
 * the kernel's share of the instructions, everything else by its share of
 * the cycles; there is no hypervisor and no guest on the simulated host,
 * so :h counts nothing and :G nothing. The sim formulas are linear, so a
 * :u count and a :k count add up to the plain one. */
static void privilege_part(const double *q, unsigned excl, double *out)
{
	bool host = !(excl & EXCL_HOST);
	double kc = q[WQ_CYCLES] > 0 ? q[WQ_KERNEL_CYCLES] / q[WQ_CYCLES] : 0;
	double ki = q[WQ_INSTRUCTIONS] > 0 ? q[WQ_KERNEL_INSTRUCTIONS] / q[WQ_INSTRUCTIONS] : 0;
	double keep_c = host ? (excl & EXCL_USER ? 0 : 1 - kc) + (excl & EXCL_KERNEL ? 0 : kc) : 0;
	double keep_i = host ? (excl & EXCL_USER ? 0 : 1 - ki) + (excl & EXCL_KERNEL ? 0 : ki) : 0;
	for (int k = 0; k < WQ_COUNT; k++)
		out[k] = q[k] * keep_c;
	out[WQ_INSTRUCTIONS] = q[WQ_INSTRUCTIONS] * keep_i;
	out[WQ_OPS] = q[WQ_OPS] * keep_i;
	bool kernel = host && !(excl & EXCL_KERNEL);
	out[WQ_KERNEL_CYCLES] = kernel ? q[WQ_KERNEL_CYCLES] : 0;
	out[WQ_KERNEL_INSTRUCTIONS] = kernel ? q[WQ_KERNEL_INSTRUCTIONS] : 0;
}

/* What event e counts over quantities q during running_ns on CPU c's
 * instances: its sim formula, or the constant rate a test set. */
double sim_event_value(const struct backend *b, const struct sim_cpu *c, int e, const double *q,
		       double running_ns)
{
	unsigned excl = b->m->events[e].excl & (EXCL_USER | EXCL_KERNEL | EXCL_HOST);
	if (excl) {
		double part[WQ_COUNT];
		privilege_part(q, excl, part);
		return sim_event_plain(b, c, e, part, running_ns);
	}
	return sim_event_plain(b, c, e, q, running_ns);
}

/* One segment's piece of a CPU's time: its task did what the segment's
 * rates say, and the CPU's sampled events count it. */
struct span_ctx { struct backend *b; struct sim_cpu *c; };

static void sample_span(void *arg, const struct wl_cpu *w, uint64_t start, uint64_t len)
{
	struct span_ctx *sc = arg;
	struct backend *b = sc->b;
	double dq[WQ_COUNT];
	for (int q = 0; q < WQ_COUNT; q++)
		dq[q] = w->seg[q] * (double)len;
	int n = simsmp_nevents(sc->c->smp);
	const int *ev = simsmp_events(sc->c->smp);
	double *counts = simsmp_scratch(sc->c->smp);
	for (int i = 0; i < n; i++)
		counts[i] = sim_event_value(b, sc->c, ev[i], dq, (double)len);
	int pid = simt_pick(b->tasks, w, start);
	simsmp_span(sc->c->smp, pid, counts, len, start + len, b->truth);
	simtruth_add(b->truth, pid, SIM_TRUTH_CORE_NJ, dq[WQ_CORE_ENERGY], start + len);
}

/* Runs every CPU's workload, and the sockets' memory, for ns. */
static void advance_span(struct backend *b, uint64_t ns)
{
	double (*dsock)[WQ_COUNT] = xcalloc((size_t)(b->nsockets ? b->nsockets : 1), sizeof(*dsock));
	for (int cpu = 0; cpu < b->ncpu_map; cpu++) {
		struct sim_cpu *c = &b->cpus[cpu];
		if (!c->present)
			continue;
		double d[WQ_COUNT] = { 0 };
		/* Offline CPUs keep their place in the phase sequence but count
		 * nothing, so that a CPU's phases do not depend on hotplug. */
		if (c->smp && sim_cpu_usable(b, cpu)) {
			struct span_ctx sc = { b, c };
			wl_cpu_advance_spans(&c->wl, &b->wp, b->now, ns, d, sample_span, &sc);
		} else {
			wl_cpu_advance(&c->wl, &b->wp, b->now, ns, d);
		}
		if (!sim_cpu_usable(b, cpu))
			continue;
		for (int q = 0; q < WQ_COUNT; q++) {
			c->q[q] += d[q];
			b->sys_q[q] += d[q];
		}
		if (c->core >= 0 && c->core < b->ncores)
			for (int q = 0; q < WQ_COUNT; q++)
				b->core_q[c->core][q] += d[q];
		if (c->ccx >= 0 && c->ccx < b->nccx)
			for (int q = 0; q < WQ_COUNT; q++)
				b->ccx_q[c->ccx][q] += d[q];
		if (c->socket >= 0 && c->socket < b->nsockets)
			for (int q = 0; q < WQ_COUNT; q++)
				dsock[c->socket][q] += d[q];
	}
	for (int s = 0; s < b->nsockets; s++) {
		wl_channel_fill(&b->wp, b->channels, ns, dsock[s]);
		wl_socket_power_fill(b->channels, ns, dsock[s]);
		for (int q = 0; q < WQ_COUNT; q++)
			b->sock_q[s][q] += dsock[s][q];
	}
	free(dsock);
	b->now += ns;
}

/* While groups take turns on some counters (the kernel's multiplexing),
 * the clock stops at every mux tick to settle them (sim_settle_contended),
 * so that each is credited only the ticks it ran. Otherwise one span:
 * the quantities add up the same however the time is cut. (mux_ms is
 * at least 1: backend_sim_args.c refuses 0.) */
void sim_advance(struct backend *b, uint64_t ns)
{
	if (ns == 0)
		return;
	uint64_t end = b->now + ns;
	if (b->ncontended > 0)
		for (uint64_t tick; (tick = (b->now / b->mux_ns + 1) * b->mux_ns) <= end;) {
			advance_span(b, tick - b->now);
			sim_settle_contended(b);
		}
	if (b->now < end)
		advance_span(b, end - b->now);
}

uint64_t sim_now(struct backend *b)
{
	return b->now;
}

uint64_t sim_kernel_ns(struct backend *b)
{
	return b->kernel_ns;
}

double sim_max_ghz(struct backend *b)
{
	return b->wp.ghz_max;
}
