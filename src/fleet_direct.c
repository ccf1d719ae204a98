/* fleet_direct.c: a refresh from the exporters themselves (fleet.h):
 * every /metrics scraped at once, and each column the ratio of the
 * counters' deltas between a host's last two scrapes that saw a new
 * interval, over the exporter's own time between them. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "util.h"

/* Direct mode: a term of a host's scrapes (the rate from prev to cur). */
static bool matches(const struct fleet_sample *x, const struct fleet_term *t)
{
	if (strcmp(x->name, t->series))
		return false;
	if (!t->label)
		return true;
	const char *eq = strchr(t->label, '=');
	char *key = xstrndup(t->label, (size_t)(eq - t->label));
	char *want = xstrndup(eq + 2, strlen(eq + 2) - 1);
	bool ok = sample_is(x, key, want);
	free(key);
	free(want);
	return ok;
}

/* Sum (or min, max, mean) of a family's rows in one scrape (those whose
 * label key is val, where key is not NULL); NaN when the scrape has none. */
double fleet_agg_row(const struct fleet_samples *s, const struct fleet_term *t, enum fleet_agg agg, const char *key,
		     const char *val)
{
	double acc = NAN;
	int n = 0;
	for (int i = 0; i < s->n; i++) {
		if (!matches(&s->v[i], t) || (key && !sample_is(&s->v[i], key, val)))
			continue;
		double v = s->v[i].value;
		if (n++ == 0)
			acc = v;
		else if (agg == FLEET_MIN)
			acc = fmin(acc, v);
		else if (agg == FLEET_MAX || agg == FLEET_AGE)
			acc = fmax(acc, v);
		else
			acc += v;
	}
	return agg == FLEET_AVG && n ? acc / n : acc;
}

static double agg_of(const struct fleet_samples *s, const struct fleet_term *t, enum fleet_agg agg)
{
	return fleet_agg_row(s, t, agg, NULL, NULL);
}

static double one(const struct fleet_samples *s, const char *name)
{
	struct fleet_term t = { .agg = FLEET_MAX, .series = (char *)name };
	return agg_of(s, &t, FLEET_MAX);
}

static double term_value(const struct host *h, const struct fleet_term *t, double dt, double now)
{
	switch (t->agg) {
	case FLEET_CONST:
		return t->value;
	case FLEET_RATE:
	case FLEET_CRATE: {
		/* dt is the exporter's own time: a rate and a crate agree. */
		if (!h->have_prev || !(dt > 0))
			return NAN;
		double a = agg_of(&h->prev, t, FLEET_SUM), b = agg_of(&h->cur, t, FLEET_SUM);
		/* A counter that went back: the exporter restarted. */
		return b >= a ? (b - a) / dt : NAN;
	}
	case FLEET_AGE:
		return now - agg_of(&h->cur, t, FLEET_AGE);
	default:
		return agg_of(&h->cur, t, t->agg);
	}
}

static void direct_figures(struct fleet *f, struct host *h, double now)
{
	double dt = one(&h->cur, "pmctop_last_interval_timestamp_seconds") -
		    one(&h->prev, "pmctop_last_interval_timestamp_seconds");
	bool hw = !isnan(one(&h->cur, "pmctop_cycles_total"));
	h->k0 = h->have_prev ? one(&h->prev, "pmctop_intervals_total") : NAN;
	h->k1 = one(&h->cur, "pmctop_intervals_total");
	h->age_s = now - one(&h->cur, "pmctop_last_interval_timestamp_seconds");
	for (int c = 0; c < f->cols->n; c++) {
		const struct fleet_col *col = &f->cols->cols[c];
		h->v[c] = h->rse[c] = h->cov[c] = NAN;
		if (col->hardware && !hw)
			continue;
		h->num[c] = term_value(h, &col->num, dt, now);
		h->den[c] = term_value(h, &col->den, dt, now);
		double v = col->scale * h->num[c] / h->den[c];
		if (!isfinite(v)) {
			h->num[c] = h->den[c] = NAN;
			continue;
		}
		h->v[c] = v;
		h->rse[c] = 0;
		h->cov[c] = 1;
		if (!col->err)
			continue;
		struct fleet_term e = { .agg = FLEET_MAX, .series = "pmctop_relative_error_ratio" };
		char *lab = xasprintf("metric=\"%s\"", col->err);
		e.label = lab;
		h->rse[c] = agg_of(&h->cur, &e, FLEET_MAX);
		e.series = "pmctop_coverage_ratio";
		double cov = agg_of(&h->cur, &e, FLEET_MIN);
		h->cov[c] = isnan(cov) ? NAN : cov;
		free(lab);
	}
	h->have_figs = true;
	if (!hw)
		host_status(h, NO_HW);
}

/* What is wrong with a host's answer, in one line, or NULL; *s holds
 * its samples when there is nothing wrong. */
static char *scrape_problem(const struct host *h, const struct fleet_reply *r, struct fleet_samples *s)
{
	int bad = 0;
	if (!r->status)
		return xasprintf("down: %s", r->err ? r->err : "no answer");
	if (r->status == 401 || r->status == 403)
		return xasprintf("HTTP %ld %s: check basic_auth in --fleet-config", r->status,
				 r->status == 401 ? "Unauthorized" : "Forbidden");
	if (r->status != 200)
		return xasprintf("HTTP %ld from %s", r->status, h->url);
	if (fleet_parse_text(r->body ? r->body : "", r->len, s, &bad) == 0)
		return xstrdup("not a pmctop exporter: no series in its answer");
	if (isnan(one(s, "pmctop_last_interval_timestamp_seconds")))
		return xstrdup("no interval yet: pmctop_last_interval_timestamp_seconds is missing");
	return NULL;
}

/* A host that did not answer (why): said when it starts failing, not at
 * every refresh (the text itself changes: "after 19 ms"); its last good
 * figures stay, marked stale. */
static void failed(struct host *h, const char *why, char **news)
{
	if (!h->failing)
		news_add(news, "%s: %s", h->name, why);
	h->failing = true;
	if (h->have_figs) {
		char *st = xasprintf("stale: %s", why);
		host_status(h, st);
		free(st);
		h->stale = true;
	} else {
		host_status(h, why);
	}
}

/* A host's new scrape s (taken: freed or kept here). */
static void scraped(struct fleet *f, struct host *h, struct fleet_samples *s, double now, char **news)
{
	if (h->failing)
		news_add(news, "%s: answers again", h->name);
	h->failing = false;
	h->stale = false;
	host_status(h, NULL);
	char *m = NULL;
	for (int k = 0; k < s->n && !m; k++)
		if (!strcmp(s->v[k].name, "pmctop_info")) {
			m = fleet_label(s->v[k].labels, "model");
			h->simulated = sample_is(&s->v[k], "simulated", "true");
		}
	free(h->model);
	h->model = m ? m : xstrdup("");
	double k = one(s, "pmctop_intervals_total");
	double kc = h->have_cur ? one(&h->cur, "pmctop_intervals_total") : NAN;
	if (h->have_cur && k == kc) {
		/* No new interval since the last scrape: the figures, and what
		 * they lack, stand. */
		fleet_samples_done(s);
		h->age_s = now - one(&h->cur, "pmctop_last_interval_timestamp_seconds");
		double stale_after = fmax(FLEET_STALE_MIN_S, FLEET_STALE_WINDOWS * f->interval_s);
		if (h->age_s > stale_after) {
			/* Its sampler is stuck: the figures describe another time. */
			char *st = xasprintf("stale: its last interval ended %.0f s ago", h->age_s);
			host_status(h, st);
			free(st);
		} else if (!h->have_prev) {
			host_status(h, "waiting for a second scrape");
		} else if (isnan(one(&h->cur, "pmctop_cycles_total"))) {
			host_status(h, NO_HW);
		}
		return;
	}
	if (h->have_cur && k < kc) {
		host_status(h, "restarted: figures from its next scrape");
		host_clear_figs(f, h);
		fleet_samples_done(&h->prev);
		/* The new scrape starts over: the old one is done with. */
		fleet_samples_done(&h->cur);
		h->have_prev = false;
	} else if (h->have_cur) {
		fleet_samples_done(&h->prev);
		h->prev = h->cur;
		h->have_prev = true;
	}
	h->cur = *s;
	h->have_cur = true;
	if (h->have_prev)
		direct_figures(f, h, now);
	else if (!h->status)
		host_status(h, "waiting for a second scrape");
}

double fleet_combine(enum fleet_agg agg, double acc, double v, int n)
{
	if (n == 0)
		return v;
	switch (agg) {
	case FLEET_MIN: case FLEET_AGE: return fmin(acc, v);
	case FLEET_MAX: return fmax(acc, v);
	case FLEET_AVG: return acc + (v - acc) / (n + 1);
	case FLEET_CONST: return v;
	default: return acc + v;
	}
}

/* The fleet's own figure of each column: the same definition over every
 * host with figures this refresh, its terms combined before dividing
 * (the fleet's IPC is all instructions over all cycles). */
double fleet_direct_total(const struct fleet *f, int c, const bool *in)
{
	const struct fleet_col *col = &f->cols->cols[c];
	double num = NAN, den = NAN;
	int n = 0;
	for (int i = 0; i < f->nhosts; i++) {
		const struct host *h = &f->hosts[i];
		if ((in && !in[i]) || h->stale || isnan(h->num[c]) || isnan(h->den[c]))
			continue;
		num = fleet_combine(col->num.agg, num, h->num[c], n);
		den = fleet_combine(col->den.agg, den, h->den[c], n);
		n++;
	}
	double v = col->scale * num / den;
	return n && isfinite(v) ? v : NAN;
}

static void totals(struct fleet *f)
{
	for (int c = 0; c < f->cols->n; c++)
		f->total[c] = fleet_direct_total(f, c, NULL);
}

int fleet_direct_refresh(struct fleet *f, char **news)
{
	char **urls = xcalloc((size_t)f->nhosts + 1, sizeof(char *));
	int *at = xcalloc((size_t)f->nhosts + 1, sizeof(int));
	int n = 0;
	/* A target taken out of the targets file is not scraped. */
	for (int i = 0; i < f->nhosts; i++)
		if (!f->hosts[i].removed) {
			at[n] = i;
			urls[n++] = f->hosts[i].url;
		}
	struct fleet_reply *r = xcalloc((size_t)n + 1, sizeof(*r));
	fleet_http_get(f->cfg, &f->cancel, n, urls, r);
	double now = fleet_now();
	for (int j = 0; j < n; j++) {
		struct host *h = &f->hosts[at[j]];
		struct fleet_samples s = { 0 };
		char *why = scrape_problem(h, &r[j], &s);
		if (why) {
			fleet_samples_done(&s);
			failed(h, why, news);
			free(why);
		} else {
			scraped(f, h, &s, now, news);
		}
		fleet_reply_done(&r[j]);
	}
	totals(f);
	free(r);
	free(at);
	free(urls);
	return 0;
}
