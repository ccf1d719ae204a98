#!/usr/bin/env bash
# e2e_fleet_young.sh: in Prometheus mode, a column that divides a
# counter's rate by a gauge (UTIL, WATT) reads right while the hosts'
# series are younger than the rate window (docs/fleet.md, crate in
# events/fleet/columns.txt). Two simulated exporters (Zen 5, Sapphire
# Rapids) start with a real Prometheus; a few seconds later pmctop reads
# them over a 30 s window, which their series fill only in part. The
# judge (e2e_fleet_young.py) takes the raw samples in that window from
# Prometheus and wants each host's UTIL and WATT, and the fleet's UTIL,
# within 1 % of the counters' rise over the exporter's own time between
# the first and last sample; rate() alone read them about 6 times too low.
# Skips (77) without prometheus, curl or python3, or libcurl in pmctop.
set -u
. "${top_srcdir:-.}/tests/e2e_fleet_prom_setup.sh"

targets=()
for model in zen5 spr; do
	port=$(free_port)
	timeout 60 "$pmctop" --events-dir "$events" --sim "$model" --daemon -d 0.5 --listen "127.0.0.1:$port" 2>"$tmp/$model.err" &
	pids+=($!)
	targets+=("127.0.0.1:$port")
done
printf 'groups: []\n' >"$tmp/rules.yml"
start_prometheus "$tmp/rules.yml" "${targets[@]}" || { echo "FAIL: Prometheus never got ready"; exit 1; }
python3 "$top_srcdir/tests/e2e_fleet_young.py" "$pmctop" "$events" "http://127.0.0.1:$pport" 30 "${targets[@]}"
rc=$?
[ $rc = 0 ] || { tail -5 "$tmp/prometheus.log"; for f in "$tmp"/*.err; do tail -3 "$f"; done; }
[ $fails = 0 ] || rc=1
exit $rc
