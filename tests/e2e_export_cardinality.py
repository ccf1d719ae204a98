#!/usr/bin/env python3
"""e2e_export_cardinality.py DOC LABEL=URL...: counts the series (samples),
pmctop_event_total series and bytes of each /metrics (scraped once five
intervals are counted: the first three export relative errors of events
that the later ones, once rotation has settled, do not), prints them, and checks the table of DOC's
"Cardinality" section: its row for each --export-scope must give the
series of each LABEL (a column "series, LABEL") within 5 %, so that the
doc cannot drift from what pmctop serves. LABEL is "CPUS:SCOPE"."""
import re
import sys
import time
import urllib.request


def scrape(url):
    deadline = time.time() + 90  # sanitizer builds are slow
    while True:
        try:
            text = urllib.request.urlopen(url, timeout=10).read().decode()
            m = re.search(r"^pmctop_intervals_total (\S+)$", text, re.M)
            if m and float(m.group(1)) >= 5:
                return text
        except OSError:
            pass
        if time.time() > deadline:
            sys.exit("FAIL: %s counted no five intervals in 90 s" % url)
        time.sleep(0.3)


def doc_table(path):
    """scope -> {cpus: series} from the Cardinality section's table."""
    head, out, section = None, {}, False
    for line in open(path):
        if line.startswith("## "):
            section = line.startswith("## Cardinality")
        if not section or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if head is None and cells[0].startswith("`--export-scope`"):
            head = cells
        elif head and re.match(r"(\*\*)?`(cpu|core|ccx|socket)`", cells[0]):
            scope = re.search(r"`(\w+)`", cells[0]).group(1)
            for h, c in zip(head, cells):
                m = re.match(r"series, (\d+) CPUs", h)
                if m:
                    out.setdefault(scope, {})[m.group(1)] = int(c.replace(",", ""))
    return out


def main():
    doc, runs = sys.argv[1], sys.argv[2:]
    want = doc_table(doc)
    fails = []
    for run in runs:
        label, url = run.split("=", 1)
        cpus, scope = label.split(":")
        text = scrape(url)
        series = sum(1 for l in text.splitlines() if l and not l.startswith("#"))
        events = sum(1 for l in text.splitlines() if l.startswith("pmctop_event_total"))
        print("%s CPUs, --export-scope %s: %d series, %d pmctop_event_total, %d bytes"
              % (cpus, scope, series, events, len(text.encode())))
        doc_n = want.get(scope, {}).get(cpus)
        if doc_n is None:
            fails.append("%s has no figure for %s CPUs at %s" % (doc, cpus, scope))
        elif abs(series - doc_n) > 0.05 * doc_n:
            fails.append("%s says %d series for %s CPUs at %s; measured %d" % (doc, doc_n, cpus, scope, series))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


sys.exit(main())
