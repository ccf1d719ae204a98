# e2e_loopback.sh: sourced by the exporter's end-to-end tests (e2e_export.sh,
# e2e_export_fleet.sh, e2e_export_secure.sh), which run servers on loopback
# ports: $pmctop, the definitions in $PMCTOP_EVENTS_DIR, a skip (77)
# without curl or python3, fail(), a temporary directory $tmp, $pids whose
# processes are stopped (SIGTERM, then a bounded wait) on exit, free_port and
# wait_http.
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pmctop="$top_builddir/pmctop"
export PMCTOP_EVENTS_DIR="$top_srcdir/events"
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
pids=()
# The wait after SIGTERM is bounded (PMCTOP_TEST_STOP_S, 60 s: a sanitizer
# build's exit check takes seconds): a server that does not stop fails the
# test and is killed, instead of holding CI until its own time limit.
cleanup() {
	local rc=$? p deadline=$((SECONDS + ${PMCTOP_TEST_STOP_S:-60}))
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		while kill -0 "$p" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
		if kill -0 "$p" 2>/dev/null; then
			echo "FAIL: process $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)) still running" \
			     "${PMCTOP_TEST_STOP_S:-60} s after SIGTERM; killed"
			kill -KILL "$p" 2>/dev/null
			rc=1
		fi
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT

# A free loopback port (the kernel picks one; it is free again when this ends).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Waits up to 10 s for a URL to answer (curl's options before it: --cacert);
# with -f, only a 200 counts.
wait_http() {
	for _ in $(seq 100); do
		curl -sf -o /dev/null "$@" && return 0
		sleep 0.1
	done
	return 1
}
# start_prometheus RULES TARGET...: a real Prometheus on a free loopback
# port ($pport) that scrapes the targets (HOST:PORT) every second with the
# rules file RULES, evaluated every second; waits until it is ready (up to
# 10 s; 1 if it is not). It is stopped on exit, and lives 2 minutes at most.
start_prometheus() {
	local rules=$1 list
	shift
	list=$(printf "'%s'," "$@")
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
      - targets: [${list%,}]
EOC
	timeout 120 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
		--web.listen-address="127.0.0.1:$pport" >"$tmp/prometheus.log" 2>&1 &
	pids+=($!)
	wait_http "http://127.0.0.1:$pport/-/ready"
}
