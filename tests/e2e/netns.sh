# Shared by the end-to-end scripts: two network namespaces joined by a veth pair, only
# addresses inside them, and everything torn down on exit (processes stopped with deadlines,
# see lib.sh). Source it after lib.sh, setting `tag` (a unique name prefix) and `subnet` (the
# first three octets, e.g. 10.201.0).
#   sender:   $sender,   interface ${tag}va, address $subnet.1
#   receiver: $receiver, interface ${tag}vb, address $subnet.2
# Loss is made in an nftables netdev table `nqloss` on the sender's egress: a drop in the
# receiver's input hook would come after a capture point there and the capture would show none.

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
