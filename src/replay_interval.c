/* replay_interval.c: one interval of a recording (replay_snapshot): its
 * line inflated and parsed, the PMUs' instances and the groups' counts
 * checked, the plan made again for the figures asked for, and the counts
 * handed to derive.c as the sampler once did. Split from replay.c, which
 * opens the recording and finds the intervals that this file reads. */
#include "config.h"
#include "replay.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "derive.h"
#include "gzmember.h"
#include "jsonbudget.h"
#include "record.h"
#include "sampler.h"
#include "sampler_energy.h"
#include "sched.h"
#include "util.h"
#include "replay_impl.h"

/* --- one interval --- */

/* Buffers per group: v, r, bv, br, pv, pr. */
#define RP_GBUFS 8

/* What one interval's line holds, as derive wants it. */
struct rp_interval {
	struct sched_plan plan;
	struct derive_pmu *pmus;
	struct bk_instance **inst;    /* [npmus] */
	bool **alive;                 /* [npmus] */
	struct derive_group *groups;
	int **gev;                    /* [ngroups] events */
	double **gbuf;                /* [ngroups * RP_GBUFS]: v, r, bv, br, pv, pr, tv, tr */
	bool *counted;                /* [nevents] in some group */
};

static void interval_free(struct rp_interval *iv, const struct model *m)
{
	for (int p = 0; iv->inst && p < m->npmus; p++) {
		free(iv->inst[p]);
		free(iv->alive[p]);
	}
	for (int g = 0; iv->gev && g < iv->plan.ngroups; g++) {
		free(iv->gev[g]);
		for (int k = 0; k < RP_GBUFS; k++)
			free(iv->gbuf[RP_GBUFS * g + k]);
	}
	free(iv->inst);
	free(iv->alive);
	free(iv->pmus);
	free(iv->groups);
	free(iv->gev);
	free(iv->gbuf);
	free(iv->plan.groups);
	free(iv->plan.metrics);
	free(iv->plan.event_used);
	free(iv->plan.metric_split);
	free(iv->counted);
}

static int parse_pmus(struct rp_interval *iv, const struct model *m, json_t *pmus, char **cause)
{
	if (!json_is_array(pmus))
		return set_cause(cause, "no \"pmus\" list");
	for (size_t i = 0; i < json_array_size(pmus); i++) {
		json_t *o = json_array_get(pmus, i);
		const char *name = replay_json_str(o, "pmu");
		json_t *inst = json_object_get(o, "inst");
		if (!name || !json_is_array(inst))
			return set_cause(cause, "pmus: entry %zu has no \"pmu\" name and \"inst\" list", i + 1);
		int p = model_find_pmu(m, name);
		if (p < 0 || iv->inst[p])
			continue;   /* a PMU this model lacks (or named twice): not used */
		size_t n = json_array_size(inst);
		if (n > (1u << 20))
			return set_cause(cause, "pmus: %s has %zu instances", m->pmus[p].name, n);
		iv->inst[p] = xcalloc(n + 1, sizeof(struct bk_instance));
		iv->alive[p] = xcalloc(n + 1, sizeof(bool));
		for (size_t k = 0; k < n; k++) {
			json_t *t = json_array_get(inst, k);
			int cpu, sid, alive;
			if (!json_is_array(t) || json_array_size(t) != 3 ||
			    !replay_json_int(json_array_get(t, 0), -1, 1 << 30, &cpu) ||
			    !replay_json_int(json_array_get(t, 1), -1, 1 << 30, &sid) ||
			    !replay_json_int(json_array_get(t, 2), 0, 1, &alive))
				return set_cause(cause, "pmus: %s instance %zu is not [cpu, scope id, alive]",
						 m->pmus[p].name, k + 1);
			iv->inst[p][k] = (struct bk_instance){ .pmu = p, .cpu = cpu, .scope = m->pmus[p].scope,
				.scope_id = sid };
			iv->alive[p][k] = alive;
		}
		iv->pmus[p] = (struct derive_pmu){ .available = json_is_true(json_object_get(o, "available")),
			.ninst = (int)n, .inst = iv->inst[p], .alive = iv->alive[p] };
	}
	return 0;
}

/* Keeps columns keep[0..nk) of nblocks blocks of ni rows of ne numbers,
 * packed in place: each number moves down, never over one still to move. */
static void keep_columns(double *a, size_t nblocks, size_t ni, size_t ne, const int *keep, int nk)
{
	size_t d = 0;
	for (size_t b = 0; b < nblocks; b++)
		for (size_t i = 0; i < ni; i++)
			for (int k = 0; k < nk; k++)
				a[d++] = a[(b * ni + i) * ne + (size_t)keep[k]];
}

/* A recorded notice, which pmctop wrote as lines: each line cleaned of
 * anything that could act on a terminal, the line breaks kept. */
static char *clean_lines(const char *s)
{
	char *out = xstrdup(s);
	for (char *line = out; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		text_sanitize_inplace(line);
		if (nl)
			*nl = '\n';
		line = nl ? nl + 1 : NULL;
	}
	return out;
}

/* The first negative figure of a group's columns, described (caller
 * frees), or NULL: counts and running times are never negative, and a
 * negative one would pass into every sum and ratio unnoticed. */
static char *negative_figure(json_t *o, double *const buf[RP_GBUFS], size_t ni, size_t ne, size_t nb)
{
	json_t *evs = json_object_get(o, "events");
	const struct { const char *key; const double *a; size_t n, stride; } cols[] = {
		{ "v", buf[0], ni * ne, ne }, { "r", buf[1], ni, 1 }, { "bv", buf[2], nb * ni * ne, ne },
		{ "br", buf[3], nb * ni, 1 }, { "pv", buf[4], ni * ne, ne }, { "pr", buf[5], ni, 1 },
		{ "tv", buf[6], ni * ne, ne }, { "tr", buf[7], ni, 1 },
	};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		for (size_t i = 0; cols[c].a && i < cols[c].n; i++) {
			if (!(cols[c].a[i] < 0))
				continue;   /* NaN (null) is not a number, not negative */
			size_t inst = (i / cols[c].stride) % ni;
			bool count = cols[c].stride > 1;
			const char *ev = count ? json_string_value(json_array_get(evs, i % ne)) : NULL;
			char *evname = ev ? text_sanitize(ev) : NULL;
			char *msg = count
				? xasprintf("\"%s\" holds %.15g as the count of %s on instance %zu; a count is never negative",
					    cols[c].key, cols[c].a[i], evname ? evname : "?", inst + 1)
				: xasprintf("\"%s\" holds %.15g as the running time of instance %zu; a running time is "
					    "never negative", cols[c].key, cols[c].a[i], inst + 1);
			free(evname);
			return msg;
		}
	return NULL;
}

/* A window at one edge of the interval (record.c): the share key (a
 * number from 0 to 1) and the counts and running times after it, all
 * three or none (a recording made before pmctop kept them), or the
 * share alone (a lead with no window of the interval before). *bad
 * names what is not so. */
static void edge_window(json_t *o, const char *share_key, const char *v_key, const char *r_key, size_t nv, size_t nr,
			double *share, double **v, double **r, const char **bad)
{
	json_t *js = json_object_get(o, share_key);
	if (!js)
		return;
	*share = json_is_number(js) ? json_number_value(js) : NAN;
	if (!(*share >= 0 && *share <= 1)) {
		*bad = share_key;
		return;
	}
	/* The share alone (lead: where a group's windows began, with no
	 * window of the interval before). */
	if (!json_object_get(o, v_key))
		return;
	*v = replay_json_nums(o, v_key, nv, false, bad);
	*r = *v ? replay_json_nums(o, r_key, nr, false, bad) : NULL;
}

/* One group: its events by name (those this model lacks are left out,
 * with their columns) and its counts. */
static int parse_group(struct rp_interval *iv, const struct model *m, json_t *o, int gi, char **cause)
{
	const char *pname = replay_json_str(o, "pmu");
	json_t *evs = json_object_get(o, "events");
	int p = pname ? model_find_pmu(m, pname) : -1;
	int nb = 0;
	if (!pname || !json_is_array(evs) || !replay_json_int(json_object_get(o, "nb"), 0, 4096, &nb))
		return set_cause(cause, "group %d: expected \"pmu\", \"events\" and \"nb\"", gi + 1);
	size_t ne = json_array_size(evs);
	if (p < 0 || ne == 0)
		return 0;
	size_t ni = (size_t)iv->pmus[p].ninst;
	if (ne > 64 || (ni && ne * ni * ((size_t)nb + 1) > ((size_t)1 << 28)))
		return set_cause(cause, "group %d: %zu events on %zu instances is more than pmctop records", gi + 1, ne, ni);
	int *keep = xmalloc(sizeof(int) * ne);
	int *ev = xmalloc(sizeof(int) * ne);
	int nk = 0;
	for (size_t k = 0; k < ne; k++) {
		json_t *e = json_array_get(evs, k);
		if (!json_is_string(e)) {
			free(keep);
			free(ev);
			return set_cause(cause, "group %d: event %zu is not a name", gi + 1, k + 1);
		}
		int ei = model_find_event(m, json_string_value(e));
		if (ei < 0 || !event_fits_group(m, p, ei))
			continue;
		bool dup = false;
		for (int j = 0; j < nk; j++)
			dup |= ev[j] == ei;
		if (dup)
			continue;
		keep[nk] = (int)k;
		ev[nk++] = ei;
	}
	/* The same group twice would count its events twice over the same
	 * time: coverage above what was measured, figures of nothing new. */
	for (int g = 0; g < iv->plan.ngroups; g++)
		if (iv->plan.groups[g].pmu == p && iv->plan.groups[g].nevents == nk &&
		    !memcmp(iv->plan.groups[g].events, ev, sizeof(int) * (size_t)nk)) {
			set_cause(cause, "group %d counts the same %s events as an earlier group (%s, ...); "
				  "a recording counts each group once", gi + 1, m->pmus[p].name, m->events[ev[0]].name);
			free(keep);
			free(ev);
			return -1;
		}
	const char *bad = NULL;
	double *buf[RP_GBUFS] = { NULL };
	double *v = buf[0] = replay_json_nums(o, "v", ni * ne, true, &bad);
	buf[1] = v ? replay_json_nums(o, "r", ni, false, &bad) : NULL;
	buf[2] = v && nb ? replay_json_nums(o, "bv", (size_t)nb * ni * ne, false, &bad) : NULL;
	buf[3] = v && nb ? replay_json_nums(o, "br", (size_t)nb * ni, false, &bad) : NULL;
	/* The last window of the interval before (record.c): all three or
	 * none (a recording made before pmctop kept it). */
	/* A recording made before every group's lead was kept: not known
	 * (wset_unseen2 then counts nothing unseen). */
	double lead = NAN, trail = 0;
	if (v && !bad)
		edge_window(o, "lead", "pv", "pr", ni * ne, ni, &lead, &buf[4], &buf[5], &bad);
	/* The window of the tail round (record.c), likewise. */
	if (v && !bad)
		edge_window(o, "trail", "tv", "tr", ni * ne, ni, &trail, &buf[6], &buf[7], &bad);
	char *neg = bad ? NULL : negative_figure(o, buf, ni, ne, (size_t)nb);
	if (neg) {
		set_cause(cause, "group %d: %s", gi + 1, neg);
		free(neg);
		bad = "";
	}
	if (bad || nk == 0) {
		free(keep);
		free(ev);
		for (int k = 0; k < RP_GBUFS; k++)
			free(buf[k]);
		if (bad && !*bad)
			return -1;
		if (bad && (!strcmp(bad, "lead") || !strcmp(bad, "trail")))
			return set_cause(cause, "group %d: \"%s\" is not a share of the interval (a number from 0 to 1)",
					 gi + 1, bad);
		if (bad)
			return set_cause(cause, "group %d: \"%s\" is not %s numbers", gi + 1, bad,
					 !strcmp(bad, "v") || !strcmp(bad, "pv") || !strcmp(bad, "tv") ? "instances x events" :
					 !strcmp(bad, "r") || !strcmp(bad, "pr") || !strcmp(bad, "tr") ? "one per instance" :
					 !strcmp(bad, "bv") ? "nb x instances x events" : "nb x instances");
		return 0;
	}
	/* Only the columns of known events, in the kept order. */
	if ((size_t)nk < ne) {
		keep_columns(v, 1, ni, ne, keep, nk);
		if (buf[2])
			keep_columns(buf[2], (size_t)nb, ni, ne, keep, nk);
		if (buf[4])
			keep_columns(buf[4], 1, ni, ne, keep, nk);
		if (buf[6])
			keep_columns(buf[6], 1, ni, ne, keep, nk);
	}
	free(keep);
	int g = iv->plan.ngroups++;
	iv->gev[g] = ev;
	for (int k = 0; k < RP_GBUFS; k++)
		iv->gbuf[RP_GBUFS * g + k] = buf[k];
	iv->plan.groups[g] = (struct sched_group){ .pmu = p, .nevents = nk, .events = ev };
	iv->groups[g] = (struct derive_group){ .nev = nk, .events = ev, .iv = v, .ir = buf[1],
		.nb = v ? nb : 0, .bv = buf[2], .br = buf[3], .pv = buf[4], .pr = buf[5], .lead = lead,
		.tv = buf[6], .tr = buf[7], .trail = buf[6] ? trail : 0 };
	for (int k = 0; k < nk; k++)
		iv->counted[ev[k]] = true;
	return 0;
}

static bool metric_counted(const struct model *m, const bool *counted, int mi)
{
	const struct metric_def *md = &m->metrics[mi];
	for (int k = 0; k < md->nevents; k++)
		if (!counted[md->events[k]])
			return false;
	return true;
}

/* The plan's metrics and events: as recorded, or as requested where the
 * interval counted their events. */
static int plan_figures(struct replay *r, struct rp_interval *iv, json_t *o, char **cause)
{
	const struct model *m = r->model;
	struct sched_plan *pl = &iv->plan;
	pl->nevents = m->nevents;
	pl->metrics = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	pl->event_used = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	pl->metric_split = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	bool *mseen = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	if (r->nmetrics < 0) {
		json_t *ms = json_object_get(o, "metrics"), *es = json_object_get(o, "events");
		if (!json_is_array(ms) || !json_is_array(es)) {
			free(mseen);
			return set_cause(cause, "no \"metrics\" and \"events\" lists");
		}
		for (size_t i = 0; i < json_array_size(ms); i++) {
			json_t *n = json_array_get(ms, i);
			int mi = json_is_string(n) ? model_find_metric(m, json_string_value(n)) : -1;
			if (mi >= 0 && !mseen[mi] && metric_counted(m, iv->counted, mi)) {
				mseen[mi] = true;
				pl->metrics[pl->nmetrics++] = mi;
			}
		}
		for (size_t i = 0; i < json_array_size(es); i++) {
			json_t *n = json_array_get(es, i);
			int ei = json_is_string(n) ? model_find_event(m, json_string_value(n)) : -1;
			if (ei >= 0 && iv->counted[ei])
				pl->event_used[ei] = true;
		}
	} else {
		for (int i = 0; i < r->nmetrics; i++) {
			int mi = r->metrics[i];
			if (mi >= 0 && mi < m->nmetrics && !mseen[mi] && metric_counted(m, iv->counted, mi)) {
				mseen[mi] = true;
				pl->metrics[pl->nmetrics++] = mi;
			}
		}
		for (int i = 0; i < r->nevents; i++)
			if (r->events[i] >= 0 && r->events[i] < m->nevents && iv->counted[r->events[i]])
				pl->event_used[r->events[i]] = true;
	}
	for (int i = 0; i < pl->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[pl->metrics[i]];
		for (int k = 0; k < md->nevents; k++)
			pl->event_used[md->events[k]] = true;
	}
	free(mseen);
	return 0;
}

static int int_list(json_t *o, const char *key, int max, int **out, int *n, char **cause)
{
	json_t *a = json_object_get(o, key);
	*out = NULL;
	*n = 0;
	if (!json_is_array(a))
		return set_cause(cause, "no \"%s\" list", key);
	size_t len = json_array_size(a);
	if (len > (size_t)max)
		return set_cause(cause, "\"%s\" lists %zu CPUs, more than the topology has", key, len);
	*out = xmalloc(sizeof(int) * (len + 1));
	for (size_t i = 0; i < len; i++)
		if (!replay_json_int(json_array_get(a, i), 0, 1 << 30, &(*out)[i])) {
			free(*out);
			*out = NULL;
			return set_cause(cause, "\"%s\": entry %zu is not a CPU number", key, i + 1);
		}
	*n = (int)len;
	return 0;
}

static struct snapshot *derive_line(struct replay *r, json_t *o, char **cause)
{
	const struct model *m = r->model;
	struct rp_interval iv;
	memset(&iv, 0, sizeof(iv));
	struct snapshot *snap = NULL;
	struct topo *t = NULL;
	int *offline = NULL, *returning = NULL, *down = NULL;
	int noff = 0, nret = 0, ndown = 0;
	double measured_s, time_s, rotate_ms, cost_s, interval_s;
	json_t *groups = json_object_get(o, "groups"), *seq = json_object_get(o, "seq");
	char what[48];
	if (!json_is_object(o)) {
		set_cause(cause, "the line is %s; expected an object", replay_json_found(o, what, sizeof(what)));
		goto out;
	}
	if (!json_is_integer(seq) || json_integer_value(seq) < 0) {
		set_cause(cause, "\"seq\" is %s; expected a whole number from 0", replay_json_found(seq, what, sizeof(what)));
		goto out;
	}
	if (replay_field_num(o, "time", 0, REPLAY_MAX_TIME, false, false, &time_s, cause) < 0 ||
	    replay_field_num(o, "interval_s", 0, REPLAY_MAX_INTERVAL, true, false, &measured_s, cause) < 0 ||
	    replay_field_num(o, "delay_s", 0, REPLAY_MAX_INTERVAL, true, true, &interval_s, cause) < 0 ||
	    replay_field_num(o, "rotate_ms", SAMPLER_ROTATE_KERNEL, REPLAY_MAX_ROTATE_MS, false, true, &rotate_ms, cause) < 0 ||
	    replay_field_num(o, "cost_s", 0, REPLAY_MAX_INTERVAL, false, true, &cost_s, cause) < 0)
		goto out;
	if (!json_is_array(groups)) {
		set_cause(cause, "\"groups\" is %s; expected a list", replay_json_found(groups, what, sizeof(what)));
		goto out;
	}
	int maxc = r->topo->ncpus;
	if (int_list(o, "offline", maxc, &offline, &noff, cause) < 0 ||
	    int_list(o, "returning", maxc, &returning, &nret, cause) < 0 ||
	    int_list(o, "down", maxc, &down, &ndown, cause) < 0)
		goto out;
	iv.pmus = xcalloc((size_t)m->npmus + 1, sizeof(*iv.pmus));
	iv.inst = xcalloc((size_t)m->npmus + 1, sizeof(*iv.inst));
	iv.alive = xcalloc((size_t)m->npmus + 1, sizeof(*iv.alive));
	iv.counted = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	if (parse_pmus(&iv, m, json_object_get(o, "pmus"), cause) < 0)
		goto out;
	size_t ng = json_array_size(groups);
	if (ng > 4096) {
		set_cause(cause, "%zu groups", ng);
		goto out;
	}
	iv.plan.groups = xcalloc(ng + 1, sizeof(*iv.plan.groups));
	iv.groups = xcalloc(ng + 1, sizeof(*iv.groups));
	iv.gev = xcalloc(ng + 1, sizeof(*iv.gev));
	iv.gbuf = xcalloc(RP_GBUFS * ng + RP_GBUFS, sizeof(*iv.gbuf));
	for (size_t g = 0; g < ng; g++)
		if (parse_group(&iv, m, json_array_get(groups, g), (int)g, cause) < 0)
			goto out;
	if (plan_figures(r, &iv, o, cause) < 0)
		goto out;
	for (int e = 0; e < m->nevents; e++)
		r->seen[e] |= iv.counted[e];

	/* The CPUs as derive saw them: online but for those down. */
	t = topo_clone(r->topo);
	for (int i = 0; i < t->ncpus; i++)
		t->cpus[i].online = true;
	for (int i = 0; i < ndown; i++) {
		const struct topo_cpu *c = topo_cpu_by_num(t, down[i]);
		if (c)
			t->cpus[c - t->cpus].online = false;
	}
	topo_rebuild(t);
	r->plan_gen = r->plan_gen + 1 ? r->plan_gen + 1 : 1;
	struct derive_input in = {
		.model = m, .topo = t, .plan = &iv.plan, .cpu_filter = r->cpu_filter,
		.measured_s = measured_s, .pmus = iv.pmus, .groups = iv.groups,
		.cache = NULL, .plan_gen = r->plan_gen, .slices = rotate_ms == 0,
	};
	snap = derive_snapshot(&in);
	snap->seq = (uint64_t)json_integer_value(seq);
	snap->time = time_s;
	snap->simulated = r->info.simulated;
	const char *notice = replay_json_str(o, "notice");
	snap->notice = notice ? clean_lines(notice) : NULL;
	/* The recording holds the raw counts: a counter that stood still
	 * would derive as 0 W again; it is masked as it was live. Its line
	 * comes with the first interval replayed (wherever a jump lands),
	 * unless that interval's recorded notice says it already. */
	char *stuck = energy_mask_stuck(m, snap, r->stuck_said);
	if (stuck && !(snap->notice && strstr(snap->notice, stuck))) {
		char *both = snap->notice ? xasprintf("%s\n%s", snap->notice, stuck) : xstrdup(stuck);
		free(snap->notice);
		snap->notice = both;
	}
	free(stuck);
	snap->noffline = noff;
	snap->offline = offline;
	snap->nreturning = nret;
	snap->returning = returning;
	offline = returning = NULL;
	snap->sampler_cost_s = cost_s;
	snap->rotate_ms = rotate_ms;
	/* Optional: recordings written before pmctop kept them lack them. */
	if (!isnan(interval_s))
		snap->interval_s = interval_s;
	snap->quick = json_is_true(json_object_get(o, "short"));
out:
	topo_free(t);
	free(offline);
	free(returning);
	free(down);
	interval_free(&iv, m);
	return snap;
}

struct snapshot *replay_snapshot_text(struct replay *r, const char *text, size_t len, char **cause)
{
	if (len > r->max_bytes) {
		set_cause(cause, "the line is more than %zu bytes, more than an interval of %d CPUs of model %s "
			  "can need", r->max_bytes, r->topo->ncpus, r->model->name);
		return NULL;
	}
	json_t *o = replay_parse_bounded(text, len, &r->budget, cause);
	if (!o)
		return NULL;
	struct snapshot *s = derive_line(r, o, cause);
	json_decref(o);
	return s;
}

struct snapshot *replay_snapshot(struct replay *r, int i, char **cause)
{
	if (i < 0 || i >= r->n)
		return set_cause(cause, "no interval %d (the recording has %d)", i + 1, r->n), NULL;
	char *text = NULL, *why = NULL;
	size_t len = 0;
	uint64_t next;
	int rc = gzm_read_at(r->fd, r->idx[i].off, r->max_bytes, &text, &len, &next, &why);
	if (rc == -EFBIG) {
		set_cause(cause, "interval %d (byte %llu): inflates to more than %zu bytes, more than an interval "
			  "of %d CPUs of model %s can need", i + 1, (unsigned long long)r->idx[i].off, r->max_bytes,
			  r->topo->ncpus, r->model->name);
		free(why);
		return NULL;
	}
	if (rc == -E2BIG) {
		/* More than GZM_MAX_RATIO times its bytes: why says so. */
		set_cause(cause, "interval %d (byte %llu): %s", i + 1, (unsigned long long)r->idx[i].off, why);
		free(why);
		return NULL;
	}
	if (rc < 0) {
		set_cause(cause, "interval %d: %s", i + 1, why);
		free(why);
		return NULL;
	}
	struct snapshot *s = replay_snapshot_text(r, text, len, &why);
	free(text);
	if (!s) {
		set_cause(cause, "interval %d (byte %llu): %s", i + 1, (unsigned long long)r->idx[i].off, why);
		free(why);
	}
	return s;
}
