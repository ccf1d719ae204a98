/* figures.c: what a row of the dashboard shows, beneath every other file
 * of ui/: the view in force, the CPUs the filters keep, and a row's
 * figures (a metric with its coverage and uncertainty; a task's share on
 * the kept CPUs). Snapshots are read through const pointers only: a
 * row's errors that the interval left for later come from the snapshot's
 * own error source (snap_metric_rse), the same whenever they are read.
 * No curses here. */
#include "config.h"
#include "ui_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "source.h"
#include "util.h"

const struct view_def *ui_cur_view(const struct ui *u)
{
	if (u->nviews < 1 || u->nav.view < 0 || u->nav.view >= u->nviews)
		return NULL;
	return &u->views[u->nav.view];
}

bool ui_tasks_view(const struct ui *u)
{
	const struct view_def *v = ui_cur_view(u);
	return v && v->tasks;
}

bool ui_cpu_shown(const struct ui *u, int cpu)
{
	if (cpu < 0 || cpu >= u->topo->max_cpu)
		return false;
	if (u->cfg->cpu_filter && !u->cfg->cpu_filter[cpu])
		return false;
	return u->filter[cpu];
}

double ui_task_here(const struct ui *u, const struct snap_task *t)
{
	const struct view_def *v = ui_cur_view(u);
	if (!t || !v || !v->tasks || v->ncols < 1)
		return NAN;
	double share = 0;
	for (int i = 0; i < t->ncpus; i++)
		if (ui_cpu_shown(u, t->cpus[i]))
			share += t->cpu_share[i];
	return t->metric[v->cols[0].metric] * share;
}

const struct snap_row *ui_scope_row(const struct snapshot *s, enum snap_scope sc, int id)
{
	return snapshot_row(s, sc, id);
}

/* A row of u->snap whose errors are read: noted as one the screen reads,
 * so that the next intervals find its errors at once (a hint: read or
 * not, they are the same). The note goes into the frame's record
 * (err_read, reset by ui_errors_frame_begin), not into u itself: a frame
 * reads u through a const pointer, as it reads the snapshot. */
static void errors_read(const struct ui *u, const struct snap_row *r)
{
	int i, sc = snapshot_row_scope(u->snap, r, &i);
	if (sc >= 0 && i < u->err_nrows[sc] && u->err_read[sc])
		u->err_read[sc][i] = true;
}

void ui_errors_frame_begin(struct ui *u)
{
	const struct snapshot *s = u->snap;
	for (int sc = 0; s && sc < SNAP_NSCOPES; sc++) {
		int n = s->nrows[sc];
		if (n != u->err_nrows[sc]) {
			free(u->err_read[sc]);
			free(u->err_told[sc]);
			u->err_read[sc] = n ? xcalloc((size_t)n, 1) : NULL;
			u->err_told[sc] = n ? xcalloc((size_t)n, 1) : NULL;
			u->err_nrows[sc] = n;
			u->err_told_any = false;
		} else if (n) {
			memset(u->err_read[sc], 0, (size_t)n);
		}
	}
}

void ui_errors_frame_end(struct ui *u)
{
	if (!u->snap)
		return;
	bool same = u->err_told_any;
	for (int sc = 0; sc < SNAP_NSCOPES && same; sc++)
		same = !u->err_nrows[sc] || !memcmp(u->err_read[sc], u->err_told[sc], (size_t)u->err_nrows[sc]);
	if (same)
		return;
	struct derive_want want = { 0 };
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		want.rows[sc] = u->err_read[sc];
		want.nrows[sc] = u->err_nrows[sc];
		if (u->err_nrows[sc])
			memcpy(u->err_told[sc], u->err_read[sc], (size_t)u->err_nrows[sc]);
	}
	/* A one-way hint to the source of which rows to find at once. */
	source_hint_rows(u->src, &want);
	u->err_told_any = true;
}

void ui_errors_done(struct ui *u)
{
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		free(u->err_read[sc]);
		free(u->err_told[sc]);
		u->err_read[sc] = u->err_told[sc] = NULL;
		u->err_nrows[sc] = 0;
	}
}

double ui_event_rse(const struct ui *u, const struct snap_row *r, int e)
{
	if (!r || !u->snap)
		return NAN;
	errors_read(u, r);
	return snap_event_rse(u->snap, r, e);
}

double ui_metric(const struct ui *u, const struct snap_row *r, int metric, double *cov, double *rse)
{
	if (cov)
		*cov = NAN;
	if (rse)
		*rse = NAN;
	if (!r || !u->snap || metric < 0 || metric >= u->snap->nmetrics)
		return NAN;
	double v = snap_metric(u->snap, r, metric);
	if (cov)
		*cov = snap_metric_cov(u->snap, r, metric);
	if (rse) {
		errors_read(u, r);
		*rse = snap_metric_rse(u->snap, r, metric);
	}
	return v;
}

double ui_l3_rate(const struct ui *u, int rate, int acc, const struct snap_row *r, double *cov, double *rse)
{
	if (rate >= 0)
		return ui_metric(u, r, rate, cov, rse);
	double v = ui_metric(u, r, acc, cov, rse);
	/* A figure of unit count is published per second already (derive.c
	 * divides it by the interval): divided again, the first interval
	 * after a view switch (a quarter of a second) showed four times the
	 * L3 rate, and every interval of another length was off by as much. */
	if (acc >= 0 && !format_unit_is_count(u->m->metrics[acc].unit))
		v = u->snap && u->snap->measured_s > 0 ? v / u->snap->measured_s : NAN;
	return v;
}
