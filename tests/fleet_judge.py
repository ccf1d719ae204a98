"""fleet_judge.py: what the fleet tests' judges (e2e_fleet_prom.py,
e2e_fleet_young.py, e2e_fleet_drill_prom.py) share: an instant query of
Prometheus's HTTP API, and a count of failures said as they happen."""
import json
import urllib.parse
import urllib.request

_fails = 0


def fail(msg):
    """Says one failure; the judge exits 1 if there was any (failed())."""
    global _fails
    _fails += 1
    print('FAIL: ' + msg)


def failed():
    return _fails > 0


def prom(url, query, at=None):
    """The result of an instant query, at time at (seconds) or now."""
    q = {'query': query}
    if at is not None:
        q['time'] = f'{at:.3f}'
    with urllib.request.urlopen(f'{url}/api/v1/query?' + urllib.parse.urlencode(q), timeout=5) as r:
        ans = json.load(r)
    assert ans['status'] == 'success', ans
    return ans['data']['result']
