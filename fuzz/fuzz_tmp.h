/* fuzz_tmp.h: a private temporary directory for a fuzz harness, removed
 * when the fuzzer exits (libFuzzer ends with exit(), which runs atexit
 * handlers), so that a run leaves no files behind; writing a file there;
 * and the check that a file's warnings name it. */
#ifndef PMCTOP_FUZZ_TMP_H
#define PMCTOP_FUZZ_TMP_H

#include <stdlib.h>
#include <ftw.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static char *fuzz_dir;

static int fuzz_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

/* Empties the directory, keeping it. */
__attribute__((unused)) static void fuzz_tmp_clear(void)
{
	if (fuzz_dir)
		nftw(fuzz_dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (fuzz_dir && mkdir(fuzz_dir, 0700) < 0)
		abort();
}

__attribute__((unused)) static void fuzz_tmp_remove(void)
{
	if (fuzz_dir)
		nftw(fuzz_dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

__attribute__((unused)) static const char *fuzz_tmp(const char *prefix)
{
	if (!fuzz_dir) {
		/* Memory-backed where there is one: every input rewrites
		 * files, which a disk makes a hundred times slower. */
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
		fuzz_dir = xasprintf("%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
		if (!mkdtemp(fuzz_dir))
			abort();
		atexit(fuzz_tmp_remove);
	}
	return fuzz_dir;
}

/* Writes len bytes of s to the file dir/name, which is created or
 * truncated (the parent directories must exist). */
__attribute__((unused)) static void fuzz_write(const char *dir, const char *name, const char *s, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		abort();
	fwrite(s, 1, len, f);
	fclose(f);
	free(path);
}

/* Aborts unless every line of warn (which it frees) starts with path and
 * holds no control byte: how a loader must report a bad file. */
__attribute__((unused)) static void fuzz_check_warnings(char *warn, const char *path)
{
	for (char *line = warn, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, path, strlen(path)) != 0 || text_bad_at(line) >= 0)
			abort();
	}
	free(warn);
}

#endif
