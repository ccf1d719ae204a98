/* cli.c: parses pmctop's options (GNU getopt_long style). Every rejected
 * option or value gets a reason that says what was expected, because the
 * user sees only that line and the usage. */
#include "config.h"
#include "cli.h"
#include "export.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* -w's companions, numbered apart from the other long options. */
enum { OPT_RECORD_MAX_SIZE = 1024, OPT_RECORD_KEEP };

enum {
	OPT_FORMAT = 256, OPT_MODEL, OPT_SIM, OPT_ROTATE, OPT_LIST_MODELS,
	OPT_LIST_EVENTS, OPT_LIST_METRICS, OPT_LIST_VIEWS, OPT_RAW, OPT_EVENTS_DIR,
	OPT_SHOW_SCHEDULE, OPT_NO_COLOR, OPT_NO_CONFIG, OPT_LISTEN, OPT_DAEMON, OPT_EXPORT_SCOPE, OPT_USER,
	OPT_TASK_HZ, OPT_TOP, OPT_CGROUP,
	OPT_EXPORT_PIDS, OPT_WEB_CONFIG, OPT_PERF_EVENTS,
};
/* The fleet client's options (fleet.h). */
enum { OPT_FLEET = 768, OPT_FLEET_SELECT, OPT_FLEET_CONFIG, OPT_FLEET_WINDOW, OPT_FLEET_AT, OPT_FLEET_HOST,
	OPT_FLEET_GROUP };
/* node_exporter's flag names (cli_parse accepts them as synonyms). */
enum { OPT_WEB_LISTEN_ADDRESS = 512, OPT_WEB_TELEMETRY_PATH };

static const struct option long_options[] = {
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "cpu", required_argument, NULL, 'C' },
	{ "group", required_argument, NULL, 'g' },
	{ "event", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "write", required_argument, NULL, 'w' },
	{ "record-max-size", required_argument, NULL, OPT_RECORD_MAX_SIZE },
	{ "record-keep", required_argument, NULL, OPT_RECORD_KEEP },
	{ "read", required_argument, NULL, 'r' },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "list-models", no_argument, NULL, OPT_LIST_MODELS },
	{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
	{ "list-metrics", no_argument, NULL, OPT_LIST_METRICS },
	{ "list-views", no_argument, NULL, OPT_LIST_VIEWS },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "events-dir", required_argument, NULL, OPT_EVENTS_DIR },
	{ "perf-events", required_argument, NULL, OPT_PERF_EVENTS },
	{ "show-schedule", no_argument, NULL, OPT_SHOW_SCHEDULE },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "no-colour", no_argument, NULL, OPT_NO_COLOR },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "daemon", no_argument, NULL, OPT_DAEMON },
	{ "no-tui", no_argument, NULL, OPT_DAEMON },
	{ "export-scope", required_argument, NULL, OPT_EXPORT_SCOPE },
	{ "user", required_argument, NULL, OPT_USER },
	{ "export-pids", no_argument, NULL, OPT_EXPORT_PIDS },
	{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },
	{ "web.listen-address", required_argument, NULL, OPT_WEB_LISTEN_ADDRESS },
	{ "web.config.file", required_argument, NULL, OPT_WEB_CONFIG },
	{ "web.telemetry-path", required_argument, NULL, OPT_WEB_TELEMETRY_PATH },
	{ "task-hz", required_argument, NULL, OPT_TASK_HZ },
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "fleet", required_argument, NULL, OPT_FLEET },
	{ "fleet-select", required_argument, NULL, OPT_FLEET_SELECT },
	{ "fleet-host", required_argument, NULL, OPT_FLEET_HOST },
	{ "fleet-group", required_argument, NULL, OPT_FLEET_GROUP },
	{ "fleet-config", required_argument, NULL, OPT_FLEET_CONFIG },
	{ "fleet-window", required_argument, NULL, OPT_FLEET_WINDOW },
	{ "fleet-at", required_argument, NULL, OPT_FLEET_AT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void cli_usage(FILE *out)
{
	fputs("Usage: pmctop [OPTION]...\n"
	      "A top-like dashboard of hardware performance counters.\n"
	      "\n"
	      "  -d, --delay SECS        refresh interval in seconds (default 1)\n"
	      "  -n, --iterations N      stop after N intervals (default: run until quit)\n"
	      "  -b, --batch             print figures instead of the dashboard\n"
	      "      --format FMT        batch output: table, csv or json (default table)\n"
	      "  -o, --output FILE       batch output to FILE instead of standard output\n"
	      "  -w, --write FILE        record every interval to FILE (gzip'd JSON lines;\n"
	      "                          with the dashboard, -b or --daemon); the same\n"
	      "                          run's recording is continued\n"
	      "      --record-max-size SIZE  move FILE aside (FILE.1) before it passes\n"
	      "                          SIZE bytes (suffix k, M or G) and start anew\n"
	      "      --record-keep N     files kept when moving aside (default 1); with\n"
	      "                          it, another run's FILE is moved aside, not refused\n"
	      "  -r, --read FILE         replay a recording in the dashboard, or with -b\n"
	      "                          derive its figures again (any -g, -e, -C)\n"
	      "  -C, --cpu LIST          only these CPUs, e.g. 0-7,16\n"
	      "  -g, --group NAME        view or metric group to show (see --list-views)\n"
	      "  -e, --event NAME        add an event as a column (repeatable)\n"
	      "  -p, --pid PID[,PID...]  only these processes in the tasks view (-g tasks)\n"
	      "      --cgroup PATH       only processes in this cgroup or below it, e.g.\n"
	      "                          /system.slice/nginx.service (implies -g tasks)\n"
	      "      --task-hz N         per-task sampling (-g tasks): samples a second of\n"
	      "                          each event on each CPU (default 1000)\n"
	      "      --top N             -b: rows of processes and of cgroups per interval\n"
	      "                          with -g tasks (default 20; 0: all)\n"
	      "      --model NAME        use this CPU model instead of the detected one\n"
	      "      --sim MODEL[:SxCxNxT]  simulated PMU: sockets x CCX per socket x\n"
	      "                          cores per CCX x threads per core (e.g. zen5:2x12x8x2)\n"
	      "      --rotate MS|kernel  counter group rotation period (default 50), or\n"
	      "                          'kernel': let the kernel multiplex the groups\n"
	      "      --list-models       list the CPU models pmctop knows\n"
	      "      --list-events [PATTERN]  list the model's events (matching PATTERN)\n"
	      "      --list-metrics [--raw]   list metrics; --raw writes events as vendor values\n"
	      "      --list-views        list views and metric groups\n"
	      "      --show-schedule     print how events are packed into counter groups\n"
	      "      --events-dir DIR    read definitions from DIR\n"
	      "      --perf-events DIR   import models from Linux perf's pmu-events/arch DIR\n"
	      "      --no-color          monochrome screen (also when NO_COLOR is set)\n"
	      "      --no-config         ignore the saved settings and your own views (F2 saves them)\n"
	      "      --listen [HOST:]PORT  serve Prometheus/OpenMetrics /metrics (a port\n"
	      "                          alone: 127.0.0.1; HOST a name, an IPv4 address or\n"
	      "                          [IPv6]); with the dashboard, -b or --daemon\n"
	      "      --daemon, --no-tui  no screen and no output: only serve --listen\n"
	      "      --export-scope S    narrowest exported rows: cpu, core, ccx or socket\n"
	      "                          (default ccx)\n"
	      "      --fleet URL|HOST:PORT,...|@FILE\n"
	      "                          show a fleet: a Prometheus server's hosts, or pmctop\n"
	      "                          exporters scraped directly (docs/fleet.md)\n"
	      "      --fleet-select SEL  the fleet's series in Prometheus, e.g. '{job=\"pmctop\"}'\n"
	      "      --fleet-config FILE the client's TLS and basic auth (YAML)\n"
	      "      --fleet-window SECS the rate window of Prometheus queries (default 60)\n"
	      "      --fleet-at TIME     evaluate the queries at TIME (seconds since the epoch)\n"
	      "      --fleet-host NAME   one host's own rows (its CPUs), as Enter shows them\n"
	      "      --fleet-group LABEL the hosts grouped by LABEL (model, zone...), as g shows them\n"
	      "      --web-config FILE   TLS and basic authentication for --listen, in the\n"
	      "                          Prometheus exporters' web config format\n"
	      "      --web.listen-address, --web.config.file, --web.telemetry-path\n"
	      "                          node_exporter's names: --listen (':PORT' is every\n"
	      "                          IPv4 address), --web-config, and /metrics only\n"
	      "      --export-pids       label per-process series with their pid (each\n"
	      "                          process that ever ran makes new series)\n"
	      "      --user NAME         run as NAME once counters, socket and files are\n"
	      "                          open (root gives up all but CAP_PERFMON anyway)\n"
	      "  -h, --help              show this help\n"
	      "  -V, --version           show the version\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime failure, 2 bad usage,\n"
	      "128+N after signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP; --daemon with\n"
	      "--web-config reads that file again on SIGHUP instead).\n", out);
}

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_s = CLI_DEFAULT_INTERVAL_S;
	o->rotate_ms = CLI_DEFAULT_ROTATE_MS;
	o->format = OUT_TABLE;
	o->export_scope = CLI_DEFAULT_EXPORT_SCOPE;
	o->top = CLI_DEFAULT_TOP;
	o->fleet_at = NAN;
}

void options_done(struct options *o)
{
	free(o->cpu_list);
	free(o->pids);
	free(o->cgroup);
	free(o->group);
	for (int i = 0; i < o->nevents; i++)
		free(o->events[i]);
	free(o->events);
	free(o->model);
	free(o->sim);
	free(o->list_pattern);
	free(o->events_dir);
	free(o->perf_events);
	free(o->output_path);
	free(o->record_path);
	free(o->replay_path);
	free(o->listen);
	free(o->user);
	free(o->web_config);
	free(o->fleet);
	free(o->fleet_select);
	free(o->fleet_host);
	free(o->fleet_group);
	free(o->fleet_config);
	memset(o, 0, sizeof(*o));
}

/* Numbers: one grammar for every option (text_is_decimal). */

/* A whole number from lo to hi; -1 if not. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
	if (!text_is_decimal(s, true))
		return -1;
	errno = 0;
	long v = strtol(s, NULL, 10);
	if (errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
	long v;
	if (parse_long(s, lo, hi, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	if (!text_is_decimal(s, false))
		return -1;
	errno = 0;
	double v = strtod(s, NULL);
	if (errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, double *out)
{
	double v;
	if (parse_double(s, &v) < 0 || v <= 0)
		return -1;
	*out = v;
	return 0;
}

/* Whether a path has a part "." or "..": a cgroup path names a cgroup
 * from the hierarchy's root, as /proc/PID/cgroup writes it, never one
 * relative to another (../../etc matched nothing, and said nothing). */
static bool has_dot_segment(const char *p)
{
	while (*p) {
		size_t n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return true;
		p += n;
		p += *p == '/';
	}
	return false;
}

static void replace(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

/* The options whose value needs more than a field and bounds: each
 * stores its value in o, or returns -1 with *cause. */
static int opt_interval(const char *arg, struct options *o, char **cause)
{
	if (cli_parse_seconds(arg, &o->interval_s) < 0 || o->interval_s < 0.01 || o->interval_s > 86400)
		return set_cause(cause, "-d expects a delay in seconds between 0.01 and 86400, not '%s'", arg);
	o->interval_set = true;
	return 0;
}

static int opt_format(const char *arg, struct options *o, char **cause)
{
	int f = output_parse_format(arg);
	if (f < 0)
		return set_cause(cause, "--format expects table, csv or json, not '%s'", arg);
	o->format = (enum output_format)f;
	return 0;
}

static int opt_event(const char *arg, struct options *o, char **cause)
{
	if (!*arg)
		return set_cause(cause, "-e expects an event name (see --list-events)");
	/* A repeated -e adds its column once. */
	for (int i = 0; i < o->nevents; i++)
		if (!strcmp(o->events[i], arg))
			return 0;
	o->events = xrealloc(o->events, sizeof(char *) * (size_t)(o->nevents + 1));
	o->events[o->nevents++] = xstrdup(arg);
	return 0;
}

static int opt_rotate(const char *arg, struct options *o, char **cause)
{
	if (strcmp(arg, "kernel") == 0) {
		o->rotate_ms = SAMPLER_ROTATE_KERNEL;
		return 0;
	}
	if (parse_double(arg, &o->rotate_ms) < 0 || o->rotate_ms < 1 || o->rotate_ms > 60000)
		return set_cause(cause, "--rotate expects milliseconds between 1 and 60000 or 'kernel', not '%s'", arg);
	return 0;
}

/* --record-max-size: bytes, with k, M or G (powers of 1024). Below 64
 * KiB a file could not hold an interval of a large machine. */
static int opt_record_max_size(const char *arg, struct options *o, char **cause)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = *arg >= '0' && *arg <= '9' ? strtoull(arg, &end, 10) : 0;
	int shift = !end ? -1 : !*end ? 0 : !strcmp(end, "k") || !strcmp(end, "K") ? 10 :
		    !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30 : -1;
	if (errno || shift < 0 || v > (1ULL << 50) >> shift || (v << shift) < (64ULL << 10))
		return set_cause(cause, "--record-max-size expects a size from 64k to 1024T, such as 500M, "
				 "not '%s'", arg);
	o->record_max_size = v << shift;
	return 0;
}

static int opt_record_keep(const char *arg, struct options *o, char **cause)
{
	char *end = NULL;
	errno = 0;
	long v = *arg >= '0' && *arg <= '9' ? strtol(arg, &end, 10) : -1;
	if (errno || !end || *end || v < 0 || v > 1000)
		return set_cause(cause, "--record-keep expects a number of files from 0 to 1000, not '%s'", arg);
	o->record_keep = (int)v;
	o->record_keep_set = true;
	return 0;
}

static int opt_listen(const char *arg, struct options *o, char **cause)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (export_parse_listen(arg, &ss, &len, cause) < 0)
		return -1;
	replace(&o->listen, arg);
	return 0;
}

/* --web.listen-address: --listen as node_exporter reads it, where ':PORT'
 * (its default form, ':9100') is every address; pmctop's own --listen
 * takes a port alone as loopback. Every IPv4 address: [::] would fail on
 * a host without IPv6. */
static int opt_web_listen_address(const char *arg, struct options *o, char **cause)
{
	if (arg[0] != ':')
		return opt_listen(arg, o, cause);
	char *all = xasprintf("0.0.0.0%s", arg);
	int rc = opt_listen(all, o, cause);
	free(all);
	return rc;
}

/* --web.telemetry-path: the exporter serves /metrics alone (export_route). */
static int opt_web_telemetry_path(const char *arg, struct options *o, char **cause)
{
	(void)o;
	if (strcmp(arg, "/metrics") != 0)
		return set_cause(cause, "--web.telemetry-path: pmctop serves its metrics at /metrics only, not '%s'", arg);
	return 0;
}

static int opt_export_scope(const char *arg, struct options *o, char **cause)
{
	if ((o->export_scope = export_scope_parse(arg)) < 0)
		return set_cause(cause, "--export-scope expects cpu, core, ccx or socket, not '%s'", arg);
	return 0;
}

/* -p: a list of pids, each once. */
static int opt_pids(const char *arg, struct options *o, char **cause)
{
	char *list = xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(list, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		int pid;
		bool dup = false;
		if (parse_int(w, 1, 4194304, &pid) < 0) {
			rc = set_cause(cause, "-p expects process ids separated by commas, not '%s'", w);
			break;
		}
		for (int i = 0; i < o->npids; i++)
			dup |= o->pids[i] == pid;
		if (dup)
			continue;
		if (o->npids >= CLI_MAX_PIDS) {
			rc = set_cause(cause, "-p names more than %d processes", CLI_MAX_PIDS);
			break;
		}
		o->pids = xrealloc(o->pids, sizeof(int) * (size_t)(o->npids + 1));
		o->pids[o->npids++] = pid;
	}
	if (rc == 0 && o->npids == 0)
		rc = set_cause(cause, "-p expects process ids separated by commas");
	free(list);
	return rc;
}

/* --cgroup: as /proc/PID/cgroup names it, a path from the hierarchy's
 * root; a path under the cgroup file system is taken too. */
static int opt_cgroup(const char *arg, struct options *o, char **cause)
{
	static const char *const mounts[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
	const char *p = arg;
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++) {
		size_t n = strlen(mounts[i]);
		if (!strncmp(p, mounts[i], n) && (p[n] == '/' || !p[n])) {
			p += n;
			break;
		}
	}
	if (!*p || text_bad_at(p) >= 0 || strstr(p, "//") || has_dot_segment(p)) {
		char *clean = text_sanitize(arg);
		set_cause(cause, "--cgroup expects a cgroup path such as /system.slice/nginx.service, "
			  "without '.' or '..' parts, not '%s'", clean);
		free(clean);
		return -1;
	}
	free(o->cgroup);
	o->cgroup = *p == '/' ? xstrdup(p) : xasprintf("/%s", p);
	size_t len = strlen(o->cgroup);
	if (len > 1 && o->cgroup[len - 1] == '/')
		o->cgroup[len - 1] = 0;
	return 0;
}

/* Every option, as a command table: what kind of value it takes, the
 * field of struct options it sets, the bounds of a number, and what the
 * error says it expects (a number's error adds the value given). */
enum opt_kind {
	OPT_K_FLAG,      /* sets a bool */
	OPT_K_STRING,    /* keeps a copy of the value */
	OPT_K_NONEMPTY,  /* the same, refusing "" */
	OPT_K_INT,       /* an int within [min, max] */
	OPT_K_LONG,      /* a long within [min, max] */
	OPT_K_CUSTOM,    /* parse() does it */
};

struct opt_entry {
	int code;                 /* getopt's value for it */
	enum opt_kind kind;
	size_t field;             /* offsetof(struct options, ...) */
	long min, max;
	const char *expects;
	int (*parse)(const char *arg, struct options *o, char **cause);
};

static int opt_fleet_window(const char *arg, struct options *o, char **cause)
{
	if (cli_parse_seconds(arg, &o->fleet_window_s) < 0 || o->fleet_window_s < 0.001 || o->fleet_window_s > 86400 * 7)
		return set_cause(cause, "--fleet-window expects seconds from 0.001 to 604800, not '%s'", arg);
	return 0;
}

static int opt_fleet_at(const char *arg, struct options *o, char **cause)
{
	if (!parse_double_c(arg, &o->fleet_at) || !isfinite(o->fleet_at) || o->fleet_at < 0)
		return set_cause(cause, "--fleet-at expects seconds since the epoch, not '%s'", arg);
	return 0;
}

#define FIELD(f) offsetof(struct options, f)
static const struct opt_entry opt_table[] = {
	{ 'd', OPT_K_CUSTOM, 0, 0, 0, NULL, opt_interval },
	{ 'n', OPT_K_LONG, FIELD(iterations), 1, LONG_MAX, "-n expects a positive number of intervals", NULL },
	{ 'b', OPT_K_FLAG, FIELD(batch), 0, 0, NULL, NULL },
	{ OPT_FORMAT, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_format },
	{ 'C', OPT_K_NONEMPTY, FIELD(cpu_list), 0, 0, "-C expects a CPU list such as 0-3,8", NULL },
	{ 'g', OPT_K_STRING, FIELD(group), 0, 0, NULL, NULL },
	{ 'e', OPT_K_CUSTOM, 0, 0, 0, NULL, opt_event },
	{ 'o', OPT_K_STRING, FIELD(output_path), 0, 0, NULL, NULL },
	{ 'w', OPT_K_STRING, FIELD(record_path), 0, 0, NULL, NULL },
	{ OPT_RECORD_MAX_SIZE, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_record_max_size },
	{ OPT_RECORD_KEEP, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_record_keep },
	{ 'r', OPT_K_STRING, FIELD(replay_path), 0, 0, NULL, NULL },
	{ OPT_MODEL, OPT_K_STRING, FIELD(model), 0, 0, NULL, NULL },
	{ OPT_SIM, OPT_K_STRING, FIELD(sim), 0, 0, NULL, NULL },
	{ OPT_ROTATE, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_rotate },
	{ OPT_LIST_MODELS, OPT_K_FLAG, FIELD(list_models), 0, 0, NULL, NULL },
	{ OPT_LIST_EVENTS, OPT_K_FLAG, FIELD(list_events), 0, 0, NULL, NULL },
	{ OPT_LIST_METRICS, OPT_K_FLAG, FIELD(list_metrics), 0, 0, NULL, NULL },
	{ OPT_LIST_VIEWS, OPT_K_FLAG, FIELD(list_views), 0, 0, NULL, NULL },
	{ OPT_RAW, OPT_K_FLAG, FIELD(raw), 0, 0, NULL, NULL },
	{ OPT_EVENTS_DIR, OPT_K_STRING, FIELD(events_dir), 0, 0, NULL, NULL },
	{ OPT_PERF_EVENTS, OPT_K_STRING, FIELD(perf_events), 0, 0, NULL, NULL },
	{ OPT_SHOW_SCHEDULE, OPT_K_FLAG, FIELD(show_schedule), 0, 0, NULL, NULL },
	{ OPT_NO_COLOR, OPT_K_FLAG, FIELD(no_color), 0, 0, NULL, NULL },
	{ OPT_NO_CONFIG, OPT_K_FLAG, FIELD(no_config), 0, 0, NULL, NULL },
	{ OPT_LISTEN, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_listen },
	{ OPT_DAEMON, OPT_K_FLAG, FIELD(daemon), 0, 0, NULL, NULL },
	{ OPT_EXPORT_PIDS, OPT_K_FLAG, FIELD(export_pids), 0, 0, NULL, NULL },
	{ OPT_WEB_CONFIG, OPT_K_STRING, FIELD(web_config), 0, 0, NULL, NULL },
	{ OPT_WEB_LISTEN_ADDRESS, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_web_listen_address },
	{ OPT_WEB_TELEMETRY_PATH, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_web_telemetry_path },
	{ OPT_USER, OPT_K_NONEMPTY, FIELD(user), 0, 0, "--user expects a user name", NULL },
	{ OPT_EXPORT_SCOPE, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_export_scope },
	{ 'p', OPT_K_CUSTOM, 0, 0, 0, NULL, opt_pids },
	{ OPT_CGROUP, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_cgroup },
	{ OPT_TASK_HZ, OPT_K_INT, FIELD(task_hz), 1, 100000,
	  "--task-hz expects samples a second from 1 to 100000", NULL },
	{ OPT_TOP, OPT_K_INT, FIELD(top), 0, 1000000,
	  "--top expects a number of rows from 0 (all) to 1000000", NULL },
	{ OPT_FLEET, OPT_K_NONEMPTY, FIELD(fleet), 0, 0,
	  "--fleet expects a Prometheus URL, HOST:PORT,... or @FILE", NULL },
	{ OPT_FLEET_SELECT, OPT_K_NONEMPTY, FIELD(fleet_select), 0, 0,
	  "--fleet-select expects a selector such as '{job=\"pmctop\"}'", NULL },
	{ OPT_FLEET_CONFIG, OPT_K_NONEMPTY, FIELD(fleet_config), 0, 0, "--fleet-config expects a file", NULL },
	{ OPT_FLEET_HOST, OPT_K_NONEMPTY, FIELD(fleet_host), 0, 0, "--fleet-host expects a host of the fleet", NULL },
	{ OPT_FLEET_GROUP, OPT_K_NONEMPTY, FIELD(fleet_group), 0, 0,
	  "--fleet-group expects a label of the hosts, such as model or zone", NULL },
	{ OPT_FLEET_WINDOW, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_fleet_window },
	{ OPT_FLEET_AT, OPT_K_CUSTOM, 0, 0, 0, NULL, opt_fleet_at },
	{ 'h', OPT_K_FLAG, FIELD(help), 0, 0, NULL, NULL },
	{ 'V', OPT_K_FLAG, FIELD(version), 0, 0, NULL, NULL },
};
#undef FIELD

/* Handles one option by its entry in opt_table; returns 0 or -1 with
 * *cause. */
static int handle_option(int c, const char *arg, const char *optname, struct options *o, char **cause)
{
	if (c == ':')
		return set_cause(cause, "option '%s' needs a value", optname);
	const struct opt_entry *e = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(opt_table) && !e; i++)
		if (opt_table[i].code == c)
			e = &opt_table[i];
	if (!e)
		return set_cause(cause, "unknown option '%s'", optname);
	void *field = (char *)o + e->field;
	switch (e->kind) {
	case OPT_K_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_K_NONEMPTY:
		if (!*arg)
			return set_cause(cause, "%s", e->expects);
		/* fall through */
	case OPT_K_STRING:
		replace((char **)field, arg);
		return 0;
	case OPT_K_INT:
		if (parse_int(arg, e->min, e->max, (int *)field) < 0)
			return set_cause(cause, "%s, not '%s'", e->expects, arg);
		return 0;
	case OPT_K_LONG:
		if (parse_long(arg, e->min, e->max, (long *)field) < 0)
			return set_cause(cause, "%s, not '%s'", e->expects, arg);
		return 0;
	case OPT_K_CUSTOM:
		return e->parse(arg, o, cause);
	}
	return set_cause(cause, "unknown option '%s'", optname);
}

int cli_parse(int argc, char **argv, struct options *o, char **cause)
{
	/* getopt_long keeps global state: reset it so that tests can parse
	 * several command lines in one process. */
	optind = 0;
	opterr = 0;
	for (;;) {
		int prev = optind ? optind : 1;
		int c = getopt_long(argc, argv, "+:d:n:bC:g:e:o:w:r:p:hV", long_options, NULL);
		if (c == -1)
			break;
		const char *optname = prev < argc ? argv[prev] : "?";
		char shortname[3] = { '-', (char)optopt, 0 };
		if ((c == '?' || c == ':') && optopt)
			optname = shortname;
		if (handle_option(c, optarg, optname, o, cause) < 0)
			return -1;
		/* --list-events takes an optional pattern as the next word. */
		if (c == OPT_LIST_EVENTS && optind < argc && argv[optind][0] != '-') {
			replace(&o->list_pattern, argv[optind]);
			optind++;
		}
	}
	if (optind < argc)
		return set_cause(cause, "unexpected argument '%s'", argv[optind]);
	if (o->raw && !o->list_metrics)
		return set_cause(cause, "--raw goes with --list-metrics");
	if (o->sim && o->model)
		return set_cause(cause, "--sim names its own model; drop --model");
	if (o->output_path && !o->batch)
		return set_cause(cause, "-o writes batch output; add -b");
	if (o->daemon && !o->listen)
		return set_cause(cause, "--daemon only serves metrics; add --listen [ADDR:]PORT");
	if (o->daemon && o->batch)
		return set_cause(cause, "--daemon writes no batch output; drop -b or --daemon");
	if ((o->web_config || o->export_pids) && !o->listen)
		return set_cause(cause, "%s configures the exporter; add --listen [HOST:]PORT",
				 o->web_config ? "--web-config" : "--export-pids");
	if (o->replay_path && (o->sim || o->model))
		return set_cause(cause, "-r replays a recording, which names its own model; drop --sim and --model");
	if ((o->record_max_size || o->record_keep_set) && !o->record_path)
		return set_cause(cause, "%s says how -w writes its file; add -w FILE",
				 o->record_max_size ? "--record-max-size" : "--record-keep");
	if (o->replay_path && (o->record_path || o->listen || o->daemon))
		return set_cause(cause, "-r replays into the dashboard or -b; drop -w, --listen and --daemon");
	if (o->replay_path && (o->npids || o->cgroup))
		return set_cause(cause, "-r: a recording has no per-task figures; drop -p and --cgroup");
	if ((o->fleet_select || o->fleet_config || o->fleet_host || o->fleet_group || o->fleet_window_s > 0 ||
	     !isnan(o->fleet_at)) &&
	    !o->fleet)
		return set_cause(cause, "%s reads a fleet; add --fleet URL or HOST:PORT,...",
				 o->fleet_select ? "--fleet-select" : o->fleet_config ? "--fleet-config"
				 : o->fleet_host ? "--fleet-host" : o->fleet_group ? "--fleet-group"
				 : o->fleet_window_s > 0 ? "--fleet-window" : "--fleet-at");
	if (o->fleet && (o->sim || o->model || o->replay_path || o->record_path || o->listen || o->daemon ||
			 o->cpu_list || o->group || o->nevents || o->npids || o->cgroup || o->show_schedule ||
			 o->list_events || o->list_metrics || o->list_views))
		return set_cause(cause, "--fleet shows the columns of events/fleet/columns.txt; drop --sim, --model, -r, "
				 "-w, --listen, -C, -g, -e, -p, --cgroup, --show-schedule and the listings");
	if (o->replay_path && o->show_schedule)
		return set_cause(cause, "-r: a recording's schedule is in each interval; drop --show-schedule");
	return 0;
}
