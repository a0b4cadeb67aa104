#!/usr/bin/env bash
# The probes' acceptance at scale (issue 26, item 3), in a network namespace of its own where
# everything is on lo (a fresh namespace's lo answers all of 127/8):
#   1. One agent probing 1,000 STAMP targets (127.1.x.y, four `netquality reflect` on 0.0.0.0
#      ports 8620-8623, a quarter each) at 20 probes/s each, 20,000 a second, for SECONDS
#      (default 60): no send missed for any reason (netquality_probe_sends_missed_total), the
#      probes sent within 8 % of targets x rate x time (two scrapes: counters published every
#      tick), every target answered, sent = answered + lost; the agent's CPU (process and the
#      probe thread, from /proc) printed. The agent captures on lo too, so the capture's filter
#      of its own 40,000 packets a second is in the figure.
#   2. A reload (POST /-/reload) that removes 100 targets and adds 100: the removed ones leave
#      /metrics, the added ones are answered, the other 900 count on from where they were, the
#      process is the same (process_start_time_seconds), no send missed; the log says so.
#   3. The round trip's histogram beside irtt on one loopback path at the same time: a second
#      agent with 10 us buckets probing 127.0.0.1:8620 at 50/s while `irtt client` sends every
#      20 ms to `irtt server` for IRTT_SECONDS (default 20); p50, p90, p99 of each printed,
#      ours (histogram_quantile's interpolation) not above irtt's by more than 50 us at p50
#      and p90 (irtt stamps in user space, so it reads higher by its wake-ups: see
#      e2e/scale/probes_scale.py and docs/probes.md).
# Priorities as in e2e/probes/probes-truth.sh: the agents and reflectors `chrt -f 5`, irtt
# `chrt -r 4` (a loaded machine wakes an ordinary process milliseconds late: the scheduler's
# error).
#
#   e2e/scale/probes-scale.sh     (root, for the namespace and chrt; skips otherwise)
#   NETQUALITY_BIN=.build/release/netquality for the release figures in docs/probes.md.
#   NETQUALITY_RELEASE=1 builds and uses the release binary of `make install` (as CI does).
#   About 2 min 30 s with the defaults. KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "probes at scale" "a network namespace and real-time priority"
scripts/bootstrap.sh python3 iproute2 util-linux irtt curl
agent_binary
checker=$PWD/e2e/scale/probes_scale.py
seconds=${SECONDS_UNDER_LOAD:-60}
irtt_seconds=${IRTT_SECONDS:-20}

started=$(date +%s)
loopback_namespace nqs

for port in 8620 8621 8622 8623; do
  # 5,000 packets/s each, all from 127.0.0.1: the per-source limit raised above that.
  spawn ip netns exec "$namespace" chrt -f 5 "$netquality" reflect --listen "0.0.0.0:$port" --rate-limit 8000 \
    --burst 16000 >"$work/reflector-$port.out" 2>"$work/reflector-$port.err"
  pids+=($!)
done
for port in 8620 8621 8622 8623; do
  wait_until 10 "reflector $port's ready line" grep -q '^reflecting on ' \
    "$work/reflector-$port.out" || { cat "$work/reflector-$port.err"; exit 1; }
done

api=http://127.0.0.1:19481
scrape() { in_ns curl -sf --max-time 10 "$api/metrics" >"$1"; }
# The agent's CPU time in clock ticks (proc(5): utime + stime), and per thread by name.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
thread_ticks() {
  python3 -c 'import glob, json, sys
ticks = {}
for path in glob.glob(f"/proc/{sys.argv[1]}/task/*/stat"):
    try:
        text = open(path).read()
    except OSError:
        continue
    name = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
print(json.dumps(ticks))' "$1"
}

# 1. A thousand targets.
python3 "$checker" config "$work/agent.yaml" 127.0.0.1:19481 0 1000
spawn ip netns exec "$namespace" chrt -f 5 "$netquality" run --config.file "$work/agent.yaml" --web.enable-lifecycle \
  2>"$work/agent.log" >/dev/null
agent=$!
pids+=("$agent")
wait_until 30 "the agent ready" in_ns curl -sf --max-time 2 "$api/-/ready" \
  || { tail -20 "$work/agent.log"; exit 1; }
# `ip netns exec`, `chrt` and `env` exec: this is the agent itself (comm: 15 bytes of its name).
[ "$(cat "/proc/$agent/comm")" = "$(basename "$netquality" | cut -c1-15)" ] \
  || { echo "FAIL pid $agent is $(cat "/proc/$agent/comm"), not the agent"; exit 1; }
all_answered() {
  scrape "$work/warm.txt" && python3 -c 'import re, sys
peers = set(re.findall(r"^netquality_probe_received_total\{peer=\"([^\"]+)\"\} [1-9]", open(sys.argv[1]).read(), re.M))
sys.exit(0 if len(peers) >= int(sys.argv[2]) else 1)' "$work/warm.txt" 1000
}
wait_until 30 "all 1,000 targets answered" all_answered || { tail -20 "$work/agent.log"; exit 1; }
echo "ok   1,000 targets answered $(($(date +%s) - started)) s after the start"

scrape "$work/scale-before.txt"
cpu_before=$(cpu_ticks "$agent")
threads_before=$(thread_ticks "$agent")
load_started=$(date +%s.%N)
sleep "$seconds"  # the load's duration: the experiment, not a wait for an event
scrape "$work/scale-after.txt"
cpu_after=$(cpu_ticks "$agent")
threads_after=$(thread_ticks "$agent")
elapsed=$(python3 -c "import sys, time; print(time.time() - float(sys.argv[1]))" "$load_started")
failed=0
python3 "$checker" scale "$work/scale-before.txt" "$work/scale-after.txt" "$elapsed" \
  "$cpu_before" "$cpu_after" "$threads_before" "$threads_after" || failed=$((failed + 1))

# 2. The reload: targets 100..1099.
python3 "$checker" config "$work/agent.yaml" 127.0.0.1:19481 100 1100
scrape "$work/reload-before.txt"
status=$(in_ns curl -s -o "$work/reload.out" -w '%{http_code}' --max-time 10 -X POST \
  "$api/-/reload")
[ "$status" = 200 ] || { echo "FAIL POST /-/reload: $status $(cat "$work/reload.out")"; failed=$((failed + 1)); }
reload_applied() {
  scrape "$work/reload-after.txt" && python3 -c 'import re, sys
text = open(sys.argv[1]).read()
peers = set(re.findall(r"^netquality_probe_received_total\{peer=\"([^\"]+)\"\} [1-9]", text, re.M))
added = {f"127.1.{i // 250}.{1 + i % 250}" for i in range(1000, 1100)}
removed = {f"127.1.{i // 250}.{1 + i % 250}" for i in range(100)}
sent = set(re.findall(r"^netquality_probe_sent_total\{peer=\"([^\"]+)\"\}", text, re.M))
sys.exit(0 if added <= peers and not removed & sent else 1)' "$work/reload-after.txt"
}
wait_until 20 "the reload's targets probed and the removed ones gone" reload_applied || true
python3 "$checker" reload "$work/reload-before.txt" "$work/reload-after.txt" "$work/agent.log" \
  || failed=$((failed + 1))
# A one-off measurement beside the 1,000 (docs/probes.md has the scrape configuration): five
# probes, each answered by the reflector on its port.
in_ns curl -s --max-time 10 "$api/probe?target=127.2.0.1:8621&count=5&interval=10ms" \
  >"$work/oneshot.txt" || true
check "GET /probe?target=127.2.0.1:8621&count=5: probe_success 1, 5 sent, 5 answered" \
  grep -qx 'probe_success 1' "$work/oneshot.txt"
check "  (the counts)" bash -c "grep -qx 'netquality_oneshot_probes_sent{target=\"127.2.0.1:8621\"} 5' '$work/oneshot.txt' \
  && grep -qx 'netquality_oneshot_probes_received{target=\"127.2.0.1:8621\"} 5' '$work/oneshot.txt'"
failed=$((failed + failures))
stop_process "$agent"

# 3. Beside irtt on one path.
spawn ip netns exec "$namespace" chrt -r 4 irtt server -b 127.0.0.1:2112 -i 0 >"$work/irtt-server.out" 2>&1
pids+=($!)
python3 "$checker" config "$work/agent-irtt.yaml" 127.0.0.1:19482 0 0 --buckets
spawn ip netns exec "$namespace" chrt -f 5 "$netquality" run --config.file "$work/agent-irtt.yaml" \
  2>"$work/agent-irtt.log" >/dev/null
agent=$!
pids+=("$agent")
api=http://127.0.0.1:19482
one_answered() {
  scrape "$work/irtt-warm.txt" && grep -q '^netquality_probe_received_total{peer="127.0.0.1"} [1-9]' \
    "$work/irtt-warm.txt"
}
wait_until 30 "the second agent's target answered" one_answered \
  || { tail -20 "$work/agent-irtt.log"; exit 1; }
wait_until 10 "irtt server listening" in_ns bash -c 'ss -lun | grep -q 127.0.0.1:2112'
scrape "$work/irtt-before.txt"
if ! run_for $((irtt_seconds + 30)) ip netns exec "$namespace" chrt -r 4 irtt client --thread -i 20ms \
  -d "${irtt_seconds}s" -Q -o "$work/irtt.json" 127.0.0.1:2112 >"$work/irtt.out" 2>&1; then
  echo "FAIL irtt client: $(head -3 "$work/irtt.out")"
  failed=$((failed + 1))
fi
sleep 2.5  # a tick publishes the last answers
scrape "$work/irtt-after.txt"
python3 "$checker" irtt "$work/irtt-before.txt" "$work/irtt-after.txt" "$work/irtt.json" \
  || failed=$((failed + 1))

echo "     $(($(date +%s) - started)) s in all"
if [ "$failed" -ne 0 ]; then
  echo "agent log:"
  tail -20 "$work/agent.log"
  echo "FAIL $failed part(s) of the probes at scale failed"
  exit 1
fi
echo "PASS 1,000 targets at 20/s without a missed send, a reload of 100 live, the histogram beside irtt"
