/* export_http.h: the exporter's HTTP server (libmicrohttpd): /metrics from
 * an export_hub, on its own threads, with limits on connections and time. */
#ifndef PMCTOP_EXPORT_HTTP_H
#define PMCTOP_EXPORT_HTTP_H

#include "export.h"

struct export_server;

/* Listens on listen ([ADDR:]PORT, see export_parse_listen) and serves hub
 * until export_server_stop. Returns NULL with *cause when it cannot listen. */
struct export_server *export_server_start(struct export_hub *hub, const char *listen, char **cause);
void export_server_stop(struct export_server *s);

#endif
