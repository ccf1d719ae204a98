/* check_fleet_parse.c: what a fleet reads (src/fleet_parse.c,
 * src/fleet_columns.c, the client config of src/fleet_http.c): Prometheus
 * answers good and bad (an error, malformed or truncated JSON, a matrix,
 * a result of the wrong shape, an error text with a newline), the
 * exporters' text format, label values, the columns file and its errors
 * (FILE:LINE), the PromQL one column definition gives, and the YAML
 * client config. Table-driven; each case names its source line. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "fleet.h"
#include "fleet_impl.h"
#include "model.h"
#include "util.h"

#define SRC_LINE __LINE__

static const struct vcase {
	int line;
	const char *body;
	int rc;             /* 0 or -1 */
	int n;              /* samples on success */
	const char *cause;  /* a part of the cause on failure */
} vcases[] = {
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"instance\":\"h1:9465\",\"metric\":\"pmctop_metric_ipc\"},\"value\":[17.5,\"1.25\"]},"
		    "{\"metric\":{\"instance\":\"h2:9465\"},\"value\":[17.5,\"NaN\"]},"
		    "{\"metric\":{\"instance\":\"h3:9465\"},\"value\":[17.5,\"+Inf\"]}]}}", 0, 3, NULL },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", 0, 0, NULL },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"2\"]}}", 0, 0, NULL },
	{ SRC_LINE, "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out in expression evaluation\"}",
	  -1, 0, "Prometheus says timeout: query timed out" },
	{ SRC_LINE, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error:\\nunexpected\"}", -1, 0,
	  "bad_data: parse error:" },
	{ SRC_LINE, "<html>502 Bad Gateway</html>", -1, 0, "not JSON" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"inst", -1, 0,
	  "not JSON" },
	{ SRC_LINE, "", -1, 0, "not JSON" },
	/* jansson's error quotes the token, here with its line break. */
	{ SRC_LINE, "\"\\\n", -1, 0, "not JSON" },
	{ SRC_LINE, "{\"data\":{}}", -1, 0, "no \"status\"" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}", -1, 0,
	  "a matrix, not an instant vector" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\"}}", -1, 0, "no data.resultType" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{}}]}}", -1, 0,
	  "result 0 is not" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,2]}]}}",
	  -1, 0, "result 0 has no value" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"x\"]}]}}",
	  -1, 0, "result 0 has no value" },
	{ SRC_LINE, "[1,2,3]", -1, 0, "no \"status\"" },
};

START_TEST(test_vector)
{
	const struct vcase *c = &vcases[_i];
	struct fleet_samples s = { 0 };
	char *cause = NULL;
	int rc = fleet_parse_vector(c->body, strlen(c->body), &s, &cause);
	ck_assert_msg(rc == c->rc, "line %d: rc %d (%s)", c->line, rc, cause ? cause : "");
	if (rc == 0) {
		ck_assert_msg(s.n == c->n, "line %d: %d samples", c->line, s.n);
	} else {
		ck_assert_msg(cause && strstr(cause, c->cause), "line %d: cause '%s'", c->line, cause ? cause : "");
		ck_assert_msg(!strchr(cause, '\n'), "line %d: cause of more than one line", c->line);
	}
	fleet_samples_done(&s);
	free(cause);
}
END_TEST

START_TEST(test_vector_values)
{
	const struct vcase *c = &vcases[0];
	struct fleet_samples s = { 0 };
	char *cause = NULL;
	ck_assert_int_eq(fleet_parse_vector(c->body, strlen(c->body), &s, &cause), 0);
	ck_assert_str_eq(s.v[0].instance, "h1:9465");
	ck_assert(s.v[0].value == 1.25 && s.v[0].time == 17.5);
	char *m = fleet_label(s.v[0].labels, "metric");
	ck_assert_str_eq(m, "pmctop_metric_ipc");
	free(m);
	ck_assert(isnan(s.v[1].value));
	ck_assert(isinf(s.v[2].value) && s.v[2].value > 0);
	fleet_samples_done(&s);
}
END_TEST

/* A label value with a quote and a backslash survives the round trip
 * from JSON to the labels string and back. */
START_TEST(test_vector_label_escapes)
{
	const char *body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			   "{\"metric\":{\"instance\":\"h\",\"model\":\"a\\\"b\\\\c\",\"x\":\"y\"},\"value\":[1,\"1\"]}]}}";
	struct fleet_samples s = { 0 };
	char *cause = NULL;
	ck_assert_int_eq(fleet_parse_vector(body, strlen(body), &s, &cause), 0);
	char *m = fleet_label(s.v[0].labels, "model");
	ck_assert_str_eq(m, "a\"b\\c");
	free(m);
	m = fleet_label(s.v[0].labels, "x");
	ck_assert_str_eq(m, "y");
	free(m);
	fleet_samples_done(&s);
}
END_TEST

/* The labels string itself, as the text format writes it: the instance
 * left out, keys and values in the answer's order, controls and line
 * breaks made '?' and tabs spaces (a key's too), only a value's quote and
 * backslash escaped; and the buffer the labels are built in, reused from
 * sample to sample, carries nothing over into the next (shorter) one. */
START_TEST(test_vector_label_string)
{
	const char *body = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			   "{\"metric\":{\"metric\":\"a\\nb\\tc\\u0001d\\\\\",\"instance\":\"h\\r1\","
			   "\"k\\ney\":\"\\\"\\u00e9\"},\"value\":[1,\"1\"]},"
			   "{\"metric\":{\"instance\":\"h2\",\"z\":\"1\"},\"value\":[1,\"2\"]},"
			   "{\"metric\":{\"instance\":\"h3\"},\"value\":[1,\"3\"]},"
			   "{\"metric\":{\"instance\":\"h4\",\"n\":7,\"z\":\"\"},\"value\":[1,\"4\"]}]}}";
	struct fleet_samples s = { 0 };
	char *cause = NULL;
	ck_assert_int_eq(fleet_parse_vector(body, strlen(body), &s, &cause), 0);
	ck_assert_int_eq(s.n, 4);
	ck_assert_str_eq(s.v[0].instance, "h?1");
	ck_assert_str_eq(s.v[0].labels, "metric=\"a?b c?d\\\\\",k?ey=\"\\\"\u00e9\"");
	char *m = fleet_label(s.v[0].labels, "metric");
	ck_assert_str_eq(m, "a?b c?d\\");
	free(m);
	m = fleet_label(s.v[0].labels, "k?ey");
	ck_assert_str_eq(m, "\"\u00e9");
	free(m);
	ck_assert_str_eq(s.v[1].labels, "z=\"1\"");
	ck_assert_str_eq(s.v[2].labels, "");
	/* A label that is not a string is left out. */
	ck_assert_str_eq(s.v[3].labels, "z=\"\"");
	m = fleet_label(s.v[3].labels, "z");
	ck_assert_str_eq(m, "");
	free(m);
	fleet_samples_done(&s);
}
END_TEST

/* fleet_parse_vector reads Prometheus's plain answers on a fast path of
 * its own: whatever it is given, it must give what jansson's reading
 * does (rc, cause, every sample bit for bit). The bodies: the table's,
 * and plain answers next to ones just off the fast path's shape. */
static const struct {
	int line;
	const char *body;
} same_bodies[] = {
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"__name__\":\"up\",\"instance\":\"host0:9465\",\"job\":\"pmctop\"},"
		    "\"value\":[1795893368.312,\"1\"]},"
		    "{\"metric\":{\"instance\":\"host1:9465\",\"metric\":\"pmctop_metric_ipc\"},\"value\":[17,\"0.02889806622\"]},"
		    "{\"metric\":{},\"value\":[-0,\"NaN\"]},"
		    "{\"metric\":{\"a\":\"\",\"\":\"b\"},\"value\":[1e-400,\"-Inf\"]}]}}" },
	/* Just off the shape: spaces, an escape, a tab, UTF-8, a label twice,
	 * a number label, no instance, a big or bad number, a bad value,
	 * trailing bytes, more keys, another type. */
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[ ]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}\n" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}x" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]},\"warnings\":[\"w\"]}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"instance\":\"a\\\"b\"},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"instance\":\"a\tb\"},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"model\":\"caf\xc3\xa9\"},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"a\":\"1\",\"a\":\"2\"},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"instance\":\"h\",\"instance\":\"h\"},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"instance\":7,\"n\":null},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[123456789012345678901234,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[1e400,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[01,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[1.,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[1,\"one\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[1,\"1\"],\"x\":1}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[1,\"1\"]},]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{\"a\":\"1\",},\"value\":[1,\"1\"]}]}}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		    "{\"metric\":{},\"value\":[1,\"1\"]}" },
	{ SRC_LINE, "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"2\"]}}" },
};

static void same_sample(int line, int i, const struct fleet_sample *a, const struct fleet_sample *b)
{
	ck_assert_msg(!strcmp(a->instance, b->instance) && !strcmp(a->labels, b->labels),
		      "line %d, sample %d: '%s' {%s}, jansson's '%s' {%s}", line, i, a->instance, a->labels,
		      b->instance, b->labels);
	ck_assert_msg(!memcmp(&a->value, &b->value, sizeof(double)) || (isnan(a->value) && isnan(b->value)),
		      "line %d, sample %d: value %g, jansson's %g", line, i, a->value, b->value);
	ck_assert_msg(!memcmp(&a->time, &b->time, sizeof(double)), "line %d, sample %d: time %.17g, jansson's %.17g",
		      line, i, a->time, b->time);
}

static void same_as_json(int line, const char *body)
{
	struct fleet_samples a = { 0 }, b = { 0 };
	char *ca = NULL, *cb = NULL;
	int ra = fleet_parse_vector(body, strlen(body), &a, &ca);
	int rb = fleet_parse_vector_json(body, strlen(body), &b, &cb);
	ck_assert_msg(ra == rb && a.n == b.n, "line %d: rc %d, %d samples; jansson's %d, %d", line, ra, a.n, rb, b.n);
	ck_assert_msg((!ca && !cb) || (ca && cb && !strcmp(ca, cb)), "line %d: cause '%s', jansson's '%s'", line,
		      ca ? ca : "", cb ? cb : "");
	for (int i = 0; i < a.n; i++)
		same_sample(line, i, &a.v[i], &b.v[i]);
	fleet_samples_done(&a);
	fleet_samples_done(&b);
	free(ca);
	free(cb);
}

START_TEST(test_vector_fast_same)
{
	for (size_t i = 0; i < sizeof(vcases) / sizeof(vcases[0]); i++)
		same_as_json(vcases[i].line, vcases[i].body);
	for (size_t i = 0; i < sizeof(same_bodies) / sizeof(same_bodies[0]); i++)
		same_as_json(same_bodies[i].line, same_bodies[i].body);
	/* The first, a plain answer, is read: four samples. */
	struct fleet_samples s = { 0 };
	ck_assert_int_eq(fleet_parse_vector(same_bodies[0].body, strlen(same_bodies[0].body), &s, NULL), 0);
	ck_assert_int_eq(s.n, 4);
	ck_assert_str_eq(s.v[0].labels, "__name__=\"up\",job=\"pmctop\"");
	ck_assert_str_eq(s.v[2].instance, "");
	ck_assert_str_eq(s.v[3].labels, "a=\"\",=\"b\"");
	ck_assert(s.v[1].time == 17 && s.v[1].value == 0.02889806622);
	fleet_samples_done(&s);
}
END_TEST

START_TEST(test_text)
{
	const char *body = "# HELP pmctop_info The model.\n"
			   "# TYPE pmctop_info gauge\n"
			   "pmctop_info{model=\"amd-zen5\",simulated=\"true\",version=\"0.1.0\"} 1\r\n"
			   "pmctop_intervals_total 12\n"
			   "pmctop_cycles_total{ccx=\"0\",socket=\"0\"} 2e+10\n"
			   "pmctop_cycles_total{ccx=\"1\",socket=\"0\"} 1e+10 1700000000000\n"
			   "odd{a=\"}\\\"\",b=\"2\"} NaN\n"
			   "\n"
			   "not a sample\n"
			   "noval{a=\"1\"}\n"
			   "unclosed{a=\"1\" 3\n"
			   "last -Inf";
	struct fleet_samples s = { 0 };
	int bad = -1;
	ck_assert_int_eq(fleet_parse_text(body, strlen(body), &s, &bad), 6);
	ck_assert_int_eq(bad, 3);
	ck_assert_str_eq(s.v[0].name, "pmctop_info");
	char *m = fleet_label(s.v[0].labels, "model");
	ck_assert_str_eq(m, "amd-zen5");
	free(m);
	ck_assert(s.v[1].value == 12 && !strcmp(s.v[1].labels, ""));
	ck_assert(s.v[3].value == 1e10);
	ck_assert_str_eq(s.v[4].name, "odd");
	m = fleet_label(s.v[4].labels, "a");
	ck_assert_str_eq(m, "}\"");
	free(m);
	m = fleet_label(s.v[4].labels, "b");
	ck_assert_str_eq(m, "2");
	free(m);
	ck_assert(fleet_label(s.v[4].labels, "c") == NULL);
	ck_assert(isinf(s.v[5].value) && s.v[5].value < 0);
	fleet_samples_done(&s);
}
END_TEST

/* The shipped columns: every one loads, and the IPC column gives the
 * PromQL of docs/fleet.md: rates summed per host, then divided. */
START_TEST(test_columns_shipped)
{
	char *cause = NULL;
	struct fleet_columns *fc = fleet_columns_load(TOP_SRCDIR "/events/fleet/columns.txt", &cause);
	ck_assert_msg(fc, "%s", cause ? cause : "");
	int ipc = -1;
	for (int i = 0; i < fc->n; i++)
		if (!strcmp(fc->cols[i].name, "ipc"))
			ipc = i;
	ck_assert_int_ge(ipc, 0);
	char *q = fleet_col_promql(&fc->cols[ipc], "job=\"pmctop\"", 60);
	ck_assert_str_eq(q, "(sum by (instance) (rate(pmctop_instructions_total{job=\"pmctop\"}[60000ms]))) / "
			    "(sum by (instance) (rate(pmctop_cycles_total{job=\"pmctop\"}[60000ms])))");
	free(q);
	/* As a refresh asks it: without labels, the fleet's; then each host's
	 * numerator and denominator (its figure, and its groups' sums). */
	q = fleet_col_promql_total(&fc->cols[ipc], "job=\"pmctop\"", 60);
	ck_assert_str_eq(q, "((sum (rate(pmctop_instructions_total{job=\"pmctop\"}[60000ms]))) / "
			    "(sum (rate(pmctop_cycles_total{job=\"pmctop\"}[60000ms])))) or "
			    "label_replace(sum by (instance) (rate(pmctop_instructions_total{job=\"pmctop\"}[60000ms])), "
			    "\"pmctop_term\", \"num\", \"\", \"\") or "
			    "label_replace(sum by (instance) (rate(pmctop_cycles_total{job=\"pmctop\"}[60000ms])), "
			    "\"pmctop_term\", \"den\", \"\", \"\")");
	free(q);
	ck_assert(fc->cols[ipc].hardware);
	ck_assert_str_eq(fc->cols[ipc].err, "pmctop_metric_ipc");
	/* A rate over a gauge takes the exporter's clock (crate): per host
	 * the counter's rate over the interval timestamp's, a host whose
	 * clock stood still left out; the fleet's, their sum. */
	int util = -1;
	for (int i = 0; i < fc->n; i++)
		if (!strcmp(fc->cols[i].name, "util"))
			util = i;
	ck_assert_int_ge(util, 0);
	ck_assert_int_eq(fc->cols[util].num.agg, FLEET_CRATE);
	q = fleet_term_promql(&fc->cols[util].num, "job=\"pmctop\"", 60);
	ck_assert_str_eq(q, "sum by (instance) (rate(pmctop_busy_seconds_total{job=\"pmctop\"}[60000ms])) / on (instance) "
			    "(max by (instance) (rate(pmctop_last_interval_timestamp_seconds{job=\"pmctop\"}[60000ms])) > 0)");
	free(q);
	q = fleet_col_promql_total(&fc->cols[util], "", 60);
	ck_assert_msg(strstr(q, "((sum(sum by (instance) (rate(pmctop_busy_seconds_total[60000ms])) / on (instance) "
				"(max by (instance) (rate(pmctop_last_interval_timestamp_seconds[60000ms])) > 0))) / "
				"(sum (pmctop_online_cpus))) or label_replace(") == q, "%s", q);
	free(q);
	struct model *m = fleet_model_new(fc);
	ck_assert_int_eq(m->nmetrics, fc->n);
	ck_assert_int_eq(model_find_metric(m, "ipc"), ipc);
	ck_assert_int_eq(m->views[0].ncols, fc->n);
	/* `history`: a drilled host's sparklines (the model's group
	 * "history", which the screen reads); IPC has it, AGE not. */
	ck_assert(fc->cols[ipc].history);
	ck_assert_int_eq(m->metrics[ipc].ngroups, 2);
	ck_assert_str_eq(m->metrics[ipc].groups[1], "history");
	int age = model_find_metric(m, "age");
	ck_assert_int_ge(age, 0);
	ck_assert(!fc->cols[age].history);
	ck_assert_int_eq(m->metrics[age].ngroups, 1);
	model_free(m);
	fleet_columns_free(fc);
}
END_TEST

START_TEST(test_promql_terms)
{
	char *cause = NULL;
	struct fleet_columns *fc = fleet_columns_parse(
		"column a num=age:ts\n"
		"column b num=min:pmctop_coverage_ratio{metric=\"m\"} den=const:2 scale=3\n"
		"column c num=sum:g desc=\"a quoted, spaced description\"\n", "t.txt", &cause);
	ck_assert_msg(fc, "%s", cause ? cause : "");
	char *q = fleet_col_promql(&fc->cols[0], "", 1.5);
	ck_assert_str_eq(q, "time() - max by (instance) (ts)");
	free(q);
	q = fleet_col_promql(&fc->cols[1], "zone=\"eu1\"", 1.5);
	ck_assert_str_eq(q, "(min by (instance) (pmctop_coverage_ratio{zone=\"eu1\",metric=\"m\"})) / (2)");
	free(q);
	ck_assert(fc->cols[1].scale == 3);
	ck_assert_str_eq(fc->cols[2].desc, "a quoted, spaced description");
	fleet_columns_free(fc);
}
END_TEST

static const struct ccase {
	int line;
	const char *text;
	const char *cause;
} ccases[] = {
	{ SRC_LINE, "# only a comment\n", "x.txt: no column defined" },
	{ SRC_LINE, "\ncolumn a num=rate:x foo=1\n", "x.txt:2: unknown key 'foo'" },
	{ SRC_LINE, "column a label=A\n", "x.txt:1: column a has no num=" },
	{ SRC_LINE, "column a num=sometimes:x\n", "x.txt:1: num=sometimes:x: unknown aggregation" },
	{ SRC_LINE, "column a num=rate\n", "x.txt:1: num=rate: expected AGG:SERIES" },
	{ SRC_LINE, "column a num=rate:9x\n", "x.txt:1: num=rate:9x: expected a series name" },
	{ SRC_LINE, "column a num=rate:x{a=b}\n", "expected one matcher" },
	{ SRC_LINE, "column a num=rate:x{a=\"b\"}}\n", "expected one matcher" },
	{ SRC_LINE, "column a num=const:nan\n", "const: expects a finite number" },
	{ SRC_LINE, "column a num=sum:x den=const:0\n", "x.txt:1: den=const:0 divides by zero" },
	{ SRC_LINE, "column a num=age:x den=sum:y\n", "an age is divided by nothing but a constant" },
	{ SRC_LINE, "column a num=sum:x desc=\"open\n", "x.txt:1: a quoted value is not closed" },
	{ SRC_LINE, "column a num=sum:x\ncolumn a num=sum:y\n", "x.txt:2: column a defined twice" },
	{ SRC_LINE, "columns a num=sum:x\n", "x.txt:1: expected 'column NAME" },
	{ SRC_LINE, "column num=sum:x\n", "x.txt:1: expected a column name" },
	{ SRC_LINE, "column a num=sum:x scale=0\n", "scale= expects a finite number other than 0" },
	{ SRC_LINE, "column a num=sum:x hardware\n", "unknown flag 'hardware' (hw, history, or key=value)" },
	{ SRC_LINE, "column a num=sum:x label=A label=B\n", "label= given twice" },
	{ SRC_LINE, "column a num=sum:x err=not-a-name\n", "err= expects a metric series name" },
};

START_TEST(test_columns_bad)
{
	const struct ccase *c = &ccases[_i];
	char *cause = NULL;
	struct fleet_columns *fc = fleet_columns_parse(c->text, "x.txt", &cause);
	ck_assert_msg(!fc, "line %d: accepted", c->line);
	ck_assert_msg(cause && strstr(cause, c->cause), "line %d: cause '%s'", c->line, cause ? cause : "");
	free(cause);
}
END_TEST

static char *write_tmp(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	ck_assert(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static const struct kcase {
	int line;
	const char *yaml;
	const char *cause;   /* NULL: accepted */
} kcases[] = {
	{ SRC_LINE, "", NULL },
	{ SRC_LINE, "tls_config:\n  ca_file: ca.pem\n  insecure_skip_verify: false\nbasic_auth:\n  username: u\n"
		    "  password_file: secret\ntimeout: 2.5s\n", NULL },
	{ SRC_LINE, "tls_config: {server_name: host1, insecure_skip_verify: true}\n", NULL },
	{ SRC_LINE, "tls_config:\n  ca_fil: x\n", "c.yml:2: unknown tls_config key 'ca_fil'" },
	{ SRC_LINE, "scheme: https\n", "c.yml:1: unknown key 'scheme'" },
	{ SRC_LINE, "tls_config:\n  cert_file: c.pem\n", "tls_config needs both cert_file and key_file" },
	{ SRC_LINE, "basic_auth:\n  password: p\n", "basic_auth has a password but no username" },
	{ SRC_LINE, "basic_auth:\n  username: u\n  password_file: missing\n", "c.yml:3: cannot read password_file" },
	{ SRC_LINE, "tls_config:\n  insecure_skip_verify: maybe\n", "c.yml:2: insecure_skip_verify expects true or false" },
	{ SRC_LINE, "timeout: soon\n", "c.yml:1: timeout expects seconds" },
	{ SRC_LINE, "tls_config: [a, b]\n", "tls_config expects a mapping" },
	{ SRC_LINE, "tls_config: {\n", "c.yml:" },
};

START_TEST(test_config)
{
	const struct kcase *c = &kcases[_i];
	char dir[] = "/tmp/check_fleet.XXXXXX";
	ck_assert(mkdtemp(dir));
	char *secret = write_tmp(dir, "secret", "right horse\n");
	char *path = write_tmp(dir, "c.yml", c->yaml);
	char *cause = NULL;
	struct fleet_client_config *cfg = fleet_config_load(path, &cause);
	if (!c->cause) {
		ck_assert_msg(cfg, "line %d: %s", c->line, cause ? cause : "");
		if (_i == 1) {
			char *ca = xasprintf("%s/ca.pem", dir);
			ck_assert_str_eq(cfg->ca_file, ca);   /* relative to the file */
			free(ca);
			ck_assert_str_eq(cfg->password, "right horse");
			ck_assert(cfg->timeout_s == 2.5);
		}
	} else {
		ck_assert_msg(!cfg, "line %d: accepted", c->line);
		ck_assert_msg(cause && strstr(cause, c->cause), "line %d: cause '%s'", c->line, cause ? cause : "");
	}
	fleet_config_free(cfg);
	free(cause);
	unlink(secret);
	unlink(path);
	rmdir(dir);
	free(secret);
	free(path);
}
END_TEST

/* The targets file of direct mode: HOST:PORT with its labels (sorted),
 * comma lists, comments, a target named twice once; its bad lines refused
 * with FILE:LINE. */
static const struct tcase_t {
	const char *text, *cause;
} tcases[] = {
	{ "h1:9465 zone=eu1 rack=r3  # db\nh2:9465\n# c\nh3:9465,https://h4:9465/\nh1:9465\n", NULL },
	{ "h1:9465\nh2:9465 zone\n", "t.txt:2: 'zone' is not a label" },
	{ "h1:9465 9zone=a\n", "t.txt:1: '9zone=a' is not a label" },
	{ "h1:9465 model=x\n", "t.txt:1: 'model' is the exporter's own label" },
	{ "h1:9465 zone=a zone=b\n", "t.txt:1: label 'zone' twice" },
	{ "h1 zone=a\n", "t.txt:1: 'h1' is not HOST:PORT or a URL" },
	{ "# nothing\n", "names no target" },
};

static struct fleet *targets_fleet(const char *path, char **cause)
{
	struct fleet_opts o = { .columns = TOP_SRCDIR "/events/fleet/columns.txt", .window_s = 60, .at = NAN,
				.interval_s = 1 };
	char *spec = xasprintf("@%s", path);
	o.spec = spec;
	struct fleet *f = fleet_new(&o, cause);
	free(spec);
	return f;
}

START_TEST(test_targets_file)
{
	const struct tcase_t *c = &tcases[_i];
	char dir[] = "/tmp/check_fleet.XXXXXX";
	ck_assert(mkdtemp(dir));
	char *path = write_tmp(dir, "t.txt", c->text);
	char *cause = NULL;
	struct fleet *f = targets_fleet(path, &cause);
	if (c->cause) {
		ck_assert_msg(!f, "case %d accepted", _i);
		ck_assert_msg(cause && strstr(cause, c->cause), "case %d: cause '%s'", _i, cause ? cause : "");
	} else {
		ck_assert_msg(f, "%s", cause ? cause : "");
		ck_assert_int_eq(fleet_host_count(f), 4);
		const struct host *h = &f->hosts[0];
		ck_assert_str_eq(h->name, "h1:9465");
		ck_assert_int_eq(h->nlabels, 2);
		ck_assert_str_eq(h->lkeys[0], "rack");
		ck_assert_str_eq(h->lvals[0], "r3");
		ck_assert_str_eq(h->lkeys[1], "zone");
		ck_assert_str_eq(h->lvals[1], "eu1");
		ck_assert_int_eq(f->hosts[1].nlabels, 0);
		ck_assert_str_eq(f->hosts[3].url, "https://h4:9465/metrics");
	}
	fleet_free(f);
	free(cause);
	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* The targets file changed: read again at the next refresh (labels,
 * targets added and removed), a bad one kept as it was. */
START_TEST(test_targets_reread)
{
	char dir[] = "/tmp/check_fleet.XXXXXX";
	ck_assert(mkdtemp(dir));
	char *path = write_tmp(dir, "t.txt", "h1:9465 zone=a\nh2:9465 zone=a\n");
	char *cause = NULL;
	struct fleet *f = targets_fleet(path, &cause);
	ck_assert_msg(f, "%s", cause ? cause : "");
	char *news = NULL;
	fleet_targets_reread(f, &news);   /* unchanged: nothing said */
	ck_assert_ptr_null(news);
	free(write_tmp(dir, "t.txt", "h1:9465 zone=b rack=r1\nh3:9465\n"));
	struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };   /* a time of its own, however fast this runs */
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	fleet_targets_reread(f, &news);
	ck_assert_msg(news && strstr(news, "1 targets added, 1 relabelled, 1 removed"), "%s", news ? news : "");
	free(news);
	news = NULL;
	ck_assert_int_eq(fleet_host_count(f), 3);
	ck_assert_int_eq(f->hosts[0].nlabels, 2);
	ck_assert_str_eq(f->hosts[0].lvals[1], "b");
	ck_assert(f->hosts[1].removed);
	ck_assert_str_eq(f->hosts[1].status, "gone: no longer in the targets file");
	ck_assert_str_eq(f->hosts[2].name, "h3:9465");
	ck_assert(!f->hosts[2].removed);
	/* A bad line: the targets stay as they were, and it is said. */
	free(write_tmp(dir, "t.txt", "h1:9465 zone\n"));
	ts[0].tv_sec = ts[1].tv_sec = 2000;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	fleet_targets_reread(f, &news);
	ck_assert_msg(news && strstr(news, "'zone' is not a label") && strstr(news, "its old targets stay"), "%s",
		      news ? news : "");
	free(news);
	ck_assert_str_eq(f->hosts[0].lvals[1], "b");
	fleet_free(f);
	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

/* The groups of a fleet's hosts (fleet_groups.c), one label at a time:
 * model first, then the others by name, each label's groups by value
 * (rack2 before rack10, a host without the label in ""), each figure its
 * hosts' terms summed before dividing; a stale host counted but not in
 * the figures, a removed one in no group. */
static const struct snap_group *group_of(const struct snapshot *s, const char *label, const char *value)
{
	for (int i = 0; i < s->ngroups; i++)
		if (!strcmp(s->groups[i].label, label) && !strcmp(s->groups[i].value, value))
			return &s->groups[i];
	return NULL;
}

START_TEST(test_groups)
{
	char dir[] = "/tmp/check_fleet.XXXXXX";
	ck_assert(mkdtemp(dir));
	char *path = write_tmp(dir, "t.txt", "h1:1 zone=eu1 rack=rack10\nh2:1 zone=eu1 rack=rack2\n"
						"h3:1 zone=us1 rack=rack2\nh4:1\n");
	char *cause = NULL;
	struct fleet *f = targets_fleet(path, &cause);
	ck_assert_msg(f, "%s", cause ? cause : "");
	int ipc = model_find_metric(fleet_get_model(f), "ipc");
	ck_assert_int_ge(ipc, 0);
	/* Instructions and cycles a second: IPC 1, 3, 2, 1. */
	const double num[4] = { 100, 30, 50, 10 }, den[4] = { 100, 10, 25, 10 };
	const char *model[4] = { "amd-zen5", "amd-zen5", "intel-spr", "" };
	for (int i = 0; i < 4; i++) {
		f->hosts[i].num[ipc] = num[i];
		f->hosts[i].den[ipc] = den[i];
		free(f->hosts[i].model);
		f->hosts[i].model = xstrdup(model[i]);
	}
	struct snapshot *s = fleet_snapshot_new(f, f->nhosts);
	fleet_groups(f, s);
	/* model ("", amd-zen5, intel-spr), rack ("", rack2, rack10), zone ("", eu1, us1). */
	const char *order[9][2] = { { "model", "" }, { "model", "amd-zen5" }, { "model", "intel-spr" },
				    { "rack", "" }, { "rack", "rack2" }, { "rack", "rack10" },
				    { "zone", "" }, { "zone", "eu1" }, { "zone", "us1" } };
	ck_assert_int_eq(s->ngroups, 9);
	for (int i = 0; i < 9; i++) {
		ck_assert_str_eq(s->groups[i].label, order[i][0]);
		ck_assert_str_eq(s->groups[i].value, order[i][1]);
	}
	const struct snap_group *g = group_of(s, "zone", "eu1");
	ck_assert_int_eq(g->nhosts, 2);
	/* All its instructions over all its cycles, not (1 + 3) / 2. */
	ck_assert_double_eq_tol(g->v[ipc], 130.0 / 110.0, 1e-12);
	ck_assert_double_eq_tol(group_of(s, "rack", "rack2")->v[ipc], 80.0 / 35.0, 1e-12);
	ck_assert_int_eq(group_of(s, "model", "")->nhosts, 1);
	snapshot_free(s);
	/* A stale host: counted, its figures not summed; a removed one: in
	 * no group, and a group it alone made is gone. */
	f->hosts[1].stale = true;
	f->hosts[2].removed = true;
	s = fleet_snapshot_new(f, f->nhosts);
	fleet_groups(f, s);
	g = group_of(s, "zone", "eu1");
	ck_assert_int_eq(g->nhosts, 2);
	ck_assert_double_eq_tol(g->v[ipc], 1.0, 1e-12);
	ck_assert_ptr_null(group_of(s, "zone", "us1"));
	ck_assert_ptr_null(group_of(s, "model", "intel-spr"));
	snapshot_free(s);
	fleet_free(f);
	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fleet_parse");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_vector, 0, (int)ARRAY_SIZE(vcases));
	tcase_add_test(tc, test_vector_values);
	tcase_add_test(tc, test_vector_label_escapes);
	tcase_add_test(tc, test_vector_label_string);
	tcase_add_test(tc, test_vector_fast_same);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_columns_shipped);
	tcase_add_test(tc, test_promql_terms);
	tcase_add_loop_test(tc, test_targets_file, 0, (int)(sizeof(tcases) / sizeof(tcases[0])));
	tcase_add_test(tc, test_targets_reread);
	tcase_add_test(tc, test_groups);
	tcase_add_loop_test(tc, test_columns_bad, 0, (int)ARRAY_SIZE(ccases));
	tcase_add_loop_test(tc, test_config, 0, (int)ARRAY_SIZE(kcases));
	suite_add_tcase(s, tc);
	return check_run(s);
}
