/* fleet_hosts.c: the leaf beneath the fleet's files (fleet.c, fleet_prom.c,
 * fleet_direct.c, which call down into it, never into each other): a
 * fleet's hosts by name, their reasons and figures, and the small helpers
 * both modes share. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet_impl.h"
#include "name_index.h"
#include "util.h"

struct host *host_add(struct fleet *f, const char *name)
{
	f->hosts = xrealloc(f->hosts, sizeof(*f->hosts) * (size_t)(f->nhosts + 1));
	struct host *h = &f->hosts[f->nhosts++];
	memset(h, 0, sizeof(*h));
	h->name = xstrdup(name);
	/* The index keeps the name's pointer: the host's own copy. */
	if (!f->by_name)
		f->by_name = name_index_new();
	name_index_add(f->by_name, h->name, f->nhosts - 1);
	h->model = xstrdup("");
	int n = f->cols->n;
	h->v = xmalloc(sizeof(double) * (size_t)n);
	h->rse = xmalloc(sizeof(double) * (size_t)n);
	h->cov = xmalloc(sizeof(double) * (size_t)n);
	h->num = xmalloc(sizeof(double) * (size_t)n);
	h->den = xmalloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++)
		h->v[i] = h->rse[i] = h->cov[i] = h->num[i] = h->den[i] = NAN;
	h->age_s = h->k0 = h->k1 = NAN;
	return h;
}

struct host *host_find(struct fleet *f, const char *name)
{
	int i = f->by_name ? name_index_find(f->by_name, name) : -1;
	return i >= 0 ? &f->hosts[i] : NULL;
}

void host_status(struct host *h, const char *why)
{
	free(h->status);
	h->status = why ? xstrdup(why) : NULL;
}

void host_clear_figs(struct fleet *f, struct host *h)
{
	for (int i = 0; i < f->cols->n; i++)
		h->v[i] = h->rse[i] = h->cov[i] = h->num[i] = h->den[i] = NAN;
	h->have_figs = false;
}
void news_add(char **news, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	text_add_line(news, line);
	free(line);
}

double fleet_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
bool sample_is(const struct fleet_sample *x, const char *key, const char *want)
{
	char *v = fleet_label(x->labels, key);
	bool same = v && !strcmp(v, want);
	free(v);
	return same;
}

struct snapshot *fleet_snapshot_new(struct fleet *f, int nrows_cpu)
{
	int nrows[SNAP_NSCOPES] = { 0 };
	nrows[SNAP_CPU] = nrows_cpu;
	nrows[SNAP_SYSTEM] = 1;
	return fleet_snapshot_new_rows(f, nrows);
}

struct snapshot *fleet_snapshot_new_rows(struct fleet *f, const int nrows[SNAP_NSCOPES])
{
	struct snapshot *s = snapshot_new(f->model, nrows);
	s->seq = ++f->seq;
	/* Prometheus's window ends at the pinned time (--fleet-at) or now. */
	s->time = f->prom && isfinite(f->at) ? f->at : fleet_now();
	s->measured_s = f->prom ? f->window_s : f->interval_s;
	s->interval_s = f->interval_s;
	s->rotate_ms = NAN; /* the hosts rotate their own counters */
	return s;
}
