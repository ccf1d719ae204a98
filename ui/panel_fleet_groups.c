/* panel_fleet_groups.c: in a fleet, the CCX panels' place holds one box
 * (or line, when space is short) per group of hosts that share a label's
 * value (g cycles the label: model, then off), with its host count and
 * its util, IPC, GHz and MEM. The figures are the snapshot's groups
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

/* The labels the snapshot groups by, in order; the one g chose (NULL:
 * off). */
static const char *chosen_label(const struct ui *u)
{
	const struct snapshot *s = u->snap;
	if (!s || s->drill || s->ngroups == 0)
		return NULL;
	const char *labels[8];
	int n = 0;
	for (int i = 0; i < s->ngroups && n < 8; i++) {
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = !strcmp(labels[k], s->groups[i].label);
		if (!seen)
			labels[n++] = s->groups[i].label;
	}
	int g = u->nav.group % (n + 1);
	return g == 0 ? NULL : labels[g - 1];
}

static int count(const struct ui *u, const char *label)
{
	int n = 0;
	for (int i = 0; label && i < u->snap->ngroups; i++)
		n += !strcmp(u->snap->groups[i].label, label);
	return n;
}

void fleet_groups_want(const struct ui *u, struct layout_in *in)
{
	const char *label = chosen_label(u);
	in->nccx = label ? count(u, label) : 0;
	in->ccx_cells = 1;
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

void fleet_groups_draw(const struct ui *u)
{
	const struct layout *l = &u->lay;
	const char *label = chosen_label(u);
	if (!label || l->ccx_mode == CCX_HIDDEN || l->ccx.h < 1)
		return;
	int title = ui_attr(u, CP_TITLE, A_BOLD);
	int n = count(u, label), slot = 0;
	char line[200];
	if (l->ccx_mode == CCX_HEAT) {
		snprintf(line, sizeof(line), "%d groups by %s: hosts, util, IPC, GHz, MEM  (g: next label or off)", n,
			 label);
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
