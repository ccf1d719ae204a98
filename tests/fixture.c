/* fixture.c: the Check suites' shared set-up (fixture.h). */
#include "config.h"
#include "fixture.h"
#include "util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct model *fx_model(const char *which)
{
	char *cause = NULL;
	struct model *m;
	if (!strchr(which, '/'))
		m = model_load_by_name(FX_EVENTS_DIR, which, &cause);
	else if (which[0] == '/')
		m = model_load(which, &cause);
	else {
		char *dir = xasprintf("%s/%s", TOP_SRCDIR, which);
		m = model_load(dir, &cause);
		free(dir);
	}
	ck_assert_msg(m != NULL, "model %s: %s", which, cause ? cause : "?");
	return m;
}

struct topo *fx_topo(const char *shape)
{
	int s[4];
	char tail;
	ck_assert_msg(sscanf(shape, "%dx%dx%dx%d%c", &s[0], &s[1], &s[2], &s[3], &tail) == 4,
		      "shape '%s': expected SOCKETSxCCXxCORESxTHREADS", shape);
	struct topo *t = topo_synthetic(s[0], s[1], s[2], s[3]);
	ck_assert_msg(t != NULL, "shape %s: no such machine", shape);
	return t;
}

int *fx_all_metrics(const struct model *m)
{
	int *all = xmalloc(sizeof(int) * (size_t)(m->nmetrics > 0 ? m->nmetrics : 1));
	for (int i = 0; i < m->nmetrics; i++)
		all[i] = i;
	return all;
}

struct sampler_config fx_sampler_config(const struct model *m, struct topo *t, const char *arg,
					double interval_s)
{
	return (struct sampler_config){
		.model = m, .topo = t, .ops = &backend_sim, .backend_arg = arg,
		.interval_s = interval_s,
	};
}

struct sampler *fx_sampler(const struct sampler_config *cfg)
{
	char *cause = NULL;
	struct sampler *s = sampler_new(cfg, &cause);
	ck_assert_msg(s != NULL, "sampler: %s", cause ? cause : "?");
	return s;
}

struct snapshot *fx_step(struct sampler *s)
{
	char *cause = NULL;
	struct snapshot *snap = sampler_step(s, &cause);
	ck_assert_msg(snap != NULL, "step: %s", cause ? cause : "?");
	return snap;
}

struct backend *fx_sim(const struct model *m, struct topo *t, const char *arg)
{
	char *cause = NULL;
	struct backend *b = backend_sim.create(m, t, arg, &cause);
	ck_assert_msg(b != NULL, "simulator of %s (%s): %s", m->name, arg ? arg : "", cause ? cause : "?");
	return b;
}

void fx_real_open(struct fx_real *r, const struct model *m)
{
	char *cause = NULL;
	r->t = topo_load("/sys", &cause);
	ck_assert_msg(r->t != NULL, "%s", cause);
	r->b = backend_perf.create(m, r->t, NULL, &cause);
	ck_assert_msg(r->b != NULL, "%s", cause);
}

void fx_real_close(struct fx_real *r)
{
	backend_perf.destroy(r->b);
	topo_free(r->t);
}

void fx_burn_ms(int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
	volatile unsigned x = 0;
	while (now_ns() < end)
		x++;
}
