#!/bin/sh
# e2e_tour_strip.sh: the CCX boxes' core strips in the tasks view, read off
# the terminal in tmux with its colours (capture-pane -e; TERM=xterm-256color,
# a UTF-8 locale, the simulated Zen 5 at 32 CPUs, no saved settings).
#  7. the strip shows each core's utilisation, as in the CPU views: its
#     marks and colours differ from core to core on the simulated load
#     (the strip showed the tasks view's sort column, a per-process figure
#     that a core's row does not have: every core a red "@").
# A strip is the run of marks "_.:=+*#%@" after a box's left border on
# the box's fourth line; a mark's colour is the SGR foreground in force.
# Exits 77 (skip) when tmux is missing or the program has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=tour_strip
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
opts="--sim zen5 --no-config -d 0.3"

# The strips on screen as "MARKS COLOURS" per box (a colour per mark: the
# SGR foreground number, 39 the default). The borders are the line set's
# "x" between SO (^N) and SI (^O) in tmux's capture.
strips() {
	$TMUX_CMD capture-pane -e -p -t "$S" | LC_ALL=C awk '
	{
		line = $0; fg = 39; acs = 0; inb = 0; marks = ""; cols = ""; out = ""
		while (length(line) > 0) {
			c = substr(line, 1, 1)
			if (c == "\033" && match(line, /^\033\[[0-9;]*m/)) {
				n = split(substr(line, 3, RLENGTH - 3), p, ";")
				for (k = 1; k <= n; k++) {
					if (p[k] == "" || p[k] == "0" || p[k] == "39") fg = 39
					else if (p[k] ~ /^3[0-7]$/) fg = p[k]
				}
				line = substr(line, RLENGTH + 1); continue
			}
			line = substr(line, 2)
			if (c == "\016") { acs = 1; continue }
			if (c == "\017") { acs = 0; continue }
			if (acs && c == "x") {
				if (marks != "") out = out marks " " cols "\n"
				marks = ""; cols = ""; inb = 1; continue
			}
			if (inb && index("_.:=+*#%@", c)) { marks = marks c; cols = cols fg ","; continue }
			if (marks != "") { out = out marks " " cols "\n"; marks = "" ; cols = "" }
			inb = 0
		}
		if (marks != "") out = out marks " " cols "\n"
		if (out != "" && $0 ~ /x.*x/) printf "%s", out
	}'
}

# 7. The tasks view: some core is not "@", some mark is not red, in at
# least one of three readings (each strip's cores differ on the simulated
# load; the old strip was all red "@" in every reading).
start 120 40 "$opts -g tasks" "$env"
expect 'PID +COMMAND' "7: the tasks view"
expect 'CCX 0 ' "7: the CCX boxes"
sleep 1
varied=0 seen=0 all=
for _try in 1 2 3; do
	st=$(strips)
	all="$all$st
"
	[ -n "$st" ] && seen=1
	marks=$(echo "$st" | awk '{ printf "%s", $1 }')
	cols=$(echo "$st" | awk '{ printf "%s", $2 }')
	# A core not at the top, and a mark not red (31).
	if echo "$marks" | grep -q '[^@]' && echo "$cols" | tr ',' '\n' | grep -Eqv '^(31)?$'; then
		varied=1
		break
	fi
	sleep 0.7
done
[ $seen = 1 ] || { fail "7: no core strip found"; screen | sed 's/^/  | /'; }
[ $seen = 1 ] && [ $varied = 0 ] && { fail "7: every core the same red top mark in the tasks view"; echo "$all" | sed 's/^/  | /'; }
quit_ok "7"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
