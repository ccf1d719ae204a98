/* setup.c: the setup screen (F2), as htop's: one line per setting, Up and
 * Down choose, Left and Right (or Space) change it at once, Enter on the
 * last line (or 's' anywhere) saves them all to pmctoprc for the next
 * start, Esc or F2 closes; Enter on "Edit views" opens the view editor
 * (view_editor.c). What it writes is in docs/settings.md. */
#include "config.h"
#include "ui_impl.h"
#include "panel.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"
#include "util.h"

enum { SET_DELAY, SET_VIEW, SET_COLORS, SET_ROWS, SET_CCX, SET_ERRORS, SET_SORT, SET_EDIT, SET_SAVE, SET_COUNT };

static const double intervals[] = { 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 30, 60 };

static const char *rows_word(int r)
{
	static const char *const w[] = { "per CPU", "per core", "per CCX", "per socket" };
	return r >= 0 && r < 4 ? w[r] : "?";
}

/* The sort column as the settings name it: a metric or event by name. */
static const char *sort_name(const struct ui *u)
{
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	if (c->kind == COL_METRIC)
		return u->m->metrics[c->idx].name;
	if (c->kind == COL_EVENT)
		return u->m->events[c->idx].name;
	return "cpu";
}

/* What is on screen now, as settings. */
static void current(const struct ui *u, struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->has_interval = !u->src->ops->interval_is_pace;
	s->interval_s = u->nav.interval_s;
	s->has_view = u->nav.view < u->nviews;
	s->view = xstrdup(s->has_view ? u->views[u->nav.view].name : "");
	s->has_colors = true;
	s->colors = u->scheme;
	s->has_rows = true;
	s->rows = u->nav.rows;
	s->has_ccx = true;
	s->show_ccx = u->nav.show_ccx;
	s->has_errors = true;
	s->show_errors = u->nav.show_err;
	s->has_sort = true;
	s->sort = xstrdup(sort_name(u));
	s->sort_reverse = u->nav.sort_reverse;
}

/* Changes setting i by dir (-1 or +1); returns keys_apply flags. */
static int change(struct ui *u, int i, int dir)
{
	int n;
	switch (i) {
	case SET_DELAY: {
		if (u->src->ops->interval_is_pace)
			return 0;
		/* The next step up or down from the delay now (which -d may
		 * have set between two steps). */
		n = (int)ARRAY_SIZE(intervals);
		double cur = u->nav.interval_s, next = cur;
		for (int k = 0; k < n; k++) {
			if (dir > 0 && intervals[k] > cur + 1e-9) {
				next = intervals[k];
				break;
			}
			if (dir < 0 && intervals[k] < cur - 1e-9)
				next = intervals[k];
		}
		u->nav.interval_s = next;
		return KA_INTERVAL;
	}
	case SET_VIEW:
		if (u->nviews < 2)
			return 0;
		u->nav.view = (u->nav.view + (dir > 0 ? 1 : u->nviews - 1)) % u->nviews;
		return KA_REQUEST;
	case SET_COLORS:
		ui_colors_apply(u, (u->scheme + (dir > 0 ? 1 : COLORS_KINDS - 1)) % COLORS_KINDS);
		return KA_CLEAR;
	case SET_ROWS:
		u->nav.rows = (u->nav.rows + (dir > 0 ? 1 : ROWS_KINDS - 1)) % ROWS_KINDS;
		u->nav.sel = u->nav.top = 0;
		return KA_ROWS;
	case SET_CCX:
		u->nav.show_ccx = !u->nav.show_ccx;
		return KA_REDRAW;
	case SET_ERRORS:
		u->nav.show_err = !u->nav.show_err;
		return KA_REDRAW;
	default:
		return 0;
	}
}

int setup_screen(struct ui *u)
{
	int sel = 0, flags = 0;
	char status[512] = "";
	for (;;) {
		char line[512], path[256];
		snprintf(path, sizeof(path), "%s", u->cfg->settings_path ? u->cfg->settings_path
			 : u->cfg->no_config ? "(off: --no-config)" : "(no HOME)");
		erase();
		draw_put(0, 0, COLS, A_BOLD, "pmctop setup: Up/Down choose, Left/Right change (at once), "
					      "Enter on Save or s saves, Esc closes");
		const char *labels[SET_COUNT] = { "Refresh delay", "Start in view", "Colours", "Table rows",
						   "CCX panels", "Uncertainty (+-95%)", "Sort by", "Edit views", "Save" };
		for (int i = 0; i < SET_COUNT; i++) {
			char val[300];
			switch (i) {
			case SET_DELAY:
				if (u->src->ops->interval_is_pace)
					snprintf(val, sizeof(val), "- (a replay keeps its own pace)");
				else
					snprintf(val, sizeof(val), "%g s", u->nav.interval_s);
				break;
			case SET_VIEW:
				snprintf(val, sizeof(val), "%s", u->nav.view < u->nviews ? u->views[u->nav.view].name : "-");
				break;
			case SET_EDIT: {
				const struct view_def *v = u->nav.view < u->nviews ? &u->views[u->nav.view] : NULL;
				int mi = v ? model_find_view(u->m, v->name) : -1;
				if (mi >= 0 && u->m->views[mi].user)
					snprintf(val, sizeof(val), "Enter changes your view %s", v->name);
				else
					snprintf(val, sizeof(val), "Enter makes a view of your own from %s", v ? v->name : "-");
				break;
			}
			case SET_COLORS:
				snprintf(val, sizeof(val), "%s%s", settings_colors_name(u->scheme),
					 u->cfg->colors_given ? " (--no-color or NO_COLOR: monochrome now)" : "");
				break;
			case SET_ROWS: snprintf(val, sizeof(val), "%s", rows_word(u->nav.rows)); break;
			case SET_CCX: snprintf(val, sizeof(val), "%s", u->nav.show_ccx ? "shown" : "hidden"); break;
			case SET_ERRORS: snprintf(val, sizeof(val), "%s", u->nav.show_err ? "shown" : "hidden"); break;
			case SET_SORT:
				snprintf(val, sizeof(val), "%s%s (< > or F6 in the dashboard)", u->cols[u->nav.sort_col].title,
					 u->nav.sort_reverse ? " reversed" : "");
				break;
			default:
				snprintf(val, sizeof(val), "to %s", path);
			}
			snprintf(line, sizeof(line), " %-22s %s", labels[i], val);
			if (2 + i < LINES)
				draw_put(2 + i, 0, COLS, i == sel ? A_REVERSE : 0, line);
		}
		if (status[0] && 3 + SET_COUNT < LINES)
			draw_put(3 + SET_COUNT, 0, COLS, A_BOLD, status);
		refresh();
		int k = ui_dialog_getkey(u);
		if (ui_stopping())
			break;
		if (k < 0 || k == UK_RESIZE || k == UK_MOUSE)
			continue;
		if (k == UK_ESC || k == UK_F2 || k == 'q' || k == UK_F10)
			break;
		if (k == UK_UP)
			sel = sel > 0 ? sel - 1 : 0;
		else if (k == UK_DOWN)
			sel = sel < SET_COUNT - 1 ? sel + 1 : sel;
		else if (sel == SET_EDIT && (k == UK_ENTER || k == ' '))
			flags |= view_editor(u);
		else if (k == UK_LEFT || k == UK_RIGHT || (k == ' ' && sel != SET_SAVE) || (k == UK_ENTER && sel < SET_SORT))
			flags |= change(u, sel, k == UK_LEFT ? -1 : 1);
		else if ((k == UK_ENTER && sel == SET_SAVE) || k == 's') {
			struct settings s;
			char *cause = NULL;
			current(u, &s);
			/* --no-config neither reads nor writes pmctoprc: say so
			 * rather than blame HOME, which is not why. */
			if (u->cfg->no_config && !u->cfg->settings_path)
				snprintf(status, sizeof(status), "not saved: --no-config is on (the settings "
					 "are neither read nor saved; start without it to save)");
			else if (settings_save(u->cfg->settings_path, &s, &cause) == 0)
				snprintf(status, sizeof(status), "saved to %s", path);
			else
				snprintf(status, sizeof(status), "not saved: %s", cause ? cause : "?");
			free(cause);
			settings_free(&s);
		}
		/* A change of view or rows shows in the dashboard behind this
		 * screen only when it closes; the columns are rebuilt now. */
		if (flags & (KA_REQUEST | KA_ROWS))
			ui_build_columns(u);
	}
	return flags;
}
