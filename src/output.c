/* output.c: the batch writers' common part: choosing the writer, value
 * formatting shared with the screen, and row coverage. */
#include "config.h"
#include "output_impl.h"
#include "format.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int output_parse_format(const char *s)
{
	if (!strcasecmp(s, "table"))
		return OUT_TABLE;
	if (!strcasecmp(s, "csv"))
		return OUT_CSV;
	if (!strcasecmp(s, "json"))
		return OUT_JSON;
	return -1;
}

void output_format_value(const struct metric_def *md, const char *fmt, double v, char *buf, size_t n)
{
	format_value(buf, n, v, fmt, md ? md->unit : NULL);
}

void output_metric_heading(const struct metric_def *md, char *buf, size_t n)
{
	format_heading(buf, n, md->label ? md->label : md->name, md->unit);
}

void output_field_name(const struct output *o, const struct model *m, int col, char *buf, size_t n)
{
	if (col < o->o.ncols)
		snprintf(buf, n, "%s", m->metrics[o->cols[col]].name);
	else
		snprintf(buf, n, "%s_per_s", m->events[o->evcols[col - o->o.ncols]].name);
}

double output_row_coverage(const struct output *o, const struct snapshot *s, const struct snap_row *r)
{
	double low = NAN;
	/* Only figures that are shown count: a "-" already says "not measured". */
	for (int i = 0; i < o->o.ncols; i++) {
		double c = r->metric_cov[o->cols[i]];
		if (!isnan(r->metric[o->cols[i]]) && !isnan(c) && (isnan(low) || c < low))
			low = c;
	}
	for (int i = 0; i < o->o.nevcols; i++) {
		double c = r->event_cov[o->evcols[i]];
		if (!isnan(r->event[o->evcols[i]]) && !isnan(c) && (isnan(low) || c < low))
			low = c;
	}
	(void)s;
	return low;
}

double output_event_rate(const struct snapshot *s, const struct snap_row *r, int ev)
{
	if (s->interval_s <= 0)
		return NAN;
	return r->event[ev] / s->interval_s;
}

void output_clock(double t, char *buf, size_t n)
{
	time_t sec = (time_t)t;
	struct tm tm;
	localtime_r(&sec, &tm);
	snprintf(buf, n, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)((t - (double)sec) * 1000.0));
}

struct output *output_new(FILE *f, const struct output_opts *opts)
{
	struct output *o = xcalloc(1, sizeof(*o));
	o->f = f;
	o->o = *opts;
	o->cols = xmalloc(sizeof(int) * (size_t)(opts->ncols + 1));
	if (opts->ncols)
		memcpy(o->cols, opts->cols, sizeof(int) * (size_t)opts->ncols);
	o->evcols = xmalloc(sizeof(int) * (size_t)(opts->nevcols + 1));
	if (opts->nevcols)
		memcpy(o->evcols, opts->evcols, sizeof(int) * (size_t)opts->nevcols);
	o->fmts = xcalloc((size_t)opts->ncols + 1, sizeof(char *));
	for (int i = 0; opts->fmts && i < opts->ncols; i++)
		o->fmts[i] = opts->fmts[i];
	o->o.cols = o->cols;
	o->o.fmts = o->fmts;
	o->o.evcols = o->evcols;
	return o;
}

int output_write(struct output *o, const struct snapshot *s)
{
	int rc;
	switch (o->o.format) {
	case OUT_CSV: rc = output_csv_write(o, s); break;
	case OUT_JSON: rc = output_json_write(o, s); break;
	default: rc = output_table_write(o, s); break;
	}
	o->written++;
	/* Flushing per interval means a reader of a pipe or file sees each
	 * interval as it happens, and nothing is lost if pmctop is killed. */
	if (fflush(o->f) != 0 || ferror(o->f))
		return -(errno ? errno : EIO);
	return rc;
}

void output_free(struct output *o)
{
	if (!o)
		return;
	free(o->cols);
	free(o->fmts);
	free(o->evcols);
	free(o);
}
