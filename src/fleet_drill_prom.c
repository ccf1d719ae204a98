/* fleet_drill_prom.c: a drilled host's rows from Prometheus (fleet.h,
 * fleet_drill): the fleet's column queries with the host's instance
 * added to the selector and grouped by the labels that place a row,
 * `by (instance, cpu, core, ccx, socket)`, so that each answer holds the
 * narrowest rows the exporter publishes (--export-scope) whatever they
 * are: still one query per column per refresh, and one each for the
 * rows' errors and coverages. The same query holds the column per core
 * and per CCX (the CPUs' terms summed by their labels: the CCX panels)
 * and the host's own figure. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "util.h"

static const char BY[] = "by (instance, cpu, core, ccx, socket) ";

/* A term's query; the CPU count of a CPU row is 1: the rows that have a
 * cpu label counted (a host's pmctop_online_cpus cannot be split). */
static char *term(const struct fleet *f, const struct fleet_term *t, const char *sel, const char *by)
{
	if (t->agg == FLEET_SUM && t->series && !strcmp(t->series, "pmctop_online_cpus"))
		return xasprintf("count %s(pmctop_busy_seconds_total{%s,cpu!=\"\"})", by, sel);
	return fleet_term_promql_by(t, sel, f->window_s, by);
}

/* A column's ratio grouped by `by`. */
static char *ratio(const struct fleet *f, const struct fleet_col *c, const char *sel, const char *by)
{
	char *n = term(f, &c->num, sel, by);
	if (c->den.agg == FLEET_CONST && c->den.value == 1)
		return n;
	char *d = term(f, &c->den, sel, by);
	char *q = xasprintf("(%s) / (%s)", n, d);
	free(n);
	free(d);
	return q;
}

/* The label that marks a core's or a CCX's figure in an answer (the CCX
 * panels'), which label_replace adds to tell it from a row's. */
static const char GROUP[] = "pmctop_drill";

/* A column's rows, its figure per core and per CCX (the CPUs' terms
 * summed by their core or ccx label, marked GROUP="core" or "ccx") and,
 * labelled by instance alone, the host's own figure (the header's line):
 * `(ROWS) or (CORES) or (CCX) or (HOST)`, one query still. */
static char *column_query(const struct fleet *f, const struct fleet_col *c, const char *sel)
{
	char *rows = ratio(f, c, sel, BY);
	char *cores = ratio(f, c, sel, "by (instance, core) ");
	char *ccx = ratio(f, c, sel, "by (instance, ccx) ");
	char *host = fleet_col_promql(c, sel, f->window_s);
	char *q = xasprintf("(%s) or label_replace(%s, \"%s\", \"core\", \"\", \"\") "
			    "or label_replace(%s, \"%s\", \"ccx\", \"\", \"\") or (%s)",
			    rows, cores, GROUP, ccx, GROUP, host);
	free(rows);
	free(cores);
	free(ccx);
	free(host);
	return q;
}

/* A core's (0) or CCX's (1) figure: which, or -1 for a row's or the
 * host's. */
static int group_of(const struct fleet_sample *x)
{
	return sample_is(x, GROUP, "core") ? 0 : sample_is(x, GROUP, "ccx") ? 1 : -1;
}

/* The narrowest placing label of a sample (-1: none). */
static int scope(const struct fleet_sample *x)
{
	for (int k = 0; k < 4; k++) {
		char *v = fleet_label(x->labels, fleet_placing[k]);
		bool has = v != NULL;
		free(v);
		if (has)
			return k;
	}
	return -1;
}

/* A gauge of the whole host (an age) is each row's too; a sum or a rate
 * of one cannot be split. */
static bool whole_ok(const struct fleet_term *t)
{
	return t->agg == FLEET_CONST || t->agg == FLEET_AGE || t->agg == FLEET_MIN || t->agg == FLEET_MAX ||
	       t->agg == FLEET_AVG;
}

/* The value of label key in x as a row id, or -1. */
static long row_of(const struct fleet_sample *x, const char *key)
{
	char *v = fleet_label(x->labels, key);
	long id = v ? strtol(v, NULL, 10) : -1;
	free(v);
	return id;
}

/* The row of id, or -1. */
static int row_index(const struct drill_rows *d, long id)
{
	for (int r = 0; r < d->n; r++)
		if (d->ids[r] == id)
			return r;
	return -1;
}

char *fleet_host_selector(const struct fleet *f, const char *name)
{
	char *inst = NULL;
	for (const char *p = name; *p; p++)
		xappendf(&inst, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
	char *sel = xasprintf("%s%sinstance=\"%s\"", f->sel, *f->sel ? "," : "", inst ? inst : "");
	free(inst);
	return sel;
}

int fleet_drill_prom(struct fleet *f, const struct host *h, struct drill_rows *d, char **cause)
{
	int nc = f->cols->n, nq = nc + 2;
	char *sel = fleet_host_selector(f, h->name);
	char **q = xcalloc((size_t)nq, sizeof(char *));
	for (int c = 0; c < nc; c++)
		q[c] = column_query(f, &f->cols->cols[c], sel);
	q[nc] = xasprintf("max by (instance, metric, cpu, core, ccx, socket) (pmctop_relative_error_ratio{%s})", sel);
	q[nc + 1] = xasprintf("min by (instance, metric, cpu, core, ccx, socket) (pmctop_coverage_ratio{%s})", sel);
	free(sel);
	struct fleet_samples *res = xcalloc((size_t)nq, sizeof(*res));
	int rc = fleet_prom_queries(f, nq, q, res, cause);
	if (rc == 0) {
		/* The rows: the narrowest placing label any answer has. */
		int k = 4;
		for (int c = 0; c < nc; c++)
			for (int i = 0; i < res[c].n; i++) {
				if (group_of(&res[c].v[i]) >= 0)
					continue;
				int s = scope(&res[c].v[i]);
				if (s >= 0 && s < k)
					k = s;
			}
		d->k = k < 4 ? k : -1;
		if (d->k < 0)
			rc = set_cause(cause, "%s: Prometheus has no per-row series of it (no cpu, core, ccx or socket label)",
				       h->name);
	}
	if (rc == 0) {
		const char *key = fleet_placing[d->k];
		for (int c = 0; c < nc; c++)
			for (int i = 0; i < res[c].n; i++)
				if (group_of(&res[c].v[i]) < 0 && scope(&res[c].v[i]) == d->k)
					drill_row_place(d, drill_row_add(f, d, row_of(&res[c].v[i], key)),
							res[c].v[i].labels);
		for (int c = 0; c < nc; c++) {
			const struct fleet_col *col = &f->cols->cols[c];
			int wider = -1;
			double whole = NAN;
			bool any = false;
			for (int i = 0; i < res[c].n; i++) {
				const struct fleet_sample *x = &res[c].v[i];
				int g = group_of(x);
				if (g >= 0) {
					/* Of the CPUs' cores and CCX alone. */
					long id = row_of(x, g ? "ccx" : "core");
					if (d->k == 0 && id >= 0) {
						double v = col->scale * x->value;
						int e = drill_group_add(f, d, g, id);
						d->grp[g].v[e * nc + c] = isfinite(v) ? v : NAN;
					}
					continue;
				}
				int s = scope(x);
				if (s != d->k) {
					if (s < 0)
						whole = x->value;
					else if (wider < 0 || s < wider)
						wider = s;
					continue;
				}
				long id = row_of(x, key);
				int r = drill_row_add(f, d, id);
				double v = col->scale * x->value;
				d->v[r * nc + c] = isfinite(v) ? v : NAN;
				any = true;
			}
			d->host[c] = isfinite(col->scale * whole) ? col->scale * whole : NAN;
			if (!any && wider > 0) {
				static const char *const per[] = { "", "per core only", "per CCX only", "per socket only" };
				d->why[c] = per[wider];
			} else if (!any && !isnan(whole) && whole_ok(&col->num) && whole_ok(&col->den)) {
				/* A gauge of the whole host (an age): each row's too. */
				for (int r = 0; r < d->n; r++)
					d->v[r * nc + c] = d->host[c];
			} else if (!any && !isnan(whole)) {
				d->why[c] = "the exporter publishes them for the whole host only";
			}
			for (int r = 0; r < d->n; r++) {
				int x = r * nc + c;
				if (isnan(d->v[x]))
					continue;
				/* Not known until the exporter's gauge says. */
				d->rse[x] = col->err ? NAN : 0;
				d->cov[x] = 1;
			}
			if (!col->err)
				continue;
			for (int e = 0; e < 2; e++)
				for (int i = 0; i < res[nc + e].n; i++) {
					const struct fleet_sample *x = &res[nc + e].v[i];
					if (scope(x) != d->k || !sample_is(x, "metric", col->err))
						continue;
					int r = row_index(d, row_of(x, key));
					if (r < 0 || isnan(d->v[r * nc + c]))
						continue;
					if (e == 0)
						d->rse[r * nc + c] = x->value;
					else
						d->cov[r * nc + c] = x->value;
				}
		}
	}
	for (int i = 0; i < nq; i++) {
		free(q[i]);
		fleet_samples_done(&res[i]);
	}
	free(q);
	free(res);
	return rc;
}
