#!/usr/bin/env bash
# End to end on real traffic: two network namespaces joined by a veth pair, a GStreamer RTP
# sender and receiver with RTCP both ways, a tcpdump capture on the receiver's side, and loss
# made in the kernel with nftables on the sender's egress (no netem on these machines). Each
# capture then goes through `netquality analyze --timeline` and the levels and states are
# checked against docs/quality-model.md. Only addresses inside the namespaces are used.
#
#   tests/e2e/real-traffic.sh          (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/e2e/preflight.sh
skip_without_namespaces "e2e real traffic" "network namespaces and nftables"
scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-ugly tcpdump nftables iproute2 python3
swift build --product netquality >/dev/null
netquality=$PWD/.build/debug/netquality

tag=nq$$
subnet=10.201.0
source tests/e2e/netns.sh

set_loss() {  # percent
  nft_sender flush chain netdev nqloss egress
  if [ "$1" -ge 100 ]; then
    nft_sender add rule netdev nqloss egress udp dport '{ 5004, 5005 }' counter drop
  elif [ "$1" -gt 0 ]; then
    nft_sender add rule netdev nqloss egress udp dport 5004 numgen random mod 100 '<' "$1" counter drop
  fi
}

# Runs a G.711 call for the phases given as "seconds:loss-percent" and captures it.
call() {
  local name=$1
  shift
  local capture=$work/$name.pcap
  set_loss 0
  ip netns exec "$receiver" tcpdump -i "${tag}vb" -U -w "$capture" udp 2>"$work/$name.tcpdump" &
  local tcpdump=$!
  pids+=("$tcpdump")
  until grep -q "listening on" "$work/$name.tcpdump"; do
    kill -0 "$tcpdump" 2>/dev/null || { cat "$work/$name.tcpdump"; return 1; }
    sleep 0.1
  done
  ip netns exec "$receiver" gst-launch-1.0 -q -e rtpbin name=rtpbin \
    rtpsession0::rtcp-min-interval=1000000000 \
    udpsrc port=5004 caps="application/x-rtp,media=audio,clock-rate=8000,encoding-name=PCMU,payload=0" \
    ! rtpbin.recv_rtp_sink_0 rtpbin. ! rtppcmudepay ! mulawdec ! audioconvert ! fakesink \
    udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0 \
    rtpbin.send_rtcp_src_0 ! udpsink host=10.201.0.1 port=5005 sync=false async=false \
    >"$work/$name.receiver" 2>&1 &
  local receiver_pid=$!
  pids+=("$receiver_pid")
  ip netns exec "$sender" gst-launch-1.0 -q -e rtpbin name=rtpbin \
    rtpsession0::rtcp-min-interval=1000000000 \
    audiotestsrc is-live=true samplesperbuffer=160 ! audioconvert ! audioresample \
    ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay ! rtpbin.send_rtp_sink_0 \
    rtpbin.send_rtp_src_0 ! udpsink host=10.201.0.2 port=5004 \
    rtpbin.send_rtcp_src_0 ! udpsink host=10.201.0.2 port=5005 sync=false async=false \
    udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0 >"$work/$name.sender" 2>&1 &
  local sender_pid=$!
  pids+=("$sender_pid")
  for phase in "$@"; do
    set_loss "${phase#*:}"
    date +%s.%N >>"$work/$name.phases"
    sleep "${phase%%:*}"  # the phase's duration: the experiment itself, not a wait for an event
  done
  kill -INT "$sender_pid" "$receiver_pid" 2>/dev/null || true
  wait "$sender_pid" "$receiver_pid" 2>/dev/null || true
  kill -INT "$tcpdump"
  wait "$tcpdump" 2>/dev/null || true
  "$netquality" analyze "$capture" --timeline --format jsonl --local 10.201.0.2/32 >"$work/$name.jsonl"
  "$netquality" analyze "$capture" >"$work/$name.table"
  echo "== $name: $(grep -c '"type":"tick"' "$work/$name.jsonl") ticks, $(tail -1 "$work/$name.table")"
}

call clean 20:0
call loss5 30:5
call loss20 30:20
call outage 10:0 15:100 15:0

python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
peer = "10.201.0.1"
names = {1: "excellent", 2: "good", 3: "poor", 4: "bad", 5: "very_bad", 6: "down"}
failures = []

def timeline(name):
    ticks, events = [], []
    for line in open(f"{work}/{name}.jsonl"):
        record = json.loads(line)
        (ticks if record["type"] == "tick" else events).append(record)
    return ticks, events

def steady_levels(name):
    ticks, _ = timeline(name)
    levels = [p["rx_quality"] for t in ticks for p in t["peers"] if p["peer"] == peer and p["state"] == "connected"]
    return levels[3:-1]  # past the first pooled 6 s, before the closing partial window

def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)

for name, expected, note in [
    ("clean", {1}, "excellent"),
    ("loss5", {2}, "good (R 76.5 at 5 %)"),
    ("loss20", {4, 5}, "bad, at the edge of very bad (R 50.1 at 20 %)"),
]:
    levels = steady_levels(name)
    median = statistics.median_low(levels) if levels else None
    losses = [p["rx_loss_ratio"] for t in timeline(name)[0] for p in t["peers"] if p["peer"] == peer and p["rx_loss_ratio"] is not None][3:-1]
    mean_loss = statistics.mean(losses) if losses else float("nan")
    check(median in expected,
          f"{name}: median rx level {names.get(median, median)} over {len(levels)} ticks, mean loss {mean_loss:.3f}; documented {note}")

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
print(f"{6 - len(failures)} checks of the outage and levels: {len(failures)} failed" if failures else "all e2e checks passed")
sys.exit(1 if failures else 0)
PY
