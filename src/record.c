/* record.c: the text of a recording's lines (record.h, docs/recording.md):
 * the first line, which describes the run, and one line per interval.
 * Writing them to the file, each in its own gzip member, is
 * record_file.c's job. */
#include "config.h"
#include "record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "sched.h"
#include "topo.h"
#include "util.h"

/* --- JSON text --- */

/* ,"key":"text" or ,"key":null. */
static void put_key_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	if (s)
		json_put_string(f, s);
	else
		fputs("null", f);
}

/* The shortest of %.15g and %.17g that reads back as the same double, so
 * that replay computes from exactly what was measured; null for NaN and
 * infinities, which JSON cannot hold. */
static void put_num(FILE *f, double v)
{
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	/* Counts and times are mostly whole numbers: the quick way, exact
	 * below 2^53. */
	if (v == floor(v) && fabs(v) < 9007199254740992.0 && !(v == 0 && signbit(v))) {
		fprintf(f, "%lld", (long long)v);
		return;
	}
	char b[40];
	snprintf(b, sizeof(b), "%.15g", v);
	if (strtod(b, NULL) != v)
		snprintf(b, sizeof(b), "%.17g", v);
	fputs(b, f);
}

static void put_nums(FILE *f, const char *key, const double *v, size_t n)
{
	fprintf(f, ",\"%s\":", key);
	if (!v) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		put_num(f, v[i]);
	}
	fputc(']', f);
}

static void put_ints(FILE *f, const char *key, const int *v, int n)
{
	fprintf(f, ",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", v[i]);
	fputc(']', f);
}

static char *text_done(FILE *f, char **buf)
{
	if (fclose(f) != 0) {
		fputs("pmctop: out of memory building a record\n", stderr);
		abort();
	}
	return *buf;
}

/* --- the first line --- */

char *record_header_text(const struct record_info *info)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	const struct model *m = info->model;
	const struct topo *t = info->topo;
	fprintf(f, "{\"format\":\"%s\",\"version\":%d,\"pmctop\":\"%s\"", RECORD_FORMAT_NAME,
		RECORD_VERSION, PACKAGE_VERSION);
	fputs(",\"model\":", f);
	json_put_string(f, m->name);
	fprintf(f, ",\"simulated\":%s", info->simulated ? "true" : "false");
	put_key_str(f, "sim", info->sim_spec);
	put_key_str(f, "host", info->host ? info->host : "");
	put_key_str(f, "cpu_name", info->cpu_name ? info->cpu_name : "");
	fputs(",\"interval_s\":", f);
	put_num(f, info->interval_s);
	fputs(",\"rotate_ms\":", f);
	put_num(f, info->rotate_ms);
	put_key_str(f, "view", info->view);
	fputs(",\"cpu_filter\":", f);
	if (info->cpu_filter) {
		fputc('[', f);
		bool first = true;
		for (int c = 0; c < t->max_cpu; c++)
			if (info->cpu_filter[c]) {
				fprintf(f, "%s%d", first ? "" : ",", c);
				first = false;
			}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fputs(",\"columns\":[", f);
	for (int i = 0; i < info->ncols; i++) {
		fputs(i ? ",[" : "[", f);
		json_put_string(f, m->metrics[info->cols[i]].name);
		fputc(',', f);
		if (info->fmts && info->fmts[i])
			json_put_string(f, info->fmts[i]);
		else
			fputs("null", f);
		fputc(']', f);
	}
	fputs("],\"event_columns\":[", f);
	for (int i = 0; i < info->nevcols; i++) {
		if (i)
			fputc(',', f);
		json_put_string(f, m->events[info->evcols[i]].name);
	}
	/* Per CPU, what topo_rebuild() groups by: the kernel's own ids. */
	fprintf(f, "],\"topology\":{\"nnuma\":%d,\"fields\":[\"cpu\",\"online\",\"known\",\"core_id\","
		"\"package_id\",\"die\",\"l3_id\",\"l3_first\",\"numa\"],\"cpus\":[", t->nnuma);
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		fprintf(f, "%s[%d,%d,%d,%d,%d,%d,%d,%d,%d]", i ? "," : "", c->cpu, c->online,
			c->has_topology, c->core_id, c->package_id, c->die, c->l3_id, c->l3_first, c->numa);
	}
	/* The PMUs and events by name with the vendor encoding, for a reader
	 * without pmctop's definitions. */
	fputs("]},\"pmus\":{", f);
	for (int p = 0; p < m->npmus; p++) {
		if (p)
			fputc(',', f);
		json_put_string(f, m->pmus[p].name);
		fputs(":{\"perf_name\":", f);
		json_put_string(f, m->pmus[p].perf_name);
		fputs(",\"scope\":", f);
		json_put_string(f, scope_name(m->pmus[p].scope));
		fputc('}', f);
	}
	fputs("}}", f);
	return text_done(f, &buf);
}

/* --- one interval --- */

char *record_interval_text(const struct derive_input *in, const struct snapshot *snap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	const struct model *m = in->model;
	const struct sched_plan *plan = in->plan;
	fprintf(f, "{\"seq\":%llu,\"time\":", (unsigned long long)snap->seq);
	put_num(f, snap->time);
	fputs(",\"interval_s\":", f);
	put_num(f, in->measured_s);
	if (snap->interval_s > 0) {
		fputs(",\"delay_s\":", f);
		put_num(f, snap->interval_s);
	}
	if (snap->quick)
		fputs(",\"short\":true", f);
	fputs(",\"rotate_ms\":", f);
	put_num(f, snap->rotate_ms);
	fputs(",\"cost_s\":", f);
	put_num(f, snap->sampler_cost_s);
	put_key_str(f, "notice", snap->notice);
	put_ints(f, "offline", snap->offline, snap->noffline);
	put_ints(f, "returning", snap->returning, snap->nreturning);
	/* CPUs the sampler's topology had offline when derive ran. */
	fputs(",\"down\":[", f);
	bool first = true;
	for (int i = 0; i < in->topo->ncpus; i++)
		if (!in->topo->cpus[i].online) {
			fprintf(f, "%s%d", first ? "" : ",", in->topo->cpus[i].cpu);
			first = false;
		}
	fputs("],\"metrics\":[", f);
	for (int i = 0; i < plan->nmetrics; i++) {
		if (i)
			fputc(',', f);
		json_put_string(f, m->metrics[plan->metrics[i]].name);
	}
	fputs("],\"events\":[", f);
	first = true;
	for (int e = 0; e < m->nevents; e++)
		if (plan->event_used[e]) {
			if (!first)
				fputc(',', f);
			json_put_string(f, m->events[e].name);
			first = false;
		}
	/* Instances as [cpu, scope id, alive]: the scope is the PMU's. */
	fputs("],\"pmus\":[", f);
	for (int p = 0; p < m->npmus; p++) {
		const struct derive_pmu *dp = &in->pmus[p];
		fputs(p ? ",{\"pmu\":" : "{\"pmu\":", f);
		json_put_string(f, m->pmus[p].name);
		fprintf(f, ",\"available\":%s,\"inst\":[", dp->available ? "true" : "false");
		for (int i = 0; i < dp->ninst; i++)
			fprintf(f, "%s[%d,%d,%d]", i ? "," : "", dp->inst[i].cpu, dp->inst[i].scope_id,
				dp->alive ? dp->alive[i] : 1);
		fputs("]}", f);
	}
	fputs("],\"groups\":[", f);
	for (int g = 0; g < plan->ngroups; g++) {
		const struct derive_group *dg = &in->groups[g];
		int ninst = in->pmus[plan->groups[g].pmu].ninst;
		fputs(g ? ",{\"pmu\":" : "{\"pmu\":", f);
		json_put_string(f, m->pmus[plan->groups[g].pmu].name);
		fputs(",\"events\":[", f);
		for (int k = 0; k < dg->nev; k++) {
			if (k)
				fputc(',', f);
			json_put_string(f, m->events[dg->events[k]].name);
		}
		fprintf(f, "],\"nb\":%d", dg->iv ? dg->nb : 0);
		size_t ni = (size_t)ninst, ne = (size_t)dg->nev, nb = dg->iv ? (size_t)dg->nb : 0;
		put_nums(f, "v", dg->iv, ni * ne);
		put_nums(f, "r", dg->iv ? dg->ir : NULL, ni);
		put_nums(f, "bv", nb ? dg->bv : NULL, nb * ni * ne);
		put_nums(f, "br", nb ? dg->br : NULL, nb * ni);
		/* The share before the group's first window, and the last
		 * window of the interval before, where derive reads them
		 * (derive_lead.c; the share alone places a group's windows,
		 * wset_unseen2): a replay derives what the live run did. */
		if (dg->iv) {
			fputs(",\"lead\":", f);
			put_num(f, dg->lead);
		}
		if (dg->iv && dg->pv && dg->pr) {
			put_nums(f, "pv", dg->pv, ni * ne);
			put_nums(f, "pr", dg->pr, ni);
		}
		/* And the window of the tail round (the interval's own last
		 * few milliseconds, in v and r already). */
		if (dg->iv && dg->tv && dg->tr) {
			fputs(",\"trail\":", f);
			put_num(f, dg->trail);
			put_nums(f, "tv", dg->tv, ni * ne);
			put_nums(f, "tr", dg->tr, ni);
		}
		fputc('}', f);
	}
	fputs("]}", f);
	return text_done(f, &buf);
}
