/* panel_spark.c: sparklines on the dashboard's panels (the header's
 * system line, each CCX box, each socket of the memory panel): the history
 * of the metric the table is sorted by, its scale printed beside it. The
 * strings come from spark.c; this file only places them, clipped to the
 * screen. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "spark.h"
#include "util.h"

/* The table's column of a metric, or NULL. */
static const struct ui_col *metric_col(const struct ui *u, int metric)
{
	for (int i = 0; i < u->ncols; i++)
		if (u->cols[i].kind == COL_METRIC && u->cols[i].idx == metric)
			return &u->cols[i];
	return NULL;
}

int ui_spark_metric(const struct ui *u, const struct view_col **vc)
{
	const struct ui_col *c = u->ncols > 0 ? &u->cols[u->nav.sort_col] : NULL;
	/* A tasks view's figures are per process: the CPU, CCX and system
	 * graphs show utilisation then. */
	bool own = c && c->kind == COL_METRIC && !ui_tasks_view(u);
	int metric = own ? c->idx : u->m_util >= 0 ? u->m_util : u->m_ipc;
	if (vc) {
		/* The column's format, so that the scale reads like its cells. */
		c = metric_col(u, metric);
		*vc = c ? c->vc : NULL;
	}
	return metric;
}

void draw_glyphs(int y, int x, int w, int attr, const char *s)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	/* s holds exactly one glyph per cell (spark.c): cut at a glyph. */
	const char *p = s;
	for (int i = 0; i < w && *p; i++) {
		p++;
		while ((*p & 0xc0) == 0x80)
			p++;
	}
	attron(attr);
	mvaddnstr(y, x, s, (int)(p - s));
	attroff(attr);
}

int draw_spark(const struct ui *u, int y, int x, int w, enum snap_scope sc, int id, const char *prefix)
{
	const struct view_col *vc;
	int metric = ui_spark_metric(u, &vc);
	if (metric < 0 || metric >= u->m->nmetrics || w < 1)
		return 0;
	const struct metric_def *md = &u->m->metrics[metric];
	char label[48], scale[48], text[128];
	/* Named as its column is, where it has one. */
	ui_metric_heading(u, metric, label, sizeof(label));
	text_sanitize_inplace(label);
	/* The graph takes what the label and scale leave, up to 60 cells; a
	 * sparkline of fewer than 8 intervals says too little to draw. The
	 * scale is that of the values drawn, so it is computed again when
	 * the graph has to shrink to make room for it. */
	double v[60];
	int n = w - (int)strlen(prefix) - (int)strlen(label) - 2 - 8;
	n = n > 60 ? 60 : n;
	if (n < 8)
		return 0;
	history_series(&u->hist, sc, id, metric, v, n);
	int cells = n, tl = 0;
	double lo, hi;
	for (int pass = 0; pass < 3; pass++) {
		spark_range(v + n - cells, cells, &lo, &hi);
		spark_scale_text(scale, sizeof(scale), lo, hi, vc ? vc->fmt : NULL, md->unit);
		snprintf(text, sizeof(text), "%s%s %s ", prefix, label, scale);
		tl = (int)strlen(text);
		if (tl + cells <= w)
			break;
		cells = w - tl;
	}
	if (cells < 8 || tl + cells > w)
		return 0;
	char g[60 * SPARK_CELL_MAX + 1];
	spark_line(g, sizeof(g), v, n, cells, lo, hi, u->utf8);
	draw_put(y, x, tl, A_DIM, text);
	draw_glyphs(y, x + tl, cells, ui_attr(u, CP_TITLE, 0), g);
	return tl + cells;
}

int draw_spark_cells(const struct ui *u, int y, int x, int cells, enum snap_scope sc, int id, int metric)
{
	if (metric < 0 || metric >= u->m->nmetrics || cells < 1)
		return 0;
	double v[60];
	cells = cells > 60 ? 60 : cells;
	/* Two values at least: one interval is a single mark, not a history. */
	if (history_series(&u->hist, sc, id, metric, v, cells) < 2)
		return 0;
	double lo, hi;
	spark_range(v, cells, &lo, &hi);
	char g[60 * SPARK_CELL_MAX + 1];
	spark_line(g, sizeof(g), v, cells, cells, lo, hi, u->utf8);
	draw_glyphs(y, x, cells, ui_attr(u, CP_TITLE, 0), g);
	return cells;
}
