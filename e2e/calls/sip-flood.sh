#!/usr/bin/env bash
# Junk SIP beside real calls (issue 37): in a network namespace of its own (loopback only), the
# agent with its history captures lo while e2e/calls/sip_flood.py sends FLOOD junk INVITEs (default
# 15,000, 500 a second for 30 s) from 127.0.0.9 to a port where nothing listens, each once, and
# SIPp's built-in caller places CALLS real calls (default 60, 2 a second) from 127.0.0.2 to
# SIPp's built-in callee on 127.0.0.3, each answered and ended with BYE. Checked, after Timer B
# (32 s) ended the last junk call:
#   - every junk INVITE is accounted for, to the INVITE: tracked (then recorded, or counted as
#     not recorded) or counted as not tracked (its source over calls.max_silent_per_source);
#   - the junk recorded one by one stays within the budget (10 a source a minute), each with
#     no_response; the log sums the rest by source;
#   - every one of SIPp's calls is in the history and in /api/v1/calls, answered;
#   - no tick skipped, every tick written to the history; no capture drop.
#
#   e2e/calls/sip-flood.sh      (root; skips with a reason otherwise; KEEP=1 keeps files)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "e2e SIP flood" "a network namespace and live capture"
scripts/bootstrap.sh sip-tester iproute2 python3 curl
build_product netquality
netquality=$PWD/.build/debug/netquality
flood=${FLOOD:-15000}
flood_rate=${FLOOD_RATE:-500}
calls=${CALLS:-60}
port=19483

loopback_namespace nqsf
cat >"$work/agent.yaml" <<YAML
interfaces: [lo]
local_networks: [127.0.0.1/32, 127.0.0.3/32]
listen: "127.0.0.1:$port"
storage_path: $work/history.db
YAML
spawn ip netns exec "$namespace" "$netquality" run --config "$work/agent.yaml" \
  >"$work/agent.out" 2>"$work/agent.log"
agent=$!
pids+=("$agent")
wait_until 30 "the agent to be ready" in_ns curl -sf --max-time 2 "http://127.0.0.1:$port/-/ready" \
  || { cat "$work/agent.log"; exit 1; }

(cd "$work" && spawn ip netns exec "$namespace" sipp -sn uas -i 127.0.0.3 -p 5060 -nostdin \
  >"$work/uas.out" 2>&1)
uas=$(pgrep -n -f "sipp -sn uas -i 127.0.0.3" || true)
pids+=($uas)
wait_until 10 "the SIPp callee to listen" in_ns sh -c "ss -lun | grep -q '127.0.0.3:5060'"

echo "  $(date +%T) $flood junk INVITEs at $flood_rate/s beside $calls SIPp calls"
spawn ip netns exec "$namespace" python3 e2e/calls/sip_flood.py 127.0.0.9 127.0.0.1 "$flood" \
  "$flood_rate" >"$work/flood.out"
flooder=$!
pids+=("$flooder")
status=0
(cd "$work" && run_for 120 ip netns exec "$namespace" sipp 127.0.0.3:5060 -sn uac -i 127.0.0.2 \
  -p 5061 -r 2 -m "$calls" -d 1000 -nostdin >"$work/uac.out" 2>&1) || status=$?
check "SIPp's caller placed its $calls calls, every one answered (exit $status)" test "$status" -eq 0
wait_exit $((flood / flood_rate + 60)) "$flooder" || { echo "FAIL the flood did not end"; exit 1; }
wait "$flooder" || { echo "FAIL sip_flood.py: exit $?"; exit 1; }
sent=$(cat "$work/flood.out")

metric() {  # the sum of a family's samples on /metrics
  in_ns curl -s --max-time 5 "http://127.0.0.1:$port/metrics" \
    | awk -v name="$1" '$1 ~ "^"name"({|$)" {sum += $2} END {printf "%.0f", sum}'
}
# Timer B (32 s) after the last junk INVITE, and the end's grace: no SIP call left open.
none_open() { [ "$(metric 'netquality_calls_active{kind="sip"}')" = 0 ]; }
wait_until 60 "every SIP call to end" none_open || true
started=$(metric 'netquality_calls_started_total{kind="sip"}')
not_tracked=$(metric netquality_calls_silent_not_tracked_total)
unrecorded=$(metric netquality_calls_silent_unrecorded_total)
dropped=$(metric netquality_capture_dropped_packets_total)
skipped=$(metric netquality_ticks_skipped_total)
history_dropped=$(metric netquality_storage_queue_dropped_ticks_total)
# The log sums a minute's junk once the next minute's first tick comes: within 60 s.
summed() { grep -q "SIP calls from 127.0.0.9 ended with no response at all" "$work/agent.log"; }
wait_until 65 "the log's sum of the junk" summed || true
in_ns curl -s --max-time 5 "http://127.0.0.1:$port/api/v1/calls?limit=1000" >"$work/api-calls.json"
stop_process "$uas" "$agent"

"$netquality" calls --db "$work/history.db" --since 1h --format json >"$work/history-calls.json"
read -r recorded_junk recorded_real answered_real api_real api_junk < <(python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
history = json.load(open(f"{work}/history-calls.json"))
api = json.load(open(f"{work}/api-calls.json")).get("calls", [])
junk = [c for c in history if (c.get("call_id") or "").startswith("junk-")]
real = [c for c in history if not (c.get("call_id") or "").startswith("junk-")]
assert all(c["no_response"] for c in junk), "a junk record without no_response"
answered = [c for c in real if c.get("final_status") == 200 and not c["no_response"]]
api_real = [c for c in api if not (c.get("call_id") or "").startswith("junk-")]
api_junk = [c for c in api if (c.get("call_id") or "").startswith("junk-")]
print(len(junk), len(real), len(answered), len(api_real), len(api_junk))
PY
)
minutes=$(python3 -c "import math; print(math.ceil(($flood / $flood_rate + 33) / 60) + 1)")
summary_lines=$(grep -c "SIP calls from 127.0.0.9 ended with no response at all" "$work/agent.log" || true)

echo "  junk: $sent sent; agent: $started SIP calls started ($calls of them SIPp's), $not_tracked not tracked, $recorded_junk recorded, $unrecorded counted only"
echo "  real: $recorded_real of SIPp's $calls in the history ($answered_real answered), $api_real in /api/v1/calls (beside $api_junk junk)"
echo "  ticks skipped $skipped, capture drops $dropped, log lines summing the junk $summary_lines"
check "no capture drop (the INVITEs sent are the truth)" test "$dropped" = 0
check "every junk INVITE accounted for: tracked $((started - calls)) + not tracked $not_tracked = sent $sent" \
  test $((started - calls + not_tracked)) -eq "$sent"
check "tracked junk: recorded $recorded_junk + counted only $unrecorded = tracked $((started - calls))" \
  test $((recorded_junk + unrecorded)) -eq $((started - calls))
check "the junk recorded one by one within 10 a minute for $minutes minutes at most ($recorded_junk)" \
  test "$recorded_junk" -le $((10 * minutes))
check "the log sums the junk by source ($summary_lines lines)" test "$summary_lines" -ge 1
check "every SIPp call in the history, answered ($answered_real of $calls)" \
  test "$recorded_real $answered_real" = "$calls $calls"
check "every SIPp call in /api/v1/calls ($api_real of $calls)" test "$api_real" -eq "$calls"
check "no tick skipped ($skipped), none dropped from the history's queue ($history_dropped)" \
  test "$skipped $history_dropped" = "0 0"
((failures == 0)) || exit 1
echo "all SIP flood checks passed"
