/// What probes measured over a window or since a session began.
public struct ProbeCounts: Sendable, Equatable {
  /// Probes settled: answered or past their deadline.
  public var sent: Int64 = 0
  /// First answers.
  public var received: Int64 = 0
  /// Lost on the way to the reflector and on the way back, told apart by the reflector's own
  /// sequence numbers once the next answer comes (see `ProbeTracker`).
  public var forwardLost: Int64 = 0
  public var backwardLost: Int64 = 0
  /// Of those, the probes lost in an outage: a silence of the answers at least as long as the
  /// connection state's interruption interval, whose loss the first answer after it booked.
  /// The connection state reports the outage (interrupted, disconnected) and the scoring leaves
  /// them out (see `scoredForward`).
  public var outageForwardLost: Int64 = 0
  public var outageBackwardLost: Int64 = 0
  /// Outages that ended: answers that came after such a silence.
  public var outagesEnded: Int64 = 0
  public var duplicates: Int64 = 0
  public var reordered: Int64 = 0
  /// Answers to no probe we sent (`ProbeSample.Outcome.unexpected`): without the session's
  /// HMAC, someone is sending with our address and port, and the loss figures beside them may
  /// be theirs (the reflector's per-source budget spent by them): possibly spoofed.
  public var unexpectedAnswers: Int64 = 0
  /// Answers that came after their probe's deadline (see `ProbeTracker`): held by the
  /// reflector (it stalled; such a probe is lost neither way), or delayed by the path (lost in
  /// the direction that delayed it).
  public var lateStalled: Int64 = 0
  public var lateDelayed: Int64 = 0
  /// Answers whose timestamps cannot be right (the reflector's turnaround longer than the
  /// whole round trip, a clock step on either side): no delay figure taken from them.
  public var badTimestamps: Int64 = 0
  /// (T4 - T1) - (T3 - T2), RFC 8762 section 4.
  public var roundTrip = DelaySummary()
  /// One-way delays, taken only when both ends say their clocks are synchronised.
  public var forwardDelay = DelaySummary()
  public var backwardDelay = DelaySummary()
  /// Absolute delay variation between consecutive probes, per direction (RFC 3393 IPDV with
  /// consecutive sequence numbers as its selection function; the clocks' offset cancels).
  public var forwardDelayVariation = DelaySummary()
  public var backwardDelayVariation = DelaySummary()

  public init() {}

  /// Probes whose fate in the forward direction is known: answered, or lost either way.
  public var forwardExpected: Int64 { received + forwardLost + backwardLost }
  /// Answers the reflector sent: those we received and those lost on the way back.
  public var backwardExpected: Int64 { received + backwardLost }

  /// The directions as the quality model scores them: expected and lost without the probes
  /// lost in an outage, which are the outage's, as RTP's packets lost across a silence are
  /// (docs/quality-model.md, "Loss and the scoring span").
  public var scoredForward: (expected: Int64, lost: Int64) {
    (forwardExpected - outageForwardLost - outageBackwardLost, forwardLost - outageForwardLost)
  }
  public var scoredBackward: (expected: Int64, lost: Int64) {
    (backwardExpected - outageBackwardLost, backwardLost - outageBackwardLost)
  }

  public var forwardLossRatio: Double {
    forwardExpected > 0 ? Double(forwardLost) / Double(forwardExpected) : 0
  }
  public var backwardLossRatio: Double {
    backwardExpected > 0 ? Double(backwardLost) / Double(backwardExpected) : 0
  }

  /// Pools another target's counts into these.
  public mutating func merge(_ other: ProbeCounts) {
    sent += other.sent
    received += other.received
    forwardLost += other.forwardLost
    backwardLost += other.backwardLost
    outageForwardLost += other.outageForwardLost
    outageBackwardLost += other.outageBackwardLost
    outagesEnded += other.outagesEnded
    duplicates += other.duplicates
    reordered += other.reordered
    unexpectedAnswers += other.unexpectedAnswers
    lateStalled += other.lateStalled
    lateDelayed += other.lateDelayed
    badTimestamps += other.badTimestamps
    roundTrip.merge(other.roundTrip)
    forwardDelay.merge(other.forwardDelay)
    backwardDelay.merge(other.backwardDelay)
    forwardDelayVariation.merge(other.forwardDelayVariation)
    backwardDelayVariation.merge(other.backwardDelayVariation)
  }
}
