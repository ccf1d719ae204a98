/* export_auth.c: the exporter's cache of accepted credentials and its
 * ration of bcrypt checks (export_auth.h).
 *
 * Before, only the last accepted header was remembered: two Prometheus
 * servers with their own users paid bcrypt on every scrape, and each wrong
 * password ran bcrypt on a server thread, so 64 connections sending wrong
 * passwords took real scrapes from 0.6 ms to seconds. The table holds no
 * password: only SipHash digests under a key drawn at start, so a memory
 * dump does not give the headers back and an attacker cannot choose
 * headers that collide. */
#include "config.h"
#include "export_auth.h"
#include "util.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Client buckets: addresses are hashed into this many slots; a slot taken
 * over by another address starts full, so a collision can only give an
 * attacker a few more checks, which the server's own bucket still bounds. */
#define CLIENT_SLOTS 256

struct bucket {
	double tokens, at;   /* tokens at time at (s) */
};

struct client {
	uint8_t key[16];     /* the address, an IPv6 one cut to its /64 */
	bool used;
	struct bucket b;
};

struct entry {
	uint8_t digest[16];
	uint64_t used;       /* 0: empty; else when last found (a counter) */
};

struct export_auth {
	pthread_mutex_t lock;
	uint8_t key[16];
	uint64_t clock;
	struct entry cache[EXPORT_AUTH_CACHE];
	struct bucket total;
	struct client clients[CLIENT_SLOTS];
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                             \
	do {                                                                 \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);    \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                       \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                       \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);    \
	} while (0)

void export_siphash128(const void *in, size_t len, const uint8_t key[16], uint8_t out[16])
{
	const uint8_t *p = in;
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
	v1 ^= 0xee;
	const uint8_t *end = p + (len - len % 8);
	for (; p != end; p += 8) {
		uint64_t m = le64(p);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	uint64_t b = (uint64_t)len << 56;
	for (size_t i = 0; i < len % 8; i++)
		b |= (uint64_t)p[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xee;
	for (int i = 0; i < 4; i++)
		SIPROUND;
	put_le64(out, v0 ^ v1 ^ v2 ^ v3);
	v1 ^= 0xdd;
	for (int i = 0; i < 4; i++)
		SIPROUND;
	put_le64(out + 8, v0 ^ v1 ^ v2 ^ v3);
}

struct export_auth *export_auth_new(void)
{
	struct export_auth *a = xcalloc(1, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	/* Without randomness (no getrandom: a very old kernel) the key is
	 * the address of the table and the time: weaker, still not known in
	 * advance to a client. */
	if (getrandom(a->key, sizeof(a->key), 0) != (ssize_t)sizeof(a->key)) {
		uint64_t t = now_ns(), p = (uint64_t)(uintptr_t)a;
		put_le64(a->key, t);
		put_le64(a->key + 8, p ^ (t << 17));
	}
	a->total = (struct bucket){ EXPORT_AUTH_TOTAL_BURST, -1 };
	return a;
}

void export_auth_free(struct export_auth *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->lock);
	explicit_bzero(a, sizeof(*a));
	free(a);
}

/* The entry holding digest d, or -1: every entry is compared in full, so
 * the time taken says neither whether nor where it was found. */
static int find(const struct export_auth *a, const uint8_t d[16])
{
	int found = -1;
	for (int i = 0; i < EXPORT_AUTH_CACHE; i++) {
		unsigned char x = 0;
		for (int k = 0; k < 16; k++)
			x |= (unsigned char)(a->cache[i].digest[k] ^ d[k]);
		/* 1 when x is 0 and the entry is in use, without a branch on x. */
		int hit = (int)((((unsigned)x - 1) >> 8) & 1) & (a->cache[i].used != 0);
		found = hit ? i : found;
	}
	return found;
}

bool export_auth_known(struct export_auth *a, const char *authorization)
{
	if (!authorization)
		return false;
	uint8_t d[16];
	export_siphash128(authorization, strlen(authorization), a->key, d);
	pthread_mutex_lock(&a->lock);
	int i = find(a, d);
	if (i >= 0)
		a->cache[i].used = ++a->clock;
	pthread_mutex_unlock(&a->lock);
	return i >= 0;
}

void export_auth_remember(struct export_auth *a, const char *authorization)
{
	uint8_t d[16];
	export_siphash128(authorization, strlen(authorization), a->key, d);
	pthread_mutex_lock(&a->lock);
	int i = find(a, d);
	if (i < 0) {
		i = 0;
		for (int k = 1; k < EXPORT_AUTH_CACHE; k++)
			if (a->cache[k].used < a->cache[i].used)
				i = k;
		memcpy(a->cache[i].digest, d, sizeof(d));
	}
	a->cache[i].used = ++a->clock;
	pthread_mutex_unlock(&a->lock);
}

void export_auth_forget(struct export_auth *a)
{
	pthread_mutex_lock(&a->lock);
	memset(a->cache, 0, sizeof(a->cache));
	pthread_mutex_unlock(&a->lock);
}

/* b refilled at rate up to burst by time now; at < 0 means never used. */
static void refill(struct bucket *b, double burst, double rate, double now)
{
	if (b->at >= 0 && now > b->at) {
		b->tokens += (now - b->at) * rate;
		if (b->tokens > burst)
			b->tokens = burst;
	}
	if (b->at < 0 || now > b->at)
		b->at = now;
}

bool export_auth_take(struct export_auth *a, const struct sockaddr *sa, double now_s)
{
	uint8_t key[16] = { 0 };
	bool have = false;
	if (sa && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		have = true;
	} else if (sa && sa->sa_family == AF_INET6) {
		/* One host on IPv6 usually has a whole /64 to pick from. */
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 8);
		key[15] = 6;
		have = true;
	}
	pthread_mutex_lock(&a->lock);
	refill(&a->total, EXPORT_AUTH_TOTAL_BURST, EXPORT_AUTH_TOTAL_RATE, now_s);
	struct client *c = NULL;
	if (have) {
		uint8_t h[16];
		export_siphash128(key, sizeof(key), a->key, h);
		c = &a->clients[le64(h) % CLIENT_SLOTS];
		if (!c->used || memcmp(c->key, key, sizeof(key))) {
			memcpy(c->key, key, sizeof(key));
			c->used = true;
			c->b = (struct bucket){ EXPORT_AUTH_CLIENT_BURST, -1 };
		}
		refill(&c->b, EXPORT_AUTH_CLIENT_BURST, EXPORT_AUTH_CLIENT_RATE, now_s);
	}
	bool ok = a->total.tokens >= 1 && (!c || c->b.tokens >= 1);
	if (ok) {
		a->total.tokens -= 1;
		if (c)
			c->b.tokens -= 1;
	}
	pthread_mutex_unlock(&a->lock);
	return ok;
}
