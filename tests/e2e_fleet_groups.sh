#!/bin/sh
# e2e_fleet_groups.sh: the fleet dashboard's groups of hosts (g), read off
# the screen as tmux shows it: four simulated exporters of three models
# (Zen 5 of 32 and of 4 CPUs, Sapphire Rapids, the generic model) in
# direct mode are, after g, one box per model with its host count; the
# Zen 5 group's IPC is its hosts' instructions over their cycles (each
# host's cycle rate is GHz x util x CPUs on its row of the same screen),
# within 1 %, lies between its hosts' IPCs and is not their plain mean
# (the hosts differ eightfold in cycles); g again hides the boxes. Skips
# (77) without tmux or python3, or without libcurl in pmctop.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=fleetgroups
. "$top_srcdir/tests/e2e_fleet_tmux.sh"
start_exporters 90 "" zen5 zen5:1x1x2x2 spr generic

start 170 30 "--no-config --events-dir $events --fleet $list -d 1"
expect 'FLEET 4 hosts' "the header names the fleet"
expect "127.0.0.1:$port_4 .*[0-9]" "the hosts' figures"
screen | grep -q 'model amd-zen5' && fail "groups shown before g"
screen | tail -1 | grep -q 'gGroup' || fail "the footer does not offer g: $(screen | tail -1)"
keys g
expect 'model amd-zen5: 2 hosts' "one box for the two Zen 5 hosts"
expect 'model intel-spr: 1 host ' "one box for the Sapphire Rapids host"
expect 'model generic: 1 host ' "one box for the generic host"
[ "$(screen | grep -o 'model [a-z0-9-]*: [0-9]* host' | wc -l)" = 3 ] ||
	{ fail "not three groups"; screen | sed 's/^/  | /'; }

# The Zen 5 group's IPC against its hosts' rows of the same screen (two
# captures alike, so that no redraw is between them).
check_ipc() {
	a=$(screen); b=$(screen)
	[ "$a" = "$b" ] || return 2
	printf '%s\n' "$a" | python3 -c '
import re, sys
scr = sys.stdin.read()
p1, p2 = sys.argv[1], sys.argv[2]
box = re.search(r"model amd-zen5: 2 hosts.*?\n.*?IPC ~?([0-9.]+)", scr)
if not box:
    print("no Zen 5 box"); sys.exit(1)
g = float(box.group(1))
hosts = []
for p in (p1, p2):
    m = re.search(r"^127\.0\.0\.1:%s +([0-9]+) +~?([0-9.]+) +~?([0-9.]+) +~?([0-9.]+)" % p, scr, re.M)
    if not m:
        print("no row of", p); sys.exit(1)
    cpus, util, ipc, ghz = map(float, m.groups())
    hosts.append((ipc, cpus * util * ghz))
want = sum(i * c for i, c in hosts) / sum(c for _, c in hosts)
mean = sum(i for i, _ in hosts) / 2
lo, hi = min(i for i, _ in hosts), max(i for i, _ in hosts)
print("group IPC %.3f, instructions over cycles %.4f, hosts %s, plain mean %.3f" % (g, want, hosts, mean))
ok = abs(g - want) <= 0.01 * want and lo <= g <= hi and abs(g - mean) > 0.05 * mean
sys.exit(0 if ok else 1)
' "$port_1" "$port_2"
}
rc=2
i=0
while [ $rc = 2 ] && [ $i -lt 10 ]; do
	check_ipc; rc=$?
	i=$((i + 1))
	[ $rc = 2 ] && sleep 0.2
done
[ $rc = 0 ] || { fail "the Zen 5 group's IPC is not its instructions over its cycles"; screen | sed 's/^/  | /'; }
keys g
sleep 0.3
screen | grep -q 'model amd-zen5' && { fail "g again did not hide the groups"; screen | sed 's/^/  | /'; }
quit_ok "fleet groups"
[ $fails = 0 ]
