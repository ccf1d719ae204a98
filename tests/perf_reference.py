#!/usr/bin/env python3
"""perf_reference.py: pmctop's models held against Linux perf's own event
and metric files (tools/perf/pmu-events/arch/x86 of a kernel tree), an
outside judge written by the CPU vendors and the perf maintainers.

For every pmctop model whose CPUs perf's mapfile.csv names (picked by CPUID
as perf picks: the first row whose pattern matches Vendor-Family-Model):
  - cpu: each model number pmctop matches goes to one perf directory of the
    same generation;
  - event: every pmctop event that perf also names has perf's encoding
    (event select, unit mask, counter mask, invert, edge, the uncore
    fields, and the PMU);
  - metric: every pmctop metric that names its perf counterpart (`perf` in
    its definition) gives perf's value on random counts (1,000 vectors),
    perf's MetricExpr evaluated here with perf's rules (d_ratio is 0 on a
    zero divisor, `a if c else b`, min, max, #smt_on, duration_time in
    seconds, ScaleUnit), converted to pmctop's unit.
Random counts are "physical": every hardware event is the sum of the unit
mask cases it selects (on AMD, where unit mask bits select cases), so a
formula that leaves out a case, or a mask narrower than its name, shows.
Every disagreement must be listed in one of the errata files given
(docs/*-errata.md: model, kind, name, and the vendor document that decides
it); one that is not, or a listed one that no longer disagrees, fails the
test.

Usage: perf_reference.py ARCH_X86_DIR MODEL_DUMP_JSON ERRATA_MD... [--suggest]
"""
import glob
import json
import math
import os
import random
import re
import sys

# ---------------------------------------------------------------- perf files


def posix_re(p):
    """perf's mapfile patterns are POSIX extended regexes."""
    return p.replace('[[:xdigit:]]', '[0-9A-Fa-f]')


def load_mapfile(arch):
    rows = []
    with open(os.path.join(arch, 'mapfile.csv')) as f:
        for line in f:
            parts = line.strip().split(',')
            if len(parts) < 4 or parts[0] == 'Family-model' or parts[3] != 'core':
                continue
            rows.append((re.compile(posix_re(parts[0])), parts[0], parts[2]))
    return rows


def perf_dir_for(rows, vendor, family, model):
    """The directory perf picks for this CPU: the first row that matches.
    perf's CPUID string is Vendor-Family-Model-Stepping (decimal family,
    hex model and stepping); a row without a stepping matches any."""
    for rx, pat, d in rows:
        if pat.count('-') >= 3:
            if any(rx.fullmatch('%s-%d-%X-%X' % (vendor, family, model, s)) for s in range(16)):
                return d
        elif rx.fullmatch('%s-%d-%X' % (vendor, family, model)):
            return d
    return None


def load_perf_dir(path):
    events, metrics = {}, {}
    for fn in sorted(glob.glob(os.path.join(path, '*.json'))):
        with open(fn) as f:
            for e in json.load(f):
                if 'EventName' in e:
                    events.setdefault(e['EventName'].lower(), e)
                if 'MetricName' in e:
                    metrics.setdefault(e['MetricName'], e)
    return events, metrics


def num(v):
    if v is None:
        return 0
    v = str(v).split(',')[0].strip()
    return int(v, 0)


# pmctop's hardware field names and the keys of perf's JSON.
FIELD_KEYS = {
    'event': 'EventCode', 'umask': 'UMask', 'cmask': 'CounterMask', 'inv': 'Invert',
    'edge': 'EdgeDetect', 'enallcores': 'EnAllCores', 'enallslices': 'EnAllSlices',
    'sliceid': 'SliceId', 'threadmask': 'ThreadMask', 'rdwrmask': 'RdWrMask',
}
# pmctop's Linux PMU names and perf's Unit.
UNITS = {'cpu': ('', 'cpu', 'core'), 'amd_l3': ('L3PMC',), 'amd_umc_*': ('UMCPMC',),
         'amd_df': ('DFPMC',), 'uncore_cha_*': ('CHA',), 'uncore_imc_*': ('iMC',)}


def kernel_l3(f):
    """What the kernel's amd_uncore driver programs for an L3 event of
    family 19h and later (l3_thread_slice_mask): without a thread mask it
    counts every core, thread and slice. perf's files leave those fields
    out; pmctop writes them. Both mean the same register value."""
    if f.get('threadmask', 0) == 0:
        f = dict(f, threadmask=3, enallslices=1, enallcores=1)
    return f


def perf_fields(e):
    f = {k: num(e.get(v)) for k, v in FIELD_KEYS.items()}
    return kernel_l3(f) if e.get('Unit') == 'L3PMC' else f


def pmctop_fields(ev):
    if ev['enc'] == 'raw':
        f = dict(ev['fields'])
    elif ev['enc'] == 'fields':
        f = {}
        for part in ev['spec'].split(','):
            k, _, v = part.partition('=')
            f[k.strip()] = int(v, 0) if v else 1
    else:
        return None
    f = {k: f.get(k, 0) for k in FIELD_KEYS}
    return kernel_l3(f) if ev['perf_pmu'] == 'amd_l3' else f


# ------------------------------------------------------------ "physical" counts

class Counts:
    """Random counts for one vector: every hardware event is the sum of the
    cases its unit mask selects, each case a random count of its own."""

    def __init__(self, rng, amd):
        self.rng, self.amd, self.atoms = rng, amd, {}

    def atom(self, key):
        if key not in self.atoms:
            self.atoms[key] = self.rng.uniform(1e6, 1e9)
        return self.atoms[key]

    def value(self, unit, f):
        rest = tuple(sorted((k, v) for k, v in f.items() if k not in ('umask', 'rdwrmask')))
        mask_key = 'rdwrmask' if unit == 'UMCPMC' else 'umask'
        mask = f.get(mask_key, 0)
        if unit == 'UMCPMC' and mask == 0:
            mask = 3          # neither bit set: reads and writes
        threshold = f.get('cmask', 0) or f.get('inv', 0) or f.get('edge', 0)
        if not self.amd or threshold or mask == 0:
            return self.atom((unit, rest, mask_key, mask))
        return sum(self.atom((unit, rest, mask_key, 1 << b)) for b in range(64) if mask >> b & 1)


# The kernel's own events that perf's metrics name (arch/x86/events):
# generic instructions and cycles per vendor, and Intel's topdown events
# with their sysfs encodings.
KERNEL_EVENTS = {
    ('amd', 'instructions'): {'event': 0xc0}, ('amd', 'cycles'): {'event': 0x76},
    ('intel', 'instructions'): {'event': 0xc0}, ('intel', 'cycles'): {'event': 0x3c},
    ('intel', 'slots'): {'event': 0, 'umask': 0x04},
    ('intel', 'topdown-retiring'): {'event': 0, 'umask': 0x80},
    ('intel', 'topdown-bad-spec'): {'event': 0, 'umask': 0x81},
    ('intel', 'topdown-fe-bound'): {'event': 0, 'umask': 0x82},
    ('intel', 'topdown-be-bound'): {'event': 0, 'umask': 0x83},
    ('intel', 'topdown-heavy-ops'): {'event': 0, 'umask': 0x84},
    ('intel', 'topdown-br-mispredict'): {'event': 0, 'umask': 0x85},
    ('intel', 'topdown-fetch-lat'): {'event': 0, 'umask': 0x86},
    ('intel', 'topdown-mem-bound'): {'event': 0, 'umask': 0x87},
}


# ------------------------------------------------------- perf's expressions

class Unsupported(Exception):
    pass


TOKEN = re.compile(r'\s*(?:(?P<num>0x[0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?)|(?P<op>[-+*/%()<>,&|^]|==))')


def tokenize_perf(text):
    """perf's lexer: names may hold escaped characters (\\- \\, \\=) and
    pmu@event,field=value@ forms."""
    out, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        c = text[i]
        if c.isalpha() or c in '_#@\\':
            j, name = i, ''
            while j < len(text) and (text[j].isalnum() or text[j] in '_.#@\\:'):
                if text[j] == '\\' and j + 1 < len(text):
                    name += text[j + 1]
                    j += 2
                else:
                    name += text[j]
                    j += 1
            out.append(('name', name))
            i = j
            continue
        m = TOKEN.match(text, i)
        if not m:
            raise Unsupported('cannot read %r' % text[i:])
        out.append(('num', m.group('num')) if m.group('num') else ('op', m.group('op')))
        i = m.end()
    return out


def d_ratio(a, b):
    return 0.0 if b == 0 else a / b


class PerfModel:
    def __init__(self, vendor, events, metrics):
        self.vendor, self.events, self.metrics = vendor, events, metrics

    def event_value(self, name, counts):
        pmu, overrides = None, {}
        if '@' in name:
            pmu, _, inner = name.strip('@').partition('@')
            parts = inner.split(',')
            name = parts[0]
            for p in parts[1:]:
                k, _, v = p.partition('=')
                overrides[k] = int(v, 0) if v else 1
        base = name.lower()
        if (self.vendor, base) in KERNEL_EVENTS:
            f, unit = dict(KERNEL_EVENTS[(self.vendor, base)]), ''
        elif base in self.events:
            e = self.events[base]
            f, unit = perf_fields(e), e.get('Unit', '')
        else:
            raise Unsupported('no event %s' % name)
        f = {k: f.get(k, 0) for k in FIELD_KEYS}
        f.update({k: v for k, v in overrides.items() if k in FIELD_KEYS})
        return counts.value('' if unit in ('cpu', 'core') else unit, f)

    def eval(self, metric, counts, duration, depth=0):
        if depth > 20:
            raise Unsupported('metrics refer to each other in a loop')
        m = self.metrics[metric]
        toks = tokenize_perf(m['MetricExpr'])
        py, env = [], {'d_ratio': d_ratio, 'min': min, 'max': max}
        for kind, t in toks:
            if kind != 'name':
                py.append(t)
            elif t in ('if', 'else', 'min', 'max', 'd_ratio'):
                py.append(t)
            elif t == 'duration_time':
                py.append(repr(duration))
            elif t == '#smt_on':
                py.append('1')
            elif t.startswith('#') or t in ('source_count', 'has_event', 'strcmp_cpuid_str'):
                raise Unsupported('perf literal %s' % t)
            elif t in self.metrics:
                py.append(repr(self.eval(t, counts, duration, depth + 1)))
            else:
                py.append(repr(self.event_value(t, counts)))
        try:
            return float(eval(' '.join(py), {'__builtins__': {}}, env))
        except ZeroDivisionError:
            return math.nan

    def value(self, name, counts, duration):
        """A metric of perf's, or one of the events that its
        recommended.json defines in a metric's place (amdzen3's
        `l2_itlb_misses`): their count."""
        if name in self.metrics:
            return self.eval(name, counts, duration)
        return self.event_value(name, counts)

    def has(self, name):
        return name in self.metrics or name.lower() in self.events

    def instructions(self, counts):
        f = {k: KERNEL_EVENTS[(self.vendor, 'instructions')].get(k, 0) for k in FIELD_KEYS}
        return counts.value('', f)

    def scale(self, metric):
        """ScaleUnit: a factor, then the unit perf shows."""
        if metric not in self.metrics:
            return 1.0, ''
        su = self.metrics[metric].get('ScaleUnit', '1')
        m = re.match(r'([0-9.eE+-]+)(.*)', su)
        return (float(m.group(1)), m.group(2)) if m else (1.0, su)


# ----------------------------------------------------- pmctop's formulas

class PmctopModel:
    def __init__(self, dump):
        self.dump = dump
        self.events = {e['name']: e for e in dump['events']}
        self.metrics = {m['name']: m for m in dump['metrics']}
        self.pmus = {p['name']: p['perf'] for p in dump['pmus']}

    def eval(self, metric, counts, duration, depth=0):
        if depth > 20:
            raise Unsupported('loop')
        text = self.metrics[metric]['formula']
        py = []
        for m in re.finditer(r'\s*([A-Za-z_][A-Za-z0-9_.]*|[0-9.]+(?:[eE][+-]?\d+)?|0x[0-9a-fA-F]+|\S)', text):
            t = m.group(1)
            if re.match(r'[A-Za-z_]', t):
                if t in ('min', 'max', 'abs'):
                    py.append(t)
                elif t == 'interval_s':
                    py.append(repr(duration))
                elif t in self.metrics:
                    py.append(repr(self.eval(t, counts, duration, depth + 1)))
                elif t in self.events:
                    ev = self.events[t]
                    f = pmctop_fields(ev)
                    if f is None:
                        raise Unsupported('event %s is not a hardware encoding' % t)
                    unit = UNITS.get(ev['perf_pmu'], ('?',))[0]
                    py.append(repr(counts.value(unit, f)))
                else:
                    raise Unsupported('name %s' % t)
            else:
                py.append(t)
        try:
            return float(eval(' '.join(py), {'__builtins__': {}}, {'min': min, 'max': max, 'abs': abs}))
        except ZeroDivisionError:
            return math.nan


# pmctop's unit and perf's ScaleUnit unit: the factor from pmctop's value to
# perf's scaled one.
UNIT_FACTORS = {
    ('ratio', '%'): 100, ('ratio', '%slots'): 100, ('ratio', '%ops'): 100, ('ratio', 'per_branch'): 1,
    ('ratio', ''): 1,
    ('/kinsn', 'per_1k_instr'): 1, ('/insn', 'per_instr'): 1, ('/insn', ''): 1,
    ('count', ''): 1, ('count', 'slots'): 1, ('slots', 'slots'): 1, ('slots', ''): 1,
    ('ns', 'ns'): 1, ('GB/s', 'MB/s'): 1e3, ('MB/s', 'MB/s'): 1,
    ('insn/cyc', ''): 1, ('cyc/insn', ''): 1, ('GHz', ''): 1, ('GHz', 'GHz'): 1,
    ('cycles', ''): 1, ('cyc', ''): 1, ('GFLOP/s', ''): 1,
}
# A count of pmctop's against perf's figure per thousand instructions (its
# amdzen5 metrics are all "_pti"): perf's value times instructions / 1000,
# the instructions being the kernel's event on the same random counts.
PER_KINSN_UNITS = {('count', 'per_1k_instr')}


def compare_metric(pm, perf, name, perf_name, rng, amd, n=1000):
    """Worst relative difference over n vectors; None when all agree."""
    unit = pm.metrics[name]['unit']
    factor, perf_unit = perf.scale(perf_name)
    conv = UNIT_FACTORS.get((unit, perf_unit))
    per_kinsn = (unit, perf_unit) in PER_KINSN_UNITS
    if conv is None and not per_kinsn:
        return 'no conversion from pmctop unit %r to perf unit %r' % (unit, perf_unit)
    worst, where = 0.0, None
    for _ in range(n):
        counts = Counts(rng, amd)
        duration = rng.uniform(0.1, 10)
        a = pm.eval(name, counts, duration)
        b = perf.value(perf_name, counts, duration) * factor
        if per_kinsn:
            b *= perf.instructions(counts) / 1000
        else:
            a *= conv
        if math.isnan(a) and math.isnan(b):
            continue
        d = abs(a - b) / max(abs(a), abs(b), 1e-300)
        if not d <= worst:
            worst, where = d, (a, b)
    if worst > 1e-9:
        return 'pmctop %.6g, perf %.6g (%.3g apart)' % (where[0], where[1], worst)
    return None


# ------------------------------------------------------------- the errata

def load_errata(paths):
    """The rows | model | kind | name | decision | of the errata files'
    tables (docs/zen3-zen4-errata.md, docs/zen5-errata.md,
    docs/intel-errata.md): every decision against perf lives with the
    other decisions about the same vendor document. A row must name the
    document that settles it, so an empty decision is no row."""
    out = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                cells = [c.strip().strip('`') for c in line.strip().strip('|').split('|')]
                if len(cells) >= 4 and cells[1] in ('cpu', 'event', 'metric') and line.startswith('|') \
                        and cells[3]:
                    key = (cells[0], cells[1], cells[2])
                    if key in out:
                        raise SystemExit('%s: %s %s %s is listed twice' % (path, *key))
                    out[key] = cells[3:]
    return out


# ------------------------------------------------------------------- main

def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    suggest = '--suggest' in sys.argv
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    arch, dump_path, errata_paths = args[0], args[1], args[2:]
    rows = load_mapfile(arch)
    with open(dump_path) as f:
        models = json.load(f)
    errata = load_errata(errata_paths)
    found = {}
    rng = random.Random(1)
    # Which perf directory each pmctop model's CPUs get, to tell a directory
    # of another pmctop model from one of the same CPUs under several names
    # (Sapphire and Emerald Rapids; Westmere EP and EX).
    # A directory belongs to the pmctop model that most of its CPUs get.
    picked = {}
    for dm in models:
        for mm in dm['match']:
            if mm['family'] >= 0 and mm['model_hi'] - mm['model_lo'] <= 255:
                for model in range(mm['model_lo'], mm['model_hi'] + 1):
                    d = perf_dir_for(rows, mm['vendor'], mm['family'], model)
                    picked.setdefault(d, {}).setdefault(dm['name'], 0)
                    picked[d][dm['name']] += 1
    owner = {d: max(c, key=c.get) for d, c in picked.items()}
    tally = {'models': 0, 'cpus': 0, 'events': 0, 'events_equal': 0, 'events_pmctop_only': 0,
             'metrics': 0, 'metrics_equal': 0}
    for dm in models:
        name = dm['name']
        vendor = {'AuthenticAMD': 'amd', 'GenuineIntel': 'intel'}
        dirs = {}
        for mm in dm['match']:
            if mm['vendor'] not in vendor or mm['family'] < 0 or mm['model_hi'] - mm['model_lo'] > 255:
                continue        # a model for every CPU of a vendor: nothing to hold it to
            for model in range(mm['model_lo'], mm['model_hi'] + 1):
                d = perf_dir_for(rows, mm['vendor'], mm['family'], model)
                tally['cpus'] += 1
                dirs.setdefault(d, []).append(model)
        dirs.pop(None, None)
        if not dirs:
            continue
        tally['models'] += 1
        v = vendor[dm['match'][0]['vendor']]
        others = {d: ms for d, ms in dirs.items() if owner[d] != name}
        if others:
            desc = '; '.join('%s (%s) for %s' % (d, owner[d],
                                                   ','.join('0x%x' % x for x in ms)) for d, ms in sorted(others.items()))
            found[(name, 'cpu', 'cpuid')] = 'perf gives some of its CPUs the files of another model: ' + desc
        pm = PmctopModel(dm)
        for d in sorted(set(dirs) - set(others)):
            pevents, pmetrics = load_perf_dir(os.path.join(arch, d))
            perf = PerfModel(v, pevents, pmetrics)
            for ev in dm['events']:
                f = pmctop_fields(ev)
                if f is None or ev['perf_pmu'] in ('software', 'proc'):
                    continue
                # perf names a unit mask of every case `EVENT` where pmctop
                # writes `EVENT.all` (amdzen3's bp_l1_tlb_miss_l2_tlb_miss).
                pe = pevents.get(ev['name'].lower())
                if pe is None and ev['name'].lower().endswith('.all'):
                    pe = pevents.get(ev['name'].lower()[:-4])
                if pe is None:
                    tally['events_pmctop_only'] += 1
                    continue
                tally['events'] += 1
                pf = perf_fields(pe)
                diffs = ['%s 0x%x, perf 0x%x' % (k, f[k], pf[k]) for k in FIELD_KEYS if f[k] != pf[k]]
                unit = pe.get('Unit', '')
                if unit not in UNITS.get(ev['perf_pmu'], (unit,)):
                    diffs.append('PMU %s, perf Unit %s' % (ev['perf_pmu'], unit))
                if diffs:
                    found[(name, 'event', ev['name'])] = '%s: %s' % (d, '; '.join(diffs))
                else:
                    tally['events_equal'] += 1
            for mt in dm['metrics']:
                pn = mt.get('perf')
                if suggest and not pn:
                    for cand in pmetrics:
                        try:
                            if compare_metric(pm, perf, mt['name'], cand, random.Random(2), v == 'amd', 50) is None:
                                print('suggest: %s %s perf %s' % (name, mt['name'], cand))
                        except (Unsupported, KeyError, TypeError):
                            pass
                if not pn:
                    continue
                if not perf.has(pn):
                    found[(name, 'metric', mt['name'])] = '%s has no metric %s' % (d, pn)
                    continue
                tally['metrics'] += 1
                try:
                    why = compare_metric(pm, perf, mt['name'], pn, rng, v == 'amd')
                except Unsupported as e:
                    why = 'cannot be evaluated: %s' % e
                if why:
                    found[(name, 'metric', mt['name'])] = '%s %s: %s' % (d, pn, why)
                else:
                    tally['metrics_equal'] += 1
    bad = 0
    for key, why in sorted(found.items()):
        listed = key in errata
        print('%s %s %s %s: %s' % ('erratum' if listed else 'DISAGREES', key[0], key[1], key[2], why))
        bad += not listed
    for key in sorted(set(errata) - set(found)):
        print('STALE erratum (no disagreement any more): %s %s %s' % key)
        bad += 1
    print('perf reference: %(models)d models, %(cpus)d CPU models; events: %(events)d compared, '
          '%(events_equal)d equal, %(events_pmctop_only)d not named by perf; metrics: %(metrics)d compared, '
          '%(metrics_equal)d equal' % tally + '; errata: %d listed, %d not listed' % (len(errata), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
