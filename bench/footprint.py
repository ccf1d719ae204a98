#!/usr/bin/env python3
"""footprint.py: the cache lines and pages one batch interval of pmctop
touches, code and data, and the functions that touch them
(docs/performance.md, "Cold caches").

Why: an interval of 0.1 s runs after a sleep, with its caches and TLBs
cold, so on this kind of machine what it costs follows the number of
distinct cache lines and pages it touches more than its instructions.
Instructions say what work there is; this says what that work drags in.

It runs `PMCTOP -b -d 0.01 -n N -o FILE ARGS` under valgrind's lackey
(every instruction fetch and data access, deterministic), cuts the trace
at each entry to sampler_run_interval (one per interval), and prints, for
the median interval after the first few: instructions, distinct 64-byte
lines and 4 KiB pages of code and of data, by where they lie (pmctop's
text, its static data, the heap and libraries, the stack), then with -f
the functions that touch the most lines.

  bench/footprint.py [-n N] [-f TOP] [PMCTOP] [-- ARGS...]

Needs valgrind (lackey) and nm; about a minute for the default 12
intervals.
"""
import argparse
import bisect
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile

MARK = "sampler_run_interval"


def debug_file(path):
    """path's separate debug symbols, where installed (libc6-dbg)."""
    notes = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", notes)
    dbg = m and "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1), m.group(2))
    return dbg if dbg and os.path.exists(dbg) else None


def symbols(path, base):
    """(address, name) of path's functions, sorted, loaded at base: from
    its debug file where there is one, else its own or dynamic table."""
    out = subprocess.run(["nm", "-n", debug_file(path) or path], capture_output=True, text=True).stdout
    if not out.strip():
        out = subprocess.run(["nm", "-n", "-D", path], capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 3 and p[1] in "tTwWiI":
            syms.append((int(p[0], 16) + base, p[2]))
    return syms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=12, help="intervals (default 12)")
    ap.add_argument("-f", type=int, default=0, help="list the TOP functions by lines touched")
    ap.add_argument("pmctop", nargs="?", default="./pmctop")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    exe = os.path.realpath(args.pmctop)

    tmp = tempfile.mkdtemp(prefix="footprint.")
    log = os.path.join(tmp, "trace")
    cmd = ["valgrind", "-v", "-v", "--tool=lackey", "--trace-mem=yes", "--log-file=" + log,
           exe, "-b", "-d", "0.01", "-n", str(args.n), "-o", os.path.join(tmp, "out")] + extra
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    # Where valgrind put each object: "Reading syms from PATH" then
    # "svma 0x..., avma 0x..." (its text's address in the file and in
    # memory).
    objs = []
    pending = None
    with open(log, errors="replace") as f:
        for line in f:
            if line[0] in "I ":
                continue
            m = re.search(r"Reading syms from (\S+)", line)
            if m:
                pending = m.group(1)
                continue
            m = re.search(r"svma 0x([0-9a-f]+), avma 0x([0-9a-f]+)", line)
            if m and pending:
                objs.append((pending, int(m.group(2), 16) - int(m.group(1), 16)))
                pending = None
    tables = []
    for path, base in objs:
        if "valgrind" in path:
            continue
        syms = symbols(path, base)
        if syms:
            tables.append((os.path.basename(path), syms[0][0], syms[-1][0] + 65536, syms))
    main_base = next(b for p, b in objs if os.path.realpath(p) == exe)
    mark = next(a for a, n in symbols(exe, main_base) if n == MARK)
    text_hi = max(a for a, n in symbols(exe, main_base)) + 65536

    def where(addr):
        for lib, lo, hi, syms in tables:
            if lo <= addr < hi:
                i = bisect.bisect_right(syms, (addr, "\xff")) - 1
                return lib, syms[i][1] if i >= 0 else "?"
        return "?", "?"

    def data_region(addr):
        if main_base <= addr < text_hi + (1 << 20):
            return "static"
        if addr >= 0x1000000000:
            return "stack"
        return "heap+libs"

    intervals = []
    cur = None
    fn = ("?", "?")
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("I  "):
                addr = int(line[3:line.index(",")], 16)
                if addr == mark:
                    cur = {"ni": 0, "il": set(), "ip": collections.Counter(), "dl": set(),
                           "dp": collections.Counter(), "fl": collections.defaultdict(set)}
                    intervals.append(cur)
                if cur is None:
                    continue
                cur["ni"] += 1
                fn = where(addr)
                cur["il"].add(addr >> 6)
                cur["ip"][(fn[0], addr >> 12)] += 1
                cur["fl"][fn].add(addr >> 6)
            elif cur is not None and line[:1] == " " and line[1:2] in "LSM":
                addr = int(line[3:line.index(",")], 16)
                if (addr >> 6) not in cur["dl"]:
                    cur["dl"].add(addr >> 6)
                    cur["dp"][(data_region(addr), addr >> 12)] += 1
                    cur["fl"][fn].add(-1 - (addr >> 6))
    # The first intervals warm up (plans, the live list); the last may be
    # cut short by the exit.
    steady = intervals[3:-1] or intervals
    if not steady:
        sys.exit("footprint: no interval found (is %s built with symbols?)" % exe)

    def med(fn):
        return statistics.median(fn(iv) for iv in steady)

    print("intervals %d (median of %d)" % (len(intervals), len(steady)))
    print("instructions      %8.0f" % med(lambda iv: iv["ni"]))
    print("code lines        %8.0f   pages %4.0f" % (med(lambda iv: len(iv["il"])), med(lambda iv: len(iv["ip"]))))
    for lib in sorted({k[0] for iv in steady for k in iv["ip"]}):
        print("  %-16s%8.0f   pages %4.0f" % (lib,
              med(lambda iv: sum(len([l for l in ls if l >= 0]) for (o, n), ls in iv["fl"].items() if o == lib)),
              med(lambda iv: sum(1 for k in iv["ip"] if k[0] == lib))))
    print("data lines        %8.0f   pages %4.0f" % (med(lambda iv: len(iv["dl"])), med(lambda iv: len(iv["dp"]))))
    for reg in ("static", "heap+libs", "stack"):
        print("  %-16s%8s   pages %4.0f" % (reg, "", med(lambda iv: sum(1 for k in iv["dp"] if k[0] == reg))))
    print("lines in all      %8.0f" % med(lambda iv: len(iv["il"]) + len(iv["dl"])))
    if args.f:
        iv = steady[len(steady) // 2]
        print("\n%-48s %6s %6s" % ("function (median interval)", "code", "data"))
        rows = sorted(iv["fl"].items(), key=lambda kv: -len(kv[1]))[:args.f]
        for (lib, name), ls in rows:
            code = sum(1 for l in ls if l >= 0)
            print("%-48s %6d %6d" % ((lib + ":" + name)[:48], code, len(ls) - code))
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
