#!/usr/bin/env python3
# load_export.py: a bounded load test of pmctop's exporter on loopback (not
# run by make check; docs/exporter.md records its figures). It starts
#   pmctop --sim zen5:2x12x8x2 -b --format json -o RUN --listen 127.0.0.1:PORT
# then, at once, N concurrent scrapes (default 1000) and S slow clients
# (default 50) that send half a request and never finish it, while a probe
# scrapes once every 50 ms as Prometheus would (OpenMetrics, gzip'd; the
# crowd asks for gzip too). The crowd is one curl
# --parallel per 100 scrapes, each from its own loopback address (pmctop
# limits the connections of one address), the probe a thread of this script
# from another. It reports the probe's and
# the crowd's latency percentiles, pmctop's memory before, during and after,
# and whether the sampler kept its schedule (the gaps between the intervals'
# end times in pmctop's own JSON).
#   bench/load_export.py [--pmctop ./pmctop] [-n 1000] [-s 50] [--scope ccx]
import argparse
import gzip
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

from loadlib import cpu_s, free_port, pct

ap = argparse.ArgumentParser()
ap.add_argument("--pmctop", default="./pmctop")
ap.add_argument("-n", type=int, default=1000, help="concurrent scrapes")
ap.add_argument("-s", type=int, default=50, help="slow clients")
ap.add_argument("--scope", default="ccx")
ap.add_argument("--shape", default="2x12x8x2")
ap.add_argument("-d", type=float, default=0.5, help="pmctop's interval")
ap.add_argument("--nice", type=int, default=0,
                help="run the crowd's curl at this niceness (clients are other machines in real life)")
args = ap.parse_args()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        d = dict(l.split(":", 1) for l in f if ":" in l)
    return int(d["VmRSS"].split()[0]), int(d["VmHWM"].split()[0])


def scrape(port, timeout=10):
    t0 = time.monotonic()
    # From an address of its own, as Prometheus is another machine than the
    # crowd's: pmctop limits the connections of one address (128).
    c = socket.create_connection(("127.0.0.1", port), timeout, source_address=("127.0.0.2", 0))
    # What Prometheus asks for: OpenMetrics, gzip'd.
    c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n"
              b"Accept-Encoding: gzip\r\n\r\n")
    parts = []
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        parts.append(b)
    c.close()
    t = time.monotonic() - t0
    head, _, body = b"".join(parts).partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200") or b"pmctop_scrapes_total" not in gzip.decompress(body):
        raise RuntimeError("bad answer: %r" % head[:80])
    return t


def main(port, pid):
    """The crowd is one curl running every transfer in parallel (a Python
    client would be the bottleneck); the probe is a thread of its own."""
    mem = {"before": rss_kb(pid)}
    slow = []
    for _ in range(args.s):
        c = socket.create_connection(("127.0.0.1", port))
        c.sendall(b"GET /metr")
        slow.append(c)
    probe_lat, errors = [], []
    stop = threading.Event()

    def probe():
        while not stop.is_set():
            try:
                probe_lat.append(scrape(port))
            except Exception as e:
                errors.append("probe: %s" % e)
            time.sleep(0.05)

    th = threading.Thread(target=probe)
    th.start()
    t0 = time.monotonic()
    c0 = cpu_s(pid)
    # Each curl runs 100 transfers at once from an address of its own
    # (127.0.0.10 and up), under pmctop's limit of 128 connections per
    # client address: 10 of them for 1,000.
    nproc = (args.n + 99) // 100
    per = [args.n // nproc + (i < args.n % nproc) for i in range(nproc)]
    cus = []
    for k in per:
        cfg = os.path.join(tmp, "curl%d.cfg" % len(cus))
        with open(cfg, "w") as f:
            for _ in range(k):
                f.write('url = "http://127.0.0.1:%d/metrics"\noutput = "/dev/null"\n' % port)
        cus.append(subprocess.Popen(["nice", "-n", str(args.nice), "curl", "-s", "--no-progress-meter",
                                     "--interface", "127.0.0.%d" % (10 + len(cus)), "--compressed",
                                     "--parallel", "--parallel-immediate",
                                     "--parallel-max", str(k), "-w", "%{time_total} %{http_code}\\n", "-K", cfg],
                                    stdout=subprocess.PIPE, text=True))
    peak = rss_kb(pid)
    while any(cu.poll() is None for cu in cus):
        time.sleep(0.02)
        peak = max(peak, rss_kb(pid))
    crowd_s = time.monotonic() - t0
    mem["pmctop CPU seconds during the crowd"] = cpu_s(pid) - c0
    out = "".join(cu.stdout.read() for cu in cus).split("\n")
    crowd_lat = [float(l.split()[0]) for l in out if l.strip() and l.split()[1] == "200"]
    errors += ["crowd: HTTP %s" % l.split()[1] for l in out if l.strip() and l.split()[1] != "200"]
    if len(crowd_lat) != args.n:
        errors.append("crowd: %d of %d answered" % (len(crowd_lat), args.n))
    mem["during (peak RSS)"] = peak
    time.sleep(1)
    stop.set()
    th.join()
    # The slow clients: the server closes them after its idle timeout.
    slow_res = []
    for c in slow:
        c.settimeout(15)
        try:
            slow_res.append("closed by server" if c.recv(100) == b"" else "answered")
        except socket.timeout:
            slow_res.append("still open")
        except OSError:
            slow_res.append("closed by server")
        c.close()
    mem["after"] = rss_kb(pid)
    return crowd_lat, errors, probe_lat, crowd_s, slow_res, mem


port = free_port()
tmp = tempfile.mkdtemp()
run = os.path.join(tmp, "run.json")
env = dict(os.environ)
p = subprocess.Popen([args.pmctop, "--sim", "zen5:" + args.shape, "-b", "--format", "json", "-o", run,
                      "-d", str(args.d), "--listen", "127.0.0.1:%d" % port, "--export-scope", args.scope],
                     stderr=subprocess.PIPE, env=env)
try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    time.sleep(2 * args.d + 0.5)
    crowd_lat, crowd_err, probe_lat, crowd_s, slow_res, mem = main(port, p.pid)
finally:
    p.terminate()
    p.wait(10)
times = [json.loads(l)["time"] for l in open(run) if l.strip()]
gaps = [b - a for a, b in zip(times, times[1:])]
print("pmctop --sim zen5:%s --export-scope %s -d %g; %d CPUs, load average %s"
      % (args.shape, args.scope, args.d, os.cpu_count(), open("/proc/loadavg").read().split()[0]))
print("crowd: %d scrapes in %.2f s, %d failed; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms"
      % (args.n, crowd_s, len(crowd_err), pct(crowd_lat, 50), pct(crowd_lat, 99), pct(crowd_lat, 100)))
print("probe (one scrape every 50 ms during and after): %d scrapes, p50 %.1f ms, p99 %.1f ms, max %.1f ms"
      % (len(probe_lat), pct(probe_lat, 50), pct(probe_lat, 99), pct(probe_lat, 100)))
print("slow clients: %s" % {r: slow_res.count(r) for r in set(slow_res)})
print("pmctop CPU time while the crowd ran: %.2f s" % mem.pop("pmctop CPU seconds during the crowd"))
for k, (rss, hwm) in mem.items():
    print("memory %s: RSS %.1f MB (peak so far %.1f MB)" % (k, rss / 1024, hwm / 1024))
print("sampler: %d intervals, gaps between their ends: min %.3f s, max %.3f s (interval %g s)"
      % (len(times), min(gaps), max(gaps), args.d))
for e in sorted(set(crowd_err))[:5]:
    print("error:", e)
ok = not crowd_err and max(gaps) < 1.5 * args.d and pct(probe_lat, 99) < 100
print("ok" if ok else "NOT OK")
sys.exit(0 if ok else 1)
