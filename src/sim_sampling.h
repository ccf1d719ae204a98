/* sim_sampling.h: per-task sampling in the simulated PMU, as the kernel
 * does it for an event opened on a CPU with a sample frequency: each
 * event's count runs on across tasks, and each time it has grown by the
 * period a sample names the task running at that moment, so a sample can
 * carry occurrences of the task before it (which is the kernel's bias
 * too). The period follows the event's rate in the current segment so
 * that samples come about freq times a second, as the kernel's frequency
 * mode adjusts it. Samples wait in a bounded buffer until drained; what
 * does not fit is counted as lost. The simulator's truth of what each
 * task did is kept beside it. */
#ifndef PMCTOP_SIM_SAMPLING_H
#define PMCTOP_SIM_SAMPLING_H

#include <stdint.h>
#include "backend.h"

/* What every task did in every sampled event since time 0, by (pid,
 * model event). Entries of tasks not seen for a minute of simulated time
 * are dropped, so a soak of short-lived tasks stays in bounded memory. */
struct simtruth;
struct simtruth *simtruth_new(void);
void simtruth_free(struct simtruth *t);
double simtruth_get(const struct simtruth *t, int pid, int event);
/* Adds v to what task pid did in event (a model event, or a key such as
 * SIM_TRUTH_CORE_NJ, backend.h), at simulated time now. */
void simtruth_add(struct simtruth *t, int pid, int event, double v, uint64_t now);
/* The pids it holds (each once, in no order), at most max; returns how many. */
int simtruth_pids(const struct simtruth *t, int *pids, int max);

struct simsmp;
struct simsmp *simsmp_new(int cpu, const int *events, int n, int freq, uint64_t now);
void simsmp_free(struct simsmp *s);
int simsmp_nevents(const struct simsmp *s);
const int *simsmp_events(const struct simsmp *s);
/* Room for one count per event, for the caller of simsmp_span. */
double *simsmp_scratch(struct simsmp *s);
/* Task pid ran for len_ns ending at end_ns, in which sampled event i
 * occurred counts[i] times. */
void simsmp_span(struct simsmp *s, int pid, const double *counts, uint64_t len_ns, uint64_t end_ns,
		 struct simtruth *truth);
long simsmp_drain(struct simsmp *s, bk_sample_fn fn, void *arg);
void simsmp_read(const struct simsmp *s, uint64_t now, struct bk_count *out);

#endif
