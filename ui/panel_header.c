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

/* Room the system's sparkline takes on the status line, beside the view
 * tabs named in full; the least it is given before it goes. */
#define HEADER_SPARK_W 48
#define HEADER_SPARK_MIN 40

/* The footer's key hints: what the current view and source take, fitted
 * to the width by rank (0 first): a hint that does not fit leaves room
 * for a less important one after it, and those shown keep this order. */
enum { FOOT_ALL, FOOT_CPUS, FOOT_TASKS, FOOT_REPLAY, FOOT_FLEET };
static const struct foot_item {
	const char *k, *label;
	int rank, when;
} foot_items[] = {
	{ "F1", "Help", 0, FOOT_ALL },     { "F2", "Setup", 5, FOOT_ALL },    { "Tab", "View", 2, FOOT_ALL },
	{ "Enter", "Detail", 3, FOOT_ALL }, { "F5", "Tree", 2, FOOT_TASKS }, { "[]", "Step", 2, FOOT_REPLAY },
	{ "j", "Jump", 3, FOOT_REPLAY },   { "e", "Event", 5, FOOT_CPUS },   { "<>", "Sort", 3, FOOT_ALL },
	{ "R", "Rev", 6, FOOT_ALL },       { "c", "CCX", 6, FOOT_CPUS },     { "t", "Rows", 6, FOOT_CPUS },
	{ "Spc", "Pause", 4, FOOT_ALL },   { "+-", "Delay", 5, FOOT_ALL },   { "q", "Quit", 0, FOOT_ALL },
	{ "/", "Search", 1, FOOT_ALL },    { "\\", "Filter", 1, FOOT_ALL }, { "T", "Tasks", 1, FOOT_ALL },
	{ "g", "Group", 3, FOOT_FLEET },
};

static void footer_draw(const struct panel *p, const struct ui *u, struct frame *fr)
{
	(void)p;
	(void)fr;
	const struct rect *f = &u->lay.footer;
	bool tasks = ui_tasks_view(u), replay = u->src->ops->interval_is_pace, fleet = u->cfg->fleet;
	enum { N = ARRAY_SIZE(foot_items) };
	const char *label[N];
	bool shown[N];
	int used = 0;
	for (int i = 0; i < N; i++) {
		const struct foot_item *it = &foot_items[i];
		/* A replay's + and - are its speed (actions.c); T in the tasks
		 * view goes back to the CPUs. */
		label[i] = replay && !strcmp(it->label, "Delay") ? "Speed"
			   : tasks && !strcmp(it->label, "Tasks") ? "CPUs"
			   : fleet && !strcmp(it->label, "Detail") ? (u->drill_host ? "Back" : "Host") : it->label;
		shown[i] = false;
	}
	for (int rank = 0; rank <= 6; rank++)
		for (int i = 0; i < N; i++) {
			const struct foot_item *it = &foot_items[i];
			/* A fleet's rows are hosts: no CPU events, CCX boxes,
			 * row kinds nor tasks to offer. */
			bool cpu_only = it->when == FOOT_CPUS || !strcmp(it->k, "T");
			if (it->rank != rank || (it->when == FOOT_CPUS && tasks) || (fleet && cpu_only) ||
			    (it->when == FOOT_TASKS && !tasks) || (it->when == FOOT_REPLAY && !replay) ||
			    (it->when == FOOT_FLEET && (!fleet || u->drill_host || !u->snap || !u->snap->ngroups)))
				continue;
			int w = (int)(strlen(it->k) + strlen(label[i])) + 1;
			if (used + w > f->w)
				continue;
			shown[i] = true;
			used += w;
		}
	int x = f->x;
	for (int i = 0; i < N; i++) {
		if (!shown[i])
			continue;
		int kl = (int)strlen(foot_items[i].k), ll = (int)strlen(label[i]);
		/* Drilled into a host, Esc (not Enter) goes back. */
		const char *k = fleet && u->drill_host && !strcmp(foot_items[i].k, "Enter") ? "Esc" : foot_items[i].k;
		kl = (int)strlen(k);
		draw_put(f->y, x, kl, ui_attr(u, CP_KEY, A_REVERSE), k);
		draw_put(f->y, x + kl, ll + 1, 0, label[i]);
		x += kl + ll + 1;
	}
	/* The legend of the CCX boxes' core strip, where there is room. */
	static const char legend[] = "core strip: low _.:=+*#%@ high";
	int lw = (int)sizeof(legend) - 1;
	if (u->lay.ccx_mode != CCX_HIDDEN && !fleet && x + 2 + lw <= f->w)
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
	bool fleet = u->cfg->fleet;
	bool sim = u->cfg->simulated || (u->snap && u->snap->simulated);
	for (int i = 0; fleet && u->snap && i < u->snap->nhosts; i++)
		sim |= u->snap->hosts[i].simulated;
	if (badge) {
		draw_put(h->y, x, h->w - x, A_REVERSE | A_BOLD, badge);
		x += (int)strlen(badge) + 1;
		/* A status can be long (a drilled fleet host's, 60 cells):
		 * cut it, never the SIMULATED after it. */
		int room = h->w - x - (sim ? 10 : 0), sl = (int)strlen(st);
		if (sl > room)
			sl = room > 0 ? room : 0;
		draw_put(h->y, x, sl, A_BOLD, st);
		x += sl + 1;
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
	/* A fleet: the source's status names it; this machine's model and
	 * name are not what the rows show. */
	if (!fleet) {
		snprintf(line, sizeof(line), "%s ", u->m->name ? u->m->name : "?");
		draw_put(h->y, x, h->w - x, A_BOLD, line);
		x += (int)strlen(line);
	}
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
	/* Without hardware counters nothing rotates and every figure is
	 * counted the whole interval: "min cov 100%  rotate 50ms" said
	 * otherwise (a VM without a PMU). */
	/* A fleet's hosts rotate their own counters (their coverage is
	 * min cov); this machine's PMU says nothing about them. */
	bool hw = fleet || ui_counts_hardware(u);
	const char *cv = hw ? "min cov " : "", *cvv = hw ? cov : "no PMU";
	int sl = fleet ? snprintf(state, sizeof(state), "min cov %s%s", cov, dtxt)
		: hw ? snprintf(state, sizeof(state), "min cov %s%s  rotate %s", cov, dtxt, rtxt)
		: snprintf(state, sizeof(state), "no PMU%s", dtxt);
	/* Narrow: the rotation goes first, then the delay. */
	if (x + 1 + (paused ? 8 : 0) + sl > h->w)
		sl = snprintf(state, sizeof(state), "%s%s%s", cv, cvv, dtxt);
	if (x + 1 + (paused ? 8 : 0) + sl > h->w)
		sl = snprintf(state, sizeof(state), "%s%s", cv, cvv);
	int right = h->w - sl - (paused ? 8 : 0);
	if (right < x + 1)
		right = x + 1;
	/* Host and CPU name each whole or not at all: "simulated 1" (of
	 * "simulated 1x2x8x2") read as a one-CPU machine. */
	int room = right - 2 - x;
	int hl = snprintf(line, sizeof(line), " %s", u->cfg->host ? u->cfg->host : "?");
	if (hl > room || fleet)
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

/* A view's tab: its key and its name cut to cap letters (0: the key
 * alone; a view without a key keeps 2 letters); TAB_KEYED: none for a
 * view without a key, TAB_ACTIVE: none (the active view is named in full
 * by its caller). */
enum { TAB_KEYED = -1, TAB_ACTIVE = -2 };
static void tab_label(const struct ui *u, int i, int cap, char *buf, size_t len)
{
	const struct view_def *v = &u->views[i];
	buf[0] = 0;
	if (cap == TAB_ACTIVE || (cap == TAB_KEYED && v->key <= 0))
		return;
	if (cap == TAB_KEYED)
		cap = 0;
	if (v->key > 0 && cap == 0)
		snprintf(buf, len, " %d ", v->key);
	else {
		/* A name cut short keeps its last part after '_' (topdown_l2:
		 * "to_l2", not "topdo" as topdown is). */
		char nm[64];
		const char *us = strrchr(v->name, '_');
		int nl = (int)strlen(v->name), sl = us ? (int)strlen(us) : 0;
		if (cap < 2 && v->key <= 0)
			cap = 2;
		if (nl > cap && us && cap - sl >= 2)
			snprintf(nm, sizeof(nm), "%.*s%s", cap - sl, v->name, us);
		else
			snprintf(nm, sizeof(nm), "%.*s", cap, v->name);
		if (v->key > 0)
			snprintf(buf, len, " %d:%s ", v->key, nm);
		else
			snprintf(buf, len, " %s ", nm);
	}
}

/* The width of the tabs with the views other than the active one cut to
 * cap letters. */
static int tabs_width(const struct ui *u, int cap)
{
	char buf[128];
	int w = 0;
	for (int i = 0; i < u->nviews; i++) {
		tab_label(u, i, i == u->nav.view ? 64 : cap, buf, sizeof(buf));
		w += (int)strlen(buf);
	}
	return w;
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
	/* Every view keeps a tab, so that each can be seen and clicked: the
	 * system's sparkline narrows first, then the names of the views other
	 * than the active one are cut short (to 8, then 5 letters) beside a
	 * narrow sparkline, then the sparkline goes and they are cut to 3,
	 * then they are their key alone (a view without one keeps 2
	 * letters); only where even that leaves no room for the sort and
	 * filter do the views without a key go (Tab still reaches them),
	 * then all but the active one. */
	static const struct { int cap, spark; } steps[] = {
		{ 64, HEADER_SPARK_W }, { 64, HEADER_SPARK_MIN }, { 8, HEADER_SPARK_MIN }, { 5, HEADER_SPARK_MIN },
		{ 64, 0 }, { 8, 0 }, { 5, 0 }, { 3, 0 }, { 0, 0 }, { TAB_KEYED, 0 }, { TAB_ACTIVE, 0 },
	};
	int room = h->w - (int)strlen(status), cap = 0;
	bool spark = false;
	for (size_t c = 0; c < ARRAY_SIZE(steps); c++)
		if (tabs_width(u, steps[c].cap) + steps[c].spark <= room) {
			cap = steps[c].cap;
			spark = steps[c].spark > 0;
			break;
		}
	x = 0;
	f->tab_y = h->y + 2;
	for (int i = 0; i < u->nviews && x < h->w; i++) {
		bool active = i == u->nav.view;
		tab_label(u, i, active ? 64 : cap, line, sizeof(line));
		if (!line[0]) {
			if (i < 64)
				f->tab_x0[i] = f->tab_x1[i] = -1;
			continue;
		}
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
