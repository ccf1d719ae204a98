/* fault_rate.c: a process that takes page faults at a known rate, for
 * tests/e2e_tasks.sh: it touches one new page of an anonymous mapping
 * every 1/RATE s (to absolute deadlines, so that the rate holds) for SECS
 * seconds, each touch one minor fault, and sleeps in between.
 * Usage: fault_rate RATE SECS */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long rate = atol(argv[1]);
	double secs = atof(argv[2]);
	if (rate < 1 || rate > 100000 || !(secs > 0))
		return 2;
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (size_t)(rate * secs) + 1;
	unsigned char *p = mmap(NULL, n * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	long step = 1000000000L / rate;
	for (size_t i = 0; i < n; i++) {
		p[i * (size_t)page] = 1;
		t.tv_nsec += step;
		while (t.tv_nsec >= 1000000000L) {
			t.tv_nsec -= 1000000000L;
			t.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	return 0;
}
