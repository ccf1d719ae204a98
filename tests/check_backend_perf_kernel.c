/* check_backend_perf_kernel.c: the perf_event backend on the running
 * kernel: software events counted on CPUs 0 and 1, a hardware event
 * that a VM without a virtual PMU refuses, EMFILE under a lowered file
 * limit, and the paranoid level named in the hint. Each needs
 * perf_event_open for system-wide counters; where the kernel does not
 * permit it (not root, perf_event_paranoid too high, no perf events at
 * all) the program says why and exits 77, which automake counts as a
 * SKIP. What needs no such permission is in check_backend_perf. */
#include "config.h"
#include "backend.h"
#include "evdef.h"
#include "util.h"
#include "fixture.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* automake's exit status for a test that could not run. */
#define EXIT_SKIP 77

enum { P_CORE, P_SW, P_COUNT };
enum { E_TASK_CLOCK, E_CTXSW, E_CYCLES, E_CPU_CLOCK, E_COUNT };

static struct pmu_def pmus[P_COUNT] = {
	[P_CORE] = { .name = "core", .perf_name = "cpu", .kind = PMU_CORE, .scope = SCOPE_THREAD,
		     .counters = 6, .nmi_reserved = 1 },
	[P_SW] = { .name = "software", .perf_name = "software", .kind = PMU_SOFTWARE,
		   .scope = SCOPE_THREAD, .counters = 64 },
};

static struct event_def events[E_COUNT] = {
	[E_TASK_CLOCK] = { .name = "task_clock", .pmu = P_SW, .enc = ENC_PERF,
			   .spec = "software:task-clock" },
	[E_CTXSW] = { .name = "context_switches", .pmu = P_SW, .enc = ENC_PERF,
		      .spec = "software:context-switches" },
	[E_CYCLES] = { .name = "cycles", .pmu = P_CORE, .enc = ENC_PERF, .spec = "hardware:cycles" },
	[E_CPU_CLOCK] = { .name = "cpu_clock", .pmu = P_SW, .enc = ENC_PERF,
			  .spec = "software:cpu-clock" },
};

static struct model model = {
	.name = "test", .npmus = P_COUNT, .pmus = pmus, .nevents = E_COUNT, .events = events,
};

static const struct pmu_backend_ops *ops = &backend_perf;

START_TEST(software_group_counts)
{
	struct fx_real r;
	fx_real_open(&r, &model);
	struct bk_instance *in = NULL;
	char *why = NULL;
	int n = ops->instances(r.b, P_SW, &in, &why);
	ck_assert_int_eq(n, topo_online_count(r.t));
	int ncheck = n < 2 ? n : 2;
	struct bk_group *g[2] = { NULL, NULL };
	const int evs[2] = { E_TASK_CLOCK, E_CTXSW };
	for (int i = 0; i < ncheck; i++) {
		char *cause = NULL;
		ck_assert_int_eq(in[i].cpu, i);
		ck_assert_str_eq(in[i].perf_name, "software");
		int rc = ops->open_group(r.b, &in[i], evs, 2, &g[i], &cause);
		ck_assert_msg(rc == 0, "CPU %d: %d %s", i, rc, cause ? cause : "");
		/* Opened disabled: nothing counts before enable. */
		struct bk_count c[2];
		ck_assert_int_eq(ops->read(r.b, g[i], c), 0);
		ck_assert_uint_eq(c[0].value, 0);
		ck_assert_uint_eq(c[0].time_enabled, 0);
		ck_assert_int_eq(ops->enable(r.b, g[i]), 0);
	}
	fx_burn_ms(30);
	usleep(20000);
	struct bk_count first[2][2], second[2][2];
	for (int i = 0; i < ncheck; i++)
		ck_assert_int_eq(ops->read(r.b, g[i], first[i]), 0);
	uint64_t after_first = now_ns();
	fx_burn_ms(30);
	usleep(20000);
	uint64_t before_second = now_ns();
	for (int i = 0; i < ncheck; i++) {
		ck_assert_int_eq(ops->read(r.b, g[i], second[i]), 0);
		ck_assert_uint_gt(first[i][0].time_enabled, 0);
		ck_assert_uint_gt(first[i][0].time_running, 0);
		ck_assert_uint_le(first[i][0].time_running, first[i][0].time_enabled);
		/* Both events share the group's times. */
		ck_assert_uint_eq(first[i][0].time_enabled, first[i][1].time_enabled);
		ck_assert_uint_gt(first[i][0].value, 0);
		ck_assert_uint_gt(second[i][0].value, first[i][0].value);
		ck_assert_uint_gt(second[i][0].time_enabled, first[i][0].time_enabled);
		/* A system-wide task-clock counts wall time on its CPU: at
		 * least the time that passed between the two reads, as the
		 * monotonic clock saw it (the kernel's clock may run a
		 * little apart from it: 1 % of slack). */
		uint64_t d = second[i][0].value - first[i][0].value;
		ck_assert_msg((double)d >= 0.99 * (double)(before_second - after_first),
			      "CPU %d: task-clock grew %llu ns in %llu ns", i, (unsigned long long)d,
			      (unsigned long long)(before_second - after_first));
		ck_assert_uint_ge(second[i][1].value, first[i][1].value);
	}
	/* Disabled: the counts stop. */
	for (int i = 0; i < ncheck; i++) {
		struct bk_count a[2], b2[2];
		ck_assert_int_eq(ops->disable(r.b, g[i]), 0);
		ck_assert_int_eq(ops->read(r.b, g[i], a), 0);
		fx_burn_ms(5);
		ck_assert_int_eq(ops->read(r.b, g[i], b2), 0);
		ck_assert_uint_eq(a[0].value, b2[0].value);
		ck_assert_uint_eq(a[0].time_enabled, b2[0].time_enabled);
		ops->close(r.b, g[i]);
	}
	for (int i = 0; i < n; i++)
		free(in[i].perf_name);
	free(in);
	fx_real_close(&r);
}
END_TEST

/* A VM without a virtual PMU has no hardware events; a machine with one
 * opens them. */
START_TEST(hardware_event_refused)
{
	struct fx_real r;
	fx_real_open(&r, &model);
	struct bk_instance inst = { .pmu = P_CORE, .perf_name = "cpu", .cpu = 0 };
	struct bk_group *g = NULL;
	char *cause = NULL;
	int ev = E_CYCLES;
	int rc = ops->open_group(r.b, &inst, &ev, 1, &g, &cause);
	if (rc == 0) {
		fprintf(stderr, "hardware_event_refused: this machine has a hardware PMU\n");
		ops->close(r.b, g);
	} else {
		ck_assert_msg(rc == -ENOENT || rc == -EOPNOTSUPP, "rc %d: %s", rc, cause);
		ck_assert_ptr_null(g);
		ck_assert_ptr_nonnull(strstr(cause, "cycles on CPU 0"));
		ck_assert_ptr_nonnull(strstr(backend_error_hint(rc), "not available"));
		ck_assert_ptr_nonnull(strstr(backend_error_hint(rc), "--sim"));
		free(cause);
	}
	fx_real_close(&r);
}
END_TEST

START_TEST(paranoid_value_in_hint)
{
	long level;
	ck_assert_int_eq(read_long_file("/proc/sys/kernel/perf_event_paranoid", &level), 0);
	char want[64];
	snprintf(want, sizeof(want), "perf_event_paranoid is %ld", level);
	ck_assert_ptr_nonnull(strstr(backend_error_hint(-EACCES), want));
}
END_TEST

/* No file descriptor left: opening a group fails with -EMFILE. Run in a
 * child so that the lowered limit does not leak into other tests. */
START_TEST(emfile)
{
	struct fx_real r;
	fx_real_open(&r, &model);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int lowest = dup(0);
		if (lowest < 0)
			_exit(3);
		close(lowest);
		/* Room for exactly one more descriptor: the leader opens, the
		 * member cannot. Only the soft limit is lowered, which is what
		 * the kernel enforces, and which valgrind allows (it refuses to
		 * change the hard limit), so this test runs under valgrind too. */
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(4);
		rl.rlim_cur = (rlim_t)lowest + 1;
		for (int fd = lowest + 1; fd < lowest + 64; fd++)
			close(fd);
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(5);
		struct bk_instance inst = { .pmu = P_SW, .perf_name = "software", .cpu = 0 };
		struct bk_group *g = NULL;
		const int evs[2] = { E_TASK_CLOCK, E_CTXSW };
		int rc = ops->open_group(r.b, &inst, evs, 2, &g, NULL);
		int code = rc == -EMFILE && g == NULL ? 0 : 10 + (rc < 0 ? -rc : rc) % 100;
		/* Freed here too, so that valgrind finds no leak in the child. */
		fx_real_close(&r);
		_exit(code);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "child exit %d", WEXITSTATUS(status));
	fx_real_close(&r);
}
END_TEST

/* Whether the kernel lets this process count system-wide: a software
 * counter on CPU 0 opens. NULL when it does, else why not (static text
 * or the backend's cause, to print). Anything else that goes wrong is
 * left to the tests, which fail on it. */
static char *why_not_permitted(void)
{
	long level;
	if (read_long_file("/proc/sys/kernel/perf_event_paranoid", &level) < 0)
		return xstrdup("this kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)");
	char *cause = NULL;
	struct topo *t = topo_load("/sys", &cause);
	struct backend *b = t ? ops->create(&model, t, NULL, &cause) : NULL;
	char *why = NULL;
	if (b) {
		struct bk_instance inst = { .pmu = P_SW, .perf_name = "software", .cpu = 0 };
		struct bk_group *g = NULL;
		int ev = E_CPU_CLOCK;
		int rc = ops->open_group(b, &inst, &ev, 1, &g, &cause);
		if (rc == -EACCES || rc == -EPERM || rc == -ENOSYS)
			why = xasprintf("%s (%s)", cause ? cause : "perf_event_open refused", backend_error_hint(rc));
		else if (rc == 0)
			ops->close(b, g);
		ops->destroy(b);
	}
	free(cause);
	topo_free(t);
	return why;
}

static Suite *backend_perf_kernel_suite(void)
{
	Suite *s = suite_create("backend_perf_kernel");
	TCase *tc = tcase_create("kernel");
	tcase_add_test(tc, software_group_counts);
	tcase_add_test(tc, hardware_event_refused);
	tcase_add_test(tc, emfile);
	tcase_add_test(tc, paranoid_value_in_hint);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	char *why = why_not_permitted();
	if (why) {
		printf("SKIP: cannot count system-wide here: %s\n", why);
		free(why);
		return EXIT_SKIP;
	}
	return check_run(backend_perf_kernel_suite());
}
