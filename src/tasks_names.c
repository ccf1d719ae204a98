/* tasks_names.c: each sampled process's name and cgroup (tasks.h), looked
 * up through the backend when first seen, again every INFO_REFRESH
 * intervals, and forgotten when it has not run for a while. Split from
 * tasks.c: a cache with its own lifetime rules, apart from the samples. */
#include "config.h"
#include "tasks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "tasks_impl.h"

/* ---- names ---- */

/* Sorted by pid, for lookups by bisection. */
static int cmp_info(const void *a, const void *b)
{
	const struct info *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* By bisection in the part sorted at the last interval's end, then in
 * what this interval added: sorted too, since tasks_finish looks pids up
 * in increasing order (a linear search there cost the square of the
 * processes new in an interval: thousands a second on a build server). */
static struct info *info_find(struct tasks *t, int pid)
{
	struct info key = { .pid = pid };
	struct info *in = t->nsorted ? bsearch(&key, t->info, (size_t)t->nsorted, sizeof(*t->info), cmp_info) : NULL;
	int nnew = t->ninfo - t->nsorted;
	if (!in && nnew > 0)
		in = bsearch(&key, t->info + t->nsorted, (size_t)nnew, sizeof(*t->info), cmp_info);
	return in;
}

/* Looks up pid's name and cgroup where they are not known or are old. */
struct info *tasks_name_lookup(struct tasks *t, int pid)
{
	struct info *in = info_find(t, pid);
	if (in && t->seq - in->looked < INFO_REFRESH) {
		in->seen = t->seq;
		return in;
	}
	char comm[COMM_MAX] = "";
	char *cg = NULL;
	int rc = t->ops->task_info ? t->ops->task_info(t->bk, pid, comm, sizeof(comm), &cg) : -ESRCH;
	if (rc < 0) {
		if (in)
			in->seen = t->seq;  /* ended since: keep what was seen */
		return in;
	}
	if (!in) {
		if (t->ninfo == t->capinfo) {
			t->capinfo = t->capinfo ? 2 * t->capinfo : 64;
			t->info = xrealloc(t->info, sizeof(*t->info) * (size_t)t->capinfo);
		}
		in = &t->info[t->ninfo++];
		*in = (struct info){ .pid = pid };
	}
	snprintf(in->comm, sizeof(in->comm), "%s", comm);
	text_sanitize_inplace(in->comm);
	free(in->cgroup);
	in->cgroup = cg;
	if (in->cgroup)
		text_sanitize_inplace(in->cgroup);
	in->looked = in->seen = t->seq;
	return in;
}

/* Drops names not seen for a while and sorts the rest. */
void tasks_names_tidy(struct tasks *t)
{
	int k = 0;
	for (int i = 0; i < t->ninfo; i++) {
		if (t->seq - t->info[i].seen > 10 * INFO_REFRESH) {
			free(t->info[i].cgroup);
			continue;
		}
		t->info[k++] = t->info[i];
	}
	t->ninfo = k;
	qsort(t->info, (size_t)t->ninfo, sizeof(*t->info), cmp_info);
	t->nsorted = t->ninfo;
}
