/* replay.c: reads recordings (replay.h, docs/recording.md). Opening reads
 * the first line and lists the intervals from their gzip headers; each
 * interval is inflated, parsed (jansson) and handed to derive.c as the
 * sampler once did, so the figures come out as they did live. Every field
 * is checked before use: a recording is input from outside. */
#include "config.h"
#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backend.h"
#include "derive.h"
#include "gzmember.h"
#include "jsonbudget.h"
#include "perf_import.h"
#include "record.h"
#include "sampler.h"
#include "sampler_energy.h"
#include "sched.h"
#include "util.h"

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

/* --- memory: what a line may cost (docs/recording.md, "What a replay may cost") --- */

/* The first line: a topology of up to 8192 CPUs (TOPO_MAX_CPUS) at 9
 * numbers each, with room to spare, and a few lists of names. */
#define HEADER_MAX_BYTES ((size_t)4 << 20)
static const struct json_budget header_budget = {
	.max_depth = 8, .max_containers = 32768, .max_values = 262144,
};

/* Whatever a header claims, no interval is parsed past these: over 100
 * times the largest interval measured (280 KB, 384 CPUs,
 * docs/recording.md), and a tree that stays near 100 MB in jansson. */
#define INTERVAL_MAX_BYTES ((size_t)32 << 20)
#define INTERVAL_MAX_VALUES ((size_t)2 << 20)

/* What one interval of the recorded machine can hold at most, from the
 * header's CPUs and the model's events and PMUs: every event counted on
 * every CPU (an uncore PMU has no more instances than CPUs), in groups of
 * one event, each event in two groups at most, with the group's running
 * time, in all and in each of SAMPLER_MAX_BUCKETS buckets; at 26
 * characters a number, the longest a double takes with its comma. A line
 * nests 5 deep (the line, "pmus", a PMU, "inst", an instance). */
static void interval_budget(struct replay *r)
{
	size_t ncpus = (size_t)r->topo->ncpus, nev = (size_t)r->model->nevents;
	size_t npmus = (size_t)r->model->npmus, nmetrics = (size_t)r->model->nmetrics;
	size_t values = 4096 + nmetrics + nev + ncpus * (3 * npmus + (SAMPLER_MAX_BUCKETS + 1) * 4 * nev);
	size_t bytes = 65536 + 64 * (nmetrics + nev) + 26 * values;
	r->budget = (struct json_budget){
		.max_depth = 8,
		.max_containers = 64 + 12 * nev + npmus * (ncpus + 2),
		.max_values = values < INTERVAL_MAX_VALUES ? values : INTERVAL_MAX_VALUES,
	};
	r->max_bytes = bytes < INTERVAL_MAX_BYTES ? bytes : INTERVAL_MAX_BYTES;
}

/* Parses a line once its cost is known to be within limits. */
static json_t *parse_bounded(const char *text, size_t len, const struct json_budget *limits, char **cause)
{
	struct json_budget b = *limits;
	const char *what = NULL;
	if (json_budget_scan(&b, text, len, &what) < 0) {
		if (!strcmp(what, "depth"))
			set_cause(cause, "arrays and objects nest more than %zu deep at byte %zu of the line; "
				  "a line of a recording nests %zu at most", b.max_depth, b.scanned, b.max_depth);
		else
			set_cause(cause, "more than %zu %s by byte %zu of the line, more than a line of "
				  "this recording can hold", !strcmp(what, "values") ? b.max_values : b.max_containers,
				  !strcmp(what, "values") ? "values" : "arrays and objects", b.scanned);
		return NULL;
	}
	json_error_t je;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		set_cause(cause, "not JSON (%s, column %d)", je.text, je.column);
	return o;
}

/* --- JSON helpers: each says what it expected --- */

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number or null (NaN); false when the value is anything else. */
static bool jnum(json_t *v, double *out)
{
	if (json_is_null(v)) {
		*out = NAN;
		return true;
	}
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

static bool jint(json_t *v, int lo, int hi, int *out)
{
	if (!json_is_integer(v))
		return false;
	json_int_t x = json_integer_value(v);
	if (x < lo || x > hi)
		return false;
	*out = (int)x;
	return true;
}

/* What a field held, for a message: its JSON text, cleaned and cut to
 * fit buf, or "missing". */
static const char *found(json_t *v, char *buf, size_t n)
{
	if (!v) {
		snprintf(buf, n, "missing");
		return buf;
	}
	/* jansson writes 1e300 as 1.0000000000000001e+300. */
	if (json_is_real(v)) {
		snprintf(buf, n, "%.15g", json_real_value(v));
		return buf;
	}
	char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	char *clean = text_sanitize(text ? text : "?");
	if (strlen(clean) >= n && n > 4)
		snprintf(buf, n, "%.*s...", (int)(n - 4), clean);
	else
		snprintf(buf, n, "%s", clean);
	free(clean);
	free(text);
	return buf;
}

/* A number field of an interval from lo to hi (lo itself refused when
 * above_lo), or null (NaN) where may_be_null; 0, or -1 with *cause
 * saying what was found. */
static int field_num(json_t *o, const char *key, double lo, double hi, bool above_lo, bool may_be_null,
		     double *out, char **cause)
{
	json_t *v = json_object_get(o, key);
	if (may_be_null && (!v || json_is_null(v))) {
		*out = NAN;
		return 0;
	}
	if (json_is_number(v)) {
		double x = json_number_value(v);
		if ((above_lo ? x > lo : x >= lo) && x <= hi) {
			*out = x;
			return 0;
		}
	}
	char what[48];
	return set_cause(cause, "\"%s\" is %s; expected a number %s %g to %g%s", key, found(v, what, sizeof(what)),
			 above_lo ? "above" : "from", lo, hi, may_be_null ? " or null" : "");
}

/* An array of exactly n numbers (or null when n is 0 or may be absent)
 * into a new buffer; NULL with *why. */
static double *jnums(json_t *o, const char *key, size_t n, bool may_be_null, const char **why)
{
	json_t *a = json_object_get(o, key);
	if (json_is_null(a) && may_be_null)
		return NULL;
	if (!json_is_array(a) || json_array_size(a) != n) {
		*why = key;
		return NULL;
	}
	double *v = xmalloc(sizeof(double) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		if (!jnum(json_array_get(a, i), &v[i])) {
			free(v);
			*why = key;
			return NULL;
		}
	return v;
}

/* --- the first line --- */

static int load_topology(struct replay *r, json_t *h, char **cause)
{
	json_t *t = json_object_get(h, "topology");
	json_t *cpus = json_object_get(t, "cpus");
	int nnuma = 1;
	if (!json_is_object(t) || !json_is_array(cpus) || !jint(json_object_get(t, "nnuma"), 1, 1 << 16, &nnuma))
		return set_cause(cause, "the first line has no valid \"topology\" (expected nnuma and cpus)");
	size_t n = json_array_size(cpus);
	struct topo_cpu *tc = xcalloc(n + 1, sizeof(*tc));
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cpus, i);
		int f[9];
		bool ok = json_is_array(c) && json_array_size(c) == 9;
		for (int k = 0; ok && k < 9; k++)
			ok = jint(json_array_get(c, (size_t)k), k == 0 ? 0 : -1, 1 << 30, &f[k]);
		if (!ok) {
			free(tc);
			return set_cause(cause, "topology: CPU entry %zu is not 9 integers "
					 "(cpu, online, known, core_id, package_id, die, l3_id, l3_first, numa)", i + 1);
		}
		tc[i] = (struct topo_cpu){ .cpu = f[0], .online = f[1] != 0, .has_topology = f[2] != 0,
			.core_id = f[3], .package_id = f[4], .die = f[5], .l3_id = f[6], .l3_first = f[7],
			.numa = f[8] };
	}
	char *why = NULL;
	r->topo = topo_from_cpus(tc, (int)n, nnuma, &why);
	free(tc);
	if (!r->topo) {
		set_cause(cause, "topology: %s", why);
		free(why);
		return -1;
	}
	return 0;
}

static int load_columns(struct replay *r, json_t *h, char **cause)
{
	const struct model *m = r->model;
	json_t *cols = json_object_get(h, "columns");
	json_t *ev = json_object_get(h, "event_columns");
	if (!json_is_array(cols) || !json_is_array(ev))
		return set_cause(cause, "the first line has no \"columns\" and \"event_columns\" lists");
	size_t nc = json_array_size(cols), ne = json_array_size(ev);
	r->cols = xmalloc(sizeof(int) * (nc + 1));
	r->fmts = xcalloc(nc + 1, sizeof(char *));
	r->evcols = xmalloc(sizeof(int) * (ne + 1));
	for (size_t i = 0; i < nc; i++) {
		json_t *c = json_array_get(cols, i);
		json_t *name = json_array_get(c, 0), *fmt = json_array_get(c, 1);
		if (!json_is_array(c) || !json_is_string(name) || !(json_is_string(fmt) || json_is_null(fmt)))
			return set_cause(cause, "columns: entry %zu is not [name, format]", i + 1);
		/* A metric this pmctop no longer knows is left out. */
		int mi = model_find_metric(m, json_string_value(name));
		if (mi < 0)
			continue;
		const struct view_col *vc = NULL;
		for (int v = 0; v < m->nviews && !vc; v++)
			for (int k = 0; k < m->views[v].ncols; k++)
				if (m->views[v].cols[k].metric == mi && m->views[v].cols[k].fmt &&
				    json_is_string(fmt) && !strcmp(m->views[v].cols[k].fmt, json_string_value(fmt)))
					vc = &m->views[v].cols[k];
		/* The format string is the model's own (never the file's text). */
		r->fmts[r->info.ncols] = vc ? vc->fmt : NULL;
		r->cols[r->info.ncols++] = mi;
	}
	for (size_t i = 0; i < ne; i++) {
		json_t *e = json_array_get(ev, i);
		int ei = json_is_string(e) ? model_find_event(m, json_string_value(e)) : -1;
		if (!json_is_string(e))
			return set_cause(cause, "event_columns: entry %zu is not a name", i + 1);
		if (ei >= 0)
			r->evcols[r->info.nevcols++] = ei;
	}
	return 0;
}

static char *dup_clean(const char *s)
{
	return s ? text_sanitize(s) : NULL;
}

static int load_header(struct replay *r, const char *text, size_t len, const char *events_dir, char **cause)
{
	char *why = NULL;
	json_t *h = parse_bounded(text, len, &header_budget, &why);
	int rc = -1;
	if (!json_is_object(h)) {
		set_cause(cause, "the first line is %s", why ? why : "not a JSON object");
		free(why);
		goto out;
	}
	const char *fmt = jstr(h, "format");
	json_t *version = json_object_get(h, "version");
	char what[48];
	if (!fmt || strcmp(fmt, RECORD_FORMAT_NAME) != 0) {
		set_cause(cause, "not a pmctop recording (the first line's \"format\" is not \"%s\")", RECORD_FORMAT_NAME);
		goto out;
	}
	if (!json_is_integer(version) || json_integer_value(version) != RECORD_VERSION) {
		set_cause(cause, "the first line's \"version\" is %s; this pmctop reads recordings of version %d",
			  found(version, what, sizeof(what)), RECORD_VERSION);
		goto out;
	}
	const char *model = jstr(h, "model");
	if (!model) {
		set_cause(cause, "the first line names no \"model\"");
		goto out;
	}
	r->model = model_load_by_name(events_dir, model, &why);
	if (!r->model && !strncmp(model, "perf-", 5)) {
		free(why);
		why = NULL;
		r->model = perf_import_load_named(events_dir, model, &why);
	}
	if (!r->model) {
		char *clean = text_sanitize(model);
		set_cause(cause, "recorded with model '%s', which this pmctop cannot load: %s", clean, why);
		free(clean);
		free(why);
		goto out;
	}
	if (load_topology(r, h, cause) < 0 || load_columns(r, h, cause) < 0)
		goto out;
	json_t *sim = json_object_get(h, "simulated");
	r->info.simulated = json_is_true(sim);
	r->sim_spec = dup_clean(jstr(h, "sim"));
	r->host = dup_clean(jstr(h, "host"));
	r->cpu_name = dup_clean(jstr(h, "cpu_name"));
	r->view = dup_clean(jstr(h, "view"));
	r->version = dup_clean(jstr(h, "pmctop"));
	if (field_num(h, "interval_s", 0, REPLAY_MAX_INTERVAL, true, false, &r->info.interval_s, &why) < 0 ||
	    field_num(h, "rotate_ms", SAMPLER_ROTATE_KERNEL, REPLAY_MAX_ROTATE_MS, false, true, &r->info.rotate_ms, &why) < 0) {
		set_cause(cause, "the first line's %s", why);
		free(why);
		goto out;
	}
	json_t *flt = json_object_get(h, "cpu_filter");
	if (json_is_array(flt)) {
		r->cpu_filter = xcalloc((size_t)r->topo->max_cpu + 1, sizeof(bool));
		for (size_t i = 0; i < json_array_size(flt); i++) {
			int c;
			if (!jint(json_array_get(flt, i), 0, r->topo->max_cpu - 1, &c)) {
				set_cause(cause, "cpu_filter: entry %zu is not a CPU of the topology", i + 1);
				goto out;
			}
			r->cpu_filter[c] = true;
		}
	}
	rc = 0;
out:
	json_decref(h);
	return rc;
}

/* --- opening: the first line, then the list of intervals --- */

static void add_note(struct replay *r, char *line)
{
	if (r->note) {
		char *n = xasprintf("%s; %s", r->note, line);
		free(r->note);
		free(line);
		line = n;
	}
	r->note = line;
}

/* The damaged stretches described one by one in the note; the rest are
 * counted. A long recording on a failing disk may hold thousands, and a
 * note that grew by each copied all before it (and was one line of
 * megabytes). */
#define REPLAY_DAMAGE_NOTES 3

static void list_intervals(struct replay *r, uint64_t off, uint64_t size)
{
	int cap = 0, ndamaged = 0;
	uint64_t more_bytes = 0;            /* in the stretches not described */
	while (off < size) {
		uint64_t next;
		int64_t stamp;
		int pk = gzm_peek(r->fd, off, size, &next, &stamp);
		if (pk == -EAGAIN) {
			add_note(r, xasprintf("the last interval is incomplete (%llu bytes at byte %llu were not read)",
					      (unsigned long long)(size - off), (unsigned long long)off));
			break;
		}
		if (pk < 0) {
			/* Damaged bytes: go on at the next member that reads whole. */
			int64_t at = gzm_find_member(r->fd, off + 1);
			while (at >= 0 && gzm_peek(r->fd, (uint64_t)at, size, &next, &stamp) != 0)
				at = gzm_find_member(r->fd, (uint64_t)at + 1);
			uint64_t bad = (at < 0 ? size : (uint64_t)at) - off;
			if (ndamaged++ < REPLAY_DAMAGE_NOTES)
				add_note(r, xasprintf("%llu damaged bytes at byte %llu were skipped",
						      (unsigned long long)bad, (unsigned long long)off));
			else
				more_bytes += bad;
			if (at < 0)
				break;
			off = (uint64_t)at;
			continue;
		}
		if (r->n == cap) {
			cap = cap ? cap * 2 : 256;
			r->idx = xrealloc(r->idx, sizeof(*r->idx) * (size_t)cap);
		}
		r->idx[r->n++] = (struct rp_index){ off, stamp };
		off = next;
	}
	if (ndamaged > REPLAY_DAMAGE_NOTES)
		add_note(r, xasprintf("%d more damaged stretches (%llu bytes) were skipped",
				      ndamaged - REPLAY_DAMAGE_NOTES, (unsigned long long)more_bytes));
}

struct replay *replay_open(const char *path, const char *events_dir, char **cause)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return set_cause(cause, "cannot read %s: %s", path, strerror(errno)), NULL;
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return set_cause(cause, "cannot read %s: not a regular file (a recording is read from a file)", path), NULL;
	}
	struct replay *r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->nmetrics = -1;
	char *text = NULL, *why = NULL;
	size_t len = 0;
	uint64_t next = 0;
	int rc = gzm_read_at(fd, 0, HEADER_MAX_BYTES, &text, &len, &next, &why);
	if (rc < 0 || load_header(r, text, len, events_dir, &why) < 0) {
		set_cause(cause, "%s: %s", path, why ? why : "not a pmctop recording");
		free(why);
		free(text);
		replay_free(r);
		return NULL;
	}
	free(text);
	r->info.model = r->model;
	r->info.topo = r->topo;
	r->info.sim_spec = r->sim_spec;
	r->info.host = r->host;
	r->info.cpu_name = r->cpu_name;
	r->info.view = r->view;
	r->info.pmctop_version = r->version;
	r->info.cpu_filter = r->cpu_filter;
	r->info.cols = r->cols;
	r->info.fmts = r->fmts;
	r->info.evcols = r->evcols;
	r->seen = xcalloc((size_t)r->model->nevents + 1, sizeof(bool));
	r->stuck_said = xcalloc((size_t)r->model->nevents + 1, sizeof(bool));
	interval_budget(r);
	list_intervals(r, next, (uint64_t)sb.st_size);
	return r;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	model_free(r->model);
	topo_free(r->topo);
	free(r->sim_spec);
	free(r->host);
	free(r->cpu_name);
	free(r->view);
	free(r->version);
	free(r->cpu_filter);
	free(r->cols);
	free(r->fmts);
	free(r->evcols);
	free(r->idx);
	free(r->note);
	free(r->metrics);
	free(r->events);
	free(r->seen);
	free(r->stuck_said);
	free(r);
}

const struct replay_info *replay_info(const struct replay *r)
{
	return &r->info;
}

const char *replay_note(const struct replay *r)
{
	return r->note;
}

int replay_count(const struct replay *r)
{
	return r->n;
}

double replay_time(const struct replay *r, int i)
{
	return i >= 0 && i < r->n ? (double)r->idx[i].stamp_ms / 1e3 : NAN;
}

int replay_find_time(const struct replay *r, double t)
{
	/* Intervals are in time order as written; a clock stepped back while
	 * recording only makes the search land a little early. */
	int lo = 0, hi = r->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (replay_time(r, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void replay_set_cpu_filter(struct replay *r, const bool *cpus)
{
	int n = r->topo->max_cpu;
	if (!r->cpu_filter) {
		r->cpu_filter = xcalloc((size_t)n + 1, sizeof(bool));
		for (int c = 0; c < n; c++)
			r->cpu_filter[c] = true;
		r->info.cpu_filter = r->cpu_filter;
	}
	for (int c = 0; c < n; c++)
		r->cpu_filter[c] = r->cpu_filter[c] && cpus[c];
}

void replay_request(struct replay *r, int nmetrics, const int *metrics, int nevents, const int *events)
{
	free(r->metrics);
	free(r->events);
	r->metrics = r->events = NULL;
	r->nmetrics = nmetrics;
	r->nevents = nmetrics < 0 ? 0 : nevents;
	if (nmetrics > 0) {
		r->metrics = xmalloc(sizeof(int) * (size_t)nmetrics);
		memcpy(r->metrics, metrics, sizeof(int) * (size_t)nmetrics);
	}
	if (r->nevents > 0) {
		r->events = xmalloc(sizeof(int) * (size_t)nevents);
		memcpy(r->events, events, sizeof(int) * (size_t)nevents);
	}
}

const char *replay_why_missing(struct replay *r, int mi, char *buf, int len)
{
	if (mi < 0 || mi >= r->model->nmetrics)
		return NULL;
	const struct metric_def *md = &r->model->metrics[mi];
	for (int k = 0; k < md->nevents; k++)
		if (!r->seen[md->events[k]]) {
			snprintf(buf, (size_t)len, "not recorded: %s was not counted",
				 r->model->events[md->events[k]].name);
			return buf;
		}
	return NULL;
}

/* --- one interval --- */

/* What one interval's line holds, as derive wants it. */
struct rp_interval {
	struct sched_plan plan;
	struct derive_pmu *pmus;
	struct bk_instance **inst;    /* [npmus] */
	bool **alive;                 /* [npmus] */
	struct derive_group *groups;
	int **gev;                    /* [ngroups] events */
	double **gbuf;                /* [ngroups * 4]: v, r, bv, br */
	bool *counted;                /* [nevents] in some group */
};

static void interval_free(struct rp_interval *iv, const struct model *m)
{
	for (int p = 0; iv->inst && p < m->npmus; p++) {
		free(iv->inst[p]);
		free(iv->alive[p]);
	}
	for (int g = 0; iv->gev && g < iv->plan.ngroups; g++) {
		free(iv->gev[g]);
		for (int k = 0; k < 4; k++)
			free(iv->gbuf[4 * g + k]);
	}
	free(iv->inst);
	free(iv->alive);
	free(iv->pmus);
	free(iv->groups);
	free(iv->gev);
	free(iv->gbuf);
	free(iv->plan.groups);
	free(iv->plan.metrics);
	free(iv->plan.event_used);
	free(iv->plan.metric_split);
	free(iv->counted);
}

static int parse_pmus(struct rp_interval *iv, const struct model *m, json_t *pmus, char **cause)
{
	if (!json_is_array(pmus))
		return set_cause(cause, "no \"pmus\" list");
	for (size_t i = 0; i < json_array_size(pmus); i++) {
		json_t *o = json_array_get(pmus, i);
		const char *name = jstr(o, "pmu");
		json_t *inst = json_object_get(o, "inst");
		if (!name || !json_is_array(inst))
			return set_cause(cause, "pmus: entry %zu has no \"pmu\" name and \"inst\" list", i + 1);
		int p = model_find_pmu(m, name);
		if (p < 0 || iv->inst[p])
			continue;   /* a PMU this model lacks (or named twice): not used */
		size_t n = json_array_size(inst);
		if (n > (1u << 20))
			return set_cause(cause, "pmus: %s has %zu instances", m->pmus[p].name, n);
		iv->inst[p] = xcalloc(n + 1, sizeof(struct bk_instance));
		iv->alive[p] = xcalloc(n + 1, sizeof(bool));
		for (size_t k = 0; k < n; k++) {
			json_t *t = json_array_get(inst, k);
			int cpu, sid, alive;
			if (!json_is_array(t) || json_array_size(t) != 3 ||
			    !jint(json_array_get(t, 0), -1, 1 << 30, &cpu) ||
			    !jint(json_array_get(t, 1), -1, 1 << 30, &sid) ||
			    !jint(json_array_get(t, 2), 0, 1, &alive))
				return set_cause(cause, "pmus: %s instance %zu is not [cpu, scope id, alive]",
						 m->pmus[p].name, k + 1);
			iv->inst[p][k] = (struct bk_instance){ .pmu = p, .cpu = cpu, .scope = m->pmus[p].scope,
				.scope_id = sid };
			iv->alive[p][k] = alive;
		}
		iv->pmus[p] = (struct derive_pmu){ .available = json_is_true(json_object_get(o, "available")),
			.ninst = (int)n, .inst = iv->inst[p], .alive = iv->alive[p] };
	}
	return 0;
}

/* Keeps columns keep[0..nk) of nblocks blocks of ni rows of ne numbers,
 * packed in place: each number moves down, never over one still to move. */
static void keep_columns(double *a, size_t nblocks, size_t ni, size_t ne, const int *keep, int nk)
{
	size_t d = 0;
	for (size_t b = 0; b < nblocks; b++)
		for (size_t i = 0; i < ni; i++)
			for (int k = 0; k < nk; k++)
				a[d++] = a[(b * ni + i) * ne + (size_t)keep[k]];
}

/* A recorded notice, which pmctop wrote as lines: each line cleaned of
 * anything that could act on a terminal, the line breaks kept. */
static char *clean_lines(const char *s)
{
	char *out = xstrdup(s);
	for (char *line = out; line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		text_sanitize_inplace(line);
		if (nl)
			*nl = '\n';
		line = nl ? nl + 1 : NULL;
	}
	return out;
}

/* One group: its events by name (those this model lacks are left out,
 * with their columns) and its counts. */
static int parse_group(struct rp_interval *iv, const struct model *m, json_t *o, int gi, char **cause)
{
	const char *pname = jstr(o, "pmu");
	json_t *evs = json_object_get(o, "events");
	int p = pname ? model_find_pmu(m, pname) : -1;
	int nb = 0;
	if (!pname || !json_is_array(evs) || !jint(json_object_get(o, "nb"), 0, 4096, &nb))
		return set_cause(cause, "group %d: expected \"pmu\", \"events\" and \"nb\"", gi + 1);
	size_t ne = json_array_size(evs);
	if (p < 0 || ne == 0)
		return 0;
	size_t ni = (size_t)iv->pmus[p].ninst;
	if (ne > 64 || (ni && ne * ni * ((size_t)nb + 1) > ((size_t)1 << 28)))
		return set_cause(cause, "group %d: %zu events on %zu instances is more than pmctop records", gi + 1, ne, ni);
	int *keep = xmalloc(sizeof(int) * ne);
	int *ev = xmalloc(sizeof(int) * ne);
	int nk = 0;
	for (size_t k = 0; k < ne; k++) {
		json_t *e = json_array_get(evs, k);
		if (!json_is_string(e)) {
			free(keep);
			free(ev);
			return set_cause(cause, "group %d: event %zu is not a name", gi + 1, k + 1);
		}
		int ei = model_find_event(m, json_string_value(e));
		if (ei < 0 || !event_fits_group(m, p, ei))
			continue;
		bool dup = false;
		for (int j = 0; j < nk; j++)
			dup |= ev[j] == ei;
		if (dup)
			continue;
		keep[nk] = (int)k;
		ev[nk++] = ei;
	}
	/* The same group twice would count its events twice over the same
	 * time: coverage above what was measured, figures of nothing new. */
	for (int g = 0; g < iv->plan.ngroups; g++)
		if (iv->plan.groups[g].pmu == p && iv->plan.groups[g].nevents == nk &&
		    !memcmp(iv->plan.groups[g].events, ev, sizeof(int) * (size_t)nk)) {
			set_cause(cause, "group %d counts the same %s events as an earlier group (%s, ...); "
				  "a recording counts each group once", gi + 1, m->pmus[p].name, m->events[ev[0]].name);
			free(keep);
			free(ev);
			return -1;
		}
	const char *bad = NULL;
	double *v = jnums(o, "v", ni * ne, true, &bad);
	double *rr = v ? jnums(o, "r", ni, false, &bad) : NULL;
	double *bv = v && nb ? jnums(o, "bv", (size_t)nb * ni * ne, false, &bad) : NULL;
	double *br = v && nb ? jnums(o, "br", (size_t)nb * ni, false, &bad) : NULL;
	if (bad || nk == 0) {
		free(keep);
		free(ev);
		free(v);
		free(rr);
		free(bv);
		free(br);
		if (bad)
			return set_cause(cause, "group %d: \"%s\" is not %s numbers", gi + 1, bad,
					 !strcmp(bad, "v") ? "instances x events" : !strcmp(bad, "r") ? "one per instance" :
					 !strcmp(bad, "bv") ? "nb x instances x events" : "nb x instances");
		return 0;
	}
	/* Only the columns of known events, in the kept order. */
	if ((size_t)nk < ne) {
		keep_columns(v, 1, ni, ne, keep, nk);
		if (bv)
			keep_columns(bv, (size_t)nb, ni, ne, keep, nk);
	}
	free(keep);
	int g = iv->plan.ngroups++;
	iv->gev[g] = ev;
	iv->gbuf[4 * g] = v;
	iv->gbuf[4 * g + 1] = rr;
	iv->gbuf[4 * g + 2] = bv;
	iv->gbuf[4 * g + 3] = br;
	iv->plan.groups[g] = (struct sched_group){ .pmu = p, .nevents = nk, .events = ev };
	iv->groups[g] = (struct derive_group){ .nev = nk, .events = ev, .iv = v, .ir = rr,
		.nb = v ? nb : 0, .bv = bv, .br = br };
	for (int k = 0; k < nk; k++)
		iv->counted[ev[k]] = true;
	return 0;
}

static bool metric_counted(const struct model *m, const bool *counted, int mi)
{
	const struct metric_def *md = &m->metrics[mi];
	for (int k = 0; k < md->nevents; k++)
		if (!counted[md->events[k]])
			return false;
	return true;
}

/* The plan's metrics and events: as recorded, or as requested where the
 * interval counted their events. */
static int plan_figures(struct replay *r, struct rp_interval *iv, json_t *o, char **cause)
{
	const struct model *m = r->model;
	struct sched_plan *pl = &iv->plan;
	pl->nevents = m->nevents;
	pl->metrics = xmalloc(sizeof(int) * ((size_t)m->nmetrics + 1));
	pl->event_used = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	pl->metric_split = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	bool *mseen = xcalloc((size_t)m->nmetrics + 1, sizeof(bool));
	if (r->nmetrics < 0) {
		json_t *ms = json_object_get(o, "metrics"), *es = json_object_get(o, "events");
		if (!json_is_array(ms) || !json_is_array(es)) {
			free(mseen);
			return set_cause(cause, "no \"metrics\" and \"events\" lists");
		}
		for (size_t i = 0; i < json_array_size(ms); i++) {
			json_t *n = json_array_get(ms, i);
			int mi = json_is_string(n) ? model_find_metric(m, json_string_value(n)) : -1;
			if (mi >= 0 && !mseen[mi] && metric_counted(m, iv->counted, mi)) {
				mseen[mi] = true;
				pl->metrics[pl->nmetrics++] = mi;
			}
		}
		for (size_t i = 0; i < json_array_size(es); i++) {
			json_t *n = json_array_get(es, i);
			int ei = json_is_string(n) ? model_find_event(m, json_string_value(n)) : -1;
			if (ei >= 0 && iv->counted[ei])
				pl->event_used[ei] = true;
		}
	} else {
		for (int i = 0; i < r->nmetrics; i++) {
			int mi = r->metrics[i];
			if (mi >= 0 && mi < m->nmetrics && !mseen[mi] && metric_counted(m, iv->counted, mi)) {
				mseen[mi] = true;
				pl->metrics[pl->nmetrics++] = mi;
			}
		}
		for (int i = 0; i < r->nevents; i++)
			if (r->events[i] >= 0 && r->events[i] < m->nevents && iv->counted[r->events[i]])
				pl->event_used[r->events[i]] = true;
	}
	for (int i = 0; i < pl->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[pl->metrics[i]];
		for (int k = 0; k < md->nevents; k++)
			pl->event_used[md->events[k]] = true;
	}
	free(mseen);
	return 0;
}

static int int_list(json_t *o, const char *key, int max, int **out, int *n, char **cause)
{
	json_t *a = json_object_get(o, key);
	*out = NULL;
	*n = 0;
	if (!json_is_array(a))
		return set_cause(cause, "no \"%s\" list", key);
	size_t len = json_array_size(a);
	if (len > (size_t)max)
		return set_cause(cause, "\"%s\" lists %zu CPUs, more than the topology has", key, len);
	*out = xmalloc(sizeof(int) * (len + 1));
	for (size_t i = 0; i < len; i++)
		if (!jint(json_array_get(a, i), 0, 1 << 30, &(*out)[i])) {
			free(*out);
			*out = NULL;
			return set_cause(cause, "\"%s\": entry %zu is not a CPU number", key, i + 1);
		}
	*n = (int)len;
	return 0;
}

static struct snapshot *derive_line(struct replay *r, json_t *o, char **cause)
{
	const struct model *m = r->model;
	struct rp_interval iv;
	memset(&iv, 0, sizeof(iv));
	struct snapshot *snap = NULL;
	struct topo *t = NULL;
	int *offline = NULL, *returning = NULL, *down = NULL;
	int noff = 0, nret = 0, ndown = 0;
	double interval_s, time_s, rotate_ms, cost_s, delay_s;
	json_t *groups = json_object_get(o, "groups"), *seq = json_object_get(o, "seq");
	char what[48];
	if (!json_is_object(o)) {
		set_cause(cause, "the line is %s; expected an object", found(o, what, sizeof(what)));
		goto out;
	}
	if (!json_is_integer(seq) || json_integer_value(seq) < 0) {
		set_cause(cause, "\"seq\" is %s; expected a whole number from 0", found(seq, what, sizeof(what)));
		goto out;
	}
	if (field_num(o, "time", 0, REPLAY_MAX_TIME, false, false, &time_s, cause) < 0 ||
	    field_num(o, "interval_s", 0, REPLAY_MAX_INTERVAL, true, false, &interval_s, cause) < 0 ||
	    field_num(o, "delay_s", 0, REPLAY_MAX_INTERVAL, true, true, &delay_s, cause) < 0 ||
	    field_num(o, "rotate_ms", SAMPLER_ROTATE_KERNEL, REPLAY_MAX_ROTATE_MS, false, true, &rotate_ms, cause) < 0 ||
	    field_num(o, "cost_s", 0, REPLAY_MAX_INTERVAL, false, true, &cost_s, cause) < 0)
		goto out;
	if (!json_is_array(groups)) {
		set_cause(cause, "\"groups\" is %s; expected a list", found(groups, what, sizeof(what)));
		goto out;
	}
	int maxc = r->topo->ncpus;
	if (int_list(o, "offline", maxc, &offline, &noff, cause) < 0 ||
	    int_list(o, "returning", maxc, &returning, &nret, cause) < 0 ||
	    int_list(o, "down", maxc, &down, &ndown, cause) < 0)
		goto out;
	iv.pmus = xcalloc((size_t)m->npmus + 1, sizeof(*iv.pmus));
	iv.inst = xcalloc((size_t)m->npmus + 1, sizeof(*iv.inst));
	iv.alive = xcalloc((size_t)m->npmus + 1, sizeof(*iv.alive));
	iv.counted = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	if (parse_pmus(&iv, m, json_object_get(o, "pmus"), cause) < 0)
		goto out;
	size_t ng = json_array_size(groups);
	if (ng > 4096) {
		set_cause(cause, "%zu groups", ng);
		goto out;
	}
	iv.plan.groups = xcalloc(ng + 1, sizeof(*iv.plan.groups));
	iv.groups = xcalloc(ng + 1, sizeof(*iv.groups));
	iv.gev = xcalloc(ng + 1, sizeof(*iv.gev));
	iv.gbuf = xcalloc(4 * ng + 4, sizeof(*iv.gbuf));
	for (size_t g = 0; g < ng; g++)
		if (parse_group(&iv, m, json_array_get(groups, g), (int)g, cause) < 0)
			goto out;
	if (plan_figures(r, &iv, o, cause) < 0)
		goto out;
	for (int e = 0; e < m->nevents; e++)
		r->seen[e] |= iv.counted[e];

	/* The CPUs as derive saw them: online but for those down. */
	t = topo_clone(r->topo);
	for (int i = 0; i < t->ncpus; i++)
		t->cpus[i].online = true;
	for (int i = 0; i < ndown; i++) {
		const struct topo_cpu *c = topo_cpu_by_num(t, down[i]);
		if (c)
			t->cpus[c - t->cpus].online = false;
	}
	topo_rebuild(t);
	r->plan_gen = r->plan_gen + 1 ? r->plan_gen + 1 : 1;
	struct derive_input in = {
		.model = m, .topo = t, .plan = &iv.plan, .cpu_filter = r->cpu_filter,
		.interval_s = interval_s, .pmus = iv.pmus, .groups = iv.groups,
		.cache = NULL, .plan_gen = r->plan_gen,
	};
	snap = derive_snapshot(&in);
	snap->seq = (uint64_t)json_integer_value(seq);
	snap->time = time_s;
	snap->simulated = r->info.simulated;
	const char *notice = jstr(o, "notice");
	snap->notice = notice ? clean_lines(notice) : NULL;
	/* The recording holds the raw counts: a counter that stood still
	 * would derive as 0 W again; it is masked as it was live. Its line
	 * comes with the first interval replayed (wherever a jump lands),
	 * unless that interval's recorded notice says it already. */
	char *stuck = energy_mask_stuck(m, snap, r->stuck_said);
	if (stuck && !(snap->notice && strstr(snap->notice, stuck))) {
		char *both = snap->notice ? xasprintf("%s\n%s", snap->notice, stuck) : xstrdup(stuck);
		free(snap->notice);
		snap->notice = both;
	}
	free(stuck);
	snap->noffline = noff;
	snap->offline = offline;
	snap->nreturning = nret;
	snap->returning = returning;
	offline = returning = NULL;
	snap->sampler_cost_s = cost_s;
	snap->rotate_ms = rotate_ms;
	/* Optional: recordings written before pmctop kept them lack them. */
	if (!isnan(delay_s))
		snap->delay_s = delay_s;
	snap->quick = json_is_true(json_object_get(o, "short"));
out:
	topo_free(t);
	free(offline);
	free(returning);
	free(down);
	interval_free(&iv, m);
	return snap;
}

struct snapshot *replay_snapshot_text(struct replay *r, const char *text, size_t len, char **cause)
{
	if (len > r->max_bytes) {
		set_cause(cause, "the line is more than %zu bytes, more than an interval of %d CPUs of model %s "
			  "can need", r->max_bytes, r->topo->ncpus, r->model->name);
		return NULL;
	}
	json_t *o = parse_bounded(text, len, &r->budget, cause);
	if (!o)
		return NULL;
	struct snapshot *s = derive_line(r, o, cause);
	json_decref(o);
	return s;
}

struct snapshot *replay_snapshot(struct replay *r, int i, char **cause)
{
	if (i < 0 || i >= r->n)
		return set_cause(cause, "no interval %d (the recording has %d)", i + 1, r->n), NULL;
	char *text = NULL, *why = NULL;
	size_t len = 0;
	uint64_t next;
	int rc = gzm_read_at(r->fd, r->idx[i].off, r->max_bytes, &text, &len, &next, &why);
	if (rc == -EFBIG) {
		set_cause(cause, "interval %d (byte %llu): inflates to more than %zu bytes, more than an interval "
			  "of %d CPUs of model %s can need", i + 1, (unsigned long long)r->idx[i].off, r->max_bytes,
			  r->topo->ncpus, r->model->name);
		free(why);
		return NULL;
	}
	if (rc < 0) {
		set_cause(cause, "interval %d: %s", i + 1, why);
		free(why);
		return NULL;
	}
	struct snapshot *s = replay_snapshot_text(r, text, len, &why);
	free(text);
	if (!s) {
		set_cause(cause, "interval %d (byte %llu): %s", i + 1, (unsigned long long)r->idx[i].off, why);
		free(why);
	}
	return s;
}
