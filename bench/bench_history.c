/* bench_history.c: how much memory the dashboard's history (ui/history.c)
 * holds, and what keeping it costs per interval, at growing machine sizes
 * on the simulated PMU.
 *
 * For each shape it plans the metrics the dashboard asks for at start
 * (the fixed columns and panels and the first view: "view"), and every
 * metric of the model (the detail pane's 'a': "all"), takes a few real
 * snapshots from the sampler, and hands the history N intervals made of
 * them (their time and sequence moved on, so the history sees a steady
 * run of 1 s intervals; its size does not depend on the values). It
 * prints the bytes the history accounts for, the heap the process really
 * gained (glibc's mallinfo2, where there is one), how many intervals were
 * kept, and the time of one history_add and of one 60-cell series.
 *
 * Usage: bench_history [-n INTERVALS] [-m MODEL] [-E EVENTS_DIR] [SHAPE...]
 * SHAPE is SOCKETSxCCXxCORESxTHREADS; the default runs 1x2x8x2 (32 CPUs),
 * 2x12x8x2 (384 CPUs) and 2x16x16x2 (1024 CPUs), for 600 intervals. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

#include "backend.h"
#include "shape_args.h"
#include "evdef.h"
#include "history.h"
#include "sampler.h"
#include "topo.h"
#include "util.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

/* Snapshots taken from the sampler and cycled through. */
#define NSNAPS 4

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t heap_used(void)
{
#ifdef HAVE_MALLINFO2
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
#else
	return 0;
#endif
}

static void add_name(const struct model *m, int *list, int *n, const char *name)
{
	int k = model_find_metric(m, name);
	for (int i = 0; k >= 0 && i < *n; i++)
		if (list[i] == k)
			return;
	if (k >= 0)
		list[(*n)++] = k;
}

/* What ui_request() asks for at start: the fixed figures, the first
 * view's columns and bar. */
static int view_metrics(const struct model *m, int *list)
{
	static const char *const fixed[] = { "util", "ghz", "ipc", "l3_access_per_s", "l3_access_all",
					     "l3_hit_rate", "l3_miss_latency_ns", "mem_read_bw", "mem_write_bw",
					     "mem_bus_util" };
	int n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		add_name(m, list, &n, fixed[i]);
	if (m->nviews > 0) {
		const struct view_def *v = &m->views[0];
		for (int i = 0; i < v->ncols; i++)
			add_name(m, list, &n, m->metrics[v->cols[i].metric].name);
		for (int i = 0; i < v->nbar; i++)
			add_name(m, list, &n, m->metrics[v->bar[i]].name);
	}
	return n;
}

static int run(struct model *m, const int shape[4], int nint, bool all)
{
	struct topo *t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
	if (!t)
		return 1;
	int *list = xmalloc(sizeof(int) * (size_t)(m->nmetrics + 1));
	int nm = 0;
	if (all)
		for (int i = 0; i < m->nmetrics; i++)
			list[nm++] = i;
	else
		nm = view_metrics(m, list);
	struct sampler_config cfg = {
		.model = m, .topo = t, .ops = &backend_sim, .backend_arg = "",
		.interval_s = 1.0, .nmetrics = nm, .metrics = list,
	};
	char *cause = NULL;
	struct sampler *s = sampler_new(&cfg, &cause);
	free(list);
	if (!s) {
		fprintf(stderr, "bench_history: %s\n", cause ? cause : "?");
		free(cause);
		topo_free(t);
		return 1;
	}
	struct snapshot *snaps[NSNAPS];
	for (int i = 0; i < NSNAPS; i++) {
		snaps[i] = sampler_step(s, &cause);
		if (!snaps[i]) {
			fprintf(stderr, "bench_history: %s\n", cause ? cause : "?");
			return 1;
		}
	}
	int planned = 0, rows = 0;
	for (int i = 0; i < snaps[0]->nmetrics; i++)
		planned += snaps[0]->metric_planned[i];
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		rows += snaps[0]->nrows[sc];
	size_t snap_bytes = snapshot_row_bytes(snaps[0]);

	size_t heap0 = heap_used();
	struct history h;
	history_init(&h, HISTORY_LEN, HISTORY_BUDGET);
	double t0 = mono_s(), base = snaps[NSNAPS - 1]->time;
	for (int i = 0; i < nint; i++) {
		struct snapshot *sn = snaps[i % NSNAPS];
		sn->seq = (uint64_t)i + 1;
		sn->time = base + i;
		sn->measured_s = 1.0;
		history_add(&h, sn);
	}
	double add_us = (mono_s() - t0) / nint * 1e6;
	size_t heap = heap_used() - heap0;
	int ipc = model_find_metric(m, "ipc");
	double v[60];
	int reps = 2000;
	t0 = mono_s();
	for (int i = 0; i < reps; i++)
		history_series(&h, SNAP_CPU, i % t->ncpus, ipc, v, 60);
	double series_us = (mono_s() - t0) / reps * 1e6;

	/* 0: no mallinfo2, or a sanitizer's allocator that it cannot see. */
	char heap_t[32] = "-";
	if (heap > 0)
		snprintf(heap_t, sizeof(heap_t), "%.2f MiB", (double)heap / (1 << 20));
	printf("  %-4s %5d CPUs %5d rows %3d metrics  snapshot %6.2f MiB  history %7.1f KiB/interval"
	       "  %4d of %d intervals held  %6.2f MiB (heap %s)  add %6.0f us  series %4.1f us\n",
	       all ? "all" : "view", topo_online_count(t), rows, planned, (double)snap_bytes / (1 << 20),
	       h.n ? (double)(history_bytes(&h) - sizeof(void *) * HISTORY_LEN) / h.n / 1024 : 0.0,
	       history_count(&h), nint, (double)history_bytes(&h) / (1 << 20), heap_t, add_us, series_us);
	fflush(stdout);
	history_done(&h);
	for (int i = 0; i < NSNAPS; i++)
		snapshot_free(snaps[i]);
	sampler_free(s);
	topo_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_args a;
	int rc = bench_args_parse(argc, argv, "bench_history", HISTORY_LEN, false, &a);
	if (rc >= 0)
		return rc;
	printf("model %s, %d intervals of 1 s; budget %d intervals, %zu MiB\n", a.model->name, a.n, HISTORY_LEN,
	       HISTORY_BUDGET >> 20);
	rc = 0;
	for (int i = 0; i < a.nshapes; i++) {
		printf("%s\n", a.names[i]);
		for (int all = 0; all < 2; all++)
			if (run(a.model, a.shapes[i], a.n, all) != 0)
				rc = 1;
	}
	bench_args_free(&a);
	return rc;
}
