"""The python ends and checks of e2e/probes/stamp-wire-safety.sh.

  wire PCAP PORT PROBE_OUTPUT COUNT SIZE
      tshark's twamp.test decoding of a capture taken on the sender's veth while
      `netquality probe --count COUNT [--size SIZE]` ran, compared field by field with what we
      sent, what the reflector answered and what the probe printed. Prints ok/FAIL lines.
  send SOURCE TARGET PORT COUNT SIZE [SOURCE_PORT]
      COUNT datagrams of SIZE bytes (a valid unauthenticated STAMP request when SIZE >= 44)
      from SOURCE, then listens 1 s for answers; prints {"sent", "sent_bytes", "answers"}.
  flood SOURCE TARGET PORT SECONDS [PER_SECOND]
      44-byte STAMP requests for SECONDS, as fast as one socket goes or PER_SECOND (in trains
      of 64), answers read in between; prints the counts and the monotonic times of the first
      send, last send and last answer.
  counters INTERFACE
      This namespace's UDP counters (/proc/net/snmp) and the interface's drop counters.
  metrics URL
      The netquality_reflector_* series of an agent's /metrics, as JSON.
  settled URL SECONDS
      Like metrics, once two reads 0.5 s apart agree (the reflector thread publishes its
      counters after each batch it serves).
  scrape URL
      The whole /metrics text (for promtool).
  probe-sends PROBE_JSON SIZE
      `netquality probe --json`'s totals in send's form (SIZE: its packets' bytes).
  check-flood NAME RATE BURST DROPS FLOOD PROBE METRICS_BEFORE METRICS_AFTER REFLECTOR_BEFORE
              REFLECTOR_AFTER SENDER_BEFORE SENDER_AFTER
      The flood's accounting (JSON files from the commands above; the probe's is
      `netquality probe --json`). DROPS: "none" (the reflector's kernel must drop nothing and
      the probe lose nothing) or "counted" (drops allowed, and accounted for).
  check-refusals METRICS_BEFORE METRICS_AFTER REFLECTOR_BEFORE REFLECTOR_AFTER REASON=FILE...
      Each FILE's requests (send's JSON) refused and counted under REASON, none answered
      (REASON "answered": all answered); the totals received and reflected add up.
"""

import calendar
import json
import re
import select
import socket
import struct
import subprocess
import sys
import time
import urllib.request

NTP_UNIX_OFFSET = 2_208_988_800


def ntp_bytes(seconds):
    whole = int(seconds)
    return struct.pack("!II", whole + NTP_UNIX_OFFSET, int((seconds - whole) * 2**32))


def request(sequence, size):
    """RFC 8762 section 4.2.1: sequence, T1, error estimate (1 s, S clear), MBZ to 44 bytes."""
    if size < 44:
        return bytes(size)
    base = struct.pack("!I", sequence) + ntp_bytes(time.time()) + struct.pack("!H", 0x1980)
    return base + bytes(size - len(base))


# -- the wire format against tshark ---------------------------------------------------------

FIELDS = [
    "frame.time_epoch", "ip.src", "ip.ttl", "ip.dsfield.dscp", "udp.srcport", "udp.dstport",
    "udp.length", "twamp.test.seq_number", "twamp.test.timestamp",
    "twamp.test.error_estimate", "twamp.test.error_estimate.s", "twamp.test.error_estimate.z",
    "twamp.test.error_estimate.scale", "twamp.test.error_estimate.multiplier",
    "twamp.test.receive_timestamp", "twamp.test.sender_seq_number",
    "twamp.test.sender_timestamp", "twamp.test.sender_error_estimate",
    "twamp.test.sender_ttl", "twamp.test.padding",
]
MONTHS = {m: i for i, m in enumerate(
    "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), start=1)}


def epoch_nanoseconds(text):
    """tshark's rendering of an absolute time ("Nov  3, 2026 14:44:47.477744102 UTC", tshark
    run with TZ=UTC) as integer nanoseconds since 1970: integers, so that equal wire bytes
    compare equal and differences carry no float error."""
    match = re.fullmatch(r"(\w{3}) +(\d+), (\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{9}) UTC", text)
    if not match:
        raise ValueError(f"unexpected tshark time {text!r}")
    month, day, year, hour, minute, second, nanos = match.groups()
    seconds = calendar.timegm(
        (int(year), MONTHS[month], int(day), int(hour), int(minute), int(second)))
    return seconds * 1_000_000_000 + int(nanos)


def frame_nanoseconds(text):
    whole, _, fraction = text.partition(".")
    return int(whole) * 1_000_000_000 + int((fraction + "000000000")[:9])


def error_estimate(raw):
    """S, Z, scale, multiplier of a 16-bit field (RFC 4656 section 4.1.2, RFC 8762 Z)."""
    return (raw >> 15 & 1, raw >> 14 & 1, raw >> 8 & 0x3F, raw & 0xFF)


def estimate_for(seconds):
    """What our encoder states for `seconds` (STAMPErrorEstimate.init(seconds:)): the smallest
    scale whose multiplier, rounded up, fits in 8 bits. Worked out here from the definition,
    not copied from the Swift code."""
    units = seconds * 2**32
    for scale in range(64):
        multiplier = -(-units // 2**scale)
        if multiplier <= 255:
            return scale, int(max(1, multiplier))
    return 63, 255


def wire(pcap, port, probe_output, count, size):
    port, count, size = int(port), int(count), int(size)
    fields = [a for f in FIELDS for a in ("-e", f)]
    out = subprocess.run(
        ["tshark", "-r", pcap, "-d", f"udp.port=={port},twamp.test", "-T", "fields",
         "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,", *fields],
        capture_output=True, text=True, check=True, timeout=60,
        env={"TZ": "UTC", "PATH": "/usr/bin:/bin"}).stdout
    rows = [dict(zip(FIELDS, line.split("|"))) for line in out.splitlines() if line]
    requests = [r for r in rows if r["udp.dstport"] == str(port)]
    replies = [r for r in rows if r["udp.srcport"] == str(port)]
    label = f"wire (size {size or 44})"
    failures = []

    def check(ok, text):
        print(("ok   " if ok else "FAIL ") + f"{label}: {text}")
        if not ok:
            failures.append(text)

    check(len(requests) == count and len(replies) == count,
          f"tshark decodes {len(requests)} requests and {len(replies)} replies "
          f"(wanted {count} each)")
    if failures:
        return 1
    length = size or 44
    check(all(int(r["udp.length"]) == 8 + length for r in requests + replies),
          f"every request and reply has {length} UDP payload bytes (a reply never longer)")
    sent = [int(r["twamp.test.seq_number"]) for r in requests]
    check(sent == list(range(count)), f"our sequence numbers 0..{count - 1} in order")
    check([int(r["twamp.test.seq_number"]) for r in replies] == list(range(count)),
          f"the reflector's own sequence numbers 0..{count - 1} (stateful, a new session)")
    check([int(r["twamp.test.sender_seq_number"]) for r in replies] == list(range(count)),
          "each reply's sender sequence number is the request's")

    # Requests read with the reflector layout: timestamp = T1, error estimate = ours.
    by_sequence = {int(r["twamp.test.seq_number"]): r for r in requests}
    sender_estimate = (0, 0) + estimate_for(1.0)  # ProbeSender: 1 s, S clear (no --clock...)
    reflector_estimate = (0, 0) + estimate_for(0.001)  # the reflector's 1 ms, S clear
    mismatched_t1, mismatched_estimate, mismatched_ttl, order, dscp = [], [], [], [], set()
    rtt_from_capture = {}
    for reply in replies:
        sequence = int(reply["twamp.test.sender_seq_number"])
        request_row = by_sequence[sequence]
        t1 = epoch_nanoseconds(request_row["twamp.test.timestamp"])
        if epoch_nanoseconds(reply["twamp.test.sender_timestamp"]) != t1:
            mismatched_t1.append(sequence)
        request_estimate = error_estimate(int(request_row["twamp.test.error_estimate"]))
        echoed_estimate = error_estimate(int(reply["twamp.test.sender_error_estimate"]))
        own_estimate = error_estimate(int(reply["twamp.test.error_estimate"]))
        # tshark's own S/Z/scale/multiplier of the reply's first estimate, parsed by it.
        parsed = [v.split(",")[0] for v in (
            reply["twamp.test.error_estimate.s"], reply["twamp.test.error_estimate.z"],
            reply["twamp.test.error_estimate.scale"],
            reply["twamp.test.error_estimate.multiplier"])]
        tshark_estimate = tuple(int(v in ("1", "True")) if i < 2 else int(v)
                                for i, v in enumerate(parsed))
        if (request_estimate, echoed_estimate, own_estimate, tshark_estimate) != (
                sender_estimate, sender_estimate, reflector_estimate, reflector_estimate):
            mismatched_estimate.append(
                (sequence, request_estimate, echoed_estimate, own_estimate, tshark_estimate))
        # The reflector states the TTL the request arrived with; a veth pair does not route,
        # so that is the TTL the capture on the sender's side shows.
        if int(reply["twamp.test.sender_ttl"]) != int(request_row["ip.ttl"]):
            mismatched_ttl.append((sequence, reply["twamp.test.sender_ttl"], request_row["ip.ttl"]))
        dscp.add(request_row["ip.dsfield.dscp"])
        t2 = epoch_nanoseconds(reply["twamp.test.receive_timestamp"])
        t3 = epoch_nanoseconds(reply["twamp.test.timestamp"])
        request_seen = frame_nanoseconds(request_row["frame.time_epoch"])
        t4 = frame_nanoseconds(reply["frame.time_epoch"])
        # One clock for all (the namespaces share the host's CLOCK_REALTIME), so the order of
        # events is strict: T1 read before the send, the frame on the sender's veth, T2 at the
        # reflector's socket, T3 read before its send, the reply's frame back on the veth.
        if not t1 <= request_seen <= t2 <= t3 <= t4:
            order.append((sequence, t1, request_seen, t2, t3, t4))
        rtt_from_capture[sequence] = ((t4 - t1) - (t3 - t2)) / 1e6
    check(not mismatched_t1, "T1 in each request equals the sender timestamp echoed "
          f"(to the nanosecond tshark shows){' ' + str(mismatched_t1) if mismatched_t1 else ''}")
    check(not mismatched_estimate,
          f"error estimates (S, Z, scale, multiplier): ours {sender_estimate} (1 s) in the "
          f"request and echoed, the reflector's {reflector_estimate} (1 ms), by tshark's "
          f"subfields too{' ' + str(mismatched_estimate[:3]) if mismatched_estimate else ''}")
    ttls = sorted({r["ip.ttl"] for r in requests})
    check(not mismatched_ttl, f"sender TTL in the replies equals the requests' IP TTL {ttls}"
          f"{' ' + str(mismatched_ttl[:3]) if mismatched_ttl else ''}")
    check(dscp == {"46"}, f"requests carry DSCP 46 (EF), the probe's default: {sorted(dscp)}")
    check(not order, "T1 <= request frame <= T2 (receive) <= T3 (reply timestamp) <= reply "
          f"frame, for every probe{' ' + str(order[:3]) if order else ''}")

    # The reflector layout ends with the TTL at octet 40; tshark calls everything after it
    # padding, the three MBZ octets 41-43 included.
    paddings = {len(r["twamp.test.padding"]) // 2 for r in requests + replies}
    padding_bytes = {r["twamp.test.padding"].strip("0") for r in requests + replies}
    check(paddings == {length - 41} and padding_bytes == {""},
          f"padding: {length - 44} bytes after the base packet (tshark: {sorted(paddings)} "
          "from octet 41, MBZ octets included), all zero both ways")

    printed = {}
    for line in open(probe_output):
        match = re.match(r"seq=(\d+) rtt=(-?[\d.]+) ms", line)
        if match:
            printed[int(match.group(1))] = float(match.group(2))
    check(sorted(printed) == list(range(count)), f"the probe printed seq=0..{count - 1}")
    # The probe's T4 is the kernel's SO_TIMESTAMPNS stamp of the reply; the capture's frame
    # time is the same skb's stamp (taken once as the packet entered the stack, when any socket
    # has asked for timestamps), so the two RTTs differ only by the printed rounding (0.5 us)
    # and the NTP fraction's 2^-32 s steps. 0.01 ms leaves 20 times that; what it would catch
    # is a T2/T3 swap or a user-space T4, off by tens of microseconds or more.
    tolerance_ms = 0.01
    differences = [abs(printed[s] - rtt_from_capture[s]) for s in printed if s in rtt_from_capture]
    worst = max(differences, default=float("inf"))
    check(len(differences) == count and worst <= tolerance_ms,
          f"printed rtt = (T4 - T1) - (T3 - T2) from the capture within {tolerance_ms} ms "
          f"(worst {worst * 1000:.3f} us; rtt {min(printed.values()):.3f}.."
          f"{max(printed.values()):.3f} ms)")
    return 1 if failures else 0


# -- senders --------------------------------------------------------------------------------

def sender_socket(source, source_port=0):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Room for every answer while we are busy sending (root may exceed rmem_max): a drop here
    # would look like the reflector's doing.
    sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
    sock.bind((source, int(source_port)))
    sock.setblocking(False)
    return sock


def send(source, target, port, count, size, source_port=0):
    count, size = int(count), int(size)
    sock = sender_socket(source, source_port)
    sent = sent_bytes = 0
    for sequence in range(count):
        sock.sendto(request(sequence, size), (target, int(port)))
        sent += 1
        sent_bytes += size
    answers = 0
    deadline = time.monotonic() + 1.0  # answers come in microseconds; 1 s is plenty
    while (left := deadline - time.monotonic()) > 0:
        if select.select([sock], [], [], left)[0]:
            sock.recv(65536)
            answers += 1
    print(json.dumps({"sent": sent, "sent_bytes": sent_bytes, "answers": answers}))


def flood(source, target, port, seconds, per_second=0, size=44):
    sock = sender_socket(source)
    packet_size = int(size)
    destination = (target, int(port))
    sent = send_failures = answers = answer_bytes = longer_answers = 0
    first_send = last_send = last_answer = None
    start = time.monotonic()
    end = start + float(seconds)

    def drain():
        nonlocal answers, answer_bytes, longer_answers, last_answer
        while True:
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                return
            last_answer = time.monotonic()  # read after the reflector sent it: an upper bound
            answers += 1
            answer_bytes += len(data)
            longer_answers += len(data) > packet_size

    sequence = 0
    train_seconds = 64 / float(per_second) if float(per_second) > 0 else 0
    first_send = time.monotonic()  # before the first send: a lower bound for its arrival
    due = first_send
    while True:
        if train_seconds:
            # A train late (we were descheduled) is not made up by sending the next at once:
            # the schedule moves on from it.
            if (wait := due - time.monotonic()) > 0:
                time.sleep(wait)
            due = max(due, time.monotonic()) + train_seconds
        for _ in range(64):
            try:
                sock.sendto(request(sequence, packet_size), destination)
                sent += 1
            except (BlockingIOError, OSError):
                send_failures += 1
            sequence += 1
        last_send = time.monotonic()
        drain()
        if last_send >= end:
            break
    # The reflector's queue empties within milliseconds; 1 s without answers means none will
    # come (and the bound below uses the time of the last answer, not of this wait).
    quiet_until = time.monotonic() + 1.0
    while (left := quiet_until - time.monotonic()) > 0:
        if select.select([sock], [], [], left)[0]:
            drain()
            quiet_until = time.monotonic() + 1.0
    print(json.dumps({
        "sent": sent, "sent_bytes": sent * packet_size, "send_failures": send_failures,
        "answers": answers, "answer_bytes": answer_bytes, "longer_answers": longer_answers,
        "first_send": first_send, "last_send": last_send, "last_answer": last_answer,
    }))


def spoof(source, source_port, target, port, size):
    """One request from SOURCE:SOURCE_PORT written by a raw socket, so no socket need be bound
    there (the port may be another program's): what a spoofer sends. UDP checksum 0: none
    (RFC 768)."""
    payload = request(0, int(size))
    header = struct.pack("!HHHH", int(source_port), int(port), 8 + len(payload), 0)
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    sock.bind((source, 0))
    sock.sendto(header + payload, (target, 0))
    print(json.dumps({"sent": 1}))


def spoof_flood(source, source_port, target, port, seconds, per_second):
    """Requests from SOURCE:SOURCE_PORT (another program's socket: the prober's) by a raw
    socket, PER_SECOND for SECONDS, numbered from 1,000,000 (never a probe's number): a
    spoofer beside an unauthenticated session (issue 39, item 1)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    sock.bind((source, 0))
    sent, start = 0, time.monotonic()
    while time.monotonic() - start < float(seconds):
        payload = request(1_000_000 + sent, 44)
        header = struct.pack("!HHHH", int(source_port), int(port), 8 + len(payload), 0)
        sock.sendto(header + payload, (target, 0))
        sent += 1
        due = start + sent / float(per_second)
        time.sleep(max(0.0, due - time.monotonic()))
    print(json.dumps({"sent": sent, "seconds": time.monotonic() - start}))


def check_spoofed(spoof_file, probe_file):
    """Issue 39, item 1: without HMAC, the answers to spoofed packets reach the prober; it
    counts them (`unexpected`) and flags its figures as possibly spoofed."""
    spoofed, probe = json.load(open(spoof_file)), json.load(open(probe_file))
    total = probe["peer"]["probe"]["total"]
    print(f"     spoofed: {spoofed['sent']} packets in {spoofed['seconds']:.1f} s from the "
          f"prober's address and port; the probe: {total['received']} of {total['sent']} "
          f"answered, lost {total['forward_lost']} forward and {total['backward_lost']} back, "
          f"{probe['unexpected']} answers to probes never sent, possibly_spoofed "
          f"{probe['possibly_spoofed']}")
    scored = probe["peer"]["probe"]
    checks = [
        (0 < probe["unexpected"] <= spoofed["sent"],
         "the answers to the spoofed packets counted as unexpected, no more than were sent"),
        (probe["possibly_spoofed"] is True, "the probe flagged as possibly spoofed"),
        (total["unexpected_answers"] == probe["unexpected"],
         "the engine counted each of them (unexpected_answers = the sender's count)"),
        # Nothing drops on the way back over the namespace's veth: the reflector's numbers of
        # the spoofed packets it answered came back, so they are no gaps (before: 14, 1 and 11
        # probes "lost back" in three runs).
        (total["backward_lost"] == 0, "no probe lost backward (nothing drops on the way back)"),
    ]
    print(f"     the peer's figures: unexpected_answers {total['unexpected_answers']}, "
          f"last unexpected answer {scored['last_unexpected_answer']}")
    for ok, what in checks:
        print(("ok   " if ok else "FAIL ") + "spoofed without HMAC: " + what)
    return all(ok for ok, _ in checks)


def check_forged(forged_file, probe_file, metrics_before, metrics_after):
    """Issue 39, item 1: forged packets from the prober's own address, with a bad HMAC, never
    cost the prober an answer; each is counted bad_hmac, none rate_limited."""
    load = lambda path: json.load(open(path))
    forged, probe = load(forged_file), load(probe_file)
    m0, m1 = load(metrics_before), load(metrics_after)
    refused = lambda reason: (m1.get(f'netquality_reflector_refused_total{{reason="{reason}"}}', 0)
                              - m0.get(f'netquality_reflector_refused_total{{reason="{reason}"}}', 0))
    total = probe["peer"]["probe"]["total"]
    seconds = forged["last_send"] - forged["first_send"]
    rate = forged["sent"] / seconds if seconds > 0 else 0
    print(f"     forged: {forged['sent']} packets in {seconds:.1f} s ({rate:.0f}/s), answered "
          f"{forged['answers']}; probe: {total['received']} of {total['sent']} answered, "
          f"{total['forward_lost']} lost forward; bad_hmac +{refused('bad_hmac'):.0f}, "
          f"rate_limited +{refused('rate_limited'):.0f}")
    checks = [
        (seconds >= 4 and rate >= 150,
         "at least 4 s of forged packets at 150/s or more (400/s asked)"),
        (forged["answers"] == 0, "no forged packet answered"),
        (total["sent"] == 200 and total["received"] == 200 and total["forward_lost"] == 0,
         "the prober's forward loss is 0: every probe answered"),
        (refused("bad_hmac") == forged["sent"], "every forged packet counted bad_hmac"),
        (refused("rate_limited") == 0, "nothing rate_limited"),
    ]
    for ok, what in checks:
        print(("ok   " if ok else "FAIL ") + "forged: " + what)
    return 0 if all(ok for ok, _ in checks) else 1


# -- counters -------------------------------------------------------------------------------

def counters(interface):
    lines = [line.split() for line in open("/proc/net/snmp") if line.startswith("Udp:")]
    udp = {name: int(value) for name, value in zip(lines[0][1:], lines[1][1:])}
    statistics = f"/sys/class/net/{interface}/statistics/"
    link = {name: int(open(statistics + name).read()) for name in ("rx_dropped", "tx_dropped")}
    print(json.dumps({"udp": udp, "link": link}))


def read_metrics(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    series = {}
    for line in text.splitlines():
        if line.startswith("netquality_reflector_"):
            name, value = line.rsplit(" ", 1)
            series[name] = float(value)
    return series


def settled(url, seconds):
    deadline = time.monotonic() + float(seconds)
    previous = None
    while time.monotonic() < deadline:
        current = read_metrics(url)
        if current == previous:
            print(json.dumps(current))
            return 0
        previous = current
        time.sleep(0.5)
    print(f"FAIL the reflector's metrics did not settle within {seconds} s", file=sys.stderr)
    return 1


# -- the flood's accounting -----------------------------------------------------------------

def check_flood(name, rate, burst, drops, flood_file, probe_file, metrics_before, metrics_after,
                reflector_before, reflector_after, sender_before, sender_after):
    rate, burst = float(rate), float(burst)
    load = lambda path: json.load(open(path))
    flood_run, probe = load(flood_file), load(probe_file)
    m0, m1 = load(metrics_before), load(metrics_after)
    r0, r1, s0, s1 = (load(p) for p in (reflector_before, reflector_after, sender_before,
                                        sender_after))
    delta = lambda name: m1.get(name, 0) - m0.get(name, 0)
    refused = lambda reason: delta(f'netquality_reflector_refused_total{{reason="{reason}"}}')
    total = probe["peer"]["probe"]["total"]
    # Kernel drops on the reflector's side: datagrams its socket had no room for (RcvbufErrors,
    # within InErrors, which also counts bad checksums) and anything the veth dropped.
    kernel_dropped = (r1["udp"]["InErrors"] - r0["udp"]["InErrors"]
                      + sum(r1["link"][k] - r0["link"][k] for k in r1["link"]))
    sender_dropped = (s1["udp"]["InErrors"] - s0["udp"]["InErrors"]
                      + sum(s1["link"][k] - s0["link"][k] for k in s1["link"]))
    probe_reached = total["sent"] - total["forward_lost"]
    flood_reached = delta("netquality_reflector_received_packets_total") - probe_reached
    failures = []

    def check(ok, text):
        print(("ok   " if ok else "FAIL ") + f"{name}: " + text)
        if not ok:
            failures.append(text)

    sent, answers = flood_run["sent"], flood_run["answers"]
    duration = flood_run["last_send"] - flood_run["first_send"]
    print(f"     {name}: {sent} sent in {duration:.2f} s ({sent / duration:,.0f}/s), "
          f"{answers} answered, {refused('rate_limited'):.0f} rate_limited, {kernel_dropped} "
          f"dropped by the reflector's kernel, {flood_run['send_failures']} send failures; "
          f"bytes in {delta('netquality_reflector_received_bytes_total'):.0f}, out "
          f"{delta('netquality_reflector_reflected_bytes_total'):.0f}")
    print(f"     {name}, the probe alongside: {total['sent']} sent, {total['received']} answered, "
          f"{total['forward_lost']} lost forward, {total['backward_lost']} backward")
    check(sent >= 20_000, f"{sent} requests from one source: at least 20,000 (a flood: "
          f"{sent / duration / rate:.0f} times the rate limit)")
    # The token bucket: full (burst) at the first request, `rate` tokens a second after. Every
    # answer was sent between our first send and our read of the last answer, so this bound is
    # exact: no tolerance.
    window = flood_run["last_answer"] - flood_run["first_send"]
    ceiling = rate * window + burst
    check(answers <= ceiling, f"{answers} answers to the flooder <= rate x {window:.3f} s + "
          f"burst = {ceiling:.1f}")
    # And not starved: the reflector saw requests during the whole send window, so it earned a
    # token every 1/rate s. Without the burst term: 0.5 s (burst / rate) of slack for the
    # reflector thread starting late or being descheduled, which a stalled bucket does not lose
    # (tokens pile up to the burst).
    floor = rate * duration
    check(answers >= floor, f"{answers} answers >= rate x {duration:.3f} s = {floor:.1f} "
          "(the limit is a rate, not a block)")
    check(flood_run["longer_answers"] == 0 and flood_run["answer_bytes"] == answers * 44,
          f"every answer is 44 bytes like its request ({flood_run['answer_bytes']} bytes for "
          f"{answers}), the flooder's bytes out {flood_run['sent_bytes']} >= bytes back")
    check(delta("netquality_reflector_reflected_bytes_total")
          <= delta("netquality_reflector_received_bytes_total"),
          "/metrics: reflected bytes <= received bytes")
    check(sender_dropped == 0, f"no answer dropped on the senders' side ({sender_dropped}), so "
          "the flooder's and the probe's counts are what the reflector sent them")
    check(delta("netquality_reflector_reflected_packets_total") == answers + total["received"],
          f"reflected packets {delta('netquality_reflector_reflected_packets_total'):.0f} = "
          f"flooder's answers {answers} + probe's {total['received']}")
    # sent = reflected + refused + kernel-dropped, for the flood and the probe together; the
    # probe's share of the kernel's drops is its forward loss (it is never over its rate).
    check(sent == answers + refused("rate_limited") + (kernel_dropped - total["forward_lost"]),
          f"flood sent {sent} = answered {answers} + rate_limited "
          f"{refused('rate_limited'):.0f} + kernel-dropped "
          f"{kernel_dropped - total['forward_lost']} (the reflector's {kernel_dropped} minus "
          f"the probe's {total['forward_lost']} forward losses)")
    check(flood_reached == answers + refused("rate_limited"),
          f"every flood request that reached the reflector ({flood_reached:.0f}) is answered "
          "or counted rate_limited")
    other = sum(delta(f'netquality_reflector_refused_total{{reason="{reason}"}}')
                for reason in ("too_short", "oversized", "bad_source_port", "not_allowed",
                               "bad_hmac"))
    check(other == 0, f"no other refusal during the flood ({other:.0f})")
    if drops == "none":
        check(kernel_dropped == 0, f"the reflector's kernel dropped nothing ({kernel_dropped}): "
              "the reflector drained its socket as fast as the flood came")
    # The probe is never over its own rate, so only the kernel can have lost its requests:
    # its socket buffer, shared with the flood, overflowing.
    check(total["backward_lost"] == 0 and total["forward_lost"] <= kernel_dropped
          and total["received"] == total["sent"] - total["forward_lost"],
          f"the probe was served: {total['received']} of {total['sent']} answered, none lost "
          f"backward, {total['forward_lost']} lost forward (at most the {kernel_dropped} the "
          "reflector's kernel dropped)")
    if kernel_dropped:
        # The kernel drops what its full socket buffer has no room for, whoever sent it.
        during = 50 * duration  # the probe's requests while the flood ran (50/s)
        print(f"     {name}: the probe lost {total['forward_lost']} of ~{during:.0f} requests sent "
              f"during the flood ({total['forward_lost'] / during:.0%}); the flood lost "
              f"{(kernel_dropped - total['forward_lost']) / sent:.0%} of its own to the kernel")
    return 1 if failures else 0


def probe_sends(probe_file, size):
    total = json.load(open(probe_file))["peer"]["probe"]["total"]
    print(json.dumps({"sent": total["sent"], "sent_bytes": total["sent"] * int(size),
                      "answers": total["received"]}))


def check_refusals(metrics_before, metrics_after, reflector_before, reflector_after, *specs):
    load = lambda path: json.load(open(path))
    m0, m1, r0, r1 = (load(p) for p in (metrics_before, metrics_after, reflector_before,
                                        reflector_after))
    delta = lambda name: m1.get(name, 0) - m0.get(name, 0)
    kernel_dropped = (r1["udp"]["InErrors"] - r0["udp"]["InErrors"]
                      + sum(r1["link"][k] - r0["link"][k] for k in r1["link"]))
    failures = []

    def check(ok, text):
        print(("ok   " if ok else "FAIL ") + text)
        if not ok:
            failures.append(text)

    sent = sent_bytes = answered = 0
    reasons = ("too_short", "oversized", "bad_source_port", "not_allowed", "rate_limited",
               "bad_hmac")
    expected = dict.fromkeys(reasons, 0)
    for spec in specs:
        reason, _, path = spec.partition("=")
        run = load(path)
        sent += run["sent"]
        sent_bytes += run["sent_bytes"]
        answered += run["answers"]
        if reason == "answered":
            check(run["answers"] == run["sent"], f"answered: {run['answers']} of {run['sent']} "
                  f"({path.rsplit('/', 1)[-1]})")
        else:
            expected[reason] += run["sent"]
            check(run["answers"] == 0, f"{reason}: no answer to {run['sent']} requests "
                  f"({path.rsplit('/', 1)[-1]}; {run['answers']} answered)")
    for reason in reasons:
        counted = delta(f'netquality_reflector_refused_total{{reason="{reason}"}}')
        check(counted == expected[reason],
              f'netquality_reflector_refused_total{{reason="{reason}"}} +{counted:.0f} '
              f"(sent {expected[reason]})")
    check(kernel_dropped == 0, f"the reflector's kernel dropped nothing ({kernel_dropped})")
    received = delta("netquality_reflector_received_packets_total")
    received_bytes = delta("netquality_reflector_received_bytes_total")
    check(received == sent and received_bytes == sent_bytes,
          f"received +{received:.0f} packets, +{received_bytes:.0f} bytes (sent {sent}, "
          f"{sent_bytes} bytes)")
    reflected = delta("netquality_reflector_reflected_packets_total")
    check(reflected == answered, f"reflected +{reflected:.0f} (answers seen {answered})")
    return 1 if failures else 0


def main(arguments):
    command, rest = arguments[0], arguments[1:]
    if command == "wire":
        return wire(*rest)
    if command == "send":
        return send(*rest)
    if command == "flood":
        return flood(*rest)
    if command == "counters":
        return counters(*rest)
    if command == "spoof":
        return spoof(*rest)
    if command == "spoof-flood":
        return spoof_flood(*rest)
    if command == "check-spoofed":
        return 0 if check_spoofed(*rest) else 1
    if command == "check-forged":
        return check_forged(*rest)
    if command == "metrics":
        print(json.dumps(read_metrics(rest[0])))
        return 0
    if command == "settled":
        return settled(*rest)
    if command == "scrape":
        with urllib.request.urlopen(rest[0], timeout=5) as response:
            sys.stdout.write(response.read().decode())
        return 0
    if command == "probe-sends":
        return probe_sends(*rest)
    if command == "check-flood":
        return check_flood(*rest)
    if command == "check-refusals":
        return check_refusals(*rest)
    print(f"unknown command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
