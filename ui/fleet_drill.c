/* fleet_drill.c: drill down in a fleet's dashboard (--fleet): Enter on a
 * host row shows that host's own rows (its CPUs, from the same source:
 * source_drill), Esc or Backspace goes back to the hosts with the sort,
 * the filter and the selection they had; the host's past figures go into
 * the history on the way in, for its sparklines. No curses here: the
 * keys come decoded (keys.h). */
#include "config.h"
#include "ui_impl.h"

#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "util.h"

/* Goes into the selected host: the fleet's sort, filter and selection
 * kept for the way back, the host's rows sorted by name. */
static void drill_in(struct ui *u)
{
	const struct snap_host *h = u->nav.sel >= 0 && u->nav.sel < u->nrows ? ui_row_host(u, &u->rows[u->nav.sel])
				    : NULL;
	if (!h || !u->snap || u->snap->drill) {
		ui_set_message(u, "no host row selected");
		return;
	}
	u->drill_host = xstrdup(h->name);
	u->drill_nav = u->nav;
	u->drill_sort_set = u->sort_set;
	u->drill_sort_kind = u->sort_kind;
	u->drill_sort_idx = u->sort_idx;
	u->drill_match = u->task_match;
	u->task_match = NULL;
	u->nav.sel = u->nav.top = 0;
	u->nav.sort_reverse = false;
	for (int i = 0; i < u->ncols; i++)
		if (u->cols[i].kind == COL_HOST)
			u->nav.sort_col = i;
	ui_remember_sort(u);
	history_clear(&u->hist);
	source_drill(u->src, u->drill_host);
}

/* Back to the hosts as they were left. */
static void drill_out(struct ui *u)
{
	free(u->drill_host);
	u->drill_host = NULL;
	free(u->task_match);
	u->task_match = u->drill_match;
	u->drill_match = NULL;
	u->nav.sort_col = u->drill_nav.sort_col;
	u->nav.sort_reverse = u->drill_nav.sort_reverse;
	u->nav.sel = u->drill_nav.sel;
	u->nav.top = u->drill_nav.top;
	u->nav.follow = u->drill_nav.follow;
	u->sort_set = u->drill_sort_set;
	u->sort_kind = u->drill_sort_kind;
	u->sort_idx = u->drill_sort_idx;
	history_clear(&u->hist);
	source_drill(u->src, NULL);
}

bool ui_fleet_drill_key(struct ui *u, int key)
{
	if (!u->cfg->fleet || !source_drills(u->src) || ui_tasks_view(u))
		return false;
	if (!u->drill_host && key == UK_ENTER) {
		drill_in(u);
		u->redraw = true;
		return true;
	}
	if (u->drill_host && (key == UK_ESC || key == UK_BACKSPACE)) {
		drill_out(u);
		u->redraw = true;
		return true;
	}
	return false;
}

bool ui_fleet_drill_takes(struct ui *u, const struct snapshot *s)
{
	if (!u->cfg->fleet)
		return true;
	if (!u->drill_host && s->drill && !u->snap) {
		/* --fleet-host: drilled from the start; Esc shows the hosts. */
		u->drill_host = xstrdup(s->drill);
		u->drill_nav = u->nav;
		u->drill_sort_set = u->sort_set;
		u->drill_sort_kind = u->sort_kind;
		u->drill_sort_idx = u->sort_idx;
		return true;
	}
	if (!u->drill_host)
		return !s->drill;
	return s->drill && !strcmp(s->drill, u->drill_host);
}

void ui_fleet_drill_free(struct ui *u)
{
	free(u->drill_host);
	free(u->drill_match);
	u->drill_host = u->drill_match = NULL;
}

void ui_fleet_drill_history(struct ui *u, const struct snapshot *s)
{
	if (!s->drill || s->npast < 1 || history_count(&u->hist) > 0)
		return;
	int nrows[SNAP_NSCOPES] = { 0 };
	nrows[SNAP_SYSTEM] = 1;
	for (int i = 0; i < s->npast; i++) {
		/* The newest point is this refresh's own figure. */
		if (!(s->past_t[i] < s->time - s->past_step / 2))
			continue;
		struct snapshot *p = snapshot_new_like(s, nrows);
		p->seq = s->seq;
		p->time = s->past_t[i];
		p->measured_s = p->interval_s = s->past_step;
		struct snap_row *row = &p->rows[SNAP_SYSTEM][0];
		row->cpu = row->core = row->ccx = row->socket = -1;
		for (int m = 0; m < s->nmetrics; m++) {
			p->metric_planned[m] = s->metric_planned[m];
			int c = snap_mcol(p, m);
			if (c >= 0)
				row->mv[c] = s->past_v[i * s->nmetrics + m];
		}
		history_add(&u->hist, p);
		snapshot_free(p);
	}
}

const struct topo *ui_fleet_drill_topo(const struct ui *u)
{
	if (!u->cfg->fleet || !u->drill_host || !u->snap || !u->snap->drill)
		return NULL;
	return u->snap->drill_topo;
}
