/* topo.c: reads the CPU topology from a sysfs root (the real /sys or a
 * fixture), or builds a synthetic one for the simulated PMU, and groups the
 * CPUs into physical cores, CCX (CPUs sharing one L3), dies and sockets.
 *
 * Loading keeps the raw sysfs values per CPU; topo_rebuild() derives every
 * dense index and group list from them. That split is what makes CPU
 * hotplug cheap and safe: marking a CPU offline only changes a flag and the
 * rebuild leaves every other CPU where it was. */
#include "config.h"
#include "topo.h"
#include "util.h"
#include "hot_path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The kernel's largest NR_CPUS; CPU lists beyond it are rejected. */
#define TOPO_MAX_CPUS 8192

/* ---- reading sysfs ---- */

static bool path_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Reads a sysfs file into *out. 0, -ENOENT when absent (no cause: the
 * caller picks a default), or another -errno with *cause. */
static int read_sysfs(const char *path, char **out, char **cause)
{
	*out = read_sysfs_text(path);
	if (*out)
		return 0;
	int err = errno;
	if (err != ENOENT)
		set_cause(cause, "%s: %s", path, strerror(err));
	return -err;
}

/* Reads a small non-negative decimal integer. Returns 0, -ENOENT when the
 * file is absent (the caller picks a default) or -EINVAL with *cause when
 * the file holds something else. */
static int read_int(const char *path, int *out, char **cause)
{
	char *s;
	int rc = read_sysfs(path, &s, cause);
	if (rc < 0)
		return rc;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < -1 || v > 1000000) {
		set_cause(cause, "%s: expected a number, found '%.40s'", path, s);
		free(s);
		return -EINVAL;
	}
	free(s);
	*out = (int)v;
	return 0;
}

/* Reads a CPU list file into bitmap. Returns 0, -ENOENT when absent, or
 * another negative errno with *cause. */
static int read_cpulist(const char *path, bool *bitmap, int nbits, char **cause)
{
	char *s;
	int rc = read_sysfs(path, &s, cause);
	if (rc < 0)
		return rc;
	char *why = NULL;
	if (cpulist_parse(s, bitmap, nbits, &why) < 0) {
		set_cause(cause, "%s: %s", path, why);
		rc = -EINVAL;
	}
	free(why);
	free(s);
	return rc;
}

/* Lists the cpuN directories when there is no "possible" file. */
static int scan_cpu_dirs(const char *dir, bool *bitmap, char **cause)
{
	DIR *d = opendir(dir);
	if (!d)
		return set_cause(cause, "%s: %s", dir, strerror(errno));
	memset(bitmap, 0, sizeof(bool) * TOPO_MAX_CPUS);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name;
		if (strncmp(p, "cpu", 3) != 0 || !isdigit((unsigned char)p[3]))
			continue;
		char *end;
		long n = strtol(p + 3, &end, 10);
		if (*end == '\0' && n >= 0 && n < TOPO_MAX_CPUS)
			bitmap[n] = true;
	}
	closedir(d);
	return 0;
}

static void cpu_clear_raw(struct topo_cpu *c)
{
	c->has_topology = false;
	c->core_id = -1;
	c->package_id = -1;
	c->die = 0;
	c->l3_id = -1;
	c->l3_first = -1;
}

/* Reads an id file below cpudir: an absent file or a negative id (which
 * the kernel writes when it does not know) counts as 0. */
static int read_id_or_zero(const char *cpudir, const char *rel, int *out, char **cause)
{
	char *p = xasprintf("%s/%s", cpudir, rel);
	int v, rc = read_int(p, &v, cause);
	free(p);
	if (rc == -ENOENT)
		v = 0;
	else if (rc < 0)
		return rc;
	*out = v < 0 ? 0 : v;
	return 0;
}

/* Reads a CPU list file below cpudir and gives its lowest CPU in *first
 * (left as it is when the file is absent or the list empty). 0 or -errno;
 * an absent file is not an error. */
static int read_first_cpu(const char *cpudir, const char *rel, int *first, char **cause)
{
	bool *cpus = xcalloc(TOPO_MAX_CPUS, sizeof(bool));
	char *p = xasprintf("%s/%s", cpudir, rel);
	int rc = read_cpulist(p, cpus, TOPO_MAX_CPUS, cause);
	free(p);
	if (rc == 0) {
		for (int i = 0; i < TOPO_MAX_CPUS; i++)
			if (cpus[i]) {
				*first = i;
				break;
			}
	}
	free(cpus);
	return rc == -ENOENT ? 0 : rc;
}

/* Reads cpuN/topology and cpuN/cache/index3 into c's raw fields. Absent
 * optional files (die_id, the L3) get defaults; a CPU without
 * topology/core_id falls back to its lowest SMT sibling, then to its own
 * number, so that a sparse sysfs still gives one core per CPU. */
static int cpu_read_raw(const char *cpudir, struct topo_cpu *c, char **cause)
{
	char *p = NULL;
	int rc, v;

	cpu_clear_raw(c);
	if ((rc = read_id_or_zero(cpudir, "topology/physical_package_id", &c->package_id, cause)) < 0 ||
	    (rc = read_id_or_zero(cpudir, "topology/die_id", &c->die, cause)) < 0)
		goto fail;

	p = xasprintf("%s/topology/core_id", cpudir);
	rc = read_int(p, &v, cause);
	free(p);
	if (rc == -ENOENT) {
		v = c->cpu;
		int first = -1;
		if ((rc = read_first_cpu(cpudir, "topology/thread_siblings_list", &first, cause)) < 0)
			goto fail;
		if (first >= 0)
			v = first;
	} else if (rc < 0) {
		goto fail;
	}
	c->core_id = v;

	p = xasprintf("%s/cache/index3/id", cpudir);
	rc = read_int(p, &v, cause);
	free(p);
	if (rc == 0)
		c->l3_id = v;
	else if (rc != -ENOENT)
		goto fail;

	if ((rc = read_first_cpu(cpudir, "cache/index3/shared_cpu_list", &c->l3_first, cause)) < 0)
		goto fail;
	/* An L3 id without a shared list still names the L3. */
	if (c->l3_id >= 0 && c->l3_first < 0)
		c->l3_first = c->cpu;
	c->has_topology = true;
	return 0;
fail:
	cpu_clear_raw(c);
	return rc < 0 ? rc : -EINVAL;
}

/* Returns 1 online, 0 offline, -1 unknown (no cpuN/online file). */
static int cpu_read_online(const char *cpudir, char **cause)
{
	char *p = xasprintf("%s/online", cpudir);
	int v, rc = read_int(p, &v, cause);
	free(p);
	if (rc == -ENOENT)
		return -1;
	if (rc < 0)
		return -2;
	if (v != 0 && v != 1) {
		set_cause(cause, "%s/online: expected 0 or 1, found %d", cpudir, v);
		return -2;
	}
	return v;
}

static void read_numa(struct topo *t)
{
	char *dir = xasprintf("%s/devices/system/node", t->root);
	DIR *d = opendir(dir);
	t->nnuma = 1;
	if (!d) {
		free(dir);
		return;
	}
	bool *map = xcalloc(TOPO_MAX_CPUS, sizeof(bool));
	int nodes = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		if (strncmp(n, "node", 4) != 0 || !isdigit((unsigned char)n[4]))
			continue;
		char *end;
		long node = strtol(n + 4, &end, 10);
		if (*end != '\0' || node < 0 || node > 65535)
			continue;
		char *p = xasprintf("%s/%s/cpulist", dir, n);
		char *why = NULL;
		/* A node without CPUs (memory only) has an empty cpulist. */
		int rc = read_cpulist(p, map, TOPO_MAX_CPUS, &why);
		free(why);
		free(p);
		if (rc < 0)
			continue;
		bool any = false;
		for (int i = 0; i < t->ncpus; i++) {
			if (t->cpus[i].cpu < TOPO_MAX_CPUS && map[t->cpus[i].cpu]) {
				t->cpus[i].numa = (int)node;
				any = true;
			}
		}
		nodes += any;
	}
	closedir(d);
	free(map);
	free(dir);
	if (nodes > 0)
		t->nnuma = nodes;
}

static void topo_index_cpus(struct topo *t)
{
	t->max_cpu = t->ncpus ? t->cpus[t->ncpus - 1].cpu + 1 : 0;
	t->cpu_index = xmalloc(sizeof(int) * (size_t)(t->max_cpu ? t->max_cpu : 1));
	for (int i = 0; i < t->max_cpu; i++)
		t->cpu_index[i] = -1;
	for (int i = 0; i < t->ncpus; i++)
		t->cpu_index[t->cpus[i].cpu] = i;
}

struct topo *topo_load(const char *root, char **cause)
{
	struct topo *t = NULL;
	bool *possible = NULL, *online = NULL;
	char *cpudir = NULL, *p = NULL, *cpuN = NULL;
	bool have_online_list;
	int rc;

	if (!root)
		root = "/sys";
	cpudir = xasprintf("%s/devices/system/cpu", root);
	errno = 0;
	if (!path_is_dir(cpudir)) {
		set_cause(cause, "%s: %s", cpudir, errno ? strerror(errno) : "not a directory");
		goto fail;
	}
	possible = xcalloc(TOPO_MAX_CPUS, sizeof(bool));
	online = xcalloc(TOPO_MAX_CPUS, sizeof(bool));
	p = xasprintf("%s/possible", cpudir);
	rc = read_cpulist(p, possible, TOPO_MAX_CPUS, cause);
	free(p);
	p = NULL;
	if (rc == -ENOENT)
		rc = scan_cpu_dirs(cpudir, possible, cause);
	if (rc < 0)
		goto fail;
	p = xasprintf("%s/online", cpudir);
	rc = read_cpulist(p, online, TOPO_MAX_CPUS, cause);
	free(p);
	p = NULL;
	if (rc < 0 && rc != -ENOENT)
		goto fail;
	have_online_list = rc == 0;

	t = xcalloc(1, sizeof(*t));
	t->root = xstrdup(root);
	int cap = 0;
	for (int n = 0; n < TOPO_MAX_CPUS; n++) {
		if (!possible[n])
			continue;
		cpuN = xasprintf("%s/cpu%d", cpudir, n);
		/* "possible" counts hot-pluggable slots with no CPU behind them. */
		if (!path_is_dir(cpuN)) {
			free(cpuN);
			cpuN = NULL;
			continue;
		}
		if (t->ncpus == cap) {
			cap = cap ? cap * 2 : 16;
			t->cpus = xrealloc(t->cpus, sizeof(*t->cpus) * (size_t)cap);
		}
		struct topo_cpu *c = &t->cpus[t->ncpus++];
		memset(c, 0, sizeof(*c));
		c->cpu = n;
		int on = cpu_read_online(cpuN, cause);
		if (on == -2)
			goto fail;
		/* cpu0 usually has no online file: the global list decides. */
		c->online = on >= 0 ? on == 1 : (have_online_list ? online[n] : true);
		if (c->online) {
			if (cpu_read_raw(cpuN, c, cause) < 0)
				goto fail;
		} else {
			/* The kernel removes an offline CPU's topology; if some of it
			 * is still there, use it, and otherwise leave it unknown. */
			char *why = NULL;
			p = xasprintf("%s/topology", cpuN);
			if (!path_is_dir(p) || cpu_read_raw(cpuN, c, &why) < 0)
				cpu_clear_raw(c);
			free(p);
			p = NULL;
			free(why);
		}
		free(cpuN);
		cpuN = NULL;
	}
	if (t->ncpus == 0) {
		set_cause(cause, "%s: no CPUs found", cpudir);
		goto fail;
	}
	topo_index_cpus(t);
	read_numa(t);
	topo_rebuild(t);
	if (topo_online_count(t) == 0) {
		set_cause(cause, "%s: no CPU is online", cpudir);
		goto fail;
	}
	free(possible);
	free(online);
	free(cpudir);
	return t;
fail:
	free(cpuN);
	free(p);
	free(possible);
	free(online);
	free(cpudir);
	topo_free(t);
	return NULL;
}

/* ---- grouping ---- */

static void free_groups(struct topo *t)
{
	for (int i = 0; i < t->ncores; i++)
		free(t->cores[i].cpus);
	for (int i = 0; i < t->nccx; i++) {
		free(t->ccxs[i].cpus);
		free(t->ccxs[i].cores);
	}
	for (int i = 0; i < t->nsockets; i++) {
		free(t->sockets[i].cpus);
		free(t->sockets[i].ccxs);
	}
	free(t->cores);
	free(t->ccxs);
	free(t->sockets);
	t->cores = NULL;
	t->ccxs = NULL;
	t->sockets = NULL;
	t->ncores = t->nccx = t->nsockets = 0;
}

/* A sortable record per known CPU; k[] is the group key, first the lowest
 * CPU of the group once known. */
struct key_rec { int k[3]; int cpu_idx; int order; };

static int cmp_key(const void *a, const void *b)
{
	const struct key_rec *x = a, *y = b;
	for (int i = 0; i < 3; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return x->cpu_idx - y->cpu_idx;
}

static int cmp_order(const void *a, const void *b)
{
	const struct key_rec *x = a, *y = b;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	/* Two groups may share an order value (equal L3 ids on two packages):
	 * keep each group's members together. */
	return cmp_key(a, b);
}

static bool same_key(const struct key_rec *x, const struct key_rec *y)
{
	return x->k[0] == y->k[0] && x->k[1] == y->k[1] && x->k[2] == y->k[2];
}

/* Gives each distinct key a dense index, in ascending order of `order`
 * (the group's smallest order value), and stores it in out[cpu_idx].
 * Returns the number of groups. */
static int assign_dense(struct key_rec *r, int n, int *out)
{
	if (n == 0)
		return 0;
	qsort(r, (size_t)n, sizeof(*r), cmp_key);
	/* Each group takes the smallest order of its members (the first after
	 * sorting is not necessarily it, so scan). */
	for (int i = 0; i < n;) {
		int j = i, best = r[i].order;
		while (j < n && same_key(&r[i], &r[j])) {
			if (r[j].order < best)
				best = r[j].order;
			j++;
		}
		for (int m = i; m < j; m++)
			r[m].order = best;
		i = j;
	}
	qsort(r, (size_t)n, sizeof(*r), cmp_order);
	int groups = -1;
	for (int i = 0; i < n; i++) {
		if (i == 0 || r[i].order != r[i - 1].order || !same_key(&r[i], &r[i - 1]))
			groups++;
		out[r[i].cpu_idx] = groups;
	}
	return groups + 1;
}

static void push(int **arr, int *n, int v)
{
	/* Lists are short and built once per rebuild; grow one at a time
	 * in powers of two. */
	if ((*n & (*n - 1)) == 0)
		*arr = xrealloc(*arr, sizeof(int) * (size_t)(*n ? *n * 2 : 1));
	(*arr)[(*n)++] = v;
}

static bool contains(const int *a, int n, int v)
{
	for (int i = n - 1; i >= 0; i--)
		if (a[i] == v)
			return true;
	return false;
}

/* Dense indices of each CPU's socket, die, core and CCX (-1: none), in
 * the order the comments below give; r is scratch for t->ncpus keys. */
struct topo_numbers {
	int *core_of, *ccx_of, *sock_of, *die_of;
};

static void number_units(struct topo *t, struct key_rec *r, struct topo_numbers *nb)
{
	int n = t->ncpus, m;
	int *core_of = nb->core_of, *ccx_of = nb->ccx_of, *sock_of = nb->sock_of, *die_of = nb->die_of;
	for (int i = 0; i < n; i++)
		core_of[i] = ccx_of[i] = sock_of[i] = die_of[i] = -1;

	/* Sockets in package id order. */
	m = 0;
	for (int i = 0; i < n; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (!c->has_topology)
			continue;
		r[m++] = (struct key_rec){ { c->package_id, 0, 0 }, i, c->package_id };
	}
	t->nsockets = assign_dense(r, m, sock_of);

	/* Dies: (package, die) pairs, only counted. */
	m = 0;
	for (int i = 0; i < n; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (c->has_topology)
			r[m++] = (struct key_rec){ { c->package_id, c->die, 0 }, i, c->package_id };
	}
	t->ndies = assign_dense(r, m, die_of);

	/* Cores: (package, die, core_id), numbered in that order. On AMD EPYC
	 * this makes core n the core of CPU n; sorting by key rather than by
	 * lowest CPU keeps the numbering when a core's first thread was
	 * already offline at load time, and keeps a socket's cores together
	 * where the BIOS enumerates sockets alternately (Intel). */
	m = 0;
	for (int i = 0; i < n; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (c->has_topology)
			r[m++] = (struct key_rec){ { c->package_id, c->die, c->core_id }, i, 0 };
	}
	t->ncores = assign_dense(r, m, core_of);

	/* CCX: by L3 id when the kernel gives one, else by the lowest CPU that
	 * shares the L3; the package is part of the key in case ids repeat. */
	m = 0;
	for (int i = 0; i < n; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (!c->has_topology || c->l3_first < 0)
			continue;
		int key = c->l3_id >= 0 ? c->l3_id : c->l3_first;
		r[m++] = (struct key_rec){ { c->l3_id >= 0, key, c->package_id }, i, key };
	}
	t->nccx = assign_dense(r, m, ccx_of);
}

/* The cores, CCX and sockets, empty. */
static void make_units(struct topo *t)
{
	t->cores = xcalloc((size_t)t->ncores, sizeof(*t->cores));
	t->ccxs = xcalloc((size_t)t->nccx, sizeof(*t->ccxs));
	t->sockets = xcalloc((size_t)t->nsockets, sizeof(*t->sockets));
	for (int i = 0; i < t->ncores; i++) {
		t->cores[i].id = i;
		t->cores[i].socket = -1;
		t->cores[i].ccx = -1;
	}
	for (int i = 0; i < t->nccx; i++) {
		t->ccxs[i].id = i;
		t->ccxs[i].l3_id = -1;
		t->ccxs[i].socket = -1;
	}
}

/* Each unit's attributes and its online CPUs (and a CCX's cores). */
static void fill_units(struct topo *t, const struct topo_numbers *nb)
{
	int n = t->ncpus;
	const int *core_of = nb->core_of, *ccx_of = nb->ccx_of, *sock_of = nb->sock_of;
	int *core_width = xcalloc((size_t)t->ncores, sizeof(int));
	t->threads_per_core = t->ncores ? 0 : 1;
	/* Group attributes come from every known CPU, online or not, so that
	 * they do not change with hotplug. cpus[] is sorted by CPU number, so
	 * each list below comes out sorted too. */
	for (int i = 0; i < n; i++) {
		struct topo_cpu *c = &t->cpus[i];
		c->core = c->ccx = c->socket = c->thread = -1;
		if (!c->has_topology)
			continue;
		struct topo_core *co = &t->cores[core_of[i]];
		int thread = core_width[core_of[i]]++;
		if (core_width[core_of[i]] > t->threads_per_core)
			t->threads_per_core = core_width[core_of[i]];
		co->socket = sock_of[i];
		if (co->ccx < 0)
			co->ccx = ccx_of[i];
		t->sockets[sock_of[i]].id = c->package_id;
		if (ccx_of[i] >= 0) {
			t->ccxs[ccx_of[i]].l3_id = c->l3_id;
			if (t->ccxs[ccx_of[i]].socket < 0)
				t->ccxs[ccx_of[i]].socket = sock_of[i];
		}
		if (!c->online)
			continue;
		c->core = core_of[i];
		c->ccx = ccx_of[i];
		c->socket = sock_of[i];
		c->thread = thread;
		push(&co->cpus, &co->ncpus, c->cpu);
		push(&t->sockets[c->socket].cpus, &t->sockets[c->socket].ncpus, c->cpu);
		if (c->ccx >= 0) {
			struct topo_ccx *x = &t->ccxs[c->ccx];
			push(&x->cpus, &x->ncpus, c->cpu);
			if (!contains(x->cores, x->ncores, c->core))
				push(&x->cores, &x->ncores, c->core);
		}
	}
	if (t->threads_per_core == 0)
		t->threads_per_core = 1;
	/* Cores of a CCX were pushed in CPU order, which on SMT machines is
	 * already core order; CCX of a socket in index order. */
	for (int i = 0; i < t->nccx; i++) {
		struct topo_ccx *x = &t->ccxs[i];
		for (int a = 1; a < x->ncores; a++)
			for (int b = a; b > 0 && x->cores[b - 1] > x->cores[b]; b--) {
				int tmp = x->cores[b];
				x->cores[b] = x->cores[b - 1];
				x->cores[b - 1] = tmp;
			}
		if (x->ncpus > 0 && x->socket >= 0)
			push(&t->sockets[x->socket].ccxs, &t->sockets[x->socket].nccx, i);
	}
	free(core_width);
}

void topo_rebuild(struct topo *t)
{
	int n = t->ncpus;
	size_t sz = sizeof(int) * (size_t)(n ? n : 1);
	struct topo_numbers nb = { xmalloc(sz), xmalloc(sz), xmalloc(sz), xmalloc(sz) };
	struct key_rec *r = xmalloc(sizeof(*r) * (size_t)(n ? n : 1));
	free_groups(t);
	number_units(t, r, &nb);
	make_units(t);
	fill_units(t, &nb);
	free(r);
	free(nb.core_of);
	free(nb.ccx_of);
	free(nb.sock_of);
	free(nb.die_of);
}

/* ---- synthetic ---- */

struct topo *topo_synthetic(int sockets, int ccx_per_socket, int cores_per_ccx, int threads)
{
	if (sockets < 1 || ccx_per_socket < 1 || cores_per_ccx < 1 || threads < 1)
		return NULL;
	long cores = (long)sockets * ccx_per_socket * cores_per_ccx;
	if (cores > TOPO_MAX_CPUS || cores * threads > TOPO_MAX_CPUS)
		return NULL;
	int total_cores = (int)cores;
	int per_socket = ccx_per_socket * cores_per_ccx;
	struct topo *t = xcalloc(1, sizeof(*t));
	t->ncpus = total_cores * threads;
	t->cpus = xcalloc((size_t)t->ncpus, sizeof(*t->cpus));
	/* Linux on AMD EPYC: CPU n is the first thread of core n, its SMT
	 * siblings are n + total_cores, n + 2 * total_cores, ... */
	for (int n = 0; n < t->ncpus; n++) {
		struct topo_cpu *c = &t->cpus[n];
		int core = n % total_cores;
		c->cpu = n;
		c->online = true;
		c->has_topology = true;
		c->package_id = core / per_socket;
		c->die = 0;
		c->core_id = core % per_socket;
		c->l3_id = core / cores_per_ccx;
		c->l3_first = (core / cores_per_ccx) * cores_per_ccx;
		c->numa = c->package_id;
	}
	t->nnuma = sockets;
	topo_index_cpus(t);
	topo_rebuild(t);
	return t;
}

struct topo *topo_from_cpus(const struct topo_cpu *cpus, int n, int nnuma, char **cause)
{
	if (n < 1 || n > TOPO_MAX_CPUS)
		return set_cause(cause, "%d CPUs (expected 1 to %d)", n, TOPO_MAX_CPUS), NULL;
	for (int i = 0; i < n; i++)
		if (cpus[i].cpu < 0 || cpus[i].cpu >= TOPO_MAX_CPUS || (i > 0 && cpus[i].cpu <= cpus[i - 1].cpu))
			return set_cause(cause, "CPU %d: CPU numbers must rise from 0 to %d", cpus[i].cpu,
					 TOPO_MAX_CPUS - 1), NULL;
	struct topo *t = xcalloc(1, sizeof(*t));
	t->ncpus = n;
	t->cpus = xcalloc((size_t)n, sizeof(*t->cpus));
	memcpy(t->cpus, cpus, sizeof(*t->cpus) * (size_t)n);
	t->nnuma = nnuma > 0 ? nnuma : 1;
	topo_index_cpus(t);
	topo_rebuild(t);
	return t;
}

/* ---- queries and hotplug ---- */

HOT_PATH void topo_free(struct topo *t)
{
	if (!t)
		return;
	free_groups(t);
	free(t->cpus);
	free(t->cpu_index);
	free(t->root);
	free(t);
}

struct topo *topo_clone(const struct topo *t)
{
	struct topo *c = xcalloc(1, sizeof(*c));
	c->root = t->root ? xstrdup(t->root) : NULL;
	c->ncpus = t->ncpus;
	c->max_cpu = t->max_cpu;
	c->cpus = xmalloc(sizeof(*c->cpus) * (size_t)(t->ncpus ? t->ncpus : 1));
	memcpy(c->cpus, t->cpus, sizeof(*c->cpus) * (size_t)t->ncpus);
	c->cpu_index = xmalloc(sizeof(int) * (size_t)(t->max_cpu ? t->max_cpu : 1));
	memcpy(c->cpu_index, t->cpu_index, sizeof(int) * (size_t)t->max_cpu);
	/* The groups follow from the raw per-CPU fields, so rebuilding them
	 * gives the same numbering as the original. */
	topo_rebuild(c);
	return c;
}

HOT_PATH int topo_poll_online(struct topo *t, int *cpus, int max)
{
	int n = 0;
	if (!t || !t->root)
		return 0;
	for (int i = 0; i < t->ncpus && n < max; i++) {
		struct topo_cpu *c = &t->cpus[i];
		if (c->online)
			continue;
		char *p = xasprintf("%s/devices/system/cpu/cpu%d/online", t->root, c->cpu);
		long v = 0;
		int rc = read_long_file(p, &v);
		free(p);
		if (rc == 0 && v == 1) {
			topo_set_online(t, c->cpu, true);
			cpus[n++] = c->cpu;
		}
	}
	return n;
}

HOT_PATH const struct topo_cpu *topo_cpu_by_num(const struct topo *t, int cpu)
{
	if (!t || cpu < 0 || cpu >= t->max_cpu || t->cpu_index[cpu] < 0)
		return NULL;
	return &t->cpus[t->cpu_index[cpu]];
}

HOT_PATH int topo_socket_index(const struct topo *t, int socket_id)
{
	for (int k = 0; k < t->nsockets; k++)
		if (t->sockets[k].id == socket_id)
			return k;
	return socket_id >= 0 && socket_id < t->nsockets ? socket_id : -1;
}

int topo_online_count(const struct topo *t)
{
	int n = 0;
	for (int i = 0; i < t->ncpus; i++)
		n += t->cpus[i].online;
	return n;
}

void topo_set_online(struct topo *t, int cpu, bool online)
{
	if (!t || cpu < 0 || cpu >= t->max_cpu || t->cpu_index[cpu] < 0)
		return;
	struct topo_cpu *c = &t->cpus[t->cpu_index[cpu]];
	c->online = online;
	if (online && !c->has_topology) {
		bool ok = false;
		if (t->root) {
			char *dir = xasprintf("%s/devices/system/cpu/cpu%d", t->root, cpu);
			char *topodir = xasprintf("%s/topology", dir);
			char *why = NULL;
			ok = path_is_dir(topodir) && cpu_read_raw(dir, c, &why) == 0;
			free(why);
			free(topodir);
			free(dir);
		}
		if (!ok) {
			/* Nothing known: a core of its own, so that its counts are
			 * still shown, placed on the last socket after every known
			 * core so that no other core is renumbered. */
			int pkg = 0;
			for (int i = 0; i < t->ncpus; i++)
				if (t->cpus[i].has_topology && t->cpus[i].package_id > pkg)
					pkg = t->cpus[i].package_id;
			c->has_topology = true;
			c->package_id = pkg;
			c->die = 0;
			c->core_id = 100000 + cpu;
			c->l3_id = -1;
			c->l3_first = -1;
		}
	}
	topo_rebuild(t);
}
