/* sim_counters.c: counter masks in the simulated PMU. Some events may
 * only be counted on some general counters (Intel's "Counter": "0,1,2,3"
 * on an 8-counter core, as Linux perf's event files state it); the kernel
 * refuses a group whose events it cannot all place, and so does the
 * simulator, so that a schedule the real kernel would refuse fails in
 * tests too. Events on fixed counters (while there are fixed counters),
 * PERF_METRICS events and merged pairs are placed by backend_sim.c's own
 * counting. */
#include "config.h"
#include "sim_counters.h"
#include "sched.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>

int sim_check_counter_masks(const struct model *m, const struct pmu_def *pd, const int *ev, int n, char **cause)
{
	uint32_t *masks = xmalloc(sizeof(uint32_t) * (size_t)(n + 1));
	int k = 0, masked = 0;
	for (int i = 0; i < n; i++) {
		const struct event_def *ed = &m->events[ev[i]];
		if (&m->pmus[ed->pmu] != pd || (ed->flags & (EVF_TOPDOWN | EVF_MERGE)))
			continue;
		if (pd->fixed > 0 && (ed->flags & (EVF_FIXED | EVF_SLOTS)))
			continue;
		masked += ed->counter_mask != 0;
		masks[k++] = ed->counter_mask;
	}
	bool ok = !masked || sched_masks_fit(masks, k, pd->counters);
	free(masks);
	if (ok)
		return 0;
	set_cause(cause, "sim: group of %d events on %s: their counter masks cannot all be met by its %d general counters",
		  n, pd->name, pd->counters);
	return -EINVAL;
}
