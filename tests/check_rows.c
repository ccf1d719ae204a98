/* check_rows.c: the dashboard's columns and rows without a terminal
 * (ui/columns.c, ui/rows.c): each row's sort key is worked out into the
 * row, values sort busiest first with unknown figures last in either
 * direction, identity columns ascending, and a tasks view sorts its names
 * by text; a row's errors left for later are found when the screen reads
 * them (ui/figures.c). */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "evdef.h"
#include "sampler.h"
#include "source.h"
#include "snapshot.h"
#include "topo.h"
#include "ui_impl.h"
#include "util.h"

#define NCPU 8

static struct model *model;
static struct topo *topo;
static struct ui u;
static struct ui_config cfg;
static int ipc;

static void setup(void)
{
	model = fx_model("tests/fixtures/sampler/sampler-test");
	topo = fx_topo("1x2x2x2");
	memset(&u, 0, sizeof(u));
	u.cfg = &cfg;
	u.m = model;
	u.topo = topo;
	u.views = model->views;
	u.nviews = model->nviews;
	u.filter = xcalloc((size_t)topo->max_cpu + 1, sizeof(bool));
	for (int i = 0; i < topo->max_cpu; i++)
		u.filter[i] = true;
	u.rows_cap = NCPU;
	u.rows = xcalloc(NCPU, sizeof(*u.rows));
	ui_find_metrics(&u);
	ipc = model_find_metric(model, "ipc");
	ck_assert_int_ge(ipc, 0);
	/* CPU c's IPC: 1, 3, NaN, 2, 0.5, 3, 4, 0.25 */
	static const double v[NCPU] = { 1, 3, NAN, 2, 0.5, 3, 4, 0.25 };
	int nrows[SNAP_NSCOPES] = { NCPU, 4, 2, 1, 1 };
	struct snapshot *s = snapshot_new(model, nrows);
	s->metric_planned[ipc] = true;
	for (int k = 0; k < model->metrics[ipc].nevents; k++)
		s->event_planned[model->metrics[ipc].events[k]] = true;
	for (int c = 0; c < NCPU; c++) {
		struct snap_row *r = &s->rows[SNAP_CPU][c];
		r->id = r->cpu = c;
		r->mv[ipc] = v[c];
	}
	u.snap = u.snap_owned = s;
	ui_build_columns(&u);
}

static void teardown(void)
{
	snapshot_free(u.snap_owned);
	free(u.cols);
	free(u.rows);
	free(u.filter);
	topo_free(topo);
	model_free(model);
}

static int col_of(enum col_kind k, int idx)
{
	for (int i = 0; i < u.ncols; i++)
		if (u.cols[i].kind == k && u.cols[i].idx == idx)
			return i;
	ck_abort_msg("no such column");
	return -1;
}

static void expect_order(const int *cpus, int line)
{
	ck_assert_int_eq(u.nrows, NCPU);
	for (int i = 0; i < NCPU; i++)
		ck_assert_msg(u.rows[i].cpu == cpus[i], "line %d: row %d is CPU %d, not %d", line, i, u.rows[i].cpu,
			      cpus[i]);
}

START_TEST(test_sort_by_value)
{
	u.nav.sort_col = col_of(COL_METRIC, ipc);
	ui_build_rows(&u);
	/* Busiest first, ties by CPU, NaN last. */
	expect_order((const int[]){ 6, 1, 5, 3, 0, 4, 7, 2 }, __LINE__);
	ck_assert_int_eq(u.rows[0].key_dir, -1);
	ck_assert(u.rows[0].key == 4);
	/* R: ascending, NaN still last. */
	u.nav.sort_reverse = true;
	ui_build_rows(&u);
	expect_order((const int[]){ 7, 4, 0, 3, 1, 5, 6, 2 }, __LINE__);
}
END_TEST

START_TEST(test_sort_by_identity)
{
	u.nav.sort_col = col_of(COL_METRIC, ipc);
	ui_build_rows(&u);
	u.nav.sort_col = col_of(COL_CPU, 0);
	ui_build_rows(&u);
	expect_order((const int[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, __LINE__);
	u.nav.sort_reverse = true;
	ui_build_rows(&u);
	expect_order((const int[]){ 7, 6, 5, 4, 3, 2, 1, 0 }, __LINE__);
}
END_TEST

/* The column kinds in one table: what sorts which way, what is text. */
START_TEST(test_column_kinds)
{
	ck_assert(ui_col_info(COL_METRIC)->descending && ui_col_info(COL_METRIC)->figure);
	ck_assert(ui_col_info(COL_EVENT)->descending && ui_col_info(COL_EVENT)->figure);
	ck_assert(!ui_col_info(COL_CPU)->descending && !ui_col_info(COL_CPU)->left);
	ck_assert(ui_col_info(COL_COMM)->left && ui_col_info(COL_COMM)->by_name);
	ck_assert(ui_col_info(COL_WHERE)->left && !ui_col_info(COL_WHERE)->by_name);
	ck_assert(ui_col_info(COL_BAR)->bar);
	ck_assert_int_eq(ui_col_info(COL_CPU)->search, '=');
	ck_assert_int_eq(ui_col_info(COL_CGROUP)->search, '~');
	ck_assert_int_eq(ui_col_info(COL_METRIC)->search, 0);
	/* Every kind draws its cell and gives its key from the table. */
	for (int k = COL_CPU; k <= COL_HERE; k++)
		ck_assert(ui_col_info((enum col_kind)k)->cell && ui_col_info((enum col_kind)k)->key);
}
END_TEST

/* A cell's text and a row's key come from its kind's entry: the CPU
 * column shows the CPU number; the IPC column its figure, whose coverage
 * is given back (drawing notes it, the search ignores it). */
START_TEST(test_cells)
{
	u.nav.sort_col = col_of(COL_CPU, 0);
	ui_build_rows(&u);
	const struct ui_row *r3 = &u.rows[3];
	ck_assert_int_eq(r3->cpu, 3);
	char buf[64];
	int level;
	double cov;
	ck_assert_str_eq(draw_cell(&u, &u.cols[col_of(COL_CPU, 0)], r3, buf, sizeof(buf), &level, &cov), "3");
	ck_assert(isnan(cov));
	u.snap->rows[SNAP_CPU][3].mcov[ipc] = 0.5;
	const struct ui_col *ic = &u.cols[col_of(COL_METRIC, ipc)];
	draw_cell(&u, ic, r3, buf, sizeof(buf), &level, &cov);
	ck_assert_msg(strstr(buf, "2") != NULL, "IPC cell: %s", buf);
	ck_assert(cov == 0.5);
	ck_assert(ui_col_info(COL_METRIC)->key(&u, ic, r3) == 2);
}
END_TEST

static void expect_order_n(const struct ui_row *r, const int *ids, const int *depth, int n)
{
	for (int i = 0; i < n; i++)
		ck_assert_msg(r[i].cpu == ids[i] && r[i].depth == depth[i], "row %d is %d at depth %d, not %d at %d", i,
			      r[i].cpu, r[i].depth, ids[i], depth[i]);
}

/* A process or cgroup row of a tasks snapshot: its IPC, on CPU 0. */
static void task_row(struct snap_task *t, int pid, const char *comm, const char *cgroup, double v)
{
	t->pid = pid;
	t->comm = comm ? xstrdup(comm) : NULL;
	t->cgroup = xstrdup(cgroup);
	t->nprocs = 1;
	t->metric = xmalloc(sizeof(double) * (size_t)model->nmetrics);
	t->metric_rse = xmalloc(sizeof(double) * (size_t)model->nmetrics);
	for (int i = 0; i < model->nmetrics; i++)
		t->metric[i] = t->metric_rse[i] = NAN;
	t->metric[ipc] = v;
	t->ncpus = 1;
	t->cpus = xcalloc(1, sizeof(int));
	t->cpu_share = xcalloc(1, sizeof(double));
	t->cpu_share[0] = 1;
}

static void expect_tree(const int *ids, const int *depth, int n, int line)
{
	ck_assert_msg(u.nrows == n, "line %d: %d rows, not %d", line, u.nrows, n);
	for (int i = 0; i < n; i++)
		ck_assert_msg(u.rows[i].cpu == ids[i] && u.rows[i].depth == depth[i],
			      "line %d: row %d is %d at depth %d, not %d at %d", line, i, u.rows[i].cpu, u.rows[i].depth,
			      ids[i], depth[i]);
}

/* F5's tree (ui/task_tree.c): each cgroup with its child cgroups and its
 * processes beneath it, sorted by the sort column within each level (R
 * reverses each level), a cgroup shown while a process the filter keeps
 * is in it or below it. Cgroup rows are -2 - their place in the tree. */
START_TEST(test_task_tree)
{
	static struct view_col vc;
	static struct view_def tv = { .name = "tasks", .tasks = true, .ncols = 1, .cols = &vc };
	vc.metric = ipc;
	u.views = &tv;
	u.nviews = 1;
	u.nav.view = 0;
	u.task_tree = true;
	u.snap_owned->tasks_on = true;
	/* The tree by path, as tasks.c makes it: figures summed below. */
	static const char *const path[] = { "/", "/a", "/a/x", "/b" };
	static const double gv[] = { 11.5, 6, 4, 5 };
	u.snap_owned->ncgtree = 4;
	u.snap_owned->cgtree = xcalloc(4, sizeof(struct snap_task));
	for (int g = 0; g < 4; g++)
		task_row(&u.snap_owned->cgtree[g], -1, NULL, path[g], gv[g]);
	static const struct { int pid; const char *cg; double v; } p[] = {
		{ 1, "/a/x", 1 }, { 2, "/b", 5 }, { 3, "/a", 2 }, { 4, "/", 0.5 }, { 5, "/a/x", 3 },
	};
	u.snap_owned->ntasks = 5;
	u.snap_owned->tasks = xcalloc(5, sizeof(struct snap_task));
	for (int i = 0; i < 5; i++) {
		char comm[8];
		snprintf(comm, sizeof(comm), "p%d", p[i].pid);
		task_row(&u.snap_owned->tasks[i], p[i].pid, comm, p[i].cg, p[i].v);
	}
	ui_build_columns(&u);
	ck_assert_int_eq(u.cols[u.nav.sort_col].kind, COL_METRIC);
	ui_build_rows(&u);
	expect_tree((const int[]){ -2, -3, -4, 5, 1, 3, -5, 2, 4 }, (const int[]){ 0, 1, 2, 3, 3, 2, 1, 2, 1 }, 9,
		    __LINE__);
	/* The name column: indented, a cgroup by its last part and a '/'. */
	char buf[64];
	int level;
	double cov;
	const struct ui_col *name = &u.cols[col_of(COL_COMM, 0)];
	ck_assert_str_eq(draw_cell(&u, name, &u.rows[2], buf, sizeof(buf), &level, &cov), "    x/");
	ck_assert_str_eq(draw_cell(&u, name, &u.rows[0], buf, sizeof(buf), &level, &cov), "/");
	ck_assert_str_eq(draw_cell(&u, name, &u.rows[3], buf, sizeof(buf), &level, &cov), "      p5");
	ck_assert_str_eq(draw_cell(&u, &u.cols[col_of(COL_PID, 0)], &u.rows[1], buf, sizeof(buf), &level, &cov), "");
	/* R: ascending within each level. */
	u.nav.sort_reverse = true;
	ui_build_rows(&u);
	expect_tree((const int[]){ -2, 4, -5, 2, -3, 3, -4, 1, 5 }, (const int[]){ 0, 1, 1, 2, 1, 2, 2, 3, 3 }, 9,
		    __LINE__);
	/* Only p5 kept: the cgroups on its way, no others. */
	u.nav.sort_reverse = false;
	u.task_match = "p5";
	ui_build_rows(&u);
	expect_tree((const int[]){ -2, -3, -4, 5 }, (const int[]){ 0, 1, 2, 3 }, 4, __LINE__);
	u.task_match = NULL;
	/* F5 off: the processes alone, busiest first. */
	u.task_tree = false;
	ui_build_columns(&u);
	ui_build_rows(&u);
	ck_assert_int_eq(u.nrows, 5);
	ck_assert_int_eq(u.rows[0].cpu, 2);
	ck_assert_int_eq(u.rows[4].cpu, 4);
}
END_TEST

/* The tree order alone: parents first, children in the order given, and
 * parents that make a cycle lose no row. */
START_TEST(test_tree_order)
{
	struct ui_row r[5];
	for (int i = 0; i < 5; i++)
		r[i] = (struct ui_row){ .cpu = i };
	ui_tree_order(r, 5, (const int[]){ 2, -1, 1, 2, 0 });
	expect_order_n(r, (const int[]){ 1, 2, 0, 4, 3 }, (const int[]){ 0, 1, 2, 3, 2 }, 5);
	for (int i = 0; i < 4; i++)
		r[i] = (struct ui_row){ .cpu = i };
	ui_tree_order(r, 4, (const int[]){ 1, 0, -1, 2 });
	expect_order_n(r, (const int[]){ 2, 3, 0, 1 }, (const int[]){ 0, 1, 0, 0 }, 4);
	ck_assert_str_eq(ui_cgroup_leaf("/a/b.service"), "b.service");
	ck_assert_str_eq(ui_cgroup_leaf("/"), "/");
	ck_assert_str_eq(ui_cgroup_leaf("-"), "-");
}
END_TEST

/* The screen and the errors found on demand (figures.c): a row whose
 * errors the interval left for later gets them when the screen reads
 * them (from the snapshot's error source, the row itself unchanged), the
 * same as a sampler that finds every row's gives, and the rows a frame
 * read are those whose errors the next interval finds at once (a hint). */
START_TEST(test_errors_read_on_demand)
{
	char *cause = NULL;
	struct model *m = fx_model("amd-zen5");
	struct topo *t = fx_topo("1x2x4x2");
	int mi = model_find_metric(m, "ipc");
	ck_assert_int_ge(mi, 0);
	/* Every metric: rotated groups, so that figures have errors. */
	int *all = fx_all_metrics(m);
	struct sampler *sm[2];
	for (int k = 0; k < 2; k++) {
		struct sampler_config sc = fx_sampler_config(m, t, "seed=5", 1.0);
		sc.rotate_ms = 20;
		sc.nmetrics = m->nmetrics;
		sc.metrics = all;
		sc.shown_event_errors = true;
		sc.cost_budget = 1e9;
		sc.errors_on_demand = k == 1;
		for (int j = 0; j < SNAP_NSCOPES; j++)
			sc.errors_later[j] = k == 1;
		sm[k] = fx_sampler(&sc);
	}
	/* The screen has read CPU row 0 alone. */
	bool row0[16] = { true };
	struct derive_want want = { .rows = { [SNAP_CPU] = row0 }, .nrows = { [SNAP_CPU] = 16 } };
	sampler_want_errors(sm[1], &want);
	struct snapshot *a = sampler_step(sm[0], &cause);
	struct ui v;
	memset(&v, 0, sizeof(v));
	/* The screen's hint goes to the source, the live one on sm[1]. */
	v.src = source_live_new(sm[1], 1.0, false, NULL, NULL);
	v.snap = v.snap_owned = sampler_step(sm[1], &cause);
	ck_assert(a && v.snap);
	const struct snap_row *r0 = &v.snap->rows[SNAP_CPU][0], *r5 = &v.snap->rows[SNAP_CPU][5];
	ck_assert(!r0->errors_deferred);
	ck_assert(r5->errors_deferred);
	/* A frame reads CPU row 5's error: found then, as the other sampler's,
	 * and the snapshot stays as it was. */
	ui_errors_frame_begin(&v);
	double cov, rse;
	ui_metric(&v, r5, mi, &cov, &rse);
	ck_assert(r5->errors_deferred);
	double want_rse = snap_metric_rse(a, &a->rows[SNAP_CPU][5], mi);
	ck_assert_msg(rse > 0 && !memcmp(&rse, &want_rse, sizeof(double)), "%g vs %g", rse, want_rse);
	ui_errors_frame_end(&v);
	/* The next interval finds row 5's at once and leaves row 0's. */
	snapshot_free(v.snap_owned);
	v.snap = v.snap_owned = sampler_step(sm[1], &cause);
	ck_assert(v.snap);
	ck_assert(!v.snap->rows[SNAP_CPU][5].errors_deferred);
	ck_assert(v.snap->rows[SNAP_CPU][0].errors_deferred);
	ui_errors_done(&v);
	snapshot_free(v.snap_owned);
	snapshot_free(a);
	source_free(v.src);
	sampler_free(sm[0]);
	sampler_free(sm[1]);
	free(all);
	topo_free(t);
	model_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rows");
	TCase *tc = tcase_create("rows");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sort_by_value);
	tcase_add_test(tc, test_sort_by_identity);
	tcase_add_test(tc, test_column_kinds);
	tcase_add_test(tc, test_cells);
	tcase_add_test(tc, test_task_tree);
	tcase_add_test(tc, test_tree_order);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("errors on demand");
	tcase_add_test(te, test_errors_read_on_demand);
	tcase_set_timeout(te, 30);
	suite_add_tcase(s, te);
	return check_run(s);
}
