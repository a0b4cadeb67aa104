#!/usr/bin/env bash
# Calls at scale (issue 28, not in CI): SIPp's built-in UAC places CALLS calls at RATE a second,
# each held HOLD seconds before its BYE (RATE x HOLD open at once: 100 x 100 = 10,000), to
# SIPp's built-in UAS, between two network namespaces; signalling only (10,000 calls playing
# RTP would be 500,000 packets a second). The agent (release build) captures on the callee's
# veth. Printed: SIPp's counts against the agent's (started, ended by BYE, open at the peak),
# the agent's capture drops, its resident memory and CPU before, at the peak and at the end.
#
#   scripts/bench-calls.sh [CALLS [RATE [HOLD]]]      default 12000 100 100      (root)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "netquality: error: the benchmark makes network namespaces: run as root" >&2; exit 1; }
source e2e/lib.sh
calls=${1:-12000}
rate=${2:-100}
hold=${3:-100}
scripts/bootstrap.sh sip-tester iproute2 python3
netquality=${NETQUALITY_BIN:-.build/release/netquality}
[ -n "${NETQUALITY_BIN:-}" ] || swift build -c release --product netquality >/dev/null

tag=nqk$$
subnet=10.208.0
source e2e/netns.sh
caller_ns=$sender callee_ns=$receiver
caller=$subnet.1 callee=$subnet.2
api_port=19486
in_callee() { ip netns exec "$callee_ns" "$@"; }

cat >"$work/netquality.yaml" <<EOF
interfaces: [${tag}vb]
local_networks: [$callee/32]
listen: 127.0.0.1:$api_port
buffer_size_mb: 64
storage_path: $work/history.db
# A call ends after timers.timeout of silence (60 s by default): these carry no media, so the
# timeout is set above the hold.
timers: {interrupted: 4, disconnected: 12, timeout: $((hold * 3))}
EOF
spawn ip netns exec "$callee_ns" "$netquality" run --config "$work/netquality.yaml" \
  >"$work/agent.out" 2>"$work/agent.log"
agent=$!
pids+=("$agent")
wait_until 30 "the agent to answer /-/ready" in_callee python3 -c \
  "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$api_port/-/ready', timeout=1)" \
  || { cat "$work/agent.log"; exit 1; }

figures() {  # one line: active calls, started, ended by BYE, capture drops, RSS MB, CPU s
  in_callee python3 - "$api_port" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
def value(prefix):
    return sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith(prefix))
print(int(value('netquality_calls_active{kind="sip"}')),
      int(value('netquality_calls_started_total{kind="sip"}')),
      int(value('netquality_calls_ended_total{kind="sip",reason="bye_caller"}')),
      int(value('netquality_capture_dropped_packets_total')),
      round(value("process_resident_memory_bytes") / 1048576, 1),
      round(value("process_cpu_seconds_total"), 1))
PY
}
echo "before:  active started ended_bye dropped rss_mb cpu_s = $(figures)"

(cd "$work" && spawn ip netns exec "$callee_ns" sipp -sn uas -i $callee -p 5060 -nostdin \
  -trace_counts >"$work/uas.out" 2>&1)
uas=$(pgrep -n -f "sipp -sn uas -i $callee" || true)
pids+=($uas)
wait_until 10 "the SIPp callee to listen" in_callee sh -c "ss -lun | grep -q '$callee:5060'"
started_at=$(date +%s)
echo "$(date +%T) SIPp: $calls calls at $rate/s, each held $hold s"
(cd "$work" && spawn ip netns exec "$caller_ns" sipp $callee:5060 -sn uac -i $caller -p 5060 \
  -r "$rate" -m "$calls" -l $((rate * hold + rate * 10)) -d $((hold * 1000)) -nostdin \
  -trace_counts >"$work/uac.out" 2>&1)
uac=$(pgrep -n -f "sipp $callee:5060 -sn uac" || true)
pids+=($uac)

peak_active=0 peak_line=""
deadline=$((started_at + calls / rate + hold + 120))
while kill -0 "$uac" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
  line=$(figures) || line=""
  active=${line%% *}
  if [ -n "$line" ] && [ "$active" -gt "$peak_active" ]; then peak_active=$active peak_line=$line; fi
  sleep 5  # a sample of the figures every 5 s, not a wait for an event
done
echo "peak:    active started ended_bye dropped rss_mb cpu_s = $peak_line"
stop_process "$uac"
ended() { [ "$(figures | cut -d' ' -f1)" -eq 0 ]; }
wait_until 30 "the agent to end every call" ended || true
echo "after:   active started ended_bye dropped rss_mb cpu_s = $(figures)"
stop_process "$uas"
sipp_total() {  # the last cumulative value of the columns ending in $2 in the CSV $1
  python3 - "$1" "$2" <<'PY'
import csv, glob, sys
paths = sorted(glob.glob(sys.argv[1]))
rows = list(csv.reader(open(paths[-1]), delimiter=";")) if paths else []
print(sum(int(rows[-1][i]) for i, n in enumerate(rows[0]) if n.endswith(sys.argv[2])) if rows else "?")
PY
}
echo "SIPp callee: INVITEs $(sipp_total "$work/uas_*_counts.csv" "_INVITE_Recv"), BYEs $(sipp_total "$work/uas_*_counts.csv" "_BYE_Recv")"
echo "took $(($(date +%s) - started_at)) s"
