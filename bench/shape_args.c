/* shape_args.c: the shared command line of bench_frame and bench_history
 * (shape_args.h). */
#include "config.h"
#include "shape_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util.h"

int bench_args_parse(int argc, char **argv, const char *prog, int n_default, bool with_view,
		     struct bench_args *a)
{
	*a = (struct bench_args){ .n = n_default };
	const char *model_name = "amd-zen5";
	const char *events_dir = TOP_SRCDIR "/events";
	int c;
	while ((c = getopt(argc, argv, with_view ? "n:m:E:g:h" : "n:m:E:h")) != -1) {
		switch (c) {
		case 'n': a->n = atoi(optarg); break;
		case 'm': model_name = optarg; break;
		case 'E': events_dir = optarg; break;
		case 'g': a->view = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-n INTERVALS] [-m MODEL] [-E EVENTS_DIR]%s [SxCxNxT...]\n", prog,
				with_view ? " [-g VIEW]" : "");
			return c == 'h' ? 0 : 2;
		}
	}
	if (a->n < 1) {
		fprintf(stderr, "%s: -n must be positive\n", prog);
		return 2;
	}
	static const char *defaults[] = { "1x2x8x2", "2x12x8x2", "2x16x16x2" };
	const char **names = defaults;
	int nnames = (int)ARRAY_SIZE(defaults);
	if (optind < argc) {
		names = (const char **)&argv[optind];
		nnames = argc - optind;
	}
	a->shapes = xcalloc((size_t)nnames, sizeof(*a->shapes));
	a->names = xcalloc((size_t)nnames, sizeof(*a->names));
	for (int i = 0; i < nnames; i++) {
		int *sh = a->shapes[i];
		char tail;
		if (sscanf(names[i], "%dx%dx%dx%d%c", &sh[0], &sh[1], &sh[2], &sh[3], &tail) != 4) {
			fprintf(stderr, "%s: expected SxCxNxT but found '%s'\n", prog, names[i]);
			bench_args_free(a);
			return 2;
		}
		a->names[i] = names[i];
	}
	a->nshapes = nnames;
	char *cause = NULL;
	a->model = model_load_by_name(events_dir, model_name, &cause);
	if (!a->model) {
		fprintf(stderr, "%s: %s\n", prog, cause ? cause : model_name);
		free(cause);
		bench_args_free(a);
		return 1;
	}
	return -1;
}

void bench_args_free(struct bench_args *a)
{
	model_free(a->model);
	free(a->shapes);
	free(a->names);
	*a = (struct bench_args){ 0 };
}
