#!/bin/sh
# e2e_key_times.sh: the PMCTOP_KEY_TIMES hook that bench/key_latency.sh
# reads (ui/keytime.h): with it set, the dashboard writes one line per key
# read, in order, with the handling, first-frame and next-interval times;
# a view's key (a re-plan) gets the interval made after it. Times are not
# judged here (speed belongs in bench/), only that they are there and in
# their order. Exits 77 (skip) when tmux is missing or there is no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=keytimes
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"

start 120 30 "--sim zen5 -d 0.2" "PMCTOP_KEY_TIMES=$TMP/keys"
expect 'SIMULATED' "dashboard"
sleep 0.5
keys Down
keys 2
sleep 0.6
keys 1
sleep 0.6
quit_ok "with PMCTOP_KEY_TIMES"
if [ ! -s "$TMP/keys" ]; then
	fail "PMCTOP_KEY_TIMES: nothing written"
else
	# Down, 2, 1 and q, in that order ('2' is 50, '1' 49, 'q' 113).
	awk '
		!/^key=[0-9]+ handle_ms=-?[0-9.]+ frame_ms=-?[0-9.]+ next_interval_ms=-?[0-9.]+$/ { print "bad line: " $0; bad = 1; next }
		{ split($0, f, /[ =]/); k[NR] = f[2]; h[NR] = f[4]; fr[NR] = f[6]; nx[NR] = f[8] }
		END {
			if (bad) exit 1
			if (NR != 4 || k[2] != 50 || k[3] != 49 || k[4] != 113) { print "keys " k[1] " " k[2] " " k[3] " " k[4] " (" NR " lines)"; exit 1 }
			for (i = 1; i <= 3; i++)
				if (!(h[i] >= 0 && fr[i] >= h[i])) { print "line " i ": handled at " h[i] ", frame at " fr[i]; exit 1 }
			# A view key re-plans: the next interval came, after the frame.
			for (i = 2; i <= 3; i++)
				if (!(nx[i] >= fr[i])) { print "line " i ": no interval after the key (" nx[i] ")"; exit 1 }
		}' "$TMP/keys" || { fail "PMCTOP_KEY_TIMES lines"; sed 's/^/  | /' "$TMP/keys"; }
fi

# Unset: no file, nothing else changes.
start 120 30 "--sim zen5 -d 0.2"
expect 'SIMULATED' "dashboard without the hook"
quit_ok "without PMCTOP_KEY_TIMES"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
