/* evdef_build_model.c: builds the model stanza (desc, match lines, shape,
 * l3_domain...) and the pmu stanzas (kind, scope, counters, the NMI
 * watchdog, encoding fields) into a struct model, checking every key and
 * value. Split from evdef_build.c: these describe the machine, which
 * model_list() also reads without building a whole model. */
#include "config.h"
#include "util.h"
#include "expr.h"
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

/* ---- model stanza -------------------------------------------------------- */

static int parse_match(struct builder *b, const struct def_stanza *st, const struct def_attr *a,
		       struct model_match *mm)
{
	const char *p = a->value;
	char *w = evdef_next_word(&p);
	*mm = (struct model_match){ .family = -1, .model_lo = 0, .model_hi = INT_MAX };
	mm->vendor = w;
	bool fam = false, mod = false;
	while ((w = evdef_next_word(&p))) {
		int col = evdef_word_col(a, p, w);
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

int evdef_build_model_stanza(struct builder *b, const struct def_stanza *st, struct model_info *mi)
{
	if (evdef_check_keys(b, st) < 0)
		return -1;
	const struct def_attr *a = evdef_attr_get(st, "desc");
	mi->desc = xstrdup(a ? a->value : "");
	/* The simulated PMU's defaults for this CPU (clock, dispatch width);
	 * kept as text, the simulator checks it when it starts. */
	if ((a = evdef_attr_get(st, "sim")))
		mi->sim_args = xstrdup(a->value);
	if ((a = evdef_attr_get(st, "alias"))) {
		if (!evdef_is_name(a->value))
			return evdef_at(b, st->file, a->line, a->value_col, "expected a name such as zen5 but found '%s'",
					a->value);
		mi->alias = xstrdup(a->value);
	}
	/* A short word for the dashboard's L3 panels and column (on Intel the
	 * L3 is per socket, not per CCX). */
	if ((a = evdef_attr_get(st, "l3_domain"))) {
		if (!evdef_is_name(a->value) || strlen(a->value) > 6)
			return evdef_at(b, st->file, a->line, a->value_col,
					"expected a word of at most 6 letters such as LLC but found '%s'", a->value);
		mi->l3_domain = xstrdup(a->value);
	}
	if ((a = evdef_attr_get(st, "shape")) && parse_shape(b, st, a, mi->sim_shape) < 0)
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
	if (evdef_check_keys(b, st) < 0)
		return -1;
	const struct def_attr *perf = evdef_attr_need(b, st, "perf");
	const struct def_attr *kind = perf ? evdef_attr_need(b, st, "kind") : NULL;
	const struct def_attr *scope = kind ? evdef_attr_need(b, st, "scope") : NULL;
	if (!scope)
		return -1;

	m->pmus = evdef_grow(m->pmus, m->npmus, sizeof(*m->pmus));
	struct pmu_def *p = &m->pmus[m->npmus++];
	*p = (struct pmu_def){ .name = xstrdup(st->name), .perf_name = xstrdup(perf->value),
			       .file = xstrdup(st->file), .line = st->line };
	model_index_add(m, NAME_PMU, p->name, m->npmus - 1);

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

	const struct def_attr *a = evdef_attr_get(st, "counters");
	if (!a && (p->kind == PMU_CORE || p->kind == PMU_UNCORE)) {
		evdef_attr_need(b, st, "counters");
		return -1;
	}
	if (evdef_get_int(b, st, a, 0, 64, 0, &p->counters) < 0 ||
	    evdef_get_int(b, st, evdef_attr_get(st, "fixed"), 0, 16, 0, &p->fixed) < 0 ||
	    evdef_get_int(b, st, evdef_attr_get(st, "nmi"), 0, p->counters, 0, &p->nmi_reserved) < 0)
		return -1;
	if ((a = evdef_attr_get(st, "nmi_fixed"))) {
		if (!strcmp(a->value, "yes"))
			p->nmi_takes_fixed = true;
		else if (strcmp(a->value, "no"))
			return AT_VALUE(b, st, a, "expected yes or no but found '%s'", a->value);
		if (p->nmi_takes_fixed && p->fixed == 0)
			return AT_VALUE(b, st, a, "expected 'no': pmu '%s' has no fixed counters", st->name);
	}
	if ((a = evdef_attr_get(st, "notation"))) {
		if (!evdef_is_name(a->value))
			return AT_VALUE(b, st, a, "expected a notation such as Event or L3Event but found '%s'", a->value);
		p->notation = xstrdup(a->value);
	}
	if ((a = evdef_attr_get(st, "ignore"))) {
		struct hw_field f = { 0 };
		int bad;
		if (evdef_parse_bits(a->value, &f, 4, &bad) < 0)
			return evdef_at(b, st->file, a->line, a->value_col + bad,
					"expected up to 4 bits or bit ranges from 0 to 63 such as 16-17,20,22");
		p->ignore_mask = evdef_field_mask(&f);
	}
	uint64_t used = p->ignore_mask;
	for (int i = 0; i < st->nattrs; i++) {
		a = &st->attrs[i];
		if (strcmp(a->key, "field"))
			continue;
		const char *q = a->value;
		char *fname = evdef_next_word(&q);
		int fcol = a->value_col;
		while (*q == ' ' || *q == '\t')
			q++;
		int bcol = a->value_col + (int)(q - a->value);
		if (!evdef_is_name(fname)) {
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
		if (!*q || evdef_parse_bits(q, &f, 4, &bad) < 0) {
			free(fname);
			return evdef_at(b, st->file, a->line, *q ? bcol + bad : bcol,
					"expected up to 4 bits or bit ranges from 0 to 63, low bits first, such as 0-7,32-35");
		}
		uint64_t fm = evdef_field_mask(&f);
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
