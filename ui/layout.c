/* layout.c: the dashboard's geometry. Panels are given space in order of
 * importance: header and footer always, then the table's first rows, the
 * memory panel, the power panel (beside the memory panel where the width
 * allows, else above it), the CCX panels (boxes, one line per CCX, or a
 * heat map of one cell per CCX, in at most a third of the lines), and the
 * table takes whatever is left: at least half the screen's lines where it
 * has that many rows; a table with fewer rows than its lines has the
 * panels below it come up under its last row. */
#include "config.h"
#include "layout.h"

#include <string.h>

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

bool rect_overlap(const struct rect *a, const struct rect *b)
{
	if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
		return false;
	return a->y < b->y + b->h && b->y < a->y + a->h &&
	       a->x < b->x + b->w && b->x < a->x + a->w;
}

/* Places the CCX panels in at most cap lines starting at line y: boxes
 * where they all fit, else one line of figures per CCX, else (hundreds of
 * CPUs) a heat map of one compact cell per CCX under a title line, paged
 * when even that does not fit. */
static void layout_ccx(const struct layout_in *in, struct layout *o, int y, int cap)
{
	int w = in->cols;
	int inner = LAYOUT_CCX_BOX_W - 2;
	int cells = imax(in->ccx_cells, 1);
	int strip = (cells + inner - 1) / inner;
	int box_h = 4 + strip;
	int per_row = imax(w / LAYOUT_CCX_BOX_W, 1);
	int box_rows = (in->nccx + per_row - 1) / per_row;

	if (box_rows * box_h <= cap) {
		o->ccx_mode = CCX_BOXES;
		o->ccx_per_row = per_row;
		o->ccx_box_w = LAYOUT_CCX_BOX_W;
		o->ccx_box_h = box_h;
		o->strip_lines = strip;
		o->ccx_shown = in->nccx;
		o->ccx = (struct rect){ y, 0, box_rows * box_h, imin(w, per_row * LAYOUT_CCX_BOX_W) };
		return;
	}
	if (cap < 1)
		return;
	per_row = imax(w / LAYOUT_CCX_LINE_W, 1);
	int lines = (in->nccx + per_row - 1) / per_row;
	int heat_w = imin(LAYOUT_CCX_HEAT_W(cells), w);
	int heat_per_row = imax(w / heat_w, 1);
	int heat_lines = (in->nccx + heat_per_row - 1) / heat_per_row;
	if (lines > cap && cap >= 2 && heat_lines < lines) {
		int h = imin(heat_lines, cap - 1);
		o->ccx_mode = CCX_HEAT;
		o->ccx_title = 1;
		o->ccx_per_row = heat_per_row;
		o->ccx_box_w = heat_w;
		o->ccx_box_h = 1;
		o->ccx_shown = imin(in->nccx, h * heat_per_row);
		if (o->ccx_shown < in->nccx)
			o->ccx_shown = h * heat_per_row - 1;
		o->ccx = (struct rect){ y, 0, h + 1, w };
		return;
	}
	int h = imin(lines, cap);
	o->ccx_mode = CCX_LINES;
	o->ccx_per_row = per_row;
	o->ccx_box_w = imin(w / per_row, w);
	o->ccx_box_h = 1;
	o->ccx_shown = imin(in->nccx, h * per_row);
	/* The last slot says how many did not fit. */
	if (o->ccx_shown < in->nccx)
		o->ccx_shown = h * per_row - 1;
	o->ccx = (struct rect){ y, 0, h, w };
}

/* The power panel, on the lines just above *bottom (the memory panel's
 * top), or beside the memory panel on its lines and those just above them.
 * Never at the cost of the table's minimum: a panel with a heading and no
 * socket line is not drawn, so it takes two lines or none (one for its
 * note). */
static void layout_power(const struct layout_in *in, struct layout *o, int y, int *bottom, int mem_h,
			 int table_min)
{
	int cols = in->cols;
	int want = imin(in->power_lines, 5);
	int least = want > 1 ? 2 : 1;
	int pw = imax(in->power_w, 1);
	if (mem_h > 0 && cols - pw >= LAYOUT_MEM_MIN_W) {
		int base = *bottom + mem_h;   /* the memory panel's last line + 1 */
		int h = imin(want, base - y - table_min);
		if (h >= least) {
			int w = imax(pw, imin(cols / 2, cols - LAYOUT_MEM_MIN_W));
			o->mem.w = cols - w;
			o->power = (struct rect){ base - h, cols - w, h, w };
			*bottom = imin(*bottom, base - h);
			return;
		}
	}
	int h = imin(want, *bottom - y - table_min);
	if (h < least)
		return;
	o->power = (struct rect){ *bottom - h, 0, h, cols };
	*bottom -= h;
}

void layout_compute(const struct layout_in *in, struct layout *o)
{
	memset(o, 0, sizeof(*o));
	int rows = in->rows, cols = in->cols;
	if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
		o->too_small = true;
		if (rows >= 1 && cols >= 1)
			o->msg = (struct rect){ 0, 0, 1, cols };
		return;
	}
	int header_h = rows >= 20 ? 3 : 2;
	o->header = (struct rect){ 0, 0, header_h, cols };
	o->footer = (struct rect){ rows - 1, 0, 1, cols };
	int y = header_h, bottom = rows - 1;   /* middle area is [y, bottom) */
	int want_rows = imax(in->table_rows, 1);
	int table_min = 1 + imin(want_rows, 4);
	/* The table's share from 24 lines up: half the screen. Below, the
	 * panels each keep a line or two and the table its minimum. */
	int half = rows >= 24 ? rows / 2 : table_min;

	if (in->notice && bottom - y >= table_min + 1) {
		/* A long notice wraps onto up to 3 lines, never at the cost of
		 * the table's minimum. */
		int h = imin(imax(in->notice_lines, 1), 3);
		h = imin(h, bottom - y - table_min);
		o->notice = (struct rect){ y, 0, h, cols };
		y += h;
	}
	int mem_h = 0;
	if (in->show_mem) {
		mem_h = 1 + imin(imax(in->nsockets, 1), 4);
		if (bottom - y - mem_h >= table_min) {
			o->mem = (struct rect){ bottom - mem_h, 0, mem_h, cols };
			bottom -= mem_h;
		} else {
			mem_h = 0;
		}
	}
	if (in->power_lines > 0)
		layout_power(in, o, y, &bottom, mem_h, imax(table_min, imin(1 + want_rows, half)));
	if (in->show_ccx && in->nccx > 0) {
		int avail = bottom - y;
		/* The table keeps at least half the screen's lines (or all it
		 * needs, if less), and the CCX panels take at most about a
		 * third: 24 CCX boxes at 120x40 took 17 lines and left 15
		 * rows. Past that they fold into lines, then a heat map. */
		int keep = imax(table_min, imin(1 + want_rows, imax(half, avail / 2)));
		int cap = imin(avail - keep, rows / 3);
		layout_ccx(in, o, y, cap);
		y += o->ccx.h;
	}
	o->table = (struct rect){ y, 0, bottom - y, cols };
	/* A short table on a tall screen: the panels below it come up to
	 * its last row, and the lines left over are at the bottom, above
	 * the footer (they were an empty gap between the table and the
	 * memory panel). */
	int spare = o->table.h - (1 + want_rows);
	if (spare > 0) {
		o->table.h -= spare;
		if (o->mem.h > 0)
			o->mem.y -= spare;
		if (o->power.h > 0)
			o->power.y -= spare;
	}
	o->table_data_rows = o->table.h - 1;
}
