/* colors.c: the dashboard's colour schemes: the default (for dark
 * terminals), one for light backgrounds, and monochrome (attributes only:
 * --no-color, NO_COLOR, the settings, or a terminal with fewer than 8
 * colours). Each scheme is a table of foreground and background per
 * colour pair; -1 is the terminal's own colour. */
#include "config.h"
#include "ui_impl.h"

#include <curses.h>

struct pair_colors { short fg, bg; };

static const struct pair_colors schemes[][CP_COUNT] = {
	[COLORS_DEFAULT] = {
		[CP_HEAD] = { COLOR_BLACK, COLOR_GREEN }, [CP_WARN] = { COLOR_YELLOW, -1 },
		[CP_CRIT] = { COLOR_RED, -1 }, [CP_GOOD] = { COLOR_GREEN, -1 },
		[CP_BAR0] = { COLOR_BLACK, COLOR_BLUE }, [CP_BAR1] = { COLOR_BLACK, COLOR_RED },
		[CP_BAR2] = { COLOR_BLACK, COLOR_YELLOW }, [CP_BAR3] = { COLOR_BLACK, COLOR_GREEN },
		[CP_BAR4] = { COLOR_BLACK, COLOR_MAGENTA }, [CP_TITLE] = { COLOR_CYAN, -1 },
		[CP_NOTICE] = { COLOR_BLACK, COLOR_YELLOW }, [CP_SEL] = { COLOR_BLACK, COLOR_CYAN },
		[CP_KEY] = { COLOR_BLACK, COLOR_CYAN },
	},
	/* Light backgrounds: no yellow or cyan text, which a white background
	 * washes out; dark text on the coloured fills. */
	[COLORS_LIGHT] = {
		[CP_HEAD] = { COLOR_WHITE, COLOR_BLUE }, [CP_WARN] = { COLOR_MAGENTA, -1 },
		[CP_CRIT] = { COLOR_RED, -1 }, [CP_GOOD] = { COLOR_BLUE, -1 },
		[CP_BAR0] = { COLOR_WHITE, COLOR_BLUE }, [CP_BAR1] = { COLOR_WHITE, COLOR_RED },
		[CP_BAR2] = { COLOR_BLACK, COLOR_YELLOW }, [CP_BAR3] = { COLOR_BLACK, COLOR_GREEN },
		[CP_BAR4] = { COLOR_WHITE, COLOR_MAGENTA }, [CP_TITLE] = { COLOR_BLUE, -1 },
		[CP_NOTICE] = { COLOR_BLACK, COLOR_YELLOW }, [CP_SEL] = { COLOR_WHITE, COLOR_BLUE },
		[CP_KEY] = { COLOR_WHITE, COLOR_BLUE },
	},
};

/* Whether the terminal can show the schemes' colours. COLORS is only known
 * after start_color(): testing it before (as pmctop once did) read 0 and
 * left every terminal monochrome. */
static bool colors_start(void)
{
	static bool started, ok;
	if (started)
		return ok;
	started = true;
	if (!has_colors() || start_color() == ERR)
		return false;
	ok = COLORS >= 8 && COLOR_PAIRS >= CP_COUNT;
	return ok;
}

void ui_colors_apply(struct ui *u, int scheme)
{
	u->scheme = scheme;
	u->color = scheme != COLORS_MONO && !u->cfg->colors_given && colors_start();
	if (!u->color)
		return;
	/* The terminal's own background where it lets pmctop keep it (-1);
	 * where it does not, the usual one of the scheme's kind. */
	short deflt_bg = use_default_colors() == OK ? -1 : scheme == COLORS_LIGHT ? COLOR_WHITE : COLOR_BLACK;
	short deflt_fg = deflt_bg == -1 ? -1 : scheme == COLORS_LIGHT ? COLOR_BLACK : COLOR_WHITE;
	const struct pair_colors *p = schemes[scheme == COLORS_LIGHT ? COLORS_LIGHT : COLORS_DEFAULT];
	for (int i = 1; i < CP_COUNT; i++)
		init_pair((short)i, p[i].fg < 0 ? deflt_fg : p[i].fg, p[i].bg < 0 ? deflt_bg : p[i].bg);
}

/* The attribute of colour pair pair, or mono on a screen without colour. */
int ui_attr(const struct ui *u, int pair, int mono)
{
	return u->color ? (int)COLOR_PAIR(pair) : mono;
}
