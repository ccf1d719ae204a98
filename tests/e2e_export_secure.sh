#!/usr/bin/env bash
# e2e_export_secure.sh: the exporter exposed as a security team wants it,
# on loopback ports:
#  1. --web-config with a self-signed certificate made here (openssl) and a
#     bcrypt user: HTTPS with the right password answers the metrics; a
#     wrong password, an unknown user or no credentials get 401 with a
#     WWW-Authenticate challenge; plain HTTP gets a 400 and no metrics; a real
#     Prometheus (where installed) scrapes it with tls_config and basic_auth;
#     a bad web config stops pmctop with the file and line; TLS 1.0 and 1.1
#     are refused unless min_version allows them, max_version is kept;
#  2. a flood of wrong passwords (64 connections, e2e_export_flood.py auth)
#     must leave the p99 of scrapes by two valid users (alternating, as an
#     HA pair of Prometheus servers does) under 50 ms;
#  2b. reload: a password changed in the file is in force within seconds
#     (the old one refused), on SIGHUP as well, and a broken file leaves
#     the previous users in force;
#  3. slowloris: 1,500 connections from ten addresses sending their headers
#     a byte a second, against pmctop under a descriptor limit of 1,024
#     (systemd's default): a scrape from an eleventh address keeps its p99
#     under 100 ms and every slow connection is refused or cut; the same
#     over TLS (slow TLS records; the scrapes' handshakes: under 250 ms);
#  4. a flood: 1,500 idle connections from 127.0.0.1 (more than the server's
#     1,200 slots) must leave a scrape from 127.0.0.2 under 100 ms.
# Skips (77) without curl, python3 or openssl; every process is stopped on
# exit and each step is bounded in time.
set -u
command -v openssl >/dev/null || { echo "SKIP: openssl not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
# 1. TLS and basic authentication.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
	-addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
	>"$tmp/openssl.out" 2>&1 || { echo "FAIL: openssl: $(tail -3 "$tmp/openssl.out")"; exit 1; }
chmod 600 "$tmp/key.pem"
# bcrypt (cost 4, fast for a test) of "right horse", as htpasswd -nbBC 4 would make.
hash='$2y$04$pmctopTestSaltPmctopTeeCrxjkeJP7nWS5A2vPyy/pWLIX1OpWq'
cat >"$tmp/web.yml" <<EOC
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  prometheus: '$hash'
EOC
port=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "localhost:$port" --web-config "$tmp/web.yml" \
	2>"$tmp/tls.err" &
pids+=($!)
url="https://localhost:$port/metrics"
wait_http --cacert "$tmp/cert.pem" -u 'prometheus:right horse' "$url" || fail "HTTPS never answered: $(cat "$tmp/tls.err")"
sleep 0.6
code=$(curl -s --max-time 5 --cacert "$tmp/cert.pem" -u 'prometheus:right horse' -o "$tmp/m.txt" -w '%{http_code}' "$url")
[ "$code" = 200 ] && grep -q '^pmctop_instructions_total' "$tmp/m.txt" || fail "right password: HTTP $code"
for who in 'prometheus:wrong horse' 'alice:right horse' 'prometheus:'; do
	code=$(curl -s --max-time 5 --cacert "$tmp/cert.pem" -u "$who" -o "$tmp/x.txt" -w '%{http_code}' "$url")
	[ "$code" = 401 ] && ! grep -q pmctop_info "$tmp/x.txt" || fail "credentials '$who': HTTP $code"
done
curl -s --max-time 5 --cacert "$tmp/cert.pem" -D "$tmp/h.txt" -o /dev/null "$url"
grep -qi '^HTTP/[0-9.]* 401' "$tmp/h.txt" && grep -qi '^WWW-Authenticate: Basic realm="pmctop"' "$tmp/h.txt" ||
	fail "no credentials: $(head -3 "$tmp/h.txt")"
: >"$tmp/p.txt"
code=$(curl -s --max-time 5 "http://localhost:$port/metrics" -o "$tmp/p.txt" -w '%{http_code}')
! grep -q pmctop_info "$tmp/p.txt" || fail "plain HTTP answered the metrics"
# ... but is told, in words, that the port speaks HTTPS.
[ "$code" = 400 ] && grep -q "this port serves HTTPS" "$tmp/p.txt" || fail "plain HTTP to the TLS port: HTTP $code"
# An untrusted certificate is refused by a client that checks.
curl -s --max-time 5 -u 'prometheus:right horse' -o /dev/null "$url" && fail "curl trusted a self-signed certificate"
# TLS 1.2 and 1.3 by default; 1.0 and 1.1 are refused (the client's own
# floor lowered, so that the refusal is the server's).
tls_ok() { # PORT VERSION: whether a handshake with only that version works
	echo | timeout 5 openssl s_client -connect "127.0.0.1:$1" "-$2" -cipher 'DEFAULT:@SECLEVEL=0' \
		>"$tmp/s_client.out" 2>&1
}
for v in tls1 tls1_1; do tls_ok "$port" $v && fail "TLS: $v accepted by default"; done
for v in tls1_2 tls1_3; do tls_ok "$port" $v || fail "TLS: $v refused: $(tail -3 "$tmp/s_client.out")"; done
# min_version and max_version as exporter-toolkit spells them.
sed 's/^  key_file: key.pem$/&\n  min_version: TLS10\n  max_version: TLS12/' "$tmp/web.yml" >"$tmp/web10.yml"
port10=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port10" --web-config "$tmp/web10.yml" \
	2>"$tmp/tls10.err" &
pids+=($!)
wait_http --cacert "$tmp/cert.pem" -u "prometheus:right horse" "https://127.0.0.1:$port10/metrics" || fail "TLS10 server: $(cat "$tmp/tls10.err")"
tls_ok "$port10" tls1 || fail "TLS: min_version TLS10 refused TLS 1.0: $(tail -3 "$tmp/s_client.out")"
tls_ok "$port10" tls1_3 && fail "TLS: max_version TLS12 accepted TLS 1.3"

if command -v prometheus >/dev/null; then
	pport=$(free_port)
	cat >"$tmp/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pmctop
    scheme: https
    tls_config:
      ca_file: $tmp/cert.pem
    basic_auth:
      username: prometheus
      password: right horse
    static_configs:
      - targets: ['localhost:$port']
EOC
	timeout 60 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
		--web.listen-address="127.0.0.1:$pport" >"$tmp/prometheus.log" 2>&1 &
	pids+=($!)
	up=
	for _ in $(seq 60); do
		up=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=up" 2>/dev/null |
			python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
		[ "$up" = 1 ] && break
		sleep 0.5
	done
	[ "$up" = 1 ] || fail "Prometheus over TLS with basic_auth: up=$up ($(tail -3 "$tmp/prometheus.log"))"
fi

# A mistake in the web config stops pmctop before it serves, naming the line.
printf 'basic_auth_users:\n  alice: secret\n' >"$tmp/bad.yml"
timeout 10 "$pmctop" --sim zen5 --daemon --listen "127.0.0.1:$(free_port)" --web-config "$tmp/bad.yml" 2>"$tmp/bad.err"
rc=$?
[ $rc = 1 ] && grep -q "bad.yml:2: basic_auth_users: alice: expected a bcrypt hash" "$tmp/bad.err" ||
	fail "bad web config: exit $rc, $(cat "$tmp/bad.err")"
# An empty basic_auth_users would serve everyone: refused.
printf 'basic_auth_users:\n#  alice: x\n' >"$tmp/empty.yml"
timeout 10 "$pmctop" --sim zen5 --daemon --listen "127.0.0.1:$(free_port)" --web-config "$tmp/empty.yml" 2>"$tmp/empty.err"
rc=$?
[ $rc = 1 ] && grep -q "empty.yml:1: basic_auth_users: no users" "$tmp/empty.err" ||
	fail "empty basic_auth_users: exit $rc, $(cat "$tmp/empty.err")"

# 2. Wrong passwords from 64 connections beside two valid users, with
# bcrypt at cost 10 (as htpasswd -B makes by default, about 75 ms a check).
cat >"$tmp/users.yml" <<'EOC'
basic_auth_users:
  prometheus: $2y$10$pmctopFloodSaltPmctop.S90pvArTkx7OCwUWbJ7EDez6vbNCTMm
  replica: $2y$10$pmctopFloodSaltPmctop.06V7iM7/OoFt03eEXsFAthfGPTkxIIW
EOC
port=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port" --web-config "$tmp/users.yml" \
	2>"$tmp/auth.err" &
pids+=($!)
wait_http -u "replica:other horse" "http://127.0.0.1:$port/metrics" || fail "auth flood target never answered"
sleep 0.6
# A timed bound on a machine that `make -j check` shares with other tests:
# the best of three runs must meet it (each prints its figures).
flood_best3() {
	for try in 1 2 3; do
		timeout 60 python3 "${top_srcdir:-.}/tests/e2e_export_flood.py" "$@" && return 0
		rc=$?
		[ $rc = 77 ] && return 77
		echo "(run $try of 3 missed the bound)"
	done
	return 1
}
flood_best3 auth "$port" 50 'prometheus:right horse,replica:other horse' ||
	fail "scrapes during a flood of wrong passwords"

# 2b. Reloading the web config: on a change of the file, and on SIGHUP.
printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >"$tmp/reload.yml"
port=$(free_port)
timeout 90 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port" --web-config "$tmp/reload.yml" \
	2>"$tmp/reload.err" &
rpid=$!
pids+=($rpid)
rurl="http://127.0.0.1:$port/metrics"
wait_http -u 'prometheus:right horse' "$rurl" || fail "reload target never answered"
# answers USER:PASS CODE: waits up to 10 s for the answer to be CODE.
answers() {
	local code
	for _ in $(seq 50); do
		code=$(curl -s --max-time 2 -u "$1" -o /dev/null -w '%{http_code}' "$rurl")
		[ "$code" = "$2" ] && return 0
		sleep 0.2
	done
	echo "got $code"
	return 1
}
# reloads N: waits up to 10 s for pmctop to have said N times that it
# read the file again (reloaded, or not because it is broken).
reloads() {
	for _ in $(seq 100); do
		[ "$(grep -c -e 'web-config .* reloaded' -e 'web-config not reloaded' "$tmp/reload.err")" -ge "$1" ] &&
			return 0
		sleep 0.1
	done
	return 1
}
fresh='$2y$04$pmctopReloadSaltPmctoew58IGAQeftu2khHKzBPevnx36Kb0FB6'   # "fresh horse"
third='$2y$04$pmctopReloadSaltPmctoef1qVN9JJTEkxaFzAjepH8vbyRR./XF.'   # "third horse"
printf 'basic_auth_users:\n  prometheus: %s\n' "$fresh" >"$tmp/reload.yml"
reloads 1 || fail "file changed: not read again: $(cat "$tmp/reload.err")"
answers 'prometheus:fresh horse' 200 || fail "file changed: the new password is refused"
answers 'prometheus:right horse' 401 || fail "file changed: the old password still works"
# A broken file, or one without users: the previous users stay, and
# pmctop says why.
printf 'basic_auth_users:\n  prometheus: fresh horse\n' >"$tmp/reload.yml"
reloads 2 || fail "broken file: not read again"
answers 'prometheus:fresh horse' 200 || fail "broken file: the previous password no longer works"
grep -q "not reloaded, the previous one stays: $tmp/reload.yml:2: basic_auth_users: prometheus: expected a bcrypt" \
	"$tmp/reload.err" || fail "broken file: no cause on stderr: $(cat "$tmp/reload.err")"
: >"$tmp/reload.yml"
reloads 3 || fail "emptied file: not read again"
code=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$rurl")
[ "$code" = 401 ] || fail "emptied file: HTTP $code without credentials"
grep -q "basic_auth_users removed: authentication is turned off only when pmctop starts" "$tmp/reload.err" ||
	fail "emptied file: no cause on stderr"
# SIGHUP alone (the file's size and time as they were, so only the signal
# says it changed): the password changes, pmctop goes on serving.
printf 'basic_auth_users:\n  prometheus: %s\n' "$fresh" >"$tmp/reload.yml"
reloads 4 || fail "fixed file: not read again"
touch -r "$tmp/reload.yml" "$tmp/reload.ref"
printf 'basic_auth_users:\n  prometheus: %s\n' "$third" >"$tmp/reload.yml"
touch -r "$tmp/reload.ref" "$tmp/reload.yml"
sleep 3
code=$(curl -s --max-time 5 -u 'prometheus:third horse' -o /dev/null -w '%{http_code}' "$rurl")
[ "$code" = 401 ] || fail "reloaded without a change the server could see (HTTP $code)"
pmpid=$(pgrep -P "$rpid" pmctop)
kill -HUP "$pmpid"
answers 'prometheus:third horse' 200 || fail "SIGHUP: the new password is refused"
kill -0 "$pmpid" 2>/dev/null || fail "SIGHUP stopped pmctop"

# 3. Slowloris from ten addresses; pmctop's limit as systemd's default gives it.
port=$(free_port)
bash -c 'ulimit -n 1024 && exec "$@"' - timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port" \
	2>"$tmp/slow.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" || fail "slowloris target never answered"
# (77: this machine's descriptor limit is too low for the attack; said, not failed.)
flood_best3 slowloris "$port" 100
rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || fail "scrapes during slowloris from ten addresses"
# The same over TLS, where pmctop accepts itself (to answer plain HTTP).
port=$(free_port)
sed '/^basic_auth_users:/,$d' "$tmp/web.yml" >"$tmp/tls-only.yml"
bash -c 'ulimit -n 1024 && exec "$@"' - timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port" \
	--web-config "$tmp/tls-only.yml" 2>"$tmp/slowtls.err" &
pids+=($!)
wait_http --cacert "$tmp/cert.pem" "https://127.0.0.1:$port/metrics" || fail "TLS slowloris target never answered"
# Each scrape is a new TLS handshake, on CPUs the attack shares: 250 ms.
flood_best3 slowloris "$port" 250 "$tmp/cert.pem"
rc=$?
[ $rc = 0 ] || [ $rc = 77 ] || fail "scrapes during slowloris over TLS from ten addresses"

# 4. The flood: 1,500 idle connections from one address, then scrapes from
# another. Each scrape must take under 100 ms (the median of 5, and none over
# a second: a slot freed only by the 10 s idle timeout would show as seconds).
port=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port" 2>"$tmp/flood.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" || fail "flood target never answered"
python3 - "$port" >"$tmp/flood.out" 2>&1 <<'EOP' &
import resource, socket, sys, time
port = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
socks = []
for _ in range(1500):
    s = socket.socket()
    s.setblocking(False)
    s.bind(("127.0.0.1", 0))
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    socks.append(s)
print("flood: 1500 connections opened", flush=True)
time.sleep(8)
EOP
flood=$!
pids+=($flood)
for _ in $(seq 50); do grep -q opened "$tmp/flood.out" && break; sleep 0.1; done
sleep 0.5
times=()
for _ in 1 2 3 4 5; do
	: >"$tmp/f.txt"
	t=$(curl -s --max-time 5 --interface 127.0.0.2 -o "$tmp/f.txt" -w '%{time_total}' "http://127.0.0.1:$port/metrics")
	grep -q '^pmctop_info' "$tmp/f.txt" || t=99
	times+=("$t")
	sleep 0.2
done
echo "scrapes from 127.0.0.2 during the flood (s): ${times[*]}"
python3 -c 'import sys; t = sorted(map(float, sys.argv[1:])); sys.exit(0 if t[2] < 0.1 and t[-1] < 1 else 1)' "${times[@]}" ||
	fail "scrapes during a flood of 1,500 idle connections took ${times[*]} s"
kill "$flood" 2>/dev/null

[ "$fails" = 0 ] && echo "e2e export secure: ok"
exit $((fails > 0))
