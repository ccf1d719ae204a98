/* panel_table.c: the per-CPU (or per-core) table: the visible columns,
 * the heading with the sort mark, one row per CPU or core, and the stacked
 * topdown bar. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "format.h"
#include "util.h"

/* The letter and colour of a bar segment, from its metric's name: F
 * frontend, S bad speculation, B backend, T SMT contention, R retiring; a
 * second segment of the same kind (topdown level 2 splits each in two) is
 * lower case. Letters make the bar readable without colour. */
static char bar_letter(const struct ui *u, const struct view_def *v, int i, int *pair)
{
	static const struct { const char *key; char letter; int pair; } kinds[] = {
		{ "frontend", 'F', CP_BAR0 }, { "bad_spec", 'S', CP_BAR1 }, { "backend", 'B', CP_BAR2 },
		{ "smt", 'T', CP_BAR4 }, { "retir", 'R', CP_BAR3 },
	};
	const char *name = u->m->metrics[v->bar[i]].name;
	char letter = (char)('1' + i % 9);
	*pair = CP_BAR0 + i % 5;
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		if (strstr(name, kinds[k].key)) {
			letter = kinds[k].letter;
			*pair = kinds[k].pair;
			break;
		}
	for (int j = 0; j < i; j++) {
		int p;
		if (bar_letter(u, v, j, &p) == letter)
			return (char)(letter | 0x20);
	}
	return letter;
}

/* The bar's heading: what each letter stands for, shortened to fit
 * width (format_legend). */
static void bar_title(const struct ui *u, const struct view_def *v, char *buf, int len, int width)
{
	char letters[16];
	const char *labels[16];
	int n = v->nbar < 16 ? v->nbar : 16;
	for (int i = 0; i < n; i++) {
		int p;
		const struct metric_def *md = &u->m->metrics[v->bar[i]];
		letters[i] = bar_letter(u, v, i, &p);
		labels[i] = md->label ? md->label : md->name;
	}
	format_legend(buf, len, width, letters, labels, n);
}

/* The stacked topdown bar: one segment per bar metric, widths by the
 * largest remainder so that they add up exactly. */
static void draw_bar(const struct ui *u, int y, int x, int w, const struct snap_row *r)
{
	const struct view_def *v = &u->views[u->nav.view];
	int n = v->nbar < 16 ? v->nbar : 16;
	double val[16], sum = 0;
	for (int i = 0; i < n; i++) {
		double cov;
		val[i] = ui_metric(u, r, v->bar[i], &cov, NULL);
		if (isnan(val[i]) || val[i] < 0) {
			draw_put(y, x, w, 0, "-");
			return;
		}
		sum += val[i];
	}
	if (sum <= 0 || w < 2)
		return;
	int total = (int)lround(w * (sum > 1 ? 1 : sum));
	int seg[16], used = 0;
	double rem[16];
	for (int i = 0; i < n; i++) {
		double exact = val[i] / (sum > 1 ? sum : 1) * w;
		seg[i] = (int)floor(exact);
		rem[i] = exact - seg[i];
		used += seg[i];
	}
	while (used < total) {
		int best = 0;
		for (int i = 1; i < n; i++)
			if (rem[i] > rem[best])
				best = i;
		seg[best]++;
		rem[best] = -1;
		used++;
	}
	int cx = x;
	for (int i = 0; i < n; i++) {
		char s[256];
		int pair;
		int k = seg[i] < (int)sizeof(s) - 1 ? seg[i] : (int)sizeof(s) - 1;
		memset(s, bar_letter(u, v, i, &pair), (size_t)k);
		s[k] = 0;
		draw_put(y, cx, k, ui_attr(u, pair, i % 2 ? A_REVERSE : 0), s);
		cx += k;
	}
}

/* The fixed columns' figures (they are in every view); the view's
 * columns and bar are the request's own (ui_request). */
static void table_needs(const struct panel *p, const struct ui *u, int *ms, int *n, int *pins, int *np)
{
	(void)p;
	(void)pins;
	(void)np;
	ms[(*n)++] = u->m_util;
	ms[(*n)++] = u->m_ghz;
	ms[(*n)++] = u->m_ipc;
}

static void table_want(struct panel *p, const struct ui *u, struct layout_in *in)
{
	(void)p;
	in->table_rows = u->nrows;
}

/* The page is the rows the layout gave the table; the selection and the
 * first row shown are clamped to it before the frame is drawn. */
/* Which columns fit from the scroll offset hscroll: the fixed ones, then
 * the scrolling ones from hscroll on; the bar takes what is left. Returns
 * how many fit (their index, x and width into vis, xs, ws) and sets *cut
 * when a column is left out at the right. */
static int table_fit_grown(const struct ui *u, int hscroll, int *vis, int *xs, int *ws, bool *cut,
			   const int *extra, bool wide);

/* The longest text of column c in the rows. */
static int col_longest(const struct ui *u, const struct ui_col *c)
{
	int longest = 0;
	for (int r = 0; r < u->nrows; r++) {
		char v[256];
		int level;
		double cov;
		int n = (int)strlen(draw_cell(u, c, &u->rows[r], v, sizeof(v), &level, &cov));
		if (n > longest)
			longest = n;
	}
	return longest;
}

/* The width of the topdown bar among the n columns that fit, or 0. */
static int bar_width(const struct ui *u, int n, const int *vis, const int *ws)
{
	for (int k = 0; k < n; k++)
		if (ui_col_info(u->cols[vis[k]].kind)->bar)
			return ws[k];
	return 0;
}

/* As table_fit_grown, with the text columns (a tasks view's names,
 * cgroups and CPU lists) as wide as their longest text where the columns
 * leave the room, given in column order: cgroup paths were cut at 30
 * columns with 20 free. */
static int table_fit(const struct ui *u, int hscroll, int *vis, int *xs, int *ws, bool *cut, bool *wide_out)
{
	/* Headings with their units where every column but the fill ones
	 * fits with them unscrolled (a wide terminal: "IPC insn/cyc"), before
	 * the fill columns take the room, and the topdown bar keeps its
	 * width (at 120 columns its legend was cut). */
	int nn = table_fit_grown(u, 0, vis, xs, ws, cut, NULL, false);
	int bar = bar_width(u, nn, vis, ws);
	int nw = table_fit_grown(u, 0, vis, xs, ws, cut, NULL, true);
	bool wide = !*cut && bar_width(u, nw, vis, ws) >= bar;
	if (wide_out)
		*wide_out = wide;
	int n = table_fit_grown(u, hscroll, vis, xs, ws, cut, NULL, wide);
	if (*cut || n < 1 || u->nrows < 1)
		return n;
	int end = xs[n - 1] + ws[n - 1] + 1 + (vis[n - 1] == u->nav.sort_col);
	int room = u->lay.table.w - end + 1, extra[256] = { 0 };
	bool any = false;
	for (int k = 0; k < n && room > 0; k++) {
		const struct ui_col *c = &u->cols[vis[k]];
		if (!ui_col_info(c->kind)->left || ui_col_info(c->kind)->bar)
			continue;
		int need = col_longest(u, c) - ws[k];
		if (need <= 0)
			continue;
		extra[vis[k]] = need < room ? need : room;
		room -= extra[vis[k]];
		any = true;
	}
	return any ? table_fit_grown(u, hscroll, vis, xs, ws, cut, extra, wide) : n;
}

/* Which columns fit, each extra[i] columns wider (NULL: none). */
static int table_fit_grown(const struct ui *u, int hscroll, int *vis, int *xs, int *ws, bool *cut,
			   const int *extra, bool wide)
{
	const struct rect *t = &u->lay.table;
	int nvis = 0, x = 0, skipped = 0;
	*cut = false;
	for (int i = 0; i < u->ncols; i++) {
		const struct ui_col *c = &u->cols[i];
		if (c->scrolls && skipped < hscroll) {
			skipped++;
			continue;
		}
		int w = c->width + (extra && i < 256 ? extra[i] : 0);
		if (wide && c->wide[0] && (int)strlen(c->wide) > w)
			w = (int)strlen(c->wide);
		/* Room for "+-9.9%" when the uncertainty is shown. */
		if (u->nav.show_err && ui_col_info(c->kind)->figure)
			w += 6;
		if (ui_col_info(c->kind)->bar) {
			w = t->w - x - 1;
			if (w > 60)
				w = 60;
			if (w < 10) {
				*cut = true;
				break;
			}
		}
		if (x + w > t->w || nvis >= 256) {
			/* The fill columns are extras: none that does not fit is
			 * missed, and no other comes after them. */
			*cut = !c->fill;
			break;
		}
		vis[nvis] = i;
		xs[nvis] = x;
		ws[nvis] = w;
		nvis++;
		/* The sort mark takes the gap after its column, so that column
		 * gets a gap more: the mark never runs into the next heading
		 * ("IPCvBrMiss%"). */
		x += w + 1 + (i == u->nav.sort_col);
	}
	return nvis;
}

/* The page is the rows the layout gave the table; the selection and the
 * first row shown are clamped to it before the frame is drawn. The
 * sideways scroll goes no further than shows the last column: none
 * where the columns fit the width (a resize, or a column removed, takes
 * back an offset that is no longer needed). */
static void table_settle(struct panel *p, struct ui *u)
{
	(void)p;
	u->nav.page = u->lay.table_data_rows;
	int vis[256], xs[256], ws[256], need = 0, nscroll = 0;
	bool cut = true;
	for (int i = 0; i < u->ncols; i++)
		nscroll += u->cols[i].scrolls;
	while (need < nscroll - 1) {
		table_fit(u, need, vis, xs, ws, &cut, NULL);
		if (!cut)
			break;
		need++;
	}
	u->nav.nhscroll = need + 1;
	/* > goes no further than the last fill column drawn (the fill
	 * columns that do not fit are not there to sort by). */
	int n = table_fit(u, u->nav.hscroll < need ? u->nav.hscroll : need, vis, xs, ws, &cut, NULL);
	int ncols = u->ncols;
	while (ncols > 0 && u->cols[ncols - 1].fill && (n == 0 || vis[n - 1] < ncols - 1))
		ncols--;
	if (u->nav.sort_col < ncols || !u->cols[u->nav.sort_col].fill)
		u->nav.ncols = ncols;
	keys_clamp(&u->nav);
}

/* One cell's mark (an arrow: one column, up to 3 bytes in UTF-8, which
 * draw_put's byte count would cut at the screen's last column). */
static void put_mark(int y, int x, int attr, const char *mark)
{
	if (y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	attron(attr);
	mvaddstr(y, x, mark);
	attroff(attr);
}

static void table_draw(const struct panel *p, const struct ui *u, struct frame *f)
{
	(void)p;
	const struct rect *t = &u->lay.table;
	if (t->h < 1)
		return;
	int vis[256], xs[256], ws[256];
	bool cut, wide;
	int nvis = table_fit(u, u->nav.hscroll, vis, xs, ws, &cut, &wide);
	f->nvis = nvis;
	for (int k = 0; k < nvis; k++) {
		f->vis_col[k] = vis[k];
		f->vis_x[k] = t->x + xs[k];
		f->vis_w[k] = ws[k];
	}
	draw_fill(t->y, t->x, t->w, ui_attr(u, CP_HEAD, A_REVERSE));
	for (int k = 0; k < nvis; k++) {
		const struct ui_col *c = &u->cols[vis[k]];
		char h[128];
		bool sorted = vis[k] == u->nav.sort_col;
		const struct col_kind_info *ki = ui_col_info(c->kind);
		bool desc = ki->descending != u->nav.sort_reverse;
		if (ki->bar) {
			char bt[256];
			bar_title(u, &u->views[u->nav.view], bt, sizeof(bt), ws[k]);
			snprintf(h, sizeof(h), "%-*.*s", ws[k], ws[k], bt);
		}
		else if (ki->left)
			snprintf(h, sizeof(h), "%-*.*s", ws[k], ws[k], c->title);
		else
			snprintf(h, sizeof(h), "%*.*s", ws[k], ws[k], wide && c->wide[0] ? c->wide : c->title);
		int attr = sorted ? ui_attr(u, CP_SEL, A_BOLD) | (int)A_BOLD : ui_attr(u, CP_HEAD, A_REVERSE);
		draw_put(t->y, t->x + xs[k], ws[k], attr, h);
		/* An arrow, not a letter that reads as part of the name. */
		int mx = t->x + xs[k] + ws[k];
		if (sorted && xs[k] + ws[k] < t->w) {
			put_mark(t->y, mx, attr, u->utf8 ? (desc ? "\u25bc" : "\u25b2") : desc ? "v" : "^");
		}
	}
	/* The table is scrolled: a mark at the heading's edge on each side
	 * that has columns out of sight. */
	if (t->w >= 4) {
		if (u->nav.hscroll > 0)
			put_mark(t->y, t->x + t->w - 2, ui_attr(u, CP_KEY, A_REVERSE) | (int)A_BOLD,
				 u->utf8 ? "\u25c0" : "<");
		if (cut)
			put_mark(t->y, t->x + t->w - 1, ui_attr(u, CP_KEY, A_REVERSE) | (int)A_BOLD,
				 u->utf8 ? "\u25b6" : ">");
	}
	if (u->nrows == 0) {
		const char *why = u->filter_text ? "no CPU matches the filter (\\ changes it)" : "no online CPU to show";
		if (ui_tasks_view(u))
			why = u->tasks_why ? u->tasks_why
			      : !u->snap || !u->snap->tasks_on ? "sampling who runs: the first figures come with the next interval"
			      : (u->filter_text || u->task_match) && u->task_cgroups
				? "no cgroup matches the filter: its path, or a process name in it (\\ changes it)"
			      : u->filter_text || u->task_match ? "no process matches the filter (\\ changes it)"
			      : "no process ran in the interval";
		draw_put(t->y + 1, t->x, t->w, 0, why);
		return;
	}
	for (int i = 0; i < t->h - 1; i++) {
		int ri = u->nav.top + i;
		if (ri >= u->nrows)
			break;
		const struct ui_row *row = &u->rows[ri];
		int y = t->y + 1 + i;
		bool sel = ri == u->nav.sel;
		int base = sel ? ui_attr(u, CP_SEL, A_REVERSE) : 0;
		if (sel)
			draw_fill(y, t->x, t->w, base);
		for (int k = 0; k < nvis; k++) {
			const struct ui_col *c = &u->cols[vis[k]];
			if (ui_col_info(c->kind)->bar) {
				draw_bar(u, y, t->x + xs[k], ws[k], row->r);
				continue;
			}
			char v[256], out[272];
			int level;
			double cov;
			draw_cell(u, c, row, v, sizeof(v), &level, &cov);
			draw_note_cov(f, cov);
			if (ui_col_info(c->kind)->left && (int)strlen(v) > ws[k] && ws[k] > 1) {
				/* Cut, and marked so: a name cut short reads as whole. */
				int a = sel ? base : draw_level_attr(u, level);
				draw_put(y, t->x + xs[k], ws[k] - 1, a, v);
				put_mark(y, t->x + xs[k] + ws[k] - 1, a, u->utf8 ? "\u2026" : "~");
				continue;
			} else if (ui_col_info(c->kind)->left)
				snprintf(out, sizeof(out), "%-*.*s", ws[k], ws[k], v);
			else
				snprintf(out, sizeof(out), "%*s", ws[k], v);
			draw_put(y, t->x + xs[k], ws[k], sel ? base : draw_level_attr(u, level), out);
		}
	}
}

const struct panel_ops panel_table_ops = {
	.name = "table",
	.needs = table_needs,
	.want = table_want,
	.settle = table_settle,
	.draw = table_draw,
};
