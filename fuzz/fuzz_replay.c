/* fuzz_replay.c: libFuzzer harness for the recording reader (replay.c,
 * gzmember.c). The first byte chooses what the rest is: odd, the bytes of
 * a whole file, opened and every interval derived; 2 modulo 4, a large
 * interval in few bytes (expand, below), written after the first line of
 * a small real recording (fuzz/replay-header.json: zen5, 2 CPUs); 0
 * modulo 4, one interval's line, derived over that first line. Nothing
 * may crash, leak or read out of bounds; a refusal must say why.
 *
 * libFuzzer's inputs stay small (-max_len=8192), and so do the lines they
 * make; the reader's limits on what a line may cost (depth, arrays and
 * objects, values, bytes inflated) are reached only by lines of
 * megabytes. The expand mode builds them: prefix, a unit repeated up to
 * 8 MiB and a suffix, compressed into one member as the recorder writes
 * it, so a few bytes of input become a line of any size up to 8 MiB,
 * several times what this recording's budget allows.
 *
 * Built with -Wl,--wrap for model_load_by_name and model_free: a model the
 * reader loads by name is kept and handed out again to later inputs. The
 * loader has harnesses of its own (fuzz_evdef, fuzz_views); loading zen5
 * from disk for every whole-file input took 60 % of this harness's time.
 * The reader only reads a model once loaded (it holds it const), so a kept
 * one is the same as a fresh one. A name that fails to load is tried again
 * every time, through the real loader. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "evdef.h"
#include "fuzz_tmp.h"
#include "gzmember.h"
#include "replay.h"
#include "snapshot.h"

static struct replay *base;
static char base_line[1 << 16];
static size_t base_len;

struct model *__real_model_load_by_name(const char *events_dir, const char *name, char **cause);
void __real_model_free(struct model *m);
struct model *__wrap_model_load_by_name(const char *events_dir, const char *name, char **cause);
void __wrap_model_free(struct model *m);

/* A handful is enough: only the names that load are kept (zen5 and its
 * aliases, and whatever other model an input names). */
enum { KEPT_MAX = 32 };
static struct { char *dir, *name; struct model *m; } kept[KEPT_MAX];
static int nkept;

struct model *__wrap_model_load_by_name(const char *events_dir, const char *name, char **cause)
{
	for (int i = 0; i < nkept; i++)
		if (!strcmp(kept[i].dir, events_dir) && !strcmp(kept[i].name, name))
			return kept[i].m;
	struct model *m = __real_model_load_by_name(events_dir, name, cause);
	if (m && nkept < KEPT_MAX)
		kept[nkept++] = (typeof(kept[0])){ xstrdup(events_dir), xstrdup(name), m };
	return m;
}

void __wrap_model_free(struct model *m)
{
	for (int i = 0; i < nkept; i++)
		if (kept[i].m == m)
			return;
	__real_model_free(m);
}

static void open_base(void)
{
	FILE *f = fopen(FUZZ_SRC_DIR "/replay-header.json", "r");
	if (!f)
		abort();
	base_len = fread(base_line, 1, sizeof(base_line) - 1, f);
	fclose(f);
	char *path = xasprintf("%s/base", fuzz_tmp("fuzz_replay"));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || gzm_append(fd, base_line, base_len, 0, NULL) < 0)
		abort();
	close(fd);
	char *cause = NULL;
	base = replay_open(path, FUZZ_EVENTS_DIR, &cause);
	if (!base) {
		fprintf(stderr, "fuzz_replay: %s\n", cause);
		abort();
	}
	free(path);
}

/* The expand mode: PREFIX NUL UNIT NUL three bytes of repeat count
 * (little-endian) SUFFIX, the repeats stopping at 8 MiB. */
#define EXPAND_MAX ((size_t)8 << 20)

static char *expand(const uint8_t *p, size_t n, size_t *len)
{
	const uint8_t *z1 = memchr(p, 0, n);
	const uint8_t *z2 = z1 ? memchr(z1 + 1, 0, n - (size_t)(z1 + 1 - p)) : NULL;
	if (!z2 || (size_t)(p + n - (z2 + 1)) < 3)
		return NULL;
	size_t lp = (size_t)(z1 - p), lu = (size_t)(z2 - z1 - 1);
	size_t count = z2[1] | (size_t)z2[2] << 8 | (size_t)z2[3] << 16;
	const uint8_t *suffix = z2 + 4;
	size_t ls = (size_t)(p + n - suffix);
	if (lu == 0)
		count = 0;
	else if (count > EXPAND_MAX / lu)
		count = EXPAND_MAX / lu;
	*len = lp + lu * count + ls;
	char *t = xmalloc(*len + 1);
	memcpy(t, p, lp);
	for (size_t i = 0; i < count; i++)
		memcpy(t + lp + i * lu, z1 + 1, lu);
	memcpy(t + lp + lu * count, suffix, ls);
	return t;
}

/* Opens path and derives its first eight intervals. */
static void replay_file(const char *path)
{
	char *cause = NULL;
	struct replay *r = replay_open(path, FUZZ_EVENTS_DIR, &cause);
	if (!r) {
		if (!cause)
			abort();
		free(cause);
		return;
	}
	for (int i = 0; i < replay_count(r) && i < 8; i++) {
		struct snapshot *s = replay_snapshot(r, i, &cause);
		if (!s && !cause)
			abort();
		snapshot_free(s);
		free(cause);
		cause = NULL;
	}
	replay_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!base)
		open_base();
	char *cause = NULL;
	static char *path;
	if (!path)
		path = xasprintf("%s/file", fuzz_tmp("fuzz_replay"));
	if ((data[0] & 3) == 2) {
		size_t len;
		char *text = expand(data + 1, size - 1, &len);
		if (!text)
			return 0;
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || gzm_append(fd, base_line, base_len, 0, NULL) < 0 ||
		    gzm_append(fd, text, len, 1000, NULL) < 0)
			abort();
		close(fd);
		free(text);
		replay_file(path);
		return 0;
	}
	if (!(data[0] & 1)) {
		struct snapshot *s = replay_snapshot_text(base, (const char *)data + 1, size - 1, &cause);
		if (!s && !cause)
			abort();
		snapshot_free(s);
		free(cause);
		return 0;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fd);
	replay_file(path);
	return 0;
}
