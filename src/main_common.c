/* main_common.c: what main.c, main_batch.c and main_choose.c all use: the
 * stop flag that signals set, messages on stderr and the exit statuses
 * that go with them, and the measured machine's name. A leaf below the
 * three, so that none of them calls back into main.c. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "replay.h"
#include "util.h"
#include "main_impl.h"

/* The signal that asked batch mode to stop, or 0. */
volatile sig_atomic_t stop_requested;

/* Every message goes through the sanitiser: causes quote option values,
 * file names and definition text, none of which may reach the terminal
 * as escape sequences. */
void say(const char *msg)
{
	char *safe = text_sanitize(msg ? msg : "?");
	fprintf(stderr, "pmctop: %s\n", safe);
	free(safe);
}

int usage_error(const char *msg)
{
	say(msg);
	fputs("Try 'pmctop --help' for more information.\n", stderr);
	return 2;
}

int runtime_error(const char *msg)
{
	say(msg);
	return 1;
}

void run_host(const struct run *r, char *buf, size_t n)
{
	buf[0] = '\0';
	if (r->rp)
		snprintf(buf, n, "%s", replay_info(r->rp)->host ? replay_info(r->rp)->host : "");
	else
		gethostname(buf, n - 1);
	buf[n - 1] = '\0';
	text_sanitize_inplace(buf);
}
