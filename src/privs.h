/* privs.h: least privilege. Once pmctop has opened what only root may open
 * (counters, a low listening port, the recording, the -o file), it keeps
 * the one capability it still needs and gives up the rest, and with
 * --user NAME becomes that user as well (docs/privileges.md). */
#ifndef PMCTOP_PRIVS_H
#define PMCTOP_PRIVS_H

#include <stdbool.h>
#include <stdint.h>

/* The capability that opens system-wide counters: CAP_PERFMON (Linux 5.8
 * and later), or on older kernels, which lack it, CAP_SYS_ADMIN.
 * cap_last_cap is /proc/sys/kernel/cap_last_cap (-1: unknown, taken as a
 * kernel that has CAP_PERFMON). */
int privs_counter_cap(int cap_last_cap);

/* Gives up every capability but the counters' one (when keep_counters;
 * none otherwise) in the permitted, effective, inheritable, ambient and
 * bounding sets, sets PR_SET_NO_NEW_PRIVS, and with user (NULL: stay who
 * pmctop is) switches to that user, its group and no other groups,
 * keeping the counters' capability across the switch so that counters
 * can be opened again when a CPU comes back online. Must be called before
 * pmctop starts any thread: capabilities belong to each thread. Sets
 * that already hold no more than is kept are left as they are (a service
 * manager may forbid capset: contrib/pmctop.service.in); where capset is
 * refused and pmctop holds only the counters' capability, it keeps that
 * one even when not asked to. The result is checked. Returns 0, or -1
 * with *cause. */
int privs_drop(const char *user, bool keep_counters, char **cause);

/* The effective capabilities of the calling thread, as a bit mask (bit N:
 * capability N); 0 when they cannot be read. */
uint64_t privs_effective(void);

/* A test hook, documented in docs/privileges.md: when PMCTOP_TEST_OPEN_AFTER_DROP
 * names a file, says on standard error whether it can still be opened
 * for writing (without creating or truncating it). Does nothing otherwise. */
void privs_test_hook(void);

#endif
