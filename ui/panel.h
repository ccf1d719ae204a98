/* panel.h: what the panel files (panel_header.c, panel_ccx.c,
 * panel_table.c, panel_mem.c, panel_power.c, panel_detail.c, panel_spark.c) share with
 * the frame in draw.c: the clipped drawing helpers and one entry point per
 * panel. Private to ui/. */
#ifndef PMCTOP_UI_PANEL_H
#define PMCTOP_UI_PANEL_H

#include <stddef.h>
#include "uiint.h"

/* paint.c: helpers. Every string goes through draw_put(), which clips it to
 * the screen, so that no size or topology can write outside it. */
void draw_put(int y, int x, int w, int attr, const char *s);
void draw_fill(int y, int x, int w, int attr);
int draw_level_attr(struct ui *u, int level);   /* format_level: -1 none, 0 good, 1 warn, 2 crit */
void draw_note_cov(struct frame *f, double cov);   /* lowers f->min_cov */
/* A metric of a row as text, "-" when absent; its coverage noted in f. */
const char *draw_metric_text(struct ui *u, struct frame *f, const struct snap_row *r, int metric,
			     const char *fmt, char *buf, int len);
void draw_add_unit(char *buf, size_t len, const char *unit);

/* The panels, each drawn into its rectangle of u->lay; what they drew
 * goes into the frame f. The header reads the coverage the others noted,
 * so it is drawn last. */
void panel_header(struct ui *u, struct frame *f);    /* panel_header.c */
void panel_footer(struct ui *u);    /* panel_header.c */
void panel_ccx(struct ui *u, struct frame *f);       /* panel_ccx.c */
void panel_table(struct ui *u, struct frame *f);     /* panel_table.c */
void panel_mem(struct ui *u, struct frame *f);       /* panel_mem.c */
void panel_power(struct ui *u, struct frame *f);     /* panel_power.c */
/* panel_power.c: the lines (heading included; 1: the note that there are
 * no energy counters; 0: not shown) and width the power panel wants. */
void ui_power_want(struct ui *u, int *lines, int *width);
void panel_detail(struct ui *u);    /* panel_detail.c: the pane, when open */

/* panel_spark.c: the metric the sparklines show (the sort column's when
 * it is a metric, else utilisation or IPC; vc: its view column or NULL);
 * a string of one glyph per cell (spark.c) clipped to w cells; and the
 * sparkline of one row, "<prefix><label> <lo>..<hi> <cells>", in at most
 * w columns. Returns the columns drawn, 0 when there is no room. */
int ui_spark_metric(struct ui *u, const struct view_col **vc);
void draw_glyphs(int y, int x, int w, int attr, const char *s);
int draw_spark(struct ui *u, int y, int x, int w, enum snap_scope sc, int id, const char *prefix);
/* The sparkline of one given metric of one row in `cells` cells, on its
 * own scale, no label (the power panel prints the figure beside it).
 * Returns the cells drawn: 0 where fewer than two intervals have a value. */
int draw_spark_cells(struct ui *u, int y, int x, int cells, enum snap_scope sc, int id, int metric);

#endif
