/* cells.c: the text of a table cell, by its column's kind, with the
 * level its view's thresholds give it and the coverage of its figure: the
 * table draws it, and the search reads it. No curses here. */
#include "config.h"
#include "uiint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "util.h"

static double event_rate(struct ui *u, const struct snap_row *r, int e, double *cov)
{
	*cov = NAN;
	if (!r || !u->snap || !r->event || e < 0 || e >= u->snap->nevents)
		return NAN;
	if (r->event_cov)
		*cov = r->event_cov[e];
	double iv = u->snap->interval_s > 0 ? u->snap->interval_s : NAN;
	return r->event[e] / iv;
}

const char *draw_cell(struct ui *u, const struct ui_col *c, const struct ui_row *row,
		      char *buf, int len, int *level, double *cov_out)
{
	double v, cov, rse;
	*level = -1;
	*cov_out = NAN;
	switch (c->kind) {
	case COL_CPU:
		switch (u->nav.rows) {
		case ROWS_CORE:       /* the core's CPUs, e.g. "0,192" */
			fmt_cpulist(buf, len, u->topo->cores[row->core].cpus, u->topo->cores[row->core].ncpus, false);
			break;
		case ROWS_CCX:        /* "0-7,128-135" */
			fmt_cpulist(buf, len, u->topo->ccxs[row->ccx].cpus, u->topo->ccxs[row->ccx].ncpus, true);
			break;
		case ROWS_SOCKET: {
			int k = topo_socket_index(u->topo, row->socket);
			if (k >= 0)
				fmt_cpulist(buf, len, u->topo->sockets[k].cpus, u->topo->sockets[k].ncpus, true);
			else
				snprintf(buf, (size_t)len, "-");
			break;
		}
		default:
			snprintf(buf, (size_t)len, "%d", row->cpu);
		}
		return buf;
	case COL_CORE:
		snprintf(buf, (size_t)len, "%d", row->core);
		return buf;
	case COL_SOCKET:
		snprintf(buf, (size_t)len, "%d", row->socket);
		return buf;
	case COL_CCX:
		if (row->ccx < 0)
			snprintf(buf, (size_t)len, "-");
		else
			snprintf(buf, (size_t)len, "%d", row->ccx);
		return buf;
	case COL_PID:
		if (row->task)
			snprintf(buf, (size_t)len, "%d", row->task->pid >= 0 ? row->task->pid : row->task->nprocs);
		else
			snprintf(buf, (size_t)len, "-");
		return buf;
	case COL_COMM:
	case COL_CGROUP:
		/* Sanitised when sampled (tasks.c): no byte of it can act on the terminal. */
		snprintf(buf, (size_t)len, "%s", !row->task ? "-" : c->kind == COL_COMM ? row->task->comm : row->task->cgroup);
		return buf;
	case COL_HERE:
		v = ui_task_here(u, row->task);
		if (isnan(v))
			snprintf(buf, (size_t)len, "-");
		else
			snprintf(buf, (size_t)len, "%.1f", v);
		return buf;
	case COL_WHERE:
		if (row->task)
			cpulist_format(row->task->cpus, row->task->ncpus, buf, (size_t)len);
		else
			snprintf(buf, (size_t)len, "-");
		return buf;
	case COL_METRIC:
		if (row->task) {
			v = row->task->metric[c->idx];
			rse = row->task->metric_rse[c->idx];
			if (!isnan(v))
				*cov_out = row->task->cov;
			if (c->vc)
				*level = fmt_level(v, c->vc->warn, c->vc->crit, c->vc->low_is_bad);
			return fmt_value(buf, len, v, rse, u->nav.show_err, c->vc ? c->vc->fmt : NULL,
					 u->m->metrics[c->idx].unit);
		}
		v = ui_metric(u, row->r, c->idx, &cov, &rse);
		if (c->vc)
			*level = fmt_level(v, c->vc->warn, c->vc->crit, c->vc->low_is_bad);
		if (!isnan(v))
			*cov_out = cov;
		return fmt_value(buf, len, v, rse, u->nav.show_err, c->vc ? c->vc->fmt : NULL,
				 u->m->metrics[c->idx].unit);
	case COL_EVENT:
		v = event_rate(u, row->r, c->idx, &cov);
		rse = row->r && row->r->event_rse ? row->r->event_rse[c->idx] : NAN;
		if (!isnan(v))
			*cov_out = cov;
		return fmt_value(buf, len, v, rse, u->nav.show_err, NULL, "/s");
	case COL_BAR:
		buf[0] = 0;
		return buf;
	}
	buf[0] = 0;
	return buf;
}
