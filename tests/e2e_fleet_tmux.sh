# e2e_fleet_tmux.sh: what the fleet dashboard's tmux tests share, sourced
# after E2E_NAME is set: e2e_tmux.sh's terminal, a skip (77) without
# python3 or without libcurl in pmctop, the definitions' directory
# ($events) and free_port (a loopback port the kernel has just found free).
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
"$PMCTOP" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }
events=$(cd "$top_srcdir/events" && pwd)

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
