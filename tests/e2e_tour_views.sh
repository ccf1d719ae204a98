#!/bin/sh
# e2e_tour_views.sh: what the views show a new user, read off the
# terminal in tmux (TERM=xterm-256color, a UTF-8 locale, the simulated
# Zen 5, no saved settings):
#  8. the memory and cache views per CPU show their L3 and memory columns
#     with each CPU's CCX's (socket's) figure, headed "CCX:" ("sock:"), so
#     that they say whose figure it is (they showed util, GHz and IPC
#     alone, and the cache view lost its L3 columns);
# 11. the tasks view's rows per cgroup: \java keeps the cgroups a java
#     process runs in (it said "no process matches"); cgroup paths take
#     the width the other columns leave, and a cut one ends in an
#     ellipsis (they were cut at 28 columns with 40 free, unmarked).
#  5. wide and tall terminals: at 250x70 with 384 CPUs the table's lines
#     take more than half the width (they took a fifth: more of the view,
#     the rates of the events counted anyway, fills it); at 400x100 with
#     32 CPUs the memory panel follows the table's last row (there was an
#     empty gap between them); at 80x24 the heat map's title ends whole;
#     where the table has room each heading says its figure's unit
#     ("IPC insn/cyc", "GHz", "L3 lat ns", "Mem GB/s", rates "/s"; IPC's
#     said "IPC" alone).
# 15. + and - keep the graphs (they started them again, blank): the
#     header's sparkline has as many cells after + as before.
# Exits 77 (skip) when tmux is missing or the program has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=tour_views
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
opts="--sim zen5 --no-config -d 0.3"
heading() { screen | grep -E '^ +CPUs?' | head -n 1; }
# The text of the cell under heading word $1 on the row of CPU $2 (the
# heading's word ends where the right-aligned figure does; the sort
# arrow, three bytes, counts as one column).
# cell_of: the same from the screen text on its input (two cells compared
# must come from one capture: at -d 0.3 two captures may straddle a
# refresh).
cell_of() { LC_ALL=C sed 's/\xe2\x96[\xb2\xbc\xb6]/>/g; s/\xe2\x97\x80/</g' | awk -v t="$1" -v c="$2" '
	/^ +CPUs?/ && !h { h = $0; next }
	h && $1 == c { i = index(h, t); if (!i) exit; e = i + length(t) - 1
		s = substr($0, 1, e); sub(/.* /, "", s); print s; exit }'; }
cell() { screen | cell_of "$1" "$2"; }
# Whether CPUs $2 and $3 show the same text under heading word $1, in one
# capture.
same_cells() { same_scr=$(screen); [ "$(printf '%s\n' "$same_scr" | cell_of "$1" "$2")" = "$(printf '%s\n' "$same_scr" | cell_of "$1" "$3")" ]; }

# 8. The memory view per CPU: its L3 and DRAM columns, the CCX's and the
# socket's figures.
start 200 40 "$opts" "$env"
expect 'SIMULATED' "8: dashboard"
press 8
expect 'CCX:L3 hit%' "8: the memory view per CPU has no CCX:L3 hit% column"
expect 'sock:Rd GB/s' "8: the memory view per CPU has no sock:Rd GB/s column"
mem_cells() { cell 'CCX:L3 hit%' 0 | grep -Eq '^~?[0-9]+\.[0-9]$' && same_cells 'CCX:L3 hit%' 0 1 &&
	cell 'sock:Rd GB/s' 3 | grep -Eq '^~?[0-9]+\.[0-9]$'; }
wait_until mem_cells
v=$(cell 'CCX:L3 hit%' 0)
echo "$v" | grep -Eq '^~?[0-9]+\.[0-9]$' || fail "8: CPU 0's CCX:L3 hit% is '$v'"
same_cells 'CCX:L3 hit%' 0 1 || fail "8: CPUs 0 and 1 (one CCX) differ in CCX:L3 hit%"
v=$(cell 'sock:Rd GB/s' 3)
echo "$v" | grep -Eq '^~?[0-9]+\.[0-9]$' || fail "8: CPU 3's sock:Rd GB/s is '$v'"
# The cache view keeps its L3 columns.
keys 4
expect 'CCX:L3 MPKI' "8: the cache view per CPU lost its L3 columns"
quit_ok "8"

# 11. Rows per cgroup: the filter finds a cgroup by its processes' names.
start 200 30 "$opts -g tasks" "$env"
expect 'PID +COMMAND' "11: the tasks view"
press t
expect 'PROCS +CGROUP' "11: rows per cgroup"
press '\'
type_text 'java'
press Enter
expect 'filter java' "11: the filter"
sleep 1
screen | grep -q 'no .* matches' && fail "11: \\java in rows per cgroup matches nothing"
expect '^ +[0-9]+ /kubepods.slice/pod-a1/ctr-app ' "11: java's cgroup is not shown"
# The whole path where the width allows.
keys '\'
keys C-u
keys Enter
expect '^ +[0-9]+ /user.slice/user-1000.slice/session-2.scope ' "11: a cgroup path cut though the width allows it"
quit_ok "11 at 200"
# Too narrow for the whole path: cut, and marked so.
start 100 30 "$opts -g tasks" "$env"
expect 'PID +COMMAND' "11: the tasks view at 100"
press t
expect 'PROCS +CGROUP' "11: rows per cgroup at 100"
expect '/user.slice/user-1000[^ ]*…' "11: the cut cgroup path has no ellipsis"
quit_ok "11 at 100"

# 5. At 250x70, 384 CPUs: the table's heading and rows past half the width.
start 250 70 "--sim zen5:2x12x8x2 --no-config -d 0.3" "$env"
expect '^ +CPU' "5: 250x70 table"
wide_rows() { [ "$(screen | grep -E '^ +CPU' | head -n 1 | sed 's/ *$//' | LC_ALL=C.UTF-8 awk '{ print length($0) }')" -gt 125 ] &&
	[ "$(screen | grep -E '^ +0 +0 +0 ' | head -n 1 | sed 's/ *$//' | awk '{ print length($0) }')" -gt 125 ]; }
wait_until wide_rows
w=$(screen | grep -E '^ +CPU' | head -n 1 | sed 's/ *$//' | LC_ALL=C.UTF-8 awk '{ print length($0) }')
[ "${w:-0}" -gt 125 ] || fail "5: 250x70: the table's heading is $w columns wide, not past half the width"
r=$(screen | grep -E '^ +0 +0 +0 ' | head -n 1 | sed 's/ *$//' | awk '{ print length($0) }')
[ "${r:-0}" -gt 125 ] || fail "5: 250x70: CPU 0's row is $r columns wide"
# Each figure's unit in its heading where the table has room: IPC's too
# (it said "IPC" alone), the clock's, the rates'; in the memory view the
# latency's and bandwidths'.
h=$(heading)
for u in ' GHz ' ' IPC insn/cyc ' 'CS/s ' '[a-z_.]+/s'; do
	echo "$h" | grep -Eq -- "$u" || fail "5: 250x70: no /$u/ in the heading: $h"
done
keys 8
expect '^ +CPU.*Mem GB/s' "5: 250x70 memory view"
h=$(heading)
for u in ' IPC insn/cyc ' 'L3 lat ns ' 'Rd GB/s ' 'Mem GB/s '; do
	echo "$h" | grep -Eq -- "$u" || fail "5: 250x70 memory view: no /$u/ in the heading: $h"
done
quit_ok "5 at 250x70"
# At 400x100, 32 CPUs: the memory panel right under the last row.
start 400 100 "$opts" "$env"
expect '^Memory ' "5: 400x100 memory panel"
under_last_row() { screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { last = NR } /^Memory / { m = NR } END { exit !(m == last + 1) }'; }
wait_until under_last_row
screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { last = NR } /^Memory / { m = NR } END { exit !(m == last + 1) }' ||
	fail "5: 400x100: a gap between the table's last row and the memory panel"
quit_ok "5 at 400x100"
# At 80x24, 384 CPUs: the heat map's title whole.
start 80 24 "--sim zen5:2x12x8x2 --no-config -d 0.3" "$env"
expect '^24 CCX: ' "5: 80x24 heat map"
t=$(screen | grep -E '^24 CCX: ' | sed 's/ *$//')
echo "$t" | grep -Eq '(util|high\))$' || fail "5: 80x24: the heat map's title is cut: '$t'"
quit_ok "5 at 80x24"

# 15. A change of delay keeps the history. The cells of the header's
# sparkline (block elements U+2581..U+2588) on the tab line.
cells() { screen | sed -n 3p | tr -d Q | LC_ALL=C sed 's/\xe2\x96[\x81-\x88]/Q/g' | tr -cd Q | wc -c; }
start 200 30 "$opts" "$env"
expect 'system util%' "15: the header's sparkline"
sleep 4
before=$(cells)
[ "$before" -ge 8 ] || fail "15: only $before cells in the sparkline after 4 s"
keys +
expect 'delay 0.5s' "15: + made the delay 0.5 s"
sleep 1.2
after=$(cells)
[ "$after" -ge "$before" ] || { fail "15: + left $after of the sparkline's $before cells"; screen | sed -n 3p; }
screen | grep -q 'history started again' && fail "15: + started the history again"
keys -
keys -
expect 'delay 0.1s' "15: - - made the delay 0.1 s"
sleep 1
after=$(cells)
[ "$after" -ge "$before" ] || { fail "15: - - left $after of the sparkline's $before cells"; screen | sed -n 3p; }
quit_ok "15"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
