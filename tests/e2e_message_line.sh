#!/bin/sh
# e2e_message_line.sh: the message line, the dashboard at hundreds of CPUs
# and the detail pane, in tmux on the simulated PMU. A key's message ("no
# row matches") is shown on the footer's line and moves nothing: the
# table's first row stays on its screen line (it went down a line with
# every message); a later search that succeeds clears it. At 120x40, 384
# CPUs fold their 24 CCX into a heat map and the CPU table keeps at least
# half the lines (the boxes took 17 lines and left 15 rows). The detail
# pane's history text agrees with itself, a "?" is explained, descriptions
# end inside the border. A search while a filter hides every row leaves
# pmctop running. Exits 77 without tmux or --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=msgline
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"

# The screen line (from 1) of the first CPU row.
first_row() { screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print NR; exit }'; }

start 120 40 "--sim zen5:2x12x8x2 -d 0.3 --no-config" "NO_COLOR=1"
expect ' 1:basic ' "the dashboard"
sleep 0.8
before=$(first_row)
[ -n "$before" ] || fail "no CPU row on screen"
# 384 CPUs: one heat-map title and cells, and at least 20 table lines.
expect '24 CCX: number, one mark per core' "the CCX heat map's title"
rows=$(screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' | wc -l)
[ "$rows" -ge 19 ] || fail "only $rows CPU rows at 120x40 with 384 CPUs"
keys /
type_text 'zzz'
keys Enter
expect "no row matches 'zzz'" "the search's message"
[ "$(first_row)" = "$before" ] || fail "the message moved the table from line $before to $(first_row)"
screen | sed -n 40p | grep -q "no row matches" || fail "the message is not on the last line"
# A search that succeeds clears it at once (it stayed on).
keys /
type_text '12'
keys Enter
sleep 0.5
screen | grep -q "no row matches" && fail "the message outlived a search that succeeded"
[ "$(first_row)" = "$before" ] || fail "the table moved to line $(first_row) after the message"
screen | sed -n 40p | grep -q 'Quit' || fail "the footer's hints did not come back"
quit_ok "message line"

# A search while a filter hides every row: the tasks view filtered by a
# name that no process has, then / and n and N. The search divided by the
# number of rows shown, 0 (UBSan's report in CI's key fuzz; the sanitized
# build, which aborts on it, fails here without the fix).
start 120 40 "--sim zen5 -d 0.3 --no-config" "NO_COLOR=1"
expect ' 1:basic ' "empty search: the dashboard"
keys T
expect 'COMMAND' "empty search: the tasks view"
keys '\'
type_text 'zzzz'
keys Enter
expect "no process matches the filter" "empty search: the filter that hides every row"
keys /
type_text 'q1'
keys Enter
keys n
keys N
expect "no row matches 'q1'" "empty search: the search's message"
quit_ok "search with every row filtered out"

# The detail pane: its history text agrees with itself (N intervals in T
# seconds, T/N each: it said "96 intervals of 1s (1m24s)"); after a, a "?"
# in the error column is explained in the heading; descriptions end inside
# the border, with a blank before it.
start 120 40 "--sim zen5 -d 0.3 --no-config" "NO_COLOR=1"
expect ' 1:basic ' "detail: the dashboard"
keys Enter
sleep 2
keys a
sleep 2
line=$(screen | grep -Eo '[0-9]+ intervals in [0-9.]+s \([0-9.]+s each\)' | head -n 1)
[ -n "$line" ] || { fail "detail: no 'N intervals in T (E each)'"; screen | sed 's/^/  | /'; }
echo "$line" | awk '{ n = $1; t = $4; e = $5; sub("s", "", t); sub("[(]", "", e); sub("s", "", e)
	exit !(n * e > t * 0.95 && n * e < t * 1.05) }' || fail "detail: '$line' disagrees with itself"
B='(x|│)'   # the border, as ACS or as a box-drawing character
if screen | grep -Eq "^$B[ >] .* \\?  "; then
	screen | grep -q '?: too few samples' || fail "detail: '?' shown and not explained"
fi
screen | awk '/  metric  +value unit/ { on = 1; next } on' > "$TMP/list"
n=$(grep -E "^$B[ >] " "$TMP/list" | grep -Evc " $B\$")
[ "$(grep -Ec "^$B[ >] " "$TMP/list")" -ge 5 ] || fail "detail: no list lines"
[ "$n" -eq 0 ] || { fail "detail: $n list lines run into the border"; screen | sed 's/^/  | /'; }
keys Escape
quit_ok "detail pane"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
