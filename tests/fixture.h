/* fixture.h: what many Check suites set up the same way, in one place:
 * a model (a shipped one by name, or a directory of definitions), a
 * synthetic machine of a given shape, the simulated PMU on it, and a
 * sampler configuration on the simulator. Each helper fails the test
 * in progress, naming the cause, when what it makes cannot be made: a
 * missing model is a failure, never a silent pass. */
#ifndef PMCTOP_TEST_FIXTURE_H
#define PMCTOP_TEST_FIXTURE_H

#include "backend.h"
#include "evdef.h"
#include "sampler.h"
#include "snapshot.h"
#include "topo.h"

/* The shipped definitions of this source tree (not the installed ones). */
#define FX_EVENTS_DIR TOP_SRCDIR "/events"

/* Loads a model: `which` is a shipped model's name ("amd-zen5"), or,
 * where it has a '/', a directory of definitions: relative to the
 * source tree ("tests/fixtures/sampler/sampler-test", "events/amd/zen5")
 * or absolute. Never NULL. */
struct model *fx_model(const char *which);

/* A synthetic machine of shape "SOCKETSxCCXxCORESxTHREADS" ("1x2x4x2"),
 * as topo_synthetic builds it. Never NULL. */
struct topo *fx_topo(const char *shape);

/* Every metric of m, in order (m->nmetrics of them); the caller frees. */
int *fx_all_metrics(const struct model *m);

/* A sampler configuration on the simulated PMU: model m on machine t,
 * the simulator's argument arg ("seed=5,nmi=0"; NULL for none), one
 * interval of interval_s, the default rotation and no metrics. The
 * caller sets what else its test needs. */
struct sampler_config fx_sampler_config(const struct model *m, struct topo *t, const char *arg,
					double interval_s);

/* sampler_new(cfg), which must succeed. */
struct sampler *fx_sampler(const struct sampler_config *cfg);

/* The next interval of s (sampler_step), which must come. */
struct snapshot *fx_step(struct sampler *s);

/* The simulated PMU for model m on machine t, created with the
 * simulator's argument arg ("nmi=0,seed=5"; NULL for none): with
 * fx_topo, a simulated machine of a shape and a seed. Never NULL. */
struct backend *fx_sim(const struct model *m, struct topo *t, const char *arg);

/* The real perf_event backend for model m on this machine's topology
 * (/sys): the pair fx_real_open makes and fx_real_close frees. */
struct fx_real {
	struct topo *t;
	struct backend *b;
};
void fx_real_open(struct fx_real *r, const struct model *m);
void fx_real_close(struct fx_real *r);

/* Keeps this CPU busy for ms milliseconds of wall-clock time, so that
 * the counters of the thread running it have something to count. */
void fx_burn_ms(int ms);

#endif
