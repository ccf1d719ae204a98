/* hot_path.h: HOT_PATH marks the functions every batch interval runs.
 *
 * An interval of 0.1 s starts after a sleep with its caches and TLBs
 * cold, so what it costs follows the pages and lines it touches more
 * than its instructions (docs/performance.md, "Cold intervals"). GCC
 * puts hot functions together in .text.hot: an interval's own code then
 * lies in some 19 pages instead of 39 spread over the whole text, and
 * its user-space time falls by about a fifth. The list is what
 * bench/footprint.py finds an interval of the table, CSV and JSON
 * writers touching; a function left out costs time, never a result
 * (the attribute moves code, the optimisations it allows keep IEEE
 * arithmetic: every batch output is byte for byte the same). */
#ifndef PMCTOP_HOT_PATH_H
#define PMCTOP_HOT_PATH_H

#if defined(__GNUC__)
#define HOT_PATH __attribute__((hot))
#else
#define HOT_PATH
#endif

#endif
