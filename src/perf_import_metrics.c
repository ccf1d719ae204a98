/* perf_import_metrics.c: perf's metrics as pmctop metric stanzas, and the
 * dashboard's views made from their metric groups (events/perf/views.txt
 * says which groups fill which view).
 *
 * Names: a reference in a MetricExpr is a metric when one has that name,
 * else an event, as perf resolves them. A metric that cannot be translated
 * is left out with its reason, and so is every metric that uses it.
 * ScaleUnit: "100%" (perf's fraction shown as a percentage) and Arm's
 * "1percent of slots" become pmctop's unit "ratio", a 0..1 fraction;
 * "1GB/s", "1ns" and the like keep their unit and factor.
 * Topdown: the TopdownL1 (AMD: PipelineL1) metrics are parts of the whole,
 * the TopdownL2 ones parts of the level-1 metric their "tma_X_group"
 * (AMD: "X_group") names, so the dashboard reconciles them as it does the
 * hand-written trees (derive_tree.c). */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "name_index.h"
#include "perf_import_impl.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* What translating one metric found. */
struct met {
	char *name;           /* pmctop name */
	char *formula;        /* NULL: left out */
	char *why;
	int *deps; int ndeps; /* metrics it uses */
	int level;            /* 1, 2 for topdown levels, else 0 */
	/* It names the machine's cores, dies or packages (#num_packages):
	 * a figure of the whole system, computed on its row alone. */
	bool system;
	/* Its MetricName and MetricGroup (or NULL), held by im->metrics:
	 * every item of every view looks at every metric. */
	const char *perf_name, *groups;
	/* The common metric it is imported as (perf_import_common.c), or NULL. */
	const struct def_stanza *alias;
};

struct tr_ctx {
	struct imp *im;
	struct met *mets;
	int self;
};

/* Each row's figures are sums over its CPUs, so perf's per-CPU terms
 * are taken per CPU of the row: cpu_online_ns summed over a row is its
 * CPUs times the interval. perf's TSC (and msr@tsc@) is one CPU's time
 * stamp counter, the row's sum of msr.tsc over its CPUs; without this a
 * frequency of 16 CPUs read 16 times the clock (docs/perf-import.md,
 * "Row scope"). */
#define ROW_CPUS "(cpu_online_ns / (interval_s * 1e9))"

static char *tr_row_literal(void *vctx, const char *lit)
{
	(void)vctx;
	if (!strcasecmp(lit, "num_cpus_online"))
		return xstrdup(ROW_CPUS);
	return NULL;
}

static char *tr_name(void *vctx, const char *perf_name, char **why)
{
	struct tr_ctx *c = vctx;
	char *n = imp_name(perf_name);
	int j = name_index_find(c->im->met_ix, n);
	free(n);
	if (j >= 0 && j != c->self && !strchr(perf_name, '@')) {
		struct met *m = &c->mets[c->self];
		m->deps = xrealloc(m->deps, (size_t)(m->ndeps + 1) * sizeof(int));
		m->deps[m->ndeps++] = j;
		return xstrdup(c->mets[j].name);
	}
	char *ev = imp_event_ref(c->im, perf_name, why);
	if (ev && !strcmp(ev, "msr.tsc")) {
		char *per_cpu = xasprintf("(msr.tsc / %s)", ROW_CPUS);
		free(ev);
		return per_cpu;
	}
	return ev;
}

static bool tr_literal(void *vctx, const char *lit, double *v)
{
	struct tr_ctx *c = vctx;
	if (!strcasecmp(lit, "smt_on")) {
		*v = c->im->opts && c->im->opts->smt;
		return true;
	}
	/* pmctop counts system-wide, all threads of each core included. */
	if (!strcasecmp(lit, "core_wide")) {
		*v = 1;
		return true;
	}
	if (!strcasecmp(lit, "has_pmem")) {
		*v = 0;
		return true;
	}
	if (!strcasecmp(lit, "slots") && c->im->slots > 0) {
		*v = c->im->slots;
		return true;
	}
	const struct perf_import_opts *o = c->im->opts;
	static const struct { const char *lit; size_t off; } topo_lits[] = {
		{ "num_cpus_online", offsetof(struct perf_import_opts, ncpus_online) },
		{ "num_cores", offsetof(struct perf_import_opts, ncores) },
		{ "num_packages", offsetof(struct perf_import_opts, npackages) },
		{ "num_dies", offsetof(struct perf_import_opts, ndies) },
	};
	for (size_t i = 0; o && i < ARRAY_SIZE(topo_lits); i++) {
		int n = *(const int *)((const char *)o + topo_lits[i].off);
		if (!strcasecmp(lit, topo_lits[i].lit) && n > 0) {
			*v = n;
			c->mets[c->self].system = true;
			return true;
		}
	}
	return false;
}

static bool tr_has_event(void *vctx, const char *perf_name)
{
	struct tr_ctx *c = vctx;
	char *why = NULL;
	char *n = imp_event_ref(c->im, perf_name, &why);
	free(why);
	free(n);
	return n != NULL;
}

static double tr_cpuid_is(void *vctx, const char *id)
{
	struct tr_ctx *c = vctx;
	return c->im->cpuid && !strcasecmp(c->im->cpuid, id);
}

/* Whether group list gl ("A;B;C") holds g. */
static bool in_groups(const char *gl, const char *g)
{
	size_t n = strlen(g);
	for (const char *p = gl; p && *p;) {
		size_t l = strcspn(p, ";");
		if (l == n && !strncasecmp(p, g, n))
			return true;
		p += l;
		if (*p)
			p++;
	}
	return false;
}

static int topdown_level(const char *gl)
{
	if (!gl)
		return 0;
	if (in_groups(gl, "TopdownL1") || in_groups(gl, "PipelineL1"))
		return 1;
	if (in_groups(gl, "TopdownL2") || in_groups(gl, "PipelineL2"))
		return 2;
	return 0;
}

/* The unit and factor of a ScaleUnit ("100%", "1GB/s", "1percent of slots"). */
static char *scale_unit(const char *su, double *factor)
{
	*factor = 1;
	if (!su)
		return xstrdup("");
	char *end;
	double f = strtod(su, &end);
	if (end == su)
		f = 1;
	while (*end == ' ')
		end++;
	if (*end == '%' || !strncasecmp(end, "percent", 7)) {
		*factor = f / 100;
		return xstrdup("ratio");
	}
	*factor = f;
	char *u = xstrdup(*end ? end : "");
	/* A unit is one word on a stanza line. */
	for (char *p = u; *p; p++)
		if (isspace((unsigned char)*p))
			*p = '_';
	return u;
}

/* The parent of a level-2 metric: the level-1 metric whose "X_group" or
 * "tma_X_group" it belongs to; -1 if none. */
static int l2_parent(struct imp *im, const struct met *mets, int n, const char *gl)
{
	for (int j = 0; j < n; j++) {
		if (mets[j].level != 1 || !mets[j].formula)
			continue;
		const char *pn = jstr(json_array_get(im->metrics, (size_t)j), "MetricName");
		char *g = xasprintf("%s_group", pn);
		bool in = in_groups(gl, g);
		free(g);
		if (in)
			return j;
	}
	return -1;
}

static void metric_stanza(struct imp *im, struct met *mets, int n, int k)
{
	json_t *o = json_array_get(im->metrics, (size_t)k);
	const char *gl = jstr(o, "MetricGroup");
	double factor;
	char *unit = scale_unit(jstr(o, "ScaleUnit"), &factor);
	const char *file = imp_file(im, im->dir);
	struct def_stanza *st = imp_stanza(im, ST_METRIC, mets[k].name, file, 0);
	const char *label = mets[k].name;
	if (!strncmp(label, "tma_info_", 9))
		label += 9;
	else if (!strncmp(label, "tma_", 4))
		label += 4;
	imp_attr(st, "label", label);
	/* perf's name, for the detail pane and --list-metrics (a few have
	 * characters no name may have, such as Sierra Forest's '%'). */
	const char *pn = jstr(o, "MetricName");
	if (pn && pn[strspn(pn, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")] == '\0')
		imp_attr(st, "perf", pn);
	if (*unit)
		imp_attr(st, "unit", unit);
	if (mets[k].system)
		imp_attr(st, "scope", "system");
	if (factor != 1)
		imp_attrf(st, "formula", "%.17g * %s", factor, mets[k].formula);
	else
		imp_attr(st, "formula", mets[k].formula);
	const char *desc = jstr(o, "BriefDescription");
	/* A figure perf calls a fraction but gives no unit (Intel's
	 * tma_info_thread_slots_utilization, written for counts of the whole
	 * core, reads 2 from one thread's): beyond 0..1 it is marked, never
	 * shown as a plain number (derive_bounds.c). */
	if (!*unit && desc && !strncasecmp(desc, "Fraction", 8))
		imp_attr(st, "range", "0 1");
	char *d = xstrndup(desc ? desc : mets[k].name, strcspn(desc ? desc : mets[k].name, "\n"));
	imp_attr(st, "desc", d);
	free(d);
	char *groups = NULL;
	if (mets[k].level == 1)
		xappendf(&groups, "topdown_l1");
	if (mets[k].level == 2)
		xappendf(&groups, "topdown_l2");
	for (const char *p = gl; p && *p;) {
		size_t l = strcspn(p, ";");
		char *g = xstrndup(p, l);
		char *gn = imp_name(g);
		if (*gn && !isdigit((unsigned char)gn[0]))
			xappendf(&groups, "%s%s", groups ? " " : "", gn);
		free(g);
		free(gn);
		p += l;
		if (*p)
			p++;
	}
	if (groups)
		imp_attr(st, "groups", groups);
	free(groups);
	if (!strcmp(unit, "ratio")) {
		/* Intel's fractions are estimates that may stray a little
		 * outside 0..1; derive_bounds.c flags those. */
		if (mets[k].level == 1)
			imp_attr(st, "parent", "whole");
		else if (mets[k].level == 2) {
			int p = l2_parent(im, mets, n, gl);
			if (p >= 0)
				imp_attr(st, "parent", mets[p].name);
		}
	}
	free(unit);
	if (mets[k].alias)
		imp_common_annotate(mets[k].alias, st);
}

/* ---- views ----------------------------------------------------------------- */

/* Columns of a view: the 4 level-1 fractions and their 8 parts fit. */
#define VIEW_MAX_COLS 12

static void add_view(struct imp *im, const char *line, const struct met *mets, int n)
{
	/* A view of the common vocabulary has the name already. */
	size_t nl = strcspn(line, " \t");
	for (int s = 0; s < im->set->nstanzas; s++) {
		const struct def_stanza *vs = &im->set->stanzas[s];
		if (vs->kind == ST_VIEW && strlen(vs->name) == nl && !strncmp(line, vs->name, nl))
			return;
	}
	char name[64], items[1024];
	int key, used = 0;
	if (sscanf(line, "%63s %d %1023s %n", name, &key, items, &used) < 3)
		return;
	const char *title = line + used;
	/* The bar shows the deepest level of the view (level 2 in
	 * topdown_l2, which lists the level-1 parents first). */
	int bar_level = strstr(name, "_l2") ? 2 : 1;
	bool topdown = !strncmp(name, "topdown", 7);
	/* cols: index k of an imported metric, or -1 - s for pmctop's own
	 * metric of stanza s ("+util" in views.txt). */
	int *cols = xcalloc((size_t)n + 64, sizeof(int));
	bool *taken = xcalloc((size_t)n + 1, sizeof(bool));
	int ncols = 0, nbar = 0;
	char *save = NULL;
	for (char *it = strtok_r(items, ",", &save); it && ncols < VIEW_MAX_COLS; it = strtok_r(NULL, ",", &save)) {
		if (it[0] == '+') {
			for (int s = 0; s < im->set->nstanzas; s++) {
				const struct def_stanza *ms = &im->set->stanzas[s];
				if (ms->kind == ST_METRIC && !strcmp(ms->name, it + 1) && ncols < n + 60) {
					cols[ncols++] = -1 - s;
					break;
				}
			}
			continue;
		}
		for (int k = 0; k < n && ncols < VIEW_MAX_COLS; k++) {
			if (!mets[k].formula || taken[k])
				continue;
			const char *gl = mets[k].groups;
			const char *pn = mets[k].perf_name;
			if (it[0] == '=' ? strcasecmp(pn, it + 1) != 0 : !gl || !in_groups(gl, it))
				continue;
			taken[k] = true;
			cols[ncols++] = k;
			nbar += topdown && mets[k].level == bar_level;
		}
	}
	/* A level-2 view without level-2 metrics (Arm's standard topdown
	 * has level 1 only) would repeat the level-1 view. */
	int nown = 0;
	for (int c = 0; c < ncols; c++)
		nown += cols[c] < 0;
	if (ncols > nown && !(topdown && bar_level == 2 && nbar == 0)) {
		struct def_stanza *st = imp_stanza(im, ST_VIEW, name, imp_file(im, im->dir), 0);
		imp_attr(st, "title", title);
		if (key > 0)
			imp_attrf(st, "key", "%d", key);
		char *bar = NULL;
		for (int c = 0; c < ncols; c++) {
			int k = cols[c];
			if (k < 0) {
				imp_attrf(st, "column", "%s fmt=%%.1f", im->set->stanzas[-1 - k].name);
				continue;
			}
			double f;
			char *unit = scale_unit(jstr(json_array_get(im->metrics, (size_t)k), "ScaleUnit"), &f);
			bool ratio = !strcmp(unit, "ratio");
			imp_attrf(st, "column", "%s fmt=%s", mets[k].name, ratio ? "pct" : "%.2f");
			if (ratio && topdown && mets[k].level == bar_level)
				xappendf(&bar, "%s%s", bar ? " " : "", mets[k].name);
			free(unit);
		}
		if (bar)
			imp_attr(st, "bar", bar);
		free(bar);
	}
	free(cols);
	free(taken);
}

static void add_views(struct imp *im, const struct met *mets, int n)
{
	char *path = xasprintf("%s/perf/views.txt", im->events_dir);
	char *text = read_text_file(path);
	free(path);
	if (!text)
		return;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (*line && *line != '#')
			add_view(im, line, mets, n);
	free(text);
}

/* Whether the CPU's files have a metric called perf_name. */
static bool has_perf_metric(void *ctx, const char *perf_name)
{
	struct imp *im = ctx;
	for (size_t k = 0; k < json_array_size(im->metrics); k++) {
		const char *pn = jstr(json_array_get(im->metrics, k), "MetricName");
		if (pn && !strcasecmp(pn, perf_name))
			return true;
	}
	return false;
}

int imp_metrics(struct imp *im)
{
	char *cause = NULL;
	struct imp_common *common = imp_common_read(im, &cause);
	if (!common) {
		im->err = cause;
		return -1;
	}
	int n = (int)json_array_size(im->metrics);
	struct met *mets = xcalloc((size_t)n + 1, sizeof(*mets));
	im->met_names = xcalloc((size_t)n + 1, sizeof(char *));
	/* The stanzas so far, by name (no stanza is added until the names
	 * are made): every metric's name is checked against all of them. */
	struct name_index *taken = name_index_new();
	for (int s = 0; s < im->set->nstanzas; s++)
		name_index_add(taken, im->set->stanzas[s].name, s);
	/* Names first, so that a metric may use one defined after it. A
	 * name an event (or a generic definition) has already gets "_metric". */
	for (int k = 0; k < n; k++) {
		const char *pn = jstr(json_array_get(im->metrics, (size_t)k), "MetricName");
		if (!pn)
			continue;
		char *name = imp_name(pn);
		im->met_names[k] = xstrdup(name);
		if (name_index_find(im->met_ix, im->met_names[k]) >= 0) {
			free(name);
			continue;             /* a second definition: the first wins */
		}
		name_index_add(im->met_ix, im->met_names[k], k);
		mets[k].alias = imp_common_alias(common, pn, has_perf_metric, im);
		if (mets[k].alias) {
			mets[k].name = xstrdup(mets[k].alias->name);
			free(name);
			continue;
		}
		bool clash = name_index_find(im->ev_ix, name) >= 0 || name_index_find(taken, name) >= 0 ||
			     imp_common_reserves(common, name, has_perf_metric, im);
		mets[k].name = clash ? xasprintf("%s_metric", name) : xstrdup(name);
		free(name);
	}
	name_index_free(taken);
	for (int k = 0; k < n; k++) {
		json_t *o = json_array_get(im->metrics, (size_t)k);
		const char *expr = jstr(o, "MetricExpr");
		if (!mets[k].name)
			continue;
		mets[k].level = topdown_level(jstr(o, "MetricGroup"));
		if (!expr) {
			mets[k].why = xstrdup("no MetricExpr");
			continue;
		}
		struct tr_ctx c = { .im = im, .mets = mets, .self = k };
		struct perf_expr_env env = { .ctx = &c, .name = tr_name, .literal = tr_literal,
					     .row_literal = tr_row_literal, .has_event = tr_has_event,
					     .cpuid_is = tr_cpuid_is };
		mets[k].formula = perf_expr_translate(expr, &env, &mets[k].why);
		/* pmctop's parser bounds a formula's nesting and size; a metric
		 * beyond them is left out rather than failing the whole model. */
		int col;
		struct expr *x = mets[k].formula ? expr_parse(mets[k].formula, &col, &mets[k].why) : NULL;
		if (mets[k].formula && !x) {
			free(mets[k].formula);
			mets[k].formula = NULL;
		}
		expr_free(x);
	}
	/* Leave out whatever uses a metric that is left out; whatever uses a
	 * figure of the whole system is one too. */
	for (bool changed = true; changed;) {
		changed = false;
		for (int k = 0; k < n; k++) {
			for (int d = 0; mets[k].formula && d < mets[k].ndeps; d++) {
				int j = mets[k].deps[d];
				if (mets[j].system && !mets[k].system) {
					mets[k].system = true;
					changed = true;
				}
				if (mets[j].formula)
					continue;
				mets[k].why = xasprintf("uses metric %s, which is left out", mets[j].name);
				free(mets[k].formula);
				mets[k].formula = NULL;
				changed = true;
			}
		}
	}
	for (int k = 0; k < n; k++) {
		if (mets[k].formula)
			metric_stanza(im, mets, n, k);
		else if (mets[k].name) {
			char *line = xasprintf("%s: %s", mets[k].name, mets[k].why ? mets[k].why : "not translated");
			text_add_line(&im->skipped, line);
			free(line);
		}
	}
	for (int k = 0; k < n; k++) {
		json_t *o = json_array_get(im->metrics, (size_t)k);
		mets[k].perf_name = jstr(o, "MetricName");
		mets[k].groups = jstr(o, "MetricGroup");
	}
	imp_common_add(common, im);
	imp_common_free(common);
	add_views(im, mets, n);
	for (int k = 0; k < n; k++) {
		free(mets[k].name);
		free(mets[k].formula);
		free(mets[k].why);
		free(mets[k].deps);
	}
	free(mets);
	return 0;
}
