#!/usr/bin/env bash
# e2e_rules.sh: `promtool test rules` on tests/pmctop-rules.test.yml, the
# cases that each alert of contrib/pmctop-rules.yml must fire on and must
# not (a steady host fires nothing). Skips (77) without promtool; about 5 s.
set -u
top_srcdir=${top_srcdir:-.}
command -v promtool >/dev/null || { echo "SKIP: promtool not installed"; exit 77; }
out=$(promtool test rules "$top_srcdir/tests/pmctop-rules.test.yml" 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || { echo "FAIL: promtool test rules (rc $rc)"; exit 1; }
# Every alert of the rules file has a case here, so a new alert cannot go
# untested.
for alert in $(sed -n 's/^ *- alert: *//p' "$top_srcdir/contrib/pmctop-rules.yml"); do
	grep -q "alertname: $alert," "$top_srcdir/tests/pmctop-rules.test.yml" ||
		{ echo "FAIL: alert $alert has no case in tests/pmctop-rules.test.yml"; exit 1; }
	grep -A2 "alertname: $alert\$" "$top_srcdir/tests/pmctop-rules.test.yml" | grep -q exp_alerts ||
		{ echo "FAIL: alert $alert has no case that fires in tests/pmctop-rules.test.yml"; exit 1; }
done
echo "OK: every alert has cases that must fire and must not"
