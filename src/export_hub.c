/* export_hub.c: the latest published interval, shared between the thread
 * that publishes snapshots and the HTTP threads that scrape them.
 *
 * Each published interval becomes an immutable, reference-counted state: the
 * snapshot plus the running totals up to it. The publisher builds the new
 * state from the previous one without any lock (it is the only writer of
 * h->cur, so it may read it freely), then swaps the pointer under h->lock;
 * a scrape holds h->lock only to take a reference. So a scrape never delays
 * an interval by more than a pointer swap, and an old state lives until its
 * last scrape lets it go. The rendered text is cached in the state, so many
 * scrapes of one interval cost one rendering. */
#include "config.h"
#include "export_impl.h"
#include "service_notify.h"
#include "util.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct export_state {
	atomic_int refs;
	struct snapshot *snap;
	struct export_totals tot;
	struct export_opts opts;
	pthread_mutex_t render_lock;  /* guards body[] while the first scrape renders it */
	char *body[2];                /* by enum export_format, NULL until rendered */
	size_t body_len[2];
	struct export_gz gz[2];       /* the body gzip'd, data NULL until asked for */
};

struct export_hub {
	const struct model *model;
	enum snap_scope scope;
	int top;                      /* task and cgroup rows kept */
	bool pids;
	pthread_mutex_t lock;         /* guards cur against the swap, and the renderer's fields */
	struct export_state *cur;
	atomic_ulong scrapes, scrape_errors;
	/* The renderer (export_hub_render_ahead): a thread that renders each
	 * published state in the formats scrapes have asked for before it is
	 * made current, so that no scrape waits for a rendering. */
	bool ahead, stopping;
	pthread_t renderer;
	pthread_cond_t wake;
	struct export_state *pending; /* published, not yet rendered */
	/* The state published last (a reference of its own), whose running
	 * totals the next one continues: the publisher's alone, so that it
	 * reads neither cur, which the renderer swaps, nor a state the
	 * renderer has not made current yet (its interval would be skipped). */
	struct export_state *last;
	atomic_uint wanted;           /* bit f: format f asked for; bit 2 + f: gzip'd too */
	char *ready;                  /* export_hub_when_served's message, until sent */
};

struct export_hub *export_hub_new(const struct model *m, enum snap_scope scope)
{
	struct export_hub *h = xcalloc(1, sizeof(*h));
	h->model = m;
	h->scope = scope;
	h->top = EXPORT_TOP_TASKS;
	pthread_mutex_init(&h->lock, NULL);
	return h;
}

void export_hub_set_tasks(struct export_hub *h, int top, bool pids)
{
	h->top = top > 0 ? top : EXPORT_TOP_TASKS;
	h->pids = pids;
}

/* Keeps the first (busiest) top rows of a task list, and without pids only
 * the first row of each name and cgroup; frees the rest. */
static int trim_tasks(struct snap_task *t, int n, int top, bool pids)
{
	int kept = 0;
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int k = 0; k < kept && !pids && !dup; k++)
			dup = !strcmp(t[k].comm ? t[k].comm : "", t[i].comm ? t[i].comm : "") &&
			      !strcmp(t[k].cgroup ? t[k].cgroup : "", t[i].cgroup ? t[i].cgroup : "");
		if (dup || kept >= top) {
			snap_task_clear(&t[i]);
			continue;
		}
		if (kept != i)
			t[kept] = t[i];
		kept++;
	}
	return kept;
}

void export_state_put(struct export_state *st)
{
	if (!st || atomic_fetch_sub(&st->refs, 1) != 1)
		return;
	snapshot_free(st->snap);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		free(st->tot.sum[sc]);
	for (int f = 0; f < 2; f++) {
		free(st->body[f]);
		free(st->gz[f].data);
	}
	pthread_mutex_destroy(&st->render_lock);
	free(st);
}

void export_hub_free(struct export_hub *h)
{
	if (!h)
		return;
	if (h->ahead) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->renderer, NULL);
		pthread_cond_destroy(&h->wake);
		export_state_put(h->pending);
	}
	export_state_put(h->last);
	export_state_put(h->cur);
	pthread_mutex_destroy(&h->lock);
	free(h->ready);
	free(h);
}

/* The totals of prev (or none) grown to hold every row key of snap, at the
 * scopes the exporter writes (scope and wider). */
static void totals_from(struct export_totals *t, const struct export_totals *prev,
			const struct snapshot *snap, enum snap_scope scope)
{
	int ne = snap->nevents;
	for (int sc = scope; sc < SNAP_NSCOPES; sc++) {
		int cap = prev ? prev->cap[sc] : 0;
		for (int r = 0; r < snap->nrows[sc]; r++) {
			int k = export_row_key(&snap->rows[sc][r], sc);
			if (k >= cap)
				cap = k + 1;
		}
		t->cap[sc] = cap;
		t->sum[sc] = xmalloc(sizeof(double) * (size_t)(cap > 0 ? cap : 1) * (size_t)(ne > 0 ? ne : 1));
		int old = prev ? prev->cap[sc] : 0;
		if (old > 0)
			memcpy(t->sum[sc], prev->sum[sc], sizeof(double) * (size_t)old * (size_t)ne);
		for (size_t i = (size_t)old * (size_t)ne; i < (size_t)cap * (size_t)ne; i++)
			t->sum[sc][i] = NAN;
	}
	if (prev) {
		t->intervals = prev->intervals;
		t->sampler_cpu_s = prev->sampler_cpu_s;
	}
}

/* The first interval is current: a scrape now gets it (pmctop_info and
 * the figures), which is what a service manager waits for (Type=notify). */
static void say_ready(char *msg)
{
	if (msg)
		service_notify("%s", msg);
	free(msg);
}

void export_hub_when_served(struct export_hub *h, char *msg)
{
	pthread_mutex_lock(&h->lock);
	bool served = h->cur != NULL;   /* already: said at once */
	free(h->ready);
	h->ready = served ? NULL : msg;
	pthread_mutex_unlock(&h->lock);
	if (served)
		say_ready(msg);
}

void export_hub_publish(struct export_hub *h, struct snapshot *snap)
{
	struct export_state *st = xcalloc(1, sizeof(*st));
	atomic_init(&st->refs, 1);
	st->snap = snap;
	st->opts = (struct export_opts){ .scope = h->scope, .pids = h->pids };
	snap->ntasks = trim_tasks(snap->tasks, snap->ntasks, h->top, h->pids);
	snap->ncgroups = trim_tasks(snap->cgroups, snap->ncgroups, h->top, true);
	pthread_mutex_init(&st->render_lock, NULL);
	totals_from(&st->tot, h->last ? &h->last->tot : NULL, snap, h->scope);
	const struct model *m = snap->model;
	/* Each event is summed at the scope it is exported at: its own PMU's
	 * scope when that is wider than --export-scope (L3 per CCX, memory
	 * per socket), since narrower rows do not hold it. */
	for (int e = 0; e < snap->nevents; e++) {
		if (!snap->event_planned[e])
			continue;
		enum snap_scope sc = export_at(snap, m->pmus[m->events[e].pmu].scope, h->scope);
		for (int r = 0; r < snap->nrows[sc]; r++) {
			const struct snap_row *row = &snap->rows[sc][r];
			double v = snap_event(snap, row, e);
			int k = export_row_key(row, sc);
			if (isnan(v) || k < 0)
				continue;
			double *slot = &st->tot.sum[sc][(size_t)k * (size_t)snap->nevents + (size_t)e];
			*slot = isnan(*slot) ? v : *slot + v;
		}
	}
	st->tot.intervals++;
	if (snap->sampler_cost_s >= 0)
		st->tot.sampler_cpu_s += snap->sampler_cost_s;
	export_state_put(h->last);
	atomic_fetch_add(&st->refs, 1);
	h->last = st;

	pthread_mutex_lock(&h->lock);
	struct export_state *old;
	char *ready = NULL;
	if (h->ahead) {
		/* The renderer makes it current; an older state it has not
		 * started on is dropped (only the latest is ever served). */
		old = h->pending;
		h->pending = st;
		pthread_cond_signal(&h->wake);
	} else {
		old = h->cur;
		h->cur = st;
		ready = h->ready;
		h->ready = NULL;
	}
	pthread_mutex_unlock(&h->lock);
	export_state_put(old);
	say_ready(ready);
}

static void *render_ahead(void *arg)
{
	struct export_hub *h = arg;
	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->pending && !h->stopping)
			pthread_cond_wait(&h->wake, &h->lock);
		if (h->stopping)
			break;
		struct export_state *st = h->pending;
		h->pending = NULL;
		pthread_mutex_unlock(&h->lock);
		unsigned want = atomic_load(&h->wanted);
		size_t len;
		for (int f = 0; f < 2; f++) {
			if (want & (4u << f))
				export_state_gzip(st, (enum export_format)f, &len);
			else if (want & (1u << f))
				export_state_body(st, (enum export_format)f, &len);
		}
		pthread_mutex_lock(&h->lock);
		struct export_state *old = h->cur;
		h->cur = st;
		char *ready = h->ready;
		h->ready = NULL;
		pthread_mutex_unlock(&h->lock);
		export_state_put(old);
		say_ready(ready);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int export_hub_render_ahead(struct export_hub *h)
{
	pthread_cond_init(&h->wake, NULL);
	/* Like the HTTP server's threads, it leaves the signals to the main thread. */
	sigset_t old;
	signals_block_async(&old);
	int rc = pthread_create(&h->renderer, NULL, render_ahead, h);
	signals_restore(&old);
	if (rc != 0) {
		pthread_cond_destroy(&h->wake);
		return -rc;
	}
	h->ahead = true;
	return 0;
}

/* Copies n doubles (from NULL: not known, NaN); snapshot_new_like sized
 * both arrays alike. */
static void copy_doubles(double *to, const double *from, int n)
{
	for (int i = 0; !from && i < n; i++)
		to[i] = NAN;
	if (from && n > 0)
		memcpy(to, from, sizeof(double) * (size_t)n);
}

void export_hub_publish_copy(struct export_hub *h, const struct snapshot *snap)
{
	/* Rows narrower than the export scope are never read: leave them out,
	 * so that the copy costs little at the default scope. */
	int nrows[SNAP_NSCOPES] = { 0 };
	for (int sc = h->scope; sc < SNAP_NSCOPES; sc++)
		nrows[sc] = snap->nrows[sc];
	struct snapshot *c = snapshot_new_like(snap, nrows);
	c->seq = snap->seq;
	c->time = snap->time;
	c->measured_s = snap->measured_s;
	c->simulated = snap->simulated;
	c->sampler_cost_s = snap->sampler_cost_s;
	c->recording = snap->recording;
	c->recording_ok = snap->recording_ok;
	c->recording_errors = snap->recording_errors;
	c->rotate_ms = snap->rotate_ms;
	c->notice = snap->notice ? xstrdup(snap->notice) : NULL;
	memcpy(c->metric_planned, snap->metric_planned, sizeof(bool) * (size_t)snap->nmetrics);
	memcpy(c->event_planned, snap->event_planned, sizeof(bool) * (size_t)snap->nevents);
	for (int sc = h->scope; sc < SNAP_NSCOPES; sc++) {
		for (int r = 0; r < nrows[sc]; r++) {
			const struct snap_row *from = &snap->rows[sc][r];
			struct snap_row *to = &c->rows[sc][r];
			to->id = from->id;
			to->cpu = from->cpu;
			to->core = from->core;
			to->ccx = from->ccx;
			to->socket = from->socket;
			to->ncpus = from->ncpus;
			copy_doubles(to->mv, from->mv, c->nmcols);
			copy_doubles(to->mcov, from->mcov, c->nmcols);
			/* Errors through the snapshot's accessors: a row whose
			 * errors were left for later has them there. */
			copy_doubles(to->mrse, snap_row_mrse(snap, from), c->nmcols);
			copy_doubles(to->ev, from->ev, c->necols);
			copy_doubles(to->ecov, from->ecov, c->necols);
			copy_doubles(to->erse, snap_row_erse(snap, from), c->necols);
		}
	}
	/* Publishing keeps only the busiest processes and cgroups (a bounded
	 * series count, docs/exporter.md); without pids, which of them is
	 * kept depends on the rows after the top, so all are copied. */
	c->tasks_on = snap->tasks_on;
	c->task_freq = snap->task_freq;
	c->tasks_lost = snap->tasks_lost;
	c->ntasks = h->pids && snap->ntasks > h->top ? h->top : snap->ntasks;
	c->tasks = snap_tasks_dup(snap->tasks, c->ntasks, snap->nmetrics);
	c->ncgroups = snap->ncgroups < h->top ? snap->ncgroups : h->top;
	c->cgroups = snap_tasks_dup(snap->cgroups, c->ncgroups, snap->nmetrics);
	export_hub_publish(h, c);
}

struct export_state *export_hub_get(struct export_hub *h)
{
	pthread_mutex_lock(&h->lock);
	struct export_state *st = h->cur;
	if (st)
		atomic_fetch_add(&st->refs, 1);
	pthread_mutex_unlock(&h->lock);
	return st;
}

bool export_state_ready(struct export_state *st, enum export_format f, bool gzip)
{
	pthread_mutex_lock(&st->render_lock);
	bool ready = gzip ? st->gz[f].data != NULL : st->body[f] != NULL;
	pthread_mutex_unlock(&st->render_lock);
	return ready;
}

void export_hub_wants(struct export_hub *h, enum export_format f, bool gzip)
{
	atomic_fetch_or(&h->wanted, (gzip ? 4u : 1u) << f);
}

const char *export_state_body(struct export_state *st, enum export_format f, size_t *len)
{
	pthread_mutex_lock(&st->render_lock);
	if (!st->body[f])
		st->body[f] = export_render(st->snap, &st->tot, &st->opts, f, &st->body_len[f]);
	*len = st->body_len[f];
	const char *b = st->body[f];
	pthread_mutex_unlock(&st->render_lock);
	return b;
}

const unsigned char *export_state_gzip(struct export_state *st, enum export_format f, size_t *len)
{
	size_t blen;
	const char *body = export_state_body(st, f, &blen);
	pthread_mutex_lock(&st->render_lock);
	if (!st->gz[f].data)
		export_gz_head(body, blen, &st->gz[f]);
	*len = st->gz[f].len;
	const unsigned char *g = st->gz[f].data;
	pthread_mutex_unlock(&st->render_lock);
	return g;
}

unsigned char *export_state_gzip_end(struct export_state *st, enum export_format f, const char *tail, size_t tlen,
				     size_t *len)
{
	/* Only after export_state_gzip, which filled gz[f] under the lock;
	 * it is not written again, so it is read without the lock. */
	return export_gz_tail(&st->gz[f], tail, tlen, len);
}

void export_hub_scrape_failed(struct export_hub *h)
{
	atomic_fetch_add(&h->scrape_errors, 1);
}

char *export_hub_tail(struct export_hub *h, enum export_format f, size_t *len)
{
	unsigned long n = atomic_fetch_add(&h->scrapes, 1) + 1;
	unsigned long ne = atomic_load(&h->scrape_errors);
	bool om = f == EXPORT_OPENMETRICS;
	char *t = xasprintf("# HELP pmctop_scrapes%s Scrapes of /metrics answered, this one included.\n"
			    "# TYPE pmctop_scrapes%s counter\n"
			    "pmctop_scrapes_total %lu\n"
			    "# HELP pmctop_scrape_errors%s Scrapes of /metrics that could not be answered.\n"
			    "# TYPE pmctop_scrape_errors%s counter\n"
			    "pmctop_scrape_errors_total %lu\n%s",
			    om ? "" : "_total", om ? "" : "_total", n,
			    om ? "" : "_total", om ? "" : "_total", ne, om ? "# EOF\n" : "");
	*len = strlen(t);
	return t;
}
