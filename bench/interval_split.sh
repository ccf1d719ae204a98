#!/bin/sh
# interval_split.sh: where each interval of a batch run spends its CPU
# time, between and inside its system calls, for pmctop and the floor
# (bench/floor_vs_perf_stat) side by side (docs/performance.md, "Cold
# intervals"). It builds bench/interval_split.c as a library preloaded
# into each program, runs each ROUNDS times in turn, and prints each
# run's medians: e.g. "-rd 9.8 rd 21.7" is 9.8 us of user space from the
# wake-up to the first read, then 21.7 us inside it.
#
#   bench/interval_split.sh [-r ROUNDS] [-d SECS] [-n N] [PROGRAM...]
#
# PROGRAM defaults to ./pmctop and 'bench/floor_vs_perf_stat -w 870'; each
# runs as `PROGRAM -b -d SECS -n N -o FILE` (default 0.1 s, 60 intervals).
# Run from the build directory; needs a C compiler.
set -eu
rounds=2 delay=0.1 n=60
while getopts r:d:n: o; do
	case $o in
	r) rounds=$OPTARG ;;
	d) delay=$OPTARG ;;
	n) n=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-d SECS] [-n N] [PROGRAM...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- ./pmctop 'bench/floor_vs_perf_stat -w 870'
src=$(dirname "$0")/interval_split.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -shared -fPIC -o "$tmp/split.so" "$src" -ldl
r=0
while [ "$r" -lt "$rounds" ]; do
	for prog in "$@"; do
		rm -f "$tmp/out"
		# shellcheck disable=SC2086 # PROGRAM may carry its own arguments
		line=$(LD_PRELOAD="$tmp/split.so" $prog -b -d "$delay" -n "$n" -o "$tmp/out" 2>&1 >/dev/null |
			grep '^interval_split:' || echo "interval_split: $prog gave no figures")
		printf '%s\n  %s\n' "$prog" "${line#interval_split: }"
	done
	r=$((r + 1))
done
