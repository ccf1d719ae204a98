#!/usr/bin/env bash
# e2e_fleet_bad.sh: `pmctop --fleet` on bad input (docs/fleet.md, "When
# things go wrong"): an unreachable server, 401 and 403, an HTML page, JSON
# cut in the middle, a server slower than the client config's timeout,
# Prometheus's own timeout error; each is one line on stderr and exit 1,
# never a crash. A server that fails after a good refresh leaves the last
# good figures, marked stale; an exporter over TLS that pmctop cannot
# verify, one that vanishes between refreshes and one without hardware
# series each show '-' (or their last figures, stale) with the reason in
# their row; server_name checks the certificate against a name, not the
# address. The misbehaving servers are tests/e2e_fleet_fake.py. Skips
# (77) without curl, python3 or openssl, or without libcurl in pmctop.
set -u
command -v openssl >/dev/null || { echo "SKIP: openssl not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
"$pmctop" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }

# As root PMCTOP_EVENTS_DIR is ignored, with a warning: name the definitions.
unset PMCTOP_EVENTS_DIR
python3 "$top_srcdir/tests/e2e_fleet_fake.py" "$tmp/fport" 2>"$tmp/fake.err" &
pids+=($!)
for _ in $(seq 50); do [ -s "$tmp/fport" ] && break; sleep 0.1; done
fake="http://127.0.0.1:$(cat "$tmp/fport")"

# expect_fail NAME PATTERN ARGS...: exit 1, one line on stderr matching PATTERN.
expect_fail() {
	local name=$1 pat=$2 rc lines
	shift 2
	timeout 20 "$pmctop" --events-dir "$top_srcdir/events" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	lines=$(wc -l <"$tmp/$name.err")
	if [ $rc != 1 ] || [ "$lines" != 1 ] || ! grep -q -- "$pat" "$tmp/$name.err"; then
		fail "$name: exit $rc, $lines lines on stderr, wanted one matching '$pat': $(head -3 "$tmp/$name.err")"
	else
		echo "ok: $name: $(cat "$tmp/$name.err")"
	fi
}

port=$(free_port)   # nothing listens there
expect_fail unreachable "Could.*connect" --fleet "http://127.0.0.1:$port" -b -n 1
expect_fail 401 "HTTP 401 Unauthorized: check basic_auth in --fleet-config" --fleet "$fake/401" -b -n 1
expect_fail 403 "HTTP 403 Forbidden" --fleet "$fake/403" -b -n 1
expect_fail malformed "the answer is not JSON" --fleet "$fake/malformed" -b -n 1
expect_fail truncated "the answer is not JSON" --fleet "$fake/truncated" -b -n 1
printf 'timeout: 1s\n' >"$tmp/t1.yml"
start=$(date +%s%N)
expect_fail slow "timed out" --fleet "$fake/slow" --fleet-config "$tmp/t1.yml" -b -n 1
took=$((($(date +%s%N) - start) / 1000000))
[ $took -lt 2900 ] || fail "slow: pmctop waited $took ms for a server slower than its 1 s timeout"
expect_fail promtimeout "Prometheus says timeout: query timed out" --fleet "$fake/timeout" -b -n 1
printf 'scheme: https\n' >"$tmp/t2.yml"
expect_fail badconfig "t2.yml:1: unknown key 'scheme'" --fleet "$fake/good" --fleet-config "$tmp/t2.yml" -b -n 1

# A good refresh, then a server that answers garbage: the host keeps its
# figures, marked stale, and the reason is said once.
timeout 20 "$pmctop" --events-dir "$top_srcdir/events" --fleet "$fake/flaky" -b -n 2 -d 0.3 --format json >"$tmp/flaky.out" 2>"$tmp/flaky.err"
rc=$?
python3 - "$tmp/flaky.out" <<'EOF' || fail "flaky: $(cat "$tmp/flaky.err")"
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
h1, h2 = a['hosts'][0], b['hosts'][0]
assert h1['host'] == 'h1:9465' and h1['model'] == 'fake-model' and not h1['stale'], h1
assert h1['metrics']['ipc'] == 2 and h1['status'] is None, h1
assert h2['stale'] and h2['status'].startswith('stale: ') and 'not JSON' in h2['status'], h2
assert h2['metrics']['ipc'] == 2, h2
print('ok: flaky:', h2['status'])
EOF
[ $rc = 0 ] || fail "flaky: exit $rc"
[ "$(grep -c 'not JSON' "$tmp/flaky.err")" = 1 ] || fail "flaky: stderr: $(cat "$tmp/flaky.err")"

# Direct mode: a TLS exporter pmctop cannot verify, one that vanishes
# after the first refresh, one without hardware series; then the TLS
# exporter verified against server_name (and refused for a wrong one).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
	>"$tmp/openssl.out" 2>&1 || { echo "FAIL: openssl: $(tail -3 "$tmp/openssl.out")"; exit 1; }
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n' >"$tmp/web.yml"
tport=$(free_port)
timeout 60 "$pmctop" --sim zen4 --daemon -d 0.3 --listen "127.0.0.1:$tport" --web-config "$tmp/web.yml" 2>/dev/null &
pids+=($!)
vport=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.3 --listen "127.0.0.1:$vport" 2>/dev/null &
victim=$!
pids+=($victim)
wait_http -f "http://127.0.0.1:$vport/metrics" || fail "the exporter never answered"
wait_http -f --cacert "$tmp/cert.pem" "https://127.0.0.1:$tport/metrics" || fail "the TLS exporter never answered"
sleep 0.4
timeout 30 "$pmctop" --events-dir "$top_srcdir/events" --fleet "https://127.0.0.1:$tport,127.0.0.1:$vport,$fake/nohw/metrics" -b -n 3 -d 0.6 \
	--format json >"$tmp/direct.out" 2>"$tmp/direct.err" &
runner=$!
for _ in $(seq 100); do [ -s "$tmp/direct.out" ] && break; sleep 0.05; done
kill -TERM $victim
wait $runner
rc=$?
[ $rc = 0 ] || fail "direct: exit $rc: $(cat "$tmp/direct.err")"
python3 - "$tmp/direct.out" "$tport" "$vport" <<'EOF' || fail "direct: $(cat "$tmp/direct.err")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 3, len(lines)
first, last = lines[0]['hosts'], lines[-1]['hosts']
tls, victim, nohw = last
assert tls['host'] == '127.0.0.1:' + sys.argv[2] and tls['metrics']['ipc'] is None, tls
assert 'SSL' in tls['status'] or 'certificate' in tls['status'], tls
assert first[1]['metrics']['ipc'] is not None and first[1]['status'] is None, first[1]
assert victim['stale'] and victim['status'].startswith('stale: down: '), victim
assert victim['metrics']['ipc'] is not None, victim
assert nohw['status'].startswith('no hardware series') and nohw['metrics']['ipc'] is None, nohw
assert nohw['metrics']['util'] is not None and nohw['metrics']['cpus'] == 4, nohw
print('ok: direct: TLS:', tls['status'])
print('ok: direct: vanished:', victim['status'])
print('ok: direct: no PMU:', nohw['status'])
EOF
# server_name: the certificate is checked against it, not the address.
printf 'tls_config:\n  ca_file: cert.pem\n  server_name: localhost\n' >"$tmp/sn-good.yml"
printf 'tls_config:\n  ca_file: cert.pem\n  server_name: wrong.example\n' >"$tmp/sn-bad.yml"
for c in good bad; do
	timeout 20 "$pmctop" --events-dir "$top_srcdir/events" --fleet "https://127.0.0.1:$tport,127.0.0.1:$vport" \
		--fleet-config "$tmp/sn-$c.yml" -b -n 1 -d 0.6 --format json >"$tmp/sn-$c.out" 2>/dev/null
done
python3 - "$tmp/sn-good.out" "$tmp/sn-bad.out" <<'EOF2' || fail "server_name: $(cat "$tmp/sn-good.out" "$tmp/sn-bad.out")"
import json, sys
good = json.loads(open(sys.argv[1]).read())['hosts'][0]
bad = json.loads(open(sys.argv[2]).read())['hosts'][0]
assert good['status'] is None and good['simulated'] and good['metrics']['ipc'], good
assert 'wrong.example' in bad['status'] and bad['metrics']['ipc'] is None, bad
print('ok: server_name: localhost verifies; wrong.example:', bad['status'])
EOF2
# Each reason said once on stderr, when it first happens.
[ "$(grep -c "127.0.0.1:$vport: down" "$tmp/direct.err")" = 1 ] || fail "direct: stderr: $(cat "$tmp/direct.err")"
[ "$(grep -c "127.0.0.1:$tport: " "$tmp/direct.err")" = 1 ] || fail "direct: stderr: $(cat "$tmp/direct.err")"
[ $fails = 0 ]
