#!/usr/bin/env bash
# End to end on real traffic: two network namespaces joined by a veth pair, a GStreamer RTP
# sender and receiver with RTCP both ways, a tcpdump capture on the receiver's side, and loss
# made in the kernel with nftables on the sender's egress (no netem on these machines). Each
# capture then goes through `netquality analyze` and `--timeline`.
#
# Random loss is random: the checks compare with the truth of each run, never with the
# configured percentage. nftables counts every RTP packet the sender emits and every one it
# drops; the analysis must find exactly that loss, and every level a tick reports must be the
# documented model's level for that tick's own inputs (e2e/quality_model.py). Fixed level
# names are asserted only far from a band edge (0 % -> excellent, 30 % -> very bad or worse).
#
#   e2e/media/real-traffic.sh          (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e real traffic" "network namespaces and nftables"
scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-ugly tcpdump nftables iproute2 python3
build_product netquality
netquality=$PWD/.build/debug/netquality

tag=nq$$
subnet=10.201.0
source e2e/netns.sh

# The sender's egress counts into two named counters: every RTP packet it emits ("sent",
# counted before any drop) and every one a drop rule takes ("dropped"). Named counters outlive
# the rules, so changing a phase's rule loses no count.
counted() {  # the packets of named counter $1
  nft_sender -j list counter netdev nqloss "$1" | python3 -c '
import json, sys
print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])'
}

# One nft transaction per change, so no packet passes between the flush and the new rules.
set_loss() {  # percent
  local drop=""
  if [ "$1" -ge 100 ]; then
    drop='add rule netdev nqloss egress udp dport 5004 counter name "dropped" drop
add rule netdev nqloss egress udp dport 5005 drop'
  elif [ "$1" -gt 0 ]; then
    drop="add rule netdev nqloss egress udp dport 5004 numgen random mod 100 < $1 counter name \"dropped\" drop"
  fi
  printf '%s\n' "flush chain netdev nqloss egress" \
    'add rule netdev nqloss egress udp dport 5004 counter name "sent"' "$drop" \
    | nft_sender -f -
}

# Runs a G.711 call for the phases given as "seconds:loss-percent" and captures it.
call() {
  local name=$1
  shift
  local capture=$work/$name.pcap
  nft_sender flush chain netdev nqloss egress
  for counter in sent dropped; do
    nft_sender delete counter netdev nqloss "$counter" 2>/dev/null || true
    nft_sender add counter netdev nqloss "$counter"
  done
  set_loss 0
  spawn ip netns exec "$receiver" tcpdump -i "${tag}vb" --immediate-mode -U -w "$capture" udp \
    2>"$work/$name.tcpdump"
  local tcpdump=$!
  pids+=("$tcpdump")
  wait_until 10 "tcpdump to listen" grep -q "listening on" "$work/$name.tcpdump"
  spawn_call_receiver "$work/$name.receiver"
  local receiver_pid=$!
  pids+=("$receiver_pid")
  spawn_call_sender "$work/$name.sender"
  local sender_pid=$!
  pids+=("$sender_pid")
  for phase in "$@"; do
    set_loss "${phase#*:}"
    date +%s.%N >>"$work/$name.phases"
    sleep "${phase%%:*}"  # the phase's duration: the experiment itself, not a wait for an event
  done
  stop_process "$sender_pid"
  # The truth of the call: everything the sender emitted, everything the rules dropped.
  local sent dropped
  sent=$(counted sent)
  dropped=$(counted dropped)
  echo "$sent $dropped" >"$work/$name.truth"
  # The capture has every packet that got through before tcpdump is stopped (or the checks
  # below say what is missing).
  wait_until 10 "the capture to hold the $((sent - dropped)) packets that got through" \
    python3 e2e/media/pcap_count.py "$capture" 5004 $((sent - dropped)) || true
  stop_process "$receiver_pid" "$tcpdump"
  grep -qx "0 packets dropped by kernel" "$work/$name.tcpdump" \
    || { echo "FAIL $name: tcpdump dropped packets: $(grep dropped "$work/$name.tcpdump")"; exit 1; }
  run_for 120 "$netquality" analyze "$capture" --format json --local $subnet.2/32 >"$work/$name.json"
  run_for 120 "$netquality" analyze "$capture" --timeline --format jsonl --local $subnet.2/32 \
    >"$work/$name.jsonl"
  echo "== $name: $(grep -c '"type":"tick"' "$work/$name.jsonl") ticks, $("$netquality" analyze "$capture" | tail -1)"
}

# Each loss phase is framed by clean seconds, so no drop falls before the first or after the
# last packet received, where sequence numbers cannot see it: the loss must then be exact.
call clean 20:0
call loss5 2:0 30:5 3:0
call loss30 2:0 30:30 3:0
call outage 10:0 15:100 15:0

python3 - "$work" "$subnet" <<'PY'
import json, statistics, sys
sys.path.insert(0, "e2e")
from quality_model import NAMES, check_consistency

work, subnet = sys.argv[1], sys.argv[2]
peer = subnet + ".1"
failures = []

def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)

def timeline(name):
    ticks, events = [], []
    for line in open(f"{work}/{name}.jsonl"):
        record = json.loads(line)
        (ticks if record["type"] == "tick" else events).append(record)
    return ticks, events

def peer_ticks(ticks):
    return [p for t in ticks for p in t["peers"] if p["peer"] == peer]

for name in ["clean", "loss5", "loss30", "outage"]:
    sent, dropped = map(int, open(f"{work}/{name}.truth").read().split())
    streams = json.load(open(f"{work}/{name}.json"))["streams"]
    rtp = [s for s in streams if s["src"] == peer and s["dst_port"] == 5004]
    check(len(rtp) == 1, f"{name}: one RTP stream from the sender ({len(rtp)})")
    if not rtp:
        continue
    stream = rtp[0]
    print(f"     truth: sent {sent}, dropped {dropped} ({100 * dropped / sent:.2f} %) — "
          f"agent: lost {stream['lost']} of expected {stream['expected']} "
          f"({100 * stream['lost'] / max(1, stream['expected']):.2f} %), received {stream['packets']}")
    # Exact: the capture dropped nothing (checked), the loss phases are framed by clean seconds.
    check(stream["packets"] == sent - dropped, f"{name}: received = sent - dropped ({stream['packets']} = {sent} - {dropped})")
    check(stream["lost"] == dropped, f"{name}: lost = dropped ({stream['lost']} = {dropped})")
    check(stream["expected"] == sent, f"{name}: expected = sent ({stream['expected']} = {sent})")
    ticks, _ = timeline(name)
    entries = peer_ticks(ticks)
    window_packets = sum(p["rx_packets"] for p in entries)
    window_lost = sum(p["rx_lost"] for p in entries)
    check(window_packets == stream["packets"], f"{name}: the ticks' windows hold every packet ({window_packets})")
    if name != "outage":
        # An outage's loss belongs to the outage (its connection state), not to a window.
        check(window_lost == dropped, f"{name}: the ticks' windows lost = dropped ({window_lost} = {dropped})")
    problems, checked = check_consistency(ticks, peer)
    check(not problems and checked > 0, f"{name}: all {checked} scored ticks have the model's level for their inputs and damping")
    for problem in problems[:5]:
        print("     " + problem)

def steady_raw_levels(name):
    ticks, _ = timeline(name)
    entries = [p for p in peer_ticks(ticks) if p["state"] == "connected" and p["rx"]["raw_level"]]
    return [p["rx"]["raw_level"] for p in entries[4:-2]]  # past the first 6 s, before the clean end

clean, lossy = steady_raw_levels("clean"), steady_raw_levels("loss30")
check(clean and statistics.median_low(clean) == 1,
      f"clean: median rx level {NAMES.get(statistics.median_low(clean)) if clean else None} over {len(clean)} ticks (excellent)")
check(lossy and statistics.median_low(lossy) >= 5,
      f"loss30: median rx level {NAMES.get(statistics.median_low(lossy)) if lossy else None} over {len(lossy)} ticks (very bad or worse)")

ticks, events = timeline("outage")
phases = [float(x) for x in open(f"{work}/outage.phases").read().split()]
drop_start, drop_end = phases[1], phases[2]
disconnected = [e for e in events if e["kind"] == "disconnected" and e["peer"] == peer]
recovered = [e for e in events if e["kind"] == "recovered" and e["peer"] == peer]
check(len(disconnected) == 1, f"outage: one disconnected event ({len(disconnected)})")
if disconnected:
    after = disconnected[0]["time"] - drop_start
    check(abs(after - 12) <= 2, f"outage: disconnected {after:.2f} s after the drop began (12 s ± one tick)")
    reporting = [t for t in ticks if t["time"] >= disconnected[0]["time"]][:1]
    level = [p["rx_quality"] for t in reporting for p in t["peers"] if p["peer"] == peer]
    check(level == [6], f"outage: level {level} at the tick after disconnecting (6 = down)")
check(len(recovered) == 1 and recovered[0].get("from") == "disconnected",
      f"outage: recovered from disconnected ({[e.get('from') for e in recovered]})")
if recovered:
    check(abs(recovered[0]["time"] - drop_end) <= 1, f"outage: recovered {recovered[0]['time'] - drop_end:+.2f} s from the end of the drop")
check(not any(e["kind"] == "timeout" for e in events), "outage: no timeout")
print(f"real traffic: {len(failures)} check(s) failed" if failures else "all real-traffic checks passed")
sys.exit(1 if failures else 0)
PY
