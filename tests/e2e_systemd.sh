#!/usr/bin/env bash
# e2e_systemd.sh: the unit (contrib/pmctop.service.in) as systemd runs it.
# A Debian root made by mmdebstrap (cached under the build tree, see
# below) gets pmctop: the .deb that tests/e2e_debian.sh left in the build
# tree when it is newer than ./pmctop (make runs that test first), else
# ./pmctop, events/ and the unit where the package puts them.
# systemd boots in it as PID 1 (systemd-nspawn --boot; the container shares
# this machine's network) and, through the container's own systemctl:
#  - `systemctl start pmctop` (--sim, on a loopback port) succeeds: pmctop
#    gives up what it must under the unit's system call filter;
#  - the first scrape from outside, right after start returned, already
#    has pmctop_info (READY=1 waits for the first interval);
#  - pmctop holds CAP_PERFMON alone, nothing ambient, no_new_privs;
#  - `systemctl stop` leaves it inactive, not failed; the journal has no
#    error of pmctop's;
#  - without --sim, it opens counters (hardware ones, or the kernel's
#    software counters in a VM without a PMU) and keeps CAP_PERFMON;
#  - a start that keeps failing ends in start-limit-hit (the unit's
#    StartLimitBurst=; RestartSec= shortened here so it takes a second).
# Skips (77) when not root, without mmdebstrap, systemd-nspawn, nsenter or
# curl, when the mirror (Debian's, or PMCTOP_DEBIAN_MIRROR) cannot be reached, with a sanitized build (its
# runtime is not in the root) and when PMCTOP_SKIP_PACKAGE is set (CI runs
# it once, in its plain run). Bounded: about 3 minutes at worst; 15-20 s
# with the root cached.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
build=$(cd "$top_builddir" && pwd)
src=$(cd "$top_srcdir" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
for tool in mmdebstrap systemd-nspawn nsenter curl ldd dpkg; do
	command -v "$tool" >/dev/null || skip "$tool not installed (tests/install-test-deps)"
done
[ -z "${PMCTOP_SKIP_PACKAGE:-}" ] || skip "PMCTOP_SKIP_PACKAGE is set (the package is tested by another run)"
ldd "$build/pmctop" | grep -Eq 'lib(asan|tsan|ubsan)' && skip "a sanitized build"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
nspawn=
cleanup() {
	if [ -n "$nspawn" ] && kill -0 "$nspawn" 2>/dev/null; then
		kill "$nspawn" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$nspawn" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The root's packages: systemd, the package's own dependencies that are
# not libraries (adduser and libcap2-bin, for the pmctop group that its
# debconf question sets up: debian/control), and the libraries pmctop links
# to (found by ldd, named by dpkg) plus libmicrohttpd, which it loads when
# serving, and libpfm4, which it loads for an event named the libpfm4 way
# (both in the package's Depends), and the libraries it loads on first use
# rather than links (config.h's *_DL_SONAME, found by ldconfig; the
# package depends on them by name), but libcurl, which it only recommends.
dl_files=$(sed -n 's/^#define [A-Z]*_DL_SONAME "\(.*\)"$/\1/p' "$build/config.h" | grep -v '^libcurl' |
	while read -r so; do ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }'; done)
libs=$( { ldd "$build/pmctop" | awk '$3 ~ /^\// { print $3 }'; printf '%s\n' $dl_files; } | while read -r f; do
	dpkg -S "$(readlink -f "$f")" 2>/dev/null || dpkg -S "$f" 2>/dev/null; done | cut -d: -f1 | sort -u)
mhd=$(sed -n 's/^#define MHD_DL_SONAME "libmicrohttpd.so.\([0-9]*\)"/libmicrohttpd\1/p' "$build/config.h")
pkgs=$(printf '%s\n' systemd systemd-sysv adduser libcap2-bin ${mhd:-libmicrohttpd12} libpfm4 $libs | sort -u | paste -sd, -)
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || skip "not Debian (no VERSION_CODENAME in /etc/os-release)"
# Debian's mirror, or another (PMCTOP_DEBIAN_MIRROR, e.g. a local one).
mirror=${PMCTOP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Cached by suite, mirror and package list: a change makes a new one.
cache=$build/tests/systemd-root
key=$(printf '%s %s %s' "$suite" "$mirror" "$pkgs" | md5sum | cut -c1-12)
tarball=$cache/$suite-$key.tar
if [ ! -f "$tarball" ]; then
	mkdir -p "$cache"
	# mmdebstrap's format follows the name's ending: a tarball.
	partial=$cache/partial-$key.tar
	t0=$(date +%s)
	timeout 600 mmdebstrap --variant=minbase --include="$pkgs" "$suite" "$partial" \
		"$mirror" >"$tmp/mmdebstrap.log" 2>&1 || {
		rm -f "$partial"
		grep -qiE 'could not resolve|could not connect|failed to fetch|connection failed|temporary failure|unable to connect|network is unreachable' \
			"$tmp/mmdebstrap.log" && skip "mmdebstrap cannot reach the mirror: $(grep -iE 'err|fail' "$tmp/mmdebstrap.log" | head -2)"
		tail -20 "$tmp/mmdebstrap.log"
		echo "FAIL: mmdebstrap"
		exit 1
	}
	# The roots of other package lists are not needed again.
	find "$cache" -maxdepth 1 -name '*.tar' ! -name "partial-*" -delete
	mv "$partial" "$tarball"
	echo "root made in $(($(date +%s) - t0)) s: $pkgs"
fi
root=$tmp/root
mkdir "$root" && tar -xf "$tarball" -C "$root" || { echo "FAIL: cannot unpack $tarball"; exit 1; }

# pmctop into the root: the package when e2e_debian.sh built one from this
# tree, else as make install puts it.
deb=$build/tests/e2e_debian.deb
if [ -f "$deb" ] && [ "$deb" -nt "$build/pmctop" ]; then
	bin=usr/bin/pmctop
	cp "$deb" "$root/root/pmctop.deb"
	systemd-nspawn -q -D "$root" --register=no --keep-unit dpkg -i /root/pmctop.deb >"$tmp/dpkg.out" 2>&1 ||
		{ cat "$tmp/dpkg.out"; echo "FAIL: dpkg -i pmctop.deb in the root"; exit 1; }
	echo "installed: the package pmctop $(dpkg-deb -f "$deb" Version) that tests/e2e_debian.sh built"
else
	# Where make install puts them for /usr, without make: make would
	# write the build tree's unit again, which tests/e2e_install.sh writes
	# for its own prefix at the same time.
	bin=usr/bin/pmctop
	install -D -m 755 "$build/pmctop" "$root/$bin" &&
		mkdir -p "$root/usr/share/pmctop" "$root/lib/systemd/system" &&
		cp -RL "$src/events" "$root/usr/share/pmctop/events" &&
		sed 's|@bindir[@]|/usr/bin|g' "$src/contrib/pmctop.service.in" >"$root/lib/systemd/system/pmctop.service" ||
		{ echo "FAIL: cannot install pmctop into the root"; exit 1; }
	echo "installed: ./pmctop, events/ and the unit (no package newer than ./pmctop in the build tree)"
fi
[ -x "$root/$bin" ] || { echo "FAIL: no /$bin in the root"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
	echo $((20000 + $$ % 20000)))
printf 'PMCTOP_LISTEN=127.0.0.1:%s\nPMCTOP_OPTIONS="--sim zen5 -d 0.5"\n' "$port" >"$root/etc/default/pmctop"

# Boot. --keep-unit: no scope of its own (that needs the host's systemd);
# CAP_PERFMON and perf_event_open, which nspawn withholds from a
# container by default, so that the unit can count for real.
t0=$(date +%s%N)
systemd-nspawn -D "$root" --boot --register=no --keep-unit --console=read-only \
	--machine="pmctop-e2e-$$" --capability=CAP_PERFMON --system-call-filter=perf_event_open >"$tmp/boot.log" 2>&1 &
nspawn=$!
init=
for _ in $(seq 100); do
	# Its child once it is systemd (helpers come and go before).
	for c in $(pgrep -P "$nspawn" 2>/dev/null); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = systemd ] && init=$c
	done
	[ -n "$init" ] && break
	sleep 0.1
done
[ -n "$init" ] || { cat "$tmp/boot.log"; echo "FAIL: the container did not start"; exit 1; }
ct() { timeout 60 nsenter -t "$init" -a -r -w "$@"; }
state=
for _ in $(seq 150); do
	state=$(ct systemctl is-system-running 2>/dev/null)
	case "$state" in running | degraded) break ;; esac
	sleep 0.2
done
case "$state" in
running | degraded) echo "booted: $state in $((($(date +%s%N) - t0) / 1000000)) ms" ;;
*) tail -20 "$tmp/boot.log"; echo "FAIL: systemd did not finish booting: '$state'"; exit 1 ;;
esac

# Start, and scrape at once.
t1=$(date +%s%N)
ct systemctl start pmctop >"$tmp/start.out" 2>&1 || fail "systemctl start: $(cat "$tmp/start.out")"
started=$((($(date +%s%N) - t1) / 1000000))
curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$tmp/first.txt" || fail "no scrape on 127.0.0.1:$port"
grep -q '^pmctop_info{' "$tmp/first.txt" ||
	fail "the first scrape after start has no pmctop_info ($(wc -l <"$tmp/first.txt") lines)"
echo "started in $started ms; first scrape $(wc -l <"$tmp/first.txt") lines"
pid=$(ct systemctl show -p MainPID --value pmctop)
last=$(cat /proc/sys/kernel/cap_last_cap 2>/dev/null || echo 40)
if [ "$last" -ge 38 ]; then want=0000004000000000; else want=0000000000200000; fi
if [ -n "$pid" ] && [ "$pid" != 0 ]; then
	ct cat "/proc/$pid/status" >"$tmp/status" 2>/dev/null
	got=$(awk '/^Cap(Prm|Eff|Bnd):/ { printf "%s ", $2 } /^CapAmb:/ { printf "amb=%s ", $2 } /^NoNewPrivs:/ { printf "nnp=%s", $2 }' "$tmp/status")
	[ "$got" = "$want $want $want amb=0000000000000000 nnp=1" ] ||
		fail "pmctop's capabilities under the unit: $got, want $want (permitted, effective, bounding)"
else
	fail "pmctop has no main process: $(ct systemctl status --no-pager pmctop 2>&1 | head -5)"
fi
restarts=$(ct systemctl show -p NRestarts --value pmctop)
[ "$restarts" = 0 ] || fail "restarted $restarts times"

ct systemctl stop pmctop >"$tmp/stop.out" 2>&1 || fail "systemctl stop: $(cat "$tmp/stop.out")"
st=$(ct systemctl show -p ActiveState --value pmctop)
[ "$st" = inactive ] || fail "after stop: $st"
ct journalctl -q -u pmctop --no-pager -o cat >"$tmp/journal" 2>&1
grep -q 'pmctop: ' "$tmp/journal" && fail "pmctop said: $(grep 'pmctop: ' "$tmp/journal" | head -3)"
grep -q '^Started pmctop.service' "$tmp/journal" || fail "the journal has no start: $(head -5 "$tmp/journal")"
echo "journal: $(wc -l <"$tmp/journal") lines, none of pmctop's own"

# The real backend under the unit: counters opened with the granted
# CAP_PERFMON through the unit's filter (hardware ones where the machine
# has a PMU, else the kernel's software counters), and kept after the drop.
printf 'PMCTOP_LISTEN=127.0.0.1:%s\nPMCTOP_OPTIONS="-d 0.5"\n' "$port" >"$root/etc/default/pmctop"
since=$(ct date '+%Y-%m-%d %H:%M:%S')
ct systemctl start pmctop >"$tmp/start2.out" 2>&1 || fail "systemctl start (real counters): $(cat "$tmp/start2.out")"
curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$tmp/real.txt" || fail "no scrape of the real backend"
grep -q '^pmctop_info{.*simulated="false"' "$tmp/real.txt" ||
	fail "the real backend's first scrape has no pmctop_info: $(head -3 "$tmp/real.txt")"
events=$(grep -c '^pmctop_event_total{' "$tmp/real.txt")
pid=$(ct systemctl show -p MainPID --value pmctop)
ct cat "/proc/$pid/status" 2>/dev/null | grep -q "^CapEff:[[:space:]]*$want\$" ||
	fail "the real backend's capabilities: $(ct cat "/proc/$pid/status" 2>/dev/null | grep -E '^Cap(Prm|Eff)')"
ct systemctl stop pmctop >/dev/null 2>&1
ct journalctl -q -u pmctop --since "$since" --no-pager -o cat >"$tmp/journal.real" 2>&1
grep -Eq 'not permitted|cannot|Operation not' "$tmp/journal.real" &&
	fail "the real backend under the unit: $(grep -E 'not permitted|cannot|Operation not' "$tmp/journal.real" | head -3)"
echo "real counters: started, first scrape $events pmctop_event_total series"

# A start that keeps failing ends: an option pmctop refuses at run time
# (no such model), retried every 100 ms here instead of 5 s.
printf 'PMCTOP_LISTEN=127.0.0.1:%s\nPMCTOP_OPTIONS="--sim nosuchmodel"\n' "$port" >"$root/etc/default/pmctop"
mkdir -p "$root/etc/systemd/system/pmctop.service.d"
printf '[Service]\nRestartSec=100ms\n' >"$root/etc/systemd/system/pmctop.service.d/e2e.conf"
ct systemctl daemon-reload
since=$(ct date '+%Y-%m-%d %H:%M:%S')
ct systemctl start pmctop >/dev/null 2>&1
# systemd 252 keeps Result=exit-code; the unit is failed and says why.
st=
for _ in $(seq 50); do
	st=$(ct systemctl show -p ActiveState --value pmctop)
	[ "$st" = failed ] && break
	sleep 0.2
done
ct journalctl -q -u pmctop --since "$since" --no-pager -o cat >"$tmp/journal2" 2>&1
tries=$(grep -c "^pmctop: no model 'nosuchmodel'" "$tmp/journal2")
[ "$st" = failed ] && grep -q 'Start request repeated too quickly' "$tmp/journal2" ||
	fail "a failing start is not ended by the start limit: $st, $(ct systemctl show -p NRestarts pmctop); $(tail -5 "$tmp/journal2")"
sleep 0.5
[ "$(grep -c "^pmctop: no model 'nosuchmodel'" <(ct journalctl -q -u pmctop --since "$since" --no-pager -o cat))" = "$tries" ] || fail "still restarting after the start limit"
echo "crash loop: ended by the start limit after $tries failed starts"

ct systemctl poweroff >/dev/null 2>&1
for _ in $(seq 100); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.2; done
kill -0 "$nspawn" 2>/dev/null && fail "the container did not power off in 20 s"
[ $fails = 0 ] || exit 1
echo "e2e systemd: the unit starts, serves, stops and ends a crash loop under systemd"
