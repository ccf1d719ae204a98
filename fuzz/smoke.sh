#!/bin/sh
# smoke.sh FUZZDIR SECONDS HARNESS...: runs each libFuzzer harness for
# SECONDS from its seeds (FUZZDIR/seeds/NAME, NAME the harness without
# "fuzz_"), in a temporary corpus and artifact directory that is removed
# afterwards, so that a run leaves no files behind. Fails on the first
# harness that finds something, after showing its report.
set -u
fuzzdir=$1; secs=$2; shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmctop-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
rc=0
for h in "$@"; do
	name=$(basename "$h"); name=${name#fuzz_}
	mkdir -p "$tmp/$name"
	cp "$fuzzdir/seeds/$name"/* "$tmp/$name/" 2>/dev/null
	dict=
	[ -f "$fuzzdir/$name.dict" ] && dict="-dict=$fuzzdir/$name.dict"
	# shellcheck disable=SC2086
	if "$h" $dict -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-artifact_prefix="$tmp/" -print_final_stats=1 "$tmp/$name" >"$tmp/log" 2>&1; then
		echo "$name: $(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log") executions in ${secs} s, nothing found"
	else
		echo "$name: FOUND something"; tail -n 40 "$tmp/log"; rc=1
	fi
done
exit $rc
