/* panel_ccx.c: the CCX panel: one box per CCX (or one line each when space
 * is short, or a heat map of one cell per CCX for hundreds of CPUs) with its L3 rate, hit ratio, miss latency, IPC and clock, and a
 * strip of one character per core showing the sort metric. Only the CCX
 * that hold a CPU the row filter keeps are drawn; when they do not all fit,
 * the page that holds the selected row's CCX is shown, so moving through
 * the table scrolls the panels. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "util.h"
#include <stdlib.h>

/* The panel's own figures, found by name; -1 where the model lacks them
 * (utilisation, clock and IPC are shared: u->m_util...). */
struct ccx_state {
	int l3rate, l3acc, l3hit, l3lat;
};

static void ccx_init(struct panel *p, const struct ui *u)
{
	static const char *const l3rate[] = { "l3_access_per_s", "l3_accesses_per_s", NULL };
	static const char *const l3acc[] = { "l3_accesses", "l3_access_all", "l3_access", NULL };
	static const char *const l3hit[] = { "l3_hit_rate", NULL };
	static const char *const l3lat[] = { "l3_miss_latency_ns", "l3_lat", NULL };   /* l3_lat: a fleet's */
	struct ccx_state *st = xcalloc(1, sizeof(*st));
	st->l3rate = ui_find_metric(u->m, l3rate);
	st->l3acc = ui_find_metric(u->m, l3acc);
	st->l3hit = ui_find_metric(u->m, l3hit);
	st->l3lat = ui_find_metric(u->m, l3lat);
	p->st = st;
}

/* Its figures, and the shared ones it shows; the L3 figures pinned (on
 * the L3's own PMU, counted throughout as far as the counters allow). */
static void ccx_needs(const struct panel *p, const struct ui *u, int *ms, int *n, int *pins, int *np)
{
	const struct ccx_state *st = p->st;
	const int read[] = { u->m_util, u->m_ghz, u->m_ipc, st->l3rate, st->l3acc, st->l3hit, st->l3lat };
	for (size_t i = 0; i < ARRAY_SIZE(read); i++)
		ms[(*n)++] = read[i];
	for (size_t i = 3; i < ARRAY_SIZE(read); i++)
		pins[(*np)++] = read[i];
}

/* The topology whose CCX the boxes are: the machine's, or a drilled
 * fleet host's (its CPUs from its series' labels; NULL where it has none). */
static const struct topo *ccx_topo(const struct ui *u)
{
	return u->cfg->fleet ? ui_fleet_drill_topo(u) : u->topo;
}

/* A drilled fleet host: the first slot is its history (panel_fleet_history.c). */
static int history_slots(const struct ui *u)
{
	return u->cfg->fleet && u->drill_host ? 1 : 0;
}

/* The boxes are only those of the CCX the row filter keeps (as the panel
 * draws them): room for all 24 of a two-socket part filtered to one
 * socket left 10 blank lines above the table. */
static void ccx_want(struct panel *p, const struct ui *u, struct layout_in *in)
{
	(void)p;
	/* A fleet's hosts are not CPUs sharing an L3: its groups of hosts
	 * take the panels' place. */
	if (u->cfg->fleet && !u->drill_host) {
		fleet_groups_want(u, in);
		return;
	}
	const struct topo *t = ccx_topo(u);
	int cells = 0, nccx = history_slots(u);
	for (int i = 0; t && i < t->nccx; i++) {
		bool shown = false;
		for (int j = 0; j < t->ccxs[i].ncpus && !shown; j++)
			shown = ui_cpu_shown(u, t->ccxs[i].cpus[j]);
		nccx += shown;
		if (shown && t->ccxs[i].ncores > cells)
			cells = t->ccxs[i].ncores;
	}
	in->nccx = nccx;
	in->ccx_cells = cells;
	in->show_ccx = u->nav.show_ccx;
}

/* The metric the core strips show: the sparklines' (panel_spark.c), the
 * sort column if it is a metric, else utilisation (or IPC); in a tasks
 * view utilisation, since its columns are per process (a core's row has
 * no value of them, or a sum over its tasks: every core was a red "@"). */
static int strip_metric(const struct ui *u, const struct view_col **vc)
{
	return ui_spark_metric(u, vc);
}

/* The strip's levels, lowest first; a blank is a core without a value. */
static const char strip_levels[] = "_.:=+*#%@";

/* The top of the strip's scale: a share's own (100 %) so that 0 % and
 * 1 % look alike on an idle machine, else the busiest core's value. */
static double strip_top(const struct ui *u, int metric)
{
	const char *unit = metric >= 0 ? u->m->metrics[metric].unit : NULL;
	if (unit && (!strcmp(unit, "ratio") || !strcmp(unit, "%")))
		return !strcmp(unit, "%") ? 100 : 1;
	double max = 0;
	for (int i = 0; i < ccx_topo(u)->ncores; i++) {
		double v = ui_metric(u, ui_scope_row(u->snap, SNAP_CORE, i), metric, NULL, NULL);
		if (!isnan(v) && v > max)
			max = v;
	}
	return max;
}

static void draw_strip(const struct ui *u, int y, int x, int w, int lines, int ccx, int metric,
		       const struct view_col *vc, double max)
{
	const char *levels = strip_levels;
	const struct topo_ccx *cx = &ccx_topo(u)->ccxs[ccx];
	for (int j = 0; j < cx->ncores && j < w * lines; j++) {
		double v = ui_metric(u, ui_scope_row(u->snap, SNAP_CORE, cx->cores[j]), metric, NULL, NULL);
		char s[2] = " ";
		int attr = 0;
		if (!isnan(v)) {
			double f = max > 0 ? v / max : 0;
			int l = (int)(f * 8.999);
			l = l < 0 ? 0 : l > 8 ? 8 : l;
			s[0] = levels[l];
			if (vc && (!isnan(vc->warn) || !isnan(vc->crit)))
				attr = draw_level_attr(u, format_level(v, vc->warn, vc->crit, vc->low_is_bad));
			else
				attr = ui_attr(u, f > 0.66 ? CP_CRIT : f > 0.33 ? CP_WARN : CP_GOOD, 0);
		}
		draw_put(y + j / w, x + j % w, 1, attr, s);
	}
}

/* The strip's legend in w columns at (y, x): as long as fits, or none. */
static void strip_legend(const struct ui *u, int y, int x, int w)
{
	(void)u;
	static const char *const legends[] = { "low _.:=+*#%@ high", "_.:=+*#%@", "_ low @ high", "_..@" };
	for (size_t k = 0; k < ARRAY_SIZE(legends); k++)
		if ((int)strlen(legends[k]) + 1 <= w) {
			draw_put(y, x + w - (int)strlen(legends[k]), (int)strlen(legends[k]), A_DIM, legends[k]);
			return;
		}
}

static void ccx_figures(const struct ui *u, const struct ccx_state *st, struct frame *f, int i, char *acc, char *hit, char *lat, char *ipc, char *ghz)
{
	const struct snap_row *r = ui_scope_row(u->snap, SNAP_CCX, i);
	double cov = NAN, rse = NAN, v = ui_l3_rate(u, st->l3rate, st->l3acc, r, &cov, &rse);
	if (!isnan(v))
		draw_note_cov(f, cov);
	format_value_rse(acc, 16, v, rse, u->nav.show_err, NULL, "/s");
	draw_add_unit(acc, 16, "/s");
	draw_metric_text(u, f, r, st->l3hit, "pct", hit, 16);
	draw_add_unit(hit, 16, "%");
	draw_metric_text(u, f, r, st->l3lat, "%.0f", lat, 16);
	draw_add_unit(lat, 16, "ns");
	draw_metric_text(u, f, r, u->m_ipc, "%.2f", ipc, 16);
	draw_metric_text(u, f, r, u->m_ghz, "%.2f", ghz, 16);
	draw_add_unit(ghz, 16, "GHz");
}

/* A box of a machine without hardware counters (a VM without a virtual
 * PMU) had two blank lines above its strip: it says what it still knows
 * (utilisation, from /proc/stat) and why the rest is missing. */
static void ccx_without_counters(const struct ui *u, struct frame *f, int i, int y, int x, int w)
{
	char util[16], line[64];
	if (u->m_util < 0 || ui_metric_unmeasured(u, u->m_util))
		snprintf(util, sizeof(util), "-");
	else
		draw_metric_text(u, f, ui_scope_row(u->snap, SNAP_CCX, i), u->m_util, "%.1f", util, 16);
	snprintf(line, sizeof(line), "util %s%%", util);
	draw_put(y, x, w, 0, line);
	draw_put(y + 1, x, w, A_DIM, "no hardware counters");
}

/* The heat map's title: what a cell shows, so that a grid of numbers and
 * strips reads without the manual. */
static void heat_title(const struct ui *u, const struct layout *l, const char *dom, int metric, int n)
{
	char line[200];
	const char *name = metric >= 0 ? u->m->metrics[metric].name : "-";
	/* The longest that fits whole: at 80 columns the one sentence was
	 * cut in the middle of its key hints. */
	snprintf(line, sizeof(line), "%d %s: number, one mark per core (%s, low _.:=+*#%%@ high), the %s's %s"
		 "  (c hides; t then CCX rows in the table)", n, dom, name, dom, name);
	if ((int)strlen(line) > l->ccx.w)
		snprintf(line, sizeof(line), "%d %s: number, one mark per core (%s, low _.:=+*#%%@ high), the %s's %s",
			 n, dom, name, dom, name);
	if ((int)strlen(line) > l->ccx.w)
		snprintf(line, sizeof(line), "%d %s: number, a mark per core (%s low _.:=+*#%%@ high), its figure",
			 n, dom, name);
	if ((int)strlen(line) > l->ccx.w)
		snprintf(line, sizeof(line), "%d %s: a mark per core (%s low _..@ high)", n, dom, name);
	draw_put(l->ccx.y, l->ccx.x, l->ccx.w, ui_attr(u, CP_TITLE, A_BOLD), line);
}

/* One cell of the heat map: the CCX number, its cores' strip and its own
 * figure of the strip's metric. */
static void heat_cell(const struct ui *u, struct frame *f, int y, int x, int w, int i, int metric,
		      const struct view_col *vc, double max)
{
	const struct topo_ccx *cx = &ccx_topo(u)->ccxs[i];
	char num[16], fig[16];
	snprintf(num, sizeof(num), "%3d", i);
	draw_put(y, x, w, ui_attr(u, CP_TITLE, A_BOLD), num);
	draw_strip(u, y, x + 4, w - 4, 1, i, metric, vc, max);
	draw_metric_text(u, f, ui_scope_row(u->snap, SNAP_CCX, i), metric, NULL, fig, (int)sizeof(fig));
	if (x + 5 + cx->ncores < x + w)
		draw_put(y, x + 5 + cx->ncores, w - 5 - cx->ncores, 0, fig);
}

static void ccx_draw(const struct panel *p, const struct ui *u, struct frame *f)
{
	const struct ccx_state *st = p->st;
	const struct layout *l = &u->lay;
	if (u->cfg->fleet && !u->drill_host) {
		fleet_groups_draw(u);
		return;
	}
	if (l->ccx_mode == CCX_HIDDEN || l->ccx.h < 1)
		return;
	const struct topo *t = ccx_topo(u);
	int hs = history_slots(u);
	if (hs)
		fleet_history_draw(u, f, l->ccx.y + l->ccx_title, l->ccx.x, l->ccx_box_w, l->ccx_mode == CCX_BOXES ?
				   l->ccx_box_h : 1);
	if (!t)
		return;
	const struct view_col *vc;
	int metric = strip_metric(u, &vc);
	double max = strip_top(u, metric);
	int title = ui_attr(u, CP_TITLE, A_BOLD);
	const char *dom = u->m->l3_domain ? u->m->l3_domain : "CCX";
	/* The CCX the filter keeps, and the page of them with the selection. */
	int *keep = xmalloc(sizeof(int) * (size_t)(t->nccx + 1));
	int nkeep = 0, at = 0;
	int sel_ccx = u->nav.sel >= 0 && u->nav.sel < u->nrows ? u->rows[u->nav.sel].ccx : -1;
	if (hs && sel_ccx >= 0) {
		/* A drilled host's row is CPU number cpu of its own topology. */
		const struct topo_cpu *c = topo_cpu_by_num(t, u->rows[u->nav.sel].cpu);
		sel_ccx = c ? c->ccx : -1;
	}
	for (int i = 0; i < t->nccx; i++) {
		const struct topo_ccx *cx = &t->ccxs[i];
		bool shown = false;
		for (int j = 0; j < cx->ncpus && !shown; j++)
			shown = ui_cpu_shown(u, cx->cpus[j]);
		if (!shown)
			continue;
		if (i == sel_ccx)
			at = nkeep;
		keep[nkeep++] = i;
	}
	if (l->ccx_mode == CCX_HEAT)
		heat_title(u, l, dom, metric, nkeep);
	int per_page = l->ccx_shown - hs > 0 ? l->ccx_shown - hs : 1;
	int first = nkeep > per_page ? at / per_page * per_page : 0;
	if (first > 0 && first + per_page > nkeep)
		first = nkeep - per_page;     /* a full last page */
	for (int k = first; k < nkeep && k - first + hs <= l->ccx_shown; k++) {
		int slot = k - first + hs, i = keep[k];
		int slot_y = l->ccx.y + l->ccx_title + (slot / l->ccx_per_row) * l->ccx_box_h;
		int slot_x = l->ccx.x + (slot % l->ccx_per_row) * l->ccx_box_w;
		char acc[16], hit[16], lat[16], ipc[16], ghz[16], line[160];
		if (slot == l->ccx_shown) {
			if (l->ccx_mode == CCX_HEAT)
				snprintf(line, sizeof(line), "%d-%d of %d", first + 1, k, nkeep);
			else
				snprintf(line, sizeof(line), "%d-%d of %d %s (the selected row's; c hides)", first + 1,
					 k, nkeep, dom);
			draw_put(slot_y, slot_x, l->ccx_box_w, A_DIM, line);
			break;
		}
		const struct topo_ccx *cx = &t->ccxs[i];
		if (l->ccx_mode == CCX_HEAT) {
			heat_cell(u, f, slot_y, slot_x, l->ccx_box_w, i, metric, vc, max);
			continue;
		}
		ccx_figures(u, st, f, i, acc, hit, lat, ipc, ghz);
		if (l->ccx_mode == CCX_LINES) {
			snprintf(line, sizeof(line), "%s%-3d S%d L3 %9s hit %6s lat %6s IPC %5s %7s ",
				 dom, i, cx->socket, acc, hit, lat, ipc, ghz);
			/* Narrow: without the padding, then without the clock,
			 * then the latency: a figure whole or not at all (at
			 * 60 columns "4.36" was printed without its GHz), so
			 * that the core strip fits whole after it. */
			int room = l->ccx_box_w - 1 - cx->ncores;
			/* Chosen by the widest figures ("1.23G/s", "100.0%",
			 * "1000ns", "~1.23", "~4.56GHz"), so that every line
			 * has the same fields. */
			int fixed = (int)strlen(dom) + 2 + 4 + 7 + 5 + 6 + 5 + 6 + 5 + 5 + 1;
			if ((int)strlen(line) > room && fixed + 9 <= room)
				snprintf(line, sizeof(line), "%s%d L3 %s hit %s lat %s IPC %s %s ", dom, i, acc, hit, lat, ipc,
					 ghz);
			else if ((int)strlen(line) > room && fixed <= room)
				snprintf(line, sizeof(line), "%s%d L3 %s hit %s lat %s IPC %s ", dom, i, acc, hit, lat, ipc);
			else if ((int)strlen(line) > room)
				snprintf(line, sizeof(line), "%s%d L3 %s hit %s IPC %s ", dom, i, acc, hit, ipc);
			int n = (int)strlen(line);
			draw_put(slot_y, slot_x, l->ccx_box_w - 1, title, line);
			if (n < l->ccx_box_w - 1)
				draw_strip(u, slot_y, slot_x + n, l->ccx_box_w - 1 - n, 1, i, metric, vc, max);
			n += cx->ncores + 2;
			draw_spark(u, slot_y, slot_x + n, l->ccx_box_w - 1 - n, SNAP_CCX, i, "");
			continue;
		}
		int w = l->ccx_box_w, h = l->ccx_box_h;
		if (slot_x + w > COLS || slot_y + h > LINES)
			continue;
		draw_border(slot_y, slot_x, w, h);
		snprintf(line, sizeof(line), " %s %d  socket %d  %d CPUs ", dom, i, cx->socket, cx->ncpus);
		draw_put(slot_y, slot_x + 2, w - 4, title, line);
		/* Only the figures this machine can give: without a PMU the
		 * box said "L3 -  hit -" and "miss - IPC - -". */
		bool l3 = !ui_metric_unmeasured(u, st->l3rate >= 0 ? st->l3rate : st->l3acc);
		snprintf(line, sizeof(line), "%s%s%s%s", l3 ? "L3 " : "", l3 ? acc : "",
			 ui_metric_unmeasured(u, st->l3hit) ? "" : "  hit ", ui_metric_unmeasured(u, st->l3hit) ? "" : hit);
		if (!l3 && u->cfg->fleet && u->m_util >= 0) {
			/* A drilled fleet host's CCX: no L3 rate, but its CPUs'
			 * utilisation. */
			char util[16];
			draw_metric_text(u, f, ui_scope_row(u->snap, SNAP_CCX, i), u->m_util, "pct", util, 16);
			snprintf(line, sizeof(line), "util %s%%", util);
		}
		draw_put(slot_y + 1, slot_x + 1, w - 2, 0, line + (line[0] == ' ' ? 2 : 0));
		snprintf(line, sizeof(line), "%s%s%s%s%s%s", ui_metric_unmeasured(u, st->l3lat) ? "" : " miss ",
			 ui_metric_unmeasured(u, st->l3lat) ? "" : lat, ui_metric_unmeasured(u, u->m_ipc) ? "" : " IPC ",
			 ui_metric_unmeasured(u, u->m_ipc) ? "" : ipc, ui_metric_unmeasured(u, u->m_ghz) ? "" : " ",
			 ui_metric_unmeasured(u, u->m_ghz) ? "" : ghz);
		draw_put(slot_y + 2, slot_x + 1, w - 2, 0, line + (line[0] == ' ' ? 1 : 0));
		if (!l3 && ui_metric_unmeasured(u, u->m_ipc) && ui_metric_unmeasured(u, u->m_ghz) &&
		    ui_metric_unmeasured(u, st->l3hit) && ui_metric_unmeasured(u, st->l3lat))
			ccx_without_counters(u, f, i, slot_y + 1, slot_x + 1, w - 2);
		draw_strip(u, slot_y + 3, slot_x + 1, w - 2, l->strip_lines, i, metric, vc, max);
		/* The strip's legend beside the first box's strip where it fits
		 * (the footer has room for it only past 200 columns). */
		if (slot == 0 && l->strip_lines == 1)
			strip_legend(u, slot_y + 3, slot_x + 1 + cx->ncores + 1, w - 4 - cx->ncores);
		/* The history of the strip's metric, in the bottom border. */
		draw_spark(u, slot_y + h - 1, slot_x + 2, w - 5, SNAP_CCX, i, " ");
	}
	free(keep);
}

const struct panel_ops panel_ccx_ops = {
	.name = "ccx",
	.init = ccx_init,
	.needs = ccx_needs,
	.want = ccx_want,
	.draw = ccx_draw,
};
