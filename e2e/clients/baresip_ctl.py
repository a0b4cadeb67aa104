#!/usr/bin/env python3
"""Drives one baresip user agent through its `ctrl_tcp` module, for the end-to-end tests.

baresip's ctrl_tcp (configured with `ctrl_tcp_listen 127.0.0.1:PORT`) takes commands as
netstrings holding JSON, {"command": "dial", "params": "sip:bob@10.204.0.2", "token": "3"}, answers
each with {"response": true, "ok": ..., "data": ..., "token": ...}, and sends every user-agent
event ({"event": true, "type": "CALL_ESTABLISHED", ...}) on the same connection. It keeps one
connection at a time, so this one process holds it for the whole test:

  - it connects (retrying until --connect-timeout), then
  - reads command lines ("dial sip:bob@ADDR", "hold", "resume", "hangup", "quit", any command of
    baresip's menu) from the named pipe --commands, opened read-write so that it never sees an
    end of file and a writer never blocks,
  - and appends every response and event, with its wall-clock time "t", as one JSON line to
    --log, where the harness polls for them.

It ends on SIGINT/SIGTERM, when baresip closes the connection, or after the command "exit".

    baresip_ctl.py --port 4444 --commands FIFO --log EVENTS.jsonl
"""
import argparse
import json
import os
import select
import signal
import socket
import sys
import time


def netstring(payload):
    data = json.dumps(payload).encode()
    return str(len(data)).encode() + b":" + data + b","


def parse_netstrings(buffer):
    """The complete netstrings at the head of buffer, and what is left."""
    messages = []
    while True:
        colon = buffer.find(b":")
        if colon < 0:
            return messages, buffer
        length = int(buffer[:colon])
        end = colon + 1 + length
        if len(buffer) < end + 1:
            return messages, buffer
        messages.append(buffer[colon + 1:end])
        buffer = buffer[end + 1:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--commands", required=True, help="named pipe of command lines (created if missing)")
    parser.add_argument("--log", required=True, help="JSON lines of responses and events")
    parser.add_argument("--connect-timeout", type=float, default=10.0)
    args = parser.parse_args()

    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))

    log = open(args.log, "a", buffering=1)

    def record(entry):
        entry = dict(entry, t=round(time.time(), 6))
        log.write(json.dumps(entry) + "\n")

    if not os.path.exists(args.commands):
        os.mkfifo(args.commands)
    commands = os.open(args.commands, os.O_RDWR | os.O_NONBLOCK)

    deadline = time.time() + args.connect_timeout
    while True:
        try:
            connection = socket.create_connection((args.host, args.port), timeout=1)
            break
        except OSError as error:
            if time.time() >= deadline or stop["now"]:
                record({"error": f"cannot connect to 127.0.0.1:{args.port}: {error}"})
                return 1
            time.sleep(0.1)
    connection.setblocking(False)
    record({"connected": True})

    received, pending, token = b"", b"", 0
    while not stop["now"]:
        try:
            readable, _, _ = select.select([connection, commands], [], [], 0.5)
        except InterruptedError:
            continue
        if commands in readable:
            try:
                pending += os.read(commands, 4096)
            except BlockingIOError:
                pass
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                line = line.decode().strip()
                if not line:
                    continue
                if line == "exit":
                    stop["now"] = True
                    break
                command, _, params = line.partition(" ")
                token += 1
                record({"sent": command, "params": params, "token": str(token)})
                connection.setblocking(True)
                connection.sendall(netstring({"command": command, "params": params, "token": str(token)}))
                connection.setblocking(False)
        if connection in readable:
            try:
                data = connection.recv(65536)
            except BlockingIOError:
                continue
            if not data:
                record({"closed": True})
                break
            received += data
            messages, received = parse_netstrings(received)
            for message in messages:
                try:
                    record(json.loads(message))
                except ValueError:
                    record({"unparsed": message.decode(errors="replace")})
    connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
