#!/usr/bin/env bash
# e2e_call_graph.sh: families call down (docs/architecture.md). Builds the
# include-and-call graph of src/ and ui/ from the #include lines and from
# nm on the built objects (tests/call_graph.py) and fails on a circle
# among one family's files that no header comment or
# tests/call_graph_circles.txt documents; first checks the circle finder
# itself on graphs whose circles are known.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: nm is needed"; exit 77; }
python3 "$top_srcdir/tests/call_graph.py" --selftest || { echo "FAIL: call_graph.py --selftest"; exit 1; }
exec python3 "$top_srcdir/tests/call_graph.py" --srcdir "$top_srcdir" --builddir "$top_builddir"
