/* check_record.c: recordings (-w) and their replay (-r). The judge is the
 * live run itself: a replayed interval must be the snapshot the sampler
 * made, figure for figure and bit for bit, uncertainties included, on a
 * phased simulated workload with rotation, a CPU selection and a CPU that
 * fails mid-run; a metric that was not asked for while recording must
 * come out as a live run that asked for it computed it. Damaged and
 * truncated files must give what is whole and say what was not. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backend.h"
#include "check_run.h"
#include "fixture.h"
#include "evdef.h"
#include "gzmember.h"
#include "record.h"
#include "replay.h"
#include "sampler.h"
#include "topo.h"
#include "util.h"

#define EVENTS_DIR TOP_SRCDIR "/events"
#define NIV 8

static char tmpdir[64];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmctop-rec-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *tmpfile_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* Same double, NaN equal to NaN. */
static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* Every event's figure, coverage and error of row x of a and row y of b. */
static void same_events(const struct snapshot *a, const struct snap_row *x, const struct snapshot *b,
			const struct snap_row *y, int sc, int row)
{
	static const char *const what[] = { "event", "event_cov", "event_rse" };
	for (int k = 0; k < 3; k++)
		for (int e = 0; e < a->nevents; e++) {
			double u = k == 0 ? snap_event(a, x, e) : k == 1 ? snap_event_cov(a, x, e) : snap_event_rse(a, x, e);
			double v = k == 0 ? snap_event(b, y, e) : k == 1 ? snap_event_cov(b, y, e) : snap_event_rse(b, y, e);
			ck_assert_msg(same(u, v), "%s[%d] of scope %d row %d: live %.17g, replay %.17g", what[k], e, sc,
				      row, u, v);
		}
}

/* only: compare these metrics alone (NULL: all), and not the wall-clock
 * time, which differs between two live runs. */
static void same_snapshot(const struct snapshot *a, const struct snapshot *b, const int *only, int nonly)
{
	ck_assert_uint_eq(a->seq, b->seq);
	if (!only)
		ck_assert(same(a->time, b->time));
	ck_assert(same(a->measured_s, b->measured_s));
	ck_assert(same(a->interval_s, b->interval_s));
	ck_assert(same(a->rotate_ms, b->rotate_ms));
	ck_assert_int_eq(a->noffline, b->noffline);
	for (int i = 0; i < a->noffline; i++)
		ck_assert_int_eq(a->offline[i], b->offline[i]);
	ck_assert_int_eq(a->nreturning, b->nreturning);
	ck_assert_str_eq(a->notice ? a->notice : "", b->notice ? b->notice : "");
	for (int e = 0; e < a->nevents; e++)
		ck_assert_int_eq(a->event_planned[e], b->event_planned[e]);
	for (int sc = 0; sc < SNAP_NSCOPES; sc++) {
		ck_assert_int_eq(a->nrows[sc], b->nrows[sc]);
		for (int r = 0; r < a->nrows[sc]; r++) {
			const struct snap_row *x = &a->rows[sc][r], *y = &b->rows[sc][r];
			ck_assert_int_eq(x->id, y->id);
			ck_assert_int_eq(x->ncpus, y->ncpus);
			same_events(a, x, b, y, sc, r);
			for (int k = 0; k < (only ? nonly : a->nmetrics); k++) {
				int m = only ? only[k] : k;
				ck_assert_msg(same(snap_metric(a, x, m), snap_metric(b, y, m)) && same(snap_metric_cov(a, x, m), snap_metric_cov(b, y, m)) &&
					      same(snap_metric_rse(a, x, m), snap_metric_rse(b, y, m)),
					      "metric %d scope %d row %d: live %.17g cov %g rse %g, replay %.17g cov %g rse %g",
					      m, sc, r, snap_metric(a, x, m), snap_metric_cov(a, x, m), snap_metric_rse(a, x, m),
					      snap_metric(b, y, m), snap_metric_cov(b, y, m), snap_metric_rse(b, y, m));
			}
		}
	}
}

/* A live run of --sim zen5 (phased workload, seed) that records, keeping
 * every snapshot it made. */
struct run {
	struct model *m;
	struct topo *t;
	struct sampler *s;
	struct recorder *rec;
	struct snapshot *snap[NIV];
};

/* The interval the hook records as short (ended early by a request, as
 * only the dashboard's thread does), or 0. */
static uint64_t short_seq;

static void hook(void *arg, const struct derive_input *in, struct snapshot *snap)
{
	struct snapshot c = *snap;
	c.quick = snap->seq == short_seq;
	recorder_add(arg, in, &c);
}

static int *view_metrics(const struct model *m, const char *view, int *n)
{
	int v = model_find_view(m, view);
	ck_assert_int_ge(v, 0);
	int *ms = xmalloc(sizeof(int) * (size_t)(m->views[v].ncols + m->views[v].nbar + 2));
	*n = 0;
	for (int i = 0; i < m->views[v].ncols; i++)
		ms[(*n)++] = m->views[v].cols[i].metric;
	return ms;
}

/* An energy counter to hold at 0 on the power PMU's reader (CPU 0), as
 * on a VM whose counter exists but stands still; -1 for none. */
static int stuck_event = -1;

static void run_live(struct run *r, const char *path, const int *ms, int nms, const int *evs, int nev,
		     const bool *filter, const struct sim_fault *fault)
{
	char *cause = NULL;
	memset(r, 0, sizeof(*r));
	r->m = fx_model("amd-zen5");
	r->t = fx_topo("1x2x4x2");
	struct sampler_config cfg = fx_sampler_config(r->m, r->t, "seed=11", 0.5);
	cfg.rotate_ms = 20;
	cfg.nmetrics = nms;
	cfg.metrics = ms;
	cfg.nevents = nev;
	cfg.events = evs;
	cfg.cpu_filter = filter;
	/* Never rotate less often for cost: two runs must rotate alike. */
	cfg.cost_budget = 1e9;
	r->s = fx_sampler(&cfg);
	if (fault)
		sim_inject_fault(sampler_backend(r->s), fault);
	if (stuck_event >= 0) {
		double *rates = xmalloc(sizeof(double) * (size_t)r->m->nevents);
		for (int e = 0; e < r->m->nevents; e++)
			rates[e] = e == stuck_event ? 0 : NAN;
		sim_set_constant_rates(sampler_backend(r->s), 0, rates);
		free(rates);
	}
	if (path) {
		struct record_info ri = {
			.model = r->m, .topo = r->t, .simulated = true, .sim_spec = "zen5:1x2x4x2",
			.host = "test", .cpu_name = "simulated", .interval_s = 0.5, .rotate_ms = 20,
			.cpu_filter = filter, .ncols = nms, .cols = ms, .nevcols = nev, .evcols = evs,
		};
		r->rec = recorder_open(path, &ri, NULL, &cause);
		ck_assert_msg(r->rec != NULL, "%s", cause);
		sampler_record(r->s, hook, r->rec);
	}
	for (int i = 0; i < NIV; i++) {
		r->snap[i] = sampler_step(r->s, &cause);
		ck_assert_msg(r->snap[i] != NULL, "%s", cause);
	}
	if (r->rec) {
		ck_assert_int_eq(recorder_count(r->rec), NIV);
		ck_assert_int_eq(recorder_close(r->rec, &cause), 0);
	}
}

static void run_done(struct run *r)
{
	for (int i = 0; i < NIV; i++)
		snapshot_free(r->snap[i]);
	sampler_free(r->s);
	topo_free(r->t);
	model_free(r->m);
}

static struct replay *open_ok(const char *path)
{
	char *cause = NULL;
	struct replay *rp = replay_open(path, EVENTS_DIR, &cause);
	ck_assert_msg(rp != NULL, "%s", cause);
	return rp;
}

/* Every interval of a replay is the live snapshot. */
static void replay_matches(const char *path, struct run *live, const int *only, int nonly)
{
	struct replay *rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), NIV);
	ck_assert_ptr_null(replay_note(rp));
	for (int i = 0; i < NIV; i++) {
		char *cause = NULL;
		struct snapshot *s = replay_snapshot(rp, i, &cause);
		ck_assert_msg(s != NULL, "%s", cause);
		same_snapshot(live->snap[i], s, only, nonly);
		ck_assert(same(replay_time(rp, i), round(live->snap[i]->time * 1e3) / 1e3));
		snapshot_free(s);
	}
	replay_free(rp);
}

START_TEST(test_replay_equals_live)
{
	char *path = tmpfile_path("a.rec");
	struct run live;
	struct model *m = fx_model("amd-zen5");
	int n, *ms = view_metrics(m, "batch", &n);
	int evs[2] = { model_find_event(m, "ls_dispatch.all"), model_find_event(m, "ex_ret_brn") };
	short_seq = 2;
	run_live(&live, path, ms, n, evs, 2, NULL, NULL);
	short_seq = 0;
	replay_matches(path, &live, NULL, 0);
	/* The delay asked for and a short interval come back, so that a
	 * replay's history is kept as the live one was. */
	struct replay *rp = open_ok(path);
	for (int i = 0; i < NIV; i++) {
		char *cause = NULL;
		struct snapshot *s = replay_snapshot(rp, i, &cause);
		ck_assert_msg(s != NULL, "%s", cause);
		ck_assert_double_eq(s->interval_s, 0.5);
		ck_assert_int_eq(s->quick, s->seq == 2);
		snapshot_free(s);
	}
	replay_free(rp);
	run_done(&live);
	free(ms);
	model_free(m);
	free(path);
}
END_TEST

/* -C and a CPU that stops counting (ENODEV, as when it goes offline). */
START_TEST(test_replay_filter_and_offline)
{
	char *path = tmpfile_path("b.rec");
	struct run live;
	struct model *m = fx_model("amd-zen5");
	int n, *ms = view_metrics(m, "topdown", &n);
	bool filter[16] = { false };
	for (int c = 0; c < 16; c++)
		filter[c] = c != 2 && c != 9;
	struct sim_fault f = { .cpu = 3, .err = -ENODEV, .after_reads = 40 };
	run_live(&live, path, ms, n, NULL, 0, filter, &f);
	bool saw_offline = false;
	for (int i = 0; i < NIV; i++)
		saw_offline |= live.snap[i]->noffline > 0;
	ck_assert_msg(saw_offline, "the fault took no CPU away: the test tests nothing");
	replay_matches(path, &live, NULL, 0);
	run_done(&live);
	free(ms);
	model_free(m);
	free(path);
}
END_TEST

/* A metric nobody asked for while recording, whose events were counted
 * (CPI, from IPC's events): in every row of every interval it is the
 * reciprocal of the recorded IPC, from the same windows, with the same
 * coverage and relative error; the recorded figures do not change. */
START_TEST(test_replay_new_metric)
{
	char *path = tmpfile_path("c.rec");
	struct model *m = fx_model("amd-zen5");
	int n, *ms = view_metrics(m, "batch", &n);
	int cpi = model_find_metric(m, "cpi"), ipc = model_find_metric(m, "ipc");
	ck_assert_int_ge(cpi, 0);
	for (int i = 0; i < n; i++)
		ck_assert_int_ne(ms[i], cpi);
	struct run rec;
	run_live(&rec, path, ms, n, NULL, 0, NULL, NULL);
	ck_assert(!rec.snap[0]->metric_planned[cpi]);

	struct replay *rp = open_ok(path);
	ms[n] = cpi;
	replay_request(rp, n + 1, ms, 0, NULL);
	int checked = 0;
	for (int i = 0; i < NIV; i++) {
		struct snapshot *s = replay_snapshot(rp, i, NULL);
		ck_assert_ptr_nonnull(s);
		ck_assert(s->metric_planned[cpi]);
		same_snapshot(rec.snap[i], s, ms, n);
		for (int sc = 0; sc < SNAP_NSCOPES; sc++)
			for (int r = 0; r < s->nrows[sc]; r++) {
				const struct snap_row *x = &s->rows[sc][r];
				if (isnan(snap_metric(s, x, ipc))) {
					ck_assert(isnan(snap_metric(s, x, cpi)));
					continue;
				}
				ck_assert_double_eq_tol(snap_metric(s, x, cpi) * snap_metric(s, x, ipc), 1.0, 1e-12);
				ck_assert(same(snap_metric_cov(s, x, cpi), snap_metric_cov(s, x, ipc)));
				ck_assert(fabs(snap_metric_rse(s, x, cpi) - snap_metric_rse(s, x, ipc)) <= 1e-9 * fabs(snap_metric_rse(s, x, ipc)) ||
					  (isnan(snap_metric_rse(s, x, cpi)) && isnan(snap_metric_rse(s, x, ipc))));
				checked++;
			}
		snapshot_free(s);
	}
	ck_assert_int_gt(checked, NIV * 16);
	/* A metric whose events were not counted is not made up. */
	int l2 = model_find_metric(m, "l2_mpki");
	char why[160];
	replay_request(rp, 1, &l2, 0, NULL);
	struct snapshot *s = replay_snapshot(rp, 0, NULL);
	ck_assert(!s->metric_planned[l2]);
	ck_assert(isnan(snap_metric(s, &s->rows[SNAP_SYSTEM][0], l2)));
	ck_assert_ptr_nonnull(replay_why_missing(rp, l2, why, sizeof(why)));
	ck_assert_msg(strstr(why, "not counted") != NULL, "%s", why);
	snapshot_free(s);
	replay_free(rp);
	run_done(&rec);
	free(ms);
	model_free(m);
	free(path);
}
END_TEST

/* A live run of a view's metrics, recorded to file name in the test's
 * directory; returns the path (caller frees). */
static char *record_view(struct run *live, const char *name, const char *view)
{
	char *path = tmpfile_path(name);
	struct model *m = fx_model("amd-zen5");
	int n, *ms = view_metrics(m, view, &n);
	run_live(live, path, ms, n, NULL, 0, NULL, NULL);
	free(ms);
	model_free(m);
	return path;
}

static off_t file_size(const char *path)
{
	struct stat sb;
	ck_assert_int_eq(stat(path, &sb), 0);
	return sb.st_size;
}

static void copy_prefix(const char *from, const char *to, off_t n)
{
	char *cmd = xasprintf("head -c %lld '%s' > '%s'", (long long)n, from, to);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

/* kill -9 mid-write leaves a partial member at the end: every whole
 * interval replays, the note says the last one is incomplete. */
START_TEST(test_truncated)
{
	struct run live;
	char *path = record_view(&live, "d.rec", "basic");
	char *cut = tmpfile_path("d-cut.rec");
	off_t size = file_size(path);
	for (off_t chop = 1; chop < 400; chop += 37) {
		copy_prefix(path, cut, size - chop);
		struct replay *rp = open_ok(cut);
		ck_assert_int_eq(replay_count(rp), NIV - 1);
		ck_assert_ptr_nonnull(replay_note(rp));
		ck_assert_ptr_nonnull(strstr(replay_note(rp), "incomplete"));
		struct snapshot *s = replay_snapshot(rp, NIV - 2, NULL);
		ck_assert_ptr_nonnull(s);
		same_snapshot(live.snap[NIV - 2], s, NULL, 0);
		snapshot_free(s);
		replay_free(rp);
	}
	/* Cut inside the first line: not a recording, said so. */
	copy_prefix(path, cut, 20);
	char *cause = NULL;
	ck_assert_ptr_null(replay_open(cut, EVENTS_DIR, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "ends inside"));
	free(cause);
	run_done(&live);
	free(path);
	free(cut);
}
END_TEST

/* A damaged byte inside interval 3: it fails with a reason, the others
 * replay; damage to its header skips it when listing. */
START_TEST(test_damaged)
{
	struct run live;
	char *path = record_view(&live, "e.rec", "basic");
	struct replay *rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), NIV);
	replay_free(rp);

	/* Find interval 3's offset by walking the members. */
	int fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	uint64_t off = 0, next = 0, size = (uint64_t)file_size(path);
	int64_t stamp;
	for (int i = 0; i < 4; i++) {   /* the first line, then intervals 1-3 */
		ck_assert_int_eq(gzm_peek(fd, off, size, &next, &stamp), 0);
		if (i < 3)
			off = next;
	}
	uint64_t mid = off + (next - off) / 2;
	unsigned char b;
	ck_assert_int_eq(pread(fd, &b, 1, (off_t)mid), 1);
	b ^= 0x5a;
	ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)mid), 1);
	rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), NIV);
	char *cause = NULL;
	ck_assert_ptr_null(replay_snapshot(rp, 2, &cause));
	ck_assert_msg(strstr(cause, "interval 3") != NULL, "%s", cause);
	free(cause);
	for (int i = 0; i < NIV; i++) {
		if (i == 2)
			continue;
		struct snapshot *s = replay_snapshot(rp, i, NULL);
		ck_assert_ptr_nonnull(s);
		same_snapshot(live.snap[i], s, NULL, 0);
		snapshot_free(s);
	}
	replay_free(rp);
	/* The member's header: listing skips to the next whole member. */
	b = 0;
	ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)off), 1);
	close(fd);
	rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), NIV - 1);
	ck_assert_ptr_nonnull(strstr(replay_note(rp), "damaged"));
	struct snapshot *s = replay_snapshot(rp, 2, NULL);
	ck_assert_ptr_nonnull(s);
	same_snapshot(live.snap[3], s, NULL, 0);
	snapshot_free(s);
	replay_free(rp);
	run_done(&live);
	free(path);
}
END_TEST

/* Junk between 40 copies of one interval: each of the 40 stretches is
 * skipped, the first three described, the rest counted in one clause
 * (the note once grew by one clause a stretch, each copying the others). */
START_TEST(test_many_damaged)
{
	enum { COPIES = 40 };
	struct run live;
	char *path = record_view(&live, "d.rec", "basic");
	int fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	uint64_t head = 0, next = 0, size = (uint64_t)file_size(path);
	int64_t stamp;
	ck_assert_int_eq(gzm_peek(fd, 0, size, &head, &stamp), 0);
	ck_assert_int_eq(gzm_peek(fd, head, size, &next, &stamp), 0);
	char *bytes = xmalloc(next);
	ck_assert_int_eq(pread(fd, bytes, next, 0), (ssize_t)next);
	close(fd);
	char *junk_path = tmpfile_path("junk.rec");
	fd = open(junk_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, head), (ssize_t)head);
	for (int i = 0; i < COPIES; i++) {
		ck_assert_int_eq(write(fd, "junk!", 5), 5);
		ck_assert_int_eq(write(fd, bytes + head, next - head), (ssize_t)(next - head));
	}
	close(fd);
	struct replay *rp = open_ok(junk_path);
	ck_assert_int_eq(replay_count(rp), COPIES);
	const char *note = replay_note(rp);
	ck_assert_ptr_nonnull(note);
	char *first = xasprintf("5 damaged bytes at byte %llu were skipped; ", (unsigned long long)head);
	ck_assert_msg(strncmp(note, first, strlen(first)) == 0, "%s", note);
	int clauses = 1;
	for (const char *c = note; (c = strstr(c, "; ")); c += 2)
		clauses++;
	ck_assert_int_eq(clauses, 4);
	char *rest = xasprintf("; %d more damaged stretches (%d bytes) were skipped", COPIES - 3, 5 * (COPIES - 3));
	ck_assert_str_eq(note + strlen(note) - strlen(rest), rest);
	struct snapshot *sn = replay_snapshot(rp, COPIES - 1, NULL);
	ck_assert_ptr_nonnull(sn);
	same_snapshot(live.snap[0], sn, NULL, 0);
	snapshot_free(sn);
	replay_free(rp);
	run_done(&live);
	free(first);
	free(rest);
	free(bytes);
	free(junk_path);
	free(path);
}
END_TEST

/* A recording is never written over; zcat reads it as JSON lines. */
/* A recording of a 2-CPU Zen 5 with no interval yet, to which a test
 * appends members of its own. */
struct small_rec {
	struct model *m;
	struct topo *t;
	int ipc;
	struct record_info ri;
};

static char *small_recording(const char *name, struct small_rec *sr)
{
	char *path = tmpfile_path(name);
	sr->m = fx_model("amd-zen5");
	sr->t = fx_topo("1x1x2x1");
	sr->ipc = model_find_metric(sr->m, "ipc");
	sr->ri = (struct record_info){ .model = sr->m, .topo = sr->t, .interval_s = 1, .ncols = 1, .cols = &sr->ipc };
	char *cause = NULL;
	struct recorder *r = recorder_open(path, &sr->ri, NULL, &cause);
	ck_assert_msg(r != NULL, "%s", cause);
	ck_assert_int_eq(recorder_close(r, NULL), 0);
	return path;
}

static void small_rec_done(struct small_rec *sr)
{
	topo_free(sr->t);
	model_free(sr->m);
}

START_TEST(test_file_rules)
{
	struct small_rec sr;
	char *path = small_recording("f.rec", &sr);
	const struct record_info ri = sr.ri;
	char *cause = NULL;
	/* The same run's recording is continued: no second first line. */
	struct recorder *same = recorder_open(path, &ri, NULL, &cause);
	ck_assert_msg(same != NULL, "%s", cause);
	ck_assert_int_eq(recorder_close(same, NULL), 0);
	/* Another run's is refused, or moved aside with --record-keep. */
	struct record_info other = ri;
	other.interval_s = 2;
	ck_assert_ptr_null(recorder_open(path, &other, NULL, &cause));
	ck_assert_msg(strstr(cause, "another run") && strstr(cause, "never writes over"), "%s", cause);
	free(cause);
	const struct record_files keep1 = { .max_size = 0, .keep = 1 };
	same = recorder_open(path, &other, &keep1, &cause);
	ck_assert_msg(same != NULL, "%s", cause);
	ck_assert_int_eq(recorder_close(same, NULL), 0);
	char *aside = xasprintf("%s.1", path);
	struct replay *old = open_ok(aside);
	ck_assert_double_eq(replay_info(old)->interval_s, 1);
	replay_free(old);
	old = open_ok(path);
	ck_assert_double_eq(replay_info(old)->interval_s, 2);
	replay_free(old);
	unlink(aside);
	free(aside);
	char *link = tmpfile_path("link.rec");
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_ptr_null(recorder_open(link, &ri, NULL, &cause));
	ck_assert_msg(strstr(cause, "symbolic link") != NULL, "%s", cause);
	free(cause);
	char *cmd = xasprintf("zcat '%s' | python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); "
			      "assert d[\"format\"]==\"pmctop-recording\" and d[\"model\"]==\"amd-zen5\"'", path);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	/* An empty recording opens with no interval. */
	struct replay *rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), 0);
	replay_free(rp);
	/* Not a recording at all. */
	char *junk = tmpfile_path("junk");
	FILE *f = fopen(junk, "w");
	fputs("hello\n", f);
	fclose(f);
	ck_assert_ptr_null(replay_open(junk, EVENTS_DIR, &cause));
	ck_assert_msg(strstr(cause, "junk") != NULL, "%s", cause);
	free(cause);
	ck_assert_ptr_null(recorder_open(junk, &ri, &keep1, &cause));
	ck_assert_msg(strstr(cause, "not a pmctop recording"), "%s", cause);
	free(cause);
	small_rec_done(&sr);
	free(junk);
	free(link);
	free(path);
}
END_TEST

/* A line built of UNIT repeated n times between prefix and suffix; with
 * spread, each UNIT followed by 1 to 4 pseudo-random blanks, so that the
 * line compresses no better than pmctop's own and inflates within
 * GZM_MAX_RATIO to reach the parser's bounds. */
static char *repeat_text(const char *prefix, const char *unit, size_t n, const char *suffix, bool spread,
			 size_t *len)
{
	size_t lp = strlen(prefix), lu = strlen(unit), ls = strlen(suffix);
	char *t = xmalloc(lp + (lu + 4) * n + ls + 1);
	memcpy(t, prefix, lp);
	size_t at = lp;
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		memcpy(t + at, unit, lu);
		at += lu;
		for (int k = spread ? 0 : 4; k < 4; k++) {
			x = x * 1103515245u + 12345u;
			t[at++] = " \t\r "[x >> 30];
			if ((x >> 16 & 3) == 0)
				break;
		}
	}
	memcpy(t + at, suffix, ls + 1);
	*len = at + ls;
	return t;
}

/* Intervals made to exhaust memory: what a line may hold follows the
 * header's machine (here 2 CPUs), and each refusal names the interval
 * and the limit. Before the budget, the first line inflated whole and
 * became a tree of a million objects. */
/* A write error does not stop the recording for good: a file size limit
 * (RLIMIT_FSIZE, which any user may lower: EFBIG where a full disk gives
 * ENOSPC) fails a write part way; the partial interval is cut off, the
 * error said once and counted, the next intervals skipped until a retry
 * a second later writes again; the file replays whole. Before, the
 * first error ended the recording. */
START_TEST(test_write_errors)
{
	char *cause = NULL;
	char *path = tmpfile_path("full.rec");
	struct model *m = fx_model("amd-zen5");
	struct topo *t = fx_topo("1x2x4x2");
	int ipc = model_find_metric(m, "ipc");
	struct sampler_config cfg = fx_sampler_config(m, t, "seed=11", 0.5);
	cfg.rotate_ms = 20;
	cfg.nmetrics = 1;
	cfg.metrics = &ipc;
	cfg.cost_budget = 1e9;
	struct sampler *s = fx_sampler(&cfg);
	struct record_info ri = { .model = m, .topo = t, .simulated = true, .interval_s = 0.5, .ncols = 1, .cols = &ipc };
	struct recorder *rec = recorder_open(path, &ri, NULL, &cause);
	ck_assert_msg(rec != NULL, "%s", cause);
	sampler_record(s, hook, rec);
	for (int i = 0; i < 5; i++) {
		if (i == 2) {
			/* Room for a part of the next interval only. */
			struct stat sb;
			ck_assert_int_eq(stat(path, &sb), 0);
			struct rlimit rl;
			ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
			rl.rlim_cur = (rlim_t)sb.st_size + 100;
			signal(SIGXFSZ, SIG_IGN);
			ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
		}
		snapshot_free(sampler_step(s, &cause));
	}
	ck_assert(!recorder_ok(rec));
	ck_assert_int_eq(recorder_errors(rec), 1);   /* the two after it wait for the retry */
	ck_assert_int_eq(recorder_count(rec), 2);
	char *news = recorder_news(rec);
	ck_assert_msg(news && strstr(news, "failed after 2 intervals: File too large; pmctop goes on"), "%s", news);
	free(news);
	ck_assert_ptr_null(recorder_news(rec));   /* said once */
	/* Room again: the first interval a second later is written. */
	struct rlimit rl;
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	usleep(1100000);
	snapshot_free(sampler_step(s, &cause));
	ck_assert(recorder_ok(rec));
	ck_assert_int_eq(recorder_count(rec), 3);
	news = recorder_news(rec);
	ck_assert_msg(news && strstr(news, "resumed; 3 intervals were not recorded"), "%s", news);
	free(news);
	sampler_free(s);
	ck_assert_int_eq(recorder_close(rec, &cause), -1);
	ck_assert_msg(strstr(cause, "3 intervals were not recorded, 3 were"), "%s", cause);
	free(cause);
	struct replay *rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), 3);
	ck_assert_ptr_null(replay_note(rp));
	for (int i = 0; i < 3; i++) {
		struct snapshot *snap = replay_snapshot(rp, i, &cause);
		ck_assert_msg(snap != NULL, "%s", cause);
		snapshot_free(snap);
	}
	replay_free(rp);
	topo_free(t);
	model_free(m);
	free(path);
}
END_TEST

START_TEST(test_hostile_lines)
{
	struct small_rec sr;
	char *path = small_recording("h.rec", &sr);
	char *cause = NULL;
	static const struct { const char *prefix, *unit, *suffix; size_t n; bool spread; const char *says; } lines[] = {
		/* 3 MB: more text than an interval of 2 CPUs needs. */
		{ "{\"seq\":1,\"x\":[", "{},", "{}]}", 1000000, true, "inflates to more than 1" },
		{ "[", "1,", "1]", 200000, true, "values by byte" },
		{ "{\"seq\":1,\"x\":[", "{},", "{}]}", 20000, true, "arrays and objects by byte" },
		{ "", "[", "", 100, true, "nest more than 8 deep" },
		/* 1 MB of blanks in a kilobyte: more than 64 times its size. */
		{ "", " ", "{}", 1000000, false, "inflates to more than 64 times its" },
	};
	int fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		size_t len;
		char *text = repeat_text(lines[i].prefix, lines[i].unit, lines[i].n, lines[i].suffix, lines[i].spread,
					 &len);
		ck_assert_int_eq(gzm_append(fd, text, len, 1000 * (int64_t)i, NULL), 0);
		free(text);
	}
	close(fd);
	struct replay *rp = open_ok(path);
	ck_assert_int_eq(replay_count(rp), (int)ARRAY_SIZE(lines));
	for (int i = 0; i < (int)ARRAY_SIZE(lines); i++) {
		ck_assert_ptr_null(replay_snapshot(rp, i, &cause));
		char *head = xasprintf("interval %d (byte ", i + 1);
		ck_assert_msg(strstr(cause, head) == cause && strstr(cause, lines[i].says), "%s", cause);
		free(head);
		free(cause);
	}
	replay_free(rp);
	small_rec_done(&sr);
	free(path);
}
END_TEST

/* Member i (0: the first line) of a recording, inflated. */
static char *read_member(const char *path, int i, size_t *len)
{
	int fd = open(path, O_RDONLY);
	uint64_t off = 0, next = 0, size = (uint64_t)file_size(path);
	int64_t stamp;
	for (int k = 0; k < i; k++) {
		ck_assert_int_eq(gzm_peek(fd, off, size, &next, &stamp), 0);
		off = next;
	}
	char *text = NULL;
	ck_assert_int_eq(gzm_read_at(fd, off, GZM_MAX_MEMBER, &text, len, &next, NULL), 0);
	close(fd);
	return text;
}

/* text with its first "from" replaced by "to". */
static char *replace_once(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	ck_assert_msg(at != NULL, "no %s", from);
	return xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* A field that is not what a recording holds is refused with what was
 * found: each "version" that is not 1 (before, all said "version 0"), an
 * interval of 1e308 s, and a group that repeats another (which raised
 * the coverage from 0.5 to 1). */
START_TEST(test_field_messages)
{
	struct run live;
	char *path = record_view(&live, "v.rec", "basic");
	size_t hlen, len;
	char *header = read_member(path, 0, &hlen);
	char *line = read_member(path, 1, &len);
	static const struct { const char *value, *says; } versions[] = {
		{ "-1", "\"version\" is -1;" }, { "\"1\"", "\"version\" is \"1\";" },
		{ "1.5", "\"version\" is 1.5;" }, { "null", "\"version\" is null;" },
		{ "1e300", "\"version\" is 1e+300;" }, { "2", "\"version\" is 2;" },
	};
	char *bad = tmpfile_path("bad.rec");
	for (size_t i = 0; i < ARRAY_SIZE(versions); i++) {
		char *to = xasprintf("\"version\":%s", versions[i].value);
		char *h = replace_once(header, "\"version\":1", to);
		unlink(bad);
		int fd = open(bad, O_WRONLY | O_CREAT, 0600);
		ck_assert_int_eq(gzm_append(fd, h, strlen(h), 0, NULL), 0);
		close(fd);
		char *cause = NULL;
		ck_assert_ptr_null(replay_open(bad, EVENTS_DIR, &cause));
		ck_assert_msg(strstr(cause, versions[i].says) && strstr(cause, "reads recordings of version 1"),
			      "%s", cause);
		free(cause);
		free(h);
		free(to);
	}
	struct replay *rp = open_ok(path);
	char *cause = NULL;
	/* The line as recorded reads. */
	struct snapshot *s = replay_snapshot_text(rp, line, len, &cause);
	ck_assert_msg(s != NULL, "%s", cause);
	snapshot_free(s);
	/* A rotation period that the sampler's back-off made longer than
	 * --rotate's 60000 ms still reads. */
	const char *rot = strstr(line, "\"rotate_ms\":");
	ck_assert_ptr_nonnull(rot);
	char *rotnum = xasprintf("%.*s", (int)strcspn(rot, ","), rot);
	char *slow = replace_once(line, rotnum, "\"rotate_ms\":3600000");
	s = replay_snapshot_text(rp, slow, strlen(slow), &cause);
	ck_assert_msg(s != NULL && s->rotate_ms == 3600000, "%s", cause);
	snapshot_free(s);
	free(slow);
	free(rotnum);
	const char *iv = strstr(line, "\"interval_s\":");
	ck_assert_ptr_nonnull(iv);
	char *num = xasprintf("%.*s", (int)strcspn(iv, ","), iv);
	static const struct { const char *to, *says; } fields[] = {
		{ "\"interval_s\":1e308", "\"interval_s\" is 1e+308; expected a number above 0 to 864000" },
		{ "\"interval_s\":\"1\"", "\"interval_s\" is \"1\"" },
		{ "\"interval_s\":-1", "\"interval_s\" is -1" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		char *t = replace_once(line, num, fields[i].to);
		ck_assert_ptr_null(replay_snapshot_text(rp, t, strlen(t), &cause));
		ck_assert_msg(strstr(cause, fields[i].says), "%s", cause);
		free(cause);
		free(t);
	}
	/* The first group, twice. */
	const char *g0 = strstr(line, "\"groups\":[{");
	ck_assert_ptr_nonnull(g0);
	g0 += strlen("\"groups\":[");
	const char *g1 = strchr(g0, '}');
	char *twice = xasprintf("%.*s,%.*s%s", (int)(g1 + 1 - line), line, (int)(g1 + 1 - g0), g0, g1 + 1);
	ck_assert_ptr_null(replay_snapshot_text(rp, twice, strlen(twice), &cause));
	ck_assert_msg(strstr(cause, "group 2 counts the same core events as an earlier group"), "%s", cause);
	free(cause);
	free(twice);
	free(num);
	replay_free(rp);
	free(bad);
	free(line);
	free(header);
	run_done(&live);
	free(path);
}
END_TEST

/* Lines mutated at random never crash the reader, and each one that is
 * refused says why. */
START_TEST(test_mutated_lines)
{
	struct run live;
	char *path = record_view(&live, "g.rec", "basic");
	struct replay *rp = open_ok(path);
	int fd = open(path, O_RDONLY);
	uint64_t off = 0, next = 0, size = (uint64_t)file_size(path);
	int64_t stamp;
	ck_assert_int_eq(gzm_peek(fd, 0, size, &off, &stamp), 0);
	char *text = NULL;
	size_t len = 0;
	ck_assert_int_eq(gzm_read_at(fd, off, GZM_MAX_MEMBER, &text, &len, &next, NULL), 0);
	close(fd);
	srand(7);
	int refused = 0;
	for (int k = 0; k < 300; k++) {
		char *t = xstrdup(text);
		for (int j = 0; j < 1 + k % 5; j++) {
			size_t at = (size_t)rand() % len;
			const char subst[] = "0123456789-e.,[]{}\":nul";
			t[at] = subst[rand() % (int)(sizeof(subst) - 1)];
		}
		char *cause = NULL;
		struct snapshot *s = replay_snapshot_text(rp, t, len, &cause);
		if (s) {
			snapshot_free(s);
		} else {
			ck_assert_ptr_nonnull(cause);
			refused++;
		}
		free(cause);
		free(t);
	}
	ck_assert_int_gt(refused, 0);
	free(text);
	replay_free(rp);
	run_done(&live);
	free(path);
}
END_TEST

/* A counter that stood still while recording (masked live, its watts '-'
 * and said once) is masked in the replay too, not derived again from its
 * recorded zeros as 0 W; a replay that starts further on says why too. */
START_TEST(test_replay_stuck_energy)
{
	char *path = tmpfile_path("p.rec");
	struct run live;
	struct model *m = fx_model("amd-zen5");
	int n, *ms = view_metrics(m, "power", &n);
	int pkg = model_find_event(m, "energy_pkg"), pkg_w = model_find_metric(m, "pkg_watts");
	ck_assert_int_ge(pkg, 0);
	ck_assert_int_ge(pkg_w, 0);
	stuck_event = pkg;
	run_live(&live, path, ms, n, NULL, 0, NULL, NULL);
	stuck_event = -1;
	for (int i = 0; i < NIV; i++)
		ck_assert(isnan(snap_metric(live.snap[i], &live.snap[i]->rows[SNAP_SYSTEM][0], pkg_w)));
	ck_assert_ptr_nonnull(strstr(live.snap[0]->notice, "counts nothing here"));
	replay_matches(path, &live, NULL, 0);
	struct replay *rp = open_ok(path);
	char *cause = NULL;
	struct snapshot *s = replay_snapshot(rp, 4, &cause);
	ck_assert_msg(s != NULL, "%s", cause);
	ck_assert(isnan(snap_metric(s, &s->rows[SNAP_SYSTEM][0], pkg_w)));
	ck_assert_msg(s->notice && strstr(s->notice, "power/energy-pkg counts nothing here"), "%s",
		      s->notice ? s->notice : "(no notice)");
	snapshot_free(s);
	/* Said once in a notice, not once more for each interval replayed. */
	s = replay_snapshot(rp, 5, &cause);
	ck_assert_msg(s != NULL, "%s", cause);
	const char *at = s->notice ? strstr(s->notice, "counts nothing here") : NULL;
	ck_assert_ptr_null(at ? strstr(at + 1, "counts nothing here") : NULL);
	snapshot_free(s);
	replay_free(rp);
	run_done(&live);
	free(ms);
	model_free(m);
	free(path);
}
END_TEST

static Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("record");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replay_equals_live);
	tcase_add_test(tc, test_replay_filter_and_offline);
	tcase_add_test(tc, test_replay_new_metric);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_damaged);
	tcase_add_test(tc, test_many_damaged);
	tcase_add_test(tc, test_file_rules);
	tcase_add_test(tc, test_mutated_lines);
	tcase_add_test(tc, test_hostile_lines);
	tcase_add_test(tc, test_write_errors);
	tcase_add_test(tc, test_field_messages);
	tcase_add_test(tc, test_replay_stuck_energy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(record_suite());
}
