/* check_panels.c: the dashboard's panels as ops tables (ui/panel.h,
 * ui/panels.c) on the simulated Zen 5: what each panel says it reads and
 * pins is what the request asks the source for (the CCX panel's L3 and
 * the memory panel's figures pinned, the shared IPC, clock and
 * utilisation read but not pinned), and the layout step settles the
 * navigation before any panel draws: the selection, the table's page and
 * the detail pane's metric and scroll are set by it, and drawing the same
 * frame again changes none of them. curses writes to /dev/null. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "evdef.h"
#include "sampler.h"
#include "settings.h"
#include "source.h"
#include "topo.h"
#include "panel.h"
#include "util.h"

static struct model *model;
static struct topo *topo;
static struct sampler *smp;
static struct source *src;
static struct ui u;
static struct ui_config cfg;
static SCREEN *scr;
static FILE *devout, *devin;

static void setup(void)
{
	char *cause = NULL;
	model = model_load_by_name(TOP_SRCDIR "/events", "amd-zen5", &cause);
	ck_assert_msg(model != NULL, "model: %s", cause ? cause : "?");
	topo = topo_synthetic(1, 2, 8, 2);
	ck_assert_ptr_nonnull(topo);
	struct sampler_config sc = { .model = model, .topo = topo, .ops = &backend_sim, .backend_arg = "",
				     .interval_s = 1.0, .rotate_ms = 50 };
	smp = sampler_new(&sc, &cause);
	ck_assert_msg(smp != NULL, "sampler: %s", cause ? cause : "?");
	src = source_live_new(smp, 1.0, false, NULL, NULL);
	cfg = (struct ui_config){ .source = src, .model = model, .topo = topo, .rotate_ms = 50, .simulated = true,
				  .host = "test", .cpu_name = "simulated" };
	memset(&u, 0, sizeof(u));
	ck_assert_int_eq(ui_init(&u, &cfg, &cause), 0);
	devout = fopen("/dev/null", "w");
	devin = fopen("/dev/null", "r");
	scr = newterm("xterm-256color", devout, devin);
	ck_assert_msg(scr != NULL, "no xterm-256color terminal description");
	resizeterm(40, 120);
	ui_colors_apply(&u, COLORS_DEFAULT);
	struct snapshot *s = sampler_step(smp, &cause);
	ck_assert_msg(s != NULL, "step: %s", cause ? cause : "?");
	u.snap = u.snap_owned = s;   /* ui_done frees it */
	ui_history_add(&u, s);
	ui_build_columns(&u);
	ui_build_rows(&u);
}

static void teardown(void)
{
	endwin();
	delscreen(scr);
	fclose(devout);
	fclose(devin);
	ui_done(&u);
	source_free(src);
	sampler_free(smp);
	topo_free(topo);
	model_free(model);
}

static bool has(const int *list, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

static int metric(const char *name)
{
	int i = model_find_metric(model, name);
	ck_assert_msg(i >= 0, "no metric %s", name);
	return i;
}

START_TEST(test_needs)
{
	size_t room = (size_t)u.npanels * ((size_t)model->nmetrics + 8);
	int *ms = xmalloc(room * sizeof(int)), *pins = xmalloc(room * sizeof(int));
	int n = 0, np = 0;
	ui_panels_needs(&u, ms, &n, pins, &np);
	/* Read and pinned: the CCX panel's L3 figures, the memory panel's. */
	const char *const pinned[] = { "l3_access_all", "l3_miss_latency_ns", "mem_read_bw", "mem_write_bw" };
	for (size_t i = 0; i < ARRAY_SIZE(pinned); i++) {
		ck_assert_msg(has(ms, n, metric(pinned[i])), "%s not read", pinned[i]);
		ck_assert_msg(has(pins, np, metric(pinned[i])), "%s not pinned", pinned[i]);
	}
	/* Shared (struct ui), read by the table and the CCX boxes; pinned
	 * only where a view says so. */
	const int shared[] = { u.m_util, u.m_ghz, u.m_ipc };
	for (size_t i = 0; i < ARRAY_SIZE(shared); i++) {
		ck_assert_int_ge(shared[i], 0);
		ck_assert(has(ms, n, shared[i]));
		ck_assert(!has(pins, np, shared[i]));
	}
	/* The power panel asks for nothing itself: its view's columns do. */
	ck_assert(!has(ms, n, metric("pkg_watts")));
	/* Each panel is in the list once, drawn, the header last (it reads
	 * the coverage the others noted). */
	ck_assert_ptr_eq(u.panels[u.npanels - 1].ops, &panel_header_ops);
	for (int i = 0; i < u.npanels; i++) {
		ck_assert_ptr_nonnull(u.panels[i].ops->draw);
		ck_assert_ptr_eq(ui_panel(&u, u.panels[i].ops), &u.panels[i]);
	}
	free(ms);
	free(pins);
}
END_TEST

START_TEST(test_layout_settles)
{
	/* A selection past the rows, and the detail pane on a metric it does
	 * not list, scrolled past its end. */
	ui_detail_open(&u);
	ck_assert(u.detail.open);
	u.nav.sel = 10000;
	u.detail.metric = -7;
	u.detail.top = 10000;
	draw_screen(&u, &u.drawn);
	ck_assert(!u.lay.too_small);
	ck_assert_int_eq(u.nav.page, u.lay.table_data_rows);
	ck_assert_int_eq(u.nav.sel, u.nrows - 1);
	int n;
	int *list = ui_detail_metrics(&u, &n);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(u.detail.metric, list[0]);
	ck_assert_int_ge(u.detail.page, 1);
	ck_assert_int_eq(u.detail.top, 0);
	free(list);
	/* The same frame again: the layout finds nothing to change, and the
	 * drawing changes nothing but the screen. */
	struct ui_nav nav;
	struct detail d;
	struct layout lay;
	memcpy(&nav, &u.nav, sizeof(nav));
	memcpy(&d, &u.detail, sizeof(d));
	memcpy(&lay, &u.lay, sizeof(lay));
	draw_screen(&u, &u.drawn);
	ck_assert(!memcmp(&nav, &u.nav, sizeof(nav)));
	ck_assert(!memcmp(&d, &u.detail, sizeof(d)));
	ck_assert(!memcmp(&lay, &u.lay, sizeof(lay)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("panels");
	TCase *tc = tcase_create("panels");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_needs);
	tcase_add_test(tc, test_layout_settles);
	suite_add_tcase(s, tc);
	return check_run(s);
}
