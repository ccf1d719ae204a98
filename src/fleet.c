/* fleet.c: a fleet (fleet.h): its targets and hosts, and each refresh
 * made a snapshot: one row per host of the fleet model (fleet_columns.c)
 * with its text (name, model, why '-') beside it. The refresh itself is
 * fleet_prom.c's (Prometheus's API) or fleet_direct.c's (the exporters).
 *
 * What goes wrong is said, never fatal: a server that does not answer
 * keeps every host's last good figures, marked stale; a host that does
 * not answer (or is down for Prometheus) shows '-' and why. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_impl.h"
#include "model.h"
#include "name_index.h"
#include "util.h"

const struct model *fleet_get_model(const struct fleet *f)
{
	return f->model;
}

int fleet_host_count(const struct fleet *f)
{
	return f->nhosts;
}

bool fleet_is_prometheus(const struct fleet *f)
{
	return f->prom;
}

void fleet_cancel(struct fleet *f)
{
	atomic_store(&f->cancel, true);
}

void fleet_free(struct fleet *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		free(h->name);
		free(h->url);
		free(h->model);
		free(h->status);
		free(h->v);
		free(h->rse);
		free(h->cov);
		free(h->num);
		free(h->den);
		free(h->kept);
		host_labels_free(h);
		fleet_samples_done(&h->prev);
		fleet_samples_done(&h->cur);
	}
	free(f->hosts);
	free(f->total);
	name_index_free(f->by_name);
	fleet_columns_free(f->cols);
	model_free(f->model);
	fleet_config_free(f->cfg);
	free(f->base);
	free(f->sel);
	free(f->past_host);
	free(f->targets_file);
	free(f);
}

struct fleet *fleet_new(const struct fleet_opts *o, char **cause)
{
	struct fleet *f = xcalloc(1, sizeof(*f));
	atomic_init(&f->cancel, false);
	f->window_s = o->window_s > 0 ? o->window_s : 60;
	f->at = o->at;
	f->interval_s = o->interval_s;
	if (!(f->cols = fleet_columns_load(o->columns, cause)))
		goto fail;
	f->model = fleet_model_new(f->cols);
	f->total = xmalloc(sizeof(double) * (size_t)f->cols->n);
	for (int i = 0; i < f->cols->n; i++)
		f->total[i] = NAN;
	if (o->config && !(f->cfg = fleet_config_load(o->config, cause)))
		goto fail;
	const char *s = o->spec;
	bool url = !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
	if (url && !strchr(s, ',')) {
		f->prom = true;
		f->base = xstrdup(s);
		size_t n = strlen(f->base);
		while (n && f->base[n - 1] == '/')
			f->base[--n] = 0;
		const char *sel = o->select ? o->select : "job=\"pmctop\"";
		while (*sel == ' ')
			sel++;
		size_t sn = strlen(sel);
		if (sn && sel[0] == '{') {
			if (sel[sn - 1] != '}') {
				set_cause(cause, "--fleet-select: '%s' has no closing brace", o->select);
				goto fail;
			}
			f->sel = xstrndup(sel + 1, sn - 2);
		} else {
			f->sel = xstrdup(sel);
		}
		return f;
	}
	if (o->select) {
		set_cause(cause, "--fleet-select chooses series in Prometheus; exporters are named in --fleet itself");
		goto fail;
	}
	if (s[0] == '@') {
		char *text = read_text_file(s + 1);
		if (!text) {
			set_cause(cause, "cannot read %s: %s", s + 1, path_errno_phrase(errno));
			goto fail;
		}
		int rc = fleet_targets_add(f, text, s + 1, cause);
		free(text);
		if (rc < 0)
			goto fail;
		/* Read again when it changes (fleet_targets_reread). */
		f->targets_file = xstrdup(s + 1);
		fleet_targets_reread(f, NULL);
	} else if (fleet_targets_add(f, s, "--fleet", cause) < 0) {
		goto fail;
	}
	return f;
fail:
	fleet_free(f);
	return NULL;
}
/* The system row: the fleet's own figures, with the highest error and
 * the lowest coverage of the hosts shown (an error not known anywhere
 * is not known for the whole). */
static void system_row(const struct fleet *f, struct snapshot *s)
{
	struct snap_row *sys = &s->rows[SNAP_SYSTEM][0];
	sys->id = 0;
	sys->cpu = sys->core = sys->ccx = sys->socket = -1;
	int ncpus = 0;
	for (int i = 0; i < s->nrows[SNAP_CPU]; i++)
		ncpus += s->rows[SNAP_CPU][i].ncpus;
	sys->ncpus = ncpus;
	for (int c = 0; c < f->cols->n; c++) {
		int mc = snap_mcol(s, c);
		double rse = 0, cov = 1;
		for (int i = 0; i < s->nrows[SNAP_CPU]; i++) {
			const struct snap_row *r = &s->rows[SNAP_CPU][i];
			if (isnan(r->mv[mc]))
				continue;
			rse = isnan(r->mrse[mc]) || isnan(rse) ? NAN : fmax(rse, r->mrse[mc]);
			cov = fmin(cov, r->mcov[mc]);
		}
		sys->mv[mc] = f->total[c];
		sys->mrse[mc] = isnan(f->total[c]) ? NAN : rse;
		sys->mcov[mc] = isnan(f->total[c]) ? NAN : cov;
	}
}

struct snapshot *fleet_refresh(struct fleet *f, char **news, char **cause)
{
	if (f->targets_file)
		fleet_targets_reread(f, news);
	int rc = f->prom ? fleet_prom_refresh(f, news, cause) : fleet_direct_refresh(f, news);
	if (rc < 0) {
		if (f->nhosts == 0)
			return NULL;
		/* The server did not answer: every host keeps what it had,
		 * marked stale, and the reason is said once. */
		if (!f->failing)
			text_add_line(news, *cause);
		f->failing = true;
		for (int i = 0; i < f->nhosts; i++) {
			struct host *h = &f->hosts[i];
			char *st = xasprintf("stale: %s", *cause);
			host_status(h, st);
			free(st);
			h->stale = true;
		}
		free(*cause);
		*cause = NULL;
	}
	/* A drill after this refresh of the hosts asks its history again;
	 * direct mode keeps each refresh's figures for one. */
	free(f->past_host);
	f->past_host = NULL;
	if (!f->prom && f->past > 0)
		fleet_keep_history(f, fleet_now());
	if (rc == 0 && f->prom && f->failing) {
		char *line = xasprintf("%s answers again", f->base);
		text_add_line(news, line);
		free(line);
		f->failing = false;
	}
	struct snapshot *s = fleet_snapshot_new(f, f->nhosts);
	s->nhosts = f->nhosts;
	s->hosts = xcalloc((size_t)f->nhosts + 1, sizeof(*s->hosts));
	for (int m = 0; m < f->cols->n; m++)
		s->metric_planned[m] = true;
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		struct snap_row *row = &s->rows[SNAP_CPU][i];
		row->id = row->cpu = i;
		row->core = row->ccx = row->socket = -1;
		/* A stale host shows its last good figures; a host down, gone
		 * or without hardware series shows '-' (its NaNs). */
		bool show = h->have_figs && (!h->status || h->stale || !strncmp(h->status, "no hardware", 11) ||
					     !strncmp(h->status, "restarted", 9));
		for (int c = 0; c < f->cols->n; c++) {
			int mc = snap_mcol(s, c);
			row->mv[mc] = show ? h->v[c] : NAN;
			row->mrse[mc] = show ? h->rse[c] : NAN;
			row->mcov[mc] = show ? h->cov[c] : NAN;
		}
		int ci = model_find_metric(f->model, "cpus");
		double cpus = ci >= 0 ? h->v[ci] : NAN;
		row->ncpus = show && isfinite(cpus) ? (int)cpus : 0;
		struct snap_host *sh = &s->hosts[i];
		sh->name = xstrdup(h->name);
		sh->model = xstrdup(h->model);
		sh->status = h->status ? xstrdup(h->status) : NULL;
		sh->simulated = h->simulated;
		sh->stale = h->stale;
		sh->age_s = h->age_s;
		sh->k0 = h->k0;
		sh->k1 = h->k1;
		sh->nlabels = h->nlabels;
		sh->lkeys = xcalloc((size_t)h->nlabels + 1, sizeof(char *));
		sh->lvals = xcalloc((size_t)h->nlabels + 1, sizeof(char *));
		for (int k = 0; k < h->nlabels; k++) {
			sh->lkeys[k] = xstrdup(h->lkeys[k]);
			sh->lvals[k] = xstrdup(h->lvals[k]);
		}
	}
	system_row(f, s);
	fleet_groups(f, s);
	return s;
}
