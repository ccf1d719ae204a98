#!/bin/sh
# e2e_tui.sh: drives the real ./pmctop in tmux on the simulated PMU and
# checks what is on the screen: the SIMULATED label, the CCX panels, every
# CPU row reachable by scrolling, sorting, the topdown bar, the event picker,
# the history's sparklines, detail pane and snapshot key, the header and
# help at 80 columns, the sort picker, the highlight and the filter prompt,
# and that q exits with status 0 and restores the terminal; then the real
# counters of this machine (the one-line notice where it has no PMU). Exits 77 (skip)
# when tmux is missing or the program has no --sim yet.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=e2e
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"

# 1. The default simulated Zen 5 at 160x50.
start 160 50 "--sim zen5 -d 0.2"
expect 'SIMULATED' "SIMULATED label"
expect 'CCX 1' "second CCX panel"
n=$(screen | grep -o 'CCX [0-9]  socket' | wc -l)
[ "$n" -eq 2 ] || fail "expected 2 CCX panels, saw $n"
# Every view with a key is in sight on the tab line, at least by its key,
# even where their names and the sparkline do not all fit (at 160 columns
# only the active view was shown once). A click on a key-only tab opens
# its view.
tabs=$(screen | sed -n 3p)
echo "$tabs" | grep -Eq '1:basic +2(:[a-z_0-9]+)? +3(:[a-z_0-9]+)? +4(:[a-z_0-9]+)? +5(:[a-z_0-9]+)? +6(:[a-z_0-9]+)? +7(:[a-z_0-9]+)? +8(:[a-z_0-9]+)? ' ||
	fail "views 2-8 not on the tab line: $tabs"
x=$(echo "$tabs" | awk '{ i = index($0, " 4 "); if (!i) i = index($0, " 4:"); print i }')
if [ "${x:-0}" -gt 0 ]; then    # index is 1-based and points at the space before 4
	click 0 "$((x + 1))" 3
	expect '4:cache' "a click on tab 4 opens the cache view"
	keys 1
fi
# Every CPU row, by scrolling to the end and back.
seen=$( (screen; keys End; screen; keys Home; screen) | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 }' | sort -un | wc -l)
[ "$seen" -ge 32 ] || fail "only $seen of 32 CPU rows reachable"
# Sort by IPC (the sixth column): values descend.
ipc_col() { screen | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $6 ~ /^~?[0-9.]+$/ { sub("~", "", $6); print $6 }' > "$TMP/ipc"; }
ipc_sorted() { ipc_col; sort -gr "$TMP/ipc" | cmp -s - "$TMP/ipc" && [ "$(wc -l < "$TMP/ipc")" -ge 10 ]; }
press '<' '<' '<' '<' '<' '<' '<' '<' '>' '>' '>' '>' '>'
wait_until ipc_sorted
ipc_col
sort -gr "$TMP/ipc" | cmp -s - "$TMP/ipc" || fail "rows not ordered by IPC: $(tr '\n' ' ' < "$TMP/ipc")"
[ "$(wc -l < "$TMP/ipc")" -ge 10 ] || fail "too few IPC values to judge the sort"
# Topdown view: the level-1 shares of a CPU (the columns after IPC) add up
# to about 100 %, and the stacked bar is drawn.
press 2
expect 'F=FE bound' "topdown bar heading"
topdown_sum() { screen | awk '
	/F=FE bound/ { head = 1; next }
	head && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
		s = 0; n = 0
		for (i = 7; i <= 11; i++) { v = $i; sub("~", "", v); if (v ~ /^[0-9.]+$/) { s += v; n++ } }
		if (n == 5) { print s; exit } }'; }
topdown_100() { awk -v s="$(topdown_sum)" 'BEGIN { exit !(s != "" && s > 98 && s < 102) }' && screen | grep -Eq 'F{3,}[SBTR]*B{3,}'; }
wait_until topdown_100
sum=$(topdown_sum)
case "$sum" in
'') fail "no topdown row to add up"; screen | sed 's/^/  | /' ;;
*) awk -v s="$sum" 'BEGIN { exit !(s > 98 && s < 102) }' || fail "topdown shares add up to $sum, not ~100" ;;
esac
screen | grep -Eq 'F{3,}[SBTR]*B{3,}' || fail "no topdown bar"
# The event picker adds a searched column.
press e
expect 'Add an event column' "event picker"
keys -l 'brn_misp'
expect 'ex_ret_brn_misp' "search result"
keys Enter
expect 'ex_ret_brn_misp' "event column heading"
press h
expect 'this help' "help screen"
keys Escape
quit_ok "160x50"

# 2. 80x24 and 250x70 with two sockets of 12 CCX.
for size in "80 24" "250 70"; do
	set -- $size
	start "$1" "$2" "--sim zen5:2x12x8x2 -d 0.2"
	expect 'SIMULATED' "SIMULATED at ${1}x$2"
	expect 'CCX' "CCX panels at ${1}x$2"
	press End
	expect '^ *383 ' "last CPU at ${1}x$2"
	press c t '\' ; press -l 'ccx 3'; press Enter
	expect 'filter ccx 3' "filter at ${1}x$2"
	quit_ok "${1}x$2"
done

# 3. Resizing (SIGWINCH) redraws at the new size; Ctrl-C (SIGINT) quits
# and restores the terminal.
start 160 50 "--sim zen5 -d 0.2"
expect 'SIMULATED' "SIMULATED before resize"
$TMUX_CMD resize-window -t "$S" -x 90 -y 30 >/dev/null 2>&1
sleep 0.8
[ "$(screen | wc -l)" -le 30 ] && expect 'Quit' "footer after resize"
press C-c
i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
[ -s "$TMP/status" ] || fail "Ctrl-C did not end pmctop"
grep -Eq '(^| )icanon( |$)' "$TMP/stty" 2>/dev/null || fail "terminal not restored after Ctrl-C"
# The exit status after a signal is 128 + its number (pmctop(1)).
grep -q 'EXIT=130' "$TMP/status" || fail "Ctrl-C: exit $(cat "$TMP/status"), want 130"
for sig in TERM:143 HUP:129; do
	start 120 40 "--sim zen5 -d 0.2"
	expect 'SIMULATED' "SIMULATED before SIG${sig%:*}"
	shell=$($TMUX_CMD display-message -p -t "$S" '#{pane_pid}')
	pid=$(child_pid "$shell" pmctop)
	[ -n "$pid" ] && kill -"${sig%:*}" "$pid"
	i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
	grep -q "EXIT=${sig#*:}" "$TMP/status" 2>/dev/null ||
		fail "SIG${sig%:*}: exit $(cat "$TMP/status" 2>/dev/null), want ${sig#*:}"
	grep -Eq '(^| )icanon( |$)' "$TMP/stty" 2>/dev/null || fail "terminal not restored after SIG${sig%:*}"
done

# 3b. Signals are the main thread's: every other thread (the sampler's)
# blocks SIGINT, SIGTSTP and SIGWINCH, so a handler never runs beside the
# screen code (under ThreadSanitizer that was a data race, seen when a
# Ctrl-Z landed on the sampler's thread). kill(2) on a thread's id offers
# the signal to that thread first: Ctrl-Z and resizes sent that way are
# taken by the main thread, pmctop goes on and quits with 0; SIGINT sent
# that way still quits with 130.
for sig in TSTP:0 INT:130; do
	start 120 40 "--sim zen5 -d 0.2"
	expect 'SIMULATED' "SIMULATED before SIG${sig%:*} to the sampler's thread"
	shell=$($TMUX_CMD display-message -p -t "$S" '#{pane_pid}')
	pid=$(child_pid "$shell" pmctop)
	others=$(ls "/proc/$pid/task" 2>/dev/null | grep -v "^$pid\$")
	[ -n "$others" ] || fail "no thread beside the main one"
	for t in $others; do
		blk=$(awk '/^SigBlk:/ { print $2 }' "/proc/$pid/task/$t/status" 2>/dev/null)
		[ -n "$blk" ] || continue
		for n in 2 20 28; do   # SIGINT, SIGTSTP, SIGWINCH
			[ $(( (0x$blk >> (n - 1)) & 1 )) -eq 1 ] ||
				fail "thread $t does not block signal $n (SigBlk $blk)"
		done
		[ "${sig%:*}" = TSTP ] && for i in 1 2 3 4 5; do
			kill -TSTP "$t" 2>/dev/null; kill -WINCH "$t" 2>/dev/null; sleep 0.1
		done
		[ "${sig%:*}" = INT ] && kill -INT "$t" 2>/dev/null
	done
	[ "${sig%:*}" = TSTP ] && { sleep 0.5; expect 'SIMULATED' "still running after Ctrl-Z sent to the sampler's thread"; press q; }
	i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
	grep -q "EXIT=${sig#*:}" "$TMP/status" 2>/dev/null ||
		fail "SIG${sig%:*} to the sampler's thread: exit $(cat "$TMP/status" 2>/dev/null), want ${sig#*:}"
	grep -Eq '(^| )icanon( |$)' "$TMP/stty" 2>/dev/null || fail "terminal not restored after SIG${sig%:*} to the sampler's thread"
done

# 4. Monochrome with NO_COLOR: no colour in the cells, SIMULATED still
# in reverse video.
start 120 40 "--sim zen5 -d 0.2" "NO_COLOR=1"
expect 'SIMULATED' "SIMULATED in monochrome"
sleep 0.5
$TMUX_CMD capture-pane -e -p -t "$S" | grep -Eq '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;|48;)' &&
	fail "colour escapes with NO_COLOR set"
$TMUX_CMD capture-pane -e -p -t "$S" | grep -q '7mSIMULATED' ||
	$TMUX_CMD capture-pane -e -p -t "$S" | grep -Eq '\[[0-9;]*7[0-9;]*mSIMULATED' || fail "SIMULATED not in reverse video"
quit_ok "NO_COLOR"

# 5. Too small: one line, and q still quits.
start 50 12 "--sim zen5"
expect 'too small' "too-small message"
quit_ok "50x12"

# 6. The real counters of this machine, at 80x24. Where the kernel has no
# core PMU (a VM without a virtual PMU, as on the development machines),
# the screen says so on one line that also points at --sim, and the
# software figures (the CS/s column) keep coming.
start 80 24 "-d 0.3"
expect 'CS/s' "software figures on real counters"
if ! ls /sys/bus/event_source/devices 2>/dev/null | grep -Eq '^(cpu|cpu_core|cpu_atom|armv)'; then
	expect 'hardware counters: .*--sim' "one-line notice about missing hardware counters"
	# The notice's own line ("hardware counters: ..."): the CCX box's
	# "no hardware counters" below is expected too.
	n=$(screen | grep -c 'hardware counters:')
	[ "$n" -eq 1 ] || fail "the hardware notice takes $n lines, want 1"
	# The CCX box says what it knows instead of two blank lines.
	if screen | grep -q 'CCX 0  socket'; then
		expect 'util [0-9.]+%' "the CCX box's utilisation without counters"
		expect 'no hardware counters' "the CCX box saying why it is short"
	fi
fi
# A view switch ends the interval under way; that short interval must not
# start the history again (it did, twice, at every switch on real
# counters, with a false "the intervals are now 0.1 s long").
for v in 1 2 3; do
	keys Tab
	sleep 0.6
	screen | grep -q 'history started again' && { fail "view switch $v started the history again"; break; }
done
quit_ok "real counters"

# 7. Escape sequences the terminfo entry does not name (tmux's End under
# TERM=xterm-256color is ESC [ 4 ~) never act as keys: the view stays 1.
start 120 30 "--sim zen5 -d 0.3" "TERM=xterm-256color"
expect '1:basic' "dashboard for the escape test"
type_text "$(printf '\033[4~')"; sleep 0.3
type_text "$(printf '\033[1~')"; sleep 0.3
type_text "$(printf '\033[99;5X')"; sleep 0.6
screen | grep -q 'sort CPU' || { fail "an unknown escape sequence acted as keys"; screen | sed 's/^/  | /'; }
screen | grep -Eq '^ *[0-9]:(topdown|cache) +sort' && fail "ESC [ 4 ~ switched the view"
quit_ok "escape sequences"

# 9. -g accepts a metric group in the dashboard too, as in batch mode.
start 160 30 "--sim zen5 -d 0.3 -g l2"
expect 'L2 acc/s' "-g l2: the L2 group's columns"
expect 'l2' "-g l2: its tab"
quit_ok "-g l2"

# 10. History: sparklines with their scale, the detail pane (Enter) with
# min/avg/max, its scopes, 'a' and resizing; the snapshot key (w) writes
# valid JSON to a new file in the current directory each time. ASCII
# graphs in the C locale, block elements in a UTF-8 one where there is one.
mkdir "$TMP/snap"
start 160 30 "--sim zen5 -d 0.2" "cd $TMP/snap && LC_ALL=C"
expect 'SIMULATED' "dashboard for the history test"
# Sort by IPC (as in 1.): the sparklines follow the sort column.
press '<' '<' '<' '<' '<' '<' '<' '<' '>' '>' '>' '>' '>'
expect 'system IPC [0-9.]+\.\.[0-9.]+ +[_.:=+*#-]' "the system's IPC sparkline in ASCII"
ipc_sparks() { [ "$(screen | grep -Eo 'IPC [0-9.]+\.\.[0-9.]+ ' | wc -l)" -ge 4 ]; }
wait_until ipc_sparks
n=$(screen | grep -Eo 'IPC [0-9.]+\.\.[0-9.]+ ' | wc -l)
[ "$n" -ge 4 ] || { fail "IPC sparklines: $n lines, want the system, 2 CCX and the socket"; screen | sed 's/^/  | /'; }
press Enter
expect '\[CPU [0-9]+\]' "detail pane on the selected CPU"
expect '^.IPC +[0-9.]+\.\.[0-9.]+' "the pane's IPC graph with its scale"
expect 'now ~?[0-9.]+ insn/cyc +min [0-9.]+ +avg [0-9.]+ +max [0-9.]+ +over' "IPC min/avg/max"
expect 'L3 hit%.*per CCX and wider' "why a CCX metric has no value in a CPU"
press Right Right
expect '\[CCX [0-9]\]' "Right moves the pane to the CPU's CCX"
expect 'L3 hit% +[0-9.]+ ' "the CCX's L3 hit ratio"
keys End
expect 'not measured in this view' "metrics outside the view listed with why"
press a
expect 'measuring every metric' "a measures every metric"
i=0; while [ $i -lt 25 ] && screen | grep -q 'not measured in this view'; do sleep 0.2; i=$((i + 1)); done
screen | grep -q 'not measured in this view' && fail "a: metrics still not measured"
for size in "60 15" "250 70" "40 10" "100 30"; do
	set -- $size
	$TMUX_CMD resize-window -t "$S" -x "$1" -y "$2" >/dev/null 2>&1
	sleep 0.8
	[ "$(screen | wc -l)" -le "$2" ] || fail "more than $2 lines at ${1}x$2"
	w=$(screen | awk '{ n = length($0); if (n > w) w = n } END { print w + 0 }')
	[ "$w" -le "$1" ] || fail "a line of $w columns at ${1}x$2"
	if [ "$1" -ge 60 ]; then expect 'Up/Down' "the pane at ${1}x$2"; else expect 'too small' "too small at ${1}x$2"; fi
done
keys Escape
sleep 0.5
screen | grep -q 'Up/Down' && fail "Esc did not close the pane"
expect 'CPU.+core' "the table after the pane"
press w
expect 'snapshot written to .*/pmctop-snapshot-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.json' "the snapshot key's message"
keys w w
n=$(ls "$TMP/snap" | grep -Ec '^pmctop-snapshot-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.json$')
[ "$n" -eq 3 ] || fail "three snapshots made $n files: $(ls "$TMP/snap")"
for f in "$TMP"/snap/pmctop-snapshot-*.json; do
	if command -v python3 >/dev/null 2>&1; then
		python3 -m json.tool "$f" >/dev/null 2>&1 || fail "$f is not valid JSON"
	fi
	grep -q '"ipc":' "$f" || fail "$f lacks IPC"
done
quit_ok "history"
# Block elements where the system has a UTF-8 locale.
utf8=$(locale -a 2>/dev/null | grep -Ei '^(c|en_us)\.utf-?8$' | head -n 1)
if [ -n "$utf8" ]; then
	start 160 30 "--sim zen5 -d 0.2" "LC_ALL=$utf8"
	expect 'SIMULATED' "dashboard in $utf8"
	blocks=$(printf '(\342\226\201|\342\226\202|\342\226\203|\342\226\204|\342\226\205|\342\226\206|\342\226\207|\342\226\210)')
	expect "system util% [0-9]+\.\.[0-9]+ +.*$blocks" "block elements in $utf8"
	quit_ok "$utf8"
fi

# 8. -n ends the dashboard by itself after that many intervals, as in top.
start 100 30 "--sim zen5 -d 0.3 -n 3"
i=0; while [ ! -s "$TMP/status" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
grep -q 'EXIT=0' "$TMP/status" 2>/dev/null || fail "-n 3: the dashboard did not end by itself with 0 ($(cat "$TMP/status" 2>/dev/null))"
grep -Eq '(^| )icanon( |$)' "$TMP/stty" 2>/dev/null || fail "-n 3: terminal not restored"

# 11. At 80x24 the header keeps the state (PAUSED, min cov) and gives up
# the host first; the System line lists the view's figures that fit whole,
# and at 250 columns all of them (topdown: Retiring too).
start 80 24 "--sim zen5 -d 0.3" "NO_COLOR=1"
expect 'SIMULATED' "dashboard at 80x24"
press 2 Space
expect '^pmctop amd-zen5 SIMULATED.*PAUSED  min cov [0-9-]' "80 columns: PAUSED and min cov in the header"
$TMUX_CMD resize-window -t "$S" -x 250 -y 40 >/dev/null 2>&1
expect '^System .*\| topdown: .*Retiring% [-0-9~]' "250 columns: Retiring on the System line"
$TMUX_CMD resize-window -t "$S" -x 80 -y 24 >/dev/null 2>&1; sleep 0.3
press Space
# The help lists only the digits of views this model has (Zen 5: 8) and
# wraps at words: no line ends inside a word that goes on below it.
press h
expect 'view: 1 basic, 2 topdown' "help: the views by their digit keys"
screen | grep -q '^  1 2 3 4 5 6 7 8 9 ' && fail "help lists key 9, which no view has"
# The filter line (\ F4) is on the second page at 80x24.
press PgDn
filter_line() { screen | grep -q "or 'ccx N' / 'socket\$"; }
wait_until filter_line
screen | grep -q "or 'ccx N' / 'socket\$" || fail "help: the filter line not wrapped at a word"
keys Escape
# The sort picker ranks names before descriptions: "BE" is BE bound.
press F6 B E Enter
expect 'sort BE bound%' "sort picker: BE picks BE bound"
# The sort column survives a view without it.
press 1
expect 'sort CPU' "the basic view has no BE bound: rows by CPU"
press 2
expect 'sort BE bound%' "back in topdown, the rows sort by BE bound again"
# With F the highlight follows its CPU while the rows re-sort (monochrome:
# the selected row is the one in reverse video).
press F
expect 'follow' "F says the selection follows its row"
keys Down Down Down
# The highlighted row, once the screen shows one (a loaded machine may
# draw the frame after the three keys later than keys' own pause).
first=$(sel); i=0
while [ -z "$first" ] && [ $i -lt 25 ]; do sleep 0.2; first=$(sel); i=$((i + 1)); done
[ -n "$first" ] || { fail "no highlighted row found"; screen | sed 's/^/  | /'; }
moved=0
for i in 1 2 3 4 5 6; do
	sleep 0.4
	now=$(sel)
	[ "$now" = "$first" ] || { moved=1; break; }
done
[ $moved -eq 0 ] || fail "the highlight moved from CPU $first to CPU $now as the rows re-sorted"
# The filter prompt: the old filter is a default that the first key
# replaces; an error goes when a good filter follows.
press '\'
type_text "zz"; press Enter
expect 'filter: ' "a bad filter says why"
press '\'
type_text "0-3"; press Enter
expect 'filter 0-3' "filter 0-3"
screen | grep -q 'filter: ' && fail "the error outlived a good filter"
press '\'
type_text "ccx 1"; press Enter
expect 'filter ccx 1' "the first key replaced the old filter"
press '\' C-u
type_text "socket 0"; press Enter
expect 'filter socket 0' "Ctrl-U cleared the prompt"
quit_ok "80x24 details"

# 13. t cycles the table through CPU, core, CCX and socket rows (and back),
# at 80x24 and 250x70; a CCX or socket row lists its CPUs as ranges and
# shows the L3 figures that CPU rows cannot have.
for size in "80 24" "250 70"; do
	set -- $size
	start "$1" "$2" "--sim zen5:2x2x4x2 -d 0.3 -g cache"
	expect 'rows per CPU' "$1x$2: rows per CPU"
	press t
	expect 'rows per core' "$1x$2: t: rows per core"
	expect '^ +0,16 +0 +0 ' "$1x$2: a core row lists its CPUs"
	press t
	expect 'rows per CCX' "$1x$2: t: rows per CCX"
	expect '^ +0-3,16-19 +0 ' "$1x$2: a CCX row lists its CPUs as ranges"
	[ "$1" -lt 200 ] || expect 'L3 hit%' "$1x$2: CCX rows have the L3 columns"
	[ "$1" -lt 200 ] || expect 'core strip: low _\.:=\+\*#%@ high' "$1x$2: the core strip's legend"
	press t
	expect 'rows per socket' "$1x$2: t: rows per socket"
	expect '^ +8-15,24-31 +1 ' "$1x$2: the second socket's row"
	n=$(screen | grep -Ec '^ +[0-9]+-[0-9]+,[0-9]+-[0-9]+ +[01] ')
	[ "$n" -eq 2 ] || fail "$1x$2: $n socket rows, want 2"
	press t
	expect 'rows per CPU' "$1x$2: t: back to rows per CPU"
	quit_ok "t at $1x$2"
done

# 14. The CCX panels follow the row filter and scroll with the selection:
# 24 CCX do not all fit in 100x24 (a heat map of one cell per CCX: its
# number, then a mark per core); End brings the last CCX into view; with
# 'socket 1' none of socket 0's is drawn.
ccx() { echo "(^| )$1 [_.:=+*#%@]{8} "; }
start 100 24 "--sim zen5:2x12x8x2 -d 0.3"
expect "$(ccx 0)" "CCX 0 at the top before filtering"
screen | grep -Eq "$(ccx 23)" && fail "CCX 23 shown although it does not fit"
press End
expect "$(ccx 23)" "End: the last CCX scrolled into view"
press Home '\'
type_text "socket 1"; keys Enter
expect "^ *$(ccx 12)" "filter socket 1: the panels start at CCX 12"
screen | grep -Eq "$(ccx '[0-9]')" && fail "filter socket 1: a CCX of socket 0 is still drawn"
quit_ok "CCX panels follow the filter"

# 15. A long delay does not mean a long wait: the first figures, and a new
# view's figures, come from a short first interval (well before the 4 s
# delay would bring them).
start 120 30 "--sim zen5 -d 4"
i=0; while [ $i -lt 8 ] && ! screen | grep -Eq '^System  IPC ~?[0-9]'; do sleep 0.25; i=$((i + 1)); done
screen | grep -Eq '^System  IPC ~?[0-9]' || fail "-d 4: no figures within 2 s of the start"
sleep 1
keys 2
i=0; while [ $i -lt 8 ] && ! screen | grep -Eq 'topdown: FE bound% ~?[0-9]'; do sleep 0.25; i=$((i + 1)); done
screen | grep -Eq 'topdown: FE bound% ~?[0-9]' || fail "-d 4: the topdown view's figures took more than 2 s"
quit_ok "quick first interval"

# 16. The mouse (SGR reports, as xterm and tmux send them): a click on a
# column heading sorts by it and a second one reverses, a click on a row
# selects it, the wheel moves the selection, a click on a view tab switches.
# No pause after a click: the line after each waits for its effect
# (expect, or the selection polled with sel_is).
sel_is() { [ "$(sel)" = "$1" ]; }
for size in "120 30" "250 70"; do
	set -- $size
	start "$1" "$2" "--sim zen5 -d 0.3" "NO_COLOR=1"
	expect 'SIMULATED' "$1x$2: dashboard for the mouse test"
	ipc_heading() { [ -n "$(where ' IPC ' 'CPU.* core ')" ]; }
	wait_until ipc_heading
	set -- $(where ' IPC ' 'CPU.* core ')
	[ $# -eq 2 ] || { fail "mouse: no IPC heading"; continue; }
	click 0 $(($1 + 2)) "$2"
	expect 'sort IPC  ' "mouse: a click on the IPC heading sorts by it"
	click 0 $(($1 + 2)) "$2"
	expect 'sort IPC \(rev\)' "mouse: a second click reverses the sort"
	hy=$2
	# Rows in CPU order (a click on the CPU heading), so that the 4th row
	# is CPU 3 while we look.
	click 0 4 "$hy"
	expect 'sort CPU  ' "mouse: a click on the CPU heading sorts by CPU"
	click 0 3 $((hy + 4))
	wait_until sel_is 3
	[ "$(sel)" = 3 ] || fail "mouse: the clicked row (CPU 3) is not the selected one ($(sel))"
	type_text "$(printf '\033[<65;3;%dM' $((hy + 4)))"
	wait_until sel_is 6
	[ "$(sel)" = 6 ] || fail "mouse: the wheel did not move the selection 3 rows down (CPU $(sel))"
	set -- $(where '2:topdown' 'sort')
	if [ $# -eq 2 ]; then
		click 0 $(($1 + 2)) "$2"
		expect '\| topdown:' "mouse: a click on the topdown tab switches to it"
	fi
	quit_ok "mouse"
done

# 17. The setup screen (F2) changes settings at once and saves them to
# $XDG_CONFIG_HOME/pmctop/pmctoprc; the next start uses them, --no-config
# and the command line win over them, and a bad line is reported with its
# file and line while pmctop starts anyway. At 80x24 and 250x70.
for size in "80 24" "250 70"; do
	set -- $size
	rm -rf "$TMP/xdg"
	start "$1" "$2" "--sim zen5 -d 0.5" "XDG_CONFIG_HOME=$TMP/xdg"
	expect 'SIMULATED' "$1x$2: dashboard for the setup test"
	press F2
	expect 'pmctop setup' "$1x$2: F2 opens the setup screen"
	press Right Down Right Down Down Right
	expect 'Refresh delay +1 s' "$1x$2: setup: the delay one step up"
	expect 'Start in view +topdown' "$1x$2: setup: the next view"
	expect 'Table rows +per core' "$1x$2: setup: rows per core"
	press s
	expect 'saved to .*xdg/pmctop/pmctoprc' "$1x$2: setup: saved"
	keys Escape
	expect 'rows per core' "$1x$2: the change applies at once"
	quit_ok "setup at $1x$2"
	grep -q '^delay 1$' "$TMP/xdg/pmctop/pmctoprc" && grep -q '^view topdown$' "$TMP/xdg/pmctop/pmctoprc" &&
		grep -q '^rows core$' "$TMP/xdg/pmctop/pmctoprc" || fail "$1x$2: pmctoprc: $(cat "$TMP/xdg/pmctop/pmctoprc")"
	[ "$(stat -c %a "$TMP/xdg/pmctop/pmctoprc")" = 600 ] || fail "$1x$2: pmctoprc is not mode 600"
	# The next start: the saved delay, view and rows.
	start "$1" "$2" "--sim zen5" "XDG_CONFIG_HOME=$TMP/xdg"
	expect 'delay 1\.0s' "$1x$2: restart: the saved delay"
	expect '2:topdown' "$1x$2: restart: the saved view"
	expect 'rows per core' "$1x$2: restart: the saved rows"
	quit_ok "restart with settings at $1x$2"
	# The command line and --no-config win.
	start "$1" "$2" "--sim zen5 -d 0.3 -g cache" "XDG_CONFIG_HOME=$TMP/xdg"
	expect 'delay 0\.3s' "$1x$2: -d wins over the saved delay"
	expect '4:cache' "$1x$2: -g wins over the saved view"
	quit_ok "command line over settings at $1x$2"
	start "$1" "$2" "--sim zen5 --no-config" "XDG_CONFIG_HOME=$TMP/xdg"
	expect 'rows per CPU' "$1x$2: --no-config: default rows"
	expect '1:basic' "$1x$2: --no-config: the first view"
	quit_ok "--no-config at $1x$2"
done
printf 'delay 2\nbogus line\n' > "$TMP/xdg/pmctop/pmctoprc"
start 120 30 "--sim zen5" "XDG_CONFIG_HOME=$TMP/xdg"
expect 'pmctoprc:2: unknown setting .bogus.' "a bad settings line named with its file and line"
expect 'delay 2\.0s' "the good lines of a bad file still apply"
quit_ok "bad settings file"

# 17b. The view editor (F2, Edit views): a view of the user's own made
# from the current one, a column added by search, renamed, given the free
# key 9 and saved to $XDG_CONFIG_HOME/pmctop/views/MODEL.def; the next
# start has it on key 9; D deletes it, from the screen and the file.
for size in "80 24" "250 70"; do
	set -- $size
	rm -rf "$TMP/xdgv"
	vf="$TMP/xdgv/pmctop/views/amd-zen5.def"
	start "$1" "$2" "--sim zen5 -d 0.5" "XDG_CONFIG_HOME=$TMP/xdgv"
	expect 'SIMULATED' "$1x$2: dashboard for the view editor"
	press F2 Down Down Down Down Down Down Down
	expect 'Edit views +Enter makes a view of your own from basic' "$1x$2: setup: the Edit views line"
	press Enter
	expect 'view editor: new view my_basic' "$1x$2: the editor on a copy of basic"
	press a
	type_text "l3_hit_rat"; sleep 0.4
	keys Enter
	expect 'l3_hit_rate +L3 hit' "$1x$2: editor: a column added by search"
	press n
	type_text "e2e_view"; sleep 0.3
	press Enter k s
	expect "view 'e2e_view' saved" "$1x$2: editor: saved"
	keys Escape Escape
	expect '\| e2e_view:' "$1x$2: the saved view is shown"
	quit_ok "view editor at $1x$2"
	grep -q '^view e2e_view$' "$vf" && grep -q '^	key 9$' "$vf" && grep -q '^	column l3_hit_rate' "$vf" &&
		grep -q '^	column ipc ' "$vf" || fail "$1x$2: views file: $(cat "$vf" 2>/dev/null)"
	[ "$(stat -c %a "$vf" 2>/dev/null)" = 600 ] || fail "$1x$2: the views file is not mode 600"
	# The next start has the view, on its key.
	start "$1" "$2" "--sim zen5 -d 0.5" "XDG_CONFIG_HOME=$TMP/xdgv"
	expect 'SIMULATED' "$1x$2: restart with the user's view"
	press 9
	expect '\| e2e_view:' "$1x$2: restart: key 9 shows the user's view"
	press F2 Down Down Down Down Down Down Down Enter
	expect 'view editor: your view e2e_view' "$1x$2: the editor on the user's view"
	keys D Escape
	expect "view 'e2e_view' deleted" "$1x$2: D deletes the view"
	quit_ok "view editor delete at $1x$2"
	grep -q '^view e2e_view' "$vf" && fail "$1x$2: the deleted view is still in the file"
done

# 18. Ctrl-Z suspends: under a shell with job control pmctop stops and
# hands the terminal back (the shell can print its prompt), and fg brings
# the dashboard back, redrawn; q still quits with 0.
if command -v bash >/dev/null 2>&1; then
	S=jobs
	$TMUX_CMD new-session -d -s "$S" -x 120 -y 30 "env PS1='jobshell\$ ' bash --norc --noprofile -i"
	sleep 0.5
	type_text "$PMCTOP --sim zen5 -d 0.37"; keys Enter
	expect 'SIMULATED' "dashboard for the suspend test"
	press C-z
	expect 'Stopped' "Ctrl-Z: the shell reports pmctop stopped"
	pid=$(child_pid "$($TMUX_CMD display-message -p -t "$S" '#{pane_pid}')" pmctop)
	case $(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null) in T*) ;; *) fail "Ctrl-Z: pmctop is not stopped" ;; esac
	type_text "fg"; keys Enter
	expect 'SIMULATED' "fg: the dashboard is drawn again"
	keys q
	sleep 0.5
	type_text 'echo EXIT=$?'; keys Enter
	expect 'EXIT=0' "q after a suspend exits with 0"
	$TMUX_CMD kill-session -t "$S" >/dev/null 2>&1
fi

# 19. Who ran: T on a CPU row opens the tasks view limited to that CPU,
# busiest first; / finds a process by name, and the simulated mix's two
# hostile names (an OSC that would retitle the terminal, bytes that are
# not UTF-8) are shown with '?' in their place and never reach the
# terminal; t shows cgroups; T goes back. At 80x24 and 250x70.
for size in "80 24" "250 70"; do
	set -- $size
	start "$1" "$2" "--sim zen5 -d 0.3 --no-config"
	expect 'SIMULATED' "$1x$2: dashboard for the tasks view"
	press T
	expect 'who ran on CPU' "$1x$2: T says whose CPU"
	expect 'PID COMMAND' "$1x$2: tasks table heading"
	expect 'rows per process' "$1x$2: the rows are processes"
	expect '^ +[0-9]+ [a-z]' "$1x$2: a process row"
	# Busiest on CPU 0 first: HERE% (the third column, each process's
	# share of that one CPU) descends and never passes 100.
	expect 'HERE%(v|▼)' "$1x$2: sorted by the share of the CPU"
	here_col() { screen | awk '/PID COMMAND/ { t = 1; next } t && $1 ~ /^[0-9]+$/ && $3 ~ /^~?[0-9.]+$/ { sub("~", "", $3); print $3 }' > "$TMP/cpu"; }
	here_ok() { here_col; [ "$(wc -l < "$TMP/cpu")" -ge 1 ] && sort -gr "$TMP/cpu" | cmp -s - "$TMP/cpu" &&
		awk '{ s += $1 } END { exit !(s <= 100.5) }' "$TMP/cpu"; }
	wait_until here_ok
	here_col
	[ "$(wc -l < "$TMP/cpu")" -ge 1 ] || fail "$1x$2: no HERE% values in the tasks view"
	sort -gr "$TMP/cpu" | cmp -s - "$TMP/cpu" || fail "$1x$2: processes not busiest first: $(tr '\n' ' ' < "$TMP/cpu")"
	awk '{ s += $1 } END { exit !(s <= 100.5) }' "$TMP/cpu" || fail "$1x$2: shares of CPU 0 add up to more than 100: $(tr '\n' ' ' < "$TMP/cpu")"
	press '\'
	press C-u
	type_text "pwned"; keys Enter
	expect '\?\]0;pwned\?evil' "$1x$2: the hostile name, made safe"
	case $($TMUX_CMD display-message -p -t "$S" '#{pane_title}') in
	*pwned*) fail "$1x$2: a process name retitled the terminal" ;;
	esac
	press '\'
	press C-u
	type_text "utf8"; keys Enter
	expect 'bad\?\?utf8' "$1x$2: bytes that are not UTF-8, made safe"
	press '\'
	press C-u
	press Enter
	press t
	expect 'PROCS CGROUP' "$1x$2: t shows cgroups"
	expect '/system.slice/' "$1x$2: a cgroup row"
	press T
	expect 'rows per CPU' "$1x$2: T goes back to the CPU rows"
	quit_ok "$1x$2 tasks view"
done

# 12. At 40x10 the too-small message is whole, wrapped over lines.
start 40 10 "--sim zen5"
expect 'too small' "too-small message at 40x10"
expect 'needs 60x15' "too-small: what it needs"
expect '\(q quits\)' "too-small: how to quit"
quit_ok "40x10"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
