#!/usr/bin/env python3
"""e2e_fleet_prom.py: the judge of `pmctop --fleet` (tests/e2e_fleet_prom.sh).

It scrapes every exporter's /metrics itself, every 0.1 s, and keeps for each
interval number (pmctop_intervals_total) the host's instructions and cycles
(pmctop_instructions_total, pmctop_cycles_total summed over its rows). Then:

1. Prometheus mode: pmctop --fleet PROM --fleet-at AT --fleet-window W -b -n 1
   --format json. Prometheus is asked only which intervals its samples in
   (AT-W, AT] hold (pmctop_intervals_total[W] at AT, first and last); the
   expected IPC is delta(instructions) / delta(cycles) between those two
   intervals, from the judge's own scrapes (or, where a slow exporter made
   them miss one, from the samples Prometheus took of the exporter's
   counters at that interval). Each host's IPC must be within
   1 % of it, and pmctop must have asked Prometheus a number of queries that
   does not grow with the hosts (one per column and refresh). Each column's
   error and coverage must be what Prometheus gives for its err= metric
   (events/fleet/columns.txt) over all the gauges, though pmctop asks for
   the columns' metrics alone.
2. Direct mode: pmctop --fleet @FILE (every exporter, one over TLS with basic
   auth, through --fleet-config) -b -n 2 --format json; each host's JSON says
   which intervals its window spans ("intervals"), and its IPC must be within
   1 % of the judge's for the same two intervals.

Usage: e2e_fleet_prom.py PMCTOP PROM_URL WINDOW_S TARGETS_FILE CONFIG
TARGETS_FILE: one exporter a line, as pmctop reads it (HOST:PORT or
https://HOST:PORT); CONFIG: the --fleet-config (its ca_file and basic_auth
are used by the judge's own scrapes of https targets as well).
"""
import base64
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.request

from fleet_judge import prom

TOL = 0.01


def parse_config(path):
    """The few keys of the fleet client config the judge needs (flat YAML)."""
    conf = {}
    for line in open(path):
        line = line.strip()
        if ':' in line and not line.endswith(':'):
            k, v = line.split(':', 1)
            conf[k.strip()] = v.strip().strip("'\"")
    d = os.path.dirname(path)
    for k in ('ca_file', 'password_file'):
        if k in conf and not conf[k].startswith('/'):
            conf[k] = os.path.join(d, conf[k])
    if 'password_file' in conf:
        conf['password'] = open(conf['password_file']).read().splitlines()[0]
    return conf


class Scraper(threading.Thread):
    def __init__(self, targets, conf):
        super().__init__(daemon=True)
        self.targets = targets
        self.by_host = {t: {} for t in targets}
        self.stop = False
        self.lock = threading.Lock()
        self.ctx = ssl.create_default_context(cafile=conf.get('ca_file'))
        self.auth = None
        if 'username' in conf:
            tok = base64.b64encode(f"{conf['username']}:{conf.get('password', '')}".encode()).decode()
            self.auth = 'Basic ' + tok

    @staticmethod
    def name(t):
        return t.split('://', 1)[-1].split('/', 1)[0]

    def url(self, t):
        return t.rstrip('/') + '/metrics' if '://' in t else f'http://{t}/metrics'

    def scrape(self, t):
        req = urllib.request.Request(self.url(t))
        if t.startswith('https://') and self.auth:
            req.add_header('Authorization', self.auth)
        with urllib.request.urlopen(req, timeout=2, context=self.ctx if t.startswith('https') else None) as r:
            text = r.read().decode()
        k = inst = cyc = ts = None
        for line in text.splitlines():
            if line.startswith('#') or not line:
                continue
            name = line.split('{', 1)[0].split(' ', 1)[0]
            value = float(line.rsplit(' ', 1)[1])
            if name == 'pmctop_intervals_total':
                k = int(value)
            elif name == 'pmctop_instructions_total':
                inst = (inst or 0) + value
            elif name == 'pmctop_cycles_total':
                cyc = (cyc or 0) + value
            elif name == 'pmctop_last_interval_timestamp_seconds':
                ts = value
        if k is not None and inst is not None and cyc is not None and ts is not None:
            with self.lock:
                self.by_host[t].setdefault(k, (inst, cyc, ts))

    def run(self):
        # A thread per exporter: one slow scrape (TLS, a big imported
        # model) must not make the judge miss another's intervals.
        def loop(t):
            while not self.stop:
                try:
                    self.scrape(t)
                except Exception:
                    pass
                time.sleep(0.1)
        threads = [threading.Thread(target=loop, args=(t,), daemon=True) for t in self.targets]
        for th in threads:
            th.start()
        for th in threads:
            th.join()

    def fill_from_prom(self, purl, window, at):
        """Intervals the judge's own scrapes missed (a slow exporter under a
        sanitizer, a scrape over 0.5 s), from the samples Prometheus took of
        the same exporters in (at-window, at]: the exporter's own counters,
        as Prometheus scraped them, one scrape's series sharing a timestamp."""
        got = {}
        for name in ('pmctop_intervals_total', 'pmctop_instructions_total', 'pmctop_cycles_total',
                     'pmctop_last_interval_timestamp_seconds'):
            for r in prom(purl, f'{name}[{window:g}s]', at):
                inst = r['metric']['instance']
                for ts, v in r['values']:
                    row = got.setdefault((inst, ts), {})
                    row[name] = row.get(name, 0.0) + float(v)
        n = 0
        with self.lock:
            for (inst, _), row in got.items():
                if inst in self.by_host and len(row) == 4:
                    k = int(row['pmctop_intervals_total'])
                    if k not in self.by_host[inst]:
                        n += 1
                    self.by_host[inst].setdefault(k, (row['pmctop_instructions_total'], row['pmctop_cycles_total'],
                                                      row['pmctop_last_interval_timestamp_seconds']))
        return n

    def has(self, target, k):
        with self.lock:
            return k in self.by_host[target]

    def deltas(self, target, k0, k1):
        """Instructions, cycles and seconds from interval k0 to k1."""
        with self.lock:
            a, b = self.by_host[target].get(k0), self.by_host[target].get(k1)
        if not a or not b or b[1] == a[1] or b[2] == a[2]:
            return None
        return b[0] - a[0], b[1] - a[1], b[2] - a[2]

    def ipc(self, target, k0, k1):
        d = self.deltas(target, k0, k1)
        return d[0] / d[1] if d else None


def queries_asked(url):
    """Instant queries Prometheus has answered, from its own /metrics."""
    with urllib.request.urlopen(f'{url}/metrics', timeout=5) as r:
        text = r.read().decode()
    n = 0.0
    for line in text.splitlines():
        if line.startswith('prometheus_http_requests_total{') and 'handler="/api/v1/query"' in line:
            n += float(line.rsplit(' ', 1)[1])
    return n


def main():
    pmctop, purl, window, targets_file, config = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
    targets = [l.strip() for l in open(targets_file) if l.strip()]
    conf = parse_config(config)
    plain = [t for t in targets if '://' not in t]
    sc = Scraper(targets, conf)
    sc.start()
    fails = []

    # Prometheus must hold a window's samples of every plain target.
    deadline = time.time() + 15
    while time.time() < deadline:
        res = prom(purl, f'count_over_time(pmctop_intervals_total[{window:g}s])')
        if len(res) >= len(plain) and all(float(r['value'][1]) >= 3 for r in res):
            break
        time.sleep(0.3)
    else:
        print('FAIL: Prometheus never held a window of every target')
        return 1
    at = time.time() - 0.2
    before = queries_asked(purl)
    out = subprocess.run([pmctop, '--fleet', purl, '--fleet-at', f'{at:.3f}', '--fleet-window', f'{window:g}',
                          '-b', '-n', '1', '--format', 'json'], capture_output=True, text=True, timeout=20)
    asked = queries_asked(purl) - before
    if out.returncode != 0:
        print(f'FAIL: pmctop --fleet PROM exited {out.returncode}: {out.stderr.strip()}')
        return 1
    snap = json.loads(out.stdout.splitlines()[-1])
    hosts = {h['host']: h for h in snap['hosts']}
    ncols = len(snap['hosts'][0]['metrics']) if snap['hosts'] else 0
    if asked > ncols + 8:
        fails.append(f'pmctop asked Prometheus {asked:.0f} queries for {len(hosts)} hosts and {ncols} columns')
    span = {}
    for r in prom_range(purl, f'pmctop_intervals_total[{window:g}s]', at):
        span[r['metric']['instance']] = (int(float(r['values'][0][1])), int(float(r['values'][-1][1])))
    filled = sc.fill_from_prom(purl, window, at)
    if filled:
        print(f'prometheus mode: {filled} intervals the judge\'s scrapes missed taken from Prometheus\'s samples')
    worst = 0.0
    checked = 0
    for t in plain:
        h = hosts.get(t)
        if not h:
            fails.append(f'{t}: no row in pmctop --fleet PROM')
            continue
        if not h['simulated'] or h['status'] is not None or not h['model']:
            fails.append(f'{t}: expected a SIMULATED host with a model, got {h["model"]!r} {h["status"]!r}')
        k0, k1 = span.get(t, (None, None))
        want = sc.ipc(t, k0, k1) if k0 is not None else None
        got = h['metrics'].get('ipc')
        if want is None or got is None:
            fails.append(f'{t}: IPC pmctop {got}, judge {want} (intervals {k0}..{k1})')
            continue
        err = abs(got - want) / want
        worst = max(worst, err)
        checked += 1
        if err > TOL:
            fails.append(f'{t} ({h["model"]}): IPC {got:.6f}, judge {want:.6f} over intervals {k0}..{k1}')
    print(f'prometheus mode: {checked} hosts, IPC worst relative difference {worst:.2e}, '
          f'{asked:.0f} queries for {ncols} columns')
    # The fleet's IPC: all instructions over all cycles, each host's IPC
    # (the judge's) weighted by its cycles a second as Prometheus rates
    # them; never the mean of the hosts' IPCs.
    w = {r['metric']['instance']: float(r['value'][1])
         for r in prom(purl, f'sum by (instance) (rate(pmctop_cycles_total[{window * 1000:.0f}ms]))', at)}
    ipcs = {t: sc.ipc(t, *span[t]) for t in plain if t in span and t in w}
    if None not in ipcs.values() and ipcs:
        want = sum(ipcs[t] * w[t] for t in ipcs) / sum(w[t] for t in ipcs)
        mean = sum(ipcs.values()) / len(ipcs)
        got = snap['total'].get('ipc')
        if got is None or abs(got - want) / want > TOL:
            fails.append(f'fleet IPC {got}, judge {want:.6f} (the mean of the hosts\' would be {mean:.6f})')
        else:
            print(f'prometheus mode: fleet IPC {got:.6f}, judge {want:.6f} (the mean of ratios: {mean:.6f})')

    # Each column's error and coverage: the highest relative error and the
    # lowest coverage of the host's rows for the column's err= metric, as
    # Prometheus itself aggregates every metric's gauges (pmctop asks for
    # the columns' metrics alone), NaN (null) where the host has none.
    errs = column_errs()
    rse = {(r['metric']['instance'], r['metric'].get('metric')): float(r['value'][1])
           for r in prom(purl, 'max by (instance, metric) (pmctop_relative_error_ratio)', at)}
    cov = {(r['metric']['instance'], r['metric'].get('metric')): float(r['value'][1])
           for r in prom(purl, 'min by (instance, metric) (pmctop_coverage_ratio)', at)}
    doubts = 0
    for t in plain:
        h = hosts.get(t)
        for col, metric in (errs.items() if h else ()):
            if h['metrics'].get(col) is None:
                continue
            for what, judge in (('rse', rse), ('coverage', cov)):
                got, want = h[what].get(col), judge.get((t, metric))
                if (got is None) != (want is None) or (want is not None and abs(got - want) > 1e-6 * max(1, abs(want))):
                    fails.append(f'{t}: {col} {what} {got}, Prometheus says {want} for {metric}')
                doubts += want is not None
    if not doubts:
        fails.append('no host had an error or a coverage to check')
    print(f'prometheus mode: {doubts} errors and coverages of {len(errs)} columns as Prometheus aggregates them')

    # Direct mode, the TLS exporter included.
    out = subprocess.run([pmctop, '--fleet', '@' + targets_file, '--fleet-config', config, '-d', '1', '-b', '-n', '2',
                          '--format', 'json'], capture_output=True, text=True, timeout=20)
    if out.returncode != 0:
        print(f'FAIL: pmctop --fleet @FILE exited {out.returncode}: {out.stderr.strip()}')
        return 1
    snap = json.loads(out.stdout.splitlines()[-1])
    # The judge's scrapes of the last interval pmctop read.
    deadline = time.time() + 2
    for h in snap['hosts']:
        t = next((x for x in targets if Scraper.name(x) == h['host']), None)
        while t and h['intervals'][1] is not None and not sc.has(t, int(h['intervals'][1])) and time.time() < deadline:
            time.sleep(0.05)
    sc.fill_from_prom(purl, 10, time.time())
    worst = 0.0
    checked = 0
    for h in snap['hosts']:
        t = next((x for x in targets if Scraper.name(x) == h['host']), None)
        k0, k1 = h['intervals']
        got = h['metrics'].get('ipc')
        want = sc.ipc(t, int(k0), int(k1)) if t and k0 is not None and k1 is not None else None
        if want is None or got is None:
            fails.append(f'direct {h["host"]}: IPC pmctop {got}, judge {want} (intervals {k0}..{k1}, '
                         f'status {h["status"]!r})')
            continue
        err = abs(got - want) / want
        worst = max(worst, err)
        checked += 1
        if err > TOL:
            fails.append(f'direct {h["host"]}: IPC {got:.6f}, judge {want:.6f} over intervals {k0}..{k1}')
    if checked != len(targets):
        fails.append(f'direct mode: {checked} of {len(targets)} hosts checked')
    # The fleet's IPC: the hosts' instructions a second over their cycles
    # a second, each over its own exporter's time.
    num = den = 0.0
    for h in snap['hosts']:
        t = next((x for x in targets if Scraper.name(x) == h['host']), None)
        d = sc.deltas(t, int(h['intervals'][0]), int(h['intervals'][1])) if t and h['intervals'][0] is not None else None
        if d:
            num += d[0] / d[2]
            den += d[1] / d[2]
    got = snap['total'].get('ipc')
    if not den or got is None or abs(got - num / den) / (num / den) > TOL:
        fails.append(f'direct mode: fleet IPC {got}, judge {num / den if den else None}')
    else:
        print(f'direct mode: fleet IPC {got:.6f}, judge {num / den:.6f}')
    print(f'direct mode: {checked} hosts (one over TLS with basic auth), IPC worst relative difference {worst:.2e}')
    sc.stop = True
    for f in fails:
        print('FAIL:', f)
    return 1 if fails else 0


def column_errs():
    """The columns that take an error and coverage: column name -> err= metric."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'events', 'fleet', 'columns.txt')
    errs = {}
    for line in open(path):
        f = line.split()
        if len(f) > 1 and f[0] == 'column':
            for kv in f[2:]:
                if kv.startswith('err='):
                    errs[f[1]] = kv[4:]
    return errs


def prom_range(url, query, at):
    """A range vector's samples at time at: the window pmctop's rate() read."""
    return prom(url, query, at)


if __name__ == '__main__':
    sys.exit(main())
