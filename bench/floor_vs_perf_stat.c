/* floor_vs_perf_stat.c: the least CPU a batch interval of pmctop can cost
 * on the real backend, to set beside perf stat's (docs/performance.md).
 * It makes only the system calls an interval of `pmctop -b -o FILE` needs
 * and nothing else: at start, one disabled perf_event group of system-wide
 * context switches per online CPU (what pmctop opens for its software
 * events on a machine without a PMU: PERF_FORMAT_GROUP with enabled and
 * running times), enabled; then per interval the wait for its deadline
 * (ppoll), one read of each CPU's group, one pread of /proc/stat, and one
 * write of a line to the file. Whatever pmctop spends beyond this is its
 * own; what this spends is the kernel's, which no user-space change saves.
 *
 * It takes pmctop's batch arguments, so that bench/vs_perf_stat.py runs it
 * as if it were pmctop, in the same rounds as perf stat (as root):
 *
 *   sudo bench/vs_perf_stat.py -r 5 bench/floor_vs_perf_stat ./pmctop -- --model intel-arch
 *
 * Usage: floor_vs_perf_stat [-b] [-d SECS] [-n N] [-o FILE] [-w BYTES] [-x PARTS]
 *                           [anything else, ignored]
 * -w: bytes written per interval (default 465, what pmctop's table of
 * intel-arch's basic view writes per interval on 2 CPUs); -x: leave out
 * parts of the interval, any of r (the group reads), s (/proc/stat) and
 * w (the write), to see each one's share; the wait stays. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 1024

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The online CPUs, from /sys/devices/system/cpu/online ("0-3,8"). */
static int online_cpus(int *cpus)
{
	char buf[4096];
	int n = 0, fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (char *p = buf; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && n < MAX_CPUS; c++)
			cpus[n++] = (int)c;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

static int open_group(int cpu)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	double delay = 1.0;
	long n = 10, wbytes = 465;
	const char *out = "/dev/null", *skip = "";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			delay = atof(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-w") && i + 1 < argc)
			wbytes = atol(argv[++i]);
		else if (!strcmp(argv[i], "-x") && i + 1 < argc)
			skip = argv[++i];
	}
	if (!(delay > 0) || n < 1 || wbytes < 1 || wbytes > 65536 || strspn(skip, "rsw") != strlen(skip)) {
		fprintf(stderr, "floor_vs_perf_stat: bad -d, -n, -w or -x (r, s, w)\n");
		return 2;
	}
	bool reads = !strchr(skip, 'r'), stat = !strchr(skip, 's'), writes = !strchr(skip, 'w');
	static int cpus[MAX_CPUS], fds[MAX_CPUS];
	int ncpu = online_cpus(cpus);
	if (ncpu == 0) {
		fprintf(stderr, "floor_vs_perf_stat: cannot read the online CPUs\n");
		return 1;
	}
	for (int i = 0; i < ncpu; i++) {
		fds[i] = open_group(cpus[i]);
		if (fds[i] < 0) {
			fprintf(stderr, "floor_vs_perf_stat: perf_event_open on CPU %d: %s (run as root)\n", cpus[i],
				strerror(errno));
			return 1;
		}
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	}
	int stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	int out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (stat_fd < 0 || out_fd < 0) {
		fprintf(stderr, "floor_vs_perf_stat: cannot open /proc/stat or %s: %s\n", out, strerror(errno));
		return 1;
	}
	static char line[65536], text[4095];
	memset(line, 'x', (size_t)wbytes - 1);
	line[wbytes - 1] = '\n';
	uint64_t period = (uint64_t)(delay * 1e9), deadline = mono_ns();
	volatile uint64_t sink = 0;   /* what was read is used: no read looks idle */
	for (long k = 0; k < n; k++) {
		deadline += period;
		for (uint64_t now = mono_ns(); now < deadline; now = mono_ns()) {
			uint64_t left = deadline - now;
			struct timespec ts = { .tv_sec = (time_t)(left / 1000000000u), .tv_nsec = (long)(left % 1000000000u) };
			ppoll(NULL, 0, &ts, NULL);
		}
		for (int i = 0; reads && i < ncpu; i++) {
			uint64_t v[4];   /* nr, time_enabled, time_running, the count */
			if (read(fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
				sink += v[3];
		}
		/* As pmctop reads it: from the start, until a short read. */
		ssize_t got;
		for (off_t off = 0; stat && (got = pread(stat_fd, text, sizeof(text), off)) > 0; off += got) {
			sink += (uint64_t)text[0];
			if (got < (ssize_t)sizeof(text))
				break;
		}
		if (writes && write(out_fd, line, (size_t)wbytes) != (ssize_t)wbytes) {
			fprintf(stderr, "floor_vs_perf_stat: cannot write %s\n", out);
			return 1;
		}
	}
	close(out_fd);
	return 0;
}
