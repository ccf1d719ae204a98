/* snapfile.c: writes one interval as JSON to a file of its own
 * (snapfile.h), through the batch JSON writer so that a snapshot reads
 * like one line of `pmctop -b --format json`. */
#include "config.h"
#include "snapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "output.h"
#include "util.h"

/* Creates a new file for the snapshot: O_EXCL, so that nothing existing
 * (a file, or a link planted where the user writes) is ever replaced or
 * followed. Returns the descriptor and the name, or -1 with *cause. */
static int create_new(const char *dir, const char *stamp, char **path, char **cause)
{
	for (int k = 0; k <= SNAPFILE_MAX_SUFFIX; k++) {
		char *p = k ? xasprintf("%s/pmctop-snapshot-%s-%d.json", dir, stamp, k)
			    : xasprintf("%s/pmctop-snapshot-%s.json", dir, stamp);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd >= 0) {
			*path = p;
			return fd;
		}
		int err = errno;
		if (err != EEXIST) {
			set_cause(cause, "cannot write %s: %s", p, strerror(err));
			free(p);
			return -1;
		}
		free(p);
	}
	set_cause(cause, "cannot write a snapshot in %s: pmctop-snapshot-%s.json and %d more names exist",
		  dir, stamp, SNAPFILE_MAX_SUFFIX);
	return -1;
}

int snapfile_write(const struct snapshot *s, const char *dir, const int *events, int nevents,
		   char **path, char **cause)
{
	*path = NULL;
	if (!s || !s->model)
		return set_cause(cause, "no figures yet to write");
	if (!dir || !*dir)
		dir = getenv("PMCTOP_SNAPSHOT_DIR");
	/* The current directory by its name, so that the message says where. */
	char cwd[4096];
	if (!dir || !*dir)
		dir = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
	time_t t = isfinite(s->time) && s->time > 0 ? (time_t)s->time : time(NULL);
	struct tm tm;
	char stamp[32];
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);

	int *cols = xmalloc(sizeof(int) * (size_t)(s->nmetrics + 1));
	int *evcols = xmalloc(sizeof(int) * (size_t)(nevents + 1));
	int ncols = 0, nev = 0;
	for (int i = 0; i < s->nmetrics; i++)
		if (s->metric_planned[i])
			cols[ncols++] = i;
	for (int i = 0; i < nevents; i++)
		if (events[i] >= 0 && events[i] < s->nevents && s->event_planned[events[i]])
			evcols[nev++] = events[i];
	struct output_opts oo = {
		.format = OUT_JSON, .ncols = ncols, .cols = cols, .nevcols = nev, .evcols = evcols,
	};
	char *p = NULL;
	int rc = -1;
	int fd = create_new(dir, stamp, &p, cause);
	if (fd < 0)
		goto out;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		set_cause(cause, "cannot write %s: %s", p, strerror(errno));
		close(fd);
		unlink(p);
		goto out;
	}
	struct output *o = output_new(f, &oo);
	int werr = output_write(o, s);
	output_free(o);
	int cerr = fclose(f) != 0 ? errno : 0;
	if (werr < 0 || cerr) {
		set_cause(cause, "cannot write %s: %s", p, strerror(werr < 0 ? -werr : cerr));
		unlink(p);
		goto out;
	}
	*path = p;
	p = NULL;
	rc = 0;
out:
	free(p);
	free(cols);
	free(evcols);
	return rc;
}
