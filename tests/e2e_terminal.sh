#!/bin/sh
# e2e_terminal.sh: the dashboard as a real terminal shows it, read from
# tmux with the terminal's own attributes (capture-pane -e) and driven with
# the bytes a terminal sends (send-keys -H): colour under 8- and 256-colour
# TERMs and the schemes, and the mouse under the TERMs whose terminfo
# names a mouse key. Exits 77 (skip) when tmux is missing or the program
# has no --sim.
set -u
top_builddir=${top_builddir:-.}
PMCTOP=$(cd "$top_builddir" && pwd)/pmctop
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux not installed"; exit 77; }
[ -x "$PMCTOP" ] || { echo "SKIP: $PMCTOP not built"; exit 77; }
"$PMCTOP" --help 2>&1 | grep -q -- '--sim' || { echo "SKIP: pmctop has no --sim"; exit 77; }

top_srcdir=${top_srcdir:-.}
E2E_NAME=terminal
. "$top_srcdir/tests/e2e_tmux.sh"

# 1. Colour as the terminal shows it (capture-pane -e): under an 8- and a
# 256-colour TERM, in the default and the light scheme, a cell of the
# topdown view is drawn in its level's colour (green, yellow or red
# foreground: an SGR 3N right before the figure) and the topdown bar in
# coloured backgrounds; --no-color leaves no colour at all. pmctop once
# tested COLORS before start_color() had set it and drew in monochrome
# everywhere.
colored() { $TMUX_CMD capture-pane -e -p -t "$S"; }
level_cell='\[(1;)?3[123]m *~?[0-9]'
for term in xterm xterm-256color screen-256color; do
	for scheme in default light; do
		mkdir -p "$TMP/config/pmctop"
		echo "colors $scheme" > "$TMP/config/pmctop/pmctoprc"
		start 120 40 "--sim zen5 -d 0.2 -g topdown" "TERM=$term"
		expect 'F=FE' "$term $scheme: topdown view for the colour test"
		sleep 0.8
		colored | grep -Eq "$level_cell" || { fail "$term $scheme: no level colour on a figure"; colored | cat -v | sed -n '10,12p'; }
		colored | grep -Eq '\[4[1-6]m[FSBTR]' || fail "$term $scheme: the topdown bar is not in colour"
		# Its legend fits whole at 120 columns (it was cut at "B=BE b").
		screen | grep -q 'F=FE.* R=Ret' || fail "$term $scheme: the bar's legend is cut"
		quit_ok "colour $term $scheme"
	done
done
rm -f "$TMP/config/pmctop/pmctoprc"
start 120 40 "--sim zen5 -d 0.2 -g topdown --no-color" "TERM=xterm-256color"
expect 'F=FE' "--no-color: topdown view"
sleep 0.8
colored | grep -Eq '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;|48;)' && fail "colour escapes with --no-color"
quit_ok "--no-color"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
