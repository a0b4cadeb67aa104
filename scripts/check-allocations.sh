#!/usr/bin/env bash
# Checks that the per-packet path allocates nothing: analyses two generated captures with the
# same 100 streams (SRs from each), one with twice the packets of the other, under valgrind, and requires the
# same number of heap allocations for both (allocations may grow with streams, never packets).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh valgrind
swift build -c release --product netquality >/dev/null
binary=.build/release/netquality
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

allocations() {
  valgrind --tool=memcheck --leak-check=no "$binary" analyze "$1" 2>&1 >/dev/null |
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}

for packets in 60000 120000; do
  "$binary" generate -o "$dir/$packets.pcap" --streams 100 --packets "$packets" \
    --loss 2 --duplicate 1 --reorder 1 --jitter 3 --seed 3
done
small=$(allocations "$dir/60000.pcap")
large=$(allocations "$dir/120000.pcap")
echo "heap allocations: $small for 60000 packets, $large for 120000 packets (100 streams)"
if [ "$small" != "$large" ]; then
  echo "netquality: error: allocations grow with packets: $((large - small)) more for 60000 more packets" >&2
  exit 1
fi
