/* sim_tasks.h: the processes of the simulated machine. Every segment of a
 * CPU's workload (sim_workload.h: 2 to 40 ms at one behaviour) is run by
 * one task, so the per-task truth adds up to the per-CPU truth exactly.
 * A phase of a CPU has a main task, chosen among the processes that
 * behave like the phase (compute, memory or branchy), which runs most of
 * its segments; the others go to tasks drawn from the whole mix, so
 * processes migrate between CPUs, share CPUs, and a multi-threaded one
 * runs on several at once. Idle phases are mostly the idle task (pid 0)
 * with some background daemons. Some processes are short-lived: a new
 * one (a new pid) replaces each after its lifetime, so tasks start and
 * end in the middle of intervals. Processes sit in a few cgroups, and
 * two have names that hold an escape sequence and bytes that are not
 * UTF-8, as a hostile program could choose. Everything is a function of
 * (seed, cpu, phase, segment, time): no state moves. */
#ifndef PMCTOP_SIM_TASKS_H
#define PMCTOP_SIM_TASKS_H

#include <stdint.h>
#include "sim_workload.h"

struct sim_tasks;

/* The mix for a machine of ncpus CPUs: more CPUs, more processes. */
struct sim_tasks *simt_new(uint64_t seed, int ncpus);
void simt_free(struct sim_tasks *t);
/* The pid of the task that runs the segment c is in, at time t_ns
 * (0: the idle task). */
int simt_pick(const struct sim_tasks *t, const struct wl_cpu *c, uint64_t t_ns);
/* The name and cgroup of pid (a pid simt_pick can return). Returns 0, or
 * -1 for a pid the mix never has. */
int simt_info(const struct sim_tasks *t, int pid, const char **comm, const char **cgroup);

#endif
