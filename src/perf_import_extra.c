/* perf_import_extra.c: the data under events/perf/ that perf's files lack:
 * models.txt (per CPU directory: a short alias such as "icx", the --sim
 * defaults, the issue width that #slots stands for) and sim.txt (what the
 * simulated PMU counts for a perf event, as a formula over the workload
 * quantities of docs/definitions.md). Both are plain "word value" lines;
 * docs/perf-import.md describes them. */
#include "config.h"
#include "util.h"
#include "perf_import_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads path into lines; a missing file is no lines. */
static char *read_data(const char *events_dir, const char *name, char **path, char **cause)
{
	*path = xasprintf("%s/perf/%s", events_dir, name);
	char *text = read_text_file(*path);
	if (!text && errno != ENOENT)
		set_cause(cause, "%s: %s", *path, strerror(errno));
	return text;
}

int perf_extra_read(const char *events_dir, struct perf_extra **out, char **cause)
{
	*out = NULL;
	char *path, *why = NULL;
	char *text = read_data(events_dir, "models.txt", &path, &why);
	if (!text) {
		free(path);
		if (why) {
			if (cause)
				*cause = why;
			else
				free(why);
			return -1;
		}
		return 0;
	}
	int n = 0, lineno = 0, rc = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (!*line || *line == '#')
			continue;
		struct perf_extra x = { 0 };
		char *w, *ws = NULL;
		for (w = strtok_r(line, " \t", &ws); w; w = strtok_r(NULL, " \t", &ws)) {
			if (!x.dir) {
				x.dir = xstrdup(w);
			} else if (!strncmp(w, "alias=", 6)) {
				x.alias = xstrdup(w + 6);
			} else if (!strncmp(w, "sim=", 4)) {
				x.sim = xstrdup(w + 4);
			} else if (!strncmp(w, "simfrom=", 8)) {
				x.simfrom = xstrdup(w + 8);
			} else if (!strncmp(w, "l3=", 3)) {
				x.l3_domain = xstrdup(w + 3);
			} else if (!strncmp(w, "slots=", 6)) {
				x.slots = atof(w + 6);
			} else if (!strncmp(w, "shape=", 6)) {
				if (sscanf(w + 6, "%dx%dx%dx%d", &x.shape[0], &x.shape[1], &x.shape[2], &x.shape[3]) != 4)
					rc = set_cause(cause, "%s:%d: expected shape=SxCxNxT but found '%s'", path, lineno, w);
			} else if (!strncmp(w, "desc=", 5)) {
				/* The description takes the rest of the line. */
				char *rest = ws && *ws ? xasprintf("%s %s", w + 5, ws) : xstrdup(w + 5);
				x.desc = rest;
				break;
			} else {
				rc = set_cause(cause, "%s:%d: expected alias=, sim=, simfrom=, l3=, slots=, shape= or desc= but found '%s'",
					       path, lineno, w);
			}
			if (rc < 0)
				break;
		}
		*out = xrealloc(*out, (size_t)(n + 1) * sizeof(**out));
		(*out)[n++] = x;
		if (rc < 0)
			break;
	}
	free(text);
	free(path);
	if (rc < 0) {
		perf_extra_free(*out, n);
		*out = NULL;
		return -1;
	}
	return n;
}

const struct perf_extra *perf_extra_find(const struct perf_extra *l, int n, const char *dir)
{
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i].dir, base))
			return &l[i];
	return NULL;
}

void perf_extra_free(struct perf_extra *l, int n)
{
	for (int i = 0; l && i < n; i++) {
		free(l[i].dir);
		free(l[i].alias);
		free(l[i].sim);
		free(l[i].desc);
		free(l[i].l3_domain);
		free(l[i].simfrom);
	}
	free(l);
}

int perf_sim_read(const char *events_dir, struct perf_sim_map **out, char **cause)
{
	*out = NULL;
	char *path, *why = NULL;
	char *text = read_data(events_dir, "sim.txt", &path, &why);
	free(path);
	if (!text) {
		if (why) {
			if (cause)
				*cause = why;
			else
				free(why);
			return -1;
		}
		return 0;
	}
	int n = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		size_t l = strcspn(line, " \t");
		if (!line[l])
			continue;
		char *f = line + l;
		f += strspn(f, " \t");
		*out = xrealloc(*out, (size_t)(n + 1) * sizeof(**out));
		(*out)[n++] = (struct perf_sim_map){ .event = xstrndup(line, l), .formula = xstrdup(f) };
	}
	free(text);
	return n;
}

void perf_sim_free(struct perf_sim_map *l, int n)
{
	for (int i = 0; l && i < n; i++) {
		free(l[i].event);
		free(l[i].formula);
	}
	free(l);
}
