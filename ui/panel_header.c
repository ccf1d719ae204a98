/* panel_header.c: the top and bottom lines of the dashboard: the header
 * (host, model, delay, coverage, system-wide figures), the view tabs with
 * the sort and filter status, and the footer of key hints. */
#include "config.h"
#include "panel.h"
#include "format.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "util.h"

/* Room the view tabs leave on the status line for the system's
 * sparkline before they shrink to the active view alone. */
#define HEADER_SPARK_W 48

static void footer_draw(const struct panel *p, const struct ui *u, struct frame *fr)
{
	(void)p;
	(void)fr;
	static const struct { const char *k, *label; } items[] = {
		{ "F1", "Help" }, { "F2", "Setup" }, { "Tab", "View" }, { "e", "Event" }, { "<>", "Sort" },
		{ "R", "Rev" }, { "c", "CCX" }, { "t", "Rows" }, { "Spc", "Pause" },
		{ "+-", "Delay" }, { "q", "Quit" }, { "/", "Search" }, { "\\", "Filter" }, { "T", "Tasks" },
	};
	const struct rect *f = &u->lay.footer;
	int x = f->x;
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		/* A replay's + and - are its speed (actions.c). */
		const char *label = u->src->ops->interval_is_pace && !strcmp(items[i].label, "Delay") ? "Speed"
												    : items[i].label;
		int kl = (int)strlen(items[i].k), ll = (int)strlen(label);
		if (x + kl + ll + 1 > f->w)
			break;
		draw_put(f->y, x, kl, ui_attr(u, CP_KEY, A_REVERSE), items[i].k);
		draw_put(f->y, x + kl, ll + 1, 0, label);
		x += kl + ll + 1;
	}
	/* The legend of the CCX boxes' core strip, where there is room. */
	static const char legend[] = "core strip: low _.:=+*#%@ high";
	int lw = (int)sizeof(legend) - 1;
	if (u->lay.ccx_mode != CCX_HIDDEN && x + 2 + lw <= f->w)
		draw_put(f->y, f->w - lw, lw, A_DIM, legend);
}

/* Line 1: pmctop, a replay or recording, the model and SIMULATED; the
 * state (PAUSED, coverage, delay, rotation) at the right, where no width
 * hides it; host and CPU name in what room is left between them. */
static void header_title(const struct ui *u, const struct frame *f, const struct rect *h)
{
	char line[512];
	int x = 0;
	draw_put(h->y, x, h->w, A_BOLD, "pmctop");
	x += 7;
	/* First, where no width cuts them: the source's badge (REPLAY) and
	 * status, and a recording. */
	char st[64];
	const char *badge = source_status(u->src, st, sizeof(st));
	if (badge) {
		draw_put(h->y, x, h->w - x, A_REVERSE | A_BOLD, badge);
		x += (int)strlen(badge) + 1;
		draw_put(h->y, x, h->w - x, A_BOLD, st);
		x += (int)strlen(st) + 1;
	}
	if (u->cfg->recorder) {
		bool bad = !recorder_ok(u->cfg->recorder);
		draw_put(h->y, x, h->w - x, ui_attr(u, bad ? CP_CRIT : CP_WARN, A_REVERSE | A_BOLD),
			 bad ? "REC FAILED" : "REC");
		x += bad ? 11 : 4;
	}
	/* A source with a status of its own says "paused" there: not twice. */
	bool paused = u->nav.paused && !badge;
	/* The model and SIMULATED first; the state (PAUSED, coverage, delay,
	 * rotation) at the right, where no width hides it; host and CPU name
	 * take what room is left between them. */
	snprintf(line, sizeof(line), "%s ", u->m->name ? u->m->name : "?");
	draw_put(h->y, x, h->w - x, A_BOLD, line);
	x += (int)strlen(line);
	bool sim = u->cfg->simulated || (u->snap && u->snap->simulated);
	if (sim && x < h->w) {
		draw_put(h->y, x, h->w - x, A_REVERSE | A_BOLD, "SIMULATED");
		x += 10;
	}
	char cov[16] = "-";
	if (f->min_cov <= 1)
		snprintf(cov, sizeof(cov), "%.0f%%", f->min_cov * 100);
	/* rotate_ms 0 in a snapshot, < 0 on the command line: the kernel rotates. */
	double rot = u->snap && u->snap->rotate_ms >= 0 ? u->snap->rotate_ms : u->cfg->rotate_ms;
	char rtxt[24] = "kernel";
	if (rot > 0)
		snprintf(rtxt, sizeof(rtxt), "%.0fms", rot);
	/* A replay's + and - change its speed, which its badge says (x2):
	 * a "delay" here read as if the recorded interval had changed. */
	char dtxt[32] = "";
	if (!u->src->ops->interval_is_pace)
		snprintf(dtxt, sizeof(dtxt), "  delay %.1fs", u->nav.interval_s);
	char state[128];
	int sl = snprintf(state, sizeof(state), "min cov %s%s  rotate %s", cov, dtxt, rtxt);
	/* Narrow: the rotation goes first, then the delay. */
	if (x + 1 + (paused ? 8 : 0) + sl > h->w)
		sl = snprintf(state, sizeof(state), "min cov %s%s", cov, dtxt);
	if (x + 1 + (paused ? 8 : 0) + sl > h->w)
		sl = snprintf(state, sizeof(state), "min cov %s", cov);
	int right = h->w - sl - (paused ? 8 : 0);
	if (right < x + 1)
		right = x + 1;
	/* Host and CPU name each whole or not at all: "simulated 1" (of
	 * "simulated 1x2x8x2") read as a one-CPU machine. */
	int room = right - 2 - x;
	int hl = snprintf(line, sizeof(line), " %s", u->cfg->host ? u->cfg->host : "?");
	if (hl > room)
		line[0] = 0;
	else if (hl + 2 + (int)strlen(u->cfg->cpu_name ? u->cfg->cpu_name : "unknown CPU") <= room)
		snprintf(line + hl, sizeof(line) - (size_t)hl, "  %s", u->cfg->cpu_name ? u->cfg->cpu_name : "unknown CPU");
	if (room > 0)
		draw_put(h->y, x, room, 0, line);
	if (paused) {
		draw_put(h->y, right, h->w - right, ui_attr(u, CP_WARN, A_REVERSE | A_BOLD), "PAUSED");
		right += 8;
	}
	draw_put(h->y, right, h->w - right, 0, state);
}

/* Line 2: the system's figures, and the view's system-wide ones that fit
 * whole (a tasks view: what was seen). */
static void header_system(const struct ui *u, struct frame *f, const struct rect *h)
{
	char line[512], a[32], b[32];
	const struct snap_row *sys = ui_scope_row(u->snap, SNAP_SYSTEM, 0);
	if (!sys && u->snap && u->snap->rows[SNAP_SYSTEM] && u->snap->nrows[SNAP_SYSTEM] > 0)
		sys = &u->snap->rows[SNAP_SYSTEM][0];
	/* Each figure the machine can give; one that can only be '-' (no
	 * PMU) is left out, as the table leaves its column out. */
	int n = snprintf(line, sizeof(line), "System");
	static const char *const names[] = { "IPC", "GHz", "util" };
	const int fixed[] = { u->m_ipc, u->m_ghz, u->m_util };
	for (int i = 0; i < 3; i++) {
		if (ui_metric_unmeasured(u, fixed[i]))
			continue;
		draw_metric_text(u, f, sys, fixed[i], i == 2 ? "pct" : "%.2f", a, sizeof(a));
		if (i == 2)
			draw_add_unit(a, sizeof(a), "%");
		n += snprintf(line + n, sizeof(line) - (size_t)n, "  %s %s", names[i], a);
	}
	const struct snapshot *ss = u->snap;
	if (ui_tasks_view(u)) {
		/* Its figures are per process: the system line says what was seen. */
		if (ss && ss->tasks_on)
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      "  | tasks: %d processes, %d cgroups, %d samples/s per event per CPU%s",
				      ss->ntasks, ss->ncgroups, ss->task_freq, ss->tasks_lost > 0 ? ", samples lost" : "");
	} else if (u->nav.view < u->nviews) {
		/* The view's short name (its title is in the help and tabs), then
		 * as many of its system-wide figures as fit whole. */
		const struct view_def *v = &u->views[u->nav.view];
		n += snprintf(line + n, sizeof(line) - (size_t)n, "  | %s:", v->name);
		for (int i = 0; i < v->ncols && n < (int)sizeof(line) - 64; i++) {
			int mi = v->cols[i].metric;
			if (mi < 0 || mi >= u->m->nmetrics || mi == u->m_ipc || mi == u->m_ghz || mi == u->m_util ||
			    ui_metric_unmeasured(u, mi))
				continue;
			draw_metric_text(u, f, sys, mi, v->cols[i].fmt, a, sizeof(a));
			const struct metric_def *md = &u->m->metrics[mi];
			/* The heading with its unit, as in the table. */
			format_heading(b, sizeof(b), md->label ? md->label : md->name, md->unit);
			char item[80];
			int il = snprintf(item, sizeof(item), " %s %s", b, a);
			if (n + il > h->w)
				break;
			memcpy(line + n, item, (size_t)il + 1);
			n += il;
		}
	}
	draw_put(h->y + 1, 0, h->w, 0, line);
}

/* Line 3: the views as tabs (their x ranges go into the frame, for
 * clicks), the sort, filter and rows, and the system's sparkline. */
static void header_tabs(const struct ui *u, struct frame *f, const struct rect *h)
{
	char line[512];
	int x;
	const struct ui_col *sc = &u->cols[u->nav.sort_col];
	char status[256];
	snprintf(status, sizeof(status), "  sort %s%s%s%s  rows %s%s", sc->title, u->nav.sort_reverse ? " (rev)" : "",
		 u->filter_text || u->task_match ? "  filter " : "",
		 u->filter_text ? u->filter_text : u->task_match ? u->task_match : "",
		 !ui_tasks_view(u) ? ui_rows_name(u) : u->task_tree ? "as a cgroup tree"
		 : u->task_cgroups ? "per cgroup" : "per process",
		 u->nav.follow ? "  follow" : "");
	/* The system's sparkline is kept whenever it fits beside at least the
	 * active view; the tabs give way first: all views named, else the
	 * active one named and the others by their key alone (so that every
	 * keyed view stays in sight), else the active one only. */
	int named = 0, keyed = 0, active_w = 0;
	for (int i = 0; i < u->nviews; i++) {
		int w = (int)strlen(u->views[i].name) + (u->views[i].key > 0 ? 4 : 2);
		named += w;
		keyed += i == u->nav.view ? w : u->views[i].key > 0 ? 3 : 0;
		if (i == u->nav.view)
			active_w = w;
	}
	int room = h->w - (int)strlen(status);
	bool spark = active_w + HEADER_SPARK_W <= room;
	if (spark)
		room -= HEADER_SPARK_W;
	enum { TABS_NAMED, TABS_KEYS, TABS_ACTIVE } style =
		named <= room ? TABS_NAMED : keyed <= room ? TABS_KEYS : TABS_ACTIVE;
	x = 0;
	f->tab_y = h->y + 2;
	for (int i = 0; i < u->nviews && x < h->w; i++) {
		const struct view_def *v = &u->views[i];
		bool active = i == u->nav.view;
		if (style == TABS_ACTIVE && !active)
			continue;
		if (style == TABS_KEYS && !active && v->key <= 0)
			continue;
		if (style == TABS_KEYS && !active)
			snprintf(line, sizeof(line), " %d ", v->key);
		else if (v->key > 0)
			snprintf(line, sizeof(line), " %d:%s ", v->key, v->name);
		else
			snprintf(line, sizeof(line), " %s ", v->name);
		if (i < 64) {
			f->tab_x0[i] = x;
			f->tab_x1[i] = x + (int)strlen(line);
		}
		int attr = active ? ui_attr(u, CP_SEL, A_REVERSE) | (int)A_BOLD : 0;
		draw_put(h->y + 2, x, h->w - x, attr, line);
		x += (int)strlen(line);
	}
	draw_put(h->y + 2, x, h->w - x, 0, status);
	x += (int)strlen(status) + 3;
	if (spark)
		draw_spark(u, h->y + 2, x, h->w - x, SNAP_SYSTEM, 0, "system ");
}

/* Drawn last: its coverage is the lowest among the figures the other
 * panels drew (f->min_cov). */
static void header_draw(const struct panel *p, const struct ui *u, struct frame *f)
{
	(void)p;
	const struct rect *h = &u->lay.header;
	header_title(u, f, h);
	header_system(u, f, h);
	if (h->h < 3)
		return;
	header_tabs(u, f, h);
}

const struct panel_ops panel_footer_ops = {
	.name = "footer",
	.draw = footer_draw,
};

const struct panel_ops panel_header_ops = {
	.name = "header",
	.draw = header_draw,
};
