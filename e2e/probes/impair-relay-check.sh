#!/usr/bin/env bash
# The test impairment relay (netquality-impair) applies what it says it applies. Three network
# namespaces in a row, client — relay — echo, joined by two veth pairs (10.203.1.0/24 and
# fd00:203:1::/64 on the client's side, 10.203.2.0/24 on the echo's); the relay runs in the
# middle one under `chrt -f 10`, the python ends (e2e/probes/impair_udp.py) under `chrt -f 5`.
#   1. IPv4, 2,000 packets at 50/s: forward 50 ms ± 10 ms with 2 % loss, backward 20 ms, no
#      loss. The echo received what the relay forwarded, the client misses what the relay
#      dropped, and the client's mean RTT is within 2 ms of the relay's forward + backward mean
#      applied delay; the relay's log holds exactly the fates its seed gives
#      (e2e/probes/impair_check.py has the full list). Ends with SIGINT: exit 0, final stats.
#   2. IPv6 client side, IPv4 target, 500 packets: forward 10 ms with 5 % duplicates and 10 %
#      held 25 ms; backward 5 ms with 1 % loss. Duplicates and late replies the client saw equal
#      the relay's copies and overtaken packets. Ends with SIGTERM: exit 0, final stats.
#   3. Usage errors exit 2 and a port in use exits 1, each with one line on stderr.
#   4. 70 client addresses: the first 64 are relayed, 6 counted in client_limit_dropped; a
#      3,000-byte datagram is counted as oversize, not forwarded.
#
#   e2e/probes/impair-relay-check.sh     (root, for the namespaces and chrt; skips otherwise)
#   KEEP=1 keeps the work directory (stats, packet logs, the ends' results).
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "impairment relay check" "network namespaces and real-time priority"
scripts/bootstrap.sh python3 iproute2 util-linux
build_product netquality-impair
relay_binary=$PWD/.build/debug/netquality-impair
python=/usr/bin/python3
ends=$PWD/e2e/probes/impair_udp.py

# Unique per run, so two runs on one machine do not meet (interface names stay under 16 bytes).
tag=nqi$$
client_ns=${tag}c
relay_ns=${tag}r
echo_ns=${tag}e
work=$(mktemp -d)
pids=()
cleanup() {
  stop_process "${pids[@]}"
  for namespace in "$client_ns" "$relay_ns" "$echo_ns"; do
    ip netns del "$namespace" 2>/dev/null || true
  done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

for namespace in "$client_ns" "$relay_ns" "$echo_ns"; do
  ip netns add "$namespace"
  ip -n "$namespace" link set lo up
done
ip link add "${tag}c0" type veth peer name "${tag}r0"
ip link add "${tag}r1" type veth peer name "${tag}e0"
ip link set "${tag}c0" netns "$client_ns"
ip link set "${tag}r0" netns "$relay_ns"
ip link set "${tag}r1" netns "$relay_ns"
ip link set "${tag}e0" netns "$echo_ns"
ip -n "$client_ns" addr add 10.203.1.1/24 dev "${tag}c0"
ip -n "$relay_ns" addr add 10.203.1.2/24 dev "${tag}r0"
# nodad: usable at once, not after duplicate address detection's second or two.
ip -n "$client_ns" addr add fd00:203:1::1/64 dev "${tag}c0" nodad
ip -n "$relay_ns" addr add fd00:203:1::2/64 dev "${tag}r0" nodad
ip -n "$relay_ns" addr add 10.203.2.1/24 dev "${tag}r1"
ip -n "$echo_ns" addr add 10.203.2.2/24 dev "${tag}e0"
ip -n "$client_ns" link set "${tag}c0" up
ip -n "$relay_ns" link set "${tag}r0" up
ip -n "$relay_ns" link set "${tag}r1" up
ip -n "$echo_ns" link set "${tag}e0" up

failed=0
echo_port=47000

# start_relay PHASE LISTEN ARGS...: the relay in the middle namespace; sets relay_pid and
# relay_port once it has printed its listening line.
start_relay() {
  local phase=$1 listen=$2
  shift 2
  spawn ip netns exec "$relay_ns" chrt -f 10 "$relay_binary" --listen "$listen" \
    --target "10.203.2.2:$echo_port" --stats "$work/$phase-stats.json" \
    --log "$work/$phase-log.csv" "$@" >"$work/$phase-relay.out" 2>"$work/$phase-relay.err"
  relay_pid=$!
  pids+=("$relay_pid")
  if ! wait_until 10 "the relay's listening line" grep -q '^listening on ' "$work/$phase-relay.out"; then
    cat "$work/$phase-relay.err"
    return 1
  fi
  relay_port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/$phase-relay.out")
  echo "ok   $phase: relay $(cat "$work/$phase-relay.out")"
}

start_echo() {
  local phase=$1
  spawn ip netns exec "$echo_ns" chrt -f 5 "$python" "$ends" echo 10.203.2.2 "$echo_port" \
    "$work/$phase-echo.json" >"$work/$phase-echo.out"
  echo_pid=$!
  pids+=("$echo_pid")
  wait_until 10 "the echo's ready line" grep -q '^ready' "$work/$phase-echo.out"
}

# stop_with SIGNAL PID WHAT: the signal, then a deadline; the exit status must be 0.
stop_with() {
  local signal=$1 pid=$2 what=$3 status
  kill -s "$signal" "$pid"
  if ! wait_exit 10 "$pid"; then
    echo "FAIL $what did not exit within 10 s of SIG$signal"
    failed=$((failed + 1))
    stop_process "$pid"
    return
  fi
  wait "$pid" && status=0 || status=$?
  if [ "$status" -eq 0 ]; then
    echo "ok   $what exited 0 on SIG$signal"
  else
    echo "FAIL $what exited $status on SIG$signal"
    failed=$((failed + 1))
  fi
}

# run_phase PHASE STOP_SIGNAL CLIENT_ADDRESS COUNT: the client's packets through the relay
# started before, then both ends stopped and the results checked.
run_phase() {
  local phase=$1 signal=$2 address=$3 count=$4
  run_for 300 ip netns exec "$client_ns" chrt -f 5 "$python" "$ends" client "$address" \
    "$relay_port" "$count" 50 "$work/$phase-client.json" || failed=$((failed + 1))
  stop_with "$signal" "$relay_pid" "$phase: the relay"
  stop_with INT "$echo_pid" "$phase: the echo"
  if [ -s "$work/$phase-relay.err" ]; then
    echo "FAIL $phase: the relay wrote to stderr: $(head -3 "$work/$phase-relay.err")"
    failed=$((failed + 1))
  fi
  "$python" e2e/probes/impair_check.py "$phase" "$work/$phase-stats.json" "$work/$phase-log.csv" \
    "$work/$phase-client.json" "$work/$phase-echo.json" 2 || failed=$((failed + 1))
}

# 1. IPv4: delay, jitter and loss forward; a plain delay back.
start_echo ipv4
start_relay ipv4 10.203.1.2:0 --seed 7 --forward-delay-ms 50 --forward-jitter-ms 10 \
  --forward-loss 0.02 --backward-delay-ms 20

# 3 (while the relay holds its port). A second relay on the same port, then usage errors.
expect_failure() {
  local expected=$1 what=$2 status lines
  shift 2
  ip netns exec "$relay_ns" "$relay_binary" "$@" >"$work/error.out" 2>"$work/error.err" \
    && status=0 || status=$?
  lines=$(wc -l <"$work/error.err")
  if [ "$status" -eq "$expected" ] && [ "$lines" -eq 1 ] && [ ! -s "$work/error.out" ]; then
    echo "ok   $what: exit $status, $(cat "$work/error.err")"
  else
    echo "FAIL $what: exit $status (wanted $expected), $lines stderr lines: $(head -3 "$work/error.err")"
    failed=$((failed + 1))
  fi
}
expect_failure 1 "a port in use" --listen "10.203.1.2:$relay_port" --target 10.203.2.2:9
expect_failure 1 "an address not on this host" --listen 10.203.9.9:5000 --target 10.203.2.2:9
expect_failure 2 "an unparsable address" --listen 10.203.1:5000 --target 10.203.2.2:9
expect_failure 2 "IPv6 without brackets" --listen fd00:203:1::2:5000 --target 10.203.2.2:9
expect_failure 2 "a loss above 1" --listen 10.203.1.2:0 --target 10.203.2.2:9 --forward-loss 2
expect_failure 2 "a negative delay" --listen 10.203.1.2:0 --target 10.203.2.2:9 \
  --backward-delay-ms=-5
expect_failure 2 "no --target" --listen 10.203.1.2:0
expect_failure 1 "a stats file it cannot write" --listen 10.203.1.2:0 --target 10.203.2.2:9 \
  --stats /nonexistent/stats.json

run_phase ipv4 INT 10.203.1.2 2000

# 2. IPv6 on the client's side: duplicates and reordering forward, loss back.
echo_port=47001
start_echo ipv6
start_relay ipv6 "[fd00:203:1::2]:0" --seed 11 --forward-delay-ms 10 --forward-duplicate 0.05 \
  --forward-reorder 0.1 --forward-reorder-ms 25 --backward-delay-ms 5 --backward-loss 0.01
run_phase ipv6 TERM fd00:203:1::2 500

# 4. More clients than the table holds, and a datagram larger than a queue buffer.
echo_port=47002
start_echo clients
start_relay clients 10.203.1.2:0
run_for 60 ip netns exec "$client_ns" "$python" "$ends" many 10.203.1.2 "$relay_port" 70 \
  "$work/clients-many.json" || failed=$((failed + 1))
stop_with INT "$relay_pid" "clients: the relay"
stop_with INT "$echo_pid" "clients: the echo"
"$python" - "$work/clients-stats.json" "$work/clients-many.json" <<'CHECK' || failed=$((failed + 1))
import json, sys
stats, many = (json.load(open(path)) for path in sys.argv[1:3])
forward = stats["forward"]
seen = (stats["clients"], stats["client_limit_dropped"], forward["received"],
        forward["oversize"], forward["forwarded"], stats["backward"]["forwarded"],
        many["answered"], many["answered_first"])
ok = seen == (64, 6, 65, 1, 64, 64, 64, 64)
print(("ok   " if ok else "FAIL ") + "clients: 70 addresses, 64 relayed, 6 over the limit, one "
      "oversize (clients, client_limit_dropped, forward received, oversize, forwarded, backward "
      f"forwarded, answered, answered of the first 64: {seen})")
sys.exit(0 if ok else 1)
CHECK

if [ "$failed" -ne 0 ]; then
  echo "FAIL $failed check(s) of the impairment relay failed"
  exit 1
fi
echo "PASS the impairment relay applies what it reports"
