/* bench_sim.c: how fast the simulated PMU (backend_sim.c) is at 1024 CPUs,
 * the sizes the sampler's own benchmarks and soaks run at. These bounds
 * were once asserted in tests/check_sim.c, where an ASan or loaded build
 * failed them though nothing was wrong: speed is measured here, where a
 * person reads it, and the unit tests check only what the work computes.
 *
 * Two scenarios, each the best of -n runs (default 5), in ms of wall time:
 *  - rotation: 3 groups of 6 core events (a Zen core's counters) on each CPU, each group enabled
 *    in turn for a third of a simulated second, then read (what pmctop's
 *    own rotation asks of the backend per interval);
 *  - kernel: 20 groups of 4 core events on each CPU enabled together and
 *    multiplexed by the simulated kernel for a second, then every group
 *    read (--rotate kernel).
 * The simulator should keep both well under 30 ms on a plain build.
 *
 * Usage: bench_sim [-n RUNS] [-m MODEL] [-E EVENTS_DIR] */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backend.h"
#include "evdef.h"
#include "topo.h"
#include "util.h"

#define SEC 1000000000ULL
enum { NCPU = 1024, ROT_GROUPS = 3, ROT_EVENTS = 6, MUX_GROUPS = 20, MUX_EVENTS = 4 };

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct bk_instance core_inst(const struct model *m, int p, int cpu)
{
	return (struct bk_instance){ .pmu = p, .perf_name = m->pmus[p].perf_name, .cpu = cpu,
				     .scope = SCOPE_THREAD, .scope_id = cpu };
}

/* The first n events of PMU p that the simulator models, each on one
 * counter (not a merged pair), that open in one group; -1 if too few. */
static int pick_events(struct backend *b, const struct model *m, int p, int *ev, int n)
{
	int k = 0;
	for (int e = 0; e < m->nevents && k < n; e++) {
		if (m->events[e].pmu != p || !m->events[e].sim_text || !*m->events[e].sim_text ||
		    (m->events[e].flags & EVF_MERGE))
			continue;
		ev[k] = e;
		struct bk_instance in = core_inst(m, p, 0);
		struct bk_group *g = NULL;
		char *cause = NULL;
		if (backend_sim.open_group(b, &in, ev, k + 1, &g, &cause) == 0) {
			backend_sim.close(b, g);
			k++;
		}
		free(cause);
	}
	return k == n ? 0 : -1;
}

/* Opens ngroups groups of the n events on every CPU; NULL entries where
 * an open failed (counted in *failed). */
static struct bk_group **open_all(struct backend *b, const struct model *m, int p, const int *ev, int n,
				  int ngroups, int *failed)
{
	struct bk_group **g = xcalloc((size_t)NCPU * (size_t)ngroups, sizeof(*g));
	for (int cpu = 0; cpu < NCPU; cpu++)
		for (int k = 0; k < ngroups; k++) {
			struct bk_instance in = core_inst(m, p, cpu);
			char *cause = NULL;
			if (backend_sim.open_group(b, &in, ev, n, &g[cpu * ngroups + k], &cause) != 0) {
				if (!*failed)
					fprintf(stderr, "bench_sim: %s\n", cause ? cause : "open failed");
				(*failed)++;
			}
			free(cause);
		}
	return g;
}

static void close_all(struct backend *b, struct bk_group **g, int ngroups)
{
	for (int i = 0; i < NCPU * ngroups; i++)
		if (g[i])
			backend_sim.close(b, g[i]);
	free(g);
}

static double bench_rotation(struct backend *b, const struct model *m, int p, const int *ev, int runs,
			     int *failed)
{
	struct bk_group **g = open_all(b, m, p, ev, ROT_EVENTS, ROT_GROUPS, failed);
	double best = 1e18;
	for (int rep = 0; rep < runs; rep++) {
		double t0 = mono_ms();
		for (int k = 0; k < ROT_GROUPS; k++) {
			for (int cpu = 0; cpu < NCPU; cpu++)
				if (g[cpu * ROT_GROUPS + k])
					backend_sim.enable(b, g[cpu * ROT_GROUPS + k]);
			backend_sim.advance(b, SEC / ROT_GROUPS);
			for (int cpu = 0; cpu < NCPU; cpu++) {
				struct bk_group *x = g[cpu * ROT_GROUPS + k];
				struct bk_count c[ROT_EVENTS];
				if (!x)
					continue;
				if (backend_sim.read(b, x, c) != 0)
					(*failed)++;
				backend_sim.disable(b, x);
			}
		}
		double ms = mono_ms() - t0;
		if (ms < best)
			best = ms;
	}
	close_all(b, g, ROT_GROUPS);
	return best;
}

static double bench_kernel(struct backend *b, const struct model *m, int p, const int *ev, int runs,
			   int *failed)
{
	struct bk_group **g = open_all(b, m, p, ev, MUX_EVENTS, MUX_GROUPS, failed);
	for (int i = 0; i < NCPU * MUX_GROUPS; i++)
		if (g[i])
			backend_sim.enable(b, g[i]);
	double best = 1e18;
	for (int rep = 0; rep < runs; rep++) {
		double t0 = mono_ms();
		backend_sim.advance(b, SEC);
		for (int i = 0; i < NCPU * MUX_GROUPS; i++) {
			struct bk_count c[MUX_EVENTS];
			if (g[i] && backend_sim.read(b, g[i], c) != 0)
				(*failed)++;
		}
		double ms = mono_ms() - t0;
		if (ms < best)
			best = ms;
	}
	close_all(b, g, MUX_GROUPS);
	return best;
}

int main(int argc, char **argv)
{
	int runs = 5;
	const char *model = "amd-zen5", *events_dir = TOP_SRCDIR "/events";
	for (int c; (c = getopt(argc, argv, "n:m:E:")) != -1;) {
		switch (c) {
		case 'n': runs = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case 'm': model = optarg; break;
		case 'E': events_dir = optarg; break;
		default:
			fprintf(stderr, "usage: bench_sim [-n RUNS] [-m MODEL] [-E EVENTS_DIR]\n");
			return 2;
		}
	}
	char *cause = NULL;
	struct model *m = model_load_by_name(events_dir, model, &cause);
	if (!m) {
		fprintf(stderr, "bench_sim: %s\n", cause);
		return 1;
	}
	struct topo *t = topo_synthetic(4, 8, 8, 4);
	struct backend *b = backend_sim.create(m, t, "nmi=0", &cause);
	if (!b) {
		fprintf(stderr, "bench_sim: %s\n", cause);
		return 1;
	}
	int p = model_find_pmu(m, "core");
	int rot[ROT_EVENTS], mux[MUX_EVENTS];
	if (p < 0 || pick_events(b, m, p, rot, ROT_EVENTS) < 0 || pick_events(b, m, p, mux, MUX_EVENTS) < 0) {
		fprintf(stderr, "bench_sim: model %s has no core PMU with %d simulated events that fit a group\n",
			m->name, ROT_EVENTS);
		return 1;
	}
	int failed = 0;
	double r = bench_rotation(b, m, p, rot, runs, &failed);
	double k = bench_kernel(b, m, p, mux, runs, &failed);
	printf("sim %s, %d CPUs, best of %d:\n", m->name, NCPU, runs);
	printf("  rotation: %d groups x %d events, one interval: %8.2f ms\n", ROT_GROUPS, ROT_EVENTS, r);
	printf("  kernel:   %d groups x %d events multiplexed, one second: %8.2f ms\n", MUX_GROUPS, MUX_EVENTS, k);
	if (failed)
		printf("  %d opens or reads failed\n", failed);
	backend_sim.destroy(b);
	topo_free(t);
	model_free(m);
	return failed ? 1 : 0;
}
