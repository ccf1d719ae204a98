/* sim_masks.c: the simulated PMU counts what a unit mask selects.
 *
 * On AMD each bit of an event's unit mask selects one case (a fill from
 * the local L2, from another CCX, from DRAM, ...), and the counter adds
 * up the cases selected. The simulator's formula for an event is written
 * by hand from its name, so an event whose mask leaves out a case that its
 * name promises ("all", with a bit missing) would still have been counted
 * as all: the simulator took the definition's word for it. Where the model
 * defines every selected case as an event of its own (the same event
 * select and fields, one mask bit), the simulator counts the event as the
 * sum of those cases instead, as the hardware does, and a mask narrower
 * than its name shows in every figure built on it. tests/check_sim.c
 * checks that each such event's own formula agrees with the sum. */
#include "config.h"
#include "sim_masks.h"
#include "encode.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16

struct fields {
	int n;
	const char *name[MAX_FIELDS];
	uint64_t value[MAX_FIELDS];
};

static uint64_t field(const struct fields *f, const char *name)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->name[i], name))
			return f->value[i];
	return 0;
}

/* Whether a and b are the same but for the unit mask. */
static bool same_but_umask(const struct fields *a, const struct fields *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->name[i], "umask") && field(b, a->name[i]) != a->value[i])
			return false;
	return true;
}

static bool amd_model(const struct model *m)
{
	for (int i = 0; i < m->nmatch; i++)
		if (m->match[i].vendor && !strcmp(m->match[i].vendor, "AuthenticAMD"))
			return true;
	return false;
}

static void fields_of(const struct model *m, const struct event_def *ev, struct fields *f)
{
	f->n = encode_raw_fields(&m->pmus[ev->pmu], ev->raw, f->name, f->value, MAX_FIELDS);
}

int *sim_mask_parts(const struct model *m, int e, int *n)
{
	*n = 0;
	const struct event_def *ev = &m->events[e];
	if (ev->enc != ENC_RAW || !amd_model(m))
		return NULL;
	struct fields f;
	fields_of(m, ev, &f);
	uint64_t umask = field(&f, "umask");
	if ((umask & (umask - 1)) == 0 || field(&f, "cmask") || field(&f, "inv") || field(&f, "edge"))
		return NULL;
	/* The first event of each selected bit, each candidate decoded once. */
	int by_bit[64];
	for (int bit = 0; bit < 64; bit++)
		by_bit[bit] = -1;
	for (int j = 0; j < m->nevents; j++) {
		const struct event_def *o = &m->events[j];
		if (j == e || o->enc != ENC_RAW || o->pmu != ev->pmu || !o->sim_text)
			continue;
		struct fields g;
		fields_of(m, o, &g);
		uint64_t u = field(&g, "umask");
		if (u == 0 || (u & (u - 1)) != 0 || !(umask & u) || !same_but_umask(&f, &g))
			continue;
		int bit = __builtin_ctzll(u);
		if (by_bit[bit] < 0)
			by_bit[bit] = j;
	}
	int *parts = xmalloc(sizeof(int) * 64);
	for (int bit = 0; bit < 64; bit++) {
		if (!(umask >> bit & 1))
			continue;
		if (by_bit[bit] < 0) {
			free(parts);
			*n = 0;
			return NULL;
		}
		parts[(*n)++] = by_bit[bit];
	}
	return parts;
}
