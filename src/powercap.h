/* powercap.h: the kernel's powercap sysfs tree (/sys/class/powercap/
 * intel-rapl:*), the energy counters' second source: the perf power PMU
 * is used where it exists, this where it does not (docs/energy.md). The
 * same tree serves Intel and AMD. energy_uj wraps at max_energy_range_uj;
 * a reader keeps the total since it was opened across wraps, as long as
 * it reads at least once a wrap (minutes at any real power). */
#ifndef PMCTOP_POWERCAP_H
#define PMCTOP_POWERCAP_H

#include <stdint.h>

/* What a domain counts, by its `name` file: package-N, core, dram, psys,
 * uncore. */
enum powercap_kind { PC_PACKAGE, PC_CORES, PC_DRAM, PC_PSYS, PC_UNCORE, PC_NKINDS };

struct powercap_domain {
	char *dir;             /* ROOT/class/powercap/intel-rapl:N[:M] */
	enum powercap_kind kind;
	int package;           /* N of the package-N it belongs to; -1 for psys */
	uint64_t max_range_uj; /* where energy_uj wraps to 0 */
	int fd;                /* energy_uj, kept open from the first read; -1 */
};

/* Lists the domains under sysfs_root (ROOT/class/powercap), packages in
 * order. Returns how many (0: none here, *why says so), the caller frees
 * with powercap_free. */
int powercap_list(const char *sysfs_root, struct powercap_domain **out, char **why);
void powercap_free(struct powercap_domain *d, int n);
/* The kind whose perf power PMU event file is `requires` ("events/energy-pkg"),
 * or -1. */
int powercap_kind_of_event(const char *requires);
/* What a counter that read prev and then now moved, wrapping at max_range
 * (0: unknown, taken as no wrap). */
uint64_t powercap_delta(uint64_t prev, uint64_t now, uint64_t max_range);
/* Reads a domain's energy_uj. 0, or a negative errno with *cause
 * (-EACCES: readable only by root since Linux 5.10). The file stays open
 * from the first read, so that reads go on after pmctop gives up its
 * privileges (--user). */
int powercap_read_uj(struct powercap_domain *d, uint64_t *uj, char **cause);

#endif
