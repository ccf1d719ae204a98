/* spark.h: sparklines and history graphs as text, for the dashboard's
 * header, CCX boxes, memory panel and detail pane. No curses: a graph is a
 * string of cells, tested on its own.
 *
 * In a UTF-8 locale a cell is one of the eight block elements
 * U+2581..U+2588 (▁▂▃▄▅▆▇█); otherwise one of the ASCII characters
 * "_.-:=+*#", lowest to highest. A missing value (NaN) is a blank cell,
 * and only a missing value is: the lowest value still has the lowest
 * mark, so a gap is never mistaken for a low figure. The scale is the
 * series' own lowest..highest value, which the screen prints beside the
 * graph; when every value is equal they are drawn at mid height. */
#ifndef PMCTOP_UI_SPARK_H
#define PMCTOP_UI_SPARK_H

#include <stdbool.h>
#include <stddef.h>

/* The bytes one cell can take (a block element is three). */
#define SPARK_CELL_MAX 3

/* True when the current LC_CTYPE's codeset is UTF-8 (call after
 * setlocale(LC_CTYPE, "")). */
bool spark_utf8_locale(void);
/* Whether terminal type term (TERM) can be trusted with the block
 * elements and arrows of a UTF-8 locale: the Linux console's fonts (and
 * a VT100's) lack most of them, so there the graphs are ASCII. */
bool spark_term_blocks(const char *term);

/* The lowest and highest finite values of v[0..n-1]. False (and NaN) when
 * there is none. */
bool spark_range(const double *v, int n, double *lo, double *hi);

/* Row `row` (0 = top) of a graph `rows` cells high of the last `width`
 * values of v[0..n-1], one cell per value, the newest at the right (a
 * series shorter than width leaves the left blank). lo..hi spans the rows:
 * each value fills from the bottom to its height in eighths of a cell.
 * Writes a NUL-terminated string of at most len - 1 bytes without cutting
 * a cell; returns the number of cells written. rows = 1 is a sparkline. */
int spark_graph_row(char *buf, size_t len, const double *v, int n, int width, double lo, double hi,
		    int rows, int row, bool utf8);
/* A one-line sparkline: spark_graph_row with one row. */
int spark_line(char *buf, size_t len, const double *v, int n, int width, double lo, double hi, bool utf8);

/* The scale of a graph as text, "lo..hi" with each bound formatted like
 * the metric's cells (fmt and unit as for format_value), with decimals
 * added where that would write two different bounds alike, or "no data"
 * when lo is NaN. */
void spark_scale_text(char *buf, size_t len, double lo, double hi, const char *fmt, const char *unit);

#endif
