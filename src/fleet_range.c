/* fleet_range.c: a drilled host's history (fleet.h, fleet_set_history):
 * its own figures of the columns marked `history` in
 * events/fleet/columns.txt before the drill's first refresh, so that the
 * sparklines have a history from the first frame on rather than start
 * empty. Prometheus mode asks /api/v1/query_range once per such column
 * (the column's query for that host alone, by instance: one series) over
 * the last f->past steps of the refresh delay; direct mode has no history
 * to ask for, so it keeps every host's figures of each refresh since start
 * (fleet_keep_history) and gives the drilled host's. */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "util.h"

void fleet_set_history(struct fleet *f, int points)
{
	f->past = points > 0 ? points : 0;
}

static void past_alloc(struct snapshot *s, int n, double step)
{
	s->npast = n;
	s->past_step = step;
	s->past_t = xcalloc((size_t)n + 1, sizeof(double));
	s->past_v = xmalloc(sizeof(double) * ((size_t)n * (size_t)s->nmetrics + 1));
	for (size_t i = 0; i < (size_t)n * (size_t)s->nmetrics; i++)
		s->past_v[i] = NAN;
}

/* A query_range answer's first series, times scale, into column c of s's
 * past points (start, s->past_step apart); -1 with *cause when it is no
 * good answer, as an instant query's would be said, or not a matrix. */
static int matrix(const struct fleet_reply *r, struct snapshot *s, int c, double scale, double start, char **cause)
{
	const char *type = NULL;
	json_t *res = NULL, *root = NULL;
	char *why = NULL;
	if (r->status)
		root = fleet_api_result(r->body ? r->body : "", r->len, &type, &res, &why);
	if (root && strcmp(type, "matrix")) {
		why = xasprintf("the answer is a %s, not a range's matrix", type);
		text_sanitize_inplace(why);
	}
	char *msg = fleet_reply_problem(r, root && !why ? 0 : -1, why);
	free(why);
	int rc = 0;
	if (msg) {
		rc = set_cause(cause, "%s", msg);
		free(msg);
	} else if (json_array_size(res) > 0) {
		json_t *vals = json_object_get(json_array_get(res, 0), "values"), *p;
		size_t i;
		json_array_foreach(vals, i, p) {
			double t = json_number_value(json_array_get(p, 0));
			const char *v = json_string_value(json_array_get(p, 1));
			long k = lround((t - start) / s->past_step);
			if (v && k >= 0 && k < s->npast) {
				double x = scale * strtod(v, NULL);
				s->past_v[k * s->nmetrics + c] = isfinite(x) ? x : NAN;
			}
		}
	}
	json_decref(root);
	return rc;
}

/* Prometheus: one query_range per history column, all at once. */
static void ask_range(struct fleet *f, const struct host *h, struct snapshot *s, char **note)
{
	int nc = f->cols->n, n = f->past;
	double step = f->interval_s > 0 ? f->interval_s : 1;
	/* Its last point is this refresh's own (the screen leaves it out). */
	double end = s->time, start = end - (n - 1) * step;
	past_alloc(s, n, step);
	for (int i = 0; i < n; i++)
		s->past_t[i] = start + i * step;
	char *sel = fleet_host_selector(f, h->name);
	char **urls = xcalloc((size_t)nc + 1, sizeof(char *));
	int *col = xcalloc((size_t)nc + 1, sizeof(int)), nq = 0;
	for (int c = 0; c < nc; c++) {
		if (!f->cols->cols[c].history)
			continue;
		char *q = fleet_col_promql(&f->cols->cols[c], sel, f->window_s);
		char *e = fleet_url_escape(q);
		urls[nq] = xasprintf("%s/api/v1/query_range?query=%s&start=%.3f&end=%.3f&step=%g", f->base, e, start,
				     end, step);
		col[nq++] = c;
		free(e);
		free(q);
	}
	free(sel);
	struct fleet_reply *r = xcalloc((size_t)nq + 1, sizeof(*r));
	fleet_http_get(f->cfg, &f->cancel, nq, urls, r);
	char *why = NULL;
	for (int i = 0; i < nq; i++) {
		char *cause = NULL;
		if (matrix(&r[i], s, col[i], f->cols->cols[col[i]].scale, start, &cause) < 0 && !why)
			why = xasprintf("%s's history (query_range of %s): %s", h->name, f->cols->cols[col[i]].label, cause);
		free(cause);
		free(urls[i]);
		fleet_reply_done(&r[i]);
	}
	if (why) {
		xappendf(note, "%s%s", *note ? "; " : "", why);
		free(why);
	}
	free(urls);
	free(r);
	free(col);
}

void fleet_keep_history(struct fleet *f, double t)
{
	int nc = f->cols->n, n = f->past;
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		if (!h->kept)
			h->kept = xmalloc(sizeof(double) * (size_t)n * (size_t)(nc + 1));
		int at = (h->kept_first + h->kept_n) % n;
		if (h->kept_n == n)
			h->kept_first = (h->kept_first + 1) % n;
		else
			h->kept_n++;
		double *p = &h->kept[at * (nc + 1)];
		p[0] = t;
		for (int c = 0; c < nc; c++)
			p[1 + c] = h->have_figs && !h->stale ? h->v[c] : NAN;
	}
}

/* Direct mode: the figures kept of the host's last refreshes. */
static void kept(struct fleet *f, const struct host *h, struct snapshot *s)
{
	int nc = f->cols->n;
	if (!h->kept || h->kept_n < 1)
		return;
	past_alloc(s, h->kept_n, f->interval_s > 0 ? f->interval_s : 1);
	for (int i = 0; i < h->kept_n; i++) {
		const double *p = &h->kept[((h->kept_first + i) % f->past) * (nc + 1)];
		s->past_t[i] = p[0];
		for (int c = 0; c < nc; c++)
			if (f->cols->cols[c].history)
				s->past_v[i * s->nmetrics + c] = p[1 + c];
	}
}

void drill_history(struct fleet *f, const struct host *h, struct snapshot *s, char **note)
{
	if (!f->prom) {
		kept(f, h, s);
		return;
	}
	/* Asked once a drill: its later refreshes extend the screen's. */
	if (f->past_host && !strcmp(f->past_host, h->name))
		return;
	free(f->past_host);
	f->past_host = xstrdup(h->name);
	ask_range(f, h, s, note);
}
