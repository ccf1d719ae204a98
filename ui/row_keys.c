/* row_keys.c: what the table's rows (rows.c) and F5's cgroup tree
 * (task_tree.c) share: each row's sort key, and whether a tasks view
 * shows a task. A leaf below both, so that neither calls back into the
 * other. No curses here. */
#include "config.h"
#include "ui_impl.h"

#include <stdio.h>
#include <string.h>

/* Each row's key for the sort column, and the direction: identity columns
 * ascending, values descending (the busiest first, as in top); R reverses
 * either. A tasks view sorts its name columns by the name. */
void ui_sort_keys(struct ui *u)
{
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	bool desc = ui_col_info(c->kind)->descending;
	signed char dir = desc != u->nav.sort_reverse ? -1 : 1;
	for (int i = 0; i < u->nrows; i++) {
		struct ui_row *row = &u->rows[i];
		row->key_dir = dir;
		row->key_text = NULL;
		if (row->task && ui_col_info(c->kind)->by_name) {
			/* A cgroup of F5's tree goes by its name in COMMAND. */
			const char *t = c->kind != COL_COMM ? row->task->cgroup : row->task->pid < 0
					? ui_cgroup_leaf(row->task->cgroup) : row->task->comm;
			row->key_text = t ? t : "";
		}
		const struct snap_host *h = ui_row_host(u, row);
		if (h && (c->kind == COL_HOST || c->kind == COL_STATUS))
			row->key_text = c->kind == COL_HOST ? h->name : ui_host_state(h);
		row->key = ui_col_info(c->kind)->key(u, c, row);
	}
}

/* Whether a process of cgroup path cg ran in the interval under a name
 * that holds text. */
static bool cgroup_runs(const struct snapshot *s, const char *cg, const char *text)
{
	for (int i = 0; s && cg && i < s->ntasks; i++)
		if (s->tasks[i].comm && s->tasks[i].cgroup && !strcmp(s->tasks[i].cgroup, cg) &&
		    strstr(s->tasks[i].comm, text))
			return true;
	return false;
}

/* Whether the fleet's table shows host row: its name, model or state
 * holds the filter's text. */
bool ui_host_shown(const struct ui *u, const struct ui_row *row)
{
	const struct snap_host *h = ui_row_host(u, row);
	if (!h)
		return false;
	const char *m = u->task_match;
	return !m || strstr(h->name, m) || strstr(h->model, m) || strstr(ui_host_state(h), m);
}

/* Whether a tasks view shows task t: it ran on a CPU the filter keeps,
 * and its pid, name or cgroup holds the filter's text; a cgroup row (no
 * name of its own) also where one of its processes' names does, so that
 * \java in rows per cgroup finds the cgroups java runs in. */
bool ui_task_shown(const struct ui *u, const struct snap_task *t)
{
	bool where = false;
	for (int i = 0; i < t->ncpus && !where; i++)
		where = ui_cpu_shown(u, t->cpus[i]);
	if (!where)
		return false;
	if (!u->task_match)
		return true;
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", t->pid);
	return (t->comm && strstr(t->comm, u->task_match)) || (t->cgroup && strstr(t->cgroup, u->task_match)) ||
	       (t->pid >= 0 && !strcmp(pid, u->task_match)) ||
	       (t->pid < 0 && !t->comm && cgroup_runs(u->snap, t->cgroup, u->task_match));
}
