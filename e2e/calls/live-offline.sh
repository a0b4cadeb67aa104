#!/usr/bin/env bash
# Live equals offline (issue 38): the agent's ticks and calls, live, are the ones `netquality
# analyze` gives for a capture of the same packets. A SIP call from A to B
# (e2e/calls/relay_call.py's two ends, G.711 both ways with receiver reports) over a veth pair, A's RTP dropped at random on
# A's egress (nftables); in B's namespace the agent captures B's veth live and tcpdump records
# it. The agent's history and `analyze --timeline --db` of tcpdump's file must hold the same
# peer ticks (state, levels, MOS, loss, jitter, packets, lost, for every tick the file has),
# the same events up to the file's last tick, and the same call records, id included: the live
# windows are cut at the packets' timestamps, as a replay's are, wherever the ticker's reads
# fell.
#
#   e2e/calls/live-offline.sh   (root; skips with a reason otherwise; KEEP=1 keeps the files)
#   NETQUALITY=path uses that binary instead of building; SECONDS_OF_MEDIA (default 20).
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e live equals offline" "network namespaces, nftables and live capture"
scripts/bootstrap.sh tcpdump nftables iproute2 python3
if [ -n "${NETQUALITY:-}" ]; then
  netquality=$NETQUALITY
else
  build_product netquality
  netquality=$PWD/.build/debug/netquality
fi

tag=nqlo$$
addr_a=10.208.0.2 addr_b=10.208.0.3
ns_a=${tag}a ns_b=${tag}b
port=19489
media_seconds=${SECONDS_OF_MEDIA:-20}
work=$(mktemp -d)
pids=()

cleanup() {
  stop_process "${pids[@]}"
  for ns in "$ns_a" "$ns_b"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

for ns in "$ns_a" "$ns_b"; do
  ip netns add "$ns"
  in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$ns" link set lo up
done
ip link add "${tag}a0" type veth peer name "${tag}b0"
ip link set "${tag}a0" netns "$ns_a"
ip link set "${tag}b0" netns "$ns_b"
ip -n "$ns_a" addr add "$addr_a/24" dev "${tag}a0"
ip -n "$ns_b" addr add "$addr_b/24" dev "${tag}b0"
ip -n "$ns_a" link set "${tag}a0" up
ip -n "$ns_b" link set "${tag}b0" up
wait_until 15 "A to reach B" in_ns "$ns_a" ping -c1 -W1 "$addr_b"

# A's RTP to B (media port 20000 both ends) loses 4 % at random on A's egress: windows with and
# without loss, the same in both captures (dropped before either saw them).
printf '%s\n' "add table netdev nqloss" \
  "add chain netdev nqloss egress { type filter hook egress device \"${tag}a0\" priority 0; }" \
  "add rule netdev nqloss egress ip daddr $addr_b udp dport 20000 numgen random mod 100 < 4 drop" \
  | in_ns "$ns_a" nft -f -

cat >"$work/agent.yaml" <<YAML
interfaces: [${tag}b0]
bpf_filter: udp
local_networks: [$addr_b/32]
listen: 127.0.0.1:$port
storage_path: $work/live.db
YAML
spawn ip netns exec "$ns_b" tcpdump -i "${tag}b0" --immediate-mode -U \
  --time-stamp-precision=nano -w "$work/b.pcap" udp 2>"$work/tcpdump.log"
pids+=($!)
tcpdump_pid=$!
spawn ip netns exec "$ns_b" "$netquality" run --config "$work/agent.yaml" 2>"$work/agent.log"
pids+=($!)
agent_pid=$!
wait_until 30 "the agent to answer /-/ready" in_ns "$ns_b" python3 -c \
  "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/-/ready', timeout=1)" \
  || { cat "$work/agent.log"; exit 1; }
wait_until 10 "tcpdump to listen" grep -q "listening on" "$work/tcpdump.log"

spawn ip netns exec "$ns_b" python3 e2e/calls/relay_call.py callee "$addr_b" "$addr_a" \
  "$media_seconds" "$work/b.json" >"$work/b.log" 2>&1
callee_pid=$!
pids+=("$callee_pid")
wait_until 10 "B to listen for SIP" in_ns "$ns_b" sh -c "ss -lun | grep -q '$addr_b:5060'"
spawn ip netns exec "$ns_a" python3 e2e/calls/relay_call.py caller "$addr_a" "$addr_b" \
  "$media_seconds" "$work/a.json" >"$work/a.log" 2>&1
caller_pid=$!
pids+=("$caller_pid")
limit=$((media_seconds + 30))
for pid in "$caller_pid" "$callee_pid"; do
  if ! wait_exit "$limit" "$pid"; then
    echo "FAIL the call did not end within $limit s"; cat "$work/a.log" "$work/b.log"; exit 1
  fi
  wait "$pid" || { echo "FAIL a call end failed"; cat "$work/a.log" "$work/b.log"; exit 1; }
done
# The BYE's tick, and one more, live: the call is recorded in the tick it ends.
sleep_ticks() {
  local until=$(( $(date +%s) + 5 ))
  wait_until 10 "two ticks after the BYE" sh -c "[ \$(date +%s) -ge $until ]"
}
sleep_ticks
skipped=$(in_ns "$ns_b" python3 -c "
import urllib.request
text = urllib.request.urlopen('http://127.0.0.1:$port/metrics', timeout=5).read().decode()
print(sum(float(l.split()[-1]) for l in text.splitlines()
          if l.startswith(('netquality_ticks_skipped_total', 'netquality_capture_dropped_packets_total'))))")
stop_process "$agent_pid"
stop_process "$tcpdump_pid"

"$netquality" analyze "$work/b.pcap" --timeline --db "$work/offline.db" --local "$addr_b/32" \
  >"$work/analyze.txt"
python3 - "$work/live.db" "$work/offline.db" "$skipped" <<'PY'
import sqlite3, sys
live = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=10)
offline = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True, timeout=10)
skipped_or_dropped = float(sys.argv[3])
peer_rows = """SELECT t.time, p.name, t.state, t.tx_level, t.rx_level, t.tx_mos, t.rx_mos,
  t.tx_loss_ratio, t.rx_loss_ratio, t.tx_jitter_ms, t.rx_jitter_ms, t.rtt_ms, t.rx_packets,
  t.rx_lost, t.tx_packets, t.rx_bitrate_bps, t.streams
  FROM peer_ticks t JOIN peers p ON p.id = t.peer_id ORDER BY t.time, p.name"""
off_rows = offline.execute(peer_rows).fetchall()
times = sorted({row[0] for row in off_rows})
live_rows = [row for row in live.execute(peer_rows).fetchall() if row[0] in set(times)]
events = """SELECT e.time, e.kind, p.name FROM events e JOIN peers p ON p.id = e.peer_id
  WHERE e.time <= ? ORDER BY e.time, e.kind, p.name"""
calls = """SELECT id, kind, call_id, start, answer, end, end_reason, final_status, rx_packets,
  rx_lost, tx_packets, tx_lost, worst_level, min_mos FROM calls ORDER BY id"""
off_events = offline.execute(events, (times[-1],)).fetchall() if times else []
live_events = live.execute(events, (times[-1],)).fetchall() if times else []
off_calls, live_calls = offline.execute(calls).fetchall(), live.execute(calls).fetchall()
packets = sum(row[12] for row in off_rows)
lost = sum(row[13] for row in off_rows)
print(f"     {len(times)} ticks in the file, {len(off_rows)} peer ticks ({packets} rx packets, "
      f"{lost} lost); live {len(live_rows)} of them; events {len(off_events)} / "
      f"{len(live_events)}; calls {len(off_calls)} / {len(live_calls)}")
for row in off_calls:
    print(f"     call {row[0]}: answer {row[4]}, end {row[5]} ({row[6]}), rx {row[8]} lost {row[9]}")
first_difference = next(
    (f"offline {o}\n     live    {l}" for o, l in zip(off_rows, live_rows) if o != l), None)
checks = [
    (skipped_or_dropped == 0, "no tick skipped and no packet dropped by the live capture"),
    (len(times) >= media_seconds_ticks if (media_seconds_ticks := 8) else True,
     f"the file spans the call ({len(times)} ticks)"),
    (lost > 0, "A's random drops are in the figures"),
    (len(live_rows) == len(off_rows), "every peer tick of the file is in the live history"),
    (live_rows == off_rows, "the same peer ticks live and offline"
     + (f"; the first that differs:\n     {first_difference}" if first_difference else "")),
    (live_events == off_events, f"the same events up to the file's last tick"),
    (len(off_calls) >= 1 and live_calls == off_calls, "the same call records, ids included"),
]
for ok, what in checks:
    print(("ok   " if ok else "FAIL ") + what)
sys.exit(0 if all(ok for ok, _ in checks) else 1)
PY
echo "PASS live equals offline: the same ticks, events and calls from the agent and from analyze"
