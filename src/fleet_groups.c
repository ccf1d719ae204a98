/* fleet_groups.c: a fleet's hosts grouped by a label they carry (direct
 * mode: the model their exporter names), for the dashboard's group
 * panels. A group's figure is the fleet's total made over its hosts
 * alone (fleet_direct_total: the terms summed before dividing, so a
 * group's IPC is its instructions over its cycles, never a mean of its
 * hosts' IPCs); its error the highest of its hosts', as the total's. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "util.h"

/* The group of hosts whose model is value, made from snapshot s's host
 * rows (their errors) and f's hosts (their terms). */
static void group(const struct fleet *f, const struct snapshot *s, struct snap_group *g, const char *value,
		  bool *in)
{
	g->label = xstrdup("model");
	g->value = xstrdup(value);
	for (int i = 0; i < f->nhosts; i++) {
		in[i] = !strcmp(f->hosts[i].model ? f->hosts[i].model : "", value);
		g->nhosts += in[i];
	}
	g->v = xcalloc((size_t)s->nmetrics + 1, sizeof(double));
	g->rse = xcalloc((size_t)s->nmetrics + 1, sizeof(double));
	for (int c = 0; c < f->cols->n && c < s->nmetrics; c++) {
		g->v[c] = fleet_direct_total(f, c, in);
		double rse = 0;
		for (int i = 0; i < f->nhosts; i++) {
			const struct snap_row *r = &s->rows[SNAP_CPU][i];
			double e = snap_metric_rse(s, r, c);
			if (!in[i] || isnan(snap_metric(s, r, c)))
				continue;
			rse = isnan(e) || isnan(rse) ? NAN : fmax(rse, e);
		}
		g->rse[c] = isnan(g->v[c]) ? NAN : rse;
	}
}

void fleet_groups(const struct fleet *f, struct snapshot *s)
{
	if (f->nhosts == 0)
		return;
	bool *in = xcalloc((size_t)f->nhosts, sizeof(bool));
	s->groups = xcalloc((size_t)f->nhosts, sizeof(*s->groups));
	/* One group per model, in the order the hosts first name them. */
	for (int i = 0; i < f->nhosts; i++) {
		const char *v = f->hosts[i].model ? f->hosts[i].model : "";
		bool seen = false;
		for (int k = 0; k < s->ngroups && !seen; k++)
			seen = !strcmp(s->groups[k].value, v);
		if (!seen)
			group(f, s, &s->groups[s->ngroups++], v, in);
	}
	free(in);
}
