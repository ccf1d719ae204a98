#!/bin/sh
# e2e_tour_keys.sh: a new user's tour of the keys on the simulated Zen 5 at
# 120x40 under --no-config, read off the screen as tmux shows it:
#  1. T's drill-down filter is the tasks view's: Tab or 1 out of it shows
#     every CPU again, without "filter 0" or the "who ran on" line;
#     e + Enter in the tasks view says the column went to the CPU views;
#  2. the filter prompt (\) starts empty, as htop's; Enter on it shows
#     every row, and Esc clears the filter too;
#  3. F2 under --no-config says saving is off because of --no-config, not
#     that HOME is missing;
#  4. a replay: T says once that the recording has no per-task figures,
#     the line goes with the view, and + shows the speed, not a delay;
#  5. every bad line of pmctoprc is reported with file:line, counted
#     where it does not fit, the view and sort column named.
# Exits 77 (skip) when tmux is missing or the program has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=tourkeys
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"

# CPU rows on screen (a number, then a number).
cpu_rows() { screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' | wc -l; }

start 120 40 "--sim zen5 --no-config -d 0.2"
expect 'SIMULATED' "dashboard up"

# 1. T, then Tab; T, then 1.
press T
expect 'who ran on CPU 0' "T drills into CPU 0's tasks"
keys Tab
sleep 0.6
screen | grep -q 'filter 0' && fail "Tab out of T's tasks view kept 'filter 0'"
screen | grep -q 'who ran on CPU 0' && fail "Tab out of T's tasks view kept the 'who ran on' line"
keys 1
expect '1:basic' "1 opens the basic view"
n=$(cpu_rows)
[ "$n" -ge 16 ] || { fail "after T and Tab the basic view shows $n CPU rows"; screen | sed 's/^/  | /'; }
press T
expect 'who ran on CPU 0' "T again"
keys 1
sleep 0.6
n=$(cpu_rows)
[ "$n" -ge 16 ] || { fail "after T and 1 the basic view shows $n CPU rows"; screen | sed 's/^/  | /'; }
screen | grep -Eq 'filter 0|who ran on' && { fail "T then 1 left the drill-down's filter or line"; screen | sed 's/^/  | /'; }
# The CPU views' own filter comes back after the drill-down.
press '\'
press -l '0-3'
press Enter
expect 'filter 0-3' "a CPU filter of the basic view"
press T
expect 'who ran on CPU 0' "T from the filtered view"
keys T
expect 'filter 0-3' "T back restores the basic view's own filter"

# e + Enter in the tasks view says where the column went.
press T
expect 'who ran on CPU 0' "T for the event picker"
press e
expect 'Add an event column' "the event picker in the tasks view"
keys -l 'brn_misp'
expect 'ex_ret_brn_misp' "search result"
press Enter
expect 'ex_ret_brn_misp: a column of the CPU views' "e + Enter in the tasks view says the column is the CPU views'"
keys T
expect 'ex_ret_brn_misp' "the column in the CPU view"

# 2. The prompt starts empty; Enter on it clears; Esc clears.
keys '\'
keys -l '0-3'
keys Enter
expect 'filter 0-3' "a filter to start from"
keys '\'
last=$(screen | grep 'empty: all' | tail -n 1)
echo "$last" | grep -q 'empty: all): *$' || fail "the filter prompt is not empty: '$last'"
keys Enter
sleep 0.6
screen | grep -q 'filter 0-3' && fail "\\ Enter kept the old filter"
n=$(cpu_rows)
[ "$n" -ge 16 ] || fail "\\ Enter: only $n CPU rows"
keys '\'
keys -l '0-3'
keys Enter
expect 'filter 0-3' "the filter again"
keys '\'
keys Escape
sleep 0.8
screen | grep -q 'filter 0-3' && { fail "\\ Esc kept the filter (htop clears it)"; screen | sed 's/^/  | /'; }

# 3. F2 under --no-config.
press F2
expect 'pmctop setup' "F2 opens the setup screen"
screen | grep -q 'no HOME' && fail "F2 blames HOME under --no-config"
expect 'off: --no-config' "F2 says saving is off under --no-config"
press s
expect 'not saved: --no-config is on' "s under --no-config gives the true reason"
screen | grep -q 'XDG_CONFIG_HOME nor HOME' && fail "s blames HOME under --no-config"
keys Escape
quit_ok "tour keys"

# 4. A replay (a recording of the dashboard): T says once that the
# recording has no per-task figures and promises none; the line goes with
# the view; + is the speed (x2 in the badge), not a "delay".
EVENTS=$(cd "$top_srcdir" && pwd)/events
start 120 40 "--events-dir $EVENTS --sim zen5 --no-config -d 0.2 -n 8 -w $TMP/d.rec"
i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 60 ]; do sleep 0.2; i=$((i + 1)); done
grep -q 'EXIT=0' "$TMP/status" || fail "recording: $(cat "$TMP/status" 2>/dev/null)"
start 120 40 "--events-dir $EVENTS --no-config -r $TMP/d.rec"
expect 'REPLAY [0-9]+/8' "the replay is up"
press Space
press T
expect 'no per-task figures' "T in a replay says the recording has no per-task figures"
screen | grep -q 'sampling who runs' && { fail "T in a replay promises figures that never come"; screen | sed 's/^/  | /'; }
keys T
sleep 0.6
screen | grep -q 'no per-task figures' && { fail "the tasks view's line stayed after T back"; screen | sed 's/^/  | /'; }
keys Tab
sleep 0.6
screen | grep -q 'no per-task figures' && fail "the tasks view's line stayed in the next view"
keys +
sleep 0.6
screen | grep -Eq 'delay [0-9.]+s' && { fail "+ in a replay shows a delay"; screen | sed 's/^/  | /'; }
expect 'REPLAY [0-9]+/8 .*x2' "+ doubles the replay's speed"
quit_ok "tour keys replay"

# 5. Every bad line of pmctoprc is said, with where; what does not fit is
# counted ("and N more"); the view and the sort column are named.
mkdir -p "$TMP/config/pmctop"
printf 'bogus 1\nview nosuchview\nsort foo\n' > "$TMP/config/pmctop/pmctoprc"
start 120 40 "--sim zen5 -d 0.2"
expect 'pmctoprc:1: unknown setting .bogus' "the bad line 1"
expect 'and 2 more' "the lines that do not fit are counted"
quit_ok "tour keys settings"
start 400 40 "--sim zen5 -d 0.2"
expect 'pmctoprc:1: unknown setting' "line 1 at 400 columns"
expect "pmctoprc:2: no view 'nosuchview'" "the missing view is named, with its line"
expect "pmctoprc:3: no column 'foo' to sort by" "sort foo is reported"
quit_ok "tour keys settings wide"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
