#!/usr/bin/env bash
# e2e_export_fleet.sh: a mixed fleet on loopback ports: one
# `pmctop --sim MODEL --daemon --listen` for each of Zen 5, Zen 4, Zen 3,
# Sapphire Rapids, Westmere and the generic model, and (with Linux perf's
# files) the imported Ice Lake-SP, Granite Rapids, Zen 2 and Neoverse V1,
# scraped by one real
# Prometheus with contrib/pmctop-rules.yml; e2e_export_fleet.py then runs
# every Grafana panel query and every recording rule for each host, which
# must return data wherever the model has the portable series they read.
# Skips (77) without curl, python3, prometheus or promtool; every process is
# stopped on exit and the whole run is bounded (about 20 s).
set -u
for tool in prometheus promtool; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
. "${top_srcdir:-.}/tests/e2e_loopback.sh"

rules="$(cd "$top_srcdir" && pwd)/contrib/pmctop-rules.yml"
promtool check rules "$rules" >"$tmp/promtool.out" 2>&1 || { echo "FAIL: $(tail -3 "$tmp/promtool.out")"; exit 1; }
targets=() args=()
for model in zen5 zen4 zen3 spr westmere generic; do
	port=$(free_port)
	timeout 60 "$pmctop" --sim "$model" --daemon -d 0.5 --listen "127.0.0.1:$port" 2>"$tmp/$model.err" &
	pids+=($!)
	targets+=("127.0.0.1:$port")
	args+=("$model=127.0.0.1:$port")
done
# Models imported from Linux perf's files, where Debian's linux-source-6.12
# is installed (tests/perf_arch.sh; without it only the hand-written ones).
if [ -n "${PMCTOP_PERF_ARCH:-}" ] || [ -f /usr/src/linux-source-6.12.tar.xz ]; then
	( . "$top_srcdir/tests/perf_arch.sh" && echo "$arch" >"$tmp/arch" ) >/dev/null
	arch=$(cat "$tmp/arch" 2>/dev/null)
	for model in icx gnr zen2 v1; do
		[ -n "$arch" ] || break
		port=$(free_port)
		timeout 60 "$pmctop" --perf-events "$arch" --sim "$model" --daemon -d 0.5 --listen "127.0.0.1:$port" \
			2>"$tmp/$model.err" &
		pids+=($!)
		targets+=("127.0.0.1:$port")
		args+=("$model=127.0.0.1:$port")
	done
fi
start_prometheus "$rules" "${targets[@]}"
python3 "$top_srcdir/tests/e2e_export_fleet.py" "http://127.0.0.1:$pport" \
	"$top_srcdir/contrib/grafana-pmctop.json" "$rules" "${args[@]}"
rc=$?
[ $rc = 0 ] || { tail -5 "$tmp/prometheus.log"; for f in "$tmp"/*.err; do tail -3 "$f"; done; }
exit $rc
