/* actions.c: what a key or a click does in the dashboard: views, rows,
 * sort, filter and search, the dialogs, pause and delay. */
#include "config.h"
#include "panel.h"
#include "format.h"

#include <curses.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "snapfile.h"
#include "spark.h"
#include "util.h"

/* The view with digit key d; if no view has keys, the d-th view. */
static int view_for_digit(const struct ui *u, int d)
{
	for (int i = 0; i < u->nviews; i++)
		if (u->views[i].key == d)
			return i;
	for (int i = 0; i < u->nviews; i++)
		if (u->views[i].key > 0)
			return -1;
	return d - 1 < u->nviews ? d - 1 : -1;
}

static void del_extra(struct ui *u)
{
	if (u->nextra < 1) {
		ui_set_message(u, "no event column to remove (e adds one)");
		return;
	}
	int pos = u->nextra - 1;
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	if (c->kind == COL_EVENT)
		for (int i = 0; i < u->nextra; i++)
			if (u->extra[i] == c->idx)
				pos = i;
	memmove(&u->extra[pos], &u->extra[pos + 1], (size_t)(u->nextra - pos - 1) * sizeof(int));
	u->nextra--;
}

void ui_add_extra(struct ui *u, int e)
{
	for (int i = 0; i < u->nextra; i++)
		if (u->extra[i] == e)
			return;
	u->extra = xrealloc(u->extra, (size_t)(u->nextra + 1) * sizeof(int));
	u->extra[u->nextra++] = e;
}

static void do_filter(struct ui *u)
{
	char *text = dialog_prompt(u, ui_tasks_view(u) ? "Filter (CPU list, 'ccx N', 'socket N', or a name; empty: all): "
					   : "Filter (CPU list, 'ccx N', 'socket N'; empty: all): ",
				   "");
	/* As in htop: the prompt starts empty, Enter on it shows every row,
	 * and Esc clears the filter too. */
	if (!text && ui_stopping())
		return;
	if (!text)
		text = xstrdup("");
	/* Shown and matched without the blanks typed around it. */
	size_t lead = strspn(text, " \t"), tl = strlen(text);
	while (tl > lead && (text[tl - 1] == ' ' || text[tl - 1] == '\t'))
		text[--tl] = 0;
	memmove(text, text + lead, tl - lead + 1);
	bool *f = xcalloc((size_t)u->topo->max_cpu + 1, sizeof(bool));
	char *cause = NULL;
	free(u->task_match);
	u->task_match = NULL;
	if ((ui_tasks_view(u) || u->cfg->fleet) && *text &&
	    (u->cfg->fleet || format_parse_filter(text, u->topo, f, NULL) < 0)) {
		/* Not CPUs: a name (or pid, or cgroup; a fleet's host) to look for. */
		format_parse_filter("", u->topo, f, NULL);
		u->task_match = text_sanitize(text);
	} else if (format_parse_filter(text, u->topo, f, &cause) < 0) {
		char *msg = xasprintf("filter: %s", cause ? cause : "invalid");
		ui_set_message(u, msg);
		free(msg);
		free(cause);
		free(f);
		free(text);
		return;
	}
	free(u->filter);
	u->filter = f;
	free(u->filter_text);
	/* filter_text says which CPUs; a name is task_match's. */
	u->filter_text = *text && !u->task_match ? text : NULL;
	if (!u->filter_text)
		free(text);
	u->nav.sel = u->nav.top = 0;
	ui_set_message(u, NULL);     /* an error about an earlier filter no longer holds */
	ui_build_columns(u);         /* HERE% comes and goes with a CPU filter */
}

/* Whether a row's identity matches the search: its CPU (or pid) number
 * exactly, or its command or cgroup holding the text. Figures are not
 * searched: they change under the search. */
static bool row_matches(struct ui *u, const struct ui_row *row, const char *q)
{
	for (int i = 0; i < u->ncols; i++) {
		const struct ui_col *c = &u->cols[i];
		char buf[256];
		int level;
		char how = ui_col_info(c->kind)->search;
		double cov;
		if (how == '=' && !strcmp(draw_cell(u, c, row, buf, sizeof(buf), &level, &cov), q))
			return true;
		if (how == '~' && format_match(draw_cell(u, c, row, buf, sizeof(buf), &level, &cov), q))
			return true;
	}
	return false;
}

/* Selects the next row (dir 1) or the previous one (-1) that matches the
 * search, from the selected row itself when from_here is set, wrapping
 * around; the rows stay as they are (the filter hides rows). */
static void search_step(struct ui *u, int dir, bool from_here)
{
	if (!u->search_text || !*u->search_text) {
		ui_set_message(u, "no search yet: / or F3 searches");
		return;
	}
	int n = u->nrows;
	/* n is 0 while no row is shown (a filter that hides every row, the
	 * tasks view before its first snapshot): nothing to step over. */
	for (int k = from_here ? 0 : 1; n > 0 && k <= n; k++) {
		int i = ((u->nav.sel + dir * k) % n + n) % n;
		if (row_matches(u, &u->rows[i], u->search_text)) {
			u->nav.sel = i;
			keys_clamp(&u->nav);
			ui_set_message(u, NULL);   /* "no row matches" no longer holds */
			return;
		}
	}
	char *msg = xasprintf("no row matches '%s' (\\ or F4 filters, / searches)", u->search_text);
	ui_set_message(u, msg);
	free(msg);
}

static void do_search(struct ui *u)
{
	char *text = dialog_prompt(u, "Search (a CPU, pid, command or cgroup; n/N: next/previous): ",
				   u->search_text ? u->search_text : "");
	if (!text)
		return;
	free(u->search_text);
	u->search_text = text_sanitize(text);
	free(text);
	search_step(u, 1, true);
}

/* After a change of view: when the tasks view was left, the CPU views get
 * their own filter back (the drill-down's CPUs were the tasks view's), the
 * name match goes, and a line about the tasks view is cleared. */
void ui_left_tasks(struct ui *u)
{
	if (ui_tasks_view(u) || u->task_back < 0)
		return;
	if (u->cpu_filter_kept) {
		free(u->filter);
		u->filter = u->cpu_filter_kept;
		free(u->filter_text);
		u->filter_text = u->cpu_filter_text_kept;
		u->cpu_filter_kept = NULL;
		u->cpu_filter_text_kept = NULL;
	}
	free(u->task_match);
	u->task_match = NULL;
	u->task_back = -1;
	u->nav.sel = u->nav.top = 0;
	ui_set_message(u, NULL);
}

/* T: from a CPU, core, CCX or socket row, the tasks view limited to its
 * CPUs (who ran there); from the tasks view, back to the view before,
 * every CPU shown again. Returns whether the view changed. */
static bool show_tasks(struct ui *u)
{
	if (ui_tasks_view(u)) {
		int back = u->task_back >= 0 && u->task_back < u->nviews ? u->task_back : 0;
		if (back == u->nav.view)
			return false;
		u->nav.view = back;
		ui_left_tasks(u);
		return true;
	}
	int tv = -1;
	for (int i = 0; i < u->nviews && tv < 0; i++)
		if (u->views[i].tasks)
			tv = i;
	if (tv < 0) {
		ui_set_message(u, "this model has no tasks view (a view with 'rows tasks', see docs/tasks.md)");
		return false;
	}
	/* Who ran on the selected row's CPUs. */
	char text[64] = "";
	if (u->nrows > 0 && u->nav.sel >= 0 && u->nav.sel < u->nrows) {
		const struct ui_row *row = &u->rows[u->nav.sel];
		const struct topo *t = u->topo;
		switch (u->nav.rows) {
		case ROWS_CORE:
			if (row->core >= 0 && row->core < t->ncores)
				format_cpulist(text, sizeof(text), t->cores[row->core].cpus, t->cores[row->core].ncpus, true);
			break;
		case ROWS_CCX:
			snprintf(text, sizeof(text), "ccx %d", row->ccx);
			break;
		case ROWS_SOCKET:
			snprintf(text, sizeof(text), "socket %d", row->socket);
			break;
		default:
			snprintf(text, sizeof(text), "%d", row->cpu);
		}
	}
	/* The CPU views keep their own filter for when the tasks view is
	 * left; the tasks view gets the row's CPUs, or every CPU. */
	free(u->cpu_filter_kept);
	free(u->cpu_filter_text_kept);
	u->cpu_filter_kept = u->filter;
	u->cpu_filter_text_kept = u->filter_text;
	u->filter = xcalloc((size_t)u->topo->max_cpu + 1, sizeof(bool));
	u->filter_text = NULL;
	if (*text && format_parse_filter(text, u->topo, u->filter, NULL) == 0) {
		u->filter_text = xstrdup(text);
		char *msg = xasprintf("who ran on %s%s (T: back, \\ changes the filter)",
				      u->nav.rows == ROWS_CPU ? "CPU " : u->nav.rows == ROWS_CORE ? "CPUs " : "", text);
		ui_set_message(u, msg);
		free(msg);
	} else {
		format_parse_filter("", u->topo, u->filter, NULL);
	}
	free(u->task_match);
	u->task_match = NULL;
	u->task_back = u->nav.view;
	u->nav.view = tv;
	u->nav.sel = u->nav.top = 0;
	/* Busiest there first. */
	if (u->filter_text) {
		u->sort_set = true;
		u->sort_kind = COL_HERE;
		u->sort_idx = 0;
		u->nav.sort_reverse = false;
	}
	return true;
}

/* The snapshot key: the interval on screen, as JSON, to a new file. */
static void write_snapshot(struct ui *u)
{
	char *path = NULL, *cause = NULL;
	char *msg = snapfile_write(u->snap, NULL, u->extra, u->nextra, &path, &cause) == 0
		    ? xasprintf("snapshot written to %s", path) : xasprintf("snapshot: %s", cause);
	ui_set_message(u, msg);
	free(msg);
	free(path);
	free(cause);
}

/* A click or the wheel, as in htop: a column heading sorts by it (again:
 * reverses), a view tab switches to it, a row selects it; the wheel moves
 * the selection. Returns the keys_apply flags for what changed. */
int ui_handle_mouse(struct ui *u)
{
	struct ui_mouse m = ui_last_mouse();
	const struct rect *t = &u->lay.table;
	if (u->lay.too_small || !m.press)
		return 0;
	if (m.button == 64 || m.button == 65) {
		u->nav.sel += m.button == 64 ? -3 : 3;
		keys_clamp(&u->nav);
		return KA_REDRAW;
	}
	if (m.button != 0)
		return 0;
	if (m.y == t->y && t->h > 0) {
		/* vis_* is what the last frame drew; columns rebuilt since (a key
		 * while the terminal was too small to draw) must not be indexed. */
		for (int k = 0; k < u->drawn.nvis; k++)
			if (u->drawn.vis_col[k] < u->ncols && m.x >= u->drawn.vis_x[k] && m.x <= u->drawn.vis_x[k] + u->drawn.vis_w[k]) {
				if (ui_col_info(u->cols[u->drawn.vis_col[k]].kind)->bar)
					return 0;
				/* A new column in its own direction; the same one reversed. */
				u->nav.sort_reverse = u->nav.sort_col == u->drawn.vis_col[k] && !u->nav.sort_reverse;
				u->nav.sort_col = u->drawn.vis_col[k];
				ui_remember_sort(u);
				return KA_REDRAW;
			}
		return 0;
	}
	if (m.y > t->y && m.y < t->y + t->h) {
		int ri = u->nav.top + (m.y - t->y - 1);
		if (ri < u->nrows) {
			u->nav.sel = ri;
			keys_clamp(&u->nav);
		}
		return KA_REDRAW;
	}
	if (m.y == u->drawn.tab_y) {
		for (int i = 0; i < u->nviews && i < 64; i++)
			if (u->drawn.tab_x0[i] >= 0 && m.x >= u->drawn.tab_x0[i] && m.x < u->drawn.tab_x1[i] && i != u->nav.view) {
				u->nav.view = i;
				return KA_REQUEST;
			}
	}
	return 0;
}

/* Handles one key; returns false to quit. */
/* The dialogs and the actions that need the screen (KA_DIALOG), each a
 * function of the key's binding returning more KA_* flags for the caller
 * to act on, in one table by action. */
static int act_help(struct ui *u, const struct key_binding *b)
{
	(void)b;
	dialog_help(u);
	return 0;
}

static int act_view_key(struct ui *u, const struct key_binding *b)
{
	int v = view_for_digit(u, b->arg);
	if (v >= 0 && v != u->nav.view) {
		u->nav.view = v;
		return KA_REQUEST;
	}
	if (v < 0) {
		/* Not silently nothing: say which keys there are. */
		char *msg = xasprintf("no view on key %d: h lists the views and their keys, Tab steps through them",
				      b->arg);
		ui_set_message(u, msg);
		free(msg);
	}
	return 0;
}

static int act_event_picker(struct ui *u, const struct key_binding *b)
{
	(void)b;
	int e = dialog_pick_event(u);
	if (e < 0)
		return 0;
	ui_add_extra(u, e);
	/* A tasks view keeps its own columns: say where the event went. */
	if (ui_tasks_view(u)) {
		char *msg = xasprintf("%s: a column of the CPU views now (T or Tab shows them); "
				      "the tasks view keeps its own columns", u->m->events[e].name);
		ui_set_message(u, msg);
		free(msg);
	}
	return KA_REQUEST;
}

static int act_del_column(struct ui *u, const struct key_binding *b)
{
	(void)b;
	del_extra(u);
	return KA_REQUEST;
}

static int act_sort_pick(struct ui *u, const struct key_binding *b)
{
	(void)b;
	int c = dialog_pick_sort(u);
	if (c >= 0) {
		u->nav.sort_col = c;
		ui_remember_sort(u);
	}
	return 0;
}

static int act_filter(struct ui *u, const struct key_binding *b)
{
	(void)b;
	do_filter(u);
	return 0;
}

static int act_search(struct ui *u, const struct key_binding *b)
{
	(void)b;
	do_search(u);
	return 0;
}

static int act_search_step(struct ui *u, const struct key_binding *b)
{
	search_step(u, b->action == ACT_SEARCH_NEXT ? 1 : -1, false);
	return 0;
}

static int act_seek(struct ui *u, const struct key_binding *b)
{
	ui_seek_action(u, b->action);
	return 0;
}

static int act_detail(struct ui *u, const struct key_binding *b)
{
	(void)b;
	if (ui_tasks_view(u))
		ui_set_message(u, "the detail pane shows a CPU, core, CCX or socket row: T goes back to them");
	else
		ui_detail_open(u);
	return 0;
}

static int act_tasks(struct ui *u, const struct key_binding *b)
{
	(void)b;
	return show_tasks(u) ? KA_REQUEST : 0;
}

static int act_snapshot(struct ui *u, const struct key_binding *b)
{
	(void)b;
	write_snapshot(u);
	return 0;
}

static int act_setup(struct ui *u, const struct key_binding *b)
{
	(void)b;
	return setup_screen(u);
}

static const struct {
	enum ui_action action;
	int (*run)(struct ui *u, const struct key_binding *b);
} dialog_actions[] = {
	{ ACT_HELP, act_help },
	{ ACT_VIEW_KEY, act_view_key },
	{ ACT_EVENT_PICKER, act_event_picker },
	{ ACT_DEL_COLUMN, act_del_column },
	{ ACT_SORT_PICK, act_sort_pick },
	{ ACT_FILTER, act_filter },
	{ ACT_SEARCH, act_search },
	{ ACT_SEARCH_NEXT, act_search_step },
	{ ACT_SEARCH_PREV, act_search_step },
	{ ACT_STEP_BACK, act_seek },
	{ ACT_STEP_FWD, act_seek },
	{ ACT_JUMP, act_seek },
	{ ACT_DETAIL, act_detail },
	{ ACT_TASKS, act_tasks },
	{ ACT_SNAPSHOT, act_snapshot },
	{ ACT_SETUP, act_setup },
};

/* Runs the dialog action of binding b; returns its KA_* flags. */
static int run_dialog_action(struct ui *u, const struct key_binding *b)
{
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(dialog_actions); i++)
		if (dialog_actions[i].action == b->action) {
			r = dialog_actions[i].run(u, b);
			break;
		}
	clearok(stdscr, TRUE);
	return r;
}

/* What the flags of a key (keys_apply and its dialog) ask of the columns,
 * the sampler or the recording. */
static void apply_flags(struct ui *u, int r)
{
	if (r & KA_REQUEST) {
		ui_left_tasks(u);
		ui_build_columns(u);
		/* A source that makes the interval shown again with the new
		 * figures has them now; a live one, with its next interval. */
		if (!ui_request(u) && u->nav.paused)
			ui_set_message(u, "paused: figures the last interval did not count come when you resume (Space)");
	}
	if (r & KA_ROWS)
		ui_build_columns(u);
	/* In a replay the delay is how long each interval stays on screen. */
	if (r & KA_INTERVAL)
		source_set_interval(u->src, u->nav.interval_s);
	if (r & KA_PAUSE)
		source_pause(u->src, u->nav.paused);
	if (r & KA_CLEAR)
		clearok(stdscr, TRUE);
}

bool ui_handle_key(struct ui *u, int key)
{
	if (key == UK_RESIZE)
		return true;
	if (key == UK_MOUSE) {
		if (ui_handle_mouse(u) & KA_REQUEST) {
			ui_left_tasks(u);
			ui_build_columns(u);
			ui_request(u);
		}
		return true;
	}
	if (ui_detail_key(u, key) || ui_fleet_drill_key(u, key))
		return true;
	const struct key_binding *b = keys_lookup(key);
	if (!b)
		return true;
	if (b->action == ACT_TOGGLE_THREADS && ui_tasks_view(u)) {
		/* A tasks view's rows are processes or cgroups. */
		u->task_cgroups = !u->task_cgroups;
		u->task_tree = false;
		u->nav.sel = u->nav.top = 0;
		ui_build_columns(u);
		return true;
	}
	if (b->action == ACT_TASK_TREE) {
		/* htop's F5: the cgroups as a tree, their processes beneath. */
		if (!ui_tasks_view(u)) {
			ui_set_message(u, "F5: the cgroup tree is in the tasks view (T on a row, or -g tasks)");
			return true;
		}
		u->task_tree = !u->task_tree;
		u->task_cgroups = false;
		u->nav.sel = u->nav.top = 0;
		ui_build_columns(u);
		return true;
	}
	/* Where the delay is a replay's pace, + and - are the speed, as the
	 * header's "x2" says: + faster (a shorter stay per interval), -
	 * slower. */
	if (u->src->ops->interval_is_pace && (b->action == ACT_INTERVAL_UP || b->action == ACT_INTERVAL_DOWN))
		b = keys_lookup(b->action == ACT_INTERVAL_UP ? '-' : '+');
	int sort_before = u->nav.sort_col;
	int r = keys_apply(&u->nav, b);
	if (r & KA_QUIT)
		return false;
	if (u->nav.sort_col != sort_before)
		ui_remember_sort(u);
	if (r & KA_DIALOG)
		r |= run_dialog_action(u, b);
	apply_flags(u, r);
	return true;
}

void ui_detail_open(struct ui *u)
{
	if (u->nrows < 1 || u->nav.sel < 0 || u->nav.sel >= u->nrows) {
		ui_set_message(u, "no row to show (the filter hides every CPU)");
		return;
	}
	const struct ui_row *row = &u->rows[u->nav.sel];
	/* A socket row's id is its index in the topology, as derive.c
	 * numbers socket rows. */
	int ids[SNAP_NSCOPES] = { row->cpu, row->core, row->ccx, topo_socket_index(u->topo, row->socket), 0 };
	detail_open(&u->detail, ui_rows_scope(u), ids, ui_spark_metric(u, NULL));
}

bool ui_detail_key(struct ui *u, int key)
{
	/* The panels that take keys (the detail pane, while it is open). */
	for (int i = 0; i < u->npanels; i++) {
		int r = u->panels[i].ops->key ? u->panels[i].ops->key(&u->panels[i], u, key) : PANEL_KEY_PASS;
		if (r & PANEL_KEY_REQUEST)
			ui_request(u);
		if (r != PANEL_KEY_PASS)
			return true;
	}
	return false;
}
