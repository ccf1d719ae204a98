/* perf_import_common.c: pmctop's common vocabulary on an imported model.
 *
 * perf's files name the same figure differently on each CPU
 * (`tma_info_thread_ipc`, `ipc`, `IPC` as a formula), and leave out many of
 * pmctop's (GHz while busy, L3 hit rate). events/perf/common-VENDOR.def
 * (data, in the definition language) says, per vendor, how pmctop's common
 * metrics and views are made of an imported model's events and metrics, so
 * that every model shows the same columns, headings and units
 * (docs/perf-import.md, "One vocabulary"). Its metric stanzas are of two
 * kinds:
 *
 *  - `perf NAME` without a formula: perf's metric NAME is this metric. It
 *    is imported under the stanza's name (so perf's other metrics that use
 *    it follow), keeping perf's formula and unit, with the stanza's label,
 *    range, truth, groups, parent and desc; perf's name stays its `perf`.
 *    The first stanza of a name whose perf metric the CPU has wins.
 *  - a `formula` over the model's events (perf's names, as imported),
 *    pmctop's generic metrics, perf's metrics as imported and the common
 *    metrics before it: added when every name it uses is in the model.
 *    Several stanzas may give one name; the first that can be made wins.
 *
 * A perf metric whose own name is a common metric's, and that is not that
 * metric, is renamed NAME_metric, as a clash with an event is. The views
 * are the hand-written models' (basic, topdown, cache, ...): a column whose
 * metric the model lacks is left out, and a view left with only pmctop's
 * own software columns is left out too. An event stanza gives the model's
 * event of that name its `portable` series (the exporter's
 * instructions_total, memory_read_bytes_total, ...), if it has the event. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "name_index.h"
#include "perf_import_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The vendor's common file, then pmctop's generic files that name events
 * by their portable series ("instructions:u"), which an imported model has
 * only once the first file gave its events their series. */
static const char *const generic_after[] = { "generic/privilege.def" };

struct imp_common {
	struct def_set set;
	bool read;
	struct def_set after[sizeof(generic_after) / sizeof(generic_after[0])];
	int nafter;
};

static const char *attr(const struct def_stanza *st, const char *key)
{
	const struct def_attr *a = evdef_attr_get(st, key);
	return a ? a->value : NULL;
}

struct imp_common *imp_common_read(struct imp *im, char **cause)
{
	struct imp_common *c = xcalloc(1, sizeof(*c));
	const char *vendor = im->arm ? "arm" : im->amd ? "amd" : "intel";
	char *path = xasprintf("%s/perf/common-%s.def", im->events_dir, vendor);
	if (access(path, F_OK) == 0) {
		if (defset_read_file(path, &c->set, cause) < 0) {
			free(path);
			free(c);
			return NULL;
		}
		c->read = true;
	}
	free(path);
	for (size_t i = 0; i < ARRAY_SIZE(generic_after); i++) {
		path = xasprintf("%s/%s", im->events_dir, generic_after[i]);
		bool there = access(path, F_OK) == 0;
		int rc = there ? defset_read_file(path, &c->after[c->nafter], cause) : 0;
		free(path);
		if (rc < 0) {
			imp_common_free(c);
			return NULL;
		}
		c->nafter += there;
	}
	return c;
}

void imp_common_free(struct imp_common *c)
{
	if (!c)
		return;
	if (c->read)
		defset_free(&c->set);
	for (int i = 0; i < c->nafter; i++)
		defset_free(&c->after[i]);
	free(c);
}

/* The alias stanza (`perf NAME`, no formula) that names perf's metric
 * perf_name, the first of its common name that the CPU has; NULL if none.
 * has(ctx, perf name) says whether the CPU's files have a metric. */
const struct def_stanza *imp_common_alias(const struct imp_common *c, const char *perf_name,
					  bool (*has)(void *ctx, const char *perf_name), void *ctx)
{
	for (int s = 0; c && s < c->set.nstanzas; s++) {
		const struct def_stanza *st = &c->set.stanzas[s];
		const char *p = attr(st, "perf");
		if (st->kind != ST_METRIC || attr(st, "formula") || !p || strcasecmp(p, perf_name))
			continue;
		/* An earlier stanza of the same name whose perf metric the CPU has
		 * takes the name first. */
		for (int e = 0; e < s; e++) {
			const struct def_stanza *o = &c->set.stanzas[e];
			const char *op = attr(o, "perf");
			if (o->kind == ST_METRIC && !attr(o, "formula") && op && !strcmp(o->name, st->name) &&
			    has(ctx, op))
				return NULL;
		}
		return st;
	}
	return NULL;
}

/* Whether name is the name of a formula stanza, or of an alias whose perf
 * metric the CPU has: a perf metric of that name gives way to it. */
bool imp_common_reserves(const struct imp_common *c, const char *name, bool (*has)(void *ctx, const char *perf_name),
			 void *ctx)
{
	for (int s = 0; c && s < c->set.nstanzas; s++) {
		const struct def_stanza *st = &c->set.stanzas[s];
		if (st->kind != ST_METRIC || strcmp(st->name, name))
			continue;
		const char *p = attr(st, "perf");
		if (attr(st, "formula") || (p && has(ctx, p)))
			return true;
	}
	return false;
}

/* What an alias stanza gives the perf metric it names: all but its
 * formula. A unit it gives renames perf's (Arm's "per cycle" is insn/cyc,
 * Zen 4's "core clocks" of a figure in ns): perf's formula keeps its
 * scale, so the stanza may correct a unit's name, never its size. */
void imp_common_annotate(const struct def_stanza *alias, struct def_stanza *st)
{
	static const char *const keys[] = { "label", "unit", "range", "truth", "groups", "parent", "desc" };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		const char *v = attr(alias, keys[k]);
		if (!v)
			continue;
		bool done = false;
		for (int i = 0; i < st->nattrs && !done; i++)
			if (!strcmp(st->attrs[i].key, keys[k])) {
				free(st->attrs[i].value);
				st->attrs[i].value = xstrdup(v);
				done = true;
			}
		if (!done)
			imp_attr(st, keys[k], v);
	}
}

/* The stanza of that name and kind in the set so far, or -1. */
static int find_stanza(const struct def_set *set, enum stanza_kind kind, const char *name)
{
	for (int s = 0; s < set->nstanzas; s++)
		if (set->stanzas[s].kind == kind && !strcmp(set->stanzas[s].name, name))
			return s;
	return -1;
}

/* Whether an event of the set gives the portable series name. */
static bool is_portable(const struct def_set *set, const char *name)
{
	size_t n = strlen(name);
	for (int s = 0; s < set->nstanzas; s++) {
		const struct def_stanza *st = &set->stanzas[s];
		for (int i = 0; st->kind == ST_EVENT && i < st->nattrs; i++)
			if (!strcmp(st->attrs[i].key, "portable") && !strncmp(st->attrs[i].value, name, n) &&
			    (st->attrs[i].value[n] == '\0' || st->attrs[i].value[n] == ' '))
				return true;
	}
	return false;
}

/* A name a formula may use: an event (by its name or its portable series,
 * with perf's privilege modifiers, "instructions:u"), a metric, or the
 * interval. The kernel's topdown events (topdown_retiring for perf's
 * topdown-retiring) are made where the core has PERF_METRICS, as when a
 * perf metric names them: Granite Rapids' files name none. */
static bool is_name(struct imp *im, const char *name)
{
	const struct def_set *set = im->set;
	if (!strcmp(name, "interval_s") || find_stanza(set, ST_METRIC, name) >= 0)
		return true;
	char *ev = xstrndup(name, strcspn(name, ":"));
	bool ok = find_stanza(set, ST_EVENT, ev) >= 0 || is_portable(set, ev);
	if (!ok && !strncmp(ev, "topdown_", 8)) {
		char *perf = xstrdup(ev), *why = NULL;
		for (char *p = perf; *p; p++)
			*p = *p == '_' ? '-' : *p;
		char *made = imp_event_ref(im, perf, &why);
		ok = made && !strcmp(made, ev);
		free(made);
		free(why);
		free(perf);
	}
	free(ev);
	return ok;
}

/* Whether every name formula text uses is in the model so far. */
static bool formula_makes(struct imp *im, const char *text)
{
	int col;
	char *why = NULL;
	struct expr *x = expr_parse(text, &col, &why);
	free(why);
	if (!x)
		return false;
	const char **names;
	int n = expr_names(x, &names);
	bool ok = true;
	for (int i = 0; i < n && ok; i++)
		ok = is_name(im, names[i]);
	free(names);
	expr_free(x);
	return ok;
}

static struct def_stanza *copy_stanza(struct imp *im, const struct def_stanza *from)
{
	struct def_stanza *st = imp_stanza(im, from->kind, from->name, imp_file(im, from->file), from->line);
	for (int i = 0; i < from->nattrs; i++) {
		imp_attr(st, from->attrs[i].key, from->attrs[i].value);
		st->attrs[st->nattrs - 1].line = from->attrs[i].line;
	}
	return st;
}

/* A list attribute ("a b c", or a view column "NAME fmt=..."'s first word)
 * without the metrics the model lacks; NULL if none is left. */
static char *keep_metrics(const struct def_set *set, const char *list)
{
	char *out = NULL, *copy = xstrdup(list), *save = NULL;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (find_stanza(set, ST_METRIC, w) >= 0)
			xappendf(&out, "%s%s", out ? " " : "", w);
	free(copy);
	return out;
}

/* A view of the common file, without the columns the model cannot show;
 * left out when only pmctop's own software columns (util, cs_per_s),
 * which every model has, would be left. */
static void add_view(struct imp *im, const struct def_stanza *v)
{
	struct def_set *set = im->set;
	if (find_stanza(set, ST_VIEW, v->name) >= 0)
		return;
	int ncols = 0, nown = 0;
	for (int i = 0; i < v->nattrs; i++) {
		if (strcmp(v->attrs[i].key, "column"))
			continue;
		size_t l = strcspn(v->attrs[i].value, " \t");
		char *name = xstrndup(v->attrs[i].value, l);
		int s = find_stanza(set, ST_METRIC, name);
		if (s >= 0) {
			ncols++;
			/* The generic files are read from events/generic/. */
			nown += strstr(set->stanzas[s].file, "/generic/") != NULL;
		}
		free(name);
	}
	if (ncols == nown)
		return;
	struct def_stanza *st = imp_stanza(im, ST_VIEW, v->name, imp_file(im, v->file), v->line);
	for (int i = 0; i < v->nattrs; i++) {
		const struct def_attr *a = &v->attrs[i];
		if (!strcmp(a->key, "column")) {
			size_t l = strcspn(a->value, " \t");
			char *name = xstrndup(a->value, l);
			if (find_stanza(set, ST_METRIC, name) >= 0)
				imp_attr(st, a->key, a->value);
			free(name);
		} else if (!strcmp(a->key, "bar")) {
			char *kept = keep_metrics(set, a->value);
			if (kept)
				imp_attr(st, a->key, kept);
			free(kept);
		} else {
			imp_attr(st, a->key, a->value);
		}
		st->attrs[st->nattrs - 1].line = a->line;
	}
}

/* A parent an alias stanza gave that the model does not have (perf's
 * level-1 metric left out, on a hybrid part's files): the metric is then
 * no part of a tree. */
static void drop_lost_parents(struct def_set *set)
{
	for (int s = 0; s < set->nstanzas; s++) {
		struct def_stanza *st = &set->stanzas[s];
		for (int i = 0; st->kind == ST_METRIC && i < st->nattrs; i++) {
			struct def_attr *a = &st->attrs[i];
			if (strcmp(a->key, "parent") || !strcmp(a->value, "whole") ||
			    find_stanza(set, ST_METRIC, a->value) >= 0)
				continue;
			free(a->key);
			free(a->value);
			st->attrs[i] = st->attrs[--st->nattrs];
			i--;
		}
	}
}

/* The metrics of set that the model can make, then its views. */
static void add_set(struct imp *im, const struct def_set *set)
{
	for (int s = 0; s < set->nstanzas; s++) {
		const struct def_stanza *st = &set->stanzas[s];
		const char *f = attr(st, "formula");
		if (st->kind != ST_METRIC || !f)
			continue;
		if (find_stanza(im->set, ST_METRIC, st->name) >= 0 || !formula_makes(im, f))
			continue;
		copy_stanza(im, st);
	}
	for (int s = 0; s < set->nstanzas; s++)
		if (set->stanzas[s].kind == ST_VIEW)
			add_view(im, &set->stanzas[s]);
}

void imp_common_add(struct imp_common *c, struct imp *im)
{
	if (!c)
		return;
	drop_lost_parents(im->set);
	if (c->read) {
		add_set(im, &c->set);
		/* The series, of the events the model has now (its formulas may
		 * have made topdown events); before the generic files, which
		 * name events by their series. */
		for (int s = 0; s < c->set.nstanzas; s++) {
			const struct def_stanza *st = &c->set.stanzas[s];
			int e = st->kind == ST_EVENT ? find_stanza(im->set, ST_EVENT, st->name) : -1;
			for (int i = 0; e >= 0 && i < st->nattrs; i++)
				if (!strcmp(st->attrs[i].key, "portable"))
					imp_attr(&im->set->stanzas[e], "portable", st->attrs[i].value);
		}
	}
	for (int i = 0; i < c->nafter; i++)
		add_set(im, &c->after[i]);
}
