/* powercap.c: reads the powercap sysfs tree's RAPL domains (powercap.h).
 * The tree names a package's domain intel-rapl:N with name "package-N"
 * and its parts intel-rapl:N:M ("core", "dram", "uncore"); a platform
 * domain ("psys") is a top-level intel-rapl:N of its own. AMD's kernel
 * driver fills the same tree (package domains only). */
#include "config.h"
#include "powercap.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[PC_NKINDS] = {
	[PC_PACKAGE] = "package", [PC_CORES] = "core", [PC_DRAM] = "dram",
	[PC_PSYS] = "psys", [PC_UNCORE] = "uncore",
};

/* The perf power PMU's event for each kind, as the definitions' `requires`. */
static const char *const kind_events[PC_NKINDS] = {
	[PC_PACKAGE] = "events/energy-pkg", [PC_CORES] = "events/energy-cores",
	[PC_DRAM] = "events/energy-ram", [PC_PSYS] = "events/energy-psys",
	[PC_UNCORE] = "events/energy-gpu",
};

int powercap_kind_of_event(const char *requires)
{
	for (int k = 0; requires && k < PC_NKINDS; k++)
		if (!strcmp(requires, kind_events[k]))
			return k;
	return -1;
}

uint64_t powercap_delta(uint64_t prev, uint64_t now, uint64_t max_range)
{
	if (now >= prev)
		return now - prev;
	/* The counter passed max_range and started again from 0. */
	return max_range > prev ? max_range - prev + now : now;
}

static int parse_kind(const char *name, int *package)
{
	*package = -1;
	if (!strncmp(name, "package-", 8)) {
		char *end;
		long n = strtol(name + 8, &end, 10);
		if (end == name + 8 || *end || n < 0 || n > 65535)
			return -1;
		*package = (int)n;
		return PC_PACKAGE;
	}
	for (int k = PC_CORES; k < PC_NKINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

/* Sorts by package, then kind; psys last. */
static int cmp_domains(const void *a, const void *b)
{
	const struct powercap_domain *x = a, *y = b;
	unsigned px = (unsigned)x->package, py = (unsigned)y->package;
	if (px != py)
		return px < py ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

int powercap_list(const char *sysfs_root, struct powercap_domain **out, char **why)
{
	*out = NULL;
	char *base = xasprintf("%s/class/powercap", sysfs_root ? sysfs_root : "/sys");
	DIR *dir = opendir(base);
	if (!dir) {
		set_cause(why, "no powercap tree (%s: %s)", base, strerror(errno));
		free(base);
		return 0;
	}
	/* Top-level domains first, so that a part knows its package. */
	char **names = NULL;
	int nnames = 0;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL)
		if (!strncmp(de->d_name, "intel-rapl:", 11)) {
			names = xrealloc(names, sizeof(char *) * (size_t)(nnames + 1));
			names[nnames++] = xstrdup(de->d_name);
		}
	closedir(dir);
	struct powercap_domain *v = NULL;
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nnames; i++) {
			const char *sub = strchr(names[i] + 11, ':');
			if ((sub != NULL) != (pass == 1))
				continue;
			char *d = xasprintf("%s/%s", base, names[i]);
			char *path = xasprintf("%s/name", d);
			char *name = read_text_file(path);
			free(path);
			path = xasprintf("%s/max_energy_range_uj", d);
			char *range = read_text_file(path);
			free(path);
			int package = -1;
			int kind = name ? parse_kind(name, &package) : -1;
			if (sub && kind >= 0) {
				/* A part takes its parent's package. */
				size_t plen = (size_t)(sub - names[i]);
				for (int j = 0; j < n; j++) {
					const char *pn = strrchr(v[j].dir, '/') + 1;
					if (strlen(pn) == plen && !strncmp(pn, names[i], plen))
						package = v[j].package;
				}
			}
			if (kind < 0 || (kind != PC_PSYS && package < 0)) {
				free(d);
			} else {
				v = xrealloc(v, sizeof(*v) * (size_t)(n + 1));
				v[n++] = (struct powercap_domain){ .dir = d, .kind = kind, .package = package,
								   .max_range_uj = range ? strtoull(range, NULL, 10) : 0,
								   .fd = -1 };
			}
			free(name);
			free(range);
		}
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), cmp_domains);
	if (n == 0)
		set_cause(why, "no RAPL domain under %s", base);
	free(base);
	*out = v;
	return n;
}

void powercap_free(struct powercap_domain *d, int n)
{
	for (int i = 0; i < n; i++) {
		if (d[i].fd >= 0)
			close(d[i].fd);
		free(d[i].dir);
	}
	free(d);
}

int powercap_read_uj(struct powercap_domain *d, uint64_t *uj, char **cause)
{
	char *path = xasprintf("%s/energy_uj", d->dir);
	if (d->fd < 0)
		d->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char text[32];
	/* sysfs makes the value afresh for a read from offset 0. */
	ssize_t n = d->fd < 0 ? -1 : pread(d->fd, text, sizeof(text) - 1, 0);
	int err = errno;
	int rc = 0;
	char *end = NULL;
	if (n < 0) {
		rc = err ? -err : -EIO;
		set_cause(cause, "cannot read %s: %s", path, strerror(err ? err : EIO));
	} else {
		text[n] = '\0';
		text[strcspn(text, "\n")] = '\0';
		errno = 0;
		*uj = strtoull(text, &end, 10);
		if (errno || end == text || *end) {
			rc = -EIO;
			set_cause(cause, "%s: expected a number of microjoules but found '%s'", path, text);
		}
	}
	free(path);
	return rc;
}
