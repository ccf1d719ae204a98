#!/usr/bin/env python3
"""call_graph.py: the include-and-call graph of src/ and ui/, and its circles.

A node is a file of src/ or ui/ (a .c or a .h).  An edge A -> B says that
A includes header B, or that A.c's object refers to a symbol that B.c's
object defines (a call, or the address of a function or an ops table).
The symbols come from `nm` on the built objects (libpmctop.a and the
program's own objects), so they are exact; the includes come from the
`#include "..."` lines.  A header is a node of its own: the types and
inline helpers a family shares through its private header tie its files
to that header, not to one another, and a circle is calls going back up
(or headers including each other).

A family is the files that share a name prefix (evdef_*, sampler_*, the
simulator's backend_sim_* and sim_*, ...; see family()).  "Families call
down" (docs/architecture.md): inside a family the graph has no circle, so
the entry file calls its helpers and no helper climbs back.  A circle that
is kept on purpose is documented by a line in the header comment of one
of its files:

    circle: FILE FILE ...: why

naming every file of the circle (e.g. `circle: src/a.c src/b.c: why`), or
by such a line in tests/call_graph_circles.txt: the circles that are
still to be broken, each with the reason it is left for now.

  call_graph.py [--srcdir DIR] [--builddir DIR] [--all] [--dot]

prints every circle (strongly connected set of more than one module) whose
files are all in one family, marks the documented ones, and exits 1 if one
is not documented.  --all also lists the circles that cross families
(reported, never a failure: they are the next step), --dot prints the
graph for graphviz.  Exit 77 (skipped) when nm or the objects are missing.
"""
import glob
import os
import re
import subprocess
import sys

# Longest prefix first: the family a module belongs to.  A stem that no
# prefix matches is a family of its own (its first word).
FAMILIES = [
    ("src/backend_sim", "sim"), ("src/sim_", "sim"),
    ("src/backend_perf", "backend_perf"),
    ("src/perf_import", "perf_import"), ("src/perf_cache", "perf_cache"),
    ("src/evdef", "model"), ("src/model", "model"),
]


def family(node):
    for prefix, fam in FAMILIES:
        if node.startswith(prefix):
            return fam
    d, stem = node.split("/", 1)
    stem = os.path.splitext(stem)[0]
    if d == "ui":
        return "ui"
    return stem.split("_")[0]


def node_of(path, srcdir):
    return os.path.normpath(os.path.relpath(path, srcdir))


def includes(srcdir):
    """Edges from #include "..." lines, between modules of src/ and ui/."""
    edges = set()
    nodes = set()
    pat = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for d in ("src", "ui"):
        for path in glob.glob(os.path.join(srcdir, d, "*.[ch]")):
            a = node_of(path, srcdir)
            nodes.add(a)
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    m = pat.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    # "foo.h" is beside the includer; "../src/foo.h" or
                    # "src/foo.h" name another directory.
                    cand = os.path.normpath(os.path.join(d, inc))
                    if not os.path.exists(os.path.join(srcdir, cand)):
                        cand = os.path.normpath(inc)
                    if not os.path.exists(os.path.join(srcdir, cand)):
                        continue
                    b = cand
                    if b != a and b.split("/")[0] in ("src", "ui"):
                        edges.add((a, b))
    return nodes, edges


def objects(builddir):
    """(node, object path or archive member) pairs to feed nm."""
    objs = []
    lib = os.path.join(builddir, "libpmctop.a")
    if os.path.exists(lib):
        objs.append(lib)
    for d in ("src", "ui"):
        objs += sorted(glob.glob(os.path.join(builddir, d, "pmctop-*.o")))
    return objs


def calls(builddir):
    """Edges from symbols: who refers to what whom defines."""
    objs = objects(builddir)
    if not objs or not os.path.exists(os.path.join(builddir, "libpmctop.a")):
        return None
    try:
        out = subprocess.run(["nm", "-A", "-P"] + objs, check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    defs, refs = {}, []
    for line in out.splitlines():
        # "libpmctop.a[evdef.o]: name T 0 10" or "ui/pmctop-ui.o: name U"
        where, _, rest = line.partition(": ")
        parts = rest.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        m = re.match(r".*\[(.*)\.o\]$", where)
        if m:
            node = "src/" + m.group(1) + ".c"
        else:
            d = os.path.basename(os.path.dirname(where))
            node = d + "/" + os.path.basename(where)[:-2].split("-", 1)[1] + ".c"
        if kind == "U":
            refs.append((node, sym))
        elif kind in "TDRBCGSV":
            defs.setdefault(sym, node)
    edges = set()
    for node, sym in refs:
        b = defs.get(sym)
        if b and b != node:
            edges.add((node, b))
    return edges


def sccs(nodes, edges):
    """Tarjan's strongly connected sets, iteratively (no deep recursion)."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ[w]))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def documented(srcdir):
    """Circles named by a `circle:` line in a file's opening comment or in
    tests/call_graph_circles.txt."""
    docs = []
    pat = re.compile(r"circle:\s*((?:(?:src|ui)/[\w.]+\s*)+):\s*(.+)")
    paths = glob.glob(os.path.join(srcdir, "src", "*.[ch]")) + \
        glob.glob(os.path.join(srcdir, "ui", "*.[ch]"))
    for path in paths + [os.path.join(srcdir, "tests", "call_graph_circles.txt")]:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read() if path.endswith(".txt") else f.read(4000)
        for m in pat.finditer(head):
            docs.append((frozenset(m.group(1).split()), m.group(2).strip(),
                         os.path.relpath(path, srcdir)))
    return docs


def selftest():
    """The circle finder on graphs whose circles are known."""
    n = {"a", "b", "c", "d", "e"}
    got = sccs(n, {("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")})
    assert got == [["a", "b", "c"]], got
    assert sccs(n, {("a", "b"), ("b", "c"), ("a", "c")}) == []
    got = sccs(n, {("a", "b"), ("b", "a"), ("d", "e"), ("e", "d")})
    assert got == [["a", "b"], ["d", "e"]], got
    assert family("src/backend_sim_mux.c") == family("src/sim_tasks.h") == "sim"
    assert family("src/evdef_build.c") == family("src/model.h") == "model"
    assert family("src/sampler_open.c") == "sampler"
    return 0


def main(argv):
    if argv == ["--selftest"]:
        return selftest()
    srcdir = builddir = "."
    show_all = dot = False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--srcdir":
            srcdir = args.pop(0)
        elif a == "--builddir":
            builddir = args.pop(0)
        elif a == "--all":
            show_all = True
        elif a == "--dot":
            dot = True
        else:
            print(__doc__, file=sys.stderr)
            return 2
    nodes, inc = includes(srcdir)
    call = calls(builddir)
    if call is None:
        print("call_graph: no nm or no built objects in %s: skipped" % builddir)
        return 77
    edges = {(a, b) for a, b in inc | call if a in nodes and b in nodes}
    if dot:
        print("digraph pmctop {")
        for a, b in sorted(edges):
            print('  "%s" -> "%s";' % (a, b))
        print("}")
        return 0
    # Circles inside a family: the graph of each family's own edges.
    inner = {(a, b) for a, b in edges if family(a) == family(b)}
    circles = sccs(nodes, inner)
    docs = documented(srcdir)
    bad = 0
    print("include-and-call graph: %d files, %d edges (%d inside families)"
          % (len(nodes), len(edges), len(inner)))
    for comp in circles:
        fam = family(comp[0])
        doc = [d for d in docs if d[0] == frozenset(comp)]
        if doc:
            print("circle in %s (documented in %s: %s): %s"
                  % (fam, doc[0][2], doc[0][1], " ".join(comp)))
        else:
            bad += 1
            print("circle in %s, undocumented: %s" % (fam, " ".join(comp)))
            for a, b in sorted(inner):
                if a in comp and b in comp:
                    print("    %s -> %s%s" % (a, b, "" if (a, b) in call else
                                              " (include)"))
    for d in docs:
        if list(d[0]) and sorted(d[0]) not in circles:
            print("note: %s documents a circle that is not there: %s"
                  % (d[2], " ".join(sorted(d[0]))))
    if show_all:
        for comp in sccs(nodes, edges):
            fams = sorted({family(n) for n in comp})
            if len(fams) > 1:
                print("circle across families %s: %s"
                      % (",".join(fams), " ".join(comp)))
    print("%d circle(s) inside families, %d undocumented" % (len(circles), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
