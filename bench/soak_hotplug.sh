#!/bin/sh
# soak_hotplug.sh [CYCLES] [CPU] [WARM]: takes CPU (default 1) offline and online
# again CYCLES times (default 100) while pmctop runs twice on the real
# perf backend: in batch mode (JSON lines, as --user nobody, so that
# reopening counters after the drop of privileges is exercised) and the
# dashboard in tmux (as root). Reports open file descriptors and RSS of
# both before and after, checks that the CPU is counted again at the end,
# and that no JSON interval misses a CPU from both its "cpus" and its
# "offline"/"returning" lists. The "before" figures are taken after WARM
# seconds (default 130), once the dashboard's history ring (600 intervals,
# 120 s at -d 0.2) is full, so that its planned growth is not counted as
# the soak's. Needs root, tmux and python3; not part of
# `make check` (docs/soak.md). The CPU is always brought back online, on
# error and on a signal too.
set -u
cycles=${1:-100}
cpu=${2:-1}
warm=${3:-130}
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pm="$(cd "$top_builddir" && pwd)/pmctop --events-dir $(cd "$top_srcdir" && pwd)/events"
ctl=/sys/devices/system/cpu/cpu$cpu/online
[ "$(id -u)" = 0 ] || { echo "soak_hotplug: needs root"; exit 77; }
[ -w "$ctl" ] || { echo "soak_hotplug: $ctl cannot be written (CPU $cpu cannot be hotplugged here)"; exit 77; }
command -v tmux >/dev/null && command -v python3 >/dev/null || { echo "soak_hotplug: needs tmux and python3"; exit 77; }
tmp=$(mktemp -d)
chmod 711 "$tmp"
sock="pmctop-soak-$$"
bpid=
back_online() { echo 1 >"$ctl" 2>/dev/null; }
cleanup() {
	back_online
	[ -n "$bpid" ] && kill "$bpid" 2>/dev/null
	tmux -L "$sock" kill-server >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
back_online

# fds PID, rss PID (kB)
fds() { ls "/proc/$1/fd" | wc -l; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

touch "$tmp/b.json"; chown nobody "$tmp/b.json"
$pm -b -d 0.2 --format json --user nobody >"$tmp/b.json" 2>"$tmp/b.err" &
bpid=$!
tmux -L "$sock" -f /dev/null new-session -d -s soak -x 160 -y 50 "exec $pm -d 0.2"
tpid=$(tmux -L "$sock" list-panes -t soak -F '#{pane_pid}')
sleep "$warm"
b_fd0=$(fds $bpid); b_rss0=$(rss $bpid); t_fd0=$(fds $tpid); t_rss0=$(rss $tpid)
ncpu=$(grep -c '^processor' /proc/cpuinfo)
echo "before: batch $b_fd0 fds, $b_rss0 kB; dashboard $t_fd0 fds, $t_rss0 kB; $ncpu CPUs"
start=$(date +%s)
i=0
while [ $i -lt "$cycles" ]; do
	echo 0 >"$ctl" || { echo "soak_hotplug: cannot take CPU $cpu offline"; exit 1; }
	sleep 0.5
	echo 1 >"$ctl" || { echo "soak_hotplug: cannot bring CPU $cpu back"; exit 1; }
	sleep 0.7
	i=$((i + 1))
	[ -d "/proc/$bpid" ] && [ -d "/proc/$tpid" ] || { echo "soak_hotplug: pmctop ended at cycle $i"; cat "$tmp/b.err"; exit 1; }
done
sleep 3
b_fd1=$(fds $bpid); b_rss1=$(rss $bpid); t_fd1=$(fds $tpid); t_rss1=$(rss $tpid)
echo "after $cycles cycles in $(($(date +%s) - start)) s: batch $b_fd1 fds, $b_rss1 kB; dashboard $t_fd1 fds, $t_rss1 kB"
screen=$(tmux -L "$sock" capture-pane -p -t soak)
kill "$bpid"; wait "$bpid"; bpid=
rc=0
[ "$b_fd1" -eq "$b_fd0" ] && [ "$t_fd1" -eq "$t_fd0" ] || { echo "FAIL: open fds changed"; rc=1; }
# The dashboard shows the CPU's row again (its number at the start of a line).
printf '%s\n' "$screen" | grep -Eq "^ *$cpu( |$)" || { echo "FAIL: CPU $cpu not on the dashboard at the end"; printf '%s\n' "$screen" | head -20; rc=1; }
NCPU=$ncpu CPU=$cpu python3 - "$tmp/b.json" <<'PY' || rc=1
import json, os, sys
ncpu, cpu = int(os.environ["NCPU"]), int(os.environ["CPU"])
lines = [l for l in open(sys.argv[1]) if l.strip()]
missing = off = ret = 0
for n, l in enumerate(lines):
    o = json.loads(l)
    seen = {c["cpu"] for c in o["cpus"]}
    for c in range(ncpu):
        if c not in seen and c not in o["offline"] and c not in o["returning"]:
            missing += 1
            print("interval %d: CPU %d in neither list" % (n, c))
    off += cpu in o["offline"]
    ret += cpu in o["returning"]
last = json.loads(lines[-1])
ok = missing == 0 and {c["cpu"] for c in last["cpus"]} == set(range(ncpu))
print("batch: %d intervals, CPU %d offline in %d, returning in %d, counted in %d; last interval counts %s; missing from both lists: %d"
      % (len(lines), cpu, off, ret, sum(1 for l in lines if cpu in {c["cpu"] for c in json.loads(l)["cpus"]}),
         sorted(c["cpu"] for c in last["cpus"]), missing))
sys.exit(0 if ok else 1)
PY
[ $rc = 0 ] && echo "soak_hotplug: passed"
exit $rc
