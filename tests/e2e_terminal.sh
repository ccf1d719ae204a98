#!/bin/sh
# e2e_terminal.sh: the dashboard as a real terminal shows it, read from
# tmux with the terminal's own attributes (capture-pane -e) and driven with
# the bytes a terminal sends (send-keys -H): colour under 8- and 256-colour
# TERMs and the schemes, and the mouse (SGR and X10 reports) under the
# TERMs xterm, xterm-256color, screen-256color and tmux-256color. Exits 77 (skip) when tmux is missing or the program
# has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=terminal
E2E_NEEDS_SIM=1
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
		in_colour() { colored | grep -Eq "$level_cell" && colored | grep -Eq '\[4[1-6]m[FSBTR]' &&
			screen | grep -q 'F=FE.* R=Ret'; }
		wait_until in_colour
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

# 2. The mouse as terminals report it, sent as raw bytes (send-keys -H):
# SGR 1006 (ESC [ < B;X;Y M, then m) and X10 (ESC [ M and three bytes),
# under TERMs whose terminfo names the mouse key ESC [ < (xterm-256color:
# curses then returns KEY_MOUSE, which pmctop once dropped and read the
# digits after it as view keys) or ESC [ M (screen). A heading sorts, a
# second click reverses, the wheel moves the selection, a tab switches
# view, and no report ever changes the view by its digits.
hex() { printf '%s' "$1" | od -An -tx1; }
# No pause after a report: the line after each waits for its effect
# (expect, or the selection polled with sel_is).
sgr() { $TMUX_CMD send-keys -t "$S" -H $(hex "$(printf '\033[<%d;%d;%dM' "$1" "$2" "$3")"); \
	[ "$1" -lt 64 ] && $TMUX_CMD send-keys -t "$S" -H $(hex "$(printf '\033[<%d;%d;%dm' "$1" "$2" "$3")"); :; }
# X10 from 1-based cells, as the SGR form takes them; its release is button 3.
x10() { $TMUX_CMD send-keys -t "$S" -H 1b 5b 4d $(printf '%x %x %x' $((32 + $1)) $((32 + $2)) $((32 + $3))); \
	[ "$1" -lt 64 ] && $TMUX_CMD send-keys -t "$S" -H 1b 5b 4d $(printf '23 %x %x' $((32 + $2)) $((32 + $3))); :; }
sel_is() { [ "$(sel)" = "$1" ]; }
ipc_heading() { [ -n "$(where ' IPC ' 'CPU.* core ')" ]; }
for term in xterm xterm-256color screen-256color tmux-256color; do
	infocmp "$term" >/dev/null 2>&1 || { echo "note: no terminfo entry for $term here"; continue; }
	start 250 40 "--sim zen5 -d 0.3" "TERM=$term NO_COLOR=1"
	expect ' 1:basic ' "$term: the dashboard for the mouse test"
	wait_until ipc_heading
	set -- $(where ' IPC ' 'CPU.* core ')
	[ $# -eq 2 ] || { fail "$term: no IPC heading"; continue; }
	ipc_x=$(($1 + 2)); hy=$2
	sgr 0 "$ipc_x" "$hy"
	expect 'sort IPC  ' "$term: an SGR click on the IPC heading sorts by it"
	sgr 0 "$ipc_x" "$hy"
	expect 'sort IPC \(rev\)' "$term: a second click reverses the sort"
	screen | grep -q '| basic:' || fail "$term: a click on a heading changed the view"
	x10 0 4 "$hy"
	expect 'sort CPU  ' "$term: an X10 click on the CPU heading sorts by CPU"
	sgr 0 3 $((hy + 3))
	wait_until sel_is 2
	[ "$(sel)" = 2 ] || fail "$term: an SGR click did not select its row (CPU 2; $(sel))"
	sgr 65 3 $((hy + 3))
	wait_until sel_is 5
	[ "$(sel)" = 5 ] || fail "$term: the SGR wheel did not move the selection 3 rows down (CPU $(sel))"
	x10 65 3 $((hy + 3))
	wait_until sel_is 8
	[ "$(sel)" = 8 ] || fail "$term: the X10 wheel did not move the selection 3 rows down (CPU $(sel))"
	x10 64 3 $((hy + 3))
	wait_until sel_is 5
	[ "$(sel)" = 5 ] || fail "$term: the X10 wheel up did not move the selection back (CPU $(sel))"
	screen | grep -q '| basic:' || fail "$term: a mouse report changed the view"
	set -- $(where '2:topdown' 'sort')
	[ $# -eq 2 ] || { fail "$term: no topdown tab"; continue; }
	x10 0 $(($1 + 2)) "$2"
	expect '\| topdown:' "$term: an X10 click on the topdown tab switches to it"
	set -- $(where '1:basic' 'sort')
	sgr 0 $(($1 + 2)) "$2"
	expect '\| basic:' "$term: an SGR click on the basic tab switches back"
	quit_ok "mouse under $term"
done

# 3. Every heading whole, at 250 columns: its unit once ("Br/KI", which
# read "Br/KI/ki"), not cut ("SSE/AVX stall/s" lost its "s", a picked
# event its "/s"), and the sort mark in the gap after its column, not
# against the next heading ("IPCvBrMiss%", "CPUs^sock").
start 250 40 "--sim zen5 -d 0.3 -e fp_ret_sse_avx_ops.scalar_single_flops" "NO_COLOR=1"
expect ' 1:basic ' "headings: the dashboard"
heading() { screen | grep -E "^ +CPUs?(v|\^|▲|▼)? .*(core|sock)"; }
heading_has() { heading | grep -Eq -- "$1"; }
wait_until heading_has 'fp_ret_sse_avx_ops.scalar_single_flops/s'
heading | grep -q 'fp_ret_sse_avx_ops.scalar_single_flops/s' || fail "headings: the event column lost its /s: $(heading)"
press '>' '>' '>' '>' '>'
wait_until heading_has 'IPC( insn/cyc)?(v|\^|▲|▼) +BrMiss%'
heading | grep -Eq 'IPC( insn/cyc)?(v|\^|▲|▼) +BrMiss%' || fail "headings: the sort mark runs into the next heading: $(heading)"
press 6
wait_until heading_has ' Br/KI '
heading | grep -q ' Br/KI ' || fail "headings: Br/KI not whole or with its unit twice: $(heading)"
press 7
wait_until heading_has 'SSE/AVX stall/s'
heading | grep -q 'SSE/AVX stall/s' || fail "headings: SSE/AVX stall/s cut: $(heading)"
press 1 t t t Home '<' '<' '<' '<' '<' '<' '<' '<' '<'
wait_until heading_has 'CPUs(v|\^|▲|▼) +sock'
heading | grep -Eq 'CPUs(v|\^|▲|▼) +sock' || fail "headings: the sort mark runs into 'sock': $(heading)"
quit_ok "headings"

# 3b. At 80 columns the header shows a field whole or not at all: the CPU
# name "simulated 1x2x8x2" was cut to "simulated 1".
start 80 24 "--sim zen5 -d 0.3" "NO_COLOR=1"
expect 'min cov' "80x24: the header"
screen | head -n 1 | grep -q 'simulated' && ! screen | head -n 1 | grep -q 'simulated 1x2x8x2' &&
	fail "80x24: the header cuts a field: $(screen | head -n 1)"
quit_ok "80x24 header"

# 3c. The history goes on while help or the setup screen is open: after
# 3 s of help at -d 0.2 the system graph has no blank cell (it had one for
# each interval help was open: the screen took no figures meanwhile).
glyphs() { screen | sed -n 3p | sed 's/.*system [^ ]* [^ ]*\.\.[^ ]* //; s/^ *//; s/ *$//'; }
for dialog in F1 F2; do
	start 160 40 "--sim zen5 -d 0.2" "NO_COLOR=1"
	expect 'system util%' "history: the system graph"
	sleep 2
	keys "$dialog"
	sleep 3
	keys Escape
	sleep 0.6
	case "$(glyphs)" in
	*" "*) fail "history: blank cells after $dialog was open: '$(glyphs)'" ;;
	'') fail "history: no system graph: $(screen | sed -n 3p)" ;;
	esac
	quit_ok "history while $dialog"
done

# 3d. 384 CPUs filtered to one socket: the CCX boxes take the lines of the
# 12 CCX shown, not of all 24, and the table has the rest (10 lines were
# left blank above its heading).
start 250 70 "--sim zen5:2x12x8x2 -d 0.3" "NO_COLOR=1"
expect 'CCX 0 ' "384 CPUs: the dashboard"
press '\'
type_text 'socket 1'
press Enter
expect 'filter socket 1' "384 CPUs: the socket filter"
blanks() { screen | awk '/^ +CPU/ { exit } { b = ($0 ~ /^ *$/) ? b + 1 : b } END { print b + 0 }'; }
no_blanks() { [ "$(blanks)" -eq 0 ]; }
wait_until no_blanks
blank=$(blanks)
[ "$blank" -eq 0 ] || fail "384 CPUs, one socket: $blank blank lines above the table"
quit_ok "384 CPUs filtered"

# 3e. This machine's real counters: where the kernel has no core PMU, the
# header and the CCX boxes leave out the figures that can only be '-', as
# the table leaves out their columns ("IPC -  GHz -", "L3 -  hit -").
if ! ls /sys/bus/event_source/devices 2>/dev/null | grep -Eq '^(cpu|cpu_core|cpu_atom|armv)'; then
	start 120 30 "-d 0.3" "NO_COLOR=1"
	expect 'CS/s [0-9]' "no PMU: the software figures"
	sleep 0.5
	screen | sed -n 2p | grep -Eq ' (IPC|GHz|[A-Za-z%/-]+) - ' &&
		fail "no PMU: the header shows figures that can only be '-': $(screen | sed -n 2p)"
	screen | grep -Eq 'L3 -|hit -|IPC -' && fail "no PMU: a CCX box shows figures that can only be '-'"
	quit_ok "no PMU"
fi

# 4. Small things a user meets at once: the filter (\) takes a list typed with
# blanks (" 2 " was an error), a digit without a view says so (9 with 8
# views did nothing), and the event search shows the terminal's cursor,
# not a "_" that reads as part of an event name.
start 120 40 "--sim zen5 -d 0.3" "NO_COLOR=1"
expect ' 1:basic ' "small things: the dashboard"
press '\'
type_text ' 2 '
press Enter
expect 'filter 2 ' "the filter ' 2 '"
screen | grep -q 'filter:' && fail "the filter ' 2 ' is an error: $(screen | grep 'filter:')"
press '\' C-u Enter 9
expect 'no view on key 9' "9 with 8 views says so"
press e
type_text 'brn'
expect '^Search: brn' "the event search"
screen | grep -q '^Search: brn_' && fail "the search prompt draws its cursor as '_'"
keys Escape
# The detail pane names utilisation as the table does (it said CPU%).
press '\' C-u Enter Enter
expect '> util% ' "the detail pane's util% line"
screen | grep -q 'CPU%' && fail "the detail pane says CPU% where the table says util%"
keys Escape
quit_ok "small things"

# 5. htop's habits. Follow (F) is off by default: the highlight keeps its
# line while the rows re-sort (it followed one CPU or process, and in the
# tasks view pushed the busiest rows off the screen); F makes it follow
# its row, and the status says so.
selline() { $TMUX_CMD capture-pane -e -p -t "$S" | grep -n '\[7m *[0-9][0-9]*  *[0-9]' | head -n 1 | cut -d: -f1; }
start 120 40 "--sim zen5 -d 0.2" "NO_COLOR=1"
expect ' 1:basic ' "follow: the dashboard"
press '>' '>' '>'
expect 'sort util%' "follow: sorted by util%"
keys Down Down
line=$(selline); cpus=""
for i in 1 2 3 4 5 6 7 8 9 10; do
	sleep 0.3
	[ "$(selline)" = "$line" ] || fail "follow off: the highlight left its line ($line, now $(selline))"
	cpus="$cpus $(sel)"
done
[ "$(echo $cpus | tr ' ' '\n' | sort -u | wc -l)" -gt 1 ] || echo "note: the rows did not re-sort in 3 s ($cpus)"
press F
expect 'sort util%.*follow' "F: the status says follow"
first=$(sel)
for i in 1 2 3 4 5 6; do
	sleep 0.3
	# Empty: the row went to the top, where reverse video runs on from
	# the heading and sel cannot see it.
	now=$(sel)
	# The same when the row was at the top as F was pressed: the CPU it
	# follows is the first one seen.
	[ -n "$first" ] || first=$now
	[ -z "$now" ] || [ "$now" = "$first" ] || { fail "follow on: the highlight left CPU $first for $now"; break; }
done
quit_ok "follow"

# Search apart from the filter, as in htop: / (or F3) selects the next
# row that matches and hides none; n and N go on; \ (or F4) filters.
start 120 40 "--sim zen5:1x2x8x2 -d 0.3" "NO_COLOR=1"
expect ' 1:basic ' "search: the dashboard"
expect '/Search .Filter' "search: the footer names / Search and \\ Filter"
press /
type_text '12'
press Enter
wait_until sel_is 12
[ "$(sel)" = 12 ] || fail "search: / 12 did not select CPU 12 ($(sel))"
screen | grep -q 'filter' && fail "search: / filtered the rows"
screen | grep -Eq '^ +0 +0 ' || fail "search: the rows before the match are gone"
press F3
type_text '3'
press Enter
wait_until sel_is 3
[ "$(sel)" = 3 ] || fail "search: F3 3 did not select CPU 3 ($(sel))"
keys Home n
[ "$(sel)" = 3 ] || fail "search: n did not find CPU 3 again ($(sel))"
keys End N
# Scrolled back, CPU 3 is the first row (reverse video runs on from the
# heading there, so sel cannot see it).
top=$(screen | grep -A1 '^ *CPU' | tail -n 1 | awk '{ print $1 }')
[ "$(sel)" = 3 ] || [ "$top" = 3 ] || fail "search: N did not find CPU 3 going back ($(sel), top $top)"
press '\'
type_text '4-5'
press Enter
expect 'filter 4-5' "search: \\ filters"
[ "$(screen | grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ ')" -eq 2 ] || fail "search: \\ 4-5 does not leave 2 rows"
keys F4 C-u Enter
expect 'sort CPU  rows' "search: F4 with an empty filter shows all again"
quit_ok "search"

# 6. The tasks view. A column that can only show '-' is not drawn, as in
# the CPU table: on the simulated Zen 5 with the NMI watchdog the counters
# L2 MPKI needs are held, so it cannot be sampled per task. F5 shows the
# cgroups as a tree, as htop's process tree: each cgroup (its name and a
# '/', its figures summed over it and below it) with its child cgroups
# and its processes indented beneath it, sorted within each level; F5
# again gives the list of processes back.
start 160 60 "--sim zen5 -d 0.5 -g tasks" "NO_COLOR=1"
expect 'rows per process' "tasks: the tasks view"
expect '^ +[0-9]+ [a-z]' "tasks: processes"
screen | grep -q 'L2 MPKI' && fail "tasks: the L2 MPKI column is drawn though it can only show -"
screen | grep -q 'BrMPKI' || fail "tasks: the BrMPKI column (sampled) is gone"
press F5
expect 'rows as a cgroup tree' "tree: F5 says the cgroup tree"
expect '^ {10}system\.slice/ ' "tree: system.slice one level below the root"
sleep 0.6
screen > "$TMP/tree"
grep -Eq '^ {8}/ +[0-9]' "$TMP/tree" || fail "tree: no root cgroup row with its figures"
# nginx.service has one process: nginx, one level deeper, right beneath it.
svc=$(grep -En '^ {12}nginx\.service/ ' "$TMP/tree" | cut -d: -f1)
proc=$(grep -En '^ *[0-9]+ {7}nginx ' "$TMP/tree" | cut -d: -f1)
[ -n "$svc" ] && [ "$proc" = $((svc + 1)) ] || { fail "tree: nginx not beneath nginx.service (lines $svc, $proc)"; sed 's/^/  | /' "$TMP/tree"; }
# A cgroup's figures are summed over what is below it: system.slice's
# CPU% is at least nginx.service's; its services are sorted busiest first.
awk '{ ind = match($0, /[^ ]/) - 1 }   # no {n} in mawk: the indent counted
     { v = $2; sub(/^~/, "", v); v += 0 }   # CPU%, without the mark of an uncertain figure
     ind == 10 && $1 == "system.slice/" { top = v; on = 1; next }
     on && ind <= 10 && $1 !~ /^[0-9]+$/ { on = 0 }
     on && ind == 12 && $1 ~ /\/$/ { if (v > top + 0.05) bad = bad " " $1 " above its parent"; if (n++ && v > last + 0.05) bad = bad " " $1 " unsorted"; last = v }
     END { if (n < 3 || bad != "") { print "n=" n bad; exit 1 } }' "$TMP/tree" ||
	{ fail "tree: system.slice's services are not summed and sorted beneath it"; sed 's/^/  | /' "$TMP/tree"; }
press F5
expect 'rows per process' "tree: F5 again gives the processes back"
screen | grep -Eq '^ {8}/ ' && fail "tree: the root cgroup is still shown after F5"
quit_ok "tasks tree"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
