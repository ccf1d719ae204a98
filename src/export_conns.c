/* export_conns.c: the exporter's connection bounds (export_conns.h).
 *
 * Before, the server allowed 1,200 connections whatever its descriptor
 * limit (1,024 under systemd's default), and 128 per exact address: ten
 * addresses, or one IPv6 /64, filled every slot. */
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

#define SLOTS 4096

struct export_conns {
	pthread_mutex_t lock;
	uint8_t key[16];
	int count[SLOTS];
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

struct export_conns *export_conns_new(void)
{
	struct export_conns *c = xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	if (getrandom(c->key, sizeof(c->key), 0) != (ssize_t)sizeof(c->key)) {
		uint64_t t = now_ns();
		memcpy(c->key, &t, sizeof(t));
	}
	return c;
}

void export_conns_free(struct export_conns *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* sa's slot, or -1 for an address of another family. */
static int slot(const struct export_conns *c, const struct sockaddr *sa)
{
	uint8_t k[16] = { 0 };
	if (sa && sa->sa_family == AF_INET)
		memcpy(k, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa && sa->sa_family == AF_INET6) {
		memcpy(k, &((const struct sockaddr_in6 *)sa)->sin6_addr, 8);
		k[15] = 6;
	} else
		return -1;
	uint8_t h[16];
	export_siphash128(k, sizeof(k), c->key, h);
	return (int)(((unsigned)h[0] | (unsigned)h[1] << 8) % SLOTS);
}

bool export_conns_admit(struct export_conns *c, const struct sockaddr *sa, int limit)
{
	int i = slot(c, sa);
	if (i < 0)
		return true;
	pthread_mutex_lock(&c->lock);
	bool ok = c->count[i] < limit;
	pthread_mutex_unlock(&c->lock);
	return ok;
}

void export_conns_add(struct export_conns *c, const struct sockaddr *sa, int delta)
{
	int i = slot(c, sa);
	if (i < 0)
		return;
	pthread_mutex_lock(&c->lock);
	c->count[i] += delta;
	if (c->count[i] < 0)
		c->count[i] = 0;
	pthread_mutex_unlock(&c->lock);
}
