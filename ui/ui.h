/* ui.h: the live ncurses dashboard. The only interface between the program
 * and ui/; nothing outside ui/ includes curses.h. */
#ifndef PMCTOP_UI_H
#define PMCTOP_UI_H

#include <stdbool.h>
#include "evdef.h"
#include "snapshot.h"
#include "snapshot.h"
#include "topo.h"
#include "record.h"
#include "source.h"
#include "settings.h"

struct ui_config {
	/* Where the intervals come from (source.h), not yet started: the
	 * dashboard starts and stops it. */
	struct source *source;
	/* The view editor (F2) adds the user's views to it; nothing else in
	 * it changes, and the sampler's thread never reads the views. */
	struct model *model;
	struct topo *topo;
	double rotate_ms;            /* --rotate */
	bool no_color;               /* --no-color or NO_COLOR set */
	bool simulated;
	const char *host;            /* hostname */
	const char *cpu_name;        /* CPU model name, e.g. "AMD EPYC 9654" */
	const char *view;            /* initial view (-g), or NULL for the first */
	int nextra; const int *extra_events;  /* -e events shown as columns */
	const bool *cpu_filter;      /* -C, or NULL */
	long iterations;             /* -n: quit after that many intervals (0: run on) */
	struct recorder *recorder;   /* -w: the header says REC, and if it fails */
	/* Saved settings (pmctoprc, settings.h): applied where the command
	 * line did not say; F2 edits and saves them to settings_path. */
	struct settings *settings;
	const char *settings_path;
	bool no_config;              /* --no-config: settings neither read nor saved */
	const char *settings_warnings;
	const char *views_path;      /* the user's views file (evdef_user.h), or NULL: not written */
	bool view_given, colors_given;
	/* --fleet: the rows are a fleet's hosts (snapshot.h, hosts), a CPU
	 * of topo each; the table shows HOST and STATUS around the view's
	 * columns, and the filter (\\) keeps the hosts whose name, model or
	 * status holds its text. */
	bool fleet;
	const char *fleet_group;     /* --fleet-group: the label the hosts start grouped by, or NULL */
};

/* Runs the dashboard until the user quits. Starts and stops the
 * source. Returns 0, or -1 with *cause (the terminal is restored first). */
int ui_run(const struct ui_config *c, char **cause);
/* The signal that ended the last ui_run() (SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT), or 0 if the user quit. */
int ui_stop_signo(void);

#endif
