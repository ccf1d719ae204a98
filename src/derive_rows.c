/* derive_rows.c: the rows of a snapshot and where counts go in them:
 * which CPUs, cores, CCX and sockets get a row, which rows each PMU
 * instance adds to, and the empty snapshot (derive.c's steps 1, 2 and 5),
 * apart from the arithmetic on counts that derive.c does. */
#include "config.h"
#include "derive_impl.h"
#include "topo.h"
#include "util.h"
#include "hot_path.h"

#include <stdlib.h>
#include <string.h>

/* The same selection the sampler opens per-CPU PMUs on: online, and in the
 * filter when there is one. */
static bool cpu_selected(const struct derive_input *in, int cpu)
{
	const struct topo_cpu *tc = topo_cpu_by_num(in->topo, cpu);
	if (!tc || !tc->online)
		return false;
	return !in->cpu_filter || (cpu >= 0 && cpu < in->topo->max_cpu && in->cpu_filter[cpu]);
}

/* The rows one PMU instance adds to, at its scope and above (-1: none). */
static void instance_rows(const struct derive_input *in, const struct row_maps *rm,
			  const struct bk_instance *bi, int tidx[SNAP_NSCOPES])
{
	const struct topo *t = in->topo;
	int cpu = -1, core = -1, ccx = -1, sock = -1;
	switch (bi->scope) {
	case SCOPE_THREAD: {
		const struct topo_cpu *tc = topo_cpu_by_num(t, bi->cpu);
		if (!tc || !tc->online)
			return;
		cpu = tc->cpu; core = tc->core; ccx = tc->ccx;
		sock = topo_socket_index(t, tc->socket);
		break;
	}
	case SCOPE_CORE:
		core = bi->scope_id;
		if (core < 0 || core >= t->ncores)
			return;
		ccx = t->cores[core].ccx;
		sock = topo_socket_index(t, t->cores[core].socket);
		break;
	case SCOPE_CCX:
		ccx = bi->scope_id;
		if (ccx < 0 || ccx >= t->nccx)
			return;
		sock = topo_socket_index(t, t->ccxs[ccx].socket);
		break;
	case SCOPE_SOCKET:
		sock = topo_socket_index(t, bi->scope_id);
		break;
	default:
		break;
	}
	int idx[SNAP_NSCOPES] = { -1, -1, -1, -1, 0 };
	if (cpu >= 0 && cpu < t->max_cpu && rm->cpu_row[cpu] >= 0)
		idx[SNAP_CPU] = rm->cpu_row[cpu];
	if (bi->scope == SCOPE_THREAD && idx[SNAP_CPU] < 0)
		return;   /* a CPU outside the selection */
	if (core >= 0 && core < t->ncores && rm->core_row[core] >= 0)
		idx[SNAP_CORE] = rm->core_row[core];
	if (ccx >= 0 && ccx < t->nccx && rm->ccx_row[ccx] >= 0)
		idx[SNAP_CCX] = rm->ccx_row[ccx];
	if (sock >= 0 && sock < t->nsockets && rm->sock_row[sock] >= 0)
		idx[SNAP_SOCKET] = rm->sock_row[sock];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		if (sc >= (int)bi->scope)
			tidx[sc] = idx[sc];
}

/* partial[sc][r]: the row holds fewer CPUs than are online in its core,
 * CCX, socket or machine (-C left some out). */
static void mark_partial(const struct derive_input *in, const struct row_maps *rm, const int nrows[SNAP_NSCOPES],
			 const struct snapshot *snap, bool *partial[SNAP_NSCOPES])
{
	const struct topo *t = in->topo;
	if (!in->cpu_filter)
		return;
	int *core_on = xcalloc((size_t)t->ncores + 1, sizeof(int));
	int *ccx_on = xcalloc((size_t)t->nccx + 1, sizeof(int));
	int *sock_on = xcalloc((size_t)t->nsockets + 1, sizeof(int));
	int total = 0;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		if (!tc->online)
			continue;
		total++;
		if (tc->core >= 0 && tc->core < t->ncores)
			core_on[tc->core]++;
		if (tc->ccx >= 0 && tc->ccx < t->nccx)
			ccx_on[tc->ccx]++;
		int si = topo_socket_index(t, tc->socket);
		if (si >= 0)
			sock_on[si]++;
	}
	for (int c = 0; c < t->ncores; c++)
		if (rm->core_row[c] >= 0)
			partial[SNAP_CORE][rm->core_row[c]] = snap->rows[SNAP_CORE][rm->core_row[c]].ncpus < core_on[c];
	for (int c = 0; c < t->nccx; c++)
		if (rm->ccx_row[c] >= 0)
			partial[SNAP_CCX][rm->ccx_row[c]] = snap->rows[SNAP_CCX][rm->ccx_row[c]].ncpus < ccx_on[c];
	for (int k = 0; k < t->nsockets; k++)
		if (rm->sock_row[k] >= 0)
			partial[SNAP_SOCKET][rm->sock_row[k]] = snap->rows[SNAP_SOCKET][rm->sock_row[k]].ncpus < sock_on[k];
	if (nrows[SNAP_SYSTEM] > 0)
		partial[SNAP_SYSTEM][0] = snap->rows[SNAP_SYSTEM][0].ncpus < total;
	free(core_on);
	free(ccx_on);
	free(sock_on);
}

/* Step 1, the row maps: rows exist for selected online CPUs and for the
 * units that hold one. */
HOT_PATH void derive_step_row_maps(struct derive_work *w, const struct derive_input *in)
{
	const struct topo *t = in->topo;
	struct row_maps *rm = &w->rm;
	rm->cpu_row = WORK_ARRAY(w, t->max_cpu, int);
	rm->core_row = WORK_ARRAY(w, t->ncores, int);
	rm->ccx_row = WORK_ARRAY(w, t->nccx, int);
	rm->sock_row = WORK_ARRAY(w, t->nsockets, int);
	for (int i = 0; i < t->max_cpu; i++)
		rm->cpu_row[i] = -1;
	for (int i = 0; i < t->ncores; i++)
		rm->core_row[i] = -1;
	for (int i = 0; i < t->nccx; i++)
		rm->ccx_row[i] = -1;
	for (int i = 0; i < t->nsockets; i++)
		rm->sock_row[i] = -1;
	int *nrows = w->nrows;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		nrows[sc] = 0;
	w->total = 0;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		if (!cpu_selected(in, tc->cpu))
			continue;
		rm->cpu_row[tc->cpu] = nrows[SNAP_CPU]++;
		w->total++;
		if (tc->core >= 0 && tc->core < t->ncores && rm->core_row[tc->core] < 0)
			rm->core_row[tc->core] = nrows[SNAP_CORE]++;
		if (tc->ccx >= 0 && tc->ccx < t->nccx && rm->ccx_row[tc->ccx] < 0)
			rm->ccx_row[tc->ccx] = nrows[SNAP_CCX]++;
		int si = topo_socket_index(t, tc->socket);
		if (si >= 0 && rm->sock_row[si] < 0)
			rm->sock_row[si] = nrows[SNAP_SOCKET]++;
	}
	nrows[SNAP_SYSTEM] = 1;
}

/* What the instance rows follow from, as bytes: the topology (which
 * CPUs are online), the selection, the row counts, and each PMU's
 * instances and which of them are live. */
static unsigned char *rows_key(struct derive_work *w, const struct derive_input *in, size_t *len)
{
	const struct model *m = in->model;
	const struct topo *t = in->topo;
	size_t n = sizeof(void *) + sizeof(w->nrows) + (size_t)t->ncpus + (in->cpu_filter ? (size_t)t->max_cpu : 0);
	for (int p = 0; p < m->npmus; p++)
		n += 1 + sizeof(int) + (in->pmus[p].available ? (size_t)in->pmus[p].ninst * (1 + 3 * sizeof(int)) : 0);
	unsigned char *k = arena_get(&w->ar, n, false), *at = k;
#define PUT(x) (memcpy(at, &(x), sizeof(x)), at += sizeof(x))
	PUT(t);
	PUT(w->nrows);
	for (int i = 0; i < t->ncpus; i++)
		*at++ = t->cpus[i].online;
	if (in->cpu_filter)
		for (int i = 0; i < t->max_cpu; i++)
			*at++ = in->cpu_filter[i];
	for (int p = 0; p < m->npmus; p++) {
		const struct derive_pmu *dp = &in->pmus[p];
		*at++ = dp->available;
		PUT(dp->ninst);
		if (!dp->available)
			continue;
		for (int i = 0; i < dp->ninst; i++) {
			int scope = (int)dp->inst[i].scope;
			*at++ = dp->alive[i];
			PUT(dp->inst[i].cpu);
			PUT(scope);
			PUT(dp->inst[i].scope_id);
		}
	}
#undef PUT
	*len = (size_t)(at - k);
	return k;
}

/* Step 2, the instance rows: the rows each live PMU instance adds to, and
 * how many instances each row has; kept while their key stays. */
HOT_PATH void derive_step_instance_rows(struct derive_work *w, const struct derive_input *in)
{
	const struct model *m = in->model;
	size_t klen;
	unsigned char *key = rows_key(w, in, &klen);
	if (w->rows_key && w->rows_key_len == klen && !memcmp(w->rows_key, key, klen))
		return;
	struct arena *ar = &w->rows_ar;
	arena_reset(ar);
	w->rows_key = arena_get(ar, klen, false);
	memcpy(w->rows_key, key, klen);
	w->rows_key_len = klen;
	w->irows = arena_get(ar, sizeof(struct inst_rows) * ((size_t)m->npmus + 1), true);
	w->clean = arena_get(ar, (size_t)m->npmus * SNAP_NSCOPES + 1, true);
	for (int p = 0; p < m->npmus; p++) {
		const struct derive_pmu *dp = &in->pmus[p];
		if (!dp->available)
			continue;
		struct inst_rows *ir = &w->irows[p];
		ir->row = arena_get(ar, sizeof(int) * ((size_t)dp->ninst * SNAP_NSCOPES + 1), false);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			ir->nin[sc] = arena_get(ar, sizeof(int) * ((size_t)w->nrows[sc] + 1), true);
		for (int sc = 0; sc < SNAP_NSCOPES - 1; sc++) {
			ir->up[sc] = arena_get(ar, sizeof(int) * ((size_t)w->nrows[sc] + 1), false);
			ir->upsc[sc] = arena_get(ar, (size_t)w->nrows[sc] + 1, false);
			for (int r = 0; r < w->nrows[sc]; r++)
				ir->up[sc][r] = -1;
		}
		for (int i = 0; i < dp->ninst; i++) {
			int *tidx = &ir->row[(size_t)i * SNAP_NSCOPES];
			for (int sc = 0; sc < SNAP_NSCOPES; sc++)
				tidx[sc] = -1;
			if (!dp->alive[i])
				continue;
			instance_rows(in, &w->rm, &dp->inst[i], tidx);
			for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
				if (tidx[sc] < 0)
					continue;
				ir->nin[sc][tidx[sc]]++;
				/* The rows of one topology nest: every instance
				 * of a row has the same row above it. */
				for (int s2 = sc + 1; s2 < SNAP_NSCOPES; s2++)
					if (tidx[s2] >= 0) {
						ir->up[sc][tidx[sc]] = tidx[s2];
						ir->upsc[sc][tidx[sc]] = (signed char)s2;
						break;
					}
			}
		}
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			bool all = true;
			for (int r = 0; r < w->nrows[sc] && all; r++)
				all = ir->nin[sc][r] > 0;
			w->clean[(size_t)p * SNAP_NSCOPES + (size_t)sc] = all;
		}
	}
}

/* Step 5, the skeleton: an empty snapshot of the plan's columns, each
 * row's place in the topology and its CPUs, and which rows -C left
 * partial. */
HOT_PATH struct snapshot *derive_step_skeleton(struct derive_work *w, const struct derive_input *in, bool live_rows)
{
	const struct model *m = in->model;
	const struct topo *t = in->topo;
	const struct row_maps *rm = &w->rm;
	/* Every event's figures are written by step_events; the columns and
	 * masks were worked out with the live list (derive_live). */
	const struct derive_live *l = w->live;
	struct snap_colmap maps = { .nmcols = l->nmcols, .necols = l->necols, .mcol = l->mcol, .ecol = l->ecol,
				    .mplanned = l->mplanned, .eplanned = l->eplanned,
				    .owner = (void *)l, .hold = derive_live_hold_maps, .release = derive_live_release_maps };
	for (int sc = 0; sc < SNAP_NSCOPES && live_rows; sc++)
		maps.mrow[sc] = l->mrow[sc];
	struct snapshot *snap = snapshot_new_mapped(m, w->nrows, &maps, true);
	snap->measured_s = in->measured_s;
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *tc = &t->cpus[i];
		int r = tc->cpu < t->max_cpu ? rm->cpu_row[tc->cpu] : -1;
		if (r < 0)
			continue;
		struct snap_row *row = &snap->rows[SNAP_CPU][r];
		row->id = row->cpu = tc->cpu;
		row->core = tc->core;
		row->ccx = tc->ccx;
		row->socket = tc->socket;
		row->ncpus = 1;
		if (tc->core >= 0 && rm->core_row[tc->core] >= 0) {
			struct snap_row *cr = &snap->rows[SNAP_CORE][rm->core_row[tc->core]];
			cr->id = cr->core = tc->core;
			cr->ccx = tc->ccx;
			cr->socket = tc->socket;
			cr->ncpus++;
		}
		if (tc->ccx >= 0 && rm->ccx_row[tc->ccx] >= 0) {
			struct snap_row *xr = &snap->rows[SNAP_CCX][rm->ccx_row[tc->ccx]];
			xr->id = xr->ccx = tc->ccx;
			xr->socket = tc->socket;
			xr->ncpus++;
		}
		int si = topo_socket_index(t, tc->socket);
		if (si >= 0 && rm->sock_row[si] >= 0) {
			struct snap_row *sr = &snap->rows[SNAP_SOCKET][rm->sock_row[si]];
			sr->id = si;
			sr->socket = tc->socket;
			sr->ncpus++;
		}
	}
	snap->rows[SNAP_SYSTEM][0].id = 0;
	snap->rows[SNAP_SYSTEM][0].ncpus = w->total;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		w->partial[sc] = WORK_ZARRAY(w, w->nrows[sc], bool);
	mark_partial(in, rm, w->nrows, snap, w->partial);
	return snap;
}
