#!/usr/bin/env python3
# e2e_export_prom.py PROMETHEUS_URL RUN_JSON: queries a
# Prometheus that has scraped `pmctop -b --format json -o RUN_JSON --listen`
# (run by e2e_export.sh) through its HTTP API, and checks that
#  - per CCX, IPC from rate() of the counters agrees within 2 % with the same
#    intervals of pmctop's own JSON (sum of instructions / sum of cycles);
#  - per socket, the package energy counter's rate() in joules (over the
#    rate of intervals: joules per interval) agrees within 1 % with the
#    package watts of the same intervals of the JSON;
#  - the L3 hit-rate gauge has one series per CCX, between 0 and 1.
# The dashboard and the rules are run on every model by e2e_export_fleet.sh.
import json
import sys
import time
import urllib.parse
import urllib.request

prom, run_json = sys.argv[1:3]
WINDOW = "5s"
failures = []


def query(expr, at):
    url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": "%.3f" % at})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError("%s: %s" % (expr, body))
    return body["data"]["result"]


# Prometheus scrapes its first time a few seconds after it is ready: wait
# (up to 20 s) until the window holds 4 scrapes. The intervals inside it are
# pmctop_intervals_total at its first and last scrape, which rate() reads.
for _ in range(40):
    now = time.time()
    iv = query("pmctop_intervals_total[%s]" % WINDOW, now)
    if iv and len(iv[0]["values"]) >= 4:
        break
    time.sleep(0.5)
if not iv or len(iv[0]["values"]) < 2:
    print("not enough scrapes in the window:", iv)
    sys.exit(1)
n_first, n_last = int(float(iv[0]["values"][0][1])), int(float(iv[0]["values"][-1][1]))
# The portable series (pmctop_instructions_total is ex_ret_instr on Zen 5).
ipc = query('sum by (ccx) (rate(pmctop_instructions_total[%s])) / '
            'sum by (ccx) (rate(pmctop_cycles_total[%s]))' % (WINDOW, WINDOW), now)
lines = [json.loads(l) for l in open(run_json) if l.strip()]
if len(lines) < n_last:
    failures.append("JSON has %d intervals, Prometheus saw %d" % (len(lines), n_last))
else:
    # Intervals n_first+1 .. n_last are the lines n_first .. n_last-1.
    window = lines[n_first:n_last]
    ccxs = sorted({c["ccx"] for l in window for c in l["ccxs"]})
    if len(ipc) != len(ccxs) or not ccxs:
        failures.append("IPC series %d, CCXs in JSON %d" % (len(ipc), len(ccxs)))
    for s in ipc:
        c = int(s["metric"]["ccx"])
        got = float(s["value"][1])
        ins = sum(x["metrics"]["ex_ret_instr_per_s"] for l in window for x in l["ccxs"] if x["ccx"] == c)
        cyc = sum(x["metrics"]["ls_not_halted_cyc_per_s"] for l in window for x in l["ccxs"] if x["ccx"] == c)
        want = ins / cyc
        print("CCX %d: IPC from rate() %.4f, from JSON %.4f (intervals %d-%d)" % (c, got, want, n_first + 1, n_last))
        if abs(got - want) > 0.02 * want:
            failures.append("CCX %d: IPC %.4f from Prometheus, %.4f from JSON" % (c, got, want))

# Energy: joules per interval from rate() of the joules counter (the rate
# of intervals cancels the scrapes' timing, as the IPC ratio does).
jpi = query('rate(pmctop_package_joules_total[%s]) / on (instance, job) group_left '
            'rate(pmctop_intervals_total[%s])' % (WINDOW, WINDOW), now)
if len(lines) >= n_last:
    window = lines[n_first:n_last]
    socks = sorted({x["socket"] for l in window for x in l["sockets"]})
    if len(jpi) != len(socks) or not socks:
        failures.append("joules series %d, sockets in JSON %d" % (len(jpi), len(socks)))
    for s in jpi:
        k = int(s["metric"]["socket"])
        got = float(s["value"][1])
        want = sum(x["metrics"]["pkg_watts"] * l["interval_s"] for l in window for x in l["sockets"]
                   if x["socket"] == k) / len(window)
        print("socket %d: %.3f J an interval from rate(pmctop_package_joules_total), %.3f from JSON's pkg_watts"
              % (k, got, want))
        if abs(got - want) > 0.01 * want:
            failures.append("socket %d: %.3f J from Prometheus, %.3f from JSON" % (k, got, want))

# The info family (an OpenMetrics "info", which Prometheus asks for first)
# and the self-metrics arrive as Grafana's instance variable expects them.
info = query('pmctop_info{model="amd-zen5",simulated="true"}', now)
if len(info) != 1 or "instance" not in info[0]["metric"]:
    failures.append("pmctop_info: %s" % info)
for name in ("pmctop_scrapes_total", "pmctop_sampler_cpu_seconds_total", "pmctop_rotation_period_seconds"):
    if not query(name, now):
        failures.append("no " + name)

hit = query("pmctop_metric_l3_hit_rate_ratio", now)
if len(hit) < 2 or any(not 0 <= float(s["value"][1]) <= 1 for s in hit) or \
        sorted(s["metric"]["ccx"] for s in hit) != sorted({s["metric"]["ccx"] for s in hit}):
    failures.append("L3 hit rate per CCX: %s" % hit)
else:
    print("L3 hit rate:", ", ".join("CCX %s %.3f" % (s["metric"]["ccx"], float(s["value"][1])) for s in hit))


for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
