#!/bin/sh
# e2e_perf_reference.sh: pmctop's models against Linux perf's event and
# metric files (tests/perf_reference.py, docs/perf-reference.md). The files
# come from Debian's linux-source-6.12 (tests/install-test-deps installs
# it); only tools/perf/pmu-events/arch/x86 is taken out of the tarball, in
# about 10 s. PMCTOP_PERF_ARCH=DIR uses an unpacked arch/x86 directory
# instead. Skipped (77) without either, or without python3.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}

command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# $arch: the pmu-events/arch directory (tests/perf_arch.sh), x86 only.
PERF_ARCH_PARTS=x86
. "$top_srcdir/tests/perf_arch.sh"
arch=$arch/x86
[ -f "$arch/mapfile.csv" ] || { echo "FAIL: $arch has no mapfile.csv"; exit 1; }

"$top_builddir/tests/model_dump" "$top_srcdir/events" >"$tmp/models.json"
python3 "$top_srcdir/tests/perf_reference.py" "$arch" "$tmp/models.json" \
    "$top_srcdir"/docs/zen3-zen4-errata.md "$top_srcdir"/docs/zen5-errata.md "$top_srcdir"/docs/intel-errata.md
