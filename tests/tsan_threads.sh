#!/bin/sh
# tsan_threads.sh: which tests start a thread in a process of pmctop's
# (pmctop itself or a check_ suite), for TSAN_SKIP (mk/core.am,
# docs/tsan.md): ThreadSanitizer looks for races between threads, so a
# test that starts none gives it nothing to look at that the ASan run does
# not cover. Runs the whole TSan subset once in this build tree (TSAN_SKIP
# emptied) with tests/thread_log.c preloaded, then lists the tests that
# started a thread and those that passed without one. About 10 minutes on
# 2 CPUs.
#
#   tests/tsan_threads.sh [TEST...]   (from the top of a configured build
#                                     tree; TESTs: those alone)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -shared -fPIC -o "$tmp/thread_log.so" "$src/tests/thread_log.c" -ldl
# Each test runs under this, which names it to the library.
printf '#!/bin/sh\nTHR_TEST="$1"; export THR_TEST\nexec "$@"\n' >"$tmp/wrap"
chmod +x "$tmp/wrap"
: >"$tmp/log"
if [ $# -gt 0 ]; then set -- TESTS="$*"; fi
THREAD_LOG="$tmp/log" LD_PRELOAD="$tmp/thread_log.so" PMCTOP_SKIP_PACKAGE=1 \
	make -j"$(nproc)" check-tsan-subset TSAN_SKIP= LOG_COMPILER="$tmp/wrap" "$@" >"$tmp/make.log" 2>&1 ||
	{ tail -n 20 "$tmp/make.log"; echo "tsan_threads: the suite failed" >&2; exit 1; }
sed -n 's/^PASS: //p' "$tmp/make.log" | sort -u >"$tmp/ran"
sed 's|^\./||; s| .*||' "$tmp/log" | sort -u >"$tmp/threaded"
echo "started a thread ($(wc -l <"$tmp/threaded")):"
sed 's/^/  /' "$tmp/threaded"
echo "passed without one ($(comm -23 "$tmp/ran" "$tmp/threaded" | wc -l)); TSAN_SKIP may name these, less those that signal pmctop:"
comm -23 "$tmp/ran" "$tmp/threaded" | sed 's/^/  /'
