/// When ticks fall: on multiples of the interval since the Unix epoch (like Prometheus'
/// evaluation times), so two runs over the same packets tick at the same instants.
///
/// Works on the corrected capture clock (see `CaptureClock`), which never runs backwards; near
/// the end of `Int64` time the schedule saturates and stops instead of trapping or looping.
public struct TickSchedule: Sendable {
  /// The accepted range of intervals: a millisecond (finer says nothing at 50 packets/s) to a
  /// day; the commands refuse values outside their own, narrower, range.
  public static let intervalRangeSeconds: ClosedRange<Double> = 0.001...86_400

  public let intervalNanoseconds: Int64
  /// The next tick; nil before the first packet and after the last representable tick.
  public private(set) var next: CaptureTime?
  private var started = false

  public init(intervalSeconds: Double) {
    let range = Self.intervalRangeSeconds
    let seconds =
      intervalSeconds.isNaN ? 2 : min(max(intervalSeconds, range.lowerBound), range.upperBound)
    intervalNanoseconds = CaptureTime.nanoseconds(seconds)
  }

  /// The first tick due at or before `time`, consumed; nil when none is. Call until nil before
  /// feeding a packet of time `time`.
  @inline(__always)
  public mutating func due(atOrBefore time: CaptureTime) -> CaptureTime? {
    guard started else {
      // The first packet sets the first boundary after it.
      started = true
      next = boundary(after: time)
      return nil
    }
    guard let pending = next, pending <= time else { return nil }
    let (following, overflow) = pending.nanosecondsSinceEpoch.addingReportingOverflow(
      intervalNanoseconds)
    next = overflow ? nil : CaptureTime(nanosecondsSinceEpoch: following)
    return pending
  }

  /// Ticks that would fall at or before `time`, skipped: the next tick becomes the first
  /// boundary after it. Nil when none was due.
  public mutating func skip(to time: CaptureTime) -> SkippedTicks? {
    guard started, let pending = next, pending <= time else { return nil }
    let count =
      time.nanosecondsSinceEpoch / intervalNanoseconds
      - pending.nanosecondsSinceEpoch / intervalNanoseconds + 1
    let last = CaptureTime(
      nanosecondsSinceEpoch: time.nanosecondsSinceEpoch / intervalNanoseconds * intervalNanoseconds)
    next = boundary(after: time)
    return SkippedTicks(first: pending, last: last, count: count)
  }

  /// The tick that closes the last, partial window after the final packet.
  public mutating func final() -> CaptureTime? {
    defer { next = nil }
    return next
  }

  /// The first multiple of the interval after `time`; the latest time when there is none.
  private func boundary(after time: CaptureTime) -> CaptureTime {
    let (boundary, overflow) = (time.nanosecondsSinceEpoch / intervalNanoseconds + 1)
      .multipliedReportingOverflow(by: intervalNanoseconds)
    return overflow ? .latest : CaptureTime(nanosecondsSinceEpoch: boundary)
  }
}

/// A stretch of ticks a replay left out because nothing was left to report in them.
public struct SkippedTicks: Sendable, Equatable {
  public var first: CaptureTime
  public var last: CaptureTime
  public var count: Int64

  public init(first: CaptureTime, last: CaptureTime, count: Int64) {
    self.first = first
    self.last = last
    self.count = count
  }
}
