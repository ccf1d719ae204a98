/* fuzz_replay.c: libFuzzer harness for the recording reader (replay.c,
 * gzmember.c). The first byte chooses what the rest is: odd, the bytes of
 * a whole file, opened and every interval derived; even, one interval's
 * line, derived over the first line of a small real recording
 * (fuzz/replay-header.json: zen5, 2 CPUs). Nothing may crash, leak or
 * read out of bounds; a refusal must say why.
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
	static char line[1 << 16];
	size_t n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	char *path = xasprintf("%s/base", fuzz_tmp("fuzz_replay"));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || gzm_append(fd, line, n, 0, NULL) < 0)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!base)
		open_base();
	char *cause = NULL;
	if (!(data[0] & 1)) {
		struct snapshot *s = replay_snapshot_text(base, (const char *)data + 1, size - 1, &cause);
		if (!s && !cause)
			abort();
		snapshot_free(s);
		free(cause);
		return 0;
	}
	static char *path;
	if (!path)
		path = xasprintf("%s/file", fuzz_tmp("fuzz_replay"));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fd);
	struct replay *r = replay_open(path, FUZZ_EVENTS_DIR, &cause);
	if (!r) {
		if (!cause)
			abort();
		free(cause);
		return 0;
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
	return 0;
}
