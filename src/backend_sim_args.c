/* backend_sim_args.c: the simulator's command line: --sim MODEL[:SxCxNxT]
 * (sim_parse_spec) and the KEY=VALUE options after it (nmi=, seed=, ff=,
 * absent=..., listed atop backend_sim.c). Split from backend_sim.c because
 * checking what a user typed is a job apart from simulating a PMU; the
 * backend reads the options with sim_parse_options when it is created. */
#include "config.h"
#include "backend.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_workload.h"
#include "util.h"
#include "backend_sim_impl.h"

/* ---- options ---- */

int sim_parse_options(struct backend *b, const char *arg, char **cause)
{
	if (!arg || !*arg)
		return 0;
	char *copy = xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;       /* the --sim spec: the topology is already built */
		*eq = '\0';
		const char *key = tok, *val = eq + 1;
		char *end = NULL;
		errno = 0;
		if (strcmp(key, "nmi") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->nmi = val[0] == '1';
		} else if (strcmp(key, "features") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->features = val[0] == '1';
		} else if (strcmp(key, "cxl") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->wp.ext_mem = val[0] == '1';
		} else if (strcmp(key, "fp16") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->wp.fp16 = val[0] == '1';
		} else if (strcmp(key, "ff") == 0 && (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)) {
			b->ff = val[0] == '1';
		} else if (strcmp(key, "seed") == 0) {
			unsigned long long v = strtoull(val, &end, 0);
			if (!*val || *end || errno)
				goto bad;
			b->wp.seed = v;
		} else if (strcmp(key, "channels") == 0) {
			long v = strtol(val, &end, 10);
			if (!*val || *end || v < 1 || v > 64)
				goto bad;
			b->channels = (int)v;
		} else if (strcmp(key, "mux_ms") == 0) {
			long v = strtol(val, &end, 10);
			if (!*val || *end || v < 1 || v > 10000)
				goto bad;
			b->mux_ns = (uint64_t)v * 1000000ull;
		} else if (strcmp(key, "call_us") == 0) {
			double v = strtod(val, &end);
			if (!*val || *end || !(v >= 0 && v <= 10000))
				goto bad;
			b->call_ns = (uint64_t)llround(v * 1e3);
		} else if (strcmp(key, "fine") == 0) {
			double v = strtod(val, &end);
			if (!*val || *end || !(v >= 0 && v <= 1))
				goto bad;
			b->wp.fine = v;
		} else if (strcmp(key, "width") == 0) {
			long v = strtol(val, &end, 10);
			if (!*val || *end || v < 1 || v > 64)
				goto bad;
			b->wp.width = (int)v;
		} else if (strcmp(key, "ghz") == 0 || strcmp(key, "nominal") == 0) {
			double v = strtod(val, &end);
			if (!*val || *end || !(v > 0.1 && v < 100))
				goto bad;
			*(key[0] == 'g' ? &b->wp.ghz_max : &b->wp.ghz_nominal) = v;
		} else if (strcmp(key, "absent") == 0) {
			char *s2 = NULL, *list = xstrdup(val);
			for (char *n = strtok_r(list, "+", &s2); n; n = strtok_r(NULL, "+", &s2)) {
				int i;
				for (i = 0; i < b->m->npmus; i++)
					if (strcmp(b->m->pmus[i].name, n) == 0 ||
					    strcmp(b->m->pmus[i].perf_name, n) == 0)
						break;
				if (i == b->m->npmus) {
					rc = set_cause(cause, "sim: absent=%s: model %s has no PMU '%s'",
						       val, b->m->name, n);
					free(list);
					goto out;
				}
				b->absent[i] = true;
			}
			free(list);
		} else {
			goto bad;
		}
		continue;
bad:
		rc = set_cause(cause, "sim: bad option '%s=%s' (expected nmi=0|1, features=0|1, ff=0|1, cxl=0|1, fp16=0|1, seed=N, "
			       "channels=1-64, ghz=X, nominal=X, width=1-64, mux_ms=1-10000, call_us=0-10000, fine=0-1, "
			       "absent=PMU[+PMU])", key, val);
		goto out;
	}
	if (b->wp.ghz_nominal > b->wp.ghz_max)
		rc = set_cause(cause, "sim: nominal clock %.2f GHz is above the maximum %.2f GHz",
			       b->wp.ghz_nominal, b->wp.ghz_max);
out:
	free(copy);
	return rc;
}

int sim_check_args(const struct model *m, const char *arg, char **cause)
{
	struct backend *b = xcalloc(1, sizeof(*b));
	b->m = m;
	wl_params_default(&b->wp);
	b->absent = xcalloc((size_t)(m->npmus ? m->npmus : 1), sizeof(bool));
	/* The model's own defaults are checked when the backend is created
	 * (a model file at fault is not bad usage); here they only set the
	 * clocks that a "nominal=" is compared with. */
	if (m->sim_args)
		sim_parse_options(b, m->sim_args, NULL);
	int rc = sim_parse_options(b, arg, cause);
	free(b->absent);
	free(b);
	return rc;
}

/* ---- --sim MODEL[:SxCxNxT] ---- */

#define SPEC_HINT "expected SxCxNxT with positive numbers, e.g. zen5:2x12x8x2"

int sim_parse_spec(const char *spec, const struct model_info *models, int nmodels, char **model_name,
		   int shape[4], char **cause)
{
	/* A model without a "shape" line: one socket, one L3, four cores. */
	static const int fallback[4] = { 1, 1, 4, 1 };
	*model_name = NULL;
	if (!spec || !*spec)
		return set_cause(cause, "--sim: expected MODEL[:SxCxNxT], e.g. zen5:2x12x8x2");
	/* MODEL[:SxCxNxT] ends at the first comma; after it come the
	 * simulator's KEY=VALUE options, which the backend checks when it is
	 * created (sim_parse_options): here only that each is KEY=VALUE. */
	size_t speclen = strcspn(spec, ",");
	for (const char *o = spec + speclen; *o;) {
		size_t n = strcspn(++o, ",");
		const char *eq = memchr(o, '=', n);
		if (!eq || eq == o)
			return set_cause(cause, "--sim '%s': expected KEY=VALUE options after the comma, "
					 "e.g. zen5:1x2x8x2,ff=1", spec);
		o += n;
	}
	const char *colon = memchr(spec, ':', speclen);
	size_t len = colon ? (size_t)(colon - spec) : speclen;
	if (len == 0)
		return set_cause(cause, "--sim '%s': the model name is missing, e.g. zen5:2x12x8x2", spec);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)spec[i];
		if (!isalnum(ch) && ch != '-' && ch != '_' && ch != '.')
			return set_cause(cause, "--sim '%s': bad character '%c' in the model name",
					 spec, ch);
	}
	char *typed = xstrndup(spec, len);
	const struct model_info *mi = model_info_find(models, nmodels, typed);
	free(typed);
	const char *model = mi ? mi->name : NULL;
	const int *def = mi && mi->sim_shape[0] > 0 ? mi->sim_shape : fallback;
	int v[4];
	memcpy(v, def, sizeof(v));
	if (colon) {
		const char *p = colon + 1;
		for (int k = 0; k < 4; k++) {
			if (!isdigit((unsigned char)*p))
				return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
			char *end = NULL;
			errno = 0;
			long n = strtol(p, &end, 10);
			if (errno || n < 1 || n > SIM_MAX_CPUS)
				return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
			v[k] = (int)n;
			p = end;
			if (k < 3 && *p++ != 'x')
				return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
		}
		if (p != spec + speclen)
			return set_cause(cause, "--sim '%s': " SPEC_HINT, spec);
	}
	long long total = (long long)v[0] * v[1] * v[2] * v[3];
	if (total > SIM_MAX_CPUS)
		return set_cause(cause, "--sim '%s': %lld CPUs is more than the simulator's limit of %d",
				 spec, total, SIM_MAX_CPUS);
	*model_name = model ? xstrdup(model) : xstrndup(spec, len);
	memcpy(shape, v, sizeof(v));
	return 0;
}
