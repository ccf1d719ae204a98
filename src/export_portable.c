/* export_portable.c: the portable series of a model, gathered from the
 * `portable NAME [SCALE]` keys of its events (events/, docs/definitions.md).
 *
 * A portable series is a counter with one meaning on every CPU model
 * ("instructions", "l3_misses", "memory_read_bytes"): the sum of SCALE x
 * count over the events that name it. Dashboards and alerts of a mixed
 * fleet query these, not the vendors' event names. Which events form which
 * series is data in events/; here they are only collected. */
#include "config.h"
#include "export_impl.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int export_series_list(const struct model *m, struct export_series **out)
{
	struct export_series *list = NULL;
	int n = 0;
	for (int e = 0; m && e < m->nevents; e++) {
		const struct event_def *ev = &m->events[e];
		for (int t = 0; t < ev->nportable; t++) {
			int i = 0;
			while (i < n && strcmp(list[i].name, ev->portable[t].name))
				i++;
			if (i == n) {
				list = xrealloc(list, sizeof(*list) * (size_t)(n + 1));
				list[n++] = (struct export_series){ .name = ev->portable[t].name };
			}
			struct export_series *s = &list[i];
			s->events = xrealloc(s->events, sizeof(int) * (size_t)(s->nterms + 1));
			s->scales = xrealloc(s->scales, sizeof(double) * (size_t)(s->nterms + 1));
			s->events[s->nterms] = e;
			s->scales[s->nterms++] = ev->portable[t].scale;
		}
	}
	*out = list;
	return n;
}

void export_series_free(struct export_series *s, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i].events);
		free(s[i].scales);
	}
	free(s);
}
