#!/usr/bin/env bash
# End to end with real SIP clients: a G.711 call between two baresip user agents (Debian's
# baresip 1.0, direct `sip:user@ADDR` dialling, no registrar, PCMU and RTCP both ways) in
# namespaces A and B, cabled through a middle namespace M in which e2e/clients/delay_bridge.py
# copies every frame (ARP included) from one veth to the other after a one-way delay set at run
# time (there is no netem here). The agent runs live in A (`netquality run` on A's veth, A's
# address local), so A is "this host" and B the remote peer; tcpdump records A's veth for
# `netquality analyze` afterwards. baresip is driven through its ctrl_tcp module
# (e2e/clients/baresip_ctl.py): dial, auto-answer, hold, resume, hangup.
#
# The script drives and times the phases; every truth comes from outside the agent:
#   a. 0 ms one-way, 14 s: the baseline round trip, measured by ping through the bridge;
#   b. 50 ms one-way, 16 s, and c. 150 ms one-way, 16 s: the agent's peer RTT at the end of the
#      phase must be 2 x delay + baseline, within 10 ms (ping, the round trip computed from the
#      capture's RTCP LSR/DLSR, and baresip's own figure are shown beside it); the MOS and R in
#      c must be below those of a;
#   d. A puts the call on hold (a real re-INVITE, a=sendonly) for 40 s: on the wire RTP stops both
#      ways while RTCP goes on (checked in the capture); the agent must call the peer held and
#      raise no interrupted or disconnected event and no alert for it;
#   e. resume, 2 s clean, then 8.5 to 13.5 s of 10 % random loss on B's RTP (nftables on B's netdev egress,
#      named counters "sent" and "dropped");
#   f. a 15 s blackout (every IPv4 packet dropped on both end veths' egress, ARP let through so
#      no neighbour entry fails), begun 2.5 s after one of B's RTCP reports reached A (mid-way
#      in its 5 s cadence): no held state (nothing flows), disconnected 12 s +/- 2 s after it
#      began, recovered after it; then 10 s clean. The agent's rx loss of the peer must equal the drops of B's RTP exactly,
#      live and in the capture;
#   g. hangup (SIP BYE, RTCP BYE): the peer must end; `analyze --calls` on the capture finds
#      one SIP call, held once for the hold phase, the blackout its only outage, ended by the
#      caller's BYE.
# A table "truth vs agent" closes the run. Every wait has a deadline (lib.sh).
#
#   e2e/clients/real-clients-sip.sh      (root; skips with a reason otherwise; KEEP=1 keeps files)
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e real SIP clients" "network namespaces, nftables, AF_PACKET and live capture"
scripts/bootstrap.sh baresip ethtool tcpdump tshark nftables iproute2 iputils-ping python3
build_product netquality
netquality=$PWD/.build/debug/netquality
started=$(date +%s.%N)

tag=nqs$$
ns_a=${tag}a ns_b=${tag}b ns_m=${tag}m
if_a=${tag}A if_b=${tag}B
addr_a=10.204.0.1 addr_b=10.204.0.2
rtp_port=40000  # both agents: rtp_ports 40000-40001, so RTP 40000 and RTCP 40001
api_port=19480
work=$(mktemp -d)
pids=()
cleanup() {
  stop_process "${pids[@]}"
  for ns in "$ns_a" "$ns_b" "$ns_m"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

in_a() { ip netns exec "$ns_a" "$@"; }
in_b() { ip netns exec "$ns_b" "$@"; }
now() { date +%s.%N; }
# sleep_until T SECONDS: sleeps until SECONDS after wall-clock time T. A phase's length is the
# experiment itself, not a wait for an event.
sleep_until() {
  sleep "$(python3 -c "import sys, time; print(max(0.0, float(sys.argv[1]) + float(sys.argv[2]) - time.time()))" "$1" "$2")"
}
phase() { echo "$1 $(now)" >>"$work/phases"; echo "  $(date +%T) phase $1"; }

# --- The cable: A -- M -- B, one /24, no address in M. -------------------------------------
for ns in "$ns_a" "$ns_b" "$ns_m"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # No IPv6 chatter (router solicitations, MLD) in the capture or through the bridge.
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add "$if_a" type veth peer name "${tag}ma"
ip link add "$if_b" type veth peer name "${tag}mb"
ip link set "$if_a" netns "$ns_a"
ip link set "$if_b" netns "$ns_b"
ip link set "${tag}ma" netns "$ns_m"
ip link set "${tag}mb" netns "$ns_m"
ip -n "$ns_a" addr add $addr_a/24 dev "$if_a"
ip -n "$ns_b" addr add $addr_b/24 dev "$if_b"
# Offloads off: a veth hands its peer frames with the checksum left to do (it would arrive wrong
# after the bridge's copy) and TSO/GSO frames larger than the MTU (the copy cannot be sent).
for pair in "$ns_a $if_a" "$ns_b $if_b" "$ns_m ${tag}ma" "$ns_m ${tag}mb"; do
  set -- $pair
  ip netns exec "$1" ethtool -K "$2" gro off tso off gso off tx off >/dev/null 2>&1
  ip -n "$1" link set "$2" up
done

# The bridge, at real-time priority where allowed: a shared 2-core machine otherwise delays it
# by milliseconds (measured: ping +4 ms at 50 ms one-way under load without, +0.1 ms with).
echo 0 >"$work/delay"
rt=()
chrt -f 10 true 2>/dev/null && rt=(chrt -f 10)
spawn ip netns exec "$ns_m" "${rt[@]}" python3 e2e/clients/delay_bridge.py \
  --if1 "${tag}ma" --if2 "${tag}mb" --delay-file "$work/delay" --ready-file "$work/bridge.ready" >"$work/bridge.json" 2>"$work/bridge.log"
bridge=$!
pids+=("$bridge")
wait_until 10 "the delay bridge to open its sockets" test -s "$work/bridge.ready"
set_delay() {  # one-way milliseconds; SIGUSR1 makes the bridge read it at once
  echo "$1" >"$work/delay.new" && mv "$work/delay.new" "$work/delay"
  kill -USR1 "$(cat "$work/bridge.ready")"
}
wait_until 10 "A to reach B through the bridge (ARP and ICMP)" in_a ping -c 1 -W 1 $addr_b

# --- nftables on both end veths' netdev egress: named counters outlive rule changes. --------
for side in a b; do
  dev=$if_a
  [ $side = b ] && dev=$if_b
  ip netns exec "${tag}$side" nft -f - <<NFT
add table netdev nqsip
add counter netdev nqsip sent
add counter netdev nqsip dropped
add counter netdev nqsip blackout
add chain netdev nqsip egress { type filter hook egress device "$dev" priority 0; }
NFT
done
b_rtp="ip saddr $addr_b udp sport $rtp_port"
# set_rules SIDE RULE...: the chain's rules replaced in one transaction, so no packet passes
# between the flush and the new rules. On B the first rule always counts B's RTP as "sent".
set_rules() {
  local side=$1
  shift
  local rules=("flush chain netdev nqsip egress")
  [ "$side" = b ] && rules+=("add rule netdev nqsip egress $b_rtp counter name \"sent\"")
  for rule in "$@"; do rules+=("add rule netdev nqsip egress $rule"); done
  printf '%s\n' "${rules[@]}" | ip netns exec "${tag}$side" nft -f -
}
counted() {  # counted SIDE NAME: the packets of a named counter
  ip netns exec "${tag}$1" nft -j list counter netdev nqsip "$2" | python3 -c '
import json, sys
print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])'
}
set_rules a
set_rules b

# --- The agent in A, the capture of A's veth, and a poll of the API every second. -----------
spawn ip netns exec "$ns_a" "$netquality" run --interface "$if_a" --local $addr_a/32 --listen 127.0.0.1:$api_port \
  --dashboard "$work/dashboard.txt" >"$work/agent.out" 2>"$work/agent.log"
pids+=($!)
spawn ip netns exec "$ns_a" tcpdump -i "$if_a" -n --immediate-mode -U -w "$work/call.pcap" udp 2>"$work/tcpdump.log"
tcpdump=$!
pids+=("$tcpdump")
cat >"$work/poll.py" <<'PY'
# Every second: /api/v1/peers and /api/v1/alerts, one JSON line with the wall-clock time.
import json, signal, sys, time, urllib.request
base, out = sys.argv[1], open(sys.argv[2], "a", buffering=1)
running = [True]
signal.signal(signal.SIGINT, lambda *_: running.__setitem__(0, False))
signal.signal(signal.SIGTERM, lambda *_: running.__setitem__(0, False))
def get(path):
    with urllib.request.urlopen(base + path, timeout=2) as response:
        return json.loads(response.read())
next_poll = time.time()
while running[0]:
    try:
        out.write(json.dumps({"t": time.time(), "peers": get("/api/v1/peers"), "alerts": get("/api/v1/alerts")}) + "\n")
    except Exception as error:
        out.write(json.dumps({"t": time.time(), "error": str(error)}) + "\n")
    next_poll += 1.0
    time.sleep(max(0.0, next_poll - time.time()))
PY
wait_until 30 "the agent to answer /-/ready" in_a python3 -c \
  "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$api_port/-/ready', timeout=1)" \
  || { cat "$work/agent.log"; exit 1; }
wait_until 10 "tcpdump to listen" grep -q "listening on" "$work/tcpdump.log"
spawn ip netns exec "$ns_a" python3 "$work/poll.py" "http://127.0.0.1:$api_port" "$work/api.jsonl"
pids+=($!)

# --- The two user agents. -------------------------------------------------------------------
# ausine (a 440 Hz tone, 48 kHz stereo only, resampled to 8 kHz mono by baresip) as the
# microphone, aubridge as a speaker that needs no sound hardware; PCMU only; no registration
# (regint=0); the callee answers at once (answermode=auto); RTP 40000 and RTCP 40001 (no mux).
user_agent() {  # user_agent NS USER ADDRESS
  local dir=$work/$2
  mkdir -p "$dir"
  cat >"$dir/config" <<CONF
poll_method		epoll
sip_listen		$3:5060
call_local_timeout	120
audio_player		aubridge,speaker_$2
audio_alert		aubridge,speaker_$2
audio_source		ausine,440
ausrc_srate		48000
ausrc_channels		2
rtp_ports		$rtp_port-$((rtp_port + 1))
rtcp_mux		no
statmode_default	off
module_path		/usr/lib/baresip/modules
module			g711.so
module			ausine.so
module			aubridge.so
module_tmp		account.so
module_app		menu.so
module_app		ctrl_tcp.so
ctrl_tcp_listen		127.0.0.1:4444
CONF
  echo "<sip:$2@$3>;regint=0;answermode=auto;audio_codecs=PCMU" >"$dir/accounts"
  : >"$dir/contacts"
  spawn ip netns exec "$1" baresip -f "$dir" </dev/null >"$dir/baresip.log" 2>&1
  pids+=($!)
  spawn ip netns exec "$1" python3 e2e/clients/baresip_ctl.py --port 4444 \
    --commands "$dir/commands" --log "$dir/events.jsonl"
  pids+=($!)
}
user_agent "$ns_a" alice $addr_a
user_agent "$ns_b" bob $addr_b
ua_command() {  # ua_command USER LINE: sends LINE to that agent's ctrl_tcp
  # Opened read-write: a named pipe whose reader died never blocks the writer.
  printf '%s\n' "$2" 1<>"$work/$1/commands"
}
has_event() {  # has_event USER JSON-FRAGMENT
  grep -q "$2" "$work/$1/events.jsonl"
}
wait_until 15 "both baresip control connections" sh -c \
  "grep -q connected '$work/alice/events.jsonl' && grep -q connected '$work/bob/events.jsonl'" \
  || { cat "$work/alice/baresip.log" "$work/bob/baresip.log"; exit 1; }

# --- The call. ------------------------------------------------------------------------------
ua_command alice "dial sip:bob@$addr_b"
wait_until 10 "the call to be established on both sides" sh -c \
  "grep -q '\"CALL_ESTABLISHED\"' '$work/alice/events.jsonl' && grep -q '\"CALL_ESTABLISHED\"' '$work/bob/events.jsonl'" \
  || { tail -20 "$work/alice/baresip.log" "$work/bob/baresip.log"; exit 1; }

ping_avg() {  # ping_avg NAME: 15 pings A->B 0.2 s apart; the mean RTT into $work/ping.NAME
  run_for 10 ip netns exec "$ns_a" ping -q -c 15 -i 0.2 -W 2 $addr_b >"$work/ping.$1.txt" || true
  sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p' "$work/ping.$1.txt" >"$work/ping.$1"
}

phase a; t=$(now)
ping_avg a
sleep_until "$t" 14

phase b; t=$(now); set_delay 50
sleep 1; ping_avg b
sleep_until "$t" 16

phase c; t=$(now); set_delay 150
sleep 1; ping_avg c
sleep_until "$t" 16

phase d; t=$(now); set_delay 0
ua_command alice hold
sleep_until "$t" 40

phase e; t=$(now)
ua_command alice resume
sleep_until "$t" 2
phase e_loss
set_rules b "$b_rtp numgen random mod 100 < 10 counter name \"dropped\" drop"
sleep_until "$t" 8
# The blackout starts mid-way between two of B's RTCP reports (every 5 s; A's baresip says
# CALL_RTCP as each arrives): one that slipped through just before the drop would come after
# B's last RTP, and media silent with RTCP after it is what the agent calls a hold. Where the
# cut falls in the cadence is then fixed, not left to chance.
reports=$(grep -c '"CALL_RTCP"' "$work/alice/events.jsonl" || true)
wait_until 8 "an RTCP report from B to reach A" sh -c \
  "[ \$(grep -c '\"CALL_RTCP\"' '$work/alice/events.jsonl') -gt $reports ]" || true
sleep 2.5  # half the RTCP interval after that report: an offset, not a wait for an event

phase f; t=$(now)
set_rules a 'meta protocol ip counter name "blackout" drop'
set_rules b "$b_rtp counter name \"dropped\" drop" 'meta protocol ip counter name "blackout" drop'
sleep_until "$t" 15
phase f_restored
set_rules a
set_rules b
sleep_until "$t" 25

phase g
ua_command alice hangup
wait_until 10 "both sides to close the call" sh -c \
  "grep -q '\"CALL_CLOSED\"' '$work/alice/events.jsonl' && grep -q '\"CALL_CLOSED\"' '$work/bob/events.jsonl'" || true
peer_ended() {
  tail -1 "$work/api.jsonl" | python3 -c '
import json, sys
record = json.loads(sys.stdin.read())
sys.exit(0 if any(p["peer"] == sys.argv[1] and p["state"] == "ended" for p in record.get("peers", {}).get("peers", [])) else 1)' "$addr_b"
}
wait_until 10 "the agent to show the peer ended" peer_ended || true
phase end

# The truth of the call, then everything stopped (baresip by its own quit).
echo "sent $(counted b sent) dropped $(counted b dropped) blackout_a $(counted a blackout) blackout_b $(counted b blackout)" \
  >"$work/truth"
ua_command alice quit
ua_command bob quit
stop_process "${pids[@]:2}"  # all but the bridge and the agent: clients, capture, poll
stop_process "${pids[@]:0:2}"
pids=()
grep -qx "0 packets dropped by kernel" "$work/tcpdump.log" \
  || { echo "FAIL tcpdump dropped packets: $(grep dropped "$work/tcpdump.log")"; exit 1; }
run_for 120 "$netquality" analyze "$work/call.pcap" --format json --local $addr_a/32 >"$work/analysis.json"
run_for 120 "$netquality" analyze "$work/call.pcap" --timeline --format jsonl --local $addr_a/32 >"$work/timeline.jsonl"
run_for 120 "$netquality" analyze "$work/call.pcap" --calls --format json --local $addr_a/32 >"$work/calls.json"
# The capture's RTCP as tshark decodes it, to compute the round trip from LSR/DLSR ourselves:
# tshark's own calculation (rtcp.show_roundtrip_calculation) matches a report only against the
# last SR it saw, and here both sides send at the same instant, so with any delay the peer's
# report always quotes the SR before the last one and tshark computes nothing.
decode=(-d udp.port==$rtp_port,rtp -d udp.port==$((rtp_port + 1)),rtcp)
run_for 60 tshark -r "$work/call.pcap" "${decode[@]}" -Y rtcp -T fields -E occurrence=a -E aggregator=, \
  -e frame.time_epoch -e ip.src -e rtcp.senderssrc -e rtcp.timestamp.ntp.msw -e rtcp.timestamp.ntp.lsw \
  -e rtcp.ssrc.identifier -e rtcp.ssrc.lsr -e rtcp.ssrc.dlsr >"$work/rtcp.tsv" 2>/dev/null || true
# Every RTP and RTCP packet with its direction (for the hold check).
run_for 60 tshark -r "$work/call.pcap" "${decode[@]}" -T fields -e frame.time_epoch -e ip.src -e udp.dstport \
  >"$work/packets.tsv" 2>/dev/null || true

python3 - "$work" "$addr_b" "$rtp_port" "$started" <<'PY'
import json, sys, time
sys.path.insert(0, "e2e")
from quality_model import rating

work, peer, rtp_port, started = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
phases = {}
for line in open(f"{work}/phases"):
    name, at = line.split()
    phases[name] = float(at)
order = ["a", "b", "c", "d", "e", "e_loss", "f", "f_restored", "g", "end"]
def span(name):  # [start, end) of a phase
    start = phases[name]
    later = [phases[n] for n in order if n in phases and phases[n] > start]
    return start, min(later) if later else time.time()
truth = dict(zip(*[iter(open(f"{work}/truth").read().split())] * 2))
truth = {k: int(v) for k, v in truth.items()}
pings = {}
for name in "abc":
    try:
        pings[name] = float(open(f"{work}/ping.{name}").read())
    except (OSError, ValueError):
        pings[name] = None

failures, table = [], []
def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)
    return condition
def row(figure, truth_value, agent_value, ok, other=""):
    table.append((figure, truth_value, agent_value, "ok" if ok else "FAIL", other))
def fmt(value, digits=1):
    return "-" if value is None else (f"{value:.{digits}f}" if isinstance(value, float) else str(value))

polls = [json.loads(line) for line in open(f"{work}/api.jsonl")]
def peer_in(poll):
    for p in poll.get("peers", {}).get("peers", []):
        if p["peer"] == peer:
            return p
    return None
def polls_in(start, end):
    return [(poll["t"], peer_in(poll), poll) for poll in polls if start <= poll["t"] < end]
timeline = [json.loads(line) for line in open(f"{work}/timeline.jsonl")]
events = [e for e in timeline if e["type"] == "event" and e.get("peer") == peer]
ticks = [(t["time"], p) for t in timeline if t["type"] == "tick" for p in t["peers"] if p["peer"] == peer]

# -- The wire, from the capture: RTP and RTCP per direction (the hold must stop RTP, not RTCP).
packets = []
for line in open(f"{work}/packets.tsv"):
    fields = line.rstrip("\n").split("\t")
    if len(fields) >= 3 and fields[2]:
        packets.append((float(fields[0]), fields[1], int(fields[2])))
def count(start, end, source, port):
    return sum(1 for t, src, dport in packets if start <= t < end and src == source and dport == port)
hold_start, hold_end = span("d")
quiet = (hold_start + 1, hold_end)  # the re-INVITE and its answer take a few ms
wire = {direction: (count(*quiet, src, rtp_port), count(*quiet, src, rtp_port + 1))
        for direction, src in (("A->B", "10.204.0.1"), ("B->A", peer))}
print(f"     hold on the wire ({quiet[1] - quiet[0]:.0f} s): RTP/RTCP A->B {wire['A->B']}, B->A {wire['B->A']}")
rtp_stopped = any(rtp == 0 for rtp, _ in wire.values())
rtcp_going = all(rtcp >= 4 for _, rtcp in wire.values())
check(rtp_stopped and rtcp_going, "hold: RTP stopped in at least one direction while RTCP went on both ways")
row("hold: RTP pkts A->B / B->A on the wire", "0 in one dir", f"{wire['A->B'][0]} / {wire['B->A'][0]}", rtp_stopped)

# -- Round trip: baseline from phase a (ping), truth = 2 x one-way + baseline.
# From the capture: our SRs by their NTP middle 32 bits, then every report block of the peer
# about our SSRC: arrival - our SR's departure - DLSR (RFC 3550 6.4.1).
sr_sent, capture_rtt, our_ssrcs = {}, [], set()
for line in open(f"{work}/rtcp.tsv"):
    f = line.rstrip("\n").split("\t")
    if len(f) < 8:
        continue
    t, src = float(f[0]), f[1]
    if src == "10.204.0.1" and f[3] and f[4]:
        our_ssrcs.add(int(f[2].split(",")[0], 0))
        msw, lsw = int(f[3].split(",")[0]), int(f[4].split(",")[0])
        sr_sent[((msw & 0xFFFF) << 16) | (lsw >> 16)] = t
    if src == peer and f[6]:
        lsrs, dlsrs = f[6].split(","), f[7].split(",")
        # The first identifiers are the report blocks' (the SDES chunks' follow).
        for ssrc, lsr, dlsr in zip(f[5].split(",")[:len(lsrs)], lsrs, dlsrs):
            lsr, dlsr = int(lsr, 0), int(dlsr, 0)
            if int(ssrc, 0) in our_ssrcs and lsr in sr_sent:
                capture_rtt.append((t, 1000 * (t - sr_sent[lsr] - dlsr / 65536)))
baresip_rtt = []
for line in open(f"{work}/alice/events.jsonl"):
    event = json.loads(line)
    if event.get("type") == "CALL_RTCP":
        baresip_rtt.append((event["t"], event["rtcp_stats"]["rtt"]))
baseline = pings["a"]
check(baseline is not None, f"baseline RTT measured by ping in phase a ({baseline} ms)")
rtt_at_end = {}
for name, one_way in (("a", 0), ("b", 50), ("c", 150)):
    start, end = span(name)
    values = [p["rtt_ms"] for t, p, _ in polls_in(start, end) if p and p.get("rtt_ms") is not None]
    last = values[-1] if values else None
    rtt_at_end[name] = last
    shark = [v for t, v in capture_rtt if start <= t < end]
    client = [v / 1000 for t, v in baresip_rtt if start <= t < end]  # baresip says microseconds
    expected = (baseline or 0) + 2 * one_way
    print(f"     phase {name} ({one_way} ms one-way): truth {expected:.1f} ms (ping {fmt(pings[name], 2)}), "
          f"agent rtt_ms at the end {fmt(last, 2)} (samples {[round(v, 1) for v in values[-6:]]}), "
          f"capture LSR/DLSR {[round(v, 1) for v in shark]}, baresip's own {[round(v, 1) for v in client]}")
    if name == "a":
        continue
    ok = last is not None and baseline is not None and abs(last - expected) <= 10
    check(ok, f"phase {name}: peer RTT {fmt(last, 2)} ms within 10 ms of 2 x {one_way} + {fmt(baseline, 2)} = {expected:.1f} ms")
    row(f"RTT phase {name} ({one_way} ms one-way), ms", f"{expected:.1f}", fmt(last, 1), ok,
        f"ping {fmt(pings[name], 1)}, capture {fmt(shark[-1] if shark else None, 1)}, baresip {fmt(client[-1] if client else None, 1)}")
    ok = pings[name] is not None and abs(pings[name] - expected) <= 2
    check(ok, f"phase {name}: the bridge gives ping {fmt(pings[name], 2)} ms = {expected:.1f} ms +/- 2 (truth sane)")

# -- MOS and R: lower at 150 ms than at 0 ms, as the documented model says for the truth.
def last_tick_values(name, need_rtt):
    # The last poll of the phase with a MOS; at 150 ms, one whose tick knew the round trip (the
    # first RTCP round trip comes about 10 s into the call: both sides send their first SR at the
    # same instant, so phase a may have none, and without one the model assumes no delay, which
    # is phase a's truth).
    start, end = span(name)
    entries = [p for t, p, _ in polls_in(start, end)
               if p and p.get("mos") is not None and (p.get("rtt_ms") is not None or not need_rtt)]
    if not entries:
        return None, None
    p = entries[-1]
    return p["mos"], p["rx"].get("r_factor")
mos_a, r_a = last_tick_values("a", need_rtt=False)
mos_c, r_c = last_tick_values("c", need_rtt=True)
model_a = rating(0.0, 0.0, baseline or 0.0, False)
model_c = rating(0.0, 0.0, (baseline or 0.0) + 300, False)
ok = None not in (mos_a, mos_c, r_a, r_c) and mos_c < mos_a and r_c < r_a
check(ok, f"MOS {fmt(mos_c, 2)} / R {fmt(r_c, 1)} at 150 ms below MOS {fmt(mos_a, 2)} / R {fmt(r_a, 1)} at 0 ms "
          f"(model with zero jitter: R {model_c:.1f} vs {model_a:.1f})")
row("R phase a / phase c (model, 0 jitter)", f"{model_a:.1f} / {model_c:.1f}", f"{fmt(r_a)} / {fmt(r_c)}", ok)
row("MOS phase a > phase c", "a > c", f"{fmt(mos_a, 2)} > {fmt(mos_c, 2)}", ok)

# -- Hold: no interrupted/disconnected, no alert for the peer, from hold to 2 s after resume.
window = (hold_start, phases["e"] + 2)
bad = [e for e in events if window[0] <= e["time"] < window[1] and e["kind"] in ("interrupted", "disconnected", "timeout", "alert_firing")]
held = [e for e in events if window[0] <= e["time"] < window[1] and e["kind"] == "held"]
live_states = sorted({p["state"] for t, p, _ in polls_in(*window) if p})
live_alerts = [a for t, _, poll in polls_in(*window) for a in poll.get("alerts", {}).get("alerts", [])
               if peer in json.dumps(a.get("labels")) and a.get("state") != "resolved"]
check(not bad, f"hold (timeline): no interrupted/disconnected/alert event for the peer ({[(e['kind'], round(e['time'] - hold_start, 1)) for e in bad]})")
check(not any(s in ("interrupted", "disconnected", "timed_out", "timeout") for s in live_states),
      f"hold (live API): states seen {live_states}")
check(not live_alerts, f"hold (live API): no alert for the peer ({len(live_alerts)} seen)")
held_live = any(s == "held" for s in live_states)
check(bool(held) and held_live, f"hold: the agent calls the peer held (timeline event at "
      f"{[round(e['time'] - hold_start, 1) for e in held]} s, live state held: {held_live})")
row("hold: peer held (timeline / live)", "held / held", f"{'held' if held else '-'} / {'held' if held_live else '-'}",
    bool(held) and held_live)
print(f"     hold: timeline events {[(e['kind'], round(e['time'] - hold_start, 1)) for e in events if window[0] <= e['time'] < window[1]]}")
row("hold: interrupted/disconnected/alerts (timeline)", "0", str(len(bad)), not bad)
row("hold: live states / alerts", "no outage, 0 alerts", f"{'/'.join(live_states)} / {len(live_alerts)}",
    not live_alerts and not any(s in ("interrupted", "disconnected") for s in live_states))

# -- Blackout: disconnected 12 s +/- 2 s after it began, recovered after it.
black_start, black_end = phases["f"], phases["f_restored"]
disconnected = [e for e in events if e["kind"] == "disconnected" and e["time"] >= black_start]
recovered = [e for e in events if e["kind"] == "recovered" and e["time"] >= black_end]
after = disconnected[0]["time"] - black_start if disconnected else None
ok = after is not None and abs(after - 12) <= 2
check(ok, f"blackout (timeline): disconnected {fmt(after, 2)} s after it began (12 +/- 2)")
row("blackout -> disconnected (timeline), s", "12 +/- 2", fmt(after, 2), ok)
live_disc = [(t, p) for t, p, _ in polls_in(black_start, black_end + 3) if p and p["state"] == "disconnected"]
live_after = live_disc[0][1]["state_since"] - black_start if live_disc else None
ok = live_after is not None and abs(live_after - 12) <= 2
check(ok, f"blackout (live API): disconnected since {fmt(live_after, 2)} s after it began (12 +/- 2)")
row("blackout -> disconnected (live), s", "12 +/- 2", fmt(live_after, 2), ok)
held_black = [e for e in events if e["kind"] == "held" and black_start <= e["time"] < black_end]
live_held = [t for t, p, _ in polls_in(black_start, black_end) if p and p["state"] == "held"]
ok = not held_black and not live_held
check(ok, f"blackout: never held (timeline {[round(e['time'] - black_start, 2) for e in held_black]}, "
          f"live polls {len(live_held)})")
row("blackout: held events / polls (nothing flows)", "0 / 0", f"{len(held_black)} / {len(live_held)}", ok)
print(f"     blackout: timeline events {[(e['kind'], round(e['time'] - black_start, 2)) for e in events if black_start <= e['time'] < black_end + 3]}")
rec_after = recovered[0]["time"] - black_end if recovered else None
ok = rec_after is not None and 0 <= rec_after <= 3 and recovered[0].get("from") == "disconnected"
check(ok, f"blackout (timeline): recovered from disconnected {fmt(rec_after, 2)} s after the restore")
live_back = [(t, p) for t, p, _ in polls_in(black_end, phases["g"]) if p and p["state"] == "connected"]
ok2 = bool(live_back) and live_back[0][0] - black_end <= 5
check(ok2, f"blackout (live API): connected again {fmt(live_back[0][0] - black_end if live_back else None, 1)} s after the restore")
row("blackout: recovered after restore (timeline / live), s", "0..3 / <=5",
    f"{fmt(rec_after, 2)} / {fmt(live_back[0][0] - black_end if live_back else None, 1)}", ok and ok2)

# -- Loss: B's RTP dropped on B's egress = the agent's rx loss, live and offline.
streams = json.load(open(f"{work}/analysis.json"))["streams"]
rx = [s for s in streams if s["src"] == peer and s["dst_port"] == rtp_port]
check(len(rx) == 1, f"one RTP stream from the peer in the capture ({len(rx)})")
sent, dropped = truth["sent"], truth["dropped"]
if rx:
    s = rx[0]
    check(s["packets"] == sent - dropped, f"capture: received {s['packets']} = sent {sent} - dropped {dropped}")
    ok = s["lost"] == dropped
    check(ok, f"analyze: lost {s['lost']} = dropped {dropped}")
    row("rx lost, B's RTP (analyze of the pcap)", str(dropped), str(s["lost"]), ok)
last_live = [p for t, p, _ in polls_in(phases["f_restored"] + 4, phases["end"] + 1) if p]
live_lost = last_live[-1]["rx_lost_total"] if last_live else None
ok = live_lost == dropped
check(ok, f"live API: rx_lost_total {live_lost} = dropped {dropped}")
row("rx lost, B's RTP (live rx_lost_total)", str(dropped), str(live_lost), ok)
window_lost = sum(p["rx_lost"] for t, p in ticks if p.get("rx_lost"))
print(f"     timeline windows' rx_lost sum {window_lost} (the blackout's loss belongs to the outage)")

# -- Hangup: ended.
ended = [e for e in events if e["kind"] == "ended" and e["time"] >= phases["g"]]
check(bool(ended), f"hangup (timeline): ended event {fmt(ended[0]['time'] - phases['g'], 2) if ended else None} s after BYE")
live_end = [p for t, p, _ in polls_in(phases["g"], phases["end"] + 2) if p and p["state"] == "ended"]
check(bool(live_end), "hangup (live API): the peer is ended")
row("hangup -> ended (timeline / live)", "ended / ended", f"{'ended' if ended else '-'} / {'ended' if live_end else '-'}",
    bool(ended) and bool(live_end))

# -- The call (issue 28): one SIP call holding both RTP streams and no other call, held once
# for the hold phase (its silence no outage), the blackout its one outage, ended by the
# caller's BYE (alice dials and hangs up), whatever the live agent saw of it too.
calls = json.load(open(f"{work}/calls.json"))["calls"]
sip = [c for c in calls if c["kind"] == "sip"]
check(len(sip) == 1 and len(calls) == 1, f"calls: one SIP call and nothing else ({[c['kind'] for c in calls]})")
if sip:
    call = sip[0]
    held = phases["e"] - phases["d"]
    ok = call["holds"] == 1 and abs(call["held_s"] - held) < 1.0
    check(ok, f"calls: held once for {fmt(call['held_s'], 1)} s (the hold phase {fmt(held, 1)} s)")
    row("call: holds, seconds held", f"1, {fmt(held, 1)}", f"{call['holds']}, {fmt(call['held_s'], 1)}", ok)
    ok = call["outages"] == 1
    check(ok, f"calls: one outage, the blackout ({call['outages']}, {fmt(call['outage_s'], 1)} s)")
    row("call: outages (the blackout only)", "1", str(call["outages"]), ok)
    # Issue 38: the outage lasts the blackout, from the last packet before it to the first
    # after (the rules went in and out between packets 20 ms apart, RTCP aside: within 1 s),
    # and the call's rx loss is its stream's cumulative loss, the blackout's included.
    blackout = black_end - black_start
    ok = call["outages"] == 1 and abs(call["outage_s"] - blackout) <= 1.0
    check(ok, f"calls: the outage lasts the blackout ({fmt(call['outage_s'], 2)} s; rules in for {fmt(blackout, 2)} s, +/- 1)")
    row("call: outage seconds", f"{fmt(blackout, 2)} +/- 1", fmt(call["outage_s"], 2), ok)
    ok = call["rx"]["lost"] == dropped
    check(ok, f"calls: rx lost {call['rx']['lost']} = B's RTP dropped {dropped} (the blackout's included)")
    row("call: rx lost", str(dropped), str(call["rx"]["lost"]), ok)
    ok = call["end_reason"] == "bye_caller" and call["final_status"] == 200 and call["stream_count"] == 2
    check(ok, f"calls: answered 200, ended by the caller's BYE, 2 streams ({call['final_status']}, "
          f"{call['end_reason']}, {call['stream_count']})")
    row("call: status, end, streams", "200, bye_caller, 2",
        f"{call['final_status']}, {call['end_reason']}, {call['stream_count']}", ok)

print("\ntruth vs agent")
width = max(len(r[0]) for r in table)
print(f"  {'figure':<{width}}  {'truth':>20}  {'agent':>20}       other views")
for figure, t, a, status, other in table:
    print(f"  {figure:<{width}}  {t:>20}  {a:>20}  {status:<4}  {other}")
bridge = open(f"{work}/bridge.json").read().strip()
print(f"bridge: {bridge}")
print(f"nftables: {truth}")
print(f"real SIP clients: {len(failures)} check(s) failed" if failures else "all real-SIP-client checks passed")
print(f"duration {time.time() - started:.0f} s")
sys.exit(1 if failures else 0)
PY
