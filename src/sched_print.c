/* sched_print.c: what a plan says, apart from making it (sched.c): the
 * groups of a PMU, whether a metric is counted throughout the interval
 * (its events in every group of their PMU, as pins are), and the plan as
 * --show-schedule prints it. */
#include "config.h"
#include "sched.h"

static bool pmu_unlimited(const struct pmu_def *pd)
{
	return pd->kind == PMU_SOFTWARE || pd->kind == PMU_PROC;
}

int sched_groups_for_pmu(const struct sched_plan *p, int pmu)
{
	int n = 0;
	if (!p)
		return 0;
	for (int i = 0; i < p->ngroups; i++)
		if (p->groups[i].pmu == pmu)
			n++;
	return n;
}

bool sched_metric_throughout(const struct sched_plan *p, const struct model *m, int metric)
{
	if (!p || !m || metric < 0 || metric >= m->nmetrics)
		return false;
	const struct metric_def *md = &m->metrics[metric];
	for (int k = 0; k < md->nevents; k++) {
		int e = md->events[k];
		if (e < 0 || e >= p->nevents || !p->event_used[e])
			return false;
		int pmu = m->events[e].pmu;
		int in = 0, ng = 0;
		for (int gi = 0; gi < p->ngroups; gi++) {
			const struct sched_group *sg = &p->groups[gi];
			if (sg->pmu != pmu)
				continue;
			ng++;
			for (int j = 0; j < sg->nevents; j++)
				if (sg->events[j] == e) {
					in++;
					break;
				}
		}
		if (ng == 0 || in < ng)
			return false;
	}
	return true;
}

/* The planned metrics that are counted throughout (throughout) or that
 * rotate, as " name name ..."; "" when none. */
static void print_metrics_if(const struct sched_plan *p, const struct model *m, FILE *out, bool throughout)
{
	for (int i = 0; i < p->nmetrics; i++)
		if (sched_metric_throughout(p, m, p->metrics[i]) == throughout)
			fprintf(out, " %s", m->metrics[p->metrics[i]].name);
}

void sched_print(const struct sched_plan *p, const struct model *m, FILE *out)
{
	if (!p || !m)
		return;
	for (int pmu = 0; pmu < m->npmus; pmu++) {
		int ng = sched_groups_for_pmu(p, pmu);
		if (ng == 0)
			continue;
		const struct pmu_def *pd = &m->pmus[pmu];
		fprintf(out, "PMU %s (%s): %d group%s, each counted %.0f%% of the time\n",
			pd->name, pd->perf_name ? pd->perf_name : "?", ng, ng == 1 ? "" : "s",
			100.0 / ng);
		bool any = false;
		for (int e = 0; p->event_pinned && e < m->nevents; e++)
			if (p->event_pinned[e] && m->events[e].pmu == pmu && ng > 1) {
				fprintf(out, "%s %s%s", any ? "" : "  pinned, in every group:", m->events[e].name,
					p->event_fixed_pin && p->event_fixed_pin[e] ? "(fixed)" : "");
				any = true;
			}
		if (any)
			fputc('\n', out);
		int k = 0;
		for (int gi = 0; gi < p->ngroups; gi++) {
			const struct sched_group *sg = &p->groups[gi];
			if (sg->pmu != pmu)
				continue;
			if (pmu_unlimited(pd))
				fprintf(out, "  group %d:", ++k);
			else
				fprintf(out, "  group %d [%d counter%s]:", ++k, sg->counters_used,
					sg->counters_used == 1 ? "" : "s");
			for (int j = 0; j < sg->nevents; j++) {
				const struct event_def *ed = &m->events[sg->events[j]];
				fprintf(out, " %s%s", ed->name, (ed->flags & EVF_MERGE) ? "(pair)" : "");
				if (sg->counted && sg->counted[j] != sg->events[j])
					fprintf(out, "(as %s)", m->events[sg->counted[j]].name);
			}
			fputc('\n', out);
		}
	}
	int nsplit = 0;
	for (int i = 0; i < p->nmetrics; i++)
		nsplit += p->metric_split[p->metrics[i]];
	fprintf(out, "%d metric%s planned", p->nmetrics, p->nmetrics == 1 ? "" : "s");
	if (nsplit) {
		fprintf(out, "; computed across groups (estimated):");
		for (int i = 0; i < p->nmetrics; i++)
			if (p->metric_split[p->metrics[i]])
				fprintf(out, " %s", m->metrics[p->metrics[i]].name);
	}
	fputc('\n', out);
	fprintf(out, "counted throughout:");
	print_metrics_if(p, m, out, true);
	fprintf(out, "\nrotating:");
	print_metrics_if(p, m, out, false);
	fputc('\n', out);
	for (int i = 0; i < p->nunpinned; i++)
		fprintf(out, "not pinned: %s: %s\n", m->metrics[p->unpinned[i]].name, p->unpinned_why[i]);
	for (int i = 0; i < p->nunschedulable; i++)
		fprintf(out, "unschedulable: %s: %s\n", m->events[p->unschedulable[i]].name,
			p->unsched_why[i]);
}
