/* bench_frame.c: what drawing one frame of the dashboard costs, per
 * interval, at growing machine sizes on the simulated PMU: the rows and
 * columns built from a new snapshot (rows.c, columns.c) and the frame
 * drawn (draw.c and the panels), curses writing to /dev/null on a
 * 200x50 xterm-256color screen, the default view as the dashboard opens
 * it (ui_init). Thread CPU time, mean of the intervals after the first;
 * the sampler's own work is not in it (bench_sampler measures that).
 *
 * Usage: bench_frame [-n INTERVALS] [-m MODEL] [-E EVENTS_DIR] [-g VIEW] [SHAPE...]
 * (-g: another view, e.g. power, whose panel the default view lacks)
 * SHAPE is SOCKETSxCCXxCORESxTHREADS; the default runs 1x2x8x2 (32 CPUs),
 * 2x12x8x2 (384 CPUs) and 2x16x16x2 (1024 CPUs). */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "shape_args.h"
#include "evdef.h"
#include "sampler.h"
#include "settings.h"
#include "topo.h"
#include "ui_impl.h"
#include "util.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static double thread_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *bench_view;

static int run_shape(struct model *m, const int shape[4], int n)
{
	struct topo *t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
	if (!t) {
		fprintf(stderr, "bench_frame: bad shape\n");
		return 1;
	}
	struct sampler_config sc = { .model = m, .topo = t, .ops = &backend_sim, .backend_arg = "",
				     .interval_s = 1.0, .rotate_ms = 50 };
	char *cause = NULL;
	struct sampler *s = sampler_new(&sc, &cause);
	if (!s) {
		fprintf(stderr, "bench_frame: %s\n", cause ? cause : "?");
		return 1;
	}
	struct source *src = source_live_new(s, 1.0, false, NULL, NULL);
	struct ui_config c = { .source = src, .model = m, .topo = t, .rotate_ms = 50,
			       .simulated = true, .host = "bench", .cpu_name = "simulated",
			       .view = bench_view, .view_given = bench_view != NULL };
	struct ui u;
	memset(&u, 0, sizeof(u));
	if (ui_init(&u, &c, &cause) < 0) {
		fprintf(stderr, "bench_frame: %s\n", cause ? cause : "?");
		return 1;
	}
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	SCREEN *scr = out && in ? newterm("xterm-256color", out, in) : NULL;
	if (!scr) {
		fprintf(stderr, "bench_frame: no xterm-256color terminal description\n");
		return 1;
	}
	resizeterm(50, 200);
	ui_colors_apply(&u, COLORS_DEFAULT);
	double rows_s = 0, draw_s = 0;
	for (int i = 0; i < n; i++) {
		struct snapshot *snap = sampler_step(s, &cause);
		if (!snap) {
			fprintf(stderr, "bench_frame: %s\n", cause ? cause : "?");
			return 1;
		}
		snapshot_free(u.snap_owned);
		u.snap = u.snap_owned = snap;
		ui_history_add(&u, snap);
		double t0 = thread_s();
		ui_build_columns(&u);
		ui_build_rows(&u);
		double t1 = thread_s();
		draw_screen(&u, &u.drawn);
		double t2 = thread_s();
		if (i > 0 || n == 1) {
			rows_s += t1 - t0;
			draw_s += t2 - t1;
		}
	}
	int counted = n > 1 ? n - 1 : 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  %5d CPUs  per frame, ms: rows+columns %.3f  draw %.3f  (%dx%d, view %s, room for %d of %d rows,"
	       " %d columns, power panel %dx%d)  peak RSS %.1f MiB\n",
	       topo_online_count(t), 1e3 * rows_s / counted, 1e3 * draw_s / counted, COLS, LINES,
	       u.views[u.nav.view].name, u.lay.table_data_rows, u.nrows, u.drawn.nvis, u.lay.power.w, u.lay.power.h,
	       (double)ru.ru_maxrss / 1024.0);
	fflush(stdout);
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	ui_done(&u);
	source_free(src);
	sampler_free(s);
	topo_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_args a;
	int rc = bench_args_parse(argc, argv, "bench_frame", 10, true, &a);
	if (rc >= 0)
		return rc;
	bench_view = a.view;
	printf("model %s, %d intervals of 1 s (simulated), one frame each\n", a.model->name, a.n);
	rc = 0;
	for (int i = 0; i < a.nshapes; i++) {
		printf("%s\n", a.names[i]);
		fflush(stdout);
		/* Each shape in a process of its own: its own peak RSS, and a
		 * fresh curses. */
		pid_t pid = fork();
		if (pid == 0)
			_exit(run_shape(a.model, a.shapes[i], a.n));
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	}
	bench_args_free(&a);
	return rc;
}
