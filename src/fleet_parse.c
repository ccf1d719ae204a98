/* fleet_parse.c: what a fleet reads, parsed: a Prometheus /api/v1/query
 * answer (an instant vector) and an exporter's /metrics in the text
 * format. Both come from the network, so both are hostile input: every
 * size is bounded by the answer's, nothing is trusted to be of the type
 * it should be, and an answer that is not what it should be is one line
 * of cause, never a crash (fuzz/fuzz_fleet.c, tests/check_fleet_parse.c). */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "util.h"

void fleet_samples_done(struct fleet_samples *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->v[i].instance);
		free(s->v[i].name);
		free(s->v[i].labels);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static struct fleet_sample *add(struct fleet_samples *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, sizeof(*s->v) * (size_t)s->cap);
	}
	struct fleet_sample *x = &s->v[s->n++];
	memset(x, 0, sizeof(*x));
	return x;
}

/* Text from the answer, safe to print on one line: sanitised (no
 * terminal controls), and its line breaks and tabs made spaces, so that
 * a label or an error can neither move the cursor nor split a message
 * (the fuzzer found an error text with a newline). */
static char *flat(const char *s)
{
	char *t = text_sanitize(s);
	for (char *p = t; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return t;
}

/* A growing byte buffer, reused from sample to sample so that a label
 * string costs one allocation, not one per character (10,648 series an
 * answer at 1,000 hosts: docs/performance.md). */
struct buf {
	char *p;
	size_t n, cap;
};

static char *room(struct buf *b, size_t more)
{
	if (b->n + more + 1 > b->cap) {
		b->cap = b->n + more + 1 > 2 * b->cap ? b->n + more + 1 : 2 * b->cap;
		b->p = xrealloc(b->p, b->cap);
	}
	return b->p + b->n;
}

static void put(struct buf *b, const char *s, size_t n)
{
	memcpy(room(b, n), s, n);
	b->n += n;
	b->p[b->n] = 0;
}

/* flat(s) appended to b, with '"' and '\\' escaped as the text format
 * writes a value (esc) so that fleet_label reads it back whole. Sanitising
 * keeps the length (a bad byte becomes one '?'), so it is done in place on
 * a copy in scratch, then copied over a byte at a time. */
static void put_flat(struct buf *b, struct buf *scratch, const char *s, bool esc)
{
	size_t n = strlen(s);
	scratch->n = 0;
	put(scratch, s, n);
	text_sanitize_inplace(scratch->p);
	char *o = room(b, 2 * n);
	for (const char *c = scratch->p; c < scratch->p + n; c++) {
		char ch = *c == '\n' || *c == '\r' || *c == '\t' ? ' ' : *c;
		if (esc && (ch == '"' || ch == '\\'))
			*o++ = '\\';
		*o++ = ch;
	}
	b->n = (size_t)(o - b->p);
	b->p[b->n] = 0;
}

/* Prometheus writes sample values as strings ("1.5", "NaN", "+Inf"). */
static bool value_of(const char *t, double *v)
{
	if (!strcmp(t, "NaN")) {
		*v = NAN;
		return true;
	}
	if (!strcmp(t, "+Inf") || !strcmp(t, "Inf")) {
		*v = INFINITY;
		return true;
	}
	if (!strcmp(t, "-Inf")) {
		*v = -INFINITY;
		return true;
	}
	return parse_double_c(t, v);
}

int fleet_parse_vector(const char *body, size_t len, struct fleet_samples *out, char **cause)
{
	struct buf lb = { 0 }, scratch = { 0 };
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		/* jansson's text quotes the bad token, which may hold a line
		 * break (the fuzzer found `"\<newline>`). */
		char *t = flat(je.text);
		set_cause(cause, "the answer is not JSON (%s at byte %d)", t, je.position);
		free(t);
		return -1;
	}
	int rc = -1;
	const char *status = json_string_value(json_object_get(root, "status"));
	if (!status) {
		set_cause(cause, "the answer has no \"status\": not Prometheus's API");
		goto done;
	}
	if (strcmp(status, "success")) {
		const char *et = json_string_value(json_object_get(root, "errorType"));
		const char *e = json_string_value(json_object_get(root, "error"));
		char *msg = flat(e ? e : "no error text"), *t = flat(et ? et : "error");
		set_cause(cause, "Prometheus says %s: %s", t, msg);
		free(msg);
		free(t);
		goto done;
	}
	json_t *data = json_object_get(root, "data");
	const char *type = json_string_value(json_object_get(data, "resultType"));
	json_t *result = json_object_get(data, "result");
	if (!type || !json_is_array(result)) {
		set_cause(cause, "the answer has no data.resultType and data.result");
		goto done;
	}
	if (!strcmp(type, "scalar")) {
		/* A column of constants only: one value, for no host. */
		rc = 0;
		goto done;
	}
	if (strcmp(type, "vector")) {
		char *t = flat(type);
		set_cause(cause, "the answer is a %s, not an instant vector", t);
		free(t);
		goto done;
	}
	size_t i;
	json_t *el;
	json_array_foreach(result, i, el) {
		json_t *metric = json_object_get(el, "metric");
		json_t *value = json_object_get(el, "value");
		if (!json_is_object(metric) || !json_is_array(value) || json_array_size(value) != 2) {
			set_cause(cause, "result %zu is not {\"metric\":{...},\"value\":[time,\"value\"]}", i);
			goto done;
		}
		const char *vt = json_string_value(json_array_get(value, 1));
		json_t *tj = json_array_get(value, 0);
		double v;
		if (!vt || !json_is_number(tj) || !value_of(vt, &v)) {
			set_cause(cause, "result %zu has no value [time, \"number\"]", i);
			goto done;
		}
		struct fleet_sample *x = add(out);
		x->value = v;
		x->time = json_number_value(tj);
		const char *inst = json_string_value(json_object_get(metric, "instance"));
		x->instance = inst ? flat(inst) : xstrdup("");
		/* The other labels, as the text format writes them, for the
		 * queries that keep one (by instance, metric). */
		const char *key;
		json_t *lv;
		lb.n = 0;
		json_object_foreach(metric, key, lv) {
			const char *s = json_string_value(lv);
			if (!s || !strcmp(key, "instance"))
				continue;
			if (lb.n)
				put(&lb, ",", 1);
			put_flat(&lb, &scratch, key, false);
			put(&lb, "=\"", 2);
			put_flat(&lb, &scratch, s, true);
			put(&lb, "\"", 1);
		}
		x->labels = xstrndup(lb.p ? lb.p : "", lb.n);
	}
	rc = 0;
done:
	free(lb.p);
	free(scratch.p);
	json_decref(root);
	return rc;
}

/* One line of the text format: NAME[{LABELS}] VALUE [TIMESTAMP]. */
static bool text_line(const char *l, size_t n, struct fleet_samples *out)
{
	size_t i = 0;
	while (i < n && (l[i] == '_' || l[i] == ':' || (l[i] >= 'a' && l[i] <= 'z') || (l[i] >= 'A' && l[i] <= 'Z') ||
			 (i > 0 && l[i] >= '0' && l[i] <= '9')))
		i++;
	if (i == 0)
		return false;
	size_t name_end = i, lab0 = i, lab1 = i;
	if (i < n && l[i] == '{') {
		/* Up to the closing brace outside a quoted value. */
		bool q = false;
		lab0 = ++i;
		for (; i < n; i++) {
			if (q && l[i] == '\\') {
				i++;
				continue;
			}
			if (l[i] == '"')
				q = !q;
			else if (!q && l[i] == '}')
				break;
		}
		if (i >= n)
			return false;
		lab1 = i++;
	}
	if (i >= n || (l[i] != ' ' && l[i] != '\t'))
		return false;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	size_t v0 = i;
	while (i < n && l[i] != ' ' && l[i] != '\t')
		i++;
	char *vt = xstrndup(l + v0, i - v0);
	double v;
	bool ok = *vt && value_of(vt, &v);
	free(vt);
	if (!ok)
		return false;
	struct fleet_sample *x = add(out);
	x->name = xstrndup(l, name_end);
	x->labels = xstrndup(l + lab0, lab1 - lab0);
	x->value = v;
	x->time = NAN;
	return true;
}

int fleet_parse_text(const char *body, size_t len, struct fleet_samples *out, int *bad)
{
	*bad = 0;
	size_t p = 0;
	while (p < len) {
		const char *nl = memchr(body + p, '\n', len - p);
		size_t full = nl ? (size_t)(nl - (body + p)) : len - p;
		size_t n = full;
		const char *l = body + p;
		if (n && l[n - 1] == '\r')
			n--;
		if (n && l[0] != '#' && !text_line(l, n, out))
			(*bad)++;
		p += full + (nl ? 1 : 0);
	}
	return out->n;
}

char *fleet_label(const char *labels, const char *key)
{
	size_t kl = strlen(key);
	const char *p = labels;
	while (p && *p) {
		while (*p == ',' || *p == ' ')
			p++;
		const char *eq = strchr(p, '=');
		if (!eq || eq[1] != '"')
			return NULL;
		/* The value runs to the first unescaped quote (or the end). */
		const char *v0 = eq + 2, *v = v0;
		while (*v && *v != '"')
			v += *v == '\\' && v[1] ? 2 : 1;
		if ((size_t)(eq - p) == kl && !strncmp(p, key, kl)) {
			/* Unescaped into one allocation of the escaped length
			 * at most, then flattened in place (the same length). */
			char *val = xmalloc((size_t)(v - v0) + 1), *o = val;
			for (const char *c = v0; c < v; c++) {
				if (*c == '\\' && c + 1 < v) {
					c++;
					*o++ = *c == 'n' ? '\n' : *c;
				} else {
					*o++ = *c;
				}
			}
			*o = 0;
			text_sanitize_inplace(val);
			for (o = val; *o; o++)
				if (*o == '\n' || *o == '\r' || *o == '\t')
					*o = ' ';
			return val;
		}
		if (!*v)
			return NULL;
		p = v + 1;
	}
	return NULL;
}
