/* bench_rotation.c: what one group rotation costs in the kernel. It opens
 * pmctop's software-event group on every online CPU through the real
 * perf_event backend and times disable + enable of each group, the two
 * ioctls the sampler issues per CPU and PMU at every rotation. With the
 * sampler's own bookkeeping (bench_sampler), this is what the default
 * rotation period is chosen from (docs/performance.md).
 *
 * Usage: bench_rotation [-n ROUNDS] [-E EVENTS_DIR]   (needs root or
 * perf_event_paranoid <= 0 for system-wide events) */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "evdef.h"
#include "topo.h"
#include "util.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

int main(int argc, char **argv)
{
	int rounds = 2000, c;
	const char *events_dir = TOP_SRCDIR "/events";
	while ((c = getopt(argc, argv, "n:E:")) != -1) {
		if (c == 'n')
			rounds = atoi(optarg);
		else if (c == 'E')
			events_dir = optarg;
		else {
			fprintf(stderr, "usage: bench_rotation [-n ROUNDS] [-E EVENTS_DIR]\n");
			return 2;
		}
	}
	if (rounds < 1)
		rounds = 1;
	char *cause = NULL;
	struct model *m = model_load_by_name(events_dir, "generic", &cause);
	struct topo *t = m ? topo_load("/sys", &cause) : NULL;
	struct backend *b = t ? backend_perf.create(m, t, NULL, &cause) : NULL;
	if (!b) {
		fprintf(stderr, "bench_rotation: %s\n", cause ? cause : "setup failed");
		return 1;
	}
	int pmu = model_find_pmu(m, "software");
	int evs[4], nev = 0;
	static const char *const names[] = { "task_clock", "context_switches", "cpu_migrations", "page_faults" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		int e = model_find_event(m, names[i]);
		if (e >= 0)
			evs[nev++] = e;
	}
	struct bk_instance *inst = NULL;
	char *why = NULL;
	int n = backend_perf.instances(b, pmu, &inst, &why);
	struct bk_group **g = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*g));
	int opened = 0;
	for (int i = 0; i < n; i++) {
		char *err = NULL;
		int rc = backend_perf.open_group(b, &inst[i], evs, nev, &g[i], &err);
		if (rc < 0) {
			fprintf(stderr, "bench_rotation: CPU %d: %s (%s)\n", inst[i].cpu, err ? err : "",
				backend_error_hint(rc));
			free(err);
			g[i] = NULL;
			continue;
		}
		opened++;
	}
	if (opened == 0)
		return 1;
	uint64_t t0 = now_ns();
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++)
			if (g[i]) {
				backend_perf.disable(b, g[i]);
				backend_perf.enable(b, g[i]);
			}
	double per = (double)(now_ns() - t0) / ((double)rounds * opened);
	printf("%d CPUs, %d-event group: %.2f us per CPU per rotation (disable + enable)\n", opened, nev,
	       per / 1000.0);
	static const int periods[] = { 4, 10, 50, 100 };
	static const int shapes[] = { 32, 384, 1024 };
	for (size_t p = 0; p < ARRAY_SIZE(periods); p++) {
		printf("rotation %3d ms:", periods[p]);
		for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
			/* One core PMU and one uncore PMU rotate on every CPU at worst. */
			double cpu_ms = per / 1e6 * shapes[s] * (1000.0 / periods[p]);
			printf("  %4d CPUs %6.1f ms/s", shapes[s], cpu_ms);
		}
		printf("\n");
	}
	for (int i = 0; i < n; i++)
		if (g[i])
			backend_perf.close(b, g[i]);
	for (int i = 0; i < n; i++)
		free(inst[i].perf_name);
	free(inst);
	free(why);
	free(g);
	backend_perf.destroy(b);
	topo_free(t);
	model_free(m);
	return 0;
}
