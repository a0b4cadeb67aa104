#!/usr/bin/env bash
# Crash safety of the SQLite history: the agent writes a tick every 0.25 s for 300 peers
# (RTP from 300 loopback addresses, captured on lo) and is killed with SIGKILL at a random
# moment, RUNS times (default 21: 20 SIGKILLs, then a clean SIGTERM that must lose nothing). After every kill the file must open, `PRAGMA
# integrity_check` must say ok, and of the ticks the agent produced before it died (its
# dashboard file has a frame per tick, written before the tick is handed to the history) at
# most the last may be missing from the file: the truth is the agent's own output, never the
# wall clock.
#
#   e2e/history/history-crash.sh [RUNS]     (root: captures on lo; skips with a reason otherwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
source e2e/lib.sh
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP history crash safety: needs root to capture on lo"
  exit 0
fi
runs=${1:-21}
scripts/bootstrap.sh gcc python3 curl
build_product netquality
netquality=$PWD/.build/debug/netquality
work=$(mktemp -d /tmp/nq-history-crash.XXXXXX)
port=$((19600 + RANDOM % 200))
dport=$((41100 + RANDOM % 200))
cc -O2 -o "$work/rtp-load" scripts/bench/rtp-load.c

load=""
agent=""
cleanup() {
  stop_process $agent $load
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/agent.yaml" <<EOF
interfaces: [lo]
bpf_filter: "udp dst port $dport"
local_networks: [127.0.0.1/32]
tick_interval: 0.25
listen: 127.0.0.1:$port
dashboard_file: $work/dashboard.txt
storage_path: $work/history.db
EOF

# 300 streams for as long as the runs may take; killed at the end.
"$work/rtp-load" 300 3600 "$dport" >"$work/load.log" 2>&1 &
load=$!

# RANDOM seeded so a failure can be replayed: the kill moments are printed too.
RANDOM=$$
echo "     seed $$"
for run in $(seq 1 "$runs"); do
  : >"$work/dashboard.txt"
  spawn "$netquality" run --config "$work/agent.yaml" 2>"$work/agent-$run.log"
  agent=$!
  wait_until 60 "run $run: the agent ready" curl -sf --max-time 2 "http://127.0.0.1:$port/-/ready" \
    || { cat "$work/agent-$run.log"; exit 1; }
  # Writing at full rate: the run's peers are in the ticks being written.
  wait_until 30 "run $run: ticks with peers in the history" python3 -c "
import sqlite3, sys
db = sqlite3.connect('file:$work/history.db?mode=ro', uri=True, timeout=5)
run = db.execute('SELECT max(id) FROM runs').fetchone()[0]
n = db.execute('SELECT count(*) FROM ticks WHERE run_id = ? AND peers >= 250', (run,)).fetchone()[0]
sys.exit(0 if n >= 2 else 1)" || { cat "$work/agent-$run.log"; exit 1; }
  delay=$(python3 -c "import random; random.seed($RANDOM); print(round(random.uniform(0.05, 1.5), 3))")
  sleep "$delay"
  # The last run stops cleanly (SIGTERM): then not even the last tick may be missing.
  signal=KILL
  [ "$run" -eq "$runs" ] && signal=TERM
  kill -s "$signal" "$agent"
  wait_exit 15 "$agent" || { echo "FAIL run $run: the agent did not exit on SIG$signal"; exit 1; }
  wait "$agent" 2>/dev/null || true
  agent=""
  python3 - "$work/history.db" "$work/dashboard.txt" "$run" "$delay" "$signal" <<'PY'
import re, sqlite3, sys
path, dashboard, run, delay, signal = sys.argv[1:6]
db = sqlite3.connect(path, timeout=5)
check = db.execute("PRAGMA integrity_check").fetchall()
assert check == [("ok",)], f"run {run}: integrity_check says {check}"
run_id = db.execute("SELECT max(id) FROM runs").fetchone()[0]
stored = {round(t * 1000) for (t,) in db.execute("SELECT time FROM ticks WHERE run_id = ?", (run_id,))}
frames = []
with open(dashboard) as f:
    for line in f:
        m = re.match(r"=== (\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z", line)
        if m:
            import calendar
            y, mo, d, h, mi, s, ms = map(int, m.groups())
            frames.append(calendar.timegm((y, mo, d, h, mi, s)) * 1000 + ms)
assert frames, f"run {run}: no dashboard frame"
missing = sorted(set(frames) - stored)
allowed = [[]] if signal == "TERM" else [[], [frames[-1]]]
assert missing in allowed, (
    f"run {run}: {len(missing)} ticks of {len(frames)} missing from the history after "
    f"SIG{signal} (allowed: {'none' if signal == 'TERM' else 'only the last'}): {missing[:5]}")
extra = stored - set(frames)
assert not extra, f"run {run}: ticks in the history the agent never showed: {sorted(extra)[:5]}"
rows = db.execute("SELECT count(*) FROM peer_ticks WHERE time * 1000 >= ?", (frames[0] - 1,)).fetchone()[0]
print(f"     run {run}: SIG{signal} after {delay} s more; {len(frames)} ticks shown, "
      f"{len(stored)} stored ({len(missing)} missing), {rows} peer rows, integrity ok")
PY
done
echo "PASS history crash safety: $((runs - 1)) SIGKILLs and a SIGTERM while writing, every file intact, at most the last tick missing (none after SIGTERM)"
