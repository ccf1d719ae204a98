/* ui_impl.h: state shared by the files of the dashboard (ui.c: the loop;
 * term.c: the terminal; figures.c, cells.c, columns.c, rows.c, state.c:
 * what a row shows, the column kinds and cells, the table's columns and
 * rows and what is kept between frames, beneath the panels; row_keys.c:
 * the rows' sort keys; actions.c: keys and clicks; views.c: views and
 * settings; draw.c: the frame, paint.c its helpers, panel_*.c the panels
 * and panels.c their list, see panel.h; dialog.c: help, pickers, prompt).
 * Private to ui/. */
#ifndef PMCTOP_UI_UI_IMPL_H
#define PMCTOP_UI_UI_IMPL_H

#include <stdbool.h>
#include <string.h>
#include "detail.h"
#include "history.h"
#include "keys.h"
#include "layout.h"
#include "mouse.h"
#include "ui.h"

/* What drawing a frame yields besides the screen: the panels record it
 * while they draw (as tmux records click ranges), and it is returned, not
 * kept in the state they draw from. */
struct frame {
	double min_cov;              /* lowest coverage among the values drawn; > 1: none */
	/* Where a click can hit: the table's visible columns and the view
	 * tabs (x ranges; tab -1: not drawn). */
	int nvis, vis_col[256], vis_x[256], vis_w[256];
	int tab_y, tab_x0[64], tab_x1[64];
};

enum col_kind { COL_CPU, COL_CORE, COL_CCX, COL_SOCKET, COL_METRIC, COL_EVENT, COL_BAR,
		/* A tasks view's rows: pid (or processes of a cgroup), name, cgroup, CPUs it ran on,
		 * and with a CPU filter its CPU% on those CPUs alone. */
		COL_PID, COL_COMM, COL_CGROUP, COL_WHERE, COL_HERE, COL_HOST, COL_STATUS };

struct ui;
struct ui_col;
struct panel_ops;

/* A panel: its ops (panel.h) and its own state (its metrics...). */
struct panel {
	const struct panel_ops *ops;
	void *st;
};
struct ui_row;

/* What each kind of column is, in one place (col_kinds in cells.c):
 * the table, its headings and the sort read it from there. */
/* cells.c: a fleet's host of a row (NULL: none), and what its STATUS
 * says ("SIMULATED", "ok" or why its figures are '-'). */
const struct snap_host *ui_row_host(const struct ui *u, const struct ui_row *row);
const char *ui_host_state(const struct snap_host *h);

struct col_kind_info {
	bool descending;             /* sorts busiest first (values); R reverses */
	bool left;                   /* text, aligned left (names, CPU lists) */
	bool figure;                 /* a measured figure: u shows its uncertainty */
	bool bar;                    /* the topdown bar: drawn across its width, not a cell; not sorted by */
	bool by_name;                /* sorts by its text (a tasks view's names) */
	char search;                 /* the search (/) finds a row by it: '=' its text exactly,
	                              * '~' text it holds, 0 not searched */
	/* Its cell's text in buf (len bytes), with *level (format_level) and
	 * *cov (the figure's coverage) where it holds a figure. */
	const char *(*cell)(const struct ui *u, const struct ui_col *c, const struct ui_row *row, char *buf, int len,
			    int *level, double *cov);
	/* A row's sort key by it (NaN: none). */
	double (*key)(const struct ui *u, const struct ui_col *c, const struct ui_row *row);
};
const struct col_kind_info *ui_col_info(enum col_kind k);

struct ui_col {
	enum col_kind kind;
	int idx;                     /* metric or event index */
	const struct view_col *vc;   /* format and thresholds, or NULL */
	char title[48];              /* whole: an event's name and "/s" */
	/* The heading with its unit where the title lacks it ("IPC
	 * insn/cyc"), drawn where every column fits with it; "": the title
	 * says it already. */
	char wide[64];
	int width;
	bool scrolls;                /* after the fixed columns: moves with Left/Right */
	/* A metric defined only for wider groups than the rows (an L3 figure
	 * per CCX in a CPU row): the scope (enum snap_scope) whose row's
	 * figure each row shows, its group's; -1: the row's own. */
	int from;
	/* Shown only where the width leaves room for it whole, after every
	 * other column (a wide terminal's more of the view: the rates of
	 * the events the plan counts anyway); never scrolled to. */
	bool fill;
};

/* One table row: a CPU, or a physical core, CCX or socket (nav.rows). */
struct ui_row {
	int cpu;                     /* CPU number, or the first CPU of the row's group */
	int core, ccx, socket;       /* -1 where the row spans several */
	const struct snap_row *r;    /* values in the current snapshot, or NULL */
	const struct snap_task *task;  /* a tasks view's row: a process or cgroup, else NULL */
	/* Its key for the sort column, worked out before the rows are sorted
	 * (rows.c): a number (NaN: last either way), or a name's text. */
	double key;
	const char *key_text;
	signed char key_dir;         /* 1: ascending, -1: descending (the same in every row) */
	int depth;                   /* F5's cgroup tree: how deep the row is (0: a root) */
};

/* Colour pairs; in monochrome only attributes are used. */
enum { CP_HEAD = 1, CP_WARN, CP_CRIT, CP_GOOD, CP_BAR0, CP_BAR1, CP_BAR2, CP_BAR3, CP_BAR4,
       CP_TITLE, CP_NOTICE, CP_SEL, CP_KEY, CP_COUNT };

struct ui {
	const struct ui_config *cfg;
	const struct model *m;
	struct topo *topo;
	struct topo *topo_grown;   /* a fleet's topology made larger (fleet_rows.c), or NULL */
	struct snap_ring ring;
	/* The interval on screen: read only (a published snapshot never
	 * changes); the loop (ui.c) owns it as snap_owned, which it frees. */
	const struct snapshot *snap;
	struct snapshot *snap_owned;
	struct snapshot *pending;    /* came while a dialog was open, in the history already */
	struct ui_nav nav;
	bool color;
	int scheme;                  /* enum settings_colors (colors.c) */
	struct layout lay;

	int nextra; int *extra;      /* event columns (-e and the picker) */
	bool *filter;                /* [topo->max_cpu] rows kept by '/' */
	char *filter_text;
	char *search_text;           /* what / (F3) looks for; n and N again */
	char *message;               /* transient line (bad filter...) */
	char *first_notice;          /* the sampler's notice before the first snapshot */
	double message_until;
	bool redraw;                 /* something changed off the keyboard (a message) */

	/* Metrics found by name; -1 where the model lacks them. Only those
	 * several parts share are here: utilisation, clock and IPC are the
	 * table's fixed columns, the header's system line, the CCX boxes and
	 * the fallback of the sparklines. A panel's own figures (the CCX
	 * panel's L3, the memory and power panels') are in its state. */
	int m_util, m_ghz, m_ipc;

	/* The panels (panel.h, panels.c), in drawing order. */
	int npanels; struct panel *panels;

	/* The model's views, and after them a view made of the metric group
	 * that -g named, when it named a group rather than a view. */
	int nviews; struct view_def *views;
	bool has_group_view; struct view_def group_view;

	/* Where the intervals come from (source.h): the dashboard asks it
	 * for figures, pauses it and moves through it, never knowing which
	 * it is. tell_missing: say which of the view's metrics it lacks
	 * when the next interval comes (seek.c). */
	struct source *src;
	bool tell_missing;

	/* A tasks view (view_def.tasks): rows of processes, or of cgroups
	 * ('t'); the text the filter matches in names and cgroups; the view
	 * to go back to ('T'); whether the sampler samples per task. */
	bool task_cgroups;
	bool task_tree;              /* F5: the cgroup tree, each cgroup's processes beneath it */
	char *task_match;
	int task_back;
	/* The CPU views' own filter while T's drill-down puts its CPUs in
	 * filter and filter_text: put back when the tasks view is left
	 * (by T, Tab, a digit or a click), as htop keeps a screen's filter. */
	bool *cpu_filter_kept;
	char *cpu_filter_text_kept;
	bool tasks_requested;
	char *tasks_why;             /* why the source has no per-task figures, or NULL */

	int ncols; struct ui_col *cols;
	bool sort_set;               /* the user chose a sort column: */
	enum col_kind sort_kind;     /* which, by kind and index, kept across views */
	int sort_idx;
	int nrows, rows_cap; struct ui_row *rows;

	struct history hist;         /* figures of the last intervals (history.h) */
	struct detail detail;        /* the detail pane (Enter) */
	bool utf8;                   /* the locale is UTF-8: graphs in block elements */

	struct frame drawn;          /* what the last frame drew: kept by the loop, for clicks */

	/* The rows whose errors the frame being drawn read (err_read), and
	 * those the sampler was last told of (err_told): it finds theirs
	 * with each interval, the others' when a frame reads them
	 * (figures.c: ui_errors_*). */
	bool *err_read[SNAP_NSCOPES], *err_told[SNAP_NSCOPES];
	int err_nrows[SNAP_NSCOPES];
	bool err_told_any;

	/* A fleet drilled into one host (fleet_drill.c): its name (NULL: the
	 * hosts), and the hosts' sort, filter and selection to go back to. */
	char *drill_host;
	struct ui_nav drill_nav;
	bool drill_sort_set;
	enum col_kind drill_sort_kind;
	int drill_sort_idx;
	char *drill_match;
};

/* fleet_drill.c: Enter on a fleet's host goes into it, Esc or Backspace
 * back (true: the key was that); whether snapshot s is of what the
 * screen shows now (the hosts, or the host drilled into); the state freed. */
bool ui_fleet_drill_key(struct ui *u, int key);
bool ui_fleet_drill_takes(struct ui *u, const struct snapshot *s);
void ui_fleet_drill_free(struct ui *u);
/* A drilled host's first snapshot brings the host's past figures (the
 * system row's: query_range, or direct mode's kept refreshes): put in the
 * history before it while the history is empty, so that the sparklines
 * have them from the first frame. */
void ui_fleet_drill_history(struct ui *u, const struct snapshot *s);
/* The drilled host's topology (its CPUs from its series' labels), or
 * NULL: not drilled, or the host's rows are not CPUs with a ccx label. */
const struct topo *ui_fleet_drill_topo(const struct ui *u);

/* figures.c: what a row shows (no curses). */
/* The view shown, or NULL. */
const struct view_def *ui_cur_view(const struct ui *u);
/* Whether the current view has a row per process (tasks.h). */
bool ui_tasks_view(const struct ui *u);
void ui_left_tasks(struct ui *u);
/* Whether the row filter ('/') and -C keep CPU cpu. */
bool ui_cpu_shown(const struct ui *u, int cpu);
/* A tasks view's first figure (CPU%) counted on the CPUs the filter
 * shows only: the task's share of its samples there times the figure. */
double ui_task_here(const struct ui *u, const struct snap_task *t);
const struct snap_row *ui_scope_row(const struct snapshot *s, enum snap_scope sc, int id);
/* A metric of a row, with its coverage and relative standard error (each
 * may be NULL). */
double ui_metric(const struct ui *u, const struct snap_row *r, int metric, double *cov, double *rse);
/* The L3 accesses per second of a row (the CCX panel's "L3" figure), with
 * its coverage and uncertainty, from metric rate (per second) where the
 * model has one, else from the access count acc; NaN where it has
 * neither. */
double ui_l3_rate(const struct ui *u, int rate, int acc, const struct snap_row *r, double *cov, double *rse);
/* An event's relative standard error in a row of u->snap. */
double ui_event_rse(const struct ui *u, const struct snap_row *r, int e);
/* Around drawing a frame: which rows' errors it reads is noted, and
 * when that changed the source is told (source_hint_rows: a hint of
 * which rows to find at once). */
void ui_errors_frame_begin(struct ui *u);
void ui_errors_frame_end(struct ui *u);
void ui_errors_done(struct ui *u);

/* columns.c: the table's columns (no curses). */
/* The metrics the screen's parts share, found by name (u->m_util...). */
void ui_find_metrics(struct ui *u);
/* The first of several names (NULL-terminated) that the model defines as
 * a metric, or -1 (the panels find theirs with it). */
int ui_find_metric(const struct model *m, const char *const *names);
void ui_build_columns(struct ui *u);
/* Keeps the sort column by kind and index, across views. */
void ui_remember_sort(struct ui *u);
/* Whether a metric can only show '-' here: the model lacks it, or the
 * last figures were planned with it and still lack one of its events (a
 * PMU this machine does not have). The table, header and CCX boxes leave
 * such a figure out. */
bool ui_metric_unmeasured(const struct ui *u, int metric);
/* Whether the last figures counted any hardware event (a core or uncore
 * PMU's): without a PMU (a VM) only software events and /proc/stat are
 * read, nothing rotates and every coverage is 100 %. True before the
 * first figures. */
bool ui_counts_hardware(const struct ui *u);
/* A metric's heading, the same in the table, the graphs and the detail
 * pane: "util%" and "GHz" for the fixed columns, else the label with its
 * unit (format_heading). */
void ui_metric_heading(const struct ui *u, int metric, char *buf, size_t len);

/* rows.c: the table's rows, filter and order (no curses). */
void ui_build_rows(struct ui *u);
/* row_keys.c: each row's key for the sort column (and the direction), before a sort. */
void ui_sort_keys(struct ui *u);
/* row_keys.c: a fleet's row (--fleet) the filter keeps: its host holds the
 * text in its name, model or status; a row of no host (room for more) is
 * never shown. */
bool ui_host_shown(const struct ui *u, const struct ui_row *row);
/* row_keys.c: whether a tasks view shows process (or cgroup) t: the filter keeps it. */
bool ui_task_shown(const struct ui *u, const struct snap_task *t);
/* The snapshot scope of the table's rows (nav.rows). */
enum snap_scope ui_rows_scope(const struct ui *u);
/* "per CPU", "per core", "per CCX" (or the model's L3 domain), "per socket". */
const char *ui_rows_name(const struct ui *u);

/* task_tree.c: F5's cgroup tree (no curses). */
/* A tasks view's rows as the tree: the cgroups (snap->cgtree) that hold a
 * shown process, and the shown processes, sorted (row_cmp) and put in tree
 * order, each row's depth set. */
void ui_task_tree_rows(struct ui *u, int (*cmp)(const void *, const void *));
/* Puts rows[0..n-1] in tree order: each row after its parent (parent[i]:
 * the index of row i's parent, -1 for a root), the children of a row in
 * their order in rows; sets each row's depth. */
void ui_tree_order(struct ui_row *rows, int n, const int *parent);
/* The last part of a cgroup path ("/a/b": "b"; "/": "/"). */
static inline const char *ui_cgroup_leaf(const char *path)
{
	if (!path)
		return NULL;
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/* term.c: the terminal. */
/* Gives the terminal back as it was (idempotent; async-signal-safe). */
void ui_restore(void);
/* Installs (or removes) the handlers of stop, suspend and fatal signals. */
void ui_signals(bool install);
/* Starts curses on the terminal, with the colours and the mouse. */
int ui_screen_init(struct ui *u, char **cause);
/* Gives the terminal back and ends curses (after ui_screen_init). */
void ui_screen_done(void);
int ui_getkey(void);
/* The last mouse report (UK_MOUSE), decoded by mouse.c. */
struct ui_mouse ui_last_mouse(void);
bool ui_stopping(void);          /* a stop signal arrived */

/* actions.c: keys and clicks. */
/* A mouse report: the key it stands for, or 0 when it was handled. */
int ui_handle_mouse(struct ui *u);
/* One key; false: quit. */
bool ui_handle_key(struct ui *u, int key);
/* Adds event e's column (-e and the picker). */
void ui_add_extra(struct ui *u, int e);
/* Enter opens the detail pane on the selected row; with the pane open,
 * its keys go to ui_detail_key first (false: not one of its). */
void ui_detail_open(struct ui *u);
bool ui_detail_key(struct ui *u, int key);

/* views.c: views, settings, the request for figures, the message line. */
/* The views from the model (at start, and after the view editor changed
 * them), then the -g group's view if there is one; shows view name, or
 * the first if it is gone. */
void ui_views_reload(struct ui *u, const char *name);
/* Adds -g GROUP's view of the group's metrics; false if it has none. */
bool ui_add_group_view(struct ui *u, const char *group);
/* The saved settings before the columns exist (view, rows, panels) and
 * the sort column after them. */
void ui_apply_settings_early(struct ui *u);
void ui_apply_settings_sort(struct ui *u);
/* Asks the source for what the screen shows; true when the interval on
 * screen is made again with it at once (source_request). */
bool ui_request(struct ui *u);

/* ui.c: the loop; its set-up and tear-down apart, for bench_frame. */
/* The dashboard's state for c before the screen starts: the views, the
 * saved settings, the columns and the first request for figures. -1
 * with *cause for a view or group the model lacks. */
int ui_init(struct ui *u, const struct ui_config *c, char **cause);
void ui_done(struct ui *u);

/* state.c: what panels and dialogs change between frames. */
void ui_set_message(struct ui *u, const char *msg);
/* Keeps a new snapshot's figures in u->hist (the sparklines and the
 * detail pane draw from it) and says so when the history had to start
 * again because the interval length changed. A replay that jumps or
 * steps back fills it again from the file first (source_replay.c). */
void ui_history_add(struct ui *u, const struct snapshot *s);
/* A key for a dialog (help, pickers, prompts, setup, view editor): the
 * figures that come while it is open still go into the history, so the
 * graphs have no gap for the time it was open; the newest of them is
 * shown when it closes (u->pending). */
/* The intervals the sampler published since the last call: each one but
 * the latest goes into the history; the latest is returned (or NULL). */
struct snapshot *ui_pop_snapshots(struct ui *u);
int ui_dialog_getkey(struct ui *u);

/* seek.c: [, ] and j on a source that moves through its intervals (a
 * recording); elsewhere they say where they work. */
void ui_seek_action(struct ui *u, enum ui_action a);
/* The view's metrics the source cannot give, said once after a request. */
void ui_tell_missing(struct ui *u, const struct snapshot *s);

/* draw.c: lays out a frame (the panels' room and navigation), then
 * draws it, and says what it drew in *f. */
void draw_screen(struct ui *u, struct frame *f);

/* panels.c: the panels' state (at start, after the metrics are found;
 * freed by ui_done), and the metrics they read and pin, appended to
 * metrics[*n] and pins[*np] (room for every metric of the model). */
void ui_panels_init(struct ui *u);
void ui_panels_free(struct ui *u);
void ui_panels_needs(const struct ui *u, int *metrics, int *n, int *pins, int *np);
/* cells.c: a cell's text, its level (format_level) and the coverage of the
 * figure in it (NaN: none). */
const char *draw_cell(const struct ui *u, const struct ui_col *c, const struct ui_row *row,
		      char *buf, int len, int *level, double *cov);



/* panel_detail.c: the metrics the detail pane lists now, in its order
 * (caller frees). */
int *ui_detail_metrics(const struct ui *u, int *n);

/* colors.c: sets the colour pairs of a scheme (enum settings_colors), and
 * the attribute of a pair (mono on a screen without colour). */
void ui_colors_apply(struct ui *u, int scheme);
int ui_attr(const struct ui *u, int pair, int mono);

/* setup.c: the setup screen (F2): delay, view, colours, rows, panels,
 * uncertainty, applied at once and saved to pmctoprc on request. Returns
 * keys_apply flags for what the caller must redo. */
int setup_screen(struct ui *u);

/* view_editor.c: makes a view of the user's own from the current one, or
 * changes or removes the current one if it is the user's; saved to the
 * user's views file (evdef_user.h). Returns keys_apply flags. */
int view_editor(struct ui *u);

/* dialog.c */
void dialog_help(struct ui *u);
int dialog_pick_event(struct ui *u);      /* event index, or -1 */
int dialog_pick_metric(struct ui *u);     /* metric index, or -1 */
int dialog_pick_sort(struct ui *u);       /* column index, or -1 */
char *dialog_prompt(struct ui *u, const char *label, const char *init); /* NULL: cancelled */

/* fleet_rows.c: a fleet's rows made room for when a snapshot has more
 * hosts (or a drilled host more rows) than the topology has CPUs. */
void ui_fleet_grow(struct ui *u);

#endif
