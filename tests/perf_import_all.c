/* perf_import_all.c: loads every x86 and Arm CPU directory of Linux perf's
 * pmu-events files (tests/e2e_perf_import.sh finds them) and checks each
 * imported model the way pmctop would use it:
 *  - every core and uncore event encodes into a perf_event_attr through
 *    the field layouts the kernel publishes in sysfs (format/ files, a
 *    fixture made here from Linux 6.12's drivers);
 *  - every metric evaluates to a finite number on random positive counts;
 *  - the metrics left out are each given a reason of a known kind.
 * Then each CPUINFO=MODEL argument: the model pmctop picks for a machine
 * whose /proc/cpuinfo is the file CPUINFO, among the hand-written and the
 * imported models, must be MODEL.
 * Usage: perf_import_all ARCH_DIR EVENTS_DIR SKIPPED_OUT [CPUINFO=MODEL...].
 * Prints one line per CPU directory; exits 1 on any failure. */
#include "config.h"
#include "encode.h"
#include "evdef.h"
#include "expr.h"
#include "perf_import.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Field layouts of the kernel's PMU drivers (format/ files), by PMU; Intel's
 * "any" (AnyThread) is in its formats from architectural perfmon v3 on,
 * where the part has not deprecated it. */
static const struct { const char *pmu; const char *fields; } formats[] = {
	{ "cpu", "event=config:0-7 umask=config:8-15 edge=config:18 any=config:21 inv=config:23 cmask=config:24-31 "
		 "offcore_rsp=config1:0-63 ldlat=config1:0-15 frontend=config1:0-23" },
	{ "cpu-amd", "event=config:0-7,32-35 umask=config:8-15 edge=config:18 inv=config:23 cmask=config:24-31" },
	{ "armv8_pmuv3_0", "event=config:0-15" },
	{ "msr", "event=config:0-63" },
	{ "amd_l3", "event=config:0-7 umask=config:8-15 coreid=config:42-44 enallslices=config:46 "
		    "enallcores=config:47 sliceid=config:48-50 threadmask=config:56-57" },
	{ "amd_umc_0", "event=config:0-7 rdwrmask=config:8-9" },
	{ "amd_df", "event=config:0-7,32-35,59-60 umask=config:8-15,24-27" },
	/* Intel uncore (uncore_snbep.c): the CHA's umask goes on above bit
	 * 32 from Ice Lake-SP on (perf's files give Sapphire Rapids and Sierra
	 * Forest CXL events unit masks of up to 37 bits, which this fixture
	 * holds); IIO has channel and function masks. */
	{ "uncore", "event=config:0-7 umask=config:8-15,32-63 edge=config:18 inv=config:23 thresh=config:24-31 "
		    "ch_mask=config:36-47 fc_mask=config:48-50 filter_opc=config1:20-28 filter_opc0=config1:9-18 "
		    "filter_opc1=config1:19-28 filter_tid=config1:0-8 filter_nid=config1:10-17 filter_state=config1:18-22 "
		    "filter_link=config1:0-3 filter_nc=config1:62 filter_c6=config1:61 filter_isoc=config1:63 "
		    "filter_rem=config1:32 filter_loc=config1:33 filter_all_op=config1:35 filter_not_nm=config1:36 "
		    "filter_nm=config1:37 filter_band0=config1:0-7 filter_band1=config1:8-15 "
		    "filter_band2=config1:16-23 filter_band3=config1:24-31 occ_sel=config:14-15 occ_invert=config:30 "
		    "occ_edge=config:31 umask_ext=config:32-63 umask_ext2=config:32-63 umask_ext3=config:32-63 "
		    "umask_ext4=config:32-63 port_en=config1:0-7 rs=config1:0-7 ch=config:36-43 ch_mask2=config:36-47" },
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* Writes sysfs_root/bus/event_source/devices/NAME/{type,format/...}. */
static void make_pmu(const char *root, const char *name, const char *fields, int type)
{
	char *d = xasprintf("%s/bus/event_source/devices/%s/format", root, name);
	char *cmd = xasprintf("mkdir -p '%s'", d);
	if (system(cmd) != 0)
		exit(2);
	free(cmd);
	char *t = xasprintf("%s/bus/event_source/devices/%s/type", root, name);
	char *v = xasprintf("%d\n", type);
	write_file(t, v);
	free(t);
	free(v);
	char *copy = xstrdup(fields), *save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		*eq = '\0';
		char *p = xasprintf("%s/%s", d, w);
		char *val = xasprintf("%s\n", eq + 1);
		write_file(p, val);
		free(p);
		free(val);
	}
	free(copy);
	free(d);
}

/* The concrete sysfs PMU standing for a definition's perf name (a glob
 * "uncore_cha_*" becomes "uncore_cha_0"), made in the fixture on first use. */
static char *concrete_pmu(const char *root, const struct pmu_def *pd, bool amd, int *ntype)
{
	char *name = xstrdup(pd->perf_name);
	char *star = strchr(name, '*');
	if (star)
		strcpy(star, "0");
	char *probe = xasprintf("%s/bus/event_source/devices/%s/type", root, name);
	struct stat sb;
	if (stat(probe, &sb) != 0) {
		const char *fields = formats[ARRAY_SIZE(formats) - 1].fields;
		const char *key = !strcmp(name, "cpu") && amd ? "cpu-amd" : name;
		for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
			if (!strcmp(formats[i].pmu, key))
				fields = formats[i].fields;
		make_pmu(root, name, fields, !strcmp(name, "cpu") ? 4 : 20 + (*ntype)++);
	}
	free(probe);
	return name;
}

struct eval { const struct model *m; unsigned seed; double *ev; double *met; int *state; };

static double eval_metric(struct eval *e, int j);

static double value(void *ctx, int ref)
{
	struct eval *e = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return 1.0;
	if (ref >= METRIC_REF_BASE)
		return eval_metric(e, ref - METRIC_REF_BASE);
	return e->ev[ref];
}

static double eval_metric(struct eval *e, int j)
{
	if (e->state[j] == 2)
		return e->met[j];
	if (e->state[j] == 1)
		return NAN;          /* a cycle: evdef refuses these */
	e->state[j] = 1;
	e->met[j] = expr_eval(e->m->metrics[j].expr, value, e);
	e->state[j] = 2;
	return e->met[j];
}

/* The kinds of reason a metric may be left out for (perf_import_expr.c,
 * perf_import_events.c, perf_import_metrics.c). */
static const char *const known_reasons[] = {
	"pmctop formulas have no conditions", "is not known when the model is imported", "is not imported",
	"uses metric", "no event or metric", "has no pmctop equivalent", "no event '", "at most",
};

static int check_picks(const char *root, const char *events_dir, int n, char **pairs)
{
	struct model_info *l;
	char *cause = NULL;
	int nl = model_list(events_dir, &l, &cause);
	if (nl < 0 || perf_import_join(root, events_dir, &l, &nl, &cause) < 0) {
		printf("FAIL: model list: %s\n", cause);
		free(cause);
		return 1;
	}
	int bad = 0;
	for (int i = 0; i < n; i++) {
		char *file = xstrdup(pairs[i]);
		char *want = strrchr(file, '=');
		if (!want) {
			printf("FAIL: expected CPUINFO=MODEL, not %s\n", pairs[i]);
			bad++;
			free(file);
			continue;
		}
		*want++ = '\0';
		char *note = NULL;
		char *got = perf_import_pick(file, root, l, nl, &note);
		const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		printf("%-32s -> %s%s\n", base, got, strcmp(got, want) ? "  FAIL" : "");
		bad += strcmp(got, want) != 0;
		free(got);
		free(note);
		free(file);
	}
	model_list_free(l, nl);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ARCH_DIR EVENTS_DIR SKIPPED_OUT [CPUINFO=MODEL...]\n", argv[0]);
		return 2;
	}
	const char *root = argv[1], *events_dir = argv[2];
	FILE *skipped_out = fopen(argv[3], "w");
	if (!skipped_out) {
		perror(argv[3]);
		return 2;
	}
	char tmpl[] = "/tmp/pmctop-sysfs-XXXXXX";
	char *sysfs = mkdtemp(tmpl);
	if (!sysfs)
		return 2;
	struct model_info *l;
	char *cause = NULL;
	int n = perf_import_list(root, events_dir, &l, &cause);
	if (n <= 0) {
		fprintf(stderr, "FAIL: no imported models: %s\n", cause ? cause : "none listed");
		return 1;
	}
	int failures = 0, total_nan = 0, total_ev = 0, total_met = 0, total_skip = 0, ntype = 0;
	for (int i = 0; i < n; i++) {
		char *skipped = NULL;
		/* A two-socket machine of 64 CPUs, for perf's topology literals. */
		struct perf_import_opts o = { .smt = true, .ncpus_online = 64, .ncores = 32, .npackages = 2, .ndies = 2 };
		struct model *m = perf_import_load(root, events_dir, l[i].name, &o, &skipped, &cause);
		if (!m) {
			printf("FAIL %s: %s\n", l[i].name, cause);
			free(cause);
			cause = NULL;
			failures++;
			continue;
		}
		bool amd = strstr(l[i].dir, "/amdzen") != NULL;
		/* A sysfs tree per model: AMD's cpu PMU is laid out unlike Intel's. */
		char *msysfs = xasprintf("%s/%s", sysfs, m->name);
		int nev = 0, bad_ev = 0, bad_met = 0;
		for (int e = 0; e < m->nevents; e++) {
			const struct event_def *ev = &m->events[e];
			const struct pmu_def *pd = &m->pmus[ev->pmu];
			/* The hardware PMUs, and the msr PMU's registers. */
			if (pd->kind != PMU_CORE && pd->kind != PMU_UNCORE && ev->enc != ENC_FIELDS)
				continue;
			nev++;
			char *pmu = concrete_pmu(msysfs, pd, amd, &ntype);
			struct perf_event_attr attr;
			memset(&attr, 0, sizeof(attr));
			char *why = NULL;
			if (encode_event(m, ev, pmu, msysfs, &attr, &why) < 0) {
				if (bad_ev++ < 5)
					printf("FAIL %s: event %s does not encode: %s\n", m->name, ev->name, why);
				failures++;
			}
			free(why);
			free(pmu);
		}
		/* Random positive counts, as a counter could give them. */
		struct eval ev = { .m = m, .seed = 12345u + (unsigned)i };
		ev.ev = xcalloc((size_t)m->nevents + 1, sizeof(double));
		ev.met = xcalloc((size_t)m->nmetrics + 1, sizeof(double));
		ev.state = xcalloc((size_t)m->nmetrics + 1, sizeof(int));
		/* Three draws: random counts are not a consistent machine, and a
		 * fraction perf clips at 0 (max(1 - (a + b + c), 0)) divides
		 * others by 0 on some draws. NaN on all three is listed. */
		bool *finite = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
		for (int draw = 0; draw < 3; draw++) {
			for (int e = 0; e < m->nevents; e++)
				ev.ev[e] = 1 + (double)(rand_r(&ev.seed) % 1000000) * 1000.0 * (draw + 1);
			memset(ev.state, 0, (size_t)m->nmetrics * sizeof(int));
			for (int j = 0; j < m->nmetrics; j++)
				finite[j] |= isfinite(eval_metric(&ev, j));
		}
		for (int j = 0; j < m->nmetrics; j++) {
			if (finite[j])
				continue;
			bad_met++;
			fprintf(skipped_out, "%s %s: evaluates to NaN on random counts (a zero divisor): %s\n", m->name,
				m->metrics[j].name, m->metrics[j].formula);
		}
		free(finite);
		total_nan += bad_met;
		int nskip = 0;
		for (char *save = NULL, *line = skipped ? strtok_r(skipped, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			nskip++;
			fprintf(skipped_out, "%s %s\n", m->name, line);
			bool known = false;
			for (size_t k = 0; k < ARRAY_SIZE(known_reasons); k++)
				known |= strstr(line, known_reasons[k]) != NULL;
			if (!known) {
				printf("FAIL %s: metric left out for an unexpected reason: %s\n", m->name, line);
				failures++;
			}
		}
		printf("%-24s %5d events, %4d metrics (%d NaN), %3d metrics left out, %d views\n", m->name, nev,
		       m->nmetrics, bad_met, nskip, m->nviews);
		total_ev += nev;
		total_met += m->nmetrics;
		total_skip += nskip;
		free(msysfs);
		free(ev.ev);
		free(ev.met);
		free(ev.state);
		free(skipped);
		model_free(m);
	}
	printf("%d models: %d events encoded, %d metrics evaluated (%d NaN on every random draw), "
	       "%d metrics left out (reasons in %s)\n", n, total_ev, total_met, total_nan, total_skip, argv[3]);
	/* A zero divisor now and then is the data; many would be a
	 * translation that lost a term. */
	if (total_nan * 100 > total_met) {
		printf("FAIL: %d of %d metrics are NaN on random counts\n", total_nan, total_met);
		failures++;
	}
	model_list_free(l, n);
	fclose(skipped_out);
	failures += check_picks(root, events_dir, argc - 4, argv + 4);
	char *rm = xasprintf("rm -rf '%s'", sysfs);
	if (system(rm) != 0)
		failures++;
	free(rm);
	if (failures)
		printf("FAIL: %d problems\n", failures);
	return failures ? 1 : 0;
}
