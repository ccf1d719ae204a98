/* paint.c: the drawing helpers every panel and dialog shares (panel.h):
 * every string goes through draw_put, which clips it to the screen, so
 * that no size or topology can write outside it; and a figure's text and
 * colour level, with its coverage noted in the frame. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"

/* Writes s at (y, x), at most w columns, with attr. */
void draw_put(int y, int x, int w, int attr, const char *s)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attron(attr);
	mvaddnstr(y, x, s, w);
	attroff(attr);
}

void draw_border(int y, int x, int w, int h)
{
	int y1 = y + h - 1, x1 = x + w - 1;
	mvaddch(y, x, ACS_ULCORNER);
	mvhline(y, x + 1, ACS_HLINE, w - 2);
	mvaddch(y, x1, ACS_URCORNER);
	mvvline(y + 1, x, ACS_VLINE, h - 2);
	mvvline(y + 1, x1, ACS_VLINE, h - 2);
	mvaddch(y1, x, ACS_LLCORNER);
	mvhline(y1, x + 1, ACS_HLINE, w - 2);
	mvaddch(y1, x1, ACS_LRCORNER);
}

/* Fills w columns from (y, x) with spaces in attr (for coloured bars). */
void draw_fill(int y, int x, int w, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attron(attr);
	mvhline(y, x, ' ', w);
	attroff(attr);
}

int draw_level_attr(const struct ui *u, int level)
{
	if (level >= 2)
		return ui_attr(u, CP_CRIT, A_BOLD) | A_BOLD;
	if (level == 1)
		return ui_attr(u, CP_WARN, A_UNDERLINE);
	/* Good is a colour only: in monochrome the plain text says it. */
	if (level == 0)
		return ui_attr(u, CP_GOOD, 0);
	return 0;
}

void draw_note_cov(struct frame *f, double cov)
{
	if (!isnan(cov) && cov < f->min_cov)
		f->min_cov = cov;
}

/* A metric of a row as text, "-" when absent. */
const char *draw_metric_text(const struct ui *u, struct frame *f, const struct snap_row *r, int metric,
			     const char *fmt, char *buf, int len)
{
	double cov, rse;
	double v = ui_metric(u, r, metric, &cov, &rse);
	if (!isnan(v))
		draw_note_cov(f, cov);
	const char *unit = metric >= 0 && metric < u->m->nmetrics ? u->m->metrics[metric].unit : NULL;
	return format_value_rse(buf, len, v, rse, u->nav.show_err, fmt, unit);
}

/* Appends a unit to a value, but not to "-" (no value has no unit). */
void draw_add_unit(char *buf, size_t len, const char *unit)
{
	size_t n = strlen(buf);
	if (strcmp(buf, "-") != 0 && n < len)
		snprintf(buf + n, len - n, "%s", unit);
}
