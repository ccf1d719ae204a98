#!/bin/sh
# phases.sh: where a batch interval's user-space work goes, phase by
# phase, on the real perf backend (what this machine counts: on a VM
# without a PMU, the software events and /proc/stat), and the CPU time of
# each phase on the simulated PMU at 2, 16, 384 and 1,024 CPUs.
#
# Instructions (valgrind's callgrind, deterministic): pmctop -b runs once
# with one interval and once with N + 1 (-d 0.01), and the difference of
# each phase's inclusive count, divided by N, is its cost per interval:
#   read    sampler_read_all + sampler_run_interval (the group reads,
#           /proc/stat, the rotation)
#   derive  derive_snapshot
#   snap    the rest of sampler_build_snapshot (the snapshot's frame,
#           companions such as the energy check)
#   write   output_write (formatting and the write to the file)
#   other   the rest of an interval (the wait, the loop, the clocks)
# and the one-interval run's total is the start-up's instructions, split
# into the dynamic loader (_dl_start), finding the models (model_list),
# reading a hand-written model's files (model_load_under less its
# build), building it (evdef_build_set_kept, or evdef_build_set before
# issue 39's fourth start-up cut), freeing it at exit (model_free:
# 0 since issue 39 left the model to the kernel at exit, but in sanitizer
# builds) and the rest (the interval itself, the topology, the sampler's
# set-up).
# The screen is not a batch phase: bench/bench_frame times a frame.
#
# CPU time (bench_sampler -p, thread CPU time, noisy on a shared machine):
# read+rotate, derive (pmctop's own; "sim" is the simulated kernel).
#
# Usage: bench/phases.sh [-n N] [-f FORMATS] [-s] [-- PMCTOP_ARGS...]
#   -n N        intervals to count (default 100)
#   -f FORMATS  batch formats, comma-separated (default table,csv,json)
#   -s          also bench_sampler -p at 2, 16, 384 and 1,024 CPUs
# e.g. bench/phases.sh -n 200 -s -- --model intel-arch
# Run from the build directory, as root for the real backend.
set -eu
n=100
formats=table,csv,json
sim=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-f) formats=$2; shift 2 ;;
	-s) sim=1; shift ;;
	--) shift; break ;;
	*) echo "usage: bench/phases.sh [-n N] [-f FORMATS] [-s] [-- PMCTOP_ARGS...]" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "phases.sh: valgrind is not installed" >&2; exit 1; }
d=$(mktemp -d)
trap '[ -n "${PHASES_KEEP:-}" ] || rm -rf "$d"' EXIT

# Inclusive instructions of each function of a profile, "count name":
# callgrind lists a function once per source file its code came from
# with its object, a header's inlined lines without it (arena.h's
# arena_get in derive_snapshot), and sometimes once more, without its
# object, as the sum of all: the lines with the object are added up,
# and a line without it counts where it is more (the sum), compared as
# numbers (as strings, 58574 was more than 3062863).
incl() {
	callgrind_annotate --auto=no --tree=none --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { c = $1; gsub(",", "", c); s["TOTAL"] = c; next }
		     $1 ~ /^[0-9,]+$/ { c = $1; gsub(",", "", c); f = $0; obj = / \[[^]]*\]$/;
			sub(/^ *[0-9,]+ +(\([^)]*\) +)?/, "", f); sub(/ \[.*$/, "", f); sub(/^.*:/, "", f);
			if (obj) s[f] += c; else if (c + 0 > t[f] + 0) t[f] = c + 0 }
		     END { for (f in t) if (t[f] > s[f] + 0) s[f] = t[f]; for (f in s) print s[f], f }'
}

for fmt in $(echo "$formats" | tr , ' '); do
	for k in 1 $((n + 1)); do
		valgrind --tool=callgrind --callgrind-out-file="$d/cg.$fmt.$k" ./pmctop -b -d 0.01 -n "$k" \
			--format "$fmt" -o "$d/out" "$@" >/dev/null 2>"$d/err" ||
			{ cat "$d/err" >&2; exit 1; }
		incl "$d/cg.$fmt.$k" >"$d/in.$fmt.$k"
	done
	awk -v n="$n" -v fmt="$fmt" '
		FNR == 1 { file++ }
		{ v[file, $2] = $1 }
		END {
			split("TOTAL sampler_read_all sampler_run_interval derive_snapshot sampler_build_snapshot output_write", k, " ")
			for (i in k) per[k[i]] = (v[2, k[i]] - v[1, k[i]]) / n
			read = per["sampler_read_all"] + per["sampler_run_interval"]
			derive = per["derive_snapshot"]
			snap = per["sampler_build_snapshot"] - derive
			write = per["output_write"]
			other = per["TOTAL"] - read - derive - snap - write
			printf "%-5s instructions per interval: %.1f k (read %.1f k, derive %.1f k, snap %.1f k, write %.1f k, other %.1f k); start-up %.2f M\n",
			       fmt, per["TOTAL"] / 1e3, read / 1e3, derive / 1e3, snap / 1e3, write / 1e3, other / 1e3, v[1, "TOTAL"] / 1e6
			ld = v[1, "_dl_start"]; list = v[1, "model_list"]; build = v[1, "evdef_build_set"] + v[1, "evdef_build_set_kept"]
			parse = v[1, "model_load_under"] - build; free_ = v[1, "model_free"]
			rest = v[1, "TOTAL"] - ld - list - parse - build - free_
			printf "      start-up: loader %.2f M, models found %.2f M, model read %.2f M, built %.2f M, freed %.2f M, rest %.2f M\n",
			       ld / 1e6, list / 1e6, parse / 1e6, build / 1e6, free_ / 1e6, rest / 1e6
		}' "$d/in.$fmt.1" "$d/in.$fmt.$((n + 1))"
done

if [ -n "$sim" ]; then
	# 2, 16, 384 and 1,024 simulated CPUs, every metric of the model
	# planned, as docs/performance.md's tables measure. (With -g basic
	# -f the simulated PMU's share, timed call by call, read above the
	# whole at 384 CPUs and more on this VM: pmctop's part came out
	# negative.)
	./bench/bench_sampler -n 6 -p 1x1x1x2 1x1x8x2 2x12x8x2 2x16x16x2
fi
