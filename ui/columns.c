/* columns.c: the table's columns for the view shown: the fixed ones, the
 * view's, the extra events and the topdown bar, each with its heading and
 * width; and the metrics the screen finds by name. No curses here. */
#include "config.h"
#include "ui_impl.h"
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util.h"

int ui_find_metric(const struct model *m, const char *const *names)
{
	for (; *names; names++) {
		int i = model_find_metric(m, *names);
		if (i >= 0)
			return i;
	}
	return -1;
}

void ui_find_metrics(struct ui *u)
{
	static const char *const util[] = { "util", "utilization", "cpu_util", "busy", NULL };
	static const char *const ghz[] = { "ghz", "effective_ghz", "freq_ghz", NULL };
	static const char *const ipc[] = { "ipc", NULL };
	u->m_util = ui_find_metric(u->m, util);
	u->m_ghz = ui_find_metric(u->m, ghz);
	u->m_ipc = ui_find_metric(u->m, ipc);
}

static void add_col(struct ui *u, enum col_kind k, int idx, const struct view_col *vc,
		    const char *title, int width, bool scrolls)
{
	u->cols = xrealloc(u->cols, (size_t)(u->ncols + 1) * sizeof(*u->cols));
	struct ui_col *c = &u->cols[u->ncols++];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->idx = idx;
	c->vc = vc;
	snprintf(c->title, sizeof(c->title), "%s", title);
	/* Never narrower than its heading, which is never cut. */
	int tw = (int)strlen(c->title);
	c->width = width > tw ? width : tw;
	c->scrolls = scrolls;
	c->from = -1;
}

static bool has_metric_col(const struct ui *u, int metric)
{
	for (int i = 0; i < u->ncols; i++)
		if (u->cols[i].kind == COL_METRIC && u->cols[i].idx == metric)
			return true;
	return false;
}

/* A column that can only ever show '-': its metric is not defined at the
 * table's rows (an L3 or memory figure in a CPU row: those belong to the
 * CCX boxes and the memory panel), or the last figures were planned with
 * it and still lack one of its events (a PMU this machine does not have). */
bool ui_metric_unmeasured(const struct ui *u, int metric)
{
	if (metric < 0 || metric >= u->m->nmetrics)
		return true;
	const struct metric_def *md = &u->m->metrics[metric];
	if (!u->snap || !u->snap->metric_planned[metric])
		return false;
	for (int k = 0; k < md->nevents; k++)
		if (!u->snap->event_planned[md->events[k]])
			return true;
	return false;
}

/* The scope of the rows' own figures (enum scope). */
static int rows_widest(const struct ui *u)
{
	static const enum scope widest[ROWS_KINDS] = { SCOPE_THREAD, SCOPE_CORE, SCOPE_CCX, SCOPE_SOCKET };
	return ui_tasks_view(u) ? SCOPE_THREAD : (int)widest[u->nav.rows];
}

bool ui_counts_hardware(const struct ui *u)
{
	if (!u->snap || !u->snap->event_planned)
		return true;
	for (int e = 0; e < u->m->nevents && e < u->snap->nevents; e++) {
		if (!u->snap->event_planned[e])
			continue;
		enum pmu_kind k = u->m->pmus[u->m->events[e].pmu].kind;
		if (k == PMU_CORE || k == PMU_UNCORE)
			return true;
	}
	return false;
}

static bool dead_metric(const struct ui *u, int metric)
{
	const struct metric_def *md = &u->m->metrics[metric];
	/* A task has no L3 or memory figure of its own; a CPU row shows its
	 * CCX's or socket's (add_metric_col). */
	if ((int)md->scope > rows_widest(u) && ui_tasks_view(u))
		return true;
	/* A tasks view's figure whose events the sampling could not have
	 * (the counters they need are held): every row would show '-'. */
	if (ui_tasks_view(u) && u->snap && u->snap->tasks_on && u->snap->task_measured &&
	    !u->snap->task_measured[metric])
		return true;
	return ui_metric_unmeasured(u, metric);
}

void ui_metric_heading(const struct ui *u, int metric, char *buf, size_t len)
{
	const struct metric_def *md = &u->m->metrics[metric];
	if (metric == u->m_util)
		snprintf(buf, len, "util%%");
	else if (metric == u->m_ghz)
		snprintf(buf, len, "GHz");
	else
		format_heading(buf, len, md->label ? md->label : md->name, md->unit);
}

/* The heading with its unit, for a table with room (issue 36 item 5):
 * the units that format_heading leaves to the label (IPC's insn/cyc,
 * CPI's cyc/insn, W) unless the label says them already ("Ops/insn",
 * "FLOP/cyc", "L2 MPKI"); "" where the heading needs nothing more. */
static void wide_heading(const char *unit, const char *title, char *buf, size_t len)
{
	*buf = '\0';
	if (!unit || !*unit || !strcmp(unit, "count") || !strcmp(unit, "slots") || !strcmp(unit, "ratio"))
		return;
	/* Per thousand instructions: "MPKI", "PKI" and "/KI" say it. */
	if (strstr(unit, "kinsn") || strstr(unit, "kinst")) {
		if (!strstr(title, "PKI") && !strstr(title, "/KI") && !strstr(title, "/ki"))
			snprintf(buf, len, "%s /kinsn", title);
		return;
	}
	const char *word = !strcmp(unit, "cycles") ? "cyc" : unit;
	size_t tl = strlen(title), wl = strlen(word);
	for (size_t i = 0; i + wl <= tl; i++)
		if (!strncasecmp(title + i, word, wl))
			return;
	snprintf(buf, len, "%s %s", title, unit);
}

static void add_metric_col(struct ui *u, int metric, const struct view_col *vc, bool scrolls)
{
	if (metric < 0 || metric >= u->m->nmetrics || has_metric_col(u, metric) || dead_metric(u, metric))
		return;
	/* A fixed column that the view lists too takes the view's format
	 * and thresholds. */
	const struct view_def *v = ui_cur_view(u);
	for (int i = 0; !vc && v && i < v->ncols; i++)
		if (v->cols[i].metric == metric)
			vc = &v->cols[i];
	char label[48];
	ui_metric_heading(u, metric, label, sizeof(label));
	/* Defined only for a wider group than the rows (an L3 figure on CPU
	 * rows): each row shows its group's figure, and the heading says
	 * whose ("CCX:L3 hit%"), so that t's rows per CCX are one key away
	 * (the memory view per CPU showed util, GHz and IPC alone). */
	int sc = u->m->metrics[metric].scope;
	int from = sc > rows_widest(u) ? sc : -1;
	/* No CCX in this machine's topology (some VMs): no row has one. */
	if (from == SCOPE_CCX && u->topo->nccx == 0)
		return;
	if (from >= 0) {
		char whole[64];
		const char *who = sc == SCOPE_CCX ? (u->m->l3_domain ? u->m->l3_domain : "CCX")
			: sc == SCOPE_SOCKET ? "sock" : "sys";
		snprintf(whole, sizeof(whole), "%s:%s", who, label);
		snprintf(label, sizeof(label), "%.47s", whole);
	}
	/* Wide enough for the whole heading (add_col): one cut at 14
	 * columns lost units ("SSE/AVX stall/"). */
	int w = vc && vc->width > 0 ? vc->width : 7;
	if (w < 7)
		w = 7;
	add_col(u, COL_METRIC, metric, vc, label, w, scrolls);
	u->cols[u->ncols - 1].from = from;
	wide_heading(u->m->metrics[metric].unit, label, u->cols[u->ncols - 1].wide,
		     sizeof(u->cols[u->ncols - 1].wide));
}

/* Whether event e is a column already (-e, the picker). */
static bool has_event_col(const struct ui *u, int e)
{
	for (int i = 0; i < u->ncols; i++)
		if (u->cols[i].kind == COL_EVENT && u->cols[i].idx == e)
			return true;
	return false;
}

/* A wide terminal shows more of the view before any panel grows: the
 * rates of the per-CPU events the plan counts for the view's figures
 * (counted anyway, so they cost no counter and no coverage), each drawn
 * only where it fits whole after the other columns (table_fit). At
 * 250 columns the table used a fifth of the width. */
static void add_fill_cols(struct ui *u)
{
	const struct snapshot *s = u->snap;
	if (!s || !s->event_planned)
		return;
	for (int e = 0; e < u->m->nevents && e < s->nevents; e++) {
		if (!s->event_planned[e] || has_event_col(u, e))
			continue;
		enum pmu_kind k = u->m->pmus[u->m->events[e].pmu].kind;
		if (k != PMU_CORE && k != PMU_SOFTWARE)
			continue;
		char title[48];
		snprintf(title, sizeof(title), "%s/s", u->m->events[e].name);
		int w = (int)strlen(title);
		add_col(u, COL_EVENT, e, NULL, title, w < 8 ? 8 : w, false);
		u->cols[u->ncols - 1].fill = true;
	}
}

/* Columns: the fixed ones (CPU, core, CCX, util, GHz, IPC), the view's, the
 * extra events, and the topdown bar. Keeps the sort on the same column
 * where it still exists. */
void ui_build_columns(struct ui *u)
{
	/* The column the user sorts by, even where this view lacks it (the
	 * rows then sort by CPU until a view has it again). */
	struct ui_col old = { 0 };
	bool had = u->ncols > 0 && u->nav.sort_col < u->ncols;
	if (had && !u->sort_set)
		old = u->cols[u->nav.sort_col];
	if (u->sort_set) {
		old.kind = u->sort_kind;
		old.idx = u->sort_idx;
		had = true;
	}
	free(u->cols);
	u->cols = NULL;
	u->ncols = 0;
	const struct view_def *tv = ui_cur_view(u);
	if (tv && tv->tasks) {
		/* Who, the view's figures, then where: names and CPU lists are
		 * long, so they scroll. */
		add_col(u, COL_PID, 0, NULL, u->task_cgroups ? "PROCS" : "PID", 7, false);
		if (u->task_cgroups)
			add_col(u, COL_CGROUP, 0, NULL, "CGROUP", 28, false);
		else if (u->task_tree)   /* cgroups and processes, indented by depth */
			add_col(u, COL_COMM, 0, NULL, "CGROUP/ COMMAND", 30, false);
		else
			add_col(u, COL_COMM, 0, NULL, "COMMAND", 15, false);
		/* Who ran on the filtered CPUs (T): how much of them each had. */
		if (u->filter_text && tv->ncols > 0 && !strcmp(u->m->metrics[tv->cols[0].metric].unit, "%"))
			add_col(u, COL_HERE, 0, NULL, "HERE%", 6, false);
		for (int i = 0; i < tv->ncols; i++)
			add_metric_col(u, tv->cols[i].metric, &tv->cols[i], true);
		if (!u->task_cgroups)
			add_col(u, COL_CGROUP, 0, NULL, "CGROUP", 32, true);
		add_col(u, COL_WHERE, 0, NULL, "CPUS", 20, true);
		goto done;
	}
	if (u->cfg->fleet) {
		/* A fleet: each host, its figures, then its model and what it
		 * says (long, so it scrolls). */
		add_col(u, COL_HOST, 0, NULL, "HOST", 22, false);
		const struct view_def *fv = ui_cur_view(u);
		for (int i = 0; fv && i < fv->ncols; i++)
			add_metric_col(u, fv->cols[i].metric, &fv->cols[i], true);
		add_col(u, COL_STATUS, 0, NULL, "MODEL STATUS", 40, true);
		goto done;
	}
	/* Identity columns: what the rows are (nav.rows). */
	static const int cpus_w[ROWS_KINDS] = { 5, 9, 13, 13 };
	int rk = u->nav.rows;
	add_col(u, COL_CPU, 0, NULL, rk == ROWS_CPU ? "CPU" : "CPUs", cpus_w[rk], false);
	if (rk <= ROWS_CORE)
		add_col(u, COL_CORE, 0, NULL, "core", 5, false);
	/* The model names its L3 groups: CCX on AMD, LLC (one per socket) on Intel. */
	if (rk <= ROWS_CCX)
		add_col(u, COL_CCX, 0, NULL, u->m->l3_domain ? u->m->l3_domain : "CCX", 4, false);
	else
		add_col(u, COL_SOCKET, 0, NULL, "sock", 4, false);
	add_metric_col(u, u->m_util, NULL, false);
	add_metric_col(u, u->m_ghz, NULL, false);
	add_metric_col(u, u->m_ipc, NULL, false);
	const struct view_def *v = ui_cur_view(u);
	for (int i = 0; v && i < v->ncols; i++)
		add_metric_col(u, v->cols[i].metric, &v->cols[i], true);
	for (int i = 0; i < u->nextra; i++) {
		int e = u->extra[i];
		if (e < 0 || e >= u->m->nevents)
			continue;
		char title[48];
		snprintf(title, sizeof(title), "%s/s", u->m->events[e].name);
		int w = (int)strlen(title);
		add_col(u, COL_EVENT, e, NULL, title, w < 8 ? 8 : w, true);
	}
	if (v && v->nbar > 0)
		add_col(u, COL_BAR, 0, NULL, "topdown", 24, true);
	add_fill_cols(u);
done:;
	int nscroll = 0;
	for (int i = 0; i < u->ncols; i++)
		nscroll += u->cols[i].scrolls;
	u->nav.ncols = u->ncols;
	u->nav.nhscroll = nscroll;
	/* Where the sort column is gone (or none was chosen yet): a tasks
	 * view sorts by its first figure (busiest first), any other view by
	 * CPU. */
	int first = 0;
	for (int i = 0; ui_tasks_view(u) && i < u->ncols && !first; i++)
		if (u->cols[i].kind == COL_METRIC)
			first = i;
	if (had || first) {
		u->nav.sort_col = first;
		for (int i = 0; had && i < u->ncols; i++)
			if (u->cols[i].kind == old.kind && u->cols[i].idx == old.idx)
				u->nav.sort_col = i;
	}
	keys_clamp(&u->nav);
}

/* The user chose the sort column: keep it by what it is, not where it is. */
void ui_remember_sort(struct ui *u)
{
	if (u->nav.sort_col < 0 || u->nav.sort_col >= u->ncols)
		return;
	u->sort_set = true;
	u->sort_kind = u->cols[u->nav.sort_col].kind;
	u->sort_idx = u->cols[u->nav.sort_col].idx;
}
