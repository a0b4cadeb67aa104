#!/usr/bin/env bash
# Load benchmark of the live agent (release build) on loopback: RTP streams from as many
# loopback addresses (scripts/bench/rtp-flood.c: sendmmsg on a raw socket), captured on lo.
# Prints Markdown: per scenario the load reached, capture drops (pcap_stats), the agent's CPU,
# resident memory (peak and at the end, and per stream over the idle agent), each tick phase's
# longest duration, and /metrics under load (median of 20 scrapes, plain and gzip, sizes,
# promtool). Root (raw socket, capture); loopback addresses only (127.0.0.1, 127.16.0.0/12).
#
#   scripts/bench-agent.sh [STREAMS:PACKETS_PER_SECOND:SECONDS[:STREAMS_PER_PEER] ...]
#       default: 1000:50000:30 10000:100000:60 100000:50000:60 100000:50000:60:4
#       (one stream per peer, as many peers as streams; the last one with 4 streams a peer,
#       25,000 peers, like an SFU's participants with audio and video each way)
#   scripts/bench-agent.sh churn [WAVE_SECONDS] [WAVES]
#       calls come and go: 5,000 streams at once, each living 10 s (500 new streams/s), 5,000
#       packets/s, for WAVE_SECONDS (default 600: 300,000 streams), then silence until every
#       one is forgotten (timeout 20 s + grace 10 s), WAVES times (default 2); resident
#       memory and netquality_streams before, during and after each wave.
#   scripts/bench-agent.sh dashboard [SECONDS] [MAX_SIZE_MB]
#       10,000 streams from 10,000 peers at 5 packets/s each for SECONDS (default 3600) with
#       the text dashboard written to a file rotated at MAX_SIZE_MB (default 10, the default
#       setting): the live file's largest size (sampled every 10 s), the rotated files, and
#       whether any file ever passed the limit.
#
# BENCH_OUT: the directory for the loader, configuration and logs (default bench-out).
# The benchmark floods lo: run it alone, or in a network namespace of its own so another
# user of lo (a test suite capturing udp on it) is not disturbed:
#   ip netns add nq-bench && ip -n nq-bench link set lo up
#   ip netns exec nq-bench scripts/bench-agent.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "netquality: error: the agent benchmark captures on lo: run as root" >&2; exit 1; }
scripts/bootstrap.sh gcc curl
# NETQUALITY_BIN: a release binary to run instead of building one (a copy, so a build during
# a long run cannot replace the running agent's file).
netquality=${NETQUALITY_BIN:-.build/release/netquality}
[ -n "${NETQUALITY_BIN:-}" ] || swift build -c release --product netquality >/dev/null
out=${BENCH_OUT:-bench-out}
mkdir -p "$out"
cc -O2 -Wall -o "$out/rtp-flood" scripts/bench/rtp-flood.c
port=19480
dport=42000
source e2e/lib.sh

start_agent() {  # CONFIG_EXTRA
  cat >"$out/agent.yaml" <<EOF
interfaces: [lo]
bpf_filter: "udp dst port $dport"
local_networks: [127.0.0.1/32]
listen: "127.0.0.1:$port"
storage: {enabled: false}
$1
EOF
  spawn "$netquality" run --config "$out/agent.yaml" 2>"$out/agent.log" >/dev/null
  agent=$!
  wait_until 30 "the agent to be ready" curl -sf --max-time 2 "http://127.0.0.1:$port/-/ready" \
    || { cat "$out/agent.log"; exit 1; }
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$agent/stat"; }
status_kb() { awk -v key="$1:" '$1 == key {print $2}' "/proc/$agent/status"; }
scrape() { curl -s --max-time 20 "http://127.0.0.1:$port/metrics"; }
metric() { awk -v name="$1" '$1 ~ "^"name"({|$)" {sum += $2} END {printf "%.0f", sum}'; }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# Twenty scrapes in a row (plain, then gzip): median seconds and the size of the last.
scrapes() {  # EXTRA_CURL_ARGS...
  local times=() size
  for _ in $(seq 20); do
    read -r seconds size < <(curl -s -o /dev/null -w '%{time_total} %{size_download}\n' --max-time 20 "$@" \
      "http://127.0.0.1:$port/metrics")
    times+=("$seconds")
  done
  printf '%s\n' "${times[@]}" | median | tr '\n' ' '
  echo "$size"
}

# The larger of $1 and the last tick's PHASE duration in $metrics.
longest() {  # SO_FAR PHASE
  echo "$metrics" | awk -v m="$1" -v phase="$2" \
    '$1 == "netquality_tick_duration_seconds{phase=\"" phase "\"}" && $2 > m {m = $2} END {print m}'
}

run_scenario() {  # STREAMS RATE SECONDS STREAMS_PER_PEER
  local streams=$1 rate=$2 seconds=$3 per_peer=$4
  start_agent ""
  trap 'stop_process $agent' EXIT
  local idle_kb idle_anon_kb before after ticks flood_pid harvest=0 score=0 publish=0 metrics
  idle_kb=$(status_kb VmRSS)
  idle_anon_kb=$(status_kb RssAnon)
  ticks=$(getconf CLK_TCK)
  before=$(cpu_ticks)
  timeout -k 5 $((seconds + 30)) "$out/rtp-flood" --streams "$streams" --rate "$rate" \
    --seconds "$seconds" --per-peer "$per_peer" --dport "$dport" >"$out/flood.out" &
  flood_pid=$!
  # Halfway through: scrapes under load, and promtool on one of them.
  sleep $((seconds / 2))
  read -r plain_median plain_size < <(scrapes)
  read -r gzip_median gzip_size < <(scrapes --compressed)
  scrape >"$out/scrape.txt"
  local promtool_result="promtool not installed"
  if command -v promtool >/dev/null; then
    promtool_result=$(promtool check metrics <"$out/scrape.txt" 2>&1 && echo clean || true)
  fi
  # The longest tick phases seen from then on, sampled every tick.
  while kill -0 "$flood_pid" 2>/dev/null; do
    metrics=$(scrape)
    harvest=$(longest "$harvest" harvest)
    score=$(longest "$score" score)
    publish=$(longest "$publish" publish)
    sleep 2
  done
  wait "$flood_pid"
  after=$(cpu_ticks)
  read -r sent took distinct <"$out/flood.out"
  sleep 3  # the last window published
  metrics=$(scrape)
  local received dropped tracked hwm rss anon
  received=$(echo "$metrics" | metric netquality_capture_received_packets_total)
  dropped=$(echo "$metrics" | metric netquality_capture_dropped_packets_total)
  tracked=$(echo "$metrics" | metric netquality_streams)
  hwm=$(status_kb VmHWM)
  rss=$(status_kb VmRSS)
  anon=$(status_kb RssAnon)
  stop_process "$agent"
  trap - EXIT
  echo "| $streams streams from $((streams / per_peer)) peers, $(awk -v n="$sent" -v s="$took" 'BEGIN {printf "%.0f", n / s}') packets/s for $took s ($sent sent) | $dropped of $((received / 2)) | $(awk -v u=$((after - before)) -v hz="$ticks" -v s="$took" 'BEGIN {printf "%.0f %%", u / hz / s * 100}') | $((hwm / 1024)) / $((rss / 1024)) MiB (peak $((hwm * 1024 / 1000000)) MB; idle $((idle_kb / 1024))); heap $((anon / 1024)) MiB, $(( (anon - idle_anon_kb) * 1024 / streams )) B per stream | $(awk -v h="$harvest" -v s="$score" -v p="$publish" 'BEGIN {printf "%.1f / %.0f / %.0f ms", h * 1000, s * 1000, p * 1000}') | $(awk -v t="$plain_median" 'BEGIN {printf "%.1f ms", t * 1000}'), $plain_size B; gzip $(awk -v t="$gzip_median" 'BEGIN {printf "%.1f ms", t * 1000}'), $gzip_size B | $promtool_result | $tracked |"
}

churn() {  # WAVE_SECONDS WAVES
  local wave_seconds=$1 waves=$2
  start_agent $'timers: {interrupted: 4, disconnected: 12, timeout: 20}\nmetrics: {peer_grace_seconds: 10}'
  trap 'stop_process $agent' EXIT
  local start_kb
  start_kb=$(status_kb VmRSS)
  # Resident memory split as the kernel counts it: anonymous (the heap, stacks: what the agent
  # allocates) and file-backed (its code and libraries, paged in as code runs for the first
  # time, and the capture ring).
  echo "| moment | resident | anonymous (heap) | file-backed (code, capture ring) | netquality_streams | stream slots | capture drops |"
  echo "|---|---|---|---|---|---|---|"
  report() {
    local metrics
    metrics=$(scrape)
    echo "| $1 | $(( $(status_kb VmRSS) / 1024 )) MiB | $(( $(status_kb RssAnon) / 1024 )) MiB | $(( $(status_kb RssFile) / 1024 )) MiB | $(echo "$metrics" | metric 'netquality_streams') | $(echo "$metrics" | metric netquality_stream_slots) | $(echo "$metrics" | metric netquality_capture_dropped_packets_total) |"
  }
  report "start"
  for wave in $(seq "$waves"); do
    timeout -k 5 $((wave_seconds + 30)) "$out/rtp-flood" --streams 5000 --rate 5000 --lifetime 10 \
      --seconds "$wave_seconds" --generation $(( (wave - 1) * 1000 )) --dport "$dport" >"$out/flood.out" &
    local flood_pid=$!
    sleep $((wave_seconds / 2))
    report "wave $wave, halfway"
    wait "$flood_pid"
    read -r sent took distinct <"$out/flood.out"
    report "wave $wave, end ($distinct streams, $sent packets in $took s)"
    # Silent: every stream is timed out (20 s) and forgotten (10 s later) at a tick.
    wait_until 90 "every stream to be forgotten" \
      sh -c "curl -s http://127.0.0.1:$port/metrics | grep -qx 'netquality_streams 0'"
    sleep 4
    report "wave $wave, all forgotten"
  done
  echo
  echo "Resident memory at the start: $((start_kb / 1024)) MiB; the log has $(wc -l <"$out/agent.log") lines."
  stop_process "$agent"
  trap - EXIT
}

dashboard() {  # SECONDS MAX_SIZE_MB
  local seconds=$1 limit_mb=$2 file
  file="$(realpath "$out")/dashboard.txt"
  rm -f "$file" "$file".*
  start_agent "dashboard_file: $file"$'\n'"dashboard: {max_size_mb: $limit_mb, keep: 3}"
  trap 'stop_process $agent' EXIT
  timeout -k 5 $((seconds + 30)) "$out/rtp-flood" --streams 10000 --rate 50000 \
    --seconds "$seconds" --dport "$dport" >"$out/flood.out" &
  local flood_pid=$! largest=0 size over=0 limit=$((limit_mb * 1048576)) peers=0
  while kill -0 "$flood_pid" 2>/dev/null; do
    for f in "$file" "$file".*; do
      [ -e "$f" ] || continue
      size=$(stat -c %s "$f")
      [ "$size" -le "$largest" ] || largest=$size
      [ "$size" -le "$limit" ] || over=$((over + 1))
    done
    sleep 10
  done
  wait "$flood_pid"
  read -r sent took distinct <"$out/flood.out"
  peers=$(scrape | metric 'netquality_peers_in_state')
  local metrics
  metrics=$(scrape)
  echo "10,000 streams ($distinct distinct, $sent packets in $took s), $peers peers at the end; limit $limit bytes:"
  echo
  echo "| file | bytes |"
  echo "|---|---|"
  for f in "$file" "$file".*; do
    [ -e "$f" ] && echo "| $(basename "$f") | $(stat -c %s "$f") |"
  done
  echo
  echo "Largest size seen: $largest bytes; samples over the limit: $over; rotations: $(echo "$metrics" | metric netquality_dashboard_rotations_total); failed writes: $(echo "$metrics" | metric netquality_dashboard_failed_writes_total); capture drops: $(echo "$metrics" | metric netquality_capture_dropped_packets_total)."
  stop_process "$agent"
  trap - EXIT
  [ "$over" -eq 0 ]
}

if [ "${1:-}" = dashboard ]; then
  dashboard "${2:-3600}" "${3:-10}"
  exit
fi
if [ "${1:-}" = churn ]; then
  churn "${2:-600}" "${3:-2}"
  exit 0
fi
echo "| load | capture drops (of packets captured) | agent CPU (one core) | resident peak / end (idle: code and the 16 MiB capture ring); heap at the end, per stream | tick harvest / score / publish (longest) | /metrics median of 20 under load | promtool | netquality_streams |"
echo "|---|---|---|---|---|---|---|---|"
for scenario in "${@:-1000:50000:30 10000:100000:60 100000:50000:60 100000:50000:60:4}"; do
  for one in $scenario; do
    IFS=: read -r streams rate seconds per_peer <<<"$one"
    run_scenario "$streams" "$rate" "$seconds" "${per_peer:-1}"
  done
done
