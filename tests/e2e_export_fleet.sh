#!/usr/bin/env bash
# e2e_export_fleet.sh: a mixed fleet on loopback ports: one
# `pmctop --sim MODEL --daemon --listen` for each of Zen 5, Zen 4, Zen 3,
# Sapphire Rapids, Westmere and the generic model, scraped by one real
# Prometheus with contrib/pmctop-rules.yml; e2e_export_fleet.py then runs
# every Grafana panel query and every recording rule for each host, which
# must return data wherever the model has the portable series they read.
# Skips (77) without curl, python3, prometheus or promtool; every process is
# stopped on exit and the whole run is bounded (about 20 s).
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pmctop="$top_builddir/pmctop"
export PMCTOP_EVENTS_DIR="$top_srcdir/events"
for tool in curl python3 prometheus promtool; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

rules="$(cd "$top_srcdir" && pwd)/contrib/pmctop-rules.yml"
promtool check rules "$rules" >"$tmp/promtool.out" 2>&1 || { echo "FAIL: $(tail -3 "$tmp/promtool.out")"; exit 1; }
targets=() args=()
for model in zen5 zen4 zen3 spr westmere generic; do
	port=$(free_port)
	timeout 60 "$pmctop" --sim "$model" --daemon -d 0.5 --listen "127.0.0.1:$port" 2>"$tmp/$model.err" &
	pids+=($!)
	targets+=("'127.0.0.1:$port'")
	args+=("$model=127.0.0.1:$port")
done
pport=$(free_port)
cat >"$tmp/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: ['$rules']
scrape_configs:
  - job_name: pmctop
    static_configs:
      - targets: [$(IFS=,; echo "${targets[*]}")]
EOC
timeout 60 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	curl -sf -o /dev/null "http://127.0.0.1:$pport/-/ready" && break
	sleep 0.1
done
python3 "$top_srcdir/tests/e2e_export_fleet.py" "http://127.0.0.1:$pport" \
	"$top_srcdir/contrib/grafana-pmctop.json" "$rules" "${args[@]}"
rc=$?
[ $rc = 0 ] || { tail -5 "$tmp/prometheus.log"; for f in "$tmp"/*.err; do tail -3 "$f"; done; }
exit $rc
