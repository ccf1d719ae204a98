/* fleet_groups.c: a fleet's hosts grouped by each label they carry (the
 * model their exporter names, then every other label, by name: job,
 * rack, zone...), for the dashboard's group panels and batch output.
 * A group's figure is made as the fleet's total is, over its hosts alone:
 * each column's numerator and denominator terms (the hosts' num and den,
 * from their scrapes in direct mode, from the column's own query in
 * Prometheus mode) combined before dividing, so a group's IPC is its
 * instructions over its cycles, never a mean of its hosts' IPCs; its
 * error the highest of its hosts', as the total's. A stale host is left
 * out of the figures, as from the total; a host that left the fleet is
 * in no group. One pass over the hosts per label: 1,000 hosts in
 * hundreds of racks cost no more than in three zones. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "name_index.h"
#include "util.h"

/* The most labels grouped by (model and 15 more): what a `g` cycles. */
#define MAX_LABELS 16

/* Host h's value of label key ("" where it has none). */
static const char *value_of(const struct host *h, const char *key)
{
	if (!strcmp(key, "model"))
		return h->model ? h->model : "";
	for (int k = 0; k < h->nlabels; k++)
		if (!strcmp(h->lkeys[k], key))
			return h->lvals[k];
	return "";
}

/* A label's value and its group, to sort the groups by value (rack2
 * before rack10). */
struct ranked {
	const char *value;
	int g;
};
static int by_value(const void *a, const void *b)
{
	return strverscmp(((const struct ranked *)a)->value, ((const struct ranked *)b)->value);
}

/* The groups of label key, appended to s's, sorted by value. */
static void label_groups(const struct fleet *f, struct snapshot *s, const char *key, const bool *member, int *gi)
{
	int nv = 0;
	const char **vals = xcalloc((size_t)f->nhosts + 1, sizeof(char *));
	struct name_index *ix = name_index_new();
	for (int i = 0; i < f->nhosts; i++) {
		gi[i] = -1;
		if (!member[i])
			continue;
		const char *v = value_of(&f->hosts[i], key);
		int g = name_index_find(ix, v);
		if (g < 0) {
			g = nv;
			vals[nv++] = v;
			name_index_add(ix, v, g);
		}
		gi[i] = g;
	}
	name_index_free(ix);
	/* Sorted by value: order[r] is the value of rank r, rank[g] its rank. */
	struct ranked *order = xcalloc((size_t)nv + 1, sizeof(*order));
	int *rank = xcalloc((size_t)nv + 1, sizeof(int));
	for (int g = 0; g < nv; g++)
		order[g] = (struct ranked){ vals[g], g };
	qsort(order, (size_t)nv, sizeof(*order), by_value);
	for (int r = 0; r < nv; r++)
		rank[order[r].g] = r;
	int first = s->ngroups, nm = s->nmetrics, nc = f->cols->n;
	s->groups = xrealloc(s->groups, sizeof(*s->groups) * (size_t)(first + nv + 1));
	for (int r = 0; r < nv; r++) {
		struct snap_group *g = &s->groups[first + r];
		memset(g, 0, sizeof(*g));
		g->label = xstrdup(key);
		g->value = xstrdup(order[r].value);
		g->v = xcalloc((size_t)nm + 1, sizeof(double));
		g->rse = xcalloc((size_t)nm + 1, sizeof(double));
	}
	s->ngroups += nv;
	/* Each group's terms, combined host by host as the total's are. */
	double *num = xcalloc((size_t)nv * (size_t)nc + 1, sizeof(double));
	double *den = xcalloc((size_t)nv * (size_t)nc + 1, sizeof(double));
	int *n = xcalloc((size_t)nv * (size_t)nc + 1, sizeof(int));
	for (int i = 0; i < f->nhosts; i++) {
		if (gi[i] < 0)
			continue;
		int r = rank[gi[i]];
		struct snap_group *g = &s->groups[first + r];
		g->nhosts++;
		const struct host *h = &f->hosts[i];
		const struct snap_row *row = &s->rows[SNAP_CPU][i];
		for (int c = 0; c < nc && c < nm; c++) {
			/* The error: the highest of the hosts shown with a figure. */
			double e = snap_metric_rse(s, row, c);
			if (!isnan(snap_metric(s, row, c)))
				g->rse[c] = isnan(e) || isnan(g->rse[c]) ? NAN : fmax(g->rse[c], e);
			if (h->stale || isnan(h->num[c]) || isnan(h->den[c]))
				continue;
			const struct fleet_col *col = &f->cols->cols[c];
			size_t at = (size_t)r * (size_t)nc + (size_t)c;
			num[at] = fleet_combine(col->num.agg, num[at], h->num[c], n[at]);
			den[at] = fleet_combine(col->den.agg, den[at], h->den[c], n[at]);
			n[at]++;
		}
	}
	for (int r = 0; r < nv; r++) {
		struct snap_group *g = &s->groups[first + r];
		for (int c = 0; c < nc && c < nm; c++) {
			size_t at = (size_t)r * (size_t)nc + (size_t)c;
			double v = f->cols->cols[c].scale * num[at] / den[at];
			g->v[c] = n[at] && isfinite(v) ? v : NAN;
			if (isnan(g->v[c]))
				g->rse[c] = NAN;
		}
	}
	free(num);
	free(den);
	free(n);
	free(order);
	free(rank);
	free(vals);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void fleet_groups(const struct fleet *f, struct snapshot *s)
{
	if (f->nhosts == 0)
		return;
	/* The hosts still in the fleet; the labels they carry, model first. */
	bool *member = xcalloc((size_t)f->nhosts, sizeof(bool));
	const char *labels[MAX_LABELS];
	int nl = 0;
	labels[nl++] = "model";
	for (int i = 0; i < f->nhosts; i++) {
		const struct host *h = &f->hosts[i];
		member[i] = !h->removed && !(h->status && !strncmp(h->status, "gone", 4));
		for (int k = 0; member[i] && k < h->nlabels; k++) {
			bool seen = false;
			for (int j = 0; j < nl && !seen; j++)
				seen = !strcmp(labels[j], h->lkeys[k]);
			if (!seen && nl < MAX_LABELS)
				labels[nl++] = h->lkeys[k];
		}
	}
	qsort(labels + 1, (size_t)(nl - 1), sizeof(char *), by_name);
	int *gi = xcalloc((size_t)f->nhosts, sizeof(int));
	for (int l = 0; l < nl; l++)
		label_groups(f, s, labels[l], member, gi);
	free(gi);
	free(member);
}
