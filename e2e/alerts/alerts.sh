#!/usr/bin/env bash
# Alerts an on-call can trust (issue 25), end to end: a GStreamer G.711 call with RTCP both ways
# between two network namespaces, `netquality run` capturing it live on the receiver's veth and
# pushing its alerts to a real Alertmanager (Debian's), a real Prometheus (Debian's) scraping the
# agent every second and forwarding its alerts with the shipped rules (config/prometheus.yml,
# the rules of `check-config --prometheus-rules` for this configuration) to the same
# Alertmanager, which notifies a webhook receiver; a second Prometheus scrapes the agent every
# 30 s. Everything listens on the receiver namespace's loopback. Checks:
#   1. 12 % random loss (nftables on the sender's egress, RTP only, counted) for 30 s: the rule
#      `rx_loss_ratio > 0.05, clear_threshold 0.02` is exactly one alert in the agent
#      (/api/v1/alerts, netquality_alerts_fired_total) and in Alertmanager (its API; the webhook:
#      one firing notification, no resolve) for the whole phase; peer_rx_quality_bad at most
#      once; the drops equal the agent's lost packets. Loss off: resolved within the scoring
#      span and for_ticks well-clear ticks (printed), in Alertmanager too.
#   2. The loss again, the rule firing, and a SIGHUP with the rule removed: resolved in
#      /api/v1/alerts, gone from /metrics and from Alertmanager within a tick and the push.
#   3. A 15 s blackout of the call: the agent's peer_disconnected, pushed and forwarded, is one
#      alert in one group in Alertmanager, with the push's start.
#   4. The same blackout between two scrapes of the 30 s Prometheus: increase() of the
#      disconnections and of the seconds at down above 0, max_over_time of the worst-level gauge
#      6 (and what max_over_time of the sampled level says).
# Scaled down from the issue's 10 minutes: loss phases of 30 s and about 10 s, timers shortened
# (disconnected after 6 s instead of 12, so that the blackout is down for about 9 of its 15 s),
# Alertmanager grouping in 1 s and 5 s instead of 30 s and 5 min. Every wait has a deadline
# (lib.sh); random loss is checked against its own truth, the nftables counters.
#
#   e2e/alerts/alerts.sh      (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e alerts" "network namespaces, nftables and live capture"
scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-ugly nftables iproute2 prometheus prometheus-alertmanager python3 \
  python3-yaml
build_product netquality
netquality=$PWD/.build/debug/netquality
check_py=$PWD/e2e/alerts/alerts_check.py
stage_started=$(date +%s.%N)

tag=nqal$$
subnet=10.209.0
source e2e/netns.sh
peer=$subnet.1
instance=127.0.0.1:19482
prometheus=http://127.0.0.1:19290
prometheus30=http://127.0.0.1:19291
alertmanager=http://127.0.0.1:19293
in_receiver() { ip netns exec "$receiver" "$@"; }
q() { in_receiver python3 "$check_py" "$@"; }
metric() { q metric "$@"; }
now() { date +%s.%N; }
since() { python3 -c 'import sys, time; print(f"{time.time() - float(sys.argv[1]):.1f}")' "$1"; }
# The experiment's own timing (a phase's length, a moment relative to a scrape), not a wait
# for an event.
sleep_until() { python3 -c 'import sys, time; time.sleep(max(0.0, float(sys.argv[1]) - time.time()))' "$1"; }

failures=0
check() {  # description, then the command
  local description=$1
  shift
  if "$@"; then echo "ok   $description"; else echo "FAIL $description"; failures=$((failures + 1)); fi
}
at_most() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"; }
agent_lists() { q wait-agent "$@" >/dev/null; }      # firing|gone RULE PEER SECONDS
alertmanager_lists() { q wait-am "$@" >/dev/null; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]] if not isinstance(json.loads(sys.argv[1])[sys.argv[2]], list) else len(json.loads(sys.argv[1])[sys.argv[2]]))' "$1" "$2"; }

# The sender's egress counts into two named counters: every RTP packet it emits ("sent",
# before any drop) and every one a drop rule takes ("dropped").
for counter in sent dropped; do nft_sender add counter netdev nqloss "$counter"; done
counted() {
  nft_sender -j list counter netdev nqloss "$1" | python3 -c '
import json, sys
print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])'
}
set_loss() {  # percent of the RTP dropped; 100: the whole call (RTP and RTCP)
  local drop=""
  if [ "$1" -ge 100 ]; then
    drop='add rule netdev nqloss egress udp dport 5004 counter name "dropped" drop
add rule netdev nqloss egress meta l4proto udp drop'
  elif [ "$1" -gt 0 ]; then
    drop="add rule netdev nqloss egress udp dport 5004 numgen random mod 100 < $1 counter name \"dropped\" drop"
  fi
  printf '%s\n' "flush chain netdev nqloss egress" \
    'add rule netdev nqloss egress udp dport 5004 counter name "sent"' "$drop" | nft_sender -f -
}
set_loss 0

# Alertmanager with the configuration of docs/alertmanager.md (grouping in 1 s and 5 s instead
# of 30 s and 5 min), notifying a webhook receiver that writes down what it gets.
webhook=$work/webhook.jsonl
touch "$webhook"
spawn ip netns exec "$receiver" python3 "$check_py" webhook 19295 "$webhook"
pids+=($!)
cat >"$work/alertmanager.yml" <<'YAML'
route:
  receiver: oncall
  group_by: [alertname, job, instance]
  group_wait: 1s
  group_interval: 5s
  repeat_interval: 4h
receivers:
  - name: oncall
    webhook_configs:
      - url: http://127.0.0.1:19295/
        send_resolved: true
inhibit_rules:
  - source_matchers: [alertname=~"peer_disconnected|peer_timeout"]
    target_matchers: [alertname!~"peer_disconnected|peer_timeout"]
    equal: [job, instance, peer]
YAML
spawn ip netns exec "$receiver" prometheus-alertmanager --config.file="$work/alertmanager.yml" \
  --storage.path="$work/alertmanager" --web.listen-address=127.0.0.1:19293 \
  --cluster.listen-address= >"$work/alertmanager.log" 2>&1
pids+=($!)

# The agent: the call's receiver side, one rule of its own, pushing to Alertmanager with the
# scrape target's label (site: lab in config/prometheus.yml). Its instance label is its listen
# address by default, which is the target Prometheus scrapes.
write_config() {  # with or without the loss rule
  local rules="[]"
  [ "$1" = with ] &&
    rules='[{name: high_loss, metric: rx_loss_ratio, op: ">", threshold: 0.05, clear_threshold: 0.02}]'
  cat >"$work/netquality.yaml" <<YAML
interfaces: [${tag}vb]
local_networks: [$subnet.2/32]
listen: "$instance"
timers: {interrupted: 3, disconnected: 6, timeout: 120}
dashboard_file: "$work/dashboard.txt"
storage: {enabled: false}
alerts:
  rules: $rules
alertmanager:
  url: "$alertmanager"
  timeout_seconds: 2
  labels: {site: lab}
YAML
}
write_config with
in_receiver "$netquality" check-config "$work/netquality.yaml" >/dev/null
"$netquality" check-config "$work/netquality.yaml" --prometheus-rules >"$work/agent-alerts.yml"
check "promtool takes the forwarding rules of this configuration" \
  bash -c "promtool check rules '$work/agent-alerts.yml' >/dev/null"
spawn ip netns exec "$receiver" "$netquality" run --config "$work/netquality.yaml" 2>"$work/agent.log"
agent_pid=$!
pids+=($agent_pid)

# Prometheus with the shipped configuration (its job, target label, external label and
# alert_relabel_configs), its recording and Prometheus-only rules and the forwarding rules of
# this configuration, scraping and evaluating every second, sending to this Alertmanager with
# its default resend delay (1 min).
python3 - "$work/prometheus.yml" "$instance" "$PWD/config" "$work/agent-alerts.yml" <<'PY'
import sys, yaml
out, target, config, agent_alerts = sys.argv[1:]
shipped = yaml.safe_load(open(f"{config}/prometheus.yml"))
shipped["global"].update({"scrape_interval": "1s", "evaluation_interval": "1s"})
shipped["rule_files"] = [agent_alerts if path.endswith("netquality-agent-alerts.yml")
                         else f"{config}/{path}" for path in shipped["rule_files"]]
shipped["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"] = ["127.0.0.1:19293"]
job = next(job for job in shipped["scrape_configs"] if job["job_name"] == "netquality")
job["scrape_timeout"] = "1s"
job["static_configs"][0]["targets"] = [target]
yaml.safe_dump(shipped, open(out, "w"))
PY
spawn ip netns exec "$receiver" prometheus --config.file="$work/prometheus.yml" \
  --storage.tsdb.path="$work/tsdb" --web.listen-address=127.0.0.1:19290 \
  >"$work/prometheus.log" 2>&1
pids+=($!)
# A second one scraping every 30 s: what a slow scrape interval sees of an outage.
cat >"$work/prometheus30.yml" <<YAML
global: {scrape_interval: 30s, evaluation_interval: 30s}
scrape_configs:
  - job_name: netquality
    static_configs: [{targets: ["$instance"], labels: {site: lab}}]
YAML
spawn ip netns exec "$receiver" prometheus --config.file="$work/prometheus30.yml" \
  --storage.tsdb.path="$work/tsdb30" --web.listen-address=127.0.0.1:19291 \
  >"$work/prometheus30.log" 2>&1
pids+=($!)

spawn_call_receiver "$work/receiver.log"
pids+=($!)
spawn_call_sender "$work/sender.log"
pids+=($!)

logs() {
  echo "agent log:"; tail -30 "$work/agent.log"
  echo "alertmanager log:"; tail -10 "$work/alertmanager.log"
  echo "prometheus log:"; tail -5 "$work/prometheus.log"
  echo "webhook:"; cut -c1-300 "$webhook" | tail -10
}
check "Alertmanager is ready" q ready "$alertmanager/-/ready" 30
check "the agent is ready" q ready "http://$instance/-/ready" 30
connected() { [ "$(metric "netquality_peer_connection_state{peer=\"$peer\",state=\"connected\"}")" = 1 ]; }
check "the call is up: the agent sees $peer connected" wait_until 30 "$peer connected" connected
rx_excellent() {
  [ -n "$(q prom "$prometheus" "netquality_peer_quality_level{peer=\"$peer\",direction=\"rx\"} == 1")" ]
}
check "Prometheus sees the peer at rx level 1" wait_until 30 "Prometheus' first samples" rx_excellent
if [ "$failures" -ne 0 ]; then logs; exit 1; fi
printf '     set up in %s s\n' "$(since "$stage_started")"

# 1. 12 % loss for 30 s: one alert, in the agent and in Alertmanager, for the whole phase.
echo "== 1. 12 % random loss on the RTP for 30 s, then none"
sent_before=$(counted sent)
set_loss 12
loss_started=$(now)
q watch 30 "$peer" high_loss peer_rx_quality_bad >"$work/watch1.jsonl"
set_loss 0
loss_ended=$(now)
sent_in_phase=$(($(counted sent) - sent_before))
high=$(grep '"rule": "high_loss"' "$work/watch1.jsonl")
bad=$(grep '"rule": "peer_rx_quality_bad"' "$work/watch1.jsonl")
echo "     high_loss: $high"
echo "     peer_rx_quality_bad: $bad"
check "the agent: exactly one high_loss alert for the whole phase ($(field "$high" agent_ids) listed, $(field "$high" agent_flaps) flaps)" \
  [ "$(field "$high" agent_ids)/$(field "$high" agent_flaps)" = 1/0 ]
fired=$(metric "netquality_alerts_fired_total{alertname=\"high_loss\",severity=\"warning\"}")
check "the agent: netquality_alerts_fired_total{alertname=\"high_loss\"} = 1 ($fired)" [ "$fired" = 1 ]
forwarded_too=$(q prom "$prometheus" "max_over_time(ALERTS{alertname=\"high_loss\",alertstate=\"firing\",peer=\"$peer\"}[30s] @ ${loss_ended%.*})")
check "Prometheus forwarded it too (ALERTS firing during the phase: $forwarded_too)" [ -n "$forwarded_too" ]
check "Alertmanager: exactly one high_loss alert for the whole phase ($(field "$high" am_starts) listed, $(field "$high" am_flaps) flaps)" \
  [ "$(field "$high" am_starts)/$(field "$high" am_flaps)" = 1/0 ]
check "the built-in peer_rx_quality_bad at most once, no flap ($(field "$bad" agent_ids) alerts, $(field "$bad" agent_flaps) flaps)" \
  bash -c "[ $(field "$bad" agent_ids) -le 1 ] && [ $(field "$bad" agent_flaps) = 0 ] && [ $(field "$bad" am_flaps) = 0 ]"
firing=$(q notifications high_loss firing "$loss_started" "$webhook")
resolved=$(q notifications high_loss resolved "$loss_started" "$webhook")
check "the webhook: one firing notification of high_loss, no resolve during the phase ($firing, $resolved)" \
  [ "$firing/$resolved" = 1/0 ]

agent_resolved=$(q wait-agent gone high_loss "$peer" 60) || true
resolve_seconds=$(since "$loss_ended")
# Well clear once the loss over the scoring span (3 windows of 2 s) is below 2 %; the alert
# resolves at the third well-clear tick in a row (for_ticks), not after keep_firing_for_ticks
# (30 ticks, 60 s). Checked against the agent's own figure, as Prometheus scraped it every
# second: the first sample below 2 % comes from the first well-clear tick or later (a loaded
# machine scrapes late: a run saw it 1.2 s before the resolve), and the alert resolves 2 ticks
# (4 s) after that tick, so at most 4 s (and a late tick's half second) after the sample, never
# the 60 s of keep_firing_for_ticks; that it never resolved during the loss is checked above. How long after the loss
# stopped that is depends on where in its window the last drop fell and on the machine's load
# (8 to 12 s quiet, 15.5 s once on a loaded one), so that is printed, not bounded.
resolved_at=$(python3 - "$work/agent.log" "$loss_ended" <<'PY'
import datetime, re, sys
for line in open(sys.argv[1]):
    found = re.match(r"time=(\S+) .*alert=high_loss event=alert_resolved", line)
    if found:
        at = datetime.datetime.strptime(found[1], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        if at > float(sys.argv[2]) - 2:
            print(f"{at:.3f}")
            break
else:
    print("never")
PY
)
clear_seen=$(q first-below "$prometheus" "netquality_peer_loss_ratio{peer=\"$peer\",direction=\"rx\"}" \
  "$loss_ended" "$(now)" 0.02) || clear_seen=never
echo "     the loss stopped; Prometheus' first sample below 2 %: $( [ "$clear_seen" = never ] && echo never || python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):+.1f} s')" "$clear_seen" "$loss_ended"); the agent resolved high_loss $resolve_seconds s after the loss stopped"
check "the agent resolves high_loss by the third well-clear tick: at most 4.5 s after the first sample below 2 % ($( [ "$clear_seen" = never ] || [ "$resolved_at" = never ] && echo "never" || python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f} s')" "$resolved_at" "$clear_seen"))" \
  python3 -c 'import sys; d = float(sys.argv[1]) - float(sys.argv[2]); sys.exit(0 if d <= 4.5 else 1)' "$resolved_at" "$clear_seen"
am_gone=$(q wait-am gone high_loss "$peer" 10) || am_gone=never
echo "     Alertmanager no longer lists it $am_gone s later"
check "Alertmanager resolves it too" [ "$am_gone" != never ]
resolved_once() { [ "$(q notifications high_loss resolved "$loss_started" "$webhook")" = 1 ]; }
check "the webhook gets it resolved, once" wait_until 15 "the resolved notification" resolved_once
check "and still one firing notification ($(q notifications high_loss firing "$loss_started" "$webhook"))" \
  [ "$(q notifications high_loss firing "$loss_started" "$webhook")" = 1 ]

# The truth beside the agent's figures. The loss phase was framed by clean traffic and the
# alert's resolution took several ticks: every drop has been counted by now.
sent=$(counted sent)
dropped=$(counted dropped)
received=$(metric "netquality_peer_received_packets_total{peer=\"$peer\"}")
lost=$(metric "netquality_peer_lost_packets_total{peer=\"$peer\"}")
at() { q prom "$prometheus" "$1" | awk '{printf "%.1f", $2 * 100}'; }
window="netquality_peer_loss_ratio{peer=\"$peer\",direction=\"rx\"}[28s] @ ${loss_ended%.*}"
python3 - "$sent" "$dropped" "$received" "$lost" "$sent_in_phase" "$(at "min_over_time($window)")" \
  "$(at "avg_over_time($window)")" "$(at "max_over_time($window)")" <<'PY'
import sys
sent, dropped, received, lost, phase = (int(float(x)) for x in sys.argv[1:6])
low, mean, high = sys.argv[6:9]
expected = received + lost
print(f"     {'':44} {'sent':>6} {'lost':>5}")
print(f"     {'truth, the call so far (nftables counters)':44} {sent:>6} {dropped:>5}")
print(f"     {'agent (received + lost; lost)':44} {expected:>6} {lost:>5}"
      f"   ({sent - expected} sent after the agent's last tick)")
print(f"     the loss phase: {dropped} of {phase} RTP packets dropped ({100 * dropped / phase:.2f} %);"
      f" the agent's loss over its 6 s span: min {low} %, mean {mean} %, max {high} %")
PY
check "the agent's lost packets are the drops ($lost = $dropped)" [ "${lost%.*}" = "$dropped" ]

# 2. The rule firing again, and a reload without it.
echo "== 2. the loss again, then a SIGHUP that removes the firing rule"
set_loss 12
refired=$(now)
check "high_loss fires again in the agent" agent_lists firing high_loss "$peer" 30
check "and in Alertmanager" alertmanager_lists firing high_loss "$peer" 10
# Notified firing first: an alert that fires and resolves between two flushes of its group
# (group_interval) is never notified at all.
notified_again() { [ "$(q notifications high_loss firing "$refired" "$webhook")" -ge 1 ]; }
check "the webhook gets it firing" wait_until 12 "the firing notification" notified_again
series="netquality_alerts_firing{alertname=\"high_loss\",severity=\"warning\",peer=\"$peer\",direction=\"rx\"}"
check "and /metrics has its netquality_alerts_firing series" [ "$(metric "$series")" = 1 ]
write_config without
kill -HUP "$agent_pid"
hup=$(now)
seconds=$(q wait-agent gone high_loss "$peer" 5) || seconds="not within 5"
check "resolved in /api/v1/alerts $seconds s after the SIGHUP (the next tick: at most 2 s and the reload)" \
  [ "$seconds" != "not within 5" ]
no_series() { [ -z "$(metric "$series")" ]; }
check "gone from /metrics" wait_until 3 "the series to go" no_series
echo "     $(since "$hup") s after the SIGHUP"
seconds=$(q wait-am gone high_loss "$peer" 6) || seconds="not within 6"
check "resolved in Alertmanager $(since "$hup") s after the SIGHUP" [ "$seconds" != "not within 6" ]
resolved_again() { [ "$(q notifications high_loss resolved "$refired" "$webhook")" -ge 1 ]; }
check "the webhook gets it resolved" wait_until 15 "the resolved notification" resolved_again
check "the reload succeeded" [ "$(metric netquality_config_last_reload_successful)" = 1 ]
set_loss 0

# 3 and 4. A 15 s blackout, 12 s after a scrape of the 30 s Prometheus: down for about 9 s, all
# of it between two of its scrapes.
echo "== 3. a 15 s blackout: the agent's push and Prometheus' forward are one alert"
last=$(q last-scrape "$prometheus30")
blackout=$(python3 -c 'import sys, time
last, now = float(sys.argv[1]), time.time()
start = last + 12
while start < now + 1:
    start += 30
print(f"{start:.3f}")' "$last")
sleep_until "$blackout"
agent_sent=$(metric "netquality_alertmanager_notifications_sent_total{alertmanager=\"$alertmanager\"}")
prometheus_sent() {
  metric "prometheus_notifications_sent_total{alertmanager=\"$alertmanager/api/v2/alerts\"}" "$prometheus"
}
prometheus_sent_before=$(prometheus_sent)
set_loss 100
blackout=$(now)
seconds=$(q wait-agent firing peer_disconnected "$peer" 12) || seconds=never
check "the agent raises peer_disconnected $(since "$blackout") s after the blackout began" [ "$seconds" != never ]
check "Alertmanager lists it" alertmanager_lists firing peer_disconnected "$peer" 5
forwarded() {
  [ -n "$(q prom "$prometheus" "ALERTS{alertname=\"peer_disconnected\",alertstate=\"firing\",peer=\"$peer\"}")" ]
}
check "Prometheus fires it too ($(since "$blackout") s)" wait_until 6 "Prometheus' alert" forwarded
sent_more() { [ "$(prometheus_sent)" -gt "${prometheus_sent_before%.*}" ]; }
check "Prometheus sent it to Alertmanager" wait_until 5 "Prometheus' notification" sent_more
check "so did the agent ($agent_sent, then $(metric "netquality_alertmanager_notifications_sent_total{alertmanager=\"$alertmanager\"}"))" \
  [ "$(metric "netquality_alertmanager_notifications_sent_total{alertmanager=\"$alertmanager\"}")" -gt "${agent_sent%.*}" ]
labels="{\"alertname\": \"peer_disconnected\", \"job\": \"netquality\", \"instance\": \"$instance\", \"peer\": \"$peer\", \"severity\": \"critical\", \"site\": \"lab\"}"
check "Alertmanager: one alert in one group, with the push's start ($(since "$blackout") s)" \
  q identity peer_disconnected "$peer" "$instance" "$labels"
sleep_until "$(python3 -c 'import sys; print(float(sys.argv[1]) + 15)' "$blackout")"
set_loss 0
back=$(now)
check "the peer is back" wait_until 10 "$peer connected" connected
check "Alertmanager resolves it" alertmanager_lists gone peer_disconnected "$peer" 10
disconnected_resolved() { [ "$(q notifications peer_disconnected resolved "$blackout" "$webhook")" -ge 1 ]; }
check "the webhook gets it resolved" wait_until 15 "the resolved notification" disconnected_resolved
firing=$(q notifications peer_disconnected firing "$blackout" "$webhook")
resolved=$(q notifications peer_disconnected resolved "$blackout" "$webhook")
check "the webhook: one firing and one resolved notification of peer_disconnected ($firing, $resolved)" \
  [ "$firing/$resolved" = 1/1 ]

echo "== 4. the blackout through a 30 s scrape interval"
scraped_after() { at_most "$back" "$(q last-scrape "$prometheus30")"; }
check "the 30 s Prometheus scrapes after the blackout" wait_until 35 "its next scrape" scraped_after
echo "     blackout $(python3 -c 'import sys; print(f"{(float(sys.argv[2]) - float(sys.argv[1])) % 30:.1f}")' "$last" "$blackout") s after a scrape of the 30 s Prometheus, over $(python3 -c 'import sys; print(f"{float(sys.argv[1]) - float(sys.argv[2]):.1f}")' "$back" "$blackout") s; scraped $(python3 -c 'import sys; print(f"{float(sys.argv[1]) - float(sys.argv[2]):.1f}")' "$(q last-scrape "$prometheus30")" "$back") s after it ended"
p30() { q prom "$prometheus30" "$1" | awk '{print $2}'; }
selector="peer=\"$peer\",direction=\"rx\""
transitions=$(p30 "increase(netquality_peers_state_transitions_total{state=\"disconnected\"}[2m])")
down=$(p30 "increase(netquality_peer_quality_seconds_total{$selector,level=\"down\"}[2m])")
worst=$(p30 "max_over_time(netquality_peer_quality_level_max{$selector}[2m])")
sampled=$(p30 "max_over_time(netquality_peer_quality_level{$selector}[2m])")
sampled_last=$(p30 "max_over_time(netquality_peer_quality_level{$selector}[31s])")
agent_down=$(metric "netquality_peer_quality_seconds_total{$selector,level=\"down\"}")
echo "     30 s Prometheus: increase(transitions{state=disconnected}[2m]) = $transitions," \
  "increase(seconds at down[2m]) = $down (the agent's own counter: $agent_down s)"
echo "     max_over_time(netquality_peer_quality_level_max[2m]) = $worst;" \
  "max_over_time(netquality_peer_quality_level[2m]) = $sampled ([31s], the two scrapes around the blackout: $sampled_last)"
positive() { python3 -c 'import sys; sys.exit(0 if sys.argv[1] and float(sys.argv[1]) > 0 else 1)' "$1"; }
check "the disconnection is counted at a 30 s scrape interval" positive "$transitions"
check "the seconds at down are counted" positive "$down"
check "the worst-level gauge shows 6 (down)" [ "$worst" = 6 ]

printf '     the stage took %s s\n' "$(since "$stage_started")"
if [ "$failures" -ne 0 ]; then
  logs
  exit 1
fi
echo "all alerts e2e checks passed"
