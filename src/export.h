/* export.h: the Prometheus/OpenMetrics exporter's core, without HTTP: the
 * hub that holds the latest published interval (with the running totals
 * that turn per-interval counts into monotonic counters), the rendering of
 * the exposition text, content negotiation and the --listen address.
 *
 * The hub never makes the sampler wait: the publishing side builds the next
 * state on its own, then swaps one pointer under a mutex; a scrape takes a
 * reference to the state under the same mutex and renders without it. */
#ifndef PMCTOP_EXPORT_H
#define PMCTOP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include "evdef.h"
#include "snapshot.h"

enum export_format { EXPORT_TEXT, EXPORT_OPENMETRICS };

/* The exposition's content types: text format 0.0.4 and OpenMetrics 1.0. */
#define EXPORT_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define EXPORT_OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct export_hub;
struct export_state;

/* scope: the narrowest rows exported (enum snap_scope, SNAP_CPU..SNAP_SOCKET);
 * an event or metric that only exists at a wider scope is exported there. */
struct export_hub *export_hub_new(const struct model *m, enum snap_scope scope);
/* With a tasks view, the processes and the cgroups exported: the busiest
 * top of each (--top; EXPORT_TOP_TASKS when 0), so that the series stay
 * bounded whatever runs. Without pids, processes are told apart by name
 * and cgroup only (a pid label would make a new series for every process
 * that ever ran): the busiest of each name and cgroup is kept. */
#define EXPORT_TOP_TASKS 10
void export_hub_set_tasks(struct export_hub *h, int top, bool pids);
void export_hub_free(struct export_hub *h);
/* Publisher side (one thread): adds snap's counts to the running totals and
 * makes it the latest state. Takes ownership of snap. */
void export_hub_publish(struct export_hub *h, struct snapshot *snap);
/* Sends msg (service_notify's VAR=value lines; taken over) once, when the
 * first published interval is served: READY=1 for a service manager that
 * waits for figures, not for an empty /metrics. */
void export_hub_when_served(struct export_hub *h, char *msg);
/* The same for a snapshot another consumer owns (the dashboard's ring):
 * copies the rows the exporter writes, and publishes the copy. */
void export_hub_publish_copy(struct export_hub *h, const struct snapshot *snap);
/* Renders each published state on a thread of the hub's before it is made
 * current, in every format (and gzip) a scrape has asked for
 * (export_hub_wants), so that a scrape is sent from text rendered once
 * per interval and never waits for a rendering: at --export-scope cpu on
 * 384 CPUs that is 14 ms of text and more of gzip. Without it (the tests)
 * a state is current as soon as it is published and the first scrape of
 * it renders. 0, or -errno when the thread cannot start. */
int export_hub_render_ahead(struct export_hub *h);
/* A scrape asked for format f (gzip'd or not): rendered ahead from now on. */
void export_hub_wants(struct export_hub *h, enum export_format f, bool gzip);
/* Scrape side (any thread): a reference to the latest state, NULL before
 * the first interval. Release it with export_state_put. */
struct export_state *export_hub_get(struct export_hub *h);
void export_state_put(struct export_state *st);
/* The body of the exposition for st in format f (everything but the
 * self-metrics of the scrape and the OpenMetrics "# EOF"); rendered once per
 * state and format, shared by every scrape of it, owned by st. */
const char *export_state_body(struct export_state *st, enum export_format f, size_t *len);
/* The same body gzip'd up to a sync flush (export_gzip.c), also once per
 * state and format; export_state_gzip_end deflates a scrape's tail after
 * it and ends the gzip member (caller frees). Only after export_state_gzip. */
const unsigned char *export_state_gzip(struct export_state *st, enum export_format f, size_t *len);
unsigned char *export_state_gzip_end(struct export_state *st, enum export_format f, const char *tail, size_t tlen,
				     size_t *len);
/* Whether an Accept-Encoding header accepts gzip (q above 0). */
bool export_accepts_gzip(const char *accept_encoding);
/* Counts one scrape and renders the scrape's own families plus, in
 * OpenMetrics, "# EOF". The caller frees the text. */
char *export_hub_tail(struct export_hub *h, enum export_format f, size_t *len);
/* Counts a scrape that could not be answered (pmctop_scrape_errors_total). */
void export_hub_scrape_failed(struct export_hub *h);

/* The format an Accept header asks for: OpenMetrics when it is accepted at
 * least as much as the text format (by q value), else text. NULL: text. */
enum export_format export_negotiate(const char *accept);

/* What the exporter answers to one request, decided from its method, its
 * URL and its Accept header alone (the HTTP server does the rest), so that
 * this part is tested and fuzzed without a socket. */
struct export_route {
	unsigned code;             /* 200, 404 or 405 */
	bool metrics;              /* 200 with the exposition in format */
	enum export_format format; /* when metrics */
	const char *text;          /* text/plain body otherwise (static) */
};
/* method as sent; url the path, with or without a query string (which is
 * ignored: /metrics?x=1 is /metrics); accept NULL when absent. Only GET
 * and HEAD are served (405 otherwise); "/" says where the metrics are. */
void export_route(const char *method, const char *url, const char *accept, struct export_route *r);

/* Parses --export-scope: cpu, core, ccx or socket; -1 if none of them. */
int export_scope_parse(const char *s);
/* Parses --listen [ADDR:]PORT, [IPV6]:PORT: a port alone binds to the
 * loopback address 127.0.0.1. Returns 0, or -1 with *cause. */
int export_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char **cause);

#endif
