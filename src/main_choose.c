/* main_choose.c: what pmctop decides before it runs: where the
 * definitions are, the model and topology (simulated, forced or detected),
 * the metrics and events to measure (-g, -e, a view), the CPUs (-C), the
 * processes (-p, --cgroup) and the saved settings. Split from main.c so
 * that the entry point reads as the order of a run, and these choices as
 * the rules that make each one. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <dirent.h>

#include "backend.h"
#include "cli.h"
#include "cpuid.h"
#include "evdef.h"
#include "perf_import.h"
#include "replay.h"
#include "settings.h"
#include "evdef_user.h"
#include "topo.h"
#include "util.h"
#include "main_impl.h"

#include "paths.h"

static bool is_dir(const char *p)
{
	return p && access(p, R_OK | X_OK) == 0;
}

static bool is_dir_rel(const char *exe_dir)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/%s", exe_dir, PMCTOP_EVENTS_REL);
	return is_dir(p);
}

/* The definitions beside the program, found from its own path (no
 * absolute path is built in: docs/packaging.md): PMCTOP_EVENTS_REL from
 * its directory, which an installed pmctop has wherever its prefix was
 * moved, else events/ in its directory, which a build tree has. The first
 * when neither is there, so that the error names where they belong. */
static const char *events_beside_program(void)
{
	static char found[PATH_MAX + 64];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return "/usr/share/pmctop/events";
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(found, sizeof(found), "%s/events", exe);
	if (!is_dir(found) || is_dir_rel(exe))
		snprintf(found, sizeof(found), "%s/%s", exe, PMCTOP_EVENTS_REL);
	return found;
}

/* --events-dir, PMCTOP_EVENTS_DIR (not for root), then beside the program. */
const char *pick_events_dir(const struct options *o)
{
	if (o->events_dir)
		return o->events_dir;
	const char *env = getenv("PMCTOP_EVENTS_DIR");
	/* Root (or a setuid pmctop) does not take its definitions, which
	 * decide what is opened and printed, from an environment that sudo
	 * or a caller may have passed on; --events-dir says it outright. */
	if (env && *env && (getuid() == 0 || geteuid() != getuid() || getegid() != getgid())) {
		say("PMCTOP_EVENTS_DIR is ignored when running as root; use --events-dir");
		env = NULL;
	}
	if (env && *env)
		return env;
	return events_beside_program();
}

/* -p and --cgroup on this machine name what exists: a pid that is not
 * running or a cgroup that is not there selected nothing, silently, and
 * the screen stayed empty. The simulator's processes are its own, so
 * --sim is not checked here. Returns 0, or -1 with *cause. */
int check_task_targets(const struct options *o, char **cause)
{
	char path[PATH_MAX];
	struct stat st;
	for (int i = 0; i < o->npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d", o->pids[i]);
		if (stat(path, &st) < 0)
			return set_cause(cause, "-p: no process %d is running", o->pids[i]);
	}
	if (!o->cgroup)
		return 0;
	/* v2 (unified) at the root, or any v1 hierarchy mounted below it. */
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s", o->cgroup);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	DIR *d = opendir("/sys/fs/cgroup");
	bool found = false;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s%s", e->d_name, o->cgroup);
		found = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	}
	if (d)
		closedir(d);
	if (found)
		return 0;
	char *clean = text_sanitize(o->cgroup);
	set_cause(cause, "--cgroup: no cgroup %s under /sys/fs/cgroup (see /proc/PID/cgroup for a process's)", clean);
	free(clean);
	return -1;
}

/* Whether the user's saved settings apply: the dashboard and the
 * listings, unless --no-config; never batch or daemon output. */
static bool uses_config(const struct run *r)
{
	return !r->opt.no_config && !r->opt.batch && !r->opt.daemon;
}

/* The user's own views (evdef_user.h), after the model's, in every mode
 * unless --no-config: they are definitions, named with -g or a key, and
 * never change what is shown without being named (the model's views come
 * first). A bad stanza is skipped: said on the dashboard's first screen
 * with the settings' warnings, else on stderr. */
static void load_user_views(struct run *r)
{
	char *path = user_views_path(r->model);
	char *w = NULL;
	model_add_user_views(r->model, path, &w);
	free(r->views_path);
	r->views_path = path;
	if (w && (r->opt.batch || r->opt.daemon || r->opt.list_events || r->opt.list_metrics || r->opt.list_views)) {
		for (char *save = NULL, *l = strtok_r(w, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *msg = xasprintf("warning: %s", l);
			say(msg);
			free(msg);
		}
	} else if (w) {
		text_add_line(&r->settings_warnings, w);
	}
	free(w);
}

/* An imported model says what it lacks (perf_import_note): with the
 * settings' warnings on the dashboard's first screen, on stderr in batch. */
static void note_imported(struct run *r, const char *skipped)
{
	char *msg = perf_import_note(r->model, r->opt.sim != NULL, skipped);
	if (r->opt.batch || r->opt.daemon) {
		char *line = xasprintf("note: %s", msg);
		say(line);
		free(line);
	} else {
		text_add_line(&r->settings_warnings, msg);
	}
	free(msg);
}

/* Chooses the model and topology: simulated, forced with --model, or
 * detected from /proc/cpuinfo. Returns 0 to go on, else the exit status. */
int choose_machine(struct run *r)
{
	char *cause = NULL;
	char *name = NULL;
	int rc = 0;
	/* The models' names, aliases and default shapes are data: read them
	 * first, so that --sim and --model can take either name. */
	struct model_info *models = NULL;
	int nmodels = model_list(r->events_dir, &models, &cause);
	if (nmodels < 0) {
		rc = runtime_error(cause);
		goto out;
	}
	/* Linux perf's event files add a model for every CPU they know. */
	char *perf_root = perf_import_root(r->opt.perf_events);
	if (perf_import_join(perf_root, r->events_dir, &models, &nmodels, &cause) < 0) {
		/* Files the user named must be right; a broken copy found on
		 * the search path only costs the imported models. */
		if (r->opt.perf_events) {
			rc = runtime_error(cause);
			free(perf_root);
			goto out;
		}
		char *msg = xasprintf("warning: %s (imported models left out)", cause);
		say(msg);
		free(msg);
		free(cause);
		cause = NULL;
		free(perf_root);
		perf_root = NULL;
	}
	if (r->opt.sim) {
		int shape[4];
		if (sim_parse_spec(r->opt.sim, models, nmodels, &name, shape, &cause) < 0) {
			rc = usage_error(cause);
			goto out;
		}
		r->topo = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
		r->ops = &backend_sim;
		snprintf(r->cpu_name, sizeof(r->cpu_name), "simulated %dx%dx%dx%d", shape[0],
			 shape[1], shape[2], shape[3]);
	} else {
		struct cpu_ident id;
		memset(&id, 0, sizeof(id));
		bool have_id = cpuid_read("/proc/cpuinfo", &id, &cause) == 0;
		if (have_id)
			snprintf(r->cpu_name, sizeof(r->cpu_name), "%s", id.model_name);
		free(cause);
		cause = NULL;
		if (r->opt.model) {
			name = xstrdup(r->opt.model);
		} else {
			char *note = NULL;
			name = perf_import_pick_id("/proc/cpuinfo", have_id ? &id : NULL, perf_root, models, nmodels,
						   &note);
			if (note)
				fprintf(stderr, "pmctop: %s\n", note);
			free(note);
		}
		r->topo = topo_load("/sys", &cause);
		if (!r->topo) {
			rc = runtime_error(cause);
			goto out;
		}
		r->ops = &backend_perf;
	}
	/* A name the user typed that names no model is bad usage (2); a model
	 * whose files do not load is a runtime failure (1) with file:line:col. */
	const struct model_info *mi = model_info_find(models, nmodels, name);
	if (!mi) {
		char *msg = xasprintf("no model '%s' (pmctop --list-models shows them)", name);
		rc = r->opt.sim || r->opt.model ? usage_error(msg) : runtime_error(msg);
		free(msg);
		free(perf_root);
		goto out;
	}
	char *skipped = NULL;
	r->model = perf_import_load_info(r->events_dir, perf_root, mi, r->topo, &skipped, &cause);
	free(perf_root);
	if (r->model && r->model->imported)
		note_imported(r, skipped);
	free(skipped);
	if (!r->model)
		rc = runtime_error(cause);
	else if (r->opt.sim && sim_check_args(r->model, r->opt.sim, &cause) < 0)
		rc = usage_error(cause);
	else if (!r->opt.no_config)
		load_user_views(r);
out:
	if (nmodels > 0)
		model_list_free(models, nmodels);
	free(name);
	free(cause);
	return rc;
}

static void add_metric(struct run *r, int m, const char *fmt)
{
	for (int i = 0; i < r->nmetrics; i++)
		if (r->metrics[i] == m)
			return;
	r->metrics = xrealloc(r->metrics, sizeof(int) * (size_t)(r->nmetrics + 1));
	r->fmts = xrealloc(r->fmts, sizeof(char *) * (size_t)(r->nmetrics + 1));
	r->fmts[r->nmetrics] = fmt;
	r->metrics[r->nmetrics++] = m;
}

/* An extra event (-e), each once. */
static void add_event(struct run *r, int e)
{
	for (int k = 0; k < r->nevents; k++)
		if (r->events[k] == e)
			return;
	r->events = xrealloc(r->events, sizeof(int) * (size_t)(r->nevents + 1));
	r->events[r->nevents++] = e;
}

static void add_view_metrics(struct run *r, const struct view_def *v)
{
	/* Its pins, for the scheduler: counted only where measured, as a
	 * column or a part of the bar. */
	r->pin = xrealloc(r->pin, sizeof(int) * (size_t)(r->npin + v->npin + 1));
	for (int i = 0; i < v->npin; i++)
		r->pin[r->npin++] = v->pin[i];
	for (int i = 0; i < v->ncols; i++)
		add_metric(r, v->cols[i].metric, v->cols[i].fmt);
	for (int i = 0; i < v->nbar; i++)
		add_metric(r, v->bar[i], NULL);
}

/* One word of -g: a view (its columns), a metric group, or a metric. */
static bool add_named(struct run *r, const char *name)
{
	const struct model *m = r->model;
	int v = model_find_view(m, name);
	if (v >= 0) {
		add_view_metrics(r, &m->views[v]);
		if (m->views[v].tasks) {
			r->tasks_view = true;
			for (int i = 0; i < m->views[v].ncols; i++) {
				r->tm = xrealloc(r->tm, sizeof(int) * (size_t)(r->ntm + 1));
				r->tm[r->ntm++] = m->views[v].cols[i].metric;
			}
		}
		return true;
	}
	bool found = false;
	for (int i = 0; i < m->nmetrics; i++)
		if (metric_in_group(&m->metrics[i], name)) {
			add_metric(r, i, NULL);
			found = true;
		}
	int mi = found ? -1 : model_find_metric(m, name);
	if (mi >= 0)
		add_metric(r, mi, NULL);
	return found || mi >= 0;
}

/* The metrics to measure: those -g names (views, metric groups or
 * metrics, separated by commas), else the model's "batch" view in batch
 * and daemon mode, else its first view; in a replay, what the recording
 * showed. */
int choose_metrics(struct run *r)
{
	const struct model *m = r->model;
	bool select = r->opt.npids > 0 || r->opt.cgroup;
	/* -p and --cgroup pick processes: the model's tasks view unless -g
	 * names one. */
	for (int v = 0; select && !r->opt.group && v < m->nviews; v++)
		if (m->views[v].tasks)
			r->opt.group = xstrdup(m->views[v].name);
	if (r->opt.group) {
		char *list = xstrdup(r->opt.group);
		char *bad = NULL;
		for (char *save = NULL, *w = strtok_r(list, ",", &save); w && !bad; w = strtok_r(NULL, ",", &save))
			if (!add_named(r, w))
				bad = w;
		if (bad || r->nmetrics == 0) {
			char *clean = text_sanitize(bad ? bad : r->opt.group);
			char *msg = xasprintf("no view, metric group or metric '%s' in model %s (see --list-views, --list-metrics)",
					      clean, m->name);
			free(clean);
			free(list);
			int rc = usage_error(msg);
			free(msg);
			return rc;
		}
		free(list);
	} else if (r->rp) {
		/* A replay shows what the recording's outputs showed. */
		const struct replay_info *ri = replay_info(r->rp);
		for (int i = 0; i < ri->ncols; i++)
			add_metric(r, ri->cols[i], ri->fmts[i]);
		for (int i = 0; i < ri->nevcols; i++) {
			r->events = xrealloc(r->events, sizeof(int) * (size_t)(r->nevents + 1));
			r->events[r->nevents++] = ri->evcols[i];
		}
	} else if (m->nviews > 0) {
		int v = r->opt.batch || r->opt.daemon ? model_find_view(m, "batch") : -1;
		add_view_metrics(r, &m->views[v >= 0 ? v : 0]);
	}
	if (select && !r->tasks_view) {
		char *msg = xasprintf("-p and --cgroup choose processes: they go with a tasks view (-g tasks)%s",
				      r->opt.group ? "" : ", which this model lacks");
		int rc = usage_error(msg);
		free(msg);
		return rc;
	}
	for (int i = 0; i < r->opt.nevents; i++) {
		/* EVENT:MODS (perf's :u, :k, ...) makes the event's variant. */
		char *why = NULL;
		int e = model_event_variant(r->model, r->opt.events[i], &why);
		if (e < 0) {
			char *clean = text_sanitize(e == -2 ? why : r->opt.events[i]);
			char *msg = e == -2 ? xasprintf("-e: %s", clean)
					    : xasprintf("no event '%s' in model %s (see --list-events)", clean, m->name);
			free(clean);
			free(why);
			int rc = usage_error(msg);
			free(msg);
			return rc;
		}
		free(why);
		add_event(r, e);
	}
	/* A service serves the portable series (docs/exporter.md): the events
	 * behind them are measured besides the view's, so that a fleet's
	 * dashboards have them on every model. */
	if (r->opt.daemon && !r->rp)
		for (int e = 0; e < m->nevents; e++)
			if (m->events[e].nportable)
				add_event(r, e);
	return 0;
}

/* The dashboard's saved settings: read unless --no-config, and never in
 * batch or daemon mode, whose output must not depend on a file the user
 * saved for the screen. The command line wins: -d over the delay, -g over
 * the view, --no-color or NO_COLOR over the colours. */
void load_settings(struct run *r)
{
	if (!uses_config(r))
		return;
	/* A fleet's settings (its view, sort, columns) are its own file:
	 * saved from the fleet's screen, they would otherwise replace the
	 * host dashboard's. */
	r->settings_path = r->opt.fleet ? config_file_path("fleetrc") : settings_path();
	settings_load(r->settings_path, &r->settings, &r->settings_warnings);
	if (r->settings.has_interval && !r->opt.interval_set)
		r->opt.interval_s = r->settings.interval_s;
}

/* -C against the machine's (or the recording's) CPUs: 0 when it is
 * absent or good (r->cpu_filter set), else the exit status. */
int parse_cpu_filter(struct run *r)
{
	char *cause = NULL;
	if (!r->opt.cpu_list)
		return 0;
	r->cpu_filter = xcalloc((size_t)r->topo->max_cpu + 1, sizeof(bool));
	if (cpulist_parse(r->opt.cpu_list, r->cpu_filter, r->topo->max_cpu, &cause) < 0) {
		char *msg = xasprintf("-C: %s", cause);
		int rc = usage_error(msg);
		free(msg);
		free(cause);
		return rc;
	}
	return 0;
}
