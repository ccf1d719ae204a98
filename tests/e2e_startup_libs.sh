#!/usr/bin/env bash
# e2e_startup_libs.sh: the libraries only one feature needs are loaded
# when it starts, not linked: pmctop's own list of needed libraries (ELF
# DT_NEEDED) names none of libcurl (--fleet, src/curl_dl.c),
# libmicrohttpd (--listen, src/mhd_dl.c), libpfm4 (events named the
# libpfm4 way, src/pfm_dl.c), libjansson, libz, libyaml and libcrypt
# (recordings, replay, --fleet, perf's files imported, the exporter's gzip
# and --web-config: src/lib_dl.h), and libncursesw and libtinfo (the
# dashboard, ui/curses_dl.c). Linked, libcurl and the two dozen
# libraries behind it were half of every start's instructions, libpfm4's
# relocations 0.9 ms of its CPU, libjansson to libcrypt 0.15 ms and 23
# page faults, and ncurses some 0.13 ms (docs/performance.md, issue 39). That --fleet still reaches libcurl is
# the fleet tests' (e2e_fleet_prom.sh scrapes over TLS through it).
set -u
top_builddir=${top_builddir:-.}
pm=$top_builddir/pmctop
if command -v readelf >/dev/null; then
	needed=$(readelf -d "$pm" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
elif command -v objdump >/dev/null; then
	needed=$(objdump -p "$pm" | sed -n 's/^ *NEEDED *//p')
else
	echo "SKIP: neither readelf nor objdump is installed"
	exit 77
fi
[ -n "$needed" ] || { echo "FAIL: no needed libraries read from $pm"; exit 1; }
echo "$pm needs:" $needed
fails=0
for lib in libcurl libmicrohttpd libpfm libjansson libz libyaml libcrypt libncursesw libtinfo; do
	if printf '%s\n' "$needed" | grep -q "^$lib[.-]"; then
		echo "FAIL: $pm is linked with $lib, which only some paths use: load it there (dlopen)"
		fails=$((fails + 1))
	fi
done
[ "$fails" = 0 ] && echo "ok: none of libcurl, libmicrohttpd, libpfm, libjansson, libz, libyaml, libcrypt, libncursesw and libtinfo is linked"
exit $((fails > 0))
