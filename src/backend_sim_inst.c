/* backend_sim_inst.c: the simulated PMU's instances, the leaf that the
 * rest of the simulator calls: which CPUs are usable (online, not taken
 * offline by a fault), why a PMU has no instances, the instances of a PMU
 * (ops->instances), and which counter slots and workload quantities an
 * instance's groups use. Moved out of backend_sim.c so that its helpers
 * (backend_sim_clock.c, _mux.c, _tasks.c, _truth.c) call down into this
 * file rather than back up into the entry (docs/architecture.md). */
#include "config.h"
#include "backend.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "backend_sim_impl.h"

/* Online in the topology (which the caller may change with
 * topo_set_online) and not taken offline by an injected fault. */
bool sim_cpu_usable(const struct backend *b, int cpu)
{
	if (cpu < 0 || cpu >= b->ncpu_map || !b->cpus[cpu].present || b->cpus[cpu].offline)
		return false;
	const struct topo_cpu *tc = topo_cpu_by_num(b->t, cpu);
	return tc && tc->online;
}

static int first_usable(const struct backend *b, const int *cpus, int n)
{
	for (int k = 0; k < n; k++)
		if (sim_cpu_usable(b, cpus[k]))
			return cpus[k];
	return -1;
}

static bool per_cpu_pmu(const struct pmu_def *pd)
{
	return pd->kind != PMU_UNCORE || pd->scope == SCOPE_THREAD;
}

/* The glob's '*' replaced by n ("amd_umc_*" -> "amd_umc_3"). */
static char *glob_name(const char *glob, int n)
{
	const char *star = strchr(glob, '*');
	if (!star)
		return xstrdup(glob);
	return xasprintf("%.*s%d%s", (int)(star - glob), glob, n, star + 1);
}

static bool is_glob(const struct pmu_def *pd)
{
	return pd->perf_name && strchr(pd->perf_name, '*');
}

/* Why PMU p has no instances here, or NULL when it has. */
const char *sim_absent_why(const struct backend *b, int p)
{
	const struct pmu_def *pd = &b->m->pmus[p];
	if (b->absent[p])
		return "not present on this simulated machine (absent=)";
	if (pd->kind == PMU_UNCORE && pd->scope == SCOPE_CCX && b->nccx == 0)
		return "the simulated topology has no L3 (CCX)";
	if (pd->kind == PMU_UNCORE && pd->scope == SCOPE_SOCKET && b->nsockets == 0)
		return "the simulated topology has no sockets";
	return NULL;
}

static void add_instance(struct bk_instance **v, int *n, int *cap, int pmu, char *name, int cpu,
			 enum scope sc, int id)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, sizeof(**v) * (size_t)*cap);
	}
	(*v)[(*n)++] = (struct bk_instance){ .pmu = pmu, .perf_name = name, .cpu = cpu,
					     .scope = sc, .scope_id = id };
}

/* The caller frees each perf_name and the array. */
int sim_instances(struct backend *b, int pmu, struct bk_instance **out, char **why)
{
	*out = NULL;
	if (pmu < 0 || pmu >= b->m->npmus) {
		if (why)
			*why = xasprintf("no PMU number %d in model %s", pmu, b->m->name);
		return 0;
	}
	const struct pmu_def *pd = &b->m->pmus[pmu];
	const char *reason = sim_absent_why(b, pmu);
	if (reason) {
		if (why)
			*why = xasprintf("%s (%s): %s", pd->name, pd->perf_name, reason);
		return 0;
	}
	struct bk_instance *v = NULL;
	int n = 0, cap = 0;
	if (per_cpu_pmu(pd)) {
		for (int cpu = 0; cpu < b->ncpu_map; cpu++)
			if (sim_cpu_usable(b, cpu))
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, pd->scope, cpu);
	} else if (pd->scope == SCOPE_CORE) {
		/* One reader per core, as the kernel's cpumask lists them. */
		for (int k = 0; k < b->ncores; k++) {
			int cpu = first_usable(b, b->t->cores[k].cpus, b->t->cores[k].ncpus);
			if (cpu >= 0)
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, SCOPE_CORE, k);
		}
	} else if (pd->scope == SCOPE_CCX) {
		for (int x = 0; x < b->nccx; x++) {
			int cpu = first_usable(b, b->t->ccxs[x].cpus, b->t->ccxs[x].ncpus);
			if (cpu >= 0)
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, SCOPE_CCX, x);
		}
	} else if (pd->scope == SCOPE_SOCKET) {
		int nch = is_glob(pd) ? b->channels : 1;
		for (int s = 0; s < b->nsockets; s++) {
			int cpu = first_usable(b, b->t->sockets[s].cpus, b->t->sockets[s].ncpus);
			if (cpu < 0)
				continue;
			for (int k = 0; k < nch; k++)
				add_instance(&v, &n, &cap, pmu, glob_name(pd->perf_name, s * nch + k), cpu,
					     SCOPE_SOCKET, s);
		}
	} else {
		for (int cpu = 0; cpu < b->ncpu_map; cpu++)
			if (sim_cpu_usable(b, cpu)) {
				add_instance(&v, &n, &cap, pmu, xstrdup(pd->perf_name), cpu, pd->scope, 0);
				break;
			}
	}
	if (n == 0 && why)
		*why = xasprintf("%s (%s): no online CPU to read it on", pd->name, pd->perf_name);
	*out = v;
	return n;
}

int sim_slot_index(const struct backend *b, const struct pmu_def *pd, const struct bk_instance *inst,
		   int *nch, char **cause)
{
	*nch = 1;
	if (per_cpu_pmu(pd))
		return inst->cpu;
	if (pd->scope == SCOPE_CORE) {
		if (inst->scope_id < 0 || inst->scope_id >= b->ncores)
			return set_cause(cause, "sim: %s: no core %d", pd->perf_name, inst->scope_id);
		return inst->scope_id;
	}
	if (pd->scope == SCOPE_CCX) {
		if (inst->scope_id < 0 || inst->scope_id >= b->nccx)
			return set_cause(cause, "sim: %s: no CCX %d", pd->perf_name, inst->scope_id);
		return inst->scope_id;
	}
	if (pd->scope == SCOPE_SOCKET) {
		int s = inst->scope_id;
		if (s < 0 || s >= b->nsockets)
			return set_cause(cause, "sim: %s: no socket %d", pd->perf_name, s);
		if (!is_glob(pd))
			return s * b->channels;
		/* The channel is named by the instance's perf name. */
		const char *star = strchr(pd->perf_name, '*');
		size_t pre = (size_t)(star - pd->perf_name);
		const char *name = inst->perf_name ? inst->perf_name : "";
		char *end = NULL;
		long ch = -1;
		if (strncmp(name, pd->perf_name, pre) == 0 && isdigit((unsigned char)name[pre]))
			ch = strtol(name + pre, &end, 10);
		if (ch < 0 || ch / b->channels != s || strcmp(end, star + 1) != 0)
			return set_cause(cause, "sim: %s is not a memory channel of socket %d",
					 name, s);
		*nch = b->channels;
		return (int)ch;
	}
	return 0;
}

const double *sim_source_of(const struct backend *b, const struct pmu_def *pd,
			    const struct bk_instance *inst)
{
	if (per_cpu_pmu(pd))
		return b->cpus[inst->cpu].q;
	if (pd->scope == SCOPE_CORE)
		return b->core_q[inst->scope_id];
	if (pd->scope == SCOPE_CCX)
		return b->ccx_q[inst->scope_id];
	if (pd->scope == SCOPE_SOCKET)
		return b->sock_q[inst->scope_id];
	return b->sys_q;
}
