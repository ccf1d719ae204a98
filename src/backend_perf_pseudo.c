/* backend_perf_pseudo.c: the groups of the real backend that are not
 * perf_event groups but look like them to the sampler: CPU utilisation
 * from /proc/stat (system-wide task-clock counts idle time too), parsed
 * once per read pass, and the energy counters from the powercap tree
 * where the kernel has no perf power PMU. */
#include "config.h"
#include "backend_perf_impl.h"
#include "encode.h"
#include "procstat.h"
#include "topo.h"
#include "hot_path.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool perf_is_power_pmu(const struct pmu_def *pd)
{
	return pd->perf_name && !strcmp(pd->perf_name, "power");
}

bool perf_has_power_pmu(const struct backend *b)
{
	char *dir = xasprintf("%s/bus/event_source/devices/power", b->sysfs_root);
	bool there = access(dir, F_OK) == 0;
	free(dir);
	return there;
}

void perf_powercap_load(struct backend *b)
{
	if (b->npc < 0)
		b->npc = powercap_list(b->sysfs_root, &b->pc, &b->pc_why);
}

/* The powercap domain of kind for the package of socket index sock; the
 * platform's (psys, one for the machine) counts on the first socket. */
struct powercap_domain *perf_powercap_find(struct backend *b, int kind, int sock)
{
	perf_powercap_load(b);
	for (int i = 0; i < b->npc; i++)
		if ((int)b->pc[i].kind == kind &&
		    (kind == PC_PSYS ? sock == 0 : topo_socket_index(b->t, b->pc[i].package) == sock))
			return &b->pc[i];
	return NULL;
}

/* ---- /proc/stat pseudo groups ---- */

/* Parses every "cpuN" line of /proc/stat into the cache (procstat.c). */
static void proc_stat_load(struct backend *b)
{
	int n = b->t->max_cpu > 0 ? b->t->max_cpu : 1;
	if (b->stat_n != n) {
		free(b->stat_busy);
		free(b->stat_total);
		b->stat_busy = xmalloc(sizeof(uint64_t) * (size_t)n);
		b->stat_total = xmalloc(sizeof(uint64_t) * (size_t)n);
		b->stat_n = n;
	}
	b->stat_at = now_ns();
	if (!b->stat_path)
		b->stat_path = xasprintf("%s/stat", b->proc_root);
	const char *text = text_reader_read(&b->stat_file, b->stat_path);
	b->stat_err = procstat_parse(text, b->clk_tck, b->stat_busy, b->stat_total, n) < 0 ? -EIO : 0;
}

/* Busy and total ns of one CPU from /proc/stat. -ENODEV when the CPU has no
 * line (offline), -EIO when the file cannot be read or parsed. */
HOT_PATH static int proc_read_cpu(struct backend *b, int cpu, uint64_t out[2])
{
	if (b->stat_at == 0 || now_ns() - b->stat_at > STAT_CACHE_NS || b->stat_n != b->t->max_cpu)
		proc_stat_load(b);
	if (b->stat_err)
		return b->stat_err;
	if (cpu < 0 || cpu >= b->stat_n || b->stat_total[cpu] == PROCSTAT_NONE)
		return -ENODEV;
	out[PROC_BUSY] = b->stat_busy[cpu];
	out[PROC_TOTAL] = b->stat_total[cpu];
	return 0;
}

int perf_proc_open(struct backend *b, const struct bk_instance *inst, const int *events,
		     int nevents, struct bk_group *g, char **cause)
{
	g->proc = true;
	g->proc_what = xcalloc((size_t)nevents, sizeof(int));
	for (int i = 0; i < nevents; i++) {
		const struct event_def *ev = &b->m->events[events[i]];
		const char *spec = ev->spec ? ev->spec : "";
		if (ev->enc != ENC_PROC) {
			set_cause(cause, "event %s is not a /proc/stat figure but is in a proc group",
				  ev->name);
			return -EINVAL;
		}
		if (strcmp(spec, "busy_ns") == 0)
			g->proc_what[i] = PROC_BUSY;
		else if (strcmp(spec, "total_ns") == 0)
			g->proc_what[i] = PROC_TOTAL;
		else if (strcmp(spec, "online_ns") == 0)
			g->proc_what[i] = PROC_ONLINE;
		else {
			set_cause(cause, "event %s: unknown /proc/stat figure '%s' (busy_ns, total_ns or online_ns)",
				  ev->name, spec);
			return -EINVAL;
		}
	}
	int rc = proc_read_cpu(b, inst->cpu, g->base);
	if (rc < 0) {
		set_cause(cause, "CPU %d: %s", inst->cpu,
			  rc == -ENODEV ? "not in /proc/stat (offline)" : "cannot read /proc/stat");
		return rc;
	}
	g->t0 = now_ns();
	return 0;
}

HOT_PATH int perf_proc_read(struct backend *b, struct bk_group *g, struct bk_count *out)
{
	uint64_t cur[2];
	int rc = proc_read_cpu(b, g->cpu, cur);
	if (rc < 0)
		return rc;
	/* /proc/stat counts in ticks while the pseudo group counts wall time
	 * since open; it always runs, so enabled == running == elapsed. */
	uint64_t elapsed = now_ns() - g->t0;
	for (int i = 0; i < g->nevents; i++) {
		int w = g->proc_what[i];
		if (w == PROC_ONLINE)
			out[i].value = elapsed;
		else
			out[i].value = cur[w] >= g->base[w] ? cur[w] - g->base[w] : 0;
		out[i].time_enabled = elapsed;
		out[i].time_running = elapsed;
	}
	return 0;
}

/* A powercap pseudo group: each event's RAPL domain on the instance's
 * package, counted from now; energy_uj's microjoules are converted to the
 * event's scale. The counters run all the time, so enabled and running
 * time are the time since open. */
int perf_powercap_open(struct backend *b, const struct bk_instance *inst, const int *events,
			 int nevents, struct bk_group *g, char **cause)
{
	g->pc = xcalloc((size_t)nevents, sizeof(*g->pc));
	g->pc_last = xcalloc((size_t)nevents, sizeof(uint64_t));
	g->pc_total = xcalloc((size_t)nevents, sizeof(uint64_t));
	g->rescale = xmalloc(sizeof(double) * (size_t)nevents);
	for (int i = 0; i < nevents; i++) {
		const struct event_def *ev = &b->m->events[events[i]];
		int kind = powercap_kind_of_event(ev->requires);
		g->pc[i] = kind >= 0 && ev->scale > 0 ? perf_powercap_find(b, kind, inst->scope_id) : NULL;
		if (!g->pc[i]) {
			set_cause(cause, "%s: no powercap domain counts it on package %d", ev->name, inst->scope_id);
			return -ENOENT;
		}
		g->rescale[i] = 1e-6 / ev->scale;
		int rc = powercap_read_uj(g->pc[i], &g->pc_last[i], cause);
		if (rc < 0)
			return rc;
	}
	g->t0 = now_ns();
	return 0;
}

/* Whether every event of a power PMU group has a powercap domain on the
 * instance's package. */
bool perf_powercap_has_all(struct backend *b, const struct bk_instance *inst, const int *events, int nevents)
{
	if (!perf_is_power_pmu(&b->m->pmus[inst->pmu]))
		return false;
	for (int i = 0; i < nevents; i++) {
		const struct event_def *ev = &b->m->events[events[i]];
		int kind = powercap_kind_of_event(ev->requires);
		if (kind < 0 || !(ev->scale > 0) || !perf_powercap_find(b, kind, inst->scope_id))
			return false;
	}
	return true;
}

int perf_powercap_read(struct bk_group *g, struct bk_count *out)
{
	uint64_t t = now_ns() - g->t0;
	for (int i = 0; i < g->nevents; i++) {
		uint64_t uj;
		int rc = powercap_read_uj(g->pc[i], &uj, NULL);
		if (rc < 0)
			return rc;
		g->pc_total[i] += powercap_delta(g->pc_last[i], uj, g->pc[i]->max_range_uj);
		g->pc_last[i] = uj;
		out[i].value = (uint64_t)llround((double)g->pc_total[i] * g->rescale[i]);
		out[i].time_enabled = out[i].time_running = t;
	}
	return 0;
}
