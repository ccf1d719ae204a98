/* output_csv.c: CSV with one stable header (written once), one line per
 * row and interval: every scope in the same columns so that a spreadsheet
 * or pandas can filter on the scope column. Missing values are empty. */
#include "config.h"
#include "output_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

#include "util.h"
#include "hot_path.h"

static const char *const scope_names[SNAP_NSCOPES] = { "cpu", "core", "ccx", "socket", "system" };

/* An infinity is empty too, as the table's '-' and JSON's null: a figure
 * that is not a number is not one in any format. */
static void print_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputc(',', f);
	else
		fprintf(f, ",%.6g", v);
}

static void print_id(FILE *f, int v)
{
	if (v < 0)
		fputc(',', f);
	else
		fprintf(f, ",%d", v);
}

/* A CSV field from text that may hold commas or quotes (a process name). */
static void print_text(FILE *f, const char *s)
{
	fputs(",\"", f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The same as print_num, print_id and print_text, put together at p by
 * hand for a row of figures (printf's "%.6g" was most of CSV's work);
 * each returns the end. A figure takes at most CSV_NUM_MAX bytes. */
#define CSV_NUM_MAX 40

static inline char *put_num(char *p, double v)
{
	*p++ = ',';
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (!bits)   /* a +0 (most coverages without a PMU): no call */
		*p++ = '0';
	else if (isfinite(v))
		p += format_g6(p, CSV_NUM_MAX - 1, v);
	return p;
}

/* The fields of columns [0, n) of a row's array a (NULL: none has a
 * figure), col the columns' places in it (-1: none), each a figure
 * divided by per (1 but for events' rates). */
HOT_PATH static char *put_nums(char *p, const double *a, const int *col, int n, double per)
{
	if (!a) {
		memset(p, ',', (size_t)n);
		return p + n;
	}
	for (int c = 0; c < n; c++) {
		if (col[c] < 0)
			*p++ = ',';
		else
			p = put_num(p, per == 1 ? a[col[c]] : a[col[c]] / per);
	}
	return p;
}

/* ",%d" of an id, or an empty field where the row has none (-1). */
HOT_PATH static char *put_id(char *p, int v)
{
	*p++ = ',';
	return v < 0 ? p : output_put_int(p, v);
}

/* ",%d" of any int. */
static char *put_int(char *p, int v)
{
	*p++ = ',';
	return output_put_int(p, v);
}

HOT_PATH int output_csv_write(struct output *o, const struct snapshot *s)
{
	static const char *const suffix[3] = { "", "_coverage", "_rse" };
	const struct model *m = s->model;
	int nf = o->o.ncols + o->o.nevcols;
	if (o->written == 0) {
		/* Each figure, then its coverage, then its relative standard
		 * error, under the same names as in JSON (docs/units.md). */
		char name[160];
		fputs("time,interval_s,simulated,host,scope,id,cpu,core,ccx,socket", o->f);
		for (int k = 0; k < 3; k++)
			for (int i = 0; i < nf; i++) {
				output_field_name(o, m, i, name, sizeof(name));
				fprintf(o->f, ",%s%s", name, suffix[k]);
			}
		fputc('\n', o->f);
	}
	/* "%.3f,%.3f,%d" of the time, the interval and simulated, then the
	 * host quoted: the same start for every row of the interval. */
	const char *host = o->o.host ? o->o.host : "";
	size_t hlen = strlen(host);
	char *start = xmalloc(2 * hlen + 3 * CSV_NUM_MAX + 8), *q = start;
	q += format_fixed(q, CSV_NUM_MAX, s->time, 3);
	*q++ = ',';
	q += format_fixed(q, CSV_NUM_MAX, s->measured_s, 3);
	*q++ = ',';
	*q++ = s->simulated ? '1' : '0';
	*q++ = ',';
	*q++ = '"';
	for (const char *c = host; *c; c++) {
		if (*c == '"')
			*q++ = '"';
		*q++ = *c;
	}
	*q++ = '"';
	size_t slen = (size_t)(q - start);
	/* Each printed column's place in the interval's rows, once an
	 * interval: metrics' columns, then events' (snap_mcol, snap_ecol;
	 * -1: an empty field in every row). */
	int *col = output_cols(o, s);
	char *line = output_line(o, slen + 5 * 24 + 16 + (size_t)(3 * nf) * CSV_NUM_MAX);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int i = 0; i < s->nrows[sc]; i++) {
			const struct snap_row *r = &s->rows[sc][i];
			char *p = line;
			memcpy(p, start, slen);
			p += slen;
			*p++ = ',';
			p = stpcpy(p, scope_names[sc]);
			p = put_int(p, r->id);
			p = put_id(p, r->cpu);
			p = put_id(p, r->core);
			p = put_id(p, r->ccx);
			p = put_id(p, r->socket);
			const double *mrse = snap_row_mrse(s, r), *erse = snap_row_erse(s, r);
			int nm = o->o.ncols, ne = o->o.nevcols;
			p = put_nums(p, r->mv, col, nm, 1);
			/* Events as rates (output_event_rate). */
			p = put_nums(p, s->measured_s > 0 ? r->ev : NULL, col + nm, ne, s->measured_s);
			p = put_nums(p, r->mcov, col, nm, 1);
			p = put_nums(p, r->ecov, col + nm, ne, 1);
			p = put_nums(p, mrse, col, nm, 1);
			p = put_nums(p, erse, col + nm, ne, 1);
			*p++ = '\n';
			fwrite(line, 1, (size_t)(p - line), o->f);
		}
	}
	free(start);
	return 0;
}

/* A tasks view: one line per process, then per cgroup, busiest first. */
int output_csv_tasks(struct output *o, const struct snapshot *s)
{
	const struct model *m = s->model;
	if (o->written == 0) {
		char name[160];
		fputs("time,interval_s,simulated,host,kind,pid,comm,cgroup,nprocs,cpus,samples,coverage", o->f);
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < o->o.ncols; i++) {
				output_field_name(o, m, i, name, sizeof(name));
				fprintf(o->f, ",%s%s", name, k ? "_rse" : "");
			}
		fputc('\n', o->f);
	}
	for (int k = 0; k < 2; k++) {
		const struct snap_task *rows = k ? s->cgroups : s->tasks;
		int n = output_task_rows(o, k ? s->ncgroups : s->ntasks);
		for (int i = 0; i < n; i++) {
			const struct snap_task *t = &rows[i];
			fprintf(o->f, "%.3f,%.3f,%d", s->time, s->measured_s, s->simulated ? 1 : 0);
			print_text(o->f, o->o.host);
			fprintf(o->f, ",%s", k ? "cgroup" : "task");
			print_id(o->f, t->pid);
			if (t->comm)
				print_text(o->f, t->comm);
			else
				fputc(',', o->f);
			print_text(o->f, t->cgroup);
			fprintf(o->f, ",%d", t->nprocs);
			char cpus[256];
			cpulist_format(t->cpus, t->ncpus, cpus, sizeof(cpus));
			print_text(o->f, cpus);
			fprintf(o->f, ",%.0f", t->samples);
			print_num(o->f, t->cov);
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, t->metric[o->cols[c]]);
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, t->metric_rse[o->cols[c]]);
			fputc('\n', o->f);
		}
	}
	return 0;
}
