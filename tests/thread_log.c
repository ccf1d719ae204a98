/* thread_log.c: an LD_PRELOAD library for tests/tsan_threads.sh. The
 * first time a process of pmctop's (pmctop itself or a check_ suite)
 * creates a thread, it appends "TEST PROGRAM" to $THREAD_LOG, TEST being
 * $THR_TEST, which the script's LOG_COMPILER sets for each test and every
 * process of the test inherits ("?" without it). The log's fd is opened before
 * main, so that a process that later drops its privileges or filters its
 * system calls still writes it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>          /* program_invocation_short_name */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int logged, logfd = -1;

__attribute__((constructor)) static void thr_init(void)
{
	const char *lf = getenv("THREAD_LOG");
	if (lf) {
		int fd = open(lf, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
		if (fd >= 0) {
			logfd = fcntl(fd, F_DUPFD_CLOEXEC, 900);
			close(fd);
		}
	}
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
	const char *me = program_invocation_short_name;
	if (!logged && (!strcmp(me, "pmctop") || !strncmp(me, "check_", 6))) {
		logged = 1;
		const char *test = getenv("THR_TEST");
		char line[700];
		int len = snprintf(line, sizeof(line), "%s %s\n", test ? test : "?", me);
		/* Where the fd is gone (a process that closed its fds), the
		 * file is opened again; failing that, stderr says so. */
		if (logfd < 0 || write(logfd, line, (size_t)len) != len) {
			const char *lf = getenv("THREAD_LOG");
			FILE *f = lf ? fopen(lf, "a") : NULL;
			if (f) {
				fputs(line, f);
				fclose(f);
			} else {
				fputs(line, stderr);
			}
		}
	}
	return real(t, a, fn, arg);
}
