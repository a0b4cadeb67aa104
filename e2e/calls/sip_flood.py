#!/usr/bin/env python3
"""Junk INVITEs into silence for e2e/calls/sip-flood.sh: COUNT INVITEs, each with a Call-ID of its
own, from SOURCE:5060 to DESTINATION:5060 (where nothing listens) at RATE a second, each sent
once (no retransmission). Prints the number sent, the truth the agent's counters must add up
to."""
import socket
import sys
import time


def invite(index, source, destination):
    call_id = f"junk-{index}@{source}"
    lines = [
        f"INVITE sip:100@{destination} SIP/2.0",
        f"Via: SIP/2.0/UDP {source}:5060;branch=z9hG4bK-junk-{index}",
        "Max-Forwards: 70",
        f"From: <sip:scanner@{source}>;tag=junk{index}",
        f"To: <sip:100@{destination}>",
        f"Call-ID: {call_id}",
        "CSeq: 1 INVITE",
        f"Contact: <sip:scanner@{source}:5060>",
        "Content-Length: 0",
        "",
        "",
    ]
    return "\r\n".join(lines).encode()


def main():
    source, destination, count, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((source, 5060))
    started = time.monotonic()
    sent = 0
    for index in range(count):
        due = started + index / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        try:
            sock.sendto(invite(index, source, destination), (destination, 5060))
        except ConnectionRefusedError:
            # The ICMP port unreachable of an earlier INVITE, reported on this send: sent again.
            sock.sendto(invite(index, source, destination), (destination, 5060))
        sent += 1
    print(sent)


if __name__ == "__main__":
    main()
