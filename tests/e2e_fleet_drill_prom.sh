#!/usr/bin/env bash
# e2e_fleet_drill_prom.sh: drill down in Prometheus mode (docs/fleet.md):
# two simulated exporters (Zen 5, the generic model) at --export-scope cpu
# scraped by a real Prometheus; `--fleet PROM --fleet-host ZEN5` must give
# one row per CPU of the Zen 5 host, each CPU's IPC that of Prometheus's
# raw samples of that CPU (e2e_fleet_drill_prom.py judges), and the
# host's own IPC without the other host's series; a host that is not
# among them is an error (exit 1, one line). Then, where tmux is, the
# dashboard drilled into the Zen 5 host (e2e_fleet_drill_tui.py): its CCX
# boxes' IPC judged from the raw samples, its history sparkline there at
# once from query_range. Skips (77) without prometheus, curl or python3,
# or libcurl in pmctop.
set -u
. "${top_srcdir:-.}/tests/e2e_fleet_prom_setup.sh"

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
# The dashboard on the same Prometheus: the host's CCX boxes and its
# history from query_range (e2e_fleet_drill_tui.py).
if command -v tmux >/dev/null; then
	python3 "$top_srcdir/tests/e2e_fleet_drill_tui.py" \
		"$(cd "$top_builddir" && pwd)/pmctop" "$events" "http://127.0.0.1:$pport" 3 "${targets[0]}" || rc=1
else
	echo "tmux not installed: the dashboard's part not run"
fi
[ $rc = 0 ] || { tail -5 "$tmp/prometheus.log"; for f in "$tmp"/*.err; do tail -3 "$f"; done; }
[ $fails = 0 ] || rc=1
exit $rc
