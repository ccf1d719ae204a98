/* evdef_build_metric.c: builds the metric stanzas (formula, unit, range,
 * parent and split) and the view stanzas (columns with their options, bar,
 * rows), checking every key and value and parsing formulas; their names are
 * resolved later by evdef_resolve.c. Split from evdef_build.c: what is
 * computed from the events and how it is shown. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "evdef.h"
#include "format.h"
#include "evdef_impl.h"
#include "evdef_build_impl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- metrics --------------------------------------------------------------- */

/* `range LO HI`: numbers, or max_ghz for the part's highest clock. */
static int parse_range(struct builder *b, const struct def_stanza *st, const struct def_attr *a,
		       struct metric_def *md)
{
	char lo[64], hi[64], extra[2];
	char *end = NULL;
	if (sscanf(a->value, "%63s %63s %1s", lo, hi, extra) != 2)
		goto bad;
	md->lo = strtod(lo, &end);
	if (*end || !isfinite(md->lo))
		goto bad;
	md->hi_ghz = !strcmp(hi, "max_ghz");
	md->hi = md->hi_ghz ? NAN : strtod(hi, &end);
	if (!md->hi_ghz && (*end || !isfinite(md->hi) || md->hi < md->lo))
		goto bad;
	return 0;
bad:
	return AT_VALUE(b, st, a, "expected 'range LO HI' (numbers, LO <= HI; HI may be max_ghz) but found '%s'",
			a->value);
}

int evdef_build_metric(struct builder *b, const struct def_stanza *st, struct metric_src *src)
{
	struct model *m = b->m;
	if (evdef_check_unique_name(b, st) < 0 || evdef_check_keys(b, st) < 0)
		return -1;
	const struct def_attr *f = evdef_attr_need(b, st, "formula");
	if (!f)
		return -1;
	m->metrics = model_room(m->metrics, m->nmetrics, &m->metrics_cap, sizeof(*m->metrics));
	struct metric_def *md = &m->metrics[m->nmetrics++];
	*md = (struct metric_def){ .name = evdef_keep(b, st->name), .formula = evdef_keep(b, f->value),
				   .file = evdef_keep(b, st->file), .line = st->line };
	evdef_index_add(b, st, NAME_METRIC, md->name, m->nmetrics - 1);
	const struct def_attr *a;
	md->label = evdef_keep(b, (a = evdef_attr_get(st, "label")) ? a->value : st->name);
	md->unit = (a = evdef_attr_get(st, "unit")) ? evdef_keep(b, a->value) : xstrdup("");
	md->desc = (a = evdef_attr_get(st, "desc")) ? evdef_keep(b, a->value) : xstrdup("");
	if ((a = evdef_attr_get(st, "note")))
		md->note = evdef_keep(b, a->value);
	if ((a = evdef_attr_get(st, "perf"))) {
		if (!evdef_is_name(a->value))
			return AT_VALUE(b, st, a, "expected the name of a Linux perf metric but found '%s'", a->value);
		md->perf = evdef_keep(b, a->value);
	}
	*src = (struct metric_src){ .st = st, .formula = f, .parent = evdef_attr_get(st, "parent"),
				    .split = evdef_attr_get(st, "split") };
	md->parent = -1;
	md->split = -1;
	bool ratio = !strcmp(md->unit, "ratio");
	md->lo = ratio ? 0 : NAN;
	md->hi = ratio ? 1 : NAN;
	if ((a = evdef_attr_get(st, "range")) && parse_range(b, st, a, md) < 0)
		return -1;
	if ((a = evdef_attr_get(st, "truth"))) {
		int col = 0;
		char *why = NULL;
		struct expr *x = expr_parse(a->value, &col, &why);
		if (!x) {
			/* The column goes in front; expr's message starts "col N: ". */
			const char *msg = why && strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
			int rc = evdef_at(b, st->file, a->line, a->value_col + col - 1, "truth: %s", msg ? msg : "bad formula");
			free(why);
			return rc;
		}
		expr_free(x);
		md->truth = evdef_keep(b, a->value);
	}
	if ((a = evdef_attr_get(st, "scope"))) {
		int s = scope_parse(a->value);
		if (s < 0)
			return AT_VALUE(b, st, a, "expected thread, core, ccx, socket or system but found '%s'", a->value);
		md->scope = (enum scope)s;
		src->scope_given = true;
	}
	if ((a = evdef_attr_get(st, "groups"))) {
		const char *q = a->value;
		char *w;
		while ((w = evdef_next_word(&q))) {
			if (!evdef_is_name(w)) {
				evdef_at(b, st->file, a->line, evdef_word_col(a, q, w), "expected a group name but found '%s'", w);
				free(w);
				return -1;
			}
			md->groups = xrealloc(md->groups, (size_t)(md->ngroups + 1) * sizeof(char *));
			md->groups[md->ngroups++] = w;
		}
	}
	char *cause = NULL;
	int col = 0;
	md->expr = expr_parse(f->value, &col, &cause);
	if (!md->expr) {
		evdef_formula_error(b, st, f, col, cause);
		free(cause);
		return -1;
	}
	return 0;
}

/* ---- views ------------------------------------------------------------------- */

static int view_build_body(struct builder *b, const struct def_stanza *st, struct view_def *v);

int evdef_build_view(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	int dup = model_find_view(m, st->name);
	if (dup >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->views[dup].file, m->views[dup].line);
	if (evdef_check_keys(b, st) < 0)
		return -1;
	if (!evdef_attr_need(b, st, "column"))
		return -1;
	/* Built aside and added only whole: a user's view file (evdef_user.c)
	 * skips a bad stanza and goes on with the model as it was. */
	const struct def_attr *a = evdef_attr_get(st, "title");
	struct view_def view = { .name = xstrdup(st->name), .title = xstrdup(a ? a->value : st->name),
				 .file = xstrdup(st->file), .line = st->line };
	struct view_def *v = &view;
	if (view_build_body(b, st, v) < 0) {
		view_def_clear(v);
		return -1;
	}
	m->views = evdef_grow(m->views, m->nviews, sizeof(*m->views));
	m->views[m->nviews++] = view;
	model_index_add(m, NAME_VIEW, view.name, m->nviews - 1);
	return 0;
}

/* A view's list of metric names (bar, pin) into *list. */
static int view_metric_list(struct builder *b, const struct def_stanza *st, const char *key, int **list, int *n)
{
	const struct def_attr *a = evdef_attr_get(st, key);
	if (!a)
		return 0;
	const char *q = a->value;
	char *w;
	while ((w = evdef_next_word(&q))) {
		int k = model_find_metric(b->m, w);
		if (k < 0) {
			evdef_at(b, st->file, a->line, evdef_word_col(a, q, w), "unknown metric '%s' in %s", w, key);
			free(w);
			return -1;
		}
		free(w);
		*list = xrealloc(*list, (size_t)(*n + 1) * sizeof(int));
		(*list)[(*n)++] = k;
	}
	return 0;
}

static int view_build_body(struct builder *b, const struct def_stanza *st, struct view_def *v)
{
	struct model *m = b->m;
	const struct def_attr *a;
	if (evdef_get_int(b, st, evdef_attr_get(st, "key"), 1, 9, 0, &v->key) < 0)
		return -1;
	for (int i = 0; v->key && i < m->nviews; i++)
		if (m->views[i].key == v->key)
			return AT_VALUE(b, st, evdef_attr_get(st, "key"), "key %d is already used by view '%s'", v->key,
					m->views[i].name);
	if ((a = evdef_attr_get(st, "rows"))) {
		if (!strcmp(a->value, "tasks"))
			v->tasks = true;
		else if (strcmp(a->value, "cpus"))
			return AT_VALUE(b, st, a, "expected rows cpus or rows tasks but found '%s'", a->value);
	}
	if (view_metric_list(b, st, "bar", &v->bar, &v->nbar) < 0 ||
	    view_metric_list(b, st, "pin", &v->pin, &v->npin) < 0)
		return -1;
	for (int i = 0; i < st->nattrs; i++) {
		a = &st->attrs[i];
		if (strcmp(a->key, "column"))
			continue;
		const char *q = a->value;
		char *w = evdef_next_word(&q);
		int k = model_find_metric(m, w);
		if (k < 0) {
			evdef_at(b, st->file, a->line, a->value_col, "unknown metric '%s' in column", w);
			free(w);
			return -1;
		}
		free(w);
		char *why = NULL;
		if (v->tasks && !metric_per_task(m, k, &why)) {
			evdef_at(b, st->file, a->line, a->value_col, "in a view of rows tasks: %s", why);
			free(why);
			return -1;
		}
		v->cols = xrealloc(v->cols, (size_t)(v->ncols + 1) * sizeof(*v->cols));
		struct view_col *c = &v->cols[v->ncols++];
		*c = (struct view_col){ .metric = k, .warn = NAN, .crit = NAN };
		while ((w = evdef_next_word(&q))) {
			int col = evdef_word_col(a, q, w);
			char *eq = strchr(w, '=');
			int rc = 0;
			if (eq)
				*eq = 0;
			const char *val = eq ? eq + 1 : NULL;
			int vcol = col + (eq ? (int)(eq - w) + 1 : 0);
			if (!strcmp(w, "low_is_bad") && !val) {
				c->low_is_bad = true;
			} else if (!strcmp(w, "fmt") && val) {
				if (strcmp(val, "pct") && strcmp(val, "si") && !format_is_double_fmt(val))
					rc = evdef_at(b, st->file, a->line, vcol,
						"expected pct, si or a printf format for one number such as %%.2f but found '%s'", val);
				else {
					free(c->fmt);
					c->fmt = xstrdup(val);
				}
			} else if (!strcmp(w, "width") && val) {
				char *end;
				long n = strtol(val, &end, 10);
				if (end == val || *end || n < 1 || n > 64)
					rc = evdef_at(b, st->file, a->line, vcol, "bad number '%s': expected a width from 1 to 64", val);
				c->width = (int)n;
			} else if ((!strcmp(w, "warn") || !strcmp(w, "crit")) && val) {
				double d;
				if (!parse_double_c(val, &d))
					rc = evdef_at(b, st->file, a->line, vcol, "bad number '%s': expected a threshold", val);
				else if (w[0] == 'w')
					c->warn = d;
				else
					c->crit = d;
			} else {
				if (eq)
					*eq = '=';
				rc = evdef_at(b, st->file, a->line, col,
					"unknown column option '%s' (expected fmt=, width=, warn=, crit= or low_is_bad)", w);
			}
			free(w);
			if (rc < 0)
				return -1;
		}
		if (!c->fmt)
			c->fmt = xstrdup(!strcmp(m->metrics[k].unit, "ratio") ? "pct" : "%.2f");
	}
	return 0;
}
