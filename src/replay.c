/* replay.c: reads recordings (replay.h, docs/recording.md). Opening reads
 * the first line and lists the intervals from their gzip headers; each
 * interval is inflated, parsed (jansson) and handed to derive.c as the
 * sampler once did, so the figures come out as they did live. Every field
 * is checked before use: a recording is input from outside.
 *
 * This file opens a recording: what a line may cost, the first line (the
 * model, topology and columns) and the index of intervals. Reading an
 * interval is replay_interval.c's job, the checked JSON access that both
 * use replay_json.c's; they share the state in replay_impl.h. */
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
#include "replay_impl.h"

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

/* --- the first line --- */

static int load_topology(struct replay *r, json_t *h, char **cause)
{
	json_t *t = json_object_get(h, "topology");
	json_t *cpus = json_object_get(t, "cpus");
	int nnuma = 1;
	if (!json_is_object(t) || !json_is_array(cpus) || !replay_json_int(json_object_get(t, "nnuma"), 1, 1 << 16, &nnuma))
		return set_cause(cause, "the first line has no valid \"topology\" (expected nnuma and cpus)");
	size_t n = json_array_size(cpus);
	struct topo_cpu *tc = xcalloc(n + 1, sizeof(*tc));
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(cpus, i);
		int f[9];
		bool ok = json_is_array(c) && json_array_size(c) == 9;
		for (int k = 0; ok && k < 9; k++)
			ok = replay_json_int(json_array_get(c, (size_t)k), k == 0 ? 0 : -1, 1 << 30, &f[k]);
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
	json_t *h = replay_parse_bounded(text, len, &header_budget, &why);
	int rc = -1;
	if (!json_is_object(h)) {
		set_cause(cause, "the first line is %s", why ? why : "not a JSON object");
		free(why);
		goto out;
	}
	const char *fmt = replay_json_str(h, "format");
	json_t *version = json_object_get(h, "version");
	char what[48];
	if (!fmt || strcmp(fmt, RECORD_FORMAT_NAME) != 0) {
		set_cause(cause, "not a pmctop recording (the first line's \"format\" is not \"%s\")", RECORD_FORMAT_NAME);
		goto out;
	}
	if (!json_is_integer(version) || json_integer_value(version) != RECORD_VERSION) {
		set_cause(cause, "the first line's \"version\" is %s; this pmctop reads recordings of version %d",
			  replay_json_found(version, what, sizeof(what)), RECORD_VERSION);
		goto out;
	}
	const char *model = replay_json_str(h, "model");
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
	r->sim_spec = dup_clean(replay_json_str(h, "sim"));
	r->host = dup_clean(replay_json_str(h, "host"));
	r->cpu_name = dup_clean(replay_json_str(h, "cpu_name"));
	r->view = dup_clean(replay_json_str(h, "view"));
	r->version = dup_clean(replay_json_str(h, "pmctop"));
	if (replay_field_num(h, "interval_s", 0, REPLAY_MAX_INTERVAL, true, false, &r->info.interval_s, &why) < 0 ||
	    replay_field_num(h, "rotate_ms", SAMPLER_ROTATE_KERNEL, REPLAY_MAX_ROTATE_MS, false, true, &r->info.rotate_ms, &why) < 0) {
		set_cause(cause, "the first line's %s", why);
		free(why);
		goto out;
	}
	json_t *flt = json_object_get(h, "cpu_filter");
	if (json_is_array(flt)) {
		r->cpu_filter = xcalloc((size_t)r->topo->max_cpu + 1, sizeof(bool));
		for (size_t i = 0; i < json_array_size(flt); i++) {
			int c;
			if (!replay_json_int(json_array_get(flt, i), 0, r->topo->max_cpu - 1, &c)) {
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
/* The most intervals a recording is read for: 48 days at one a second,
 * an index of 64 MiB. A file of tiny fake members would otherwise cost
 * an entry and a try each. */
#define REPLAY_MAX_MEMBERS (1 << 22)

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
			int64_t at = gzm_next_member(r->fd, off + 1, size, &next, &stamp);
			uint64_t bad = (at < 0 ? size : (uint64_t)at) - off;
			if (ndamaged++ < REPLAY_DAMAGE_NOTES)
				add_note(r, xasprintf("%llu damaged bytes at byte %llu were skipped",
						      (unsigned long long)bad, (unsigned long long)off));
			else
				more_bytes += bad;
			if (at < 0)
				break;
			off = (uint64_t)at;
		}
		if (r->n == REPLAY_MAX_MEMBERS) {
			add_note(r, xasprintf("more than %d intervals: those from byte %llu on are not read "
					      "(--record-max-size keeps recordings shorter)", REPLAY_MAX_MEMBERS,
					      (unsigned long long)off));
			break;
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
