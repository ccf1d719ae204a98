/* topo.h: the machine's CPU topology read from sysfs: CPUs, SMT siblings,
 * physical cores, CCX (CPUs sharing one L3), dies, sockets, NUMA nodes and
 * the online state. The sysfs root is a parameter so that tests can load
 * fixtures from tests/fixtures/sysfs/<machine>/. */
#ifndef PMCTOP_TOPO_H
#define PMCTOP_TOPO_H

#include <stdbool.h>

/* The dense indices (core, ccx, socket, thread) are -1 while a CPU is
 * offline. The raw fields (core_id, package_id, l3_id, l3_first, die) keep
 * what sysfs said, so that topo_rebuild() can put a CPU back in place when
 * it comes online again; has_topology is false when sysfs had nothing for
 * it (a CPU that was already offline at load time). */
struct topo_cpu {
	int cpu;        /* logical CPU number (the Linux cpuN) */
	bool online;
	int core;       /* dense index of the physical core, 0..ncores-1 */
	int ccx;        /* dense index of the L3 domain, 0..nccx-1; -1 if no L3 */
	int l3_id;      /* cache/index3/id as the kernel reports it, -1 if none */
	int die;        /* topology/die_id, 0 if absent */
	int socket;     /* dense socket index (== physical_package_id on every
			   machine whose package ids are 0..n-1) */
	int numa;       /* NUMA node, 0 if none */
	int thread;     /* index among the SMT siblings of its core, 0-based */
	/* Raw sysfs values behind the grouping. */
	bool has_topology;
	int core_id;    /* topology/core_id (unique within a package and die) */
	int package_id; /* topology/physical_package_id */
	int l3_first;   /* lowest CPU of cache/index3/shared_cpu_list, -1 if none:
			   names the L3 when the kernel has no cache id */
};

/* Groups. id is the dense index for cores and CCX, and the
 * physical_package_id for sockets. cpus/cores/ccxs list online members
 * only, in ascending order (CPU numbers for cpus, dense indices otherwise). */
struct topo_core { int id; int socket; int ccx; int ncpus; int *cpus; };
struct topo_ccx { int id; int l3_id; int socket; int ncpus; int *cpus; int ncores; int *cores; };
struct topo_socket { int id; int ncpus; int *cpus; int nccx; int *ccxs; };

/* Only online CPUs are placed into cores/CCX/sockets; offline CPUs are kept
 * in cpus[] with online=false so that the caller can say they are offline.
 * The groups themselves are made from every CPU whose topology is known,
 * online or not, so that a CPU going offline never renumbers the other
 * cores, CCX or sockets: a group whose CPUs are all offline stays, with
 * ncpus == 0 (callers skip it). */
struct topo {
	char *root;           /* sysfs root used, e.g. "/sys"; NULL if synthetic */
	int ncpus;            /* entries in cpus[], online or not */
	int max_cpu;          /* highest CPU number + 1 (size of a by-number map) */
	struct topo_cpu *cpus;
	int *cpu_index;       /* CPU number -> index in cpus[], -1 if absent */
	int ncores; struct topo_core *cores;
	int nccx; struct topo_ccx *ccxs;
	int nsockets; struct topo_socket *sockets;
	int nnuma;            /* NUMA nodes that hold CPUs (at least 1) */
	int threads_per_core; /* the largest SMT width seen */
	int ndies;            /* distinct (package, die) pairs */
};

/* Loads the topology below root ("/sys" on a real machine). Returns NULL and
 * sets *cause when the root has no usable devices/system/cpu. */
struct topo *topo_load(const char *root, char **cause);
/* Builds a synthetic topology (for --sim): sockets x ccx per socket x cores
 * per ccx x threads per core, numbered like Linux numbers AMD EPYC CPUs
 * (all first threads of every core first, then the SMT siblings). */
struct topo *topo_synthetic(int sockets, int ccx_per_socket, int cores_per_ccx, int threads);
/* A topology from per-CPU raw fields (a recording's): cpu, online,
 * has_topology, core_id, package_id, die, l3_id, l3_first and numa of
 * each; CPU numbers must rise. NULL with *cause when they do not. */
struct topo *topo_from_cpus(const struct topo_cpu *cpus, int n, int nnuma, char **cause);
void topo_free(struct topo *t);
/* A deep copy with the same numbering. The sampler keeps its own copy and
 * changes it when CPUs come and go, while the screen reads the original. */
struct topo *topo_clone(const struct topo *t);
/* For a topology read from sysfs: marks offline CPUs whose cpuN/online now
 * reads 1 as online again. Writes their numbers to cpus (at most max) and
 * returns how many came back. */
int topo_poll_online(struct topo *t, int *cpus, int max);
/* Marks a CPU offline (or online) and rebuilds the grouping. A CPU that was
 * offline when loaded has no topology yet: going online re-reads it from
 * t->root, and if that fails it becomes a core of its own, without an L3.
 * Unknown CPU numbers are ignored. */
void topo_set_online(struct topo *t, int cpu, bool online);
/* Recomputes the dense indices and the groups from the raw per-CPU fields
 * and the online flags; topo_set_online() calls it. */
void topo_rebuild(struct topo *t);
const struct topo_cpu *topo_cpu_by_num(const struct topo *t, int cpu);
/* The index in t->sockets of the socket with this id (a CPU's socket
 * field); an id that names no socket but is a valid index is taken as one;
 * else -1. */
int topo_socket_index(const struct topo *t, int socket_id);
int topo_online_count(const struct topo *t);

#endif
