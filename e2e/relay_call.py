#!/usr/bin/env python3
"""A SIP call through a real media relay (Debian's rtpengine, userspace), for
e2e/relay-rtpengine.sh. Three roles, each in its own network namespace:

  relay_call.py proxy LISTEN_IP NG_PORT A_IP B_IP OUT.json
      A one-call SIP proxy beside rtpengine: forwards A's requests to B and B's responses to
      A (and the other way), rewriting each SDP through rtpengine's ng protocol (offer on the
      INVITE, answer on its 200, query and delete on the BYE: rtpengine's own statistics go to
      OUT.json).
  relay_call.py caller MY_IP PROXY_IP SECONDS OUT.json
  relay_call.py callee MY_IP PROXY_IP SECONDS OUT.json
      The two ends: SIP (INVITE, 200, ACK, BYE), then G.711 RTP at 50 packets/s both ways for
      SECONDS, each end counting what it receives (RFC 3550 appendix A.3: expected from the
      extended highest sequence number, lost = expected - received) and sending receiver
      reports about it (RFC 3550 section 6.4.2) to the relay's RTCP port every second, the
      last one after the other end's media stopped. OUT.json: sent, received, lost, highest.

Every wait has a deadline; a role that misses one exits non-zero with a one-line reason.
"""
import json
import random
import socket
import struct
import sys
import time

SIP_PORT = 5060
MEDIA_PORT = 20000
CALL_ID = "relay-e2e-1@netquality.test"


def bencode(value):
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes):
        return b"%d:%s" % (len(value), value)
    if isinstance(value, list):
        return b"l" + b"".join(bencode(v) for v in value) + b"e"
    if isinstance(value, dict):
        return b"d" + b"".join(bencode(k) + bencode(value[k]) for k in sorted(value)) + b"e"
    raise TypeError(type(value))


def bdecode(data, at=0):
    kind = data[at:at + 1]
    if kind == b"i":
        end = data.index(b"e", at)
        return int(data[at + 1:end]), end + 1
    if kind in (b"l", b"d"):
        at += 1
        items = []
        while data[at:at + 1] != b"e":
            item, at = bdecode(data, at)
            items.append(item)
        if kind == b"l":
            return items, at + 1
        return {items[i].decode(): items[i + 1] for i in range(0, len(items), 2)}, at + 1
    colon = data.index(b":", at)
    length = int(data[at:colon])
    return data[colon + 1:colon + 1 + length], colon + 1 + length


def ng(port, command):
    """One ng request to rtpengine on 127.0.0.1:port (a cookie, a space, a bencoded dict)."""
    cookie = "%08x" % random.getrandbits(32)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(5)
        s.sendto(cookie.encode() + b" " + bencode(command), ("127.0.0.1", port))
        data, _ = s.recvfrom(65535)
    reply, _ = bdecode(data[data.index(b" ") + 1:])
    if reply.get("result") != b"ok":
        raise SystemExit(f"rtpengine refused {command.get('command')}: {reply}")
    return reply


def sdp(ip, port):
    return (f"v=0\r\no=- 1 1 IN IP4 {ip}\r\ns=-\r\nc=IN IP4 {ip}\r\nt=0 0\r\n"
            f"m=audio {port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n")


def media_of(body):
    ip = port = None
    for line in body.split("\r\n"):
        if line.startswith("c=IN IP4 "):
            ip = line.split()[-1]
        if line.startswith("m=audio "):
            port = int(line.split()[1])
    return ip, port


def message(first, headers, body=""):
    lines = [first] + [f"{k}: {v}" for k, v in headers]
    if body:
        lines.append("Content-Type: application/sdp")
    lines.append(f"Content-Length: {len(body.encode())}")
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode()


def parse(data):
    text = data.decode(errors="replace")
    head, _, body = text.partition("\r\n\r\n")
    lines = head.split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), value.strip())
    return lines[0], headers, body


def with_body(data, body):
    first, _, _ = data.decode().partition("\r\n")
    head = data.decode().partition("\r\n\r\n")[0]
    kept = [l for l in head.split("\r\n")[1:]
            if not l.lower().startswith(("content-length:", "content-type:"))]
    return message(first, [tuple(l.split(": ", 1)) for l in kept], body)


def proxy(listen_ip, ng_port, a_ip, b_ip, out):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((listen_ip, SIP_PORT))
    sock.settimeout(1)
    deadline = time.time() + 300
    tags = {}
    stats = {}
    while time.time() < deadline:
        try:
            data, source = sock.recvfrom(65535)
        except socket.timeout:
            continue
        first, headers, body = parse(data)
        to = b_ip if source[0] == a_ip else a_ip
        from_tag = headers.get("from", "").partition("tag=")[2]
        to_tag = headers.get("to", "").partition("tag=")[2]
        if first.startswith("INVITE") and body:
            reply = ng(ng_port, {"command": "offer", "call-id": CALL_ID, "from-tag": from_tag,
                                 "sdp": body, "replace": ["origin", "session-connection"]})
            data = with_body(data, reply["sdp"].decode())
            tags["from"] = from_tag
        elif first.startswith("SIP/2.0 200") and "INVITE" in headers.get("cseq", "") and body:
            reply = ng(ng_port, {"command": "answer", "call-id": CALL_ID, "from-tag": tags["from"],
                                 "to-tag": to_tag, "sdp": body,
                                 "replace": ["origin", "session-connection"]})
            data = with_body(data, reply["sdp"].decode())
        elif first.startswith("BYE"):
            query = ng(ng_port, {"command": "query", "call-id": CALL_ID})
            stats = json.loads(json.dumps(query, default=lambda v: v.decode(errors="replace")))
        sock.sendto(data, (to, SIP_PORT))
        if first.startswith("SIP/2.0 200") and "BYE" in headers.get("cseq", ""):
            ng(ng_port, {"command": "delete", "call-id": CALL_ID})
            json.dump({"query": stats}, open(out, "w"))
            return
    raise SystemExit("proxy: no BYE answered within 300 s")


class Receiver:
    """RFC 3550 appendix A.3 for one source: the extended highest sequence, received, lost."""

    def __init__(self):
        self.base = self.highest = None
        self.received = 0
        self.ssrc = None

    def add(self, packet):
        if len(packet) < 12 or packet[0] >> 6 != 2:
            return
        sequence = struct.unpack("!H", packet[2:4])[0]
        self.ssrc = struct.unpack("!I", packet[8:12])[0]
        if self.base is None:
            self.base = self.highest = sequence
        else:
            extended = self.highest + ((sequence - self.highest + 32768) % 65536 - 32768)
            self.highest = max(self.highest, extended)
        self.received += 1

    def expected(self):
        return 0 if self.base is None else self.highest - self.base + 1

    def lost(self):
        return self.expected() - self.received

    def report(self, my_ssrc):
        """An RR with one report block (RFC 3550 section 6.4.2), no SR known (LSR 0)."""
        lost = max(0, self.lost()) & 0xFFFFFF
        block = struct.pack("!IBBHIIII", self.ssrc, 0, lost >> 16, lost & 0xFFFF,
                            self.highest & 0xFFFFFFFF, 0, 0, 0)
        return struct.pack("!BBHI", 0x81, 201, 7, my_ssrc) + block


def endpoint(role, my_ip, proxy_ip, seconds, out):
    sip = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sip.bind((my_ip, SIP_PORT))
    sip.settimeout(10)
    rtp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtp.bind((my_ip, MEDIA_PORT))
    rtp.setblocking(False)
    rtcp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rtcp.bind((my_ip, MEDIA_PORT + 1))
    rtcp.setblocking(False)
    my_ssrc = 0xA1A1A1A1 if role == "caller" else 0xB2B2B2B2
    via = [("Via", f"SIP/2.0/UDP {my_ip}:{SIP_PORT};branch=z9hG4bK-{role}-1")]
    dialog = [("From", f"<sip:alice@{proxy_ip}>;tag=alice-1"),
              ("To", f"<sip:bob@{proxy_ip}>" + (";tag=bob-1" if role == "callee" else "")),
              ("Call-ID", CALL_ID)]
    if role == "caller":
        sip.sendto(message(f"INVITE sip:bob@{proxy_ip} SIP/2.0",
                           via + dialog + [("CSeq", "1 INVITE"), ("Max-Forwards", "70")],
                           sdp(my_ip, MEDIA_PORT)), (proxy_ip, SIP_PORT))
        first, headers, body = parse(sip.recvfrom(65535)[0])
        if not first.startswith("SIP/2.0 200"):
            raise SystemExit(f"caller: {first}")
        ack_dialog = dialog[:1] + [("To", headers["to"])] + dialog[2:]
        sip.sendto(message(f"ACK sip:bob@{proxy_ip} SIP/2.0",
                           via + ack_dialog + [("CSeq", "1 ACK")]), (proxy_ip, SIP_PORT))
    else:
        data, _ = sip.recvfrom(65535)
        first, headers, body = parse(data)
        if not first.startswith("INVITE"):
            raise SystemExit(f"callee: {first}")
        sip.sendto(message("SIP/2.0 200 OK",
                           [("Via", headers["via"])] + dialog + [("CSeq", "1 INVITE")],
                           sdp(my_ip, MEDIA_PORT)), (proxy_ip, SIP_PORT))
        first, _, _ = parse(sip.recvfrom(65535)[0])
        if not first.startswith("ACK"):
            raise SystemExit(f"callee: {first}")
    relay_media = media_of(body)
    receiver = Receiver()
    sent = 0
    start = time.time()
    next_report = start + 1
    payload = bytes(160)
    # Media both ways, each end on its own clock; then a second of listening (the other end's
    # last packets), and a last report after it: it counts every loss of the call.
    while True:
        now = time.time()
        sending = now - start < seconds
        if sending and now >= start + sent * 0.02:
            header = struct.pack("!BBHII", 0x80, 0, sent & 0xFFFF, (sent * 160) & 0xFFFFFFFF, my_ssrc)
            rtp.sendto(header + payload, relay_media)
            sent += 1
        try:
            while True:
                receiver.add(rtp.recvfrom(2048)[0])
        except BlockingIOError:
            pass
        try:
            while True:
                rtcp.recvfrom(2048)
        except BlockingIOError:
            pass
        if now >= next_report and receiver.ssrc is not None:
            rtcp.sendto(receiver.report(my_ssrc), (relay_media[0], relay_media[1] + 1))
            next_report = now + 1
        if now - start >= seconds + 1.5:
            break
        time.sleep(0.002)
    if receiver.ssrc is not None:
        rtcp.sendto(receiver.report(my_ssrc), (relay_media[0], relay_media[1] + 1))
    # The caller hangs up once the callee's last report went out (it sends it at the same time).
    time.sleep(1.0)
    if role == "caller":
        sip.sendto(message(f"BYE sip:bob@{proxy_ip} SIP/2.0",
                           via + ack_dialog + [("CSeq", "2 BYE")]), (proxy_ip, SIP_PORT))
        first, _, _ = parse(sip.recvfrom(65535)[0])
    else:
        data, _ = sip.recvfrom(65535)
        first, headers, _ = parse(data)
        sip.sendto(message("SIP/2.0 200 OK",
                           [("Via", headers["via"])] + dialog + [("CSeq", "2 BYE")]),
                   (proxy_ip, SIP_PORT))
    json.dump({"ssrc": my_ssrc, "sent": sent, "received": receiver.received,
               "from_ssrc": receiver.ssrc, "expected": receiver.expected(),
               "lost": receiver.lost()}, open(out, "w"))


if __name__ == "__main__":
    if sys.argv[1] == "proxy":
        proxy(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6])
    else:
        endpoint(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5])
