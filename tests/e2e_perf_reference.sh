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

arch=${PMCTOP_PERF_ARCH:-}
if [ -z "$arch" ]; then
	tarball=
	for t in /usr/src/linux-source-6.12.tar.xz /usr/src/linux-source-6.12.tar.bz2; do
		[ -f "$t" ] && tarball=$t && break
	done
	if [ -z "$tarball" ]; then
		echo "SKIP: no /usr/src/linux-source-6.12.tar.xz (apt-get install linux-source-6.12, or PMCTOP_PERF_ARCH=DIR)"
		exit 77
	fi
	tar -xf "$tarball" -C "$tmp" --wildcards '*/tools/perf/pmu-events/arch/x86/*'
	arch=$(echo "$tmp"/*/tools/perf/pmu-events/arch/x86)
fi
[ -f "$arch/mapfile.csv" ] || { echo "FAIL: $arch has no mapfile.csv"; exit 1; }

"$top_builddir/tests/model_dump" "$top_srcdir/events" >"$tmp/models.json"
python3 "$top_srcdir/tests/perf_reference.py" "$arch" "$tmp/models.json" "$top_srcdir/docs/perf-reference.md"
