#!/usr/bin/env python3
"""Issue 31's attacks on a running agent, each mode checking its own outcome against the
agent's own figures (its /metrics, its /proc entries), never a sleep standing in for an event.

  hostile_clients.py fill DB PEERS TICKS
      Fills a history the agent created (schema in place) with PEERS peers at TICKS ticks of
      2 s ending now: PEERS x TICKS peer rows, for the history load below.

  hostile_clients.py history-load HOST PORT PID CLIENTS
      CLIENTS concurrent full-range /api/v1/history requests (each client gives up after 15 s,
      as an impatient one would, and its query is then dropped), while a scraper fetches /metrics every 0.25 s until every
      client is done. Passes when every /metrics answered within 1 s, the agent's ticks kept
      their cadence (no gap between `netquality_last_tick_timestamp_seconds` values over two
      intervals), requests beyond the bound were refused 503 with Retry-After within 1 s, and
      the agent's resident memory grew by less than 100 MB.

  hostile_clients.py history-fair HOST PORT SLOW
      SLOW full-range /api/v1/history requests from 127.0.0.5, then a small one from 127.0.0.2.
      Passes when the small one is answered 200 after at most one of the slow ones (issue 39:
      the readers are shared fairly between clients).

  hostile_clients.py pipeline HOST PORT PID CONNECTIONS REQUESTS
      CONNECTIONS clients each pipelining REQUESTS `GET /metrics` and never reading, held
      until the agent stops answering them; then closed. Passes when the agent's resident
      memory grew by less than 50 MB while they were open and came back within 10 MB of where
      it was, and a scrape meanwhile answered within 1 s.

  hostile_clients.py rtp SOURCE DESTINATION PORT
      Sends G.711-sized RTP (50 packets/s) from SOURCE to DESTINATION:PORT until killed.

  hostile_clients.py stall HOST PORT PID DB PEER SECONDS
      Stops the agent (SIGSTOP) for SECONDS while PEER's RTP goes on, then continues it
      (SIGCONT). Passes when, within two ticks, the agent reports a tick on the 2 s grid and
      within one tick of the wall clock; no event, alert or history row is dated in the future
      (now, then after two more ticks); PEER, whose packets the kernel kept for the capture, was
      never interrupted; and the agent counted the ticks it missed
      (`netquality_ticks_skipped_total`) but no clock step.

  hostile_clients.py stall-silent HOST PORT PID DB SOURCE SECONDS SENDING_SECONDS
      RTP from SOURCE to HOST:40004 until the agent reports it connected, then SIGSTOP for
      SECONDS, the RTP stopping SENDING_SECONDS into it, then SIGCONT. Passes when the peer's
      interrupted and disconnected events are dated its last packet + 4 s and + 12 s (within
      50 ms), however long after those the agent ran again (issue 39: a red team saw an
      interruption dated 9.8 s after the last packet after a 30 s stop).

  hostile_clients.py stall-blind HOST PORT PID DB SOURCE SECONDS LOG
      RTP from SOURCE to HOST:40006 until the agent reports it connected, then SIGSTOP for
      SECONDS (longer than the capture ring's 6.4 s of light traffic) with the RTP flowing,
      SIGCONT, and 8 s more. Passes when the peer had no interruption, disconnection or
      recovery, the agent counts 0 lost (loopback loses nothing) though it captured fewer than
      were sent, and its LOG says the capture was blind (issue 39).

  hostile_clients.py guessers HOST PORT USER PASSWORD GUESSERS SECONDS
      GUESSERS clients sending distinct wrong passwords for USER as fast as they are answered,
      and a scraper with the right password every 2 s, for SECONDS. Passes when every scrape
      answered 200 within 1 s.

  hostile_clients.py guessers-restart HOST PORT USER PASSWORD GUESSERS PID LOG WEB CMD...
      GUESSERS guessers from 127.0.0.5 as above; meanwhile the agent PID is reloaded (SIGHUP,
      a user added to its web configuration WEB; done when LOG says "reloaded") and then
      restarted (SIGINT, then CMD, its stderr appended to LOG). Passes when the scraper's first
      scrape (from 127.0.0.2) after each answered 200 within 1 s (issue 39).

Prints one line per figure and FAIL lines; exit status 1 on any failure.
"""

import base64
import multiprocessing
import os
import queue
import signal
import socket
import subprocess
import sqlite3
import sys
import threading
import time


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


# The last request's time to connect (of its `seconds`).
last_connect_seconds = 0.0


def request(host, port, path, headers="", timeout=10.0, source=None):
    """One GET on a fresh connection (from address `source` if given): (status, headers, body,
    seconds); its time to connect in `last_connect_seconds`."""
    global last_connect_seconds
    started = time.monotonic()
    with socket.create_connection((host, port), timeout=timeout,
                                  source_address=(source, 0) if source else None) as s:
        last_connect_seconds = time.monotonic() - started
        s.settimeout(timeout)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Connection: close\r\n\r\n"
                  .encode())
        # Joined once at the end: `data += chunk` copies the answer so far at each chunk, a
        # 4 MB history answer about 130 MB under the interpreter lock.
        chunks = []
        while True:
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{path}: no complete answer in {timeout} s")
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        data = b"".join(chunks)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return status, fields, body, time.monotonic() - started


def metric(text, series):
    for line in text.splitlines():
        if line.startswith(series + " ") or line.startswith(series + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


class Scraper(threading.Thread):
    """Fetches /metrics every `period` s until stopped: the slowest answer, the tick times."""

    def __init__(self, host, port, period, headers=""):
        super().__init__(daemon=True)
        self.host, self.port, self.period, self.headers = host, port, period, headers
        self.stop = threading.Event()
        self.seconds, self.failures, self.tick_times = [], [], []

    def run(self):
        # On a fixed schedule (a scrape every `period` s from the start, as Prometheus does),
        # not `period` after the previous answer.
        due = time.monotonic()
        while not self.stop.is_set():
            try:
                status, _, body, seconds = request(self.host, self.port, "/metrics", self.headers)
                self.seconds.append(seconds)
                if status != 200:
                    self.failures.append(f"/metrics answered {status}")
                tick = metric(body.decode(), "netquality_last_tick_timestamp_seconds")
                if tick is not None and (not self.tick_times or tick != self.tick_times[-1]):
                    self.tick_times.append(tick)
            except (OSError, TimeoutError) as error:
                self.failures.append(f"/metrics: {error}")
            due += self.period
            self.stop.wait(max(0.0, due - time.monotonic()))


def fill(path, peers, ticks):
    now = time.time()
    first = (int(now) // 2 - ticks) * 2
    db = sqlite3.connect(path, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    run = db.execute("SELECT max(id) FROM runs").fetchone()[0] or 1
    with db:
        db.executemany("INSERT OR IGNORE INTO peers(name, first_seen) VALUES (?, ?)",
                       [(f"198.51.{p // 250}.{p % 250 + 1}", first) for p in range(peers)])
        ids = [row[0] for row in db.execute("SELECT id FROM peers WHERE name LIKE '198.51.%'")]
        db.executemany(
            "INSERT OR IGNORE INTO ticks(time, run_id, interval_s, host_tx_level, host_rx_level, "
            "peers, streams) VALUES (?, ?, 2, 1, 1, ?, ?)",
            [(first + 2 * t, run, peers, peers) for t in range(ticks)])
        db.executemany(
            "INSERT OR IGNORE INTO peer_ticks(time, peer_id, state, tx_level, rx_level, tx_mos, "
            "rx_mos, tx_loss_ratio, rx_loss_ratio, rx_packets, rx_lost, tx_packets, "
            "rx_bitrate_bps, streams) VALUES (?, ?, 1, 1, 2, 4.3, 4.1, 0, 0.01, 100, 1, 100, "
            "64000, 1)",
            ((first + 2 * t, peer) for t in range(ticks) for peer in ids))
    rows = db.execute("SELECT count(*) FROM peer_ticks").fetchone()[0]
    db.close()
    print(f"ok   history filled: {len(ids)} peers x {ticks} ticks, {rows} peer rows")
    return []


def history_clients(host, port, pid, clients, results):
    """CLIENTS threads each asking once for the whole history; their outcomes (status,
    Retry-After, seconds, bytes) and the agent's peak resident memory meanwhile into
    `results`. Runs in a process of its own (see `history_load`)."""
    outcomes = []
    lock = threading.Lock()
    peak = [rss_mb(pid)]

    def client():
        started = time.monotonic()
        try:
            status, fields, body, seconds = request(
                host, port, "/api/v1/history?from=0&to=4102444800", timeout=15.0)
            outcome = (status, fields.get("retry-after"), seconds, len(body))
        except (OSError, TimeoutError):
            outcome = ("gave up", None, time.monotonic() - started, 0)
        with lock:
            outcomes.append(outcome)
            peak[0] = max(peak[0], rss_mb(pid))

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    with lock:
        results.put((list(outcomes), peak[0]))


def history_load(host, port, pid, clients):
    failures = []
    interval = 2.0
    before = rss_mb(pid)
    scraper = Scraper(host, port, 0.25)
    scraper.start()
    time.sleep(1.0)  # a first tick time or two
    # The readers run in a process of their own, as they would on other hosts: beside the
    # scraper's thread, 50 readers of 4 MB answers held Python's interpreter lock, and a
    # scrape measured 1.08 s in one busy CI run of two on the release build (issue 37).
    results = multiprocessing.Queue()
    readers = multiprocessing.Process(target=history_clients,
                                      args=(host, port, pid, clients, results))
    readers.start()
    try:
        outcomes, peak_mb = results.get(timeout=60)
    except queue.Empty:
        outcomes, peak_mb = [], before
        failures.append("the history readers gave no outcome in 60 s")
    readers.join(10)
    if readers.is_alive():
        readers.kill()
    peak = [peak_mb]
    time.sleep(2 * interval)  # two more ticks seen after the load
    scraper.stop.set()
    scraper.join(15)
    after = rss_mb(pid)
    refused = [o for o in outcomes if o[0] == 503 and o[1] is not None]
    answered = [o for o in outcomes if o[0] == 200]
    others = [o for o in outcomes if o not in refused and o not in answered]
    gaps = [b - a for a, b in zip(scraper.tick_times, scraper.tick_times[1:])]
    print(f"ok   history load: {clients} clients: {len(answered)} answered 200 "
          f"(largest {max([o[3] for o in answered], default=0)} bytes, slowest "
          f"{max([o[2] for o in answered], default=0):.2f} s), {len(refused)} refused 503 with "
          f"Retry-After (slowest {max([o[2] for o in refused], default=0):.3f} s), "
          f"{len(others)} other: {sorted(set(str(o[0]) for o in others))}")
    print(f"     /metrics: {len(scraper.seconds)} scrapes, slowest {max(scraper.seconds):.3f} s, "
          f"median {sorted(scraper.seconds)[len(scraper.seconds) // 2]:.3f} s; "
          f"ticks seen {len(scraper.tick_times)}, largest gap {max(gaps, default=0):.1f} s; "
          f"RSS {before:.0f} MB before, {peak[0]:.0f} MB peak, {after:.0f} MB after")
    failures += scraper.failures
    if max(scraper.seconds) > 1.0:
        failures.append(f"a scrape took {max(scraper.seconds):.2f} s (limit 1 s)")
    if not gaps or max(gaps) > 2 * interval:
        failures.append(f"the ticks stopped: gaps {gaps}")
    if not refused:
        failures.append("no request was refused beyond the bound")
    if any(o[2] > 1.0 for o in refused):
        failures.append("a refusal took over 1 s")
    if peak[0] - before > 100:
        failures.append(f"resident memory grew {peak[0] - before:.0f} MB (limit 100)")
    return failures


def history_fair(host, port, slow):
    """Issue 39: SLOW full-range history requests from one client (127.0.0.5) held every other
    client's history read. A small read from another client (127.0.0.2) must be answered 200
    after at most one of them (the one running when it came), not after all of them."""
    failures = []
    done = []
    lock = threading.Lock()
    started = time.monotonic()

    def slow_client(index):
        try:
            status, _, _, seconds = request(host, port, "/api/v1/history?from=0&to=4102444800",
                                            timeout=120.0, source="127.0.0.5")
        except (OSError, TimeoutError):
            status, seconds = "gave up", time.monotonic() - started
        with lock:
            done.append((f"slow {index}", status, time.monotonic() - started))

    threads = []
    for index in range(slow):
        thread = threading.Thread(target=slow_client, args=(index,), daemon=True)
        thread.start()
        threads.append(thread)
        time.sleep(0.2)
    time.sleep(1.0)
    asked = time.monotonic() - started
    status, _, _, seconds = request(host, port, "/api/v1/history?since=10s&limit=10", timeout=120.0,
                                    source="127.0.0.2")
    with lock:
        answered_before = [d for d in done if d[1] == 200]
        refused = [d for d in done if d[1] == 503]
    print(f"ok   history fairness: {slow} full-range reads from one client, then a small read "
          f"from another {asked:.1f} s in: {status} in {seconds:.2f} s; before it "
          f"{len(answered_before)} slow read(s) answered, {len(refused)} refused 503 "
          f"({', '.join(f'{d[0]} {d[1]} at {d[2]:.1f} s' for d in sorted(done, key=lambda d: d[2]))})")
    if status != 200:
        failures.append(f"the other client's read: {status}")
    if len(answered_before) > 1:
        failures.append(f"the other client's read waited for {len(answered_before)} slow reads")
    # The slow clients leave; their queries are dropped with them (the process exits).
    return failures


def pipeline(host, port, pid, connections, requests):
    failures = []
    for _ in range(3):
        request(host, port, "/-/healthy")
    before = rss_mb(pid)
    burst = f"GET /metrics HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() * requests
    sockets = []
    for _ in range(connections):
        s = socket.create_connection((host, port), timeout=10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setblocking(False)
        try:
            s.send(burst)
        except BlockingIOError:
            pass
        sockets.append(s)
    # Until the agent's memory stops growing: it has written what the clients' buffers take
    # and waits for them to read.
    peak, stable_since = rss_mb(pid), time.monotonic()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and time.monotonic() - stable_since < 3:
        time.sleep(0.25)
        now = rss_mb(pid)
        if now > peak + 1:
            stable_since = time.monotonic()
        peak = max(peak, now)
    status, _, _, seconds = request(host, port, "/metrics")
    for s in sockets:
        s.close()
    deadline = time.monotonic() + 15
    after = rss_mb(pid)
    while after > before + 10 and time.monotonic() < deadline:
        time.sleep(0.5)
        after = rss_mb(pid)
    print(f"ok   pipelining: {connections} clients x {requests} requests never read: RSS "
          f"{before:.0f} MB before, {peak:.0f} MB while open, {after:.0f} MB after; a scrape "
          f"meanwhile {status} in {seconds:.3f} s")
    if peak - before >= 50:
        failures.append(f"resident memory grew {peak - before:.0f} MB (limit 50)")
    if after - before > 10:
        failures.append(f"resident memory stayed {after - before:.0f} MB up after they left")
    if status != 200 or seconds > 1.0:
        failures.append(f"the scrape meanwhile: {status} in {seconds:.2f} s")
    return failures


def guess(host, port, user, count, stop, results, source=None, answered=None):
    """COUNT threads sending distinct wrong passwords until `stop` is set (from address
    `source` if given); their answers by status into `results`, their number so far into the
    shared `answered`. Runs in a process of its own at a lower CPU priority (see
    `guessers`)."""
    os.nice(10)
    answers = {}
    lock = threading.Lock()

    def guesser(index):
        attempt = 0
        while not stop.is_set():
            attempt += 1
            token = base64.b64encode(f"{user}:guess-{index}-{attempt}".encode()).decode()
            try:
                status, _, _, _ = request(host, port, "/metrics",
                                          f"Authorization: Basic {token}\r\n", timeout=20,
                                          source=source)
            except (OSError, TimeoutError, ValueError, IndexError):
                status = "error"
                # The agent restarting: no busy loop of refused connections.
                stop.wait(0.05)
            with lock:
                answers[status] = answers.get(status, 0) + 1
            if answered is not None and status != "error":
                with answered.get_lock():
                    answered.value += 1

    threads = [threading.Thread(target=guesser, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    stop.wait()
    for thread in threads:
        thread.join(25)
    with lock:
        results.put(dict(answers))


def guessers(host, port, user, password, count, seconds):
    # The guessers run in a process of their own, as they would on another host, and the
    # scraper here in another, as Prometheus would: a scraper thread among 200 guesser threads
    # would wait its turn for Python's interpreter lock (5 ms a switch), and that wait, not the
    # agent, would be what it measured.
    failures = []
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    scraper = Scraper(host, port, 2.0, f"Authorization: Basic {token}\r\n")
    # The scraper's credentials are accepted once before the flood, as a running Prometheus'
    # are.
    status, _, _, _ = request(host, port, "/metrics", f"Authorization: Basic {token}\r\n")
    if status != 200:
        return [f"the scraper's first request: {status}"]
    stop, results = multiprocessing.Event(), multiprocessing.Queue()
    flood = multiprocessing.Process(target=guess, args=(host, port, user, count, stop, results))
    flood.start()
    scraper.start()
    time.sleep(seconds)
    stop.set()
    scraper.stop.set()
    scraper.join(15)
    try:
        answers = results.get(timeout=40)
    except queue.Empty:
        answers = {}
        failures.append("the guessers did not report their answers")
    flood.join(5)
    if flood.is_alive():
        flood.kill()
    print(f"ok   guessers: {count} for {seconds} s, answers {dict(sorted(answers.items(), key=str))}"
          f"; scrapes {len(scraper.seconds)}, slowest {max(scraper.seconds, default=0):.3f} s")
    failures += scraper.failures
    if sum(answers.get(code, 0) for code in (401, 429)) < count:
        failures.append(f"the guessers were answered 401 or 429 fewer than {count} times: {answers}")
    if not scraper.seconds or max(scraper.seconds) > 1.0:
        failures.append(f"a scrape took {max(scraper.seconds, default=0):.2f} s (limit 1 s)")
    if len(scraper.seconds) < seconds / 2 - 1:
        failures.append(f"only {len(scraper.seconds)} scrapes in {seconds} s (one every 2 s)")
    return failures


def wait_for(seconds, what, condition):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} within {seconds} s")
        time.sleep(0.05)


def guessers_restart(host, port, user, password, count, pid, log, web, command):
    """Issue 39: the scraper's first scrape after a users reload and after a restart, with
    COUNT guessers running from another address (127.0.0.5; the scraper is 127.0.0.2)."""
    failures = []
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    auth = f"Authorization: Basic {token}\r\n"
    scraper, attacker = "127.0.0.2", "127.0.0.5"
    status, _, _, _ = request(host, port, "/metrics", auth, source=scraper)
    if status != 200:
        return [f"the scraper's first request: {status}"]
    stop, results = multiprocessing.Event(), multiprocessing.Queue()
    answered = multiprocessing.Value("q", 0)
    flood = multiprocessing.Process(target=guess, args=(host, port, user, count, stop, results,
                                                        attacker, answered))
    flood.start()
    agent = None
    try:
        # Under way: the bcrypt queue is full (a guess answered 429) before the reload.
        wait_for(30, "guesses answered", lambda: answered.value >= 4 * count)
        started, before = time.monotonic(), answered.value
        # A users reload: a second user added, the scraper's unchanged.
        with open(web, "a") as file:
            file.write("  other: '$2b$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi'\n")
        size = os.path.getsize(log)
        os.kill(pid, signal.SIGHUP)
        wait_for(10, "reload line in the log",
                 lambda: b"reloaded" in open(log, "rb").read()[size:])
        status, _, _, seconds = request(host, port, "/metrics", auth, timeout=10, source=scraper)
        print(f"ok   after a users reload with {count} guessers: the first scrape {status} in "
              f"{seconds:.3f} s")
        if status != 200 or seconds > 1.0:
            failures.append(f"the first scrape after a reload: {status} in {seconds:.2f} s")
        # A restart: SIGINT, then the same command again.
        os.kill(pid, signal.SIGINT)
        try:
            wait_for(15, "the agent's exit", lambda: not os.path.exists(f"/proc/{pid}"))
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
        agent = subprocess.Popen(command, stderr=open(log, "ab"))

        def listening():
            try:
                socket.create_connection((host, port), timeout=1, source_address=(scraper, 0)).close()
                return True
            except OSError:
                return False
        wait_for(30, "the restarted agent's port", listening)
        status, _, _, seconds = request(host, port, "/metrics", auth, timeout=10, source=scraper)
        connect = last_connect_seconds
        # What the agent did meanwhile, from a second scrape (its credentials now cached).
        _, _, text, _ = request(host, port, "/metrics", auth, timeout=10, source=scraper)
        checks = metric(text.decode(), "netquality_http_auth_bcrypt_checks_total")
        print(f"ok   after a restart with {count} guessers: the first scrape {status} in "
              f"{seconds:.3f} s ({connect:.3f} s to connect), {checks} bcrypt checks since the "
              f"start")
        if status != 200 or seconds > 1.0:
            failures.append(f"the first scrape after a restart: {status} in {seconds:.2f} s")
        rate = (answered.value - before) / (time.monotonic() - started)
        print(f"ok   the guessers meanwhile: {rate:.0f} answers/s")
    except TimeoutError as error:
        failures.append(str(error))
    finally:
        stop.set()
        try:
            answers = results.get(timeout=40)
            print(f"ok   guessers' answers {dict(sorted(answers.items(), key=str))}")
        except queue.Empty:
            failures.append("the guessers did not report their answers")
        flood.join(5)
        if flood.is_alive():
            flood.kill()
        if agent is not None:
            for sig, grace in ((signal.SIGINT, 5), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                if agent.poll() is not None:
                    break
                agent.send_signal(sig)
                try:
                    agent.wait(grace)
                except subprocess.TimeoutExpired:
                    pass
    return failures


def rtp(source, destination, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((source, 40000))
    sequence, timestamp, started = 0, 0, time.monotonic()
    while True:
        header = bytes([0x80, 0x00]) + sequence.to_bytes(2, "big") + timestamp.to_bytes(4, "big")
        s.sendto(header + (0x31313131).to_bytes(4, "big") + bytes(160), (destination, port))
        sequence = (sequence + 1) & 0xFFFF
        timestamp = (timestamp + 160) & 0xFFFFFFFF
        # Paced by the clock, not by the sleeps: a late wake-up sends what is due.
        due = started + (sequence if sequence else 65536) * 0.02
        time.sleep(max(0.0, due - time.monotonic()))


def api(host, port, path):
    import json
    status, _, body, _ = request(host, port, path)
    if status != 200:
        raise RuntimeError(f"{path}: {status}")
    return json.loads(body)


def stall(host, port, pid, db, peer, seconds):
    import signal
    failures = []
    interval = 2.0

    def future_dated(margin):
        """What is dated after now: the API's tick, alerts, and the history's rows."""
        now = time.time() + margin
        found = []
        peers = api(host, port, "/api/v1/peers")
        if peers["time"] > now:
            found.append(f"/api/v1/peers time {peers['time']:.3f}")
        for alert in api(host, port, "/api/v1/alerts")["alerts"]:
            for key in ("since", "start", "starts_at"):
                if isinstance(alert.get(key), (int, float)) and alert[key] > now:
                    found.append(f"alert {alert.get('rule')} {key} {alert[key]}")
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        for table in ("ticks", "peer_ticks", "events", "alerts"):
            column = "fired_at" if table == "alerts" else "time"
            try:
                latest = connection.execute(f"SELECT max({column}) FROM {table}").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if latest is not None and latest > now:
                found.append(f"history {table}.{column} {latest:.3f}")
        connection.close()
        return found

    def metrics():
        return request(host, port, "/metrics")[2].decode()

    skipped_before = metric(metrics(), "netquality_ticks_skipped_total") or 0
    steps_before = metric(metrics(), "netquality_capture_clock_steps_total") or 0
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)
    continued = time.time()
    # The first tick after the stall: within two intervals.
    deadline = continued + 2 * interval + 1
    tick = None
    while time.time() < deadline:
        tick = api(host, port, "/api/v1/peers")["time"]
        if tick > continued - interval:
            break
        time.sleep(0.1)
    wall = time.time()
    print(f"ok   stall: stopped {seconds} s; first tick after it {tick:.3f}, wall clock "
          f"{wall:.3f} ({wall - tick:+.3f} s), {wall - continued:.2f} s after continuing")
    if tick is None or tick <= continued - interval:
        failures.append("no tick within two intervals of continuing")
    # Within one tick of when the agent ran again (the loop above), not of when the tick was
    # seen: continued 0.24 s before a boundary, the tick of the boundary before it, caught up
    # 0.37 s after continuing with a core busy, was seen 2.13 s after its time, and the check
    # depended on where in the grid the SIGCONT fell. Never dated after it was seen.
    elif tick > wall or abs(tick / interval - round(tick / interval)) > 1e-6:
        failures.append(f"tick {tick:.3f}: not on the 2 s grid within one tick of {continued:.3f}"
                        f" (seen at {wall:.3f})")
    found = future_dated(0.5)
    # Two more ticks, still right. Read half an interval after a boundary of the grid: the
    # tick of that boundary is the one to report (read just before a tick is published, the
    # previous one is, and a fixed bound on wall - tick would depend on when the read fell).
    time.sleep(2 * interval)
    found += future_dated(0.5)
    time.sleep((interval / 2 - time.time() % interval) % interval)
    asked = time.time()
    tick = api(host, port, "/api/v1/peers")["time"]
    boundary = asked - asked % interval
    if abs(tick - boundary) > 1e-6:
        failures.append(f"two ticks later: asked at {asked:.3f}, {asked - boundary:.2f} s after "
                        f"the tick of {boundary:.3f}; the API reported the tick of {tick:.3f}")
    failures += [f"dated in the future: {item}" for item in found]
    text = metrics()
    skipped = (metric(text, "netquality_ticks_skipped_total") or 0) - skipped_before
    steps = (metric(text, "netquality_capture_clock_steps_total") or 0) - steps_before
    peers = api(host, port, "/api/v1/peers")["peers"]
    state = next((p.get("state") for p in peers if p.get("peer") == peer), None)
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    kinds = [row[0] for row in connection.execute(
        "SELECT e.kind FROM events e JOIN peers p ON p.id = e.peer_id WHERE p.name = ? "
        "AND e.time >= ?", (peer, continued - seconds - 5))]
    connection.close()
    print(f"     ticks skipped {skipped:.0f}, clock steps {steps:.0f}; {peer} {state}, its events "
          f"since the stall {kinds}; nothing dated in the future: {not found}")
    if skipped < seconds / interval - 2:
        failures.append(f"only {skipped:.0f} skipped ticks counted for a {seconds} s stall")
    if steps != 0:
        failures.append(f"{steps:.0f} clock steps counted for a stall")
    if state != "connected" or kinds:
        failures.append(f"{peer}: {state}, events {kinds} (its packets were in the kernel's ring)")
    return failures


def stall_silent(host, port, pid, db, source, seconds, sending_seconds):
    """SIGSTOP for SECONDS while a peer falls silent SENDING_SECONDS into it: after SIGCONT
    its interruption and disconnection are dated from its last packet (the timers, 4 and 12 s
    by default), not from when the agent could run again."""
    import json
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.bind((source, 40000))
    sequence = 0

    def send():
        nonlocal sequence
        header = bytes([0x80, 0x00]) + sequence.to_bytes(2, "big") + (sequence * 160).to_bytes(4, "big")
        sender.sendto(header + (0x51515151).to_bytes(4, "big") + bytes(160), (host, 40004))
        sequence += 1
        return time.time()

    # Connected first: 3 s of RTP at 50 packets/s, seen by the API.
    started = time.monotonic()
    deadline = time.time() + 30
    while time.time() < deadline:
        send()
        time.sleep(max(0.0, started + sequence * 0.02 - time.monotonic()))
        if sequence % 50 == 0 and sequence >= 150 and any(
                p.get("peer") == source and p.get("state") == "connected"
                for p in api(host, port, "/api/v1/peers")["peers"]):
            break
    else:
        return [f"{source} never connected"]
    os.kill(pid, signal.SIGSTOP)
    stopped = time.time()
    try:
        last = send()
        while time.time() < stopped + sending_seconds:
            last = send()
            time.sleep(max(0.0, started + sequence * 0.02 - time.monotonic()))
        time.sleep(max(0.0, stopped + seconds - time.time()))
    finally:
        os.kill(pid, signal.SIGCONT)
    continued = time.time()
    # The events come at the first ticks after SIGCONT; wait for the disconnection.
    deadline = continued + 15
    events = []
    while time.time() < deadline:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        events = connection.execute(
            "SELECT e.kind, e.time FROM events e JOIN peers p ON p.id = e.peer_id "
            "WHERE p.name = ? AND e.time >= ? ORDER BY e.time", (source, stopped - 1)).fetchall()
        connection.close()
        if any(kind == "disconnected" for kind, _ in events):
            break
        time.sleep(0.2)
    dated = {kind: at for kind, at in events}
    print(f"     stall with {source} falling silent {sending_seconds} s into a {seconds} s stop: last "
          f"packet sent {last:.3f}, continued {continued:.3f}; events {json.dumps(events)}")
    failures = []
    for kind, after in (("interrupted", 4.0), ("disconnected", 12.0)):
        at = dated.get(kind)
        # The capture's time of the last packet is the send's on lo, within a millisecond.
        if at is None or abs(at - (last + after)) > 0.05:
            failures.append(f"{source} {kind} at {at}: not its last packet {last:.3f} + {after:.0f} s")
        else:
            print(f"ok   stall: {source} {kind} at {at:.3f} = its last packet + {at - last:.3f} s "
                  f"(the timer {after:.0f} s), {continued - at:.1f} s before the agent ran again")
    return failures


def stall_blind(host, port, pid, db, source, seconds, log):
    """SIGSTOP for SECONDS with RTP from SOURCE flowing all along and on after SIGCONT: the
    capture's ring overflows, the kernel drops what it cannot hold, and that gap is the
    capture's blindness, not the peer's silence nor the network's loss (issue 39)."""
    import json
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.bind((source, 40000))
    sent = 0

    def pace(until):
        nonlocal sent
        while time.time() < until:
            header = bytes([0x80, 0x00]) + (sent & 0xFFFF).to_bytes(2, "big") + (
                (sent * 160) & 0xFFFFFFFF).to_bytes(4, "big")
            sender.sendto(header + (0x61616161).to_bytes(4, "big") + bytes(160), (host, 40006))
            sent += 1
            time.sleep(max(0.0, started + sent * 0.02 - time.monotonic()))

    def peer():
        return next((p for p in api(host, port, "/api/v1/peers")["peers"]
                     if p.get("peer") == source), None)

    started = time.monotonic()
    deadline = time.time() + 30
    while time.time() < deadline:
        pace(time.time() + 1)
        if sent >= 150 and (peer() or {}).get("state") == "connected":
            break
    else:
        return [f"{source} never connected"]
    stopped = time.time()
    os.kill(pid, signal.SIGSTOP)
    try:
        pace(stopped + seconds)
    finally:
        os.kill(pid, signal.SIGCONT)
    continued = time.time()
    # On past the interrupted timer (4 s) after the agent runs again: 8 s.
    pace(continued + 8)
    time.sleep(2.5)  # the tick after the last packet: its figures in the API (2 s ticks)
    seen = peer() or {}
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    kinds = [row[0] for row in connection.execute(
        "SELECT e.kind FROM events e JOIN peers p ON p.id = e.peer_id WHERE p.name = ? "
        "AND e.time >= ? ORDER BY e.time", (source, stopped - 1))]
    connection.close()
    blind_lines = [line for line in open(log, errors="replace") if "was blind for" in line]
    received, lost = seen.get("rx_packets_total"), seen.get("rx_lost_total")
    print(f"     stall of {seconds} s with {source}'s RTP flowing: {sent} sent, {received} captured, "
          f"{lost} lost by the agent's count; its events since the stop {kinds}; the log: "
          f"{[line.strip()[:160] for line in blind_lines]}")
    failures = []
    if any(kind in ("interrupted", "disconnected", "recovered") for kind in kinds):
        failures.append(f"{source}: {kinds} across the capture's blindness")
    if lost != 0:
        failures.append(f"{source}: {lost} lost where the network lost none (loopback)")
    if received is None or received >= sent:
        failures.append(f"{source}: {received} captured of {sent}: the ring never overflowed")
    if not blind_lines:
        failures.append("no 'was blind for' line in the agent's log")
    if not failures:
        print(f"ok   stall: {source} connected throughout, 0 lost; {sent - received} packets the "
              f"kernel dropped were the capture's blindness")
    return failures


def main(argv):
    mode = argv[1]
    if mode == "fill":
        failures = fill(argv[2], int(argv[3]), int(argv[4]))
    elif mode == "history-load":
        failures = history_load(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    elif mode == "history-fair":
        failures = history_fair(argv[2], int(argv[3]), int(argv[4]))
    elif mode == "pipeline":
        failures = pipeline(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), int(argv[6]))
    elif mode == "rtp":
        try:
            rtp(argv[2], argv[3], int(argv[4]))
        except KeyboardInterrupt:
            pass
        failures = []
    elif mode == "stall":
        failures = stall(argv[2], int(argv[3]), int(argv[4]), argv[5], argv[6], int(argv[7]))
    elif mode == "stall-blind":
        failures = stall_blind(argv[2], int(argv[3]), int(argv[4]), argv[5], argv[6],
                               float(argv[7]), argv[8])
    elif mode == "stall-silent":
        failures = stall_silent(argv[2], int(argv[3]), int(argv[4]), argv[5], argv[6],
                                float(argv[7]), float(argv[8]))
    elif mode == "guessers":
        failures = guessers(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]), int(argv[7]))
    elif mode == "guessers-restart":
        failures = guessers_restart(argv[2], int(argv[3]), argv[4], argv[5], int(argv[6]),
                                    int(argv[7]), argv[8], argv[9], argv[10:])
    else:
        raise SystemExit(f"unknown mode {mode}")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
