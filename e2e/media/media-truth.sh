#!/usr/bin/env bash
# Media experience against the clients' own truth (issue 27).
#
# 1. Chromium against Chromium: two headless Chromium instances (fake camera and microphone),
#    each in its own namespace on a veth pair, call each other with audio and video
#    (e2e/media/chromium_call.py drives them over the DevTools protocol). The agent runs live in
#    B's namespace on B's veth (local = B), with tcpdump beside it. A's video to B is cut by
#    nftables on A's egress (blackouts of 0.3, 1 and 3 s, a 6 s pause, a random-loss phase), so
#    the capture at B sees what B's browser receives. Truth: B's getStats() (inbound video:
#    framesReceived, freezeCount, totalFreezesDuration, pauseCount, nackCount, pliCount) and A's
#    (outbound video: nackCount, pliCount received), polled on the agent's 2 s grid; and the
#    capture itself, read by tshark: the frames on the wire (distinct RTP timestamps on the
#    video stream and A's rtxSsrc), which the agent's count must equal tick for tick.
# 2. GStreamer: VP8 and H.264 at 30 fps from A to B, 300 frames with a 2 s stop of the sender
#    in between (e2e/media/gst_stop_sender.py), the frames counted against what was sent and
#    the stop as one freeze.
#
# e2e/media/media_check.py compares and prints the truth-vs-agent tables. Traffic stays in the
# namespaces this script makes. Every wait has a deadline (e2e/lib.sh).
#
#   e2e/media/media-truth.sh   (root; skips with a reason otherwise)
#   KEEP=1 keeps the work directory; NETQUALITY=path uses that binary instead of building;
#   CODECS="vp8 h264" the Chromium calls' video codecs (H.264 when the build has it).
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e media truth" "network namespaces, nftables and live capture"
scripts/bootstrap.sh chromium gstreamer1.0-tools gstreamer1.0-plugins-base \
  gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly python3-gi gir1.2-gstreamer-1.0 tcpdump tshark nftables iproute2 python3 curl
if [ -n "${NETQUALITY:-}" ]; then
  netquality=$NETQUALITY
else
  build_product netquality
  netquality=$PWD/.build/debug/netquality
fi
python=/usr/bin/python3

tag=nqm$$
subnet=10.207.0
ns_a=${tag}a ns_b=${tag}b
addr_a=$subnet.1 addr_b=$subnet.2
port=19476
work=$(mktemp -d)
pids=()
cleanup() {
  stop_process "${pids[@]}"
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

ip netns add "$ns_a"
ip netns add "$ns_b"
ip link add "${tag}va" type veth peer name "${tag}vb"
ip link set "${tag}va" netns "$ns_a"
ip link set "${tag}vb" netns "$ns_b"
ip -n "$ns_a" addr add "$addr_a/24" dev "${tag}va"
ip -n "$ns_b" addr add "$addr_b/24" dev "${tag}vb"
for ns in "$ns_a" "$ns_b"; do
  in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done
ip -n "$ns_a" link set "${tag}va" up
ip -n "$ns_b" link set "${tag}vb" up

# The agent in B, on B's veth, B local; tcpdump beside it for analyze.
cat >"$work/agent.yaml" <<YAML
interfaces: [${tag}vb]
local_networks: [$addr_b/32]
listen: 127.0.0.1:$port
storage_path: $work/history.db
YAML
spawn ip netns exec "$ns_b" "$netquality" run --config "$work/agent.yaml" >"$work/agent.log" 2>&1
pids+=($!)
spawn ip netns exec "$ns_b" tcpdump -q -i "${tag}vb" -s 0 -U -w "$work/call.pcap" udp >"$work/tcpdump.log" 2>&1
pids+=($!)
wait_until 30 "the agent's API" in_ns "$ns_b" curl -sf "http://127.0.0.1:$port/-/ready"
wait_until 10 "tcpdump" grep -q "listening" "$work/tcpdump.log"

status=0
# --- Chromium against Chromium -----------------------------------------------------------------
schedule="warmup:14,clean:8,blackout-0.3:0.3:blackout,after-0.3:6,blackout-1:1:blackout,after-1:7"
schedule+=",blackout-3:3:blackout,after-3:8,pause-6:6:blackout,after-6:8,loss:10:loss=5,after-loss:6"
codecs=${CODECS:-vp8 h264}
for codec in $codecs; do
  mkdir -p "$work/$codec"
  echo "--- Chromium call, $codec"
  run_for 150 "$python" e2e/media/chromium_call.py "$work/$codec" "$ns_a" "$ns_b" "${tag}va" \
    "$codec" "$schedule" || { code=$?; [ "$code" -eq 3 ] && echo "SKIP $codec: $(cat "$work/$codec/call.json")" || status=1; }
done
# Let the agent tick past the hang-up, then read what it published.
sleep 3
in_ns "$ns_b" curl -sf "http://127.0.0.1:$port/api/v1/peers" >"$work/peers.json" || status=1
in_ns "$ns_b" curl -sf "http://127.0.0.1:$port/api/v1/streams" >"$work/streams.json" || status=1
in_ns "$ns_b" curl -sf "http://127.0.0.1:$port/metrics" >"$work/metrics.txt" || status=1

# --- GStreamer at known frame rates ------------------------------------------------------------
# 150 frames at 30 fps, a 2 s stop, 150 more, on one stream (e2e/media/gst_stop_sender.py:
# videotestsrc is-live paces the frames, a valve before the encoder closes for 2 s).
for codec in vp8 h264; do
  gport=$((5100 + ${#codec}))
  ssrc=$((0x5EED0000 + gport))
  case $codec in
    vp8) encoder="vp8enc deadline=1 target-bitrate=300000 keyframe-max-dist=60"
      payloader="rtpvp8pay pt=96 ssrc=$ssrc" ;;
    h264) encoder="x264enc tune=zerolatency speed-preset=ultrafast bitrate=300 key-int-max=60"
      payloader="rtph264pay pt=96 config-interval=1 ssrc=$ssrc" ;;
  esac
  echo "--- GStreamer $codec to $addr_b:$gport: 150 frames, a 2 s stop, 150 frames"
  run_for 40 ip netns exec "$ns_a" "$python" e2e/media/gst_stop_sender.py "$codec" "$encoder" \
    "$payloader" "$addr_b" "$gport" >"$work/gst-$codec.log" 2>&1 \
    || { echo "FAIL GStreamer $codec sender"; cat "$work/gst-$codec.log"; status=1; }
done
sleep 3

stop_process "${pids[@]}"
pids=()
"$netquality" analyze --format json "$work/call.pcap" >"$work/analysis.json" 2>"$work/analyze.err" || status=1
"$netquality" analyze --timeline --format jsonl --local "$addr_b/32" "$work/call.pcap" \
  >"$work/timeline.jsonl" 2>>"$work/analyze.err" || status=1
"$netquality" analyze "$work/call.pcap" >"$work/analysis.txt" 2>>"$work/analyze.err" || status=1
"$python" e2e/media/media_check.py "$work" "$addr_a" "$addr_b" || status=1
exit $status
