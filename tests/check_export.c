/* check_export.c: the exporter's exposition text, read back by a small
 * parser of the Prometheus text format and OpenMetrics: every family has
 * one HELP and one TYPE before its samples, counters keep running sums
 * across intervals (skipping intervals where an event was not measured),
 * label values with quotes, backslashes and newlines come back intact,
 * --export-scope picks the rows, and Accept and --listen parse as documented. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "export.h"
#include "export_conns.h"
#include "export_conns.h"
#include "export_impl.h"
#include "mhd_dl.h"
#include "service_notify.h"
#include "snapshot.h"
#include "util.h"
#include <zlib.h>

/* A model of two PMUs: per-thread core counters and a per-CCX L3. */
enum { NE = 3, NM = 3, NCPU = 4 };
static struct pmu_def pmus[2] = {
	{ .name = (char *)"core", .scope = SCOPE_THREAD },
	{ .name = (char *)"l3", .scope = SCOPE_CCX },
};
/* The first event's name needs every escape a label value has. */
#define WEIRD "ret\"instr\\x\ny"
/* Portable series: cycles from one event; l3_bytes 64 x l3_hit, and
 * "both" over a core and an L3 event, which is never written (two scopes). */
static struct portable_term pt_cycles[] = { { (char *)"cycles", 1 }, { (char *)"both", 1 } };
static struct portable_term pt_l3[] = { { (char *)"l3_bytes", 64 }, { (char *)"both", 1 } };
static struct event_def events[NE] = {
	{ .name = (char *)WEIRD, .pmu = 0 },
	{ .name = (char *)"cycles", .pmu = 0, .nportable = 2, .portable = pt_cycles },
	{ .name = (char *)"l3_hit", .pmu = 1, .nportable = 2, .portable = pt_l3 },
};
static struct metric_def metrics[NM] = {
	{ .name = (char *)"ipc", .unit = (char *)"insn/cyc", .desc = (char *)"Instructions per \"cycle\"",
	  .scope = SCOPE_THREAD },
	{ .name = (char *)"l3_hit_rate", .unit = (char *)"ratio", .desc = (char *)"L3 hits", .scope = SCOPE_CCX },
	{ .name = (char *)"l3_latency_ns", .unit = (char *)"ns", .desc = (char *)"L3 miss latency",
	  .scope = SCOPE_CCX },
};
static struct model model = { .name = (char *)"test\\model", .npmus = 2, .pmus = pmus, .nevents = NE,
			      .events = events, .nmetrics = NM, .metrics = metrics };

/* 4 CPUs: 2 cores of 2 threads, one CCX per core, one socket. Event e on
 * CPU c counts (c + 1) * (e + 1) * k in interval k; CPU 3 misses the first
 * event in interval 2 (NaN). */
static const char *snap_notice;   /* the notice of every interval made, or NULL */

static struct snapshot *make_snap(int k)
{
	int nrows[SNAP_NSCOPES] = { NCPU, 2, 2, 1, 1 };
	struct snapshot *s = snapshot_new(&model, nrows);
	s->notice = snap_notice ? xstrdup(snap_notice) : NULL;
	s->seq = (uint64_t)k;
	s->time = 1700000000.0 + k;
	s->measured_s = 1;
	s->simulated = true;
	s->sampler_cost_s = 0.25;
	s->rotate_ms = 50;
	for (int e = 0; e < NE; e++)
		s->event_planned[e] = true;
	for (int m = 0; m < NM; m++)
		s->metric_planned[m] = true;
	for (int c = 0; c < NCPU; c++) {
		struct snap_row *r = &s->rows[SNAP_CPU][c];
		r->id = r->cpu = c;
		r->core = r->ccx = c / 2;
		r->socket = 0;
		for (int e = 0; e < 2; e++) {
			r->ev[e] = (c + 1) * (e + 1) * k;
			r->ecov[e] = 0.5;
		}
		if (c == 3 && k == 2)
			r->ev[0] = NAN;
		r->erse[0] = c == 0 ? 0.01 : NAN;
		r->mv[0] = 1.5 + c;
		r->mcov[0] = 0.5;
	}
	for (int x = 0; x < 2; x++) {
		struct snap_row *cr = &s->rows[SNAP_CORE][x], *xr = &s->rows[SNAP_CCX][x];
		cr->id = cr->core = cr->ccx = x;
		cr->socket = 0;
		xr->id = xr->ccx = x;
		xr->socket = 0;
		cr->ev[0] = 100.0 * k;
		xr->ev[2] = 1000.0 * (x + 1);
		xr->mv[1] = 0.25 * (x + 1);
		xr->mv[2] = 80 + x;
		cr->mv[0] = 2.5;
	}
	s->rows[SNAP_SOCKET][0].id = 0;
	s->rows[SNAP_SOCKET][0].socket = 0;
	return s;
}

/* One parsed sample: its name, up to 6 labels (unescaped) and its value. */
struct sample {
	char name[96];
	int nlab;
	char key[6][16], val[6][64];
	double v;
};

struct parsed {
	int n;
	struct sample s[256];
	char fam[64][96], type[64][16];
	int nfam;
	bool eof;
};

/* Parses an exposition strictly enough to fail the test on any line the
 * Prometheus parsers would reject in the constructs the exporter uses. */
static void parse(const char *text, bool om, struct parsed *p)
{
	memset(p, 0, sizeof(*p));
	char cur_help[96] = "";
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		ck_assert_msg(nl, "unterminated last line: %s", l);
		ck_assert_msg(!p->eof, "text after # EOF");
		char line[512];
		ck_assert_int_lt(nl - l, (long)sizeof(line));
		memcpy(line, l, (size_t)(nl - l));
		line[nl - l] = '\0';
		l = nl + 1;
		if (!strcmp(line, "# EOF")) {
			ck_assert_msg(om, "# EOF in the text format");
			p->eof = true;
			continue;
		}
		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%95s", cur_help);
			for (int i = 0; i < p->nfam; i++)
				ck_assert_msg(strcmp(p->fam[i], cur_help), "family %s twice", cur_help);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			ck_assert_int_lt(p->nfam, 64);
			ck_assert_int_eq(sscanf(line + 7, "%95s %15s", p->fam[p->nfam], p->type[p->nfam]), 2);
			ck_assert_msg(!strcmp(p->fam[p->nfam], cur_help), "TYPE %s without its HELP", line);
			p->nfam++;
			continue;
		}
		ck_assert_msg(line[0] != '#', "unknown comment: %s", line);
		ck_assert_int_lt(p->n, 256);
		struct sample *s = &p->s[p->n++];
		const char *c = line;
		size_t nn = strcspn(c, "{ ");
		memcpy(s->name, c, nn);
		c += nn;
		if (*c == '{') {
			c++;
			while (*c != '}') {
				ck_assert_int_lt(s->nlab, 6);
				size_t kn = strcspn(c, "=");
				memcpy(s->key[s->nlab], c, kn);
				c += kn;
				ck_assert_msg(c[0] == '=' && c[1] == '"', "bad label in %s", line);
				c += 2;
				char *o = s->val[s->nlab];
				for (; *c != '"'; c++) {
					ck_assert_msg(*c, "unterminated label value in %s", line);
					if (*c == '\\') {
						c++;
						ck_assert_msg(*c == '\\' || *c == '"' || *c == 'n', "bad escape in %s", line);
						*o++ = *c == 'n' ? '\n' : *c;
					} else {
						*o++ = *c;
					}
				}
				c++;
				s->nlab++;
				if (*c == ',')
					c++;
				else
					ck_assert_msg(*c == '}', "bad label list in %s", line);
			}
			c++;
		}
		ck_assert_msg(*c == ' ', "no value in %s", line);
		char *end;
		s->v = strtod(c + 1, &end);
		ck_assert_msg(*end == '\0', "bad value in %s", line);
		/* The sample belongs to the last family declared: its name, or
		 * in OpenMetrics its name plus _total (counter) or _info (info). */
		ck_assert_msg(p->nfam > 0, "sample before any TYPE: %s", line);
		const char *fam = p->fam[p->nfam - 1], *type = p->type[p->nfam - 1];
		char want[128];
		snprintf(want, sizeof(want), "%s%s", fam,
			 om && !strcmp(type, "counter") ? "_total" : om && !strcmp(type, "info") ? "_info" : "");
		ck_assert_msg(!strcmp(s->name, want), "sample %s under family %s", s->name, fam);
		if (!strcmp(type, "counter"))
			ck_assert_msg(strlen(s->name) > 6 && !strcmp(s->name + strlen(s->name) - 6, "_total"),
				      "counter %s without _total", s->name);
	}
	ck_assert_int_eq(p->eof, om);
}

static const char *label(const struct sample *s, const char *key)
{
	for (int i = 0; i < s->nlab; i++)
		if (!strcmp(s->key[i], key))
			return s->val[i];
	return NULL;
}

/* The sample named name whose labels include key=val (and key2=val2). */
static const struct sample *find(const struct parsed *p, const char *name, const char *key, const char *val,
				 const char *key2, const char *val2)
{
	for (int i = 0; i < p->n; i++) {
		const struct sample *s = &p->s[i];
		if (strcmp(s->name, name))
			continue;
		const char *a = key ? label(s, key) : NULL, *b = key2 ? label(s, key2) : NULL;
		if ((!key || (a && !strcmp(a, val))) && (!key2 || (b && !strcmp(b, val2))))
			return s;
	}
	return NULL;
}

static int count_name(const struct parsed *p, const char *name)
{
	int n = 0;
	for (int i = 0; i < p->n; i++)
		n += !strcmp(p->s[i].name, name);
	return n;
}

/* Publishes intervals 1..k into a hub of the given scope and parses the
 * latest state's exposition in format f. */
static void scrape(enum snap_scope scope, int k, enum export_format f, struct parsed *p)
{
	struct export_hub *h = export_hub_new(&model, scope);
	for (int i = 1; i <= k; i++)
		export_hub_publish(h, make_snap(i));
	struct export_state *st = export_hub_get(h);
	ck_assert_ptr_nonnull(st);
	size_t blen, tlen;
	const char *body = export_state_body(st, f, &blen);
	char *tail = export_hub_tail(h, f, &tlen);
	ck_assert_uint_eq(strlen(body), blen);
	char *all = xasprintf("%s%s", body, tail);
	parse(all, f == EXPORT_OPENMETRICS, p);
	free(all);
	free(tail);
	export_state_put(st);
	export_hub_free(h);
}

START_TEST(test_counters_sum_intervals)
{
	static struct parsed p;
	scrape(SNAP_CPU, 3, EXPORT_TEXT, &p);
	/* CPU 1, event 1 ("cycles"): 2 * 2 * (1 + 2 + 3) = 24. */
	const struct sample *s = find(&p, "pmctop_event_total", "event", "cycles", "cpu", "1");
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 24);
	ck_assert_str_eq(label(s, "core"), "0");
	ck_assert_str_eq(label(s, "ccx"), "0");
	ck_assert_str_eq(label(s, "socket"), "0");
	/* CPU 3 missed the first event in interval 2: 4 * (1 + 3) = 16. */
	s = find(&p, "pmctop_event_total", "event", WEIRD, "cpu", "3");
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 16);
	/* The L3 event lives per CCX: no cpu label, one series per CCX, and
	 * summed over three intervals. */
	s = find(&p, "pmctop_event_total", "event", "l3_hit", "ccx", "1");
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(label(s, "cpu"));
	ck_assert_double_eq(s->v, 6000);
	ck_assert_int_eq(count_name(&p, "pmctop_event_total"), 2 * NCPU + 2);
	s = find(&p, "pmctop_intervals_total", NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 3);
	/* Portable series: the same sums under a vendor-neutral name, scaled;
	 * none for a series whose events live at two scopes. */
	s = find(&p, "pmctop_cycles_total", "cpu", "1", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 24);
	ck_assert_int_eq(count_name(&p, "pmctop_cycles_total"), NCPU);
	s = find(&p, "pmctop_l3_bytes_total", "ccx", "1", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 64 * 6000);
	ck_assert_int_eq(count_name(&p, "pmctop_both_total"), 0);
	s = find(&p, "pmctop_sampler_cpu_seconds_total", NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 0.75);
	s = find(&p, "pmctop_rotation_period_seconds", NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq_tol(s->v, 0.05, 1e-12);
	s = find(&p, "pmctop_scrapes_total", NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 1);
}
END_TEST

START_TEST(test_gauges_and_units)
{
	static struct parsed p;
	scrape(SNAP_CPU, 1, EXPORT_TEXT, &p);
	const struct sample *s = find(&p, "pmctop_metric_ipc", "cpu", "2", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 3.5);
	/* CCX metrics are labelled by CCX; ns become seconds. */
	s = find(&p, "pmctop_metric_l3_hit_rate_ratio", "ccx", "1", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 0.5);
	ck_assert_ptr_null(label(s, "cpu"));
	s = find(&p, "pmctop_metric_l3_latency_seconds", "ccx", "0", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq_tol(s->v, 80e-9, 1e-18);
	/* Coverage per event; uncertainty only where known (NaN skipped). */
	s = find(&p, "pmctop_event_coverage_ratio", "event", "cycles", "cpu", "3");
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 0.5);
	ck_assert_int_eq(count_name(&p, "pmctop_event_relative_error_ratio"), 1);
	s = find(&p, "pmctop_event_relative_error_ratio", "cpu", "0", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 0.01);
	/* The metric label is the gauge's own name, so that the two join. */
	ck_assert_ptr_null(find(&p, "pmctop_coverage_ratio", "metric", "ipc", NULL, NULL));
	s = find(&p, "pmctop_coverage_ratio", "metric", "pmctop_metric_ipc", "cpu", "1");
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 0.5);
	s = find(&p, "pmctop_info", "model", "test\\model", "simulated", "true");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(label(s, "version"), PACKAGE_VERSION);
	ck_assert_double_eq(s->v, 1);
	s = find(&p, "pmctop_build_info", "version", PACKAGE_VERSION, NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(label(s, "compiler"));
	ck_assert_ptr_nonnull(strstr(label(s, "features"), "gzip"));
}
END_TEST

/* HELP names the unit the value is in: a latency in ns is exported in
 * seconds, and its HELP must say seconds, not the model's ns. */
START_TEST(test_help_base_units)
{
	struct export_hub *h = export_hub_new(&model, SNAP_CPU);
	export_hub_publish(h, make_snap(1));
	struct export_state *st = export_hub_get(h);
	size_t len;
	const char *body = export_state_body(st, EXPORT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(body, "# HELP pmctop_metric_l3_latency_seconds L3 miss latency (seconds, "));
	ck_assert_ptr_nonnull(strstr(body, "# HELP pmctop_metric_l3_hit_rate_ratio L3 hits (ratio, "));
	/* Dimensionless figures keep the model's unit, their value unchanged. */
	ck_assert_ptr_nonnull(strstr(body, "# HELP pmctop_metric_ipc Instructions per \"cycle\" (insn/cyc, "));
	ck_assert_ptr_null(strstr(body, "(ns,"));
	export_state_put(st);
	export_hub_free(h);
}
END_TEST

/* A gzip'd response is the body deflated once per state and the tail of
 * each scrape after it: one gzip member that inflates to body + tail. */
START_TEST(test_gzip_response)
{
	struct export_hub *h = export_hub_new(&model, SNAP_CPU);
	export_hub_publish(h, make_snap(1));
	struct export_state *st = export_hub_get(h);
	for (int f = 0; f < 2; f++) {
		size_t blen, glen, tlen, zlen;
		const char *body = export_state_body(st, (enum export_format)f, &blen);
		const unsigned char *gz = export_state_gzip(st, (enum export_format)f, &glen);
		ck_assert_ptr_eq(gz, export_state_gzip(st, (enum export_format)f, &glen));   /* cached */
		char *tail = export_hub_tail(h, (enum export_format)f, &tlen);
		unsigned char *end = export_state_gzip_end(st, (enum export_format)f, tail, tlen, &zlen);
		size_t n = glen + zlen;
		unsigned char *member = xmalloc(n);
		memcpy(member, gz, glen);
		memcpy(member + glen, end, zlen);
		ck_assert_uint_lt(n, blen);
		z_stream z;
		memset(&z, 0, sizeof(z));
		ck_assert_int_eq(inflateInit2(&z, 16 + 15), Z_OK);   /* gzip only */
		char *out = xmalloc(blen + tlen + 1);
		z.next_in = member;
		z.avail_in = (uInt)n;
		z.next_out = (Bytef *)out;
		z.avail_out = (uInt)(blen + tlen + 1);
		/* Z_STREAM_END: the trailer's CRC and length were checked. */
		ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
		ck_assert_uint_eq(z.total_out, blen + tlen);
		ck_assert_uint_eq(z.avail_in, 0);
		ck_assert(!memcmp(out, body, blen) && !memcmp(out + blen, tail, tlen));
		inflateEnd(&z);
		free(out);
		free(member);
		free(end);
		free(tail);
	}
	export_state_put(st);
	export_hub_free(h);
}
END_TEST

/* With the renderer, a published state becomes current only once it is
 * rendered in the formats scrapes asked for: a scrape never renders. */
START_TEST(test_render_ahead)
{
	struct export_hub *h = export_hub_new(&model, SNAP_CPU);
	ck_assert_int_eq(export_hub_render_ahead(h), 0);
	export_hub_wants(h, EXPORT_OPENMETRICS, true);
	export_hub_wants(h, EXPORT_TEXT, false);
	for (int k = 1; k <= 3; k++) {
		export_hub_publish(h, make_snap(k));
		struct export_state *st = NULL;
		for (int i = 0; i < 2000; i++) {
			st = export_hub_get(h);
			size_t n;
			const char *at = st ? strstr(export_state_body(st, EXPORT_TEXT, &n), "\npmctop_intervals_total ") : NULL;
			if (at && atoi(at + 24) == k)
				break;
			export_state_put(st);
			st = NULL;
			usleep(1000);
		}
		ck_assert_msg(st != NULL, "interval %d never became current", k);
		ck_assert(export_state_ready(st, EXPORT_OPENMETRICS, true));
		ck_assert(!export_state_ready(st, EXPORT_TEXT, true));
		export_state_put(st);
	}
	export_hub_free(h);
}
END_TEST

static const struct {
	int line;
	const char *header;
	bool gzip;
} encodings[] = {
	{ __LINE__, NULL, false },
	{ __LINE__, "", false },
	{ __LINE__, "gzip", true },
	{ __LINE__, "deflate, gzip;q=0.5", true },
	{ __LINE__, "GZIP", true },
	{ __LINE__, "gzip;q=0", false },
	{ __LINE__, "*", true },
	{ __LINE__, "*, gzip;q=0", false },
	{ __LINE__, "identity", false },
	{ __LINE__, "br, x-gzip", true },
};

START_TEST(test_accepts_gzip)
{
	ck_assert_msg(export_accepts_gzip(encodings[_i].header) == encodings[_i].gzip, "line %d",
		      encodings[_i].line);
}
END_TEST

START_TEST(test_label_escaping)
{
	static struct parsed p;
	scrape(SNAP_CPU, 1, EXPORT_OPENMETRICS, &p);
	/* The parser unescapes; the value must come back byte for byte. */
	const struct sample *s = find(&p, "pmctop_event_total", "event", WEIRD, "cpu", "0");
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 1);
}
END_TEST

START_TEST(test_openmetrics_families)
{
	static struct parsed p;
	scrape(SNAP_CPU, 2, EXPORT_OPENMETRICS, &p);
	ck_assert(p.eof);
	bool counter = false, info = false;
	for (int i = 0; i < p.nfam; i++) {
		if (!strcmp(p.fam[i], "pmctop_event"))
			counter = !strcmp(p.type[i], "counter");
		if (!strcmp(p.fam[i], "pmctop"))
			info = !strcmp(p.type[i], "info");
	}
	ck_assert(counter);
	ck_assert(info);
	ck_assert_ptr_nonnull(find(&p, "pmctop_info", "model", "test\\model", NULL, NULL));
}
END_TEST

/* --export-scope: no row narrower than the scope; events and metrics of a
 * wider scope stay at theirs. */
START_TEST(test_scopes)
{
	static struct parsed p;
	scrape(SNAP_CORE, 2, EXPORT_TEXT, &p);
	for (int i = 0; i < p.n; i++)
		ck_assert_ptr_null(label(&p.s[i], "cpu"));
	const struct sample *s = find(&p, "pmctop_event_total", "event", WEIRD, "core", "1");
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 300);
	ck_assert_ptr_nonnull(find(&p, "pmctop_event_total", "event", "l3_hit", "ccx", "0"));
	s = find(&p, "pmctop_metric_ipc", "core", "0", NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 2.5);
	scrape(SNAP_SOCKET, 1, EXPORT_TEXT, &p);
	for (int i = 0; i < p.n; i++) {
		ck_assert_ptr_null(label(&p.s[i], "cpu"));
		ck_assert_ptr_null(label(&p.s[i], "core"));
		ck_assert_ptr_null(label(&p.s[i], "ccx"));
	}
}
END_TEST

/* A scrape that holds a state keeps it while newer ones are published. */
START_TEST(test_state_outlives_publish)
{
	struct export_hub *h = export_hub_new(&model, SNAP_CPU);
	ck_assert_ptr_null(export_hub_get(h));
	export_hub_publish(h, make_snap(1));
	struct export_state *old = export_hub_get(h);
	export_hub_publish(h, make_snap(2));
	export_hub_publish(h, make_snap(3));
	size_t len;
	static struct parsed p;
	parse(export_state_body(old, EXPORT_TEXT, &len), false, &p);
	const struct sample *s = find(&p, "pmctop_intervals_total", NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_double_eq(s->v, 1);
	export_state_put(old);
	export_hub_free(h);
}
END_TEST

/* The dashboard's path (a copy of a snapshot the ring owns) exports the
 * same text as taking the snapshot, at every scope. */
/* The notice (why figures are missing, a plan that failed) is exported
 * as a count of its lines, in both formats, and 0 without one: never as
 * text in a label, which would make a series of every wording. */
START_TEST(test_notice_exported)
{
	snap_notice = "no \"PMU\" here\nthe counters cannot be planned";
	for (int f = 0; f < 2; f++) {
		static struct parsed p;
		enum export_format ef = f ? EXPORT_OPENMETRICS : EXPORT_TEXT;
		scrape(SNAP_SOCKET, 2, ef, &p);
		const struct sample *a = find(&p, "pmctop_notices", NULL, NULL, NULL, NULL);
		ck_assert_ptr_nonnull(a);
		ck_assert_double_eq(a->v, 2);
		for (int i = 0; i < p.n; i++) {
			ck_assert_ptr_null(label(&p.s[i], "text"));
			ck_assert_str_ne(p.s[i].name, "pmctop_notice_info");
		}
	}
	snap_notice = NULL;
	static struct parsed p;
	scrape(SNAP_SOCKET, 2, EXPORT_TEXT, &p);
	const struct sample *a = find(&p, "pmctop_notices", NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_double_eq(a->v, 0);
}
END_TEST

/* The copy the dashboard publishes renders as the snapshot itself, its
 * notice included. */
START_TEST(test_publish_copy)
{
	snap_notice = "hardware counters: not permitted";
	for (int sc = SNAP_CPU; sc <= SNAP_SOCKET; sc++) {
		struct export_hub *own = export_hub_new(&model, (enum snap_scope)sc);
		struct export_hub *copy = export_hub_new(&model, (enum snap_scope)sc);
		for (int k = 1; k <= 3; k++) {
			export_hub_publish(own, make_snap(k));
			struct snapshot *s = make_snap(k);
			export_hub_publish_copy(copy, s);
			snapshot_free(s);
		}
		struct export_state *a = export_hub_get(own), *b = export_hub_get(copy);
		size_t la, lb;
		const char *ta = export_state_body(a, EXPORT_OPENMETRICS, &la);
		const char *tb = export_state_body(b, EXPORT_OPENMETRICS, &lb);
		ck_assert_uint_gt(la, 1000);
		ck_assert_str_eq(ta, tb);
		export_state_put(a);
		export_state_put(b);
		export_hub_free(own);
		export_hub_free(copy);
	}
	snap_notice = NULL;
}
END_TEST

/* A tasks view: only the busiest EXPORT_TOP_TASKS processes and cgroups
 * are exported (a bounded series count however many ran), each with its
 * pid, name and cgroup as labels that come back intact, and its relative
 * error; the copy the dashboard publishes says the same. */
static void add_tasks(struct snapshot *s, int ntasks, int ncgroups)
{
	s->tasks_on = true;
	s->task_freq = 1000;
	s->ntasks = ntasks;
	s->ncgroups = ncgroups;
	s->tasks = xcalloc((size_t)ntasks, sizeof(*s->tasks));
	s->cgroups = xcalloc((size_t)ncgroups, sizeof(*s->cgroups));
	for (int k = 0; k < ntasks + ncgroups; k++) {
		struct snap_task *t = k < ntasks ? &s->tasks[k] : &s->cgroups[k - ntasks];
		t->pid = k < ntasks ? 100 + k : -1;
		t->comm = k < ntasks ? xasprintf("w\"rk\\%d", k) : NULL;
		t->cgroup = xasprintf("/slice/%d.service", k);
		t->nprocs = 1;
		t->metric = xmalloc(sizeof(double) * NM);
		t->metric_rse = xmalloc(sizeof(double) * NM);
		for (int m = 0; m < NM; m++)
			t->metric[m] = t->metric_rse[m] = NAN;
		t->metric[0] = 3.0 - 0.01 * k;
		t->metric_rse[0] = 0.02;
	}
}

START_TEST(test_tasks_bounded)
{
	static struct parsed p, q;
	struct export_hub *own = export_hub_new(&model, SNAP_CCX), *copy = export_hub_new(&model, SNAP_CCX);
	export_hub_set_tasks(own, 0, true);
	export_hub_set_tasks(copy, 0, true);
	struct snapshot *s = make_snap(1);
	add_tasks(s, 3 * EXPORT_TOP_TASKS, 2 * EXPORT_TOP_TASKS);
	export_hub_publish_copy(copy, s);
	export_hub_publish(own, s);
	struct export_state *a = export_hub_get(own), *b = export_hub_get(copy);
	size_t la, lb;
	const char *ta = export_state_body(a, EXPORT_OPENMETRICS, &la);
	const char *tb = export_state_body(b, EXPORT_OPENMETRICS, &lb);
	ck_assert_str_eq(ta, tb);
	char *om = xasprintf("%s# EOF\n", ta);
	parse(om, true, &p);
	free(om);
	parse(export_state_body(a, EXPORT_TEXT, &la), false, &q);
	ck_assert_int_eq(count_name(&p, "pmctop_task_ipc"), EXPORT_TOP_TASKS);
	ck_assert_int_eq(count_name(&p, "pmctop_cgroup_ipc"), EXPORT_TOP_TASKS);
	ck_assert_int_eq(count_name(&p, "pmctop_task_relative_error_ratio"), EXPORT_TOP_TASKS);
	ck_assert_int_eq(count_name(&q, "pmctop_task_ipc"), EXPORT_TOP_TASKS);
	/* The busiest (the first rows), with labels intact. */
	const struct sample *x = find(&p, "pmctop_task_ipc", "pid", "100", "comm", "w\"rk\\0");
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(label(x, "cgroup"), "/slice/0.service");
	ck_assert_double_eq_tol(x->v, 3.0, 1e-12);
	ck_assert_ptr_null(find(&p, "pmctop_task_ipc", "pid", "140", NULL, NULL));
	x = find(&p, "pmctop_task_relative_error_ratio", "pid", "100", NULL, NULL);
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(label(x, "metric"), "pmctop_task_ipc");
	export_state_put(a);
	export_state_put(b);
	export_hub_free(own);
	export_hub_free(copy);
}
END_TEST

/* By default per-process series carry no pid (a pid label makes new
 * series for every process that ever ran): the busiest process of each
 * name and cgroup stands for it, and --top bounds the rows. */
START_TEST(test_tasks_without_pids)
{
	static struct parsed p;
	for (int copied = 0; copied < 2; copied++) {
		struct export_hub *h = export_hub_new(&model, SNAP_CCX);
		export_hub_set_tasks(h, 4, false);
		struct snapshot *s = make_snap(1);
		add_tasks(s, 12, 6);
		/* Rows 0, 2 and 4 have one name and cgroup: one series, row 0's. */
		for (int k = 2; k <= 4; k += 2) {
			free(s->tasks[k].comm);
			free(s->tasks[k].cgroup);
			s->tasks[k].comm = xstrdup(s->tasks[0].comm);
			s->tasks[k].cgroup = xstrdup(s->tasks[0].cgroup);
		}
		if (copied) {
			export_hub_publish_copy(h, s);
			snapshot_free(s);
		} else {
			export_hub_publish(h, s);
		}
		struct export_state *st = export_hub_get(h);
		size_t len;
		parse(export_state_body(st, EXPORT_TEXT, &len), false, &p);
		ck_assert_int_eq(count_name(&p, "pmctop_task_ipc"), 4);
		ck_assert_int_eq(count_name(&p, "pmctop_cgroup_ipc"), 4);
		for (int i = 0; i < p.n; i++)
			ck_assert_ptr_null(label(&p.s[i], "pid"));
		const struct sample *x = find(&p, "pmctop_task_ipc", "comm", "w\"rk\\0", NULL, NULL);
		ck_assert_ptr_nonnull(x);
		ck_assert_double_eq_tol(x->v, 3.0, 1e-12);
		ck_assert_ptr_nonnull(find(&p, "pmctop_task_ipc", "comm", "w\"rk\\5", NULL, NULL));
		ck_assert_ptr_null(find(&p, "pmctop_task_ipc", "comm", "w\"rk\\6", NULL, NULL));
		export_state_put(st);
		export_hub_free(h);
	}
}
END_TEST

/* Every metric of every model in events/ gets a family name of its own
 * (the prefix pmctop_metric_ is theirs alone): two metrics whose names
 * differ only by a unit abbreviation ("x_bw" in GB/s, "x" in MB/s) would
 * otherwise make one family twice, which Prometheus rejects. */
START_TEST(test_metric_names_unique_in_every_model)
{
	struct model_info *models = NULL;
	char *cause = NULL;
	int n = model_list(TOP_SRCDIR "/events", &models, &cause);
	ck_assert_msg(n > 0, "%s", cause ? cause : "no models");
	for (int k = 0; k < n; k++) {
		struct model *m = fx_model(models[k].dir);
		char **names = xcalloc((size_t)m->nmetrics + 1, sizeof(char *));
		for (int i = 0; i < m->nmetrics; i++) {
			names[i] = export_metric_name(&m->metrics[i]);
			for (const char *c = names[i]; *c; c++)
				ck_assert_msg(isalnum((unsigned char)*c) || *c == '_', "%s: bad name %s", m->name, names[i]);
			/* The name says the value's base unit, never the model's:
			 * a clock in Hz is no "ghz" family. */
			ck_assert_msg(!strstr(names[i], "ghz") && !strstr(names[i], "mhz"), "%s: %s names a unit it is not in",
				      m->name, names[i]);
			const char *unit = m->metrics[i].unit ? m->metrics[i].unit : "";
			if (!strcmp(unit, "GHz"))
				ck_assert_msg(strstr(names[i], "clock_hertz"), "%s: %s", m->name, names[i]);
			/* A figure per second over the interval is the rate() of
			 * counters exported anyway, so it has no gauge; a ratio of
			 * counts keeps its gauge. */
			bool rate = !strcmp(unit, "/s") || !strcmp(unit, "GB/s") || !strcmp(unit, "MB/s") ||
				    !strcmp(unit, "W") || !strcmp(unit, "GFLOP/s");
			if (!rate)
				ck_assert_msg(!export_metric_duplicated(&m->metrics[i]), "%s: %s", m->name, names[i]);
			if (rate && m->metrics[i].formula && strstr(m->metrics[i].formula, "interval_s"))
				ck_assert_msg(export_metric_duplicated(&m->metrics[i]), "%s: %s", m->name, names[i]);
			for (int j = 0; j < i; j++)
				ck_assert_msg(strcmp(names[i], names[j]), "%s: metrics %s and %s are both %s", m->name,
					      m->metrics[j].name, m->metrics[i].name, names[i]);
		}
		int ghz = model_find_metric(m, "ghz"), task_ghz = model_find_metric(m, "task_ghz");
		if (ghz >= 0)
			ck_assert_str_eq(names[ghz], "pmctop_metric_clock_hertz");
		if (task_ghz >= 0)
			ck_assert_str_eq(names[task_ghz], "pmctop_metric_task_clock_hertz");
		for (int i = 0; i < m->nmetrics; i++)
			free(names[i]);
		free(names);
		model_free(m);
	}
	model_list_free(models, n);
}
END_TEST

static const struct {
	int line;
	const char *accept;
	enum export_format want;
} accepts[] = {
	{ __LINE__, NULL, EXPORT_TEXT },
	{ __LINE__, "", EXPORT_TEXT },
	{ __LINE__, "*/*", EXPORT_TEXT },
	{ __LINE__, "text/plain;version=0.0.4", EXPORT_TEXT },
	{ __LINE__, "application/openmetrics-text", EXPORT_OPENMETRICS },
	/* What Prometheus sends. */
	{ __LINE__, "application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,"
		    "text/plain;version=0.0.4;q=0.3,*/*;q=0.2", EXPORT_OPENMETRICS },
	{ __LINE__, "text/plain;q=0.9, application/openmetrics-text; version=1.0.0; q=0.5", EXPORT_TEXT },
	{ __LINE__, "application/openmetrics-text;q=0, */*", EXPORT_TEXT },
	{ __LINE__, " Application/OpenMetrics-Text ; q=1", EXPORT_OPENMETRICS },
	/* q outside 0..1 counts as its nearest bound; NaN as 0. */
	{ __LINE__, "application/openmetrics-text;q=1e999, text/plain", EXPORT_OPENMETRICS },
	{ __LINE__, "text/plain;q=0.5, application/openmetrics-text;q=nan", EXPORT_TEXT },
	{ __LINE__, "text/plain;q=inf, application/openmetrics-text", EXPORT_OPENMETRICS },
	{ __LINE__, "application/openmetrics-text;q=-1, text/plain;q=0.1", EXPORT_TEXT },
};

START_TEST(test_negotiate)
{
	ck_assert_msg(export_negotiate(accepts[_i].accept) == accepts[_i].want, "line %d: '%s'",
		      accepts[_i].line, accepts[_i].accept ? accepts[_i].accept : "(none)");
}
END_TEST

/* What the HTTP server answers, decided without a socket. */
static const struct {
	int line;
	const char *method, *url, *accept;
	unsigned code;
	bool metrics;
	enum export_format format;
} routes[] = {
	{ __LINE__, "GET", "/metrics", NULL, 200, true, EXPORT_TEXT },
	{ __LINE__, "HEAD", "/metrics", "application/openmetrics-text", 200, true, EXPORT_OPENMETRICS },
	{ __LINE__, "GET", "/metrics?name[]=x", "text/plain", 200, true, EXPORT_TEXT },
	{ __LINE__, "GET", "/", NULL, 200, false, EXPORT_TEXT },
	{ __LINE__, "GET", "/?x", NULL, 200, false, EXPORT_TEXT },
	{ __LINE__, "GET", "/metrics/", NULL, 404, false, EXPORT_TEXT },
	{ __LINE__, "GET", "/metricsx", NULL, 404, false, EXPORT_TEXT },
	{ __LINE__, "GET", "", NULL, 404, false, EXPORT_TEXT },
	{ __LINE__, "GET", NULL, NULL, 404, false, EXPORT_TEXT },
	{ __LINE__, "get", "/metrics", NULL, 405, false, EXPORT_TEXT },
	{ __LINE__, "POST", "/metrics", NULL, 405, false, EXPORT_TEXT },
	{ __LINE__, "DELETE", "/", NULL, 405, false, EXPORT_TEXT },
	{ __LINE__, NULL, "/metrics", NULL, 405, false, EXPORT_TEXT },
};

START_TEST(test_route)
{
	struct export_route r;
	export_route(routes[_i].method, routes[_i].url, routes[_i].accept, &r);
	ck_assert_msg(r.code == routes[_i].code && r.metrics == routes[_i].metrics,
		      "line %d: %u %d", routes[_i].line, r.code, r.metrics);
	if (r.metrics)
		ck_assert_int_eq(r.format, routes[_i].format);
	else
		ck_assert_ptr_nonnull(r.text);
}
END_TEST

static const struct {
	int line;
	const char *arg;
	int family, port;
	const char *addr;    /* NULL: rejected */
} listens[] = {
	{ __LINE__, "9465", AF_INET, 9465, "127.0.0.1" },
	{ __LINE__, "0.0.0.0:80", AF_INET, 80, "0.0.0.0" },
	{ __LINE__, "[::1]:9465", AF_INET6, 9465, "::1" },
	{ __LINE__, "[::]:1", AF_INET6, 1, "::" },
	{ __LINE__, "0", 0, 0, NULL },
	{ __LINE__, "65536", 0, 0, NULL },
	/* Host names go through the resolver: localhost is in /etc/hosts. */
	{ __LINE__, "localhost:9465", AF_INET, 9465, "127.0.0.1" },
	{ __LINE__, "no-such-host.invalid:9465", 0, 0, NULL },
	{ __LINE__, "localhost:0", 0, 0, NULL },
	{ __LINE__, ":9465", 0, 0, NULL },
	{ __LINE__, "::1:9465", 0, 0, NULL },
	{ __LINE__, "[::1]9465", 0, 0, NULL },
	{ __LINE__, "1.2.3.4:", 0, 0, NULL },
	{ __LINE__, "", 0, 0, NULL },
};

START_TEST(test_listen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char *cause = NULL;
	int rc = export_parse_listen(listens[_i].arg, &ss, &len, &cause);
	if (!listens[_i].addr) {
		ck_assert_msg(rc < 0 && cause && strstr(cause, "--listen"), "line %d: '%s' accepted",
			      listens[_i].line, listens[_i].arg);
		free(cause);
		return;
	}
	ck_assert_msg(rc == 0, "line %d: %s", listens[_i].line, cause);
	ck_assert_int_eq(ss.ss_family, listens[_i].family);
	char txt[INET6_ADDRSTRLEN];
	int port;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &a->sin_addr, txt, sizeof(txt));
		port = ntohs(a->sin_port);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &a->sin6_addr, txt, sizeof(txt));
		port = ntohs(a->sin6_port);
	}
	ck_assert_str_eq(txt, listens[_i].addr);
	ck_assert_int_eq(port, listens[_i].port);
}
END_TEST

START_TEST(test_scope_parse)
{
	ck_assert_int_eq(export_scope_parse("cpu"), SNAP_CPU);
	ck_assert_int_eq(export_scope_parse("core"), SNAP_CORE);
	ck_assert_int_eq(export_scope_parse("ccx"), SNAP_CCX);
	ck_assert_int_eq(export_scope_parse("socket"), SNAP_SOCKET);
	ck_assert_int_eq(export_scope_parse("system"), -1);
	ck_assert_int_eq(export_scope_parse("thread"), -1);
}
END_TEST

/* libmicrohttpd is loaded when the server starts: the installed library
 * gives every function pmctop calls; one that cannot be loaded is refused
 * with what to install, not a crash at the first request. */
START_TEST(test_mhd_loaded_on_demand)
{
	char *cause = NULL;
	ck_assert_ptr_null(mhd_dl_load("libpmctop-no-such-httpd.so.12", &cause));
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "libmicrohttpd") && strstr(cause, "apt-get install libmicrohttpd12") &&
		      strstr(cause, "libpmctop-no-such-httpd.so.12"), "%s", cause);
	free(cause);
	cause = NULL;
	const struct mhd_api *api = mhd_dl_load(MHD_DL_SONAME, &cause);
	ck_assert_msg(api != NULL, "%s", cause ? cause : "?");
	ck_assert_ptr_nonnull(api->start_daemon);
	ck_assert_ptr_nonnull(api->set_connection_option);
	ck_assert_ptr_eq(mhd_dl_load(MHD_DL_SONAME, NULL), api);
}
END_TEST

/* Outside a service manager nothing is sent; an address pmctop does not
 * speak is left alone; a socket that is not there is an error, not a hang.
 * (tests/e2e_install.sh receives READY=1 and STOPPING=1 at a path and at
 * an abstract address.) */
START_TEST(test_service_notify_without_manager)
{
	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(service_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	ck_assert_int_eq(service_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "/nonexistent/pmctop-notify", 1);
	ck_assert_int_lt(service_notify("READY=1"), 0);
	unsetenv("NOTIFY_SOCKET");
}
END_TEST

/* READY=1 waits for the first interval to be served (with the renderer,
 * until it is current), and is said once. */
START_TEST(test_ready_when_served)
{
	char path[] = "/tmp/pmctop-notify-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(path));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", path);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	struct export_hub *h = export_hub_new(&model, SNAP_CPU);
	ck_assert_int_eq(export_hub_render_ahead(h), 0);
	export_hub_when_served(h, xstrdup("READY=1"));
	char buf[64];
	ck_assert_int_lt(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), 0);
	export_hub_publish(h, make_snap(1));
	ssize_t n = -1;
	for (int i = 0; i < 2000 && n < 0; i++) {
		n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0)
			usleep(1000);
	}
	ck_assert_int_eq((int)n, 7);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "READY=1");
	struct export_state *st = export_hub_get(h);
	ck_assert_msg(st != NULL, "READY=1 before the interval was current");
	export_state_put(st);
	export_hub_publish(h, make_snap(2));
	usleep(50000);
	ck_assert_int_lt(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), 0);
	export_hub_free(h);
	unsetenv("NOTIFY_SOCKET");
	close(fd);
	unlink(sa.sun_path);
	rmdir(path);
}
END_TEST

/* The connection cap follows the descriptor limit (systemd's default soft
 * limit of 1,024 held 1,200 connections before), and a client's share is
 * a sixteenth of it; IPv6 clients of one /64 share theirs. */
START_TEST(test_conn_limits)
{
	int cap, per;
	export_conns_limits(1024, 20, &cap, &per);
	ck_assert_int_eq(cap, 1024 - 20 - EXPORT_CONNS_FD_RESERVE);
	ck_assert_int_eq(per, cap / 16);
	export_conns_limits(1L << 20, 5000, &cap, &per);
	ck_assert_int_eq(cap, EXPORT_CONNS_CEILING);
	ck_assert_int_eq(per, EXPORT_CONNS_PER_CLIENT_MAX);
	export_conns_limits(100, 90, &cap, &per);
	ck_assert_int_eq(cap, 0);
	ck_assert_int_eq(per, EXPORT_CONNS_PER_CLIENT_MIN);
	int in_use;
	long nofile = export_conns_raise_nofile(&in_use);
	ck_assert_int_gt(in_use, 2);
	ck_assert_int_gt(nofile, in_use);

	struct export_conns *c = export_conns_new(cap);
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 }, b = a;
	inet_pton(AF_INET6, "2001:db8:5:6::1", &a.sin6_addr);
	inet_pton(AF_INET6, "2001:db8:5:6:ffff::9", &b.sin6_addr);
	for (int i = 0; i < 3; i++) {
		ck_assert(export_conns_admit(c, (struct sockaddr *)&a, 4));
		export_conns_add(c, (struct sockaddr *)&a, 1);
	}
	ck_assert(export_conns_admit(c, (struct sockaddr *)&b, 4));
	export_conns_add(c, (struct sockaddr *)&b, 1);
	ck_assert(!export_conns_admit(c, (struct sockaddr *)&a, 4));
	ck_assert(!export_conns_admit(c, (struct sockaddr *)&b, 4));
	export_conns_add(c, (struct sockaddr *)&a, -1);
	ck_assert(export_conns_admit(c, (struct sockaddr *)&b, 4));
	/* IPv4 addresses count one by one. */
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	v4.sin_addr.s_addr = htonl(0x7f000002);
	ck_assert(export_conns_admit(c, (struct sockaddr *)&v4, 1));
	export_conns_add(c, (struct sockaddr *)&v4, 1);
	ck_assert(!export_conns_admit(c, (struct sockaddr *)&v4, 1));
	v4.sin_addr.s_addr = htonl(0x7f000003);
	ck_assert(export_conns_admit(c, (struct sockaddr *)&v4, 1));
	export_conns_free(c);
}
END_TEST

static struct sockaddr_in loopback(uint32_t host)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(0x7f000000u | host);
	return a;
}

/* A client that holds no connection is admitted whoever else is at their
 * share: the flood of e2e_export_secure.sh (127.0.0.2-11 at their share)
 * against its clean scraper (127.0.0.12), in 2,000 servers, each keyed
 * afresh. Counted in 4,096 hashed slots, the scraper shared a flooder's
 * slot in about 1 server in 400. */
START_TEST(test_conn_clients_exact)
{
	for (int run = 0; run < 2000; run++) {
		struct export_conns *c = export_conns_new(64);
		for (uint32_t h = 2; h <= 11; h++) {
			struct sockaddr_in a = loopback(h);
			for (int i = 0; i < 4; i++)
				export_conns_add(c, (struct sockaddr *)&a, 1);
			ck_assert(!export_conns_admit(c, (struct sockaddr *)&a, 4));
		}
		struct sockaddr_in clean = loopback(12);
		ck_assert_msg(export_conns_admit(c, (struct sockaddr *)&clean, 4), "server %d refused a client with no connection", run);
		export_conns_free(c);
	}
}
END_TEST

/* As many clients as the table is meant for (twice the cap), each its own
 * count; half of them leave in a scrambled order and the rest keep
 * theirs (entries moved back over a freed slot stay findable). */
START_TEST(test_conn_clients_churn)
{
	enum { CAP = 1000, N = 2 * CAP };
	struct export_conns *c = export_conns_new(CAP);
	for (uint32_t i = 0; i < N; i++) {
		struct sockaddr_in a = loopback(1000 + i);
		for (uint32_t k = 0; k <= i % 3; k++)
			export_conns_add(c, (struct sockaddr *)&a, 1);
	}
	/* Client i holds i % 3 + 1: admitted below that plus one, refused at it. */
	for (uint32_t i = 0; i < N; i++) {
		struct sockaddr_in a = loopback(1000 + i);
		int held = (int)(i % 3) + 1;
		ck_assert_msg(export_conns_admit(c, (struct sockaddr *)&a, held + 1), "client %u", i);
		ck_assert_msg(!export_conns_admit(c, (struct sockaddr *)&a, held), "client %u", i);
	}
	/* Every odd client leaves, in an order scrambled by a stride prime to N. */
	for (uint32_t n = 0; n < N; n++) {
		uint32_t i = (n * 7919u) % N;
		if (i % 2 == 0)
			continue;
		struct sockaddr_in a = loopback(1000 + i);
		for (uint32_t k = 0; k <= i % 3; k++)
			export_conns_add(c, (struct sockaddr *)&a, -1);
	}
	for (uint32_t i = 0; i < N; i++) {
		struct sockaddr_in a = loopback(1000 + i);
		bool stayed = i % 2 == 0;
		ck_assert_msg(export_conns_admit(c, (struct sockaddr *)&a, 1) != stayed, "client %u", i);
		if (stayed)
			ck_assert_msg(!export_conns_admit(c, (struct sockaddr *)&a, (int)(i % 3) + 1), "client %u", i);
	}
	/* A close with nothing open counts for nothing. */
	struct sockaddr_in gone = loopback(1001);
	export_conns_add(c, (struct sockaddr *)&gone, -1);
	export_conns_add(c, (struct sockaddr *)&gone, 1);
	ck_assert(!export_conns_admit(c, (struct sockaddr *)&gone, 1));
	ck_assert(export_conns_admit(c, (struct sockaddr *)&gone, 2));
	export_conns_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");
	tcase_add_test(tc, test_counters_sum_intervals);
	tcase_add_test(tc, test_gauges_and_units);
	tcase_add_test(tc, test_label_escaping);
	tcase_add_test(tc, test_openmetrics_families);
	tcase_add_test(tc, test_scopes);
	tcase_add_test(tc, test_state_outlives_publish);
	tcase_add_test(tc, test_publish_copy);
	tcase_add_test(tc, test_notice_exported);
	tcase_add_test(tc, test_tasks_bounded);
	tcase_add_test(tc, test_tasks_without_pids);
	tcase_add_test(tc, test_help_base_units);
	tcase_add_test(tc, test_gzip_response);
	tcase_add_test(tc, test_render_ahead);
	tcase_add_loop_test(tc, test_accepts_gzip, 0, (int)ARRAY_SIZE(encodings));
	tcase_add_test(tc, test_metric_names_unique_in_every_model);
	tcase_add_loop_test(tc, test_negotiate, 0, (int)ARRAY_SIZE(accepts));
	tcase_add_loop_test(tc, test_route, 0, (int)ARRAY_SIZE(routes));
	tcase_add_loop_test(tc, test_listen, 0, (int)ARRAY_SIZE(listens));
	tcase_add_test(tc, test_scope_parse);
	tcase_add_test(tc, test_conn_limits);
	tcase_add_test(tc, test_conn_clients_exact);
	tcase_add_test(tc, test_conn_clients_churn);
	tcase_add_test(tc, test_mhd_loaded_on_demand);
	tcase_add_test(tc, test_service_notify_without_manager);
	tcase_add_test(tc, test_ready_when_served);
	suite_add_tcase(s, tc);
	return check_run(s);
}
