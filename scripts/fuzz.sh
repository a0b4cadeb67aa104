#!/usr/bin/env bash
# Builds the libFuzzer harness (Fuzz/) with AddressSanitizer and runs it for a bounded time over
# seeds made from the shared captures and a generated one. Exits non-zero on any finding.
#
#   scripts/fuzz.sh [SECONDS]     (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
source e2e/lib.sh
seconds=${1:-60}
scratch=.build-fuzz
corpus=$scratch/corpus
mkdir -p "$corpus" "$scratch/findings"

# SwiftPM hands the compiler driver one -sanitize= flag per --sanitize, in the order of a Swift
# Set (random per run), and the driver keeps only the last: each build got either coverage or
# AddressSanitizer, never both. The combined flag, passed last, gives both; the check below
# makes sure of it.
swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address \
  -Xswiftc -sanitize=fuzzer,address \
  --scratch-path "$scratch" 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3
harness=$scratch/release/NetQualityFuzz
engine_object=$scratch/release/NetQualityCore.build/StreamAnalyzer.swift.o
# Counted, not `grep -q`: an early exit would break the pipe, and pipefail would call it failure.
if [ "$(objdump -h "$engine_object" | grep -c __sancov)" -eq 0 ]; then
  echo "netquality: error: the engine was built without fuzzer coverage ($engine_object)" >&2
  exit 1
fi
if [ "$(nm "$engine_object" | grep -c __asan_)" -eq 0 ]; then
  echo "netquality: error: the engine was built without AddressSanitizer ($engine_object)" >&2
  exit 1
fi

build_product netquality
.build/debug/netquality generate -o "$scratch/seed.pcap" --streams 6 --packets 600 \
  --loss 3 --duplicate 2 --reorder 2 --jitter 5
seeds=("$scratch/seed.pcap")
if [ -d ../shared/pcaps ]; then seeds+=(../shared/pcaps/*.pcap); fi
python3 scripts/pcap-to-corpus.py "$corpus" "${seeds[@]}"
cp Fuzz/regressions/* "$corpus/"  # inputs that once crashed: they must keep passing

# The Swift runtime keeps some allocations for the life of the process: not leaks of ours.
log=$scratch/fuzz.log
status=0
ASAN_OPTIONS=detect_leaks=0 "$harness" -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$scratch/findings/" -rss_limit_mb=4096 "$corpus" >"$log" 2>&1 || status=$?
grep -E "INITED|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|ERROR|SUMMARY|^Done" "$log"
if grep -q "Is the code instrumented for coverage" "$log"; then
  echo "netquality: error: the fuzz harness sees no coverage; the optimiser removed the work" >&2
  exit 1
fi
exit "$status"
