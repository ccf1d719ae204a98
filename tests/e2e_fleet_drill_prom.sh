#!/usr/bin/env bash
# e2e_fleet_drill_prom.sh: drill down in Prometheus mode (docs/fleet.md):
# two simulated exporters (Zen 5, the generic model) at --export-scope cpu
# scraped by a real Prometheus; `--fleet PROM --fleet-host ZEN5` must give
# one row per CPU of the Zen 5 host, each CPU's IPC that of Prometheus's
# raw samples of that CPU (e2e_fleet_drill_prom.py judges), and the
# host's own IPC without the other host's series. Skips (77) without
# prometheus, curl or python3, or libcurl in pmctop.
set -u
command -v prometheus >/dev/null || { echo "SKIP: prometheus not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
"$pmctop" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }
# As root PMCTOP_EVENTS_DIR is ignored, with a warning: name the definitions.
unset PMCTOP_EVENTS_DIR
events=$(cd "$top_srcdir/events" && pwd)

targets=()
for model in zen5 generic; do
	port=$(free_port)
	timeout 60 "$pmctop" --events-dir "$events" --sim "$model" --daemon -d 0.5 --export-scope cpu \
		--listen "127.0.0.1:$port" 2>"$tmp/$model.err" &
	pids+=($!)
	targets+=("127.0.0.1:$port")
done
printf 'groups: []\n' >"$tmp/rules.yml"
start_prometheus "$tmp/rules.yml" "${targets[@]}" || { echo "FAIL: Prometheus never got ready"; exit 1; }
python3 "$top_srcdir/tests/e2e_fleet_drill_prom.py" "$pmctop" "$events" "http://127.0.0.1:$pport" 3 \
	"${targets[0]}" "${targets[1]}"
rc=$?
[ $rc = 0 ] || { tail -5 "$tmp/prometheus.log"; for f in "$tmp"/*.err; do tail -3 "$f"; done; }
[ $fails = 0 ] || rc=1
exit $rc
