/* format_text.c: the text half of format.h: bar legends, wrapped lines
 * and CPU lists as the dashboard writes them, and the row filter and
 * event search typed into it. Pure functions of their arguments. */
#include "config.h"
#include "format.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo.h"
#include "util.h"

/* The legend at one level of shortening: 0 whole labels, 1 first words,
 * 2 first words cut to three letters. Returns its length. */
static int legend_at(char *buf, int len, int width, int level, const char *letters,
		     const char *const *labels, int n)
{
	int used = 0;
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *l = labels[i] ? labels[i] : "";
		int lw = level == 0 ? (int)strlen(l) : (int)strcspn(l, " ");
		if (level == 2 && lw > 3)
			lw = 3;
		char entry[64];
		int ew = snprintf(entry, sizeof(entry), "%s%c=%.*s", used ? " " : "", letters[i], lw, l);
		if (ew >= (int)sizeof(entry) || used + ew > width || used + ew >= len)
			return -1;
		memcpy(buf + used, entry, (size_t)ew + 1);
		used += ew;
	}
	return used;
}

const char *format_legend(char *buf, int len, int width, const char *letters, const char *const *labels, int n)
{
	if (len < 1)
		return buf;
	for (int level = 0; level < 3; level++)
		if (legend_at(buf, len, width, level, letters, labels, n) >= 0)
			return buf;
	/* Not even the shortest form of all: as many whole entries as fit. */
	while (n > 0 && legend_at(buf, len, width, 2, letters, labels, n) < 0)
		n--;
	if (n == 0)
		buf[0] = 0;
	return buf;
}

bool format_match(const char *hay, const char *needle)
{
	if (!needle || !*needle)
		return true;
	if (!hay)
		return false;
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (strncasecmp(p, needle, n) == 0)
			return true;
	return false;
}

/* "ccx 1-3" or "socket 0": the groups listed, as a bitmap of CPUs. */
static int filter_groups(const char *list, const struct topo *t, bool ccx, bool *cpus, char **cause)
{
	int n = ccx ? t->nccx : t->nsockets;
	bool *sel = xcalloc((size_t)(n > 0 ? n : 1), sizeof(bool));
	int rc = -1;
	if (n < 1) {
		set_cause(cause, "this machine has no %s", ccx ? "CCX (no L3 cache found)" : "sockets");
		goto out;
	}
	/* cpulist_parse speaks of CPUs; say which groups exist instead. */
	if (cpulist_parse(list, sel, n, NULL) < 0) {
		set_cause(cause, "'%s' is not a list of %s numbers 0-%d", list, ccx ? "CCX" : "socket", n - 1);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (!sel[i])
			continue;
		int nc = ccx ? t->ccxs[i].ncpus : t->sockets[i].ncpus;
		const int *cl = ccx ? t->ccxs[i].cpus : t->sockets[i].cpus;
		for (int j = 0; j < nc; j++)
			if (cl[j] >= 0 && cl[j] < t->max_cpu)
				cpus[cl[j]] = true;
	}
	rc = 0;
out:
	free(sel);
	return rc;
}

int format_parse_filter(const char *text, const struct topo *t, bool *cpus, char **cause)
{
	while (text && isspace((unsigned char)*text))
		text++;
	if (!text || !*text) {
		for (int i = 0; i < t->max_cpu; i++)
			cpus[i] = true;
		return 0;
	}
	for (int i = 0; i < t->max_cpu; i++)
		cpus[i] = false;
	static const struct { const char *word; bool ccx; } kw[] = {
		{ "ccx", true }, { "l3", true }, { "socket", false },
	};
	bool ccx = false, group = false;
	for (size_t k = 0; k < sizeof(kw) / sizeof(kw[0]) && !group; k++) {
		size_t n = strlen(kw[k].word);
		if (strncasecmp(text, kw[k].word, n) == 0 &&
		    (isspace((unsigned char)text[n]) || isdigit((unsigned char)text[n]))) {
			group = true;
			ccx = kw[k].ccx;
			text += n;
		}
	}
	/* The list without the blanks around it and its separators: " 2 "
	 * and "0, 4 - 7" are typed too; "1 2" stays an error, not 12. */
	char *list = xmalloc(strlen(text) + 1);
	size_t m = 0;
	for (const char *p = text; *p; p++) {
		if (isspace((unsigned char)*p)) {
			const char *next = p;
			while (isspace((unsigned char)*next))
				next++;
			bool edge = m == 0 || list[m - 1] == ',' || list[m - 1] == '-' || !*next || *next == ',' ||
				    *next == '-';
			if (edge)
				continue;
		}
		list[m++] = *p;
	}
	list[m] = 0;
	int rc = group ? filter_groups(list, t, ccx, cpus, cause) : cpulist_parse(list, cpus, t->max_cpu, cause);
	free(list);
	return rc;
}

int format_wrap(const char *text, int width, int *start, int *len, int max)
{
	int n = 0;
	if (!text || width < 1)
		return 0;
	const char *p = text;
	while (*p) {
		int linelen = (int)strcspn(p, "\n");
		int take = linelen;
		if (take > width) {
			/* Break at the last space that fits, else cut the word. */
			take = width;
			for (int i = width; i > 0; i--)
				if (p[i] == ' ') {
					take = i;
					break;
				}
		}
		if (n < max) {
			start[n] = (int)(p - text);
			len[n] = take;
		}
		n++;
		p += take;
		if (take == linelen) {
			if (*p == '\n')
				p++;
		} else {
			while (*p == ' ')
				p++;
		}
	}
	return n;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

void format_cpulist(char *buf, int len, const int *cpus, int n, bool ranges)
{
	if (len < 1)
		return;
	buf[0] = 0;
	if (n < 1) {
		snprintf(buf, (size_t)len, "-");
		return;
	}
	int *s = xmalloc(sizeof(int) * (size_t)n);
	memcpy(s, cpus, sizeof(int) * (size_t)n);
	qsort(s, (size_t)n, sizeof(int), int_cmp);
	int k = 0;
	for (int i = 0; i < n; ) {
		int j = i;
		while (ranges && j + 1 < n && s[j + 1] == s[j] + 1)
			j++;
		char item[32];
		int il = j > i ? snprintf(item, sizeof(item), "%s%d-%d", k ? "," : "", s[i], s[j])
			       : snprintf(item, sizeof(item), "%s%d", k ? "," : "", s[i]);
		if (k + il >= len) {
			/* Room for "..." at the end. */
			int cut = len - 4 > 0 ? len - 4 : 0;
			if (k > cut)
				k = cut;
			snprintf(buf + k, (size_t)(len - k), "...");
			break;
		}
		memcpy(buf + k, item, (size_t)il + 1);
		k += il;
		i = j + 1;
	}
	free(s);
}
