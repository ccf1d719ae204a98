/* export_text.c: renders one interval as Prometheus text format 0.0.4 or
 * OpenMetrics 1.0, and picks between them from an Accept header.
 *
 * The two formats differ in a few places only: OpenMetrics names a counter
 * family without its "_total" (the samples keep it), has an "info" type
 * where the text format has a gauge, escapes '"' in HELP and ends with
 * "# EOF" (added by export_hub_tail, after the scrape's own figures).
 * Derived metrics keep the model's names, with their unit converted to the
 * base unit Prometheus names carry (ns -> seconds, GB/s -> bytes per second)
 * so that a name says what its number is. */
#include "config.h"
#include "export_impl.h"
#include "expr.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_need(struct buf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	while (b->len + n + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->p = xrealloc(b->p, b->cap);
}

static void buf_put(struct buf *b, const char *s, size_t n)
{
	buf_need(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3)))
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	buf_need(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Label values escape backslash, double quote and newline (both formats);
 * HELP text escapes backslash and newline, and in OpenMetrics '"' too. */
static void buf_escaped(struct buf *b, const char *s, bool quote)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			buf_str(b, "\\\\");
		else if (*s == '\n')
			buf_str(b, "\\n");
		else if (*s == '"' && quote)
			buf_str(b, "\\\"");
		else
			buf_put(b, s, 1);
	}
}

/* Metric and label names allow [a-zA-Z0-9_:]; anything else becomes '_'. */
static void buf_name(struct buf *b, const char *s)
{
	for (; *s; s++) {
		char c = isalnum((unsigned char)*s) || *s == '_' ? *s : '_';
		buf_put(b, &c, 1);
	}
}

/* Shortest text that reads back as the same double; Prometheus spells the
 * infinities +Inf and -Inf. */
static void buf_value(struct buf *b, double v)
{
	if (isinf(v))
		buf_str(b, v > 0 ? "+Inf" : "-Inf");
	else if (isnan(v))
		buf_str(b, "NaN");
	else {
		char t[32];
		snprintf(t, sizeof(t), "%.15g", v);
		if (strtod(t, NULL) != v)
			snprintf(t, sizeof(t), "%.17g", v);
		buf_str(b, t);
	}
}

enum ftype { F_COUNTER, F_GAUGE, F_INFO };

/* "# HELP" and "# TYPE" of a family; name is the sample name, with "_total"
 * for counters (OpenMetrics drops it from the family name) and "_info" for
 * info (a gauge in the text format). */
static void family(struct buf *b, enum export_format f, const char *name, const char *suffix,
		   enum ftype t, const char *help)
{
	bool om = f == EXPORT_OPENMETRICS;
	char *fam = xasprintf("%s%s", name, suffix ? suffix : "");
	size_t n = strlen(fam);
	if (om && t == F_COUNTER && n > 6 && !strcmp(fam + n - 6, "_total"))
		fam[n - 6] = '\0';
	if (om && t == F_INFO && n > 5 && !strcmp(fam + n - 5, "_info"))
		fam[n - 5] = '\0';
	buf_str(b, "# HELP ");
	buf_name(b, fam);
	buf_str(b, " ");
	buf_escaped(b, help, om);
	buf_str(b, "\n# TYPE ");
	buf_name(b, fam);
	buf_str(b, t == F_COUNTER ? " counter\n" : t == F_INFO && om ? " info\n" : " gauge\n");
	free(fam);
}

/* The labels that place a row: cpu, core, ccx, socket as far as the scope
 * has them, after a first label (event="..." or metric="...") if given. */
static void labels(struct buf *b, const char *first, const char *value, const struct snap_row *row,
		   enum snap_scope sc)
{
	bool any = false;
	buf_str(b, "{");
	if (first) {
		buf_printf(b, "%s=\"", first);
		buf_escaped(b, value, true);
		buf_str(b, "\"");
		any = true;
	}
	static const char *const names[] = { "cpu", "core", "ccx", "socket" };
	int ids[] = { row->cpu, row->core, row->ccx, row->socket };
	for (int i = (int)sc; i < 4; i++) {
		if (ids[i] < 0)
			continue;
		buf_printf(b, "%s%s=\"%d\"", any ? "," : "", names[i], ids[i]);
		any = true;
	}
	if (any)
		buf_str(b, "}");
	else
		b->p[--b->len] = '\0';
}

/* A metric's unit as a Prometheus name suffix and the factor to its base
 * unit; strip is an abbreviation of the unit that the model's name may end
 * with, dropped so that the name says its unit once ("l3_miss_latency_ns"
 * becomes pmctop_metric_l3_miss_latency_seconds); where the abbreviation
 * is the name's only word ("ghz", "task_ghz"), it becomes what (clock), so
 * that the family says what it holds in the base unit
 * (pmctop_metric_clock_hertz, never a GHz name over a value in Hz). rate
 * marks a unit per unit of time: such a metric computed over interval_s is
 * the rate() of counters exported beside it (export_metric_duplicated). */
struct unit_map {
	const char *unit, *suffix;
	double scale;
	const char *strip;
	const char *words;   /* the base unit as HELP says it: the value's unit, not the model's */
	const char *what;
	bool rate;
};

static const struct unit_map units[] = {
	{ "ratio", "_ratio", 1, NULL, "ratio", NULL, false },
	{ "%", "_ratio", 0.01, NULL, "ratio, 1 is 100 %", NULL, false },
	{ "ns", "_seconds", 1e-9, "_ns", "seconds", NULL, false },
	{ "GB/s", "_bytes_per_second", 1e9, "_bw", "bytes per second", NULL, true },
	{ "MB/s", "_bytes_per_second", 1e6, "_bw", "bytes per second", NULL, true },
	{ "GHz", "_hertz", 1e9, "_ghz", "hertz", "clock", false },
	{ "GFLOP/s", "_per_second", 1e9, "_per_s", "floating-point operations per second", NULL, true },
	{ "/s", "_per_second", 1, "_per_s", "per second", NULL, true },
	{ "W", "_watts", 1, "_watts", "watts", NULL, true },
	{ "cyc", "_cycles", 1, "_cyc", "cycles", NULL, false },
	{ "cycles", "_cycles", 1, "_cycles", "cycles", NULL, false },
};

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	return n >= t && !strcmp(s + n - t, tail);
}

static const struct unit_map *unit_of(const char *unit)
{
	for (size_t i = 0; unit && i < ARRAY_SIZE(units); i++)
		if (!strcmp(units[i].unit, unit))
			return &units[i];
	return NULL;
}

char *export_metric_name(const struct metric_def *md)
{
	const struct unit_map *u = unit_of(md->unit);
	struct buf nb = { 0 };
	buf_str(&nb, "pmctop_metric_");
	size_t start = nb.len;
	buf_name(&nb, md->name);
	/* "cs_per_s" in /s becomes pmctop_metric_cs_per_second, and
	 * "l3_hit_ratio" in ratio stays pmctop_metric_l3_hit_ratio; "ghz" in
	 * GHz becomes pmctop_metric_clock_hertz, "task_ghz"
	 * pmctop_metric_task_clock_hertz. */
	if (u && u->strip) {
		const char *bare = u->strip + 1;
		bool whole = u->what && !strcmp(nb.p + start, bare);
		bool last = ends_with(nb.p, nb.len, u->strip);
		if (whole || last) {
			nb.p[nb.len -= strlen(whole ? bare : u->strip)] = '\0';
			if (u->what && (whole || !strcmp(nb.p + start, "task")))
				buf_printf(&nb, "%s%s", whole ? "" : "_", u->what);
		}
	}
	if (u && !ends_with(nb.p, nb.len, u->suffix))
		buf_str(&nb, u->suffix);
	return nb.p;
}

/* Whether metric md is a per-second figure over the interval (its unit a
 * rate, its formula divided by interval_s): the rate() of counters that
 * are exported already (pmctop_event_total, the portable series, the
 * joules), so that a gauge of it would be a second family for one
 * quantity, and one that misses what happened between scrapes. Such
 * metrics are not exported for CPU rows (docs/exporter.md, "Series"). */
bool export_metric_duplicated(const struct metric_def *md)
{
	const struct unit_map *u = unit_of(md->unit);
	if (!u || !u->rate || !md->expr)
		return false;
	int *ids;
	int n = expr_ids(md->expr, &ids);
	bool over_time = false;
	for (int i = 0; i < n; i++)
		over_time |= ids[i] == BUILTIN_INTERVAL_S;
	free(ids);
	return over_time;
}

/* A metric's HELP: its description and the unit its value is in (the base
 * unit of the name, since values are converted to it), per process or
 * cgroup when per is given. */
static char *metric_help(const struct metric_def *md, const char *per)
{
	const struct unit_map *u = unit_of(md->unit);
	const char *unit = u ? u->words : md->unit ? md->unit : "no unit";
	if (per)
		return xasprintf("%s, per %s (the busiest; %s, over the last interval)",
				 md->desc ? md->desc : md->name, per, unit);
	return xasprintf("%s (%s, over the last interval)", md->desc ? md->desc : md->name, unit);
}

/* Whether event e counts energy in joules (its scale turns a count into J). */
static bool joules_event(const struct event_def *ed)
{
	return ed->scale > 0 && ed->scale_unit && !strcmp(ed->scale_unit, "Joules");
}

/* Whether event e forms a portable series (export_portable.c). */
static bool portable_event(const struct model *m, int e)
{
	struct export_series *list;
	int n = export_series_list(m, &list);
	bool found = false;
	for (int i = 0; i < n && !found; i++)
		for (int t = 0; t < list[i].nterms && !found; t++)
			found = list[i].events[t] == e;
	export_series_free(list, n);
	return found;
}

/* The running totals of the events as one counter family: every event's
 * scaled count (pmctop_event_total), or, with joules, the energy counters
 * turned into joules by their scale (pmctop_energy_joules_total, whose
 * rate() is watts). An energy counter that forms a portable series
 * (energy_pkg: pmctop_package_joules_total) is left to that series, so
 * that one quantity has one family in joules. */
static void totals_family(struct buf *b, const struct snapshot *snap, const struct export_totals *tot,
			  enum snap_scope scope, enum export_format f, bool joules)
{
	const struct model *m = snap->model;
	const char *name = joules ? "pmctop_energy_joules_total" : "pmctop_event_total";
	bool any = false;
	for (int e = 0; e < snap->nevents; e++) {
		if (!snap->event_planned[e] ||
		    (joules && (!joules_event(&m->events[e]) || portable_event(m, e))))
			continue;
		if (!any)
			family(b, f, name, NULL, F_COUNTER, joules ?
			       "Energy an energy counter (event) measured since pmctop started, in joules, per row of its scope." :
			       "Scaled count of a hardware or software event since pmctop started, per row of its scope.");
		any = true;
		enum snap_scope sc = export_at(snap, m->pmus[m->events[e].pmu].scope, scope);
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *row = &snap->rows[sc][r];
			int k = export_row_key(row, sc);
			if (k < 0 || k >= tot->cap[sc])
				continue;
			double v = tot->sum[sc][(size_t)k * (size_t)snap->nevents + (size_t)e];
			if (isnan(v))
				continue;
			buf_str(b, name);
			labels(b, "event", m->events[e].name, row, sc);
			buf_str(b, " ");
			buf_value(b, joules ? v * m->events[e].scale : v);
			buf_str(b, "\n");
		}
	}
	/* The family of all events is there even before any is planned. */
	if (!any && !joules)
		family(b, f, name, NULL, F_COUNTER,
		       "Scaled count of a hardware or software event since pmctop started, per row of its scope.");
}

/* The portable series (export_portable.c): pmctop_NAME_total per row,
 * from the same running sums as pmctop_event_total. A series is written
 * only where every event behind it was measured and all are summed at one
 * scope: a partial sum would be a different quantity under the same name. */
static void portable_families(struct buf *b, const struct snapshot *snap, const struct export_totals *tot,
			      enum snap_scope scope, enum export_format f)
{
	const struct model *m = snap->model;
	struct export_series *list;
	int n = export_series_list(m, &list);
	for (int i = 0; i < n; i++) {
		const struct export_series *ps = &list[i];
		int sc = -1;
		bool ok = true;
		for (int t = 0; t < ps->nterms && ok; t++) {
			int e = ps->events[t];
			int at = (int)export_at(snap, m->pmus[m->events[e].pmu].scope, scope);
			ok = snap->event_planned[e] && (sc < 0 || sc == at);
			sc = at;
		}
		if (!ok)
			continue;
		struct buf help = { 0 };
		buf_printf(&help, "Portable series %s, the same quantity on every CPU model; on %s the sum of",
			   ps->name, m->name);
		for (int t = 0; t < ps->nterms; t++) {
			buf_printf(&help, "%s %s", t ? "," : "", m->events[ps->events[t]].name);
			if (ps->scales[t] != 1)
				buf_printf(&help, " x %g", ps->scales[t]);
		}
		buf_str(&help, ".");
		char *name = xasprintf("pmctop_%s_total", ps->name);
		family(b, f, name, NULL, F_COUNTER, help.p);
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *row = &snap->rows[sc][r];
			int k = export_row_key(row, (enum snap_scope)sc);
			if (k < 0 || k >= tot->cap[sc])
				continue;
			double v = 0;
			for (int t = 0; t < ps->nterms; t++)
				v += ps->scales[t] * tot->sum[sc][(size_t)k * (size_t)snap->nevents + (size_t)ps->events[t]];
			if (isnan(v))
				continue;
			buf_str(b, name);
			labels(b, NULL, NULL, row, (enum snap_scope)sc);
			buf_str(b, " ");
			buf_value(b, v);
			buf_str(b, "\n");
		}
		free(name);
		free(help.p);
	}
	export_series_free(list, n);
}

/* A gauge family over events (what = 0) or metrics (what = 1) from one of
 * the rows' per-event or per-metric arrays, selected by field. */
enum field { FLD_EVENT_COV, FLD_EVENT_RSE, FLD_METRIC_COV, FLD_METRIC_RSE };

static double field_of(const struct snapshot *s, const struct snap_row *row, enum field fl, int i)
{
	switch (fl) {
	case FLD_EVENT_COV: return snap_event_cov(s, row, i);
	case FLD_EVENT_RSE: return snap_event_rse(s, row, i);
	case FLD_METRIC_COV: return snap_metric_cov(s, row, i);
	default: return snap_metric_rse(s, row, i);
	}
}

static void per_item_gauge(struct buf *b, const struct snapshot *snap, enum snap_scope scope,
			   enum export_format f, enum field fl, const char *name, const char *help)
{
	const struct model *m = snap->model;
	bool ev = fl == FLD_EVENT_COV || fl == FLD_EVENT_RSE;
	int n = ev ? snap->nevents : snap->nmetrics;
	family(b, f, name, NULL, F_GAUGE, help);
	for (int i = 0; i < n; i++) {
		if (!(ev ? snap->event_planned[i] : snap->metric_planned[i]))
			continue;
		if (!ev && export_metric_duplicated(&m->metrics[i]))
			continue;   /* its gauge is not exported either */
		int w = ev ? (int)m->pmus[m->events[i].pmu].scope : (int)m->metrics[i].scope;
		enum snap_scope sc = export_at(snap, w, scope);
		/* A metric is named by its gauge's family, so that a query can
		 * join the two on it (the model's own name matches no series). */
		char *gauge = ev ? NULL : export_metric_name(&m->metrics[i]);
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *row = &snap->rows[sc][r];
			double v = field_of(snap, row, fl, i);
			if (isnan(v))
				continue;
			buf_str(b, name);
			labels(b, ev ? "event" : "metric", ev ? m->events[i].name : gauge, row, sc);
			buf_str(b, " ");
			buf_value(b, v);
			buf_str(b, "\n");
		}
		free(gauge);
	}
}

static void metric_families(struct buf *b, const struct snapshot *snap, enum snap_scope scope,
			    enum export_format f)
{
	const struct model *m = snap->model;
	for (int i = 0; i < snap->nmetrics; i++) {
		if (!snap->metric_planned[i] || export_metric_duplicated(&m->metrics[i]))
			continue;
		const struct metric_def *md = &m->metrics[i];
		const struct unit_map *u = unit_of(md->unit);
		char *name = export_metric_name(md);
		char *help = metric_help(md, NULL);
		family(b, f, name, NULL, F_GAUGE, help);
		enum snap_scope sc = export_at(snap, (int)md->scope, scope);
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *row = &snap->rows[sc][r];
			double v = snap_metric(snap, row, i);
			if (isnan(v))
				continue;
			buf_str(b, name);
			labels(b, NULL, NULL, row, sc);
			buf_str(b, " ");
			buf_value(b, u ? v * u->scale : v);
			buf_str(b, "\n");
		}
		free(name);
		free(help);
	}
}

/* A tasks view's figures: per process (labels comm and cgroup, and pid
 * with --export-pids) and per cgroup, each metric a family named as its
 * CPU one with "task" or "cgroup" for "metric", and their relative errors.
 * The hub has kept only the busiest --top rows (export_hub.c). */
static void task_families(struct buf *b, const struct snapshot *snap, enum export_format f, bool cgroups,
			  bool pids)
{
	const struct model *m = snap->model;
	const struct snap_task *rows = cgroups ? snap->cgroups : snap->tasks;
	int n = cgroups ? snap->ncgroups : snap->ntasks;
	const char *kind = cgroups ? "cgroup" : "task";
	for (int pass = 0; pass < 2; pass++) {
		char *ename = xasprintf("pmctop_%s_relative_error_ratio", kind);
		bool rse_head = false;
		for (int i = 0; i < snap->nmetrics; i++) {
			bool any = false;
			for (int k = 0; k < n && !any; k++)
				any = !isnan(pass ? rows[k].metric_rse[i] : rows[k].metric[i]);
			if (!any)
				continue;
			const struct metric_def *md = &m->metrics[i];
			const struct unit_map *u = unit_of(md->unit);
			char *mname = export_metric_name(md);
			/* pmctop_task_cpu_ratio, not pmctop_task_task_cpu_ratio. */
			const char *base = mname + strlen("pmctop_metric_");
			if (!strncmp(base, "task_", 5))
				base += 5;
			char *name = xasprintf("pmctop_%s_%s", kind, base);
			if (!pass) {
				char *help = metric_help(md, cgroups ? "cgroup" : "process");
				family(b, f, name, NULL, F_GAUGE, help);
				free(help);
			} else if (!rse_head) {
				char *help = xasprintf("Relative standard error of a per-%s figure (sampled).",
						       cgroups ? "cgroup" : "process");
				family(b, f, ename, NULL, F_GAUGE, help);
				free(help);
				rse_head = true;
			}
			for (int k = 0; k < n; k++) {
				const struct snap_task *t = &rows[k];
				double v = pass ? t->metric_rse[i] : t->metric[i];
				if (isnan(v))
					continue;
				buf_str(b, pass ? ename : name);
				buf_str(b, "{");
				if (pass) {
					buf_str(b, "metric=\"");
					buf_escaped(b, name, true);
					buf_str(b, "\",");
				}
				if (!cgroups && pids)
					buf_printf(b, "pid=\"%d\",", t->pid);
				if (!cgroups) {
					buf_str(b, "comm=\"");
					buf_escaped(b, t->comm, true);
					buf_str(b, "\",");
				}
				buf_str(b, "cgroup=\"");
				buf_escaped(b, t->cgroup, true);
				buf_str(b, "\"} ");
				buf_value(b, pass || !u ? v : v * u->scale);
				buf_str(b, "\n");
			}
			free(name);
			free(mname);
		}
		free(ename);
	}
}

char *export_render(const struct snapshot *snap, const struct export_totals *tot,
		    const struct export_opts *o, enum export_format f, size_t *len)
{
	enum snap_scope scope = o->scope;
	struct buf b = { 0 };
	buf_need(&b, 0);
	b.p[0] = '\0';
	const struct model *m = snap->model;
	family(&b, f, "pmctop_info", NULL, F_INFO, "The model pmctop measures with, and pmctop's version.");
	buf_str(&b, "pmctop_info{model=\"");
	buf_escaped(&b, m ? m->name : "", true);
	buf_printf(&b, "\",simulated=\"%s\",version=\"", snap->simulated ? "true" : "false");
	buf_escaped(&b, PACKAGE_VERSION, true);
	buf_str(&b, "\"} 1\n");
	family(&b, f, "pmctop_build_info", NULL, F_INFO,
	       "How this pmctop was built: its version, compiler and optional features.");
	buf_str(&b, "pmctop_build_info{version=\"");
	buf_escaped(&b, PACKAGE_VERSION, true);
	buf_str(&b, "\",compiler=\"");
	buf_escaped(&b, EXPORT_COMPILER, true);
	buf_str(&b, "\",features=\"");
	buf_escaped(&b, EXPORT_FEATURES, true);
	buf_str(&b, "\"} 1\n");

	family(&b, f, "pmctop_intervals_total", NULL, F_COUNTER, "Intervals measured since pmctop started.");
	buf_printf(&b, "pmctop_intervals_total %llu\n", (unsigned long long)tot->intervals);
	family(&b, f, "pmctop_sampler_cpu_seconds_total", NULL, F_COUNTER,
	       "CPU time the sampler spent reading and rotating counters.");
	buf_str(&b, "pmctop_sampler_cpu_seconds_total ");
	buf_value(&b, tot->sampler_cpu_s);
	buf_str(&b, "\n");
	family(&b, f, "pmctop_interval_seconds", NULL, F_GAUGE, "Length of the last interval.");
	buf_str(&b, "pmctop_interval_seconds ");
	buf_value(&b, snap->measured_s);
	buf_str(&b, "\n");
	/* The CPUs counted, for a fleet's utilisation (busy seconds per CPU,
	 * docs/fleet.md): at --export-scope ccx no series has a cpu label to
	 * count. */
	if (snap->nrows[SNAP_SYSTEM] > 0) {
		family(&b, f, "pmctop_online_cpus", NULL, F_GAUGE, "CPUs counted in the last interval.");
		buf_printf(&b, "pmctop_online_cpus %d\n", snap->rows[SNAP_SYSTEM][0].ncpus);
	}
	family(&b, f, "pmctop_last_interval_timestamp_seconds", NULL, F_GAUGE,
	       "When the last interval ended, in seconds since the epoch.");
	buf_str(&b, "pmctop_last_interval_timestamp_seconds ");
	buf_value(&b, snap->time);
	buf_str(&b, "\n");
	if (snap->recording) {
		family(&b, f, "pmctop_recording_ok", NULL, F_GAUGE,
		       "1 while the recording (-w) is written; 0 after a write error, until a retry succeeds.");
		buf_printf(&b, "pmctop_recording_ok %d\n", snap->recording_ok ? 1 : 0);
		family(&b, f, "pmctop_recording_errors_total", NULL, F_COUNTER,
		       "Write errors of the recording (-w): failed tries to write an interval.");
		buf_printf(&b, "pmctop_recording_errors_total %llu\n", snap->recording_errors);
	}
	if (!isnan(snap->rotate_ms)) {
		family(&b, f, "pmctop_rotation_period_seconds", NULL, F_GAUGE,
		       "Counter group rotation period in force; 0 when the kernel multiplexes.");
		buf_str(&b, "pmctop_rotation_period_seconds ");
		buf_value(&b, snap->rotate_ms / 1000.0);
		buf_str(&b, "\n");
	}
	/* How many lines the screen's notice has (why counters are missing,
	 * a plan that could not be opened, reads that failed), so that an
	 * interval of unknown figures can be alerted on. A count, not the
	 * text: free text in a label would make a new series of every
	 * wording (a number of CPUs, an errno) and break every join on it;
	 * the text is on stderr (the journal) as each line first appears,
	 * and in the dashboard and JSON output. */
	{
		int lines = 0;
		for (const char *l = snap->notice; l && *l; lines++) {
			size_t n = strcspn(l, "\n");
			l += n + (l[n] == '\n');
		}
		family(&b, f, "pmctop_notices", NULL, F_GAUGE,
		       "Lines of notice about the last interval (why counters are missing, a plan that "
		       "could not be opened, reads that failed); 0 when there is nothing to say. The text is "
		       "on stderr, in the dashboard and in the JSON output.");
		buf_printf(&b, "pmctop_notices %d\n", lines);
	}
	if (m) {
		totals_family(&b, snap, tot, scope, f, false);
		totals_family(&b, snap, tot, scope, f, true);
		portable_families(&b, snap, tot, scope, f);
		per_item_gauge(&b, snap, scope, f, FLD_EVENT_COV, "pmctop_event_coverage_ratio",
			       "Share of the last interval an event was counted (the rest is scaled up).");
		per_item_gauge(&b, snap, scope, f, FLD_EVENT_RSE, "pmctop_event_relative_error_ratio",
			       "Relative standard error of an event's count over the last interval.");
		metric_families(&b, snap, scope, f);
		per_item_gauge(&b, snap, scope, f, FLD_METRIC_COV, "pmctop_coverage_ratio",
			       "Lowest coverage of the events behind a metric over the last interval.");
		per_item_gauge(&b, snap, scope, f, FLD_METRIC_RSE, "pmctop_relative_error_ratio",
			       "Relative standard error of a metric over the last interval.");
		if (snap->tasks_on) {
			task_families(&b, snap, f, false, o->pids);
			task_families(&b, snap, f, true, o->pids);
		}
	}
	*len = b.len;
	return b.p;
}

/* One media range of an Accept header: its type and its q (1 if none). */
static double media_q(const char *s, size_t n, char *type, size_t tsz)
{
	size_t t = strcspn(s, ";");
	if (t > n)
		t = n;
	while (t > 0 && isspace((unsigned char)s[t - 1]))
		t--;
	while (t > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
		t--;
	}
	snprintf(type, tsz, "%.*s", (int)t, s);
	double q = 1;
	for (size_t i = t; i < n; i++) {
		if (s[i] != ';')
			continue;
		const char *p = s + i + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
			q = strtod(p + 2, NULL);
	}
	/* q is 0 to 1 (RFC 9110); "q=nan" or "q=1e999" must not outrank a
	 * well-formed range. */
	return isnan(q) || q < 0 ? 0 : q > 1 ? 1 : q;
}

enum export_format export_negotiate(const char *accept)
{
	double om = 0, text = 0;
	for (const char *s = accept; s && *s;) {
		size_t n = strcspn(s, ",");
		char type[128];
		double q = media_q(s, n, type, sizeof(type));
		if (!strcasecmp(type, "application/openmetrics-text") && q > om)
			om = q;
		else if ((!strcasecmp(type, "text/plain") || !strcasecmp(type, "text/*") ||
			  !strcmp(type, "*/*")) && q > text)
			text = q;
		s += n + (s[n] == ',');
	}
	return om > 0 && om >= text ? EXPORT_OPENMETRICS : EXPORT_TEXT;
}

bool export_accepts_gzip(const char *accept_encoding)
{
	double gzip = -1, any = -1;
	for (const char *s = accept_encoding; s && *s;) {
		size_t n = strcspn(s, ",");
		char coding[128];
		double q = media_q(s, n, coding, sizeof(coding));
		if (!strcasecmp(coding, "gzip") || !strcasecmp(coding, "x-gzip"))
			gzip = q;
		else if (!strcmp(coding, "*"))
			any = q;
		s += n + (s[n] == ',');
	}
	/* A coding named outranks "*" (RFC 9110 12.5.3). */
	return gzip >= 0 ? gzip > 0 : any > 0;
}

void export_route(const char *method, const char *url, const char *accept, struct export_route *r)
{
	*r = (struct export_route){ .code = 404, .text = "not found; pmctop serves /metrics\n" };
	if (!method || (strcmp(method, "GET") && strcmp(method, "HEAD"))) {
		r->code = 405;
		r->text = "pmctop serves GET /metrics\n";
		return;
	}
	size_t path = url ? strcspn(url, "?") : 0;
	if (path == 8 && !strncmp(url, "/metrics", 8)) {
		r->code = 200;
		r->metrics = true;
		r->format = export_negotiate(accept);
		r->text = NULL;
	} else if (path == 1 && url[0] == '/') {
		r->code = 200;
		r->text = "pmctop: hardware performance counters at /metrics\n";
	}
}
