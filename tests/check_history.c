/* check_history.c: the dashboard's history of figures (ui/history.c)
 * driven with hand-made snapshots: it stays bounded and wraps, accounts
 * for its memory exactly and within its byte budget, keeps missing values
 * and pauses as gaps (never 0), follows rows by id when CPUs come and go,
 * survives a change of plan for the metrics that stay, keeps a change of
 * delay laid out by time, and gives min/avg/max; and the snapshot key's
 * file (ui/snapfile.c): a new name every time, never over an existing
 * file, in $PMCTOP_SNAPSHOT_DIR when set. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "history.h"
#include "snapfile.h"
#include "ui_impl.h"

/* A model of three metrics: "ipc" per thread, "l3_hit" per CCX, "util"
 * per thread. */
static struct metric_def metric_defs[] = {
	{ .name = (char *)"ipc", .label = (char *)"IPC", .unit = (char *)"insn/cyc", .scope = SCOPE_THREAD },
	{ .name = (char *)"l3_hit", .label = (char *)"L3 hit", .unit = (char *)"ratio", .scope = SCOPE_CCX },
	{ .name = (char *)"util", .label = (char *)"util", .unit = (char *)"%", .scope = SCOPE_THREAD },
};
static struct model model = { .name = (char *)"test-model", .nmetrics = 3, .metrics = metric_defs };
enum { M_IPC, M_L3, M_UTIL };

/* 2 sockets x 2 CCX x 2 cores x 2 threads, CPU ids 0..15 less those in
 * `off` (a bitmap of offline CPUs). Values: metric*1000 + scope*100 + id
 * + seq/1000 would not be exact in a float, so: seq*10 + id for IPC and
 * util at every scope, seq for l3_hit at CCX and wider; NaN elsewhere. */
static struct snapshot *make_snap(uint64_t seq, double t, double iv, unsigned planned, unsigned off)
{
	int nrows[SNAP_NSCOPES] = { 0, 0, 0, 0, 1 };
	for (int c = 0; c < 16; c++)
		nrows[SNAP_CPU] += !(off & (1u << c));
	nrows[SNAP_CORE] = 8;
	nrows[SNAP_CCX] = 4;
	nrows[SNAP_SOCKET] = 2;
	struct snapshot *s = snapshot_new(&model, nrows);
	s->seq = seq;
	s->time = t;
	s->measured_s = iv;
	for (int m = 0; m < 3; m++)
		s->metric_planned[m] = planned & (1u << m);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		int r = 0;
		for (int id = 0; r < nrows[sc]; id++) {
			if (sc == SNAP_CPU && (off & (1u << id)))
				continue;
			struct snap_row *row = &s->rows[sc][r++];
			row->id = id;
			if (planned & (1u << M_IPC))
				row->mv[M_IPC] = (double)seq * 10 + id;
			if (planned & (1u << M_UTIL))
				row->mv[M_UTIL] = (double)seq * 10 + id + 0.5;
			if ((planned & (1u << M_L3)) && sc >= SNAP_CCX)
				row->mv[M_L3] = (double)seq;
		}
	}
	return s;
}

static bool add(struct history *h, uint64_t seq, double t, double iv, unsigned planned, unsigned off)
{
	struct snapshot *s = make_snap(seq, t, iv, planned, off);
	bool kept = history_add(h, s);
	snapshot_free(s);
	return kept;
}

#define ALL 7u

/* A screen slower than the sampler takes several intervals at once: each
 * goes into the history, in order, and the latest is the one to show. It
 * took only the latest, and the graphs had a blank cell for each skipped
 * (e2e_terminal's history check failed that way on a loaded machine). */
START_TEST(test_every_interval_kept)
{
	struct ui u;
	memset(&u, 0, sizeof(u));
	snap_ring_init(&u.ring);
	history_init(&u.hist, 16, 1 << 20);
	for (uint64_t seq = 1; seq <= 3; seq++)
		ck_assert(snap_ring_push(&u.ring, make_snap(seq, 1000 + (double)seq, 1, ALL, 0)));
	struct snapshot *s = ui_pop_snapshots(&u);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, 3);
	ck_assert_ptr_null(ui_pop_snapshots(&u));
	/* The loop adds the one it shows; the two before it are there. */
	ck_assert_int_eq(history_count(&u.hist), 2);
	ui_history_add(&u, s);
	double v[3];
	ck_assert_int_eq(history_series(&u.hist, SNAP_CPU, 1, M_IPC, v, 3), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq(v[i], (double)(i + 1) * 10 + 1);
	snapshot_free(s);
	snap_ring_done(&u.ring);
	history_done(&u.hist);
	free(u.message);
}
END_TEST

START_TEST(test_bounded_wraps)
{
	struct history h;
	history_init(&h, 5, HISTORY_BUDGET);
	for (int i = 1; i <= 12; i++) {
		ck_assert(add(&h, (uint64_t)i, 100 + i, 1, ALL, 0));
		ck_assert_int_eq(history_count(&h), i < 5 ? i : 5);
	}
	double v[8];
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 3, M_IPC, v, 8), 5);
	for (int k = 0; k < 3; k++)
		ck_assert_msg(isnan(v[k]), "slot %d before the oldest interval held is %g", k, v[k]);
	for (int k = 3; k < 8; k++)
		ck_assert_double_eq(v[k], (8 + k - 3) * 10 + 3);
	/* A window narrower than what is held: the newest intervals. */
	ck_assert_int_eq(history_series(&h, SNAP_SYSTEM, 0, M_IPC, v, 2), 2);
	ck_assert_double_eq(v[0], 110);
	ck_assert_double_eq(v[1], 120);
	ck_assert_double_eq_tol(history_span(&h), 5, 1e-9);
	ck_assert_double_eq(history_interval(&h), 1);
	history_done(&h);
}
END_TEST

START_TEST(test_memory_accounting)
{
	struct history h;
	history_init(&h, 5, HISTORY_BUDGET);
	size_t empty = history_bytes(&h);
	ck_assert_uint_eq(empty, 5 * sizeof(void *));
	add(&h, 1, 1, 1, ALL, 0);
	size_t one = history_bytes(&h);
	add(&h, 2, 2, 1, ALL, 0);
	size_t per = history_bytes(&h) - one;
	/* Halves kept: ipc and util at 16+8 CPU and core rows (one each)
	 * and 4+2+1 CCX, socket and system rows (two each), l3_hit at the
	 * 4+2+1. */
	size_t vals = 2 * (24 + 2 * 7) + 2 * 7;
	/* 16 bits a half, plus the interval's header and a power of two
	 * per block (7: two metrics at 5 scopes less the l3_hit's CPU and
	 * core, which have no value). */
	ck_assert_uint_ge(per, vals * sizeof(uint16_t));
	ck_assert_uint_le(per, vals * sizeof(uint16_t) + 160);
	/* The shape of the rows is shared: held once. */
	ck_assert_uint_ge(one - empty - per, 31 * sizeof(int));
	for (int i = 3; i <= 12; i++)
		add(&h, (uint64_t)i, i, 1, ALL, 0);
	ck_assert_uint_eq(history_bytes(&h), one + 4 * per);
	/* A metric not planned costs nothing. */
	add(&h, 13, 13, 1, 1u << M_IPC, 0);
	add(&h, 14, 14, 1, 1u << M_IPC, 0);
	ck_assert_uint_le(history_bytes(&h), one + 4 * per - 2 * ((24 + 2 * 7) + 2 * 7) * sizeof(uint16_t));
	history_clear(&h);
	ck_assert_int_eq(history_count(&h), 0);
	ck_assert_uint_eq(history_bytes(&h), empty);
	history_done(&h);
}
END_TEST

START_TEST(test_budget)
{
	struct history h;
	history_init(&h, 100, HISTORY_BUDGET);
	add(&h, 1, 1, 1, ALL, 0);
	size_t one = history_bytes(&h);
	add(&h, 2, 2, 1, ALL, 0);
	size_t per = history_bytes(&h) - one;
	history_done(&h);

	/* Room for three intervals: never more, never over the budget. */
	history_init(&h, 100, one + 2 * per + per / 2);
	for (int i = 1; i <= 20; i++) {
		ck_assert(add(&h, (uint64_t)i, i, 1, ALL, 0));
		ck_assert_uint_le(history_bytes(&h), h.budget);
	}
	ck_assert_int_eq(history_count(&h), 3);
	double v[3];
	history_series(&h, SNAP_CPU, 0, M_IPC, v, 3);
	ck_assert_double_eq(v[2], 200);
	history_done(&h);

	/* A budget smaller than one interval keeps none, and says so. */
	history_init(&h, 100, one / 2);
	ck_assert(!add(&h, 1, 1, 1, ALL, 0));
	ck_assert_int_eq(history_count(&h), 0);
	ck_assert_uint_eq(h.dropped, 1);
	ck_assert_uint_eq(history_bytes(&h), 100 * sizeof(void *));
	history_done(&h);
}
END_TEST

START_TEST(test_nan_gaps)
{
	struct history h;
	history_init(&h, 50, HISTORY_BUDGET);
	add(&h, 1, 1, 1, ALL, 0);
	/* Interval 2: IPC not planned (a view without it). */
	add(&h, 2, 2, 1, 1u << M_UTIL, 0);
	/* Interval 3: planned, but NaN in CPU 5 (its event was not counted). */
	struct snapshot *s = make_snap(3, 3, 1, ALL, 0);
	s->rows[SNAP_CPU][5].mv[M_IPC] = NAN;
	history_add(&h, s);
	snapshot_free(s);
	/* A pause of two intervals, then interval 6. */
	add(&h, 4, 6, 1, ALL, 0);
	double v[7];
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 5, M_IPC, v, 7), 2);
	/* Slots: t=0 (nothing), 1, 2 (not planned), 3 (NaN), 4, 5 (paused), 6. */
	ck_assert(isnan(v[0]));
	ck_assert_double_eq(v[1], 15);
	ck_assert(isnan(v[2]));
	ck_assert(isnan(v[3]));
	ck_assert(isnan(v[4]) && isnan(v[5]));
	ck_assert_double_eq(v[6], 45);
	/* Never a made-up 0 anywhere. */
	for (int i = 0; i < 7; i++)
		ck_assert(v[i] != 0);
	/* The CCX metric has nothing in a CPU row: all gaps. */
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 5, M_L3, v, 7), 0);
	ck_assert_int_eq(history_series(&h, SNAP_CCX, 1, M_L3, v, 7), 3);
	/* Rows and scopes that do not exist. */
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 99, M_IPC, v, 7), 0);
	ck_assert_int_eq(history_series(&h, SNAP_NSCOPES, 0, M_IPC, v, 7), 0);
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 0, 17, v, 7), 0);
	history_done(&h);
}
END_TEST

START_TEST(test_clear)
{
	struct history h;
	history_init(&h, 10, HISTORY_BUDGET);
	for (int i = 1; i <= 4; i++)
		add(&h, (uint64_t)i, i, 1, ALL, 0);
	history_clear(&h);
	double v[4];
	ck_assert_int_eq(history_count(&h), 0);
	ck_assert_int_eq(history_series(&h, SNAP_SYSTEM, 0, M_IPC, v, 4), 0);
	ck_assert(isnan(history_interval(&h)));
	ck_assert_double_eq(history_span(&h), 0);
	/* A replay that jumped back in time can go on from there. */
	add(&h, 1, 1, 1, ALL, 0);
	ck_assert_int_eq(history_series(&h, SNAP_SYSTEM, 0, M_IPC, v, 4), 1);
	ck_assert_double_eq(v[3], 10);
	history_done(&h);
	history_done(&h);   /* twice is harmless */
}
END_TEST

/* A change of delay keeps the history (+ and - wiped every graph): the
 * series lays the intervals out by time at the newest length, an older
 * interval twice as long fills two slots, two half as long share one as
 * their mean; the mean of the stats is over time. Time that steps back
 * (a replay moved back) still starts again. */
START_TEST(test_interval_change)
{
	struct history h;
	history_init(&h, 10, HISTORY_BUDGET);
	add(&h, 1, 1, 1, ALL, 0);
	add(&h, 2, 2.004, 1.004, ALL, 0);     /* jitter of real counters */
	add(&h, 3, 2.998, 0.994, ALL, 0);
	ck_assert_int_eq(history_count(&h), 3);
	/* -d 0.5: the 1 s intervals stay, two slots each. */
	add(&h, 4, 3.5, 0.5, ALL, 0);
	add(&h, 5, 4, 0.5, ALL, 0);
	ck_assert_int_eq(history_count(&h), 5);
	ck_assert_double_eq(history_interval(&h), 0.5);
	double v[8];
	/* The system row's IPC is 10 * seq. */
	ck_assert_int_eq(history_series(&h, SNAP_SYSTEM, 0, M_IPC, v, 8), 8);
	double want[8] = { 10, 10, 20, 20, 30, 30, 40, 50 };
	for (int i = 0; i < 8; i++)
		ck_assert_double_eq_tol(v[i], want[i], 1e-6);
	/* Time-weighted mean: (10+20+30) * 1 s + (40+50) * 0.5 s over 4 s. */
	struct history_stats st;
	history_stats(&h, SNAP_SYSTEM, 0, M_IPC, &st);
	ck_assert_int_eq(st.n, 5);
	ck_assert_double_eq_tol(st.avg, (60 + 45) / 3.998 * 1.0, 0.2);
	/* -d 1 again: the two 0.5 s intervals share one slot, their mean. */
	add(&h, 6, 5, 1, ALL, 0);
	ck_assert_int_eq(history_count(&h), 6);
	ck_assert_int_eq(history_series(&h, SNAP_SYSTEM, 0, M_IPC, v, 5), 5);
	double want2[5] = { 10, 20, 30, 45, 60 };
	for (int i = 0; i < 5; i++)
		ck_assert_double_eq_tol(v[i], want2[i], 1e-6);
	/* Time that steps back (a replay moved back) starts again. */
	add(&h, 7, 1, 0.5, ALL, 0);
	ck_assert_int_eq(history_count(&h), 1);
	history_done(&h);
}
END_TEST

/* Adds an interval that lasted measured_s where interval_s was asked for. */
static bool add_interval(struct history *h, uint64_t seq, double t, double measured_s, double interval_s)
{
	struct snapshot *s = make_snap(seq, t, measured_s, ALL, 0);
	s->interval_s = interval_s;
	bool kept = history_add(h, s);
	snapshot_free(s);
	return kept;
}

/* Where the snapshots say what delay was asked for, that decides the
 * layout: an interval that ran 50 % late on a loaded machine is one slot
 * of the graph, not two (the time it woke late is the gap before it). */
START_TEST(test_interval_asked_for)
{
	struct history h;
	history_init(&h, 10, HISTORY_BUDGET);
	ck_assert(add_interval(&h, 1, 10.3, 0.3, 0.3));
	ck_assert(add_interval(&h, 2, 10.75, 0.45, 0.3));    /* woke 150 ms late */
	ck_assert(add_interval(&h, 3, 11.05, 0.3, 0.3));
	ck_assert_int_eq(history_count(&h), 3);
	ck_assert_double_eq(history_interval(&h), 0.3);
	double v[4];
	ck_assert_int_eq(history_series(&h, SNAP_SYSTEM, 0, M_IPC, v, 4), 3);
	ck_assert_double_eq_tol(v[0], 10, 1e-6);
	ck_assert(isnan(v[1]));                  /* the 150 ms it woke late */
	ck_assert_double_eq_tol(v[2], 20, 1e-6);
	ck_assert_double_eq_tol(v[3], 30, 1e-6);
	/* + from 0.3 s to 0.35 s: kept, a new scale. */
	ck_assert(add_interval(&h, 4, 11.4, 0.35, 0.35));
	ck_assert_int_eq(history_count(&h), 4);
	ck_assert_double_eq(history_interval(&h), 0.35);
	history_done(&h);
}
END_TEST

START_TEST(test_rows_by_id)
{
	struct history h;
	history_init(&h, 10, HISTORY_BUDGET);
	add(&h, 1, 1, 1, ALL, 0);
	add(&h, 2, 2, 1, ALL, 1u << 3);       /* CPU 3 offline: the rows after it move up */
	add(&h, 3, 3, 1, ALL, 1u << 3);
	add(&h, 4, 4, 1, ALL, 0);
	double v[4];
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 3, M_IPC, v, 4), 2);
	ck_assert_double_eq(v[0], 13);
	ck_assert(isnan(v[1]) && isnan(v[2]));
	ck_assert_double_eq(v[3], 43);
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 4, M_IPC, v, 4), 4);
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq(v[i], (i + 1) * 10 + 4);
	history_done(&h);
}
END_TEST

START_TEST(test_plan_change)
{
	/* A view switch: util stays measured, IPC leaves and comes back. */
	struct history h;
	history_init(&h, 10, HISTORY_BUDGET);
	add(&h, 1, 1, 1, ALL, 0);
	add(&h, 2, 2, 1, 1u << M_UTIL, 0);
	add(&h, 3, 3, 1, ALL, 0);
	double v[3];
	ck_assert_int_eq(history_series(&h, SNAP_CORE, 2, M_UTIL, v, 3), 3);
	ck_assert_double_eq(v[0], 12.5);
	ck_assert_double_eq(v[1], 22.5);
	ck_assert_double_eq(v[2], 32.5);
	ck_assert_int_eq(history_series(&h, SNAP_CORE, 2, M_IPC, v, 3), 2);
	ck_assert(isnan(v[1]));
	history_done(&h);
}
END_TEST

/* A value comes back within 2^-11 of itself (the 16 bits of an IEEE
 * half, scaled by a power of two per metric and scope), however large or
 * small, of either sign; one far under its block's largest, within 2^-25
 * of that largest; NaN stays a gap and an infinity stays one. */
START_TEST(test_precision)
{
	static const double vals[16] = {
		3.2e9, 123456.789, 3.14159265, -2.71828, 1e-3, 0.1, 7.0 / 3, 1e-7,
		-3.1e9, 65504.5, 1.0 / 3, 2047.75, 0, 42, 1e-300, 999.999,
	};
	struct history h;
	history_init(&h, 4, HISTORY_BUDGET);
	struct snapshot *s = make_snap(1, 1, 1, ALL, 0);
	for (int r = 0; r < 16; r++)
		s->rows[SNAP_CPU][r].mv[M_UTIL] = vals[r];
	s->rows[SNAP_CPU][3].mv[M_IPC] = NAN;
	s->rows[SNAP_CPU][4].mv[M_IPC] = INFINITY;
	/* A block of small values alone keeps them as finely. */
	for (int r = 0; r < 8; r++)
		s->rows[SNAP_CORE][r].mv[M_UTIL] = 1e-6 * (r + 1) / 3;
	/* The few rows of the wider scopes keep two halves: a range the
	 * header prints to four decimals (67.72..67.75 %) stays exact. */
	static const double sys_vals[3] = { 0.677234, 0.677541, 3.14159265 };
	for (int r = 0; r < 3; r++)
		s->rows[r == 2 ? SNAP_SYSTEM : SNAP_SOCKET][r == 2 ? 0 : r].mv[M_UTIL] = sys_vals[r];
	ck_assert(history_add(&h, s));
	snapshot_free(s);
	double v;
	for (int r = 0; r < 16; r++) {
		ck_assert_int_eq(history_series(&h, SNAP_CPU, r, M_UTIL, &v, 1), 1);
		double err = fabs(v - vals[r]);
		ck_assert_msg(err <= fabs(vals[r]) * 0x1p-11 || err <= 3.2e9 * 0x1p-25,
			      "%.17g kept as %.17g", vals[r], v);
	}
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 3, M_IPC, &v, 1), 0);
	ck_assert(isnan(v));
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 4, M_IPC, &v, 1), 1);
	ck_assert(isinf(v) && v > 0);
	ck_assert_int_eq(history_series(&h, SNAP_CPU, 5, M_IPC, &v, 1), 1);
	ck_assert_double_eq(v, 15);
	for (int r = 0; r < 8; r++) {
		double want = 1e-6 * (r + 1) / 3;
		ck_assert_int_eq(history_series(&h, SNAP_CORE, r, M_UTIL, &v, 1), 1);
		ck_assert_double_eq_tol(v, want, want * 0x1p-11);
	}
	for (int r = 0; r < 3; r++) {
		int sc = r == 2 ? SNAP_SYSTEM : SNAP_SOCKET;
		ck_assert_int_eq(history_series(&h, sc, r == 2 ? 0 : r, M_UTIL, &v, 1), 1);
		ck_assert_msg(fabs(v - sys_vals[r]) <= sys_vals[r] * 0x1p-21, "%.17g kept as %.17g", sys_vals[r], v);
	}
	history_done(&h);
}
END_TEST

START_TEST(test_stats)
{
	struct history h;
	struct history_stats st;
	history_init(&h, 10, HISTORY_BUDGET);
	history_stats(&h, SNAP_SYSTEM, 0, M_IPC, &st);
	ck_assert_int_eq(st.n, 0);
	ck_assert(isnan(st.min) && isnan(st.avg) && isnan(st.max));
	add(&h, 1, 1, 1, ALL, 0);
	add(&h, 2, 2, 1, 1u << M_UTIL, 0);    /* a gap: not counted as 0 */
	add(&h, 3, 3, 1, ALL, 0);
	add(&h, 5, 4, 1, ALL, 0);
	history_stats(&h, SNAP_SOCKET, 1, M_IPC, &st);
	ck_assert_int_eq(st.n, 3);
	ck_assert_double_eq(st.min, 11);
	ck_assert_double_eq(st.max, 51);
	ck_assert_double_eq_tol(st.avg, (11.0 + 31 + 51) / 3, 1e-9);
	history_stats(&h, SNAP_CPU, 0, M_L3, &st);
	ck_assert_int_eq(st.n, 0);
	history_done(&h);
}
END_TEST

/* --- the snapshot key's file --- */

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/pmctop-check-snap-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert(d != NULL);
	return strdup(d);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void rm_dir(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_snapfile_names)
{
	char *dir = tmpdir();
	struct snapshot *s = make_snap(7, 1700000000.25, 1, (1u << M_IPC) | (1u << M_L3), 0);
	char *p1 = NULL, *p2 = NULL, *p3 = NULL, *cause = NULL;
	ck_assert_int_eq(snapfile_write(s, dir, NULL, 0, &p1, &cause), 0);
	ck_assert_int_eq(snapfile_write(s, dir, NULL, 0, &p2, &cause), 0);
	/* Something else where the third name would go: a link to a file
	 * that must not be touched. */
	char target[600], link[600];
	snprintf(target, sizeof(target), "%s/keep", dir);
	snprintf(link, sizeof(link), "%.*s-2.json", (int)(strlen(p1) - 5), p1);
	FILE *f = fopen(target, "w");
	fputs("precious\n", f);
	fclose(f);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(snapfile_write(s, dir, NULL, 0, &p3, &cause), 0);

	struct tm tm;
	time_t t = 1700000000;
	char stamp[32], want[600];
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(want, sizeof(want), "%s/pmctop-snapshot-%s.json", dir, stamp);
	ck_assert_str_eq(p1, want);
	snprintf(want, sizeof(want), "%s/pmctop-snapshot-%s-1.json", dir, stamp);
	ck_assert_str_eq(p2, want);
	snprintf(want, sizeof(want), "%s/pmctop-snapshot-%s-3.json", dir, stamp);
	ck_assert_str_eq(p3, want);
	ck_assert_str_eq(slurp(target), "precious\n");

	/* One JSON object of the planned metrics (the batch writer's). */
	const char *j = slurp(p1);
	ck_assert_msg(!strncmp(j, "{\"time\":1700000000.250,", 23), "starts %.40s", j);
	ck_assert(j[strlen(j) - 1] == '\n' && j[strlen(j) - 2] == '}');
	ck_assert(strstr(j, "\"model\":\"test-model\""));
	ck_assert(strstr(j, "\"ipc\":"));
	ck_assert(strstr(j, "\"l3_hit\":"));
	ck_assert(!strstr(j, "\"util\":"));
	ck_assert(strstr(j, "\"cpus\":[{\"cpu\":"));
	struct stat sb;
	ck_assert_int_eq(stat(p1, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0644 & ~(mode_t)umask(022));
	free(p1);
	free(p2);
	free(p3);
	snapshot_free(s);
	rm_dir(dir);
	free(dir);
}
END_TEST

START_TEST(test_snapfile_env_and_errors)
{
	char *dir = tmpdir();
	struct snapshot *s = make_snap(1, 1700000000, 1, ALL, 0);
	char *p = NULL, *cause = NULL;
	setenv("PMCTOP_SNAPSHOT_DIR", dir, 1);
	ck_assert_int_eq(snapfile_write(s, NULL, NULL, 0, &p, &cause), 0);
	ck_assert_msg(!strncmp(p, dir, strlen(dir)) && p[strlen(dir)] == '/', "written to %s", p);
	free(p);
	/* A directory that does not exist: the error names it, no file. */
	setenv("PMCTOP_SNAPSHOT_DIR", "/nonexistent/pmctop-dir", 1);
	ck_assert_int_eq(snapfile_write(s, NULL, NULL, 0, &p, &cause), -1);
	ck_assert(p == NULL);
	ck_assert_msg(cause && strstr(cause, "/nonexistent/pmctop-dir/pmctop-snapshot-"), "cause %s", cause);
	free(cause);
	cause = NULL;
	unsetenv("PMCTOP_SNAPSHOT_DIR");
	/* Before the first figures. */
	ck_assert_int_eq(snapfile_write(NULL, dir, NULL, 0, &p, &cause), -1);
	ck_assert(cause != NULL);
	free(cause);
	snapshot_free(s);
	rm_dir(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history");
	TCase *tc = tcase_create("ring");
	tcase_add_test(tc, test_bounded_wraps);
	tcase_add_test(tc, test_memory_accounting);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_nan_gaps);
	tcase_add_test(tc, test_clear);
	tcase_add_test(tc, test_interval_change);
	tcase_add_test(tc, test_interval_asked_for);
	tcase_add_test(tc, test_rows_by_id);
	tcase_add_test(tc, test_plan_change);
	tcase_add_test(tc, test_stats);
	tcase_add_test(tc, test_precision);
	tcase_add_test(tc, test_every_interval_kept);
	suite_add_tcase(s, tc);
	TCase *tf = tcase_create("snapfile");
	tcase_add_test(tf, test_snapfile_names);
	tcase_add_test(tf, test_snapfile_env_and_errors);
	suite_add_tcase(s, tf);
	return check_run(s);
}
