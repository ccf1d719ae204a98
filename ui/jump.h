/* jump.h: what the replay's jump prompt accepts, parsed without curses so
 * that tests can drive it: a time of day, seconds from the interval shown,
 * an interval number, or the start or end of the recording. */
#ifndef PMCTOP_UI_JUMP_H
#define PMCTOP_UI_JUMP_H

/* Where the text asks to go, given the first and current intervals' end
 * times (seconds since the epoch), the current interval (0-based) and the
 * number of intervals:
 *   "HH:MM[:SS]"  the first interval ending at or after that local time
 *                 (the recording's first day, or the next one if the time
 *                 is before the recording started);
 *   "+SECS", "-SECS"  relative to the interval shown;
 *   "#N"          interval N (1-based);
 *   "start", "end".
 * Returns 0 and sets either *index (>= 0) or *time (then *index is -1);
 * -1 with *cause for anything else. */
int jump_parse(const char *text, double first_t, double cur_t, int cur, int n,
	       int *index, double *time, char **cause);

#endif
