#!/bin/sh
# key_latency.sh: how long the dashboard takes to answer each key, at a
# size of machine (not a test: docs/performance.md, "Key latency").
# Runs ./pmctop --sim zen5:SHAPE in a 200x50 tmux with PMCTOP_KEY_TIMES
# (ui/keytime.h), then sends the keys one by one, ROUNDS times, and takes
# two measurements of each:
#   outside: from tmux send-keys to the pane's text changing (capture-pane
#     polled as fast as tmux answers, 2-5 ms a poll here); a refresh that
#     happens to fall in the wait makes one figure early, never late;
#   inside: the hook's frame_ms, from curses' read of the key to the first
#     frame after it drawn (refresh() returned), and next_interval_ms, to
#     the first interval the sampler made after it (the figures that a
#     re-plan, c or a view's key, asks for come with it).
# Prints the median and the largest of each per key.
#   bench/key_latency.sh [SHAPE] [ROUNDS] [DELAY]
#   (defaults 4x16x8x2: 1,024 CPUs; 5 rounds; -d 2)
set -eu
shape=${1:-4x16x8x2}
rounds=${2:-5}
delay=${3:-2}
pmctop=${PMCTOP:-./pmctop}
top_srcdir=${top_srcdir:-.}
command -v tmux >/dev/null || { echo "key_latency.sh: needs tmux" >&2; exit 77; }
tmp=$(mktemp -d)
sock=keylat$$
trap 'tmux -L $sock kill-server >/dev/null 2>&1 || :; rm -rf "$tmp"' EXIT INT TERM
tmux -L $sock -f /dev/null new-session -d -s k -x 200 -y 50 \
	"PMCTOP_KEY_TIMES=$tmp/inside TERM=xterm-256color $pmctop --events-dir $top_srcdir/events --no-config --sim zen5:$shape -d $delay; sleep 30"
# The first intervals of a large machine take a while: wait for a CPU row.
i=0
until tmux -L $sock capture-pane -p -t k | grep -q 'SIMULATED'; do
	i=$((i + 1)); [ $i -lt 200 ] || { echo "key_latency.sh: no screen" >&2; exit 1; }
	sleep 0.1
done
sleep 3
ms() { date +%s%N | awk '{ printf "%.1f", $1 / 1e6 }'; }
# One key: NAME TMUX-KEY. The pane before, the key, then the pane until it
# differs (2 s at most: "-" where it did not change).
one() {
	tmux -L $sock capture-pane -e -p -t k > "$tmp/before"
	t0=$(ms)
	tmux -L $sock send-keys -t k "$2"
	n=0
	while :; do
		tmux -L $sock capture-pane -e -p -t k > "$tmp/after"
		cmp -s "$tmp/before" "$tmp/after" || break
		n=$((n + 1)); [ $n -lt 400 ] || break
	done
	t1=$(ms)
	if cmp -s "$tmp/before" "$tmp/after"; then echo "$1 -"; else echo "$1 $(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }')"; fi >> "$tmp/outside"
	echo "$1" >> "$tmp/names"
	sleep 0.4
}
# Each key is followed by what undoes it, so that every round starts from
# the same screen: the default view, CPU rows, no dialog.
r=0
while [ $r -lt "$rounds" ]; do
	one Down Down; one Up Up; one PgDn NPage; one Home Home
	one Tab Tab; one BTab BTab; one 2 2; one 1 1
	one '>' '>'; one '<' '<'; one R R; one R R
	one t t; one t t; one t t; one t t
	one u u; one u u
	one c c; one c c
	one Enter Enter; one Escape Escape
	one T T; one F5 F5; one F5 F5; one T T
	r=$((r + 1))
done
tmux -L $sock send-keys -t k q
sleep 0.5
# The hook's lines are in the order of the keys read: pair them with names.
grep '^key=' "$tmp/inside" | sed 's/[a-z_]*=//g' | paste -d' ' "$tmp/names" - > "$tmp/in2" || :
echo "pmctop --sim zen5:$shape -d $delay, 200x50, $rounds rounds (ms)"
awk '
	FNR == NR { if ($2 != "-") { out[$1] = out[$1] " " $2 }; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 }; next }
	{ fr[$1] = fr[$1] " " $4; nx[$1] = nx[$1] " " $5 }
	function stat(s,   a, n, i, j, t) {
		n = split(s, a, " "); if (n == 0) return "-"
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return sprintf("%s/%s", a[int((n + 1) / 2)], a[n])
	}
	END {
		printf "%-7s %-16s %-16s %-16s\n", "key", "outside med/max", "frame med/max", "interval med/max"
		for (i = 1; i <= k; i++) { n = order[i]; printf "%-7s %-16s %-16s %-16s\n", n, stat(out[n]), stat(fr[n]), stat(nx[n]) }
	}' "$tmp/outside" "$tmp/in2"
