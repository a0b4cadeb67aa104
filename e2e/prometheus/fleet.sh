#!/usr/bin/env bash
# A fleet on an existing distributed engine (docs/fleets.md, remote_write): three agents, each in
# a network namespace of its own capturing a GStreamer G.711 call there (agent1's with 25 %
# random loss on its sender's egress, so the fleet views have something to rank), Debian's
# Prometheus scraping all three (job netquality, the shipped configuration and rules, the
# instance relabelling of docs/fleets.md) and writing into Debian's VictoriaMetrics with the
# remote_write block of docs/fleets.md. Prometheus and VictoriaMetrics run in a fourth
# namespace, VictoriaMetrics on its loopback with its own data directory; the agents are scraped
# over a veth each. Checks (e2e/prometheus/fleet_check.py), every one against VictoriaMetrics'
# Prometheus API (/api/v1/query), never Prometheus':
#   * every query of every dashboard (dashboards/*.json, the fleet view included) has data for
#     each of the three agents, and for All covers the three (a table: query, agents with data);
#   * the fleet view ranks agent1's peer and agent1 worst, and its health row shows each agent
#     scraped, ticking, capturing, its history healthy;
#   * every sender cut off: the peer detail's annotations (the agent's alerts about the peer, the
#     peer not connected) have data for each agent;
#   * what VictoriaMetrics stored: series per agent, samples, bytes per sample.
# Scaled down for CI (35 to 50 s on 2 cores): one call per agent; scrapes and rule
# evaluations every 1 s (10 s shipped); remote_write batches sent within 1 s (5 s default);
# VictoriaMetrics' -search.latencyOffset 1 s (30 s default: recent samples hidden that long);
# the agents' timers interrupted 2 s, disconnected 4 s (4 and 12 s by default).
# Every wait has a deadline (lib.sh).
#
#   e2e/prometheus/fleet.sh      (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "e2e fleet" "network namespaces, nftables and live capture"
scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-ugly nftables iproute2 prometheus victoria-metrics python3 python3-yaml curl
build_product netquality
netquality=$PWD/.build/debug/netquality
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }

# Three pairs of namespaces (e2e/netns.sh): ${base}Na sends the call, ${base}Nb runs agent N
# and receives it on 10.216.N.2. A fourth, $monitor, runs Prometheus and VictoriaMetrics and
# reaches agent N at 10.217.N.2 over a veth of its own.
base=nqf$$
tag=${base}1
subnet=10.216.1
source e2e/netns.sh
netns_pair "${base}2" 10.216.2
netns_pair "${base}3" 10.216.3
monitor=${base}m
ip netns add "$monitor"
namespaces+=("$monitor")
ip -n "$monitor" link set lo up
agents=()
for n in 1 2 3; do
  ip link add "${base}m$n" type veth peer name "${base}s$n"
  ip link set "${base}m$n" netns "$monitor"
  ip link set "${base}s$n" netns "${base}${n}b"
  ip -n "$monitor" addr add "10.217.$n.1/24" dev "${base}m$n"
  ip -n "${base}${n}b" addr add "10.217.$n.2/24" dev "${base}s$n"
  ip -n "$monitor" link set "${base}m$n" up
  ip -n "${base}${n}b" link set "${base}s$n" up
  # name=instance (docs/fleets.md's relabelling: the address without the port)=peer
  agents+=("agent$n=10.217.$n.2=10.216.$n.1")
done
agent_list=$(IFS=,; echo "${agents[*]}")
victoria=http://127.0.0.1:18428
in_monitor() { ip netns exec "$monitor" "$@"; }
fleet() { in_monitor python3 e2e/prometheus/fleet_check.py "$victoria" "$agent_list" "$@"; }

echo "== VictoriaMetrics on the monitoring namespace's loopback"
spawn ip netns exec "$monitor" victoria-metrics -storageDataPath="$work/victoria-metrics" \
  -httpListenAddr=127.0.0.1:18428 -retentionPeriod=1d -search.latencyOffset=1s \
  -search.disableCache -loggerLevel=WARN >"$work/victoria-metrics.log" 2>&1
pids+=($!)
wait_until 30 "VictoriaMetrics to answer" in_monitor curl -sf "$victoria/health" \
  || { cat "$work/victoria-metrics.log"; exit 1; }

echo "== three agents, a call and a STAMP reflector each; agent1's call with 25 % loss"
ip netns exec "${base}1a" nft add rule netdev nqloss egress udp dport 5004 \
  numgen random mod 100 '<' 25 counter drop
for n in 1 2 3; do
  receiver_ns=${base}${n}b
  mkdir "$work/agent$n"
  python3 e2e/prometheus/kit_config.py agent "$work/agent$n.yaml" "${base}${n}vb" "10.216.$n.2" \
    "10.217.$n.2:9470" "10.216.$n.1" "$work/agent$n" \
    "timers={interrupted: 2, disconnected: 4, timeout: 60}"
  ip netns exec "$receiver_ns" "$netquality" check-config "$work/agent$n.yaml" >/dev/null
  spawn ip netns exec "${base}${n}a" "$netquality" reflect --listen "10.216.$n.1:862" \
    >"$work/reflect$n.log" 2>&1
  pids+=($!)
  spawn ip netns exec "$receiver_ns" "$netquality" run --config "$work/agent$n.yaml" \
    2>"$work/agent$n.log"
  pids+=($!)
  spawn_call_receiver "$work/receiver$n.log" "${base}$n" "10.216.$n"
  pids+=($!)
  spawn_call_sender "$work/sender$n.log" "${base}$n" "10.216.$n"
  pids+=($!)
done

echo "== Prometheus: the shipped configuration and rules, docs/fleets.md's relabelling and remote_write"
python3 e2e/prometheus/kit_config.py prometheus "$work/prometheus.yml" 10.217.{1,2,3}.2:9470 \
  --fleet "$victoria"
promtool check config "$work/prometheus.yml" >/dev/null
spawn ip netns exec "$monitor" prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address=127.0.0.1:19094 >"$work/prometheus.log" 2>&1
prometheus=$!
pids+=($prometheus)
# Prometheus first: stopping, it flushes what it has not written yet, for up to a minute while
# VictoriaMetrics is away (then SIGKILL), in a moment while it is there.
trap 'stop_process "$prometheus"; cleanup' EXIT

logs() {
  local n
  for n in 1 2 3; do echo "agent$n log:"; tail -5 "$work/agent$n.log"; done
  echo "prometheus log:"; tail -8 "$work/prometheus.log"
  echo "victoria-metrics log:"; tail -5 "$work/victoria-metrics.log"
}
fail_now() { logs; exit 1; }

echo "== in VictoriaMetrics ($(elapsed))"
check "each agent's peer has an rx level" \
  fleet wait 60 'count(count by (instance) (netquality_peer_quality_level{job="netquality",direction="rx"} >= 1)) == 3' \
  || fail_now
check "agent1's peer is poor or worse (its loss)" \
  fleet wait 30 'netquality_peer_quality_level{instance="10.217.1.2",direction="rx"} >= 3' || fail_now
check "the recording rules over each agent's probes are stored" \
  fleet wait 20 'count(instance_peer:netquality_probe_rtt_seconds:mean_rate5m) == 3' || fail_now
echo "     ready after $(elapsed)"
fleet dashboards || failures=$((failures + 1))
fleet ranking agent1 || failures=$((failures + 1))
fleet health agent1 || failures=$((failures + 1))

echo "== every sender cut off ($(elapsed))"
for n in 1 2 3; do
  ip netns exec "${base}${n}a" nft add rule netdev nqloss egress meta l4proto udp drop
done
cut_at=$(date +%s)
check "each agent's peer_disconnected alert is in VictoriaMetrics" \
  fleet wait 40 'count(count by (instance) (netquality_alerts_firing{alertname="peer_disconnected"})) == 3'
echo "     $(($(date +%s) - cut_at)) s after the cut"
fleet annotations || failures=$((failures + 1))
echo "     lost by nftables on agent1's call: $(ip netns exec "${base}1a" nft list chain netdev nqloss egress | grep -o 'packets [0-9]*' | head -1)"

echo "== stored ($(elapsed))"
fleet stored "$work/victoria-metrics" || failures=$((failures + 1))

if [ "$failures" -ne 0 ]; then
  logs
  exit 1
fi
echo "all fleet checks passed in $(elapsed)"
