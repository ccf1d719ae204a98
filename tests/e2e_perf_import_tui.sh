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
expect 'backend_bound' "topdown view"
sleep 1
sum=$(screen | awk '
	/frontend_bound/ { head = 1; next }
	head && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
		s = 0; n = 0
		for (i = 5; i <= NF; i++) { v = $i; sub("~", "", v); if (v ~ /^[0-9.]+$/ && n < 4) { s += v; n++ } }
		if (n == 4) { print s; exit }
	}')
[ -n "$sum" ] || { fail "no topdown row with four fractions"; screen | sed 's/^/  | /'; }
[ -n "$sum" ] && awk -v s="$sum" 'BEGIN { exit !(s > 99.5 && s < 100.5) }' || fail "level 1 sums to $sum, not 100"
keys 3
expect 'fetch_latency' "topdown level 2 view"
expect 'memory_bound' "topdown level 2: backend parts"
keys 4
expect 'l3mpki' "cache view with L3 misses per kilo-instruction"
keys 5
expect 'memory_bandwidth_read' "memory view with DRAM bandwidth"
quit_ok "imported model"
[ "$fails" -eq 0 ] || exit 1
echo "ok: dashboard on perf-icelakex"
