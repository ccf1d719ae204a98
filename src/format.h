/* format.h: how pmctop writes numbers (batch table and dashboard alike). */
#ifndef PMCTOP_FORMAT_H
#define PMCTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* True if fmt is a printf format with exactly one floating conversion
 * (%f %e %g, with flags, width and precision of at most two digits) and
 * nothing else but text and %%. Definitions are data from files, so a
 * format is checked before it is given to printf. */
bool format_is_double_fmt(const char *fmt);

/* v as printf's "%.<prec>f" writes it, to the byte, without printf for
 * prec 0..3 and |v| < 2^53 when len is at least 24 (snprintf otherwise);
 * returns the length written (cut to len - 1 as snprintf cuts). */
size_t format_fixed(char *buf, size_t len, double v, int prec);

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

#endif
