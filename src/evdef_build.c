/* evdef_build.c: what every stanza builder (evdef_build_*.c) checks the
 * same way: the keys each stanza accepts, the values (numbers, bit ranges,
 * field masks, words, names), unique names, formula errors, and the first
 * error that stops a load, with its "file:line:col: ..." (evdef_at). The
 * stanzas themselves are built by evdef_build_model.c (model and pmu),
 * evdef_build_event.c and evdef_build_metric.c (metrics and views), split
 * so that each file holds the rules of one kind of definition. Formula
 * names are resolved afterwards by evdef_resolve.c. Nothing is skipped:
 * any problem stops the load. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "evdef.h"
#include "format.h"
#include "evdef_impl.h"
#include "evdef_build_impl.h"
#include "name_index.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- keys each stanza accepts ---------------------------------------- */

struct key_spec { const char *key; bool repeat; };

static const struct key_spec model_keys[] = {
	{ "desc", false }, { "match", true }, { "include", true }, { "sim", false }, { "alias", false },
	{ "shape", false }, { "l3_domain", false }, { NULL, false },
};
static const struct key_spec pmu_keys[] = {
	{ "perf", false }, { "kind", false }, { "scope", false }, { "counters", false },
	{ "fixed", false }, { "nmi", false }, { "nmi_fixed", false }, { "notation", false },
	{ "field", true }, { "ignore", false }, { "desc", false }, { NULL, false },
};
static const struct key_spec event_keys[] = {
	{ "pmu", false }, { "raw", false }, { "pfm", false }, { "fields", false }, { "perf", false },
	{ "proc", false }, { "desc", false }, { "sim", false }, { "flags", false }, { "arch_bit", false },
	{ "requires", false }, { "fallback", false }, { "scale", false }, { "portable", true }, { "counters", false },
	{ NULL, false },
};
static const struct key_spec metric_keys[] = {
	{ "label", false }, { "unit", false }, { "scope", false }, { "groups", false },
	{ "formula", false }, { "desc", false }, { "note", false }, { "perf", false }, { "parent", false },
	{ "range", false }, { "truth", false }, { "split", false },
	{ NULL, false },
};
static const struct key_spec view_keys[] = {
	{ "title", false }, { "key", false }, { "bar", false }, { "pin", false }, { "column", true }, { "rows", false },
	{ NULL, false },
};

static const struct key_spec *const stanza_keys[] = {
	[ST_MODEL] = model_keys, [ST_PMU] = pmu_keys, [ST_EVENT] = event_keys,
	[ST_METRIC] = metric_keys, [ST_VIEW] = view_keys,
};
static const char *const stanza_word[] = {
	[ST_MODEL] = "model", [ST_PMU] = "pmu", [ST_EVENT] = "event", [ST_METRIC] = "metric", [ST_VIEW] = "view",
};

/* Records the first error with its position; returns -1. */
int evdef_at(struct builder *b, const char *file, int line, int col, const char *fmt, ...)
{
	if (!b->err) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = xvasprintf(fmt, ap);
		va_end(ap);
		b->err = def_where(file, line, col, "%s", msg);
		free(msg);
	}
	return -1;
}

/* Refuses unknown keys and repeats of keys that may appear only once. */
int evdef_check_keys(struct builder *b, const struct def_stanza *st)
{
	const struct key_spec *ks = stanza_keys[st->kind];
	uint32_t seen = 0;   /* the keys met, by their place in ks (fewer than 32) */
	for (int i = 0; i < st->nattrs; i++) {
		const struct def_attr *a = &st->attrs[i];
		const struct key_spec *k = ks;
		/* The first character before the call: most keys differ there,
		 * and an imported model checks some twenty thousand. */
		while (k->key && (k->key[0] != a->key[0] || strcmp(k->key, a->key)))
			k++;
		if (!k->key) {
			char list[256] = "";
			for (const struct key_spec *q = ks; q->key; q++) {
				strcat(list, q == ks ? "" : (q[1].key ? ", " : " or "));
				strcat(list, q->key);
			}
			return evdef_at(b, st->file, a->line, a->key_col, "unknown key '%s' in %s '%s' (expected %s)",
					a->key, stanza_word[st->kind], st->name, list);
		}
		if (k->repeat)
			continue;
		/* A key met before is looked for among the lines before only
		 * then, for its line: not every pair of lines compared. */
		uint32_t bit = 1u << (k - ks);
		if (seen & bit) {
			for (int j = 0; j < i; j++)
				if (!strcmp(st->attrs[j].key, a->key))
					return evdef_at(b, st->file, a->line, a->key_col, "duplicate key '%s' (first at line %d)",
							a->key, st->attrs[j].line);
		}
		seen |= bit;
	}
	return 0;
}

char *evdef_keep(const struct builder *b, const char *s)
{
	return b->in_place ? (char *)s : xstrdup(s);
}

const struct def_attr *evdef_attr_need(struct builder *b, const struct def_stanza *st, const char *key)
{
	const struct def_attr *a = evdef_attr_get(st, key);
	if (!a)
		AT_STANZA(b, st, "missing required key '%s' in %s '%s'", key, stanza_word[st->kind], st->name);
	return a;
}

/* ---- values ------------------------------------------------------------- */

static int get_long(struct builder *b, const struct def_stanza *st, const struct def_attr *a,
		    long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(a->value, &end, 0);
	if (errno || end == a->value || *end || v < lo || v > hi)
		return AT_VALUE(b, st, a, "bad number '%s': expected an integer from %ld to %ld", a->value, lo, hi);
	*out = v;
	return 0;
}

int evdef_get_int(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int lo, int hi,
		  int dflt, int *out)
{
	long v = 0;
	if (!a) {
		*out = dflt;
		return 0;
	}
	if (get_long(b, st, a, lo, hi, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* A hex digit's value, or -1. */
static int hex_digit(unsigned char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

bool evdef_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	/* What nearly every raw value is, 0x and up to 16 hex digits, read
	 * here: strtoull's locale and base handling were 250 instructions a
	 * value (amd-zen5 has 399). Anything else goes to strtoull. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hex_digit((unsigned char)s[2]) >= 0) {
		uint64_t v = 0;
		int i = 2, d;
		while (i < 18 && (d = hex_digit((unsigned char)s[i])) >= 0) {
			v = v << 4 | (uint64_t)d;
			i++;
		}
		if (!s[i]) {
			*out = v;
			return true;
		}
	}
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* Parses a list of bits and bit ranges, "0-7,32-35", into up to max ranges;
 * returns the count or -1 with *bad the offset of the faulty item. */
int evdef_parse_bits(const char *s, struct hw_field *f, int max, int *bad)
{
	const char *p = s;
	int n = 0;
	for (;;) {
		const char *item = p;
		char *end;
		if (!isdigit((unsigned char)*p)) {
			*bad = (int)(item - s);
			return -1;
		}
		long lo = strtol(p, &end, 10), hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p)) {
				*bad = (int)(p - s);
				return -1;
			}
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (lo < 0 || hi > 63 || lo > hi || n == max) {
			*bad = (int)(item - s);
			return -1;
		}
		f->range[n].lo = (int)lo;
		f->range[n].hi = (int)hi;
		n++;
		if (!*p)
			break;
		if (*p != ',') {
			*bad = (int)(p - s);
			return -1;
		}
		p++;
	}
	f->nranges = n;
	return n;
}

uint64_t evdef_field_mask(const struct hw_field *f)
{
	/* Bits lo to hi as all the bits to hi less those below lo, not a
	 * bit at a time (each raw event checks its PMU's fields). */
	uint64_t m = 0;
	for (int i = 0; i < f->nranges; i++) {
		int lo = f->range[i].lo, hi = f->range[i].hi;
		if (lo < 0 || hi > 63 || lo > hi)
			continue;
		uint64_t upto = hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1;
		m |= upto & ~((1ULL << lo) - 1);
	}
	return m;
}

/* The next whitespace-separated word of *p, or NULL at the end. */
char *evdef_next_word(const char **p)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	*p = e;
	return xstrndup(s, (size_t)(e - s));
}

/* The column of the word that ends at p within the attribute's value. */
int evdef_word_col(const struct def_attr *a, const char *p, const char *w)
{
	return a->value_col + (int)(p - a->value) - (int)strlen(w);
}

bool evdef_is_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/* Event and metric names share one namespace. */
int evdef_check_unique_name(struct builder *b, const struct def_stanza *st)
{
	const struct model *m = b->m;
	/* Hashed once for the two look-ups and the index (evdef_index_add). */
	uint32_t h = name_index_hash(st->name);
	b->hashed = st;
	b->name_hash = h;
	int i = m->index[NAME_EVENT] ? name_index_find_hashed(m->index[NAME_EVENT], st->name, h)
				     : model_find_event(m, st->name);
	if (i >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->events[i].file, m->events[i].line);
	i = m->index[NAME_METRIC] ? name_index_find_hashed(m->index[NAME_METRIC], st->name, h)
				  : model_find_metric(m, st->name);
	if (i >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->metrics[i].file, m->metrics[i].line);
	/* The reserved names by their first letter before strcmp. */
	char c = st->name[0];
	if ((c == 'i' && !strcmp(st->name, "interval_s")) || (c == 'm' && (!strcmp(st->name, "min") || !strcmp(st->name, "max"))) ||
	    (c == 'a' && !strcmp(st->name, "abs")))
		return evdef_at(b, st->file, st->line, st->name_col, "'%s' is a reserved name of the formula language", st->name);
	return 0;
}

void evdef_index_add(struct builder *b, const struct def_stanza *st, enum name_kind k, const char *name, int i)
{
	struct model *m = b->m;
	if (b->hashed != st || strcmp(name, st->name)) {
		model_index_add(m, k, name, i);
		return;
	}
	if (!m->index[k])
		m->index[k] = name_index_new();
	name_index_add_hashed(m->index[k], name, b->name_hash, i);
}

/* Turns "col N: message" from expr_parse into file:line:col of the file. */
int evdef_formula_error(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int col,
			const char *cause)
{
	const char *msg = cause ? cause : "bad formula";
	if (!strncmp(msg, "col ", 4)) {
		const char *c = strchr(msg, ':');
		if (c)
			msg = c + 2;
	}
	return evdef_at(b, st->file, a->line, a->value_col + col - 1, "%s", msg);
}
