/* check_output.c: the batch writers on a hand-built snapshot with known
 * values: what each format prints, NaN shown as "-" / empty / null, one CSV
 * header, coverage carried, SIMULATED labelled. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "format.h"
#include "output_impl.h"
#include <time.h>
#include <stdint.h>

enum { NM = 2, NE = 1, NCPU = 2 };

struct fixture {
	struct model model;
	struct metric_def metrics[NM];
	struct event_def events[NE];
	struct snapshot snap;
	struct snap_row cpu_rows[NCPU], ccx_row, sys_row;
	double vals[NCPU + 2][6][NM + NE];
};

static void fill_row(struct snap_row *r, double (*v)[NM + NE], int id, double ipc, double hit,
		     double cov, double ev)
{
	r->id = id; r->cpu = id; r->core = id; r->ccx = 0; r->socket = 0; r->ncpus = 1;
	r->mv = v[0]; r->mcov = v[1]; r->ev = v[2]; r->ecov = v[3];
	r->mrse = v[4]; r->erse = v[5];
	r->mv[0] = ipc; r->mv[1] = hit;
	r->mcov[0] = cov; r->mcov[1] = isnan(hit) ? NAN : cov;
	r->ev[0] = ev; r->ecov[0] = cov;
	/* Exact where fully covered, 8 % (marked '~': +-15.7 % at 95 %) at
	 * half; no uncertainty where there is no value. */
	for (int k = 0; k < NM; k++)
		r->mrse[k] = isnan(r->mv[k]) ? NAN : cov >= 1 ? 0 : 0.08;
	r->erse[0] = cov >= 1 ? 0 : 0.08;
}

static void build(struct fixture *f, bool simulated)
{
	memset(f, 0, sizeof(*f));
	f->metrics[0] = (struct metric_def){ .name = (char *)"ipc", .label = (char *)"IPC",
					     .unit = (char *)"insn/cyc" };
	f->metrics[1] = (struct metric_def){ .name = (char *)"l3_hit_rate", .label = (char *)"L3hit",
					     .unit = (char *)"ratio" };
	f->events[0] = (struct event_def){ .name = (char *)"ex_ret_instr" };
	f->model = (struct model){ .name = (char *)"test-model", .nmetrics = NM, .metrics = f->metrics,
				   .nevents = NE, .events = f->events };
	fill_row(&f->cpu_rows[0], f->vals[0], 0, 1.5, 0.25, 1.0, 2000.0);
	fill_row(&f->cpu_rows[1], f->vals[1], 1, NAN, NAN, 0.5, 1000.0);
	fill_row(&f->ccx_row, f->vals[2], 0, 1.25, 0.75, 0.5, 3000.0);
	f->ccx_row.cpu = -1; f->ccx_row.core = -1; f->ccx_row.ncpus = 2;
	fill_row(&f->sys_row, f->vals[3], 0, 1.25, 0.75, 0.5, 3000.0);
	f->sys_row.cpu = -1; f->sys_row.core = -1; f->sys_row.ccx = -1; f->sys_row.socket = -1;
	f->sys_row.ncpus = 2;
	f->snap = (struct snapshot){ .seq = 1, .time = 1700000000.0, .measured_s = 2.0,
				     .simulated = simulated, .model = &f->model, .nmetrics = NM,
				     .nevents = NE };
	f->snap.nrows[SNAP_CPU] = NCPU; f->snap.rows[SNAP_CPU] = f->cpu_rows;
	f->snap.nrows[SNAP_CCX] = 1; f->snap.rows[SNAP_CCX] = &f->ccx_row;
	f->snap.nrows[SNAP_SYSTEM] = 1; f->snap.rows[SNAP_SYSTEM] = &f->sys_row;
}

/* Writes the snapshot `times` times in format fmt and returns the text. */
static char *render(struct fixture *f, enum output_format fmt, int times)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	static const int cols[] = { 0, 1 }, evcols[] = { 0 };
	struct output_opts oo = { .format = fmt, .ncols = NM, .cols = cols, .nevcols = NE,
				  .evcols = evcols, .show_ccx = true, .host = "db-7" };
	struct output *o = output_new(mf, &oo);
	for (int i = 0; i < times; i++)
		ck_assert_int_eq(output_write(o, &f->snap), 0);
	output_free(o);
	fclose(mf);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

START_TEST(test_table)
{
	struct fixture f;
	build(&f, true);
	char *t = render(&f, OUT_TABLE, 1);
	ck_assert_msg(strstr(t, "SIMULATED"), "%s", t);
	ck_assert_msg(strstr(t, "IPC"), "%s", t);
	ck_assert_msg(strstr(t, "L3hit%"), "%s", t);        /* ratio heading */
	ck_assert_msg(strstr(t, "25.0"), "%s", t);          /* 0.25 shown as 25.0 % */
	ck_assert_msg(strstr(t, "1.50"), "%s", t);
	ck_assert_msg(strstr(t, "ccx0"), "%s", t);
	ck_assert_msg(strstr(t, "\nall "), "%s", t);
	/* CPU 1: NaN IPC and hit shown as "-", never 0; coverage 50 %. */
	const char *row1 = strstr(t, "\n1 ");
	ck_assert_ptr_nonnull(row1);
	ck_assert_msg(strstr(row1, "        -         -") != NULL, "%s", row1);
	ck_assert_msg(strstr(row1, "   50\n") != NULL, "%s", row1);
	/* Extra event: 1000 per 2 s interval = 500/s, uncertain: '~'. */
	ck_assert_msg(strstr(row1, "~500") != NULL, "%s", row1);
	/* Headings carry their unit, and are never cut at the start. */
	ck_assert_msg(strstr(t, "ex_ret_instr/s"), "%s", t);
	/* CPU 0 is exact: no '~' anywhere in its row. */
	const char *row0 = strstr(t, "\n0 ");
	ck_assert_ptr_nonnull(row0);
	ck_assert_msg(memchr(row0, '~', (size_t)(row1 - row0)) == NULL, "%s", row0);
	free(t);
	build(&f, false);
	t = render(&f, OUT_TABLE, 1);
	ck_assert(!strstr(t, "SIMULATED"));
	free(t);
	/* The CPUs offline and back, each on its line between the
	 * interval's line and the headings. */
	int off[] = { 3, 12 }, back[] = { 5 };
	f.snap.offline = off;
	f.snap.noffline = 2;
	f.snap.returning = back;
	f.snap.nreturning = 1;
	t = render(&f, OUT_TABLE, 2);
	ck_assert_int_eq(count(t, "  model test-model\n# CPU 3 offline\n# CPU 12 offline\n"
				  "# CPU 5 back online, counted from the next interval\nCPU      core  ccx sock "), 2);
	free(t);
}
END_TEST

START_TEST(test_csv)
{
	struct fixture f;
	build(&f, false);
	char *t = render(&f, OUT_CSV, 2);
	/* The host is a column of every line, so that the outputs of
	 * several machines can be concatenated and still told apart. */
	ck_assert_int_eq(count(t, "time,interval_s,simulated,host,scope,id,cpu,core,ccx,socket,ipc,"
				  "l3_hit_rate,ex_ret_instr_per_s,ipc_coverage,l3_hit_rate_coverage,"
				  "ex_ret_instr_per_s_coverage,ipc_rse,l3_hit_rate_rse,ex_ret_instr_per_s_rse\n"), 1);
	ck_assert_msg(strstr(t, ",cpu,0,0,0,0,0,1.5,0.25,1000,1,1,1,0,0,0\n"), "%s", t);
	ck_assert_msg(strstr(t, ",cpu,1,1,1,0,0,,,500,0.5,,0.5,,,0.08\n"), "%s", t);
	ck_assert_msg(strstr(t, ",system,0,,,,,1.25,0.75,1500,0.5,0.5,0.5,0.08,0.08,0.08\n"), "%s", t);
	ck_assert_int_eq(count(t, ",ccx,0,"), 2);
	free(t);
	/* An infinite figure is empty, as the table's '-' and JSON's null:
	 * never "inf". */
	f.cpu_rows[0].mv[0] = INFINITY;
	f.cpu_rows[0].mv[1] = -INFINITY;
	t = render(&f, OUT_CSV, 2);
	ck_assert_msg(strstr(t, ",cpu,0,0,0,0,0,,,1000,1,1,1,0,0,0\n") && !strstr(t, "inf"), "%s", t);
	ck_assert_int_eq(count(t, ",0,\"db-7\",cpu,"), 4);
	/* Every line has the header's number of fields. */
	char *save = NULL, *line = strtok_r(t, "\n", &save);
	int want = count(line, ",");
	while ((line = strtok_r(NULL, "\n", &save)))
		ck_assert_int_eq(count(line, ","), want);
	free(t);
}
END_TEST

START_TEST(test_json)
{
	struct fixture f;
	build(&f, true);
	char *t = render(&f, OUT_JSON, 2);
	ck_assert_int_eq(count(t, "\n"), 2);                 /* one object per line */
	ck_assert_int_eq(count(t, "{\"time\":1700000000.000,\"interval_s\":2,\"simulated\":true,\"host\":\"db-7\","), 2);
	ck_assert_msg(strstr(t, "\"cpus\":[{\"cpu\":0,\"core\":0,\"ccx\":0,\"socket\":0,"
				"\"metrics\":{\"ipc\":1.5,\"l3_hit_rate\":0.25,\"ex_ret_instr_per_s\":1000},"
				"\"coverage\":{\"ipc\":1,\"l3_hit_rate\":1,\"ex_ret_instr_per_s\":1},"
				"\"rse\":{\"ipc\":0,\"l3_hit_rate\":0,\"ex_ret_instr_per_s\":0}}"), "%s", t);
	ck_assert_msg(strstr(t, "\"metrics\":{\"ipc\":null,\"l3_hit_rate\":null,\"ex_ret_instr_per_s\":500}"),
		      "%s", t);
	/* The same field names as the CSV header, each with its unit. */
	ck_assert_msg(strstr(t, "\"units\":{\"ipc\":\"insn/cyc\",\"l3_hit_rate\":\"ratio\","
				"\"ex_ret_instr_per_s\":\"/s\"}"), "%s", t);
	ck_assert_msg(strstr(t, "\"ccxs\":[{\"ccx\":0,\"socket\":0,\"ncpus\":2,"), "%s", t);
	ck_assert_msg(strstr(t, "\"system\":{\"ncpus\":2,\"metrics\":{\"ipc\":1.25"), "%s", t);
	ck_assert_msg(strstr(t, "\"sockets\":[]"), "%s", t);
	free(t);
}
END_TEST

/* What JSON makes once and keeps (the escaped notice, the planned events
 * of event_coverage) follows each interval's snapshot: a notice that
 * changes or goes, an event no longer planned, are written as they are
 * in that interval, never as the last one's. A +0 and a -0 stay apart
 * (figures of 0 are written without format_g6), in CSV too. */
/* needle is in hay before end. */
static bool found_before(const char *hay, const char *needle, const char *end)
{
	const char *at = strstr(hay, needle);
	return at && at < end;
}

START_TEST(test_json_follows)
{
	struct fixture f;
	build(&f, false);
	bool planned[NE] = { true };
	f.snap.event_planned = planned;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	static const int cols[] = { 0, 1 }, evcols[] = { 0 };
	struct output_opts oo = { .format = OUT_JSON, .ncols = NM, .cols = cols, .nevcols = NE,
				  .evcols = evcols, .host = "h\"q" };
	struct output *o = output_new(mf, &oo);
	char notice[16];
	strcpy(notice, "one\ttwo");
	f.snap.notice = notice;
	ck_assert_int_eq(output_write(o, &f.snap), 0);
	strcpy(notice, "three");   /* the same pointer, another text */
	f.sys_row.ecov[0] = -0.0;
	ck_assert_int_eq(output_write(o, &f.snap), 0);
	f.snap.notice = NULL;
	planned[0] = false;
	ck_assert_int_eq(output_write(o, &f.snap), 0);
	output_free(o);
	fclose(mf);
	char *l2 = strchr(buf, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
	ck_assert_msg(found_before(buf, "\"host\":\"h\\\"q\",\"model\":\"test-model\",\"rotate_ms\":null,"
				  "\"rotation\":\"kernel\",\"notice\":\"one\\u0009two\",\"units\":", l2),
		      "%s", buf);
	ck_assert_msg(found_before(buf, "\"event_coverage\":{\"ex_ret_instr\":0.5}", l2), "%s", buf);
	ck_assert_msg(found_before(l2, "\"notice\":\"three\",\"units\"", l3), "%s", l2);
	ck_assert_msg(found_before(l2, "\"event_coverage\":{\"ex_ret_instr\":-0}", l3), "%s", l2);
	ck_assert_msg(!strstr(l3, "notice") && strstr(l3, "\"event_coverage\":{},"), "%s", l3);
	free(buf);
	/* CSV: the -0 of a coverage, the +0 of an error. */
	f.snap.notice = NULL;
	f.cpu_rows[0].mcov[0] = -0.0;
	char *t = render(&f, OUT_CSV, 1);
	ck_assert_msg(strstr(t, ",cpu,0,0,0,0,0,1.5,0.25,1000,-0,1,1,0,0,0\n"), "%s", t);
	free(t);
	/* A row without errors at all (NULL arrays): empty fields, nulls. */
	f.cpu_rows[1].mrse = f.cpu_rows[1].erse = NULL;
	t = render(&f, OUT_CSV, 1);
	ck_assert_msg(strstr(t, ",cpu,1,1,1,0,0,,,500,0.5,,0.5,,,\n"), "%s", t);
	free(t);
	t = render(&f, OUT_JSON, 1);
	ck_assert_msg(strstr(t, "\"rse\":{\"ipc\":null,\"l3_hit_rate\":null,\"ex_ret_instr_per_s\":null}}]"), "%s", t);
	free(t);
	/* No length measured: no event rate, in either. */
	f.snap.measured_s = 0;
	t = render(&f, OUT_CSV, 1);
	ck_assert_msg(strstr(t, ",cpu,0,0,0,0,0,1.5,0.25,,-0,1,1,0,0,0\n"), "%s", t);
	free(t);
	t = render(&f, OUT_JSON, 1);
	ck_assert_msg(strstr(t, "\"metrics\":{\"ipc\":1.5,\"l3_hit_rate\":0.25,\"ex_ret_instr_per_s\":null}"), "%s", t);
	free(t);
}
END_TEST

/* Which scopes' rows each writer writes (output_scopes): what decides
 * whose errors batch output has found with each interval. */
START_TEST(test_written_scopes)
{
	bool w[SNAP_NSCOPES];
	struct output_opts o = { .format = OUT_TABLE, .show_ccx = true };
	output_scopes(&o, w);
	ck_assert(w[SNAP_CPU] && !w[SNAP_CORE] && w[SNAP_CCX] && !w[SNAP_SOCKET] && w[SNAP_SYSTEM]);
	o.show_ccx = false;
	output_scopes(&o, w);
	ck_assert(w[SNAP_CPU] && !w[SNAP_CCX] && w[SNAP_SYSTEM]);
	o.tasks = true;
	output_scopes(&o, w);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		ck_assert(!w[sc]);
	o.format = OUT_CSV;
	output_scopes(&o, w);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		ck_assert(!w[sc]);
	o.tasks = false;
	output_scopes(&o, w);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		ck_assert(w[sc]);
	o.format = OUT_JSON;
	o.tasks = true;
	output_scopes(&o, w);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		ck_assert(w[sc]);
}
END_TEST

START_TEST(test_format_value)
{
	char buf[32];
	struct metric_def ratio = { .name = (char *)"r", .unit = (char *)"ratio" };
	output_format_value(&ratio, NULL, 0.123, buf, sizeof(buf));
	ck_assert_str_eq(buf, "12.3");
	output_format_value(&ratio, NULL, NAN, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-");
	output_format_value(NULL, NULL, 2.5e9, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2.50G");
	output_format_value(NULL, "%.3f", 1.0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.000");
	output_format_value(NULL, NULL, 0.0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0");
	ck_assert_int_eq(output_parse_format("CSV"), OUT_CSV);
	ck_assert_int_eq(output_parse_format("yaml"), -1);
}
END_TEST

/* format_fixed writes what snprintf's "%.Nf" writes, byte for byte: exact
 * ties (rounded half to even), negative zero and tiny negatives ("-0.00"),
 * the edge of 2^53, random bit patterns, and what it leaves to snprintf
 * (a precision over 3, huge values, a short buffer). */
START_TEST(test_format_fixed)
{
	static const double edge[] = { 0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 0.005, 0.015, 0.0005,
				       -0.001, -1e-300, 4.9e-324, 1e15, 999.5, 9.995, 9007199254740991.0,
				       9007199254740992.0, 4503599627370495.5, 1e300, -1e300 };
	char got[400], want[400];
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000 + (int)(sizeof(edge) / sizeof(edge[0])); i++) {
		double v;
		if (i < (int)(sizeof(edge) / sizeof(edge[0]))) {
			v = edge[i];
		} else {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			if (i % 3 == 0)
				memcpy(&v, &x, sizeof(v));
			else if (i % 3 == 1)
				v = ldexp((double)(x % 2000001) - 1000000.0, -(int)(x >> 58));   /* ties and near ties */
			else
				v = (double)(x % 10000000) / 1000.0;
			if (!isfinite(v))
				continue;
		}
		for (int prec = 0; prec <= 4; prec++) {
			size_t n = format_fixed(got, sizeof(got), v, prec);
			snprintf(want, sizeof(want), "%.*f", prec, v);
			ck_assert_msg(!strcmp(got, want), "%a %%.%df: %s, printf %s", v, prec, got, want);
			ck_assert_uint_eq(n, strlen(want));
		}
	}
	size_t n = format_fixed(got, 5, 123.456, 2);
	ck_assert_str_eq(got, "123.");
	ck_assert_uint_eq(n, 4);
}
END_TEST

/* format_g6 writes what snprintf's "%.6g" writes, byte for byte: the
 * switch between "%f" and "%e" styles at 1e-4 and 1e6, a rounding that
 * carries into the next power of ten (999999.5, 9.999995e-5), exact
 * ties (rounded half to even), negative zero, trailing zeros removed,
 * three-digit exponents, and random bit patterns, most of them outside
 * the range it writes itself (what it leaves to snprintf). */
START_TEST(test_format_g6)
{
	static const double edge[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 999999.5, 999999.4, 9999995.0, 99999.95,
				       0.0001, 0.00009999995, 0.000099999949, 1e-5, 123456.5, 1234565.0, 1234575.0,
				       12.5, 0.30000000000000004, 100000.0, 1e6, -1e6, 1e21, 1e22, 1e-17, 1e-18,
				       1e-300, 4.9e-324, 1.7e308, -2.5e-7, 1795891809.079, 0.333333333333 };
	char got[64], want[64];
	uint64_t x = 88172645463325252ULL;
	int nedge = (int)(sizeof(edge) / sizeof(edge[0]));
	for (int i = 0; i < 500000 + nedge; i++) {
		double v;
		if (i < nedge) {
			v = edge[i];
		} else {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			switch (i % 5) {
			case 0: memcpy(&v, &x, sizeof(v)); break;
			/* ties and near ties at every scale */
			case 1: v = ldexp((double)(x % 20000001) - 10000000.0, (int)(x >> 58) - 32); break;
			case 2: v = (double)(x % 10000000) / pow(10, (double)(x >> 59)); break;
			case 3: v = (double)(x % 2000000 * 5 + 5) * pow(10, (double)((int)(x >> 58) - 40)); break;
			default: v = ldexp((double)(x >> 11), (int)(x % 200) - 130); break;
			}
			if (!isfinite(v))
				continue;
		}
		size_t n = format_g6(got, sizeof(got), v);
		snprintf(want, sizeof(want), "%.6g", v);
		ck_assert_msg(!strcmp(got, want), "%a %%.6g: %s, printf %s", v, got, want);
		ck_assert_uint_eq(n, strlen(want));
	}
	/* Each power of ten that format_g6's guess at the exponent compares
	 * with, the doubles beside it, and the figures that round up to it
	 * or just miss (9.999995, 9.9999949...) at every scale. */
	for (int e = -25; e <= 25; e++) {
		double p = pow(10, e);
		const double near[] = { p, nextafter(p, 0), nextafter(p, INFINITY), p * 0.9999995, p * 0.99999949999,
					p * 0.9999994999999, p * 0.999995, nextafter(p * 0.9999995, 0),
					nextafter(p * 0.9999995, INFINITY) };
		for (size_t j = 0; j < sizeof(near) / sizeof(near[0]); j++) {
			size_t k = format_g6(got, sizeof(got), near[j]);
			snprintf(want, sizeof(want), "%.6g", near[j]);
			ck_assert_msg(!strcmp(got, want), "%a %%.6g: %s, printf %s", near[j], got, want);
			ck_assert_uint_eq(k, strlen(want));
		}
	}
	/* Whole numbers below 1e6 take a short way (their digits): every
	 * one of them, either sign, and the first ones past it. */
	for (int i = -999999; i <= 1000010; i++) {
		double v = i;
		size_t k = format_g6(got, sizeof(got), v);
		snprintf(want, sizeof(want), "%.6g", v);
		ck_assert_msg(!strcmp(got, want), "%d %%.6g: %s, printf %s", i, got, want);
		ck_assert_uint_eq(k, strlen(want));
	}
	size_t n = format_g6(got, 5, 123.456);   /* a short buffer: cut as snprintf cuts */
	ck_assert_str_eq(got, "123.");
	ck_assert_uint_eq(n, 4);
}
END_TEST

/* output_clock gives the local time of day, through minutes kept from
 * one call to the next: the same as localtime_r at every step, across
 * minutes, a change to summer time (Berlin, 2026-03-29 01:00 UTC), one
 * back (2026-10-25 01:00 UTC), and in a zone whose offset had seconds
 * (Monrovia, -0:44:30 until 1972-01-07), going forward and back in time. */
START_TEST(test_output_clock)
{
	static const struct {
		const char *tz;
		double t0;
	} runs[] = { { "Europe/Berlin", 1774745900.0 }, { "Europe/Berlin", 1792889900.0 },
		     { "Africa/Monrovia", 63592900.0 }, { "UTC", 1000000000.0 } };
	char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		setenv("TZ", runs[k].tz, 1);
		tzset();
		for (int i = 0; i < 2000; i++) {
			/* Mostly forward by 0.1 to 0.9 s, now and then back. */
			double t = runs[k].t0 + i * 0.37 - (i % 97 == 0 ? 30 : 0);
			char got[32], want[32];
			output_clock(t, got, sizeof(got));
			time_t sec = (time_t)t;
			struct tm tm;
			localtime_r(&sec, &tm);
			snprintf(want, sizeof(want), "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
				 (int)((t - (double)sec) * 1000.0));
			ck_assert_msg(!strcmp(got, want), "%s at %.3f: %s, localtime_r %s", runs[k].tz, t, got, want);
		}
	}
	if (old)
		setenv("TZ", old, 1);
	else
		unsetenv("TZ");
	tzset();
	free(old);
}
END_TEST

/* json_put_string escapes a quote and a backslash with a backslash and
 * every other byte below 0x20 as \\u00XX, wherever they fall, and
 * leaves the rest (UTF-8 too) as it is. */
START_TEST(test_json_string)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "a\nb\nc", "\"a\\u000ab\\u000ac\"" },
		{ "\"q\"\\", "\"\\\"q\\\"\\\\\"" },
		{ "\x01\x1f\t end", "\"\\u0001\\u001f\\u0009 end\"" },
		{ "caf\xc3\xa9 \x7f", "\"caf\xc3\xa9 \x7f\"" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		json_put_string(f, cases[i].in);
		fclose(f);
		ck_assert_str_eq(buf, cases[i].out);
		free(buf);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("writers");
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_json_follows);
	tcase_add_test(tc, test_format_value);
	tcase_add_test(tc, test_format_fixed);
	tcase_add_test(tc, test_format_g6);
	tcase_add_test(tc, test_written_scopes);
	tcase_add_test(tc, test_output_clock);
	tcase_add_test(tc, test_json_string);
	/* test_format_fixed compares a million formattings with printf's: 2 s
	 * here, past Check's default 4 s on a loaded machine or under a
	 * sanitizer. */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return check_run(s);
}
