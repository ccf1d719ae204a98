/* replay_json.c: the recording reader's access to JSON: a line parsed only
 * once its cost is known to be within limits (json_budget), and getters
 * that check each value's type and range and, for a message, say what was
 * found. Split from replay.c because both the first line (replay.c) and
 * each interval (replay_interval.c) are read through them. */
#include "config.h"
#include "replay.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonbudget.h"
#include "util.h"
#include "replay_impl.h"

/* Parses a line once its cost is known to be within limits. */
json_t *replay_parse_bounded(const char *text, size_t len, const struct json_budget *limits, char **cause)
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

const char *replay_json_str(json_t *o, const char *key)
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

bool replay_json_int(json_t *v, int lo, int hi, int *out)
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
const char *replay_json_found(json_t *v, char *buf, size_t n)
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
int replay_field_num(json_t *o, const char *key, double lo, double hi, bool above_lo, bool may_be_null,
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
	return set_cause(cause, "\"%s\" is %s; expected a number %s %g to %g%s", key, replay_json_found(v, what, sizeof(what)),
			 above_lo ? "above" : "from", lo, hi, may_be_null ? " or null" : "");
}

/* An array of exactly n numbers (or null when n is 0 or may be absent)
 * into a new buffer; NULL with *why. */
double *replay_json_nums(json_t *o, const char *key, size_t n, bool may_be_null, const char **why)
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
