# Shared by the end-to-end scripts: two network namespaces joined by a veth pair, only
# addresses inside them, and everything torn down on exit (processes stopped with deadlines,
# see lib.sh). Source it after lib.sh, setting `tag` (a unique name prefix) and `subnet` (the
# first three octets, e.g. 10.201.0).
#   sender:   $sender,   interface ${tag}va, address $subnet.1
#   receiver: $receiver, interface ${tag}vb, address $subnet.2
# Loss is made in an nftables netdev table `nqloss` on the sender's egress: a drop in the
# receiver's input hook would come after a capture point there and the capture would show none.
# spawn_call_receiver and spawn_call_sender start a G.711 call with RTCP both ways between them.

sender=${tag}a
receiver=${tag}b
work=$(mktemp -d)
pids=()
cleanup() {
  stop_process "${pids[@]}"
  ip netns del "$sender" 2>/dev/null || true
  ip netns del "$receiver" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

ip netns add "$sender"
ip netns add "$receiver"
ip link add "${tag}va" type veth peer name "${tag}vb"
ip link set "${tag}va" netns "$sender"
ip link set "${tag}vb" netns "$receiver"
ip -n "$sender" addr add "$subnet.1/24" dev "${tag}va"
ip -n "$receiver" addr add "$subnet.2/24" dev "${tag}vb"
for ns in "$sender" "$receiver"; do ip -n "$ns" link set lo up; done
ip -n "$sender" link set "${tag}va" up
ip -n "$receiver" link set "${tag}vb" up

nft_sender() { ip netns exec "$sender" nft "$@"; }
nft_sender add table netdev nqloss
nft_sender add chain netdev nqloss egress "{ type filter hook egress device \"${tag}va\" priority 0; }"

# The two ends of a G.711 call from the sender to the receiver, GStreamer's rtpbin at both: RTP
# to port 5004, RTCP both ways on 5005 (about one report a second). Each writes its output to
# LOG; $! is its pid afterwards. No `-e`: with it gst-launch waits for an end-of-stream a live
# udpsrc never sends.
spawn_call_receiver() {  # LOG
  spawn ip netns exec "$receiver" gst-launch-1.0 -q rtpbin name=rtpbin \
    rtpsession0::rtcp-min-interval=1000000000 \
    udpsrc port=5004 caps="application/x-rtp,media=audio,clock-rate=8000,encoding-name=PCMU,payload=0" \
    ! rtpbin.recv_rtp_sink_0 rtpbin. ! rtppcmudepay ! mulawdec ! audioconvert ! fakesink \
    udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0 \
    rtpbin.send_rtcp_src_0 ! udpsink host="$subnet.1" port=5005 sync=false async=false \
    >"$1" 2>&1
}
spawn_call_sender() {  # LOG
  spawn ip netns exec "$sender" gst-launch-1.0 -q rtpbin name=rtpbin \
    rtpsession0::rtcp-min-interval=1000000000 \
    audiotestsrc is-live=true samplesperbuffer=160 ! audioconvert ! audioresample \
    ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay ! rtpbin.send_rtp_sink_0 \
    rtpbin.send_rtp_src_0 ! udpsink host="$subnet.2" port=5004 \
    rtpbin.send_rtcp_src_0 ! udpsink host="$subnet.2" port=5005 sync=false async=false \
    udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0 >"$1" 2>&1
}
