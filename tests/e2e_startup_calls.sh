#!/usr/bin/env bash
# e2e_startup_calls.sh: the system calls issue 39 took out of a start
# stay out (docs/performance.md, "Start-up, cut a fourth time"), counted
# with strace on a start with amd-zen5 (skipped without strace, or where
# it cannot trace):
# - no readlink of a directory below the definitions directory: a
#   model's directories are resolved from the definitions directory's
#   canonical path, one lstat a component, not by realpath from the root;
# - no stat of a model.def that is not there: the directory's listing
#   says whether it is;
# - each definition file read with one read(2): a regular file's short
#   read is its end.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
events=$(cd "$top_srcdir/events" && pwd -P)
pm=("$top_builddir/pmctop" --no-config --events-dir "$events")
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strace -o "$tmp/trace" -e trace=readlink true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
# LeakSanitizer cannot run under ptrace: leaks are the other tests' job.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$tmp/trace" \
	-e trace=readlink,stat,lstat,newfstatat,statx,openat,read,close \
	"${pm[@]}" --sim zen5:1x1x1x2 -b -n 1 -d 0.01 -o "$tmp/out" 2>"$tmp/err" ||
	{ echo "FAIL: pmctop exited $?"; cat "$tmp/err"; exit 1; }
fails=0
links=$(grep -c "readlink(\"$events/" "$tmp/trace")
echo "readlink below $events: $links"
if [ "$links" != 0 ]; then
	echo "FAIL: directories below the definitions directory were resolved by readlink:"
	grep "readlink(\"$events/" "$tmp/trace" | head -5
	fails=$((fails + 1))
fi
nodef=$(grep -c 'model\.def".* = -1 ENOENT' "$tmp/trace")
echo "stats of a missing model.def: $nodef"
if [ "$nodef" != 0 ]; then
	echo "FAIL: model.def was looked for where the listing said it was not"
	fails=$((fails + 1))
fi
# The reads of each .def file, from its openat to its close (strace -f
# puts the pid first).
reads=$(awk '
	{ sub(/^[0-9]+ +/, "") }
	index($0, "openat(") == 1 && $0 ~ /\.def", / && $NF ~ /^[0-9]+$/ { fd[$NF] = 1; files++; next }
	index($0, "read(") == 1 { split(substr($0, 6), a, ","); if (a[1] in fd) n++ }
	index($0, "close(") == 1 { split(substr($0, 7), a, ")"); delete fd[a[1]] }
	END { print files + 0, n + 0 }' "$tmp/trace")
read -r files nreads <<<"$reads"
echo "definition files: $files, their reads: $nreads"
if [ "$files" -lt 10 ] || [ "$nreads" != "$files" ]; then
	echo "FAIL: expected one read for each of ten or more definition files"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
