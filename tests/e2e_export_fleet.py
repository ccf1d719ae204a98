#!/usr/bin/env python3
# e2e_export_fleet.py PROMETHEUS_URL DASHBOARD_JSON RULES_YML MODEL=TARGET...:
# queries a Prometheus that scrapes one `pmctop --sim MODEL --daemon` per
# CPU model (run by e2e_export_fleet.sh) and checks, for each model, that
#  - the model exports the portable series it has the events for (the
#    table below, from events/; a missing one is a broken definition);
#  - every PromQL expression of the Grafana dashboard and every recording
#    rule returns data for that host exactly where the model has every
#    portable series the expression reads, and nothing where it has not.
import json
import re
import sys
import time
import urllib.parse
import urllib.request

prom, dashboard, rules = sys.argv[1:4]
targets = dict(a.split("=", 1) for a in sys.argv[4:])
WINDOW = "5s"
failures = []

BASIC = {"instructions", "cycles", "branches", "branch_misses", "l3_accesses", "l3_misses", "busy_seconds"}
TOPDOWN = {"topdown_slots", "topdown_retiring_slots", "topdown_bad_speculation_slots",
           "topdown_frontend_bound_slots", "topdown_backend_bound_slots"}
MEMORY = {"memory_read_bytes", "memory_write_bytes", "memory_bytes"}
# The package energy counter (events/generic/power.def): every model whose
# CPUs have the kernel's power PMU; Westmere's have none.
POWER = {"package_joules"}
EXPECTED = {
    "zen5": BASIC | {"l2_accesses", "l2_misses"} | TOPDOWN | MEMORY | POWER,
    "zen4": BASIC | {"l2_accesses", "l2_misses"} | TOPDOWN | MEMORY | POWER,
    "zen3": BASIC | {"l2_accesses", "l2_misses", "memory_bytes"} | POWER,
    "spr": BASIC | {"ref_cycles", "l2_accesses", "l2_misses"} | TOPDOWN | MEMORY | POWER,
    "westmere": BASIC | {"ref_cycles", "l2_accesses", "l2_misses"},
    "generic": BASIC | {"ref_cycles"} | POWER,
    # Imported from Linux perf's files (events/perf/common-*.def names the
    # series of perf's events): Ice Lake-SP, Granite Rapids (the kernel's
    # topdown events, although its 6.12 files have no topdown metrics),
    # Zen 2 (no topdown, DRAM in the data fabric), Neoverse V1 (no topdown
    # slots in pmctop's series, no uncore memory counters in perf's files).
    "icx": BASIC | {"ref_cycles", "l2_accesses", "l2_misses"} | TOPDOWN | MEMORY | POWER,
    "gnr": BASIC | {"ref_cycles", "l2_accesses", "l2_misses"} | TOPDOWN | MEMORY | POWER,
    "zen2": BASIC | {"l2_accesses", "l2_misses"} | POWER,
    "v1": BASIC | {"l2_accesses", "l2_misses"} | POWER,
}
ALL = set().union(*EXPECTED.values())


def query(expr, at=None):
    q = {"query": expr}
    if at:
        q["time"] = "%.3f" % at
    with urllib.request.urlopen(prom + "/api/v1/query?" + urllib.parse.urlencode(q), timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError("%s: %s" % (expr, body))
    return body["data"]["result"]


def reads(expr):
    """The portable series an expression reads."""
    return {n for n in re.findall(r"pmctop_([a-z0-9_]+?)_total", expr) if n in ALL}


# Wait (up to 30 s) until every target has 4 scrapes in the window.
for _ in range(60):
    n = [len(s["values"]) for s in query("pmctop_intervals_total[%s]" % WINDOW)]
    if len(n) == len(targets) and min(n) >= 4:
        break
    time.sleep(0.5)
else:
    print("not every target was scraped 4 times:", n)
    sys.exit(1)

have = {}
for model, inst in targets.items():
    got = {s["metric"]["__name__"][len("pmctop_"):-len("_total")]
           for s in query('{__name__=~"pmctop_.+_total", instance="%s"}' % inst)}
    have[model] = got & ALL
    if have[model] != EXPECTED[model]:
        failures.append("%s: portable series %s, want %s (missing %s, extra %s)" % (
            model, sorted(have[model]), sorted(EXPECTED[model]), sorted(EXPECTED[model] - have[model]),
            sorted(have[model] - EXPECTED[model])))
    print("%s: %d portable series" % (model, len(have[model])))


def exprs(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "expr" and isinstance(v, str):
                yield v
            else:
                yield from exprs(v)
    elif isinstance(node, list):
        for v in node:
            yield from exprs(v)


panels = list(exprs(json.load(open(dashboard))))
if not panels:
    failures.append("no PromQL in " + dashboard)
for e in panels:
    if re.search(r"event=|ex_ret|ls_not_halted|umc_|perf_metrics", e):
        failures.append("dashboard query names vendor events: " + e)
now = time.time()
answered = {model: [0, 0] for model in targets}
for model, inst in targets.items():
    for e in panels:
        q = e.replace("$__rate_interval", WINDOW).replace('instance=~"$instance"', 'instance="%s"' % inst)
        want = reads(e) <= have[model]
        try:
            got = bool(query(q, now))
        except Exception as ex:
            failures.append("%s: dashboard query failed: %s: %s" % (model, q, ex))
            continue
        answered[model][0] += got
        if got != want:
            failures.append("%s: dashboard query %s data: %s" % (model, "returned" if got else "returned no", q))
print("dashboard: %d expressions on %d models" % (len(panels), len(targets)))

text = open(rules).read()
# Each "- record: NAME" with the text up to the next rule or group: its expr.
records = [(m.group(1), m.group(2)) for m in
           re.finditer(r"^\s*- record:\s*(\S+)\n(.*?)(?=^\s*- (?:record|alert|name):|\Z)", text, re.M | re.S)]
if not records:
    failures.append("no recording rules in " + rules)
if re.search(r"event=", text):
    failures.append("rules name vendor events")
for model, inst in targets.items():
    for rec, expr in records:
        want = reads(expr) <= have[model]
        for _ in range(20):
            got = bool(query('%s{instance="%s"}' % (rec, inst)))
            if got or not want:
                break
            time.sleep(0.5)
        answered[model][1] += got
        if got != want:
            failures.append("%s: recording rule %s %s data" % (model, rec, "returned" if got else "returned no"))
print("recording rules: %d on %d models" % (len(records), len(targets)))
for model in targets:
    print("%s: %d of %d dashboard queries and %d of %d recording rules answered" % (
        model, answered[model][0], len(panels), answered[model][1], len(records)))

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
