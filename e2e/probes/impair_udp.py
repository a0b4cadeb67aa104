#!/usr/bin/env python3
"""The two ends of a UDP path through netquality-impair, for e2e/probes/impair-relay-check.sh.

    impair_udp.py echo ADDR PORT RESULT.json
        Sends every datagram straight back to where it came from; prints "ready" once bound.
        On SIGINT or SIGTERM writes {"received", "echoed", "turnaround_mean_ms"} and exits 0.
        turnaround: from the kernel's receive time stamp to just after the echo's sendto.

    impair_udp.py client ADDR PORT COUNT RATE RESULT.json
        Sends COUNT numbered 172-byte datagrams (a 20 ms G.711 RTP packet's size) at RATE per
        second, on a fixed schedule, and counts the replies: unique, duplicates, late (a number
        below one already received: what RFC 4737 and the agent call reordered), missing, and
        the round trip from just before sendto to the kernel's receive time stamp of the reply.
        Waits 2 s after the last send for stragglers, writes the JSON and exits 0.

    impair_udp.py many ADDR PORT SOCKETS RESULT.json
        Sends one datagram from each of SOCKETS sockets (one after another, 10 ms apart, so the
        relay meets them in that order), then one of 3,000 bytes from the first; waits 1 s and
        writes {"sockets", "answered": how many got their datagram back, "answered_first":
        how many of the first 64 did}.

Both take their time stamps from the kernel (SO_TIMESTAMPNS, CLOCK_REALTIME) on receipt, so a
late wake-up of this process does not count as network delay; the send side uses time.time_ns()
just before sendto (same clock; the round trip is far too short for a clock step to matter).
"""
import json
import select
import signal
import socket
import struct
import sys
import time

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
PACKET_BYTES = 172
LINGER_SECONDS = 2.0


def open_socket(address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    return sock


def receive(sock):
    """(payload, source, kernel receive time in ns), or None when nothing waits."""
    try:
        data, ancillary, _flags, source = sock.recvmsg(4096, 64, socket.MSG_DONTWAIT)
    except (BlockingIOError, InterruptedError):
        return None
    stamp = None
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
            seconds, nanoseconds = struct.unpack("qq", value[:16])
            stamp = seconds * 1_000_000_000 + nanoseconds
    return data, source, stamp if stamp is not None else time.time_ns()


def write_json(path, document):
    with open(path, "w") as out:
        json.dump(document, out, indent=1)
        out.write("\n")


def echo(address, port, result_path):
    sock = open_socket(address)
    sock.bind((address, port))
    stop = []
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.append(True))
    received = echoed = 0
    turnaround_ns = 0
    print("ready", flush=True)
    while not stop:
        try:
            select.select([sock], [], [], 0.2)
        except InterruptedError:
            continue
        while (got := receive(sock)) is not None:
            data, source, stamp = got
            received += 1
            try:
                sock.sendto(data, source)
            except OSError:
                continue
            echoed += 1
            turnaround_ns += time.time_ns() - stamp
    write_json(result_path, {
        "received": received,
        "echoed": echoed,
        "turnaround_mean_ms": turnaround_ns / echoed / 1e6 if echoed else None,
    })


def client(address, port, count, rate, result_path):
    sock = open_socket(address)
    sock.connect((address, port))
    sent_at = {}
    replies = {}  # sequence -> round trip in ns of the first copy
    duplicates = late = 0
    highest = -1
    interval = 1.0 / rate
    start = time.monotonic()
    sequence = 0
    padding = bytes(PACKET_BYTES - 4)

    def drain():
        nonlocal duplicates, late, highest
        while (got := receive(sock)) is not None:
            data, _source, stamp = got
            if len(data) < 4:
                continue
            (number,) = struct.unpack("!I", data[:4])
            if number not in sent_at:
                continue
            if number in replies:
                duplicates += 1
                continue
            replies[number] = stamp - sent_at[number]
            if number < highest:
                late += 1
            else:
                highest = number

    while sequence < count:
        due = start + sequence * interval
        wait = due - time.monotonic()
        if wait > 0:
            select.select([sock], [], [], wait)
            drain()
            continue
        sent_at[sequence] = time.time_ns()
        sock.send(struct.pack("!I", sequence) + padding)
        sequence += 1
        drain()
    deadline = time.monotonic() + LINGER_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        select.select([sock], [], [], left)
        drain()
    trips = sorted(replies.values())
    write_json(result_path, {
        "sent": count,
        "replies": len(replies),
        "duplicates": duplicates,
        "late": late,
        "missing": count - len(replies),
        "rtt_mean_ms": sum(trips) / len(trips) / 1e6 if trips else None,
        "rtt_min_ms": trips[0] / 1e6 if trips else None,
        "rtt_max_ms": trips[-1] / 1e6 if trips else None,
    })


def many(address, port, count, result_path):
    sockets = [open_socket(address) for _ in range(count)]
    for sock in sockets:
        sock.sendto(b"hello", (address, port))
        time.sleep(0.01)
    sockets[0].sendto(bytes(3000), (address, port))
    time.sleep(1.0)
    answered = [receive(sock) is not None for sock in sockets]
    write_json(result_path, {"sockets": count, "answered": sum(answered),
                             "answered_first": sum(answered[:64])})


def main(arguments):
    if len(arguments) == 4 and arguments[0] == "echo":
        echo(arguments[1], int(arguments[2]), arguments[3])
    elif len(arguments) == 6 and arguments[0] == "client":
        client(arguments[1], int(arguments[2]), int(arguments[3]), float(arguments[4]),
               arguments[5])
    elif len(arguments) == 5 and arguments[0] == "many":
        many(arguments[1], int(arguments[2]), int(arguments[3]), arguments[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
