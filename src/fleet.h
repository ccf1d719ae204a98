/* fleet.h: pmctop as a client of a fleet (docs/fleet.md). A fleet is
 * read either from a Prometheus server's HTTP API (one query per column
 * and refresh, never one per host) or by scraping pmctop exporters
 * directly (two scrapes' counter deltas). Both give one row per host
 * whose columns are the data of events/fleet/columns.txt: each a ratio
 * of counter rates (or gauges), summed over the host's rows before
 * dividing, so that one definition gives the PromQL and the direct
 * figure alike.
 *
 * The parts: fleet_columns.c (the columns file, and the model whose
 * metrics they are), fleet_parse.c (the API's JSON answers and the
 * exporters' text format: what the fuzzer and check_fleet_parse feed),
 * fleet_http.c (libcurl, the client config's TLS and basic auth),
 * fleet.c (a refresh: queries or scrapes, then the snapshot),
 * fleet_drill*.c (one host drilled into: its rows, and the topology and
 * CCX rows of its CPUs), fleet_range.c (that host's history),
 * source_fleet.c (the source ops) and output_fleet.c (batch output). */
#ifndef PMCTOP_FLEET_H
#define PMCTOP_FLEET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "snapshot.h"

/* How a term of a column's ratio is taken from a host's series. */
enum fleet_agg {
	FLEET_RATE,   /* per-second rate of a counter, summed over the host's rows */
	FLEET_CRATE,  /* the same over the exporter's own clock (its interval timestamps'
		       * rise): exact while the host's series is younger than the window */
	FLEET_SUM,    /* a gauge, summed over the host's rows */
	FLEET_MIN,    /* a gauge's lowest row */
	FLEET_MAX,    /* a gauge's highest row */
	FLEET_AVG,    /* a gauge's mean over the host's rows */
	FLEET_AGE,    /* now minus the gauge's highest row (a timestamp) */
	FLEET_CONST,  /* a number */
};

struct fleet_term {
	enum fleet_agg agg;
	char *series;     /* family name; NULL for FLEET_CONST */
	char *label;      /* an optional label matcher, `metric="pmctop_metric_ipc"`, or NULL */
	double value;     /* FLEET_CONST */
};

/* One column: scale x num / den, with the exporter's error and coverage
 * gauges of metric `err` (a pmctop_metric_* name) giving its doubt. */
struct fleet_col {
	char *name, *label, *unit, *fmt, *desc;
	struct fleet_term num, den;
	double scale;
	char *err;        /* exporter metric whose relative error and coverage the figure takes, or NULL */
	bool hardware;    /* counted by the PMU: '-' on a host without hardware series */
	bool history;     /* a drilled host's sparklines show it (Prometheus: one query_range) */
	char *file; int line;
};

struct fleet_columns {
	int n;
	struct fleet_col *cols;
};

/* Loads the columns file (events/fleet/columns.txt); NULL with *cause
 * "FILE:LINE: ..." on a bad line. */
struct fleet_columns *fleet_columns_load(const char *path, char **cause);
/* The same from text, named path in errors (tests, the fuzzer). */
struct fleet_columns *fleet_columns_parse(const char *text, const char *path, char **cause);
void fleet_columns_free(struct fleet_columns *fc);
/* A model whose metrics are the columns (in order) and whose one view,
 * "fleet", shows them: what snapshots, outputs and the dashboard read. */
struct model *fleet_model_new(const struct fleet_columns *fc);
/* The PromQL of a term and of a column for selector sel (the part inside
 * the braces, "" for none) and rate window window_s. Caller frees. */
char *fleet_term_promql(const struct fleet_term *t, const char *sel, double window_s);
char *fleet_col_promql(const struct fleet_col *c, const char *sel, double window_s);
/* A term's PromQL grouped by the labels `by` names ("by (instance, cpu) ",
 * a drilled host's rows); a crate's clock is then the instance's. */
char *fleet_term_promql_by(const struct fleet_term *t, const char *sel, double window_s, const char *by);
/* The column's query as a refresh asks it: without labels, the whole
 * fleet's figure (the definition over all their series at once), and
 * every host's numerator and denominator (label pmctop_term "num" and
 * "den", a constant term not asked), whose quotient is the host's figure
 * and whose sums a group's, in one query:
 * `(ALL) or label_replace(NUM BY INSTANCE, ...) or label_replace(DEN ...)`. */
char *fleet_col_promql_total(const struct fleet_col *c, const char *sel, double window_s);

/* fleet_parse.c: one sample of an instant vector, or of a scrape. */
struct fleet_sample {
	char *instance;   /* Prometheus mode: the instance label */
	char *name;       /* the family (text format) */
	char *labels;     /* the labels as written, without braces ("" for none) */
	double value;
	double time;      /* Prometheus mode: the sample's evaluation time */
};
struct fleet_samples {
	int n, cap;
	struct fleet_sample *v;
};
void fleet_samples_done(struct fleet_samples *s);
/* A /api/v1/query answer (`{"status":"success","data":{"resultType":
 * "vector","result":[...]}}`) into out (appended). A value of "NaN",
 * "+Inf" and "-Inf" is kept as such. -1 with *cause on an error answer
 * ("error" and "errorType") or malformed JSON, in one line. */
int fleet_parse_vector(const char *body, size_t len, struct fleet_samples *out, char **cause);
/* The same through jansson alone, what fleet_parse_vector's fast path for
 * Prometheus's own plain answers must equal (the tests and the fuzzer). */
int fleet_parse_vector_json(const char *body, size_t len, struct fleet_samples *out, char **cause);
/* An exporter's /metrics (text format 0.0.4) into out: one sample a line,
 * comments skipped. A malformed line is skipped and counted in *bad. */
int fleet_parse_text(const char *body, size_t len, struct fleet_samples *out, int *bad);
/* A label's value from a labels string (`a="1",b="x"`), unescaped, or
 * NULL when absent (caller frees). */
char *fleet_label(const char *labels, const char *key);
/* The next label of a labels string at *p: its key (klen bytes) and its
 * value's escaped text [*v0, *v1); *p moves past it. false at the end or
 * at text that is no label. */
bool fleet_label_next(const char **p, const char **key, size_t *klen, const char **v0, const char **v1);
/* A value's escaped text [v0, v1) unescaped and made safe to print on one
 * line (caller frees). */
char *fleet_label_value(const char *v0, const char *v1);

/* fleet_http.c: the client side (--fleet-config). */
struct fleet_client_config {
	char *ca_file, *cert_file, *key_file, *server_name;
	bool insecure_skip_verify;
	char *username, *password;   /* basic auth; password read from password_file */
	double timeout_s;            /* each request's limit; 0: the default */
};
/* Reads the YAML client config; NULL with *cause ("FILE:LINE: ..."). */
struct fleet_client_config *fleet_config_load(const char *path, char **cause);
void fleet_config_free(struct fleet_client_config *c);
/* Whether this pmctop was built with libcurl. */
bool fleet_supported(void);

/* One HTTP answer. status 0: no answer (err says why, in one line). */
struct fleet_reply {
	long status;
	char *body;
	size_t len;
	char *err;
	double elapsed_s;
};
void fleet_reply_done(struct fleet_reply *r);
/* GETs n URLs at once (libcurl multi), each answer in replies[i]. When
 * *cancel (may be NULL) becomes true the requests still open end at once
 * with the error "cancelled" (a dashboard that quits while a server hangs). */
void fleet_http_get(const struct fleet_client_config *cfg, const atomic_bool *cancel, int n, char *const *urls,
		    struct fleet_reply *replies);

/* fleet.c: a fleet. */
struct fleet_opts {
	const char *spec;       /* --fleet: URL, host:port,..., or @FILE */
	const char *select;     /* --fleet-select: a selector with or without braces; NULL: {job="pmctop"} */
	const char *config;     /* --fleet-config FILE, or NULL */
	const char *columns;    /* the columns file */
	double window_s;        /* --fleet-window: the rate window (Prometheus mode) */
	double at;              /* --fleet-at: evaluation time (Prometheus mode), NaN: now */
	double interval_s;      /* -d */
};

/* A host's text beside its row (snapshot.h, struct snap_host). */
struct fleet;
/* NULL with *cause: a bad spec, file or config. */
struct fleet *fleet_new(const struct fleet_opts *o, char **cause);
void fleet_free(struct fleet *f);
const struct model *fleet_get_model(const struct fleet *f);
/* The hosts known so far (direct mode: every target). */
int fleet_host_count(const struct fleet *f);
/* Prometheus (true) or direct scrapes. */
bool fleet_is_prometheus(const struct fleet *f);
/* One refresh: the queries or scrapes, then a snapshot of one row per
 * host (caller owns it). Lines to say (a query that failed, a host that
 * vanished) are appended to *news ('\n'-separated, caller frees). NULL
 * with *cause only when nothing at all could be read (the server
 * unreachable, a bad answer) and no host was known before. */
struct snapshot *fleet_refresh(struct fleet *f, char **news, char **cause);
/* fleet_drill.c: host name's own rows (its CPUs, or the narrowest rows
 * its exporter publishes), the columns computed per row from the last
 * refresh's data: a snapshot with drill set (caller owns it). *note (caller
 * frees, may be NULL): what the screen should say beside it (rows wider
 * than CPUs, no rows yet, a mode without drill down). Call on the
 * refresh's thread, after a refresh. */
struct snapshot *fleet_drill(struct fleet *f, const char *name, char **note);
/* Whether host name is one of the fleet's (known so far). */
bool fleet_drill_known(struct fleet *f, const char *name);
/* Ends a refresh in progress on another thread soon (its requests fail
 * as "cancelled"), and every later one at once: the fleet is done with.
 * The one call that may come from a thread other than the refresh's. */
void fleet_cancel(struct fleet *f);
/* The dashboard wants a drilled host's history: points of it (the
 * sparklines' width), read on the drill's first refresh (Prometheus:
 * query_range; direct mode: the refreshes kept since start). 0: none. */
void fleet_set_history(struct fleet *f, int points);

#endif
