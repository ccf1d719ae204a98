/* fleet_rows.c: a fleet dashboard's rows are the CPUs of a synthetic
 * topology, one a host (or a drilled host's row), made at start with
 * room for more hosts than there were. When a refresh brings more rows
 * than that (Prometheus found hundreds of new targets, the targets file
 * grew), the topology is made again, twice as large, so that every host
 * has its row at once rather than after a restart. The old topology
 * belongs to whoever gave it (main), the new ones to the screen. */
#include "config.h"

#include <stdlib.h>

#include "ui_impl.h"
#include "topo.h"
#include "util.h"

void ui_fleet_grow(struct ui *u)
{
	const struct snapshot *s = u->snap;
	if (!u->cfg->fleet || !s || s->nrows[SNAP_CPU] <= u->topo->ncpus)
		return;
	struct topo *t = topo_synthetic(1, 1, 2 * s->nrows[SNAP_CPU], 1);
	/* A fleet's filter is by name (ui_host_shown): every new row is in. */
	bool *filter = xcalloc((size_t)t->max_cpu + 1, sizeof(bool));
	for (int i = 0; i < t->max_cpu; i++)
		filter[i] = i < u->topo->max_cpu ? u->filter[i] : true;
	free(u->filter);
	u->filter = filter;
	u->rows = xrealloc(u->rows, sizeof(*u->rows) * (size_t)t->ncpus);
	u->rows_cap = t->ncpus;
	topo_free(u->topo_grown);
	u->topo = u->topo_grown = t;
}
