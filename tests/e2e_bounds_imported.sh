#!/bin/sh
# e2e_bounds_imported.sh: what the models imported from Linux perf's files
# show, held against what can physically be (bench/bounds_survey.py): on
# --sim of Ice Lake-SP, Skylake-SP, Cascade Lake, Sapphire Rapids, Granite
# Rapids, Sierra Forest, Zen 2, 4 and 5, Neoverse N1 and V1, every view and
# metric group, every row scope (CPU, core, LLC/CCX, socket, system), 10
# intervals each: no share outside 0..1, GHz above the part's clock or IPC
# above its width shown as a plain number, and every topdown tree adding
# up within 0.001. Needs perf's files (tests/perf_arch.sh; skipped without).
# PMCTOP_BOUNDS_MODELS (below) narrows the list.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$top_srcdir/tests/perf_arch.sh"
# Each model is run once per view and metric group (some 30 runs a model).
# They read the model from a cache of this test's own, as a user's runs do
# (the suite's PMCTOP_NO_CACHE=1 would import perf's files again on every
# run: 22 of the 24 minutes of CI's ASan stage went to this test that way).
# That the cached model is the imported one is e2e_perf_cache.sh's test.
unset PMCTOP_NO_CACHE
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
# PMCTOP_BOUNDS_MODELS=SPEC... surveys those models alone: CI's sanitized
# runs take one model of each maker (the plain run surveys all 11, and
# under ASan each model's 30 runs take some 15 s).
models=${PMCTOP_BOUNDS_MODELS:-icx skx clx perf-sapphirerapids gnr srf zen2 perf-amdzen4 perf-amdzen5 n1 v1}

# shellcheck disable=SC2086
PMCTOP_EVENTS_DIR="$top_srcdir/events" python3 "$top_srcdir/bench/bounds_survey.py" "$top_builddir/pmctop" \
	--intervals 10 --perf-events "$arch" --events-dir "$top_srcdir/events" $models >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
set -- $models
[ "$(grep -c 'CPU-intervals' "$tmp/out")" = $# ] || { echo "FAIL: not every model was surveyed ($# asked)"; exit 1; }
[ "$rc" = 0 ] || { echo "FAIL: figures out of physical bounds shown plain, or trees that do not add up"; exit 1; }
