/* evdef_modifier.c: perf's privilege modifiers on event names. `NAME:u`
 * (and :k, :h, :G, :H, or several: `:uk`) names a variant of event NAME
 * that counts only while the CPU runs at the privilege levels given: the
 * same encoding with perf_event_attr's exclude_* bits set, as perf's
 * parse-events does. A variant is made on first use, by a formula that
 * names it or by -e, and appended to the model's events under a canonical
 * name (the event's own name, then the modifier letters in the order u,
 * k, h, G, H), so that `:ku` and `:uk` are one event. */
#include "config.h"
#include "util.h"
#include "evdef.h"
#include "evdef_impl.h"

#include <stdlib.h>
#include <string.h>

/* perf's two families of modifiers: naming any member of a family
 * excludes the members not named (`:u` leaves out the kernel and the
 * hypervisor; `:G` counts in guests only, leaving out the host). bit is
 * what leaving the letter out excludes. */
static const struct { char c; unsigned bit; int family; const char *what; } mods[] = {
	{ 'u', EXCL_USER, 0, "user" }, { 'k', EXCL_KERNEL, 0, "kernel" }, { 'h', EXCL_HV, 0, "hypervisor" },
	{ 'G', EXCL_GUEST, 1, "guest" }, { 'H', EXCL_HOST, 1, "host" },
};
#define NMODS ((int)(sizeof(mods) / sizeof(mods[0])))

int event_modifiers_parse(const char *text, unsigned *excl, char canon[8], char **cause)
{
	unsigned given = 0;
	if (!text || !*text)
		return set_cause(cause, "expected modifiers after ':' (u, k, h, G, H)");
	for (const char *p = text; *p; p++) {
		int k = 0;
		while (k < NMODS && mods[k].c != *p)
			k++;
		if (k == NMODS)
			return set_cause(cause, "unknown modifier '%c' in ':%s': expected u (user), k (kernel), "
					 "h (hypervisor), G (guest) or H (host)", *p, text);
		if (given & mods[k].bit)
			return set_cause(cause, "modifier '%c' given twice in ':%s'", *p, text);
		given |= mods[k].bit;
	}
	unsigned out = 0;
	int n = 0;
	for (int f = 0; f < 2; f++) {
		bool named = false;
		for (int k = 0; k < NMODS; k++)
			named |= mods[k].family == f && (given & mods[k].bit);
		for (int k = 0; k < NMODS; k++)
			if (named && mods[k].family == f && !(given & mods[k].bit))
				out |= mods[k].bit;
	}
	for (int k = 0; k < NMODS; k++)
		if (given & mods[k].bit)
			canon[n++] = mods[k].c;
	canon[n] = '\0';
	*excl = out;
	return 0;
}

char *event_modifiers_text(unsigned excl)
{
	char *s = xstrdup("");
	for (int k = 0; k < NMODS; k++) {
		if (!(excl & mods[k].bit))
			continue;
		char *t = xasprintf("%s%s%s", s, *s ? ", " : "", mods[k].what);
		free(s);
		s = t;
	}
	return s;
}

/* Why event b cannot take a privilege modifier, or NULL. */
static const char *no_modifier_why(const struct model *m, const struct event_def *b)
{
	const struct pmu_def *p = &m->pmus[b->pmu];
	if (p->kind == PMU_PROC)
		return "it is read from /proc/stat, not counted by a PMU";
	if (p->kind == PMU_UNCORE || p->scope != SCOPE_THREAD)
		return "it counts for a whole core, CCX or socket, which runs no single privilege level";
	if (b->flags & (EVF_SLOTS | EVF_TOPDOWN))
		return "the kernel's topdown events count only as a group led by slots, without modifiers";
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Appends to m a copy of event b that leaves out excl; returns its index. */
static int add_variant(struct model *m, int b, unsigned excl, const char *vname)
{
	m->events = model_room(m->events, m->nevents, &m->events_cap, sizeof(*m->events));
	const struct event_def *be = &m->events[b];
	struct event_def *v = &m->events[m->nevents];
	char *what = event_modifiers_text(excl);
	*v = *be;
	v->name = xstrdup(vname);
	v->spec = dup_or_null(be->spec);
	v->desc = xasprintf("%s (not counting: %s)", be->desc ? be->desc : be->name, what);
	free(what);
	v->sim_text = dup_or_null(be->sim_text);
	v->requires = dup_or_null(be->requires);
	v->scale_unit = dup_or_null(be->scale_unit);
	/* A part of the work is not the work: a variant counts towards no
	 * portable series. */
	v->nportable = 0;
	v->portable = NULL;
	v->file = dup_or_null(be->file);
	v->excl = be->excl | excl;
	v->fallback = -1;
	int i = m->nevents++;
	if (m->index[NAME_EVENT])
		model_index_add(m, NAME_EVENT, v->name, i);
	return i;
}

/* The event named name (or with perf's '-' for '_'), or where the model
 * names none so, the one that counts portable series name one for one:
 * perf's generic names (cycles, instructions, branches) then mean the same
 * on every model. */
static int find_event(const struct model *m, const char *name)
{
	int e = model_find_event(m, name);
	if (e < 0 && strchr(name, '-')) {
		/* perf's spelling of pmctop's names: page-faults, ref-cycles. */
		char *u = xstrdup(name);
		for (char *p = u; *p; p++)
			*p = *p == '-' ? '_' : *p;
		e = model_find_event(m, u);
		free(u);
	}
	/* A portable series name is lower case, digits and '_' alone
	 * (build_portable): a name with a modifier or a '-' is none, and
	 * the metrics' 28 modified names were 406 events' look-ups each. */
	for (int i = 0; e < 0 && !strpbrk(name, ":-") && i < m->nevents; i++)
		for (int k = 0; !m->events[i].excl && k < m->events[i].nportable; k++)
			if (m->events[i].portable[k].scale == 1 && !strcmp(m->events[i].portable[k].name, name))
				return i;
	return e;
}

int model_event_variant(struct model *m, const char *name, char **cause)
{
	int e = name ? find_event(m, name) : -1;
	if (e >= 0)
		return e;
	const char *colon = name ? strrchr(name, ':') : NULL;
	if (!colon)
		return set_cause(cause, "no event '%s'", name ? name : "");
	char *base = xstrndup(name, (size_t)(colon - name));
	int b = find_event(m, base);
	unsigned excl = 0;
	char canon[8];
	if (b < 0) {
		set_cause(cause, "no event '%s'", base);
		free(base);
		return -1;
	}
	/* From here on the event exists: what is wrong is the modifier. */
	char *why = NULL;
	if (event_modifiers_parse(colon + 1, &excl, canon, &why) < 0) {
		set_cause(cause, "event '%s': %s", name, why);
		free(why);
		free(base);
		return -2;
	}
	const char *no = no_modifier_why(m, &m->events[b]);
	if (no && excl) {
		set_cause(cause, "event '%s' takes no modifier ':%s': %s", m->events[b].name, colon + 1, no);
		free(base);
		return -2;
	}
	if (!excl) {
		/* `:ukh` or `:GH` leaves nothing out: the event itself. */
		free(base);
		return b;
	}
	char *vname = xasprintf("%s:%s", m->events[b].name, canon);
	free(base);
	e = model_find_event(m, vname);
	if (e < 0) {
		/* The fallback encoding counts the same quantity: its own
		 * variant, so that the modifier survives the fallback. */
		int fb = m->events[b].fallback;
		int vfb = -1;
		if (fb >= 0) {
			char *fname = xasprintf("%s:%s", m->events[fb].name, canon);
			vfb = model_event_variant(m, fname, NULL);
			free(fname);
		}
		e = add_variant(m, b, excl, vname);
		m->events[e].fallback = vfb;
	}
	free(vname);
	return e;
}
