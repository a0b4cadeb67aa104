import Dispatch
import NetQualityProbe
import Synchronization

/// Sleeps a thread until a time on the wall clock (the grid ticks fall on is the wall clock's,
/// like the capture's timestamps), or until `wake()`.
///
/// The wait itself runs on the monotonic clock in slices of at most `sliceNanoseconds`, the wall
/// clock read between them: a host clock that steps back is noticed within a slice (the caller
/// then plans from the new time) instead of stretching the sleep by the step, as an absolute
/// CLOCK_REALTIME wait would.
final class WallClockAlarm: Sendable {
  enum Outcome: Equatable {
    /// The wall clock reached the time.
    case due
    /// The wall clock stepped back during the sleep: plan again from the new time.
    case clockSteppedBack
    /// `wake()` was called.
    case woken
  }

  /// A quarter of a second: a step back is noticed that soon, at four wake-ups a second.
  static let sliceNanoseconds: Int64 = 250_000_000

  private let signal = DispatchSemaphore(value: 0)
  private let woken = Atomic<Bool>(false)

  func sleep(untilWallClock target: Int64) -> Outcome {
    var previous = WallClock.now().nanosecondsSinceEpoch
    while !woken.load(ordering: .acquiring) {
      let now = WallClock.now().nanosecondsSinceEpoch
      if now < previous { return .clockSteppedBack }
      if now >= target { return .due }
      previous = now
      let slice = min(target - now, Self.sliceNanoseconds)
      _ = signal.wait(timeout: .now() + .nanoseconds(Int(slice)))
    }
    return .woken
  }

  /// Ends the current and every later sleep at once (shutdown).
  func wake() {
    woken.store(true, ordering: .releasing)
    signal.signal()
  }
}
