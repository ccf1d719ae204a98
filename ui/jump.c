/* jump.c: the replay's jump prompt (jump.h). */
#include "config.h"
#include "jump.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

int jump_parse(const char *text, double first_t, double cur_t, int cur, int n,
	       int *index, double *time_out, char **cause)
{
	while (isspace((unsigned char)*text))
		text++;
	*index = -1;
	*time_out = NAN;
	if (n <= 0)
		return set_cause(cause, "the recording holds no interval");
	if (!strcmp(text, "start") || !strcmp(text, "end")) {
		*index = text[0] == 's' ? 0 : n - 1;
		return 0;
	}
	char *end;
	if (text[0] == '#') {
		long v = strtol(text + 1, &end, 10);
		if (end == text + 1 || *end)
			return set_cause(cause, "'#' takes an interval number, e.g. #12");
		if (v < 1 || v > n)
			return set_cause(cause, "interval %ld is not in the recording (1 to %d)", v, n);
		*index = (int)v - 1;
		return 0;
	}
	if (text[0] == '+' || text[0] == '-') {
		double d = strtod(text, &end);
		if (end == text || *end || !isfinite(d))
			return set_cause(cause, "expected seconds after %c, e.g. %c30", text[0], text[0]);
		*time_out = cur_t + d;
		/* Back from the first interval stays there. */
		if (d < 0 && cur == 0)
			*index = 0;
		return 0;
	}
	int hh, mm, ss = 0, used = 0;
	if ((sscanf(text, "%d:%d:%d%n", &hh, &mm, &ss, &used) == 3 ||
	     (ss = 0, sscanf(text, "%d:%d%n", &hh, &mm, &used) == 2)) && !text[used] &&
	    hh >= 0 && hh < 24 && mm >= 0 && mm < 60 && ss >= 0 && ss < 60) {
		time_t t0 = (time_t)floor(first_t);
		struct tm tm;
		localtime_r(&t0, &tm);
		tm.tm_hour = hh;
		tm.tm_min = mm;
		tm.tm_sec = ss;
		tm.tm_isdst = -1;
		double t = (double)mktime(&tm);
		/* A recording that crossed midnight: a time before its start
		 * is on the next day. */
		if (t < floor(first_t) - 1)
			t += 86400;
		*time_out = t;
		return 0;
	}
	return set_cause(cause, "expected HH:MM[:SS], +SECS, -SECS, #N, start or end");
}
