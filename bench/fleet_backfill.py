#!/usr/bin/env python3
# fleet_backfill.py: the python half of bench/fleet_backfill.sh (the
# 1,000-host fleet benchmark; docs/performance.md, "The 1,000-host
# benchmark"). One job a subcommand:
#
#   synth OUT MODEL=A,B ... [--hosts N] [--minutes M] [--step S] [--now T]
#         [--end T2] [--seed K] [--families fleet|all]
#       Writes a fleet's history in OpenMetrics text, for
#       `promtool tsdb create-blocks-from openmetrics`: M minutes before T
#       up to T2. A and B are two scrapes of one `pmctop --sim MODEL
#       --daemon --listen` exporter, a few seconds apart: every series a
#       host writes is one the exporter wrote, with the labels it wrote,
#       and each counter's rate is the one the two scrapes show, varied
#       per host and per step (seeded), so counters stay monotonic and the
#       ratios the fleet computes stay near what the model measures. Each
#       host adds instance, job, zone, rack and model labels, and has `up`
#       as Prometheus writes it. A few hosts stop early (up 0 since).
#   queries URL --time T --query-file F [--repeat R]
#       Times each query of F (one a line) through /api/v1/query, one at a
#       time, with the series and bytes of its answer.
#   querylog LOG [OUT]
#       What Prometheus' query log says the queries cost the server, and
#       the wall time of each refresh's queries; OUT gets the queries.
#   dashcpu --pid P --log LOG [-n N]
#       The dashboard's CPU per refresh over N refreshes, and their period.
#   frames --sock S --target T --pid P [-n N] KEY...
#       The paused dashboard in tmux: key-to-screen latency and the
#       drawing thread's CPU per key.
#   rusage --out FILE -- CMD ...
#       Runs CMD (stdout discarded) and writes "CPU_SECONDS MAXRSS_KIB"
#       (user + system, from wait4) to FILE.
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

# The per-event raw counts and their errors are over a third of a host's
# series and read by no fleet query; --families all keeps them.
BULK_FAMILIES = {"pmctop_event", "pmctop_event_relative_error_ratio"}
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
    # The share of the CPUs busy in the scrapes: a host's load may scale it
    # up to 98 % at most (utilisation over 100 % would be nonsense).
    busy = sum(r for _, t, _, ser in tmpl for n, _, _, r in ser if n == "pmctop_busy_seconds_total" and r)
    cpus = sum(v for _, t, _, ser in tmpl for n, _, v, _ in ser if n == "pmctop_online_cpus")
    if not cpus:   # an exporter without pmctop_online_cpus: its util gauges
        u = [v for _, t, _, ser in tmpl for n, _, v, _ in ser if n == "pmctop_metric_util_ratio"]
        share = sum(u) / len(u) if u else 0.5
    else:
        share = busy / cpus
    return model_name, tmpl, 0.98 / max(share, 0.01)


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
    # Per host: a model, a place, a mean load and its swing (10 to 60 min),
    # NOISE independent noise series (each series draws one, so that ratios
    # of two counters wander too), where its data stops, and how long
    # pmctop has run there (the counters' start values).
    NOISE = 4
    for h in range(args.hosts):
        mi = rng.randrange(len(models))
        cap = models[mi][2]
        zone = zones[h % nz]
        rack = "rack-%02d" % (h // nz % 25)
        inst = "host%04d.%s:9465" % (h, zone)
        base = rng.uniform(0.15, 1.2)
        swing = rng.uniform(0.0, 0.4)
        phase = rng.uniform(0, 2 * math.pi)
        period = rng.uniform(600, 3600)
        load = [min(cap, max(0.02, base * (1 + swing * math.sin(phase + 2 * math.pi * k * step / period))))
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
    for _, tmpl, _ in models:
        for name, typ, m, _ in tmpl:
            if name not in meta:
                order.append(name)
                meta[name] = m
    by_model = [{name: (typ, series) for name, typ, _, series in tmpl} for _, tmpl, _ in models]
    nsamples = nseries = 0
    with open(args.out, "w") as out:
        w = out.write
        # up, as Prometheus writes it for each target it scrapes (with the
        # target's labels): 1 while the host answers, 0 once it stops.
        w("# TYPE up gauge\n")
        for mi, inst, zone, rack, load, noise, n, uptime, hr in hosts:
            prefix = 'up{instance="%s",job="pmctop",zone="%s",rack="%s",model="%s"} ' % (
                inst, zone, rack, models[mi][0])
            w("".join(prefix + ("1" if k < n else "0") + " " + ts[k] + "\n" for k in range(npts)))
            nsamples += npts
            nseries += 1
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
                        # +-10 % per series: hosts' IPC and clock differ, within reason.
                        f = hr.uniform(0.9, 1.1)
                        if sname in CLOCK_COUNTERS:
                            incs = [rate * step] * n
                        elif sname == "pmctop_busy_seconds_total":
                            # No noise or factor: the load alone, so that
                            # the CPUs stay under 100 % busy.
                            f = 1.0
                            incs = [rate * step * load[k] for k in range(n)]
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
        print("prom_query_ms %7.1f  %5d series %7.0f KiB  %s" % (best * 1000, n, len(body) / 1024, q))
    print("prom_queries_ms %.1f (all %d queries, the best of %d each)" % (total * 1000, len(qs), args.repeat))


def log_time(stamp):
    """The query log's RFC 3339 UTC time, in seconds since the epoch."""
    import calendar
    day, frac = stamp.rstrip("Z"), "0"
    if "." in day:
        day, frac = day.split(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)


def querylog(args):
    """Prometheus' query log: per distinct query, how often it came and
    the median of the server's execTotalTime (under the client's
    concurrency: its queries of a refresh arrive together), and the
    server's wall time per refresh, from the first query's arrival to the
    last one's end (an arrival 0.3 s after the previous one starts another
    refresh);
    writes the queries, one a line, to OUT (for `queries`)."""
    seen, spans = {}, []
    with open(args.log) as f:
        for line in f:
            try:
                e = json.loads(line)
                q = e["params"]["query"]
                t = e["stats"]["timings"]["execTotalTime"]
                end = log_time(e["ts"])
            except (ValueError, KeyError):
                continue
            seen.setdefault(q, []).append(t)
            spans.append((end - t, end))
    if not seen:
        raise SystemExit("fleet_backfill.py: %s logs no query" % args.log)
    for q, ts in seen.items():
        ts.sort()
        print("prom_exec_ms %7.1f  %3d times  %s" % (ts[len(ts) // 2] * 1000, len(ts), q))
    if args.sequential:
        return   # queries sent one at a time: no refresh to time
    spans.sort()
    walls, first, prev, last, n = [], spans[0][0], spans[0][0], 0.0, 0
    for a, b in spans + [(float("inf"), 0)]:
        if a - prev > 0.3:
            walls.append((last - first, n))
            first, last, n = a, 0.0, 0
        prev, last = a, max(last, b)
        n += 1
    walls.sort()
    print("prom_refresh_wall_ms %.1f median, %.1f max (%d refreshes of %d queries at once; the server's time, not the client's)"
          % (walls[len(walls) // 2][0] * 1000, walls[-1][0] * 1000, len(walls), walls[len(walls) // 2][1]))
    if args.out:
        with open(args.out, "w") as f:
            f.write("".join(q.replace("\n", " ") + "\n" for q in seen))


def dashcpu(args):
    """The running dashboard's CPU per refresh: all its threads' CPU from
    the start of one refresh to the start of the N-th after it. A refresh
    starts when its queries arrive at Prometheus (the query log: arrival
    = end - execTotalTime; an arrival 0.3 s after the previous one is a
    new refresh), so a refresh that takes longer than -d counts once."""
    def cpu():
        total = 0
        for tid in os.listdir("/proc/%d/task" % args.pid):
            try:
                total += thread_cpu_s(args.pid, int(tid))
            except OSError:
                pass   # a thread that ended meanwhile
        return total
    f = open(args.log)
    f.seek(0, 2)
    prev, starts, c0, buf = None, [], None, ""
    deadline = time.monotonic() + 60 + 5 * args.n
    while len(starts) <= args.n:
        if time.monotonic() > deadline:
            raise SystemExit("fleet_backfill.py: the dashboard made %d refreshes" % len(starts))
        chunk = f.read()
        if not chunk:
            time.sleep(0.002)
            continue
        buf += chunk
        *lines, buf = buf.split("\n")
        for line in lines:
            try:
                e = json.loads(line)
                a = log_time(e["ts"]) - e["stats"]["timings"]["execTotalTime"]
            except (ValueError, KeyError):
                continue
            if prev is None or a - prev > 0.3:
                starts.append(a)
                if c0 is None:
                    c0 = cpu()
            prev = max(prev or a, a)
    c1 = cpu()
    print("%.2f %.3f" % ((c1 - c0) / args.n * 1000, (starts[-1] - starts[0]) / args.n))


def rusage(args):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.execvp(args.cmd[0], args.cmd)
    _, status, ru = os.wait4(pid, 0)
    with open(args.out, "w") as f:
        f.write("%.4f %d\n" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
    sys.exit(os.waitstatus_to_exitcode(status))


def thread_cpu_s(pid, tid):
    """Seconds thread tid of pid has run (schedstat: nanoseconds, where
    /proc/PID/stat counts clock ticks of 10 ms)."""
    with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
        return int(f.read().split()[0]) / 1e9


def proc_hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def frames(args):
    """The dashboard in tmux, paused (so that only keys change the
    screen): KEY sent N times, each time waiting for the screen to change.
    Prints the key-to-screen latency's median and maximum (the frame, its
    input and tmux's share), the CPU per key of pmctop's main thread, the
    one that draws (the frame's own cost), and pmctop's peak RSS (KiB)."""
    import subprocess
    tm = ["tmux", "-L", args.sock]

    def cap():
        return subprocess.run(tm + ["capture-pane", "-p", "-e", "-t", args.target],
                              capture_output=True, text=True).stdout
    # Paused, but a refresh under way when Space came may still run: wait
    # until the drawing thread is idle (under 2 ms in half a second).
    t_end = time.monotonic() + 10
    while time.monotonic() < t_end:
        c = thread_cpu_s(args.pid, args.pid)
        time.sleep(0.5)
        if thread_cpu_s(args.pid, args.pid) - c < 0.002:
            break
    lat = []
    cpu0 = thread_cpu_s(args.pid, args.pid)
    for i in range(args.n):
        before = cap()
        t0 = time.monotonic()
        subprocess.run(tm + ["send-keys", "-t", args.target, args.key[i % len(args.key)]])
        while cap() == before:
            if time.monotonic() - t0 > 5:
                raise SystemExit("fleet_backfill.py: the screen did not change after %s" % args.key[i % len(args.key)])
            time.sleep(0.001)
        lat.append(time.monotonic() - t0)
        time.sleep(0.05)
    cpu = thread_cpu_s(args.pid, args.pid) - cpu0
    lat.sort()
    print("%.2f %.2f %.2f %d" % (lat[len(lat) // 2] * 1000, lat[-1] * 1000, cpu / args.n * 1000,
                                 proc_hwm_kib(args.pid)))


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
    ql = sub.add_parser("querylog")
    ql.add_argument("log")
    ql.add_argument("out", nargs="?")
    ql.add_argument("--sequential", action="store_true",
                    help="the queries came one at a time (`queries`), not as a client's refreshes")
    ql.set_defaults(fn=querylog)
    dc = sub.add_parser("dashcpu")
    dc.add_argument("--pid", type=int, required=True)
    dc.add_argument("--log", required=True)
    dc.add_argument("-n", type=int, default=10)
    dc.set_defaults(fn=dashcpu)
    fr = sub.add_parser("frames")
    fr.add_argument("--sock", required=True)
    fr.add_argument("--target", required=True)
    fr.add_argument("--pid", type=int, required=True)
    fr.add_argument("-n", type=int, default=20)
    fr.add_argument("key", nargs="+")
    fr.set_defaults(fn=frames)
    r = sub.add_parser("rusage")
    r.add_argument("--out", required=True)
    r.add_argument("cmd", nargs=argparse.REMAINDER)
    r.set_defaults(fn=rusage)
    args = ap.parse_args()
    if args.cmd_name == "rusage" and args.cmd and args.cmd[0] == "--":
        args.cmd = args.cmd[1:]
    args.fn(args)


if __name__ == "__main__":
    main()
