#!/usr/bin/env bash
# Load benchmark of the live agent on loopback: STREAMS G.711 streams (one peer each, 50
# packets/s each) for SECONDS, captured on lo; then /metrics with that many peers under a
# concurrent load (wrk). Prints the figures as Markdown. Root (capture); loopback only.
#
#   scripts/bench-agent.sh [STREAMS] [SECONDS]     (defaults: 1000 streams, 20 s = 50,000 pkt/s)
set -euo pipefail
cd "$(dirname "$0")/.."
streams=${1:-1000}
seconds=${2:-20}
port=19480
out=bench-out
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] || { echo "netquality: error: the agent benchmark captures on lo: run as root" >&2; exit 1; }
scripts/bootstrap.sh wrk gcc curl
swift build -c release --product netquality >/dev/null
cc -O2 -o "$out/rtp-load" scripts/bench/rtp-load.c
netquality=.build/release/netquality

source tests/e2e/lib.sh
spawn "$netquality" run --interface lo --local 127.0.0.1/32 --listen "127.0.0.1:$port" \
  --filter "udp dst port 41000" 2>"$out/agent.log"
agent=$!
trap 'stop_process $agent' EXIT
wait_until 30 "the agent to be ready" curl -sf --max-time 2 "http://127.0.0.1:$port/-/ready" \
  || { cat "$out/agent.log"; exit 1; }

cpu() { awk '{print $14 + $15}' "/proc/$agent/stat"; }
ticks=$(getconf CLK_TCK)
before=$(cpu)
read -r sent took < <(timeout -k 5 $((seconds + 30)) "$out/rtp-load" "$streams" "$seconds" 41000)
after=$(cpu)
sleep 3  # one more tick so the last window is published
scrape=$(curl -s --max-time 10 "http://127.0.0.1:$port/metrics")
metric() { echo "$scrape" | awk -v name="$1" '$1 ~ "^"name {sum += $2} END {printf "%.0f", sum}'; }
received=$(metric 'netquality_capture_received_packets_total')
dropped=$(metric 'netquality_capture_dropped_packets_total')
peers=$(echo "$scrape" | grep -c '^netquality_peer_quality_level{.*direction="rx"}' || true)
bytes=$(echo "$scrape" | wc -c)
cpu_share=$(awk -v used=$((after - before)) -v hz="$ticks" -v s="$took" 'BEGIN { printf "%.1f", used / hz / s * 100 }')

timeout -k 5 30 wrk -t1 -c4 -d5s --latency "http://127.0.0.1:$port/metrics" >"$out/wrk.txt"
latency() { awk -v p="$1" '$1 == p {print $2}' "$out/wrk.txt"; }
requests=$(awk '/Requests\/sec/ {print $2}' "$out/wrk.txt")

echo "| figure | value |"
echo "|---|---|"
echo "| load | $sent RTP packets in $took s ($(awk -v n="$sent" -v s="$took" 'BEGIN{printf "%.0f", n/s}') packets/s) over $streams streams / peers on lo |"
echo "| agent CPU | $cpu_share % of one core |"
echo "| capture drops (pcap_stats ps_drop) | $dropped (ps_recv $received; libpcap counts each packet twice on lo) |"
echo "| peers in /metrics | $peers |"
echo "| /metrics size | $bytes bytes |"
echo "| /metrics under wrk -t1 -c4 -d5s | $requests requests/s, latency p50 $(latency 50%), p99 $(latency 99%) |"
