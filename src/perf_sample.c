/* perf_sample.c: per-task sampling on the real counters (perf_sample.h). */
#include "config.h"
#include "perf_sample.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "encode.h"
#include "perf_ring.h"
#include "util.h"

struct bk_sampler {
	int cpu, n;
	int *fds;
	int *events;
	uint64_t *ids;            /* the kernel's id of each event, as samples carry it */
	struct perf_ring *ring;
	bool offline;
};

void perf_sampler_close(struct bk_sampler *s)
{
	if (!s)
		return;
	perf_ring_unmap(s->ring);
	for (int i = s->n - 1; i >= 0; i--)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	free(s->fds);
	free(s->events);
	free(s->ids);
	free(s);
}

static int errno_of(int e)
{
	if (e == ENXIO || e == ENODEV)
		return -ENODEV;
	if (e == ENOTSUP)
		return -EOPNOTSUPP;
	return e > 0 ? -e : -EIO;
}

/* Whether event e counts occurrences in software (page faults, context
 * switches, migrations): sampled with a fixed period. */
static bool sw_count(const struct model *m, int e)
{
	const struct event_def *ev = &m->events[e];
	return m->pmus[ev->pmu].kind == PMU_SOFTWARE && !(ev->spec && strstr(ev->spec, "clock"));
}

/* The ring's data pages, as a power of two (perf_sample.h). A software
 * count event has no rate limit but the kernel's throttle: its bursts (an
 * allocator faulting in a gigabyte) are allowed ten times the rate. */
static int ring_order(const struct model *m, const int *events, int n, int freq)
{
	double rate = 0;
	for (int i = 0; i < n; i++)
		rate += (sw_count(m, events[i]) ? 10.0 : 1.0) * freq;
	double bytes = PERF_SAMPLE_RING_S * rate * 48;
	long page = sysconf(_SC_PAGESIZE);
	int order = PERF_SAMPLE_RING_MIN_ORDER;
	while (order < PERF_SAMPLE_RING_MAX_ORDER && (double)(page << order) < bytes)
		order++;
	return order;
}

struct bk_sampler *perf_sampler_open(const struct model *m, const char *sysfs_root, int cpu,
				     const int *events, int n, int freq, int *err, char **cause)
{
	struct bk_sampler *s = xcalloc(1, sizeof(*s));
	s->cpu = cpu;
	s->fds = xmalloc(sizeof(int) * ((size_t)n + 1));
	s->events = xmalloc(sizeof(int) * ((size_t)n + 1));
	s->ids = xcalloc((size_t)n + 1, sizeof(uint64_t));
	for (int i = 0; i < n; i++) {
		const struct event_def *ev = &m->events[events[i]];
		const struct pmu_def *pd = &m->pmus[ev->pmu];
		struct perf_event_attr attr;
		char *why = NULL;
		if (encode_event(m, ev, pd->perf_name ? pd->perf_name : pd->name, sysfs_root, &attr, &why) < 0) {
			set_cause(cause, "cannot sample %s: %s", ev->name, why ? why : "cannot encode");
			free(why);
			*err = -ENOENT;
			goto fail;
		}
		attr.sample_type = PERF_RING_SAMPLE_TYPE;
		if (sw_count(m, events[i])) {
			/* Page faults, context switches, migrations: a fixed
			 * period, so that each sample stands for exactly that
			 * many. In frequency mode the kernel lengthens such an
			 * event's period without bound after a quiet spell (a
			 * process taking 2,000 faults a second got one sample in
			 * 15 s, of period 30,720). */
			long per = PERF_SAMPLE_SW_RATE / (freq > 0 ? freq : 1);
			attr.freq = 0;
			attr.sample_period = (uint64_t)(per > 1 ? per : 1);
		} else {
			attr.freq = 1;
			attr.sample_freq = (uint64_t)freq;
		}
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.disabled = 0;
		attr.inherit = 0;
		/* A sampled hardware event holds its counter the whole time,
		 * or goes into error where it cannot: never a silent share. */
		attr.pinned = pd->kind == PMU_CORE;
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			*err = errno_of(e);
			set_cause(cause, "cannot sample %s on CPU %d: %s", ev->name, cpu, strerror(e));
			goto fail;
		}
		s->fds[s->n] = fd;
		s->events[s->n++] = events[i];
		int rc = i == 0 ? 0 : ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->fds[0]);
		if (rc == 0 && i == 0 && !(s->ring = perf_ring_map(fd, ring_order(m, events, n, freq), cause)))
			rc = -1;
		if (rc == 0)
			rc = ioctl(fd, PERF_EVENT_IOC_ID, &s->ids[i]);
		if (rc < 0) {
			int e = errno;
			*err = errno_of(e);
			if (cause && !*cause)
				set_cause(cause, "cannot sample %s on CPU %d: %s", ev->name, cpu, strerror(e));
			goto fail;
		}
	}
	*err = 0;
	return s;
fail:
	perf_sampler_close(s);
	return NULL;
}

struct drain_ctx {
	struct bk_sampler *s;
	bk_sample_fn fn;
	void *arg;
};

static void on_record(void *arg, uint64_t id, uint32_t pid, uint64_t period)
{
	struct drain_ctx *d = arg;
	for (int i = 0; i < d->s->n; i++)
		if (d->s->ids[i] == id) {
			struct bk_task_sample ts = { .pid = (int32_t)pid, .event = i, .period = period, .n = 1 };
			d->fn(d->arg, d->s->cpu, &ts);
			return;
		}
}

long perf_sampler_drain(struct bk_sampler *s, bk_sample_fn fn, void *arg)
{
	struct drain_ctx d = { s, fn, arg };
	long lost = perf_ring_drain(s->ring, on_record, &d);
	return s->offline ? -ENODEV : lost;
}

int perf_sampler_read(struct bk_sampler *s, struct bk_count *out)
{
	for (int i = 0; i < s->n; i++) {
		uint64_t v[3];
		ssize_t r = read(s->fds[i], v, sizeof(v));
		if (r == 0) {
			/* A pinned event that lost its counter reads as end of
			 * file: enabled but never running from now on. */
			out[i] = (struct bk_count){ 0 };
			continue;
		}
		if (r != (ssize_t)sizeof(v)) {
			int e = r < 0 ? errno : EIO;
			if (e == ENODEV || e == ENXIO)
				s->offline = true;
			return errno_of(e);
		}
		/* CPU hotplug: a CPU's events stop with enabled time frozen,
		 * as for counting groups; the sampler's re-plan reopens them. */
		out[i] = (struct bk_count){ .value = v[0], .time_enabled = v[1], .time_running = v[2] };
	}
	return 0;
}

int perf_sampler_counters(const struct bk_sampler *s, const struct model *m, int pmu)
{
	int n = 0;
	for (int i = 0; i < s->n; i++)
		if (m->events[s->events[i]].pmu == pmu)
			n += event_sample_counters(m, s->events[i]);
	return n;
}

int proc_task_info(const char *proc_root, int pid, char *comm, size_t cap, char **cgroup)
{
	char *path = xasprintf("%s/%d/comm", proc_root, pid);
	char *text = read_text_file(path);
	free(path);
	if (!text)
		return -ESRCH;
	snprintf(comm, cap, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	*cgroup = NULL;
	path = xasprintf("%s/%d/cgroup", proc_root, pid);
	text = read_text_file(path);
	free(path);
	/* "0::/path" is cgroup v2 (the unified hierarchy); on a v1 or
	 * hybrid host without it, the first hierarchy's path. */
	for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = strchr(line, ':');
		char *q = p ? strchr(p + 1, ':') : NULL;
		if (!q)
			continue;
		bool v2 = !strncmp(line, "0::", 3);
		if (v2 || !*cgroup) {
			free(*cgroup);
			*cgroup = xstrdup(q + 1);
		}
		if (v2)
			break;
	}
	free(text);
	return 0;
}
