/* check_layout.c: the dashboard's pure parts without a terminal: the layout
 * over every terminal size from 20x10 to 300x100 for machines of 2 to 1024
 * CPUs, and the number formatting, thresholds, event search and row filter
 * (ui/layout.c, src/format.c, src/format_text.c). */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "layout.h"
#include "topo.h"

/* Machines: CPUs, CCX, cores per CCX (strip cells), sockets. */
static const struct { int ncpus, nccx, cells, nsockets; } machines[] = {
	{ 2, 1, 1, 1 },        /* a small VM */
	{ 32, 2, 8, 1 },       /* one Zen 5 socket with two CCX, SMT */
	{ 384, 24, 8, 2 },     /* two EPYC 9654 */
	{ 1024, 64, 8, 4 },
	{ 1024, 8, 64, 2 },    /* wide CCX: strips span lines */
};

static bool inside(const struct rect *r, int rows, int cols)
{
	if (r->h == 0 || r->w == 0)
		return true;
	return r->h > 0 && r->w > 0 && r->y >= 0 && r->x >= 0 && r->y + r->h <= rows && r->x + r->w <= cols;
}

/* Checks one layout; returns a description of the first problem or NULL. */
static const char *check_one(const struct layout_in *in, const struct layout *l)
{
	if (l->too_small != (in->rows < LAYOUT_MIN_ROWS || in->cols < LAYOUT_MIN_COLS))
		return "too_small does not match the minimum";
	if (l->too_small)
		return inside(&l->msg, in->rows, in->cols) && l->table.h == 0 ? NULL : "message off-screen";
	const struct rect *r[] = { &l->header, &l->notice, &l->ccx, &l->table, &l->mem, &l->footer, &l->power };
	for (size_t i = 0; i < 7; i++) {
		if (!inside(r[i], in->rows, in->cols))
			return "a panel lies off-screen";
		for (size_t j = i + 1; j < 7; j++)
			if (rect_overlap(r[i], r[j]))
				return "two panels overlap";
	}
	if (l->header.y != 0 || l->header.h < 2)
		return "header not at the top";
	if (l->footer.y != in->rows - 1 || l->footer.h != 1)
		return "footer not on the last line";
	if (l->table_data_rows < 1 || l->table.h != l->table_data_rows + 1)
		return "table has no data row";
	int want = in->table_rows < 1 ? 1 : in->table_rows;
	if (l->table_data_rows < (want < 4 ? want : 4))
		return "table has fewer than its minimum rows";
	if (l->ccx_shown > in->nccx || l->ccx_shown < 0)
		return "more CCX shown than exist";
	if (l->ccx_mode == CCX_HIDDEN && l->ccx.h != 0)
		return "hidden CCX with an area";
	if (!in->show_ccx && l->ccx_mode != CCX_HIDDEN)
		return "CCX shown though toggled off";
	if (l->ccx_mode == CCX_BOXES) {
		int boxrows = (in->nccx + l->ccx_per_row - 1) / l->ccx_per_row;
		if (l->ccx_shown != in->nccx || boxrows * l->ccx_box_h != l->ccx.h ||
		    l->ccx_per_row * l->ccx_box_w > in->cols)
			return "CCX boxes do not fit their area";
		if (l->strip_lines * (l->ccx_box_w - 2) < in->ccx_cells)
			return "strip too short for the cores";
	}
	if (l->ccx_mode == CCX_LINES || l->ccx_mode == CCX_HEAT) {
		if (l->ccx_box_h != 1 || l->ccx_per_row * l->ccx_box_w > in->cols)
			return "CCX lines do not fit";
		if ((l->ccx_mode == CCX_HEAT) != (l->ccx_title == 1) || l->ccx.h <= l->ccx_title)
			return "CCX heat map without its title or cells";
		int slots = (l->ccx.h - l->ccx_title) * l->ccx_per_row;
		if (l->ccx_shown + (l->ccx_shown < in->nccx) > slots)
			return "more CCX lines than slots";
	}
	if (l->mem.h > 0 && l->mem.h < 2)
		return "memory panel without a socket line";
	if (in->power_lines == 0 && l->power.h != 0)
		return "power panel shown though not wanted";
	if (l->power.h > in->power_lines || (in->power_lines > 1 && l->power.h == 1))
		return "power panel of more lines than wanted, or a heading alone";
	if (l->power.h > 0 && l->power.w < (l->power.w == in->cols ? 1 : in->power_w))
		return "power panel beside memory narrower than it needs";
	if (l->power.h > 0 && l->power.x > 0 && l->mem.w < LAYOUT_MEM_MIN_W)
		return "memory panel beside power too narrow";
	return NULL;
}

START_TEST(test_every_size)
{
	long n = 0;
	const struct layout_in base = { 0 };
	for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++)
		for (int toggles = 0; toggles < 16; toggles++)
			for (int cols = 20; cols <= 300; cols++)
				for (int rows = 10; rows <= 100; rows++) {
					struct layout_in in = base;
					in.rows = rows;
					in.cols = cols;
					in.table_rows = machines[m].ncpus;
					in.nccx = machines[m].nccx;
					in.ccx_cells = machines[m].cells;
					in.nsockets = machines[m].nsockets;
					in.show_ccx = toggles & 1;
					in.show_mem = toggles & 2;
					in.notice = toggles & 4;
					/* A power panel of three figures per socket. */
					in.power_lines = toggles & 8 ? 1 + machines[m].nsockets : 0;
					in.power_w = LAYOUT_POWER_NAME_W + 3 * LAYOUT_POWER_FIG_W;
					struct layout l;
					layout_compute(&in, &l);
					const char *err = check_one(&in, &l);
					ck_assert_msg(err == NULL, "%dx%d, %d CPUs, toggles %d: %s", cols, rows,
						      machines[m].ncpus, toggles, err);
					n++;
				}
	ck_assert_int_gt(n, 1000000);
}
END_TEST

START_TEST(test_zen5_160x50_boxes)
{
	struct layout_in in = { .rows = 50, .cols = 160, .table_rows = 32, .nccx = 2, .ccx_cells = 8,
				.nsockets = 1, .show_ccx = true, .show_mem = true, .notice = true };
	struct layout l;
	layout_compute(&in, &l);
	ck_assert(!l.too_small);
	ck_assert_int_eq(l.ccx_mode, CCX_BOXES);
	ck_assert_int_eq(l.ccx_shown, 2);
	ck_assert_int_eq(l.ccx_per_row, 160 / LAYOUT_CCX_BOX_W);
	ck_assert_int_eq(l.header.h, 3);
	ck_assert_int_eq(l.notice.h, 1);
	ck_assert_int_eq(l.mem.h, 2);
	/* The table right below the boxes, as tall as its 32 rows need,
	 * and memory right below it: the lines left over are at the bottom
	 * (they were a gap between the table and the memory panel). */
	ck_assert_int_eq(l.table.y, l.ccx.y + l.ccx.h);
	ck_assert_int_eq(l.table.h, 33);
	ck_assert_int_eq(l.table.y + l.table.h, l.mem.y);
	ck_assert_int_le(l.mem.y + l.mem.h, 49);
}
END_TEST

/* A short table on a tall, wide screen (issue 36): the memory and power
 * panels come up under its last row, at every size of the issue, and a
 * table with more rows than lines still runs down to them. */
START_TEST(test_short_table_panels_follow)
{
	static const struct { int cols, rows; } sizes[] = { { 120, 40 }, { 250, 70 }, { 400, 100 } };
	for (size_t si = 0; si < 3; si++) {
		struct layout_in in = { .rows = sizes[si].rows, .cols = sizes[si].cols, .table_rows = 16, .nccx = 2,
					.ccx_cells = 8, .nsockets = 1, .show_ccx = true, .show_mem = true,
					.power_lines = 2, .power_w = LAYOUT_POWER_NAME_W + 3 * LAYOUT_POWER_FIG_W };
		struct layout l;
		layout_compute(&in, &l);
		ck_assert_msg(check_one(&in, &l) == NULL, "%dx%d: %s", in.cols, in.rows, check_one(&in, &l));
		ck_assert_int_eq(l.table.h, 17);
		int below = l.table.y + l.table.h;
		ck_assert_msg(l.mem.y == below || l.power.y == below, "%dx%d: nothing under the table's last row",
			      in.cols, in.rows);
		ck_assert_int_lt(l.mem.y + l.mem.h, l.footer.y);
		in.table_rows = 1024;
		layout_compute(&in, &l);
		ck_assert_int_eq(l.table.y + l.table.h, l.power.y < l.mem.y && l.power.x == 0 ? l.power.y : l.mem.y);
	}
}
END_TEST

/* The power panel (Zen 5, two sockets, three figures): beside the memory
 * panel on a wide terminal, above it on a narrower one, and still a place
 * at 80x24 that leaves the table its minimum; its one-line note where the
 * machine has no energy counters. */
START_TEST(test_power_place)
{
	struct layout_in in = { .rows = 70, .cols = 250, .table_rows = 384, .nccx = 24, .ccx_cells = 8,
				.nsockets = 2, .show_ccx = true, .show_mem = true, .notice = true,
				.power_lines = 3, .power_w = LAYOUT_POWER_NAME_W + 3 * LAYOUT_POWER_FIG_W };
	struct layout l;
	layout_compute(&in, &l);
	ck_assert_ptr_null(check_one(&in, &l));
	/* Beside: same lines as memory, at its right, the table right above both. */
	ck_assert_int_eq(l.power.h, 3);
	ck_assert_int_eq(l.power.y, l.mem.y);
	ck_assert_int_eq(l.power.x, l.mem.w);
	ck_assert_int_eq(l.power.x + l.power.w, 250);
	ck_assert_int_ge(l.mem.w, LAYOUT_MEM_MIN_W);
	ck_assert_int_eq(l.table.y + l.table.h, l.mem.y);

	in.rows = 40;
	in.cols = 120;
	layout_compute(&in, &l);
	ck_assert_ptr_null(check_one(&in, &l));
	/* Above: full width, right on top of memory. */
	ck_assert_int_eq(l.power.h, 3);
	ck_assert_int_eq(l.power.x, 0);
	ck_assert_int_eq(l.power.w, 120);
	ck_assert_int_eq(l.power.y + l.power.h, l.mem.y);
	ck_assert_int_eq(l.table.y + l.table.h, l.power.y);

	in.rows = 24;
	in.cols = 80;
	layout_compute(&in, &l);
	ck_assert_ptr_null(check_one(&in, &l));
	ck_assert_int_eq(l.power.h, 3);
	ck_assert_int_eq(l.power.w, 80);
	ck_assert_int_ge(l.table_data_rows, 4);

	/* The smallest dashboard: two sockets still fit above memory. */
	in.rows = LAYOUT_MIN_ROWS;
	in.cols = LAYOUT_MIN_COLS;
	layout_compute(&in, &l);
	ck_assert_ptr_null(check_one(&in, &l));
	ck_assert_int_eq(l.power.h, 3);
	ck_assert_int_ge(l.table_data_rows, 4);
	/* Four sockets: memory takes five lines and the table its minimum;
	 * one line would be a heading alone, so no power panel. */
	in.nsockets = 4;
	in.power_lines = 5;
	layout_compute(&in, &l);
	ck_assert_ptr_null(check_one(&in, &l));
	ck_assert_int_eq(l.mem.h, 5);
	ck_assert_int_eq(l.power.h, 0);
	in.nsockets = 2;

	/* No energy counters: one line, never a heading over empty rows. */
	in.rows = 40;
	in.cols = 120;
	in.power_lines = 1;
	layout_compute(&in, &l);
	ck_assert_ptr_null(check_one(&in, &l));
	ck_assert_int_eq(l.power.h, 1);
}
END_TEST

START_TEST(test_many_ccx_collapse)
{
	/* 64 CCX at 80x24: boxes cannot fit, one line per CCX, and the table
	 * keeps half of the middle. */
	struct layout_in in = { .rows = 24, .cols = 80, .table_rows = 1024, .nccx = 64, .ccx_cells = 8,
				.nsockets = 2, .show_ccx = true, .show_mem = true };
	struct layout l;
	layout_compute(&in, &l);
	ck_assert_int_eq(l.ccx_mode, CCX_HEAT);
	ck_assert_int_lt(l.ccx_shown, 64);
	ck_assert_int_ge(l.ccx.h, 1);
	int middle = 24 - l.header.h - 1 - l.mem.h;
	ck_assert_int_ge(l.table.h, middle / 2);
	/* Wide: several lines side by side. */
	in.cols = 250;
	in.rows = 70;
	layout_compute(&in, &l);
	ck_assert_int_eq(l.ccx_per_row, 250 / LAYOUT_CCX_LINE_W);
	/* Hidden on request. */
	in.show_ccx = false;
	layout_compute(&in, &l);
	ck_assert_int_eq(l.ccx_mode, CCX_HIDDEN);
	ck_assert_int_eq(l.table.y, l.header.h);
}
END_TEST

/* The sizes and machines (16, 384 and 1024 CPUs), every panel on:
 * the CPU table keeps at least half the screen's lines, spans the width,
 * and the CCX panels take at most a third of the lines, folding from
 * boxes to a line or a heat-map cell per CCX; what they show uses the
 * width (no room for one more box or cell). At 120x40 the 24 CCX boxes
 * of 384 CPUs took 17 lines and left the table 15. */
START_TEST(test_sizes_table_half)
{
	static const struct { int cols, rows; } sizes[] = { { 80, 24 }, { 120, 40 }, { 250, 70 }, { 400, 100 } };
	static const struct { int ncpus, nccx, cells, nsockets; } mach[] = {
		{ 16, 2, 4, 1 }, { 384, 24, 8, 2 }, { 1024, 64, 8, 4 },
	};
	for (size_t si = 0; si < 4; si++)
		for (size_t mi = 0; mi < 3; mi++) {
			struct layout_in in = {
				.rows = sizes[si].rows, .cols = sizes[si].cols, .table_rows = mach[mi].ncpus,
				.nccx = mach[mi].nccx, .ccx_cells = mach[mi].cells, .nsockets = mach[mi].nsockets,
				.show_ccx = true, .show_mem = true, .notice = true, .notice_lines = 1,
				.power_lines = 1 + mach[mi].nsockets,
				.power_w = LAYOUT_POWER_NAME_W + 3 * LAYOUT_POWER_FIG_W,
			};
			struct layout l;
			layout_compute(&in, &l);
			const char *err = check_one(&in, &l);
			ck_assert_msg(err == NULL, "%dx%d %d CPUs: %s", in.cols, in.rows, mach[mi].ncpus, err);
			/* Half the lines, or every row where it has fewer. */
			int want = in.rows / 2 < 1 + in.table_rows ? in.rows / 2 : 1 + in.table_rows;
			ck_assert_msg(l.table.h >= want, "%dx%d %d CPUs: table %d lines", in.cols, in.rows,
				      mach[mi].ncpus, l.table.h);
			ck_assert_int_eq(l.table.w, in.cols);
			ck_assert_msg(l.ccx.h <= in.rows / 3, "%dx%d %d CPUs: CCX %d lines", in.cols, in.rows,
				      mach[mi].ncpus, l.ccx.h);
			if (in.rows >= 40)
				ck_assert_msg(l.ccx_mode != CCX_HIDDEN && l.ccx_shown > 0, "%dx%d %d CPUs: no CCX",
					      in.cols, in.rows, mach[mi].ncpus);
			if (l.ccx_mode == CCX_BOXES || l.ccx_mode == CCX_HEAT)
				ck_assert_msg(in.cols - l.ccx_per_row * l.ccx_box_w < l.ccx_box_w ||
					      (l.ccx_shown == in.nccx && l.ccx_per_row >= in.nccx),
					      "%dx%d %d CPUs: CCX leave width", in.cols, in.rows, mach[mi].ncpus);
		}
	/* The case of the issue: 384 CPUs at 120x40 fold into a heat map
	 * that shows all 24 CCX. */
	struct layout_in in = { .rows = 40, .cols = 120, .table_rows = 384, .nccx = 24, .ccx_cells = 8,
				.nsockets = 2, .show_ccx = true, .show_mem = true, .power_lines = 3,
				.power_w = LAYOUT_POWER_NAME_W + 3 * LAYOUT_POWER_FIG_W };
	struct layout l;
	layout_compute(&in, &l);
	ck_assert_int_eq(l.ccx_mode, CCX_HEAT);
	ck_assert_int_eq(l.ccx_shown, 24);
	ck_assert_int_ge(l.table_data_rows, 19);
}
END_TEST

START_TEST(test_minimum)
{
	struct layout_in in = { .rows = LAYOUT_MIN_ROWS, .cols = LAYOUT_MIN_COLS, .table_rows = 32,
				.nccx = 2, .ccx_cells = 8, .nsockets = 1, .show_ccx = true, .show_mem = true,
				.notice = true };
	struct layout l;
	layout_compute(&in, &l);
	ck_assert(!l.too_small);
	ck_assert_int_ge(l.table_data_rows, 4);
	in.cols--;
	layout_compute(&in, &l);
	ck_assert(l.too_small);
	ck_assert_int_eq(l.msg.w, LAYOUT_MIN_COLS - 1);
	in.cols = 0;
	in.rows = 0;
	layout_compute(&in, &l);
	ck_assert(l.too_small);
	ck_assert_int_eq(l.msg.w, 0);
}
END_TEST

START_TEST(test_overlap)
{
	struct rect a = { 0, 0, 2, 10 }, b = { 1, 9, 1, 1 }, c = { 2, 0, 1, 10 }, z = { 0, 0, 0, 10 };
	ck_assert(rect_overlap(&a, &b));
	ck_assert(!rect_overlap(&a, &c));
	ck_assert(!rect_overlap(&a, &z));
}
END_TEST

/* fmt.c */
#define L __LINE__
static const struct { int line; const char *fmt; bool ok; } formats[] = {
	{ L, "%.2f", true }, { L, "%5.1f%%", true }, { L, "%g", true }, { L, "x=%-08.3e", true },
	{ L, "%s", false }, { L, "%n", false }, { L, "%d", false }, { L, "%.2f %.2f", false },
	{ L, "plain", false }, { L, "%", false }, { L, "%123f", false }, { L, "%lf", false },
	{ L, "%*f", false }, { L, "", false }, { L, NULL, false }, { L, "%%", false },
};

START_TEST(test_fmt_valid)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		ck_assert_msg(format_is_double_fmt(formats[i].fmt) == formats[i].ok, "line %d: %s", formats[i].line,
			      formats[i].fmt ? formats[i].fmt : "NULL");
}
END_TEST

/* rse is the relative standard error: '~' exactly when 1.96 x rse is above
 * UNC_MARK_REL95 (10 %) or rse is not known, in both directions. */
static const struct {
	int line; double v, rse; bool err; const char *fmt, *unit, *want;
} values[] = {
	{ L, NAN, 0, false, "%.2f", NULL, "-" },
	{ L, NAN, NAN, false, "%.2f", NULL, "-" },      /* no value: a dash, never "~-" */
	{ L, INFINITY, 0, false, NULL, NULL, "-" },
	{ L, 1.2345, 0, false, "%.2f", "insn/cyc", "1.23" },
	{ L, 1.2345, 0.02, false, "%.2f", "insn/cyc", "1.23" },
	{ L, 1.2345, 0.0510, false, "%.2f", NULL, "1.23" },  /* +-9.996 %: not marked */
	{ L, 1.2345, 0.0511, false, "%.2f", NULL, "~1.23" }, /* +-10.02 %: marked */
	{ L, 1.2345, 0.3, false, "%.2f", NULL, "~1.23" },
	{ L, 1.2345, NAN, false, "%.2f", NULL, "~1.23" },    /* not known: marked */
	{ L, 1.2345, 0.01, true, "%.2f", NULL, "1.23\u00b12.0%" },
	{ L, 1.2345, 0, true, "%.2f", NULL, "1.23" },            /* exact: no +-0 */
	{ L, 1.2345, 0.2, true, "%.2f", NULL, "~1.23\u00b139%" },
	{ L, 1.2345, NAN, true, "%.2f", NULL, "~1.23" },
	{ L, 0.4567, 0, false, "pct", "ratio", "45.7" },
	{ L, 0.4567, 0, false, NULL, "ratio", "45.7" },
	{ L, 45.67, 0, false, "pct", "%", "45.7" },            /* already a percentage */
	{ L, 0.4567, 0, false, "%s", "ratio", "45.7" },        /* a bad format falls back safely */
	{ L, 3.456, 0, false, "%s", "GHz", "3.46" },
	{ L, 1234567, 0, false, NULL, "/s", "1.23M" },
	{ L, 95.4, 0, false, NULL, "ns", "95" },
	{ L, 12, 0, false, NULL, NULL, "12.00" },
	{ L, 5e9, 0.5, false, NULL, NULL, "~5.00G" },
	/* One rule per unit on screen, whatever format a view gives (issue
	 * 13: util% showed 1, 3.69 and 1.5; a stall count 18733186 beside
	 * 1.01G). */
	{ L, 1.0, 0, false, "%.0f", "%", "1.0" },
	{ L, 3.6912, 0, false, "%.2f", "%", "3.7" },
	{ L, 1.5, 0, false, "%.1f", "%", "1.5" },
	{ L, 18733186, 0, false, "%.0f", "cycles", "18.7M" },
	{ L, 1.01e9, 0, false, NULL, "cycles", "1.01G" },
	{ L, 92.384, 0, false, "%.1f", "/kinsn", "92.4" },
	{ L, 2.034, 0, false, "%.3f", "/kinsn", "2.03" },
};

START_TEST(test_fmt_value)
{
	char buf[32];
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		format_value_rse(buf, sizeof(buf), values[i].v, values[i].rse, values[i].err, values[i].fmt,
			  values[i].unit);
		ck_assert_msg(strcmp(buf, values[i].want) == 0, "line %d: got '%s', want '%s'",
			      values[i].line, buf, values[i].want);
	}
	/* Small buffers truncate rather than overflow. */
	char tiny[4];
	format_value_rse(tiny, sizeof(tiny), 123456.0, 0, false, "%.3f", NULL);
	ck_assert_str_eq(tiny, "123");
}
END_TEST

/* Notices wrap at newlines and between words, never past the width. */
START_TEST(test_fmt_wrap)
{
	int st[8], ln[8];
	const char *t = "hardware counters: not available\nshowing CPU utilization";
	ck_assert_int_eq(format_wrap(t, 80, st, ln, 8), 2);
	ck_assert_int_eq(ln[0], 32);
	ck_assert_int_eq(strncmp(t + st[1], "showing", 7), 0);
	ck_assert_int_eq(format_wrap(t, 20, st, ln, 8), 4);
	ck_assert_int_eq(ln[0], 18);                  /* "hardware counters:" */
	ck_assert_int_eq(strncmp(t + st[1], "not available", 13), 0);
	for (int w = 1; w < 60; w++) {
		int n = format_wrap(t, w, st, ln, 8);
		ck_assert_int_ge(n, 1);
		for (int i = 0; i < n && i < 8; i++)
			ck_assert_int_le(ln[i], w);
	}
	ck_assert_int_eq(format_wrap("abcdefghij", 4, st, ln, 8), 3);   /* a long word is cut */
	ck_assert_int_eq(format_wrap("", 10, st, ln, 8), 0);
	ck_assert_int_eq(format_wrap(t, 80, st, ln, 1), 2);            /* counts beyond max */
	/* The layout gives a wrapped notice its lines, at most 3, and keeps
	 * the table. */
	struct layout lay;
	struct layout_in in = { .rows = 24, .cols = 80, .table_rows = 2, .nccx = 1, .ccx_cells = 2,
				.nsockets = 1, .show_ccx = true, .notice = true, .notice_lines = 2 };
	layout_compute(&in, &lay);
	ck_assert_int_eq(lay.notice.h, 2);
	in.notice_lines = 9;
	layout_compute(&in, &lay);
	ck_assert_int_eq(lay.notice.h, 3);
	ck_assert_int_ge(lay.table.h, 2);
}
END_TEST

/* The topdown bar's legend fits its column whole: at 120 columns it was
 * cut in a word ("F=FE bound S=Bad spec B=BE b"). */
START_TEST(test_fmt_legend)
{
	static const char *const labels[] = { "FE bound", "Bad spec", "BE bound", "SMT cont", "Retiring" };
	char buf[128];
	ck_assert_str_eq(format_legend(buf, sizeof(buf), 60, "FSBTR", labels, 5),
			 "F=FE bound S=Bad spec B=BE bound T=SMT cont R=Retiring");
	ck_assert_str_eq(format_legend(buf, sizeof(buf), 32, "FSBTR", labels, 5), "F=FE S=Bad B=BE T=SMT R=Retiring");
	ck_assert_str_eq(format_legend(buf, sizeof(buf), 27, "FSBTR", labels, 5), "F=FE S=Bad B=BE T=SMT R=Ret");
	ck_assert_str_eq(format_legend(buf, sizeof(buf), 20, "FSBTR", labels, 5), "F=FE S=Bad B=BE");
	for (int w = 0; w < 70; w++)
		ck_assert_int_le((int)strlen(format_legend(buf, sizeof(buf), w, "FSBTR", labels, 5)), w);
}
END_TEST

/* Headings keep their unit once: "Br/KI" is per kilo-instruction already
 * (it read "Br/KI/ki"), a count per second says "/s". */
START_TEST(test_headings)
{
	char buf[48];
	format_heading(buf, sizeof(buf), "Br/KI", "/kinst");
	ck_assert_str_eq(buf, "Br/KI");
	format_heading(buf, sizeof(buf), "L2 MPKI", "/kinst");
	ck_assert_str_eq(buf, "L2 MPKI");
	format_heading(buf, sizeof(buf), "SSE/AVX stall", "count");
	ck_assert_str_eq(buf, "SSE/AVX stall/s");
	format_heading(buf, sizeof(buf), "L2 miss", "/kinst");
	ck_assert_str_eq(buf, "L2 miss/ki");
}
END_TEST

START_TEST(test_fmt_si)
{
	static const struct { double v; const char *want; } t[] = {
		{ 0, "0" }, { 999, "999" }, { 999.4, "999" }, { 1500, "1.50k" }, { 12345, "12.3k" },
		{ 12.345, "12.3" }, { 1.5, "1.50" }, { 7, "7" },
		{ 123456, "123k" }, { 2.5e9, "2.50G" }, { -2e6, "-2.00M" }, { 1e30, "1000000000000E" },
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_str_eq(format_si(buf, sizeof(buf), t[i].v), t[i].want);
}
END_TEST

START_TEST(test_fmt_level)
{
	ck_assert_int_eq(format_level(0.2, 0.3, 0.5, false), 0);
	ck_assert_int_eq(format_level(0.3, 0.3, 0.5, false), 1);
	ck_assert_int_eq(format_level(0.7, 0.3, 0.5, false), 2);
	ck_assert_int_eq(format_level(0.9, 0.8, 0.5, true), 0);
	ck_assert_int_eq(format_level(0.7, 0.8, 0.5, true), 1);
	ck_assert_int_eq(format_level(0.4, 0.8, 0.5, true), 2);
	/* No value, or nothing to judge it by: no level, so no colour
	 * (not the green of a good one). */
	ck_assert_int_eq(format_level(NAN, 0.3, 0.5, false), -1);
	ck_assert_int_eq(format_level(100, NAN, NAN, false), -1);
	ck_assert_int_eq(format_level(100, NAN, 50, false), 2);
}
END_TEST

START_TEST(test_fmt_match)
{
	ck_assert(format_match("ex_ret_brn_misp", "BRN"));
	ck_assert(format_match("Retired branch instructions mispredicted", "mispred"));
	ck_assert(format_match("anything", ""));
	ck_assert(format_match("anything", NULL));
	ck_assert(!format_match("ls_not_halted_cyc", "brn"));
	ck_assert(!format_match(NULL, "x"));
}
END_TEST

/* A hand-built topology: 2 sockets x 2 CCX x 2 cores x 2 threads = 16
 * CPUs, numbered like Linux numbers EPYC (first threads first). */
static struct topo *small_topo(void)
{
	static struct topo_cpu cpus[16];
	static int idx[16], ccx_cpus[4][4], sock_cpus[2][8];
	static struct topo_ccx ccxs[4];
	static struct topo_socket socks[2];
	static struct topo t;
	for (int c = 0; c < 16; c++) {
		int core = c % 8, ccx = core / 2, sock = ccx / 2;
		cpus[c] = (struct topo_cpu){ .cpu = c, .online = true, .core = core, .ccx = ccx,
					     .socket = sock, .thread = c / 8 };
		idx[c] = c;
		ccx_cpus[ccx][ccxs[ccx].ncpus++] = c;
		sock_cpus[sock][socks[sock].ncpus++] = c;
	}
	for (int i = 0; i < 4; i++) {
		ccxs[i].id = i;
		ccxs[i].socket = i / 2;
		ccxs[i].cpus = ccx_cpus[i];
	}
	for (int i = 0; i < 2; i++) {
		socks[i].id = i;
		socks[i].cpus = sock_cpus[i];
	}
	t = (struct topo){ .ncpus = 16, .max_cpu = 16, .cpus = cpus, .cpu_index = idx,
			   .nccx = 4, .ccxs = ccxs, .nsockets = 2, .sockets = socks };
	return &t;
}

static const char *kept(const bool *b, int n, char *buf)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (b[i])
			k += sprintf(buf + k, "%s%d", k ? "," : "", i);
	buf[k] = 0;
	return buf;
}

START_TEST(test_filter)
{
	static const struct { int line; const char *text; int rc; const char *want; } t[] = {
		{ L, "", 0, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15" },
		{ L, "   ", 0, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15" },
		{ L, "0-3", 0, "0,1,2,3" },
		{ L, "1,15", 0, "1,15" },
		{ L, "ccx 1", 0, "2,3,10,11" },
		{ L, "CCX 0,3", 0, "0,1,6,7,8,9,14,15" },
		{ L, "ccx1", 0, "2,3,10,11" },
		{ L, "socket 1", 0, "4,5,6,7,12,13,14,15" },
		{ L, "ccx 4", -1, NULL },
		{ L, "16", -1, NULL },
		{ L, "abc", -1, NULL },
		{ L, "ccx", -1, NULL },
		/* Blanks around the list and its separators, as typed. */
		{ L, " 2 ", 0, "2" },
		{ L, "0, 4 - 5 ", 0, "0,4,5" },
		{ L, "socket 1 ", 0, "4,5,6,7,12,13,14,15" },
		{ L, "ccx  0 , 3", 0, "0,1,6,7,8,9,14,15" },
		{ L, "1 2", -1, NULL },
	};
	struct topo *topo = small_topo();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool cpus[16];
		char buf[128], *cause = NULL;
		int rc = format_parse_filter(t[i].text, topo, cpus, &cause);
		ck_assert_msg(rc == t[i].rc, "line %d: rc %d", t[i].line, rc);
		if (rc == 0)
			ck_assert_msg(strcmp(kept(cpus, 16, buf), t[i].want) == 0, "line %d: kept %s",
				      t[i].line, buf);
		else
			ck_assert_msg(cause && *cause, "line %d: no cause", t[i].line);
		if (rc < 0 && strncmp(t[i].text, "ccx ", 4) == 0)
			ck_assert_msg(strstr(cause, "CCX numbers 0-3"), "line %d: cause %s", t[i].line, cause);
		free(cause);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("layout");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_size);
	tcase_add_test(tc, test_zen5_160x50_boxes);
tcase_add_test(tc, test_short_table_panels_follow);
	tcase_add_test(tc, test_many_ccx_collapse);
	tcase_add_test(tc, test_power_place);
	tcase_add_test(tc, test_sizes_table_half);
	tcase_add_test(tc, test_minimum);
	tcase_add_test(tc, test_overlap);
	suite_add_tcase(s, tc);
	TCase *tf = tcase_create("fmt");
	tcase_add_test(tf, test_fmt_valid);
	tcase_add_test(tf, test_fmt_value);
	tcase_add_test(tf, test_fmt_si);
	tcase_add_test(tf, test_fmt_wrap);
	tcase_add_test(tf, test_fmt_legend);
	tcase_add_test(tf, test_headings);
	tcase_add_test(tf, test_fmt_level);
	tcase_add_test(tf, test_fmt_match);
	tcase_add_test(tf, test_filter);
	suite_add_tcase(s, tf);
	return check_run(s);
}
