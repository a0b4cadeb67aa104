/// How often one address sends RTCP. RFC 3550 section 6.3.1 draws each interval uniformly from
/// [0.5, 1.5] times the deterministic interval (at least 5 s, section 6.2) and divides it by
/// e − 3/2, so one interval up to 1.5 times the mean is ordinary: a silence is overdue only
/// past `allowanceSeconds`, twice the mean (a third more than the longest ordinary interval,
/// for the mean's own error) or 1.5 times the longest recent interval, whichever is longer.
/// A cadence whose mean is 2 s or more follows the regular 5 s minimum (section 6.2; 2 s is
/// the shortest mean it gives, 0.5 × 5 s / 1.218): its allowance is at least 1.5 × 5 s, the
/// longest interval that minimum allows, because the mean of the first few intervals may be
/// short of the truth (one draw in 16 was, after four reports). Faster cadences (a reduced
/// minimum, RFC 4585 feedback) are taken as measured.
public struct RTCPCadence: Sendable, Equatable {
  /// When the latest RTCP from the address arrived.
  public private(set) var last: CaptureTime
  /// The mean interval between RTCP packets, smoothed with gain 1/8 (as RFC 6298 smooths a
  /// round trip); nil until a second packet came.
  public private(set) var meanIntervalSeconds: Double?
  /// The longest interval, decaying by the gain's complement at each new one, so that a
  /// cadence that became faster is followed after a few reports.
  public private(set) var longestRecentIntervalSeconds = 0.0

  static let gain = 0.125
  /// RFC 3550 section 6.2: the regular minimum interval, and the shortest mean interval that
  /// follows it (0.5 × 5 s / (e − 3/2), section 6.3.1, rounded down).
  static let regularMinimumSeconds = 5.0
  static let regularMinimumMeanSeconds = 2.0

  public init(first: CaptureTime) {
    last = first
  }

  mutating func record(_ time: CaptureTime) {
    guard time > last else { return }
    let interval = time.seconds(since: last)
    last = time
    meanIntervalSeconds = meanIntervalSeconds.map { $0 + Self.gain * (interval - $0) } ?? interval
    longestRecentIntervalSeconds = max(
      interval, longestRecentIntervalSeconds * (1 - Self.gain))
  }

  /// How long after `last` the next RTCP is overdue. After a single report the regular
  /// cadence is assumed: 1.5 × 5 s.
  /// Several RTCP sessions from one address (audio and video without rtcp-mux) or feedback
  /// messages between reports shorten the mean, and with it the allowance: never longer than
  /// the address's own habit.
  public var allowanceSeconds: Double {
    guard let mean = meanIntervalSeconds else { return 1.5 * Self.regularMinimumSeconds }
    let floor = mean >= Self.regularMinimumMeanSeconds ? 1.5 * Self.regularMinimumSeconds : 0
    return max(2 * mean, 1.5 * longestRecentIntervalSeconds, floor)
  }
}
