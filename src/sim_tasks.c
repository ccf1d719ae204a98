/* sim_tasks.c: the simulated machine's processes (see sim_tasks.h). */
#include "config.h"
#include "sim_tasks.h"

#include <stdlib.h>

#include "util.h"

/* Pids of short-lived processes start here; long-lived ones are below. */
#define SHORT_PID_BASE 10000
#define LONG_PID_BASE 300
#define LONG_PID_STEP 17

struct proc_kind {
	const char *comm;
	const char *cgroup;
	enum wl_phase_kind kind;   /* WL_IDLE: a background daemon of idle phases */
	double life_s;             /* 0: lives for ever */
};

/* The mix drawn from, in order; a machine gets the first ones, more of
 * them the more CPUs it has. */
static const struct proc_kind kinds[] = {
	{ "postgres", "/system.slice/postgresql.service", WL_MEMORY, 0 },
	{ "java", "/kubepods.slice/pod-a1/ctr-app", WL_COMPUTE, 0 },
	{ "nginx", "/system.slice/nginx.service", WL_BRANCHY, 0 },
	{ "cc1", "/user.slice/user-1000.slice/session-2.scope", WL_COMPUTE, 0.7 },
	{ "redis-server", "/system.slice/redis.service", WL_MEMORY, 0 },
	{ "python3", "/user.slice/user-1000.slice/session-2.scope", WL_BRANCHY, 0 },
	{ "kworker/u64:1", "/", WL_IDLE, 0 },
	{ "\033]0;pwned\007evil", "/user.slice/user-1001.slice/session-9.scope", WL_COMPUTE, 0 },
	{ "ffmpeg", "/user.slice/user-1000.slice/session-2.scope", WL_COMPUTE, 0 },
	{ "gzip", "/user.slice/user-1000.slice/session-2.scope", WL_BRANCHY, 1.3 },
	{ "mysqld", "/system.slice/mysql.service", WL_MEMORY, 0 },
	{ "systemd-journal", "/system.slice/systemd-journald.service", WL_IDLE, 0 },
	{ "bad\xff\xfe" "utf8", "/user.slice/user-1001.slice/session-9.scope", WL_MEMORY, 0 },
	{ "node", "/kubepods.slice/pod-b7/ctr-web", WL_BRANCHY, 0 },
	{ "rustc", "/user.slice/user-1000.slice/session-2.scope", WL_COMPUTE, 2.1 },
	{ "clickhouse", "/system.slice/clickhouse.service", WL_MEMORY, 0 },
	{ "sshd", "/system.slice/ssh.service", WL_IDLE, 0 },
	{ "ld", "/user.slice/user-1000.slice/session-2.scope", WL_MEMORY, 0.4 },
};
#define NKINDS_ALL ((int)ARRAY_SIZE(kinds))

struct slot {
	const struct proc_kind *k;
	int pid;                  /* long-lived: its pid; short-lived: -1 */
	int short_idx;            /* short-lived: its index among them */
	uint64_t life_ns, offset_ns;
};

struct sim_tasks {
	uint64_t seed;
	int nslots, nshort;
	struct slot *slot;
	/* Slots by the kind of phase they run in, for the main task. */
	int nby[WL_NKINDS];
	int *by[WL_NKINDS];
};

struct sim_tasks *simt_new(uint64_t seed, int ncpus)
{
	struct sim_tasks *t = xcalloc(1, sizeof(*t));
	t->seed = seed;
	/* Copies of the list (instances of the same program) on big machines. */
	int n = 12 + ncpus / 4;
	if (n > 8 * NKINDS_ALL)
		n = 8 * NKINDS_ALL;
	t->nslots = n;
	t->slot = xcalloc((size_t)n, sizeof(*t->slot));
	for (int i = 0; i < WL_NKINDS; i++)
		t->by[i] = xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++) {
		struct slot *s = &t->slot[i];
		s->k = &kinds[i % NKINDS_ALL];
		if (s->k->life_s > 0) {
			s->pid = -1;
			s->short_idx = t->nshort++;
			s->life_ns = (uint64_t)(s->k->life_s * 1e9);
			s->offset_ns = wl_mix64(seed ^ (uint64_t)i) % s->life_ns;
		} else {
			s->pid = LONG_PID_BASE + LONG_PID_STEP * i;
		}
		t->by[s->k->kind][t->nby[s->k->kind]++] = i;
	}
	return t;
}

void simt_free(struct sim_tasks *t)
{
	if (!t)
		return;
	for (int i = 0; i < WL_NKINDS; i++)
		free(t->by[i]);
	free(t->slot);
	free(t);
}

static int slot_pid(const struct sim_tasks *t, const struct slot *s, uint64_t t_ns)
{
	if (s->pid >= 0)
		return s->pid;
	uint64_t gen = (t_ns + s->offset_ns) / s->life_ns;
	return SHORT_PID_BASE + (int)((gen * (uint64_t)t->nshort + (uint64_t)s->short_idx) % 4000000u);
}

int simt_pick(const struct sim_tasks *t, const struct wl_cpu *c, uint64_t t_ns)
{
	uint64_t ph = wl_mix64(t->seed ^ wl_mix64(((uint64_t)(unsigned)c->cpu << 32) ^ c->phase_no) ^ 0x7a5c);
	uint64_t sg = wl_mix64(ph ^ wl_mix64(c->seg_no + 0x51));
	int kind = c->kind;
	/* The phase's main task runs 70 % of its segments (idle: the idle
	 * task 80 %); the rest go to any process. */
	if (kind == WL_IDLE && sg % 10 < 8)
		return 0;
	const struct slot *s;
	if (kind != WL_IDLE && sg % 10 < 7 && t->nby[kind] > 0)
		s = &t->slot[t->by[kind][ph % (uint64_t)t->nby[kind]]];
	else if (kind == WL_IDLE && t->nby[WL_IDLE] > 0)
		s = &t->slot[t->by[WL_IDLE][(sg >> 8) % (uint64_t)t->nby[WL_IDLE]]];
	else
		s = &t->slot[(sg >> 8) % (uint64_t)t->nslots];
	return slot_pid(t, s, t_ns);
}

int simt_info(const struct sim_tasks *t, int pid, const char **comm, const char **cgroup)
{
	const struct slot *s = NULL;
	if (pid == 0) {
		*comm = "swapper";
		*cgroup = "/";
		return 0;
	}
	if (pid >= SHORT_PID_BASE && t->nshort > 0) {
		int idx = (pid - SHORT_PID_BASE) % t->nshort;
		for (int i = 0; i < t->nslots && !s; i++)
			if (t->slot[i].pid < 0 && t->slot[i].short_idx == idx)
				s = &t->slot[i];
	} else if (pid >= LONG_PID_BASE && (pid - LONG_PID_BASE) % LONG_PID_STEP == 0) {
		int i = (pid - LONG_PID_BASE) / LONG_PID_STEP;
		if (i < t->nslots && t->slot[i].pid == pid)
			s = &t->slot[i];
	}
	if (!s)
		return -1;
	*comm = s->k->comm;
	*cgroup = s->k->cgroup;
	return 0;
}
