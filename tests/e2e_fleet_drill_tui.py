#!/usr/bin/env python3
"""e2e_fleet_drill_tui.py PMCTOP EVENTS PROM WINDOW HOST: the dashboard's
part of tests/e2e_fleet_drill_prom.sh, on the same Prometheus. Runs
`pmctop --fleet PROM --fleet-host HOST --fleet-at AT -d 2` in tmux and
reads the screen (capture-pane):

- the host's CCX boxes (two at least: HOST exports at --export-scope cpu),
  each one's IPC within 1 % of its CPUs' instructions' rise over their
  cycles' rise in Prometheus's raw samples of the window (by the series'
  ccx label: the CCX's counters summed before dividing);
- the history box's UTIL sparkline has more points than the refreshes
  the dashboard made could give (so they came from query_range, at the
  first frame), and Prometheus answered exactly one query_range per
  column marked `history` in events/fleet/columns.txt (its own /metrics:
  prometheus_http_requests_total)."""
import os
import re
import subprocess
import sys
import time
import urllib.request

from fleet_judge import fail, failed, prom


def served(purl, handler):
    """The requests Prometheus has answered (200) on handler."""
    text = urllib.request.urlopen(f'{purl}/metrics', timeout=5).read().decode()
    pat = re.compile(r'^prometheus_http_requests_total\{code="200",handler="%s"\} (\S+)$' % re.escape(handler), re.M)
    m = pat.search(text)
    return int(float(m.group(1))) if m else 0


def rises_by_ccx(purl, series, host, window, at):
    """Per ccx label: the sum over its CPUs of last minus first raw sample."""
    out = {}
    for r in prom(purl, f'{series}{{instance="{host}",cpu!=""}}[{window * 1000:.0f}ms]', at):
        vals = sorted((float(t), float(v)) for t, v in r['values'])
        ccx = int(r['metric']['ccx'])
        out[ccx] = out.get(ccx, 0.0) + vals[-1][1] - vals[0][1]
    return out


def boxes(lines):
    """The CCX boxes' IPC on the screen: {CCX number: IPC}."""
    out = {}
    for y, line in enumerate(lines):
        for m in re.finditer(r'CCX (\d+)  socket', line):
            x = max(0, m.start() - 3)
            for below in lines[y + 1:y + 4]:
                f = re.search(r'IPC ~?([0-9.]+)', below[x:x + 34])
                if f:
                    out[int(m.group(1))] = float(f.group(1))
                    break
    return out


def sparkline(lines, label):
    """The glyphs of the history box's sparkline of label (gaps left out):
    what lies between the label and the figure before the box's border."""
    for line in lines:
        at = line.find('\u2502' + label + ' ')
        if at < 0:
            at = line.find('|' + label + ' ')
        m = re.match(r'(.*?) ~?[0-9.]+[\u2502|]', line[at + 1 + len(label):]) if at >= 0 else None
        if m:
            return m.group(1).replace(' ', '')
    return ''


def main():
    pmctop, events, purl, window, host = sys.argv[1:6]
    window = float(window)
    with open(os.path.join(events, 'fleet', 'columns.txt')) as f:
        nhist = sum(1 for l in f if l.startswith('column ') and ' history' in l)
        f.seek(0)
        ncols = sum(1 for l in f if l.startswith('column '))
    # 15 s of samples at least: the history's points (2 s apart) need a
    # window's samples each, and should outnumber the refreshes by 2 with
    # room for a slow screen.
    deadline = time.time() + 25
    while time.time() < deadline:
        res = prom(purl, f'count_over_time(pmctop_intervals_total{{instance="{host}"}}[20s])')
        if res and float(res[0]['value'][1]) >= 15:
            break
        time.sleep(0.2)
    at = time.time() - 0.5
    ins = rises_by_ccx(purl, 'pmctop_instructions_total', host, window, at)
    cyc = rises_by_ccx(purl, 'pmctop_cycles_total', host, window, at)
    range0, query0 = served(purl, '/api/v1/query_range'), served(purl, '/api/v1/query')
    sock = f'pmctop-fleetdrilltui-{os.getpid()}'
    tmux = ['tmux', '-L', sock, '-f', '/dev/null']
    cmd = (f'{pmctop} --no-config --events-dir {events} --fleet {purl} --fleet-host {host} '
           f'--fleet-at {at:.3f} --fleet-window {window:g} -d 2; sleep 30')
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(os.environ.get('TMPDIR', '/tmp'), sock))
    subprocess.run(tmux + ['new-session', '-d', '-s', 't', '-x', '200', '-y', '50', cmd], env=env, check=True)
    try:
        lines, deadline = [], time.time() + 15
        while time.time() < deadline:
            lines = subprocess.run(tmux + ['capture-pane', '-p', '-t', 't'], capture_output=True,
                                   text=True).stdout.splitlines()
            if len(boxes(lines)) >= 2 and len(sparkline(lines, 'UTIL')) >= 2:
                break
            time.sleep(0.1)
        queries = served(purl, '/api/v1/query') - query0
        ranges = served(purl, '/api/v1/query_range') - range0
    finally:
        subprocess.run(tmux + ['kill-server'], capture_output=True)
    seen = boxes(lines)
    if len(seen) < 2:
        fail(f'{len(seen)} CCX boxes with an IPC on the screen, wanted 2 at least')
    labels = sorted(cyc)
    worst = 0.0
    for i, ipc in sorted(seen.items()):
        if i >= len(labels) or not cyc[labels[i]]:
            fail(f'CCX {i} on the screen, none such in Prometheus ({labels})')
            continue
        want = ins[labels[i]] / cyc[labels[i]]
        worst = max(worst, abs(ipc - want) / want)
        if abs(ipc - want) / want > 0.01:
            fail(f'CCX {i}: IPC {ipc} on the screen, {want:.4f} from its CPUs\' raw samples')
    # The refreshes made by then: each asked a query per column and two
    # (errors, coverages); the fleet's first refresh (the host count) too.
    refreshes = queries // (ncols + 2)
    spark = sparkline(lines, 'UTIL')
    if len(spark) < refreshes + 2:
        fail(f'the UTIL sparkline has {len(spark)} points ("{spark}") after {refreshes} refreshes at most: '
             'not the history from query_range')
    if ranges != nhist:
        fail(f'Prometheus answered {ranges} query_range requests, wanted {nhist} (one per history column)')
    if failed():
        print('\n'.join('  | ' + l for l in lines))
        return 1
    print(f'{host}: CCX IPC {", ".join(f"{v:.2f}" for _, v in sorted(seen.items()))}, worst {worst:.1e} off the '
          f'raw samples; UTIL sparkline of {len(spark)} points after {refreshes} refreshes at most, '
          f'{ranges} query_range requests')
    return 0


sys.exit(main())
