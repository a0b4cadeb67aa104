# Shared by the end-to-end scripts: two network namespaces joined by a veth pair, only
# addresses inside them, and everything torn down on exit (processes stopped with deadlines,
# see lib.sh). Source it after lib.sh, setting `tag` (a unique name prefix) and `subnet` (the
# first three octets, e.g. 10.201.0).
#   sender:   $sender,   interface ${tag}va, address $subnet.1
#   receiver: $receiver, interface ${tag}vb, address $subnet.2
# Loss is made in an nftables netdev table `nqloss` on the sender's egress: a drop in the
# receiver's input hook would come after a capture point there and the capture would show none.
# spawn_call_receiver and spawn_call_sender start a G.711 call with RTCP both ways between them.
# More pairs: `netns_pair TAG SUBNET` makes ${TAG}a and ${TAG}b the same way (deleted on exit
# too); the call helpers take that TAG and SUBNET after the log to run in them.

sender=${tag}a
receiver=${tag}b
work=$(mktemp -d)
pids=()
namespaces=()
cleanup() {
  stop_process "${pids[@]}"
  local namespace
  for namespace in "${namespaces[@]}"; do ip netns del "$namespace" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

netns_pair() {  # TAG SUBNET
  local pair=$1 net=$2
  ip netns add "${pair}a"
  namespaces+=("${pair}a")
  ip netns add "${pair}b"
  namespaces+=("${pair}b")
  ip link add "${pair}va" type veth peer name "${pair}vb"
  ip link set "${pair}va" netns "${pair}a"
  ip link set "${pair}vb" netns "${pair}b"
  ip -n "${pair}a" addr add "$net.1/24" dev "${pair}va"
  ip -n "${pair}b" addr add "$net.2/24" dev "${pair}vb"
  ip -n "${pair}a" link set lo up
  ip -n "${pair}b" link set lo up
  ip -n "${pair}a" link set "${pair}va" up
  ip -n "${pair}b" link set "${pair}vb" up
  ip netns exec "${pair}a" nft add table netdev nqloss
  ip netns exec "${pair}a" nft add chain netdev nqloss egress \
    "{ type filter hook egress device \"${pair}va\" priority 0; }"
}
netns_pair "$tag" "$subnet"

nft_sender() { ip netns exec "$sender" nft "$@"; }

# The two ends of a G.711 call from the sender to the receiver, GStreamer's rtpbin at both: RTP
# to port 5004, RTCP both ways on 5005 (about one report a second). Each writes its output to
# LOG; $! is its pid afterwards. No `-e`: with it gst-launch waits for an end-of-stream a live
# udpsrc never sends. TAG and SUBNET: the pair of netns_pair to run in (default the first).
spawn_call_receiver() {  # LOG [TAG SUBNET]
  local pair=${2:-$tag} net=${3:-$subnet}
  spawn ip netns exec "${pair}b" gst-launch-1.0 -q rtpbin name=rtpbin \
    rtpsession0::rtcp-min-interval=1000000000 \
    udpsrc port=5004 caps="application/x-rtp,media=audio,clock-rate=8000,encoding-name=PCMU,payload=0" \
    ! rtpbin.recv_rtp_sink_0 rtpbin. ! rtppcmudepay ! mulawdec ! audioconvert ! fakesink \
    udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0 \
    rtpbin.send_rtcp_src_0 ! udpsink host="$net.1" port=5005 sync=false async=false \
    >"$1" 2>&1
}
spawn_call_sender() {  # LOG [TAG SUBNET]
  local pair=${2:-$tag} net=${3:-$subnet}
  spawn ip netns exec "${pair}a" gst-launch-1.0 -q rtpbin name=rtpbin \
    rtpsession0::rtcp-min-interval=1000000000 \
    audiotestsrc is-live=true samplesperbuffer=160 ! audioconvert ! audioresample \
    ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay ! rtpbin.send_rtp_sink_0 \
    rtpbin.send_rtp_src_0 ! udpsink host="$net.2" port=5004 \
    rtpbin.send_rtcp_src_0 ! udpsink host="$net.2" port=5005 sync=false async=false \
    udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0 >"$1" 2>&1
}
