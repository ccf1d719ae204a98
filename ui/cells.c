/* cells.c: the kinds of table column, in one table (as htop's process
 * fields): for each, how it sorts, how it is aligned, whether it holds a
 * measured figure, how the search finds a row by it, the text of its cell
 * (with the level its view's thresholds give it and the coverage of its
 * figure) and its sort key. The table draws the cells and the search reads
 * them. No curses here. */
#include "config.h"
#include "ui_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "util.h"

static double event_rate(const struct ui *u, const struct snap_row *r, int e, double *cov)
{
	*cov = NAN;
	if (!r || !u->snap || e < 0 || e >= u->snap->nevents)
		return NAN;
	*cov = snap_event_cov(u->snap, r, e);
	double iv = u->snap->measured_s > 0 ? u->snap->measured_s : NAN;
	return snap_event(u->snap, r, e) / iv;
}

/* Cells: each writes buf (len bytes) and returns it; *level and *cov are
 * set where the cell holds a figure (draw_cell starts them at -1, NaN). */
#define CELL_ARGS const struct ui *u, const struct ui_col *c, const struct ui_row *row, char *buf, int len, \
	int *level, double *cov_out

static const char *cell_cpu(CELL_ARGS)
{
	(void)c, (void)level, (void)cov_out;
	switch (u->nav.rows) {
	case ROWS_CORE:       /* the core's CPUs, e.g. "0,192" */
		format_cpulist(buf, len, u->topo->cores[row->core].cpus, u->topo->cores[row->core].ncpus, false);
		break;
	case ROWS_CCX:        /* "0-7,128-135" */
		format_cpulist(buf, len, u->topo->ccxs[row->ccx].cpus, u->topo->ccxs[row->ccx].ncpus, true);
		break;
	case ROWS_SOCKET: {
		int k = topo_socket_index(u->topo, row->socket);
		if (k >= 0)
			format_cpulist(buf, len, u->topo->sockets[k].cpus, u->topo->sockets[k].ncpus, true);
		else
			snprintf(buf, (size_t)len, "-");
		break;
	}
	default:
		snprintf(buf, (size_t)len, "%d", row->cpu);
	}
	return buf;
}

static const char *cell_core(CELL_ARGS)
{
	(void)u, (void)c, (void)level, (void)cov_out;
	snprintf(buf, (size_t)len, "%d", row->core);
	return buf;
}

static const char *cell_socket(CELL_ARGS)
{
	(void)u, (void)c, (void)level, (void)cov_out;
	snprintf(buf, (size_t)len, "%d", row->socket);
	return buf;
}

static const char *cell_ccx(CELL_ARGS)
{
	(void)u, (void)c, (void)level, (void)cov_out;
	if (row->ccx < 0)
		snprintf(buf, (size_t)len, "-");
	else
		snprintf(buf, (size_t)len, "%d", row->ccx);
	return buf;
}

static const char *cell_pid(CELL_ARGS)
{
	(void)c, (void)level, (void)cov_out;
	if (row->task && row->task->pid < 0 && u->task_tree)
		buf[0] = 0;           /* a cgroup of the tree: no pid, and its name says what it is */
	else if (row->task)
		snprintf(buf, (size_t)len, "%d", row->task->pid >= 0 ? row->task->pid : row->task->nprocs);
	else
		snprintf(buf, (size_t)len, "-");
	return buf;
}

static const char *cell_name(CELL_ARGS)
{
	(void)level, (void)cov_out;
	/* F5's tree: indented by depth, a cgroup by the last part of its
	 * path and a '/' after it, a process by its name. */
	if (row->task && u->task_tree && c->kind == COL_COMM) {
		const struct snap_task *t = row->task;
		const char *leaf = t->pid < 0 ? ui_cgroup_leaf(t->cgroup) : t->comm;
		snprintf(buf, (size_t)len, "%*s%s%s", 2 * row->depth, "", leaf ? leaf : "-",
			 t->pid < 0 && t->cgroup && t->cgroup[0] == '/' && t->cgroup[1] ? "/" : "");
		return buf;
	}
	/* Sanitised when sampled (tasks.c): no byte of it can act on the terminal. */
	snprintf(buf, (size_t)len, "%s", !row->task ? "-" : c->kind == COL_COMM ? row->task->comm : row->task->cgroup);
	return buf;
}

/* A fleet's host (--fleet): its name, and what it says (why '-'). */
const struct snap_host *ui_row_host(const struct ui *u, const struct ui_row *row)
{
	const struct snapshot *s = u->snap;
	return s && s->hosts && !row->task && row->cpu >= 0 && row->cpu < s->nhosts ? &s->hosts[row->cpu] : NULL;
}

const char *ui_host_state(const struct snap_host *h)
{
	return !h ? "-" : h->status ? h->status : h->simulated ? "SIMULATED" : "ok";
}

static const char *cell_host(CELL_ARGS)
{
	(void)level, (void)cov_out;
	const struct snap_host *h = ui_row_host(u, row);
	if (c->kind == COL_HOST)
		snprintf(buf, (size_t)len, "%s", h ? h->name : "-");
	else if (h && *h->model)
		snprintf(buf, (size_t)len, "%s %s", h->model, ui_host_state(h));
	else
		snprintf(buf, (size_t)len, "%s", ui_host_state(h));
	return buf;
}

static const char *cell_here(CELL_ARGS)
{
	(void)c, (void)level, (void)cov_out;
	double v = ui_task_here(u, row->task);
	if (isnan(v))
		snprintf(buf, (size_t)len, "-");
	else
		snprintf(buf, (size_t)len, "%.1f", v);
	return buf;
}

static const char *cell_where(CELL_ARGS)
{
	(void)u, (void)c, (void)level, (void)cov_out;
	if (row->task)
		cpulist_format(row->task->cpus, row->task->ncpus, buf, (size_t)len);
	else
		snprintf(buf, (size_t)len, "-");
	return buf;
}

/* The snapshot row a metric column reads for a table row: the row's own,
 * or its CCX's or socket's where the column shows a wider group's figure
 * (ui_col.from). */
static const struct snap_row *metric_row(const struct ui *u, const struct ui_col *c, const struct ui_row *row)
{
	if (c->from < 0 || !u->snap)
		return row->r;
	switch (c->from) {
	case SCOPE_CCX:
		return row->ccx >= 0 ? ui_scope_row(u->snap, SNAP_CCX, row->ccx) : NULL;
	case SCOPE_SOCKET: {
		int k = topo_socket_index(u->topo, row->socket);
		return k >= 0 ? ui_scope_row(u->snap, SNAP_SOCKET, k) : NULL;
	}
	default:
		return ui_scope_row(u->snap, SNAP_SYSTEM, 0);
	}
}

static const char *cell_metric(CELL_ARGS)
{
	double v, cov, rse;
	if (row->task) {
		v = row->task->metric[c->idx];
		rse = row->task->metric_rse[c->idx];
		if (!isnan(v))
			*cov_out = row->task->cov;
		if (c->vc)
			*level = format_level(v, c->vc->warn, c->vc->crit, c->vc->low_is_bad);
		return format_value_rse(buf, len, v, rse, u->nav.show_err, c->vc ? c->vc->fmt : NULL,
				 u->m->metrics[c->idx].unit);
	}
	v = ui_metric(u, metric_row(u, c, row), c->idx, &cov, &rse);
	if (c->vc)
		*level = format_level(v, c->vc->warn, c->vc->crit, c->vc->low_is_bad);
	if (!isnan(v))
		*cov_out = cov;
	return format_value_rse(buf, len, v, rse, u->nav.show_err, c->vc ? c->vc->fmt : NULL,
			 u->m->metrics[c->idx].unit);
}

static const char *cell_event(CELL_ARGS)
{
	(void)level;
	double cov;
	double v = event_rate(u, row->r, c->idx, &cov);
	double rse = ui_event_rse(u, row->r, c->idx);
	if (!isnan(v))
		*cov_out = cov;
	return format_value_rse(buf, len, v, rse, u->nav.show_err, NULL, "/s");
}

static const char *cell_none(CELL_ARGS)
{
	(void)u, (void)c, (void)row, (void)len, (void)level, (void)cov_out;
	buf[0] = 0;
	return buf;
}

/* Sort keys: the value a row is sorted by; NaN sorts last in either
 * direction (a name column sorts by its text: rows.c). */
#define KEY_ARGS const struct ui *u, const struct ui_col *c, const struct ui_row *row

static double key_cpu(KEY_ARGS) { (void)u, (void)c; return row->cpu; }
static double key_core(KEY_ARGS) { (void)u, (void)c; return row->core; }
static double key_ccx(KEY_ARGS) { (void)u, (void)c; return row->ccx; }
static double key_socket(KEY_ARGS) { (void)u, (void)c; return row->socket; }
static double key_none(KEY_ARGS) { (void)u, (void)c, (void)row; return NAN; }

static double key_metric(KEY_ARGS)
{
	if (row->task)
		return row->task->metric[c->idx];
	return ui_metric(u, metric_row(u, c, row), c->idx, NULL, NULL);
}

static double key_pid(KEY_ARGS)
{
	(void)u, (void)c;
	return row->task ? (row->task->pid >= 0 ? row->task->pid : row->task->nprocs) : NAN;
}

static double key_where(KEY_ARGS)
{
	(void)u, (void)c;
	return row->task ? row->task->ncpus : NAN;
}

static double key_here(KEY_ARGS)
{
	(void)c;
	return ui_task_here(u, row->task);
}

static double key_event(KEY_ARGS)
{
	if (row->r && u->snap)
		return snap_event(u->snap, row->r, c->idx);
	return NAN;
}

/* Each kind of column: identity columns sort ascending, values descending
 * (the busiest first, as in top); names and CPU lists are text, aligned
 * left; metrics and events are measured figures with an uncertainty; a
 * row is searched for by its CPU or pid number, or its name or cgroup
 * (figures change under the search); the bar sorts by CPU. */
static const struct col_kind_info col_kinds[] = {
	[COL_CPU] = { .search = '=', .cell = cell_cpu, .key = key_cpu },
	[COL_CORE] = { .cell = cell_core, .key = key_core },
	[COL_CCX] = { .cell = cell_ccx, .key = key_ccx },
	[COL_SOCKET] = { .cell = cell_socket, .key = key_socket },
	[COL_METRIC] = { .descending = true, .figure = true, .cell = cell_metric, .key = key_metric },
	[COL_EVENT] = { .descending = true, .figure = true, .cell = cell_event, .key = key_event },
	[COL_BAR] = { .bar = true, .cell = cell_none, .key = key_cpu },
	[COL_PID] = { .search = '=', .cell = cell_pid, .key = key_pid },
	[COL_COMM] = { .left = true, .by_name = true, .search = '~', .cell = cell_name, .key = key_none },
	[COL_CGROUP] = { .left = true, .by_name = true, .search = '~', .cell = cell_name, .key = key_none },
	[COL_WHERE] = { .descending = true, .left = true, .cell = cell_where, .key = key_where },
	[COL_HERE] = { .descending = true, .cell = cell_here, .key = key_here },
	[COL_HOST] = { .left = true, .by_name = true, .search = '~', .cell = cell_host, .key = key_none },
	[COL_STATUS] = { .left = true, .by_name = true, .search = '~', .cell = cell_host, .key = key_none },
};

const struct col_kind_info *ui_col_info(enum col_kind k)
{
	static const struct col_kind_info none = { .cell = cell_none, .key = key_none };
	return (unsigned)k < ARRAY_SIZE(col_kinds) ? &col_kinds[k] : &none;
}

const char *draw_cell(const struct ui *u, const struct ui_col *c, const struct ui_row *row,
		      char *buf, int len, int *level, double *cov_out)
{
	*level = -1;
	*cov_out = NAN;
	return ui_col_info(c->kind)->cell(u, c, row, buf, len, level, cov_out);
}
