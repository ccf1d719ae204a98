/* evdef_build_impl.h: what the stanza builders evdef_build.c,
 * evdef_build_model.c, evdef_build_event.c and evdef_build_metric.c share:
 * the checks of keys and values that all of them make (evdef_build.c).
 * Private to those files; the loader's second stage as a whole shares
 * evdef_impl.h. */
#ifndef PMCTOP_EVDEF_BUILD_IMPL_H
#define PMCTOP_EVDEF_BUILD_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "evdef.h"
#include "evdef_impl.h"

/* The first error, at a line's value or at a stanza's first line. */
#define AT_VALUE(b, st, a, ...) evdef_at(b, (st)->file, (a)->line, (a)->value_col, __VA_ARGS__)
#define AT_STANZA(b, st, ...) evdef_at(b, (st)->file, (st)->line, 1, __VA_ARGS__)

/* Refuses unknown keys and repeats of keys that may appear only once. */
int evdef_check_keys(struct builder *b, const struct def_stanza *st);
/* The stanza's line of that key (evdef_attr_get, evdef_parse.h), saying
 * when it is missing. */
const struct def_attr *evdef_attr_need(struct builder *b, const struct def_stanza *st, const char *key);
/* Values: an int in [lo, hi] (dflt without the line); a u64; the bit
 * ranges of a field; their mask. */
int evdef_get_int(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int lo, int hi,
		  int dflt, int *out);
bool evdef_parse_u64(const char *s, uint64_t *out);
int evdef_parse_bits(const char *s, struct hw_field *f, int max, int *bad);
uint64_t evdef_field_mask(const struct hw_field *f);
/* Words of a value: the next one (allocated; NULL at the end), the column
 * of the word that ends at p, and whether a word is a name. */
char *evdef_next_word(const char **p);
int evdef_word_col(const struct def_attr *a, const char *p, const char *w);
bool evdef_is_name(const char *s);
/* A string of the set for the model: s itself where the model holds
 * the set's texts (builder.in_place), else a copy. */
char *evdef_keep(const struct builder *b, const char *s);
/* Event and metric names share one namespace. */
int evdef_check_unique_name(struct builder *b, const struct def_stanza *st);
/* model_index_add of stanza st's name, hashed once where
 * evdef_check_unique_name hashed it. */
void evdef_index_add(struct builder *b, const struct def_stanza *st, enum name_kind k, const char *name, int i);
/* Turns "col N: message" from expr_parse into file:line:col of the file. */
int evdef_formula_error(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int col,
			const char *cause);

#endif
