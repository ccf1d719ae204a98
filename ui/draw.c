/* draw.c: the frame of the dashboard. It computes the layout from the
 * terminal size and topology, draws the notice and calls each panel
 * (panel_*.c) with its rectangle; the helpers the panels share are
 * paint.c's (panel.h). */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "util.h"

/* The notice lines: a passing message (a key's answer, a note on the
 * model) above the sampler's standing notice, never instead of it, so
 * that "hardware counters: not available" is on the first screen even
 * when the model has something to say too. Owned by the caller. */
static char *notice_text(struct ui *u)
{
	const char *standing = u->snap ? (u->snap->notice && *u->snap->notice ? u->snap->notice : NULL)
					: u->first_notice;
	if (u->message && standing)
		return xasprintf("%s\n%s", u->message, standing);
	if (u->message || standing)
		return xstrdup(u->message ? u->message : standing);
	return NULL;
}

static void draw_frame(struct ui *u, struct frame *f)
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
	};
	char *notice = notice_text(u);
	in.notice = notice != NULL;
	ui_power_want(u, &in.power_lines, &in.power_w);
	int wrap_start[3], wrap_len[3];
	if (in.notice)
		in.notice_lines = format_wrap(notice, COLS, wrap_start, wrap_len, 3);
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
		int nl = u->lay.msg.w > 0 ? format_wrap(msg, u->lay.msg.w, ws, wl, maxl) : 0;
		for (int i = 0; i < nl && i < maxl; i++)
			draw_put(i, 0, wl[i] < u->lay.msg.w ? wl[i] : u->lay.msg.w, A_BOLD, msg + ws[i]);
		refresh();
		free(notice);
		return;
	}
	u->nav.page = u->lay.table_data_rows;
	keys_clamp(&u->nav);
	panel_table(u, f);
	panel_ccx(u, f);
	panel_mem(u, f);
	panel_power(u, f);
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
	free(notice);
}

void draw_screen(struct ui *u, struct frame *f)
{
	/* The rows whose errors this frame reads are those the next
	 * intervals find at once (figures.c). */
	ui_errors_frame_begin(u);
	draw_frame(u, f);
	ui_errors_frame_end(u);
}
