/* output_csv.c: CSV with one stable header (written once), one line per
 * row and interval: every scope in the same columns so that a spreadsheet
 * or pandas can filter on the scope column. Missing values are empty. */
#include "config.h"
#include "output_impl.h"

#include <math.h>

#include "util.h"

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

int output_csv_write(struct output *o, const struct snapshot *s)
{
	const struct model *m = s->model;
	int nf = o->o.ncols + o->o.nevcols;
	if (o->written == 0) {
		/* Each figure, then its coverage, then its relative standard
		 * error, under the same names as in JSON (docs/units.md). */
		static const char *const suffix[3] = { "", "_coverage", "_rse" };
		char name[160];
		fputs("time,interval_s,simulated,host,scope,id,cpu,core,ccx,socket", o->f);
		for (int k = 0; k < 3; k++)
			for (int i = 0; i < nf; i++) {
				output_field_name(o, m, i, name, sizeof(name));
				fprintf(o->f, ",%s%s", name, suffix[k]);
			}
		fputc('\n', o->f);
	}
	(void)nf;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int i = 0; i < s->nrows[sc]; i++) {
			const struct snap_row *r = &s->rows[sc][i];
			fprintf(o->f, "%.3f,%.3f,%d", s->time, s->measured_s, s->simulated ? 1 : 0);
			print_text(o->f, o->o.host);
			fprintf(o->f, ",%s,%d", scope_names[sc], r->id);
			print_id(o->f, r->cpu);
			print_id(o->f, r->core);
			print_id(o->f, r->ccx);
			print_id(o->f, r->socket);
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, snap_metric(s, r, o->cols[c]));
			for (int c = 0; c < o->o.nevcols; c++)
				print_num(o->f, output_event_rate(s, r, o->evcols[c]));
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, snap_metric_cov(s, r, o->cols[c]));
			for (int c = 0; c < o->o.nevcols; c++)
				print_num(o->f, snap_event_cov(s, r, o->evcols[c]));
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, snap_metric_rse(s, r, o->cols[c]));
			for (int c = 0; c < o->o.nevcols; c++)
				print_num(o->f, snap_event_rse(s, r, o->evcols[c]));
			fputc('\n', o->f);
		}
	}
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
