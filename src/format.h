/* format.h: how pmctop writes numbers (batch table and dashboard alike),
 * and the dashboard's other text: legends, wrapped lines, CPU lists, and
 * the row filter and event search typed into it. No curses: the
 * dashboard (ui/) uses it, and tests call it directly. format.c holds
 * the numbers, format_text.c the rest. */
#ifndef PMCTOP_FORMAT_H
#define PMCTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

struct topo;

/* True if fmt is a printf format with exactly one floating conversion
 * (%f %e %g, with flags, width and precision of at most two digits) and
 * nothing else but text and %%. Definitions are data from files, so a
 * format is checked before it is given to printf. */
bool format_is_double_fmt(const char *fmt);

/* v as printf's "%.<prec>f" writes it, to the byte, without printf for
 * prec 0..3 and |v| < 2^53 when len is at least 24 (snprintf otherwise);
 * returns the length written (cut to len - 1 as snprintf cuts). */
size_t format_fixed(char *buf, size_t len, double v, int prec);

/* v as printf's "%.6g" writes it, to the byte (CSV and JSON figures);
 * without printf where the exact digits fit 128-bit integers (about
 * 1e-17 to 1e21) and len is at least 32. Returns the length written. */
size_t format_g6(char *buf, size_t len, double v);

/* A count or rate with an SI suffix: 999, 1.23k, 45.6M, 7.89G. */
const char *format_si(char *buf, size_t len, double v);

/* Writes v into buf: "-" for NaN or infinity; fmt "pct" shows a 0..1 ratio
 * as a percentage (a value whose unit is already "%" is not scaled); a NULL
 * or invalid fmt uses a default for the unit ("ratio" as a percentage, "/s"
 * and large counts with k/M/G suffixes). Returns buf. */
const char *format_value(char *buf, size_t len, double v, const char *fmt, const char *unit);
/* One unit per figure (docs/units.md): the unit a published value of a
 * metric defined in `unit` is in. A "count" (or "slots") metric is
 * published per second, so that no figure changes with -d; every other
 * unit is kept ("ratio" is a 0..1 fraction in batch outputs). */
const char *format_value_unit(const char *unit);
/* True when such a metric is published as a rate per second. */
bool format_unit_is_count(const char *unit);
/* A column heading: the label followed by the unit as shown on screen and
 * in the batch table ("L2 miss%", "L3 lat ns", "L2 acc/s"), unless the
 * label already says it or the unit is a plain ratio of two counts. */
void format_heading(char *buf, size_t len, const char *label, const char *unit);

/* v formatted by fmt (printf, or "pct" for a ratio shown as %) in its
 * unit, "-" when NaN, marked "~" exactly when unc_marked() says its
 * uncertainty is above UNC_MARK_REL95 (or not known), and followed by
 * "+-N%" (the relative half-width of its 95 % interval) when with_err is
 * set and the uncertainty is known and not zero. Returns buf. */
const char *format_value_rse(char *buf, int len, double v, double rse, bool with_err, const char *fmt,
			     const char *unit);

/* Colour level of a value against view thresholds: 0 good, 1 warn,
 * 2 critical, -1 none (no value, or no threshold to judge it by). NaN
 * thresholds are not set; low_is_bad flips the test. */
int format_level(double v, double warn, double crit, bool low_is_bad);

/* Text. */

/* Parses a row filter typed after '/': empty (all rows), a CPU list
 * ("0-7,16"), "ccx LIST" or "socket LIST". Fills cpus[t->max_cpu] with the
 * CPUs it keeps. Returns 0, or -1 with *cause. */
int format_parse_filter(const char *text, const struct topo *t, bool *cpus, char **cause);

/* Splits text into lines of at most width columns, at newlines and
 * between words (a word longer than width is cut). Writes the start offset
 * and length of each line (at most max) and returns how many lines the
 * whole text needs. */
int format_wrap(const char *text, int width, int *start, int *len, int max);

/* A CPU list as text: with ranges "0-7,128-135", else "0,192"; cut with
 * "..." when it does not fit len. */
void format_cpulist(char *buf, int len, const int *cpus, int n, bool ranges);

/* The legend of a stacked bar, "F=FE bound S=Bad spec ...", in at most
 * width columns: the labels whole where they fit, else their first words,
 * else those cut to three letters; never an entry cut in the middle (the
 * ones that do not fit are left out). Returns buf. */
const char *format_legend(char *buf, int len, int width, const char *letters, const char *const *labels, int n);

/* Case-insensitive substring test; an empty needle matches everything. */
bool format_match(const char *hay, const char *needle);

#endif
