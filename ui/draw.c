/* draw.c: the frame of the dashboard. It lays the frame out first (what
 * each panel wants, the layout from the terminal size and topology, the
 * navigation the panels settle), then draws the notice and each panel
 * (panel_*.c, in panels.c's order) with its rectangle, through const
 * pointers; the helpers the panels share are paint.c's (panel.h). */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "util.h"

/* The notice lines: the sampler's standing notice ("hardware counters:
 * not available"), there from the first frame on. A passing message (a
 * key's answer) is not one of them: it went above it and moved the whole
 * layout down a line; it has the footer's line (draw_message). Owned by
 * the caller. */
static char *notice_text(const struct ui *u)
{
	const char *standing = u->snap ? (u->snap->notice && *u->snap->notice ? u->snap->notice : NULL)
					: u->first_notice;
	return standing ? xstrdup(standing) : NULL;
}

/* The message line: a passing message over the footer's key hints, at the
 * same place whatever the layout, until it expires (ui.c, 5 s) or its cause
 * is gone (the caller clears it); the hints come back then. */
static void draw_message(const struct ui *u)
{
	if (!u->message || u->lay.footer.h < 1)
		return;
	const struct rect *r = &u->lay.footer;
	int attr = ui_attr(u, CP_NOTICE, A_BOLD);
	draw_fill(r->y, r->x, r->w, attr);
	draw_put(r->y, r->x, r->w, attr, u->message);
}

/* The layout step, before anything is drawn: the room each panel wants,
 * the layout, then the navigation the panels keep in u (the table's page
 * and selection, the detail pane's list), so that drawing changes
 * nothing but the screen. */
static void frame_layout(struct ui *u, bool notice, int notice_lines)
{
	struct layout_in in = {
		.rows = LINES, .cols = COLS,
		.nsockets = u->topo->nsockets,
		.notice = notice, .notice_lines = notice_lines,
	};
	for (int i = 0; i < u->npanels; i++)
		if (u->panels[i].ops->want)
			u->panels[i].ops->want(&u->panels[i], u, &in);
	layout_compute(&in, &u->lay);
	if (u->lay.too_small)
		return;
	for (int i = 0; i < u->npanels; i++)
		if (u->panels[i].ops->settle)
			u->panels[i].ops->settle(&u->panels[i], u);
}

/* Draws the frame laid out: each panel in its order (panels.c), the
 * notice lines after the table, CCX, memory and power panels, under the
 * detail pane. */
static void draw_frame(const struct ui *u, struct frame *f, const char *notice, int notice_lines,
		       const int *wrap_start, const int *wrap_len)
{
	memset(f, 0, sizeof(*f));
	f->min_cov = 2;
	f->tab_y = -1;
	for (int i = 0; i < 64; i++)
		f->tab_x0[i] = f->tab_x1[i] = -1;
	erase();
	if (u->lay.too_small) {
		/* Wrapped at words over the lines there are, so that even a
		 * 40x10 terminal shows all of it. */
		char msg[128];
		snprintf(msg, sizeof(msg), "pmctop: terminal %dx%d is too small; needs %dx%d (q quits)",
			 COLS, LINES, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		int ws[8], wl[8];
		int maxl = LINES < 8 ? LINES : 8;
		int nl = u->lay.msg.w > 0 ? format_wrap(msg, u->lay.msg.w, ws, wl, maxl) : 0;
		for (int i = 0; i < nl && i < maxl; i++)
			draw_put(i, 0, wl[i] < u->lay.msg.w ? wl[i] : u->lay.msg.w, A_BOLD, msg + ws[i]);
		refresh();
		return;
	}
	for (int k = 0; k < u->npanels; k++) {
		const struct panel *p = &u->panels[k];
		/* The notice goes over the panels drawn so far, under the
		 * detail pane. */
		if (p->ops == &panel_detail_ops)
			for (int i = 0; notice && i < u->lay.notice.h && i < notice_lines && i < 3; i++) {
				int y = u->lay.notice.y + i;
				draw_fill(y, 0, u->lay.notice.w, ui_attr(u, CP_NOTICE, A_BOLD));
				draw_put(y, 0, wrap_len[i] < u->lay.notice.w ? wrap_len[i] : u->lay.notice.w,
					 ui_attr(u, CP_NOTICE, A_BOLD), notice + wrap_start[i]);
			}
		if (p->ops->draw)
			p->ops->draw(p, u, f);
	}
	draw_message(u);
	refresh();
}

void draw_screen(struct ui *u, struct frame *f)
{
	/* The rows whose errors this frame reads are those the next
	 * intervals find at once (figures.c). */
	ui_errors_frame_begin(u);
	char *notice = notice_text(u);
	int wrap_start[3], wrap_len[3], lines = 0;
	if (notice)
		lines = format_wrap(notice, COLS, wrap_start, wrap_len, 3);
	frame_layout(u, notice != NULL, lines);
	draw_frame(u, f, notice, lines, wrap_start, wrap_len);
	free(notice);
	ui_errors_frame_end(u);
}
