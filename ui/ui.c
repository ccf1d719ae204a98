/* ui.c: the dashboard's loop. It polls the keyboard every 100 ms, takes the
 * newest snapshot from the ring (the sampler never waits for the screen),
 * and redraws when data, a key or a resize arrives. The terminal is
 * term.c's, the columns columns.c's, the rows rows.c's, what keys and
 * clicks do actions.c's, and the views and saved settings views.c's. */
#include "config.h"
#include "ui_impl.h"
#include "format.h"

#include <curses.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "keytime.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "snapfile.h"
#include "spark.h"
#include "util.h"

static double ui_now_s(void)
{
	return (double)now_ns() / 1e9;
}

/* The sink the source tells the screen through (source.h). */
static void sink_message(void *arg, const char *msg)
{
	ui_set_message(arg, msg);
}

static void sink_history_clear(void *arg)
{
	history_clear(&((struct ui *)arg)->hist);
}

static void sink_history_add(void *arg, const struct snapshot *s)
{
	ui_history_add(arg, s);
}

static void sink_paused(void *arg)
{
	((struct ui *)arg)->nav.paused = true;
}

void ui_done(struct ui *u)
{
	snapshot_free(u->snap_owned);
	u->snap = u->snap_owned = NULL;
	if (u->pending)
		snapshot_free(u->pending);
	free(u->cols);
	free(u->rows);
	free(u->extra);
	free(u->filter);
	topo_free(u->topo_grown);
	free(u->filter_text);
	free(u->task_match);
	ui_fleet_drill_free(u);
	free(u->cpu_filter_kept);
	free(u->tasks_why);
	free(u->cpu_filter_text_kept);
	free(u->search_text);
	free(u->message);
	free(u->views);
	free(u->group_view.cols);
	history_done(&u->hist);
	ui_errors_done(u);
	ui_panels_free(u);
}

/* The dashboard's state for config c, before the screen starts: the
 * views, the saved settings, the columns, and the first request for
 * figures. -1 with *cause for a view or group the model lacks. */
int ui_init(struct ui *u, const struct ui_config *c, char **cause)
{
	u->cfg = c;
	u->m = c->model;
	u->topo = c->topo;
	u->src = c->source;
	u->nav.show_ccx = true;
	u->nav.interval_s = source_interval(u->src);
	ui_views_reload(u, NULL);
	if (c->view) {
		int v = model_find_view(u->m, c->view);
		if (v < 0 && ui_add_group_view(u, c->view))
			v = u->nviews - 1;
		/* A view not given (-g) was named by the source (the view a
		 * recording was made in), which may be a user's view that this
		 * run does not have: the first view then. */
		if (v < 0 && !c->view_given)
			v = 0;
		if (v < 0) {
			free(u->views);
			return set_cause(cause, "unknown view or metric group '%s' (see --list-views)", c->view);
		}
		u->nav.view = v;
	}
	ui_apply_settings_early(u);
	u->nav.nviews = u->nviews;
	for (int i = 0; i < c->nextra; i++)
		if (c->extra_events[i] >= 0 && c->extra_events[i] < u->m->nevents)
			ui_add_extra(u, c->extra_events[i]);
	u->filter = xcalloc((size_t)u->topo->max_cpu + 1, sizeof(bool));
	for (int i = 0; i < u->topo->max_cpu; i++)
		u->filter[i] = true;
	u->rows_cap = u->topo->ncpus > 0 ? u->topo->ncpus : 1;
	u->rows = xcalloc((size_t)u->rows_cap, sizeof(*u->rows));
	ui_find_metrics(u);
	ui_panels_init(u);
	history_init(&u->hist, HISTORY_LEN, HISTORY_BUDGET);
	ui_build_columns(u);
	ui_apply_settings_sort(u);
	ui_request(u);
	return 0;
}

/* The dashboard's heap, set before its sampler thread starts (glibc):
 * - one malloc arena for every thread: glibc gives each new thread an
 *   arena of its own, which keeps freed pages of its own; the sampler's
 *   held some 11 MB more at 1,024 simulated CPUs than the same
 *   allocations in the main arena (VmRSS 52 MB against 41 MB after 30 s),
 *   and three threads that allocate a few times a second do not contend;
 * - blocks of 128 KiB and more (a snapshot of 1,024 CPUs is 1.5 MiB) from
 *   mmap, always: glibc raises the threshold to the size of each such
 *   block freed, after which snapshots come from the heap and the freed
 *   ones stay in it as holes (2 to 3 MB more at 1,024 CPUs).
 * docs/performance.md, "The dashboard at 1,024 CPUs over 10 minutes". */
static void ui_heap_setup(void)
{
#if defined(__GLIBC__)
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int ui_run(const struct ui_config *c, char **cause)
{
	static bool atexit_done;
	struct ui u;
	int rc = -1;
	memset(&u, 0, sizeof(u));
	if (!c || !c->model || !c->topo || !c->source)
		return set_cause(cause, "internal error: the dashboard needs a model, a topology and a source");
	ui_heap_setup();
	if (ui_init(&u, c, cause) < 0)
		return -1;

	snap_ring_init(&u.ring);
	/* The notice of the first plan, read before the source's thread
	 * exists: once it runs, that thread rebuilds the notice at every
	 * re-plan, and the screen takes it from each snapshot instead. */
	const char *n0 = source_first_notice(u.src);
	u.first_notice = n0 && *n0 ? xstrdup(n0) : NULL;
	struct source_sink sink = {
		.arg = &u, .message = sink_message, .history_clear = sink_history_clear,
		.history_add = sink_history_add, .history_len = HISTORY_LEN, .paused = sink_paused,
	};
	if (source_start(u.src, &u.ring, &sink, cause) < 0)
		goto out_ring;
	if (!atexit_done) {
		atexit(ui_restore);
		atexit_done = true;
	}
	if (ui_screen_init(&u, cause) < 0)
		goto out_source;
	u.utf8 = spark_utf8_locale() && spark_term_blocks(getenv("TERM"));

	bool dirty = true;
	long shown = 0;
	keytime_init();
	while (!ui_stopping()) {
		/* What the source makes on this thread when due (a recording's
		 * next interval), else what its own thread published. */
		struct snapshot *s = source_poll(u.src, ui_now_s());
		if (s)
			ui_tell_missing(&u, s);
		else
			s = ui_pop_snapshots(&u);
		/* A fleet's hosts made before Enter went into one (or the
		 * reverse) are not what the screen shows now. */
		if (s && !ui_fleet_drill_takes(&u, s)) {
			snapshot_free(s);
			s = NULL;
		}
		/* What came while a dialog was open is in the history already. */
		bool kept = !s && u.pending;
		if (kept)
			s = u.pending;
		else if (u.pending)
			snapshot_free(u.pending);
		u.pending = NULL;
		if (s) {
			shown++;
			/* The same interval derived again (a new view) is not a
			 * new one. */
			bool again = u.snap && s->seq == u.snap->seq && s->time == u.snap->time;
			snapshot_free(u.snap_owned);
			u.snap = u.snap_owned = s;
			ui_fleet_grow(&u);
			/* A drilled fleet host's past first (fleet_drill.c). */
			if (!again && !kept && u.cfg->fleet)
				ui_fleet_drill_history(&u, s);
			if (!again && !kept)
				ui_history_add(&u, s);
			dirty = true;
			/* Columns follow what the figures can show. */
			ui_build_columns(&u);
		}
		if (u.redraw) {
			u.redraw = false;
			dirty = true;
		}
		if (u.message && ui_now_s() > u.message_until) {
			free(u.message);
			u.message = NULL;
			dirty = true;
		}
		if (dirty) {
			ui_build_rows(&u);
			draw_screen(&u, &u.drawn);
			keytime_frame(s != NULL);
			dirty = false;
		}
		/* -n, as in top: the last interval stays on screen briefly. */
		/* As the source counts them (source_count). */
		long done = source_count(u.src, shown, u.snap);
		if (c->iterations > 0 && done >= c->iterations) {
			napms(300);
			break;
		}
		int key = ui_getkey();
		if (key < 0)
			continue;
		keytime_key(key);
		if (!ui_handle_key(&u, key))
			break;
		keytime_handled();
		dirty = true;
	}
	rc = 0;
	keytime_done();
	ui_screen_done();
out_source:
	source_stop(u.src);
out_ring:
	snapshot_free(u.snap_owned);
	u.snap = u.snap_owned = NULL;
	snap_ring_done(&u.ring);
	free(u.first_notice);
	ui_done(&u);
	return rc;
}
