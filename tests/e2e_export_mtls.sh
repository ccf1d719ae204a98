#!/usr/bin/env bash
# e2e_export_mtls.sh: exporter-toolkit's web-config keys beyond TLS and
# basic authentication, on a loopback port, with a CA and certificates made
# here (openssl): client_auth_type RequireAndVerifyClientCert with
# client_ca_file (a client with a certificate signed by the CA gets the
# metrics; one without a certificate, or with one the CA did not sign, gets
# neither a 200 nor the metrics), cipher_suites and curve_preferences (a
# TLS 1.2 handshake with a suite or curve left out is refused), the extra
# response headers of http_server_config, the whole file in YAML's flow
# style; and a file with an unknown suite stops pmctop, naming file and
# line. Skips (77) without curl, python3 or openssl.
set -u
command -v openssl >/dev/null || { echo "SKIP: openssl not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
ssl() { openssl "$@" >>"$tmp/openssl.out" 2>&1 || { echo "FAIL: openssl $1: $(tail -3 "$tmp/openssl.out")"; exit 1; }; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
# A CA; the server's and a client's certificates signed by it; a second,
# self-signed client that the CA knows nothing of.
ssl req -x509 "${ec[@]}" -days 1 -subj /CN=pmctop-test-ca -keyout "$tmp/ca.key" -out "$tmp/ca.pem"
ssl req "${ec[@]}" -subj /CN=localhost -keyout "$tmp/key.pem" -out "$tmp/server.csr"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tmp/server.ext"
ssl x509 -req -days 1 -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
	-extfile "$tmp/server.ext" -out "$tmp/cert.pem"
ssl req "${ec[@]}" -subj /CN=prometheus -keyout "$tmp/client.key" -out "$tmp/client.csr"
printf 'extendedKeyUsage=clientAuth\n' >"$tmp/client.ext"
ssl x509 -req -days 1 -in "$tmp/client.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
	-extfile "$tmp/client.ext" -out "$tmp/client.pem"
ssl req -x509 "${ec[@]}" -days 1 -subj /CN=stranger -keyout "$tmp/stranger.key" -out "$tmp/stranger.pem"
chmod 600 "$tmp"/*.key "$tmp/key.pem"
hash='$2y$04$pmctopTestSaltPmctopTeeCrxjkeJP7nWS5A2vPyy/pWLIX1OpWq'   # "right horse"
cat >"$tmp/web.yml" <<EOC
tls_server_config: {cert_file: cert.pem, key_file: key.pem, client_ca_file: ca.pem,
  client_auth_type: RequireAndVerifyClientCert,
  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305],
  curve_preferences: [CurveP256, X25519], prefer_server_cipher_suites: true}
basic_auth_users: {prometheus: '$hash'}
http_server_config: {http2: false, headers: {Strict-Transport-Security: max-age=31536000, X-Frame-Options: deny}}
EOC
port=$(free_port)
timeout 60 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$port" --web-config "$tmp/web.yml" \
	2>"$tmp/mtls.err" &
pids+=($!)
url="https://localhost:$port/metrics"
client=(--cacert "$tmp/ca.pem" --cert "$tmp/client.pem" --key "$tmp/client.key" -u 'prometheus:right horse'
	--resolve "localhost:$port:127.0.0.1")
wait_http "${client[@]}" "$url" || fail "mTLS never answered: $(cat "$tmp/mtls.err")"
sleep 0.6
code=$(curl -s --max-time 5 "${client[@]}" -D "$tmp/h.txt" -o "$tmp/m.txt" -w '%{http_code}' "$url")
[ "$code" = 200 ] && grep -q '^pmctop_instructions_total' "$tmp/m.txt" || fail "client signed by the CA: HTTP $code"
grep -qi '^Strict-Transport-Security: max-age=31536000' "$tmp/h.txt" && grep -qi '^X-Frame-Options: deny' "$tmp/h.txt" ||
	fail "http_server_config.headers not sent: $(cat "$tmp/h.txt")"
echo "client signed by the CA: HTTP $code"
# No certificate, or one the CA did not sign: no 200, no metrics (the
# password alone is not enough).
for who in none stranger; do
	cert=()
	[ $who = stranger ] && cert=(--cert "$tmp/stranger.pem" --key "$tmp/stranger.key")
	: >"$tmp/x.txt"
	code=$(curl -s --max-time 5 --cacert "$tmp/ca.pem" "${cert[@]}" -u 'prometheus:right horse' \
		--resolve "localhost:$port:127.0.0.1" -o "$tmp/x.txt" -w '%{http_code}' "$url")
	echo "client certificate $who: HTTP $code"
	case $code in 000 | 4??) ;; *) fail "client certificate $who: HTTP $code" ;; esac
	! grep -q pmctop_info "$tmp/x.txt" || fail "client certificate $who: the metrics were served"
done
# The other client_auth_types (TLS 1.3 and no user): which of no
# certificate, the stranger's and the CA's client gets the metrics.
mode() { # TYPE EXPECTED-CODES(none stranger signed)
	printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n  client_auth_type: %s\n%s' "$1" \
		"$([ "$1" = RequireAnyClientCert ] || echo '  client_ca_file: ca.pem')" >"$tmp/$1.yml"
	local p got=() cert
	p=$(free_port)
	timeout 30 "$pmctop" --sim zen5 --daemon -d 0.5 --listen "127.0.0.1:$p" --web-config "$tmp/$1.yml" \
		2>"$tmp/$1.err" &
	local pid=$!
	wait_http --cacert "$tmp/ca.pem" --cert "$tmp/client.pem" --key "$tmp/client.key" \
		--resolve "localhost:$p:127.0.0.1" "https://localhost:$p/metrics" || fail "$1: never answered: $(cat "$tmp/$1.err")"
	for who in none stranger client; do
		cert=()
		[ $who = none ] || cert=(--cert "$tmp/$who.pem" --key "$tmp/$who.key")
		got+=("$(curl -s --max-time 5 --cacert "$tmp/ca.pem" "${cert[@]}" --resolve "localhost:$p:127.0.0.1" \
			-o /dev/null -w '%{http_code}' "https://localhost:$p/metrics")")
	done
	kill "$pid"
	wait "$pid"
	echo "$1: none, stranger, signed: ${got[*]}"
	[ "${got[*]}" = "$2" ] || fail "$1: HTTP ${got[*]}, expected $2"
}
mode VerifyClientCertIfGiven "200 403 200"
mode RequireAnyClientCert "403 200 200"
mode RequestClientCert "200 200 200"

# cipher_suites and curve_preferences reach GnuTLS: TLS 1.2 with a listed
# suite and curve works; with a suite or a curve left out it is refused.
tls12() { # CIPHER CURVE: whether a TLS 1.2 handshake with them works
	echo | timeout 5 openssl s_client -connect "127.0.0.1:$port" -tls1_2 -cipher "$1" -curves "$2" \
		-cert "$tmp/client.pem" -key "$tmp/client.key" >"$tmp/s_client.out" 2>&1 &&
		grep -q "Cipher is $1" "$tmp/s_client.out"
}
tls12 ECDHE-ECDSA-AES128-GCM-SHA256 prime256v1 || fail "a listed suite refused: $(tail -3 "$tmp/s_client.out")"
tls12 ECDHE-ECDSA-AES256-GCM-SHA384 prime256v1 && fail "a suite left out of cipher_suites was accepted"
tls12 ECDHE-ECDSA-AES128-GCM-SHA256 secp384r1 && fail "a curve left out of curve_preferences was accepted"

# A suite Go does not name stops pmctop before it serves, with file:line.
sed 's/TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305/ECDHE-ECDSA-CHACHA20-POLY1305/' "$tmp/web.yml" >"$tmp/bad.yml"
timeout 10 "$pmctop" --sim zen5 --daemon --listen "127.0.0.1:$(free_port)" --web-config "$tmp/bad.yml" 2>"$tmp/bad.err"
rc=$?
[ $rc = 1 ] && grep -q "bad.yml:3: tls_server_config: cipher_suites: unknown cipher suite 'ECDHE-ECDSA-CHACHA20-POLY1305'" \
	"$tmp/bad.err" || fail "unknown suite: exit $rc, $(cat "$tmp/bad.err")"

[ "$fails" = 0 ] && echo "e2e export mtls: ok"
exit $((fails > 0))
