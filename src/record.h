/* record.h: -w FILE, the recording of every interval pmctop measures: the
 * machine (model, topology, what was asked for) once, then per interval
 * what derive.c turns into figures (each group's scaled counts per
 * instance, in all and per bucket of rotation windows, with the time each
 * ran) and what the sampler adds (time, notices, offline CPUs). Replay
 * (replay.h) derives the same figures from it, and any other metric whose
 * events were counted. The format is JSON lines in gzip members, one per
 * line: docs/recording.md. */
#ifndef PMCTOP_RECORD_H
#define PMCTOP_RECORD_H

#include <stdbool.h>
#include "derive.h"
#include "snapshot.h"

/* The format's version, written in the first line ("version"). A reader
 * takes files of its own version; a new version is made whenever a field
 * changes meaning. */
#define RECORD_VERSION 1
#define RECORD_FORMAT_NAME "pmctop-recording"

/* What the first line says about the run. */
struct record_info {
	const struct model *model;
	const struct topo *topo;
	bool simulated;
	const char *sim_spec;         /* --sim text, or NULL */
	const char *host, *cpu_name;
	double interval_s, rotate_ms; /* as asked (-d, --rotate) */
	const bool *cpu_filter;       /* -C, [topo->max_cpu], or NULL */
	const char *view;             /* -g, or NULL */
	int ncols; const int *cols;   /* the metrics the outputs show */
	const char *const *fmts;      /* [ncols]: their view formats, or NULL */
	int nevcols; const int *evcols; /* -e events */
};

struct recorder;

/* What -w does with a file it finds and when a file is full. */
struct record_files {
	/* --record-max-size: a file is moved aside (rotated) before the
	 * interval that would take it past this many bytes; 0: no limit. */
	unsigned long long max_size;
	/* --record-keep: files kept when moving aside (FILE.1, the newest,
	 * to FILE.N); -1 when not given: 1 for a rotation, and another run's
	 * recording is refused rather than moved. */
	int keep;
};

/* Opens path and writes the first line, or goes on with a recording:
 * path may not exist, be an empty regular file of the user's or a FIFO
 * (started), a recording of the same run (the same first line: appended
 * to, after its last whole interval), or another run's (moved aside
 * when files->keep >= 0). Anything else is never written over: NULL with
 * *cause. files may be NULL (no limit, nothing moved). */
struct recorder *recorder_open(const char *path, const struct record_info *info,
			       const struct record_files *files, char **cause);
/* Appends one interval (the sampler calls this with derive's input and
 * the finished snapshot). A write error does not stop the run: the
 * partial interval is cut off, the error is counted and said once
 * (recorder_news), the intervals are not recorded until a try, 1 s
 * later and then at doubling delays up to a minute, succeeds. Called
 * from one thread at a time. */
void recorder_add(struct recorder *r, const struct derive_input *in, const struct snapshot *snap);
/* -n: intervals after the first n are not recorded (the dashboard's
 * sampler may run on while the screen closes). 0: no limit. */
void recorder_set_limit(struct recorder *r, long n);
/* The first write error as one line ("recording to F failed after 12
 * intervals: No space left on device"), or NULL. Any thread may ask. */
const char *recorder_error(struct recorder *r);
/* Whether the last write succeeded; write errors so far. Any thread. */
bool recorder_ok(struct recorder *r);
unsigned long long recorder_errors(struct recorder *r);
/* What to say once about the recording (it failed, it resumed), or
 * NULL; caller frees. Any thread. */
char *recorder_news(struct recorder *r);
/* Intervals written so far. */
long recorder_count(struct recorder *r);
/* Flushes and closes; -1 with *cause when anything was lost. */
int recorder_close(struct recorder *r, char **cause);

/* The interval record, as text (no newline), for tests and the fuzzer:
 * what recorder_add would compress. Caller frees. */
char *record_interval_text(const struct derive_input *in, const struct snapshot *snap);
/* The first line's text. Caller frees. */
char *record_header_text(const struct record_info *info);

#endif
