/* fmt.h: how the dashboard writes numbers, and other pure text helpers
 * (row filters, event search). No curses, tested on their own. */
#ifndef PMCTOP_UI_FMT_H
#define PMCTOP_UI_FMT_H

#include <stdbool.h>
#include "topo.h"


/* v formatted by fmt (printf, or "pct" for a ratio shown as %) in its
 * unit, "-" when NaN, marked "~" exactly when unc_marked() says its
 * uncertainty is above UNC_MARK_REL95 (or not known), and followed by
 * "+-N%" (the relative half-width of its 95 % interval) when with_err is
 * set and the uncertainty is known and not zero. Returns buf. */
const char *fmt_value(char *buf, int len, double v, double rse, bool with_err, const char *fmt,
		      const char *unit);

/* Colour level of a value against view thresholds: 0 good, 1 warn,
 * 2 critical, -1 none (no value, or no threshold to judge it by). NaN
 * thresholds are not set; low_is_bad flips the test. */
int fmt_level(double v, double warn, double crit, bool low_is_bad);

/* Parses a row filter typed after '/': empty (all rows), a CPU list
 * ("0-7,16"), "ccx LIST" or "socket LIST". Fills cpus[t->max_cpu] with the
 * CPUs it keeps. Returns 0, or -1 with *cause. */
int fmt_parse_filter(const char *text, const struct topo *t, bool *cpus, char **cause);

/* Splits text into lines of at most width columns, at newlines and
 * between words (a word longer than width is cut). Writes the start offset
 * and length of each line (at most max) and returns how many lines the
 * whole text needs. */
int fmt_wrap(const char *text, int width, int *start, int *len, int max);

/* A CPU list as text: with ranges "0-7,128-135", else "0,192"; cut with
 * "..." when it does not fit len. */
void fmt_cpulist(char *buf, int len, const int *cpus, int n, bool ranges);

/* The legend of a stacked bar, "F=FE bound S=Bad spec ...", in at most
 * width columns: the labels whole where they fit, else their first words,
 * else those cut to three letters; never an entry cut in the middle (the
 * ones that do not fit are left out). Returns buf. */
const char *fmt_legend(char *buf, int len, int width, const char *letters, const char *const *labels, int n);

/* Case-insensitive substring test; an empty needle matches everything. */
bool fmt_match(const char *hay, const char *needle);

#endif
