/* evdef.h: the definition loader: reads a model's files under events/
 * (docs/definitions.md) into a struct model (model.h, which this header
 * includes for its callers), lists the models there, and makes a model's
 * event variants ("EVENT:MODS"). */
#ifndef PMCTOP_EVDEF_H
#define PMCTOP_EVDEF_H

#include <stdbool.h>

#include "model.h"

/* perf's modifier letters ("u", "k", "uk", "G", ...; the text after ':')
 * to the bits they exclude, as perf does: naming u, k or h leaves out the
 * other two of them, naming G or H the other one. canon gets the letters
 * in the order u, k, h, G, H. 0, or -1 with *cause for an unknown or
 * repeated letter. */
int event_modifiers_parse(const char *text, unsigned *excl, char canon[8], char **cause);
/* "kernel, hypervisor" for excl; the caller frees. */
char *event_modifiers_text(unsigned excl);

/* Loads the model in directory dir (its model.def names the other files).
 * On error returns NULL and sets *cause to "file:line:col: expected ...". */
struct model *model_load(const char *dir, char **cause);
/* The same, with every included file confined to events_dir (the tree that
 * dir was found in): what pmctop itself uses. */
struct model *model_load_under(const char *events_dir, const char *dir, char **cause);
/* Loads model NAME from events_dir (searching its subdirectories). */
struct model *model_load_by_name(const char *events_dir, const char *name, char **cause);

/* Lists every model under events_dir: names and directories, in a stable
 * order. Returns the count; the caller frees with model_list_free. */
struct model_info {
	char *name; char *desc; char *dir;
	int nmatch; struct model_match *match;
	char *alias;          /* see struct model */
	char *l3_domain;      /* see struct model */
	int sim_shape[4];
	char *sim_args;
	bool imported;        /* read from Linux perf's JSON files (perf_import.h); dir is theirs */
};
int model_list(const char *events_dir, struct model_info **out, char **cause);
void model_list_free(struct model_info *l, int n);
/* The model named name, or whose alias is name; NULL if none. */
const struct model_info *model_info_find(const struct model_info *l, int n, const char *name);

/* The event named name, or for "EVENT:MODS" the variant of EVENT with
 * those privilege modifiers, made and appended to m's events the first
 * time it is asked for. A perf generic name (instructions, page-faults)
 * finds the model's event that counts it. -1 with *cause for an unknown
 * event, -2 for a bad modifier or an event that cannot take one (uncore,
 * topdown, /proc/stat). */
int model_event_variant(struct model *m, const char *name, char **cause);

#endif
