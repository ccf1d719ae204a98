/* detail.h: the pure part of the detail pane (Enter on a row): which row
 * and metric it shows, what its keys do, where its parts go on the screen,
 * the order of its metric list and why a metric has no value. No curses:
 * panel_detail.c draws it, tests drive this. */
#ifndef PMCTOP_UI_DETAIL_H
#define PMCTOP_UI_DETAIL_H

#include <stdbool.h>
#include "evdef.h"
#include "layout.h"
#include "snapshot.h"

struct detail {
	bool open;
	enum snap_scope scope;         /* the row shown: a CPU, core, CCX, socket or the system */
	int ids[SNAP_NSCOPES];         /* the row's id at each scope, -1 where it has none */
	int metric;                    /* the metric graphed (model index), -1: the first listed */
	int top;                       /* first list line shown */
	int page;                      /* list lines on screen (set by the layout step) */
	bool measure_all;              /* every metric of the model is requested while open */
};

/* What the caller must do after detail_key. */
enum {
	DK_PASS = 0,          /* not a key of the pane: the dashboard handles it */
	DK_DONE = 1 << 0,     /* handled: redraw */
	DK_CLOSED = 1 << 1,   /* the pane closed */
	DK_REQUEST = 1 << 2,  /* measure_all changed: ask the sampler again */
};

/* Opens the pane on a row: scope and its ids at every scope (ids[scope]
 * must be >= 0; the system's id is set to 0), graphing metric (-1: the
 * first of the list). */
void detail_open(struct detail *d, enum snap_scope scope, const int ids[SNAP_NSCOPES], int metric);
/* Handles one key (keys.h codes) with the pane open, given the metric
 * list as drawn (detail_order). Returns DK_* flags. Closing also turns
 * measure_all off (DK_REQUEST). */
int detail_key(struct detail *d, int key, const int *list, int nlist);

/* The model's metrics in the pane's order: those with a value in the row
 * first, then those planned without one, then the rest, each group in the
 * model's order. Fills list[m->nmetrics]; returns the count. */
int detail_order(const struct model *m, const struct snapshot *s, enum snap_scope sc, int id, int *list);

/* Why a metric shows '-' in a row of scope sc, or NULL when it has a
 * value: "not measured in this view", "per CCX and wider", ... */
const char *detail_missing_reason(const struct model *m, const struct snapshot *s,
				  enum snap_scope sc, int id, int metric);

/* Where the pane's parts go inside area (its border included). Every
 * rectangle lies inside area; h or w 0 means not shown. */
struct detail_geom {
	struct rect box;               /* the border */
	struct rect title;             /* the graph's title: metric, window, scale */
	struct rect graph;             /* graph rows, y-axis labels included */
	struct rect stats;             /* now / min / avg / max line */
	struct rect head;              /* list heading */
	struct rect list;              /* one metric per line */
};
void detail_geometry(const struct rect *area, struct detail_geom *g);

/* The scope's name as the pane prints it ("CPU", "core", "CCX", ...). */
const char *detail_scope_name(enum snap_scope sc, const char *l3_domain);

#endif
