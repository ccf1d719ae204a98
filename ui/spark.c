/* spark.c: sparklines and multi-line history graphs rendered to strings
 * (spark.h). Pure functions of their arguments but for the locale test. */
#include "config.h"
#include "spark.h"

#include <langinfo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "format.h"

bool spark_utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

bool spark_term_blocks(const char *term)
{
	static const char *const plain[] = { "linux", "vt1", "vt2", "vt3", "vt4", "vt5", "cons", "dumb", "pcansi" };
	if (!term || !*term)
		return true;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strncmp(term, plain[i], strlen(plain[i])))
			return false;
	return true;
}

bool spark_range(const double *v, int n, double *lo, double *hi)
{
	bool any = false;
	*lo = *hi = NAN;
	for (int i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (!any || v[i] < *lo)
			*lo = v[i];
		if (!any || v[i] > *hi)
			*hi = v[i];
		any = true;
	}
	return any;
}

/* The height of v in eighths of a cell, 1..8*rows (0: no value). The
 * lowest value keeps one eighth so that only a gap is blank. */
static int eighths(double v, double lo, double hi, int rows)
{
	int top = 8 * rows;
	if (!isfinite(v) || isnan(lo) || isnan(hi))
		return 0;
	if (!(hi > lo))
		return top / 2 > 0 ? top / 2 : 1;
	double f = (v - lo) / (hi - lo);
	int e = 1 + (int)lround(f * (top - 1));
	return e < 1 ? 1 : e > top ? top : e;
}

int spark_graph_row(char *buf, size_t len, const double *v, int n, int width, double lo, double hi,
		    int rows, int row, bool utf8)
{
	static const char ascii[] = "_.-:=+*#";
	size_t used = 0;
	int cells = 0;
	if (len < 1)
		return 0;
	buf[0] = 0;
	if (rows < 1 || row < 0 || row >= rows || width < 1 || n < 0)
		return 0;
	/* The newest width values; a shorter series is padded on the left. */
	int first = n - width;
	for (int i = first; i < n; i++) {
		int fill = 0;
		if (i >= 0) {
			fill = eighths(v[i], lo, hi, rows) - 8 * (rows - 1 - row);
			fill = fill < 0 ? 0 : fill > 8 ? 8 : fill;
		}
		char cell[SPARK_CELL_MAX + 1] = " ";
		if (fill > 0 && utf8) {
			/* U+2581 + fill - 1: E2 96 81..88. */
			cell[0] = (char)0xe2;
			cell[1] = (char)0x96;
			cell[2] = (char)(0x80 + fill);
			cell[3] = 0;
		} else if (fill > 0) {
			cell[0] = ascii[fill - 1];
		}
		size_t cl = strlen(cell);
		if (used + cl >= len)
			break;
		memcpy(buf + used, cell, cl);
		used += cl;
		cells++;
	}
	buf[used] = 0;
	return cells;
}

int spark_line(char *buf, size_t len, const double *v, int n, int width, double lo, double hi, bool utf8)
{
	return spark_graph_row(buf, len, v, n, width, lo, hi, 1, 0, utf8);
}

void spark_scale_text(char *buf, size_t len, double lo, double hi, const char *fmt, const char *unit)
{
	char a[32], b[32];
	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, len, "no data");
		return;
	}
	format_value(a, sizeof(a), lo, fmt, unit);
	format_value(b, sizeof(b), hi, fmt, unit);
	/* Bounds that differ must read differently: "68..68" beside a graph
	 * that moves says it does not. More decimals until they differ, for
	 * the plain numbers (a G or M suffix already keeps three digits). */
	bool pct = (fmt && !strcmp(fmt, "pct")) || (unit && !strcmp(unit, "ratio"));
	double k = pct && !(unit && !strcmp(unit, "%")) ? 100 : 1;
	for (int d = 1; d <= 4 && hi > lo && !strcmp(a, b) && fabs(hi * k) < 1000; d++) {
		snprintf(a, sizeof(a), "%.*f", d, lo * k);
		snprintf(b, sizeof(b), "%.*f", d, hi * k);
	}
	snprintf(buf, len, "%s..%s", a, b);
}
