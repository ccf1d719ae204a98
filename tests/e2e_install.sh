#!/usr/bin/env bash
# e2e_install.sh: pmctop as a distribution installs it.
#  1. `make install` into a scratch DESTDIR with another prefix: the
#     installed pmctop finds its definitions relative to itself, also after
#     the whole tree is moved; PMCTOP_EVENTS_DIR and --events-dir override
#     them; its error names the installed place, not the build tree; the
#     stripped binary holds no path of the build tree (reproducible).
#  2. The systemd unit, made for that prefix: the program's path is the
#     installed one, and where systemd-analyze is installed, `verify` is
#     clean and `security` rates the sandbox at most 2.0.
# Needs nothing beyond make (systemd-analyze is optional); bounded in time.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
build=$(cd "$top_builddir" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

prefix=/opt/pmctop-e2e
unitdir=$prefix/lib/systemd/system
make -s -C "$build" install-exec install-data DESTDIR="$tmp/root" prefix="$prefix" \
	systemdsystemunitdir="$unitdir" >"$tmp/install.out" 2>&1 || { cat "$tmp/install.out"; exit 1; }
bin="$tmp/root$prefix/bin/pmctop"
[ -x "$bin" ] || { echo "FAIL: nothing installed at $bin"; exit 1; }
[ -d "$tmp/root$prefix/share/pmctop/events/amd/zen5" ] || fail "definitions not installed under share/pmctop/events"
# Every definition file of the source tree is installed (a file missing
# from the lists in mk/events*.am breaks an include only once installed).
missing=$(cd "$top_srcdir" && find events -name '*.def' | sort | while read -r f; do
	[ -f "$tmp/root$prefix/share/pmctop/$f" ] || echo "$f"; done)
[ -z "$missing" ] || fail "not installed (list them in mk/events*.am): $missing"

# 1. Definitions found relative to the program, wherever the tree is.
"$bin" --sim zen5 -b -n 1 -d 0.05 >"$tmp/a.out" 2>&1 && grep -q 'model amd-zen5' "$tmp/a.out" ||
	fail "installed pmctop: $(head -2 "$tmp/a.out")"
mv "$tmp/root$prefix" "$tmp/root/moved"
moved="$tmp/root/moved/bin/pmctop"
"$moved" --sim zen5 -b -n 1 -d 0.05 >"$tmp/b.out" 2>&1 && grep -q 'model amd-zen5' "$tmp/b.out" ||
	fail "moved pmctop: $(head -2 "$tmp/b.out")"
# Overrides: a definitions tree of one's own.
mkdir -p "$tmp/own"
cp -r "$top_srcdir/events/generic" "$tmp/own/"
"$moved" --events-dir "$tmp/own" --list-models >"$tmp/c.out" 2>&1
grep -q generic "$tmp/c.out" && ! grep -q zen5 "$tmp/c.out" || fail "--events-dir: $(head -3 "$tmp/c.out")"
if [ "$(id -u)" != 0 ]; then
	PMCTOP_EVENTS_DIR="$tmp/own" "$moved" --list-models >"$tmp/d.out" 2>&1
	grep -q generic "$tmp/d.out" && ! grep -q zen5 "$tmp/d.out" || fail "PMCTOP_EVENTS_DIR: $(head -3 "$tmp/d.out")"
fi
# 2. The unit, for this prefix.
# Installed with configure's --with-systemdsystemunitdir; made here for
# this prefix otherwise, as make install would.
unit="$tmp/root/moved/lib/systemd/system/pmctop.service"
if [ ! -f "$unit" ]; then
	make -s -C "$build" contrib/pmctop.service bindir="$prefix/bin" >/dev/null 2>&1
	unit="$tmp/unit.service"
	cp "$build/contrib/pmctop.service" "$unit"
	make -s -C "$build" contrib/pmctop.service >/dev/null 2>&1
fi
if [ -n "$unit" ]; then
	grep -q "^ExecStart=$prefix/bin/pmctop --daemon" "$unit" || fail "ExecStart: $(grep ExecStart "$unit")"
	grep -q '^EnvironmentFile=-/etc/default/pmctop' "$unit" || fail "no EnvironmentFile"
	grep -q '^StateDirectory=pmctop' "$unit" || fail "no StateDirectory"
	grep -q '^Type=notify$' "$unit" || fail "Type: $(grep '^Type=' "$unit")"
	if command -v systemd-analyze >/dev/null; then
		# verify resolves ExecStart: give it the program at the unit's path.
		mkdir -p "$tmp/vroot"
		sed "s|$prefix/bin/pmctop|$moved|" "$unit" >"$tmp/vroot/pmctop.service"
		# Documentation=man:pmctop(1) is looked up: the installed page.
		MANPATH="$tmp/root/moved/share/man" systemd-analyze verify "$tmp/vroot/pmctop.service" >"$tmp/verify.out" 2>&1 ||
			fail "systemd-analyze verify: $(cat "$tmp/verify.out")"
		grep -v '^$' "$tmp/verify.out" | grep -q . && fail "systemd-analyze verify said: $(cat "$tmp/verify.out")"
		systemd-analyze security --offline=true --threshold=20 "$tmp/vroot/pmctop.service" >"$tmp/sec.out" 2>&1
		score=$(sed -n 's/.*Overall exposure level for pmctop.service: \([0-9.]*\).*/\1/p' "$tmp/sec.out")
		echo "systemd-analyze security: exposure ${score:-?}"
		[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' ||
			fail "exposure ${score:-?} above 2.0: $(grep -E '^✗' "$tmp/sec.out" | head -10)"
	else
		echo "note: systemd-analyze not installed, the unit is not verified"
	fi
fi

# Without its definitions, the error names where they belong.
mv "$tmp/root/moved/share" "$tmp/root/moved/gone"
"$moved" --sim zen5 -b -n 1 >/dev/null 2>"$tmp/e.err" && fail "ran without definitions"
grep -q "$tmp/root/moved/bin/../share/pmctop/events" "$tmp/e.err" || fail "missing definitions: $(cat "$tmp/e.err")"
grep -q "$build" "$tmp/e.err" && fail "the error names the build tree: $(cat "$tmp/e.err")"
# Reproducible: no path of the build tree in the program itself (debug
# information aside, which packaging strips or maps).
if command -v strip >/dev/null; then
	strip -o "$tmp/stripped" "$moved"
	if grep -qaF "$build" "$tmp/stripped" || grep -qaF "$(cd "$top_srcdir" && pwd)/events" "$tmp/stripped"; then
		fail "the stripped program holds the build tree's path"
	fi
fi

# 3. Type=notify: pmctop says READY=1 on $NOTIFY_SOCKET once /metrics
# serves the first interval, and STOPPING=1 when told to stop (a socket of this test's stands
# in for systemd's): at a path, and in the abstract namespace ('@name').
if command -v python3 >/dev/null; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 - "$tmp/notify" "$build/pmctop" "$top_srcdir/events" "$port" >"$tmp/notify.out" 2>&1 <<'EOP' || fail "service notify: $(cat "$tmp/notify.out")"
import os, socket, subprocess, sys, urllib.request
path, pmctop, events, port = sys.argv[1:5]
for addr in (path, "@pmctop-notify-%d" % os.getpid()):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind("\0" + addr[1:] if addr[0] == "@" else addr)
    s.settimeout(10)
    p = subprocess.Popen([pmctop, "--events-dir", events, "--sim", "zen5", "--daemon", "-d", "0.2",
                          "--listen", "127.0.0.1:" + port], env=dict(os.environ, NOTIFY_SOCKET=addr))
    try:
        msg = s.recv(4096).decode()
        assert "READY=1" in msg, msg
        # Ready means served, with figures: the first scrape after it
        # has the first interval (pmctop_info), not an empty exposition.
        body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=5).read().decode()
        assert "\npmctop_info{" in "\n" + body, "first scrape after READY=1: %d lines, no pmctop_info" % body.count("\n")
        p.terminate()
        assert "STOPPING=1" in s.recv(4096).decode()
        print("notify (%s):" % addr, msg.replace("\n", " | "))
    finally:
        p.terminate()
        p.wait(10)
        s.close()
EOP
	cat "$tmp/notify.out"
fi

[ "$fails" = 0 ] && echo "e2e install: ok"
exit $((fails > 0))
