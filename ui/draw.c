/* draw.c: the frame of the dashboard. It computes the layout from the
 * terminal size and topology, draws the notice and calls each panel
 * (panel_*.c) with its rectangle; it also holds the helpers the panels
 * share (panel.h). Every string is clipped to its rectangle, so that no
 * size or topology can write outside it. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"

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

int draw_level_attr(struct ui *u, int level)
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
const char *draw_metric_text(struct ui *u, struct frame *f, const struct snap_row *r, int metric,
			     const char *fmt, char *buf, int len)
{
	double cov, rse;
	double v = ui_metric(u, r, metric, &cov, &rse);
	if (!isnan(v))
		draw_note_cov(f, cov);
	const char *unit = metric >= 0 && metric < u->m->nmetrics ? u->m->metrics[metric].unit : NULL;
	return fmt_value(buf, len, v, rse, u->nav.show_err, fmt, unit);
}

/* Appends a unit to a value, but not to "-" (no value has no unit). */
void draw_add_unit(char *buf, size_t len, const char *unit)
{
	size_t n = strlen(buf);
	if (strcmp(buf, "-") != 0 && n < len)
		snprintf(buf + n, len - n, "%s", unit);
}

static const char *notice_text(struct ui *u)
{
	if (u->message)
		return u->message;
	if (u->snap && u->snap->notice && *u->snap->notice)
		return u->snap->notice;
	return u->snap ? NULL : u->first_notice;
}

void draw_screen(struct ui *u, struct frame *f)
{
	memset(f, 0, sizeof(*f));
	f->min_cov = 2;
	f->tab_y = -1;
	for (int i = 0; i < 64; i++)
		f->tab_x0[i] = f->tab_x1[i] = -1;
	const struct topo *t = u->topo;
	/* The boxes are only those of the CCX the row filter keeps (as
	 * panel_ccx draws them): room for all 24 of a two-socket part
	 * filtered to one socket left 10 blank lines above the table. */
	int cells = 0, nccx = 0;
	for (int i = 0; i < t->nccx; i++) {
		bool shown = false;
		for (int j = 0; j < t->ccxs[i].ncpus && !shown; j++)
			shown = ui_cpu_shown(u, t->ccxs[i].cpus[j]);
		nccx += shown;
		if (shown && t->ccxs[i].ncores > cells)
			cells = t->ccxs[i].ncores;
	}
	struct layout_in in = {
		.rows = LINES, .cols = COLS,
		.table_rows = u->nrows,
		.nccx = nccx, .ccx_cells = cells, .nsockets = t->nsockets,
		.show_ccx = u->nav.show_ccx,
		.show_mem = u->m_memrd >= 0 || u->m_memwr >= 0 || u->m_membus >= 0 || u->m_memtot >= 0,
		.notice = notice_text(u) != NULL,
	};
	int wrap_start[3], wrap_len[3];
	if (in.notice)
		in.notice_lines = fmt_wrap(notice_text(u), COLS, wrap_start, wrap_len, 3);
	layout_compute(&in, &u->lay);
	erase();
	if (u->lay.too_small) {
		/* Wrapped at words over the lines there are, so that even a
		 * 40x10 terminal shows all of it. */
		char msg[128];
		snprintf(msg, sizeof(msg), "pmctop: terminal %dx%d is too small; needs %dx%d (q quits)",
			 COLS, LINES, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		int ws[8], wl[8];
		int maxl = LINES < 8 ? LINES : 8;
		int nl = u->lay.msg.w > 0 ? fmt_wrap(msg, u->lay.msg.w, ws, wl, maxl) : 0;
		for (int i = 0; i < nl && i < maxl; i++)
			draw_put(i, 0, wl[i] < u->lay.msg.w ? wl[i] : u->lay.msg.w, A_BOLD, msg + ws[i]);
		refresh();
		return;
	}
	u->nav.page = u->lay.table_data_rows;
	keys_clamp(&u->nav);
	panel_table(u, f);
	panel_ccx(u, f);
	panel_mem(u, f);
	const char *notice = notice_text(u);
	for (int i = 0; notice && i < u->lay.notice.h && i < in.notice_lines && i < 3; i++) {
		int y = u->lay.notice.y + i;
		draw_fill(y, 0, u->lay.notice.w, ui_attr(u, CP_NOTICE, A_BOLD));
		draw_put(y, 0, wrap_len[i] < u->lay.notice.w ? wrap_len[i] : u->lay.notice.w, ui_attr(u, CP_NOTICE, A_BOLD),
			 notice + wrap_start[i]);
	}
	panel_detail(u);
	panel_footer(u);
	/* Last: the header reports the lowest coverage among the values the
	 * other panels drew (f->min_cov). */
	panel_header(u, f);
	refresh();
}
