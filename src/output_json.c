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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "hot_path.h"

#define JSON_NUM_MAX 40   /* the most bytes of a figure (num_at) */
/* A key of at most this many bytes is copied as a whole block of them,
 * not by a call of memcpy for its length; a row's line has room for the
 * bytes past its end (put_row's 256 spare). */
#define KEY_COPY 32

/* name as json_put_string writes it, with a colon after it when colon
 * is set, in a new string. */
static char *quoted(const char *name, bool colon)
{
	/* At least KEY_COPY bytes: put_key copies that many of a short key. */
	size_t cap = 6 * strlen(name) + 4;
	char *k = xcalloc(cap > KEY_COPY ? cap : KEY_COPY, 1), *p = k;
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
	free(o->host_model);
	o->host_model = NULL;
	free(o->cov_planned);
	free(o->cov_list);
	o->cov_planned = NULL;
	o->cov_list = NULL;
	o->cov_n = 0;
}

void output_json_free(struct output *o)
{
	output_json_keys_free(o);
	free(o->notice_raw);
	free(o->notice_json);
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
	/* ,"host":"...","model":"...": the same in every line. */
	char *host = quoted(o->o.host, false), *model = quoted(m->name, false);
	o->host_model = xasprintf(",\"host\":%s,\"model\":%s", host, model);
	o->host_model_len = strlen(o->host_model);
	o->units_len = strlen(o->units);
	free(host);
	free(model);
	o->key_model = m;
}

/* The events of event_coverage, in order (those planned), and the most
 * bytes their fields take: found anew only when the plan's events
 * change (a scan of every event of the model was a tenth of a JSON
 * interval's writing at 2 CPUs). */
static void cov_events(struct output *o, const struct snapshot *s)
{
	size_t n = (size_t)s->nevents;
	if (o->cov_planned && o->cov_n == s->nevents && !memcmp(o->cov_planned, s->event_planned, n))
		return;
	free(o->cov_planned);
	free(o->cov_list);
	o->cov_planned = xmalloc(n + 1);
	memcpy(o->cov_planned, s->event_planned, n);
	o->cov_n = s->nevents;
	o->cov_list = xmalloc(sizeof(int) * (n + 1));
	o->ncov = 0;
	o->cov_bound = 0;
	for (int e = 0; e < s->nevents; e++) {
		if (!s->event_planned[e])
			continue;
		o->cov_list[o->ncov++] = e;
		/* Beyond the model's keys: its name escaped, at most six
		 * bytes a character, quotes and colon. */
		o->cov_bound += (e < o->nev_keys ? strlen(o->ev_keys[e]) : 6 * strlen(s->model->events[e].name) + 3) +
				JSON_NUM_MAX + 1;
	}
}

/* ,"notice":"..." of s's notice, escaped once while it says the same
 * (the same notice every interval on a machine without a PMU, escaped
 * character by character each time); "" without one. */
static const char *notice_field(struct output *o, const char *notice, size_t *len)
{
	if (!notice) {
		*len = 0;
		return "";
	}
	if (!o->notice_raw || strcmp(o->notice_raw, notice)) {
		free(o->notice_raw);
		free(o->notice_json);
		o->notice_raw = xstrdup(notice);
		char *q = quoted(notice, false);
		o->notice_json = xasprintf(",\"notice\":%s", q);
		free(q);
		o->notice_json_len = strlen(o->notice_json);
	}
	*len = o->notice_json_len;
	return o->notice_json;
}

/* A figure at p as "%.6g" writes it, or null; returns the end. At most
 * JSON_NUM_MAX bytes. */

static char *num_at(char *p, double v)
{
	if (!isfinite(v)) {
		memcpy(p, "null", 4);
		return p + 4;
	}
	return p + format_g6(p, JSON_NUM_MAX, v);
}

/* num_at of a finite figure, a +0 (two thirds of a 2-CPU interval's
 * figures on a machine without a PMU: the coverage of what is not
 * counted) written without the call. */
static inline char *finite_at(char *p, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (!bits) {
		*p = '0';
		return p + 1;
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
	size_t len = o->key_len[i];
	if (len <= KEY_COPY)
		memcpy(p, o->keys[i], KEY_COPY);
	else
		memcpy(p, o->keys[i], len);
	return p + len;
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

/* A field with a figure: the run of fields without one before it, the
 * comma, the key and the figure. */
static inline char *put_figure(const struct output *o, char *p, int *run, int i, double v)
{
	p = put_nulls(o, p, *run, i);
	if (i)
		*p++ = ',';
	p = put_key(o, p, i);
	*run = i + 1;
	return finite_at(p, v);
}

/* col: each column's place in the row (output_cols). A run of fields
 * without a figure is copied from null_line in one go; a column the
 * interval has not (-1), or a row without errors, is one without a
 * look at the row. */
HOT_PATH static char *put_values(struct output *o, char *p, const struct snapshot *s, const struct snap_row *r,
			enum figure f, const int *col)
{
	const double *mv = f == FIG_VALUE ? r->mv : f == FIG_COV ? r->mcov : snap_row_mrse(s, r);
	const double *ev = f == FIG_VALUE ? r->ev : f == FIG_COV ? r->ecov : snap_row_erse(s, r);
	int ncols = o->o.ncols, n = ncols + o->o.nevcols, run = 0;
	*p++ = '{';
	for (int i = 0; mv && i < ncols; i++) {
		double v = col[i] < 0 ? NAN : mv[col[i]];
		if (isfinite(v))
			p = put_figure(o, p, &run, i, v);
	}
	/* Events as rates (output_event_rate), coverage as the plain fraction. */
	double per = f != FIG_VALUE ? 1 : s->measured_s > 0 ? s->measured_s : NAN;
	for (int i = ncols; ev && i < n; i++) {
		double v = col[i] < 0 ? NAN : f != FIG_VALUE ? ev[col[i]] : ev[col[i]] / per;
		if (isfinite(v))
			p = put_figure(o, p, &run, i, v);
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

/* A row, put together in o->line and written with one fwrite, after
 * pre (what comes before it: the array's key, a comma) and with a ']'
 * after it when it ends its array. */
HOT_PATH static void put_row(struct output *o, const struct snapshot *s, const struct snap_row *r,
		    enum snap_scope sc, const char *pre, bool last)
{
	keys(o, s->model);
	int nf = o->o.ncols + o->o.nevcols;
	char *line = output_line(o, 256 + 3 * (o->keys_len + (size_t)nf * (JSON_NUM_MAX + 1))), *p = line;
	p = stpcpy(p, pre);
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
	if (last)
		*p++ = ']';
	fwrite(line, 1, (size_t)(p - line), o->f);
}

/* head: ,"key":[ of the array; each row goes out with its separator. */
HOT_PATH static void put_array(struct output *o, const struct snapshot *s, const char *head, enum snap_scope sc)
{
	int n = s->nrows[sc];
	if (!n) {
		fputs(head, o->f);
		fputc(']', o->f);
	}
	for (int i = 0; i < n; i++)
		put_row(o, s, &s->rows[sc][i], sc, i ? "," : head, i + 1 == n);
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

/* A list of CPUs at p, "%s%d" of each with commas between; returns the end. */
static char *put_ints(char *p, const int *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ',';
		p = output_put_int(p, v[i]);
	}
	return p;
}

HOT_PATH int output_json_write(struct output *o, const struct snapshot *s)
{
	/* Everything before the rows, put together in o->line and written
	 * at once: what is the same in every line (host and model, units,
	 * the notice while it is the same) made once (keys, notice_field). */
	keys(o, s->model);
	bool cov = s->nrows[SNAP_SYSTEM] > 0 && s->event_planned;
	if (cov)
		cov_events(o, s);
	size_t nlen;
	const char *notice = notice_field(o, s->notice, &nlen);
	/* 512: the fields of bounded length (the time and the interval at
	 * most 48 bytes each, rotate_ms 40, the names and brackets). */
	char *line = output_line(o, 512 + o->host_model_len + nlen + o->units_len +
					    12 * (size_t)(s->noffline + s->nreturning) + (cov ? o->cov_bound : 0)),
	     *p = line;
	p = stpcpy(p, "{\"time\":");
	p += format_fixed(p, 48, s->time, 3);
	p = stpcpy(p, ",\"interval_s\":");
	p += format_g6(p, 48, s->measured_s);
	p = stpcpy(p, s->simulated ? ",\"simulated\":true" : ",\"simulated\":false");
	p = (char *)memcpy(p, o->host_model, o->host_model_len) + o->host_model_len;
	/* rotate_ms 0 is the kernel's multiplexing: no period of pmctop's. */
	p = stpcpy(p, ",\"rotate_ms\":");
	p = num_at(p, s->rotate_ms > 0 ? s->rotate_ms : NAN);
	if (s->rotate_ms >= 0)
		p = stpcpy(p, s->rotate_ms > 0 ? ",\"rotation\":\"pmctop\"" : ",\"rotation\":\"kernel\"");
	p = (char *)memcpy(p, notice, nlen) + nlen;
	p = (char *)memcpy(p, o->units, o->units_len) + o->units_len;
	p = stpcpy(p, ",\"offline\":[");
	p = put_ints(p, s->offline, s->noffline);
	p = stpcpy(p, "],\"returning\":[");
	p = put_ints(p, s->returning, s->nreturning);
	*p++ = ']';
	/* How long each counted event really ran, across the system: the
	 * schedule's share, lower where a group could not be scheduled. */
	if (cov) {
		const struct snap_row *sys = &s->rows[SNAP_SYSTEM][0];
		p = stpcpy(p, ",\"event_coverage\":{");
		for (int k = 0; k < o->ncov; k++) {
			int e = o->cov_list[k];
			if (k)
				*p++ = ',';
			if (e < o->nev_keys) {
				p = stpcpy(p, o->ev_keys[e]);
			} else {
				char *q = quoted(s->model->events[e].name, true);
				p = stpcpy(p, q);
				free(q);
			}
			p = num_at(p, snap_event_cov(s, sys, e));
		}
		*p++ = '}';
	}
	fwrite(line, 1, (size_t)(p - line), o->f);
	/* The rows' columns, for every row of the interval (put_row). */
	output_cols(o, s);
	if (s->nrows[SNAP_SYSTEM] > 0)
		put_row(o, s, &s->rows[SNAP_SYSTEM][0], SNAP_SYSTEM, ",\"system\":", false);
	else
		fputs(",\"system\":null", o->f);
	put_array(o, s, ",\"cpus\":[", SNAP_CPU);
	put_array(o, s, ",\"cores\":[", SNAP_CORE);
	put_array(o, s, ",\"ccxs\":[", SNAP_CCX);
	put_array(o, s, ",\"sockets\":[", SNAP_SOCKET);
	if (s->tasks_on)
		put_tasks(o, s);
	fputs("}\n", o->f);
	return 0;
}
