#!/usr/bin/env python3
"""A user-space layer-2 delay bridge for the end-to-end tests (this kernel has no netem).

Run it in a namespace that owns two interfaces with no addresses (typically the middle ends of
two veth pairs). Every frame received on one interface, ARP included, is sent out of the other
after the configured one-way delay (the same both ways), so the two namespaces beyond sit on one
subnet as if cabled together, with that delay on the cable. Frames keep their order in each
direction (a FIFO released in order; when the delay drops, the new frames wait behind the old).

The delay can change while it runs: `--delay-file FILE` holds milliseconds as text (integer or
decimal); the file is re-read every 50 ms at least, and at once on SIGUSR1. `--delay-ms N` is the
delay until the file says otherwise (or when there is no file). SIGINT or SIGTERM ends it
cleanly; it then prints one JSON line with the frames, bytes and errors of each direction and how
late the frames left against their release times (the bridge's own error on the delay).

The interfaces are put in promiscuous mode (PACKET_MR_PROMISC) so frames for the far side's MAC
address reach the socket. Offloads must be off on the veths (the harness runs `ethtool -K IF gro
off tso off gso off tx off` in the end namespaces): a frame with a checksum left for the hardware
would arrive with a wrong one, and a GRO or TSO frame larger than the MTU cannot be sent on;
frames that cannot be sent are counted as errors, never silently lost.

    delay_bridge.py --if1 VETH_TO_A --if2 VETH_TO_B [--delay-ms N] [--delay-file FILE]

Measured (2-core machine shared with a Swift build, ping A->B through the bridge, mean of 15-20):
at 0 / 50 / 150 ms one-way, RTT 0.12-0.42 / 100.08-100.13 / 300.07-300.12 ms with the bridge
under `chrt -f 10`; frames left 0.1 ms (mean) and at most 1.3 ms after their release time in a
SIP call. Without real-time priority, under load, 50 ms gave 104.2 +/- 2.8 ms: run it with chrt.
Without `ethtool -K ... tx off tso off gso off` a TCP transfer through it stalls.
"""
import argparse
import collections
import errno
import json
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_IGNORE_OUTGOING = 23  # Linux 4.20: our own sends never come back to us
PACKET_OUTGOING = 4  # sll_pkttype of a frame this host sent (belt and braces with the above)
RELOAD_EVERY = 0.05  # seconds between re-reads of the delay file
MAX_FRAME = 65536
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class Direction:
    """Frames from one interface, queued for the other with their release times."""

    def __init__(self, name, source, target):
        self.name, self.source, self.target = name, source, target
        self.queue = collections.deque()  # (release time, frame), in arrival order
        self.frames = self.bytes = self.errors = self.truncated = 0
        self.late_total = self.late_max = 0.0
        self.last_due = 0.0  # a frame can leave no earlier than the one before it (order)

    def receive(self, delay):
        """Drains every frame waiting on the source socket into the queue. A frame's delay
        counts from the kernel's receive time stamp, not from when we got round to reading it."""
        while True:
            try:
                frame, ancillary, flags, address = self.source.recvmsg(MAX_FRAME, 64)
            except BlockingIOError:
                return
            except InterruptedError:
                continue
            if address[2] == PACKET_OUTGOING:
                continue
            if flags & socket.MSG_TRUNC:  # larger than any frame the MTU allows: a GRO giant
                self.truncated += 1
                continue
            arrived = time.monotonic()
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", data[:16])
                    # The stamp is wall-clock time: move it onto the monotonic clock.
                    stamped = arrived - (time.time() - (seconds + nanoseconds / 1e9))
                    arrived = min(arrived, stamped)
            self.queue.append((arrived + delay, frame))

    def release(self, now):
        """Sends the frames whose time has come, in order."""
        while self.queue and self.queue[0][0] <= now:
            due, frame = self.queue.popleft()
            try:
                self.target.send(frame)
            except InterruptedError:
                self.queue.appendleft((due, frame))
                return
            except OSError as error:
                if error.errno in (errno.EAGAIN, errno.ENOBUFS):
                    self.queue.appendleft((due, frame))  # the queue is full: try again shortly
                    return
                self.errors += 1
                continue
            # Lateness against what the order allows: after the delay drops, new frames wait
            # behind the old ones by design, which is no error of the bridge.
            self.last_due = max(self.last_due, due)
            late = time.monotonic() - self.last_due
            self.frames += 1
            self.bytes += len(frame)
            self.late_total += late
            self.late_max = max(self.late_max, late)

    def summary(self):
        return {
            "frames": self.frames,
            "bytes": self.bytes,
            "errors": self.errors,
            "truncated": self.truncated,
            "queued_at_exit": len(self.queue),
            "late_ms_mean": round(1000 * self.late_total / self.frames, 3) if self.frames else None,
            "late_ms_max": round(1000 * self.late_max, 3),
        }


def open_socket(interface):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((interface, ETH_P_ALL))
    index = socket.if_nametoindex(interface)
    # struct packet_mreq { int mr_ifindex; unsigned short mr_type, mr_alen; unsigned char mr_address[8]; }
    sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, struct.pack("iHH8s", index, PACKET_MR_PROMISC, 0, b""))
    try:
        sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    except OSError:
        pass  # older kernel: the sll_pkttype check alone filters our sends
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    sock.setblocking(False)
    # Frames that arrived between socket() and bind() may come from any interface: drop them.
    while True:
        try:
            sock.recv(MAX_FRAME)
        except BlockingIOError:
            break
    return sock


def read_delay(path, current):
    """The delay in seconds the file says, or `current` when it says nothing readable."""
    try:
        with open(path) as file:
            text = file.read().strip()
        value = float(text)
    except (OSError, ValueError):
        return current
    return max(0.0, value) / 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--if1", required=True, help="first interface (no address)")
    parser.add_argument("--if2", required=True, help="second interface (no address)")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="initial one-way delay, ms")
    parser.add_argument("--delay-file", help="file holding the one-way delay in ms, re-read every 50 ms and on SIGUSR1")
    parser.add_argument("--ready-file", help="file written once the sockets are open")
    args = parser.parse_args()

    delay = max(0.0, args.delay_ms) / 1000
    if args.delay_file:
        delay = read_delay(args.delay_file, delay)
    first, second = open_socket(args.if1), open_socket(args.if2)
    directions = [Direction(f"{args.if1}>{args.if2}", first, second),
                  Direction(f"{args.if2}>{args.if1}", second, first)]
    by_fd = {first.fileno(): directions[0], second.fileno(): directions[1]}

    state = {"stop": False, "reload": False}

    def on_stop(signum, frame):
        state["stop"] = True

    def on_reload(signum, frame):
        state["reload"] = True

    signal.signal(signal.SIGINT, on_stop)
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGUSR1, on_reload)
    # A signal wakes the poll at once (its handler runs, then epoll returns EINTR or the
    # wake-up fd is readable).
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)

    poller = select.epoll()
    poller.register(first.fileno(), select.EPOLLIN)
    poller.register(second.fileno(), select.EPOLLIN)
    poller.register(wake_read, select.EPOLLIN)
    if args.ready_file:
        with open(args.ready_file, "w") as file:
            file.write(f"{os.getpid()}\n")

    next_reload = time.monotonic() + RELOAD_EVERY
    changes = 0
    while not state["stop"]:
        now = time.monotonic()
        if args.delay_file and (state["reload"] or now >= next_reload):
            state["reload"] = False
            updated = read_delay(args.delay_file, delay)
            if updated != delay:
                delay, changes = updated, changes + 1
            next_reload = now + RELOAD_EVERY
        for direction in directions:
            direction.release(now)
        # Sleep until the next frame is due, the next re-read, or a frame or signal arrives.
        wake = next_reload if args.delay_file else now + 1.0
        for direction in directions:
            if direction.queue:
                wake = min(wake, direction.queue[0][0])
        remaining = wake - time.monotonic()
        if 0 < remaining <= 0.001:
            # epoll counts whole milliseconds (rounded up): the last one is slept precisely.
            # A frame arriving meanwhile keeps its kernel time stamp, so it loses nothing.
            time.sleep(remaining)
            continue
        try:
            # Wake up to a millisecond early rather than late (epoll rounds up).
            events = poller.poll(max(0.0, remaining - 0.001))
        except InterruptedError:
            continue
        for fd, _ in events:
            if fd == wake_read:
                try:
                    os.read(wake_read, 512)
                except BlockingIOError:
                    pass
            else:
                by_fd[fd].receive(delay)

    result = {d.name: d.summary() for d in directions}
    result["delay_ms"] = round(delay * 1000, 3)
    result["delay_changes"] = changes
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    sys.exit(main())
