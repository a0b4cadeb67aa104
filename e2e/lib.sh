# Shared by the end-to-end scripts: waits that always end. Source it.
#
#   stop_process PID...         SIGINT (2 s), then SIGTERM (STOP_GRACE seconds, default 5),
#                               then SIGKILL, to the processes and their descendants, all at
#                               once; reaps them; never waits forever.
#   wait_until SECONDS WHAT CMD...
#                               runs CMD every 0.2 s until it succeeds; after SECONDS prints
#                               "FAIL timed out after SECONDS s waiting for WHAT" and returns 1.
#   wait_exit SECONDS PID       waits for PID to exit on its own; 1 if it did not in time.
#   run_for SECONDS CMD...      runs CMD in the foreground with a deadline (the same escalation
#                               on its whole process group); its status, or 124 on timeout.
#   spawn CMD...                starts CMD in the background with SIGINT at its default (a
#                               script's background jobs otherwise ignore it); $! is its pid.
#   skip_without_namespaces NAME NEEDS
#                               exits 0 with a printed reason when not root (NAME: what is
#                               skipped, NEEDS: what root is needed for) or without namespaces.
#   check DESCRIPTION CMD...    runs CMD; prints "ok   DESCRIPTION" or "FAIL DESCRIPTION" and
#                               counts the failures in $failures.
#   loopback_namespace PREFIX   a network namespace of its own (PREFIX and this shell's pid),
#                               its lo up (a fresh namespace's lo answers all of 127/8): sets
#                               $namespace, $work (a temporary directory, kept with KEEP=1) and
#                               $pids (stopped on exit); in_ns CMD runs CMD in it; on exit
#                               everything goes.

STOP_GRACE=${STOP_GRACE:-5}

# The waits below poll ten times a second, in every stage and in each of CI's lanes at once:
# they read the clock and /proc with bash itself. A `ps` and two `date`s a poll cost about
# 12 ms of CPU each time (measured on a 2-core VM), an eighth of a core per wait.
#
# Microseconds since the epoch, without a fork (bash 5; the locale may write the separator as
# a comma).
now_us() { now=${EPOCHREALTIME//[!0-9]/}; }

# True while PID is alive and not a zombie (a child not yet reaped counts as exited): the state
# is the field after the command name in /proc/PID/stat (proc(5)), which may itself hold ") ".
alive() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != Z ]]
}

# Runs CMD (a test that forks nothing) every 0.1 s while it succeeds; 1 if it still did after
# SECONDS.
wait_while() {  # SECONDS CMD...
  local seconds=$1 deadline now
  shift
  now_us
  deadline=$((now + seconds * 1000000))
  while "$@"; do
    now_us
    [ "$now" -lt "$deadline" ] || return 1
    sleep 0.1
  done
  return 0
}

wait_exit() { wait_while "$1" alive "$2"; }

# True while any process of process group PGID is alive (not a zombie): fields 3 and 5 of
# /proc/PID/stat, after the command name (proc(5)). A group's leader may go on the first signal
# while a member ignores it (SwiftPM's build did SIGINT and SIGTERM under make).
group_alive() {  # PGID
  local pgid=$1 file stat
  for file in /proc/[0-9]*/stat; do
    { read -r stat <"$file"; } 2>/dev/null || continue
    stat=${stat##*) }
    # shellcheck disable=SC2086  # the fields, split on purpose
    set -- $stat
    [ "${3:-}" = "$pgid" ] && [ "$1" != Z ] && return 0
  done
  return 1
}

# Waits for every process of group PGID to exit; 1 if some did not in SECONDS.
wait_group_exit() { wait_while "$1" group_alive "$2"; }

# SIGINT, then SIGTERM, then SIGKILL to process group PGID, each with STOP_GRACE seconds for
# the whole group to go.
stop_group() {
  local signal
  [ -n "${1:-}" ] || return 0
  for signal in INT TERM KILL; do
    kill -s "$signal" -- "-$1" 2>/dev/null || return 0
    wait_group_exit "$STOP_GRACE" "$1" && return 0
  done
}

# The processes `ip netns exec` (and other launchers) started: PID and its descendants, so a
# signal reaches gst-launch itself and not only the wrapper.
descendants() {
  local pid child
  for pid in "$@"; do
    echo "$pid"
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do descendants "$child"; done
  done
}

# A process started with plain `&` ignores SIGINT (POSIX: background jobs of a non-interactive
# shell), so the SIGINT step is short; SIGTERM gets the full grace. Start with `spawn` what
# should stop gracefully on SIGINT.
stop_process() {
  local signal pid pids=() living deadline grace now
  for pid in "$@"; do
    [ -n "$pid" ] && pids+=($(descendants "$pid"))
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  for signal in INT TERM KILL; do
    living=()
    for pid in "${pids[@]}"; do alive "$pid" && living+=("$pid"); done
    [ ${#living[@]} -gt 0 ] || break
    [ "$signal" = KILL ] && echo "     note: SIGKILL for ${living[*]}" >&2
    kill -s "$signal" "${living[@]}" 2>/dev/null || true
    case $signal in INT) grace=2 ;; *) grace=$STOP_GRACE ;; esac
    # One deadline for all of them: they stop in parallel.
    now_us
    deadline=$((now + grace * 1000000))
    while now_us && [ "$now" -lt "$deadline" ]; do
      living=()
      for pid in "${pids[@]}"; do alive "$pid" && living+=("$pid"); done
      [ ${#living[@]} -gt 0 ] || break
      sleep 0.1
    done
  done
  # Reap our own children so no zombie is left; each has exited by now, so this is quick.
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}

spawn() {
  env --default-signal=INT "$@" &
}

wait_until() {
  local seconds=$1 what=$2 deadline now
  shift 2
  now_us
  deadline=$((now + seconds * 1000000))
  until "$@" >/dev/null 2>&1; do
    now_us
    if [ "$now" -ge "$deadline" ]; then
      echo "FAIL timed out after $seconds s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

# Builds a product of the package, unless CI's build stage built everything already
# (scripts/test.sh sets NETQUALITY_BUILT after `swift build --build-tests`): even a build with
# nothing to do costs seconds of SwiftPM's planning, in each of twenty stages.
build_product() {
  [ -n "${NETQUALITY_BUILT:-}" ] && [ -x ".build/debug/$1" ] && return 0
  run_for 900 swift build --product "$1" >/dev/null
}

# Sets $netquality: NETQUALITY_BIN if set; else with NETQUALITY_RELEASE=1 (or `release` as the
# argument) the release binary `make install` builds (CI: already built by then, and says so
# with NETQUALITY_INSTALL_BUILT); else the debug build.
agent_binary() {  # [release]
  if [ -n "${NETQUALITY_BIN:-}" ]; then
    netquality=$(realpath "$NETQUALITY_BIN")
  elif [ -n "${NETQUALITY_RELEASE:-}" ] || [ "${1:-}" = release ]; then
    [ -n "${NETQUALITY_INSTALL_BUILT:-}" ] \
      || run_for 900 make --no-print-directory install-build >/dev/null
    netquality=$PWD/.build-install/release/netquality
  else
    build_product netquality
    netquality=$PWD/.build/debug/netquality
  fi
}

run_for() {
  local seconds=$1 pid status
  shift
  # A background job of a script starts with SIGINT ignored; the stage gets it back so that
  # the first signal of the escalation can end it gracefully (traps run, captures flush).
  setsid env --default-signal=INT "$@" &
  pid=$!
  if wait_exit "$seconds" "$pid"; then
    wait "$pid" && status=0 || status=$?
    return "$status"
  fi
  echo "FAIL timed out after $seconds s: $*"
  stop_group "$pid"
  wait "$pid" 2>/dev/null || true
  return 124
}

skip_without_namespaces() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP $1: needs root for $2"
    exit 0
  fi
  if ! ip netns list >/dev/null 2>&1; then
    echo "SKIP $1: this kernel or container has no network namespaces"
    exit 0
  fi
}

loopback_namespace() {
  namespace=$1$$
  work=$(mktemp -d)
  pids=()
  trap loopback_namespace_cleanup EXIT
  ip netns add "$namespace"
  ip -n "$namespace" link set lo up
}
loopback_namespace_cleanup() {
  stop_process "${pids[@]}"
  ip netns del "$namespace" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
in_ns() { ip netns exec "$namespace" "$@"; }

failures=0
check() {
  local description=$1
  shift
  if "$@"; then echo "ok   $description"; else echo "FAIL $description"; failures=$((failures + 1)); fi
}
