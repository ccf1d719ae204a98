/* fuzz_replay.c: libFuzzer harness for the recording reader (replay.c,
 * gzmember.c). The first byte chooses what the rest is: odd, the bytes of
 * a whole file, opened and every interval derived; even, one interval's
 * line, derived over the first line of a small real recording
 * (fuzz/replay-header.json: zen5, 2 CPUs). Nothing may crash, leak or
 * read out of bounds; a refusal must say why. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "fuzz_tmp.h"
#include "gzmember.h"
#include "replay.h"
#include "snapshot.h"

static struct replay *base;

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
