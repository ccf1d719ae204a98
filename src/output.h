/* output.h: batch writers: a plain table, CSV with one stable header, and
 * JSON lines (one object per interval). */
#ifndef PMCTOP_OUTPUT_H
#define PMCTOP_OUTPUT_H

#include <stdio.h>
#include "snapshot.h"

enum output_format { OUT_TABLE, OUT_CSV, OUT_JSON };

struct output_opts {
	enum output_format format;
	int ncols; const int *cols;     /* metric indices to print, in order */
	const char *const *fmts;        /* per column: the view's format, or NULL */
	int nevcols; const int *evcols; /* extra events (-e), printed as rates per second */
	bool show_ccx;                  /* table: CCX rows after the CPU rows */
	bool tasks;                     /* a tasks view: the table and CSV have a row per
	                                 * process and cgroup, not per CPU (JSON has both) */
	int top;                        /* task and cgroup rows written per interval; 0: all */
	const char *host;               /* the measured machine (CSV and JSON), so that runs of
	                                 * several hosts can be merged; NULL: "" */
	const char *fleet_group;        /* a fleet: the label whose groups of hosts follow the
	                                 * hosts' rows (--fleet-group); NULL: none */
};

/* Opens -o's FILE for writing. "-" and /dev/stdout are standard output
 * (stdout itself, which the caller does not close), /dev/null is written
 * to. A new file is created with mode 0644 (less the umask). An existing
 * one is replaced only if it is a regular file with one name, owned by the
 * user running pmctop, and empty or holding pmctop's own output (table,
 * CSV or JSON); a FIFO is written to as it is. Symbolic links are never
 * followed. NULL with *cause otherwise.
 *
 * A FIFO that no process reads yet: without wait, NULL with errno ENXIO
 * (and *cause), so that the caller can say that it waits; with wait, the
 * open blocks until a reader comes, or a signal interrupts it. */
FILE *output_open(const char *path, bool wait, char **cause);

struct output;
struct output *output_new(FILE *f, const struct output_opts *o);
/* Which scopes' rows a writer of o writes (written[SNAP_NSCOPES]): the
 * table its CPU rows, its CCX rows with show_ccx and the system row; CSV
 * every scope; JSON every scope; a tasks view's table and CSV no row but
 * the tasks'. The errors of the others need not be found (sampler.h). */
void output_scopes(const struct output_opts *o, bool written[SNAP_NSCOPES]);
/* Writes one snapshot; first_time prints headers. 0 or -errno on write error. */
int output_write(struct output *o, const struct snapshot *s);
void output_free(struct output *o);
int output_parse_format(const char *s);  /* -1 if unknown */

/* A JSON string (RFC 8259): quotes and backslashes escaped, control
 * characters as \uXXXX; NULL writes "". For every JSON pmctop writes. */
void json_put_string(FILE *f, const char *s);

/* Shared by the writers and the screen: a metric value as text, "-" for
 * NaN; "ratio" metrics print as percentages. fmt may be NULL (default). */
void output_format_value(const struct metric_def *md, const char *fmt, double v, char *buf, size_t n);
/* The column heading of a metric: its label plus "%" for ratios. */
void output_metric_heading(const struct metric_def *md, char *buf, size_t n);

#endif
