/* output.c: the batch output's entry: opening -o's file safely and
 * choosing the writer. What the writers share (their fields' names,
 * values, coverage and clock) is below them, in output_fields.c. */
#include "config.h"
#include "output_impl.h"
#include "format.h"
#include "util.h"
#include "hot_path.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int output_parse_format(const char *s)
{
	if (!strcasecmp(s, "table"))
		return OUT_TABLE;
	if (!strcasecmp(s, "csv"))
		return OUT_CSV;
	if (!strcasecmp(s, "json"))
		return OUT_JSON;
	return -1;
}

/* What pmctop's own output starts with: the table's "# HH:MM:SS" line, the
 * CSV header, or a JSON line. */
static bool looks_like_ours(const char *head, size_t n)
{
	static const char *const starts[] = { "time,interval_s,", "{\"time\":" };
	if (n == 0)
		return true;
	if (n >= 11 && head[0] == '#' && head[1] == ' ' && head[4] == ':' && head[7] == ':' && head[10] == '.')
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(starts); i++)
		if (n >= strlen(starts[i]) && !memcmp(head, starts[i], strlen(starts[i])))
			return true;
	return false;
}

/* /dev/null itself, by its device number, whatever name reaches it. */
static bool is_dev_null(const struct stat *sb)
{
	struct stat null;
	return S_ISCHR(sb->st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
	       sb->st_rdev == null.st_rdev;
}

/* Replaces an existing regular file only if it is pmctop's own output;
 * the open descriptor, or -1 with *cause. */
static int open_existing(const char *path, char **cause)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char head[32];
	ssize_t n = fd < 0 ? 0 : read(fd, head, sizeof(head));
	struct stat sb;
	const char *why = NULL;
	if (fd >= 0 && (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1))
		why = "is not a regular file with one name";
	else if (fd >= 0 && sb.st_uid != geteuid())
		why = "belongs to another user";
	else if (fd >= 0 && (n < 0 || !looks_like_ours(head, (size_t)n)))
		why = "exists and does not hold pmctop's output";
	if (why) {
		close(fd);
		set_cause(cause, "%s %s; pmctop replaces only its own output (remove the file first)", path, why);
		return -1;
	}
	if (fd >= 0 && (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
		set_cause(cause, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (fd < 0)
		set_cause(cause, "cannot write %s: %s", path, path_errno_phrase(errno));
	return fd;
}

FILE *output_open(const char *path, bool wait, char **cause)
{
	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return stdout;
	/* Never through a symbolic link: a link planted where root writes
	 * would otherwise aim the output at any file. */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0 && errno == EEXIST) {
		struct stat sb;
		if (lstat(path, &sb) < 0) {
			set_cause(cause, "cannot write %s: %s", path, strerror(errno));
			return NULL;
		}
		if (S_ISFIFO(sb.st_mode)) {
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (wait ? 0 : O_NONBLOCK));
			if (fd < 0) {
				int err = errno;
				set_cause(cause, "cannot write %s: %s", path,
					  err == EINTR ? "interrupted while waiting for a reader" : path_errno_phrase(err));
				errno = err;
				return NULL;
			}
			/* Writes block as usual from here on. */
			int fl = fcntl(fd, F_GETFL);
			if (fl >= 0)
				fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		} else if (S_ISLNK(sb.st_mode)) {
			set_cause(cause, "%s is a symbolic link; pmctop writes only to a file itself", path);
			return NULL;
		} else if (S_ISDIR(sb.st_mode)) {
			set_cause(cause, "cannot write %s: it is a directory", path);
			return NULL;
		} else if (is_dev_null(&sb)) {
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		} else if (!S_ISREG(sb.st_mode)) {
			set_cause(cause, "%s is not a regular file, a FIFO or /dev/null", path);
			return NULL;
		} else if ((fd = open_existing(path, cause)) < 0) {
			return NULL;
		}
	}
	if (fd < 0) {
		set_cause(cause, "cannot write %s: %s", path, path_errno_phrase(errno));
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		set_cause(cause, "cannot write %s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

struct output *output_new(FILE *f, const struct output_opts *opts)
{
	struct output *o = xcalloc(1, sizeof(*o));
	o->f = f;
	o->o = *opts;
	o->o.host = xstrdup(opts->host ? opts->host : "");   /* the caller's text may not outlive o */
	o->cols = xmalloc(sizeof(int) * (size_t)(opts->ncols + 1));
	if (opts->ncols)
		memcpy(o->cols, opts->cols, sizeof(int) * (size_t)opts->ncols);
	o->evcols = xmalloc(sizeof(int) * (size_t)(opts->nevcols + 1));
	if (opts->nevcols)
		memcpy(o->evcols, opts->evcols, sizeof(int) * (size_t)opts->nevcols);
	o->fmts = xcalloc((size_t)opts->ncols + 1, sizeof(char *));
	for (int i = 0; opts->fmts && i < opts->ncols; i++)
		o->fmts[i] = opts->fmts[i];
	o->o.cols = o->cols;
	o->o.fmts = o->fmts;
	o->o.evcols = o->evcols;
	return o;
}

HOT_PATH int output_write(struct output *o, const struct snapshot *s)
{
	int rc;
	if (s->hosts)
		rc = output_fleet_write(o, s);
	else switch (o->o.format) {
	case OUT_CSV: rc = o->o.tasks ? output_csv_tasks(o, s) : output_csv_write(o, s); break;
	case OUT_JSON: rc = output_json_write(o, s); break;
	default: rc = o->o.tasks ? output_table_tasks(o, s) : output_table_write(o, s); break;
	}
	o->written++;
	/* Flushing per interval means a reader of a pipe or file sees each
	 * interval as it happens, and nothing is lost if pmctop is killed. */
	if (fflush(o->f) != 0 || ferror(o->f))
		return -(errno ? errno : EIO);
	return rc;
}

void output_scopes(const struct output_opts *o, bool written[SNAP_NSCOPES])
{
	bool table = o->format == OUT_TABLE;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		written[sc] = o->format == OUT_JSON || (!o->tasks && !table);
	if (table && !o->tasks) {
		written[SNAP_CPU] = written[SNAP_SYSTEM] = true;
		written[SNAP_CCX] = o->show_ccx;
	}
}

void output_free(struct output *o)
{
	if (!o)
		return;
	free(o->cols);
	free(o->fmts);
	free(o->evcols);
	free(o->heads);
	free(o->widths);
	free(o->head_line);
	free(o->dash_line);
	free(o->dash_at);
	free(o->tcol);
	free(o->line);
	output_json_free(o);
	free((char *)o->o.host);
	free(o);
}
