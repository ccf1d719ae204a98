#!/bin/sh
# e2e_power_tui.sh: the dashboard's power panel (ui/panel_power.c). On the
# simulated Zen 5, one socket and two, the power view shows per socket the
# package and core watts and instructions per joule that batch JSON of the
# same model and delay gives for one of its intervals (the simulator is
# deterministic per interval), sparklines once a few intervals are kept,
# beside the memory panel on a wide terminal and above it on a narrow one,
# in colour and without, and after Tab from another view. On a machine without energy counters (this VM)
# the panel is one line saying so, never a row of 0 W.
# Needs tmux and python3.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=power
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }

# The power rows of the screen: "socket N" then a value in W. A row with a
# sparkline has glyphs after its first value (at most 2 intervals kept: none).
power_rows() { screen | grep -E '^socket [0-9]+ +[0-9.]+W'; }
# Waits up to 15 s for every power row to carry a sparkline.
wait_sparks() {
	i=0
	while [ $i -lt 75 ]; do
		rows=$(power_rows)
		[ -n "$rows" ] && echo "$rows" | awk '$4 ~ /^[0-9.]+W$/ { bad = 1 } END { exit bad }' && return 0
		sleep 0.2; i=$((i + 1))
	done
	return 1
}
# Checks the power rows on screen against the batch intervals in $1: some
# interval must give every socket's PkgW and CoreW within the screen's
# rounding (two decimals) and its Insn/J within three significant digits.
match_batch() {
	power_rows > "$TMP/rows"
	python3 - "$1" "$TMP/rows" "$2" <<'EOF' || fail "$2: power panel does not match batch JSON"
import json, re, sys
batch = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = {}
for line in open(sys.argv[2]):
    f = line.split()
    vals = [v for v in f[2:] if re.fullmatch(r"[0-9.]+[WkMGT]?", v)]
    rows[int(f[1])] = vals
if not rows:
    sys.exit("no power rows")
def num(v):
    mul = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    return float(v[:-1]) * mul[v[-1]] if v[-1] in mul else float(v)
for d in batch:
    ok = True
    for s, vals in rows.items():
        m = d["sockets"][s]["metrics"]
        want = [m["pkg_watts"], m["core_watts"], m["insn_per_joule"]]
        got = [float(vals[0][:-1]), float(vals[1][:-1]), num(vals[2])]
        ok &= abs(got[0] - want[0]) <= 0.006 and abs(got[1] - want[1]) <= 0.006
        ok &= abs(got[2] - want[2]) <= 0.006 * want[2]
    if ok:
        sys.exit(0)
print("screen:", rows)
print("batch PkgW:", [[round(s["metrics"]["pkg_watts"], 2) for s in d["sockets"]] for d in batch])
sys.exit(1)
EOF
}

for shape in zen5 zen5:2x12x8x2; do
	# Fast-forwarded (ff=1): the same 60 intervals of 0.5 s, figure for
	# figure, written at once instead of over 30 s of real time.
	"$PMCTOP" --sim $shape,ff=1 -g power -b --format json -n 60 -d 0.5 > "$TMP/batch.json" 2>/dev/null ||
		fail "$shape: batch JSON"
	start 120 40 "--sim $shape -g power -d 0.5"
	expect '^Power +PkgW +CoreW +Insn/J' "$shape: power panel heading"
	expect 'SIMULATED' "$shape: SIMULATED label"
	wait_sparks || { fail "$shape: no sparklines after 15 s"; screen | sed 's/^/  | /'; }
	n=$(power_rows | wc -l)
	want=${shape#zen5:}; [ "$want" = "$shape" ] && want=1 || want=${want%%x*}
	[ "$n" -eq "$want" ] || fail "$shape: $n power rows, not one per socket ($want)"
	keys Space   # paused, so that the screen and the check see one interval
	sleep 0.3
	match_batch "$TMP/batch.json" "$shape"
	# Above the memory panel at 120 columns; beside it at 250.
	where 'Power' '^Power' > "$TMP/p"; where 'Memory' '^Memory' > "$TMP/m"
	[ "$(cut -d' ' -f2 "$TMP/p")" -lt "$(cut -d' ' -f2 "$TMP/m")" ] || fail "$shape: power panel not above memory at 120x40"
	$TMUX_CMD resize-window -t "$S" -x 250 -y 70
	expect '^Memory .* Power +PkgW' "$shape: power panel beside memory at 250x70"
	$TMUX_CMD resize-window -t "$S" -x 80 -y 24
	expect '^Power +PkgW' "$shape: power panel at 80x24"
	expect 'F1Help' "$shape: footer at 80x24"
	quit_ok "$shape"
done

# Without colour, the same panel.
start 120 40 "--sim zen5 -g power -d 0.3" "NO_COLOR=1"
expect '^Power +PkgW +CoreW +Insn/J' "NO_COLOR: power panel"
quit_ok "NO_COLOR"

# The default view does not measure energy: no panel there.
start 120 40 "--sim zen5 -d 0.3"
expect 'SIMULATED' "default view"
sleep 1
screen | grep -q '^Power ' && fail "the default view shows a power panel"
# Tab into the power view: the snapshots planned for the last view (no
# energy in them) are not taken for a machine without energy counters.
n=0
while ! screen | grep -q '^Power ' && [ $n -lt 30 ]; do
	$TMUX_CMD send-keys -t "$S" Tab; sleep 0.03; n=$((n + 1))
done
n=0
while [ $n -lt 20 ]; do
	screen | grep -q 'no energy counters' && { fail "Tab to the power view: a false 'no energy counters'"; break; }
	sleep 0.05; n=$((n + 1))
done
expect '^socket 0 +[0-9.]+W' "Tab to the power view: watts"
quit_ok "default view"

# The real backend: where the machine has no energy counters (no power PMU,
# no powercap tree, as on this VM), one line says so and no figure is 0 W.
if [ ! -d /sys/bus/event_source/devices/power ] && [ ! -d /sys/class/powercap/intel-rapl:0 ]; then
	start 120 40 "-g power -d 0.3"
	expect '^Power +no energy counters here' "no energy counters: the panel's note"
	sleep 1
	screen | grep -Eq '(^| )0(\.0+)?W' && { fail "no energy counters, yet a 0 W figure"; screen | sed 's/^/  | /'; }
	[ "$(screen | grep -c 'no energy counters here: the watts')" -eq 1 ] || fail "the note is not said once"
	quit_ok "no energy counters"
fi
[ "$fails" -eq 0 ] || exit 1
echo "ok: power panel"
