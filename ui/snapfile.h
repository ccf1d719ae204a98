/* snapfile.h: the dashboard's snapshot key: one interval written as a
 * JSON object (the batch JSON writer's format, src/output_json.c) to a
 * new file. No curses, so that a test can write and read one back. */
#ifndef PMCTOP_UI_SNAPFILE_H
#define PMCTOP_UI_SNAPFILE_H

#include "snapshot.h"

/* Tries -1, -2, ... after the time in the name before giving up. */
#define SNAPFILE_MAX_SUFFIX 999

/* Writes the metrics planned in s, and the events in events[nevents]
 * that were counted in it (as rates per second), to
 * DIR/pmctop-snapshot-YYYYmmdd-HHMMSS.json, named by the local time at
 * the end of the interval. DIR is dir, else $PMCTOP_SNAPSHOT_DIR, else
 * the current directory. An existing file is never replaced or followed:
 * the name takes -1, -2, ... instead. Returns 0 and the path written in
 * *path (caller frees), or -1 with *cause; a failed write leaves no file. */
int snapfile_write(const struct snapshot *s, const char *dir, const int *events, int nevents,
		   char **path, char **cause);

#endif
