/* procstat.h: parsing /proc/stat's per-CPU time lines into busy and total
 * nanoseconds, on a buffer, so that it is tested and fuzzed without procfs. */
#ifndef PMCTOP_PROCSTAT_H
#define PMCTOP_PROCSTAT_H

#include <stdint.h>

/* No line for that CPU in the text (offline, or beyond the file). */
#define PROCSTAT_NONE UINT64_MAX

/* Parses the "cpuN user nice system idle [iowait irq softirq steal ...]"
 * lines of text (NUL-terminated: /proc/stat's contents), for CPUs 0..n-1,
 * into busy[N] and total[N] in ns (clk_tck ticks a second, > 0). Busy is
 * total less idle and iowait; guest and guest_nice are not added again
 * since user and nice include them. CPUs without a line get
 * PROCSTAT_NONE; lines of CPUs >= n and every other line (the "cpu "
 * total, intr, ctxt, ...) are skipped. Returns 0, or -1 when a cpuN line
 * has fewer than four figures or a figure that is not a number or whose
 * time overflows 64 bits of ns: then the whole text is not trusted and
 * every CPU is left at PROCSTAT_NONE. */
int procstat_parse(const char *text, long clk_tck, uint64_t *busy, uint64_t *total, int n);

#endif
