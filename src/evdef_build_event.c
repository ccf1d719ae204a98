/* evdef_build_event.c: builds the event stanzas: encodings (raw, pfm,
 * fields, perf, proc), flags, the portable series, scale and counter
 * masks, and checks the PERF_METRICS rules that need only the definitions
 * (fallbacks, slots and topdown). Split from evdef_build.c as the rules
 * of one kind of definition, the longest. */
#include "config.h"
#include "util.h"
#include "evdef.h"
#include "format.h"
#include "evdef_impl.h"
#include "evdef_build_impl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- events --------------------------------------------------------------- */

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
			bool ok = evdef_parse_u64(copy, &v);
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
		if (a->key[0] != 'p' || strcmp(a->key, "portable"))
			continue;
		const char *q = a->value;
		char *name = evdef_next_word(&q), *scale = evdef_next_word(&q);
		int scale_col = scale ? evdef_word_col(a, q, scale) : 0;
		char *extra = evdef_next_word(&q);
		int extra_col = extra ? evdef_word_col(a, q, extra) : 0;
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
			if (st->attrs[i].key[0] == enc_keys[k][0] && !strcmp(st->attrs[i].key, enc_keys[k])) {
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
		if (!evdef_parse_u64(enc->value, &ev->raw))
			return AT_VALUE(b, st, enc, "bad number '%s': expected a 64-bit raw value such as 0x4300C3", enc->value);
		if (p->nfields == 0)
			return AT_VALUE(b, st, enc, "a raw value needs the 'field' layout of pmu '%s', which has none", p->name);
		else {
			/* The PMU's mask, kept while its events follow each
			 * other (as a file lists them). */
			int pi = (int)(p - b->m->pmus);
			if (!b->raw_mask_ok || b->raw_mask_pmu != pi) {
				b->raw_mask = p->ignore_mask;
				for (int i = 0; i < p->nfields; i++)
					b->raw_mask |= evdef_field_mask(&p->fields[i]);
				b->raw_mask_pmu = pi;
				b->raw_mask_ok = true;
			}
			uint64_t allowed = b->raw_mask;
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
		if (strcmp(enc->value, "busy_ns") && strcmp(enc->value, "total_ns") && strcmp(enc->value, "online_ns"))
			return AT_VALUE(b, st, enc, "expected busy_ns, total_ns or online_ns but found '%s'", enc->value);
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
	if ((a = evdef_attr_get(st, "flags"))) {
		const char *q = a->value;
		char *w;
		while ((w = evdef_next_word(&q))) {
			int col = evdef_word_col(a, q, w);
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
	if ((a = evdef_attr_get(st, "counters"))) {
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
 * and sim (the simulator's formula, kept as text). */
static int event_extras(struct builder *b, const struct def_stanza *st, struct event_def *ev)
{
	const struct def_attr *a;
	if ((a = evdef_attr_get(st, "requires"))) {
		/* A path under the PMU's own sysfs directory: nothing that could
		 * climb out of it. */
		const char *v = a->value;
		bool ok = *v && *v != '/' && !strstr(v, "..");
		for (const char *q = v; ok && *q; q++)
			ok = isalnum((unsigned char)*q) || strchr("_-./", *q);
		if (!ok)
			return AT_VALUE(b, st, a, "expected a relative sysfs path such as events/slots but found '%s'", v);
		ev->requires = evdef_keep(b, v);
	}
	if ((a = evdef_attr_get(st, "scale"))) {
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
	/* Kept as written: the simulated PMU parses it (model.h). */
	if ((a = evdef_attr_get(st, "sim")))
		ev->sim_text = evdef_keep(b, a->value);
	return 0;
}

int evdef_build_event(struct builder *b, const struct def_stanza *st)
{
	struct model *m = b->m;
	if (evdef_check_unique_name(b, st) < 0 || evdef_check_keys(b, st) < 0)
		return -1;
	const struct def_attr *pa = evdef_attr_need(b, st, "pmu");
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

	m->events = model_room(m->events, m->nevents, &m->events_cap, sizeof(*m->events));
	struct event_def *ev = &m->events[m->nevents++];
	*ev = (struct event_def){ .name = evdef_keep(b, st->name), .pmu = pmu, .enc = (enum enc_kind)kind,
				  .arch_bit = -1, .fallback = -1, .file = evdef_keep(b, st->file), .line = st->line };
	evdef_index_add(b, st, NAME_EVENT, ev->name, m->nevents - 1);
	const struct def_attr *a = evdef_attr_get(st, "desc");
	ev->desc = a ? evdef_keep(b, a->value) : xstrdup("");
	if (check_encoding(b, st, p, enc, kind, ev) < 0)
		return -1;
	if (kind != ENC_RAW)
		ev->spec = evdef_keep(b, enc->value);
	if (event_flags(b, st, ev) < 0)
		return -1;
	if (evdef_get_int(b, st, evdef_attr_get(st, "arch_bit"), 0, 31, -1, &ev->arch_bit) < 0)
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
		const struct def_attr *a = evdef_attr_get(st, "fallback");
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
