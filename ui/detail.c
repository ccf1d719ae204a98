/* detail.c: the detail pane's state, keys, geometry, metric order and
 * reasons for a missing value (detail.h). Pure: no curses. */
#include "config.h"
#include "detail.h"

#include <math.h>
#include <string.h>
#include "keys.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

void detail_open(struct detail *d, enum snap_scope scope, const int ids[SNAP_NSCOPES], int metric)
{
	memset(d, 0, sizeof(*d));
	d->open = true;
	d->scope = scope;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		d->ids[sc] = ids[sc];
	d->ids[SNAP_SYSTEM] = 0;
	d->metric = metric;
}

static int list_pos(const struct detail *d, const int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == d->metric)
			return i;
	return 0;
}

/* Moves the graphed metric to position pos of the list, keeping it on
 * the visible page. */
static void select_pos(struct detail *d, const int *list, int n, int pos)
{
	if (n < 1)
		return;
	pos = imax(0, imin(pos, n - 1));
	d->metric = list[pos];
	int page = imax(d->page, 1);
	if (d->top > pos)
		d->top = pos;
	if (pos >= d->top + page)
		d->top = pos - page + 1;
	d->top = imax(0, imin(d->top, n - page));
}

int detail_key(struct detail *d, int key, const int *list, int n)
{
	if (!d->open)
		return DK_PASS;
	int pos = list_pos(d, list, n), page = imax(d->page, 1);
	switch (key) {
	case UK_ESC:
	case UK_ENTER:
	case 'q': {
		int r = DK_DONE | DK_CLOSED;
		d->open = false;
		if (d->measure_all) {
			d->measure_all = false;
			r |= DK_REQUEST;
		}
		return r;
	}
	case UK_UP: select_pos(d, list, n, pos - 1); return DK_DONE;
	case UK_DOWN: select_pos(d, list, n, pos + 1); return DK_DONE;
	case UK_PGUP: select_pos(d, list, n, pos - page); return DK_DONE;
	case UK_PGDN: select_pos(d, list, n, pos + page); return DK_DONE;
	case UK_HOME: select_pos(d, list, n, 0); return DK_DONE;
	case UK_END: select_pos(d, list, n, n - 1); return DK_DONE;
	case UK_LEFT:
	case UK_RIGHT: {
		/* Left: the next narrower scope the row has; Right: wider. */
		int step = key == UK_RIGHT ? 1 : -1;
		for (int sc = (int)d->scope + step; sc >= 0 && sc < SNAP_NSCOPES; sc += step)
			if (d->ids[sc] >= 0) {
				d->scope = (enum snap_scope)sc;
				break;
			}
		return DK_DONE;
	}
	case 'a':
		d->measure_all = !d->measure_all;
		return DK_DONE | DK_REQUEST;
	default:
		return DK_PASS;
	}
}


const char *detail_scope_name(enum snap_scope sc, const char *l3_domain)
{
	switch (sc) {
	case SNAP_CPU: return "CPU";
	case SNAP_CORE: return "core";
	case SNAP_CCX: return l3_domain ? l3_domain : "CCX";
	case SNAP_SOCKET: return "socket";
	default: return "system";
	}
}

const char *detail_missing_reason(const struct model *m, const struct snapshot *s,
				  enum snap_scope sc, int id, int metric)
{
	if (!m || metric < 0 || metric >= m->nmetrics)
		return "no such metric";
	const struct metric_def *md = &m->metrics[metric];
	/* enum scope and enum snap_scope list the same scopes in the same
	 * order, narrowest first. */
	if ((int)md->scope > (int)sc) {
		static const char *const wider[] = { "", "per core and wider (Right)", "per CCX and wider (Right)",
						     "per socket and wider (Right)", "for the whole system only (Right)" };
		return md->scope < SCOPE_COUNT ? wider[md->scope] : "not at this scope";
	}
	if (!s)
		return "no figures yet";
	if (metric >= s->nmetrics || !s->metric_planned[metric])
		return "not measured in this view (a measures all)";
	for (int k = 0; k < md->nevents; k++)
		if (md->events[k] >= 0 && md->events[k] < s->nevents && !s->event_planned[md->events[k]])
			return "its events cannot be counted here";
	const struct snap_row *r = snapshot_row(s, sc, id);
	if (!r)
		return "this row has no figures (offline, or left out by -C)";
	if (isnan(snap_metric(s, r, metric)))
		return "no value this interval (an event not counted, or a divisor of 0)";
	return NULL;
}

int detail_order(const struct model *m, const struct snapshot *s, enum snap_scope sc, int id, int *list)
{
	int n = 0;
	/* Three passes: with a value, planned without one, the rest. */
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < m->nmetrics; i++) {
			bool planned = s && i < s->nmetrics && s->metric_planned[i];
			bool value = detail_missing_reason(m, s, sc, id, i) == NULL;
			int group = value ? 0 : planned ? 1 : 2;
			if (group == pass)
				list[n++] = i;
		}
	return n;
}

void detail_geometry(const struct rect *area, struct detail_geom *g)
{
	memset(g, 0, sizeof(*g));
	if (area->h < 1 || area->w < 1)
		return;
	g->box = *area;
	int y = area->y + 1, x = area->x + 1, w = area->w - 2;
	int left = area->h - 2;
	if (w < 1 || left < 1)
		return;
	/* The graph gets about half of what the title, stats, heading and
	 * four list lines leave, between one and eight lines. */
	int graph_h = imax(1, imin(8, (left - 7) / 2));
	struct rect *parts[] = { &g->title, &g->graph, &g->stats, &g->head, &g->list };
	int want[] = { 1, graph_h, 1, 1, left };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && left > 0; i++) {
		int h = imin(want[i], left);
		*parts[i] = (struct rect){ y, x, h, w };
		y += h;
		left -= h;
	}
}
