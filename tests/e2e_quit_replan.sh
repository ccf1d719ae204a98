#!/bin/sh
# e2e_quit_replan.sh: q ends the dashboard at once while the sampler's
# thread has a large plan to close. On 1,024 simulated CPUs the detail
# pane's "a" measures every metric (some 25 groups on each CPU: coverage
# 4 %); closing the pane re-plans, and q right after it waits for the
# sampler's thread (sampler_stop joins it), which closes every group of
# that plan, or else sampler_free does. The simulator unlinked each closed
# group by walking its list of open groups from the newest while the
# sampler closes the oldest first: quadratic, 20 to 30 s for this plan, and
# the key fuzz (e2e_keyfuzz.sh) failed so now and then: "q did not end
# pmctop", its main thread in pthread_join and the other in sim_close.
# q must end it within quit_ok's 10 s. Exits 77 (skip) without tmux or --sim.
set -u
top_srcdir=${top_srcdir:-.}
E2E_NAME=quit_replan
E2E_NEEDS_SIM=1
. "$top_srcdir/tests/e2e_tmux.sh"

start 160 50 "--sim zen5:4x16x8x2 -d 0.2"
expect 'SIMULATED' "dashboard on 1024 simulated CPUs"
press Enter
expect 'a: measure every metric' "detail pane open"
press a
# The plan of every metric is open once an interval of it is shown.
expect 'min cov [0-9]%  ' "every metric measured (a coverage under 10 %)"
# q closes the pane (a re-plan to the view's metrics), the second quits.
press q
quit_ok "q while the plan of every metric is closed"

[ $fails -eq 0 ] && echo "PASS" && exit 0
exit 1
