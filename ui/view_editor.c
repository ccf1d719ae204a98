/* view_editor.c: the view editor, opened from the setup screen (F2). It
 * edits a copy: of the current view, to make a new view of the user's
 * own, or of the user's view on screen, to change it. Nothing changes
 * until s saves: the view then joins the model's (evdef_user.h) and the
 * user's views file is written again, in the syntax of events/, so the
 * view is there at the next start. The model's own views never change. */
#include "config.h"
#include "ui_impl.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "evdef_user.h"
#include "settings.h"
#include "util.h"

struct editor {
	struct view_def v;      /* the copy being edited; owns its strings */
	int replace;            /* the user's view being changed, or -1: a new one */
	int sel, top;
	bool dirty;
	bool closed;            /* the view was deleted: nothing left to edit */
	char status[256];
};

static void editor_free(struct editor *e)
{
	view_def_clear(&e->v);
}

/* "my_NAME", or "my_NAME_2"... so that it names no view yet. */
static char *free_name(const struct model *m, const char *base)
{
	char *name = xasprintf("my_%.40s", base);
	for (int n = 2; model_find_view(m, name) >= 0; n++) {
		free(name);
		name = xasprintf("my_%.40s_%d", base, n);
	}
	return name;
}

static void editor_init(struct editor *e, struct ui *u)
{
	memset(e, 0, sizeof(*e));
	const struct model *m = u->cfg->model;
	const struct view_def *src = u->nav.view < u->nviews ? &u->views[u->nav.view] : NULL;
	int i = src ? model_find_view(m, src->name) : -1;
	e->replace = i >= 0 && m->views[i].user ? i : -1;
	if (e->replace >= 0) {
		e->v.name = xstrdup(src->name);
		e->v.title = xstrdup(src->title);
		e->v.key = src->key;
		snprintf(e->status, sizeof(e->status), "your view '%s': s saves the changes, D deletes it", src->name);
	} else {
		e->v.name = free_name(m, src ? src->name : "view");
		e->v.title = xstrdup(e->v.name);
		snprintf(e->status, sizeof(e->status), "a new view with the columns of '%s': s saves it",
			 src ? src->name : "-");
	}
	if (src && src->ncols > 0) {
		e->v.ncols = src->ncols;
		e->v.cols = xcalloc((size_t)src->ncols, sizeof(*e->v.cols));
		for (int j = 0; j < src->ncols; j++) {
			e->v.cols[j] = src->cols[j];
			e->v.cols[j].fmt = src->cols[j].fmt ? xstrdup(src->cols[j].fmt) : NULL;
		}
	}
	if (src && src->nbar > 0) {
		e->v.nbar = src->nbar;
		e->v.bar = xcalloc((size_t)src->nbar, sizeof(int));
		memcpy(e->v.bar, src->bar, sizeof(int) * (size_t)src->nbar);
	}
}

static void threshold_text(char *buf, size_t len, double d)
{
	if (isnan(d))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%g", d);
}

static void draw_editor(struct ui *u, struct editor *e)
{
	const struct model *m = u->cfg->model;
	char line[512];
	erase();
	snprintf(line, sizeof(line), "pmctop view editor: %s%s", e->replace >= 0 ? "your view " : "new view ", e->v.name);
	draw_put(0, 0, COLS, A_BOLD, line);
	char key[8];
	snprintf(key, sizeof(key), e->v.key ? "%d" : "none", e->v.key);
	snprintf(line, sizeof(line), " Name %s   Title \"%s\"   Key %s%s", e->v.name, e->v.title, key,
		 e->v.nbar ? "   (keeps the bar of its source)" : "");
	draw_put(1, 0, COLS, 0, line);
	/* The scope says where a column shows: a CCX-wide metric has no
	 * figure in CPU rows, only in CCX and socket rows (t) and panels. */
	snprintf(line, sizeof(line), "   %-3s %-26s %-12s %-8s %-6s %-7s %-7s %-7s %s", "#", "Metric", "Heading", "Unit",
		 "Scope", "Format", "Warn", "Crit", "Colour when");
	draw_put(2, 0, COLS, A_UNDERLINE, line);
	int h = LINES - 5;
	if (h < 1)
		h = 1;
	if (e->sel >= e->v.ncols)
		e->sel = e->v.ncols - 1;
	if (e->sel < 0)
		e->sel = 0;
	if (e->top > e->sel)
		e->top = e->sel;
	if (e->sel >= e->top + h)
		e->top = e->sel - h + 1;
	for (int i = 0; i < h && e->top + i < e->v.ncols; i++) {
		const struct view_col *c = &e->v.cols[e->top + i];
		const struct metric_def *md = &m->metrics[c->metric];
		char w[24], cr[24];
		threshold_text(w, sizeof(w), c->warn);
		threshold_text(cr, sizeof(cr), c->crit);
		snprintf(line, sizeof(line), "   %-3d %-26s %-12s %-8s %-6s %-7s %-7s %-7s %s", e->top + i + 1, md->name,
			 md->label, md->unit, scope_name(md->scope), view_col_fmt(m, c), w, cr,
			 isnan(c->warn) && isnan(c->crit) ? "-" : c->low_is_bad ? "below" : "above");
		draw_put(3 + i, 0, COLS, e->top + i == e->sel ? A_REVERSE : 0, line);
	}
	if (e->v.ncols == 0)
		draw_put(3, 0, COLS, 0, "   (no columns: a adds one)");
	draw_put(LINES - 2, 0, COLS, 0, COLS >= 112 ?
		 "a add  d remove  [ ] move  n name  t title  k key  w c thresholds  l below/above  s save  D delete  Esc close" :
		 "a add d del [ ] move n name t title k key w c l thresholds s save D delete Esc");
	draw_put(LINES - 1, 0, COLS, A_BOLD, e->status);
	refresh();
}

/* The next digit key after the current one that no other view uses, or 0. */
static int next_key(const struct model *m, const struct editor *e)
{
	for (int k = e->v.key + 1; k <= 9; k++) {
		bool used = false;
		for (int i = 0; i < m->nviews; i++)
			used |= i != e->replace && m->views[i].key == k;
		if (!used)
			return k;
	}
	return 0;
}

static void move_col(struct editor *e, int dir)
{
	int j = e->sel + dir;
	if (e->v.ncols < 2 || j < 0 || j >= e->v.ncols)
		return;
	struct view_col t = e->v.cols[e->sel];
	e->v.cols[e->sel] = e->v.cols[j];
	e->v.cols[j] = t;
	e->sel = j;
	e->dirty = true;
}

static void add_col(struct ui *u, struct editor *e)
{
	int k = dialog_pick_metric(u);
	if (k < 0)
		return;
	for (int i = 0; i < e->v.ncols; i++)
		if (e->v.cols[i].metric == k) {
			e->sel = i;
			snprintf(e->status, sizeof(e->status), "'%s' is a column already", u->m->metrics[k].name);
			return;
		}
	int at = e->v.ncols > 0 ? e->sel + 1 : 0;
	e->v.cols = xrealloc(e->v.cols, sizeof(*e->v.cols) * (size_t)(e->v.ncols + 1));
	memmove(&e->v.cols[at + 1], &e->v.cols[at], sizeof(*e->v.cols) * (size_t)(e->v.ncols - at));
	e->v.cols[at] = (struct view_col){ .metric = k, .warn = NAN, .crit = NAN };
	e->v.ncols++;
	e->sel = at;
	e->dirty = true;
}

static void remove_col(struct editor *e)
{
	if (e->v.ncols < 1)
		return;
	free(e->v.cols[e->sel].fmt);
	memmove(&e->v.cols[e->sel], &e->v.cols[e->sel + 1], sizeof(*e->v.cols) * (size_t)(e->v.ncols - e->sel - 1));
	e->v.ncols--;
	e->dirty = true;
}

/* Asks for a new string; false if cancelled. */
static bool ask_text(struct ui *u, const char *label, char **field)
{
	char *s = dialog_prompt(u, label, *field);
	if (!s)
		return false;
	free(*field);
	*field = s;
	return true;
}

/* A threshold: a number, or an empty answer for none. */
static void ask_threshold(struct ui *u, struct editor *e, bool crit)
{
	if (e->v.ncols < 1)
		return;
	struct view_col *c = &e->v.cols[e->sel];
	double *t = crit ? &c->crit : &c->warn;
	char init[32] = "";
	if (!isnan(*t))
		snprintf(init, sizeof(init), "%g", *t);
	char *s = dialog_prompt(u, crit ? "Critical at (empty: none): " : "Warning at (empty: none): ", init);
	if (!s)
		return;
	char *end;
	double d = strtod(s, &end);
	if (!*s)
		*t = NAN;
	else if (end == s || *end || !isfinite(d))
		snprintf(e->status, sizeof(e->status), "not a number: kept as it was");
	else
		*t = d;
	e->dirty = true;
	free(s);
}

/* Writes every user view of the model to the user's file. */
static void write_views(struct ui *u, struct editor *e, const char *done)
{
	if (!u->cfg->views_path) {
		snprintf(e->status, sizeof(e->status), "%s for this run only: nothing is written with --no-config or without HOME", done);
		return;
	}
	char *text = model_user_views_text(u->cfg->model);
	char *cause = NULL;
	if (config_write_atomic(u->cfg->views_path, text, &cause) == 0)
		snprintf(e->status, sizeof(e->status), "%s: written to %s", done, u->cfg->views_path);
	else
		snprintf(e->status, sizeof(e->status), "%s for this run, but %s", done, cause ? cause : "not written");
	free(cause);
	free(text);
}

static int save(struct ui *u, struct editor *e)
{
	char *cause = NULL;
	int i = model_put_view(u->cfg->model, e->replace, &e->v, &cause);
	if (i < 0) {
		snprintf(e->status, sizeof(e->status), "not saved: %s", cause ? cause : "?");
		free(cause);
		return 0;
	}
	e->replace = i;
	e->dirty = false;
	ui_views_reload(u, e->v.name);
	char done[160];
	snprintf(done, sizeof(done), "view '%s' saved", e->v.name);
	write_views(u, e, done);
	return KA_REQUEST;
}

static int delete_view(struct ui *u, struct editor *e)
{
	if (e->replace < 0) {
		snprintf(e->status, sizeof(e->status), "only a view of your own can be deleted (this one is not saved)");
		return 0;
	}
	char done[160];
	snprintf(done, sizeof(done), "view '%s' deleted", e->v.name);
	model_drop_view(u->cfg->model, e->replace);
	e->replace = -1;
	e->closed = true;
	ui_views_reload(u, NULL);
	write_views(u, e, done);
	ui_set_message(u, e->status);
	return KA_REQUEST;
}

int view_editor(struct ui *u)
{
	struct editor e;
	int flags = 0;
	bool warned = false;
	editor_init(&e, u);
	while (!e.closed) {
		draw_editor(u, &e);
		int k = ui_dialog_getkey(u);
		if (ui_stopping())
			break;
		if (k < 0 || k == UK_RESIZE || k == UK_MOUSE)
			continue;
		if (k == UK_ESC || k == 'q' || k == UK_F10) {
			if (e.dirty && !warned) {
				snprintf(e.status, sizeof(e.status), "not saved: Esc again leaves without saving, s saves");
				warned = true;
				continue;
			}
			break;
		}
		warned = false;
		switch (k) {
		case UK_UP: e.sel--; break;
		case UK_DOWN: e.sel++; break;
		case UK_PGUP: e.sel -= LINES - 5; break;
		case UK_PGDN: e.sel += LINES - 5; break;
		case UK_HOME: e.sel = 0; break;
		case UK_END: e.sel = e.v.ncols - 1; break;
		case 'a': case UK_ENTER: add_col(u, &e); break;
		case 'd': case UK_DELETE: remove_col(&e); break;
		case '[': move_col(&e, -1); break;
		case ']': move_col(&e, 1); break;
		case 'n': e.dirty |= ask_text(u, "View name: ", &e.v.name); break;
		case 't': e.dirty |= ask_text(u, "Title: ", &e.v.title); break;
		case 'k': e.v.key = next_key(u->cfg->model, &e); e.dirty = true; break;
		case 'w': ask_threshold(u, &e, false); break;
		case 'c': ask_threshold(u, &e, true); break;
		case 'l':
			if (e.v.ncols > 0) {
				e.v.cols[e.sel].low_is_bad = !e.v.cols[e.sel].low_is_bad;
				e.dirty = true;
			}
			break;
		case 's': flags |= save(u, &e); break;
		case 'D': flags |= delete_view(u, &e); break;
		default: break;
		}
	}
	editor_free(&e);
	return flags;
}
