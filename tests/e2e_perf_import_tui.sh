#!/bin/sh
# e2e_perf_import_tui.sh: the dashboard on a model imported from Linux perf's
# files (docs/perf-import.md): --sim icx (Ice Lake-SP) shows the SIMULATED
# label and what the simulator cannot know, its topdown view draws the
# level-1 bar with fractions that add up to 100 %, level 2 shows its parents
# and parts, and the cache and memory views show L3 and DRAM figures.
# Needs tmux and perf's files (tests/perf_arch.sh; skipped without them).
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=perfimp
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
tmp=$TMP
PERF_ARCH_PARTS=x86
. "$top_srcdir/tests/perf_arch.sh"

start 280 50 "--events-dir $top_srcdir/events --perf-events $arch --no-config --sim icx -d 0.3"
expect 'SIMULATED' "SIMULATED label"
expect 'imported model perf-icelakex: [0-9]+ of [0-9]+ events have no simulated meaning' \
	"the note on what the simulator cannot know"
keys Escape
keys 2
expect 'BE bound' "topdown view, with the hand-written models' headings"
sleep 1
# The four fractions are the last four figures of a CPU row, before its bar.
sum=$(screen | awk '
	/FE bound/ { head = 1; next }
	head && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
		n = 0
		for (i = 1; i <= NF; i++) { v = $i; sub("~", "", v); if (v ~ /^[0-9.]+$/) f[++n] = v }
		if (n >= 4) { print f[n - 3] + f[n - 2] + f[n - 1] + f[n]; exit }
	}')
[ -n "$sum" ] || { fail "no topdown row with four fractions"; screen | sed 's/^/  | /'; }
[ -n "$sum" ] && awk -v s="$sum" 'BEGIN { exit !(s > 99.5 && s < 100.5) }' || fail "level 1 sums to $sum, not 100"
keys 3
expect 'FE latency' "topdown level 2 view"
expect 'BE memory' "topdown level 2: backend parts"
keys 4
expect 'L3 MPKI' "cache view with L3 misses per kilo-instruction"
keys 8
expect 'Rd GB/s' "memory view with DRAM bandwidth"
quit_ok "imported model"

# This machine's own CPU, imported: where the kernel gives no hardware
# counters (a VM without a virtual PMU), the first screen says so in one
# line, together with the model's own note (which once hid it for the
# note's first 5 seconds).
$PMCTOP --events-dir "$top_srcdir/events" --perf-events "$arch" --no-config -b -n 1 -d 0.1 >/dev/null 2>"$tmp/own.err"
if grep -q 'hardware counters: not available' "$tmp/own.err" && grep -q 'imported from Linux perf' "$tmp/own.err"; then
	start 200 40 "--events-dir $top_srcdir/events --perf-events $arch --no-config -d 0.3"
	expect 'imported from Linux perf' "the imported model's note"
	screen | grep -q 'hardware counters: not available' ||
		{ fail "the no-PMU line is not on the screen with the model's note"; screen | sed 's/^/  | /'; }
	quit_ok "this CPU, imported"
fi
[ "$fails" -eq 0 ] || exit 1
echo "ok: dashboard on perf-icelakex"
