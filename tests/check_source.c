/* check_source.c: the source interface (source.h) as the dashboard and
 * the batch loop use it. A simulated run made through the live source and
 * recorded must come back through the replay source interval for
 * interval; on the replay source the dashboard's operations must do what
 * the keys promise: play at the delay's pace, step and jump (refilling the
 * history with what came before), derive the interval shown again on a
 * new request, pause at the end and play again from the start. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend.h"
#include "check_run.h"
#include "evdef.h"
#include "record.h"
#include "replay.h"
#include "sampler.h"
#include "source.h"
#include "topo.h"
#include "util.h"

#define EVENTS_DIR TOP_SRCDIR "/events"
#define NIV 8

static char tmpdir[64], path[128];
static struct snapshot *live[NIV];
static int m_ipc;

static void record_hook(void *arg, const struct derive_input *in, struct snapshot *snap)
{
	recorder_add(arg, in, snap);
}

/* NIV intervals of a simulated zen5 through the live source, recorded. */
static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmctop-src-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/a.rec", tmpdir);
	char *cause = NULL;
	struct model *m = model_load_by_name(EVENTS_DIR, "amd-zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause);
	struct topo *t = topo_synthetic(1, 1, 4, 2);
	m_ipc = model_find_metric(m, "ipc");
	ck_assert_int_ge(m_ipc, 0);
	int ms[1] = { m_ipc };
	struct sampler_config cfg = { .model = m, .topo = t, .ops = &backend_sim, .backend_arg = "seed=5",
				      .interval_s = 0.5, .rotate_ms = 20, .nmetrics = 1, .metrics = ms,
				      .cost_budget = 1e9 };
	struct sampler *s = sampler_new(&cfg, &cause);
	ck_assert_msg(s != NULL, "%s", cause);
	struct record_info ri = { .model = m, .topo = t, .simulated = true, .sim_spec = "zen5:1x1x4x2",
				  .host = "test", .cpu_name = "simulated", .interval_s = 0.5, .rotate_ms = 20,
				  .ncols = 1, .cols = ms };
	struct recorder *rec = recorder_open(path, &ri, NULL, &cause);
	ck_assert_msg(rec != NULL, "%s", cause);
	sampler_record(s, record_hook, rec);
	struct source *src = source_live_new(s, 0.5, false, NULL, NULL);
	/* A live source moves through nothing: its intervals are made now. */
	ck_assert(!source_seeks(src));
	ck_assert(!src->ops->interval_is_pace);
	ck_assert(fabs(source_interval(src) - 0.5) < 1e-12);
	for (int i = 0; i < NIV; i++) {
		enum source_got got;
		live[i] = source_next(src, &got, &cause);
		ck_assert_msg(live[i] != NULL && got == SOURCE_OK, "%s", cause ? cause : "?");
	}
	ck_assert_int_eq(source_finish(src), 0);
	source_free(src);
	ck_assert_int_eq(recorder_close(rec, &cause), 0);
	sampler_free(s);
	topo_free(t);
	model_free(m);
}

static void teardown(void)
{
	for (int i = 0; i < NIV; i++)
		snapshot_free(live[i]);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static double sys_ipc(const struct snapshot *s)
{
	return snap_metric(s, &s->rows[SNAP_SYSTEM][0], m_ipc);
}

/* What the replay source told the screen. */
struct seen {
	int messages, clears, adds, pauses;
	char last[256];
	uint64_t added[NIV];
};

static void on_message(void *arg, const char *msg)
{
	struct seen *s = arg;
	s->messages++;
	snprintf(s->last, sizeof(s->last), "%s", msg);
}

static void on_clear(void *arg)
{
	struct seen *s = arg;
	s->clears++;
	s->adds = 0;
}

static void on_add(void *arg, const struct snapshot *snap)
{
	struct seen *s = arg;
	if (s->adds < NIV)
		s->added[s->adds] = snap->seq;
	s->adds++;
}

static void on_paused(void *arg)
{
	((struct seen *)arg)->pauses++;
}

static struct replay *open_replay(void)
{
	char *cause = NULL;
	struct replay *rp = replay_open(path, EVENTS_DIR, &cause);
	ck_assert_msg(rp != NULL, "%s", cause);
	return rp;
}

/* Batch mode: every interval, as the live source made it, then the end. */
START_TEST(test_replay_batch_equals_live)
{
	struct replay *rp = open_replay();
	int cols[1] = { m_ipc };
	struct source *src = source_replay_new(rp, path, 1, cols, NULL, NULL);
	for (int i = 0; i < NIV; i++) {
		enum source_got got;
		char *cause = NULL;
		struct snapshot *s = source_next(src, &got, &cause);
		ck_assert_msg(s && got == SOURCE_OK, "%s", cause ? cause : "?");
		ck_assert_uint_eq(s->seq, live[i]->seq);
		ck_assert(isfinite(sys_ipc(s)));
		ck_assert_double_eq(sys_ipc(s), sys_ipc(live[i]));
		snapshot_free(s);
	}
	enum source_got got;
	ck_assert_ptr_null(source_next(src, &got, NULL));
	ck_assert_int_eq(got, SOURCE_END);
	ck_assert_int_eq(source_finish(src), 0);
	source_free(src);
	replay_free(rp);
}
END_TEST

/* The dashboard's operations on a recording. */
START_TEST(test_replay_dashboard_ops)
{
	struct replay *rp = open_replay();
	struct source *src = source_replay_new(rp, path, 0, NULL, NULL, NULL);
	struct seen seen = { 0 };
	struct source_sink sink = { .arg = &seen, .message = on_message, .history_clear = on_clear,
				    .history_add = on_add, .history_len = 4, .paused = on_paused };
	ck_assert(source_seeks(src));
	ck_assert(src->ops->interval_is_pace && src->ops->names_view);
	/* The recorded interval is the pace to start with. */
	ck_assert(fabs(source_interval(src) - 0.5) < 1e-12);
	ck_assert_int_eq(source_start(src, NULL, &sink, NULL), 0);
	int n;
	ck_assert_int_eq(source_position(src, &n), -1);
	ck_assert_int_eq(n, NIV);

	/* The first interval at once, the next one a delay later. */
	struct snapshot *s = source_poll(src, 100.0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[0]->seq);
	snapshot_free(s);
	ck_assert_ptr_null(source_poll(src, 100.4));
	s = source_poll(src, 100.5);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[1]->seq);
	snapshot_free(s);
	/* + (a shorter delay) plays faster; the header says the speed. */
	source_set_interval(src, 0.25);
	char st[64];
	ck_assert_str_eq(source_status(src, st, sizeof(st)), "REPLAY");
	ck_assert_msg(strstr(st, "2/8") && strstr(st, "x2"), "%s", st);
	/* The interval on screen keeps the stay it began with; the next
	 * one stays the new delay. */
	ck_assert_ptr_null(source_poll(src, 100.9));
	s = source_poll(src, 101.0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[2]->seq);
	snapshot_free(s);
	ck_assert_ptr_null(source_poll(src, 101.2));
	s = source_poll(src, 101.25);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[3]->seq);
	snapshot_free(s);
	ck_assert_int_eq(seen.clears, 0);

	/* A jump: the interval asked for, the history refilled with the
	 * history_len - 1 intervals before it. */
	source_pause(src, true);
	ck_assert_ptr_null(source_poll(src, 200.0));
	source_seek(src, 6);
	s = source_poll(src, 200.0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[6]->seq);
	ck_assert_int_eq(seen.clears, 1);
	ck_assert_int_eq(seen.adds, 3);
	for (int k = 0; k < 3; k++)
		ck_assert_uint_eq(seen.added[k], live[3 + k]->seq);
	snapshot_free(s);
	ck_assert_int_eq(source_position(src, &n), 6);
	ck_assert_msg(strstr(source_status(src, st, sizeof(st)) ? st : "", "paused"), "%s", st);

	/* New figures: the interval shown again at once, not a move. */
	int ms[1] = { m_ipc };
	ck_assert(source_request(src, 1, ms, 0, NULL, 0, NULL));
	s = source_poll(src, 200.1);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[6]->seq);
	ck_assert_int_eq(seen.clears, 1);
	snapshot_free(s);
	/* A recording has no per-task figures, and says so. */
	ck_assert_ptr_nonnull(source_request_tasks(src, 1, ms));

	/* Playing to the end pauses, with a word; resuming starts again. */
	source_pause(src, false);
	s = source_poll(src, 300.0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[7]->seq);
	snapshot_free(s);
	ck_assert_ptr_null(source_poll(src, 400.0));
	ck_assert_int_eq(seen.pauses, 1);
	ck_assert_msg(strstr(seen.last, "end of the recording"), "%s", seen.last);
	ck_assert_ptr_null(source_poll(src, 500.0));
	source_pause(src, false);
	s = source_poll(src, 500.0);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->seq, live[0]->seq);
	snapshot_free(s);
	source_stop(src);
	source_free(src);
	replay_free(rp);
}
END_TEST

/* The live source tells each line of an interval's notice once, while
 * it lasts: a notice the same as the interval before's says nothing, a
 * new line alone is said, and a line gone and back is said again. */
static char said[8][64];
static int nsaid;

static void say_hook(const char *msg)
{
	if (nsaid < 8)
		snprintf(said[nsaid], sizeof(said[0]), "%s", msg);
	nsaid++;
}

START_TEST(test_live_news_once)
{
	struct source *src = source_live_new(NULL, 1.0, false, say_hook, NULL);
	struct snapshot snap = { .notice = NULL };
	static const struct {
		const char *notice, *said;
	} steps[] = {
		{ "a\nb", "a|b" }, { "a\nb", "" }, { "a\nb", "" }, { "b\nc", "c" },
		{ NULL, "" }, { NULL, "" }, { "b", "b" }, { "b", "" }, { "b\n", "" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		char notice[16] = "", got[64] = "";
		/* A copy of its own each interval, as each snapshot has. */
		if (steps[i].notice)
			snprintf(notice, sizeof(notice), "%s", steps[i].notice);
		snap.notice = steps[i].notice ? notice : NULL;
		nsaid = 0;
		source_say_news(src, &snap);
		for (int k = 0; k < nsaid && k < 8; k++) {
			if (k)
				strncat(got, "|", sizeof(got) - strlen(got) - 1);
			strncat(got, said[k], sizeof(got) - strlen(got) - 1);
		}
		ck_assert_msg(!strcmp(got, steps[i].said), "step %zu: said \"%s\", not \"%s\"", i, got,
			      steps[i].said);
	}
	source_free(src);
}
END_TEST

/* The same with the sampler's shared notices (snap_note): a note told
 * before says nothing, another note of the same text nothing either, and
 * a new note's new lines are said even when the one before is let go by
 * every snapshot (the source holds the note it told, so that its address
 * cannot come back with another text). */
static const char *told_now(struct source *src, struct snapshot *snap, char *got, size_t len)
{
	nsaid = 0;
	got[0] = 0;
	source_say_news(src, snap);
	for (int k = 0; k < nsaid && k < 8; k++) {
		if (k)
			strncat(got, "|", len - strlen(got) - 1);
		strncat(got, said[k], len - strlen(got) - 1);
	}
	return got;
}

START_TEST(test_live_news_shared)
{
	struct source *src = source_live_new(NULL, 1.0, false, say_hook, NULL);
	char got[64];
	struct snap_note *n1 = snap_note_new("x\ny");
	struct snapshot snap = { .note = n1, .notice = snap_note_text(n1) };
	ck_assert_str_eq(told_now(src, &snap, got, sizeof(got)), "x|y");
	ck_assert_str_eq(told_now(src, &snap, got, sizeof(got)), "");
	/* Another note, the same text. */
	struct snap_note *n2 = snap_note_new("x\ny");
	snap = (struct snapshot){ .note = n2, .notice = snap_note_text(n2) };
	ck_assert_str_eq(told_now(src, &snap, got, sizeof(got)), "");
	/* A copy of its own, the same text, then the note again. */
	char own[8] = "x\ny";
	snap = (struct snapshot){ .notice = own };
	ck_assert_str_eq(told_now(src, &snap, got, sizeof(got)), "");
	snap = (struct snapshot){ .note = n2, .notice = snap_note_text(n2) };
	ck_assert_str_eq(told_now(src, &snap, got, sizeof(got)), "");
	/* Every snapshot lets go of n1 and n2; a new text is said. */
	snap_note_release(n1);
	snap_note_release(n2);
	struct snap_note *n3 = snap_note_new("y\nz");
	snap = (struct snapshot){ .note = n3, .notice = snap_note_text(n3) };
	ck_assert_str_eq(told_now(src, &snap, got, sizeof(got)), "z");
	snap_note_release(n3);
	source_free(src);
}
END_TEST

static Suite *source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("source");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replay_batch_equals_live);
	tcase_add_test(tc, test_replay_dashboard_ops);
	suite_add_tcase(s, tc);
	TCase *news = tcase_create("news");
	tcase_add_test(news, test_live_news_once);
	tcase_add_test(news, test_live_news_shared);
	suite_add_tcase(s, news);
	return s;
}

int main(void)
{
	return check_run(source_suite());
}
