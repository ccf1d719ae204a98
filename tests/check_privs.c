/* check_privs.c: privs_drop under a service manager's sandbox, as
 * contrib/pmctop.service.in sets it up: the counters' capability alone
 * (permitted, effective, inheritable, ambient, bounding) and a system call
 * filter that refuses capset (SystemCallFilter=~@privileged with
 * SystemCallErrorNumber=EPERM), made here with a seccomp filter of the
 * test's own. Each test runs in a child of its own (Check forks), so the
 * capabilities it gives up are only that child's. Needs root to set the
 * scene: skipped (77) otherwise. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check_run.h"
#include "privs.h"
#include "util.h"

static int counter_cap(void)
{
	long v;
	return privs_counter_cap(read_long_file("/proc/sys/kernel/cap_last_cap", &v) == 0 ? (int)v : -1);
}

static void set_caps(uint64_t m)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)m, .permitted = (uint32_t)m, .inheritable = (uint32_t)m },
		{ .effective = (uint32_t)(m >> 32), .permitted = (uint32_t)(m >> 32), .inheritable = (uint32_t)(m >> 32) },
	};
	ck_assert_int_eq((int)syscall(SYS_capset, &h, d), 0);
}

/* What systemd gives a unit with AmbientCapabilities= and
 * CapabilityBoundingSet= of the counters' capability (and extra): the
 * bounding set first, while CAP_SETPCAP is still held. With filter, capset
 * then fails with EPERM, as under SystemCallFilter=~@privileged. */
static void as_the_unit(uint64_t extra, bool filter)
{
	int cap = counter_cap();
	uint64_t keep = (1ull << cap) | extra;
	for (int c = 0; c < 64; c++)
		if (!(keep & (1ull << c)))
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	set_caps(keep);
	ck_assert_int_eq(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0), 0);
	ck_assert_uint_eq(privs_effective(), keep);
	if (!filter)
		return;
	/* No check of the architecture: this process makes native calls only. */
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_capset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { .len = (unsigned short)(sizeof(prog) / sizeof(prog[0])), .filter = prog };
	ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0), 0);
}

/* The unit's case: the counters' capability is kept, and nothing needs capset. */
START_TEST(test_unit_keeps_counters)
{
	as_the_unit(0, true);
	char *cause = NULL;
	int rc = privs_drop(NULL, true, &cause);
	ck_assert_msg(rc == 0, "privs_drop: %s", cause ? cause : "?");
	ck_assert_uint_eq(privs_effective(), 1ull << counter_cap());
	ck_assert_int_eq(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
	ck_assert_int_eq(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, counter_cap(), 0, 0), 0);
	free(cause);
}
END_TEST

/* --sim under the unit: the capability is not needed, the filter forbids
 * giving it up; pmctop runs with what the unit granted and nothing more. */
START_TEST(test_unit_sim_keeps_grant)
{
	as_the_unit(0, true);
	char *cause = NULL;
	int rc = privs_drop(NULL, false, &cause);
	ck_assert_msg(rc == 0, "privs_drop: %s", cause ? cause : "?");
	ck_assert_uint_eq(privs_effective(), 1ull << counter_cap());
	free(cause);
}
END_TEST

/* More than the counters' capability and no way to give it up: refused,
 * never run with it. */
START_TEST(test_more_than_granted_fails)
{
	as_the_unit(1ull << CAP_DAC_OVERRIDE, true);
	char *cause = NULL;
	ck_assert_int_eq(privs_drop(NULL, true, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "cannot give up capabilities"), "%s", cause);
	free(cause);
}
END_TEST

/* Without a filter, what is not needed is still given up. */
START_TEST(test_no_filter_gives_up)
{
	as_the_unit(0, false);
	char *cause = NULL;
	int rc = privs_drop(NULL, false, &cause);
	ck_assert_msg(rc == 0, "privs_drop: %s", cause ? cause : "?");
	ck_assert_uint_eq(privs_effective(), 0);
	ck_assert_int_eq(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
	free(cause);
}
END_TEST

int main(void)
{
	if (geteuid() != 0) {
		puts("SKIP: needs root to set up a service's capabilities");
		return 77;
	}
	const char *fork = getenv("CK_FORK");
	if (fork && !strcmp(fork, "no")) {
		puts("SKIP: each test gives up capabilities for good: it needs a process of its own (CK_FORK=no)");
		return 77;
	}
	Suite *s = suite_create("privs");
	TCase *tc = tcase_create("unit");
	tcase_add_test(tc, test_unit_keeps_counters);
	tcase_add_test(tc, test_unit_sim_keeps_grant);
	tcase_add_test(tc, test_more_than_granted_fails);
	tcase_add_test(tc, test_no_filter_gives_up);
	suite_add_tcase(s, tc);
	return check_run(s);
}
