/* check_cpuid.c: reading /proc/cpuinfo fixtures and picking a model from
 * the "match" lines of the fixture models (tests/fixtures/models), with the
 * most specific match winning and "generic" as the fallback; among the
 * shipped models under events/, the same fixtures must pick the model in
 * the expected directory. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cpuid.h"
#include "evdef.h"
#include "util.h"

#define CPUINFO TOP_SRCDIR "/tests/fixtures/cpuinfo/"
#define FIXTURES TOP_SRCDIR "/tests/fixtures/models"
#define EVENTS TOP_SRCDIR "/events"

static const struct {
	const char *file;
	const char *vendor;
	int family, model, stepping;
	const char *model_name;
	const char *pick;       /* model picked among the fixture models */
	const char *real_dir;   /* directory of the real model under events/ */
	int line;
} cases[] = {
	{ "zen5.txt", "AuthenticAMD", 0x1a, 0x02, 1, "AMD EPYC 9755 128-Core Processor", "amd-zen5", "amd/zen5", __LINE__ },
	/* The other Zen 5 parts: the fixture models' Zen 5 matches 00h-0Fh only,
	 * so they get it as the nearest; the real one matches them. */
	{ "zen5-turin-dense.txt", "AuthenticAMD", 0x1a, 0x11, 0, "AMD EPYC 9965 192-Core Processor", "amd-zen5",
	  "amd/zen5", __LINE__ },
	{ "zen5-strix-point.txt", "AuthenticAMD", 0x1a, 0x24, 0, "AMD Ryzen AI 9 HX 370 w/ Radeon 890M", "amd-zen5",
	  "amd/zen5", __LINE__ },
	{ "zen5-granite-ridge.txt", "AuthenticAMD", 0x1a, 0x44, 0, "AMD Ryzen 9 9950X 16-Core Processor", "amd-zen5",
	  "amd/zen5", __LINE__ },
	/* Family 19h model 11h is Zen 4 (Genoa) in the kernel's tables. */
	{ "vm-amd-fam19h.txt", "AuthenticAMD", 0x19, 0x11, 1, "AMD EPYC", "generic", "amd/zen4", __LINE__ },
	{ "zen4-genoa.txt", "AuthenticAMD", 0x19, 0x11, 1, "AMD EPYC 9654 96-Core Processor", "generic", "amd/zen4",
	  __LINE__ },
	{ "zen4-raphael.txt", "AuthenticAMD", 0x19, 0x61, 2, "AMD Ryzen 9 7950X 16-Core Processor", "generic",
	  "amd/zen4", __LINE__ },
	{ "zen3-milan.txt", "AuthenticAMD", 0x19, 0x01, 1, "AMD EPYC 7763 64-Core Processor", "generic", "amd/zen3",
	  __LINE__ },
	{ "zen3-vermeer.txt", "AuthenticAMD", 0x19, 0x21, 2, "AMD Ryzen 9 5950X 16-Core Processor", "generic",
	  "amd/zen3", __LINE__ },
	{ "westmere.txt", "GenuineIntel", 6, 44, 2, "Intel(R) Xeon(R) CPU           X5670  @ 2.93GHz", "intel-westmere",
	  "intel/westmere", __LINE__ },
	{ "core2-merom.txt", "GenuineIntel", 6, 15, 6, "Intel(R) Core(TM)2 CPU          6600  @ 2.40GHz", "intel-core2",
	  "intel/core2", __LINE__ },
	{ "core2-penryn.txt", "GenuineIntel", 6, 23, 6, "Intel(R) Xeon(R) CPU           E5450  @ 3.00GHz", "intel-core2",
	  "intel/core2", __LINE__ },
	{ "fam10h.txt", "AuthenticAMD", 0x10, 4, 2, "Quad-Core AMD Opteron(tm) Processor 2376", "amd-fam10h",
	  "amd/fam10h", __LINE__ },
	{ "intel-sapphire-rapids.txt", "GenuineIntel", 6, 0x8f, 8, "Intel(R) Xeon(R) Platinum 8480+", "intel-arch",
	  "intel/spr", __LINE__ },
	{ "intel-emerald-rapids.txt", "GenuineIntel", 6, 0xcf, 2, "INTEL(R) XEON(R) PLATINUM 8592+", "intel-arch",
	  "intel/spr", __LINE__ },
};

START_TEST(test_read)
{
	struct cpu_ident id;
	char *cause = NULL;
	char *path = xasprintf(CPUINFO "%s", cases[_i].file);
	ck_assert_msg(cpuid_read(path, &id, &cause) == 0, "%s", cause ? cause : "");
	ck_assert_str_eq(id.vendor, cases[_i].vendor);
	ck_assert_int_eq(id.family, cases[_i].family);
	ck_assert_int_eq(id.model, cases[_i].model);
	ck_assert_int_eq(id.stepping, cases[_i].stepping);
	ck_assert_str_eq(id.model_name, cases[_i].model_name);
	free(path);
}
END_TEST

START_TEST(test_pick_fixture_models)
{
	struct cpu_ident id;
	char *cause = NULL;
	char *path = xasprintf(CPUINFO "%s", cases[_i].file);
	ck_assert_int_eq(cpuid_read(path, &id, &cause), 0);
	char *name = cpuid_pick_model(&id, FIXTURES, NULL, &cause);
	ck_assert_msg(name && !strcmp(name, cases[_i].pick), "line %d: picked %s, want %s", cases[_i].line,
		      name ? name : cause, cases[_i].pick);
	free(name);
	free(path);
}
END_TEST

/* The shipped models: each fixture picks the one in the expected
 * directory; a model missing from events/ is a failure. */
START_TEST(test_pick_real_models)
{
	struct stat sb;
	char *real = xasprintf(EVENTS "/%s/model.def", cases[_i].real_dir);
	ck_assert_msg(stat(real, &sb) == 0, "line %d: no model %s", cases[_i].line, real);
	struct cpu_ident id;
	char *cause = NULL;
	char *path = xasprintf(CPUINFO "%s", cases[_i].file);
	ck_assert_int_eq(cpuid_read(path, &id, &cause), 0);
	char *name = cpuid_pick_model(&id, EVENTS, NULL, &cause);
	ck_assert_msg(name != NULL, "%s", cause ? cause : "");
	struct model_info *l;
	int n = model_list(EVENTS, &l, &cause);
	ck_assert_int_ge(n, 1);
	char *want_dir = xasprintf(EVENTS "/%s", cases[_i].real_dir);
	bool found = false;
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i].name, name)) {
			ck_assert_msg(!strcmp(l[i].dir, want_dir), "line %d: %s picked %s in %s, want %s",
				      cases[_i].line, cases[_i].file, name, l[i].dir, want_dir);
			found = true;
		}
	ck_assert_msg(found, "picked model %s is not in the list", name);
	model_list_free(l, n);
	free(want_dir);
	free(name);
	free(path);
	free(real);
}
END_TEST

START_TEST(test_read_errors)
{
	struct cpu_ident id;
	char *cause = NULL;
	ck_assert_int_eq(cpuid_read(CPUINFO "arm64.txt", &id, &cause), -1);
	ck_assert_str_eq(cause, CPUINFO "arm64.txt: no x86 vendor_id, cpu family and model in the first processor block");
	free(cause);
	ck_assert_int_eq(cpuid_read(CPUINFO "bad-family.txt", &id, &cause), -1);
	ck_assert_str_eq(cause, CPUINFO "bad-family.txt:3: expected a decimal number for 'cpu family' but found 'six'");
	free(cause);
	ck_assert_int_eq(cpuid_read(CPUINFO "nonexistent", &id, &cause), -1);
	ck_assert_str_eq(cause, CPUINFO "nonexistent: cannot open: No such file or directory");
	free(cause);
}
END_TEST

/* The model name goes on the dashboard's header: escapes from a hostile
 * (virtual) CPU are neutralised. */
START_TEST(test_read_hostile_name)
{
	char path[] = "/tmp/check_cpuid.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	static const char text[] = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
				   "model name\t: AMD \033]0;pwned\007\xc2\x9b" "2J EPYC\n\n";
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	struct cpu_ident id;
	char *cause = NULL;
	ck_assert_int_eq(cpuid_read(path, &id, &cause), 0);
	ck_assert_str_eq(id.model_name, "AMD ?]0;pwned???2J EPYC");
	unlink(path);
}
END_TEST

START_TEST(test_pick_fallback_and_errors)
{
	struct cpu_ident id = { .vendor = "HygonGenuine", .family = 0x18, .model = 0 };
	char *cause = NULL;
	char *name = cpuid_pick_model(&id, FIXTURES "/intel", NULL, &cause);
	ck_assert_str_eq(name, "generic"); /* nothing matches, not even a "*" */
	free(name);
	ck_assert_ptr_null(cpuid_pick_model(&id, "/nonexistent/pmctop", NULL, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "cannot open the definitions directory"));
	free(cause);
}
END_TEST

/* A known vendor and family with an unknown model: the model whose range
 * is nearest, and a note that says so; a real match, or a vendor the models
 * do not know, gives no note. */
static const struct {
	const char *dir;
	const char *vendor;
	int family, model;
	const char *pick;
	bool noted;
	int line;
} near_cases[] = {
	{ FIXTURES, "AuthenticAMD", 0x1a, 0x44, "amd-zen5", true, __LINE__ },
	{ FIXTURES, "AuthenticAMD", 0x1a, 0x02, "amd-zen5", false, __LINE__ },
	{ FIXTURES, "HygonGenuine", 0x18, 0x00, "generic", false, __LINE__ },
	{ FIXTURES, "GenuineIntel", 6, 0xad, "intel-arch", false, __LINE__ },
	/* Intel model numbers do not follow the core generations, so an unknown
	 * family 6 model gets intel-arch, not the nearest number. */
	{ EVENTS, "GenuineIntel", 6, 0xad, "intel-arch", false, __LINE__ },
	{ EVENTS, "GenuineIntel", 6, 0xcf, "intel-spr", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x19, 0xc0, "amd-zen4", true, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x19, 0x5f, "amd-zen3", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x19, 0x60, "amd-zen4", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x19, 0x1f, "amd-zen4", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x19, 0x0f, "amd-zen3", false, __LINE__ },
	/* Every Zen 5 part is matched by the real model, so no note. */
	{ EVENTS, "AuthenticAMD", 0x1a, 0x02, "amd-zen5", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x1a, 0x11, "amd-zen5", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x1a, 0x24, "amd-zen5", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x1a, 0x44, "amd-zen5", false, __LINE__ },
	{ EVENTS, "AuthenticAMD", 0x1a, 0x70, "amd-zen5", false, __LINE__ },
};

START_TEST(test_pick_nearest)
{
	struct cpu_ident id = { .family = near_cases[_i].family, .model = near_cases[_i].model };
	snprintf(id.vendor, sizeof(id.vendor), "%s", near_cases[_i].vendor);
	char *cause = NULL, *note = NULL;
	char *name = cpuid_pick_model(&id, near_cases[_i].dir, &note, &cause);
	ck_assert_msg(name && !strcmp(name, near_cases[_i].pick), "line %d: picked %s, want %s", near_cases[_i].line,
		      name ? name : cause, near_cases[_i].pick);
	ck_assert_msg((note != NULL) == near_cases[_i].noted, "line %d: note '%s'", near_cases[_i].line,
		      note ? note : "(none)");
	if (note) {
		ck_assert_ptr_nonnull(strstr(note, near_cases[_i].pick));
		ck_assert_ptr_null(strchr(note, '\n'));
	}
	free(note);
	free(name);
}
END_TEST

static Suite *cpuid_suite(void)
{
	Suite *s = suite_create("cpuid");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_read, 0, (int)ARRAY_SIZE(cases));
	tcase_add_loop_test(tc, test_pick_fixture_models, 0, (int)ARRAY_SIZE(cases));
	tcase_add_loop_test(tc, test_pick_real_models, 0, (int)ARRAY_SIZE(cases));
	tcase_add_test(tc, test_read_errors);
	tcase_add_test(tc, test_read_hostile_name);
	tcase_add_test(tc, test_pick_fallback_and_errors);
	tcase_add_loop_test(tc, test_pick_nearest, 0, (int)ARRAY_SIZE(near_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(cpuid_suite());
}
