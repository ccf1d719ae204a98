/* source_replay.c: a recording (-r) as a source (source.h). Batch mode
 * reads every interval as fast as it can; the dashboard derives each
 * interval on the screen's thread when it is due: one per recorded
 * interval, each shown for the refresh delay (the recorded interval at
 * first, so that the replay runs at the speed it was recorded; + speeds
 * it up, - slows it down). Steps and jumps move through it; new figures
 * derive the interval shown again, so nothing waits for the next one. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"
#include "source.h"
#include "util.h"

struct replay_src {
	struct replay *rp;
	const char *path;
	void (*say)(const char *msg);
	volatile sig_atomic_t *interrupt;
	int ncols; const int *cols;  /* batch output's metrics: those it lacks are said */
	/* Batch mode. */
	int next_i;                  /* the interval read next */
	int good, bad;               /* intervals read, and damaged ones */
	bool told;                   /* the missing metrics were said */
	/* The dashboard. */
	struct source_sink sink;
	int pos;                     /* interval shown, -1 before the first */
	int want;                    /* interval to show next (a step, a jump, new figures), or -1 */
	double due;                  /* when the next one is due while playing */
	double interval_s;           /* how long each interval stays on screen */
	bool paused;
};

static void rs_free(void *ctx)
{
	free(ctx);
}

static double rs_interval(void *ctx)
{
	return replay_info(((struct replay_src *)ctx)->rp)->interval_s;
}

/* A damaged interval is said and skipped; the first few are said as they
 * come and the rest counted: a file of a million damaged intervals is
 * not a million lines. */
static struct snapshot *rs_next(void *ctx, enum source_got *got, char **cause)
{
	struct replay_src *r = ctx;
	if (r->next_i >= replay_count(r->rp) || (r->interrupt && *r->interrupt)) {
		*got = SOURCE_END;
		return NULL;
	}
	char *why = NULL;
	struct snapshot *snap = replay_snapshot(r->rp, r->next_i++, &why);
	if (snap) {
		r->good++;
		*got = SOURCE_OK;
		return snap;
	}
	if (r->bad++ < REPLAY_SAID_DAMAGED && r->say) {
		char *msg = xasprintf("%s: %s; skipped", r->path, why);
		r->say(msg);
		free(msg);
	}
	free(why);
	(void)cause;
	*got = SOURCE_SKIPPED;
	return NULL;
}

/* Says once which of the metrics asked for the recording cannot give. */
static void rs_say_news(void *ctx, const struct snapshot *snap)
{
	struct replay_src *r = ctx;
	if (r->told)
		return;
	r->told = true;
	const struct model *m = replay_info(r->rp)->model;
	for (int i = 0; i < r->ncols; i++) {
		char why[160];
		if (snap->metric_planned[r->cols[i]] || !replay_why_missing(r->rp, r->cols[i], why, sizeof(why)))
			continue;
		char *msg = xasprintf("%s: %s shows '-' from the first interval on: %s", r->path,
				      m->metrics[r->cols[i]].name, why);
		if (r->say)
			r->say(msg);
		free(msg);
	}
}

static int rs_finish(void *ctx)
{
	struct replay_src *r = ctx;
	if (r->bad > REPLAY_SAID_DAMAGED)
		fprintf(stderr, "pmctop: %s: %d more damaged intervals were skipped (%d in all, %d read)\n",
			r->path, r->bad - REPLAY_SAID_DAMAGED, r->bad, r->good);
	if (r->good == 0 && !(r->interrupt && *r->interrupt)) {
		fprintf(stderr, "pmctop: %s: no interval could be read\n", r->path);
		return 1;
	}
	return 0;
}

static int rs_start(void *ctx, struct snap_ring *ring, const struct source_sink *sink, char **cause)
{
	struct replay_src *r = ctx;
	(void)ring;
	(void)cause;
	r->sink = *sink;
	return 0;
}

static void message(struct replay_src *r, const char *msg)
{
	if (r->sink.message)
		r->sink.message(r->sink.arg, msg);
}

/* A move other than one interval forward (a jump, a step back): the
 * history is that of the intervals before i in the file, as if it had
 * played up to there; clearing it left the graphs blank although the
 * file holds what came before. */
static void refill_history(struct replay_src *r, int i)
{
	if (!r->sink.history_clear || !r->sink.history_add)
		return;
	r->sink.history_clear(r->sink.arg);
	for (int k = i - r->sink.history_len + 1 > 0 ? i - r->sink.history_len + 1 : 0; k < i; k++) {
		struct snapshot *s = replay_snapshot(r->rp, k, NULL);
		if (s) {
			r->sink.history_add(r->sink.arg, s);
			snapshot_free(s);
		}
	}
}

static struct snapshot *show(struct replay_src *r, int i)
{
	int n = replay_count(r->rp);
	while (i >= 0 && i < n) {
		char *cause = NULL;
		struct snapshot *s = replay_snapshot(r->rp, i, &cause);
		if (s) {
			if (i != r->pos + 1)
				refill_history(r, i);
			r->pos = i;
			return s;
		}
		/* A damaged interval: said, and the next one shown instead. */
		char *msg = xasprintf("%s; skipped", cause);
		message(r, msg);
		free(msg);
		free(cause);
		i++;
	}
	return NULL;
}

static struct snapshot *rs_poll(void *ctx, double now)
{
	struct replay_src *r = ctx;
	int n = replay_count(r->rp);
	if (r->want >= 0) {
		int i = r->want;
		r->want = -1;
		r->due = now + r->interval_s;
		return show(r, i < 0 ? 0 : i >= n ? n - 1 : i);
	}
	if (r->paused || now < r->due)
		return NULL;
	if (r->pos + 1 >= n) {
		r->paused = true;
		if (r->sink.paused)
			r->sink.paused(r->sink.arg);
		message(r, "end of the recording: [ steps back, j jumps, q quits");
		return NULL;
	}
	r->due = now + r->interval_s;
	return show(r, r->pos + 1);
}

static bool rs_request(void *ctx, int nmetrics, const int *metrics, int npinned, const int *pinned, int nevents,
		       const int *events)
{
	struct replay_src *r = ctx;
	(void)npinned;   /* what was counted throughout was settled when recorded */
	(void)pinned;
	replay_request(r->rp, nmetrics, metrics, nevents, events);
	if (r->pos >= 0 && r->want < 0) {
		r->want = r->pos;
		/* The same interval again: not a move for the history. */
		r->pos--;
	}
	return true;
}

static const char *rs_request_tasks(void *ctx, int nmetrics, const int *metrics)
{
	(void)ctx;
	(void)metrics;
	return nmetrics > 0 ? "a recording has no per-task figures: the tasks view shows who ran only live" : NULL;
}

static void rs_set_interval(void *ctx, double seconds)
{
	((struct replay_src *)ctx)->interval_s = seconds;
}

static void rs_pause(void *ctx, bool paused)
{
	struct replay_src *r = ctx;
	r->paused = paused;
	/* Resuming at the end plays again from the start. */
	if (!paused && r->pos + 1 >= replay_count(r->rp))
		r->want = 0;
}

static int rs_position(void *ctx, int *count)
{
	struct replay_src *r = ctx;
	*count = replay_count(r->rp);
	return r->pos;
}

static double rs_time_at(void *ctx, int i)
{
	return replay_time(((struct replay_src *)ctx)->rp, i);
}

static int rs_find_time(void *ctx, double t)
{
	return replay_find_time(((struct replay_src *)ctx)->rp, t);
}

static void rs_seek(void *ctx, int i)
{
	((struct replay_src *)ctx)->want = i;
}

/* "12/60 10:00:05 x1.0" after the REPLAY badge. */
static const char *rs_status(void *ctx, char *buf, int len)
{
	struct replay_src *r = ctx;
	int n = replay_count(r->rp);
	double t = replay_time(r->rp, r->pos < 0 ? 0 : r->pos);
	char when[16] = "--:--:--";
	if (isfinite(t)) {
		time_t tt = (time_t)t;
		struct tm tm;
		if (localtime_r(&tt, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
	}
	double speed = replay_info(r->rp)->interval_s / (r->interval_s > 0 ? r->interval_s : 1);
	if (r->paused)
		snprintf(buf, (size_t)len, "%d/%d %s paused x%.2g", r->pos + 1, n, when, speed);
	else
		snprintf(buf, (size_t)len, "%d/%d %s x%.2g", r->pos + 1, n, when, speed);
	return "REPLAY";
}

static const char *rs_why_missing(void *ctx, int mi, char *buf, int len)
{
	return replay_why_missing(((struct replay_src *)ctx)->rp, mi, buf, len);
}

static const struct source_ops replay_ops = {
	.interval_is_pace = true,
	.names_view = true,
	.free = rs_free,
	.interval = rs_interval,
	.next = rs_next,
	.say_news = rs_say_news,
	.finish = rs_finish,
	.start = rs_start,
	.poll = rs_poll,
	.request = rs_request,
	.request_tasks = rs_request_tasks,
	.set_interval = rs_set_interval,
	.pause = rs_pause,
	.position = rs_position,
	.time_at = rs_time_at,
	.find_time = rs_find_time,
	.seek = rs_seek,
	.status = rs_status,
	.why_missing = rs_why_missing,
};

struct source *source_replay_new(struct replay *rp, const char *path, int ncols, const int *cols,
				 void (*say)(const char *msg), volatile sig_atomic_t *interrupt)
{
	struct replay_src *r = xcalloc(1, sizeof(*r));
	r->rp = rp;
	r->path = path;
	r->ncols = ncols;
	r->cols = cols;
	r->say = say;
	r->interrupt = interrupt;
	r->pos = -1;
	r->want = 0;
	double iv = replay_info(rp)->interval_s;
	r->interval_s = iv > 0 ? iv : 1;
	struct source *src = xcalloc(1, sizeof(*src));
	src->ops = &replay_ops;
	src->ctx = r;
	return src;
}
