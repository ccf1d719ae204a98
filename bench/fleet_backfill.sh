#!/usr/bin/env bash
# fleet_backfill.sh: the 1,000-host fleet benchmark (docs/performance.md,
# "The 1,000-host benchmark"). Not a test: it prints figures against the
# fleet view's targets. It
#  1. starts one `pmctop --sim MODEL --daemon --listen` exporter per model
#     (Zen 5, Zen 4, Sapphire Rapids, Westmere and, with Linux perf's files
#     in /tmp/perfarch, the imported Ice Lake-SP), scrapes each twice at
#     --export-scope socket, and has fleet_backfill.py write HOSTS hosts'
#     history from those series in OpenMetrics text (seeded rates per host
#     and step; labels instance, job, zone, rack, model);
#  2. backfills it (promtool tsdb create-blocks-from openmetrics) and starts
#     Prometheus on that TSDB, on a loopback port, with no scrape jobs;
#  3. where this pmctop has --fleet, runs it against the server: its CPU
#     per refresh and peak RSS in batch mode, and the dashboard's (tmux,
#     200x60) CPU per refresh, frame CPU and key-to-screen time, each
#     against its target; then what the client's queries cost the server
#     (Prometheus' query log) and over HTTP. Without --fleet, only the
#     server's figures for the queries of bench/fleet_backfill.promql.
# The history runs from MINUTES before now to LEAD seconds after it, so
# that a client asking at its own "now" during the run (the dashboard
# does; --fleet-at would pin batch mode to a time) finds every host fresh:
# rate()'s window full, within the default 5-minute lookback. `up` is
# written for every host as Prometheus would; 1 host in 200 stopped 2
# minutes before now and 1 in 200 20 minutes before (up 0 since).
#   bench/fleet_backfill.sh [-H HOSTS] [-m MINUTES] [-s STEP] [-n REFRESHES]
#                           [-d SECS] [-a] [-k] [-r DIR]
# -a keeps every family (the per-event counts and errors too: 1.6 times
# the series); -k keeps the scrapes and the TSDB (under /tmp) and says where;
# -r DIR starts at step 2's Prometheus on the TSDB a -k run kept in DIR
# (within LEAD seconds of that run, while its data still reaches now).
# Environment: PMCTOP (default ./pmctop), EVENTS_DIR (the tree's), SEED (1),
# LEAD (600). Needs prometheus, promtool, curl and python3 (tmux for the
# dashboard's frame). Every server it starts is stopped on exit.
set -eu
hosts=1000 minutes=30 step=15 refreshes=10 interval=1 families=fleet keep=0
reuse=
while getopts H:m:s:n:d:akr: opt; do
	case $opt in
	H) hosts=$OPTARG ;; m) minutes=$OPTARG ;; s) step=$OPTARG ;;
	n) refreshes=$OPTARG ;; d) interval=$OPTARG ;; a) families=all ;; k) keep=1 ;;
	r) reuse=$OPTARG keep=1 ;;
	*) sed -n '/^#   bench/,/^# -a/p' "$0" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
pmctop=${PMCTOP:-./pmctop}
# --events-dir, as pmctop ignores PMCTOP_EVENTS_DIR when run as root.
events=${EVENTS_DIR:-$here/../events}
seed=${SEED:-1} lead=${LEAD:-600}
for t in prometheus promtool curl python3 "$pmctop"; do
	command -v "$t" >/dev/null || { echo "fleet_backfill.sh: $t is missing" >&2; exit 77; }
done
py="python3 $here/fleet_backfill.py"

tmp=${reuse:-$(mktemp -d /tmp/fleet_backfill.XXXXXX)}
pids=() tmux_sock=fleetbench$$
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || :; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || :; done
	tmux -L "$tmux_sock" kill-server >/dev/null 2>&1 || :
	if [ "$keep" = 1 ]; then echo "kept: $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_http URL [SECONDS]: until URL answers 200 (default 10 s).
wait_http() {
	local i
	for i in $(seq $((${2:-10} * 10))); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "fleet_backfill.sh: $1 does not answer" >&2
	return 1
}
om() { curl -sf -H 'Accept: application/openmetrics-text' "$1"; }
now() { date +%s.%N; }
took() { python3 -c "import sys; print('%.1f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$@"; }

if [ -z "$reuse" ]; then
# 1. The exporters: a few CPUs each (the series are per socket, so the
# shape only sets how many sockets a host of that model has).
t0=$(now)
models=(zen5:2x4x4x2 zen4:1x4x4x2 spr:2x1x8x2 westmere:2x1x4x2)
[ -d /tmp/perfarch/x86 ] && models+=(icx:2x1x8x2)
ports=()
for m in "${models[@]}"; do
	port=$(free_port)
	extra=()
	case $m in icx:*) extra=(--perf-events /tmp/perfarch) ;; esac
	PMCTOP_NO_CACHE=1 timeout 120 "$pmctop" --events-dir "$events" "${extra[@]}" --sim "$m" --daemon -d 0.5 --no-config \
		--listen "127.0.0.1:$port" --export-scope socket 2>"$tmp/${m%%:*}.err" &
	pids+=($!)
	ports+=("$port")
done
# Two scrapes of each, a little over two intervals apart (the counters'
# rates come from their difference).
specs=()
for i in "${!models[@]}"; do
	m=${models[$i]%%:*} url="http://127.0.0.1:${ports[$i]}/metrics"
	wait_http "$url" || { cat "$tmp/$m.err" >&2; exit 1; }
	for _ in $(seq 50); do
		om "$url" >"$tmp/$m.1.om" && grep -q '^pmctop_intervals_total [1-9]' "$tmp/$m.1.om" && break
		sleep 0.1
	done
done
sleep 1.2
for i in "${!models[@]}"; do
	m=${models[$i]%%:*}
	om "http://127.0.0.1:${ports[$i]}/metrics" >"$tmp/$m.2.om"
	specs+=("$m=$tmp/$m.1.om,$tmp/$m.2.om")
done
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || :; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null || :; done
pids=()
t_now=$(date +%s)
$py synth "$tmp/fleet.om" --hosts "$hosts" --minutes "$minutes" --step "$step" --seed "$seed" \
	--now "$t_now" --end $((t_now + lead)) --families "$families" "${specs[@]}"
echo "data: $(du -h "$tmp/fleet.om" | cut -f1) of OpenMetrics from ${models[*]} ($(took "$t0" "$(now)"))"

# 2. Backfill, then a Prometheus with no scrape jobs on those blocks.
t0=$(now)
promtool tsdb create-blocks-from openmetrics "$tmp/fleet.om" "$tmp/tsdb" >"$tmp/promtool.out" 2>&1 ||
	{ tail -5 "$tmp/promtool.out" >&2; exit 1; }
rm -f "$tmp/fleet.om"   # 3 to 4 GB at 1,000 hosts; the TSDB holds it all
echo "backfill: $(grep -c '^[0-9A-Z]\{26\} ' "$tmp/promtool.out") blocks, $(du -sh "$tmp/tsdb" | cut -f1) ($(took "$t0" "$(now)"))"
fi
t0=$(now)
pport=$(free_port)
# The query log says what each query the client sends cost the server.
printf 'global:\n  evaluation_interval: 1m\n  query_log_file: %s\nscrape_configs: []\n' \
	"$tmp/query.log" >"$tmp/prometheus.yml"
# Retention is counted back from the newest block, so 30 days keeps every
# block; the lookback stays Prometheus' default 5 minutes.
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$pport" \
	>"$tmp/prometheus.log" 2>&1 &
pids+=($!)
prom=http://127.0.0.1:$pport
wait_http "$prom/-/ready" 120 || { tail -5 "$tmp/prometheus.log" >&2; exit 1; }
count=$(curl -sf "$prom/api/v1/query" --data-urlencode 'query=count(count by (instance) (pmctop_cycles_total))' |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
echo "prometheus: $prom ready ($(took "$t0" "$(now)")), $count hosts answer now"

# 3. Without --fleet, Prometheus' own time for the queries of
# fleet_backfill.promql; with it, the client's figures, then the server's
# time for the queries the client sent (its query log) and over HTTP.
if ! "$pmctop" --help 2>&1 | grep -q -- '--fleet'; then
	$py queries "$prom" --time "$(date +%s)" --query-file "$here/fleet_backfill.promql"
	$py querylog --sequential "$tmp/query.log"
	echo "this pmctop has no --fleet: no client figures"
	exit 0
fi
fleet=("$pmctop" --events-dir "$events" --fleet "$prom" --fleet-select '{job="pmctop"}' --no-config)
: >"$tmp/query.log"   # from here on, the client's queries alone
# Batch: the CPU of N+1 refreshes less that of 1 (start-up, the model and
# the first refresh cancel out), over N.
$py rusage --out "$tmp/ru1" -- "${fleet[@]}" -b --format csv -n 1 -d "$interval"
$py rusage --out "$tmp/ruN" -- "${fleet[@]}" -b --format csv -n $((refreshes + 1)) -d "$interval"
"${fleet[@]}" -b --format csv -n 1 >"$tmp/batch.csv"
# Hosts' rows: not the header, nor the fleet's own row.
rows=$(tail -n +2 "$tmp/batch.csv" | grep -vc '^[^,]*,"(fleet)",' || :)
read -r cpu1 rss1 <"$tmp/ru1"
read -r cpuN rssN <"$tmp/ruN"
python3 - "$cpu1" "$cpuN" "$refreshes" "$rss1" "$rssN" "$rows" <<'EOP'
import sys
c1, cn, n, r1, rn, rows = map(float, sys.argv[1:])
def line(name, v, target, what=""):
    print("%s %.1f (target <= %g) %s %s" % (name, v, target, "met" if v <= target else "NOT MET", what))
line("refresh_cpu_ms", (cn - c1) / n * 1000, 200, " batch, %d rows, %d refreshes" % (rows, n))
line("batch_rss_mb", max(r1, rn) / 1024, 100)
EOP

# The dashboard at 200x60 in tmux: once the hosts are on screen, its CPU
# per refresh (the refreshes counted in the query log: one that outlasts
# -d delays the next); then paused (only keys change the screen), the
# time from a key (R: the 1,000 rows re-sorted) to the screen changing.
if command -v tmux >/dev/null; then
	tmux -L "$tmux_sock" new-session -d -s s -x 200 -y 60 \
		"TERM=xterm-256color exec $(printf '%q ' "${fleet[@]}") -d $interval 2>$tmp/dash.err"
	dpid=$(tmux -L "$tmux_sock" list-panes -t s -F '#{pane_pid}' 2>/dev/null || :)
	for _ in $(seq 300); do
		if [ -z "$dpid" ] || [ ! -d "/proc/$dpid" ]; then break; fi
		tmux -L "$tmux_sock" capture-pane -p -t s | grep -q 'host0' && break
		sleep 0.1
	done
fi
if [ ! -d "/proc/${dpid:-0}" ]; then
	why="no tmux"
	command -v tmux >/dev/null && why=$(head -1 "$tmp/dash.err" 2>/dev/null || echo "it did not start")
	echo "dashboard: not measured: $why"
else
	read -r dash_cpu period < <($py dashcpu --pid "$dpid" --log "$tmp/query.log" -n "$refreshes")
	tmux -L "$tmux_sock" send-keys -t s Space
	sleep 0.5
	read -r lat_med lat_max frame_cpu hwm < <($py frames --sock "$tmux_sock" --target s --pid "$dpid" -n 40 R)
	python3 - "$dash_cpu" "$period" "$refreshes" "$interval" "$lat_med" "$lat_max" "$frame_cpu" "$hwm" <<'EOP'
import sys
dcpu, period, n, d, med, mx, fcpu, hwm = map(float, sys.argv[1:])
def line(name, v, target, what=""):
    print("%s %.1f (target <= %g) %s %s" % (name, v, target, "met" if v <= target else "NOT MET", what))
line("dash_refresh_cpu_ms", dcpu, 200, " dashboard, %d refreshes, one every %.2f s for -d %g" % (n, period, d))
line("frame_cpu_ms", fcpu, 50, " the drawing thread's CPU per key (R: re-sort and draw)")
line("key_to_screen_ms", med, 50, " median; max %.1f (the key, the frame and tmux)" % mx)
line("dash_rss_mb", hwm / 1024, 100)
EOP
	tmux -L "$tmux_sock" kill-server
fi

# The server's share: what the query log says the client's queries cost
# (execTotalTime), and each one again over HTTP.
$py querylog "$tmp/query.log" "$tmp/client.promql"
$py queries "$prom" --time "$(date +%s)" --query-file "$tmp/client.promql"
