#!/usr/bin/env python3
"""bounds_survey.py: what pmctop shows on the simulated PMU, held against what
can physically be, over every view and metric group of a model.

For each --sim spec it runs `pmctop -b --format json` once per view and per
metric group (seeded, fast-forwarded) and counts, over every CPU-interval:
  - figures outside physical bounds shown as a plain number (a value with a
    stated uncertainty whose 95 % interval is within +-10 %, i.e. no '~'):
    a share (unit ratio) outside 0..1, GHz above the simulated part's highest
    clock, IPC above its dispatch width, any figure below 0;
  - topdown trees that do not add up within 0.001: the level-1 shares to 1,
    each level-2 pair to its parent;
  - figures shown at their upper bound with no stated uncertainty: those
    that crossed it and were set to it (derive_bounds.c), marked '~'.
The bounds come from the model's own `sim` line (the simulated part), not
from pmctop's metric definitions.

Every row scope is held to the bounds: CPU, core, CCX (LLC), socket and
the system row.

Usage: bench/bounds_survey.py [PMCTOP] [--intervals N] [--perf-events DIR] [--events-dir DIR] [SPEC...]
  default specs: zen5:2x12x8x2 zen4 zen3 spr; imported models (icx, skx,
  perf-sapphirerapids, ...) need --perf-events with Linux perf's files
       bench/bounds_survey.py --calibration LOG [DUMP]
  the calibration tables of docs/calibration.md from the output of
  tests/check_truth (LOG) and, per model, from its PMCTOP_TRUTH_DUMP file.
"""
import json
import os
import re
import subprocess
import sys

LEVEL1 = ['frontend_bound', 'bad_speculation', 'backend_bound', 'retiring', 'smt_contention']
LEVEL2 = {
    'frontend_bound': ['frontend_bound_latency', 'frontend_bound_bw'],
    'bad_speculation': ['bad_speculation_mispredicts', 'bad_speculation_pipeline_restarts'],
    'backend_bound': ['backend_bound_memory', 'backend_bound_cpu'],
    'retiring': ['retiring_fastpath', 'retiring_microcode'],
}
# Ratios of two clocks, not shares: unit ratio, but above 1 in Turbo.
NOT_SHARES = {'freq_ratio'}


def sim_args(text):
    return dict(kv.split('=') for kv in text.split(',')) if text else {}


def imported_part(top, model):
    """An imported model's sim line from events/perf/models.txt (by alias or
    perf-DIR name), or that of the hand-written model it simulates from."""
    for line in open(os.path.join(top, 'events', 'perf', 'models.txt')):
        w = line.split()
        if not w or w[0].startswith('#'):
            continue
        kv = dict(x.split('=', 1) for x in w[1:] if '=' in x and not x.startswith('desc='))
        if model not in ('perf-' + w[0], kv.get('alias')):
            continue
        if 'sim' in kv:
            a = sim_args(kv['sim'])
            return float(a.get('ghz', 'nan')), float(a.get('width', 'nan'))
        if 'simfrom' in kv:
            return sim_part(top, kv['simfrom'])
    return None


def sim_part(top, model):
    """ghz and width of the simulated part, from the model's sim line."""
    part = imported_part(top, model)
    if part:
        return part
    for root, _, files in os.walk(os.path.join(top, 'events')):
        if 'model.def' not in files:
            continue
        text = open(os.path.join(root, 'model.def')).read()
        if not re.search(r'^\s*(model\s+\S*%s|alias\s+%s)\b' % (model, model), text, re.M):
            continue
        m = re.search(r'^\s*sim\s+(\S+)', text, re.M)
        args = dict(kv.split('=') for kv in m.group(1).split(',')) if m else {}
        return float(args.get('ghz', 'nan')), float(args.get('width', 'nan'))
    return float('nan'), float('nan')


EXTRA = []   # --perf-events DIR, for the imported models
SCOPES = ('cpus', 'cores', 'ccxs', 'sockets')


def views_and_groups(pmctop, spec):
    out = subprocess.run([pmctop] + EXTRA + ['--sim', spec, '--list-views'], capture_output=True, text=True).stdout
    names, section = [], 'views'
    for line in out.splitlines():
        if line.startswith('METRIC GROUP'):
            section = 'groups'
            continue
        if line and not line[0].isspace() and not line.startswith('VIEW'):
            names.append(line.split()[0])
    return [n for n in names if n != 'tasks']


def plain(rse):
    return rse is not None and 1.96 * rse <= 0.10


def survey(pmctop, top, spec, intervals):
    model = spec.split(':')[0]
    ghz_max, width = sim_part(top, model)
    t = {'cpu_intervals': 0, 'figures': 0, 'out_of_bounds': 0, 'out_plain': 0, 'trees': 0, 'trees_off': 0,
         'worst_tree': 0.0, 'upper_marked': 0}
    examples = []
    for n, what in enumerate(views_and_groups(pmctop, spec)):
        cmd = [pmctop] + EXTRA + ['--sim', '%s,ff=1,seed=%d' % (spec, n + 1), '-b', '--format', 'json', '-n',
                                  str(intervals), '-g', what]
        p = subprocess.run(cmd, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            d = json.loads(line)
            units = d.get('units', {})
            rows = [(sc, r) for sc in SCOPES for r in d.get(sc, [])]
            if d.get('system'):
                rows.append(('system', d['system']))
            for scope, row in rows:
                t['cpu_intervals'] += scope == 'cpus'
                mv, rs = row['metrics'], row['rse']
                for k, v in mv.items():
                    if v is None:
                        continue
                    t['figures'] += 1
                    u = units.get(k)
                    # Counts and ratios of counts: nothing physical is below 0.
                    bad = v < -1e-9 or \
                          (u == 'ratio' and k not in NOT_SHARES and not -1e-9 <= v <= 1 + 1e-9) or \
                          (u == 'GHz' and v > ghz_max * (1 + 1e-9)) or \
                          (k == 'ipc' and v > width * (1 + 1e-9))
                    # Set to its upper bound (derive_bounds.c) and so marked:
                    # shown, but not as a measurement.
                    upper = (u == 'ratio' and k not in NOT_SHARES and v == 1) or (u == 'GHz' and v == ghz_max) or \
                            (k == 'ipc' and v == width)
                    t['upper_marked'] += upper and rs.get(k) is None
                    if bad:
                        t['out_of_bounds'] += 1
                        if plain(rs.get(k)):
                            t['out_plain'] += 1
                            if len(examples) < 5:
                                examples.append('%s -g %s %s %s: %s = %g rse %s' % (spec, what, scope,
                                                                                    row.get('id', row.get('cpu', '')),
                                                                                    k, v, rs.get(k)))
                l1 = [mv.get(k) for k in LEVEL1 if k in mv]
                if len(l1) >= 4 and all(x is not None for x in l1):
                    t['trees'] += 1
                    off = abs(sum(l1) - 1)
                    t['worst_tree'] = max(t['worst_tree'], off)
                    t['trees_off'] += off > 1e-3
                for parent, kids in LEVEL2.items():
                    vals = [mv.get(k) for k in [parent] + kids]
                    if all(x is not None for x in vals):
                        t['trees'] += 1
                        off = abs(vals[1] + vals[2] - vals[0])
                        t['worst_tree'] = max(t['worst_tree'], off)
                        t['trees_off'] += off > 1e-3
    return t, examples


def calibration(log, dump):
    """Markdown tables: per model from the dump (every judged figure), per
    metric from the log's lines against the physical truth."""
    if dump:
        per = {}
        for line in open(dump):
            run, what, est, truth, rse, cov = line.rstrip('\n').split('\t')
            est, truth, rse = float(est), float(truth), float(rse)
            if rse != rse:
                continue
            t = per.setdefault(run.split()[0], [0, 0, 0])
            z = abs(est - truth) / (rse * abs(est))
            t[0] += 1
            t[1] += z <= 1.96
            t[2] += z > 5 and not 1.96 * rse > 0.10
        print('| model | figures with a stated error | 95 % intervals covering the truth | '
              'misses > 5 SE without `~` |')
        print('| --- | ---: | ---: | ---: |')
        for m, t in per.items():
            print('| %s | %d | %.1f %% | %d |' % (m, t[0], 100.0 * t[1] / t[0], t[2]))
        print()
    print('| model | metric | figures | inside the 95 % interval | with a stated error | inside |')
    print('| --- | --- | ---: | ---: | ---: | ---: |')
    pat = re.compile(r'^\s+physical (\S+) (\S+)\s+(\d+)\s+([\d.]+) %; with a stated error\s+(\d+)\s+(\S+) %')
    for line in open(log):
        m = pat.match(line)
        if m and int(m.group(5)) >= 500:
            print('| %s | %s | %s | %s %% | %s | %s %% |' % m.groups())
    return 0


def main():
    args = sys.argv[1:]
    if args and args[0] == '--calibration':
        return calibration(args[1], args[2] if len(args) > 2 else None)
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pmctop = os.path.join(top, 'pmctop')
    if args and os.path.sep in args[0]:
        pmctop = args.pop(0)
    intervals = 30
    for opt in ('--perf-events', '--events-dir'):
        if opt in args:
            i = args.index(opt)
            EXTRA.extend(args[i:i + 2])
            del args[i:i + 2]
    if '--intervals' in args:
        i = args.index('--intervals')
        intervals = int(args[i + 1])
        del args[i:i + 2]
    specs = args or ['zen5:2x12x8x2', 'zen4', 'zen3', 'spr']
    bad = 0
    for spec in specs:
        t, ex = survey(pmctop, top, spec, intervals)
        print('%-14s %8d CPU-intervals %9d figures: %d outside physical bounds, %d of them shown plain; '
              '%d at their upper bound, marked; %d trees, %d off by more than 0.001 (worst %.2g)' %
              (spec, t['cpu_intervals'], t['figures'], t['out_of_bounds'], t['out_plain'], t['upper_marked'],
               t['trees'], t['trees_off'], t['worst_tree']))
        for e in ex:
            print('    ' + e)
        bad += t['out_plain'] + t['trees_off']
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
