/* perf_import_stanza.c: the leaf of the perf import family. Building the
 * stanzas of an imported model's definition set: a new stanza, its
 * attributes, its file, pmctop's name for a perf name, and the stanzas of
 * one of pmctop's own definition files. perf_import.c and the files that
 * turn perf's JSON into stanzas (perf_import_events.c,
 * perf_import_metrics.c, perf_import_common.c) call these; they call none
 * of them (docs/architecture.md, "Families call down"). */
#include "config.h"
#include "util.h"
#include "evdef_impl.h"
#include "perf_import_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct def_stanza *imp_stanza(struct imp *im, enum stanza_kind kind, const char *name, const char *file, int line)
{
	struct def_set *set = im->set;
	set->stanzas = evdef_grow(set->stanzas, set->nstanzas, sizeof(*set->stanzas));
	struct def_stanza *st = &set->stanzas[set->nstanzas++];
	*st = (struct def_stanza){ .kind = kind, .name = xstrdup(name), .file = file, .line = line, .name_col = 1 };
	return st;
}

void imp_attr(struct def_stanza *st, const char *key, const char *value)
{
	st->attrs = evdef_grow(st->attrs, st->nattrs, sizeof(*st->attrs));
	st->attrs[st->nattrs++] = (struct def_attr){ .key = xstrdup(key), .value = xstrdup(value), .line = st->line,
						     .key_col = 1, .value_col = 1 };
}

void imp_attrf(struct def_stanza *st, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *v = xvasprintf(fmt, ap);
	va_end(ap);
	imp_attr(st, key, v);
	free(v);
}

const char *imp_file(struct imp *im, const char *path)
{
	struct def_set *set = im->set;
	for (int i = 0; i < set->nfiles; i++)
		if (!strcmp(set->files[i], path))
			return set->files[i];
	set->files = evdef_grow(set->files, set->nfiles, sizeof(char *));
	set->real = evdef_grow(set->real, set->nfiles, sizeof(char *));
	set->files[set->nfiles] = xstrdup(path);
	set->real[set->nfiles] = xstrdup(path);
	return set->files[set->nfiles++];
}

char *imp_name(const char *perf_name)
{
	char *s = xstrdup(perf_name);
	for (char *p = s; *p; p++) {
		*p = (char)tolower((unsigned char)*p);
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
			*p = '_';
	}
	if (isdigit((unsigned char)s[0]) || s[0] == '.') {
		char *t = xasprintf("_%s", s);
		free(s);
		return t;
	}
	return s;
}

int imp_add_file(struct imp *im, const char *file, char **cause)
{
	char *path = xasprintf("%s/%s", im->events_dir, file);
	struct def_set g;
	int rc = defset_read_file(path, &g, cause);
	free(path);
	if (rc < 0)
		return -1;
	struct def_set *set = im->set;
	for (int i = 0; i < g.nstanzas; i++) {
		set->stanzas = evdef_grow(set->stanzas, set->nstanzas, sizeof(*set->stanzas));
		set->stanzas[set->nstanzas++] = g.stanzas[i];
	}
	for (int i = 0; i < g.nfiles; i++) {
		set->files = evdef_grow(set->files, set->nfiles, sizeof(char *));
		set->real = evdef_grow(set->real, set->nfiles, sizeof(char *));
		set->files[set->nfiles] = g.files[i];
		set->real[set->nfiles++] = g.real[i];
	}
	free(g.stanzas);
	free(g.files);
	free(g.real);
	return 0;
}
