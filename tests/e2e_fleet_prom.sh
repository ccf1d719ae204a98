#!/usr/bin/env bash
# e2e_fleet_prom.sh: pmctop as a client of a fleet (docs/fleet.md), judged
# from outside: eight simulated exporters of five hand-written models (and
# imported Intel Ice Lake-SP and Arm Neoverse N1 with Linux perf's files) scraped by a real
# Prometheus on loopback, and a ninth over TLS with basic auth. The judge
# (e2e_fleet_prom.py) scrapes each exporter's /metrics itself and checks
# each host's IPC, from `pmctop --fleet http://PROM` and from
# `pmctop --fleet @FILE` (direct scrapes), within 1 % of the IPC of the
# exporter's own counters over the same intervals, and the fleet's IPC;
# each column's error and coverage as Prometheus aggregates the gauges.
# Skips (77) without prometheus, openssl, curl or python3; 15 s, 23 s
# with perf's files taken out of the tarball.
set -u
command -v prometheus >/dev/null || { echo "SKIP: prometheus not installed"; exit 77; }
command -v openssl >/dev/null || { echo "SKIP: openssl not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
"$pmctop" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }

targets=()
for model in zen5 zen4 spr westmere generic zen5:1x4x4x2 spr:1x1x8x2 zen4:2x1x4x2; do
	port=$(free_port)
	timeout 60 "$pmctop" --sim "$model" --daemon -d 0.5 --listen "127.0.0.1:$port" 2>"$tmp/${model%%:*}.$port.err" &
	pids+=($!)
	targets+=("127.0.0.1:$port")
done
# Linux perf's files (tests/perf_arch.sh): PMCTOP_PERF_ARCH, or x86 taken
# out of Debian's linux-source-6.12 (about 11 s); without them, the
# hand-written models only.
if [ -n "${PMCTOP_PERF_ARCH:-}" ] || [ -f /usr/src/linux-source-6.12.tar.xz ]; then
	( PERF_ARCH_PARTS="x86 arm64" . "$top_srcdir/tests/perf_arch.sh" && echo "$arch" >"$tmp/arch" ) >/dev/null
	arch=$(cat "$tmp/arch" 2>/dev/null)
	if [ -n "$arch" ]; then
		# Intel Ice Lake-SP and Arm Neoverse N1, both imported: a mixed
		# fleet reads the same columns through the portable series.
		for model in icx n1; do
			port=$(free_port)
			PMCTOP_NO_CACHE=1 timeout 60 "$pmctop" --perf-events "$arch" --sim $model --daemon -d 0.5 \
				--listen "127.0.0.1:$port" 2>"$tmp/$model.err" &
			pids+=($!)
			targets+=("127.0.0.1:$port")
		done
	fi
fi
# The ninth: TLS and basic auth (as tests/e2e_export_secure.sh makes them).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
	>"$tmp/openssl.out" 2>&1 || { echo "FAIL: openssl: $(tail -3 "$tmp/openssl.out")"; exit 1; }
chmod 600 "$tmp/key.pem"
# bcrypt (cost 4) of "right horse".
hash='$2y$04$pmctopTestSaltPmctopTeeCrxjkeJP7nWS5A2vPyy/pWLIX1OpWq'
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\nbasic_auth_users:\n  prometheus: '"'%s'"'\n' \
	"$hash" >"$tmp/web.yml"
tport=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$tport" --web-config "$tmp/web.yml" \
	2>"$tmp/tls.err" &
pids+=($!)
printf 'right horse\n' >"$tmp/secret"
cat >"$tmp/fleet.yml" <<EOC
tls_config:
  ca_file: cert.pem
basic_auth:
  username: prometheus
  password_file: secret
EOC
printf '%s\n' "${targets[@]}" "https://127.0.0.1:$tport" >"$tmp/targets"

printf 'groups: []\n' >"$tmp/rules.yml"
start_prometheus "$tmp/rules.yml" "${targets[@]}" || { echo "FAIL: Prometheus never got ready"; exit 1; }
for t in "${targets[@]}"; do
	wait_http -f "http://$t/metrics" || fail "$t never answered"
done
python3 "$top_srcdir/tests/e2e_fleet_prom.py" "$pmctop" "http://127.0.0.1:$pport" 3 "$tmp/targets" "$tmp/fleet.yml"
rc=$?
[ $rc = 0 ] || { tail -5 "$tmp/prometheus.log"; for f in "$tmp"/*.err; do tail -3 "$f"; done; }
[ $fails = 0 ] || rc=1
exit $rc
