/* source_fleet.c: a fleet (fleet.h) as a source (source.h): each interval
 * is one refresh of every host, a snapshot whose CPU-scope rows are the
 * hosts. Batch mode refreshes every -d seconds on the caller's thread.
 * The dashboard refreshes on a thread of the source's own, which
 * publishes each snapshot (immutable once made) and its news for the
 * screen to take when it polls: a server that hangs holds that thread up
 * to the client timeout, never the screen, and a stop cancels the
 * requests still open (fleet_cancel) rather than wait for them. In
 * direct mode the first figures need two scrapes, so the first refresh
 * only primes the counters. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "source.h"
#include "util.h"

/* The points of a drilled host's history asked for: the widest
 * sparkline's cells (panel_spark.c). */
#define DRILL_HISTORY_POINTS 60

struct fleet_src {
	struct fleet *f;
	double interval_s;
	void (*say)(const char *msg);
	volatile sig_atomic_t *interrupt;
	bool primed;             /* direct mode: the first scrape is taken */
	double due;              /* monotonic seconds of the next refresh */
	long good;               /* refreshes that gave a snapshot */
	struct source_sink sink;
	bool dashboard;
	/* The dashboard's thread, and what it shares with the screen's under
	 * mu: the delay, pause and stop it obeys (cv wakes it), and what it
	 * publishes (the latest snapshot not yet taken, news not yet said,
	 * the host count of the header). */
	pthread_t thread;
	bool running;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool paused, stopping;
	struct snapshot *ready;
	char *news;
	int nhosts;
	/* Drill down (fleet_drill): the host whose own rows the screen asked
	 * for (NULL: the hosts), and what the last such snapshot said. */
	char *drill;
	char *drill_note;
	int drill_rows;
	char drill_kind[16];
};

static double mono_s(void)
{
	return (double)now_ns() / 1e9;
}

static void fs_free(void *ctx)
{
	struct fleet_src *fs = ctx;
	snapshot_free(fs->ready);
	free(fs->news);
	free(fs->drill);
	free(fs->drill_note);
	fleet_free(fs->f);
	pthread_mutex_destroy(&fs->mu);
	pthread_cond_destroy(&fs->cv);
	free(fs);
}

static double fs_interval(void *ctx)
{
	return ((struct fleet_src *)ctx)->interval_s;
}

/* Each line of news to stderr (batch) or the message line (dashboard). */
static void tell(struct fleet_src *fs, char *news)
{
	for (char *save = NULL, *l = news ? strtok_r(news, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char *msg = xasprintf("fleet: %s", l);
		if (fs->dashboard && fs->sink.message)
			fs->sink.message(fs->sink.arg, msg);
		else if (fs->say)
			fs->say(msg);
		free(msg);
	}
	free(news);
}

/* One refresh: the hosts, or host name's own rows (NULL: the hosts). In
 * Prometheus mode a drilled host's queries replace the fleet's (one
 * query per column still); direct mode scrapes every host as always and
 * takes the host's rows from its scrapes. A name that none of the hosts
 * has (--fleet-host) is an error once the hosts are known. */
static struct snapshot *make(struct fleet_src *fs, const char *name, char **news, char **cause, char **note)
{
	*note = NULL;
	/* Prometheus names the hosts: the first refresh finds them. */
	if (!name || !fleet_is_prometheus(fs->f) || fleet_host_count(fs->f) == 0) {
		struct snapshot *s = fleet_refresh(fs->f, news, cause);
		if (!s || !name)
			return s;
		snapshot_free(s);
	}
	if (!fleet_drill_known(fs->f, name)) {
		set_cause(cause, "--fleet-host %s: not among the fleet's %d hosts", name, fleet_host_count(fs->f));
		return NULL;
	}
	return fleet_drill(fs->f, name, note);
}

/* What the header says of a drilled snapshot: how many rows of what. */
static void drill_said(struct fleet_src *fs, const struct snapshot *s, char *note)
{
	free(fs->drill_note);
	fs->drill_note = note;
	fs->drill_rows = s->nhosts;
	fs->drill_kind[0] = 0;
	if (s->nhosts > 0)
		snprintf(fs->drill_kind, sizeof(fs->drill_kind), "%.*s", (int)strcspn(s->hosts[0].name, " "),
			 s->hosts[0].name);
}

static struct snapshot *refresh(struct fleet_src *fs, char **cause)
{
	char *news = NULL, *note = NULL;
	struct snapshot *s = make(fs, fs->drill, &news, cause, &note);
	tell(fs, news);
	/* Said once, not at every refresh. */
	if (note && fs->say && (!fs->drill_note || strcmp(note, fs->drill_note))) {
		char *msg = xasprintf("fleet: %s", note);
		fs->say(msg);
		free(msg);
	}
	if (note) {
		free(fs->drill_note);
		fs->drill_note = note;
	}
	if (s) {
		fs->good++;
		fs->nhosts = fleet_host_count(fs->f);
	}
	return s;
}

/* Waits until the monotonic time t, or a stop. */
static void wait_until(struct fleet_src *fs, double t)
{
	while (!(fs->interrupt && *fs->interrupt)) {
		double left = t - mono_s();
		if (left <= 0)
			return;
		if (left > 0.05)
			left = 0.05;
		struct timespec ts = { 0, (long)(left * 1e9) };
		nanosleep(&ts, NULL);
	}
}

static struct snapshot *fs_next(void *ctx, enum source_got *got, char **cause)
{
	struct fleet_src *fs = ctx;
	if (!fs->primed && !fleet_is_prometheus(fs->f)) {
		fs->primed = true;
		char *why = NULL;
		snapshot_free(refresh(fs, &why));
		free(why);
		fs->due = mono_s() + fs->interval_s;
	}
	fs->primed = true;
	wait_until(fs, fs->due);
	if (fs->interrupt && *fs->interrupt) {
		*got = SOURCE_END;
		return NULL;
	}
	fs->due = mono_s() + fs->interval_s;
	struct snapshot *s = refresh(fs, cause);
	*got = s ? SOURCE_OK : SOURCE_FAILED;
	return s;
}

static int fs_finish(void *ctx)
{
	struct fleet_src *fs = ctx;
	if (fs->good == 0 && !(fs->interrupt && *fs->interrupt))
		return 1;
	return 0;
}

/* The dashboard's thread: a refresh whenever one is due, published for
 * the screen; the first one at once. */
static void *fs_thread(void *arg)
{
	struct fleet_src *fs = arg;
	pthread_mutex_lock(&fs->mu);
	for (;;) {
		double t = mono_s();
		if (fs->stopping)
			break;
		if (fs->paused || t < fs->due) {
			/* Wake at the due time, or at a delay, pause or stop. */
			double until = fs->paused ? t + 1 : fs->due;
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			double w = fmin(until - t, 1.0);
			long ns = ts.tv_nsec + (long)(w * 1e9);
			ts.tv_sec += ns / 1000000000L;
			ts.tv_nsec = ns % 1000000000L;
			pthread_cond_timedwait(&fs->cv, &fs->mu, &ts);
			continue;
		}
		/* Direct mode's first scrape: the figures come from the next.
		 * Soon, so that the screen does not wait a whole -d for them. */
		bool first = !fs->primed && !fleet_is_prometheus(fs->f);
		fs->primed = true;
		fs->due = t + (first ? fmin(fs->interval_s, 1.0) : fs->interval_s);
		char *dname = fs->drill ? xstrdup(fs->drill) : NULL;
		pthread_mutex_unlock(&fs->mu);
		char *news = NULL, *why = NULL, *note = NULL;
		struct snapshot *s = make(fs, dname, &news, &why, &note);
		int nh = fleet_host_count(fs->f);
		if (!s && why && !first)
			text_add_line(&news, why);
		free(why);
		pthread_mutex_lock(&fs->mu);
		/* The screen went into another host, or back, meanwhile: these
		 * rows are not what it shows now. */
		bool other = (dname == NULL) != (fs->drill == NULL) || (dname && strcmp(dname, fs->drill));
		free(dname);
		if (fs->stopping || other) {
			snapshot_free(s);
			free(news);
			free(note);
			if (fs->stopping)
				break;
			continue;
		}
		if (s && s->drill) {
			/* Said once on the message line, not at every refresh. */
			if (note && (!fs->drill_note || strcmp(note, fs->drill_note)))
				text_add_line(&fs->news, note);
			drill_said(fs, s, note);
		}
		else
			free(note);
		if (news) {
			text_add_line(&fs->news, news);
			free(news);
		}
		if (s) {
			fs->good++;
			fs->nhosts = nh;
			/* The screen shows the latest: one it did not take yet is
			 * passed over. */
			snapshot_free(fs->ready);
			fs->ready = s;
		}
	}
	pthread_mutex_unlock(&fs->mu);
	return NULL;
}

static int fs_start(void *ctx, struct snap_ring *ring, const struct source_sink *sink, char **cause)
{
	struct fleet_src *fs = ctx;
	(void)ring;
	fs->sink = *sink;
	fs->dashboard = true;
	/* A drilled host's sparklines have a history from the first frame. */
	fleet_set_history(fs->f, DRILL_HISTORY_POINTS);
	/* A refresh made already is the first shown, the next one -d later;
	 * else one at once. */
	fs->due = 0;
	if (fs->ready) {
		fs->good++;
		fs->nhosts = fs->ready->drill ? fs->nhosts : fs->ready->nhosts;
		fs->primed = true;
		fs->due = mono_s() + fs->interval_s;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&fs->cv);
	pthread_cond_init(&fs->cv, &ca);
	pthread_condattr_destroy(&ca);
	int rc = pthread_create(&fs->thread, NULL, fs_thread, fs);
	if (rc != 0)
		return set_cause(cause, "cannot start the fleet's thread: %s", strerror(rc));
	fs->running = true;
	return 0;
}

static void fs_stop(void *ctx)
{
	struct fleet_src *fs = ctx;
	if (!fs->running)
		return;
	pthread_mutex_lock(&fs->mu);
	fs->stopping = true;
	pthread_cond_signal(&fs->cv);
	pthread_mutex_unlock(&fs->mu);
	fleet_cancel(fs->f);
	pthread_join(fs->thread, NULL);
	fs->running = false;
	snapshot_free(fs->ready);
	fs->ready = NULL;
	free(fs->news);
	fs->news = NULL;
}

/* On the screen's thread: what the fleet's thread published since the
 * last poll, its news said on the message line first. */
static struct snapshot *fs_poll(void *ctx, double now)
{
	struct fleet_src *fs = ctx;
	(void)now;
	pthread_mutex_lock(&fs->mu);
	struct snapshot *s = fs->ready;
	char *news = fs->news;
	fs->ready = NULL;
	fs->news = NULL;
	pthread_mutex_unlock(&fs->mu);
	tell(fs, news);
	return s;
}

static bool fs_request(void *ctx, int nmetrics, const int *metrics, int npinned, const int *pinned, int nevents,
		       const int *events)
{
	/* Every column is read at each refresh: nothing to plan. */
	(void)ctx; (void)nmetrics; (void)metrics; (void)npinned; (void)pinned; (void)nevents; (void)events;
	return false;
}

static const char *fs_request_tasks(void *ctx, int nmetrics, const int *metrics)
{
	(void)ctx;
	(void)metrics;
	return nmetrics > 0 ? "a fleet has no per-task figures: run pmctop on the host for its tasks" : NULL;
}

static void fs_set_interval(void *ctx, double seconds)
{
	struct fleet_src *fs = ctx;
	pthread_mutex_lock(&fs->mu);
	fs->interval_s = seconds;
	fs->due = mono_s() + seconds;
	pthread_cond_signal(&fs->cv);
	pthread_mutex_unlock(&fs->mu);
}

static void fs_pause(void *ctx, bool paused)
{
	struct fleet_src *fs = ctx;
	pthread_mutex_lock(&fs->mu);
	fs->paused = paused;
	pthread_cond_signal(&fs->cv);
	pthread_mutex_unlock(&fs->mu);
}

static const char *fs_status(void *ctx, char *buf, int len)
{
	struct fleet_src *fs = ctx;
	pthread_mutex_lock(&fs->mu);
	int n = fs->nhosts;
	if (fs->drill)
		snprintf(buf, (size_t)len, "%d hosts > %s: %d %s rows  Esc: back to the fleet", n, fs->drill,
			 fs->drill_rows, fs->drill_kind);
	else
		snprintf(buf, (size_t)len, "%d hosts", n);
	pthread_mutex_unlock(&fs->mu);
	return "FLEET";
}

/* The screen goes into host name (NULL: back to the hosts): a refresh at
 * once, and nothing made before it shown. */
static void fs_drill(void *ctx, const char *name)
{
	struct fleet_src *fs = ctx;
	pthread_mutex_lock(&fs->mu);
	free(fs->drill);
	fs->drill = name ? xstrdup(name) : NULL;
	free(fs->drill_note);
	fs->drill_note = NULL;
	fs->drill_rows = 0;
	fs->drill_kind[0] = 0;
	snapshot_free(fs->ready);
	fs->ready = NULL;
	fs->due = 0;
	pthread_cond_signal(&fs->cv);
	pthread_mutex_unlock(&fs->mu);
}

static const char *fs_why_missing(void *ctx, int mi, char *buf, int len)
{
	(void)ctx;
	(void)mi;
	snprintf(buf, (size_t)len, "a fleet shows its own columns only (events/fleet/columns.txt)");
	return buf;
}

static const struct source_ops fleet_ops = {
	.names_view = true,
	.free = fs_free,
	.interval = fs_interval,
	.next = fs_next,
	.finish = fs_finish,
	.start = fs_start,
	.stop = fs_stop,
	.poll = fs_poll,
	.request = fs_request,
	.request_tasks = fs_request_tasks,
	.set_interval = fs_set_interval,
	.pause = fs_pause,
	.status = fs_status,
	.why_missing = fs_why_missing,
	.drill = fs_drill,
};

struct source *source_fleet_new(struct fleet *f, double interval_s, struct snapshot *first, char *first_news,
				void (*say)(const char *msg), volatile sig_atomic_t *interrupt)
{
	struct fleet_src *fs = xcalloc(1, sizeof(*fs));
	fs->f = f;
	fs->interval_s = interval_s > 0 ? interval_s : 1;
	fs->say = say;
	fs->interrupt = interrupt;
	fs->ready = first;
	fs->news = first_news;
	pthread_mutex_init(&fs->mu, NULL);
	pthread_cond_init(&fs->cv, NULL);
	struct source *src = xcalloc(1, sizeof(*src));
	src->ops = &fleet_ops;
	src->ctx = fs;
	return src;
}
