/* fuzz_cli.c: libFuzzer harness for the command line. The input, split at
 * NUL bytes, is the argument list after "pmctop" (up to 64 words). An
 * accepted command line goes on as pmctop would take it: the CPU list is
 * parsed against a 256-CPU machine, the --sim spec against the real models
 * (names, aliases, shapes), and a simulated PMU of that model is created
 * with the spec and the model's own "sim" options, on a shape capped at 64
 * CPUs so that each input stays fast. A refused line must give a reason;
 * nothing may crash, leak or hang. Build: see docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "evdef.h"
#include "topo.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAXARGS = 64, NCPU = 256 };

static struct model_info *models;
static int nmodels = -1;

static void try_sim(const char *spec)
{
	char *name = NULL, *cause = NULL;
	int shape[4];
	if (sim_parse_spec(spec, models, nmodels, &name, shape, &cause) < 0) {
		if (!cause)
			abort();
		free(cause);
		return;
	}
	const struct model_info *mi = model_info_find(models, nmodels, name);
	long long total = (long long)shape[0] * shape[1] * shape[2] * shape[3];
	if (mi && total <= 64) {
		struct model *m = model_load_under(FUZZ_EVENTS_DIR, mi->dir, NULL);
		if (!m)
			abort();
		struct topo *t = topo_synthetic(shape[0], shape[1], shape[2], shape[3]);
		struct backend *b = backend_sim.create(m, t, spec, &cause);
		if (b)
			backend_sim.destroy(b);
		else if (!cause)
			abort();
		free(cause);
		topo_free(t);
		model_free(m);
	}
	free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	if (nmodels < 0 && (nmodels = model_list(FUZZ_EVENTS_DIR, &models, NULL)) <= 0)
		abort();
	char *buf = xmalloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = 0;
	char *argv[MAXARGS + 2];
	int argc = 0;
	argv[argc++] = (char *)"pmctop";
	for (char *p = buf; p <= buf + size && argc <= MAXARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	struct options o;
	options_init(&o);
	char *cause = NULL;
	if (cli_parse(argc, argv, &o, &cause) < 0) {
		if (!cause || !*cause)
			abort();
	} else {
		if (o.cpu_list) {
			bool cpus[NCPU];
			char *why = NULL;
			if (cpulist_parse(o.cpu_list, cpus, NCPU, &why) < 0 && !why)
				abort();
			free(why);
		}
		if (o.sim)
			try_sim(o.sim);
	}
	free(cause);
	options_done(&o);
	/* Every word is also tried as a duration, as -d takes it. */
	for (int i = 1; i < argc; i++) {
		double v;
		if (cli_parse_seconds(argv[i], &v) == 0 && !(v > 0))
			abort();
	}
	free(buf);
	return 0;
}
