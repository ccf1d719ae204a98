/* util.c: allocation, message formatting, small-file reading and CPU list
 * parsing shared by every module. */
#include "config.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void out_of_memory(void)
{
	fputs("pmctop: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
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

char *xstrdup(const char *s)
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

char *read_text_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 256, len = 0;
	char *buf = xmalloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	while (len > 0 && isspace((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	return buf;
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

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
