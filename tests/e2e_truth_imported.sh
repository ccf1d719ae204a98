#!/bin/sh
# e2e_truth_imported.sh: the models imported from Linux perf's files, judged
# against the simulator's physical truth as the hand-written ones are
# (tests/check_truth.c, its "imported" case): Ice Lake-SP, Skylake-SP,
# Cascade Lake, Sapphire Rapids, Granite Rapids, Sierra Forest, Zen 2, 4
# and 5, Neoverse N1 and V1, each on the views that show pmctop's common
# metrics (events/perf/common-*.def). Needs perf's files (tests/perf_arch.sh;
# skipped without them).
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$top_srcdir/tests/perf_arch.sh"

PMCTOP_PERF_ARCH=$arch CK_RUN_CASE=imported "$top_builddir/tests/check_truth" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] || { echo "FAIL: the imported models' figures against the physical truth"; exit 1; }
grep -q '^imported models: judged$' "$tmp/out" || { echo "FAIL: no imported model was judged"; exit 1; }
