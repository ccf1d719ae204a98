/* source_live.c: the live sampler as a source (source.h). Batch mode
 * steps it on the caller's thread, paced to -d where the PMU is
 * simulated; the dashboard runs it on its own thread, publishing into
 * the screen's ring. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"
#include "source.h"
#include "util.h"
#include "hot_path.h"

struct live {
	struct sampler *s;
	double interval_s;
	bool paced;                       /* simulated, not fast-forward: wait out -d */
	void (*say)(const char *msg);
	volatile sig_atomic_t *interrupt;
	uint64_t t0;                      /* batch: when the first interval began */
	long n;                           /* batch: intervals made */
	char *told;                       /* batch: the notice said last */
	struct snap_note *told_note;      /* and the shared copy it came in, held (snap_note) */
};

static void live_free(void *ctx)
{
	struct live *l = ctx;
	free(l->told);
	snap_note_release(l->told_note);
	free(l);
}

static double live_interval(void *ctx)
{
	return ((struct live *)ctx)->interval_s;
}

static const char *live_first_notice(void *ctx)
{
	return sampler_notice(((struct live *)ctx)->s);
}

/* Sleeps until the monotonic time t; false when a signal asked to stop. */
static bool pace_until(const struct live *l, uint64_t t)
{
	while (!(l->interrupt && *l->interrupt) && now_ns() < t)
		wait_until_ns(t);
	return !(l->interrupt && *l->interrupt);
}

HOT_PATH static struct snapshot *live_next(void *ctx, enum source_got *got, char **cause)
{
	struct live *l = ctx;
	if (l->n == 0)
		l->t0 = now_ns();
	struct snapshot *snap = sampler_step(l->s, cause);
	l->n++;
	/* The simulated PMU does not take real time to count; pace it so
	 * that -d means seconds there too, as it does on the screen
	 * (unless its ff=1 option asks for fast-forward): an interval is
	 * returned when it has ended, the first one too. A signal while
	 * waiting still returns it (nothing is lost); the caller stops
	 * after it. */
	if (snap && l->paced)
		pace_until(l, l->t0 + (uint64_t)llround((double)l->n * l->interval_s * 1e9));
	if (snap)
		*got = SOURCE_OK;
	else
		*got = l->interrupt && *l->interrupt ? SOURCE_END : SOURCE_FAILED;
	return snap;
}

/* Each line of the notice is said when it first appears, before the
 * figures it concerns, one line each: what the plan has to say once, and
 * a failure (a plan that could not be opened, reads that failed) in the
 * interval it happened. */
HOT_PATH static void live_say_news(void *ctx, const struct snapshot *snap)
{
	struct live *l = ctx;
	const char *notice = snap->notice;
	/* The shared copy of the notice told last (the sampler's, the same
	 * text until the plan's notice changes): nothing to compare. */
	if (snap->note && snap->note == l->told_note)
		return;
	/* The same notice as the interval before, as nearly every interval
	 * has: every line of it was told (one pass, not a look-up of each
	 * line among those told and a copy of the whole). */
	bool same = !notice ? !l->told : l->told && !strcmp(notice, l->told);
	if (!same) {
		for (const char *p = notice; p && *p;) {
			size_t len = strcspn(p, "\n");
			bool known = false;
			for (const char *b = l->told; b && *b && !known;) {
				size_t blen = strcspn(b, "\n");
				known = blen == len && !memcmp(b, p, len);
				b += blen + (b[blen] == '\n');
			}
			if (!known && l->say) {
				char *line = xstrndup(p, len);
				l->say(line);
				free(line);
			}
			p += len + (p[len] == '\n');
		}
		free(l->told);
		l->told = notice ? xstrdup(notice) : NULL;
	}
	snap_note_release(l->told_note);
	l->told_note = snap->note ? snap_note_hold(snap->note) : NULL;
}

static int live_start(void *ctx, struct snap_ring *ring, const struct source_sink *sink, char **cause)
{
	(void)sink;
	return sampler_start(((struct live *)ctx)->s, ring, cause);
}

static void live_stop(void *ctx)
{
	sampler_stop(((struct live *)ctx)->s);
}

/* New figures come with the next interval: the one on screen was
 * measured already. */
static bool live_request(void *ctx, int nmetrics, const int *metrics, int npinned, const int *pinned, int nevents,
			 const int *events)
{
	sampler_request_pinned(((struct live *)ctx)->s, nmetrics, metrics, npinned, pinned, nevents, events);
	return false;
}

static const char *live_request_tasks(void *ctx, int nmetrics, const int *metrics)
{
	sampler_request_tasks(((struct live *)ctx)->s, nmetrics, metrics);
	return NULL;
}

static void live_set_interval(void *ctx, double seconds)
{
	struct live *l = ctx;
	l->interval_s = seconds;
	sampler_set_interval(l->s, seconds);
}

static void live_pause(void *ctx, bool paused)
{
	sampler_pause(((struct live *)ctx)->s, paused);
}

static void live_hint_rows(void *ctx, const struct derive_want *want)
{
	sampler_want_errors(((struct live *)ctx)->s, want);
}

/* -n counts the sampler's intervals: the screen may skip one that came
 * while it drew, but a recording (-w) has it. */
static long live_count(void *ctx, long shown, const struct snapshot *last)
{
	(void)ctx;
	return last ? (long)last->seq : shown;
}

static const struct source_ops live_ops = {
	.free = live_free,
	.interval = live_interval,
	.first_notice = live_first_notice,
	.next = live_next,
	.say_news = live_say_news,
	.start = live_start,
	.stop = live_stop,
	.request = live_request,
	.request_tasks = live_request_tasks,
	.set_interval = live_set_interval,
	.pause = live_pause,
	.hint_rows = live_hint_rows,
	.count = live_count,
};

struct source *source_live_new(struct sampler *s, double interval_s, bool paced,
			       void (*say)(const char *msg), volatile sig_atomic_t *interrupt)
{
	struct live *l = xcalloc(1, sizeof(*l));
	l->s = s;
	l->interval_s = interval_s;
	l->paced = paced;
	l->say = say;
	l->interrupt = interrupt;
	struct source *src = xcalloc(1, sizeof(*src));
	src->ops = &live_ops;
	src->ctx = l;
	return src;
}
