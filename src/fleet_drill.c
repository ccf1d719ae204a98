/* fleet_drill.c: one host of a fleet seen on its own (fleet.h,
 * fleet_drill): a snapshot whose rows are the host's own CPUs (or cores,
 * CCX, sockets: the narrowest rows its exporter publishes,
 * --export-scope), each with the fleet's columns computed over that row's
 * series alone: IPC is the row's instructions over the row's cycles.
 *
 * Direct mode reads the two scrapes that the host's figures come from
 * (no request of its own). A family the exporter publishes only at a
 * wider scope than the rows (memory per socket) or for the whole host
 * (pmctop_online_cpus) cannot be split: the row shows '-' and its STATUS
 * says why. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "model.h"
#include "util.h"

/* The labels that place a row, narrowest first (docs/exporter.md). */
static const char *const placing[] = { "cpu", "core", "ccx", "socket" };
enum { NPLACING = 4 };

/* The narrowest placing label of family name in scrape s (-1: none). */
static int scope_of(const struct fleet_samples *s, const char *name)
{
	int best = -1;
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].name, name))
			continue;
		for (int k = 0; k < NPLACING && (best < 0 || k < best); k++) {
			char *v = fleet_label(s->v[i].labels, placing[k]);
			if (v)
				best = k;
			free(v);
		}
	}
	return best;
}

/* The rows: the distinct values of label key among family name's
 * samples, in numeric order. */
static int row_ids(const struct fleet_samples *s, const char *name, const char *key, long **ids)
{
	int n = 0;
	*ids = xcalloc((size_t)s->n + 1, sizeof(long));
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].name, name))
			continue;
		char *v = fleet_label(s->v[i].labels, key);
		if (!v)
			continue;
		long id = strtol(v, NULL, 10);
		free(v);
		int j = 0;
		while (j < n && (*ids)[j] < id)
			j++;
		if (j < n && (*ids)[j] == id)
			continue;
		memmove(&(*ids)[j + 1], &(*ids)[j], sizeof(long) * (size_t)(n - j));
		(*ids)[j] = id;
		n++;
	}
	return n;
}

/* Why a term cannot be had per row of scope k, or NULL. */
static const char *term_why(const struct host *h, const struct fleet_term *t, int k)
{
	if (t->agg == FLEET_CONST)
		return NULL;
	int fk = scope_of(&h->cur, t->series);
	if (fk < 0) {
		/* A gauge of the whole host (an age, a timestamp) is each row's
		 * too; a sum of it cannot be split (save the CPU count of a
		 * CPU row, below). */
		bool whole = t->agg == FLEET_AGE || t->agg == FLEET_MIN || t->agg == FLEET_MAX || t->agg == FLEET_AVG;
		if (whole || (k == 0 && !strcmp(t->series, "pmctop_online_cpus")))
			return NULL;
		return "the exporter publishes them for the whole host only";
	}
	if (fk > k) {
		static const char *const wider[] = { "", "per core only", "per CCX only", "per socket only" };
		return wider[fk];
	}
	return NULL;
}

/* Term t of the row whose label key is val (dt: the exporter's time
 * between the two scrapes). */
static double row_term(const struct host *h, const struct fleet_term *t, int k, const char *val, double dt,
		       double now)
{
	const char *key = placing[k];
	if (t->agg == FLEET_CONST)
		return t->value;
	if (term_why(h, t, k))
		return NAN;
	if (scope_of(&h->cur, t->series) < 0) {
		if (!strcmp(t->series, "pmctop_online_cpus") && (t->agg == FLEET_SUM || t->agg == FLEET_RATE))
			return 1;   /* a CPU row is one CPU */
		key = NULL;
	}
	switch (t->agg) {
	case FLEET_RATE:
	case FLEET_CRATE: {
		if (!h->have_prev || !(dt > 0))
			return NAN;
		double a = fleet_agg_row(&h->prev, t, FLEET_SUM, key, val);
		double b = fleet_agg_row(&h->cur, t, FLEET_SUM, key, val);
		return b >= a ? (b - a) / dt : NAN;
	}
	case FLEET_AGE:
		return now - fleet_agg_row(&h->cur, t, FLEET_AGE, key, val);
	default:
		return fleet_agg_row(&h->cur, t, t->agg, key, val);
	}
}

static double stamp(const struct fleet_samples *s)
{
	struct fleet_term t = { .agg = FLEET_MAX, .series = "pmctop_last_interval_timestamp_seconds" };
	return fleet_agg_row(s, &t, FLEET_MAX, NULL, NULL);
}

/* The reasons for the '-' of every row (they depend on the families'
 * scopes, not on the row): "MEM, WATT: per socket only; ...". */
static char *reasons(const struct fleet *f, const struct host *h, int k)
{
	char *out = NULL;
	bool *done = xcalloc((size_t)f->cols->n + 1, sizeof(bool));
	for (int c = 0; c < f->cols->n; c++) {
		const struct fleet_col *col = &f->cols->cols[c];
		const char *why = term_why(h, &col->num, k);
		if (!why)
			why = term_why(h, &col->den, k);
		if (!why || done[c])
			continue;
		char *names = NULL;
		for (int d = c; d < f->cols->n; d++) {
			const struct fleet_col *o = &f->cols->cols[d];
			const char *w = term_why(h, &o->num, k);
			if (!w)
				w = term_why(h, &o->den, k);
			if (done[d] || !w || strcmp(w, why))
				continue;
			done[d] = true;
			xappendf(&names, "%s%s", names ? ", " : "", o->label);
		}
		xappendf(&out, "%s%s: %s", out ? "; " : "", names, why);
		free(names);
	}
	free(done);
	return out;
}

struct snapshot *fleet_drill(struct fleet *f, const char *name, char **note)
{
	struct host *h = host_find(f, name);
	int nrows[SNAP_NSCOPES] = { 0 };
	nrows[SNAP_SYSTEM] = 1;
	long *ids = NULL;
	int k = -1, n = 0;
	*note = NULL;
	if (!h) {
		*note = xasprintf("%s is not among the fleet's hosts", name);
	} else if (f->prom) {
		*note = xstrdup("drill down reads the exporters directly: Prometheus mode does not have it yet");
	} else if (!h->have_cur || !h->have_prev) {
		*note = xasprintf("%s: %s", name, h->status ? h->status : "waiting for a second scrape");
	} else {
		k = scope_of(&h->cur, "pmctop_busy_seconds_total");
		if (k < 0)
			*note = xasprintf("%s publishes no per-row series (pmctop_busy_seconds_total has no cpu, "
					  "core, ccx or socket label)", name);
		else
			n = row_ids(&h->cur, "pmctop_busy_seconds_total", placing[k], &ids);
		if (k > 0)
			*note = xasprintf("the exporter publishes per-%s series only: run it with --export-scope cpu "
					  "for its CPUs", k == 1 ? "core" : k == 2 ? "CCX" : "socket");
	}
	nrows[SNAP_CPU] = n;
	struct snapshot *s = snapshot_new(f->model, nrows);
	s->seq = ++f->seq;
	s->time = fleet_now();
	s->measured_s = f->interval_s;
	s->interval_s = f->interval_s;
	s->rotate_ms = NAN;
	s->drill = xstrdup(name);
	s->nhosts = n;
	s->hosts = xcalloc((size_t)n + 1, sizeof(*s->hosts));
	for (int m = 0; m < f->cols->n; m++)
		s->metric_planned[m] = true;
	struct snap_row *sys = &s->rows[SNAP_SYSTEM][0];
	sys->cpu = sys->core = sys->ccx = sys->socket = -1;
	for (int c = 0; c < f->cols->n; c++) {
		/* The header's line: the host's own figures. */
		int mc = snap_mcol(s, c);
		sys->mv[mc] = h && h->have_figs && !h->stale ? h->v[c] : NAN;
		sys->mrse[mc] = h && h->have_figs && !h->stale ? h->rse[c] : NAN;
		sys->mcov[mc] = h && h->have_figs && !h->stale ? h->cov[c] : NAN;
	}
	if (n == 0) {
		free(ids);
		return s;
	}
	double now = fleet_now(), dt = stamp(&h->cur) - stamp(&h->prev);
	char *why = reasons(f, h, k);
	/* Names padded to one width, so that sorting by name is by number. */
	int w = snprintf(NULL, 0, "%ld", ids[n - 1]);
	for (int i = 0; i < n; i++) {
		char val[32];
		snprintf(val, sizeof(val), "%ld", ids[i]);
		struct snap_row *row = &s->rows[SNAP_CPU][i];
		row->id = row->cpu = i;
		row->core = row->ccx = row->socket = -1;
		row->ncpus = k == 0 ? 1 : 0;
		for (int c = 0; c < f->cols->n; c++) {
			const struct fleet_col *col = &f->cols->cols[c];
			int mc = snap_mcol(s, c);
			double num = row_term(h, &col->num, k, val, dt, now);
			double den = row_term(h, &col->den, k, val, dt, now);
			double v = col->scale * num / den;
			row->mv[mc] = isfinite(v) ? v : NAN;
			row->mrse[mc] = row->mcov[mc] = NAN;
			if (!isfinite(v))
				continue;
			row->mrse[mc] = 0;
			row->mcov[mc] = 1;
			if (!col->err)
				continue;
			/* The row's own error and coverage of the metric. */
			char *lab = xasprintf("metric=\"%s\"", col->err);
			struct fleet_term e = { .agg = FLEET_MAX, .series = "pmctop_relative_error_ratio", .label = lab };
			row->mrse[mc] = fleet_agg_row(&h->cur, &e, FLEET_MAX, placing[k], val);
			e.series = "pmctop_coverage_ratio";
			row->mcov[mc] = fleet_agg_row(&h->cur, &e, FLEET_MIN, placing[k], val);
			free(lab);
		}
		struct snap_host *sh = &s->hosts[i];
		sh->name = xasprintf("%s %*ld", placing[k], w, ids[i]);
		sh->model = xstrdup(h->model ? h->model : "");
		sh->simulated = h->simulated;
		sh->status = why ? xasprintf("%s; - %s", h->simulated ? "SIMULATED" : "ok", why) : NULL;
		sh->age_s = h->age_s;
		sh->k0 = h->k0;
		sh->k1 = h->k1;
	}
	free(why);
	free(ids);
	return s;
}
