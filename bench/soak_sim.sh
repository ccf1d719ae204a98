#!/bin/sh
# soak_sim.sh [INTERVALS] [SHAPE] [VIEW]: runs the simulated PMU in fast-forward
# (--sim zen5:SHAPE,ff=1: no waiting between intervals) for INTERVALS
# intervals (default 1000000) with the exporter as the only consumer
# (--daemon --listen on a loopback port), and samples pmctop's RSS with the
# count of intervals done (pmctop_intervals_total, scraped) about every
# second. Prints the samples and the RSS at the start, middle and end; fails
# when the RSS at the end exceeds the RSS after the first 10 % of intervals
# by more than 1 MiB. VIEW (-g; e.g. tasks: per-task sampling, with its
# short-lived processes coming and going) defaults to the model's batch
# view. Needs curl; not part of `make check` (docs/soak.md).
set -u
want=${1:-1000000}
shape=${2:-1x2x2x2}
view=${3:+-g $3}
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
command -v curl >/dev/null || { echo "soak_sim: needs curl"; exit 77; }
port=$((30000 + $$ % 20000))
"$top_builddir/pmctop" --events-dir "$top_srcdir/events" --sim "zen5:$shape,ff=1" -d 1 $view \
	--daemon --listen "127.0.0.1:$port" &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
start=$(date +%s)
samples=
n=0
while [ "$n" -lt "$want" ]; do
	sleep 1
	[ -d "/proc/$pid" ] || { echo "soak_sim: pmctop ended early"; exit 1; }
	n=$(curl -fsS "http://127.0.0.1:$port/metrics" 2>/dev/null | awk '/^pmctop_intervals_total / { printf "%d", $2 }')
	[ -n "$n" ] || n=0
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	samples="$samples$(($(date +%s) - start)) $n $rss
"
done
kill "$pid"; wait "$pid"; trap - EXIT
printf '%s' "$samples" | awk -v want="$want" '
	{ t[NR] = $1; n[NR] = $2; r[NR] = $3 }
	END {
		print "seconds intervals rss_kB"
		step = NR > 20 ? int(NR / 20) : 1
		for (i = 1; i <= NR; i += step) print t[i], n[i], r[i]
		if ((NR - 1) % step) print t[NR], n[NR], r[NR]
		for (i = 1; i <= NR && n[i] < want / 10; i++) ;
		mid = 1; for (j = 1; j <= NR && n[j] < want / 2; j++) mid = j + 1
		printf "RSS: %d kB at %d intervals (start), %d kB at %d (middle), %d kB at %d (end); %.0f intervals/s\n",
			r[i], n[i], r[mid], n[mid], r[NR], n[NR], n[NR] / t[NR]
		if (r[NR] - r[i] > 1024) { print "FAIL: RSS grew by " r[NR] - r[i] " kB"; exit 1 }
		print "soak_sim: passed"
	}'
