/* output_table.c: the plain batch table, one block per interval, in the
 * spirit of `perf stat -I` but one row per CPU and one column per metric. */
#include "config.h"
#include "output_impl.h"
#include "uncertainty.h"
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "hot_path.h"

#define COLW 9
/* A heading longer than this is cut at its end, never at its start. */
#define COLW_MAX 24
/* A cell at its widest: a space, the padding or the mark, a formatted
 * figure of at most 63 bytes. */
#define CELL_MAX (1 + COLW_MAX + 64)

/* Every column's heading and width: as wide as its heading, so that the
 * heading (with its unit) is never cut, within COLW..COLW_MAX. Made at
 * the first interval of a model and kept: every row of every interval
 * asked for them again, a third of the table's own work. So is the
 * heading line, and the buffer a row is put together in. */
static void columns(struct output *o, const struct model *m)
{
	if (o->head_model == m)
		return;
	int n = o->o.ncols + o->o.nevcols;
	free(o->heads);
	free(o->widths);
	free(o->head_line);
	free(o->dash_line);
	free(o->dash_at);
	free(o->line);
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
	o->head_line = xasprintf("%-8s %4s %4s %4s", "CPU", "core", "ccx", "sock");
	for (int i = 0; i < n; i++)
		xappendf(&o->head_line, " %*.*s", o->widths[i], o->widths[i], o->heads[i]);
	xappendf(&o->head_line, " %5s\n", "cov%");
	/* Each cell as put_cell writes a figure it has not: " %*s" of "-". */
	o->dash_at = xmalloc(sizeof(int) * ((size_t)n + 1));
	size_t dlen = 0;
	for (int i = 0; i < n; i++)
		dlen += (size_t)o->widths[i] + 1;
	o->dash_line = xmalloc(dlen + 1);
	char *d = o->dash_line;
	for (int i = 0; i < n; i++) {
		o->dash_at[i] = (int)(d - o->dash_line);
		memset(d, ' ', (size_t)o->widths[i]);
		d[o->widths[i]] = '-';
		d += o->widths[i] + 1;
	}
	o->dash_at[n] = (int)(d - o->dash_line);
	*d = '\0';
	/* The longest row: a name of up to 31 characters and three ids of
	 * up to 12, each cell at its widest, and the coverage (at most 311
	 * bytes for any double, though it lies within 0..100). */
	o->line_cap = 512 + (size_t)n * CELL_MAX;
	o->line = xmalloc(o->line_cap);
	o->head_model = m;
}

/* w - len spaces at p (none where len >= w); returns the end. Up to
 * COLW_MAX of them by one fixed copy, which a row's buffer has room for
 * (a loop of stores became a call of memset per cell). */
static inline char *put_pad(char *p, size_t len, int w)
{
	static const char spaces[COLW_MAX + 1] = "                        ";   /* COLW_MAX */
	if (len >= (size_t)w)
		return p;
	size_t pad = (size_t)w - len;
	if (pad > COLW_MAX) {
		memset(p, ' ', pad);
		return p + pad;
	}
	memcpy(p, spaces, COLW_MAX);
	return p + pad;
}

/* s right-aligned in w columns (as "%*s"; never cut). */
static char *put_right(char *p, const char *s, size_t len, int w)
{
	p = put_pad(p, len, w);
	memcpy(p, s, len);
	return p + len;
}

/* " %4d", or " %4s" of "-" for an id that does not apply (v < 0). */
HOT_PATH static char *put_id(char *p, int v)
{
	char d[16];
	size_t n = sizeof(d);
	if (v < 0)
		d[--n] = '-';
	else
		do {
			d[--n] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	*p++ = ' ';
	return put_right(p, d + n, sizeof(d) - n, 4);
}

/* A figure as the table shows it: formatted, with '~' where uncertain
 * (the same rule as on the screen, docs/uncertainty.md), as " %*s" of
 * the mark and the figure would be, put together by hand (printf per
 * cell was most of the table's work). At most CELL_MAX bytes. */
HOT_PATH static char *put_cell(char *p, const struct metric_def *md, const char *fmt, double v, double rse, int w)
{
	if (isnan(v) || isinf(v)) {
		/* "-", unmarked (format_value, unc_marked): on a machine
		 * without a PMU nearly every cell. */
		*p++ = ' ';
		p = put_pad(p, 1, w);
		*p++ = '-';
		return p;
	}
	char buf[64];
	output_format_value(md, fmt, v, buf, sizeof(buf));
	bool marked = !isinf(v) && unc_marked(v, rse);
	size_t blen = strlen(buf);
	size_t len = blen + marked;
	*p++ = ' ';
	p = put_pad(p, len, w);
	if (marked)
		*p++ = '~';
	memcpy(p, buf, blen);
	return p + blen;
}

/* " %5.0f\n" of a coverage in percent, or " %5s\n" of "-". */
HOT_PATH static char *put_cov(char *p, double cov)
{
	char d[320];
	size_t n = 1;
	if (isnan(cov))
		d[0] = '-';
	else
		n = format_fixed(d, sizeof(d), cov * 100.0, 0);
	*p++ = ' ';
	p = put_right(p, d, n, 5);
	*p++ = '\n';
	return p;
}

/* The cells of columns [from, to), none of which has a figure. */
static char *put_dashes(const struct output *o, char *p, int from, int to)
{
	size_t len = (size_t)(o->dash_at[to] - o->dash_at[from]);
	memcpy(p, o->dash_line + o->dash_at[from], len);
	return p + len;
}

/* A row. Its coverage is output_row_coverage's, found in the same pass:
 * the lowest among the cells that have a value (an event's count, not
 * NaN); a cell without a figure reads neither its error nor its
 * coverage, and a run of them is one copy (put_dashes). */
HOT_PATH static void print_row(struct output *o, const struct snapshot *s, const char *name,
		      const struct snap_row *r)
{
	const struct model *m = s->model;
	columns(o, m);
	char *p = o->line;
	/* "%-8s" of a name of at most 31 characters. */
	size_t nl = strnlen(name, 31);
	memcpy(p, name, nl);
	p += nl;
	p = put_pad(p, nl, 8);
	p = put_id(p, r->core);
	p = put_id(p, r->ccx);
	p = put_id(p, r->socket);
	double low = NAN;
	int ncols = o->o.ncols, n = ncols + o->o.nevcols, run = 0;
	for (int i = 0; i < n; i++) {
		double v, rse, c;
		const struct metric_def *md = NULL;
		const char *fmt = NULL;
		int col = o->tcol[i];
		if (col < 0)
			continue;
		if (i < ncols) {
			v = snap_col_(r->mv, col);
			if (isnan(v))
				continue;
			c = snap_col_(r->mcov, col);
		} else {
			double ev = snap_col_(r->ev, col);
			if (isnan(ev))
				continue;
			c = snap_col_(r->ecov, col);
			v = s->measured_s <= 0 ? NAN : ev / s->measured_s;   /* output_event_rate */
		}
		if (!isnan(c) && (isnan(low) || c < low))
			low = c;
		if (isnan(v) || isinf(v))
			continue;   /* '-', in the run */
		p = put_dashes(o, p, run, i);
		run = i + 1;
		if (i < ncols) {
			md = &m->metrics[o->cols[i]];
			fmt = o->fmts[i];
			rse = snap_col_(snap_row_mrse(s, r), col);
		} else {
			rse = snap_col_(snap_row_erse(s, r), col);
		}
		p = put_cell(p, md, fmt, v, rse, o->widths[i]);
	}
	p = put_dashes(o, p, run, n);
	p = put_cov(p, low);
	fwrite(o->line, 1, (size_t)(p - o->line), o->f);
}

HOT_PATH int output_table_write(struct output *o, const struct snapshot *s)
{
	char clock[32], name[32];
	columns(o, s->model);
	output_clock(s->time, clock, sizeof(clock));
	/* "%s# %s  interval %.2f s%s  model %s%s\n" of the blank line
	 * between intervals, the clock, the interval, the rotation, the
	 * model and SIMULATED, by hand, then the CPUs offline or back and
	 * the heading line: one fwrite. The model's name may be long. */
	size_t mlen = strlen(s->model->name), hlen = strlen(o->head_line);
	char *head = output_line(o, 256 + mlen + hlen + 80 * (size_t)(s->noffline + s->nreturning)), *p = head;
	if (o->written)
		*p++ = '\n';
	p = stpcpy(stpcpy(stpcpy(p, "# "), clock), "  interval ");
	p += format_fixed(p, 64, s->measured_s, 2);
	p = stpcpy(p, " s");
	if (s->rotate_ms > 0) {
		p = stpcpy(p, "  rotate ");
		p += format_fixed(p, 64, s->rotate_ms, 0);
		p = stpcpy(p, " ms");
	} else if (s->rotate_ms == 0) {
		p = stpcpy(p, "  rotate kernel");
	}
	p = stpcpy(p, "  model ");
	p = (char *)memcpy(p, s->model->name, mlen) + mlen;
	p = stpcpy(p, s->simulated ? "  SIMULATED\n" : "\n");
	for (int i = 0; i < s->noffline; i++)
		p = stpcpy(output_put_int(stpcpy(p, "# CPU "), s->offline[i]), " offline\n");
	for (int i = 0; i < s->nreturning; i++)
		p = stpcpy(output_put_int(stpcpy(p, "# CPU "), s->returning[i]),
			   " back online, counted from the next interval\n");
	p = (char *)memcpy(p, o->head_line, hlen) + hlen;
	fwrite(head, 1, (size_t)(p - head), o->f);
	output_cols(o, s);
	for (int i = 0; i < s->nrows[SNAP_CPU]; i++) {
		const struct snap_row *r = &s->rows[SNAP_CPU][i];
		*output_put_int(name, r->cpu) = '\0';
		print_row(o, s, name, r);
	}
	if (o->o.show_ccx) {
		for (int i = 0; i < s->nrows[SNAP_CCX]; i++) {
			const struct snap_row *r = &s->rows[SNAP_CCX][i];
			*output_put_int(stpcpy(name, "ccx"), r->id) = '\0';
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
	char *p = o->line;
	for (int i = 0; i < o->o.ncols; i++) {
		int mi = o->cols[i];
		p = put_cell(p, &m->metrics[mi], o->fmts[i], t->metric[mi], t->metric_rse[mi], o->widths[i]);
	}
	fwrite(o->line, 1, (size_t)(p - o->line), o->f);
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
		o->written ? "\n" : "", clock, s->measured_s, s->model->name, s->simulated ? "  SIMULATED" : "",
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
