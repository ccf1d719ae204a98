/* history.c: the dashboard's bounded history of figures (history.h): a
 * ring of compact intervals, each one allocation of 16-bit values plus
 * where each metric's values start in it, and a table of row ids that
 * consecutive intervals share (the rows change only when CPUs go offline
 * or return).
 *
 * A value is kept as an IEEE half (11 significant bits) of itself scaled
 * by a power of two shared by its block (one metric in one scope of one
 * interval): the power that brings the block's largest magnitude just
 * under 1. Scaling by a power of two is exact, so a value comes back
 * within 2^-11 (0.05 %) of itself -- far inside any multiplexed figure's
 * own uncertainty -- and a value under 2^-14 of its block's largest
 * within 2^-25 of that largest. NaN stays NaN (a gap, never a value).
 *
 * The few rows of the CCX, socket and system scopes keep a second half,
 * the first one's rounding error scaled by 2^11, so that they come back
 * within about 2^-22 of themselves: the header's and the CCX boxes'
 * ranges ("util% 67.72..67.75") print up to four decimals, finer than
 * one half. The CPUs' and cores' rows, nearly all of the memory, keep
 * one. */
#include "config.h"
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define NOT_KEPT UINT32_MAX

/* Which rows an interval has, per scope, by id. Shared (counted) by every
 * interval with the same rows. */
struct history_shape {
	int refs;
	int nrows[SNAP_NSCOPES];
	int *ids[SNAP_NSCOPES];       /* into the same allocation as the shape */
	size_t bytes;
};

struct history_entry {
	uint64_t seq;
	double time, measured_s, interval_s;
	struct history_shape *shape;
	size_t bytes;
	int nmetrics;
	uint32_t *start;              /* [nmetrics] first value of the metric in v, or NOT_KEPT */
	uint32_t *block;              /* [nmetrics] the metric's first block in exp */
	uint8_t *scopes;              /* [nmetrics] bit sc: the rows of scope sc are kept */
	int16_t *exp;                 /* per block (metric, scope kept): its power of two */
	uint16_t *v;                  /* halves, value / 2^exp */
};

/* x, with |x| < 1 (or NaN, or infinite), as an IEEE half, rounded to
 * the nearest (ties to even), from the bits of the double: this runs for
 * every value of every interval (160,000 with every metric planned at
 * 1,024 CPUs). */
static uint16_t half_of(double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	uint16_t sign = (uint16_t)(bits >> 48) & 0x8000;
	int ed = (int)(bits >> 52) & 0x7ff;
	uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
	/* The common case, a half's normal range (2^-14 to 1): round the
	 * low 42 bits away (to even) on the magnitude's bits, where a carry
	 * runs on into the exponent, then rebias the exponent. */
	if (ed >= 1023 - 14 && ed < 1023 + 16) {
		uint64_t mag = bits & ~(UINT64_C(1) << 63);
		mag += (UINT64_C(1) << 41) - 1 + ((mag >> 42) & 1);
		uint64_t h = (mag >> 42) - ((uint64_t)(1023 - 15) << 10);
		return h >= 0x7c00 ? sign | 0x7c00 : sign | (uint16_t)h;
	}
	if (ed == 0x7ff)
		return sign | (mant ? 0x7e00 : 0x7c00);
	if (ed == 0)                  /* zero, or far under a half's least */
		return sign;
	int H = ed - 1023 + 15;       /* the half's biased exponent */
	if (H >= 31)
		return sign | 0x7c00;
	/* Normal: the top 10 of the 52 bits; subnormal (H < 1): the whole
	 * significand shifted further, m 2^-24. A carry into bit 10 moves
	 * to the next exponent, which the encoding does by itself. */
	uint64_t sig = H >= 1 ? mant : (mant | (UINT64_C(1) << 52));
	int shift = H >= 1 ? 42 : 42 + 1 - H;
	if (shift > 53)
		return sign;
	uint64_t m = sig >> shift, rem = sig & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
	if (rem > half || (rem == half && (m & 1)))
		m++;
	uint32_t h = H >= 1 ? ((uint32_t)H << 10) + (uint32_t)m : (uint32_t)m;
	return h >= 0x7c00 ? sign | 0x7c00 : sign | (uint16_t)h;
}

static double half_value(uint16_t h)
{
	int E = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = E == 31 ? (m ? NAN : INFINITY) : E == 0 ? ldexp(m, -24) : ldexp(1024 + m, E - 25);
	return (h & 0x8000) ? -v : v;
}

/* Halves a value of scope sc takes: two for the few rows of the CCX,
 * socket and system scopes (the file's comment). */
static int scope_width(int sc)
{
	return sc <= SNAP_CORE ? 1 : 2;
}

void history_init(struct history *h, int cap, size_t budget)
{
	memset(h, 0, sizeof(*h));
	h->cap = cap > 0 ? cap : 1;
	h->budget = budget;
	h->ring = xcalloc((size_t)h->cap, sizeof(*h->ring));
	h->bytes = sizeof(*h->ring) * (size_t)h->cap;
}

static void shape_put(struct history *h, struct history_shape *sh)
{
	if (sh && --sh->refs == 0) {
		h->bytes -= sh->bytes;
		free(sh);
	}
}

static struct history_entry *entry_at(const struct history *h, int i)
{
	return h->ring[(h->first + i) % h->cap];
}

static void drop_oldest(struct history *h)
{
	struct history_entry *e = h->ring[h->first];
	h->ring[h->first] = NULL;
	h->first = (h->first + 1) % h->cap;
	h->n--;
	h->bytes -= e->bytes;
	shape_put(h, e->shape);
	free(e);
}

void history_clear(struct history *h)
{
	while (h->n > 0)
		drop_oldest(h);
	h->first = 0;
	shape_put(h, h->shape);
	h->shape = NULL;
}

void history_done(struct history *h)
{
	if (!h->ring)
		return;
	history_clear(h);
	free(h->ring);
	memset(h, 0, sizeof(*h));
}

static bool shape_matches(const struct history_shape *sh, const struct snapshot *s)
{
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		if (sh->nrows[sc] != s->nrows[sc])
			return false;
		for (int r = 0; r < s->nrows[sc]; r++)
			if (sh->ids[sc][r] != s->rows[sc][r].id)
				return false;
	}
	return true;
}

/* The newest shape if s has the same rows, else a new one. Counted for
 * the caller. */
static struct history_shape *shape_get(struct history *h, const struct snapshot *s)
{
	if (!h->shape || !shape_matches(h->shape, s)) {
		int total = 0;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			total += s->nrows[sc];
		size_t bytes = sizeof(struct history_shape) + sizeof(int) * (size_t)total;
		struct history_shape *sh = xcalloc(1, bytes);
		int *ids = (int *)(sh + 1);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			sh->nrows[sc] = s->nrows[sc];
			sh->ids[sc] = ids;
			for (int r = 0; r < s->nrows[sc]; r++)
				*ids++ = s->rows[sc][r].id;
		}
		sh->bytes = bytes;
		sh->refs = 1;          /* the history's own reference */
		h->bytes += bytes;
		shape_put(h, h->shape);
		h->shape = sh;
	}
	h->shape->refs++;
	return h->shape;
}

static bool scope_has_value(const struct snapshot *s, int sc, int metric)
{
	for (int r = 0; r < s->nrows[sc]; r++)
		if (!isnan(snap_metric(s, &s->rows[sc][r], metric)))
			return true;
	return false;
}

/* One interval's figures in one allocation: the header, the starts, the
 * first blocks, the scope masks, the blocks' powers, then the halves. */
static struct history_entry *entry_new(const struct snapshot *s, size_t *bytes_out)
{
	int nm = s->nmetrics;
	uint8_t *mask = xcalloc((size_t)nm + 1, 1);
	size_t nvals = 0, nblocks = 0;
	for (int m = 0; m < nm; m++) {
		if (!s->metric_planned[m])
			continue;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			if (scope_has_value(s, sc, m)) {
				mask[m] |= (uint8_t)(1u << sc);
				nvals += (size_t)s->nrows[sc] * (size_t)scope_width(sc);
				nblocks++;
			}
	}
	size_t head = sizeof(struct history_entry) + 2 * sizeof(uint32_t) * (size_t)nm + (size_t)nm;
	head = (head + sizeof(int16_t) - 1) / sizeof(int16_t) * sizeof(int16_t);
	size_t bytes = head + sizeof(int16_t) * nblocks + sizeof(uint16_t) * nvals;
	struct history_entry *e = xmalloc(bytes);
	e->seq = s->seq;
	e->time = s->time;
	e->measured_s = s->measured_s;
	e->interval_s = s->interval_s > 0 ? s->interval_s : 0;
	e->shape = NULL;
	e->bytes = bytes;
	e->nmetrics = nm;
	e->start = (uint32_t *)(e + 1);
	e->block = e->start + nm;
	e->scopes = (uint8_t *)(e->block + nm);
	e->exp = (int16_t *)((char *)e + head);
	e->v = (uint16_t *)(e->exp + nblocks);
	size_t k = 0, b = 0;
	for (int m = 0; m < nm; m++) {
		e->scopes[m] = mask[m];
		e->start[m] = mask[m] ? (uint32_t)k : NOT_KEPT;
		e->block[m] = (uint32_t)b;
		for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
			if (!(mask[m] & (1u << sc)))
				continue;
			const struct snap_row *rows = s->rows[sc];
			int c = snap_mcol(s, m);  /* kept: it has a column */
			double big = 0;
			for (int r = 0; r < s->nrows[sc]; r++) {
				double x = fabs(snap_col_(rows[r].mv, c));
				if (isfinite(x) && x > big)
					big = x;
			}
			/* big = f 2^ex with f < 1: every finite value / 2^ex is
			 * under 1 in magnitude. */
			int ex = 0;
			if (big > 0)
				frexp(big, &ex);
			e->exp[b++] = (int16_t)ex;
			double scale = ldexp(1, -ex);   /* exact: a power of two */
			for (int r = 0; r < s->nrows[sc]; r++) {
				double y = snap_col_(rows[r].mv, c) * scale;
				uint16_t hi = half_of(y);
				e->v[k++] = hi;
				/* The rest, under half an ulp of hi: x 2^11 it is
				 * under 1, as half_of needs. */
				if (scope_width(sc) == 2)
					e->v[k++] = half_of(isfinite(y) ? (y - half_value(hi)) * 2048 : 0);
			}
		}
	}
	free(mask);
	*bytes_out = bytes;
	return e;
}

bool history_add(struct history *h, const struct snapshot *s)
{
	if (!h->ring || !s || !s->metric_planned)
		return false;
	if (h->n > 0) {
		/* A new delay keeps what is held: history_series lays the
		 * intervals out by time. */
		const struct history_entry *last = entry_at(h, h->n - 1);
		if (s->nmetrics != h->nmetrics || s->time < last->time)
			history_clear(h);
	}
	h->nmetrics = s->nmetrics;
	size_t bytes;
	struct history_entry *e = entry_new(s, &bytes);
	/* The shape is counted as soon as it exists: it may be new. */
	e->shape = shape_get(h, s);
	while (h->n > 0 && (h->n >= h->cap || h->bytes + bytes > h->budget))
		drop_oldest(h);
	if (h->bytes + bytes > h->budget) {
		shape_put(h, e->shape);
		free(e);
		/* Nothing is held now: the rows' table goes too. */
		shape_put(h, h->shape);
		h->shape = NULL;
		h->dropped++;
		return false;
	}
	h->ring[(h->first + h->n) % h->cap] = e;
	h->n++;
	h->bytes += bytes;
	return true;
}

int history_count(const struct history *h)
{
	return h->n;
}

size_t history_bytes(const struct history *h)
{
	return h->bytes;
}

double history_interval(const struct history *h)
{
	if (h->n < 1)
		return NAN;
	const struct history_entry *e = entry_at(h, h->n - 1);
	return e->interval_s > 0 ? e->interval_s : e->measured_s;
}

double history_span(const struct history *h)
{
	if (h->n < 1)
		return 0;
	const struct history_entry *a = entry_at(h, 0), *b = entry_at(h, h->n - 1);
	return b->time - a->time + a->measured_s;
}

/* The value of metric in row id of scope sc in interval e; NaN if not kept. */
static double entry_value(const struct history_entry *e, int sc, int id, int metric)
{
	if (metric < 0 || metric >= e->nmetrics || e->start[metric] == NOT_KEPT ||
	    !(e->scopes[metric] & (1u << sc)))
		return NAN;
	const struct history_shape *sh = e->shape;
	int slot = -1;
	if (id >= 0 && id < sh->nrows[sc] && sh->ids[sc][id] == id)
		slot = id;
	for (int r = 0; slot < 0 && r < sh->nrows[sc]; r++)
		if (sh->ids[sc][r] == id)
			slot = r;
	if (slot < 0)
		return NAN;
	size_t k = e->start[metric], b = e->block[metric];
	for (int s = 0; s < sc; s++)
		if (e->scopes[metric] & (1u << s)) {
			k += (size_t)sh->nrows[s] * (size_t)scope_width(s);
			b++;
		}
	int w = scope_width(sc);
	double v = half_value(e->v[k + (size_t)slot * (size_t)w]);
	if (w == 2 && isfinite(v))
		v += half_value(e->v[k + (size_t)slot * 2 + 1]) / 2048;
	return ldexp(v, e->exp[b]);
}

/* An interval's length: the delay asked for where known, else measured. */
static double entry_len(const struct history_entry *e)
{
	return e->interval_s > 0 ? e->interval_s : e->measured_s;
}

int history_series(const struct history *h, enum snap_scope sc, int id, int metric, double *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = NAN;
	if (h->n < 1 || n < 1 || sc < 0 || sc >= SNAP_NSCOPES)
		return 0;
	const struct history_entry *newest = entry_at(h, h->n - 1);
	double iv = history_interval(h);
	if (!(iv > 0))
		iv = 1;
	/* Slot k (back from the newest) stands for the time from k to k+1
	 * newest lengths before the newest interval's end. An interval
	 * fills the slots whose middles it spans: one of twice the length
	 * (before + made the delay shorter) fills two, so the graphs keep
	 * their history across a change of delay at the new scale; shorter
	 * ones that span no middle share the slot they end nearest, as
	 * their mean. An interval that ran late never takes a slot that a
	 * newer one has filled: it moves back one. */
	int *cnt = xcalloc((size_t)n, sizeof(int));
	int prev = -1;
	bool prev_shared = false;
	for (int i = h->n - 1; i >= 0; i--) {
		const struct history_entry *e = entry_at(h, i);
		double back = (newest->time - e->time) / iv, r = entry_len(e) / iv;
		if (!(r > 0))
			r = 1;
		if (back >= (double)n)
			break;
		/* A middle within 1 % of its span's end is not spanned: two
		 * half-length intervals meet exactly at one. */
		int lo = (int)ceil(back - 0.5 + 0.01), hi = (int)floor(back + r - 0.5 - 0.01);
		bool shared = hi < lo;
		if (shared) {
			lo = hi = (int)floor(back + r / 2);
			if (lo < prev || (lo == prev && !prev_shared))
				lo = hi = prev + !prev_shared;
		} else if (lo <= prev) {
			hi += prev + 1 - lo;
			lo = prev + 1;
		}
		if (lo >= n)
			break;
		prev = hi < n ? hi : n - 1;
		prev_shared = shared;
		double v = entry_value(e, sc, id, metric);
		if (isnan(v))
			continue;
		for (int k = lo; k <= hi && k < n; k++) {
			double *o = &out[n - 1 - k];
			*o = cnt[k] ? *o + (v - *o) / (cnt[k] + 1) : v;
			cnt[k]++;
		}
	}
	int got = 0;
	for (int k = 0; k < n; k++)
		got += cnt[k] > 0;
	free(cnt);
	return got;
}

void history_stats(const struct history *h, enum snap_scope sc, int id, int metric, struct history_stats *st)
{
	double sum = 0, wsum = 0;
	st->min = st->avg = st->max = NAN;
	st->n = 0;
	if (sc < 0 || sc >= SNAP_NSCOPES)
		return;
	for (int i = 0; i < h->n; i++) {
		double v = entry_value(entry_at(h, i), sc, id, metric);
		if (isnan(v))
			continue;
		if (st->n == 0 || v < st->min)
			st->min = v;
		if (st->n == 0 || v > st->max)
			st->max = v;
		/* Weighed by its length: a change of delay leaves intervals
		 * of two lengths, and the mean is over time. */
		double w = entry_len(entry_at(h, i));
		sum += v * w;
		wsum += w;
		st->n++;
	}
	if (st->n > 0)
		st->avg = wsum > 0 ? sum / wsum : NAN;
}
