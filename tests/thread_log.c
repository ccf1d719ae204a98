/* thread_log.c: an LD_PRELOAD library for tests/tsan_threads.sh. The
 * first time a process of pmctop's (pmctop itself or a check_ suite)
 * creates a thread, it appends "TEST PROGRAM" to $THREAD_LOG, TEST being
 * $THR_TEST (set by the script's LOG_COMPILER) or else the first
 * tests/... argument up its parent chain. The log's fd is opened before
 * main, so that a process that later drops its privileges or filters its
 * system calls still writes it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
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

static void find_test(pid_t pid, char *out, size_t n)
{
	for (int depth = 0; depth < 12 && pid > 1; depth++) {
		char path[64], buf[4096];
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			break;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
			const char *a = buf + i, *t = strstr(a, "tests/");
			if (t && (strstr(t, "e2e_") || strstr(t, "check_")) && !strstr(t, ".log") && !strstr(t, ".trs")) {
				snprintf(out, n, "%s", t);
				return;
			}
		}
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			break;
		int ppid = 0;
		if (fscanf(f, "%*d %*s %*c %d", &ppid) != 1)
			ppid = 0;
		fclose(f);
		pid = ppid;
	}
	snprintf(out, n, "?");
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
	const char *me = program_invocation_short_name;
	if (!logged && (!strcmp(me, "pmctop") || !strncmp(me, "check_", 6) || !strncmp(me, "lt-", 3))) {
		logged = 1;
		char test[512];
		const char *tt = getenv("THR_TEST");
		if (tt)
			snprintf(test, sizeof(test), "%s", tt);
		else
			find_test(getpid(), test, sizeof(test));
		char line[700];
		int len = snprintf(line, sizeof(line), "%s %s\n", test, me);
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
