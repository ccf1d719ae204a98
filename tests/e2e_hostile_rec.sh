#!/usr/bin/env bash
# e2e_hostile_rec.sh: recordings made to exhaust memory. A real header
# line, then one gzip member (with the "PM" field, as the recorder writes
# it) of a few hundred kilobytes that inflates to hundreds of megabytes of
# JSON whose tree would cost jansson tens of gigabytes: `pmctop -r FILE
# -b` must end with a clear error naming the interval, under 200 MB of RSS.
# Then files that cost time (members of spaces, gzip magic, fake members)
# and negative figures, refused with their column.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
pm=("$top_builddir/pmctop" --events-dir "$top_srcdir/events")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to build the files"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: /usr/bin/time is needed to measure memory"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/pmctop-hostile.XXXXXX")
trap 'rm -rf "$dir"' EXIT

"${pm[@]}" --sim zen5 -b -n 1 -d 0.05 -w "$dir/real.rec" >/dev/null || fail "recording exited $?"
# Two intervals of several rounds: the second holds each group's last
# window of the first ("lead", "pv", "pr"), and each its window of the
# tail round ("trail", "tv", "tr").
"${pm[@]}" --sim zen5 -b -n 2 -d 0.5 -w "$dir/real2.rec" >/dev/null || fail "recording exited $?"

# craft OUT PREFIX UNIT COUNT SUFFIX [spread]: the real recording's first
# member, then a member holding PREFIX, COUNT times UNIT and SUFFIX. With
# "spread", each UNIT is followed by random blanks, so that the member
# inflates under 64 times its size and reaches the parser's bounds.
craft() {
	python3 - "$dir/real.rec" "$@" <<'EOF'
import struct, sys, zlib
import random
real, out, prefix, unit, count, suffix = sys.argv[1:7]
spread = len(sys.argv) > 7
data = open(real, "rb").read()
first = struct.unpack("<Q", data[16:24])[0]       # the "PM" field's length
comp = zlib.compressobj(9, zlib.DEFLATED, -15)
crc, size, body = 0, 0, []
def feed(b):
    global crc, size
    crc = zlib.crc32(b, crc)
    size += len(b)
    body.append(comp.compress(b))
feed(prefix.encode())
rnd = random.Random(1)
def units(k):
    if not spread:
        return unit.encode() * k
    return "".join(unit + rnd.choice((" ", "\t", "\r", "  ", " \t")) for _ in range(k)).encode()
chunk = units(65536)
n = int(count)
while n >= 65536:
    feed(chunk)
    n -= 65536
feed(units(n))
feed(suffix.encode())
body.append(comp.flush())
deflated = b"".join(body)
length = 12 + 20 + len(deflated) + 8
head = b"\x1f\x8b\x08\x04" + b"\0\0\0\0" + b"\0\x03" + struct.pack("<H", 20) + b"PM\x10\x00"
head += struct.pack("<QQ", length, 1000)
with open(out, "wb") as f:
    f.write(data[:first] + head + deflated + struct.pack("<II", crc, size & 0xffffffff))
EOF
}

# run NAME FILE: replays FILE, which must fail with a message naming the
# interval, in under 200 MB.
run() {
	/usr/bin/time -f '%M' -o "$dir/$1.rss" "${pm[@]}" -r "$2" -b >/dev/null 2>"$dir/$1.err"
	rc=$?
	rss=$(tail -n 1 "$dir/$1.rss")
	echo "$1: $(stat -c %s "$2") bytes, exit $rc, max RSS ${rss} KB: $(head -c 300 "$dir/$1.err")"
	[ "$rc" -eq 1 ] || fail "$1: exit $rc, not 1"
	[ "$rss" -lt 204800 ] || fail "$1: max RSS $rss KB, not under 200 MB"
	grep -q "interval 1 (byte [0-9]*):" "$dir/$1.err" || fail "$1: the error does not name the interval"
}

# 1. {"seq":1,"x":[{},{},...]}: 480 MB inflated (the review's 505 KB file).
craft "$dir/objects.rec" '{"seq":1,"x":[' '{},' 160000000 '{}]}'
run objects "$dir/objects.rec"
grep -q "inflates to more than" "$dir/objects.err" || fail "objects: $(cat "$dir/objects.err")"
# 2. [1,1,...]: 400 MB inflated.
craft "$dir/ones.rec" '[' '1,' 200000000 '1]'
run ones "$dir/ones.rec"
# 3. Small enough in bytes, but a tree of too many objects and values.
craft "$dir/fewobj.rec" '{"seq":1,"x":[' '{},' 300000 '{}]}' spread
run fewobj "$dir/fewobj.rec"
grep -q "arrays and objects" "$dir/fewobj.err" || fail "fewobj: $(cat "$dir/fewobj.err")"
craft "$dir/fewones.rec" '[' '1,' 2000000 '1]' spread
run fewones "$dir/fewones.rec"
grep -q "values" "$dir/fewones.err" || fail "fewones: $(cat "$dir/fewones.err")"
craft "$dir/deep.rec" '' '[' 100000 '' spread
run deep "$dir/deep.rec"
grep -q "nest more than" "$dir/deep.err" || fail "deep: $(cat "$dir/deep.err")"

# Files that cost time rather than memory: the whole file must be read in
# bounded CPU time, saying its damage in a bounded number of lines.
# many KIND OUT: the real first line, then KIND's bytes.
many() {
	python3 - "$dir/real.rec" "$@" <<'EOF'
import re, struct, sys, zlib
real, kind, out = sys.argv[1:4]
data = open(real, "rb").read()
first = struct.unpack("<Q", data[16:24])[0]
head = b"\x1f\x8b\x08\x04\0\0\0\0\0\x03" + struct.pack("<H", 20) + b"PM\x10\x00"
def member(payload, stamp=1000):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    d = c.compress(payload) + c.flush()
    trailer = struct.pack("<II", zlib.crc32(payload), len(payload) & 0xffffffff)
    return head + struct.pack("<QQ", 40 + len(d), stamp) + d + trailer
with open(out, "wb") as f:
    f.write(data[:first])
    if kind == "spaces":        # 200 members of 22.5 MB of spaces each
        f.write(member(b" " * 22500000) * 200)
    elif kind == "magic":       # 3 MB of gzip magic bytes
        f.write(b"\x1f\x8b\x08" * 1000000)
    elif kind == "fake":        # 2 M members that list but do not inflate
        f.write((head + struct.pack("<QQ", 40, 1000) + b"\xff" * 8) * 2000000)
    elif kind.startswith("negative-"):   # the first interval, a figure made negative
        second = struct.unpack("<Q", data[first + 16:first + 24])[0]
        line = zlib.decompress(data[first:first + second], 31).decode()
        key = kind[len("negative-"):]
        line = re.sub(r'"%s":\[(\d+)' % key,
                      lambda m: '"%s":[-%s' % (key, m.group(1) if m.group(1) != "0" else "7"), line, count=1)
        f.write(member(line.encode()))
    elif kind.startswith("second-"):     # real2.rec, one figure of its first line with "lead" (or "trail") changed
        data = open(real.replace("real.rec", "real2.rec"), "rb").read()
        key = kind[len("second-"):]
        share = "trail" if key in ("trail", "tv", "tr") else "lead"
        at = struct.unpack("<Q", data[16:24])[0]
        while True:
            size = struct.unpack("<Q", data[at + 16:at + 24])[0]
            line = zlib.decompress(data[at:at + size], 31).decode()
            if '"pv"' in line and '"tv"' in line:   # both edge windows ("lead" is in every line)
                break
            at += size
        if key == share:
            line, n = re.subn(r'"%s":[0-9.e-]+' % key, '"%s":2' % key, line, count=1)
        else:
            line, n = re.subn(r'"%s":\[(\d+)' % key,
                              lambda m: '"%s":[-%s' % (key, m.group(1) if m.group(1) != "0" else "7"), line, count=1)
        assert n == 1, "no %s in the second interval" % key
        f.seek(0)
        f.truncate()
        f.write(data[:at])
        f.write(member(line.encode()))
        f.write(data[at + size:])
EOF
}

# slow NAME MAXCPU: replays $dir/NAME.rec; at most MAXCPU seconds of CPU
# (four times that in sanitized runs, PMCTOP_NO_TIMING) and 10 lines on
# stderr.
slack=1
[ -n "${PMCTOP_NO_TIMING:-}" ] && slack=4
slow() {
	/usr/bin/time -f '%U %S' -o "$dir/$1.cpu" "${pm[@]}" -r "$dir/$1.rec" -b >/dev/null 2>"$dir/$1.err"
	rc=$?
	cpu=$(tail -n 1 "$dir/$1.cpu" | awk '{ printf "%.2f", $1 + $2 }')
	lines=$(wc -l < "$dir/$1.err")
	echo "$1: $(stat -c %s "$dir/$1.rec") bytes, exit $rc, CPU ${cpu} s, $lines lines on stderr"
	[ "$rc" -eq 1 ] || fail "$1: exit $rc, not 1"
	awk -v c="$cpu" -v m="$(($2 * slack))" 'BEGIN { exit !(c < m) }' ||
		fail "$1: $cpu s of CPU, not under $(($2 * slack)) s"
	[ "$lines" -le 10 ] || fail "$1: $lines lines on stderr, not 10 at most"
}
# Before: 32.9 s (every member inflated to 22.5 MB and parsed), 4.9 s (a
# 64 KB read per magic match), 10.3 s and 2 M lines. Bounds generous for
# sanitizers and a loaded machine.
many spaces "$dir/spaces.rec"
slow spaces 15
grep -q "inflates to more than 64 times" "$dir/spaces.err" || fail "spaces: $(head -c 300 "$dir/spaces.err")"
grep -q "195 more damaged intervals were skipped" "$dir/spaces.err" || fail "spaces: no count of the rest"
many magic "$dir/magic.rec"
slow magic 3
many fake "$dir/fake.rec"
slow fake 40
grep -q "1999995 more damaged intervals" "$dir/fake.err" || fail "fake: no count of the rest"

# Counts and running times are never negative: refused with the column.
for key in v r bv br; do
	many "negative-$key" "$dir/neg-$key.rec"
	"${pm[@]}" -r "$dir/neg-$key.rec" -b >/dev/null 2>"$dir/neg-$key.err"
	rc=$?
	echo "negative $key: exit $rc: $(head -c 300 "$dir/neg-$key.err")"
	[ "$rc" -eq 1 ] || fail "negative $key: exit $rc, not 1"
	grep -q "\"$key\" holds -[0-9.]* as the .* never negative" "$dir/neg-$key.err" ||
		fail "negative $key: the column is not named"
done

# The last window of the interval before and the window of the tail
# round: the same for their counts and running times, and a "lead" or
# "trail" that is no share of the interval. The interval is skipped, the
# others replayed.
for key in pv pr lead tv tr trail; do
	many "second-$key" "$dir/second-$key.rec"
	"${pm[@]}" -r "$dir/second-$key.rec" -b >/dev/null 2>"$dir/second-$key.err"
	rc=$?
	echo "second interval's $key: exit $rc: $(head -c 300 "$dir/second-$key.err")"
	[ "$rc" -le 1 ] || fail "second interval's $key: exit $rc"
	if [ "$key" = lead ] || [ "$key" = trail ]; then
		grep -q "interval [0-9]* (byte [0-9]*): group [0-9]*: \"$key\" is not a share of the interval .*; skipped" \
			"$dir/second-$key.err" || fail "$key: the error does not say what is wrong"
	else
		grep -q "interval [0-9]* (byte [0-9]*): group [0-9]*: \"$key\" holds -[0-9.]* as the .* never negative; skipped" \
			"$dir/second-$key.err" || fail "second interval's $key: the column is not named"
	fi
done

[ "$fails" -eq 0 ] && echo "ok"
exit $((fails > 0))
