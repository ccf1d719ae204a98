/* evdef_resolve.c: the last step of loading metrics, once every event and
 * metric stanza is built. It resolves the names in each formula (event i ->
 * i, metric j -> METRIC_REF(j), interval_s -> BUILTIN_INTERVAL_S), orders the
 * metrics so that each is finished after the metrics it uses, refuses metric
 * cycles and scope mistakes, derives scopes that are not given, and collects
 * the events (transitively) that each metric needs. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "evdef.h"
#include "evdef_impl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct resolve_ctx {
	struct model *m;
	char *why;    /* why a NAME:MODS was refused, for the error */
};

static int resolve_name(void *vctx, const char *name)
{
	struct resolve_ctx *c = vctx;
	int i = model_find_event(c->m, name);
	if (i >= 0)
		return i;
	i = model_find_metric(c->m, name);
	if (i >= 0)
		return METRIC_REF(i);
	if (!strcmp(name, "interval_s"))
		return BUILTIN_INTERVAL_S;
	/* An event with privilege modifiers (`instructions:u`): its variant. */
	if (strchr(name, ':') && !c->why) {
		i = model_event_variant(c->m, name, &c->why);
		if (i >= 0)
			return i;
		if (i == -1) {
			/* No such event: said as for any unknown name. */
			free(c->why);
			c->why = NULL;
		}
	}
	return -1;
}

/* Column of the first use of name as a whole word in a formula, for errors
 * that concern one reference. */
static int name_col(const struct def_attr *f, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = f->value; (p = strstr(p, name)); p++) {
		bool before = p == f->value || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
		bool after = !(isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.');
		if (before && after)
			return f->value_col + (int)(p - f->value);
	}
	return f->value_col;
}

static void add_event(struct metric_def *md, int ev)
{
	for (int i = 0; i < md->nevents; i++)
		if (md->events[i] == ev)
			return;
	md->events = evdef_grow(md->events, md->nevents, sizeof(int));
	md->events[md->nevents++] = ev;
}

/* Finishes metric j once every metric it uses is finished: checks or
 * derives its scope and collects its events. */
static int finish_metric(struct builder *b, int j, const struct metric_src *src)
{
	struct model *m = b->m;
	struct metric_def *md = &m->metrics[j];
	int *ids;
	int n = expr_ids(md->expr, &ids);
	enum scope need = SCOPE_THREAD;
	for (int i = 0; i < n; i++) {
		int r = ids[i];
		if (r == BUILTIN_INTERVAL_S)
			continue;
		if (r >= METRIC_REF_BASE) {
			const struct metric_def *used = &m->metrics[r - METRIC_REF_BASE];
			if (src->scope_given && used->scope > md->scope) {
				evdef_at(b, src->st->file, src->formula->line, name_col(src->formula, used->name),
					 "metric '%s' has scope %s but uses metric '%s' (scope %s)", md->name,
					 scope_name(md->scope), used->name, scope_name(used->scope));
				free(ids);
				return -1;
			}
			if (used->scope > need)
				need = used->scope;
			for (int k = 0; k < used->nevents; k++)
				add_event(md, used->events[k]);
		} else {
			const struct event_def *ev = &m->events[r];
			const struct pmu_def *p = &m->pmus[ev->pmu];
			if (src->scope_given && p->scope > md->scope) {
				evdef_at(b, src->st->file, src->formula->line, name_col(src->formula, ev->name),
					 "metric '%s' has scope %s but uses event '%s' of PMU '%s' (scope %s)", md->name,
					 scope_name(md->scope), ev->name, p->name, scope_name(p->scope));
				free(ids);
				return -1;
			}
			if (p->scope > need)
				need = p->scope;
			add_event(md, r);
		}
	}
	free(ids);
	if (!src->scope_given)
		md->scope = need;
	if (!md->events)
		md->events = xcalloc(1, sizeof(int));
	return 0;
}

/* Visits the metric graph depth first without recursion (a long chain of
 * metrics in a hostile file must not exhaust the stack), finishing each
 * metric after those it uses, and reports the first cycle as a -> b -> a. */
static int order_metrics(struct builder *b, const struct metric_src *src)
{
	struct model *m = b->m;
	int n = m->nmetrics;
	if (n == 0)
		return 0;
	char *state = xcalloc((size_t)n, 1);   /* 0 new, 1 on the stack, 2 finished */
	int *stack = xmalloc((size_t)n * sizeof(int));
	int *next = xcalloc((size_t)n, sizeof(int)); /* next id to look at, per metric */
	int **ids = xcalloc((size_t)n, sizeof(int *));
	int *nids = xcalloc((size_t)n, sizeof(int));
	int rc = 0;

	for (int root = 0; root < n && rc == 0; root++) {
		if (state[root])
			continue;
		int sp = 0;
		stack[sp++] = root;
		state[root] = 1;
		nids[root] = expr_ids(m->metrics[root].expr, &ids[root]);
		while (sp > 0 && rc == 0) {
			int j = stack[sp - 1];
			if (next[j] == nids[j]) {
				rc = finish_metric(b, j, &src[j]);
				state[j] = 2;
				sp--;
				continue;
			}
			int r = ids[j][next[j]++];
			if (r < METRIC_REF_BASE || r == BUILTIN_INTERVAL_S)
				continue;
			int k = r - METRIC_REF_BASE;
			if (state[k] == 2)
				continue;
			if (state[k] == 1) {
				/* The cycle is the stack from k up to j, then k again. */
				int from = sp - 1;
				while (stack[from] != k)
					from--;
				size_t len = 1;
				for (int i = from; i < sp; i++)
					len += strlen(m->metrics[stack[i]].name) + 4;
				len += strlen(m->metrics[k].name);
				char *path = xmalloc(len);
				path[0] = 0;
				for (int i = from; i < sp; i++) {
					strcat(path, m->metrics[stack[i]].name);
					strcat(path, " -> ");
				}
				strcat(path, m->metrics[k].name);
				const struct def_attr *f = src[j].formula;
				evdef_at(b, src[j].st->file, f->line, name_col(f, m->metrics[k].name), "metric cycle: %s", path);
				free(path);
				rc = -1;
				break;
			}
			state[k] = 1;
			nids[k] = expr_ids(m->metrics[k].expr, &ids[k]);
			stack[sp++] = k;
		}
	}
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	free(nids);
	free(next);
	free(stack);
	free(state);
	return rc;
}

/* Each metric's `parent`: a metric of the same unit, a ratio, or `whole`;
 * then each tree member's depth (a cycle of parents is refused). */
static int resolve_parents(struct builder *b, const struct metric_src *src)
{
	struct model *m = b->m;
	for (int j = 0; j < m->nmetrics; j++) {
		struct metric_def *md = &m->metrics[j];
		const struct def_attr *a = src[j].parent;
		if (!a)
			continue;
		if (strcmp(md->unit, "ratio") != 0)
			return evdef_at(b, src[j].st->file, a->line, a->value_col,
					"a part of a tree must have unit ratio, but '%s' has '%s'", md->name, md->unit);
		if (!strcmp(a->value, "whole")) {
			md->parent = METRIC_PARENT_WHOLE;
			continue;
		}
		int p = model_find_metric(m, a->value);
		if (p < 0 || p == j)
			return evdef_at(b, src[j].st->file, a->line, a->value_col,
					"expected 'whole' or another metric as parent but found '%s'", a->value);
		if (strcmp(m->metrics[p].unit, "ratio") != 0)
			return evdef_at(b, src[j].st->file, a->line, a->value_col,
					"parent '%s' must have unit ratio, as its parts do", a->value);
		md->parent = p;
	}
	for (int j = 0; j < m->nmetrics; j++) {
		int d = 0, k = j;
		while (k >= 0 && d <= m->nmetrics) {
			d++;
			k = m->metrics[k].parent;
		}
		if (m->metrics[j].parent == -1)
			d = 0;
		else if (k != METRIC_PARENT_WHOLE)
			return evdef_at(b, src[j].st->file, src[j].parent->line, src[j].parent->value_col,
					"parent '%s' does not lead to 'whole' (a cycle, or a parent without one)",
					src[j].parent->value);
		m->metrics[j].depth = d;
	}
	return 0;
}

/* Each metric's `split`: a socket figure in W, shared out by the metric's
 * own formula, which must be one event counted per CPU. */
static int resolve_splits(struct builder *b, const struct metric_src *src)
{
	struct model *m = b->m;
	for (int j = 0; j < m->nmetrics; j++) {
		struct metric_def *md = &m->metrics[j];
		const struct def_attr *a = src[j].split;
		if (!a)
			continue;
		int p = model_find_metric(m, a->value);
		if (p < 0 || p == j || m->metrics[p].scope != SCOPE_SOCKET || strcmp(m->metrics[p].unit, "W"))
			return evdef_at(b, src[j].st->file, a->line, a->value_col,
					"expected a metric in W computed per socket to split but found '%s'", a->value);
		if (md->scope != SCOPE_THREAD || expr_kind(md->expr) != EXPR_NAME || expr_ref(md->expr) < 0 ||
		    expr_ref(md->expr) >= m->nevents || strcmp(md->unit, "W"))
			return evdef_at(b, src[j].st->file, src[j].formula->line, src[j].formula->value_col,
					"a split metric's formula is the one per-CPU event it splits by, and its unit W");
		md->split = p;
	}
	return 0;
}

int evdef_resolve_metrics(struct builder *b, const struct metric_src *src)
{
	if (resolve_parents(b, src) < 0)
		return -1;
	struct model *m = b->m;
	for (int j = 0; j < m->nmetrics; j++) {
		char *cause = NULL;
		int col = 0;
		struct resolve_ctx ctx = { m, NULL };
		if (expr_resolve(m->metrics[j].expr, resolve_name, &ctx, &col, &cause) < 0) {
			const char *q = cause ? strchr(cause, '\'') : NULL;
			const char *e = q ? strchr(q + 1, '\'') : NULL;
			if (ctx.why)
				evdef_at(b, src[j].st->file, src[j].formula->line, src[j].formula->value_col + col - 1,
					 "%s", ctx.why);
			else
				evdef_at(b, src[j].st->file, src[j].formula->line, src[j].formula->value_col + col - 1,
					 "unknown event '%.*s' in formula", e ? (int)(e - q - 1) : 0, e ? q + 1 : "");
			free(ctx.why);
			free(cause);
			return -1;
		}
		free(ctx.why);
	}
	if (order_metrics(b, src) < 0)
		return -1;
	return resolve_splits(b, src);
}
