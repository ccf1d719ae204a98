#!/usr/bin/env bash
# golden_sources.sh DIR: writes into DIR the batch output (JSON, CSV,
# table) of every view of a few simulated models with fixed seeds, the
# same after a recording (-w) and from its replay (-r -b), the recording's
# text, and what each said on stderr, with the wall-clock times masked,
# so that two builds can be compared byte for byte (diff -r DIR1 DIR2).
# A tool for refactoring, not a test: it asserts nothing itself. Beside
# golden_outputs.sh (every view of every model, the exporter), this one
# covers the sources: replays, damaged recordings, stderr and exit codes.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
out=${1:?usage: golden_sources.sh DIR}
mkdir -p "$out"
pm=("$top_builddir/pmctop" --events-dir "$top_srcdir/events")
export PMCTOP_NO_CACHE=1
# Times of day, dates and epoch seconds with a fraction.
mask() {
	sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9:]+)?/<DATE>/g' \
		-e 's/[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?/<TIME>/g' \
		-e 's/1[0-9]{9}\.[0-9]+/<EPOCH>/g' -e 's/"(time|t|start|end)": ?[0-9.e+]+/"\1":<T>/g' |
		# The sampler's own measured cost, and so the compressed
		# size of a recording's records.
		sed -E -e 's/"cost_s": ?[0-9.e+-]+/"cost_s":<COST>/g' -e 's/at byte [0-9]+/at byte <N>/g'
}
run() { # NAME ARGS...: stdout and stderr of one run, masked, and its status
	local name=$1
	shift
	"${pm[@]}" "$@" >"$out/$name.raw" 2>"$out/$name.err.raw"
	echo "rc=$?" >"$out/$name.rc"
	mask <"$out/$name.raw" >"$out/$name.out"
	mask <"$out/$name.err.raw" | sed "s|$out/|<DIR>/|g" >"$out/$name.err"
	rm -f "$out/$name.raw" "$out/$name.err.raw"
}
for spec in zen5:1x2x8x2,seed=1 zen4:1x1x4x2,seed=2 spr:1x1x4x2,seed=3; do
	model=${spec%%:*}
	views=$("${pm[@]}" --sim "$spec" --list-views | awk '/^METRIC GROUP/{exit} /^[a-z]/{print $1}' | grep -v '^VIEW$')
	for v in $views; do
		for fmt in json csv table; do
			run "$model-$v-$fmt" --sim "$spec" -b -n 3 -d 0.05 --format "$fmt" -g "$v"
		done
	done
	# A recording and its replay, in each format; the recording's text.
	run "$model-rec-json" --sim "$spec" -b -n 4 -d 0.05 --format json -g topdown -w "$out/$model.rec"
	for fmt in json csv table; do
		run "$model-replay-$fmt" -r "$out/$model.rec" -b --format "$fmt"
		run "$model-replay-basic-$fmt" -r "$out/$model.rec" -b --format "$fmt" -g basic -n 2
	done
	zcat "$out/$model.rec" | mask >"$out/$model.rec.txt"
	rm -f "$out/$model.rec"
done
# A damaged recording: skipped intervals said, the rest replayed.
"${pm[@]}" --sim zen5:1x1x4x2,seed=4 -b -n 8 -d 0.05 --format json -w "$out/d.rec" >/dev/null 2>&1
python3 - "$out/d.rec" "$out/dam.rec" <<'PYEOF'
# The real intervals, then eight members that list but do not inflate.
import struct, sys
data = open(sys.argv[1], "rb").read()
head = b"\x1f\x8b\x08\x04\0\0\0\0\0\x03" + struct.pack("<H", 20) + b"PM\x10\x00"
fake = (head + struct.pack("<QQ", 40, 1000) + b"\xff" * 8) * 8
open(sys.argv[2], "wb").write(data + fake)
# The header alone, then only damaged intervals: nothing can be read.
first = struct.unpack("<Q", data[16:24])[0]
open(sys.argv[2] + "2", "wb").write(data[:first] + fake)
PYEOF
rm -f "$out/d.rec"
run damaged-json -r "$out/dam.rec" -b --format json
run damaged-metric -r "$out/dam.rec" -b --format csv -g memory
run damaged-all -r "$out/dam.rec2" -b --format table
run damaged-all-n -r "$out/dam.rec2" -b --format table -n 2
rm -f "$out/dam.rec" "$out/dam.rec2"
ls "$out" | wc -l
