/* model.c: the leaf of the model family. Scope names, the model_find_*()
 * look-ups and their name index, and model_free(): what the loader's entry
 * (evdef.c), its builder files (evdef_build*.c, evdef_resolve.c,
 * evdef_modifier.c) and every reader of a model share. It calls nothing of
 * the loader's, so the family calls down (docs/architecture.md). */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "model.h"
#include "name_index.h"

#include <stdlib.h>
#include <string.h>

static const char *const scope_names[SCOPE_COUNT] = {
	[SCOPE_THREAD] = "thread", [SCOPE_CORE] = "core", [SCOPE_CCX] = "ccx",
	[SCOPE_SOCKET] = "socket", [SCOPE_SYSTEM] = "system",
};

const char *scope_name(enum scope s)
{
	return (unsigned)s < SCOPE_COUNT ? scope_names[s] : "?";
}

int scope_parse(const char *s)
{
	for (int i = 0; i < SCOPE_COUNT; i++)
		if (s && !strcmp(s, scope_names[i]))
			return i;
	return -1;
}

/* Looks a name up in an array of pmu_def, event_def, metric_def or view_def,
 * each of which has its name as its first member. */
static int find_named(const void *base, size_t size, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		const char *const *pname = (const char *const *)((const char *)base + (size_t)i * size);
		if (!strcmp(*pname, name))
			return i;
	}
	return -1;
}

/* ---- the model ------------------------------------------------------------- */

void view_def_clear(struct view_def *v)
{
	free(v->name);
	free(v->title);
	for (int j = 0; j < v->ncols; j++)
		free(v->cols[j].fmt);
	free(v->cols);
	free(v->bar);
	free(v->pin);
	free(v->file);
	*v = (struct view_def){ 0 };
}

bool metric_per_task(const struct model *m, int mi, char **why)
{
	const struct metric_def *md = &m->metrics[mi];
	if (md->scope != SCOPE_THREAD) {
		if (why)
			*why = xasprintf("metric '%s' is computed per %s, not per CPU", md->name, scope_name(md->scope));
		return false;
	}
	for (int i = 0; i < md->nevents; i++) {
		const struct event_def *ev = &m->events[md->events[i]];
		enum pmu_kind k = m->pmus[ev->pmu].kind;
		if (k != PMU_CORE && k != PMU_SOFTWARE) {
			if (why)
				*why = xasprintf("metric '%s' uses event '%s' of PMU '%s', which cannot be split by task",
						 md->name, ev->name, m->pmus[ev->pmu].name);
			return false;
		}
	}
	return true;
}

int event_sample_counters(const struct model *m, int e)
{
	const struct event_def *ev = &m->events[e];
	if (m->pmus[ev->pmu].kind != PMU_CORE)
		return 0;
	return ev->flags & EVF_MERGE ? 2 : 1;
}

void *model_room(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = n < 4 ? 8 : 2 * n;
	return xrealloc(p, (size_t)*cap * size);
}

/* Whether s lies in one of the blocks the loader gave the model. */
static bool kept_holds(const struct model_kept *k, const char *s)
{
	for (int i = 0; i < k->ntexts; i++)
		if (k->texts[i] && s >= k->texts[i] && s <= k->texts[i] + k->lens[i])
			return true;
	for (int i = 0; i < k->nfiles; i++)
		if (s == k->files[i])
			return true;
	return false;
}

/* Frees an event's or a metric's string unless it lies in a kept block. */
static void str_free(const struct model *m, char *s)
{
	if (s && !(m->kept && kept_holds(m->kept, s)))
		free(s);
}

void model_str_set(struct model *m, char **field, char *s)
{
	str_free(m, *field);
	*field = s;
}

static void kept_free(struct model_kept *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->ntexts; i++)
		free(k->texts[i]);
	for (int i = 0; i < k->nfiles; i++)
		free(k->files[i]);
	free(k->texts);
	free(k->lens);
	free(k->files);
	free(k);
}

void model_free(struct model *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->desc);
	free(m->dir);
	free(m->sim_args);
	free(m->alias);
	free(m->l3_domain);
	model_free_matches(m->match, m->nmatch);
	for (int i = 0; i < m->npmus; i++) {
		struct pmu_def *p = &m->pmus[i];
		free(p->name);
		free(p->perf_name);
		free(p->notation);
		for (int j = 0; j < p->nfields; j++)
			free(p->fields[j].name);
		free(p->fields);
		free(p->file);
	}
	free(m->pmus);
	for (int i = 0; i < m->nevents; i++) {
		struct event_def *e = &m->events[i];
		str_free(m, e->name);
		str_free(m, e->spec);
		str_free(m, e->desc);
		str_free(m, e->sim_text);
		str_free(m, e->requires);
		str_free(m, e->scale_unit);
		for (int j = 0; j < e->nportable; j++)
			free(e->portable[j].name);
		free(e->portable);
		str_free(m, e->file);
	}
	free(m->events);
	for (int i = 0; i < m->nmetrics; i++) {
		struct metric_def *md = &m->metrics[i];
		str_free(m, md->name);
		str_free(m, md->label);
		str_free(m, md->unit);
		str_free(m, md->desc);
		for (int j = 0; j < md->ngroups; j++)
			free(md->groups[j]);
		free(md->groups);
		str_free(m, md->formula);
		expr_free(md->expr);
		free(md->events);
		str_free(m, md->note);
		str_free(m, md->perf);
		str_free(m, md->truth);
		str_free(m, md->file);
	}
	free(m->metrics);
	for (int i = 0; i < m->nviews; i++)
		view_def_clear(&m->views[i]);
	free(m->views);
	for (int i = 0; i < (int)ARRAY_SIZE(m->index); i++)
		name_index_free(m->index[i]);
	kept_free(m->kept);
	free(m);
}

void model_free_matches(struct model_match *mm, int n)
{
	for (int i = 0; i < n; i++)
		free(mm[i].vendor);
	free(mm);
}

void model_index_add(struct model *m, enum name_kind k, const char *name, int i)
{
	if (!m->index[k])
		m->index[k] = name_index_new();
	name_index_add(m->index[k], name, i);
}

int model_find_pmu(const struct model *m, const char *name)
{
	if (m->index[NAME_PMU])
		return name_index_find(m->index[NAME_PMU], name);
	return find_named(m->pmus, sizeof(*m->pmus), m->npmus, name);
}

int model_find_event(const struct model *m, const char *name)
{
	if (m->index[NAME_EVENT])
		return name_index_find(m->index[NAME_EVENT], name);
	return find_named(m->events, sizeof(*m->events), m->nevents, name);
}

int model_find_metric(const struct model *m, const char *name)
{
	if (m->index[NAME_METRIC])
		return name_index_find(m->index[NAME_METRIC], name);
	return find_named(m->metrics, sizeof(*m->metrics), m->nmetrics, name);
}

int model_find_view(const struct model *m, const char *name)
{
	if (m->index[NAME_VIEW])
		return name_index_find(m->index[NAME_VIEW], name);
	return find_named(m->views, sizeof(*m->views), m->nviews, name);
}

bool metric_in_group(const struct metric_def *md, const char *g)
{
	if (!strcmp(md->name, g))
		return true;
	for (int i = 0; i < md->ngroups; i++)
		if (!strcmp(md->groups[i], g))
			return true;
	return false;
}

bool pmu_counts_always(const struct pmu_def *pd)
{
	return (pd->kind == PMU_PROC || pd->kind == PMU_SOFTWARE) && pd->scope == SCOPE_THREAD;
}

bool event_fits_group(const struct model *m, int p, int e)
{
	if (p < 0 || p >= m->npmus || e < 0 || e >= m->nevents)
		return false;
	const struct pmu_def *host = &m->pmus[p];
	return m->events[e].pmu == p || (pmu_counts_always(&m->pmus[m->events[e].pmu]) &&
					 host->kind == PMU_CORE && host->scope == SCOPE_THREAD);
}
