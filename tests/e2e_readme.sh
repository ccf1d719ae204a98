#!/usr/bin/env bash
# e2e_readme.sh: the README's commands run in order, as a new user would run
# them, in a scratch copy of the tree: every line of a README example block
# (indented four spaces) that starts with a command, outside the Usage
# synopsis, is taken from the README itself, so the two cannot drift. Each
# step of a line (split at &&) is run, rewritten so that it ends and stays
# on this machine, or skipped with the reason said; a command this test does
# not know is a failure (teach it here). Rewritten: apt-get and
# tests/install-test-deps run only where a package they install is missing
# (as root); make runs with -j2, and the suite's own `make check` runs one
# quick test (the suite is what runs this test); pmctop runs with -b -n 1
# (the dashboard would not end) and a replay with -b. Skipped: what would
# change this machine (installing the package, the service, users, sysctl)
# or serve on the network (the exporter's own tests do). The PromQL
# examples' series are looked for in a scrape of an AMD and an Intel model
# (simulated, on loopback). A full build, two
# with the test command's configure: about 5 minutes on 2 CPUs. Skips (77)
# when PMCTOP_SKIP_PACKAGE is set (CI's sanitized and distcheck runs).
set -u
src=$(cd "${top_srcdir:-.}" && pwd)
readme=$src/README
[ -f "$readme" ] || { echo "SKIP: no README in $src"; exit 77; }
[ -z "${PMCTOP_SKIP_PACKAGE:-}" ] || { echo "SKIP: PMCTOP_SKIP_PACKAGE is set (the README is run by another run)"; exit 77; }
# Never inside itself (the README's make check, run below, must not run it).
[ -z "${PMCTOP_IN_E2E_README:-}" ] || { echo "SKIP: run by tests/e2e_readme.sh"; exit 77; }
export PMCTOP_IN_E2E_README=1
# The README's commands run as from a shell, not as part of this make: an
# inherited MAKEFLAGS would carry the outer TESTS= into the inner make check.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES TESTS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src" "$tmp/work"
# The tree as a new user has it: a checkout's files without build outputs.
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
	(cd "$src" && git ls-files -co --exclude-standard -z | tar --null --no-recursion -T - -cf -) | tar -xf - -C "$tmp/src"
else
	# A release tree (make distcheck's) is read-only.
	cp -a "$src/." "$tmp/src" && chmod -R u+w "$tmp/src"
	(cd "$tmp/src" && { [ ! -f Makefile ] || make distclean >/dev/null 2>&1; })
fi
fails=0 ran=0 skipped=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "skip: $1  ($2)"; skipped=$((skipped + 1)); }

# The commands: README example lines, in order, with their section.
awk '
	/^-+$/ || /^=+$/ { section = prev; next }
	{ prev = $0 }
	section != "Usage" && /^    (\.\/pmctop|pmctop|apt-get|tests\/|autoreconf|source|systemctl|curl|dpkg|adduser|sysctl|setcap|sudo|[A-Z_]+=)/ {
		line = substr($0, 5); sub(/  +# .*$/, "", line); print line
	}' "$readme" >"$tmp/commands"
[ -s "$tmp/commands" ] || { echo "FAIL: no commands found in $readme"; exit 1; }

installed() { # PKG...: all installed
	for p; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
	done
}
# The packages an apt-get install step names (options and package files left out).
apt_pkgs() { echo "$1" | tr ' ' '\n' | sed -n '/^install$/,$p' | grep -v '^install$' | grep -v '^-' | grep -v '/'; }
# The packages tests/install-test-deps installs, read from it.
deps_pkgs() {
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$tmp/src/tests/install-test-deps" |
		grep 'apt-get install' | sed 's/>.*//; s/||.*//' | tr ' \t' '\n\n' |
		sed -n '/^--no-install-recommends$/,$p' | grep -v -e '^-' -e '^$' -e '^apt-get$' -e '^install$'
}
run() { # DIR WHAT COMMAND...: run it, rc 0 wanted, bounded
	local dir=$1 what=$2
	shift 2
	ran=$((ran + 1))
	echo "run: $what"
	local rc=0
	(cd "$dir" && timeout 900 "$@") </dev/null >"$tmp/out" 2>&1 || rc=$?
	[ $rc = 0 ] || { tail -20 "$tmp/out"; fail "$what: exit $rc"; }
}
run_pmctop() { # the pmctop step, rewritten to end
	local step=$1
	read -r -a argv <<<"$step"
	argv=("${argv[@]:1}")
	local a b=0 r=0 n=0 out=()
	for a in "${argv[@]}"; do
		case $a in
		--daemon|--listen) skip "$step" "serves on the network: tests/e2e_export.sh runs the exporter on loopback"; return ;;
		--cgroup) skip "$step" "names a service this machine may not have"; return ;;
		-b) b=1 ;;
		-r) r=1 ;;
		-n) n=1 ;;
		esac
		# An example's process id: this test's own.
		[ "$a" = 4242 ] && a=$$
		out+=("$a")
	done
	if [ $r = 1 ]; then
		[ $b = 1 ] || out+=(-b)
	elif [ $b = 0 ]; then
		out+=(-b -n 1 -d 0.2)
	elif [ $n = 0 ]; then
		out+=(-n 1)
	fi
	run "$tmp/work" "$step  (as: pmctop ${out[*]})" "$tmp/src/pmctop" "${out[@]}"
}

while IFS= read -r line; do
	# A shell's own commands (source, complete) are one bash line.
	case $line in
	"source "*) run "$tmp/src" "$line" bash -c "$line"; continue ;;
	esac
	# A line's steps, split at &&; an apt-get update runs only when the
	# install after it has something to do.
	mapfile -t steps < <(echo "$line" | sed 's/ && /\n/g')
	need_apt=0
	for step in "${steps[@]}"; do
		case $step in
		"apt-get install"*)
			p=$(apt_pkgs "$step")
			[ -n "$p" ] && ! installed $p && need_apt=1 ;;
		esac
	done
	for step in "${steps[@]}"; do
		case $step in
		"apt-get update")
			if [ $need_apt = 1 ]; then run "$tmp/src" "$step" apt-get update -qq; else skip "$step" "every package of this line is installed"; fi ;;
		"apt-get install"*)
			p=$(apt_pkgs "$step")
			if [ -z "$p" ]; then
				skip "$step" "installs the built package on this machine: tests/e2e_systemd.sh installs it in a container"
			elif installed $p; then
				skip "$step" "installed"
			elif [ "$(id -u)" = 0 ]; then
				run "$tmp/src" "$step" env DEBIAN_FRONTEND=noninteractive sh -c "$step"
			else
				echo "SKIP: not root, and missing: $(for x in $p; do installed "$x" || printf '%s ' "$x"; done)"; exit 77
			fi ;;
		tests/install-test-deps)
			# shellcheck disable=SC2046
			if installed $(deps_pkgs); then
				skip "$step" "every package it installs is installed"
			elif [ "$(id -u)" = 0 ]; then
				run "$tmp/src" "$step" tests/install-test-deps
			else
				echo "SKIP: not root, and the test dependencies are missing"; exit 77
			fi ;;
		"autoreconf -fi" | "./configure" | "./configure "*)
			run "$tmp/src" "$step" sh -c "$step" ;;
		make)
			run "$tmp/src" "make -j2" make -j2 ;;
		"make "*check)
			run "$tmp/src" "$step  (as: make -j2 check with tests/check_util alone: the suite itself runs this test)" \
				make -j2 check TESTS=tests/check_util check_PROGRAMS=tests/check_util ;;
		./pmctop* | pmctop*)
			run_pmctop "$step" ;;
		dpkg-buildpackage*)
			skip "$step" "the package is built by tests/e2e_debian.sh" ;;
		systemctl* | curl*)
			skip "$step" "the installed service: tests/e2e_systemd.sh runs it under systemd" ;;
		dpkg-reconfigure* | adduser*)
			skip "$step" "changes this machine's accounts: tests/e2e_privs.sh checks the pmctop group" ;;
		[A-Z_]*=*)
			skip "$step" "a line of /etc/default/pmctop" ;;
		*)
			fail "a README command this test does not know: '$step' (teach tests/e2e_readme.sh to run or skip it)" ;;
		esac
	done
done <"$tmp/commands"

# The README's PromQL examples name series that pmctop serves on every CPU
# model: each series (and event label) a rate() names is in a scrape of an
# AMD and of an Intel model (a query of one vendor's event names returns
# nothing on the other's). On loopback, bounded by -n.
promql=0
if command -v curl >/dev/null; then
	grep -o 'rate([a-z_]*\({[^}]*}\)\?\[' "$readme" | sed 's/^rate(//; s/\[$//' | sort -u >"$tmp/series"
	for model in zen5 spr; do
		# A port the kernel has just found free (a fixed one may be any
		# other test's ephemeral port when CI runs them side by side).
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
			echo $((20000 + ($$ + ${#model}) % 20000)))
		"$tmp/src/pmctop" --sim $model --daemon --listen 127.0.0.1:$port -d 0.2 -n 25 >/dev/null 2>&1 &
		pid=$!
		i=0
		# Until the first interval is served (pmctop_info comes with it).
		until [ $i -ge 25 ] || { curl -sf --max-time 2 -o "$tmp/scrape" "http://127.0.0.1:$port/metrics" && grep -q '^pmctop_info' "$tmp/scrape"; }; do
			sleep 0.2; i=$((i + 1))
		done
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
		[ -s "$tmp/scrape" ] || { fail "--sim $model --listen: no scrape"; continue; }
		while IFS= read -r q; do
			name=${q%%\{*}
			ev=$(echo "$q" | sed -n 's/.*event="\([^"]*\)".*/\1/p')
			if [ -n "$ev" ]; then
				grep -q "^$name{.*event=\"$ev\"" "$tmp/scrape" || fail "README's PromQL: no $name{event=\"$ev\"} on --sim $model"
			else
				grep -q "^$name[{ ]" "$tmp/scrape" || fail "README's PromQL: no $name on --sim $model"
			fi
			promql=$((promql + 1))
		done <"$tmp/series"
		rm -f "$tmp/scrape"
	done
	[ -s "$tmp/series" ] || fail "no rate() example found in the README"
fi

[ $fails = 0 ] || exit 1
echo "e2e readme: $promql PromQL series checked on zen5 and spr; $ran steps run, $skipped skipped, of $(wc -l <"$tmp/commands") README lines"
