/* evdef.c: the definition loader's entry points. model_load() reads a
 * model's stanzas (evdef_parse.c), builds them (evdef_build.c), resolves the
 * metrics (evdef_resolve.c) and builds the views; model_list() finds every
 * model.def under events/ and reads only its model stanza; also
 * model_load_by_name(). It only calls down: the look-ups, scope names and
 * model_free() that it and its builder files share live in model.c. */
#include "config.h"
#include "util.h"
#include "expr.h"
#include "evdef.h"
#include "evdef_impl.h"
#include "name_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct model *model_load(const char *dir, char **cause)
{
	return model_load_under(NULL, dir, cause);
}

struct model *model_load_under(const char *events_dir, const char *dir, char **cause)
{
	struct def_set set;
	if (defset_read(events_dir, dir, true, &set, cause) < 0)
		return NULL;
	struct model *m = evdef_build_set_kept(&set, dir, cause);
	defset_free(&set);
	return m;
}

static struct model *build_set(const struct def_set *set, const char *dir, struct model_kept *kept, char **cause);

struct model *evdef_build_set(const struct def_set *set, const char *dir, char **cause)
{
	return build_set(set, dir, NULL, cause);
}

struct model *evdef_build_set_kept(struct def_set *set, const char *dir, char **cause)
{
	if (!set->texts)
		return build_set(set, dir, NULL, cause);
	/* Given before the build, so that a model freed half built (an
	 * error) frees them as it skips the strings in them. */
	struct model_kept *k = xmalloc(sizeof(*k));
	*k = (struct model_kept){ .ntexts = set->nfiles, .texts = set->texts, .lens = set->lens,
				  .nfiles = set->nfiles, .files = set->files };
	set->texts = NULL;
	set->lens = NULL;
	set->files = NULL;
	set->kept = true;
	return build_set(set, dir, k, cause);
}

static struct model *build_set(const struct def_set *set, const char *dir, struct model_kept *kept, char **cause)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->kept = kept;
	struct builder b = { .m = m, .set = set, .in_place = kept != NULL };
	struct metric_src *src = NULL;
	const struct def_stanza *mst = &set->stanzas[0];
	m->name = xstrdup(mst->name);
	m->dir = xstrdup(dir);
	struct model_info head = { 0 };
	int hrc = evdef_build_model_stanza(&b, mst, &head);
	m->desc = head.desc;
	m->match = head.match;
	m->nmatch = head.nmatch;
	m->sim_args = head.sim_args;
	m->alias = head.alias;
	m->l3_domain = head.l3_domain;
	memcpy(m->sim_shape, head.sim_shape, sizeof(m->sim_shape));
	if (hrc < 0)
		goto fail;
	/* The events and metrics arrays, sized once (model.h): room for
	 * each stanza, and for the variants that metrics' privilege
	 * modifiers add (amd-zen5's 99 metrics add 14). */
	int nev = 0, nmet = 0;
	for (int i = 0; i < set->nstanzas; i++) {
		nev += set->stanzas[i].kind == ST_EVENT;
		nmet += set->stanzas[i].kind == ST_METRIC;
	}
	m->events_cap = nev + 32;
	m->events = xmalloc((size_t)m->events_cap * sizeof(*m->events));
	m->metrics_cap = nmet + 1;
	m->metrics = xmalloc((size_t)m->metrics_cap * sizeof(*m->metrics));
	/* Their name indexes sized for them at once, not grown six times. */
	m->index[NAME_EVENT] = name_index_new_for((size_t)m->events_cap);
	m->index[NAME_METRIC] = name_index_new_for((size_t)m->metrics_cap);
	/* PMUs first, so that events may come before their PMU's stanza; then
	 * events, so that metrics may use any event; views last. */
	for (int i = 0; i < set->nstanzas; i++)
		if (set->stanzas[i].kind == ST_PMU && evdef_build_pmu(&b, &set->stanzas[i]) < 0)
			goto fail;
	for (int i = 0; i < set->nstanzas; i++)
		if (set->stanzas[i].kind == ST_EVENT && evdef_build_event(&b, &set->stanzas[i]) < 0)
			goto fail;
	if (evdef_resolve_fallbacks(&b) < 0)
		goto fail;
	src = xcalloc((size_t)set->nstanzas, sizeof(*src));
	for (int i = 0; i < set->nstanzas; i++)
		if (set->stanzas[i].kind == ST_METRIC && evdef_build_metric(&b, &set->stanzas[i], &src[m->nmetrics]) < 0)
			goto fail;
	if (evdef_resolve_metrics(&b, src) < 0)
		goto fail;
	for (int i = 0; i < set->nstanzas; i++)
		if (set->stanzas[i].kind == ST_VIEW && evdef_build_view(&b, &set->stanzas[i]) < 0)
			goto fail;
	free(src);
	return m;
fail:
	free(src);
	if (cause)
		*cause = b.err;
	else
		free(b.err);
	model_free(m);
	return NULL;
}

/* ---- finding models ------------------------------------------------------ */

const struct model_info *model_info_find(const struct model_info *l, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(l[i].name, name) || (l[i].alias && !strcmp(l[i].alias, name)))
			return &l[i];
	return NULL;
}

/* Directories under events/ are few and shallow. A symbolic link may lead
 * to a directory seen before (a loop, or a tree such as /sys where links
 * cross everywhere): each directory is visited once, by device and inode,
 * and the depth and the number of directories are bounded, so that a wrong
 * --events-dir gives an error at once instead of a scan of minutes. */
#define MODEL_MAX_DEPTH 8
#define MODEL_MAX_DIRS 2048

struct dir_id { dev_t dev; ino_t ino; };

struct model_info_list {
	struct model_info *v; int n; char *err;
	struct dir_id *seen; int nseen;
};

static void info_done(struct model_info *mi)
{
	free(mi->name);
	free(mi->desc);
	free(mi->dir);
	free(mi->alias);
	free(mi->l3_domain);
	free(mi->sim_args);
	model_free_matches(mi->match, mi->nmatch);
}

/* An entry that may be a directory, not hidden: what the directory says
 * is a file of another kind needs no stat (the events tree holds some 60
 * files in 13 directories). */
static bool maybe_subdir(const struct dirent *de)
{
	return de->d_name[0] != '.' && (de->d_type == DT_DIR || de->d_type == DT_LNK || de->d_type == DT_UNKNOWN);
}

static int read_model_info(struct model_info_list *l, const char *dir)
{
	struct def_set set;
	char *cause = NULL;
	if (defset_read(NULL, dir, false, &set, &cause) < 0) {
		l->err = cause;
		return -1;
	}
	struct model_info mi = { .name = xstrdup(set.stanzas[0].name), .dir = xstrdup(dir) };
	struct builder b = { .set = &set };
	int rc = evdef_build_model_stanza(&b, &set.stanzas[0], &mi);
	defset_free(&set);
	if (rc < 0) {
		l->err = b.err;
		info_done(&mi);
		return -1;
	}
	for (int i = 0; i < l->n; i++) {
		const struct model_info *o = &l->v[i];
		/* Names and aliases share one namespace: --sim and --model take both. */
		const char *clash = !strcmp(o->name, mi.name) ? mi.name
				    : mi.alias && !strcmp(o->name, mi.alias) ? mi.alias
				    : o->alias && !strcmp(o->alias, mi.name) ? mi.name
				    : o->alias && mi.alias && !strcmp(o->alias, mi.alias) ? mi.alias : NULL;
		if (clash) {
			l->err = xasprintf("model name or alias '%s' is used twice: in %s and in %s", clash, o->dir,
					   mi.dir);
			info_done(&mi);
			return -1;
		}
	}
	l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = mi;
	return 0;
}

/* Opens dir unless it is not a directory or was seen before (NULL then,
 * with *err set only for the top directory or when a bound is passed). */
static DIR *open_new_dir(struct model_info_list *l, const char *dir, int depth)
{
	/* opendir, then fstat for the directory's identity: open and
	 * fdopendir asked fstat twice and fcntl twice (issue 39). Not a
	 * directory, it fails here (O_DIRECTORY), which scan_dir relies on. */
	DIR *d = opendir(dir);
	struct stat sb;
	if (!d || fstat(dirfd(d), &sb) < 0) {
		if (depth == 0)
			l->err = xasprintf("%s: cannot open the definitions directory: %s", dir, strerror(errno));
		if (d)
			closedir(d);
		return NULL;
	}
	for (int i = 0; i < l->nseen; i++) {
		if (l->seen[i].dev == sb.st_dev && l->seen[i].ino == sb.st_ino) {
			closedir(d);
			return NULL;
		}
	}
	if (l->nseen == MODEL_MAX_DIRS) {
		l->err = xasprintf("%s: more than %d directories to search for models: not a definitions directory?",
				   dir, MODEL_MAX_DIRS);
		closedir(d);
		return NULL;
	}
	l->seen = xrealloc(l->seen, (size_t)(l->nseen + 1) * sizeof(*l->seen));
	l->seen[l->nseen++] = (struct dir_id){ sb.st_dev, sb.st_ino };
	return d;
}

/* maybe_subdir, noting the type of an entry model.def on the way. */
static bool subdir_or_def(const struct dirent *de, void *ctx)
{
	if (!strcmp(de->d_name, "model.def"))
		*(int *)ctx = de->d_type;
	return maybe_subdir(de);
}

static int scan_dir(struct model_info_list *l, const char *dir, int depth)
{
	DIR *d = open_new_dir(l, dir, depth);
	if (!d)
		return l->err ? -1 : 0;
	/* Sorted, so that the listing and duplicate reports do not depend on
	 * the file system's order. The listing says whether model.def is
	 * there, and a regular file: a stat only where it says neither
	 * (five of the fourteen directories of events/ have none). */
	char **names;
	int def_type = -1;
	int n = dir_names_sorted_ctx(d, subdir_or_def, &def_type, &names);
	int rc = 0;
	bool is_def = def_type == DT_REG;
	if (def_type == DT_LNK || def_type == DT_UNKNOWN) {
		char *path = xasprintf("%s/model.def", dir);
		struct stat sb;
		is_def = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
		free(path);
	}
	if (is_def)
		rc = read_model_info(l, dir);
	for (int i = 0; i < n; i++) {
		/* What is not a directory (a link to a file) fails to open
		 * as one, silently below the top: no stat to ask first. */
		if (rc == 0 && depth < MODEL_MAX_DEPTH) {
			char *sub = xasprintf("%s/%s", dir, names[i]);
			rc = scan_dir(l, sub, depth + 1);
			free(sub);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int info_cmp(const void *a, const void *b)
{
	return strcmp(((const struct model_info *)a)->name, ((const struct model_info *)b)->name);
}

int model_list(const char *events_dir, struct model_info **out, char **cause)
{
	struct model_info_list l = { 0 };
	*out = NULL;
	int rc = scan_dir(&l, events_dir, 0);
	free(l.seen);
	if (rc < 0) {
		model_list_free(l.v, l.n);
		if (cause)
			*cause = l.err;
		else
			free(l.err);
		return -1;
	}
	if (l.n)
		qsort(l.v, (size_t)l.n, sizeof(*l.v), info_cmp);
	*out = l.v;
	return l.n;
}

void model_list_free(struct model_info *l, int n)
{
	for (int i = 0; l && i < n; i++)
		info_done(&l[i]);
	free(l);
}

struct model *model_load_by_name(const char *events_dir, const char *name, char **cause)
{
	struct model_info *l;
	int n = model_list(events_dir, &l, cause);
	if (n < 0)
		return NULL;
	struct model *m = NULL;
	int i;
	for (i = 0; i < n; i++)
		if (!strcmp(l[i].name, name))
			break;
	if (i == n)
		set_cause(cause, "no model '%s' under %s (pmctop --list-models shows the models)", name, events_dir);
	else
		m = model_load_under(events_dir, l[i].dir, cause);
	model_list_free(l, n);
	return m;
}
