/* check_evdef.c: the definition loader. A table of broken inputs, each a
 * small file written to a temporary directory, with the exact message the
 * loader must give (file:line:col included); then good inputs whose loaded
 * structures are checked field by field, and model listing and lookup over
 * the fixture models under tests/fixtures/models. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "evdef.h"
#include "evdef_build_impl.h"
#include "expr.h"
#include "topo.h"
#include "util.h"

#define FIXTURES TOP_SRCDIR "/tests/fixtures/models"

/* Lines 1-25 of every table case that says BASE: a model with a core PMU,
 * an L3 PMU and three events. Case lines are numbered from 1 after it. */
#define BASE_TEXT \
	"model test\n"                        /* 1 */ \
	"pmu core\n"                          /* 2 */ \
	"    perf cpu\n"                      /* 3 */ \
	"    kind core\n"                     /* 4 */ \
	"    scope thread\n"                  /* 5 */ \
	"    counters 6\n"                    /* 6 */ \
	"    field event 0-7,32-35\n"         /* 7 */ \
	"    field umask 8-15\n"              /* 8 */ \
	"    ignore 16-17,22\n"               /* 9 */ \
	"pmu l3\n"                            /* 10 */ \
	"    perf amd_l3\n"                   /* 11 */ \
	"    kind uncore\n"                   /* 12 */ \
	"    scope ccx\n"                     /* 13 */ \
	"    counters 6\n"                    /* 14 */ \
	"    field event 0-7\n"               /* 15 */ \
	"    field umask 8-15\n"              /* 16 */ \
	"event cyc\n"                         /* 17 */ \
	"    pmu core\n"                      /* 18 */ \
	"    raw 0x430076\n"                  /* 19 */ \
	"event ins\n"                         /* 20 */ \
	"    pmu core\n"                      /* 21 */ \
	"    raw 0x4300C0\n"                  /* 22 */ \
	"event l3acc\n"                       /* 23 */ \
	"    pmu l3\n"                        /* 24 */ \
	"    raw 0xFF04\n"                    /* 25 */
#define BASE_LINES 25

struct bad_case {
	int line;             /* source line of the case, for failure messages */
	bool base;            /* prepend BASE_TEXT to model.def */
	const char *model_def;
	const char *inc_name; /* an extra file, relative to the directory */
	const char *inc_text;
	/* Expected cause: "@" stands for the directory, "#N" for line N after
	 * BASE_TEXT (or N itself without base). */
	const char *want;
};

#define B(text, want) { __LINE__, true, text, NULL, NULL, want }
#define NB(text, want) { __LINE__, false, text, NULL, NULL, want }
#define INC(text, name, inc, want) { __LINE__, false, text, name, inc, want }

static const struct bad_case bad_cases[] = {
	/* Syntax. */
	NB("", "@/model.def:1:1: expected a 'model' stanza"),
	NB("  desc x\nmodel t\n",
	   "@/model.def:1:3: expected a stanza (model, pmu, event, metric or view) at column 1 before indented lines"),
	NB("pmu core\n    perf cpu\n", "@/model.def:1:1: expected a 'model' stanza first in model.def"),
	NB("model t\nmodel u\n", "@/model.def:2:1: expected only one 'model' stanza (the first is at @/model.def:1)"),
	NB("model bad/name\n", "@/model.def:1:10: expected a model name of letters, digits, '_', '.' and '-'"),
	B("evnt x\n", "@/model.def:#1:1: expected model, pmu, event, metric or view but found 'evnt'"),
	B("event 9x\n", "@/model.def:#1:7: expected a name of the form [A-Za-z_][A-Za-z0-9_.]*"),
	B("event x y\n", "@/model.def:#1:8: expected the end of the line after the name 'x'"),
	B("event\n", "@/model.def:#1:6: expected a name after 'event'"),
	B("event x\n    pmu core\n    desc \"abc\n", "@/model.def:#3:10: expected a closing '\"'"),
	B("event x\x01\n", "@/model.def:#1:8: expected text but found a control character"),
	B("event x\n    pmu core\n    desc    # only a comment\n", "@/model.def:#3:9: expected a value after 'desc'"),
	B("event x\n    p-mu core\n", "@/model.def:#2:6: expected a space after the key 'p'"),
	B("event x\n    2pmu core\n", "@/model.def:#2:5: expected a key"),
	/* Keys. */
	B("event x\n    pmu core\n    rwa 0x76\n",
	  "@/model.def:#3:5: unknown key 'rwa' in event 'x' (expected pmu, raw, pfm, fields, perf, proc, desc, sim, "
	  "flags, arch_bit, requires, fallback, scale, portable or counters)"),
	B("event x\n    pmu core\n    raw 0x76\n    counters 0-40\n",
	  "@/model.def:#4:14: expected general counter numbers 0-31 such as 0-3 but found '0-40'"),
	B("event x\n    pmu core\n    pmu core\n", "@/model.def:#3:5: duplicate key 'pmu' (first at line #2)"),
	B("metric m\n    unit W\n    formula 1\n    split ipc\n",
	  "@/model.def:#4:11: expected a metric in W computed per socket to split but found 'ipc'"),
	B("event x\n    pmu core\n    raw 0x76\n    scale 2.5e-10\n",
	  "@/model.def:#4:11: expected a positive scale and a unit (2.3283064365386962890625e-10 Joules) but found '2.5e-10'"),
	B("event x\n    pmu core\n    raw 0x76\n    scale -1 Joules\n",
	  "@/model.def:#4:11: expected a positive scale and a unit (2.3283064365386962890625e-10 Joules) but found '-1 Joules'"),
	B("event x\n    raw 0x76\n", "@/model.def:#1:1: missing required key 'pmu' in event 'x'"),
	B("event x\n    pmu core\n    desc no encoding\n",
	  "@/model.def:#1:1: missing required key (raw, pfm, fields, perf or proc) in event 'x'"),
	B("metric m\n    unit ratio\n", "@/model.def:#1:1: missing required key 'formula' in metric 'm'"),
	B("metric m\n    formula cyc\n    perf umc-bw\n",
	  "@/model.def:#3:10: expected the name of a Linux perf metric but found 'umc-bw'"),
	B("metric m\n    formula cyc\n    perff x\n",
	  "@/model.def:#3:5: unknown key 'perff' in metric 'm' (expected label, unit, scope, groups, formula, desc, note, perf, "
	  "parent, range, truth or split)"),
	B("metric m\n    formula cyc\n    truth cycles / (\n",
	  "@/model.def:#3:21: truth: expected a number, a name or '(' but found end of formula"),
	B("metric m\n    unit GHz\n    formula cyc\n    range 5 1\n",
	  "@/model.def:#4:11: expected 'range LO HI' (numbers, LO <= HI; HI may be max_ghz) but found '5 1'"),
	B("metric m\n    unit GHz\n    formula cyc\n    range 0 fast\n",
	  "@/model.def:#4:11: expected 'range LO HI' (numbers, LO <= HI; HI may be max_ghz) but found '0 fast'"),
	/* Trees of shares. */
	B("metric m\n    formula cyc\n    parent whole\n",
	  "@/model.def:#3:12: a part of a tree must have unit ratio, but 'm' has ''"),
	B("metric m\n    unit ratio\n    formula cyc\n    parent nosuch\n",
	  "@/model.def:#4:12: expected 'whole' or another metric as parent but found 'nosuch'"),
	B("metric m\n    unit ratio\n    formula cyc\n    parent n\nmetric n\n    unit ratio\n    formula ins\n"
	  "    parent m\n",
	  "@/model.def:#4:12: parent 'n' does not lead to 'whole' (a cycle, or a parent without one)"),
	B("metric m\n    unit ratio\n    formula cyc\n    parent n\nmetric n\n    unit ratio\n    formula ins\n",
	  "@/model.def:#4:12: parent 'n' does not lead to 'whole' (a cycle, or a parent without one)"),
	B("pmu y\n    kind core\n", "@/model.def:#1:1: missing required key 'perf' in pmu 'y'"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n",
	  "@/model.def:#1:1: missing required key 'counters' in pmu 'y'"),
	B("view v\n    title T\n", "@/model.def:#1:1: missing required key 'column' in view 'v'"),
	NB("model t\n    shape 1x2x8\n",
	   "@/model.def:2:11: expected a shape SOCKETSxCCXxCORESxTHREADS such as 1x2x8x2 but found '1x2x8'"),
	NB("model t\n    shape 1x2x0x2\n",
	   "@/model.def:2:11: expected a shape SOCKETSxCCXxCORESxTHREADS such as 1x2x8x2 but found '1x2x0x2'"),
	NB("model t\n    shape 64x64x64x2\n", "@/model.def:2:11: shape '64x64x64x2' has 524288 CPUs; at most 4096"),
	NB("model t\n    alias 5zen\n", "@/model.def:2:11: expected a name such as zen5 but found '5zen'"),
	NB("model t\n    l3_domain L3-group\n",
	   "@/model.def:2:15: expected a word of at most 6 letters such as LLC but found 'L3-group'"),
	NB("model t\n    inclde x.def\n",
	   "@/model.def:2:5: unknown key 'inclde' in model 't' (expected desc, match, include, sim, alias, shape or l3_domain)"),
	/* Names. */
	B("event cyc\n    pmu core\n    raw 0x76\n", "@/model.def:#1:7: duplicate name 'cyc' (first defined at @/model.def:17)"),
	B("metric ins\n    formula cyc\n", "@/model.def:#1:8: duplicate name 'ins' (first defined at @/model.def:20)"),
	B("metric m\n    formula cyc\nmetric m\n    formula ins\n",
	  "@/model.def:#3:8: duplicate name 'm' (first defined at @/model.def:#1)"),
	B("pmu core\n    perf cpu\n", "@/model.def:#1:5: duplicate name 'core' (first defined at @/model.def:2)"),
	B("event interval_s\n    pmu core\n    raw 0x76\n",
	  "@/model.def:#1:7: 'interval_s' is a reserved name of the formula language"),
	B("event x\n    pmu nope\n    raw 0x1\n", "@/model.def:#2:9: unknown PMU 'nope'"),
	/* Values. */
	B("pmu y\n    perf y\n    kind hard\n    scope thread\n",
	  "@/model.def:#3:10: expected core, uncore, software or proc but found 'hard'"),
	B("pmu y\n    perf y\n    kind core\n    scope wide\n",
	  "@/model.def:#4:11: expected thread, core, ccx, socket or system but found 'wide'"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n    counters six\n",
	  "@/model.def:#5:14: bad number 'six': expected an integer from 0 to 64"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n    counters 4\n    nmi 5\n",
	  "@/model.def:#6:9: bad number '5': expected an integer from 0 to 4"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n    counters 4\n    field a 0-7\n    field b 7-9\n",
	  "@/model.def:#7:13: field bits overlap another field or the ignore mask"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n    counters 4\n    field a 9-3\n",
	  "@/model.def:#6:13: expected up to 4 bits or bit ranges from 0 to 63, low bits first, such as 0-7,32-35"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n    counters 4\n    field a 0-7,64\n",
	  "@/model.def:#6:17: expected up to 4 bits or bit ranges from 0 to 63, low bits first, such as 0-7,32-35"),
	B("pmu y\n    perf y\n    kind core\n    scope thread\n    counters 4\n    ignore 16-17,2x\n",
	  "@/model.def:#6:19: expected up to 4 bits or bit ranges from 0 to 63 such as 16-17,20,22"),
	B("event x\n    pmu core\n    raw 0x43G0\n",
	  "@/model.def:#3:9: bad number '0x43G0': expected a 64-bit raw value such as 0x4300C3"),
	B("event x\n    pmu core\n    raw 0x10000430076\n",
	  "@/model.def:#3:9: raw value 0x10000430076 has bits 0x10000000000 outside the fields and ignore mask of pmu 'core'"),
	B("event x\n    pmu l3\n    raw 0x4300FF04\n",
	  "@/model.def:#3:9: raw value 0x4300FF04 has bits 0x43000000 outside the fields and ignore mask of pmu 'l3'"),
	B("pmu sw\n    perf software\n    kind software\n    scope thread\nevent x\n    pmu sw\n    raw 0x1\n",
	  "@/model.def:#7:9: a raw value needs the 'field' layout of pmu 'sw', which has none"),
	B("event x\n    pmu core\n    raw 0x76\n    pfm FOO\n",
	  "@/model.def:#4:5: expected only one of raw, pfm, fields, perf or proc ('raw' is at line #3)"),
	B("event x\n    pmu core\n    proc busy_ns\n",
	  "@/model.def:#3:5: expected raw, pfm, fields or perf: pmu 'core' is not of kind proc"),
	B("event x\n    pmu core\n    perf cycles\n",
	  "@/model.def:#3:10: expected software:NAME or hardware:NAME but found 'cycles'"),
	B("event x\n    pmu l3\n    fields event=0x04,Umask=1\n",
	  "@/model.def:#3:23: expected a format field name such as event=0x04"),
	B("event x\n    pmu l3\n    fields event=zz\n", "@/model.def:#3:18: expected a number after '='"),
	B("event x\n    pmu core\n    raw 0x76\n    flags merge wide\n",
	  "@/model.def:#4:17: unknown flag 'wide' (expected merge, fixed, saturates, slots or topdown)"),
	/* Portable series: a name without _total, a finite non-zero scale,
	 * nothing after it, each series once per event. */
	B("event x\n    pmu core\n    raw 0x76\n    portable Instructions\n",
	  "@/model.def:#4:14: expected a series name such as instructions or memory_read_bytes (lower case, digits and '_', without _total) but found 'Instructions'"),
	B("event x\n    pmu core\n    raw 0x76\n    portable cycles_total\n",
	  "@/model.def:#4:14: expected a series name such as instructions or memory_read_bytes (lower case, digits and '_', without _total) but found 'cycles_total'"),
	B("event x\n    pmu core\n    raw 0x76\n    portable memory_bytes 0\n",
	  "@/model.def:#4:27: expected a non-zero scale such as 64 or -1 but found '0'"),
	B("event x\n    pmu core\n    raw 0x76\n    portable memory_bytes 64 x\n",
	  "@/model.def:#4:30: expected the end of the value after the scale but found 'x'"),
	B("event x\n    pmu core\n    raw 0x76\n    portable cycles\n    portable cycles 2\n",
	  "@/model.def:#5:14: portable series 'cycles' named twice for event 'x'"),
	/* PERF_METRICS: requires, fallback, slots and topdown. */
	B("event x\n    pmu core\n    raw 0x8000\n    requires ../../etc/shadow\n",
	  "@/model.def:#4:14: expected a relative sysfs path such as events/slots but found '../../etc/shadow'"),
	B("event x\n    pmu core\n    raw 0x8000\n    fallback cyc\n",
	  "@/model.def:#4:14: a fallback is used only where a 'requires' feature is missing: expected a requires key in event 'x'"),
	B("event x\n    pmu core\n    raw 0x400\n    requires events/slots\n    fallback nosuch\n",
	  "@/model.def:#5:14: unknown event 'nosuch' as fallback"),
	B("event x\n    pmu core\n    raw 0x400\n    requires events/slots\n    fallback x\n",
	  "@/model.def:#5:14: expected a fallback event that needs no kernel feature, not 'x'"),
	B("event x\n    pmu core\n    raw 0x8000\n    flags topdown\n",
	  "@/model.def:#1:1: topdown event 'x' needs an event with flag slots on pmu 'core' to lead its group"),
	B("event x\n    pmu core\n    raw 0x400\n    flags slots topdown\n",
	  "@/model.def:#1:1: expected flag slots or topdown, not both, in event 'x'"),
	B("event x\n    pmu core\n    raw 0x76\n    arch_bit 40\n",
	  "@/model.def:#4:14: bad number '40': expected an integer from 0 to 31"),
	NB("model t\n    match AuthenticAMD family=zz\n", "@/model.def:2:31: expected a family number but found 'zz'"),
	NB("model t\n    match AuthenticAMD model=0x10-0x01\n",
	   "@/model.def:2:30: expected a model number or range (0x00-0x0f) but found '0x10-0x01'"),
	NB("model t\n    match AuthenticAMD stepping=1\n",
	   "@/model.def:2:24: expected family=N or model=N[-M] (once each) but found 'stepping=1'"),
	/* Formulas. */
	B("metric m\n    formula cyc / inz\n", "@/model.def:#2:19: unknown event 'inz' in formula"),
	/* Privilege modifiers (evdef_modifier.c). */
	B("metric m\n    formula cyc / ins:q\n",
	  "@/model.def:#2:19: event 'ins:q': unknown modifier 'q' in ':q': expected u (user), k (kernel), "
	  "h (hypervisor), G (guest) or H (host)"),
	B("metric m\n    formula ins:uu\n", "@/model.def:#2:13: event 'ins:uu': modifier 'u' given twice in ':uu'"),
	B("metric m\n    formula l3acc:u\n",
	  "@/model.def:#2:13: event 'l3acc' takes no modifier ':u': it counts for a whole core, CCX or socket, "
	  "which runs no single privilege level"),
	B("metric m\n    formula inz:k\n", "@/model.def:#2:13: unknown event 'inz:k' in formula"),
	B("metric m\n    formula (cyc / ins\n", "@/model.def:#2:23: expected ')' but found end of formula"),
	B("metric m\n    formula \"cyc / ) \"\n", "@/model.def:#2:20: expected a number, a name or '(' but found ')'"),
	B("metric m\n    formula foo(cyc)\n",
	  "@/model.def:#2:13: expected min, max or abs but found unknown function 'foo'"),
	B("metric a\n    formula b + 1\nmetric b\n    formula c * 2\nmetric c\n    formula a\n",
	  "@/model.def:#6:13: metric cycle: a -> b -> c -> a"),
	B("metric a\n    formula a + cyc\n", "@/model.def:#2:13: metric cycle: a -> a"),
	B("metric m\n    scope thread\n    formula cyc / l3acc\n",
	  "@/model.def:#3:19: metric 'm' has scope thread but uses event 'l3acc' of PMU 'l3' (scope ccx)"),
	B("metric l3m\n    formula l3acc * 2\nmetric m\n    scope core\n    formula cyc + l3m\n",
	  "@/model.def:#5:19: metric 'm' has scope core but uses metric 'l3m' (scope ccx)"),
	B("metric m\n    scope wide\n    formula cyc\n",
	  "@/model.def:#2:11: expected thread, core, ccx, socket or system but found 'wide'"),
	/* Views. */
	B("metric m\n    formula cyc\nview v\n    column mm fmt=%.2f\n", "@/model.def:#4:12: unknown metric 'mm' in column"),
	B("metric m\n    formula cyc\nview v\n    column m fmt=%s\n",
	  "@/model.def:#4:18: expected pct, si or a printf format for one number such as %.2f but found '%s'"),
	B("metric m\n    formula cyc\nview v\n    column m fmt=%.1f%.1f\n",
	  "@/model.def:#4:18: expected pct, si or a printf format for one number such as %.2f but found '%.1f%.1f'"),
	B("metric m\n    formula cyc\nview v\n    column m colour=red\n",
	  "@/model.def:#4:14: unknown column option 'colour=red' (expected fmt=, width=, warn=, crit= or low_is_bad)"),
	B("metric m\n    formula cyc\nview v\n    column m warn=high\n",
	  "@/model.def:#4:19: bad number 'high': expected a threshold"),
	B("metric m\n    formula cyc\nview v\n    column m width=0\n",
	  "@/model.def:#4:20: bad number '0': expected a width from 1 to 64"),
	B("metric m\n    formula cyc\nview v\n    bar m q\n    column m\n", "@/model.def:#4:11: unknown metric 'q' in bar"),
	B("metric m\n    formula cyc\nview v\n    key 2\n    column m\nview w\n    key 2\n    column m\n",
	  "@/model.def:#7:9: key 2 is already used by view 'v'"),
	B("metric m\n    formula cyc\nview v\n    key 10\n    column m\n",
	  "@/model.def:#4:9: bad number '10': expected an integer from 1 to 9"),
	/* Includes. */
	NB("model t\n    include nope.def\n", "@/model.def:2:13: cannot include '@/nope.def': No such file or directory"),
	INC("model t\n    include a.def\n", "a.def", "model u\n",
	    "@/a.def:1:1: expected pmu, event, metric or view (a model stanza belongs in model.def)"),
	INC("model t\n    include sub/a.def\n", "sub/a.def", "event x\n    pmu nope\n    raw 1\n",
	    "@/sub/a.def:2:9: unknown PMU 'nope'"),
	INC("model t\n    include a.def a.def\n", "a.def", "\n",
	    "@/model.def:2:19: '@/a.def' is already included (as @/a.def)"),
	INC("model t\n    include a.def\n", "a.def", "# comment\n\n   \nevent x\n    pmu\n",
	    "@/a.def:5:8: expected a value after 'pmu'"),
	/* Only .def files by relative paths: an error quotes the line at fault,
	 * which must never be a line of some other file. */
	NB("model t\n    include /etc/passwd\n",
	   "@/model.def:2:13: expected a path relative to this file's directory but found '/etc/passwd'"),
	INC("model t\n    include a.def ../../../../etc/passwd\n", "a.def", "\n",
	   "@/model.def:2:19: expected the name of a .def file but found '../../../../etc/passwd'"),
	NB("model t\n    include sub/.def\n", "@/model.def:2:13: expected the name of a .def file but found 'sub/.def'"),
	/* Text that could reach a terminal: a carriage return is allowed only
	 * at the end of a line (CRLF files), C1 controls and bytes that are not
	 * UTF-8 are refused wherever they are, comments included. */
	B("event x\ry\n", "@/model.def:#1:8: expected text but found a control character"),
	B("event x\n    pmu core\n    raw 0x76\n    desc a\xc2\x9b[31m\n",
	  "@/model.def:#4:11: expected text but found a control character"),
	B("event x\n    pmu core\n    raw 0x76\n    desc a\x9b[31m\n",
	  "@/model.def:#4:11: expected UTF-8 text but found byte 0x9b"),
	B("event x\n    pmu core\n    raw 0x76\n    desc a\xc0\xaf\n",
	  "@/model.def:#4:11: expected UTF-8 text but found byte 0xc0"),
	B("event x # caf\xe9\n", "@/model.def:#1:14: expected UTF-8 text but found byte 0xe9"),
	B("event x\n    pmu core\n    raw 0x76\n    desc \x1b]0;pwned\x07\n",
	  "@/model.def:#4:10: expected text but found a control character"),
};

static char *tmpdir_new(void)
{
	char *t = xstrdup("/tmp/check_evdef.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(t));
	return t;
}

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	if (slash > path + strlen(dir)) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	free(path);
}

static void rm_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

/* Expands "@" to dir and "#N" to the absolute line number. */
static char *expand(const char *want, const char *dir, int base)
{
	size_t cap = strlen(want) * 4 + strlen(dir) * 8 + 64, len = 0;
	char *s = xmalloc(cap);
	for (const char *p = want; *p; p++) {
		if (*p == '@')
			len += (size_t)sprintf(s + len, "%s", dir);
		else if (*p == '#' && p[1] >= '0' && p[1] <= '9') {
			char *end;
			long n = strtol(p + 1, &end, 10);
			len += (size_t)sprintf(s + len, "%ld", n + base);
			p = end - 1;
		} else
			s[len++] = *p;
	}
	s[len] = 0;
	return s;
}

START_TEST(test_bad_inputs)
{
	const struct bad_case *c = &bad_cases[_i];
	char *dir = tmpdir_new();
	char *text = xasprintf("%s%s", c->base ? BASE_TEXT : "", c->model_def);
	write_file(dir, "model.def", text, strlen(text));
	if (c->inc_name)
		write_file(dir, c->inc_name, c->inc_text, strlen(c->inc_text));
	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	char *want = expand(c->want, dir, c->base ? BASE_LINES : 0);
	ck_assert_msg(m == NULL, "case at line %d loaded", c->line);
	ck_assert_msg(cause && !strcmp(cause, want), "case at line %d:\n got  '%s'\n want '%s'", c->line,
		      cause ? cause : "(null)", want);
	free(want);
	free(cause);
	free(text);
	rm_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_nul_byte)
{
	char *dir = tmpdir_new();
	static const char text[] = "model t\n    desc a\0b\n";
	write_file(dir, "model.def", text, sizeof(text) - 1);
	char *cause = NULL;
	ck_assert_ptr_null(model_load(dir, &cause));
	char *want = xasprintf("%s/model.def:2:11: expected text but found a NUL byte", dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	rm_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_base_loads)
{
	/* The base of the table is itself good, so each bad case fails for its
	 * own reason. */
	char *dir = tmpdir_new();
	write_file(dir, "model.def", BASE_TEXT, strlen(BASE_TEXT));
	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_int_eq(m->nevents, 3);
	model_free(m);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* A `sim` formula is kept as written and parsed by the simulated PMU when
 * it starts, not at load (model.h): a start on real counters does not pay
 * for the 252 of amd-zen5. A bad one stops --sim, naming where it is. */
START_TEST(test_sim_formula_at_sim_start)
{
	char *dir = tmpdir_new();
	static const char ev[] = "event x\n    pmu core\n    raw 0x76\n    sim cycles *\n";
	char *text = xasprintf("%s%s", BASE_TEXT, ev);
	write_file(dir, "model.def", text, strlen(text));
	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	int x = model_find_event(m, "x");
	ck_assert_int_ge(x, 0);
	ck_assert_str_eq(m->events[x].sim_text, "cycles *");
	struct topo *t = topo_synthetic(1, 1, 2, 2);
	ck_assert_ptr_null(backend_sim.create(m, t, NULL, &cause));
	char *want = xasprintf("%s/model.def:%d: event x: sim formula 'cycles *'", dir, BASE_LINES + 1);
	ck_assert_msg(cause && !strncmp(cause, want, strlen(want)), "got '%s'", cause ? cause : "(null)");
	free(want);
	free(cause);
	topo_free(t);
	model_free(m);
	free(text);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* model_room (model.h): an array with room is left where it is; a full
 * one, or one built with exactly n (cap 0), grows to twice n, keeping
 * what it holds. The loader sizes a model's events and metrics once, with
 * room for the variants that privilege modifiers add. */
START_TEST(test_model_room)
{
	int cap = 0, n = 3;
	int *a = xmalloc(sizeof(int) * 3);
	for (int i = 0; i < n; i++)
		a[i] = i + 10;
	a = model_room(a, n, &cap, sizeof(int));
	ck_assert_int_eq(cap, 8);
	a[n++] = 13;
	int *was = a;
	for (; n < 8; n++) {
		a = model_room(a, n, &cap, sizeof(int));
		ck_assert_ptr_eq(a, was);
		a[n] = n + 10;
	}
	a = model_room(a, n, &cap, sizeof(int));
	ck_assert_int_eq(cap, 16);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(a[i], i + 10);
	free(a);
	char *cause = NULL;
	struct model *m = model_load(TOP_SRCDIR "/events/amd/zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_int_ge(m->events_cap, m->nevents);
	ck_assert_int_ge(m->metrics_cap, m->nmetrics);
	/* A variant goes into the room the loader left. */
	struct event_def *ev = m->events;
	int n0 = m->nevents;
	ck_assert_int_lt(n0, m->events_cap);
	int e = model_event_variant(m, "ex_ret_brn_misp:k", &cause);
	ck_assert_msg(e >= 0, "%s", cause ? cause : "");
	ck_assert_int_eq(e, n0);
	ck_assert_int_eq(m->nevents, n0 + 1);
	ck_assert_ptr_eq(m->events, ev);
	ck_assert(m->events[e].excl & EXCL_USER);
	ck_assert(!(m->events[e].excl & EXCL_KERNEL));
	model_free(m);
}
END_TEST

static bool in_kept(const struct model *m, const char *s)
{
	for (int i = 0; i < m->kept->ntexts; i++)
		if (m->kept->texts[i] && s >= m->kept->texts[i] && s <= m->kept->texts[i] + m->kept->lens[i])
			return true;
	for (int i = 0; i < m->kept->nfiles; i++)
		if (s == m->kept->files[i])
			return true;
	return false;
}

/* A model loaded from its files holds their texts, and its events' and
 * metrics' strings lie in them, not each copied (issue 39); a string
 * made afterwards (a modifier's variant, a replacement) is its own, and
 * model_free (run under valgrind or ASan) frees each block once. */
START_TEST(test_strings_kept)
{
	char *cause = NULL;
	struct model *m = model_load(TOP_SRCDIR "/events/amd/zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_ptr_nonnull(m->kept);
	ck_assert_int_ge(m->kept->ntexts, 10);
	for (int i = 0; i < m->nevents; i++) {
		const struct event_def *ev = &m->events[i];
		if (ev->excl) {
			/* A variant its metrics' modifiers made: its own. */
			ck_assert_msg(!in_kept(m, ev->name) && !in_kept(m, ev->desc), "%s", ev->name);
			continue;
		}
		ck_assert_msg(in_kept(m, ev->name) && in_kept(m, ev->file), "%s", ev->name);
		ck_assert(!*ev->desc || in_kept(m, ev->desc));
		ck_assert(!ev->spec || in_kept(m, ev->spec));
		ck_assert(!ev->sim_text || in_kept(m, ev->sim_text));
	}
	for (int i = 0; i < m->nmetrics; i++) {
		const struct metric_def *md = &m->metrics[i];
		ck_assert_msg(in_kept(m, md->name) && in_kept(m, md->formula) && in_kept(m, md->label) &&
			      in_kept(m, md->file), "%s", md->name);
	}
	/* The file names are the loader's, one string per file. */
	int zen5 = model_find_event(m, "ex_ret_brn_misp");
	ck_assert_int_ge(zen5, 0);
	ck_assert_str_eq(strrchr(m->events[zen5].file, '/'), "/core.def");
	int e = model_event_variant(m, "ex_ret_brn_misp:u", &cause);
	ck_assert_msg(e >= 0, "%s", cause ? cause : "");
	ck_assert(!in_kept(m, m->events[e].name) && !in_kept(m, m->events[e].desc));
	model_str_set(m, &m->events[0].desc, xstrdup("replaced"));
	model_str_set(m, &m->events[e].desc, xstrdup("replaced too"));
	ck_assert_str_eq(m->events[0].desc, "replaced");
	model_free(m);
}
END_TEST

/* A model's directories are resolved from the definitions directory's
 * canonical path, a component at a time (evdef_parse.c, climb): a link
 * among them is resolved as realpath would, both to a directory inside
 * the definitions directory and to one outside it. */
START_TEST(test_include_dir_links)
{
	char *root = tmpdir_new();
	char *out = tmpdir_new();
	write_file(root, "a/shared.def", "\n", 1);
	const char *text = "model t\n    include ../shared.def\n";
	write_file(root, "a/b/model.def", text, strlen(text));
	char *l = xasprintf("%s/l", root);
	ck_assert_int_eq(symlink("a/b", l), 0);
	char *cause = NULL;
	/* l/.. is a, where l leads, not root. */
	struct model *m = model_load_under(root, l, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	model_free(m);
	/* The same file by two names through the link is one file. */
	text = "model t\n    include ../shared.def ../../a/shared.def\n";
	write_file(root, "a/b/model.def", text, strlen(text));
	ck_assert_ptr_null(model_load_under(root, l, &cause));
	ck_assert_msg(strstr(cause, "'") && strstr(cause, "../../a/shared.def' is already included"), "%s", cause);
	free(cause);
	/* A directory link leading out of the definitions directory. */
	write_file(out, "x.def", "\n", 1);
	char *ext = xasprintf("%s/a/b/ext", root);
	ck_assert_int_eq(symlink(out, ext), 0);
	text = "model t\n    include ext/x.def\n";
	write_file(root, "a/b/model.def", text, strlen(text));
	ck_assert_ptr_null(model_load_under(root, l, &cause));
	ck_assert_msg(strstr(cause, "it is outside the definitions directory"), "%s", cause);
	free(cause);
	/* And the directory as named by .. from inside it. */
	char *dotdot = xasprintf("%s/a/b/../b", root);
	text = "model t\n    include ../shared.def\n";
	write_file(root, "a/b/model.def", text, strlen(text));
	m = model_load_under(root, dotdot, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	model_free(m);
	free(dotdot);
	free(ext);
	free(l);
	rm_tree(root);
	rm_tree(out);
	free(root);
	free(out);
}
END_TEST

/* evdef_parse_u64 reads 0x and up to 16 hex digits itself, and leaves
 * the rest to strtoull: either way, what strtoull(s, 0) reads whole. And
 * evdef_field_mask's ranges are the bits a bit at a time. */
START_TEST(test_u64_and_masks)
{
	static const char *const cases[] = {
		"0", "7", "0x0", "0x1", "0xff", "0XFF", "0x4300C3", "0xffffffffffffffff", "0x10000000000000000",
		"0x0000000000000000001", "0x", "0xg", "0x12 ", "0x12z", "012", "09", "18446744073709551615",
		"18446744073709551616", "0x7fffFFFFffffFFFF", "1e3", "0x-1", "00x1", "",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *s = cases[i];
		char *end;
		errno = 0;
		unsigned long long want = strtoull(s, &end, 0);
		bool ok = isdigit((unsigned char)*s) && !errno && !*end;
		uint64_t got = 12345;
		ck_assert_msg(evdef_parse_u64(s, &got) == ok, "'%s'", s);
		if (ok)
			ck_assert_msg(got == want, "'%s': %llx, want %llx", s, (unsigned long long)got, want);
	}
	for (int lo = 0; lo < 64; lo++) {
		for (int hi = lo; hi < 64; hi++) {
			struct hw_field f = { .nranges = 2 };
			f.range[0].lo = lo;
			f.range[0].hi = hi;
			f.range[1].lo = hi / 2;
			f.range[1].hi = hi / 2;
			uint64_t want = 0;
			for (int r = 0; r < 2; r++)
				for (int bit = f.range[r].lo; bit <= f.range[r].hi; bit++)
					want |= 1ULL << bit;
			ck_assert_msg(evdef_field_mask(&f) == want, "%d-%d", lo, hi);
		}
	}
}
END_TEST

/* Lines are scanned eight bytes at a time (evdef_parse.c, skip_text): a
 * tab, a '#' comment, a quoted '#' and the end of the text fall at every
 * offset of a word, and each value is what it was byte by byte. */
START_TEST(test_scan_offsets)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz", upper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *dir = tmpdir_new();
	size_t cap = 1 << 16, len = 0;
	char *text = xmalloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "%s", BASE_TEXT);
	for (int k = 0; k < 20; k++)
		/* e<k>'s desc: v and k letters, a tab, "x", then a comment; q<k>'s:
		 * quoted, with a '#' after k letters. */
		len += (size_t)snprintf(text + len, cap - len,
					"event e%d\n    pmu core\n    raw 0x%x\n    desc v%.*s\tx # c%d\n"
					"event q%d\n    pmu core\n    raw 0x%x\n    desc \"%.*s#q\"\n",
					k, 0x100 + k, k, lower, k, k, 0x200 + k, k, upper);
	/* The file's last line, without its newline. */
	len += (size_t)snprintf(text + len, cap - len, "metric last\n    formula cyc / ins");
	write_file(dir, "model.def", text, len);
	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	for (int k = 0; k < 20; k++) {
		char name[16], want[64];
		snprintf(name, sizeof(name), "e%d", k);
		int e = model_find_event(m, name);
		ck_assert_int_ge(e, 0);
		snprintf(want, sizeof(want), "v%.*s\tx", k, lower);
		ck_assert_str_eq(m->events[e].desc, want);
		snprintf(name, sizeof(name), "q%d", k);
		e = model_find_event(m, name);
		ck_assert_int_ge(e, 0);
		snprintf(want, sizeof(want), "%.*s#q", k, upper);
		ck_assert_str_eq(m->events[e].desc, want);
	}
	int last = model_find_metric(m, "last");
	ck_assert_int_ge(last, 0);
	ck_assert_str_eq(m->metrics[last].formula, "cyc / ins");
	model_free(m);
	free(text);
	rm_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_missing_dir)
{
	char *cause = NULL;
	ck_assert_ptr_null(model_load("/nonexistent/pmctop", &cause));
	ck_assert_str_eq(cause, "/nonexistent/pmctop/model.def: cannot open: No such file or directory");
	free(cause);
}
END_TEST

START_TEST(test_crlf_and_utf8_load)
{
	/* CRLF line ends and UTF-8 text (not C1) are fine. */
	char *dir = tmpdir_new();
	static const char text[] = "model t\r\n    desc caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x94\xa5\r\n";
	write_file(dir, "model.def", text, sizeof(text) - 1);
	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_str_eq(m->desc, "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x94\xa5");
	model_free(m);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* A FIFO or a device where a definition file should be: an error, at once
 * (a blocking open would hang here until the test times out). */
START_TEST(test_include_fifo)
{
	char *dir = tmpdir_new();
	const char *text = "model t\n    include fifo.def\n";
	write_file(dir, "model.def", text, strlen(text));
	char *fifo = xasprintf("%s/fifo.def", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	char *cause = NULL;
	ck_assert_ptr_null(model_load(dir, &cause));
	char *want = xasprintf("%s/model.def:2:13: cannot include: %s: expected a regular file", dir, fifo);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	/* model.def itself a FIFO, then a device. */
	char *def = xasprintf("%s/model.def", dir);
	ck_assert_int_eq(unlink(def), 0);
	ck_assert_int_eq(mkfifo(def, 0600), 0);
	ck_assert_ptr_null(model_load(dir, &cause));
	want = xasprintf("%s: expected a regular file", def);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	ck_assert_int_eq(unlink(def), 0);
	ck_assert_int_eq(symlink("/dev/zero", def), 0);
	ck_assert_ptr_null(model_load(dir, &cause));
	want = xasprintf("%s: expected a regular file", def);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	free(def);
	free(fifo);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* Under a definitions directory, includes stay inside it: through ../ as
 * the real models do, but not through a link that leads out. */
START_TEST(test_include_confined)
{
	char *root = tmpdir_new();
	char *out = tmpdir_new();
	write_file(root, "common/sw.def", "\n", 1);
	write_file(out, "secret.def", "root:x:0:0\n", 11);
	const char *text = "model t\n    include ../common/sw.def\n";
	write_file(root, "m/model.def", text, strlen(text));
	char *dir = xasprintf("%s/m", root);
	char *cause = NULL;
	struct model *m = model_load_under(root, dir, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	model_free(m);

	char *link = xasprintf("%s/m/leak.def", root);
	char *target = xasprintf("%s/secret.def", out);
	ck_assert_int_eq(symlink(target, link), 0);
	text = "model t\n    include ../common/sw.def leak.def\n";
	write_file(root, "m/model.def", text, strlen(text));
	ck_assert_ptr_null(model_load_under(root, dir, &cause));
	char *want = xasprintf("%s/model.def:2:30: cannot include '%s': it is outside the definitions directory %s",
			       dir, link, root);
	ck_assert_str_eq(cause, want);
	ck_assert_ptr_null(strstr(cause, "root:x"));
	free(want);
	free(cause);
	/* Without a definitions directory (tests, the fuzzer), the link is
	 * followed and its text is a definition error like any other. */
	ck_assert_ptr_null(model_load(dir, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "leak.def:1:1:"));
	free(cause);
	free(target);
	free(link);
	free(dir);
	rm_tree(root);
	rm_tree(out);
	free(root);
	free(out);
}
END_TEST

/* Writes a model of n metrics, flat (each uses the event) or a chain (each
 * uses the one before), to a new directory, and returns the seconds that
 * loading it took. */
static double load_seconds(int n, bool chain)
{
	static const char head[] = "pmu cpu\n    perf cpu\n    kind core\n    scope thread\n    counters 6\n"
				   "    field event 0-7\nevent e0\n    pmu cpu\n    raw 0x3c\n";
	static const char model[] = "model big\n    include a.def\n";
	char *dir = tmpdir_new();
	write_file(dir, "model.def", model, strlen(model));
	char *path = xasprintf("%s/a.def", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(head, f);
	for (int i = 0; i < n; i++) {
		if (chain && i > 0)
			fprintf(f, "metric m%d\n    formula m%d + 1\n", i, i - 1);
		else
			fprintf(f, "metric m%d\n    formula e0 * %d\n", i, i);
	}
	ck_assert_int_eq(fclose(f), 0);
	char *cause = NULL;
	uint64_t t0 = now_ns();
	struct model *m = model_load(dir, &cause);
	double s = (double)(now_ns() - t0) / 1e9;
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_int_eq(m->nmetrics, n);
	char *last = xasprintf("m%d", n - 1);
	ck_assert_int_eq(model_find_metric(m, last), n - 1);
	ck_assert_int_eq(m->metrics[n - 1].nevents, 1);
	free(last);
	model_free(m);
	free(path);
	rm_tree(dir);
	free(dir);
	return s;
}

/* Loading is near-linear: 100,000 metrics, and a chain of 100,000 metrics
 * each using the one before, take about ten times as long as 10,000 (a
 * hundred times, were it quadratic: a quadratic loader took minutes). A
 * ratio holds however slow the build (sanitizers, valgrind) or the
 * machine; no absolute time is asserted (a bound of 5 s was, and gave way
 * on instrumented builds). */
START_TEST(test_load_time_linear)
{
	enum { N = 100000 };
	for (int chain = 0; chain < 2; chain++) {
		double small = load_seconds(N / 10, chain), big = load_seconds(N, chain);
		ck_assert_msg(big < 40 * small + 0.05, "%s: %d metrics took %.3f s, %d took %.3f s", chain ? "chain" : "flat",
			      N / 10, small, N, big);
	}
}
END_TEST

/* The model search visits each directory once: links back to a parent, as
 * in ten `ln -s . junk/lN`, cost nothing; a tree of too many directories is
 * an error naming the limit, not a scan of minutes. */
START_TEST(test_model_list_links)
{
	char *dir = tmpdir_new();
	write_file(dir, "a/model.def", "model one\n", 10);
	char *junk = xasprintf("%s/junk", dir);
	ck_assert_int_eq(mkdir(junk, 0755), 0);
	for (int i = 0; i < 10; i++) {
		char *l = xasprintf("%s/l%d", junk, i);
		ck_assert_int_eq(symlink(i % 2 ? "." : "..", l), 0);
		free(l);
	}
	char *fifo = xasprintf("%s/junk/model.def", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	struct model_info *l;
	char *cause = NULL;
	/* A search that followed the links would not end: the test's
	 * timeout would fail it. */
	int n = model_list(dir, &l, &cause);
	ck_assert_msg(n == 1, "%d models: %s", n, cause ? cause : "");
	ck_assert_str_eq(l[0].name, "one");
	model_list_free(l, n);

	for (int i = 0; i < 2100; i++) {
		char *d = xasprintf("%s/d%04d", junk, i);
		ck_assert_int_eq(mkdir(d, 0755), 0);
		free(d);
	}
	ck_assert_int_eq(model_list(dir, &l, &cause), -1);
	ck_assert_msg(strstr(cause, ": more than 2048 directories to search for models: not a definitions directory?"),
		      "%s", cause);
	free(cause);
	free(fifo);
	free(junk);
	rm_tree(dir);
	free(dir);
}
END_TEST

static double value_one_two(void *ctx, int ref)
{
	const struct model *m = ctx;
	if (ref == BUILTIN_INTERVAL_S)
		return 2.0;
	if (ref >= METRIC_REF_BASE) {
		/* Metrics used by other metrics are evaluated on demand here. */
		return expr_eval(m->metrics[ref - METRIC_REF_BASE].expr, value_one_two, ctx);
	}
	/* cycles 2000, instructions 1000, l3 50, busy 1e9 ns */
	const char *n = m->events[ref].name;
	if (!strcmp(n, "ls_not_halted_cyc"))
		return 2000;
	if (!strcmp(n, "ex_ret_instr"))
		return 1000;
	if (!strcmp(n, "l3_lookup_state.all"))
		return 50;
	if (!strcmp(n, "cpu_busy_ns"))
		return 1e9;
	return NAN;
}

START_TEST(test_good_model)
{
	char *cause = NULL;
	struct model *m = model_load(FIXTURES "/amd/zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_str_eq(m->name, "amd-zen5");
	ck_assert_str_eq(m->desc, "Test model: AMD Family 1Ah Model 00h-0Fh");
	ck_assert_str_eq(m->sim_args, "ghz=4.0,nominal=2.5");
	ck_assert_str_eq(m->alias, "zen5");
	ck_assert_int_eq(m->sim_shape[0] * 1000 + m->sim_shape[1] * 100 + m->sim_shape[2] * 10 + m->sim_shape[3], 1282);
	ck_assert_str_eq(m->dir, FIXTURES "/amd/zen5");
	ck_assert_int_eq(m->nmatch, 1);
	ck_assert_str_eq(m->match[0].vendor, "AuthenticAMD");
	ck_assert_int_eq(m->match[0].family, 0x1a);
	ck_assert_int_eq(m->match[0].model_lo, 0);
	ck_assert_int_eq(m->match[0].model_hi, 0x0f);

	/* PMUs in file order: core.def, l3.def, then software.def's two. */
	ck_assert_int_eq(m->npmus, 4);
	int core = model_find_pmu(m, "core"), l3 = model_find_pmu(m, "l3");
	ck_assert_int_eq(core, 0);
	ck_assert_int_eq(l3, 1);
	ck_assert_int_eq(model_find_pmu(m, "proc"), 3);
	const struct pmu_def *p = &m->pmus[core];
	ck_assert_str_eq(p->perf_name, "cpu");
	ck_assert_int_eq(p->kind, PMU_CORE);
	ck_assert_int_eq(p->scope, SCOPE_THREAD);
	ck_assert_int_eq(p->counters, 6);
	ck_assert_int_eq(p->nmi_reserved, 1);
	ck_assert_int_eq(p->fixed, 0);
	ck_assert(!p->nmi_takes_fixed);
	ck_assert_str_eq(p->notation, "Event");
	ck_assert_int_eq(p->nfields, 5);
	ck_assert_str_eq(p->fields[0].name, "event");
	ck_assert_int_eq(p->fields[0].nranges, 2);
	ck_assert_int_eq(p->fields[0].range[0].lo, 0);
	ck_assert_int_eq(p->fields[0].range[0].hi, 7);
	ck_assert_int_eq(p->fields[0].range[1].lo, 32);
	ck_assert_int_eq(p->fields[0].range[1].hi, 35);
	ck_assert_int_eq(p->fields[2].range[0].lo, 18);
	ck_assert_int_eq(p->fields[2].range[0].hi, 18);
	ck_assert_uint_eq(p->ignore_mask, 0x530000);
	ck_assert_int_eq(m->pmus[l3].kind, PMU_UNCORE);
	ck_assert_int_eq(m->pmus[l3].scope, SCOPE_CCX);
	ck_assert_int_eq(m->pmus[l3].nfields, 0);

	/* Events. */
	ck_assert_int_eq(m->nevents, 6);
	int cyc = model_find_event(m, "ls_not_halted_cyc");
	int ins = model_find_event(m, "ex_ret_instr");
	int disp = model_find_event(m, "de_src_op_disp.all");
	int l3acc = model_find_event(m, "l3_lookup_state.all");
	int busy = model_find_event(m, "cpu_busy_ns");
	ck_assert_int_ge(cyc, 0);
	ck_assert_int_eq(m->events[cyc].enc, ENC_RAW);
	ck_assert_uint_eq(m->events[cyc].raw, 0x430076);
	ck_assert_int_eq(m->events[cyc].arch_bit, -1);
	ck_assert_str_eq(m->events[cyc].sim_text, "cycles");
	ck_assert_str_eq(m->events[ins].desc, "Retired instructions # quoted");
	ck_assert_ptr_null(m->events[ins].sim_text);
	ck_assert_uint_eq(m->events[disp].raw, 0x1004307AAULL);
	ck_assert_uint_eq(m->events[disp].flags, EVF_MERGE);
	ck_assert_int_eq(m->events[l3acc].enc, ENC_FIELDS);
	ck_assert_int_eq(m->events[l3acc].pmu, l3);
	ck_assert_str_eq(m->events[l3acc].spec, "event=0x04,umask=0xff");
	ck_assert_int_eq(m->events[busy].enc, ENC_PROC);
	ck_assert_str_eq(m->events[busy].spec, "busy_ns");
	ck_assert_int_eq(m->events[model_find_event(m, "task_clock")].enc, ENC_PERF);
	/* The file recorded for an event is the included file, by its path. */
	ck_assert_str_eq(m->events[busy].file, FIXTURES "/amd/zen5/../../generic/software.def");
	ck_assert_int_eq(m->events[busy].line, 16);

	/* Metrics: resolved formulas, scopes, groups, transitive events. */
	ck_assert_int_eq(m->nmetrics, 5);
	int ipc = model_find_metric(m, "ipc"), cpi = model_find_metric(m, "cpi");
	int l3k = model_find_metric(m, "l3_per_kinsn"), util = model_find_metric(m, "cpu_util");
	const struct metric_def *md = &m->metrics[ipc];
	ck_assert_str_eq(md->label, "IPC");
	ck_assert_str_eq(md->unit, "insn/cyc");
	ck_assert_int_eq(md->scope, SCOPE_THREAD);
	ck_assert_int_eq(md->ngroups, 2);
	ck_assert(metric_in_group(md, "branch"));
	ck_assert(metric_in_group(md, "ipc"));
	ck_assert(!metric_in_group(md, "l3"));
	ck_assert_int_eq(md->nevents, 2);
	ck_assert_int_eq(md->events[0], ins);
	ck_assert_int_eq(md->events[1], cyc);
	ck_assert_double_eq_tol(expr_eval(md->expr, value_one_two, m), 0.5, 1e-12);
	ck_assert_ptr_null(md->note);

	md = &m->metrics[cpi];
	ck_assert_str_eq(md->unit, "");
	ck_assert_int_eq(md->nevents, 2); /* through ipc */
	int *ids;
	ck_assert_int_eq(expr_ids(md->expr, &ids), 1);
	ck_assert_int_eq(ids[0], METRIC_REF(ipc));
	free(ids);
	ck_assert_double_eq_tol(expr_eval(md->expr, value_one_two, m), 2.0, 1e-12);

	md = &m->metrics[l3k];
	ck_assert_int_eq(md->scope, SCOPE_CCX); /* derived from the L3 event */
	ck_assert_str_eq(md->note, "Summed over the CCX before dividing.");
	ck_assert_double_eq_tol(expr_eval(md->expr, value_one_two, m), 50.0, 1e-12);

	md = &m->metrics[util];
	ck_assert_int_eq(md->nevents, 1);
	ck_assert_int_eq(md->events[0], busy);
	ck_assert_int_eq(expr_ids(md->expr, &ids), 2);
	ck_assert_int_eq(ids[1], BUILTIN_INTERVAL_S);
	free(ids);
	ck_assert_double_eq_tol(expr_eval(md->expr, value_one_two, m), 0.5, 1e-12);

	/* Views. */
	ck_assert_int_eq(m->nviews, 1);
	const struct view_def *v = &m->views[model_find_view(m, "basic")];
	ck_assert_str_eq(v->title, "Basic");
	ck_assert_int_eq(v->key, 1);
	ck_assert_int_eq(v->ncols, 3);
	ck_assert_int_eq(v->cols[0].metric, ipc);
	ck_assert_str_eq(v->cols[0].fmt, "%.2f");
	ck_assert_int_eq(v->cols[0].width, 6);
	ck_assert(isnan(v->cols[0].warn) && isnan(v->cols[0].crit));
	ck_assert_str_eq(v->cols[1].fmt, "pct"); /* default for a ratio */
	ck_assert_double_eq(v->cols[1].warn, 0.8);
	ck_assert_double_eq(v->cols[1].crit, 0.95);
	ck_assert(!v->cols[1].low_is_bad);
	ck_assert(v->cols[2].low_is_bad);
	ck_assert_int_eq(v->nbar, 1);
	ck_assert_int_eq(v->bar[0], util);
	ck_assert_int_eq(model_find_view(m, "nope"), -1);
	ck_assert_int_eq(model_find_metric(m, "ls_not_halted_cyc"), -1);
	model_free(m);
}
END_TEST

/* perf's privilege modifiers: a formula's `ins:u` is a variant of ins with
 * the exclude bits perf sets, made once however its letters are ordered;
 * letters that leave nothing out name the event itself; perf's generic
 * names and spellings find the model's events. */
START_TEST(test_modifiers)
{
	char *dir = tmpdir_new();
	const char *text = BASE_TEXT "event retired\n    pmu core\n    raw 0x4300C0\n    portable instructions\n"
				     "event page_faults\n    pmu core\n    raw 0x42\n"
				     "metric ipc_user\n    formula ins:u / cyc:u\n"
				     "metric k\n    formula ins:ku + ins:uk + ins:ukh\n";
	write_file(dir, "model.def", text, strlen(text));
	char *cause = NULL;
	struct model *m = model_load(dir, &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_int_eq(m->nevents, 8);
	int iu = model_find_event(m, "ins:u"), cu = model_find_event(m, "cyc:u"), iuk = model_find_event(m, "ins:uk");
	ck_assert_int_ge(iu, 4);
	ck_assert_int_ge(cu, 4);
	ck_assert_int_ge(iuk, 4);
	ck_assert_int_lt(model_find_event(m, "ins:ku"), 0);
	ck_assert_uint_eq(m->events[iu].excl, EXCL_KERNEL | EXCL_HV);
	ck_assert_uint_eq(m->events[iuk].excl, EXCL_HV);
	ck_assert_uint_eq(m->events[iu].raw, 0x4300C0);
	ck_assert_int_eq(m->events[iu].nportable, 0);
	ck_assert_int_eq(m->metrics[1].nevents, 2);
	/* After loading, as -e makes them. */
	ck_assert_int_eq(model_event_variant(m, "ins:ku", NULL), iuk);
	ck_assert_int_eq(model_event_variant(m, "ins:GH", NULL), model_find_event(m, "ins"));
	int ru = model_event_variant(m, "instructions:u", NULL);
	ck_assert_int_eq(ru, 8);
	ck_assert_str_eq(m->events[ru].name, "retired:u");
	int pf = model_event_variant(m, "page-faults:k", &cause);
	ck_assert_msg(pf == 9, "%d %s", pf, cause ? cause : "");
	ck_assert_str_eq(m->events[pf].name, "page_faults:k");
	ck_assert_uint_eq(m->events[pf].excl, EXCL_USER | EXCL_HV);
	ck_assert_int_eq(model_event_variant(m, "cyc:G", NULL), 10);
	ck_assert_uint_eq(m->events[10].excl, EXCL_HOST);
	ck_assert_int_eq(model_event_variant(m, "cyc:H", NULL), 11);
	ck_assert_uint_eq(m->events[11].excl, EXCL_GUEST);
	ck_assert_int_eq(model_event_variant(m, "cyc:h", NULL), 12);
	ck_assert_uint_eq(m->events[12].excl, EXCL_USER | EXCL_KERNEL);
	ck_assert_int_eq(model_event_variant(m, "l3acc:k", &cause), -2);
	free(cause);
	ck_assert_int_eq(model_event_variant(m, "nope:u", &cause), -1);
	ck_assert_str_eq(cause, "no event 'nope'");
	free(cause);
	ck_assert_int_eq(model_event_variant(m, "cyc:", &cause), -2);
	ck_assert_str_eq(cause, "event 'cyc:': expected modifiers after ':' (u, k, h, G, H)");
	free(cause);
	ck_assert_int_eq(model_event_variant(m, "cyc:p", &cause), -2);
	free(cause);
	ck_assert_int_eq(model_event_variant(m, "nocolon", &cause), -1);
	free(cause);
	ck_assert_int_eq(m->nevents, 13);
	model_free(m);
	rm_tree(dir);
	free(dir);

	unsigned excl;
	char canon[8];
	ck_assert_int_eq(event_modifiers_parse("kHu", &excl, canon, NULL), 0);
	ck_assert_str_eq(canon, "ukH");
	ck_assert_uint_eq(excl, EXCL_HV | EXCL_GUEST);
	char *what = event_modifiers_text(excl);
	ck_assert_str_eq(what, "hypervisor, guest");
	free(what);
}
END_TEST

START_TEST(test_scopes)
{
	for (int s = 0; s < SCOPE_COUNT; s++)
		ck_assert_int_eq(scope_parse(scope_name((enum scope)s)), s);
	ck_assert_str_eq(scope_name(SCOPE_CCX), "ccx");
	ck_assert_int_eq(scope_parse("CCX"), -1);
	ck_assert_int_eq(scope_parse(NULL), -1);
	ck_assert_str_eq(scope_name(SCOPE_COUNT), "?");
}
END_TEST

START_TEST(test_model_list)
{
	struct model_info *l;
	char *cause = NULL;
	int n = model_list(FIXTURES, &l, &cause);
	ck_assert_msg(n == 6, "%d models: %s", n, cause ? cause : "");
	static const char *const names[] = { "amd-fam10h", "amd-zen5", "generic", "intel-arch", "intel-core2",
					     "intel-westmere" };
	for (int i = 0; i < n; i++)
		ck_assert_str_eq(l[i].name, names[i]);
	ck_assert_str_eq(l[5].dir, FIXTURES "/intel/westmere");
	ck_assert_int_eq(l[5].nmatch, 3);
	ck_assert_int_eq(l[5].match[1].model_lo, 0x2c);
	ck_assert_int_eq(l[5].match[1].model_hi, 0x2c);
	ck_assert_str_eq(l[2].match[0].vendor, "*");
	ck_assert_int_eq(l[2].match[0].family, -1);
	model_list_free(l, n);

	ck_assert_int_eq(model_list("/nonexistent/pmctop", &l, &cause), -1);
	ck_assert_str_eq(cause, "/nonexistent/pmctop: cannot open the definitions directory: No such file or directory");
	free(cause);
}
END_TEST

START_TEST(test_model_list_duplicate)
{
	char *dir = tmpdir_new();
	write_file(dir, "a/model.def", "model same\n", 11);
	write_file(dir, "b/model.def", "model same\n", 11);
	struct model_info *l;
	char *cause = NULL;
	ck_assert_int_eq(model_list(dir, &l, &cause), -1);
	char *want = xasprintf("model name or alias 'same' is used twice: in %s/a and in %s/b", dir, dir);
	ck_assert_str_eq(cause, want);
	free(want);
	free(cause);
	rm_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_load_by_name)
{
	char *cause = NULL;
	struct model *m = model_load_by_name(FIXTURES, "amd-zen5", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_str_eq(m->dir, FIXTURES "/amd/zen5");
	model_free(m);
	m = model_load_by_name(FIXTURES, "generic", &cause);
	ck_assert_msg(m != NULL, "%s", cause ? cause : "");
	ck_assert_int_eq(m->nevents, 2);
	model_free(m);
	ck_assert_ptr_null(model_load_by_name(FIXTURES, "amd-zen9", &cause));
	ck_assert_str_eq(cause, "no model 'amd-zen9' under " FIXTURES " (pmctop --list-models shows the models)");
	free(cause);
}
END_TEST

static Suite *evdef_suite(void)
{
	Suite *s = suite_create("evdef");
	TCase *tc = tcase_create("bad");
	tcase_add_loop_test(tc, test_bad_inputs, 0, (int)ARRAY_SIZE(bad_cases));
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_base_loads);
	tcase_add_test(tc, test_missing_dir);
	tcase_add_test(tc, test_sim_formula_at_sim_start);
	tcase_add_test(tc, test_model_room);
	tcase_add_test(tc, test_scan_offsets);
	tcase_add_test(tc, test_crlf_and_utf8_load);
	tcase_add_test(tc, test_include_fifo);
	tcase_add_test(tc, test_include_confined);
	suite_add_tcase(s, tc);
	tc = tcase_create("bounds");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_load_time_linear);
	tcase_add_test(tc, test_model_list_links);
	suite_add_tcase(s, tc);
	tc = tcase_create("good");
	tcase_add_test(tc, test_good_model);
	tcase_add_test(tc, test_scopes);
	tcase_add_test(tc, test_modifiers);
	tcase_add_test(tc, test_model_list);
	tcase_add_test(tc, test_strings_kept);
	tcase_add_test(tc, test_u64_and_masks);
	tcase_add_test(tc, test_include_dir_links);
	tcase_add_test(tc, test_model_list_duplicate);
	tcase_add_test(tc, test_load_by_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(evdef_suite());
}
