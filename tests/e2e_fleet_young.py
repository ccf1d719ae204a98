#!/usr/bin/env python3
"""e2e_fleet_young.py PMCTOP EVENTS PROM WINDOW TARGET...: the judge of
tests/e2e_fleet_young.sh. Waits until Prometheus holds 5 scrapes of every
target (far fewer than a WINDOW of them), runs
`pmctop --fleet PROM --fleet-at AT --fleet-window WINDOW -b -n 1 --format json`
and compares each host's UTIL and WATT, and the fleet's UTIL, with the raw
samples Prometheus holds in (AT - WINDOW, AT]: the counters' rise between
the first and last sample over the rise of the exporter's interval
timestamp (its own time between them), UTIL divided by the CPUs."""
import json
import subprocess
import sys
import time

from fleet_judge import fail, failed, prom

def rise(url, series, window, at):
    """Per instance: the family's rows summed at each scrape, last minus
    first, and the first scrape's time."""
    by = {}
    for r in prom(url, f'{series}[{window * 1000:.0f}ms]', at):
        inst = r['metric']['instance']
        for t, v in r['values']:
            by.setdefault(inst, {}).setdefault(t, 0.0)
            by[inst][t] += float(v)
    out = {}
    for inst, pts in by.items():
        ts = sorted(pts)
        out[inst] = (pts[ts[-1]] - pts[ts[0]], ts[0], len(ts))
    return out


def main():
    pmctop, events, purl, window, targets = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:]
    deadline = time.time() + 20
    while time.time() < deadline:
        res = prom(purl, f'count_over_time(pmctop_intervals_total[{window:g}s])')
        if len(res) == len(targets) and all(float(r['value'][1]) >= 5 for r in res):
            break
        time.sleep(0.2)
    else:
        fail('Prometheus never held 5 scrapes of every target')
        return 1
    at = time.time() - 0.5
    out = subprocess.run([pmctop, '--events-dir', events, '--fleet', purl, '--fleet-at', f'{at:.3f}', '--fleet-window', f'{window:g}',
                          '-b', '-n', '1', '--format', 'json'], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        fail(f'pmctop exit {out.returncode}: {out.stderr.strip()}')
        return 1
    rep = json.loads(out.stdout.splitlines()[-1])
    clock = rise(purl, 'pmctop_last_interval_timestamp_seconds', window, at)
    busy = rise(purl, 'pmctop_busy_seconds_total', window, at)
    joules = rise(purl, 'pmctop_package_joules_total', window, at)
    cpus = {r['metric']['instance']: float(r['value'][1]) for r in prom(purl, 'pmctop_online_cpus', at)}
    old = {r['metric']['instance']: float(r['value'][1]) for r in prom(
        purl, f'sum by (instance) (rate(pmctop_busy_seconds_total[{window * 1000:.0f}ms])) '
        '/ sum by (instance) (pmctop_online_cpus)', at)}
    tot_busy = tot_cpus = 0.0
    for h in rep['hosts']:
        name = h['host']
        dts, t0, n = clock[name]
        if t0 < at - window + 2:
            fail(f'{name}: its series is not younger than the window (first sample {at - t0:.1f} s before AT)')
        want_util = busy[name][0] / dts / cpus[name]
        tot_busy += busy[name][0] / dts
        tot_cpus += cpus[name]
        got = h['metrics']['util']
        ok = got is not None and abs(got - want_util) <= 0.01 * want_util
        print(f'{"ok" if ok else "FAIL"}: {name}: UTIL {got} for the samples\' {want_util:.6f} '
              f'({n} scrapes, {at - t0:.1f} s of a {window:g} s window; rate() alone said {old.get(name, 0):.6f})')
        if not ok:
            fail(f'{name}: UTIL {got}, wanted {want_util:.6f}')
        if name in joules:
            want_w = joules[name][0] / dts
            got_w = h['metrics']['watts']
            ok = got_w is not None and abs(got_w - want_w) <= 0.01 * want_w
            print(f'{"ok" if ok else "FAIL"}: {name}: WATT {got_w} for the samples\' {want_w:.4f}')
            if not ok:
                fail(f'{name}: WATT {got_w}, wanted {want_w:.4f}')
    want = tot_busy / tot_cpus
    got = rep['total']['util']
    ok = got is not None and abs(got - want) <= 0.01 * want
    print(f'{"ok" if ok else "FAIL"}: the fleet: UTIL {got} for the samples\' {want:.6f}')
    if not ok:
        fail(f'the fleet: UTIL {got}, wanted {want:.6f}')
    return 1 if failed() else 0


if __name__ == '__main__':
    sys.exit(main())
