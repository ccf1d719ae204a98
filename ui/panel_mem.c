/* panel_mem.c: the memory panel: read and write bandwidth and bus
 * utilisation per socket, from the memory controller metrics; where the
 * CPU counts only the total (Zen 3's data fabric), the total. */
#include "config.h"
#include "panel.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

/* The unit printed after a value, e.g. "GB/s"; empty for plain figures. */
static const char *unit_of(const struct ui *u, int metric)
{
	if (metric < 0 || metric >= u->m->nmetrics || !u->m->metrics[metric].unit)
		return "";
	const char *un = u->m->metrics[metric].unit;
	return strcmp(un, "count") == 0 || strcmp(un, "ratio") == 0 ? "" : un;
}

void panel_mem(struct ui *u, struct frame *f)
{
	const struct rect *m = &u->lay.mem;
	if (m->h < 1)
		return;
	char line[256];
	/* Without a read/write split the first column is the total. */
	bool total = u->m_memrd < 0 && u->m_memwr < 0 && u->m_memtot >= 0;
	int rd_metric = total ? u->m_memtot : u->m_memrd;
	snprintf(line, sizeof(line), "%-14s %12s %12s %9s", "Memory", total ? "total" : "read", "write", "bus util");
	draw_fill(m->y, m->x, m->w, ui_attr(u, CP_HEAD, A_REVERSE));
	draw_put(m->y, m->x, m->w, ui_attr(u, CP_HEAD, A_REVERSE), line);
	for (int s = 0; s < u->topo->nsockets && s < m->h - 1; s++) {
		const struct snap_row *r = ui_scope_row(u->snap, SNAP_SOCKET, s);
		char rd[32], wr[32], bus[32], name[32];
		draw_metric_text(u, f, r, rd_metric, "%.2f", rd, sizeof(rd));
		draw_metric_text(u, f, r, u->m_memwr, "%.2f", wr, sizeof(wr));
		draw_metric_text(u, f, r, u->m_membus, "pct", bus, sizeof(bus));
		snprintf(name, sizeof(name), "socket %d", s);
		draw_add_unit(bus, sizeof(bus), "%");
		snprintf(line, sizeof(line), "%-14s %7s %-4s %7s %-4s %9s", name, rd, unit_of(u, rd_metric),
			 wr, unit_of(u, u->m_memwr), bus);
		draw_put(m->y + 1 + s, m->x, m->w, 0, line);
		int used = (int)strlen(line) + 3;
		draw_spark(u, m->y + 1 + s, m->x + used, m->w - used, SNAP_SOCKET, s, "");
	}
	if (u->topo->nsockets > m->h - 1) {
		snprintf(line, sizeof(line), "+%d more sockets", u->topo->nsockets - (m->h - 1));
		draw_put(m->y + m->h - 1, m->x + m->w - 20, 20, A_DIM, line);
	}
}
