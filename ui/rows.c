/* rows.c: the table's rows (CPUs, cores, CCX, sockets, or a tasks view's
 * processes and cgroups), the filter that keeps them, and their order. No
 * curses here. */
#include "config.h"
#include "ui_impl.h"
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* Rows in order of the keys worked out into them (sort_keys): NaN last
 * in either direction, ties by CPU (or pid). */
static int row_cmp(const void *pa, const void *pb)
{
	const struct ui_row *a = pa, *b = pb;
	int by_cpu = (a->cpu > b->cpu) - (a->cpu < b->cpu);
	if (a->key_text && b->key_text) {
		int k = strcmp(a->key_text, b->key_text);
		return k ? a->key_dir * k : by_cpu;
	}
	if (isnan(a->key) != isnan(b->key))
		return isnan(a->key) ? 1 : -1;
	if (!isnan(a->key) && a->key != b->key)
		return a->key < b->key ? -a->key_dir : a->key_dir;
	return by_cpu;
}

/* A tasks view's rows: the processes (or cgroups) of the snapshot. A
 * row's identity (cpu) is the pid, or the cgroup's place in the list. */
static void build_task_rows(struct ui *u)
{
	const struct snapshot *s = u->snap;
	int n = !s ? 0 : u->task_cgroups ? s->ncgroups : s->ntasks;
	const struct snap_task *list = !s ? NULL : u->task_cgroups ? s->cgroups : s->tasks;
	if (n > u->rows_cap) {
		u->rows_cap = n;
		u->rows = xrealloc(u->rows, sizeof(*u->rows) * (size_t)u->rows_cap);
	}
	for (int i = 0; i < n; i++) {
		if (!ui_task_shown(u, &list[i]))
			continue;
		struct ui_row *r = &u->rows[u->nrows++];
		*r = (struct ui_row){ .cpu = list[i].pid >= 0 ? list[i].pid : i, .core = -1, .ccx = -1, .socket = -1,
				      .task = &list[i] };
	}
}

/* Rebuilds the rows from the topology (so that rows exist before the first
 * snapshot), attaches the snapshot's values and sorts. */
void ui_build_rows(struct ui *u)
{
	const struct topo *t = u->topo;
	/* With F the highlight stays on its CPU, core or process while the
	 * rows re-sort, at the same place on the screen where it can; without
	 * it (the default, as in htop) it keeps its line: following one
	 * process pushed the busiest rows of the tasks view off the screen. */
	int sel_cpu = u->nav.follow && u->nav.sel >= 0 && u->nav.sel < u->nrows ? u->rows[u->nav.sel].cpu : -1;
	int sel_off = u->nav.sel - u->nav.top;
	u->nrows = 0;
	if (ui_tasks_view(u) && u->task_tree) {
		/* Sorted within each level of the tree (task_tree.c). */
		ui_task_tree_rows(u, row_cmp);
	} else if (ui_tasks_view(u)) {
		build_task_rows(u);
	} else if (u->nav.rows == ROWS_CPU) {
		for (int i = 0; i < t->ncpus; i++) {
			const struct topo_cpu *c = &t->cpus[i];
			if (!c->online || !ui_cpu_shown(u, c->cpu))
				continue;
			struct ui_row *r = &u->rows[u->nrows++];
			r->task = NULL;
			r->cpu = c->cpu;
			r->core = c->core;
			r->ccx = c->ccx;
			r->socket = c->socket;
			r->r = u->snap ? snapshot_cpu(u->snap, c->cpu) : NULL;
			/* A fleet's host (a CPU of its topology) that the filter
			 * keeps; the topology has room for hosts yet to come. */
			if (u->cfg->fleet && !ui_host_shown(u, r))
				u->nrows--;
		}
	} else {
		/* A core, CCX or socket is a row when any of its CPUs is shown;
		 * its figures are the group's own (a partly filtered group still
		 * shows all of it: the filter picks rows, it does not recount). */
		int kind = u->nav.rows;
		int ngroups = kind == ROWS_CORE ? t->ncores : kind == ROWS_CCX ? t->nccx : t->nsockets;
		for (int i = 0; i < ngroups; i++) {
			const int *cpus = kind == ROWS_CORE ? t->cores[i].cpus : kind == ROWS_CCX ? t->ccxs[i].cpus
					: t->sockets[i].cpus;
			int n = kind == ROWS_CORE ? t->cores[i].ncpus : kind == ROWS_CCX ? t->ccxs[i].ncpus
				: t->sockets[i].ncpus;
			int first = -1;
			for (int j = 0; j < n; j++)
				if (ui_cpu_shown(u, cpus[j]) && (first < 0 || cpus[j] < first))
					first = cpus[j];
			if (first < 0 || u->nrows >= u->rows_cap)
				continue;
			const struct topo_cpu *fc = topo_cpu_by_num(t, first);
			struct ui_row *r = &u->rows[u->nrows++];
			r->task = NULL;
			r->cpu = first;
			r->core = kind == ROWS_CORE ? i : -1;
			r->ccx = kind == ROWS_SOCKET ? -1 : kind == ROWS_CCX ? i : t->cores[i].ccx;
			r->socket = kind == ROWS_SOCKET ? t->sockets[i].id : fc ? fc->socket : -1;
			r->r = ui_scope_row(u->snap, ui_rows_scope(u), i);
		}
	}
	if (u->ncols > 0 && u->nrows > 1 && !(ui_tasks_view(u) && u->task_tree)) {
		ui_sort_keys(u);
		qsort(u->rows, (size_t)u->nrows, sizeof(*u->rows), row_cmp);
	}
	u->nav.nrows = u->nrows;
	for (int i = 0; sel_cpu >= 0 && i < u->nrows; i++)
		if (u->rows[i].cpu == sel_cpu) {
			u->nav.sel = i;
			u->nav.top = i - sel_off > 0 ? i - sel_off : 0;
			break;
		}
	keys_clamp(&u->nav);
}

enum snap_scope ui_rows_scope(const struct ui *u)
{
	static const enum snap_scope scope[ROWS_KINDS] = { SNAP_CPU, SNAP_CORE, SNAP_CCX, SNAP_SOCKET };
	return u->nav.rows >= 0 && u->nav.rows < ROWS_KINDS ? scope[u->nav.rows] : SNAP_CPU;
}

const char *ui_rows_name(const struct ui *u)
{
	static char l3[24];
	/* A fleet's rows are hosts, or one host's own rows once drilled. */
	if (u->cfg->fleet)
		return u->drill_host ? "of one host" : "per host";
	switch (u->nav.rows) {
	case ROWS_CORE: return "per core";
	case ROWS_CCX:
		snprintf(l3, sizeof(l3), "per %s", u->m->l3_domain ? u->m->l3_domain : "CCX");
		return l3;
	case ROWS_SOCKET: return "per socket";
	default: return "per CPU";
	}
}

