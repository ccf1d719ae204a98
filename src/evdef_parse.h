/* evdef_parse.h: internal to the definition loader. The first stage reads
 * model.def and the files it includes into a flat list of stanzas (keyword,
 * name, key/value attributes, each with its file:line:col); the second stage
 * (evdef.c, evdef_build.c and evdef_resolve.c, sharing evdef_impl.h)
 * turns the stanzas into a struct model. Keeping the stages apart lets
 * model_list() read only model stanzas, and lets a PMU be defined after the
 * events that use it. */
#ifndef PMCTOP_EVDEF_PARSE_H
#define PMCTOP_EVDEF_PARSE_H

#include <stdbool.h>
#include <stddef.h>

enum stanza_kind { ST_MODEL, ST_PMU, ST_EVENT, ST_METRIC, ST_VIEW };

struct def_attr {
	char *key;
	char *value;        /* comment removed, trimmed, enclosing quotes removed */
	int line;
	int key_col;
	int value_col;      /* column of the value's first character */
};

struct def_stanza {
	enum stanza_kind kind;
	char *name;
	const char *file;   /* owned by the def_file list */
	int line;
	int name_col;
	int nattrs;
	struct def_attr *attrs;
};

struct def_set {
	int nstanzas;
	struct def_stanza *stanzas;
	int nfiles;
	char **files;       /* every file read, as opened (for messages) */
	char **real;        /* their canonical paths (to refuse including one twice) */
	/* When not NULL, every name, key, value and file string above lies
	 * in this one block (the model cache's file, perf_cache_codec.c),
	 * which defset_free frees instead of each string. */
	char *pool;
	/* When not NULL (defset_read), the stanzas' names, keys and values
	 * lie in these texts of the files read, cut into strings where they
	 * were read (a model's 2,600 attributes cost two allocations each
	 * at every start), which defset_free frees instead of each string. */
	char **texts;
	size_t *lens;       /* each text's length, beside texts */
	/* The texts and the files' names were given to a model, which
	 * holds the strings built from them in place (evdef_build_set_kept):
	 * defset_free frees the rest of the set alone. */
	bool kept;
};

/* Reads dir/model.def and, when follow_includes is set, every file its model
 * stanza includes (relative to the including file), in order; with root
 * set, an included file must lie inside root. On error returns -1 with
 * *cause "file:line:col: ...". */
int defset_read(const char *root, const char *dir, bool follow_includes, struct def_set *set, char **cause);
/* Reads one file of pmu, event, metric or view stanzas (no model stanza,
 * no includes): a user's own definitions, such as the views file. */
int defset_read_file(const char *path, struct def_set *set, char **cause);
/* The same for a file of the user's (views/MODEL.def): it and what it
 * includes are opened under util.h's user_file_open rule. */
int defset_read_user_file(const char *path, struct def_set *set, char **cause);
void defset_free(struct def_set *set);
/* The stanza's line of that key, or NULL (the first, for a repeated key). */
const struct def_attr *evdef_attr_get(const struct def_stanza *st, const char *key);

/* p (an array of n elements of size bytes) with room for one more: the
 * capacity starts at 8 and doubles at each power of two after, so that n additions cost O(n)
 * even where realloc copies (as under ThreadSanitizer or with allocators
 * that do not remap). */
void *evdef_grow(void *p, int n, size_t size);

/* "file:line:col: message" as a new string. */
char *def_where(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
