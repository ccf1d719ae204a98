#!/bin/sh
# e2e_privs.sh: least privilege (docs/privileges.md), as root: once its
# counters, socket and files are open, every thread of pmctop holds only
# the counters' capability (CAP_PERFMON; CAP_SYS_ADMIN on kernels without
# it) in batch mode, with --daemon and in the dashboard; a simulated run or
# a replay holds none; no_new_privs is set; and a file that root could
# write (mode 0600, another owner) can no longer be opened for writing,
# observed through the test hook PMCTOP_TEST_OPEN_AFTER_DROP. With
# --user nobody, pmctop runs as nobody and still holds the capability. The
# Debian package's pmctop group: a member counts every CPU, others cannot.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
PMCTOP=$(cd "$top_builddir" && pwd)/pmctop
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -r /proc/self/status ] && grep -q '^CapEff:' /proc/self/status || { echo "SKIP: no /proc/PID/status"; exit 77; }
E2E_NAME=privs
. "$top_srcdir/tests/e2e_tmux.sh"
pm="$PMCTOP --events-dir $top_srcdir/events"

last=$(cat /proc/sys/kernel/cap_last_cap 2>/dev/null || echo 40)
if [ "$last" -ge 38 ]; then want=0000004000000000; else want=0000000000200000; fi
none=0000000000000000
# The real backend counts software events as root on any Linux, a VM too.
real=1
$pm -b -n 1 -d 0.05 >/dev/null 2>"$TMP/err" || { real=0; echo "note: no counters here, real-backend checks skipped: $(cat "$TMP/err")"; }

# caps PID WANT WHAT: every thread's sets are WANT, nothing ambient, no_new_privs.
caps() {
	[ -d "/proc/$1" ] || { fail "$3: pmctop (pid $1) is not running"; return; }
	for st in /proc/"$1"/task/*/status; do
		got=$(awk '/^Cap(Prm|Eff|Bnd):/ { printf "%s ", $2 } /^CapAmb:/ { printf "amb=%s ", $2 } /^NoNewPrivs:/ { printf "nnp=%s", $2 }' "$st")
		[ "$got" = "$2 $2 $2 amb=$none nnp=1" ] || fail "$3: thread $(basename "$(dirname "$st")"): $got, want $2 (permitted, effective, bounding)"
	done
}
# free_port: a loopback port the kernel has just found free.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_pid PID: up to 10 s for a process to end; its status is lost (not our child).
wait_gone() { i=0; while [ -d "/proc/$1" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done; }

# 1. Batch mode and --daemon on real counters; --sim holds nothing.
if [ $real = 1 ]; then
	$pm -b -n 40 -d 0.1 >/dev/null 2>"$TMP/b.err" &
	p=$!; sleep 1; caps $p $want "-b"; wait $p || fail "-b exited $?: $(cat "$TMP/b.err")"
	# A port the kernel says is free, tried again if another test took
	# it in the meantime (CI runs tests side by side).
	for _ in 1 2 3; do
		port=$(free_port)
		$pm --daemon --listen "127.0.0.1:$port" -n 40 -d 0.1 >/dev/null 2>"$TMP/d.err" &
		p=$!; sleep 1
		[ -d "/proc/$p" ] || ! grep -q "already in use" "$TMP/d.err" && break
		wait $p
	done
	caps $p $want "--daemon"
	if command -v curl >/dev/null; then
		curl -fsS -o "$TMP/m" "http://127.0.0.1:$port/metrics" && grep -q '^pmctop_event_total' "$TMP/m" ||
			fail "--daemon: no metrics after the drop"
	fi
	wait $p || fail "--daemon exited $?: $(cat "$TMP/d.err")"
	$pm -b -n 40 -d 0.1 --user nobody >/dev/null 2>"$TMP/u.err" &
	p=$!; sleep 1; caps $p $want "--user nobody"
	n=$(id -u nobody)
	uid=$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "/proc/$p/status")
	[ "$uid" = "$n$n$n$n" ] || fail "--user nobody: uids $uid"
	wait $p || fail "--user exited $?: $(cat "$TMP/u.err")"
fi
$pm --sim zen5 -b -n 40 -d 0.1 >/dev/null 2>"$TMP/s.err" &
p=$!; sleep 1; caps $p $none "--sim -b"; wait $p || fail "--sim -b exited $?: $(cat "$TMP/s.err")"

# 1b. A binary with file capabilities, run by a user (as a distribution's
# setcap'd pmctop is). With CAP_SETPCAP as a permitted file capability the
# bounding set is emptied too; with cap_perfmon alone it cannot be, and
# stays as it was, with no_new_privs set and nothing else held: what
# docs/privileges.md says. (setcap and setpriv: libcap2-bin, util-linux.)
if command -v setcap >/dev/null && command -v setpriv >/dev/null; then
	mkdir -m 755 "$TMP/fcap"
	cp "$PMCTOP" "$TMP/fcap/pmctop"
	# The definitions travel with the copy: the source tree may sit in a
	# directory that nobody cannot enter (CI's sanitized builds unpack in a
	# mode-700 mktemp -d).
	cp -R "$top_srcdir/events" "$TMP/fcap/events"
	chmod -R a+rX "$TMP/fcap/events"
	chmod 755 "$TMP" "$TMP/fcap/pmctop"
	asnobody() { exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/fcap/pmctop" --events-dir "$TMP/fcap/events" "$@"; }
	if setcap 'cap_perfmon,cap_setpcap=p' "$TMP/fcap/pmctop" 2>"$TMP/setcap.err"; then
		asnobody --sim zen5 -b -n 40 -d 0.1 >/dev/null 2>"$TMP/f1.err" &
		p=$!; sleep 1; caps $p $none "setcap cap_perfmon,cap_setpcap=p, run by nobody"
		wait $p || fail "setcap'd pmctop exited $?: $(cat "$TMP/f1.err")"
		setcap 'cap_perfmon=ep' "$TMP/fcap/pmctop"
		asnobody --sim zen5 -b -n 40 -d 0.1 >/dev/null 2>"$TMP/f2.err" &
		p=$!; sleep 1
		bnd=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
		for st in /proc/"$p"/task/*/status; do
			got=$(awk '/^Cap(Prm|Eff|Bnd):/ { printf "%s ", $2 } /^NoNewPrivs:/ { printf "nnp=%s", $2 }' "$st")
			[ "$got" = "$none $none $bnd nnp=1" ] ||
				fail "setcap cap_perfmon=ep, run by nobody: $got, want $none $none $bnd nnp=1"
		done
		wait $p || fail "pmctop with cap_perfmon=ep exited $?: $(cat "$TMP/f2.err")"
	else
		echo "note: setcap refused here ($(cat "$TMP/setcap.err")), file capabilities not checked"
	fi
fi

# 1c. The Debian package's pmctop group (debian/pmctop.postinst,
# docs/privileges.md): the program root:GROUP mode 0750 with cap_perfmon=ep.
# A member (nobody with the group added) counts every CPU, software events
# on any Linux, a VM too; a user outside the group cannot run it; and a
# user without the capability (the package as installed, choice off) is
# told what to do: the hint names perf_event_paranoid=0, CAP_PERFMON and
# the group. A numeric group nobody has stands in for pmctop: no account
# is made.
if command -v setcap >/dev/null && command -v setpriv >/dev/null && [ $real = 1 ]; then
	gid=64999
	while getent group $gid >/dev/null; do gid=$((gid - 1)); done
	mkdir -m 755 "$TMP/grp"
	cp "$PMCTOP" "$TMP/grp/pmctop"
	cp -R "$top_srcdir/events" "$TMP/grp/events"
	chmod -R a+rX "$TMP/grp/events"
	chmod 755 "$TMP"
	# As the postinst does it: owner and mode first (a change of owner
	# clears file capabilities), then the capability.
	chown root:$gid "$TMP/grp/pmctop" && chmod 0750 "$TMP/grp/pmctop"
	if setcap cap_perfmon=ep "$TMP/grp/pmctop" 2>"$TMP/setcap.err"; then
		ncpus=$(grep -c '^processor' /proc/cpuinfo)
		# Through a shell run as the user: setpriv itself may still hold
		# root's capabilities when it calls execve, and would run anything.
		setpriv --reuid=nobody --regid=nogroup --groups=$gid sh -c 'exec "$0" "$@"' "$TMP/grp/pmctop" --events-dir "$TMP/grp/events" \
			-b -n 1 -d 0.2 -e context-switches --format json >"$TMP/g.json" 2>"$TMP/g.err" ||
			fail "pmctop group member: exit $?: $(cat "$TMP/g.err")"
		grep -q "\"ncpus\":$ncpus[,}]" "$TMP/g.json" || fail "pmctop group member: not every CPU ($ncpus) counted: $(head -c 300 "$TMP/g.json")"
		grep -q '"context_switches_per_s":[0-9]' "$TMP/g.json" || fail "pmctop group member: no context switches counted: $(head -c 300 "$TMP/g.json")"
		out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c 'exec "$0" "$@"' "$TMP/grp/pmctop" --sim zen5 -b -n 1 2>&1)
		rc=$?
		{ [ $rc != 0 ] && echo "$out" | grep -q 'Permission denied'; } || fail "outside the pmctop group: exit $rc: $out"
	else
		echo "note: setcap refused here ($(cat "$TMP/setcap.err")), the pmctop group not checked"
	fi
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
		cp "$PMCTOP" "$TMP/grp/plain" && chmod 755 "$TMP/grp/plain"
		out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/grp/plain" --events-dir "$TMP/grp/events" -b -n 1 -d 0.2 2>&1 >/dev/null)
		rc=$?
		for w in "perf_event_paranoid is" "CAP_PERFMON" "pmctop group" "sysctl kernel.perf_event_paranoid=0"; do
			echo "$out" | grep -qF "$w" || fail "without the capability: exit $rc, no '$w' in: $out"
		done
	fi
fi

# 2. The dashboard (its sampler thread starts after the drop).
if command -v tmux >/dev/null; then
	backend=--sim\ zen5; w=$none
	[ $real = 1 ] && { backend=; w=$want; }
	$TMUX_CMD new-session -d -s tui -x 120 -y 40 "exec $pm $backend -d 0.2"
	S=tui
	wait_for 'CPU' || fail "dashboard did not start"
	sleep 0.6
	p=$($TMUX_CMD list-panes -t tui -F '#{pane_pid}')
	caps "$p" $w "dashboard"
	keys q
	wait_gone "$p"
fi

# 3. A file that root could write, but that belongs to another user, is
# out of reach after the drop; the shell, still root, can write it.
# $TMP is root's alone: open it for the --user runs to reach the file.
chmod 711 "$TMP"
f="$TMP/other"
: >"$f"; chown 12345 "$f"; chmod 600 "$f"
[ -w "$f" ] || fail "control: root cannot write $f before any drop"
for args in "--sim zen5 -b" "--sim zen5 --daemon --listen 127.0.0.1:$(free_port)"; do
	out=$(PMCTOP_TEST_OPEN_AFTER_DROP=$f $pm $args -n 1 -d 0.05 2>&1 >/dev/null)
	echo "$out" | grep -q "test: open $f for writing: Permission denied" || fail "$args: $out"
done
if [ $real = 1 ]; then
	out=$(PMCTOP_TEST_OPEN_AFTER_DROP=$f $pm -b -n 1 -d 0.05 2>&1 >/dev/null)
	echo "$out" | grep -q "for writing: Permission denied" || fail "-b: $out"
	# As nobody, a root-only file is out of reach, and its own files are not.
	chown 0 "$f"
	out=$(PMCTOP_TEST_OPEN_AFTER_DROP=$f $pm -b -n 1 -d 0.05 --user nobody 2>&1 >/dev/null)
	echo "$out" | grep -q "for writing: Permission denied" || fail "--user nobody: $out"
	chown nobody "$f"
	out=$(PMCTOP_TEST_OPEN_AFTER_DROP=$f $pm -b -n 1 -d 0.05 --user nobody 2>&1 >/dev/null)
	echo "$out" | grep -q "for writing: allowed" || fail "--user nobody, its own file: $out"
fi
# A replay opens no counters and keeps nothing.
$pm --sim zen5 -b -n 2 -d 0.05 -w "$TMP/r.rec" >/dev/null 2>&1 || fail "recording for the replay"
chown 12345 "$f"
out=$(PMCTOP_TEST_OPEN_AFTER_DROP=$f $pm -r "$TMP/r.rec" -b 2>&1 >/dev/null)
echo "$out" | grep -q "for writing: Permission denied" || fail "-r -b: $out"

[ "$fails" -eq 0 ] || exit 1
echo "e2e privs: all checks passed"
