#!/usr/bin/env python3
"""e2e_fleet_drill_prom.py PMCTOP EVENTS PROM WINDOW HOST OTHER: the judge of
tests/e2e_fleet_drill_prom.sh. Waits until Prometheus holds 7 scrapes of
both exporters, runs `pmctop --fleet PROM --fleet-host HOST --fleet-at AT
--fleet-window WINDOW -b -n 1 --format json` and wants one row per CPU of
HOST (its pmctop_online_cpus), each CPU's IPC equal (1e-6) to that CPU's
instructions' rise over its cycles' rise between the first and last of
Prometheus's raw samples of HOST in (AT - WINDOW, AT] (rate() scales both
alike), and the host's own IPC (the last row) likewise over all its CPUs:
OTHER's series, which Prometheus holds too, must not count; then
`--fleet-host nohost:1`, no host's name, must exit 1 with one line."""
import json
import subprocess
import sys
import time

from fleet_judge import fail, failed, prom

def rises(url, series, host, window, at):
    """Per cpu label: last minus first raw sample in the window."""
    out = {}
    for r in prom(url, f'{series}{{instance="{host}"}}[{window * 1000:.0f}ms]', at):
        vals = sorted((float(t), float(v)) for t, v in r['values'])
        out[r['metric'].get('cpu')] = vals[-1][1] - vals[0][1]
    return out


def main():
    pmctop, events, purl, window, host, other = sys.argv[1:7]
    window = float(window)
    deadline = time.time() + 30
    while time.time() < deadline:
        # Series 7 s old at least: over a young one's first window, rate()
        # stops its extrapolation where the counter would reach zero, which
        # differs between instructions and cycles.
        res = prom(purl, 'count_over_time(pmctop_intervals_total[10s])')
        if len(res) == 2 and all(float(r['value'][1]) >= 7 for r in res):
            break
        time.sleep(0.2)
    else:
        fail('Prometheus never held 7 scrapes of both exporters')
        return 1
    at = time.time() - 0.5
    ncpus = int(float(prom(purl, f'pmctop_online_cpus{{instance="{host}"}}', at)[0]['value'][1]))
    out = subprocess.run([pmctop, '--events-dir', events, '--fleet', purl, '--fleet-host', host,
                          '--fleet-at', f'{at:.3f}', '--fleet-window', f'{window:g}', '-b', '-n', '1',
                          '--format', 'json'], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        fail(f'pmctop --fleet-host exited {out.returncode}: {out.stderr.strip()}')
        return 1
    snap = json.loads(out.stdout.splitlines()[0])
    rows = snap['hosts']
    ins = rises(purl, 'pmctop_instructions_total', host, window, at)
    cyc = rises(purl, 'pmctop_cycles_total', host, window, at)
    if len(rows) != ncpus:
        fail(f'{len(rows)} rows for the {ncpus} CPUs of {host}')
    worst = 0.0
    for r in rows:
        kind, cpu = r['host'].split()
        ipc = r['metrics']['ipc']
        want = ins[cpu] / cyc[cpu] if cyc.get(cpu) else None
        if kind != 'cpu' or ipc is None or want is None:
            fail(f'row {r["host"]}: IPC {ipc}, judged {want}')
            continue
        worst = max(worst, abs(ipc - want) / want)
    total = snap['total'].get('metrics', snap['total']).get('ipc')
    want = sum(ins.values()) / sum(cyc.values())
    if total is None or abs(total - want) / want > 1e-6:
        fail(f'{host} own IPC {total}, judged {want} over its CPUs')
    if worst > 1e-6:
        fail(f'a CPU row\'s IPC is {worst:.2e} off the raw samples\' (limit 1e-6)')
    print(f'{host}: {len(rows)} CPU rows, worst IPC difference {worst:.1e}; the host {total:.6f} for {want:.6f}')
    # A host none of the targets is: one line, exit 1.
    out = subprocess.run([pmctop, '--events-dir', events, '--fleet', purl, '--fleet-host', 'nohost:1', '-b', '-n',
                          '1'], capture_output=True, text=True, timeout=30)
    said = out.stderr.strip().splitlines()
    if out.returncode != 1 or len(said) != 1 or "--fleet-host nohost:1: not among the fleet's 2 hosts" not in said[0]:
        fail(f'--fleet-host nohost:1: exit {out.returncode}, stderr {said}')
    else:
        print(f'--fleet-host nohost:1: exit 1, "{said[0]}"')
    return 1 if failed() else 0


sys.exit(main())
