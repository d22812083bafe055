#!/usr/bin/env python3
"""TRIGGER-to-result latency of `scand run` while its setup page is attacked (issue 41, "Tests").

Starts the built daemon on simulated hardware (a camera playing a Code 128, the serial output on
a pty this script holds, the setup page on 127.0.0.1) and times TRIGGER -> result line on the
serial port in seven phases against one daemon:

  1. baseline         no attack
  2. huge-lines       two unterminated 512 KiB header lines being sent
  3. half-open        200 connections that send part of a request head and never finish
  4. warm-baseline    no attack, one preview viewer that reads every frame (a viewer keeps the
                      camera streaming between sessions: the reference for phase 5)
  5. stalled-viewers  600 GET /preview.mjpeg that never read (the page streams to 8, answers 503 beyond)
  6. header-flood     one request head of 1,000,000 header lines, streamed
  7. baseline-end     no attack again (drift)

Each attack runs in a child process of its own (no GIL shared with the timing), on non-blocking
sockets polled in one loop, bounded in sockets and in time (it ends with its phase). A connection
the daemon closes is opened again after --reconnect-after seconds (default 1; 0: never), so the
attack lasts the whole phase. Ratios are against the first baseline of the same run; the stalled
viewers' also against the warm baseline (`warm x`).

Exit status 0 unless the daemon dies or a phase reads nothing (then 1, with the reason).
Python 3 standard library only.
"""

import argparse
import ctypes
import errno
import json
import math
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tty

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------
# The attacker (a child process: `--attack KIND`)
# ---------------------------------------------------------------------------------------------

class Attacker:
    """Holds `count` connections to 127.0.0.1:`port` doing one attack; reopens those the daemon
    closes after `gap` seconds (never when 0). One poll loop, non-blocking sockets."""

    def __init__(self, kind, port, count, payload, gap, head_only):
        self.kind, self.port, self.count, self.payload, self.gap = kind, port, count, payload, gap
        self.head_only = head_only  # viewers: read only the answer's status line, then stall
        self.poll = select.poll()
        self.conns = {}  # fd -> dict(sock, state, sent, got, since)
        self.reopen_at = []  # times at which a slot opens again
        self.stats = {"kind": kind, "connections": count, "connects": 0, "connect_failures": 0,
                      "closed_by_daemon": 0, "answers": {}, "bytes_sent": 0, "bytes_received": 0, "fully_sent": 0,
                      "max_held": 0, "held_at_end": 0, "streaming_at_end": 0}

    def open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.head_only:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)  # a viewer that takes nothing
        s.setblocking(False)
        rc = s.connect_ex(("127.0.0.1", self.port))
        if rc not in (0, errno.EINPROGRESS):
            s.close()
            self.stats["connect_failures"] += 1
            self.reopen_at.append(time.monotonic() + max(self.gap, 0.2))
            return
        self.stats["connects"] += 1
        self.conns[s.fileno()] = {"sock": s, "state": "connecting", "sent": 0, "got": b"",
                                  "since": time.monotonic()}
        self.poll.register(s.fileno(), select.POLLOUT)

    def finish(self, fd, by_daemon):
        c = self.conns.pop(fd)
        try:
            self.poll.unregister(fd)
        except (KeyError, ValueError):
            pass
        if by_daemon:
            self.stats["closed_by_daemon"] += 1
            status = self.status_of(c["got"])
            self.stats["answers"][status] = self.stats["answers"].get(status, 0) + 1
        c["sock"].close()
        if self.gap > 0:
            self.reopen_at.append(time.monotonic() + self.gap)

    @staticmethod
    def status_of(got):
        if got.startswith(b"HTTP/1.1 ") and len(got) >= 12:
            return got[9:12].decode("ascii", "replace")
        return "none" if not got else "other"

    def readable(self, fd):
        c = self.conns[fd]
        s = c["sock"]
        if c["state"] == "streaming":  # a stalled viewer: only its hang-up wakes us
            self.finish(fd, True)
            return
        if self.head_only and not c["got"]:
            try:
                peek = s.recv(16, socket.MSG_PEEK)
            except BlockingIOError:
                return
            except OSError:
                self.finish(fd, True)
                return
            if len(peek) < 12 and peek:
                return  # the status line's rest is on its way
            if peek.startswith(b"HTTP/1.1 200"):
                c["got"] = peek
                c["state"] = "streaming"  # never read again: wake only on hang-up or error
                self.poll.modify(fd, select.POLLRDHUP | select.POLLERR | select.POLLHUP)
                return
        while True:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                return
            except OSError:
                self.finish(fd, True)
                return
            if not data:
                self.finish(fd, True)
                return
            self.stats["bytes_received"] += len(data)
            if len(c["got"]) < 64:
                c["got"] += data[:64]

    def writable(self, fd):
        c = self.conns[fd]
        s = c["sock"]
        if c["state"] == "connecting":
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                self.conns.pop(fd)
                self.poll.unregister(fd)
                s.close()
                self.stats["connect_failures"] += 1
                self.reopen_at.append(time.monotonic() + max(self.gap, 0.2))
                return
            c["state"] = "sending"
        view = memoryview(self.payload)
        while c["sent"] < len(self.payload):
            try:
                n = s.send(view[c["sent"]:c["sent"] + 65536])
            except BlockingIOError:
                break
            except OSError:
                self.finish(fd, True)
                return
            c["sent"] += n
            self.stats["bytes_sent"] += n
        if c["sent"] >= len(self.payload):
            self.stats["fully_sent"] += 1
            c["state"] = "held"
            self.poll.modify(fd, select.POLLIN)
        else:
            self.poll.modify(fd, select.POLLIN | select.POLLOUT)

    def run(self, control_in, control_out):
        """Attacks until `control_in` ends; says `ready` once the first wave is under way."""
        self.poll.register(control_in, select.POLLIN | select.POLLHUP)
        for _ in range(self.count):
            self.open_one()
        started = time.monotonic()
        ready = False
        while True:
            now = time.monotonic()
            if not ready and (now - started > 10 or (all(c["state"] != "connecting" for c in self.conns.values())
                                                      and now - started > 1.0)):
                os.write(control_out, b"ready\n")
                ready = True
            self.reopen_at.sort()
            while self.reopen_at and self.reopen_at[0] <= now and len(self.conns) < self.count:
                self.reopen_at.pop(0)
                self.open_one()
            for fd, c in list(self.conns.items()):  # a connect that never completes (SYN dropped)
                if c["state"] == "connecting" and now - c["since"] > 5:
                    self.conns.pop(fd)
                    self.poll.unregister(fd)
                    c["sock"].close()
                    self.stats["connect_failures"] += 1
                    self.reopen_at.append(now + max(self.gap, 0.2))
            self.stats["max_held"] = max(self.stats["max_held"], len(self.conns))
            for fd, ev in self.poll.poll(50):
                if fd == control_in:
                    return
                if fd not in self.conns:
                    continue
                if ev & (select.POLLIN | select.POLLRDHUP | select.POLLHUP | select.POLLERR):
                    self.readable(fd)
                if fd in self.conns and ev & select.POLLOUT:
                    self.writable(fd)

    def close_all(self):
        self.stats["held_at_end"] = len(self.conns)
        self.stats["streaming_at_end"] = sum(1 for c in self.conns.values() if c["state"] == "streaming")
        for c in self.conns.values():
            c["sock"].close()
        self.conns.clear()


def attack_main(args):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us by closing our stdin
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.count + 64)), hard))
    host = b"Host: 127.0.0.1:%d\r\n" % args.port
    head_only = False
    if args.attack == "huge-lines":
        payload = b"GET / HTTP/1.1\r\n" + host + b"X-Long: " + b"a" * (args.size * 1024)
    elif args.attack == "half-open":
        payload = b"GET /api/status HTTP/1.1\r\nHost: 127"
    elif args.attack == "reading-viewer":
        payload = b"GET /preview.mjpeg HTTP/1.1\r\n" + host + b"\r\n"
    elif args.attack == "stalled-viewers":
        payload = b"GET /preview.mjpeg HTTP/1.1\r\n" + host + b"\r\n"
        head_only = True
    elif args.attack == "header-flood":
        payload = b"GET / HTTP/1.1\r\n" + host + b"".join(b"h%d: b\r\n" % i for i in range(args.size))
    else:
        raise SystemExit("unknown attack %r" % args.attack)
    a = Attacker(args.attack, args.port, args.count, payload, args.gap, head_only)
    try:
        a.run(sys.stdin.fileno(), sys.stdout.fileno())
    finally:
        a.close_all()
        os.write(sys.stdout.fileno(), (json.dumps(a.stats) + "\n").encode())


# ---------------------------------------------------------------------------------------------
# The measurement
# ---------------------------------------------------------------------------------------------

def cpu_seconds(pid):
    """utime + stime of `pid` in seconds (/proc/PID/stat), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def rss_kb(pid):
    """VmRSS of `pid` in kB (/proc/PID/status), or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def host_jiffies():
    """(busy, total) jiffies of all cores (/proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def percentile(sorted_values, q):
    """Nearest-rank percentile."""
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def http_status(port, path="/api/status", timeout=2.0):
    """The status code of GET `path` on the page, or an error word."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % (path.encode(), port))
            got = s.recv(64)
        return got[9:12].decode("ascii", "replace") if got.startswith(b"HTTP/1.1 ") else "no answer"
    except OSError as e:
        return type(e).__name__


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bench:
    def __init__(self, args):
        self.args = args
        self.dir = None
        self.master = self.slave = None
        self.daemon = None
        self.log = None
        self.attacker = None
        self.port = None
        self.buffer = b""

    # -- set-up and clean-up --------------------------------------------------------------

    def start(self):
        a = self.args
        self.dir = tempfile.mkdtemp(prefix="scand-web-attack-")
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # the daemon sets its own modes; no echo before it opens the port
        os.set_blocking(self.master, False)
        link = os.path.join(self.dir, "serial")  # a link of our own: never a reused /dev/pts number
        os.symlink(os.ttyname(self.slave), link)
        self.port = free_port()
        config = "\n".join([
            'hardware = "simulated"',
            "[camera]", 'images = [%s]' % json.dumps(a.image), "fps = 15",
            "[scan]", "viewport = [0.15, 0.3, 0.7, 0.5]",
            "session_timeout_ms = %d" % int(a.timeout * 1000),
            "[gpio]", 'board = "simulated"', 'button = { pin = "GPIO17" }', 'torch = { pin = "GPIO27" }',
            "[output.serial]", "device = %s" % json.dumps(link), 'format = "%s"' % a.format, "ack = false",
            "[outbox]", "directory = %s" % json.dumps(self.dir),
            "[control]", "socket = %s" % json.dumps(os.path.join(self.dir, "control.sock")),
            "[web]", 'listen = "127.0.0.1:%d"' % self.port, ""])
        path = os.path.join(self.dir, "scand.toml")
        with open(path, "w") as f:
            f.write(config)
        self.log = open(os.path.join(self.dir, "log.txt"), "w+b")
        libc = ctypes.CDLL(None, use_errno=True)

        def die_with_us():  # the daemon ends with this script, even if it is killed
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

        self.daemon = subprocess.Popen([a.scand, "run", "--config", path, "--no-stdin"],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
                                       start_new_session=True, preexec_fn=die_with_us)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.daemon.poll() is not None:
                raise Failure("the daemon ended at start-up (exit %s): %s" % (self.daemon.returncode, self.log_tail()))
            if b"scand started" in self.log_text() and http_status(self.port) == "200":
                return
            time.sleep(0.2)
        raise Failure("the daemon did not start within 90 s: %s" % self.log_tail())

    def log_text(self):
        try:
            with open(self.log.name, "rb") as f:
                return f.read()
        except OSError:
            return b""

    def log_tail(self, n=800):
        return self.log_text()[-n:].decode("utf-8", "replace")

    def stop_attacker(self):
        """Ends the running attack; its counts (or None)."""
        p, self.attacker = self.attacker, None
        if p is None:
            return None
        stats = None
        try:
            out, _ = p.communicate(timeout=10)  # closes its stdin: the attack ends
            lines = [l for l in out.decode().splitlines() if l.startswith("{")]
            stats = json.loads(lines[-1]) if lines else None
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        return stats

    def cleanup(self):
        if self.attacker is not None:
            try:
                self.attacker.kill()
                self.attacker.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self.attacker = None
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.terminate()
            try:
                self.daemon.wait(10)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                self.daemon.wait()
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None
        if self.log is not None:
            self.log.close()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- one session ----------------------------------------------------------------------

    def drain(self):
        while True:
            try:
                if not os.read(self.master, 65536):
                    break
            except (BlockingIOError, OSError):
                break
        self.buffer = b""

    def is_result(self, line):
        code = self.args.code
        if self.args.format == "json":
            try:
                return json.loads(line).get("text") == code
            except (ValueError, AttributeError):
                return False
        return line.endswith(code.encode())  # prefix + optional AIM identifier + text

    def session(self, on_wait):
        """One TRIGGER; (latency in ms or None, ms to `OK TRIGGER` or None)."""
        self.drain()
        t0 = time.monotonic()
        os.write(self.master, b"TRIGGER\r\n")
        deadline = t0 + self.args.timeout
        ok_ms = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, ok_ms
            r, _, _ = select.select([self.master], [], [], min(left, 0.1))
            on_wait()
            if not r:
                continue
            try:
                data = os.read(self.master, 65536)
            except (BlockingIOError, OSError):
                continue
            now = time.monotonic()
            self.buffer += data
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                line = line.rstrip(b"\r")
                if line == b"OK TRIGGER" and ok_ms is None:
                    ok_ms = (now - t0) * 1000
                elif self.is_result(line):
                    return (now - t0) * 1000, ok_ms

    # -- one phase ------------------------------------------------------------------------

    def phase(self, name, attack=None, count=0, size=0):
        a = self.args
        pid = self.daemon.pid
        rss_start = rss_kb(pid)
        rss_max = [rss_start or 0]
        cpu0, busy0 = cpu_seconds(pid), host_jiffies()
        t_start = time.monotonic()
        attack_ready_s = None
        if attack:
            self.attacker = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--attack", attack, "--port", str(self.port),
                 "--count", str(count), "--size", str(size), "--gap", str(a.reconnect_after)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
            line = b""
            r, _, _ = select.select([self.attacker.stdout], [], [], 30)
            if r:
                line = self.attacker.stdout.readline()
            if line.strip() != b"ready":
                self.stop_attacker()
                raise Failure("phase %s: the attack did not get under way" % name)
            attack_ready_s = time.monotonic() - t_start
            attacker_cpu0 = cpu_seconds(self.attacker.pid) or 0.0

        last_sample = [0.0]

        def sample():
            now = time.monotonic()
            if now - last_sample[0] >= 0.2:
                last_sample[0] = now
                r = rss_kb(pid)
                if r:
                    rss_max[0] = max(rss_max[0], r)

        latencies, ok_ms, missed = [], [], []
        for i in range(a.sessions):
            if self.daemon.poll() is not None:
                break
            ms, ok = self.session(sample)
            if ms is None:
                missed.append(i + 1)
                time.sleep(1.0)  # a late result must not answer the next press
            else:
                latencies.append(ms)
            if ok is not None:
                ok_ms.append(ok)
            t_end_pause = time.monotonic() + a.pause_ms / 1000
            while time.monotonic() < t_end_pause:
                sample()
                time.sleep(min(0.05, max(0.0, t_end_pause - time.monotonic())))
        sample()
        duration = time.monotonic() - t_start
        cpu1, busy1, rss_end = cpu_seconds(pid), host_jiffies(), rss_kb(pid)
        attacker_cpu = None
        if attack and self.attacker is not None:
            c = cpu_seconds(self.attacker.pid)
            attacker_cpu = round(c - attacker_cpu0, 2) if c is not None else None
        stats = self.stop_attacker() if attack else None
        alive = self.daemon.poll() is None
        page_after = http_status(self.port) if alive else "daemon ended"
        s = sorted(latencies)
        d_busy, d_total = busy1[0] - busy0[0], busy1[1] - busy0[1]
        return {
            "phase": name, "attack": attack, "sessions": a.sessions, "reads": len(latencies),
            "median_ms": round(percentile(s, 0.5), 1) if s else None,
            "p95_ms": round(percentile(s, 0.95), 1) if s else None,
            "max_ms": round(s[-1], 1) if s else None,
            "ok_trigger_median_ms": round(percentile(sorted(ok_ms), 0.5), 1) if ok_ms else None,
            "missed_sessions": missed,
            "latencies_ms": [round(x, 1) for x in latencies],
            "daemon_cpu_s": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None else None,
            "rss_kb": {"start": rss_start, "max": max(rss_max[0], rss_end or 0), "end": rss_end},
            "host_busy_pct": round(100.0 * d_busy / d_total, 1) if d_total else None,
            "duration_s": round(duration, 1), "attack_ready_s": round(attack_ready_s, 1) if attack_ready_s else None,
            "attacker_cpu_s": attacker_cpu, "attacker": stats,
            "daemon_alive": alive, "page_after": page_after,
        }


class Failure(Exception):
    pass


PHASES = [  # (name, attack kind, count argument, size argument)
    ("baseline", None, None, None),
    ("huge-lines", "huge-lines", "lines", "line_kib"),
    ("half-open", "half-open", "half_open", None),
    ("warm-baseline", "reading-viewer", None, None),
    ("stalled-viewers", "stalled-viewers", "viewers", None),
    ("header-flood", "header-flood", None, "flood_lines"),
    ("baseline-end", None, None, None),
]


def describe_attack(p):
    s = p["attacker"]
    if not s:
        return ""
    answers = ", ".join("%s: %d" % (k, v) for k, v in sorted(s["answers"].items()))
    text = "%d connects (%d failed), closed by the daemon %d [%s], held at the end %d" % (
        s["connects"], s["connect_failures"], s["closed_by_daemon"], answers or "-", s["held_at_end"])
    if s["kind"] == "stalled-viewers":
        text += " (streaming %d)" % s["streaming_at_end"]
    if s["kind"] == "reading-viewer":
        return "one preview viewer reading: %.1f MB received; attacker CPU %s s" % (
            s["bytes_received"] / 1e6, p["attacker_cpu_s"])
    if s["kind"] in ("huge-lines", "header-flood"):
        text += ", %.1f MB sent, %d sent whole" % (s["bytes_sent"] / 1e6, s["fully_sent"])
    return text + "; attacker CPU %s s" % p["attacker_cpu_s"]


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def print_table(report):
    print("scand %s (%s), %d sessions a phase, pause %d ms, result within %.0f s, format %s" % (
        report["scand"], report["binary_modified"], report["sessions"], report["pause_ms"],
        report["timeout_s"], report["format"]))
    print("load average at start %s, at end %s; %d cores" % (
        " ".join("%.2f" % x for x in report["loadavg_start"]),
        " ".join("%.2f" % x for x in report["loadavg_end"]), os.cpu_count()))
    print()
    header = "%-16s %5s %5s %8s %8s %8s %6s %6s %7s %21s %6s" % (
        "phase", "sess", "reads", "med ms", "p95 ms", "max ms", "med x", "p95 x", "cpu s", "rss MB start/max/end",
        "host%")
    print(header)
    print("-" * len(header))
    for p in report["phases"]:
        r = p["rss_kb"]
        rss = "/".join(fmt(v / 1024 if v else None, ".1f") for v in (r["start"], r["max"], r["end"]))
        print("%-16s %5d %5d %8s %8s %8s %6s %6s %7s %21s %6s" % (
            p["phase"], p["sessions"], p["reads"], fmt(p["median_ms"], ".1f"), fmt(p["p95_ms"], ".1f"),
            fmt(p["max_ms"], ".1f"), fmt(p.get("median_ratio"), ".2f"), fmt(p.get("p95_ratio"), ".2f"),
            fmt(p["daemon_cpu_s"], ".2f"), rss, fmt(p["host_busy_pct"], ".0f")))
    print()
    for p in report["phases"]:
        notes = []
        if p["attack"]:
            notes.append(describe_attack(p))
        if p.get("median_ratio_warm") is not None:
            notes.append("against the warm baseline: median %.2f x, p95 %.2f x" % (
                p["median_ratio_warm"], p["p95_ratio_warm"]))
        if p["missed_sessions"]:
            notes.append("no read within %.0f s: session%s %s" % (
                report["timeout_s"], "s" if len(p["missed_sessions"]) > 1 else "",
                ", ".join(map(str, p["missed_sessions"]))))
        if p["page_after"] != "200":
            notes.append("GET /api/status after the phase: %s" % p["page_after"])
        for n in notes:
            print("%-16s %s" % (p["phase"], n))
    for f in report["findings"]:
        print("finding: " + f)
    if report.get("reason"):
        print("FAILED: " + report["reason"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scand", help="the built scand binary (e.g. .build/release/scand)")
    ap.add_argument("--sessions", type=int, default=40, help="TRIGGERs per phase (default 40)")
    ap.add_argument("--pause-ms", type=int, default=200, help="pause between sessions (default 200)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds a session may take (default 5)")
    ap.add_argument("--format", choices=["text", "json"], default="text", help="the serial output's format")
    ap.add_argument("--image", default=os.path.join(REPO, "samples/code128-small.jpg"))
    ap.add_argument("--code", default="1BjnpEv", help="the text the image carries")
    ap.add_argument("--lines", type=int, default=2, help="huge-lines: connections (default 2)")
    ap.add_argument("--line-kib", type=int, default=512, help="huge-lines: KiB per line (default 512)")
    ap.add_argument("--half-open", type=int, default=200, help="half-open connections (default 200)")
    ap.add_argument("--viewers", type=int, default=600, help="stalled preview viewers (default 600)")
    ap.add_argument("--flood-lines", type=int, default=1_000_000, help="header-flood: lines (default 1,000,000)")
    ap.add_argument("--reconnect-after", type=float, default=1.0,
                    help="seconds before an attack reopens a connection the daemon closed (0: never; default 1)")
    ap.add_argument("--ratio-limit", type=float, default=1.5, help="a median or p95 ratio above this is a finding")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--save", metavar="FILE", help="also write the JSON report to FILE")
    # The attacker child's own arguments.
    ap.add_argument("--attack", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--gap", type=float, default=1.0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.attack:
        return attack_main(args)
    if not args.scand:
        ap.error("--scand PATH is required")
    if not os.access(args.scand, os.X_OK):
        ap.error("--scand %s: not an executable file" % args.scand)
    if args.sessions < 1:
        ap.error("--sessions must be at least 1")
    args.scand = os.path.abspath(args.scand)

    def on_term(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)

    report = {"scand": args.scand,
              "binary_modified": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(args.scand))),
              "sessions": args.sessions, "pause_ms": args.pause_ms, "timeout_s": args.timeout,
              "format": args.format, "reconnect_after_s": args.reconnect_after,
              "loadavg_start": loadavg(), "phases": [], "findings": [], "reason": None}
    bench = Bench(args)
    status = 0
    try:
        busy0 = host_jiffies()
        bench.start()
        for name, attack, count_key, size_key in PHASES:
            count = getattr(args, count_key) if count_key else 1
            size = getattr(args, size_key) if size_key else 0
            p = bench.phase(name, attack, count, size)
            report["phases"].append(p)
            base = report["phases"][0]
            if p["median_ms"] is not None and base["median_ms"]:
                p["median_ratio"] = round(p["median_ms"] / base["median_ms"], 2)
                p["p95_ratio"] = round(p["p95_ms"] / base["p95_ms"], 2)
            warm = next((q for q in report["phases"] if q["phase"] == "warm-baseline"), None)
            if name == "stalled-viewers" and p["median_ms"] is not None and warm and warm["median_ms"]:
                p["median_ratio_warm"] = round(p["median_ms"] / warm["median_ms"], 2)
                p["p95_ratio_warm"] = round(p["p95_ms"] / warm["p95_ms"], 2)
            if not args.json:
                print("%-16s %d/%d read, median %s ms" % (name, p["reads"], p["sessions"], fmt(p["median_ms"], ".1f")),
                      file=sys.stderr, flush=True)
            if not p["daemon_alive"]:
                raise Failure("the daemon ended during phase %s (exit %s): %s" % (
                    name, bench.daemon.returncode, bench.log_tail()))
            if p["reads"] == 0:
                raise Failure("phase %s read nothing in %d sessions" % (name, p["sessions"]))
            time.sleep(1.0)  # the daemon lets go of the attack's connections
        busy1 = host_jiffies()
        report["host_busy_pct"] = round(100.0 * (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]), 1)
    except Failure as e:
        report["reason"] = str(e)
        status = 1
    except KeyboardInterrupt:
        report["reason"] = "interrupted"
        status = 130
    finally:
        bench.cleanup()
    report["loadavg_end"] = loadavg()
    for p in report["phases"]:
        for key in ("median_ratio", "p95_ratio", "median_ratio_warm", "p95_ratio_warm"):
            if p.get(key) is not None and p[key] > args.ratio_limit:
                report["findings"].append("%s: %s %.2f x the %s baseline (above %.1f)" % (
                    p["phase"], key.split("_")[0], p[key], "warm" if key.endswith("warm") else "first",
                    args.ratio_limit))
        if p["missed_sessions"]:
            report["findings"].append("%s: %d session(s) without a read in %.0f s" % (
                p["phase"], len(p["missed_sessions"]), args.timeout))
    report["ok"] = status == 0
    if args.save:
        with open(args.save, "w") as f:
            json.dump(report, f, indent=1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return status


if __name__ == "__main__":
    sys.exit(main())
