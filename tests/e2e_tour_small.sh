#!/bin/sh
# e2e_tour_small.sh: the smaller things a new user meets, read off the
# terminal in tmux (a UTF-8 locale, the simulated Zen 5 unless said, no
# saved settings):
#  - F1 explains "-", "~" and "min cov" on its first page (they were at
#    the end, after some 40 lines of keys);
#  - the core strip's legend is on screen at 80 columns (it was only in
#    the footer, past 200 columns);
#  - at 60 columns the one-line CCX layout prints no clock figure without
#    its unit ("IPC 1.64 4.36", the GHz cut off);
#  - without a PMU (this kind of VM: no --sim) no "- GB/s" memory panel
#    and no "rotate 50ms" though nothing rotates; skipped where the
#    machine has hardware counters;
#  - TERM=linux: the graphs and marks in ASCII (the console's fonts lack
#    the block elements), the boxes in the terminal's line set.
# Exits 77 (skip) when tmux is missing or the program has no --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=tour_small
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
env="TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
opts="--sim zen5 --no-config -d 0.3"

# F1: the marks first.
start 80 24 "$opts" "$env"
expect 'SIMULATED' "F1: dashboard"
keys F1
expect 'pmctop keys' "F1: the help"
for m in '^ +- +no value' '^ +~1.23 +uncertain' '^ +min cov '; do
	screen | sed -n 1,23p | grep -Eq -- "$m" || fail "F1: /$m/ not on the help's first page"
done
keys Escape
# The strip's legend at 80 columns.
expect '_\.:=\+\*#%@' "80x24: the core strip's legend"
quit_ok "F1"

# 60 columns: each CCX line's figures whole.
start 60 24 "$opts" "$env"
expect 'SIMULATED' "60x24: dashboard"
expect '^CCX0 ' "60x24: one line per CCX"
sleep 1
screen | grep -E '^CCX[0-9]' | grep -Eq 'IPC +~?[0-9.]+ +~?[0-9]+\.[0-9]+( |$)' &&
	{ fail "60x24: a clock figure without its unit"; screen | grep -E '^CCX'; }
screen | grep -E '^CCX[0-9]' | grep -Eq '[0-9]G$|[0-9]GH$' && fail "60x24: a unit cut"
quit_ok "60x24"

# Without a PMU: only where this machine has none.
start 120 30 "--no-config -d 0.3" "$env"
expect 'pmctop' "no PMU: dashboard"
sleep 1.5
if screen | grep -q 'hardware counters: not available'; then
	screen | grep -q -- '- GB/s' && fail "no PMU: a memory panel of '- GB/s'"
	screen | grep -q 'rotate ' && fail "no PMU: 'rotate' though nothing rotates"
	screen | grep -q 'min cov' && fail "no PMU: 'min cov' though every figure is counted throughout"
	screen | sed -n 1p | grep -q 'no PMU  delay' || fail "no PMU: the header does not say so"
else
	echo "no PMU: skipped (this machine has hardware counters)"
fi
quit_ok "no PMU"

# TERM=linux: ASCII graphs and marks.
start 120 30 "$opts" "TERM=linux LANG=C.UTF-8 LC_ALL=C.UTF-8"
expect 'SIMULATED' "TERM=linux: dashboard"
sleep 3
screen | LC_ALL=C grep -q "$(printf '\342\226[\201-\210]')" && fail "TERM=linux: block elements on screen"
screen | grep -q '▲' && fail "TERM=linux: a UTF-8 sort arrow"
screen | grep -Eq '^ +CPU\^' || fail "TERM=linux: no ASCII sort mark"
screen | grep -Eq 'util% [0-9.]+\.\.[0-9.]+ +[_.:=+*#-]{8,}' || { fail "TERM=linux: no ASCII sparkline"; screen | sed -n 3p; }
quit_ok "TERM=linux"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
