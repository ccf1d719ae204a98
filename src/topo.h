/* topo.h: the machine's CPU topology read from sysfs: CPUs, SMT siblings,
 * physical cores, CCX (CPUs sharing one L3), dies, sockets, NUMA nodes and
 * the online state. The sysfs root is a parameter so that tests can load
 * fixtures from tests/fixtures/sysfs/<machine>/. */
#ifndef PMCTOP_TOPO_H
#define PMCTOP_TOPO_H

#include <stdbool.h>

struct topo_cpu {
	int cpu;        /* logical CPU number (the Linux cpuN) */
	bool online;
	int core;       /* dense index of the physical core, 0..ncores-1 */
	int ccx;        /* dense index of the L3 domain, 0..nccx-1; -1 if no L3 */
	int l3_id;      /* cache/index3/id as the kernel reports it, -1 if none */
	int die;        /* topology/die_id, 0 if absent */
	int socket;     /* topology/physical_package_id */
	int numa;       /* NUMA node, 0 if none */
	int thread;     /* index among the SMT siblings of its core, 0-based */
};

struct topo_core { int id; int socket; int ccx; int ncpus; int *cpus; };
struct topo_ccx { int id; int l3_id; int socket; int ncpus; int *cpus; int ncores; int *cores; };
struct topo_socket { int id; int ncpus; int *cpus; int nccx; int *ccxs; };

/* Only online CPUs are placed into cores/CCX/sockets; offline CPUs are kept
 * in cpus[] with online=false so that the caller can say they are offline. */
struct topo {
	char *root;           /* sysfs root used, e.g. "/sys" */
	int ncpus;            /* entries in cpus[], online or not */
	int max_cpu;          /* highest CPU number + 1 (size of a by-number map) */
	struct topo_cpu *cpus;
	int *cpu_index;       /* CPU number -> index in cpus[], -1 if absent */
	int ncores; struct topo_core *cores;
	int nccx; struct topo_ccx *ccxs;
	int nsockets; struct topo_socket *sockets;
	int nnuma;
	int threads_per_core; /* the largest SMT width seen */
};

/* Loads the topology below root ("/sys" on a real machine). Returns NULL and
 * sets *cause when the root has no usable devices/system/cpu. */
struct topo *topo_load(const char *root, char **cause);
/* Builds a synthetic topology (for --sim): sockets x ccx per socket x cores
 * per ccx x threads per core, numbered like Linux numbers AMD EPYC CPUs
 * (all first threads of every core first, then the SMT siblings). */
struct topo *topo_synthetic(int sockets, int ccx_per_socket, int cores_per_ccx, int threads);
void topo_free(struct topo *t);
/* Marks a CPU offline (or online) and rebuilds the grouping. */
void topo_set_online(struct topo *t, int cpu, bool online);
const struct topo_cpu *topo_cpu_by_num(const struct topo *t, int cpu);
int topo_online_count(const struct topo *t);

#endif
