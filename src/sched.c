/* sched.c: packs the events of the requested metrics (and extra -e events)
 * into counter groups, per PMU, and orders the rotation.
 *
 * A group is what the kernel schedules all-or-nothing, so events in one
 * group are counted over exactly the same time; a metric whose events share
 * a group is therefore a true ratio even while groups rotate. The packer is
 * a deterministic first-fit bin packing:
 *   1. events that cannot be counted at all here (no free counter, a merged
 *      pair with fewer than two counters) are unschedulable, with a reason,
 *      and the metrics that need them are not planned;
 *   2. per PMU, the planned metrics are taken by the number of their events
 *      on that PMU (most first), then by name, and each metric's event set
 *      goes into the first group that still has room for the events it does
 *      not already hold (an event shared by metrics is counted once per
 *      group), else into a new group;
 *   3. a metric that does not fit one group even alone is split: its events,
 *      and then the extra events, are placed one by one, first-fit, unless a
 *      group already counts them.
 * Pins (sched_request.pinned, a view's headline figures) come before step
 * 2: each pinned metric's events, with the rest of its topdown tree, go
 * into every group of their PMU (a new group starts with them), so that
 * they are counted whichever group runs, as long as every other event
 * still has a counter beside them; a metric that fitted one group alone
 * but not beside the pins is placed in as few chunks as fit. After the
 * view's pins, the planned events on fixed counters (instructions,
 * cycles, reference cycles; not slots or the PERF_METRICS events, nor
 * privilege variants) are pinned too while the PMU's fixed counters,
 * less the NMI watchdog's, hold them: they cost no general counter, and
 * perf counts them all the time, so there is no reason to rotate them;
 * but they take the fixed counters from fixed-able events that rotate,
 * so they are kept only as far as the PMU gets no more groups with them
 * than without (pack_pmu_pins).
 * Merged-pair events (Zen 5 FLOPs) take two general counters. An event
 * with a counter mask (perf's "Counter": "0,1,2,3" on an 8-counter core)
 * only fits a group where every such event can have one of its counters.
 * On a PMU with
 * fixed counters (Intel), fixed-able events take a fixed counter while one
 * is left in the group and a general one after that. Intel's PERF_METRICS
 * events (flag topdown) take no counter but, as the kernel demands, only
 * in a group that the PMU's slots event leads: every event set with one
 * brings slots along, and slots is moved to the front of its group.
 * Where the kernel lacks a feature an event requires, the request's
 * count_as names the fallback encoding whose costs and rules apply.
 * Software and /proc "PMUs" have no real counter limit: all their events
 * form one group. */
#include "config.h"
#include "sched.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* A group being built. */
struct gbuild {
	int pmu;
	int n, cap;
	int *ev;
};

struct packer {
	const struct model *m;
	const int *count_as;      /* see struct sched_request */
	const char *lost_why;
	int *fixed;       /* per PMU: fixed counters to use */
	int *general;     /* per PMU: general counters to use */
	int **pin;        /* per PMU: the pinned events, which every group starts with */
	int *npin;
	int *nview;       /* per PMU: how many of pin[] are the request's (the rest: fixed counters') */
	int ngroups, capgroups;
	struct gbuild *g;
};

static bool pmu_unlimited(const struct pmu_def *pd)
{
	return pd->kind == PMU_SOFTWARE || pd->kind == PMU_PROC;
}

/* The definition whose encoding counts event e here. */
static const struct event_def *counted_as(const struct packer *pk, int e)
{
	int c = pk->count_as ? pk->count_as[e] : e;
	return &pk->m->events[c >= 0 ? c : e];
}

/* The event of PMU pmu that leads PERF_METRICS groups, or -1. */
static int slots_of(const struct packer *pk, int pmu)
{
	for (int e = 0; e < pk->m->nevents; e++)
		if (pk->m->events[e].pmu == pmu && (counted_as(pk, e)->flags & EVF_SLOTS))
			return e;
	return -1;
}

static int popcount32(uint32_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

bool sched_masks_fit(const uint32_t *masks, int n, int ngeneral)
{
	if (n > ngeneral || ngeneral <= 0)
		return n == 0;
	uint32_t all = ngeneral >= 32 ? ~0u : (1u << ngeneral) - 1, used = 0;
	bool *done = xcalloc((size_t)n + 1, sizeof(bool));
	bool ok = true;
	for (int k = 0; k < n && ok; k++) {
		int pick = -1;
		for (int i = 0; i < n; i++) {
			uint32_t m = (masks[i] ? masks[i] : all) & all;
			if (!done[i] && (pick < 0 || popcount32(m) < popcount32((masks[pick] ? masks[pick] : all) & all)))
				pick = i;
		}
		uint32_t free_m = (masks[pick] ? masks[pick] : all) & all & ~used;
		done[pick] = true;
		if (!free_m)
			ok = false;
		else
			used |= free_m & -free_m;    /* the lowest free counter it may have */
	}
	free(done);
	return ok;
}

/* General counters that a set of events needs on PMU pmu; more than the
 * PMU has when their counter masks (perf's "Counter" lists) cannot all be
 * met at once. */
static int set_cost(const struct packer *pk, int pmu, const int *ev, int n)
{
	int cost = 0, nfixed = 0, nmasked = 0, nsingle = 0;
	uint32_t *masks = xmalloc(sizeof(uint32_t) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const struct event_def *ed = counted_as(pk, ev[i]);
		if (ed->flags & EVF_TOPDOWN)
			continue;
		if (pk->fixed[pmu] > 0 && (ed->flags & (EVF_FIXED | EVF_SLOTS))) {
			nfixed++;
		} else {
			cost += (ed->flags & EVF_MERGE) ? 2 : 1;
			if (!(ed->flags & EVF_MERGE)) {
				nmasked += ed->counter_mask != 0;
				masks[nsingle++] = ed->counter_mask;
			}
		}
	}
	if (nfixed > pk->fixed[pmu])
		cost += nfixed - pk->fixed[pmu];
	if (nmasked && !sched_masks_fit(masks, nsingle, pk->general[pmu]))
		cost = pk->general[pmu] + 1;
	free(masks);
	return cost;
}

static bool group_has(const struct gbuild *g, int e)
{
	for (int i = 0; i < g->n; i++)
		if (g->ev[i] == e)
			return true;
	return false;
}

static void group_add(struct gbuild *g, int e)
{
	if (group_has(g, e))
		return;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 8;
		g->ev = xrealloc(g->ev, sizeof(int) * (size_t)g->cap);
	}
	g->ev[g->n++] = e;
}

/* A new group of PMU pmu: it holds the PMU's pinned events from the
 * start, so that whichever group runs counts them. */
static struct gbuild *new_group(struct packer *pk, int pmu)
{
	if (pk->ngroups == pk->capgroups) {
		pk->capgroups = pk->capgroups ? 2 * pk->capgroups : 16;
		pk->g = xrealloc(pk->g, sizeof(*pk->g) * (size_t)pk->capgroups);
	}
	struct gbuild *g = &pk->g[pk->ngroups++];
	memset(g, 0, sizeof(*g));
	g->pmu = pmu;
	for (int i = 0; pk->npin && i < pk->npin[pmu]; i++)
		group_add(g, pk->pin[pmu][i]);
	return g;
}

/* What the event set ev[0..n) costs on PMU pmu in a group that holds the
 * pinned events too: more than the PMU has when it fits no group. */
static int cost_with_pins(const struct packer *pk, int pmu, const int *ev, int n)
{
	int np = pk->npin ? pk->npin[pmu] : 0;
	int *tmp = xmalloc(sizeof(int) * (size_t)(np + n + 1));
	int k = 0;
	for (int i = 0; i < np; i++)
		tmp[k++] = pk->pin[pmu][i];
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int j = 0; j < np && !dup; j++)
			dup = tmp[j] == ev[i];
		if (!dup)
			tmp[k++] = ev[i];
	}
	int c = set_cost(pk, pmu, tmp, k);
	free(tmp);
	return c;
}

/* Would g still fit if the events ev (those it lacks) were added? */
static bool group_fits(const struct packer *pk, const struct gbuild *g, const int *ev, int n)
{
	int *tmp = xmalloc(sizeof(int) * (size_t)(g->n + n + 1));
	int k = 0;
	for (int i = 0; i < g->n; i++)
		tmp[k++] = g->ev[i];
	for (int i = 0; i < n; i++)
		if (!group_has(g, ev[i]))
			tmp[k++] = ev[i];
	bool ok = set_cost(pk, g->pmu, tmp, k) <= pk->general[g->pmu];
	free(tmp);
	return ok;
}

/* First-fit placement of an event set on groups [first, ngroups) of the
 * same PMU; opens a new group if none has room. */
static void place_set(struct packer *pk, int first, int pmu, const int *ev, int n)
{
	for (int gi = first; gi < pk->ngroups; gi++) {
		if (pk->g[gi].pmu == pmu && group_fits(pk, &pk->g[gi], ev, n)) {
			for (int i = 0; i < n; i++)
				group_add(&pk->g[gi], ev[i]);
			return;
		}
	}
	struct gbuild *g = new_group(pk, pmu);
	for (int i = 0; i < n; i++)
		group_add(g, ev[i]);
}

/* Adds PMU pmu's slots event to the set ev[0..n) (which has room for one
 * more) when the set reads PERF_METRICS and lacks it; returns the new n. */
static int with_slots(const struct packer *pk, int pmu, int *ev, int n)
{
	bool topdown = false;
	for (int i = 0; i < n; i++) {
		if (counted_as(pk, ev[i])->flags & EVF_SLOTS)
			return n;
		topdown |= (counted_as(pk, ev[i])->flags & EVF_TOPDOWN) != 0;
	}
	int s = topdown ? slots_of(pk, pmu) : -1;
	if (s >= 0)
		ev[n++] = s;
	return n;
}

struct mitem { int metric; int n; const char *name; };

static int mitem_cmp(const void *a, const void *b)
{
	const struct mitem *x = a, *y = b;
	if (x->n != y->n)
		return y->n - x->n;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->metric - y->metric;
}

static char *unsched_reason(const struct packer *pk, int e)
{
	const struct event_def *ed = &pk->m->events[e];
	const struct pmu_def *pd = &pk->m->pmus[ed->pmu];
	if (pk->count_as && pk->count_as[e] < 0 && !ed->requires && pk->lost_why)
		return xstrdup(pk->lost_why);
	if (pk->count_as && pk->count_as[e] < 0)
		return xasprintf("the kernel has no %s/%s", pd->perf_name ? pd->perf_name : pd->name,
				 ed->requires ? ed->requires : "support for it");
	if ((counted_as(pk, e)->flags & EVF_TOPDOWN) && slots_of(pk, ed->pmu) < 0)
		return xasprintf("a topdown event needs PMU %s's slots event to lead its group", pd->name);
	int free_c = pk->general[ed->pmu];
	if (free_c <= 0)
		return xasprintf("PMU %s has no free counters", pd->name);
	if (ed->flags & EVF_MERGE)
		return xasprintf("needs a merged pair of counters but PMU %s has %d free", pd->name, free_c);
	return xasprintf("does not fit the %d free counters of PMU %s", free_c, pd->name);
}

/* Whether the request names only metrics and events of the model, and
 * every event has a PMU and every metric's event exists: else why not. */
static bool request_bad(const struct model *m, const struct sched_request *req, char **cause)
{
	for (int i = 0; i < req->nmetrics; i++)
		if (!req->metrics || req->metrics[i] < 0 || req->metrics[i] >= m->nmetrics)
			return set_cause(cause, "metric index %d is not in model %s",
					 req->metrics ? req->metrics[i] : -1, m->name), true;
	for (int i = 0; i < req->nevents; i++)
		if (!req->events || req->events[i] < 0 || req->events[i] >= m->nevents)
			return set_cause(cause, "event index %d is not in model %s",
					 req->events ? req->events[i] : -1, m->name), true;
	for (int e = 0; e < m->nevents; e++)
		if (m->events[e].pmu < 0 || m->events[e].pmu >= m->npmus)
			return set_cause(cause, "event %s has no PMU", m->events[e].name), true;
	for (int i = 0; i < req->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[req->metrics[i]];
		for (int k = 0; k < md->nevents; k++)
			if (md->events[k] < 0 || md->events[k] >= m->nevents)
				return set_cause(cause, "metric %s uses a bad event index", md->name), true;
	}
	return false;
}

/* The counters each PMU gives the packer: its fixed ones and the general
 * ones the request says are free. */
static void packer_init(struct packer *pk, const struct model *m, const struct sched_request *req)
{
	*pk = (struct packer){ .m = m, .count_as = req->count_as, .lost_why = req->lost_why };
	pk->fixed = xcalloc((size_t)m->npmus + 1, sizeof(int));
	pk->general = xcalloc((size_t)m->npmus + 1, sizeof(int));
	for (int p = 0; p < m->npmus; p++) {
		const struct pmu_def *pd = &m->pmus[p];
		/* The NMI watchdog, where it takes a fixed counter (Intel's
		 * cycles), leaves one fewer: planning on all of them made a group
		 * that opened but never ran (its fixed-able events spilled onto
		 * general counters it had no room for). Assumed on, as it
		 * usually is: where it is off, a fixed-able event is planned on a
		 * general counter instead, which costs room but never coverage. */
		pk->fixed[p] = pd->fixed - (pd->nmi_takes_fixed && pd->kind == PMU_CORE ? pd->nmi_reserved : 0);
		if (pk->fixed[p] < 0)
			pk->fixed[p] = 0;
		pk->general[p] = req->free_counters ? req->free_counters[p] : pd->counters;
		if (pk->general[p] < 0)
			pk->general[p] = 0;
	}
}

/* Step 1: the events wanted that fit no group at all, marked in bad[] and
 * listed in the plan with a reason. */
static void find_unschedulable(const struct packer *pk, const struct sched_request *req, struct sched_plan *plan,
			       bool *bad)
{
	const struct model *m = pk->m;
	bool *wanted = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	for (int i = 0; i < req->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[req->metrics[i]];
		for (int k = 0; k < md->nevents; k++)
			wanted[md->events[k]] = true;
	}
	for (int i = 0; i < req->nevents; i++)
		wanted[req->events[i]] = true;
	for (int e = 0; e < m->nevents; e++) {
		const struct event_def *ed = &m->events[e];
		if (!wanted[e])
			continue;
		bool lost = req->count_as && req->count_as[e] < 0;
		/* A software PMU has no counter limit, but may lack a register
		 * an event requires (the msr PMU's aperf in a VM). */
		if (pmu_unlimited(&m->pmus[ed->pmu]) && !lost)
			continue;
		int need[2] = { e, -1 }, nneed = 1;
		if (!lost && (counted_as(pk, e)->flags & EVF_TOPDOWN)) {
			need[1] = slots_of(pk, ed->pmu);
			lost = need[1] < 0 || (req->count_as && req->count_as[need[1]] < 0);
			nneed = 2;
		}
		if (lost || set_cost(pk, ed->pmu, need, nneed) > pk->general[ed->pmu]) {
			bad[e] = true;
			plan->unsched_why[plan->nunschedulable] = unsched_reason(pk, e);
			plan->unschedulable[plan->nunschedulable++] = e;
		}
	}
	free(wanted);
}

/* The planned metrics: the requested ones (once each) whose events can
 * all be counted; they and the extra events that can be are used. */
static void plan_metrics(const struct model *m, const struct sched_request *req, struct sched_plan *plan,
			 const bool *bad)
{
	bool *mseen = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	for (int i = 0; i < req->nmetrics; i++) {
		int mi = req->metrics[i];
		if (mseen[mi])
			continue;
		mseen[mi] = true;
		const struct metric_def *md = &m->metrics[mi];
		bool ok = true;
		for (int k = 0; k < md->nevents; k++)
			if (bad[md->events[k]])
				ok = false;
		if (!ok)
			continue;
		plan->metrics[plan->nmetrics++] = mi;
		for (int k = 0; k < md->nevents; k++)
			plan->event_used[md->events[k]] = true;
	}
	for (int i = 0; i < req->nevents; i++)
		if (!bad[req->events[i]])
			plan->event_used[req->events[i]] = true;
	free(mseen);
}

/* Whether the events cand[0..n) on PMU p, pinned, still leave room for
 * each other planned event of p (with its slots event) in a group beside
 * them; else why not, in *why. */
static bool pins_leave_room(const struct packer *pk, const struct sched_plan *plan, int p, int *cand, int n,
			    char **why)
{
	const struct model *m = pk->m;
	const struct pmu_def *pd = &m->pmus[p];
	int cost = set_cost(pk, p, cand, n);
	if (cost > pk->general[p]) {
		*why = xasprintf("its events need %d counters of PMU %s with the pins before it; %d are free", cost,
				 pd->name, pk->general[p]);
		return false;
	}
	int *tmp = xmalloc(sizeof(int) * (size_t)(n + 3));
	bool ok = true;
	for (int e = 0; e < m->nevents && ok; e++) {
		if (!plan->event_used[e] || m->events[e].pmu != p)
			continue;
		bool in = false;
		for (int i = 0; i < n && !in; i++)
			in = cand[i] == e;
		if (in)
			continue;
		memcpy(tmp, cand, sizeof(int) * (size_t)n);
		tmp[n] = e;
		int k = with_slots(pk, p, tmp + n, 1);
		if (set_cost(pk, p, tmp, n + k) > pk->general[p]) {
			*why = xasprintf("with it and the pins before it in every group (%d of PMU %s's %d free "
					 "counters), %s would have no counter left to rotate in",
					 cost, pd->name, pk->general[p], m->events[e].name);
			ok = false;
		}
	}
	free(tmp);
	return ok;
}

/* Whether metric mi is planned. */
static bool planned(const struct sched_plan *plan, int mi)
{
	for (int j = 0; j < plan->nmetrics; j++)
		if (plan->metrics[j] == mi)
			return true;
	return false;
}

/* The metrics pinned together with mi, into unit (returns how many): mi
 * alone, or for a share of a tree (topdown) its whole family and every
 * family on the way up to the whole. The shares of a family are scaled
 * together to add up (derive_tree.c), so a shown share is only as good as
 * its most uncertain sibling: pinning some of them gains nothing. */
static int pin_unit(const struct model *m, const struct sched_plan *plan, int mi, int *unit)
{
	int n = 0;
	unit[n++] = mi;
	/* At most one family per level: a loop in hand-built parents ends. */
	for (int par = m->metrics[mi].parent, depth = 0; par != -1 && depth < m->nmetrics; depth++) {
		for (int k = 0; k < m->nmetrics; k++) {
			bool dup = false;
			for (int j = 0; j < n && !dup; j++)
				dup = unit[j] == k;
			if (!dup && m->metrics[k].parent == par && planned(plan, k))
				unit[n++] = k;
		}
		if (par == METRIC_PARENT_WHOLE || par < 0 || par >= m->nmetrics)
			break;
		int up = m->metrics[par].parent;
		if (planned(plan, par)) {
			bool dup = false;
			for (int j = 0; j < n && !dup; j++)
				dup = unit[j] == par;
			if (!dup)
				unit[n++] = par;
		}
		par = up;
	}
	return n;
}

/* Whether planned event e sits on a fixed counter of its PMU: the PMU has
 * fixed counters and the encoding that counts e is fixed-able. Slots and
 * the PERF_METRICS events are not: they only count in a group that slots
 * leads, so they are not spread over every group. Nor is a privilege
 * variant (cycles:k): the fixed counter is its base event's, which comes
 * first. */
static bool on_fixed(const struct packer *pk, const struct sched_plan *plan, int e)
{
	const struct event_def *ed = &pk->m->events[e];
	const struct event_def *as = counted_as(pk, e);
	return plan->event_used[e] && pk->fixed[ed->pmu] > 0 && !pmu_unlimited(&pk->m->pmus[ed->pmu]) &&
	       !ed->excl && (as->flags & EVF_FIXED) && !(as->flags & (EVF_SLOTS | EVF_TOPDOWN));
}

/* Adds the events add[0..n) of PMU p to its pins if the PMU's fixed
 * counters hold them beside the pins already there: they take no general
 * counter, and every other planned event still has a counter beside them
 * (pins_leave_room). */
static bool pin_if_free(struct packer *pk, const struct sched_plan *plan, int p, const int *add, int n, int *cand)
{
	int k = pk->npin[p];
	memcpy(cand, pk->pin[p], sizeof(int) * (size_t)k);
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int j = 0; j < k && !dup; j++)
			dup = cand[j] == add[i];
		if (!dup)
			cand[k++] = add[i];
	}
	if (k == pk->npin[p] || set_cost(pk, p, cand, k) > set_cost(pk, p, pk->pin[p], pk->npin[p]))
		return false;
	char *why = NULL;
	if (!pins_leave_room(pk, plan, p, cand, k, &why)) {
		free(why);
		return false;
	}
	memcpy(pk->pin[p], cand, sizeof(int) * (size_t)k);
	pk->npin[p] = k;
	return true;
}

/* After the view's pins, the planned events on fixed counters: perf counts
 * such an event all the time, as it contends for no general counter, so
 * it is pinned while the PMU's fixed counters (less the NMI watchdog's)
 * hold it. First those of each metric made of them alone (ipc, cpi,
 * freq_ratio), in the order asked, each metric's whole or not at all, so
 * that the metric is counted throughout; then any other, one by one. */
static void pin_fixed(struct packer *pk, struct sched_plan *plan)
{
	const struct model *m = pk->m;
	int *add = xmalloc(sizeof(int) * ((size_t)m->nevents + 2));
	int *cand = xmalloc(sizeof(int) * ((size_t)m->nevents + 2));
	for (int p = 0; p < m->npmus; p++) {
		if (pk->fixed[p] <= 0 || pmu_unlimited(&m->pmus[p]))
			continue;
		for (int i = 0; i < plan->nmetrics; i++) {
			const struct metric_def *md = &m->metrics[plan->metrics[i]];
			int n = 0;
			bool all = true;
			for (int k = 0; k < md->nevents && all; k++) {
				int e = md->events[k];
				if (m->events[e].pmu != p)
					continue;
				all = on_fixed(pk, plan, e);
				add[n++] = e;
			}
			if (all && n > 0)
				pin_if_free(pk, plan, p, add, n, cand);
		}
		for (int e = 0; e < m->nevents; e++)
			if (m->events[e].pmu == p && on_fixed(pk, plan, e))
				pin_if_free(pk, plan, p, &e, 1, cand);
	}
	free(add);
	free(cand);
}

/* The pinned events of each PMU: the requested pins' events, metric by
 * metric in the order asked, each metric (with its tree: pin_unit) whole
 * or not at all; then the events on fixed counters (pin_fixed). */
static void choose_pins(struct packer *pk, const struct sched_request *req, struct sched_plan *plan)
{
	const struct model *m = pk->m;
	pk->pin = xcalloc((size_t)m->npmus + 1, sizeof(int *));
	pk->npin = xcalloc((size_t)m->npmus + 1, sizeof(int));
	for (int p = 0; p < m->npmus; p++)
		pk->pin[p] = xmalloc(sizeof(int) * ((size_t)m->nevents + 2));
	int **cand = xcalloc((size_t)m->npmus + 1, sizeof(int *));
	int *ncand = xcalloc((size_t)m->npmus + 1, sizeof(int));
	for (int p = 0; p < m->npmus; p++)
		cand[p] = xmalloc(sizeof(int) * ((size_t)m->nevents + 2));
	int *unit = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	bool *refused = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));   /* said once per tree */
	for (int i = 0; i < req->npinned && req->pinned; i++) {
		int mi = req->pinned[i];
		if (mi < 0 || mi >= m->nmetrics || plan->metric_pinned[mi] || refused[mi] || !planned(plan, mi))
			continue;     /* done, or not counted here at all: nothing to pin */
		int nu = pin_unit(m, plan, mi, unit);
		char *why = NULL;
		for (int p = 0; p < m->npmus && !why; p++) {
			memcpy(cand[p], pk->pin[p], sizeof(int) * (size_t)pk->npin[p]);
			ncand[p] = pk->npin[p];
			if (pmu_unlimited(&m->pmus[p]))
				continue;
			for (int u = 0; u < nu; u++) {
				const struct metric_def *md = &m->metrics[unit[u]];
				for (int k = 0; k < md->nevents; k++) {
					int e = md->events[k];
					bool dup = m->events[e].pmu != p;
					for (int j = 0; j < ncand[p] && !dup; j++)
						dup = cand[p][j] == e;
					if (!dup)
						cand[p][ncand[p]++] = e;
				}
			}
			ncand[p] = with_slots(pk, p, cand[p], ncand[p]);
			if (ncand[p] > pk->npin[p])
				pins_leave_room(pk, plan, p, cand[p], ncand[p], &why);
		}
		if (why) {
			if (nu > 1) {
				char *t = xasprintf("with the %d shares of its tree: %s", nu, why);
				free(why);
				why = t;
			}
			plan->unpinned[plan->nunpinned] = mi;
			plan->unpinned_why[plan->nunpinned++] = why;
			for (int u = 0; u < nu; u++)
				refused[unit[u]] = true;
			continue;
		}
		for (int u = 0; u < nu; u++)
			plan->metric_pinned[unit[u]] = true;
		for (int p = 0; p < m->npmus; p++) {
			memcpy(pk->pin[p], cand[p], sizeof(int) * (size_t)ncand[p]);
			pk->npin[p] = ncand[p];
		}
	}
	pk->nview = xmalloc(sizeof(int) * ((size_t)m->npmus + 1));
	memcpy(pk->nview, pk->npin, sizeof(int) * (size_t)m->npmus);
	pin_fixed(pk, plan);
	for (int p = 0; p < m->npmus; p++)
		free(cand[p]);
	free(unit);
	free(refused);
	free(cand);
	free(ncand);
}

/* Scratch for packing one PMU after another. */
struct pack_work {
	struct mitem *items;      /* [plan->nmetrics] */
	int *set;                 /* [nevents] one metric's events on the PMU */
	bool *loose;              /* [nevents] placed one by one */
};

/* A metric's events that fitted one group but not beside the pins: placed
 * in as few chunks as fit beside them (each chunk a set, first-fit), not
 * one by one, so that the metric spans as few groups' windows as it can:
 * one by one, Zen 3's five L2 events went into three groups. */
static void place_chunks(struct packer *pk, int first, int p, const int *set, int n)
{
	int *chunk = xmalloc(sizeof(int) * (size_t)(n + 2));
	int k = 0;
	for (int i = 0; i <= n; i++) {
		if (i < n) {
			chunk[k] = set[i];
			int kk = with_slots(pk, p, chunk, k + 1);
			if (cost_with_pins(pk, p, chunk, kk) <= pk->general[p]) {
				k++;
				continue;
			}
		}
		if (k > 0)
			place_set(pk, first, p, chunk, with_slots(pk, p, chunk, k));
		k = 0;
		if (i < n) {
			chunk[k++] = set[i];   /* fits alone: pins leave room for each (choose_pins) */
		}
	}
	free(chunk);
}

/* Steps 2-3 on PMU p: each planned metric's events on p as a set, most
 * events first, into the first group with room; sets that fit no group,
 * and the extra events, one by one unless a group counts them already. */
static void pack_pmu(struct packer *pk, const struct sched_request *req, const struct sched_plan *plan,
		     const bool *bad, int p, struct pack_work *w)
{
	const struct model *m = pk->m;
	int first = pk->ngroups;
	if (pmu_unlimited(&m->pmus[p])) {
		struct gbuild *g = NULL;
		for (int e = 0; e < m->nevents; e++) {
			if (!plan->event_used[e] || m->events[e].pmu != p)
				continue;
			if (!g)
				g = new_group(pk, p);
			group_add(g, e);
		}
		return;
	}
	int nitems = 0;
	for (int i = 0; i < plan->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[plan->metrics[i]];
		int n = 0;
		for (int k = 0; k < md->nevents; k++)
			if (m->events[md->events[k]].pmu == p)
				n++;
		if (n > 0)
			w->items[nitems++] = (struct mitem){ plan->metrics[i], n, md->name };
	}
	qsort(w->items, (size_t)nitems, sizeof(*w->items), mitem_cmp);
	memset(w->loose, 0, sizeof(bool) * ((size_t)m->nevents + 1));
	for (int i = 0; i < nitems; i++) {
		const struct metric_def *md = &m->metrics[w->items[i].metric];
		int n = 0;
		for (int k = 0; k < md->nevents; k++) {
			int e = md->events[k];
			if (m->events[e].pmu != p)
				continue;
			bool dup = false;
			for (int j = 0; j < n; j++)
				dup |= w->set[j] == e;
			if (!dup)
				w->set[n++] = e;
		}
		n = with_slots(pk, p, w->set, n);
		if (cost_with_pins(pk, p, w->set, n) > pk->general[p]) {
			if (pk->npin[p] > 0 && set_cost(pk, p, w->set, n) <= pk->general[p]) {
				place_chunks(pk, first, p, w->set, n);
				continue;
			}
			for (int j = 0; j < n; j++)
				w->loose[w->set[j]] = true;
			continue;
		}
		place_set(pk, first, p, w->set, n);
	}
	for (int i = 0; i < req->nevents; i++) {
		int e = req->events[i];
		if (!bad[e] && m->events[e].pmu == p)
			w->loose[e] = true;
	}
	/* Loose events in event order, each only if no group counts it. */
	for (int e = 0; e < m->nevents; e++) {
		if (!w->loose[e])
			continue;
		bool have = false;
		for (int gi = first; gi < pk->ngroups && !have; gi++)
			have = group_has(&pk->g[gi], e);
		if (!have) {
			int one[2] = { e, -1 };
			place_set(pk, first, p, one, with_slots(pk, p, one, 1));
		}
	}
}

/* The pins in force, in the plan: events pinned, and for their fixed
 * counters; a metric whose events are all pinned (or on PMUs that count
 * always) is pinned, whether the request asked or fixed counters did. */
static void mark_pins(const struct packer *pk, struct sched_plan *plan)
{
	const struct model *m = pk->m;
	for (int p = 0; p < m->npmus; p++)
		for (int i = 0; i < pk->npin[p]; i++) {
			plan->event_pinned[pk->pin[p][i]] = true;
			plan->event_fixed_pin[pk->pin[p][i]] = i >= pk->nview[p];
		}
	for (int i = 0; i < plan->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[plan->metrics[i]];
		bool all = true;
		for (int k = 0; k < md->nevents && all; k++)
			all = plan->event_pinned[md->events[k]] || pmu_unlimited(&m->pmus[m->events[md->events[k]].pmu]);
		plan->metric_pinned[plan->metrics[i]] |= all;
	}
}

/* Packs PMU p with its first npin pins, after dropping the groups from
 * first on; returns how many groups p gets. */
static int repack(struct packer *pk, const struct sched_request *req, const struct sched_plan *plan,
		  const bool *bad, int p, struct pack_work *w, int first, int npin)
{
	for (int gi = first; gi < pk->ngroups; gi++)
		free(pk->g[gi].ev);
	pk->ngroups = first;
	pk->npin[p] = npin;
	pack_pmu(pk, req, plan, bad, p, w);
	return pk->ngroups - first;
}

/* Steps 2-3 on PMU p with the fixed counters' pins: kept only as far as
 * they cost the rotation no group. They take no general counter, but
 * they take the fixed counters from the fixed-able events that rotate
 * (Westmere's cycles:k and instructions:u with every metric), which then
 * need general ones: the most pins, dropping the last first, with which
 * p has no more groups than with the request's pins alone. */
static void pack_pmu_pins(struct packer *pk, const struct sched_request *req, const struct sched_plan *plan,
			  const bool *bad, int p, struct pack_work *w)
{
	int first = pk->ngroups, all = pk->npin[p];
	if (all == pk->nview[p]) {
		pack_pmu(pk, req, plan, bad, p, w);
		return;
	}
	int n0 = repack(pk, req, plan, bad, p, w, first, pk->nview[p]);
	for (int k = all; k > pk->nview[p]; k--)
		if (repack(pk, req, plan, bad, p, w, first, k) <= n0)
			return;
	repack(pk, req, plan, bad, p, w, first, pk->nview[p]);
}

/* The groups as the plan gives them: the kernel takes the first event as
 * the leader, so slots goes first; each event with the encoding that
 * counts it and the counters the group takes. */
static void finish_groups(struct packer *pk, struct sched_plan *plan)
{
	const struct model *m = pk->m;
	for (int gi = 0; gi < pk->ngroups; gi++) {
		struct gbuild *g = &pk->g[gi];
		for (int i = 1; i < g->n; i++)
			if (counted_as(pk, g->ev[i])->flags & EVF_SLOTS) {
				int lead = g->ev[i];
				memmove(&g->ev[1], &g->ev[0], sizeof(int) * (size_t)i);
				g->ev[0] = lead;
				break;
			}
	}
	for (int gi = 0; gi < pk->ngroups; gi++)
		for (int i = 0; i < pk->g[gi].n; i++)
			plan->event_used[pk->g[gi].ev[i]] = true;   /* slots brought along */
	plan->ngroups = pk->ngroups;
	plan->groups = xcalloc((size_t)pk->ngroups + 1, sizeof(*plan->groups));
	for (int gi = 0; gi < pk->ngroups; gi++) {
		struct sched_group *sg = &plan->groups[gi];
		sg->pmu = pk->g[gi].pmu;
		sg->nevents = pk->g[gi].n;
		sg->events = pk->g[gi].ev;
		sg->counted = xmalloc(sizeof(int) * ((size_t)sg->nevents + 1));
		for (int i = 0; i < sg->nevents; i++)
			sg->counted[i] = (int)(counted_as(pk, sg->events[i]) - m->events);
		sg->counters_used = set_cost(pk, sg->pmu, sg->events, sg->nevents);
	}
}

/* A metric is split when no single group holds all its events. */
static void mark_split(const struct model *m, struct sched_plan *plan)
{
	for (int i = 0; i < plan->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[plan->metrics[i]];
		if (md->nevents == 0)
			continue;
		bool together = false;
		for (int gi = 0; gi < plan->ngroups && !together; gi++) {
			const struct sched_group *sg = &plan->groups[gi];
			bool all = true;
			for (int k = 0; k < md->nevents && all; k++) {
				bool in = false;
				for (int j = 0; j < sg->nevents && !in; j++)
					in = sg->events[j] == md->events[k];
				all = in;
			}
			together = all;
		}
		plan->metric_split[plan->metrics[i]] = !together;
	}
}

struct sched_plan *sched_plan(const struct model *m, const struct sched_request *req, char **cause)
{
	if (!m || !req)
		return set_cause(cause, "no model or request"), NULL;
	if (request_bad(m, req, cause))
		return NULL;
	struct packer pk;
	packer_init(&pk, m, req);
	struct sched_plan *plan = xcalloc(1, sizeof(*plan));
	plan->nevents = m->nevents;
	plan->event_used = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	plan->metric_split = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	plan->metrics = xmalloc(sizeof(int) * ((size_t)req->nmetrics + 1));
	plan->unschedulable = xmalloc(sizeof(int) * ((size_t)m->nevents + 1));
	plan->unsched_why = xmalloc(sizeof(char *) * ((size_t)m->nevents + 1));
	plan->event_pinned = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	plan->metric_pinned = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	plan->event_fixed_pin = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	plan->unpinned = xmalloc(sizeof(int) * ((size_t)req->npinned + 1));
	plan->unpinned_why = xmalloc(sizeof(char *) * ((size_t)req->npinned + 1));

	bool *bad = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	find_unschedulable(&pk, req, plan, bad);
	plan_metrics(m, req, plan, bad);
	choose_pins(&pk, req, plan);
	/* 2-3. Pack per PMU, in model order. */
	struct pack_work w = {
		.items = xmalloc(sizeof(struct mitem) * ((size_t)plan->nmetrics + 1)),
		.set = xmalloc(sizeof(int) * ((size_t)m->nevents + 1)),
		.loose = xcalloc((size_t)m->nevents + 1, sizeof(bool)),
	};
	for (int p = 0; p < m->npmus; p++)
		pack_pmu_pins(&pk, req, plan, bad, p, &w);
	mark_pins(&pk, plan);
	finish_groups(&pk, plan);
	mark_split(m, plan);

	free(pk.g);
	free(pk.fixed);
	free(pk.general);
	for (int p = 0; p < m->npmus; p++)
		free(pk.pin[p]);
	free(pk.pin);
	free(pk.npin);
	free(pk.nview);
	free(w.items);
	free(w.set);
	free(w.loose);
	free(bad);
	return plan;
}

void sched_plan_free(struct sched_plan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->ngroups; i++) {
		free(p->groups[i].events);
		free(p->groups[i].counted);
	}
	free(p->groups);
	free(p->metrics);
	free(p->metric_split);
	free(p->event_used);
	for (int i = 0; i < p->nunschedulable; i++)
		free(p->unsched_why[i]);
	free(p->unschedulable);
	free(p->unsched_why);
	for (int i = 0; i < p->nunpinned; i++)
		free(p->unpinned_why[i]);
	free(p->unpinned);
	free(p->unpinned_why);
	free(p->event_pinned);
	free(p->event_fixed_pin);
	free(p->metric_pinned);
	free(p);
}
