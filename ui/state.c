/* state.c: what the dashboard keeps between frames that panels and
 * dialogs change without calling back into the loop: the message line,
 * the history of figures (the graphs) and the intervals taken from the
 * sampler into it. No curses: tests link it (check_history). */
#include "config.h"
#include "ui_impl.h"

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
	history_add(&u->hist, s);
}

struct snapshot *ui_pop_snapshots(struct ui *u)
{
	/* Every interval goes into the history, in order, though only the
	 * latest is shown: a screen slower than the sampler (a loaded
	 * machine, a short -d) left a blank cell for each one it skipped. */
	struct snapshot *s = snap_ring_pop(&u->ring), *next;
	while (s && (next = snap_ring_pop(&u->ring)) != NULL) {
		ui_history_add(u, s);
		snapshot_free(s);
		s = next;
	}
	return s;
}
