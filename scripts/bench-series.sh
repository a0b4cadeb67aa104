#!/usr/bin/env bash
# What one agent costs the store that keeps its series (docs/fleets.md, "Sizing"). The agent
# (release build, the history on) watches PEERS synthetic peers on loopback
# (scripts/bench/rtp-flood.c: one G.711-sized stream from each of PEERS addresses, RATE packets/s
# over all of them, LOSS % of them dropped at random in lo's egress hook, before the capture,
# so that levels, MOS, loss and alerts move as they do on real calls); one scrape of /metrics
# per tick (2 s) for MINUTES. Prints the series and bytes per scrape (scripts/bench/
# series_storage.py), then writes those scrapes, STEP seconds apart, into Debian's
# VictoriaMetrics (/api/v1/import/prometheus) and into Prometheus TSDB blocks (promtool tsdb
# create-blocks-from openmetrics) and prints the bytes on disk per sample once merged.
# Everything runs in a network namespace of its own (its loopback only). Root (raw socket,
# capture, namespace).
#
#   scripts/bench-series.sh [PEERS [MINUTES [RATE [LOSS [STEP]]]]]   default 1000 10 50000 3 15
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "netquality: error: the benchmark captures on lo in a namespace: run as root" >&2; exit 1; }
source e2e/lib.sh
peers=${1:-1000}
minutes=${2:-10}
rate=${3:-50000}
loss=${4:-3}
step=${5:-15}
scripts/bootstrap.sh gcc curl nftables iproute2 prometheus victoria-metrics python3
netquality=${NETQUALITY_BIN:-.build/release/netquality}
[ -n "${NETQUALITY_BIN:-}" ] || swift build -c release --product netquality >/dev/null
out=$(mktemp -d)
namespace=nqseries$$
dport=42000
pids=()
cleanup() {
  stop_process "${pids[@]}"
  ip netns del "$namespace" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $out"; else rm -rf "$out"; fi
}
trap cleanup EXIT
ip netns add "$namespace"
ip -n "$namespace" link set lo up
in_ns() { ip netns exec "$namespace" "$@"; }
in_ns nft add table netdev nqloss
in_ns nft add chain netdev nqloss egress '{ type filter hook egress device "lo" priority 0; }'
in_ns nft add rule netdev nqloss egress udp dport $dport numgen random mod 100 '<' "$loss" counter drop
cc -O2 -Wall -o "$out/rtp-flood" scripts/bench/rtp-flood.c

cat >"$out/agent.yaml" <<EOF
interfaces: [lo]
bpf_filter: "udp dst port $dport"
local_networks: [127.0.0.1/32]
listen: "127.0.0.1:19480"
storage_path: "$out/history.db"
EOF
spawn ip netns exec "$namespace" "$netquality" run --config "$out/agent.yaml" 2>"$out/agent.log" >/dev/null
pids+=($!)
metrics_url=http://127.0.0.1:19480/metrics
wait_until 30 "the agent to be ready" in_ns curl -sf --max-time 2 http://127.0.0.1:19480/-/ready \
  || { cat "$out/agent.log"; exit 1; }
seconds=$((minutes * 60 + 60))
spawn ip netns exec "$namespace" "$out/rtp-flood" --streams "$peers" --rate "$rate" --seconds "$seconds" \
  --dport "$dport" >"$out/flood.out"
pids+=($!)
peers_seen() { in_ns curl -s --max-time 5 "$metrics_url" | awk '$1 ~ /^netquality_peers_in_state[{]/ {n += $2} END {print n + 0}'; }
wait_until 60 "$peers peers" sh -c "[ \"\$(ip netns exec $namespace curl -s --max-time 5 $metrics_url | awk '\$1 ~ /^netquality_peers_in_state[{]/ {n += \$2} END {print n + 0}')\" -ge $peers ]"
sleep 30  # past the first minute of every peer: levels damped, alerts settled
mkdir -p "$out/scrapes"
echo "scraping every 2 s for $minutes min ($(peers_seen) peers)"
for index in $(seq -w 1 $((minutes * 30))); do
  in_ns curl -s --max-time 5 "$metrics_url" >"$out/scrapes/$index.txt"
  sleep 2
done
echo "peers at the end: $(peers_seen); capture drops: $(grep '^netquality_capture_dropped_packets_total' "$out/scrapes/$index.txt" | awk '{print $2}'); dropped by nftables: $(in_ns nft list chain netdev nqloss egress | grep -o 'packets [0-9]*')"
stop_process "${pids[@]}"
pids=()
python3 scripts/bench/series_storage.py count "$out/scrapes"

start=$(($(date +%s) - minutes * 30 * step - 60))
echo "== VictoriaMetrics: the scrapes $step s apart"
spawn ip netns exec "$namespace" victoria-metrics -storageDataPath="$out/victoria-metrics" -httpListenAddr=127.0.0.1:18429 \
  -retentionPeriod=1d -loggerLevel=WARN >"$out/victoria-metrics.log" 2>&1
pids+=($!)
wait_until 30 "VictoriaMetrics" in_ns curl -sf http://127.0.0.1:18429/health
in_ns python3 scripts/bench/series_storage.py victoria "$out/scrapes" http://127.0.0.1:18429 "$start" "$step"
in_ns python3 scripts/bench/series_storage.py victoria-size http://127.0.0.1:18429 "$out/victoria-metrics"
echo "data directory: $(du -sb "$out/victoria-metrics" | cut -f1) bytes"
stop_process "${pids[@]}"
pids=()

echo "== Prometheus TSDB blocks: the scrapes $step s apart"
python3 scripts/bench/series_storage.py openmetrics "$out/scrapes" "$start" "$step" "$out/scrapes.om"
promtool tsdb create-blocks-from openmetrics -q "$out/scrapes.om" "$out/tsdb" >/dev/null
chunks=$(du -cb "$out"/tsdb/*/chunks | tail -1 | cut -f1)
index=$(du -cb "$out"/tsdb/*/index | tail -1 | cut -f1)
samples=$(grep -vc '^#' "$out/scrapes.om")
echo "blocks: $(ls "$out/tsdb" | wc -l); chunks $chunks bytes, index $index bytes for $samples samples:" \
  "$(awk -v c="$chunks" -v s="$samples" 'BEGIN {printf "%.2f", c / s}') bytes a sample" \
  "($(awk -v c="$chunks" -v i="$index" -v s="$samples" 'BEGIN {printf "%.2f", (c + i) / s}') with the index)"
