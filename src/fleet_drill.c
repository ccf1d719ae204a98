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
 * says why. Where the rows are CPUs, their cores and CCX (by the series'
 * core and ccx labels) get figures of their own, the CPUs' terms summed
 * before dividing: the CCX panels' (fleet_drill_topo.c). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "model.h"
#include "util.h"

#define placing fleet_placing
enum { NPLACING = 4 };

/* The narrowest placing label of family name in scrape s (-1: none, -2:
 * no such family). */
static int scope_of(const struct fleet_samples *s, const char *name)
{
	int best = -2;
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].name, name))
			continue;
		if (best == -2)
			best = -1;
		for (int k = 0; k < NPLACING && (best < 0 || k < best); k++) {
			char *v = fleet_label(s->v[i].labels, placing[k]);
			if (v)
				best = k;
			free(v);
		}
	}
	return best;
}

/* Why a term cannot be had per row of scope k, or NULL. */
static const char *term_why(const struct host *h, const struct fleet_term *t, int k)
{
	if (t->agg == FLEET_CONST)
		return NULL;
	int fk = scope_of(&h->cur, t->series);
	if (fk == -2)
		return NULL;   /* the host has none: '-' as on the fleet's row */
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
	if (scope_of(&h->cur, t->series) == -1) {
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
static char *reasons(const struct fleet *f, const struct drill_rows *d)
{
	char *out = NULL;
	bool *done = xcalloc((size_t)f->cols->n + 1, sizeof(bool));
	for (int c = 0; c < f->cols->n; c++) {
		if (!d->why[c] || done[c])
			continue;
		char *names = NULL;
		for (int e = c; e < f->cols->n; e++) {
			if (done[e] || !d->why[e] || strcmp(d->why[e], d->why[c]))
				continue;
			done[e] = true;
			xappendf(&names, "%s%s", names ? ", " : "", f->cols->cols[e].label);
		}
		xappendf(&out, "%s%s: %s", out ? "; " : "", names, d->why[c]);
		free(names);
	}
	free(done);
	return out;
}

/* Term t of the CPUs whose core (g 0) or ccx (g 1) label is id, summed
 * as a row's is; their CPU count is how many they are. */
static double group_term(const struct host *h, const struct drill_rows *d, const struct fleet_term *t, int g,
			 long id, double dt, double now)
{
	if (t->agg == FLEET_SUM && t->series && !strcmp(t->series, "pmctop_online_cpus")) {
		int n = 0;
		for (int r = 0; r < d->n; r++)
			n += d->place[r * 3 + g] == id;
		return n;
	}
	char val[32];
	snprintf(val, sizeof(val), "%ld", id);
	return row_term(h, t, g + 1, val, dt, now);
}

/* Direct mode: the CPU rows' cores and CCX, each's figures from its CPUs'
 * counters summed before dividing (a CCX's IPC is its CPUs' instructions
 * over their cycles). */
static void groups_direct(struct fleet *f, const struct host *h, struct drill_rows *d, double dt, double now)
{
	int nc = f->cols->n;
	for (int g = 0; g < 2; g++)
		for (int r = 0; r < d->n; r++)
			if (d->place[r * 3 + g] >= 0)
				drill_group_add(f, d, g, d->place[r * 3 + g]);
	for (int g = 0; g < 2; g++)
		for (int i = 0; i < d->grp[g].n; i++)
			for (int c = 0; c < nc; c++) {
				const struct fleet_col *col = &f->cols->cols[c];
				double num = group_term(h, d, &col->num, g, d->grp[g].ids[i], dt, now);
				double den = group_term(h, d, &col->den, g, d->grp[g].ids[i], dt, now);
				double v = col->scale * num / den;
				d->grp[g].v[i * nc + c] = isfinite(v) ? v : NAN;
			}
}

/* Direct mode: host h's rows from its last two scrapes. */
static void drill_direct(struct fleet *f, const struct host *h, struct drill_rows *d)
{
	int k = d->k, nc = f->cols->n;
	for (int i = 0; i < h->cur.n; i++) {
		if (strcmp(h->cur.v[i].name, "pmctop_busy_seconds_total"))
			continue;
		char *v = fleet_label(h->cur.v[i].labels, placing[k]);
		if (v)
			drill_row_place(d, drill_row_add(f, d, strtol(v, NULL, 10)), h->cur.v[i].labels);
		free(v);
	}
	for (int c = 0; c < nc; c++) {
		const struct fleet_col *col = &f->cols->cols[c];
		d->why[c] = term_why(h, &col->num, k);
		if (!d->why[c])
			d->why[c] = term_why(h, &col->den, k);
	}
	double now = fleet_now(), dt = stamp(&h->cur) - stamp(&h->prev);
	for (int i = 0; i < d->n; i++) {
		char val[32];
		snprintf(val, sizeof(val), "%ld", d->ids[i]);
		for (int c = 0; c < nc; c++) {
			const struct fleet_col *col = &f->cols->cols[c];
			double num = row_term(h, &col->num, k, val, dt, now);
			double den = row_term(h, &col->den, k, val, dt, now);
			double v = col->scale * num / den;
			int x = i * nc + c;
			if (!isfinite(v))
				continue;
			d->v[x] = v;
			d->rse[x] = 0;
			d->cov[x] = 1;
			if (!col->err)
				continue;
			/* The row's own error and coverage of the metric. */
			char *lab = xasprintf("metric=\"%s\"", col->err);
			struct fleet_term e = { .agg = FLEET_MAX, .series = "pmctop_relative_error_ratio", .label = lab };
			d->rse[x] = fleet_agg_row(&h->cur, &e, FLEET_MAX, placing[k], val);
			e.series = "pmctop_coverage_ratio";
			d->cov[x] = fleet_agg_row(&h->cur, &e, FLEET_MIN, placing[k], val);
			free(lab);
		}
	}
	if (k == 0)
		groups_direct(f, h, d, dt, now);
}

bool fleet_drill_known(struct fleet *f, const char *name)
{
	return host_find(f, name) != NULL;
}

struct snapshot *fleet_drill(struct fleet *f, const char *name, char **note)
{
	struct host *h = host_find(f, name);
	int nc = f->cols->n;
	struct drill_rows d = { .k = -1 };
	d.why = xcalloc((size_t)nc + 1, sizeof(char *));
	d.host = xmalloc(sizeof(double) * (size_t)(nc + 1));
	for (int c = 0; c < nc; c++)
		d.host[c] = NAN;
	*note = NULL;
	if (!h) {
		*note = xasprintf("%s is not among the fleet's hosts", name);
	} else if (f->prom) {
		char *cause = NULL;
		if (fleet_drill_prom(f, h, &d, &cause) < 0)
			*note = cause;
	} else if (!h->have_cur || !h->have_prev) {
		*note = xasprintf("%s: %s", name, h->status ? h->status : "waiting for a second scrape");
	} else {
		d.k = scope_of(&h->cur, "pmctop_busy_seconds_total");
		if (d.k < 0)
			*note = xasprintf("%s publishes no per-row series (pmctop_busy_seconds_total has no cpu, "
					  "core, ccx or socket label)", name);
		else
			drill_direct(f, h, &d);
	}
	if (!*note && d.k > 0)
		*note = xasprintf("the exporter publishes per-%s series only: run it with --export-scope cpu "
				  "for its CPUs", d.k == 1 ? "core" : d.k == 2 ? "CCX" : "socket");
	int n = d.n;
	struct snapshot *s = drill_snapshot_new(f, &d);
	s->drill = xstrdup(name);
	if (h && f->past > 0)
		drill_history(f, h, s, note);
	s->nhosts = n;
	s->hosts = xcalloc((size_t)n + 1, sizeof(*s->hosts));
	for (int m = 0; m < nc; m++)
		s->metric_planned[m] = true;
	struct snap_row *sys = &s->rows[SNAP_SYSTEM][0];
	sys->cpu = sys->core = sys->ccx = sys->socket = -1;
	bool figs = h && h->have_figs && !h->stale && !f->prom;
	for (int c = 0; c < nc; c++) {
		/* The header's line: the host's own figures (this refresh's:
		 * direct mode scraped it, Prometheus answered them). */
		int mc = snap_mcol(s, c);
		sys->mv[mc] = f->prom ? d.host[c] : figs ? h->v[c] : NAN;
		sys->mrse[mc] = figs ? h->rse[c] : f->prom && !isnan(d.host[c]) && !f->cols->cols[c].err ? 0 : NAN;
		sys->mcov[mc] = figs ? h->cov[c] : f->prom && !isnan(d.host[c]) ? 1 : NAN;
	}
	char *why = n ? reasons(f, &d) : NULL;
	/* Names padded to one width, so that sorting by name is by number. */
	int w = n ? snprintf(NULL, 0, "%ld", d.ids[n - 1]) : 0;
	for (int i = 0; i < n; i++) {
		struct snap_row *row = &s->rows[SNAP_CPU][i];
		row->ncpus = d.k == 0 ? 1 : 0;
		for (int c = 0; c < nc; c++) {
			int mc = snap_mcol(s, c);
			row->mv[mc] = d.v[i * nc + c];
			row->mrse[mc] = d.rse[i * nc + c];
			row->mcov[mc] = d.cov[i * nc + c];
		}
		struct snap_host *sh = &s->hosts[i];
		sh->name = xasprintf("%s %*ld", placing[d.k], w, d.ids[i]);
		sh->model = xstrdup(h->model ? h->model : "");
		sh->simulated = h->simulated;
		sh->status = why ? xasprintf("%s; - %s", h->simulated ? "SIMULATED" : "ok", why) : NULL;
		sh->age_s = h->age_s;
		sh->k0 = h->k0;
		sh->k1 = h->k1;
	}
	free(why);
	drill_rows_done(&d);
	return s;
}
