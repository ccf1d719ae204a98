/* task_tree.c: F5's cgroup tree in a tasks view, as htop's process tree:
 * each cgroup (from the snapshot's tree: the figures of all its processes
 * and of its children's) with its child cgroups and its processes beneath
 * it, the sort column ordering the rows within each level. No curses. */
#include "config.h"
#include "ui_impl.h"

#include <stdlib.h>
#include <string.h>
#include "util.h"

/* The index in the tree (sorted by path, tasks.c) of the cgroup whose
 * path is the first len bytes of p, or -1. */
static int tree_find(const struct snapshot *s, const char *p, size_t len)
{
	int lo = 0, hi = s->ncgtree - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const char *q = s->cgtree[mid].cgroup;
		int c = strncmp(q, p, len);
		if (c == 0 && q[len])
			c = 1;
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The length of the path of cgroup p's parent ("/a/b": 2, "/a": 1),
 * or -1 for the root and for a path not from the root ("-"). */
static long parent_len(const char *p)
{
	if (!p || p[0] != '/' || !p[1])
		return -1;
	const char *s = strrchr(p, '/');
	return s == p ? 1 : (long)(s - p);
}

/* Marks in keep[] every cgroup of the tree on the way to path p, itself
 * included: the cgroups that hold a shown process. */
static void keep_path(const struct snapshot *s, const char *p, bool *keep)
{
	if (!p)
		return;
	size_t n = strlen(p);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && !(p[0] == '/' && p[i] == '/'))
			continue;
		int g = tree_find(s, p, i == 0 ? (n ? 1 : 0) : i);
		if (g >= 0)
			keep[g] = true;
	}
}

void ui_tree_order(struct ui_row *rows, int n, const int *parent)
{
	if (n <= 0)
		return;
	/* Children as lists, each in the order of rows (built from the end). */
	int *first = xmalloc(sizeof(int) * (size_t)n), *next = xmalloc(sizeof(int) * (size_t)n);
	int *stack = xmalloc(sizeof(int) * (size_t)n), *order = xmalloc(sizeof(int) * (size_t)n);
	int *depth = xmalloc(sizeof(int) * (size_t)n);
	bool *done = xcalloc((size_t)n, sizeof(bool));
	int roots = -1;
	for (int i = 0; i < n; i++)
		first[i] = -1;
	for (int i = n - 1; i >= 0; i--) {
		int p = parent[i];
		if (p < 0 || p >= n || p == i) {
			next[i] = roots;
			roots = i;
		} else {
			next[i] = first[p];
			first[p] = i;
		}
	}
	/* Depth first: a row, then its children, then its next sibling. */
	int k = 0, sp = 0, d = 0;
	for (int i = roots; i >= 0 || sp > 0;) {
		if (i < 0) {
			i = stack[--sp];
			d--;
			continue;
		}
		if (done[i])           /* a cycle (parents that are not a tree): once only */
			break;
		done[i] = true;
		order[k] = i;
		depth[k++] = d;
		if (first[i] >= 0) {
			stack[sp++] = next[i];
			d++;
			i = first[i];
		} else {
			i = next[i];
		}
	}
	/* Rows no root leads to (a cycle) follow at the top level. */
	for (int i = 0; i < n && k < n; i++)
		if (!done[i]) {
			order[k] = i;
			depth[k++] = 0;
		}
	struct ui_row *out = xmalloc(sizeof(*out) * (size_t)n);
	for (int j = 0; j < n; j++) {
		out[j] = rows[order[j]];
		out[j].depth = depth[j];
	}
	memcpy(rows, out, sizeof(*out) * (size_t)n);
	free(out);
	free(first);
	free(next);
	free(stack);
	free(order);
	free(depth);
	free(done);
}

void ui_task_tree_rows(struct ui *u, int (*cmp)(const void *, const void *))
{
	const struct snapshot *s = u->snap;
	u->nrows = 0;
	if (!s)
		return;
	int ng = s->ncgtree, need = s->ntasks + ng;
	if (need > u->rows_cap) {
		u->rows_cap = need;
		u->rows = xrealloc(u->rows, sizeof(*u->rows) * (size_t)u->rows_cap);
	}
	/* The processes the filter keeps, and the cgroups on their way. */
	bool *keep = xcalloc((size_t)ng + 1, sizeof(bool));
	for (int i = 0; i < s->ntasks; i++) {
		if (!ui_task_shown(u, &s->tasks[i]))
			continue;
		u->rows[u->nrows++] = (struct ui_row){ .cpu = s->tasks[i].pid, .core = -1, .ccx = -1, .socket = -1,
						       .task = &s->tasks[i] };
		keep_path(s, s->tasks[i].cgroup, keep);
	}
	/* A cgroup's identity is below every pid: -2 - its place in the tree. */
	for (int g = 0; g < ng; g++)
		if (keep[g])
			u->rows[u->nrows++] = (struct ui_row){ .cpu = -2 - g, .core = -1, .ccx = -1, .socket = -1,
							       .task = &s->cgtree[g] };
	free(keep);
	if (u->ncols > 0 && u->nrows > 1) {
		ui_sort_keys(u);
		qsort(u->rows, (size_t)u->nrows, sizeof(*u->rows), cmp);
	}
	/* Each row's parent: a process's cgroup, a cgroup's parent cgroup. */
	int *slot = xmalloc(sizeof(int) * ((size_t)ng + 1));
	int *parent = xmalloc(sizeof(int) * ((size_t)u->nrows + 1));
	for (int g = 0; g < ng; g++)
		slot[g] = -1;
	for (int i = 0; i < u->nrows; i++)
		if (u->rows[i].cpu <= -2)
			slot[-2 - u->rows[i].cpu] = i;
	for (int i = 0; i < u->nrows; i++) {
		const struct snap_task *t = u->rows[i].task;
		long len = !t->cgroup ? -1 : t->pid >= 0 ? (long)strlen(t->cgroup) : parent_len(t->cgroup);
		int g = len < 0 ? -1 : tree_find(s, t->cgroup, (size_t)len);
		parent[i] = g >= 0 ? slot[g] : -1;
	}
	ui_tree_order(u->rows, u->nrows, parent);
	free(slot);
	free(parent);
}
