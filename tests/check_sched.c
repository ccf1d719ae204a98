/* check_sched.c: the group packer on a hand-built model: exact groups for
 * known requests, determinism, split metrics, merged pairs, fixed counters,
 * fewer free counters (NMI watchdog) giving more groups, unschedulable
 * events reported with a reason, and pinned metrics in every group. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "evdef.h"
#include "sched.h"
#include "util.h"

enum { P_CORE, P_L3, P_SW, NP };
enum { CYC, INS, BR, BRM, L1, L1M, FLOP, L3A, L3M, TC, NE };
enum { M_IPC, M_BRMR, M_L1MR, M_BIG, M_FLOPS, M_L3HIT, M_XPMU, NM };

static struct pmu_def pmus[NP] = {
	[P_CORE] = { .name = "core", .perf_name = "cpu", .kind = PMU_CORE, .counters = 4 },
	[P_L3] = { .name = "l3", .perf_name = "amd_l3", .kind = PMU_UNCORE, .scope = SCOPE_CCX, .counters = 2 },
	[P_SW] = { .name = "software", .perf_name = "software", .kind = PMU_SOFTWARE, .counters = 64 },
};
static struct event_def events[NE] = {
	[CYC] = { .name = "cyc", .pmu = P_CORE }, [INS] = { .name = "ins", .pmu = P_CORE },
	[BR] = { .name = "br", .pmu = P_CORE }, [BRM] = { .name = "brm", .pmu = P_CORE },
	[L1] = { .name = "l1", .pmu = P_CORE }, [L1M] = { .name = "l1m", .pmu = P_CORE },
	[FLOP] = { .name = "flop", .pmu = P_CORE, .flags = EVF_MERGE },
	[L3A] = { .name = "l3a", .pmu = P_L3 }, [L3M] = { .name = "l3m", .pmu = P_L3 },
	[TC] = { .name = "tc", .pmu = P_SW },
};
static int ev_ipc[] = { CYC, INS }, ev_brmr[] = { BR, BRM }, ev_l1mr[] = { L1, L1M };
static int ev_big[] = { CYC, INS, BR, BRM, L1 }, ev_flops[] = { FLOP, CYC };
static int ev_l3hit[] = { L3A, L3M }, ev_xpmu[] = { L3M, CYC };
#define MET(n, a) { .name = n, .nevents = (int)ARRAY_SIZE(a), .events = a, .parent = -1 }
static struct metric_def metrics[NM] = {
	[M_IPC] = MET("ipc", ev_ipc), [M_BRMR] = MET("brmr", ev_brmr),
	[M_L1MR] = MET("l1mr", ev_l1mr), [M_BIG] = MET("big", ev_big),
	[M_FLOPS] = MET("flops_pc", ev_flops), [M_L3HIT] = MET("l3hit", ev_l3hit),
	[M_XPMU] = MET("xpmu", ev_xpmu),
};
static struct model model = { .name = "test", .npmus = NP, .pmus = pmus,
	.nevents = NE, .events = events, .nmetrics = NM, .metrics = metrics };

static struct sched_plan *plan(const int *mets, int nm, const int *evs, int ne, int core_free, int l3_free)
{
	int fc[NP] = { core_free, l3_free, 64 };
	struct sched_request rq = { nm, mets, ne, evs, fc, NULL, NULL, 0, NULL };
	char *cause = NULL;
	struct sched_plan *p = sched_plan(&model, &rq, &cause);
	ck_assert_msg(p != NULL, "plan failed: %s", cause ? cause : "?");
	return p;
}

/* Asserts group gi has exactly the events listed (in order), -1 ends. */
static void assert_group(const struct sched_plan *p, int gi, int pmu, const int *want, int line)
{
	ck_assert_msg(gi < p->ngroups, "line %d: no group %d", line, gi);
	const struct sched_group *g = &p->groups[gi];
	ck_assert_msg(g->pmu == pmu, "line %d: group %d on pmu %d", line, gi, g->pmu);
	int n = 0;
	while (want[n] >= 0)
		n++;
	ck_assert_msg(g->nevents == n, "line %d: group %d has %d events, want %d", line, gi, g->nevents, n);
	for (int i = 0; i < n; i++)
		ck_assert_msg(g->events[i] == want[i], "line %d: group %d event %d is %s, want %s",
			      line, gi, i, events[g->events[i]].name, events[want[i]].name);
}
#define GROUP(p, gi, pmu, ...) assert_group(p, gi, pmu, (const int[]){ __VA_ARGS__, -1 }, __LINE__)

START_TEST(test_exact_groups)
{
	int m[] = { M_IPC, M_BRMR, M_L1MR };
	struct sched_plan *p = plan(m, 3, NULL, 0, 4, 2);
	/* Order: brmr, ipc, l1mr (equal sizes, by name). */
	ck_assert_int_eq(p->ngroups, 2);
	GROUP(p, 0, P_CORE, BR, BRM, CYC, INS);
	GROUP(p, 1, P_CORE, L1, L1M);
	ck_assert_int_eq(p->groups[0].counters_used, 4);
	ck_assert_int_eq(sched_groups_for_pmu(p, P_CORE), 2);
	ck_assert_int_eq(p->nmetrics, 3);
	for (int i = 0; i < NM; i++)
		ck_assert(!p->metric_split[i]);
	ck_assert(p->event_used[CYC] && p->event_used[L1M] && !p->event_used[FLOP]);
	ck_assert_int_eq(p->nunschedulable, 0);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_nmi_reserved_more_groups)
{
	int m[] = { M_IPC, M_BRMR, M_L1MR };
	/* The watchdog holds one of 4 counters: 3 left, ipc no longer joins brmr. */
	struct sched_plan *p = plan(m, 3, NULL, 0, 3, 2);
	ck_assert_int_eq(sched_groups_for_pmu(p, P_CORE), 3);
	GROUP(p, 0, P_CORE, BR, BRM);
	GROUP(p, 1, P_CORE, CYC, INS);
	GROUP(p, 2, P_CORE, L1, L1M);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_determinism)
{
	int a[] = { M_IPC, M_BRMR, M_L1MR, M_FLOPS, M_L3HIT };
	int b[] = { M_L3HIT, M_FLOPS, M_L1MR, M_BRMR, M_IPC, M_IPC };
	struct sched_plan *p = plan(a, 5, NULL, 0, 4, 2);
	struct sched_plan *q = plan(b, 6, NULL, 0, 4, 2);
	ck_assert_int_eq(p->ngroups, q->ngroups);
	for (int gi = 0; gi < p->ngroups; gi++) {
		ck_assert_int_eq(p->groups[gi].pmu, q->groups[gi].pmu);
		ck_assert_int_eq(p->groups[gi].nevents, q->groups[gi].nevents);
		ck_assert(!memcmp(p->groups[gi].events, q->groups[gi].events,
				  sizeof(int) * (size_t)p->groups[gi].nevents));
	}
	/* The duplicate request is planned once. */
	ck_assert_int_eq(q->nmetrics, 5);
	sched_plan_free(p);
	sched_plan_free(q);
}
END_TEST

START_TEST(test_merge_pairs)
{
	int m[] = { M_IPC, M_FLOPS };
	struct sched_plan *p = plan(m, 2, NULL, 0, 4, 2);
	/* flops_pc first (name order): flop takes 2, cyc 1, ins 1 = 4. */
	ck_assert_int_eq(p->ngroups, 1);
	GROUP(p, 0, P_CORE, FLOP, CYC, INS);
	ck_assert_int_eq(p->groups[0].counters_used, 4);
	sched_plan_free(p);

	/* With 3 counters ipc needs its own group, and cycles is counted in
	 * both groups that need it. */
	p = plan(m, 2, NULL, 0, 3, 2);
	ck_assert_int_eq(p->ngroups, 2);
	GROUP(p, 0, P_CORE, FLOP, CYC);
	GROUP(p, 1, P_CORE, CYC, INS);
	ck_assert_int_eq(p->groups[0].counters_used, 3);
	ck_assert(!p->metric_split[M_FLOPS] && !p->metric_split[M_IPC]);
	sched_plan_free(p);

	/* One counter: a merged pair can never be opened. */
	p = plan(m, 2, NULL, 0, 1, 2);
	ck_assert_int_eq(p->nunschedulable, 1);
	ck_assert_int_eq(p->unschedulable[0], FLOP);
	ck_assert_ptr_nonnull(strstr(p->unsched_why[0], "merged"));
	/* ipc is still planned, but each of its events rotates alone. */
	ck_assert_int_eq(p->nmetrics, 1);
	ck_assert_int_eq(p->metrics[0], M_IPC);
	ck_assert(p->metric_split[M_IPC]);
	GROUP(p, 0, P_CORE, CYC);
	GROUP(p, 1, P_CORE, INS);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_split)
{
	int m[] = { M_BIG, M_XPMU, M_L3HIT };
	struct sched_plan *p = plan(m, 3, NULL, 0, 4, 2);
	ck_assert(p->metric_split[M_BIG]);
	ck_assert(p->metric_split[M_XPMU]);   /* events of two PMUs never share a group */
	ck_assert(!p->metric_split[M_L3HIT]);
	/* big's five events are placed one by one, first-fit. */
	GROUP(p, 0, P_CORE, CYC, INS, BR, BRM);
	GROUP(p, 1, P_CORE, L1);
	GROUP(p, 2, P_L3, L3A, L3M);
	ck_assert_int_eq(p->ngroups, 3);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_extra_and_software)
{
	int m[] = { M_IPC };
	int e[] = { TC, L1M, CYC };
	struct sched_plan *p = plan(m, 1, e, 3, 2, 2);
	/* cyc is already counted by ipc's group, so it is not added again. */
	ck_assert_int_eq(p->ngroups, 3);
	GROUP(p, 0, P_CORE, CYC, INS);
	GROUP(p, 1, P_CORE, L1M);
	GROUP(p, 2, P_SW, TC);
	ck_assert(p->event_used[TC] && p->event_used[L1M]);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_unschedulable)
{
	int m[] = { M_IPC, M_L3HIT };
	int e[] = { L3A };
	struct sched_plan *p = plan(m, 2, e, 1, 4, 0);
	ck_assert_int_eq(p->nunschedulable, 2);
	ck_assert_int_eq(p->unschedulable[0], L3A);
	ck_assert_int_eq(p->unschedulable[1], L3M);
	ck_assert_ptr_nonnull(strstr(p->unsched_why[0], "no free counters"));
	ck_assert_int_eq(p->nmetrics, 1);
	ck_assert_int_eq(p->metrics[0], M_IPC);
	ck_assert_int_eq(sched_groups_for_pmu(p, P_L3), 0);
	ck_assert(!p->event_used[L3A]);

	char *buf = NULL; size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sched_print(p, &model, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "PMU core (cpu): 1 group"));
	ck_assert_ptr_nonnull(strstr(buf, "unschedulable: l3a: PMU l3 has no free counters"));
	free(buf);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_bad_request)
{
	int m[] = { NM };
	int fc[NP] = { 4, 2, 64 };
	struct sched_request rq = { 1, m, 0, NULL, fc, NULL, NULL, 0, NULL };
	char *cause = NULL;
	ck_assert_ptr_null(sched_plan(&model, &rq, &cause));
	ck_assert_ptr_nonnull(cause);
	free(cause);
}
END_TEST

/* Intel-like PMU: 3 fixed counters (instructions, cycles, ref cycles) and
 * 2 general ones. Fixed-able events use no general counter until the
 * group's fixed counters are taken. */
START_TEST(test_masks_fit)
{
	/* Nested masks: counters 0-3 and 0-1 within 8. */
	uint32_t four[5] = { 0xf, 0xf, 0xf, 0xf, 0xf };
	ck_assert(sched_masks_fit(four, 4, 8));
	ck_assert(!sched_masks_fit(four, 5, 8));
	uint32_t mixed[4] = { 0, 0x3, 0xf, 0x3 };     /* any, 0-1, 0-3, 0-1 */
	ck_assert(sched_masks_fit(mixed, 4, 4));
	uint32_t three_low[3] = { 0x3, 0x3, 0x3 };
	ck_assert(!sched_masks_fit(three_low, 3, 8));
	/* A mask beyond the counters there are: only those count. */
	uint32_t high[1] = { 0xf0 };
	ck_assert(!sched_masks_fit(high, 1, 4));
	ck_assert(sched_masks_fit(high, 1, 8));
	ck_assert(sched_masks_fit(NULL, 0, 0));
}
END_TEST

/* Five events that only counters 0-3 can hold, on an 8-counter core,
 * cannot share a group though the counters are enough (Linux perf's
 * "Counter": "0,1,2,3"): the metric is split, as the kernel would refuse
 * the group. */
START_TEST(test_counter_masks)
{
	struct pmu_def ip[1] = { { .name = "core", .perf_name = "cpu", .kind = PMU_CORE, .counters = 8 } };
	struct event_def ie[6] = {
		{ .name = "a", .counter_mask = 0xf }, { .name = "b", .counter_mask = 0xf },
		{ .name = "c", .counter_mask = 0xf }, { .name = "d", .counter_mask = 0xf },
		{ .name = "e", .counter_mask = 0xf }, { .name = "f" },
	};
	int e1[] = { 0, 1, 2, 3, 4, 5 };
	struct metric_def im[1] = { MET("m", e1) };
	struct model mm = { .name = "masks", .npmus = 1, .pmus = ip, .nevents = 6, .events = ie,
		.nmetrics = 1, .metrics = im };
	int req[] = { 0 };
	int fc[1] = { 8 };
	struct sched_request rq = { 1, req, 0, NULL, fc, NULL, NULL, 0, NULL };
	struct sched_plan *p = sched_plan(&mm, &rq, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->ngroups, 2);
	ck_assert(p->metric_split[0]);
	for (int g = 0; g < p->ngroups; g++) {
		int masked = 0;
		for (int i = 0; i < p->groups[g].nevents; i++)
			masked += ie[p->groups[g].events[i]].counter_mask != 0;
		ck_assert_int_le(masked, 4);
	}
	sched_plan_free(p);
	/* Without the masks, one group of six. */
	for (int i = 0; i < 5; i++)
		ie[i].counter_mask = 0;
	p = sched_plan(&mm, &rq, NULL);
	ck_assert_int_eq(p->ngroups, 1);
	sched_plan_free(p);
}
END_TEST

/* A software PMU has no counter limit, but an event whose register the
 * kernel lacks (count_as -1: the msr PMU's aperf in a VM) is unschedulable. */
START_TEST(test_software_requires)
{
	int req[] = { M_IPC };
	int evs[] = { TC };
	int fc[NP] = { 4, 2, 64 };
	int count_as[NE];
	for (int e = 0; e < NE; e++)
		count_as[e] = e;
	count_as[TC] = -1;
	struct sched_request rq = { 1, req, 1, evs, fc, count_as, NULL, 0, NULL };
	struct sched_plan *p = sched_plan(&model, &rq, NULL);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->nunschedulable, 1);
	ck_assert_int_eq(p->unschedulable[0], TC);
	sched_plan_free(p);
}
END_TEST

static struct sched_plan *plan_pinned(const int *mets, int nm, const int *pins, int np, int core_free)
{
	int fc[NP] = { core_free, 2, 64 };
	struct sched_request rq = { nm, mets, 0, NULL, fc, NULL, NULL, np, pins };
	char *cause = NULL;
	struct sched_plan *p = sched_plan(&model, &rq, &cause);
	ck_assert_msg(p != NULL, "plan failed: %s", cause ? cause : "?");
	return p;
}

/* A pinned metric's events are in every group of their PMU, so the metric
 * is counted whichever group runs; the rest rotate around them. Without
 * the pin, IPC shares a group with one of the other metrics only. */
START_TEST(test_pinned)
{
	int req[] = { M_IPC, M_BRMR, M_L1MR, M_L3HIT }, pin[] = { M_IPC };
	struct sched_plan *p = plan_pinned(req, 4, NULL, 0, 4);
	ck_assert(!sched_metric_throughout(p, &model, M_IPC));
	ck_assert(sched_metric_throughout(p, &model, M_L3HIT));   /* one group: always */
	sched_plan_free(p);

	p = plan_pinned(req, 4, pin, 1, 4);
	ck_assert_int_eq(sched_groups_for_pmu(p, P_CORE), 2);
	for (int gi = 0; gi < p->ngroups; gi++) {
		if (p->groups[gi].pmu != P_CORE)
			continue;
		ck_assert_int_eq(p->groups[gi].events[0], CYC);
		ck_assert_int_eq(p->groups[gi].events[1], INS);
		ck_assert_int_eq(p->groups[gi].nevents, 4);
	}
	ck_assert(p->metric_pinned[M_IPC] && p->event_pinned[CYC] && p->event_pinned[INS]);
	ck_assert(!p->event_pinned[BR] && p->nunpinned == 0);
	ck_assert(sched_metric_throughout(p, &model, M_IPC));
	ck_assert(!sched_metric_throughout(p, &model, M_BRMR));
	ck_assert(!p->metric_split[M_BRMR] && !p->metric_split[M_L1MR]);
	sched_plan_free(p);

	/* Pins must leave room for the rest: with IPC and the branch ratio
	 * pinned, the L1 events would have no counter; the second pin is
	 * refused with a reason, the first kept. A pin bigger than the PMU
	 * is refused too. */
	int pin2[] = { M_BIG, M_IPC, M_BRMR };
	p = plan_pinned(req, 3, pin2, 3, 4);
	ck_assert(p->metric_pinned[M_IPC] && !p->metric_pinned[M_BRMR]);
	/* big was not asked for: nothing to say about it. */
	ck_assert(p->nunpinned == 1 && p->unpinned[0] == M_BRMR);
	sched_plan_free(p);
	int req3[] = { M_BIG, M_IPC, M_BRMR, M_L1MR };
	p = plan_pinned(req3, 4, pin2, 3, 4);
	ck_assert(!p->metric_pinned[M_BIG] && p->metric_pinned[M_IPC] && !p->metric_pinned[M_BRMR]);
	ck_assert_int_eq(p->nunpinned, 2);
	ck_assert_int_eq(p->unpinned[0], M_BIG);
	ck_assert_int_eq(p->unpinned[1], M_BRMR);
	ck_assert_ptr_nonnull(strstr(p->unpinned_why[1], "no counter left to rotate"));
	sched_plan_free(p);

	/* A merged pair needs two counters beside the pins: IPC pinned on
	 * three counters would leave it one, so IPC is not pinned. */
	int req4[] = { M_IPC, M_FLOPS };
	p = plan_pinned(req4, 2, pin, 1, 3);
	ck_assert(!p->metric_pinned[M_IPC] && p->nunpinned == 1);
	sched_plan_free(p);
	/* Everything fits one group: nothing rotates, all is pinned. */
	p = plan_pinned(req, 2, pin, 1, 4);
	ck_assert(p->metric_pinned[M_IPC] && sched_groups_for_pmu(p, P_CORE) == 1);
	sched_plan_free(p);
}
END_TEST

START_TEST(test_fixed)
{
	struct pmu_def ip[1] = { { .name = "core", .perf_name = "cpu", .kind = PMU_CORE, .counters = 2, .fixed = 3 } };
	struct event_def ie[6] = {
		{ .name = "inst", .flags = EVF_FIXED }, { .name = "cyc", .flags = EVF_FIXED },
		{ .name = "ref", .flags = EVF_FIXED }, { .name = "a" }, { .name = "b" }, { .name = "c" },
	};
	int e1[] = { 0, 1, 3, 4 }, e2[] = { 2, 5 };
	struct metric_def im[2] = { MET("m1", e1), MET("m2", e2) };
	struct model mm = { .name = "intel", .npmus = 1, .pmus = ip, .nevents = 6, .events = ie,
		.nmetrics = 2, .metrics = im };
	int req[] = { 0, 1 };
	int fc[1] = { 2 };
	struct sched_request rq = { 2, req, 0, NULL, fc, NULL, NULL, 0, NULL };
	struct sched_plan *p = sched_plan(&mm, &rq, NULL);
	/* m1: 2 fixed + 2 general; m2's c needs a third general counter.
	 * inst, cyc and ref sit on the 3 fixed counters, so they are pinned:
	 * in both groups, at no general counter's cost. */
	ck_assert_int_eq(p->ngroups, 2);
	ck_assert_int_eq(p->groups[0].nevents, 5);
	ck_assert_int_eq(p->groups[0].counters_used, 2);
	ck_assert_int_eq(p->groups[1].nevents, 4);
	ck_assert_int_eq(p->groups[1].counters_used, 1);
	ck_assert(p->event_fixed_pin[0] && p->event_fixed_pin[1] && p->event_fixed_pin[2] && !p->event_pinned[3]);
	sched_plan_free(p);
	/* Without fixed counters the same events need three groups. */
	ip[0].fixed = 0;
	p = sched_plan(&mm, &rq, NULL);
	ck_assert_int_eq(p->ngroups, 3);
	ck_assert(p->metric_split[0]);
	sched_plan_free(p);
	/* The NMI watchdog holds one of 3 fixed counters (Intel, nmi_fixed
	 * yes): m1 and m2 cannot share one group of 2 general counters, and
	 * m1 alone still fits (2 fixed, 2 general). Planned on all 3, a group
	 * of inst, cyc and ref plus a general event spilled onto a general
	 * counter it did not have and never ran (--sim spr with every
	 * portable series). */
	ip[0].fixed = 3;
	ip[0].nmi_reserved = 1;
	ip[0].nmi_takes_fixed = true;
	int e3[] = { 0, 1, 2, 3 };
	struct metric_def im3[1] = { MET("m3", e3) };
	mm.metrics = im3;
	mm.nmetrics = 1;
	int req3[] = { 0 };
	rq = (struct sched_request){ 1, req3, 0, NULL, fc, NULL, NULL, 0, NULL };
	p = sched_plan(&mm, &rq, NULL);
	ck_assert_ptr_nonnull(p);
	for (int g = 0; g < p->ngroups; g++)
		ck_assert_int_le(p->groups[g].counters_used, 2);
	int fixed_in_group = 0;
	for (int i = 0; i < p->groups[0].nevents; i++)
		fixed_in_group += (ie[p->groups[0].events[i]].flags & EVF_FIXED) != 0;
	/* At most 2 fixed-able events on 2 fixed counters plus room left in
	 * the general ones: inst, cyc, ref and a need 4 counters of 2 + 2. */
	ck_assert_int_eq(p->groups[0].nevents, 4);
	ck_assert_int_eq(p->groups[0].counters_used, 2);
	ck_assert_int_eq(fixed_in_group, 3);
	sched_plan_free(p);
}
END_TEST

/* Whether event e is in every group of its PMU in plan p. */
static bool in_every_group(const struct sched_plan *p, const struct model *m, int e)
{
	int ng = 0;
	for (int gi = 0; gi < p->ngroups; gi++) {
		const struct sched_group *g = &p->groups[gi];
		if (g->pmu != m->events[e].pmu)
			continue;
		ng++;
		bool in = false;
		for (int i = 0; i < g->nevents && !in; i++)
			in = g->events[i] == e;
		if (!in)
			return false;
	}
	return ng > 0;
}

/* The planned metrics of a view (its columns), as the dashboard asks. */
static int view_metrics(const struct model *m, const char *view, int *out)
{
	int v = model_find_view(m, view), n = 0;
	ck_assert_int_ge(v, 0);
	for (int c = 0; c < m->views[v].ncols; c++)
		out[n++] = m->views[v].cols[c].metric;
	return n;
}

/* A view without pins still counts the events on fixed counters
 * throughout: Westmere's TLB view rotates two groups, and instructions and
 * core cycles are in both (before, cycles was in the second only), each
 * on one of the two fixed counters the NMI watchdog leaves, so they take
 * no general counter; reference cycles, unplanned, is not pinned. The
 * cache view needs only instructions: it is in all three groups. */
START_TEST(test_fixed_pinned_westmere)
{
	char *cause = NULL;
	struct model *m = model_load_by_name(TOP_SRCDIR "/events", "intel-westmere", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "?");
	int ms[64], inst = model_find_event(m, "inst_retired.any"), cyc = model_find_event(m, "cpu_clk_unhalted.thread");
	int ref = model_find_event(m, "cpu_clk_unhalted.ref"), walk = model_find_event(m, "dtlb_misses.walk_cycles");
	int core = m->events[inst].pmu;
	int *fc = xcalloc((size_t)m->npmus, sizeof(int));
	for (int p = 0; p < m->npmus; p++)
		fc[p] = m->pmus[p].counters;
	int n = view_metrics(m, "tlb", ms);
	struct sched_request rq = { n, ms, 0, NULL, fc, NULL, NULL, 0, NULL };
	struct sched_plan *p = sched_plan(m, &rq, &cause);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sched_groups_for_pmu(p, core), 2);
	ck_assert(in_every_group(p, m, inst) && in_every_group(p, m, cyc));
	ck_assert(p->event_pinned[inst] && p->event_fixed_pin[inst] && p->event_pinned[cyc] && p->event_fixed_pin[cyc]);
	ck_assert(!p->event_pinned[ref] && !p->event_pinned[walk] && !in_every_group(p, m, walk));
	/* The pins take the fixed counters, not general ones. */
	for (int gi = 0; gi < p->ngroups; gi++)
		ck_assert_int_le(p->groups[gi].counters_used, m->pmus[core].counters);
	sched_plan_free(p);
	n = view_metrics(m, "cache", ms);
	rq = (struct sched_request){ n, ms, 0, NULL, fc, NULL, NULL, 0, NULL };
	p = sched_plan(m, &rq, &cause);
	ck_assert_int_eq(sched_groups_for_pmu(p, core), 3);
	ck_assert(in_every_group(p, m, inst) && p->event_fixed_pin[inst]);
	sched_plan_free(p);
	free(fc);
	model_free(m);
}
END_TEST

/* On the architectural model with two free general counters, IPC (both
 * events on fixed counters) is pinned without a view's pin and counted
 * throughout while the LLC and branch ratios rotate (two groups, as
 * without the pins). Adding instruction_retired:u, which fits the second
 * group's free fixed counter, would cost a third group beside both pins:
 * then the last is dropped. Privilege variants are never pinned for fixed
 * counters (their base events hold them). Zen has no fixed counters:
 * nothing is pinned. */
START_TEST(test_fixed_pinned_arch)
{
	char *cause = NULL;
	struct model *m = model_load_by_name(TOP_SRCDIR "/events", "intel-arch", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "?");
	const char *names[] = { "llc_miss_rate", "branch_miss_ratio", "ipc", "llc_misses_per_kinst", "ipc_user",
				"ipc_kernel" };
	int ms[6];
	for (int i = 0; i < 6; i++) {
		ms[i] = model_find_metric(m, names[i]);
		ck_assert_int_ge(ms[i], 0);
	}
	int inst = model_find_event(m, "instruction_retired"), cyc = model_find_event(m, "unhalted_core_cycles");
	int instu = model_event_variant(m, "instruction_retired:u", &cause);
	ck_assert_int_ge(instu, 0);
	int core = m->events[inst].pmu;
	int *fc = xcalloc((size_t)m->npmus, sizeof(int));
	for (int p = 0; p < m->npmus; p++)
		fc[p] = m->pmus[p].counters;
	fc[core] = 2;
	struct sched_request rq = { 4, ms, 0, NULL, fc, NULL, NULL, 0, NULL };
	struct sched_plan *p = sched_plan(m, &rq, &cause);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sched_groups_for_pmu(p, core), 2);
	ck_assert(in_every_group(p, m, inst) && in_every_group(p, m, cyc));
	ck_assert(p->metric_pinned[ms[2]] && sched_metric_throughout(p, m, ms[2]));
	ck_assert(!sched_metric_throughout(p, m, ms[0]) && !sched_metric_throughout(p, m, ms[1]));
	sched_plan_free(p);
	/* One more event on the fixed counters: both pins would cost a group,
	 * instructions alone does not (the last pins are dropped first). */
	rq = (struct sched_request){ 4, ms, 1, &instu, fc, NULL, NULL, 0, NULL };
	p = sched_plan(m, &rq, &cause);
	ck_assert_int_eq(sched_groups_for_pmu(p, core), 2);
	ck_assert(p->event_fixed_pin[inst] && in_every_group(p, m, inst));
	ck_assert(!p->event_pinned[cyc] && !sched_metric_throughout(p, m, ms[2]));
	sched_plan_free(p);
	/* IPC beside user and kernel IPC: only the base events are pinned. */
	int priv[] = { ms[2], ms[4], ms[5] };
	rq = (struct sched_request){ 3, priv, 0, NULL, fc, NULL, NULL, 0, NULL };
	p = sched_plan(m, &rq, &cause);
	ck_assert_int_eq(sched_groups_for_pmu(p, core), 2);
	ck_assert(p->event_fixed_pin[inst] && p->event_fixed_pin[cyc] && sched_metric_throughout(p, m, ms[2]));
	for (int e = 0; e < m->nevents; e++)
		ck_assert(!m->events[e].excl || !p->event_pinned[e]);
	ck_assert(!sched_metric_throughout(p, m, ms[4]) || !sched_metric_throughout(p, m, ms[5]));
	sched_plan_free(p);
	free(fc);
	model_free(m);

	m = model_load_by_name(TOP_SRCDIR "/events", "amd-zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "?");
	int v = model_find_view(m, "cache"), zms[64], n = 0;
	ck_assert_int_ge(v, 0);
	for (int c = 0; c < m->views[v].ncols && n < 64; c++)
		zms[n++] = m->views[v].cols[c].metric;
	fc = xcalloc((size_t)m->npmus, sizeof(int));
	for (int q = 0; q < m->npmus; q++)
		fc[q] = m->pmus[q].counters;
	rq = (struct sched_request){ n, zms, 0, NULL, fc, NULL, NULL, 0, NULL };
	p = sched_plan(m, &rq, &cause);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_ge(sched_groups_for_pmu(p, 0), 1);
	for (int e = 0; e < m->nevents; e++)
		ck_assert(!p->event_pinned[e] && !p->event_fixed_pin[e]);
	sched_plan_free(p);
	free(fc);
	model_free(m);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_exact_groups);
	tcase_add_test(tc, test_nmi_reserved_more_groups);
	tcase_add_test(tc, test_determinism);
	tcase_add_test(tc, test_merge_pairs);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_extra_and_software);
	tcase_add_test(tc, test_unschedulable);
	tcase_add_test(tc, test_bad_request);
	tcase_add_test(tc, test_fixed);
	tcase_add_test(tc, test_masks_fit);
	tcase_add_test(tc, test_software_requires);
	tcase_add_test(tc, test_counter_masks);
	tcase_add_test(tc, test_pinned);
	tcase_add_test(tc, test_fixed_pinned_westmere);
	tcase_add_test(tc, test_fixed_pinned_arch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(sched_suite());
}
