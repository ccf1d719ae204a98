/* output_table.c: the plain batch table, one block per interval, in the
 * spirit of `perf stat -I` but one row per CPU and one column per metric. */
#include "config.h"
#include "output_impl.h"
#include "uncertainty.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define COLW 9
/* A heading longer than this is cut at its end, never at its start. */
#define COLW_MAX 24

/* Every column's heading and width: as wide as its heading, so that the
 * heading (with its unit) is never cut, within COLW..COLW_MAX. Made at
 * the first interval of a model and kept: every row of every interval
 * asked for them again, a third of the table's own work. */
static void columns(struct output *o, const struct model *m)
{
	if (o->head_model == m)
		return;
	int n = o->o.ncols + o->o.nevcols;
	free(o->heads);
	free(o->widths);
	o->heads = xcalloc((size_t)n + 1, sizeof(*o->heads));
	o->widths = xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++) {
		char *buf = o->heads[i];
		size_t len = sizeof(o->heads[i]);
		if (i < o->o.ncols)
			output_metric_heading(&m->metrics[o->cols[i]], buf, len);
		else
			snprintf(buf, len, "%s/s", m->events[o->evcols[i - o->o.ncols]].name);
		int w = (int)strlen(buf);
		o->widths[i] = w < COLW ? COLW : w > COLW_MAX ? COLW_MAX : w;
	}
	o->head_model = m;
}

static void print_heading(struct output *o, const struct snapshot *s)
{
	fprintf(o->f, "%-8s %4s %4s %4s", "CPU", "core", "ccx", "sock");
	columns(o, s->model);
	for (int i = 0; i < o->o.ncols + o->o.nevcols; i++)
		fprintf(o->f, " %*.*s", o->widths[i], o->widths[i], o->heads[i]);
	fprintf(o->f, " %5s\n", "cov%");
}

static void print_id(FILE *f, int v)
{
	if (v < 0)
		fprintf(f, " %4s", "-");
	else
		fprintf(f, " %4d", v);
}

/* A figure as the table shows it: formatted, with '~' where uncertain
 * (the same rule as on the screen, docs/uncertainty.md). */
static void print_cell(struct output *o, const struct metric_def *md, const char *fmt, double v, double rse, int w)
{
	/* " %*s" of the mark and the figure, put together by hand: two
	 * printf calls per cell were half of the table's work. */
	char cell[1 + COLW_MAX + 1 + 64];
	char buf[64];
	output_format_value(md, fmt, v, buf, sizeof(buf));
	bool marked = !isinf(v) && unc_marked(v, rse);
	size_t len = strlen(buf) + marked;
	size_t pad = (size_t)w > len ? (size_t)w - len : 0;
	cell[0] = ' ';
	memset(cell + 1, ' ', pad);
	size_t n = 1 + pad;
	if (marked)
		cell[n++] = '~';
	memcpy(cell + n, buf, strlen(buf));
	n += strlen(buf);
	fwrite(cell, 1, n, o->f);
}

static void print_row(struct output *o, const struct snapshot *s, const char *name,
		      const struct snap_row *r)
{
	const struct model *m = s->model;
	columns(o, m);
	fprintf(o->f, "%-8s", name);
	print_id(o->f, r->core);
	print_id(o->f, r->ccx);
	print_id(o->f, r->socket);
	for (int i = 0; i < o->o.ncols + o->o.nevcols; i++) {
		int w = o->widths[i];
		if (i < o->o.ncols) {
			int mi = o->cols[i];
			print_cell(o, &m->metrics[mi], o->fmts[i], snap_metric(s, r, mi), snap_metric_rse(s, r, mi), w);
		} else {
			int e = o->evcols[i - o->o.ncols];
			print_cell(o, NULL, NULL, output_event_rate(s, r, e), snap_event_rse(s, r, e), w);
		}
	}
	double cov = output_row_coverage(o, s, r);
	if (isnan(cov))
		fprintf(o->f, " %5s\n", "-");
	else
		fprintf(o->f, " %5.0f\n", cov * 100.0);
}

int output_table_write(struct output *o, const struct snapshot *s)
{
	char clock[32], name[32];
	output_clock(s->time, clock, sizeof(clock));
	char rot[32] = "";
	if (s->rotate_ms > 0)
		snprintf(rot, sizeof(rot), "  rotate %.0f ms", s->rotate_ms);
	else if (s->rotate_ms == 0)
		snprintf(rot, sizeof(rot), "  rotate kernel");
	fprintf(o->f, "%s# %s  interval %.2f s%s  model %s%s\n", o->written ? "\n" : "", clock,
		s->interval_s, rot, s->model->name, s->simulated ? "  SIMULATED" : "");
	for (int i = 0; i < s->noffline; i++)
		fprintf(o->f, "# CPU %d offline\n", s->offline[i]);
	for (int i = 0; i < s->nreturning; i++)
		fprintf(o->f, "# CPU %d back online, counted from the next interval\n", s->returning[i]);
	print_heading(o, s);
	for (int i = 0; i < s->nrows[SNAP_CPU]; i++) {
		const struct snap_row *r = &s->rows[SNAP_CPU][i];
		snprintf(name, sizeof(name), "%d", r->cpu);
		print_row(o, s, name, r);
	}
	if (o->o.show_ccx) {
		for (int i = 0; i < s->nrows[SNAP_CCX]; i++) {
			const struct snap_row *r = &s->rows[SNAP_CCX][i];
			snprintf(name, sizeof(name), "ccx%d", r->id);
			print_row(o, s, name, r);
		}
	}
	if (s->nrows[SNAP_SYSTEM] > 0)
		print_row(o, s, "all", &s->rows[SNAP_SYSTEM][0]);
	return 0;
}

/* A tasks view: the busiest processes, then cgroups, with their figures
 * (marked '~' where uncertain, as on the screen) and the CPUs they ran on. */
static void print_task(struct output *o, const struct snapshot *s, const struct snap_task *t)
{
	const struct model *m = s->model;
	char cpus[64];
	columns(o, m);
	if (t->comm)
		fprintf(o->f, "%7d %-16.16s", t->pid, t->comm);
	else
		fprintf(o->f, "%7d %-16.16s", t->nprocs, "");
	for (int i = 0; i < o->o.ncols; i++) {
		int w = o->widths[i];
		int mi = o->cols[i];
		print_cell(o, &m->metrics[mi], o->fmts[i], t->metric[mi], t->metric_rse[mi], w);
	}
	/* The cgroup before the CPUs: a long CPU list ends the line, cut. */
	cpulist_format(t->cpus, t->ncpus, cpus, 40);
	fprintf(o->f, " %5.0f  %-32s %s\n", t->cov * 100.0, t->cgroup, cpus);
}

int output_table_tasks(struct output *o, const struct snapshot *s)
{
	char clock[32];
	output_clock(s->time, clock, sizeof(clock));
	columns(o, s->model);
	fprintf(o->f, "%s# %s  interval %.2f s  model %s%s  %d processes, %d cgroups, %d samples/s per event per CPU",
		o->written ? "\n" : "", clock, s->interval_s, s->model->name, s->simulated ? "  SIMULATED" : "",
		s->ntasks, s->ncgroups, s->task_freq);
	if (s->tasks_lost > 0)
		fprintf(o->f, ", %ld samples lost", s->tasks_lost);
	fputc('\n', o->f);
	if (!s->tasks_on)
		fputs("# per-task figures are not available\n", o->f);
	for (int k = 0; k < 2; k++) {
		fprintf(o->f, "%7s %-16s", k ? "PROCS" : "PID", k ? "" : "COMMAND");
		for (int i = 0; i < o->o.ncols; i++)
			fprintf(o->f, " %*.*s", o->widths[i], o->widths[i], o->heads[i]);
		fprintf(o->f, " %5s  %-32s %s\n", "cov%", "CGROUP", "CPUS");
		const struct snap_task *rows = k ? s->cgroups : s->tasks;
		int n = output_task_rows(o, k ? s->ncgroups : s->ntasks);
		for (int i = 0; i < n; i++)
			print_task(o, s, &rows[i]);
	}
	return 0;
}
