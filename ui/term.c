/* term.c: the dashboard's terminal. It owns it: one place restores it
 * (ui_restore), reached on q, on SIGINT, SIGTERM and SIGHUP (their handler
 * sets a flag and turns the mouse off at once), on errors, at exit and from
 * the handler of fatal signals; Ctrl-Z suspends and resumes it; keys, escape sequences and
 * xterm mouse reports are decoded here. */
#include "config.h"
#include "ui_impl.h"
#include "format.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "snapfile.h"
#include "spark.h"
#include "util.h"

static volatile sig_atomic_t ui_stop_signal;
static volatile sig_atomic_t ui_curses_active;
static volatile sig_atomic_t ui_suspend;   /* Ctrl-Z (SIGTSTP) arrived */
static SCREEN *ui_screen;

/* xterm mouse reports, SGR encoding (any column count): on while the
 * dashboard runs, off before the terminal is handed back. */
static const char mouse_on[] = "\033[?1000h\033[?1006h";
static const char mouse_off[] = "\033[?1006l\033[?1000l";

/* Set once the mouse-off sequence has reached the terminal whole, by the
 * stop signals' handler or by ui_restore; cleared when the mouse is turned
 * on again. */
static volatile sig_atomic_t ui_mouse_released;

/* The whole of BUF to the terminal with write(2), async-signal-safe: a
 * write interrupted by a signal (EINTR) or cut short is resumed. A storm of
 * SIGTERMs once interrupted the single write of mouse_off and left the
 * terminal in mouse mode. The retries are bounded so that a terminal that
 * is gone cannot hold the exit. Returns 0 when all of it was written. */
static int term_write_all(const char *buf, size_t len)
{
	int eintr = 0;
	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EINTR && eintr++ < 10000) {
			continue;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Mouse reports off, from the signal path or the normal one; idempotent.
 * FORCE writes it even when a handler already did: the mouse may have been
 * turned on again since (start-up or a resume racing the signal). */
static void release_mouse(bool force)
{
	if (!ui_curses_active || (ui_mouse_released && !force))
		return;
	int saved = errno;
	if (term_write_all(mouse_off, sizeof(mouse_off) - 1) == 0)
		ui_mouse_released = 1;
	errno = saved;
}

/* The stop signals, held while the terminal is handed back so that none
 * interrupts curses' own writes (the alternate screen's exit); they are
 * delivered, to a handler that only notes them, once it is done. */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

void ui_restore(void)
{
	if (ui_curses_active) {
		sigset_t stop, old;
		stop_signals(&stop);
		pthread_sigmask(SIG_BLOCK, &stop, &old);
		/* write(2): this also runs from a fatal signal's handler. */
		release_mouse(true);
		ui_curses_active = 0;
		curs_set(1);
		endwin();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
}

/* A stop signal ends the loop at its next turn; the mouse is turned off
 * here already, so that whatever happens to the process from now on (more
 * signals, their default action once the handlers are gone) the terminal
 * is out of mouse mode. The alternate screen is left by ui_restore, which
 * the loop reaches with these signals held. */
static void on_stop_signal(int sig)
{
	ui_stop_signal = sig;
	release_mouse(false);
}

/* Ctrl-Z: curses' own SIGTSTP handler would end and redraw the screen
 * inside the signal handler, racing the screen code it interrupts (the key
 * fuzz test crashed on it); here the handler only notes it, and the key
 * loop suspends between two keys (suspend_now). */
static void on_suspend_signal(int sig)
{
	(void)sig;
	ui_suspend = 1;
}

/* Hands the terminal back, stops, and takes it again on SIGCONT. */
static void suspend_now(void)
{
	ui_suspend = 0;
	release_mouse(true);    /* a terminal that is gone: stop anyway */
	endwin();
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTSTP, &sa, &old);
	raise(SIGTSTP);                     /* stopped here until SIGCONT */
	sigaction(SIGTSTP, &old, NULL);
	ui_mouse_released = 0;
	fputs(mouse_on, stdout);
	fflush(stdout);
	clearok(stdscr, TRUE);
	refresh();
}

/* A crash must not leave the terminal in raw mode. endwin() is not
 * async-signal-safe, but the process is about to die anyway; the signal
 * is then re-raised with its default action so that it still dumps core. */
static void on_fatal_signal(int sig)
{
	ui_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

void ui_signals(bool install)
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop); i++) {
		sa.sa_handler = install ? on_stop_signal : SIG_DFL;
		sigaction(stop[i], &sa, NULL);
	}
	sa.sa_handler = install ? on_suspend_signal : SIG_DFL;
	sigaction(SIGTSTP, &sa, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++) {
		sa.sa_handler = install ? on_fatal_signal : SIG_DFL;
		sa.sa_flags = install ? SA_RESETHAND : 0;
		sigaction(fatal[i], &sa, NULL);
	}
}

bool ui_stopping(void)
{
	return ui_stop_signal != 0;
}

int ui_stop_signo(void)
{
	return ui_stop_signal;
}

/* The last mouse event read, for ui_last_mouse(). */
static struct ui_mouse last_mouse;

struct ui_mouse ui_last_mouse(void)
{
	return last_mouse;
}

/* Reads the rest of a mouse report whose first bytes after ESC [ are in
 * buf (n of them) and decodes it (mouse.c): UK_MOUSE, or a code no key
 * has when the bytes are not a report. Either way every byte of it is
 * read here, so that none acts as a key. */
static int read_mouse(unsigned char *buf, int n)
{
	int r;
	timeout(50);
	while ((r = mouse_decode(buf, n, &last_mouse)) == 0 && n < MOUSE_REPORT_MAX) {
		int c = getch();
		if (c == ERR || c > 255)
			break;
		buf[n++] = (unsigned char)c;
	}
	timeout(100);
	return r > 0 ? UK_MOUSE : 0x7fffffff;
}

/* KEY_MOUSE: the terminfo entry's kmous (ESC [ < under xterm-256color,
 * ESC [ M under screen) matched and curses returned it with the rest of
 * the report still unread; pmctop decodes that rest itself. */
static int curses_mouse_key(void)
{
	unsigned char buf[MOUSE_REPORT_MAX];
	const char *km = tigetstr("kmous");
	int n = 0;
	if (km && km != (char *)-1 && !strncmp(km, "\033[", 2))
		for (km += 2; *km && n < MOUSE_REPORT_MAX; km++)
			buf[n++] = (unsigned char)*km;
	if (n == 0)
		buf[n++] = 'M';
	return read_mouse(buf, n);
}

/* The rest of an escape sequence that the terminal's terminfo entry does
 * not name (under tmux with TERM=xterm-256color, End is "\e[4~"), read
 * whole and mapped when it is a key pmctop knows, dropped otherwise: its
 * bytes must never act as keys of their own ('4' would switch to view 4).
 * A lone ESC is ESC. */
static int escape_sequence(void)
{
	timeout(0);
	int c = getch(), key = UK_ESC;
	if (c == '[' || c == 'O') {
		char seq[16];
		int n = 0, f;
		/* A mouse report that terminfo did not name: "<..." (SGR) or
		 * "M" and three bytes (X10), whose bytes are not a CSI's. */
		if (c == '[' && (f = getch()) != ERR) {
			if (f == '<' || f == 'M') {
				unsigned char mb[MOUSE_REPORT_MAX] = { (unsigned char)f };
				return read_mouse(mb, 1);
			}
			ungetch(f);
		}
		/* CSI: parameters, then a final byte in 0x40-0x7e; SS3: one byte. */
		while (n < (int)sizeof(seq) - 1 && (f = getch()) != ERR) {
			seq[n++] = (char)f;
			if (c == 'O' || (f >= 0x40 && f <= 0x7e))
				break;
		}
		seq[n] = 0;
		static const struct { const char *seq; int key; } known[] = {
			{ "A", UK_UP }, { "B", UK_DOWN }, { "C", UK_RIGHT }, { "D", UK_LEFT },
			{ "H", UK_HOME }, { "F", UK_END }, { "1~", UK_HOME }, { "7~", UK_HOME },
			{ "4~", UK_END }, { "8~", UK_END }, { "5~", UK_PGUP }, { "6~", UK_PGDN },
			{ "3~", UK_DELETE }, { "Z", UK_BTAB },
		};
		key = 0x7fffffff;   /* a sequence pmctop does not use */
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(seq, known[i].seq))
				key = known[i].key;
	} else if (c != ERR) {
		ungetch(c);         /* ESC, then the key that followed */
	}
	timeout(100);
	return key;
}

/* curses key codes -> pmctop's (keys.h). */
int ui_getkey(void)
{
	if (ui_suspend && ui_curses_active) {
		suspend_now();
		return UK_RESIZE;               /* back: whoever asked redraws */
	}
	int ch = getch();
	switch (ch) {
	case ERR: return -1;
	case KEY_UP: return UK_UP;
	case KEY_DOWN: return UK_DOWN;
	case KEY_LEFT: return UK_LEFT;
	case KEY_RIGHT: return UK_RIGHT;
	case KEY_PPAGE: return UK_PGUP;
	case KEY_NPAGE: return UK_PGDN;
	case KEY_HOME: case KEY_FIND: case KEY_A1: return UK_HOME;
	case KEY_END: case KEY_SELECT: case KEY_C1: return UK_END;
	case KEY_BTAB: return UK_BTAB;
	case KEY_DC: return UK_DELETE;
	case KEY_ENTER: case '\n': case '\r': return UK_ENTER;
	case 27: return escape_sequence();
	case KEY_BACKSPACE: case 127: case 8: return UK_BACKSPACE;
	case KEY_RESIZE: return UK_RESIZE;
	case KEY_MOUSE: return curses_mouse_key();
	default: break;
	}
	if (ch >= KEY_F(1) && ch <= KEY_F(10))
		return UK_F1 + (ch - KEY_F(1));
	if (ch >= KEY_MIN)
		return 0x7fffffff;  /* a key pmctop does not use */
	return ch;
}

int ui_screen_init(struct ui *u, char **cause)
{
	ui_stop_signal = 0;
	/* newterm, unlike initscr, returns NULL instead of exiting when the
	 * terminal is unknown, so that the sampler can be stopped cleanly. */
	/* Line drawing and wide characters follow the user's locale; only
	 * LC_CTYPE, so that numbers keep their '.' in every output. */
	setlocale(LC_CTYPE, "");
	/* The handlers come first: curses installs its own for SIGINT and
	 * SIGTERM where it finds none, and that one ends the program without
	 * a word to the mouse (a storm of signals at start-up met it). */
	ui_signals(true);
	ui_screen = newterm(NULL, stdout, stdin);
	if (!ui_screen) {
		ui_signals(false);
		return set_cause(cause, "cannot use the terminal (TERM=%s); try -b for batch output",
				 getenv("TERM") ? getenv("TERM") : "unset");
	}
	ui_mouse_released = 0;
	ui_curses_active = 1;
	fputs(mouse_on, stdout);
	fflush(stdout);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	timeout(100);
	set_escdelay(25);
	curs_set(0);
	/* The saved scheme unless the command line or NO_COLOR said mono. */
	const struct settings *st = u->cfg->settings;
	ui_colors_apply(u, u->cfg->no_color ? COLORS_MONO : st && st->has_colors ? st->colors : COLORS_DEFAULT);
	return 0;
}

void ui_screen_done(void)
{
	ui_restore();
	ui_signals(false);
	delscreen(ui_screen);
	ui_screen = NULL;
}

/* A dialog's wait for a key, while new figures keep coming into the
 * history (state.c): those a source publishes on a thread of its own; a
 * recording waits while a dialog is open (it is polled only between
 * them). */
int ui_dialog_getkey(struct ui *u)
{
	struct snapshot *s = ui_pop_snapshots(u);
	if (s) {
		ui_history_add(u, s);
		if (u->pending)
			snapshot_free(u->pending);
		u->pending = s;
	}
	return ui_getkey();
}
