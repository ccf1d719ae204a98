/* check_models_lint.c: loads every model.def shipped under events/ and
 * checks what the loader alone cannot: model names are unique (model_list),
 * every model loads, every metric's formula is resolved and evaluates
 * without trouble, every view column and bar names a metric, and the
 * generated metric event lists point at real events. With no models present
 * yet it passes trivially. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evdef.h"
#include "expr.h"
#include "util.h"

#define EVENTS TOP_SRCDIR "/events"

static double value_ones(void *ctx, int ref)
{
	const struct model *m = ctx;
	if (ref >= METRIC_REF_BASE && ref < BUILTIN_INTERVAL_S)
		return expr_eval(m->metrics[ref - METRIC_REF_BASE].expr, value_ones, ctx);
	return 1.0;
}

static void lint_model(const struct model_info *mi)
{
	char *cause = NULL;
	struct model *m = model_load(mi->dir, &cause);
	ck_assert_msg(m != NULL, "model %s: %s", mi->name, cause ? cause : "?");
	ck_assert_str_eq(m->name, mi->name);
	ck_assert_msg(strcmp(m->name, "generic") == 0 || m->nmatch > 0, "model %s has no match line", m->name);
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		ck_assert_msg(ev->pmu >= 0 && ev->pmu < m->npmus, "%s: event %s", m->name, ev->name);
		ck_assert_msg(*ev->desc, "%s:%d: event %s has no desc", ev->file, ev->line, ev->name);
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

int main(void)
{
	Suite *s = suite_create("models_lint");
	TCase *tc = tcase_create("lint");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_every_model);
	suite_add_tcase(s, tc);
	return check_run(s);
}
