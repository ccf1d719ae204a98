/* fleet_drill_topo.c: the snapshot of a drilled host's rows (fleet_impl.h,
 * drill_snapshot_new) and, where those rows are CPUs that carry the
 * exporter's core, ccx and socket labels (--export-scope cpu), the host's
 * topology made from those labels, with a row per core and per CCX: what
 * the CCX panels draw, as they do on one host. A core's or a CCX's
 * figures are its CPUs' counters summed before dividing (both modes fill
 * d->grp); the topology numbers the CPUs as the rows (cpu = row index),
 * so that the panels' CPUs are the table's rows. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "topo.h"
#include "util.h"

/* The topology of d's CPU rows, or NULL where a row lacks a ccx label. */
static struct topo *labels_topo(const struct drill_rows *d)
{
	if (d->k != 0 || d->n < 1)
		return NULL;
	struct topo_cpu *c = xcalloc((size_t)d->n, sizeof(*c));
	bool ok = true;
	for (int r = 0; r < d->n && ok; r++) {
		const long *p = &d->place[r * 3];
		ok = p[1] >= 0 && p[1] < 1L << 30 && p[0] < 1L << 30 && p[2] < 1L << 30;
		c[r].cpu = r;
		c[r].online = c[r].has_topology = true;
		/* A CPU without a core label is a core of its own. */
		c[r].core_id = p[0] >= 0 ? (int)p[0] : (1 << 30) + r;
		c[r].package_id = p[2] >= 0 ? (int)p[2] : 0;
		c[r].l3_id = (int)p[1];
		c[r].l3_first = 0;
	}
	char *cause = NULL;
	struct topo *t = ok ? topo_from_cpus(c, d->n, 1, &cause) : NULL;
	free(cause);
	free(c);
	return t;
}

/* The figures of group g (0: core, 1: CCX) whose label value is id into
 * row; their error the highest of its CPUs' (as a group of hosts' is the
 * highest of theirs), their coverage the lowest. */
static void group_row(const struct fleet *f, const struct drill_rows *d, struct snapshot *s, struct snap_row *row,
		      int g, long id)
{
	int nc = f->cols->n;
	for (int i = 0; i < d->grp[g].n; i++) {
		if (d->grp[g].ids[i] != id)
			continue;
		for (int c = 0; c < nc; c++) {
			int mc = snap_mcol(s, c);
			double v = d->grp[g].v[i * nc + c], rse = 0, cov = 1;
			for (int r = 0; r < d->n; r++) {
				if (d->place[r * 3 + g] != id)
					continue;
				double e = d->rse[r * nc + c], cv = d->cov[r * nc + c];
				rse = isnan(e) || isnan(rse) ? NAN : fmax(rse, e);
				cov = isnan(cv) ? cov : fmin(cov, cv);
			}
			row->mv[mc] = v;
			row->mrse[mc] = isnan(v) ? NAN : rse;
			row->mcov[mc] = isnan(v) ? NAN : cov;
		}
	}
}

struct snapshot *drill_snapshot_new(struct fleet *f, const struct drill_rows *d)
{
	struct topo *t = labels_topo(d);
	int nrows[SNAP_NSCOPES] = { 0 };
	nrows[SNAP_CPU] = d->n;
	nrows[SNAP_CORE] = t ? t->ncores : 0;
	nrows[SNAP_CCX] = t ? t->nccx : 0;
	nrows[SNAP_SYSTEM] = 1;
	struct snapshot *s = fleet_snapshot_new_rows(f, nrows);
	s->drill_topo = t;
	for (int i = 0; i < d->n; i++) {
		struct snap_row *row = &s->rows[SNAP_CPU][i];
		row->id = row->cpu = i;
		const struct topo_cpu *c = t ? &t->cpus[i] : NULL;
		row->core = c ? c->core : -1;
		row->ccx = c ? c->ccx : -1;
		row->socket = c ? c->socket : -1;
	}
	for (int j = 0; t && j < t->ncores; j++) {
		const struct topo_core *co = &t->cores[j];
		struct snap_row *row = &s->rows[SNAP_CORE][j];
		row->id = row->core = j;
		row->cpu = -1;
		row->ccx = co->ccx;
		row->socket = co->socket;
		row->ncpus = co->ncpus;
		if (co->ncpus > 0)
			group_row(f, d, s, row, 0, d->place[co->cpus[0] * 3]);
	}
	for (int j = 0; t && j < t->nccx; j++) {
		const struct topo_ccx *cx = &t->ccxs[j];
		struct snap_row *row = &s->rows[SNAP_CCX][j];
		row->id = row->ccx = j;
		row->cpu = row->core = -1;
		row->socket = cx->socket;
		row->ncpus = cx->ncpus;
		group_row(f, d, s, row, 1, cx->l3_id);
	}
	return s;
}
