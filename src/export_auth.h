/* export_auth.h: what keeps bcrypt from being the exporter's weak spot
 * (export_auth.c). A bcrypt check costs tens of milliseconds of CPU by
 * design, so a scraper whose password was accepted once is remembered
 * (a small table of keyed digests of its Authorization header), and the
 * checks that remain are rationed by token buckets, one per client address
 * (an IPv6 client by its /64) and one for the whole server: a flood of
 * wrong passwords is answered 429 instead of running bcrypt. */
#ifndef PMCTOP_EXPORT_AUTH_H
#define PMCTOP_EXPORT_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Headers remembered: a few Prometheus servers, each with its own user,
 * and room for a password being changed. The least recently used goes. */
#define EXPORT_AUTH_CACHE 16
/* bcrypt checks allowed: BURST at once, then RATE a second, per client
 * address and in all. At cost 10 (about 75 ms) the server spends at most
 * a third of one CPU on them; a person trying a few passwords by hand
 * stays within a client's burst. */
#define EXPORT_AUTH_CLIENT_BURST 6.0
#define EXPORT_AUTH_CLIENT_RATE 1.0
#define EXPORT_AUTH_TOTAL_BURST 12.0
#define EXPORT_AUTH_TOTAL_RATE 4.0

struct export_auth;

/* A new, empty cache with a random key (getrandom), full buckets. */
struct export_auth *export_auth_new(void);
void export_auth_free(struct export_auth *a);
/* Whether authorization was remembered by export_auth_remember; compares
 * with every entry in constant time. Thread safe, as are the rest. */
bool export_auth_known(struct export_auth *a, const char *authorization);
/* Remembers an Authorization header whose password bcrypt accepted. */
void export_auth_remember(struct export_auth *a, const char *authorization);
/* Forgets every header (the users or their passwords changed). */
void export_auth_forget(struct export_auth *a);
/* Takes one bcrypt check for the client at sa (NULL: counted in all only)
 * at monotonic time now_s; false, taking nothing, when its bucket or the
 * server's is empty. */
bool export_auth_take(struct export_auth *a, const struct sockaddr *sa, double now_s);

/* SipHash-2-4 with a 128-bit output (Aumasson and Bernstein), the keyed
 * digest of the table; exposed for its test vectors. */
void export_siphash128(const void *in, size_t len, const uint8_t key[16], uint8_t out[16]);

#endif
