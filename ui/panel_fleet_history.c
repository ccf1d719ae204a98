/* panel_fleet_history.c: a drilled fleet host's history, the first slot
 * of the CCX panels while drilled (panel_ccx.c): a sparkline of each
 * column marked `history` in events/fleet/columns.txt (the model's
 * metrics in group "history"), of the host's own figures (the system
 * row) as u->hist holds them: its past from Prometheus's query_range (or
 * direct mode's refreshes kept since start) put there on the way in
 * (ui_fleet_drill_history), then each refresh's. A box of one line a
 * column where the slot is a box, else as many as fit on its line. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"

/* "LABEL <sparkline> VALUE" of metric m in w cells at (y, x); its width. */
static int one(const struct ui *u, struct frame *f, int y, int x, int w, int m)
{
	char label[16], val[16];
	snprintf(label, sizeof(label), "%-5.5s ", u->m->metrics[m].label);
	draw_metric_text(u, f, ui_scope_row(u->snap, SNAP_SYSTEM, 0), m, NULL, val, (int)sizeof(val));
	int cells = w - 6 - 1 - (int)strlen(val);
	if (cells > 60)
		cells = 60;
	if (cells < 4)
		return 0;
	draw_put(y, x, 6, ui_attr(u, CP_TITLE, A_BOLD), label);
	/* Fewer than two points: a gap of the sparkline's width. */
	draw_spark_cells(u, y, x + 6, cells, SNAP_SYSTEM, 0, m);
	draw_put(y, x + 6 + cells + 1, (int)strlen(val), 0, val);
	return 6 + cells + 1 + (int)strlen(val);
}

void fleet_history_draw(const struct ui *u, struct frame *f, int y, int x, int w, int h)
{
	int ms[16], n = 0;
	for (int m = 0; m < u->m->nmetrics && n < 16; m++)
		if (metric_in_group(&u->m->metrics[m], "history"))
			ms[n++] = m;
	if (h >= 3 && y + h <= LINES && x + w <= COLS) {
		/* A box: its title, a line each, the last in its bottom border. */
		draw_border(y, x, w, h);
		char title[64];
		snprintf(title, sizeof(title), " history, %g s a point ", history_interval(&u->hist) > 0
			 ? history_interval(&u->hist) : u->src ? source_interval(u->src) : 1);
		draw_put(y, x + 2, w - 4, ui_attr(u, CP_TITLE, A_BOLD), title);
		for (int i = 0; i < n && i < h - 1; i++)
			one(u, f, y + 1 + i, x + 1, w - 2, ms[i]);
		return;
	}
	/* One line: as many as fit, each in a share of it. */
	int each = n > 0 ? w / n : w;
	each = each < 20 ? 20 : each;
	for (int i = 0, at = 0; i < n && at + each <= w; i++, at += each)
		one(u, f, y, x + at, each - 1, ms[i]);
}
