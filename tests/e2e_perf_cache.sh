#!/bin/sh
# e2e_perf_cache.sh: the model cache (src/perf_cache.c) through the pmctop
# binary, on a copy of the small perf fixtures (tests/fixtures/perf-arch)
# whose times lie in the past (an input changed in the last 2 s is not
# cached from). For each imported model, what the program shows of it
# (every event's encoding, every metric's formula, the views) and a
# recorded run replayed as JSON are the same without the cache
# (PMCTOP_NO_CACHE=1), when the cache is written and when it is read; a
# cache file cut short or writable by the group is not used; a changed
# input file is read again.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
pmctop=$top_builddir/pmctop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

cp -r "$top_srcdir/tests/fixtures/perf-arch" "$tmp/arch" || fail "copying the fixtures"
find "$tmp/arch" -exec touch -d '1 hour ago' {} + || fail "touch -d"
sleep 3   # the copies' ctimes, which cannot be set back
unset PMCTOP_NO_CACHE
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
P="$pmctop --events-dir $top_srcdir/events --perf-events $tmp/arch --no-config"

# Everything the program shows of model $1.
show() {
	$P --model "$1" --list-events && $P --model "$1" --list-metrics --raw && $P --model "$1" --list-views
}
files() { ls "$tmp/cache/pmctop/$1"-*.model 2>/dev/null; }

for m in perf-testlake perf-testverse; do
	PMCTOP_NO_CACHE=1 show $m >"$tmp/$m.fresh" 2>&1 || fail "$m: listing without the cache"
	[ -z "$(files $m)" ] || fail "$m: PMCTOP_NO_CACHE=1 wrote a cache"
	show $m >"$tmp/$m.first" 2>&1 || fail "$m: listing, cache written"
	[ -n "$(files $m)" ] || fail "$m: no cache written in $tmp/cache/pmctop"
	[ "$(stat -c %a $(files $m))" = 600 ] || fail "$m: cache file not mode 600"
	show $m >"$tmp/$m.cached" 2>&1 || fail "$m: listing from the cache"
	cmp "$tmp/$m.fresh" "$tmp/$m.first" || fail "$m: the model differs when the cache is written"
	cmp "$tmp/$m.fresh" "$tmp/$m.cached" || fail "$m: the model read from the cache differs"

	# A recording replayed loads the model by name (another cache file:
	# its machine parameters are the recording's; the simulated run's are
	# the simulated topology's, a third).
	$P --sim $m -b -n 2 -d 0.1 -w "$tmp/$m.rec" -o /dev/null 2>/dev/null || fail "$m: recording"
	PMCTOP_NO_CACHE=1 $P -r "$tmp/$m.rec" -b --format json >"$tmp/$m.r0" 2>&1 || fail "$m: replay"
	$P -r "$tmp/$m.rec" -b --format json >"$tmp/$m.r1" 2>&1 || fail "$m: replay, cache written"
	$P -r "$tmp/$m.rec" -b --format json >"$tmp/$m.r2" 2>&1 || fail "$m: replay from the cache"
	cmp "$tmp/$m.r0" "$tmp/$m.r1" && cmp "$tmp/$m.r0" "$tmp/$m.r2" || fail "$m: replays differ"

	# Cut short (a new file, mode 644 under umask 022): imported again.
	for f in $(files $m); do
		head -c 1000 "$f" >"$f.cut" && rm "$f" && mv "$f.cut" "$f"
	done
	show $m >"$tmp/$m.cut" 2>&1 || fail "$m: listing with a cache cut short"
	cmp "$tmp/$m.fresh" "$tmp/$m.cut" || fail "$m: a cache cut short changed the model"
	$P -r "$tmp/$m.rec" -b --format json >"$tmp/$m.r3" 2>&1 || fail "$m: replay with a cache cut short"
	cmp "$tmp/$m.r0" "$tmp/$m.r3" || fail "$m: a cache cut short changed the replay"
	# Writable by the group: not trusted, imported again and replaced.
	chmod g+w $(files $m)
	show $m >"$tmp/$m.gw" 2>&1 || fail "$m: listing with a group-writable cache"
	cmp "$tmp/$m.fresh" "$tmp/$m.gw" || fail "$m: a group-writable cache changed the model"
	$P -r "$tmp/$m.rec" -b --format json >"$tmp/$m.r4" 2>&1 || fail "$m: replay with a group-writable cache"
	cmp "$tmp/$m.r0" "$tmp/$m.r4" || fail "$m: a group-writable cache changed the replay"
	$P --sim $m -b -n 1 -d 0.1 -o /dev/null 2>/dev/null || fail "$m: simulated run"
	for f in $(files $m); do
		[ "$(stat -c %a "$f")" = 600 ] || fail "$m: $f not replaced"
	done
done

# A changed input is read again, not taken from the stale cache.
show perf-testlake >/dev/null 2>&1
sed -i 's/"Instructions retired"/"Instructions retired, changed"/' "$tmp/arch/x86/testlake/pipeline.json"
touch -d '1 hour ago' "$tmp/arch/x86/testlake/pipeline.json"
show perf-testlake 2>&1 | grep -q "Instructions retired, changed" || fail "a stale cache was used"
echo "PASS: model cache"
