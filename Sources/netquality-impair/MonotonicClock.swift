import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the relay's only clock, immune to wall-clock steps, and the
/// time base of the packet log.
func monotonicNanoseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
