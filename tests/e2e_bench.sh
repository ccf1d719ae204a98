#!/usr/bin/env bash
# e2e_bench.sh: the benchmarks on the simulated PMU, run once as a smoke
# test (none of their figures is judged: a speed is for bench/ to print,
# never for a test to assert): each runs to the end on a small machine and
# prints the figures it promises, so that a benchmark cannot rot unseen.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
bench="$top_builddir/bench"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# bench_sampler with every phase apart (-p), on two shapes, with and
# without the tasks view: one line of the sampler's cost and one of the
# phases per shape.
for tasks in "" -t; do
	out=$("$bench/bench_sampler" -n 3 -p $tasks -E "$top_srcdir/events" 1x1x2x2 1x2x2x2 2>&1) ||
		fail "bench_sampler -p $tasks exited $?: $out"
	for cpus in 4 8; do
		echo "$out" | grep -Eq "^ +$cpus CPUs .* ms/interval .*peak RSS" ||
			fail "bench_sampler $tasks: no cost line for $cpus CPUs: $out"
		echo "$out" | grep -Eq "^ +$cpus CPUs  per interval, ms: read\+rotate -?[0-9.]+  derive [0-9.]+  export [0-9.]+  json [0-9.]+  record [0-9.]+$" ||
			fail "bench_sampler $tasks: no phase line for $cpus CPUs: $out"
	done
done

out=$("$bench/bench_history" -n 3 -E "$top_srcdir/events" 1x1x2x2 2>&1) || fail "bench_history exited $?: $out"
echo "$out" | grep -q "history" || fail "bench_history printed no history figures: $out"

# bench_frame: a frame drawn by curses into /dev/null (xterm-256color).
out=$("$bench/bench_frame" -n 3 -E "$top_srcdir/events" 1x1x2x2 2>&1) || fail "bench_frame exited $?: $out"
echo "$out" | grep -Eq "^ +4 CPUs  per frame, ms: rows\+columns [0-9.]+  draw [0-9.]+  \(200x50, view " ||
	fail "bench_frame printed no frame figures: $out"

out=$("$bench/bench_sim" -n 1 -E "$top_srcdir/events" 2>&1) || fail "bench_sim exited $?: $out"
echo "$out" | grep -q "rotation:" || fail "bench_sim printed no rotation figure: $out"

# floor_vs_perf_stat: real system-wide counters, so only where they can be
# opened (root); it writes one line of -w bytes per interval.
floor_note=""
tmp=$(mktemp -d)
if out=$("$bench/floor_vs_perf_stat" -b -d 0.01 -n 3 -w 100 -o "$tmp/floor.txt" --model x 2>&1); then
	size=$(wc -c <"$tmp/floor.txt")
	[ "$size" -eq 300 ] || fail "floor_vs_perf_stat wrote $size bytes for 3 intervals of 100: $out"
	floor_note=", floor_vs_perf_stat"
elif echo "$out" | grep -q "perf_event_open on CPU"; then
	floor_note=" (floor_vs_perf_stat skipped: $out)"
else
	fail "floor_vs_perf_stat: $out"
fi
rm -rf "$tmp"

[ "$fails" -eq 0 ] || exit 1
echo "ok: bench_sampler -p (with and without tasks), bench_history, bench_frame, bench_sim$floor_note"
