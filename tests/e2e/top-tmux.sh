#!/usr/bin/env bash
# `netquality top` driven in tmux, as an engineer would use it: the agent runs its loopback
# demo call, top shows the peer row; a sort key changes the header; q quits.
#
#   tests/e2e/top-tmux.sh      (root, for the capture on lo; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP top in tmux: the agent's capture on lo needs root"
  exit 0
fi
scripts/bootstrap.sh tmux
swift build --product netquality >/dev/null
netquality=$PWD/.build/debug/netquality
port=19476
socket=nqtop$$
log=$(mktemp)
"$netquality" run --demo --listen "127.0.0.1:$port" 2>"$log" &
agent=$!
cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  kill "$agent" 2>/dev/null || true
  wait "$agent" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT

# Polls the pane until it shows $1 (a regular expression), for up to $2 seconds.
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    tmux -L "$socket" capture-pane -p -t top 2>/dev/null | grep -qE "$1" && return 0
    sleep 0.2
  done
  echo "FAIL: the screen never showed '$1'; it shows:"
  tmux -L "$socket" capture-pane -p -t top 2>/dev/null || true
  return 1
}

tmux -L "$socket" new-session -d -s top -x 120 -y 30 \
  "NO_COLOR=1 $netquality top --url http://127.0.0.1:$port --refresh 1; sleep 5"
wait_for 'sort: level' 10
echo "ok   top started"
wait_for '^127\.0\.0\.2 +connected +(excellent|good) ' 20
echo "ok   the demo peer's row: $(tmux -L "$socket" capture-pane -p -t top | grep '^127.0.0.2')"
tmux -L "$socket" send-keys -t top j
wait_for 'sort: jitter' 5
echo "ok   j sorts by jitter"
tmux -L "$socket" send-keys -t top / 1 2 7 . 9 Enter
wait_for 'filter: 127\.9' 5
if tmux -L "$socket" capture-pane -p -t top | grep -q '^127\.0\.0\.2'; then
  echo "FAIL: the filter 127.9 still shows 127.0.0.2"
  exit 1
fi
echo "ok   / filters the peers"
tmux -L "$socket" send-keys -t top q
# After q, top restores the screen and the shell's 'sleep 5' holds the pane: the view is gone.
deadline=$((SECONDS + 5))
while tmux -L "$socket" capture-pane -p -t top | grep -q 'sort: '; do
  [ $SECONDS -lt $deadline ] || { echo "FAIL: q did not quit"; exit 1; }
  sleep 0.2
done
echo "ok   q quits"
echo "top in tmux: 4 passed, 0 failed"
