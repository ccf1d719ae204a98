#!/bin/sh
# e2e_fleet_hang.sh: a server that hangs does not freeze the fleet's
# dashboard (docs/fleet.md, "The dashboard"). The fake Prometheus
# (e2e_fleet_fake.py, mode hang) answers one refresh, then holds every
# request for 60 s; pmctop's client timeout is its default 10 s. Read off
# the screen in tmux: the host's figures are those of the refresh that
# counted the hosts before the screen started (shown, not asked again),
# and while the next refresh hangs, `/` opens the search
# prompt within 1 s and `q` quits within 1 s (the refresh runs on the
# source's own thread, and a stop cancels its requests). Skips (77)
# without tmux or python3, or without libcurl in pmctop.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=fleethang
. "$top_srcdir/tests/e2e_tmux.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
"$PMCTOP" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }
events=$(cd "$top_srcdir/events" && pwd)

python3 "$top_srcdir/tests/e2e_fleet_fake.py" "$TMP/fport" 2>"$TMP/fake.err" &
fakepid=$!
trap 'kill $fakepid 2>/dev/null; cleanup' EXIT INT TERM
i=0; while [ ! -s "$TMP/fport" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
fake="http://127.0.0.1:$(cat "$TMP/fport")"

ms() { echo $(($(date +%s%N) / 1000000)); }

start 170 24 "--no-config --events-dir $events --fleet $fake/hang -d 0.5"
expect 'FLEET 1 hosts' "the header names the fleet"
expect '^h1:9465 .*[0-9]' "the host's figures from the refresh made before the screen"
# The second refresh has begun, and hangs.
i=0; while [ ! -e "$TMP/fport.hanging" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$TMP/fport.hanging" ] || fail "the fake server never saw a second refresh"
sleep 0.3

t0=$(ms)
$TMUX_CMD send-keys -t "$S" /
i=0; while ! screen | grep -Eq 'Search( \(|:)' && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
took=$(($(ms) - t0))
screen | grep -Eq 'Search( \(|:)' || fail "/ opened no search prompt while the server hangs"
[ $took -lt 1000 ] || fail "the search prompt took $took ms while the server hangs (the limit is 1000)"
echo "search prompt after $took ms while the server hangs"
$TMUX_CMD send-keys -t "$S" Escape
sleep 0.3

t0=$(ms)
$TMUX_CMD send-keys -t "$S" q
i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 150 ]; do sleep 0.02; i=$((i + 1)); done
took=$(($(ms) - t0))
[ $took -lt 1000 ] || fail "q took $took ms to quit while the server hangs (the limit is 1000)"
echo "q quit after $took ms while the server hangs"
quit_ok "fleet dashboard, server hanging"
[ $fails = 0 ]
