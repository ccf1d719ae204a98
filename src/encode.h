/* encode.h: turns an event definition into a perf_event_attr: vendor raw
 * values through the PMU's hardware field layout and the PMU's sysfs
 * format/ files, libpfm4 names, perf generic and software events. */
#ifndef PMCTOP_ENCODE_H
#define PMCTOP_ENCODE_H

#include <linux/perf_event.h>
#include "evdef.h"

/* Encodes ev for the Linux PMU perf_pmu (a concrete name such as "cpu",
 * "amd_l3", "amd_umc_0", or "software"); sysfs_root is "/sys" or a fixture.
 * Fills type, config, config1, config2, exclude_* as needed; the caller sets
 * read_format, disabled, etc. Returns 0, or a negative errno with *cause:
 * -ENOENT when the PMU or event does not exist here (no such sysfs PMU, libpfm4
 * does not know the event), -EINVAL for a value that does not fit. */
int encode_event(const struct model *m, const struct event_def *ev, const char *perf_pmu,
		 const char *sysfs_root, struct perf_event_attr *attr, char **cause);

/* Splits a raw vendor value into the PMU's named hardware fields; returns
 * the number of fields written to names/values (at most max). */
int encode_raw_fields(const struct pmu_def *pmu, uint64_t raw, const char **names,
		      uint64_t *values, int max);

/* Formats ev the way the vendor writes it for --list-metrics --raw:
 * "Event[0x4300C3]", "L3Event[0x0300C0000040FF04]", or for libpfm4/perf
 * events their encoded config "cpu/config=0x4300c0/". Caller frees. */
char *encode_vendor_notation(const struct model *m, const struct event_def *ev);

/* Initialises libpfm4 once (thread-safe); 0 or -1 with *cause. */
int encode_pfm_init(char **cause);

#endif
