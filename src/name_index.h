/* name_index.h: a hash table from names to small integers, so that looking
 * a name up among a model's events, metrics, PMUs or views takes constant
 * time and loading stays near-linear in the size of the definitions. The
 * table keeps pointers to the names, which must outlive it. */
#ifndef PMCTOP_NAME_INDEX_H
#define PMCTOP_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct name_index;

struct name_index *name_index_new(void);
/* One with room for n names before it grows (a loader that knows how
 * many it will add: each growth places every name again). */
struct name_index *name_index_new_for(size_t n);
void name_index_free(struct name_index *ix);
/* Records name -> value; a name already there keeps its first value. */
void name_index_add(struct name_index *ix, const char *name, int value);
/* The value recorded for name, or -1. */
int name_index_find(const struct name_index *ix, const char *name);
/* The same with name's hash, name_index_hash(name), known: a loader
 * that looks a name up in two tables and then adds it to one hashes it
 * once. */
uint32_t name_index_hash(const char *name);
void name_index_add_hashed(struct name_index *ix, const char *name, uint32_t h, int value);
int name_index_find_hashed(const struct name_index *ix, const char *name, uint32_t h);

#endif
