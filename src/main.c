/* main.c: pmctop's entry point: options, then the listings, a replay, the
 * batch loop or the live dashboard, with the privileges, recording and
 * exporter that a run opens around them. What is chosen before a run
 * (model, topology, metrics) is in main_choose.c, the batch writers in
 * main_batch.c; main_impl.h is what the three share. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "curl_dl.h"
#include "evdef.h"
#include "export.h"
#include "export_http.h"
#include "export_webconfig.h"
#include "fleet.h"
#include "privs.h"
#include "listing.h"
#include "perf_import.h"
#include "record.h"
#include "replay.h"
#include "sampler.h"
#include "sanitizers.h"
#include "settings.h"
#include "source.h"
#include "topo.h"
#include "util.h"
#include "../ui/ui.h"
#include "main_impl.h"

static void on_reload_signal(int sig)
{
	(void)sig;
	int e = errno;
	export_server_reload();
	errno = e;
}

static void on_stop_signal(int sig)
{
	stop_requested = sig;
}

/* Listings end like batch mode: a closed pipe (pmctop --list-events | head)
 * is a normal way to stop; any other write error is said and fails. err is
 * the first error a listing met, or 0. */
int finish_stdout(int err)
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

/* The measured machine's name: the recording's on a replay ("" when it
 * has none), else this one's (sanitised: it is printed and written into outputs). */
/* Least privilege (privs.c, docs/privileges.md): called once everything
 * that needs root is open and before any thread starts. counters: keep
 * the capability that opens counters, for CPUs that come back online.
 * Returns 0, or the exit status. */
int give_up_privileges(struct run *r, bool counters)
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

/* The dashboard on src. */
static int run_live(struct run *r, struct source *src)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return usage_error("the dashboard needs a terminal; use -b for batch output");
	char host[256];
	run_host(r, host, sizeof(host));
	const char *nc = getenv("NO_COLOR");
	struct ui_config cfg = {
		.source = src,
		.model = r->model,
		.topo = r->topo,
		.rotate_ms = r->opt.rotate_ms,
		.no_color = r->opt.no_color || (nc && *nc),
		.simulated = r->ops && r->ops->simulated,
		.host = host,
		.cpu_name = r->cpu_name,
		.view = r->opt.group,
		.nextra = r->nevents, .extra_events = r->events,
		.cpu_filter = r->cpu_filter,
		.iterations = r->opt.iterations,
		.recorder = r->rec,
		.settings = &r->settings,
		.settings_path = r->settings_path,
		.no_config = r->opt.no_config,
		.settings_warnings = r->settings_warnings,
		.views_path = r->views_path,
		.view_given = r->opt.group != NULL,
		.fleet = r->opt.fleet != NULL,
		.fleet_group = r->opt.fleet_group,
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
	if ((rc = parse_cpu_filter(r)) != 0)
		return rc;
	if (r->cpu_filter)
		replay_set_cpu_filter(r->rp, r->cpu_filter);
	if ((rc = choose_metrics(r)) != 0)
		return rc;
	if (r->opt.group || r->opt.nevents)
		replay_request(r->rp, r->nmetrics, r->metrics, r->nevents, r->events);
	if (replay_count(r->rp) == 0) {
		char *msg = xasprintf("%s: the recording holds no interval", r->opt.replay_path);
		rc = runtime_error(msg);
		free(msg);
		return rc;
	}
	struct source *src = source_replay_new(r->rp, r->opt.replay_path, r->nmetrics, r->metrics, say,
					       &stop_requested);
	if (r->opt.batch) {
		FILE *f = open_output(r);
		if (!f) {
			rc = 1;
		} else if ((rc = give_up_privileges(r, false)) != 0) {
			/* A replay opens no counters: nothing of root is needed
			 * from here. */
			if (f != stdout)
				fclose(f);
		} else {
			rc = run_batch(r, src, f);
		}
	} else {
		rc = give_up_privileges(r, false);
		if (!rc)
			rc = run_live(r, src);
	}
	source_free(src);
	return rc;
}

/* --fleet: a fleet's hosts (fleet.h), in batch mode or the dashboard. The
 * fleet's model (its columns) is the run's while it runs. */
static int run_fleet(struct run *r)
{
	if (!fleet_supported())
		return runtime_error("--fleet needs libcurl, and this pmctop was built without it "
				     "(install libcurl4-gnutls-dev and configure again)");
#ifdef HAVE_LIBCURL
	char *why = NULL;
	if (!curl_dl_ready(&why)) {
		int rc = runtime_error(why);
		free(why);
		return rc;
	}
#endif
	char *columns = xasprintf("%s/fleet/columns.txt", r->events_dir);
	struct fleet_opts fo = {
		.spec = r->opt.fleet, .select = r->opt.fleet_select, .config = r->opt.fleet_config,
		.columns = columns, .window_s = r->opt.fleet_window_s, .at = r->opt.fleet_at,
		.interval_s = r->opt.interval_s,
	};
	char *cause = NULL;
	struct fleet *f = fleet_new(&fo, &cause);
	free(columns);
	if (!f) {
		int rc = runtime_error(cause);
		free(cause);
		return rc;
	}
	const struct model *m = fleet_get_model(f);
	struct snapshot *first = NULL;
	char *first_news = NULL;
	r->nmetrics = m->nmetrics;
	r->metrics = xcalloc((size_t)m->nmetrics + 1, sizeof(int));
	r->fmts = xcalloc((size_t)m->nmetrics + 1, sizeof(char *));
	for (int i = 0; i < m->nmetrics; i++) {
		r->metrics[i] = i;
		r->fmts[i] = m->views[0].cols[i].fmt;
	}
	if (!r->opt.batch) {
		/* The dashboard's rows are the CPUs of a topology: one a host,
		 * with room for hosts that Prometheus finds later. */
		int n = fleet_host_count(f);
		if (n == 0 && fleet_is_prometheus(f)) {
			/* Counting the hosts is a refresh: the dashboard shows it
			 * first (and says its news) rather than ask again. */
			first = fleet_refresh(f, &first_news, &cause);
			free(cause);
			cause = NULL;
			n = fleet_host_count(f);
		}
		/* Room too for a drilled host's CPUs (fleet_drill.c). */
		r->topo = topo_synthetic(1, 1, n + 64 < 512 ? 512 : n + 64, 1);
	}
	if (r->opt.fleet_host && fleet_host_count(f) > 0 && !fleet_drill_known(f, r->opt.fleet_host)) {
		/* The hosts are known (direct mode's targets, or the dashboard's
		 * first refresh); else the first refresh says the same
		 * (source_fleet.c). */
		char *msg = xasprintf("--fleet-host %s: not among the fleet's %d hosts", r->opt.fleet_host,
				      fleet_host_count(f));
		int rc = runtime_error(msg);
		free(msg);
		snapshot_free(first);
		free(first_news);
		fleet_free(f);
		return rc;
	}
	struct source *src = source_fleet_new(f, r->opt.interval_s, first, first_news, say, &stop_requested);
	if (r->opt.fleet_host) {
		/* Drilled from the start: the refresh made already is the hosts'. */
		source_drill(src, r->opt.fleet_host);
	}
	int rc;
	r->model = (struct model *)m;
	if (r->opt.batch) {
		FILE *out = open_output(r);
		rc = out ? run_batch(r, src, out) : 1;
	} else {
		rc = run_live(r, src);
	}
	r->model = NULL;   /* the fleet's, freed with the source */
	source_free(src);
	return rc;
}

/* The sampler's hook for -w: the interval recorded, and the recording's
 * state put in the snapshot for the exporter (pmctop_recording_ok). */
static void record_interval(void *rec, const struct derive_input *in, struct snapshot *snap)
{
	recorder_add(rec, in, snap);
	snap->recording = true;
	snap->recording_ok = recorder_ok(rec);
	snap->recording_errors = recorder_errors(rec);
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
		.interval_s = r->opt.interval_s,
		.rotate_ms = r->opt.rotate_ms,
		.cpu_filter = r->cpu_filter,
		.nmetrics = r->nmetrics, .metrics = r->metrics,
		.nevents = r->nevents, .events = r->events,
		.npinned = r->npin, .pinned = r->pin,
		/* The exporter publishes every event's error; the screen and
		 * batch output show the -e events' only. */
		.shown_event_errors = !r->hub,
		.report_cost = r->hub != NULL,
		/* Errors now where an output reads them (errors_later): the
		 * rows the screen shows, the scopes batch output and the
		 * exporter write. The others' are found if they are read. */
		.errors_on_demand = !r->opt.batch && !r->opt.daemon && !r->opt.show_schedule,
		.ntask_metrics = r->ntm, .task_metrics = r->tm, .task_freq = r->opt.task_hz,
		.ntask_pids = r->opt.npids, .task_pids = r->opt.pids, .task_cgroup = r->opt.cgroup,
		/* Batch: Ctrl-C ends the interval in progress, which is still
		 * written, so a recording loses nothing and stops at once. */
		.interrupt = r->opt.batch || r->opt.daemon ? &stop_requested : NULL,
		.on_publish = r->hub ? publish_copy : NULL,
		.publish_arg = r->hub,
	};
	bool written[SNAP_NSCOPES] = { false };
	if (r->opt.show_schedule)
		memset(written, true, sizeof(written));
	else if (r->opt.batch && !r->opt.daemon)
		batch_written_scopes(r, written);
	for (int k = 0; k < SNAP_NSCOPES; k++)
		sc.errors_later[k] = !written[k] && !(r->hub && k >= r->opt.export_scope);
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
		.interval_s = r->opt.interval_s, .rotate_ms = r->opt.rotate_ms,
		.cpu_filter = r->cpu_filter, .view = r->opt.group,
		.ncols = r->nmetrics, .cols = r->metrics, .fmts = r->fmts,
		.nevcols = r->nevents, .evcols = r->events,
	};
	struct record_files rf = {
		.max_size = r->opt.record_max_size,
		.keep = r->opt.record_keep_set ? r->opt.record_keep : -1,
	};
	if (!(r->rec = recorder_open(r->opt.record_path, &ri, &rf, &cause))) {
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
	if (r->opt.fleet)
		return run_fleet(r);
	int rc = choose_machine(r);
	if (rc != 0)
		return rc;
	if (r->opt.list_events || r->opt.list_metrics || r->opt.list_views)
		return run_listing(r);
	if ((rc = parse_cpu_filter(r)) != 0)
		return rc;
	if ((rc = choose_metrics(r)) != 0)
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
	} else {
		/* Batch mode paces a simulated PMU to -d unless it runs
		 * fast-forward (ff=1). */
		bool paced = r->ops->simulated && !sim_fast_forward(sampler_backend(s));
		struct source *src = source_live_new(s, r->opt.interval_s, paced, say, &stop_requested);
		if (batch) {
			rc = run_batch(r, src, out);
			out = NULL;
		} else {
			rc = run_live(r, src);
		}
		source_free(src);
	}
	if (out && out != stdout)
		fclose(out);
	export_server_stop(srv);
	sampler_free(s);
	if (r->rec)
		rc = close_recording(r, rc);
	return rc;
}

/* Sanitizer builds (the CI's ASan and TSan runs) free the model at exit,
 * so that model_free stays checked from end to end. */
#if PMCTOP_ASAN || PMCTOP_TSAN
#define FREE_MODEL_AT_EXIT 1
#endif

/* The model, left at exit to the kernel, which takes the whole heap back
 * at once: freeing its some 4,600 blocks one by one was 0.7 M of the 8 M
 * instructions of a one-interval batch run (docs/performance.md, issue
 * 39). Kept in a static, it stays reachable, which leak checkers
 * (LeakSanitizer, valgrind's memcheck) do not report as a leak; volatile,
 * so that the compiler keeps a store that nothing reads. */
#ifdef FREE_MODEL_AT_EXIT
static void model_at_exit(struct model *m)
{
	model_free(m);
}
#else
static struct model *volatile model_kept;

static void model_at_exit(struct model *m)
{
	model_kept = m;
}
#endif

int main(int argc, char **argv)
{
	struct run r;
	memset(&r, 0, sizeof(r));
	options_init(&r.opt);
	char *cause = NULL;
	int rc;
	if (cli_parse(argc, argv, &r.opt, &cause) < 0 ||
	    (!r.opt.help && !r.opt.version && !r.opt.sim && !r.opt.replay_path && !r.opt.fleet && check_task_targets(&r.opt, &cause) < 0)) {
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
			/* A daemon serving with --web-config reads it again on
			 * SIGHUP, as node_exporter does, instead of stopping. */
			struct sigaction hup = sa;
			if (r.opt.daemon && r.opt.listen && r.opt.web_config)
				hup.sa_handler = on_reload_signal;
			sigaction(SIGHUP, &hup, NULL);
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
	free(r.pin);
	free(r.fmts);
	free(r.events);
	export_hub_free(r.hub);
	web_config_free(r.web);
	if (r.rp) {
		replay_free(r.rp);   /* with its model and topology */
	} else {
		if (r.model)
			model_at_exit(r.model);
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
