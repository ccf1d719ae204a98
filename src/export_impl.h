/* export_impl.h: what the exporter's hub (export_hub.c) and its renderer
 * (export_text.c) share; nothing outside src/export_*.c includes it. */
#ifndef PMCTOP_EXPORT_IMPL_H
#define PMCTOP_EXPORT_IMPL_H

#include <stdint.h>
#include "export.h"

/* The running sums behind pmctop_event_total: per snapshot scope, one slot
 * per row key (see export_row_key) and event, NaN until first measured. */
struct export_totals {
	int cap[SNAP_NSCOPES];      /* row keys 0..cap-1 */
	double *sum[SNAP_NSCOPES];  /* [cap * nevents] */
	uint64_t intervals;         /* snapshots published */
	double sampler_cpu_s;       /* sum of their sampler_cost_s */
};

/* A row's stable key within its scope: the CPU number, core, CCX or socket
 * index, so that a total stays with its CPU when others go offline. Here,
 * not in the hub, so that the renderer calls nothing of the hub's. */
static inline int export_row_key(const struct snap_row *row, enum snap_scope sc)
{
	switch (sc) {
	case SNAP_CPU: return row->cpu;
	case SNAP_CORE: return row->core;
	case SNAP_CCX: return row->ccx;
	case SNAP_SOCKET: return row->id;
	default: return 0;
	}
}
/* The rows an event or metric of width w (enum scope) is exported at under
 * --export-scope s: the wider of the two, or the next wider scope that has
 * rows where a machine has none of it (no CCX in sysfs on some VMs). */
static inline enum snap_scope export_at(const struct snapshot *snap, int w, enum snap_scope s)
{
	int sc = w > (int)s ? w : (int)s;
	while (sc < SNAP_SYSTEM && snap->nrows[sc] == 0)
		sc++;
	return (enum snap_scope)sc;
}
/* The family name of a derived metric: pmctop_metric_NAME with the
 * Prometheus base unit of its unit (caller frees). */
char *export_metric_name(const struct metric_def *md);
bool export_metric_duplicated(const struct metric_def *md);
/* A portable series (export_portable.c): the events of the model that
 * name it and their scales; name points into the model. */
struct export_series {
	const char *name;
	int nterms;
	int *events;
	double *scales;
};
int export_series_list(const struct model *m, struct export_series **out);
void export_series_free(struct export_series *s, int n);

/* How a hub renders: the narrowest rows, and whether per-process series
 * carry a pid label (--export-pids). */
struct export_opts {
	enum snap_scope scope;
	bool pids;
};
/* The exposition body of snap with the totals tot (see export_state_body). */
char *export_render(const struct snapshot *snap, const struct export_totals *tot,
		    const struct export_opts *o, enum export_format f, size_t *len);

/* The gzip'd start of a response (export_gzip.c): header and the body
 * deflated up to a sync flush, with the body's CRC-32 and length. */
struct export_gz {
	unsigned char *data;
	size_t len;
	unsigned long crc;
	size_t in_len;
};
void export_gz_head(const char *body, size_t len, struct export_gz *gz);
/* The rest of the member after head: tail deflated to the end, and the
 * trailer for body and tail together (caller frees). */
unsigned char *export_gz_tail(const struct export_gz *head, const char *tail, size_t len, size_t *out_len);

/* Whether st's body in format f (gzip'd, or not) is rendered already. */
bool export_state_ready(struct export_state *st, enum export_format f, bool gzip);

/* pmctop_build_info's labels: the compiler and the optional features built in. */
#ifdef __clang__
#define EXPORT_COMPILER "clang " __clang_version__
#else
#define EXPORT_COMPILER "gcc " __VERSION__
#endif
#define EXPORT_FEATURES "gzip,web-config,sd_notify"

#endif
