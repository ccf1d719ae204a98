#!/usr/bin/env python3
"""e2e_export_families.py DOC URL...: the families pmctop serves, and each
one's label keys, against the table of docs/exporter.md's "Series" section,
so that the doc cannot go stale. Each URL is a /metrics of a running pmctop
(the shell script starts them: every --export-scope, a tasks view with a
recording, two models); it is scraped once an interval has been counted
twice. A family served but not in the table, a table row served by none of
them, or label keys other than the row's fail. A row's name may hold one
<word> (pmctop_metric_<name>): it stands for every family it matches that
no row names exactly. With --print, prints the table the scrapes give."""
import re
import sys
import time
import urllib.request


def scrape(url):
    """The text of url once pmctop_intervals_total is at least 2 (60 s at most: sanitizer builds are slow)."""
    deadline = time.time() + 60
    while True:
        try:
            text = urllib.request.urlopen(url, timeout=5).read().decode()
            m = re.search(r"^pmctop_intervals_total (\S+)$", text, re.M)
            if m and float(m.group(1)) >= 2:
                return text
        except OSError:
            pass
        if time.time() > deadline:
            sys.exit("FAIL: %s counted no two intervals in 60 s" % url)
        time.sleep(0.2)


def families(text, into):
    """Adds text's families to into: name -> (type, set of label keys)."""
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            into.setdefault(name, [kind, set()])
        elif line and not line.startswith("#"):
            name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0)
            keys = re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', line.split("} ")[0] if "{" in line else "")
            into.setdefault(name, ["untyped", set()])[1].update(keys)


def doc_rows(path):
    """The table rows of the doc's "## Series" section: name -> (label keys, type, line)."""
    rows, section = {}, False
    for n, line in enumerate(open(path), 1):
        if line.startswith("## "):
            section = line.strip() == "## Series"
        m = re.match(r"\| `(pmctop_[a-z0-9_<>]+)` \| ([^|]*) \| ([a-z]+) \|", line) if section else None
        if m:
            keys = set(re.findall(r"`([a-z_]+)`", m.group(2)))
            rows[m.group(1)] = (keys, m.group(3), n)
    return rows


def main():
    args = sys.argv[1:]
    show = args and args[0] == "--print"
    if show:
        args = args[1:]
    doc, urls = args[0], args[1:]
    served = {}
    for url in urls:
        families(scrape(url), served)
    if show:
        for name in sorted(served):
            print("| `%s` | %s | %s |" % (name, ", ".join("`%s`" % k for k in sorted(served[name][1])) or "none",
                                         served[name][0]))
        return 0
    rows = doc_rows(doc)
    patterns = [(re.compile("^" + re.escape(r.split("<")[0]) + "[a-z0-9_]+$"), r) for r in rows if "<" in r]
    fails = []
    seen = {r: set() for r in rows}
    for name, (kind, keys) in sorted(served.items()):
        row = name if name in rows else next((r for p, r in patterns if p.match(name)), None)
        if row is None:
            fails.append("%s (labels %s) is served but not in %s's Series table" % (name, sorted(keys), doc))
            continue
        seen[row] |= keys
        if rows[row][1] != kind:
            fails.append("%s is a %s, %s:%d says %s" % (name, kind, doc, rows[row][2], rows[row][1]))
    for row, (keys, kind, line) in rows.items():
        if row not in served and not any(p.match(n) for p, r in patterns if r == row for n in served):
            fails.append("%s:%d: %s is served by none of the runs" % (doc, line, row))
        elif seen[row] != keys:
            fails.append("%s:%d: %s has labels %s, the table says %s" % (doc, line, row, sorted(seen[row]),
                                                                       sorted(keys)))
    for f in fails:
        print("FAIL:", f)
    print("%d families served, %d rows in the table" % (len(served), len(rows)))
    return 1 if fails else 0


sys.exit(main())
