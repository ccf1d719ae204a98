/* export_http.h: the exporter's HTTP server (libmicrohttpd): /metrics from
 * an export_hub, on its own threads, with limits on connections and time. */
#ifndef PMCTOP_EXPORT_HTTP_H
#define PMCTOP_EXPORT_HTTP_H

#include "export.h"

struct export_server;
struct web_config;

/* Opens the listening socket for listen ([ADDR:]PORT, see
 * export_parse_listen), before privileges are given up (a port below 1024
 * needs them). Returns the socket, or -1 with *cause. */
int export_listen(const char *listen, char **cause);
/* Serves hub on the socket fd (from export_listen, which it takes over)
 * until export_server_stop: its threads start here, so after the
 * privileges are given up (they are each thread's own). wc (NULL: plain
 * HTTP, anyone) gives TLS and basic authentication; it must outlive the
 * server. NULL with *cause when the server cannot start; fd is closed then. */
struct export_server *export_server_start(struct export_hub *hub, int fd, const char *listen,
					  const struct web_config *wc, char **cause);
void export_server_stop(struct export_server *s);
/* Asks the server to read its --web-config again (SIGHUP): within
 * two seconds its users and passwords are the file's, or, when the file is
 * broken, the old ones stay and the cause is printed. The file is also
 * read again when it changes (once it stays changed for a second).
 * Async-signal-safe. */
void export_server_reload(void);

#endif
