#!/usr/bin/env python3
"""Hostile HTTP clients against the agent, each mode checking its own outcome.

  http_clients.py oversized HOST PORT PID COUNT
      COUNT requests with a 1 MB URL (half) or a 1 MB header (half), each client keeping its
      socket open after the answer, as the clients that leaked descriptors did. Passes when
      every request got a 4xx and the agent (PID) closed its side, so its descriptor count is
      back where it was, while the clients still hold theirs.

  http_clients.py slow HOST PORT PID COUNT SECONDS
      COUNT slowloris clients (a partial request head, one more header line every 5 s, and a
      new connection whenever the server closes one, 200 new connections a second) for SECONDS, while a scraper fetches
      /metrics and /api/v1/peers once a second. Passes when every scrape answered 200 within
      10 s, the agent stayed under its descriptor limit, the demo peer 127.0.0.2 was never
      level 6 nor disconnected, and lo's link stayed up.

Prints one line per figure and FAIL lines; exit status 1 on any failure. Every wait has a
deadline; it never waits on a socket without a timeout.
"""

import json
import os
import selectors
import socket
import sys
import threading
import time

DEMO_PEER = "127.0.0.2"
# The slow clients' pace of new connections (slowhttptest's default is 50/s). At the agent's
# cap of 512 a scraper's connection is then the newest for 512 / 200 = 2.5 s, ample time for
# its request to be read. A flood of new connections many times faster than the agent reads
# requests can displace a scraper whatever the policy (a run at 1,200/s on a loaded machine
# saw one reset in 25 scrapes): that is a firewall's job, not an exporter's.
CONNECTIONS_PER_S = 200
SCRAPE_TIMEOUT_S = 10.0


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def descriptor_limit(pid):
    with open(f"/proc/{pid}/limits") as limits:
        for line in limits:
            if line.startswith("Max open files"):
                return int(line.split()[3])
    raise RuntimeError("no 'Max open files' in /proc/PID/limits")


def get(host, port, path, timeout=SCRAPE_TIMEOUT_S):
    """One GET on a fresh connection that closes after: (status, body, seconds)."""
    started = time.monotonic()
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{path}: no complete answer in {timeout} s")
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, body, time.monotonic() - started


def oversized(host, port, pid, count):
    failures = []
    for _ in range(3):  # settle: nothing of ours open yet
        get(host, port, "/-/healthy")
    baseline = descriptors(pid)
    clients, statuses = [], {}
    big = "a" * (1 << 20)
    for index in range(count):
        if index % 2 == 0:
            request = f"GET /{big} HTTP/1.1\r\nHost: {host}\r\n\r\n"
        else:
            request = f"GET /metrics HTTP/1.1\r\nHost: {host}\r\nX-Big: {big}\r\n\r\n"
        s = socket.create_connection((host, port), timeout=10)
        s.settimeout(10)
        try:
            s.sendall(request.encode())
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before it had read all of it
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
        except socket.timeout:
            failures.append(f"request {index}: the server neither answered nor closed in 10 s")
        status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.1 ") else "none"
        statuses[status] = statuses.get(status, 0) + 1
        clients.append(s)  # kept open: the client never closes its side
    during = descriptors(pid)
    deadline = time.monotonic() + 10
    while descriptors(pid) > baseline and time.monotonic() < deadline:
        time.sleep(0.1)
    after = descriptors(pid)
    print(f"ok   oversized: {count} requests, answers {dict(sorted(statuses.items()))}")
    print(f"     agent descriptors: {baseline} before, {during} after the last answer, "
          f"{after} with the {len(clients)} clients still open")
    if any(not status.startswith("4") for status in statuses):
        failures.append(f"answers other than 4xx: {statuses}")
    if after > baseline:
        failures.append(f"{after - baseline} descriptors leaked ({baseline} before, {after} after)")
    for s in clients:
        s.close()
    return failures


class SlowClients:
    """COUNT connections that never finish their request, replaced when the server closes them."""

    def __init__(self, host, port, count):
        self.host, self.port, self.count = host, port, count
        self.selector = selectors.DefaultSelector()
        self.sockets = {}  # socket -> next trickle time
        self.opened = self.closed_by_server = self.still_connecting = 0
        self.request_line = f"GET /metrics HTTP/1.1\r\nHost: {host}\r\n".encode()
        self.answered = 0

    def open_one(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((self.host, self.port))
        self.selector.register(s, selectors.EVENT_READ)
        self.sockets[s] = [time.monotonic(), self.request_line]  # due now, what to send next
        self.opened += 1

    def drop(self, s):
        self.selector.unregister(s)
        del self.sockets[s]
        s.close()

    def run(self, seconds):
        started = time.monotonic()
        end = started + seconds
        while time.monotonic() < end:
            # New connections at CONNECTIONS_PER_S, as a slowloris tool paces itself.
            allowed = int((time.monotonic() - started) * CONNECTIONS_PER_S) - self.opened
            for _ in range(min(allowed, self.count - len(self.sockets))):
                self.open_one()
            for key, _ in self.selector.select(timeout=0.1):
                s = key.fileobj
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""  # reset: the server closed with our partial request unread
                if data:
                    self.answered += 1  # a request never completed must never be answered
                self.closed_by_server += 1
                self.drop(s)
            now = time.monotonic()
            for s, (due, line) in list(self.sockets.items()):
                if due > now:
                    continue
                try:
                    s.send(line)
                except BlockingIOError:
                    # The connection is not accepted yet (its SYN waits in a full queue).
                    self.still_connecting += 1
                    self.sockets[s] = [now + 1, line]
                except OSError:
                    self.closed_by_server += 1
                    self.drop(s)
                else:
                    self.sockets[s] = [now + 5, b"X-Slow: 1\r\n"]
        for s in list(self.sockets):
            self.drop(s)


def metric(text, series):
    """The value of one series (a name with its labels, as exposed), or None."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def slow(host, port, pid, count, seconds):
    failures = []
    limit = descriptor_limit(pid)
    clients = SlowClients(host, port, count)
    thread = threading.Thread(target=clients.run, args=(seconds,), daemon=True)
    thread.start()
    scrapes, latencies, peak_descriptors, peak_open = 0, [], 0, 0
    levels, states, link = set(), set(), set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        peak_descriptors = max(peak_descriptors, descriptors(pid))
        try:
            status, body, elapsed = get(host, port, "/metrics")
            scrapes += 1
            latencies.append(elapsed)
            if status != 200:
                failures.append(f"/metrics answered {status}")
            text = body.decode()
            link.add(metric(text, 'netquality_link_up{interface="lo"}'))
            peak_open = max(peak_open, metric(text, "netquality_http_connections") or 0)
            status, body, _ = get(host, port, "/api/v1/peers")
            for peer in json.loads(body)["peers"]:
                if peer["peer"] == DEMO_PEER:
                    levels.update([peer["rx_quality"], peer["tx_quality"]])
                    states.add(peer["state"])
        except (OSError, TimeoutError, ValueError) as error:
            failures.append(f"scrape failed: {error!r}")
        time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
    thread.join(timeout=30)
    _, body, _ = get(host, port, "/metrics")
    text = body.decode()
    closed = {
        reason: metric(text, f'netquality_http_connections_closed_total{{reason="{reason}"}}')
        for reason in ("evicted", "refused", "timeout")
    }
    latencies.sort()
    print(f"ok   slow clients: {count} held for {seconds} s; {clients.opened} connections "
          f"opened, {clients.closed_by_server} closed by the server, "
          f"{clients.still_connecting} sends before the connection was accepted, "
          f"{clients.answered} answered")
    print(f"     agent: {peak_open:.0f} HTTP connections at most, {peak_descriptors} of "
          f"{limit} descriptors at most; closed {closed}")
    if latencies:
        print(f"     /metrics: {scrapes} scrapes, all 200: "
              f"{not any('answered' in f for f in failures)}; latency median "
              f"{latencies[len(latencies) // 2] * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    print(f"     demo peer {DEMO_PEER}: levels seen {sorted(levels)}, states {sorted(states)}; "
          f"lo link_up values {sorted(v for v in link if v is not None)}")
    # Each scrape that failed or took over 10 s is a failure above; this only makes sure the
    # loop ran at all (its pace is the machine's, so no count near what it usually reaches).
    if scrapes < 3:
        failures.append(f"only {scrapes} scrapes in {seconds} s")
    if peak_descriptors >= limit:
        failures.append(f"the agent reached its descriptor limit ({peak_descriptors}/{limit})")
    if not levels:
        failures.append(f"the demo peer {DEMO_PEER} never showed in /api/v1/peers")
    if 6 in levels or states & {"disconnected", "timed_out", "ended"}:
        failures.append(f"the demo peer went down: levels {levels}, states {states}")
    if link != {1.0}:
        failures.append(f"netquality_link_up{{interface=\"lo\"}} took values {link}")
    if clients.answered:
        failures.append(f"{clients.answered} slow clients got an answer to a request never sent")
    if clients.closed_by_server == 0:
        failures.append("the server never closed a slow client: the cap was not reached")
    # Every close a client saw is one the server counted (it may have closed more that the
    # clients had not yet noticed when they stopped).
    server_closed = sum(value or 0 for value in closed.values())
    if clients.closed_by_server > server_closed:
        failures.append(f"clients saw {clients.closed_by_server} closes, the server counted "
                        f"{server_closed}")
    return failures


def main():
    mode, host, port, pid, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    if mode == "oversized":
        failures = oversized(host, port, pid, count)
    else:
        failures = slow(host, port, pid, count, int(sys.argv[6]))
    for failure in failures:
        print(f"FAIL {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
