/* backend_perf.c: the real counters, through the kernel's perf_event_open.
 *
 * Every group is opened system-wide on one CPU (pid = -1, cpu = N), its
 * leader disabled, and read with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING so that one read() returns every member with the
 * times the sampler needs to scale for multiplexing. Uncore PMUs (amd_l3,
 * amd_umc_N) are opened only on the CPUs their sysfs cpumask lists.
 *
 * The energy counters: the perf `power` PMU, each event's count converted
 * to its definition's scale by what sysfs says (pmu_scale.c); where the
 * kernel has no power PMU, the powercap tree's RAPL domains (powercap.c)
 * stand in for it, one pseudo group per package read from energy_uj with
 * its wrap-around, so the sampler sees the same events either way.
 *
 * PMU_PROC is not a PMU: system-wide task-clock counts wall time whether
 * the CPU is busy or idle, so CPU utilisation comes from /proc/stat instead,
 * through a pseudo group that looks like any other group to the sampler.
 *
 * The backend argument, when given, is a fixture root used for tests: the
 * sysfs tree is read from ARG (ARG/bus/event_source/devices/...) and the
 * procfs files from ARG/proc (ARG/proc/stat, ARG/proc/sys/kernel/...). */
#include "config.h"
#include "backend.h"
#include "encode.h"
#include "perf_sample.h"
#include "pmu_scale.h"
#include "powercap.h"
#include "procstat.h"
#include "util.h"
#include "backend_perf_impl.h"
#include "hot_path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct backend *perf_create(const struct model *m, struct topo *t, const char *arg,
				   char **cause)
{
	if (!m || !t) {
		set_cause(cause, "perf backend: no model or topology");
		return NULL;
	}
	struct backend *b = xcalloc(1, sizeof(*b));
	b->stat_file = (struct text_reader)TEXT_READER_INIT;
	b->stat_file.short_read_ends = true;
	b->m = m;
	b->t = t;
	if (arg && *arg) {
		b->sysfs_root = xstrdup(arg);
		b->proc_root = xasprintf("%s/proc", arg);
	} else {
		b->sysfs_root = xstrdup("/sys");
		b->proc_root = xstrdup("/proc");
	}
	b->clk_tck = sysconf(_SC_CLK_TCK);
	if (b->clk_tck <= 0)
		b->clk_tck = 100;
	b->npc = -1;
	return b;
}

static void perf_destroy(struct backend *b)
{
	if (!b)
		return;
	free(b->sysfs_root);
	free(b->proc_root);
	free(b->stat_busy);
	free(b->stat_total);
	text_reader_close(&b->stat_file);
	free(b->stat_path);
	free(b->pinned);
	if (b->npc > 0)
		powercap_free(b->pc, b->npc);
	free(b->pc_why);
	free(b);
}

/* ---- instances ---- */

static void add_instance(struct bk_instance **out, int *n, int pmu, const char *perf_name,
			 int cpu, enum scope scope, int scope_id)
{
	*out = xrealloc(*out, sizeof(**out) * (size_t)(*n + 1));
	(*out)[*n] = (struct bk_instance){ .pmu = pmu, .perf_name = xstrdup(perf_name),
					   .cpu = cpu, .scope = scope, .scope_id = scope_id };
	(*n)++;
}

static int scope_id_of(const struct topo_cpu *c, enum scope scope)
{
	switch (scope) {
	case SCOPE_THREAD:
		return c->cpu;
	case SCOPE_CORE:
		return c->core;
	case SCOPE_CCX:
		return c->ccx;
	case SCOPE_SOCKET:
		return c->socket;
	default:
		return 0;
	}
}

/* Natural order, so that amd_umc_2 comes before amd_umc_10. */
static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The sysfs PMU directories matching name (a glob such as "amd_umc_*"). */
static int match_pmus(const char *devdir, const char *name, char ***out)
{
	int n = 0;
	*out = NULL;
	DIR *d = opendir(devdir);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || fnmatch(name, de->d_name, 0) != 0)
			continue;
		*out = xrealloc(*out, sizeof(char *) * (size_t)(n + 1));
		(*out)[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof(char *), cmp_names);
	return n;
}

static int uncore_instances(struct backend *b, int pmu, struct bk_instance **out, char **why)
{
	const struct pmu_def *pd = &b->m->pmus[pmu];
	char *devdir = xasprintf("%s/bus/event_source/devices", b->sysfs_root);
	char **names = NULL;
	int nnames = match_pmus(devdir, pd->perf_name, &names);
	int n = 0;
	char *problem = NULL;

	if (nnames == 0)
		problem = xasprintf("PMU %s not present (no %s/%s)", pd->perf_name, devdir,
				    pd->perf_name);
	for (int i = 0; i < nnames; i++) {
		char *path = xasprintf("%s/%s/cpumask", devdir, names[i]);
		char *mask = read_text_file(path);
		bool *bm = xcalloc((size_t)(b->t->max_cpu ? b->t->max_cpu : 1), sizeof(bool));
		char *err = NULL;
		if (!mask) {
			if (!problem)
				problem = xasprintf("PMU %s has no cpumask (%s: %s)", names[i], path,
						    strerror(errno));
		} else if (cpulist_parse(mask, bm, b->t->max_cpu, &err) < 0) {
			if (!problem)
				problem = xasprintf("PMU %s: bad cpumask in %s: %s", names[i], path, err);
		} else {
			for (int c = 0; c < b->t->max_cpu; c++) {
				const struct topo_cpu *tc = topo_cpu_by_num(b->t, c);
				/* The kernel moves the reader to another CPU when one goes
				 * offline; a stale listed CPU is skipped. */
				if (!bm[c] || !tc || !tc->online)
					continue;
				add_instance(out, &n, pmu, names[i], c, pd->scope,
					     scope_id_of(tc, pd->scope));
			}
		}
		free(err);
		free(bm);
		free(mask);
		free(path);
		free(names[i]);
	}
	free(names);
	free(devdir);
	if (n == 0 && !problem)
		problem = xasprintf("PMU %s lists no online CPU in its cpumask", pd->perf_name);
	if (n == 0 && why)
		*why = problem;
	else
		free(problem);
	return n;
}

/* ---- the energy counters' powercap stand-in ---- */

/* The perf power PMU where the kernel has one; else one instance per
 * powercap package, read on the package's first online CPU and named by
 * its domain ("intel-rapl:0"), which open_group recognises. */
static int power_instances(struct backend *b, int pmu, struct bk_instance **out, char **why)
{
	const struct pmu_def *pd = &b->m->pmus[pmu];
	if (perf_has_power_pmu(b))
		return uncore_instances(b, pmu, out, why);
	perf_powercap_load(b);
	int n = 0;
	for (int i = 0; i < b->npc; i++) {
		if (b->pc[i].kind != PC_PACKAGE)
			continue;
		int s = topo_socket_index(b->t, b->pc[i].package);
		if (s < 0 || s >= b->t->nsockets || b->t->sockets[s].ncpus == 0)
			continue;
		add_instance(out, &n, pmu, strrchr(b->pc[i].dir, '/') + 1, b->t->sockets[s].cpus[0],
			     pd->scope, s);
	}
	if (n == 0 && why)
		*why = xasprintf("no perf power PMU (%s/bus/event_source/devices/power) and %s",
				 b->sysfs_root, b->pc_why ? b->pc_why : "no powercap package domain");
	return n;
}

static int perf_instances(struct backend *b, int pmu, struct bk_instance **out, char **why)
{
	*out = NULL;
	if (why)
		*why = NULL;
	if (pmu < 0 || pmu >= b->m->npmus) {
		if (why)
			*why = xasprintf("no PMU %d in model %s", pmu, b->m->name);
		return 0;
	}
	const struct pmu_def *pd = &b->m->pmus[pmu];
	if (pd->kind == PMU_UNCORE && perf_is_power_pmu(pd))
		return power_instances(b, pmu, out, why);
	if (pd->kind == PMU_UNCORE)
		return uncore_instances(b, pmu, out, why);
	int n = 0;
	for (int i = 0; i < b->t->ncpus; i++) {
		const struct topo_cpu *c = &b->t->cpus[i];
		if (c->online)
			add_instance(out, &n, pmu, pd->perf_name ? pd->perf_name : pd->name, c->cpu,
				     pd->scope, scope_id_of(c, pd->scope));
	}
	if (n == 0 && why)
		*why = xstrdup("no CPU is online");
	return n;
}

static bool perf_has_feature(struct backend *b, int pmu, const char *path)
{
	if (pmu < 0 || pmu >= b->m->npmus || !path)
		return false;
	const struct pmu_def *pd = &b->m->pmus[pmu];
	char *file = xasprintf("%s/bus/event_source/devices/%s/%s", b->sysfs_root,
			       pd->perf_name ? pd->perf_name : pd->name, path);
	bool there = access(file, F_OK) == 0;
	free(file);
	/* Without the power PMU, a RAPL domain in the powercap tree counts
	 * the same energy. */
	if (!there && perf_is_power_pmu(pd) && !perf_has_power_pmu(b)) {
		int kind = powercap_kind_of_event(path);
		for (int s = 0; kind >= 0 && s < b->t->nsockets && !there; s++)
			there = perf_powercap_find(b, kind, s) != NULL;
	}
	return there;
}

static int perf_free_counters(struct backend *b, int pmu)
{
	if (pmu < 0 || pmu >= b->m->npmus)
		return 0;
	const struct pmu_def *pd = &b->m->pmus[pmu];
	int n = pd->counters;
	/* The watchdog holds a general counter (AMD) or the fixed cycles
	 * counter (Intel, counted among the fixed ones, not here). */
	if (pd->nmi_reserved > 0 && !pd->nmi_takes_fixed) {
		char *path = xasprintf("%s/sys/kernel/nmi_watchdog", b->proc_root);
		long on = 0;
		if (read_long_file(path, &on) == 0 && on == 1)
			n -= pd->nmi_reserved;
		free(path);
	}
	if (b->pinned)
		n -= b->pinned[pmu];
	return n < 0 ? 0 : n;
}

/* ---- perf_event groups ---- */

static int sys_perf_event_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* The kernel says ENXIO or ENODEV for an offline CPU; callers see ENODEV.
 * Other errors pass through as negative errno. */
static int map_errno(int e)
{
	if (e == ENXIO || e == ENODEV)
		return -ENODEV;
	if (e == E2BIG)
		return -EINVAL;
	if (e == ENOTSUP)
		return -EOPNOTSUPP;
	return e > 0 ? -e : -EIO;
}

static void group_free(struct bk_group *g)
{
	if (!g)
		return;
	if (g->fds) {
		/* Members first, the leader last. */
		for (int i = g->nevents - 1; i >= 0; i--)
			if (g->fds[i] >= 0)
				close(g->fds[i]);
	}
	free(g->fds);
	free(g->buf);
	free(g->proc_what);
	free(g->rescale);
	free(g->pc);
	free(g->pc_last);
	free(g->pc_total);
	free(g);
}

static int perf_open_group(struct backend *b, const struct bk_instance *inst, const int *events,
			   int nevents, struct bk_group **out, char **cause)
{
	*out = NULL;
	if (nevents <= 0 || inst->pmu < 0 || inst->pmu >= b->m->npmus) {
		set_cause(cause, "empty group or unknown PMU");
		return -EINVAL;
	}
	for (int i = 0; i < nevents; i++) {
		if (events[i] < 0 || events[i] >= b->m->nevents) {
			set_cause(cause, "event index %d out of range", events[i]);
			return -EINVAL;
		}
	}
	struct bk_group *g = xcalloc(1, sizeof(*g));
	g->cpu = inst->cpu;
	g->pmu = inst->pmu;
	g->nevents = nevents;
	int rc;
	if (b->m->pmus[inst->pmu].kind == PMU_PROC) {
		rc = perf_proc_open(b, inst, events, nevents, g, cause);
		goto done;
	}
	if (perf_is_power_pmu(&b->m->pmus[inst->pmu]) && !strncmp(inst->perf_name, "intel-rapl:", 11)) {
		rc = perf_powercap_open(b, inst, events, nevents, g, cause);
		goto done;
	}
	g->fds = xmalloc(sizeof(int) * (size_t)nevents);
	for (int i = 0; i < nevents; i++)
		g->fds[i] = -1;
	g->buf = xcalloc((size_t)nevents + 3, sizeof(uint64_t));
	for (int i = 0; i < nevents; i++) {
		const struct event_def *ev = &b->m->events[events[i]];
		struct perf_event_attr attr;
		char *why = NULL;
		rc = encode_event(b->m, ev, inst->perf_name, b->sysfs_root, &attr, &why);
		if (rc < 0) {
			set_cause(cause, "CPU %d: %s", inst->cpu, why ? why : "cannot encode");
			free(why);
			goto done;
		}
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* Only the leader starts disabled: enabling it with
		 * PERF_IOC_FLAG_GROUP starts the whole group at once. */
		attr.disabled = i == 0;
		attr.inherit = 0;
		int fd = sys_perf_event_open(&attr, inst->cpu, i == 0 ? -1 : g->fds[0]);
		if (fd < 0 && perf_powercap_has_all(b, inst, events, nevents)) {
			/* The kernel has the power PMU but will not open it here
			 * (not permitted, or a PMU it does not know): the powercap
			 * tree counts the same energy. */
			for (int j = 0; j < i; j++)
				close(g->fds[j]);
			free(g->fds);
			g->fds = NULL;
			free(g->rescale);
			g->rescale = NULL;
			rc = perf_powercap_open(b, inst, events, nevents, g, cause);
			goto done;
		}
		if (fd < 0) {
			int e = errno;
			rc = map_errno(e);
			set_cause(cause, "cannot open %s on CPU %d (PMU %s): %s", ev->name, inst->cpu,
				  inst->perf_name, strerror(e));
			goto done;
		}
		g->fds[i] = fd;
		double k = 1;
		rc = pmu_event_rescale(b->sysfs_root, inst->perf_name, ev, &k, &why);
		if (rc < 0) {
			set_cause(cause, "%s", why);
			free(why);
			rc = -EINVAL;
			goto done;
		}
		if (k != 1 && !g->rescale) {
			g->rescale = xmalloc(sizeof(double) * (size_t)nevents);
			for (int j = 0; j < nevents; j++)
				g->rescale[j] = 1;
		}
		if (g->rescale)
			g->rescale[i] = k;
	}
	rc = 0;
done:
	if (rc < 0) {
		group_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

static int group_ioctl(struct bk_group *g, unsigned long req)
{
	if (g->proc || g->pc)
		return 0;
	if (ioctl(g->fds[0], req, PERF_IOC_FLAG_GROUP) < 0)
		return map_errno(errno);
	return 0;
}

static int perf_enable(struct backend *b, struct bk_group *g)
{
	(void)b;
	int rc = group_ioctl(g, PERF_EVENT_IOC_ENABLE);
	if (rc == 0 && !g->enabled) {
		g->enabled = true;
		g->last_read_ns = 0;
	}
	return rc;
}

static int perf_disable(struct backend *b, struct bk_group *g)
{
	(void)b;
	int rc = group_ioctl(g, PERF_EVENT_IOC_DISABLE);
	if (rc == 0)
		g->enabled = false;
	return rc;
}

HOT_PATH static int perf_read(struct backend *b, struct bk_group *g, struct bk_count *out)
{
	if (g->proc)
		return perf_proc_read(b, g, out);
	if (g->pc)
		return perf_powercap_read(g, out);
	size_t want = sizeof(uint64_t) * ((size_t)g->nevents + 3);
	ssize_t n = read(g->fds[0], g->buf, want);
	if (n < 0)
		return map_errno(errno);
	/* A read of nothing means the kernel has dropped the event, which it
	 * does when the event's CPU goes away. */
	if (n == 0)
		return -ENODEV;
	/* CPU hotplug (seen on Linux 6.18): when the CPU goes offline the
	 * kernel takes the group apart, so the leader then reads as a group
	 * of one, with its times frozen; the events stay dead after the CPU
	 * returns. The caller closes and reopens on -ENODEV. */
	if ((size_t)n >= 3 * sizeof(uint64_t) && g->buf[0] < (uint64_t)g->nevents)
		return -ENODEV;
	if ((size_t)n != want || g->buf[0] != (uint64_t)g->nevents)
		return -EIO;
	/* A group of one cannot shrink; there the sign is that an enabled
	 * system-wide event stops accruing enabled time, which otherwise
	 * grows with the wall clock. */
	uint64_t now = now_ns();
	if (g->enabled && g->last_read_ns && now - g->last_read_ns > 1000000u &&
	    g->buf[1] == g->last_enabled)
		return -ENODEV;
	if (g->enabled) {
		g->last_read_ns = now;
		g->last_enabled = g->buf[1];
	}
	for (int i = 0; i < g->nevents; i++) {
		out[i].value = g->rescale ? (uint64_t)llround((double)g->buf[3 + i] * g->rescale[i]) : g->buf[3 + i];
		out[i].time_enabled = g->buf[1];
		out[i].time_running = g->buf[2];
	}
	return 0;
}

static void perf_close(struct backend *b, struct bk_group *g)
{
	(void)b;
	group_free(g);
}

/* ---- per-task sampling (perf_sample.c) ---- */

static int perf_sample_open(struct backend *b, int cpu, const int *events, int n, int freq,
			    struct bk_sampler **out, char **cause)
{
	int err = 0;
	*out = perf_sampler_open(b->m, b->sysfs_root, cpu, events, n, freq, &err, cause);
	if (!*out)
		return err;
	if (!b->pinned)
		b->pinned = xcalloc((size_t)b->m->npmus + 1, sizeof(int));
	for (int p = 0; p < b->m->npmus; p++) {
		int k = perf_sampler_counters(*out, b->m, p);
		if (k > b->pinned[p])
			b->pinned[p] = k;
	}
	b->nsamplers++;
	return 0;
}

static long perf_sample_drain(struct backend *b, struct bk_sampler *s, bk_sample_fn fn, void *arg)
{
	(void)b;
	return perf_sampler_drain(s, fn, arg);
}

static int perf_sample_read(struct backend *b, struct bk_sampler *s, struct bk_count *out)
{
	(void)b;
	return perf_sampler_read(s, out);
}

/* The highest of the CPUs' cpufreq cpuinfo_max_freq (kHz); 0 where cpufreq
 * says nothing (most VMs). */
static double perf_max_ghz(struct backend *b)
{
	long best = 0;
	for (int i = 0; i < b->t->ncpus; i++) {
		char *path = xasprintf("%s/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", b->sysfs_root,
				       b->t->cpus[i].cpu);
		long khz = 0;
		if (read_long_file(path, &khz) == 0 && khz > best)
			best = khz;
		free(path);
	}
	return (double)best / 1e6;
}

static void perf_sample_close(struct backend *b, struct bk_sampler *s)
{
	perf_sampler_close(s);
	if (--b->nsamplers <= 0 && b->pinned) {
		b->nsamplers = 0;
		memset(b->pinned, 0, sizeof(int) * (size_t)b->m->npmus);
	}
}

static int perf_task_info(struct backend *b, int pid, char *comm, size_t cap, char **cgroup)
{
	return proc_task_info(b->proc_root, pid, comm, cap, cgroup);
}

static uint64_t perf_now(struct backend *b)
{
	(void)b;
	return now_ns();
}

const struct pmu_backend_ops backend_perf = {
	.name = "perf",
	.simulated = false,
	.create = perf_create,
	.destroy = perf_destroy,
	.instances = perf_instances,
	.has_feature = perf_has_feature,
	.free_counters = perf_free_counters,
	.open_group = perf_open_group,
	.enable = perf_enable,
	.disable = perf_disable,
	.read = perf_read,
	.close = perf_close,
	.sample_open = perf_sample_open,
	.sample_drain = perf_sample_drain,
	.sample_read = perf_sample_read,
	.sample_close = perf_sample_close,
	.task_info = perf_task_info,
	.advance = NULL,
	.now = perf_now,
	.max_ghz = perf_max_ghz,
};
