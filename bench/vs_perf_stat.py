#!/usr/bin/env python3
"""vs_perf_stat.py: pmctop's own CPU time beside perf stat's, counting the
same software events on the same machine (docs/performance.md).

  bench/vs_perf_stat.py [-r ROUNDS] [-d SECS] [-n N] [PMCTOP...]
  bench/vs_perf_stat.py --startup [-r ROUNDS] [PMCTOP...] [-- ARGS...]

The first form runs, ROUNDS times in turn, each PMCTOP binary (default
./pmctop) as `PMCTOP -b -d SECS -n N -o FILE` and `perf stat -a -A -I MS
-e task-clock,context-switches,cpu-migrations,page-faults -o FILE sleep T`
over the same span, and prints each one's median user+system CPU time (of
the child, from wait4's rusage: microseconds, where /usr/bin/time rounds
to 10 ms) and pmctop's ratio to perf stat's median. The runs alternate so
that a load that comes and goes on a shared machine falls on all of them;
perf stat runs once a round, before the others.

A PMCTOP that is the floor (bench/floor_vs_perf_stat) is the base of the
ones after it, up to the next floor: each of those lines also says its
median over the floor's (the target of docs/performance.md), and the
median of its ratios to the floor run just before it in the same round,
which a host that slows every program for minutes at a time moves less.
Each round's figures go to stderr as it ends.

A PMCTOP may carry arguments of its own, quoted as one word, such as
'bench/floor_vs_perf_stat -x s' (the kernel's floor under an interval,
without its /proc/stat read).

--startup times a one-interval batch run (`-b -n 1 -d 0.01 -o /dev/null`,
plus ARGS such as `--model generic` or `--model perf-rocketlake`): nearly
all of it is start-up. Needs root for the real counters (software events
and /proc/stat work in a VM without a PMU).
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def is_floor(p):
    """Whether the program is the kernel's floor (the base of the ones after it)."""
    return os.path.basename(shlex.split(p)[0]) == "floor_vs_perf_stat"


def cpu_of(argv):
    """User+system seconds of one run of argv (its own, from wait4)."""
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("vs_perf_stat: %s exited with %d" % (" ".join(argv), p.returncode))
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--rounds", type=int, default=5)
    ap.add_argument("-d", "--delay", type=float, default=0.1)
    ap.add_argument("-n", "--iterations", type=int, default=100)
    ap.add_argument("--startup", action="store_true")
    ap.add_argument("pmctop", nargs="*", default=["./pmctop"])
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if not args.pmctop:
        args.pmctop = ["./pmctop"]
    out = tempfile.mkdtemp(prefix="vs_perf_stat.")
    times = {p: [] for p in args.pmctop}
    perf = []
    span = args.delay * args.iterations
    perf_argv = ["perf", "stat", "-a", "-A", "-I", str(int(round(args.delay * 1000))),
                 "-e", "task-clock,context-switches,cpu-migrations,page-faults",
                 "-o", os.path.join(out, "perf.txt"), "sleep", "%g" % span]
    for r in range(args.rounds):
        if not args.startup:
            perf.append(cpu_of(perf_argv))
        for k, p in enumerate(args.pmctop):
            own = shlex.split(p)
            if args.startup:
                argv = own[:1] + ["-b", "-n", "1", "-d", "0.01", "-o", os.devnull] + own[1:] + extra
            else:
                argv = own[:1] + ["-b", "-d", "%g" % args.delay, "-n", str(args.iterations),
                                  "-o", os.path.join(out, "out%d.txt" % k)] + own[1:] + extra
            times[p].append(cpu_of(argv))
        each = (["perf stat %.4f" % perf[-1]] if perf else []) + ["%.4f" % times[p][-1] for p in args.pmctop]
        print("round %d: %s" % (r + 1, "  ".join(each)), file=sys.stderr, flush=True)
    what = "one-interval run" if args.startup else "%d intervals of %g s" % (args.iterations, args.delay)
    print("# CPU time (user+system), median of %d, %s" % (args.rounds, what))
    pm = statistics.median(perf) if perf else None
    if pm is not None:
        print("%-22s %8.4f s   (min %.4f, max %.4f)" % ("perf stat", pm, min(perf), max(perf)))
    base = None
    for p in args.pmctop:
        if is_floor(p):
            base = p
        m = statistics.median(times[p])
        own = shlex.split(p)
        name = os.path.basename(os.path.dirname(os.path.abspath(own[0]))) + "/" + os.path.basename(own[0])
        line = "%-22s %8.4f s   (min %.4f, max %.4f)" % (" ".join([name] + own[1:]), m, min(times[p]), max(times[p]))
        if pm:
            line += "   %.2fx perf stat" % (m / pm)
        if base is not None and base != p:
            fm = statistics.median(times[base])
            per_round = [t / f for t, f in zip(times[p], times[base]) if f > 0]
            line += "   %.2fx the floor (rounds: median %.2fx)" % (m / fm, statistics.median(per_round))
        print(line)


if __name__ == "__main__":
    main()
