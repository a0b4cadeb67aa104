import NetQualityCore

/// A token bucket: `ratePerSecond` tokens flow in, at most `burst` are held, and each packet
/// takes one. Time is passed in, never read, so the same times give the same answers.
public struct TokenBucket: Sendable, Hashable {
  public var ratePerSecond: Double
  public var burst: Double
  /// Tokens held at `refilledAt`.
  public private(set) var tokens: Double
  public private(set) var refilledAt: CaptureTime

  /// A full bucket at `now`.
  public init(ratePerSecond: Double, burst: Double, now: CaptureTime) {
    self.ratePerSecond = max(0, ratePerSecond)
    self.burst = max(1, burst)
    tokens = self.burst
    refilledAt = now
  }

  /// Takes a token at `now` if one is there. A clock that steps back refills nothing (and
  /// restarts the count from the new time) instead of draining the bucket.
  public mutating func take(at now: CaptureTime) -> Bool {
    let elapsedSeconds = max(0, now.seconds(since: refilledAt))
    tokens = min(burst, tokens + elapsedSeconds * ratePerSecond)
    refilledAt = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
