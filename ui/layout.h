/* layout.h: where each panel of the dashboard goes, as a pure function of
 * the terminal size, the topology counts and the user's toggles. No curses
 * here, so that tests can check every terminal size without a terminal. */
#ifndef PMCTOP_UI_LAYOUT_H
#define PMCTOP_UI_LAYOUT_H

#include <stdbool.h>

/* Below this size the dashboard shows one line asking for a larger
 * terminal instead of a garbled screen. 60x15 still leaves the header, a
 * table heading, a handful of rows and the footer. */
#define LAYOUT_MIN_COLS 60
#define LAYOUT_MIN_ROWS 15

/* Width of one CCX box (borders included) and of one compact CCX line. */
#define LAYOUT_CCX_BOX_W 34
#define LAYOUT_CCX_LINE_W 78
/* Width of one heat-map cell for CCX of c cores: its number (3 and a
 * blank), one character per core, a blank, its figure (5) and 2 blanks. */
#define LAYOUT_CCX_HEAT_W(c) ((c) + 11)

/* The power panel: its socket name column and the least width of one
 * figure (label, value, an 8-cell sparkline); beside it the memory panel
 * keeps at least LAYOUT_MEM_MIN_W columns (its figures and a sparkline). */
#define LAYOUT_POWER_NAME_W 10
#define LAYOUT_POWER_FIG_W 27
#define LAYOUT_MEM_MIN_W 80

struct rect { int y, x, h, w; };   /* h == 0 or w == 0: not shown */

enum ccx_mode { CCX_HIDDEN, CCX_BOXES, CCX_LINES, CCX_HEAT };

struct layout_in {
	int rows, cols;          /* terminal size */
	int table_rows;          /* data rows the table could show (CPUs or cores after filtering) */
	int nccx;                /* CCX panels wanted */
	int ccx_cells;           /* the most strip cells (cores) in one CCX */
	int nsockets;            /* memory panel lines */
	bool show_ccx;           /* 'c' toggle */
	bool show_mem;           /* the model has memory (UMC) metrics */
	int power_lines;         /* power panel lines wanted, heading included (1: its one-line note); 0: none */
	int power_w;             /* the width it needs beside the memory panel */
	bool notice;             /* a notice is wanted */
	int notice_lines;        /* lines it takes when wrapped (1 if 0); at most 3 are given */
};

struct layout {
	bool too_small;          /* only msg is used */
	struct rect msg;         /* the one-line "terminal too small" message */
	struct rect header;
	struct rect notice;
	struct rect ccx;         /* the area of all CCX panels */
	enum ccx_mode ccx_mode;
	int ccx_per_row;         /* boxes or compact lines side by side */
	int ccx_box_w, ccx_box_h;/* CCX_BOXES: one box; CCX_LINES, CCX_HEAT: one line or cell (h 1) */
	int ccx_title;           /* CCX_HEAT: lines of its title (1) above the cells */
	int ccx_shown;           /* panels that fit; the rest are summarised as "+N more" */
	int strip_lines;         /* CCX_BOXES: lines of the core strip in a box */
	struct rect table;       /* heading line + data rows */
	int table_data_rows;     /* table.h - 1 */
	struct rect mem;
	struct rect power;       /* beside the memory panel where both fit, else above it */
	struct rect footer;
};

/* Computes the layout; never fails. All shown rectangles lie inside the
 * terminal and do not overlap. */
void layout_compute(const struct layout_in *in, struct layout *out);
/* True if two shown rectangles overlap (used by the tests and asserts). */
bool rect_overlap(const struct rect *a, const struct rect *b);

#endif
