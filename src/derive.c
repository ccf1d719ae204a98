/* derive.c: from the per-instance scaled counts of one interval to a
 * snapshot.
 *
 * Rows exist for every selected online CPU and for each core, CCX and
 * socket that holds one, plus one system row. Each row's events are the
 * sum of the scaled counts of the instances under it (wider-scope PMU
 * instances, such as one L3 per CCX, are added at their scope and above);
 * an event's coverage in a row is the lowest coverage among those
 * instances. Only then is each metric's formula evaluated on the row's
 * sums: aggregates come from summed raw counts, never from an average of
 * per-CPU ratios, which would weight an idle CPU like a busy one. */
#include "config.h"
#include "derive.h"
#include "expr.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct row_maps {
	int *cpu_row;     /* [max_cpu] */
	int *core_row;    /* [ncores] */
	int *ccx_row;     /* [nccx] */
	int *sock_row;    /* [nsockets] */
};

/* The same selection the sampler opens per-CPU PMUs on: online, and in the
 * filter when there is one. */
static bool cpu_selected(const struct derive_input *in, int cpu)
{
	const struct topo_cpu *tc = topo_cpu_by_num(in->topo, cpu);
	if (!tc || !tc->online)
		return false;
	return !in->cpu_filter || (cpu >= 0 && cpu < in->topo->max_cpu && in->cpu_filter[cpu]);
}

static int socket_index(const struct topo *t, int socket_id)
{
	for (int k = 0; k < t->nsockets; k++)
		if (t->sockets[k].id == socket_id)
			return k;
	return socket_id >= 0 && socket_id < t->nsockets ? socket_id : -1;
}

static void row_add(struct snap_row *row, int e, double v, double cov, bool *touched)
{
	if (!touched[e]) {
		touched[e] = true;
		row->event[e] = v;
		row->event_cov[e] = cov;
		return;
	}
	row->event[e] += v;   /* NaN propagates: one unknown part makes the sum unknown */
	if (!(cov >= row->event_cov[e]))
		row->event_cov[e] = cov;
}

struct eval_ctx {
	const struct model *m;
	const struct snap_row *row;
	double *met;
	unsigned char *state;   /* 0 new, 1 in progress, 2 done */
	double interval_s;
	int row_scope;
};

static double eval_metric(struct eval_ctx *c, int mi);

static double value_of(void *ctx, int ref)
{
	struct eval_ctx *c = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return c->interval_s;
	if (ref >= METRIC_REF_BASE && ref < METRIC_REF_BASE + c->m->nmetrics)
		return eval_metric(c, ref - METRIC_REF_BASE);
	if (ref >= 0 && ref < c->m->nevents)
		return c->row->event[ref];
	return NAN;
}

static double eval_metric(struct eval_ctx *c, int mi)
{
	if (c->state[mi] == 2)
		return c->met[mi];
	if (c->state[mi] == 1)
		return NAN;   /* a cycle; the loader rejects these, but never loop */
	c->state[mi] = 1;
	const struct metric_def *md = &c->m->metrics[mi];
	double v = NAN;
	if ((int)md->scope <= c->row_scope && md->expr)
		v = expr_eval(md->expr, value_of, c);
	c->met[mi] = v;
	c->state[mi] = 2;
	return v;
}

struct snapshot *derive_snapshot(const struct derive_input *in)
{
	const struct model *m = in->model;
	const struct topo *t = in->topo;
	const struct sched_plan *plan = in->plan;
	double interval_s = in->interval_s;
	int nrows[SNAP_NSCOPES] = { 0 };
	struct row_maps rm;
	rm.cpu_row = xmalloc(sizeof(int) * ((size_t)t->max_cpu + 1));
	rm.core_row = xmalloc(sizeof(int) * ((size_t)t->ncores + 1));
	rm.ccx_row = xmalloc(sizeof(int) * ((size_t)t->nccx + 1));
	rm.sock_row = xmalloc(sizeof(int) * ((size_t)t->nsockets + 1));
	for (int i = 0; i < t->max_cpu; i++)
		rm.cpu_row[i] = -1;
	for (int i = 0; i < t->ncores; i++)
		rm.core_row[i] = -1;
	for (int i = 0; i < t->nccx; i++)
		rm.ccx_row[i] = -1;
	for (int i = 0; i < t->nsockets; i++)
		rm.sock_row[i] = -1;

	/* Rows exist for selected online CPUs and the units that hold one. */
	int *core_n = xcalloc((size_t)t->ncores + 1, sizeof(int));
	int *ccx_n = xcalloc((size_t)t->nccx + 1, sizeof(int));
	int *sock_n = xcalloc((size_t)t->nsockets + 1, sizeof(int));
	int total = 0;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		if (!cpu_selected(in, tc->cpu))
			continue;
		rm.cpu_row[tc->cpu] = nrows[SNAP_CPU]++;
		total++;
		if (tc->core >= 0 && tc->core < t->ncores && core_n[tc->core]++ == 0)
			rm.core_row[tc->core] = nrows[SNAP_CORE]++;
		if (tc->ccx >= 0 && tc->ccx < t->nccx && ccx_n[tc->ccx]++ == 0)
			rm.ccx_row[tc->ccx] = nrows[SNAP_CCX]++;
		int si = socket_index(t, tc->socket);
		if (si >= 0 && sock_n[si]++ == 0)
			rm.sock_row[si] = nrows[SNAP_SOCKET]++;
	}
	nrows[SNAP_SYSTEM] = 1;

	struct snapshot *snap = snapshot_new(m, nrows);
	snap->interval_s = interval_s;
	for (int i = 0; i < plan->nmetrics; i++)
		snap->metric_planned[plan->metrics[i]] = true;
	/* The sampler gives every planned event a column on its PMU, so an
	 * event is counted when it is planned and its PMU opened. */
	for (int e = 0; e < m->nevents; e++)
		snap->event_planned[e] = plan->event_used[e] && in->pmus[m->events[e].pmu].available;

	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		int r = rm.cpu_row[tc->cpu];
		if (tc->cpu >= t->max_cpu || r < 0)
			continue;
		struct snap_row *row = &snap->rows[SNAP_CPU][r];
		row->id = row->cpu = tc->cpu;
		row->core = tc->core;
		row->ccx = tc->ccx;
		row->socket = tc->socket;
		row->ncpus = 1;
		if (tc->core >= 0 && rm.core_row[tc->core] >= 0) {
			struct snap_row *cr = &snap->rows[SNAP_CORE][rm.core_row[tc->core]];
			cr->id = cr->core = tc->core;
			cr->ccx = tc->ccx;
			cr->socket = tc->socket;
			cr->ncpus++;
		}
		if (tc->ccx >= 0 && rm.ccx_row[tc->ccx] >= 0) {
			struct snap_row *xr = &snap->rows[SNAP_CCX][rm.ccx_row[tc->ccx]];
			xr->id = xr->ccx = tc->ccx;
			xr->socket = tc->socket;
			xr->ncpus++;
		}
		int si = socket_index(t, tc->socket);
		if (si >= 0 && rm.sock_row[si] >= 0) {
			struct snap_row *sr = &snap->rows[SNAP_SOCKET][rm.sock_row[si]];
			sr->id = si;
			sr->socket = tc->socket;
			sr->ncpus++;
		}
	}
	snap->rows[SNAP_SYSTEM][0].id = 0;
	snap->rows[SNAP_SYSTEM][0].ncpus = total;

	/* touched[scope][row][event] would be large; instead rows start NaN and
	 * a per-row "seen" flag per event is kept in one reusable bitmap per
	 * scope, sized rows x events. */
	bool *touched[SNAP_NSCOPES];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		touched[sc] = xcalloc((size_t)nrows[sc] * (size_t)m->nevents + 1, sizeof(bool));

	for (int p = 0; p < m->npmus; p++) {
		const struct derive_pmu *dp = &in->pmus[p];
		if (!dp->available)
			continue;
		for (int i = 0; i < dp->ninst; i++) {
			if (!dp->alive[i])
				continue;
			const struct bk_instance *bi = &dp->inst[i];
			/* Where this instance sits: its CPU, core, CCX, socket. */
			int cpu = -1, core = -1, ccx = -1, sock = -1;
			switch (bi->scope) {
			case SCOPE_THREAD: {
				const struct topo_cpu *tc = topo_cpu_by_num(t, bi->cpu);
				if (!tc || !tc->online)
					continue;
				cpu = tc->cpu; core = tc->core; ccx = tc->ccx;
				sock = socket_index(t, tc->socket);
				break;
			}
			case SCOPE_CORE:
				core = bi->scope_id;
				if (core < 0 || core >= t->ncores)
					continue;
				ccx = t->cores[core].ccx;
				sock = socket_index(t, t->cores[core].socket);
				break;
			case SCOPE_CCX:
				ccx = bi->scope_id;
				if (ccx < 0 || ccx >= t->nccx)
					continue;
				sock = socket_index(t, t->ccxs[ccx].socket);
				break;
			case SCOPE_SOCKET:
				sock = socket_index(t, bi->scope_id);
				break;
			default:
				break;
			}
			struct snap_row *targets[SNAP_NSCOPES] = { NULL };
			int tidx[SNAP_NSCOPES] = { -1, -1, -1, -1, -1 };
			if (cpu >= 0 && cpu < t->max_cpu && rm.cpu_row[cpu] >= 0)
				tidx[SNAP_CPU] = rm.cpu_row[cpu];
			if (bi->scope == SCOPE_THREAD && tidx[SNAP_CPU] < 0)
				continue;   /* a CPU outside the selection */
			if (core >= 0 && core < t->ncores && rm.core_row[core] >= 0)
				tidx[SNAP_CORE] = rm.core_row[core];
			if (ccx >= 0 && ccx < t->nccx && rm.ccx_row[ccx] >= 0)
				tidx[SNAP_CCX] = rm.ccx_row[ccx];
			if (sock >= 0 && sock < t->nsockets && rm.sock_row[sock] >= 0)
				tidx[SNAP_SOCKET] = rm.sock_row[sock];
			tidx[SNAP_SYSTEM] = 0;
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				if (tidx[sc] >= 0 && sc >= (int)bi->scope)
					targets[sc] = &snap->rows[sc][tidx[sc]];
			for (int k = 0; k < dp->nlocal; k++) {
				int e = dp->local_ev[k];
				size_t at = (size_t)i * (size_t)dp->nlocal + (size_t)k;
				for (int sc = 0; sc < SNAP_NSCOPES; sc++)
					if (targets[sc])
						row_add(targets[sc], e, dp->value[at], dp->cov[at],
							&touched[sc][(size_t)tidx[sc] * (size_t)m->nevents]);
			}
		}
	}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		free(touched[sc]);

	/* Metrics from the summed counts of each row. */
	unsigned char *state = xmalloc((size_t)m->nmetrics + 1);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int r = 0; r < nrows[sc]; r++) {
			struct snap_row *row = &snap->rows[sc][r];
			struct eval_ctx c = { m, row, row->metric, state, interval_s, sc };
			memset(state, 0, (size_t)m->nmetrics + 1);
			for (int i = 0; i < plan->nmetrics; i++) {
				int mi = plan->metrics[i];
				const struct metric_def *md = &m->metrics[mi];
				eval_metric(&c, mi);
				double cov = 1;
				for (int k = 0; k < md->nevents; k++) {
					double ec = row->event_cov[md->events[k]];
					if (!(ec >= 0))
						ec = 0;
					if (ec < cov)
						cov = ec;
				}
				/* Not applicable at this scope is not the same as
				 * measured 0 % of the time: leave it NaN. */
				row->metric_cov[mi] = (int)md->scope <= sc ? cov : NAN;
			}
		}
	}
	free(state);
	free(rm.cpu_row);
	free(rm.core_row);
	free(rm.ccx_row);
	free(rm.sock_row);
	free(core_n);
	free(ccx_n);
	free(sock_n);
	return snap;
}
