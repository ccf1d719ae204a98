/* check_snapshot.c: snapshot allocation (NaN-filled rows) and the SPSC ring,
 * including a two-thread run where the producer must never block and the
 * consumer must see every accepted snapshot in order. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "evdef.h"
#include "snapshot.h"

static struct model fake_model = { .name = "fake", .nmetrics = 3, .nevents = 5 };

static struct snapshot *mk(uint64_t seq)
{
	int nrows[SNAP_NSCOPES] = { 4, 2, 1, 1, 1 };
	struct snapshot *s = snapshot_new(&fake_model, nrows);
	s->seq = seq;
	return s;
}

START_TEST(test_new_nan)
{
	int nrows[SNAP_NSCOPES] = { 4, 2, 1, 1, 1 };
	struct snapshot *s = snapshot_new(&fake_model, nrows);
	ck_assert_int_eq(s->nmetrics, 3);
	ck_assert_int_eq(s->nevents, 5);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		ck_assert_int_eq(s->nrows[sc], nrows[sc]);
		for (int r = 0; r < nrows[sc]; r++) {
			const struct snap_row *row = &s->rows[sc][r];
			ck_assert_int_eq(row->cpu, -1);
			for (int i = 0; i < 3; i++) {
				ck_assert(isnan(row->mv[i]));
				ck_assert(isnan(row->mcov[i]));
				ck_assert(!s->metric_planned[i]);
			}
			for (int i = 0; i < 5; i++) {
				ck_assert(isnan(row->ev[i]));
				ck_assert(isnan(row->ecov[i]));
			}
		}
	}
	for (int r = 0; r < 4; r++)
		s->rows[SNAP_CPU][r].cpu = 10 + r;
	ck_assert_ptr_eq(snapshot_cpu(s, 12), &s->rows[SNAP_CPU][2]);
	ck_assert_ptr_null(snapshot_cpu(s, 3));
	/* A row's scope and index from its place in the snapshot. */
	int idx = -1;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		for (int r = 0; r < nrows[sc]; r++) {
			ck_assert_int_eq(snapshot_row_scope(s, &s->rows[sc][r], &idx), sc);
			ck_assert_int_eq(idx, r);
		}
	struct snap_row stray = { 0 };
	ck_assert_int_eq(snapshot_row_scope(s, &stray, &idx), -1);
	snapshot_free(s);
	snapshot_free(NULL);
}
END_TEST

/* Columns only for what is marked: the rows are that much smaller, each
 * figure lands in its own column, and what has none reads NaN (never a
 * neighbour's figure); a copy made like it keeps the same columns. */
START_TEST(test_columns)
{
	int nrows[SNAP_NSCOPES] = { 4, 2, 1, 1, 1 };
	const bool mcols[3] = { false, true, false }, ecols[5] = { true, false, false, true, false };
	struct snapshot *full = snapshot_new(&fake_model, nrows);
	struct snapshot *s = snapshot_new_cols(&fake_model, nrows, mcols, ecols, false);
	ck_assert_int_eq(s->nmcols, 1);
	ck_assert_int_eq(s->necols, 2);
	ck_assert_int_eq(snap_mcol(s, 0), -1);
	ck_assert_int_eq(snap_mcol(s, 1), 0);
	ck_assert_int_eq(snap_ecol(s, 3), 1);
	ck_assert_int_eq(snap_ecol(s, 5), -1);
	ck_assert_int_eq(snap_mcol(s, -1), -1);
	ck_assert_uint_lt(snapshot_row_bytes(s), snapshot_row_bytes(full));
	for (int r = 0; r < 4; r++) {
		struct snap_row *row = &s->rows[SNAP_CPU][r];
		row->mv[snap_mcol(s, 1)] = 10 + r;
		row->mcov[snap_mcol(s, 1)] = 0.5;
		row->ev[snap_ecol(s, 0)] = 100 + r;
		row->erse[snap_ecol(s, 3)] = 0.01 * r;
	}
	const struct snap_row *row = &s->rows[SNAP_CPU][2];
	ck_assert(snap_metric(s, row, 1) == 12);
	ck_assert(snap_metric_cov(s, row, 1) == 0.5);
	ck_assert(isnan(snap_metric(s, row, 0)) && isnan(snap_metric(s, row, 2)) && isnan(snap_metric(s, row, 3)));
	ck_assert(isnan(snap_metric_rse(s, row, 1)));
	ck_assert(snap_event(s, row, 0) == 102);
	ck_assert(snap_event_rse(s, row, 3) == 0.02);
	for (int e = 0; e < 5; e++)
		if (e != 0)
			ck_assert(isnan(snap_event(s, row, e)));
	int one[SNAP_NSCOPES] = { 0, 0, 0, 0, 1 };
	struct snapshot *c = snapshot_new_like(s, one);
	ck_assert_int_eq(c->nmcols, 1);
	ck_assert_int_eq(c->necols, 2);
	ck_assert_int_eq(snap_ecol(c, 3), 1);
	ck_assert_int_eq(c->nrows[SNAP_CPU], 0);
	snapshot_free(c);
	snapshot_free(s);
	snapshot_free(full);
}
END_TEST

/* Column maps of a model of many events, few marked, as an interval's
 * snapshot has them: marks alone, in runs, at both ends of a block of
 * eight and in the tail after the last whole block; each marked item's
 * column is the count of marks before it, every other item's -1, and
 * the rows are laid out for that many columns. */
START_TEST(test_columns_wide)
{
	enum { NM = 45, NE = 1003 };
	struct model wide = { .name = "wide", .nmetrics = NM, .nevents = NE };
	static bool mcols[NM], ecols[NE];
	int nrows[SNAP_NSCOPES] = { 2, 1, 1, 1, 1 };
	unsigned x = 12345;
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < NM; i++)
			mcols[i] = (x = x * 1103515245u + 12345u) >> 28 == 0;
		for (int e = 0; e < NE; e++)
			ecols[e] = round == 0 ? e % 8 == 0 || e % 8 == 7 || e >= NE - 3
				 : ((x = x * 1103515245u + 12345u) >> (round % 2 ? 29 : 25)) == 0;
		struct snapshot *s = snapshot_new_cols(&wide, nrows, mcols, ecols, false);
		int k = 0;
		for (int i = 0; i < NM; i++)
			ck_assert_int_eq(snap_mcol(s, i), mcols[i] ? k++ : -1);
		ck_assert_int_eq(s->nmcols, k);
		k = 0;
		for (int e = 0; e < NE; e++)
			ck_assert_int_eq(snap_ecol(s, e), ecols[e] ? k++ : -1);
		ck_assert_int_eq(s->necols, k);
		/* The rows were laid out for as many columns as there are. */
		ck_assert_int_eq(s->rows[SNAP_CPU][1].mv - s->rows[SNAP_CPU][0].mv, 3 * s->nmcols + 3 * s->necols);
		ck_assert_ptr_eq(s->rows[SNAP_CPU][0].erse + s->necols, s->rows[SNAP_CPU][1].mv);
		snapshot_free(s);
	}
}
END_TEST

/* A snapshot made after one of the same size was freed (whose block is
 * kept for it) starts as a fresh one does: every figure NaN, the masks
 * false, the rows' ids and places new, nothing of the freed one's fields
 * (offline CPUs, notice, tasks) left; and the same after one of another
 * size. */
START_TEST(test_reuse_fresh)
{
	int nrows[SNAP_NSCOPES] = { 4, 2, 1, 1, 1 };
	for (int round = 0; round < 3; round++) {
		struct snapshot *old = snapshot_new(&fake_model, nrows);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < nrows[sc]; r++) {
				struct snap_row *row = &old->rows[sc][r];
				row->cpu = row->core = row->ccx = row->socket = row->ncpus = 7;
				row->errors_deferred = true;
				for (int i = 0; i < 3 * 3 + 3 * 5; i++)
					row->mv[i] = 42;
			}
		for (int i = 0; i < 3; i++)
			old->metric_planned[i] = true;
		for (int e = 0; e < 5; e++)
			old->event_planned[e] = true;
		old->seq = 9;
		old->quick = true;
		old->noffline = 1;
		old->offline = malloc(sizeof(int));
		old->offline[0] = 3;
		snapshot_free(old);
		/* The second round asks for a larger one, the third again. */
		if (round == 1)
			nrows[SNAP_CPU] = 8;
		struct snapshot *s = snapshot_new(&fake_model, nrows);
		ck_assert_uint_eq(s->seq, 0);
		ck_assert(!s->quick);
		ck_assert_int_eq(s->noffline, 0);
		ck_assert_ptr_null(s->offline);
		ck_assert(isnan(s->measured_s));
		for (int i = 0; i < 3; i++)
			ck_assert(!s->metric_planned[i]);
		for (int e = 0; e < 5; e++)
			ck_assert(!s->event_planned[e]);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < nrows[sc]; r++) {
				const struct snap_row *row = &s->rows[sc][r];
				ck_assert_int_eq(row->id, r);
				ck_assert_int_eq(row->cpu, -1);
				ck_assert_int_eq(row->socket, -1);
				ck_assert_int_eq(row->ncpus, 0);
				ck_assert(!row->errors_deferred);
				for (int i = 0; i < 3 * 3 + 3 * 5; i++)
					ck_assert(isnan(row->mv[i]));
			}
		snapshot_free(s);
	}
}
END_TEST

START_TEST(test_ring_single)
{
	struct snap_ring r;
	snap_ring_init(&r);
	ck_assert_ptr_null(snap_ring_pop(&r));
	ck_assert_ptr_null(snap_ring_pop_latest(&r));
	for (int i = 0; i < SNAP_RING_SIZE; i++)
		ck_assert(snap_ring_push(&r, mk((uint64_t)i)));
	/* Full: the push is refused (and the snapshot freed), never blocking. */
	ck_assert(!snap_ring_push(&r, mk(99)));
	ck_assert_uint_eq(atomic_load(&r.dropped), 1);
	struct snapshot *s = snap_ring_pop(&r);
	ck_assert_uint_eq(s->seq, 0);
	snapshot_free(s);
	s = snap_ring_pop_latest(&r);
	ck_assert_uint_eq(s->seq, SNAP_RING_SIZE - 1);
	snapshot_free(s);
	ck_assert_ptr_null(snap_ring_pop(&r));
	ck_assert(snap_ring_push(&r, mk(100)));
	snap_ring_done(&r);
	ck_assert_ptr_null(snap_ring_pop(&r));
}
END_TEST

#define NPUSH 20000
struct prod_arg { struct snap_ring *r; unsigned accepted; };

static void *producer(void *p)
{
	struct prod_arg *a = p;
	for (uint64_t i = 1; i <= NPUSH; i++)
		if (snap_ring_push(a->r, mk(i)))
			a->accepted++;
	/* Sentinel: retried until accepted so the consumer knows we ended. */
	while (!snap_ring_push(a->r, mk(UINT64_MAX)))
		;
	return NULL;
}

START_TEST(test_ring_threads)
{
	struct snap_ring r;
	snap_ring_init(&r);
	struct prod_arg a = { &r, 0 };
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, producer, &a), 0);
	uint64_t last = 0;
	unsigned got = 0;
	for (;;) {
		struct snapshot *s = snap_ring_pop(&r);
		if (!s)
			continue;
		uint64_t seq = s->seq;
		snapshot_free(s);
		if (seq == UINT64_MAX)
			break;
		/* Order is preserved and nothing is seen twice. */
		ck_assert_uint_gt(seq, last);
		last = seq;
		got++;
	}
	pthread_join(th, NULL);
	ck_assert_uint_eq(got, a.accepted);
	/* Every refused push was counted as dropped (the sentinel's retries
	 * add to that count too). */
	ck_assert_uint_ge(atomic_load(&r.dropped), NPUSH - a.accepted);
	snap_ring_done(&r);
}
END_TEST

static Suite *snapshot_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_new_nan);
	tcase_add_test(tc, test_columns);
	tcase_add_test(tc, test_columns_wide);
	tcase_add_test(tc, test_reuse_fresh);
	tcase_add_test(tc, test_ring_single);
	tcase_add_test(tc, test_ring_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(snapshot_suite());
}
