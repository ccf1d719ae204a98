/* panel_detail.c: the detail pane that Enter opens on a table row: the
 * history graph of one metric with its scale, min/avg/max over the
 * history held, and every metric of the model for that row with its value,
 * unit, coverage and uncertainty, or why it has none. Left/Right move the
 * pane to the row's core, CCX, socket or the whole system; 'a' measures
 * every metric of the model while the pane is open. The pane is drawn over
 * the middle of the dashboard on every frame, so it follows new figures
 * and terminal resizes; detail.c holds its pure part. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "spark.h"
#include "util.h"

/* The metric list as the pane shows it now. */
int *ui_detail_metrics(const struct ui *u, int *n)
{
	const struct detail *d = &u->detail;
	int *list = xmalloc(sizeof(int) * (size_t)(u->m->nmetrics + 1));
	*n = detail_order(u->m, u->snap, d->scope, d->ids[d->scope], list);
	return list;
}

static void draw_box(const struct rect *r)
{
	if (r->h < 2 || r->w < 2 || r->y < 0 || r->x < 0 || r->y + r->h > LINES || r->x + r->w > COLS)
		return;
	for (int y = r->y; y < r->y + r->h; y++)
		draw_fill(y, r->x, r->w, 0);
	draw_border(r->y, r->x, r->w, r->h);
}

/* "CPU 17  core 8  CCX 1  socket 0  system" in the top border, the
 * scope shown highlighted. */
static void draw_title(const struct ui *u, const struct rect *box)
{
	const struct detail *d = &u->detail;
	int x = box->x + 2, end = box->x + box->w - 2;
	for (int sc = 0; sc < SNAP_NSCOPES && x < end; sc++) {
		if (d->ids[sc] < 0)
			continue;
		char t[48];
		const char *name = detail_scope_name((enum snap_scope)sc, u->m->l3_domain);
		/* Brackets too: the highlight alone is lost in monochrome. */
		bool cur = sc == (int)d->scope;
		if (sc == SNAP_SYSTEM)
			snprintf(t, sizeof(t), cur ? "[%s]" : " %s ", name);
		else
			snprintf(t, sizeof(t), cur ? "[%s %d]" : " %s %d ", name, d->ids[sc]);
		int attr = cur ? ui_attr(u, CP_SEL, A_REVERSE) | (int)A_BOLD : 0;
		draw_put(box->y, x, end - x, attr, t);
		x += (int)strlen(t);
	}
}

static const char *unit_text(const struct metric_def *md)
{
	if (md->unit && !strcmp(md->unit, "ratio"))
		return "%";
	return format_value_unit(md->unit);
}

/* "12m30s", "45s", "1.5s": a span of time as the pane prints it. */
static void span_text(char *buf, size_t len, double s)
{
	if (s >= 60)
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else if (s >= 10)
		snprintf(buf, len, "%.0fs", s);
	else
		snprintf(buf, len, "%.1fs", s);
}

static void draw_graph(const struct ui *u, const struct detail_geom *g, int metric)
{
	const struct metric_def *md = &u->m->metrics[metric];
	const struct detail *d = &u->detail;
	int id = d->ids[d->scope];
	char label[48], lo_t[32], hi_t[32], line[256], span[24], held[24];
	ui_metric_heading(u, metric, label, sizeof(label));
	text_sanitize_inplace(label);
	int lw = 0, cells = 0;
	double lo = NAN, hi = NAN;
	double *v = NULL;
	/* The y axis: the scale's bounds at the top and bottom rows. Their
	 * width depends on the values shown, which depend on the width left:
	 * the bounds of the widest graph are wide enough for any narrower. */
	for (int pass = 0; pass < 2; pass++) {
		cells = g->graph.w - (lw ? lw + 1 : 0);
		if (cells < 1)
			break;
		free(v);
		v = xmalloc(sizeof(double) * (size_t)cells);
		history_series(&u->hist, d->scope, id, metric, v, cells);
		spark_range(v, cells, &lo, &hi);
		format_value(lo_t, sizeof(lo_t), lo, NULL, md->unit);
		format_value(hi_t, sizeof(hi_t), hi, NULL, md->unit);
		int want = (int)(strlen(lo_t) > strlen(hi_t) ? strlen(lo_t) : strlen(hi_t));
		if (pass == 1 || want == lw || isnan(lo) || g->graph.h < 2)
			break;
		lw = want;
	}
	int nheld = history_count(&u->hist);
	/* The intervals' measured length, not the nominal delay: "96
	 * intervals of 1s (1m24s)" disagreed with itself when intervals ran
	 * short; the average of what is held agrees with the total. */
	double total = history_span(&u->hist);
	double iv = nheld > 0 && total > 0 ? total / nheld : history_interval(&u->hist);
	span_text(held, sizeof(held), total);
	span_text(span, sizeof(span), cells * (isnan(iv) ? 0 : iv));
	/* One cell per interval: the graph shows the newest ones that fit. */
	int n = 0;
	if (nheld == 0)
		n = snprintf(line, sizeof(line), "%s  no history yet", label);
	else if (isnan(lo))
		n = snprintf(line, sizeof(line), "%s  no value in the last %s", label, span);
	else
		n = snprintf(line, sizeof(line), "%s  %s..%s", label, lo_t, hi_t);
	if (nheld > 0 && nheld > cells)
		snprintf(line + n, sizeof(line) - (size_t)n, "  last %d of %d intervals (%s of %s, %.3gs each)", cells,
			 nheld, span, held, iv);
	else if (nheld > 0)
		snprintf(line + n, sizeof(line) - (size_t)n, "  %d interval%s in %s (%.3gs each)", nheld,
			 nheld > 1 ? "s" : "", held, iv);
	draw_put(g->title.y, g->title.x, g->title.w, A_BOLD, line);
	if (cells >= 1 && v) {
		char *buf = xmalloc((size_t)cells * SPARK_CELL_MAX + 1);
		for (int r = 0; r < g->graph.h; r++) {
			int y = g->graph.y + r;
			if (lw && !isnan(lo)) {
				const char *axis = r == 0 ? hi_t : r == g->graph.h - 1 ? lo_t : "";
				snprintf(line, sizeof(line), "%*s", lw, g->graph.h > 1 ? axis : "");
				draw_put(y, g->graph.x, lw, A_DIM, line);
			}
			spark_graph_row(buf, (size_t)cells * SPARK_CELL_MAX + 1, v, cells, cells, lo, hi,
					g->graph.h, r, u->utf8);
			draw_glyphs(y, g->graph.x + (lw ? lw + 1 : 0), cells, ui_attr(u, CP_GOOD, 0), buf);
		}
		free(buf);
	}
	free(v);

	/* Now, and min/avg/max over all that is held. */
	const struct snap_row *r = ui_scope_row(u->snap, d->scope, id);
	double cov, rse, now = ui_metric(u, r, metric, &cov, &rse);
	struct history_stats st;
	history_stats(&u->hist, d->scope, id, metric, &st);
	char a[32], b[32], c[32], nw[48];
	format_value_rse(nw, sizeof(nw), now, rse, false, NULL, md->unit);
	format_value(a, sizeof(a), st.min, NULL, md->unit);
	format_value(b, sizeof(b), st.avg, NULL, md->unit);
	format_value(c, sizeof(c), st.max, NULL, md->unit);
	/* "93.8%", but "1.23 insn/cyc". */
	const char *un = strcmp(nw, "-") ? unit_text(md) : "";
	int k = snprintf(line, sizeof(line), "now %s%s%s  min %s  avg %s  max %s  over %s", nw,
			 *un && strcmp(un, "%") ? " " : "", un, a, b, c, held);
	if (st.n < nheld)
		snprintf(line + k, sizeof(line) - (size_t)k, " (%d of %d intervals had a value)", st.n, nheld);
	draw_put(g->stats.y, g->stats.x, g->stats.w, 0, line);
}

/* Cuts text (ASCII, sanitised) to w columns at a word, with "..." where
 * it was cut: descriptions ran into the pane's right border. */
static void fit_words(char *s, int w)
{
	int n = (int)strlen(s);
	if (n <= w)
		return;
	if (w < 4) {
		s[w > 0 ? w : 0] = 0;
		return;
	}
	int cut = w - 3;
	while (cut > w / 2 && s[cut] != ' ')
		cut--;
	if (s[cut] != ' ')
		cut = w - 3;
	while (cut > 0 && s[cut - 1] == ' ')
		cut--;
	memcpy(s + cut, "...", 4);
}

static void draw_list(const struct ui *u, const struct detail_geom *g, const int *list, int n)
{
	const struct detail *d = &u->detail;
	int id = d->ids[d->scope];
	const struct snap_row *r = ui_scope_row(u->snap, d->scope, id);
	const char *pm = u->utf8 ? "\u00b1" : "+-";
	char line[512], head[64], pct[16];
	snprintf(pct, sizeof(pct), "%s95%%", pm);
	int pctw = 7 + (int)strlen(pm) - 1;
	/* The metric's name takes what the figures leave, 8 to 24 columns. */
	int nw = g->list.w - 38;
	nw = nw < 8 ? 8 : nw > 24 ? 24 : nw;
	bool unknown = false;   /* a "?" shown: the heading says what it means */
	for (int i = 0; i < g->list.h && d->top + i < n; i++) {
		int mi = list[d->top + i];
		const struct metric_def *md = &u->m->metrics[mi];
		const char *why = detail_missing_reason(u->m, u->snap, d->scope, id, mi);
		char val[48] = "-", cov_t[16] = "", err[24] = "";
		if (!why) {
			double cov, rse, v = ui_metric(u, r, mi, &cov, &rse);
			format_value_rse(val, sizeof(val), v, rse, false, NULL, md->unit);
			if (!isnan(cov))
				snprintf(cov_t, sizeof(cov_t), "%.0f%%", cov * 100);
			if (rse == 0)
				snprintf(err, sizeof(err), "exact");
			else if (isfinite(rse))
				snprintf(err, sizeof(err), 196 * rse < 10 ? "%s%.1f%%" : "%s%.0f%%", pm, 196 * rse);
			else {
				snprintf(err, sizeof(err), "?");
				unknown = true;
			}
		}
		ui_metric_heading(u, mi, head, sizeof(head));
		text_sanitize_inplace(head);
		char desc[160];
		snprintf(desc, sizeof(desc), "%s", why ? why : md->desc ? md->desc : md->name);
		/* An imported model's metric under pmctop's name keeps perf's
		 * (events/perf/common-*.def): said, unless the text says it. */
		if (!why && md->perf && strcmp(md->perf, md->name) && !strstr(desc, md->perf)) {
			size_t l = strlen(desc);
			snprintf(desc + l, sizeof(desc) - l, " (perf: %s)", md->perf);
		}
		text_sanitize_inplace(desc);
		bool sel = mi == d->metric;
		/* printf pads bytes: "±" is two bytes in one column. */
		int errw = 7 + (int)(strlen(err) > 0 && !strncmp(err, pm, strlen(pm)) ? strlen(pm) - 1 : 0);
		int pre = snprintf(line, sizeof(line), "%s %-*.*s %10s %-8.8s %5s %*s  ", sel ? ">" : " ", nw, nw,
				   head, val, why ? "" : unit_text(md), cov_t, errw, err);
		int cols = pre - (errw - 7);   /* columns, "±" counted once */
		fit_words(desc, g->list.w - cols - 1);
		snprintf(line + pre, sizeof(line) - (size_t)pre, "%s", desc);
		int attr = sel ? ui_attr(u, CP_SEL, A_REVERSE) : why ? (int)A_DIM : 0;
		if (sel)
			draw_fill(g->list.y + i, g->list.x, g->list.w, attr);
		draw_put(g->list.y + i, g->list.x, g->list.w, attr, line);
	}
	snprintf(line, sizeof(line), "  %-*s %10s %-8s %5s %*s  %s", nw, "metric", "value", "unit", "cov", pctw, pct,
		 unknown ? "description (?: too few samples yet to judge the error)"
			 : "description, or why there is no value");
	int cols = (int)strlen(line) - (pctw - 7);
	draw_put(g->head.y, g->head.x, g->head.w, ui_attr(u, CP_HEAD, A_REVERSE), line);
	draw_fill(g->head.y, g->head.x + cols, g->head.w - cols, ui_attr(u, CP_HEAD, A_REVERSE));
}

/* The pane's geometry: between the header (and the notice, which
 * carries messages) and the footer. False: no room for it. */
static bool detail_place(const struct ui *u, struct detail_geom *g)
{
	int y0 = u->lay.header.y + u->lay.header.h;
	if (u->lay.notice.h > 0 && u->lay.notice.y + u->lay.notice.h > y0)
		y0 = u->lay.notice.y + u->lay.notice.h;
	struct rect area = { y0, 0, u->lay.footer.y - y0, COLS };
	detail_geometry(&area, g);
	return g->box.h >= 3 && g->box.w >= 10;
}

/* Before the frame: the metric shown is one the list holds (the first
 * when it is gone), and the list scrolls to keep it in sight. */
static void detail_settle(struct panel *p, struct ui *u)
{
	(void)p;
	struct detail *d = &u->detail;
	struct detail_geom g;
	if (!d->open || !detail_place(u, &g))
		return;
	int n;
	int *list = ui_detail_metrics(u, &n);
	if (n > 0) {
		int pos = -1;
		for (int i = 0; i < n; i++)
			if (list[i] == d->metric)
				pos = i;
		if (pos < 0) {
			d->metric = list[0];
			pos = 0;
		}
		d->page = g.list.h > 0 ? g.list.h : 1;
		if (d->top > pos)
			d->top = pos;
		if (pos >= d->top + d->page)
			d->top = pos - d->page + 1;
		if (d->top > n - d->page)
			d->top = n - d->page;
		if (d->top < 0)
			d->top = 0;
	}
	free(list);
}

/* Its keys while it is open (detail_key); a request again when 'a'
 * changes what is measured. */
static int detail_keyop(struct panel *p, struct ui *u, int key)
{
	(void)p;
	if (!u->detail.open)
		return PANEL_KEY_PASS;
	int n;
	int *list = ui_detail_metrics(u, &n);
	int r = detail_key(&u->detail, key, list, n);
	free(list);
	if ((r & DK_REQUEST) && u->detail.measure_all)
		ui_set_message(u, "measuring every metric while the pane is open: more groups, less coverage each");
	if (r == DK_PASS)
		return PANEL_KEY_PASS;
	return PANEL_KEY_TAKEN | (r & DK_REQUEST ? PANEL_KEY_REQUEST : 0);
}

static void detail_draw(const struct panel *p, const struct ui *u, struct frame *f)
{
	(void)p;
	(void)f;
	const struct detail *d = &u->detail;
	if (!d->open || u->lay.too_small)
		return;
	struct detail_geom g;
	if (!detail_place(u, &g))
		return;
	draw_box(&g.box);
	draw_title(u, &g.box);
	int n;
	int *list = ui_detail_metrics(u, &n);
	if (n > 0) {
		draw_graph(u, &g, d->metric);
		draw_list(u, &g, list, n);
	}
	free(list);
	/* The keys in the bottom border, in as many words as fit. */
	char hint[160];
	const char *a = d->measure_all ? "the view's metrics only" : "measure every metric";
	const char *all = d->measure_all ? "view's only" : "all metrics";
	for (int i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(hint, sizeof(hint), " Up/Down: metric  Left/Right: CPU, core, %s, socket, system  a: %s  Esc: close ",
				 detail_scope_name(SNAP_CCX, u->m->l3_domain), a);
		else if (i == 1)
			snprintf(hint, sizeof(hint), " Up/Down metric  Left/Right scope  a %s  Esc close ", all);
		else
			snprintf(hint, sizeof(hint), " Up/Down  Left/Right  a  Esc ");
		if ((int)strlen(hint) <= g.box.w - 4)
			break;
	}
	draw_put(g.box.y + g.box.h - 1, g.box.x + 2, g.box.w - 4, A_DIM, hint);
}

const struct panel_ops panel_detail_ops = {
	.name = "detail",
	.settle = detail_settle,
	.draw = detail_draw,
	.key = detail_keyop,
};
