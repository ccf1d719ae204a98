/* fleet_labels.c: the labels a fleet's hosts carry besides their model,
 * by which the dashboard and batch output group them (fleet_groups.c).
 * Prometheus mode takes each target's labels from up{} (job, zone, rack:
 * whatever the scrape configuration attaches); direct mode from the
 * targets file, whose line may name them after the target
 * (`127.0.0.1:9465 zone=eu1 rack=r3`), and which is read again when it
 * changes, so that a host relabelled there is grouped anew at the next
 * refresh. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleet_impl.h"
#include "util.h"

void host_labels_free(struct host *h)
{
	for (int i = 0; i < h->nlabels; i++) {
		free(h->lkeys[i]);
		free(h->lvals[i]);
	}
	free(h->lkeys);
	free(h->lvals);
	h->nlabels = 0;
	h->lkeys = h->lvals = NULL;
}

void host_labels_set(struct host *h, int n, char **keys, char **vals)
{
	host_labels_free(h);
	/* Insertion sort by key: a host has a handful. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
			char *k = keys[j], *v = vals[j];
			keys[j] = keys[j - 1];
			vals[j] = vals[j - 1];
			keys[j - 1] = k;
			vals[j - 1] = v;
		}
	h->nlabels = n;
	h->lkeys = keys;
	h->lvals = vals;
}

void host_labels_from_prom(struct host *h, const char *labels)
{
	int n = 0, cap = 0;
	char **keys = NULL, **vals = NULL;
	const char *p = labels, *k, *v0, *v1;
	size_t kl;
	while (fleet_label_next(&p, &k, &kl, &v0, &v1)) {
		char *key = xstrndup(k, kl);
		/* Every host has its own instance; Prometheus's own labels
		 * (__name__) are not the target's. */
		if (strcmp(key, "instance") && strncmp(key, "__", 2) && strcmp(key, "model")) {
			if (n == cap) {
				cap = cap ? 2 * cap : 4;
				keys = xrealloc(keys, sizeof(char *) * (size_t)cap);
				vals = xrealloc(vals, sizeof(char *) * (size_t)cap);
			}
			text_sanitize_inplace(key);
			keys[n] = key;
			vals[n++] = fleet_label_value(v0, v1);
			key = NULL;
		}
		free(key);
	}
	host_labels_set(h, n, keys, vals);
}

/* A target of direct mode, with its labels, as a line names it. */
struct target {
	char *spec;
	int n;
	char **keys, **vals;
};
struct targets {
	int n;
	struct target *v;
};

static void targets_done(struct targets *t)
{
	for (int i = 0; i < t->n; i++) {
		free(t->v[i].spec);
		for (int k = 0; k < t->v[i].n; k++) {
			free(t->v[i].keys[k]);
			free(t->v[i].vals[k]);
		}
		free(t->v[i].keys);
		free(t->v[i].vals);
	}
	free(t->v);
	t->n = 0;
	t->v = NULL;
}

/* A label's name as Prometheus allows it: [a-zA-Z_][a-zA-Z0-9_]*. */
static bool key_ok(const char *k, size_t n)
{
	if (n == 0 || (k[0] >= '0' && k[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(k[i] == '_' || (k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
		      (k[i] >= '0' && k[i] <= '9')))
			return false;
	return true;
}

static struct target *target_new(struct targets *t, const char *spec)
{
	t->v = xrealloc(t->v, sizeof(*t->v) * (size_t)(t->n + 1));
	struct target *x = &t->v[t->n++];
	memset(x, 0, sizeof(*x));
	x->spec = xstrdup(spec);
	return x;
}

static bool spec_ok(const char *tok)
{
	return !strpbrk(tok, " \t\"'\\") && (strstr(tok, "://") || strchr(tok, ':'));
}

/* One line's label `key=value` into x; -1 with *cause. */
static int label_add(struct target *x, const char *tok, const char *from, int line, char **cause)
{
	const char *eq = strchr(tok, '=');
	size_t kn = eq ? (size_t)(eq - tok) : 0;
	if (!eq || !key_ok(tok, kn) || !eq[1])
		return set_cause(cause, "%s:%d: '%s' is not a label (KEY=VALUE after the target)", from, line, tok);
	if ((kn == 5 && !strncmp(tok, "model", 5)) || (kn == 8 && !strncmp(tok, "instance", 8)))
		return set_cause(cause, "%s:%d: '%.*s' is the exporter's own label, not one a target may set", from,
				 line, (int)kn, tok);
	for (int k = 0; k < x->n; k++)
		if (strlen(x->keys[k]) == kn && !strncmp(x->keys[k], tok, kn))
			return set_cause(cause, "%s:%d: label '%.*s' twice", from, line, (int)kn, tok);
	x->keys = xrealloc(x->keys, sizeof(char *) * (size_t)(x->n + 1));
	x->vals = xrealloc(x->vals, sizeof(char *) * (size_t)(x->n + 1));
	x->keys[x->n] = xstrndup(tok, kn);
	x->vals[x->n] = xstrdup(eq + 1);
	text_sanitize_inplace(x->vals[x->n]);
	x->n++;
	return 0;
}

/* The targets of text: lines, each a comma-separated list of targets or
 * one target and its labels. */
static int targets_parse(const char *text, const char *from, struct targets *out, char **cause)
{
	char *copy = xstrdup(text);
	int rc = 0, line = 0;
	char *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l && rc == 0; l = strtok_r(NULL, "\n", &save)) {
		line++;
		char *hash = strchr(l, '#');
		if (hash)
			*hash = 0;
		char *save2 = NULL;
		char *first = strtok_r(l, " \t\r", &save2);
		if (!first)
			continue;
		char *rest = strtok_r(NULL, " \t\r", &save2);
		if (rest) {
			/* A target and its labels. */
			if (strchr(first, ',') || !spec_ok(first)) {
				rc = set_cause(cause, "%s:%d: '%s' is not HOST:PORT or a URL", from, line, first);
				break;
			}
			struct target *x = target_new(out, first);
			for (; rest && rc == 0; rest = strtok_r(NULL, " \t\r", &save2))
				rc = label_add(x, rest, from, line, cause);
			continue;
		}
		char *save3 = NULL;
		for (char *tok = strtok_r(first, ",", &save3); tok; tok = strtok_r(NULL, ",", &save3)) {
			if (!spec_ok(tok)) {
				rc = set_cause(cause, "%s: '%s' is not HOST:PORT or a URL", from, tok);
				break;
			}
			target_new(out, tok);
		}
	}
	free(copy);
	return rc;
}

/* A direct target ("host:port" or a URL): its host, added with its
 * /metrics URL where the fleet has none of that name (*added). */
static struct host *add_target(struct fleet *f, const char *t, bool *added)
{
	const char *scheme = strstr(t, "://");
	const char *hp = scheme ? scheme + 3 : t;
	size_t hn = strcspn(hp, "/");
	char *name = xstrndup(hp, hn);
	struct host *h = host_find(f, name);
	*added = !h;
	if (!h)
		h = host_add(f, name);
	free(name);
	if (!*added)
		return h;
	if (!scheme)
		h->url = xasprintf("http://%s/metrics", t);
	else if (!hp[hn] || !strcmp(hp + hn, "/"))
		h->url = xasprintf("%.*s/metrics", (int)(hp + hn - t), t);
	else
		h->url = xstrdup(t);
	return h;
}

/* Target x's labels given to h (x's taken). */
static void labels_give(struct host *h, struct target *x)
{
	host_labels_set(h, x->n, x->keys, x->vals);
	x->n = 0;
	x->keys = x->vals = NULL;
}

int fleet_targets_add(struct fleet *f, const char *text, const char *from, char **cause)
{
	struct targets t = { 0 };
	int rc = targets_parse(text, from, &t, cause);
	for (int i = 0; rc == 0 && i < t.n; i++) {
		bool added;
		struct host *h = add_target(f, t.v[i].spec, &added);
		/* A target named twice keeps its first line's labels. */
		if (added)
			labels_give(h, &t.v[i]);
	}
	targets_done(&t);
	if (rc == 0 && f->nhosts == 0)
		rc = set_cause(cause, "%s names no target", from);
	return rc;
}

/* Whether h's labels are x's. */
static bool same_labels(const struct host *h, const struct target *x)
{
	if (h->nlabels != x->n)
		return false;
	for (int k = 0; k < x->n; k++) {
		bool found = false;
		for (int j = 0; j < h->nlabels && !found; j++)
			found = !strcmp(h->lkeys[j], x->keys[k]) && !strcmp(h->lvals[j], x->vals[k]);
		if (!found)
			return false;
	}
	return true;
}

void fleet_targets_reread(struct fleet *f, char **news)
{
	struct stat st;
	if (stat(f->targets_file, &st) < 0)
		return;
	/* A file replaced (mv) or rewritten within one tick of the clock
	 * changes its inode or, likely, its size. */
	long long stamp[3] = { (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, (long long)st.st_ino,
			       (long long)st.st_size };
	if (!memcmp(stamp, f->targets_stamp, sizeof(stamp)))
		return;
	memcpy(f->targets_stamp, stamp, sizeof(stamp));
	if (!news)
		return;   /* fleet_new has just read it */
	char *text = read_text_file(f->targets_file);
	struct targets t = { 0 };
	char *cause = NULL;
	if (!text) {
		news_add(news, "cannot read %s again: %s; its old targets stay", f->targets_file,
			 path_errno_phrase(errno));
		return;
	}
	if (targets_parse(text, f->targets_file, &t, &cause) < 0) {
		news_add(news, "%s; its old targets stay", cause);
		free(cause);
		free(text);
		targets_done(&t);
		return;
	}
	free(text);
	bool *listed = xcalloc((size_t)f->nhosts + (size_t)t.n + 1, sizeof(bool));
	int added = 0, relabelled = 0, removed = 0;
	for (int i = 0; i < t.n; i++) {
		bool is_new;
		struct host *h = add_target(f, t.v[i].spec, &is_new);
		if (is_new) {
			added++;
		} else {
			relabelled += !same_labels(h, &t.v[i]);
			if (h->removed) {
				h->removed = false;
				host_status(h, "waiting for a second scrape");
			}
		}
		listed[h - f->hosts] = true;
		labels_give(h, &t.v[i]);
	}
	for (int i = 0; i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];
		if (listed[i] || h->removed)
			continue;
		h->removed = true;
		removed++;
		host_clear_figs(f, h);
		fleet_samples_done(&h->prev);
		fleet_samples_done(&h->cur);
		h->have_prev = h->have_cur = h->stale = h->failing = false;
		host_status(h, "gone: no longer in the targets file");
	}
	free(listed);
	targets_done(&t);
	if (added || relabelled || removed)
		news_add(news, "%s changed: %d targets added, %d relabelled, %d removed", f->targets_file, added,
			 relabelled, removed);
}
