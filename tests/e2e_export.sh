#!/usr/bin/env bash
# e2e_export.sh: the exporter as an operator runs it, on loopback ports:
# `pmctop --sim zen5 --daemon --listen` answered with curl in both formats
# and checked by `promtool check metrics`; then a real Prometheus scraping
# `pmctop --sim zen5 -b --format json --listen` for a few seconds, whose
# per-CCX IPC from rate() must agree with pmctop's own JSON for the same
# intervals (the Grafana dashboard and the rules are run on every model by
# e2e_export_fleet.sh); then the real perf_event backend (as root,
# after --user nobody), ended with kill -TERM; then the dashboard in tmux with --listen. Every server is
# stopped on exit; each step is bounded.
# Skips (77) when curl or python3 is missing; the Prometheus part needs
# prometheus and promtool (Debian's prometheus package).
set -u
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
scrape() { curl -sf --max-time 5 "$@"; }
TEXT_TYPE='text/plain; version=0.0.4; charset=utf-8'
OM_TYPE='application/openmetrics-text; version=1.0.0; charset=utf-8'

# 1. Daemon mode on the simulated Zen 5: both formats, promtool.
port=$(free_port)
"$pmctop" --sim zen5 --daemon --listen "127.0.0.1:$port" -d 0.2 >"$tmp/daemon.out" 2>&1 &
pids+=($!)
daemon=$!
wait_http "http://127.0.0.1:$port/metrics" || fail "daemon never answered on port $port"
sleep 0.5
scrape -D "$tmp/h.txt" -o "$tmp/m.txt" "http://127.0.0.1:$port/metrics" || fail "text scrape"
grep -qi "^content-type: $TEXT_TYPE" "$tmp/h.txt" || fail "text scrape: content type $(grep -i content-type "$tmp/h.txt")"
grep -q '^pmctop_info{model="amd-zen5",simulated="true",version="' "$tmp/m.txt" || fail "no pmctop_info"
grep -q '^pmctop_event_total{event="ex_ret_instr",ccx="0",socket="0"} ' "$tmp/m.txt" ||
	fail "no per-CCX ex_ret_instr counter (default --export-scope ccx)"
grep -q '^pmctop_metric_l3_hit_rate_ratio{ccx="1",socket="0"} ' "$tmp/m.txt" || fail "no L3 hit rate for CCX 1"
grep -q '# EOF' "$tmp/m.txt" && fail "# EOF in the text format"
scrape -D "$tmp/h.om" -o "$tmp/m.om" -H "Accept: application/openmetrics-text; version=1.0.0" \
	"http://127.0.0.1:$port/metrics" || fail "OpenMetrics scrape"
grep -qi "^content-type: $OM_TYPE" "$tmp/h.om" || fail "OpenMetrics scrape: content type $(grep -i content-type "$tmp/h.om")"
[ "$(tail -n 1 "$tmp/m.om")" = "# EOF" ] || fail "OpenMetrics does not end with # EOF"
grep -q '^# TYPE pmctop_event counter$' "$tmp/m.om" || fail "OpenMetrics counter family name"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nothing")" = 404 ] || fail "no 404 off /metrics"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")" = 405 ] || fail "no 405 for POST"
if command -v promtool >/dev/null; then
	promtool check config "$top_srcdir/contrib/prometheus-pmctop.yml" >"$tmp/promtool.out" 2>&1 ||
		fail "contrib/prometheus-pmctop.yml: $(tail -3 "$tmp/promtool.out")"
	promtool check metrics <"$tmp/m.txt" >"$tmp/promtool.out" 2>&1 ||
		fail "promtool check metrics: $(head -5 "$tmp/promtool.out")"
else
	echo "note: promtool not installed, not checked"
fi
# Counters only grow between two scrapes.
sleep 0.5
scrape -o "$tmp/m2.txt" "http://127.0.0.1:$port/metrics" || fail "second scrape"
python3 - "$tmp/m.txt" "$tmp/m2.txt" <<'EOF' || fail "counters went down between scrapes"
import sys
def read(p):
    d = {}
    for l in open(p):
        if l.startswith("pmctop_event_total"):
            k, v = l.rsplit(" ", 1)
            d[k] = float(v)
    return d
a, b = read(sys.argv[1]), read(sys.argv[2])
assert a and set(a) == set(b), "series changed"
assert all(b[k] >= a[k] for k in a), [k for k in a if b[k] < a[k]][:3]
assert any(b[k] > a[k] for k in a)
EOF
# A small load (bench/load_export.py is the full one): 20 clients that send
# half a request and stop, 100 scrapes at once; every scrape is answered and
# the intervals keep coming (-d 0.2: about 15 in 3 s, at least 10 asked).
python3 - "$port" <<'EOF' || fail "scrapes under load"
import socket, subprocess, sys, time
port = int(sys.argv[1])
def intervals():
    out = subprocess.run(["curl", "-sf", "--max-time", "5", "http://127.0.0.1:%d/metrics" % port],
                         capture_output=True, text=True).stdout
    return int(next(l.split()[1] for l in out.splitlines() if l.startswith("pmctop_intervals_total ")))
slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
for c in slow:
    c.sendall(b"GET /metr")
n0, t0 = intervals(), time.monotonic()
urls = ["http://127.0.0.1:%d/metrics" % port] * 100
r = subprocess.run(["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", "100", "-w", "%{http_code}\n"]
                   + sum((["-o", "/dev/null", u] for u in urls), []), capture_output=True, text=True, timeout=60)
codes = r.stdout.split()
assert codes.count("200") == 100, "answers: %s" % sorted(set(codes))
time.sleep(max(0, 3 - (time.monotonic() - t0)))
n1 = intervals()
assert n1 - n0 >= 10, "only %d intervals in 3 s with -d 0.2" % (n1 - n0)
for c in slow:
    c.close()
print("load: 100 scrapes answered, %d intervals in 3 s" % (n1 - n0))
EOF
# A second pmctop cannot take the same port, and says so.
"$pmctop" --sim zen5 --daemon --listen "127.0.0.1:$port" >"$tmp/busy.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "cannot listen on 127.0.0.1:$port" "$tmp/busy.out" || fail "port in use: exit $rc, $(cat "$tmp/busy.out")"
kill -TERM "$daemon"
for _ in $(seq 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
kill -0 "$daemon" 2>/dev/null && fail "daemon still running 5 s after SIGTERM"
wait "$daemon"
rc=$?
[ $rc = 143 ] || fail "daemon exited $rc after SIGTERM, want 128+15 (the rule of pmctop(1)): $(cat "$tmp/daemon.out")"

# 2. Bad usage is refused with a reason.
"$pmctop" --sim zen5 --daemon >/dev/null 2>"$tmp/err" && fail "--daemon without --listen accepted"
grep -q -- "--listen" "$tmp/err" || fail "--daemon without --listen: $(cat "$tmp/err")"
timeout 10 "$pmctop" --sim zen5 --daemon --listen no-such-host.invalid:1 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "cannot resolve 'no-such-host.invalid'" "$tmp/err" ||
	fail "--listen with a name that does not resolve: $(cat "$tmp/err")"
"$pmctop" --sim zen5 -b --listen 1 --export-scope thread >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "export-scope" "$tmp/err" || fail "--export-scope thread: $(cat "$tmp/err")"
# --user works in every mode (tests/e2e_privs.sh); unknown users are refused.
"$pmctop" --sim zen5 -b -n 1 --user no-such-user-here >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "no user 'no-such-user-here'" "$tmp/err" || fail "--user unknown in -b: $(cat "$tmp/err")"
port=$(free_port)
"$pmctop" --sim zen5 --daemon --listen "127.0.0.1:$port" --user no-such-user-here >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q "no user 'no-such-user-here'" "$tmp/err" || fail "--user unknown: $(cat "$tmp/err")"

# 3. A real Prometheus scraping batch mode, which also writes its JSON.
if command -v prometheus >/dev/null; then
	port=$(free_port)
	"$pmctop" --sim zen5 -b --format json -o "$tmp/run.json" -d 0.5 -n 80 -e ex_ret_instr -e ls_not_halted_cyc \
		--listen "127.0.0.1:$port" 2>"$tmp/batch.err" &
	pids+=($!)
	rules="$(cd "$top_srcdir" && pwd)/contrib/pmctop-rules.yml"
	promtool check rules "$rules" >"$tmp/promtool.out" 2>&1 || fail "contrib/pmctop-rules.yml: $(tail -3 "$tmp/promtool.out")"
	start_prometheus "$rules" "127.0.0.1:$port" || fail "prometheus not ready: $(tail -5 "$tmp/prometheus.log")"
	python3 "$top_srcdir/tests/e2e_export_prom.py" "http://127.0.0.1:$pport" "$tmp/run.json" ||
		fail "queries through Prometheus"
else
	echo "note: prometheus not installed, real scrape not tested"
fi

# 4. The real perf_event backend: software figures served the same way;
# as root, after giving root up with --user nobody.
port=$(free_port)
user=()
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && user=(--user nobody)
"$pmctop" --daemon --listen "127.0.0.1:$port" -d 0.2 "${user[@]}" >"$tmp/perf.out" 2>&1 &
perfd=$!
pids+=($perfd)
if wait_http "http://127.0.0.1:$port/metrics"; then
	sleep 0.6
	if [ ${#user[@]} -gt 0 ]; then
		uid=$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$perfd/status")
		n=$(id -u nobody)
		[ "$uid" = "$n$n$n$n" ] || fail "--user nobody: still uids $uid"
	fi
	scrape -o "$tmp/p.txt" "http://127.0.0.1:$port/metrics" || fail "perf scrape"
	grep -q 'simulated="false"' "$tmp/p.txt" || fail "perf backend: not simulated=false"
	grep -q '^pmctop_event_total{event="context_switches"' "$tmp/p.txt" || fail "perf backend: no context switch counter"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$tmp/p.txt" >"$tmp/promtool.out" 2>&1 || fail "promtool on perf: $(head -3 "$tmp/promtool.out")"
	fi
else
	fail "perf daemon never answered: $(cat "$tmp/perf.out")"
fi
kill -TERM "$perfd"
wait "$perfd"
rc=$?
[ $rc = 143 ] || fail "perf daemon exited $rc after SIGTERM, want 143"

# 5. The dashboard and /metrics at once (in tmux, where it is installed):
# the sampler's thread publishes a copy of each interval.
if command -v tmux >/dev/null; then
	port=$(free_port)
	sock="pmctop-export-$$"
	tmux -L "$sock" -f /dev/null new-session -d -x 160 -y 50 \
		"PMCTOP_EVENTS_DIR='$PMCTOP_EVENTS_DIR' '$pmctop' --sim zen5 -d 0.2 --listen 127.0.0.1:$port"
	if wait_http "http://127.0.0.1:$port/metrics"; then
		sleep 0.6
		scrape -o "$tmp/d.txt" "http://127.0.0.1:$port/metrics" || fail "dashboard scrape"
		grep -q '^pmctop_event_total{event=' "$tmp/d.txt" || fail "dashboard mode: no counters"
		n=$(sed -n 's/^pmctop_intervals_total //p' "$tmp/d.txt")
		[ "${n:-0}" -ge 2 ] || fail "dashboard mode: $n intervals"
	else
		fail "dashboard with --listen never answered"
	fi
	tmux -L "$sock" send-keys q
	sleep 0.5
	tmux -L "$sock" kill-server 2>/dev/null
fi

[ "$fails" = 0 ] && echo "e2e export: ok"
exit $((fails > 0))
