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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* name as json_put_string writes it, with a colon after it when colon
 * is set, in a new string. */
static char *quoted(const char *name, bool colon)
{
	char *k = xmalloc(6 * strlen(name) + 4), *p = k;
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
	if (colon)
		*p++ = ':';
	*p = '\0';
	return k;
}

void output_json_keys_free(struct output *o)
{
	for (int i = 0; o->keys && o->keys[i]; i++)
		free(o->keys[i]);
	free(o->keys);
	free(o->key_len);
	o->key_len = NULL;
	for (int i = 0; i < o->nev_keys; i++)
		free(o->ev_keys[i]);
	free(o->ev_keys);
	free(o->units);
	free(o->null_line);
	free(o->null_at);
	o->keys = o->ev_keys = NULL;
	o->units = NULL;
	o->null_line = NULL;
	o->null_at = NULL;
	o->nev_keys = 0;
	o->key_model = NULL;
}

/* What each interval's line says the same way for one model, made once
 * per model: each column's key, quoted and escaped with its colon
 * ("ipc":), which every row wrote three times a line through snprintf
 * and a putc per character; the units object; each event's key in
 * event_coverage. */
static void keys(struct output *o, const struct model *m)
{
	if (o->key_model == m)
		return;
	output_json_keys_free(o);
	int n = o->o.ncols + o->o.nevcols;
	o->keys = xcalloc((size_t)n + 1, sizeof(char *));
	o->key_len = xcalloc((size_t)n + 1, sizeof(size_t));
	o->keys_len = 0;
	size_t ulen = 16;
	char **units = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		char name[160];
		output_field_name(o, m, i, name, sizeof(name));
		o->keys[i] = quoted(name, true);
		o->key_len[i] = strlen(o->keys[i]);
		o->keys_len += o->key_len[i];
		units[i] = quoted(i < o->o.ncols ? format_value_unit(m->metrics[o->cols[i]].unit) : "/s", false);
		ulen += strlen(o->keys[i]) + strlen(units[i]) + 1;
	}
	/* ,"units":{"name":"unit",...}: the unit of every field, in each
	 * line, since a line is read on its own. */
	char *p = o->units = xmalloc(ulen);
	p = stpcpy(p, ",\"units\":{");
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		p = stpcpy(stpcpy(p, o->keys[i]), units[i]);
		free(units[i]);
	}
	free(units);
	stpcpy(p, "}");
	o->null_at = xmalloc(sizeof(int) * ((size_t)n + 1));
	p = o->null_line = xmalloc(o->keys_len + 5 * (size_t)n + 1);
	for (int i = 0; i < n; i++) {
		o->null_at[i] = (int)(p - o->null_line);
		p = stpcpy(stpcpy(p, o->keys[i]), i + 1 < n ? "null," : "null");
	}
	o->null_at[n] = (int)(p - o->null_line) + 1;
	o->nev_keys = m->nevents;
	o->ev_keys = xcalloc((size_t)m->nevents + 1, sizeof(char *));
	for (int e = 0; e < m->nevents; e++)
		o->ev_keys[e] = quoted(m->events[e].name, true);
	o->key_model = m;
}

/* A figure at p as "%.6g" writes it, or null; returns the end. At most
 * JSON_NUM_MAX bytes. */
#define JSON_NUM_MAX 40

static char *num_at(char *p, double v)
{
	if (isnan(v) || isinf(v)) {
		memcpy(p, "null", 4);
		return p + 4;
	}
	return p + format_g6(p, JSON_NUM_MAX, v);
}

static void put_number(FILE *f, double v)
{
	char b[JSON_NUM_MAX];
	fwrite(b, 1, (size_t)(num_at(b, v) - b), f);
}

/* Column i's key at p (its length known: each row writes every key
 * three times); returns the end. */
static inline char *put_key(const struct output *o, char *p, int i)
{
	memcpy(p, o->keys[i], o->key_len[i]);
	return p + o->key_len[i];
}

/* One of a row's three kinds of figure, each an object of the columns. */
enum figure { FIG_VALUE, FIG_COV, FIG_RSE };

/* The fields of columns [from, to), none of which has a figure, with
 * the comma before them unless they are the first. */
static char *put_nulls(const struct output *o, char *p, int from, int to)
{
	if (from >= to)
		return p;
	if (from)
		*p++ = ',';
	size_t len = (size_t)(o->null_at[to] - o->null_at[from] - 1);
	memcpy(p, o->null_line + o->null_at[from], len);
	return p + len;
}

/* col: each column's place in the row (output_cols). A run of fields
 * without a figure is copied from null_line in one go. */
static char *put_values(struct output *o, char *p, const struct snapshot *s, const struct snap_row *r,
			enum figure f, const int *col)
{
	const double *mv = f == FIG_VALUE ? r->mv : f == FIG_COV ? r->mcov : snap_row_mrse(s, r);
	const double *ev = f == FIG_VALUE ? r->ev : f == FIG_COV ? r->ecov : snap_row_erse(s, r);
	int ncols = o->o.ncols, n = ncols + o->o.nevcols, run = 0;
	*p++ = '{';
	for (int i = 0; i < n; i++) {
		double v;
		if (i < ncols)
			v = snap_col_(mv, col[i]);
		else if (f != FIG_VALUE)
			v = snap_col_(ev, col[i]);
		else   /* events as rates (output_event_rate), coverage as the plain fraction */
			v = s->measured_s > 0 ? snap_col_(ev, col[i]) / s->measured_s : NAN;
		if (isnan(v) || isinf(v))
			continue;
		p = put_nulls(o, p, run, i);
		if (i)
			*p++ = ',';
		p = put_key(o, p, i);
		p = num_at(p, v);
		run = i + 1;
	}
	p = put_nulls(o, p, run, n);
	*p++ = '}';
	return p;
}

/* ",\"key\":%d" and the like; returns the end. */
static char *put_field(char *p, const char *key, int v)
{
	return output_put_int(stpcpy(p, key), v);
}

/* A row, put together in o->line and written with one fwrite. */
static void put_row(struct output *o, const struct snapshot *s, const struct snap_row *r,
		    enum snap_scope sc)
{
	keys(o, s->model);
	int nf = o->o.ncols + o->o.nevcols;
	char *line = output_line(o, 256 + 3 * (o->keys_len + (size_t)nf * (JSON_NUM_MAX + 1))), *p = line;
	*p++ = '{';
	switch (sc) {
	case SNAP_CPU:
		p = put_field(p, "\"cpu\":", r->cpu);
		p = put_field(p, ",\"core\":", r->core);
		p = put_field(p, ",\"ccx\":", r->ccx);
		p = put_field(p, ",\"socket\":", r->socket);
		break;
	case SNAP_CORE:
		p = put_field(p, "\"core\":", r->id);
		p = put_field(p, ",\"ccx\":", r->ccx);
		p = put_field(p, ",\"socket\":", r->socket);
		p = put_field(p, ",\"ncpus\":", r->ncpus);
		break;
	case SNAP_CCX:
		p = put_field(p, "\"ccx\":", r->id);
		p = put_field(p, ",\"socket\":", r->socket);
		p = put_field(p, ",\"ncpus\":", r->ncpus);
		break;
	case SNAP_SOCKET:
		p = put_field(p, "\"socket\":", r->id);
		p = put_field(p, ",\"ncpus\":", r->ncpus);
		break;
	default:
		p = put_field(p, "\"ncpus\":", r->ncpus);
		break;
	}
	p = stpcpy(p, ",\"metrics\":");
	p = put_values(o, p, s, r, FIG_VALUE, o->tcol);
	p = stpcpy(p, ",\"coverage\":");
	p = put_values(o, p, s, r, FIG_COV, o->tcol);
	p = stpcpy(p, ",\"rse\":");
	p = put_values(o, p, s, r, FIG_RSE, o->tcol);
	*p++ = '}';
	fwrite(line, 1, (size_t)(p - line), o->f);
}

static void put_array(struct output *o, const struct snapshot *s, const char *key, enum snap_scope sc)
{
	fputs(",\"", o->f);
	fputs(key, o->f);
	fputs("\":[", o->f);
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
	char head[128], *p = head;
	p = stpcpy(p, "{\"time\":");
	p += format_fixed(p, 48, s->time, 3);
	p = stpcpy(p, ",\"interval_s\":");
	p += format_g6(p, 48, s->measured_s);
	p = stpcpy(p, s->simulated ? ",\"simulated\":true,\"host\":" : ",\"simulated\":false,\"host\":");
	fwrite(head, 1, (size_t)(p - head), o->f);
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
	keys(o, s->model);
	fputs(o->units, o->f);
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
			if (e < o->nev_keys) {
				fputs(o->ev_keys[e], o->f);
			} else {
				json_put_string(o->f, s->model->events[e].name);
				fputc(':', o->f);
			}
			put_number(o->f, snap_event_cov(s, sys, e));
		}
		fputc('}', o->f);
	}
	/* The rows' columns, for every row of the interval (put_row). */
	output_cols(o, s);
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
