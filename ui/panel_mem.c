/* panel_mem.c: the memory panel: read and write bandwidth and bus
 * utilisation per socket, from the memory controller metrics; where the
 * CPU counts only the total (Zen 3's data fabric), the total. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "util.h"

/* Its figures, found by name; -1 where the model lacks them. */
struct mem_state {
	int rd, wr, bus, tot;
};

static void mem_init(struct panel *p, const struct ui *u)
{
	static const char *const memrd[] = { "mem_read_bw", NULL };
	static const char *const memwr[] = { "mem_write_bw", NULL };
	static const char *const membus[] = { "mem_bus_util", NULL };
	static const char *const memtot[] = { "mem_bw", NULL };
	struct mem_state *st = xcalloc(1, sizeof(*st));
	st->rd = ui_find_metric(u->m, memrd);
	st->wr = ui_find_metric(u->m, memwr);
	st->bus = ui_find_metric(u->m, membus);
	/* Only where reads and writes are not counted apart (Zen 3's fabric). */
	st->tot = st->rd < 0 && st->wr < 0 ? ui_find_metric(u->m, memtot) : -1;
	p->st = st;
}

/* Its figures, all pinned: the memory controllers' own PMU. */
static void mem_needs(const struct panel *p, const struct ui *u, int *ms, int *n, int *pins, int *np)
{
	(void)u;
	const struct mem_state *st = p->st;
	const int read[] = { st->rd, st->wr, st->bus, st->tot };
	for (size_t i = 0; i < ARRAY_SIZE(read); i++)
		ms[(*n)++] = pins[(*np)++] = read[i];
}

/* Shown where the model has memory (UMC) metrics and this machine
 * counts one of them: without a PMU (a VM) it was a line of "- GB/s". */
static void mem_want(struct panel *p, const struct ui *u, struct layout_in *in)
{
	const struct mem_state *st = p->st;
	/* A fleet's memory figure is each host's own column. */
	const int ms[] = { st->rd, st->wr, st->bus, st->tot };
	in->show_mem = false;
	for (size_t i = 0; i < ARRAY_SIZE(ms) && !u->cfg->fleet; i++)
		in->show_mem |= ms[i] >= 0 && !ui_metric_unmeasured(u, ms[i]);
}

/* The unit printed after a value, e.g. "GB/s"; empty for plain figures. */
static const char *unit_of(const struct ui *u, int metric)
{
	if (metric < 0 || metric >= u->m->nmetrics || !u->m->metrics[metric].unit)
		return "";
	const char *un = u->m->metrics[metric].unit;
	return strcmp(un, "count") == 0 || strcmp(un, "ratio") == 0 ? "" : un;
}

static void mem_draw(const struct panel *p, const struct ui *u, struct frame *f)
{
	const struct mem_state *st = p->st;
	const struct rect *m = &u->lay.mem;
	if (m->h < 1)
		return;
	char line[256];
	/* Without a read/write split the first column is the total. */
	bool total = st->rd < 0 && st->wr < 0 && st->tot >= 0;
	int rd_metric = total ? st->tot : st->rd;
	snprintf(line, sizeof(line), "%-14s %12s %12s %9s", "Memory", total ? "total" : "read", "write", "bus util");
	draw_fill(m->y, m->x, m->w, ui_attr(u, CP_HEAD, A_REVERSE));
	draw_put(m->y, m->x, m->w, ui_attr(u, CP_HEAD, A_REVERSE), line);
	for (int s = 0; s < u->topo->nsockets && s < m->h - 1; s++) {
		const struct snap_row *r = ui_scope_row(u->snap, SNAP_SOCKET, s);
		char rd[32], wr[32], bus[32], name[32];
		draw_metric_text(u, f, r, rd_metric, "%.2f", rd, sizeof(rd));
		draw_metric_text(u, f, r, st->wr, "%.2f", wr, sizeof(wr));
		draw_metric_text(u, f, r, st->bus, "pct", bus, sizeof(bus));
		snprintf(name, sizeof(name), "socket %d", s);
		draw_add_unit(bus, sizeof(bus), "%");
		snprintf(line, sizeof(line), "%-14s %7s %-4s %7s %-4s %9s", name, rd, unit_of(u, rd_metric),
			 wr, unit_of(u, st->wr), bus);
		draw_put(m->y + 1 + s, m->x, m->w, 0, line);
		int used = (int)strlen(line) + 3;
		draw_spark(u, m->y + 1 + s, m->x + used, m->w - used, SNAP_SOCKET, s, "");
	}
	if (u->topo->nsockets > m->h - 1) {
		snprintf(line, sizeof(line), "+%d more sockets", u->topo->nsockets - (m->h - 1));
		draw_put(m->y + m->h - 1, m->x + m->w - 20, 20, A_DIM, line);
	}
}

const struct panel_ops panel_mem_ops = {
	.name = "memory",
	.init = mem_init,
	.needs = mem_needs,
	.want = mem_want,
	.draw = mem_draw,
};
