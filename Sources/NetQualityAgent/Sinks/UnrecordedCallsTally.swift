import NetQualityCore
import Synchronization

/// The SIP calls counted instead of recorded (`CallsSnapshot.unrecorded`: ended with no
/// response at all, beyond their source's record budget), summed by source over each minute of
/// capture time, so that the log says a flood in a few lines a minute, not one every tick.
final class UnrecordedCallsTally: Sendable {
  private struct Minute {
    var minute: Int64 = 0
    var bySource: [IPAddress: Int] = [:]
  }

  private let current = Mutex(Minute())

  init() {}

  /// Adds a tick's; when the tick is in a later minute than the sums held, returns those sums
  /// (the most first) and the minute they are of, and starts the new minute.
  func add(_ calls: [UnrecordedCalls], at time: CaptureTime) -> (
    minuteStart: CaptureTime, sums: [UnrecordedCalls]
  )? {
    let minute = time.nanosecondsSinceEpoch / 60_000_000_000
    return current.withLock { held in
      var finished: (CaptureTime, [UnrecordedCalls])?
      if minute != held.minute {
        if !held.bySource.isEmpty {
          let sums = UnrecordedCalls.list(held.bySource)
          finished = (CaptureTime(nanosecondsSinceEpoch: held.minute * 60_000_000_000), sums)
        }
        held = Minute(minute: minute)
      }
      for call in calls { held.bySource[call.source, default: 0] += call.calls }
      return finished
    }
  }
}
