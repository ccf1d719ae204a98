/* bench_sampler.c: how much CPU the sampler costs per refresh interval, and
 * how much memory it holds, at growing machine sizes on the simulated PMU.
 *
 * Each shape runs in a child process so that the peak RSS printed is that
 * shape's alone. The CPU time is the sampler thread's own (CLOCK_THREAD_
 * CPUTIME_ID, as recorded in each snapshot) and includes the simulated
 * PMU's work behind every open/enable/disable/read, which stands in for the
 * system calls of the perf backend.
 *
 * Usage: bench_sampler [-n INTERVALS] [-r ROTATE_MS|kernel] [-m MODEL]
 *                      [-E EVENTS_DIR] [SHAPE...]
 * SHAPE is SOCKETSxCCXxCORESxTHREADS; the default runs 1x2x8x2 (32 CPUs),
 * 2x12x8x2 (384 CPUs) and 2x16x16x2 (1024 CPUs). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "evdef.h"
#include "sampler.h"
#include "topo.h"
#include "util.h"

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

static int run_shape(struct model *m, const int shape[4], int n, double rotate_ms)
{
	struct topo *t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
	if (!t) {
		fprintf(stderr, "bench_sampler: bad shape\n");
		return 1;
	}
	int *all = xmalloc(sizeof(int) * (size_t)(m->nmetrics + 1));
	for (int i = 0; i < m->nmetrics; i++)
		all[i] = i;
	struct sampler_config cfg = {
		.model = m, .topo = t, .ops = &backend_sim, .backend_arg = "",
		.interval_s = 1.0, .rotate_ms = rotate_ms, .nmetrics = m->nmetrics, .metrics = all,
	};
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
	double sum = 0, worst = 0;
	for (int i = 0; i < n; i++) {
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
			if (snap->sampler_cost_s > worst)
				worst = snap->sampler_cost_s;
		}
		snapshot_free(snap);
	}
	int counted = n > 1 ? n - 1 : 1;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("  %5d CPUs %3d groups %3d metrics  %8.2f ms/interval (max %.2f)  peak RSS %6.1f MiB\n",
	       topo_online_count(t), p->ngroups, p->nmetrics, 1e3 * sum / counted, 1e3 * worst,
	       (double)ru.ru_maxrss / 1024.0);
	fflush(stdout);
	sampler_free(s);
	topo_free(t);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 10;
	double rotate_ms = SAMPLER_DEFAULT_ROTATE_MS;
	const char *model_name = "amd-zen5";
	const char *events_dir = TOP_SRCDIR "/events";
	int c;
	while ((c = getopt(argc, argv, "n:r:m:E:h")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'r': rotate_ms = strcmp(optarg, "kernel") ? atof(optarg) : SAMPLER_ROTATE_KERNEL; break;
		case 'm': model_name = optarg; break;
		case 'E': events_dir = optarg; break;
		default:
			fprintf(stderr, "usage: bench_sampler [-n INTERVALS] [-r ROTATE_MS|kernel] [-m MODEL] "
				"[-E EVENTS_DIR] [SxCxNxT...]\n");
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
