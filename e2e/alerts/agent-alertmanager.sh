#!/usr/bin/env bash
# End to end of the Alertmanager push: a GStreamer G.711 call with RTCP both ways between two
# network namespaces, `netquality run` capturing live on the receiver's veth and pushing its
# alerts to a real Alertmanager (Debian's package), which notifies a webhook receiver with
# send_resolved — all on the receiver namespace's loopback. Checks: a full drop on the
# sender's egress makes the peer disconnect and Alertmanager list peer_disconnected (labels,
# annotations, an end a few resend intervals ahead) and the webhook get it firing; the agent
# resends it; removing the drop resolves it (no longer listed, a `resolved` notification at
# the webhook, ended in the past); with Alertmanager stopped the agent logs one failure line
# however often it retries, and once Alertmanager is back it delivers the alert and logs one
# recovery line; `promtool check metrics` finds nothing wrong with the agent's scrape. Timers
# are shortened (disconnected after 6 s, resend every 5 s) to keep the run short. Then https:
# a second Alertmanager behind --web.config.file (TLS with a CA and a certificate made here,
# one bcrypt basic auth user) gets the alert from an agent with tls_config.ca_file and
# basic_auth.password_file (listed by its API), while an agent with a wrong password logs the
# 401 and one with another CA logs "certificate verify failed", both counted, and the password
# appears in no log, check-config output, status page or API.
#
#   e2e/alerts/agent-alertmanager.sh      (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e alertmanager" "network namespaces, nftables and live capture"
scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-ugly nftables iproute2 prometheus prometheus-alertmanager python3 \
  curl openssl apache2-utils
build_product netquality
netquality=$PWD/.build/debug/netquality
check_py=$PWD/e2e/alerts/alertmanager_check.py

tag=nqam$$
subnet=10.206.0
source e2e/netns.sh
in_receiver() { ip netns exec "$receiver" "$@"; }
am() { in_receiver python3 "$check_py" "$@"; }
peer=10.206.0.1


# The webhook receiver Alertmanager notifies, firing and resolved.
spawn ip netns exec "$receiver" python3 "$check_py" webhook 19095 "$work/webhook.jsonl"
pids+=($!)
touch "$work/webhook.jsonl"

# The shipped example (routes, the inhibit rule) is a configuration Alertmanager accepts.
check "amtool check-config accepts config/alertmanager.yml" \
  amtool check-config config/alertmanager.yml

cat >"$work/alertmanager.yml" <<YAML
route:
  receiver: webhook
  group_by: [alertname, peer]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: webhook
    webhook_configs:
      - url: http://127.0.0.1:19095/
        send_resolved: true
YAML
start_alertmanager() {
  spawn ip netns exec "$receiver" prometheus-alertmanager --config.file="$work/alertmanager.yml" \
    --storage.path="$work/alertmanager" --web.listen-address=127.0.0.1:19093 \
    --cluster.listen-address= >>"$work/alertmanager.log" 2>&1
  alertmanager_pid=$!
  pids+=($alertmanager_pid)
  am ready http://127.0.0.1:19093/-/ready 30 || { tail -20 "$work/alertmanager.log"; exit 1; }
}
start_alertmanager

cat >"$work/netquality.yaml" <<YAML
interfaces: [${tag}vb]
local_networks: [$subnet.2/32]
listen: "127.0.0.1:19472"
timers: {interrupted: 2, disconnected: 6, timeout: 120}
dashboard_file: "$work/dashboard.txt"
storage: {enabled: false}
alertmanager:
  url: "http://127.0.0.1:19093"
  timeout_seconds: 2
  resend_interval_seconds: 5
  labels: {site: e2e}
YAML
in_receiver "$netquality" check-config "$work/netquality.yaml" >/dev/null
spawn ip netns exec "$receiver" "$netquality" run --config "$work/netquality.yaml" 2>"$work/agent.log"
agent_pid=$!
pids+=($agent_pid)
am ready http://127.0.0.1:19472/-/ready 30 || { cat "$work/agent.log"; exit 1; }

spawn_call_receiver "$work/receiver.log"
pids+=($!)
spawn_call_sender "$work/sender.log"
pids+=($!)

metric() { am metric "$1"; }
connected() { [ "$(metric "netquality_peer_connection_state{peer=\"$peer\",state=\"connected\"}")" = 1 ]; }
sent() { metric "netquality_alertmanager_notifications_sent_total{alertmanager=\"http://127.0.0.1:19093\"}"; }
set_drop() {  # the full drop (RTP and RTCP) on, or off
  if [ "$1" = on ]; then
    printf '%s\n' "flush chain netdev nqloss egress" "add rule netdev nqloss egress meta l4proto udp drop" | nft_sender -f -
  else
    nft_sender flush chain netdev nqloss egress
  fi
}

check "the call is up: the agent sees $peer connected" wait_until 30 "$peer connected" connected

# 1. An outage: Alertmanager lists the alert, the webhook gets it firing, the agent resends it.
set_drop on
silent=$(date +%s.%N)
check "Alertmanager lists peer_disconnected for $peer: labels, annotations, times" \
  am alert "$peer" 30 "$silent"
check "the webhook got it firing" am notified firing "$peer" "$work/webhook.jsonl" 10
sent_then=$(sent)
resent() { [ "$(sent)" -gt "$sent_then" ]; }
check "the agent resends the firing alert (sent: $sent_then, then more within 12 s)" \
  wait_until 12 "a resend" resent

# 2. Recovery: resolved in Alertmanager and at the webhook.
set_drop off
back=$(date +%s.%N)
check "Alertmanager no longer lists it once the peer is back" am gone "$peer" 30
check "the webhook got it resolved (send_resolved), ended when traffic came back" \
  am notified resolved "$peer" "$work/webhook.jsonl" 15 "$back"

# 3. Alertmanager down during an outage: one failure line, then delivered once it is back.
stop_process "$alertmanager_pid"
set_drop on
silent=$(date +%s.%N)
down() { [ "$(metric "netquality_alertmanager_up{alertmanager=\"http://127.0.0.1:19093\"}")" = 0 ]; }
check "the agent sees Alertmanager down" wait_until 30 "a failed post" down
failed_now() {
  metric "netquality_alertmanager_notifications_failed_total{alertmanager=\"http://127.0.0.1:19093\"}"
}
retried() { [ "$(failed_now)" -ge 2 ]; }
check "the agent retries while it is down (2 or more failed alerts within 15 s)" \
  wait_until 15 "a retry" retried
echo "     failed alerts so far: $(failed_now)"
start_alertmanager
check "once Alertmanager is back it lists the alert" am alert "$peer" 30 "$silent"
recovered() { grep -q "alertmanager http://127.0.0.1:19093: delivering again after" "$work/agent.log"; }
check "the agent logs its recovery" wait_until 10 "the recovery line" recovered
failing_lines=$(grep -c "alertmanager http://127.0.0.1:19093: cannot deliver alerts" "$work/agent.log" || true)
check "one failure line for the whole outage of Alertmanager ($failing_lines)" [ "$failing_lines" = 1 ]
set_drop off
check "and resolved again once the peer is back" am gone "$peer" 30

in_receiver python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:19472/metrics", timeout=5).read().decode(), end="")' >"$work/scrape.txt"
check "promtool check metrics is clean on a scrape" promtool check metrics <"$work/scrape.txt"
for family in notifications_sent_total notifications_failed_total notifications_dropped_total \
  queue_length queue_capacity active_alerts up request_duration_seconds_count; do
  check "netquality_alertmanager_$family exported" grep -q "^netquality_alertmanager_$family" "$work/scrape.txt"
done
dropped=$(grep -E '^netquality_alertmanager_notifications_dropped_total' "$work/scrape.txt" | awk '{s += $2} END {print s + 0}')
check "nothing dropped ($dropped)" [ "$dropped" = 0 ]

# A clean stop: the final flush leaves nothing behind.
stop_process "$agent_pid"
check "the agent stopped without unsent alerts" bash -c "! grep -q 'unsent' '$work/agent.log'"

# 4. The shipped example route (config/alertmanager.yml, unchanged; its receivers' webhook at
# 127.0.0.1:9095, here in the namespace) pages a 20 s blackout: with the agent's default timers
# and the peer_interrupted rule the file documents, peer_interrupted fires 4 s in and is
# resolved at 12 s (disconnected); its route's group_wait of 2 s notifies it as a warning.
# (peer_disconnected's group, 30 s, is all resolved at its first flush: it pages nothing.)
spawn ip netns exec "$receiver" python3 "$check_py" webhook 9095 "$work/shipped-webhook.jsonl"
pids+=($!)
touch "$work/shipped-webhook.jsonl"
spawn ip netns exec "$receiver" prometheus-alertmanager --config.file=config/alertmanager.yml \
  --storage.path="$work/alertmanager-shipped" --web.listen-address=127.0.0.1:19094 \
  --cluster.listen-address= >>"$work/alertmanager-shipped.log" 2>&1
pids+=($!)
am ready http://127.0.0.1:19094/-/ready 30 || { tail -20 "$work/alertmanager-shipped.log"; exit 1; }
cat >"$work/shipped.yaml" <<YAML
interfaces: [${tag}vb]
local_networks: [$subnet.2/32]
listen: "127.0.0.1:19473"
storage: {enabled: false}
alerts:
  rules:
    - {name: peer_interrupted, metric: state, op: "==", threshold: 2, for_ticks: 1,
       severity: warning}
alertmanager:
  url: "http://127.0.0.1:19094"
YAML
in_receiver "$netquality" check-config "$work/shipped.yaml" >/dev/null
spawn ip netns exec "$receiver" "$netquality" run --config "$work/shipped.yaml" 2>"$work/shipped-agent.log"
shipped_pid=$!
pids+=($shipped_pid)
am ready http://127.0.0.1:19473/-/ready 30 || { cat "$work/shipped-agent.log"; exit 1; }
connected_shipped() {
  in_receiver python3 -c "
import json, sys, urllib.request
peers = json.load(urllib.request.urlopen('http://127.0.0.1:19473/api/v1/peers', timeout=2))['peers']
sys.exit(0 if any(p['peer'] == '$peer' and p['state'] == 'connected' for p in peers) else 1)"
}
check "the second agent sees $peer connected" wait_until 30 "$peer connected" connected_shipped
set_drop on
blackout=$(date +%s.%N)
sleep 20  # the blackout's length: the experiment, not a wait for an event
set_drop off
check "the shipped route pages the 20 s blackout: peer_interrupted firing through oncall-warning" \
  am paged peer_interrupted "$peer" oncall-warning "$work/shipped-webhook.jsonl" 15
echo "     (blackout began $(python3 -c "import time; print(round(time.time() - $blackout, 1))") s ago)"
stop_process "$shipped_pid"

# 5. https with basic auth: a second Alertmanager behind its own --web.config.file (TLS with a
# CA and a server certificate made here, one bcrypt user). Three agents on the same call push
# to it: with the CA and the right password (the alert is listed), with a wrong password (401,
# logged without it), with another CA (refused: certificate verify failed).
tls=$work/tls
mkdir -p "$tls"
make_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -keyout "$tls/$1.key" -out "$tls/$1.pem" -subj "/CN=$1" 2>/dev/null
}
make_ca test-ca
make_ca other-ca
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
  -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tls/server.ext"
openssl x509 -req -in "$tls/server.csr" -CA "$tls/test-ca.pem" -CAkey "$tls/test-ca.key" \
  -CAcreateserial -days 2 -extfile "$tls/server.ext" -out "$tls/server.pem" 2>/dev/null
password="am-e2e-$$-$RANDOM"
printf '%s\n' "$password" >"$tls/password"
printf '%s\n' "wrong-$password" >"$tls/wrong-password"
hash=$(htpasswd -nbBC 10 netquality "$password" | cut -d: -f2-)
cat >"$tls/web.yml" <<YAML
tls_server_config:
  cert_file: $tls/server.pem
  key_file: $tls/server.key
basic_auth_users:
  netquality: '$hash'
YAML
spawn ip netns exec "$receiver" prometheus-alertmanager --config.file="$work/alertmanager.yml" \
  --storage.path="$work/alertmanager-tls" --web.listen-address=127.0.0.1:19443 \
  --web.config.file="$tls/web.yml" --cluster.listen-address= >>"$work/alertmanager-tls.log" 2>&1
pids+=($!)
am_https=https://127.0.0.1:19443
curl_am() { in_receiver curl -s --max-time 5 --cacert "$tls/test-ca.pem" "$@"; }
tls_ready() { [ "$(curl_am -o /dev/null -w '%{http_code}' -u "netquality:$password" "$am_https/-/ready")" = 200 ]; }
check "Alertmanager answers over TLS with the password" wait_until 30 "TLS Alertmanager" tls_ready
status=$(curl_am -o /dev/null -w '%{http_code}' -u "netquality:wrong-$password" "$am_https/api/v2/alerts" || true)
check "a wrong password gets 401 ($status)" [ "$status" = 401 ]
other_ca=0
in_receiver curl -s --max-time 5 --cacert "$tls/other-ca.pem" -u "netquality:$password" \
  -o /dev/null "$am_https/-/ready" || other_ca=$?
check "curl with another CA is refused (exit $other_ca: 60 is a certificate problem)" [ "$other_ca" = 60 ]

https_agent() {  # name port password-file ca-file url
  cat >"$work/$1.yaml" <<YAML
interfaces: [${tag}vb]
local_networks: [$subnet.2/32]
listen: "127.0.0.1:$2"
timers: {interrupted: 2, disconnected: 6, timeout: 120}
storage: {enabled: false}
alertmanager:
  url: "$5"
  timeout_seconds: 2
  resend_interval_seconds: 5
  labels: {site: e2e-$1}
  basic_auth: {username: netquality, password_file: "$3"}
  tls_config: {ca_file: "$4"}
YAML
  in_receiver "$netquality" check-config "$work/$1.yaml" >"$work/$1.check" 2>&1
  spawn ip netns exec "$receiver" "$netquality" run --config "$work/$1.yaml" 2>"$work/$1.log"
  pids+=($!)
}
# The good one by name: localhost resolved at each connection, sent as SNI and checked in the
# certificate.
https_agent https-good 19473 "$tls/password" "$tls/test-ca.pem" https://localhost:19443
https_agent https-wrong-password 19474 "$tls/wrong-password" "$tls/test-ca.pem" "$am_https"
https_agent https-wrong-ca 19475 "$tls/password" "$tls/other-ca.pem" "$am_https"
for port in 19473 19474 19475; do
  am ready "http://127.0.0.1:$port/-/ready" 30 || { tail -5 "$work"/https-*.log; exit 1; }
done
connected_at() {
  [ "$(am metric "netquality_peer_connection_state{peer=\"$peer\",state=\"connected\"}" "http://127.0.0.1:$1")" = 1 ]
}
for port in 19473 19474 19475; do
  check "the https agent on :$port sees $peer connected" wait_until 30 "$peer connected" connected_at "$port"
done
set_drop on
listed_over_https() {
  curl_am -u "netquality:$password" "$am_https/api/v2/alerts" >"$work/tls-alerts.json" &&
    python3 - "$work/tls-alerts.json" "$peer" <<'PY'
import json, sys
alerts = json.load(open(sys.argv[1]))
sys.exit(0 if any(a["labels"].get("alertname") == "peer_disconnected"
                  and a["labels"].get("peer") == sys.argv[2]
                  and a["labels"].get("site") == "e2e-https-good" for a in alerts) else 1)
PY
}
check "the agent with the CA and the password pushed peer_disconnected over https (listed by the API)" \
  wait_until 30 "the alert over https" listed_over_https
wrong_site() { python3 -c 'import json,sys; sys.exit(any(a["labels"].get("site") in ("e2e-https-wrong-password","e2e-https-wrong-ca") for a in json.load(open(sys.argv[1]))))' "$work/tls-alerts.json"; }
check "nothing from the agents with the wrong password or CA is listed" wrong_site
logged() { grep -q "$2" "$work/$1.log"; }
check "the wrong password's agent logs the 401" \
  wait_until 15 "the 401 line" logged https-wrong-password "alertmanager $am_https: cannot deliver alerts: answered 401"
check "the wrong CA's agent logs certificate verify failed" \
  wait_until 15 "the TLS line" logged https-wrong-ca "alertmanager $am_https: cannot deliver alerts: certificate verify failed: "
failed_at() {
  local failed
  failed=$(am metric "netquality_alertmanager_notifications_failed_total{alertmanager=\"$am_https\"}" "http://127.0.0.1:$1")
  [ "${failed:-0}" -ge 1 ]
}
check "the wrong password's failures are counted" wait_until 10 "a failure counted" failed_at 19474
check "the wrong CA's failures are counted" wait_until 10 "a failure counted" failed_at 19475
grep -h 'cannot deliver alerts' "$work/https-wrong-password.log" "$work/https-wrong-ca.log" | sed 's/^/     /'
good_sent=$(am metric 'netquality_alertmanager_notifications_sent_total{alertmanager="https://localhost:19443"}' http://127.0.0.1:19473)
check "the https agent counts its deliveries ($good_sent)" [ "${good_sent:-0}" -ge 1 ]
for page in / /api/v1/status /api/v1/alerts /metrics; do
  in_receiver curl -s --max-time 5 "http://127.0.0.1:19473$page" >>"$work/https-good.pages"
done
check "no password (nor its base64) in the https agent's status page, APIs and metrics" \
  bash -c "[ -s '$work/https-good.pages' ] && ! grep -qF -e '$password' -e '$(printf 'netquality:%s' "$password" | base64 -w0)' '$work/https-good.pages'"
set_drop off
for name in https-good https-wrong-password https-wrong-ca; do
  check "$name: no password in its log or check-config output" \
    bash -c "! grep -qF -- '$password' '$work/$name.log' '$work/$name.check'"
done

if [ "$failures" -ne 0 ]; then
  echo "agent log:"; tail -30 "$work/agent.log"
  echo "alertmanager log:"; tail -10 "$work/alertmanager.log"
  exit 1
fi
echo "all alertmanager e2e checks passed"
