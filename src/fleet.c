/* fleet.c: one refresh of a fleet (fleet.h): in Prometheus mode a handful
 * of instant queries for every host at once (the targets' up, pmctop_info,
 * the error and coverage gauges, and one per column), in direct mode a
 * scrape of every exporter and the counter deltas since the scrape
 * before. Either way each host becomes one row of a snapshot of the fleet
 * model (fleet_columns.c), with its text (name, model, why '-') beside it.
 *
 * What goes wrong is said, never fatal: a server that does not answer
 * keeps every host's last good figures, marked stale; a host that does
 * not answer (or is down for Prometheus) shows '-' and why. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "model.h"
#include "util.h"

/* A host whose last interval is older than this many rate windows (and
 * 30 s at least) is stale: its figures would describe another time. */
#define FLEET_STALE_WINDOWS 2.0
#define FLEET_STALE_MIN_S 30.0

struct host {
	char *name;               /* Prometheus's instance, or HOST:PORT */
	char *url;                /* direct: its /metrics */
	struct fleet_samples prev, cur;   /* direct: the two scrapes the figures come from */
	bool have_prev, have_cur;
	char *model;
	bool simulated;
	double *v, *rse, *cov;    /* [ncols]: the last good figures */
	bool have_figs;
	char *status;             /* why '-' or stale, or NULL */
	bool stale;
	bool failing;             /* direct: its last scrape failed (said once) */
	double age_s, k0, k1;
};

struct fleet {
	struct fleet_columns *cols;
	struct model *model;
	struct fleet_client_config *cfg;
	bool prom;
	char *base;               /* Prometheus: the URL without a trailing '/' */
	char *sel;                /* the selector inside its braces */
	double window_s, at, interval_s;
	int nhosts;
	struct host *hosts;
	uint64_t seq;
	bool failing;             /* Prometheus: the last refresh failed (said once) */
};

const struct model *fleet_get_model(const struct fleet *f)
{
	return f->model;
}

bool fleet_is_prometheus(const struct fleet *f)
{
	return f->prom;
}

static struct host *host_add(struct fleet *f, const char *name)
{
	f->hosts = xrealloc(f->hosts, sizeof(*f->hosts) * (size_t)(f->nhosts + 1));
	struct host *h = &f->hosts[f->nhosts++];
	memset(h, 0, sizeof(*h));
	h->name = xstrdup(name);
	h->model = xstrdup("");
	int n = f->cols->n;
	h->v = xmalloc(sizeof(double) * (size_t)n);
	h->rse = xmalloc(sizeof(double) * (size_t)n);
	h->cov = xmalloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++)
		h->v[i] = h->rse[i] = h->cov[i] = NAN;
	h->age_s = h->k0 = h->k1 = NAN;
	return h;
}

static struct host *host_find(struct fleet *f, const char *name)
{
	for (int i = 0; i < f->nhosts; i++)
		if (!strcmp(f->hosts[i].name, name))
			return &f->hosts[i];
	return NULL;
}

static void host_status(struct host *h, const char *why)
{
	free(h->status);
	h->status = why ? xstrdup(why) : NULL;
}

static void host_clear_figs(struct fleet *f, struct host *h)
{
	for (int i = 0; i < f->cols->n; i++)
		h->v[i] = h->rse[i] = h->cov[i] = NAN;
	h->have_figs = false;
}

void fleet_free(struct fleet *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		free(h->name);
		free(h->url);
		free(h->model);
		free(h->status);
		free(h->v);
		free(h->rse);
		free(h->cov);
		fleet_samples_done(&h->prev);
		fleet_samples_done(&h->cur);
	}
	free(f->hosts);
	fleet_columns_free(f->cols);
	model_free(f->model);
	fleet_config_free(f->cfg);
	free(f->base);
	free(f->sel);
	free(f);
}

/* A direct target: "host:port" or a URL; its /metrics URL and its name. */
static void add_target(struct fleet *f, const char *t)
{
	const char *scheme = strstr(t, "://");
	const char *hp = scheme ? scheme + 3 : t;
	size_t hn = strcspn(hp, "/");
	char *name = xstrndup(hp, hn);
	struct host *h = host_add(f, name);
	free(name);
	if (!scheme)
		h->url = xasprintf("http://%s/metrics", t);
	else if (!hp[hn] || !strcmp(hp + hn, "/"))
		h->url = xasprintf("%.*s/metrics", (int)(hp + hn - t), t);
	else
		h->url = xstrdup(t);
}

static int add_targets(struct fleet *f, const char *list, const char *from, char **cause)
{
	char *copy = xstrdup(list);
	int rc = 0;
	for (char *save = NULL, *tok = strtok_r(copy, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		size_t n = strlen(tok);
		while (n && (tok[n - 1] == ' ' || tok[n - 1] == '\t' || tok[n - 1] == '\r'))
			tok[--n] = 0;
		if (!*tok || *tok == '#')
			continue;
		if (strpbrk(tok, " \t\"'\\") || (!strstr(tok, "://") && !strchr(tok, ':'))) {
			rc = set_cause(cause, "%s: '%s' is not HOST:PORT or a URL", from, tok);
			break;
		}
		add_target(f, tok);
	}
	free(copy);
	if (rc == 0 && f->nhosts == 0)
		rc = set_cause(cause, "%s names no target", from);
	return rc;
}

struct fleet *fleet_new(const struct fleet_opts *o, char **cause)
{
	struct fleet *f = xcalloc(1, sizeof(*f));
	f->window_s = o->window_s > 0 ? o->window_s : 60;
	f->at = o->at;
	f->interval_s = o->interval_s;
	if (!(f->cols = fleet_columns_load(o->columns, cause)))
		goto fail;
	f->model = fleet_model_new(f->cols);
	if (o->config && !(f->cfg = fleet_config_load(o->config, cause)))
		goto fail;
	const char *s = o->spec;
	bool url = !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
	if (url && !strchr(s, ',')) {
		f->prom = true;
		f->base = xstrdup(s);
		size_t n = strlen(f->base);
		while (n && f->base[n - 1] == '/')
			f->base[--n] = 0;
		const char *sel = o->select ? o->select : "job=\"pmctop\"";
		while (*sel == ' ')
			sel++;
		size_t sn = strlen(sel);
		if (sn && sel[0] == '{') {
			if (sel[sn - 1] != '}') {
				set_cause(cause, "--fleet-select: '%s' has no closing brace", o->select);
				goto fail;
			}
			f->sel = xstrndup(sel + 1, sn - 2);
		} else {
			f->sel = xstrdup(sel);
		}
		return f;
	}
	if (o->select) {
		set_cause(cause, "--fleet-select chooses series in Prometheus; exporters are named in --fleet itself");
		goto fail;
	}
	if (s[0] == '@') {
		char *text = read_text_file(s + 1);
		if (!text) {
			set_cause(cause, "cannot read %s: %s", s + 1, path_errno_phrase(errno));
			goto fail;
		}
		int rc = add_targets(f, text, s + 1, cause);
		free(text);
		if (rc < 0)
			goto fail;
	} else if (add_targets(f, s, "--fleet", cause) < 0) {
		goto fail;
	}
	return f;
fail:
	fleet_free(f);
	return NULL;
}

/* Percent-encodes a query for a URL. */
static char *url_escape(const char *s)
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

/* What an HTTP answer that is not a good one says, in one line. */
static char *reply_problem(const struct fleet_reply *r, struct fleet_samples *out)
{
	if (!r->status)
		return xstrdup(r->err ? r->err : "no answer");
	char *cause = NULL;
	if (r->status == 401 || r->status == 403) {
		return xasprintf("HTTP %ld %s: %s", r->status, r->status == 401 ? "Unauthorized" : "Forbidden",
				 "check basic_auth in --fleet-config");
	}
	/* Prometheus's errors (400, 422, 503 for a timeout) are JSON. */
	if (fleet_parse_vector(r->body ? r->body : "", r->len, out, &cause) == 0 && r->status == 200)
		return NULL;
	char *msg = r->status == 200 ? xstrdup(cause ? cause : "a bad answer")
				     : xasprintf("HTTP %ld%s%s", r->status, cause && strstr(cause, "says") ? ": " : "",
						 cause && strstr(cause, "says") ? cause : "");
	free(cause);
	return msg;
}

static void news_add(char **news, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void news_add(char **news, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	text_add_line(news, line);
	free(line);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The queries of a Prometheus refresh, before the columns'. */
enum { Q_UP, Q_INFO, Q_RSE, Q_COV, Q_HW, Q_AGE, Q_COLS };

static bool sample_is(const struct fleet_sample *x, const char *key, const char *want)
{
	char *v = fleet_label(x->labels, key);
	bool same = v && !strcmp(v, want);
	free(v);
	return same;
}

static int prom_refresh(struct fleet *f, char **news, char **cause)
{
	int nq = Q_COLS + f->cols->n;
	char **q = xcalloc((size_t)nq, sizeof(char *));
	q[Q_UP] = xasprintf("up{%s}", f->sel);
	q[Q_INFO] = xasprintf("pmctop_info{%s}", f->sel);
	q[Q_RSE] = xasprintf("max by (instance, metric) (pmctop_relative_error_ratio{%s})", f->sel);
	q[Q_COV] = xasprintf("min by (instance, metric) (pmctop_coverage_ratio{%s})", f->sel);
	q[Q_HW] = xasprintf("count by (instance) (pmctop_cycles_total{%s})", f->sel);
	q[Q_AGE] = xasprintf("time() - max by (instance) (pmctop_last_interval_timestamp_seconds{%s})", f->sel);
	for (int i = 0; i < f->cols->n; i++)
		q[Q_COLS + i] = fleet_col_promql(&f->cols->cols[i], f->sel, f->window_s);
	char **urls = xcalloc((size_t)nq, sizeof(char *));
	char at[64] = "";
	if (isfinite(f->at))
		snprintf(at, sizeof(at), "&time=%.3f", f->at);
	for (int i = 0; i < nq; i++) {
		char *e = url_escape(q[i]);
		urls[i] = xasprintf("%s/api/v1/query?query=%s%s", f->base, e, at);
		free(e);
	}
	struct fleet_reply *r = xcalloc((size_t)nq, sizeof(*r));
	fleet_http_get(f->cfg, nq, urls, r);
	struct fleet_samples *res = xcalloc((size_t)nq, sizeof(*res));
	bool *ok = xcalloc((size_t)nq, sizeof(bool));
	int rc = 0;
	char **whys = xcalloc((size_t)nq, sizeof(char *));
	for (int i = 0; i < nq; i++) {
		whys[i] = reply_problem(&r[i], &res[i]);
		ok[i] = !whys[i];
	}
	if (whys[Q_UP]) {
		/* The server failed: one line, not one per query. */
		set_cause(cause, "%s: %s", f->base, whys[Q_UP]);
		rc = -1;
	} else {
		/* The queries that failed, one line per reason. */
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
	if (rc < 0)
		goto done;
	/* Hosts: every instance Prometheus has a target for. One that left
	 * its targets keeps a row that says so. */
	for (int i = 0; i < f->nhosts; i++)
		host_status(&f->hosts[i], "gone: no longer among Prometheus's targets");
	bool *seen = NULL;
	for (int k = 0; k < res[Q_UP].n; k++) {
		const struct fleet_sample *x = &res[Q_UP].v[k];
		struct host *h = host_find(f, x->instance);
		if (!h)
			h = host_add(f, x->instance);
		host_status(h, x->value == 1 ? NULL : "down: Prometheus's last scrape of it failed");
		h->stale = false;
	}
	seen = xcalloc((size_t)f->nhosts + 1, sizeof(bool));
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		host_clear_figs(f, h);
		h->age_s = NAN;
	}
	for (int k = 0; k < res[Q_INFO].n; k++) {
		struct host *h = host_find(f, res[Q_INFO].v[k].instance);
		if (!h)
			continue;
		char *m = fleet_label(res[Q_INFO].v[k].labels, "model");
		free(h->model);
		h->model = m ? m : xstrdup("");
		h->simulated = sample_is(&res[Q_INFO].v[k], "simulated", "true");
	}
	for (int k = 0; k < res[Q_HW].n; k++) {
		struct host *h = host_find(f, res[Q_HW].v[k].instance);
		if (h)
			seen[h - f->hosts] = true;
	}
	for (int k = 0; k < res[Q_AGE].n; k++) {
		struct host *h = host_find(f, res[Q_AGE].v[k].instance);
		if (h)
			h->age_s = res[Q_AGE].v[k].value;
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
	for (int c = 0; c < f->cols->n; c++) {
		const struct fleet_col *col = &f->cols->cols[c];
		const struct fleet_samples *cs = &res[Q_COLS + c];
		for (int k = 0; k < cs->n; k++) {
			struct host *h = host_find(f, cs->v[k].instance);
			if (!h || h->status || (col->hardware && !seen[h - f->hosts]))
				continue;
			double v = col->scale * cs->v[k].value;
			h->v[c] = isfinite(v) ? v : NAN;
			h->rse[c] = col->err ? NAN : 0;
			h->cov[c] = 1;
			h->have_figs = true;
		}
		if (!col->err)
			continue;
		for (int k = 0; k < res[Q_RSE].n; k++)
			if (sample_is(&res[Q_RSE].v[k], "metric", col->err)) {
				struct host *h = host_find(f, res[Q_RSE].v[k].instance);
				if (h && !isnan(h->v[c]))
					h->rse[c] = res[Q_RSE].v[k].value;
			}
		for (int k = 0; k < res[Q_COV].n; k++)
			if (sample_is(&res[Q_COV].v[k], "metric", col->err)) {
				struct host *h = host_find(f, res[Q_COV].v[k].instance);
				if (h && !isnan(h->v[c]))
					h->cov[c] = res[Q_COV].v[k].value;
			}
	}
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		if (!h->status && !seen[i])
			host_status(h, "no hardware series: its pmctop counts no PMU events");
	}
	free(seen);
done:
	for (int i = 0; i < nq; i++) {
		free(q[i]);
		free(urls[i]);
		fleet_reply_done(&r[i]);
		fleet_samples_done(&res[i]);
	}
	free(q);
	free(urls);
	free(r);
	free(res);
	free(ok);
	return rc;
}

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

/* Sum (or min, max, mean) of a family's rows in one scrape; NaN when the
 * scrape has none. */
static double agg_of(const struct fleet_samples *s, const struct fleet_term *t, enum fleet_agg agg)
{
	double acc = NAN;
	int n = 0;
	for (int i = 0; i < s->n; i++) {
		if (!matches(&s->v[i], t))
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
	case FLEET_RATE: {
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
		double v = col->scale * term_value(h, &col->num, dt, now) / term_value(h, &col->den, dt, now);
		if (!isfinite(v))
			continue;
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
		host_status(h, "no hardware series: its pmctop counts no PMU events");
}

static int direct_refresh(struct fleet *f, char **news)
{
	char **urls = xcalloc((size_t)f->nhosts, sizeof(char *));
	for (int i = 0; i < f->nhosts; i++)
		urls[i] = f->hosts[i].url;
	struct fleet_reply *r = xcalloc((size_t)f->nhosts, sizeof(*r));
	fleet_http_get(f->cfg, f->nhosts, urls, r);
	double now = now_s();
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		char *why = NULL;
		struct fleet_samples s = { 0 };
		int bad = 0;
		if (!r[i].status)
			why = xasprintf("down: %s", r[i].err ? r[i].err : "no answer");
		else if (r[i].status == 401 || r[i].status == 403)
			why = xasprintf("HTTP %ld %s: check basic_auth in --fleet-config", r[i].status,
					r[i].status == 401 ? "Unauthorized" : "Forbidden");
		else if (r[i].status != 200)
			why = xasprintf("HTTP %ld from %s", r[i].status, h->url);
		else if (fleet_parse_text(r[i].body ? r[i].body : "", r[i].len, &s, &bad) == 0 ||
			 isnan(one(&s, "pmctop_last_interval_timestamp_seconds")))
			why = xstrdup(s.n == 0 ? "not a pmctop exporter: no series in its answer"
					       : "no interval yet: pmctop_last_interval_timestamp_seconds is missing");
		if (why) {
			fleet_samples_done(&s);
			char *line = xasprintf("%s: %s", h->name, why);
			/* Said when it starts failing, not at every refresh (the
			 * text itself changes: "after 19 ms"). */
			if (!h->failing)
				text_add_line(news, line);
			h->failing = true;
			free(line);
			if (h->have_figs) {
				char *st = xasprintf("stale: %s", why);
				host_status(h, st);
				free(st);
				h->stale = true;
			} else {
				host_status(h, why);
			}
			free(why);
			continue;
		}
		if (h->failing) {
			char *line = xasprintf("%s: answers again", h->name);
			text_add_line(news, line);
			free(line);
		}
		h->failing = false;
		h->stale = false;
		host_status(h, NULL);
		char *m = NULL;
		for (int k = 0; k < s.n && !m; k++)
			if (!strcmp(s.v[k].name, "pmctop_info")) {
				m = fleet_label(s.v[k].labels, "model");
				h->simulated = sample_is(&s.v[k], "simulated", "true");
			}
		free(h->model);
		h->model = m ? m : xstrdup("");
		double k = one(&s, "pmctop_intervals_total");
		double kc = h->have_cur ? one(&h->cur, "pmctop_intervals_total") : NAN;
		if (h->have_cur && k == kc) {
			/* No new interval since the last scrape: the figures stand. */
			fleet_samples_done(&s);
			h->age_s = now - one(&h->cur, "pmctop_last_interval_timestamp_seconds");
			continue;
		}
		if (h->have_cur && k < kc) {
			host_status(h, "restarted: figures from its next scrape");
			fleet_samples_done(&h->prev);
			h->have_prev = false;
		} else if (h->have_cur) {
			fleet_samples_done(&h->prev);
			h->prev = h->cur;
			h->have_prev = true;
		}
		h->cur = s;
		h->have_cur = true;
		if (h->have_prev)
			direct_figures(f, h, now);
		else if (!h->status)
			host_status(h, "waiting for a second scrape");
	}
	for (int i = 0; i < f->nhosts; i++)
		fleet_reply_done(&r[i]);
	free(r);
	free(urls);
	return 0;
}

struct snapshot *fleet_refresh(struct fleet *f, char **news, char **cause)
{
	int rc = f->prom ? prom_refresh(f, news, cause) : direct_refresh(f, news);
	if (rc < 0) {
		if (f->nhosts == 0)
			return NULL;
		/* The server did not answer: every host keeps what it had,
		 * marked stale, and the reason is said once. */
		if (!f->failing)
			text_add_line(news, *cause);
		f->failing = true;
		for (int i = 0; i < f->nhosts; i++) {
			struct host *h = &f->hosts[i];
			char *st = xasprintf("stale: %s", *cause);
			host_status(h, st);
			free(st);
			h->stale = true;
		}
		free(*cause);
		*cause = NULL;
	}
	if (rc == 0 && f->prom && f->failing) {
		char *line = xasprintf("%s answers again", f->base);
		text_add_line(news, line);
		free(line);
		f->failing = false;
	}
	int nrows[SNAP_NSCOPES] = { 0 };
	nrows[SNAP_CPU] = f->nhosts;
	nrows[SNAP_SYSTEM] = 1;
	struct snapshot *s = snapshot_new(f->model, nrows);
	s->seq = ++f->seq;
	s->time = f->prom && isfinite(f->at) ? f->at : now_s();
	s->measured_s = f->prom ? f->window_s : f->interval_s;
	s->interval_s = f->interval_s;
	s->rotate_ms = NAN;
	s->nhosts = f->nhosts;
	s->hosts = xcalloc((size_t)f->nhosts + 1, sizeof(*s->hosts));
	for (int m = 0; m < f->cols->n; m++)
		s->metric_planned[m] = true;
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		struct snap_row *row = &s->rows[SNAP_CPU][i];
		row->id = row->cpu = i;
		row->core = row->ccx = row->socket = -1;
		/* A stale host shows its last good figures; a host down, gone
		 * or without hardware series shows '-' (its NaNs). */
		bool show = h->have_figs && (!h->status || h->stale || !strncmp(h->status, "no hardware", 11) ||
					     !strncmp(h->status, "restarted", 9));
		for (int c = 0; c < f->cols->n; c++) {
			int mc = snap_mcol(s, c);
			row->mv[mc] = show ? h->v[c] : NAN;
			row->mrse[mc] = show ? h->rse[c] : NAN;
			row->mcov[mc] = show ? h->cov[c] : NAN;
		}
		int ci = model_find_metric(f->model, "cpus");
		double cpus = ci >= 0 ? h->v[ci] : NAN;
		row->ncpus = show && isfinite(cpus) ? (int)cpus : 0;
		struct snap_host *sh = &s->hosts[i];
		sh->name = xstrdup(h->name);
		sh->model = xstrdup(h->model);
		sh->status = h->status ? xstrdup(h->status) : NULL;
		sh->simulated = h->simulated;
		sh->stale = h->stale;
		sh->age_s = h->age_s;
		sh->k0 = h->k0;
		sh->k1 = h->k1;
	}
	s->rows[SNAP_SYSTEM][0].id = 0;
	s->rows[SNAP_SYSTEM][0].cpu = s->rows[SNAP_SYSTEM][0].core = -1;
	s->rows[SNAP_SYSTEM][0].ccx = s->rows[SNAP_SYSTEM][0].socket = -1;
	return s;
}
