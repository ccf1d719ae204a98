/* evdef_impl.h: private to the definition loader's second stage, shared
 * by evdef.c (model_load, model_list), evdef_build*.c (stanzas to structs)
 * and evdef_resolve.c (formula names, metric order, scopes, event lists).
 * Not part of the public interface, which is evdef.h. */
#ifndef PMCTOP_EVDEF_IMPL_H
#define PMCTOP_EVDEF_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "evdef.h"
#include "evdef_parse.h"

struct builder {
	struct model *m;
	const struct def_set *set;
	char *err;
	/* The set's strings outlive the model, which holds their texts
	 * (model_kept): an event's or a metric's string may point into them
	 * (evdef_keep) rather than be copied. */
	bool in_place;
	/* The bits a raw value of PMU raw_mask_pmu may set (its fields and
	 * ignore mask), where raw_mask_ok (evdef_build_event.c). */
	bool raw_mask_ok;
	int raw_mask_pmu;
	uint64_t raw_mask;
	/* The name of stanza hashed and its hash (evdef_check_unique_name),
	 * for evdef_index_add. */
	const struct def_stanza *hashed;
	uint32_t name_hash;
};

/* Records the first error with its position; returns -1. */
int evdef_at(struct builder *b, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* What resolving a metric needs to know of its stanza, indexed like
 * model->metrics. */
struct metric_src {
	const struct def_stanza *st;
	const struct def_attr *formula;
	const struct def_attr *parent;   /* the `parent` line, or NULL */
	const struct def_attr *split;    /* the `split` line, or NULL */
	bool scope_given;
};

/* Each builds one stanza into b->m (the model stanza into the given
 * places, so that model_list() can read it without a model); on error
 * returns -1 with b->err set. */
int evdef_build_model_stanza(struct builder *b, const struct def_stanza *st, struct model_info *mi);
int evdef_build_pmu(struct builder *b, const struct def_stanza *st);
int evdef_build_event(struct builder *b, const struct def_stanza *st);
int evdef_build_metric(struct builder *b, const struct def_stanza *st, struct metric_src *src);
int evdef_build_view(struct builder *b, const struct def_stanza *st);

/* Builds a model from stanzas already read, the first a model stanza
 * (model_load_under reads them from files, perf_import.c makes them from
 * Linux perf's JSON); dir is where they came from. NULL with *cause. */
struct model *evdef_build_set(const struct def_set *set, const char *dir, char **cause);
/* The same for a set read by defset_read, whose texts and files' names
 * the model takes (model_kept, model.h): its events' and metrics'
 * strings are left where they lie. The set keeps the rest, for
 * defset_free. */
struct model *evdef_build_set_kept(struct def_set *set, const char *dir, char **cause);

/* Resolves every metric's formula, refuses cycles and scope mistakes and
 * fills in scopes and event lists; src[j] is metric j's stanza. */
int evdef_resolve_metrics(struct builder *b, const struct metric_src *src);
/* Resolves each event's `fallback` name and checks the PERF_METRICS rules
 * that can be checked on the definitions alone (evdef_build_event.c). */
int evdef_resolve_fallbacks(struct builder *b);

#endif
