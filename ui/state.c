/* state.c: what the dashboard keeps between frames that panels and
 * dialogs change without calling back into the loop: the message line,
 * the history of figures (the graphs), and a dialog's wait for a key
 * while new figures keep coming. */
#include "config.h"
#include "uiint.h"

#include <stdio.h>
#include <stdlib.h>
#include "util.h"

/* The message line says msg for 5 seconds. */
void ui_set_message(struct ui *u, const char *msg)
{
	free(u->message);
	u->message = msg ? xstrdup(msg) : NULL;
	u->message_until = (double)now_ns() / 1e9 + 5;
	u->redraw = true;
}

void ui_history_add(struct ui *u, const struct snapshot *s)
{
	if (s->quick)
		return;
	unsigned long restarts = u->hist.restarts;
	history_add(&u->hist, s);
	if (u->hist.restarts != restarts) {
		char msg[96];
		snprintf(msg, sizeof(msg), "history started again: the intervals are now %.3g s long",
			 s->delay_s > 0 ? s->delay_s : s->interval_s);
		ui_set_message(u, msg);
	}
}

int ui_dialog_getkey(struct ui *u)
{
	struct snapshot *s = u->replay ? NULL : snap_ring_pop_latest(&u->ring);
	if (s) {
		ui_history_add(u, s);
		if (u->pending)
			snapshot_free(u->pending);
		u->pending = s;
	}
	return ui_getkey();
}
