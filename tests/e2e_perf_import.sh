#!/bin/sh
# e2e_perf_import.sh: models imported from Linux perf's event and metric
# files (docs/perf-import.md), from Debian's linux-source-6.12 or
# PMCTOP_PERF_ARCH=DIR (tests/perf_arch.sh; skipped without either).
#  - every x86 and Arm CPU directory loads: its events encode, its metrics
#    evaluate, and what is left out says why (tests/perf_import_all.c);
#  - CPUID fixtures pick the model perf's mapfile names, and a hand-written
#    model where pmctop has one;
#  - the hand-written Zen 3/4/5 and SPR models agree with the imported ones
#    (tests/perf_import_agree.c);
#  - --sim icx (Ice Lake-SP) in batch: topdown level 1 sums to the whole and
#    each level-2 pair to its parent; L3 and memory figures are numbers;
#  - the exporter serves the imported model's metrics; --list-models lists it.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
pmctop=$top_builddir/pmctop
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
daemon=
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
. "$top_srcdir/tests/perf_arch.sh"
fail() { echo "FAIL: $*"; exit 1; }

F=$top_srcdir/tests/fixtures/cpuinfo
"$top_builddir/tests/perf_import_all" "$arch" "$top_srcdir/events" "$tmp/skipped.txt" \
	"$F/perf-import/skylake-sp.txt=perf-skylakex" "$F/perf-import/cascade-lake.txt=perf-cascadelakex" \
	"$F/perf-import/ice-lake-sp.txt=perf-icelakex" "$F/perf-import/granite-rapids.txt=perf-graniterapids" \
	"$F/perf-import/zen2-rome.txt=perf-amdzen2" "$F/perf-import/neoverse-v1-graviton3.txt=perf-neoverse-v1" \
	"$F/perf-import/zen3-milan.txt=amd-zen3" "$F/perf-import/sapphire-rapids.txt=intel-spr" \
	"$F/westmere.txt=intel-westmere" "$F/zen5.txt=amd-zen5" "$F/zen5-turin-dense.txt=amd-zen5" \
	"$F/zen5-strix-point.txt=amd-zen5" "$F/zen5-granite-ridge.txt=amd-zen5" >"$tmp/all.out" || { cat "$tmp/all.out"; fail "perf_import_all"; }
tail -n 11 "$tmp/all.out"

# Where pmctop has a hand-written model too, both agree on every shared
# metric on the same simulated counts, or docs/perf-import.md says why not.
"$top_builddir/tests/perf_import_agree" "$arch" "$top_srcdir/events" "$top_srcdir/docs/perf-import.md" \
	amd-zen3=perf-amdzen3 amd-zen4=perf-amdzen4 amd-zen5=perf-amdzen5 \
	intel-spr=perf-sapphirerapids intel-spr=perf-emeraldrapids || fail "hand-written and imported models disagree"

P="$pmctop --events-dir $top_srcdir/events --perf-events $arch --no-config"
$P --list-models >"$tmp/models.txt"
grep -q "^perf-icelakex  *icx  .*x86/icelakex$" "$tmp/models.txt" || fail "--list-models: no perf-icelakex line"
grep -q "^  (from $arch; used where" "$tmp/models.txt" || fail "--list-models: no source line"

# Topdown: level 1 sums to 1 and each level-2 pair to its level-1 parent, on
# every CPU row and interval (derive_tree.c), and everything is a number.
$P --sim icx -b -n 3 -d 0.3 -g topdown,topdown_l2 --format csv >"$tmp/td.csv" 2>"$tmp/td.err" || fail "batch topdown_l2"
grep -q "SIMULATED counts of imported model perf-icelakex" "$tmp/td.err" || fail "no note on what the simulator knows"
python3 - "$tmp/td.csv" <<'PY' || fail "topdown does not reconcile"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
# perf's TMA metrics under pmctop's names (events/perf/common-intel.def).
l1 = ["frontend_bound", "bad_speculation", "backend_bound", "retiring"]
pairs = {"frontend_bound": ["frontend_bound_latency", "frontend_bound_bw"],
         "bad_speculation": ["bad_speculation_mispredicts", "bad_speculation_pipeline_restarts"],
         "backend_bound": ["backend_bound_memory", "backend_bound_cpu"],
         "retiring": ["retiring_fastpath", "retiring_microcode"]}
for r in rows:
    v = {k: float(r[k]) for k in l1 + sum(pairs.values(), [])}
    assert abs(sum(v[k] for k in l1) - 1) < 1e-5, ("level 1", r["id"], [v[k] for k in l1])
    for p, kids in pairs.items():
        assert abs(v[kids[0]] + v[kids[1]] - v[p]) < 1e-5, (p, r["id"], v[p], [v[k] for k in kids])
    assert v["retiring"] > 0 and v["backend_bound"] > 0, r
print("topdown: %d rows reconcile" % len(rows))
PY

# L3 and memory figures: numbers, in the ranges a machine can give.
$P --sim icx -b -n 2 -d 0.3 -g cache --format json >"$tmp/cache.json" 2>/dev/null || fail "batch cache"
$P --sim icx -b -n 2 -d 0.3 -g memory,memory_bandwidth_read --format json >"$tmp/mem.json" 2>/dev/null || fail "batch memory"
python3 - "$tmp/cache.json" "$tmp/mem.json" <<'PY' || fail "L3 or memory figures"
import json, sys, math
def rows(p):
    return [json.loads(l) for l in open(p) if l.strip()]
def values(rs, name):
    out = []
    for r in rs:
        for scope in ("cpus", "ccxs", "sockets"):
            for row in r.get(scope, []):
                x = row["metrics"].get(name)
                if isinstance(x, (int, float)):
                    out.append(x)
    return out
c, m = rows(sys.argv[1]), rows(sys.argv[2])
# pmctop's common metrics (events/perf/common-intel.def): L3 MPKI per LLC
# domain, DRAM read bandwidth per socket, in GB/s (perf's in MB/s).
l3 = values(c, "l3_mpki")
assert l3 and all(0 <= x < 1000 for x in l3), ("l3_mpki", l3[:5])
bw = values(m, "mem_read_bw")
assert bw and all(0 < x < 1e4 for x in bw), ("mem_read_bw", bw[:5])
perf_bw = values(m, "memory_bandwidth_read")
assert perf_bw and abs(perf_bw[0] / 1e3 - bw[0]) < 1e-6 * perf_bw[0], ("perf's MB/s", perf_bw[0], bw[0])
print("L3 MPKI %d values, DRAM read GB/s %d values" % (len(l3), len(bw)))
PY

# The exporter on an imported model, for the topdown and the memory views.
scrape_view() {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	$P --sim icx --daemon --listen "127.0.0.1:$port" -d 0.2 -g "$1" >"$tmp/daemon.out" 2>&1 &
	daemon=$!
	i=0
	until curl -sf --max-time 2 -o "$tmp/m.txt" "http://127.0.0.1:$port/metrics" && grep -q "$2" "$tmp/m.txt"; do
		i=$((i + 1)); [ $i -lt 50 ] || fail "exporter -g $1: no $2 in /metrics"; sleep 0.2
	done
	kill "$daemon"
	wait "$daemon" 2>/dev/null || true
	daemon=
}
scrape_view topdown_l2 '^pmctop_metric_backend_bound_memory_ratio{'
grep -q '^pmctop_info{model="perf-icelakex",simulated="true"' "$tmp/m.txt" || fail "exporter: no pmctop_info for perf-icelakex"
grep -q '^pmctop_metric_backend_bound_ratio{' "$tmp/m.txt" || fail "exporter: no level-1 topdown series"
scrape_view memory '^pmctop_memory_read_bytes_total{'
echo "exporter: topdown and memory series served"

# A recording of an imported model replays (the model is imported again).
$P --sim icx -b -n 2 -d 0.3 -g topdown -w "$tmp/icx.rec.gz" >/dev/null 2>&1 || fail "recording perf-icelakex"
$P -r "$tmp/icx.rec.gz" -b -g topdown >"$tmp/replay.txt" 2>&1 || { cat "$tmp/replay.txt"; fail "replaying perf-icelakex"; }
grep -q "model perf-icelakex  SIMULATED" "$tmp/replay.txt" || fail "replay: no perf-icelakex heading"
echo "record and replay: $(grep -c '^[0-9]' "$tmp/replay.txt") CPU rows replayed"

# The tasks view (events/perf/tasks.def): per process on the simulated
# machine, with the cycles, IPC and watts of each; and -p is taken on this
# machine's real counters with any imported model (it was refused: the
# imported models had no tasks view).
$P --sim icx -b -n 2 -d 0.3 -g tasks --top 5 --format json >"$tmp/tasks.json" 2>/dev/null || fail "batch tasks"
python3 - "$tmp/tasks.json" <<'PY' || fail "tasks view of perf-icelakex"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
procs = [p for r in rs for p in r["tasks"]]
assert procs, "no processes"
for p in procs:
    m = p["metrics"]
    assert isinstance(m["task_ipc"], (int, float)) and 0 < m["task_ipc"] < 8, m
    assert isinstance(m["task_ghz"], (int, float)) and 0 < m["task_ghz"] < 6, m
print("tasks: %d process rows with IPC and GHz" % len(procs))
PY
# The task outlives the run (a sanitizer build on a slow host took over
# 3 s, and a kill of a process already gone ended the script under set -e).
sleep 60 & sp=$!
$P --model perf-icelakex -b -n 1 -d 0.2 -p $sp >"$tmp/p.txt" 2>&1 || { cat "$tmp/p.txt"; fail "-p with an imported model"; }
kill $sp 2>/dev/null || true
grep -q "model perf-icelakex" "$tmp/p.txt" || fail "-p: $(head -3 "$tmp/p.txt")"
echo "tasks: -p taken with an imported model"
