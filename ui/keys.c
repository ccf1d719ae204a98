/* keys.c: the key table (the master copy: the help screen is printed from
 * it) and the navigation state changes that keys cause. The habits are
 * htop's and top's: q/F10 quit, h/?/F1 help, </>/F6 sort, space pauses. */
#include "config.h"
#include "keys.h"

#include <stdio.h>

const struct key_binding keys_table[] = {
	{ 'q', ACT_QUIT, 0, "q", "quit" },
	{ UK_F10, ACT_QUIT, 0, "F10", NULL },
	{ 'h', ACT_HELP, 0, "h", "this help" },
	{ '?', ACT_HELP, 0, "?", NULL },
	{ UK_F1, ACT_HELP, 0, "F1", NULL },
	{ '\t', ACT_VIEW_NEXT, 0, "Tab", "next view" },
	{ UK_BTAB, ACT_VIEW_PREV, 0, "Shift-Tab", "previous view" },
	{ '1', ACT_VIEW_KEY, 1, "1", "view with that key (1-9)" },
	{ '2', ACT_VIEW_KEY, 2, "2", NULL },
	{ '3', ACT_VIEW_KEY, 3, "3", NULL },
	{ '4', ACT_VIEW_KEY, 4, "4", NULL },
	{ '5', ACT_VIEW_KEY, 5, "5", NULL },
	{ '6', ACT_VIEW_KEY, 6, "6", NULL },
	{ '7', ACT_VIEW_KEY, 7, "7", NULL },
	{ '8', ACT_VIEW_KEY, 8, "8", NULL },
	{ '9', ACT_VIEW_KEY, 9, "9", NULL },
	{ 'e', ACT_EVENT_PICKER, 0, "e", "add an event column (type to search)" },
	{ UK_DELETE, ACT_DEL_COLUMN, 0, "Delete", "remove the event column sorted on (else the last added)" },
	{ '<', ACT_SORT_LEFT, 0, "<", "sort by the column to the left" },
	{ '>', ACT_SORT_RIGHT, 0, ">", "sort by the column to the right" },
	{ UK_F6, ACT_SORT_PICK, 0, "F6", "choose the sort column" },
	{ UK_F2, ACT_SETUP, 0, "F2", "setup: delay, view, colours, rows, panels, your own views; s saves them" },
	{ 'S', ACT_SETUP, 0, "S", NULL },
	{ 'R', ACT_SORT_REVERSE, 0, "R", "reverse the sort order" },
	{ 'c', ACT_TOGGLE_CCX, 0, "c", "show/hide the CCX panels" },
	{ 'g', ACT_FLEET_GROUP, 0, "g", "fleet: group the hosts by model, then by each label (zone, rack...), then off" },
	{ 't', ACT_TOGGLE_THREADS, 0, "t", "rows per CPU, core, CCX or socket; in tasks: per cgroup" },
	{ 'u', ACT_TOGGLE_ERRORS, 0, "u", "show each figure's uncertainty (+-, 95 %)" },
	{ ' ', ACT_PAUSE, 0, "Space", "pause/resume" },
	{ '+', ACT_INTERVAL_UP, 0, "+", "longer refresh delay" },
	{ '-', ACT_INTERVAL_DOWN, 0, "-", "shorter refresh delay" },
	{ '/', ACT_SEARCH, 0, "/", "search: select the next row whose CPU, pid, command or cgroup matches" },
	{ UK_F3, ACT_SEARCH, 0, "F3", NULL },
	{ 'n', ACT_SEARCH_NEXT, 0, "n", "the next row that matches the search" },
	{ 'N', ACT_SEARCH_PREV, 0, "N", "the previous row that matches the search" },
	{ '\\', ACT_FILTER, 0, "\\", "filter rows: a CPU list (0-7,16) or 'ccx N' / 'socket N'; in tasks also a name; empty or Esc: all" },
	{ UK_F4, ACT_FILTER, 0, "F4", NULL },
	{ UK_ENTER, ACT_DETAIL, 0, "Enter", "detail pane: every metric of the row, its history" },
	{ 'w', ACT_SNAPSHOT, 0, "w", "write this interval as JSON (pmctop-snapshot-*.json)" },
	{ 'T', ACT_TASKS, 0, "T", "who ran on the selected row's CPUs (the tasks view, where \\ also filters by name); T again: back" },
	{ UK_F5, ACT_TASK_TREE, 0, "F5", "in tasks: cgroups as a tree, each one's processes beneath it (on/off)" },
	{ 'F', ACT_FOLLOW, 0, "F", "follow the selected row as the rows re-sort (on/off; off: the selection keeps its line)" },
	{ UK_UP, ACT_UP, 0, "Up", "select the row above" },
	{ UK_DOWN, ACT_DOWN, 0, "Down", "select the row below" },
	{ UK_PGUP, ACT_PGUP, 0, "PgUp", "a page up" },
	{ UK_PGDN, ACT_PGDN, 0, "PgDn", "a page down" },
	{ UK_HOME, ACT_HOME, 0, "Home", "first row" },
	{ UK_END, ACT_END, 0, "End", "last row" },
	{ UK_LEFT, ACT_LEFT, 0, "Left", "scroll the columns after IPC left" },
	{ UK_RIGHT, ACT_RIGHT, 0, "Right", "scroll the columns after IPC right" },
	{ UK_CTRL('l'), ACT_REDRAW, 0, "Ctrl-L", "redraw the screen" },
	{ '[', ACT_STEP_BACK, 0, "[", "replay: pause and step an interval back" },
	{ ']', ACT_STEP_FWD, 0, "]", "replay: pause and step an interval forward" },
	{ 'j', ACT_JUMP, 0, "j", "replay: jump to a time (HH:MM:SS, +/-SECS, #N, start, end)" },
};
const int keys_count = (int)(sizeof(keys_table) / sizeof(keys_table[0]));

const struct key_binding *keys_lookup(int key)
{
	for (int i = 0; i < keys_count; i++)
		if (keys_table[i].key == key)
			return &keys_table[i];
	return NULL;
}

/* Refresh intervals the +/- keys step through. */
static const double intervals[] = { 0.1, 0.2, 0.5, 1, 2, 3, 5, 10, 30, 60 };
#define NINTERVALS ((int)(sizeof(intervals) / sizeof(intervals[0])))

double keys_interval_step(double cur, int dir)
{
	if (dir > 0) {
		for (int i = 0; i < NINTERVALS; i++)
			if (intervals[i] > cur + 1e-9)
				return intervals[i];
		return intervals[NINTERVALS - 1];
	}
	for (int i = NINTERVALS - 1; i >= 0; i--)
		if (intervals[i] < cur - 1e-9)
			return intervals[i];
	return intervals[0];
}

void keys_clamp(struct ui_nav *n)
{
	if (n->nviews < 1)
		n->view = 0;
	else if (n->view < 0 || n->view >= n->nviews)
		n->view = 0;
	if (n->sort_col >= n->ncols)
		n->sort_col = n->ncols - 1;
	if (n->sort_col < 0)
		n->sort_col = 0;
	if (n->sel >= n->nrows)
		n->sel = n->nrows - 1;
	if (n->sel < 0)
		n->sel = 0;
	int page = n->page > 0 ? n->page : 1;
	if (n->top > n->sel)
		n->top = n->sel;
	if (n->sel >= n->top + page)
		n->top = n->sel - page + 1;
	if (n->top > n->nrows - page)
		n->top = n->nrows - page;
	if (n->top < 0)
		n->top = 0;
	if (n->hscroll >= n->nhscroll)
		n->hscroll = n->nhscroll - 1;
	if (n->hscroll < 0)
		n->hscroll = 0;
}

int keys_apply(struct ui_nav *n, const struct key_binding *b)
{
	if (!b)
		return KA_NONE;
	int page = n->page > 0 ? n->page : 1;
	int r = KA_REDRAW;
	switch (b->action) {
	case ACT_NONE:
	case ACT_COUNT:
		return KA_NONE;
	case ACT_QUIT:
		return KA_QUIT;
	case ACT_HELP:
	case ACT_EVENT_PICKER:
	case ACT_SORT_PICK:
	case ACT_FILTER:
	case ACT_DEL_COLUMN:
	case ACT_STEP_BACK:   /* replay: the screen moves and pauses it */
	case ACT_STEP_FWD:
	case ACT_JUMP:
	case ACT_DETAIL:
	case ACT_SNAPSHOT:
	case ACT_SETUP:
	case ACT_TASKS:
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_TASK_TREE:   /* the screen knows whether the view is a tasks one */
		return KA_DIALOG;
	case ACT_VIEW_NEXT:
	case ACT_VIEW_PREV:
		if (n->nviews < 2)
			return KA_NONE;
		n->view = (n->view + (b->action == ACT_VIEW_NEXT ? 1 : n->nviews - 1)) % n->nviews;
		r |= KA_REQUEST;
		break;
	case ACT_VIEW_KEY:
		/* Digit keys are resolved to a view index by the caller, which
		 * knows the views' keys. */
		return KA_DIALOG;
	case ACT_SORT_LEFT:
		if (n->sort_col > 0)
			n->sort_col--;
		break;
	case ACT_SORT_RIGHT:
		if (n->sort_col < n->ncols - 1)
			n->sort_col++;
		break;
	case ACT_SORT_REVERSE:
		n->sort_reverse = !n->sort_reverse;
		break;
	case ACT_TOGGLE_CCX:
		n->show_ccx = !n->show_ccx;
		break;
	case ACT_FLEET_GROUP:
		/* The panel takes it modulo its labels + 1 (at most 9): 2520
		 * is a multiple of each, so the cycle stays in step and the
		 * count never overflows. */
		n->group = (n->group + 1) % 2520;
		break;
	case ACT_TOGGLE_ERRORS:
		n->show_err = !n->show_err;
		break;
	case ACT_FOLLOW:
		n->follow = !n->follow;
		break;
	case ACT_TOGGLE_THREADS:
		n->rows = (n->rows + 1) % ROWS_KINDS;
		n->sel = n->top = 0;
		r |= KA_ROWS;
		break;
	case ACT_PAUSE:
		n->paused = !n->paused;
		r |= KA_PAUSE;
		break;
	case ACT_INTERVAL_UP:
	case ACT_INTERVAL_DOWN:
		n->interval_s = keys_interval_step(n->interval_s, b->action == ACT_INTERVAL_UP ? 1 : -1);
		r |= KA_INTERVAL;
		break;
	case ACT_UP: n->sel--; break;
	case ACT_DOWN: n->sel++; break;
	case ACT_PGUP: n->sel -= page; n->top -= page; break;
	case ACT_PGDN: n->sel += page; n->top += page; break;
	case ACT_HOME: n->sel = 0; break;
	case ACT_END: n->sel = n->nrows - 1; break;
	case ACT_LEFT:
		n->hscroll--;
		break;
	case ACT_RIGHT:
		n->hscroll++;
		break;
	case ACT_REDRAW:
		r |= KA_CLEAR;
		break;
	}
	keys_clamp(n);
	return r;
}

const char *keys_name(int key, char *buf, int len)
{
	for (int i = 0; i < keys_count; i++)
		if (keys_table[i].key == key) {
			snprintf(buf, (size_t)len, "%s", keys_table[i].name);
			return buf;
		}
	if (key > 32 && key < 127)
		snprintf(buf, (size_t)len, "%c", key);
	else
		snprintf(buf, (size_t)len, "#%d", key);
	return buf;
}
