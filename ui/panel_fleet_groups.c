/* panel_fleet_groups.c: in a fleet, the CCX panels' place holds one box
 * (or line, when space is short, or a heat map's cell when there are
 * many) per group of hosts that share a label's value (g cycles the
 * label: model, then every other label the hosts carry, then off), with
 * its host count and its util, IPC, GHz and MEM. The figures are the snapshot's groups
 * (src/fleet_groups.c): counters summed over the group's hosts before
 * dividing, '~' where their error says so. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "uncertainty.h"
#include "util.h"

/* The most labels g cycles (fleet_groups.c makes no more). */
#define MAX_LABELS 16

/* The labels the snapshot groups by, in order (model, then the others by
 * name); the one g chose (NULL: off). --fleet-group's label is where the
 * cycle starts, so one g from it goes to the next label. */
static const char *chosen_label(const struct ui *u)
{
	const struct snapshot *s = u->snap;
	if (!s || s->drill || s->ngroups == 0)
		return NULL;
	const char *labels[MAX_LABELS];
	int n = 0, start = 0;
	for (int i = 0; i < s->ngroups && n < MAX_LABELS; i++) {
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(labels[k], s->groups[i].label);
		if (!seen)
			labels[n++] = s->groups[i].label;
	}
	for (int k = 0; k < n && u->cfg->fleet_group; k++)
		if (!strcmp(labels[k], u->cfg->fleet_group))
			start = k + 1;
	int g = (u->nav.group + start) % (n + 1);
	return g == 0 ? NULL : labels[g - 1];
}

static int count(const struct ui *u, const char *label)
{
	int n = 0;
	for (int i = 0; label && i < u->snap->ngroups; i++)
		n += !strcmp(u->snap->groups[i].label, label);
	return n;
}

/* The width of one group's heat-map cell. */
#define HEAT_CELL_W 26

void fleet_groups_want(const struct ui *u, struct layout_in *in)
{
	const char *label = chosen_label(u);
	in->nccx = label ? count(u, label) : 0;
	/* A heat map's cell: a mark, the value, the host count and the IPC
	 * (LAYOUT_CCX_HEAT_W: 11 columns more than this). */
	in->ccx_cells = HEAT_CELL_W - 11;
	in->show_ccx = label && u->nav.show_ccx;
}

/* A group's figure of column name as text: "-" where it has none, '~'
 * before it where its error makes the last digit doubtful. */
static void fig(const struct ui *u, const struct snap_group *g, const char *name, double scale, int prec,
		const char *unit, char *buf, size_t len)
{
	int c = model_find_metric(u->m, name);
	double v = c >= 0 ? g->v[c] : NAN;
	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%s%.*f%s", unc_marked(v, g->rse[c]) ? "~" : "", prec, v * scale, unit);
}

/* One group of many: a mark of its IPC against the highest group's (as
 * the CCX heat map marks its cores), its value, host count and IPC. */
static void heat_cell(const struct ui *u, const struct snap_group *g, int ipc, double top, int y, int x, int w,
		      const char *val, const char *ipc_txt)
{
	static const char levels[] = "_.:=+*#%@";
	double v = ipc >= 0 ? g->v[ipc] : NAN;
	char mark[2] = " ";
	int attr = 0;
	if (!isnan(v) && top > 0) {
		double f = v / top;
		int lv = (int)(f * 8.999);
		lv = lv < 0 ? 0 : lv > 8 ? 8 : lv;
		mark[0] = levels[lv];
		attr = ui_attr(u, f > 0.66 ? CP_GOOD : f > 0.33 ? CP_WARN : CP_CRIT, 0);
	}
	draw_put(y, x, 1, attr, mark);
	char line[80];
	int vw = w - 15;   /* less the mark and a space, the host count, the IPC, the spaces and a gap */
	snprintf(line, sizeof(line), "%-*.*s %4d %6s", vw < 1 ? 1 : vw, vw < 1 ? 1 : vw, val, g->nhosts, ipc_txt);
	draw_put(y, x + 2, w - 3, ui_attr(u, CP_TITLE, A_BOLD), line);
}

void fleet_groups_draw(const struct ui *u)
{
	const struct layout *l = &u->lay;
	const char *label = chosen_label(u);
	if (!label || l->ccx_mode == CCX_HIDDEN || l->ccx.h < 1)
		return;
	int title = ui_attr(u, CP_TITLE, A_BOLD);
	int n = count(u, label), slot = 0;
	char line[200];
	double top = 0;   /* the heat map's scale: the highest IPC of a group */
	int ipc_mi = model_find_metric(u->m, "ipc");
	if (l->ccx_mode == CCX_HEAT) {
		for (int i = 0; ipc_mi >= 0 && i < u->snap->ngroups; i++)
			if (!strcmp(u->snap->groups[i].label, label) && u->snap->groups[i].v[ipc_mi] > top)
				top = u->snap->groups[i].v[ipc_mi];
		snprintf(line, sizeof(line), "%d groups by %s: a mark of its IPC (low _.:=+*#%%@ high), %s, hosts, IPC"
			 "  (g: next label or off)", n, label, label);
		draw_put(l->ccx.y, l->ccx.x, l->ccx.w, title, line);
	}
	for (int i = 0; i < u->snap->ngroups; i++) {
		const struct snap_group *g = &u->snap->groups[i];
		if (strcmp(g->label, label))
			continue;
		if (slot == l->ccx_shown) {
			snprintf(line, sizeof(line), "%d-%d of %d groups", 1, slot, n);
			int y = l->ccx.y + l->ccx_title + (slot / l->ccx_per_row) * l->ccx_box_h;
			draw_put(y, l->ccx.x + (slot % l->ccx_per_row) * l->ccx_box_w, l->ccx_box_w, A_DIM, line);
			break;
		}
		int y = l->ccx.y + l->ccx_title + (slot / l->ccx_per_row) * l->ccx_box_h;
		int x = l->ccx.x + (slot % l->ccx_per_row) * l->ccx_box_w;
		int w = l->ccx_box_w, h = l->ccx_box_h;
		slot++;
		char util[40], ipc[40], ghz[40], mem[40];
		fig(u, g, "util", 100, 1, "%", util, sizeof(util));
		fig(u, g, "ipc", 1, 2, "", ipc, sizeof(ipc));
		fig(u, g, "ghz", 1, 2, "GHz", ghz, sizeof(ghz));
		fig(u, g, "mem_bw", 1, 2, "GB/s", mem, sizeof(mem));
		const char *val = *g->value ? g->value : "(none)";
		if (l->ccx_mode == CCX_HEAT) {
			heat_cell(u, g, ipc_mi, top, y, x, w, val, ipc);
			continue;
		}
		if (l->ccx_mode != CCX_BOXES) {
			snprintf(line, sizeof(line), "%s %s: %d host%s  util %s  IPC %s  %s  MEM %s", label, val, g->nhosts,
				 g->nhosts == 1 ? "" : "s", util, ipc, ghz, mem);
			draw_put(y, x, w - 1, title, line);
			continue;
		}
		if (x + w > COLS || y + h > LINES)
			continue;
		draw_border(y, x, w, h);
		snprintf(line, sizeof(line), " %s %s: %d host%s ", label, val, g->nhosts, g->nhosts == 1 ? "" : "s");
		draw_put(y, x + 2, w - 4, title, line);
		snprintf(line, sizeof(line), "util %s  IPC %s", util, ipc);
		draw_put(y + 1, x + 1, w - 2, 0, line);
		snprintf(line, sizeof(line), "%s  MEM %s", ghz, mem);
		draw_put(y + 2, x + 1, w - 2, 0, line);
		char cpus[40];
		fig(u, g, "cpus", 1, 0, "", cpus, sizeof(cpus));
		snprintf(line, sizeof(line), "%s CPUs counted", cpus);
		for (int k = 3; k < h - 1; k++)
			draw_put(y + k, x + 1, w - 2, 0, k == 3 ? line : "");
	}
}
