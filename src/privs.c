/* privs.c: least privilege once counters and files are open. Capabilities
 * are set with the raw capget/capset system calls (<linux/capability.h>),
 * so pmctop needs no capability library. The order matters: the bounding
 * set first (that needs CAP_SETPCAP, given up just after), then with
 * --user the groups, the group and the user with PR_SET_KEEPCAPS so that
 * the counters' capability survives the change of user (the other order
 * would leave no right to change groups), then the capability sets
 * themselves; every step is checked afterwards, since a drop that silently
 * keeps root would be worse than none. */
#include "config.h"
#include "privs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38   /* Linux 5.8; headers older than the kernel lack it */
#endif

int privs_counter_cap(int cap_last_cap)
{
	return cap_last_cap < 0 || cap_last_cap >= CAP_PERFMON ? CAP_PERFMON : CAP_SYS_ADMIN;
}

static int cap_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	return (int)syscall(SYS_capget, &h, d);
}

static int cap_set(uint64_t permitted, uint64_t effective)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)effective, .permitted = (uint32_t)permitted, .inheritable = 0 },
		{ .effective = (uint32_t)(effective >> 32), .permitted = (uint32_t)(permitted >> 32),
		  .inheritable = 0 },
	};
	return (int)syscall(SYS_capset, &h, d);
}

static uint64_t mask_of(const struct __user_cap_data_struct d[2], int which)
{
	if (which == 0)
		return (uint64_t)d[0].permitted | (uint64_t)d[1].permitted << 32;
	return (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
}

uint64_t privs_effective(void)
{
	struct __user_cap_data_struct d[2] = { { 0 }, { 0 } };   /* valgrind marks only the first as written */
	return cap_get(d) < 0 ? 0 : mask_of(d, 1);
}

static int last_cap(void)
{
	long v;
	return read_long_file("/proc/sys/kernel/cap_last_cap", &v) == 0 && v >= 0 && v < 64 ? (int)v : -1;
}

int privs_drop(const char *user, bool keep_counters, char **cause)
{
	struct passwd *pw = NULL;
	if (user) {
		errno = 0;
		pw = getpwnam(user);
		if (!pw)
			return set_cause(cause, "--user: no user '%s'%s%s", user, errno ? ": " : "",
					 errno ? strerror(errno) : "");
		if (geteuid() != 0)
			return set_cause(cause, "--user %s: pmctop is not running as root, so it has nothing to give up",
					 user);
	}
	int top = last_cap();
	int cap = privs_counter_cap(top);
	struct __user_cap_data_struct d[2] = { { 0 }, { 0 } };   /* valgrind marks only the first as written */
	if (cap_get(d) < 0)
		return set_cause(cause, "cannot read pmctop's capabilities: %s", strerror(errno));
	/* Only what is held can be kept (an unprivileged run with
	 * perf_event_paranoid -1 holds nothing and keeps nothing). */
	uint64_t keep = keep_counters ? mask_of(d, 0) & (1ull << cap) : 0;
	/* The bounding set: what an exec could ever give back. Emptying it
	 * needs CAP_SETPCAP in the effective set: a binary given it as a file
	 * capability without the effective bit ('cap_perfmon,cap_setpcap=p')
	 * holds it only as permitted, so it is raised first. Without it at all
	 * (a binary with cap_perfmon alone, run by a user) the bounding set
	 * cannot be changed and stays as inherited; no_new_privs, set below,
	 * keeps any program pmctop could run from gaining from it
	 * (docs/privileges.md). */
	bool setpcap = mask_of(d, 1) & (1ull << CAP_SETPCAP);
	if (!setpcap && (mask_of(d, 0) & (1ull << CAP_SETPCAP)))
		setpcap = cap_set(mask_of(d, 0), mask_of(d, 1) | (1ull << CAP_SETPCAP)) == 0;
	if (setpcap)
		for (int c = 0; c <= (top < 0 ? 63 : top); c++)
			if (!(keep & (1ull << c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
				return set_cause(cause, "cannot drop capability %d from the bounding set: %s", c,
						 strerror(errno));
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (pw) {
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 ||
		    setuid(pw->pw_uid) < 0)
			return set_cause(cause, "--user %s: cannot switch to it: %s", user, strerror(errno));
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	}
	if (cap_get(d) < 0)
		return set_cause(cause, "cannot read pmctop's capabilities: %s", strerror(errno));
	uint64_t held = keep;   /* what must be held afterwards */
	/* A unit with AmbientCapabilities= and CapabilityBoundingSet= of the
	 * counters' capability alone (contrib/pmctop.service.in) starts
	 * pmctop holding just that, and its SystemCallFilter=~@privileged
	 * refuses capset itself. When nothing is left to give up, nothing is
	 * asked; the inheritable set the manager filled in gives nothing to
	 * a program run under no_new_privs (set below) with no ambient set.
	 * When the filter refuses to give up a capability that is not needed
	 * (--sim, -r), pmctop keeps what the manager granted, the counters'
	 * capability alone, and nothing more. After a change of user the
	 * sets are always set again (PR_SET_KEEPCAPS kept them). */
	uint64_t prm = mask_of(d, 0), eff = mask_of(d, 1);
	bool granted_only = (prm & ~(1ull << cap)) == 0 && eff == prm;
	if ((pw || prm != keep || eff != keep) && cap_set(keep, keep) < 0) {
		if (errno != EPERM || pw || !granted_only)
			return set_cause(cause, "cannot give up capabilities: %s", strerror(errno));
		held = prm;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return set_cause(cause, "cannot set no_new_privs: %s", strerror(errno));
	/* Checked, not assumed. */
	if (cap_get(d) < 0 || mask_of(d, 0) != held || mask_of(d, 1) != held)
		return set_cause(cause, "capabilities were not given up as asked");
	if (pw && pw->pw_uid != 0 && (setuid(0) == 0 || geteuid() == 0 || getuid() == 0))
		return set_cause(cause, "--user %s: root could be regained after switching", user);
	return 0;
}

void privs_test_hook(void)
{
	const char *path = getenv("PMCTOP_TEST_OPEN_AFTER_DROP");
	if (!path || !*path)
		return;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	int e = errno;
	char *safe = text_sanitize(path);
	fprintf(stderr, "pmctop: test: open %s for writing: %s\n", safe, fd < 0 ? strerror(e) : "allowed");
	free(safe);
	if (fd >= 0)
		close(fd);
}
