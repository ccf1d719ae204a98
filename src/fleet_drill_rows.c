/* fleet_drill_rows.c: a drilled host's rows (fleet_impl.h, struct
 * drill_rows) as both modes fill them (fleet_drill.c, fleet_drill_prom.c):
 * the labels that place a row, and a row added in numeric order. A leaf. */
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
	d->n++;
	return j;
}
