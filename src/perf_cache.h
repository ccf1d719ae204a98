/* perf_cache.h: a cache of imported models (docs/perf-import.md, "The
 * model cache"). Importing a model from Linux perf's JSON costs several
 * milliseconds at every start; the cache keeps what the import makes, the
 * stanzas that evdef builds, in a file under $XDG_CACHE_HOME/pmctop (or
 * ~/.cache/pmctop), and gives them back while every file the import read
 * is unchanged (same path, device, inode, size, mtime and ctime), for the
 * same pmctop binary and the same machine parameters; one file per model,
 * directories and machine parameters. The stanzas given
 * back are those the import made, so the model built from them is the
 * model imported afresh. */
#ifndef PMCTOP_PERF_CACHE_H
#define PMCTOP_PERF_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "evdef_parse.h"
#include "perf_import.h"

/* One file the import read (or looked for: mode 0 is a file that was
 * absent, which must still be absent). */
struct perf_cache_input {
	char *path;
	uint64_t dev, ino, size, mtime_ns, ctime_ns;
	uint32_t mode;
};
void perf_cache_inputs_free(struct perf_cache_input *in, int n);

/* What a load did with the cache, for tests and --verbose. */
enum perf_cache_use {
	PERF_CACHE_OFF,      /* no cache: PMCTOP_NO_CACHE, or no cache directory that is safe */
	PERF_CACHE_HIT,      /* the model came from the cache */
	PERF_CACHE_WRITTEN,  /* imported, and the cache written */
	PERF_CACHE_MISS,     /* imported; the cache not written (an input changed just now, or it could not be) */
};

/* perf_import_load through the cache. *use (if not NULL) says what was
 * done. A cache file that is not the user's, is writable by others, does
 * not decode, or is stale is ignored: the model is imported again. */
struct model *perf_cache_load(const char *root, const char *events_dir, const char *name,
			      const struct perf_import_opts *o, char **skipped, enum perf_cache_use *use,
			      char **cause);

/* ---- the file's contents (perf_cache_codec.c) ---- */
/* The cache file for identity: a header line, a checksum of the rest, the
 * identity, the inputs, dir, skipped (may be NULL) and the stanzas. */
char *perf_cache_encode(const char *identity, const struct perf_cache_input *in, int nin, const struct def_set *set,
			const char *dir, const char *skipped, size_t *len);
/* Decodes a whole file: 0, or -1 (with *cause, if not NULL) when it is
 * not a whole, unaltered cache file of this identity. buf (len bytes and
 * a NUL) is altered: on success the stanzas' strings lie in it and it
 * belongs to *set (set->pool), which defset_free frees; on failure it is
 * still the caller's. Outputs are set only on success. */
int perf_cache_decode(char *buf, size_t len, const char *identity, struct perf_cache_input **in, int *nin,
		      struct def_set *set, char **dir, char **skipped, char **cause);
/* The same for what follows the header and checksum: len bytes at
 * block + off (and a NUL), whose strings stay in block, which on success
 * belongs to *set (the fuzzer's way in past the checksum). */
int perf_cache_decode_body(char *block, size_t off, size_t len, const char *identity, struct perf_cache_input **in,
			   int *nin, struct def_set *set, char **dir, char **skipped, char **cause);
/* The checksum the header carries for body (len bytes). */
uint64_t perf_cache_sum(const char *body, size_t len);

#endif
