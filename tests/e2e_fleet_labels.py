#!/usr/bin/env python3
"""e2e_fleet_labels.py PMCTOP EVENTS PROM WINDOW SD_FILE MOVE: the judge of
tests/e2e_fleet_labels.sh (groups of hosts by their labels, docs/fleet.md).

SD_FILE is Prometheus's file_sd target file: a JSON list of
{"targets": [HOST], "labels": {...}}, one entry a host. The judge:

1. waits until Prometheus holds 7 scrapes of every target, runs
   `pmctop --fleet PROM --fleet-group zone --fleet-at AT --fleet-window W -b
   -n 1 --format json` and wants each host's labels (job, rack, zone) to be
   its targets', one group row per zone with its host count, and each
   zone's IPC within 1 % of the sum of its hosts' instructions rates over
   the sum of their cycles rates, each rate computed here from
   Prometheus's raw samples in (AT - W, AT] as rate() extrapolates them;
   where the plain mean of the hosts' IPCs differs from that by more than
   3 %, the group's figure must not be that mean. The same with
   --fleet-group rack and model: their host counts;
2. moves host MOVE to zone us1 in SD_FILE (Prometheus reads it again)
   and, polling (no fixed wait), wants pmctop's next refreshes to say so:
   the host's zone us1, the groups' counts the new ones, no zone twice."""
import json
import os
import subprocess
import sys
import time

from fleet_judge import fail, failed, prom

TOL = 0.01


def prom_rate(vals, start, end):
    """rate() of one series' raw samples [(t, v)] over (start, end], as
    Prometheus extrapolates it (counter resets counted)."""
    if len(vals) < 2:
        return None
    delta = vals[-1][1] - vals[0][1]
    for (_, a), (_, b) in zip(vals, vals[1:]):
        if b < a:
            delta += a
    sampled = vals[-1][0] - vals[0][0]
    to_start, to_end = vals[0][0] - start, end - vals[-1][0]
    avg = sampled / (len(vals) - 1)
    if delta > 0 and vals[0][1] >= 0:
        to_start = min(to_start, sampled * (vals[0][1] / delta))
    extra = sampled
    extra += to_start if to_start < avg * 1.1 else avg / 2
    extra += to_end if to_end < avg * 1.1 else avg / 2
    return delta * (extra / sampled) / (end - start)


def rates(url, series, window, at):
    """Per instance: the sum of its series' rates (sum by (instance))."""
    out = {}
    for r in prom(url, f'{series}{{job="pmctop"}}[{window * 1000:.0f}ms]', at):
        vals = sorted((float(t), float(v)) for t, v in r['values'])
        rt = prom_rate(vals, at - window, at)
        if rt is not None:
            inst = r['metric']['instance']
            out[inst] = out.get(inst, 0.0) + rt
    return out


def run(pmctop, events, purl, window, label, at=None):
    cmd = [pmctop, '--events-dir', events, '--fleet', purl, '--fleet-group', label, '--fleet-window',
           f'{window:g}', '-b', '-n', '1', '--format', 'json']
    if at is not None:
        cmd += ['--fleet-at', f'{at:.3f}']
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if out.returncode != 0 or not out.stdout.strip():
        fail(f'pmctop --fleet-group {label} exited {out.returncode}: {out.stderr.strip()}')
        return None
    return json.loads(out.stdout.splitlines()[0])


def counts(snap, label):
    """The group rows of label: {value: hosts}; a value twice is a failure."""
    got = {}
    for g in snap.get('groups', []):
        if g['label'] != label:
            fail(f'a group of {g["label"]} among those of {label}')
        if g['value'] in got:
            fail(f'{label} {g["value"]} twice among the groups')
        got[g['value']] = g['hosts']
    return got


def want_counts(labels, label):
    out = {}
    for lb in labels.values():
        out[lb.get(label, '')] = out.get(lb.get(label, ''), 0) + 1
    return out


def main():
    pmctop, events, purl, window, sd_file, move = sys.argv[1:7]
    window = float(window)
    sd = json.load(open(sd_file))
    labels = {e['targets'][0]: dict(e['labels'], job='pmctop') for e in sd}
    deadline = time.time() + 30
    while time.time() < deadline:
        # 7 s of samples at least: rate()'s extrapolation of a young series
        # stops where the counter would reach zero.
        res = prom(purl, 'count_over_time(pmctop_intervals_total[10s])')
        if len(res) == len(labels) and all(float(r['value'][1]) >= 7 for r in res):
            break
        time.sleep(0.2)
    else:
        fail(f'Prometheus never held 7 scrapes of all {len(labels)} exporters')
        return 1

    # 1. Groups by zone at a pinned time, judged from the raw samples.
    at = time.time() - 0.5
    snap = run(pmctop, events, purl, window, 'zone', at)
    if snap is None:
        return 1
    ins = rates(purl, 'pmctop_instructions_total', window, at)
    cyc = rates(purl, 'pmctop_cycles_total', window, at)
    hosts = {h['host']: h for h in snap['hosts']}
    for host, lb in labels.items():
        got = hosts.get(host, {}).get('labels')
        if got != lb:
            fail(f'{host}: labels {got}, its target has {lb}')
    if counts(snap, 'zone') != want_counts(labels, 'zone'):
        fail(f'zone groups {counts(snap, "zone")}, the targets make {want_counts(labels, "zone")}')
    worst, meant = 0.0, 0
    for g in snap.get('groups', []):
        members = [h for h, lb in labels.items() if lb['zone'] == g['value']]
        want = sum(ins[h] for h in members) / sum(cyc[h] for h in members)
        ipc = g['metrics']['ipc']
        if ipc is None or abs(ipc - want) > TOL * want:
            fail(f'zone {g["value"]}: IPC {ipc}, its hosts\' instructions over their cycles {want:.6f}')
            continue
        worst = max(worst, abs(ipc - want) / want)
        mean = sum(ins[h] / cyc[h] for h in members) / len(members)
        if abs(mean - want) > 0.03 * want:
            meant += 1
            if abs(ipc - mean) <= 0.02 * mean:
                fail(f'zone {g["value"]}: IPC {ipc} is the plain mean of its hosts\' IPCs {mean:.4f}')
        print(f'zone {g["value"]}: {g["hosts"]} hosts, IPC {ipc:.6f} for the judge\'s {want:.6f}'
              f' (plain mean {mean:.4f})')
    print(f'worst group IPC difference {worst:.1e} (limit {TOL}); {meant} groups whose plain mean differs')
    for label in ('rack', 'model'):
        snap = run(pmctop, events, purl, window, label, at)
        if snap is None:
            continue
        if label == 'model':
            for h in snap['hosts']:
                labels[h['host']]['model'] = h['model']
        if counts(snap, label) != want_counts(labels, label):
            fail(f'{label} groups {counts(snap, label)}, the hosts make {want_counts(labels, label)}')
        else:
            print(f'{label}: {counts(snap, label)}')

    # 2. A target relabelled: zone us1 for host move.
    old = labels[move]['zone']
    for e in sd:
        if e['targets'][0] == move:
            e['labels']['zone'] = 'us1'
    labels[move]['zone'] = 'us1'
    with open(sd_file + '.new', 'w') as f:
        json.dump(sd, f)
    os.rename(sd_file + '.new', sd_file)
    t0 = time.time()
    want = want_counts(labels, 'zone')
    got = None
    while time.time() < t0 + 30:
        snap = run(pmctop, events, purl, window, 'zone')
        if snap is None:
            break
        h = {x['host']: x for x in snap['hosts']}.get(move, {})
        got = counts(snap, 'zone')
        if h.get('labels', {}).get('zone') == 'us1' and got == want:
            print(f'{move} moved from zone {old} to us1: groups {got} after {time.time() - t0:.1f} s')
            break
        time.sleep(0.3)
    else:
        fail(f'{move} relabelled zone us1: pmctop still says groups {got}, want {want}')
    return 1 if failed() else 0


sys.exit(main())
