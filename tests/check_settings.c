/* check_settings.c: pmctoprc: the path from XDG_CONFIG_HOME or HOME, every
 * setting read back as written, each bad line skipped with a warning that
 * names the file and line (and never stops the rest), files that are not
 * settings (a FIFO, a directory, too large, NUL or escape bytes), and the
 * atomic write: the directory made, mode 0600, no temporary left, a planted
 * symlink replaced rather than followed. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"
#include "util.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_settings.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static char *write_text(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fwrite(text, 1, strlen(text), f);
	fclose(f);
	return p;
}

START_TEST(test_path)
{
	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	setenv("HOME", "/home/u", 1);
	char *p = settings_path();
	ck_assert_str_eq(p, "/x/conf/pmctop/pmctoprc");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative", 1);   /* not absolute: ignored, as the spec says */
	p = settings_path();
	ck_assert_str_eq(p, "/home/u/.config/pmctop/pmctoprc");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	ck_assert_ptr_null(settings_path());
}
END_TEST

START_TEST(test_round_trip)
{
	struct settings s = { .has_interval = true, .interval_s = 2.5, .has_view = true, .view = xstrdup("topdown"),
			      .has_colors = true, .colors = COLORS_LIGHT, .has_rows = true, .rows = 2,
			      .has_ccx = true, .show_ccx = false, .has_errors = true, .show_errors = true,
			      .has_sort = true, .sort = xstrdup("ipc"), .sort_reverse = true };
	char *path = xasprintf("%s/new/deeper/pmctoprc", dir);
	char *cause = NULL;
	ck_assert_msg(settings_save(path, &s, &cause) == 0, "%s", cause ? cause : "");
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	char *d = xasprintf("%s/new/deeper", dir);
	ck_assert_int_eq(stat(d, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	/* Nothing but the file itself is left in the directory. */
	DIR *dh = opendir(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(dh));)
		n += e->d_name[0] != '.';
	closedir(dh);
	ck_assert_int_eq(n, 1);
	struct settings r;
	char *warn = NULL;
	ck_assert_int_eq(settings_load(path, &r, &warn), 0);
	ck_assert_msg(warn == NULL, "%s", warn);
	ck_assert(r.has_interval && r.interval_s == 2.5);
	ck_assert(r.has_view && !strcmp(r.view, "topdown"));
	ck_assert(r.has_colors && r.colors == COLORS_LIGHT);
	ck_assert(r.has_rows && r.rows == 2);
	ck_assert(r.has_ccx && !r.show_ccx);
	ck_assert(r.has_errors && r.show_errors);
	ck_assert(r.has_sort && !strcmp(r.sort, "ipc") && r.sort_reverse);
	settings_free(&r);
	settings_free(&s);
	free(d);
	free(path);
}
END_TEST

START_TEST(test_bad_lines)
{
	char *p = write_text("rc", "# comment\n"
				   "delay 0.001\n"                 /* 2: out of range */
				   "view top down\n"               /* 3: not a name */
				   "colors purple\n"               /* 4 */
				   "rows thread   # a comment\n"   /* 5 */
				   "ccx_panels maybe\n"            /* 6 */
				   "frobnicate 1\n"                /* 7 */
				   "sort ipc backwards\n"          /* 8 */
				   "delay\n"                       /* 9: no value */
				   "view \033]0;pwned\007\n"       /* 10: escapes */
				   "  delay 3   \n"                 /* 11: good */
				   "uncertainty yes\n");           /* 12: good */
	struct settings s;
	char *w = NULL;
	ck_assert_int_eq(settings_load(p, &s, &w), 0);
	ck_assert_ptr_nonnull(w);
	static const char *const want[] = {
		":2: expected a delay in seconds from 0.01 to 86400 but found '0.001'",
		":3: expected a view name but found 'top down'",
		":4: expected default, mono or light but found 'purple'",
		":5: expected cpu, core, ccx or socket but found 'thread'",
		":6: expected yes or no but found 'maybe'",
		":7: unknown setting 'frobnicate'",
		":8: expected 'reverse' or nothing after the sort column but found 'backwards'",
		":9: expected a value after 'delay'",
		":10: expected printable text",
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		char *full = xasprintf("%s%s", p, want[i]);
		ck_assert_msg(strstr(w, full), "no '%s' in:\n%s", full, w);
		free(full);
	}
	ck_assert_msg(!strchr(w, '\033'), "an escape reached the warnings");
	/* The good lines still count. */
	ck_assert(s.has_interval && s.interval_s == 3);
	ck_assert(s.has_errors && s.show_errors);
	ck_assert(!s.has_view && !s.has_colors && !s.has_rows && !s.has_ccx && !s.has_sort);
	settings_free(&s);
	free(w);
	free(p);
}
END_TEST

/* A file of nothing but bad lines, as large as a settings file may be:
 * the first 20 are described, the rest counted in one line, and a good
 * line after them still counts. Before the cap, 30,000 warnings each
 * copied all those before it: minutes of loading. */
START_TEST(test_many_bad_lines)
{
	enum { BAD = 30000 };
	char *text = xmalloc(BAD * 2 + 16);
	for (int i = 0; i < BAD; i++)
		memcpy(text + 2 * i, "x\n", 2);
	strcpy(text + 2 * BAD, "delay 2\n");
	char *p = write_text("rc", text);
	struct settings s;
	char *w = NULL;
	ck_assert_int_eq(settings_load(p, &s, &w), 0);
	ck_assert_ptr_nonnull(w);
	int lines = 1;
	for (const char *c = w; *c; c++)
		lines += *c == '\n';
	ck_assert_int_eq(lines, 21);
	char *first = xasprintf("%s:1: expected a value after 'x'", p);
	char *twentieth = xasprintf("%s:20: expected a value after 'x'", p);
	char *last = xasprintf("%s: %d more problems were skipped (the first 20 are above)", p, BAD - 20);
	ck_assert_msg(strncmp(w, first, strlen(first)) == 0, "first line of:\n%.200s", w);
	ck_assert_msg(strstr(w, twentieth) && !strstr(w, ":21:"), "not the first 20 in:\n%s", w);
	ck_assert_str_eq(strrchr(w, '\n') + 1, last);
	ck_assert(s.has_interval && s.interval_s == 2);
	settings_free(&s);
	free(first);
	free(twentieth);
	free(last);
	free(w);
	free(p);
	free(text);
}
END_TEST

START_TEST(test_not_settings)
{
	struct settings s;
	char *w = NULL;
	/* Missing: no settings, no warning. */
	char *missing = xasprintf("%s/none/pmctoprc", dir);
	ck_assert_int_eq(settings_load(missing, &s, &w), 0);
	ck_assert_ptr_null(w);
	free(missing);
	/* A FIFO must not hang the start. */
	char *fifo = xasprintf("%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(settings_load(fifo, &s, &w), -1);
	ck_assert_ptr_nonnull(strstr(w, "expected a regular file"));
	free(w);
	free(fifo);
	/* A directory. */
	ck_assert_int_eq(settings_load(dir, &s, &w), -1);
	free(w);
	/* Too large. */
	char *big = xmalloc(70000);
	memset(big, '#', 69999);
	big[69999] = 0;
	char *p = write_text("big", big);
	ck_assert_int_eq(settings_load(p, &s, &w), -1);
	ck_assert_ptr_nonnull(strstr(w, "more than"));
	free(w);
	free(p);
	free(big);
	/* A NUL byte. */
	p = xasprintf("%s/nul", dir);
	FILE *f = fopen(p, "w");
	fwrite("delay 2\n\0view x\n", 1, 16, f);
	fclose(f);
	ck_assert_int_eq(settings_load(p, &s, &w), 0);
	ck_assert_ptr_nonnull(strstr(w, "NUL"));
	ck_assert(s.has_interval && s.interval_s == 2);
	settings_free(&s);
	free(w);
	free(p);
}
END_TEST

START_TEST(test_symlink_replaced)
{
	/* A symlink planted where the settings go is replaced, and the file
	 * it pointed at is left as it was. */
	char *victim = write_text("victim", "precious\n");
	char *path = xasprintf("%s/pmctoprc", dir);
	ck_assert_int_eq(symlink(victim, path), 0);
	struct settings s = { .has_interval = true, .interval_s = 4 };
	char *cause = NULL;
	ck_assert_msg(settings_save(path, &s, &cause) == 0, "%s", cause ? cause : "");
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	char *text = read_text_file(victim);
	ck_assert_ptr_nonnull(strstr(text, "precious"));
	ck_assert_ptr_null(strstr(text, "delay"));
	free(text);
	free(victim);
	free(path);
}
END_TEST

/* Root (sudo -E) or a privileged pmctop reads none of another user's
 * files: a symlink (to a file holding a secret), a file of another uid
 * (as root: chown to 65534), one in a directory of another uid, and one
 * others may write are refused with a warning that names the file and
 * quotes none of it. The rule is forced on, so that any user can run this;
 * the other uid's cases need root to chown and are passed over otherwise. */
static void refused(const char *path, const char *named, const char *why)
{
	struct settings s;
	char *w = NULL;
	ck_assert_int_eq(settings_load(path, &s, &w), -1);
	ck_assert_msg(w && strstr(w, named) && strstr(w, "not read: it ") && strstr(w, why), "%s", w ? w : "(none)");
	ck_assert_msg(!strstr(w, "secretuser1") && !strstr(w, "HASH"), "%s", w);
	ck_assert(!s.has_interval);
	settings_free(&s);
	free(w);
}

START_TEST(test_other_users_files)
{
	user_files_force_rule(true);
	char *secret = write_text("shadow", "secretuser1:$6$salt1$HASHVALUE1:19000:0:99999:7:::\n");
	char *mine = write_text("pmctoprc", "delay 2\n");
	struct settings s;
	char *w = NULL;
	ck_assert_int_eq(settings_load(mine, &s, &w), 0);
	ck_assert_ptr_null(w);
	ck_assert(s.has_interval && s.interval_s == 2);
	settings_free(&s);

	char *link = xasprintf("%s/linked", dir);
	ck_assert_int_eq(symlink(secret, link), 0);
	refused(link, link, "is a symbolic link");
	ck_assert_int_eq(chmod(mine, 0666), 0);
	refused(mine, mine, "may be written by other users");
	ck_assert_int_eq(chmod(mine, 0644), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(mine, 65534, 65534), 0);
		refused(mine, mine, "belongs to another user");
		ck_assert_int_eq(chown(mine, 0, 0), 0);
		ck_assert_int_eq(chown(dir, 65534, 65534), 0);
		refused(mine, dir, "belongs to another user");
		ck_assert_int_eq(chown(dir, 0, 0), 0);
	}
	/* Without privilege the user's own symlink is followed as before. */
	user_files_force_rule(false);
	if (!user_files_privileged()) {
		char *w2 = NULL;
		ck_assert_int_eq(settings_load(link, &s, &w2), 0);
		settings_free(&s);
		free(w2);
	}
	free(link);
	free(mine);
	free(secret);
}
END_TEST

static Suite *settings_suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("settings");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_path);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_bad_lines);
	tcase_add_test(tc, test_many_bad_lines);
	tcase_add_test(tc, test_not_settings);
	tcase_add_test(tc, test_symlink_replaced);
	tcase_add_test(tc, test_other_users_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(settings_suite());
}
