/* check_spark.c: sparklines and history graphs as text (ui/spark.c):
 * scaling, equal and missing values, the ASCII fallback, clipping to a
 * width and to a buffer; and the detail pane's pure part (ui/detail.c):
 * its keys, metric order, reasons for a '-', and geometry at every
 * terminal size. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detail.h"
#include "keys.h"
#include "spark.h"

#define B1 "\u2581"
#define B2 "\u2582"
#define B3 "\u2583"
#define B4 "\u2584"
#define B5 "\u2585"
#define B6 "\u2586"
#define B7 "\u2587"
#define B8 "\u2588"

START_TEST(test_scaling)
{
	double v[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	char buf[128];
	double lo, hi;
	ck_assert(spark_range(v, 8, &lo, &hi));
	ck_assert_double_eq(lo, 0);
	ck_assert_double_eq(hi, 7);
	ck_assert_int_eq(spark_line(buf, sizeof(buf), v, 8, 8, lo, hi, true), 8);
	ck_assert_str_eq(buf, B1 B2 B3 B4 B5 B6 B7 B8);
	ck_assert_int_eq(spark_line(buf, sizeof(buf), v, 8, 8, lo, hi, false), 8);
	ck_assert_str_eq(buf, "_.-:=+*#");
	/* The scale is the series': 100..107 draws like 0..7. */
	double w[] = { 100, 107, 103.5 };
	spark_range(w, 3, &lo, &hi);
	spark_line(buf, sizeof(buf), w, 3, 3, lo, hi, true);
	ck_assert_str_eq(buf, B1 B8 B5);
	/* Values outside a given scale are clamped, not wrapped. */
	spark_line(buf, sizeof(buf), w, 3, 3, 101, 106, false);
	ck_assert_str_eq(buf, "_#=");
	/* Negative values. */
	double n[] = { -2, -1, 0 };
	spark_range(n, 3, &lo, &hi);
	spark_line(buf, sizeof(buf), n, 3, 3, lo, hi, false);
	ck_assert_str_eq(buf, "_=#");
}
END_TEST

START_TEST(test_equal_and_missing)
{
	char buf[128];
	double lo, hi;
	double eq[] = { 5, 5, 5 };
	ck_assert(spark_range(eq, 3, &lo, &hi));
	ck_assert_double_eq(lo, hi);
	spark_line(buf, sizeof(buf), eq, 3, 3, lo, hi, true);
	ck_assert_str_eq(buf, B4 B4 B4);
	/* All missing: no scale, and every cell blank. */
	double nan3[] = { NAN, NAN, NAN };
	ck_assert(!spark_range(nan3, 3, &lo, &hi));
	ck_assert(isnan(lo) && isnan(hi));
	ck_assert_int_eq(spark_line(buf, sizeof(buf), nan3, 3, 3, lo, hi, true), 3);
	ck_assert_str_eq(buf, "   ");
	/* A gap is blank and only a gap is: the lowest value has a mark. */
	double gap[] = { 1, NAN, 2, INFINITY, 1 };
	spark_range(gap, 5, &lo, &hi);
	ck_assert_double_eq(hi, 2);
	spark_line(buf, sizeof(buf), gap, 5, 5, lo, hi, false);
	ck_assert_str_eq(buf, "_ # _");
	spark_line(buf, sizeof(buf), gap, 5, 5, lo, hi, true);
	ck_assert_str_eq(buf, B1 " " B8 " " B1);
}
END_TEST

START_TEST(test_clipping)
{
	double v[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	char buf[64];
	/* Narrower than the series: the newest values. */
	ck_assert_int_eq(spark_line(buf, sizeof(buf), v, 10, 4, 0, 9, false), 4);
	ck_assert_str_eq(buf, "++*#");
	/* Wider: blank on the left (no data that far back). */
	ck_assert_int_eq(spark_line(buf, sizeof(buf), v, 2, 5, 0, 1, false), 5);
	ck_assert_str_eq(buf, "   _#");
	/* A buffer too small: whole glyphs only, NUL-terminated. */
	ck_assert_int_eq(spark_line(buf, 8, v, 10, 10, 0, 9, true), 2);
	ck_assert_uint_eq(strlen(buf), 6);
	ck_assert_int_eq(spark_line(buf, 1, v, 10, 10, 0, 9, true), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(spark_line(buf, sizeof(buf), v, 10, 0, 0, 9, true), 0);
	ck_assert_int_eq(spark_line(buf, sizeof(buf), v, 0, 3, 0, 9, false), 3);
	ck_assert_str_eq(buf, "   ");
}
END_TEST

START_TEST(test_graph_rows)
{
	/* Two rows: 16 eighths from the lowest (1) to the highest (16); the
	 * middle value is 9 eighths, one into the top row. */
	double v[] = { 0, 10, 5, NAN };
	char top[64], bot[64];
	spark_graph_row(top, sizeof(top), v, 4, 4, 0, 10, 2, 0, true);
	spark_graph_row(bot, sizeof(bot), v, 4, 4, 0, 10, 2, 1, true);
	ck_assert_str_eq(top, " " B8 B1 " ");
	ck_assert_str_eq(bot, B1 B8 B8 " ");
	spark_graph_row(top, sizeof(top), v, 4, 4, 0, 10, 2, 0, false);
	ck_assert_str_eq(top, " #_ ");
	/* Out-of-range rows draw nothing. */
	ck_assert_int_eq(spark_graph_row(top, sizeof(top), v, 4, 4, 0, 10, 2, 2, true), 0);
	ck_assert_int_eq(spark_graph_row(top, sizeof(top), v, 4, 4, 0, 10, 0, 0, true), 0);
	/* Equal values stand at mid height of the whole graph. */
	double eq[] = { 3, 3 };
	spark_graph_row(top, sizeof(top), eq, 2, 2, 3, 3, 2, 0, false);
	spark_graph_row(bot, sizeof(bot), eq, 2, 2, 3, 3, 2, 1, false);
	ck_assert_str_eq(top, "  ");
	ck_assert_str_eq(bot, "##");
}
END_TEST

START_TEST(test_scale_text)
{
	char buf[64];
	spark_scale_text(buf, sizeof(buf), 1, 2.5, "%.2f", NULL);
	ck_assert_str_eq(buf, "1.00..2.50");
	spark_scale_text(buf, sizeof(buf), 0.25, 0.5, NULL, "ratio");
	ck_assert_str_eq(buf, "25.0..50.0");
	spark_scale_text(buf, sizeof(buf), 1.5e9, 2e9, NULL, "/s");
	ck_assert_str_eq(buf, "1.50G..2.00G");
	spark_scale_text(buf, sizeof(buf), NAN, NAN, NULL, NULL);
	ck_assert_str_eq(buf, "no data");
	/* Two bounds never read alike when they differ ("68..68" beside a
	 * graph that moved); equal ones stay as they are. */
	spark_scale_text(buf, sizeof(buf), 67.6, 68.4, "%.0f", "%");
	ck_assert_str_eq(buf, "67.6..68.4");
	spark_scale_text(buf, sizeof(buf), 0.6812, 0.6814, "pct", "ratio");
	ck_assert_str_eq(buf, "68.12..68.14");
	spark_scale_text(buf, sizeof(buf), 68, 68, "%.0f", "%");
	ck_assert_str_eq(buf, "68..68");
}
END_TEST

START_TEST(test_locale)
{
	ck_assert(setlocale(LC_CTYPE, "C"));
	ck_assert(!spark_utf8_locale());
	/* C.UTF-8 is missing on some systems; skip that half there. */
	if (setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "en_US.UTF-8"))
		ck_assert(spark_utf8_locale());
	setlocale(LC_CTYPE, "C");
}
END_TEST

/* --- the detail pane --- */

static struct metric_def defs[] = {
	{ .name = (char *)"ipc", .scope = SCOPE_THREAD },
	{ .name = (char *)"l3_hit", .scope = SCOPE_CCX },
	{ .name = (char *)"mem_bw", .scope = SCOPE_SOCKET },
	{ .name = (char *)"branch", .scope = SCOPE_THREAD },
	{ .name = (char *)"util", .scope = SCOPE_THREAD },
};
static struct model model = { .name = (char *)"m", .nmetrics = 5, .metrics = defs };

/* Planned: ipc, l3_hit, util; ipc is NaN in CPU 1. */
static struct snapshot *snap(void)
{
	int nrows[SNAP_NSCOPES] = { 4, 2, 1, 1, 1 };
	struct snapshot *s = snapshot_new(&model, nrows);
	s->metric_planned[0] = s->metric_planned[1] = s->metric_planned[4] = true;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int r = 0; r < nrows[sc]; r++) {
			s->rows[sc][r].id = r;
			s->rows[sc][r].mv[0] = sc == SNAP_CPU && r == 1 ? NAN : 1.5;
			s->rows[sc][r].mv[4] = 50;
			if (sc >= SNAP_CCX)
				s->rows[sc][r].mv[1] = 0.5;
		}
	return s;
}

/* The Linux console's fonts (and a VT100's) lack the block elements:
 * there the graphs are ASCII whatever the locale; a terminal emulator's
 * TERM (xterm, tmux, VTE's) keeps them. */
START_TEST(test_term_blocks)
{
	ck_assert(!spark_term_blocks("linux"));
	ck_assert(!spark_term_blocks("linux-16color"));
	ck_assert(!spark_term_blocks("vt100"));
	ck_assert(!spark_term_blocks("vt220"));
	ck_assert(!spark_term_blocks("dumb"));
	ck_assert(spark_term_blocks("xterm-256color"));
	ck_assert(spark_term_blocks("tmux-256color"));
	ck_assert(spark_term_blocks("vte-256color"));
	ck_assert(spark_term_blocks(NULL));
}
END_TEST

START_TEST(test_reasons_and_order)
{
	struct snapshot *s = snap();
	ck_assert(detail_missing_reason(&model, s, SNAP_CPU, 0, 0) == NULL);
	ck_assert(strstr(detail_missing_reason(&model, s, SNAP_CPU, 1, 0), "no value"));
	ck_assert(strstr(detail_missing_reason(&model, s, SNAP_CPU, 0, 1), "per CCX"));
	ck_assert(detail_missing_reason(&model, s, SNAP_CCX, 0, 1) == NULL);
	ck_assert(strstr(detail_missing_reason(&model, s, SNAP_CCX, 0, 2), "per socket"));
	ck_assert(strstr(detail_missing_reason(&model, s, SNAP_SOCKET, 0, 2), "not measured in this view"));
	ck_assert(strstr(detail_missing_reason(&model, s, SNAP_CPU, 0, 3), "not measured in this view"));
	ck_assert(strstr(detail_missing_reason(&model, s, SNAP_CPU, 9, 0), "no figures"));
	ck_assert(strstr(detail_missing_reason(&model, NULL, SNAP_CPU, 0, 0), "no figures yet"));
	ck_assert(detail_missing_reason(&model, s, SNAP_CPU, 0, 7) != NULL);

	int list[5];
	/* CPU 1: util has a value; ipc is planned without one; then the rest. */
	ck_assert_int_eq(detail_order(&model, s, SNAP_CPU, 1, list), 5);
	int want1[] = { 4, 0, 1, 2, 3 };
	ck_assert(!memcmp(list, want1, sizeof(want1)));
	ck_assert_int_eq(detail_order(&model, s, SNAP_CCX, 0, list), 5);
	int want2[] = { 0, 1, 4, 2, 3 };
	ck_assert(!memcmp(list, want2, sizeof(want2)));
	snapshot_free(s);
}
END_TEST

START_TEST(test_keys)
{
	struct detail d;
	memset(&d, 0, sizeof(d));
	int list[] = { 4, 0, 1, 2, 3 };
	/* Closed: every key is the dashboard's. */
	ck_assert_int_eq(detail_key(&d, UK_DOWN, list, 5), DK_PASS);
	int ids[SNAP_NSCOPES] = { 5, 2, -1, 0, 99 };
	detail_open(&d, SNAP_CPU, ids, 0);
	ck_assert(d.open);
	ck_assert_int_eq(d.ids[SNAP_SYSTEM], 0);
	d.page = 2;
	ck_assert_int_eq(detail_key(&d, UK_DOWN, list, 5), DK_DONE);
	ck_assert_int_eq(d.metric, 1);
	ck_assert_int_eq(detail_key(&d, UK_DOWN, list, 5), DK_DONE);
	ck_assert_int_eq(d.metric, 2);
	ck_assert_int_eq(d.top, 2);            /* kept on the page */
	detail_key(&d, UK_END, list, 5);
	ck_assert_int_eq(d.metric, 3);
	detail_key(&d, UK_DOWN, list, 5);
	ck_assert_int_eq(d.metric, 3);         /* stops at the end */
	detail_key(&d, UK_HOME, list, 5);
	ck_assert_int_eq(d.metric, 4);
	ck_assert_int_eq(d.top, 0);
	detail_key(&d, UK_UP, list, 5);
	ck_assert_int_eq(d.metric, 4);
	detail_key(&d, UK_PGDN, list, 5);
	ck_assert_int_eq(d.metric, 1);
	/* Right widens, skipping the CCX this row does not have. */
	detail_key(&d, UK_RIGHT, list, 5);
	ck_assert_int_eq(d.scope, SNAP_CORE);
	detail_key(&d, UK_RIGHT, list, 5);
	ck_assert_int_eq(d.scope, SNAP_SOCKET);
	detail_key(&d, UK_RIGHT, list, 5);
	detail_key(&d, UK_RIGHT, list, 5);
	ck_assert_int_eq(d.scope, SNAP_SYSTEM);
	detail_key(&d, UK_LEFT, list, 5);
	detail_key(&d, UK_LEFT, list, 5);
	detail_key(&d, UK_LEFT, list, 5);
	detail_key(&d, UK_LEFT, list, 5);
	ck_assert_int_eq(d.scope, SNAP_CPU);
	/* Keys of the dashboard pass through. */
	ck_assert_int_eq(detail_key(&d, 'w', list, 5), DK_PASS);
	ck_assert_int_eq(detail_key(&d, ' ', list, 5), DK_PASS);
	/* 'a' asks for every metric; closing asks again for the view's. */
	ck_assert_int_eq(detail_key(&d, 'a', list, 5), DK_DONE | DK_REQUEST);
	ck_assert(d.measure_all);
	ck_assert_int_eq(detail_key(&d, UK_ESC, list, 5), DK_DONE | DK_CLOSED | DK_REQUEST);
	ck_assert(!d.open && !d.measure_all);
	static const int closers[] = { UK_ENTER, 'q', UK_ESC };
	for (size_t i = 0; i < 3; i++) {
		detail_open(&d, SNAP_CORE, ids, 3);
		ck_assert_int_eq(detail_key(&d, closers[i], list, 5), DK_DONE | DK_CLOSED);
		ck_assert(!d.open);
	}
	/* An empty list is harmless. */
	detail_open(&d, SNAP_CPU, ids, -1);
	ck_assert_int_eq(detail_key(&d, UK_DOWN, list, 0), DK_DONE);
	ck_assert_int_eq(d.metric, -1);
}
END_TEST

static bool inside(const struct rect *r, const struct rect *a)
{
	if (r->h == 0 || r->w == 0)
		return true;
	return r->h > 0 && r->w > 0 && r->y >= a->y && r->x >= a->x && r->y + r->h <= a->y + a->h &&
	       r->x + r->w <= a->x + a->w;
}

START_TEST(test_geometry)
{
	/* The pane's area is the terminal less header (2 or 3 lines), a
	 * notice of up to 3 and the footer, at every size the layout draws. */
	for (int rows = LAYOUT_MIN_ROWS; rows <= 100; rows++)
		for (int cols = LAYOUT_MIN_COLS; cols <= 300; cols += 7)
			for (int notice = 0; notice <= 3; notice++) {
				int top = (rows >= 20 ? 3 : 2) + notice;
				struct rect area = { top, 0, rows - 1 - top, cols };
				struct detail_geom g;
				detail_geometry(&area, &g);
				struct rect inner = { area.y + 1, area.x + 1, area.h - 2, area.w - 2 };
				const struct rect *parts[] = { &g.title, &g.graph, &g.stats, &g.head, &g.list };
				ck_assert(inside(&g.box, &area));
				for (int i = 0; i < 5; i++) {
					ck_assert_msg(inside(parts[i], &inner), "%dx%d notice %d: part %d outside",
						      cols, rows, notice, i);
					for (int j = i + 1; j < 5; j++)
						ck_assert(!rect_overlap(parts[i], parts[j]));
				}
				ck_assert_msg(g.graph.h >= 1 && g.graph.h <= 8, "%dx%d: graph %d lines", cols, rows, g.graph.h);
				ck_assert_msg(g.list.h >= 1, "%dx%d notice %d: no list line", cols, rows, notice);
			}
	/* Degenerate areas give nothing, or what fits. */
	struct detail_geom g;
	struct rect none = { 5, 0, 0, 80 };
	detail_geometry(&none, &g);
	ck_assert_int_eq(g.box.h, 0);
	struct rect tiny = { 0, 0, 4, 3 };
	detail_geometry(&tiny, &g);
	ck_assert(inside(&g.title, &tiny) && inside(&g.graph, &tiny) && inside(&g.list, &tiny));
	ck_assert_int_eq(g.title.h + g.graph.h + g.stats.h + g.head.h + g.list.h, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spark");
	TCase *tc = tcase_create("spark");
	tcase_add_test(tc, test_scaling);
	tcase_add_test(tc, test_equal_and_missing);
	tcase_add_test(tc, test_clipping);
	tcase_add_test(tc, test_graph_rows);
	tcase_add_test(tc, test_scale_text);
	tcase_add_test(tc, test_locale);
	tcase_add_test(tc, test_term_blocks);
	suite_add_tcase(s, tc);
	TCase *td = tcase_create("detail");
	tcase_set_timeout(td, 30);
	tcase_add_test(td, test_reasons_and_order);
	tcase_add_test(td, test_keys);
	tcase_add_test(td, test_geometry);
	suite_add_tcase(s, td);
	return check_run(s);
}
