/* check_user_views.c: the user's views (evdef_user.h) over the fixture
 * model: a file of views loaded beside the model's, each bad stanza
 * skipped with its file and line while the rest load; views added,
 * replaced, renamed and dropped with the name look-up kept right; what
 * is refused (a model view's name or key, no columns, changing a model
 * view); and the text written read back to the same views. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include "fixture.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evdef.h"
#include "evdef_user.h"
#include "settings.h"
#include "util.h"


static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_user_views.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static struct model *load(void)
{
	return fx_model("tests/fixtures/models/amd/zen5");
}

static char *write_views(const char *text)
{
	char *path = xasprintf("%s/views.def", dir);
	char *cause = NULL;
	ck_assert_msg(config_write_atomic(path, text, &cause) == 0, "%s", cause ? cause : "");
	return path;
}

static int metric(const struct model *m, const char *name)
{
	int i = model_find_metric(m, name);
	ck_assert_int_ge(i, 0);
	return i;
}

START_TEST(test_load_skips_bad_stanzas)
{
	struct model *m = load();
	int before = m->nviews;
	char *path = write_views("# mine\n"
				 "view mine\n\ttitle \"Mine\"\n\tkey 5\n\tcolumn ghz\n\tcolumn ipc warn=1 low_is_bad\n"
				 "\nevent not_here\n\tspec cpu/event=0x76/\n"
				 "\nview bad_metric\n\tcolumn no_such_metric\n"
				 "\nview basic\n\tcolumn ipc\n"
				 "\nview bad_key\n\tkey 1\n\tcolumn ipc\n"
				 "\nview second\n\tcolumn cpi\n");
	char *w = NULL;
	ck_assert_int_eq(model_add_user_views(m, path, &w), 2);
	ck_assert_int_eq(m->nviews, before + 2);
	ck_assert_ptr_nonnull(w);
	/* Four problems, one line each, with the file and the line. */
	int lines = 1;
	for (const char *p = w; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 4);
	char *want = xasprintf("%s:8:1: expected a view stanza", path);
	ck_assert_msg(strstr(w, want), "%s", w);
	free(want);
	want = xasprintf("%s:12:", path);
	ck_assert_msg(strstr(w, want) && strstr(w, "no_such_metric") && strstr(w, "'bad_metric' skipped"), "%s", w);
	free(want);
	ck_assert_msg(strstr(w, "duplicate name 'basic'"), "%s", w);
	ck_assert_msg(strstr(w, "key 1 is already used by view 'basic'"), "%s", w);

	int i = model_find_view(m, "mine");
	ck_assert_int_eq(i, before);
	ck_assert(m->views[i].user);
	ck_assert(!m->views[0].user);
	ck_assert_str_eq(m->views[i].title, "Mine");
	ck_assert_int_eq(m->views[i].key, 5);
	ck_assert_int_eq(m->views[i].ncols, 2);
	ck_assert_int_eq(m->views[i].cols[1].metric, metric(m, "ipc"));
	ck_assert(m->views[i].cols[1].low_is_bad);
	ck_assert_double_eq(m->views[i].cols[1].warn, 1);
	ck_assert_int_eq(model_find_view(m, "second"), before + 1);
	ck_assert_int_lt(model_find_view(m, "bad_metric"), 0);
	/* The model's own view is the model's, untouched. */
	ck_assert_int_eq(m->views[model_find_view(m, "basic")].ncols, 3);
	free(w);
	free(path);
	model_free(m);
}
END_TEST

/* 30,000 stanzas that are not views: the first 20 are described, one line
 * counts the rest, and the good view after them is still added. Before
 * the cap each warning copied all those before it: 7.5 s to start. */
START_TEST(test_many_bad_stanzas)
{
	enum { BAD = 30000 };
	struct model *m = load();
	int before = m->nviews;
	static const char bad[] = "metric m\n\tformula 1\n";
	char *text = xmalloc(BAD * (sizeof(bad) - 1) + 64);
	for (int i = 0; i < BAD; i++)
		memcpy(text + i * (sizeof(bad) - 1), bad, sizeof(bad) - 1);
	strcpy(text + BAD * (sizeof(bad) - 1), "view mine\n\tcolumn ipc\n");
	char *path = write_views(text);
	char *w = NULL;
	ck_assert_int_eq(model_add_user_views(m, path, &w), 1);
	ck_assert_int_eq(m->nviews, before + 1);
	int lines = 1;
	for (const char *c = w; *c; c++)
		lines += *c == '\n';
	ck_assert_int_eq(lines, 21);
	char *last = xasprintf("%s: %d more problems were skipped (the first 20 are above)", path, BAD - 20);
	ck_assert_str_eq(strrchr(w, '\n') + 1, last);
	ck_assert_msg(strstr(w, ":1:1: expected a view stanza"), "%.300s", w);
	free(last);
	free(w);
	free(path);
	free(text);
	model_free(m);
}
END_TEST

START_TEST(test_missing_and_broken_files)
{
	struct model *m = load();
	int before = m->nviews;
	char *w = NULL;
	char *missing = xasprintf("%s/none.def", dir);
	ck_assert_int_eq(model_add_user_views(m, missing, &w), 0);
	ck_assert_ptr_null(w);
	ck_assert_int_eq(model_add_user_views(m, NULL, &w), 0);
	ck_assert_ptr_null(w);
	/* A file that does not parse adds nothing, and says where. */
	char *path = write_views("view ok\n\tcolumn ipc\nview broken\n\tcolumn \"ipc\n");
	ck_assert_int_eq(model_add_user_views(m, path, &w), 0);
	ck_assert_int_eq(m->nviews, before);
	char *want = xasprintf("%s:4:9: expected a closing '\"' (no user views loaded)", path);
	ck_assert_str_eq(w, want);
	free(want);
	free(w);
	w = NULL;
	/* A model stanza is not the user's to write. */
	free(path);
	path = write_views("model x\n");
	ck_assert_int_eq(model_add_user_views(m, path, &w), 0);
	ck_assert_msg(w && strstr(w, ":1:1: expected pmu, event, metric or view"), "%s", w ? w : "");
	free(w);
	free(path);
	free(missing);
	model_free(m);
}
END_TEST

START_TEST(test_put_replace_drop)
{
	struct model *m = load();
	int base = m->nviews;
	struct view_col cols[2] = { { .metric = metric(m, "ghz"), .warn = NAN, .crit = NAN },
				    { .metric = metric(m, "cpi"), .warn = 2, .crit = 4 } };
	struct view_def v = { .name = "one", .title = "First", .key = 7, .ncols = 2, .cols = cols };
	char *cause = NULL;
	ck_assert_int_eq(model_put_view(m, -1, &v, &cause), base);
	ck_assert(m->views[base].user);
	ck_assert_str_eq(m->views[base].cols[0].fmt, "%.2f");
	/* The editor shows the format the file gets (it said "auto" for a
	 * column saved as fmt=pct). */
	struct view_col ratio = { .metric = metric(m, "cpu_util"), .warn = NAN, .crit = NAN };
	ck_assert_str_eq(view_col_fmt(m, &ratio), "pct");
	ck_assert_str_eq(view_col_fmt(m, &cols[0]), "%.2f");
	ratio.fmt = "%.3f";
	ck_assert_str_eq(view_col_fmt(m, &ratio), "%.3f");
	ck_assert_ptr_ne(m->views[base].cols, cols);   /* a copy */
	/* Refused: each with its reason, the model unchanged. */
	struct { struct view_def v; int replace; const char *why; } bad[] = {
		{ { .name = "basic", .ncols = 1, .cols = cols }, -1, "exists already in the model" },
		{ { .name = "two", .key = 1, .ncols = 1, .cols = cols }, -1, "key 1 is already used by view 'basic'" },
		{ { .name = "two", .key = 7, .ncols = 1, .cols = cols }, -1, "key 7 is already used by view 'one'" },
		{ { .name = "two", .ncols = 0, .cols = cols }, -1, "at least one column" },
		{ { .name = "2bad", .ncols = 1, .cols = cols }, -1, "expected a view name" },
		{ { .name = "two", .title = "say \"hi\"", .ncols = 1, .cols = cols }, -1, "expected a title" },
		{ { .name = "two", .ncols = 1, .cols = cols }, 0, "only your own views" },
		{ { .name = "one", .ncols = 1, .cols = cols }, -1, "view 'one' exists already" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_lt(model_put_view(m, bad[i].replace, &bad[i].v, &cause), 0);
		ck_assert_msg(cause && strstr(cause, bad[i].why), "%zu: %s", i, cause ? cause : "");
		free(cause);
		cause = NULL;
		ck_assert_int_eq(m->nviews, base + 1);
	}
	struct view_def two = { .name = "two", .ncols = 1, .cols = cols };
	ck_assert_int_eq(model_put_view(m, -1, &two, &cause), base + 1);
	ck_assert_str_eq(m->views[base + 1].title, "two");
	/* Replaced under a new name: the old name is gone, the new found. */
	struct view_def renamed = { .name = "uno", .title = "Renamed", .key = 7, .ncols = 1, .cols = &cols[1] };
	ck_assert_int_eq(model_put_view(m, base, &renamed, &cause), base);
	ck_assert_int_lt(model_find_view(m, "one"), 0);
	ck_assert_int_eq(model_find_view(m, "uno"), base);
	ck_assert_int_eq(m->views[base].ncols, 1);
	ck_assert_double_eq(m->views[base].cols[0].crit, 4);
	/* Dropped: the views after it move down and are still found. */
	ck_assert_int_lt(model_drop_view(m, 0), 0);
	ck_assert_int_eq(model_drop_view(m, base), 0);
	ck_assert_int_eq(m->nviews, base + 1);
	ck_assert_int_lt(model_find_view(m, "uno"), 0);
	ck_assert_int_eq(model_find_view(m, "two"), base);
	ck_assert_int_eq(model_find_view(m, "basic"), 0);
	model_free(m);
}
END_TEST

START_TEST(test_text_round_trip)
{
	struct model *m = load();
	int base = m->nviews;
	struct view_col cols[3] = {
		{ .metric = metric(m, "ipc"), .fmt = "%.3f", .width = 9, .warn = 0.1 + 0.2, .crit = NAN, .low_is_bad = true },
		{ .metric = metric(m, "cpu_util"), .warn = NAN, .crit = 1e-7 },
		{ .metric = metric(m, "l3_per_kinsn"), .fmt = "%#.1f", .warn = NAN, .crit = NAN },
	};
	int bar[1] = { metric(m, "cpu_util") };
	struct view_def a = { .name = "a_view", .title = "My # view, with 'quotes'", .key = 4, .ncols = 3, .cols = cols,
			      .nbar = 1, .bar = bar };
	struct view_def b = { .name = "b.view", .ncols = 1, .cols = cols };
	char *cause = NULL;
	ck_assert_int_ge(model_put_view(m, -1, &a, &cause), 0);
	ck_assert_int_ge(model_put_view(m, -1, &b, &cause), 0);
	char *text = model_user_views_text(m);
	ck_assert_ptr_null(strstr(text, "view basic"));  /* the model's views are not the user's */
	char *path = write_views(text);
	struct model *m2 = load();
	char *w = NULL;
	ck_assert_int_eq(model_add_user_views(m2, path, &w), 2);
	ck_assert_msg(w == NULL, "%s\n%s", w, text);
	ck_assert_int_eq(m2->nviews, m->nviews);
	for (int i = base; i < m->nviews; i++) {
		const struct view_def *x = &m->views[i], *y = &m2->views[i];
		ck_assert_str_eq(x->name, y->name);
		ck_assert_str_eq(x->title, y->title);
		ck_assert_int_eq(x->key, y->key);
		ck_assert_int_eq(x->nbar, y->nbar);
		for (int j = 0; j < x->nbar; j++)
			ck_assert_int_eq(x->bar[j], y->bar[j]);
		ck_assert_int_eq(x->ncols, y->ncols);
		for (int j = 0; j < x->ncols; j++) {
			const struct view_col *p = &x->cols[j], *q = &y->cols[j];
			ck_assert_int_eq(p->metric, q->metric);
			ck_assert_int_eq(p->width, q->width);
			ck_assert_int_eq(p->low_is_bad, q->low_is_bad);
			ck_assert(isnan(p->warn) ? isnan(q->warn) : p->warn == q->warn);
			ck_assert(isnan(p->crit) ? isnan(q->crit) : p->crit == q->crit);
			/* A format that would not read back as one word falls back
			 * to the metric's default, as in a new column. */
			if (strchr(p->fmt, '#'))
				ck_assert_str_eq(q->fmt, "%.2f");
			else
				ck_assert_str_eq(p->fmt, q->fmt);
		}
	}
	free(text);
	free(path);
	model_free(m2);
	model_free(m);
}
END_TEST

/* A title read with quotes inside it (found by fuzz_views) is written
 * back so that it reads as the same title. */
START_TEST(test_quoted_title_round_trip)
{
	struct model *m = load();
	char *path = write_views("view q\n\ttitle say \"hi # there\" now\n\tcolumn ipc\n");
	char *w = NULL;
	ck_assert_int_eq(model_add_user_views(m, path, &w), 1);
	ck_assert_str_eq(m->views[model_find_view(m, "q")].title, "say \"hi # there\" now");
	char *text = model_user_views_text(m);
	free(path);
	path = write_views(text);
	struct model *m2 = load();
	ck_assert_int_eq(model_add_user_views(m2, path, &w), 1);
	ck_assert_ptr_null(w);
	ck_assert_str_eq(m2->views[model_find_view(m2, "q")].title, "say \"hi # there\" now");
	free(text);
	free(path);
	model_free(m2);
	model_free(m);
}
END_TEST

/* A view of rows tasks: saved with its rows, read back as one, and
 * refused (by the editor and in a file) where a column cannot be split by
 * task. */
START_TEST(test_tasks_view)
{
	struct model *m = load();
	struct view_col ok[1] = { { .metric = metric(m, "ipc"), .warn = NAN, .crit = NAN } };
	struct view_col bad[1] = { { .metric = metric(m, "cpu_util"), .warn = NAN, .crit = NAN } };
	struct view_def t = { .name = "my_tasks", .ncols = 1, .cols = ok, .tasks = true };
	struct view_def u = { .name = "bad_tasks", .ncols = 1, .cols = bad, .tasks = true };
	char *cause = NULL;
	ck_assert_int_ge(model_put_view(m, -1, &t, &cause), 0);
	ck_assert_int_lt(model_put_view(m, -1, &u, &cause), 0);
	ck_assert_ptr_nonnull(strstr(cause, "cannot be split by task"));
	free(cause);
	char *text = model_user_views_text(m);
	ck_assert_ptr_nonnull(strstr(text, "rows tasks"));
	char *path = write_views(text);
	struct model *m2 = load();
	char *w = NULL;
	ck_assert_int_eq(model_add_user_views(m2, path, &w), 1);
	ck_assert(m2->views[model_find_view(m2, "my_tasks")].tasks);
	free(path);
	path = write_views("view t2\n\trows tasks\n\tcolumn cpu_util\nview t3\n\trows threads\n\tcolumn ipc\n");
	struct model *m3 = load();
	ck_assert_int_eq(model_add_user_views(m3, path, &w), 0);
	ck_assert_ptr_nonnull(w);
	ck_assert_msg(strstr(w, "views.def:3:") && strstr(w, "in a view of rows tasks"), "%s", w);
	ck_assert_msg(strstr(w, "expected rows cpus or rows tasks but found 'threads'"), "%s", w);
	free(w);
	free(text);
	free(path);
	model_free(m3);
	model_free(m2);
	model_free(m);
}
END_TEST

START_TEST(test_path)
{
	struct model *m = load();
	setenv("XDG_CONFIG_HOME", "/x/conf", 1);
	char *p = user_views_path(m);
	char *want = xasprintf("/x/conf/pmctop/views/%s.def", m->name);
	ck_assert_str_eq(p, want);
	free(p);
	free(want);
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", "/home/u", 1);
	p = user_views_path(m);
	want = xasprintf("/home/u/.config/pmctop/views/%s.def", m->name);
	ck_assert_str_eq(p, want);
	free(p);
	free(want);
	model_free(m);
}
END_TEST

/* Root (sudo -E) or a privileged pmctop reads no view file of another
 * user's: a symlink (to a file whose first line is a secret) and a file
 * of another uid (as root) add no view, and the warning names the file
 * and quotes none of it. The rule is forced on so that any user can run
 * this. */
START_TEST(test_other_users_views)
{
	user_files_force_rule(true);
	struct model *m = load();
	int before = m->nviews;
	char *secret = xasprintf("%s/shadow", dir);
	FILE *f = fopen(secret, "w");
	ck_assert_ptr_nonnull(f);
	fputs("secretuser1:$6$salt1$HASHVALUE1:19000:0:99999:7:::\n", f);
	fclose(f);
	char *link = xasprintf("%s/zen5.def", dir);
	ck_assert_int_eq(symlink(secret, link), 0);
	char *w = NULL;
	ck_assert_int_eq(model_add_user_views(m, link, &w), 0);
	ck_assert_msg(w && strstr(w, "zen5.def: not read: it is a symbolic link"), "%s", w ? w : "(none)");
	ck_assert_msg(!strstr(w, "secretuser1"), "%s", w);
	free(w);
	w = NULL;
	char *path = write_views("view mine\n\tcolumn ipc\n");
	ck_assert_int_eq(model_add_user_views(m, path, &w), 1);
	ck_assert_ptr_null(w);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(model_add_user_views(m, path, &w), 0);
		ck_assert_msg(w && strstr(w, "views.def: not read: it belongs to another user"), "%s", w ? w : "(none)");
		ck_assert_msg(!strstr(w, "mine"), "%s", w);
		free(w);
		w = NULL;
	}
	ck_assert_int_eq(m->nviews, before + 1);
	user_files_force_rule(false);
	free(path);
	free(link);
	free(secret);
	model_free(m);
}
END_TEST

static Suite *user_views_suite(void)
{
	Suite *s = suite_create("user_views");
	TCase *tc = tcase_create("user_views");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_load_skips_bad_stanzas);
	tcase_add_test(tc, test_missing_and_broken_files);
	tcase_add_test(tc, test_many_bad_stanzas);
	tcase_add_test(tc, test_put_replace_drop);
	tcase_add_test(tc, test_text_round_trip);
	tcase_add_test(tc, test_quoted_title_round_trip);
	tcase_add_test(tc, test_tasks_view);
	tcase_add_test(tc, test_path);
	tcase_add_test(tc, test_other_users_views);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(user_views_suite());
}
