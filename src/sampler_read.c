/* sampler_read.c: the sampler's interval: waiting, rotating the groups
 * and reading each window, then handing the counts to derive.c for the
 * interval's snapshot (sampler.c says what the sampler does as a whole). */
#include "config.h"
#include "sampler.h"
#include "derive.h"
#include "derive_tree.h"
#include "sampler_companion.h"
#include "sampler_energy.h"
#include "sampler_impl.h"
#include "tasks.h"
#include "uncertainty.h"
#include "util.h"
#include "hot_path.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void stamp_snapshot(struct sampler *s, struct snapshot *snap, const char *why);

/* A signal (batch mode) or a request (the screen's thread) ends the
 * interval under way. */
static bool interrupted(struct sampler *s)
{
	return (s->cfg.interrupt && *s->cfg.interrupt) || atomic_load(&s->cut);
}

/* Waits until t (backend clock): advances simulated time, or sleeps. */
HOT_PATH static void wait_until(struct sampler *s, uint64_t t)
{
	uint64_t now = sampler_clock_now(s);
	if (t <= now)
		return;
	if (s->cfg.ops->advance) {
		s->cfg.ops->advance(s->bk, t - now);
		return;
	}
	struct timespec ts = sampler_mono_ts(t);
	if (s->thread_running) {
		/* On the sampler thread: sleep on the condition variable, so
		 * that a new delay or a pause ends the interval at once. */
		pthread_mutex_lock(&s->mu);
		while (!s->stop && !atomic_load(&s->cut) &&
		       pthread_cond_timedwait(&s->cond, &s->mu, &ts) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&s->mu);
		return;
	}
	/* Batch mode: a signal (Ctrl-C) ends the wait, and the interval. */
	while (!interrupted(s) && now_ns() < t)
		wait_until_ns(t);
}

/* Waits until t, taking the per-task samples at least every
 * SAMPLER_DRAIN_MS on the way, so that the kernel's buffers never fill
 * whatever the rotation period. Returns early where wait_until does. */
HOT_PATH static void wait_draining(struct sampler *s, uint64_t t)
{
	if (!s->tasks) {
		wait_until(s, t);
		return;
	}
	for (;;) {
		uint64_t step = sampler_clock_now(s) + (uint64_t)(SAMPLER_DRAIN_MS * 1e6);
		if (step > t)
			step = t;
		wait_until(s, step);
		tasks_drain(s->tasks);
		uint64_t now = sampler_clock_now(s);
		if (now >= t || now < step)
			return;
	}
}

/* Reads group gi on instance i and adds the difference to the previous
 * read to the interval's counts (and, when bucket >= 0, to that bucket of
 * windows). discard only moves the previous read on (after a pause).
 * Returns the running time added, in ns; a CPU whose read says -ENODEV is
 * dropped. */
HOT_PATH static double read_inst(struct sampler *s, int gi, int i, int bucket, bool discard, struct bk_count *buf)
{
	struct grp_state *grp = &s->grp[gi];
	struct pmu_state *ps = &s->ps[grp->pmu];
	if (!ps->alive[i] || !grp->bg[i])
		return 0;
	int rc = s->cfg.ops->read(s->bk, grp->bg[i], buf);
	if (rc == -ENODEV) {
		sampler_drop_cpu(s, ps->inst[i].cpu);
		return 0;
	}
	if (rc != 0) {
		/* This group adds nothing this time; its companions' marks move
		 * on, so that the next window does not take this one's share.
		 * Its counts are not lost (the previous read stays where it
		 * was: the next read takes them), and the failure is said in
		 * the interval's notice. */
		s->read_fails++;
		s->read_err = rc;
		if (ps->ncomp)
			companions_take(s, gi, i, bucket, 0);
		return 0;
	}
	struct bk_count *prev = &grp->prev[(size_t)i * (size_t)grp->nhw];
	double dr = 0, de = 0;
	if (!discard && buf[0].time_running >= prev[0].time_running)
		dr = (double)(buf[0].time_running - prev[0].time_running);
	if (!discard && buf[0].time_enabled >= prev[0].time_enabled)
		de = (double)(buf[0].time_enabled - prev[0].time_enabled);
	size_t at = (size_t)i * (size_t)grp->nev;
	size_t bat = ((size_t)bucket * (size_t)ps->ninst + (size_t)i) * (size_t)grp->nev;
	/* A group of one bucket has its counts for it (begin_interval). */
	if (grp->nbuckets == 1)
		bucket = -1;
	if (ps->ncomp)
		companions_take(s, gi, i, bucket, de > 0 ? (dr < de ? dr / de : 1) : 0);
	/* Each event's count since the last read: the loops apart by what
	 * does not change within them (this runs for every read). */
	int nhw = grp->nhw;
	double *cnt = &grp->counts[at];
	/* The read becomes the previous one as it is taken (a few events:
	 * no call to memcpy for them). */
	if (!discard && bucket >= 0) {
		double *bcnt = &grp->bucket_counts[bat];
		for (int j = 0; j < nhw; j++) {
			if (buf[j].value >= prev[j].value) {
				double dv = (double)(buf[j].value - prev[j].value);
				cnt[j] += dv;
				bcnt[j] += dv;
			}
			prev[j] = buf[j];
		}
	} else if (!discard) {
		for (int j = 0; j < nhw; j++) {
			if (buf[j].value >= prev[j].value)
				cnt[j] += (double)(buf[j].value - prev[j].value);
			prev[j] = buf[j];
		}
	} else {
		memcpy(prev, buf, sizeof(*prev) * (size_t)nhw);
	}
	grp->running[i] += dr;
	if (bucket >= 0)
		grp->bucket_running[(size_t)bucket * (size_t)ps->ninst + (size_t)i] += dr;
	return dr;
}

/* The bucket the next window of group grp falls in: windows are spread
 * evenly over the buckets in time order. */
static int next_bucket(const struct grp_state *grp)
{
	if (grp->nbuckets <= 0)
		return -1;
	int b = grp->wins > 0 ? (int)((long)grp->nwin * grp->nbuckets / grp->wins) : grp->nwin;
	return b < grp->nbuckets ? b : grp->nbuckets - 1;
}

static struct bk_count *count_buf(struct sampler *s)
{
	return sampler_read_buf(s, &s->buf);
}

/* Reads group gi on every live instance as one window of its rates. */
HOT_PATH static void read_window(struct sampler *s, int gi)
{
	struct grp_state *grp = &s->grp[gi];
	struct pmu_state *ps = &s->ps[grp->pmu];
	struct bk_count *buf = count_buf(s);
	int b = next_bucket(grp);
	double ran = 0;
	for (int i = 0; i < ps->ninst; i++)
		ran += read_inst(s, gi, i, b, false, buf);
	if (ran > 0) {
		grp->nwin++;
		grp->last_b = b;
	}
}

/* Switches PMU p to its next group on every live instance, reading the
 * outgoing group as soon as it stops: that window is one sample. */
static void rotate(struct sampler *s, struct pmu_state *ps, bool tail)
{
	const struct pmu_backend_ops *ops = s->cfg.ops;
	int from_gi = ps->groups[ps->cur];
	struct grp_state *from = &s->grp[from_gi];
	ps->cur = (ps->cur + 1) % ps->ngroups;
	struct grp_state *to = &s->grp[ps->groups[ps->cur]];
	struct bk_count *buf = count_buf(s);
	/* A window of the tail round goes to the bucket after the last:
	 * into the interval's counts, not its samples. */
	int b = tail ? from->nbuckets : next_bucket(from);
	double ran = 0;
	for (int i = 0; i < ps->ninst; i++) {
		if (!ps->alive[i])
			continue;
		if (from->bg[i]) {
			ops->disable(s->bk, from->bg[i]);
			ran += read_inst(s, from_gi, i, b, false, buf);
		}
		if (ps->alive[i] && to->bg[i]) {
			ops->enable(s->bk, to->bg[i]);
			if (ps->ncomp && from->bg[i])
				companions_hand_over(s, from_gi, ps->groups[ps->cur], i);
			else if (ps->ncomp)
				companions_mark(s, ps->groups[ps->cur], i);
		}
	}
	if (ran > 0 && tail)
		from->tail_ok = true;
	else if (ran > 0) {
		from->nwin++;
		from->last_b = b;
	}
	from->unread = false;
	to->unread = true;
}

/* Clears the interval's counts and sizes the buckets for the windows
 * each group will have: one per round when pmctop rotates, one per read
 * when the kernel does, one for a group that never rotates; and one more
 * for its window of the tail round, where there is one (tail). */
HOT_PATH static void begin_interval(struct sampler *s, const struct pmu_state *ps, int wins, bool tail)
{
	for (int k = 0; k < ps->ngroups; k++) {
		struct grp_state *grp = &s->grp[ps->groups[k]];
		int nb = wins < SAMPLER_MAX_BUCKETS ? wins : SAMPLER_MAX_BUCKETS;
		if (nb < 1)
			nb = 1;
		int nall = nb + (tail && nb > 1);
		size_t per = (size_t)ps->ninst * (size_t)grp->nev;
		if (nall > grp->bucket_cap) {
			grp->bucket_cap = nall;
			grp->bucket_counts = xrealloc(grp->bucket_counts, sizeof(double) * ((size_t)nall * per + 1));
			grp->bucket_running = xrealloc(grp->bucket_running, sizeof(double) * ((size_t)nall * (size_t)ps->ninst + 1));
		}
		grp->nbuckets = nb;
		grp->wins = wins;
		grp->nwin = 0;
		grp->tail_ok = false;
		memset(grp->counts, 0, sizeof(double) * per);
		memset(grp->running, 0, sizeof(double) * (size_t)ps->ninst);
		/* One bucket would be the interval's counts and time again, sum
		 * for sum: it is not kept apart (sampler_build_snapshot hands the
		 * counts on as its bucket). */
		if (nb == 1)
			continue;
		memset(grp->bucket_counts, 0, sizeof(double) * (size_t)nall * per);
		memset(grp->bucket_running, 0, sizeof(double) * (size_t)nall * (size_t)ps->ninst);
	}
}

/* At the start of an interval under pmctop's rotation: each group's last
 * window of the interval before (its bucket, when the interval had
 * several) kept for derive_group's pv and pr, and the share of this
 * interval before the group's first window: the group enabled now runs
 * slot 0, the next slot 1, and so on, each slot a share slot of the
 * interval. Also each group's trail, the share after its last slot (its
 * tail window's counts are kept in begin_interval's extra bucket).
 * Elsewhere (the kernel rotates, one group, or counts discarded since)
 * there is none. */
HOT_PATH static void keep_last_windows(struct sampler *s, const struct pmu_state *ps, bool rotating, double slot)
{
	for (int k = 0; k < ps->ngroups; k++) {
		struct grp_state *grp = &s->grp[ps->groups[k]];
		int b = grp->last_b;
		grp->last_b = -1;
		grp->last_ok = false;
		int q = (k - ps->cur + ps->ngroups) % ps->ngroups;
		grp->lead = rotating ? q * slot : 0;
		/* After its last window before the tail round (plan_tail): slot
		 * q + (rounds - 1) x ngroups, the last of its turns. */
		grp->trail = ps->ntail ? 1 - (q + ps->nslots - ps->ngroups + 1) * slot : 0;
		if (!rotating || b < 0 || b >= grp->nbuckets || grp->nbuckets < 2)
			continue;
		size_t ni = (size_t)ps->ninst, n = ni * (size_t)grp->nev;
		if (n > grp->last_cap) {
			grp->last_counts = xrealloc(grp->last_counts, sizeof(double) * (n + 1));
			grp->last_running = xrealloc(grp->last_running, sizeof(double) * (ni + 1));
			grp->last_cap = n;
		}
		memcpy(grp->last_counts, &grp->bucket_counts[(size_t)b * n], sizeof(double) * n);
		memcpy(grp->last_running, &grp->bucket_running[(size_t)b * ni], sizeof(double) * ni);
		grp->last_ok = true;
	}
}

/* When the kernel rotates: reads every multiplexed group at evenly spaced
 * points of the interval (the last read is the interval's end). */
static bool kernel_reads(struct sampler *s, uint64_t len, bool check_stop)
{
	const struct model *m = s->cfg.model;
	for (int j = 1; j < SAMPLER_KERNEL_READS; j++) {
		wait_draining(s, s->t_start + len * (uint64_t)j / SAMPLER_KERNEL_READS);
		if (interrupted(s))
			return true;
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			if (!ps->available || ps->ngroups < 2)
				continue;
			for (int k = 0; k < ps->ngroups; k++)
				read_window(s, ps->groups[k]);
		}
		if (check_stop && sampler_stop_requested(s))
			return false;
	}
	wait_draining(s, s->t_start + len);
	return true;
}

/* When slot j (1-based) of PMU ps ends in an interval of len ns: the
 * rotation slots share the interval but for its last tail_ns, where the
 * tail round's ntail windows follow them. */
static uint64_t slot_deadline(const struct sampler *s, const struct pmu_state *ps, uint64_t len, int j)
{
	uint64_t reg = len - ps->tail_ns;
	if (j <= ps->nslots)
		return s->t_start + (uint64_t)((unsigned __int128)reg * (unsigned)j / (unsigned)ps->nslots);
	if (j > ps->nslots + ps->ntail)
		return s->t_start + len;   /* past the last slot: not waited for */
	return s->t_start + reg + (uint64_t)((unsigned __int128)ps->tail_ns * (unsigned)(j - ps->nslots) / (unsigned)ps->ntail);
}

/* The tail round. A group's windows end where its turn last came, up to
 * a round before the interval's end, and a phase that began after that
 * is in the interval's truth and in none of them: Zen 5's flops_per_cycle
 * 0.040 with a stated 0.4 %, where an FP phase that began in the last
 * 26 ms made the interval's 0.093 (docs/uncertainty.md, item 9). So the
 * interval ends with one short window of every group, in rotation order
 * (SAMPLER_TAIL_SHARE of a slot each): a window after the change, which
 * derive holds against the group's windows (gsum_edges). Its counts
 * are the interval's, and each group still runs the same share of it;
 * it is in no bucket: with an eighth of a window's running time it
 * would hardly weigh in the mean, and derive takes it as an edge window
 * of the mean window's weight, in the error alone (unc_chain_se). Only
 * with rounds enough for
 * a spread (UNC_MIN_SAMPLES): fewer state no error to doubt. */
static void plan_tail(struct pmu_state *ps, uint64_t len, long rounds)
{
	ps->ntail = 0;
	ps->tail_ns = 0;
	if (rounds < UNC_MIN_SAMPLES)
		return;
	uint64_t slot = len / (uint64_t)ps->nslots;
	ps->tail_ns = (uint64_t)((double)slot * SAMPLER_TAIL_SHARE) * (uint64_t)ps->ngroups;
	if (ps->tail_ns > 0)
		ps->ntail = ps->ngroups;
}

/* Runs the rotation for one interval of len ns starting at s->t_start
 * (when the kernel rotates, only waits it out). Returns false when a stop
 * was requested midway. */
HOT_PATH bool sampler_run_interval(struct sampler *s, uint64_t len, bool check_stop)
{
	const struct model *m = s->cfg.model;
	double rot_ns = s->rotate_ms * 1e6;
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		ps->nslots = 0;
		ps->ntail = 0;
		ps->tail_ns = 0;
		if (!ps->available)
			continue;
		if (ps->ngroups < 2 || s->kernel_mux) {
			keep_last_windows(s, ps, false, 0);
			begin_interval(s, ps, s->kernel_mux && ps->ngroups > 1 ? SAMPLER_KERNEL_READS : 1, false);
			continue;
		}
		/* A whole number of rounds, so each group gets the same share. */
		long rounds = lround((double)len / (rot_ns * ps->ngroups));
		if (rounds < 1)
			rounds = 1;
		ps->nslots = (int)(rounds * ps->ngroups);
		plan_tail(ps, len, rounds);
		keep_last_windows(s, ps, true, (double)(len - ps->tail_ns) / (double)len / ps->nslots);
		begin_interval(s, ps, (int)rounds, ps->ntail > 0);
		ps->next_slot = 1;
		ps->next_deadline = slot_deadline(s, ps, len, 1);
	}
	uint64_t end = s->t_start + len;
	if (s->kernel_mux)
		return kernel_reads(s, len, check_stop);
	for (;;) {
		uint64_t next = end;
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			if (ps->nslots && ps->next_slot <= ps->nslots + ps->ntail && ps->next_deadline < next)
				next = ps->next_deadline;
		}
		wait_draining(s, next);
		/* Interrupted: end the interval here; the counts so far are scaled
		 * by the time they really ran, so the short interval is exact. */
		if (interrupted(s))
			break;
		bool more = false;
		for (int p = 0; p < m->npmus; p++) {
			struct pmu_state *ps = &s->ps[p];
			int last = ps->nslots + ps->ntail;
			if (!ps->nslots || ps->next_slot > last)
				continue;
			if (ps->next_deadline <= next) {
				/* The slot that ends now was of the tail round. */
				rotate(s, ps, ps->next_slot > ps->nslots);
				ps->next_slot++;
				ps->next_deadline = slot_deadline(s, ps, len, ps->next_slot);
			}
			if (ps->next_slot <= last)
				more = true;
		}
		if (!more && next >= end)
			break;
		if (check_stop && sampler_stop_requested(s))
			return false;
	}
	return true;
}

/* Reads every group at the end of the interval: the window still open
 * (the group enabled now, or every group when the kernel rotates or a PMU
 * has one group) is closed as a sample; the others only catch up. With
 * discard (after a pause) what was counted meanwhile is forgotten. */
HOT_PATH void sampler_read_all(struct sampler *s, bool discard)
{
	const struct model *m = s->cfg.model;
	struct bk_count *buf = count_buf(s);
	for (int p = 0; p < m->npmus; p++) {
		struct pmu_state *ps = &s->ps[p];
		if (!ps->available)
			continue;
		for (int k = 0; k < ps->ngroups; k++) {
			int gi = ps->groups[k];
			if (discard) {
				for (int i = 0; i < ps->ninst; i++)
					read_inst(s, gi, i, -1, true, buf);
				s->grp[gi].last_b = -1;   /* the next interval follows no window */
				continue;
			}
			/* A group read when it was last disabled has nothing new. */
			if (k == ps->cur || s->kernel_mux)
				read_window(s, gi);
			else if (s->grp[gi].unread)
				for (int i = 0; i < ps->ninst; i++)
					read_inst(s, gi, i, -1, false, buf);
			s->grp[gi].unread = k == ps->cur || s->kernel_mux;
		}
	}
}

/* --- scaling, and handing the interval to derive --- */

/* The notice of the interval just ended: the plan's, then what failed
 * during the interval itself (why is a plan that could not be opened;
 * reads that failed), then forgotten; NULL when there is nothing to say. */
static char *interval_notice(struct sampler *s, const char *why)
{
	char *n = s->notice ? xstrdup(s->notice) : NULL;
	char *more[2] = { NULL, NULL };
	if (why)
		more[0] = xasprintf("the counters cannot be planned: %s: nothing is counted until they can", why);
	if (s->read_fails > 0)
		more[1] = xasprintf("%ld counter read%s failed in this interval (%s): their counts come with the next read",
				    s->read_fails, s->read_fails == 1 ? "" : "s", strerror(-s->read_err));
	s->read_fails = 0;
	for (int i = 0; i < 2; i++) {
		if (!more[i])
			continue;
		char *j = n ? xasprintf("%s\n%s", n, more[i]) : xstrdup(more[i]);
		free(n);
		free(more[i]);
		n = j;
	}
	return n;
}

/* The plan's notice as the interval's, when nothing else happened in
 * it: one copy shared by every snapshot that says it (snap_note), made
 * again only when the notice changes (notice_set, sampler_open.c), where
 * each interval copied it. */
HOT_PATH static void share_notice(struct sampler *s, struct snapshot *snap)
{
	if (!s->note)
		s->note = snap_note_new(s->notice);
	snap->note = snap_note_hold(s->note);
	snap->notice = snap_note_text(s->note);
}

/* The rows whose errors this interval finds now: every row of the
 * scopes an output writes whole (not cfg.errors_later), and the rows of
 * the screen's latest word (every row until it has said one). NULL:
 * every row's. */
static const struct derive_want *take_want(struct sampler *s)
{
	bool later = false;
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		later |= s->cfg.errors_later[sc];
	if (!later)
		return NULL;
	if (s->cfg.errors_on_demand) {
		pthread_mutex_lock(&s->mu);
		if (s->p_want_new) {
			for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
				free((void *)s->want.rows[sc]);
				s->want.rows[sc] = s->p_want[sc];
				s->want.nrows[sc] = s->p_nwant[sc];
				s->p_want[sc] = NULL;
				s->p_nwant[sc] = 0;
			}
			s->p_want_new = false;
			s->want_set = true;
		}
		pthread_mutex_unlock(&s->mu);
		if (!s->want_set)
			return NULL;
	}
	for (int sc = 0; sc < SNAP_NSCOPES; sc++)
		s->want.all[sc] = !s->cfg.errors_later[sc];
	return &s->want;
}

/* *buf with room for n items of size bytes, the one after them zeroed:
 * kept from one interval to the next, so that a steady interval
 * allocates nothing here. */
static void *kept_buf(void *buf, int *cap, int n, size_t size)
{
	if (n + 1 > *cap) {
		free(buf);
		*cap = n + 1;
		buf = xmalloc(size * (size_t)*cap);
	}
	memset((char *)buf + size * (size_t)n, 0, size);
	return buf;
}

/* The snapshot of the interval just read: derive.c sums and evaluates;
 * the sampler adds what only it knows. */
HOT_PATH struct snapshot *sampler_build_snapshot(struct sampler *s, double measured_s)
{
	const struct model *m = s->cfg.model;
	struct derive_pmu *dp = s->dpmus = kept_buf(s->dpmus, &s->dpmus_cap, m->npmus, sizeof(*dp));
	for (int p = 0; p < m->npmus; p++) {
		const struct pmu_state *ps = &s->ps[p];
		dp[p] = (struct derive_pmu){
			.available = ps->available,
			.ninst = ps->ninst,
			.inst = ps->inst,
			.alive = ps->alive,
		};
	}
	struct derive_group *dg = s->dgroups = kept_buf(s->dgroups, &s->dgroups_cap, s->plan->ngroups, sizeof(*dg));
	for (int g = 0; g < s->plan->ngroups; g++) {
		const struct grp_state *grp = &s->grp[g];
		dg[g] = (struct derive_group){
			.nev = grp->nev,
			.events = grp->events,
			.iv = grp->counts,
			.ir = grp->running,
			.nb = grp->counts ? grp->nbuckets : 0,
			/* One bucket: the interval's counts and time are its
			 * (begin_interval). */
			.bv = grp->nbuckets == 1 ? grp->counts : grp->bucket_counts,
			.br = grp->nbuckets == 1 ? grp->running : grp->bucket_running,
			.pv = grp->last_ok ? grp->last_counts : NULL,
			.pr = grp->last_ok ? grp->last_running : NULL,
			.lead = grp->lead,
			/* The bucket after the last: the tail round's
			 * (begin_interval). */
			.tv = grp->tail_ok ? &grp->bucket_counts[(size_t)grp->nbuckets * (size_t)s->ps[grp->pmu].ninst * (size_t)grp->nev] : NULL,
			.tr = grp->tail_ok ? &grp->bucket_running[(size_t)grp->nbuckets * (size_t)s->ps[grp->pmu].ninst] : NULL,
			.trail = grp->tail_ok ? grp->trail : 0,
		};
	}
	if (s->cfg.shown_event_errors) {
		if (!s->event_errors)
			s->event_errors = xmalloc((size_t)m->nevents + 1);
		memset(s->event_errors, 0, (size_t)m->nevents + 1);
		for (int i = 0; i < s->nevents; i++)
			if (s->events[i] >= 0 && s->events[i] < m->nevents)
				s->event_errors[s->events[i]] = true;
	}
	struct derive_input in = {
		.model = m,
		.topo = s->topo,
		.plan = s->plan,
		.event_errors = s->cfg.shown_event_errors ? s->event_errors : NULL,
		.cpu_filter = s->cpu_filter,
		.measured_s = measured_s,
		.pmus = dp,
		.groups = dg,
		.cache = &s->dcache,
		.plan_gen = s->plan_gen,
		.max_ghz = s->max_ghz,
		.want = take_want(s),
		.slices = s->kernel_mux,
	};
	struct snapshot *snap = derive_snapshot(&in);
	if (!s->energy_said)
		s->energy_said = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	char *stuck = energy_mask_stuck(m, snap, s->energy_said);
	if (stuck)
		sampler_add_notice(s, "%s", stuck);
	free(stuck);
	if (s->cfg.on_record) {
		topo_free(s->rec_topo);
		s->rec_topo = topo_clone(s->topo);
		s->rec_in = in;
		s->rec_in.topo = s->rec_topo;
		s->rec_in.cache = NULL;
		s->rec_in.want = NULL;
	}

	stamp_snapshot(s, snap, NULL);
	return snap;
}

/* What only the sampler knows of the interval that snap holds: its
 * number, when it ended, the notice (why: a plan that could not be
 * opened) and the CPUs not counted for being offline. */
HOT_PATH static void stamp_snapshot(struct sampler *s, struct snapshot *snap, const char *why)
{
	snap->seq = ++s->seq;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	snap->time = (double)rt.tv_sec + (double)rt.tv_nsec * 1e-9;
	snap->simulated = s->cfg.ops->simulated;
	if (s->notice && !why && s->read_fails == 0)
		share_notice(s, snap);
	else
		snap->notice = interval_notice(s, why);
	/* Every CPU that is not counted for being offline: those that left
	 * during the interval and those still away. */
	for (int i = 0; i < s->topo->ncpus; i++)
		if (!s->topo->cpus[i].online)
			sampler_record_offline(s, s->topo->cpus[i].cpu);
	if (s->noffline) {
		snap->noffline = s->noffline;
		snap->offline = xmalloc(sizeof(int) * (size_t)s->noffline);
		memcpy(snap->offline, s->offline, sizeof(int) * (size_t)s->noffline);
		s->noffline = 0;
	}
}

/* The interval of a step whose plan could not be opened (a new request
 * that cannot be planned): it runs its length with nothing counted, and
 * its snapshot has every figure unknown and says why. Every output shows
 * that, where the last figures of a plan no longer counting stayed on the
 * screen with nothing said. NULL when a stop came meanwhile. */
struct snapshot *sampler_plan_failed(struct sampler *s, uint64_t len, bool check_stop, const char *why)
{
	const struct model *m = s->cfg.model;
	sampler_close_all(s);   /* the per-task sampling, opened before the plan */
	s->t_start = sampler_clock_now(s);
	wait_until(s, s->t_start + len);
	if (check_stop && sampler_stop_requested(s))
		return NULL;
	uint64_t t_end = sampler_clock_now(s);
	bool cut = t_end < s->t_start + len;
	double measured_s = (double)(t_end - s->t_start) * 1e-9;
	s->t_start = t_end;
	struct sched_plan none = { .nevents = m->nevents };
	none.event_used = xcalloc((size_t)m->nevents + 1, sizeof(bool));
	struct derive_pmu *dp = xcalloc((size_t)m->npmus + 1, sizeof(*dp));
	struct derive_input in = {
		.model = m,
		.topo = s->topo,
		.plan = &none,
		.cpu_filter = s->cpu_filter,
		.measured_s = measured_s > 0 ? measured_s : (double)len * 1e-9,
		.pmus = dp,
		.max_ghz = s->max_ghz,
	};
	struct snapshot *snap = derive_snapshot(&in);
	free(none.event_used);
	free(dp);
	stamp_snapshot(s, snap, why);
	snap->quick = cut;
	snap->rotate_ms = s->kernel_mux ? 0 : s->rotate_ms;
	return snap;
}
