/* source_fleet.c: a fleet (fleet.h) as a source (source.h): each interval
 * is one refresh of every host, a snapshot whose CPU-scope rows are the
 * hosts. Batch mode refreshes every -d seconds; the dashboard polls on
 * the screen's thread when a refresh is due (libcurl's requests end
 * within the client timeout, so the screen waits at most that long). In direct mode the first figures
 * need two scrapes, so the first refresh only primes the counters. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet.h"
#include "source.h"
#include "util.h"

struct fleet_src {
	struct fleet *f;
	double interval_s;
	void (*say)(const char *msg);
	volatile sig_atomic_t *interrupt;
	bool primed;             /* direct mode: the first scrape is taken */
	double due;              /* monotonic seconds of the next refresh */
	long good;               /* refreshes that gave a snapshot */
	struct source_sink sink;
	bool dashboard, paused;
	int nhosts;
};

static double mono_s(void)
{
	return (double)now_ns() / 1e9;
}

static void fs_free(void *ctx)
{
	struct fleet_src *fs = ctx;
	fleet_free(fs->f);
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

static struct snapshot *refresh(struct fleet_src *fs, char **cause)
{
	char *news = NULL;
	struct snapshot *s = fleet_refresh(fs->f, &news, cause);
	tell(fs, news);
	if (s) {
		fs->good++;
		fs->nhosts = s->nhosts;
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

static int fs_start(void *ctx, struct snap_ring *ring, const struct source_sink *sink, char **cause)
{
	struct fleet_src *fs = ctx;
	(void)ring;
	(void)cause;
	fs->sink = *sink;
	fs->dashboard = true;
	fs->due = 0;
	return 0;
}

static struct snapshot *fs_poll(void *ctx, double now)
{
	struct fleet_src *fs = ctx;
	(void)now;
	double t = mono_s();
	if (fs->paused || t < fs->due)
		return NULL;
	if (!fs->primed && !fleet_is_prometheus(fs->f)) {
		/* The first scrape: the figures come from the next. Soon, so
		 * that the screen does not wait a whole -d for its rows. */
		fs->primed = true;
		fs->due = t + fmin(fs->interval_s, 1.0);
		char *why = NULL;
		struct snapshot *s = refresh(fs, &why);
		free(why);
		return s;
	}
	fs->primed = true;
	fs->due = t + fs->interval_s;
	char *why = NULL;
	struct snapshot *s = refresh(fs, &why);
	if (!s && why && fs->sink.message) {
		char *msg = xasprintf("fleet: %s", why);
		fs->sink.message(fs->sink.arg, msg);
		free(msg);
	}
	free(why);
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
	fs->interval_s = seconds;
	fs->due = mono_s() + seconds;
}

static void fs_pause(void *ctx, bool paused)
{
	((struct fleet_src *)ctx)->paused = paused;
}

static const char *fs_status(void *ctx, char *buf, int len)
{
	struct fleet_src *fs = ctx;
	snprintf(buf, (size_t)len, "%d hosts", fs->nhosts);
	return "FLEET";
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
	.poll = fs_poll,
	.request = fs_request,
	.request_tasks = fs_request_tasks,
	.set_interval = fs_set_interval,
	.pause = fs_pause,
	.status = fs_status,
	.why_missing = fs_why_missing,
};

struct source *source_fleet_new(struct fleet *f, double interval_s, void (*say)(const char *msg),
				volatile sig_atomic_t *interrupt)
{
	struct fleet_src *fs = xcalloc(1, sizeof(*fs));
	fs->f = f;
	fs->interval_s = interval_s > 0 ? interval_s : 1;
	fs->say = say;
	fs->interrupt = interrupt;
	struct source *src = xcalloc(1, sizeof(*src));
	src->ops = &fleet_ops;
	src->ctx = fs;
	return src;
}
