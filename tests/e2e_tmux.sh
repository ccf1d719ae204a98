# e2e_tmux.sh: sourced by the tmux-driven end-to-end tests (e2e_tui.sh,
# e2e_terminal.sh, e2e_replay_tui.sh): a private tmux server named after
# $E2E_NAME, a temporary directory $TMP removed with it, and the helpers
# that start $PMCTOP in session $S, read its screen and type into it.
# The program under test, and a skip (77) where tmux or it is missing, or
# where $E2E_NEEDS_SIM is set and it has no --sim.
top_builddir=${top_builddir:-.}
PMCTOP=${PMCTOP:-$(cd "$top_builddir" && pwd)/pmctop}
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux not installed"; exit 77; }
[ -x "$PMCTOP" ] || { echo "SKIP: $PMCTOP not built"; exit 77; }
[ -n "${E2E_NEEDS_SIM:-}" ] && ! "$PMCTOP" --help 2>&1 | grep -q -- '--sim' && { echo "SKIP: pmctop has no --sim"; exit 77; }
SOCK="pmctop-$E2E_NAME-$$"
TMUX_CMD="tmux -L $SOCK -f /dev/null"
TMP=$(mktemp -d)
# The user's saved dashboard settings must not change what the tests see.
XDG_CONFIG_HOME=$TMP/config
export XDG_CONFIG_HOME
fails=0
cleanup() { $TMUX_CMD kill-server >/dev/null 2>&1; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
screen() { $TMUX_CMD capture-pane -p -t "$S"; }
keys() { $TMUX_CMD send-keys -t "$S" "$@"; sleep 0.4; }
# The same without the pause, for keys whose effect the next line waits
# for (expect, wait_until): the terminal hands pmctop the keys in order,
# so a key typed at once still acts after those before it. Not for a
# check that reads the screen once, nor for a pattern that could be on
# the screen before the keys act, nor with Escape last: curses waits 25 ms
# (ESCDELAY) to tell a lone Escape from a sequence, and a key hard behind
# it would make one.
press() { $TMUX_CMD send-keys -t "$S" "$@"; }
# Types its argument as it is, without the pause (as press does): text
# for a prompt, or a raw byte sequence (a mouse click). Plain send-keys
# would read a word such as "end" or "Enter" as the name of a key.
type_text() { $TMUX_CMD send-keys -t "$S" -l "$1"; }
# A mouse click as xterm's SGR mode reports it: button $1 pressed and
# released at column $2, row $3 (both from 1). No pause, as with press.
click() { type_text "$(printf '\033[<%d;%d;%dM\033[<%d;%d;%dm' "$1" "$2" "$3" "$1" "$2" "$3")"; }
# Waits up to 10 s for a pattern (grep -E) on the screen, looking every
# 0.1 s (each look costs a capture-pane and a grep).
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
expect() { wait_for "$1" || { fail "$2 (no /$1/ on screen)"; screen | sed 's/^/  | /'; }; }
# Waits up to 10 s for a command to succeed, in place of a fixed sleep
# before a check that reads the screen once: the check itself still runs
# after, and fails as it did.
wait_until() {
	_wu=0
	while [ $_wu -lt 100 ]; do
		"$@" && return 0
		sleep 0.1; _wu=$((_wu + 1))
	done
	return 1
}
# The PID of the child of process $1 whose command name is $2, read from
# /proc (no dependence on procps's pgrep, which a minimal image may lack).
child_pid() {
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = "$2" ] || continue
		# Field 4 of stat is the parent; the name (field 2) has no spaces here.
		[ "$(cut -d' ' -f4 "$d/stat" 2>/dev/null)" = "$1" ] && { echo "${d#/proc/}"; return 0; }
	done
	return 1
}

# Starts pmctop (with environment $4) in a new session of WxH (the server lives on: killing its
# last session and starting another races with its exit); the shell records
# the terminal modes after pmctop, then its exit status, so that once the
# status file is there the modes are too (the other order raced on a
# loaded CI machine: "terminal not restored" with the modes not yet written).
run=0
S=
start() {
	old=$S
	run=$((run + 1))
	S="e2e$run"
	rm -f "$TMP/status" "$TMP/stty"
	$TMUX_CMD new-session -d -s "$S" -x "$1" -y "$2" \
		"${4:-} $PMCTOP $3; s=\$?; stty -a > $TMP/stty; echo \"EXIT=\$s\" > $TMP/status; sleep 60"
	[ -n "$old" ] && $TMUX_CMD kill-session -t "$old" >/dev/null 2>&1
	return 0
}
quit_ok() {
	press q
	i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	grep -q 'EXIT=0' "$TMP/status" 2>/dev/null || fail "$1: q did not exit with status 0 ($(cat "$TMP/status" 2>/dev/null))"
	# Restored: the terminal echoes and is in canonical mode again.
	grep -Eq '(^| )icanon( |$)' "$TMP/stty" && grep -Eq '(^| )echo( |$)' "$TMP/stty" ||
		fail "$1: terminal not restored"
}
# The CPU of the selected row (monochrome: the one in reverse video).
sel() { $TMUX_CMD capture-pane -e -p -t "$S" | sed -n 's/^.*\[7m *\([0-9][0-9]*\)  *[0-9].*$/\1/p' | head -n 1; }
# Where TEXT first appears on a line matching PATTERN: "column line", from 1.
# The sort and scroll arrows (one cell, three bytes in UTF-8) count as one
# column: awk may count bytes.
where() { screen | LC_ALL=C sed 's/\xe2\x96[\xb2\xbc\xb6]/>/g; s/\xe2\x97\x80/</g' |
	awk -v t="$1" -v p="$2" '$0 ~ p { i = index($0, t); if (i) { print i, NR; exit } }'; }
