/* snapshot.c: allocation of per-interval snapshots and the lock-free
 * single-producer/single-consumer ring that carries them from the sampler
 * thread to the consumer (screen or writer).
 *
 * The ring uses free-running unsigned head/tail counters: the producer owns
 * head and the consumer owns tail, so each side only ever writes its own
 * index and neither ever waits. Slots are published with release stores
 * and observed with acquire loads, which orders the snapshot's contents
 * before the pointer becomes visible. */
#include "config.h"
#include "snapshot.h"
#include "topo.h"
#include "util.h"
#include "hot_path.h"
#include "spare.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Eight marks at a time: a model has hundreds of events (an imported one
 * thousands), of which an interval's snapshot keeps a few dozen, and
 * these run at every interval. A bool is one byte of 0 or 1. */
static uint64_t marks8(const bool *mark)
{
	uint64_t w;
	memcpy(&w, mark, sizeof(w));
	return w;
}

/* How many of n items are marked (all when mark is NULL). */
static int count_marked(int n, const bool *mark)
{
	if (!mark)
		return n;
	int k = 0, i = 0;
	for (; i + 8 <= n; i += 8)   /* the bytes' sum, in the top byte */
		k += (int)((marks8(mark + i) * UINT64_C(0x0101010101010101)) >> 56);
	for (; i < n; i++)
		k += mark[i] != 0;
	return k;
}

/* Column maps: each marked item (all when mark is NULL) gets the next
 * column. Returns the number of columns. */
static int column_map(int n, const bool *mark, int *col)
{
	int k = 0;
	if (!mark) {
		for (int i = 0; i < n; i++)
			col[i] = i;
		return n;
	}
	/* Without a branch per item: an imported model has thousands. */
	int i = 0;
	for (; i + 8 <= n; i += 8) {
		if (!marks8(mark + i)) {   /* eight unmarked: the common case */
			for (int j = 0; j < 8; j++)
				col[i + j] = -1;
			continue;
		}
		for (int j = i; j < i + 8; j++) {
			int on = mark[j] != 0;
			col[j] = on ? k : -1;
			k += on;
		}
	}
	for (; i < n; i++) {
		int on = mark[i] != 0;
		col[i] = on ? k : -1;
		k += on;
	}
	return k;
}

/* Room for n items of size each, rounded up so that what follows is
 * aligned for any type. */
static size_t part(size_t n, size_t size)
{
	size_t a = _Alignof(max_align_t);
	return (n * size + a - 1) / a * a;
}

/* The last snapshot freed, kept for the next one of the same size
 * (spare.h): a run makes one an interval of the same rows and columns,
 * and the allocator's work for a block of some kilobytes (found, split,
 * freed and merged again) was a tenth of what a small interval's
 * snapshot cost. */
static _Atomic(void *) spare;

static void *block_take(size_t bytes)
{
	struct snapshot *s = spare_take(&spare);
	if (s && s->alloc_bytes == bytes)
		return s;
	free(s);
	return xmalloc(bytes);
}

static void block_give(struct snapshot *s)
{
	spare_give(&spare, s);
}

/* A snapshot is one allocation: the struct, each scope's rows and their
 * block of doubles, all NaN ("not measured") until derive fills them, the
 * planned masks and the column maps (or a hold on the maps of the plan's
 * live list, which the derivation shares). A snapshot of 1024 CPUs is made every
 * interval; six allocations per row were a measurable share of the
 * sampler's time, and fifteen per snapshot a tenth of a small batch
 * interval's own work. snapshot_free frees it with what derive adds
 * (offline CPUs, notice, tasks), which are allocated apart. */
HOT_PATH static struct snapshot *snapshot_alloc(const struct model *m, const int nrows[SNAP_NSCOPES], const bool *mcols,
				       const bool *ecols, const struct snapshot *like, const struct snap_colmap *maps,
				       bool events_unset)
{
	int nmet = m ? m->nmetrics : 0, nev = m ? m->nevents : 0;
	int nm_i = 0, ne_i = 0;
	if (maps) {
		nm_i = maps->nmcols;
		ne_i = maps->necols;
	} else if (like) {
		nm_i = like->mcol ? like->nmcols : like->nmetrics;
		ne_i = like->ecol ? like->necols : like->nevents;
	} else {
		nm_i = count_marked(nmet, mcols);
		ne_i = count_marked(nev, ecols);
	}
	size_t nm = (size_t)nm_i, ne = (size_t)ne_i, per = 3 * nm + 3 * ne;
	int n[SNAP_NSCOPES];
	size_t bytes = part(1, sizeof(struct snapshot));
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		n[sc] = nrows && nrows[sc] > 0 ? nrows[sc] : 0;
		bytes += part((size_t)n[sc] * per + 1, sizeof(double)) +
			 part((size_t)(n[sc] > 0 ? n[sc] : 1), sizeof(struct snap_row));
	}
	bool shared = maps && maps->owner;
	if (!shared)
		bytes += part((size_t)(nmet > 0 ? nmet : 1), sizeof(bool)) + part((size_t)(nev > 0 ? nev : 1), sizeof(bool)) +
			 part((size_t)nmet + 1, sizeof(int)) + part((size_t)nev + 1, sizeof(int));
	char *p = block_take(bytes);
	struct snapshot *s = (struct snapshot *)(void *)p;
	memset(s, 0, sizeof(*s));
	s->alloc_bytes = bytes;
	p += part(1, sizeof(struct snapshot));
	s->model = m;
	s->nmetrics = nmet;
	s->nevents = nev;
	s->measured_s = NAN;
	s->sampler_cost_s = NAN;
	s->rotate_ms = NAN;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		size_t len = (size_t)n[sc] * per + 1;
		double *blk = s->block[sc] = (double *)(void *)p;
		p += part(len, sizeof(double));
		s->rows[sc] = (struct snap_row *)(void *)p;
		size_t rbytes = part((size_t)(n[sc] > 0 ? n[sc] : 1), sizeof(struct snap_row));
		memset(p, 0, rbytes);
		p += rbytes;
		s->nrows[sc] = n[sc];
		/* Every figure starts unknown. This runs for every row of every
		 * interval (a tenth of the sampler's own time at 384 CPUs when
		 * written one by one): eight stores a turn. events_unset: the
		 * metrics' figures only, row by row; the caller writes every
		 * event's. */
		size_t i = 0, stride = events_unset && per ? per : len, fill = events_unset && per ? 3 * nm : len;
		const double *tm = maps && events_unset && per ? maps->mrow[sc] : NULL;
		if (tm) {
			/* The caller's row of metric figures (some not NaN),
			 * copied into every row. */
			for (int r = 0; r < n[sc]; r++)
				memcpy(blk + (size_t)r * per, tm, sizeof(double) * 3 * nm);
			blk[len - 1] = NAN;
		}
		for (size_t at = 0; !tm && at < len; at += stride) {
			double *b = blk + at;
			size_t end = fill < len - at ? fill : len - at;
			for (i = 0; i + 8 <= end; i += 8)
				b[i] = b[i + 1] = b[i + 2] = b[i + 3] = b[i + 4] = b[i + 5] = b[i + 6] = b[i + 7] = NAN;
			for (; i < end; i++)
				b[i] = NAN;
		}
		for (int r = 0; r < n[sc]; r++) {
			struct snap_row *row = &s->rows[sc][r];
			double *b = s->block[sc] + (size_t)r * per;
			row->id = r;
			row->cpu = row->core = row->ccx = row->socket = -1;
			row->mv = b;
			row->mcov = b + nm;
			row->mrse = b + 2 * nm;
			row->ev = b + 3 * nm;
			row->ecov = b + 3 * nm + ne;
			row->erse = b + 3 * nm + 2 * ne;
		}
	}
	if (shared) {
		/* Read-only from here on, as every snapshot's are once made. */
		maps->hold(maps->owner);
		s->maps_owner = maps->owner;
		s->maps_release = maps->release;
		s->metric_planned = (bool *)maps->mplanned;
		s->event_planned = (bool *)maps->eplanned;
		s->mcol = (int *)maps->mcol;
		s->ecol = (int *)maps->ecol;
		s->nmcols = nm_i;
		s->necols = ne_i;
		return s;
	}
	/* The masks start false (or as the maps have them); the column maps
	 * are written whole below. */
	memset(p, 0, part((size_t)(nmet > 0 ? nmet : 1), sizeof(bool)) + part((size_t)(nev > 0 ? nev : 1), sizeof(bool)));
	if (maps) {
		memcpy(p, maps->mplanned, sizeof(bool) * (size_t)nmet);
		memcpy(p + part((size_t)(nmet > 0 ? nmet : 1), sizeof(bool)), maps->eplanned, sizeof(bool) * (size_t)nev);
	}
	s->metric_planned = (bool *)p;
	p += part((size_t)(nmet > 0 ? nmet : 1), sizeof(bool));
	s->event_planned = (bool *)p;
	p += part((size_t)(nev > 0 ? nev : 1), sizeof(bool));
	s->mcol = (int *)(void *)p;
	p += part((size_t)nmet + 1, sizeof(int));
	s->ecol = (int *)(void *)p;
	if (maps) {
		memcpy(s->mcol, maps->mcol, sizeof(int) * (size_t)nmet);
		memcpy(s->ecol, maps->ecol, sizeof(int) * (size_t)nev);
		s->nmcols = nm_i;
		s->necols = ne_i;
	} else if (like) {
		for (int i = 0; i < s->nmetrics; i++)
			s->mcol[i] = snap_mcol(like, i);
		for (int i = 0; i < s->nevents; i++)
			s->ecol[i] = snap_ecol(like, i);
		s->nmcols = nm_i;
		s->necols = ne_i;
	} else {
		s->nmcols = column_map(s->nmetrics, mcols, s->mcol);
		s->necols = column_map(s->nevents, ecols, s->ecol);
	}
	return s;
}

struct snapshot *snapshot_new(const struct model *m, const int nrows[SNAP_NSCOPES])
{
	return snapshot_alloc(m, nrows, NULL, NULL, NULL, NULL, false);
}

struct snapshot *snapshot_new_cols(const struct model *m, const int nrows[SNAP_NSCOPES], const bool *mcols,
				   const bool *ecols, bool events_unset)
{
	return snapshot_alloc(m, nrows, mcols, ecols, NULL, NULL, events_unset);
}

HOT_PATH struct snapshot *snapshot_new_mapped(const struct model *m, const int nrows[SNAP_NSCOPES],
				     const struct snap_colmap *maps, bool events_unset)
{
	return snapshot_alloc(m, nrows, NULL, NULL, NULL, maps, events_unset);
}

struct snapshot *snapshot_new_like(const struct snapshot *like, const int nrows[SNAP_NSCOPES])
{
	return snapshot_alloc(like->model, nrows, NULL, NULL, like, NULL, false);
}

size_t snapshot_row_bytes(const struct snapshot *s)
{
	size_t per = sizeof(double) * (3 * (size_t)s->nmcols + 3 * (size_t)s->necols) + sizeof(struct snap_row);
	size_t n = 0;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		n += (size_t)s->nrows[sc];
	return n * per;
}

struct snap_note {
	_Atomic int refs;
	char text[];
};

struct snap_note *snap_note_new(const char *text)
{
	size_t len = strlen(text);
	struct snap_note *n = xmalloc(sizeof(*n) + len + 1);
	atomic_init(&n->refs, 1);
	memcpy(n->text, text, len + 1);
	return n;
}

HOT_PATH char *snap_note_text(struct snap_note *n)
{
	return n->text;
}

HOT_PATH struct snap_note *snap_note_hold(struct snap_note *n)
{
	atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
	return n;
}

HOT_PATH void snap_note_release(struct snap_note *n)
{
	if (n && atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) == 1)
		free(n);
}

/* What only some snapshots have: tasks, a fleet's hosts, groups, a
 * drill-down, a past. */
static void snapshot_free_extras(struct snapshot *s)
{
	for (int i = 0; i < s->ntasks; i++)
		snap_task_clear(&s->tasks[i]);
	for (int i = 0; i < s->ncgroups; i++)
		snap_task_clear(&s->cgroups[i]);
	for (int i = 0; i < s->ncgtree; i++)
		snap_task_clear(&s->cgtree[i]);
	free(s->tasks);
	free(s->cgroups);
	free(s->cgtree);
	free(s->task_measured);
	for (int i = 0; i < s->nhosts; i++)
		snap_host_clear(&s->hosts[i]);
	free(s->hosts);
	for (int i = 0; i < s->ngroups; i++) {
		free(s->groups[i].label);
		free(s->groups[i].value);
		free(s->groups[i].v);
		free(s->groups[i].rse);
	}
	free(s->groups);
	free(s->drill);
	topo_free(s->drill_topo);
	free(s->past_t);
	free(s->past_v);
}

HOT_PATH void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	/* Rows, blocks, masks and column maps lie in s's own allocation.
	 * The rest is freed only where there is some: a steady batch
	 * interval's snapshot has none of it, and freeing nothing a dozen
	 * times was the only call into the C library's allocator left in
	 * such an interval (docs/performance.md). */
	snap_errors_release(s->errors);
	if (s->offline)
		free(s->offline);
	if (s->returning)
		free(s->returning);
	if (s->note)
		snap_note_release(s->note);
	else if (s->notice)
		free(s->notice);
	if (s->tasks || s->cgroups || s->cgtree || s->task_measured || s->hosts || s->groups || s->drill ||
	    s->drill_topo || s->past_t || s->past_v)
		snapshot_free_extras(s);
	if (s->maps_release)
		s->maps_release(s->maps_owner);
	block_give(s);
}

void snap_host_clear(struct snap_host *h)
{
	free(h->name);
	free(h->model);
	free(h->status);
	for (int i = 0; i < h->nlabels; i++) {
		free(h->lkeys[i]);
		free(h->lvals[i]);
	}
	free(h->lkeys);
	free(h->lvals);
}

void snap_task_clear(struct snap_task *t)
{
	free(t->comm);
	free(t->cgroup);
	free(t->metric);
	free(t->metric_rse);
	free(t->cpus);
	free(t->cpu_share);
	memset(t, 0, sizeof(*t));
}

static void *dup_of(const void *p, size_t size)
{
	if (!p)
		return NULL;
	void *q = xmalloc(size ? size : 1);
	memcpy(q, p, size);
	return q;
}

struct snap_task *snap_tasks_dup(const struct snap_task *t, int n, int nmetrics)
{
	if (n <= 0)
		return NULL;
	struct snap_task *c = xcalloc((size_t)n, sizeof(*c));
	for (int i = 0; i < n; i++) {
		c[i] = t[i];
		c[i].comm = t[i].comm ? xstrdup(t[i].comm) : NULL;
		c[i].cgroup = t[i].cgroup ? xstrdup(t[i].cgroup) : NULL;
		c[i].metric = dup_of(t[i].metric, sizeof(double) * (size_t)nmetrics);
		c[i].metric_rse = dup_of(t[i].metric_rse, sizeof(double) * (size_t)nmetrics);
		c[i].cpus = dup_of(t[i].cpus, sizeof(int) * (size_t)t[i].ncpus);
		c[i].cpu_share = dup_of(t[i].cpu_share, sizeof(double) * (size_t)t[i].ncpus);
	}
	return c;
}

const struct snap_row *snapshot_cpu(const struct snapshot *s, int cpu)
{
	if (!s)
		return NULL;
	/* CPU rows are normally in CPU order, so try the obvious place first. */
	int n = s->nrows[SNAP_CPU];
	const struct snap_row *rows = s->rows[SNAP_CPU];
	if (cpu >= 0 && cpu < n && rows[cpu].cpu == cpu)
		return &rows[cpu];
	for (int i = 0; i < n; i++)
		if (rows[i].cpu == cpu)
			return &rows[i];
	return NULL;
}

void snap_ring_init(struct snap_ring *r)
{
	for (int i = 0; i < SNAP_RING_SIZE; i++)
		r->slot[i] = NULL;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	atomic_init(&r->dropped, 0);
}

bool snap_ring_push(struct snap_ring *r, struct snapshot *s)
{
	unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
	unsigned t = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (h - t >= SNAP_RING_SIZE) {
		/* Full: the consumer is behind. Dropping the new snapshot keeps
		 * the producer wait-free; the consumer sees the count. */
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
		snapshot_free(s);
		return false;
	}
	r->slot[h % SNAP_RING_SIZE] = s;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return true;
}

struct snapshot *snap_ring_pop(struct snap_ring *r)
{
	unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	unsigned h = atomic_load_explicit(&r->head, memory_order_acquire);
	if (t == h)
		return NULL;
	struct snapshot *s = r->slot[t % SNAP_RING_SIZE];
	r->slot[t % SNAP_RING_SIZE] = NULL;
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return s;
}

struct snapshot *snap_ring_pop_latest(struct snap_ring *r)
{
	unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	unsigned h = atomic_load_explicit(&r->head, memory_order_acquire);
	if (t == h)
		return NULL;
	for (; t + 1 != h; t++) {
		snapshot_free(r->slot[t % SNAP_RING_SIZE]);
		r->slot[t % SNAP_RING_SIZE] = NULL;
	}
	struct snapshot *s = r->slot[t % SNAP_RING_SIZE];
	r->slot[t % SNAP_RING_SIZE] = NULL;
	atomic_store_explicit(&r->tail, h, memory_order_release);
	return s;
}

void snap_ring_done(struct snap_ring *r)
{
	struct snapshot *s;
	while ((s = snap_ring_pop(r)) != NULL)
		snapshot_free(s);
}

int snapshot_row_scope(const struct snapshot *s, const struct snap_row *row, int *index)
{
	for (int sc = 0; s && row && sc < SNAP_NSCOPES; sc++)
		if (s->rows[sc] && row >= s->rows[sc] && row < s->rows[sc] + s->nrows[sc]) {
			*index = (int)(row - s->rows[sc]);
			return sc;
		}
	return -1;
}

const struct snap_row *snapshot_row(const struct snapshot *s, enum snap_scope sc, int id)
{
	if (!s || sc < 0 || sc >= SNAP_NSCOPES || !s->rows[sc])
		return NULL;
	int n = s->nrows[sc];
	/* Rows are in id order, so the row is usually at its id. */
	if (id >= 0 && id < n && s->rows[sc][id].id == id)
		return &s->rows[sc][id];
	for (int i = 0; i < n; i++)
		if (s->rows[sc][i].id == id)
			return &s->rows[sc][i];
	return NULL;
}
