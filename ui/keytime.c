/* keytime.c: the PMCTOP_KEY_TIMES hook (keytime.h). Times are from the
 * key's read by curses (getch), on CLOCK_MONOTONIC; a line is
 *   key=K handle_ms=H frame_ms=F next_interval_ms=N
 * written once the first interval after the key is drawn, or at the next
 * key (next_interval_ms=-1: none came). A key that arrives while the
 * previous is pending ends that one's line. */
#include "config.h"
#include "keytime.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static FILE *out;
static int key = -1;
static double t_key, handle_ms, frame_ms;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void flush_line(double next_ms)
{
	if (key < 0)
		return;
	fprintf(out, "key=%d handle_ms=%.3f frame_ms=%.3f next_interval_ms=%.3f\n",
		key, handle_ms, frame_ms, next_ms);
	fflush(out);
	key = -1;
}

void keytime_init(void)
{
	const char *path = getenv("PMCTOP_KEY_TIMES");
	if (path && *path)
		out = fopen(path, "a");
}

void keytime_done(void)
{
	if (!out)
		return;
	flush_line(-1);
	fclose(out);
	out = NULL;
}

void keytime_key(int k)
{
	if (!out)
		return;
	flush_line(-1);
	key = k;
	t_key = now_ms();
	handle_ms = frame_ms = -1;
}

void keytime_handled(void)
{
	if (out && key >= 0)
		handle_ms = now_ms() - t_key;
}

void keytime_frame(int snap)
{
	if (!out || key < 0)
		return;
	double t = now_ms() - t_key;
	if (frame_ms < 0)
		frame_ms = t;
	if (snap)
		flush_line(t);
}
