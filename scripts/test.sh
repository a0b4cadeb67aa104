#!/usr/bin/env bash
# Everything CI runs (`make test`, called by .ci/run), stage by stage, each with a deadline:
# a stage that overruns is stopped (SIGINT, then SIGTERM, then SIGKILL on its whole process
# group) and fails naming itself. Prints each stage's duration as it ends and a summary at the
# end; the whole run has a budget (TEST_BUDGET_SECONDS, default 40 minutes, the CI limit).
#
#   scripts/test.sh [STAGE...]      (default: every stage)
#
# The stages after the build run in three lanes at once, then a tail alone:
#   - host: the unit tests and every stage on the host's own loopback (their agents capture
#     `lo`, which the unit tests' agents and traffic use too), one after another;
#   - two lanes of end-to-end stages, each in network namespaces of its own (own loopback,
#     own ports, names unique by process id, nothing of the host's changed).
# The end-to-end stages spend most of their time waiting on their clients' phases (measured:
# e2e-real-traffic 7.9 CPU seconds in 137 s, e2e-probes-truth 30.7 in 90 s), so two of them
# and the unit tests share 2 cores; each was checked with both cores busy. A lane's stage
# prints its output when it ends, whole, so that the lanes' lines do not interleave. Each
# stage's line gives its CPU seconds too.
# The tail runs alone: e2e-hostile (scrapes within 1 s beside 200 password guessers) and
# e2e-media-truth (two browsers' own statistics, frame by frame), then, on
# the release build made in the background meanwhile, the install, the allocation count and
# e2e-probes-scale (a probe loop that must not miss a send), with the machine to themselves.
set -uo pipefail
cd "$(dirname "$0")/.."
source e2e/lib.sh

budget=${TEST_BUDGET_SECONDS:-2400}
# name, seconds, command. Budgets are generous for a first build on 2 cores and add up to more
# than the whole budget: what is left of the budget caps every stage too.
before=(
  "bootstrap|600|scripts/bootstrap.sh"
  "release-build"  # not a stage: install's build, started in the background
  "build|1200|swift build --build-tests"
)
# The build stage built the tests: `--skip-build` keeps the unit tests off the build lock.
host_lane=(
  "unit-tests|900|swift test --disable-swift-testing --skip-build"
  "lint|300|make --no-print-directory lint"
  "e2e-history-crash|360|e2e/history-crash.sh"
  "e2e-history-faults|300|e2e/history-faults.sh"
  "fuzz|600|scripts/fuzz.sh ${FUZZ_SECONDS:-60}"
)
# Split by their durations on a slow 2-core machine (about 500 s each; the host lane about 650).
lane_a=(
  "e2e-real-traffic|600|e2e/real-traffic.sh"
  "e2e-real-clients-webrtc|360|e2e/real-clients-webrtc.sh"
  "e2e-alerts|300|e2e/alerts.sh"
  "e2e-impair-relay|300|e2e/impair-relay-check.sh"
  "e2e-agent-prometheus|300|e2e/agent-prometheus.sh"
  "e2e-prometheus-kit|240|e2e/prometheus-kit.sh"
)
lane_b=(
  "e2e-real-clients-sip|420|e2e/real-clients-sip.sh"
  "e2e-probes-truth|420|e2e/probes-truth.sh"
  "e2e-calls-sipp|300|e2e/calls-sipp.sh"
  "e2e-stamp-wire-safety|300|e2e/stamp-wire-safety.sh"
  "e2e-http-limits|300|e2e/http-limits.sh"
  "e2e-fleet|240|e2e/fleet.sh"
  "e2e-agent-alertmanager|180|e2e/agent-alertmanager.sh"
  "e2e-web-security|300|e2e/web-security.sh"
  "e2e-on-call-views|180|e2e/on-call-views.sh"
  "e2e-top-tmux|180|e2e/top-tmux.sh"
)
after=(
  # Every scrape within 1 s beside 200 password guessers: the agent's latency with the cores to
  # itself and its attackers (in a lane, beside the unit tests and another stage each in a
  # scheduling group of its own, one scrape took 1.11 s). The release build still going on
  # beside it is at the lowest priority. It needs only the debug build, so it goes first.
  "e2e-hostile|240|e2e/hostile.sh"
  # Two Chromiums' getStats() and tshark against the agent tick by tick, freeze by freeze: in
  # a lane it failed in three of five CI runs, a different check each time (two checks since
  # corrected, and an agent bug since fixed: frames whose only copy came as a repeat ahead of
  # the media), so it runs here, on the debug build, while the release build ends beside it.
  "e2e-media-truth|480|e2e/media-truth.sh"
  "install|900|scripts/check-install.sh"
  # Its benchmark is built on install's release build (only its own module is compiled).
  "allocations|600|scripts/check-allocations.sh"
  # 1,000 targets at 20/s is a claim about the release build (a debug agent on a slow 2-core
  # machine missed 42,192 sends): the binary `make install` built, on a machine otherwise idle.
  "e2e-probes-scale|300|env NETQUALITY_RELEASE=1 e2e/probes-scale.sh"
  "e2e-systemd-unit|600|e2e/systemd-unit.sh"
)

selected=("$@")
started=$(date +%s)
results=$(mktemp -d)
wanted() { [ ${#selected[@]} -eq 0 ] || [[ " ${selected[*]} " == *" $1 "* ]]; }

# The release build `install` checks (and the allocation check and e2e-probes-scale run) takes
# 6 to 25 minutes of both cores: it runs in the background from the start, at the lowest CPU
# priority, so it takes what the debug build and the lanes leave idle and never competes with a
# stage that measures; the install stage waits for it (its own deadline still holds).
release=""
release_log=.build-install/build.log
start_release_build() {
  [ -z "$release" ] && wanted install && [ -e "$results/bootstrap" ] || return 0
  mkdir -p "$(dirname "$release_log")"
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
# CPU seconds (user and system) of this shell's children reaped so far: a stage's whole tree
# once it is reaped (every end-to-end script waits for what it started). Not in $( ): a
# subshell's children are not this shell's.
children_cpu() {  # FILE: a scratch file of this shell's own
  times >"$1"
  tail -1 "$1" | awk '{
    split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

# Runs one stage: its command in a process group of its own with the stage's deadline (or what
# is left of the budget); the result goes to $results/NAME as "verdict|seconds|why".
current=""  # the running stage's process group, for a stop from outside
run_stage() {  # NAME SECONDS COMMAND...
  local name=$1 seconds=$2 left stage_start status verdict elapsed why cpu_start cpu
  shift 2
  left=$((budget - ($(date +%s) - started)))
  if [ "$left" -le 0 ]; then
    echo "not run|-|the ${budget} s budget was spent|-" >"$results/$name"
    return 1
  fi
  [ "$seconds" -le "$left" ] || seconds=$left
  stage_start=$(date +%s.%N)
  local scratch=$results/.times.$BASHPID
  children_cpu "$scratch" >"$scratch.cpu"
  cpu_start=$(cat "$scratch.cpu")
  echo "=== $name (up to $seconds s): $*"
  # A background job of a script starts with SIGINT ignored; the stage gets it back so that
  # the first signal of the escalation can end it gracefully (traps run, captures flush).
  setsid env --default-signal=INT "$@" &
  current=$!
  if wait_exit "$seconds" "$current"; then
    wait "$current" && status=0 || status=$?
  else
    echo "FAIL timed out after $seconds s: $*"
    stop_group "$current"
    wait "$current" 2>/dev/null || true
    status=124
  fi
  current=""
  elapsed=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$stage_start" "$(date +%s.%N)")
  case $status in
    0) verdict=passed why="" ;;
    124) verdict="timed out" why="stopped after its $seconds s" ;;
    *) verdict=failed why="exit $status" ;;
  esac
  children_cpu "$scratch" >"$scratch.cpu"
  cpu=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$cpu_start" "$(cat "$scratch.cpu")")
  echo "=== $name: $verdict in $elapsed s (CPU $cpu s)"
  echo "$verdict|$elapsed|$why|$cpu" >"$results/$name"
  [ "$status" -eq 0 ]
}

# A lane: its stages one after another, each printed whole when it ends (under a lock, so
# that two lanes' stages never interleave).
run_lane() {  # STAGE...
  local stage name seconds command
  trap 'stop_group "$current"; exit 143' TERM
  for stage in "$@"; do
    IFS='|' read -r name seconds command <<<"$stage"
    wanted "$name" || continue
    if [[ $command == e2e/* ]] && [ ! -e "${command%% *}" ]; then continue; fi
    # shellcheck disable=SC2086  # the command is words on purpose
    run_stage "$name" "$seconds" $command >"$results/$name.log" 2>&1
    flock "$results/.print" cat "$results/$name.log"
  done
}

run_in_order() {  # STAGE...: straight through, output as it comes
  local stage name seconds command
  for stage in "$@"; do
    IFS='|' read -r name seconds command <<<"$stage"
    if [ "$name" = release-build ]; then
      start_release_build
      continue
    fi
    wanted "$name" || continue
    if [[ $command == e2e/* ]] && [ ! -e "${command%% *}" ]; then continue; fi
    if [ "$name" = install ] && [ -n "$release" ]; then
      # Its deadline is the install stage's: whatever is left is built by `make install` itself.
      wait_exit "$seconds" "$release" || true
      if wait "$release" 2>/dev/null; then
        verdict=done
        # The stages after skip their own `make install-build` with nothing left to do.
        export NETQUALITY_INSTALL_BUILT=1
      else
        verdict="failed (make install builds again)"
      fi
      echo "=== release build: $verdict, $(($(date +%s) - release_started)) s after it started"
    fi
    # shellcheck disable=SC2086  # the command is words on purpose
    run_stage "$name" "$seconds" $command && continue
    # Nothing after a failed build or bootstrap can run.
    case $name in bootstrap | build) return 1 ;; esac
  done
}

lanes=()
stop_all() {
  local lane
  stop_group "$current"
  for lane in "${lanes[@]}"; do
    alive "$lane" && kill -TERM "$lane" 2>/dev/null
  done
  for lane in "${lanes[@]}"; do wait_exit $((3 * STOP_GRACE + 5)) "$lane" || kill -KILL "$lane"; done
  stop_group "$release"
  rm -rf "$results"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if run_in_order "${before[@]}"; then
  [ -e "$results/build" ] && export NETQUALITY_BUILT=1
  for lane in host_lane lane_a lane_b; do
    declare -n stages_of=$lane
    run_lane "${stages_of[@]}" &
    lanes+=($!)
    unset -n stages_of
  done
  for lane in "${lanes[@]}"; do wait "$lane"; done
  lanes=()
  run_in_order "${after[@]}"
fi

echo
printf '%-24s %-9s %7s %7s\n' STAGE RESULT SECONDS CPU
failed=()
for stage in "${before[@]}" "${host_lane[@]}" "${lane_a[@]}" "${lane_b[@]}" "${after[@]}"; do
  name=${stage%%|*}
  [ "$name" != release-build ] && wanted "$name" || continue
  if [ -e "$results/$name" ]; then
    IFS='|' read -r verdict seconds why cpu <"$results/$name"
  else
    verdict="not run" seconds=- why="" cpu=-
    # A stage a failed build kept from running, or one whose script is not here.
    command=${stage##*|}
    if [[ $command == e2e/* ]] && [ ! -e "${command%% *}" ]; then continue; fi
    why="an earlier stage failed"
  fi
  printf '%-24s %-9s %7s %7s\n' "$name" "$verdict" "$seconds" "$cpu"
  [ "$verdict" = passed ] || failed+=("$name${why:+ ($why)}")
done
echo "total: $(($(date +%s) - started)) s of a ${budget} s budget"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'netquality: error: test stage failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
