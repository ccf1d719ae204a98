/* evdef.c: the second stage of the definition loader. It turns the stanzas
 * read by evdef_parse.c into a struct model: it checks every key and value,
 * resolves PMU names, parses and resolves formulas (event i -> i, metric j ->
 * METRIC_REF(j), interval_s -> BUILTIN_INTERVAL_S), refuses metric cycles and
 * scope mistakes, and collects the events each metric needs. Any problem
 * stops the load with a "file:line:col: ..." cause; nothing is skipped. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "evdef.h"
#include "format.h"
#include "evdef_parse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const scope_names[SCOPE_COUNT] = {
	[SCOPE_THREAD] = "thread", [SCOPE_CORE] = "core", [SCOPE_CCX] = "ccx",
	[SCOPE_SOCKET] = "socket", [SCOPE_SYSTEM] = "system",
};

const char *scope_name(enum scope s)
{
	return (unsigned)s < SCOPE_COUNT ? scope_names[s] : "?";
}

int scope_parse(const char *s)
{
	for (int i = 0; i < SCOPE_COUNT; i++)
		if (s && !strcmp(s, scope_names[i]))
			return i;
	return -1;
}

/* ---- keys each stanza accepts ---------------------------------------- */

struct key_spec { const char *key; bool repeat; };

static const struct key_spec model_keys[] = {
	{ "desc", false }, { "match", true }, { "include", true }, { NULL, false },
};
static const struct key_spec pmu_keys[] = {
	{ "perf", false }, { "kind", false }, { "scope", false }, { "counters", false },
	{ "fixed", false }, { "nmi", false }, { "nmi_fixed", false }, { "notation", false },
	{ "field", true }, { "ignore", false }, { "desc", false }, { NULL, false },
};
static const struct key_spec event_keys[] = {
	{ "pmu", false }, { "raw", false }, { "pfm", false }, { "fields", false }, { "perf", false },
	{ "proc", false }, { "desc", false }, { "sim", false }, { "flags", false }, { "arch_bit", false },
	{ NULL, false },
};
static const struct key_spec metric_keys[] = {
	{ "label", false }, { "unit", false }, { "scope", false }, { "groups", false },
	{ "formula", false }, { "desc", false }, { "note", false }, { NULL, false },
};
static const struct key_spec view_keys[] = {
	{ "title", false }, { "key", false }, { "bar", false }, { "column", true }, { NULL, false },
};

static const struct key_spec *const stanza_keys[] = {
	[ST_MODEL] = model_keys, [ST_PMU] = pmu_keys, [ST_EVENT] = event_keys,
	[ST_METRIC] = metric_keys, [ST_VIEW] = view_keys,
};
static const char *const stanza_word[] = {
	[ST_MODEL] = "model", [ST_PMU] = "pmu", [ST_EVENT] = "event", [ST_METRIC] = "metric", [ST_VIEW] = "view",
};

struct builder {
	struct model *m;
	const struct def_set *set;
	char *err;
};

static int at(struct builder *b, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Records the first error with its position; returns -1. */
static int at(struct builder *b, const char *file, int line, int col, const char *fmt, ...)
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

#define AT_VALUE(b, st, a, ...) at(b, (st)->file, (a)->line, (a)->value_col, __VA_ARGS__)
#define AT_STANZA(b, st, ...) at(b, (st)->file, (st)->line, 1, __VA_ARGS__)

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
			return at(b, st->file, a->line, a->key_col, "unknown key '%s' in %s '%s' (expected %s)",
				  a->key, stanza_word[st->kind], st->name, list);
		}
		if (k->repeat)
			continue;
		for (int j = 0; j < i; j++)
			if (!strcmp(st->attrs[j].key, a->key))
				return at(b, st->file, a->line, a->key_col, "duplicate key '%s' (first at line %d)",
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

/* Numbers in definitions always use '.', whatever LC_NUMERIC says. */
static bool parse_double(const char *s, double *out)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	char *end;
	errno = 0;
	double v = c ? strtod_l(s, &end, c) : strtod(s, &end);
	if (c)
		freelocale(c);
	if (errno || end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
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
				at(b, st->file, a->line, col + 7, "expected a family number but found '%s'", w + 7);
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
				at(b, st->file, a->line, col + 6, "expected a model number or range (0x00-0x0f) but found '%s'",
				   w + 6);
				free(w);
				return -1;
			}
			mm->model_lo = (int)lo;
			mm->model_hi = (int)hi;
			mod = true;
		} else {
			at(b, st->file, a->line, col, "expected family=N or model=N[-M] (once each) but found '%s'", w);
			free(w);
			return -1;
		}
		free(w);
	}
	return 0;
}

static void free_matches(struct model_match *mm, int n)
{
	for (int i = 0; i < n; i++)
		free(mm[i].vendor);
	free(mm);
}

static int build_model_stanza(struct builder *b, const struct def_stanza *st, char **desc,
			      struct model_match **match, int *nmatch)
{
	if (check_keys(b, st) < 0)
		return -1;
	const struct def_attr *a = attr_get(st, "desc");
	*desc = xstrdup(a ? a->value : "");
	for (int i = 0; i < st->nattrs; i++) {
		if (strcmp(st->attrs[i].key, "match"))
			continue;
		*match = xrealloc(*match, (size_t)(*nmatch + 1) * sizeof(**match));
		if (parse_match(b, st, &st->attrs[i], &(*match)[*nmatch]) < 0) {
			free((*match)[*nmatch].vendor);
			return -1;
		}
		(*nmatch)++;
	}
	return 0;
}

/* ---- PMUs ---------------------------------------------------------------- */

static const char *const pmu_kind_names[] = { "core", "uncore", "software", "proc" };

/* Looks a name up in an array of pmu_def, event_def, metric_def or view_def,
 * each of which has its name as its first member. */
static int find_named(const void *base, size_t size, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		const char *const *pname = (const char *const *)((const char *)base + (size_t)i * size);
		if (!strcmp(*pname, name))
			return i;
	}
	return -1;
}

static int build_pmu(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	int dup = find_named(m->pmus, sizeof(*m->pmus), m->npmus, st->name);
	if (dup >= 0)
		return at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
			  st->name, m->pmus[dup].file, m->pmus[dup].line);
	if (check_keys(b, st) < 0)
		return -1;
	const struct def_attr *perf = attr_need(b, st, "perf");
	const struct def_attr *kind = perf ? attr_need(b, st, "kind") : NULL;
	const struct def_attr *scope = kind ? attr_need(b, st, "scope") : NULL;
	if (!scope)
		return -1;

	m->pmus = xrealloc(m->pmus, (size_t)(m->npmus + 1) * sizeof(*m->pmus));
	struct pmu_def *p = &m->pmus[m->npmus++];
	*p = (struct pmu_def){ .name = xstrdup(st->name), .perf_name = xstrdup(perf->value),
			       .file = xstrdup(st->file), .line = st->line };

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
			return at(b, st->file, a->line, a->value_col + bad,
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
			return at(b, st->file, a->line, fcol, "expected a field name");
		}
		for (int j = 0; j < p->nfields; j++)
			if (!strcmp(p->fields[j].name, fname)) {
				at(b, st->file, a->line, fcol, "duplicate field '%s'", fname);
				free(fname);
				return -1;
			}
		struct hw_field f = { 0 };
		int bad;
		if (!*q || parse_bits(q, &f, 4, &bad) < 0) {
			free(fname);
			return at(b, st->file, a->line, *q ? bcol + bad : bcol,
				  "expected up to 4 bits or bit ranges from 0 to 63, low bits first, such as 0-7,32-35");
		}
		uint64_t fm = field_mask(&f);
		if (fm & used) {
			free(fname);
			return at(b, st->file, a->line, bcol, "field bits overlap another field or the ignore mask");
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
	int i = find_named(m->events, sizeof(*m->events), m->nevents, st->name);
	if (i >= 0)
		return at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
			  st->name, m->events[i].file, m->events[i].line);
	i = find_named(m->metrics, sizeof(*m->metrics), m->nmetrics, st->name);
	if (i >= 0)
		return at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
			  st->name, m->metrics[i].file, m->metrics[i].line);
	if (!strcmp(st->name, "interval_s") || !strcmp(st->name, "min") || !strcmp(st->name, "max") ||
	    !strcmp(st->name, "abs"))
		return at(b, st->file, st->line, st->name_col, "'%s' is a reserved name of the formula language", st->name);
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
	return at(b, st->file, a->line, a->value_col + col - 1, "%s", msg);
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
			return at(b, st->file, a->line, a->value_col + (int)(p - a->value),
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
				return at(b, st->file, a->line, a->value_col + (int)(num - a->value),
					  "expected a number after '='");
		}
		if (!*p)
			return 0;
		if (*p != ',')
			return at(b, st->file, a->line, a->value_col + (int)(p - a->value), "expected ',' or the end of the value");
		p++;
	}
}

static int build_event(struct builder *b, const struct def_stanza *st)
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

	static const char *const enc_keys[] = { [ENC_RAW] = "raw", [ENC_PFM] = "pfm", [ENC_FIELDS] = "fields",
						[ENC_PERF] = "perf", [ENC_PROC] = "proc" };
	const struct def_attr *enc = NULL;
	int kind = -1;
	for (int i = 0; i < st->nattrs; i++)
		for (int k = 0; k < (int)ARRAY_SIZE(enc_keys); k++)
			if (!strcmp(st->attrs[i].key, enc_keys[k])) {
				if (enc)
					return at(b, st->file, st->attrs[i].line, st->attrs[i].key_col,
						  "expected only one of raw, pfm, fields, perf or proc ('%s' is at line %d)",
						  enc->key, enc->line);
				enc = &st->attrs[i];
				kind = k;
			}
	if (!enc)
		return AT_STANZA(b, st, "missing required key (raw, pfm, fields, perf or proc) in event '%s'", st->name);

	m->events = xrealloc(m->events, (size_t)(m->nevents + 1) * sizeof(*m->events));
	struct event_def *ev = &m->events[m->nevents++];
	*ev = (struct event_def){ .name = xstrdup(st->name), .pmu = pmu, .enc = (enum enc_kind)kind,
				  .arch_bit = -1, .file = xstrdup(st->file), .line = st->line };
	const struct def_attr *a = attr_get(st, "desc");
	ev->desc = xstrdup(a ? a->value : "");

	if ((p->kind == PMU_PROC) != (kind == ENC_PROC))
		return at(b, st->file, enc->line, enc->key_col,
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
	if (kind != ENC_RAW)
		ev->spec = xstrdup(enc->value);

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
			else {
				at(b, st->file, a->line, col, "unknown flag '%s' (expected merge, fixed or saturates)", w);
				free(w);
				return -1;
			}
			free(w);
		}
	}
	if (get_int(b, st, attr_get(st, "arch_bit"), 0, 31, -1, &ev->arch_bit) < 0)
		return -1;
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

/* ---- metrics --------------------------------------------------------------- */

struct metric_src {
	const struct def_stanza *st;
	const struct def_attr *formula;
	bool scope_given;
};

static int build_metric(struct builder *b, const struct def_stanza *st, struct metric_src *src)
{
	struct model *m = b->m;
	if (check_unique_name(b, st) < 0 || check_keys(b, st) < 0)
		return -1;
	const struct def_attr *f = attr_need(b, st, "formula");
	if (!f)
		return -1;
	m->metrics = xrealloc(m->metrics, (size_t)(m->nmetrics + 1) * sizeof(*m->metrics));
	struct metric_def *md = &m->metrics[m->nmetrics++];
	*md = (struct metric_def){ .name = xstrdup(st->name), .formula = xstrdup(f->value),
				   .file = xstrdup(st->file), .line = st->line };
	const struct def_attr *a;
	md->label = xstrdup((a = attr_get(st, "label")) ? a->value : st->name);
	md->unit = xstrdup((a = attr_get(st, "unit")) ? a->value : "");
	md->desc = xstrdup((a = attr_get(st, "desc")) ? a->value : "");
	if ((a = attr_get(st, "note")))
		md->note = xstrdup(a->value);
	*src = (struct metric_src){ .st = st, .formula = f };
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
				at(b, st->file, a->line, word_col(a, q, w), "expected a group name but found '%s'", w);
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

static int resolve_name(void *ctx, const char *name)
{
	const struct model *m = ctx;
	int i = model_find_event(m, name);
	if (i >= 0)
		return i;
	i = model_find_metric(m, name);
	if (i >= 0)
		return METRIC_REF(i);
	if (!strcmp(name, "interval_s"))
		return BUILTIN_INTERVAL_S;
	return -1;
}

/* Column of the first use of name as a whole word in a formula, for errors
 * that concern one reference. */
static int name_col(const struct def_attr *f, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = f->value; (p = strstr(p, name)); p++) {
		bool before = p == f->value || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
		bool after = !(isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.');
		if (before && after)
			return f->value_col + (int)(p - f->value);
	}
	return f->value_col;
}

static void add_event(struct metric_def *md, int ev)
{
	for (int i = 0; i < md->nevents; i++)
		if (md->events[i] == ev)
			return;
	md->events = xrealloc(md->events, (size_t)(md->nevents + 1) * sizeof(int));
	md->events[md->nevents++] = ev;
}

/* Finishes metric j once every metric it uses is finished: checks or
 * derives its scope and collects its events. */
static int finish_metric(struct builder *b, int j, const struct metric_src *src)
{
	struct model *m = b->m;
	struct metric_def *md = &m->metrics[j];
	int *ids;
	int n = expr_ids(md->expr, &ids);
	enum scope need = SCOPE_THREAD;
	for (int i = 0; i < n; i++) {
		int r = ids[i];
		if (r == BUILTIN_INTERVAL_S)
			continue;
		if (r >= METRIC_REF_BASE) {
			const struct metric_def *used = &m->metrics[r - METRIC_REF_BASE];
			if (src->scope_given && used->scope > md->scope) {
				at(b, src->st->file, src->formula->line, name_col(src->formula, used->name),
				   "metric '%s' has scope %s but uses metric '%s' (scope %s)", md->name,
				   scope_name(md->scope), used->name, scope_name(used->scope));
				free(ids);
				return -1;
			}
			if (used->scope > need)
				need = used->scope;
			for (int k = 0; k < used->nevents; k++)
				add_event(md, used->events[k]);
		} else {
			const struct event_def *ev = &m->events[r];
			const struct pmu_def *p = &m->pmus[ev->pmu];
			if (src->scope_given && p->scope > md->scope) {
				at(b, src->st->file, src->formula->line, name_col(src->formula, ev->name),
				   "metric '%s' has scope %s but uses event '%s' of PMU '%s' (scope %s)", md->name,
				   scope_name(md->scope), ev->name, p->name, scope_name(p->scope));
				free(ids);
				return -1;
			}
			if (p->scope > need)
				need = p->scope;
			add_event(md, r);
		}
	}
	free(ids);
	if (!src->scope_given)
		md->scope = need;
	if (!md->events)
		md->events = xcalloc(1, sizeof(int));
	return 0;
}

/* Visits the metric graph depth first without recursion (a long chain of
 * metrics in a hostile file must not exhaust the stack), finishing each
 * metric after those it uses, and reports the first cycle as a -> b -> a. */
static int order_metrics(struct builder *b, const struct metric_src *src)
{
	struct model *m = b->m;
	int n = m->nmetrics;
	if (n == 0)
		return 0;
	char *state = xcalloc((size_t)n, 1);   /* 0 new, 1 on the stack, 2 finished */
	int *stack = xmalloc((size_t)n * sizeof(int));
	int *next = xcalloc((size_t)n, sizeof(int)); /* next id to look at, per metric */
	int **ids = xcalloc((size_t)n, sizeof(int *));
	int *nids = xcalloc((size_t)n, sizeof(int));
	int rc = 0;

	for (int root = 0; root < n && rc == 0; root++) {
		if (state[root])
			continue;
		int sp = 0;
		stack[sp++] = root;
		state[root] = 1;
		nids[root] = expr_ids(m->metrics[root].expr, &ids[root]);
		while (sp > 0 && rc == 0) {
			int j = stack[sp - 1];
			if (next[j] == nids[j]) {
				rc = finish_metric(b, j, &src[j]);
				state[j] = 2;
				sp--;
				continue;
			}
			int r = ids[j][next[j]++];
			if (r < METRIC_REF_BASE || r == BUILTIN_INTERVAL_S)
				continue;
			int k = r - METRIC_REF_BASE;
			if (state[k] == 2)
				continue;
			if (state[k] == 1) {
				/* The cycle is the stack from k up to j, then k again. */
				int from = sp - 1;
				while (stack[from] != k)
					from--;
				size_t len = 1;
				for (int i = from; i < sp; i++)
					len += strlen(m->metrics[stack[i]].name) + 4;
				len += strlen(m->metrics[k].name);
				char *path = xmalloc(len);
				path[0] = 0;
				for (int i = from; i < sp; i++) {
					strcat(path, m->metrics[stack[i]].name);
					strcat(path, " -> ");
				}
				strcat(path, m->metrics[k].name);
				const struct def_attr *f = src[j].formula;
				at(b, src[j].st->file, f->line, name_col(f, m->metrics[k].name), "metric cycle: %s", path);
				free(path);
				rc = -1;
				break;
			}
			state[k] = 1;
			nids[k] = expr_ids(m->metrics[k].expr, &ids[k]);
			stack[sp++] = k;
		}
	}
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	free(nids);
	free(next);
	free(stack);
	free(state);
	return rc;
}

static int resolve_metrics(struct builder *b, const struct metric_src *src)
{
	struct model *m = b->m;
	for (int j = 0; j < m->nmetrics; j++) {
		char *cause = NULL;
		int col = 0;
		if (expr_resolve(m->metrics[j].expr, resolve_name, m, &col, &cause) < 0) {
			const char *q = cause ? strchr(cause, '\'') : NULL;
			const char *e = q ? strchr(q + 1, '\'') : NULL;
			at(b, src[j].st->file, src[j].formula->line, src[j].formula->value_col + col - 1,
			   "unknown event '%.*s' in formula", e ? (int)(e - q - 1) : 0, e ? q + 1 : "");
			free(cause);
			return -1;
		}
	}
	return order_metrics(b, src);
}

/* ---- views ------------------------------------------------------------------- */

static int build_view(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	int dup = find_named(m->views, sizeof(*m->views), m->nviews, st->name);
	if (dup >= 0)
		return at(b, st->file, st->line, st->name_col, "duplicate name '%s' (first defined at %s:%d)",
			  st->name, m->views[dup].file, m->views[dup].line);
	if (check_keys(b, st) < 0)
		return -1;
	if (!attr_need(b, st, "column"))
		return -1;
	m->views = xrealloc(m->views, (size_t)(m->nviews + 1) * sizeof(*m->views));
	struct view_def *v = &m->views[m->nviews++];
	const struct def_attr *a = attr_get(st, "title");
	*v = (struct view_def){ .name = xstrdup(st->name), .title = xstrdup(a ? a->value : st->name),
				.file = xstrdup(st->file), .line = st->line };
	if (get_int(b, st, attr_get(st, "key"), 1, 9, 0, &v->key) < 0)
		return -1;
	for (int i = 0; v->key && i < m->nviews - 1; i++)
		if (m->views[i].key == v->key)
			return AT_VALUE(b, st, attr_get(st, "key"), "key %d is already used by view '%s'", v->key,
					m->views[i].name);
	if ((a = attr_get(st, "bar"))) {
		const char *q = a->value;
		char *w;
		while ((w = next_word(&q))) {
			int k = model_find_metric(m, w);
			if (k < 0) {
				at(b, st->file, a->line, word_col(a, q, w), "unknown metric '%s' in bar", w);
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
			at(b, st->file, a->line, a->value_col, "unknown metric '%s' in column", w);
			free(w);
			return -1;
		}
		free(w);
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
				if (strcmp(val, "pct") && !format_is_double_fmt(val))
					rc = at(b, st->file, a->line, vcol,
						"expected pct or a printf format for one number such as %%.2f but found '%s'", val);
				else {
					free(c->fmt);
					c->fmt = xstrdup(val);
				}
			} else if (!strcmp(w, "width") && val) {
				char *end;
				long n = strtol(val, &end, 10);
				if (end == val || *end || n < 1 || n > 64)
					rc = at(b, st->file, a->line, vcol, "bad number '%s': expected a width from 1 to 64", val);
				c->width = (int)n;
			} else if ((!strcmp(w, "warn") || !strcmp(w, "crit")) && val) {
				double d;
				if (!parse_double(val, &d))
					rc = at(b, st->file, a->line, vcol, "bad number '%s': expected a threshold", val);
				else if (w[0] == 'w')
					c->warn = d;
				else
					c->crit = d;
			} else {
				if (eq)
					*eq = '=';
				rc = at(b, st->file, a->line, col,
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

/* ---- the model ------------------------------------------------------------- */

void model_free(struct model *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->desc);
	free(m->dir);
	free_matches(m->match, m->nmatch);
	for (int i = 0; i < m->npmus; i++) {
		struct pmu_def *p = &m->pmus[i];
		free(p->name);
		free(p->perf_name);
		free(p->notation);
		for (int j = 0; j < p->nfields; j++)
			free(p->fields[j].name);
		free(p->fields);
		free(p->file);
	}
	free(m->pmus);
	for (int i = 0; i < m->nevents; i++) {
		struct event_def *e = &m->events[i];
		free(e->name);
		free(e->spec);
		free(e->desc);
		expr_free(e->sim);
		free(e->sim_text);
		free(e->file);
	}
	free(m->events);
	for (int i = 0; i < m->nmetrics; i++) {
		struct metric_def *md = &m->metrics[i];
		free(md->name);
		free(md->label);
		free(md->unit);
		free(md->desc);
		for (int j = 0; j < md->ngroups; j++)
			free(md->groups[j]);
		free(md->groups);
		free(md->formula);
		expr_free(md->expr);
		free(md->events);
		free(md->note);
		free(md->file);
	}
	free(m->metrics);
	for (int i = 0; i < m->nviews; i++) {
		struct view_def *v = &m->views[i];
		free(v->name);
		free(v->title);
		for (int j = 0; j < v->ncols; j++)
			free(v->cols[j].fmt);
		free(v->cols);
		free(v->bar);
		free(v->file);
	}
	free(m->views);
	free(m);
}

struct model *model_load(const char *dir, char **cause)
{
	struct def_set set;
	if (defset_read(dir, true, &set, cause) < 0)
		return NULL;
	struct model *m = xcalloc(1, sizeof(*m));
	struct builder b = { .m = m, .set = &set };
	struct metric_src *src = NULL;
	const struct def_stanza *mst = &set.stanzas[0];
	m->name = xstrdup(mst->name);
	m->dir = xstrdup(dir);
	if (build_model_stanza(&b, mst, &m->desc, &m->match, &m->nmatch) < 0)
		goto fail;
	/* PMUs first, so that events may come before their PMU's stanza; then
	 * events, so that metrics may use any event; views last. */
	for (int i = 0; i < set.nstanzas; i++)
		if (set.stanzas[i].kind == ST_PMU && build_pmu(&b, &set.stanzas[i]) < 0)
			goto fail;
	for (int i = 0; i < set.nstanzas; i++)
		if (set.stanzas[i].kind == ST_EVENT && build_event(&b, &set.stanzas[i]) < 0)
			goto fail;
	src = xcalloc((size_t)set.nstanzas, sizeof(*src));
	for (int i = 0; i < set.nstanzas; i++)
		if (set.stanzas[i].kind == ST_METRIC && build_metric(&b, &set.stanzas[i], &src[m->nmetrics]) < 0)
			goto fail;
	if (resolve_metrics(&b, src) < 0)
		goto fail;
	for (int i = 0; i < set.nstanzas; i++)
		if (set.stanzas[i].kind == ST_VIEW && build_view(&b, &set.stanzas[i]) < 0)
			goto fail;
	free(src);
	defset_free(&set);
	return m;
fail:
	free(src);
	if (cause)
		*cause = b.err;
	else
		free(b.err);
	model_free(m);
	defset_free(&set);
	return NULL;
}

/* ---- finding models ------------------------------------------------------ */

/* Directories under events/ are few and shallow; the depth limit also stops
 * symbolic link loops. */
#define MODEL_MAX_DEPTH 8

struct model_info_list { struct model_info *v; int n; char *err; };

static void info_done(struct model_info *mi)
{
	free(mi->name);
	free(mi->desc);
	free(mi->dir);
	free_matches(mi->match, mi->nmatch);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_model_info(struct model_info_list *l, const char *dir)
{
	struct def_set set;
	char *cause = NULL;
	if (defset_read(dir, false, &set, &cause) < 0) {
		l->err = cause;
		return -1;
	}
	struct model_info mi = { .name = xstrdup(set.stanzas[0].name), .dir = xstrdup(dir) };
	struct builder b = { .set = &set };
	int rc = build_model_stanza(&b, &set.stanzas[0], &mi.desc, &mi.match, &mi.nmatch);
	defset_free(&set);
	if (rc < 0) {
		l->err = b.err;
		info_done(&mi);
		return -1;
	}
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, mi.name)) {
			l->err = xasprintf("model '%s' is defined twice: in %s and in %s", mi.name, l->v[i].dir, mi.dir);
			info_done(&mi);
			return -1;
		}
	l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = mi;
	return 0;
}

static int scan_dir(struct model_info_list *l, const char *dir, int depth)
{
	char *path = xasprintf("%s/model.def", dir);
	struct stat sb;
	int rc = 0;
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		rc = read_model_info(l, dir);
	free(path);
	if (rc < 0 || depth >= MODEL_MAX_DEPTH)
		return rc;

	DIR *d = opendir(dir);
	if (!d) {
		if (depth == 0) {
			l->err = xasprintf("%s: cannot open the definitions directory: %s", dir, strerror(errno));
			return -1;
		}
		return 0;
	}
	char **names = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (size_t)(n + 1) * sizeof(char *));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	/* Sorted, so that the listing and duplicate reports do not depend on
	 * the file system's order. */
	if (n)
		qsort(names, (size_t)n, sizeof(char *), name_cmp);
	for (int i = 0; i < n; i++) {
		char *sub = xasprintf("%s/%s", dir, names[i]);
		if (rc == 0 && stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = scan_dir(l, sub, depth + 1);
		free(sub);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int info_cmp(const void *a, const void *b)
{
	return strcmp(((const struct model_info *)a)->name, ((const struct model_info *)b)->name);
}

int model_list(const char *events_dir, struct model_info **out, char **cause)
{
	struct model_info_list l = { 0 };
	*out = NULL;
	if (scan_dir(&l, events_dir, 0) < 0) {
		model_list_free(l.v, l.n);
		if (cause)
			*cause = l.err;
		else
			free(l.err);
		return -1;
	}
	if (l.n)
		qsort(l.v, (size_t)l.n, sizeof(*l.v), info_cmp);
	*out = l.v;
	return l.n;
}

void model_list_free(struct model_info *l, int n)
{
	for (int i = 0; l && i < n; i++)
		info_done(&l[i]);
	free(l);
}

struct model *model_load_by_name(const char *events_dir, const char *name, char **cause)
{
	struct model_info *l;
	int n = model_list(events_dir, &l, cause);
	if (n < 0)
		return NULL;
	struct model *m = NULL;
	int i;
	for (i = 0; i < n; i++)
		if (!strcmp(l[i].name, name))
			break;
	if (i == n)
		set_cause(cause, "no model '%s' under %s (pmctop --list-models shows the models)", name, events_dir);
	else
		m = model_load(l[i].dir, cause);
	model_list_free(l, n);
	return m;
}

int model_find_pmu(const struct model *m, const char *name)
{
	return find_named(m->pmus, sizeof(*m->pmus), m->npmus, name);
}

int model_find_event(const struct model *m, const char *name)
{
	return find_named(m->events, sizeof(*m->events), m->nevents, name);
}

int model_find_metric(const struct model *m, const char *name)
{
	return find_named(m->metrics, sizeof(*m->metrics), m->nmetrics, name);
}

int model_find_view(const struct model *m, const char *name)
{
	return find_named(m->views, sizeof(*m->views), m->nviews, name);
}

bool metric_in_group(const struct metric_def *md, const char *g)
{
	if (!strcmp(md->name, g))
		return true;
	for (int i = 0; i < md->ngroups; i++)
		if (!strcmp(md->groups[i], g))
			return true;
	return false;
}
