/* main.c: pmctop's entry point: options, model and topology selection,
 * the listings, then the batch loop or the live dashboard. */
#include "config.h"

#include <errno.h>
#include <time.h>
#include <math.h>
#include <signal.h>
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
#include "export.h"
#include "export_http.h"
#include "export_webconfig.h"
#include "privs.h"
#include "listing.h"
#include "perf_import.h"
#include "output.h"
#include "record.h"
#include "replay.h"
#include "sampler.h"
#include "settings.h"
#include "evdef_user.h"
#include "topo.h"
#include "util.h"
#include "../ui/ui.h"

#include "paths.h"
#include <limits.h>

/* The signal that asked batch mode to stop, or 0. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	stop_requested = sig;
}

/* Every message goes through the sanitiser: causes quote option values,
 * file names and definition text, none of which may reach the terminal
 * as escape sequences. */
static void say(const char *msg)
{
	char *safe = text_sanitize(msg ? msg : "?");
	fprintf(stderr, "pmctop: %s\n", safe);
	free(safe);
}

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
static const char *pick_events_dir(const struct options *o)
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

struct run {
	struct options opt;
	const char *events_dir;
	struct model *model;
	struct topo *topo;
	const struct pmu_backend_ops *ops;
	char cpu_name[128];
	bool *cpu_filter;
	int nmetrics; int *metrics;
	const char **fmts;          /* [nmetrics]: the view's format of each, or NULL */
	int nevents; int *events;
	int ntm; int *tm;           /* metrics sampled per task: a tasks view's columns */
	bool tasks_view;            /* -g names a tasks view: rows of processes in batch output */
	struct export_hub *hub;     /* --listen: where intervals are published, or NULL */
	struct web_config *web;     /* --web-config: TLS and users, or NULL */
	struct recorder *rec;       /* -w, or NULL */
	struct replay *rp;          /* -r: owns model and topo, or NULL */
	struct settings settings;   /* the dashboard's saved settings (pmctoprc) */
	char *settings_path;        /* where they are saved, or NULL */
	char *settings_warnings;    /* lines of the file that were skipped, or NULL */
	char *views_path;           /* the user's views file, or NULL (--no-config, batch) */
};

static int usage_error(const char *msg)
{
	say(msg);
	fputs("Try 'pmctop --help' for more information.\n", stderr);
	return 2;
}

/* -p and --cgroup on this machine name what exists: a pid that is not
 * running or a cgroup that is not there selected nothing, silently, and
 * the screen stayed empty. The simulator's processes are its own, so
 * --sim is not checked here. Returns 0, or -1 with *cause. */
static int check_task_targets(const struct options *o, char **cause)
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

static int runtime_error(const char *msg)
{
	say(msg);
	return 1;
}

/* Listings end like batch mode: a closed pipe (pmctop --list-events | head)
 * is a normal way to stop; any other write error is said and fails. err is
 * the first error a listing met, or 0. */
static int finish_stdout(int err)
{
	if (!err && fflush(stdout) != 0)
		err = errno;
	if (!err && ferror(stdout))
		err = EIO;
	if (!err || err == EPIPE)
		return 0;
	fprintf(stderr, "pmctop: writing output: %s\n", strerror(err));
	return 1;
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
 * detected from /proc/cpuinfo. Returns an exit status or -1 to go on. */
static int choose_machine(struct run *r)
{
	char *cause = NULL;
	char *name = NULL;
	int rc = -1;
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
		if (cpuid_read("/proc/cpuinfo", &id, &cause) == 0)
			snprintf(r->cpu_name, sizeof(r->cpu_name), "%s", id.model_name);
		free(cause);
		cause = NULL;
		if (r->opt.model) {
			name = xstrdup(r->opt.model);
		} else {
			char *note = NULL;
			name = perf_import_pick("/proc/cpuinfo", perf_root, models, nmodels, &note);
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
static int choose_metrics(struct run *r)
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
		int e = model_find_event(m, r->opt.events[i]);
		if (e < 0) {
			char *msg = xasprintf("no event '%s' in model %s (see --list-events)",
					      r->opt.events[i], m->name);
			int rc = usage_error(msg);
			free(msg);
			return rc;
		}
		add_event(r, e);
	}
	/* A service serves the portable series (docs/exporter.md): the events
	 * behind them are measured besides the view's, so that a fleet's
	 * dashboards have them on every model. */
	if (r->opt.daemon && !r->rp)
		for (int e = 0; e < m->nevents; e++)
			if (m->events[e].nportable)
				add_event(r, e);
	return -1;
}

static int run_listing(struct run *r)
{
	int err = 0;
	if (r->opt.list_events && listing_events(stdout, r->model, r->opt.list_pattern) < 0)
		err = errno;
	if (!err && r->opt.list_metrics && listing_metrics(stdout, r->model, r->opt.raw) < 0)
		err = errno;
	if (!err && r->opt.list_views && listing_views(stdout, r->model) < 0)
		err = errno;
	return finish_stdout(err);
}

/* Sleeps until the monotonic time t; false when a signal asked to stop. */
static bool pace_until(uint64_t t)
{
	while (!stop_requested && now_ns() < t)
		wait_until_ns(t);
	return !stop_requested;
}

/* Where batch output goes: -o's file, or standard output; NULL (said)
 * when the file cannot be written. */
static FILE *open_output(struct run *r)
{
	char *cause = NULL;
	FILE *f = stdout;
	if (r->opt.output_path && !(f = output_open(r->opt.output_path, false, &cause)) && errno == ENXIO) {
		/* A FIFO with no reader yet: say so rather than hang without a
		 * word; Ctrl-C interrupts the wait (no SA_RESTART in batch). */
		free(cause);
		cause = xasprintf("waiting for a process to read the FIFO %s (Ctrl-C stops)", r->opt.output_path);
		say(cause);
		free(cause);
		cause = NULL;
		f = output_open(r->opt.output_path, true, &cause);
	}
	if (!f && !stop_requested)
		runtime_error(cause);
	free(cause);
	return f;
}

/* The measured machine's name: the recording's on a replay ("" when it
 * has none), else this one's (sanitised: it is printed and written into outputs). */
static void run_host(const struct run *r, char *buf, size_t n)
{
	buf[0] = '\0';
	if (r->rp)
		snprintf(buf, n, "%s", replay_info(r->rp)->host ? replay_info(r->rp)->host : "");
	else
		gethostname(buf, n - 1);
	buf[n - 1] = '\0';
	text_sanitize_inplace(buf);
}

/* The batch writer of the chosen format, columns and events. */
static struct output *new_output(struct run *r, FILE *f)
{
	char host[256];
	run_host(r, host, sizeof(host));
	struct output_opts oo = {
		.host = host,
		.format = r->opt.format,
		.ncols = r->nmetrics, .cols = r->metrics, .fmts = r->fmts,
		.nevcols = r->nevents, .evcols = r->events,
		.show_ccx = r->topo->nccx > 1,
		.tasks = r->tasks_view, .top = r->opt.top,
	};
	return output_new(f, &oo);
}

/* Says each line of notice that before (the notice said last) did not
 * have. */
static void say_new_lines(const char *notice, const char *before)
{
	for (const char *l = notice; l && *l;) {
		size_t len = strcspn(l, "\n");
		bool known = false;
		for (const char *b = before; b && *b && !known;) {
			size_t blen = strcspn(b, "\n");
			known = blen == len && !memcmp(b, l, len);
			b += blen + (b[blen] == '\n');
		}
		if (!known) {
			char *line = xstrndup(l, len);
			say(line);
			free(line);
		}
		l += len + (l[len] == '\n');
	}
}

/* f: the output, opened before privileges were given up. */
static int run_batch(struct run *r, struct sampler *s, FILE *f)
{
	/* --daemon: the intervals go to the exporter only. */
	struct output *out = r->opt.daemon ? NULL : new_output(r, f);
	int rc = 0;
	char *told = NULL;        /* the notice of the interval before */
	uint64_t t0 = now_ns();
	for (long n = 0; !stop_requested && (r->opt.iterations == 0 || n < r->opt.iterations); n++) {
		char *cause = NULL;
		struct snapshot *snap = sampler_step(s, &cause);
		/* The simulated PMU does not take real time to count; pace it so
		 * that -d means seconds there too, as it does on the screen
		 * (unless its ff=1 option asks for fast-forward): an
		 * interval is written when it has ended, the first one too. A
		 * signal while waiting still writes it (nothing is lost). */
		bool paced = true;
		if (snap && r->ops->simulated && !sim_fast_forward(sampler_backend(s)))
			paced = pace_until(t0 + (uint64_t)llround((double)(n + 1) * r->opt.delay_s * 1e9));
		if (!snap) {
			if (stop_requested) {
				free(cause);
				break;
			}
			say(cause ? cause : "sampling failed");
			free(cause);
			rc = 1;
			break;
		}
		/* Each line of the notice is said when it first appears, before
		 * the figures it concerns, one "pmctop:" per line: what the plan
		 * has to say once, and a failure (a plan that could not be
		 * opened, reads that failed) in the interval it happened. */
		say_new_lines(snap->notice, told);
		free(told);
		told = snap->notice ? xstrdup(snap->notice) : NULL;
		int wr = out ? output_write(out, snap) : 0;
		/* A recording that cannot be written stops the run: what it
		 * misses could not be recovered later. */
		if (recorder_error(r->rec)) {
			snapshot_free(snap);
			rc = 1;
			break;
		}
		if (r->hub)
			export_hub_publish(r->hub, snap);
		else
			snapshot_free(snap);
		if (wr >= 0 && !paced)
			break;
		if (wr < 0) {
			/* A closed pipe (pmctop -b | head) is a normal way to stop. */
			if (wr != -EPIPE)
				fprintf(stderr, "pmctop: writing output: %s\n", strerror(-wr));
			rc = wr == -EPIPE ? 0 : 1;
			break;
		}
	}
	free(told);
	if (out)
		output_free(out);
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "pmctop: closing %s: %s\n", r->opt.output_path, strerror(errno));
		rc = 1;
	}
	return rc;
}

/* The dashboard's saved settings: read unless --no-config, and never in
 * batch or daemon mode, whose output must not depend on a file the user
 * saved for the screen. The command line wins: -d over the delay, -g over
 * the view, --no-color or NO_COLOR over the colours. */
static void load_settings(struct run *r)
{
	if (!uses_config(r))
		return;
	r->settings_path = settings_path();
	settings_load(r->settings_path, &r->settings, &r->settings_warnings);
	if (r->settings.has_delay && !r->opt.delay_set)
		r->opt.delay_s = r->settings.delay_s;
}

/* Least privilege (privs.c, docs/privileges.md): called once everything
 * that needs root is open and before any thread starts. counters: keep
 * the capability that opens counters, for CPUs that come back online.
 * Returns 0, or the exit status. */
static int give_up_privileges(struct run *r, bool counters)
{
	char *cause = NULL;
	if (privs_drop(r->opt.user, counters, &cause) < 0) {
		int rc = runtime_error(cause);
		free(cause);
		return rc;
	}
	privs_test_hook();
	return 0;
}

static int run_live(struct run *r, struct sampler *s)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return usage_error("the dashboard needs a terminal; use -b for batch output");
	char host[256];
	run_host(r, host, sizeof(host));
	const char *nc = getenv("NO_COLOR");
	struct ui_config cfg = {
		.sampler = s,
		.model = r->model,
		.topo = r->topo,
		.interval_s = r->opt.delay_s,
		.rotate_ms = r->opt.rotate_ms,
		.no_color = r->opt.no_color || (nc && *nc),
		.simulated = r->ops && r->ops->simulated,
		.host = host,
		.cpu_name = r->cpu_name,
		.view = r->opt.group,
		.nextra = r->nevents, .extra_events = r->events,
		.cpu_filter = r->cpu_filter,
		.iterations = r->opt.iterations,
		.replay = r->rp,
		.recorder = r->rec,
		.settings = &r->settings,
		.settings_path = r->settings_path,
		.settings_warnings = r->settings_warnings,
		.views_path = r->views_path,
		.view_given = r->opt.group != NULL,
		.colors_given = r->opt.no_color || (nc && *nc),
	};
	if (r->rp) {
		const struct replay_info *ri = replay_info(r->rp);
		cfg.simulated = ri->simulated;
		cfg.rotate_ms = ri->rotate_ms;
		if (!cfg.view)
			cfg.view = ri->view;
	}
	char *cause = NULL;
	if (ui_run(&cfg, &cause) < 0) {
		say(cause ? cause : "the dashboard failed");
		free(cause);
		return 1;
	}
	return ui_stop_signo() ? 128 + ui_stop_signo() : 0;
}

/* Says once which of the metrics asked for the recording cannot give. */
static void tell_missing(struct run *r, const struct snapshot *snap)
{
	for (int i = 0; i < r->nmetrics; i++) {
		char why[160];
		if (snap->metric_planned[r->metrics[i]] ||
		    !replay_why_missing(r->rp, r->metrics[i], why, sizeof(why)))
			continue;
		char *msg = xasprintf("%s: %s shows '-' from the first interval on: %s", r->opt.replay_path,
				      r->model->metrics[r->metrics[i]].name, why);
		say(msg);
		free(msg);
	}
}

/* -r with -b: every interval of the recording derived again and written
 * as batch mode writes it, as fast as it can be read. A damaged interval
 * is said and skipped; nothing else stops the replay but -n, a signal or
 * a write error. */
static int run_replay_batch(struct run *r)
{
	char *cause = NULL;
	FILE *f = open_output(r);
	if (!f)
		return 1;
	/* A replay opens no counters: nothing of root is needed from here. */
	int rc = give_up_privileges(r, false);
	if (rc) {
		if (f != stdout)
			fclose(f);
		return rc;
	}
	struct output *out = new_output(r, f);
	int n = replay_count(r->rp), good = 0;
	if (r->opt.iterations > 0 && r->opt.iterations < n)
		n = (int)r->opt.iterations;
	for (int i = 0; i < n && !stop_requested; i++) {
		struct snapshot *snap = replay_snapshot(r->rp, i, &cause);
		if (!snap) {
			char *msg = xasprintf("%s: %s; skipped", r->opt.replay_path, cause);
			say(msg);
			free(msg);
			free(cause);
			cause = NULL;
			continue;
		}
		if (good++ == 0)
			tell_missing(r, snap);
		int wr = output_write(out, snap);
		snapshot_free(snap);
		if (wr < 0) {
			if (wr != -EPIPE)
				fprintf(stderr, "pmctop: writing output: %s\n", strerror(-wr));
			rc = wr == -EPIPE ? 0 : 1;
			break;
		}
	}
	output_free(out);
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "pmctop: closing %s: %s\n", r->opt.output_path, strerror(errno));
		rc = 1;
	}
	if (good == 0 && n > 0 && !stop_requested) {
		fprintf(stderr, "pmctop: %s: no interval could be read\n", r->opt.replay_path);
		rc = 1;
	}
	return rc;
}

/* -C against the machine's (or the recording's) CPUs: -1 when it is
 * absent or good (r->cpu_filter set), else the exit status. */
static int parse_cpu_filter(struct run *r)
{
	char *cause = NULL;
	if (!r->opt.cpu_list)
		return -1;
	r->cpu_filter = xcalloc((size_t)r->topo->max_cpu + 1, sizeof(bool));
	if (cpulist_parse(r->opt.cpu_list, r->cpu_filter, r->topo->max_cpu, &cause) < 0) {
		char *msg = xasprintf("-C: %s", cause);
		int rc = usage_error(msg);
		free(msg);
		free(cause);
		return rc;
	}
	return -1;
}

/* -r FILE: the recording names the model and the topology; -g, -e and -C
 * choose what is derived from it, as they choose what is measured live. */
static int run_replay(struct run *r)
{
	char *cause = NULL;
	int rc;
	r->rp = replay_open(r->opt.replay_path, r->events_dir, &cause);
	if (!r->rp) {
		rc = runtime_error(cause);
		free(cause);
		return rc;
	}
	const struct replay_info *ri = replay_info(r->rp);
	if (replay_note(r->rp)) {
		char *msg = xasprintf("%s: %s", r->opt.replay_path, replay_note(r->rp));
		say(msg);
		free(msg);
	}
	r->model = (struct model *)ri->model;
	r->topo = (struct topo *)ri->topo;
	snprintf(r->cpu_name, sizeof(r->cpu_name), "%s", ri->cpu_name ? ri->cpu_name : "");
	if (r->opt.list_events || r->opt.list_metrics || r->opt.list_views)
		return run_listing(r);
	if ((rc = parse_cpu_filter(r)) >= 0)
		return rc;
	if (r->cpu_filter)
		replay_set_cpu_filter(r->rp, r->cpu_filter);
	if ((rc = choose_metrics(r)) >= 0)
		return rc;
	if (r->opt.group || r->opt.nevents)
		replay_request(r->rp, r->nmetrics, r->metrics, r->nevents, r->events);
	if (replay_count(r->rp) == 0) {
		char *msg = xasprintf("%s: the recording holds no interval", r->opt.replay_path);
		rc = runtime_error(msg);
		free(msg);
		return rc;
	}
	if (r->opt.batch)
		return run_replay_batch(r);
	return (rc = give_up_privileges(r, false)) ? rc : run_live(r, NULL);
}

static void record_interval(void *rec, const struct derive_input *in, const struct snapshot *snap)
{
	recorder_add(rec, in, snap);
}

/* The sampler thread's hook in dashboard mode: the ring's consumer owns
 * the snapshot, so the exporter takes a copy. */
static void publish_copy(void *hub, const struct snapshot *snap)
{
	export_hub_publish_copy(hub, snap);
}

/* The sampler for the run's machine, metrics and options; NULL with
 * *cause. */
static struct sampler *new_sampler(struct run *r, char **cause)
{
	struct sampler_config sc = {
		.model = r->model,
		.topo = r->topo,
		.ops = r->ops,
		.backend_arg = r->opt.sim,
		.interval_s = r->opt.delay_s,
		.rotate_ms = r->opt.rotate_ms,
		.cpu_filter = r->cpu_filter,
		.nmetrics = r->nmetrics, .metrics = r->metrics,
		.nevents = r->nevents, .events = r->events,
		.ntask_metrics = r->ntm, .task_metrics = r->tm, .task_freq = r->opt.task_hz,
		.ntask_pids = r->opt.npids, .task_pids = r->opt.pids, .task_cgroup = r->opt.cgroup,
		/* Batch: Ctrl-C ends the interval in progress, which is still
		 * written, so a recording loses nothing and stops at once. */
		.interrupt = r->opt.batch || r->opt.daemon ? &stop_requested : NULL,
		.on_publish = r->hub ? publish_copy : NULL,
		.publish_arg = r->hub,
	};
	return sampler_new(&sc, cause);
}

/* -w: the recording, opened before privileges are given up; every
 * interval the sampler makes goes to it. 0, or the exit status. */
static int open_recording(struct run *r, struct sampler *s)
{
	char *cause = NULL;
	char host[256];
	run_host(r, host, sizeof(host));
	struct record_info ri = {
		.model = r->model, .topo = r->topo, .simulated = r->ops->simulated,
		.sim_spec = r->opt.sim, .host = host, .cpu_name = r->cpu_name,
		.interval_s = r->opt.delay_s, .rotate_ms = r->opt.rotate_ms,
		.cpu_filter = r->cpu_filter, .view = r->opt.group,
		.ncols = r->nmetrics, .cols = r->metrics, .fmts = r->fmts,
		.nevcols = r->nevents, .evcols = r->events,
	};
	if (!(r->rec = recorder_open(r->opt.record_path, &ri, &cause))) {
		int rc = runtime_error(cause);
		free(cause);
		return rc;
	}
	recorder_set_limit(r->rec, r->opt.iterations);
	sampler_record(s, record_interval, r->rec);
	return 0;
}

/* Closes the recording, saying how many intervals it holds (or what was
 * lost); rc: the run's exit status so far, returned or made a failure. */
static int close_recording(struct run *r, int rc)
{
	char *cause = NULL;
	long n = recorder_count(r->rec);
	if (recorder_close(r->rec, &cause) < 0) {
		say(cause);
		free(cause);
		rc = rc ? rc : 1;
	} else if (!r->opt.batch) {
		fprintf(stderr, "pmctop: %ld intervals recorded to %s\n", n, r->opt.record_path);
	}
	r->rec = NULL;
	return rc;
}

static int run(struct run *r)
{
	char *cause = NULL;
	/* Before anything is created: -w would make the file that -o then
	 * refuses as not pmctop's output, leaving a recording of nothing. */
	if (r->opt.record_path && r->opt.output_path && path_same_file(r->opt.record_path, r->opt.output_path)) {
		char *msg = xasprintf("-w and -o both name %s: a recording and the figures go to two files",
				      r->opt.output_path);
		int rc = usage_error(msg);
		free(msg);
		return rc;
	}
	r->events_dir = pick_events_dir(&r->opt);
	perf_import_set_root(r->opt.perf_events);
	if (r->opt.list_models) {
		char *perf_root = perf_import_root(r->opt.perf_events);
		int lrc = listing_models(stdout, r->events_dir, &cause);
		if (lrc >= 0)
			lrc = perf_import_listing(stdout, perf_root, r->events_dir, &cause);
		free(perf_root);
		if (lrc < 0) {
			if (!cause)
				return finish_stdout(errno);
			int rc = runtime_error(cause);
			free(cause);
			return rc;
		}
		return finish_stdout(0);
	}
	if (r->opt.replay_path)
		return run_replay(r);
	int rc = choose_machine(r);
	if (rc >= 0)
		return rc;
	if (r->opt.list_events || r->opt.list_metrics || r->opt.list_views)
		return run_listing(r);
	if ((rc = parse_cpu_filter(r)) >= 0)
		return rc;
	if ((rc = choose_metrics(r)) >= 0)
		return rc;

	/* --listen: the exporter's hub exists before the sampler, whose thread
	 * (dashboard mode) publishes a copy of each interval into it. */
	if (r->opt.listen && !r->opt.show_schedule) {
		r->hub = export_hub_new(r->model, (enum snap_scope)r->opt.export_scope);
		export_hub_set_tasks(r->hub, r->opt.top, r->opt.export_pids);
	}
	struct sampler *s = new_sampler(r, &cause);
	if (!s) {
		rc = runtime_error(cause);
		free(cause);
		return rc;
	}
	if (r->opt.record_path && !r->opt.show_schedule && (rc = open_recording(r, s)) != 0) {
		sampler_free(s);
		return rc;
	}
	/* Everything that may need root is opened before privileges are given
	 * up: the counters (sampler_new), the recording, the listening socket
	 * and -o's file; the threads (exporter, sampler) start after, since
	 * capabilities are each thread's own. */
	int lfd = -1;
	if (r->hub && r->opt.web_config && !(r->web = web_config_load(r->opt.web_config, &cause))) {
		rc = runtime_error(cause);
		free(cause);
		sampler_free(s);
		return rc;
	}
	if (r->hub && (lfd = export_listen(r->opt.listen, &cause)) < 0) {
		rc = runtime_error(cause);
		free(cause);
		sampler_free(s);
		return rc;
	}
	FILE *out = NULL;
	bool batch = !r->opt.show_schedule && (r->opt.batch || r->opt.daemon);
	if (batch && !(out = open_output(r))) {
		if (lfd >= 0)
			close(lfd);
		sampler_free(s);
		return 1;
	}
	struct export_server *srv = NULL;
	if (!r->opt.show_schedule && (rc = give_up_privileges(r, !r->ops->simulated)) != 0) {
		if (lfd >= 0)
			close(lfd);
	} else if (lfd >= 0 && export_hub_render_ahead(r->hub) < 0) {
		/* A thread of its own, started after the drop like the server's. */
		close(lfd);
		rc = runtime_error("cannot start the exporter's rendering thread");
	} else if (lfd >= 0 && !(srv = export_server_start(r->hub, lfd, r->opt.listen, r->web, &cause))) {
		rc = runtime_error(cause);
		free(cause);
	} else if (r->opt.show_schedule) {
		sched_print(sampler_plan(s), r->model, stdout);
		rc = 0;
	} else if (batch) {
		rc = run_batch(r, s, out);
		out = NULL;
	} else {
		rc = run_live(r, s);
	}
	if (out && out != stdout)
		fclose(out);
	export_server_stop(srv);
	sampler_free(s);
	if (r->rec)
		rc = close_recording(r, rc);
	return rc;
}

int main(int argc, char **argv)
{
	struct run r;
	memset(&r, 0, sizeof(r));
	options_init(&r.opt);
	char *cause = NULL;
	int rc;
	if (cli_parse(argc, argv, &r.opt, &cause) < 0 ||
	    (!r.opt.help && !r.opt.version && !r.opt.sim && !r.opt.replay_path && check_task_targets(&r.opt, &cause) < 0)) {
		rc = usage_error(cause);
		free(cause);
		options_done(&r.opt);
		return rc;
	}
	if (r.opt.help) {
		cli_usage(stdout);
		rc = 0;
	} else if (r.opt.version) {
		printf("pmctop %s\n", PACKAGE_VERSION);
		rc = 0;
	} else {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop_signal;
		if (r.opt.batch || r.opt.daemon) {
			sigaction(SIGINT, &sa, NULL);
			sigaction(SIGTERM, &sa, NULL);
			sigaction(SIGHUP, &sa, NULL);
		}
		signal(SIGPIPE, SIG_IGN);
		load_settings(&r);
		rc = run(&r);
		/* One rule in every mode (pmctop(1), EXIT STATUS): stopped by a
		 * signal, pmctop finishes cleanly and exits 128 + its number,
		 * as a shell reports a command that the signal killed. */
		if (stop_requested)
			rc = 128 + stop_requested;
	}
	free(r.cpu_filter);
	free(r.metrics);
	free(r.tm);
	free(r.fmts);
	free(r.events);
	export_hub_free(r.hub);
	web_config_free(r.web);
	if (r.rp) {
		replay_free(r.rp);   /* with its model and topology */
	} else {
		if (r.model)
			model_free(r.model);
		if (r.topo)
			topo_free(r.topo);
	}
	settings_free(&r.settings);
	free(r.settings_path);
	free(r.settings_warnings);
	free(r.views_path);
	options_done(&r.opt);
	return rc;
}
