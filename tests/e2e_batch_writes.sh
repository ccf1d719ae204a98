#!/usr/bin/env bash
# e2e_batch_writes.sh: each batch interval reaches its file in one
# write(2), as bench/floor_vs_perf_stat counts it: JSON at 2 simulated
# CPUs is 8 KiB an interval, two writes in stdio's own 4 KiB buffer
# (main_batch.c gives the output a buffer of its own). Counted with
# strace; skipped without it (or where it cannot trace).
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pm=("$top_builddir/pmctop" --events-dir "$top_srcdir/events")
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strace -o "$tmp/trace" -e trace=write true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
fails=0
for fmt in json csv table; do
	rm -f "$tmp/out" "$tmp/trace"
	# LeakSanitizer cannot run under ptrace: leaks are the other tests' job.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -o "$tmp/trace" -e trace=openat,write,close \
		"${pm[@]}" --no-config --sim zen5:1x1x1x2 -b -n 4 -d 0.05 --format "$fmt" -o "$tmp/out" \
		2>"$tmp/err" || { echo "FAIL: $fmt: pmctop exited $?"; cat "$tmp/err"; fails=$((fails + 1)); continue; }
	# The writes to the output's descriptor (the openat of -o's file)
	# until it is closed: its number may be another file's afterwards.
	writes=$(awk -v out="\"$tmp/out\"" '
		index($0, "openat(") == 1 && index($0, out) { fd = $NF; open = 1; next }
		open && index($0, "write(" fd ",") == 1 { n++ }
		open && $0 ~ "^close\\(" fd "\\)" { open = 0 }
		END { print n + 0 }' "$tmp/trace")
	size=$(wc -c <"$tmp/out")
	echo "$fmt: $writes writes, $size bytes for 4 intervals"
	if [ "$writes" != 4 ]; then
		echo "FAIL: $fmt: $writes writes for 4 intervals, want 4"
		fails=$((fails + 1))
	fi
	if [ "$fmt" = json ] && [ "$size" -le $((4 * 4096)) ]; then
		echo "FAIL: json: $size bytes: an interval should pass stdio's 4 KiB here"
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ]
