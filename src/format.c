/* format.c: how pmctop writes numbers, shared by the batch table and the
 * dashboard so that both show a figure the same way. Pure functions. */
#include "config.h"
#include "format.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

bool format_is_double_fmt(const char *fmt)
{
	if (!fmt)
		return false;
	int convs = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		while (*p && strchr("-+ #0", *p))
			p++;
		int digits = 0;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
		if (digits > 2)
			return false;
		if (*p == '.') {
			p++;
			digits = 0;
			while (isdigit((unsigned char)*p)) {
				p++;
				digits++;
			}
			if (digits > 2)
				return false;
		}
		if (!*p || !strchr("eEfFgG", *p))
			return false;
		convs++;
	}
	return convs == 1;
}

const char *format_si(char *buf, size_t len, double v)
{
	static const char suffix[] = " kMGTPE";
	double a = fabs(v);
	int i = 0;
	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (a >= 999.5 && i < (int)sizeof(suffix) - 2) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	/* Three significant digits at every scale (1.23, 12.3, 123, 1.23k). */
	if (i == 0)
		snprintf(buf, len, a >= 100 || a == floor(a) ? "%.0f" : a >= 10 ? "%.1f" : "%.2f", v);
	else
		snprintf(buf, len, a >= 100 ? "%.0f%c" : a >= 10 ? "%.1f%c" : "%.2f%c", v, suffix[i]);
	return buf;
}

const char *format_value(char *buf, size_t len, double v, const char *fmt, const char *unit)
{
	char num[64];
	if (len < 1)
		return buf;
	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	bool pct = (fmt && strcmp(fmt, "pct") == 0) ||
		   (!format_is_double_fmt(fmt) && unit && strcmp(unit, "ratio") == 0);
	/* "pct" on a metric that is already in percent must not scale it
	 * again: the unit says what the number is. */
	if (pct)
		snprintf(num, sizeof(num), "%.1f", unit && strcmp(unit, "%") == 0 ? v : v * 100);
	else if (fmt && !strcmp(fmt, "si"))
		format_si(num, sizeof(num), v);
	else if (format_is_double_fmt(fmt)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(num, sizeof(num), fmt, v);
#pragma GCC diagnostic pop
	} else if (unit && (strcmp(unit, "GHz") == 0 || strstr(unit, "/cyc") || strcmp(unit, "ratio") == 0))
		snprintf(num, sizeof(num), "%.2f", v);
	else if (unit && strcmp(unit, "ns") == 0 && fabs(v) < 1e5)
		snprintf(num, sizeof(num), "%.0f", v);
	else if (unit && strcmp(unit, "%") == 0 && fabs(v) < 1e4)
		snprintf(num, sizeof(num), "%.1f", v);
	else if (v == 0)
		snprintf(num, sizeof(num), "0");
	else if (fabs(v) >= 1000 || (unit && strchr(unit, '/')) || format_unit_is_count(unit))
		format_si(num, sizeof(num), v);
	else
		snprintf(num, sizeof(num), "%.2f", v);
	snprintf(buf, len, "%s", num);
	return buf;
}

bool format_unit_is_count(const char *unit)
{
	return unit && (!strcmp(unit, "count") || !strcmp(unit, "slots"));
}

const char *format_value_unit(const char *unit)
{
	if (format_unit_is_count(unit))
		return "/s";
	return unit && *unit ? unit : "";
}

/* What a heading appends for each unit; NULL: nothing (IPC, CPI and the
 * like are ratios of two counts whose label says what they are). */
static const char *heading_suffix(const char *unit)
{
	static const struct { const char *unit, *suffix; } map[] = {
		{ "ratio", "%" }, { "%", "%" }, { "count", "/s" }, { "slots", "/s" }, { "/s", "/s" },
		{ "GHz", " GHz" }, { "ns", " ns" }, { "cyc", " cyc" }, { "cycles", " cyc" },
		{ "GB/s", " GB/s" }, { "MB/s", " MB/s" }, { "GFLOP/s", " GFLOP/s" },
		{ "/kinst", "/ki" }, { "/kinsn", "/ki" },
	};
	for (size_t i = 0; unit && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(unit, map[i].unit))
			return map[i].suffix;
	return NULL;
}

void format_heading(char *buf, size_t len, const char *label, const char *unit)
{
	const char *suf = heading_suffix(unit);
	const char *word = suf && *suf == ' ' ? suf + 1 : suf;
	/* "Br/KI" already says per kilo-instruction: no "Br/KI/ki". */
	bool per_ki = strstr(label, "PKI") || strstr(label, "pki") || strstr(label, "/KI") || strstr(label, "/ki");
	if (!suf || strstr(label, word) || (!strcmp(word, "/ki") && per_ki))
		snprintf(buf, len, "%s", label);
	else
		snprintf(buf, len, "%s%s", label, suf);
}
