/* bench_sampler.c: how much CPU the sampler costs per refresh interval, and
 * how much memory it holds, at growing machine sizes on the simulated PMU.
 *
 * Each shape runs in a child process so that the peak RSS printed is that
 * shape's alone. The CPU time is the sampler thread's own (CLOCK_THREAD_
 * CPUTIME_ID, as recorded in each snapshot) and includes the simulated
 * PMU's work behind every open/enable/disable/read, which stands in for the
 * system calls of the perf backend. That share is also timed on its own,
 * by wrapping every backend call (timed_sim below), and printed apart as
 * "sim", so that pmctop's own work ("pmctop" = total - sim) can be compared
 * before and after a change without the simulator's cost in the way.
 *
 * With -p, each interval's other phases are timed apart too (thread CPU
 * time, mean per interval): derivation (derive.c, the interval's input
 * derived again with the plan's window sets cached, as the sampler does;
 * it holds the uncertainty and the sums per scope, which are not timed
 * apart), what is left of the sampler's own step once the simulator and
 * the derivation are taken out (reading, rotating, the snapshot's
 * frame), the exporter (publishing a copy and rendering the text
 * exposition), a JSON batch interval written to /dev/null, and a
 * recorded interval (recorder_add, compressed, to a file).
 *
 * Usage: bench_sampler [-n INTERVALS] [-r ROTATE_MS|kernel] [-m MODEL]
 *                      [-E EVENTS_DIR] [-g VIEW] [-w ROWS] [-t] [-p] [-a] [-f] [SHAPE...]
 * -t opens the model's tasks view as well (per-task sampling, tasks.h);
 * -a, -f and -w: below.
 * SHAPE is SOCKETSxCCXxCORESxTHREADS; the default runs 1x2x8x2 (32 CPUs),
 * 2x12x8x2 (384 CPUs) and 2x16x16x2 (1024 CPUs). */
#include "config.h"

#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "derive.h"
#include "evdef.h"
#include "export.h"
#include "output.h"
#include "record.h"
#include "sampler.h"
#include "topo.h"
#include "util.h"

#include <time.h>

/* Seconds the sampler spent inside the simulated PMU. The sampler is
 * stepped on the calling thread here, so a plain counter is enough. The
 * monotonic clock is read from the vDSO in tens of nanoseconds, where the
 * thread CPU clock is a system call that would cost more than many of the
 * calls it times; on an otherwise idle machine the two agree. */
static double sim_cpu_s;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define TIMED(expr) do { double t0_ = cpu_now(); expr; sim_cpu_s += cpu_now() - t0_; } while (0)

static struct backend *t_create(const struct model *m, struct topo *t, const char *arg, char **cause)
{
	struct backend *b;
	TIMED(b = backend_sim.create(m, t, arg, cause));
	return b;
}
static void t_destroy(struct backend *b) { backend_sim.destroy(b); }
static int t_instances(struct backend *b, int pmu, struct bk_instance **out, char **why)
{
	int r;
	TIMED(r = backend_sim.instances(b, pmu, out, why));
	return r;
}
static int t_free_counters(struct backend *b, int pmu)
{
	int r;
	TIMED(r = backend_sim.free_counters(b, pmu));
	return r;
}
static int t_open(struct backend *b, const struct bk_instance *inst, const int *ev, int n,
		  struct bk_group **g, char **cause)
{
	int r;
	TIMED(r = backend_sim.open_group(b, inst, ev, n, g, cause));
	return r;
}
static int t_enable(struct backend *b, struct bk_group *g)
{
	int r;
	TIMED(r = backend_sim.enable(b, g));
	return r;
}
static int t_disable(struct backend *b, struct bk_group *g)
{
	int r;
	TIMED(r = backend_sim.disable(b, g));
	return r;
}
static int t_read(struct backend *b, struct bk_group *g, struct bk_count *out)
{
	int r;
	TIMED(r = backend_sim.read(b, g, out));
	return r;
}
static void t_close(struct backend *b, struct bk_group *g) { TIMED(backend_sim.close(b, g)); }
/* Per-task sampling: the simulator's own work (making the samples, in
 * advance) is timed; taking them (drain) is pmctop's, as reading the
 * kernel's ring is on real counters. */
static int t_sample_open(struct backend *b, int cpu, const int *ev, int n, int freq, struct bk_sampler **out,
			 char **cause)
{
	int r;
	TIMED(r = backend_sim.sample_open(b, cpu, ev, n, freq, out, cause));
	return r;
}
static long t_sample_drain(struct backend *b, struct bk_sampler *s, bk_sample_fn fn, void *arg)
{
	return backend_sim.sample_drain(b, s, fn, arg);
}
static int t_sample_read(struct backend *b, struct bk_sampler *s, struct bk_count *out)
{
	int r;
	TIMED(r = backend_sim.sample_read(b, s, out));
	return r;
}
static void t_sample_close(struct backend *b, struct bk_sampler *s) { TIMED(backend_sim.sample_close(b, s)); }
static int t_task_info(struct backend *b, int pid, char *comm, size_t cap, char **cgroup)
{
	int r;
	TIMED(r = backend_sim.task_info(b, pid, comm, cap, cgroup));
	return r;
}
static void t_advance(struct backend *b, uint64_t ns) { TIMED(backend_sim.advance(b, ns)); }
static uint64_t t_now(struct backend *b) { return backend_sim.now(b); }

static const struct pmu_backend_ops timed_sim = {
	.name = "sim", .simulated = true, .create = t_create, .destroy = t_destroy,
	.instances = t_instances, .free_counters = t_free_counters, .open_group = t_open,
	.enable = t_enable, .disable = t_disable, .read = t_read, .close = t_close,
	.sample_open = t_sample_open, .sample_drain = t_sample_drain, .sample_read = t_sample_read,
	.sample_close = t_sample_close, .task_info = t_task_info,
	.advance = t_advance, .now = t_now,
};

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static struct model *load_model(const char *events_dir, const char *name)
{
	char *cause = NULL;
	struct model *m = model_load_by_name(events_dir, name, &cause);
	if (m)
		return m;
	fprintf(stderr, "bench_sampler: %s; using the sampler test model\n", cause ? cause : name);
	free(cause);
	cause = NULL;
	m = model_load(TOP_SRCDIR "/tests/fixtures/sampler/sampler-test", &cause);
	if (!m)
		fprintf(stderr, "bench_sampler: %s\n", cause ? cause : "no model");
	free(cause);
	return m;
}

/* Every metric of the model, in order (the batch output's columns);
 * kept for the process's life. */
static const int *all_metrics(const struct model *m)
{
	static int *all;
	if (!all) {
		all = xmalloc(sizeof(int) * (size_t)(m->nmetrics + 1));
		for (int i = 0; i < m->nmetrics; i++)
			all[i] = i;
	}
	return all;
}

/* -p: the phases of each interval besides the sampler's step. */
static bool phases;

static double thread_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct phase_ctx {
	struct derive_cache cache;   /* the plan's window sets, kept as the sampler keeps them */
	const struct derive_want *want;  /* -w: the rows whose errors are found at once */
	int fill_rows;               /* -w: CPU rows found on demand after it, timed (fill_s) */
	double fill_s;
	struct recorder *rec;
	double derive_s, record_s;   /* sums over the intervals counted */
	double *derive_each;         /* each counted interval's derivation, for the median */
	int nderive;
	bool count;
};

/* The sampler's hook with what derive was given: derived again (timed)
 * and recorded (timed). */
static void on_record(void *arg, const struct derive_input *in, struct snapshot *snap)
{
	struct phase_ctx *pc = arg;
	struct derive_input again = *in;
	again.cache = &pc->cache;
	again.plan_gen = 1;          /* one plan for the whole run */
	again.want = pc->want;
	double t0 = thread_s();
	struct snapshot *d = derive_snapshot(&again);
	double t1 = thread_s();
	/* -w: the next page of CPU rows scrolled into view, their errors
	 * found on demand. */
	int r0 = pc->fill_rows, r1 = 2 * pc->fill_rows;
	for (int r = r0; r < r1 && r < d->nrows[SNAP_CPU]; r++)
		(void)snap_row_mrse(d, &d->rows[SNAP_CPU][r]);
	double tf = thread_s();
	snapshot_free(d);
	double t2 = thread_s();
	if (pc->rec)
		recorder_add(pc->rec, in, snap);
	double t3 = thread_s();
	if (pc->count) {
		pc->derive_s += t1 - t0;
		pc->derive_each[pc->nderive++] = t1 - t0;
		pc->fill_s += tf - t1;
		pc->record_s += t3 - t2;
	}
}

/* -t: the model's first tasks view is open, as in the dashboard: its
 * columns are sampled per task as well as counted per CPU. */
static bool with_tasks;
/* -a: every event's error, as with --listen (the exporter publishes
 * them all); without it, as the dashboard and batch output derive: the
 * errors of the metrics and of no event beyond them. -f: the rotation
 * stays at -r, however much the interval costs (no back-off), so that
 * every interval has the samples of that period. */
static bool all_event_errors, fixed_rotation;
/* -w ROWS: as the dashboard derives: the errors of the rows its default
 * screen reads (ROWS CPU rows, every CCX, socket and system row) at
 * once, the others' on demand; with -p the next ROWS CPU rows' are found
 * on demand after each derivation and timed ("fill"). -w 0 -a: as the
 * exporter derives at --export-scope ccx (with no screen). */
static int want_rows = -1;

/* -g VIEW: only what the dashboard plans for that view (its columns and
 * bar, and the figures its header and panels show by name), instead of
 * every metric of the model, as batch mode with -g all would. */
static const char *view_name;

static int view_metrics(const struct model *m, int *out)
{
	static const char *const panels[] = { "util", "ghz", "ipc", "l3_access_per_s", "l3_accesses",
					      "l3_hit_rate", "l3_miss_latency_ns", "mem_read_bw",
					      "mem_write_bw", "mem_bus_util", NULL };
	int n = 0;
	for (int i = 0; i < m->nmetrics; i++) {
		bool want = false;
		for (int k = 0; panels[k] && !want; k++)
			want = !strcmp(m->metrics[i].name, panels[k]);
		for (int v = 0; v < m->nviews && !want; v++) {
			if (strcmp(m->views[v].name, view_name))
				continue;
			for (int c = 0; c < m->views[v].ncols && !want; c++)
				want = m->views[v].cols[c].metric == i;
			for (int b = 0; b < m->views[v].nbar && !want; b++)
				want = m->views[v].bar[b] == i;
		}
		if (want)
			out[n++] = i;
	}
	return n;
}

static int run_shape(struct model *m, const int shape[4], int n, double rotate_ms)
{
	struct topo *t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
	if (!t) {
		fprintf(stderr, "bench_sampler: bad shape\n");
		return 1;
	}
	int *all = xmalloc(sizeof(int) * (size_t)(m->nmetrics + 1));
	int nall = m->nmetrics;
	for (int i = 0; i < m->nmetrics; i++)
		all[i] = i;
	if (view_name)
		nall = view_metrics(m, all);
	struct sampler_config cfg = {
		.model = m, .topo = t, .ops = &timed_sim, .backend_arg = "",
		.interval_s = 1.0, .rotate_ms = rotate_ms, .nmetrics = nall, .metrics = all,
		.shown_event_errors = !all_event_errors, .cost_budget = fixed_rotation ? 1e9 : 0,
		.errors_on_demand = want_rows >= 0,
		.errors_later = { want_rows >= 0, want_rows >= 0, want_rows >= 0, want_rows >= 0, want_rows >= 0 },
	};
	int tm[64], ntm = 0;
	for (int v = 0; with_tasks && v < m->nviews && !ntm; v++)
		for (int i = 0; m->views[v].tasks && i < m->views[v].ncols && ntm < 64; i++)
			tm[ntm++] = m->views[v].cols[i].metric;
	cfg.ntask_metrics = ntm;
	cfg.task_metrics = tm;
	char *cause = NULL;
	struct sampler *s = sampler_new(&cfg, &cause);
	free(all);
	if (!s) {
		fprintf(stderr, "bench_sampler: %s\n", cause ? cause : "?");
		free(cause);
		topo_free(t);
		return 1;
	}
	const struct sched_plan *p = sampler_plan(s);
	struct derive_want want = { 0 };
	bool *wrows[SNAP_NSCOPES] = { NULL };
	int scope_rows[SNAP_NSCOPES] = { topo_online_count(t), t->ncores, t->nccx, t->nsockets, 1 };
	if (want_rows >= 0) {
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			wrows[sc] = xcalloc((size_t)scope_rows[sc] + 1, sizeof(bool));
			for (int r = 0; r < scope_rows[sc]; r++)
				wrows[sc][r] = sc >= SNAP_CCX || (sc == SNAP_CPU && r < want_rows);
			want.rows[sc] = wrows[sc];
			want.nrows[sc] = scope_rows[sc];
		}
		sampler_want_errors(s, &want);
	}
	double sum = 0, worst = 0, sim_sum = 0, export_s = 0, batch_s = 0;
	struct phase_ctx pc = { .count = false, .want = want_rows >= 0 ? &want : NULL,
				.fill_rows = want_rows > 0 ? want_rows : 0,
				.derive_each = xcalloc((size_t)n + 1, sizeof(double)) };
	struct export_hub *hub = NULL;
	struct output *out = NULL;
	FILE *devnull = NULL;
	char recdir[] = "/tmp/bench_sampler.XXXXXX", recpath[64] = "";
	if (phases) {
		sampler_record(s, on_record, &pc);
		hub = export_hub_new(m, SNAP_CCX);
		devnull = fopen("/dev/null", "w");
		struct output_opts oo = { .format = OUT_JSON, .ncols = m->nmetrics, .cols = all_metrics(m), .host = "bench" };
		out = devnull ? output_new(devnull, &oo) : NULL;
		if (mkdtemp(recdir)) {
			snprintf(recpath, sizeof(recpath), "%s/rec", recdir);
			struct record_info ri = { .model = m, .topo = t, .simulated = true, .interval_s = 1.0 };
			pc.rec = recorder_open(recpath, &ri, NULL, &cause);
			if (!pc.rec) {
				fprintf(stderr, "bench_sampler: recording: %s\n", cause ? cause : "?");
				free(cause);
				cause = NULL;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		double sim0 = sim_cpu_s;
		pc.count = i > 0 || n == 1;
		struct snapshot *snap = sampler_step(s, &cause);
		if (!snap) {
			fprintf(stderr, "bench_sampler: %s\n", cause ? cause : "?");
			free(cause);
			sampler_free(s);
			topo_free(t);
			return 1;
		}
		/* The first interval pays for nothing special, but keep it out
		 * of the mean anyway when there are several. */
		if (i == 0 && snap->notice)
			fprintf(stderr, "  notice: %s\n", snap->notice);
		if (i > 0 || n == 1) {
			sum += snap->sampler_cost_s;
			sim_sum += sim_cpu_s - sim0;
			if (snap->sampler_cost_s > worst)
				worst = snap->sampler_cost_s;
		}
		if (phases) {
			double t0 = thread_s();
			export_hub_publish_copy(hub, snap);
			struct export_state *st = export_hub_get(hub);
			size_t len = 0;
			if (st)
				export_state_body(st, EXPORT_TEXT, &len);
			export_state_put(st);
			double t1 = thread_s();
			if (out)
				output_write(out, snap);
			double t2 = thread_s();
			if (i > 0 || n == 1) {
				export_s += t1 - t0;
				batch_s += t2 - t1;
			}
		}
		snapshot_free(snap);
	}
	int counted = n > 1 ? n - 1 : 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  %5d CPUs %3d groups %3d metrics  %8.2f ms/interval (max %.2f; sim %.2f, pmctop %.2f)"
	       "  peak RSS %6.1f MiB%s\n",
	       topo_online_count(t), p->ngroups, p->nmetrics, 1e3 * sum / counted, 1e3 * worst,
	       1e3 * sim_sum / counted, 1e3 * (sum - sim_sum) / counted, (double)ru.ru_maxrss / 1024.0,
	       with_tasks ? "  (tasks view open)" : "");
	if (phases) {
		/* A residual: the step less the simulator and the derivation,
		 * which is timed apart on the same input; on a few CPUs the
		 * two timings' noise can exceed it and it reads below 0. */
		double own = sum - sim_sum - pc.derive_s;
		printf("  %5d CPUs  per interval, ms: read+rotate %.3f  derive %.3f  export %.3f  json %.3f  record %.3f\n",
		       topo_online_count(t), 1e3 * own / counted, 1e3 * pc.derive_s / counted, 1e3 * export_s / counted,
		       1e3 * batch_s / counted, 1e3 * pc.record_s / counted);
		/* The median as well: the first intervals, before the
		 * sampler's back-off settles, cost more than the rest. */
		qsort(pc.derive_each, (size_t)pc.nderive, sizeof(double), cmp_double);
		printf("  %5d CPUs  per interval, ms: derive median %.3f",
		       topo_online_count(t), pc.nderive ? 1e3 * pc.derive_each[pc.nderive / 2] : 0.0);
		if (want_rows > 0)
			printf("  %d more CPU rows' errors on demand %.3f", want_rows, 1e3 * pc.fill_s / counted);
		printf("\n");
		if (out)
			output_free(out);
		if (devnull)
			fclose(devnull);
		export_hub_free(hub);
		if (pc.rec && recorder_close(pc.rec, &cause) < 0) {
			fprintf(stderr, "bench_sampler: recording: %s\n", cause ? cause : "?");
			free(cause);
		}
		if (*recpath)
			unlink(recpath);
		rmdir(recdir);
		derive_cache_done(&pc.cache);
	}
	free(pc.derive_each);
	fflush(stdout);
	sampler_free(s);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		free(wrows[sc]);
	topo_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	/* The C library's heap as a long-running pmctop finds it: with the
	 * exporter's copy and a JSON interval written beside each derivation
	 * (-p), its own heuristics gave the heap back to the kernel and took
	 * it again every interval, and which derivation paid the page faults
	 * (up to a third of its time at 1024 CPUs) changed with the order of
	 * unrelated allocations; the dashboard itself takes about 35 faults a
	 * second at 1024 CPUs, before and after. Fixed thresholds keep the
	 * figures about the work. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	int n = 10;
	double rotate_ms = SAMPLER_DEFAULT_ROTATE_MS;
	const char *model_name = "amd-zen5";
	const char *events_dir = TOP_SRCDIR "/events";
	int c;
	while ((c = getopt(argc, argv, "n:r:m:E:g:w:tpafh")) != -1) {
		switch (c) {
		case 't': with_tasks = true; break;
		case 'p': phases = true; break;
		case 'a': all_event_errors = true; break;
		case 'f': fixed_rotation = true; break;
		case 'n': n = atoi(optarg); break;
		case 'r': rotate_ms = strcmp(optarg, "kernel") ? atof(optarg) : SAMPLER_ROTATE_KERNEL; break;
		case 'm': model_name = optarg; break;
		case 'E': events_dir = optarg; break;
		case 'g': view_name = optarg; break;
		case 'w': want_rows = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: bench_sampler [-n INTERVALS] [-r ROTATE_MS|kernel] [-m MODEL] "
				"[-E EVENTS_DIR] [-g VIEW] [-w ROWS] [-t] [-p] [-a] [-f] [SxCxNxT...]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (n < 1 || !(rotate_ms > 0 || rotate_ms == SAMPLER_ROTATE_KERNEL)) {
		fprintf(stderr, "bench_sampler: -n and -r must be positive\n");
		return 2;
	}
	static const char *const defaults[] = { "1x2x8x2", "2x12x8x2", "2x16x16x2" };
	const char *const *shapes = defaults;
	int nshapes = (int)ARRAY_SIZE(defaults);
	if (optind < argc) {
		shapes = (const char *const *)&argv[optind];
		nshapes = argc - optind;
	}
	struct model *m = load_model(events_dir, model_name);
	if (!m)
		return 1;
	bool known = !view_name;
	for (int v = 0; v < m->nviews && !known; v++)
		known = !strcmp(m->views[v].name, view_name);
	if (!known) {
		fprintf(stderr, "bench_sampler: model %s has no view '%s'\n", m->name, view_name);
		return 2;
	}
	if (rotate_ms == SAMPLER_ROTATE_KERNEL)
		printf("model %s, %d intervals of 1 s (simulated), rotation by the kernel\n", m->name, n);
	else
		printf("model %s, %d intervals of 1 s (simulated), rotation every %.1f ms\n", m->name, n, rotate_ms);
	int rc = 0;
	for (int i = 0; i < nshapes; i++) {
		int shape[4];
		char tail;
		if (sscanf(shapes[i], "%dx%dx%dx%d%c", &shape[0], &shape[1], &shape[2], &shape[3], &tail) != 4) {
			fprintf(stderr, "bench_sampler: expected SxCxNxT but found '%s'\n", shapes[i]);
			rc = 2;
			continue;
		}
		printf("%s\n", shapes[i]);
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			int r = run_shape(m, shape, n, rotate_ms);
			_exit(r);
		}
		int st = 0;
		if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	}
	model_free(m);
	return rc;
}
