/* dialog.c: the screens that take the keyboard for a moment: the help
 * (printed from the key table), a searchable picker (events, sort column)
 * and a one-line prompt (row filter). Each runs its own small key loop and
 * returns; Esc always cancels, and a stop signal ends it too. */
#include "config.h"
#include "ui_impl.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "format.h"
#include "panel.h"
#include "uncertainty.h"
#include "util.h"

/* The digit keys of the views this model has: "1 basic  2 topdown ...". */
static char *view_keys_help(const struct ui *u, char *keys, size_t len)
{
	size_t k = 0, dk = 0;
	char help[512];
	help[0] = keys[0] = 0;
	for (int i = 0; i < u->nviews; i++) {
		int d = u->views[i].key > 0 ? u->views[i].key : i + 1;
		bool keyed = false;
		for (int j = 0; j < u->nviews; j++)
			keyed |= u->views[j].key > 0;
		if ((keyed && u->views[i].key <= 0) || d > 9)
			continue;
		if (k < len)
			k += (size_t)snprintf(keys + k, len - k, "%s%d", k ? " " : "", d);
		if (dk < sizeof(help))
			dk += (size_t)snprintf(help + dk, sizeof(help) - dk, "%s%d %s", dk ? ", " : "view: ", d,
					       u->views[i].name);
	}
	return xstrdup(help[0] ? help : "no views");
}

/* The help's lines cut at words to the terminal's width; a continuation
 * is indented under the text it continues. */
static int wrap_lines(char **lines, int n, int cols, char ***out)
{
	int cap = 2 * n + 8, m = 0;
	char **w = xcalloc((size_t)cap, sizeof(char *));
	for (int i = 0; i < n; i++) {
		const char *l = lines[i];
		int indent = (int)strspn(l, " ");
		/* Key lines: the text starts after the key column. */
		const char *gap = strstr(l + indent, "  ");
		int hang = gap && l[indent] != '-' && l[indent] != '~' ? (int)(gap - l) + (int)strspn(gap, " ") : indent + 2;
		if (hang > cols / 2)
			hang = indent + 2;
		int first = cols > 8 ? cols : 8;
		int ws[64], wl[64];
		int k = format_wrap(l, first, ws, wl, 1);
		if (k <= 1) {
			if (m == cap)
				w = xrealloc(w, sizeof(char *) * (size_t)(cap *= 2));
			w[m++] = xstrdup(l);
			continue;
		}
		int used = wl[0];
		if (m == cap)
			w = xrealloc(w, sizeof(char *) * (size_t)(cap *= 2));
		w[m++] = xstrndup(l, (size_t)used);
		const char *rest = l + ws[0] + used;
		rest += strspn(rest, " ");
		int nk = format_wrap(rest, first - hang > 8 ? first - hang : 8, ws, wl, 64);
		for (int j = 0; j < nk && j < 64; j++) {
			if (m == cap)
				w = xrealloc(w, sizeof(char *) * (size_t)(cap *= 2));
			w[m++] = xasprintf("%*s%.*s", hang, "", wl[j], rest + ws[j]);
		}
	}
	*out = w;
	return m;
}

void dialog_help(struct ui *u)
{
	/* One line per action: all its keys, then what it does. */
	int cap = keys_count + 48, n = 0, top = 0;
	char **lines = xcalloc((size_t)cap, sizeof(char *));
	lines[n++] = xstrdup("pmctop keys (Esc, q or Enter closes this help)");
	lines[n++] = xstrdup("");
	/* What the figures' marks mean first: a new user meets "-", "~" and
	 * "min cov" on the first screen (they were explained at the end,
	 * after some 40 lines of keys). */
	lines[n++] = xstrdup("  What the figures say:");
	lines[n++] = xstrdup("  -      no value: the event was not counted, or a divisor was 0, or the");
	lines[n++] = xstrdup("         metric is not measured here (its PMU is missing)");
	lines[n++] = xasprintf("  ~1.23  uncertain: its 95%% interval is wider than +-%.0f%%, or cannot be",
			       UNC_MARK_REL95 * 100);
	lines[n++] = xstrdup("         estimated (its counters ran in too few windows); u shows +-N% beside");
	lines[n++] = xstrdup("         every figure (docs/uncertainty.md)");
	lines[n++] = xstrdup("  min cov  the lowest coverage (share of the interval counted) on screen");
	lines[n++] = xstrdup("  CCX:, sock:  a heading so marked shows each row's CCX's (socket's) figure:");
	lines[n++] = xstrdup("         L3 and memory are counted per CCX and socket; t shows such rows");
	lines[n++] = xstrdup("");
	for (int i = 0; i < keys_count; i++) {
		if (!keys_table[i].help)
			continue;
		if (keys_table[i].action == ACT_VIEW_KEY) {
			/* Only the digits that choose one of this model's views. */
			char vk[64];
			char *vh = view_keys_help(u, vk, sizeof(vk));
			lines[n++] = xasprintf("  %-22s %s", vk, vh);
			free(vh);
			continue;
		}
		char keys[64];
		int k = snprintf(keys, sizeof(keys), "%s", keys_table[i].name);
		for (int j = i + 1; j < keys_count && !keys_table[j].help && k < (int)sizeof(keys) - 12; j++)
			k += snprintf(keys + k, sizeof(keys) - (size_t)k, " %s", keys_table[j].name);
		lines[n++] = xasprintf("  %-22s %s", keys, keys_table[i].help);
	}
	lines[n++] = xstrdup("");
	lines[n++] = xstrdup("  Event columns are counts per second. The topdown bar: F frontend bound,");
	lines[n++] = xstrdup("  S bad speculation, B backend bound, T SMT contention, R retiring; lower");
	lines[n++] = xstrdup("  case is the second half of a split (level 2). The heading names them.");
	lines[n++] = xstrdup("");
	lines[n++] = xstrdup("  Mouse: a click on a column heading sorts by it (again: reverses), on a view");
	lines[n++] = xstrdup("  tab switches to it, on a row selects it; the wheel moves the selection.");
	lines[n++] = xstrdup("");
	lines[n++] = xstrdup("  Core strip (in each CCX box): one cell per core, the sort column's metric");
	lines[n++] = xstrdup("  (or util%) from low to high as _ . : = + * # % @; a share (%, ratio) on its");
	lines[n++] = xstrdup("  own 0-100% scale, other metrics up to the busiest core; a blank is no value.");
	lines[n++] = xstrdup("  Colours: green, yellow, red are a metric's good, warning and critical levels");
	lines[n++] = xstrdup("  (its view's thresholds), else the strip's low, middle and high thirds.");
	lines[n++] = xstrdup("  CCX boxes follow the row filter; when they do not all fit, the page with");
	lines[n++] = xstrdup("  the selected row's CCX is shown.");
	lines[n++] = xstrdup("");
	lines[n++] = xstrdup("  Sparklines (header, CCX boxes, sockets) show the sort column's metric, or");
	lines[n++] = xstrdup("  utilisation: one cell per interval, newest at the right, scaled from the");
	lines[n++] = xstrdup("  lowest to the highest value printed beside them; a blank is no value.");
	lines[n++] = xstrdup("  Detail pane (Enter): Up/Down picks the metric graphed, Left/Right moves");
	lines[n++] = xstrdup("  to the row's core, CCX, socket or the system, a measures every metric");
	lines[n++] = xstrdup("  (more groups: each is counted less of the time), Esc, Enter or q closes.");
	lines[n++] = xasprintf("  History: the last %d intervals (at most %zu MiB); a new refresh delay", HISTORY_LEN,
			       HISTORY_BUDGET >> 20);
	lines[n++] = xstrdup("  keeps it, the graphs laid out by time at the new interval length.");
	char **shown = NULL;
	int ns = 0, wrapped_at = -1;
	for (;;) {
		if (wrapped_at != COLS) {
			for (int i = 0; i < ns; i++)
				free(shown[i]);
			free(shown);
			ns = wrap_lines(lines, n, COLS, &shown);
			wrapped_at = COLS;
			if (top > ns - (LINES - 1))
				top = ns - (LINES - 1) > 0 ? ns - (LINES - 1) : 0;
		}
		erase();
		for (int i = 0; i + top < ns && i < LINES - 1; i++)
			draw_put(i, 0, COLS, i + top == 0 ? A_BOLD : 0, shown[i + top]);
		if (ns > LINES - 1)
			draw_put(LINES - 1, 0, COLS, A_REVERSE, " Up/Down scroll ");
		refresh();
		int k = ui_dialog_getkey(u);
		if (ui_stopping())
			break;
		if (k < 0 || k == UK_RESIZE)
			continue;
		if (k == UK_DOWN || k == UK_PGDN) {
			if (top < ns - (LINES - 1))
				top += k == UK_DOWN ? 1 : LINES - 2;
			if (top > ns - (LINES - 1))
				top = ns - (LINES - 1) > 0 ? ns - (LINES - 1) : 0;
			continue;
		}
		if (k == UK_UP || k == UK_PGUP) {
			top -= k == UK_UP ? 1 : LINES - 2;
			if (top < 0)
				top = 0;
			continue;
		}
		break;
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	for (int i = 0; i < ns; i++)
		free(shown[i]);
	free(shown);
}

struct pick_item { const char *name, *desc; int id; };

/* How well an item matches the query: names that start with it first,
 * then names that hold it, then descriptions that do (so that "BE" finds
 * "BE bound" before "FE bound", whose description says "backend"); -1:
 * no match. */
static int match_rank(const struct pick_item *it, const char *q)
{
	size_t ql = strlen(q);
	if (strncasecmp(it->name, q, ql) == 0)
		return 0;
	if (format_match(it->name, q))
		return 1;
	return it->desc && format_match(it->desc, q) ? 2 : -1;
}

/* A list with type-to-search over names and descriptions. Returns the id
 * of the chosen item, or -1. */
static int pick(struct ui *u, const char *title, const char *verb, const struct pick_item *items, int n)
{
	char query[64] = "";
	int qlen = 0, sel = 0, top = 0, result = -1;
	int *match = xcalloc((size_t)(n > 0 ? n : 1), sizeof(int));
	for (;;) {
		int nm = 0;
		for (int rank = 0; rank <= 2; rank++)
			for (int i = 0; i < n; i++)
				if (match_rank(&items[i], query) == rank)
					match[nm++] = i;
		int h = LINES - 3;
		if (h < 1)
			h = 1;
		if (sel >= nm)
			sel = nm - 1;
		if (sel < 0)
			sel = 0;
		if (top > sel)
			top = sel;
		if (sel >= top + h)
			top = sel - h + 1;
		erase();
		char line[160];
		snprintf(line, sizeof(line), "%s: %d of %d match  (type to search, Enter %s, Esc cancels)", title, nm, n,
			 verb);
		draw_put(0, 0, COLS, A_BOLD, line);
		/* The terminal's own cursor after the query: a drawn "_" read
		 * as part of an event name. */
		int cx = snprintf(line, sizeof(line), "Search: %s", query);
		draw_put(1, 0, COLS, A_UNDERLINE, line);
		for (int i = 0; i < h && top + i < nm; i++) {
			const struct pick_item *it = &items[match[top + i]];
			snprintf(line, sizeof(line), "%-32s %s", it->name, it->desc ? it->desc : "");
			draw_put(2 + i, 0, COLS, top + i == sel ? A_REVERSE : 0, line);
		}
		if (nm == 0)
			draw_put(2, 0, COLS, 0, "(nothing matches)");
		move(1, cx < COLS ? cx : COLS - 1);
		curs_set(1);
		refresh();
		int k = ui_dialog_getkey(u);
		if (ui_stopping())
			break;
		if (k < 0 || k == UK_RESIZE)
			continue;
		if (k == UK_ESC || k == UK_F10)
			break;
		if (k == UK_ENTER) {
			if (nm > 0)
				result = items[match[sel]].id;
			break;
		}
		switch (k) {
		case UK_UP: sel--; break;
		case UK_DOWN: sel++; break;
		case UK_PGUP: sel -= h; break;
		case UK_PGDN: sel += h; break;
		case UK_HOME: sel = 0; break;
		case UK_END: sel = nm - 1; break;
		case UK_BACKSPACE:
			if (qlen > 0)
				query[--qlen] = 0;
			sel = top = 0;
			break;
		default:
			if (k >= 32 && k < 127 && qlen < (int)sizeof(query) - 1) {
				query[qlen++] = (char)k;
				query[qlen] = 0;
				sel = top = 0;
			}
			break;
		}
	}
	curs_set(0);
	free(match);
	return result;
}

int dialog_pick_event(struct ui *u)
{
	int n = u->m->nevents;
	struct pick_item *items = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*items));
	for (int i = 0; i < n; i++)
		items[i] = (struct pick_item){ u->m->events[i].name, u->m->events[i].desc, i };
	int r = pick(u, "Add an event column", "adds it", items, n);
	free(items);
	return r;
}

int dialog_pick_metric(struct ui *u)
{
	int n = u->m->nmetrics;
	struct pick_item *items = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*items));
	for (int i = 0; i < n; i++)
		items[i] = (struct pick_item){ u->m->metrics[i].name, u->m->metrics[i].desc, i };
	int r = pick(u, "Add a column", "adds it", items, n);
	free(items);
	return r;
}

int dialog_pick_sort(struct ui *u)
{
	struct pick_item *items = xcalloc((size_t)(u->ncols > 0 ? u->ncols : 1), sizeof(*items));
	int n = 0;
	for (int i = 0; i < u->ncols; i++) {
		const struct ui_col *c = &u->cols[i];
		if (ui_col_info(c->kind)->bar)
			continue;
		const char *desc = c->kind == COL_METRIC ? u->m->metrics[c->idx].desc
				 : c->kind == COL_EVENT ? u->m->events[c->idx].desc : NULL;
		items[n++] = (struct pick_item){ c->title, desc, i };
	}
	int r = pick(u, "Sort by", "sorts by it", items, n);
	free(items);
	return r;
}

char *dialog_prompt(struct ui *u, const char *label, const char *init)
{
	char text[128];
	int len = snprintf(text, sizeof(text), "%s", init ? init : "");
	if (len >= (int)sizeof(text))
		len = (int)sizeof(text) - 1;
	char *result = NULL;
	/* The old text stands as a default: the first character typed
	 * replaces it (as in a selected field), an edit key keeps it. */
	bool fresh = len > 0;
	curs_set(1);
	for (;;) {
		int y = LINES - 1;
		move(y, 0);
		clrtoeol();
		draw_put(y, 0, COLS, A_BOLD, label);
		int x = (int)strlen(label);
		draw_put(y, x, COLS - x, 0, text);
		move(y, x + len < COLS ? x + len : COLS - 1);
		refresh();
		int k = ui_dialog_getkey(u);
		if (ui_stopping() || k == UK_ESC)
			break;
		if (k == UK_ENTER) {
			result = xstrdup(text);
			break;
		}
		if (k < 0 || k == UK_RESIZE)
			continue;
		if (k == UK_CTRL('u')) {              /* clear the line */
			len = 0;
			text[0] = 0;
		} else if (k == UK_BACKSPACE && len > 0) {
			text[--len] = 0;
		} else if (k >= 32 && k < 127 && len < (int)sizeof(text) - 1) {
			if (fresh)
				len = 0;
			text[len++] = (char)k;
			text[len] = 0;
		}
		fresh = false;
	}
	curs_set(0);
	return result;
}
