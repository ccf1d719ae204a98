/* source.h: where a run's intervals come from, as one interface: the
 * live sampler (source_live.c) or a recording (source_replay.c), and
 * later others. The dashboard (ui/) and the batch loop (main_batch.c)
 * call only through it; main.c alone picks the implementation. Each is a
 * table of operations over a context of its own; an operation that a
 * source does not have is NULL and the source_* wrappers below do what
 * its absence means (nothing, or "not available"). */
#ifndef PMCTOP_SOURCE_H
#define PMCTOP_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include "snapshot.h"

struct derive_want;

/* What the dashboard lends a source while it runs on the screen's
 * thread: where its messages, and the intervals it passes over on the
 * way to the one it shows, go. */
struct source_sink {
	void *arg;
	/* A line for the screen's message area (a damaged interval skipped,
	 * the end of a recording). */
	void (*message)(void *arg, const char *msg);
	/* The history (sparklines) starts again: a move other than one
	 * interval forward; history_add then fills it with what came before. */
	void (*history_clear)(void *arg);
	void (*history_add)(void *arg, const struct snapshot *s);
	int history_len;             /* how many intervals the history keeps */
	/* The source paused itself (the end of a recording). */
	void (*paused)(void *arg);
};

/* What source_next() returned. */
enum source_got {
	SOURCE_OK,        /* a snapshot */
	SOURCE_SKIPPED,   /* an interval that could not be read, said and passed over */
	SOURCE_END,       /* no more intervals (the end of a recording, or a stop) */
	SOURCE_FAILED,    /* measuring failed: *cause says why (NULL: unknown) */
};

struct source_ops {
	/* -d, +, - and F2's delay set how long each interval stays on the
	 * screen (a recording's pace) rather than how long one is measured:
	 * + and - are then its speed, and the delay is not a saved setting. */
	bool interval_is_pace;
	/* The source names the view it was made in: the saved settings'
	 * view does not replace it. */
	bool names_view;

	void (*free)(void *ctx);
	/* The refresh delay to start with (seconds). */
	double (*interval)(void *ctx);
	/* What the source has to say before its first interval (unusable
	 * PMUs), or NULL; the screen reads later ones in each snapshot. */
	const char *(*first_notice)(void *ctx);

	/* Batch mode: the next interval, made now (paced to -d where the
	 * clock is simulated) or read. */
	struct snapshot *(*next)(void *ctx, enum source_got *got, char **cause);
	/* Batch mode: says on stderr what snap tells beyond its figures
	 * (new notices, metrics a recording cannot give). */
	void (*say_news)(void *ctx, const struct snapshot *snap);
	/* Batch mode, after the last interval: says what is left to say
	 * (damage counted), and returns 1 when the run failed for it (no
	 * interval could be read), else 0. */
	int (*finish)(void *ctx);

	/* The dashboard: starts making intervals, on a thread of the
	 * source's own into ring, or on the screen's thread (poll); sink is
	 * kept until stop. -1 with *cause. */
	int (*start)(void *ctx, struct snap_ring *ring, const struct source_sink *sink, char **cause);
	void (*stop)(void *ctx);
	/* The interval to show when one is due at now (caller owns it), or
	 * NULL; NULL op: the intervals come through the ring only. */
	struct snapshot *(*poll)(void *ctx, double now);

	/* The figures to make: these metrics and events, the pinned ones
	 * counted throughout the interval where the counters allow (a
	 * recording's were measured already: it reads them as they are).
	 * Returns true when
	 * the interval on the screen is made again with them at once (the
	 * next poll returns it), false when they come with the next one. */
	bool (*request)(void *ctx, int nmetrics, const int *metrics, int npinned, const int *pinned, int nevents,
			const int *events);
	/* The metrics per task (a tasks view's columns; 0: none). Returns a
	 * line for the screen when the source cannot give them, or NULL. */
	const char *(*request_tasks)(void *ctx, int nmetrics, const int *metrics);
	void (*set_interval)(void *ctx, double seconds);
	void (*pause)(void *ctx, bool paused);
	/* The rows whose errors the screen reads: a one-way hint of which
	 * to find at once; a row not hinted has its errors found when it is
	 * read (snapshot.h). NULL where every row's are found. */
	void (*hint_rows)(void *ctx, const struct derive_want *want);

	/* Moving through intervals that exist already (NULL where they do
	 * not): the one shown (-1 before the first) and how many there are;
	 * the wall-clock time at the end of interval i; the first interval
	 * ending at or after t; show interval i next. */
	int (*position)(void *ctx, int *count);
	double (*time_at)(void *ctx, int i);
	int (*find_time)(void *ctx, double t);
	void (*seek)(void *ctx, int i);

	/* The header's badge ("REPLAY") with its status in buf (position,
	 * time, speed and whether it is paused), or NULL: no badge. */
	const char *(*status)(void *ctx, char *buf, int len);
	/* Why metric mi cannot be had from this source, in buf, or NULL. */
	const char *(*why_missing)(void *ctx, int mi, char *buf, int len);
	/* A fleet: show host name's own rows from now on (NULL: the fleet's
	 * hosts again); the next poll brings them. NULL op: no drill down. */
	void (*drill)(void *ctx, const char *name);
	/* The intervals that -n counts so far: shown is how many the screen
	 * has shown, last the snapshot it shows (NULL: none yet). */
	long (*count)(void *ctx, long shown, const struct snapshot *last);
};

struct source {
	const struct source_ops *ops;
	void *ctx;
};

/* The wrappers: what each operation means where a source lacks it. */
void source_free(struct source *src);
double source_interval(const struct source *src);
const char *source_first_notice(const struct source *src);
struct snapshot *source_next(const struct source *src, enum source_got *got, char **cause);
void source_say_news(const struct source *src, const struct snapshot *snap);
int source_finish(const struct source *src);
int source_start(const struct source *src, struct snap_ring *ring, const struct source_sink *sink, char **cause);
void source_stop(const struct source *src);
struct snapshot *source_poll(const struct source *src, double now);
bool source_request(const struct source *src, int nmetrics, const int *metrics, int npinned, const int *pinned,
		    int nevents, const int *events);
const char *source_request_tasks(const struct source *src, int nmetrics, const int *metrics);
void source_set_interval(const struct source *src, double seconds);
void source_pause(const struct source *src, bool paused);
void source_hint_rows(const struct source *src, const struct derive_want *want);
bool source_seeks(const struct source *src);
int source_position(const struct source *src, int *count);
double source_time_at(const struct source *src, int i);
int source_find_time(const struct source *src, double t);
void source_seek(const struct source *src, int i);
const char *source_status(const struct source *src, char *buf, int len);
const char *source_why_missing(const struct source *src, int mi, char *buf, int len);
long source_count(const struct source *src, long shown, const struct snapshot *last);
/* Whether the source can drill into one of its rows (a fleet's host). */
bool source_drills(const struct source *src);
void source_drill(const struct source *src, const char *name);

/* source_live.c: the sampler (not yet started; the source does not own
 * it). interval_s: -d. say: batch mode's line on stderr. interrupt: set
 * by a signal handler; pacing stops waiting when it is. */
struct sampler;
struct source *source_live_new(struct sampler *s, double interval_s, bool paced,
			       void (*say)(const char *msg), volatile sig_atomic_t *interrupt);

/* source_replay.c: a recording (not owned), its path for messages, and
 * the metrics batch output writes (cols: not copied), whose absence from
 * the recording batch mode says. */
struct replay;
struct source *source_replay_new(struct replay *rp, const char *path, int ncols, const int *cols,
				 void (*say)(const char *msg), volatile sig_atomic_t *interrupt);

/* source_fleet.c: a fleet (fleet.h, owned: freed with the source), one
 * refresh of every host an interval of interval_s (-d). first: a refresh
 * made already, and its news (both owned, may be NULL), which the
 * dashboard shows at once, its next refresh -d later. */
struct fleet;
struct source *source_fleet_new(struct fleet *f, double interval_s, struct snapshot *first, char *first_news,
				void (*say)(const char *msg), volatile sig_atomic_t *interrupt);

#endif
