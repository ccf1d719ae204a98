#!/usr/bin/env bash
# e2e_fleet_labels.sh: a fleet's hosts grouped by any label they carry
# (docs/fleet.md, "Groups of hosts"), in Prometheus mode, judged from
# outside. Six simulated exporters of four models (Zen 5 of 32 and of 4
# CPUs, Sapphire Rapids of 32 and of 16, Zen 4, the generic model) are
# scraped by one real Prometheus whose file_sd target file gives each a
# zone (3) and a rack (3). e2e_fleet_labels.py checks batch output
# (--fleet-group): each host's labels, one row per group with its host
# count, each zone's IPC its hosts' instructions over their cycles from
# Prometheus's raw samples (not the plain mean of their IPCs), then
# relabels a host in the target file and polls until pmctop's groups
# follow; the table and CSV have a row per zone between the hosts' and
# the fleet's. Then the dashboard in tmux, against the same Prometheus: g
# cycles model, job, rack, zone and off, each box with its host count.
# Skips (77) without prometheus, tmux, curl or python3, or libcurl in
# pmctop. About 15 s.
set -u
command -v prometheus >/dev/null || { echo "SKIP: prometheus not installed"; exit 77; }
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
"$pmctop" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }
# As root PMCTOP_EVENTS_DIR is ignored, with a warning: name the definitions.
unset PMCTOP_EVENTS_DIR
events=$(cd "$top_srcdir/events" && pwd)
TM="tmux -L pmctop-labels-$$ -f /dev/null"
trap '$TM kill-server >/dev/null 2>&1; cleanup' EXIT

# model zone rack, one exporter each.
entries=
n=0
for spec in "zen5 eu1 r1" "zen5:1x1x2x2 eu1 r2" "spr eu2 r1" "zen4 eu2 r2" "spr:1x1x8x2 us1 r3" "generic us1 r2"; do
	set -- $spec
	port=$(free_port)
	timeout 90 "$pmctop" --events-dir "$events" --sim "$1" --daemon -d 0.5 --listen "127.0.0.1:$port" \
		2>"$tmp/exporter.$port.err" &
	pids+=($!)
	n=$((n + 1))
	eval "port_$n=$port"
	entries="$entries${entries:+,}{\"targets\":[\"127.0.0.1:$port\"],\"labels\":{\"zone\":\"$2\",\"rack\":\"$3\"}}"
done
printf '[%s]\n' "$entries" >"$tmp/targets.json"
pport=$(free_port)
cat >"$tmp/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pmctop
    file_sd_configs:
      - files: ['$tmp/targets.json']
        refresh_interval: 1s
EOC
timeout 90 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$pport/-/ready" || { echo "FAIL: Prometheus never got ready"; exit 1; }
prom="http://127.0.0.1:$pport"

# Batch output, and the Sapphire Rapids host of eu2 moved to us1.
python3 "$top_srcdir/tests/e2e_fleet_labels.py" "$pmctop" "$events" "$prom" 3 "$tmp/targets.json" \
	"127.0.0.1:$port_3" || fail "the groups in batch output"

# The table and CSV: one row per zone after the hosts', before the fleet's.
"$pmctop" --events-dir "$events" --fleet "$prom" --fleet-window 3 --fleet-group zone -b -n 1 >"$tmp/table" 2>&1
rows=$(grep -n -E '^(127\.0\.0\.1:|zone=|\(fleet\))' "$tmp/table" | sed -E 's/^([0-9]+):(127[^ ]*|zone=[^ ]*|\(fleet\)).*  (group of [0-9]+ hosts?|total|SIMULATED)$/\2 \3/' |
	sed -E 's/^127[^ ]* SIMULATED$/host/' | uniq -c | awk '{$1=$1; print}' | tr '\n' ';')
[ "$rows" = "6 host;1 zone=eu1 group of 2 hosts;1 zone=eu2 group of 1 host;1 zone=us1 group of 3 hosts;1 (fleet) total;" ] ||
	{ fail "the table's rows: $rows"; sed 's/^/  | /' "$tmp/table"; }
"$pmctop" --events-dir "$events" --fleet "$prom" --fleet-window 3 --fleet-group zone -b -n 1 --format csv \
	>"$tmp/csv" 2>&1
grep -q '^[0-9.]*,"zone=us1","","group of 3 hosts",[0-9]' "$tmp/csv" ||
	{ fail "no CSV row of zone us1 with its 3 hosts"; sed 's/^/  | /' "$tmp/csv"; }

# The dashboard: g cycles the labels (zones now eu1 2, eu2 1, us1 3).
screen() { $TM capture-pane -p -t fl; }
wait_for() {
	for _ in $(seq 50); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2
	done
	fail "$2 (no /$1/ on screen)"
	screen | sed 's/^/  | /'
	return 1
}
XDG_CONFIG_HOME=$tmp/config $TM new-session -d -s fl -x 170 -y 40 \
	"$pmctop --no-config --events-dir $events --fleet $prom --fleet-window 3 -d 1; sleep 30"
wait_for "FLEET 6 hosts" "the header names the fleet"
wait_for "127.0.0.1:$port_6 .*[0-9]" "the hosts' figures"
boxes() { screen | grep -o "─ $1 [^ ]*: [0-9]* hosts*" | sed 's/^─ //' | sort | tr '\n' ';'; }
step() {
	$TM send-keys -t fl g
	for _ in $(seq 25); do
		[ "$(boxes "$1")" = "$2" ] && { echo "g: $2"; return 0; }
		sleep 0.2
	done
	fail "after g: $(boxes "$1"), want $2"
	screen | sed 's/^/  | /'
}
step model "model amd-zen4: 1 host;model amd-zen5: 2 hosts;model generic: 1 host;model intel-spr: 2 hosts;"
step job "job pmctop: 6 hosts;"
step rack "rack r1: 2 hosts;rack r2: 3 hosts;rack r3: 1 host;"
step zone "zone eu1: 2 hosts;zone eu2: 1 host;zone us1: 3 hosts;"
$TM send-keys -t fl g
sleep 0.5
screen | grep -q '─ zone ' && fail "g after the last label did not hide the groups"
$TM send-keys -t fl q
[ $fails = 0 ]
