#!/bin/sh
# screens.sh: pictures of the dashboard as a person sees it. Runs ./pmctop
# on the simulated PMU in tmux at 80x24, 120x40, 250x70 and 400x100 with
# 32 (plain --sim zen5), 384 and 1024 CPUs, captures each screen with its colours
# (capture-pane -e), turns it into HTML (aha) and a PNG (headless
# chromium). Not a test: look at every picture.
#   bench/screens.sh [OUTDIR]     (default: screens/)
# Needs tmux, aha and chromium (Debian: apt-get install aha chromium).
# LANG=C.UTF-8 NCURSES_NO_UTF8_ACS=1: box lines as UTF-8, which aha keeps
# (the VT100 line set that capture-pane -e writes otherwise comes out as
# "lqqk").
set -eu
out=${1:-screens}
pmctop=${PMCTOP:-./pmctop}
mkdir -p "$out"
for t in tmux aha chromium; do
	command -v $t >/dev/null || { echo "screens.sh: $t is missing" >&2; exit 77; }
done
sock=screens$$
trap 'tmux -L $sock kill-server >/dev/null 2>&1 || :' EXIT INT TERM
# 32 CPUs (--sim zen5: 2 CCX of 8 cores, SMT), 384 (2 sockets of 12 CCX
# of 8 cores) and 1024 (4 sockets of 16 CCX of 8 cores).
for m in 32:1x2x8x2 384:2x12x8x2 1024:4x16x8x2; do
	for size in 80x24 120x40 250x70 400x100; do
		w=${size%x*} h=${size#*x} n=${m%%:*} sim=zen5:${m#*:}
		name=$out/screen-$n-$size
		tmux -L $sock new-session -d -s s -x "$w" -y "$h" \
			"TERM=xterm-256color LANG=C.UTF-8 NCURSES_NO_UTF8_ACS=1 $pmctop --sim $sim --no-config -d 0.5; sleep 30"
		sleep 3
		tmux -L $sock capture-pane -e -p -t s > "$name.ans"
		tmux -L $sock kill-session -t s
		aha --black --title "pmctop $n CPUs $size" < "$name.ans" > "$name.html"
		# A cell is about 8x17 pixels in chromium's monospace font.
		chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
			--window-size=$((w * 8 + 40)),$((h * 17 + 40)) \
			--screenshot="$name.png" "file://$(realpath "$name.html")" >/dev/null 2>&1
		echo "$name.png"
	done
done
