/* output_fields.c: what the batch writers (output_table.c, output_csv.c,
 * output_json.c) share: a field's name and value as printed, a row's
 * coverage, an event's rate, the clock of an interval, how many task rows
 * to write, the line buffer a writer builds a row in, a JSON string. A
 * leaf below the writers, so that output.c calls them and none of them
 * calls back up. */
#include "config.h"
#include "output_impl.h"
#include "format.h"
#include "util.h"
#include "hot_path.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

HOT_PATH char *output_put_int(char *p, long v)
{
	char d[24];
	size_t n = sizeof(d);
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do {
		d[--n] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[--n] = '-';
	memcpy(p, d + n, sizeof(d) - n);
	return p + (sizeof(d) - n);
}

HOT_PATH void output_format_value(const struct metric_def *md, const char *fmt, double v, char *buf, size_t n)
{
	format_value(buf, n, v, fmt, md ? md->unit : NULL);
}

void output_metric_heading(const struct metric_def *md, char *buf, size_t n)
{
	format_heading(buf, n, md->label ? md->label : md->name, md->unit);
	/* Labels come from definition files: nothing raw reaches a terminal. */
	text_sanitize_inplace(buf);
}

void output_field_name(const struct output *o, const struct model *m, int col, char *buf, size_t n)
{
	if (col < o->o.ncols)
		snprintf(buf, n, "%s", m->metrics[o->cols[col]].name);
	else
		snprintf(buf, n, "%s_per_s", m->events[o->evcols[col - o->o.ncols]].name);
}

double output_row_coverage(const struct output *o, const struct snapshot *s, const struct snap_row *r)
{
	double low = NAN;
	/* Only figures that are shown count: a "-" already says "not measured". */
	for (int i = 0; i < o->o.ncols; i++) {
		double c = snap_metric_cov(s, r, o->cols[i]);
		if (!isnan(snap_metric(s, r, o->cols[i])) && !isnan(c) && (isnan(low) || c < low))
			low = c;
	}
	for (int i = 0; i < o->o.nevcols; i++) {
		double c = snap_event_cov(s, r, o->evcols[i]);
		if (!isnan(snap_event(s, r, o->evcols[i])) && !isnan(c) && (isnan(low) || c < low))
			low = c;
	}
	return low;
}

HOT_PATH int *output_cols(struct output *o, const struct snapshot *s)
{
	int n = o->o.ncols + o->o.nevcols;
	if (!o->tcol)
		o->tcol = xmalloc(sizeof(int) * ((size_t)n + 1));
	for (int i = 0; i < n; i++)
		o->tcol[i] = i < o->o.ncols ? snap_mcol(s, o->cols[i]) : snap_ecol(s, o->evcols[i - o->o.ncols]);
	return o->tcol;
}

double output_event_rate(const struct snapshot *s, const struct snap_row *r, int ev)
{
	if (s->measured_s <= 0)
		return NAN;
	return snap_event(s, r, ev) / s->measured_s;
}

/* localtime_r of sec, from the last one's while sec is in the same
 * local minute (localtime_r was a tenth of a table interval's writing).
 * A zone's offset changes at a minute's start, 02:00 or the like; kept
 * to offsets of whole minutes besides, where the minute is the same
 * before and after any change. */
static void local_tm(time_t sec, struct tm *tm)
{
	static _Thread_local time_t last = -1;
	static _Thread_local struct tm last_tm;
	if (last >= 0 && sec >= last && sec - last < 60 - last_tm.tm_sec && last_tm.tm_gmtoff % 60 == 0) {
		*tm = last_tm;
		tm->tm_sec += (int)(sec - last);
		return;
	}
	last = localtime_r(&sec, tm) ? sec : -1;
	last_tm = *tm;
}

HOT_PATH void output_clock(double t, char *buf, size_t n)
{
	time_t sec = (time_t)t;
	struct tm tm;
	local_tm(sec, &tm);
	/* "%02d:%02d:%02d.%03d" by hand, once per interval: snprintf
	 * was a tenth of a small table's work. */
	int f[4] = { tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((t - (double)sec) * 1000.0) };
	if (n < 13 || f[0] < 0 || f[0] > 99 || f[1] < 0 || f[1] > 99 || f[2] < 0 || f[2] > 99 || f[3] < 0 ||
	    f[3] > 999) {
		snprintf(buf, n, "%02d:%02d:%02d.%03d", f[0], f[1], f[2], f[3]);
		return;
	}
	for (int i = 0; i < 3; i++) {
		buf[3 * i] = (char)('0' + f[i] / 10);
		buf[3 * i + 1] = (char)('0' + f[i] % 10);
		buf[3 * i + 2] = i < 2 ? ':' : '.';
	}
	buf[9] = (char)('0' + f[3] / 100);
	buf[10] = (char)('0' + f[3] / 10 % 10);
	buf[11] = (char)('0' + f[3] % 10);
	buf[12] = '\0';
}

int output_task_rows(const struct output *o, int n)
{
	return o->o.top > 0 && o->o.top < n ? o->o.top : n;
}

/* The writer's line buffer with room for need bytes: a row is put
 * together there and written at once. */
HOT_PATH char *output_line(struct output *o, size_t need)
{
	if (need > o->line_cap) {
		free(o->line);
		o->line_cap = need + need / 2;
		o->line = xmalloc(o->line_cap);
	}
	return o->line;
}

void json_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	/* Each run of characters that need no escape in one call: a notice
	 * of several lines had every character after its first newline put
	 * one at a time. */
	while (s && *s) {
		size_t plain = 0;
		while (s[plain] && s[plain] != '"' && s[plain] != '\\' && (unsigned char)s[plain] >= 0x20)
			plain++;
		if (plain) {
			fwrite(s, 1, plain, f);
			s += plain;
		}
		unsigned char c = (unsigned char)*s;
		if (!c)
			break;
		/* "\\%c" of a quote or backslash, else "\\u%04x", by hand. */
		char e[6] = { '\\', (char)c, 0 };
		size_t elen = 2;
		if (c != '"' && c != '\\') {
			memcpy(e, "\\u00", 4);
			e[4] = "0123456789abcdef"[c >> 4];
			e[5] = "0123456789abcdef"[c & 15];
			elen = 6;
		}
		fwrite(e, 1, elen, f);
		s++;
	}
	fputc('"', f);
}
