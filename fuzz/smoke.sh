#!/bin/sh
# smoke.sh FUZZDIR SECONDS HARNESS...: runs each libFuzzer harness for
# SECONDS from its seeds (FUZZDIR/seeds/NAME, NAME the harness without
# "fuzz_"), in a temporary corpus and artifact directory that is removed
# afterwards, so that a run leaves no files behind. Fails if any harness
# finds something, after showing its report. FUZZ_JOBS harnesses run at a
# time (default: the online CPUs), since each fuzzes on one CPU for its
# SECONDS whatever else runs; their lines come out in the order given.
set -u
fuzzdir=$1; secs=$2; shift 2
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmctop-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# The I-th harness H: its summary line (or its report) in $tmp/I.out, and
# a file $tmp/I.found if it found something.
one() {
	i=$1 h=$2
	name=$(basename "$h"); name=${name#fuzz_}
	mkdir -p "$tmp/$name" "$tmp/$name.art"
	cp "$fuzzdir/seeds/$name"/* "$tmp/$name/" 2>/dev/null
	dict=
	[ -f "$fuzzdir/$name.dict" ] && dict="-dict=$fuzzdir/$name.dict"
	# shellcheck disable=SC2086
	if "$h" $dict -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-artifact_prefix="$tmp/$name.art/" -print_final_stats=1 "$tmp/$name" >"$tmp/$name.log" 2>&1; then
		echo "$name: $(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log") executions in ${secs} s, nothing found" >"$tmp/$i.out"
	else
		{ echo "$name: FOUND something"; tail -n 40 "$tmp/$name.log"; } >"$tmp/$i.out"
		: >"$tmp/$i.found"
	fi
}

# In batches of $jobs: POSIX sh has no way to wait for any one child.
i=0
for h in "$@"; do
	i=$((i + 1))
	one "$i" "$h" &
	[ $((i % jobs)) -ne 0 ] || wait
done
wait
rc=0
i=0
while [ "$i" -lt $# ]; do
	i=$((i + 1))
	cat "$tmp/$i.out"
	[ ! -e "$tmp/$i.found" ] || rc=1
done
exit $rc
