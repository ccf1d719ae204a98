/* seek.c: the dashboard's keys that move through intervals that exist
 * already ([ and ] step, j jumps), on a source that can (source.h: a
 * recording); and what the screen says of the view's metrics the source
 * cannot give, where it can say why. */
#include "config.h"
#include "ui_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jump.h"
#include "util.h"

/* Names the view's metrics that the source cannot give, once per view
 * or request: a '-' there is not a gap in the measurement. */
void ui_tell_missing(struct ui *u, const struct snapshot *s)
{
	if (!u->tell_missing || u->nav.view < 0 || u->nav.view >= u->nviews)
		return;
	u->tell_missing = false;
	const struct view_def *v = &u->views[u->nav.view];
	char line[256] = "", why[160] = "";
	int n = 0;
	for (int i = 0; i < v->ncols; i++) {
		int mi = v->cols[i].metric;
		if (mi < 0 || mi >= u->m->nmetrics || s->metric_planned[mi] ||
		    !source_why_missing(u->src, mi, why, sizeof(why)))
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

static void jump(struct ui *u)
{
	char *text = dialog_prompt(u, "jump to (HH:MM:SS, +SECS, -SECS, #N, start, end): ", "");
	if (!text)
		return;
	int n, idx;
	int pos = source_position(u->src, &n);
	double t;
	char *cause = NULL;
	int cur = pos < 0 ? 0 : pos;
	if (jump_parse(text, source_time_at(u->src, 0), source_time_at(u->src, cur), cur, n,
		       &idx, &t, &cause) < 0) {
		ui_set_message(u, cause);
		free(cause);
	} else {
		if (idx < 0) {
			idx = source_find_time(u->src, t);
			if (idx >= n) {
				idx = n - 1;
				ui_set_message(u, "that is after the recording: its last interval is shown");
			} else if (idx > 0 && t - source_time_at(u->src, idx - 1) < source_time_at(u->src, idx) - t) {
				/* The nearest interval: stamps come a few ms late, so
				 * "+5" from the start found the first one at or after
				 * the exact time, an interval too far. */
				idx--;
			}
		}
		source_seek(u->src, idx);
	}
	free(text);
}

void ui_seek_action(struct ui *u, enum ui_action a)
{
	if (!source_seeks(u->src)) {
		ui_set_message(u, "[, ] and j move through a recording (pmctop -r FILE)");
		return;
	}
	int n, pos = source_position(u->src, &n);
	switch (a) {
	case ACT_STEP_BACK:
	case ACT_STEP_FWD: {
		u->nav.paused = true;
		source_pause(u->src, true);
		int i = pos + (a == ACT_STEP_FWD ? 1 : -1);
		if (i < 0 || i >= n)
			ui_set_message(u, i < 0 ? "this is the first interval" : "this is the last interval");
		else
			source_seek(u->src, i);
		break;
	}
	case ACT_JUMP:
		jump(u);
		break;
	default:
		break;
	}
}
