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
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return set_cause(cause, "the answer is not JSON (%s at byte %d)", je.text, je.position);
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
		char *labels = xstrdup("");
		json_object_foreach(metric, key, lv) {
			const char *s = json_string_value(lv);
			if (!s || !strcmp(key, "instance"))
				continue;
			char *k = flat(key), *val = flat(s);
			/* As the text format escapes a value, so that fleet_label
			 * reads it back whole. */
			xappendf(&labels, "%s%s=\"", *labels ? "," : "", k);
			for (const char *c = val; *c; c++)
				xappendf(&labels, "%s%c", *c == '"' || *c == '\\' ? "\\" : "", *c);
			xappendf(&labels, "\"");
			free(k);
			free(val);
		}
		x->labels = labels;
	}
	rc = 0;
done:
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
		const char *v = eq + 2;
		char *val = xstrdup("");
		size_t vn = 0;
		for (; *v && *v != '"'; v++) {
			char c = *v;
			if (c == '\\' && v[1]) {
				v++;
				c = *v == 'n' ? '\n' : *v;
			}
			val = xrealloc(val, vn + 2);
			val[vn++] = c;
			val[vn] = 0;
		}
		if ((size_t)(eq - p) == kl && !strncmp(p, key, kl)) {
			char *f = flat(val);
			free(val);
			return f;
		}
		free(val);
		if (!*v)
			return NULL;
		p = v + 1;
	}
	return NULL;
}
