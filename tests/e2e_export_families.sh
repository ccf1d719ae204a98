#!/usr/bin/env bash
# e2e_export_families.sh: every family /metrics serves, with its label
# keys, is the table of docs/exporter.md's "Series" section, and the table
# holds nothing that is not served (tests/e2e_export_families.py). The
# runs, on loopback ports, at once: `--sim zen5 --daemon` at each
# --export-scope, Sapphire Rapids at ccx (Intel's portable series and
# energy domains), and Zen 5 with a tasks view and a recording (-w). Skips
# (77) without curl or python3; every process is stopped on exit; about 5 s.
set -u
. "${top_srcdir:-.}/tests/e2e_loopback.sh"

urls=()
run() {
	local port
	port=$(free_port)
	timeout 60 "$pmctop" "$@" --daemon -d 0.3 --listen "127.0.0.1:$port" 2>>"$tmp/err" &
	pids+=($!)
	urls+=("http://127.0.0.1:$port/metrics")
}
for scope in cpu core ccx socket; do
	run --sim zen5 --export-scope "$scope"
done
run --sim spr
run --sim zen5 -g tasks -w "$tmp/run.rec"
python3 "$top_srcdir/tests/e2e_export_families.py" ${FAMILIES_PRINT:+--print} "$top_srcdir/docs/exporter.md" "${urls[@]}"
rc=$?
[ $rc = 0 ] || tail -5 "$tmp/err"
exit $rc
