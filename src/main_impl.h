/* main_impl.h: what main.c, main_choose.c and main_batch.c share: the
 * state of one run and the few helpers each of them calls. Private to the
 * program (pmctop_SOURCES), not part of libpmctop. */
#ifndef PMCTOP_MAIN_IMPL_H
#define PMCTOP_MAIN_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "settings.h"

struct model;
struct topo;
struct pmu_backend_ops;
struct export_hub;
struct web_config;
struct recorder;
struct replay;
struct sampler;
struct source;

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
	int npin; int *pin;         /* the views' headline metrics, counted throughout */
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

/* main_common.c: the signal that asked batch mode to stop, or 0. */
extern volatile sig_atomic_t stop_requested;

/* main_common.c: messages on stderr, sanitised; the two return the exit status
 * of bad usage (2) and of a failure (1). */
void say(const char *msg);
int usage_error(const char *msg);
int runtime_error(const char *msg);
/* main.c: the listings' end (a closed pipe is a normal stop). */
int finish_stdout(int err);
/* main_common.c: the measured machine's name, sanitised. */
void run_host(const struct run *r, char *buf, size_t n);
/* main.c: least privilege once everything root opens is open. */
int give_up_privileges(struct run *r, bool counters);

/* One convention for "go on" in main.c and main_choose.c: a step that
 * may end the run returns 0 to go on, else the exit status to end it with
 * (1 a failure, 2 bad usage: never 0, since a step that ends the run
 * successfully returns its status from run() itself). */

/* main_choose.c: each of choose_machine, choose_metrics and
 * parse_cpu_filter returns 0 to go on, else the exit status;
 * check_task_targets returns 0, or -1 with *cause (the caller makes it a
 * usage error); pick_events_dir and load_settings cannot fail. */
const char *pick_events_dir(const struct options *o);
int check_task_targets(const struct options *o, char **cause);
int choose_machine(struct run *r);
int choose_metrics(struct run *r);
int parse_cpu_filter(struct run *r);
void load_settings(struct run *r);

/* main_batch.c: -o's file or stdout (NULL, said, on failure); the batch
 * loop over a source (source.h), live or a recording, which returns the
 * exit status. */
FILE *open_output(struct run *r);
/* The scopes whose rows batch output writes (output_scopes). */
void batch_written_scopes(const struct run *r, bool written[SNAP_NSCOPES]);
int run_batch(struct run *r, struct source *src, FILE *f);

#endif
