/* perf_import_impl.h: shared by the importer's files: perf_import.c
 * (loading one CPU directory into stanzas), perf_import_events.c (PMUs and
 * events), perf_import_metrics.c (metrics and views), perf_import_map.c
 * (mapfiles and the model list), perf_import_extra.c (the data files
 * under events/perf/) and perf_import_json.c (reading perf's JSON).
 * Not part of the public interface, perf_import.h. */
#ifndef PMCTOP_PERF_IMPORT_IMPL_H
#define PMCTOP_PERF_IMPORT_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "evdef_parse.h"
#include "perf_import.h"

/* What events/perf/models.txt says of a CPU directory that perf's files
 * do not: a short alias, the --sim defaults, the issue width (#slots). */
struct perf_extra {
	char *dir;            /* "icelakex" or "arm/neoverse-v1" (its last part) */
	char *alias, *sim, *desc, *l3_domain;
	char *simfrom;        /* hand-written model whose sim formulas its events of the same name take */
	int shape[4];
	double slots;         /* 0: unknown */
};
int perf_extra_read(const char *events_dir, struct perf_extra **out, char **cause);
const struct perf_extra *perf_extra_find(const struct perf_extra *l, int n, const char *dir);
void perf_extra_free(struct perf_extra *l, int n);

/* What the simulator counts for a perf event (events/perf/sim.txt). */
struct perf_sim_map { char *event; char *formula; };
int perf_sim_read(const char *events_dir, struct perf_sim_map **out, char **cause);
void perf_sim_free(struct perf_sim_map *l, int n);

/* One imported event: its pmctop name and how it was encoded, so that a
 * metric's "cpu@EVENT,cmask=1@" can derive a variant of it. */
struct imp_event {
	char *name;           /* pmctop name (lower case) */
	char *perf;           /* perf's name as written in the JSON */
	char *pmu;            /* pmctop PMU name */
	bool raw;             /* encoded as a raw value, else as fields */
	uint64_t value;       /* the raw value */
	char *fields;         /* the fields text ("event=0x35,umask=0x..") */
};

struct imp {
	struct def_set *set;
	const char *root, *events_dir;
	char *arch;           /* "x86" or "arm64" */
	char *dir;            /* root/arch/cpudir */
	char *cpudir;         /* mapfile's directory name */
	bool amd, intel, arm;
	bool perf_metrics;    /* Intel PERF_METRICS: topdown-* events exist */
	int core_counters;    /* general counters of the core PMU */
	const struct perf_import_opts *opts;
	const char *cpuid;    /* for strcmp_cpuid_str */
	double slots;
	struct imp_event *ev; int nev;
	struct name_index *ev_ix;       /* pmctop event name -> ev index */
	json_t *metrics;                /* array of every metric object */
	struct name_index *met_ix;      /* pmctop metric name -> metrics index */
	char **met_names;               /* owned names for met_ix */
	json_t *std;                    /* Arm's common events, or NULL */
	struct perf_sim_map *sim; int nsim;
	struct name_index *sim_ix;      /* sim[] by lower-case event name, made at first use */
	char **sim_lc;                  /* [nsim] those names */
	struct model *simfrom;          /* models.txt simfrom=, or NULL */
	char **pmus; int npmus;         /* pmctop PMU names made so far */
	char *skipped;                  /* "NAME: reason" lines */
	char *err;
};

/* What perf_import_load builds, before evdef builds it: the stanzas of
 * model name, the CPU directory they came from (the model's dir) and the
 * metrics left out (*skipped, if not NULL). -1 with *cause. The model
 * cache (perf_cache.c) keeps and gives back exactly these. */
int perf_import_stanzas(const char *root, const char *events_dir, const char *name, const struct perf_import_opts *o,
			struct def_set *out, char **dir, char **skipped, char **cause);
/* The CPU directory (root/ARCH/DIR) of model name; NULL with *cause. */
char *perf_import_cpu_dir(const char *root, const char *events_dir, const char *name, char **cause);

/* Stanza building (perf_import_stanza.c): a new stanza of set (its file must be in set->files). */
struct def_stanza *imp_stanza(struct imp *im, enum stanza_kind kind, const char *name, const char *file, int line);
void imp_attr(struct def_stanza *st, const char *key, const char *value);
/* Moves the stanzas of a definitions file (relative to the definitions
 * directory, e.g. "perf/core-intel.def") into im's set; -1 with *cause. */
int imp_add_file(struct imp *im, const char *file, char **cause);
void imp_attrf(struct def_stanza *st, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Records path as one of set's files; returns the set's copy. */
const char *imp_file(struct imp *im, const char *path);
/* pmctop's name for a perf name: lower case, '-' and other characters
 * outside [a-z0-9_.] as '_' (newly allocated). */
char *imp_name(const char *perf_name);

/* One of perf's JSON files (perf_import_json.c): what jansson's
 * json_load_file gives, read faster; NULL with *cause ("FILE:LINE:COL:
 * what was expected") on an error. perf_json_parse reads text of len
 * bytes that came from path. */
json_t *perf_json_load(const char *path, char **cause);
json_t *perf_json_parse(const char *text, size_t len, const char *path, char **cause);

/* Reads every event file of the directory (and the Arm standard events
 * they refer to) into PMU and event stanzas. */
int imp_events(struct imp *im);
/* The event for a metric's reference: a name, NAME:mod, or PMU@...@ (a
 * variant is added as a new event stanza); NULL with *why. */
char *imp_event_ref(struct imp *im, const char *perf_name, char **why);
/* Translates every metric (skipping those that cannot be, into
 * im->skipped) and builds views from their metric groups. */
int imp_metrics(struct imp *im);

/* pmctop's common metrics and views on the model (perf_import_common.c,
 * events/perf/common-VENDOR.def). Read before perf's metrics are named;
 * NULL with *cause when the file is broken (a missing file is none). */
struct imp_common;
struct imp_common *imp_common_read(struct imp *im, char **cause);
void imp_common_free(struct imp_common *c);
/* The stanza that imports perf's metric perf_name under a common name;
 * has(ctx, perf name) says whether the CPU's files have a metric. */
const struct def_stanza *imp_common_alias(const struct imp_common *c, const char *perf_name,
					  bool (*has)(void *ctx, const char *perf_name), void *ctx);
/* Whether a common metric takes name: a perf metric of that name that is
 * not that metric gives way. */
bool imp_common_reserves(const struct imp_common *c, const char *name,
			 bool (*has)(void *ctx, const char *perf_name), void *ctx);
/* Gives the metric stanza st an alias stanza's label, range, truth, ... */
void imp_common_annotate(const struct def_stanza *alias, struct def_stanza *st);
/* Adds the formula metrics the model can make, then the views. */
void imp_common_add(struct imp_common *c, struct imp *im);

#endif
