/* interval_split.c: where one interval of a batch program's CPU time goes,
 * between and inside its system calls (bench/interval_split.sh builds it
 * as a preloaded library; docs/performance.md, "Cold intervals").
 *
 * Each call to ppoll (the interval's sleep), read, pread, write and
 * clock_gettime of the thread's CPU clock is wrapped: the thread's CPU
 * time is read on the way in and on the way out, so an interval (from one
 * ppoll's return to the next ppoll) splits into the time inside each call
 * and the user-space time between them. At exit it prints, for each step
 * of the interval in order, the median over the intervals (the first few
 * left out): "rd 2.6" is the time inside the second read, "-rd 1.2" the
 * time before it since the step before. It assumes that every interval
 * makes the same calls in the same order, as a steady batch run does.
 * The time inside stdio's own write (pmctop's output) is not seen: it
 * falls in the gap before the next wrapped call.
 *
 * Each wrapping reads the clock twice, itself a system call of about
 * 0.5 us; the figures compare programs measured the same way. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_INTERVALS 4096
#define MAX_STEPS 32
#define SKIP 5   /* intervals left out at the start: plans, caches */

static double at[MAX_INTERVALS][2 * MAX_STEPS + 1];
static const char *name[2 * MAX_STEPS + 1];
static int nsteps[MAX_INTERVALS], cur = -1;

/* The thread's CPU time in microseconds, by the system call itself, so
 * that the program's own clock_gettime stays the one wrapped. */
static double cpu_us(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void mark(const char *what)
{
	double t = cpu_us();
	if (cur < 0 || cur >= MAX_INTERVALS || nsteps[cur] >= 2 * MAX_STEPS)
		return;
	int k = ++nsteps[cur];
	at[cur][k] = t;
	if (cur == SKIP)
		name[k] = what;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

__attribute__((destructor)) static void report(void)
{
	static double v[MAX_INTERVALS];
	int last = cur < MAX_INTERVALS ? cur : MAX_INTERVALS;
	if (last - SKIP < 5) {
		fprintf(stderr, "interval_split: too few intervals (%d)\n", last);
		return;
	}
	int steps = nsteps[SKIP];
	double total = 0;
	fprintf(stderr, "interval_split: %d intervals, median us:", last - SKIP);
	for (int k = 1; k <= steps; k++) {
		int n = 0;
		for (int i = SKIP; i < last; i++)
			if (nsteps[i] == steps)
				v[n++] = at[i][k] - at[i][k - 1];
		if (!n)
			continue;
		qsort(v, (size_t)n, sizeof(double), by_value);
		/* Odd steps are the gaps before a call, even ones its inside. */
		fprintf(stderr, " %s%s %.1f", k % 2 ? "-" : "", name[k] ? name[k] : "?", v[n / 2]);
		total += v[n / 2];
	}
	fprintf(stderr, " | awake %.1f\n", total);
}

#define REAL(ret, fn, ...) \
	static ret (*real)(__VA_ARGS__); \
	if (!real) \
		real = (ret (*)(__VA_ARGS__))dlsym(RTLD_NEXT, fn)

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	REAL(int, "ppoll", struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	mark("poll");
	int r = real(fds, n, ts, mask);
	if (++cur < MAX_INTERVALS)
		at[cur][0] = cpu_us();
	return r;
}

/* A wrapped call: the time before it and the time inside it. */
#define WRAPPED(ret, fn, label, params, args, ...) \
	ret fn params \
	{ \
		REAL(ret, #fn, __VA_ARGS__); \
		mark(label); \
		ret r = real args; \
		mark(label); \
		return r; \
	}

WRAPPED(ssize_t, read, "rd", (int fd, void *buf, size_t len), (fd, buf, len), int, void *, size_t)
WRAPPED(ssize_t, pread, "prd", (int fd, void *buf, size_t len, off_t off), (fd, buf, len, off), int, void *, size_t,
	off_t)
WRAPPED(ssize_t, pread64, "prd", (int fd, void *buf, size_t len, off_t off), (fd, buf, len, off), int, void *,
	size_t, off_t)
WRAPPED(ssize_t, write, "wr", (int fd, const void *buf, size_t len), (fd, buf, len), int, const void *, size_t)

int clock_gettime(clockid_t id, struct timespec *ts)
{
	REAL(int, "clock_gettime", clockid_t, struct timespec *);
	if (id != CLOCK_THREAD_CPUTIME_ID)
		return real(id, ts);
	mark("clk");
	int r = real(id, ts);
	mark("clk");
	return r;
}
