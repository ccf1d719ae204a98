/* sim_sampling.c: per-task sampling in the simulated PMU (sim_sampling.h). */
#include "config.h"
#include "sim_sampling.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Sample records a CPU buffers between drains (the kernel's ring holds a
 * few hundred kilobytes): beyond, samples are lost, and said to be. */
#define SIMSMP_BUFFER 65536
/* Truth of a task not seen for this long is dropped. */
#define TRUTH_KEEP_NS 60000000000ull

struct simsmp {
	int cpu, n, freq;
	int *events;
	double *pending;          /* occurrences since the last sample, per event */
	double *total;            /* since open */
	double *scratch;
	uint64_t t_open;
	struct bk_task_sample *buf;
	int nbuf, cap;
	long lost;
};

struct simsmp *simsmp_new(int cpu, const int *events, int n, int freq, uint64_t now)
{
	struct simsmp *s = xcalloc(1, sizeof(*s));
	s->cpu = cpu;
	s->n = n;
	s->freq = freq > 0 ? freq : 1;
	s->events = xmalloc(sizeof(int) * (size_t)n);
	memcpy(s->events, events, sizeof(int) * (size_t)n);
	s->pending = xcalloc((size_t)n, sizeof(double));
	s->total = xcalloc((size_t)n, sizeof(double));
	s->scratch = xcalloc((size_t)n + 1, sizeof(double));
	s->t_open = now;
	return s;
}

void simsmp_free(struct simsmp *s)
{
	if (!s)
		return;
	free(s->events);
	free(s->pending);
	free(s->total);
	free(s->scratch);
	free(s->buf);
	free(s);
}

int simsmp_nevents(const struct simsmp *s)
{
	return s->n;
}

const int *simsmp_events(const struct simsmp *s)
{
	return s->events;
}

double *simsmp_scratch(struct simsmp *s)
{
	return s->scratch;
}

static void push(struct simsmp *s, int pid, int i, uint64_t period, uint32_t k)
{
	/* Consecutive samples of one task and period are one record. */
	if (s->nbuf > 0) {
		struct bk_task_sample *last = &s->buf[s->nbuf - 1];
		if (last->pid == pid && last->event == i && last->period == period) {
			last->n += k;
			return;
		}
	}
	if (s->nbuf >= SIMSMP_BUFFER) {
		s->lost += k;
		return;
	}
	if (s->nbuf == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->buf = xrealloc(s->buf, sizeof(*s->buf) * (size_t)s->cap);
	}
	s->buf[s->nbuf++] = (struct bk_task_sample){ .pid = pid, .event = i, .period = period, .n = k };
}


long simsmp_drain(struct simsmp *s, bk_sample_fn fn, void *arg)
{
	for (int i = 0; i < s->nbuf; i++)
		fn(arg, s->cpu, &s->buf[i]);
	s->nbuf = 0;
	long lost = s->lost;
	s->lost = 0;
	return lost;
}

void simsmp_read(const struct simsmp *s, uint64_t now, struct bk_count *out)
{
	for (int i = 0; i < s->n; i++)
		out[i] = (struct bk_count){ .value = (uint64_t)llround(s->total[i]),
					    .time_enabled = now - s->t_open, .time_running = now - s->t_open };
}

/* ---- truth: an open-addressing table keyed by (pid, event) ---- */

struct truth_ent {
	int pid, event;           /* event -1: free */
	double v;
	uint64_t seen;
};

struct simtruth {
	struct truth_ent *e;
	size_t cap, used;
	uint64_t last_prune;
};

struct simtruth *simtruth_new(void)
{
	struct simtruth *t = xcalloc(1, sizeof(*t));
	t->cap = 1024;
	t->e = xmalloc(sizeof(*t->e) * t->cap);
	for (size_t i = 0; i < t->cap; i++)
		t->e[i].event = -1;
	return t;
}

void simtruth_free(struct simtruth *t)
{
	if (!t)
		return;
	free(t->e);
	free(t);
}

static size_t slot_of(const struct simtruth *t, int pid, int event)
{
	uint64_t h = ((uint64_t)(unsigned)pid << 20) ^ (uint64_t)(unsigned)event;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	size_t i = (size_t)h & (t->cap - 1);
	while (t->e[i].event >= 0 && (t->e[i].pid != pid || t->e[i].event != event))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void rebuild(struct simtruth *t, size_t cap, uint64_t now)
{
	struct truth_ent *old = t->e;
	size_t ocap = t->cap;
	t->cap = cap;
	t->e = xmalloc(sizeof(*t->e) * cap);
	for (size_t i = 0; i < cap; i++)
		t->e[i].event = -1;
	t->used = 0;
	for (size_t i = 0; i < ocap; i++) {
		if (old[i].event < 0 || now - old[i].seen > TRUTH_KEEP_NS)
			continue;
		size_t j = slot_of(t, old[i].pid, old[i].event);
		t->e[j] = old[i];
		t->used++;
	}
	free(old);
}

void simtruth_add(struct simtruth *t, int pid, int event, double v, uint64_t now)
{
	if (now - t->last_prune > TRUTH_KEEP_NS) {
		rebuild(t, t->cap, now);
		t->last_prune = now;
	}
	if (2 * (t->used + 1) > t->cap)
		rebuild(t, 2 * t->cap, now);
	size_t i = slot_of(t, pid, event);
	if (t->e[i].event < 0) {
		t->e[i] = (struct truth_ent){ .pid = pid, .event = event };
		t->used++;
	}
	t->e[i].v += v;
	t->e[i].seen = now;
}

double simtruth_get(const struct simtruth *t, int pid, int event)
{
	if (!t)
		return 0;
	size_t i = slot_of(t, pid, event);
	return t->e[i].event < 0 ? 0 : t->e[i].v;
}

int simtruth_pids(const struct simtruth *t, int *pids, int max)
{
	int n = 0;
	for (size_t i = 0; t && i < t->cap; i++) {
		if (t->e[i].event < 0)
			continue;
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = pids[k] == t->e[i].pid;
		if (!seen && n < max)
			pids[n++] = t->e[i].pid;
	}
	return n;
}

void simsmp_span(struct simsmp *s, int pid, const double *counts, uint64_t len_ns, uint64_t end_ns,
		 struct simtruth *truth)
{
	for (int i = 0; i < s->n; i++) {
		double c = counts[i];
		if (!(c > 0))
			continue;
		s->total[i] += c;
		if (truth)
			simtruth_add(truth, pid, s->events[i], c, end_ns);
		/* The period that gives freq samples a second at this rate. */
		double per = c / ((double)len_ns * 1e-9) / s->freq;
		uint64_t period = per < 1 ? 1 : (uint64_t)per;
		s->pending[i] += c;
		double k = floor(s->pending[i] / (double)period);
		if (k < 1)
			continue;
		s->pending[i] -= k * (double)period;
		while (k > 0) {
			uint32_t part = k > 1e9 ? 1000000000u : (uint32_t)k;
			push(s, pid, i, period, part);
			k -= part;
		}
	}
}
