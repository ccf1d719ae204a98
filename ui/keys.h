/* keys.h: the dashboard's keys as a const key -> action table, and the pure
 * part of what the actions do to the navigation state. Key codes are
 * pmctop's own (printable characters are themselves), so the table and its
 * tests need no curses; ui.c translates curses key codes into these. */
#ifndef PMCTOP_UI_KEYS_H
#define PMCTOP_UI_KEYS_H

#include <stdbool.h>

enum {
	UK_BASE = 0x110000,   /* above every Unicode code point */
	UK_UP, UK_DOWN, UK_LEFT, UK_RIGHT, UK_PGUP, UK_PGDN, UK_HOME, UK_END,
	UK_BTAB, UK_DELETE, UK_ENTER, UK_ESC, UK_BACKSPACE, UK_RESIZE,
	UK_F1, UK_F2, UK_F3, UK_F4, UK_F5, UK_F6, UK_F7, UK_F8, UK_F9, UK_F10,
	UK_MOUSE,             /* a mouse report: ui_last_mouse() says what */
};
#define UK_CTRL(c) ((c) & 0x1f)

enum ui_action {
	ACT_NONE,
	ACT_QUIT,
	ACT_HELP,
	ACT_VIEW_NEXT, ACT_VIEW_PREV,
	ACT_VIEW_KEY,         /* arg: the digit 1-9 */
	ACT_EVENT_PICKER,
	ACT_DEL_COLUMN,
	ACT_SORT_LEFT, ACT_SORT_RIGHT, ACT_SORT_PICK, ACT_SORT_REVERSE,
	ACT_TOGGLE_CCX, ACT_FLEET_GROUP, ACT_TOGGLE_THREADS, ACT_TOGGLE_ERRORS,
	ACT_PAUSE,
	ACT_INTERVAL_UP, ACT_INTERVAL_DOWN,
	ACT_FILTER,
	ACT_UP, ACT_DOWN, ACT_PGUP, ACT_PGDN, ACT_HOME, ACT_END,
	ACT_LEFT, ACT_RIGHT,
	ACT_REDRAW,
	ACT_STEP_BACK, ACT_STEP_FWD, ACT_JUMP,   /* replay (-r) only */
	ACT_DETAIL,           /* Enter: the detail pane of the selected row */
	ACT_SNAPSHOT,         /* write this interval as JSON to a file */
	ACT_SETUP,            /* F2: the setup screen (setup.c) */
	ACT_TASKS,            /* T: who ran (the tasks view) on the selected row's CPUs, and back */
	ACT_FOLLOW,           /* F: the selection follows its row (CPU, process) as rows re-sort */
	ACT_SEARCH,           /* / F3: select the next row that matches a text (rows stay) */
	ACT_SEARCH_NEXT, ACT_SEARCH_PREV,   /* n, N: again, forward or back */
	ACT_TASK_TREE,        /* F5: in a tasks view, the cgroup tree with its processes (on/off) */
	ACT_COUNT
};

struct key_binding {
	int key;
	enum ui_action action;
	int arg;
	const char *name;     /* as the help screen prints it */
	const char *help;     /* NULL: same line as the previous entry */
};

extern const struct key_binding keys_table[];
extern const int keys_count;

/* The binding of key, or NULL: unknown keys do nothing. */
const struct key_binding *keys_lookup(int key);

/* What the keys move around; pure data so that tests can drive it. */
/* The table's rows: each CPU, physical core, CCX (L3 domain) or socket. */
enum ui_rows_kind { ROWS_CPU, ROWS_CORE, ROWS_CCX, ROWS_SOCKET, ROWS_KINDS };

struct ui_nav {
	int view, nviews;
	int sort_col, ncols;      /* ncols: columns in the table now */
	bool sort_reverse;
	bool show_ccx;
	int group;                /* a fleet: the label its hosts are grouped by (g cycles; 0: off) */
	int rows;                 /* what a table row is: enum ui_rows_kind (t cycles) */
	bool show_err;            /* each figure with its 95 % uncertainty (+-N%) */
	bool paused;
	bool follow;              /* F: the selection stays on its CPU or process, else on its line */
	double interval_s;
	int sel, nrows;           /* selected row, and rows in the table */
	int top, page;            /* first row shown; rows per page */
	int hscroll, nhscroll;    /* first scrollable column; how many there are */
};

/* What the caller must do after keys_apply. */
enum {
	KA_NONE = 0,
	KA_REDRAW = 1 << 0,
	KA_REQUEST = 1 << 1,      /* view changed: source_request */
	KA_INTERVAL = 1 << 2,     /* delay changed: source_set_interval */
	KA_PAUSE = 1 << 3,        /* pause toggled: source_pause */
	KA_ROWS = 1 << 4,         /* row set changed (per core toggle) */
	KA_QUIT = 1 << 5,
	KA_DIALOG = 1 << 6,       /* help, pickers, filter, detail, snapshot: handled by the screen */
	KA_CLEAR = 1 << 7,        /* redraw the whole terminal */
};

/* Applies a binding's action to nav. Returns KA_* flags. */
int keys_apply(struct ui_nav *nav, const struct key_binding *b);
/* Keeps sel/top/sort/view inside their ranges after a count changed. */
void keys_clamp(struct ui_nav *nav);
/* The next refresh delay up (dir > 0) or down from cur. */
double keys_interval_step(double cur, int dir);
/* A printable name for a key code ("q", "F10", "Tab"), into buf. */
const char *keys_name(int key, char *buf, int len);

#endif
