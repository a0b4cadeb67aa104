#!/usr/bin/env bash
# End to end of the live agent: a GStreamer G.711 call with RTCP both ways between two network
# namespaces, `netquality run` capturing live on the receiver's veth, and a real Prometheus
# (Debian's package) scraping it every second, all inside the receiver's namespace on its
# loopback. Checks: promtool finds nothing wrong with a scrape; Prometheus sees the peer at rx
# level 1; 10 % random loss for 10 s (nftables on the sender's egress, counted there) gives
# exactly the dropped packets as the agent's lost packets; a 15 s full drop makes the agent
# report disconnected 12 s ± 2 s after the drop began and Prometheus see level 6, then
# recovery, with the lost packets again equal to the drops; the dashboard file shows the
# transitions; pcap_stats counters are exported. Every wait has a deadline (lib.sh).
#
#   e2e/prometheus/agent-prometheus.sh      (root; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."

source e2e/lib.sh
skip_without_namespaces "e2e agent" "network namespaces, nftables and live capture"
scripts/bootstrap.sh gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-ugly nftables iproute2 prometheus python3
build_product netquality
netquality=$PWD/.build/debug/netquality

tag=nqp$$
subnet=10.202.0
source e2e/netns.sh
in_receiver() { ip netns exec "$receiver" "$@"; }

# The agent, live on the receiver's veth, started as exporters are (the exporter-toolkit's flag
# names, JSON logs at debug, the lifecycle API on).
cat >"$work/netquality.yaml" <<YAML
storage_path: $work/history.db
YAML
spawn ip netns exec "$receiver" "$netquality" run --interface "${tag}vb" --local 10.202.0.2/32 \
  --config.file "$work/netquality.yaml" --web.listen-address 127.0.0.1:19471 \
  --log.format=json --log.level=debug --web.enable-lifecycle \
  --dashboard "$work/dashboard.txt" 2>"$work/agent.log"
pids+=($!)

# Prometheus scraping it every second.
cat >"$work/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: netquality
    static_configs: [{targets: ["127.0.0.1:19471"]}]
YAML
spawn ip netns exec "$receiver" prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address=127.0.0.1:19090 >"$work/prometheus.log" 2>&1
pids+=($!)

cat >"$work/nq_probe.py" <<'PY'
import json, sys, time, urllib.parse, urllib.request
def get(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()
def wait_ready(url, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if get(url)[0] == 200: return True
        except Exception:
            pass
        time.sleep(0.2)
    return False
def query(expression):
    url = "http://127.0.0.1:19090/api/v1/query?" + urllib.parse.urlencode({"query": expression})
    result = json.loads(get(url)[1])["data"]["result"]
    return [float(r["value"][1]) for r in result]
def wait_value(expression, wanted, seconds):
    deadline = time.time() + seconds
    seen = None
    while time.time() < deadline:
        try:
            seen = query(expression)
            if seen and seen[0] == wanted: return True, seen
        except Exception as error:
            seen = str(error)
        time.sleep(0.25)
    return False, seen
command = sys.argv[1]
if command == "ready":
    sys.exit(0 if wait_ready(sys.argv[2], float(sys.argv[3])) else 1)
if command == "metrics":
    print(get("http://127.0.0.1:19471/metrics")[1], end="")
if command == "value":
    # The value of one series on the agent's /metrics, e.g. name{labels}.
    for line in get("http://127.0.0.1:19471/metrics")[1].splitlines():
        if line.startswith(sys.argv[2] + " "):
            print(line.split()[-1])
if command == "wait":
    ok, seen = wait_value(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    print(f"{sys.argv[2]} = {seen}")
    sys.exit(0 if ok else 1)
PY
http() { in_receiver python3 "$work/nq_probe.py" "$@"; }

http ready http://127.0.0.1:19471/-/ready 30 || { cat "$work/agent.log"; exit 1; }
http ready http://127.0.0.1:19090/-/ready 60 || { cat "$work/prometheus.log"; exit 1; }

spawn_call_receiver "$work/receiver.log"
pids+=($!)
spawn_call_sender "$work/sender.log"
pids+=($!)


peer='peer="10.202.0.1"'
check "Prometheus sees rx level 1 (excellent)" \
  http wait "netquality_peer_quality_level{$peer,direction=\"rx\"}" 1 40
http metrics >"$work/scrape.txt"
check "promtool check metrics is clean on a scrape" promtool check metrics <"$work/scrape.txt"
check "pcap_stats received counter exported" \
  grep -qE "^netquality_capture_received_packets_total\{interface=\"${tag}vb\"\} [1-9]" "$work/scrape.txt"
check "pcap_stats drop counter exported" \
  grep -qE "^netquality_capture_dropped_packets_total\{interface=\"${tag}vb\"\} [0-9]+" "$work/scrape.txt"

# The sender's egress counts every RTP packet it drops into a named counter (nft -f: each
# change is one transaction). The agent's lost packets must equal it exactly once a tick has
# closed after the last drop and a packet has arrived after it.
nft_sender add counter netdev nqloss dropped
set_drop() {  # rules for RTP (port 5004) and RTCP (5005), or none
  printf '%s\n' "flush chain netdev nqloss egress" "$@" | nft_sender -f -
}
dropped() {
  nft_sender -j list counter netdev nqloss dropped \
    | python3 -c 'import json, sys; print([e["counter"]["packets"] for e in json.load(sys.stdin)["nftables"] if "counter" in e][0])'
}
lost_agrees() {  # true once the agent's lost packets equal the drops
  [ "$(http value "netquality_peer_lost_packets_total{$peer}")" = "$(dropped)" ]
}
set_drop 'add rule netdev nqloss egress udp dport 5004 numgen random mod 100 < 10 counter name "dropped" drop'
sleep 10  # the loss phase's length: the experiment, not a wait for an event
set_drop
wait_until 10 "the agent's lost packets to equal the $(dropped) dropped" lost_agrees || true
check "10 % random loss: lost packets = dropped ($(http value "netquality_peer_lost_packets_total{$peer}") = $(dropped))" \
  lost_agrees

# A 15 s full drop on the sender's egress.
drop_start=$(date +%s.%N)
set_drop 'add rule netdev nqloss egress udp dport 5004 counter name "dropped" drop' \
  'add rule netdev nqloss egress udp dport 5005 drop'
check "Prometheus sees level 6 (down) during the outage" \
  http wait "netquality_peer_quality_level{$peer,direction=\"rx\"}" 6 20
sleep "$(python3 -c "import time; print(max(0, 15 - (time.time() - $drop_start)))")"  # the outage's length
set_drop
check "Prometheus sees the peer connected again" \
  http wait "netquality_peer_connection_state{$peer,state=\"connected\"}" 1 15
wait_until 10 "the agent's lost packets to equal the $(dropped) dropped" lost_agrees || true
check "after the outage: lost packets = dropped ($(http value "netquality_peer_lost_packets_total{$peer}") = $(dropped))" \
  lost_agrees

# The sender's link goes down: the receiver's veth loses carrier, and the agent marks the peer
# down at the next tick instead of after 12 s of silence.
ip -n "$sender" link set "${tag}va" down
link_down=$(date +%s.%N)  # the carrier is down once ip returns
# That it came from the link and at the next tick, not from 12 s of silence, is checked on the
# dashboard below (the agent's own record); here only that Prometheus sees it, well before 12 s.
check "Prometheus sees level 6 after the link went down" \
  http wait "netquality_peer_quality_level{$peer,direction=\"rx\"}" 6 10
check "netquality_link_up is 0 for the interface" http wait "netquality_link_up{interface=\"${tag}vb\"}" 0 10
echo "     link down to level 6 in $(python3 -c "import time; print(round(time.time() - $link_down, 1))") s"
# The dashboard's sink writes a tick's frame after /metrics has it: wait for the first frame
# stamped after the link went down (below) before reading the file, the link still down (up
# before that tick, the peer is rightly connected again in it).
frame_after_link_down() {
  python3 - "$work/dashboard.txt" "$link_down" <<'PY'
import datetime, re, sys
text = open(sys.argv[1]).read()
stamps = [datetime.datetime.strptime(f.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ")
          .replace(tzinfo=datetime.timezone.utc).timestamp()
          for f in re.split(r"^=== ", text, flags=re.M)[1:] if f.split()]
sys.exit(0 if any(t > float(sys.argv[2]) + 0.4 for t in stamps) else 1)
PY
}
wait_until 10 "the dashboard's first frame after the link went down" frame_after_link_down || true
ip -n "$sender" link set "${tag}va" up

python3 - "$work/dashboard.txt" "$drop_start" "$link_down" <<'PY' || failures=$((failures + 1))
import datetime, re, sys
text = open(sys.argv[1]).read()
drop = float(sys.argv[2])
def times(kind):
    found = re.findall(r"^(\S+)\s+10\.202\.0\.1\s+\*\* " + kind, text, re.M)
    return [datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp() for t in found]
failed = 0
disconnected = times("disconnected")
after = disconnected[0] - drop if disconnected else None
ok = after is not None and abs(after - 12) <= 2
print(("ok   " if ok else "FAIL ") + f"dashboard: disconnected {after if after is None else round(after, 2)} s after the drop began (12 s ± 2 s)")
failed += not ok
# The first tick after the agent can have seen the link go down already has the peer down
# (level 6). argv[3] is when `ip link set down` returned; the capture loop reads the link state
# once per 200 ms poll (CaptureService.pollMilliseconds), and a poll that began just before can
# wait its 200 ms for packets first: so the first tick boundary 0.4 s after it.
seen_within = 0.4
def stamp(t):
    return datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()
frames = []
for frame in re.split(r"^=== ", text, flags=re.M)[1:]:
    # The peer's row: its rx level first, its state and the state's age last.
    row = re.search(r"^10\.202\.0\.1\s+(\S+)\s+\S+.*\s(\S+)\s+(\S+)$", frame, re.M)
    frames.append((stamp(frame.split()[0]), row.groups() if row else None, frame))
link_down = float(sys.argv[3])
after = [(t, row, frame) for t, row, frame in frames if t > link_down + seen_within]
ok = bool(after) and after[0][1] is not None and after[0][1][:2] == ("down", "disconnected")
print(("ok   " if ok else "FAIL ") + "dashboard: the first tick after the link went down has the peer "
      + (f"{after[0][1][0]}, {after[0][1][1]} ({after[0][0] - link_down:.2f} s after)" if after and after[0][1] else "missing"))
if not ok:
    print(f"     {len(frames)} frames, {len(after)} after the link went down; the first of them:")
    print("     " + (after[0][2] if after else "(none)").replace("\n", "\n     "))
failed += not ok
for kind in ("interrupted", "recovered"):
    ok = len(times(kind)) >= 1
    print(("ok   " if ok else "FAIL ") + f"dashboard shows {kind}")
    failed += not ok
sys.exit(1 if failed else 0)
PY
# POST /-/reload, as Prometheus' lifecycle API: the file's new rule applied; a broken file
# refused with its problem, the running configuration kept; the next good file applied.
cat >"$work/reload.py" <<'PY'
import json, sys, urllib.error, urllib.request
def call(method, path):
    request = urllib.request.Request("http://127.0.0.1:19471" + path, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
status, body = call(sys.argv[1], sys.argv[2])
print(status)
print(body)
PY
reload() {  # expected status, then what the body must contain
  local answer
  answer=$(in_receiver python3 "$work/reload.py" POST /-/reload)
  [ "$(head -1 <<<"$answer")" = "$1" ] && grep -q -- "$2" <<<"$answer" \
    || { echo "     POST /-/reload answered: $answer"; return 1; }
}
status_has() {
  local answer
  answer=$(in_receiver python3 "$work/reload.py" GET /api/v1/status)
  grep -q -- "$1" <<<"$answer"
}
metric_is() { [ "$(http value "$1")" = "$2" ]; }
cat >>"$work/netquality.yaml" <<'YAML'
alerts:
  rules:
    - {name: e2e_reload_rule, metric: rx_loss_ratio, threshold: 0.5}
YAML
check "POST /-/reload applies a new rule: 200" reload 200 "reloaded"
check "the running configuration has it (/api/v1/status)" status_has '"e2e_reload_rule"'
cp "$work/netquality.yaml" "$work/netquality.good"
echo "tick_interval: soon" >>"$work/netquality.yaml"
check "a broken file: 500 with its problem" reload 500 "tick_interval"
check "the running configuration kept" status_has '"e2e_reload_rule"'
check "netquality_config_last_reload_successful 0" metric_is netquality_config_last_reload_successful 0
cp "$work/netquality.good" "$work/netquality.yaml"
check "the next good file: 200" reload 200 "reloaded"
check "netquality_config_last_reload_successful 1" metric_is netquality_config_last_reload_successful 1
# The log: one JSON object a line, debug lines among them.
check "every log line is a JSON object with time, level and msg" python3 -c '
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
sys.exit(0 if lines and all({"time", "level", "msg"} <= set(l) for l in lines) else 1)' "$work/agent.log"
check "--log.level=debug: debug lines logged" grep -q '"level":"DEBUG"' "$work/agent.log"

if [ "$failures" -ne 0 ]; then
  echo "agent log:"; tail -20 "$work/agent.log"
  exit 1
fi
echo "all agent e2e checks passed"
