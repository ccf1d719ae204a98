/* output_impl.h: what the batch writers share (private to src/output*.c). */
#ifndef PMCTOP_OUTPUT_IMPL_H
#define PMCTOP_OUTPUT_IMPL_H

#include "output.h"

struct output {
	FILE *f;
	struct output_opts o;
	int *cols;
	const char **fmts;
	int *evcols;
	unsigned long written;   /* snapshots written so far */
	/* The table's column headings and widths, made once for head_model
	 * (output_table.c): the same at every row of every interval. */
	const struct model *head_model;
	char (*heads)[64];       /* [ncols + nevcols] */
	int *widths;
	char *head_line;         /* the heading row, '\n' and all */
	/* Every cell of a row as '-' (no figure), one after the other, and
	 * where each column's cell starts in it ([ncols + nevcols + 1]): a
	 * run of cells without a figure, on a machine without a PMU nearly
	 * every cell, is copied from it in one go. */
	char *dash_line;
	int *dash_at;
	/* Each printed column's column in the interval's rows (snap_mcol,
	 * snap_ecol; -1: none, '-' in every row), found once an interval. */
	int *tcol;
	char *line;              /* a row is put together here */
	size_t line_cap;
	/* JSON's keys of the columns, quoted, escaped, with their colon,
	 * made once for key_model (output_json.c). */
	const struct model *key_model;
	char **keys;             /* [ncols + nevcols], NULL-terminated */
	size_t *key_len;         /* [ncols + nevcols]: each one's length */
	size_t keys_len;         /* their lengths added */
	char **ev_keys;          /* [nev_keys]: each event's, for event_coverage */
	int nev_keys;
	char *units;             /* ,"units":{...} */
	/* Every column's key with null, "k0":null,"k1":null,..., and where
	 * each one's starts ([ncols + nevcols + 1], the last one past the
	 * end and its comma): a run of fields without a figure is one copy. */
	char *null_line;
	int *null_at;
	char *host_model;        /* ,"host":"...","model":"..." for key_model */
	size_t host_model_len, units_len;
	/* The planned events of event_coverage, found for the plan's
	 * cov_planned ([cov_n]): their indices, and the most bytes they
	 * take (output_json.c). */
	bool *cov_planned;
	int cov_n, ncov;
	int *cov_list;
	size_t cov_bound;
	/* The last notice, and its field escaped: ,"notice":"..." */
	char *notice_raw, *notice_json;
	size_t notice_json_len;
};

/* o->line with room for need bytes: CSV and JSON put a row together
 * there and write it with one fwrite (a call into stdio per field and
 * separator was a large part of their work). */
char *output_line(struct output *o, size_t need);

/* Frees JSON's keys (output_json.c), and all it made for o. */
void output_json_keys_free(struct output *o);
void output_json_free(struct output *o);
int output_table_write(struct output *o, const struct snapshot *s);
int output_csv_write(struct output *o, const struct snapshot *s);
int output_json_write(struct output *o, const struct snapshot *s);
/* A fleet's snapshot (snapshot.hosts): a row per host (output_fleet.c). */
int output_fleet_write(struct output *o, const struct snapshot *s);
/* The same for a tasks view (table and CSV: rows of processes, then of cgroups). */
int output_table_tasks(struct output *o, const struct snapshot *s);
int output_csv_tasks(struct output *o, const struct snapshot *s);
/* Task rows of s to write: all, or the busiest o->o.top. */
int output_task_rows(const struct output *o, int n);

/* The lowest coverage among the printed metrics and events of a row that
 * have a value (NaN if
 * none of them was measured), so a reader sees which figures are estimates. */
double output_row_coverage(const struct output *o, const struct snapshot *s, const struct snap_row *r);
/* Each printed column's (metrics, then the -e events) column in s's
 * rows, -1 where s has none (o->tcol, found anew). */
int *output_cols(struct output *o, const struct snapshot *s);
/* Wall-clock time of the snapshot as "HH:MM:SS.mmm". */
void output_clock(double t, char *buf, size_t n);
/* The name of printed column col (metrics, then the -e events) in CSV and
 * JSON alike: the metric's name, or the event's with "_per_s", since
 * events are written as rates per second. */
void output_field_name(const struct output *o, const struct model *m, int col, char *buf, size_t n);
/* An integer in decimal at p, as "%ld" writes it, not terminated; returns
 * the end. By hand: every row of every writer has a few. */
char *output_put_int(char *p, long v);
/* Rate per second of an extra event in a row (NaN if not measured). */
double output_event_rate(const struct snapshot *s, const struct snap_row *r, int ev);

#endif
