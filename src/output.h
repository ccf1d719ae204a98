/* output.h: batch writers: a plain table, CSV with one stable header, and
 * JSON lines (one object per interval). */
#ifndef PMCTOP_OUTPUT_H
#define PMCTOP_OUTPUT_H

#include <stdio.h>
#include "snapshot.h"

enum output_format { OUT_TABLE, OUT_CSV, OUT_JSON };

struct output_opts {
	enum output_format format;
	int ncols; const int *cols;   /* metric indices to print, in order */
	bool per_core, show_ccx;      /* table: extra scopes */
};

struct output;
struct output *output_new(FILE *f, const struct output_opts *o);
/* Writes one snapshot; first_time prints headers. 0 or -errno on write error. */
int output_write(struct output *o, const struct snapshot *s);
void output_free(struct output *o);
int output_parse_format(const char *s);  /* -1 if unknown */

#endif
