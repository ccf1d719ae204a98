/* cli.h: pmctop's command line: the options of ARCHITECTURE.md parsed into
 * a struct, with a one-line reason for every bad option or value so that
 * main can print it with the usage and exit 2. */
#ifndef PMCTOP_CLI_H
#define PMCTOP_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "output.h"
#include "sampler.h"

struct options {
	double interval_s;       /* -d, default 1 */
	long iterations;         /* -n, 0 = forever */
	bool batch;              /* -b */
	enum output_format format;
	char *cpu_list;          /* -C */
	char *group;             /* -g: a view or metric group */
	int nevents; char **events;  /* -e, repeatable */
	char *model;             /* --model */
	char *sim;               /* --sim MODEL[:SxCxNxT] */
	double rotate_ms;        /* --rotate; SAMPLER_ROTATE_KERNEL for 'kernel' */
	bool list_models, list_events, list_metrics, list_views, raw;
	char *list_pattern;      /* --list-events [PATTERN] */
	char *events_dir;        /* --events-dir */
	char *perf_events;       /* --perf-events: Linux perf's pmu-events/arch (perf_import.h) */
	bool show_schedule;      /* --show-schedule */
	bool no_color;           /* --no-color (NO_COLOR is read by main) */
	bool no_config;          /* --no-config: ignore the saved settings (pmctoprc) */
	bool interval_set;       /* -d was given (it wins over the settings) */
	char *output_path;       /* -o FILE: batch output to a file */
	char *record_path;       /* -w FILE: record every interval (record.h) */
	unsigned long long record_max_size; /* --record-max-size: bytes, 0: no limit */
	int record_keep; bool record_keep_set; /* --record-keep N */
	char *replay_path;       /* -r FILE: replay a recording (replay.h) */
	char *listen;            /* --listen [ADDR:]PORT: serve /metrics (export.h) */
	bool daemon;             /* --daemon: no screen, no output, only --listen */
	int export_scope;        /* --export-scope: enum snap_scope, CLI_DEFAULT_EXPORT_SCOPE */
	char *web_config;        /* --web-config FILE: TLS and users (export_webconfig.h) */
	bool export_pids;        /* --export-pids: a pid label on per-process series */
	char *user;              /* --user NAME: become NAME once counters, socket and files are open */
	int task_hz;             /* --task-hz: samples a second per event per CPU for a tasks view */
	int npids; int *pids;    /* -p: only these processes in the per-task figures */
	char *cgroup;            /* --cgroup: only processes in this cgroup (or below), as /proc/PID/cgroup names it */
	int top;                 /* --top: task and cgroup rows per interval in batch output; 0: all */
	char *fleet;             /* --fleet URL | HOST:PORT,... | @FILE: read a fleet (fleet.h) */
	char *fleet_select;      /* --fleet-select: the selector of its series in Prometheus */
	char *fleet_host;        /* --fleet-host: one host's own rows (drill down) */
	char *fleet_group;       /* --fleet-group LABEL: the hosts grouped by LABEL (batch: group rows) */
	char *fleet_config;      /* --fleet-config FILE: TLS and basic auth of the client */
	double fleet_window_s;   /* --fleet-window: the rate window in Prometheus mode, 0: default */
	double fleet_at;         /* --fleet-at: the evaluation time (seconds since the epoch), NaN: now */
	bool help, version;
};

#define CLI_DEFAULT_INTERVAL_S 1.0
#define CLI_DEFAULT_ROTATE_MS SAMPLER_DEFAULT_ROTATE_MS
/* Per-CCX rows: a 384-CPU host gives about 1,400 series, which hundreds of
 * hosts can share a Prometheus with (docs/exporter.md counts every scope). */
#define CLI_DEFAULT_EXPORT_SCOPE SNAP_CCX

/* Processes -p may name. */
#define CLI_MAX_PIDS 4096
/* Rows of processes (and of cgroups) per interval in batch output. */
#define CLI_DEFAULT_TOP 20

void options_init(struct options *o);
void options_done(struct options *o);
/* Returns 0, or -1 with *cause set to a one-line reason (usage error). */
int cli_parse(int argc, char **argv, struct options *o, char **cause);
void cli_usage(FILE *out);
/* Parses a positive number of seconds ("0.5", "2"); -1 if bad. */
int cli_parse_seconds(const char *s, double *out);

#endif
