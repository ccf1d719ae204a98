/* export_conns.h: the exporter's connection bounds (export_conns.c): how
 * many connections the file-descriptor limit allows, and a count of open
 * connections per client, an IPv4 address or an IPv6 /64, so that a few
 * clients cannot take every slot (one host on IPv6 picks its source
 * address from a whole /64). */
#ifndef PMCTOP_EXPORT_CONNS_H
#define PMCTOP_EXPORT_CONNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* The most connections served, whatever the descriptor limit (memory:
 * each buffers up to 16 kB), and the fewest a client may hold. */
#define EXPORT_CONNS_CEILING 4096
#define EXPORT_CONNS_PER_CLIENT_MAX 128
#define EXPORT_CONNS_PER_CLIENT_MIN 4
/* Descriptors kept free for everything else pmctop opens while it runs
 * (files in /proc and /sys, the recording, the server's own epoll and
 * event descriptors). */
#define EXPORT_CONNS_FD_RESERVE 64

/* The connection cap for a soft descriptor limit nofile with in_use
 * descriptors already open (the counters' among them), and what one client
 * may hold: a sixteenth of the cap, so that at least sixteen clients are
 * needed to fill it, within the bounds above. cap is 0 when no
 * descriptor is left. */
void export_conns_limits(long nofile, int in_use, int *cap, int *per_client);
/* Raises the soft descriptor limit to the hard one and returns the soft
 * limit now in force; counts the descriptors open in *in_use. */
long export_conns_raise_nofile(int *in_use);

struct export_conns;
/* A count for every client holding one of at most cap connections at the
 * door and as many in libmicrohttpd. */
struct export_conns *export_conns_new(int cap);
void export_conns_free(struct export_conns *c);
/* Whether the client at sa holds fewer than limit connections; counted by
 * export_conns_add(+1) when one opens and (-1) when it closes. Each
 * client has its own count, held while it has a connection open. */
bool export_conns_admit(struct export_conns *c, const struct sockaddr *sa, int limit);
void export_conns_add(struct export_conns *c, const struct sockaddr *sa, int delta);

#endif
