/* ui.c: the dashboard's loop. It polls the keyboard every 100 ms, takes the
 * newest snapshot from the ring (the sampler never waits for the screen),
 * and redraws when data, a key or a resize arrives. It also owns the
 * terminal: one place restores it (ui_restore), reached on q, on SIGINT,
 * SIGTERM and SIGHUP (their handler only sets a flag), on errors, at exit
 * and from the handler of fatal signals. */
#include "config.h"
#include "uiint.h"
#include "format.h"

#include <curses.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include "fmt.h"
#include "snapfile.h"
#include "spark.h"
#include "util.h"

static volatile sig_atomic_t ui_stop_signal;
static volatile sig_atomic_t ui_curses_active;
static volatile sig_atomic_t ui_suspend;   /* Ctrl-Z (SIGTSTP) arrived */
static SCREEN *ui_screen;

/* xterm mouse reports, SGR encoding (any column count): on while the
 * dashboard runs, off before the terminal is handed back. */
static const char mouse_on[] = "\033[?1000h\033[?1006h";
static const char mouse_off[] = "\033[?1006l\033[?1000l";

static void ui_restore(void)
{
	if (ui_curses_active) {
		ui_curses_active = 0;
		/* write(2): this also runs from a fatal signal's handler. */
		if (write(STDOUT_FILENO, mouse_off, sizeof(mouse_off) - 1) < 0) {
			/* nothing more to do for a terminal that is gone */
		}
		curs_set(1);
		endwin();
	}
}

static void on_stop_signal(int sig)
{
	ui_stop_signal = sig;
}

/* Ctrl-Z: curses' own SIGTSTP handler would end and redraw the screen
 * inside the signal handler, racing the screen code it interrupts (the key
 * fuzz test crashed on it); here the handler only notes it, and the key
 * loop suspends between two keys (suspend_now). */
static void on_suspend_signal(int sig)
{
	(void)sig;
	ui_suspend = 1;
}

/* Hands the terminal back, stops, and takes it again on SIGCONT. */
static void suspend_now(void)
{
	ui_suspend = 0;
	if (write(STDOUT_FILENO, mouse_off, sizeof(mouse_off) - 1) < 0) {
		/* the terminal is gone: stop anyway */
	}
	endwin();
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTSTP, &sa, &old);
	raise(SIGTSTP);                     /* stopped here until SIGCONT */
	sigaction(SIGTSTP, &old, NULL);
	fputs(mouse_on, stdout);
	fflush(stdout);
	clearok(stdscr, TRUE);
	refresh();
}

/* A crash must not leave the terminal in raw mode. endwin() is not
 * async-signal-safe, but the process is about to die anyway; the signal
 * is then re-raised with its default action so that it still dumps core. */
static void on_fatal_signal(int sig)
{
	ui_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void ui_signals(bool install)
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop); i++) {
		sa.sa_handler = install ? on_stop_signal : SIG_DFL;
		sigaction(stop[i], &sa, NULL);
	}
	sa.sa_handler = install ? on_suspend_signal : SIG_DFL;
	sigaction(SIGTSTP, &sa, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++) {
		sa.sa_handler = install ? on_fatal_signal : SIG_DFL;
		sa.sa_flags = install ? SA_RESETHAND : 0;
		sigaction(fatal[i], &sa, NULL);
	}
}

bool ui_stopping(void)
{
	return ui_stop_signal != 0;
}

int ui_stop_signo(void)
{
	return ui_stop_signal;
}

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

int ui_attr(const struct ui *u, int pair, int mono)
{
	return u->color ? (int)COLOR_PAIR(pair) : mono;
}

void ui_set_message(struct ui *u, const char *msg)
{
	free(u->message);
	u->message = msg ? xstrdup(msg) : NULL;
	u->message_until = now_s() + 5;
	u->redraw = true;
}

/* The first of several names that the model defines. */
static int find_metric(const struct model *m, const char *const *names)
{
	for (; *names; names++) {
		int i = model_find_metric(m, *names);
		if (i >= 0)
			return i;
	}
	return -1;
}

static void find_metrics(struct ui *u)
{
	static const char *const util[] = { "util", "utilization", "cpu_util", "busy", NULL };
	static const char *const ghz[] = { "ghz", "effective_ghz", "freq_ghz", NULL };
	static const char *const ipc[] = { "ipc", NULL };
	static const char *const l3rate[] = { "l3_access_per_s", "l3_accesses_per_s", NULL };
	static const char *const l3acc[] = { "l3_accesses", "l3_access_all", "l3_access", NULL };
	static const char *const l3hit[] = { "l3_hit_rate", NULL };
	static const char *const l3lat[] = { "l3_miss_latency_ns", NULL };
	static const char *const memrd[] = { "mem_read_bw", NULL };
	static const char *const memwr[] = { "mem_write_bw", NULL };
	static const char *const membus[] = { "mem_bus_util", NULL };
	static const char *const memtot[] = { "mem_bw", NULL };
	u->m_util = find_metric(u->m, util);
	u->m_ghz = find_metric(u->m, ghz);
	u->m_ipc = find_metric(u->m, ipc);
	u->m_l3rate = find_metric(u->m, l3rate);
	u->m_l3acc = find_metric(u->m, l3acc);
	u->m_l3hit = find_metric(u->m, l3hit);
	u->m_l3lat = find_metric(u->m, l3lat);
	u->m_memrd = find_metric(u->m, memrd);
	u->m_memwr = find_metric(u->m, memwr);
	u->m_membus = find_metric(u->m, membus);
	/* Only where reads and writes are not counted apart (Zen 3's fabric). */
	u->m_memtot = u->m_memrd < 0 && u->m_memwr < 0 ? find_metric(u->m, memtot) : -1;
}

static const struct view_def *cur_view(const struct ui *u)
{
	if (u->nviews < 1 || u->nav.view < 0 || u->nav.view >= u->nviews)
		return NULL;
	return &u->views[u->nav.view];
}

bool ui_tasks_view(const struct ui *u)
{
	const struct view_def *v = cur_view(u);
	return v && v->tasks;
}

double ui_task_here(const struct ui *u, const struct snap_task *t)
{
	const struct view_def *v = cur_view(u);
	if (!t || !v || !v->tasks || v->ncols < 1)
		return NAN;
	double share = 0;
	for (int i = 0; i < t->ncpus; i++)
		if (ui_cpu_shown(u, t->cpus[i]))
			share += t->cpu_share[i];
	return t->metric[v->cols[0].metric] * share;
}

static void add_col(struct ui *u, enum col_kind k, int idx, const struct view_col *vc,
		    const char *title, int width, bool scrolls)
{
	u->cols = xrealloc(u->cols, (size_t)(u->ncols + 1) * sizeof(*u->cols));
	struct ui_col *c = &u->cols[u->ncols++];
	memset(c, 0, sizeof(*c));
	c->kind = k;
	c->idx = idx;
	c->vc = vc;
	snprintf(c->title, sizeof(c->title), "%s", title);
	/* Never narrower than its heading, which is never cut. */
	int tw = (int)strlen(c->title);
	c->width = width > tw ? width : tw;
	c->scrolls = scrolls;
}

static bool has_metric_col(const struct ui *u, int metric)
{
	for (int i = 0; i < u->ncols; i++)
		if (u->cols[i].kind == COL_METRIC && u->cols[i].idx == metric)
			return true;
	return false;
}

/* A column that can only ever show '-': its metric is not defined at the
 * table's rows (an L3 or memory figure in a CPU row: those belong to the
 * CCX boxes and the memory panel), or the last figures were planned with
 * it and still lack one of its events (a PMU this machine does not have). */
bool ui_metric_unmeasured(const struct ui *u, int metric)
{
	if (metric < 0 || metric >= u->m->nmetrics)
		return true;
	const struct metric_def *md = &u->m->metrics[metric];
	if (!u->snap || !u->snap->metric_planned[metric])
		return false;
	for (int k = 0; k < md->nevents; k++)
		if (!u->snap->event_planned[md->events[k]])
			return true;
	return false;
}

static bool dead_metric(const struct ui *u, int metric)
{
	const struct metric_def *md = &u->m->metrics[metric];
	static const enum scope widest[ROWS_KINDS] = { SCOPE_THREAD, SCOPE_CORE, SCOPE_CCX, SCOPE_SOCKET };
	if ((int)md->scope > (int)(ui_tasks_view(u) ? SCOPE_THREAD : widest[u->nav.rows]))
		return true;
	return ui_metric_unmeasured(u, metric);
}

void ui_metric_heading(const struct ui *u, int metric, char *buf, size_t len)
{
	const struct metric_def *md = &u->m->metrics[metric];
	if (metric == u->m_util)
		snprintf(buf, len, "util%%");
	else if (metric == u->m_ghz)
		snprintf(buf, len, "GHz");
	else
		format_heading(buf, len, md->label ? md->label : md->name, md->unit);
}

static void add_metric_col(struct ui *u, int metric, const struct view_col *vc, bool scrolls)
{
	if (metric < 0 || metric >= u->m->nmetrics || has_metric_col(u, metric) || dead_metric(u, metric))
		return;
	/* A fixed column that the view lists too takes the view's format
	 * and thresholds. */
	const struct view_def *v = cur_view(u);
	for (int i = 0; !vc && v && i < v->ncols; i++)
		if (v->cols[i].metric == metric)
			vc = &v->cols[i];
	char label[48];
	ui_metric_heading(u, metric, label, sizeof(label));
	/* Wide enough for the whole heading (add_col): one cut at 14
	 * columns lost units ("SSE/AVX stall/"). */
	int w = vc && vc->width > 0 ? vc->width : 7;
	if (w < 7)
		w = 7;
	add_col(u, COL_METRIC, metric, vc, label, w, scrolls);
}

/* Columns: the fixed ones (CPU, core, CCX, util, GHz, IPC), the view's, the
 * extra events, and the topdown bar. Keeps the sort on the same column
 * where it still exists. */
void ui_build_columns(struct ui *u)
{
	/* The column the user sorts by, even where this view lacks it (the
	 * rows then sort by CPU until a view has it again). */
	struct ui_col old = { 0 };
	bool had = u->ncols > 0 && u->nav.sort_col < u->ncols;
	if (had && !u->sort_set)
		old = u->cols[u->nav.sort_col];
	if (u->sort_set) {
		old.kind = u->sort_kind;
		old.idx = u->sort_idx;
		had = true;
	}
	free(u->cols);
	u->cols = NULL;
	u->ncols = 0;
	const struct view_def *tv = cur_view(u);
	if (tv && tv->tasks) {
		/* Who, the view's figures, then where: names and CPU lists are
		 * long, so they scroll. */
		add_col(u, COL_PID, 0, NULL, u->task_cgroups ? "PROCS" : "PID", 7, false);
		if (u->task_cgroups)
			add_col(u, COL_CGROUP, 0, NULL, "CGROUP", 28, false);
		else
			add_col(u, COL_COMM, 0, NULL, "COMMAND", 15, false);
		/* Who ran on the filtered CPUs (T): how much of them each had. */
		if (u->filter_text && tv->ncols > 0 && !strcmp(u->m->metrics[tv->cols[0].metric].unit, "%"))
			add_col(u, COL_HERE, 0, NULL, "HERE%", 6, false);
		for (int i = 0; i < tv->ncols; i++)
			add_metric_col(u, tv->cols[i].metric, &tv->cols[i], true);
		if (!u->task_cgroups)
			add_col(u, COL_CGROUP, 0, NULL, "CGROUP", 32, true);
		add_col(u, COL_WHERE, 0, NULL, "CPUS", 20, true);
		goto done;
	}
	/* Identity columns: what the rows are (nav.rows). */
	static const int cpus_w[ROWS_KINDS] = { 5, 9, 13, 13 };
	int rk = u->nav.rows;
	add_col(u, COL_CPU, 0, NULL, rk == ROWS_CPU ? "CPU" : "CPUs", cpus_w[rk], false);
	if (rk <= ROWS_CORE)
		add_col(u, COL_CORE, 0, NULL, "core", 5, false);
	/* The model names its L3 groups: CCX on AMD, LLC (one per socket) on Intel. */
	if (rk <= ROWS_CCX)
		add_col(u, COL_CCX, 0, NULL, u->m->l3_domain ? u->m->l3_domain : "CCX", 4, false);
	else
		add_col(u, COL_SOCKET, 0, NULL, "sock", 4, false);
	add_metric_col(u, u->m_util, NULL, false);
	add_metric_col(u, u->m_ghz, NULL, false);
	add_metric_col(u, u->m_ipc, NULL, false);
	const struct view_def *v = cur_view(u);
	for (int i = 0; v && i < v->ncols; i++)
		add_metric_col(u, v->cols[i].metric, &v->cols[i], true);
	for (int i = 0; i < u->nextra; i++) {
		int e = u->extra[i];
		if (e < 0 || e >= u->m->nevents)
			continue;
		char title[48];
		snprintf(title, sizeof(title), "%s/s", u->m->events[e].name);
		int w = (int)strlen(title);
		add_col(u, COL_EVENT, e, NULL, title, w < 8 ? 8 : w, true);
	}
	if (v && v->nbar > 0)
		add_col(u, COL_BAR, 0, NULL, "topdown", 24, true);
done:;
	int nscroll = 0;
	for (int i = 0; i < u->ncols; i++)
		nscroll += u->cols[i].scrolls;
	u->nav.ncols = u->ncols;
	u->nav.nhscroll = nscroll;
	/* Where the sort column is gone (or none was chosen yet): a tasks
	 * view sorts by its first figure (busiest first), any other view by
	 * CPU. */
	int first = 0;
	for (int i = 0; ui_tasks_view(u) && i < u->ncols && !first; i++)
		if (u->cols[i].kind == COL_METRIC)
			first = i;
	if (had || first) {
		u->nav.sort_col = first;
		for (int i = 0; had && i < u->ncols; i++)
			if (u->cols[i].kind == old.kind && u->cols[i].idx == old.idx)
				u->nav.sort_col = i;
	}
	keys_clamp(&u->nav);
}

const struct snap_row *ui_scope_row(const struct snapshot *s, enum snap_scope sc, int id)
{
	return snapshot_row(s, sc, id);
}

double ui_metric(struct ui *u, const struct snap_row *r, int metric, double *cov, double *rse)
{
	if (cov)
		*cov = NAN;
	if (rse)
		*rse = NAN;
	if (!r || !u->snap || metric < 0 || metric >= u->snap->nmetrics || !r->metric)
		return NAN;
	double v = r->metric[metric];
	if (cov && r->metric_cov)
		*cov = r->metric_cov[metric];
	if (rse && r->metric_rse)
		*rse = r->metric_rse[metric];
	return v;
}

/* The value a row is sorted by; NaN sorts last in either direction. */
static double sort_key(struct ui *u, const struct ui_row *row)
{
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	switch (c->kind) {
	case COL_CPU: return row->cpu;
	case COL_CORE: return row->core;
	case COL_CCX: return row->ccx;
	case COL_SOCKET: return row->socket;
	case COL_METRIC:
		if (row->task)
			return row->task->metric[c->idx];
		return ui_metric(u, row->r, c->idx, NULL, NULL);
	case COL_PID: return row->task ? (row->task->pid >= 0 ? row->task->pid : row->task->nprocs) : NAN;
	case COL_WHERE: return row->task ? row->task->ncpus : NAN;
	case COL_HERE: return ui_task_here(u, row->task);
	case COL_COMM:
	case COL_CGROUP:
		return NAN;   /* by name: row_cmp */
	case COL_EVENT:
		if (row->r && row->r->event && u->snap && c->idx < u->snap->nevents)
			return row->r->event[c->idx];
		return NAN;
	case COL_BAR: return row->cpu;
	}
	return NAN;
}

static struct ui *sort_ui;   /* qsort has no context argument */

static int row_cmp(const void *pa, const void *pb)
{
	const struct ui_row *a = pa, *b = pb;
	struct ui *u = sort_ui;
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	if (a->task && b->task && (c->kind == COL_COMM || c->kind == COL_CGROUP)) {
		const char *x = c->kind == COL_COMM ? a->task->comm : a->task->cgroup;
		const char *y = c->kind == COL_COMM ? b->task->comm : b->task->cgroup;
		int k = strcmp(x ? x : "", y ? y : "");
		if (k)
			return u->nav.sort_reverse ? -k : k;
		return (a->cpu > b->cpu) - (a->cpu < b->cpu);
	}
	double ka = sort_key(u, a), kb = sort_key(u, b);
	/* Identity columns sort ascending, values descending (the busiest
	 * first, as in top); R reverses either. */
	bool desc = c->kind == COL_METRIC || c->kind == COL_EVENT || c->kind == COL_WHERE || c->kind == COL_HERE;
	if (u->nav.sort_reverse)
		desc = !desc;
	if (isnan(ka) != isnan(kb))
		return isnan(ka) ? 1 : -1;
	if (!isnan(ka) && ka != kb)
		return (ka < kb) == desc ? 1 : -1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

bool ui_cpu_shown(const struct ui *u, int cpu)
{
	if (cpu < 0 || cpu >= u->topo->max_cpu)
		return false;
	if (u->cfg->cpu_filter && !u->cfg->cpu_filter[cpu])
		return false;
	return u->filter[cpu];
}

/* Whether a tasks view shows task t: it ran on a CPU the filter keeps,
 * and its pid, name or cgroup holds the filter's text. */
static bool task_shown(const struct ui *u, const struct snap_task *t)
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
	       (t->pid >= 0 && !strcmp(pid, u->task_match));
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
		if (!task_shown(u, &list[i]))
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
	if (ui_tasks_view(u)) {
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
	if (u->ncols > 0 && u->nrows > 1) {
		sort_ui = u;
		qsort(u->rows, (size_t)u->nrows, sizeof(*u->rows), row_cmp);
		sort_ui = NULL;
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
	switch (u->nav.rows) {
	case ROWS_CORE: return "per core";
	case ROWS_CCX:
		snprintf(l3, sizeof(l3), "per %s", u->m->l3_domain ? u->m->l3_domain : "CCX");
		return l3;
	case ROWS_SOCKET: return "per socket";
	default: return "per CPU";
	}
}

static void add_unique(int *list, int *n, int v)
{
	if (v < 0)
		return;
	for (int i = 0; i < *n; i++)
		if (list[i] == v)
			return;
	list[(*n)++] = v;
}

/* Asks the sampler for what the screen shows: the view's columns and bar,
 * the fixed columns, the CCX and memory panels, and the extra events. */
void ui_request(struct ui *u)
{
	const struct view_def *v = cur_view(u);
	int *ms = xmalloc((size_t)(u->m->nmetrics + 1) * sizeof(int));
	int n = 0;
	const int fixed[] = { u->m_util, u->m_ghz, u->m_ipc, u->m_l3rate, u->m_l3acc,
			      u->m_l3hit, u->m_l3lat, u->m_memrd, u->m_memwr, u->m_membus, u->m_memtot };
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		add_unique(ms, &n, fixed[i]);
	for (int i = 0; v && i < v->ncols; i++)
		if (v->cols[i].metric < u->m->nmetrics)
			add_unique(ms, &n, v->cols[i].metric);
	for (int i = 0; v && i < v->nbar; i++)
		if (v->bar[i] < u->m->nmetrics)
			add_unique(ms, &n, v->bar[i]);
	/* 'a' in the detail pane: every metric while it is open. */
	for (int i = 0; u->detail.measure_all && i < u->m->nmetrics; i++)
		add_unique(ms, &n, i);
	if (u->replay) {
		replay_ctl_request(u, n, ms);
		if (v && v->tasks)
			ui_set_message(u, "a recording has no per-task figures: the tasks view shows who ran only live");
	} else {
		sampler_request(u->sampler, n, ms, u->nextra, u->extra);
		/* Per-task sampling only while a tasks view is on screen: its
		 * hardware events hold counters the CPU figures then lack. */
		if (v && v->tasks) {
			int *tm = xmalloc(sizeof(int) * ((size_t)v->ncols + 1));
			for (int i = 0; i < v->ncols; i++)
				tm[i] = v->cols[i].metric;
			sampler_request_tasks(u->sampler, v->ncols, tm);
			free(tm);
			u->tasks_requested = true;
		} else if (u->tasks_requested) {
			sampler_request_tasks(u->sampler, 0, NULL);
			u->tasks_requested = false;
		}
	}
	free(ms);
}

/* The last mouse event read, for ui_last_mouse(). */
static struct ui_mouse last_mouse;

struct ui_mouse ui_last_mouse(void)
{
	return last_mouse;
}

/* Reads the rest of a mouse report whose first bytes after ESC [ are in
 * buf (n of them) and decodes it (mouse.c): UK_MOUSE, or a code no key
 * has when the bytes are not a report. Either way every byte of it is
 * read here, so that none acts as a key. */
static int read_mouse(unsigned char *buf, int n)
{
	int r;
	timeout(50);
	while ((r = mouse_decode(buf, n, &last_mouse)) == 0 && n < MOUSE_REPORT_MAX) {
		int c = getch();
		if (c == ERR || c > 255)
			break;
		buf[n++] = (unsigned char)c;
	}
	timeout(100);
	return r > 0 ? UK_MOUSE : 0x7fffffff;
}

/* KEY_MOUSE: the terminfo entry's kmous (ESC [ < under xterm-256color,
 * ESC [ M under screen) matched and curses returned it with the rest of
 * the report still unread; pmctop decodes that rest itself. */
static int curses_mouse_key(void)
{
	unsigned char buf[MOUSE_REPORT_MAX];
	const char *km = tigetstr("kmous");
	int n = 0;
	if (km && km != (char *)-1 && !strncmp(km, "\033[", 2))
		for (km += 2; *km && n < MOUSE_REPORT_MAX; km++)
			buf[n++] = (unsigned char)*km;
	if (n == 0)
		buf[n++] = 'M';
	return read_mouse(buf, n);
}

/* The rest of an escape sequence that the terminal's terminfo entry does
 * not name (under tmux with TERM=xterm-256color, End is "\e[4~"), read
 * whole and mapped when it is a key pmctop knows, dropped otherwise: its
 * bytes must never act as keys of their own ('4' would switch to view 4).
 * A lone ESC is ESC. */
static int escape_sequence(void)
{
	timeout(0);
	int c = getch(), key = UK_ESC;
	if (c == '[' || c == 'O') {
		char seq[16];
		int n = 0, f;
		/* A mouse report that terminfo did not name: "<..." (SGR) or
		 * "M" and three bytes (X10), whose bytes are not a CSI's. */
		if (c == '[' && (f = getch()) != ERR) {
			if (f == '<' || f == 'M') {
				unsigned char mb[MOUSE_REPORT_MAX] = { (unsigned char)f };
				return read_mouse(mb, 1);
			}
			ungetch(f);
		}
		/* CSI: parameters, then a final byte in 0x40-0x7e; SS3: one byte. */
		while (n < (int)sizeof(seq) - 1 && (f = getch()) != ERR) {
			seq[n++] = (char)f;
			if (c == 'O' || (f >= 0x40 && f <= 0x7e))
				break;
		}
		seq[n] = 0;
		static const struct { const char *seq; int key; } known[] = {
			{ "A", UK_UP }, { "B", UK_DOWN }, { "C", UK_RIGHT }, { "D", UK_LEFT },
			{ "H", UK_HOME }, { "F", UK_END }, { "1~", UK_HOME }, { "7~", UK_HOME },
			{ "4~", UK_END }, { "8~", UK_END }, { "5~", UK_PGUP }, { "6~", UK_PGDN },
			{ "3~", UK_DELETE }, { "Z", UK_BTAB },
		};
		key = 0x7fffffff;   /* a sequence pmctop does not use */
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(seq, known[i].seq))
				key = known[i].key;
	} else if (c != ERR) {
		ungetch(c);         /* ESC, then the key that followed */
	}
	timeout(100);
	return key;
}

int ui_dialog_getkey(struct ui *u)
{
	struct snapshot *s = u->replay ? NULL : snap_ring_pop_latest(&u->ring);
	if (s) {
		ui_history_add(u, s);
		if (u->pending)
			snapshot_free(u->pending);
		u->pending = s;
	}
	return ui_getkey();
}

/* curses key codes -> pmctop's (keys.h). */
int ui_getkey(void)
{
	if (ui_suspend && ui_curses_active) {
		suspend_now();
		return UK_RESIZE;               /* back: whoever asked redraws */
	}
	int ch = getch();
	switch (ch) {
	case ERR: return -1;
	case KEY_UP: return UK_UP;
	case KEY_DOWN: return UK_DOWN;
	case KEY_LEFT: return UK_LEFT;
	case KEY_RIGHT: return UK_RIGHT;
	case KEY_PPAGE: return UK_PGUP;
	case KEY_NPAGE: return UK_PGDN;
	case KEY_HOME: case KEY_FIND: case KEY_A1: return UK_HOME;
	case KEY_END: case KEY_SELECT: case KEY_C1: return UK_END;
	case KEY_BTAB: return UK_BTAB;
	case KEY_DC: return UK_DELETE;
	case KEY_ENTER: case '\n': case '\r': return UK_ENTER;
	case 27: return escape_sequence();
	case KEY_BACKSPACE: case 127: case 8: return UK_BACKSPACE;
	case KEY_RESIZE: return UK_RESIZE;
	case KEY_MOUSE: return curses_mouse_key();
	default: break;
	}
	if (ch >= KEY_F(1) && ch <= KEY_F(10))
		return UK_F1 + (ch - KEY_F(1));
	if (ch >= KEY_MIN)
		return 0x7fffffff;  /* a key pmctop does not use */
	return ch;
}

static int screen_init(struct ui *u, char **cause)
{
	/* newterm, unlike initscr, returns NULL instead of exiting when the
	 * terminal is unknown, so that the sampler can be stopped cleanly. */
	/* Line drawing and wide characters follow the user's locale; only
	 * LC_CTYPE, so that numbers keep their '.' in every output. */
	setlocale(LC_CTYPE, "");
	ui_screen = newterm(NULL, stdout, stdin);
	if (!ui_screen)
		return set_cause(cause, "cannot use the terminal (TERM=%s); try -b for batch output",
				 getenv("TERM") ? getenv("TERM") : "unset");
	ui_curses_active = 1;
	fputs(mouse_on, stdout);
	fflush(stdout);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	timeout(100);
	set_escdelay(25);
	curs_set(0);
	/* The saved scheme unless the command line or NO_COLOR said mono. */
	const struct settings *st = u->cfg->settings;
	ui_colors_apply(u, u->cfg->no_color ? COLORS_MONO : st && st->has_colors ? st->colors : COLORS_DEFAULT);
	return 0;
}

/* The view with digit key d; if no view has keys, the d-th view. */
static int view_for_digit(const struct ui *u, int d)
{
	for (int i = 0; i < u->nviews; i++)
		if (u->views[i].key == d)
			return i;
	for (int i = 0; i < u->nviews; i++)
		if (u->views[i].key > 0)
			return -1;
	return d - 1 < u->nviews ? d - 1 : -1;
}

static void del_extra(struct ui *u)
{
	if (u->nextra < 1) {
		ui_set_message(u, "no event column to remove (e adds one)");
		return;
	}
	int pos = u->nextra - 1;
	const struct ui_col *c = &u->cols[u->nav.sort_col];
	if (c->kind == COL_EVENT)
		for (int i = 0; i < u->nextra; i++)
			if (u->extra[i] == c->idx)
				pos = i;
	memmove(&u->extra[pos], &u->extra[pos + 1], (size_t)(u->nextra - pos - 1) * sizeof(int));
	u->nextra--;
}

static void add_extra(struct ui *u, int e)
{
	for (int i = 0; i < u->nextra; i++)
		if (u->extra[i] == e)
			return;
	u->extra = xrealloc(u->extra, (size_t)(u->nextra + 1) * sizeof(int));
	u->extra[u->nextra++] = e;
}

static void do_filter(struct ui *u)
{
	char *text = dialog_prompt(u, ui_tasks_view(u) ? "Filter (CPU list, 'ccx N', 'socket N', or a name; empty: all): "
					   : "Filter (CPU list, 'ccx N', 'socket N'; empty: all): ",
				   u->filter_text ? u->filter_text : u->task_match ? u->task_match : "");
	if (!text)
		return;
	/* Shown and matched without the blanks typed around it. */
	size_t lead = strspn(text, " \t"), tl = strlen(text);
	while (tl > lead && (text[tl - 1] == ' ' || text[tl - 1] == '\t'))
		text[--tl] = 0;
	memmove(text, text + lead, tl - lead + 1);
	bool *f = xcalloc((size_t)u->topo->max_cpu + 1, sizeof(bool));
	char *cause = NULL;
	free(u->task_match);
	u->task_match = NULL;
	if (ui_tasks_view(u) && *text && fmt_parse_filter(text, u->topo, f, NULL) < 0) {
		/* Not CPUs: a name (or pid, or cgroup) to look for. */
		fmt_parse_filter("", u->topo, f, NULL);
		u->task_match = text_sanitize(text);
	} else if (fmt_parse_filter(text, u->topo, f, &cause) < 0) {
		char *msg = xasprintf("filter: %s", cause ? cause : "invalid");
		ui_set_message(u, msg);
		free(msg);
		free(cause);
		free(f);
		free(text);
		return;
	}
	free(u->filter);
	u->filter = f;
	free(u->filter_text);
	/* filter_text says which CPUs; a name is task_match's. */
	u->filter_text = *text && !u->task_match ? text : NULL;
	if (!u->filter_text)
		free(text);
	u->nav.sel = u->nav.top = 0;
	ui_set_message(u, NULL);     /* an error about an earlier filter no longer holds */
	ui_build_columns(u);         /* HERE% comes and goes with a CPU filter */
}

/* Whether a row's identity matches the search: its CPU (or pid) number
 * exactly, or its command or cgroup holding the text. Figures are not
 * searched: they change under the search. */
static bool row_matches(struct ui *u, const struct ui_row *row, const char *q)
{
	for (int i = 0; i < u->ncols; i++) {
		const struct ui_col *c = &u->cols[i];
		char buf[256];
		int level;
		if (c->kind == COL_CPU || c->kind == COL_PID) {
			if (!strcmp(draw_cell(u, c, row, buf, sizeof(buf), &level), q))
				return true;
		} else if (c->kind == COL_COMM || c->kind == COL_CGROUP) {
			if (fmt_match(draw_cell(u, c, row, buf, sizeof(buf), &level), q))
				return true;
		}
	}
	return false;
}

/* Selects the next row (dir 1) or the previous one (-1) that matches the
 * search, from the selected row itself when from_here is set, wrapping
 * around; the rows stay as they are (the filter hides rows). */
static void search_step(struct ui *u, int dir, bool from_here)
{
	if (!u->search_text || !*u->search_text) {
		ui_set_message(u, "no search yet: / or F3 searches");
		return;
	}
	int n = u->nrows;
	for (int k = from_here ? 0 : 1; k <= n; k++) {
		int i = ((u->nav.sel + dir * k) % n + n) % n;
		if (n > 0 && row_matches(u, &u->rows[i], u->search_text)) {
			u->nav.sel = i;
			keys_clamp(&u->nav);
			return;
		}
	}
	char *msg = xasprintf("no row matches '%s' (\\ or F4 filters, / searches)", u->search_text);
	ui_set_message(u, msg);
	free(msg);
}

static void do_search(struct ui *u)
{
	char *text = dialog_prompt(u, "Search (a CPU, pid, command or cgroup; n/N: next/previous): ",
				   u->search_text ? u->search_text : "");
	if (!text)
		return;
	free(u->search_text);
	u->search_text = text_sanitize(text);
	free(text);
	search_step(u, 1, true);
}

/* T: from a CPU, core, CCX or socket row, the tasks view limited to its
 * CPUs (who ran there); from the tasks view, back to the view before,
 * every CPU shown again. Returns whether the view changed. */
static bool show_tasks(struct ui *u)
{
	if (ui_tasks_view(u)) {
		int back = u->task_back >= 0 && u->task_back < u->nviews ? u->task_back : 0;
		if (back == u->nav.view)
			return false;
		fmt_parse_filter("", u->topo, u->filter, NULL);
		free(u->filter_text);
		u->filter_text = NULL;
		free(u->task_match);
		u->task_match = NULL;
		u->task_back = -1;
		u->nav.view = back;
		u->nav.sel = u->nav.top = 0;
		return true;
	}
	int tv = -1;
	for (int i = 0; i < u->nviews && tv < 0; i++)
		if (u->views[i].tasks)
			tv = i;
	if (tv < 0) {
		ui_set_message(u, "this model has no tasks view (a view with 'rows tasks', see docs/tasks.md)");
		return false;
	}
	/* Who ran on the selected row's CPUs. */
	char text[64] = "";
	if (u->nrows > 0 && u->nav.sel >= 0 && u->nav.sel < u->nrows) {
		const struct ui_row *row = &u->rows[u->nav.sel];
		const struct topo *t = u->topo;
		switch (u->nav.rows) {
		case ROWS_CORE:
			if (row->core >= 0 && row->core < t->ncores)
				fmt_cpulist(text, sizeof(text), t->cores[row->core].cpus, t->cores[row->core].ncpus, true);
			break;
		case ROWS_CCX:
			snprintf(text, sizeof(text), "ccx %d", row->ccx);
			break;
		case ROWS_SOCKET:
			snprintf(text, sizeof(text), "socket %d", row->socket);
			break;
		default:
			snprintf(text, sizeof(text), "%d", row->cpu);
		}
	}
	bool *f = xcalloc((size_t)u->topo->max_cpu + 1, sizeof(bool));
	if (*text && fmt_parse_filter(text, u->topo, f, NULL) == 0) {
		free(u->filter);
		u->filter = f;
		free(u->filter_text);
		u->filter_text = xstrdup(text);
		char *msg = xasprintf("who ran on %s%s (T: back, \\ changes the filter)",
				      u->nav.rows == ROWS_CPU ? "CPU " : u->nav.rows == ROWS_CORE ? "CPUs " : "", text);
		ui_set_message(u, msg);
		free(msg);
	} else {
		free(f);
	}
	free(u->task_match);
	u->task_match = NULL;
	u->task_back = u->nav.view;
	u->nav.view = tv;
	u->nav.sel = u->nav.top = 0;
	/* Busiest there first. */
	if (u->filter_text) {
		u->sort_set = true;
		u->sort_kind = COL_HERE;
		u->sort_idx = 0;
		u->nav.sort_reverse = false;
	}
	return true;
}

/* The snapshot key: the interval on screen, as JSON, to a new file. */
static void write_snapshot(struct ui *u)
{
	char *path = NULL, *cause = NULL;
	char *msg = snapfile_write(u->snap, NULL, u->extra, u->nextra, &path, &cause) == 0
		    ? xasprintf("snapshot written to %s", path) : xasprintf("snapshot: %s", cause);
	ui_set_message(u, msg);
	free(msg);
	free(path);
	free(cause);
}

/* The user chose the sort column: keep it by what it is, not where it is. */
static void remember_sort(struct ui *u)
{
	if (u->nav.sort_col < 0 || u->nav.sort_col >= u->ncols)
		return;
	u->sort_set = true;
	u->sort_kind = u->cols[u->nav.sort_col].kind;
	u->sort_idx = u->cols[u->nav.sort_col].idx;
}

/* A click or the wheel, as in htop: a column heading sorts by it (again:
 * reverses), a view tab switches to it, a row selects it; the wheel moves
 * the selection. Returns the keys_apply flags for what changed. */
static int handle_mouse(struct ui *u)
{
	struct ui_mouse m = ui_last_mouse();
	const struct rect *t = &u->lay.table;
	if (u->lay.too_small || !m.press)
		return 0;
	if (m.button == 64 || m.button == 65) {
		u->nav.sel += m.button == 64 ? -3 : 3;
		keys_clamp(&u->nav);
		return KA_REDRAW;
	}
	if (m.button != 0)
		return 0;
	if (m.y == t->y && t->h > 0) {
		/* vis_* is what the last frame drew; columns rebuilt since (a key
		 * while the terminal was too small to draw) must not be indexed. */
		for (int k = 0; k < u->nvis; k++)
			if (u->vis_col[k] < u->ncols && m.x >= u->vis_x[k] && m.x <= u->vis_x[k] + u->vis_w[k]) {
				if (u->cols[u->vis_col[k]].kind == COL_BAR)
					return 0;
				/* A new column in its own direction; the same one reversed. */
				u->nav.sort_reverse = u->nav.sort_col == u->vis_col[k] && !u->nav.sort_reverse;
				u->nav.sort_col = u->vis_col[k];
				remember_sort(u);
				return KA_REDRAW;
			}
		return 0;
	}
	if (m.y > t->y && m.y < t->y + t->h) {
		int ri = u->nav.top + (m.y - t->y - 1);
		if (ri < u->nrows) {
			u->nav.sel = ri;
			keys_clamp(&u->nav);
		}
		return KA_REDRAW;
	}
	if (m.y == u->tab_y) {
		for (int i = 0; i < u->nviews && i < 64; i++)
			if (u->tab_x0[i] >= 0 && m.x >= u->tab_x0[i] && m.x < u->tab_x1[i] && i != u->nav.view) {
				u->nav.view = i;
				return KA_REQUEST;
			}
	}
	return 0;
}

/* Handles one key; returns false to quit. */
static bool handle_key(struct ui *u, int key)
{
	if (key == UK_RESIZE)
		return true;
	if (key == UK_MOUSE) {
		if (handle_mouse(u) & KA_REQUEST) {
			ui_build_columns(u);
			ui_request(u);
		}
		return true;
	}
	if (ui_detail_key(u, key))
		return true;
	const struct key_binding *b = keys_lookup(key);
	if (!b)
		return true;
	if (b->action == ACT_TOGGLE_THREADS && ui_tasks_view(u)) {
		/* A tasks view's rows are processes or cgroups. */
		u->task_cgroups = !u->task_cgroups;
		u->nav.sel = u->nav.top = 0;
		ui_build_columns(u);
		return true;
	}
	/* In a replay + and - are the speed, as the header's "x2" says:
	 * + faster (a shorter stay per interval), - slower. */
	if (u->replay && (b->action == ACT_DELAY_UP || b->action == ACT_DELAY_DOWN))
		b = keys_lookup(b->action == ACT_DELAY_UP ? '-' : '+');
	int sort_before = u->nav.sort_col;
	int r = keys_apply(&u->nav, b);
	if (r & KA_QUIT)
		return false;
	if (u->nav.sort_col != sort_before)
		remember_sort(u);
	if (r & KA_DIALOG) {
		switch (b->action) {
		case ACT_HELP:
			dialog_help(u);
			break;
		case ACT_VIEW_KEY: {
			int v = view_for_digit(u, b->arg);
			if (v >= 0 && v != u->nav.view) {
				u->nav.view = v;
				r |= KA_REQUEST;
			} else if (v < 0) {
				/* Not silently nothing: say which keys there are. */
				char *msg = xasprintf("no view on key %d: h lists the views and their keys, Tab steps through them",
						      b->arg);
				ui_set_message(u, msg);
				free(msg);
			}
			break;
		}
		case ACT_EVENT_PICKER: {
			int e = dialog_pick_event(u);
			if (e >= 0) {
				add_extra(u, e);
				r |= KA_REQUEST;
			}
			break;
		}
		case ACT_DEL_COLUMN:
			del_extra(u);
			r |= KA_REQUEST;
			break;
		case ACT_SORT_PICK: {
			int c = dialog_pick_sort(u);
			if (c >= 0) {
				u->nav.sort_col = c;
				remember_sort(u);
			}
			break;
		}
		case ACT_FILTER:
			do_filter(u);
			break;
		case ACT_SEARCH:
			do_search(u);
			break;
		case ACT_SEARCH_NEXT:
		case ACT_SEARCH_PREV:
			search_step(u, b->action == ACT_SEARCH_NEXT ? 1 : -1, false);
			break;
		case ACT_STEP_BACK:
		case ACT_STEP_FWD:
		case ACT_JUMP:
			if (u->replay)
				replay_ctl_action(u, b->action);
			else
				ui_set_message(u, "[, ] and j move through a recording (pmctop -r FILE)");
			break;
		case ACT_DETAIL:
			if (ui_tasks_view(u))
				ui_set_message(u, "the detail pane shows a CPU, core, CCX or socket row: T goes back to them");
			else
				ui_detail_open(u);
			break;
		case ACT_TASKS:
			if (show_tasks(u))
				r |= KA_REQUEST;
			break;
		case ACT_SNAPSHOT:
			write_snapshot(u);
			break;
		case ACT_SETUP:
			r |= setup_screen(u);
			break;
		default:
			break;
		}
		clearok(stdscr, TRUE);
	}
	if (r & KA_REQUEST) {
		ui_build_columns(u);
		ui_request(u);
		if (u->nav.paused && !u->replay)
			ui_set_message(u, "paused: figures the last interval did not count come when you resume (Space)");
	}
	if (r & KA_ROWS)
		ui_build_columns(u);
	/* In a replay the delay is how long each interval stays on screen. */
	if ((r & KA_INTERVAL) && !u->replay)
		sampler_set_interval(u->sampler, u->nav.delay_s);
	if ((r & KA_PAUSE) && u->replay)
		replay_ctl_action(u, ACT_PAUSE);
	else if (r & KA_PAUSE)
		sampler_pause(u->sampler, u->nav.paused);
	if (r & KA_CLEAR)
		clearok(stdscr, TRUE);
	return true;
}

static bool add_group_view(struct ui *u, const char *group);

/* The saved settings (pmctoprc) that the command line did not override:
 * the view, rows, panels and uncertainty before the columns exist; the
 * sort column after (apply_settings_sort). A view this model lacks (the
 * file was saved on another machine) is skipped with a message. */
static void apply_settings_early(struct ui *u)
{
	const struct settings *s = u->cfg->settings;
	if (!s)
		return;
	if (s->has_view && s->view && !u->cfg->view_given && !u->replay) {
		int v = -1;
		for (int i = 0; i < u->nviews; i++)
			if (!strcmp(u->views[i].name, s->view))
				v = i;
		if (v < 0 && add_group_view(u, s->view))
			v = u->nviews - 1;
		if (v >= 0)
			u->nav.view = v;
		else
			ui_set_message(u, "settings: this model has no view of the saved name; F2 changes it");
	}
	if (s->has_rows && s->rows >= 0 && s->rows < ROWS_KINDS)
		u->nav.rows = s->rows;
	if (s->has_ccx)
		u->nav.show_ccx = s->show_ccx;
	if (s->has_errors)
		u->nav.show_err = s->show_errors;
}

static void apply_settings_sort(struct ui *u)
{
	const struct settings *s = u->cfg->settings;
	if (s && s->has_sort && s->sort) {
		for (int i = 0; i < u->ncols; i++) {
			const struct ui_col *c = &u->cols[i];
			const char *name = c->kind == COL_METRIC ? u->m->metrics[c->idx].name
					 : c->kind == COL_EVENT ? u->m->events[c->idx].name
					 : c->kind == COL_CPU ? "cpu" : NULL;
			if (name && !strcmp(name, s->sort)) {
				u->nav.sort_col = i;
				u->nav.sort_reverse = s->sort_reverse;
				remember_sort(u);
			}
		}
	}
	/* A bad line in the file is said once, on the first screen. */
	if (u->cfg->settings_warnings) {
		const char *w = u->cfg->settings_warnings;
		int more = 0;
		for (const char *p = strchr(w, '\n'); p; p = strchr(p + 1, '\n'))
			more++;
		char *msg = xasprintf("%.*s%s", (int)strcspn(w, "\n"), w,
				      more ? " (and more lines: see F2 to save a good file)" : "");
		ui_set_message(u, msg);
		free(msg);
	}
}

static void ui_done(struct ui *u)
{
	if (u->snap)
		snapshot_free(u->snap);
	if (u->pending)
		snapshot_free(u->pending);
	free(u->cols);
	free(u->rows);
	free(u->extra);
	free(u->filter);
	free(u->filter_text);
	free(u->task_match);
	free(u->search_text);
	free(u->message);
	free(u->views);
	free(u->group_view.cols);
	history_done(&u->hist);
}

/* -g GROUP in the dashboard: a view of the group's metrics (as batch
 * mode shows them), after the model's own views. False if no metric of
 * the model belongs to it. */
static bool add_group_view(struct ui *u, const char *group)
{
	int n = 0;
	for (int i = 0; i < u->m->nmetrics; i++)
		n += metric_in_group(&u->m->metrics[i], group);
	if (n == 0 || u->has_group_view)
		return false;
	struct view_def *v = &u->group_view;
	memset(v, 0, sizeof(*v));
	v->cols = xcalloc((size_t)n, sizeof(*v->cols));
	for (int i = 0; i < u->m->nmetrics; i++)
		if (metric_in_group(&u->m->metrics[i], group))
			v->cols[v->ncols++] = (struct view_col){ .metric = i, .warn = NAN, .crit = NAN };
	v->name = (char *)group;
	v->title = (char *)group;
	u->has_group_view = true;
	u->views[u->nviews++] = *v;
	return true;
}

void ui_views_reload(struct ui *u, const char *name)
{
	free(u->views);
	u->nviews = u->m->nviews;
	u->views = xcalloc((size_t)u->nviews + 2, sizeof(*u->views));
	memcpy(u->views, u->m->views, sizeof(*u->views) * (size_t)u->nviews);
	if (u->has_group_view)
		u->views[u->nviews++] = u->group_view;
	u->nav.view = 0;
	for (int i = 0; name && i < u->nviews; i++)
		if (!strcmp(u->views[i].name, name))
			u->nav.view = i;
	u->nav.nviews = u->nviews;
}

int ui_run(const struct ui_config *c, char **cause)
{
	static bool atexit_done;
	struct ui u;
	int rc = -1;
	memset(&u, 0, sizeof(u));
	if (!c || !c->model || !c->topo || !(c->sampler || c->replay))
		return set_cause(cause, "internal error: the dashboard needs a model, a topology and a sampler");
	u.cfg = c;
	u.m = c->model;
	u.topo = c->topo;
	u.sampler = c->sampler;
	u.replay = c->replay;
	if (u.replay)
		replay_ctl_init(&u);
	u.nav.show_ccx = true;
	if (!u.replay)
		u.nav.delay_s = c->interval_s > 0 ? c->interval_s : 1;
	ui_views_reload(&u, NULL);
	if (c->view) {
		int v = model_find_view(u.m, c->view);
		if (v < 0 && add_group_view(&u, c->view))
			v = u.nviews - 1;
		/* A recording names the view it was made in, which may be a
		 * user's view that this run does not have: the first view then. */
		if (v < 0 && u.replay && !c->view_given)
			v = 0;
		if (v < 0) {
			free(u.views);
			return set_cause(cause, "unknown view or metric group '%s' (see --list-views)", c->view);
		}
		u.nav.view = v;
	}
	apply_settings_early(&u);
	u.nav.nviews = u.nviews;
	for (int i = 0; i < c->nextra; i++)
		if (c->extra_events[i] >= 0 && c->extra_events[i] < u.m->nevents)
			add_extra(&u, c->extra_events[i]);
	u.filter = xcalloc((size_t)u.topo->max_cpu + 1, sizeof(bool));
	for (int i = 0; i < u.topo->max_cpu; i++)
		u.filter[i] = true;
	u.rows_cap = u.topo->ncpus > 0 ? u.topo->ncpus : 1;
	u.rows = xcalloc((size_t)u.rows_cap, sizeof(*u.rows));
	find_metrics(&u);
	history_init(&u.hist, HISTORY_LEN, HISTORY_BUDGET);
	ui_build_columns(&u);
	apply_settings_sort(&u);
	ui_request(&u);

	snap_ring_init(&u.ring);
	/* The notice of the first plan, read before the sampler's thread
	 * exists: once it runs, that thread rebuilds the notice at every
	 * re-plan, and the screen takes it from each snapshot instead. */
	const char *n0 = u.sampler ? sampler_notice(u.sampler) : NULL;
	u.first_notice = n0 && *n0 ? xstrdup(n0) : NULL;
	if (u.sampler && sampler_start(u.sampler, &u.ring, cause) < 0)
		goto out_ring;
	if (!atexit_done) {
		atexit(ui_restore);
		atexit_done = true;
	}
	ui_stop_signal = 0;
	if (screen_init(&u, cause) < 0)
		goto out_sampler;
	u.utf8 = spark_utf8_locale();
	ui_signals(true);

	bool dirty = true;
	long shown = 0;
	while (!ui_stop_signal) {
		struct snapshot *s = u.replay ? replay_ctl_poll(&u, now_s()) : snap_ring_pop_latest(&u.ring);
		/* What came while a dialog was open is in the history already. */
		bool kept = !s && u.pending;
		if (kept)
			s = u.pending;
		else if (u.pending)
			snapshot_free(u.pending);
		u.pending = NULL;
		if (s) {
			shown++;
			/* The same interval derived again (a new view) is not a
			 * new one. */
			bool again = u.replay && u.snap && s->seq == u.snap->seq && s->time == u.snap->time;
			if (u.snap)
				snapshot_free(u.snap);
			u.snap = s;
			if (!again && !kept)
				ui_history_add(&u, s);
			dirty = true;
			/* Columns follow what the figures can show. */
			ui_build_columns(&u);
		}
		if (u.redraw) {
			u.redraw = false;
			dirty = true;
		}
		if (u.message && now_s() > u.message_until) {
			free(u.message);
			u.message = NULL;
			dirty = true;
		}
		if (dirty) {
			ui_build_rows(&u);
			draw_screen(&u);
			dirty = false;
		}
		/* -n, as in top: the last interval stays on screen briefly. */
		/* Live, by the sampler's count: the screen may skip an interval
		 * that came while it drew, but a recording (-w) has it. */
		long done = u.replay || !u.snap ? shown : (long)u.snap->seq;
		if (c->iterations > 0 && done >= c->iterations) {
			napms(300);
			break;
		}
		int key = ui_getkey();
		if (key < 0)
			continue;
		if (!handle_key(&u, key))
			break;
		dirty = true;
	}
	rc = 0;
	ui_restore();
	ui_signals(false);
	delscreen(ui_screen);
	ui_screen = NULL;
out_sampler:
	if (u.sampler)
		sampler_stop(u.sampler);
out_ring:
	if (u.snap) {
		snapshot_free(u.snap);
		u.snap = NULL;
	}
	snap_ring_done(&u.ring);
	free(u.first_notice);
	ui_done(&u);
	return rc;
}
