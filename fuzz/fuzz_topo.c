/* fuzz_topo.c: libFuzzer harness for the sysfs topology reader. The input
 * is split at '|' into the contents of a small sysfs tree (four CPUs: the
 * global possible and online lists, each CPU's online flag, package, die
 * and core ids, SMT sibling list, L3 id and sharer list, and two NUMA
 * nodes), written under a private temporary directory removed at exit; an
 * empty or missing part leaves its file out. The directories are made once
 * and each input rewrites or removes every file (emptying and rebuilding
 * the tree per input cost three quarters of the time). Then
 * topo_load must either fail with a cause or give a topology whose CPUs,
 * cores, CCXs and sockets refer to each other consistently.
 * Build: see docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "topo.h"
#include "util.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NCPU = 4 };

static const char *const global_files[] = {
	"devices/system/cpu/possible", "devices/system/cpu/online",
	"devices/system/node/node0/cpulist", "devices/system/node/node1/cpulist",
};
static const char *const cpu_files[] = {
	"online", "topology/physical_package_id", "topology/die_id", "topology/core_id",
	"topology/thread_siblings_list", "cache/index3/id", "cache/index3/shared_cpu_list",
};

/* Makes the parent directories of root/rel, one level at a time. */
static void make_parents(const char *root, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0700);
		*p = '/';
	}
	free(path);
}

/* root/rel holds s[0..len), or is absent when len is 0. */
static void put(const char *root, const char *rel, const char *s, size_t len)
{
	if (len > 0) {
		fuzz_write(root, rel, s, len);
	} else {
		char *path = xasprintf("%s/%s", root, rel);
		unlink(path);
		free(path);
	}
}

static void check(const struct topo *t)
{
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		if (c->cpu < 0 || c->cpu >= t->max_cpu || topo_cpu_by_num(t, c->cpu) != c)
			abort();
	}
	for (int i = 0; i < t->ncores; i++)
		for (int k = 0; k < t->cores[i].ncpus; k++)
			if (!topo_cpu_by_num(t, t->cores[i].cpus[k]))
				abort();
	for (int i = 0; i < t->nccx; i++)
		for (int k = 0; k < t->ccxs[i].ncpus; k++)
			if (!topo_cpu_by_num(t, t->ccxs[i].cpus[k]))
				abort();
	for (int i = 0; i < t->nsockets; i++)
		for (int k = 0; k < t->sockets[i].nccx; k++)
			if (t->sockets[i].ccxs[k] < 0 || t->sockets[i].ccxs[k] >= t->nccx)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	const char *root = fuzz_tmp("fuzz_topo");
	int nfiles = (int)ARRAY_SIZE(global_files) + NCPU * (int)ARRAY_SIZE(cpu_files);
	static char **rels;
	if (!rels) {
		/* Every path once; each CPU directory exists, whatever its files. */
		rels = xcalloc((size_t)nfiles, sizeof(*rels));
		for (int i = 0; i < nfiles; i++) {
			int k = i - (int)ARRAY_SIZE(global_files);
			rels[i] = k < 0 ? xstrdup(global_files[i])
				  : xasprintf("devices/system/cpu/cpu%d/%s", k / (int)ARRAY_SIZE(cpu_files),
					      cpu_files[k % (int)ARRAY_SIZE(cpu_files)]);
			make_parents(root, rels[i]);
		}
	}
	const char *s = (const char *)data, *end = s + size;
	for (int i = 0; i < nfiles; i++) {
		if (!s) {
			put(root, rels[i], "", 0);   /* past the last part */
			continue;
		}
		const char *bar = memchr(s, '|', (size_t)(end - s));
		const char *stop = bar ? bar : end;
		put(root, rels[i], s, (size_t)(stop - s));
		s = bar ? bar + 1 : NULL;
	}
	char *cause = NULL;
	struct topo *t = topo_load(root, &cause);
	if (!t) {
		if (!cause)
			abort();
		free(cause);
		return 0;
	}
	check(t);
	topo_free(t);
	return 0;
}
