/* fuzz_filter.c: libFuzzer harness for the dashboard's '/' row filter
 * (format_parse_filter: a CPU list, "ccx LIST", "l3 LIST", "socket LIST")
 * and its event search (format_match). The first byte picks one of four
 * topologies: a synthetic 2-socket machine, one built with topo_from_cpus
 * with gaps in the CPU numbers, offline CPUs and no L3, a 192-CPU sysfs
 * fixture, and that fixture with CPUs taken offline as hotplug would. The
 * rest, up to a NUL, is the filter; after the NUL, a search word matched
 * against the filter text. Checked: a refusal has a cause; an empty
 * filter keeps every CPU; a group filter keeps only online CPUs of the
 * topology; format_match agrees with a plain case-insensitive search.
 * Build: see docs/fuzzing.md. */
#include "config.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format.h"
#include "topo.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct topo *topos[4];

static void make_topos(void)
{
	topos[0] = topo_synthetic(2, 2, 2, 2);
	/* CPUs 0-3 and 8-11 (a gap), CPUs 2 and 9 offline, one without any
	 * topology, none with an L3. */
	struct topo_cpu c[8];
	for (int i = 0; i < 8; i++)
		c[i] = (struct topo_cpu){ .cpu = i < 4 ? i : i + 4, .online = i != 2 && i != 5,
					  .has_topology = i != 7, .core_id = i / 2, .package_id = i / 4,
					  .l3_id = -1, .l3_first = -1 };
	topos[1] = topo_from_cpus(c, 8, 1, NULL);
	topos[2] = topo_load(FUZZ_SYSFS_DIR "/zen4-2s192c-nps4", NULL);
	if (!topos[0] || !topos[1] || !topos[2])
		abort();
	topos[3] = topo_clone(topos[2]);
	for (int cpu = 1; cpu < 192; cpu += 7)
		topo_set_online(topos[3], cpu, false);
}

static bool plain_match(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return true;
	for (size_t i = 0; hay[i]; i++) {
		size_t k = 0;
		while (k < n && hay[i + k] && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]))
			k++;
		if (k == n)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	if (!topos[0])
		make_topos();
	const struct topo *t = topos[data[0] % 4];
	char *text = xstrndup((const char *)data + 1, size - 1);
	size_t tlen = strlen(text);
	char *needle = tlen + 1 < size - 1 ? xstrndup((const char *)data + 2 + tlen, size - 2 - tlen) : xstrdup("");
	bool *cpus = xcalloc((size_t)t->max_cpu + 1, sizeof(bool));
	char *cause = NULL;
	int rc = format_parse_filter(text, t, cpus, &cause);
	const char *s = text;
	while (isspace((unsigned char)*s))
		s++;
	if (rc < 0) {
		if (rc != -1 || !cause || !*cause)
			abort();
	} else {
		if (rc != 0 || cause)
			abort();
		bool group = !strncasecmp(s, "ccx", 3) || !strncasecmp(s, "l3", 2) || !strncasecmp(s, "socket", 6);
		for (int cpu = 0; cpu < t->max_cpu; cpu++) {
			const struct topo_cpu *c = topo_cpu_by_num(t, cpu);
			if (!*s && !cpus[cpu])
				abort();
			if (group && cpus[cpu] && (!c || !c->online))
				abort();
		}
	}
	if (format_match(text, needle) != plain_match(text, needle))
		abort();
	free(cause);
	free(cpus);
	free(needle);
	free(text);
	return 0;
}
