# tests/perf_arch.sh: sourced by the tests that read Linux perf's pmu-events
# files (docs/perf-import.md). Sets $arch to a pmu-events/arch directory
# (holding x86/ and arm64/): PMCTOP_PERF_ARCH=DIR (that directory, or its
# x86/ as e2e_perf_reference.sh takes it), else the parts named by
# PERF_ARCH_PARTS ("x86 arm64" by default) taken out of Debian's
# linux-source-6.12 tarball into $tmp, which the caller made and removes.
# Exits 77 (skip) when neither is there.
arch=${PMCTOP_PERF_ARCH:-}
if [ -n "$arch" ]; then
	[ -f "$arch/mapfile.csv" ] && arch=$(dirname "$arch")
else
	tarball=
	for t in /usr/src/linux-source-6.12.tar.xz /usr/src/linux-source-6.12.tar.bz2; do
		[ -f "$t" ] && tarball=$t && break
	done
	if [ -z "$tarball" ]; then
		echo "SKIP: no /usr/src/linux-source-6.12.tar.xz (apt-get install linux-source-6.12, or PMCTOP_PERF_ARCH=DIR)"
		exit 77
	fi
	set --
	for part in ${PERF_ARCH_PARTS:-x86 arm64}; do
		set -- "$@" "*/tools/perf/pmu-events/arch/$part/*"
	done
	tar -xf "$tarball" -C "$tmp" --wildcards "$@"
	arch=$(echo "$tmp"/*/tools/perf/pmu-events/arch)
fi
[ -f "$arch/x86/mapfile.csv" ] || { echo "FAIL: $arch has no x86/mapfile.csv"; exit 1; }
