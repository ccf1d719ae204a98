#!/bin/sh
# e2e_fleet_drill.sh: drill down in a fleet's dashboard, read off the
# screen as tmux shows it. Three simulated exporters (Zen 5, Sapphire
# Rapids, the generic model) publish per-CPU series (--export-scope cpu);
# sorted by IPC, Enter on the Zen 5 host (found by /) shows its own rows: one per CPU
# of the model (as many as its exporter's pmctop_online_cpus), each with
# an IPC figure, and the header names the host and Esc; Esc goes back to
# the three host rows still sorted by IPC. Drilled, the host's CCX boxes
# and its history (the refreshes kept since start: a sparkline of several
# points at once) are shown; --fleet-host with a name none of the targets
# has exits 1 with one line. Skips (77) without tmux or python3, or
# without libcurl in pmctop.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=fleetdrill
. "$top_srcdir/tests/e2e_fleet_tmux.sh"
# A gauge without labels from an exporter's /metrics.
gauge() {
	python3 -c 'import sys, urllib.request
for l in urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode().splitlines():
    if l.split(" ")[0] == sys.argv[2]:
        print(int(float(l.split(" ")[1])))' "$1" "$2"
}
start_exporters 60 "--export-scope cpu" zen5 spr generic
ncpus=$(gauge "$port_zen5" pmctop_online_cpus)
[ -n "$ncpus" ] && [ "$ncpus" -gt 1 ] || { fail "the Zen 5 exporter has no pmctop_online_cpus ($ncpus)"; exit 1; }

start 170 $((ncpus + 12)) "--no-config --events-dir $events --fleet $list -d 0.5"
expect 'FLEET 3 hosts' "the header names the fleet"
expect "127.0.0.1:$port_generic .*[0-9]" "the generic host's figures"
# Three refreshes with figures before Enter (the Zen 5 row changes twice),
# so that the history check below cannot pass on refreshes made after it,
# however slowly a loaded machine refreshes.
zen5_row() { screen | grep "^127\.0\.0\.1:$port_zen5 "; }
seen=$(zen5_row) changes=0
for _ in $(seq 150); do
	[ "$changes" -ge 2 ] && break
	sleep 0.1
	now=$(zen5_row)
	[ "$now" != "$seen" ] && { seen=$now; changes=$((changes + 1)); }
done
[ "$changes" -ge 2 ] || fail "the Zen 5 host's row did not change twice in 15 s"
order() { screen | sed -n 's/^127\.0\.0\.1:\([0-9]*\) .*/\1/p' | tr '\n' ' '; }
# Whether the host rows are sorted by IPC (the fourth field), highest first.
by_ipc() { screen | awk '/^127\.0\.0\.1:/ { if (n++ && $4 + 0 > last + 0) bad = 1; last = $4 } END { exit bad || n != 3 }'; }
# > three times: CPUs, util%, then IPC, highest first.
keys '>'
keys '>'
keys '>'
expect 'IPC▼' "> moved the sort to IPC"
sleep 0.6
by_ipc || { fail "the three hosts are not sorted by IPC"; screen | sed 's/^/  | /'; }
# Select the Zen 5 host (/ finds it by name; F keeps the selection on it
# as the rows re-sort by IPC), then Enter goes into it.
keys F
keys '/'
type_text "127.0.0.1:$port_zen5"
keys Enter
keys Enter
expect "> 127.0.0.1:$port_zen5: $ncpus cpu rows  Esc: back to the fleet" "the header names the host drilled into"
expect '^cpu +0 ' "the host's CPU rows"
sleep 0.6
# Its rows, one per CPU, each with an IPC (the fifth field: cpu N CPUs util IPC).
rows=$(screen | grep -Ec '^cpu +[0-9]+ ')
ipcs=$(screen | awk '$1 == "cpu" && $5 ~ /^[0-9]+\.[0-9]+$/ && $5 > 0' | wc -l)
[ "$rows" = "$ncpus" ] || { fail "$rows CPU rows for the model's $ncpus CPUs"; screen | sed 's/^/  | /'; }
[ "$ipcs" = "$ncpus" ] || { fail "$ipcs CPU rows with an IPC figure of $ncpus"; screen | sed 's/^/  | /'; }
# The rows are the CPUs' own figures, not the host's repeated.
distinct=$(screen | awk '$1 == "cpu" { print $5 }' | sort -u | wc -l)
[ "$distinct" -gt 1 ] || fail "every CPU row has the same IPC"
screen | grep -q "^127.0.0.1:" && fail "host rows on the drilled screen"
# Its history from the refreshes kept since start: a UTIL sparkline of
# more points than the one refresh since Enter could give. A refresh that
# had no figure for the host is a blank in it ("▁▁ ▂▂ ▄▅▆▇█" on a loaded
# CI machine), so the points are its glyphs up to the figure, blanks left
# out.
spark=$(screen | sed -n 's/^.UTIL  *\([^0-9]*[^0-9 ]\)  *[^ ][^ ]*│.*/\1/p' | head -n 1)
[ "$(printf %s "$spark" | tr -d ' ' | wc -m)" -ge 3 ] || { fail "no history sparkline of 3 points at once ('$spark')"; screen | sed 's/^/  | /'; }
# Its CCX boxes (two on the simulated Zen 5), each one's IPC its CPUs'
# instructions over their cycles: the CPU rows' IPC weighted by their
# cycle rates (GHz x util, on the same screen), the CPUs' CCX from the
# exporter's ccx labels; 2 % for the screen's rounding (IPC 0.39 shown
# with two decimals is 1.3 % off already).
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
	"http://127.0.0.1:$port_zen5/metrics" >"$TMP/zen5.metrics"
screen >"$TMP/drill.screen"
python3 - "$TMP/zen5.metrics" "$TMP/drill.screen" <<'EOP' || fail "the CCX boxes' IPC"
import re, sys
ccx = {m.group(1): m.group(2) for m in re.finditer(r'^pmctop_cycles_total\{cpu="(\d+)",core="\d+",ccx="(\d+)"',
                                                   open(sys.argv[1]).read(), re.M)}
lines = open(sys.argv[2]).read().splitlines()
num, den = {}, {}
for l in lines:
    f = l.replace('~', '').split()
    if len(f) > 5 and f[0] == 'cpu' and f[1] in ccx:
        util, ipc, ghz = float(f[3]) / 100, float(f[4]), float(f[5])
        k = ccx[f[1]]
        num[k] = num.get(k, 0) + ipc * ghz * util
        den[k] = den.get(k, 0) + ghz * util
shown = {}
for y, l in enumerate(lines):
    for m in re.finditer(r'CCX (\d+)  socket', l):
        for below in lines[y + 1:y + 4]:
            g = re.search(r'IPC ~?([0-9.]+)', below[max(0, m.start() - 3):m.start() + 31])
            if g:
                shown[m.group(1)] = float(g.group(1))
                break
bad = len(shown) < 2 or any(abs(v - num[k] / den[k]) > 0.02 * num[k] / den[k] for k, v in shown.items())
print('CCX IPC on the screen %s, from the CPU rows %s' % (shown, {k: round(num[k] / den[k], 4) for k in sorted(num)}))
sys.exit(1 if bad else 0)
EOP
# At 80 columns the drilled host's long status is cut, never SIMULATED
# (it was "... Esc: back to the fleet SIMU").
$TMUX_CMD resize-window -t "$S" -x 80 -y 24
wait_until eval 'screen | head -n 1 | grep -q SIMULATED'
screen | head -n 1 | grep -q SIMULATED || fail "80 columns: SIMULATED cut from the drilled header: $(screen | head -n 1)"
$TMUX_CMD resize-window -t "$S" -x 170 -y $((ncpus + 12))
# Esc: the hosts again, still sorted by IPC.
keys Escape
expect "FLEET 3 hosts [^>]" "Esc went back to the fleet"
expect "^127.0.0.1:$port_spr " "the host rows are back"
screen | grep -q 'IPC▼' || { fail "the sort by IPC was not kept"; screen | sed 's/^/  | /'; }
screen | grep -Eq '^cpu +[0-9]' && fail "CPU rows after Esc"
sleep 0.6
by_ipc || { fail "back from the host, the three hosts are not sorted by IPC: $(order)"; screen | sed 's/^/  | /'; }
quit_ok "fleet drill down"
# A host that is not among the targets: one line, exit 1 (batch).
"$PMCTOP" --events-dir "$events" --fleet "$list" --fleet-host nohost:1 -b -n 1 >/dev/null 2>"$TMP/nohost.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$TMP/nohost.err")" = 1 ] && grep -q "fleet-host nohost:1: not among the fleet's 3 hosts" "$TMP/nohost.err" ||
	fail "--fleet-host nohost:1: exit $rc, $(cat "$TMP/nohost.err")"
[ $fails = 0 ]
