#!/bin/sh
# e2e_signals.sh: the terminal is handed back whole however many stop
# signals arrive and whenever they come. Storms of SIGTERM and SIGHUP
# (hundreds in a row) are sent at different moments of start-up and of the
# running dashboard; once pmctop is gone, tmux says whether the pane is still
# in a mouse mode (#{mouse_any_flag}) or on the alternate screen
# (#{alternate_on}). pmctop once left the mouse on after 3 of 10 SIGTERM
# storms: the one write of the mouse-off sequence was interrupted (EINTR)
# and not retried, and a signal between curses' start and pmctop's handlers
# met curses' own handler, which knows nothing of the mouse. Exits 77
# (skip) when tmux is missing or the program has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=signals
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"

# Starts pmctop through an inner shell that writes its PID and execs it, so
# that the storm can begin before pmctop has taken the terminal; sets $pid.
start_pid() {
	old=$S
	run=$((run + 1))
	S="sig$run"
	rm -f "$TMP/status" "$TMP/pid"
	$TMUX_CMD new-session -d -s "$S" -x 120 -y 40 \
		"sh -c 'echo \$\$ > $TMP/pid.tmp; mv $TMP/pid.tmp $TMP/pid; exec $PMCTOP $1'; echo \"EXIT=\$?\" > $TMP/status; sleep 60"
	[ -n "$old" ] && $TMUX_CMD kill-session -t "$old" >/dev/null 2>&1
	i=0; while [ ! -s "$TMP/pid" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	pid=$(cat "$TMP/pid" 2>/dev/null)
}

# One storm: $1 the signal, $2 how long to wait before it (seconds).
storm() {
	start_pid "--sim zen5 -d 0.1"
	[ -n "$pid" ] || { fail "$1 after $2 s: pmctop did not start"; return; }
	sleep "$2"
	n=0
	while [ $n -lt 400 ] && kill "-$1" "$pid" 2>/dev/null; do n=$((n + 1)); done
	i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$TMP/status" ] || { fail "$1 after $2 s: pmctop still running after the storm"; kill -KILL "$pid" 2>/dev/null; return; }
	flags=$($TMUX_CMD display-message -p -t "$S" '#{mouse_any_flag} #{alternate_on}')
	case $flags in
	"0 0") ;;
	*) fail "$1 after $2 s ($n signals, $(cat "$TMP/status")): terminal left with mouse/alternate screen = $flags";;
	esac
	storms=$((storms + 1))
}

storms=0
for sig in TERM HUP; do
	for delay in 0 0.02 0.05 0.1 0.15 0.2 0.3 0.5 0.8 1.2; do
		storm "$sig" "$delay"
	done
done
echo "$storms storms, $fails with the terminal not restored"
[ "$fails" -eq 0 ]
