/* fuzz_views.c: libFuzzer harness for the user's views file (evdef_user.h).
 * The input is written as the file and loaded into the Zen 5 model (loaded
 * once); whatever it holds: no crash; every warning is one line naming the
 * file, without control bytes; every view added is marked the user's; the
 * model's own views are untouched; and the views written back as text load
 * again into the same views with no warning. The user's views are then
 * removed, so that every input starts from the model alone. The files live
 * in a private directory removed at exit. Build: see docs/fuzzing.md. */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evdef.h"
#include "evdef_user.h"
#include "settings.h"
#include "util.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct model *model;
static int model_views;

static void drop_user_views(void)
{
	for (int i = model->nviews - 1; i >= 0; i--)
		if (model->views[i].user && model_drop_view(model, i) != 0)
			abort();
}

static void copy_view(struct view_def *d, const struct view_def *v)
{
	*d = (struct view_def){ .name = xstrdup(v->name), .title = xstrdup(v->title), .key = v->key,
				.ncols = v->ncols, .nbar = v->nbar };
	d->cols = xcalloc((size_t)v->ncols + 1, sizeof(*d->cols));
	for (int j = 0; j < v->ncols; j++) {
		d->cols[j] = v->cols[j];
		d->cols[j].fmt = NULL;
	}
	d->bar = xcalloc((size_t)v->nbar + 1, sizeof(int));
	if (v->nbar > 0)
		memcpy(d->bar, v->bar, sizeof(int) * (size_t)v->nbar);
}

static bool same_view(const struct view_def *a, const struct view_def *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->title, b->title) || a->key != b->key || a->ncols != b->ncols ||
	    a->nbar != b->nbar)
		return false;
	for (int j = 0; j < a->nbar; j++)
		if (a->bar[j] != b->bar[j])
			return false;
	for (int j = 0; j < a->ncols; j++) {
		const struct view_col *p = &a->cols[j], *q = &b->cols[j];
		if (p->metric != q->metric || p->width != q->width || p->low_is_bad != q->low_is_bad)
			return false;
		if ((isfinite(p->warn) && p->warn != q->warn) || (isfinite(p->crit) && p->crit != q->crit))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 17)
		return 0;
	if (!model) {
		char *cause = NULL;
		model = model_load_by_name(FUZZ_EVENTS_DIR, "amd-zen5", &cause);
		if (!model)
			abort();
		model_views = model->nviews;
	}
	const char *dir = fuzz_tmp("pmctop-fuzz-views");
	fuzz_write(dir, "views.def", (const char *)data, size);
	char *path = xasprintf("%s/views.def", dir);
	char *warn = NULL;
	int added = model_add_user_views(model, path, &warn);
	if (added < 0 || model->nviews != model_views + added)
		abort();
	for (int i = 0; i < model->nviews; i++)
		if (model->views[i].user != (i >= model_views) || model_find_view(model, model->views[i].name) != i)
			abort();
	/* One warning a line, each "PATH:LINE:COL: ..." without control bytes. */
	fuzz_check_warnings(warn, path);
	if (added > 0) {
		/* Written back, dropped, read again: the same views (but for
		 * a format that the text cannot hold as one word, which falls
		 * back to the metric's default). */
		struct view_def *before = xcalloc((size_t)added, sizeof(*before));
		for (int i = 0; i < added; i++)
			copy_view(&before[i], &model->views[model_views + i]);
		char *text = model_user_views_text(model);
		char *saved = xasprintf("%s/saved.def", dir), *cause = NULL;
		if (config_write_atomic(saved, text, &cause) != 0)
			abort();
		drop_user_views();
		warn = NULL;
		if (model_add_user_views(model, saved, &warn) != added || warn)
			abort();
		for (int i = 0; i < added; i++) {
			if (!same_view(&before[i], &model->views[model_views + i]))
				abort();
			view_def_clear(&before[i]);
		}
		free(before);
		free(text);
		free(saved);
	}
	drop_user_views();
	if (model->nviews != model_views)
		abort();
	free(path);
	return 0;
}
