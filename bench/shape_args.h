/* shape_args.h: the command line the per-shape benchmarks share:
 * `PROG [-n INTERVALS] [-m MODEL] [-E EVENTS_DIR] [SxCxNxT...]`, the model
 * loaded and each shape parsed, so that each benchmark is only its
 * measurement. */
#ifndef PMCTOP_SHAPE_ARGS_H
#define PMCTOP_SHAPE_ARGS_H

#include <stdbool.h>

#include "evdef.h"

struct bench_args {
	int n;                        /* intervals */
	struct model *model;
	int nshapes;
	int (*shapes)[4];             /* sockets, CCX, cores, threads */
	const char **names;           /* each shape as given */
	const char *view;             /* -g VIEW, or NULL for the default */
};

/* Parses argv with n_default intervals (-g VIEW where with_view); -1 when
 * the benchmark should run,
 * else the status to exit with (0 after -h's usage, 2 for a bad argument,
 * 1 for a model that does not load), the message printed. */
int bench_args_parse(int argc, char **argv, const char *prog, int n_default, bool with_view,
		     struct bench_args *a);
void bench_args_free(struct bench_args *a);

#endif
