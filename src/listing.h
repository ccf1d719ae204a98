/* listing.h: the --list-models, --list-events, --list-metrics and
 * --list-views output: plain text tables that a user can grep and that the
 * raw listing lets anyone check against the vendor's tables. */
#ifndef PMCTOP_LISTING_H
#define PMCTOP_LISTING_H

#include <stdbool.h>
#include <stdio.h>

struct model;

/* Text from the definitions is sanitised on the way out (text_filter()).
 * Each returns -1 with errno set (and, for listing_models, *cause NULL)
 * when writing to out fails. */

/* Every model under events_dir: name, what CPUs it matches, description.
 * Returns the number of models, or -1 with *cause. */
int listing_models(FILE *out, const char *events_dir, char **cause);
/* Events whose name or description contains pattern (case-insensitive; NULL
 * or "" for all): name, PMU, encoding, description. Returns the number listed. */
int listing_events(FILE *out, const struct model *m, const char *pattern);
/* Every metric: name, scope, groups, unit, label and description, formula,
 * and the note if any. With raw, the formula's events are written in the
 * vendor's notation (Event[0x4300C3]) by encode_vendor_notation(). Returns
 * the number listed. */
int listing_metrics(FILE *out, const struct model *m, bool raw);
/* Every view: name, key, title and columns. Returns the number listed. */
int listing_views(FILE *out, const struct model *m);

#endif
