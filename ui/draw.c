/* draw.c: the panels of the dashboard, drawn into the rectangles that
 * layout_compute() gives: header, notice, CCX panels, per-CPU table, memory
 * panel and footer. Every string is clipped to its rectangle, so that no
 * size or topology can write outside it. */
#include "config.h"
#include "uiint.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"
#include "util.h"

/* Writes s at (y, x), at most w columns, with attr. */
static void put(int y, int x, int w, int attr, const char *s)
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
static void fill(int y, int x, int w, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attron(attr);
	mvhline(y, x, ' ', w);
	attroff(attr);
}

static int level_attr(struct ui *u, int level)
{
	if (level >= 2)
		return ui_attr(u, CP_CRIT, A_BOLD) | A_BOLD;
	if (level == 1)
		return ui_attr(u, CP_WARN, A_UNDERLINE);
	return 0;
}

static void note_cov(struct ui *u, double cov)
{
	if (!isnan(cov) && cov < u->min_cov)
		u->min_cov = cov;
}

/* A metric of a row as text, "-" when absent. */
static const char *metric_text(struct ui *u, const struct snap_row *r, int metric,
			       const char *fmt, char *buf, int len)
{
	double cov;
	double v = ui_metric(u, r, metric, &cov);
	if (!isnan(v))
		note_cov(u, cov);
	const char *unit = metric >= 0 && metric < u->m->nmetrics ? u->m->metrics[metric].unit : NULL;
	return fmt_value(buf, len, v, cov, fmt, unit);
}

static double event_rate(struct ui *u, const struct snap_row *r, int e, double *cov)
{
	*cov = NAN;
	if (!r || !u->snap || !r->event || e < 0 || e >= u->snap->nevents)
		return NAN;
	if (r->event_cov)
		*cov = r->event_cov[e];
	double iv = u->snap->interval_s > 0 ? u->snap->interval_s : NAN;
	return r->event[e] / iv;
}

const char *draw_cell(struct ui *u, const struct ui_col *c, const struct ui_row *row,
		      char *buf, int len, int *level)
{
	double v, cov;
	*level = 0;
	switch (c->kind) {
	case COL_CPU:
		if (!u->nav.per_core) {
			snprintf(buf, (size_t)len, "%d", row->cpu);
		} else {
			/* The core's CPUs, e.g. "0,192". */
			const struct topo_core *tc = &u->topo->cores[row->core];
			int n = 0;
			buf[0] = 0;
			for (int j = 0; j < tc->ncpus && n < len - 1; j++)
				n += snprintf(buf + n, (size_t)(len - n), j ? ",%d" : "%d", tc->cpus[j]);
		}
		return buf;
	case COL_CORE:
		snprintf(buf, (size_t)len, "%d", row->core);
		return buf;
	case COL_CCX:
		if (row->ccx < 0)
			snprintf(buf, (size_t)len, "-");
		else
			snprintf(buf, (size_t)len, "%d", row->ccx);
		return buf;
	case COL_METRIC:
		v = ui_metric(u, row->r, c->idx, &cov);
		if (c->vc)
			*level = fmt_level(v, c->vc->warn, c->vc->crit, c->vc->low_is_bad);
		if (!isnan(v))
			note_cov(u, cov);
		return fmt_value(buf, len, v, cov, c->vc ? c->vc->fmt : NULL, u->m->metrics[c->idx].unit);
	case COL_EVENT:
		v = event_rate(u, row->r, c->idx, &cov);
		if (!isnan(v))
			note_cov(u, cov);
		return fmt_value(buf, len, v, cov, NULL, "/s");
	case COL_BAR:
		buf[0] = 0;
		return buf;
	}
	buf[0] = 0;
	return buf;
}

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

/* The bar's heading: what each letter stands for. */
static void bar_title(const struct ui *u, const struct view_def *v, char *buf, int len)
{
	int n = 0;
	buf[0] = 0;
	for (int i = 0; i < v->nbar && n < len - 1; i++) {
		int p;
		const struct metric_def *md = &u->m->metrics[v->bar[i]];
		n += snprintf(buf + n, (size_t)(len - n), "%s%c=%s", i ? " " : "", bar_letter(u, v, i, &p),
			      md->label ? md->label : md->name);
	}
}

/* The stacked topdown bar: one segment per bar metric, widths by the
 * largest remainder so that they add up exactly. */
static void draw_bar(struct ui *u, int y, int x, int w, const struct snap_row *r)
{
	const struct view_def *v = &u->m->views[u->nav.view];
	int n = v->nbar < 16 ? v->nbar : 16;
	double val[16], sum = 0;
	for (int i = 0; i < n; i++) {
		double cov;
		val[i] = ui_metric(u, r, v->bar[i], &cov);
		if (isnan(val[i]) || val[i] < 0) {
			put(y, x, w, 0, "-");
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
		put(y, cx, k, ui_attr(u, pair, i % 2 ? A_REVERSE : 0), s);
		cx += k;
	}
}

static void draw_table(struct ui *u)
{
	const struct rect *t = &u->lay.table;
	if (t->h < 1)
		return;
	/* Which columns fit: the fixed ones, then the scrolling ones from
	 * hscroll on; the bar takes what is left. */
	int vis[256], nvis = 0, xs[256], ws[256];
	int x = 0, skipped = 0;
	for (int i = 0; i < u->ncols && nvis < 256; i++) {
		const struct ui_col *c = &u->cols[i];
		if (c->scrolls && skipped < u->nav.hscroll) {
			skipped++;
			continue;
		}
		int w = c->width;
		if (c->kind == COL_BAR) {
			w = t->w - x - 1;
			if (w > 60)
				w = 60;
			if (w < 10)
				break;
		}
		if (x + w > t->w)
			break;
		vis[nvis] = i;
		xs[nvis] = x;
		ws[nvis] = w;
		nvis++;
		x += w + 1;
	}
	fill(t->y, t->x, t->w, ui_attr(u, CP_HEAD, A_REVERSE));
	for (int k = 0; k < nvis; k++) {
		const struct ui_col *c = &u->cols[vis[k]];
		char h[128];
		bool sorted = vis[k] == u->nav.sort_col;
		bool desc = (c->kind == COL_METRIC || c->kind == COL_EVENT) != u->nav.sort_reverse;
		if (c->kind == COL_BAR) {
			char bt[256];
			bar_title(u, &u->m->views[u->nav.view], bt, sizeof(bt));
			snprintf(h, sizeof(h), "%-*.*s", ws[k], ws[k], bt);
		}
		else
			snprintf(h, sizeof(h), "%*.*s", ws[k], ws[k], c->title);
		int attr = sorted ? ui_attr(u, CP_SEL, A_BOLD) | (int)A_BOLD : ui_attr(u, CP_HEAD, A_REVERSE);
		put(t->y, t->x + xs[k], ws[k], attr, h);
		if (sorted && xs[k] + ws[k] < t->w)
			put(t->y, t->x + xs[k] + ws[k], 1, attr, desc ? "v" : "^");
	}
	if (u->nrows == 0) {
		put(t->y + 1, t->x, t->w, 0, u->filter_text ? "no CPU matches the filter (/ changes it)"
							 : "no online CPU to show");
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
			fill(y, t->x, t->w, base);
		for (int k = 0; k < nvis; k++) {
			const struct ui_col *c = &u->cols[vis[k]];
			if (c->kind == COL_BAR) {
				draw_bar(u, y, t->x + xs[k], ws[k], row->r);
				continue;
			}
			char v[64], out[80];
			int level;
			draw_cell(u, c, row, v, sizeof(v), &level);
			snprintf(out, sizeof(out), "%*s", ws[k], v);
			put(y, t->x + xs[k], ws[k], sel ? base : level_attr(u, level), out);
		}
	}
}

/* The metric the core strips show: the sort column if it is a metric,
 * else utilisation (or IPC). */
static int strip_metric(struct ui *u, const struct view_col **vc)
{
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	*vc = NULL;
	if (c->kind == COL_METRIC) {
		*vc = c->vc;
		return c->idx;
	}
	return u->m_util >= 0 ? u->m_util : u->m_ipc;
}

static void draw_strip(struct ui *u, int y, int x, int w, int lines, int ccx, int metric,
		       const struct view_col *vc, double max)
{
	static const char levels[] = ".:-=+*#%@";
	const struct topo_ccx *cx = &u->topo->ccxs[ccx];
	for (int j = 0; j < cx->ncores && j < w * lines; j++) {
		double v = ui_metric(u, ui_scope_row(u->snap, SNAP_CORE, cx->cores[j]), metric, NULL);
		char s[2] = "-";
		int attr = 0;
		if (!isnan(v)) {
			double f = max > 0 ? v / max : 0;
			int l = (int)(f * 8.999);
			l = l < 0 ? 0 : l > 8 ? 8 : l;
			s[0] = levels[l];
			if (vc && (!isnan(vc->warn) || !isnan(vc->crit)))
				attr = level_attr(u, fmt_level(v, vc->warn, vc->crit, vc->low_is_bad));
			else
				attr = ui_attr(u, f > 0.66 ? CP_CRIT : f > 0.33 ? CP_WARN : CP_GOOD, 0);
		}
		put(y + j / w, x + j % w, 1, attr, s);
	}
}

/* Appends a unit to a value, but not to "-" (no value has no unit). */
static void add_unit(char *buf, size_t len, const char *unit)
{
	size_t n = strlen(buf);
	if (strcmp(buf, "-") != 0 && n < len)
		snprintf(buf + n, len - n, "%s", unit);
}

static void ccx_figures(struct ui *u, int i, char *acc, char *hit, char *lat, char *ipc, char *ghz)
{
	const struct snap_row *r = ui_scope_row(u->snap, SNAP_CCX, i);
	double cov = NAN, v = NAN;
	if (u->m_l3rate >= 0) {
		v = ui_metric(u, r, u->m_l3rate, &cov);
	} else if (u->m_l3acc >= 0 && u->snap && u->snap->interval_s > 0) {
		v = ui_metric(u, r, u->m_l3acc, &cov) / u->snap->interval_s;
	}
	if (!isnan(v))
		note_cov(u, cov);
	fmt_value(acc, 16, v, cov, NULL, "/s");
	add_unit(acc, 16, "/s");
	metric_text(u, r, u->m_l3hit, "pct", hit, 16);
	add_unit(hit, 16, "%");
	metric_text(u, r, u->m_l3lat, "%.0f", lat, 16);
	add_unit(lat, 16, "ns");
	metric_text(u, r, u->m_ipc, "%.2f", ipc, 16);
	metric_text(u, r, u->m_ghz, "%.2f", ghz, 16);
	add_unit(ghz, 16, "GHz");
}

static void draw_ccx(struct ui *u)
{
	const struct layout *l = &u->lay;
	if (l->ccx_mode == CCX_HIDDEN || l->ccx.h < 1)
		return;
	const struct view_col *vc;
	int metric = strip_metric(u, &vc);
	double max = 0;
	for (int i = 0; i < u->topo->ncores; i++) {
		double v = ui_metric(u, ui_scope_row(u->snap, SNAP_CORE, i), metric, NULL);
		if (!isnan(v) && v > max)
			max = v;
	}
	int title = ui_attr(u, CP_TITLE, A_BOLD);
	for (int i = 0; i < u->topo->nccx && i <= l->ccx_shown; i++) {
		int slot_y = l->ccx.y + (i / l->ccx_per_row) * l->ccx_box_h;
		int slot_x = l->ccx.x + (i % l->ccx_per_row) * l->ccx_box_w;
		char acc[16], hit[16], lat[16], ipc[16], ghz[16], line[160];
		if (i == l->ccx_shown) {
			if (i < u->topo->nccx) {
				snprintf(line, sizeof(line), "+%d more CCX (c hides the panels)", u->topo->nccx - i);
				put(slot_y, slot_x, l->ccx_box_w, A_DIM, line);
			}
			break;
		}
		const struct topo_ccx *cx = &u->topo->ccxs[i];
		ccx_figures(u, i, acc, hit, lat, ipc, ghz);
		if (l->ccx_mode == CCX_LINES) {
			snprintf(line, sizeof(line), "CCX%-3d S%d L3 %9s hit %6s lat %6s IPC %5s %7s ",
				 i, cx->socket, acc, hit, lat, ipc, ghz);
			int n = (int)strlen(line);
			put(slot_y, slot_x, l->ccx_box_w - 1, title, line);
			if (n < l->ccx_box_w - 1)
				draw_strip(u, slot_y, slot_x + n, l->ccx_box_w - 1 - n, 1, i, metric, vc, max);
			continue;
		}
		int w = l->ccx_box_w, h = l->ccx_box_h;
		if (slot_x + w > COLS || slot_y + h > LINES)
			continue;
		mvaddch(slot_y, slot_x, ACS_ULCORNER);
		mvhline(slot_y, slot_x + 1, ACS_HLINE, w - 2);
		mvaddch(slot_y, slot_x + w - 1, ACS_URCORNER);
		mvvline(slot_y + 1, slot_x, ACS_VLINE, h - 2);
		mvvline(slot_y + 1, slot_x + w - 1, ACS_VLINE, h - 2);
		mvaddch(slot_y + h - 1, slot_x, ACS_LLCORNER);
		mvhline(slot_y + h - 1, slot_x + 1, ACS_HLINE, w - 2);
		mvaddch(slot_y + h - 1, slot_x + w - 1, ACS_LRCORNER);
		snprintf(line, sizeof(line), " CCX %d  socket %d  %d CPUs ", i, cx->socket, cx->ncpus);
		put(slot_y, slot_x + 2, w - 4, title, line);
		snprintf(line, sizeof(line), "L3 %s  hit %s", acc, hit);
		put(slot_y + 1, slot_x + 1, w - 2, 0, line);
		snprintf(line, sizeof(line), "miss %s IPC %s %s", lat, ipc, ghz);
		put(slot_y + 2, slot_x + 1, w - 2, 0, line);
		draw_strip(u, slot_y + 3, slot_x + 1, w - 2, l->strip_lines, i, metric, vc, max);
	}
}

/* The unit printed after a value, e.g. "GB/s"; empty for plain figures. */
static const char *unit_of(const struct ui *u, int metric)
{
	if (metric < 0 || metric >= u->m->nmetrics || !u->m->metrics[metric].unit)
		return "";
	const char *un = u->m->metrics[metric].unit;
	return strcmp(un, "count") == 0 || strcmp(un, "ratio") == 0 ? "" : un;
}

static void draw_mem(struct ui *u)
{
	const struct rect *m = &u->lay.mem;
	if (m->h < 1)
		return;
	char line[256];
	snprintf(line, sizeof(line), "%-14s %12s %12s %9s", "Memory (UMC)", "read", "write", "bus util");
	fill(m->y, m->x, m->w, ui_attr(u, CP_HEAD, A_REVERSE));
	put(m->y, m->x, m->w, ui_attr(u, CP_HEAD, A_REVERSE), line);
	for (int s = 0; s < u->topo->nsockets && s < m->h - 1; s++) {
		const struct snap_row *r = ui_scope_row(u->snap, SNAP_SOCKET, s);
		char rd[32], wr[32], bus[32], name[32];
		metric_text(u, r, u->m_memrd, "%.2f", rd, sizeof(rd));
		metric_text(u, r, u->m_memwr, "%.2f", wr, sizeof(wr));
		metric_text(u, r, u->m_membus, "pct", bus, sizeof(bus));
		snprintf(name, sizeof(name), "socket %d", s);
		add_unit(bus, sizeof(bus), "%");
		snprintf(line, sizeof(line), "%-14s %7s %-4s %7s %-4s %9s", name, rd, unit_of(u, u->m_memrd),
			 wr, unit_of(u, u->m_memwr), bus);
		put(m->y + 1 + s, m->x, m->w, 0, line);
	}
	if (u->topo->nsockets > m->h - 1) {
		snprintf(line, sizeof(line), "+%d more sockets", u->topo->nsockets - (m->h - 1));
		put(m->y + m->h - 1, m->x + m->w - 20, 20, A_DIM, line);
	}
}

static void draw_footer(struct ui *u)
{
	static const struct { const char *k, *label; } items[] = {
		{ "F1", "Help" }, { "Tab", "View" }, { "e", "Event" }, { "<>", "Sort" },
		{ "R", "Rev" }, { "c", "CCX" }, { "t", "Thr/Core" }, { "Spc", "Pause" },
		{ "+-", "Delay" }, { "/", "Filter" }, { "q", "Quit" },
	};
	const struct rect *f = &u->lay.footer;
	int x = f->x;
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		int kl = (int)strlen(items[i].k), ll = (int)strlen(items[i].label);
		if (x + kl + ll + 1 > f->w)
			break;
		put(f->y, x, kl, ui_attr(u, CP_KEY, A_REVERSE), items[i].k);
		put(f->y, x + kl, ll + 1, 0, items[i].label);
		x += kl + ll + 1;
	}
}

static const char *notice_text(struct ui *u)
{
	if (u->message)
		return u->message;
	if (u->snap && u->snap->notice && *u->snap->notice)
		return u->snap->notice;
	const char *n = sampler_notice(u->sampler);
	return n && *n ? n : NULL;
}

static void draw_header(struct ui *u)
{
	const struct rect *h = &u->lay.header;
	char line[512], a[32], b[32], c[32];
	int x = 0;
	put(h->y, x, h->w, A_BOLD, "pmctop");
	x += 7;
	snprintf(line, sizeof(line), "%s  %s  model %s ", u->cfg->host ? u->cfg->host : "?",
		 u->cfg->cpu_name ? u->cfg->cpu_name : "unknown CPU", u->m->name ? u->m->name : "?");
	put(h->y, x, h->w - x, 0, line);
	x += (int)strlen(line);
	bool sim = u->cfg->simulated || (u->snap && u->snap->simulated);
	if (sim && x < h->w) {
		put(h->y, x, h->w - x, A_REVERSE | A_BOLD, "SIMULATED");
		x += 10;
	}
	char cov[16] = "-";
	if (u->min_cov <= 1)
		snprintf(cov, sizeof(cov), "%.0f%%", u->min_cov * 100);
	snprintf(line, sizeof(line), " delay %.1fs  rotate %.0fms  min cov %s%s", u->nav.delay_s,
		 u->snap && u->snap->rotate_ms > 0 ? u->snap->rotate_ms : u->cfg->rotate_ms, cov, u->nav.paused ? "  PAUSED" : "");
	put(h->y, x, h->w - x, 0, line);

	const struct snap_row *sys = ui_scope_row(u->snap, SNAP_SYSTEM, 0);
	if (!sys && u->snap && u->snap->rows[SNAP_SYSTEM] && u->snap->nrows[SNAP_SYSTEM] > 0)
		sys = &u->snap->rows[SNAP_SYSTEM][0];
	metric_text(u, sys, u->m_ipc, "%.2f", a, sizeof(a));
	metric_text(u, sys, u->m_ghz, "%.2f", b, sizeof(b));
	metric_text(u, sys, u->m_util, "pct", c, sizeof(c));
	add_unit(c, sizeof(c), "%");
	int n = snprintf(line, sizeof(line), "System  IPC %s  GHz %s  util %s", a, b, c);
	if (u->nav.view < u->m->nviews) {
		const struct view_def *v = &u->m->views[u->nav.view];
		n += snprintf(line + n, sizeof(line) - (size_t)n, "  |  %s:", v->title ? v->title : v->name);
		for (int i = 0, shown = 0; i < v->ncols && shown < 4 && n < (int)sizeof(line) - 64; i++) {
			int mi = v->cols[i].metric;
			if (mi < 0 || mi >= u->m->nmetrics || mi == u->m_ipc || mi == u->m_ghz || mi == u->m_util)
				continue;
			metric_text(u, sys, mi, v->cols[i].fmt, a, sizeof(a));
			const struct metric_def *md = &u->m->metrics[mi];
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s %s",
				      md->label ? md->label : md->name, a);
			shown++;
		}
	}
	put(h->y + 1, 0, h->w, 0, line);
	if (h->h < 3)
		return;
	const struct ui_col *sc = &u->cols[u->nav.sort_col];
	char status[256];
	snprintf(status, sizeof(status), "  sort %s%s%s%s  rows %s", sc->title, u->nav.sort_reverse ? " (rev)" : "",
		 u->filter_text ? "  filter " : "", u->filter_text ? u->filter_text : "",
		 u->nav.per_core ? "per core" : "per CPU");
	/* All the views as tabs when they fit beside the status, else only
	 * the active one. */
	int tabs = 0;
	for (int i = 0; i < u->m->nviews; i++)
		tabs += (int)strlen(u->m->views[i].name) + 4;
	bool all = tabs + (int)strlen(status) <= h->w;
	x = 0;
	for (int i = 0; i < u->m->nviews && x < h->w; i++) {
		const struct view_def *v = &u->m->views[i];
		if (!all && i != u->nav.view)
			continue;
		if (v->key > 0)
			snprintf(line, sizeof(line), " %d:%s ", v->key, v->name);
		else
			snprintf(line, sizeof(line), " %s ", v->name);
		int attr = i == u->nav.view ? ui_attr(u, CP_SEL, A_REVERSE) | (int)A_BOLD : 0;
		put(h->y + 2, x, h->w - x, attr, line);
		x += (int)strlen(line);
	}
	put(h->y + 2, x, h->w - x, 0, status);
}

void draw_screen(struct ui *u)
{
	const struct topo *t = u->topo;
	int cells = 0;
	for (int i = 0; i < t->nccx; i++)
		if (t->ccxs[i].ncores > cells)
			cells = t->ccxs[i].ncores;
	struct layout_in in = {
		.rows = LINES, .cols = COLS,
		.table_rows = u->nrows,
		.nccx = t->nccx, .ccx_cells = cells, .nsockets = t->nsockets,
		.show_ccx = u->nav.show_ccx,
		.show_mem = u->m_memrd >= 0 || u->m_memwr >= 0 || u->m_membus >= 0,
		.notice = notice_text(u) != NULL,
	};
	int wrap_start[3], wrap_len[3];
	if (in.notice)
		in.notice_lines = fmt_wrap(notice_text(u), COLS, wrap_start, wrap_len, 3);
	layout_compute(&in, &u->lay);
	erase();
	if (u->lay.too_small) {
		char msg[128];
		snprintf(msg, sizeof(msg), "pmctop: terminal %dx%d is too small; needs %dx%d (q quits)",
			 COLS, LINES, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
		if (u->lay.msg.w > 0)
			put(0, 0, u->lay.msg.w, A_BOLD, msg);
		refresh();
		return;
	}
	u->nav.page = u->lay.table_data_rows;
	keys_clamp(&u->nav);
	u->min_cov = 2;
	draw_table(u);
	draw_ccx(u);
	draw_mem(u);
	const char *notice = notice_text(u);
	for (int i = 0; notice && i < u->lay.notice.h && i < in.notice_lines && i < 3; i++) {
		int y = u->lay.notice.y + i;
		fill(y, 0, u->lay.notice.w, ui_attr(u, CP_NOTICE, A_BOLD));
		put(y, 0, wrap_len[i] < u->lay.notice.w ? wrap_len[i] : u->lay.notice.w, ui_attr(u, CP_NOTICE, A_BOLD),
		    notice + wrap_start[i]);
	}
	draw_footer(u);
	draw_header(u);
	refresh();
}
