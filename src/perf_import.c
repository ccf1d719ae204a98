/* perf_import.c: loads one of perf's CPU directories as a model. The JSON
 * becomes stanzas (perf_import_events.c, perf_import_metrics.c) beside
 * pmctop's own generic software and power definitions, and evdef builds
 * them as it builds a hand-written model, so every later stage sees a
 * struct model and nothing else. The stanza-building helpers that it and
 * those files share live in perf_import_stanza.c, so this file only calls
 * down. */
#include "config.h"
#include "util.h"
#include "name_index.h"
#include "evdef_impl.h"
#include "perf_import_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* pmctop's own definitions every imported model carries: software events,
 * /proc/stat busy time, RAPL energy (relative to the definitions
 * directory); and, after the views made from perf's metric groups so that
 * the first of those stays the default view, the tasks view. */
static const char *const generic_files[] = { "generic/software.def", "generic/power.def",
					     "generic/power_domains.def" };
#define TASKS_FILE "perf/tasks.def"

static void imp_done(struct imp *im)
{
	for (int i = 0; i < im->nev; i++) {
		free(im->ev[i].name);
		free(im->ev[i].perf);
		free(im->ev[i].pmu);
		free(im->ev[i].fields);
	}
	free(im->ev);
	name_index_free(im->ev_ix);
	name_index_free(im->met_ix);
	int nm = (int)json_array_size(im->metrics);
	for (int i = 0; im->met_names && i < nm; i++)
		free(im->met_names[i]);
	free(im->met_names);
	json_decref(im->metrics);
	json_decref(im->std);
	for (int i = 0; i < im->npmus; i++)
		free(im->pmus[i]);
	free(im->pmus);
	for (int i = 0; im->sim_lc && i < im->nsim; i++)
		free(im->sim_lc[i]);
	free(im->sim_lc);
	name_index_free(im->sim_ix);
	perf_sim_free(im->sim, im->nsim);
	model_free(im->simfrom);
	free(im->arch);
	free(im->dir);
	free(im->cpudir);
	free(im->err);
	free(im->skipped);
}

/* The mapfile line of the model called name (or by its alias). */
static int find_cpu(const struct perf_cpu *map, int nmap, const struct perf_extra *x, int nx, const char *name)
{
	for (int i = 0; i < nmap; i++) {
		char *mn = perf_model_name(map[i].dir);
		const struct perf_extra *e = perf_extra_find(x, nx, map[i].dir);
		bool hit = !strcmp(mn, name) || (e && e->alias && !strcmp(e->alias, name));
		free(mn);
		if (hit)
			return i;
	}
	return -1;
}

char *perf_import_cpu_dir(const char *root, const char *events_dir, const char *name, char **cause)
{
	struct perf_cpu *map = NULL;
	struct perf_extra *extra = NULL;
	int nx = 0, nmap = perf_map_read(root, &map, cause);
	if (nmap < 0)
		return NULL;
	if ((nx = perf_extra_read(events_dir, &extra, cause)) < 0) {
		perf_map_free(map, nmap);
		return NULL;
	}
	int c = find_cpu(map, nmap, extra, nx, name);
	char *dir = NULL;
	if (c < 0)
		set_cause(cause, "no CPU directory in %s's mapfiles for model '%s'", root, name);
	else
		dir = xasprintf("%s/%s/%s", root, map[c].arch, map[c].dir);
	perf_map_free(map, nmap);
	perf_extra_free(extra, nx);
	return dir;
}

int perf_import_stanzas(const char *root, const char *events_dir, const char *name, const struct perf_import_opts *o,
			struct def_set *out, char **dir, char **skipped, char **cause)
{
	struct perf_cpu *map = NULL;
	struct perf_extra *extra = NULL;
	memset(out, 0, sizeof(*out));
	*dir = NULL;
	int nx = 0, nmap = perf_map_read(root, &map, cause);
	if (nmap < 0)
		return -1;
	if ((nx = perf_extra_read(events_dir, &extra, cause)) < 0) {
		perf_map_free(map, nmap);
		return -1;
	}
	int c = find_cpu(map, nmap, extra, nx, name);
	if (c < 0) {
		set_cause(cause, "no CPU directory in %s's mapfiles for model '%s'", root, name);
		perf_map_free(map, nmap);
		perf_extra_free(extra, nx);
		return -1;
	}
	const struct perf_extra *x = perf_extra_find(extra, nx, map[c].dir);
	struct def_set set = { 0 };
	struct imp im = { .set = &set, .root = root, .events_dir = events_dir, .opts = o };
	im.arch = xstrdup(map[c].arch);
	im.cpudir = xstrdup(map[c].dir);
	im.dir = xasprintf("%s/%s/%s", root, map[c].arch, map[c].dir);
	im.arm = !strcmp(im.arch, "arm64");
	im.amd = !im.arm && !strncmp(map[c].id, "AuthenticAMD", 12);
	im.intel = !im.arm && !im.amd;
	im.cpuid = o && o->cpuid ? o->cpuid : map[c].id;
	im.slots = x ? x->slots : 0;
	im.ev_ix = name_index_new();
	im.met_ix = name_index_new();
	im.metrics = json_array();
	char *mname = perf_model_name(map[c].dir);
	struct def_stanza *st = imp_stanza(&im, ST_MODEL, mname, imp_file(&im, im.dir), 0);
	free(mname);
	imp_attrf(st, "desc", "%s (imported from Linux perf's %s/%s)", x && x->desc ? x->desc : map[c].dir, map[c].arch,
		  map[c].dir);
	if (x && x->alias)
		imp_attr(st, "alias", x->alias);
	if (x && x->shape[0])
		imp_attrf(st, "shape", "%dx%dx%dx%d", x->shape[0], x->shape[1], x->shape[2], x->shape[3]);
	else
		imp_attr(st, "shape", "1x1x4x2");
	int rc = 0;
	if (x && x->simfrom && !(im.simfrom = model_load_by_name(events_dir, x->simfrom, cause)))
		rc = -1;
	/* A line without sim= is the CPU of its simfrom model (perf-amdzen3
	 * and amd-zen3): both simulate one clock and one width. */
	if (x && x->sim)
		imp_attr(st, "sim", x->sim);
	else if (im.simfrom && im.simfrom->sim_args)
		imp_attr(st, "sim", im.simfrom->sim_args);
	if (x && x->l3_domain)
		imp_attr(st, "l3_domain", x->l3_domain);
	for (size_t i = 0; i < ARRAY_SIZE(generic_files) && rc == 0; i++)
		rc = imp_add_file(&im, generic_files[i], cause);
	if (rc == 0 && (im.nsim = perf_sim_read(events_dir, &im.sim, cause)) < 0) {
		im.nsim = 0;
		rc = -1;
	}
	if (rc == 0 && (imp_events(&im) < 0 || imp_metrics(&im) < 0)) {
		set_cause(cause, "%s", im.err ? im.err : "import failed");
		rc = -1;
	}
	if (rc == 0)
		rc = imp_add_file(&im, TASKS_FILE, cause);
	if (rc == 0) {
		*out = set;
		*dir = xstrdup(im.dir);
		if (skipped) {
			*skipped = im.skipped;
			im.skipped = NULL;
		}
	} else {
		defset_free(&set);
	}
	imp_done(&im);
	perf_map_free(map, nmap);
	perf_extra_free(extra, nx);
	return rc;
}

struct model *perf_import_load(const char *root, const char *events_dir, const char *name,
			       const struct perf_import_opts *o, char **skipped, char **cause)
{
	struct def_set set;
	char *dir, *skip = NULL;
	if (perf_import_stanzas(root, events_dir, name, o, &set, &dir, &skip, cause) < 0)
		return NULL;
	struct model *m = evdef_build_set(&set, dir, cause);
	if (m)
		m->imported = true;
	if (m && skipped)
		*skipped = skip;
	else
		free(skip);
	defset_free(&set);
	free(dir);
	return m;
}
