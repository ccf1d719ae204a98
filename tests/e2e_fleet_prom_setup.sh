# e2e_fleet_prom_setup.sh: what the fleet's tests with a real Prometheus
# share (e2e_fleet_young.sh, e2e_fleet_drill_prom.sh), sourced: a skip
# (77) without prometheus, e2e_loopback.sh's helpers (and its skips), a
# skip without libcurl in pmctop, and the definitions' directory $events,
# named on the command line (as root PMCTOP_EVENTS_DIR is ignored, with a
# warning).
command -v prometheus >/dev/null || { echo "SKIP: prometheus not installed"; exit 77; }
. "${top_srcdir:-.}/tests/e2e_loopback.sh"
"$pmctop" --fleet 127.0.0.1:1 -b -n 1 2>&1 | grep -q 'built without it' && { echo "SKIP: pmctop without libcurl"; exit 77; }
unset PMCTOP_EVENTS_DIR
events=$(cd "$top_srcdir/events" && pwd)
