/* curses_dl.c: the ncurses functions the dashboard calls, by their own
 * names, passing each call on to libncursesw (and the libtinfo it brings)
 * loaded when the dashboard starts (src/lib_dl.h): a batch run, the
 * exporter and the listings never draw, and linked, the two libraries'
 * mapping, relocation and symbol look-ups cost each of their starts some
 * 0.13 ms of CPU (docs/performance.md, issue 39).
 *
 * The variables curses.h declares and the dashboard reads (stdscr, LINES,
 * COLS, COLORS, COLOR_PAIRS, acs_map) are pmctop's own here: after each
 * call they are copied from the library's, which the call may have
 * changed (newterm sets them all, start_color the colours, a resize seen
 * by wgetch the size). Only pmctop links this file: the tests that draw
 * (check_panels, bench_frame) link ncurses itself. Unloaded, newterm
 * fails (NULL: the dashboard says it cannot use the terminal) and the
 * rest answer ERR, or nothing. */
#include "config.h"

#include <curses.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "lib_dl.h"
#include "util.h"

#ifndef CURSES_DL_SONAME
#define CURSES_DL_SONAME "libncursesw.so.6"
#endif

WINDOW *stdscr;
int LINES, COLS, COLORS, COLOR_PAIRS;
chtype acs_map[128];

static __typeof__(clearok) *p_clearok;
static __typeof__(delscreen) *p_delscreen;
static __typeof__(endwin) *p_endwin;
static __typeof__(has_colors) *p_has_colors;
static __typeof__(init_pair) *p_init_pair;
static __typeof__(newterm) *p_newterm;
static __typeof__(noecho) *p_noecho;
static __typeof__(nonl) *p_nonl;
static __typeof__(set_escdelay) *p_set_escdelay;
static __typeof__(start_color) *p_start_color;
static __typeof__(ungetch) *p_ungetch;
static __typeof__(use_default_colors) *p_use_default_colors;
static __typeof__(waddch) *p_waddch;
static __typeof__(waddnstr) *p_waddnstr;
static __typeof__(wattr_off) *p_wattr_off;
static __typeof__(wattr_on) *p_wattr_on;
static __typeof__(wclrtoeol) *p_wclrtoeol;
static __typeof__(werase) *p_werase;
static __typeof__(wgetch) *p_wgetch;
static __typeof__(whline) *p_whline;
static __typeof__(wmove) *p_wmove;
static __typeof__(wrefresh) *p_wrefresh;
static __typeof__(wvline) *p_wvline;
static __typeof__(cbreak) *p_cbreak;
static __typeof__(curs_set) *p_curs_set;
static __typeof__(keypad) *p_keypad;
static __typeof__(napms) *p_napms;
static __typeof__(tigetstr) *p_tigetstr;
static __typeof__(wtimeout) *p_wtimeout;
/* The library's variables. */
static WINDOW **p_stdscr;
static int *p_LINES, *p_COLS, *p_COLORS, *p_COLOR_PAIRS;
static chtype *p_acs_map;

static const struct lib_dl_slot slots[] = {
	LIB_DL_SLOT(clearok), LIB_DL_SLOT(delscreen), LIB_DL_SLOT(endwin), LIB_DL_SLOT(has_colors),
	LIB_DL_SLOT(init_pair), LIB_DL_SLOT(newterm), LIB_DL_SLOT(noecho), LIB_DL_SLOT(nonl),
	LIB_DL_SLOT(set_escdelay), LIB_DL_SLOT(start_color), LIB_DL_SLOT(ungetch),
	LIB_DL_SLOT(use_default_colors), LIB_DL_SLOT(waddch), LIB_DL_SLOT(waddnstr), LIB_DL_SLOT(wattr_off),
	LIB_DL_SLOT(wattr_on), LIB_DL_SLOT(wclrtoeol), LIB_DL_SLOT(werase), LIB_DL_SLOT(wgetch),
	LIB_DL_SLOT(whline), LIB_DL_SLOT(wmove), LIB_DL_SLOT(wrefresh), LIB_DL_SLOT(wvline),
	LIB_DL_SLOT(cbreak), LIB_DL_SLOT(curs_set), LIB_DL_SLOT(keypad), LIB_DL_SLOT(napms),
	LIB_DL_SLOT(tigetstr), LIB_DL_SLOT(wtimeout), LIB_DL_SLOT(stdscr), LIB_DL_SLOT(LINES),
	LIB_DL_SLOT(COLS), LIB_DL_SLOT(COLORS), LIB_DL_SLOT(COLOR_PAIRS), LIB_DL_SLOT(acs_map),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char *why;   /* why not, once tried */

static void load(void)
{
	loaded = lib_dl_load(CURSES_DL_SONAME, slots, ARRAY_SIZE(slots), "the dashboard", "libncursesw6",
			     &why);
}

static bool ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

/* The library's variables, as the call just made left them. */
static void sync_vars(void)
{
	stdscr = *p_stdscr;
	LINES = *p_LINES;
	COLS = *p_COLS;
	COLORS = *p_COLORS;
	COLOR_PAIRS = *p_COLOR_PAIRS;
}

SCREEN *newterm(const char *type, FILE *out, FILE *in)
{
	if (!ready())
		return NULL;
	SCREEN *s = p_newterm(type, out, in);
	sync_vars();
	memcpy(acs_map, p_acs_map, sizeof(acs_map));
	return s;
}

void delscreen(SCREEN *s)
{
	if (ready()) {
		p_delscreen(s);
		sync_vars();
	}
}

/* The calls that may change the variables copy them after. */
#define PASS_SYNC(call)                  \
	do {                             \
		if (!ready())            \
			return ERR;      \
		int rc_ = (call);        \
		sync_vars();             \
		return rc_;              \
	} while (0)

int endwin(void) { PASS_SYNC(p_endwin()); }
int start_color(void) { PASS_SYNC(p_start_color()); }
int use_default_colors(void) { PASS_SYNC(p_use_default_colors()); }
int wgetch(WINDOW *w) { PASS_SYNC(p_wgetch(w)); }
int wrefresh(WINDOW *w) { PASS_SYNC(p_wrefresh(w)); }

/* The rest change none of them. */
int clearok(WINDOW *w, bool on) { return ready() ? p_clearok(w, on) : ERR; }
bool has_colors(void) { return ready() && p_has_colors(); }
int init_pair(NCURSES_PAIRS_T pair, NCURSES_COLOR_T fg, NCURSES_COLOR_T bg)
{
	return ready() ? p_init_pair(pair, fg, bg) : ERR;
}
int noecho(void) { return ready() ? p_noecho() : ERR; }
int nonl(void) { return ready() ? p_nonl() : ERR; }
int set_escdelay(int ms) { return ready() ? p_set_escdelay(ms) : ERR; }
int ungetch(int ch) { return ready() ? p_ungetch(ch) : ERR; }
int waddch(WINDOW *w, const chtype ch) { return ready() ? p_waddch(w, ch) : ERR; }
int waddnstr(WINDOW *w, const char *s, int n) { return ready() ? p_waddnstr(w, s, n) : ERR; }
int wattr_off(WINDOW *w, attr_t a, void *opts) { return ready() ? p_wattr_off(w, a, opts) : ERR; }
int wattr_on(WINDOW *w, attr_t a, void *opts) { return ready() ? p_wattr_on(w, a, opts) : ERR; }
int wclrtoeol(WINDOW *w) { return ready() ? p_wclrtoeol(w) : ERR; }
int werase(WINDOW *w) { return ready() ? p_werase(w) : ERR; }
int whline(WINDOW *w, chtype ch, int n) { return ready() ? p_whline(w, ch, n) : ERR; }
int wmove(WINDOW *w, int y, int x) { return ready() ? p_wmove(w, y, x) : ERR; }
int wvline(WINDOW *w, chtype ch, int n) { return ready() ? p_wvline(w, ch, n) : ERR; }
int cbreak(void) { return ready() ? p_cbreak() : ERR; }
int curs_set(int v) { return ready() ? p_curs_set(v) : ERR; }
int keypad(WINDOW *w, bool on) { return ready() ? p_keypad(w, on) : ERR; }
int napms(int ms) { return ready() ? p_napms(ms) : ERR; }
char *tigetstr(const char *cap) { return ready() ? p_tigetstr(cap) : NULL; }
void wtimeout(WINDOW *w, int delay)
{
	if (ready())
		p_wtimeout(w, delay);
}
