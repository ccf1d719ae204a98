#!/usr/bin/env bash
# golden_outputs.sh: every output pmctop writes, from a fixed simulated
# workload, into one directory, so that a change meant to keep them can be
# checked byte for byte (diff -r of two runs). Times (the wall clock in
# each interval's header, JSON "time", the CSV's first field, the
# recording's and the exporter's clocks, the sampler's cost, the temporary
# directory) are masked; the simulated counts
# are the same from run to run.
#
#   tests/golden_outputs.sh OUTDIR [PMCTOP] [PERF_EVENTS_DIR]
#
# It writes batch JSON, CSV and table of every view (--list-views) of every
# hand-written model (--list-models) and of three imported ones (Ice Lake
# server, Zen 2, Neoverse V1: --perf-events, skipped without the directory),
# a recording of the basic view and its replay in every format, and a
# scrape of the exporter at CPU and at CCX scope (its series, their labels
# and which values are NaN: the daemon's figures follow the real clock).
# A developer's tool (not in TESTS): each run lasts its 3 s (the
# simulator's intervals take their time), the models side by side; a
# whole run takes a few minutes.
set -u
out=${1:?usage: golden_outputs.sh OUTDIR [PMCTOP] [PERF_EVENTS_DIR]}
pmctop=${2:-./pmctop}
perfdir=${3:-/tmp/perfarch}
export PMCTOP_NO_CACHE=1
mkdir -p "$out"
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
# -d 1 on the simulator: enough rotation windows per interval for every
# error to be stated (the simulated clock does not sleep).
run_args=(-b -n 3 -d 1 --no-config)

mask() {
	sed -E -e 's/^# [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}/# HH:MM:SS.mmm/' \
		-e 's/"time":[0-9.e+-]+/"time":T/g' \
		-e 's/^[0-9]{9,}\.[0-9]+,/T,/' \
		-e 's/"(sampler_cost_s|cost_s)":[0-9.e+-]+/"\1":C/g' -e "s|$tmp|TMP|g"
}

# The views of a model: the first word of each line before the metric groups.
views() {
	"$pmctop" "$@" --list-views 2>/dev/null | awk '/^METRIC GROUP/ { exit } NR > 1 && /^[a-z]/ { print $1 }'
}

one_model() {
	local tag=$1
	shift
	local v f
	for v in $(views "$@"); do
		for f in json csv table; do
			"$pmctop" "$@" "${run_args[@]}" -g "$v" --format "$f" 2>"$tmp/err.$tag" | mask >"$out/$tag.$v.$f"
			echo "exit $? $(mask <"$tmp/err.$tag")" >>"$out/$tag.$v.$f"
		done
	done
}

for m in $("$pmctop" --list-models 2>/dev/null | awk 'NR > 1 && /^[a-z]/ { print $2 != "-" ? $2 : $1 }'); do
	one_model "$m" --sim "$m" &
done
if [ -d "$perfdir" ]; then
	for m in icx zen2 v1; do
		one_model "perf-$m" --perf-events "$perfdir" --sim "$m" &
	done
fi

# A recording and its replay.
"$pmctop" --sim zen5 "${run_args[@]}" -g basic -e ex_ret_instr --format json -w "$tmp/a.rec" 2>&1 | mask \
	>"$out/record.live.json"
for f in json csv table; do
	"$pmctop" -r "$tmp/a.rec" -b --no-config --format "$f" 2>&1 | mask >"$out/record.replay.$f"
	"$pmctop" -r "$tmp/a.rec" -b --no-config -g topdown --format "$f" 2>&1 | mask >"$out/record.replay-topdown.$f"
done
zcat "$tmp/a.rec" | sed -E -e 's/"(time|t|start|wall|ts)":[0-9.e+-]+/"\1":T/g' | mask >"$out/record.file"

# The exporter: the daemon on the simulator runs in real time, so its
# figures vary with each interval's length; kept are the series, their
# labels and whether each value is a number or NaN (an error not known
# shows as NaN).
if command -v curl >/dev/null; then
	for scope in cpu ccx; do
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
		"$pmctop" --sim zen5 --daemon -d 0.3 --no-config --listen "127.0.0.1:$port" --export-scope "$scope" \
			>"$tmp/x.out" 2>&1 &
		pid=$!
		pids+=("$pid")
		got=
		sleep 1.5
		for _ in $(seq 100); do
			curl -sf --max-time 5 -o "$tmp/m.txt" "http://127.0.0.1:$port/metrics" && got=1 && break
			sleep 0.1
		done
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		[ -n "$got" ] || echo "no scrape at scope $scope" >&2
		grep -v '^#' "$tmp/m.txt" | grep -v -E '^pmctop_(sampler|scrape|process|build|info|exporter|interval|last|recording)' |
			sed -E -e 's/ [-+]?[0-9][0-9.e+-]*$/ N/' -e 's/ [-+]?Inf$/ Inf/' | sort >"$out/export.$scope.txt"
	done
fi
wait
echo "$(find "$out" -type f | wc -l) files in $out"
