/* replay_ctl.c: the dashboard on a recording (-r). Intervals are derived
 * on the screen's thread when due: one per recorded interval, each shown
 * for the refresh delay (the recorded interval at first, so the replay
 * runs at the speed it was recorded; + speeds it up, - slows it down). Space pauses,
 * [ and ] step, j jumps; a view change derives the interval shown again
 * with the new figures, so nothing waits for the next interval. */
#include "config.h"
#include "uiint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jump.h"
#include "replay.h"
#include "util.h"

void replay_ctl_init(struct ui *u)
{
	const struct replay_info *ri = replay_info(u->replay);
	u->rp_pos = -1;
	u->rp_want = 0;
	u->rp_next = 0;
	u->nav.delay_s = ri->interval_s > 0 ? ri->interval_s : 1;
}

/* Names the view's metrics that the recording cannot give, once per view
 * or request: a '-' there is not a gap in the measurement. */
static void tell_missing(struct ui *u, const struct snapshot *s)
{
	if (!u->rp_tell || u->nav.view < 0 || u->nav.view >= u->nviews)
		return;
	u->rp_tell = false;
	const struct view_def *v = &u->views[u->nav.view];
	char line[256] = "", why[160] = "";
	int n = 0;
	for (int i = 0; i < v->ncols; i++) {
		int mi = v->cols[i].metric;
		if (mi < 0 || mi >= u->m->nmetrics || s->metric_planned[mi] ||
		    !replay_why_missing(u->replay, mi, why, sizeof(why)))
			continue;
		size_t len = strlen(line);
		snprintf(line + len, sizeof(line) - len, "%s%s", n++ ? ", " : "", u->m->metrics[mi].label);
	}
	if (n == 0)
		return;
	char *msg = n == 1 ? xasprintf("%s: %s", line, why)
			   : xasprintf("not in the recording (their events were not counted): %s", line);
	ui_set_message(u, msg);
	free(msg);
}

/* A move other than one interval forward (a jump, a step back): the
 * history is that of the intervals before i in the file, as if it had
 * played up to there; clearing it left the graphs blank although the
 * file holds what came before. */
static void refill_history(struct ui *u, int i)
{
	history_clear(&u->hist);
	for (int k = i - HISTORY_LEN + 1 > 0 ? i - HISTORY_LEN + 1 : 0; k < i; k++) {
		struct snapshot *s = replay_snapshot(u->replay, k, NULL);
		if (s) {
			ui_history_add(u, s);
			snapshot_free(s);
		}
	}
}

static struct snapshot *show(struct ui *u, int i)
{
	int n = replay_count(u->replay);
	while (i >= 0 && i < n) {
		char *cause = NULL;
		struct snapshot *s = replay_snapshot(u->replay, i, &cause);
		if (s) {
			if (i != u->rp_pos + 1)
				refill_history(u, i);
			u->rp_pos = i;
			tell_missing(u, s);
			return s;
		}
		/* A damaged interval: said, and the next one shown instead. */
		char *msg = xasprintf("%s; skipped", cause);
		ui_set_message(u, msg);
		free(msg);
		free(cause);
		i++;
	}
	return NULL;
}

struct snapshot *replay_ctl_poll(struct ui *u, double now)
{
	int n = replay_count(u->replay);
	if (u->rp_want >= 0) {
		int i = u->rp_want;
		u->rp_want = -1;
		u->rp_next = now + u->nav.delay_s;
		return show(u, i < 0 ? 0 : i >= n ? n - 1 : i);
	}
	if (u->nav.paused || now < u->rp_next)
		return NULL;
	if (u->rp_pos + 1 >= n) {
		u->nav.paused = true;
		ui_set_message(u, "end of the recording: [ steps back, j jumps, q quits");
		return NULL;
	}
	u->rp_next = now + u->nav.delay_s;
	return show(u, u->rp_pos + 1);
}

static void jump(struct ui *u)
{
	char *text = dialog_prompt(u, "jump to (HH:MM:SS, +SECS, -SECS, #N, start, end): ", "");
	if (!text)
		return;
	int n = replay_count(u->replay), idx;
	double t;
	char *cause = NULL;
	int cur = u->rp_pos < 0 ? 0 : u->rp_pos;
	if (jump_parse(text, replay_time(u->replay, 0), replay_time(u->replay, cur), cur, n,
		       &idx, &t, &cause) < 0) {
		ui_set_message(u, cause);
		free(cause);
	} else {
		if (idx < 0) {
			idx = replay_find_time(u->replay, t);
			if (idx >= n) {
				idx = n - 1;
				ui_set_message(u, "that is after the recording: its last interval is shown");
			} else if (idx > 0 && t - replay_time(u->replay, idx - 1) < replay_time(u->replay, idx) - t) {
				/* The nearest interval: stamps come a few ms late, so
				 * "+5" from the start found the first one at or after
				 * the exact time, an interval too far. */
				idx--;
			}
		}
		u->rp_want = idx;
	}
	free(text);
}

void replay_ctl_action(struct ui *u, enum ui_action a)
{
	int n = replay_count(u->replay);
	switch (a) {
	case ACT_STEP_BACK:
	case ACT_STEP_FWD: {
		u->nav.paused = true;
		int i = u->rp_pos + (a == ACT_STEP_FWD ? 1 : -1);
		if (i < 0 || i >= n)
			ui_set_message(u, i < 0 ? "this is the first interval" : "this is the last interval");
		else
			u->rp_want = i;
		break;
	}
	case ACT_JUMP:
		jump(u);
		break;
	case ACT_PAUSE:
		/* Resuming at the end plays again from the start. */
		if (!u->nav.paused && u->rp_pos + 1 >= n)
			u->rp_want = 0;
		break;
	default:
		break;
	}
}

void replay_ctl_request(struct ui *u, int nmetrics, const int *metrics)
{
	replay_request(u->replay, nmetrics, metrics, u->nextra, u->extra);
	u->rp_tell = true;
	if (u->rp_pos >= 0 && u->rp_want < 0) {
		u->rp_want = u->rp_pos;
		/* The same interval again: not a move for the history. */
		u->rp_pos--;
	}
}

void replay_ctl_status(const struct ui *u, char *buf, int len)
{
	int n = replay_count(u->replay);
	double t = replay_time(u->replay, u->rp_pos < 0 ? 0 : u->rp_pos);
	char when[16] = "--:--:--";
	if (isfinite(t)) {
		time_t tt = (time_t)t;
		struct tm tm;
		if (localtime_r(&tt, &tm))
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
	}
	const struct replay_info *ri = replay_info(u->replay);
	double speed = ri->interval_s / (u->nav.delay_s > 0 ? u->nav.delay_s : 1);
	if (u->nav.paused)
		snprintf(buf, (size_t)len, "%d/%d %s paused x%.2g", u->rp_pos + 1, n, when, speed);
	else
		snprintf(buf, (size_t)len, "%d/%d %s x%.2g", u->rp_pos + 1, n, when, speed);
}
