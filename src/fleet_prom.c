/* fleet_prom.c: a refresh from Prometheus's HTTP API (fleet.h): a fixed
 * set of instant queries, every one for all hosts at once (sum by
 * instance), whatever the number of hosts: the targets' up, pmctop_info,
 * the error and coverage gauges, which hosts have hardware series, the
 * age of each one's last interval, then one query per column. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "name_index.h"
#include "util.h"

/* Percent-encodes a query for a URL. */
char *fleet_url_escape(const char *s)
{
	char *out = xmalloc(strlen(s) * 3 + 1), *p = out;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.~", c)) {
			*p++ = (char)c;
		} else {
			sprintf(p, "%%%02X", c);
			p += 3;
		}
	}
	*p = 0;
	return out;
}

char *fleet_reply_problem(const struct fleet_reply *r, int rc, const char *cause)
{
	if (!r->status)
		return xstrdup(r->err ? r->err : "no answer");
	if (r->status == 401 || r->status == 403)
		return xasprintf("HTTP %ld %s: check basic_auth in --fleet-config", r->status,
				 r->status == 401 ? "Unauthorized" : "Forbidden");
	if (rc == 0 && r->status == 200)
		return NULL;
	bool said = cause && !strncmp(cause, "Prometheus says", 15);
	return r->status == 200 ? xstrdup(cause ? cause : "a bad answer")
	       : said		 ? xasprintf("HTTP %ld: %s", r->status, cause)
				 : xasprintf("HTTP %ld", r->status);
}

/* An instant query's answer: NULL and its samples in out, or what is wrong
 * with it. */
static char *reply_problem(const struct fleet_reply *r, struct fleet_samples *out)
{
	char *cause = NULL;
	int rc = r->status ? fleet_parse_vector(r->body ? r->body : "", r->len, out, &cause) : -1;
	char *msg = fleet_reply_problem(r, rc, cause);
	if (msg)
		fleet_samples_done(out);
	free(cause);
	return msg;
}

/* The queries of a Prometheus refresh, before the columns'. */
enum { Q_UP, Q_INFO, Q_RSE, Q_COV, Q_HW, Q_AGE, Q_COLS };

/* One refresh's queries and their answers. */
struct round {
	int nq;
	char **q;
	struct fleet_samples *res;
};

static void round_done(struct round *r)
{
	for (int i = 0; i < r->nq; i++) {
		free(r->q[i]);
		fleet_samples_done(&r->res[i]);
	}
	free(r->q);
	free(r->res);
}

/* The selector of the error and coverage queries: the fleet's, and only
 * the metrics some column takes its doubt from (err=). An exporter writes
 * both gauges for every metric of its model, 10 to 11 a host, where the
 * columns read 7: asking for those alone makes the two largest answers a
 * third smaller and changes no figure. err= names are series names
 * (fleet_columns.c checks), so none needs escaping in the regex. */
static char *doubt_selector(const struct fleet *f)
{
	char *alt = NULL;
	for (int c = 0; c < f->cols->n; c++) {
		const char *e = f->cols->cols[c].err;
		bool seen = false;
		for (int d = 0; e && d < c && !seen; d++)
			seen = f->cols->cols[d].err && !strcmp(f->cols->cols[d].err, e);
		if (e && !seen)
			xappendf(&alt, "%s%s", alt ? "|" : "", e);
	}
	if (!alt)
		return xstrdup(f->sel);
	char *s = xasprintf("%s%smetric=~\"%s\"", f->sel, *f->sel ? "," : "", alt);
	free(alt);
	return s;
}

/* The API's URLs of the queries q, at the fleet's pinned time if any
 * (--fleet-at); the caller frees each and the array (one spare slot). */
static char **query_urls(const struct fleet *f, int nq, char *const *q)
{
	char **urls = xcalloc((size_t)nq + 1, sizeof(char *));
	char at[64] = "";
	if (isfinite(f->at))
		snprintf(at, sizeof(at), "&time=%.3f", f->at);
	for (int i = 0; i < nq; i++) {
		char *e = fleet_url_escape(q[i]);
		urls[i] = xasprintf("%s/api/v1/query?query=%s%s", f->base, e, at);
		free(e);
	}
	return urls;
}

/* Asks every query at once; the answers' problems, one line per reason
 * (the columns that failed for it named), go to *news. -1 with *cause
 * when up{} itself failed: the server, not a query, is at fault. */
static int ask(struct fleet *f, struct round *rd, char **news, char **cause)
{
	int nq = rd->nq = Q_COLS + f->cols->n;
	char **q = rd->q = xcalloc((size_t)nq, sizeof(char *));
	rd->res = xcalloc((size_t)nq, sizeof(*rd->res));
	q[Q_UP] = xasprintf("up{%s}", f->sel);
	q[Q_INFO] = xasprintf("pmctop_info{%s}", f->sel);
	char *doubt = doubt_selector(f);
	q[Q_RSE] = xasprintf("max by (instance, metric) (pmctop_relative_error_ratio{%s})", doubt);
	q[Q_COV] = xasprintf("min by (instance, metric) (pmctop_coverage_ratio{%s})", doubt);
	free(doubt);
	q[Q_HW] = xasprintf("count by (instance) (pmctop_cycles_total{%s})", f->sel);
	q[Q_AGE] = xasprintf("time() - max by (instance) (pmctop_last_interval_timestamp_seconds{%s})", f->sel);
	for (int i = 0; i < f->cols->n; i++)
		q[Q_COLS + i] = fleet_col_promql_total(&f->cols->cols[i], f->sel, f->window_s);
	char **urls = query_urls(f, nq, q);
	struct fleet_reply *r = xcalloc((size_t)nq, sizeof(*r));
	fleet_http_get(f->cfg, &f->cancel, nq, urls, r);
	char **whys = xcalloc((size_t)nq, sizeof(char *));
	for (int i = 0; i < nq; i++) {
		whys[i] = reply_problem(&r[i], &rd->res[i]);
		free(urls[i]);
		fleet_reply_done(&r[i]);
	}
	free(urls);
	free(r);
	int rc = 0;
	if (whys[Q_UP]) {
		/* The server failed: one line, not one per query. */
		rc = set_cause(cause, "%s: %s", f->base, whys[Q_UP]);
	} else {
		for (int i = 0; i < nq; i++) {
			if (!whys[i])
				continue;
			char *names = NULL;
			for (int j = i; j < nq; j++) {
				if (!whys[j] || strcmp(whys[j], whys[i]))
					continue;
				xappendf(&names, "%s%s", names ? ", " : "",
					 j >= Q_COLS ? f->cols->cols[j - Q_COLS].name : q[j]);
				if (j > i) {
					free(whys[j]);
					whys[j] = NULL;
				}
			}
			news_add(news, "%s: %s", names, whys[i]);
			free(names);
		}
	}
	for (int i = 0; i < nq; i++)
		free(whys[i]);
	free(whys);
	return rc;
}

/* The hosts: every instance Prometheus has a target for (one that left
 * its targets keeps a row that says so), what each is, whether it has
 * hardware series (hw[], per host), how old its last interval is, and
 * the reason for its '-' where it has one. */
static void hosts(struct fleet *f, const struct round *rd, bool **hw)
{
	for (int i = 0; i < f->nhosts; i++)
		host_status(&f->hosts[i], "gone: no longer among Prometheus's targets");
	const struct fleet_samples *up = &rd->res[Q_UP];
	for (int k = 0; k < up->n; k++) {
		struct host *h = host_find(f, up->v[k].instance);
		if (!h)
			h = host_add(f, up->v[k].instance);
		host_status(h, up->v[k].value == 1 ? NULL : "down: Prometheus's last scrape of it failed");
		h->stale = false;
		/* up{} has the target's labels (job, zone, rack...): this
		 * refresh's, so a target relabelled is grouped anew. */
		host_labels_from_prom(h, up->v[k].labels);
	}
	*hw = xcalloc((size_t)f->nhosts + 1, sizeof(bool));
	for (int i = 0; i < f->nhosts; i++) {
		host_clear_figs(f, &f->hosts[i]);
		f->hosts[i].age_s = NAN;
	}
	const struct fleet_samples *info = &rd->res[Q_INFO];
	for (int k = 0; k < info->n; k++) {
		struct host *h = host_find(f, info->v[k].instance);
		if (!h)
			continue;
		char *m = fleet_label(info->v[k].labels, "model");
		free(h->model);
		h->model = m ? m : xstrdup("");
		h->simulated = sample_is(&info->v[k], "simulated", "true");
	}
	for (int k = 0; k < rd->res[Q_HW].n; k++) {
		struct host *h = host_find(f, rd->res[Q_HW].v[k].instance);
		if (h)
			(*hw)[h - f->hosts] = true;
	}
	for (int k = 0; k < rd->res[Q_AGE].n; k++) {
		struct host *h = host_find(f, rd->res[Q_AGE].v[k].instance);
		if (h)
			h->age_s = rd->res[Q_AGE].v[k].value;
	}
	double stale_after = fmax(FLEET_STALE_MIN_S, FLEET_STALE_WINDOWS * f->window_s);
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		if (!h->status && h->age_s > stale_after) {
			char *s = xasprintf("stale: its last interval ended %.0f s ago", h->age_s);
			host_status(h, s);
			free(s);
		} else if (!h->status && !isfinite(h->age_s)) {
			host_status(h, "no interval yet: pmctop_last_interval_timestamp_seconds is missing");
		}
	}
}

/* Host h's figure v of column c (NaN where it has none: 0 / 0); its error
 * and coverage are doubts()'s. */
static void host_fig(struct host *h, const struct fleet_col *col, int c, double v)
{
	h->v[c] = isfinite(v) ? v : NAN;
	/* Not known until the exporter's gauge says. */
	h->rse[c] = col->err ? NAN : 0;
	h->cov[c] = 1;
	h->have_figs = true;
}

/* Column c's figures. The answer holds the whole fleet's figure (no
 * labels) and each host's numerator and denominator (pmctop_term="num",
 * "den"; a constant term is not asked), which a host's figure divides,
 * as Prometheus would have (the same doubles), and its groups sum
 * (fleet_groups.c). A sample of a host without pmctop_term is its figure
 * as such. */
static void column(struct fleet *f, const struct round *rd, int c, const bool *hw)
{
	const struct fleet_col *col = &f->cols->cols[c];
	const struct fleet_samples *cs = &rd->res[Q_COLS + c];
	f->total[c] = NAN;
	for (int k = 0; k < cs->n; k++) {
		if (!*cs->v[k].instance && !*cs->v[k].labels) {
			/* The whole fleet's (no labels). */
			double v = col->scale * cs->v[k].value;
			f->total[c] = isfinite(v) ? v : NAN;
			continue;
		}
		struct host *h = host_find(f, cs->v[k].instance);
		if (!h || h->status || (col->hardware && !hw[h - f->hosts]))
			continue;
		char *term = *cs->v[k].labels ? fleet_label(cs->v[k].labels, "pmctop_term") : NULL;
		if (!term) {
			host_fig(h, col, c, col->scale * cs->v[k].value);
			continue;
		}
		double *to = !strcmp(term, "num") ? h->num : !strcmp(term, "den") ? h->den : NULL;
		if (to)
			to[c] = cs->v[k].value;
		free(term);
	}
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		if (h->status || (col->hardware && !hw[i])) {
			h->num[c] = h->den[c] = NAN;
			continue;
		}
		if (col->num.agg == FLEET_CONST)
			h->num[c] = col->num.value;
		if (col->den.agg == FLEET_CONST)
			h->den[c] = col->den.value;
		/* Both terms answered: the host has the figure (a missing one:
		 * no figure, as PromQL's division would give none). */
		if (isnan(h->v[c]) && !isnan(h->num[c]) && !isnan(h->den[c]))
			host_fig(h, col, c, col->scale * h->num[c] / h->den[c]);
		/* As in direct mode: the terms count in its groups where the
		 * host has the figure. */
		if (isnan(h->v[c]))
			h->num[c] = h->den[c] = NAN;
	}
}

/* Each column's error and coverage from the exporters' gauges of its err=
 * metric (the highest error and lowest coverage of the host's rows: max
 * and min by instance, metric in the queries), on a host that has the
 * column's figure. One pass over each answer, each sample's metric read
 * once and its columns found by a hash (1,000 hosts x 7 metrics x 2). */
static void doubts(struct fleet *f, const struct round *rd)
{
	int n = f->cols->n;
	struct name_index *by_err = name_index_new();
	int *next = xmalloc(sizeof(int) * (size_t)n);   /* the next column of the same err=, or -1 */
	for (int c = n - 1; c >= 0; c--) {
		const char *e = f->cols->cols[c].err;
		next[c] = -1;
		if (!e)
			continue;
		int first = name_index_find(by_err, e);
		if (first >= 0) {
			/* name_index keeps a name's first value: chain behind it. */
			next[c] = next[first];
			next[first] = c;
		} else {
			name_index_add(by_err, e, c);
		}
	}
	for (int q = Q_RSE; q <= Q_COV; q++) {
		const struct fleet_samples *a = &rd->res[q];
		for (int k = 0; k < a->n; k++) {
			const struct fleet_sample *x = &a->v[k];
			char *m = fleet_label(x->labels, "metric");
			int c = m ? name_index_find(by_err, m) : -1;
			free(m);
			struct host *h = c >= 0 ? host_find(f, x->instance) : NULL;
			for (; h && c >= 0; c = next[c]) {
				if (isnan(h->v[c]))
					continue;
				if (q == Q_RSE)
					h->rse[c] = x->value;
				else
					h->cov[c] = x->value;
			}
		}
	}
	free(next);
	name_index_free(by_err);
}

int fleet_prom_queries(struct fleet *f, int nq, char *const *q, struct fleet_samples *res, char **cause)
{
	char **urls = query_urls(f, nq, q);
	struct fleet_reply *r = xcalloc((size_t)nq + 1, sizeof(*r));
	fleet_http_get(f->cfg, &f->cancel, nq, urls, r);
	int rc = 0;
	for (int i = 0; i < nq; i++) {
		char *why = reply_problem(&r[i], &res[i]);
		if (why && rc == 0)
			rc = set_cause(cause, "%s: %s", f->base, why);
		free(why);
		free(urls[i]);
		fleet_reply_done(&r[i]);
	}
	free(urls);
	free(r);
	return rc;
}

int fleet_prom_refresh(struct fleet *f, char **news, char **cause)
{
	struct round rd = { 0 };
	int rc = ask(f, &rd, news, cause);
	if (rc == 0) {
		bool *hw = NULL;
		hosts(f, &rd, &hw);
		for (int c = 0; c < f->cols->n; c++)
			column(f, &rd, c, hw);
		doubts(f, &rd);
		for (int i = 0; i < f->nhosts; i++)
			if (!f->hosts[i].status && !hw[i])
				host_status(&f->hosts[i], NO_HW);
		free(hw);
	}
	round_done(&rd);
	return rc;
}
