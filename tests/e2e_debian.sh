#!/usr/bin/env bash
# e2e_debian.sh: the Debian package (debian/, docs/packaging.md) builds with
# `dpkg-buildpackage -us -uc -b` from a clean copy of the committed tree
# (git archive, or the tree without build outputs), holds the docs,
# examples and /etc/default/pmctop, the man page's FILES are its paths,
# and lintian finds nothing to say about it, pedantic tags included; as
# root, the postinst's pmctop group choice on a scratch file. Skips (77)
# without dpkg-buildpackage, debhelper or lintian, or without the build
# dependencies; the package's own test suite is not run again (nocheck). Bounded: 15 minutes.
set -u
top_srcdir=${top_srcdir:-.}
src=$(cd "$top_srcdir" && pwd)
build=$(cd "${top_builddir:-.}" && pwd)
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[ -f "$src/debian/control" ] || { echo "SKIP: no debian/ in $src"; exit 77; }
# CI builds the package once, in its plain run; its distcheck and sanitized
# runs of the suite set this (.ci/run).
[ -z "${PMCTOP_SKIP_PACKAGE:-}" ] || { echo "SKIP: PMCTOP_SKIP_PACKAGE is set (the package is built by another run)"; exit 77; }
( cd "$src" && dpkg-checkbuilddeps ) >/dev/null 2>&1 || { echo "SKIP: build dependencies missing: $(cd "$src" && dpkg-checkbuilddeps 2>&1)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/pmctop"
# Only a checkout's own top: a release tree unpacked inside another
# repository (make distcheck's) is not that repository's files.
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
	# The working tree as it is, without what is ignored (build outputs).
	(cd "$src" && git ls-files -co --exclude-standard -z | tar --null --no-recursion -T - -cf -) | tar -xf - -C "$tmp/pmctop"
else
	cp -a "$src/." "$tmp/pmctop"
fi
cd "$tmp/pmctop" || exit 1
DEB_BUILD_OPTIONS="nocheck parallel=2" timeout 900 dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1 ||
	{ tail -30 "$tmp/build.log"; echo "FAIL: dpkg-buildpackage"; exit 1; }
deb=$(ls "$tmp"/pmctop_*.deb)
dpkg-deb -c "$deb" >"$tmp/contents"
# What users need beside the program: the README and the guides, the
# examples of contrib/, and /etc/default/pmctop (a conffile), which the
# unit reads.
for f in ./usr/bin/pmctop ./usr/share/pmctop/events/amd/zen5/model.def ./lib/systemd/system/pmctop.service \
	./usr/share/man/man1/pmctop.1.gz ./etc/default/pmctop ./usr/share/doc/pmctop/README.gz \
	./usr/share/doc/pmctop/exporter.md.gz ./usr/share/doc/pmctop/privileges.md.gz \
	./usr/share/doc/pmctop/examples/pmctop-rules.yml ./usr/share/doc/pmctop/examples/prometheus-pmctop.yml \
	./usr/share/doc/pmctop/examples/grafana-pmctop.json; do
	grep -q " $f\$" "$tmp/contents" || { echo "FAIL: $f not in the package"; exit 1; }
done
dpkg-deb -I "$deb" conffiles 2>/dev/null | grep -qx /etc/default/pmctop || { echo "FAIL: /etc/default/pmctop is not a conffile"; exit 1; }
# The libraries pmctop loads rather than links, which shlibs cannot see:
# libmicrohttpd, libpfm4, libjansson, libyaml, zlib, libcrypt and ncurses
# (needed, src/lib_dl.h), libcurl (--fleet alone).
deps=$(dpkg-deb -f "$deb" Depends)
for lib in libmicrohttpd12 libpfm4 libjansson4 libyaml-0-2 zlib1g libcrypt1 libncursesw6 libtinfo6; do
	echo "$deps" | grep -q "$lib" || { echo "FAIL: the package does not depend on $lib: $deps"; exit 1; }
done
dpkg-deb -f "$deb" Recommends | grep -q 'libcurl3' || { echo "FAIL: the package does not recommend libcurl: $(dpkg-deb -f "$deb" Recommends)"; exit 1; }
# The man page's FILES are the package's paths.
for f in $(sed -n '/^\.SH FILES/,/^\.SH [A-Z]/s|^\.I \(/[^ ]*\)$|\1|p' "$src/man/pmctop.1"); do
	grep -q " \.$f\$" "$tmp/contents" || { echo "FAIL: pmctop(1)'s FILES names $f, which the package does not have"; exit 1; }
done
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./lib/systemd/system/pmctop.service | grep -q '^ExecStart=/usr/bin/pmctop ' ||
	{ echo "FAIL: the unit does not run /usr/bin/pmctop"; exit 1; }
lintian --pedantic --fail-on warning,error,pedantic "$tmp"/pmctop_*.changes >"$tmp/lintian.all" 2>&1
rc=$?
# As root (CI), lintian says so first; that is not about the package.
grep -v '^running with root privileges is not recommended!$' "$tmp/lintian.all" >"$tmp/lintian.out"
cat "$tmp/lintian.out"
[ $rc = 0 ] && [ ! -s "$tmp/lintian.out" ] || { echo "FAIL: lintian"; exit 1; }
# The pmctop group's postinst (debian/pmctop.postinst), as root, on a
# scratch file in place of /usr/bin/pmctop: debconf's answer stubbed, the
# statoverride database a scratch one (--admindir), addgroup and systemctl
# stubbed and
# nogroup for the group, so nothing of this machine changes. Yes: root:GROUP
# 750, cap_perfmon=ep, the override and the unit's drop-in; yes again
# (an upgrade's configure) keeps them; no: root:root 755, none of them; an
# override of the administrator's is left alone.
if [ "$(id -u)" = 0 ] && command -v setcap >/dev/null && command -v getcap >/dev/null; then
	pi=$tmp/postinst-check
	mkdir -p "$pi/bin" "$pi/admin" "$pi/usr"
	: >"$pi/admin/statoverride"
	cp /bin/true "$pi/usr/pmctop"
	printf '#!/bin/sh\nexec %s --admindir %s "$@"\n' "$(command -v dpkg-statoverride)" "$pi/admin" >"$pi/bin/dpkg-statoverride"
	printf '#!/bin/sh\necho "addgroup $*"\n' >"$pi/bin/addgroup"
	# The host's systemd is not told of the scratch drop-in.
	printf '#!/bin/sh\nexit 0\n' >"$pi/bin/systemctl"
	chmod 755 "$pi/bin/dpkg-statoverride" "$pi/bin/addgroup" "$pi/bin/systemctl"
	sed -e 's|^\. /usr/share/debconf/confmodule$|db_get() { RET=$ANSWER; }|' -e "s|^PROGRAM=.*|PROGRAM=$pi/usr/pmctop|" \
		-e 's|^GROUP=pmctop$|GROUP=nogroup|' -e "s|^DROPIN_DIR=.*|DROPIN_DIR=$pi/dropin|" "$src/debian/pmctop.postinst" >"$pi/postinst"
	grep -q 'db_get() {' "$pi/postinst" && grep -q "^PROGRAM=$pi/" "$pi/postinst" || { echo "FAIL: the postinst's lines to stub have changed"; exit 1; }
	state() { echo "$(stat -c '%U:%G %a' "$pi/usr/pmctop") $(getcap "$pi/usr/pmctop" | sed 's/.* //') [$(cat "$pi/admin/statoverride")] $(ls "$pi/dropin" 2>/dev/null)" | tr -s ' ' | sed 's/ $//'; }
	for step in "true:root:nogroup 750 cap_perfmon=ep [root nogroup 750 $pi/usr/pmctop] pmctop-group.conf" \
		"true:root:nogroup 750 cap_perfmon=ep [root nogroup 750 $pi/usr/pmctop] pmctop-group.conf" \
		"false:root:root 755 []" "true:root:nogroup 750 cap_perfmon=ep [root nogroup 750 $pi/usr/pmctop] pmctop-group.conf"; do
		ANSWER=${step%%:*} PATH=$pi/bin:$PATH sh "$pi/postinst" configure >"$pi/out" 2>&1 || { cat "$pi/out"; echo "FAIL: postinst with ${step%%:*}"; exit 1; }
		got=$(state)
		# getcap's output differs between versions (= or +): the name is enough.
		got=$(echo "$got" | sed 's/cap_perfmon[=+]ep/cap_perfmon=ep/')
		[ "$got" = "${step#*:}" ] || { echo "FAIL: postinst with ${step%%:*}: $got, want ${step#*:}"; exit 1; }
	done
	ANSWER=false PATH=$pi/bin:$PATH sh "$pi/postinst" configure >/dev/null 2>&1
	PATH=$pi/bin:$PATH dpkg-statoverride --update --add root root 0700 "$pi/usr/pmctop"
	ANSWER=true PATH=$pi/bin:$PATH sh "$pi/postinst" configure >"$pi/out" 2>&1
	[ "$(state)" = "root:root 700 [root root 700 $pi/usr/pmctop]" ] && grep -q 'an override of its own' "$pi/out" ||
		{ echo "FAIL: an administrator's override: $(state): $(cat "$pi/out")"; exit 1; }
	echo "postinst: the pmctop group turned on, kept, off, on; an administrator's override left alone"
fi
# Left in the build tree for tests/e2e_systemd.sh, which installs it.
[ -d "$build/tests" ] && cp "$deb" "$build/tests/e2e_debian.deb"
echo "e2e debian: $(basename "$deb") built, lintian clean"
