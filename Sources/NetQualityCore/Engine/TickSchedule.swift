/// When ticks fall: on multiples of the interval since the Unix epoch (like Prometheus'
/// evaluation times), so two runs over the same packets tick at the same instants.
public struct TickSchedule: Sendable {
  public let intervalNanoseconds: Int64
  public private(set) var next: CaptureTime?

  public init(intervalSeconds: Double) {
    intervalNanoseconds = max(1_000_000, Int64(intervalSeconds * 1e9))
  }

  /// The first tick due at or before `time`, consumed; nil when none is. Call until nil before
  /// feeding a packet of time `time`.
  @inline(__always)
  public mutating func due(atOrBefore time: CaptureTime) -> CaptureTime? {
    guard let pending = next else {
      // The first packet sets the first boundary after it.
      let boundary = (time.nanosecondsSinceEpoch / intervalNanoseconds + 1) * intervalNanoseconds
      next = CaptureTime(nanosecondsSinceEpoch: boundary)
      return nil
    }
    guard pending <= time else { return nil }
    next = CaptureTime(nanosecondsSinceEpoch: pending.nanosecondsSinceEpoch + intervalNanoseconds)
    return pending
  }

  /// The tick that closes the last, partial window after the final packet.
  public mutating func final() -> CaptureTime? {
    defer { next = nil }
    return next
  }
}
