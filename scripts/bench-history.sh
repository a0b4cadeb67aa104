#!/usr/bin/env bash
# Benchmark of the SQLite history as the agent's recorder uses it: PEERS simulated peers at a
# tick every 2 s for DAYS of simulated time, each tick written in one transaction and followed
# by maintenance (rollup into minutes, retention), then a 24 h report and 20 minutes of one
# peer. Prints the figures and a final JSON line. See Sources/netquality-history-bench.
#
#   scripts/bench-history.sh [--peers N] [--days D] [--dir DIRECTORY]
#                            (defaults: 1000 peers, 7 days, bench-out/history)
#
# A week of 1,000 peers writes about 300 million peer rows; the file peaks at about 15 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
arguments=("$@")
directory=bench-out/history
for ((i = 0; i < ${#arguments[@]}; i++)); do
  [ "${arguments[$i]}" = "--dir" ] && directory=${arguments[$((i + 1))]:-$directory}
done
[[ " ${arguments[*]} " == *" --dir "* ]] || arguments+=(--dir "$directory")

swift build -c release --product netquality-history-bench >/dev/null
.build/release/netquality-history-bench "${arguments[@]}"
