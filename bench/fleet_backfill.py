#!/usr/bin/env python3
# fleet_backfill.py: the python half of bench/fleet_backfill.sh (the
# 1,000-host fleet benchmark; docs/performance.md, "The 1,000-host
# benchmark"). Three jobs, one a subcommand:
#
#   synth OUT --hosts N --minutes M --step S --now T --end T2 --seed K MODEL=A,B ...
#       Writes a fleet's history in OpenMetrics text, for
#       `promtool tsdb create-blocks-from openmetrics`. A and B are two
#       scrapes of one `pmctop --sim MODEL --daemon --listen` exporter, a
#       few seconds apart: every series a host writes is one the exporter
#       wrote, with the labels it wrote, and each counter's rate is the one
#       the two scrapes show, varied per host and per step (seeded), so
#       counters stay monotonic and the ratios the fleet computes stay near
#       what the model measures. Each host adds instance, job, zone, rack
#       and model labels. A few hosts stop early (an "age" to show).
#   queries URL --time T [--repeat R] [--query-file F]
#       Times each of the fleet's PromQL queries through /api/v1/query and
#       prints how many series each returned (the server's own cost, for
#       context beside the client's).
#   rusage -- CMD ...
#       Runs CMD and prints its user+sys CPU seconds and peak RSS (KiB) as
#       "cpu_s RSS_KIB" on stderr's last line; CMD's stdout is discarded.
import argparse
import json
import math
import os
import random
import re
import sys
import time
import urllib.parse
import urllib.request

LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')

# The per-event raw counts and their errors are half of a host's series and
# read by no fleet column; --families all keeps them.
BULK_FAMILIES = {"pmctop_event", "pmctop_event_relative_error_ratio",
                 "pmctop_relative_error_ratio"}
# Counters that tick with time alone, not with the host's load.
CLOCK_COUNTERS = {"pmctop_intervals_total", "pmctop_scrapes_total"}


def parse_scrape(path):
    """One OpenMetrics scrape: families in order, each with its metadata
    lines and its samples as (name, [(label, value)], float)."""
    fams, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line == "# EOF":
                continue
            if line.startswith("# "):
                kind, name = line.split(" ", 3)[1:3]
                if cur is None or cur["name"] != name:
                    cur = {"name": name, "meta": [], "type": "unknown", "samples": []}
                    fams.append(cur)
                cur["meta"].append(line)
                if kind == "TYPE":
                    cur["type"] = line.split(" ", 3)[3]
                continue
            if "{" in line:
                name, rest = line.split("{", 1)
                lbl, val = rest.rsplit("}", 1)
                labels = LABEL_RE.findall(lbl)
            else:
                name, val = line.split(" ", 1)
                labels = []
            cur["samples"].append((name, labels, float(val.split()[0])))
    return fams


def sample_key(name, labels):
    return name + "{" + ",".join('%s="%s"' % l for l in labels) + "}"


def load_model(spec, families):
    """MODEL=A,B: the two scrapes of one exporter, as a template: each
    family's metadata and, per series, its kind, first value and rate."""
    label, files = spec.split("=", 1)
    a, b = (parse_scrape(p) for p in files.split(","))

    def stamp(fams):
        for fam in fams:
            if fam["name"] == "pmctop_last_interval_timestamp_seconds":
                return fam["samples"][0][2]
        raise SystemExit("fleet_backfill.py: %s has no pmctop_last_interval_timestamp_seconds" % files)
    dt = stamp(b) - stamp(a)
    if dt <= 0:
        raise SystemExit("fleet_backfill.py: the scrapes of %s are of the same interval" % label)
    first = {sample_key(n, l): v for fam in a for n, l, v in fam["samples"]}
    model_name = label
    tmpl = []
    for fam in b:
        if families == "fleet" and fam["name"] in BULK_FAMILIES:
            continue
        series = []
        for n, l, v in fam["samples"]:
            if n == "pmctop_info":
                model_name = dict(l).get("model", label)
            rate = None
            if fam["type"] == "counter" and n.endswith("_total"):
                v0 = first.get(sample_key(n, l), v)
                rate = max(0.0, (v - v0) / dt)
            series.append((n, l, v, rate))
        if series or fam["type"] == "counter":
            tmpl.append((fam["name"], fam["type"], fam["meta"], series))
    return model_name, tmpl


def synth(args):
    rng = random.Random(args.seed)
    models = [load_model(s, args.families) for s in args.model]
    step, end = args.step, int(args.end)
    npts = int((args.minutes * 60 + end - args.now) // step) + 1
    start = end - (npts - 1) * step
    ts = [str(start + k * step) for k in range(npts)]
    zones = ["zone-%s" % z for z in "abcd"]
    nz = 4
    hosts = []
    # Per host: a model, a place, a mean load and its daily-ish swing,
    # NOISE independent noise series (each series draws one, so that ratios
    # of two counters wander too), where its data stops, and how long
    # pmctop has run there (the counters' start values).
    NOISE = 4
    for h in range(args.hosts):
        mi = rng.randrange(len(models))
        zone = zones[h % nz]
        rack = "rack-%02d" % (h // nz % 25)
        inst = "host%04d.%s:9465" % (h, zone)
        base = rng.uniform(0.15, 1.2)
        swing = rng.uniform(0.0, 0.4)
        phase = rng.uniform(0, 2 * math.pi)
        period = rng.uniform(600, 3600)
        load = [max(0.02, base * (1 + swing * math.sin(phase + 2 * math.pi * k * step / period)))
                for k in range(npts)]
        noise = [[max(0.0, 1 + 0.08 * rng.gauss(0, 1)) for _ in range(npts)] for _ in range(NOISE)]
        # 1 host in 200 stopped 20 minutes before now, 1 in 200 two
        # minutes before: the fleet's age column has something to say.
        r = rng.random()
        stop = end if r >= 0.01 else args.now - (120 if r < 0.005 else 1200)
        n = max(2, min(npts, int((stop - start) // step) + 1))
        uptime = rng.uniform(3600, 30 * 86400)
        hosts.append((mi, inst, zone, rack, load, noise, n, uptime, random.Random(rng.random())))
    # Families in the order of their first appearance in any model, each
    # with the help of the first model that has it.
    order, meta = [], {}
    for _, tmpl in models:
        for name, typ, m, _ in tmpl:
            if name not in meta:
                order.append(name)
                meta[name] = m
    by_model = [{name: (typ, series) for name, typ, _, series in tmpl} for _, tmpl in models]
    nsamples = nseries = 0
    with open(args.out, "w") as out:
        w = out.write
        for fname in order:
            w("\n".join(meta[fname]) + "\n")
            for mi, inst, zone, rack, load, noise, n, uptime, hr in hosts:
                if fname not in by_model[mi]:
                    continue
                typ, series = by_model[mi][fname]
                mname = models[mi][0]
                own = [("instance", inst), ("job", "pmctop"), ("zone", zone), ("rack", rack)]
                for si, (sname, labels, v, rate) in enumerate(series):
                    lbl = own + ([("model", mname)] if not any(k == "model" for k, _ in labels) else []) + labels
                    prefix = sname + "{" + ",".join('%s="%s"' % kv for kv in lbl) + "} "
                    nz_ = noise[(si + len(sname)) % NOISE]
                    if rate is not None:
                        # A counter: its value after `uptime` seconds at the
                        # scrape's rate, then per step the rate scaled by the
                        # host's load and noise (>= 0: monotonic).
                        f = hr.uniform(0.7, 1.3)
                        if sname in CLOCK_COUNTERS:
                            incs = [rate * step] * n
                        else:
                            incs = [rate * f * step * load[k] * nz_[k] for k in range(n)]
                        acc = rate * f * uptime
                        vals = []
                        for d in incs:
                            acc += d
                            vals.append(acc)
                        fmt = "%.17g"
                    elif sname == "pmctop_last_interval_timestamp_seconds":
                        vals = [start + k * step - hr.uniform(0, 0.5) for k in range(n)]
                        fmt = "%.13g"
                    elif sname.startswith("pmctop_metric_") or sname.startswith("pmctop_task_"):
                        # A gauge of the last interval: near the model's, with
                        # the host's load for util, its noise for the rest.
                        f = hr.uniform(0.8, 1.2)
                        if sname == "pmctop_metric_util_ratio":
                            vals = [min(1.0, v * f * load[k] * nz_[k]) for k in range(n)]
                        else:
                            vals = [v * f * nz_[k] for k in range(n)]
                        if sname.endswith("_ratio"):
                            vals = [min(1.0, x) for x in vals]
                        fmt = "%.10g"
                    else:
                        # Info, settings, coverage and errors: as scraped.
                        vals = [v] * n
                        fmt = "%.10g"
                    w("".join(prefix + (fmt % vals[k]) + " " + ts[k] + "\n" for k in range(n)))
                    nsamples += n
                    nseries += 1
        w("# EOF\n")
    print("%d hosts, %d series, %d samples, %d points from %d to %d (step %d s)"
          % (args.hosts, nseries, nsamples, npts, start, end, step), file=sys.stderr)


def queries(args):
    qs = [q.strip() for q in open(args.query_file) if q.strip() and not q.startswith("#")]
    total = 0.0
    for q in qs:
        best = None
        for _ in range(args.repeat):
            url = args.url + "/api/v1/query?" + urllib.parse.urlencode({"query": q, "time": args.time})
            t0 = time.monotonic()
            with urllib.request.urlopen(url, timeout=60) as r:
                body = r.read()
            dt = time.monotonic() - t0
            best = dt if best is None else min(best, dt)
        res = json.loads(body)
        if res.get("status") != "success":
            raise SystemExit("fleet_backfill.py: %s: %s" % (q, res.get("error")))
        n = len(res["data"]["result"])
        total += best
        print("prom_query_ms %7.1f  %4d series  %s" % (best * 1000, n, q))
    print("prom_queries_ms %.1f (all %d queries, the best of %d each)" % (total * 1000, len(qs), args.repeat))


def rusage(args):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.execvp(args.cmd[0], args.cmd)
    _, status, ru = os.wait4(pid, 0)
    print("%.4f %d" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss), file=sys.stderr)
    sys.exit(os.waitstatus_to_exitcode(status))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd_name", required=True)
    s = sub.add_parser("synth")
    s.add_argument("out")
    s.add_argument("model", nargs="+", help="MODEL=SCRAPE_A,SCRAPE_B")
    s.add_argument("--hosts", type=int, default=1000)
    s.add_argument("--minutes", type=float, default=30)
    s.add_argument("--step", type=int, default=15)
    s.add_argument("--end", type=float, default=time.time(), help="the last timestamp")
    s.add_argument("--now", type=float, default=time.time(),
                   help="the time the stopped hosts stop before (the data may run past it)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--families", choices=("fleet", "all"), default="fleet")
    s.set_defaults(fn=synth)
    q = sub.add_parser("queries")
    q.add_argument("url")
    q.add_argument("--time", required=True)
    q.add_argument("--repeat", type=int, default=3)
    q.add_argument("--query-file", required=True)
    q.set_defaults(fn=queries)
    r = sub.add_parser("rusage")
    r.add_argument("cmd", nargs=argparse.REMAINDER)
    r.set_defaults(fn=rusage)
    args = ap.parse_args()
    if args.cmd_name == "rusage" and args.cmd and args.cmd[0] == "--":
        args.cmd = args.cmd[1:]
    args.fn(args)


if __name__ == "__main__":
    main()
