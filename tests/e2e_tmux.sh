# e2e_tmux.sh: sourced by the tmux-driven end-to-end tests (e2e_tui.sh,
# e2e_replay_tui.sh): a private tmux server named after $E2E_NAME, a temporary
# directory $TMP removed with it, and the helpers that read the screen of
# session $S and type into it.
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
# Waits up to 10 s for a pattern (grep -E) on the screen.
wait_for() {
	i=0
	while [ $i -lt 50 ]; do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.2; i=$((i + 1))
	done
	return 1
}
expect() { wait_for "$1" || { fail "$2 (no /$1/ on screen)"; screen | sed 's/^/  | /'; }; }
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
