/// Count, sum, smallest and largest of a set of delays, in seconds: what a window or a session
/// reports of round trips, one-way delays or delay variation.
public struct DelaySummary: Sendable, Equatable {
  public private(set) var count: Int64 = 0
  public private(set) var sumSeconds = 0.0
  public private(set) var minSeconds: Double?
  public private(set) var maxSeconds: Double?

  public init() {}

  public var meanSeconds: Double? { count > 0 ? sumSeconds / Double(count) : nil }

  public mutating func add(_ seconds: Double) {
    count += 1
    sumSeconds += seconds
    minSeconds = min(minSeconds ?? seconds, seconds)
    maxSeconds = max(maxSeconds ?? seconds, seconds)
  }

  /// Pools another summary into this one (a peer probed through several reflectors).
  public mutating func merge(_ other: DelaySummary) {
    count += other.count
    sumSeconds += other.sumSeconds
    if let low = other.minSeconds { minSeconds = min(minSeconds ?? low, low) }
    if let high = other.maxSeconds { maxSeconds = max(maxSeconds ?? high, high) }
  }
}
