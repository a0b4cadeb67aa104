#!/usr/bin/env bash
# The acceptance of our STAMP probes: what they measure against what the test relay
# (netquality-impair) really did, side by side with irtt, and the agent through an outage.
# Three network namespaces in a row, sender — relay — reflector, joined by two veth pairs
# (10.204.1.0/24 on the sender's side, 10.204.2.0/24 on the reflector's); the relays run in the
# middle one under `chrt -f 10`, our probe and reflector under `chrt -f 5`, irtt's client and
# server under `chrt -r 4` (on a loaded machine an ordinary process wakes milliseconds late:
# that would be the scheduler's error, not the tools'; why irtt differs is said where it
# starts). The reflector namespace runs `netquality reflect` and `irtt server`.
#   1. Truth: `netquality probe --count 5000 --interval 10ms` through relay A: forward
#      50 ms ± 10 ms with 2 % loss, backward 10 ms without loss. Against relay A's stats and
#      packet log: mean RTT within 2 ms of the applied forward + backward delay; forward lost
#      = the relay's drops, backward lost 0; forward and backward IPDV within 0.5 ms of the IPDV
#      of the delays the relay applied; forward IPDV and jitter above backward.
#   2. irtt side by side, at the same time: `irtt client -i 10ms -d 50s` through relay B (the
#      same parameters and seed) to `irtt server`. irtt against relay B the same way, the very
#      packets lost upstream included; then ours and irtt side by side (RTT, loss each way, send
#      and receive IPDV: both tools' IPDV is the mean of |transit(n) - transit(n-1)| over
#      consecutive answered sequence numbers). e2e/probes/probes_truth.py has every tolerance
#      and its reason, and prints the tables.
#   3. Outage: `netquality run` probing the reflector at 50/s through relay C (20 ms forward,
#      10 ms back, no loss); an nftables rule on the sender's egress drops every probe for
#      15 s (its counter says how many). /api/v1/peers polled every 0.5 s: the peer is in every
#      poll, disconnected since 12 s ± 2 s (one tick) after the rule was added, connected
#      again after it is removed, with one disconnected and one recovered event in the agent's
#      log and exactly the dropped probes as lost forward, none backward.
#   4. `promtool check metrics` on the agent's /metrics while it probes: clean.
#   5. A stall, during the outage of 3: the agent also probes a second `netquality reflect`
#      (10.204.1.3 in the middle namespace, no relay), stopped with SIGSTOP for the same 15 s
#      and continued with SIGCONT; two nftables counters on the sender's egress count the
#      probes sent to it meanwhile, one from before the SIGSTOP to after the SIGCONT (outer),
#      one from after the one to before the other (inner). When it goes on it answers the
#      oldest 400 probes queued in its socket (its per-source burst) and refuses the rest.
#      From the agent's /metrics before the stall and 7 s after its recovery (three ticks and
#      more: a quality alert would have fired by then): no probe lost backward, the late
#      answers counted as the reflector's stall, forward loss = the reflector's refusals,
#      forward loss + late answers at least the inner count, late answers at most the outer;
#      at the end the reflector's replies = the agent's answers in time + late ones, exactly.
#      Disconnected and recovered once in the agent's log, and no quality alert for
#      either peer in its log or in /api/v1/alerts (before 894eff0 the outage's loss, scored
#      after the recovery, fired peer_rx/tx_quality_bad 4 s after it; before ad4a11a the
#      backlog was 400 probes lost backward).
#
#   e2e/probes/probes-truth.sh     (root, for the namespaces, nftables and chrt; skips otherwise)
#   INTERVAL_MS=25 probes every 25 ms instead of 10 (no probe overtakes another then).
#   About 1 min 30 s (50 s of it the 5,000 probes, 12 s the stall of 5 after the outage).
#   KEEP=1 keeps the work directory (relay stats and packet logs, both tools' JSON, the polls,
#   the agent's log and dashboard).
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "probes truth" "network namespaces, nftables and real-time priority"
scripts/bootstrap.sh python3 iproute2 util-linux nftables irtt prometheus
build_product netquality
build_product netquality-impair
netquality=$PWD/.build/debug/netquality
relay_binary=$PWD/.build/debug/netquality-impair
checker=$PWD/e2e/probes/probes_truth.py

# Unique per run, so two runs on one machine do not meet (interface names stay under 16 bytes).
tag=nqt$$
sender_ns=${tag}s
relay_ns=${tag}r
reflector_ns=${tag}f
work=$(mktemp -d)
pids=()
cleanup() {
  stop_process "${pids[@]}"
  for namespace in "$sender_ns" "$relay_ns" "$reflector_ns"; do
    ip netns del "$namespace" 2>/dev/null || true
  done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
started=$(date +%s)

for namespace in "$sender_ns" "$relay_ns" "$reflector_ns"; do
  ip netns add "$namespace"
  ip -n "$namespace" link set lo up
done
ip link add "${tag}s0" type veth peer name "${tag}r0"
ip link add "${tag}r1" type veth peer name "${tag}f0"
ip link set "${tag}s0" netns "$sender_ns"
ip link set "${tag}r0" netns "$relay_ns"
ip link set "${tag}r1" netns "$relay_ns"
ip link set "${tag}f0" netns "$reflector_ns"
ip -n "$sender_ns" addr add 10.204.1.1/24 dev "${tag}s0"
ip -n "$relay_ns" addr add 10.204.1.2/24 dev "${tag}r0"
ip -n "$relay_ns" addr add 10.204.1.3/24 dev "${tag}r0"  # the stalling reflector of 5
ip -n "$relay_ns" addr add 10.204.2.1/24 dev "${tag}r1"
ip -n "$reflector_ns" addr add 10.204.2.2/24 dev "${tag}f0"
ip -n "$sender_ns" link set "${tag}s0" up
ip -n "$relay_ns" link set "${tag}r0" up
ip -n "$relay_ns" link set "${tag}r1" up
ip -n "$reflector_ns" link set "${tag}f0" up

failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

# The far ends: our reflector and irtt's server (no minimum interval: with ±10 ms of jitter
# its 10 ms default would refuse packets the relay bunched up). irtt is a Go program, and Go's
# runtime has spin-waits that assume time-sharing: under SCHED_FIFO an irtt client once spun
# on both cores at the end of its run, starving our probe (same priority, so never preempted)
# until SIGKILL. Round-robin (-r) time-slices its threads, and one priority below ours it
# cannot hold up our probe; it is still above everything stress-ng runs.
spawn ip netns exec "$reflector_ns" chrt -f 5 "$netquality" reflect --listen 10.204.2.2:8620 \
  >"$work/reflector.out" 2>"$work/reflector.err"
pids+=($!)
spawn ip netns exec "$reflector_ns" chrt -r 4 irtt server -b 10.204.2.2:2112 -i 0 \
  >"$work/irtt-server.out" 2>&1
pids+=($!)
wait_until 10 "the reflector's ready line" grep -q '^reflecting on ' "$work/reflector.out" \
  || { cat "$work/reflector.err"; exit 1; }

# start_relay NAME TARGET ARGS...: a relay in the middle namespace; sets relay_pid and
# relay_port once it has printed its listening line.
start_relay() {
  local name=$1 target=$2
  shift 2
  spawn ip netns exec "$relay_ns" chrt -f 10 "$relay_binary" --listen 10.204.1.2:0 \
    --target "$target" --stats "$work/relay-$name.json" --log "$work/relay-$name.csv" "$@" \
    >"$work/relay-$name.out" 2>"$work/relay-$name.err"
  relay_pid=$!
  pids+=("$relay_pid")
  if ! wait_until 10 "relay $name's listening line" \
    grep -q '^listening on ' "$work/relay-$name.out"; then
    cat "$work/relay-$name.err"
    exit 1
  fi
  relay_port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/relay-$name.out")
}

# stop_relay NAME PID: SIGINT, then its final stats (exit 0, nothing on stderr).
stop_relay() {
  local name=$1 pid=$2 status
  kill -s INT "$pid"
  if ! wait_exit 10 "$pid"; then
    fail "relay $name did not exit within 10 s of SIGINT"
    stop_process "$pid"
    return
  fi
  wait "$pid" && status=0 || status=$?
  [ "$status" -eq 0 ] || fail "relay $name exited $status on SIGINT"
  [ ! -s "$work/relay-$name.err" ] \
    || fail "relay $name wrote to stderr: $(head -3 "$work/relay-$name.err")"
}

# 1 and 2. Our probe and irtt at the same time, each through its own relay with the same
# impairment and seed, 5,000 packets each. Every 10 ms: with ±10 ms of jitter one probe in
# eight overtakes the one before it (the relay's `overtaken`, printed each run), which the split
# of loss by direction must survive. It did not before 32af277: the split took the gap between
# the reflector's numbers of consecutive answers in our sequence order, and an overtaken
# neighbour's number made a probe lost forward look lost backward (31 of 108 in a run; irtt,
# with its server's receive window, had all of them right). Now the probe session counts the
# gaps in the reflector's numbers as answers arrive.
interval_ms=${INTERVAL_MS:-10}
count=5000
impairment=(--seed 204 --forward-delay-ms 50 --forward-jitter-ms 10 --forward-loss 0.02
  --backward-delay-ms 10)
start_relay A 10.204.2.2:8620 "${impairment[@]}"
relay_a_pid=$relay_pid
relay_a_port=$relay_port
start_relay B 10.204.2.2:2112 "${impairment[@]}"
relay_b_pid=$relay_pid
relay_b_port=$relay_port
echo "ok   relays A (:$relay_a_port, to the reflector) and B (:$relay_b_port, to irtt server)"

phase_started=$(date +%s)
run_for 200 ip netns exec "$sender_ns" chrt -f 5 "$netquality" probe "10.204.1.2:$relay_a_port" \
  --count "$count" --interval "${interval_ms}ms" --json >"$work/ours.json" 2>"$work/ours.err" &
ours_pid=$!
# irtt sends from 0 to under its duration: 5,000 packets, less its timer misses.
run_for 200 ip netns exec "$sender_ns" chrt -r 4 irtt client -i "${interval_ms}ms" \
  -d "$((count * interval_ms))ms" -Q \
  -o "$work/irtt.json" "10.204.1.2:$relay_b_port" >"$work/irtt.out" 2>&1 &
irtt_pid=$!
wait "$ours_pid" || fail "netquality probe: exit $? ($(head -3 "$work/ours.err"))"
wait "$irtt_pid" || fail "irtt client: exit $? ($(head -3 "$work/irtt.out"))"
echo "     both tools done in $(($(date +%s) - phase_started)) s"
stop_relay A "$relay_a_pid"
stop_relay B "$relay_b_pid"
python3 "$checker" compare "$work/ours.json" "$work/relay-A.json" "$work/relay-A.csv" \
  "$work/irtt.json" "$work/relay-B.json" "$work/relay-B.csv" || failed=$((failed + 1))

# 3, 4 and 5. The agent, probing the reflector through relay C and the stalling reflector
# directly, in the sender's namespace. It captures on lo only, where nothing is UDP: the peers
# are the probes' alone.
start_relay C 10.204.2.2:8620 --forward-delay-ms 20 --backward-delay-ms 10
relay_c_pid=$relay_pid
peer=reflector-c
stall_peer=reflector-stall
stall_port=8621
spawn ip netns exec "$relay_ns" "$netquality" reflect --listen "10.204.1.3:$stall_port" \
  >"$work/stall-reflector.out" 2>"$work/stall-reflector.err"
stall_pid=$!  # `ip netns exec` and `env` exec: this is the reflector itself (checked below)
pids+=("$stall_pid")
wait_until 10 "the stalling reflector's ready line" \
  grep -q '^reflecting on ' "$work/stall-reflector.out" \
  || { cat "$work/stall-reflector.err"; exit 1; }
[ "$(cat "/proc/$stall_pid/comm")" = netquality ] \
  || { echo "FAIL pid $stall_pid is $(cat "/proc/$stall_pid/comm"), not the reflector"; exit 1; }
cat >"$work/agent.yaml" <<YAML
interfaces: [lo]
listen: "127.0.0.1:19473"
probes:
  - target: "10.204.1.2:$relay_port"
    name: $peer
    rate: 50
    timeout: 1
  - target: "10.204.1.3:$stall_port"
    name: $stall_peer
    rate: 50
    timeout: 1
YAML
spawn ip netns exec "$sender_ns" "$netquality" run --config "$work/agent.yaml" \
  --dashboard "$work/dashboard.txt" 2>"$work/agent.log"
pids+=($!)
in_sender() { ip netns exec "$sender_ns" "$@"; }
api=http://127.0.0.1:19473
peer_state() {  # peer_state PEER STATE: true when PEER's state is STATE at the last tick
  in_sender python3 -c 'import json, sys, urllib.request
peers = json.load(urllib.request.urlopen(sys.argv[1], timeout=2))["peers"]
sys.exit(0 if any(p["peer"] == sys.argv[2] and p["state"] == sys.argv[3] for p in peers) else 1)' \
    "$api/api/v1/peers" "$1" "$2"
}
api_get() {  # api_get PATH FILE: the agent's answer to GET PATH
  in_sender python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
    "$api$1" >"$2"
}
if ! wait_until 30 "the agent's peer $peer connected" peer_state "$peer" connected; then
  tail -20 "$work/agent.log"
  exit 1
fi
echo "ok   the agent probes $peer through relay C"
wait_until 10 "the agent's peer $stall_peer connected" peer_state "$stall_peer" connected \
  || { tail -20 "$work/agent.log"; exit 1; }

# 4. A scrape while it probes.
api_get /metrics "$work/metrics.txt"
if promtool check metrics <"$work/metrics.txt" >"$work/promtool.out" 2>&1; then
  echo "ok   promtool check metrics is clean on a scrape" \
    "($(grep -c '^netquality_probe_' "$work/metrics.txt") probe samples)"
else
  fail "promtool check metrics: $(head -5 "$work/promtool.out")"
fi
grep -q "^netquality_probe_" "$work/metrics.txt" || fail "no netquality_probe_ series on /metrics"

# 3. The outage. Every probe to relay C dropped on the sender's egress (netdev egress: after the
# agent's sendto succeeded, so the agent sees loss, not an error), counted by the rule.
spawn ip netns exec "$sender_ns" python3 "$checker" poll "$api/api/v1/peers" \
  "$work/polls.jsonl" "$work/polls.stop" 90
pids+=($!)
poller_pid=$!
nft_sender() { ip netns exec "$sender_ns" nft "$@"; }
nft_sender add table netdev nqtruth
nft_sender add chain netdev nqtruth egress \
  "{ type filter hook egress device \"${tag}s0\" priority 0; }"
nft_sender add counter netdev nqtruth dropped
# The probes sent to the stalling reflector, counted twice: from before its SIGSTOP to after its
# SIGCONT (outer) and from after the one to before the other (inner). The probes the stall
# held lie between the two, whatever the commands' latency on a loaded machine (a CI run took
# 3 probes' worth, 60 ms, from a rule's removal to the SIGCONT). Each count in a chain of its
# own, so that the inner can go before the SIGCONT and the outer after it.
for window in outer inner; do
  nft_sender add counter netdev nqtruth "stall_$window"
done
nft_sender add chain netdev nqtruth stall_outer \
  "{ type filter hook egress device \"${tag}s0\" priority -10; }"
nft_sender add chain netdev nqtruth stall_inner \
  "{ type filter hook egress device \"${tag}s0\" priority 10; }"
count_stall() {  # the window's chain gets its counting rule
  nft_sender add rule netdev nqtruth "stall_$1" ip daddr 10.204.1.3 udp dport "$stall_port" \
    counter name "stall_$1"
}
sleep 2  # two polls of the peer connected before the drop: the experiment, not a wait
# 5 begins with it: the figures before, then the count of the probes sent to the stalling
# reflector from its stop to its continuation (the rule goes with the chain's flush below).
api_get /metrics "$work/stall-before.txt"
nft_sender add rule netdev nqtruth egress udp dport "$relay_port" counter name dropped drop
# The drop's start: right after the rule is in. A probe sent before this may still be answered
# (its answer comes within a round trip, ~30 ms here); none sent after it is.
rule_added=$(date +%s.%N)
count_stall outer
kill -s STOP "$stall_pid"
count_stall inner
# The outage lasts 15 s from the rule (the experiment's length, not a wait for an event), or
# until a poll has seen the peer disconnected if that takes longer: the state is found at the
# first tick after the 12 s mark, and a tick so late that the answers were back by then would
# go straight to recovered. Then the check below fails on a missing state, not on a race.
wait_until 17 "the peer disconnected (12 s after the drop, plus a tick)" \
  grep -q '"state": "disconnected"' "$work/polls.jsonl" || true
sleep "$(python3 -c "import time; print(max(0, 15 - (time.time() - $rule_added)))")"
nft_sender flush chain netdev nqtruth egress
rule_removed=$(date +%s.%N)
nft_sender flush chain netdev nqtruth stall_inner
kill -s CONT "$stall_pid"
nft_sender flush chain netdev nqtruth stall_outer
dropped=$(nft_sender -j list counter netdev nqtruth dropped | python3 -c 'import json, sys
print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])')
# Connected again at the first tick after answers return (2 s), and the lost probes are all
# attributed once an answer follows them and a tick has closed: a few ticks at most.
recovered() {
  tail -1 "$work/polls.jsonl" | grep -q '"state": "connected"' \
    && grep -q "event=recovered" "$work/agent.log"
}
wait_until 10 "the peer connected again and a recovered event" recovered || true
sleep 2.5  # one more tick polled after recovery: the counts settled, the peer still listed
touch "$work/polls.stop"
wait_exit 5 "$poller_pid" || stop_process "$poller_pid"
python3 "$checker" outage "$work/polls.jsonl" "$work/agent.log" "$peer" "$rule_added" \
  "$rule_removed" "$dropped" || failed=$((failed + 1))
stop_relay C "$relay_c_pid"

# 5. The stall's figures: 7 s after the stalling reflector's peer is connected again (three 2 s
# ticks and one more: the for-3 quality alerts of the outage's loss fired 4 s after it).
stall_counted() {
  nft_sender -j list counter netdev nqtruth "stall_$1" | python3 -c 'import json, sys
print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])'
}
stall_inner=$(stall_counted inner) stall_outer=$(stall_counted outer)
wait_until 10 "the agent's peer $stall_peer connected again" \
  peer_state "$stall_peer" connected || true
sleep 7  # the observation after the recovery, not a wait for an event
api_get /metrics "$work/stall-after.txt"
api_get /api/v1/alerts "$work/alerts.json"
# The agent's log up to the reflector's exit: the stall's events are those before it (its exit
# silences the peer too, and on a loaded machine the wait below can outlast the interrupted mark).
cp "$work/agent.log" "$work/agent-stall.log"
# The reflector's own count of its replies, at its exit; the agent's answers settle within
# its 1 s deadline and show at the next tick (2 s).
kill -s INT "$stall_pid"
wait_exit 10 "$stall_pid" || fail "the stalling reflector did not exit within 10 s of SIGINT"
sleep 3.5  # the answers in flight settled and a tick published them
api_get /metrics "$work/stall-final.txt"
python3 "$checker" stall "$work/stall-before.txt" "$work/stall-after.txt" \
  "$work/stall-final.txt" "$work/stall-reflector.out" "$work/alerts.json" "$work/agent-stall.log" \
  "$stall_peer" "$stall_inner" "$stall_outer" || failed=$((failed + 1))

echo "     $(($(date +%s) - started)) s in all"
if [ "$failed" -ne 0 ]; then
  echo "agent log:"
  tail -20 "$work/agent.log"
  echo "FAIL $failed check(s) of the probes failed"
  exit 1
fi
echo "PASS our probes measure what the relay applied, agree with irtt, and see the outage and the stall"
