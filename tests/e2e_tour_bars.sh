#!/bin/sh
# e2e_tour_bars.sh: the dashboard's bars as a new user meets them, read
# off the terminal in tmux (TERM=xterm-256color, a UTF-8 locale, the
# simulated Zen 5, no saved settings):
#  1. sideways scrolling: Right moves nothing where the columns fit the
#     width; where they do not, the heading says so (a right-hand mark,
#     and a left-hand one once scrolled), and a wider terminal takes the
#     offset back, as does removing the column that needed it;
#  2. the tab line at 120 columns names every view (batch, tasks, power
#     too) with a filter on as well, and a click on one opens it;
#  3. the footer fits the width by importance (at 80 columns / \ and T
#     are there) and follows the view and source (F5 Tree in the tasks
#     view, [ ] and j in a replay);
#  4. the sort mark is an arrow, apart from the letters of the name.
# Exits 77 (skip) when tmux is missing or the program has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=tour_bars
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
opts="--sim zen5 --no-config -d 0.3"
# The table's heading line (the one that starts with the CPU column).
heading() { screen | grep -E '^ +CPU' | head -n 1; }

# 1. Sideways scrolling.
start 120 40 "$opts" "$env"
expect 'SIMULATED' "120x40: dashboard"
full=$(heading)
echo "$full" | grep -q 'BrMiss%' || fail "120x40: no BrMiss% column to start with: $full"
for i in 1 2 3 4 5 6 7 8; do keys Right; done
h=$(heading)
echo "$h" | grep -q 'BrMiss%' || fail "120x40: Right x8 hid columns that fit the width: $h"
echo "$h" | grep -q 'CS/s' || fail "120x40: Right x8 lost CS/s: $h"
echo "$h" | grep -Eq '◀|▶' && fail "120x40: a scroll mark where the table fits: $h"
quit_ok "120x40"

start 60 40 "$opts" "$env"
expect 'SIMULATED' "60x40: dashboard"
h=$(heading)
echo "$h" | grep -q '▶ *$' || fail "60x40: no mark that columns are out of sight at the right: $h"
keys Right
h=$(heading)
echo "$h" | grep -q '◀' || fail "60x40: scrolled, with no mark at the heading's edge: $h"
echo "$h" | grep -q 'BrMiss%' && fail "60x40: Right did not scroll: $h"
# A wider terminal: the offset is no longer needed and is taken back.
$TMUX_CMD resize-window -t "$S" -x 160 -y 40 >/dev/null 2>&1
sleep 1
h=$(heading)
echo "$h" | grep -q 'BrMiss%' || fail "60->160: the offset outlived the resize: $h"
echo "$h" | grep -Eq '◀|▶' && fail "60->160: a scroll mark where the table fits: $h"
quit_ok "60x40"

# A column removed: the offset it needed goes with it (an event column
# that overflows 90 columns, Right x4, Delete).
start 90 40 "$opts" "$env"
expect 'SIMULATED' "90x40: dashboard"
press e
expect 'Add an event column' "90x40: event picker"
keys -l 'brn_misp'
expect 'ex_ret_brn_misp' "90x40: search result"
keys Enter
for i in 1 2 3 4; do keys Right; done
h=$(heading)
echo "$h" | grep -q '◀' || fail "90x40: an event column too many, Right x4, and no scroll mark: $h"
keys DC
sleep 0.5
h=$(heading)
echo "$h" | grep -q 'BrMiss%' || fail "90x40: the offset outlived the column removed: $h"
echo "$h" | grep -Eq '◀|▶' && fail "90x40: a scroll mark where the table fits: $h"
quit_ok "90x40"

# A replay: its footer has its keys ([ ] step, j jump, + - speed).
"$PMCTOP" --sim zen5 --no-config -b -n 4 -d 0.05 -w "$TMP/t.rec" >/dev/null 2>&1 || fail "recording for the replay"
start 120 40 "--no-config -r $TMP/t.rec" "$env"
expect 'REPLAY' "replay: dashboard"
# The last line holds a message for its 5 s (here what the recording
# lacks) and the key hints after it.
for _ in $(seq 1 40); do
	f=$(screen | tail -n 1)
	echo "$f" | grep -q 'Step' && break
	sleep 0.25
done
for k in '\[\]Step' 'jJump' '\+-Speed' '/Search'; do
	echo "$f" | grep -q -- "$k" || fail "replay footer: no $k: $f"
done
quit_ok "replay"

# 2 and 4. The tab line, at 120 columns.
start 120 40 "$opts" "$env"
expect 'SIMULATED' "tabs: dashboard"
tabs=$(screen | sed -n 3p)
for v in batch tasks power; do
	echo "$tabs" | grep -q " $v " || fail "tabs at 120: view $v not on the tab line: $tabs"
done
echo "$tabs" | grep -Eq ' 2:[a-z]+ ' || fail "tabs at 120: view 2 not named: $tabs"
h=$(heading)
echo "$h" | grep -Eq 'CPU(▲|▼)' || fail "sort mark: not an arrow after CPU: $h"
echo "$h" | grep -Eq 'CPU[v^]' && fail "sort mark: a letter after CPU: $h"
x=$(echo "$tabs" | awk '{ print index($0, " power ") }')
if [ "${x:-0}" -gt 0 ]; then
	click 0 "$((x + 2))" 3
	expect '\| power' "tabs at 120: a click on power opens the power view"
else
	fail "tabs at 120: no power tab to click"
fi
keys 1
# A filter on: the views stay in sight.
press '\'
type_text '1-3'
press Enter
expect 'filter 1-3' "tabs: the filter is set"
tabs=$(screen | sed -n 3p)
echo "$tabs" | grep -Eq ' 2(:[a-z_]+)? ' || fail "tabs with a filter: view 2 gone: $tabs"
echo "$tabs" | grep -Eq ' (ta|tasks)[a-z]* ' || fail "tabs with a filter: the tasks view gone: $tabs"
f=$(screen | tail -n 1)
echo "$f" | grep -q 'EnterDetail' || fail "footer at 120: no Enter: $f"
quit_ok "tabs"

# 3. The footer at 80 columns, and in the tasks view.
start 80 30 "$opts" "$env"
expect 'SIMULATED' "80x30: dashboard"
f=$(screen | tail -n 1)
for k in 'F1Help' 'qQuit' '/Search' '\\Filter' 'TTasks'; do
	echo "$f" | grep -q -- "$k" || fail "footer at 80: no $k: $f"
done
echo "$f" | grep -q 'F5Tree' && fail "footer at 80: F5 Tree outside the tasks view: $f"
press T
expect 'F5Tree' "footer: F5 Tree in the tasks view"
quit_ok "80x30"

[ "$fails" -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
