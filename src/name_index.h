/* name_index.h: a hash table from names to small integers, so that looking
 * a name up among a model's events, metrics, PMUs or views takes constant
 * time and loading stays near-linear in the size of the definitions. The
 * table keeps pointers to the names, which must outlive it. */
#ifndef PMCTOP_NAME_INDEX_H
#define PMCTOP_NAME_INDEX_H

struct name_index;

struct name_index *name_index_new(void);
void name_index_free(struct name_index *ix);
/* Records name -> value; a name already there keeps its first value. */
void name_index_add(struct name_index *ix, const char *name, int value);
/* The value recorded for name, or -1. */
int name_index_find(const struct name_index *ix, const char *name);

#endif
