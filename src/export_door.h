/* export_door.h: accepting for a TLS exporter (export_door.c), so that a
 * plain HTTP request to it is answered 400 instead of being dropped. */
#ifndef PMCTOP_EXPORT_DOOR_H
#define PMCTOP_EXPORT_DOOR_H

#include "export_conns.h"
#include "mhd_dl.h"

struct export_door;

/* Accepts on lfd (which it takes over) on a thread of its own and hands
 * TLS connections to d (started with MHD_USE_NO_LISTEN_SOCKET and ITC);
 * at most cap connections wait, each at most deadline_s for its first
 * byte, counted in clients against per_client meanwhile (so the server's
 * per-client share bounds them as it bounds the rest). NULL with *cause
 * (lfd not closed). */
struct export_door *export_door_start(int lfd, struct MHD_Daemon *d, const struct mhd_api *mhd,
				      struct export_conns *clients, int cap, int per_client, int deadline_s,
				      char **cause);
/* Stops accepting, closes what waits and lfd. */
void export_door_stop(struct export_door *door);

#endif
