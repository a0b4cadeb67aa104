#!/usr/bin/env bash
# The HTTP server holds up like an exporter's: the agent runs its loopback demo call under a
# 1,024-descriptor limit (a common systemd default) in a network namespace of its own, and
#   1. 200 requests with a 1 MB URL or header, whose clients never close, leave its descriptor
#      count where it was;
#   2. 2,000 slowloris clients (reconnecting whenever closed, 200 new connections a second)
#      leave /metrics answering 200 within 10 s every second, the descriptors under the limit,
#      the demo peer up and lo's link up;
#   3. HEAD answers like GET without a body, OPTIONS with 204 and Allow.
#
#   e2e/hostile/http-limits.sh      (root, for the namespace and the capture; skips otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "HTTP limits" "a network namespace and the agent's capture on lo"
scripts/bootstrap.sh python3 iproute2 curl
build_product netquality
netquality=$PWD/.build/debug/netquality
port=19477
namespace=nqhttp$$
log=$(mktemp)
ip netns add "$namespace"
ip -n "$namespace" link set lo up
spawn ip netns exec "$namespace" bash -c \
  "ulimit -n 1024 && exec '$netquality' run --demo --listen 127.0.0.1:$port" 2>"$log"
launcher=$!
cleanup() {
  stop_process "$launcher"
  ip netns del "$namespace" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT

in_ns() { ip netns exec "$namespace" "$@"; }
fetch() { in_ns curl -sf --max-time 5 "$@" "http://127.0.0.1:$port$path"; }
demo_peer_shown() { path=/api/v1/peers fetch | grep -q '"peer":"127.0.0.2"'; }

if ! wait_until 60 "the demo peer in /api/v1/peers" demo_peer_shown; then
  cat "$log"
  exit 1
fi
agent=$(for p in $(descendants "$launcher"); do
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = netquality ] && echo "$p"; done | head -1)
limit=$(awk '/^Max open files/ {print $4}' "/proc/$agent/limits")
echo "ok   agent $agent up with the demo call; descriptor limit $limit"
[ "$limit" = 1024 ] || { echo "FAIL the agent's descriptor limit is $limit, not 1024"; exit 1; }

failed=0
run_for 120 ip netns exec "$namespace" python3 e2e/hostile/http_clients.py oversized \
  127.0.0.1 "$port" "$agent" 200 || failed=$((failed + 1))
run_for 120 ip netns exec "$namespace" bash -c "ulimit -n 8192 \
  && exec python3 e2e/hostile/http_clients.py slow 127.0.0.1 $port $agent 2000 30" \
  || failed=$((failed + 1))

# HEAD and OPTIONS on every path the agent serves.
methods_failed=0
for path in /metrics /-/healthy /-/ready / /api/v1/peers /api/v1/streams /api/v1/alerts \
  /api/v1/status; do
  head=$(fetch -I -o /dev/null -w '%{http_code} %{size_download}') || head="error"
  options=$(fetch -X OPTIONS -o /dev/null -D - | tr -d '\r' | grep -iE '^(HTTP|allow)' \
    | tr '[:upper:]' '[:lower:]' | paste -sd' ') || options="error"
  if [ "$head" != "200 0" ] || [[ $options != "http/1.1 204 no content allow: get, head, options" ]]; then
    echo "FAIL $path: HEAD '$head', OPTIONS '$options'"
    methods_failed=1
  fi
done
[ "$methods_failed" = 0 ] && echo "ok   HEAD: 200 with no body, OPTIONS: 204 with Allow, on 8 paths" \
  || failed=$((failed + 1))

if ! alive "$agent"; then
  echo "FAIL the agent exited:"
  cat "$log"
  failed=$((failed + 1))
fi
echo "HTTP limits: $((3 - failed)) passed, $failed failed"
[ "$failed" = 0 ]
