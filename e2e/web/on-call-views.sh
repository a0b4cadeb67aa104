#!/usr/bin/env bash
# What an on-call sees during an outage (issue 26, item 4): the agent's demo call in a network
# namespace of its own, cut by nftables on lo; once the agent says the peer is disconnected and
# its alert fires, headless Chromium renders the status page (the DOM and a screenshot, kept
# under $NETQUALITY_ARTIFACTS or /tmp) and `netquality top` runs in tmux at 80 and at 140
# columns. Checked: the page lists the firing alert (rule, peer, age) and the latest events
# (interrupted, disconnected); top names the alerts firing, keeps PEER, STATE, RX, TX, MOS,
# RX LOSS, TX LOSS and RTT at 80 columns and adds JITTER and SOURCE at 140, and no line is
# wider than its terminal.
#
#   e2e/web/on-call-views.sh      (root, for the namespace, nftables and the capture)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "on-call views" "a network namespace, nftables and the capture on lo"
scripts/bootstrap.sh tmux iproute2 nftables chromium curl python3
build_product netquality
netquality=$PWD/.build/debug/netquality
port=19477
tag=nqoncall$$
namespace=$tag
socket=$tag
work=$(mktemp -d)
artifacts=${NETQUALITY_ARTIFACTS:-/tmp}/netquality-on-call-views
mkdir -p "$artifacts"
started=$(date +%s)
failures=0
verify() {  # condition's exit status, then what it means
  if [ "$1" -eq 0 ]; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi
}

ip netns add "$namespace"
ip -n "$namespace" link set lo up
# Disconnected after 6 s instead of 12 (the timers' only role here is to keep the stage short).
cat >"$work/netquality.yaml" <<EOF
timers:
  interrupted: 2
  disconnected: 6
  timeout: 600
storage_path: $work/history.db
EOF
spawn ip netns exec "$namespace" "$netquality" run --demo --config.file "$work/netquality.yaml" \
  --web.listen-address "127.0.0.1:$port" 2>"$work/agent.log"
agent=$!
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  stop_process "$agent"
  ip netns del "$namespace" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

api() { ip netns exec "$namespace" curl -s --max-time 5 "http://127.0.0.1:$port$1"; }
peer_state() {
  api /api/v1/peers | python3 -c '
import json, sys
peers = {p["peer"]: p for p in json.load(sys.stdin)["peers"]}
print(peers.get("127.0.0.2", {}).get("state", "absent"))' 2>/dev/null || echo unreachable
}
state_is() { [ "$(peer_state)" = "$1" ]; }
alert_firing() {
  api /api/v1/alerts | python3 -c '
import json, sys
alerts = json.load(sys.stdin)["alerts"]
sys.exit(0 if any(a["rule"] == "peer_disconnected" and a["labels"].get("peer") == "127.0.0.2"
                  for a in alerts) else 1)' 2>/dev/null
}

wait_until 30 "the demo peer to connect" state_is connected || exit 1
echo "ok   the demo peer is connected"
for width in 80 140; do
  ip netns exec "$namespace" tmux -L "$socket" new-session -d -s "top$width" -x "$width" -y 20 \
    "NO_COLOR=1 $netquality top --url http://127.0.0.1:$port --refresh 1; sleep 60"
done

# The outage: every packet of the demo call dropped on lo (both ends are 127.0.0.2 or send to it).
ip netns exec "$namespace" nft -f - <<'EOF'
table inet nqoncall {
  chain output {
    type filter hook output priority 0; policy accept;
    ip saddr 127.0.0.2 meta l4proto udp counter drop
    ip daddr 127.0.0.2 meta l4proto udp counter drop
  }
}
EOF
cut=$(date +%s.%N)
wait_until 30 "the peer to be disconnected" state_is disconnected || exit 1
wait_until 20 "peer_disconnected to fire" alert_firing || exit 1
fired=$(date +%s.%N)
echo "ok   disconnected and alerting $(python3 -c "print(round($fired - $cut, 1))") s after the cut"
dropped=$(ip netns exec "$namespace" nft list table inet nqoncall | grep -o 'packets [0-9]*' \
  | awk '{s += $2} END {print s}')
verify "$([ "${dropped:-0}" -gt 0 ] && echo 0 || echo 1)" "nftables dropped the call ($dropped packets)"

# The status page during the outage, as a browser renders it.
chromium_run() {  # output file, then chromium's options
  local out=$1
  shift
  run_for 60 ip netns exec "$namespace" chromium --headless --no-sandbox --disable-gpu \
    --user-data-dir="$work/chromium" "$@" >"$out" 2>"$work/chromium.err"
}
chromium_run "$work/dom.html" --dump-dom "http://127.0.0.1:$port/"
chromium_run /dev/null --window-size=1280,1400 \
  --screenshot="$artifacts/status-page-outage.png" "http://127.0.0.1:$port/"
python3 - "$work/dom.html" >"$work/page.txt" <<'EOF'
import html.parser, sys

class Tables(html.parser.HTMLParser):
    """The rows of the tables of class alerts and events, as lists of cell texts."""
    def __init__(self):
        super().__init__()
        self.table, self.rows, self.cell = None, {"alerts": [], "events": []}, None
    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class", "") or ""
        if tag == "table" and classes in self.rows:
            self.table = classes
        elif tag == "tr" and self.table:
            self.rows[self.table].append([])
        elif tag == "td" and self.table:
            self.cell = ""
    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "td" and self.table and self.cell is not None:
            self.rows[self.table][-1].append(self.cell.strip())
            self.cell = None
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

parser = Tables()
parser.feed(open(sys.argv[1]).read())
for kind, rows in parser.rows.items():
    for row in rows:
        if row:
            print(kind + "\t" + "\t".join(row))
EOF
grep -q $'^alerts\tpeer_disconnected\tcritical\t127.0.0.2\t[0-9]' "$work/page.txt"
verify $? "the status page lists the alert: $(grep -m1 $'^alerts\t' "$work/page.txt" | cut -f2-5 | tr '\t' ' ')"
grep -q $'^events\t[0-9][^\t]*\t127.0.0.2\tdisconnected' "$work/page.txt"
verify $? "its latest events: disconnected"
grep -q $'^events\t[0-9][^\t]*\t127.0.0.2\tinterrupted' "$work/page.txt"
verify $? "and interrupted before it"
size=$(stat -c %s "$artifacts/status-page-outage.png" 2>/dev/null || echo 0)
verify "$([ "$size" -gt 10000 ] && echo 0 || echo 1)" \
  "screenshot $artifacts/status-page-outage.png ($size bytes)"

# top at both widths, once it has drawn the disconnected row.
pane() { tmux -L "$socket" capture-pane -p -t "$1" 2>/dev/null; }
shows() { pane "$1" | grep -qE "$2"; }
for width in 80 140; do
  if ! wait_until 10 "top at $width columns to show the outage" shows "top$width" \
    '^127\.0\.0\.2 +disconnected'; then
    pane "top$width"
    failures=$((failures + 1))
    continue
  fi
  pane "top$width" >"$artifacts/top-$width.txt"
  header=$(grep -m1 '^PEER ' "$artifacts/top-$width.txt" || true)
  expected="STATE RX TX MOS RX_LOSS TX_LOSS RTT"
  [ "$width" = 140 ] && expected="$expected JITTER SOURCE"
  missing=""
  for column in $expected; do
    grep -q -- "${column/_/ }" <<<"$header" || missing="$missing ${column/_/ }"
  done
  verify "$([ -z "$missing" ] && echo 0 || echo 1)" \
    "top at $width columns: ${header//  / }${missing:+ (missing:$missing)}"
  if [ "$width" = 80 ]; then
    extra=$(grep -Eo 'JITTER|SOURCE' <<<"$header" | tr '\n' ' ' || true)
    verify "$([ -z "$extra" ] && echo 0 || echo 1)" "at 80 columns JITTER and SOURCE give way${extra:+ (shown: $extra)}"
  fi
  grep -q 'alerts [1-9]' "$artifacts/top-$width.txt"
  verify $? "top at $width columns counts the alerts firing: $(grep -o 'alerts [0-9]*' "$artifacts/top-$width.txt" | head -1)"
  widest=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$artifacts/top-$width.txt")
  verify "$([ "$widest" -le "$width" ] && echo 0 || echo 1)" "no line of top wider than $width ($widest)"
done

echo "the stage took $(($(date +%s) - started)) s; screenshot and panes in $artifacts"
if [ "$failures" -gt 0 ]; then
  echo "on-call views: $failures check(s) failed"
  exit 1
fi
echo "all on-call views checks passed"
