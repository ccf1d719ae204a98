/* record_file.c: the file a recording goes to (record.h, docs/recording.md):
 * opened new, or appended to when it holds a recording of the same run;
 * each line compressed into its own gzip member, so that a pmctop killed
 * at any moment leaves every finished interval readable; rotated at
 * --record-max-size; and a write error (a full disk) survived: the
 * partial member is cut off, the run goes on, and writing is tried again
 * later, while the outputs and the exporter say so. */
#include "config.h"
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "gzmember.h"
#include "util.h"
#include "hot_path.h"

/* After a write error, the next try waits this long, doubled at each
 * failure up to the most: a full disk is not written to 1000 times a
 * second, and one freed is used again within a minute. */
#define RETRY_FIRST_S 1.0
#define RETRY_MOST_S 60.0

struct recorder {
	int fd;
	char *path;
	char *header;             /* the first line, for each new file */
	bool fifo;
	bool need_header;         /* the file is empty: its first line comes first */
	uint64_t size;            /* bytes of whole members: a failed write is cut back to it */
	uint64_t last_len;        /* the last member's bytes: what the next may need */
	struct record_files files;
	long count, limit;
	/* Write errors: the sampler's thread writes these; the outputs, the
	 * dashboard and the exporter read them from any thread. */
	bool failing;
	double retry_at, retry_s; /* CLOCK_MONOTONIC seconds */
	long lost;                /* intervals not recorded since the first error */
	_Atomic bool ok;
	_Atomic unsigned long long errors;
	_Atomic(char *) error;    /* the first error, set once */
	pthread_mutex_t mu;       /* news */
	char *news;
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_news(struct recorder *r, char *line)
{
	pthread_mutex_lock(&r->mu);
	free(r->news);
	r->news = line;
	pthread_mutex_unlock(&r->mu);
}

/* --- opening --- */

/* Writes one line (text without its newline) as a member; 0 or -errno
 * with *why. On a regular file a member that was written in part is cut
 * off again, so that the next member starts where a reader expects it. */
static int put_line(struct recorder *r, int fd, uint64_t *size, const char *text, int64_t stamp, char **why)
{
	size_t n = strlen(text);
	char *line = xmalloc(n + 2);
	memcpy(line, text, n);
	/* The newline goes into the member, so that the inflated members are
	 * JSON lines as they stand. */
	line[n] = '\n';
	line[n + 1] = '\0';
	int rc = gzm_append(fd, line, n + 1, stamp, why);
	free(line);
	if (r->fifo)
		return rc;
	if (rc < 0) {
		if (ftruncate(fd, (off_t)*size) < 0) {
			/* Nothing more can be done; the reader skips what is left. */
		}
		return rc;
	}
	off_t end = lseek(fd, 0, SEEK_END);
	if (end >= 0) {
		r->last_len = (uint64_t)end - *size;
		*size = (uint64_t)end;
	}
	return 0;
}

/* The end of the last whole member of a recording of size bytes whose
 * first member ends at off: where appending starts. A member cut short
 * at the end (a pmctop killed while writing, a full disk) is left out;
 * damaged bytes before the end are the reader's to skip. */
static uint64_t members_end(int fd, uint64_t off, uint64_t size)
{
	while (off < size) {
		uint64_t next;
		int64_t stamp;
		int pk = gzm_peek(fd, off, size, &next, &stamp);
		if (pk == -EAGAIN)
			return off;
		if (pk < 0) {
			int64_t at = gzm_next_member(fd, off + 1, size, &next, &stamp);
			if (at < 0)
				return size;
		}
		off = next;
	}
	return size;
}

/* FILE.k for k >= 1. */
static char *numbered(const char *path, int k)
{
	return xasprintf("%s.%d", path, k);
}

/* Moves path aside: FILE.(keep-1) to FILE.keep, ..., FILE to FILE.1, the
 * oldest dropped; with keep 0, FILE is removed. A name already gone (a
 * rotation that failed half way) is no error. 0 or -errno. */
static int shift_files(const char *path, int keep)
{
	if (keep <= 0)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	for (int k = keep - 1; k >= 1; k--) {
		char *from = numbered(path, k), *to = numbered(path, k + 1);
		int rc = rename(from, to) < 0 && errno != ENOENT ? -errno : 0;
		free(from);
		free(to);
		if (rc < 0)
			return rc;
	}
	char *to = numbered(path, 1);
	int rc = rename(path, to) < 0 && errno != ENOENT ? -errno : 0;
	free(to);
	return rc;
}

static void failed(struct recorder *r, const char *why, bool lost_one);

/* A file's first line could not be written when pmctop started (a disk
 * already full): the file is kept, empty, and the run goes on as after
 * any write error; the first line is written with the first interval
 * that can be. Otherwise a service restarted on a full disk would fail
 * to start, again and again. */
static void header_later(struct recorder *r, char *why)
{
	r->need_header = true;
	failed(r, why ? why : "cannot write", false);
	free(why);
}

/* A new file at path with the first line; the fd, or -errno with *why.
 * With later, a first line that cannot be written waits (header_later). */
static int create_file(struct recorder *r, const char *path, uint64_t *size, bool later, char **why)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_APPEND, 0644);
	if (fd < 0) {
		int err = errno;
		set_cause(why, "%s", path_errno_phrase(err));
		return -err;
	}
	*size = 0;
	char *w = NULL;
	int rc = put_line(r, fd, size, r->header, 0, &w);
	if (rc < 0 && later) {
		header_later(r, w);
		return fd;
	}
	if (rc < 0) {
		set_cause(why, "%s", w);
		free(w);
		close(fd);
		unlink(path);
		return rc;
	}
	return fd;
}

/* What the existing regular file at path (open as fd, size bytes) is to
 * a recorder: 1 a recording of the same run (appended to, from *end), 0
 * a recording of another run, -1 not a recording. */
static int same_run(const struct recorder *r, const char *path, int fd, uint64_t size, uint64_t *end)
{
	/* Read through a second descriptor of the same file: the first is
	 * write-only. */
	int rfd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat a, b;
	if (rfd < 0)
		return -1;
	int rc = -1;
	char *text = NULL, *why = NULL;
	size_t len = 0;
	uint64_t next = 0;
	size_t hl = strlen(r->header);
	int rd = fstat(fd, &a) == 0 && fstat(rfd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
		? gzm_read_at(rfd, 0, hl + 1, &text, &len, &next, &why) : -EBADF;
	if (rd == 0 && len == hl + 1 && !memcmp(text, r->header, hl) && text[hl] == '\n') {
		*end = members_end(rfd, next, size);
		rc = 1;
	} else if (rd == 0 || rd == -EFBIG || rd == -E2BIG) {
		rc = 0;   /* another first line: another run's, if a recording */
	}
	/* A first line that is not pmctop's is not a recording at all. */
	if (rc == 0) {
		char *t2 = NULL, *w2 = NULL;
		size_t l2 = 0;
		static const char lead[] = "{\"format\":\"" RECORD_FORMAT_NAME "\"";
		if (gzm_read_at(rfd, 0, (size_t)4 << 20, &t2, &l2, &next, &w2) < 0 ||
		    strncmp(t2, lead, sizeof(lead) - 1) != 0)
			rc = -1;
		free(t2);
		free(w2);
	}
	free(text);
	free(why);
	close(rfd);
	return rc;
}

/* Opens path as -w finds it: a new file, an empty one of the user's or a
 * FIFO (a reader at the other end) start a recording; a recording of the
 * same run is appended to; another run's is moved aside with
 * --record-keep, else refused; anything else is never written over.
 * The fd, or -1 with *cause. */
static int open_path(struct recorder *r, const char *path, char **cause)
{
	char *why = NULL;
	int fd = create_file(r, path, &r->size, true, &why);
	if (fd >= 0 || fd != -EEXIST) {
		if (fd < 0)
			set_cause(cause, "cannot record to %s: %s", path, why);
		free(why);
		return fd < 0 ? -1 : fd;
	}
	free(why);
	why = NULL;
	/* Not blocking: a FIFO that no process reads is refused (ENXIO) at
	 * once, not waited on. */
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat sb;
	const char *bad = NULL;
	int kind = -2;
	uint64_t end = 0;
	if (fd < 0)
		bad = path_errno_phrase(errno);
	else if (fstat(fd, &sb) < 0)
		bad = strerror(errno);
	else if (S_ISFIFO(sb.st_mode))
		r->fifo = true;
	else if (!S_ISREG(sb.st_mode) || sb.st_nlink != 1)
		bad = "it is not a regular file with one name";
	else if (sb.st_uid != geteuid())
		bad = "it belongs to another user";
	else if (sb.st_size > 0 && (kind = same_run(r, path, fd, (uint64_t)sb.st_size, &end)) < 0)
		bad = "it exists and is not a pmctop recording; pmctop never writes over a file "
		      "(remove it or choose another name)";
	else if (kind == 0 && r->files.keep < 0)
		bad = "it holds a recording of another run (another model, machine, pmctop or options); "
		      "pmctop appends only to its own run's and never writes over a recording "
		      "(remove it, choose another name, or move it aside with --record-keep N)";
	if (bad) {
		set_cause(cause, "cannot record to %s: %s", path, bad);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Writes block as usual from here on. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, (fl & ~O_NONBLOCK) | (r->fifo ? 0 : O_APPEND));
	if (r->fifo || kind == -2) {
		/* A FIFO, or an empty file: the first line starts it. */
		r->size = 0;
		if (put_line(r, fd, &r->size, r->header, 0, &why) < 0 && !r->fifo) {
			header_later(r, why);
		} else if (why) {
			set_cause(cause, "cannot record to %s: %s", path, why);
			free(why);
			close(fd);
			return -1;
		}
		return fd;
	}
	if (kind == 1) {
		/* The same run's: on from the last whole member. */
		if (end < (uint64_t)sb.st_size && ftruncate(fd, (off_t)end) < 0) {
			set_cause(cause, "cannot record to %s: cutting its incomplete last interval: %s", path,
				  strerror(errno));
			close(fd);
			return -1;
		}
		r->size = end;
		return fd;
	}
	/* Another run's: moved aside as a full file would be. */
	close(fd);
	int rc = shift_files(path, r->files.keep);
	if (rc < 0) {
		set_cause(cause, "cannot record to %s: moving another run's recording aside: %s", path,
			  strerror(-rc));
		return -1;
	}
	fd = create_file(r, path, &r->size, true, &why);
	if (fd < 0)
		set_cause(cause, "cannot record to %s: %s", path, why);
	free(why);
	return fd < 0 ? -1 : fd;
}

struct recorder *recorder_open(const char *path, const struct record_info *info,
			       const struct record_files *files, char **cause)
{
	struct recorder *r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->header = record_header_text(info);
	r->files = files ? *files : (struct record_files){ .max_size = 0, .keep = -1 };
	pthread_mutex_init(&r->mu, NULL);
	atomic_store(&r->ok, true);
	r->fd = r->header ? open_path(r, path, cause) : -1;
	if (!r->header)
		set_cause(cause, "cannot record to %s: out of memory", path);
	if (r->fd < 0) {
		pthread_mutex_destroy(&r->mu);
		free(r->news);
		free(atomic_load(&r->error));
		free(r->header);
		free(r->path);
		free(r);
		return NULL;
	}
	return r;
}

/* --- writing --- */

/* --record-max-size: the file is moved aside before the interval that
 * would take it past the size (judged by the last one's), and a new one
 * started with the first line. 0, or -errno with *why; on failure the
 * old file is written to again when a retry succeeds. */
static int rotate(struct recorder *r, char **why)
{
	int keep = r->files.keep < 0 ? 1 : r->files.keep;
	int rc = shift_files(r->path, keep);
	if (rc < 0) {
		set_cause(why, "rotating: %s", strerror(-rc));
		return rc;
	}
	uint64_t size = 0;
	char *w = NULL;
	int fd = create_file(r, r->path, &size, false, &w);
	if (fd < 0) {
		set_cause(why, "rotating: %s", w ? w : "cannot create the file");
		free(w);
		return fd;
	}
	close(r->fd);
	r->fd = fd;
	r->size = size;
	return 0;
}

/* A write error: counted, said once (and again when writing resumes),
 * and tried again later; lost_one when an interval was lost with it. */
static void failed(struct recorder *r, const char *why, bool lost_one)
{
	double now = mono_s();
	atomic_fetch_add(&r->errors, 1);
	atomic_store(&r->ok, false);
	r->lost += lost_one;
	r->retry_s = r->failing ? fmin(r->retry_s * 2, RETRY_MOST_S) : RETRY_FIRST_S;
	r->retry_at = now + r->retry_s;
	if (r->failing)
		return;
	r->failing = true;
	char *msg = xasprintf("recording to %s failed after %ld intervals: %s", r->path, r->count, why);
	char *expected = NULL;
	if (!atomic_compare_exchange_strong(&r->error, &expected, msg))
		free(msg);
	set_news(r, xasprintf("recording to %s failed after %ld intervals: %s; pmctop goes on and tries "
			      "again (within %.0f s)", r->path, r->count, why, RETRY_MOST_S));
}

void recorder_add(struct recorder *r, const struct derive_input *in, const struct snapshot *snap)
{
	if (!r || (r->limit > 0 && r->count >= r->limit))
		return;
	if (r->failing && mono_s() < r->retry_at) {
		r->lost++;
		return;
	}
	char *why = NULL;
	int rc = 0;
	if (!r->fifo && r->files.max_size > 0 && r->size > 0 && r->size + r->last_len > r->files.max_size &&
	    r->last_len > 0)
		rc = rotate(r, &why);
	if (rc == 0 && r->need_header && (rc = put_line(r, r->fd, &r->size, r->header, 0, &why)) == 0)
		r->need_header = false;
	char *text = rc < 0 ? NULL : record_interval_text(in, snap);
	if (rc == 0 && !text)
		set_cause(&why, "out of memory");
	if (rc == 0 && text)
		rc = put_line(r, r->fd, &r->size, text, (int64_t)llround(snap->time * 1e3), &why);
	free(text);
	if (rc < 0 || why) {
		failed(r, why ? why : strerror(-rc), true);
		free(why);
		return;
	}
	r->count++;
	if (r->failing) {
		r->failing = false;
		atomic_store(&r->ok, true);
		set_news(r, xasprintf("recording to %s resumed; %ld intervals were not recorded", r->path,
				      r->lost));
	}
}

void recorder_set_limit(struct recorder *r, long n)
{
	r->limit = n;
}

const char *recorder_error(struct recorder *r)
{
	return r ? atomic_load(&r->error) : NULL;
}

bool recorder_ok(struct recorder *r)
{
	return !r || atomic_load(&r->ok);
}

unsigned long long recorder_errors(struct recorder *r)
{
	return r ? atomic_load(&r->errors) : 0;
}

HOT_PATH char *recorder_news(struct recorder *r)
{
	if (!r)
		return NULL;
	pthread_mutex_lock(&r->mu);
	char *n = r->news;
	r->news = NULL;
	pthread_mutex_unlock(&r->mu);
	return n;
}

long recorder_count(struct recorder *r)
{
	return r ? r->count : 0;
}

int recorder_close(struct recorder *r, char **cause)
{
	if (!r)
		return 0;
	int rc = 0;
	/* On disk before pmctop says it is done: a recording is what the user
	 * keeps. A FIFO has nothing to sync (EINVAL). */
	if (fsync(r->fd) < 0 && errno != EINVAL && errno != EROFS)
		failed(r, strerror(errno), false);
	if (close(r->fd) < 0)
		failed(r, strerror(errno), false);
	char *err = atomic_load(&r->error);
	if (err) {
		set_cause(cause, "%s (%ld intervals were not recorded, %ld were)", err, r->lost, r->count);
		rc = -1;
	}
	free(err);
	free(r->news);
	pthread_mutex_destroy(&r->mu);
	free(r->header);
	free(r->path);
	free(r);
	return rc;
}
