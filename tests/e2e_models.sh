#!/usr/bin/env bash
# e2e_models.sh: the Zen 3, Zen 4 and Sapphire Rapids models through the real
# pmctop binary on the simulated PMU, as `pmctop --sim X -b --format json`
# prints them: one panel per L3 domain with its L3 figures, IPC and GHz per
# CPU, topdown level 1 where the core has it (summing to one), and DRAM
# bandwidth per socket.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pmctop="$top_builddir/pmctop"
export PMCTOP_EVENTS_DIR="$top_srcdir/events"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read JSON"; exit 77; }

# MODEL SHAPE CPUS L3DOMAINS SOCKETS TOPDOWN MEMORY-METRICS
while read -r model shape ncpu nccx nsock topdown mem; do
	out=$("$pmctop" --sim "$model:$shape" -b -n 2 -d 0.5 --format json) || {
		fail "--sim $model:$shape exited $?"
		continue
	}
	printf '%s\n' "$out" | NCPU="$ncpu" NCCX="$nccx" NSOCK="$nsock" TOPDOWN="$topdown" MEM="$mem" python3 -c '
import json, os, sys
env = os.environ
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 2, "want 2 JSON lines, got %d" % len(lines)
for l in lines:
    o = json.loads(l)
    assert o["simulated"] is True
    assert len(o["cpus"]) == int(env["NCPU"]), len(o["cpus"])
    assert len(o["ccxs"]) == int(env["NCCX"]), len(o["ccxs"])
    assert len(o["sockets"]) == int(env["NSOCK"]), len(o["sockets"])
    for c in o["cpus"]:
        m = c["metrics"]
        if m["util"] > 50:
            assert 0.1 < m["ipc"] < 8 and 1 < m["ghz"] < 6, m
    for c in o["ccxs"]:
        m = c["metrics"]
        assert m.get("l3_hit_rate") is not None and 0 <= m["l3_hit_rate"] <= 1, m
        assert 30 < m["l3_miss_latency_ns"] < 300, m
        assert m["l3_miss_latency_cycles"] > m["l3_miss_latency_ns"], m
    sm = o["system"]["metrics"]
    names = ("frontend_bound", "bad_speculation", "backend_bound", "retiring")
    if env["TOPDOWN"] == "yes":
        td = sum(sm[k] for k in names) + (sm.get("smt_contention") or 0)
        assert abs(td - 1) < 0.05, "topdown level 1 sums to %f" % td
    else:
        assert not any(k in sm for k in names), "no topdown expected"
    for s in o["sockets"]:
        for k in env["MEM"].split(","):
            assert s["metrics"].get(k) is not None and s["metrics"][k] > 0, (k, s["metrics"])
' || fail "--sim $model:$shape JSON"
done <<'CASES'
zen4 1x4x8x2 64 4 1 yes mem_read_bw,mem_write_bw
zen4 2x12x8x2 384 24 2 yes mem_read_bw,mem_write_bw
zen3 1x4x8x2 64 4 1 no mem_bw
spr 1x1x16x2 32 1 1 yes mem_read_bw,mem_write_bw
spr 2x1x8x2 32 2 2 yes mem_read_bw,mem_write_bw
CASES

# The raw listing shows the topdown events as raw values: the kernel's
# PERF_METRICS pseudo-encoding for topdown-be-bound.
"$pmctop" --model spr --list-metrics --raw | grep -q 'Event\[0x8300\]' || fail "--list-metrics --raw: topdown-be-bound (PERF_METRICS)"

[ "$fails" -eq 0 ] || exit 1
echo "models ok"
