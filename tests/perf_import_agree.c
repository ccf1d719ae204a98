/* perf_import_agree.c: for the CPUs pmctop models by hand and Linux perf's
 * files also describe (Zen 3, 4, 5, Sapphire/Emerald Rapids), the two
 * models must give the same figure for every metric they share, on the
 * same simulated counts.
 *
 * Shared: a hand-written metric that names its perf counterpart (`perf
 * NAME`, docs/definitions.md) and the imported metric of that name. Counts:
 * the simulator's workload (sim_workload.h) runs each of a few CPUs for
 * 100 ms; every event of either model counts its `sim` formula over those
 * quantities (the imported models take the hand-written formulas for
 * events of the same name, events/perf/models.txt `simfrom=`), and an
 * event with none counts a share of cycles drawn from its name, the same
 * in both models. Both metrics are then evaluated; they agree when within
 * 1e-6 (relative) or both NaN, once in one unit (a count of the hand
 * model's against perf's figure per thousand instructions: perf's times
 * the instructions / 1000).
 * A disagreement must be listed in the errata table of docs/perf-import.md
 * ("| HAND-MODEL | METRIC | why |"), and a listed one must still disagree.
 * Usage: perf_import_agree ARCH_DIR EVENTS_DIR ERRATA_MD HAND=IMPORTED... */
#include "config.h"
#include "evdef.h"
#include "expr.h"
#include "perf_import.h"
#include "sim_workload.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCPUS 4

struct counts {
	const struct model *m;
	double *ev;           /* per event */
	double *met; int *state;
};

static int quantity(void *ctx, const char *name)
{
	(void)ctx;
	return wl_quantity_lookup(name);
}

static double qvalue(void *ctx, int ref)
{
	return ((const double *)ctx)[ref];
}

/* A share of cycles from the event's name, as the simulator gives an
 * event it has no formula for. */
static double name_share(const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return 0.001 + 0.049 * (double)(h % 1000) / 999.0;
}

static void fill_counts(struct counts *c, const double *q)
{
	const struct model *m = c->m;
	for (int e = 0; e < m->nevents; e++) {
		const struct event_def *ev = &m->events[e];
		double v = NAN;
		if (ev->sim_text) {
			int col;
			char *why = NULL;
			struct expr *x = expr_parse(ev->sim_text, &col, &why);
			if (x && expr_resolve(x, quantity, NULL, &col, &why) == 0)
				v = expr_eval(x, qvalue, (void *)q);
			free(why);
			expr_free(x);
		} else {
			v = name_share(ev->name) * q[WQ_CYCLES];
		}
		c->ev[e] = v;
	}
	memset(c->state, 0, (size_t)m->nmetrics * sizeof(int));
}

static double metric_value(struct counts *c, int j);

/* What an imported figure in unit from is multiplied by to be in the
 * hand-written model's unit to (perf writes bandwidth in MB/s, pmctop in
 * GB/s; a percentage of perf's is a ratio once imported). */
static double unit_factor(const char *from, const char *to)
{
	static const struct { const char *from, *to; double f; } conv[] = {
		{ "MB/s", "GB/s", 1e-3 }, { "GB/s", "MB/s", 1e3 }, { "ratio", "%", 100 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(conv); i++)
		if (!strcmp(from, conv[i].from) && !strcmp(to, conv[i].to))
			return conv[i].f;
	return 1;
}

static double value(void *ctx, int ref)
{
	struct counts *c = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return 0.1;
	if (ref >= METRIC_REF_BASE)
		return metric_value(c, ref - METRIC_REF_BASE);
	return c->ev[ref];
}

static double metric_value(struct counts *c, int j)
{
	if (c->state[j] == 2)
		return c->met[j];
	if (c->state[j] == 1)
		return NAN;
	c->state[j] = 1;
	c->met[j] = expr_eval(c->m->metrics[j].expr, value, c);
	c->state[j] = 2;
	return c->met[j];
}

static void counts_init(struct counts *c, const struct model *m)
{
	c->m = m;
	c->ev = xcalloc((size_t)m->nevents + 1, sizeof(double));
	c->met = xcalloc((size_t)m->nmetrics + 1, sizeof(double));
	c->state = xcalloc((size_t)m->nmetrics + 1, sizeof(int));
}

static void counts_done(struct counts *c)
{
	free(c->ev);
	free(c->met);
	free(c->state);
}

/* Whether the errata table lists "| hand | metric |". */
static bool listed(const char *doc, const char *hand, const char *metric)
{
	char *row = xasprintf("\n| %s | %s |", hand, metric);
	bool in = doc && strstr(doc, row);
	free(row);
	return in;
}

/* The imported metric for perf's name: the one that keeps it as its
 * `perf` (imported under pmctop's name, events/perf/common-*.def, or
 * renamed for a clash), else one of that name. */
static int imported_metric(const struct model *m, const char *perf)
{
	for (int j = 0; j < m->nmetrics; j++)
		if (m->metrics[j].perf && !strcmp(m->metrics[j].perf, perf))
			return j;
	return model_find_metric(m, perf);
}

static int compare(const char *root, const char *events_dir, const char *doc, const char *hand_name,
		   const char *imp_name, int *nshared)
{
	char *why = NULL;
	struct model *hand = model_load_by_name(events_dir, hand_name, &why);
	struct perf_import_opts o = { .smt = true };
	struct model *imp = hand ? perf_import_load(root, events_dir, imp_name, &o, NULL, &why) : NULL;
	if (!hand || !imp) {
		printf("FAIL %s/%s: %s\n", hand_name, imp_name, why);
		free(why);
		model_free(hand);
		return 1;
	}
	struct counts ch, ci;
	counts_init(&ch, hand);
	counts_init(&ci, imp);
	struct wl_params p;
	wl_params_default(&p);
	double *worst = xcalloc((size_t)hand->nmetrics + 1, sizeof(double));
	bool *finite = xcalloc((size_t)hand->nmetrics + 1, sizeof(bool));
	for (int cpu = 0; cpu < NCPUS; cpu++) {
		struct wl_cpu wc;
		double q[WQ_COUNT] = { 0 };
		wl_cpu_init(&wc, &p, cpu);
		wl_cpu_advance(&wc, &p, 0, 100000000, q);
		wl_channel_fill(&p, 1, 100000000, q);
		fill_counts(&ch, q);
		fill_counts(&ci, q);
		for (int j = 0; j < hand->nmetrics; j++) {
			const struct metric_def *md = &hand->metrics[j];
			int k = md->perf ? imported_metric(imp, md->perf) : -1;
			if (k < 0)
				continue;
			double a = metric_value(&ch, j), b = metric_value(&ci, k);
			b *= unit_factor(imp->metrics[k].unit, md->unit);
			/* A count of the hand model's against perf's figure per
			 * thousand instructions (amdzen5's "_pti" metrics): perf's
			 * times the instructions / 1000, as tests/perf_reference.py
			 * converts them. */
			if (!strcmp(md->unit, "count") && !strcmp(imp->metrics[k].unit, "per_1k_instr"))
				b *= q[WQ_INSTRUCTIONS] / 1000;
			double d = isnan(a) && isnan(b) ? 0
				   : isnan(a) || isnan(b) ? INFINITY
				   : fabs(a - b) / fmax(fmax(fabs(a), fabs(b)), 1e-12);
			if (d > worst[j])
				worst[j] = d;
			finite[j] |= isfinite(a) && isfinite(b);
		}
	}
	int bad = 0, shared = 0;
	for (int j = 0; j < hand->nmetrics; j++) {
		const struct metric_def *md = &hand->metrics[j];
		if (!md->perf || imported_metric(imp, md->perf) < 0)
			continue;
		shared++;
		/* Agreeing on NaN alone would prove nothing. */
		if (!finite[j]) {
			printf("FAIL %s: metric %s is never a number on the simulated counts\n", hand_name, md->name);
			bad++;
			continue;
		}
		bool differs = worst[j] > 1e-6, ok_listed = listed(doc, hand_name, md->name);
		if (differs && !ok_listed) {
			printf("FAIL %s: metric %s differs from the imported %s by %.3g (not in the errata)\n", hand_name,
			       md->name, md->perf, worst[j]);
			bad++;
		} else if (!differs && ok_listed) {
			printf("FAIL %s: metric %s is listed as an erratum but agrees now\n", hand_name, md->name);
			bad++;
		} else if (differs) {
			printf("erratum %s %s (%.3g)\n", hand_name, md->name, worst[j]);
		}
	}
	printf("%-10s %-22s %3d shared metrics, %d not agreeing and not listed\n", hand_name, imp_name, shared, bad);
	*nshared += shared;
	free(worst);
	free(finite);
	counts_done(&ch);
	counts_done(&ci);
	model_free(hand);
	model_free(imp);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s ARCH_DIR EVENTS_DIR ERRATA_MD HAND=IMPORTED...\n", argv[0]);
		return 2;
	}
	char *doc = read_text_file(argv[3]);
	if (!doc) {
		perror(argv[3]);
		return 2;
	}
	int bad = 0, shared = 0;
	for (int i = 4; i < argc; i++) {
		char *pair = xstrdup(argv[i]);
		char *eq = strchr(pair, '=');
		if (!eq) {
			fprintf(stderr, "expected HAND=IMPORTED, not %s\n", argv[i]);
			return 2;
		}
		*eq = '\0';
		bad += compare(argv[1], argv[2], doc, pair, eq + 1, &shared);
		free(pair);
	}
	free(doc);
	if (shared == 0) {
		printf("FAIL: no shared metrics\n");
		bad++;
	}
	return bad ? 1 : 0;
}
