/* backend_errors.c: one-line hints that tell a user what to do when the
 * kernel refuses counters. The errno alone ("Permission denied") does not
 * say that perf_event_paranoid is the knob, or that a VM may simply have no
 * PMU; these hints do. */
#include "config.h"
#include "backend.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>

/* The hint for EACCES includes the current paranoid level, so it is built
 * per call; a thread-local buffer keeps the function's const char * result
 * valid until the same thread asks again. It names 0 because system-wide
 * counting needs no lower (the kernel refuses CPU-wide events above 0
 * without CAP_PERFMON); -1 adds raw tracepoints and lifts the mlock limit,
 * which pmctop does not need. The Debian package's pmctop group holds
 * CAP_PERFMON through the program's file capability (docs/privileges.md). */
static _Thread_local char hint_buf[320];

static const char *permission_hint(void)
{
	long level = 0;
	int rc = read_long_file("/proc/sys/kernel/perf_event_paranoid", &level);
	if (rc < 0) {
		snprintf(hint_buf, sizeof(hint_buf),
			 "not permitted to open system-wide counters: run as root or with "
			 "CAP_PERFMON (the package's pmctop group), or set `sysctl kernel.perf_event_paranoid=0`");
	} else {
		snprintf(hint_buf, sizeof(hint_buf),
			 "not permitted to open system-wide counters (kernel.perf_event_paranoid "
			 "is %ld): run as root or with CAP_PERFMON (the package's pmctop group), or set "
			 "`sysctl kernel.perf_event_paranoid=0`", level);
	}
	return hint_buf;
}

const char *backend_error_hint(int err)
{
	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return "no error";
	case -EACCES:
	case -EPERM:
		return permission_hint();
	case -ENOENT:
	case -EOPNOTSUPP:
		/* Short enough that "hardware counters: " and this fit on one
		 * 80-column line: the user must see both the reason and --sim. */
		return "not available (a VM without a virtual PMU?); try --sim zen5";
	case -EMFILE:
	case -ENFILE:
		return "too many open files: pmctop opens one file per event and CPU; raise the "
		       "limit with `ulimit -n 65536` or count fewer CPUs with -C";
	case -EBUSY:
		return "the counters are held by another tool (perf, a profiler, or a "
		       "hypervisor agent); stop it and try again";
	case -ENODEV:
	case -ENXIO:
		return "the CPU is offline; its counters come back when it is brought online";
	case -EINVAL:
		return "the kernel rejected the event encoding (a field or counter this CPU "
		       "or kernel lacks); check the definition with --list-events";
	case -ENOSPC:
		return "no free counter for this group on this PMU; use fewer events per group";
	case -EINTR:
		return "interrupted; try again";
	default:
		return "unexpected error from perf_event_open; see perf_event_open(2)";
	}
}
