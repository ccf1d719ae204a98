#!/bin/sh
# dash_soak.sh: the dashboard's CPU and memory over a long run (not a test:
# docs/performance.md, "The dashboard at 1,024 CPUs over 10 minutes").
# Runs ./pmctop --sim zen5:SHAPE (default 4x16x8x2, 1,024 CPUs) in a 200x50
# tmux for SECS seconds (default 600: the history's 10 minutes at -d 1)
# and samples every 10 s, from /proc/PID: VmRSS, VmHWM and each thread's
# CPU time (utime + stime of /proc/PID/task/*/stat; the main thread is
# the screen's, the others the sampler's).
#
# The simulated PMU runs inside the sampler thread, standing in for the
# kernel. Its share is measured apart by bench/callgrind_own.sh at the
# same shape and the dashboard's plan (bench_sampler -g basic -w 40, the
# rotation backing off from 50 ms as the dashboard's does): instructions
# of the sampler's step in the simulator's calls and in pmctop's own
# code; pmctop's own work is then the screen thread's CPU plus the
# sampler thread's times pmctop / (sim + pmctop). Needs valgrind for
# that split.
#
# -x: a shorter run, extrapolated: the RSS at 600 s is the last sample's
# plus what the history keeps per interval (bench/bench_history at the
# same shape and plan) for each second left: it grows by that much each
# 1 s interval until it holds 600. (The RSS of a short run wanders by a
# few MB as the heap's free space is reused: its own slope is no guide.)
#   bench/dash_soak.sh [-x] [SECS] [SHAPE]
set -eu
extra=0
[ "${1:-}" = -x ] && { extra=1; shift; }
secs=${1:-600}
shape=${2:-4x16x8x2}
pmctop=${PMCTOP:-./pmctop}
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
command -v tmux >/dev/null || { echo "dash_soak.sh: needs tmux" >&2; exit 77; }
sock=dsoak$$
log=$(mktemp)
trap 'tmux -L $sock kill-server >/dev/null 2>&1 || :; rm -f "$log"' EXIT INT TERM
tmux -L $sock -f /dev/null new-session -d -s d -x 200 -y 50 \
	"TERM=xterm-256color exec $pmctop --events-dir $top_srcdir/events --no-config --sim zen5:$shape"
sleep 1
pid=$(pgrep -n -f "sim zen5:$shape" -P "$(tmux -L $sock display -p -t d '#{pane_pid}')" 2>/dev/null || tmux -L $sock display -p -t d '#{pane_pid}')
[ -d "/proc/$pid" ] || { echo "dash_soak.sh: pmctop did not start" >&2; exit 1; }
hz=$(getconf CLK_TCK)
# seconds, RSS kB, HWM kB, screen thread ticks, other threads' ticks
sample() {
	t=$1
	anon=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status")
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	ticks=$(for f in /proc/$pid/task/*/stat; do
		tid=${f#/proc/$pid/task/}; tid=${tid%/stat}
		# Fields after the ")" of the name: utime and stime are 12 and 13.
		sed 's/.*) //' "$f" | awk -v main=$((tid == pid)) '{ print main, $12 + $13 }'
	done | awk '{ if ($1) m += $2; else o += $2 } END { print m + 0, o + 0 }')
	echo "$t $rss $hwm $ticks $anon" >> "$log"
}
start=$(date +%s)
sample 0
t=0
while [ "$t" -lt "$secs" ]; do
	sleep 10
	[ -d "/proc/$pid" ] || { echo "dash_soak.sh: pmctop ended early" >&2; exit 1; }
	t=$(($(date +%s) - start))
	sample "$t"
done
tmux -L $sock send-keys -t d q
# The simulated PMU's share of the sampler thread, at the dashboard's plan:
# in instructions (callgrind), since the thread CPU time of its calls
# cannot be told apart on a loaded machine (bench_sampler times them on
# the wall clock, and gave the simulator more than the whole).
pick='s/.*pmctop \([0-9.]*\) M instructions per interval, simulated PMU \([0-9.]*\) M.*/\2 \1/p'
per=$("$top_builddir/bench/bench_history" -n 20 "$shape" 2>&1 | sed -n 's/^ *view .*history *\([0-9.]*\) KiB\/interval.*/\1/p')
split=$("$top_srcdir/bench/callgrind_own.sh" "$top_builddir/bench/bench_sampler" 10 "$shape" -g basic -w 40 2>/dev/null | sed -n "$pick")
echo "pmctop --sim zen5:$shape, 200x50 tmux, -d 1, $secs s"
echo "seconds  VmRSS_MB  VmHWM_MB  screen_%  sampler_%  (CPU over the last 10 s)"
awk -v hz="$hz" '
	{ if (NR > 1) printf "%7d  %8.1f  %8.1f  %8.2f  %9.2f\n", $1, $2 / 1000, $3 / 1000,
		100 * ($4 - pm) / hz / ($1 - pt), 100 * ($5 - po) / hz / ($1 - pt)
	  pt = $1; pm = $4; po = $5 }' "$log"
awk -v hz="$hz" -v sp="$split" -v per="${per:-0}" -v extra=$extra -v secs="$secs" '
	{ t[NR] = $1; r[NR] = $2; h[NR] = $3; m[NR] = $4; o[NR] = $5; an[NR] = $6 }
	END {
		# CPU from the first 30 s on (the start-up and the first plan apart).
		for (a = 1; a < NR && t[a] < 30; a++) ;
		if (a >= NR) a = 1
		dt = t[NR] - t[a]
		scr = 100 * (m[NR] - m[a]) / hz / dt; smp = 100 * (o[NR] - o[a]) / hz / dt
		split(sp, s, " "); f = (s[1] + s[2]) > 0 ? s[2] / (s[1] + s[2]) : 1
		printf "CPU from %d s to %d s: screen thread %.2f %%, sampler thread %.2f %% of a core\n", t[a], t[NR], scr, smp
		printf "the simulated PMU: %.1f %% of the sampler thread (callgrind_own.sh, instructions per interval: sim %s M, pmctop %s M)\n", 100 * (1 - f), s[1], s[2]
		printf "pmctop own work: %.2f %% of a core (screen %.2f + sampler %.2f)\n", scr + smp * f, scr, smp * f
		printf "RSS at the end: %.1f MB (VmHWM %.1f MB; anonymous %.1f MB, the rest mapped files)\n", r[NR] / 1000, h[NR] / 1000, an[NR] / 1000
		if (extra && t[NR] < 600) {
			g = per * 1.024
			printf "RSS at 600 s, extrapolated: %.1f MB (the history: %.1f kB an interval, bench_history)\n", (r[NR] + g * (600 - t[NR])) / 1000, g
		}
	}' "$log"
