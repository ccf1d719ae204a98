#!/bin/sh
# callgrind_own.sh: pmctop's own instructions per simulated interval, the
# figure docs/performance.md compares: valgrind's callgrind counts the
# sampler's step (sampler_step) and the simulated PMU's share inside it
# (bench_sampler's t_* wrappers) is taken out.
#
# Usage: bench/callgrind_own.sh [BENCH_SAMPLER] [INTERVALS] [SHAPE] [BENCH_SAMPLER'S OPTIONS]
# e.g.   bench/callgrind_own.sh bench/bench_sampler 10 2x12x8x2
#        bench/callgrind_own.sh bench/bench_sampler 10 4x16x8x2 -g basic -w 40
#        (the dashboard's plan: bench/dash_soak.sh)
set -eu
bin=${1:-bench/bench_sampler}
n=${2:-10}
shape=${3:-2x12x8x2}
[ $# -gt 3 ] && shift 3 || set --
command -v valgrind >/dev/null || { echo "callgrind_own.sh: valgrind is not installed" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# bench_sampler runs each shape in a child: follow it.
valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$d/cg.%p" \
	--toggle-collect=sampler_step "$bin" -n "$n" -r 50 "$@" "$shape" >"$d/log" 2>&1
f=$(ls -S "$d"/cg.* | head -n 1)
callgrind_annotate --inclusive=yes --threshold=100 "$f" >"$d/ann" 2>/dev/null
tot=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}' "$d/ann")
sim=$(grep -E 'bench_sampler\.c:t_[a-z_]+ \[' "$d/ann" | awk '{gsub(",", "", $1); s += $1} END {print s + 0}')
awk -v t="$tot" -v s="$sim" -v n="$n" -v sh="$shape" 'BEGIN {
	printf "%s: pmctop %.2f M instructions per interval, simulated PMU %.2f M (%d intervals)\n",
	       sh, (t - s) / n / 1e6, s / n / 1e6, n }'
