/* fleet_drill_rows.c: a drilled host's rows (fleet_impl.h, struct
 * drill_rows) as both modes fill them (fleet_drill.c, fleet_drill_prom.c):
 * the labels that place a row, a row added in numeric order with its
 * core, CCX and socket, its groups by core and CCX. A leaf. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "util.h"

/* The labels that place a row, narrowest first (docs/exporter.md). */
const char *const fleet_placing[4] = { "cpu", "core", "ccx", "socket" };

int drill_row_add(struct fleet *f, struct drill_rows *d, long id)
{
	int j = 0, nc = f->cols->n;
	while (j < d->n && d->ids[j] < id)
		j++;
	if (j < d->n && d->ids[j] == id)
		return j;
	d->ids = xrealloc(d->ids, sizeof(long) * (size_t)(d->n + 1));
	memmove(&d->ids[j + 1], &d->ids[j], sizeof(long) * (size_t)(d->n - j));
	d->ids[j] = id;
	double **figs[3] = { &d->v, &d->rse, &d->cov };
	for (int a = 0; a < 3; a++) {
		*figs[a] = xrealloc(*figs[a], sizeof(double) * (size_t)(d->n + 1) * (size_t)nc);
		double *x = *figs[a];
		memmove(&x[(j + 1) * nc], &x[j * nc], sizeof(double) * (size_t)((d->n - j) * nc));
		for (int c = 0; c < nc; c++)
			x[j * nc + c] = NAN;
	}
	d->place = xrealloc(d->place, sizeof(long) * (size_t)(d->n + 1) * 3);
	memmove(&d->place[(j + 1) * 3], &d->place[j * 3], sizeof(long) * (size_t)((d->n - j) * 3));
	d->place[j * 3] = d->place[j * 3 + 1] = d->place[j * 3 + 2] = -1;
	d->n++;
	return j;
}

void drill_row_place(struct drill_rows *d, int r, const char *labels)
{
	for (int k = 0; k < 3; k++) {
		char *v = fleet_label(labels, fleet_placing[k + 1]);
		if (v)
			d->place[r * 3 + k] = strtol(v, NULL, 10);
		free(v);
	}
}

int drill_group_add(struct fleet *f, struct drill_rows *d, int g, long id)
{
	struct drill_group *gr = &d->grp[g];
	int nc = f->cols->n;
	for (int i = 0; i < gr->n; i++)
		if (gr->ids[i] == id)
			return i;
	gr->ids = xrealloc(gr->ids, sizeof(long) * (size_t)(gr->n + 1));
	gr->v = xrealloc(gr->v, sizeof(double) * (size_t)(gr->n + 1) * (size_t)nc);
	gr->ids[gr->n] = id;
	for (int c = 0; c < nc; c++)
		gr->v[gr->n * nc + c] = NAN;
	return gr->n++;
}

void drill_rows_done(struct drill_rows *d)
{
	free(d->ids);
	free(d->v);
	free(d->rse);
	free(d->cov);
	free(d->why);
	free(d->host);
	free(d->place);
	for (int g = 0; g < 2; g++) {
		free(d->grp[g].ids);
		free(d->grp[g].v);
	}
}
