/* output_json.c: JSON lines, one object per interval:
 * {"time":..., "interval_s":..., "simulated":..., "host":..., "model":..., "rotate_ms":...,
 *  "rotation":"pmctop"|"kernel" (rotate_ms is null when the kernel rotates),
 *  "offline":[...], "event_coverage":{event: share}, "system":{...},
 *  "cpus":[...], "cores":[...], "ccxs":[...], "sockets":[...],
 *  and with a tasks view "tasks":[...], "cgroups":[...] (docs/tasks.md)}
 * where every row has "metrics", "coverage" and "rse" (relative standard
 * error) objects keyed by the same field names as the CSV header (metric
 * names, and "<event>_per_s" for -e events), null where not measured, so a
 * consumer never mistakes a gap for a 0; "units" gives each field's unit
 * (docs/units.md). */
#include "config.h"
#include "output_impl.h"
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void json_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Each column's key as JSON writes it, quoted and escaped with its colon
 * ("ipc":), made once per model: every row wrote each of them three times
 * a line, through snprintf and a putc per character. */
static void keys(struct output *o, const struct model *m)
{
	if (o->key_model == m)
		return;
	int n = o->o.ncols + o->o.nevcols;
	for (int i = 0; o->keys && o->keys[i]; i++)
		free(o->keys[i]);
	free(o->keys);
	o->keys = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		char name[160];
		output_field_name(o, m, i, name, sizeof(name));
		char *k = o->keys[i] = xmalloc(6 * strlen(name) + 4), *p = k;
		*p++ = '"';
		for (const char *c = name; *c; c++) {
			unsigned char u = (unsigned char)*c;
			if (u == '"' || u == '\\') {
				*p++ = '\\';
				*p++ = (char)u;
			} else if (u < 0x20) {   /* \u00XX */
				memcpy(p, "\\u00", 4);
				p[4] = "0123456789abcdef"[u >> 4];
				p[5] = "0123456789abcdef"[u & 15];
				p += 6;
			} else {
				*p++ = (char)u;
			}
		}
		*p++ = '"';
		*p++ = ':';
		*p = '\0';
	}
	o->key_model = m;
}

static void put_number(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

/* One of a row's three kinds of figure, each an object of the columns. */
enum figure { FIG_VALUE, FIG_COV, FIG_RSE };

static double metric_fig(const struct snapshot *s, const struct snap_row *r, int mi, enum figure f)
{
	return f == FIG_VALUE ? snap_metric(s, r, mi) : f == FIG_COV ? snap_metric_cov(s, r, mi)
								    : snap_metric_rse(s, r, mi);
}

static void put_values(struct output *o, const struct snapshot *s, const struct snap_row *r, enum figure f)
{
	keys(o, s->model);
	fputc('{', o->f);
	for (int i = 0; i < o->o.ncols; i++) {
		if (i)
			fputc(',', o->f);
		fputs(o->keys[i], o->f);
		put_number(o->f, metric_fig(s, r, o->cols[i], f));
	}
	for (int i = 0; i < o->o.nevcols; i++) {
		if (i || o->o.ncols)
			fputc(',', o->f);
		fputs(o->keys[o->o.ncols + i], o->f);
		/* Events are reported as rates, coverage as the plain fraction. */
		int e = o->evcols[i];
		put_number(o->f, f == FIG_VALUE ? output_event_rate(s, r, e)
				 : f == FIG_COV ? snap_event_cov(s, r, e) : snap_event_rse(s, r, e));
	}
	fputc('}', o->f);
}

static void put_row(struct output *o, const struct snapshot *s, const struct snap_row *r,
		    enum snap_scope sc)
{
	fputc('{', o->f);
	switch (sc) {
	case SNAP_CPU:
		fprintf(o->f, "\"cpu\":%d,\"core\":%d,\"ccx\":%d,\"socket\":%d,", r->cpu, r->core,
			r->ccx, r->socket);
		break;
	case SNAP_CORE:
		fprintf(o->f, "\"core\":%d,\"ccx\":%d,\"socket\":%d,\"ncpus\":%d,", r->id, r->ccx,
			r->socket, r->ncpus);
		break;
	case SNAP_CCX:
		fprintf(o->f, "\"ccx\":%d,\"socket\":%d,\"ncpus\":%d,", r->id, r->socket, r->ncpus);
		break;
	case SNAP_SOCKET:
		fprintf(o->f, "\"socket\":%d,\"ncpus\":%d,", r->id, r->ncpus);
		break;
	default:
		fprintf(o->f, "\"ncpus\":%d,", r->ncpus);
		break;
	}
	fputs("\"metrics\":", o->f);
	put_values(o, s, r, FIG_VALUE);
	fputs(",\"coverage\":", o->f);
	put_values(o, s, r, FIG_COV);
	fputs(",\"rse\":", o->f);
	put_values(o, s, r, FIG_RSE);
	fputc('}', o->f);
}

static void put_array(struct output *o, const struct snapshot *s, const char *key, enum snap_scope sc)
{
	fprintf(o->f, ",\"%s\":[", key);
	for (int i = 0; i < s->nrows[sc]; i++) {
		if (i)
			fputc(',', o->f);
		put_row(o, s, &s->rows[sc][i], sc);
	}
	fputc(']', o->f);
}

/* A process or cgroup: who, where, and its figures for the metric columns. */
static void put_task(struct output *o, const struct snapshot *s, const struct snap_task *t)
{
	keys(o, s->model);
	fputc('{', o->f);
	if (t->comm) {
		fprintf(o->f, "\"pid\":%d,\"comm\":", t->pid);
		json_put_string(o->f, t->comm);
		fputc(',', o->f);
	} else {
		fprintf(o->f, "\"nprocs\":%d,", t->nprocs);
	}
	fputs("\"cgroup\":", o->f);
	json_put_string(o->f, t->cgroup);
	fputs(",\"cpus\":[", o->f);
	for (int i = 0; i < t->ncpus; i++)
		fprintf(o->f, "%s%d", i ? "," : "", t->cpus[i]);
	fprintf(o->f, "],\"samples\":%.0f,\"coverage\":", t->samples);
	put_number(o->f, t->cov);
	for (int k = 0; k < 2; k++) {
		const double *v = k ? t->metric_rse : t->metric;
		fputs(k ? ",\"rse\":{" : ",\"metrics\":{", o->f);
		for (int i = 0; i < o->o.ncols; i++) {
			if (i)
				fputc(',', o->f);
			fputs(o->keys[i], o->f);
			put_number(o->f, v[o->cols[i]]);
		}
		fputc('}', o->f);
	}
	fputc('}', o->f);
}

/* ,"key":[...] of the first rows (--top) of a list of processes or cgroups. */
static void put_task_list(struct output *o, const struct snapshot *s, const char *key, const struct snap_task *rows,
			  int nrows)
{
	fprintf(o->f, ",\"%s\":[", key);
	for (int i = 0, n = output_task_rows(o, nrows); i < n; i++) {
		if (i)
			fputc(',', o->f);
		put_task(o, s, &rows[i]);
	}
	fputc(']', o->f);
}

static void put_tasks(struct output *o, const struct snapshot *s)
{
	fprintf(o->f, ",\"task_freq\":%d,\"tasks_lost\":%ld,\"ntasks\":%d,\"ncgroups\":%d",
		s->task_freq, s->tasks_lost, s->ntasks, s->ncgroups);
	put_task_list(o, s, "tasks", s->tasks, s->ntasks);
	put_task_list(o, s, "cgroups", s->cgroups, s->ncgroups);
}

int output_json_write(struct output *o, const struct snapshot *s)
{
	fprintf(o->f, "{\"time\":%.3f,\"interval_s\":%.6g,\"simulated\":%s,\"host\":", s->time,
		s->measured_s, s->simulated ? "true" : "false");
	json_put_string(o->f, o->o.host);
	fputs(",\"model\":", o->f);

	json_put_string(o->f, s->model->name);
	/* rotate_ms 0 is the kernel's multiplexing: no period of pmctop's. */
	fputs(",\"rotate_ms\":", o->f);
	put_number(o->f, s->rotate_ms > 0 ? s->rotate_ms : NAN);
	if (s->rotate_ms >= 0)
		fprintf(o->f, ",\"rotation\":\"%s\"", s->rotate_ms > 0 ? "pmctop" : "kernel");
	if (s->notice) {
		fputs(",\"notice\":", o->f);
		json_put_string(o->f, s->notice);
	}
	/* The unit of every field, in each line: a line is read on its own. */
	fputs(",\"units\":{", o->f);
	for (int i = 0; i < o->o.ncols + o->o.nevcols; i++) {
		char name[160];
		output_field_name(o, s->model, i, name, sizeof(name));
		if (i)
			fputc(',', o->f);
		json_put_string(o->f, name);
		fputc(':', o->f);
		json_put_string(o->f, i < o->o.ncols ? format_value_unit(s->model->metrics[o->cols[i]].unit) : "/s");
	}
	fputc('}', o->f);
	fputs(",\"offline\":[", o->f);
	for (int i = 0; i < s->noffline; i++)
		fprintf(o->f, "%s%d", i ? "," : "", s->offline[i]);
	fputs("],\"returning\":[", o->f);
	for (int i = 0; i < s->nreturning; i++)
		fprintf(o->f, "%s%d", i ? "," : "", s->returning[i]);
	fputc(']', o->f);
	/* How long each counted event really ran, across the system: the
	 * schedule's share, lower where a group could not be scheduled. */
	if (s->nrows[SNAP_SYSTEM] > 0 && s->event_planned) {
		const struct snap_row *sys = &s->rows[SNAP_SYSTEM][0];
		fputs(",\"event_coverage\":{", o->f);
		bool first = true;
		for (int e = 0; e < s->nevents; e++) {
			if (!s->event_planned[e])
				continue;
			if (!first)
				fputc(',', o->f);
			first = false;
			json_put_string(o->f, s->model->events[e].name);
			fputc(':', o->f);
			put_number(o->f, snap_event_cov(s, sys, e));
		}
		fputc('}', o->f);
	}
	fputs(",\"system\":", o->f);
	if (s->nrows[SNAP_SYSTEM] > 0)
		put_row(o, s, &s->rows[SNAP_SYSTEM][0], SNAP_SYSTEM);
	else
		fputs("null", o->f);
	put_array(o, s, "cpus", SNAP_CPU);
	put_array(o, s, "cores", SNAP_CORE);
	put_array(o, s, "ccxs", SNAP_CCX);
	put_array(o, s, "sockets", SNAP_SOCKET);
	if (s->tasks_on)
		put_tasks(o, s);
	fputs("}\n", o->f);
	return 0;
}
