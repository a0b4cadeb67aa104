#!/usr/bin/env bash
# The operators' kit against the real thing. First promtool: `check rules`, `test rules` (every
# alert firing, quiet and resolving on synthetic series) and `check config` of
# config/prometheus.yml. Then, in two network namespaces: a GStreamer G.711 call with RTCP
# both ways, `netquality reflect` beside the sender, and the agent on the receiver's veth with
# a STAMP probe to that reflector, its own reflector, the history and a dashboard file; a real
# Prometheus (Debian's) loading config/prometheus.yml's scrape job and both rule files, scraping
# every second. Checks (e2e/prometheus/prometheus_kit.py):
#   * healthy: every query of the three dashboards returns series, every recording rule is
#     evaluated and stored, and every alert's condition is empty (no false alarm on real
#     traffic) while the series it is computed from exist;
#   * an outage (nftables drops everything the sender's namespace sends): the agent's
#     peer_disconnected alert reaches Prometheus, which forwards it as peer_disconnected with
#     exactly the labels the agent pushes (job, instance, the target's site, peer, severity);
#     the peer detail's annotations have series;
#     NetQualityAlertsBeyondPeerSeries stays quiet (the peer has series);
#   * after it: the alert resolves; the probes lost meanwhile make NetQualityProbeLoss's
#     condition true;
#   * a bad configuration and SIGHUP make NetQualityConfigReloadFailed's condition true; the
#     agent stopped makes NetQualityAgentDown's.
# Every wait has a deadline (lib.sh).
#
#   e2e/prometheus/prometheus-kit.sh      (root for the live part; skips it with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh

if [ "$(id -u)" -eq 0 ]; then
  scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
    gstreamer1.0-plugins-ugly nftables iproute2 prometheus python3 python3-yaml
fi
if ! command -v promtool >/dev/null; then
  echo "SKIP e2e prometheus kit: promtool is not installed (Debian: prometheus; root installs it)"
  exit 0
fi

echo "== promtool"
promtool check rules config/rules/*.yml
promtool test rules config/rules/tests/*.yml
promtool check config config/prometheus.yml

skip_without_namespaces "e2e prometheus kit (live part)" "network namespaces, nftables and live capture"
build_product netquality
netquality=$PWD/.build/debug/netquality

tag=nqk$$
subnet=10.207.0
source e2e/netns.sh
sender_address=$subnet.1
instance=127.0.0.1:19481

# The forwarding rules of a configuration with rules of its own, one of them oddly named:
# promtool takes them.
cat >"$work/own-rules.yaml" <<'YAML'
alerts:
  rules:
    - {name: high_loss, metric: rx_loss_ratio, op: ">", threshold: 0.05, clear_threshold: 0.02}
    - {name: "rtt \"slow\" {{ x }}", metric: rtt_ms, op: ">=", threshold: 300, severity: info}
YAML
"$netquality" check-config "$work/own-rules.yaml" --prometheus-rules >"$work/own-rules.yml"
echo "== promtool on check-config --prometheus-rules of a configuration with rules of its own"
promtool check rules "$work/own-rules.yml"
prometheus_url=http://127.0.0.1:19091

# The far end: a STAMP reflector beside the RTP sender.
spawn ip netns exec "$sender" "$netquality" reflect --listen "$sender_address:862" \
  >"$work/reflect.log" 2>&1
pids+=($!)

# The agent: capture, probes to that reflector (the same peer as the call), its own reflector,
# the history and a dashboard file, so that every family the dashboards read exists.
python3 e2e/prometheus/kit_config.py agent "$work/netquality.yaml" "${tag}vb" "$subnet.2" \
  "$instance" "$sender_address" "$work"
ip netns exec "$receiver" "$netquality" check-config "$work/netquality.yaml" >/dev/null
spawn ip netns exec "$receiver" "$netquality" run --config "$work/netquality.yaml" \
  2>"$work/agent.log"
agent=$!
pids+=($agent)

# Prometheus with the shipped configuration: its scrape job (job="netquality", its labels) and
# rule files, made to scrape this agent every second and send alerts nowhere.
python3 e2e/prometheus/kit_config.py prometheus "$work/prometheus.yml" "$instance"
spawn ip netns exec "$receiver" prometheus --config.file="$work/prometheus.yml" \
  --storage.tsdb.path="$work/tsdb" --web.listen-address=127.0.0.1:19091 \
  --rules.alert.resend-delay=1s >"$work/prometheus.log" 2>&1
pids+=($!)

spawn_call_receiver "$work/receiver.log"
pids+=($!)
spawn_call_sender "$work/sender.log"
pids+=($!)

kit() {
  ip netns exec "$receiver" python3 e2e/prometheus/prometheus_kit.py "$prometheus_url" \
    "$instance" "$sender_address" "$@"
}
logs() {
  echo "agent log:"; tail -20 "$work/agent.log"
  echo "prometheus log:"; tail -5 "$work/prometheus.log"
}

peer="instance=\"$instance\",peer=\"$sender_address\""
echo "== healthy"
check "Prometheus sees the peer at rx level 1 (excellent)" \
  kit wait 60 "netquality_peer_quality_level{$peer,direction=\"rx\"} == 1"
# The probe histogram's rate and the recording rules need two scrapes with answers in them.
check "Prometheus has the probe round trips' rate" \
  kit wait 20 "rate(netquality_probe_rtt_seconds_count{$peer}[5s]) > 0"
check "the recording rules have been evaluated" \
  kit wait 20 "instance_peer:netquality_probe_rtt_seconds:mean_rate5m{$peer}"
kit healthy || failures=$((failures + 1))

echo "== outage: everything from the sender's namespace dropped"
nft_sender add rule netdev nqloss egress meta l4proto udp drop
outage_start=$(date +%s)
# 12 s of silence (timers.disconnected), the agent's alert at the next tick, then a scrape.
check "peer_disconnected fires in Prometheus with the labels the agent pushes, no others" \
  kit alert-firing 45 peer_disconnected "job=netquality" "instance=$instance" "site=lab" \
  "peer=$sender_address" "severity=critical"
echo "     $(($(date +%s) - outage_start)) s after the drop began"
kit outage || failures=$((failures + 1))
nft_sender flush chain netdev nqloss egress

echo "== after the outage"
check "the peer is connected again" \
  kit wait 20 "netquality_peer_connection_state{$peer,state=\"connected\"} == 1"
check "peer_disconnected resolves" \
  kit wait-empty 20 "ALERTS{alertname=\"peer_disconnected\",alertstate=\"firing\"}"
check "NetQualityProbeLoss's condition holds (the probes lost in the outage)" \
  kit wait 20 "$(kit alert-expression NetQualityProbeLoss)"

echo "== configuration and agent faults"
echo "tick_interval: [not a number" >"$work/netquality.yaml"
kill -HUP "$agent"
check "NetQualityConfigReloadFailed's condition holds after a bad file and SIGHUP" \
  kit wait 15 "$(kit alert-expression NetQualityConfigReloadFailed)"
stop_process "$agent"
check "NetQualityAgentDown's condition holds once the agent is stopped" \
  kit wait 15 "$(kit alert-expression NetQualityAgentDown)"

if [ "$failures" -ne 0 ]; then
  logs
  exit 1
fi
echo "all prometheus kit checks passed"
