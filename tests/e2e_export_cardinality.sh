#!/usr/bin/env bash
# e2e_export_cardinality.sh: series per --export-scope of the default
# daemon (`batch` view and the portable series, the default interval) on
# a simulated Zen 5 of 16 CPUs, one of 384 (`zen5:2x12x8x2`) and one of
# 1,024 (`zen5:4x16x8x2`), against docs/exporter.md's "Cardinality" table
# (within 5 %: tests/e2e_export_cardinality.py). Four daemons at a time on
# loopback ports; skips (77) without curl or python3; every process is
# stopped on exit; about 20 s.
set -u
. "${top_srcdir:-.}/tests/e2e_loopback.sh"

rc=0
for spec in zen5=16 zen5:2x12x8x2=384 zen5:4x16x8x2=1024; do
	runs=()
	for scope in cpu core ccx socket; do
		port=$(free_port)
		timeout 120 "$pmctop" --sim "${spec%=*}" --daemon --export-scope "$scope" \
			--listen "127.0.0.1:$port" 2>>"$tmp/err" &
		pids+=($!)
		runs+=("${spec#*=}:$scope=http://127.0.0.1:$port/metrics")
	done
	python3 "$top_srcdir/tests/e2e_export_cardinality.py" "$top_srcdir/docs/exporter.md" "${runs[@]}" || rc=1
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pids=()
done
[ $rc = 0 ] || tail -5 "$tmp/err"
exit $rc
