/* fleet_impl.h: what the fleet's files share (fleet.c, fleet_prom.c,
 * fleet_direct.c and their leaf fleet_hosts.c; private to them): a
 * fleet's state, its hosts, and the helpers both modes use. */
#ifndef PMCTOP_FLEET_IMPL_H
#define PMCTOP_FLEET_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "fleet.h"

/* What a host without hardware series (a VM without a PMU) says. */
#define NO_HW "no hardware series: its pmctop counts no PMU events"

/* A host whose last interval is older than this many rate windows
 * (Prometheus) or refreshes (direct), and 30 s at least, is stale: its
 * figures would describe another time. */
#define FLEET_STALE_WINDOWS 2.0
#define FLEET_STALE_MIN_S 30.0

struct host {
	char *name;               /* Prometheus's instance, or HOST:PORT */
	char *url;                /* direct: its /metrics */
	struct fleet_samples prev, cur;   /* direct: the two scrapes the figures come from */
	bool have_prev, have_cur;
	char *model;
	bool simulated;
	double *v, *rse, *cov;    /* [ncols]: the last good figures */
	double *num, *den;        /* [ncols] direct: the terms behind v, for the fleet's total */
	bool have_figs;
	char *status;             /* why '-' or stale, or NULL */
	bool stale;
	bool failing;             /* direct: its last scrape failed (said once) */
	double age_s, k0, k1;
	/* direct: the figures of the last refreshes for a drill's history
	 * (fleet_keep_history): kept_n of them from kept_first in a ring of
	 * f->past, each its time then ncols figures. */
	double *kept;
	int kept_n, kept_first;
	/* Its labels other than model, sorted by key (fleet_labels.c). */
	int nlabels;
	char **lkeys, **lvals;
	bool removed;             /* direct: no longer in the targets file (not scraped) */
};

struct fleet {
	struct fleet_columns *cols;
	struct model *model;
	struct fleet_client_config *cfg;
	bool prom;
	char *base;               /* Prometheus: the URL without a trailing '/' */
	char *sel;                /* the selector inside its braces */
	double window_s, at, interval_s;
	int nhosts;
	struct host *hosts;
	struct name_index *by_name;   /* host name -> index: 1,000 hosts x 20 answers */
	uint64_t seq;
	bool failing;             /* Prometheus: the last refresh failed (said once) */
	double *total;            /* [ncols]: the fleet's own figures (the snapshot's system row) */
	atomic_bool cancel;       /* fleet_cancel: the requests end now */
	/* Drill down's history (fleet_set_history): points of it wanted (0:
	 * none, batch), and the host whose drill had them already. */
	int past;
	char *past_host;
	/* Direct mode's @FILE, read again when it changes (fleet_labels.c). */
	char *targets_file;
	long long targets_stamp[3];   /* its modification time (ns), inode and size when read */
};

/* fleet_hosts.c: the hosts, found by name or added (with NaN figures); a
 * host's reason (NULL: none); its figures made NaN. */
struct host *host_add(struct fleet *f, const char *name);
struct host *host_find(struct fleet *f, const char *name);
void host_status(struct host *h, const char *why);
void host_clear_figs(struct fleet *f, struct host *h);
/* A line for *news (what the source says). */
void news_add(char **news, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The wall clock, in seconds since the epoch. */
/* A fleet snapshot of nrows_cpu host (or drilled) rows and the fleet's
 * row, stamped with the refresh's time, window and delay. */
struct snapshot *fleet_snapshot_new(struct fleet *f, int nrows_cpu);
/* The same with nrows rows of each scope (a drilled host's CPUs, cores,
 * CCX). */
struct snapshot *fleet_snapshot_new_rows(struct fleet *f, const int nrows[SNAP_NSCOPES]);
double fleet_now(void);
/* Whether sample x has label key with value want. */
bool sample_is(const struct fleet_sample *x, const char *key, const char *want);

/* fleet_direct.c: the sum (min, max, mean, age's max) of term t's
 * samples in scrape s, only those whose label key is val where key is
 * not NULL (a drilled host's row); NaN where none matches. */
double fleet_agg_row(const struct fleet_samples *s, const struct fleet_term *t, enum fleet_agg agg, const char *key,
		     const char *val);

/* fleet_labels.c: a host's labels (other than model). Set from n keys
 * and values (taken: freed here), sorted by key. */
void host_labels_set(struct host *h, int n, char **keys, char **vals);
/* From the labels of a Prometheus sample (up{}'s: the target's), all
 * but instance and Prometheus's own (__name__, __...). */
void host_labels_from_prom(struct host *h, const char *labels);
void host_labels_free(struct host *h);
/* Direct mode's targets, from --fleet's list (from: "--fleet") or the
 * text of @FILE (from: its path): HOST:PORT or URLs, commas or lines
 * between them; in a file a target may be followed by its labels,
 * `HOST:PORT zone=eu1 rack=r3`. -1 with *cause on a bad one. */
int fleet_targets_add(struct fleet *f, const char *text, const char *from, char **cause);
/* Direct mode with @FILE: when the file changed since it was read, its
 * targets again: labels changed, targets added (scraped from now on) and
 * removed (kept as rows that say so), each said in *news. */
void fleet_targets_reread(struct fleet *f, char **news);
/* Combines a term of one more host (the n-th) into acc, as over one
 * host's rows: rates and sums add up, a minimum is the lowest, a mean
 * the mean, an age the youngest (fleet_direct.c). */
double fleet_combine(enum fleet_agg agg, double acc, double v, int n);

/* fleet_direct.c: column c's figure over the hosts marked in in[nhosts]
 * (NULL: all), its terms combined before dividing as the fleet's total's
 * are (all instructions over all cycles); NaN where none has figures. */
double fleet_direct_total(const struct fleet *f, int c, const bool *in);
/* fleet_groups.c: the snapshot's groups of hosts, by model and by each
 * other label the hosts carry (both modes: the hosts' num and den). */
void fleet_groups(const struct fleet *f, struct snapshot *s);

/* fleet_prom.c: asks Prometheus nq queries at once, each answer's samples
 * in res[i]; -1 with *cause (the first problem) when any failed. */
int fleet_prom_queries(struct fleet *f, int nq, char *const *q, struct fleet_samples *res, char **cause);

/* A drilled host's rows (fleet_drill.c): n rows of the placing label
 * placing[k] ("cpu", "core", "ccx", "socket"), ids[n], their figures
 * v, rse, cov [n x ncols], and why[c] (static text, or NULL) the reason
 * for column c's '-' in every row. */
struct drill_rows {
	int n, k;
	long *ids;
	double *v, *rse, *cov;
	const char **why;
	double *host;    /* [ncols] Prometheus: the host's own figures (NaN: use its last refresh's) */
	long *place;     /* [n x 3] each row's core, ccx and socket labels (-1: none) */
	/* The rows summed by core (grp[0]) and by CCX (grp[1]), where the
	 * rows are CPUs: each group's label value, its figures [n x ncols]
	 * (its CPUs' terms summed before dividing). */
	struct drill_group { int n; long *ids; double *v; } grp[2];
};
extern const char *const fleet_placing[4];
/* fleet_drill_prom.c: the rows of host h from Prometheus (one query per
 * column, and one each for the errors and coverages); -1 with *cause. */
int fleet_drill_prom(struct fleet *f, const struct host *h, struct drill_rows *d, char **cause);
/* Adds id to d's rows (kept in numeric order) unless it is there; its
 * index. */
int drill_row_add(struct fleet *f, struct drill_rows *d, long id);
/* fleet_drill_rows.c: row r's core, ccx and socket from a sample's labels
 * (those it has); group g's (0: core, 1: CCX) entry of label value id,
 * added with NaN figures unless it is there; frees what d holds. */
void drill_row_place(struct drill_rows *d, int r, const char *labels);
int drill_group_add(struct fleet *f, struct drill_rows *d, int g, long id);
void drill_rows_done(struct drill_rows *d);
/* fleet_drill_topo.c: the snapshot of a drilled host's rows, with the
 * topology its CPUs' labels give and its cores' and CCX' rows where the
 * rows are CPUs that all carry a ccx label. */
struct snapshot *drill_snapshot_new(struct fleet *f, const struct drill_rows *d);
/* fleet_range.c: the host's own figures of the columns marked `history`
 * (events/fleet/columns.txt) over the last f->past refreshes, into s
 * (npast, past_t, past_v): Prometheus mode asks one query_range per such
 * column on a drill's first refresh (a failure says why in *note, which
 * it appends to); direct mode gives those it kept (fleet_keep_history). */
void drill_history(struct fleet *f, const struct host *h, struct snapshot *s, char **note);
/* fleet_range.c: direct mode keeps each host's figures of every refresh
 * (the last f->past of them) for drill_history. */
void fleet_keep_history(struct fleet *f, double t);
/* fleet_prom.c: a query percent-encoded for a URL. */
char *fleet_url_escape(const char *s);
/* fleet_drill_prom.c: the fleet's selector with host name's instance
 * added (escaped as PromQL's strings want), inside the braces. */
char *fleet_host_selector(const struct fleet *f, const char *name);

/* fleet_prom.c, fleet_direct.c: one refresh of each mode, into the hosts;
 * -1 with *cause when the server (Prometheus) did not answer at all. */
int fleet_prom_refresh(struct fleet *f, char **news, char **cause);
int fleet_direct_refresh(struct fleet *f, char **news);

/* fleet_parse.c: */
/* The envelope of an answer of Prometheus's API: its data.resultType and
 * data.result, and the tree to json_decref; NULL with *cause where body is
 * no good answer (Prometheus's own error kept: "Prometheus says TYPE:
 * TEXT"). */
json_t *fleet_api_result(const char *body, size_t len, const char **type, json_t **result, char **cause);
/* fleet_prom.c: what an answer of Prometheus that is not a good one says,
 * in one line, from r and its parser's rc and cause (NULL: a good one).
 * Prometheus's own errors (400, 422, 503 for a query timeout) are JSON
 * whose text is kept. */
char *fleet_reply_problem(const struct fleet_reply *r, int rc, const char *cause);

#endif
