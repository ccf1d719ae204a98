/* replay.h: -r FILE, a recording (record.h) read back: the machine it was
 * made on, a list of its intervals, and each interval derived again into
 * a snapshot, for any metric whose events were counted in it, not only
 * those shown while recording. */
#ifndef PMCTOP_REPLAY_H
#define PMCTOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "evdef.h"
#include "snapshot.h"
#include "topo.h"

/* What the first line of the recording says. */
struct replay_info {
	const struct model *model;
	const struct topo *topo;      /* as at the start of the recording */
	bool simulated;
	const char *sim_spec, *host, *cpu_name, *view, *pmctop_version;
	double interval_s, rotate_ms;
	const bool *cpu_filter;       /* [topo->max_cpu] or NULL */
	int ncols; const int *cols;   /* the metrics the outputs showed */
	const char *const *fmts;      /* [ncols] view formats, or NULL */
	int nevcols; const int *evcols;
};

struct replay;

/* Opens a recording and lists its intervals without reading them. The
 * model is loaded by name from events_dir. A file that ends inside an
 * interval, or holds damaged bytes, opens with what is whole:
 * replay_note() says what was skipped. NULL with *cause when the file is
 * not a recording pmctop can read. */
struct replay *replay_open(const char *path, const char *events_dir, char **cause);
void replay_free(struct replay *r);
const struct replay_info *replay_info(const struct replay *r);
/* What opening found wrong (truncated end, damaged bytes), or NULL. */
const char *replay_note(const struct replay *r);
int replay_count(const struct replay *r);
/* The wall-clock time (seconds since the epoch) at the end of interval i. */
double replay_time(const struct replay *r, int i);
/* The first interval ending at or after t (replay_count() if none). */
int replay_find_time(const struct replay *r, double t);

/* -C on a replay: only these CPUs of those recorded ([topo max_cpu]). */
void replay_set_cpu_filter(struct replay *r, const bool *cpus);
/* Which figures to derive: these metrics and events, where the recording
 * counted their events. nmetrics < 0: exactly what was derived while
 * recording (the default). */
void replay_request(struct replay *r, int nmetrics, const int *metrics, int nevents, const int *events);
/* Interval i derived into a new snapshot (caller frees), with the
 * recorded time, notices and offline CPUs. NULL with *cause when the
 * interval is damaged. */
struct snapshot *replay_snapshot(struct replay *r, int i, char **cause);
/* Why metric mi cannot be derived from the recording (its first event
 * that no interval read so far counted), or NULL. */
const char *replay_why_missing(struct replay *r, int mi, char *buf, int len);

/* For the fuzzer and tests: derives one interval from its text (a line
 * of the file) with r's header. */
struct snapshot *replay_snapshot_text(struct replay *r, const char *text, size_t len, char **cause);

/* Damaged intervals a batch replay describes one by one; the rest are
 * counted in one line at the end. */
#define REPLAY_SAID_DAMAGED 5

#endif
