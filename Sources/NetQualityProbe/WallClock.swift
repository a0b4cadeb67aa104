import Glibc
import NetQualityCore

/// The two clocks the probe shells read (the pure parts never do).
public enum WallClock {
  /// UTC now (`CLOCK_REALTIME`): what STAMP timestamps state.
  public static func now() -> CaptureTime {
    read(CLOCK_REALTIME)
  }

  /// A clock that never steps (`CLOCK_MONOTONIC`, from an arbitrary origin): for rate limits,
  /// timeouts and expiry, which a wall-clock step must not disturb.
  public static func monotonicNow() -> CaptureTime {
    read(CLOCK_MONOTONIC)
  }

  private static func read(_ clock: clockid_t) -> CaptureTime {
    var time = timespec()
    clock_gettime(clock, &time)
    return CaptureTime(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
  }
}
