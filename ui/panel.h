/* panel.h: what the panel files (panel_header.c, panel_ccx.c,
 * panel_table.c, panel_mem.c, panel_power.c, panel_detail.c, panel_spark.c) share with
 * the frame in draw.c: the clipped drawing helpers and each panel's ops
 * table (listed in panels.c). Private to ui/. */
#ifndef PMCTOP_UI_PANEL_H
#define PMCTOP_UI_PANEL_H

#include <stddef.h>
#include "ui_impl.h"

/* paint.c: helpers. Every string goes through draw_put(), which clips it to
 * the screen, so that no size or topology can write outside it. */
void draw_put(int y, int x, int w, int attr, const char *s);
void draw_fill(int y, int x, int w, int attr);
/* The line-drawing border of the w x h box at (y, x): the caller has
 * checked that it fits on the screen. */
void draw_border(int y, int x, int w, int h);
int draw_level_attr(const struct ui *u, int level);   /* format_level: -1 none, 0 good, 1 warn, 2 crit */
void draw_note_cov(struct frame *f, double cov);   /* lowers f->min_cov */
/* A metric of a row as text, "-" when absent; its coverage noted in f. */
const char *draw_metric_text(const struct ui *u, struct frame *f, const struct snap_row *r, int metric,
			     const char *fmt, char *buf, int len);
void draw_add_unit(char *buf, size_t len, const char *unit);

/* A panel of the dashboard, as an ops table: what it reads, the room it
 * asks for and the navigation it settles before drawing, its drawing and
 * its keys. Drawing goes through const pointers: the layout step (draw.c)
 * runs every panel's want and settle before any panel draws, so a frame
 * changes nothing but the screen and the frame record f (what it drew,
 * for clicks and the header's coverage). Each hook may be NULL. */
struct panel_ops {
	const char *name;
	/* Finds its metrics by name in u->m (at start), into its own state
	 * (p->st, freed by free). */
	void (*init)(struct panel *p, const struct ui *u);
	/* The metrics it reads, appended to metrics[*n], and those to count
	 * throughout (sched_request.pinned) to pins[*np]; each array has
	 * room for every metric of the model. */
	void (*needs)(const struct panel *p, const struct ui *u, int *metrics, int *n, int *pins, int *np);
	/* Layout, before drawing: the room it wants, into in. */
	void (*want)(struct panel *p, const struct ui *u, struct layout_in *in);
	/* After the layout: the navigation state it keeps in u (scroll
	 * offsets, the selection clamped to what is shown). */
	void (*settle)(struct panel *p, struct ui *u);
	/* Draws into its rectangle of u->lay; the screen and f only. */
	void (*draw)(const struct panel *p, const struct ui *u, struct frame *f);
	/* A key while it has the focus: PANEL_KEY_PASS (not one of its),
	 * else PANEL_KEY_TAKEN, with PANEL_KEY_REQUEST where what the source
	 * measures must change (the caller asks it: a panel calls nothing
	 * above it). */
	int (*key)(struct panel *p, struct ui *u, int key);
	void (*free)(struct panel *p);
};

enum { PANEL_KEY_PASS = 0, PANEL_KEY_TAKEN = 1, PANEL_KEY_REQUEST = 2 };

/* The panels in drawing order (panels.c): the header reads the coverage
 * the others noted, so it is drawn last. */
extern const struct panel_ops panel_table_ops;    /* panel_table.c */
extern const struct panel_ops panel_ccx_ops;      /* panel_ccx.c */
extern const struct panel_ops panel_mem_ops;      /* panel_mem.c */
extern const struct panel_ops panel_power_ops;    /* panel_power.c */
extern const struct panel_ops panel_detail_ops;   /* panel_detail.c: the pane, when open */
extern const struct panel_ops panel_footer_ops;   /* panel_header.c */
extern const struct panel_ops panel_header_ops;   /* panel_header.c */
/* panel_fleet_groups.c: in a fleet, the CCX panels' place shows the
 * groups of hosts by the label g chose (none: off). */
void fleet_groups_want(const struct ui *u, struct layout_in *in);
void fleet_groups_draw(const struct ui *u);
/* panel_fleet_history.c: a drilled fleet host's sparklines of its history
 * columns in the h x w slot at (y, x) (a box where h >= 3, else a line). */
void fleet_history_draw(const struct ui *u, struct frame *f, int y, int x, int w, int h);
/* The panel of u with ops o, or NULL. */
const struct panel *ui_panel(const struct ui *u, const struct panel_ops *o);

/* panel_spark.c: the metric the sparklines show (the sort column's when
 * it is a metric, else utilisation or IPC; vc: its view column or NULL);
 * a string of one glyph per cell (spark.c) clipped to w cells; and the
 * sparkline of one row, "<prefix><label> <lo>..<hi> <cells>", in at most
 * w columns. Returns the columns drawn, 0 when there is no room. */
int ui_spark_metric(const struct ui *u, const struct view_col **vc);
void draw_glyphs(int y, int x, int w, int attr, const char *s);
int draw_spark(const struct ui *u, int y, int x, int w, enum snap_scope sc, int id, const char *prefix);
/* The sparkline of one given metric of one row in `cells` cells, on its
 * own scale, no label (the power panel prints the figure beside it).
 * Returns the cells drawn: 0 where fewer than two intervals have a value. */
int draw_spark_cells(const struct ui *u, int y, int x, int cells, enum snap_scope sc, int id, int metric);

#endif
