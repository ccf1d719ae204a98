#!/usr/bin/env python3
"""e2e_fleet_fake.py PORTFILE: a misbehaving Prometheus and exporter for
tests/e2e_fleet_bad.sh, on a free loopback port (written to PORTFILE).

The first part of the path picks the behaviour, so one server serves every
case (pmctop --fleet http://127.0.0.1:PORT/MODE):
  good       every instant query answers one host, h1:9465 (up 1, the rest 2)
  flaky      as good for the first 20 queries (one refresh), then truncated JSON
  shrink     as good, with a second host h2:9465 for the first 20 queries only
  401, 403   that status
  malformed  200 with an HTML page
  truncated  200 with JSON cut in the middle
  slow       answers after 3 s
  hang       as good for the first 20 queries (one refresh: the one that
             counts the hosts before the dashboard starts), then answers
             nothing for 60 s, having written PORTFILE.hanging
  timeout    503 with Prometheus's timeout error
  nohw       /nohw/metrics: a pmctop exporter without hardware series
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

counts = {}
lock = threading.Lock()


def vector(query, hosts=('h1:9465',)):
    if query.startswith('up{'):
        v = '1'
    elif 'pmctop_relative_error_ratio' in query:
        v = '0.001'
    elif query.startswith('time()'):
        v = '1.5'
    else:
        v = '2'
    return {'status': 'success', 'data': {'resultType': 'vector', 'result': [
        {'metric': {'instance': h, 'model': 'fake-model', 'simulated': 'false', 'metric': 'pmctop_metric_ipc'},
         'value': [time.time(), v]} for h in hosts]}}


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def send(self, code, body, ctype='application/json'):
        data = body.encode()
        try:
            self.send_response(code)
            self.send_header('Content-Type', ctype)
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass   # the client gave up (its timeout): what the test wants

    def do_GET(self):
        u = urlparse(self.path)
        mode = u.path.strip('/').split('/')[0]
        q = parse_qs(u.query).get('query', [''])[0]
        with lock:
            counts[mode] = counts.get(mode, 0) + 1
            n = counts[mode]
        good = json.dumps(vector(q))
        if mode == 'shrink':
            # Two hosts for the first refresh (20 queries), then one:
            # h2 left Prometheus's targets.
            self.send(200, json.dumps(vector(q, ('h1:9465', 'h2:9465') if n <= 20 else ('h1:9465',))))
        elif mode == 'good' or (mode == 'flaky' and n <= 20):
            self.send(200, good)
        elif mode == 'flaky' or mode == 'truncated':
            self.send(200, good[:len(good) // 2])
        elif mode in ('401', '403'):
            self.send(int(mode), 'Unauthorized\n', 'text/plain')
        elif mode == 'malformed':
            self.send(200, '<html><body>502 Bad Gateway</body></html>', 'text/html')
        elif mode == 'hang':
            if n <= 20:
                self.send(200, good)
            else:
                with open(sys.argv[1] + '.hanging', 'w') as f:
                    f.write(str(n))
                time.sleep(60)
                self.send(200, good)
        elif mode == 'slow':
            time.sleep(3)
            self.send(200, good)
        elif mode == 'timeout':
            self.send(503, json.dumps({'status': 'error', 'errorType': 'timeout',
                                       'error': 'query timed out in query execution'}))
        elif mode == 'nohw':
            now = time.time()
            self.send(200, '# TYPE pmctop_info gauge\n'
                      'pmctop_info{model="generic",simulated="false",version="0.1.0"} 1\n'
                      f'pmctop_intervals_total {n}\n'
                      f'pmctop_last_interval_timestamp_seconds {now:.3f}\n'
                      'pmctop_online_cpus 4\n'
                      f'pmctop_busy_seconds_total{{socket="0"}} {n * 2.0}\n', 'text/plain')
        else:
            self.send(404, 'no such mode\n', 'text/plain')


def main():
    srv = ThreadingHTTPServer(('127.0.0.1', 0), H)
    with open(sys.argv[1], 'w') as f:
        f.write(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == '__main__':
    main()
