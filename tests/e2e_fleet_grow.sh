#!/bin/sh
# e2e_fleet_grow.sh: a direct-mode fleet whose targets file changes while
# the dashboard runs (docs/fleet.md), read off the screen as tmux shows
# it. One simulated exporter, `HOST:PORT zone=a` in the file, the
# dashboard started grouped by zone (--fleet-group zone): "zone a: 1
# host". Then the file is rewritten: the exporter in zone b, and 600
# targets more (loopback addresses where nothing listens) in zone far.
# At the next refreshes the header counts 601 hosts, the groups are
# "zone b: 1 host" and "zone far: 600 hosts" with no "zone a" left, and
# the last of the new hosts has a row of its own (the dashboard's rows,
# made at start for 512, grew). Then, grouped by model, the exporter
# restarts as another model: its group follows, none of the old is left;
# by rack (61 of them), the groups fold into a heat map. Skips (77) without tmux or python3, or
# without libcurl in pmctop.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=fleetgrow
. "$top_srcdir/tests/e2e_fleet_tmux.sh"
port=$(free_port)
timeout 60 "$PMCTOP" --events-dir "$events" --sim zen5 --daemon -d 0.3 --listen "127.0.0.1:$port" 2>/dev/null &
exporter=$!
trap 'kill $exporter 2>/dev/null; cleanup' EXIT INT TERM
none=$(free_port)
printf '# the fleet\n127.0.0.1:%s zone=a rack=r1\n' "$port" >"$TMP/targets"
sleep 0.5

start 170 40 "--no-config --events-dir $events --fleet @$TMP/targets --fleet-group zone -d 0.5"
expect 'FLEET 1 hosts' "the header names the fleet"
expect 'zone a: 1 host ' "grouped by zone from the start"
{
	printf '127.0.0.1:%s zone=b rack=r1\n' "$port"
	for a in 1 2 3; do
		for b in $(seq 1 200); do
			printf '127.0.%s.%s:%s zone=far rack=f%s\n' "$a" "$b" "$none" $((b % 60))
		done
	done
} >"$TMP/targets.new"
mv "$TMP/targets.new" "$TMP/targets"
expect 'FLEET 601 hosts' "the targets added to the file"
expect 'zone far: 600 hosts' "a group of the new targets"
expect 'zone b: 1 host ' "the exporter relabelled zone b"
screen | grep -q 'zone a:' && { fail "a group of the old label is left"; screen | sed 's/^/  | /'; }
# The last host: a row beyond the 512 made at start.
keys '\'
keys "127.0.3.200:$none" Enter
expect "^127\.0\.3\.200:$none " "a row for the 601st host"
# The exporter restarted as another model: its group follows.
keys g
keys g
expect 'model amd-zen5: 1 host ' "grouped by model"
kill $exporter
wait $exporter 2>/dev/null
timeout 60 "$PMCTOP" --events-dir "$events" --sim spr --daemon -d 0.3 --listen "127.0.0.1:$port" 2>/dev/null &
exporter=$!
expect 'model intel-spr: 1 host ' "the restarted exporter's model"
screen | grep -q 'amd-zen5' && { fail "a group of the old model is left"; screen | sed 's/^/  | /'; }
# 61 racks do not fit as boxes nor lines: a heat map, a cell a rack.
keys g
expect '^61 groups by rack' "the racks' heat map"
expect 'f59 +9 ' "the cell of rack f59, its 9 hosts"
expect '@ r1 +1 +~?[0-9.]+' "the cell of rack r1, its host and IPC marked highest"
quit_ok "fleet grow"
[ $fails = 0 ]
