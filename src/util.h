/* util.h: small helpers shared by every module: allocation that never
 * returns NULL, formatted strings for error causes, and list parsing. */
#ifndef PMCTOP_UTIL_H
#define PMCTOP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>
#include <signal.h>
#include <dirent.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failures abort with a message: pmctop cannot do anything useful
 * once malloc fails, and checking every call would hide the real logic. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
/* Appends printf output to *s (from malloc, or NULL for an empty string). */
void xappendf(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends line to *s, after a newline when *s holds text already: how
 * loaders collect their warnings, one line each. */
void text_add_line(char **s, const char *line);
/* A file's warnings, one a line in *text: only the first WARN_LIST_MAX are
 * kept and warn_list_end adds "PATH: N more problems were skipped". No one
 * reads more, and each line copies all those before it: a file of 30,000
 * bad lines took seconds to minutes to load before the cap. */
enum { WARN_LIST_MAX = 20 };
struct warn_list {
	char **text;
	const char *path;
	int n;                      /* every warning, kept or not */
};
void warn_list_add(struct warn_list *w, const char *line);
void warn_list_end(struct warn_list *w);

/* Sets *cause (if cause is not NULL) to a newly allocated message; returns -1
 * so that callers can write `return set_cause(cause, "...")`. */
int set_cause(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads a whole small file (sysfs, procfs) into a NUL-terminated buffer with
 * trailing whitespace removed. Returns NULL and sets errno on failure:
 * EINVAL for a file that is not a regular one (a FIFO or a device: never
 * waited on), EFBIG beyond 1 MiB. */
char *read_text_file(const char *path);
/* The same for a sysfs attribute, or a regular file standing for one:
 * the kernel shows an attribute whole, in one read, so a read shorter
 * than asked is its end, and the read that would find nothing is not
 * made (a system call of each of some dozen files of the topology). */
char *read_sysfs_text(const char *path);
/* A text file read again and again (/proc/stat every interval): opened at
 * the first read and kept open, each read a pread from offset 0 into a
 * buffer kept between reads, which procfs answers with fresh contents.
 * Saves the open, fstat and close of every interval, and the stdio
 * buffer's several reads. */
struct text_reader {
	int fd;               /* -1: not open */
	char *buf;
	size_t cap;
	/* A read shorter than asked is the end: set for procfs files that
	 * the kernel builds whole at every read (/proc/stat), where the read
	 * that would find the end builds the whole file again only to
	 * return nothing (as much kernel time as the read itself). */
	bool short_read_ends;
};
#define TEXT_READER_INIT { .fd = -1, .buf = NULL, .cap = 0, .short_read_ends = false }
/* The file's whole text, NUL-terminated, valid until the next call; NULL
 * with errno set (the file is then opened again at the next call). The
 * same bounds as read_text_file: regular files only, at most 1 MiB. */
const char *text_reader_read(struct text_reader *r, const char *path);
void text_reader_close(struct text_reader *r);
/* The files of the user who runs pmctop (pmctoprc, views/MODEL.def,
 * ~/.local/share/pmctop/perf-events) under the rule of the model cache:
 * when pmctop is privileged (root, setuid or setgid, or any effective
 * capability), a file is read only if it, and the directory that holds
 * it, belong to the effective user, are not writable by others and are
 * not symbolic links; under sudo -E, root never reads the invoking user's
 * files. Otherwise they are opened as any file. */
bool user_files_privileged(void);
/* The file opened for reading, without blocking; -1 with errno, and with
 * *why (naming the file, never quoting it) when the rule refused it
 * (errno EPERM or ELOOP). The caller checks the file's type. */
int user_file_open(const char *path, char **why);
/* 0 when a directory may be read under the rule; -1 with errno (ENOENT:
 * not there) and *why when refused (EPERM). */
int user_dir_check(const char *path, char **why);
/* For the tests, which run as any user: the rule as if privileged. */
void user_files_force_rule(bool on);
/* Why a file could not be opened, in words that follow "it" or a path:
 * "is a directory", "is a FIFO that no process reads", "is a symbolic
 * link" (O_NOFOLLOW), else strerror's text. */
const char *path_errno_phrase(int err);
/* Whether two paths name the same file: the same inode where both exist,
 * else the same name once their directories are resolved. */
bool path_same_file(const char *a, const char *b);
/* The names of directory d whose entries keep accepts (it sees d_type
 * too, which spares a stat), sorted by strcmp (what is read from a
 * directory must not follow the file system's order); d is closed.
 * Returns how many, *out to be freed name by name and whole. */
int dir_names_sorted(DIR *d, bool (*keep)(const struct dirent *de), char ***out);
/* The same, keep given ctx as well (to note an entry it does not keep). */
int dir_names_sorted_ctx(DIR *d, bool (*keep)(const struct dirent *de, void *ctx), void *ctx, char ***out);
/* Whether s is a number as every option of pmctop writes one: decimal
 * digits, and unless whole, a fraction and an exponent ("2", "0.5",
 * "1e3", ".5"). No sign, space, hex ("0x10"), "inf" or "nan": strtod and
 * strtol take those, and -d 0x10 was 16 s while -n refused it. */
bool text_is_decimal(const char *s, bool whole);
/* Reads one integer (decimal or 0x hex) from a file. 0 on success, -errno. */
int read_long_file(const char *path, long *out);
/* Reads all of s as one finite number written with '.', whatever
 * LC_NUMERIC says (definitions, sysfs files). */
bool parse_double_c(const char *s, double *out);

/* Parses a CPU list such as "0-3,8,10-11" into a bitmap of nbits bits.
 * Returns 0, or -1 with *cause naming the bad part ("99999 is beyond ...").
 * Entries beyond nbits are an error, not silently dropped. */
int cpulist_parse(const char *s, bool *bitmap, int nbits, char **cause);

/* Writes CPU numbers cpus[0..n-1] (ascending) as a CPU list such as
 * "0-3,8", cut with "..." where it does not fit in buf. */
void cpulist_format(const int *cpus, int n, char *buf, size_t cap);

/* Text from outside pmctop (definition files, sysfs and /proc names, option
 * values) must not reach a terminal or a CSV/JSON field raw: a control
 * character or escape sequence could retitle the terminal or rewrite the
 * screen. text_bad_at() returns the byte offset of the first byte that is
 * not printable UTF-8 (C0 controls other than tab, DEL, C1 controls U+0080
 * to U+009F, and malformed, overlong or surrogate sequences), or -1 if there
 * is none. text_sanitize() returns a new copy with each such byte replaced
 * by '?'; text_sanitize_inplace() does the same in place (the text never
 * grows). */
int text_bad_at(const char *s);
char *text_sanitize(const char *s);
void text_sanitize_inplace(char *s);
/* A stream that writes to out what is written to it, newlines kept and the
 * rest sanitised as by text_sanitize(), for output made of many pieces.
 * fclose() flushes it into out and reports out's first write error (-1,
 * errno set to it); out stays open. */
FILE *text_filter(FILE *out);

/* Monotonic time in nanoseconds. */
uint64_t now_ns(void);
/* Waits until the monotonic time t (ns) or until a signal is handled,
 * whichever comes first; callers loop, checking what the handler sets. */
void wait_until_ns(uint64_t t);

/* Blocks every asynchronous signal in the calling thread, the old mask
 * saved in old, so that a thread created meanwhile (which inherits the
 * mask) never runs a handler: Ctrl-C, Ctrl-Z, SIGWINCH and the rest go to
 * the main thread, whose loops read the flags those handlers set. Undone
 * by signals_restore(old) once the thread exists. */
void signals_block_async(sigset_t *old);
void signals_restore(const sigset_t *old);

#endif
