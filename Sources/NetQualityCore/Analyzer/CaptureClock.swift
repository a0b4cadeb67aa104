/// The capture's clock, kept monotonic so that a clock that steps is a clock step, not jitter,
/// a gap or a flood of ticks.
///
/// Packet times come from whoever stamped them: a host whose clock NTP stepped, files merged
/// from different machines (real captures jump by years), or a crafted file. Streams, windows
/// and connection states all subtract times, so a packet stamped an hour early would read as an
/// hour of jitter and an hour-long gap. Every time passes through here first:
///
/// - A time at most `toleratedBackwardNanoseconds` behind the latest is taken as stamped:
///   ordinary reordering between capture interfaces or merged files.
/// - A time further behind is a step. The packet is placed at the latest time (it arrived in
///   this order), and if the next packet is behind by about as much, the clock stepped: from
///   then on every time is shifted by the step, so time flows on from where it was (a
///   *clock step*, counted). If the next packet is back on the old clock, the one packet was
///   stamped out of order (an *out-of-order timestamp*, counted) and nothing else changes.
/// - A jump forward is time passing (a quiet network, a paused capture) and is kept: the
///   timeline collapses the silence instead (see `TickSchedule.skip(to:)`).
///
/// Times are also clamped to `CaptureTime.zero ... .latest`, so that every difference of two
/// times fits in 64 bits.
public struct CaptureClock: Sendable, Equatable {
  /// Packets from several interfaces (each capture thread hands over its batch) or merged
  /// files interleave out of order by milliseconds to a fraction of a second; one second
  /// covers that with room and is far below any gap the connection states care about (4 s).
  public static let toleratedBackwardNanoseconds: Int64 = 1_000_000_000

  /// The latest corrected time handed out; -1 before the first.
  public private(set) var latestNanoseconds: Int64 = -1
  /// Added to every raw time: the sum of the confirmed steps.
  public private(set) var offsetNanoseconds: Int64 = 0
  /// Confirmed steps of the clock (backwards, beyond the tolerance).
  public private(set) var steps: Int64 = 0
  /// Single packets stamped far behind their neighbours.
  public private(set) var outOfOrderTimestamps: Int64 = 0
  /// A packet that stepped back, waiting for the next one to confirm the step: its raw time
  /// and the corrected time it was given.
  private var pending: (raw: Int64, placedAt: Int64)?

  public init() {}

  public static func == (lhs: CaptureClock, rhs: CaptureClock) -> Bool {
    lhs.latestNanoseconds == rhs.latestNanoseconds && lhs.offsetNanoseconds == rhs.offsetNanoseconds
      && lhs.steps == rhs.steps && lhs.outOfOrderTimestamps == rhs.outOfOrderTimestamps
      && lhs.pending?.raw == rhs.pending?.raw && lhs.pending?.placedAt == rhs.pending?.placedAt
  }

  /// The corrected time of a packet stamped `time`.
  @inline(__always)
  public mutating func correct(_ time: CaptureTime) -> CaptureTime {
    let raw = max(0, time.nanosecondsSinceEpoch)
    let corrected = Self.add(raw, offsetNanoseconds)
    if corrected >= latestNanoseconds &- Self.toleratedBackwardNanoseconds {
      if pending != nil {
        // The packet before this one was alone in stepping back.
        pending = nil
        outOfOrderTimestamps += 1
      }
      if corrected > latestNanoseconds { latestNanoseconds = corrected }
      return CaptureTime(nanosecondsSinceEpoch: corrected)
    }
    return stepBack(raw: raw)
  }

  /// The live agent's tick closing the window at grid time `boundary`, with `reading` the wall
  /// clock read while the captures are held (every packet fed so far was stamped by that clock
  /// before it was read).
  ///
  /// Only the reading can reveal a step of the host's clock: a reading behind the latest packet
  /// beyond the tolerance means the clock stepped back, and the same shift applies to the
  /// packets after it. The boundary may lie far behind the latest packet simply because the
  /// tick woke late (a stalled or stopped process, a starved thread): that is a late tick, not
  /// a step, and moves nothing (issue 31: reading the stale boundary as a step put every time
  /// the agent reported ahead by the stall's length, for good).
  public mutating func correctTick(_ boundary: CaptureTime, reading: CaptureTime)
    -> CaptureTime
  {
    let correctedReading = Self.add(max(0, reading.nanosecondsSinceEpoch), offsetNanoseconds)
    if correctedReading < latestNanoseconds &- Self.toleratedBackwardNanoseconds {
      offsetNanoseconds = Self.add(offsetNanoseconds, latestNanoseconds - correctedReading)
      steps += 1
      pending = nil
    }
    return CaptureTime(
      nanosecondsSinceEpoch: Self.add(max(0, boundary.nanosecondsSinceEpoch), offsetNanoseconds))
  }

  private mutating func stepBack(raw: Int64) -> CaptureTime {
    if let previous = pending,
      abs(raw - previous.raw) <= Self.toleratedBackwardNanoseconds + Self.confirmationNanoseconds
    {
      // Two packets in a row on the new clock: it stepped. Map the first one's raw time to
      // where it was placed, and everything after follows from there.
      pending = nil
      steps += 1
      offsetNanoseconds = previous.placedAt - previous.raw
      let corrected = Self.add(raw, offsetNanoseconds)
      if corrected > latestNanoseconds { latestNanoseconds = corrected }
      return CaptureTime(nanosecondsSinceEpoch: max(corrected, 0))
    }
    if pending != nil { outOfOrderTimestamps += 1 }
    pending = (raw, latestNanoseconds)
    return CaptureTime(nanosecondsSinceEpoch: latestNanoseconds)
  }

  /// How far after the stepped packet the confirming one may be stamped: packets of a live
  /// call follow each other within milliseconds; a minute leaves room for a quiet capture.
  static let confirmationNanoseconds: Int64 = 60_000_000_000

  /// Saturating addition kept within `0 ... Int64.max`.
  @inline(__always)
  static func add(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    if overflow { return b < 0 ? 0 : .max }
    return max(0, sum)
  }
}
