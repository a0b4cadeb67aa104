#!/usr/bin/env bash
# Benchmark of `netquality analyze` against tshark and a plain libpcap read loop, all three on
# the same generated capture in one run, the file in the page cache. Prints a Markdown table.
#
#   scripts/bench.sh [PACKETS] [STREAMS]     (defaults: 2000000 packets, 1000 streams)
set -euo pipefail
cd "$(dirname "$0")/.."
packets=${1:-2000000}
streams=${2:-1000}
runs=${RUNS:-9}
out=bench-out
mkdir -p "$out"

scripts/bootstrap.sh tshark gcc
# The binary `make install` puts in place: the Swift runtime linked in statically. The shared
# one (`swift build -c release`) loads 30 libraries at every start, 14 ms against 9 ms before
# the first packet (`perf stat -r 20 netquality --version`), a twentieth of this run.
make --no-print-directory install-build >/dev/null
binary=.build-install/release/netquality
cc -O2 -o "$out/raw-read-loop" scripts/bench/raw-read-loop.c -lpcap

capture="$out/bench-$packets-$streams.pcap"
if [ ! -s "$capture" ]; then
  "$binary" generate -o "$capture" --streams "$streams" --packets "$packets" \
    --loss 1 --duplicate 0.5 --reorder 0.5 --jitter 2 --seed 1
fi
cat "$capture" >/dev/null  # into the page cache

# Wall-clock seconds of a command, output discarded.
seconds() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.4f", ns / 1e9 }' 
}

frames=$("$out/raw-read-loop" "$capture" | cut -d' ' -f1)
# netquality gives libpcap's FILE a 256 KiB stdio buffer; the plain loop keeps stdio's 4 KiB.
# The same loop with netquality's buffer is timed too, so the cost of the analysis itself is
# visible apart from the faster reading.
buffer_bytes=262144
# All three are timed alternately, so a noisy neighbour on the machine slows each alike.
raw_times=()
buffered_times=()
our_times=()
for _ in $(seq "$runs"); do
  raw_times+=("$(seconds "$out/raw-read-loop" "$capture")")
  buffered_times+=("$(seconds "$out/raw-read-loop" "$capture" "$buffer_bytes")")
  our_times+=("$(seconds "$binary" analyze "$capture")")
done
middle() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
raw=$(middle "${raw_times[@]}")
buffered=$(middle "${buffered_times[@]}")
ours=$(middle "${our_times[@]}")
tshark_time=$(seconds tshark -n -r "$capture" -o rtp.heuristic_rtp:TRUE -q -z rtp,streams)

rate() { awk -v n="$frames" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "capture: $capture ($frames packets, $streams streams, $(du -m "$capture" | cut -f1) MB), median of $runs runs (tshark: 1 run)"
echo
echo "| tool | seconds | packets/s | netquality speed relative to it |"
echo "|---|---:|---:|---:|"
echo "| netquality analyze | $ours | $(rate "$ours") | 1 |"
echo "| plain libpcap read loop (C, pcap_open_offline, pcap_next_ex) | $raw | $(rate "$raw") | $(ratio "$raw" "$ours")× |"
echo "| the same loop with netquality's 256 KiB stdio buffer | $buffered | $(rate "$buffered") | $(ratio "$buffered" "$ours")× |"
echo "| tshark -z rtp,streams | $tshark_time | $(rate "$tshark_time") | $(ratio "$tshark_time" "$ours")× |"
