# e2e_fleet_tmux.sh: what the fleet dashboard's tmux tests share, sourced
# after E2E_NAME is set: e2e_tmux.sh's terminal, a skip (77) without
# python3 or without libcurl in pmctop, the definitions' directory
# ($events), free_port (a loopback port the kernel has just found free) and
# start_exporters (simulated exporters on such ports).
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
"$PMCTOP" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }
events=$(cd "$top_srcdir/events" && pwd)

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_exporters SECONDS "OPTIONS" SIM...: a simulated exporter of each
# SIM (--sim's argument) on a free loopback port, run with OPTIONS and
# killed at exit or after SECONDS; sets $list (their HOST:PORTs, in order),
# port_N (the Nth one's port) and port_MODEL (the last of each model's).
start_exporters() {
	secs=$1 opts=$2
	shift 2
	exporters= list= n=0
	for sim in "$@"; do
		n=$((n + 1))
		port=$(free_port)
		# shellcheck disable=SC2086 # OPTIONS are words
		timeout "$secs" "$PMCTOP" --events-dir "$events" --sim "$sim" --daemon -d 0.3 $opts \
			--listen "127.0.0.1:$port" 2>/dev/null &
		exporters="$exporters $!"
		eval "port_$n=$port port_${sim%%:*}=$port"
		list="$list${list:+,}127.0.0.1:$port"
	done
	trap 'kill $exporters 2>/dev/null; cleanup' EXIT INT TERM
	sleep 0.8
}
