#!/usr/bin/env bash
# e2e_batch.sh: runs the real pmctop binary in batch mode, as a user would,
# and checks what it prints: the simulated Zen 5 in JSON (shape, scopes,
# metric sanity), the real perf_event backend on this machine's software
# counters, and the exit status and message for bad usage.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
# The source tree's definitions, named outright: PMCTOP_EVENTS_DIR is
# ignored when the tests run as root.
pm=("$top_builddir/pmctop" --events-dir "$top_srcdir/events")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read JSON"; exit 77; }

# 1. Simulated Zen 5, default shape 1x2x8x2: 32 CPUs, 2 CCX.
out=$("${pm[@]}" --sim zen5 -b -n 3 -d 0.5 --format json) || fail "--sim zen5 -b exited $?"
printf '%s\n' "$out" | python3 -c '
import json, sys, math
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 3, "want 3 JSON lines, got %d" % len(lines)
for l in lines:
    o = json.loads(l)
    assert o["simulated"] is True
    assert len(o["cpus"]) == 32, len(o["cpus"])
    assert len(o["ccxs"]) == 2, len(o["ccxs"])
    sm = o["system"]["metrics"]
    for k in ("ipc", "ghz", "frontend_bound", "bad_speculation", "backend_bound", "retiring"):
        assert k in sm and sm[k] is not None, "system lacks " + k
    # Zen 5 splits unused slots into frontend, backend and SMT contention.
    td = sm["frontend_bound"] + sm["bad_speculation"] + sm["backend_bound"] + sm["retiring"] + (sm.get("smt_contention") or 0)
    assert abs(td - 1) < 0.1, "topdown level 1 sums to %f" % td
    for c in o["ccxs"]:
        m = c["metrics"]
        assert m.get("l3_hit_rate") is not None and 0 <= m["l3_hit_rate"] <= 1, m
        assert m.get("l3_miss_latency_ns") is not None and m["l3_miss_latency_ns"] > 0, m
    for c in o["cpus"]:
        for k, v in c["coverage"].items():
            assert v is None or 0 <= v <= 1.0001, (k, v)
print("sim json ok")
' || fail "simulated JSON"

# 2. Real counters on this machine: one row per online CPU, software figures.
ncpu=$(grep -c '^processor' /proc/cpuinfo)
if out=$("${pm[@]}" -b -n 2 -d 0.3 --format json 2>"${TMPDIR:-/tmp}/pmctop-e2e.err"); then
	printf '%s\n' "$out" | NCPU="$ncpu" python3 -c '
import json, os, sys
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 2
for l in lines:
    o = json.loads(l)
    assert o["simulated"] is False
    assert len(o["cpus"]) == int(os.environ["NCPU"]), len(o["cpus"])
    for c in o["cpus"]:
        u = c["metrics"].get("util")
        assert u is not None and 0 <= u <= 100.5, u
print("real json ok")
' || fail "real-counter JSON"
	# Where the kernel gives no hardware counter at all (a VM without a
	# virtual PMU), that one line says it: no line about how the missing
	# counters' events would have been encoded (Sapphire Rapids' slots).
	"${pm[@]}" --model intel-spr -b -n 1 -d 0.1 >/dev/null 2>"${TMPDIR:-/tmp}/pmctop-e2e-spr.err"
	if grep -q "hardware counters: not available" "${TMPDIR:-/tmp}/pmctop-e2e-spr.err"; then
		! grep -q "counted with .* fallback" "${TMPDIR:-/tmp}/pmctop-e2e-spr.err" ||
			fail "fallback line beside no hardware counters: $(cat "${TMPDIR:-/tmp}/pmctop-e2e-spr.err")"
	fi
else
	fail "pmctop -b on this machine: $(cat "${TMPDIR:-/tmp}/pmctop-e2e.err")"
fi

# 3. Ctrl-C during a long interval: pmctop stops at once and still writes
#    the interval so far, scaled by the time it really lasted.
rec="${TMPDIR:-/tmp}/pmctop-e2e-$$.json"
"${pm[@]}" --sim zen5 -b -d 30 --format json -o "$rec" 2>/dev/null &
pid=$!
"${pm[@]}" -b -d 30 --format json -o "$rec.real" 2>/dev/null &
pid2=$!
# The output file exists once the handlers are in place: a signal before
# that would be lost (a script's background job starts with SIGINT ignored),
# which a slow start (a sanitizer build) makes likely.
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; }
wait_file "$rec"; wait_file "$rec.real"
sleep 1
kill -INT "$pid" "$pid2"
start=$(date +%s)
wait "$pid"; rc1=$?
wait "$pid2"; rc2=$?
[ $(( $(date +%s) - start )) -le 3 ] || fail "Ctrl-C took more than 3 s to stop pmctop -b"
[ "$rc1" -eq 130 ] && [ "$rc2" -eq 130 ] || fail "pmctop -b after Ctrl-C exited $rc1 / $rc2, want 130"
REC="$rec.real" python3 -c '
import json, os
for path in (os.environ["REC"],):
    lines = [json.loads(l) for l in open(path)]
    assert len(lines) == 1, "want the one interrupted interval, got %d" % len(lines)
    iv = lines[0]["interval_s"]
    assert 0.5 < iv < 5, "interrupted interval lasted %s s" % iv
print("ctrl-c ok")
' || fail "Ctrl-C lost or garbled the last interval"
rm -f "$rec" "$rec.real"

# 3b. The exit status after a signal is 128 + its number (pmctop(1)), and
#     the interval in progress is still written.
for sig in TERM:143 HUP:129; do
	"${pm[@]}" --sim zen5 -b -d 30 --format csv -o "$rec.$$" 2>/dev/null &
	pid=$!
	wait_file "$rec.$$"
	sleep 1
	kill -"${sig%:*}" "$pid"
	wait "$pid"; rc=$?
	[ "$rc" -eq "${sig#*:}" ] || fail "pmctop -b after SIG${sig%:*} exited $rc, want ${sig#*:}"
	[ "$(grep -c '^[0-9]' "$rec.$$")" -ge 1 ] || fail "pmctop -b lost the interval at SIG${sig%:*}"
	rm -f "$rec.$$"
done

# 4. Bad usage: exit 2 and a one-line reason on stderr.
# Every usage error, however late it is found (--sim's options are
# checked against the model): pmctop(1)'s status 2.
for args in "-d 0" "-d abc" "-C 99999" "--bogus" "--sim nosuch" "--format xml" \
	"--sim zen5:1x1x1x1,foo=bar" "--sim zen5,seed=x" "--sim zen5,absent=nosuch" "--sim zen5,nominal=99" \
	"--sim zen5 --cgroup ../../etc" "--sim zen5 -d 0x10" "--sim zen5 --rotate 0x10"; do
	# shellcheck disable=SC2086
	"${pm[@]}" $args -b -n 1 >/dev/null 2>"${TMPDIR:-/tmp}/pmctop-e2e.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "pmctop $args exited $rc, want 2"
	grep -q '^pmctop: ' "${TMPDIR:-/tmp}/pmctop-e2e.err" || fail "pmctop $args: no reason printed"
done
# An unknown option: the reason and one hint line, not the whole usage.
"${pm[@]}" --bogus 2>"${TMPDIR:-/tmp}/pmctop-e2e.err"
[ "$(cat "${TMPDIR:-/tmp}/pmctop-e2e.err")" = "pmctop: unknown option '--bogus'
Try 'pmctop --help' for more information." ] || fail "--bogus: $(cat "${TMPDIR:-/tmp}/pmctop-e2e.err")"
# Escape sequences in a value are not echoed raw.
"${pm[@]}" --sim $'zen5\e]0;pwned\a\x9b' -b -n 1 2>"${TMPDIR:-/tmp}/pmctop-e2e.err" >/dev/null
LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f\x80-\x9f]' "${TMPDIR:-/tmp}/pmctop-e2e.err" &&
	fail "--sim echoed control characters: $(od -c "${TMPDIR:-/tmp}/pmctop-e2e.err" | head -3)"

# 5. Listings end like batch mode: a closed pipe is a normal end (0, no
#    message), a full disk is said and fails (1).
for l in --list-events --list-metrics --list-views; do
	"${pm[@]}" --sim zen5 $l 2>"${TMPDIR:-/tmp}/pmctop-e2e.err" | head -1 >/dev/null
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] && [ ! -s "${TMPDIR:-/tmp}/pmctop-e2e.err" ] ||
		fail "$l | head -1: exit $rc, $(cat "${TMPDIR:-/tmp}/pmctop-e2e.err")"
	"${pm[@]}" --sim zen5 $l >/dev/full 2>"${TMPDIR:-/tmp}/pmctop-e2e.err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q '^pmctop: writing output: No space left on device$' "${TMPDIR:-/tmp}/pmctop-e2e.err" ||
		fail "$l >/dev/full: exit $rc, $(cat "${TMPDIR:-/tmp}/pmctop-e2e.err")"
done
"${pm[@]}" --list-models >/dev/full 2>/dev/null
[ $? -eq 1 ] || fail "--list-models >/dev/full did not fail"

# 6. -o never replaces a file that is not pmctop output.
foreign="${TMPDIR:-/tmp}/pmctop-e2e-foreign-$$"
echo "not pmctop's" >"$foreign"
"${pm[@]}" --sim zen5 -b -n 1 -d 0.01 -o "$foreign" 2>/dev/null
rc=$?
[ "$rc" -eq 1 ] && [ "$(cat "$foreign")" = "not pmctop's" ] || fail "-o replaced a foreign file (exit $rc)"
rm -f "$foreign"

# 7. As root, PMCTOP_EVENTS_DIR is ignored with a note.
if [ "$(id -u)" = 0 ]; then
	PMCTOP_EVENTS_DIR=/nonexistent "$top_builddir/pmctop" --list-models >/dev/null 2>"${TMPDIR:-/tmp}/pmctop-e2e.err" ||
		fail "PMCTOP_EVENTS_DIR was honoured as root"
	grep -q 'PMCTOP_EVENTS_DIR is ignored when running as root' "${TMPDIR:-/tmp}/pmctop-e2e.err" ||
		fail "no note about PMCTOP_EVENTS_DIR as root"
fi

# 8. The simulator's fast-forward (ff=1): 200 intervals of 10 s are written
# at once, not over 2,000 s; without it they are paced to real time.
start=$(date +%s)
n=$("${pm[@]}" --sim zen5:1x1x2x1,ff=1 -b -n 200 -d 10 --format csv 2>/dev/null | grep -c '^[0-9]')
[ "$n" -ge 200 ] && [ $(($(date +%s) - start)) -lt 60 ] || fail "ff=1: $n rows in $(($(date +%s) - start)) s"

# -p and --cgroup name what runs here: a process that has ended and a
# cgroup that does not exist are bad usage (exit 2, said), not an empty
# selection accepted in silence.
sh -c 'exit 0' & gone=$!; wait "$gone"
err=$("${pm[@]}" -b -n 1 -d 0.2 -p "$gone" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && printf '%s' "$err" | grep -q "no process $gone" || fail "-p with an ended process: exit $rc, '$err'"
err=$("${pm[@]}" -b -n 1 -d 0.2 --cgroup /nonexistent.slice 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && printf '%s' "$err" | grep -q "no cgroup /nonexistent.slice" || fail "--cgroup that does not exist: exit $rc, '$err'"
"${pm[@]}" -b -n 1 -d 0.2 -p $$ >/dev/null 2>&1 || fail "-p with a running process: exit $?"

# A PMU whose counts reach no figure is not read: with the core PMU
# absent, the L3 latency in clocks (L3 nanoseconds x the cores' clock)
# cannot be known, so the L3 PMU and /proc/stat, which feed nothing else
# asked for, are closed (a cross-CPU read per CPU and interval saved);
# asked for the L3 hit rate as well, the L3 PMU counts again.
cov() { "${pm[@]}" --sim "zen5,ff=1,$1" -b -n 1 -d 0.1 --format json -g "$2" 2>/dev/null | grep -o '"event_coverage":{[^}]*}'; }
c=$(cov absent=core l3_miss_latency_cycles)
[ "$c" = '"event_coverage":{}' ] || fail "absent core: the L3 PMU is still read for a figure that cannot be: $c"
cov absent=core l3_miss_latency_cycles,l3_hit_rate | grep -q 'l3_lookup_state' || fail "absent core: L3 hit rate lost its PMU"
cov seed=1 l3_miss_latency_cycles | grep -q 'l3_xi_sampled_latency' || fail "L3 latency in clocks: L3 PMU not read"
# The notices still speak of what the machine can count: with the L3 PMU
# absent, the core PMU feeds nothing asked for and is closed, but that is
# not a core PMU that failed, so the absent L3 is still said.
err=$("${pm[@]}" --sim zen5,ff=1,absent=l3 -b -n 1 -d 0.1 -g l3_miss_latency_cycles 2>&1 >/dev/null)
printf '%s' "$err" | grep -q 'amd_l3.*not present' || fail "absent L3 not said when the core PMU feeds nothing: '$err'"

# 9. perf's privilege modifiers (docs/definitions.md). On the simulator,
# instructions:u and :k split the plain count physically; the privilege
# view shows user and kernel IPC side by side.
"${pm[@]}" --sim zen5,ff=1 -b -n 3 -d 0.5 --format json -g privilege -e instructions -e instructions:u \
	-e instructions:k 2>/dev/null | python3 -c '
import json, sys
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 3, len(lines)
for l in lines:
    o = json.loads(l)
    for row in [o["system"]] + o["cpus"]:
        m = row["metrics"]
        a, u, k = m["ex_ret_instr_per_s"], m["ex_ret_instr:u_per_s"], m["ex_ret_instr:k_per_s"]
        assert abs(u + k - a) <= 1e-3 * a, (a, u, k)
        assert 0.02 < m["kernel_cycles_share"] < 0.6, m
        assert m["ipc_kernel"] < m["ipc_user"], m
        assert abs(m["kernel_instructions"] - k) <= 1e-3 * k, m
print("privilege json ok")
' || fail "instructions:u + :k on the simulator"
for bad in "instructions:x" "instructions:uu" "cpu_busy_ns:u" "nosuch:u"; do
	err=$("${pm[@]}" --sim zen5 -b -n 1 -e "$bad" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && printf '%s' "$err" | grep -q "^pmctop: .*${bad%%:*}" || fail "-e $bad: exit $rc, '$err'"
done
# On the real backend, page-faults:u and :k add up to page-faults while
# something faults pages in: software events count system-wide as root
# (or with perf_event_paranoid <= 0) on any machine, VMs included.
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -le 0 ]; then
	# A fresh mapping each time: malloc reuses freed memory, which faults
	# nothing after the first rounds.
	python3 -c 'import mmap, time
t = time.time() + 5
while time.time() < t:
    m = mmap.mmap(-1, 8 << 20)
    for i in range(0, 8 << 20, 4096):
        m[i] = 1
    m.close()' &
	faulter=$!
	sleep 0.5    # the faulter running before the first interval, on a loaded machine too
	out=$("${pm[@]}" --no-config -b -n 2 -d 0.5 --format json -e page-faults -e page-faults:u -e page-faults:k \
		-e context-switches:k 2>/dev/null)
	kill "$faulter" 2>/dev/null; wait "$faulter" 2>/dev/null
	printf '%s\n' "$out" | python3 -c '
import json, sys
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
assert len(lines) == 2, len(lines)
for l in lines:
    m = json.loads(l)["system"]["metrics"]
    a, u, k = m["page_faults_per_s"], m["page_faults:u_per_s"], m["page_faults:k_per_s"]
    assert u > 1000 and k >= 0 and abs(u + k - a) <= 0.02 * a + 5, (a, u, k)
    assert m["context_switches:k_per_s"] > 0, m
print("page-faults:u ok")
' || fail "page-faults:u and :k on the real backend: $out"
fi

"${pm[@]}" -V | grep -q '^pmctop ' || fail "-V"
"${pm[@]}" -h | grep -q -- '--sim' || fail "-h"

[ "$fails" -eq 0 ] || exit 1
echo "e2e batch: all checks passed"
