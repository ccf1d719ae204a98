/* history.h: a bounded in-memory history of the dashboard's figures, for
 * its sparklines and the detail pane. No curses here, so that tests can
 * drive it with hand-made snapshots.
 *
 * Whole snapshots are not kept (one of 1024 CPUs is 1.4 MiB with the
 * default view's figures, 6 MiB with every metric's: each planned event's
 * count, coverage and uncertainty for every row as well). Each interval
 * keeps only the values of the metrics planned in it, as 16-bit halves
 * scaled per metric and scope (within 2^-11 of the value), for the
 * scopes where the metric has a value at all (an L3 metric has none in CPU
 * rows), next to a table of the rows' ids that consecutive intervals share.
 * Coverage and uncertainty are not kept: the screen shows those for the
 * interval on screen, from its snapshot.
 *
 * The budget is HISTORY_LEN intervals (10 minutes at the default 1 s) and
 * at most HISTORY_BUDGET bytes, whichever is reached first: a machine
 * large enough, or a plan wide enough (every metric of the model), for 600
 * intervals to pass the byte budget keeps fewer intervals instead, and the
 * screen says how many it holds. docs/history.md has the figures.
 *
 * A change of the refresh delay keeps what is held: the graphs lay the
 * intervals out by time at the newest length (history_series), and the
 * mean weighs each interval by its length. Time that steps back (a
 * replay that moved back) starts the history again. */
#ifndef PMCTOP_UI_HISTORY_H
#define PMCTOP_UI_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "snapshot.h"

#define HISTORY_LEN 600
#define HISTORY_BUDGET ((size_t)48 << 20)

struct history_shape;
struct history_entry;

struct history {
	int cap;                      /* intervals at most */
	size_t budget;                /* bytes at most */
	int n, first;                 /* intervals held; ring index of the oldest */
	struct history_entry **ring;  /* [cap] */
	size_t bytes;                 /* all that is held, the ring itself included */
	struct history_shape *shape;  /* rows of the newest interval */
	int nmetrics;                 /* the model's metrics, as in the snapshots held */
	unsigned long dropped;        /* intervals not kept: one alone was over the budget */
};

void history_init(struct history *h, int cap, size_t budget);
void history_done(struct history *h);
/* Forgets every interval (a replay's jump). */
void history_clear(struct history *h);
/* Keeps the figures of snapshot s, dropping the oldest intervals while
 * either budget is exceeded. Returns false if s was not kept. */
bool history_add(struct history *h, const struct snapshot *s);

int history_count(const struct history *h);
size_t history_bytes(const struct history *h);
/* The length of the intervals held (the delay asked for, where the
 * snapshots say it); NaN when none is. */
double history_interval(const struct history *h);
/* Seconds from the start of the oldest interval held to the end of the
 * newest; 0 when none is. */
double history_span(const struct history *h);

/* The history of one metric of one row (scope sc, row id as in
 * snap_row.id) laid out in time: out[n-1] is the newest interval, out[n-2]
 * the time of one newest interval length before it, and so on; an older
 * interval of another length fills the slots it spans (two for one twice
 * as long), or shares one with its neighbours as their mean (one half as
 * long); NaN where the metric had no value, was not measured, or no
 * interval was kept (a pause: a gap, never a made-up value). Returns how
 * many slots hold a value. */
int history_series(const struct history *h, enum snap_scope sc, int id, int metric, double *out, int n);

/* The lowest, mean and highest value of one metric of one row over every
 * interval held, and how many intervals had a value (0: min, avg and max
 * are NaN). The mean is over time: each interval weighs its length. */
struct history_stats { double min, avg, max; int n; };
void history_stats(const struct history *h, enum snap_scope sc, int id, int metric, struct history_stats *st);

#endif
