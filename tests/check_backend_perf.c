/* check_backend_perf.c: the perf_event backend where it needs no
 * permission to count: /proc/stat busy time on the real machine, groups
 * it refuses, uncore instances and counter budgets from sysfs fixtures,
 * and the error hints. What needs perf_event_open on the running kernel
 * is in check_backend_perf_kernel, which is skipped where that is not
 * permitted. */
#include "config.h"
#include "backend.h"
#include "evdef.h"
#include "util.h"

#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FIX TOP_SRCDIR "/tests/fixtures/sysfs/"

enum { P_CORE, P_L3, P_UMC, P_SW, P_PROC, P_DF, P_INTEL, P_COUNT };
enum { E_TASK_CLOCK, E_CTXSW, E_CYCLES, E_BUSY, E_TOTAL, E_CPU_CLOCK, E_BAD_PROC, E_COUNT };

static struct pmu_def pmus[P_COUNT] = {
	[P_CORE] = { .name = "core", .perf_name = "cpu", .kind = PMU_CORE, .scope = SCOPE_THREAD,
		     .counters = 6, .nmi_reserved = 1 },
	[P_L3] = { .name = "l3", .perf_name = "amd_l3", .kind = PMU_UNCORE, .scope = SCOPE_CCX,
		   .counters = 6 },
	[P_UMC] = { .name = "umc", .perf_name = "amd_umc_*", .kind = PMU_UNCORE,
		    .scope = SCOPE_SOCKET, .counters = 4 },
	[P_SW] = { .name = "software", .perf_name = "software", .kind = PMU_SOFTWARE,
		   .scope = SCOPE_THREAD, .counters = 64 },
	[P_PROC] = { .name = "proc", .perf_name = "proc", .kind = PMU_PROC, .scope = SCOPE_THREAD,
		     .counters = 2 },
	[P_DF] = { .name = "df", .perf_name = "amd_df", .kind = PMU_UNCORE, .scope = SCOPE_SOCKET,
		   .counters = 4 },
	[P_INTEL] = { .name = "intel", .perf_name = "cpu", .kind = PMU_CORE, .scope = SCOPE_THREAD,
		      .counters = 4, .fixed = 3, .nmi_reserved = 1, .nmi_takes_fixed = true },
};

static struct event_def events[E_COUNT] = {
	[E_TASK_CLOCK] = { .name = "task_clock", .pmu = P_SW, .enc = ENC_PERF,
			   .spec = "software:task-clock" },
	[E_CTXSW] = { .name = "context_switches", .pmu = P_SW, .enc = ENC_PERF,
		      .spec = "software:context-switches" },
	[E_CYCLES] = { .name = "cycles", .pmu = P_CORE, .enc = ENC_PERF, .spec = "hardware:cycles" },
	[E_BUSY] = { .name = "cpu_busy_ns", .pmu = P_PROC, .enc = ENC_PROC, .spec = "busy_ns" },
	[E_TOTAL] = { .name = "cpu_total_ns", .pmu = P_PROC, .enc = ENC_PROC, .spec = "total_ns" },
	[E_CPU_CLOCK] = { .name = "cpu_clock", .pmu = P_SW, .enc = ENC_PERF,
			  .spec = "software:cpu-clock" },
	[E_BAD_PROC] = { .name = "bad_proc", .pmu = P_PROC, .enc = ENC_PROC, .spec = "steal_ns" },
};

static struct model model = {
	.name = "test", .npmus = P_COUNT, .pmus = pmus, .nevents = E_COUNT, .events = events,
};

static const struct pmu_backend_ops *ops = &backend_perf;

static void free_instances(struct bk_instance *in, int n)
{
	for (int i = 0; i < n; i++)
		free(in[i].perf_name);
	free(in);
}

START_TEST(proc_group_real)
{
	struct fx_real r;
	fx_real_open(&r, &model);
	struct bk_instance *in = NULL;
	char *why = NULL, *cause = NULL;
	int n = ops->instances(r.b, P_PROC, &in, &why);
	ck_assert_int_eq(n, topo_online_count(r.t));
	struct bk_group *g = NULL;
	const int evs[2] = { E_BUSY, E_TOTAL };
	uint64_t before_open = now_ns();
	ck_assert_msg(ops->open_group(r.b, &in[0], evs, 2, &g, &cause) == 0, "%s", cause);
	uint64_t opened = now_ns();
	ck_assert_int_eq(ops->enable(r.b, g), 0);
	/* Long enough for /proc/stat to tick over. */
	fx_burn_ms(60);
	usleep(60000);
	struct bk_count c[2];
	uint64_t before_read = now_ns();
	ck_assert_int_eq(ops->read(r.b, g, c), 0);
	uint64_t after_read = now_ns();
	ck_assert_uint_le(c[0].value, c[1].value);
	ck_assert_uint_gt(c[1].value, 0);
	ck_assert_uint_eq(c[0].time_enabled, c[0].time_running);
	/* The pseudo group counts wall time since its open: within what
	 * the monotonic clock saw around the open and the read. */
	ck_assert_uint_ge(c[0].time_enabled, before_read - opened);
	ck_assert_uint_le(c[0].time_enabled, after_read - before_open);
	ck_assert_uint_eq(c[1].time_enabled, c[0].time_enabled);
	ops->close(r.b, g);
	free_instances(in, n);
	fx_real_close(&r);
}
END_TEST

START_TEST(bad_groups)
{
	struct fx_real r;
	fx_real_open(&r, &model);
	struct bk_instance proc = { .pmu = P_PROC, .perf_name = "proc", .cpu = 0 };
	struct bk_instance sw = { .pmu = P_SW, .perf_name = "software", .cpu = 0 };
	struct bk_group *g = NULL;
	char *cause = NULL;
	int evs[2] = { E_BUSY, E_TASK_CLOCK };
	/* A perf event in a /proc/stat group and the other way round. */
	ck_assert_int_eq(ops->open_group(r.b, &proc, evs, 2, &g, &cause), -EINVAL);
	ck_assert_ptr_nonnull(strstr(cause, "task_clock"));
	free(cause);
	ck_assert_int_eq(ops->open_group(r.b, &sw, evs, 1, &g, &cause), -EINVAL);
	ck_assert_ptr_nonnull(strstr(cause, "not a perf event"));
	free(cause);
	evs[0] = E_BAD_PROC;
	ck_assert_int_eq(ops->open_group(r.b, &proc, evs, 1, &g, &cause), -EINVAL);
	ck_assert_ptr_nonnull(strstr(cause, "steal_ns"));
	free(cause);
	evs[0] = 999;
	ck_assert_int_eq(ops->open_group(r.b, &sw, evs, 1, &g, &cause), -EINVAL);
	free(cause);
	ck_assert_int_eq(ops->open_group(r.b, &sw, evs, 0, &g, &cause), -EINVAL);
	free(cause);
	ck_assert_ptr_null(g);
	fx_real_close(&r);
}
END_TEST

/* /proc/stat arithmetic on a fixture: ticks of USER_HZ to ns, busy is total
 * minus idle and iowait, and a CPU without a line is offline. */
START_TEST(proc_stat_fixture)
{
	char root[] = "/tmp/check_backend_perf.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	char *dir = xasprintf("%s/proc", root), *stat = xasprintf("%s/proc/stat", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	FILE *f = fopen(stat, "w");
	fputs("cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\n"
	      "cpu1 5 0 5 50 0 0 0 0 0 0\nintr 1\n", f);
	fclose(f);
	struct topo *t = topo_load(FIX "vm2", NULL);
	ck_assert_ptr_nonnull(t);
	char *cause = NULL;
	struct backend *b = ops->create(&model, t, root, &cause);
	ck_assert_ptr_nonnull(b);
	struct bk_instance i1 = { .pmu = P_PROC, .perf_name = "proc", .cpu = 1 };
	struct bk_instance i7 = { .pmu = P_PROC, .perf_name = "proc", .cpu = 7 };
	struct bk_group *g = NULL;
	const int evs[2] = { E_TOTAL, E_BUSY };
	ck_assert_int_eq(ops->open_group(b, &i7, evs, 2, &g, &cause), -ENODEV);
	ck_assert_ptr_nonnull(strstr(cause, "CPU 7"));
	free(cause);
	uint64_t before_open = now_ns();
	ck_assert_msg(ops->open_group(b, &i1, evs, 2, &g, &cause) == 0, "%s", cause);
	uint64_t opened = now_ns();
	/* user +7, nice +1, system +2, idle +30, iowait +4, irq +1, softirq +1,
	 * steal +2, guest +3 (already inside user). */
	f = fopen(stat, "w");
	fputs("cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\n"
	      "cpu1 12 1 7 80 4 1 1 2 3 0\nintr 1\n", f);
	fclose(f);
	/* Later than one read pass: one parse of /proc/stat serves a pass. */
	usleep(3000);
	struct bk_count c[2];
	uint64_t before_read = now_ns();
	ck_assert_int_eq(ops->read(b, g, c), 0);
	uint64_t after_read = now_ns();
	uint64_t tick = 1000000000u / (uint64_t)sysconf(_SC_CLK_TCK);
	ck_assert_uint_eq(c[0].value, (7 + 1 + 2 + 30 + 4 + 1 + 1 + 2) * tick);
	ck_assert_uint_eq(c[1].value, (7 + 1 + 2 + 1 + 1 + 2) * tick);
	ck_assert_uint_ge(c[0].time_enabled, before_read - opened);
	ck_assert_uint_le(c[0].time_enabled, after_read - before_open);
	ck_assert_uint_eq(c[0].time_running, c[0].time_enabled);
	/* CPU 1 went offline: its line is gone. */
	f = fopen(stat, "w");
	fputs("cpu  10 0 10 100 0 0 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0 0 0\nintr 1\n", f);
	fclose(f);
	usleep(3000);
	ck_assert_int_eq(ops->read(b, g, c), -ENODEV);
	ops->close(b, g);
	ops->destroy(b);
	topo_free(t);
	char *cmd = xasprintf("rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
	free(stat);
}
END_TEST

struct want_inst { int cpu; const char *name; int scope_id; };

static void assert_instances(struct backend *b, int pmu, const struct want_inst *w, int nw)
{
	struct bk_instance *in = NULL;
	char *why = NULL;
	int n = ops->instances(b, pmu, &in, &why);
	ck_assert_msg(n == nw, "PMU %d: %d instances, wanted %d (%s)", pmu, n, nw, why ? why : "");
	ck_assert_ptr_null(why);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(in[i].pmu, pmu);
		ck_assert_int_eq(in[i].cpu, w[i].cpu);
		ck_assert_str_eq(in[i].perf_name, w[i].name);
		ck_assert_int_eq(in[i].scope_id, w[i].scope_id);
		ck_assert_int_eq(in[i].scope, pmus[pmu].scope);
	}
	free_instances(in, n);
}

START_TEST(uncore_instances_1s)
{
	struct topo *t = topo_load(FIX "zen5-1s16c", NULL);
	struct backend *b = ops->create(&model, t, FIX "zen5-1s16c", NULL);
	ck_assert_ptr_nonnull(b);
	/* amd_l3's cpumask "0,8": one reader per CCX. */
	const struct want_inst l3[] = { { 0, "amd_l3", 0 }, { 8, "amd_l3", 1 } };
	assert_instances(b, P_L3, l3, 2);
	/* amd_umc_* expands to 12 PMUs, in natural order, all on socket 0. */
	struct want_inst umc[12];
	char names[12][24];
	for (int i = 0; i < 12; i++) {
		snprintf(names[i], sizeof(names[i]), "amd_umc_%d", i);
		umc[i] = (struct want_inst){ 0, names[i], 0 };
	}
	assert_instances(b, P_UMC, umc, 12);
	/* Core PMUs: every online CPU, scope id = CPU. */
	struct want_inst core[32];
	for (int i = 0; i < 32; i++)
		core[i] = (struct want_inst){ i, "cpu", i };
	assert_instances(b, P_CORE, core, 32);
	/* Absent PMU: no instances and one line why. */
	struct bk_instance *in = NULL;
	char *why = NULL;
	ck_assert_int_eq(ops->instances(b, P_DF, &in, &why), 0);
	ck_assert_ptr_null(in);
	ck_assert_str_eq(why, "PMU amd_df not present (no " FIX
			 "zen5-1s16c/bus/event_source/devices/amd_df)");
	free(why);
	ck_assert_int_eq(ops->instances(b, 99, &in, &why), 0);
	ck_assert_ptr_nonnull(why);
	free(why);
	ops->destroy(b);
	topo_free(t);
}
END_TEST

START_TEST(uncore_instances_2s)
{
	struct topo *t = topo_load(FIX "zen5-2s192c", NULL);
	struct backend *b = ops->create(&model, t, FIX "zen5-2s192c", NULL);
	struct want_inst l3[24], umc[24];
	char names[24][24];
	for (int i = 0; i < 24; i++) {
		l3[i] = (struct want_inst){ i * 8, "amd_l3", i };
		snprintf(names[i], sizeof(names[i]), "amd_umc_%d", i);
		umc[i] = (struct want_inst){ i < 12 ? 0 : 96, names[i], i < 12 ? 0 : 1 };
	}
	assert_instances(b, P_L3, l3, 24);
	assert_instances(b, P_UMC, umc, 24);
	/* Offline CPUs 5, 200, 383 get no core instance. */
	struct bk_instance *in = NULL;
	ck_assert_int_eq(ops->instances(b, P_CORE, &in, NULL), 381);
	for (int i = 0; i < 381; i++)
		ck_assert(in[i].cpu != 5 && in[i].cpu != 200 && in[i].cpu != 383);
	free_instances(in, 381);
	/* The proc pseudo PMU follows the CPUs too. */
	ck_assert_int_eq(ops->instances(b, P_PROC, &in, NULL), 381);
	free_instances(in, 381);
	/* An L3 reader CPU that went offline is skipped, the rest stays. */
	topo_set_online(t, 16, false);
	ck_assert_int_eq(ops->instances(b, P_L3, &in, NULL), 23);
	ck_assert_int_eq(in[2].cpu, 24);
	ck_assert_int_eq(in[2].scope_id, 3);
	free_instances(in, 23);
	ops->destroy(b);
	topo_free(t);
}
END_TEST

/* Sapphire/Emerald Rapids: every uncore_cha_N and uncore_imc_N lists one CPU
 * per socket, so each is opened once per socket, and the CHAs' scope (the
 * L3 domain) is the socket's L3 (intel-spr, emr-2s-snc2 fixture). */
START_TEST(uncore_instances_spr)
{
	struct model *m = fx_model("events/intel/spr");
	struct topo *t = topo_load(FIX "emr-2s-snc2", NULL);
	ck_assert_ptr_nonnull(t);
	struct backend *b = ops->create(m, t, FIX "emr-2s-snc2", NULL);
	ck_assert_ptr_nonnull(b);
	int cha = model_find_pmu(m, "cha"), imc = model_find_pmu(m, "imc");
	ck_assert_int_ge(cha, 0);
	ck_assert_int_ge(imc, 0);
	struct bk_instance *in = NULL;
	char *why = NULL;
	int n = ops->instances(b, cha, &in, &why);
	ck_assert_msg(n == 120, "%d CHA instances (%s)", n, why ? why : "");
	int per_ccx[2] = { 0, 0 };
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(in[i].scope, SCOPE_CCX);
		ck_assert(in[i].cpu == 0 || in[i].cpu == 64);
		ck_assert_int_eq(in[i].scope_id, in[i].cpu == 0 ? 0 : 1);
		per_ccx[in[i].scope_id]++;
	}
	ck_assert_int_eq(per_ccx[0], 60);
	ck_assert_int_eq(per_ccx[1], 60);
	ck_assert_str_eq(in[0].perf_name, "uncore_cha_0");
	free_instances(in, n);
	n = ops->instances(b, imc, &in, &why);
	ck_assert_int_eq(n, 16);
	ck_assert_int_eq(in[15].scope_id, 1);
	free_instances(in, n);
	ops->destroy(b);
	topo_free(t);
	model_free(m);
}
END_TEST

/* PERF_METRICS is there when the kernel lists its events in sysfs: each
 * event that requires one finds it on the Emerald Rapids fixture and not on
 * the Westmere one, and its raw value is what the kernel's file says. */
START_TEST(perf_metrics_feature)
{
	struct model *m = fx_model("events/intel/spr");
	struct topo *t = topo_load(FIX "emr-2s-snc2", NULL);
	struct topo *t2 = topo_load(FIX "wsm-2s", NULL);
	ck_assert(t && t2);
	struct backend *b = ops->create(m, t, FIX "emr-2s-snc2", NULL);
	struct backend *old = ops->create(m, t2, FIX "wsm-2s", NULL);
	ck_assert(b && old);
	int nreq = 0;
	for (int e = 0; e < m->nevents; e++) {
		const struct event_def *ed = &m->events[e];
		/* The energy counters' requires are check_energy's. */
		if (!ed->requires || m->pmus[ed->pmu].kind != PMU_CORE)
			continue;
		nreq++;
		ck_assert_msg(ops->has_feature(b, ed->pmu, ed->requires), "%s: no %s", ed->name, ed->requires);
		ck_assert(!ops->has_feature(old, ed->pmu, ed->requires));
		ck_assert_int_ge(ed->fallback, 0);
		char *path = xasprintf(FIX "emr-2s-snc2/bus/event_source/devices/cpu/%s", ed->requires);
		char *text = read_text_file(path);
		ck_assert_ptr_nonnull(text);
		unsigned ev = 99, um = 99;
		ck_assert_int_eq(sscanf(text, "event=0x%x,umask=0x%x", &ev, &um), 2);
		ck_assert_msg(ed->raw == ((uint64_t)um << 8 | ev), "%s: raw 0x%llx, kernel %s", ed->name,
			      (unsigned long long)ed->raw, text);
		free(text);
		free(path);
	}
	ck_assert_int_eq(nreq, 8);   /* slots and seven topdown events */
	ck_assert(!ops->has_feature(b, m->npmus, "events/slots"));
	ops->destroy(b);
	ops->destroy(old);
	topo_free(t);
	topo_free(t2);
	model_free(m);
}
END_TEST

/* The NMI watchdog holds a general counter on AMD while it is on. */
START_TEST(free_counters)
{
	struct topo *t = topo_load(FIX "zen5-1s16c", NULL);
	struct backend *on = ops->create(&model, t, FIX "zen5-1s16c", NULL);
	struct backend *off = ops->create(&model, t, FIX "zen5-2s192c", NULL);
	struct backend *none = ops->create(&model, t, FIX "vm2", NULL);
	ck_assert_int_eq(ops->free_counters(on, P_CORE), 5);
	ck_assert_int_eq(ops->free_counters(off, P_CORE), 6);
	ck_assert_int_eq(ops->free_counters(none, P_CORE), 6); /* no file: assume off */
	ck_assert_int_eq(ops->free_counters(on, P_L3), 6);
	ck_assert_int_eq(ops->free_counters(on, P_UMC), 4);
	/* Intel: the watchdog takes the fixed cycles counter instead. */
	ck_assert_int_eq(ops->free_counters(on, P_INTEL), 4);
	ck_assert_int_eq(ops->free_counters(on, 99), 0);
	ops->destroy(on);
	ops->destroy(off);
	ops->destroy(none);
	topo_free(t);
}
END_TEST

static const struct {
	int err;
	const char *want[3];
} hints[] = {
	{ -EACCES, { "perf_event_paranoid", "CAP_PERFMON", "sysctl kernel.perf_event_paranoid=0" } },
	{ -EPERM, { "perf_event_paranoid", "root", "pmctop group" } },
	{ EACCES, { "perf_event_paranoid", NULL, NULL } },
	{ -ENOENT, { "not available", "VM", "--sim" } },
	{ -EOPNOTSUPP, { "not available", "--sim", NULL } },
	{ -EMFILE, { "open files", "ulimit -n", NULL } },
	{ -EBUSY, { "another tool", NULL, NULL } },
	{ -ENODEV, { "offline", NULL, NULL } },
	{ -ENXIO, { "offline", NULL, NULL } },
	{ -EINVAL, { "encoding", NULL, NULL } },
	{ -ENOSPC, { "counter", NULL, NULL } },
	{ -E2BIG, { "perf_event_open(2)", NULL, NULL } },
};

START_TEST(error_hints)
{
	const char *h = backend_error_hint(hints[_i].err);
	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_null(strchr(h, '\n'));
	for (int k = 0; k < 3 && hints[_i].want[k]; k++)
		ck_assert_msg(strstr(h, hints[_i].want[k]) != NULL, "hint for %d: '%s' lacks '%s'",
			      hints[_i].err, h, hints[_i].want[k]);
}
END_TEST

static Suite *backend_perf_suite(void)
{
	Suite *s = suite_create("backend_perf");
	TCase *tc = tcase_create("real");
	tcase_add_test(tc, proc_group_real);
	tcase_add_test(tc, bad_groups);
	suite_add_tcase(s, tc);
	tc = tcase_create("fixtures");
	tcase_add_test(tc, proc_stat_fixture);
	tcase_add_test(tc, uncore_instances_1s);
	tcase_add_test(tc, uncore_instances_2s);
	tcase_add_test(tc, uncore_instances_spr);
	tcase_add_test(tc, perf_metrics_feature);
	tcase_add_test(tc, free_counters);
	tcase_add_loop_test(tc, error_hints, 0, (int)ARRAY_SIZE(hints));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(backend_perf_suite());
}
