/* export_conns.c: the exporter's connection bounds (export_conns.h).
 *
 * Before, the server allowed 1,200 connections whatever its descriptor
 * limit (1,024 under systemd's default), and 128 per exact address: ten
 * addresses, or one IPv6 /64, filled every slot. Clients were then
 * counted in 4,096 hashed slots, and a scraper that shared one with a
 * flooding address was refused while it held nothing (about one server
 * start in 400 for eleven clients): each client now has its own count. */
#include "config.h"
#include "export_conns.h"
#include "export_auth.h"
#include "util.h"

#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>

/* One client's count. count 0 marks a free entry: a client is forgotten
 * when its last connection closes, so the table holds only clients with a
 * connection open, at most every connection the door and libmicrohttpd
 * hold together (2 x cap). */
struct entry {
	uint8_t key[16];
	uint32_t home;   /* the entry's slot by its hash, for deletion */
	int count;
};

struct export_conns {
	pthread_mutex_t lock;
	uint8_t hkey[16];
	uint32_t mask;   /* slots - 1, slots a power of two */
	struct entry *e;
};

void export_conns_limits(long nofile, int in_use, int *cap, int *per_client)
{
	long n = nofile - in_use - EXPORT_CONNS_FD_RESERVE;
	if (n < 0)
		n = 0;
	if (n > EXPORT_CONNS_CEILING)
		n = EXPORT_CONNS_CEILING;
	*cap = (int)n;
	int per = *cap / 16;
	if (per > EXPORT_CONNS_PER_CLIENT_MAX)
		per = EXPORT_CONNS_PER_CLIENT_MAX;
	if (per < EXPORT_CONNS_PER_CLIENT_MIN)
		per = EXPORT_CONNS_PER_CLIENT_MIN;
	*per_client = per;
}

long export_conns_raise_nofile(int *in_use)
{
	struct rlimit rl;
	long soft = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			struct rlimit up = { rl.rlim_max, rl.rlim_max };
			if (setrlimit(RLIMIT_NOFILE, &up) == 0)
				rl.rlim_cur = rl.rlim_max;
		}
		soft = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)1 << 30 ? 1L << 30 : (long)rl.rlim_cur;
	}
	*in_use = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			*in_use += e->d_name[0] != '.';
		closedir(d);
	}
	return soft;
}

struct export_conns *export_conns_new(int cap)
{
	struct export_conns *c = xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	if (getrandom(c->hkey, sizeof(c->hkey), 0) != (ssize_t)sizeof(c->hkey)) {
		uint64_t t = now_ns();
		memcpy(c->hkey, &t, sizeof(t));
	}
	/* At most half full (2 x cap clients in 4 x cap slots), so that
	 * probes stay short. */
	uint32_t slots = 16;
	while (slots < 4u * (uint32_t)(cap > 0 ? cap : 1))
		slots *= 2;
	c->mask = slots - 1;
	c->e = xcalloc(slots, sizeof(*c->e));
	return c;
}

void export_conns_free(struct export_conns *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->e);
	free(c);
}

/* sa's client as a key, false for an address of another family. An IPv4
 * key ends in 0 and an IPv6 one in 6, so the two never meet. */
static bool client_key(const struct sockaddr *sa, uint8_t k[16])
{
	memset(k, 0, 16);
	if (sa && sa->sa_family == AF_INET)
		memcpy(k, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa && sa->sa_family == AF_INET6) {
		memcpy(k, &((const struct sockaddr_in6 *)sa)->sin6_addr, 8);
		k[15] = 6;
	} else
		return false;
	return true;
}

/* The slot of key k (linear probing from its keyed hash, so that an
 * attacker cannot choose addresses that crowd one run of slots): the
 * entry that holds k, or else the free slot where it would go; -1 if
 * neither (the table full, which the cap rules out). Lock held. */
static long find(const struct export_conns *c, const uint8_t k[16], uint32_t *home)
{
	uint8_t h[16];
	export_siphash128(k, 16, c->hkey, h);
	*home = ((uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24) & c->mask;
	for (uint32_t n = 0, i = *home; n <= c->mask; n++, i = (i + 1) & c->mask) {
		if (c->e[i].count == 0 || memcmp(c->e[i].key, k, 16) == 0)
			return i;
	}
	return -1;
}

/* Frees slot i, moving back the entries after it that probed past it, so
 * that no lookup stops early at the hole (no tombstones). Lock held. */
static void erase(struct export_conns *c, uint32_t i)
{
	c->e[i].count = 0;
	for (uint32_t j = (i + 1) & c->mask; c->e[j].count != 0; j = (j + 1) & c->mask) {
		/* j may fill the hole at i unless its home lies cyclically in (i, j]. */
		uint32_t home = c->e[j].home;
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (!stays) {
			c->e[i] = c->e[j];
			c->e[j].count = 0;
			i = j;
		}
	}
}

bool export_conns_admit(struct export_conns *c, const struct sockaddr *sa, int limit)
{
	uint8_t k[16];
	if (!client_key(sa, k))
		return true;
	uint32_t home;
	pthread_mutex_lock(&c->lock);
	long i = find(c, k, &home);
	bool ok = i >= 0 && c->e[i].count < limit;
	pthread_mutex_unlock(&c->lock);
	return ok;
}

void export_conns_add(struct export_conns *c, const struct sockaddr *sa, int delta)
{
	uint8_t k[16];
	if (!client_key(sa, k))
		return;
	uint32_t home;
	pthread_mutex_lock(&c->lock);
	long i = find(c, k, &home);
	if (i >= 0) {
		struct entry *e = &c->e[i];
		if (e->count == 0 && delta > 0) {
			memcpy(e->key, k, 16);
			e->home = home;
		}
		if (e->count > 0 || delta > 0) {
			e->count += delta;
			if (e->count <= 0)
				erase(c, (uint32_t)i);
		}
	}
	pthread_mutex_unlock(&c->lock);
}
