/* cpuid.c: which model definition fits this CPU. The vendor, family and
 * model come from /proc/cpuinfo (which the kernel derives from CPUID, with the
 * extended family and model already folded in); the choice comes from the
 * "match" lines of the models under events/, so that supporting a new CPU is
 * a data change. The most specific match wins; a CPU of a known vendor and
 * family but an unknown model gets the model whose range is nearest (as the
 * kernel's family tables grow, new models of a family mostly keep the last
 * core's events), with a note saying so; "generic" is the fallback. */
#include "config.h"
#include "cpuid.h"
#include "evdef.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the value of a "key\t: value" line into dst. */
static void copy_value(char *dst, size_t size, const char *v)
{
	snprintf(dst, size, "%s", v);
}

static bool parse_num(const char *v, int *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > INT_MAX)
		return false;
	*out = (int)n;
	return true;
}

int cpuid_read(const char *cpuinfo_path, struct cpu_ident *id, char **cause)
{
	FILE *f = fopen(cpuinfo_path, "r");
	if (!f)
		return set_cause(cause, "%s: cannot open: %s", cpuinfo_path, strerror(errno));
	memset(id, 0, sizeof(*id));
	id->family = id->model = id->stepping = -1;
	char line[1024];
	bool seen = false, have_vendor = false;
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		char *colon = strchr(line, ':');
		if (!colon) {
			/* A blank line ends the first processor's block. */
			if (seen && line[strspn(line, " \t")] == 0)
				break;
			continue;
		}
		char *k_end = colon;
		while (k_end > line && (k_end[-1] == ' ' || k_end[-1] == '\t'))
			k_end--;
		*k_end = 0;
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t vl = strlen(v);
		while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			v[--vl] = 0;
		seen = true;
		int *num = NULL;
		if (!strcmp(line, "vendor_id")) {
			copy_value(id->vendor, sizeof(id->vendor), v);
			have_vendor = true;
		} else if (!strcmp(line, "model name")) {
			/* Shown on the dashboard's header: no escapes, whatever
			 * a (virtual) CPU calls itself. */
			copy_value(id->model_name, sizeof(id->model_name), v);
			text_sanitize_inplace(id->model_name);
		} else if (!strcmp(line, "cpu family")) {
			num = &id->family;
		} else if (!strcmp(line, "model")) {
			num = &id->model;
		} else if (!strcmp(line, "stepping")) {
			num = &id->stepping;
		}
		if (num && !parse_num(v, num)) {
			rc = set_cause(cause, "%s:%d: expected a decimal number for '%s' but found '%s'", cpuinfo_path,
				       lineno, line, v);
			break;
		}
	}
	fclose(f);
	if (rc == 0 && (!have_vendor || id->family < 0 || id->model < 0))
		rc = set_cause(cause, "%s: no x86 vendor_id, cpu family and model in the first processor block",
			       cpuinfo_path);
	return rc;
}

/* How specific a match line is: a named vendor beats "*", a family beats
 * any family, and a narrower model range beats a wider one. Returns -1 when
 * the line does not match id. */
static long long match_score(const struct model_match *mm, const struct cpu_ident *id)
{
	bool any_vendor = !strcmp(mm->vendor, "*");
	if (!any_vendor && strcmp(mm->vendor, id->vendor))
		return -1;
	if (mm->family >= 0 && mm->family != id->family)
		return -1;
	if (id->model < mm->model_lo || id->model > mm->model_hi)
		return -1;
	long long width = (long long)mm->model_hi - mm->model_lo; /* 0 .. INT_MAX */
	return ((long long)!any_vendor << 34) | ((long long)(mm->family >= 0) << 33) | ((long long)INT_MAX - width);
}

const struct model_info *cpuid_pick(const struct cpu_ident *id, const struct model_info *l, int n)
{
	long long best = -1;
	int pick = -1;
	/* The list is sorted by name, so a tie goes to the first name. */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < l[i].nmatch; j++) {
			long long s = match_score(&l[i].match[j], id);
			if (s > best) {
				best = s;
				pick = i;
			}
		}
	return pick >= 0 ? &l[pick] : NULL;
}

/* How far id's model number lies from a match line of the same vendor and
 * family that names a model range; -1 when the line is of another vendor or
 * family, or covers every model. */
static long long model_distance(const struct model_match *mm, const struct cpu_ident *id)
{
	if (!strcmp(mm->vendor, "*") || strcmp(mm->vendor, id->vendor) || mm->family < 0 ||
	    mm->family != id->family || (mm->model_lo == 0 && mm->model_hi == INT_MAX))
		return -1;
	if (id->model < mm->model_lo)
		return (long long)mm->model_lo - id->model;
	if (id->model > mm->model_hi)
		return (long long)id->model - mm->model_hi;
	return 0;
}

const struct model_info *cpuid_pick_nearest(const struct cpu_ident *id, const struct model_info *l, int n,
					    char **note)
{
	const struct model_info *mi = cpuid_pick(id, l, n);
	/* A match of this vendor is a real fit; only the catch-all "*" (or no
	 * match at all) leaves room for a guess within the CPU's family. */
	for (int j = 0; mi && j < mi->nmatch; j++)
		if (!strcmp(mi->match[j].vendor, id->vendor) && match_score(&mi->match[j], id) >= 0)
			return mi;
	long long best = -1;
	int pick = -1;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < l[i].nmatch; j++) {
			long long d = model_distance(&l[i].match[j], id);
			if (d >= 0 && (best < 0 || d < best)) {
				best = d;
				pick = i;
			}
		}
	if (pick < 0)
		return mi;
	if (note)
		*note = xasprintf("%s family %xh model %02xh is not a model pmctop knows; using %s, the nearest "
				  "model of that family (--model overrides)", id->vendor, (unsigned)id->family,
				  (unsigned)id->model, l[pick].name);
	return &l[pick];
}

char *cpuid_pick_model(const struct cpu_ident *id, const char *events_dir, char **note, char **cause)
{
	struct model_info *l;
	int n = model_list(events_dir, &l, cause);
	if (n < 0)
		return NULL;
	const struct model_info *mi = cpuid_pick_nearest(id, l, n, note);
	char *name = xstrdup(mi ? mi->name : "generic");
	model_list_free(l, n);
	return name;
}
