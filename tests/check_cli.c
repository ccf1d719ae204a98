/* check_cli.c: option parsing: good command lines set the right fields,
 * bad ones are rejected with a reason that names the problem. */
#include "config.h"
#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define MAXARGS 16

/* Parses a NULL-terminated list of arguments (after "pmctop"). */
static int parse(struct options *o, char **cause, const char *const *args)
{
	char *argv[MAXARGS + 1];
	int argc = 0;
	argv[argc++] = (char *)"pmctop";
	for (; *args && argc < MAXARGS; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	options_init(o);
	*cause = NULL;
	return cli_parse(argc, argv, o, cause);
}

START_TEST(test_defaults)
{
	struct options o;
	char *cause;
	const char *args[] = { NULL };
	ck_assert_int_eq(parse(&o, &cause, args), 0);
	ck_assert(fabs(o.interval_s - 1.0) < 1e-9);
	ck_assert(fabs(o.rotate_ms - CLI_DEFAULT_ROTATE_MS) < 1e-9);
	ck_assert(!o.batch);
	ck_assert_int_eq(o.format, OUT_TABLE);
	ck_assert_int_eq(o.iterations, 0);
	options_done(&o);
}
END_TEST

START_TEST(test_batch_options)
{
	struct options o;
	char *cause;
	const char *args[] = { "-b", "-n", "3", "-d", "0.5", "-C", "0-1", "--format", "json",
			       "-e", "ex_ret_instr", "--event=ls_not_halted_cyc", "-g", "topdown", NULL };
	ck_assert_int_eq(parse(&o, &cause, args), 0);
	ck_assert(o.batch);
	ck_assert_int_eq(o.iterations, 3);
	ck_assert(fabs(o.interval_s - 0.5) < 1e-9);
	ck_assert_str_eq(o.cpu_list, "0-1");
	ck_assert_int_eq(o.format, OUT_JSON);
	ck_assert_int_eq(o.nevents, 2);
	ck_assert_str_eq(o.events[0], "ex_ret_instr");
	ck_assert_str_eq(o.events[1], "ls_not_halted_cyc");
	ck_assert_str_eq(o.group, "topdown");
	options_done(&o);
}
END_TEST

/* A repeated -e adds one column: duplicates are dropped, order kept. */
START_TEST(test_repeated_event)
{
	struct options o;
	char *cause;
	const char *args[] = { "-b", "-e", "a", "-e", "b", "--event=a", "-e", "b", "-e", "c", "-e", "a", NULL };
	ck_assert_int_eq(parse(&o, &cause, args), 0);
	ck_assert_int_eq(o.nevents, 3);
	ck_assert_str_eq(o.events[0], "a");
	ck_assert_str_eq(o.events[1], "b");
	ck_assert_str_eq(o.events[2], "c");
	options_done(&o);
}
END_TEST

START_TEST(test_list_events_pattern)
{
	struct options o;
	char *cause;
	const char *args[] = { "--sim", "zen5", "--list-events", "l3", NULL };
	ck_assert_int_eq(parse(&o, &cause, args), 0);
	ck_assert(o.list_events);
	ck_assert_str_eq(o.list_pattern, "l3");
	ck_assert_str_eq(o.sim, "zen5");
	options_done(&o);

	const char *args2[] = { "--list-events", "--model", "amd-zen5", NULL };
	ck_assert_int_eq(parse(&o, &cause, args2), 0);
	ck_assert(o.list_events);
	ck_assert_ptr_null(o.list_pattern);
	ck_assert_str_eq(o.model, "amd-zen5");
	options_done(&o);

	const char *args3[] = { "--list-metrics", "--raw", NULL };
	ck_assert_int_eq(parse(&o, &cause, args3), 0);
	ck_assert(o.list_metrics && o.raw);
	options_done(&o);
}
END_TEST

/* Each bad command line and a word its reason must contain. */
static const struct {
	const char *args[6];
	const char *reason;
} bad_lines[] = {
	{ { "-d", "0" }, "-d expects a delay" },
	{ { "-d", "abc" }, "-d expects a delay" },
	{ { "-d", "-1" }, "-d expects a delay" },
	{ { "-d", "nan" }, "-d expects a delay" },
	{ { "-n", "0" }, "-n expects a positive" },
	{ { "-n", "3x" }, "-n expects a positive" },
	{ { "--format", "xml" }, "--format expects table, csv or json" },
	{ { "--rotate", "0" }, "--rotate expects" },
	{ { "--rotate", "60001" }, "--rotate expects" },
	{ { "--rotate", "Kernel" }, "or 'kernel', not 'Kernel'" },
	{ { "--rotate", "-1" }, "--rotate expects" },
	{ { "--bogus" }, "unknown option '--bogus'" },
	{ { "-x" }, "unknown option '-x'" },
	{ { "-d" }, "needs a value" },
	{ { "extra" }, "unexpected argument 'extra'" },
	{ { "--raw" }, "--raw goes with --list-metrics" },
	{ { "--sim", "zen5", "--model", "generic" }, "--sim names its own model" },
	{ { "-o", "out.csv" }, "add -b" },
	{ { "-e", "" }, "-e expects an event name" },
	{ { "-p", "12x" }, "-p expects process ids" },
	{ { "-p", "0" }, "-p expects process ids" },
	{ { "-p", "," }, "-p expects process ids" },
	{ { "--cgroup", "" }, "--cgroup expects a cgroup path" },
	{ { "--cgroup", "/a//b" }, "--cgroup expects a cgroup path" },
	{ { "--cgroup", "/a\033]0;x" }, "--cgroup expects a cgroup path" },
	{ { "--task-hz", "0" }, "--task-hz expects" },
	{ { "--task-hz", "100001" }, "--task-hz expects" },
	{ { "--top", "-1" }, "--top expects" },
	{ { "-r", "x.rec", "-p", "1" }, "drop -p and --cgroup" },
	/* One number grammar for every option: no hex, sign or space
	 * (-d 0x10 was 16 s, --rotate 0x10 was 16 ms). */
	{ { "-d", "0x10" }, "-d expects a delay" },
	{ { "-d", " 1" }, "-d expects a delay" },
	{ { "-d", "+1" }, "-d expects a delay" },
	{ { "-d", "1e" }, "-d expects a delay" },
	{ { "--rotate", "0x10" }, "--rotate expects" },
	{ { "--rotate", "infinity" }, "--rotate expects" },
	{ { "-n", "0x10" }, "-n expects a positive" },
	{ { "-n", " 5" }, "-n expects a positive" },
	{ { "-n", "99999999999999999999" }, "-n expects a positive" },
	{ { "--top", "+3" }, "--top expects" },
	{ { "--task-hz", "0x10" }, "--task-hz expects" },
	{ { "-p", " 7" }, "-p expects process ids" },
	{ { "--listen", "0x50" }, "--listen expects" },
	{ { "--listen", "127.0.0.1:+80" }, "--listen expects" },
	/* Every cgroup path is checked alike: '.' and '..' name nothing. */
	{ { "--cgroup", "../../etc" }, "without '.' or '..' parts, not '../../etc'" },
	{ { "--cgroup", "/a/./b" }, "without '.' or '..' parts" },
	{ { "--cgroup", "/sys/fs/cgroup/.." }, "without '.' or '..' parts" },
	{ { "--web-config", "web.yml" }, "--web-config configures the exporter; add --listen" },
	{ { "--export-pids" }, "--export-pids configures the exporter; add --listen" },
	{ { "--listen", "nosuch.invalid:9465" }, "cannot resolve 'nosuch.invalid'" },
	{ { "--web.listen-address", ":0" }, "--listen expects" },
	{ { "--web.listen-address", ":" }, "--listen expects" },
	{ { "--web.config.file", "web.yml" }, "--web-config configures the exporter; add --listen" },
	{ { "--web.telemetry-path", "/x", "--listen", "9465" }, "pmctop serves its metrics at /metrics only, not '/x'" },
	{ { "--web.telemetry-path", "", "--listen", "9465" }, "at /metrics only" },
	{ { "--fleet", "" }, "--fleet expects a Prometheus URL, HOST:PORT,... or @FILE" },
	{ { "--fleet-select", "{job=\"x\"}" }, "--fleet-select reads a fleet; add --fleet" },
	{ { "--fleet-config", "c.yml" }, "--fleet-config reads a fleet; add --fleet" },
	{ { "--fleet-at", "1700000000" }, "--fleet-at reads a fleet; add --fleet" },
	{ { "--fleet", "h:1", "--fleet-window", "0" }, "--fleet-window expects seconds from 0.001 to 604800, not '0'" },
	{ { "--fleet", "h:1", "--fleet-window", "-3" }, "--fleet-window expects seconds" },
	{ { "--fleet", "h:1", "--fleet-at", "soon" }, "--fleet-at expects seconds since the epoch, not 'soon'" },
	{ { "--fleet", "h:1", "--sim", "zen5" }, "--fleet shows the columns of events/fleet/columns.txt; drop --sim" },
	{ { "--fleet", "h:1", "-g", "topdown" }, "drop --sim, --model, -r, -w, --listen, -C, -g" },
	{ { "--fleet", "h:1", "--listen", "9465" }, "--fleet shows the columns" },
};

/* node_exporter's flag names: --web.listen-address (':PORT' is every
 * address, as node_exporter has it), --web.config.file, and
 * --web.telemetry-path for the one path pmctop serves. */
START_TEST(test_node_exporter_names)
{
	struct options o;
	char *cause = NULL;
	const char *a1[] = { "--web.listen-address=:9100", "--web.config.file", "/etc/pmctop/web.yml",
			     "--web.telemetry-path=/metrics", NULL };
	ck_assert_int_eq(parse(&o, &cause, a1), 0);
	ck_assert_str_eq(o.listen, "0.0.0.0:9100");
	ck_assert_str_eq(o.web_config, "/etc/pmctop/web.yml");
	options_done(&o);
	const char *a2[] = { "--web.listen-address", "127.0.0.1:9465", "--daemon", NULL };
	ck_assert_int_eq(parse(&o, &cause, a2), 0);
	ck_assert_str_eq(o.listen, "127.0.0.1:9465");
	ck_assert(o.daemon);
	options_done(&o);
	const char *a3[] = { "--web.listen-address", "[::1]:9465", NULL };
	ck_assert_int_eq(parse(&o, &cause, a3), 0);
	ck_assert_str_eq(o.listen, "[::1]:9465");
	options_done(&o);
}
END_TEST

/* -p keeps each pid once; --cgroup takes the path /proc/PID/cgroup
 * writes, or one under the cgroup file system. */
START_TEST(test_task_selection)
{
	struct options o;
	char *cause = NULL;
	const char *a1[] = { "-p", "42,7,42", "--cgroup", "/sys/fs/cgroup/unified/system.slice/x.service/", "--top", "0",
			     "--task-hz", "250", NULL };
	ck_assert_int_eq(parse(&o, &cause, a1), 0);
	ck_assert_int_eq(o.npids, 2);
	ck_assert_int_eq(o.pids[0], 42);
	ck_assert_int_eq(o.pids[1], 7);
	ck_assert_str_eq(o.cgroup, "/system.slice/x.service");
	ck_assert_int_eq(o.top, 0);
	ck_assert_int_eq(o.task_hz, 250);
	options_done(&o);
	const char *a2[] = { "--cgroup", "user.slice", NULL };
	ck_assert_int_eq(parse(&o, &cause, a2), 0);
	ck_assert_str_eq(o.cgroup, "/user.slice");
	ck_assert_int_eq(o.top, CLI_DEFAULT_TOP);
	options_done(&o);
}
END_TEST

START_TEST(test_bad_lines)
{
	struct options o;
	char *cause;
	ck_assert_int_eq(parse(&o, &cause, bad_lines[_i].args), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, bad_lines[_i].reason), "case %d: got '%s', want '%s'", _i, cause,
		      bad_lines[_i].reason);
	free(cause);
	options_done(&o);
}
END_TEST

/* --rotate takes 1-60000 ms, or 'kernel' for the kernel's multiplexing. */
START_TEST(test_rotate)
{
	static const struct { const char *arg; double ms; } cases[] = {
		{ "1", 1 }, { "50", 50 }, { "2.5", 2.5 }, { "60000", 60000 },
		{ "kernel", SAMPLER_ROTATE_KERNEL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct options o;
		char *cause;
		const char *args[] = { "--rotate", cases[i].arg, NULL };
		ck_assert_int_eq(parse(&o, &cause, args), 0);
		ck_assert_msg(o.rotate_ms == cases[i].ms, "%s: %g", cases[i].arg, o.rotate_ms);
		options_done(&o);
	}
	ck_assert(SAMPLER_ROTATE_KERNEL < 0);
	/* The help says so. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cli_usage(f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "--rotate MS|kernel"));
	free(text);
}
END_TEST

START_TEST(test_seconds)
{
	double v;
	ck_assert_int_eq(cli_parse_seconds("2.5", &v), 0);
	ck_assert(fabs(v - 2.5) < 1e-12);
	ck_assert_int_eq(cli_parse_seconds("", &v), -1);
	ck_assert_int_eq(cli_parse_seconds("1s", &v), -1);
	ck_assert_int_eq(cli_parse_seconds("inf", &v), -1);
	/* Decimal, with a fraction and an exponent, and nothing else. */
	ck_assert_int_eq(cli_parse_seconds("1e1", &v), 0);
	ck_assert(v == 10);
	ck_assert_int_eq(cli_parse_seconds(".5", &v), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(cli_parse_seconds("0x10", &v), -1);
	ck_assert_int_eq(cli_parse_seconds("1.", &v), 0);
	ck_assert_int_eq(cli_parse_seconds(".", &v), -1);
	ck_assert_int_eq(cli_parse_seconds("1e+", &v), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_batch_options);
	tcase_add_test(tc, test_list_events_pattern);
	tcase_add_test(tc, test_repeated_event);
	tcase_add_loop_test(tc, test_bad_lines, 0, (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
	tcase_add_test(tc, test_rotate);
	tcase_add_test(tc, test_task_selection);
	tcase_add_test(tc, test_seconds);
	tcase_add_test(tc, test_node_exporter_names);
	suite_add_tcase(s, tc);
	return check_run(s);
}
