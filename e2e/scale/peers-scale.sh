#!/usr/bin/env bash
# Many distinct peers, on time (issue 37, its CI size): a TURN or SFU host sees thousands of
# peer addresses coming and going. In a network namespace of its own, the release agent
# (`make install`'s build) captures lo while scripts/bench/rtp-flood.c runs a two-way call with
# RTCP with each of PEERS distinct source addresses at once (default 3,000), each call living
# LIFETIME seconds (default 10) before its slot starts a new one with a new address: 300 new
# peers a second, for SECONDS (default 60), 10 packets/s a call (5 each way). Meanwhile a client asks the API, the status page
# and /metrics in turn, as fast as they answer. Checks:
#   - every tick started within 200 ms of its grid time (the agent's
#     netquality_tick_lateness_seconds, read at every tick), and its dashboard frame (the
#     agent's stdout, stamped by e2e/scale/peers_scale.py as its header arrives) out within 1 s,
#     half an interval, so a tick never runs into the next; no tick skipped;
#   - the requests' p99 within 1 s, none failed;
#   - SIGTERM under the load: the agent exits within 5 s;
#   - the capture's drops and the agent's CPU and memory printed (drops are the machine's, not
#     the agent's truth: a core busy beside the flood can make the kernel drop).
#
#   e2e/scale/peers-scale.sh     (root, for the namespace and the raw socket; skips otherwise)
#   The same script is the many-peers benchmark (docs/benchmarks.md, "Many distinct peers"):
#     PEERS (at once), LIFETIME (seconds a peer lives, 0: the whole run), SECONDS_UNDER_LOAD,
#     RATE (packets/s in all, default 10 a peer), AFTER_SECONDS (how long to watch the agent
#     after the load: its peers and memory every 10 s, for the memory's return, default 0);
#     TWO_WAY (default 1: each peer a two-way call with RTCP, rtp-flood.c --two-way: the local
#     side sends back to every peer, half the packets each way, and both send a sender report
#     and CNAME every 5 s; 0: one-way RTP from the peers, no RTCP, the earlier bench);
#   NETQUALITY_BIN=path for another binary; KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "many peers at scale" "a network namespace and a raw socket"
scripts/bootstrap.sh python3 iproute2 curl gcc
agent_binary release
peers=${PEERS:-3000}
lifetime=${LIFETIME:-10}
seconds=${SECONDS_UNDER_LOAD:-60}
rate=${RATE:-$((peers * 10))}
after_seconds=${AFTER_SECONDS:-0}
two_way=${TWO_WAY:-1}

loopback_namespace nqp
cc -O2 -Wall -o "$work/rtp-flood" scripts/bench/rtp-flood.c

port=19471
dport=42000
cat >"$work/agent.yaml" <<EOF
interfaces: [lo]
bpf_filter: "udp port $dport or udp port $((dport + 1))"
local_networks: [127.0.0.1/32]
listen: "127.0.0.1:$port"
storage_path: $work/history.db
EOF
mkfifo "$work/dashboard.fifo"
spawn python3 e2e/scale/peers_scale.py frames "$work/dashboard.fifo" "$work/frames.tsv"
pids+=($!)
spawn ip netns exec "$namespace" "$netquality" run --config "$work/agent.yaml" --dashboard - \
  >"$work/dashboard.fifo" 2>"$work/agent.log"
# env and `ip netns exec` both exec: the pid is the agent's.
agent=$!
pids+=("$agent")
wait_until 30 "the agent to be ready" in_ns curl -sf --max-time 2 "http://127.0.0.1:$port/-/ready" \
  || { cat "$work/agent.log"; exit 1; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$agent/stat"; }
status_kb() { awk -v key="$1:" '$1 == key {print $2}' "/proc/$agent/status"; }
idle_kb=$(status_kb VmRSS)
cpu_before=$(cpu_ticks)
load_started=$(date +%s.%N)

spawn ip netns exec "$namespace" timeout -k 5 $((seconds + 30)) "$work/rtp-flood" --streams "$peers" --rate "$rate" \
  --seconds "$seconds" --lifetime "$lifetime" --dport "$dport" --two-way "$two_way" >"$work/flood.out"
flood=$!
pids+=("$flood")
spawn ip netns exec "$namespace" python3 e2e/scale/peers_scale.py requests "$port" "$seconds" \
  "$work/requests.tsv"
client=$!
pids+=("$client")
wait_exit $((seconds + 60)) "$flood" || { echo "FAIL the flood did not end"; exit 1; }
wait "$flood" || { echo "FAIL rtp-flood: exit $?"; exit 1; }
wait_exit 60 "$client" || { echo "FAIL the request client did not end"; exit 1; }
wait "$client" || { echo "FAIL the request client: exit $?"; exit 1; }
load_ended=$(date +%s.%N)
metrics=$(in_ns curl -s --max-time 10 "http://127.0.0.1:$port/metrics")
metric() { echo "$metrics" | awk -v name="$1" '$1 ~ "^"name"({|$)" {sum += $2} END {printf "%.0f", sum}'; }
received=$(metric netquality_capture_received_packets_total)
dropped=$(metric netquality_capture_dropped_packets_total)
cpu_after=$(cpu_ticks)
peak_kb=$(status_kb VmHWM)
rss_kb=$(status_kb VmRSS)
# Peers tracked: netquality_peers counts each at its level, once a direction.
peer_count() { awk '$1 ~ /^netquality_peers\{direction="rx"/ {sum += $2} END {printf "%.0f", sum}'; }
peers_at_end=$(echo "$metrics" | peer_count)
# After the load: the peers forgotten (timeout and grace) and the memory handed back.
for ((waited = 10; waited <= after_seconds; waited += 10)); do
  sleep 10  # a sample every 10 s (a measurement's cadence, not a synchronisation)
  peers_now=$(in_ns curl -s --max-time 10 "http://127.0.0.1:$port/metrics" | peer_count)
  echo "after the load +$waited s: peers ${peers_now:-?}, RSS $(($(status_kb VmRSS) / 1024)) MiB"
done
# The ticks are checked through the watch after the load too (the peers' timeouts and their
# forgetting happen there).
watch_ended=$(date +%s.%N)

# SIGTERM while a second flood runs: the agent stops within 5 s whatever it was doing.
spawn ip netns exec "$namespace" timeout -k 5 30 "$work/rtp-flood" --streams "$peers" --rate "$rate" --seconds 20 \
  --lifetime "$lifetime" --generation 7 --dport "$dport" --two-way "$two_way" >/dev/null
pids+=($!)
sleep 6  # a few ticks of the new wave (the load, not a synchronisation)
term_sent=$(date +%s.%N)
kill -TERM "$agent"
wait_while 30 alive "$agent" || true
term_took=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$term_sent")

read -r sent took distinct <"$work/flood.out"
echo "load: $distinct distinct peers ($peers at once, each living $lifetime s$([ "$two_way" = 1 ] && echo ", each a two-way call with RTCP")), $sent packets in $took s"
echo "capture: $dropped dropped of $((received / 2)) (lo's ps_recv counts each packet twice)"
awk -v u=$((cpu_after - cpu_before)) -v hz="$(getconf CLK_TCK)" -v s0="$load_started" -v s1="$load_ended" \
  'BEGIN {printf "agent CPU: %.1f s in %.0f s (%.0f %% of a core)\n", u / hz, s1 - s0, u / hz / (s1 - s0) * 100}'
echo "agent memory: idle $((idle_kb / 1024)) MiB, peak $((peak_kb / 1024)) MiB, at the load's end $((rss_kb / 1024)) MiB with $peers_at_end peers ($(((rss_kb - idle_kb) * 1024 / (peers_at_end > 0 ? peers_at_end : 1))) B a peer above idle)"
python3 e2e/scale/peers_scale.py check --frames "$work/frames.tsv" --requests "$work/requests.tsv" \
  --sigterm-seconds "$term_took" --from "$load_started" --to "$watch_ended"
