#!/bin/sh
# e2e_replay_tui.sh: the dashboard on a recording, driven in tmux as a user
# would: it records (-w) in the dashboard, then replays (-r) that file and
# checks the REPLAY label and position, pause, stepping back and forward,
# jumping to an interval and to a time, switching views (figures at once,
# and a reason for a view whose events were not recorded), sorting, and
# that q exits 0. Exits 77 (skip) without tmux.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
PMCTOP=$(cd "$top_builddir" && pwd)/pmctop
EVENTS=$(cd "$top_srcdir" && pwd)/events
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux not installed"; exit 77; }
[ -x "$PMCTOP" ] || { echo "SKIP: $PMCTOP not built"; exit 77; }

E2E_NAME=rp
. "$top_srcdir/tests/e2e_tmux.sh"

# 1. Record 12 intervals from the dashboard (-n ends it).
S=rec
$TMUX_CMD new-session -d -s "$S" -x 120 -y 40 \
	"$PMCTOP --events-dir $EVENTS --sim zen5 -d 0.2 -n 12 -w $TMP/d.rec; echo EXIT=\$? > $TMP/status; sleep 60"
expect 'REC' "the dashboard says it records"
i=0
while [ ! -f "$TMP/status" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
grep -q 'EXIT=0' "$TMP/status" 2>/dev/null || fail "recording dashboard: $(cat "$TMP/status" 2>/dev/null)"
n=$("$PMCTOP" --events-dir "$EVENTS" -r "$TMP/d.rec" -b --format json | wc -l)
[ "$n" -eq 12 ] || fail "the dashboard recorded $n intervals, not 12"

# 2. Replay it at -d as recorded (0.2 s an interval), at 160 columns: the
# system graph on the tab line is there beside the named view tabs.
S=play
rm -f "$TMP/status"
$TMUX_CMD new-session -d -s "$S" -x 160 -y 40 \
	"$PMCTOP --events-dir $EVENTS -r $TMP/d.rec; echo EXIT=\$? > $TMP/status; sleep 60"
expect 'REPLAY [0-9]+/12 ' "the REPLAY label with the position"
expect 'SIMULATED' "a replay of a simulated run says SIMULATED"
expect 'REPLAY 12/12' "it plays to the end"
expect 'end of the recording' "the end is said"
keys '['
expect 'REPLAY 11/12' "[ steps back"
keys '['
keys ']'
expect 'REPLAY 11/12' "] steps forward"
keys j
type_text '#3'
keys Enter
expect 'REPLAY 3/12' "j #3 jumps to interval 3"
keys j
type_text zz
keys Enter
expect 'expected HH:MM' "a bad jump says what it expects"
keys j
type_text end
keys Enter
expect 'REPLAY 12/12' "j end"
keys j
type_text start
keys Enter
expect 'REPLAY 1/12 [0-9:]+ paused' "j start, still paused"
# Paused is said once, in the replay's status, not again as PAUSED.
screen | grep -q 'PAUSED' && fail "a paused replay says paused and PAUSED"
# A relative jump lands on the interval nearest the time: +1 s from the
# first of 0.2 s intervals is the 6th (stamps a few ms late made it the 7th)
# where the recording kept time; on a loaded machine its intervals
# stretch, so the one expected is read from the recording's own stamps.
want=$("$PMCTOP" --events-dir "$EVENTS" -r "$TMP/d.rec" -b --format json | python3 -c '
import json, sys
t = [json.loads(l)["time"] for l in sys.stdin if l.strip()]
d = [abs(x - (t[0] + 1)) for x in t]
print(d.index(min(d)) + 1)')
keys j
type_text '+1'
keys Enter
expect "REPLAY ${want:-6}/12" "j +1 from the start lands on interval ${want:-6}, the nearest +1 s by the recording's stamps"
# A jump keeps the history the file holds: the system graph has a cell
# for each interval before it (it started again, with one cell).
keys j
type_text '#10'
keys Enter
expect 'REPLAY 10/12' "j #10"
# The graph's marks after its range: an interval that stretched on a
# loaded machine leaves a blank cell, laid out by time, not a lost one.
graph_cells() { screen | sed -n 3p | sed 's/.*system util% [^ ]*//' | tr -d ' ' | awk '{ print length($0) }'; }
cells=$(graph_cells)
[ "${cells:-0}" -ge 9 ] || fail "after a jump the history has $cells cells, not 10: $(screen | sed -n 3p)"
keys '['
expect 'REPLAY 9/12' "[ after the jump"
cells=$(graph_cells)
[ "${cells:-0}" -ge 8 ] || fail "after [ the history has $cells cells, not 9: $(screen | sed -n 3p)"
# A view whose figures were recorded: figures at once, while paused.
keys 2
expect 'FE bound' "view 2 (topdown)"
screen | grep -E '^ +0 ' | grep -Eq '[0-9]+\.[0-9]' || fail "topdown figures while paused"
# A view whose events were not recorded: '-' with the reason.
keys 5
expect 'not in the recording|not counted' "a view that was not recorded says why"
keys 1
# Sorting by IPC, descending: the first row has the highest IPC.
keys '>' '>' '>' '>' '>'
screen | grep -q 'IPC[v^]' || screen | grep -q 'IPC' || fail "sort column"
keys ' '
expect 'REPLAY [2-9]/12|REPLAY 1[0-2]/12' "space resumes"
# + plays faster, as the speed in the header and the footer's "Speed" say
# (it slowed the replay down under a footer reading "Delay").
keys ' ' '+'
expect 'REPLAY [0-9]+/12 [0-9:]+ (paused )?x2 ' "+ doubles the replay's speed"
expect '\+-Speed' "the footer says + and - are the speed"
keys '-' '-'
expect 'REPLAY [0-9]+/12 [0-9:]+ (paused )?x0.4 ' "- - slows it to 0.4"
keys q
i=0
while [ ! -f "$TMP/status" ] && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
grep -q 'EXIT=0' "$TMP/status" 2>/dev/null || fail "q after a replay: $(cat "$TMP/status" 2>/dev/null)"

[ "$fails" -eq 0 ] && echo "e2e_replay_tui: all passed"
exit $((fails > 0))
