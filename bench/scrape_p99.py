#!/usr/bin/env python3
# scrape_p99.py: the latency of a scrape under a few concurrent scrapers
# (not run by make check; docs/exporter.md, "Latency under concurrent
# scrapers"). It starts
#   pmctop --sim zen5:SHAPE --daemon --listen 127.0.0.1:PORT --export-scope SCOPE
# waits for its second interval, then runs N scrapers at once (processes,
# default 4), each scraping /metrics in a loop for SECS seconds with PAUSE
# seconds between its scrapes (default 0: back to back, the hardest case),
# first asking for gzip (as Prometheus does), then for plain text. A
# scrape's latency is from connect() to the last byte of the body; each
# body is checked (status 200, the scrape counter in it). Prints p50, p99
# and the largest per encoding, and pmctop's CPU time for them.
#   bench/scrape_p99.py [--pmctop ./pmctop] [-n 4] [--secs 20] [--pause 0]
#                       [--shape 2x12x8x2] [--scope cpu] [-d 1]
import argparse
import gzip
import multiprocessing
import os
import socket
import subprocess
import sys
import time

from loadlib import cpu_s, free_port, pct

ap = argparse.ArgumentParser()
ap.add_argument("--pmctop", default="./pmctop")
ap.add_argument("-n", type=int, default=4, help="concurrent scrapers")
ap.add_argument("--secs", type=float, default=20, help="seconds per encoding")
ap.add_argument("--pause", type=float, default=0, help="seconds between a scraper's scrapes")
ap.add_argument("--shape", default="2x12x8x2")
ap.add_argument("--scope", default="cpu")
ap.add_argument("-d", type=float, default=1, help="pmctop's interval")
args = ap.parse_args()


def scrape(port, gz, check=False):
    t0 = time.monotonic()
    c = socket.create_connection(("127.0.0.1", port), 10)
    c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
              (b"Accept-Encoding: gzip\r\n" if gz else b"") + b"\r\n")
    parts = []
    while True:
        b = c.recv(1 << 20)
        if not b:
            break
        parts.append(b)
    c.close()
    t = time.monotonic() - t0
    resp = b"".join(parts)
    if not resp.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("bad answer: %r" % resp[:80])
    if check:
        head, _, body = resp.partition(b"\r\n\r\n")
        if gz:
            body = gzip.decompress(body)
        if b"pmctop_scrapes_total" not in body:
            raise RuntimeError("no scrape counter in the body")
    return t, len(resp)


def scraper(port, gz, until, q):
    lat, size, n = [], 0, 0
    while time.monotonic() < until:
        t, size = scrape(port, gz, check=(n % 10 == 0))
        lat.append(t)
        n += 1
        if args.pause:
            time.sleep(args.pause)
    q.put((lat, size))


port = free_port()
p = subprocess.Popen([args.pmctop, "--sim", "zen5:" + args.shape, "--daemon", "-d", str(args.d),
                      "--listen", "127.0.0.1:%d" % port, "--export-scope", args.scope])
ok = True
try:
    # Until the second interval is out: the first has fewer series.
    t_end = time.monotonic() + 30
    while time.monotonic() < t_end:
        try:
            c = socket.create_connection(("127.0.0.1", port), 1)
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            body = b""
            while True:
                b = c.recv(1 << 20)
                if not b:
                    break
                body += b
            c.close()
            done = [l for l in body.split(b"\n") if l.startswith(b"pmctop_intervals_total ")]
            if done and float(done[0].split()[1]) >= 2:
                break
        except OSError:
            pass
        time.sleep(0.2)
    print("pmctop --sim zen5:%s --daemon --export-scope %s -d %g; %d scrapers, %g s each encoding, "
          "pause %g s; %d CPUs, load average %s"
          % (args.shape, args.scope, args.d, args.n, args.secs, args.pause, os.cpu_count(),
             open("/proc/loadavg").read().split()[0]))
    for gz in (True, False):
        q = multiprocessing.Queue()
        until = time.monotonic() + args.secs
        c0 = cpu_s(p.pid)
        ps = [multiprocessing.Process(target=scraper, args=(port, gz, until, q)) for _ in range(args.n)]
        for x in ps:
            x.start()
        res = [q.get() for _ in ps]
        for x in ps:
            x.join()
        lat = [t for r in res for t in r[0]]
        cpu = cpu_s(p.pid) - c0
        print("%-5s %5d scrapes of %7.0f kB: p50 %5.1f ms, p99 %5.1f ms, max %6.1f ms; pmctop CPU %.2f s (%.2f ms a scrape)"
              % ("gzip" if gz else "plain", len(lat), res[0][1] / 1000, pct(lat, 50), pct(lat, 99), pct(lat, 100),
                 cpu, 1000 * cpu / max(1, len(lat))))
        ok = ok and pct(lat, 99) <= 50
finally:
    p.terminate()
    p.wait(10)
print("ok: p99 at most 50 ms" if ok else "NOT OK: a p99 over 50 ms")
sys.exit(0 if ok else 1)
