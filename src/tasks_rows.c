/* tasks_rows.c: the end of a tasks interval (tasks_finish): the (pid, cpu)
 * entries summed into rows of processes, of cgroups and of the cgroup
 * tree, each metric from the model's formula with its uncertainty, the
 * socket's energy shared out by task, coverage, and the rows' order.
 * Split from tasks.c, which gathers the samples that these rows sum. */
#include "config.h"
#include "tasks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "formula.h"
#include "util.h"
#include "tasks_impl.h"

/* ---- the interval's rows ---- */

/* A process or cgroup being summed. */
struct acc {
	int pid;
	const char *cgroup;
	int nprocs;
	double *sum, *sq;
	/* [nmetrics] per split metric (task_watts): joules of the socket
	 * figure it was given, and that estimate's variance. */
	double *split, *split_var;
	double samples;
	int ncpus, capcpus;
	struct cpu_w { int cpu; double w; } *cpus;   /* where it ran, and its first event's count there */
};

static void acc_cpu(struct acc *a, int cpu, double w)
{
	for (int i = 0; i < a->ncpus; i++)
		if (a->cpus[i].cpu == cpu) {
			a->cpus[i].w += w;
			return;
		}
	if (a->ncpus == a->capcpus) {
		a->capcpus = a->capcpus ? 2 * a->capcpus : 4;
		a->cpus = xrealloc(a->cpus, sizeof(*a->cpus) * (size_t)a->capcpus);
	}
	a->cpus[a->ncpus++] = (struct cpu_w){ cpu, w };
}

static int cmp_cpu_w(const void *a, const void *b)
{
	const struct cpu_w *x = a, *y = b;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Fills row r from a: metrics with their uncertainty, CPUs, coverage. */
static void fill_row(struct tasks *t, struct acc *a, struct snap_task *r, double measured_s)
{
	const struct model *m = t->m;
	r->nprocs = a->nprocs;
	r->samples = a->samples;
	r->metric = xmalloc(sizeof(double) * ((size_t)m->nmetrics + 1));
	r->metric_rse = xmalloc(sizeof(double) * ((size_t)m->nmetrics + 1));
	for (int i = 0; i < m->nmetrics; i++)
		r->metric[i] = r->metric_rse[i] = NAN;
	r->cov = t->row_cov;
	for (int k = 0; k < t->nmetrics; k++) {
		const struct formula *f = t->f[k];
		if (!f)
			continue;
		int nv = formula_nvars(f);
		const int *vars = formula_vars(f);
		double *work = t->work, *grad = t->grad, *sd = t->sd;
		bool ok = true;
		for (int v = 0; v < nv; v++) {
			int i = t->pos[vars[v]];
			if (i < 0 || !t->avail[i]) {
				ok = false;
				break;
			}
			work[v] = a->sum[i];
			/* No sample of the event: it may still have occurred up to
			 * about a period: one period's variance, not certainty. */
			double per = t->per_n[i] > 0 ? t->per_sum[i] / t->per_n[i] : 0;
			sd[v] = sqrt(a->sq[i] + (a->sum[i] == 0 ? per * per : 0));
		}
		if (!ok)
			continue;
		double val = formula_eval_grad(f, measured_s, nv, grad, work);
		double var = 0;
		for (int v = 0; v < nv; v++)
			var += grad[v] * sd[v] * grad[v] * sd[v];
		int mi = t->metrics[k];
		r->metric[mi] = val;
		/* A zero estimate that might not be zero has no relative error. */
		r->metric_rse[mi] = !isfinite(val) ? NAN : val != 0 ? sqrt(var) / fabs(val) : var == 0 ? 0 : NAN;
	}
	/* A figure shared out by task: what split_add gave it. */
	for (int k = 0; k < t->nmetrics; k++) {
		int mi = t->metrics[k];
		if (m->metrics[mi].split < 0)
			continue;
		double j = a->split[k];
		r->metric[mi] = measured_s > 0 ? j / measured_s : NAN;
		r->metric_rse[mi] = !isfinite(j) ? NAN : j != 0 ? sqrt(a->split_var[k]) / fabs(j) : NAN;
	}
	/* CPUs in order, with the share of its samples of the first event. */
	qsort(a->cpus, (size_t)a->ncpus, sizeof(*a->cpus), cmp_cpu_w);
	double total = 0;
	for (int i = 0; i < a->ncpus; i++)
		total += a->cpus[i].w;
	r->ncpus = a->ncpus;
	r->cpus = xmalloc(sizeof(int) * ((size_t)a->ncpus + 1));
	r->cpu_share = xmalloc(sizeof(double) * ((size_t)a->ncpus + 1));
	for (int i = 0; i < a->ncpus; i++) {
		r->cpus[i] = a->cpus[i].cpu;
		r->cpu_share[i] = total > 0 ? a->cpus[i].w / total : 0;
	}
}

/* The metric rows are sorted by: qsort has no argument for it, and only
 * the sampler's thread finishes intervals. */
static int sort_metric;

/* Busiest first by the view's first column; NaN last; then by pid. */
static int cmp_rows(const void *a, const void *b)
{
	const struct snap_task *x = a, *y = b;
	double u = x->metric[sort_metric], v = y->metric[sort_metric];
	if (isnan(u) != isnan(v))
		return isnan(u) ? 1 : -1;
	if (u != v && !isnan(u))
		return u < v ? 1 : -1;
	if (x->cgroup && y->cgroup && x->pid < 0) {
		int c = strcmp(x->cgroup, y->cgroup);
		if (c)
			return c;
	}
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_tent(const void *a, const void *b)
{
	const struct tent *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_acc_cgroup(const void *a, const void *b)
{
	const struct acc *x = a, *y = b;
	return strcmp(x->cgroup, y->cgroup);
}

/* Adds from's sums to to's, not where it ran (acc_add does both). */
static void acc_add_sums(struct acc *to, const struct acc *from, int nev, int nm)
{
	for (int i = 0; i < nev; i++) {
		to->sum[i] += from->sum[i];
		to->sq[i] += from->sq[i];
	}
	for (int k = 0; k < nm; k++) {
		to->split[k] += from->split[k];
		to->split_var[k] += from->split_var[k];
	}
	to->samples += from->samples;
	to->nprocs += from->nprocs;
}

static void acc_add(struct acc *to, const struct acc *from, int nev, int nm)
{
	acc_add_sums(to, from, nev, nm);
	for (int c = 0; c < from->ncpus; c++)
		acc_cpu(to, from->cpus[c].cpu, from->cpus[c].w);
}

static void acc_init(struct acc *a, int nev, int nm)
{
	memset(a, 0, sizeof(*a));
	a->sum = xcalloc(2 * (size_t)nev + 2 * (size_t)nm + 1, sizeof(double));
	a->sq = a->sum + nev;
	a->split = a->sq + nev;
	a->split_var = a->split + nm;
}

static void acc_clear(struct acc *a)
{
	free(a->sum);
	free(a->cpus);
}

/* Per split metric and socket: joules of the socket figure (pkg_watts
 * over the interval) per occurrence of the metric's event (a cycle)
 * sampled on the socket's CPUs, idle and unnamed tasks included, so that
 * the tasks' shares add up to the socket's energy. NaN where the socket
 * figure is not known. Caller frees. */
static double *split_rates(struct tasks *t, const struct snapshot *snap, double measured_s)
{
	const struct model *m = t->m;
	int ncpu = 0, nsock = 0;
	for (int r = 0; r < snap->nrows[SNAP_CPU]; r++)
		if (snap->rows[SNAP_CPU][r].cpu >= ncpu)
			ncpu = snap->rows[SNAP_CPU][r].cpu + 1;
	for (int r = 0; r < snap->nrows[SNAP_SOCKET]; r++)
		if (snap->rows[SNAP_SOCKET][r].socket >= nsock)
			nsock = snap->rows[SNAP_SOCKET][r].socket + 1;
	/* Layout: [0] ncpu, [1] nsock, then the socket of each CPU (-1),
	 * then per metric and socket the joules per occurrence. */
	double *v = xmalloc(sizeof(double) * (2 + (size_t)ncpu + (size_t)t->nmetrics * (size_t)nsock + 1));
	v[0] = ncpu;
	v[1] = nsock;
	double *sock_of = v + 2, *jpw = sock_of + ncpu;
	for (int c = 0; c < ncpu; c++)
		sock_of[c] = -1;
	for (int r = 0; r < snap->nrows[SNAP_CPU]; r++) {
		const struct snap_row *row = &snap->rows[SNAP_CPU][r];
		if (row->cpu >= 0)
			sock_of[row->cpu] = row->socket;
	}
	for (int k = 0; k < t->nmetrics; k++) {
		const struct metric_def *md = &m->metrics[t->metrics[k]];
		double *j = jpw + (size_t)k * (size_t)nsock;
		for (int s = 0; s < nsock; s++)
			j[s] = NAN;
		if (md->split < 0)
			continue;
		int i = t->pos[expr_ref(md->expr)];
		if (i < 0 || !t->avail[i])
			continue;
		double *total = xcalloc((size_t)nsock + 1, sizeof(double));
		for (int e = 0; e < t->nent; e++) {
			int cpu = t->ent[e].cpu;
			int s = cpu >= 0 && cpu < ncpu ? (int)sock_of[cpu] : -1;
			if (s >= 0)
				total[s] += t->ent[e].sum[i];
		}
		for (int r = 0; r < snap->nrows[SNAP_SOCKET]; r++) {
			const struct snap_row *row = &snap->rows[SNAP_SOCKET][r];
			double w = snap_metric(snap, row, md->split);
			if (row->socket >= 0 && total[row->socket] > 0)
				j[row->socket] = w * measured_s / total[row->socket];
		}
		free(total);
	}
	return v;
}

/* Adds entry te's share of each split figure to a: its occurrences of
 * the metric's event times the joules each stood for on its socket, with
 * the sampling variance of those occurrences. */
static void split_add(const struct tasks *t, struct acc *a, const struct tent *te, const double *v)
{
	int ncpu = (int)v[0], nsock = (int)v[1];
	const double *sock_of = v + 2, *jpw = sock_of + ncpu;
	int s = te->cpu >= 0 && te->cpu < ncpu ? (int)sock_of[te->cpu] : -1;
	for (int k = 0; k < t->nmetrics; k++) {
		const struct metric_def *md = &t->m->metrics[t->metrics[k]];
		if (md->split < 0)
			continue;
		int i = t->pos[expr_ref(md->expr)];
		double j = s >= 0 && i >= 0 ? jpw[(size_t)k * (size_t)nsock + (size_t)s] : NAN;
		a->split[k] += te->sum[i >= 0 ? i : 0] * j;
		a->split_var[k] += te->sq[i >= 0 ? i : 0] * j * j;
	}
}

/* Each event's coverage over the interval, summed over the CPUs, and the
 * rows' coverage: the lowest of them, and of the samples the kernel kept. */
static void cover_events(struct tasks *t)
{
	/* Coverage of each event over the interval, summed over the CPUs. */
	struct bk_count *buf = t->buf;
	for (int i = 0; i < t->nev; i++)
		t->cov_run[i] = t->cov_en[i] = 0;
	for (int c = 0; c < t->ncpu; c++) {
		struct tcpu *tc = &t->cpu[c];
		if (tc->dead || !t->ops->sample_read || t->ops->sample_read(t->bk, tc->s, buf) < 0)
			continue;
		for (int k = 0; k < t->nidx; k++) {
			int i = t->idx[k];
			t->cov_en[i] += (double)(buf[k].time_enabled - tc->last[i].time_enabled);
			t->cov_run[i] += (double)(buf[k].time_running - tc->last[i].time_running);
			tc->last[i] = buf[k];
		}
	}
	/* Samples the kernel dropped (a full ring) went missing from some
	 * task's count: which, nobody knows, so every row says how much. */
	t->row_cov = t->lost > 0 ? t->received / (t->received + (double)t->lost) : 1;
	for (int k = 0; k < t->nidx; k++) {
		int i = t->idx[k];   /* an event not sampled here: its figures are NaN, not uncovered */
		double c = t->cov_en[i] > 0 ? t->cov_run[i] / t->cov_en[i] : 0;
		if (c < t->row_cov)
			t->row_cov = c;
	}
}

/* The processes of the interval, their (pid, cpu) entries summed, those
 * the selection (-p, --cgroup) keeps as rows of snap; returns their sums
 * (*nout of them, each with its row's cgroup), for the cgroups. jpw: the
 * figures shared out by task (split_rates). */
static struct acc *sum_processes(struct tasks *t, struct snapshot *snap, double measured_s, const double *jpw,
				 int *nout)
{
	/* Processes: their (pid, cpu) entries summed. */
	qsort(t->ent, (size_t)t->nent, sizeof(*t->ent), cmp_tent);
	struct acc *procs = xcalloc((size_t)t->nent + 1, sizeof(*procs));
	int np = 0;
	for (int e = 0; e < t->nent; e++) {
		const struct tent *te = &t->ent[e];
		/* The idle task; and samples the kernel could not name a
		 * process for (pid -1: a task exiting, or one outside pmctop's
		 * pid namespace). */
		if (te->pid <= 0)
			continue;
		if (np == 0 || procs[np - 1].pid != te->pid) {
			acc_init(&procs[np], t->nev, t->nmetrics);
			procs[np].pid = te->pid;
			procs[np].nprocs = 1;
			np++;
		}
		struct acc *a = &procs[np - 1];
		for (int i = 0; i < t->nev; i++) {
			a->sum[i] += te->sum[i];
			a->sq[i] += te->sq[i];
		}
		split_add(t, a, te, jpw);
		a->samples += te->samples;
		acc_cpu(a, te->cpu, t->nev > 0 ? te->sum[0] : 0);
	}
	snap->ntasks = 0;
	snap->tasks = np ? xcalloc((size_t)np, sizeof(*snap->tasks)) : NULL;
	int kept = 0;
	for (int p = 0; p < np; p++) {
		struct info *in = tasks_name_lookup(t, procs[p].pid);
		const char *cg = in && in->cgroup ? in->cgroup : "-";
		if (!tasks_selected(t, procs[p].pid, cg)) {
			acc_clear(&procs[p]);
			continue;
		}
		struct snap_task *r = &snap->tasks[snap->ntasks++];
		r->pid = procs[p].pid;
		r->comm = xstrdup(in && in->comm[0] ? in->comm : "-");
		r->cgroup = xstrdup(cg);
		procs[kept] = procs[p];
		procs[kept].cgroup = r->cgroup;
		fill_row(t, &procs[kept], r, measured_s);
		kept++;
	}
	*nout = kept;
	return procs;
}

static void sum_cgroup_tree(struct tasks *t, struct snapshot *snap, struct acc *groups, int ng, double measured_s);

/* The cgroups of the interval: their processes (procs, np) summed. */
static void sum_cgroups(struct tasks *t, struct snapshot *snap, struct acc *procs, int np, double measured_s)
{
	/* Cgroups: their processes summed. */
	qsort(procs, (size_t)np, sizeof(*procs), cmp_acc_cgroup);
	snap->ncgroups = 0;
	snap->cgroups = np ? xcalloc((size_t)np, sizeof(*snap->cgroups)) : NULL;
	struct acc *groups = xcalloc((size_t)np + 1, sizeof(*groups));
	for (int p = 0; p < np;) {
		struct acc *g = &groups[snap->ncgroups];
		acc_init(g, t->nev, t->nmetrics);
		g->cgroup = procs[p].cgroup;
		int q = p;
		for (; q < np && !strcmp(procs[q].cgroup, g->cgroup); q++)
			acc_add(g, &procs[q], t->nev, t->nmetrics);
		struct snap_task *r = &snap->cgroups[snap->ncgroups++];
		r->pid = -1;
		r->cgroup = xstrdup(g->cgroup);
		fill_row(t, g, r, measured_s);
		p = q;
	}
	sum_cgroup_tree(t, snap, groups, snap->ncgroups, measured_s);
	for (int g = 0; g < snap->ncgroups; g++)
		acc_clear(&groups[g]);
	free(groups);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The lengths of the cgroups on the way to path p, itself last: "/a/b"
 * gives 1 ("/"), 2 ("/a"), 4; a path not from the root ("-") only its
 * own. len[] holds strlen(p) + 1. */
static int cgroup_prefixes(const char *p, size_t *len)
{
	size_t n = strlen(p);
	int k = 0;
	for (size_t i = 0; p[0] == '/' && i < n; i++)
		if (p[i] == '/')
			len[k++] = i == 0 ? 1 : i;
	if (k == 0 || len[k - 1] != n)
		len[k++] = n;
	return k;
}

/* The cgroup tree: each path of groups[0..ng-1] and every cgroup above
 * it ("/a/b": "/", "/a", "/a/b"), each with the sums of the groups in it
 * or below it; a path that does not start with '/' ("-": not known)
 * stands alone. Each group is added to each of its ancestors, so the cost
 * is groups x depth, not groups x cgroups. */
static void sum_cgroup_tree(struct tasks *t, struct snapshot *snap, struct acc *groups, int ng, double measured_s)
{
	int cap = 0, n = 0;
	char **path = NULL;
	for (int g = 0; g < ng; g++) {
		const char *p = groups[g].cgroup;
		size_t *len = xmalloc(sizeof(size_t) * (strlen(p) + 1));
		int k = cgroup_prefixes(p, len);
		for (int j = 0; j < k; j++) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				path = xrealloc(path, sizeof(*path) * (size_t)cap);
			}
			path[n++] = xstrndup(p, len[j]);
		}
		free(len);
	}
	/* qsort may not be handed NULL, even for none. */
	if (n > 1)
		qsort(path, (size_t)n, sizeof(*path), cmp_str);
	int u = 0;
	for (int i = 0; i < n; i++) {
		if (u > 0 && !strcmp(path[u - 1], path[i]))
			free(path[i]);
		else
			path[u++] = path[i];
	}
	/* Each cgroup sums the groups in its subtree: those whose path
	 * starts with its own (they follow each other in strcmp order, from
	 * the first not below it), where the path is its or goes on with a
	 * '/'. Their CPUs go through one map (CPU -> place in the cgroup's
	 * list): adding a group's CPUs costs their number, not that times
	 * the cgroup's (3 ms an interval at 384 CPUs with acc_cpu's search). */
	int maxcpu = 0;
	for (int g = 0; g < ng; g++)
		for (int c = 0; c < groups[g].ncpus; c++)
			if (groups[g].cpus[c].cpu + 1 > maxcpu)
				maxcpu = groups[g].cpus[c].cpu + 1;
	int *at = xmalloc(sizeof(int) * ((size_t)maxcpu + 1));
	for (int c = 0; c < maxcpu; c++)
		at[c] = -1;
	struct acc *node = xcalloc((size_t)u + 1, sizeof(*node));
	for (int i = 0; i < u; i++) {
		struct acc *a = &node[i];
		acc_init(a, t->nev, t->nmetrics);
		const char *p = path[i];
		size_t pl = strlen(p);
		bool root = !strcmp(p, "/");
		int lo = 0, hi = ng;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if (strcmp(groups[mid].cgroup, p) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int g = lo; g < ng && !strncmp(groups[g].cgroup, p, pl); g++) {
			const struct acc *gr = &groups[g];
			char next = gr->cgroup[pl];
			if (!root && next && next != '/')
				continue;
			acc_add_sums(a, gr, t->nev, t->nmetrics);
			for (int c = 0; c < gr->ncpus; c++) {
				int cpu = gr->cpus[c].cpu;
				if (at[cpu] >= 0) {
					a->cpus[at[cpu]].w += gr->cpus[c].w;
					continue;
				}
				if (a->ncpus == a->capcpus) {
					a->capcpus = a->capcpus ? 2 * a->capcpus : 16;
					a->cpus = xrealloc(a->cpus, sizeof(*a->cpus) * (size_t)a->capcpus);
				}
				at[cpu] = a->ncpus;
				a->cpus[a->ncpus++] = gr->cpus[c];
			}
		}
		for (int c = 0; c < a->ncpus; c++)
			at[a->cpus[c].cpu] = -1;
	}
	free(at);
	snap->ncgtree = u;
	snap->cgtree = u ? xcalloc((size_t)u, sizeof(*snap->cgtree)) : NULL;
	for (int i = 0; i < u; i++) {
		struct snap_task *r = &snap->cgtree[i];
		r->pid = -1;
		r->cgroup = path[i];
		fill_row(t, &node[i], r, measured_s);
		acc_clear(&node[i]);
	}
	free(node);
	free(path);
}

/* Which metrics the sampling can give at all: those whose every event
 * is sampled here (the dashboard hides the others' columns). */
static void note_measured(const struct tasks *t, struct snapshot *snap)
{
	snap->task_measured = xcalloc((size_t)t->m->nmetrics + 1, sizeof(bool));
	for (int k = 0; k < t->nmetrics; k++) {
		const struct metric_def *md = &t->m->metrics[t->metrics[k]];
		bool ok = t->f[k] != NULL || md->split >= 0;
		for (int e = 0; ok && e < md->nevents; e++) {
			int i = t->pos[md->events[e]];
			ok = i >= 0 && t->avail[i];
		}
		snap->task_measured[t->metrics[k]] = ok;
	}
}

void tasks_finish(struct tasks *t, struct snapshot *snap, double measured_s)
{
	tasks_drain(t);
	/* The interval's end ends every run: the count since the last sample
	 * goes to the next interval. */
	for (int c = 0; c < t->ncpu; c++)
		for (int i = 0; i < t->nev; i++)
			tasks_run_end(t, &t->cpu[c], i);
	t->seq++;
	snap->tasks_on = true;
	snap->task_freq = t->freq;
	snap->tasks_lost = t->lost;
	note_measured(t, snap);
	cover_events(t);
	double *jpw = split_rates(t, snap, measured_s);
	int np = 0;
	struct acc *procs = sum_processes(t, snap, measured_s, jpw, &np);
	sum_cgroups(t, snap, procs, np, measured_s);
	for (int p = 0; p < np; p++)
		acc_clear(&procs[p]);
	free(procs);
	free(jpw);
	sort_metric = t->nmetrics > 0 ? t->metrics[0] : 0;
	/* No rows (-p of a process that did not run) is no array at all:
	 * qsort may not be handed NULL, even for none. */
	if (t->nmetrics > 0 && snap->ntasks > 1)
		qsort(snap->tasks, (size_t)snap->ntasks, sizeof(*snap->tasks), cmp_rows);
	if (t->nmetrics > 0 && snap->ncgroups > 1)
		qsort(snap->cgroups, (size_t)snap->ncgroups, sizeof(*snap->cgroups), cmp_rows);
	tasks_names_tidy(t);
	t->lost = 0;
	t->received = 0;
	t->nent = 0;
	t->npool = 0;
	for (int i = 0; i < t->nev; i++)
		t->per_sum[i] = t->per_n[i] = 0;
	if (t->capmap)
		tasks_map_rebuild(t, t->capmap);
}
