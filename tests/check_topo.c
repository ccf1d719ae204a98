/* check_topo.c: topology loading from the sysfs fixtures under
 * tests/fixtures/sysfs/ (this VM, a 1- and a 2-socket Zen 5, a 2-socket
 * Westmere), synthetic shapes, CPU hotplug, and bad or damaged roots. */
#include "config.h"
#include "topo.h"
#include "util.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIX TOP_SRCDIR "/tests/fixtures/sysfs/"

static struct topo *load_fixture(const char *name)
{
	char *cause = NULL;
	char *root = xasprintf(FIX "%s", name);
	struct topo *t = topo_load(root, &cause);
	ck_assert_msg(t != NULL, "%s: %s", name, cause ? cause : "?");
	free(root);
	return t;
}

/* Asserts that list[0..n) equals the CPU list text want, e.g. "0-7,16-23". */
static void assert_list(const int *list, int n, const char *want, const char *what)
{
	bool bm[1024];
	char *cause = NULL;
	ck_assert_msg(cpulist_parse(want, bm, 1024, &cause) == 0, "%s", cause);
	int k = 0;
	for (int c = 0; c < 1024; c++) {
		if (!bm[c])
			continue;
		ck_assert_msg(k < n, "%s: has %d entries, wanted %s", what, n, want);
		ck_assert_msg(list[k] == c, "%s: entry %d is %d, wanted %d (%s)", what, k, list[k], c, want);
		k++;
	}
	ck_assert_msg(k == n, "%s: has %d entries, wanted %d (%s)", what, n, k, want);
}

/* Every online CPU appears exactly once in its core, CCX and socket, and
 * the back references agree. */
static void assert_consistent(const struct topo *t)
{
	int seen_core = 0, seen_sock = 0;
	for (int i = 0; i < t->ncores; i++) {
		const struct topo_core *co = &t->cores[i];
		ck_assert_int_eq(co->id, i);
		for (int j = 0; j < co->ncpus; j++) {
			const struct topo_cpu *c = topo_cpu_by_num(t, co->cpus[j]);
			ck_assert_ptr_nonnull(c);
			ck_assert(c->online);
			ck_assert_int_eq(c->core, i);
			ck_assert_int_eq(c->socket, co->socket);
			ck_assert_int_eq(c->ccx, co->ccx);
			seen_core++;
		}
	}
	for (int i = 0; i < t->nsockets; i++) {
		seen_sock += t->sockets[i].ncpus;
		for (int j = 0; j < t->sockets[i].nccx; j++)
			ck_assert_int_eq(t->ccxs[t->sockets[i].ccxs[j]].socket, i);
	}
	ck_assert_int_eq(seen_core, topo_online_count(t));
	ck_assert_int_eq(seen_sock, topo_online_count(t));
	for (int i = 0; i < t->ncpus; i++) {
		const struct topo_cpu *c = &t->cpus[i];
		ck_assert_ptr_eq(topo_cpu_by_num(t, c->cpu), c);
		if (!c->online) {
			ck_assert_int_eq(c->core, -1);
			ck_assert_int_eq(c->ccx, -1);
			ck_assert_int_eq(c->socket, -1);
		}
	}
}

START_TEST(vm2)
{
	struct topo *t = load_fixture("vm2");
	ck_assert_int_eq(t->ncpus, 2);
	ck_assert_int_eq(t->max_cpu, 2);
	ck_assert_int_eq(t->ncores, 2);
	ck_assert_int_eq(t->nccx, 1);
	ck_assert_int_eq(t->nsockets, 1);
	ck_assert_int_eq(t->nnuma, 1);
	ck_assert_int_eq(t->threads_per_core, 1);
	ck_assert_int_eq(topo_online_count(t), 2);
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0-1", "ccx 0");
	assert_list(t->ccxs[0].cores, t->ccxs[0].ncores, "0-1", "ccx 0 cores");
	ck_assert_int_eq(t->ccxs[0].l3_id, 0);
	ck_assert_str_eq(t->root, FIX "vm2");
	ck_assert_ptr_null(topo_cpu_by_num(t, 2));
	ck_assert_ptr_null(topo_cpu_by_num(t, -1));
	assert_consistent(t);
	topo_free(t);
}
END_TEST

START_TEST(zen5_1s16c)
{
	struct topo *t = load_fixture("zen5-1s16c");
	ck_assert_int_eq(t->ncpus, 32);
	ck_assert_int_eq(t->ncores, 16);
	ck_assert_int_eq(t->nccx, 2);
	ck_assert_int_eq(t->nsockets, 1);
	ck_assert_int_eq(t->ndies, 1);
	ck_assert_int_eq(t->threads_per_core, 2);
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0-7,16-23", "ccx 0");
	assert_list(t->ccxs[1].cpus, t->ccxs[1].ncpus, "8-15,24-31", "ccx 1");
	assert_list(t->ccxs[1].cores, t->ccxs[1].ncores, "8-15", "ccx 1 cores");
	ck_assert_int_eq(t->ccxs[1].l3_id, 1);
	assert_list(t->sockets[0].ccxs, t->sockets[0].nccx, "0-1", "socket 0 ccx");
	for (int n = 0; n < 16; n++) {
		char want[32];
		snprintf(want, sizeof(want), "%d,%d", n, n + 16);
		assert_list(t->cores[n].cpus, t->cores[n].ncpus, want, "core");
		ck_assert_int_eq(topo_cpu_by_num(t, n)->thread, 0);
		ck_assert_int_eq(topo_cpu_by_num(t, n + 16)->thread, 1);
		ck_assert_int_eq(t->cores[n].ccx, n / 8);
	}
	assert_consistent(t);
	topo_free(t);
}
END_TEST

START_TEST(zen5_2s192c)
{
	struct topo *t = load_fixture("zen5-2s192c");
	ck_assert_int_eq(t->ncpus, 384);
	ck_assert_int_eq(topo_online_count(t), 381);
	ck_assert_int_eq(t->ncores, 192);
	ck_assert_int_eq(t->nccx, 24);
	ck_assert_int_eq(t->nsockets, 2);
	ck_assert_int_eq(t->nnuma, 2);
	ck_assert_int_eq(t->ndies, 2);
	static const int off[] = { 5, 200, 383 };
	for (size_t i = 0; i < ARRAY_SIZE(off); i++) {
		const struct topo_cpu *c = topo_cpu_by_num(t, off[i]);
		ck_assert_ptr_nonnull(c);
		ck_assert(!c->online);
		ck_assert(!c->has_topology);
		ck_assert_int_eq(c->core, -1);
	}
	/* The offline CPUs leave their core, CCX and socket; the rest stays. */
	assert_list(t->cores[5].cpus, t->cores[5].ncpus, "197", "core 5");
	assert_list(t->cores[8].cpus, t->cores[8].ncpus, "8", "core 8");
	assert_list(t->cores[191].cpus, t->cores[191].ncpus, "191", "core 191");
	assert_list(t->cores[96].cpus, t->cores[96].ncpus, "96,288", "core 96");
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0-4,6-7,192-199", "ccx 0");
	assert_list(t->ccxs[1].cpus, t->ccxs[1].ncpus, "8-15,201-207", "ccx 1");
	assert_list(t->ccxs[12].cpus, t->ccxs[12].ncpus, "96-103,288-295", "ccx 12");
	assert_list(t->ccxs[23].cpus, t->ccxs[23].ncpus, "184-191,376-382", "ccx 23");
	assert_list(t->ccxs[0].cores, t->ccxs[0].ncores, "0-7", "ccx 0 cores");
	ck_assert_int_eq(t->ccxs[12].socket, 1);
	ck_assert_int_eq(t->ccxs[11].socket, 0);
	ck_assert_int_eq(t->sockets[0].ncpus, 190);
	ck_assert_int_eq(t->sockets[1].ncpus, 191);
	ck_assert_int_eq(t->sockets[1].id, 1);
	assert_list(t->sockets[1].ccxs, t->sockets[1].nccx, "12-23", "socket 1 ccx");
	/* core_id repeats across sockets: 96 and 0 are both core_id 0. */
	ck_assert_int_eq(topo_cpu_by_num(t, 96)->core_id, 0);
	ck_assert_int_eq(topo_cpu_by_num(t, 96)->core, 96);
	ck_assert_int_eq(topo_cpu_by_num(t, 288)->numa, 1);
	ck_assert_int_eq(topo_cpu_by_num(t, 300)->thread, 1);
	assert_consistent(t);
	topo_free(t);
}
END_TEST

/* 2 x EPYC 9654 (Genoa), NPS4: twelve one-CCX CCDs per socket and four
 * NUMA nodes of three CCX each, so NUMA nodes are neither sockets nor CCX. */
START_TEST(zen4_2s192c_nps4)
{
	struct topo *t = load_fixture("zen4-2s192c-nps4");
	ck_assert_int_eq(t->ncpus, 384);
	ck_assert_int_eq(topo_online_count(t), 384);
	ck_assert_int_eq(t->ncores, 192);
	ck_assert_int_eq(t->nccx, 24);
	ck_assert_int_eq(t->nsockets, 2);
	ck_assert_int_eq(t->nnuma, 8);
	ck_assert_int_eq(t->threads_per_core, 2);
	for (int x = 0; x < 24; x++) {
		ck_assert_int_eq(t->ccxs[x].ncpus, 16);
		ck_assert_int_eq(t->ccxs[x].ncores, 8);
		ck_assert_int_eq(t->ccxs[x].socket, x / 12);
	}
	assert_list(t->ccxs[13].cpus, t->ccxs[13].ncpus, "104-111,296-303", "ccx 13");
	assert_list(t->sockets[0].ccxs, t->sockets[0].nccx, "0-11", "socket 0 ccx");
	/* CCX 0-2 are node 0, CCX 3-5 node 1, ..., CCX 21-23 node 7. */
	ck_assert_int_eq(topo_cpu_by_num(t, 23)->numa, 0);
	ck_assert_int_eq(topo_cpu_by_num(t, 24)->numa, 1);
	ck_assert_int_eq(topo_cpu_by_num(t, 95)->numa, 3);
	ck_assert_int_eq(topo_cpu_by_num(t, 96)->numa, 4);
	ck_assert_int_eq(topo_cpu_by_num(t, 383)->numa, 7);
	ck_assert_int_eq(topo_cpu_by_num(t, 192 + 30)->numa, 1);
	ck_assert_int_eq(topo_cpu_by_num(t, 300)->thread, 1);
	assert_list(t->cores[100].cpus, t->cores[100].ncpus, "100,292", "core 100");
	assert_consistent(t);
	topo_free(t);
}
END_TEST

/* 2 x Xeon 8592+ (Emerald Rapids), SNC2: one L3 per socket, two NUMA nodes
 * per socket. The L3 domain (the dashboard's CCX) is the socket. */
START_TEST(emr_2s_snc2)
{
	struct topo *t = load_fixture("emr-2s-snc2");
	ck_assert_int_eq(t->ncpus, 256);
	ck_assert_int_eq(t->ncores, 128);
	ck_assert_int_eq(t->nccx, 2);
	ck_assert_int_eq(t->nsockets, 2);
	ck_assert_int_eq(t->nnuma, 4);
	ck_assert_int_eq(t->threads_per_core, 2);
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0-63,128-191", "ccx 0");
	assert_list(t->ccxs[1].cpus, t->ccxs[1].ncpus, "64-127,192-255", "ccx 1");
	ck_assert_int_eq(t->ccxs[1].l3_id, 1);
	ck_assert_int_eq(t->ccxs[1].socket, 1);
	ck_assert_int_eq(t->ccxs[0].ncores, 64);
	assert_list(t->sockets[1].ccxs, t->sockets[1].nccx, "1", "socket 1 ccx");
	/* SNC2: cores 0-31 of a socket are one node, 32-63 the next. */
	ck_assert_int_eq(topo_cpu_by_num(t, 31)->numa, 0);
	ck_assert_int_eq(topo_cpu_by_num(t, 32)->numa, 1);
	ck_assert_int_eq(topo_cpu_by_num(t, 64)->numa, 2);
	ck_assert_int_eq(topo_cpu_by_num(t, 255)->numa, 3);
	ck_assert_int_eq(topo_cpu_by_num(t, 160)->numa, 1);
	ck_assert_int_eq(topo_cpu_by_num(t, 160)->ccx, 0);
	assert_list(t->cores[70].cpus, t->cores[70].ncpus, "70,198", "core 70");
	assert_consistent(t);
	topo_free(t);
}
END_TEST

START_TEST(wsm_2s)
{
	struct topo *t = load_fixture("wsm-2s");
	ck_assert_int_eq(t->ncpus, 24);
	ck_assert_int_eq(t->ncores, 12);
	ck_assert_int_eq(t->nccx, 2);
	ck_assert_int_eq(t->nsockets, 2);
	ck_assert_int_eq(t->nnuma, 2);
	ck_assert_int_eq(t->threads_per_core, 2);
	/* No cache id file: the L3 is named by its shared CPU list. */
	ck_assert_int_eq(t->ccxs[0].l3_id, -1);
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0,2,4,6,8,10,12,14,16,18,20,22", "ccx 0");
	assert_list(t->ccxs[1].cpus, t->ccxs[1].ncpus, "1,3,5,7,9,11,13,15,17,19,21,23", "ccx 1");
	ck_assert_int_eq(t->ccxs[0].socket, 0);
	ck_assert_int_eq(t->ccxs[1].socket, 1);
	for (int n = 0; n < 12; n++) {
		char want[32];
		snprintf(want, sizeof(want), "%d,%d", n, n + 12);
		/* Cores are numbered by (package, core_id): the 6 cores of socket 0
		 * first, although Linux numbers the sockets' CPUs alternately. */
		int core = (n % 2) * 6 + n / 2;
		assert_list(t->cores[core].cpus, t->cores[core].ncpus, want, "core");
		ck_assert_int_eq(t->cores[core].socket, n % 2);
		ck_assert_int_eq(topo_cpu_by_num(t, n)->core, core);
		ck_assert_int_eq(topo_cpu_by_num(t, n + 12)->thread, 1);
		ck_assert_int_eq(topo_cpu_by_num(t, n + 12)->numa, n % 2);
	}
	ck_assert_int_eq(topo_cpu_by_num(t, 6)->core_id, 8);
	ck_assert_int_eq(topo_cpu_by_num(t, 11)->core_id, 10);
	ck_assert_int_eq(topo_cpu_by_num(t, 11)->die, 0);
	assert_list(t->sockets[1].ccxs, t->sockets[1].nccx, "1", "socket 1 ccx");
	assert_list(t->ccxs[1].cores, t->ccxs[1].ncores, "6-11", "ccx 1 cores");
	assert_consistent(t);
	topo_free(t);
}
END_TEST

/* The synthetic EPYC numbering matches what Linux shows on the machine. */
START_TEST(synthetic_matches_fixture)
{
	struct topo *f = load_fixture("zen5-1s16c");
	struct topo *s = topo_synthetic(1, 2, 8, 2);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(s->root);
	ck_assert_int_eq(s->ncpus, f->ncpus);
	ck_assert_int_eq(s->ncores, f->ncores);
	ck_assert_int_eq(s->nccx, f->nccx);
	for (int i = 0; i < f->ncpus; i++) {
		const struct topo_cpu *a = &f->cpus[i], *b = &s->cpus[i];
		ck_assert_int_eq(a->cpu, b->cpu);
		ck_assert_int_eq(a->core, b->core);
		ck_assert_int_eq(a->ccx, b->ccx);
		ck_assert_int_eq(a->socket, b->socket);
		ck_assert_int_eq(a->thread, b->thread);
		ck_assert_int_eq(a->core_id, b->core_id);
		ck_assert_int_eq(a->l3_id, b->l3_id);
	}
	assert_consistent(s);
	topo_free(f);
	topo_free(s);
}
END_TEST

static const struct {
	int shape[4];
	int ncpus, ncores, nccx, nsockets;
	int probe_cpu, core, ccx, socket, thread; /* where one CPU lands */
} shapes[] = {
	{ { 1, 1, 1, 1 }, 1, 1, 1, 1, 0, 0, 0, 0, 0 },
	{ { 1, 1, 4, 1 }, 4, 4, 1, 1, 3, 3, 0, 0, 0 },
	{ { 2, 12, 8, 2 }, 384, 192, 24, 2, 200, 8, 1, 0, 1 },
	{ { 2, 12, 8, 2 }, 384, 192, 24, 2, 100, 100, 12, 1, 0 },
	{ { 2, 16, 8, 2 }, 512, 256, 32, 2, 511, 255, 31, 1, 1 },
	{ { 1, 2, 4, 4 }, 32, 8, 2, 1, 21, 5, 1, 0, 2 },
	{ { 4, 2, 8, 1 }, 64, 64, 8, 4, 63, 63, 7, 3, 0 },
};

START_TEST(synthetic_shapes)
{
	const __typeof__(shapes[0]) *s = &shapes[_i];
	struct topo *t = topo_synthetic(s->shape[0], s->shape[1], s->shape[2], s->shape[3]);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->ncpus, s->ncpus);
	ck_assert_int_eq(t->ncores, s->ncores);
	ck_assert_int_eq(t->nccx, s->nccx);
	ck_assert_int_eq(t->nsockets, s->nsockets);
	ck_assert_int_eq(t->threads_per_core, s->shape[3]);
	ck_assert_int_eq(t->nnuma, s->shape[0]);
	const struct topo_cpu *c = topo_cpu_by_num(t, s->probe_cpu);
	ck_assert_int_eq(c->core, s->core);
	ck_assert_int_eq(c->ccx, s->ccx);
	ck_assert_int_eq(c->socket, s->socket);
	ck_assert_int_eq(c->thread, s->thread);
	for (int i = 0; i < t->nccx; i++) {
		ck_assert_int_eq(t->ccxs[i].ncores, s->shape[2]);
		ck_assert_int_eq(t->ccxs[i].ncpus, s->shape[2] * s->shape[3]);
	}
	assert_consistent(t);
	topo_free(t);
}
END_TEST

START_TEST(synthetic_bad)
{
	ck_assert_ptr_null(topo_synthetic(0, 1, 1, 1));
	ck_assert_ptr_null(topo_synthetic(1, -1, 1, 1));
	ck_assert_ptr_null(topo_synthetic(1, 1, 0, 1));
	ck_assert_ptr_null(topo_synthetic(1, 1, 1, 0));
	ck_assert_ptr_null(topo_synthetic(1000, 1000, 1000, 2));
	ck_assert_ptr_null(topo_synthetic(8, 16, 16, 8));
}
END_TEST

/* Hotplug: a CPU going offline leaves its groups and every other CPU keeps
 * its core, CCX and socket; coming back restores the original grouping. */
START_TEST(hotplug_synthetic)
{
	struct topo *t = topo_synthetic(2, 2, 4, 2);
	ck_assert_int_eq(t->ncpus, 32);
	topo_set_online(t, 3, false);
	ck_assert_int_eq(topo_online_count(t), 31);
	ck_assert_int_eq(t->ncores, 16);
	assert_list(t->cores[3].cpus, t->cores[3].ncpus, "19", "core 3");
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0-2,16-19", "ccx 0");
	ck_assert_int_eq(topo_cpu_by_num(t, 3)->core, -1);
	ck_assert_int_eq(topo_cpu_by_num(t, 19)->thread, 1);
	/* The whole core offline: it stays as an empty group. */
	topo_set_online(t, 19, false);
	ck_assert_int_eq(t->ncores, 16);
	ck_assert_int_eq(t->cores[3].ncpus, 0);
	assert_list(t->ccxs[0].cores, t->ccxs[0].ncores, "0-2", "ccx 0 cores");
	ck_assert_int_eq(topo_cpu_by_num(t, 4)->core, 4);
	ck_assert_int_eq(topo_cpu_by_num(t, 20)->core, 4);
	/* A whole CCX offline: its socket no longer lists it. */
	for (int c = 4; c < 8; c++) {
		topo_set_online(t, c, false);
		topo_set_online(t, c + 16, false);
	}
	ck_assert_int_eq(t->ccxs[1].ncpus, 0);
	ck_assert_int_eq(t->nccx, 4);
	assert_list(t->sockets[0].ccxs, t->sockets[0].nccx, "0", "socket 0 ccx");
	ck_assert_int_eq(topo_cpu_by_num(t, 8)->ccx, 2);
	assert_consistent(t);
	for (int c = 0; c < 32; c++)
		topo_set_online(t, c, true);
	struct topo *ref = topo_synthetic(2, 2, 4, 2);
	for (int i = 0; i < 32; i++) {
		ck_assert_int_eq(t->cpus[i].core, ref->cpus[i].core);
		ck_assert_int_eq(t->cpus[i].ccx, ref->cpus[i].ccx);
		ck_assert_int_eq(t->cpus[i].thread, ref->cpus[i].thread);
	}
	assert_list(t->sockets[0].ccxs, t->sockets[0].nccx, "0-1", "socket 0 ccx");
	/* Unknown CPU numbers are ignored. */
	topo_set_online(t, 999, false);
	topo_set_online(t, -1, false);
	ck_assert_int_eq(topo_online_count(t), 32);
	topo_free(ref);
	topo_free(t);
}
END_TEST

/* A CPU that was offline at load time has no topology in sysfs; when it
 * comes online without any, it becomes a core of its own. */
START_TEST(hotplug_fixture_unknown_cpu)
{
	struct topo *t = load_fixture("zen5-2s192c");
	topo_set_online(t, 197, false);
	ck_assert_int_eq(t->cores[5].ncpus, 0);
	ck_assert_int_eq(t->ncores, 192);
	assert_list(t->ccxs[0].cores, t->ccxs[0].ncores, "0-4,6-7", "ccx 0 cores");
	topo_set_online(t, 197, true);
	assert_list(t->cores[5].cpus, t->cores[5].ncpus, "197", "core 5");
	topo_set_online(t, 383, true);
	const struct topo_cpu *c = topo_cpu_by_num(t, 383);
	ck_assert(c->online);
	ck_assert_int_eq(t->ncores, 193);
	ck_assert_int_eq(c->ccx, -1);
	ck_assert_int_eq(t->cores[c->core].ncpus, 1);
	ck_assert_int_eq(c->core, 192);
	ck_assert_int_eq(topo_cpu_by_num(t, 191)->core, 191);
	ck_assert_int_eq(topo_online_count(t), 382);
	assert_consistent(t);
	topo_free(t);
}
END_TEST

/* ---- damaged roots ---- */

static char tmproot[64];

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tmproot, rel);
	for (char *s = p + strlen(tmproot) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* A healthy 2-CPU root that each case then damages. */
static void make_root(void)
{
	strcpy(tmproot, "/tmp/check_topo.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmproot));
	put("devices/system/cpu/possible", "0-1\n");
	put("devices/system/cpu/online", "0-1\n");
	for (int c = 0; c < 2; c++) {
		char rel[128], v[16];
		snprintf(v, sizeof(v), "%d\n", c);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", c);
		put(rel, v);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id", c);
		put(rel, "0\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		put(rel, v);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/id", c);
		put(rel, "0\n");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", c);
		put(rel, "0-1\n");
	}
	put("devices/system/node/node0/cpulist", "0-1\n");
}

static void remove_root(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmproot);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static const struct {
	const char *file;     /* relative to the root; NULL: unchanged */
	const char *text;     /* NULL: delete the file */
	bool ok;              /* loads anyway (a sensible default) */
	const char *cause;    /* substring of the cause when it fails */
	int ncores, nccx;     /* when ok */
} damage[] = {
	{ NULL, NULL, true, NULL, 2, 1 },
	{ "devices/system/cpu/cpu1/topology/core_id", "abc", false, "core_id: expected a number, found 'abc'", 0, 0 },
	{ "devices/system/cpu/cpu1/topology/core_id", "", false, "core_id: expected a number", 0, 0 },
	{ "devices/system/cpu/cpu1/topology/core_id", "\x01\xff\xfe\x80garbage", false, "core_id", 0, 0 },
	{ "devices/system/cpu/cpu1/topology/core_id", "99999999999999999999", false, "core_id", 0, 0 },
	{ "devices/system/cpu/cpu0/topology/physical_package_id", "-7", false, "physical_package_id", 0, 0 },
	{ "devices/system/cpu/cpu0/cache/index3/shared_cpu_list", "0-", false, "shared_cpu_list", 0, 0 },
	{ "devices/system/cpu/cpu0/cache/index3/id", "x", false, "index3/id", 0, 0 },
	{ "devices/system/cpu/possible", "0-x", false, "possible", 0, 0 },
	{ "devices/system/cpu/possible", "0-99999", false, "does not exist", 0, 0 },
	{ "devices/system/cpu/online", "1,,0", false, "online", 0, 0 },
	{ "devices/system/cpu/cpu1/online", "7", false, "expected 0 or 1", 0, 0 },
	/* Sensible defaults for what a sparse sysfs may lack. */
	{ "devices/system/cpu/possible", "0-63", true, NULL, 2, 1 },
	{ "devices/system/cpu/possible", NULL, true, NULL, 2, 1 },
	{ "devices/system/cpu/online", NULL, true, NULL, 2, 1 },
	{ "devices/system/cpu/cpu1/topology/core_id", NULL, true, NULL, 2, 1 },
	{ "devices/system/cpu/cpu1/topology/core_id", "0", true, NULL, 1, 1 },
	{ "devices/system/cpu/cpu1/cache/index3/id", NULL, true, NULL, 2, 2 },
	{ "devices/system/cpu/cpu0/cache/index3/shared_cpu_list", NULL, true, NULL, 2, 1 },
	{ "devices/system/node/node0/cpulist", "zz", true, NULL, 2, 1 },
	/* Offline but its topology still there: its core stays, empty. */
	{ "devices/system/cpu/cpu1/online", "0", true, NULL, 2, 1 },
};

START_TEST(damaged_files)
{
	make_root();
	if (damage[_i].file) {
		if (damage[_i].text) {
			put(damage[_i].file, damage[_i].text);
		} else {
			char *p = xasprintf("%s/%s", tmproot, damage[_i].file);
			ck_assert_int_eq(unlink(p), 0);
			free(p);
		}
	}
	char *cause = NULL;
	struct topo *t = topo_load(tmproot, &cause);
	if (damage[_i].ok) {
		ck_assert_msg(t != NULL, "row %d: %s", _i, cause ? cause : "?");
		ck_assert_int_eq(t->ncores, damage[_i].ncores);
		ck_assert_int_eq(t->nccx, damage[_i].nccx);
		ck_assert_int_eq(t->ncpus, 2);
		ck_assert_int_eq(t->cores[t->ncores - 1].ncpus, topo_online_count(t) == 2 ? 1 + (t->ncores == 1) : 0);
		assert_consistent(t);
		topo_free(t);
	} else {
		ck_assert_msg(t == NULL, "row %d loaded", _i);
		ck_assert_ptr_nonnull(cause);
		ck_assert_msg(strstr(cause, damage[_i].cause) != NULL, "row %d: cause '%s' lacks '%s'",
			      _i, cause, damage[_i].cause);
		free(cause);
	}
	remove_root();
}
END_TEST

START_TEST(bad_roots)
{
	char *cause = NULL;
	ck_assert_ptr_null(topo_load("/nonexistent/pmctop", &cause));
	ck_assert_ptr_nonnull(strstr(cause, "/nonexistent/pmctop/devices/system/cpu"));
	ck_assert_ptr_nonnull(strstr(cause, "No such file"));
	free(cause);
	cause = NULL;
	/* A root without CPUs. */
	make_root();
	char *cmd = xasprintf("rm -rf '%s'/devices/system/cpu/*", tmproot);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_ptr_null(topo_load(tmproot, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "no CPUs found"));
	free(cause);
	cause = NULL;
	remove_root();
	/* Every CPU offline. */
	make_root();
	char *p = xasprintf("%s/devices/system/cpu/online", tmproot);
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	put("devices/system/cpu/cpu0/online", "0");
	put("devices/system/cpu/cpu1/online", "0");
	ck_assert_ptr_null(topo_load(tmproot, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "no CPU is online"));
	free(cause);
	remove_root();
	/* NULL cause is allowed; NULL topology is fine to free. */
	ck_assert_ptr_null(topo_load("/nonexistent", NULL));
	topo_free(NULL);
}
END_TEST

/* The real kernel brings a CPU's topology back when it comes online:
 * topo_set_online() reads it and puts the CPU in its CCX. */
START_TEST(hotplug_rereads_sysfs)
{
	make_root();
	char *cmd = xasprintf("rm -rf '%s'/devices/system/cpu/cpu1/topology '%s'/devices/system/cpu/cpu1/cache",
			      tmproot, tmproot);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	put("devices/system/cpu/cpu1/online", "0");
	put("devices/system/cpu/online", "0");
	char *cause = NULL;
	struct topo *t = topo_load(tmproot, &cause);
	ck_assert_msg(t != NULL, "%s", cause);
	ck_assert_int_eq(t->ncores, 1);
	ck_assert(!topo_cpu_by_num(t, 1)->has_topology);
	put("devices/system/cpu/cpu1/topology/core_id", "1");
	put("devices/system/cpu/cpu1/topology/physical_package_id", "0");
	put("devices/system/cpu/cpu1/cache/index3/id", "0");
	put("devices/system/cpu/cpu1/cache/index3/shared_cpu_list", "0-1");
	topo_set_online(t, 1, true);
	ck_assert_int_eq(t->ncores, 2);
	ck_assert_int_eq(t->nccx, 1);
	assert_list(t->ccxs[0].cpus, t->ccxs[0].ncpus, "0-1", "ccx 0");
	assert_consistent(t);
	topo_free(t);
	remove_root();
}
END_TEST

/* The sampler's own copy numbers everything as the original does, and
 * polling brings back a CPU whose online file says 1 again, leaving the
 * original (which the screen reads) untouched. */
START_TEST(clone_and_poll_online)
{
	make_root();
	put("devices/system/cpu/cpu1/online", "1");
	char *cause = NULL;
	struct topo *t = topo_load(tmproot, &cause);
	ck_assert_msg(t != NULL, "%s", cause);
	struct topo *c = topo_clone(t);
	ck_assert_int_eq(c->ncores, t->ncores);
	ck_assert_int_eq(c->nccx, t->nccx);
	for (int i = 0; i < t->ncpus; i++) {
		ck_assert_int_eq(c->cpus[i].core, t->cpus[i].core);
		ck_assert_int_eq(c->cpus[i].ccx, t->cpus[i].ccx);
	}
	int back[4];
	ck_assert_int_eq(topo_poll_online(c, back, 4), 0);   /* nothing offline */
	topo_set_online(c, 1, false);
	ck_assert_int_eq(c->ccxs[0].ncpus, 1);
	ck_assert_int_eq(t->ccxs[0].ncpus, 2);               /* original unchanged */
	put("devices/system/cpu/cpu1/online", "0");
	ck_assert_int_eq(topo_poll_online(c, back, 4), 0);   /* still offline */
	put("devices/system/cpu/cpu1/online", "1");
	ck_assert_int_eq(topo_poll_online(c, back, 4), 1);
	ck_assert_int_eq(back[0], 1);
	ck_assert(topo_cpu_by_num(c, 1)->online);
	ck_assert_int_eq(c->ccxs[0].ncpus, 2);
	ck_assert_int_eq(topo_cpu_by_num(c, 1)->core, topo_cpu_by_num(t, 1)->core);
	assert_consistent(c);
	/* A synthetic topology has no sysfs to poll. */
	struct topo *syn = topo_synthetic(1, 1, 2, 1);
	topo_set_online(syn, 1, false);
	ck_assert_int_eq(topo_poll_online(syn, back, 4), 0);
	topo_free(syn);
	topo_free(c);
	topo_free(t);
	remove_root();
}
END_TEST

static Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc = tcase_create("fixtures");
	tcase_add_test(tc, vm2);
	tcase_add_test(tc, zen5_1s16c);
	tcase_add_test(tc, zen5_2s192c);
	tcase_add_test(tc, wsm_2s);
	tcase_add_test(tc, zen4_2s192c_nps4);
	tcase_add_test(tc, emr_2s_snc2);
	tcase_add_test(tc, synthetic_matches_fixture);
	tcase_add_loop_test(tc, synthetic_shapes, 0, (int)ARRAY_SIZE(shapes));
	tcase_add_test(tc, synthetic_bad);
	tcase_add_test(tc, hotplug_synthetic);
	tcase_add_test(tc, hotplug_fixture_unknown_cpu);
	tcase_add_test(tc, hotplug_rereads_sysfs);
	tcase_add_test(tc, clone_and_poll_online);
	tcase_add_loop_test(tc, damaged_files, 0, (int)ARRAY_SIZE(damage));
	tcase_add_test(tc, bad_roots);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(topo_suite());
}
