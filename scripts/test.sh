#!/usr/bin/env bash
# Everything CI runs (`make test`, called by .ci/run), stage by stage, each with a deadline:
# a stage that overruns is stopped (SIGINT, then SIGTERM, then SIGKILL on its whole process
# group) and fails naming itself. Prints each stage's duration as it ends and a summary at the
# end; the whole run has a budget (TEST_BUDGET_SECONDS, default 40 minutes, the CI limit).
#
#   scripts/test.sh [STAGE...]      (default: every stage, in order)
set -uo pipefail
cd "$(dirname "$0")/.."
source e2e/lib.sh

budget=${TEST_BUDGET_SECONDS:-2400}
# name, seconds, command. Budgets are generous for a first build on 2 cores (debug ~3 min,
# release ~5 min) and add up to more than the whole budget: what is left of the budget caps
# every stage too.
stages=(
  "bootstrap|600|scripts/bootstrap.sh"
  "build|1200|swift build --build-tests"
  "unit-tests|900|swift test --disable-swift-testing"
  "lint|300|make --no-print-directory lint"
  "allocations|600|scripts/check-allocations.sh"
  "e2e-impair-relay|300|e2e/impair-relay-check.sh"
  "e2e-stamp-wire-safety|300|e2e/stamp-wire-safety.sh"
  "e2e-probes-truth|420|e2e/probes-truth.sh"
  "e2e-history-crash|360|e2e/history-crash.sh"
  "e2e-history-faults|300|e2e/history-faults.sh"
  "e2e-real-traffic|600|e2e/real-traffic.sh"
  "e2e-agent-prometheus|300|e2e/agent-prometheus.sh"
  "e2e-prometheus-kit|240|e2e/prometheus-kit.sh"
  "e2e-fleet|240|e2e/fleet.sh"
  "e2e-agent-alertmanager|180|e2e/agent-alertmanager.sh"
  "e2e-alerts|300|e2e/alerts.sh"
  "e2e-http-limits|300|e2e/http-limits.sh"
  "e2e-hostile|240|e2e/hostile.sh"
  "e2e-web-security|300|e2e/web-security.sh"
  "e2e-top-tmux|180|e2e/top-tmux.sh"
  "e2e-on-call-views|180|e2e/on-call-views.sh"
  "e2e-real-clients-sip|420|e2e/real-clients-sip.sh"
  "e2e-calls-sipp|300|e2e/calls-sipp.sh"
  "e2e-real-clients-webrtc|360|e2e/real-clients-webrtc.sh"
  "e2e-media-truth|480|e2e/media-truth.sh"
  "install|900|scripts/check-install.sh"
  # 1,000 targets at 20/s is a claim about the release build (a debug agent on a slow 2-core
  # machine missed 42,192 sends): the binary `make install` built.
  "e2e-probes-scale|300|env NETQUALITY_RELEASE=1 e2e/probes-scale.sh"
  "e2e-systemd-unit|600|e2e/systemd-unit.sh"
  "fuzz|600|scripts/fuzz.sh ${FUZZ_SECONDS:-60}"
)

selected=("$@")
started=$(date +%s)
summary=()
failed=()
wanted() { [ ${#selected[@]} -eq 0 ] || [[ " ${selected[*]} " == *" $1 "* ]]; }

# The release build `install` checks takes 5 to 6 minutes of both cores: it runs in the
# background from the end of the debug build, at the lowest CPU priority, so it takes what
# the end-to-end stages leave idle (they mostly wait on their clients' phases) and never
# competes with a stage that measures; the install stage waits for it (its own deadline still
# holds). Without it the run no longer fits its budget on a fresh machine.
release=""
release_log=.build/install-build.log
start_release_build() {
  [ -z "$release" ] && wanted install || return 0
  setsid nice -n 19 make --no-print-directory install-build >"$release_log" 2>&1 &
  release=$!
  release_started=$(date +%s)
  # A session of its own is a scheduling group of its own (sched_autogroup): without its group's
  # nice at 19 too, the build got an equal share with the stage beside it whatever its own nice
  # (a CI run saw the 1,000-target probe loop miss 41,507 sends).
  # Only once it leads its session: before, its group is still this script's.
  in_own_session() { [ "$(ps -o sid= -p "$release" | tr -d ' ')" = "$release" ]; }
  if wait_until 5 "the release build's own session" in_own_session >/dev/null; then
    echo 19 >"/proc/$release/autogroup" 2>/dev/null || true
  fi
  echo "=== release build for install started in the background (log: $release_log)"
}
stop_release_build() {
  [ -n "$release" ] && alive "$release" || return 0
  for signal in INT TERM KILL; do
    kill -s "$signal" -- "-$release" 2>/dev/null || true
    wait_exit "$STOP_GRACE" "$release" && break
  done
}
trap stop_release_build EXIT

for stage in "${stages[@]}"; do
  IFS='|' read -r name seconds command <<<"$stage"
  if ! wanted "$name"; then continue; fi
  if [[ $command == e2e/* ]] && [ ! -e "${command%% *}" ]; then continue; fi
  if [ "$name" = install ] && [ -n "$release" ]; then
    # Its deadline is the install stage's: whatever is left is built by `make install` itself.
    wait_exit "$seconds" "$release" || true
    wait "$release" 2>/dev/null && verdict=done || verdict="failed (make install builds again)"
    echo "=== release build: $verdict, $(($(date +%s) - release_started)) s after it started"
  fi
  left=$((budget - ($(date +%s) - started)))
  if [ "$left" -le 0 ]; then
    summary+=("$(printf '%-22s %-9s %6s' "$name" "not run" "-")")
    failed+=("$name (the ${budget} s budget was spent)")
    continue
  fi
  [ "$seconds" -le "$left" ] || seconds=$left
  echo "=== $name (up to $seconds s): $command"
  stage_start=$(date +%s.%N)
  # shellcheck disable=SC2086  # the command is words on purpose
  run_for "$seconds" $command
  status=$?
  elapsed=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$stage_start" "$(date +%s.%N)")
  case $status in
    0) verdict=passed ;;
    124) verdict="timed out"; failed+=("$name (stopped after its $seconds s)") ;;
    *) verdict=failed; failed+=("$name (exit $status)") ;;
  esac
  echo "=== $name: $verdict in $elapsed s"
  summary+=("$(printf '%-22s %-9s %6s' "$name" "$verdict" "$elapsed")")
  # Nothing after a failed build or bootstrap can run.
  if [ "$status" -ne 0 ] && { [ "$name" = build ] || [ "$name" = bootstrap ]; }; then break; fi
  if [ "$name" = build ] && [ "$status" -eq 0 ]; then
    export NETQUALITY_BUILT=1
    start_release_build
  fi
done

echo
printf '%-22s %-9s %6s\n' STAGE RESULT SECONDS
printf '%s\n' "${summary[@]}"
echo "total: $(($(date +%s) - started)) s of a ${budget} s budget"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'netquality: error: test stage failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
