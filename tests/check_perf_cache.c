/* check_perf_cache.c: the model cache (perf_cache.c, perf_cache_codec.c)
 * on the small perf fixtures (tests/fixtures/perf-arch):
 *  - a cache file gives back the very stanzas the import made, and the
 *    model built from them equals a fresh import in every event encoding,
 *    metric formula, PMU and view;
 *  - a file cut short at any byte, altered at any byte, written for
 *    another identity, or forged past its checksum is refused, never read
 *    past its end;
 *  - loading through the cache: written once, then read; not read when it
 *    is writable by others, corrupt or stale (an input changed), or when
 *    PMCTOP_NO_CACHE is set; nothing read or written in a cache directory
 *    that others may write. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evdef.h"
#include "evdef_impl.h"
#include "expr.h"
#include "perf_cache.h"
#include "perf_import.h"
#include "perf_import_impl.h"
#include "util.h"

#define ARCH TOP_SRCDIR "/tests/fixtures/perf-arch"
#define EVENTS TOP_SRCDIR "/events"

static const char *const models[] = { "perf-testlake", "perf-testverse" };
static const struct perf_import_opts opts = { .smt = true, .ncpus_online = 64, .ncores = 32, .npackages = 2,
					      .ndies = 2 };

static void str_eq(const char *a, const char *b, const char *what)
{
	ck_assert_msg((!a && !b) || (a && b && !strcmp(a, b)), "%s: '%s' against '%s'", what, a ? a : "(null)",
		      b ? b : "(null)");
}

/* Two models alike in everything the rest of pmctop reads. */
static void models_equal(const struct model *a, const struct model *b)
{
	str_eq(a->name, b->name, "name");
	str_eq(a->desc, b->desc, "desc");
	str_eq(a->dir, b->dir, "dir");
	str_eq(a->sim_args, b->sim_args, "sim_args");
	ck_assert(a->imported && b->imported);
	ck_assert_int_eq(a->npmus, b->npmus);
	for (int i = 0; i < a->npmus; i++) {
		str_eq(a->pmus[i].name, b->pmus[i].name, "pmu");
		str_eq(a->pmus[i].perf_name, b->pmus[i].perf_name, "pmu perf_name");
		ck_assert_int_eq(a->pmus[i].counters, b->pmus[i].counters);
		ck_assert_int_eq(a->pmus[i].fixed, b->pmus[i].fixed);
		ck_assert_int_eq(a->pmus[i].kind, b->pmus[i].kind);
	}
	ck_assert_int_eq(a->nevents, b->nevents);
	for (int i = 0; i < a->nevents; i++) {
		const struct event_def *x = &a->events[i], *y = &b->events[i];
		str_eq(x->name, y->name, "event");
		ck_assert_int_eq(x->pmu, y->pmu);
		ck_assert_int_eq(x->enc, y->enc);
		ck_assert_uint_eq(x->raw, y->raw);
		str_eq(x->spec, y->spec, x->name);
		str_eq(x->desc, y->desc, x->name);
		str_eq(x->sim_text, y->sim_text, x->name);
		str_eq(x->requires, y->requires, x->name);
		ck_assert_uint_eq(x->flags, y->flags);
		ck_assert_uint_eq(x->counter_mask, y->counter_mask);
		ck_assert_int_eq(x->fallback, y->fallback);
		ck_assert_int_eq(x->line, y->line);
		str_eq(x->file, y->file, x->name);
	}
	ck_assert_int_eq(a->nmetrics, b->nmetrics);
	for (int i = 0; i < a->nmetrics; i++) {
		const struct metric_def *x = &a->metrics[i], *y = &b->metrics[i];
		str_eq(x->name, y->name, "metric");
		str_eq(x->formula, y->formula, x->name);
		str_eq(x->unit, y->unit, x->name);
		str_eq(x->label, y->label, x->name);
		str_eq(x->desc, y->desc, x->name);
		str_eq(x->perf, y->perf, x->name);
		ck_assert_int_eq(x->scope, y->scope);
		ck_assert_int_eq(x->parent, y->parent);
		ck_assert_int_eq(x->depth, y->depth);
		ck_assert_int_eq(x->nevents, y->nevents);
		for (int k = 0; k < x->nevents; k++)
			ck_assert_int_eq(x->events[k], y->events[k]);
		ck_assert_int_eq(x->ngroups, y->ngroups);
		for (int k = 0; k < x->ngroups; k++)
			str_eq(x->groups[k], y->groups[k], x->name);
	}
	ck_assert_int_eq(a->nviews, b->nviews);
	for (int i = 0; i < a->nviews; i++) {
		str_eq(a->views[i].name, b->views[i].name, "view");
		ck_assert_int_eq(a->views[i].ncols, b->views[i].ncols);
		for (int k = 0; k < a->views[i].ncols; k++)
			ck_assert_int_eq(a->views[i].cols[k].metric, b->views[i].cols[k].metric);
	}
}

static void sets_equal(const struct def_set *a, const struct def_set *b)
{
	ck_assert_int_eq(a->nfiles, b->nfiles);
	for (int i = 0; i < a->nfiles; i++) {
		str_eq(a->files[i], b->files[i], "file");
		str_eq(a->real[i], b->real[i], "real");
	}
	ck_assert_int_eq(a->nstanzas, b->nstanzas);
	for (int i = 0; i < a->nstanzas; i++) {
		const struct def_stanza *x = &a->stanzas[i], *y = &b->stanzas[i];
		ck_assert_int_eq(x->kind, y->kind);
		str_eq(x->name, y->name, "stanza");
		str_eq(x->file, y->file, x->name);
		ck_assert_int_eq(x->line, y->line);
		ck_assert_int_eq(x->name_col, y->name_col);
		ck_assert_int_eq(x->nattrs, y->nattrs);
		for (int j = 0; j < x->nattrs; j++) {
			str_eq(x->attrs[j].key, y->attrs[j].key, x->name);
			str_eq(x->attrs[j].value, y->attrs[j].value, x->attrs[j].key);
			ck_assert_int_eq(x->attrs[j].line, y->attrs[j].line);
			ck_assert_int_eq(x->attrs[j].key_col, y->attrs[j].key_col);
			ck_assert_int_eq(x->attrs[j].value_col, y->attrs[j].value_col);
		}
	}
}

static const struct perf_cache_input one_input = { .path = (char *)ARCH "/x86/mapfile.csv", .dev = 1, .ino = 2,
						    .size = 3, .mtime_ns = 4, .ctime_ns = 5, .mode = 0100644 };

/* The encoded cache of model mi's fresh import. */
static char *encoded(int mi, size_t *len, struct def_set *set, char **dir, char **skipped)
{
	char *why = NULL;
	ck_assert_msg(perf_import_stanzas(ARCH, EVENTS, models[mi], &opts, set, dir, skipped, &why) == 0, "%s", why);
	return perf_cache_encode("id", &one_input, 1, set, *dir, *skipped, len);
}

START_TEST(test_round_trip)
{
	struct def_set set, back;
	char *dir, *skipped, *dir2, *skipped2, *why = NULL;
	size_t len;
	char *buf = encoded(_i, &len, &set, &dir, &skipped);
	struct perf_cache_input *in;
	int nin;
	ck_assert_msg(perf_cache_decode(buf, len, "id", &in, &nin, &back, &dir2, &skipped2, &why) == 0, "%s", why);
	ck_assert_ptr_eq(back.pool, buf);   /* the strings were not copied */
	ck_assert_int_eq(nin, 1);
	str_eq(in[0].path, one_input.path, "input");
	ck_assert_uint_eq(in[0].ino, 2);
	ck_assert_uint_eq(in[0].ctime_ns, 5);
	ck_assert_uint_eq(in[0].mode, 0100644);
	sets_equal(&set, &back);
	str_eq(dir, dir2, "dir");
	str_eq(skipped, skipped2, "skipped");
	/* The model from the decoded stanzas is the model imported afresh. */
	struct model *fresh = perf_import_load(ARCH, EVENTS, models[_i], &opts, NULL, &why);
	ck_assert_msg(fresh, "%s", why);
	struct model *m = evdef_build_set(&back, dir2, &why);
	ck_assert_msg(m, "%s", why);
	m->imported = true;
	models_equal(fresh, m);
	model_free(m);
	model_free(fresh);
	perf_cache_inputs_free(in, nin);
	defset_free(&back);   /* and buf, its pool */
	defset_free(&set);
	free(dir);
	free(dir2);
	free(skipped);
	free(skipped2);
}
END_TEST

static bool refused(const char *buf, size_t len, const char *id, char **why)
{
	char *copy = xmalloc(len + 1);
	memcpy(copy, buf, len);
	copy[len] = 0;
	struct def_set set;
	struct perf_cache_input *in;
	int nin;
	char *dir, *skipped;
	free(*why);
	*why = NULL;
	int rc = perf_cache_decode(copy, len, id, &in, &nin, &set, &dir, &skipped, why);
	if (rc == 0) {
		perf_cache_inputs_free(in, nin);
		defset_free(&set);
		free(dir);
		free(skipped);
		return false;
	}
	free(copy);
	return *why != NULL;
}

START_TEST(test_cut_or_altered)
{
	struct def_set set;
	char *dir, *skipped, *why = NULL;
	size_t len;
	char *buf = encoded(0, &len, &set, &dir, &skipped);
	ck_assert(!refused(buf, len, "id", &why));
	ck_assert(refused(buf, len, "another id", &why));
	for (size_t n = 0; n < len; n++)
		ck_assert_msg(refused(buf, n, "id", &why), "cut at %zu of %zu bytes", n, len);
	for (size_t i = 0; i < len; i += 7) {
		buf[i] ^= 0x20;
		ck_assert_msg(refused(buf, len, "id", &why), "byte %zu altered", i);
		buf[i] ^= 0x20;
	}
	free(why);
	free(buf);
	defset_free(&set);
	free(dir);
	free(skipped);
}
END_TEST

/* Bodies with a right checksum but wrong contents, as only a forger (or
 * the fuzzer) makes: each is refused with its reason. */
static const struct {
	const char *body, *why;
} forged[] = {
	{ "", "string's length" },
	{ "5:other\n", "identity" },
	{ "2:id\n999999;", "count" },
	{ "2:id\n0;1:d\n0;0;0;end\n", "model stanza" },
	{ "2:id\n0;1:d\n0;1;1:f\n1:f\n1;1;1:m\n0;1;1;0;end\n", "model stanza first" },
	{ "2:id\n0;1:d\n0;1;1:f\n1:f\n1;0;1:m\n1;1;1;0;end\n", "smaller number" },
	{ "2:id\n0;1:d\n0;1;1:f\n1:f\n1;0;1:m\n0;1;1;0;", "end of the file" },
	{ "2:id\n0;1:d\n0;1;1:f\n1:f\n1;0;1:m\n0;1;1;0;end\nx", "end of the file" },
	{ "2:id\n0;1:d\n0;1;1:f\n1:f\n1;9;1:m\n0;1;1;0;end\n", "smaller number" },
	{ "2:id\n0;1:d\n0;1;1:f\n1:f\n1;0;1:m\n0;1;1;1;1:k\n1:v\n1;1;99999999999;end\n", "number" },
};

/* A string holding a NUL, which no stanza's string can. */
#define NUL_BODY "2:id\n0;1:d\n0;1;3:f\0g\n1:f\n1;0;1:m\n0;1;1;0;end\n"

START_TEST(test_forged)
{
	bool nul = _i == (int)ARRAY_SIZE(forged);
	const char *body = nul ? NUL_BODY : forged[_i].body, *want = nul ? "without NUL" : forged[_i].why;
	size_t n = nul ? sizeof(NUL_BODY) - 1 : strlen(body);
	char *block = xmalloc(n + 1);
	memcpy(block, body, n);
	block[n] = 0;
	struct def_set set;
	struct perf_cache_input *in;
	int nin;
	char *dir, *skipped, *why = NULL;
	ck_assert_int_eq(perf_cache_decode_body(block, 0, n, "id", &in, &nin, &set, &dir, &skipped, &why), -1);
	ck_assert_msg(why && strstr(why, want), "case %d: '%s', expected '%s'", _i, why ? why : "", want);
	free(why);
	free(block);
}
END_TEST

/* The smallest body that decodes: the forged cases above differ from it. */
START_TEST(test_smallest_body)
{
	const char *body = "2:id\n0;1:d\n0;1;1:f\n1:f\n1;0;1:m\n0;1;1;1;1:k\n1:v\n1;1;1;end\n";
	char *block = xstrdup(body);
	struct def_set set;
	struct perf_cache_input *in;
	int nin;
	char *dir, *skipped, *why = NULL;
	ck_assert_msg(perf_cache_decode_body(block, 0, strlen(body), "id", &in, &nin, &set, &dir, &skipped, &why) == 0,
		      "%s", why);
	ck_assert_int_eq(set.nstanzas, 1);
	ck_assert_str_eq(set.stanzas[0].attrs[0].value, "v");
	perf_cache_inputs_free(in, nin);
	defset_free(&set);
	free(dir);
	/* "*": the attribute lies at its stanza's line, columns 1. */
	body = "2:id\n0;1:d\n0;1;1:f\n1:f\n1;0;1:m\n0;7;1;2;1:k\n1:v\n*1:j\n1:w\n3;4;5;end\n";
	block = xstrdup(body);
	ck_assert_msg(perf_cache_decode_body(block, 0, strlen(body), "id", &in, &nin, &set, &dir, &skipped, &why) == 0,
		      "%s", why);
	ck_assert_int_eq(set.stanzas[0].attrs[0].line, 7);
	ck_assert_int_eq(set.stanzas[0].attrs[0].key_col, 1);
	ck_assert_int_eq(set.stanzas[0].attrs[0].value_col, 1);
	ck_assert_int_eq(set.stanzas[0].attrs[1].line, 3);
	ck_assert_int_eq(set.stanzas[0].attrs[1].value_col, 5);
	ck_assert_ptr_null(skipped);
	perf_cache_inputs_free(in, nin);
	defset_free(&set);
	free(dir);
}
END_TEST

/* ---- loading through the cache ------------------------------------------- */

static char tmp[64];

/* A shell command, %s standing for the temporary directory. */
#define run(fmt, ...) run_cmd(xasprintf(fmt, __VA_ARGS__))
static void run_cmd(char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	free(cmd);
}

/* A copy of the fixtures whose times lie in the past: an input changed
 * within the last 2 s is not cached from. */
static void setup_tree(void)
{
	strcpy(tmp, "/tmp/check_perf_cache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	run("cp -r " ARCH " %s/arch && touch -d '1 hour ago' $(find %s/arch)", tmp, tmp);
	sleep(3);   /* the copies' ctimes, which cannot be set back */
	char *x = xasprintf("%s/cache", tmp);
	setenv("XDG_CACHE_HOME", x, 1);
	free(x);
	unsetenv("PMCTOP_NO_CACHE");
}

static void teardown_tree(void)
{
	run("rm -rf %s", tmp);
}

static struct model *load(const char *name, enum perf_cache_use want)
{
	char *arch = xasprintf("%s/arch", tmp), *why = NULL, *skipped = NULL;
	enum perf_cache_use use;
	struct model *m = perf_cache_load(arch, EVENTS, name, &opts, &skipped, &use, &why);
	ck_assert_msg(m, "%s", why);
	ck_assert_msg(use == want, "%s: cache use %d, expected %d", name, use, want);
	/* The left-out metrics come back too (the dashboard's note counts them). */
	char *fresh_skipped = NULL;
	struct model *fresh = perf_import_load(arch, EVENTS, name, &opts, &fresh_skipped, &why);
	ck_assert_msg(fresh, "%s", why);
	str_eq(skipped, fresh_skipped, "skipped");
	models_equal(fresh, m);
	model_free(fresh);
	free(fresh_skipped);
	free(skipped);
	free(arch);
	return m;
}

/* The one cache file of the directory (the model's). */
static char *cache_file(const char *name)
{
	char *cmd = xasprintf("ls %s/cache/pmctop/%s-*.model", tmp, name);
	FILE *p = popen(cmd, "r");
	char line[512] = "";
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
	pclose(p);
	free(cmd);
	line[strcspn(line, "\n")] = 0;
	return xstrdup(line);
}

START_TEST(test_load_through_cache)
{
	const char *name = models[_i];
	model_free(load(name, PERF_CACHE_WRITTEN));
	char *f = cache_file(name);
	struct stat sb;
	ck_assert_int_eq(stat(f, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 0777, 0600);
	model_free(load(name, PERF_CACHE_HIT));
	model_free(load(name, PERF_CACHE_HIT));
	/* Writable by the group: not trusted, imported again and replaced. */
	ck_assert_int_eq(chmod(f, 0620), 0);
	model_free(load(name, PERF_CACHE_WRITTEN));
	model_free(load(name, PERF_CACHE_HIT));
	/* Cut short: imported again. */
	ck_assert_int_eq(truncate(f, sb.st_size / 2), 0);
	model_free(load(name, PERF_CACHE_WRITTEN));
	model_free(load(name, PERF_CACHE_HIT));
	/* Turned off. */
	setenv("PMCTOP_NO_CACHE", "1", 1);
	model_free(load(name, PERF_CACHE_OFF));
	unsetenv("PMCTOP_NO_CACHE");
	/* A cache directory that others may write is neither read nor written. */
	char *d = xasprintf("%s/cache/pmctop", tmp);
	ck_assert_int_eq(chmod(d, 0770), 0);
	model_free(load(name, PERF_CACHE_OFF));
	ck_assert_int_eq(chmod(d, 0700), 0);
	model_free(load(name, PERF_CACHE_HIT));
	/* An input changed: the stale cache is not used; the changed file is
	 * too recent to cache from (its ctime is now). */
	run("touch %s/arch/x86/mapfile.csv %s/arch/arm64/mapfile.csv", tmp, tmp);
	model_free(load(name, PERF_CACHE_MISS));
	free(d);
	free(f);
}
END_TEST

/* An input's contents changed (same path, new size): the model follows. */
START_TEST(test_stale_contents)
{
	model_free(load("perf-testlake", PERF_CACHE_WRITTEN));
	run("sed -i 's/\"BriefDescription\": \"/&Changed: /' %s/arch/x86/testlake/pipeline.json; "
	    "touch -d '1 hour ago' %s/arch/x86/testlake/pipeline.json", tmp, tmp);
	struct model *m = load("perf-testlake", PERF_CACHE_MISS);
	bool changed = false;
	for (int e = 0; e < m->nevents; e++)
		changed |= m->events[e].desc && !strncmp(m->events[e].desc, "Changed: ", 9);
	ck_assert_msg(changed, "the changed description was not read");
	model_free(m);
}
END_TEST

/* A stale cache, then an import that fails: the error, and nothing of the
 * stale file given back or freed twice. */
START_TEST(test_stale_then_broken)
{
	model_free(load("perf-testlake", PERF_CACHE_WRITTEN));
	run("echo '[ {' >%s/arch/x86/testlake/pipeline.json; touch -d '1 hour ago' %s/arch/x86/testlake/pipeline.json",
	    tmp, tmp);
	char *arch = xasprintf("%s/arch", tmp), *why = NULL, *skipped = NULL;
	enum perf_cache_use use;
	ck_assert_ptr_null(perf_cache_load(arch, EVENTS, "perf-testlake", &opts, &skipped, &use, &why));
	ck_assert_msg(why && strstr(why, "pipeline.json"), "%s", why ? why : "(no cause)");
	ck_assert_ptr_null(skipped);
	ck_assert_int_eq(use, PERF_CACHE_OFF);
	free(why);
	free(arch);
}
END_TEST

/* The cache is pruned when a file is written: the 16 most recently used
 * model files within 16 MiB stay (a hit renews a file), older ones and
 * temporary files left by a dead pmctop go; other files, links and what
 * they point at are left alone. */
START_TEST(test_pruned)
{
	model_free(load("perf-testlake", PERF_CACHE_WRITTEN));
	char *lake = cache_file("perf-testlake");
	/* 30 older files of 100 kB, perf-old00 the newest, an hour apart. */
	for (int i = 0; i < 30; i++)
		run("truncate -s 100k %s/cache/pmctop/perf-old%02d-0000000000000000.model && "
		    "touch -d '%d hours ago' %s/cache/pmctop/perf-old%02d-0000000000000000.model",
		    tmp, i, i + 2, tmp, i);
	run("touch -d '1 day ago' %s", lake);
	run("echo keep > %s/outside && ln -s %s/outside %s/cache/pmctop/perf-link-0000000000000000.model && "
	    "echo notes > %s/cache/pmctop/notes.txt && : > %s/cache/pmctop/.tmp-dead00 && "
	    "touch -d '1 hour ago' %s/cache/pmctop/.tmp-dead00 && : > %s/cache/pmctop/.tmp-live00",
	    tmp, tmp, tmp, tmp, tmp, tmp, tmp);
	/* A hit renews perf-testlake's file, a day old until now. */
	model_free(load("perf-testlake", PERF_CACHE_HIT));
	struct stat sb;
	ck_assert_int_eq(stat(lake, &sb), 0);
	ck_assert_msg(sb.st_mtime > time(NULL) - 60, "a hit did not renew the file");
	/* A write prunes: perf-testverse's new file, perf-testlake's and the
	 * 14 newest old ones stay. */
	model_free(load("perf-testverse", PERF_CACHE_WRITTEN));
	char *verse = cache_file("perf-testverse");
	ck_assert_int_eq(stat(verse, &sb), 0);
	ck_assert_int_eq(stat(lake, &sb), 0);
	for (int i = 0; i < 30; i++) {
		char *f = xasprintf("%s/cache/pmctop/perf-old%02d-0000000000000000.model", tmp, i);
		ck_assert_msg((stat(f, &sb) == 0) == (i < 14), "%s: %s", f, i < 14 ? "removed" : "kept");
		free(f);
	}
	char *f = xasprintf("%s/cache/pmctop/perf-link-0000000000000000.model", tmp);
	ck_assert_int_eq(lstat(f, &sb), 0);
	free(f);
	f = xasprintf("%s/outside", tmp);
	ck_assert_int_eq(stat(f, &sb), 0);
	free(f);
	f = xasprintf("%s/cache/pmctop/notes.txt", tmp);
	ck_assert_int_eq(stat(f, &sb), 0);
	free(f);
	f = xasprintf("%s/cache/pmctop/.tmp-dead00", tmp);
	ck_assert_int_ne(stat(f, &sb), 0);
	free(f);
	f = xasprintf("%s/cache/pmctop/.tmp-live00", tmp);
	ck_assert_int_eq(stat(f, &sb), 0);
	free(f);
	/* Within 16 MiB: five files of 5 MB leave room for two beside the new. */
	for (int i = 0; i < 5; i++)
		run("truncate -s 5M %s/cache/pmctop/perf-big%d-0000000000000000.model", tmp, i);
	run("rm -f %s", verse);
	model_free(load("perf-testverse", PERF_CACHE_WRITTEN));
	run("test $(ls %s/cache/pmctop/*.model | wc -l) -le 16 && "
	    "test $(du -b --apparent-size -c %s/cache/pmctop/*.model | tail -n 1 | cut -f1) -le 16777216", tmp, tmp);
	free(verse);
	free(lake);
}
END_TEST

static Suite *perf_cache_suite(void)
{
	Suite *s = suite_create("perf_cache");
	TCase *tc = tcase_create("codec");
	tcase_add_loop_test(tc, test_round_trip, 0, (int)ARRAY_SIZE(models));
	tcase_add_test(tc, test_cut_or_altered);
	tcase_add_loop_test(tc, test_forged, 0, (int)ARRAY_SIZE(forged) + 1);
	tcase_add_test(tc, test_smallest_body);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup_tree, teardown_tree);
	tcase_add_loop_test(tc, test_load_through_cache, 0, (int)ARRAY_SIZE(models));
	tcase_add_test(tc, test_stale_contents);
	tcase_add_test(tc, test_stale_then_broken);
	tcase_add_test(tc, test_pruned);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(perf_cache_suite());
}
