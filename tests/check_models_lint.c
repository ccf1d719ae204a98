/* check_models_lint.c: loads every model.def shipped under events/ and
 * checks what the loader alone cannot: model names are unique (model_list),
 * every model loads, every event's `sim` formula parses (the loader keeps
 * it as text), every metric's formula is resolved and evaluates
 * without trouble, every view column and bar names a metric, and the
 * generated metric event lists point at real events. With no models present
 * yet it passes trivially. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evdef.h"
#include "expr.h"
#include "sim_workload.h"
#include "util.h"

#define EVENTS TOP_SRCDIR "/events"

static double value_ones(void *ctx, int ref)
{
	const struct model *m = ctx;
	if (ref >= METRIC_REF_BASE && ref < BUILTIN_INTERVAL_S)
		return expr_eval(m->metrics[ref - METRIC_REF_BASE].expr, value_ones, ctx);
	return 1.0;
}

/* A `truth` names the simulator's workload quantities (docs/definitions.md),
 * each bare or as "pmu.quantity" (those of one PMU of the model), and
 * interval_s, nothing else. */
static int truth_name(void *ctx, const char *name)
{
	const struct model *m = ctx;
	if (!strcmp(name, "interval_s"))
		return WQ_COUNT;
	const char *dot = strchr(name, '.');
	if (!dot)
		return wl_quantity_lookup(name);
	char *pmu = xasprintf("%.*s", (int)(dot - name), name);
	int p = model_find_pmu(m, pmu);
	free(pmu);
	return p >= 0 && wl_quantity_lookup(dot + 1) >= 0 ? WQ_COUNT + 1 : -1;
}

/* What the simulated PMU resolves a `sim` formula's names to
 * (backend_sim.c): the workload's quantities. */
static int sim_name(void *ctx, const char *name)
{
	(void)ctx;
	return wl_quantity_lookup(name);
}

static void lint_model(const struct model_info *mi)
{
	struct model *m = fx_model(mi->dir);
	ck_assert_str_eq(m->name, mi->name);
	ck_assert_msg(strcmp(m->name, "generic") == 0 || m->nmatch > 0, "model %s has no match line", m->name);
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		ck_assert_msg(ev->pmu >= 0 && ev->pmu < m->npmus, "%s: event %s", m->name, ev->name);
		ck_assert_msg(*ev->desc, "%s:%d: event %s has no desc", ev->file, ev->line, ev->name);
		/* The loader keeps a `sim` formula as text; the simulated PMU
		 * parses it when it starts (model.h). Each shipped one is
		 * checked here: it parses and names workload quantities only. */
		if (ev->sim_text) {
			int col = 0;
			char *why = NULL;
			struct expr *x = expr_parse(ev->sim_text, &col, &why);
			ck_assert_msg(x && expr_resolve(x, sim_name, NULL, &col, &why) == 0,
				      "%s:%d: event %s sim '%s': column %d: %s", ev->file, ev->line, ev->name,
				      ev->sim_text, col, why ? why : "?");
			expr_free(x);
		}
	}
	for (int j = 0; j < m->nmetrics; j++) {
		const struct metric_def *md = &m->metrics[j];
		ck_assert_ptr_nonnull(md->expr);
		int *ids;
		int n = expr_ids(md->expr, &ids);
		for (int k = 0; k < n; k++)
			ck_assert_msg(ids[k] >= 0 && (ids[k] < m->nevents || ids[k] == BUILTIN_INTERVAL_S ||
						      (ids[k] >= METRIC_REF_BASE && ids[k] < METRIC_REF(m->nmetrics))),
				      "%s: metric %s has a bad reference %d", m->name, md->name, ids[k]);
		free(ids);
		for (int k = 0; k < md->nevents; k++)
			ck_assert(md->events[k] >= 0 && md->events[k] < m->nevents);
		/* With every count 1 a formula gives a number or NaN (e.g. x - y
		 * over x - y), never a crash; a constant formula means nothing. */
		(void)expr_eval(md->expr, value_ones, m);
		ck_assert_msg(md->nevents > 0, "%s:%d: metric %s uses no event", md->file, md->line, md->name);
		if (md->truth) {
			int col = 0;
			char *why = NULL;
			struct expr *x = expr_parse(md->truth, &col, &why);
			ck_assert_msg(x && expr_resolve(x, truth_name, m, &col, &why) == 0, "%s:%d: metric %s truth '%s': %s",
				      md->file, md->line, md->name, md->truth, why ? why : "?");
			expr_free(x);
		}
	}
	/* A portable series is summed at one scope (export_portable.c writes
	 * nothing for one whose events live at several) and does not take the
	 * name of one of pmctop's own counters. */
	for (int i = 0; i < m->nevents; i++)
		for (int t = 0; t < m->events[i].nportable; t++) {
			const char *name = m->events[i].portable[t].name;
			static const char *const own[] = { "event", "intervals", "sampler_cpu_seconds", "scrapes",
							   "scrape_errors" };
			for (size_t k = 0; k < ARRAY_SIZE(own); k++)
				ck_assert_msg(strcmp(name, own[k]), "%s:%d: portable series '%s' is pmctop's own",
					      m->events[i].file, m->events[i].line, name);
			for (int j = 0; j < i; j++)
				for (int u = 0; u < m->events[j].nportable; u++)
					ck_assert_msg(strcmp(m->events[j].portable[u].name, name) ||
						      m->pmus[m->events[j].pmu].scope == m->pmus[m->events[i].pmu].scope,
						      "%s:%d: portable series '%s' sums events of two scopes (%s and %s)",
						      m->events[i].file, m->events[i].line, name, m->events[j].name,
						      m->events[i].name);
		}
	/* The L3 panels' name: Intel's LLC is per socket, AMD's L3 per CCX. */
	if (!strncmp(m->name, "intel-spr", 9))
		ck_assert_msg(m->l3_domain && !strcmp(m->l3_domain, "LLC"), "%s: l3_domain %s", m->name,
			      m->l3_domain ? m->l3_domain : "(none)");
	if (!strncmp(m->name, "amd-", 4))
		ck_assert_msg(m->l3_domain == NULL, "%s: l3_domain %s", m->name, m->l3_domain);
	for (int v = 0; v < m->nviews; v++) {
		const struct view_def *vd = &m->views[v];
		ck_assert_msg(vd->ncols > 0, "%s: view %s has no columns", m->name, vd->name);
		for (int c = 0; c < vd->ncols; c++)
			ck_assert(vd->cols[c].metric >= 0 && vd->cols[c].metric < m->nmetrics);
		for (int b = 0; b < vd->nbar; b++)
			ck_assert(vd->bar[b] >= 0 && vd->bar[b] < m->nmetrics);
	}
	model_free(m);
}

START_TEST(test_every_model)
{
	struct stat sb;
	if (stat(EVENTS, &sb) != 0) {
		fprintf(stderr, "no %s yet: nothing to lint\n", EVENTS);
		return;
	}
	struct model_info *l;
	char *cause = NULL;
	int n = model_list(EVENTS, &l, &cause);
	ck_assert_msg(n >= 0, "%s", cause ? cause : "?");
	for (int i = 0; i < n; i++)
		lint_model(&l[i]);
	fprintf(stderr, "linted %d models under %s\n", n, EVENTS);
	model_list_free(l, n);
}
END_TEST

/* One name, one label, one unit: a metric that exists on two CPUs is
 * spelled the same on both (users compare machines), one stem never has
 * two suffixes (l2_miss_rate here, l2_miss_ratio there), and every unit
 * comes from one vocabulary (docs/units.md). */
static const char *const units[] = {
	"ratio", "%", "count", "slots", "/s", "/kinsn", "/insn", "insn/cyc", "cyc/insn", "uops/insn",
	"ops/insn", "flop/cyc", "GHz", "ns", "cyc", "cycles", "GB/s", "MB/s", "GFLOP/s",
	"W", "insn/J",
};

START_TEST(test_same_names_everywhere)
{
	struct model_info *l;
	char *cause = NULL;
	int n = model_list(EVENTS, &l, &cause);
	ck_assert_msg(n > 0, "%s", cause ? cause : "no models");
	struct model **ms = xcalloc((size_t)n, sizeof(*ms));
	for (int i = 0; i < n; i++) {
		ms[i] = fx_model(l[i].dir);
	}
	int pairs = 0;
	for (int a = 0; a < n; a++)
		for (int i = 0; i < ms[a]->nmetrics; i++) {
			const struct metric_def *x = &ms[a]->metrics[i];
			bool known = false;
			for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
				known |= x->unit && !strcmp(x->unit, units[u]);
			ck_assert_msg(known, "%s: metric %s: unit '%s' is not one of docs/units.md", ms[a]->name,
				      x->name, x->unit ? x->unit : "");
			size_t len = strlen(x->name);
			for (int b = 0; b < n; b++) {
				for (int j = 0; j < ms[b]->nmetrics; j++) {
					const struct metric_def *y = &ms[b]->metrics[j];
					if (!strcmp(x->name, y->name)) {
						ck_assert_msg(!strcmp(x->label ? x->label : "", y->label ? y->label : ""),
							      "%s: label '%s' in %s, '%s' in %s", x->name, x->label,
							      ms[a]->name, y->label, ms[b]->name);
						ck_assert_msg(!strcmp(x->unit, y->unit), "%s: unit '%s' in %s, '%s' in %s",
							      x->name, x->unit, ms[a]->name, y->unit, ms[b]->name);
						pairs += a != b;
					}
					/* "..._ratio" beside "..._rate" of the same stem. */
					if (len > 6 && !strcmp(x->name + len - 6, "_ratio")) {
						char rate[256];
						snprintf(rate, sizeof(rate), "%.*s_rate", (int)(len - 6), x->name);
						ck_assert_msg(strcmp(rate, y->name) != 0, "%s in %s but %s in %s", x->name,
							      ms[a]->name, y->name, ms[b]->name);
					}
				}
			}
		}
	ck_assert_int_gt(pairs, 100);   /* the models do share names */
	for (int i = 0; i < n; i++)
		model_free(ms[i]);
	free(ms);
	model_list_free(l, n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("models_lint");
	TCase *tc = tcase_create("lint");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_every_model);
	tcase_add_test(tc, test_same_names_everywhere);
	suite_add_tcase(s, tc);
	return check_run(s);
}
