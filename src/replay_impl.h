/* replay_impl.h: what the recording reader's files share: the state of an
 * open recording and its limits (replay.c), and the checked JSON access
 * (replay_json.c) that replay.c and replay_interval.c read through.
 * Private to them; the interface is replay.h. */
#ifndef PMCTOP_REPLAY_IMPL_H
#define PMCTOP_REPLAY_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evdef.h"
#include "jsonbudget.h"
#include "replay.h"
#include "topo.h"

struct rp_index { uint64_t off; int64_t stamp_ms; };

struct replay {
	int fd;
	struct replay_info info;
	struct model *model;
	struct topo *topo;            /* the header's */
	char *sim_spec, *host, *cpu_name, *view, *version;
	bool *cpu_filter;
	int *cols; const char **fmts; int *evcols;
	int n; struct rp_index *idx;
	char *note;
	/* What to derive (replay_request); as recorded when nmetrics < 0. */
	int nmetrics; int *metrics;
	int nevents; int *events;
	bool *seen;                   /* [model nevents]: counted in an interval read */
	bool *stuck_said;             /* [model nevents]: energy_mask_stuck's, said once a replay */
	unsigned plan_gen;
	/* What one interval may hold (interval_budget). */
	size_t max_bytes;
	struct json_budget budget;
};

/* The longest interval a recording can hold: ten times the longest -d,
 * so that an interval that ran longer than asked still reads. */
#define REPLAY_MAX_INTERVAL (10 * 86400.0)
/* The sampler doubles its rotation period while it costs too much, up
 * to the interval's length. */
#define REPLAY_MAX_ROTATE_MS (REPLAY_MAX_INTERVAL * 1e3)
/* A time of day in seconds since 1970, up to the year 5138. */
#define REPLAY_MAX_TIME 1e11

/* replay_json.c. Parses a line once its cost is known to be within limits. */
json_t *replay_parse_bounded(const char *text, size_t len, const struct json_budget *limits, char **cause);
/* A string field, or NULL. */
const char *replay_json_str(json_t *o, const char *key);
/* An integer from lo to hi; false when the value is anything else. */
bool replay_json_int(json_t *v, int lo, int hi, int *out);
/* What a field held, for a message: its JSON text, cleaned and cut to
 * fit buf, or "missing". */
const char *replay_json_found(json_t *v, char *buf, size_t n);
/* A number field from lo to hi (lo itself refused when above_lo), or null
 * (NaN) where may_be_null; 0, or -1 with *cause saying what was found. */
int replay_field_num(json_t *o, const char *key, double lo, double hi, bool above_lo, bool may_be_null,
		     double *out, char **cause);
/* An array of exactly n numbers (or null when n is 0 or may be absent)
 * into a new buffer; NULL with *why. */
double *replay_json_nums(json_t *o, const char *key, size_t n, bool may_be_null, const char **why);

#endif
