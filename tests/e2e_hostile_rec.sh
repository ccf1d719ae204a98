#!/usr/bin/env bash
# e2e_hostile_rec.sh: recordings made to exhaust memory. A real header
# line, then one gzip member (with the "PM" field, as the recorder writes
# it) of a few hundred kilobytes that inflates to hundreds of megabytes of
# JSON whose tree would cost jansson tens of gigabytes: `pmctop -r FILE
# -b` must end with a clear error naming the interval, under 200 MB of RSS.
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

# craft OUT PREFIX UNIT COUNT SUFFIX: the real recording's first member,
# then a member holding PREFIX, COUNT times UNIT and SUFFIX.
craft() {
	python3 - "$dir/real.rec" "$@" <<'EOF'
import struct, sys, zlib
real, out, prefix, unit, count, suffix = sys.argv[1:7]
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
chunk = unit.encode() * 65536
n = int(count)
while n >= 65536:
    feed(chunk)
    n -= 65536
feed(unit.encode() * n)
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
craft "$dir/fewobj.rec" '{"seq":1,"x":[' '{},' 300000 '{}]}'
run fewobj "$dir/fewobj.rec"
grep -q "arrays and objects" "$dir/fewobj.err" || fail "fewobj: $(cat "$dir/fewobj.err")"
craft "$dir/fewones.rec" '[' '1,' 2000000 '1]'
run fewones "$dir/fewones.rec"
grep -q "values" "$dir/fewones.err" || fail "fewones: $(cat "$dir/fewones.err")"
craft "$dir/deep.rec" '' '[' 100000 ''
run deep "$dir/deep.rec"
grep -q "nest more than" "$dir/deep.err" || fail "deep: $(cat "$dir/deep.err")"

[ "$fails" -eq 0 ] && echo "ok"
exit $((fails > 0))
