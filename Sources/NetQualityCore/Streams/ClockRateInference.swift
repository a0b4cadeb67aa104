/// Estimates an unknown RTP clock rate from how fast timestamps advance against arrival times,
/// and snaps it to a common media clock rate.
///
/// Timestamps advance with media time even across silence suppression, so the ratio of the
/// timestamp span to the arrival span over a stretch of packets is the clock rate plus the
/// network's delay variation divided by the span. The candidates are the rates RTP payload
/// formats use (RFC 3551 section 4.5, RFC 7587 for Opus at 48 kHz, RFC 6184/7798 video at
/// 90 kHz).
public struct ClockRateInference: Sendable {
  static let candidateRatesHz: [Double] = [
    8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 90000,
  ]
  /// Packets buffered before the first attempt.
  public static let bufferCapacity = 16
  /// Shortest arrival span an estimate is made from.
  static let minimumSpanNanoseconds: Int64 = 60_000_000
  /// Arrival-time noise assumed when judging an estimate: 10 ms over the span.
  static let assumedNoiseSeconds = 0.010

  public private(set) var arrivals = InlineArray<16, Int64>(repeating: 0)
  public private(set) var timestamps = InlineArray<16, UInt32>(repeating: 0)
  public private(set) var count = 0
  /// The latest packet after the buffer filled, for later attempts over a longer span.
  private var latestArrival: Int64 = 0
  /// Timestamp span from the first buffered packet to the latest, unwrapped.
  private var latestTimestampSpan: Int64 = 0
  private var lastTimestamp: UInt32 = 0

  public init() {}

  public var isFull: Bool { count == Self.bufferCapacity }

  @inline(__always)
  public mutating func add(arrivalNanoseconds: Int64, timestamp: UInt32) {
    if count == 0 {
      latestTimestampSpan = 0
    } else {
      latestTimestampSpan += Int64(Int32(bitPattern: timestamp &- lastTimestamp))
    }
    lastTimestamp = timestamp
    latestArrival = arrivalNanoseconds
    if count < Self.bufferCapacity {
      arrivals[count] = arrivalNanoseconds
      timestamps[count] = timestamp
      count += 1
    }
  }

  /// The snapped rate, or nil when the span is too short or the estimate matches no common
  /// rate closely enough to tell it from its neighbours.
  public func estimateHz() -> Double? {
    guard count >= 3 else { return nil }
    let spanNanoseconds = latestArrival - arrivals[0]
    guard spanNanoseconds >= Self.minimumSpanNanoseconds, latestTimestampSpan > 0 else {
      return nil
    }
    let spanSeconds = Double(spanNanoseconds) * 1e-9
    let estimate = Double(latestTimestampSpan) / spanSeconds
    let tolerance = min(0.15, max(0.03, Self.assumedNoiseSeconds / spanSeconds))
    var best: Double?
    var bestError = Double.infinity
    var secondError = Double.infinity
    for rate in Self.candidateRatesHz {
      let error = abs(estimate - rate) / rate
      if error < bestError {
        secondError = bestError
        bestError = error
        best = rate
      } else if error < secondError {
        secondError = error
      }
    }
    // Accept only a clear winner: within tolerance, and the runner-up at least twice as far.
    guard bestError <= tolerance, secondError >= 2 * bestError else { return nil }
    return best
  }
}
