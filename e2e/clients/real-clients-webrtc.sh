#!/usr/bin/env bash
# End to end with real WebRTC clients through a real TURN relay: two aiortc peers
# (e2e/clients/webrtc_peer.py: Opus tone + VP8 video each way, NACK/RTX, DTLS-SRTP) in namespaces
# A and B, relay-only ICE through coturn in namespace T, so every media packet on the wire is
# TURN ChannelData. A's leg runs through a user-space delay bridge (e2e/clients/delay_bridge.py,
# namespace M: there is no netem) that adds DELAY_MS (40) one way. The agent runs live in T on
# T's bridge (both legs), with tcpdump beside it for `netquality analyze` and tshark.
#
#   A --veth-- M (delay bridge) --veth--+
#                                       T: bridge, 10.205.0.1, coturn, agent, tcpdump
#   B --------------veth----------------+
#
# Phases: a clean call; random loss on A's egress (nftables netdev egress, so the capture at T
# never sees the dropped packets: B NACKs and A answers with RTX); a 15 s blackout of A's leg both
# ways, then recovery; a normal hang-up (A, then B: pc.close(), DTLS close_notify, TURN Refresh
# with lifetime 0), watched for 16 s more (past the agent's 12 s disconnect mark and a tick).
#
# Truth, never a configured percentage: named nftables counters on A's egress count every
# packet A sends to T ("sent") and every one a drop rule takes ("dropped"), and the same per
# RTP payload type inside ChannelData ("sent_PT", "dropped_PT"); the peers write their own
# getStats() (e2e/clients/webrtc_peer.py); the delay is configured; tshark times each STUN
# transaction. Checked: the agent finds the audio, video and RTX streams inside ChannelData
# and tells the RTX streams for retransmissions (no SDP here: by behaviour); A's streams lose
# exactly what nftables dropped (live API and `analyze`), and peer A's totals count the media
# drops as lost and the RTX that got through as retransmitted; B's streams arrive as B counted
# them; the peer's rx jitter stays within 5 ms of its audio/video streams' own while RTX flows;
# A is disconnected 12 s into the blackout and no quality alert follows the recovery; after the
# hang-up both peers are `ended` (by a DTLS alert or TURN release) and no `peer_disconnected`
# fires, and the session is one WebRTC call (live and `analyze --calls`) holding every stream,
# ended by the hang-up; each leg's round trip, from STUN (SRTCP hides RTCP's), is 2 × its delay + the answer
# time tshark measures on B's undelayed leg. It prints a truth-vs-agent
# table and an inventory of the STUN/TURN/DTLS messages on each leg (hang-up included): the
# checks and the report are e2e/clients/webrtc_check.py, run over the work directory.
#
#   e2e/clients/real-clients-webrtc.sh   (root; skips with a reason otherwise)
#   KEEP=1 keeps the work directory; DELAY_MS, LOSS_PERCENT change the impairments;
#   NETQUALITY=path uses that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e real WebRTC clients" "network namespaces, nftables and live capture"
scripts/bootstrap.sh python3-aiortc coturn tshark tcpdump nftables iproute2 ethtool iputils-ping python3
if [ -n "${NETQUALITY:-}" ]; then
  netquality=$NETQUALITY
else
  build_product netquality
  netquality=$PWD/.build/debug/netquality
fi
# Debian's interpreter, where python3-aiortc lives (a pyenv or venv python3 may come first).
python=/usr/bin/python3

tag=nqw$$
relay=10.205.0.1
addr_a=10.205.0.2
addr_b=10.205.0.3
delay_ms=${DELAY_MS:-40}
loss=${LOSS_PERCENT:-8}
ns_t=${tag}t ns_a=${tag}a ns_b=${tag}b ns_m=${tag}m
bridge=${tag}br
port=19475
work=$(mktemp -d)
pids=()
started=$(date +%s.%N)

cleanup() {
  stop_process "${pids[@]}"
  for ns in "$ns_a" "$ns_b" "$ns_m" "$ns_t"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
phase() { echo "$1 $(date +%s.%N)" >>"$work/phases"; echo "--- $1 ($(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$started" "$(date +%s.%N)") s)"; }

# --- the network -------------------------------------------------------------------------------
for ns in "$ns_t" "$ns_a" "$ns_b" "$ns_m"; do
  ip netns add "$ns"
  in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done
ip link add "${tag}a0" type veth peer name "${tag}ma"   # A <-> M
ip link add "${tag}mt" type veth peer name "${tag}ta"   # M <-> T
ip link add "${tag}b0" type veth peer name "${tag}tb"   # B <-> T
ip link set "${tag}a0" netns "$ns_a"
ip link set "${tag}ma" netns "$ns_m"
ip link set "${tag}mt" netns "$ns_m"
ip link set "${tag}ta" netns "$ns_t"
ip link set "${tag}b0" netns "$ns_b"
ip link set "${tag}tb" netns "$ns_t"
ip -n "$ns_t" link add "$bridge" type bridge
ip -n "$ns_t" link set "${tag}ta" master "$bridge"
ip -n "$ns_t" link set "${tag}tb" master "$bridge"
ip -n "$ns_t" addr add "$relay/24" dev "$bridge"
ip -n "$ns_a" addr add "$addr_a/24" dev "${tag}a0"
ip -n "$ns_b" addr add "$addr_b/24" dev "${tag}b0"
# The delay bridge forwards raw frames: no checksum left for hardware, no GRO/TSO giants.
for pair in "$ns_a ${tag}a0" "$ns_m ${tag}ma" "$ns_m ${tag}mt" "$ns_t ${tag}ta" "$ns_t ${tag}tb" \
  "$ns_t $bridge" "$ns_b ${tag}b0"; do
  set -- $pair
  ip -n "$1" link set "$2" up
  in_ns "$1" ethtool -K "$2" gro off tso off gso off tx off >/dev/null 2>&1 || true
done
# Real-time priority keeps the bridge's delay exact on a busy machine (ping +4 ms at 50 ms one-way
# under load without it, +0.1 ms with: e2e/clients/delay_bridge.py).
rt=()
chrt -f 10 true 2>/dev/null && rt=(chrt -f 10)
spawn ip netns exec "$ns_m" "${rt[@]}" "$python" e2e/clients/delay_bridge.py \
  --if1 "${tag}ma" --if2 "${tag}mt" --delay-ms "$delay_ms" --ready-file "$work/bridge.ready" >"$work/bridge.json" 2>"$work/bridge.log"
bridge_pid=$!
pids+=("$bridge_pid")
wait_until 10 "the delay bridge" test -s "$work/bridge.ready"
wait_until 15 "A to reach the relay through the delay bridge" in_ns "$ns_a" ping -c1 -W1 "$relay"
wait_until 15 "B to reach the relay" in_ns "$ns_b" ping -c1 -W1 "$relay"
in_ns "$ns_a" ping -c 5 -i 0.2 -q "$relay" | tail -1 >"$work/ping_a"
in_ns "$ns_b" ping -c 5 -i 0.2 -q "$relay" | tail -1 >"$work/ping_b"

# --- loss and blackout on A's leg: nftables netdev hooks on A's veth ---------------------------
# Egress (A -> T): "sent" counts every datagram A sends to the TURN port, "dropped" every one a
# drop rule takes; "sent_PT"/"dropped_PT" the same for RTP/RTCP-shaped ChannelData (first
# nibble 4; inner version 2) by the inner payload type (7 bits after the marker), 96..127.
# Ingress (T -> A): the same into "in", "in_dropped", "in_dropped_PT" (blackout only).
# Named counters outlive the rules: each phase is one nft transaction re-writing the chains.
pts=$(seq 96 127)
{
  echo "add table netdev nqloss"
  for c in sent dropped in in_dropped; do echo "add counter netdev nqloss $c"; done
  for pt in $pts; do
    for c in sent dropped in_dropped; do echo "add counter netdev nqloss ${c}_$pt"; done
  done
  echo "add chain netdev nqloss egress { type filter hook egress device \"${tag}a0\" priority 0; }"
  echo "add chain netdev nqloss ingress { type filter hook ingress device \"${tag}a0\" priority 0; }"
  echo "add chain netdev nqloss lossy"
  echo "add chain netdev nqloss lossy_in"
  echo 'add rule netdev nqloss lossy udp dport 3478 counter name "dropped"'
  echo 'add rule netdev nqloss lossy_in udp sport 3478 counter name "in_dropped"'
  for pt in $pts; do
    echo "add rule netdev nqloss lossy udp dport 3478 @th,64,4 4 @th,96,2 2 @th,105,7 $pt counter name \"dropped_$pt\" drop"
    echo "add rule netdev nqloss lossy_in udp sport 3478 @th,64,4 4 @th,96,2 2 @th,105,7 $pt counter name \"in_dropped_$pt\" drop"
  done
  echo "add rule netdev nqloss lossy drop"
  echo "add rule netdev nqloss lossy_in drop"
} | in_ns "$ns_a" nft -f -

set_phase() {  # clean | loss | loss_media (loss, but RTX spared) | blackout
  {
    echo "flush chain netdev nqloss egress"
    echo "flush chain netdev nqloss ingress"
    echo "add rule netdev nqloss egress ip daddr $relay udp dport 3478 counter name \"sent\""
    for pt in $pts; do
      echo "add rule netdev nqloss egress ip daddr $relay udp dport 3478 @th,64,4 4 @th,96,2 2 @th,105,7 $pt counter name \"sent_$pt\""
    done
    echo "add rule netdev nqloss ingress ip saddr $relay udp sport 3478 counter name \"in\""
    case $1 in
      loss_media)
        echo "add rule netdev nqloss egress udp dport 3478 @th,64,4 4 @th,96,2 2 @th,105,7 $rtx_pt accept"
        echo "add rule netdev nqloss egress ip daddr $relay udp dport 3478 numgen random mod 100 < $loss jump lossy" ;;
      loss) echo "add rule netdev nqloss egress ip daddr $relay udp dport 3478 numgen random mod 100 < $loss jump lossy" ;;
      blackout)
        echo "add rule netdev nqloss egress ip daddr $relay jump lossy"
        echo "add rule netdev nqloss ingress ip saddr $relay jump lossy_in" ;;
    esac
  } | in_ns "$ns_a" nft -f -
}
set_phase clean

# --- the relay, the agent, the capture ---------------------------------------------------------
spawn ip netns exec "$ns_t" turnserver -n --no-cli --listening-ip "$relay" --relay-ip "$relay" \
  --listening-port 3478 --min-port 49152 --max-port 49407 --lt-cred-mech --user nq:nqsecret \
  --realm netquality.test --no-tls --no-dtls --no-tcp-relay --userdb "$work/turndb" \
  --pidfile "$work/turnserver.pid" --log-file "$work/turnserver.log" --simple-log --no-stdout-log \
  >"$work/turnserver.out" 2>&1
pids+=($!)
spawn ip netns exec "$ns_t" tcpdump -i "$bridge" --immediate-mode -U -w "$work/relay.pcap" udp \
  2>"$work/tcpdump.log"
tcpdump_pid=$!
pids+=("$tcpdump_pid")
spawn ip netns exec "$ns_t" "$netquality" run --interface "$bridge" --local "$relay/32" \
  --listen "127.0.0.1:$port" --dashboard "$work/dashboard.txt" 2>"$work/agent.log"
agent_pid=$!
pids+=("$agent_pid")

# Every second: the agent's peers, streams and alerts, one JSON line each with the poll time.
cat >"$work/poll.py" <<'PY'
import json, signal, sys, time, urllib.request
base, work = sys.argv[1], sys.argv[2]
running = True
def stop(*_):
    global running
    running = False
signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
files = {name: open(f"{work}/{name}.jsonl", "a", buffering=1) for name in ("peers", "streams", "alerts")}
next_poll = time.time()
while running:
    for name, out in files.items():
        try:
            with urllib.request.urlopen(f"{base}/api/v1/{name}", timeout=2) as response:
                body = json.loads(response.read())
            out.write(json.dumps({"polled": time.time(), **body}) + "\n")
        except Exception as error:
            out.write(json.dumps({"polled": time.time(), "error": str(error)}) + "\n")
    next_poll += 1
    time.sleep(max(0.0, next_poll - time.time()))
PY
agent_ready() { in_ns "$ns_t" python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "http://127.0.0.1:$port/-/ready"; }
wait_until 30 "the agent to be ready" agent_ready || { cat "$work/agent.log"; exit 1; }
wait_until 10 "tcpdump to listen" grep -q "listening on" "$work/tcpdump.log"
wait_until 10 "turnserver to listen on $relay:3478" \
  in_ns "$ns_t" sh -c "ss -Hlun | grep -q '$relay:3478'" || { cat "$work/turnserver.log"; exit 1; }
spawn ip netns exec "$ns_t" python3 "$work/poll.py" "http://127.0.0.1:$port" "$work"
pids+=($!)
phase setup

# --- the call ----------------------------------------------------------------------------------
mkdir "$work/signal"
peer() {  # role namespace name
  spawn ip netns exec "$2" "$python" e2e/clients/webrtc_peer.py --role "$1" --dir "$work/signal" \
    --turn "turn:$relay:3478" --user nq --password nqsecret --stats "$work/$3.stats.json" \
    --stop-file "$work/stop-$3" --duration 300 2>"$work/$3.log"
}
peer offer "$ns_a" a
pid_a=$!
pids+=("$pid_a")
peer answer "$ns_b" b
pid_b=$!
pids+=("$pid_b")
connected() { grep -q '"connection_state": "connected"' "$work/a.stats.json" "$work/b.stats.json" 2>/dev/null \
  && [ "$(grep -l '"connection_state": "connected"' "$work/a.stats.json" "$work/b.stats.json" | wc -l)" = 2 ]; }
wait_until 40 "both peers to connect through the relay" connected \
  || { tail -20 "$work/a.log" "$work/b.log"; exit 1; }
phase connected
# VP8's RTX payload type, from the answer: the loss phase spares RTX until A's first
# retransmission has passed, so the agent sees the RTX stream's first sequence number and its
# loss can be exact (a drop before the first packet of a stream is invisible to anyone).
rtx_pt=$("$python" -c '
import json, re, sys
sdp = json.load(open(sys.argv[1]))["sdp"]
vp8 = re.search(r"^a=rtpmap:(\d+) VP8/", sdp, re.M).group(1)
print(re.search(r"^a=fmtp:(\d+) apt=" + vp8 + r"\s*$", sdp, re.M).group(1))' "$work/signal/answer.json")
counted() { in_ns "$ns_a" nft -j list counter netdev nqloss "$1" | "$python" -c '
import json, sys
print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])'; }
first_rtx_passed() { [ "$(counted "sent_$rtx_pt")" -gt 0 ]; }
sleep 15  # each phase's length is the experiment itself, not a wait for an event
set_phase loss_media
phase loss
loss_started=$(date +%s.%N)
wait_until 10 "A's first retransmission (RTX PT $rtx_pt)" first_rtx_passed >>"$work/harness-failures" || true
set_phase loss
sleep "$(python3 -c "import sys; print(max(0.0, 15 - (float(sys.argv[2]) - float(sys.argv[1]))))" "$loss_started" "$(date +%s.%N)")"
set_phase clean
phase loss_end
sleep 3
set_phase blackout
phase blackout
sleep 15
set_phase clean
phase restore
sleep 12
phase hangup
touch "$work/stop-a"
wait_exit 20 "$pid_a" || echo "FAIL peer A did not hang up within 20 s" | tee -a "$work/harness-failures"
phase a_closed
touch "$work/stop-b"
wait_exit 20 "$pid_b" || echo "FAIL peer B did not hang up within 20 s" | tee -a "$work/harness-failures"
phase b_closed
sleep 16  # past the agent's 12 s disconnect mark and its next tick: an ended call must not turn disconnected
phase end
# The relay host's own UDP counters (a burst the relay's sockets could not take is loss inside
# the relay, between the two legs the agent sees) and the agent's capture counters.
in_ns "$ns_t" cat /proc/net/snmp >"$work/snmp"
in_ns "$ns_t" python3 -c "import urllib.request, sys; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())" \
  "http://127.0.0.1:$port/metrics" >"$work/metrics.txt" || true
in_ns "$ns_t" python3 -c "import urllib.request, sys; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())" \
  "http://127.0.0.1:$port/api/v1/calls?limit=1000" >"$work/live-calls.json" || echo '{}' >"$work/live-calls.json"
stop_process "${pids[@]}"
pids=()
in_ns "$ns_a" nft -j list counters table netdev nqloss >"$work/counters.json"
grep -qx "0 packets dropped by kernel" "$work/tcpdump.log" \
  || { echo "FAIL tcpdump dropped packets: $(grep dropped "$work/tcpdump.log")"; exit 1; }

run_for 120 "$netquality" analyze "$work/relay.pcap" --format json --local "$relay/32" >"$work/analyze.json"
run_for 120 "$netquality" analyze "$work/relay.pcap" --timeline --format jsonl --local "$relay/32" \
  >"$work/timeline.jsonl"
run_for 120 "$netquality" analyze "$work/relay.pcap" --calls --format json --local "$relay/32" \
  >"$work/calls.json"
# tshark: STUN inside ChannelData needs the heuristic `stun_turn`, DTLS inside it `dtls_stun`.
# stun.time is tshark's request -> response time of each transaction on the same leg.
run_for 60 tshark -n --enable-heuristic stun_turn --enable-heuristic dtls_stun -r "$work/relay.pcap" \
  -Y "stun.type or dtls" -T fields -E separator='|' -e frame.time_epoch -e ip.src -e udp.srcport \
  -e ip.dst -e udp.dstport -e stun.channel -e stun.type -e stun.att.lifetime -e stun.time -e stun.id \
  -e dtls.record.content_type >"$work/tshark.txt" 2>"$work/tshark.log"
phase analysed

"$python" e2e/clients/webrtc_check.py "$work" "$relay" "$addr_a" "$addr_b" "$delay_ms"
