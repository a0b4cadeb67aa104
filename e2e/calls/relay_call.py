#!/usr/bin/env python3
"""A SIP call through a real media relay (Debian's rtpengine, userspace), for
e2e/calls/relay-rtpengine.sh. Three roles, each in its own network namespace:

  relay_call.py proxy LISTEN_IP NG_PORT A_IP B_IP OUT.json
      A one-call SIP proxy beside rtpengine: forwards A's requests to B and B's responses to
      A (and the other way), rewriting each SDP through rtpengine's ng protocol (offer on the
      INVITE, answer on its 200, query and delete on the BYE: rtpengine's own statistics go to
      OUT.json).
  relay_call.py caller MY_IP PROXY_IP SECONDS OUT.json [DELAY_MS]
  relay_call.py callee MY_IP PROXY_IP SECONDS OUT.json [DELAY_MS]
      The two ends: SIP (INVITE, 200, ACK, BYE), then G.711 RTP at 50 packets/s both ways for
      SECONDS, each end counting what it receives (RFC 3550 appendix A.3: expected from the
      extended highest sequence number, lost = expected - received) and sending a sender
      report with a report block about it (RFC 3550 sections 6.4.1 and 6.4.2; LSR and DLSR
      from the last sender report it received, so the relay can time each hop's round trip)
      to the relay's RTCP port every second, the last one after the other end's media stopped.
      OUT.json: sent, received, lost, highest.
      DELAY_MS (default 0): this end's own link delay, each way, in user space (this kernel has
      no netem): every packet it sends leaves DELAY_MS after it was made, every packet it
      receives is handled DELAY_MS after it was read (its arrival for DLSR). The relay's round
      trip to this end is then 2 * DELAY_MS and a little more (the loop's own lateness).
  relay_call.py round-trips CAPTURE.pcap
      The truth of each hop's round trip from a capture at the relay (RFC 3550 section 6.4.1):
      every report block's LSR matched with the sender report that went to its reporter on the
      same hop (to that address and RTCP port), round trip = the report's capture time - that
      sender report's - DLSR. Prints JSON: {reporter address: {reported SSRC: [ms, ...]}}, in
      capture order. (tshark's own figure is whole milliseconds, each term truncated: 2 ms off.)
  relay_call.py gaps CAPTURE.pcap
      What the capture itself holds of each RTP stream (the media ports, 20000 at the ends):
      packets, and lost = expected - received from the first to the highest sequence number
      (RFC 3550 appendix A.3). The truth for an analysis of that file when the capture missed
      packets the wire had (tcpdump's "dropped by kernel"). Prints JSON:
      {"SOURCE>DESTINATION": {"ssrc": n, "packets": n, "lost": n}}.

Every wait has a deadline; a role that misses one exits non-zero with a one-line reason.
"""
import collections
import json
import random
import select
import socket
import struct
import sys
import time

SIP_PORT = 5060
MEDIA_PORT = 20000
CALL_ID = "relay-e2e-1@netquality.test"
NTP_EPOCH_OFFSET = 2208988800  # seconds from 1900 to 1970 (RFC 5905 section 6)


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

    def report(self, my_ssrc, sent, now, last_sr):
        """An SR (RFC 3550 section 6.4.1) with one report block (6.4.2): LSR is the middle 32
        bits of the NTP time of the last SR received, DLSR the time since, in 1/65536 s (0 and
        0 before any)."""
        lost = max(0, self.lost()) & 0xFFFFFF
        lsr = dlsr = 0
        if last_sr is not None:
            lsr = last_sr[0]
            dlsr = int((now - last_sr[1]) * 65536) & 0xFFFFFFFF
        block = struct.pack("!IBBHIIII", self.ssrc, 0, lost >> 16, lost & 0xFFFF,
                            self.highest & 0xFFFFFFFF, 0, lsr, dlsr)
        ntp = now + NTP_EPOCH_OFFSET
        ntp_seconds = int(ntp)
        ntp_fraction = int((ntp - ntp_seconds) * 2**32) & 0xFFFFFFFF
        info = struct.pack("!IIIII", ntp_seconds & 0xFFFFFFFF, ntp_fraction,
                           (sent * 160) & 0xFFFFFFFF, sent, sent * 160)
        return struct.pack("!BBHI", 0x81, 200, 12, my_ssrc) + info + block


def sender_report_time(packet):
    """The middle 32 bits of an SR's NTP timestamp (what LSR echoes), or None."""
    if len(packet) >= 28 and packet[0] >> 6 == 2 and packet[1] == 200:
        return struct.unpack("!I", packet[10:14])[0]
    return None


class Link:
    """This end's link delay, each way, in user space: a FIFO of packets to send and one of
    packets read, each released at its time (a constant delay keeps both in order)."""

    def __init__(self, delay):
        self.delay = delay
        self.outgoing = collections.deque()
        self.incoming = collections.deque()

    def send(self, sock, data, address, now):
        self.outgoing.append((now + self.delay, sock, data, address))

    def read(self, sock, kind):
        # Each packet's own read time: the loop's `now` was taken before the wait, and a packet
        # that arrived during it would be released (and its DLSR counted) before its delay was
        # over: a round trip 37 us under 2 * DELAY_MS in a CI run.
        try:
            while True:
                packet = sock.recvfrom(2048)[0]
                self.incoming.append((time.time() + self.delay, kind, packet))
        except BlockingIOError:
            pass

    def due(self, now):
        """Sends what is due; returns the (arrival, kind, packet) read and now due."""
        while self.outgoing and self.outgoing[0][0] <= now:
            _, sock, data, address = self.outgoing.popleft()
            sock.sendto(data, address)
        arrived = []
        while self.incoming and self.incoming[0][0] <= now:
            arrived.append(self.incoming.popleft())
        return arrived

    def next_time(self):
        heads = [q[0][0] for q in (self.outgoing, self.incoming) if q]
        return min(heads) if heads else None


def endpoint(role, my_ip, proxy_ip, seconds, out, delay_ms):
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
    relay_rtcp = (relay_media[0], relay_media[1] + 1)
    receiver = Receiver()
    link = Link(delay_ms / 1000)
    last_sr = None  # (the middle 32 bits of its NTP time, when it arrived)
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
            link.send(rtp, header + payload, relay_media, now)
            sent += 1
        link.read(rtp, "rtp")
        link.read(rtcp, "rtcp")
        for arrival, kind, packet in link.due(now):
            if kind == "rtp":
                receiver.add(packet)
            elif sender_report_time(packet) is not None:
                last_sr = (sender_report_time(packet), arrival)
        if now >= next_report and receiver.ssrc is not None:
            link.send(rtcp, receiver.report(my_ssrc, sent, now, last_sr), relay_rtcp, now)
            next_report = now + 1
        if now - start >= seconds + 1.5:
            break
        # Sleep until the next packet to send or release, 2 ms at most.
        wake = min(t for t in (start + sent * 0.02 if sending else None, link.next_time(),
                               next_report, now + 0.002) if t is not None)
        select.select([rtp, rtcp], [], [], max(0.0, wake - time.time()))
    if receiver.ssrc is not None:
        now = time.time()
        link.send(rtcp, receiver.report(my_ssrc, sent, now, last_sr), relay_rtcp, now)
    while link.outgoing:  # what the link still holds goes out at its time
        time.sleep(max(0.0, link.outgoing[0][0] - time.time()))
        link.due(time.time())
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


def udp_datagrams(path):
    """(time, source, source port, destination, destination port, payload) of each IPv4 UDP
    datagram in a classic pcap file (Ethernet)."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    fraction = 1e-9 if magic in (0xA1B23C4D, 0x4D3CB2A1) else 1e-6
    offset = 24
    while offset + 16 <= len(data):
        seconds, subseconds, caplen = struct.unpack(endian + "III", data[offset:offset + 12])
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        if len(frame) < 42 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
            continue
        at = 14 + (frame[14] & 0x0F) * 4
        source_port, destination_port = struct.unpack("!HH", frame[at:at + 4])
        yield (seconds + subseconds * fraction, socket.inet_ntoa(frame[26:30]), source_port,
               socket.inet_ntoa(frame[30:34]), destination_port, frame[at + 8:])


def rtcp_packets(payload):
    """(packet type, report count, body) of each packet of a compound RTCP datagram."""
    while len(payload) >= 4 and payload[0] >> 6 == 2:
        length = (struct.unpack("!H", payload[2:4])[0] + 1) * 4
        yield payload[1], payload[0] & 0x1F, payload[4:length]
        payload = payload[length:]


def round_trips(path):
    sent_reports = {}  # (to address, to port, NTP middle 32 bits) -> capture time
    found = {}
    for time_s, source, source_port, destination, destination_port, payload in udp_datagrams(path):
        if payload[:1] and payload[0] >> 6 == 2 and 200 <= payload[1] <= 201:
            for kind, count, body in rtcp_packets(payload):
                if kind == 200 and len(body) >= 24:
                    middle = struct.unpack("!I", body[6:10])[0]
                    sent_reports[(destination, destination_port, middle)] = time_s
                blocks = body[24:] if kind == 200 else body[4:] if kind == 201 else b""
                for n in range(count if kind in (200, 201) else 0):
                    block = blocks[n * 24:n * 24 + 24]
                    if len(block) < 24:
                        break
                    ssrc, lsr, dlsr = struct.unpack("!I", block[:4])[0], *struct.unpack("!II", block[16:24])
                    echoed = sent_reports.get((source, source_port, lsr))
                    if lsr and echoed is not None:
                        found.setdefault(source, {}).setdefault(str(ssrc), []).append(
                            round((time_s - echoed - dlsr / 65536) * 1000, 3))
    return found


def stream_gaps(path):
    streams = {}
    for _, source, source_port, destination, destination_port, payload in udp_datagrams(path):
        if MEDIA_PORT not in (source_port, destination_port) or len(payload) < 12:
            continue
        if payload[0] >> 6 != 2 or 200 <= payload[1] <= 204:
            continue
        sequence, ssrc = struct.unpack("!H", payload[2:4])[0], struct.unpack("!I", payload[8:12])[0]
        key = f"{source}:{source_port}>{destination}:{destination_port}"
        stream = streams.setdefault(key, {"ssrc": ssrc, "packets": 0, "first": sequence,
                                          "highest": sequence})
        stream["packets"] += 1
        # Extended highest sequence number (RFC 3550 appendix A.1): a step forward modulo 2^16.
        step = (sequence - stream["highest"]) & 0xFFFF
        if 0 < step < 0x8000:
            stream["highest"] += step
    return {key: {"ssrc": s["ssrc"], "packets": s["packets"],
                  "lost": s["highest"] - s["first"] + 1 - s["packets"]}
            for key, s in streams.items()}


if __name__ == "__main__":
    if sys.argv[1] == "round-trips":
        print(json.dumps(round_trips(sys.argv[2])))
    elif sys.argv[1] == "gaps":
        print(json.dumps(stream_gaps(sys.argv[2])))
    elif sys.argv[1] == "proxy":
        proxy(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6])
    else:
        endpoint(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5],
                 float(sys.argv[6]) if len(sys.argv) > 6 else 0.0)
