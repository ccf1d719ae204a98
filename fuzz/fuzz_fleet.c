/* fuzz_fleet.c: libFuzzer harness for what a fleet reads (src/fleet_parse.c,
 * src/fleet_columns.c): the first byte picks what the rest is: 0 modulo 3
 * a Prometheus /api/v1/query answer (fleet_parse_vector, whose samples
 * must be fleet_parse_vector_json's bit for bit), 1 an exporter's
 * /metrics text (fleet_parse_text, then fleet_label on every sample's
 * labels), 2 a columns file (fleet_columns_parse, then the model and the
 * PromQL of every column). Beyond no crash, leak or UB: a refused answer
 * or file has a one-line cause (a columns file's starts with its path),
 * every text kept from an answer is sanitised, and an accepted columns
 * file's model has one metric per column. Build: see docs/fuzzing.md. */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "model.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *cause)
{
	if (!cause || !*cause || strchr(cause, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 20)
		return 0;
	const char *body = (const char *)data + 1;
	size_t len = size - 1;
	char *cause = NULL;
	struct fleet_samples s = { 0 };
	switch (data[0] % 3) {
	case 0: {
		int rc = fleet_parse_vector(body, len, &s, &cause);
		if (rc < 0)
			one_line(cause);
		for (int i = 0; i < s.n; i++)
			if (text_bad_at(s.v[i].instance) >= 0 || text_bad_at(s.v[i].labels) >= 0)
				abort();
		/* The fast path for plain answers reads what jansson does. */
		struct fleet_samples j = { 0 };
		char *jc = NULL;
		if (fleet_parse_vector_json(body, len, &j, &jc) != rc || j.n != s.n || (!jc) != (!cause) ||
		    (jc && strcmp(jc, cause)))
			abort();
		for (int i = 0; i < s.n; i++)
			if (strcmp(s.v[i].instance, j.v[i].instance) || strcmp(s.v[i].labels, j.v[i].labels) ||
			    memcmp(&s.v[i].time, &j.v[i].time, sizeof(double)) ||
			    (memcmp(&s.v[i].value, &j.v[i].value, sizeof(double)) &&
			     !(isnan(s.v[i].value) && isnan(j.v[i].value))))
				abort();
		fleet_samples_done(&j);
		free(jc);
		break;
	}
	case 1: {
		int bad = 0;
		int n = fleet_parse_text(body, len, &s, &bad);
		if (n != s.n || bad < 0)
			abort();
		for (int i = 0; i < s.n; i++) {
			char *v = fleet_label(s.v[i].labels, "model");
			free(v);
		}
		break;
	}
	default: {
		char *text = xstrndup(body, len);
		struct fleet_columns *fc = fleet_columns_parse(text, "fuzz.txt", &cause);
		free(text);
		if (!fc) {
			one_line(cause);
			if (strncmp(cause, "fuzz.txt:", 9))
				abort();
			break;
		}
		struct model *m = fleet_model_new(fc);
		if (m->nmetrics != fc->n)
			abort();
		for (int i = 0; i < fc->n; i++)
			free(fleet_col_promql(&fc->cols[i], "job=\"x\"", 2.5));
		model_free(m);
		fleet_columns_free(fc);
		break;
	}
	}
	fleet_samples_done(&s);
	free(cause);
	return 0;
}
