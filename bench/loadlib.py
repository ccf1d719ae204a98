"""loadlib.py: what the exporter's load benchmarks (load_export.py,
scrape_p99.py) share: a free loopback port, a process's CPU time and a
percentile of latencies."""
import os
import socket


def free_port():
    """A loopback port the kernel has just found free."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def cpu_s(pid):
    """Process pid's user and system CPU time, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")


def pct(v, p):
    """The p-th percentile of latencies v (seconds), in milliseconds."""
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))] * 1000 if v else float("nan")
