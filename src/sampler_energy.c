/* sampler_energy.c: the sampler's notices about the energy counters
 * (sampler_energy.h). A counter that exists but never moves has been seen
 * on VMs (power/energy-psys reading 0): a 0 W figure from it would be a
 * lie, so it is masked and said once. */
#include "config.h"
#include "sampler_energy.h"
#include "util.h"
#include "hot_path.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool energy_event(const struct model *m, int e)
{
	return e >= 0 && e < m->nevents && m->events[e].scale > 0;
}

char *energy_absent_notice(const struct model *m, const struct sched_plan *plan,
			   const struct pmu_backend_ops *ops, struct backend *bk)
{
	int counted = 0, lost = 0, pmu = -1;
	for (int e = 0; e < m->nevents; e++)
		counted += plan->event_used[e] && energy_event(m, e);
	for (int i = 0; i < plan->nunschedulable; i++)
		if (energy_event(m, plan->unschedulable[i])) {
			lost++;
			pmu = m->events[plan->unschedulable[i]].pmu;
		}
	if (lost == 0 || counted > 0)
		return NULL;
	struct bk_instance *inst = NULL;
	char *why = NULL;
	int n = ops->instances(bk, pmu, &inst, &why);
	for (int i = 0; i < n; i++)
		free(inst[i].perf_name);
	free(inst);
	char *line = xasprintf("no energy counters here%s%s: the power figures show - (docs/energy.md)",
			       why ? ": " : "", why ? why : "");
	free(why);
	return line;
}

/* Whether metric mi uses event e (directly or through other metrics). */
static bool metric_uses(const struct metric_def *md, int e)
{
	for (int k = 0; k < md->nevents; k++)
		if (md->events[k] == e)
			return true;
	return false;
}

HOT_PATH char *energy_mask_stuck(const struct model *m, struct snapshot *snap, bool *said)
{
	char *line = NULL;
	for (int e = 0; e < m->nevents; e++) {
		/* The planned mask first: a few bytes for every event of the
		 * model, where each event's definition is a cache line or more
		 * that the interval would otherwise read for nothing; and
		 * eight of its bytes at a time, since a plan holds a few dozen
		 * of a model's hundreds (an imported one's thousands) of
		 * events. A bool is one byte of 0 or 1. */
		if (!(e & 7) && e + 8 <= m->nevents) {
			uint64_t w;
			memcpy(&w, snap->event_planned + e, sizeof(w));
			if (!w) {
				e += 7;
				continue;
			}
		}
		if (!snap->event_planned[e] || !energy_event(m, e))
			continue;
		bool counted = false, moved = false;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < snap->nrows[sc]; r++) {
				const struct snap_row *row = &snap->rows[sc][r];
				counted |= snap_event_cov(snap, row, e) > 0 && !isnan(snap_event(snap, row, e));
				moved |= snap_event(snap, row, e) > 0;
			}
		if (!counted || moved)
			continue;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < snap->nrows[sc]; r++) {
				struct snap_row *row = &snap->rows[sc][r];
				if (snap_ecol(snap, e) >= 0)
					row->ev[snap_ecol(snap, e)] = NAN;
				for (int mi = 0; mi < m->nmetrics; mi++)
					if (snap_mcol(snap, mi) >= 0 && metric_uses(&m->metrics[mi], e))
						row->mv[snap_mcol(snap, mi)] = NAN;
			}
		if (said[e])
			continue;
		said[e] = true;
		const struct event_def *ed = &m->events[e];
		const struct pmu_def *pd = &m->pmus[ed->pmu];
		char *more = xasprintf("%s%s%s/%s counts nothing here (it reads 0): its figures show -, not 0 W",
				       line ? line : "", line ? "\n" : "", pd->perf_name ? pd->perf_name : pd->name,
				       ed->requires ? ed->requires + (strncmp(ed->requires, "events/", 7) ? 0 : 7)
						    : ed->name);
		free(line);
		line = more;
	}
	return line;
}
