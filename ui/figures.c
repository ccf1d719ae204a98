/* figures.c: what a row of the dashboard shows, beneath every other file
 * of ui/: the view in force, the CPUs the filters keep, and a row's
 * figures (a metric with its coverage and uncertainty; a task's share on
 * the kept CPUs). No curses here. */
#include "config.h"
#include "uiint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

double ui_metric(struct ui *u, const struct snap_row *r, int metric, double *cov, double *rse)
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
	if (rse)
		*rse = snap_metric_rse(u->snap, r, metric);
	return v;
}
