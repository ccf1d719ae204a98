/* check_keys.c: the dashboard's key table (ui/keys.c): every documented key
 * maps to its action, no key is bound twice, unknown keys change nothing,
 * and no sequence of keys moves the navigation state out of range. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include "keys.h"
#include "jump.h"
#include "mouse.h"
#include <time.h>

#define L __LINE__
/* The keys the documentation (the issue and the help screen) promises. */
static const struct { int line; int key; enum ui_action action; int arg; } documented[] = {
	{ L, 'q', ACT_QUIT, 0 }, { L, UK_F10, ACT_QUIT, 0 }, { L, 'F', ACT_FOLLOW, 0 },
	{ L, '/', ACT_SEARCH, 0 }, { L, UK_F3, ACT_SEARCH, 0 }, { L, 'n', ACT_SEARCH_NEXT, 0 },
	{ L, 'N', ACT_SEARCH_PREV, 0 }, { L, '\\', ACT_FILTER, 0 }, { L, UK_F4, ACT_FILTER, 0 },
	{ L, 'h', ACT_HELP, 0 }, { L, '?', ACT_HELP, 0 }, { L, UK_F1, ACT_HELP, 0 },
	{ L, '\t', ACT_VIEW_NEXT, 0 }, { L, UK_BTAB, ACT_VIEW_PREV, 0 },
	{ L, '1', ACT_VIEW_KEY, 1 }, { L, '2', ACT_VIEW_KEY, 2 }, { L, '3', ACT_VIEW_KEY, 3 },
	{ L, '4', ACT_VIEW_KEY, 4 }, { L, '5', ACT_VIEW_KEY, 5 }, { L, '6', ACT_VIEW_KEY, 6 },
	{ L, '7', ACT_VIEW_KEY, 7 }, { L, '8', ACT_VIEW_KEY, 8 }, { L, '9', ACT_VIEW_KEY, 9 },
	{ L, 'e', ACT_EVENT_PICKER, 0 }, { L, UK_DELETE, ACT_DEL_COLUMN, 0 },
	{ L, '<', ACT_SORT_LEFT, 0 }, { L, '>', ACT_SORT_RIGHT, 0 }, { L, UK_F6, ACT_SORT_PICK, 0 },
	{ L, 'R', ACT_SORT_REVERSE, 0 },
	{ L, 'c', ACT_TOGGLE_CCX, 0 }, { L, 'g', ACT_FLEET_GROUP, 0 }, { L, 't', ACT_TOGGLE_THREADS, 0 }, { L, 'u', ACT_TOGGLE_ERRORS, 0 },
	{ L, ' ', ACT_PAUSE, 0 }, { L, '+', ACT_INTERVAL_UP, 0 }, { L, '-', ACT_INTERVAL_DOWN, 0 },
	/* htop's: / and F3 search, \\ and F4 filter. */
	{ L, UK_ENTER, ACT_DETAIL, 0 }, { L, 'w', ACT_SNAPSHOT, 0 }, { L, 'T', ACT_TASKS, 0 },
	{ L, UK_F5, ACT_TASK_TREE, 0 },   /* htop's F5: the tree (of cgroups, in the tasks view) */
	{ L, UK_F2, ACT_SETUP, 0 }, { L, 'S', ACT_SETUP, 0 },
	{ L, UK_UP, ACT_UP, 0 }, { L, UK_DOWN, ACT_DOWN, 0 }, { L, UK_PGUP, ACT_PGUP, 0 },
	{ L, UK_PGDN, ACT_PGDN, 0 }, { L, UK_HOME, ACT_HOME, 0 }, { L, UK_END, ACT_END, 0 },
	{ L, UK_LEFT, ACT_LEFT, 0 }, { L, UK_RIGHT, ACT_RIGHT, 0 },
	{ L, UK_CTRL('l'), ACT_REDRAW, 0 },
	{ L, '[', ACT_STEP_BACK, 0 }, { L, ']', ACT_STEP_FWD, 0 }, { L, 'j', ACT_JUMP, 0 },
};

START_TEST(test_documented)
{
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		const struct key_binding *b = keys_lookup(documented[i].key);
		ck_assert_msg(b != NULL, "line %d: key not bound", documented[i].line);
		ck_assert_msg(b->action == documented[i].action && b->arg == documented[i].arg,
			      "line %d: bound to action %d arg %d", documented[i].line, b->action, b->arg);
	}
	/* And the table has nothing undocumented. */
	ck_assert_int_eq(keys_count, (int)(sizeof(documented) / sizeof(documented[0])));
}
END_TEST

START_TEST(test_no_duplicates)
{
	for (int i = 0; i < keys_count; i++)
		for (int j = i + 1; j < keys_count; j++)
			ck_assert_msg(keys_table[i].key != keys_table[j].key, "key %s bound twice",
				      keys_table[i].name);
}
END_TEST

START_TEST(test_help_complete)
{
	/* Every action has a key, and the help screen (printed from the table)
	 * describes it: the first binding of a run of one action has text. */
	for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
		int first = -1;
		for (int i = 0; i < keys_count && first < 0; i++)
			if ((int)keys_table[i].action == a)
				first = i;
		ck_assert_msg(first >= 0, "action %d has no key", a);
		ck_assert_msg(keys_table[first].help && *keys_table[first].help, "action %d has no help", a);
		ck_assert(keys_table[first].name && *keys_table[first].name);
	}
	/* A binding without text shares the line of the one before, which
	 * must then be for the same action. */
	ck_assert(keys_table[0].help != NULL);
	for (int i = 1; i < keys_count; i++)
		ck_assert_msg(keys_table[i].help || keys_table[i].action == keys_table[i - 1].action,
			      "%s would be listed under another action", keys_table[i].name);
	char buf[16];
	ck_assert_str_eq(keys_name(UK_F10, buf, sizeof(buf)), "F10");
	ck_assert_str_eq(keys_name('z', buf, sizeof(buf)), "z");
}
END_TEST

static struct ui_nav sample_nav(void)
{
	return (struct ui_nav){ .view = 1, .nviews = 4, .sort_col = 2, .ncols = 9, .show_ccx = true,
				.interval_s = 1, .sel = 5, .nrows = 32, .top = 0, .page = 20, .nhscroll = 3 };
}

START_TEST(test_unknown_keys)
{
	static const int probes[] = { 0, -1, 'z', 'Q', 'x', 0x7f, 0x7fffffff, UK_BASE, 'W', UK_ESC,
				      UK_F9, UK_RESIZE, UK_MOUSE, UK_CTRL('c'), 0x10ffff, -100 };
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct ui_nav n = sample_nav(), before = n;
		const struct key_binding *b = keys_lookup(probes[i]);
		ck_assert_msg(b == NULL, "key %d is bound", probes[i]);
		ck_assert_int_eq(keys_apply(&n, b), KA_NONE);
		ck_assert(memcmp(&n, &before, sizeof(n)) == 0);
	}
	/* Every code point that is not in the table does nothing. */
	for (int k = 0; k < 0x3000; k++) {
		bool bound = false;
		for (int i = 0; i < keys_count; i++)
			bound |= keys_table[i].key == k;
		ck_assert(bound == (keys_lookup(k) != NULL));
	}
}
END_TEST

static int press(struct ui_nav *n, int key)
{
	return keys_apply(n, keys_lookup(key));
}

START_TEST(test_actions)
{
	struct ui_nav n = sample_nav();
	ck_assert_int_eq(press(&n, 'q'), KA_QUIT);
	ck_assert(press(&n, 'h') & KA_DIALOG);
	/* Enter and w are the screen's: the detail pane and the snapshot
	 * file, which change nothing in the navigation. */
	struct ui_nav before = n;
	ck_assert_int_eq(press(&n, UK_ENTER), KA_DIALOG);
	ck_assert_int_eq(press(&n, 'w'), KA_DIALOG);
	ck_assert(memcmp(&n, &before, sizeof(n)) == 0);
	ck_assert(press(&n, '\t') & KA_REQUEST);
	ck_assert_int_eq(n.view, 2);
	press(&n, '\t');
	press(&n, '\t');
	ck_assert_int_eq(n.view, 0);           /* wraps */
	press(&n, UK_BTAB);
	ck_assert_int_eq(n.view, 3);
	press(&n, '>');
	ck_assert_int_eq(n.sort_col, 3);
	for (int i = 0; i < 20; i++)
		press(&n, '>');
	ck_assert_int_eq(n.sort_col, 8);       /* stops at the last column */
	for (int i = 0; i < 20; i++)
		press(&n, '<');
	ck_assert_int_eq(n.sort_col, 0);
	press(&n, 'R');
	ck_assert(n.sort_reverse);
	press(&n, 'c');
	ck_assert(!n.show_ccx);
	/* t cycles CPU, core, CCX, socket rows and back to CPU. */
	ck_assert(press(&n, 't') & KA_ROWS);
	ck_assert_int_eq(n.rows, ROWS_CORE);
	ck_assert_int_eq(n.sel, 0);
	press(&n, 't');
	ck_assert_int_eq(n.rows, ROWS_CCX);
	press(&n, 't');
	ck_assert_int_eq(n.rows, ROWS_SOCKET);
	press(&n, 't');
	ck_assert_int_eq(n.rows, ROWS_CPU);
	press(&n, 't');
	ck_assert(press(&n, ' ') & KA_PAUSE);
	ck_assert(n.paused);
	ck_assert(press(&n, '+') & KA_INTERVAL);
	ck_assert_double_eq_tol(n.interval_s, 2, 1e-9);
	press(&n, '-');
	press(&n, '-');
	ck_assert_double_eq_tol(n.interval_s, 0.5, 1e-9);
	for (int i = 0; i < 30; i++)
		press(&n, '-');
	ck_assert_double_eq_tol(n.interval_s, 0.1, 1e-9);
	ck_assert(press(&n, UK_CTRL('l')) & KA_CLEAR);
	/* Scrolling: 32 rows, 20 per page. */
	press(&n, UK_END);
	ck_assert_int_eq(n.sel, 31);
	ck_assert_int_eq(n.top, 12);
	press(&n, UK_HOME);
	ck_assert_int_eq(n.sel, 0);
	ck_assert_int_eq(n.top, 0);
	press(&n, UK_PGDN);
	ck_assert_int_eq(n.sel, 20);
	ck_assert_int_le(n.top, 20);
	ck_assert_int_gt(n.top + n.page, 20);
	press(&n, UK_UP);
	ck_assert_int_eq(n.sel, 19);
	press(&n, UK_RIGHT);
	press(&n, UK_RIGHT);
	press(&n, UK_RIGHT);
	press(&n, UK_RIGHT);
	ck_assert_int_eq(n.hscroll, 2);
	/* Single view: Tab is a no-op. */
	n.nviews = 1;
	n.view = 0;
	ck_assert_int_eq(press(&n, '\t'), KA_NONE);
	ck_assert_int_eq(n.view, 0);
}
END_TEST

START_TEST(test_interval_steps)
{
	ck_assert_double_eq_tol(keys_interval_step(1, 1), 2, 1e-9);
	ck_assert_double_eq_tol(keys_interval_step(1.5, 1), 2, 1e-9);
	ck_assert_double_eq_tol(keys_interval_step(1.5, -1), 1, 1e-9);
	ck_assert_double_eq_tol(keys_interval_step(60, 1), 60, 1e-9);
	ck_assert_double_eq_tol(keys_interval_step(1000, -1), 60, 1e-9);
	ck_assert_double_eq_tol(keys_interval_step(0.01, -1), 0.1, 1e-9);
}
END_TEST

START_TEST(test_random_keys_stay_in_range)
{
	/* Any sequence of keys over any counts, even empty ones. */
	unsigned seed = 12345;
	for (int round = 0; round < 200; round++) {
		seed = seed * 1103515245u + 12345u;
		struct ui_nav n = { .nviews = (int)(seed >> 8) % 5, .ncols = (int)(seed >> 12) % 12,
				    .interval_s = 1, .nrows = (int)(seed >> 4) % 1100, .page = (int)(seed >> 16) % 60,
				    .nhscroll = (int)(seed >> 20) % 6 };
		for (int i = 0; i < 500; i++) {
			seed = seed * 1103515245u + 12345u;
			keys_apply(&n, &keys_table[(seed >> 16) % (unsigned)keys_count]);
			ck_assert(n.sel >= 0 && (n.nrows == 0 || n.sel < n.nrows));
			ck_assert(n.top >= 0 && n.top <= n.sel);
			ck_assert(n.sel < n.top + (n.page > 0 ? n.page : 1));
			ck_assert(n.sort_col >= 0 && (n.ncols == 0 || n.sort_col < n.ncols));
			ck_assert(n.view >= 0 && (n.nviews == 0 || n.view < n.nviews));
			ck_assert(n.hscroll >= 0 && (n.nhscroll == 0 || n.hscroll < n.nhscroll));
			ck_assert(n.interval_s >= 0.1 && n.interval_s <= 60);
		}
	}
}
END_TEST

/* The replay's jump prompt: every form it documents, and refusals. */
START_TEST(test_jump_parse)
{
	/* 2026-11-23 10:00:00 local time, as the recording's first interval. */
	struct tm tm = { .tm_year = 126, .tm_mon = 10, .tm_mday = 23, .tm_hour = 10, .tm_isdst = -1 };
	double t0 = (double)mktime(&tm);
	int idx;
	double t;
	char *cause = NULL;
	ck_assert_int_eq(jump_parse("#5", t0, t0 + 9, 9, 60, &idx, &t, &cause), 0);
	ck_assert_int_eq(idx, 4);
	ck_assert_int_eq(jump_parse(" end", t0, t0, 0, 60, &idx, &t, &cause), 0);
	ck_assert_int_eq(idx, 59);
	ck_assert_int_eq(jump_parse("start", t0, t0, 7, 60, &idx, &t, &cause), 0);
	ck_assert_int_eq(idx, 0);
	ck_assert_int_eq(jump_parse("+30", t0, t0 + 9, 9, 60, &idx, &t, &cause), 0);
	ck_assert_int_eq(idx, -1);
	ck_assert_double_eq(t, t0 + 39);
	ck_assert_int_eq(jump_parse("-2.5", t0, t0 + 9, 9, 60, &idx, &t, &cause), 0);
	ck_assert_double_eq(t, t0 + 6.5);
	ck_assert_int_eq(jump_parse("10:00:30", t0, t0, 0, 60, &idx, &t, &cause), 0);
	ck_assert_double_eq(t, t0 + 30);
	ck_assert_int_eq(jump_parse("10:01", t0, t0, 0, 60, &idx, &t, &cause), 0);
	ck_assert_double_eq(t, t0 + 60);
	/* Before the start: the next day (a recording across midnight). */
	ck_assert_int_eq(jump_parse("09:59:00", t0, t0, 0, 60, &idx, &t, &cause), 0);
	ck_assert_double_eq(t, t0 + 86400 - 60);
	const char *bad[] = { "", "#0", "#61", "#x", "+", "+1x", "25:00", "10:60", "10:00:61", "noon", "1:2:3:4" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(jump_parse(bad[i], t0, t0, 0, 60, &idx, &t, &cause) < 0, "'%s' accepted", bad[i]);
		ck_assert_ptr_nonnull(cause);
		free(cause);
		cause = NULL;
	}
	ck_assert_int_lt(jump_parse("#1", t0, t0, 0, 0, &idx, &t, &cause), 0);
	free(cause);
}
END_TEST

/* Mouse reports, as xterm sends them after ESC [ (tests/e2e_terminal.sh
 * sends the same bytes through tmux): decoded whole, so that none of their
 * digits can reach the key table (a click once switched views). */
START_TEST(test_mouse_decode)
{
	static const struct { int line; const char *in; int want; int button, x, y; bool press; } t[] = {
		{ L, "<0;39;9M", 8, 0, 38, 8, true },       /* SGR press, left button */
		{ L, "<0;39;9m", 8, 0, 38, 8, false },      /* its release */
		{ L, "<65;3;12M", 9, 65, 2, 11, true },     /* wheel down */
		{ L, "<64;1;1M", 8, 64, 0, 0, true },       /* wheel up */
		{ L, "<32;5;5M", 8, 0, 4, 4, false },       /* motion: not a click */
		{ L, "<2;250;70Mq", 10, 2, 249, 69, true }, /* what follows is not its own */
		{ L, "M !!", 4, 0, 0, 0, true },             /* X10: 32+0, 33+0, 33+0 */
		{ L, "M#!!", 4, 3, 0, 0, false },            /* X10 release (button 3) */
		{ L, "Ma+)", 4, 65, 10, 8, true },           /* X10 wheel down at 11,9 */
		{ L, "<0;39", 0, 0, 0, 0, false },           /* not all there yet */
		{ L, "<", 0, 0, 0, 0, false },
		{ L, "M !", 0, 0, 0, 0, false },
		{ L, "", 0, 0, 0, 0, false },
		{ L, "<0;0;1M", -1, 0, 0, 0, false },        /* cells count from 1 */
		{ L, "<0;1M", -1, 0, 0, 0, false },          /* two numbers */
		{ L, "<0;1;1;1M", -1, 0, 0, 0, false },      /* four */
		{ L, "<0;;1M", -1, 0, 0, 0, false },
		{ L, "<0;123456;1M", -1, 0, 0, 0, false },   /* too long to be one */
		{ L, "<0;1;1x", -1, 0, 0, 0, false },
		{ L, "A", -1, 0, 0, 0, false },               /* a cursor key, not the mouse */
		{ L, "4~", -1, 0, 0, 0, false },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ui_mouse m = { -1, -1, -1, false };
		int n = mouse_decode((const unsigned char *)t[i].in, (int)strlen(t[i].in), &m);
		ck_assert_msg(n == t[i].want, "line %d: %d, want %d", t[i].line, n, t[i].want);
		if (n <= 0)
			continue;
		ck_assert_msg(m.button == t[i].button && m.x == t[i].x && m.y == t[i].y && m.press == t[i].press,
			      "line %d: button %d at %d,%d press %d", t[i].line, m.button, m.x, m.y, m.press);
	}
	/* A column past 223 cannot be said in X10's one byte; bytes above
	 * 127 are still read as the report's. */
	const unsigned char far[] = { 'M', 32, 255, 33 };
	struct ui_mouse m;
	ck_assert_int_eq(mouse_decode(far, 4, &m), 4);
	ck_assert_int_eq(m.x, 222);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("keys");
	TCase *tc = tcase_create("keys");
	/* 100,000 checked steps: not quick on a loaded machine. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_documented);
	tcase_add_test(tc, test_no_duplicates);
	tcase_add_test(tc, test_help_complete);
	tcase_add_test(tc, test_unknown_keys);
	tcase_add_test(tc, test_actions);
	tcase_add_test(tc, test_interval_steps);
	tcase_add_test(tc, test_random_keys_stay_in_range);
	tcase_add_test(tc, test_jump_parse);
	tcase_add_test(tc, test_mouse_decode);
	suite_add_tcase(s, tc);
	return check_run(s);
}
