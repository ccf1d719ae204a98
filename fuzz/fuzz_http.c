/* fuzz_http.c: libFuzzer harness for what the exporter decides about an
 * HTTP request (export_route: method, URL path and query, Accept header
 * content negotiation); libmicrohttpd does the parsing of the request
 * itself. The input, split at NUL bytes, is the method, the URL and the
 * Accept header (absent when there is no third part). Checked: only GET
 * and HEAD are served; the metrics exactly at /metrics (any query); a
 * header that does not name OpenMetrics never gets it; every other answer
 * has a body. Build: see docs/fuzzing.md. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Case-insensitive substring test. */
static int mentions(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	const char *part[3] = { NULL, NULL, NULL };
	size_t at = 0;
	for (int i = 0; i < 3 && at <= size; i++) {
		part[i] = buf + at;
		at += strlen(buf + at) + 1;
	}
	const char *method = part[0], *url = part[1] ? part[1] : "", *accept = part[2];
	struct export_route r;
	export_route(method, url, accept, &r);
	int served = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	size_t path = strcspn(url, "?");
	int at_metrics = path == 8 && !strncmp(url, "/metrics", 8);
	if (served != (r.code != 405))
		abort();
	if (r.metrics != (served && at_metrics) || (r.metrics && r.code != 200))
		abort();
	if (!r.metrics && (!r.text || !*r.text || (r.code != 200 && r.code != 404 && r.code != 405)))
		abort();
	if (r.metrics) {
		if (r.format != EXPORT_TEXT && r.format != EXPORT_OPENMETRICS)
			abort();
		if (r.format == EXPORT_OPENMETRICS && !mentions(accept, "application/openmetrics-text"))
			abort();
		if (r.format != export_negotiate(accept))
			abort();
	}
	free(buf);
	return 0;
}
