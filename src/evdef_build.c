/* evdef_build.c: turns the pmu, event, metric and view stanzas read by
 * evdef_parse.c (and the model stanza's desc and match lines) into the
 * structs of a struct model. It checks every key and value: unknown or
 * repeated keys, numbers, bit ranges, field layouts, encodings, flags, names
 * and column options, and parses formulas. Formula names are resolved
 * afterwards by evdef_resolve.c. Any problem stops the load with a
 * "file:line:col: ..." cause; nothing is skipped. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "evdef.h"
#include "format.h"
#include "evdef_internal.h"

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
	{ "title", false }, { "key", false }, { "bar", false }, { "column", true }, { "rows", false }, { NULL, false },
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

#define AT_VALUE(b, st, a, ...) evdef_at(b, (st)->file, (a)->line, (a)->value_col, __VA_ARGS__)
#define AT_STANZA(b, st, ...) evdef_at(b, (st)->file, (st)->line, 1, __VA_ARGS__)

/* Refuses unknown keys and repeats of keys that may appear only once. */
static int check_keys(struct builder *b, const struct def_stanza *st)
{
	const struct key_spec *ks = stanza_keys[st->kind];
	for (int i = 0; i < st->nattrs; i++) {
		const struct def_attr *a = &st->attrs[i];
		const struct key_spec *k = ks;
		while (k->key && strcmp(k->key, a->key))
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
		for (int j = 0; j < i; j++)
			if (!strcmp(st->attrs[j].key, a->key))
				return evdef_at(b, st->file, a->line, a->key_col, "duplicate key '%s' (first at line %d)",
						a->key, st->attrs[j].line);
	}
	return 0;
}

static const struct def_attr *attr_get(const struct def_stanza *st, const char *key)
{
	for (int i = 0; i < st->nattrs; i++)
		if (!strcmp(st->attrs[i].key, key))
			return &st->attrs[i];
	return NULL;
}

static const struct def_attr *attr_need(struct builder *b, const struct def_stanza *st, const char *key)
{
	const struct def_attr *a = attr_get(st, key);
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

static int get_int(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int lo, int hi,
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


static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* Parses a list of bits and bit ranges, "0-7,32-35", into up to max ranges;
 * returns the count or -1 with *bad the offset of the faulty item. */
static int parse_bits(const char *s, struct hw_field *f, int max, int *bad)
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

static uint64_t field_mask(const struct hw_field *f)
{
	uint64_t m = 0;
	for (int i = 0; i < f->nranges; i++)
		for (int bit = f->range[i].lo; bit <= f->range[i].hi; bit++)
			m |= 1ULL << bit;
	return m;
}

/* The next whitespace-separated word of *p, or NULL at the end. */
static char *next_word(const char **p)
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
static int word_col(const struct def_attr *a, const char *p, const char *w)
{
	return a->value_col + (int)(p - a->value) - (int)strlen(w);
}

static bool is_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/* ---- model stanza -------------------------------------------------------- */

static int parse_match(struct builder *b, const struct def_stanza *st, const struct def_attr *a,
		       struct model_match *mm)
{
	const char *p = a->value;
	char *w = next_word(&p);
	*mm = (struct model_match){ .family = -1, .model_lo = 0, .model_hi = INT_MAX };
	mm->vendor = w;
	bool fam = false, mod = false;
	while ((w = next_word(&p))) {
		int col = word_col(a, p, w);
		char *end;
		if (!strncmp(w, "family=", 7) && !fam) {
			errno = 0;
			long v = strtol(w + 7, &end, 0);
			if (errno || end == w + 7 || *end || v < 0 || v > 0xffff) {
				evdef_at(b, st->file, a->line, col + 7, "expected a family number but found '%s'", w + 7);
				free(w);
				return -1;
			}
			mm->family = (int)v;
			fam = true;
		} else if (!strncmp(w, "model=", 6) && !mod) {
			errno = 0;
			long lo = strtol(w + 6, &end, 0), hi = lo;
			bool ok = !errno && end != w + 6;
			if (ok && *end == '-') {
				const char *q = end + 1;
				hi = strtol(q, &end, 0);
				ok = !errno && end != q;
			}
			if (!ok || *end || lo < 0 || hi > 0xffff || lo > hi) {
				evdef_at(b, st->file, a->line, col + 6, "expected a model number or range (0x00-0x0f) but found '%s'",
					 w + 6);
				free(w);
				return -1;
			}
			mm->model_lo = (int)lo;
			mm->model_hi = (int)hi;
			mod = true;
		} else {
			evdef_at(b, st->file, a->line, col, "expected family=N or model=N[-M] (once each) but found '%s'", w);
			free(w);
			return -1;
		}
		free(w);
	}
	return 0;
}

void evdef_free_matches(struct model_match *mm, int n)
{
	for (int i = 0; i < n; i++)
		free(mm[i].vendor);
	free(mm);
}

/* "SxCxNxT": four positive numbers, at most 4096 CPUs in all. */
static int parse_shape(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int shape[4])
{
	const char *p = a->value;
	long long total = 1;
	for (int k = 0; k < 4; k++) {
		char *end = NULL;
		errno = 0;
		long v = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
		if (v < 1 || v > 4096 || errno || (k < 3 && *end != 'x') || (k == 3 && *end))
			return evdef_at(b, st->file, a->line, a->value_col,
					"expected a shape SOCKETSxCCXxCORESxTHREADS such as 1x2x8x2 but found '%s'",
					a->value);
		shape[k] = (int)v;
		total *= v;
		p = end + (k < 3);
	}
	if (total > 4096)
		return evdef_at(b, st->file, a->line, a->value_col, "shape '%s' has %lld CPUs; at most 4096", a->value,
				total);
	return 0;
}

/* `range LO HI`: numbers, or max_ghz for the part's highest clock. */
static int parse_range(struct builder *b, const struct def_stanza *st, const struct def_attr *a,
		       struct metric_def *md)
{
	char lo[64], hi[64], extra[2];
	char *end = NULL;
	if (sscanf(a->value, "%63s %63s %1s", lo, hi, extra) != 2)
		goto bad;
	md->lo = strtod(lo, &end);
	if (*end || !isfinite(md->lo))
		goto bad;
	md->hi_ghz = !strcmp(hi, "max_ghz");
	md->hi = md->hi_ghz ? NAN : strtod(hi, &end);
	if (!md->hi_ghz && (*end || !isfinite(md->hi) || md->hi < md->lo))
		goto bad;
	return 0;
bad:
	return AT_VALUE(b, st, a, "expected 'range LO HI' (numbers, LO <= HI; HI may be max_ghz) but found '%s'",
			a->value);
}

int evdef_build_model_stanza(struct builder *b, const struct def_stanza *st, struct model_info *mi)
{
	if (check_keys(b, st) < 0)
		return -1;
	const struct def_attr *a = attr_get(st, "desc");
	mi->desc = xstrdup(a ? a->value : "");
	/* The simulated PMU's defaults for this CPU (clock, dispatch width);
	 * kept as text, the simulator checks it when it starts. */
	if ((a = attr_get(st, "sim")))
		mi->sim_args = xstrdup(a->value);
	if ((a = attr_get(st, "alias"))) {
		if (!is_name(a->value))
			return evdef_at(b, st->file, a->line, a->value_col, "expected a name such as zen5 but found '%s'",
					a->value);
		mi->alias = xstrdup(a->value);
	}
	/* A short word for the dashboard's L3 panels and column (on Intel the
	 * L3 is per socket, not per CCX). */
	if ((a = attr_get(st, "l3_domain"))) {
		if (!is_name(a->value) || strlen(a->value) > 6)
			return evdef_at(b, st->file, a->line, a->value_col,
					"expected a word of at most 6 letters such as LLC but found '%s'", a->value);
		mi->l3_domain = xstrdup(a->value);
	}
	if ((a = attr_get(st, "shape")) && parse_shape(b, st, a, mi->sim_shape) < 0)
		return -1;
	for (int i = 0; i < st->nattrs; i++) {
		if (strcmp(st->attrs[i].key, "match"))
			continue;
		mi->match = xrealloc(mi->match, (size_t)(mi->nmatch + 1) * sizeof(*mi->match));
		if (parse_match(b, st, &st->attrs[i], &mi->match[mi->nmatch]) < 0) {
			free(mi->match[mi->nmatch].vendor);
			return -1;
		}
		mi->nmatch++;
	}
	return 0;
}

/* ---- PMUs ---------------------------------------------------------------- */

static const char *const pmu_kind_names[] = { "core", "uncore", "software", "proc" };

int evdef_build_pmu(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	int dup = model_find_pmu(m, st->name);
	if (dup >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->pmus[dup].file, m->pmus[dup].line);
	if (check_keys(b, st) < 0)
		return -1;
	const struct def_attr *perf = attr_need(b, st, "perf");
	const struct def_attr *kind = perf ? attr_need(b, st, "kind") : NULL;
	const struct def_attr *scope = kind ? attr_need(b, st, "scope") : NULL;
	if (!scope)
		return -1;

	m->pmus = evdef_grow(m->pmus, m->npmus, sizeof(*m->pmus));
	struct pmu_def *p = &m->pmus[m->npmus++];
	*p = (struct pmu_def){ .name = xstrdup(st->name), .perf_name = xstrdup(perf->value),
			       .file = xstrdup(st->file), .line = st->line };
	evdef_index_add(m, NAME_PMU, p->name, m->npmus - 1);

	int k = -1;
	for (int i = 0; i < (int)ARRAY_SIZE(pmu_kind_names); i++)
		if (!strcmp(kind->value, pmu_kind_names[i]))
			k = i;
	if (k < 0)
		return AT_VALUE(b, st, kind, "expected core, uncore, software or proc but found '%s'", kind->value);
	p->kind = (enum pmu_kind)k;
	int s = scope_parse(scope->value);
	if (s < 0)
		return AT_VALUE(b, st, scope, "expected thread, core, ccx, socket or system but found '%s'", scope->value);
	p->scope = (enum scope)s;

	const struct def_attr *a = attr_get(st, "counters");
	if (!a && (p->kind == PMU_CORE || p->kind == PMU_UNCORE)) {
		attr_need(b, st, "counters");
		return -1;
	}
	if (get_int(b, st, a, 0, 64, 0, &p->counters) < 0 ||
	    get_int(b, st, attr_get(st, "fixed"), 0, 16, 0, &p->fixed) < 0 ||
	    get_int(b, st, attr_get(st, "nmi"), 0, p->counters, 0, &p->nmi_reserved) < 0)
		return -1;
	if ((a = attr_get(st, "nmi_fixed"))) {
		if (!strcmp(a->value, "yes"))
			p->nmi_takes_fixed = true;
		else if (strcmp(a->value, "no"))
			return AT_VALUE(b, st, a, "expected yes or no but found '%s'", a->value);
		if (p->nmi_takes_fixed && p->fixed == 0)
			return AT_VALUE(b, st, a, "expected 'no': pmu '%s' has no fixed counters", st->name);
	}
	if ((a = attr_get(st, "notation"))) {
		if (!is_name(a->value))
			return AT_VALUE(b, st, a, "expected a notation such as Event or L3Event but found '%s'", a->value);
		p->notation = xstrdup(a->value);
	}
	if ((a = attr_get(st, "ignore"))) {
		struct hw_field f = { 0 };
		int bad;
		if (parse_bits(a->value, &f, 4, &bad) < 0)
			return evdef_at(b, st->file, a->line, a->value_col + bad,
					"expected up to 4 bits or bit ranges from 0 to 63 such as 16-17,20,22");
		p->ignore_mask = field_mask(&f);
	}
	uint64_t used = p->ignore_mask;
	for (int i = 0; i < st->nattrs; i++) {
		a = &st->attrs[i];
		if (strcmp(a->key, "field"))
			continue;
		const char *q = a->value;
		char *fname = next_word(&q);
		int fcol = a->value_col;
		while (*q == ' ' || *q == '\t')
			q++;
		int bcol = a->value_col + (int)(q - a->value);
		if (!is_name(fname)) {
			free(fname);
			return evdef_at(b, st->file, a->line, fcol, "expected a field name");
		}
		for (int j = 0; j < p->nfields; j++)
			if (!strcmp(p->fields[j].name, fname)) {
				evdef_at(b, st->file, a->line, fcol, "duplicate field '%s'", fname);
				free(fname);
				return -1;
			}
		struct hw_field f = { 0 };
		int bad;
		if (!*q || parse_bits(q, &f, 4, &bad) < 0) {
			free(fname);
			return evdef_at(b, st->file, a->line, *q ? bcol + bad : bcol,
					"expected up to 4 bits or bit ranges from 0 to 63, low bits first, such as 0-7,32-35");
		}
		uint64_t fm = field_mask(&f);
		if (fm & used) {
			free(fname);
			return evdef_at(b, st->file, a->line, bcol, "field bits overlap another field or the ignore mask");
		}
		used |= fm;
		f.name = fname;
		p->fields = xrealloc(p->fields, (size_t)(p->nfields + 1) * sizeof(*p->fields));
		p->fields[p->nfields++] = f;
	}
	return 0;
}

/* ---- events --------------------------------------------------------------- */

/* Event and metric names share one namespace. */
static int check_unique_name(struct builder *b, const struct def_stanza *st)
{
	const struct model *m = b->m;
	int i = model_find_event(m, st->name);
	if (i >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->events[i].file, m->events[i].line);
	i = model_find_metric(m, st->name);
	if (i >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->metrics[i].file, m->metrics[i].line);
	if (!strcmp(st->name, "interval_s") || !strcmp(st->name, "min") || !strcmp(st->name, "max") ||
	    !strcmp(st->name, "abs"))
		return evdef_at(b, st->file, st->line, st->name_col, "'%s' is a reserved name of the formula language", st->name);
	return 0;
}

/* Turns "col N: message" from expr_parse into file:line:col of the file. */
static int formula_error(struct builder *b, const struct def_stanza *st, const struct def_attr *a, int col,
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

static int check_fields_spec(struct builder *b, const struct def_stanza *st, const struct def_attr *a)
{
	/* name[=number] separated by commas, as in sysfs event files. */
	const char *p = a->value;
	for (;;) {
		const char *item = p;
		while (islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_')
			p++;
		if (p == item)
			return evdef_at(b, st->file, a->line, a->value_col + (int)(p - a->value),
					"expected a format field name such as event=0x04");
		if (*p == '=') {
			uint64_t v;
			const char *num = ++p;
			while (isxdigit((unsigned char)*p) || *p == 'x' || *p == 'X')
				p++;
			char *copy = xstrndup(num, (size_t)(p - num));
			bool ok = parse_u64(copy, &v);
			free(copy);
			if (!ok)
				return evdef_at(b, st->file, a->line, a->value_col + (int)(num - a->value),
						"expected a number after '='");
		}
		if (!*p)
			return 0;
		if (*p != ',')
			return evdef_at(b, st->file, a->line, a->value_col + (int)(p - a->value), "expected ',' or the end of the value");
		p++;
	}
}

/* `portable NAME [SCALE]`: NAME a lower-case identifier that says its unit
 * where it has one (memory_read_bytes), without the _total Prometheus adds;
 * SCALE a finite non-zero number (64 bytes a CAS command; -1 to subtract). */
static int build_portable(struct builder *b, const struct def_stanza *st, struct event_def *ev)
{
	for (int i = 0; i < st->nattrs; i++) {
		const struct def_attr *a = &st->attrs[i];
		if (strcmp(a->key, "portable"))
			continue;
		const char *q = a->value;
		char *name = next_word(&q), *scale = next_word(&q);
		int scale_col = scale ? word_col(a, q, scale) : 0;
		char *extra = next_word(&q);
		int extra_col = extra ? word_col(a, q, extra) : 0;
		double v = 1;
		int rc = 0;
		bool ok = name && islower((unsigned char)name[0]);
		for (const char *c = name; ok && *c; c++)
			ok = islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_';
		size_t n = name ? strlen(name) : 0;
		if (!ok || (n >= 6 && !strcmp(name + n - 6, "_total")))
			rc = AT_VALUE(b, st, a, "expected a series name such as instructions or memory_read_bytes "
					  "(lower case, digits and '_', without _total) but found '%s'", a->value);
		else if (scale && (!parse_double_c(scale, &v) || v == 0))
			rc = evdef_at(b, st->file, a->line, scale_col,
				      "expected a non-zero scale such as 64 or -1 but found '%s'", scale);
		else if (extra)
			rc = evdef_at(b, st->file, a->line, extra_col,
				      "expected the end of the value after the scale but found '%s'", extra);
		for (int k = 0; rc == 0 && k < ev->nportable; k++)
			if (!strcmp(ev->portable[k].name, name))
				rc = AT_VALUE(b, st, a, "portable series '%s' named twice for event '%s'", name, ev->name);
		free(scale);
		free(extra);
		if (rc < 0) {
			free(name);
			return -1;
		}
		ev->portable = xrealloc(ev->portable, sizeof(*ev->portable) * (size_t)(ev->nportable + 1));
		ev->portable[ev->nportable++] = (struct portable_term){ .name = name, .scale = v };
	}
	return 0;
}

/* The one encoding key of event stanza st (raw, pfm, fields, perf or
 * proc) in *out; returns its enum enc_kind, or -1 with the error. */
static int find_encoding(struct builder *b, const struct def_stanza *st, const struct def_attr **out)
{
	static const char *const enc_keys[] = { [ENC_RAW] = "raw", [ENC_PFM] = "pfm", [ENC_FIELDS] = "fields",
						[ENC_PERF] = "perf", [ENC_PROC] = "proc" };
	const struct def_attr *enc = NULL;
	int kind = -1;
	for (int i = 0; i < st->nattrs; i++)
		for (int k = 0; k < (int)ARRAY_SIZE(enc_keys); k++)
			if (!strcmp(st->attrs[i].key, enc_keys[k])) {
				if (enc)
					return evdef_at(b, st->file, st->attrs[i].line, st->attrs[i].key_col,
							"expected only one of raw, pfm, fields, perf or proc ('%s' is at line %d)",
							enc->key, enc->line);
				enc = &st->attrs[i];
				kind = k;
			}
	if (!enc)
		return AT_STANZA(b, st, "missing required key (raw, pfm, fields, perf or proc) in event '%s'", st->name);
	*out = enc;
	return kind;
}

/* The encoding's value, checked against its PMU p: a raw value within
 * the PMU's fields, a fields spec, perf's software:/hardware: names, a
 * /proc figure. 0, or -1 with the error. */
static int check_encoding(struct builder *b, const struct def_stanza *st, const struct pmu_def *p,
			  const struct def_attr *enc, int kind, struct event_def *ev)
{
	if ((p->kind == PMU_PROC) != (kind == ENC_PROC))
		return evdef_at(b, st->file, enc->line, enc->key_col,
				kind == ENC_PROC ? "expected raw, pfm, fields or perf: pmu '%s' is not of kind proc"
				: "expected 'proc': pmu '%s' is of kind proc", p->name);
	switch (kind) {
	case ENC_RAW:
		if (!parse_u64(enc->value, &ev->raw))
			return AT_VALUE(b, st, enc, "bad number '%s': expected a 64-bit raw value such as 0x4300C3", enc->value);
		if (p->nfields == 0)
			return AT_VALUE(b, st, enc, "a raw value needs the 'field' layout of pmu '%s', which has none", p->name);
		else {
			uint64_t allowed = p->ignore_mask;
			for (int i = 0; i < p->nfields; i++)
				allowed |= field_mask(&p->fields[i]);
			if (ev->raw & ~allowed)
				return AT_VALUE(b, st, enc,
						"raw value %s has bits 0x%llx outside the fields and ignore mask of pmu '%s'",
						enc->value, (unsigned long long)(ev->raw & ~allowed), p->name);
		}
		break;
	case ENC_FIELDS:
		if (check_fields_spec(b, st, enc) < 0)
			return -1;
		break;
	case ENC_PERF:
		if ((strncmp(enc->value, "software:", 9) || !enc->value[9]) &&
		    (strncmp(enc->value, "hardware:", 9) || !enc->value[9]))
			return AT_VALUE(b, st, enc, "expected software:NAME or hardware:NAME but found '%s'", enc->value);
		break;
	case ENC_PROC:
		if (strcmp(enc->value, "busy_ns") && strcmp(enc->value, "total_ns"))
			return AT_VALUE(b, st, enc, "expected busy_ns or total_ns but found '%s'", enc->value);
		break;
	default:
		break;
	}
	return 0;
}

/* flags: merge, fixed, saturates, slots, topdown. */
static int event_flags(struct builder *b, const struct def_stanza *st, struct event_def *ev)
{
	const struct def_attr *a;
	if ((a = attr_get(st, "flags"))) {
		const char *q = a->value;
		char *w;
		while ((w = next_word(&q))) {
			int col = word_col(a, q, w);
			if (!strcmp(w, "merge"))
				ev->flags |= EVF_MERGE;
			else if (!strcmp(w, "fixed"))
				ev->flags |= EVF_FIXED;
			else if (!strcmp(w, "saturates"))
				ev->flags |= EVF_SATURATES;
			else if (!strcmp(w, "slots"))
				ev->flags |= EVF_SLOTS;
			else if (!strcmp(w, "topdown"))
				ev->flags |= EVF_TOPDOWN;
			else {
				evdef_at(b, st->file, a->line, col,
					 "unknown flag '%s' (expected merge, fixed, saturates, slots or topdown)", w);
				free(w);
				return -1;
			}
			free(w);
		}
	}
	if ((a = attr_get(st, "counters"))) {
		/* A CPU list's syntax: "0-3", "0,1,2,3". */
		bool on[32] = { false };
		char *why = NULL;
		if (cpulist_parse(a->value, on, 32, &why) < 0) {
			/* Its reason speaks of CPUs: not repeated here. */
			free(why);
			return AT_VALUE(b, st, a, "expected general counter numbers 0-31 such as 0-3 but found '%s'",
					a->value);
		}
		for (int i = 0; i < 32; i++)
			ev->counter_mask |= on[i] ? 1u << i : 0;
	}
	return 0;
}

/* requires (a sysfs path of the PMU's), scale (what a count is worth)
 * and sim (the simulator's formula). */
static int event_extras(struct builder *b, const struct def_stanza *st, struct event_def *ev)
{
	const struct def_attr *a;
	if ((a = attr_get(st, "requires"))) {
		/* A path under the PMU's own sysfs directory: nothing that could
		 * climb out of it. */
		const char *v = a->value;
		bool ok = *v && *v != '/' && !strstr(v, "..");
		for (const char *q = v; ok && *q; q++)
			ok = isalnum((unsigned char)*q) || strchr("_-./", *q);
		if (!ok)
			return AT_VALUE(b, st, a, "expected a relative sysfs path such as events/slots but found '%s'", v);
		ev->requires = xstrdup(v);
	}
	if ((a = attr_get(st, "scale"))) {
		/* "2.3283064365386962890625e-10 Joules": what one count is worth,
		 * as the kernel's events/NAME.scale and .unit say it. */
		char *num = xstrdup(a->value);
		char *unit = strpbrk(num, " \t");
		if (unit) {
			*unit++ = '\0';
			unit += strspn(unit, " \t");
		}
		bool ok = parse_double_c(num, &ev->scale) && ev->scale > 0 && unit && *unit &&
			  !strpbrk(unit, " \t");
		if (ok)
			ev->scale_unit = xstrdup(unit);
		free(num);
		if (!ok)
			return AT_VALUE(b, st, a, "expected a positive scale and a unit (2.3283064365386962890625e-10 Joules) but found '%s'",
					a->value);
	}
	if ((a = attr_get(st, "sim"))) {
		char *cause = NULL;
		int col = 0;
		ev->sim_text = xstrdup(a->value);
		ev->sim = expr_parse(a->value, &col, &cause);
		if (!ev->sim) {
			formula_error(b, st, a, col, cause);
			free(cause);
			return -1;
		}
	}
	return 0;
}

int evdef_build_event(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	if (check_unique_name(b, st) < 0 || check_keys(b, st) < 0)
		return -1;
	const struct def_attr *pa = attr_need(b, st, "pmu");
	if (!pa)
		return -1;
	int pmu = model_find_pmu(m, pa->value);
	if (pmu < 0)
		return AT_VALUE(b, st, pa, "unknown PMU '%s'", pa->value);
	const struct pmu_def *p = &m->pmus[pmu];
	const struct def_attr *enc = NULL;
	int kind = find_encoding(b, st, &enc);
	if (kind < 0)
		return -1;

	m->events = evdef_grow(m->events, m->nevents, sizeof(*m->events));
	struct event_def *ev = &m->events[m->nevents++];
	*ev = (struct event_def){ .name = xstrdup(st->name), .pmu = pmu, .enc = (enum enc_kind)kind,
				  .arch_bit = -1, .fallback = -1, .file = xstrdup(st->file), .line = st->line };
	evdef_index_add(m, NAME_EVENT, ev->name, m->nevents - 1);
	const struct def_attr *a = attr_get(st, "desc");
	ev->desc = xstrdup(a ? a->value : "");
	if (check_encoding(b, st, p, enc, kind, ev) < 0)
		return -1;
	if (kind != ENC_RAW)
		ev->spec = xstrdup(enc->value);
	if (event_flags(b, st, ev) < 0)
		return -1;
	if (get_int(b, st, attr_get(st, "arch_bit"), 0, 31, -1, &ev->arch_bit) < 0)
		return -1;
	if (event_extras(b, st, ev) < 0)
		return -1;
	return build_portable(b, st, ev);
}

/* The slots event of PMU pmu, or -1. */
static int slots_event(const struct model *m, int pmu)
{
	for (int e = 0; e < m->nevents; e++)
		if (m->events[e].pmu == pmu && (m->events[e].flags & EVF_SLOTS))
			return e;
	return -1;
}

int evdef_resolve_fallbacks(struct builder *b)
{
	struct model *m = b->m;
	for (int i = 0; i < b->set->nstanzas; i++) {
		const struct def_stanza *st = &b->set->stanzas[i];
		if (st->kind != ST_EVENT)
			continue;
		int e = model_find_event(m, st->name);
		struct event_def *ev = &m->events[e];
		if ((ev->flags & EVF_TOPDOWN) && slots_event(m, ev->pmu) < 0)
			return AT_STANZA(b, st, "topdown event '%s' needs an event with flag slots on pmu '%s' to lead its group",
					 ev->name, m->pmus[ev->pmu].name);
		if ((ev->flags & (EVF_SLOTS | EVF_TOPDOWN)) == (EVF_SLOTS | EVF_TOPDOWN))
			return AT_STANZA(b, st, "expected flag slots or topdown, not both, in event '%s'", ev->name);
		const struct def_attr *a = attr_get(st, "fallback");
		if (!a)
			continue;
		if (!ev->requires)
			return AT_VALUE(b, st, a, "a fallback is used only where a 'requires' feature is missing: expected a requires key in event '%s'",
					ev->name);
		int f = model_find_event(m, a->value);
		if (f < 0)
			return AT_VALUE(b, st, a, "unknown event '%s' as fallback", a->value);
		const struct event_def *fd = &m->events[f];
		if (f == e || fd->requires || (fd->flags & (EVF_SLOTS | EVF_TOPDOWN)))
			return AT_VALUE(b, st, a, "expected a fallback event that needs no kernel feature, not '%s'", a->value);
		ev->fallback = f;
	}
	return 0;
}

/* ---- metrics --------------------------------------------------------------- */

int evdef_build_metric(struct builder *b, const struct def_stanza *st, struct metric_src *src)
{
	struct model *m = b->m;
	if (check_unique_name(b, st) < 0 || check_keys(b, st) < 0)
		return -1;
	const struct def_attr *f = attr_need(b, st, "formula");
	if (!f)
		return -1;
	m->metrics = evdef_grow(m->metrics, m->nmetrics, sizeof(*m->metrics));
	struct metric_def *md = &m->metrics[m->nmetrics++];
	*md = (struct metric_def){ .name = xstrdup(st->name), .formula = xstrdup(f->value),
				   .file = xstrdup(st->file), .line = st->line };
	evdef_index_add(m, NAME_METRIC, md->name, m->nmetrics - 1);
	const struct def_attr *a;
	md->label = xstrdup((a = attr_get(st, "label")) ? a->value : st->name);
	md->unit = xstrdup((a = attr_get(st, "unit")) ? a->value : "");
	md->desc = xstrdup((a = attr_get(st, "desc")) ? a->value : "");
	if ((a = attr_get(st, "note")))
		md->note = xstrdup(a->value);
	if ((a = attr_get(st, "perf"))) {
		if (!is_name(a->value))
			return AT_VALUE(b, st, a, "expected the name of a Linux perf metric but found '%s'", a->value);
		md->perf = xstrdup(a->value);
	}
	*src = (struct metric_src){ .st = st, .formula = f, .parent = attr_get(st, "parent"),
				    .split = attr_get(st, "split") };
	md->parent = -1;
	md->split = -1;
	bool ratio = !strcmp(md->unit, "ratio");
	md->lo = ratio ? 0 : NAN;
	md->hi = ratio ? 1 : NAN;
	if ((a = attr_get(st, "range")) && parse_range(b, st, a, md) < 0)
		return -1;
	if ((a = attr_get(st, "truth"))) {
		int col = 0;
		char *why = NULL;
		struct expr *x = expr_parse(a->value, &col, &why);
		if (!x) {
			/* The column goes in front; expr's message starts "col N: ". */
			const char *msg = why && strstr(why, ": ") ? strstr(why, ": ") + 2 : why;
			int rc = evdef_at(b, st->file, a->line, a->value_col + col - 1, "truth: %s", msg ? msg : "bad formula");
			free(why);
			return rc;
		}
		expr_free(x);
		md->truth = xstrdup(a->value);
	}
	if ((a = attr_get(st, "scope"))) {
		int s = scope_parse(a->value);
		if (s < 0)
			return AT_VALUE(b, st, a, "expected thread, core, ccx, socket or system but found '%s'", a->value);
		md->scope = (enum scope)s;
		src->scope_given = true;
	}
	if ((a = attr_get(st, "groups"))) {
		const char *q = a->value;
		char *w;
		while ((w = next_word(&q))) {
			if (!is_name(w)) {
				evdef_at(b, st->file, a->line, word_col(a, q, w), "expected a group name but found '%s'", w);
				free(w);
				return -1;
			}
			md->groups = xrealloc(md->groups, (size_t)(md->ngroups + 1) * sizeof(char *));
			md->groups[md->ngroups++] = w;
		}
	}
	char *cause = NULL;
	int col = 0;
	md->expr = expr_parse(f->value, &col, &cause);
	if (!md->expr) {
		formula_error(b, st, f, col, cause);
		free(cause);
		return -1;
	}
	return 0;
}

/* ---- views ------------------------------------------------------------------- */

static int view_build_body(struct builder *b, const struct def_stanza *st, struct view_def *v);

int evdef_build_view(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	int dup = model_find_view(m, st->name);
	if (dup >= 0)
		return evdef_at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
				st->name, m->views[dup].file, m->views[dup].line);
	if (check_keys(b, st) < 0)
		return -1;
	if (!attr_need(b, st, "column"))
		return -1;
	/* Built aside and added only whole: a user's view file (evdef_user.c)
	 * skips a bad stanza and goes on with the model as it was. */
	const struct def_attr *a = attr_get(st, "title");
	struct view_def view = { .name = xstrdup(st->name), .title = xstrdup(a ? a->value : st->name),
				 .file = xstrdup(st->file), .line = st->line };
	struct view_def *v = &view;
	if (view_build_body(b, st, v) < 0) {
		view_def_clear(v);
		return -1;
	}
	m->views = evdef_grow(m->views, m->nviews, sizeof(*m->views));
	m->views[m->nviews++] = view;
	evdef_index_add(m, NAME_VIEW, view.name, m->nviews - 1);
	return 0;
}

static int view_build_body(struct builder *b, const struct def_stanza *st, struct view_def *v)
{
	struct model *m = b->m;
	const struct def_attr *a;
	if (get_int(b, st, attr_get(st, "key"), 1, 9, 0, &v->key) < 0)
		return -1;
	for (int i = 0; v->key && i < m->nviews; i++)
		if (m->views[i].key == v->key)
			return AT_VALUE(b, st, attr_get(st, "key"), "key %d is already used by view '%s'", v->key,
					m->views[i].name);
	if ((a = attr_get(st, "rows"))) {
		if (!strcmp(a->value, "tasks"))
			v->tasks = true;
		else if (strcmp(a->value, "cpus"))
			return AT_VALUE(b, st, a, "expected rows cpus or rows tasks but found '%s'", a->value);
	}
	if ((a = attr_get(st, "bar"))) {
		const char *q = a->value;
		char *w;
		while ((w = next_word(&q))) {
			int k = model_find_metric(m, w);
			if (k < 0) {
				evdef_at(b, st->file, a->line, word_col(a, q, w), "unknown metric '%s' in bar", w);
				free(w);
				return -1;
			}
			free(w);
			v->bar = xrealloc(v->bar, (size_t)(v->nbar + 1) * sizeof(int));
			v->bar[v->nbar++] = k;
		}
	}
	for (int i = 0; i < st->nattrs; i++) {
		a = &st->attrs[i];
		if (strcmp(a->key, "column"))
			continue;
		const char *q = a->value;
		char *w = next_word(&q);
		int k = model_find_metric(m, w);
		if (k < 0) {
			evdef_at(b, st->file, a->line, a->value_col, "unknown metric '%s' in column", w);
			free(w);
			return -1;
		}
		free(w);
		char *why = NULL;
		if (v->tasks && !metric_per_task(m, k, &why)) {
			evdef_at(b, st->file, a->line, a->value_col, "in a view of rows tasks: %s", why);
			free(why);
			return -1;
		}
		v->cols = xrealloc(v->cols, (size_t)(v->ncols + 1) * sizeof(*v->cols));
		struct view_col *c = &v->cols[v->ncols++];
		*c = (struct view_col){ .metric = k, .warn = NAN, .crit = NAN };
		while ((w = next_word(&q))) {
			int col = word_col(a, q, w);
			char *eq = strchr(w, '=');
			int rc = 0;
			if (eq)
				*eq = 0;
			const char *val = eq ? eq + 1 : NULL;
			int vcol = col + (eq ? (int)(eq - w) + 1 : 0);
			if (!strcmp(w, "low_is_bad") && !val) {
				c->low_is_bad = true;
			} else if (!strcmp(w, "fmt") && val) {
				if (strcmp(val, "pct") && strcmp(val, "si") && !format_is_double_fmt(val))
					rc = evdef_at(b, st->file, a->line, vcol,
						"expected pct, si or a printf format for one number such as %%.2f but found '%s'", val);
				else {
					free(c->fmt);
					c->fmt = xstrdup(val);
				}
			} else if (!strcmp(w, "width") && val) {
				char *end;
				long n = strtol(val, &end, 10);
				if (end == val || *end || n < 1 || n > 64)
					rc = evdef_at(b, st->file, a->line, vcol, "bad number '%s': expected a width from 1 to 64", val);
				c->width = (int)n;
			} else if ((!strcmp(w, "warn") || !strcmp(w, "crit")) && val) {
				double d;
				if (!parse_double_c(val, &d))
					rc = evdef_at(b, st->file, a->line, vcol, "bad number '%s': expected a threshold", val);
				else if (w[0] == 'w')
					c->warn = d;
				else
					c->crit = d;
			} else {
				if (eq)
					*eq = '=';
				rc = evdef_at(b, st->file, a->line, col,
					"unknown column option '%s' (expected fmt=, width=, warn=, crit= or low_is_bad)", w);
			}
			free(w);
			if (rc < 0)
				return -1;
		}
		if (!c->fmt)
			c->fmt = xstrdup(!strcmp(m->metrics[k].unit, "ratio") ? "pct" : "%.2f");
	}
	return 0;
}
