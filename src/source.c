/* source.c: the source interface's wrappers (source.h): each calls the
 * source's operation, or does what its absence means. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include "source.h"
#include "hot_path.h"

void source_free(struct source *src)
{
	if (!src)
		return;
	if (src->ops->free)
		src->ops->free(src->ctx);
	free(src);
}

double source_interval(const struct source *src)
{
	double s = src->ops->interval ? src->ops->interval(src->ctx) : 0;
	return s > 0 ? s : 1;
}

const char *source_first_notice(const struct source *src)
{
	return src->ops->first_notice ? src->ops->first_notice(src->ctx) : NULL;
}

HOT_PATH struct snapshot *source_next(const struct source *src, enum source_got *got, char **cause)
{
	if (!src->ops->next) {
		*got = SOURCE_END;
		return NULL;
	}
	return src->ops->next(src->ctx, got, cause);
}

HOT_PATH void source_say_news(const struct source *src, const struct snapshot *snap)
{
	if (src->ops->say_news)
		src->ops->say_news(src->ctx, snap);
}

int source_finish(const struct source *src)
{
	return src->ops->finish ? src->ops->finish(src->ctx) : 0;
}

int source_start(const struct source *src, struct snap_ring *ring, const struct source_sink *sink, char **cause)
{
	return src->ops->start ? src->ops->start(src->ctx, ring, sink, cause) : 0;
}

void source_stop(const struct source *src)
{
	if (src->ops->stop)
		src->ops->stop(src->ctx);
}

struct snapshot *source_poll(const struct source *src, double now)
{
	return src->ops->poll ? src->ops->poll(src->ctx, now) : NULL;
}

bool source_request(const struct source *src, int nmetrics, const int *metrics, int npinned, const int *pinned,
		    int nevents, const int *events)
{
	return src->ops->request ? src->ops->request(src->ctx, nmetrics, metrics, npinned, pinned, nevents, events)
				 : false;
}

const char *source_request_tasks(const struct source *src, int nmetrics, const int *metrics)
{
	return src->ops->request_tasks ? src->ops->request_tasks(src->ctx, nmetrics, metrics) : NULL;
}

void source_set_interval(const struct source *src, double seconds)
{
	if (src->ops->set_interval)
		src->ops->set_interval(src->ctx, seconds);
}

void source_pause(const struct source *src, bool paused)
{
	if (src->ops->pause)
		src->ops->pause(src->ctx, paused);
}

void source_hint_rows(const struct source *src, const struct derive_want *want)
{
	if (src->ops->hint_rows)
		src->ops->hint_rows(src->ctx, want);
}

bool source_seeks(const struct source *src)
{
	return src->ops->position && src->ops->seek;
}

int source_position(const struct source *src, int *count)
{
	if (!src->ops->position) {
		*count = 0;
		return -1;
	}
	return src->ops->position(src->ctx, count);
}

double source_time_at(const struct source *src, int i)
{
	return src->ops->time_at ? src->ops->time_at(src->ctx, i) : NAN;
}

int source_find_time(const struct source *src, double t)
{
	int n;
	if (src->ops->find_time)
		return src->ops->find_time(src->ctx, t);
	source_position(src, &n);
	return n;
}

void source_seek(const struct source *src, int i)
{
	if (src->ops->seek)
		src->ops->seek(src->ctx, i);
}

const char *source_status(const struct source *src, char *buf, int len)
{
	return src->ops->status ? src->ops->status(src->ctx, buf, len) : NULL;
}

const char *source_why_missing(const struct source *src, int mi, char *buf, int len)
{
	return src->ops->why_missing ? src->ops->why_missing(src->ctx, mi, buf, len) : NULL;
}

long source_count(const struct source *src, long shown, const struct snapshot *last)
{
	return src->ops->count ? src->ops->count(src->ctx, shown, last) : shown;
}

bool source_drills(const struct source *src)
{
	return src->ops->drill != NULL;
}

void source_drill(const struct source *src, const char *name)
{
	if (src->ops->drill)
		src->ops->drill(src->ctx, name);
}
