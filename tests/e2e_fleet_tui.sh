#!/bin/sh
# e2e_fleet_tui.sh: the dashboard of a fleet (pmctop --fleet HOST:PORT,...),
# read off the screen as tmux shows it: three simulated exporters (Zen 5,
# Sapphire Rapids, the generic model) are three host rows with their
# figures and SIMULATED; > sorts them (by IPC, the generic host last), \
# filters them by name (spr keeps one), q quits cleanly. Skips (77) without
# tmux or python3, or without libcurl in pmctop.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=fleettui
. "$top_srcdir/tests/e2e_fleet_tmux.sh"
start_exporters 60 "" zen5 spr generic

start 170 24 "--no-config --events-dir $events --fleet $list -d 0.5"
expect 'FLEET 3 hosts' "the header names the fleet"
expect "127.0.0.1:$port_generic .*[0-9]" "the generic host's figures"
for p in $port_zen5 $port_spr $port_generic; do
	screen | grep -q "^127.0.0.1:$p " || { fail "no row of host 127.0.0.1:$p"; screen | sed 's/^/  | /'; }
done
screen | grep -q 'HOST *▲' || fail "the rows are not sorted by HOST at first"
# The screen speaks of hosts, not of this machine: SIMULATED (every host
# is), no rotation or "no PMU" of the machine pmctop runs on, a count of
# CPUs without decimals, and a footer without the CPU views' keys.
line1=$(screen | head -1)
echo "$line1" | grep -q SIMULATED || fail "the header does not say SIMULATED: $line1"
echo "$line1" | grep -q 'rotate\|no PMU' && fail "the header speaks of this machine's PMU: $line1"
screen | grep -q "^127.0.0.1:$port_zen5 *32 " || { fail "Zen 5's CPUs are not a whole 32"; screen | sed 's/^/  | /'; }
screen | grep -q 'rows per host' || fail "the tab line does not say rows per host"
foot=$(screen | tail -1)
echo "$foot" | grep -q 'EnterHost' || fail "the footer does not offer Enter for a host: $foot"
echo "$foot" | grep -q 'cCCX\|tRows\|TTasks\|eEvent' && fail "the footer offers the CPU views' keys: $foot"
# The hosts' order on screen, by port.
order() { screen | sed -n 's/^127\.0\.0\.1:\([0-9]*\) .*/\1/p' | tr '\n' ' '; }
# > three times: CPUs, util%, then IPC, highest first.
keys '>'
keys '>'
keys '>'
expect 'IPC▼' "> moved the sort to IPC"
sleep 0.6
o=$(order)
case "$o" in
*"$port_generic ") ;;
*) fail "sorted by IPC, the generic host (the lowest IPC) is not last: $o"; screen | sed 's/^/  | /' ;;
esac
screen | grep -q "127.0.0.1:$port_spr .*" || fail "no spr row before the filter"
keys '\'
type_text 'spr'
keys Enter
expect 'filter spr' "the filter is shown"
sleep 0.6
o=$(order)
[ "$o" = "$port_spr " ] || { fail "the filter spr kept: $o"; screen | sed 's/^/  | /'; }
quit_ok "fleet dashboard"
# Settings saved from the fleet's screen (F2, s) go to their own file,
# fleetrc: saved over pmctoprc, its view "fleet" and its sort would
# replace the host dashboard's.
start 170 24 "--events-dir $events --fleet $list -d 0.5"
expect "127.0.0.1:$port_spr .*[0-9]" "the fleet's rows with settings read"
keys '>'
keys '>'
keys '>'
expect 'IPC▼' "> moved the sort to IPC"
keys F2
keys s
i=0; while [ ! -s "$XDG_CONFIG_HOME/pmctop/fleetrc" ] && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
grep -q '^view fleet$' "$XDG_CONFIG_HOME/pmctop/fleetrc" 2>/dev/null && grep -q '^sort ipc' "$XDG_CONFIG_HOME/pmctop/fleetrc" ||
	fail "F2 s in a fleet did not save its view and sort to fleetrc: $(cat "$XDG_CONFIG_HOME/pmctop/fleetrc" 2>&1)"
[ -e "$XDG_CONFIG_HOME/pmctop/pmctoprc" ] && fail "F2 s in a fleet wrote the host dashboard's pmctoprc"
keys Escape
quit_ok "fleet dashboard with saved settings"
[ $fails = 0 ]
