/* perf_import_pick.c: the two model sources side by side, for the program:
 * the imported models join the list of hand-written ones (--sim, --model
 * and --list-models take either), the choice for this CPU prefers a
 * hand-written model made for it, then perf's mapfile, then a hand-written
 * fallback (architectural or generic events), and loading goes to the
 * source the model came from. */
#include "config.h"
#include "util.h"
#include "perf_import.h"
#include "perf_cache.h"
#include "topo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int perf_import_join(const char *root, const char *events_dir, struct model_info **l, int *n, char **cause)
{
	struct model_info *imp;
	int ni = perf_import_list(root, events_dir, &imp, cause);
	if (ni < 0)
		return -1;
	for (int i = 0; i < ni; i++) {
		bool clash = model_info_find(*l, *n, imp[i].name) ||
			     (imp[i].alias && model_info_find(*l, *n, imp[i].alias));
		if (clash) {
			/* A hand-written model of the same name or alias wins. */
			model_list_free(&imp[i], 1);
			imp[i] = (struct model_info){ 0 };
			continue;
		}
		*l = xrealloc(*l, (size_t)(*n + 1) * sizeof(**l));
		(*l)[(*n)++] = imp[i];
	}
	free(imp);
	return 0;
}

/* Whether a hand-written model was made for this CPU: a match line of
 * its vendor that names a model range, not a whole family. */
static bool made_for(const struct model_info *mi, const struct cpu_ident *id)
{
	for (int j = 0; mi && j < mi->nmatch; j++) {
		const struct model_match *mm = &mi->match[j];
		if (strcmp(mm->vendor, id->vendor) || mm->family != id->family)
			continue;
		if (mm->model_lo == 0 && mm->model_hi == INT_MAX)
			continue;
		if (id->model >= mm->model_lo && id->model <= mm->model_hi)
			return true;
	}
	return false;
}

char *perf_import_pick(const char *cpuinfo_path, const char *root, const struct model_info *l, int n,
		       char **note)
{
	struct cpu_ident id;
	char *why = NULL;
	bool x86 = cpuid_read(cpuinfo_path, &id, &why) == 0;
	free(why);
	return perf_import_pick_id(cpuinfo_path, x86 ? &id : NULL, root, l, n, note);
}

char *perf_import_pick_id(const char *cpuinfo_path, const struct cpu_ident *id, const char *root,
			  const struct model_info *l, int n, char **note)
{
	char *why = NULL;
	const struct model_info *hand = NULL;
	if (id) {
		hand = cpuid_pick_nearest(id, l, n, note);
		if (hand && made_for(hand, id) && !*note)
			return xstrdup(hand->name);
	}
	if (root) {
		char *cpuid = perf_cpuid_string(cpuinfo_path, &why);
		free(why);
		struct perf_cpu *map;
		int nmap = cpuid ? perf_map_read(root, &map, NULL) : -1;
		int i = nmap > 0 ? perf_map_match(map, nmap, cpuid) : -1;
		char *name = i >= 0 ? perf_model_name(map[i].dir) : NULL;
		if (nmap > 0)
			perf_map_free(map, nmap);
		free(cpuid);
		if (name && model_info_find(l, n, name)) {
			free(*note);
			*note = NULL;
			return name;
		}
		free(name);
	}
	return xstrdup(hand ? hand->name : "generic");
}

struct model *perf_import_load_info(const char *events_dir, const char *root, const struct model_info *mi,
				    const struct topo *t, char **skipped, char **cause)
{
	if (!mi->imported)
		return model_load_under(events_dir, mi->dir, cause);
	/* perf's topology literals, as the machine is when pmctop starts
	 * (a CPU taken offline later does not change them). */
	struct perf_import_opts o = { 0 };
	if (t) {
		for (int i = 0; i < t->ncpus; i++)
			o.ncpus_online += t->cpus[i].online;
		o.smt = t->threads_per_core > 1;
		o.ncores = t->ncores;
		o.npackages = t->nsockets;
		o.ndies = t->ndies > 0 ? t->ndies : t->nsockets;
	}
	return perf_cache_load(root, events_dir, mi->name, &o, skipped, NULL, cause);
}

struct model *perf_import_load_named(const char *events_dir, const char *name, char **cause)
{
	char *root = perf_import_root(NULL);
	struct perf_import_opts o = { .smt = true };
	struct model *m = NULL;
	if (root)
		m = perf_cache_load(root, events_dir, name, &o, NULL, NULL, cause);
	else
		set_cause(cause, "no Linux perf event files for model '%s' (--perf-events DIR, docs/perf-import.md)", name);
	free(root);
	return m;
}

char *perf_import_note(const struct model *m, bool sim, const char *skipped)
{
	int nskip = 0, nosim = 0, ncounted = 0;
	for (const char *p = skipped; p && *p; p++)
		nskip += *p == '\n';
	nskip += skipped && *skipped;
	for (int e = 0; e < m->nevents; e++) {
		const struct event_def *ev = &m->events[e];
		if (m->pmus[ev->pmu].kind != PMU_CORE && m->pmus[ev->pmu].kind != PMU_UNCORE)
			continue;
		ncounted++;
		nosim += !ev->sim_text;
	}
	/* One line: the dashboard shows the first line of its notes. */
	if (sim)
		return xasprintf("SIMULATED counts of imported model %s: %d of %d events have no simulated meaning and "
				 "are not counted (figures built on them show -); %d perf metrics not translated "
				 "(docs/perf-import.md)", m->name, nosim, ncounted, nskip);
	return xasprintf("model %s is imported from Linux perf's files; %d of its metrics could not be translated "
			 "(docs/perf-import.md)", m->name, nskip);
}

int perf_import_listing(FILE *out, const char *root, const char *events_dir, char **cause)
{
	struct model_info *l;
	int n = perf_import_list(root, events_dir, &l, cause);
	if (n < 0)
		return -1;
	/* Headings in capitals and notes indented, as the first listing's:
	 * the shell completions take every other line's first word as a name. */
	if (!root) {
		fprintf(out, "\n  (no Linux perf event files found in %s; --perf-events DIR: docs/perf-import.md)\n",
			PERF_IMPORT_SEARCH_PATH);
		return 0;
	}
	fprintf(out, "\n%-22s  %-9s  %-9s  %s\n", "IMPORTED MODEL", "ALIAS", "SIM SHAPE", "LINUX PERF DIRECTORY");
	/* The directory is the user's (--perf-events): no escapes reach the terminal. */
	char *clean = text_sanitize(root);
	fprintf(out, "  (from %s; used where no model above is made for the CPU)\n", clean);
	free(clean);
	for (int i = 0; i < n; i++) {
		char shape[48];
		const int *sh = l[i].sim_shape;
		snprintf(shape, sizeof(shape), "%dx%dx%dx%d", sh[0], sh[1], sh[2], sh[3]);
		const char *rel = strncmp(l[i].dir, root, strlen(root)) ? l[i].dir : l[i].dir + strlen(root) + 1;
		fprintf(out, "%-22s  %-9s  %-9s  %s\n", l[i].name, l[i].alias ? l[i].alias : "-", shape, rel);
	}
	model_list_free(l, n);
	return 0;
}
