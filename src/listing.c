/* listing.c: the --list-* output. Tables are padded to their widest entry so
 * that they read well in a terminal and still split cleanly on whitespace;
 * descriptions come last because they hold spaces. Everything goes through
 * text_filter(), so that no text from a definition file reaches the
 * terminal raw even if the loader let some through. */
#include "config.h"
#include "listing.h"
#include "derive_tree.h"
#include "encode.h"
#include "evdef.h"
#include "expr.h"
#include "sched.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Closes the filter over the caller's stream: n, or -1 with errno set on
 * a write error. */
static int finish(FILE *out, int n)
{
	return fclose(out) == 0 ? n : -1;
}

/* Writes the match lines compactly: lines that differ only in the model
 * share their vendor and family, "GenuineIntel family=0x6 model=0x25,0x2c". */
static void match_text(char *buf, size_t size, const struct model_match *mm, int n)
{
	FILE *f = fmemopen(buf, size, "w");
	if (!f) {
		snprintf(buf, size, "?");
		return;
	}
	for (int i = 0; i < n; i++) {
		bool any_model = mm[i].model_lo == 0 && mm[i].model_hi == 0x7fffffff;
		bool same = i > 0 && !strcmp(mm[i].vendor, mm[i - 1].vendor) && mm[i].family == mm[i - 1].family &&
			    !any_model && !(mm[i - 1].model_lo == 0 && mm[i - 1].model_hi == 0x7fffffff);
		if (same) {
			fputc(',', f);
		} else {
			fprintf(f, "%s%s", i ? "; " : "", mm[i].vendor);
			if (mm[i].family >= 0)
				fprintf(f, " family=0x%x", (unsigned)mm[i].family);
			if (!any_model)
				fputs(" model=", f);
		}
		if (any_model)
			continue;
		if (mm[i].model_lo == mm[i].model_hi)
			fprintf(f, "0x%02x", (unsigned)mm[i].model_lo);
		else
			fprintf(f, "0x%02x-0x%02x", (unsigned)mm[i].model_lo, (unsigned)mm[i].model_hi);
	}
	if (n == 0)
		fputs("-", f);
	fclose(f);
}

int listing_models(FILE *dest, const char *events_dir, char **cause)
{
	FILE *out = text_filter(dest);
	struct model_info *l;
	int n = model_list(events_dir, &l, cause);
	if (n < 0) {
		fclose(out);
		return -1;
	}
	int wn = 5, wa = 5;
	char buf[512], shape[48];
	for (int i = 0; i < n; i++) {
		if ((int)strlen(l[i].name) > wn)
			wn = (int)strlen(l[i].name);
		if (l[i].alias && (int)strlen(l[i].alias) > wa)
			wa = (int)strlen(l[i].alias);
	}
	/* The alias and shape are what --sim takes; the match line says which
	 * CPUs pick the model by themselves. */
	fprintf(out, "%-*s  %-*s  %-9s  %s\n", wn, "MODEL", wa, "ALIAS", "SIM SHAPE", "DESCRIPTION");
	for (int i = 0; i < n; i++) {
		const int *sh = l[i].sim_shape;
		if (sh[0] > 0)
			snprintf(shape, sizeof(shape), "%dx%dx%dx%d", sh[0], sh[1], sh[2], sh[3]);
		else
			snprintf(shape, sizeof(shape), "-");
		match_text(buf, sizeof(buf), l[i].match, l[i].nmatch);
		fprintf(out, "%-*s  %-*s  %-9s  %s\n", wn, l[i].name, wa, l[i].alias ? l[i].alias : "-", shape,
			l[i].desc);
		fprintf(out, "%-*s  matches %s\n", wn, "", buf);
	}
	model_list_free(l, n);
	return finish(out, n);
}

/* How an event is counted, as a user would write it: the vendor's raw
 * notation for raw values, otherwise the libpfm4, sysfs or perf name. */
static char *event_encoding(const struct model *m, const struct event_def *ev)
{
	const struct pmu_def *p = &m->pmus[ev->pmu];
	switch (ev->enc) {
	case ENC_RAW:
		return encode_vendor_notation(m, ev);
	case ENC_PFM:
		return xasprintf("pfm:%s", ev->spec);
	case ENC_FIELDS:
		return xasprintf("%s/%s/", p->perf_name, ev->spec);
	case ENC_PERF:
		return xstrdup(ev->spec);
	case ENC_PROC:
		return xasprintf("/proc/stat:%s", ev->spec);
	}
	return xstrdup("?");
}

static bool event_matches(const struct event_def *ev, const char *pattern)
{
	return !pattern || !*pattern || strcasestr(ev->name, pattern) || strcasestr(ev->desc, pattern);
}

int listing_events(FILE *dest, const struct model *m, const char *pattern)
{
	FILE *out = text_filter(dest);
	int wn = 5, wp = 3, we = 8, n = 0;
	char **enc = xcalloc((size_t)m->nevents, sizeof(char *));
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		if (!event_matches(ev, pattern))
			continue;
		enc[i] = event_encoding(m, ev);
		if ((int)strlen(ev->name) > wn)
			wn = (int)strlen(ev->name);
		if ((int)strlen(m->pmus[ev->pmu].name) > wp)
			wp = (int)strlen(m->pmus[ev->pmu].name);
		if ((int)strlen(enc[i]) > we)
			we = (int)strlen(enc[i]);
		n++;
	}
	if (n)
		fprintf(out, "%-*s  %-*s  %-*s  %s\n", wn, "EVENT", wp, "PMU", we, "ENCODING", "DESCRIPTION");
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		if (!enc[i])
			continue;
		fprintf(out, "%-*s  %-*s  %-*s  %s", wn, ev->name, wp, m->pmus[ev->pmu].name, we, enc[i], ev->desc);
		if (ev->requires && ev->fallback >= 0)
			fprintf(out, " [without %s/%s: counted as %s]", m->pmus[ev->pmu].perf_name, ev->requires,
				m->events[ev->fallback].name);
		fputc('\n', out);
		free(enc[i]);
	}
	free(enc);
	return finish(out, n);
}

/* expr_format callback: events in the vendor's notation; metric names and
 * interval_s stay as they are. The strings live until the listing is done. */
struct raw_names { const struct model *m; char **s; };

static const char *raw_rename(void *ctx, int ref, const char *name)
{
	struct raw_names *rn = ctx;
	(void)name;
	if (ref < 0 || ref >= rn->m->nevents)
		return NULL;
	if (!rn->s[ref])
		rn->s[ref] = encode_vendor_notation(rn->m, &rn->m->events[ref]);
	return rn->s[ref];
}

int listing_metrics(FILE *dest, const struct model *m, bool raw)
{
	FILE *out = text_filter(dest);
	struct raw_names rn = { .m = m, .s = xcalloc((size_t)m->nevents + 1, sizeof(char *)) };
	int wn = 6;
	for (int i = 0; i < m->nmetrics; i++)
		if ((int)strlen(m->metrics[i].name) > wn)
			wn = (int)strlen(m->metrics[i].name);
	fprintf(out, "%-*s  %-6s  %-10s  %s\n", wn, "METRIC", "SCOPE", "UNIT", "GROUPS");
	for (int i = 0; i < m->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[i];
		fprintf(out, "%-*s  %-6s  %-10s  ", wn, md->name, scope_name(md->scope), *md->unit ? md->unit : "-");
		for (int g = 0; g < md->ngroups; g++)
			fprintf(out, "%s%s", g ? "," : "", md->groups[g]);
		fprintf(out, "%s\n", md->ngroups ? "" : "-");
		fprintf(out, "    %s%s%s\n", md->label, *md->desc ? ": " : "", md->desc);
		char *f = raw ? expr_format(md->expr, raw_rename, &rn) : NULL;
		fprintf(out, "    = %s\n", f ? f : md->formula);
		free(f);
		if (md->perf)
			fprintf(out, "    perf: %s\n", md->perf);
		if (md->note)
			fprintf(out, "    note: %s\n", md->note);
	}
	for (int i = 0; i < m->nevents; i++)
		free(rn.s[i]);
	free(rn.s);
	return finish(out, m->nmetrics);
}

/* Which of view v's figures are counted throughout the interval and which
 * rotate, as the scheduler plans the view on this model's counters (the
 * NMI watchdog on, as it usually is), and the pins that do not fit. */
static void view_schedule(FILE *out, const struct model *m, const struct view_def *v, int indent)
{
	int *ms = xmalloc(sizeof(int) * ((size_t)v->ncols + (size_t)v->nbar + 1)), n = 0;
	for (int c = 0; c < v->ncols; c++)
		ms[n++] = v->cols[c].metric;
	for (int c = 0; c < v->nbar; c++)
		ms[n++] = v->bar[c];
	int nplan = 0, *plan_ms = tree_closure(m, ms, n, &nplan);
	int *fc = xcalloc((size_t)m->npmus + 1, sizeof(int));
	for (int p = 0; p < m->npmus; p++) {
		const struct pmu_def *pd = &m->pmus[p];
		fc[p] = pd->counters - (pd->kind == PMU_CORE && !pd->nmi_takes_fixed ? pd->nmi_reserved : 0);
	}
	struct sched_request rq = { nplan, plan_ms, 0, NULL, fc, NULL, NULL, v->npin, v->pin };
	struct sched_plan *plan = sched_plan(m, &rq, NULL);
	if (plan) {
		for (int pass = 0; pass < 2; pass++) {
			bool any = false;
			for (int c = 0; c < n; c++) {
				bool dup = false;
				for (int k = 0; k < c && !dup; k++)
					dup = ms[k] == ms[c];
				bool planned = false;
				for (int k = 0; k < plan->nmetrics && !planned; k++)
					planned = plan->metrics[k] == ms[c];
				if (dup || !planned || sched_metric_throughout(plan, m, ms[c]) != (pass == 0))
					continue;
				if (!any)
					fprintf(out, "%s%*s%s:", pass ? ";" : "", pass ? 1 : indent, "",
						pass ? "rotating" : "counted throughout");
				fprintf(out, " %s", m->metrics[ms[c]].name);
				any = true;
			}
			if (pass == 0 && !any)
				fprintf(out, "%*scounted throughout: -", indent, "");
		}
		fputc('\n', out);
		for (int i = 0; i < plan->nunpinned; i++)
			fprintf(out, "%*spin not kept: %s: %s\n", indent, "", m->metrics[plan->unpinned[i]].name,
				plan->unpinned_why[i]);
	}
	sched_plan_free(plan);
	free(fc);
	free(plan_ms);
	free(ms);
}

int listing_views(FILE *dest, const struct model *m)
{
	FILE *out = text_filter(dest);
	int wn = 4;
	for (int i = 0; i < m->nviews; i++)
		if ((int)strlen(m->views[i].name) > wn)
			wn = (int)strlen(m->views[i].name);
	fprintf(out, "%-*s  KEY  TITLE / COLUMNS\n", wn, "VIEW");
	for (int i = 0; i < m->nviews; i++) {
		const struct view_def *v = &m->views[i];
		char key[4] = "-";
		if (v->key)
			snprintf(key, sizeof(key), "%d", v->key);
		if (v->user)
			fprintf(out, "%-*s  %-3s  %s  (yours: %s)\n", wn, v->name, key, v->title, v->file);
		else
			fprintf(out, "%-*s  %-3s  %s\n", wn, v->name, key, v->title);
		fprintf(out, "%-*s       ", wn, "");
		for (int c = 0; c < v->ncols; c++)
			fprintf(out, "%s%s", c ? " " : "", m->metrics[v->cols[c].metric].name);
		fprintf(out, "\n");
		if (!v->tasks)
			view_schedule(out, m, v, wn + 7);
	}
	/* -g also takes a metric group: list them with their metrics, in the
	 * order they first appear. */
	const char **seen = xcalloc((size_t)m->nmetrics * 4 + 1, sizeof(char *));
	int nseen = 0;
	for (int i = 0; i < m->nmetrics; i++)
		for (int g = 0; g < m->metrics[i].ngroups; g++) {
			const char *name = m->metrics[i].groups[g];
			bool dup = false;
			for (int k = 0; k < nseen && !dup; k++)
				dup = !strcmp(seen[k], name);
			if (!dup && nseen < m->nmetrics * 4)
				seen[nseen++] = name;
		}
	if (nseen > 0)
		fprintf(out, "\nMETRIC GROUP  METRICS (pmctop -g GROUP)\n");
	for (int k = 0; k < nseen; k++) {
		fprintf(out, "%-12s ", seen[k]);
		for (int i = 0; i < m->nmetrics; i++)
			if (metric_in_group(&m->metrics[i], seen[k]))
				fprintf(out, " %s", m->metrics[i].name);
		fprintf(out, "\n");
	}
	free(seen);
	return finish(out, m->nviews);
}
