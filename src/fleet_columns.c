/* fleet_columns.c: the fleet's columns (events/fleet/columns.txt, whose
 * header describes the format), the model that carries them as metrics so
 * that snapshots, outputs and the dashboard read a fleet like a machine,
 * and the PromQL of each column. One definition gives both the query and
 * the direct figure (fleet.c), so the two modes cannot drift apart. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "model.h"
#include "util.h"

static void term_clear(struct fleet_term *t)
{
	free(t->series);
	free(t->label);
}

void fleet_columns_free(struct fleet_columns *fc)
{
	if (!fc)
		return;
	for (int i = 0; i < fc->n; i++) {
		struct fleet_col *c = &fc->cols[i];
		free(c->name);
		free(c->label);
		free(c->unit);
		free(c->fmt);
		free(c->desc);
		free(c->err);
		free(c->file);
		term_clear(&c->num);
		term_clear(&c->den);
	}
	free(fc->cols);
	free(fc);
}

static const char *const agg_names[] = {
	[FLEET_RATE] = "rate", [FLEET_CRATE] = "crate", [FLEET_SUM] = "sum", [FLEET_MIN] = "min", [FLEET_MAX] = "max",
	[FLEET_AVG] = "avg", [FLEET_AGE] = "age", [FLEET_CONST] = "const",
};

static bool is_name(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
			return false;
	return true;
}

/* "rate:NAME", "sum:NAME{key="value"}" or "const:1.5"; 0, or -1 with
 * *why (static text). */
static int term_parse(const char *s, struct fleet_term *t, const char **why)
{
	const char *colon = strchr(s, ':');
	if (!colon) {
		*why = "expected AGG:SERIES or const:NUMBER";
		return -1;
	}
	size_t an = (size_t)(colon - s);
	int agg = -1;
	for (size_t i = 0; i < ARRAY_SIZE(agg_names); i++)
		if (strlen(agg_names[i]) == an && !strncmp(agg_names[i], s, an))
			agg = (int)i;
	if (agg < 0) {
		*why = "unknown aggregation (rate, crate, sum, min, max, avg, age or const)";
		return -1;
	}
	t->agg = (enum fleet_agg)agg;
	const char *v = colon + 1;
	if (t->agg == FLEET_CONST) {
		if (!parse_double_c(v, &t->value) || !isfinite(t->value)) {
			*why = "const: expects a finite number";
			return -1;
		}
		return 0;
	}
	const char *brace = strchr(v, '{');
	size_t nn = brace ? (size_t)(brace - v) : strlen(v);
	if (!is_name(v, nn)) {
		*why = "expected a series name";
		return -1;
	}
	t->series = xstrndup(v, nn);
	if (brace) {
		/* One matcher, key="value", that the direct mode can check
		 * too: nothing PromQL alone would understand. */
		const char *end = strchr(brace, '}');
		const char *eq = strchr(brace, '=');
		if (!end || end[1] || !eq || eq > end || !is_name(brace + 1, (size_t)(eq - brace - 1)) ||
		    eq[1] != '"' || end[-1] != '"' || end - 1 <= eq + 1 || memchr(eq + 2, '"', (size_t)(end - eq - 3))) {
			*why = "expected one matcher {key=\"value\"} after the series";
			return -1;
		}
		t->label = xstrndup(brace + 1, (size_t)(end - brace - 1));
	}
	return 0;
}

/* The next word of a line: key=value, key="quoted value" or a flag; NULL
 * at the end (or with *why). Only a value right after a key's '=' may be
 * quoted (it may hold spaces: desc); quotes inside a series' matcher stay. */
static char *next_word(char **p, const char **why)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	char *w = s, *out = s;
	while (*s && *s != ' ' && *s != '\t') {
		if (*s == '"' && out > w && memchr(w, '=', (size_t)(out - w)) == out - 1) {
			s++;
			while (*s && *s != '"')
				*out++ = *s++;
			if (!*s) {
				*why = "a quoted value is not closed";
				return NULL;
			}
			s++;
			continue;
		}
		*out++ = *s++;
	}
	if (*s)
		s++;
	*out = 0;
	*p = s;
	return w;
}

static int bad(char **cause, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(char **cause, const char *path, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	set_cause(cause, "%s:%d: %s", path, line, msg);
	free(msg);
	return -1;
}

/* One "column" line into c; 0 or -1 with *cause. */
static int column_parse(char *rest, struct fleet_col *c, const char *path, int line, char **cause)
{
	const char *why = NULL;
	char *w = next_word(&rest, &why);
	if (!w || !is_name(w, strlen(w)) || strchr(w, '='))
		return bad(cause, path, line, "expected a column name after 'column'");
	c->name = xstrdup(w);
	c->scale = 1;
	c->den.agg = FLEET_CONST;
	c->den.value = 1;
	bool have_num = false;
	while ((w = next_word(&rest, &why))) {
		char *eq = strchr(w, '=');
		if (!eq) {
			if (strcmp(w, "hw") && strcmp(w, "history"))
				return bad(cause, path, line, "unknown flag '%s' (hw, history, or key=value)", w);
			if (!strcmp(w, "hw"))
				c->hardware = true;
			else
				c->history = true;
			continue;
		}
		*eq = 0;
		const char *k = w, *v = eq + 1;
		char **str = !strcmp(k, "label") ? &c->label : !strcmp(k, "unit") ? &c->unit
			   : !strcmp(k, "fmt") ? &c->fmt : !strcmp(k, "desc") ? &c->desc
			   : !strcmp(k, "err") ? &c->err : NULL;
		if (str) {
			if (*str)
				return bad(cause, path, line, "%s= given twice", k);
			if (!*v)
				return bad(cause, path, line, "%s= needs a value", k);
			if (!strcmp(k, "err") && !is_name(v, strlen(v)))
				return bad(cause, path, line, "err= expects a metric series name, not '%s'", v);
			*str = xstrdup(v);
		} else if (!strcmp(k, "num") || !strcmp(k, "den")) {
			struct fleet_term *t = !strcmp(k, "num") ? &c->num : &c->den;
			term_clear(t);
			memset(t, 0, sizeof(*t));
			if (term_parse(v, t, &why) < 0) {
				char *msg = xasprintf("%s=%s: %s", k, v, why);
				int rc = bad(cause, path, line, "%s", msg);
				free(msg);
				return rc;
			}
			have_num |= !strcmp(k, "num");
		} else if (!strcmp(k, "scale")) {
			if (!parse_double_c(v, &c->scale) || !isfinite(c->scale) || c->scale == 0)
				return bad(cause, path, line, "scale= expects a finite number other than 0, not '%s'", v);
		} else {
			return bad(cause, path, line, "unknown key '%s' (label, unit, fmt, num, den, scale, err, desc)",
				   k);
		}
	}
	if (why)
		return bad(cause, path, line, "%s", why);
	if (!have_num)
		return bad(cause, path, line, "column %s has no num=", c->name);
	if (c->num.agg == FLEET_AGE && c->den.agg != FLEET_CONST)
		return bad(cause, path, line, "%s", "an age is divided by nothing but a constant");
	if (c->den.agg == FLEET_CONST && c->den.value == 0)
		return bad(cause, path, line, "%s", "den=const:0 divides by zero");
	if (!c->label)
		c->label = xstrdup(c->name);
	if (!c->unit)
		c->unit = xstrdup("");
	if (!c->desc)
		c->desc = xstrdup(c->name);
	c->file = xstrdup(path);
	c->line = line;
	return 0;
}

struct fleet_columns *fleet_columns_parse(const char *text, const char *path, char **cause)
{
	struct fleet_columns *fc = xcalloc(1, sizeof(*fc));
	char *copy = xstrdup(text);
	int line = 0;
	const char *p = copy;
	while (p && *p) {
		line++;
		const char *nl = strchr(p, '\n');
		char *l = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
		p = nl ? nl + 1 : NULL;
		char *s = l;
		while (*s == ' ' || *s == '\t')
			s++;
		int rc = 0;
		if (*s && *s != '#') {
			if (strncmp(s, "column", 6) || (s[6] != ' ' && s[6] != '\t')) {
				rc = bad(cause, path, line, "expected 'column NAME key=value ...'");
			} else {
				fc->cols = xrealloc(fc->cols, sizeof(*fc->cols) * (size_t)(fc->n + 1));
				struct fleet_col *c = &fc->cols[fc->n++];
				memset(c, 0, sizeof(*c));
				rc = column_parse(s + 6, c, path, line, cause);
				for (int i = 0; rc == 0 && i < fc->n - 1; i++)
					if (!strcmp(fc->cols[i].name, c->name))
						rc = bad(cause, path, line, "column %s defined twice", c->name);
			}
		}
		free(l);
		if (rc < 0) {
			free(copy);
			fleet_columns_free(fc);
			return NULL;
		}
	}
	free(copy);
	if (fc->n == 0) {
		set_cause(cause, "%s: no column defined", path);
		fleet_columns_free(fc);
		return NULL;
	}
	return fc;
}

struct fleet_columns *fleet_columns_load(const char *path, char **cause)
{
	char *text = read_text_file(path);
	if (!text) {
		set_cause(cause, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	struct fleet_columns *fc = fleet_columns_parse(text, path, cause);
	free(text);
	return fc;
}

struct model *fleet_model_new(const struct fleet_columns *fc)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->name = xstrdup("fleet");
	m->desc = xstrdup("a fleet of hosts read from Prometheus or their exporters");
	m->dir = xstrdup("fleet");
	m->nmetrics = fc->n;
	m->metrics = xcalloc((size_t)fc->n, sizeof(*m->metrics));
	m->nviews = 1;
	m->views = xcalloc(1, sizeof(*m->views));
	struct view_def *v = &m->views[0];
	v->name = xstrdup("fleet");
	v->title = xstrdup("Fleet");
	v->key = 1;
	v->ncols = fc->n;
	v->cols = xcalloc((size_t)fc->n, sizeof(*v->cols));
	v->file = xstrdup(fc->cols[0].file);
	for (int i = 0; i < fc->n; i++) {
		const struct fleet_col *c = &fc->cols[i];
		struct metric_def *md = &m->metrics[i];
		md->name = xstrdup(c->name);
		md->label = xstrdup(c->label);
		md->unit = xstrdup(c->unit);
		md->desc = xstrdup(c->desc);
		md->scope = SCOPE_THREAD;   /* a host is a row of the narrowest scope */
		/* "history": a drilled host's sparklines show it (ui/fleet_drill.c). */
		md->ngroups = c->history ? 2 : 1;
		md->groups = xcalloc(2, sizeof(char *));
		md->groups[0] = xstrdup("fleet");
		if (c->history)
			md->groups[1] = xstrdup("history");
		md->formula = fleet_col_promql(c, "", 60);
		md->parent = -1;
		md->split = -1;
		md->lo = md->hi = NAN;
		md->file = xstrdup(c->file);
		md->line = c->line;
		v->cols[i].metric = i;
		v->cols[i].fmt = c->fmt ? xstrdup(c->fmt) : NULL;
		v->cols[i].warn = v->cols[i].crit = NAN;
	}
	return m;
}

/* The selector with the term's matcher: `{job="pmctop",metric="x"}`, or
 * "" for neither. */
static char *selector(const struct fleet_term *t, const char *sel)
{
	bool a = sel && *sel, b = t->label != NULL;
	if (!a && !b)
		return xstrdup("");
	return xasprintf("{%s%s%s}", a ? sel : "", a && b ? "," : "", b ? t->label : "");
}

/* A term or a column, by instance (by: "by (instance) ") or over the
 * whole fleet (by: ""). */
static char *term_q(const struct fleet_term *t, const char *sel, double window_s, const char *by)
{
	if (t->agg == FLEET_CONST)
		return xasprintf("%.17g", t->value);
	char *s = selector(t, sel);
	char *q = NULL;
	switch (t->agg) {
	case FLEET_RATE:
		/* Milliseconds: a window such as 2.5 s stays exact. */
		q = xasprintf("sum %s(rate(%s%s[%.0fms]))", by, t->series, s, window_s * 1000);
		break;
	case FLEET_CRATE: {
		/* rate() extrapolates a series younger than the window only
		 * half a scrape interval back, so a rate read low by its
		 * share of the window. The exporter's interval timestamp has
		 * the same samples, so its rate is low alike (and 1 where
		 * the window is full): the quotient is the counter's rise
		 * over the exporter's own time between the samples, as the
		 * direct mode reads it. Per host, then summed: a host whose
		 * clock stood still (a stuck sampler) drops out. */
		char *cs = sel && *sel ? xasprintf("{%s}", sel) : xstrdup("");
		/* Grouped finer than by instance (a drilled host's rows), each
		 * row takes its instance's clock: group_left. */
		bool finer = *by && strcmp(by, "by (instance) ");
		char *ph = xasprintf("sum %s(rate(%s%s[%.0fms])) / on (instance) %s"
				     "(max by (instance) (rate(pmctop_last_interval_timestamp_seconds%s[%.0fms])) > 0)",
				     finer ? by : "by (instance) ", t->series, s, window_s * 1000,
				     finer ? "group_left() " : "", cs, window_s * 1000);
		q = *by ? ph : xasprintf("sum(%s)", ph);
		if (!*by)
			free(ph);
		free(cs);
		break;
	}
	case FLEET_AGE:
		q = xasprintf("time() - max %s(%s%s)", by, t->series, s);
		break;
	default:
		q = xasprintf("%s %s(%s%s)", agg_names[t->agg], by, t->series, s);
		break;
	}
	free(s);
	return q;
}

static char *col_q(const struct fleet_col *c, const char *sel, double window_s, const char *by)
{
	char *n = term_q(&c->num, sel, window_s, by);
	if (c->den.agg == FLEET_CONST && c->den.value == 1)
		return n;
	char *d = term_q(&c->den, sel, window_s, by);
	char *q = xasprintf("(%s) / (%s)", n, d);
	free(n);
	free(d);
	return q;
}

char *fleet_term_promql_by(const struct fleet_term *t, const char *sel, double window_s, const char *by)
{
	return term_q(t, sel, window_s, by);
}

char *fleet_term_promql(const struct fleet_term *t, const char *sel, double window_s)
{
	return term_q(t, sel, window_s, "by (instance) ");
}

char *fleet_col_promql(const struct fleet_col *c, const char *sel, double window_s)
{
	return col_q(c, sel, window_s, "by (instance) ");
}

char *fleet_col_promql_total(const struct fleet_col *c, const char *sel, double window_s)
{
	/* The whole fleet's figure has no labels; each host's numerator and
	 * denominator are told apart by a label of their own (pmctop_term),
	 * so that `or` keeps them all: one query still answers the column.
	 * The host's figure is their quotient (what `by (instance) ... /
	 * by (instance) ...` would give), and a group of hosts (by zone,
	 * rack, model: fleet_groups.c) sums them before dividing, as the
	 * fleet's figure does. A constant term is the same for every host:
	 * nothing to ask. */
	char *q = col_q(c, sel, window_s, "");
	char *all = xasprintf("(%s)", q);
	free(q);
	const struct fleet_term *t[2] = { &c->num, &c->den };
	const char *name[2] = { "num", "den" };
	for (int k = 0; k < 2; k++) {
		if (t[k]->agg == FLEET_CONST)
			continue;
		char *tq = term_q(t[k], sel, window_s, "by (instance) ");
		xappendf(&all, " or label_replace(%s, \"pmctop_term\", \"%s\", \"\", \"\")", tq, name[k]);
		free(tq);
	}
	return all;
}
