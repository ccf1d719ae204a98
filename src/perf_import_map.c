/* perf_import_map.c: which of perf's CPU directories fits this CPU, the
 * way perf chooses: the CPU identifier string (vendor-family-model[-stepping]
 * on x86, the MIDR on Arm) against each mapfile.csv line in order, the
 * first match winning; and where the files are (the search path), and the
 * list of imported models that --list-models, --sim and --model see. */
#include "config.h"
#include "util.h"
#include "perf_import.h"
#include "perf_import_impl.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static bool has_mapfile(const char *root)
{
	static const char *const arches[] = { "x86", "arm64" };
	struct stat sb;
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++) {
		char *p = xasprintf("%s/%s/mapfile.csv", root, arches[i]);
		int rc = stat(p, &sb);
		free(p);
		if (rc == 0 && S_ISREG(sb.st_mode))
			return true;
	}
	return false;
}

/* --perf-events, for the loads that are not handed it (a recording's
 * model, model_load_by_name). Set once, before any thread starts. */
static char *default_root;

void perf_import_set_root(const char *dir)
{
	free(default_root);
	default_root = dir ? xstrdup(dir) : NULL;
}

char *perf_import_root(const char *given)
{
	if (given)
		return xstrdup(given);
	if (default_root)
		return xstrdup(default_root);
	/* PMCTOP_PERF_EVENTS=none turns the search off: what the test suite
	 * does, so that files a developer installed do not change the models
	 * its runs get. It names no directory (--perf-events does): what root
	 * reads should not come from an environment sudo passed on. */
	const char *env = getenv("PMCTOP_PERF_EVENTS");
	if (env && !strcmp(env, "none"))
		return NULL;
	const char *home = getenv("HOME");
	char *path = xstrdup(PERF_IMPORT_SEARCH_PATH);
	char *save = NULL, *found = NULL;
	for (char *d = strtok_r(path, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *full = d[0] == '~' ? (home ? xasprintf("%s%s", home, d + 1) : NULL) : xstrdup(d);
		/* The user's own directory is passed over where root (sudo -E)
		 * or a privileged pmctop would read another user's files
		 * (util.h, user_dir_check); the system's are root's. */
		if (full && d[0] == '~' && user_dir_check(full, NULL) < 0) {
			free(full);
			full = NULL;
		}
		if (full && has_mapfile(full))
			found = full;
		else
			free(full);
	}
	free(path);
	return found;
}

/* A mapfile's identifiers are regular expressions that regcomp() takes
 * as they are, and glibc's regcomp expands bounded repetitions: a line
 * such as GenuineIntel-6-((6{255}){255}){255} took 8.9 s and 3.47 GB
 * before pmctop matched anything. perf's own patterns are under 50
 * characters, with at most one quantifier on a bracket expression
 * ([[:xdigit:]]+, [[:xdigit:]]{4}); so a pattern is bounded in length, in
 * its repetition counts, and refused where a quantified group holds a
 * quantifier itself (nested repetition). NULL when the pattern is within
 * these bounds, else what is wrong with it. */
#define MAP_PATTERN_MAX 128
#define MAP_REPEAT_MAX 32
#define MAP_DEPTH_MAX 16
#define MAP_STR_(x) #x
#define MAP_STR(x) MAP_STR_(x)

static const char *pattern_unbounded(const char *pat)
{
	bool quantified[MAP_DEPTH_MAX + 1] = { false };   /* the group at that depth holds a quantifier */
	int depth = 0;
	if (strlen(pat) > MAP_PATTERN_MAX)
		return "longer than " MAP_STR(MAP_PATTERN_MAX) " characters";
	for (const char *p = pat; *p; p++) {
		bool group_end = false;
		switch (*p) {
		case '\\':
			if (p[1])
				p++;
			break;
		case '[': {
			/* A bracket expression, its first ']' and [:class:] taken
			 * as members. */
			const char *q = p + 1;
			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']') {
				if (q[0] == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
					const char *e = strchr(q + 2, q[1]);
					q = e && e[1] == ']' ? e + 2 : q + 1;
				} else {
					q++;
				}
			}
			if (!*q)
				return "a '[' without its ']'";
			p = q;
			break;
		}
		case '(':
			if (depth == MAP_DEPTH_MAX)
				return "groups nested more than " MAP_STR(MAP_DEPTH_MAX) " deep";
			quantified[++depth] = false;
			continue;
		case ')':
			if (depth == 0)
				return "a ')' without its '('";
			group_end = true;
			/* What a group holds, its parent holds too. */
			if (quantified[depth])
				quantified[depth - 1] = true;
			depth--;
			break;
		default:
			/* Quantifiers are passed over where they follow what they
			 * repeat (below); one here repeats nothing or another
			 * quantifier, which glibc takes as a nested repetition
			 * (a*{9} is (a*){9}). */
			if (strchr("*+?{", *p))
				return "a repetition of nothing or of a repetition";
			break;
		}
		/* What p ends (a character, a bracket expression or a group)
		 * may be followed by a quantifier. */
		char q = p[1];
		if (!q || !strchr("*+?{", q))
			continue;
		if (group_end && quantified[depth + 1])
			return "a repeated group that holds a repetition itself";
		if (q == '{') {
			char *end;
			unsigned long lo = strtoul(p + 2, &end, 10), hi = lo;
			if (*end == ',')
				hi = end[1] == '}' ? 0 : strtoul(end + 1, &end, 10);
			if (lo > MAP_REPEAT_MAX || hi > MAP_REPEAT_MAX)
				return "a repetition count over " MAP_STR(MAP_REPEAT_MAX);
		}
		quantified[depth] = true;
		p++;
		if (q == '{')
			while (p[1] && p[0] != '}')
				p++;
	}
	return NULL;
}

/* Reads one arch's mapfile.csv; a missing file adds nothing. */
static int read_one_map(const char *root, const char *arch, struct perf_cpu **out, int *n, char **cause)
{
	char *path = xasprintf("%s/%s/mapfile.csv", root, arch);
	char *text = read_text_file(path);
	if (!text) {
		int e = errno;
		int rc = e == ENOENT ? 0 : set_cause(cause, "%s: %s", path, strerror(e));
		free(path);
		return rc;
	}
	int lineno = 0, rc = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#' || !strncmp(line, "Family-model", 12))
			continue;
		/* id,version,dir,type: the type says core or uncore, and perf
		 * reads the one directory for both. */
		char *f[4] = { 0 };
		int nf = 0;
		char *p = line;
		while (nf < 4) {
			f[nf++] = p;
			p = strchr(p, ',');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf < 3 || !*f[0] || !*f[2]) {
			rc = set_cause(cause, "%s:%d: expected 'id,version,directory,type'", path, lineno);
			break;
		}
		/* A directory below the arch's own, named in plain characters. */
		if (f[2][0] == '/' || strstr(f[2], "..") || text_bad_at(f[2]) >= 0) {
			char *clean = text_sanitize(f[2]);
			rc = set_cause(cause, "%s:%d: expected a directory below %s/%s but found '%s'", path, lineno, root,
				       arch, clean);
			free(clean);
			break;
		}
		const char *unbounded = pattern_unbounded(f[0]);
		if (unbounded) {
			rc = set_cause(cause, "%s:%d: expected a CPU identifier pattern of perf's shape, found %s",
				       path, lineno, unbounded);
			break;
		}
		*out = xrealloc(*out, (size_t)(*n + 1) * sizeof(**out));
		(*out)[(*n)++] = (struct perf_cpu){ .arch = xstrdup(arch), .id = xstrdup(f[0]), .dir = xstrdup(f[2]) };
	}
	free(text);
	free(path);
	return rc;
}

int perf_map_read(const char *root, struct perf_cpu **out, char **cause)
{
	int n = 0;
	*out = NULL;
	if (read_one_map(root, "x86", out, &n, cause) < 0 || read_one_map(root, "arm64", out, &n, cause) < 0) {
		perf_map_free(*out, n);
		*out = NULL;
		return -1;
	}
	if (n == 0)
		return set_cause(cause, "%s: no x86/mapfile.csv or arm64/mapfile.csv (perf's pmu-events/arch directory)", root);
	return n;
}

void perf_map_free(struct perf_cpu *l, int n)
{
	for (int i = 0; l && i < n; i++) {
		free(l[i].arch);
		free(l[i].id);
		free(l[i].dir);
	}
	free(l);
}

char *perf_cpuid_string(const char *cpuinfo_path, char **cause)
{
	struct cpu_ident id;
	char *why = NULL;
	if (cpuid_read(cpuinfo_path, &id, &why) == 0) {
		free(why);
		return xasprintf("%s-%d-%X-%X", id.vendor, id.family, (unsigned)id.model,
				 (unsigned)(id.stepping < 0 ? 0 : id.stepping));
	}
	free(why);
	/* Arm: MIDR_EL1 from its fields as the kernel prints them. */
	FILE *f = fopen(cpuinfo_path, "r");
	if (!f) {
		set_cause(cause, "%s: cannot open: %s", cpuinfo_path, strerror(errno));
		return NULL;
	}
	long impl = -1, part = -1;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		long v = strtol(colon + 1, NULL, 0);
		if (!strncmp(line, "CPU implementer", 15) && impl < 0)
			impl = v;
		else if (!strncmp(line, "CPU part", 8) && part < 0)
			part = v;
	}
	fclose(f);
	if (impl < 0 || part < 0 || impl > 0xff || part > 0xfff) {
		set_cause(cause, "%s: neither an x86 vendor_id, family and model nor an Arm CPU implementer and part",
			  cpuinfo_path);
		return NULL;
	}
	/* Variant and revision are zero in the mapfile; architecture 0xf. */
	unsigned long midr = ((unsigned long)impl << 24) | (0xfUL << 16) | ((unsigned long)part << 4);
	return xasprintf("0x%016lx", midr);
}

/* perf compares an x86 line without a stepping with the identifier cut
 * after its model: "GenuineIntel-6-6A" against "GenuineIntel-6-6[AC]". */
#define RE_META "\\.[]()*+?{}|^$"

/* Whether c (or its other case: the match ignores case) lies in the
 * bracket expression whose members are p..end ("6C", "0-9A-F"). */
static bool in_class(const char *p, const char *end, char c)
{
	char lo = (char)tolower((unsigned char)c), up = (char)toupper((unsigned char)c);
	for (; p < end; p++) {
		char a = *p, z = *p;
		if (p + 2 < end && p[1] == '-') {
			z = p[2];
			p += 2;
		}
		if ((lo >= a && lo <= z) || (up >= a && up <= z))
			return true;
	}
	return false;
}

/* Whether id can match pattern at all (false only where it surely cannot):
 * its literal start ("GenuineIntel-6-" of "GenuineIntel-6-(97|9A)"), then
 * the bracket expression or the group of literal alternatives that
 * follows it, compared with id's next characters. Most lines of a mapfile
 * fail here; compiling each line's regex took a twentieth of an imported
 * model's start-up. True when the pattern is beyond these simple shapes
 * (an alternative at its top level, escapes, character classes such as
 * [[:xdigit:]], a quantifier on what is compared). */
static bool may_match(const char *pattern, const char *id)
{
	int depth = 0;
	for (const char *p = pattern; *p; p++) {
		depth += *p == '(';
		depth -= *p == ')';
		if (*p == '\\' || (*p == '|' && depth <= 0))
			return true;
	}
	size_t n = strcspn(pattern, RE_META);
	if (n > 0 && pattern[n] && strchr("*+?{", pattern[n]))
		n--;
	if (strncasecmp(pattern, id, n))
		return false;
	const char *p = pattern + n, *q = id + n;
	if (*p == '[') {
		const char *end = p[1] ? strchr(p + 2, ']') : NULL;
		if (!end || p[1] == '^' || p[1] == ']' || memchr(p, ':', (size_t)(end - p)) ||
		    (end[1] && strchr("*?{", end[1])))
			return true;
		return *q && in_class(p + 1, end, *q);
	}
	if (*p == '(') {
		const char *end = p + 1;
		for (depth = 1; *end && depth; end++)
			depth += (*end == '(') - (*end == ')');
		if (depth || (*end && strchr("*?{", *end)) || memchr(p + 1, '(', (size_t)(end - p - 1)))
			return true;
		/* end is past the closing ')'; each alternative is literal up
		 * to its first special character. */
		for (const char *alt = p + 1;;) {
			size_t len = strcspn(alt, "|)"), k = strcspn(alt, RE_META);
			if (k > len)
				k = len;
			if (k > 0 && k < len && strchr("*+?{", alt[k]))
				k--;
			if (k == 0 || !strncasecmp(alt, q, k))
				return true;
			if (alt[len] != '|')
				return false;
			alt += len + 1;
		}
	}
	return true;
}

static bool x86_match(const char *pattern, const char *cpuid)
{
	int dashes = 0;
	for (const char *p = pattern; *p; p++)
		dashes += *p == '-';
	char *id = xstrdup(cpuid);
	if (dashes < 3) {
		char *d = strrchr(id, '-');
		if (d)
			*d = '\0';
	}
	/* A pattern of literal characters only is the identifier or not. */
	bool literal = !pattern[strcspn(pattern, RE_META)];
	if (literal || !may_match(pattern, id)) {
		bool same = literal && !strcasecmp(pattern, id);
		free(id);
		return same;
	}
	char *anchored = xasprintf("^(%s)$", pattern);
	regex_t re;
	bool ok = false;
	if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB | REG_ICASE) == 0) {
		ok = regexec(&re, id, 0, NULL, 0) == 0;
		regfree(&re);
	}
	free(anchored);
	free(id);
	return ok;
}

int perf_map_match(const struct perf_cpu *l, int n, const char *cpuid)
{
	if (!cpuid)
		return -1;
	bool arm = !strncmp(cpuid, "0x", 2);
	for (int i = 0; i < n; i++) {
		if (arm != !strcmp(l[i].arch, "arm64"))
			continue;
		if (arm ? !strcasecmp(l[i].id, cpuid) : x86_match(l[i].id, cpuid))
			return i;
	}
	return -1;
}

char *perf_model_name(const char *dir)
{
	const char *base = strrchr(dir, '/');
	return xasprintf("perf-%s", base ? base + 1 : dir);
}

int perf_import_list(const char *root, const char *events_dir, struct model_info **out, char **cause)
{
	*out = NULL;
	if (!root)
		return 0;
	struct perf_cpu *map;
	int nmap = perf_map_read(root, &map, cause);
	if (nmap < 0)
		return -1;
	struct perf_extra *extra = NULL;
	int nextra = perf_extra_read(events_dir, &extra, cause);
	if (nextra < 0) {
		perf_map_free(map, nmap);
		return -1;
	}
	struct model_info *l = NULL;
	int n = 0;
	for (int i = 0; i < nmap; i++) {
		char *name = perf_model_name(map[i].dir);
		bool seen = false;
		for (int j = 0; j < n && !seen; j++)
			seen = !strcmp(l[j].name, name);
		char *dir = xasprintf("%s/%s/%s", root, map[i].arch, map[i].dir);
		struct stat sb;
		if (seen || stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			free(name);
			free(dir);
			continue;
		}
		l = xrealloc(l, (size_t)(n + 1) * sizeof(*l));
		struct model_info *mi = &l[n++];
		*mi = (struct model_info){ .name = name, .dir = dir, .imported = true };
		const struct perf_extra *x = perf_extra_find(extra, nextra, map[i].dir);
		mi->desc = xasprintf("%s (imported from Linux perf's %s/%s)", x && x->desc ? x->desc : map[i].dir,
				     map[i].arch, map[i].dir);
		if (x) {
			mi->alias = x->alias ? xstrdup(x->alias) : NULL;
			mi->sim_args = x->sim ? xstrdup(x->sim) : NULL;
			mi->l3_domain = x->l3_domain ? xstrdup(x->l3_domain) : NULL;
			memcpy(mi->sim_shape, x->shape, sizeof(mi->sim_shape));
		}
		if (!mi->sim_shape[0]) {
			static const int shape[4] = { 1, 1, 4, 2 };
			memcpy(mi->sim_shape, shape, sizeof(shape));
		}
	}
	perf_extra_free(extra, nextra);
	perf_map_free(map, nmap);
	*out = l;
	return n;
}
