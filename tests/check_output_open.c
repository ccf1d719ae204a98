/* check_output_open.c: how -o opens its file: created 0644, never through a
 * symbolic link, and an existing file replaced only when it is pmctop's own
 * output; what is refused is left untouched. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "util.h"

static char *dir;

static void setup(void)
{
	dir = xstrdup("/tmp/check_output_open.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static char *slurp(const char *path)
{
	char *s = read_text_file(path);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* Opens path with output_open, writes "new" and closes: 0, or -1 with the
 * cause checked to contain want. */
static int try_open(const char *path, const char *want)
{
	char *cause = NULL;
	FILE *f = output_open(path, false, &cause);
	if (!f) {
		ck_assert_msg(want && cause && strstr(cause, want), "cause '%s', want '%s'", cause ? cause : "(null)",
			      want ? want : "(success)");
		free(cause);
		return -1;
	}
	ck_assert_msg(!want, "opened, want '%s'", want);
	fputs("new", f);
	ck_assert_int_eq(fclose(f), 0);
	return 0;
}

START_TEST(test_new_file)
{
	char *path = xasprintf("%s/out.csv", dir);
	mode_t old = umask(022);
	ck_assert_int_eq(try_open(path, NULL), 0);
	umask(old);
	struct stat sb;
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 07777, 0644);
	char *s = slurp(path);
	ck_assert_str_eq(s, "new");
	free(s);
	free(path);
}
END_TEST

/* pmctop's own output (each format) and an empty file are replaced. */
START_TEST(test_replaces_own_output)
{
	static const char *const own[] = {
		"", "# 14:19:32.477  interval 1 s\nCPU ...\n", "time,interval_s,simulated,scope\n1,2,3\n",
		"{\"time\":1795443572.572,\"interval_s\":0.01}\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(own); i++) {
		char *path = put("old", own[i]);
		ck_assert_int_eq(try_open(path, NULL), 0);
		char *s = slurp(path);
		ck_assert_str_eq(s, "new");
		free(s);
		free(path);
	}
}
END_TEST

START_TEST(test_refuses_foreign_file)
{
	char *path = put("shadow", "root:$6$secret:19000:0:99999:7:::\n");
	ck_assert_int_eq(try_open(path, "exists and does not hold pmctop's output"), -1);
	char *s = slurp(path);
	ck_assert_str_eq(s, "root:$6$secret:19000:0:99999:7:::");
	free(s);
	free(path);
}
END_TEST

/* A link planted where pmctop writes: neither followed nor replaced, even
 * when it points at pmctop output; a second name (hard link) of a file is
 * refused too. */
START_TEST(test_refuses_links)
{
	char *target = put("target", "time,interval_s,x\n");
	char *slink = xasprintf("%s/link", dir);
	ck_assert_int_eq(symlink(target, slink), 0);
	ck_assert_int_eq(try_open(slink, "is a symbolic link"), -1);
	char *dangling = xasprintf("%s/dangling", dir);
	char *absent = xasprintf("%s/absent", dir);
	ck_assert_int_eq(symlink(absent, dangling), 0);
	ck_assert_int_eq(try_open(dangling, "is a symbolic link"), -1);
	ck_assert_int_eq(access(absent, F_OK), -1);
	char *hard = xasprintf("%s/hard", dir);
	ck_assert_int_eq(link(target, hard), 0);
	ck_assert_int_eq(try_open(hard, "is not a regular file with one name"), -1);
	char *s = slurp(target);
	ck_assert_str_eq(s, "time,interval_s,x");
	free(s);
	free(hard);
	free(absent);
	free(dangling);
	free(slink);
	free(target);
}
END_TEST

START_TEST(test_refuses_devices_and_others_files)
{
	ck_assert_int_eq(try_open("/dev/zero", "is not a regular file, a FIFO or /dev/null"), -1);
	if (geteuid() == 0) {
		/* Root does not replace a file that another user left, even one
		 * that looks like pmctop output. */
		char *path = put("theirs", "time,interval_s,x\n");
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(try_open(path, "belongs to another user"), -1);
		free(path);
	}
}
END_TEST

/* Paths as users write them: "-" and /dev/stdout are standard output,
 * /dev/null is written to (all three were refused), and a directory is
 * named as one. */
START_TEST(test_usual_paths)
{
	char *cause = NULL;
	ck_assert_ptr_eq(output_open("-", false, &cause), stdout);
	ck_assert_ptr_eq(output_open("/dev/stdout", false, &cause), stdout);
	ck_assert_int_eq(try_open("/dev/null", NULL), 0);
	ck_assert_int_eq(try_open(dir, "it is a directory"), -1);
}
END_TEST

/* A FIFO: refused at once while no process reads it, with errno ENXIO
 * for the caller to say that it waits (before, the open blocked forever
 * without a word); written to once a reader is there. */
START_TEST(test_fifo)
{
	char *path = xasprintf("%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	char *cause = NULL;
	errno = 0;
	ck_assert_ptr_null(output_open(path, false, &cause));
	ck_assert_int_eq(errno, ENXIO);
	ck_assert_msg(strstr(cause, "no process reads"), "%s", cause);
	free(cause);
	int rd = open(path, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	FILE *f = output_open(path, true, &cause);
	ck_assert_msg(f != NULL, "%s", cause);
	fputs("new", f);
	ck_assert_int_eq(fclose(f), 0);
	char buf[8] = "";
	ck_assert_int_eq(read(rd, buf, sizeof(buf) - 1), 3);
	ck_assert_str_eq(buf, "new");
	close(rd);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output_open");
	TCase *tc = tcase_create("open");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_file);
	tcase_add_test(tc, test_replaces_own_output);
	tcase_add_test(tc, test_refuses_foreign_file);
	tcase_add_test(tc, test_refuses_links);
	tcase_add_test(tc, test_refuses_devices_and_others_files);
	tcase_add_test(tc, test_usual_paths);
	tcase_add_test(tc, test_fifo);
	suite_add_tcase(s, tc);
	return check_run(s);
}
