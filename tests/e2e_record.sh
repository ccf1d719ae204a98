#!/usr/bin/env bash
# e2e_record.sh: -w and -r as a user runs them: a recording of 60
# simulated intervals replays into the same JSON and CSV, byte for byte
# (with the kernel's multiplexing too); a
# metric that was not shown while recording comes out of it; a recorder
# killed with SIGKILL leaves a file that replays all but at most the
# interval in progress; the dashboard records too; bad files and bad
# combinations are refused with a reason.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pm=("$top_builddir/pmctop" --events-dir "$top_srcdir/events")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read JSON"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmctop-rec.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# 1. 60 intervals, live JSON and the replay's JSON: the same bytes.
"${pm[@]}" --sim zen5 -b --format json -n 60 -d 0.05 -w "$dir/a.rec" >"$dir/live.json" ||
	fail "recording exited $?"
[ "$(wc -l <"$dir/live.json")" -eq 60 ] || fail "live run wrote $(wc -l <"$dir/live.json") lines, not 60"
"${pm[@]}" -r "$dir/a.rec" -b --format json >"$dir/replay.json" 2>"$dir/err" || fail "replay exited $?: $(cat "$dir/err")"
cmp -s "$dir/live.json" "$dir/replay.json" || fail "replayed JSON differs from the live run's"
[ -s "$dir/err" ] && fail "replay of a whole file said: $(cat "$dir/err")"
# The file is gzip'd JSON lines that standard tools read.
zcat "$dir/a.rec" | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
h = json.loads(lines[0])
assert h["format"] == "pmctop-recording" and h["version"] == 1, h
assert len(lines) == 61, len(lines)
for l in lines[1:]:
    o = json.loads(l)
    assert o["groups"] and "bv" in o["groups"][0]
print("zcat ok")
' || fail "zcat | json"

# 1b. The kernel's multiplexing (--rotate kernel): its four slices of an
# interval take their errors from their spread about the mean, not from
# successive windows as pmctop's rotation does; the replay knows which
# from the recorded rotate_ms, so its errors are the live run's too.
"${pm[@]}" --sim zen5 --rotate kernel -b --format json -n 12 -d 0.2 -w "$dir/kmux.rec" >"$dir/kmux_live.json" ||
	fail "--rotate kernel recording exited $?"
"${pm[@]}" -r "$dir/kmux.rec" -b --format json >"$dir/kmux_rep.json" 2>"$dir/err" || fail "replay exited $?: $(cat "$dir/err")"
cmp -s "$dir/kmux_live.json" "$dir/kmux_rep.json" || fail "replayed JSON of --rotate kernel differs from the live run's"

# 1c. Every Zen 5 metric at once, 10 ms rotation: groups of one window
#     each, whose errors count the share of the interval beyond their
#     windows' reach (wset_unseen2), placed by each group's lead; the
#     replay reads the leads from the recording (with the leads left out
#     of the replay, its JSON differs: tried).
all=$(awk '/^metric /{print $2}' "$top_srcdir/events/amd/zen5/metrics.def" | paste -sd, -)
"${pm[@]}" --sim zen5:1x1x4x2 -b --format json -n 4 -d 0.4 --rotate 10 -g "$all" -w "$dir/all.rec" \
	>"$dir/all_live.json" 2>/dev/null || fail "every-metric recording exited $?"
"${pm[@]}" -r "$dir/all.rec" -b --format json >"$dir/all_rep.json" 2>"$dir/err" ||
	fail "replay exited $?: $(cat "$dir/err")"
cmp -s "$dir/all_live.json" "$dir/all_rep.json" || fail "replayed JSON of every metric differs from the live run's"

# 2. CSV with an -e event and -C: the same bytes too.
"${pm[@]}" --sim zen5:2x2x4x2 -b --format csv -n 10 -d 0.1 -g topdown -e ls_dispatch.all -C 0-5,9 \
	-w "$dir/b.rec" >"$dir/live.csv" 2>/dev/null || fail "CSV recording exited $?"
"${pm[@]}" -r "$dir/b.rec" -b --format csv >"$dir/replay.csv" 2>/dev/null || fail "CSV replay exited $?"
cmp -s "$dir/live.csv" "$dir/replay.csv" || fail "replayed CSV differs from the live run's"

# 2b. Energy on two sockets: package watts and instructions per joule
#     replay into the same bytes, and are figures, not '-'.
"${pm[@]}" --sim zen5:2x2x4x2 -b --format csv -n 8 -d 0.1 -g power -w "$dir/p.rec" >"$dir/live-p.csv" \
	2>/dev/null || fail "power recording exited $?"
"${pm[@]}" -r "$dir/p.rec" -b --format csv >"$dir/replay-p.csv" 2>/dev/null || fail "power replay exited $?"
cmp -s "$dir/live-p.csv" "$dir/replay-p.csv" || fail "replayed power CSV differs from the live run's"
python3 - "$dir/replay-p.csv" <<'EOF' || fail "power figures in the replay"
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
sock = [r for r in rows if r.get("scope") == "socket"]
assert len(sock) == 16, len(sock)
for r in sock:
    assert 10 < float(r["pkg_watts"]) < 1000, r
    assert float(r["insn_per_joule"]) > 1e6, r
EOF

# 3. A metric not shown while recording (CPI: IPC's events), and one whose
#    events were not counted (L2 MPKI): a figure, and '-' with the reason.
"${pm[@]}" -r "$dir/a.rec" -b --format json -g ipc,cpi,l2_mpki >"$dir/cpi.json" 2>"$dir/err" ||
	fail "replay -g ipc,cpi,l2_mpki exited $?"
grep -q "l2_mpki shows '-'.*not counted" "$dir/err" || fail "no reason given for l2_mpki: $(cat "$dir/err")"
python3 - "$dir/cpi.json" <<'EOF' || fail "cpi from the recording"
import json, sys
n = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    for row in [o["system"]] + o["cpus"] + o["ccxs"]:
        m = row["metrics"]
        assert m["l2_mpki"] is None, m
        if m["ipc"] is None:
            continue
        assert m["cpi"] is not None, m
        assert abs(m["cpi"] * m["ipc"] - 1) < 1e-4, m
        n += 1
assert n > 60 * 30, n
print("cpi ok", n)
EOF

# 4. kill -9 while recording: what was written replays, less at most the
#    interval in progress.
"${pm[@]}" --sim zen5 -b --format json -d 0.1 -w "$dir/k.rec" -o "$dir/k.json" &
pid=$!
for _ in $(seq 100); do
	[ -f "$dir/k.json" ] && [ "$(wc -l <"$dir/k.json")" -ge 8 ] && break
	sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
n=$(wc -l <"$dir/k.json")
[ "$n" -ge 8 ] || fail "the recorder wrote $n intervals in 10 s"
"${pm[@]}" -r "$dir/k.rec" -b --format json >"$dir/k-replay.json" 2>"$dir/err" || fail "replay after kill -9 exited $?"
m=$(wc -l <"$dir/k-replay.json")
[ "$m" -ge $((n - 1)) ] || fail "kill -9 after $n intervals: $m replayed"
# What replays is what was measured.
head -n "$((n - 1))" "$dir/k.json" | cmp -s - <(head -n "$((n - 1))" "$dir/k-replay.json") ||
	fail "intervals replayed after kill -9 differ from those measured"

# 5. A cut file: the whole intervals, and a note on stderr.
size=$(stat -c %s "$dir/a.rec")
head -c $((size - 100)) "$dir/a.rec" >"$dir/cut.rec"
"${pm[@]}" -r "$dir/cut.rec" -b --format json >"$dir/cut.json" 2>"$dir/err" || fail "replay of a cut file exited $?"
[ "$(wc -l <"$dir/cut.json")" -eq 59 ] || fail "a cut file replayed $(wc -l <"$dir/cut.json") intervals, not 59"
grep -q "incomplete" "$dir/err" || fail "a cut file: no note ($(cat "$dir/err"))"

# 5b. The host travels with the recording: a replay's CSV and JSON name the
# machine that was measured, not the one replaying (a new UTS namespace
# gives the recording run another host name; skipped where that is denied).
if unshare --uts true 2>/dev/null; then
	unshare --uts sh -c 'hostname recorded-host && exec "$@"' sh "${pm[@]}" --sim zen5 -b -n 2 -d 0.1 \
		-w "$dir/h.rec" >/dev/null 2>&1 || fail "recording under another host name exited $?"
	"${pm[@]}" -r "$dir/h.rec" -b --format csv 2>/dev/null | sed -n 2p | grep -q '^[0-9.]*,[0-9.]*,1,"recorded-host",cpu,' ||
		fail "a replay's CSV does not name the recorded host"
	"${pm[@]}" -r "$dir/h.rec" -b --format json 2>/dev/null | head -1 | grep -q '"host":"recorded-host"' ||
		fail "a replay's JSON does not name the recorded host"
fi

# 6. Refused, with a reason and the right status.
"${pm[@]}" -r /etc/hostname -b >/dev/null 2>"$dir/err"
[ $? -eq 1 ] && grep -q "/etc/hostname" "$dir/err" || fail "replay of a non-recording: $(cat "$dir/err")"
"${pm[@]}" --sim zen5 -b -n 1 -w "$dir/a.rec" >/dev/null 2>"$dir/err"
[ $? -eq 1 ] && grep -q "never writes over" "$dir/err" || fail "-w over a recording: $(cat "$dir/err")"
"${pm[@]}" -r "$dir/a.rec" --sim zen5 -b >/dev/null 2>"$dir/err"
[ $? -eq 2 ] || fail "-r with --sim: $(cat "$dir/err")"
"${pm[@]}" -r "$dir/nonexistent" -b >/dev/null 2>"$dir/err"
[ $? -eq 1 ] && grep -q "nonexistent" "$dir/err" || fail "replay of a missing file: $(cat "$dir/err")"

# 7. Output paths as users write them. -w to a directory or to a FIFO
#    that no process reads: said in words (not "it Is a directory").
mkdir "$dir/d" && mkfifo "$dir/fifo"
"${pm[@]}" --sim zen5 -b -n 1 -d 0.05 -w "$dir/d" >/dev/null 2>"$dir/err"
[ $? -eq 1 ] && grep -q "cannot record to $dir/d: it is a directory$" "$dir/err" || fail "-w DIR: $(cat "$dir/err")"
"${pm[@]}" --sim zen5 -b -n 1 -d 0.05 -w "$dir/fifo" >/dev/null 2>"$dir/err"
[ $? -eq 1 ] && grep -q "it is a FIFO that no process reads" "$dir/err" || fail "-w FIFO: $(cat "$dir/err")"
# -w and -o naming one file: refused before either is created.
abs_pm=("$(cd "$top_builddir" && pwd)/pmctop" --events-dir "$(cd "$top_srcdir" && pwd)/events")
(cd "$dir" && "${abs_pm[@]}" --sim zen5 -b -n 1 -d 0.05 -w same -o ./same >/dev/null 2>"$dir/err")
rc=$?
[ "$rc" -eq 2 ] && grep -q "both name" "$dir/err" || fail "-w same -o same exited $rc: $(cat "$dir/err")"
[ -e "$dir/same" ] && fail "-w same -o same left a file behind"
# -o /dev/null, /dev/stdout and -: taken.
for o in /dev/null /dev/stdout -; do
	"${pm[@]}" --sim zen5 -b -n 1 -d 0.05 -o "$o" >"$dir/out" 2>"$dir/err" || fail "-o $o exited $?: $(cat "$dir/err")"
done
[ -s "$dir/out" ] || fail "-o - wrote nothing to standard output"
# -o to a FIFO with no reader yet: says it waits, and writes once one comes.
"${pm[@]}" --sim zen5 -b -n 1 -d 0.05 -o "$dir/fifo" 2>"$dir/err" &
pid=$!
sleep 1
grep -q "waiting for a process to read the FIFO" "$dir/err" || fail "-o FIFO said nothing while waiting"
[ "$(wc -l <"$dir/fifo")" -gt 3 ] || fail "-o FIFO: nothing came out"
wait "$pid" || fail "-o FIFO exited $?"

[ "$fails" -eq 0 ] && echo "e2e_record: all passed"
exit $((fails > 0))
