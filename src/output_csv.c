/* output_csv.c: CSV with one stable header (written once), one line per
 * row and interval: every scope in the same columns so that a spreadsheet
 * or pandas can filter on the scope column. Missing values are empty. */
#include "config.h"
#include "output_impl.h"

#include <math.h>

static const char *const scope_names[SNAP_NSCOPES] = { "cpu", "core", "ccx", "socket", "system" };

static void print_num(FILE *f, double v)
{
	if (isnan(v))
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

int output_csv_write(struct output *o, const struct snapshot *s)
{
	const struct model *m = s->model;
	if (o->written == 0) {
		fputs("time,interval_s,simulated,scope,id,cpu,core,ccx,socket", o->f);
		for (int i = 0; i < o->o.ncols; i++)
			fprintf(o->f, ",%s", m->metrics[o->cols[i]].name);
		for (int i = 0; i < o->o.nevcols; i++)
			fprintf(o->f, ",%s_per_s", m->events[o->evcols[i]].name);
		for (int i = 0; i < o->o.ncols; i++)
			fprintf(o->f, ",%s_coverage", m->metrics[o->cols[i]].name);
		for (int i = 0; i < o->o.nevcols; i++)
			fprintf(o->f, ",%s_coverage", m->events[o->evcols[i]].name);
		fputc('\n', o->f);
	}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		for (int i = 0; i < s->nrows[sc]; i++) {
			const struct snap_row *r = &s->rows[sc][i];
			fprintf(o->f, "%.3f,%.3f,%d,%s,%d", s->time, s->interval_s,
				s->simulated ? 1 : 0, scope_names[sc], r->id);
			print_id(o->f, r->cpu);
			print_id(o->f, r->core);
			print_id(o->f, r->ccx);
			print_id(o->f, r->socket);
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, r->metric[o->cols[c]]);
			for (int c = 0; c < o->o.nevcols; c++)
				print_num(o->f, output_event_rate(s, r, o->evcols[c]));
			for (int c = 0; c < o->o.ncols; c++)
				print_num(o->f, r->metric_cov[o->cols[c]]);
			for (int c = 0; c < o->o.nevcols; c++)
				print_num(o->f, r->event_cov[o->evcols[c]]);
			fputc('\n', o->f);
		}
	}
	return 0;
}
