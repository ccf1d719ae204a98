/* views.c: the dashboard's views (the model's, and one made of a -g
 * metric group), the saved settings applied at start, the request to the
 * sampler (or the recording) for what the screen shows, and the message
 * line. */
#include "config.h"
#include "ui_impl.h"
#include "format.h"

#include <curses.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <time.h>
#include "snapfile.h"
#include "spark.h"
#include "util.h"

static void add_unique(int *list, int *n, int v)
{
	if (v < 0)
		return;
	for (int i = 0; i < *n; i++)
		if (list[i] == v)
			return;
	list[(*n)++] = v;
}

/* Asks the source for what the screen shows: what the panels read (the
 * table's fixed columns, the CCX and memory panels' figures), the view's
 * columns and bar, and the extra events. */
bool ui_request(struct ui *u)
{
	const struct view_def *v = ui_cur_view(u);
	int *ms = xmalloc((size_t)(u->m->nmetrics + 1) * sizeof(int));
	int n = 0;
	/* What the panels read and pin (their needs, panel.h), each list
	 * with a slot per panel and metric: a panel may name a metric more
	 * than once (the CCX panel reads IPC as the table does). */
	size_t room = (size_t)u->npanels * ((size_t)u->m->nmetrics + 8);
	int *pm = xmalloc(room * sizeof(int)), *pp = xmalloc(room * sizeof(int));
	int npm = 0, npp = 0;
	ui_panels_needs(u, pm, &npm, pp, &npp);
	for (int i = 0; i < npm; i++)
		add_unique(ms, &n, pm[i]);
	/* Counted throughout (sched_request.pinned): the view's headline
	 * figures (its `pin`), then the panels' pins (the L3 and memory
	 * figures of the CCX and memory panels, on their own PMUs), as far
	 * as the counters allow. The panels' IPC and GHz are pinned where
	 * the view says so (basic): in a topdown view they would split level
	 * 1 over more groups. */
	int *pins = xmalloc((size_t)(u->m->nmetrics + 1) * sizeof(int));
	int npins = 0;
	for (int i = 0; v && i < v->npin; i++)
		if (v->pin[i] < u->m->nmetrics)
			add_unique(pins, &npins, v->pin[i]);
	for (int i = 0; i < npp; i++)
		add_unique(pins, &npins, pp[i]);
	free(pm);
	free(pp);
	for (int i = 0; v && i < v->ncols; i++)
		if (v->cols[i].metric < u->m->nmetrics)
			add_unique(ms, &n, v->cols[i].metric);
	for (int i = 0; v && i < v->nbar; i++)
		if (v->bar[i] < u->m->nmetrics)
			add_unique(ms, &n, v->bar[i]);
	/* 'a' in the detail pane: every metric while it is open. */
	for (int i = 0; u->detail.measure_all && i < u->m->nmetrics; i++)
		add_unique(ms, &n, i);
	bool now = source_request(u->src, n, ms, npins, pins, u->nextra, u->extra);
	u->tell_missing = true;
	/* Per-task sampling only while a tasks view is on screen: its
	 * hardware events hold counters the CPU figures then lack. */
	if (v && v->tasks) {
		int *tm = xmalloc(sizeof(int) * ((size_t)v->ncols + 1));
		for (int i = 0; i < v->ncols; i++)
			tm[i] = v->cols[i].metric;
		const char *why = source_request_tasks(u->src, v->ncols, tm);
		/* A source without per-task figures (a recording) is said once
		 * on the message line; the table says it while the view is up,
		 * rather than promise figures that never come. */
		if (why && !u->tasks_why)
			ui_set_message(u, why);
		free(u->tasks_why);
		u->tasks_why = why ? xstrdup(why) : NULL;
		free(tm);
		u->tasks_requested = true;
	} else if (u->tasks_requested) {
		source_request_tasks(u->src, 0, NULL);
		u->tasks_requested = false;
		/* The tasks view's line does not belong to the next view. */
		if (u->message && u->tasks_why && !strcmp(u->message, u->tasks_why))
			ui_set_message(u, NULL);
	}
	free(pins);
	free(ms);
	return now;
}

/* The saved settings (pmctoprc) that the command line did not override:
 * the view, rows, panels and uncertainty before the columns exist; the
 * sort column after (ui_apply_settings_sort). A view this model lacks (the
 * file was saved on another machine) is skipped with a message. */
void ui_apply_settings_early(struct ui *u)
{
	const struct settings *s = u->cfg->settings;
	if (!s)
		return;
	if (s->has_view && s->view && !u->cfg->view_given && !u->src->ops->names_view) {
		int v = -1;
		for (int i = 0; i < u->nviews; i++)
			if (!strcmp(u->views[i].name, s->view))
				v = i;
		if (v < 0 && ui_add_group_view(u, s->view))
			v = u->nviews - 1;
		/* One this model lacks is said with the file's other problems
		 * (ui_apply_settings_sort). */
		if (v >= 0)
			u->nav.view = v;
	}
	if (s->has_rows && s->rows >= 0 && s->rows < ROWS_KINDS)
		u->nav.rows = s->rows;
	if (s->has_ccx)
		u->nav.show_ccx = s->show_ccx;
	if (s->has_errors)
		u->nav.show_err = s->show_errors;
}

/* Adds one problem of the settings file to the list (one per line). */
static void add_problem(char **list, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_problem(char **list, int *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	char *l = xasprintf("%s%s%s", *list ? *list : "", *list ? "\n" : "", p);
	free(p);
	free(*list);
	*list = l;
	(*n)++;
}

void ui_apply_settings_sort(struct ui *u)
{
	const struct settings *s = u->cfg->settings;
	bool sorted = false;
	if (s && s->has_sort && s->sort) {
		for (int i = 0; i < u->ncols; i++) {
			const struct ui_col *c = &u->cols[i];
			const char *name = c->kind == COL_METRIC ? u->m->metrics[c->idx].name
					 : c->kind == COL_EVENT ? u->m->events[c->idx].name
					 : c->kind == COL_CPU ? "cpu" : NULL;
			if (name && !strcmp(name, s->sort)) {
				u->nav.sort_col = i;
				u->nav.sort_reverse = s->sort_reverse;
				ui_remember_sort(u);
				sorted = true;
			}
		}
	}
	/* Every problem of the file, said once on the first screen: its bad
	 * lines, a view this model lacks, a sort column the view lacks. */
	char *list = NULL;
	int n = 0;
	const char *path = u->cfg->settings_path ? u->cfg->settings_path : "pmctoprc";
	for (const char *w = u->cfg->settings_warnings; w && *w;) {
		size_t l = strcspn(w, "\n");
		add_problem(&list, &n, "%.*s", (int)l, w);
		w += l + (w[l] == '\n');
	}
	if (s && s->has_view && s->view && !u->cfg->view_given && !u->src->ops->names_view &&
	    strcmp(u->views[u->nav.view].name, s->view))
		add_problem(&list, &n, "%s:%d: no view '%s' in this model (F2 picks one)", path, s->view_line, s->view);
	if (s && s->has_sort && s->sort && !sorted)
		add_problem(&list, &n, "%s:%d: no column '%s' to sort by in view %s", path, s->sort_line, s->sort,
			    u->views[u->nav.view].name);
	if (!list)
		return;
	/* As many as fit on the line, then how many more. */
	/* The screen may not be started yet: the terminal says its width. */
	struct winsize ws;
	int cols = COLS > 0 ? COLS : ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 80;
	int width = cols > 20 ? cols - 1 : 79;
	char *msg = NULL;
	int shown = 0;
	for (const char *p = list; *p; shown++) {
		size_t l = strcspn(p, "\n");
		char *more = shown + 1 < n ? xasprintf(" (and %d more)", n - shown - 1) : xstrdup("");
		char *next = xasprintf("%s%s%.*s", msg ? msg : "", msg ? "; " : "", (int)l, p);
		bool fits = (int)(strlen(next) + strlen(more)) <= width;
		free(more);
		if (msg && !fits) {
			free(next);
			break;
		}
		free(msg);
		msg = next;
		p += l + (p[l] == '\n');
	}
	if (shown < n) {
		/* The count always shows: a first problem too long for the line
		 * is cut before it, with "...". */
		char *more = xasprintf(" (and %d more)", n - shown);
		int room = width - (int)strlen(more);
		if ((int)strlen(msg) > room && room > 3) {
			msg[room - 3] = '\0';
			char *cut = xasprintf("%s...", msg);
			free(msg);
			msg = cut;
		}
		char *m2 = xasprintf("%s%s", msg, more);
		free(more);
		free(msg);
		msg = m2;
	}
	ui_set_message(u, msg);
	free(msg);
	free(list);
}

/* -g GROUP in the dashboard: a view of the group's metrics (as batch
 * mode shows them), after the model's own views. False if no metric of
 * the model belongs to it. */
bool ui_add_group_view(struct ui *u, const char *group)
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

