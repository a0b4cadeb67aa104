#!/usr/bin/env bash
# Checks that the per-packet path allocates nothing: analyses two generated captures with the
# same 100 streams (SRs from each), one with twice the packets of the other, counting heap
# allocations with an LD_PRELOAD counter (scripts/bench/malloc-count.c) from the moment the
# capture is opened to the exit, and requires the same count for both: allocations may grow with
# streams, never with packets. Start-up before the open is left out: its thread pool starts in a
# racing order and is not part of the per-packet path.
# The counted program is `netquality-engine-bench --feed`: the same reading, per-packet path and
# report as `netquality analyze`, in a release build: the one `make install` makes (in
# .build-install, the Swift runtime linked in; its allocations still go through libc's malloc,
# which the counter interposes), so that after it only the benchmark's own module is compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh gcc
source e2e/lib.sh
build_product netquality
make --no-print-directory install-build PRODUCT=netquality-engine-bench >/dev/null
generator=.build/debug/netquality
binary=.build-install/release/netquality-engine-bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -shared -fPIC -o "$dir/malloc-count.so" scripts/bench/malloc-count.c -ldl

allocations() {
  MALLOC_COUNT_FROM_OPEN="$1" LD_PRELOAD="$dir/malloc-count.so" "$binary" --feed "$1" 2>&1 >/dev/null |
    sed -n 's/^heap allocations: \([0-9]*\)$/\1/p' | tail -1
}

for packets in 60000 120000; do
  "$generator" generate -o "$dir/$packets.pcap" --streams 100 --packets "$packets" \
    --loss 2 --duplicate 1 --reorder 1 --jitter 3 --seed 3
done
small=$(allocations "$dir/60000.pcap")
large=$(allocations "$dir/120000.pcap")
if [ -z "$small" ] || [ -z "$large" ]; then
  echo "netquality: error: the allocation counter reported nothing" >&2
  exit 1
fi
echo "heap allocations: $small for 60000 packets, $large for 120000 packets (100 streams)"
if [ "$small" != "$large" ]; then
  echo "netquality: error: allocations grow with packets: $((large - small)) more for 60000 more packets" >&2
  exit 1
fi

# The probe path: `netquality probe` against `netquality reflect` on loopback for 5 s, 500
# probes at 100/s and 1,000 at 200/s (the reflector's per-source rate): the same 2 s windows
# (about 70 allocations each; a window's boundary may fall either side of the end), twice the
# probes. One allocation per probe would add 500.
reflect_out="$dir/reflect.out"
: >"$reflect_out" # there before the first look (the background job's redirection may come later)
.build/debug/netquality reflect --listen 127.0.0.1:0 >"$reflect_out" 2>&1 &
reflector=$!
trap 'kill -TERM "$reflector" 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  grep -q '^reflecting on' "$reflect_out" && break
  sleep 0.1
done
port=$(sed -n 's/^reflecting on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$reflect_out")
if [ -z "$port" ]; then
  echo "netquality: error: the reflector did not start: $(cat "$reflect_out")" >&2
  exit 1
fi
probe_allocations() {
  LD_PRELOAD="$dir/malloc-count.so" timeout 60 .build/debug/netquality probe "127.0.0.1:$port" \
    --count "$1" --interval "$2" --quiet 2>&1 >/dev/null |
    sed -n 's/^heap allocations: \([0-9]*\)$/\1/p' | tail -1
}
few=$(probe_allocations 500 10ms)
many=$(probe_allocations 1000 5ms)
kill -INT "$reflector"
wait "$reflector" || true
echo "heap allocations: $few for 500 probes, $many for 1000 probes (5 s each)"
if [ -z "$few" ] || [ -z "$many" ] || [ $((many - few)) -ge 250 ]; then
  echo "netquality: error: allocations grow with probes: $((many - few)) more for 500 more probes" >&2
  exit 1
fi
