/// What a peer's probe sessions measured: the window just closed and everything since they
/// began, pooled over the peer's reflectors (usually one).
public struct ProbeSnapshot: Sendable, Equatable {
  /// The reflectors probed.
  public var targets: [Endpoint] = []
  public var window = ProbeCounts()
  public var total = ProbeCounts()
  public var histograms = ProbeHistograms()
  /// RFC 3550 A.8 jitter per direction, the largest over the window (nil: no answer in it).
  public var forwardJitterMilliseconds: Double?
  public var backwardJitterMilliseconds: Double?
  /// Lost probes whose direction the next answer will tell.
  public var pendingLost: Int64 = 0
  /// Whether answers were timed by the kernel (SO_TIMESTAMPNS) or after the receive call.
  public var kernelTimestamps: Bool?
  public var clocksSynchronized = false
  public var firstSentAt: CaptureTime?
  public var lastReplyAt: CaptureTime?
  /// The first answer after the latest loss (when the target came back).
  public var resumedAt: CaptureTime?
  /// The latest answer to no probe of ours, and whether one came within the windows that
  /// scored the peer's level (`Scorer.takeProbeWindows`): someone sends with our address and
  /// port, and the loss those windows measured may be of their making (the reflector's
  /// per-source budget spent by them). Authenticated probes (HMAC) are not open to it.
  public var lastUnexpectedAnswerAt: CaptureTime?
  public var possiblySpoofed = false

  public init() {}

  /// The window's mean round trip.
  public var roundTripMilliseconds: Double? { window.roundTrip.meanSeconds.map { $0 * 1000 } }

  mutating func add(_ tracker: ProbeTracker) {
    // The first session's histograms as they are: their buckets are the configuration's, which
    // a default-made `histograms` would not share (a merge of other bounds adds nothing).
    if targets.isEmpty {
      histograms = tracker.histograms
    } else {
      histograms.merge(tracker.histograms)
    }
    targets.append(tracker.target)
    window.merge(tracker.window)
    total.merge(tracker.total)
    if tracker.window.received > 0 {
      forwardJitterMilliseconds = max(
        forwardJitterMilliseconds ?? 0, tracker.forwardJitter.windowMaxJitterSeconds * 1000)
      backwardJitterMilliseconds = max(
        backwardJitterMilliseconds ?? 0, tracker.backwardJitter.windowMaxJitterSeconds * 1000)
    }
    pendingLost += tracker.pendingLost
    kernelTimestamps = tracker.kernelTimestamps ?? kernelTimestamps
    clocksSynchronized = clocksSynchronized || tracker.clocksSynchronized
    firstSentAt = min(firstSentAt ?? tracker.firstSentAt, tracker.firstSentAt)
    if let last = tracker.lastReplyAt { lastReplyAt = max(lastReplyAt ?? last, last) }
    if let resumed = tracker.resumedAt { resumedAt = max(resumedAt ?? resumed, resumed) }
    if let unexpected = tracker.lastUnexpectedAt {
      lastUnexpectedAnswerAt = max(lastUnexpectedAnswerAt ?? unexpected, unexpected)
    }
  }
}

/// A peer's probe figures as the scorer hands them from phase to phase: one reference, where
/// the optional value itself (922 bytes) was copied at each check for nil, for every peer and
/// tick, probed or not (perf under churn, issue 37).
typealias BoxedProbe = OutOfLine<ProbeSnapshot>
