/* evdef_user.c: the user's views (evdef_user.h). They are read by the
 * loader's own parser and view builder, so a user's file follows exactly
 * the rules of events/; each view is built aside and added only whole
 * (evdef_build_view), which lets a bad stanza be skipped while the rest
 * of the file, and the model, stay as they were. */
#include "config.h"
#include "evdef_user.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evdef_impl.h"
#include "format.h"
#include "name_index.h"
#include "settings.h"
#include "util.h"

char *user_views_path(const struct model *m)
{
	char *name = xasprintf("views/%s.def", m->name);
	char *path = config_file_path(name);
	free(name);
	return path;
}

/* Appends one line to *w, sanitised: it may quote the file's words. */
static void add_warning(struct warn_list *w, const char *msg)
{
	char *clean = text_sanitize(msg);
	warn_list_add(w, clean);
	free(clean);
}

int model_add_user_views(struct model *m, const char *path, char **warnings)
{
	struct stat sb;
	if (!path || (stat(path, &sb) < 0 && errno == ENOENT))
		return 0;
	struct def_set set;
	char *cause = NULL;
	struct warn_list wl = { warnings, path, 0 };
	if (defset_read_user_file(path, &set, &cause) < 0) {
		char *msg = xasprintf("%s (no user views loaded)", cause ? cause : path);
		add_warning(&wl, msg);
		free(msg);
		free(cause);
		return 0;
	}
	int added = 0;
	for (int i = 0; i < set.nstanzas; i++) {
		const struct def_stanza *st = &set.stanzas[i];
		if (st->kind != ST_VIEW) {
			char *msg = def_where(st->file, st->line, 1,
					      "expected a view stanza (events and metrics belong in the model's directory); skipped");
			add_warning(&wl, msg);
			free(msg);
			continue;
		}
		struct builder b = { .m = m, .set = &set };
		if (evdef_build_view(&b, st) < 0) {
			char *msg = xasprintf("%s; view '%s' skipped", b.err ? b.err : "?", st->name);
			add_warning(&wl, msg);
			free(msg);
			free(b.err);
			continue;
		}
		m->views[m->nviews - 1].user = true;
		added++;
	}
	defset_free(&set);
	warn_list_end(&wl);
	return added;
}

/* The view index holds no removals: built again after a rename or a drop. */
static void reindex_views(struct model *m)
{
	name_index_free(m->index[NAME_VIEW]);
	m->index[NAME_VIEW] = NULL;
	for (int i = 0; i < m->nviews; i++)
		model_index_add(m, NAME_VIEW, m->views[i].name, i);
}

static bool good_view_name(const char *s)
{
	if (!s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (const char *p = s; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return strlen(s) <= 64;
}

/* A title is written between quotes on one line: no quote, no control. */
static bool good_title(const char *s)
{
	if (!s || !*s || strchr(s, '"') || strlen(s) > 120)
		return false;
	char *clean = text_sanitize(s);
	bool same = !strcmp(clean, s);
	free(clean);
	return same;
}

const char *view_col_fmt(const struct model *m, const struct view_col *c)
{
	if (c->fmt)
		return c->fmt;
	return !strcmp(m->metrics[c->metric].unit, "ratio") ? "pct" : "%.2f";
}

int model_put_view(struct model *m, int replace, const struct view_def *v, char **cause)
{
	if (replace >= 0 && (replace >= m->nviews || !m->views[replace].user))
		return set_cause(cause, "only your own views can be changed");
	if (!good_view_name(v->name))
		return set_cause(cause, "expected a view name of letters, digits and '_', starting with a letter");
	if (v->title && *v->title && !good_title(v->title))
		return set_cause(cause, "expected a title of printable text without '\"'");
	if (v->ncols < 1)
		return set_cause(cause, "a view needs at least one column");
	if (v->key < 0 || v->key > 9)
		return set_cause(cause, "expected a key from 1 to 9, or none");
	for (int i = 0; i < m->nviews; i++) {
		if (i == replace)
			continue;
		if (!strcmp(m->views[i].name, v->name))
			return set_cause(cause, "view '%s' exists already%s", v->name,
					 m->views[i].user ? "" : " in the model");
		if (v->key && m->views[i].key == v->key)
			return set_cause(cause, "key %d is already used by view '%s'", v->key, m->views[i].name);
	}
	for (int i = 0; i < v->ncols; i++) {
		if (v->cols[i].metric < 0 || v->cols[i].metric >= m->nmetrics)
			return set_cause(cause, "column %d names no metric of the model", i + 1);
		char *why = NULL;
		if (v->tasks && !metric_per_task(m, v->cols[i].metric, &why)) {
			int rc = set_cause(cause, "column %d: %s", i + 1, why);
			free(why);
			return rc;
		}
		/* The format reaches printf: only what the loader would accept. */
		const char *f = v->cols[i].fmt;
		if (f && strcmp(f, "pct") && strcmp(f, "si") && !format_is_double_fmt(f))
			return set_cause(cause, "column %d: expected pct, si or a printf format for one number", i + 1);
	}
	for (int i = 0; i < v->nbar; i++)
		if (v->bar[i] < 0 || v->bar[i] >= m->nmetrics)
			return set_cause(cause, "the bar names no metric of the model");
	for (int i = 0; i < v->npin; i++)
		if (v->pin[i] < 0 || v->pin[i] >= m->nmetrics)
			return set_cause(cause, "pin names no metric of the model");

	struct view_def copy = { .name = xstrdup(v->name), .title = xstrdup(v->title && *v->title ? v->title : v->name),
				 .key = v->key, .ncols = v->ncols, .nbar = v->nbar, .user = true,
				 .tasks = v->tasks };
	copy.cols = xcalloc((size_t)v->ncols, sizeof(*copy.cols));
	for (int i = 0; i < v->ncols; i++) {
		copy.cols[i] = v->cols[i];
		copy.cols[i].fmt = xstrdup(view_col_fmt(m, &v->cols[i]));
	}
	if (v->nbar > 0) {
		copy.bar = xcalloc((size_t)v->nbar, sizeof(int));
		memcpy(copy.bar, v->bar, sizeof(int) * (size_t)v->nbar);
	}
	if (v->npin > 0) {
		copy.npin = v->npin;
		copy.pin = xcalloc((size_t)v->npin, sizeof(int));
		memcpy(copy.pin, v->pin, sizeof(int) * (size_t)v->npin);
	}
	char *path = user_views_path(m);
	copy.file = path ? path : xstrdup("(views editor)");
	int i = replace;
	if (i >= 0) {
		view_def_clear(&m->views[i]);
		m->views[i] = copy;
		reindex_views(m);
	} else {
		m->views = evdef_grow(m->views, m->nviews, sizeof(*m->views));
		i = m->nviews++;
		m->views[i] = copy;
		model_index_add(m, NAME_VIEW, copy.name, i);
	}
	return i;
}

int model_drop_view(struct model *m, int i)
{
	if (i < 0 || i >= m->nviews || !m->views[i].user)
		return -1;
	view_def_clear(&m->views[i]);
	memmove(&m->views[i], &m->views[i + 1], sizeof(*m->views) * (size_t)(m->nviews - i - 1));
	m->nviews--;
	reindex_views(m);
	return 0;
}

/* The shortest of %.15g and %.17g that reads back to the same double. */
static void put_number(char *buf, size_t len, double d)
{
	snprintf(buf, len, "%.15g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, len, "%.17g", d);
}

char *model_user_views_text(const struct model *m)
{
	char *s = NULL;
	xappendf(&s, "# pmctop: your views for model %s, written by the view editor (F2).\n"
		"# The syntax is that of the view stanzas in events/ (docs/definitions.md);\n"
		"# docs/settings.md says how pmctop reads this file.\n", m->name);
	for (int i = 0; i < m->nviews; i++) {
		const struct view_def *v = &m->views[i];
		if (!v->user)
			continue;
		/* Between quotes, so that a '#' stays text; a title read with
		 * quotes inside it (balanced, or the file would not have
		 * parsed) is written as it was read, which reads back the same. */
		if (strchr(v->title, '"'))
			xappendf(&s, "\nview %s\n\ttitle %s\n", v->name, v->title);
		else
			xappendf(&s, "\nview %s\n\ttitle \"%s\"\n", v->name, v->title);
		if (v->key)
			xappendf(&s, "\tkey %d\n", v->key);
		if (v->tasks)
			xappendf(&s, "\trows tasks\n");
		if (v->nbar > 0) {
			xappendf(&s, "\tbar");
			for (int j = 0; j < v->nbar; j++)
				xappendf(&s, " %s", m->metrics[v->bar[j]].name);
			xappendf(&s, "\n");
		}
		if (v->npin > 0) {
			xappendf(&s, "\tpin");
			for (int j = 0; j < v->npin; j++)
				xappendf(&s, " %s", m->metrics[v->pin[j]].name);
			xappendf(&s, "\n");
		}
		for (int j = 0; j < v->ncols; j++) {
			const struct view_col *c = &v->cols[j];
			char num[40];
			xappendf(&s, "\tcolumn %s", m->metrics[c->metric].name);
			/* A format with a space, quote or '#' would not read back as one word. */
			if (c->fmt && !strpbrk(c->fmt, " \t\"#"))
				xappendf(&s, " fmt=%s", c->fmt);
			if (c->width > 0)
				xappendf(&s, " width=%d", c->width);
			if (isfinite(c->warn)) {
				put_number(num, sizeof(num), c->warn);
				xappendf(&s, " warn=%s", num);
			}
			if (isfinite(c->crit)) {
				put_number(num, sizeof(num), c->crit);
				xappendf(&s, " crit=%s", num);
			}
			if (c->low_is_bad)
				xappendf(&s, " low_is_bad");
			xappendf(&s, "\n");
		}
	}
	return s;
}
