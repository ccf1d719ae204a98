/* perf_import.h: models read from Linux perf's event and metric files
 * (tools/perf/pmu-events/arch/{x86,arm64}, docs/perf-import.md). The
 * importer turns a CPU directory's JSON into the same stanzas that the
 * definition files give (evdef_parse.h), which evdef builds into the same
 * struct model: the scheduler, sampler, outputs and simulator see no
 * difference. A hand-written model under events/ wins for the CPUs it
 * matches; an imported one fills every other CPU that perf knows. */
#ifndef PMCTOP_PERF_IMPORT_H
#define PMCTOP_PERF_IMPORT_H

#include <stdbool.h>

#include "cpuid.h"
#include "evdef.h"

struct def_set;

/* Where perf's files are looked for when --perf-events is not given:
 * "arch" directories holding x86/ and arm64/, first found wins. */
#define PERF_IMPORT_SEARCH_PATH \
	"~/.local/share/pmctop/perf-events:/usr/local/share/pmctop/perf-events:/usr/share/pmctop/perf-events"

/* The arch directory to import from: given (--perf-events) if not NULL,
 * else none if $PMCTOP_PERF_EVENTS is "none", else the first directory
 * of PERF_IMPORT_SEARCH_PATH that holds
 * x86/mapfile.csv or arm64/mapfile.csv; NULL if none (newly allocated). */
char *perf_import_root(const char *given);
/* Makes dir (--perf-events) what perf_import_root(NULL) gives, for the
 * loads that are not handed it (model_load_by_name: a recording's model). */
void perf_import_set_root(const char *dir);

/* One line of a mapfile.csv: the CPU identifier (an x86 regular expression
 * or an Arm MIDR) and the CPU directory, relative to root/ARCH. */
struct perf_cpu {
	char *arch;    /* "x86" or "arm64" */
	char *id;      /* "GenuineIntel-6-6[AC]", "0x00000000410fd400" */
	char *dir;     /* "icelakex", "arm/neoverse-v1" */
};
/* Reads root/x86/mapfile.csv and root/arm64/mapfile.csv (either may be
 * missing, not both). Returns the count, or -1 with *cause. */
int perf_map_read(const char *root, struct perf_cpu **out, char **cause);
void perf_map_free(struct perf_cpu *l, int n);
/* The CPU identifier as perf writes it: "GenuineIntel-6-6A-6" on x86,
 * "0x00000000410fd400" (MIDR, variant and revision zero) on Arm, read from
 * a /proc/cpuinfo-format file; NULL with *cause if it says neither. */
char *perf_cpuid_string(const char *cpuinfo_path, char **cause);
/* The first mapfile line matching cpuid, as perf picks it; -1 if none. */
int perf_map_match(const struct perf_cpu *l, int n, const char *cpuid);

/* The model name of a CPU directory: "perf-icelakex", "perf-neoverse-v1". */
char *perf_model_name(const char *dir);

/* Every CPU directory of the mapfiles as a model_info, named by
 * perf_model_name, with its alias, shape and sim defaults from
 * events/perf/models.txt; dir is the JSON directory (which tells
 * model_info users that it was imported). Returns the count (0 when
 * root is NULL), or -1 with *cause. */
int perf_import_list(const char *root, const char *events_dir, struct model_info **out, char **cause);

struct perf_import_opts {
	bool smt;            /* #SMT_on: whether SMT siblings are online */
	const char *cpuid;   /* strcmp_cpuid_str's CPU, NULL: the directory's first mapfile id */
	/* #num_cpus_online, #num_cores, #num_packages, #num_dies of the
	 * machine the model is loaded for; 0: unknown (a metric using one is
	 * left out). */
	int ncpus_online, ncores, npackages, ndies;
};
/* Loads the imported model name (or alias) from root. A metric that
 * cannot be translated is left out; *skipped (if not NULL) receives one
 * line per such metric, "NAME: reason". NULL with *cause on error. */
struct model *perf_import_load(const char *root, const char *events_dir, const char *name,
			       const struct perf_import_opts *o, char **skipped, char **cause);

/* ---- the program's view of both sources (perf_import_pick.c) ---- */
#include <stdio.h>
/* Appends root's imported models to the list *l of n hand-written ones,
 * leaving out any whose name or alias a hand-written model has. */
int perf_import_join(const char *root, const char *events_dir, struct model_info **l, int *n, char **cause);
/* The model for the CPU that cpuinfo_path describes: a hand-written model
 * made for it, else the imported one perf's mapfile picks, else the
 * hand-written fallback (cpuid_pick_nearest, whose *note it passes on;
 * *note must be NULL on entry). Newly allocated. */
char *perf_import_pick(const char *cpuinfo_path, const char *root, const struct model_info *l, int n,
		       char **note);
/* perf_import_pick for a CPU whose cpuinfo_path the caller has read with
 * cpuid_read already (id; NULL where it failed: not an x86): the program
 * reads /proc/cpuinfo once at start, not twice (issue 39). */
struct cpu_ident;
char *perf_import_pick_id(const char *cpuinfo_path, const struct cpu_ident *id, const char *root,
			  const struct model_info *l, int n, char **note);
/* Loads mi from whichever source it came from, an imported one for a
 * machine of topology t (its SMT and counts; NULL: unknown). */
struct topo;
struct model *perf_import_load_info(const char *events_dir, const char *root, const struct model_info *mi,
				    const struct topo *t, char **skipped, char **cause);
/* Loads imported model name (a recording's) from --perf-events or the
 * search path, with #SMT_on taken as true. */
struct model *perf_import_load_named(const char *events_dir, const char *name, char **cause);
/* What an imported model lacks, in one line: the metrics left out
 * (skipped, as perf_import_load gives it) and, when simulated, the events
 * the simulator gives no meaning to (events/perf/sim.txt). */
char *perf_import_note(const struct model *m, bool sim, const char *skipped);
/* The --list-models section on imported models. */
int perf_import_listing(FILE *out, const char *root, const char *events_dir, char **cause);

/* ---- the expression translator (perf_import_expr.c) ---- */
struct perf_expr_env {
	void *ctx;
	/* A perf event or metric name, escapes removed (possibly PMU@...@ or
	 * NAME:mod), to pmctop's name; NULL with *why if it has none. */
	char *(*name)(void *ctx, const char *perf_name, char **why);
	/* A #literal's value; false if it is not known at import. */
	bool (*literal)(void *ctx, const char *lit, double *v);
	bool (*has_event)(void *ctx, const char *perf_name);
	/* strcmp_cpuid_str(id): 1 if id is this CPU's, else 0. */
	double (*cpuid_is)(void *ctx, const char *id);
	/* A #literal that is a figure of each row rather than a constant
	 * (#num_cpus_online: the row's CPUs), as pmctop formula text; NULL
	 * to ask literal(). May be NULL. */
	char *(*row_literal)(void *ctx, const char *lit);
};
/* pmctop formula text for perf's MetricExpr text; NULL with *why when it
 * cannot be said in pmctop's language. */
char *perf_expr_translate(const char *text, const struct perf_expr_env *env, char **why);

#endif
