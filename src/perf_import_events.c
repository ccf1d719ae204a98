/* perf_import_events.c: the PMUs and events of one of perf's CPU
 * directories as pmctop stanzas. Core events become raw register values
 * (IA32_PERFEVTSELx on Intel, PERF_CTL on AMD, the event number on Arm)
 * decoded by the PMU's field lines, as the hand-written models write
 * them; events with an extra MSR (offcore response, load latency) and
 * uncore events become named fields, which the kernel's sysfs format
 * files lay out. A metric's "cpu@EVENT,cmask=1@" is a variant of an event,
 * added here when a metric first names it. The `Unit` of an x86 event
 * picks its PMU: core, AMD L3PMC (amd_l3), UMCPMC (amd_umc_*), DFPMC
 * (amd_df) or an Intel uncore unit (uncore_cha_*, uncore_imc_*, ...). */
#include "config.h"
#include "util.h"
#include "name_index.h"
#include "perf_import_impl.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number as perf's files write it ("0x1A", "12", "0x1a6,0x1a7": the first). */
static uint64_t jnum(json_t *o, const char *key)
{
	const char *s = jstr(o, key);
	return s ? strtoull(s, NULL, 0) : 0;
}

/* ---- PMUs ------------------------------------------------------------------ */

/* Counters per unit, from counter.json where perf has it. */
static int unit_counters(json_t *counters, const char *unit, bool fixed, int dflt)
{
	size_t i;
	json_t *c;
	json_array_foreach(counters, i, c) {
		const char *u = jstr(c, "Unit");
		if (u && !strcasecmp(u, unit)) {
			const char *n = jstr(c, fixed ? "CountersNumFixed" : "CountersNumGeneric");
			if (n)
				return atoi(n);
		}
	}
	return dflt;
}

static bool have_pmu(struct imp *im, const char *name)
{
	for (int i = 0; i < im->npmus; i++)
		if (!strcmp(im->pmus[i], name))
			return true;
	return false;
}

/* The core PMU, from the definitions of its vendor's (events/perf/core-*.def):
 * on Intel, the numbers of general and fixed counters are the CPU's own
 * where its counter.json states them. */
static void add_core_pmu(struct imp *im, json_t *counters)
{
	const char *file = im->arm ? "perf/core-arm.def" : im->amd ? "perf/core-amd.def" : "perf/core-intel.def";
	int first = im->set->nstanzas;
	char *why = NULL;
	if (imp_add_file(im, file, &why) < 0) {
		im->err = why;
		return;
	}
	struct def_stanza *st = NULL;
	for (int k = first; k < im->set->nstanzas; k++)
		if (im->set->stanzas[k].kind == ST_PMU && !strcmp(im->set->stanzas[k].name, "core"))
			st = &im->set->stanzas[k];
	if (!st) {
		im->err = xasprintf("%s/%s: expected a pmu core stanza", im->events_dir, file);
		return;
	}
	for (int k = 0; k < st->nattrs; k++) {
		struct def_attr *a = &st->attrs[k];
		bool fixed = !strcmp(a->key, "fixed");
		if (im->arm || im->amd || (!fixed && strcmp(a->key, "counters")))
			continue;
		int n = unit_counters(counters, "core", fixed, atoi(a->value));
		free(a->value);
		a->value = xasprintf("%d", n);
		if (!fixed)
			im->core_counters = n;
	}
	im->pmus = xrealloc(im->pmus, (size_t)(im->npmus + 1) * sizeof(char *));
	im->pmus[im->npmus++] = xstrdup("core");
}

/* The pmctop PMU for an x86 Unit, made on first use; NULL for the core. */
static const char *unit_pmu(struct imp *im, json_t *counters, const char *unit, const char *file)
{
	if (!unit || !strcasecmp(unit, "core") || !strcasecmp(unit, "cpu") || !strcasecmp(unit, "cpu_core"))
		return "core";
	static const struct { const char *unit, *name, *perf, *scope; int counters; } amd[] = {
		{ "L3PMC", "l3", "amd_l3", "ccx", 6 },
		{ "UMCPMC", "umc", "amd_umc_*", "socket", 4 },
		{ "DFPMC", "df", "amd_df", "socket", 4 },
	};
	char *name = NULL, *perf = NULL;
	const char *scope = "socket";
	int n = 4;
	for (size_t i = 0; i < ARRAY_SIZE(amd); i++) {
		if (!strcasecmp(unit, amd[i].unit)) {
			name = xstrdup(amd[i].name);
			perf = xstrdup(amd[i].perf);
			scope = amd[i].scope;
			n = amd[i].counters;
		}
	}
	if (!name) {
		name = imp_name(unit);
		/* Intel: uncore_cha_0..N; the units the kernel has once per
		 * socket carry no number. */
		bool single = !strcasecmp(unit, "PCU") || !strcasecmp(unit, "UBOX") || !strcasecmp(unit, "CLOCK");
		perf = single ? xasprintf("uncore_%s", name) : xasprintf("uncore_%s_*", name);
		if (!strcasecmp(unit, "CHA") || !strcasecmp(unit, "CBOX"))
			scope = "ccx";
		n = unit_counters(counters, unit, false, 4);
		if (n <= 0)
			n = 1;
	}
	if (!have_pmu(im, name)) {
		struct def_stanza *st = imp_stanza(im, ST_PMU, name, file, 0);
		imp_attr(st, "perf", perf);
		imp_attr(st, "kind", "uncore");
		imp_attr(st, "scope", scope);
		imp_attrf(st, "counters", "%d", n);
		imp_attr(st, "fixed", "0");
		imp_attr(st, "nmi", "0");
		char *up = xstrdup(unit);
		for (char *p = up; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		imp_attrf(st, "notation", "%s", up);
		free(up);
		im->pmus = xrealloc(im->pmus, (size_t)(im->npmus + 1) * sizeof(char *));
		im->pmus[im->npmus++] = xstrdup(name);
	}
	free(perf);
	const char *kept = NULL;
	for (int i = 0; i < im->npmus; i++)
		if (!strcmp(im->pmus[i], name))
			kept = im->pmus[i];
	free(name);
	return kept;
}

/* ---- events ---------------------------------------------------------------- */

static struct imp_event *add_event(struct imp *im, const char *name, const char *perf, const char *pmu)
{
	im->ev = xrealloc(im->ev, (size_t)(im->nev + 1) * sizeof(*im->ev));
	struct imp_event *e = &im->ev[im->nev];
	*e = (struct imp_event){ .name = xstrdup(name), .perf = xstrdup(perf), .pmu = xstrdup(pmu) };
	name_index_add(im->ev_ix, e->name, im->nev);
	im->nev++;
	return e;
}

/* The simulator's formula for an event, or NULL: sim.txt (by perf's name
 * or pmctop's) first, then the hand-written model named by simfrom=: its
 * event of the same name (it uses perf's names in lower case), else its
 * core event of the same raw value (a variant such as "cmask=6" that the
 * hand-written model names its own way). */
static char *lower(const char *s)
{
	char *l = xstrdup(s);
	for (char *p = l; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

/* sim.txt's entry for name in any case: the first in the file, or -1.
 * The entries are indexed by their lower-case names at the first call
 * (a loop over all of them for every event was a twentieth of an
 * imported model's start-up). */
static int sim_entry(struct imp *im, const char *name)
{
	if (!im->sim_ix) {
		im->sim_ix = name_index_new();
		im->sim_lc = xcalloc((size_t)im->nsim + 1, sizeof(char *));
		for (int i = 0; i < im->nsim; i++) {
			im->sim_lc[i] = lower(im->sim[i].event);
			name_index_add(im->sim_ix, im->sim_lc[i], i);
		}
	}
	char *l = lower(name);
	int i = name_index_find(im->sim_ix, l);
	free(l);
	return i;
}

static const char *sim_formula(struct imp *im, const struct imp_event *ie)
{
	int a = sim_entry(im, ie->perf), b = sim_entry(im, ie->name);
	int i = a < 0 ? b : b < 0 ? a : a < b ? a : b;
	if (i >= 0)
		return im->sim[i].formula;
	const struct model *h = im->simfrom;
	int e = h ? model_find_event(h, ie->name) : -1;
	if (e >= 0)
		return h->events[e].sim_text;
	for (int k = 0; h && ie->raw && !strcmp(ie->pmu, "core") && k < h->nevents; k++) {
		const struct event_def *he = &h->events[k];
		/* The hand-written value may carry bits the kernel owns (En, USR, OS). */
		uint64_t own = h->pmus[he->pmu].ignore_mask;
		if (he->enc == ENC_RAW && (he->raw & ~own) == (ie->value & ~own) && h->pmus[he->pmu].kind == PMU_CORE &&
		    he->sim_text)
			return he->sim_text;
	}
	return NULL;
}

/* Writes an event's stanza from its imp_event. */
static struct def_stanza *event_stanza(struct imp *im, const struct imp_event *e, const char *desc,
				       const char *file, int line)
{
	struct def_stanza *st = imp_stanza(im, ST_EVENT, e->name, file, line);
	imp_attr(st, "pmu", e->pmu);
	if (e->raw)
		imp_attrf(st, "raw", "0x%llx", (unsigned long long)e->value);
	else
		imp_attr(st, "fields", e->fields);
	if (desc && *desc) {
		/* One line: the stanza format has no continuation. */
		char *d = xstrndup(desc, strcspn(desc, "\n"));
		imp_attr(st, "desc", d);
		free(d);
	} else {
		imp_attr(st, "desc", e->perf);
	}
	const char *sim = sim_formula(im, e);
	if (sim)
		imp_attr(st, "sim", sim);
	return st;
}

static uint64_t core_raw(const struct imp *im, uint64_t code, uint64_t umask, json_t *o)
{
	uint64_t raw = (code & 0xff) | ((umask & 0xff) << 8);
	if (im->amd)
		raw |= ((code >> 8) & 0xf) << 32;
	raw |= (jnum(o, "EdgeDetect") ? 1ULL : 0) << 18;
	raw |= (jnum(o, "Invert") ? 1ULL : 0) << 23;
	raw |= (jnum(o, "CounterMask") & 0xff) << 24;
	return raw;
}

/* The kernel's names for Intel's extra MSRs, as its sysfs format files
 * spell the fields that carry them. */
static const char *msr_field(uint64_t msr)
{
	switch (msr) {
	case 0x1a6: case 0x1a7: return "offcore_rsp";
	case 0x3f6: return "ldlat";
	case 0x3f7: return "frontend";
	default: return NULL;
	}
}

/* Intel's fixed counters' events as Linux perf encodes them, by name,
 * whatever their file says (jevents.py, real_event): the older files give
 * them no EventCode (Westmere, Nehalem: raw 0, which counts nothing), the
 * newer ones event 0 with umask N + 1 for fixed counter N, of which the
 * kernel takes 0x0300 on every part and 0x0100 on some (its
 * FIXED_EVENT_CONSTRAINTs) but 0x0200 on none: core cycles so encoded
 * would count nothing on a real PMU. */
static bool perf_fixed_encoding(const char *name, uint64_t *code, uint64_t *umask, bool *any)
{
	static const struct {
		const char *name;
		unsigned char code, umask;
		bool any;
	} fixed[] = {
		{ "inst_retired.any", 0xc0, 0, false },     { "inst_retired.any_p", 0xc0, 0, false },
		{ "cpu_clk_unhalted.ref", 0x00, 0x03, false }, { "cpu_clk_unhalted.thread", 0x3c, 0, false },
		{ "cpu_clk_unhalted.core", 0x3c, 0, false }, { "cpu_clk_unhalted.thread_any", 0x3c, 0, true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcasecmp(name, fixed[i].name)) {
			*code = fixed[i].code;
			*umask = fixed[i].umask;
			*any = fixed[i].any;
			return true;
		}
	return false;
}

static int import_event(struct imp *im, json_t *o, json_t *counters, const char *file, int line)
{
	const char *name = jstr(o, "EventName");
	if (!name || jnum(o, "Deprecated"))
		return 0;
	const char *unit = jstr(o, "Unit");
	/* The Atom cores of a hybrid part form a PMU of their own, which
	 * pmctop does not import (docs/perf-import.md). */
	if (unit && !strcasecmp(unit, "cpu_atom"))
		return 0;
	char *pname = imp_name(name);
	if (name_index_find(im->ev_ix, pname) >= 0) {
		free(pname);
		return 0;
	}
	const char *pmu = im->arm ? "core" : unit_pmu(im, counters, unit, file);
	uint64_t code = jnum(o, "EventCode"), umask = jnum(o, "UMask");
	bool any = false;
	if (im->intel && !strcmp(pmu, "core"))
		perf_fixed_encoding(name, &code, &umask, &any);
	const char *counter = jstr(o, "Counter");
	bool fixed_only = counter && !strncasecmp(counter, "Fixed counter", 13);
	if (!jstr(o, "EventCode") && !fixed_only && !im->arm) {
		/* Free-running counters (ConfigCode) and the like. */
		free(pname);
		return 0;
	}
	struct imp_event *e = add_event(im, pname, name, pmu);
	free(pname);
	unsigned flags = 0;
	if (im->arm) {
		e->raw = true;
		e->value = code;
		if (code == 0x11)
			flags |= EVF_FIXED;      /* CPU_CYCLES: also the cycle counter */
	} else if (!strcmp(pmu, "core")) {
		uint64_t msr = jnum(o, "MSRIndex"), msrval = jnum(o, "MSRValue");
		const char *mf = msr_field(msr);
		if (mf && msrval) {
			e->fields = xasprintf("event=0x%llx,umask=0x%llx", (unsigned long long)code, (unsigned long long)umask);
			if (jnum(o, "CounterMask"))
				xappendf(&e->fields, ",cmask=%llu", (unsigned long long)jnum(o, "CounterMask"));
			if (jnum(o, "EdgeDetect"))
				xappendf(&e->fields, ",edge=1");
			if (jnum(o, "Invert"))
				xappendf(&e->fields, ",inv=1");
			xappendf(&e->fields, ",%s=0x%llx", mf, (unsigned long long)msrval);
		} else {
			e->raw = true;
			e->value = core_raw(im, code, umask, o) | (any ? 1ULL << 21 : 0);   /* AnyThread */
		}
		if (fixed_only && im->intel && code == 0 && umask == 4) {
			flags |= EVF_SLOTS;      /* TOPDOWN.SLOTS: fixed counter 3 */
			im->perf_metrics = true;
		} else if (fixed_only || (counter && strcasestr(counter, "fixed"))) {
			flags |= EVF_FIXED;
		}
	} else {
		e->fields = xasprintf("event=0x%llx", (unsigned long long)code);
		if (jstr(o, "UMask"))
			xappendf(&e->fields, ",umask=0x%llx", (unsigned long long)umask);
		/* AMD's L3 and UMC filters, by the kernel's format names. */
		static const struct { const char *json, *field; } amd_keys[] = {
			{ "RdWrMask", "rdwrmask" }, { "EnAllCores", "enallcores" }, { "EnAllSlices", "enallslices" },
			{ "SliceId", "sliceid" }, { "ThreadMask", "threadmask" },
		};
		for (size_t k = 0; k < ARRAY_SIZE(amd_keys); k++)
			if (jstr(o, amd_keys[k].json))
				xappendf(&e->fields, ",%s=0x%llx", amd_keys[k].field,
					 (unsigned long long)jnum(o, amd_keys[k].json));
		const char *filter = jstr(o, "Filter");
		if (filter && strchr(filter, '=') && !strpbrk(filter, " \t"))
			xappendf(&e->fields, ",%s", filter);
		if (jstr(o, "PortMask"))
			xappendf(&e->fields, ",ch_mask=0x%llx", (unsigned long long)jnum(o, "PortMask"));
		if (jstr(o, "FCMask"))
			xappendf(&e->fields, ",fc_mask=0x%llx", (unsigned long long)jnum(o, "FCMask"));
	}
	const char *desc = jstr(o, "BriefDescription");
	struct def_stanza *st = event_stanza(im, e, desc, file, line);
	if (flags & EVF_SLOTS) {
		imp_attr(st, "flags", "slots");
		imp_attr(st, "requires", "events/slots");
	} else if (flags & EVF_FIXED) {
		imp_attr(st, "flags", "fixed");
	}
	if (!strcmp(pmu, "umc"))
		imp_attr(st, "flags", "saturates");
	/* Intel: an event that only some general counters can hold. */
	if (im->intel && !strcmp(pmu, "core") && !(flags & (EVF_FIXED | EVF_SLOTS)) && counter &&
	    counter[strspn(counter, "0123456789, ")] == '\0') {
		char *list = xstrdup(counter);
		char *w = list;
		for (const char *p = counter; *p; p++)
			if (*p != ' ')
				*w++ = *p;
		*w = '\0';
		/* The counters listed (a number written plainly: "1", not "01"),
		 * and the highest number. */
		uint64_t listed = 0;
		int max = -1;
		for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0)) {
			size_t len = strcspn(p, ",");
			int v = atoi(p);
			if (v > max)
				max = v;
			if (len > 0 && len < 3 && (p[0] != '0' || len == 1) && v < 64)
				listed |= 1ULL << v;
		}
		bool all = true;
		for (int c = 0; c < im->core_counters; c++)
			all &= c < 64 && (listed >> c & 1);
		if (!all && max >= 0 && max < 32)
			imp_attr(st, "counters", list);
		free(list);
	}
	return 0;
}

/* Arm's ArchStdEvent: the common definition (an event by its EventName,
 * or a metric by its MetricName), overridden by the CPU's. */
static json_t *std_merge(json_t *std, json_t *o, const char *key)
{
	const char *name = jstr(o, "ArchStdEvent");
	json_t *base = NULL;
	size_t i;
	json_t *c;
	json_array_foreach(std, i, c) {
		const char *n = jstr(c, key);
		if (n && !strcasecmp(n, name)) {
			base = c;
			break;
		}
	}
	if (!base)
		return NULL;
	json_t *m = json_deep_copy(base);
	json_object_update(m, o);
	return m;
}

static json_t *load_json(struct imp *im, const char *path)
{
	char *why = NULL;
	json_t *j = perf_json_load(path, &why);
	if (!j && !im->err)
		im->err = why;
	else
		free(why);
	return j;
}

static bool events_json(const struct dirent *de)
{
	const char *name = de->d_name;
	size_t l = strlen(name);
	return l > 5 && !strcmp(name + l - 5, ".json") && strcmp(name, "metricgroups.json");
}

/* The JSON files of dir, sorted (the directory's order is the disk's). */
static int json_files(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	*out = NULL;
	return d ? dir_names_sorted(d, events_json, out) : -1;
}

static char *msr_event(struct imp *im, const char *which, char **why);

int imp_events(struct imp *im)
{
	char **files;
	int nf = json_files(im->dir, &files);
	if (nf < 0) {
		im->err = xasprintf("%s: cannot read the directory", im->dir);
		return -1;
	}
	json_t *counters = json_array(), *std = json_array(), *std_metrics = json_array();
	if (im->arm) {
		static const char *const common[] = { "common-and-microarch.json", "recommended.json" };
		for (size_t i = 0; i < ARRAY_SIZE(common); i++) {
			char *p = xasprintf("%s/arm64/%s", im->root, common[i]);
			json_t *j = load_json(im, p);
			free(p);
			if (json_is_array(j))
				json_array_extend(std, j);
			json_decref(j);
		}
		char *p = xasprintf("%s/arm64/sbsa.json", im->root);
		json_t *j = load_json(im, p);
		free(p);
		if (json_is_array(j))
			json_array_extend(std_metrics, j);
		json_decref(j);
	}
	char *cpath = xasprintf("%s/counter.json", im->dir);
	json_t *cj = perf_json_load(cpath, NULL);
	free(cpath);
	if (json_is_array(cj))
		json_array_extend(counters, cj);
	json_decref(cj);
	add_core_pmu(im, counters);   /* a failure is in im->err: the loop below stops at once */
	int f;
	for (f = 0; f < nf && !im->err; f++) {
		char *path = xasprintf("%s/%s", im->dir, files[f]);
		json_t *j = load_json(im, path);
		const char *file = imp_file(im, path);
		free(path);
		size_t i;
		json_t *o;
		if (json_is_array(j)) {
			json_array_foreach(j, i, o) {
				if (!json_is_object(o))
					continue;
				if (jstr(o, "ArchStdEvent")) {
					/* A standard metric (sbsa.json), perhaps with the
					 * CPU's own MetricExpr, or a standard event. */
					json_t *m = std_merge(std_metrics, o, "MetricName");
					if (m) {
						json_array_append_new(im->metrics, m);
						continue;
					}
					json_t *ev = std_merge(std, o, "EventName");
					if (ev) {
						import_event(im, ev, counters, file, (int)i + 1);
						json_decref(ev);
					}
					continue;
				}
				if (jstr(o, "MetricName") || jstr(o, "MetricExpr")) {
					json_array_append(im->metrics, o);
					continue;
				}
				import_event(im, o, counters, file, (int)i + 1);
			}
		}
		json_decref(j);
		free(files[f]);
	}
	for (; f < nf; f++)
		free(files[f]);
	free(files);
	/* Every x86 CPU has the kernel's msr PMU: its registers are events
	 * of the model whether a metric names them or not (-e msr.tsc). */
	for (size_t i = 0; !im->arm && !im->err && i < 5; i++) {
		static const char *const regs[] = { "tsc", "aperf", "mperf", "pperf", "smi" };
		free(msr_event(im, regs[i], NULL));
	}
	json_decref(counters);
	im->std = std;
	json_decref(std_metrics);
	return im->err ? -1 : 0;
}

/* ---- events that metrics name ---------------------------------------------- */

/* The kernel's PERF_METRICS events (Intel, Ice Lake and later): their
 * pseudo-encodings, and the general-counter event that counts the same
 * slots where the kernel lacks them. */
static const struct { const char *name; unsigned raw; const char *fallback; } topdown_events[] = {
	{ "topdown-retiring", 0x8000, "UOPS_RETIRED.SLOTS" },
	{ "topdown-bad-spec", 0x8100, "TOPDOWN.BAD_SPEC_SLOTS" },
	{ "topdown-fe-bound", 0x8200, "IDQ_UOPS_NOT_DELIVERED.CORE" },
	{ "topdown-be-bound", 0x8300, "TOPDOWN.BACKEND_BOUND_SLOTS" },
	{ "topdown-heavy-ops", 0x8400, "UOPS_RETIRED.HEAVY" },
	{ "topdown-br-mispredict", 0x8500, "TOPDOWN.BR_MISPREDICT_SLOTS" },
	{ "topdown-fetch-lat", 0x8600, NULL },
	{ "topdown-mem-bound", 0x8700, "TOPDOWN.MEMORY_BOUND_SLOTS" },
};

static char *topdown_event(struct imp *im, int t)
{
	char *name = imp_name(topdown_events[t].name);
	if (name_index_find(im->ev_ix, name) >= 0)
		return name;
	const struct imp_event *e = add_event(im, name, topdown_events[t].name, "core");
	((struct imp_event *)e)->raw = true;
	((struct imp_event *)e)->value = topdown_events[t].raw;
	const char *file = imp_file(im, im->dir);
	char *desc = xasprintf("%s (PERF_METRICS: read as slots x the fraction the kernel reports)",
			       topdown_events[t].name);
	struct def_stanza *st = event_stanza(im, e, desc, file, 0);
	free(desc);
	imp_attr(st, "flags", "topdown");
	imp_attrf(st, "requires", "events/%s", topdown_events[t].name);
	if (topdown_events[t].fallback) {
		char *fb = imp_name(topdown_events[t].fallback);
		if (name_index_find(im->ev_ix, fb) >= 0)
			imp_attr(st, "fallback", fb);
		free(fb);
	}
	return name;
}

/* Applies "cmask=1", "edge", "inv", "umask=0x2" to a raw core value. */
static bool apply_mod(uint64_t *raw, const char *mod)
{
	const char *eq = strchr(mod, '=');
	size_t kl = eq ? (size_t)(eq - mod) : strlen(mod);
	uint64_t v = eq ? strtoull(eq + 1, NULL, 0) : 1;
	static const struct { const char *k; int lo, bits; } f[] = {
		{ "cmask", 24, 8 }, { "edge", 18, 1 }, { "inv", 23, 1 }, { "umask", 8, 8 }, { "event", 0, 8 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		if (strlen(f[i].k) == kl && !strncmp(mod, f[i].k, kl)) {
			uint64_t mask = ((1ULL << f[i].bits) - 1) << f[i].lo;
			*raw = (*raw & ~mask) | ((v << f[i].lo) & mask);
			return true;
		}
	}
	return false;
}

/* The kernel's msr PMU (arch/x86/events/msr.c): free-running per-CPU
 * registers that take no counter and, like software events, may join a
 * core group, so that a ratio of TSC to cycles is taken over one window. */
static const struct { const char *name; unsigned event; } msr_events[] = {
	{ "tsc", 0 }, { "aperf", 1 }, { "mperf", 2 }, { "pperf", 3 }, { "smi", 4 },
};

static char *msr_event(struct imp *im, const char *which, char **why)
{
	int k = -1;
	for (size_t i = 0; i < ARRAY_SIZE(msr_events); i++)
		if (!strcasecmp(which, msr_events[i].name))
			k = (int)i;
	if (k < 0 || im->arm) {
		*why = xasprintf("PMU 'msr' event '%s' is not imported", which);
		return NULL;
	}
	char *name = xasprintf("msr.%s", msr_events[k].name);
	if (name_index_find(im->ev_ix, name) >= 0)
		return name;
	const char *file = imp_file(im, im->dir);
	if (!have_pmu(im, "msr")) {
		struct def_stanza *st = imp_stanza(im, ST_PMU, "msr", file, 0);
		imp_attr(st, "perf", "msr");
		imp_attr(st, "kind", "software");
		imp_attr(st, "scope", "thread");
		imp_attr(st, "counters", "64");
		im->pmus = xrealloc(im->pmus, (size_t)(im->npmus + 1) * sizeof(char *));
		im->pmus[im->npmus++] = xstrdup("msr");
	}
	struct imp_event *e = add_event(im, name, name, "msr");
	e->fields = xasprintf("event=0x%02x", msr_events[k].event);
	char *desc = xasprintf("The %s register (the kernel's msr PMU)", msr_events[k].name);
	struct def_stanza *st = event_stanza(im, e, desc, file, 0);
	free(desc);
	/* The kernel lists the registers this CPU (or VM) has. */
	imp_attrf(st, "requires", "events/%s", msr_events[k].name);
	return name;
}

/* PMU@BODY@: an Arm raw event, or a variant of a core event. */
static char *at_event(struct imp *im, const char *pmu, const char *body, char **why)
{
	if (im->arm && !strncmp(pmu, "armv8_pmuv3", 11) && !strncmp(body, "event=", 6)) {
		uint64_t code = strtoull(body + 6, NULL, 0);
		char *name = xasprintf("event_0x%llx", (unsigned long long)code);
		if (name_index_find(im->ev_ix, name) < 0) {
			struct imp_event *e = add_event(im, name, name, "core");
			e->raw = true;
			e->value = code;
			event_stanza(im, e, NULL, imp_file(im, im->dir), 0);
		}
		return name;
	}
	if (!strcmp(pmu, "msr"))
		return msr_event(im, body, why);
	if (strcmp(pmu, "cpu") && strcmp(pmu, "cpu_core")) {
		/* An uncore unit's own event, named with its PMU: the same
		 * event when nothing is added to it. */
		char *n = strchr(body, ',') ? NULL : imp_name(body);
		int k = n ? name_index_find(im->ev_ix, n) : -1;
		char *unit = imp_name(pmu);
		if (k >= 0 && !strcmp(im->ev[k].pmu, unit)) {
			free(unit);
			return n;
		}
		free(unit);
		free(n);
		*why = xasprintf("PMU '%s' (in '%s@%s@') is not imported", pmu, pmu, body);
		return NULL;
	}
	char *copy = xstrdup(body);
	char *mods = strchr(copy, ',');
	if (mods)
		*mods++ = '\0';
	char *base = imp_name(copy);
	int b = name_index_find(im->ev_ix, base);
	if (b < 0) {
		int t = -1;
		for (size_t i = 0; i < ARRAY_SIZE(topdown_events); i++)
			if (!strcasecmp(copy, topdown_events[i].name) && im->perf_metrics)
				t = (int)i;
		free(base);
		base = t >= 0 && !mods ? topdown_event(im, t) : NULL;
		if (!base)
			*why = xasprintf("no event '%s'", copy);
		free(copy);
		return base;
	}
	if (!mods) {
		free(copy);
		return base;
	}
	const struct imp_event *be = &im->ev[b];
	uint64_t raw = be->value;
	char *p = mods, *save = NULL;
	for (char *m = strtok_r(p, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		if (!be->raw || !apply_mod(&raw, m)) {
			*why = xasprintf("modifier '%s' of event '%s' is not imported", m, copy);
			free(copy);
			free(base);
			return NULL;
		}
	}
	char *suffix = imp_name(body + strlen(copy) + 1);
	char *vname = xasprintf("%s.%s", base, suffix);
	free(suffix);
	if (name_index_find(im->ev_ix, vname) < 0) {
		char *perf = xasprintf("%s@%s@", pmu, body);
		struct imp_event *e = add_event(im, vname, perf, be->pmu);
		free(perf);
		e = &im->ev[name_index_find(im->ev_ix, vname)];
		e->raw = true;
		e->value = raw;
		char *desc = xasprintf("%s with %s", im->ev[b].perf, body + strlen(copy) + 1);
		struct def_stanza *st = event_stanza(im, e, desc, imp_file(im, im->dir), 0);
		free(desc);
		(void)st;
	}
	free(copy);
	free(base);
	return vname;
}

char *imp_event_ref(struct imp *im, const char *perf_name, char **why)
{
	const char *at = strchr(perf_name, '@');
	if (at) {
		const char *end = strchr(at + 1, '@');
		if (!end) {
			*why = xasprintf("'%s': expected PMU@EVENT@", perf_name);
			return NULL;
		}
		if (end[1]) {
			*why = xasprintf("event modifier in '%s' (user or kernel only) is not imported", perf_name);
			return NULL;
		}
		char *pmu = xstrndup(perf_name, (size_t)(at - perf_name));
		char *body = xstrndup(at + 1, (size_t)(end - at - 1));
		char *r = at_event(im, pmu, body, why);
		free(pmu);
		free(body);
		return r;
	}
	if (strchr(perf_name, ':')) {
		*why = xasprintf("event modifier in '%s' (user or kernel only) is not imported", perf_name);
		return NULL;
	}
	char *name = imp_name(perf_name);
	if (name_index_find(im->ev_ix, name) >= 0)
		return name;
	for (size_t i = 0; im->perf_metrics && i < ARRAY_SIZE(topdown_events); i++) {
		if (!strcasecmp(perf_name, topdown_events[i].name)) {
			free(name);
			return topdown_event(im, (int)i);
		}
	}
	/* perf's TSC tool event is the msr PMU's tsc. */
	if (!strcasecmp(perf_name, "TSC")) {
		free(name);
		return msr_event(im, "tsc", why);
	}
	/* perf's generic names that the JSON does not list. */
	static const struct { const char *perf, *intel, *amd, *arm; } generic[] = {
		{ "cycles", "CPU_CLK_UNHALTED.THREAD", "LS_NOT_HALTED_CYC", "CPU_CYCLES" },
		{ "instructions", "INST_RETIRED.ANY", "EX_RET_INSTR", "INST_RETIRED" },
		{ "slots", "TOPDOWN.SLOTS", NULL, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(generic); i++) {
		const char *as = im->arm ? generic[i].arm : im->amd ? generic[i].amd : generic[i].intel;
		if (as && !strcasecmp(perf_name, generic[i].perf)) {
			char *g = imp_name(as);
			if (name_index_find(im->ev_ix, g) >= 0) {
				free(name);
				return g;
			}
			free(g);
		}
	}
	/* Arm: a common architectural event the CPU's files do not list. */
	if (im->arm && im->std) {
		json_t *ref = json_pack("{s:s}", "ArchStdEvent", perf_name);
		json_t *ev = std_merge(im->std, ref, "EventName");
		json_decref(ref);
		if (ev) {
			import_event(im, ev, NULL, imp_file(im, im->dir), 0);
			json_decref(ev);
			if (name_index_find(im->ev_ix, name) >= 0)
				return name;
		}
	}
	free(name);
	*why = xasprintf("no event or metric '%s'", perf_name);
	return NULL;
}
