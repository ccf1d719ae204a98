/* panel_power.c: the power panel: per socket, package watts (and cores,
 * DRAM and platform watts where the model counts them; on AMD the per-core
 * counters summed over the socket) and instructions per joule, each with a
 * sparkline of its history. Shown in a view that measures package power;
 * where the machine has no energy counters it is one line saying so, never
 * a row of 0 W. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "util.h"

/* Value, one space, sparkline, two spaces: a figure's width beyond its
 * sparkline, and the most cells a sparkline takes. */
#define VALUE_W 9
#define FIG_EXTRA (VALUE_W + 3)
#define SPARK_MAX 24

/* Its figures, found by name (-1 where the model lacks them): package,
 * cores (summed per socket where the CPU counts per core), DRAM and
 * platform watts, instructions per joule; and the first snapshot laid
 * out in a view that measures power (seen false: not in one). */
struct power_state {
	int pkgw, corew, ramw, psysw, ipj;
	bool seen;
	uint64_t seq0;
};

static void power_init(struct panel *p, const struct ui *u)
{
	static const char *const pkgw[] = { "pkg_watts", NULL };
	/* RAPL's cores domain, else the per-core counters (AMD), whose socket
	 * row is their sum over the socket. */
	static const char *const corew[] = { "cores_watts", "core_watts", NULL };
	static const char *const ramw[] = { "ram_watts", NULL };
	static const char *const psysw[] = { "psys_watts", NULL };
	static const char *const ipj[] = { "insn_per_joule", NULL };
	struct power_state *st = xcalloc(1, sizeof(*st));
	st->pkgw = ui_find_metric(u->m, pkgw);
	st->corew = ui_find_metric(u->m, corew);
	st->ramw = ui_find_metric(u->m, ramw);
	st->psysw = ui_find_metric(u->m, psysw);
	st->ipj = ui_find_metric(u->m, ipj);
	p->st = st;
}

/* The panel's figures in the order drawn, those the model has. It asks
 * for none itself: it is shown in a view whose columns name them. */
static int figures(const struct power_state *st, int *out)
{
	const int all[] = { st->pkgw, st->corew, st->ramw, st->psysw, st->ipj };
	int n = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] >= 0)
			out[n++] = all[i];
	return n;
}

/* The view measures package power: its columns name it. */
static bool power_view(const struct power_state *st, const struct ui *u)
{
	const struct view_def *v = ui_cur_view(u);
	if (st->pkgw < 0 || !v || v->tasks)
		return false;
	for (int i = 0; i < v->ncols; i++)
		if (v->cols[i].metric == st->pkgw)
			return true;
	return false;
}

/* No energy counter behind the figures: the last figures were planned
 * with package power and lack its events, or could not plan it at all (no
 * power PMU nor powercap tree: the sampler leaves it out). Just after Tab
 * the snapshot on screen, and the one the switch cut short, were planned
 * for the last view, which lacked it too: those two are not taken as an
 * absence (their rows show "-" for that instant). */
static bool no_counters(const struct power_state *st, const struct ui *u)
{
	const struct snapshot *s = u->snap;
	if (!s || st->pkgw < 0)
		return false;
	if (ui_metric_unmeasured(u, st->pkgw))
		return true;
	if (s->metric_planned[st->pkgw])
		return false;
	return st->seen && (s->seq < st->seq0 || s->seq >= st->seq0 + 2);
}

/* The lines (heading included; 1: the note that there are no energy
 * counters; 0: not shown) and width it wants; notes the first snapshot
 * in a power view, before the frame is drawn. */
static void power_want(struct panel *p, const struct ui *u, struct layout_in *in)
{
	struct power_state *st = p->st;
	int fig[5];
	int n = figures(st, fig);
	in->power_lines = 0;
	in->power_w = 0;
	if (!power_view(st, u) || n == 0 || !u->snap) {
		st->seen = false;
		return;
	}
	if (!st->seen) {
		st->seen = true;
		st->seq0 = u->snap->seq;
	}
	in->power_lines = no_counters(st, u) ? 1 : 1 + u->topo->nsockets;
	in->power_w = LAYOUT_POWER_NAME_W + n * LAYOUT_POWER_FIG_W;
}

/* The colour of a value: its view column's thresholds, where it has one. */
static int level_attr(const struct ui *u, int metric, double v)
{
	for (int i = 0; i < u->ncols; i++)
		if (u->cols[i].kind == COL_METRIC && u->cols[i].idx == metric && u->cols[i].vc) {
			const struct view_col *vc = u->cols[i].vc;
			int a = draw_level_attr(u, format_level(v, vc->warn, vc->crit, vc->low_is_bad));
			return a;
		}
	return 0;
}

static void power_draw(const struct panel *pn, const struct ui *u, struct frame *f)
{
	const struct power_state *st = pn->st;
	const struct rect *p = &u->lay.power;
	if (p->h < 1 || p->w < 1)
		return;
	int head = ui_attr(u, CP_HEAD, A_REVERSE);
	draw_fill(p->y, p->x, p->w, head);
	if (no_counters(st, u)) {
		draw_put(p->y, p->x, p->w, head, "Power   no energy counters here: the watts show - (docs/energy.md)");
		return;
	}
	int fig[5];
	int n = figures(st, fig);
	if (n == 0)
		return;
	int fw = (p->w - LAYOUT_POWER_NAME_W) / n;
	if (fw > FIG_EXTRA + SPARK_MAX)
		fw = FIG_EXTRA + SPARK_MAX;
	/* Too narrow for sparklines of 4 cells: the values alone. */
	int cells = fw - FIG_EXTRA >= 4 ? fw - FIG_EXTRA : 0;
	if (cells == 0)
		fw = VALUE_W + 1;
	char text[64];
	draw_put(p->y, p->x, LAYOUT_POWER_NAME_W, head, "Power");
	for (int k = 0; k < n; k++) {
		char label[32];
		ui_metric_heading(u, fig[k], label, sizeof(label));
		snprintf(text, sizeof(text), "%*s", VALUE_W, label);
		draw_put(p->y, p->x + LAYOUT_POWER_NAME_W + k * fw, fw, head, text);
	}
	int shown = p->h - 1;
	for (int s = 0; s < u->topo->nsockets && s < shown; s++) {
		int y = p->y + 1 + s;
		snprintf(text, sizeof(text), "socket %d", s);
		draw_put(y, p->x, LAYOUT_POWER_NAME_W, 0, text);
		const struct snap_row *r = u->snap ? ui_scope_row(u->snap, SNAP_SOCKET, s) : NULL;
		for (int k = 0; k < n; k++) {
			int x = p->x + LAYOUT_POWER_NAME_W + k * fw;
			const char *unit = u->m->metrics[fig[k]].unit;
			bool watts = unit && strcmp(unit, "W") == 0;
			char val[32];
			draw_metric_text(u, f, r, fig[k], watts ? "%.1f" : "si", val, sizeof(val));
			if (watts)
				draw_add_unit(val, sizeof(val), "W");
			double cov, rse;
			double v = r ? ui_metric(u, r, fig[k], &cov, &rse) : NAN;
			snprintf(text, sizeof(text), "%*s", VALUE_W, val);
			draw_put(y, x, VALUE_W, level_attr(u, fig[k], v), text);
			/* Unknown now: no sparkline either, so that a gap never
			 * reads as a figure. */
			if (cells > 0 && !isnan(v))
				draw_spark_cells(u, y, x + VALUE_W + 1, cells, SNAP_SOCKET, s, fig[k]);
		}
	}
	if (u->topo->nsockets > shown && shown > 0) {
		snprintf(text, sizeof(text), "+%d more sockets", u->topo->nsockets - shown);
		draw_put(p->y + p->h - 1, p->x + p->w - 20, 20, A_DIM, text);
	}
}

const struct panel_ops panel_power_ops = {
	.name = "power",
	.init = power_init,
	.want = power_want,
	.draw = power_draw,
};
