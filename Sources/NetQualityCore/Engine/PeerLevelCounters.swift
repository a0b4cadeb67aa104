/// What a peer's levels were, kept as counters so that any scrape interval recovers them
/// (issue 25: an incident shorter than a scrape was invisible to `max_over_time` of the level
/// gauge): the time spent at each level shown, per direction, and the worst level shown in the
/// current and the previous minute.
///
/// 64 bytes a peer: centiseconds in 32 bits (497 days at one level before a counter stops,
/// saturated), and minutes since the epoch in 32 bits (to the year 6053).
public struct PeerLevelCounters: Sendable {
  /// Centiseconds at each level, rx levels 0...6 then tx levels 0...6.
  private var centiseconds = InlineArray<14, UInt32>(repeating: 0)
  /// The minute (since the epoch) `current` is of; the worst levels shown in it and in the
  /// minute before, rx then tx.
  private var minute: Int32 = 0
  private var current = InlineArray<2, QualityLevel>(repeating: .unknown)
  private var previous = InlineArray<2, QualityLevel>(repeating: .unknown)

  public enum Direction: Int, Sendable, CaseIterable {
    case rx = 0
    case tx = 1

    public var label: String { self == .rx ? "rx" : "tx" }
  }

  public init() {}

  /// A tick `seconds` long that ended at `time` with these levels shown.
  mutating func record(
    rx: QualityLevel, tx: QualityLevel, seconds: Double, at time: CaptureTime
  ) {
    let add = UInt32(clamping: Int64((max(0, seconds) * 100).rounded()))
    for (direction, level) in [(Direction.rx, rx), (.tx, tx)] {
      let index = direction.rawValue * 7 + level.rawValue
      let (sum, overflow) = centiseconds[index].addingReportingOverflow(add)
      centiseconds[index] = overflow ? .max : sum
    }
    let now = Int32(clamping: time.nanosecondsSinceEpoch / 60_000_000_000)
    if now != minute {
      // The minute before is the one that just ended only if the ticks were a minute apart.
      previous = now == minute &+ 1 ? current : InlineArray(repeating: .unknown)
      current = InlineArray(repeating: .unknown)
      minute = now
    }
    current[0] = max(current[0], rx)
    current[1] = max(current[1], tx)
  }

  /// Seconds spent with `level` shown in `direction`.
  public func seconds(_ direction: Direction, _ level: QualityLevel) -> Double {
    Double(centiseconds[direction.rawValue * 7 + level.rawValue]) / 100
  }

  /// The worst level shown in `direction` in the current and the previous minute: a scrape at
  /// any interval up to a minute sees every level shown, however briefly.
  public func worstLevel(_ direction: Direction) -> QualityLevel {
    max(current[direction.rawValue], previous[direction.rawValue])
  }
}
