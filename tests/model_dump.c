/* model_dump.c: writes every model under an events directory as one JSON
 * document, for tests/perf_reference.py, which holds pmctop's definitions
 * against Linux perf's event and metric files. It prints what the loader
 * made of the definitions (each raw value split into the PMU's hardware
 * fields, each metric's formula and unit), so that the reference test
 * judges the model pmctop runs, without a parser of its own for events/.
 *
 * Usage: model_dump EVENTS_DIR */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "encode.h"
#include "evdef.h"

static json_t *dump_matches(const struct model_info *mi)
{
	json_t *a = json_array();
	for (int i = 0; i < mi->nmatch; i++) {
		const struct model_match *mm = &mi->match[i];
		json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:i}", "vendor", mm->vendor, "family",
						   mm->family, "model_lo", mm->model_lo, "model_hi", mm->model_hi));
	}
	return a;
}

static json_t *dump_event(const struct model *m, const struct event_def *ev)
{
	static const char *const kinds[] = { "raw", "pfm", "fields", "perf", "proc" };
	const struct pmu_def *pd = &m->pmus[ev->pmu];
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "name", ev->name, "pmu", pd->name, "perf_pmu",
			      pd->perf_name, "enc", kinds[ev->enc], "fixed", (ev->flags & EVF_FIXED) != 0, "merge",
			      (ev->flags & EVF_MERGE) != 0);
	if (ev->spec)
		json_object_set_new(o, "spec", json_string(ev->spec));
	if (ev->sim_text)
		json_object_set_new(o, "sim", json_string(ev->sim_text));
	if (ev->enc == ENC_RAW) {
		const char *names[16];
		uint64_t values[16];
		int n = encode_raw_fields(pd, ev->raw, names, values, 16);
		json_t *f = json_object();
		for (int i = 0; i < n; i++)
			json_object_set_new(f, names[i], json_integer((json_int_t)values[i]));
		json_object_set_new(o, "fields", f);
		json_object_set_new(o, "raw", json_integer((json_int_t)ev->raw));
	}
	return o;
}

static json_t *dump_metric(const struct metric_def *md)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "name", md->name, "unit", md->unit, "scope",
			      scope_name(md->scope), "formula", md->formula);
	if (md->perf)
		json_object_set_new(o, "perf", json_string(md->perf));
	return o;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: model_dump EVENTS_DIR\n");
		return 2;
	}
	struct model_info *list = NULL;
	char *cause = NULL;
	int n = model_list(argv[1], &list, &cause);
	if (n < 0) {
		fprintf(stderr, "model_dump: %s\n", cause ? cause : "cannot list models");
		return 1;
	}
	json_t *models = json_array();
	int rc = 0;
	for (int i = 0; i < n; i++) {
		struct model *m = model_load_by_name(argv[1], list[i].name, &cause);
		if (!m) {
			fprintf(stderr, "model_dump: %s: %s\n", list[i].name, cause ? cause : "cannot load");
			rc = 1;
			break;
		}
		json_t *evs = json_array(), *mets = json_array(), *pmus = json_array();
		for (int p = 0; p < m->npmus; p++)
			json_array_append_new(pmus, json_pack("{s:s, s:s}", "name", m->pmus[p].name, "perf",
							      m->pmus[p].perf_name));
		for (int e = 0; e < m->nevents; e++)
			json_array_append_new(evs, dump_event(m, &m->events[e]));
		for (int k = 0; k < m->nmetrics; k++)
			json_array_append_new(mets, dump_metric(&m->metrics[k]));
		json_array_append_new(models, json_pack("{s:s, s:o, s:o, s:o, s:o}", "name", m->name, "match",
							dump_matches(&list[i]), "pmus", pmus, "events", evs,
							"metrics", mets));
		model_free(m);
	}
	model_list_free(list, n);
	free(cause);
	if (rc == 0 && json_dumpf(models, stdout, JSON_COMPACT) < 0)
		rc = 1;
	json_decref(models);
	putchar('\n');
	return rc;
}
