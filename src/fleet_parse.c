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

#include "fleet_impl.h"
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

json_t *fleet_api_result(const char *body, size_t len, const char **type, json_t **result, char **cause)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		/* jansson's text quotes the bad token, which may hold a line
		 * break (the fuzzer found `"\<newline>`). */
		char *t = flat(je.text);
		set_cause(cause, "the answer is not JSON (%s at byte %d)", t, je.position);
		free(t);
		return NULL;
	}
	const char *status = json_string_value(json_object_get(root, "status"));
	if (!status) {
		set_cause(cause, "the answer has no \"status\": not Prometheus's API");
		goto bad;
	}
	if (strcmp(status, "success")) {
		const char *et = json_string_value(json_object_get(root, "errorType"));
		const char *e = json_string_value(json_object_get(root, "error"));
		char *msg = flat(e ? e : "no error text"), *t = flat(et ? et : "error");
		set_cause(cause, "Prometheus says %s: %s", t, msg);
		free(msg);
		free(t);
		goto bad;
	}
	json_t *data = json_object_get(root, "data");
	*type = json_string_value(json_object_get(data, "resultType"));
	*result = json_object_get(data, "result");
	if (!*type || !json_is_array(*result)) {
		set_cause(cause, "the answer has no data.resultType and data.result");
		goto bad;
	}
	return root;
bad:
	json_decref(root);
	return NULL;
}

int fleet_parse_vector_json(const char *body, size_t len, struct fleet_samples *out, char **cause)
{
	struct buf lb = { 0 }, scratch = { 0 };
	const char *type;
	json_t *result;
	json_t *root = fleet_api_result(body, len, &type, &result, cause);
	if (!root)
		return -1;
	int rc = -1;
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

/* The fast path: an answer exactly as Prometheus writes a good one --
 * compact, the keys in its order, every string printable ASCII without
 * escapes, no label twice -- read in one pass with no tree built (jansson
 * spent four fifths of a refresh at 1,000 hosts building and freeing
 * one: docs/performance.md). Such strings need no sanitising nor
 * escaping, so the samples are the ones fleet_parse_vector_json makes
 * (check_fleet_parse and fuzz_fleet compare the two). Anything else, a
 * bad answer included, is left to jansson, which also says what is
 * wrong: out is then as it was. */
struct cur {
	const char *p, *e;
};

static bool lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->e - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

/* A string of printable ASCII but '"' and '\\': its bytes, unquoted. */
static bool plain_str(struct cur *c, const char **s, size_t *n)
{
	if (c->p >= c->e || *c->p != '"')
		return false;
	const char *q = ++c->p;
	while (q < c->e && *q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
		q++;
	if (q >= c->e || *q != '"')
		return false;
	*s = c->p;
	*n = (size_t)(q - c->p);
	c->p = q + 1;
	return true;
}

/* A JSON number as jansson reads it: an integer (up to 18 digits, so no
 * overflow) through long long, a real through strtod, never infinite. */
static bool plain_num(struct cur *c, double *v)
{
	const char *q = c->p, *e = c->e;
	bool real = false;
	if (q < e && *q == '-')
		q++;
	if (q < e && *q == '0') {
		q++;
	} else if (q < e && *q >= '1' && *q <= '9') {
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	} else {
		return false;
	}
	if (q < e && *q == '.') {
		real = true;
		if (++q >= e || *q < '0' || *q > '9')
			return false;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < e && (*q == 'e' || *q == 'E')) {
		real = true;
		if (++q < e && (*q == '+' || *q == '-'))
			q++;
		if (q >= e || *q < '0' || *q > '9')
			return false;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
	}
	char t[40];
	size_t n = (size_t)(q - c->p);
	if (n >= sizeof(t) || (!real && n > 18))
		return false;
	memcpy(t, c->p, n);
	t[n] = 0;
	*v = real ? strtod(t, NULL) : (double)strtoll(t, NULL, 10);
	if (!isfinite(*v))
		return false;
	c->p = q;
	return true;
}

/* At most this many labels a sample on the fast path (for the check that
 * none comes twice); more go to jansson. */
#define FAST_LABELS 32

static bool vector_fast(const char *body, size_t len, struct fleet_samples *out)
{
	struct cur c = { body, body + len };
	if (!lit(&c, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["))
		return false;
	int n0 = out->n;
	struct buf lb = { 0 };
	if (!lit(&c, "]")) {
		for (;;) {
			if (!lit(&c, "{\"metric\":{"))
				goto no;
			const char *ks[FAST_LABELS], *inst = "";
			size_t kn[FAST_LABELS], instn = 0;
			int nk = 0;
			lb.n = 0;
			while (!lit(&c, "}")) {
				const char *k, *v;
				size_t n, vn;
				if ((nk && !lit(&c, ",")) || !plain_str(&c, &k, &n) || !lit(&c, ":") ||
				    !plain_str(&c, &v, &vn) || nk == FAST_LABELS)
					goto no;
				for (int i = 0; i < nk; i++)
					if (kn[i] == n && !memcmp(ks[i], k, n))
						goto no;
				ks[nk] = k;
				kn[nk++] = n;
				if (n == 8 && !memcmp(k, "instance", 8)) {
					inst = v;
					instn = vn;
					continue;
				}
				if (lb.n)
					put(&lb, ",", 1);
				put(&lb, k, n);
				put(&lb, "=\"", 2);
				put(&lb, v, vn);
				put(&lb, "\"", 1);
			}
			double t, v;
			const char *vs;
			size_t vn;
			char vt[64];
			if (!lit(&c, ",\"value\":[") || !plain_num(&c, &t) || !lit(&c, ",") || !plain_str(&c, &vs, &vn) ||
			    vn >= sizeof(vt) || !lit(&c, "]}"))
				goto no;
			memcpy(vt, vs, vn);
			vt[vn] = 0;
			if (!value_of(vt, &v))
				goto no;
			struct fleet_sample *x = add(out);
			x->value = v;
			x->time = t;
			x->instance = xstrndup(inst, instn);
			x->labels = xstrndup(lb.p ? lb.p : "", lb.n);
			if (lit(&c, "]"))
				break;
			if (!lit(&c, ","))
				goto no;
		}
	}
	if (!lit(&c, "}}") || c.p != c.e)
		goto no;
	free(lb.p);
	return true;
no:
	free(lb.p);
	for (int i = n0; i < out->n; i++) {
		free(out->v[i].instance);
		free(out->v[i].name);
		free(out->v[i].labels);
	}
	out->n = n0;
	return false;
}

int fleet_parse_vector(const char *body, size_t len, struct fleet_samples *out, char **cause)
{
	if (vector_fast(body, len, out))
		return 0;
	return fleet_parse_vector_json(body, len, out, cause);
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

bool fleet_label_next(const char **p, const char **key, size_t *klen, const char **v0, const char **v1)
{
	const char *c = *p;
	if (!c)
		return false;
	while (*c == ',' || *c == ' ')
		c++;
	const char *eq = strchr(c, '=');
	if (!*c || !eq || eq[1] != '"')
		return false;
	/* The value runs to the first unescaped quote (or the end). */
	const char *v = eq + 2;
	while (*v && *v != '"')
		v += *v == '\\' && v[1] ? 2 : 1;
	*key = c;
	*klen = (size_t)(eq - c);
	*v0 = eq + 2;
	*v1 = v;
	*p = *v ? v + 1 : v;
	return true;
}

char *fleet_label_value(const char *v0, const char *v1)
{
	/* Unescaped into one allocation of the escaped length at most, then
	 * flattened in place (the same length). */
	char *val = xmalloc((size_t)(v1 - v0) + 1), *o = val;
	for (const char *c = v0; c < v1; c++) {
		if (*c == '\\' && c + 1 < v1) {
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

char *fleet_label(const char *labels, const char *key)
{
	size_t kl = strlen(key), n;
	const char *p = labels, *k, *v0, *v1;
	while (fleet_label_next(&p, &k, &n, &v0, &v1))
		if (n == kl && !strncmp(k, key, kl))
			return fleet_label_value(v0, v1);
	return NULL;
}
