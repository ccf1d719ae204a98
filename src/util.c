/* util.c: allocation, message formatting, small-file reading and CPU list
 * parsing shared by every module. */
#include "config.h"
#include "util.h"
#include "hot_path.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

static void out_of_memory(void)
{
	fputs("pmctop: out of memory\n", stderr);
	abort();
}

HOT_PATH void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

HOT_PATH void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

HOT_PATH char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		out_of_memory();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		out_of_memory();
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		out_of_memory();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void xappendf(char **s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *more = xvasprintf(fmt, ap);
	va_end(ap);
	char *all = xasprintf("%s%s", *s ? *s : "", more);
	free(more);
	free(*s);
	*s = all;
}

void text_add_line(char **s, const char *line)
{
	xappendf(s, "%s%s", *s ? "\n" : "", line);
}

void warn_list_add(struct warn_list *w, const char *line)
{
	if (w->n++ < WARN_LIST_MAX)
		text_add_line(w->text, line);
}

void warn_list_end(struct warn_list *w)
{
	if (w->n <= WARN_LIST_MAX)
		return;
	char *more = xasprintf("%s: %d more problems were skipped (the first %d are above)", w->path,
			       w->n - WARN_LIST_MAX, WARN_LIST_MAX);
	text_sanitize_inplace(more);        /* the path may come from the environment */
	text_add_line(w->text, more);
	free(more);
}

int set_cause(char **cause, const char *fmt, ...)
{
	if (cause) {
		va_list ap;
		va_start(ap, fmt);
		*cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* sysfs and procfs files are a page or so; a tree given as a sysfs root
 * (tests, fixtures) could hold anything, so the size is bounded and only
 * regular files are read, opened without blocking on a FIFO. */
#define TEXT_FILE_MAX (1 << 20)

/* A regular file's descriptor, opened without blocking; -1 with errno. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat sb;
	int bad = fstat(fd, &sb) < 0 ? errno : S_ISDIR(sb.st_mode) ? EISDIR : !S_ISREG(sb.st_mode) ? EINVAL : 0;
	if (bad) {
		close(fd);
		errno = bad;
		return -1;
	}
	return fd;
}

HOT_PATH const char *text_reader_read(struct text_reader *r, const char *path)
{
	if (r->fd < 0 && (r->fd = open_regular(path)) < 0)
		return NULL;
	if (r->cap == 0)
		r->buf = xmalloc(r->cap = 4096);
	size_t len = 0;
	for (;;) {
		if (r->cap - len - 1 == 0)
			r->buf = xrealloc(r->buf, r->cap *= 2);
		size_t want = r->cap - len - 1;
		ssize_t n = pread(r->fd, r->buf + len, want, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(r->fd);
			r->fd = -1;
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > TEXT_FILE_MAX) {
			text_reader_close(r);
			errno = EFBIG;
			return NULL;
		}
		if (r->short_read_ends && (size_t)n < want)
			break;
	}
	r->buf[len] = '\0';
	return r->buf;
}

void text_reader_close(struct text_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	bool short_read_ends = r->short_read_ends;   /* what the file is, which stays */
	*r = (struct text_reader)TEXT_READER_INIT;
	r->short_read_ends = short_read_ends;
}

/* One read of a text_reader, its text kept without trailing blanks. */
static char *read_text(const char *path, bool short_read_ends)
{
	struct text_reader r = TEXT_READER_INIT;
	r.short_read_ends = short_read_ends;
	const char *text = text_reader_read(&r, path);
	if (!text) {
		int e = errno;
		text_reader_close(&r);
		errno = e;
		return NULL;
	}
	size_t len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	char *out = xstrndup(text, len);
	text_reader_close(&r);
	return out;
}

char *read_text_file(const char *path)
{
	return read_text(path, false);
}

char *read_sysfs_text(const char *path)
{
	return read_text(path, true);
}

/* Forced on by the tests, which run as any user (user_files_force_rule). */
static bool user_rule_forced;

void user_files_force_rule(bool on)
{
	user_rule_forced = on;
}

/* Root, a setuid or setgid pmctop, or one with any effective capability
 * (a setcap'd copy): a process that can read what its real user cannot. */
bool user_files_privileged(void)
{
	if (user_rule_forced || geteuid() == 0 || geteuid() != getuid() || getegid() != getgid())
		return true;
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[0].effective || d[1].effective;
}

/* What is wrong with sb (from lstat or fstat) as one of this user's own,
 * or NULL: the rule of the model cache (perf_cache.c). */
static const char *not_mine(const struct stat *sb, bool dir)
{
	/* A file's type is its reader's to check, with its own words. */
	if (S_ISLNK(sb->st_mode))
		return "is a symbolic link";
	if (dir && !S_ISDIR(sb->st_mode))
		return "is not a directory";
	if (sb->st_uid != geteuid())
		return "belongs to another user";
	if (sb->st_mode & 022)
		return "may be written by other users";
	return NULL;
}

int user_dir_check(const char *path, char **why)
{
	if (!user_files_privileged())
		return 0;
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return -1;   /* errno from lstat: ENOENT is "not there" */
	const char *bad = not_mine(&sb, true);
	if (!bad)
		return 0;
	set_cause(why, "%s: not read: it %s (uid %ld, pmctop runs as uid %ld)", path, bad, (long)sb.st_uid,
		  (long)geteuid());
	errno = EPERM;
	return -1;
}

int user_file_open(const char *path, char **why)
{
	bool strict = user_files_privileged();
	if (strict) {
		/* The directory that holds it, as named (not followed). */
		char *dir = xstrdup(path);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			int rc = user_dir_check(dir, why);
			int e = errno;
			free(dir);
			if (rc < 0) {
				errno = e;
				return -1;
			}
		} else {
			free(dir);
		}
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (strict ? O_NOFOLLOW : 0));
	if (fd < 0) {
		int e = errno;
		if (strict && e == ELOOP)
			set_cause(why, "%s: not read: it is a symbolic link (pmctop runs as uid %ld)", path,
				  (long)geteuid());
		errno = e;
		return -1;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	const char *bad = strict ? not_mine(&sb, false) : NULL;
	if (bad) {
		set_cause(why, "%s: not read: it %s (uid %ld, pmctop runs as uid %ld)", path, bad, (long)sb.st_uid,
			  (long)geteuid());
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

const char *path_errno_phrase(int err)
{
	switch (err) {
	case EISDIR: return "it is a directory";
	case ENXIO: return "it is a FIFO that no process reads (start the reader first)";
	case ELOOP: return "it is a symbolic link";
	default: return strerror(err);
	}
}

/* path with its directory resolved (realpath), or NULL if the directory
 * does not exist. */
static char *resolve_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	char *real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return NULL;
	char *out = xasprintf("%s/%s", real, slash ? slash + 1 : path);
	free(real);
	return out;
}

bool path_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea || eb)
		return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char *ra = resolve_dir(a), *rb = resolve_dir(b);
	bool same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

bool text_is_decimal(const char *s, bool whole)
{
	size_t digits = strspn(s, "0123456789");
	s += digits;
	if (whole)
		return digits > 0 && !*s;
	if (*s == '.') {
		size_t frac = strspn(s + 1, "0123456789");
		digits += frac;
		s += 1 + frac;
	}
	if (digits == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		size_t exp = strspn(s, "0123456789");
		if (exp == 0)
			return false;
		s += exp;
	}
	return !*s;
}

int read_long_file(const char *path, long *out)
{
	char *s = read_text_file(path);
	if (!s)
		return -errno;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	int bad = errno || end == s || *end != '\0';
	free(s);
	if (bad)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_cpu_number(const char **p, long *out)
{
	if (!isdigit((unsigned char)**p))
		return -1;
	char *end;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno)
		return -1;
	*p = end;
	return 0;
}

int cpulist_parse(const char *s, bool *bitmap, int nbits, char **cause)
{
	const char *p = s;
	memset(bitmap, 0, sizeof(bool) * (size_t)nbits);
	if (!*p)
		return set_cause(cause, "empty CPU list");
	for (;;) {
		long lo, hi;
		const char *start = p;
		if (parse_cpu_number(&p, &lo) < 0)
			return set_cause(cause, "expected a CPU number at '%s'", start);
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu_number(&p, &hi) < 0)
				return set_cause(cause, "expected a CPU number after '-' in '%s'", start);
			if (hi < lo)
				return set_cause(cause, "range %ld-%ld is backwards", lo, hi);
		}
		if (hi >= nbits)
			return set_cause(cause, "CPU %ld does not exist (this machine has CPUs 0-%d)",
					 hi, nbits - 1);
		for (long c = lo; c <= hi; c++)
			bitmap[c] = true;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return set_cause(cause, "unexpected '%c' in CPU list '%s'", *p, s);
		p++;
	}
}

/* Length of the printable UTF-8 character at s (avail bytes there), 0 if s
 * does not start with one, or -1 if it may, but avail cuts it short. */
static int char_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	if (c == '\t' || (c >= 0x20 && c < 0x7f))
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;       /* controls, DEL, continuation bytes, overlong leads */
	int n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	unsigned cp = c & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((size_t)i >= avail)
			return -1;
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp < 0xe000) ||
	    cp > 0x10ffff)
		return 0;       /* C1 controls, overlong forms, surrogates */
	return n;
}

/* In a NUL-terminated string the NUL stops a sequence before its end. */
static int good_char_len(const unsigned char *s)
{
	return char_len(s, SIZE_MAX);
}

int text_bad_at(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		/* Printable ASCII and tabs, nearly every byte of the
		 * definitions read at each start, without a call each. */
		if ((*p >= 0x20 && *p < 0x7f) || *p == '\t') {
			p++;
			continue;
		}
		int n = good_char_len(p);
		if (!n)
			return (int)(p - (const unsigned char *)s);
		p += n;
	}
	return -1;
}

void text_sanitize_inplace(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		int n = good_char_len(p);
		if (n) {
			p += n;
		} else {
			*p++ = '?';
		}
	}
}

char *text_sanitize(const char *s)
{
	char *t = xstrdup(s);
	text_sanitize_inplace(t);
	return t;
}

/* The stream of text_filter(): bytes of a character cut by the end of one
 * write wait in pend for the next. */
struct text_filter { FILE *out; unsigned char pend[4]; size_t npend; int err; };

static ssize_t filter_write(void *cookie, const char *buf, size_t size)
{
	struct text_filter *tf = cookie;
	for (size_t i = 0; i < size; i++) {
		tf->pend[tf->npend++] = (unsigned char)buf[i];
		while (tf->npend) {
			int n = tf->pend[0] == '\n' ? 1 : char_len(tf->pend, tf->npend);
			if (n < 0)
				break;  /* cut short: wait for the next byte */
			if (n == 0 ? fputc('?', tf->out) == EOF : fwrite(tf->pend, 1, (size_t)n, tf->out) != (size_t)n) {
				if (!tf->err)
					tf->err = errno ? errno : EIO;
				return -1;
			}
			if (!n)
				n = 1;
			tf->npend -= (size_t)n;
			memmove(tf->pend, tf->pend + n, tf->npend);
		}
	}
	return (ssize_t)size;
}

static int filter_close(void *cookie)
{
	struct text_filter *tf = cookie;
	for (size_t i = 0; i < tf->npend; i++)
		if (fputc('?', tf->out) == EOF && !tf->err)
			tf->err = errno ? errno : EIO;
	if (fflush(tf->out) != 0 && !tf->err)
		tf->err = errno ? errno : EIO;
	int err = tf->err;
	free(tf);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

FILE *text_filter(FILE *out)
{
	struct text_filter *tf = xcalloc(1, sizeof(*tf));
	tf->out = out;
	cookie_io_functions_t io = { .write = filter_write, .close = filter_close };
	FILE *f = fopencookie(tf, "w", io);
	if (!f)
		out_of_memory();
	return f;
}

HOT_PATH uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ppoll rather than a loop on clock_nanosleep: both return at a signal,
 * but ThreadSanitizer runs the program's handler late, at the next call
 * it intercepts. It intercepts ppoll as a blocking call and runs the
 * handler inside it, so the flag the handler sets is seen as ppoll
 * returns; clock_nanosleep it does not, so a loop that retried on EINTR
 * went back to sleep before the handler had run, and Ctrl-C took effect
 * only at the end of the interval (docs/tsan.md). */
void wait_until_ns(uint64_t t)
{
	uint64_t now = now_ns();
	if (now >= t)
		return;
	uint64_t d = t - now;
	struct timespec rel = { (time_t)(d / 1000000000ull), (long)(d % 1000000000ull) };
	ppoll(NULL, 0, &rel, NULL);
}

/* Synchronous faults stay deliverable: a crash in a worker thread must
 * still reach the handler that restores the terminal. */
void signals_block_async(sigset_t *old)
{
	static const int sync_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
	sigset_t all;
	sigfillset(&all);
	for (size_t i = 0; i < sizeof(sync_signals) / sizeof(sync_signals[0]); i++)
		sigdelset(&all, sync_signals[i]);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

void signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void cpulist_format(const int *cpus, int n, char *buf, size_t cap)
{
	if (cap == 0)
		return;
	buf[0] = 0;
	size_t len = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		char part[32];
		int w = j > i ? snprintf(part, sizeof(part), "%s%d-%d", i ? "," : "", cpus[i], cpus[j])
			      : snprintf(part, sizeof(part), "%s%d", i ? "," : "", cpus[i]);
		if (len + (size_t)w + 4 > cap) {
			snprintf(buf + len, cap - len, "%s", cap - len > 3 ? "..." : "");
			return;
		}
		memcpy(buf + len, part, (size_t)w + 1);
		len += (size_t)w;
		i = j + 1;
	}
}

bool parse_double_c(const char *s, double *out)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	char *end;
	errno = 0;
	double v = c ? strtod_l(s, &end, c) : strtod(s, &end);
	if (c)
		freelocale(c);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir_names_sorted's test, for dir_names_sorted_ctx. */
struct keep_plain {
	bool (*keep)(const struct dirent *de);
};

static bool keep_plain(const struct dirent *de, void *ctx)
{
	return ((const struct keep_plain *)ctx)->keep(de);
}

int dir_names_sorted(DIR *d, bool (*keep)(const struct dirent *de), char ***out)
{
	struct keep_plain k = { keep };
	return dir_names_sorted_ctx(d, keep_plain, &k, out);
}

int dir_names_sorted_ctx(DIR *d, bool (*keep)(const struct dirent *de, void *ctx), void *ctx, char ***out)
{
	int n = 0;
	*out = NULL;
	for (struct dirent *de; (de = readdir(d));) {
		if (!keep(de, ctx))
			continue;
		*out = xrealloc(*out, (size_t)(n + 1) * sizeof(char *));
		(*out)[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(*out, (size_t)n, sizeof(char *), name_cmp);
	return n;
}
