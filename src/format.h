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

/* A count or rate with an SI suffix: 999, 1.23k, 45.6M, 7.89G. */
const char *format_si(char *buf, size_t len, double v);

/* Writes v into buf: "-" for NaN or infinity; fmt "pct" shows a 0..1 ratio
 * as a percentage (a value whose unit is already "%" is not scaled); a NULL
 * or invalid fmt uses a default for the unit ("ratio" as a percentage, "/s"
 * and large counts with k/M/G suffixes). Returns buf. */
const char *format_value(char *buf, size_t len, double v, const char *fmt, const char *unit);

#endif
