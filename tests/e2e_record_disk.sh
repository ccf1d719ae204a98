#!/usr/bin/env bash
# e2e_record_disk.sh: -w on a bad day. A restart continues the same run's
# recording (after cutting an interval left half written), another run's
# is refused or moved aside (--record-keep), files rotate at
# --record-max-size; then, as root, a 256 KiB tmpfs fills under
# `--daemon -w`: the daemon keeps answering scrapes, says so once on
# stderr and in pmctop_recording_ok / pmctop_recording_errors_total,
# resumes when there is room again, and a restart with the same -w
# continues the file, which replays whole; a daemon started on a full
# disk serves, and starts its file when there is room. Servers on loopback only,
# stopped on exit; the tmpfs is unmounted on exit.
set -u
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
ev=(--events-dir "$top_srcdir/events")   # PMCTOP_EVENTS_DIR is not read as root
pm=("$pmctop" "${ev[@]}" --sim zen5:1x4x8x2)
scrape() { curl -sf --max-time 5 "$@"; }
# count FILE: the intervals a replay of FILE reads (a JSON line each).
count() { "$pmctop" "${ev[@]}" -r "$1" -b --format json 2>"$tmp/count.err" | wc -l; }

# 1. The same run twice: one file of both runs' intervals, one first line.
"${pm[@]}" -b -n 3 -d 0.05 -w "$tmp/a.rec" >/dev/null 2>&1 || fail "first run exited $?"
"${pm[@]}" -b -n 3 -d 0.05 -w "$tmp/a.rec" >/dev/null 2>"$tmp/err" || fail "second run exited $?: $(cat "$tmp/err")"
[ "$(count "$tmp/a.rec")" -eq 6 ] || fail "appended: $(count "$tmp/a.rec") intervals, not 6"
[ "$(zcat "$tmp/a.rec" | grep -c '"format":"pmctop-recording"')" -eq 1 ] || fail "appended: a second first line"
# A last interval cut short (a kill, a full disk) is cut off, not built on.
size=$(stat -c %s "$tmp/a.rec")
truncate -s $((size - 100)) "$tmp/a.rec"
"${pm[@]}" -b -n 2 -d 0.05 -w "$tmp/a.rec" >/dev/null 2>&1 || fail "run after a cut exited $?"
n=$(count "$tmp/a.rec")
[ "$n" -eq 7 ] && [ ! -s "$tmp/count.err" ] || fail "after a cut: $n intervals, not 7: $(cat "$tmp/count.err")"

# 2. Another run's recording (-d 0.1, not 0.05): refused, or moved aside.
"${pm[@]}" -b -n 1 -d 0.1 -w "$tmp/a.rec" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "another run" "$tmp/err" || fail "another run's file: $(cat "$tmp/err")"
"${pm[@]}" -b -n 1 -d 0.1 -w "$tmp/a.rec" --record-keep 1 >/dev/null 2>"$tmp/err" ||
	fail "--record-keep 1 exited $?: $(cat "$tmp/err")"
[ "$(count "$tmp/a.rec.1")" -eq 7 ] && [ "$(count "$tmp/a.rec")" -eq 1 ] || fail "moved aside: not 7 and 1 intervals"
"${pm[@]}" -b -n 1 -w "$tmp/b.rec" --record-keep 0 --record-max-size 1k >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "record-max-size expects" "$tmp/err" || fail "--record-max-size 1k: $(cat "$tmp/err")"

# 3. Rotation: about 7.5 KB an interval (the pinned events are read in
# every group), 96 KiB files, two kept: 20 to 49 of the 50 intervals.
"${pm[@]}" -b -n 20 -d 0.05 -w "$tmp/r.rec" --record-max-size 96k --record-keep 2 >/dev/null 2>&1 ||
	fail "rotating run exited $?"
"${pm[@]}" -b -n 30 -d 0.05 -w "$tmp/r.rec" --record-max-size 96k --record-keep 2 >/dev/null 2>&1 ||
	fail "rotating run exited $?"
total=0
for f in "$tmp/r.rec" "$tmp/r.rec.1" "$tmp/r.rec.2"; do
	[ -f "$f" ] || { fail "rotation: no $f"; continue; }
	[ "$(stat -c %s "$f")" -le 98304 ] || fail "rotation: $f is $(stat -c %s "$f") bytes, over 96 KiB"
	total=$((total + $(count "$f")))
done
[ -e "$tmp/r.rec.3" ] && fail "rotation: r.rec.3 kept with --record-keep 2"
echo "rotation: $(stat -c %s "$tmp/r.rec" "$tmp/r.rec.1" "$tmp/r.rec.2" | tr '\n' ' ')bytes, $total intervals"
[ "$total" -ge 20 ] && [ "$total" -lt 50 ] || fail "rotation: $total intervals in the three files"

# 4. A full disk under --daemon -w (root: a 256 KiB tmpfs).
if [ "$(id -u)" -ne 0 ] || ! mkdir "$tmp/full" || ! mount -t tmpfs -o size=256k pmctop-test "$tmp/full" 2>/dev/null; then
	echo "note: not root or no tmpfs: the full-disk part is skipped"
	[ "$fails" -eq 0 ] && echo "ok"
	exit $((fails > 0))
fi
trap 'cleanup_all' EXIT
cleanup_all() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	umount "$tmp/full" 2>/dev/null
	rm -rf "$tmp"
}
# metric NAME: its value in the last scrape.
metric() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/m.txt"; }
port=$(free_port)
# start_daemon N [FILE]: a daemon recording to FILE (d.rec), stderr to daemonN.err.
start_daemon() {
	timeout 120 "${pm[@]}" --daemon --listen "127.0.0.1:$port" -d 0.05 -w "$tmp/full/${2:-d.rec}" \
		2>"$tmp/daemon$1.err" &
	daemon=$!
	pids+=("$daemon")
	wait_http "http://127.0.0.1:$port/metrics" || fail "daemon $1 never answered"
}
start_daemon 1
# Wait (up to 20 s) for the disk to fill and the daemon to say so.
for _ in $(seq 200); do
	grep -q "failed after" "$tmp/daemon1.err" && break
	sleep 0.1
done
grep -q "recording to $tmp/full/d.rec failed after [0-9]* intervals: No space left on device; pmctop goes on" \
	"$tmp/daemon1.err" || fail "no line on the full disk: $(cat "$tmp/daemon1.err")"
sleep 1.5
ok=0
for _ in 1 2 3 4 5; do
	scrape -o "$tmp/m.txt" "http://127.0.0.1:$port/metrics" && ok=$((ok + 1))
	sleep 0.2
done
[ "$ok" -eq 5 ] || fail "the daemon answered $ok of 5 scrapes after the write error"
kill -0 "$daemon" 2>/dev/null || fail "the daemon stopped on the write error"
[ "$(metric pmctop_recording_ok)" = 0 ] || fail "pmctop_recording_ok is '$(metric pmctop_recording_ok)', not 0"
errs=$(metric pmctop_recording_errors_total)
[ "${errs:-0}" -ge 1 ] || fail "pmctop_recording_errors_total is '$errs'"
[ "$(grep -c "failed after" "$tmp/daemon1.err")" -eq 1 ] || fail "the failure was said more than once"
echo "full disk: $(stat -c %s "$tmp/full/d.rec") bytes written, $errs write errors by the last scrape, $ok of 5 scrapes answered"
# Room again: the next try writes.
mount -o remount,size=1m "$tmp/full"
for _ in $(seq 100); do
	grep -q "resumed" "$tmp/daemon1.err" && break
	sleep 0.1
done
grep -q "recording to $tmp/full/d.rec resumed; [0-9]* intervals were not recorded" "$tmp/daemon1.err" ||
	fail "not resumed with room: $(cat "$tmp/daemon1.err")"
sleep 0.3
scrape -o "$tmp/m.txt" "http://127.0.0.1:$port/metrics" || fail "scrape after resuming"
[ "$(metric pmctop_recording_ok)" = 1 ] || fail "pmctop_recording_ok is not 1 after resuming"
kill -TERM "$daemon"
wait "$daemon"
n1=$(count "$tmp/full/d.rec")
# A restart continues the file (as Restart=on-failure would), and fills it again.
start_daemon 2
sleep 1
kill -0 "$daemon" 2>/dev/null || fail "the restarted daemon stopped: $(cat "$tmp/daemon2.err")"
kill -TERM "$daemon"
wait "$daemon"
n2=$(count "$tmp/full/d.rec")
echo "restart: $n1 intervals after the first run, $n2 after the second"
[ "$n2" -gt "$n1" ] || fail "the restart did not continue the recording ($n1, then $n2 intervals)"
[ -s "$tmp/count.err" ] && fail "the recording does not replay whole: $(cat "$tmp/count.err")"
# A disk full before the first line: the daemon starts all the same (no
# restart loop), and the file starts when there is room.
rm -f "$tmp/full/d.rec"
mount -o remount,size=256k "$tmp/full" || fail "remount"
dd if=/dev/zero of="$tmp/full/filler" bs=4k count=64 2>/dev/null
start_daemon 3 e.rec
kill -0 "$daemon" 2>/dev/null || fail "a daemon on a full disk did not start: $(cat "$tmp/daemon3.err")"
sleep 0.5
scrape -o "$tmp/m.txt" "http://127.0.0.1:$port/metrics" || fail "scrape of a daemon started on a full disk"
[ "$(metric pmctop_recording_ok)" = 0 ] || fail "started on a full disk: pmctop_recording_ok is not 0"
grep -q "failed after 0 intervals" "$tmp/daemon3.err" || fail "started on a full disk: $(cat "$tmp/daemon3.err")"
rm -f "$tmp/full/filler"
for _ in $(seq 50); do
	grep -q "resumed" "$tmp/daemon3.err" && break
	sleep 0.1
done
sleep 0.3
kill -TERM "$daemon"
wait "$daemon"
n3=$(count "$tmp/full/e.rec")
echo "started on a full disk: $n3 intervals once there was room"
[ "$n3" -ge 1 ] && [ ! -s "$tmp/count.err" ] || fail "started on a full disk: $n3 intervals: $(cat "$tmp/count.err")"

[ "$fails" -eq 0 ] && echo "ok"
exit $((fails > 0))
