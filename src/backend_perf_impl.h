/* backend_perf_impl.h: the real counters' backend state, shared by
 * backend_perf.c (instances and perf_event groups) and
 * backend_perf_pseudo.c (the groups that are not the kernel's: /proc/stat
 * and the powercap energy counters). */
#ifndef PMCTOP_BACKEND_PERF_IMPL_H
#define PMCTOP_BACKEND_PERF_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include "backend.h"
#include "powercap.h"
#include "util.h"

struct backend {
	const struct model *m;
	struct topo *t;
	char *sysfs_root;   /* "/sys" or the fixture root */
	char *proc_root;    /* "/proc" or ROOT/proc */
	long clk_tck;       /* USER_HZ: the unit of /proc/stat */
	/* One parse of /proc/stat serves every CPU's pseudo group in a read
	 * pass: the kernel builds the whole file (every CPU, every IRQ) at each
	 * open, so opening it once per CPU would cost O(CPUs^2) per interval. */
	int stat_n;            /* entries in stat_busy/stat_total (max CPU + 1) */
	uint64_t *stat_busy, *stat_total;   /* ns; PROCSTAT_NONE: no line for that CPU */
	uint64_t stat_at;      /* monotonic ns of the parse; 0: none yet */
	int stat_err;          /* 0, or -EIO when the file could not be read or parsed */
	struct text_reader stat_file;   /* kept open: one pread per parse */
	char *stat_path;
	/* Per-task sampling: samplers open, and the most general counters
	 * one holds on a CPU, per PMU (taken from what the groups get). */
	int nsamplers;
	int *pinned;           /* [npmus] */
	/* The powercap domains, listed at the first need (-1: not yet). */
	int npc;
	struct powercap_domain *pc;
	char *pc_why;          /* why there are none */
};

/* How long one parse of /proc/stat is reused: far below any interval (10 ms
 * at least), far above one read pass over all groups. */
#define STAT_CACHE_NS 1000000ull

struct bk_group {
	int cpu;
	int pmu;
	int nevents;
	int *fds;           /* perf groups: fds[0] is the leader */
	uint64_t *buf;      /* read buffer: nr, enabled, running, values */
	bool enabled;       /* between enable and disable */
	uint64_t last_read_ns, last_enabled; /* the previous read while enabled */
	/* PMU_PROC pseudo groups. */
	bool proc;
	int *proc_what;     /* per event: PROC_BUSY, PROC_TOTAL or PROC_ONLINE */
	uint64_t t0;        /* open time, ns */
	uint64_t base[2];   /* busy and total ns at open */
	/* Per event, what a kernel count is worth in the definition's (NULL:
	 * 1 for all). */
	double *rescale;
	/* Powercap pseudo groups: per event its domain, last energy_uj and
	 * the microjoules since open. */
	struct powercap_domain **pc;
	uint64_t *pc_last, *pc_total;
};

/* PROC_ONLINE is the wall time since open, not a /proc/stat figure. */
enum { PROC_BUSY, PROC_TOTAL, PROC_ONLINE };

/* backend_perf_pseudo.c */
bool perf_is_power_pmu(const struct pmu_def *pd);
bool perf_has_power_pmu(const struct backend *b);
/* The powercap domain of kind for the package of socket index sock. */
struct powercap_domain *perf_powercap_find(struct backend *b, int kind, int sock);
void perf_powercap_load(struct backend *b);
/* A /proc/stat pseudo group on inst's CPU: busy and total ns since open. */
int perf_proc_open(struct backend *b, const struct bk_instance *inst, const int *events, int nevents,
		   struct bk_group *g, char **cause);
int perf_proc_read(struct backend *b, struct bk_group *g, struct bk_count *out);
/* A powercap pseudo group of a power PMU's events on inst's package. */
int perf_powercap_open(struct backend *b, const struct bk_instance *inst, const int *events, int nevents,
		       struct bk_group *g, char **cause);
bool perf_powercap_has_all(struct backend *b, const struct bk_instance *inst, const int *events, int nevents);
int perf_powercap_read(struct bk_group *g, struct bk_count *out);

#endif
