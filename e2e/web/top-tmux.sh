#!/usr/bin/env bash
# `netquality top` driven in tmux, as an engineer would use it: the agent runs its loopback
# demo call, top shows the peer row; a sort key changes the header; q quits. Both run in a
# network namespace of their own, so the demo's fixed loopback ports never meet another run's.
#
#   e2e/web/top-tmux.sh      (root, for the namespace and the capture; skips otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
skip_without_namespaces "top in tmux" "a network namespace and the agent's capture on lo"
scripts/bootstrap.sh tmux iproute2
build_product netquality
netquality=$PWD/.build/debug/netquality
port=19476
socket=nqtop$$
namespace=nqtop$$
log=$(mktemp)
ip netns add "$namespace"
ip -n "$namespace" link set lo up
spawn ip netns exec "$namespace" "$netquality" run --demo --listen "127.0.0.1:$port" 2>"$log"
agent=$!
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  stop_process "$agent"
  ip netns del "$namespace" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT

shows() { tmux -L "$socket" capture-pane -p -t top 2>/dev/null | grep -qE "$1"; }

# Polls the pane until it shows $1 (a regular expression), for up to $2 seconds.
wait_for() {
  wait_until "$2" "the screen to show '$1'" shows "$1" && return 0
  echo "     it shows:"
  tmux -L "$socket" capture-pane -p -t top 2>/dev/null || true
  return 1
}

ip netns exec "$namespace" tmux -L "$socket" new-session -d -s top -x 120 -y 30 \
  "NO_COLOR=1 $netquality top --url http://127.0.0.1:$port --refresh 1; sleep 30"
wait_for 'sort: level' 10
echo "ok   top started"
wait_for '^127\.0\.0\.2 +connected +(excellent|good) ' 20
echo "ok   the demo peer's row: $(tmux -L "$socket" capture-pane -p -t top | grep '^127.0.0.2')"
tmux -L "$socket" send-keys -t top j
wait_for 'sort: jitter' 5
echo "ok   j sorts by jitter"
tmux -L "$socket" send-keys -t top / 1 2 7 . 9 Enter
# Applied, not still being typed ("filter: 127.9_" is the prompt): a CI run read the prompt and
# the rows of before the Enter.
wait_for 'filter: 127\.9( |$)' 5
demo_row_gone() { ! shows '^127\.0\.0\.2'; }
if ! wait_until 5 "the filter 127.9 to hide 127.0.0.2" demo_row_gone; then
  echo "FAIL: the filter 127.9 still shows 127.0.0.2"
  exit 1
fi
echo "ok   / filters the peers"
tmux -L "$socket" send-keys -t top q
# After q, top restores the screen and the shell's 'sleep 30' holds the pane: the view is gone.
wait_until 5 "q to close the view" bash -c "! tmux -L $socket capture-pane -p -t top | grep -q 'sort: '" \
  || exit 1
echo "ok   q quits"
echo "top in tmux: 4 passed, 0 failed"
