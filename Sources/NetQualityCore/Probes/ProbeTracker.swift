/// The accounting of one probe session (one reflector): per-direction loss, delay, delay
/// variation and jitter, and the round trip, per scoring window and since the session began.
///
/// Samples come in sequence order (`ProbeSample`). Lost probes wait until the next answer to
/// be told apart: a stateful reflector numbers the probes it received (RFC 8762 section
/// 4.3.2), so a probe whose answer was lost on the way back leaves a gap in those numbers and
/// one lost on the way there does not. Of the k probes lost before an answer, as many as the
/// session's gaps not yet accounted for were lost backward, the rest forward. Like RTP loss,
/// it is counted when the next answer closes the gap. Gaps are counted in the order answers
/// arrive (`ProbeSample.reflectorGaps`), not from the numbers of consecutive probes: a probe
/// that overtakes its neighbour on the way to the reflector swaps their numbers, which made a
/// forward loss next to it look like a backward one.
///
/// A lost probe whose answer comes after all (late) is lost neither way by the numbers: the
/// reflector numbered it and its answer came. What made it late decides what it is. A
/// reflector that held it (its turnaround, T3 − T2, longer than the path's round trip,
/// (T4 − T1) − (T3 − T2), RFC 8762 section 4) stalled — stopped, swapped out — and the path is
/// not to blame: it is lost neither way. Otherwise the path delayed it past the deadline, and
/// it is lost in the direction whose transit grew the more since the latest answer in time
/// (the clocks' offset cancels in the difference, as in IPDV).
public struct ProbeTracker: Sendable {
  public let target: Endpoint
  public let firstSentAt: CaptureTime
  /// The latest probe settled, answered or not: a session that stops settling probes was
  /// removed from the configuration and is forgotten like a silent stream.
  public private(set) var lastSentAt: CaptureTime
  /// The latest answer (activity, for the connection state), and the first answer after the
  /// latest loss (when the target came back).
  public private(set) var lastReplyAt: CaptureTime?
  public private(set) var resumedAt: CaptureTime?
  /// The latest answer to no probe of ours (`ProbeSample.Outcome.unexpected`).
  public private(set) var lastUnexpectedAt: CaptureTime?
  /// Lost probes since the latest answer, their direction not known yet.
  public private(set) var pendingLost: Int64 = 0
  public private(set) var window = ProbeCounts()
  public private(set) var total = ProbeCounts()
  public private(set) var histograms: ProbeHistograms
  /// RFC 3550 A.8 jitter of each direction, on probe send and receive times.
  public private(set) var forwardJitter = JitterEstimator()
  public private(set) var backwardJitter = JitterEstimator()
  /// Whether the latest answer's receive time came from the kernel, and both clocks were
  /// synchronised.
  public private(set) var kernelTimestamps: Bool?
  public private(set) var clocksSynchronized = false
  private var previous: Previous?
  /// The reflector's gaps already counted as backward loss.
  private var gapsAttributed: Int64 = 0
  /// The latest probe answered in time: the lost probes after it are `pendingLost`.
  private var lastAnsweredSequence: UInt32?
  /// Of `pendingLost`, the probes answered late so far: held by the reflector, and delayed by
  /// the path on the way back (the rest of the delayed ones were delayed on the way there).
  private var pendingStalled: Int64 = 0
  /// The send time of the answer that ended the latest outage, and the probes sent before it
  /// settled lost only after it: the outage's loss too (a reflector refusing its backlog after
  /// a stall, whose probes time out after the first answer in time: a CI run booked 352 of
  /// them to the windows after the recovery and paged `peer_tx_quality_bad`).
  private var outageEndedSentAt: CaptureTime?
  private var pendingOutageLost: Int64 = 0
  private var pendingDelayedBackward: Int64 = 0

  /// The latest answer with good timestamps, for the delay-variation arithmetic.
  private struct Previous {
    var sequence: UInt32
    var forwardTransitNanoseconds: Int64
    var backwardTransitNanoseconds: Int64
  }

  /// `roundTripBoundsSeconds`: the round-trip histogram's buckets (`probe_rtt_buckets`).
  public init(
    target: Endpoint, firstSentAt: CaptureTime,
    roundTripBoundsSeconds: [Double] = DelayHistogram.roundTripBoundsSeconds
  ) {
    self.target = target
    histograms = ProbeHistograms(roundTripBoundsSeconds: roundTripBoundsSeconds)
    self.firstSentAt = firstSentAt
    lastSentAt = firstSentAt
  }

  /// `outageAfterSeconds`: a silence of the answers this long is an outage (the connection
  /// state's interruption interval), whose lost probes are counted apart (`ProbeCounts`).
  public mutating func record(
    _ sample: ProbeSample,
    outageAfterSeconds: Double = ConnectionTimers().interruptedAfterSeconds
  ) {
    // An unexpected answer is none of our probes: it keeps no session alive.
    if case .unexpected = sample.outcome {} else { lastSentAt = max(lastSentAt, sample.sentAt) }
    switch sample.outcome {
    case .lost:
      window.sent += 1
      total.sent += 1
      pendingLost += 1
      if let ended = outageEndedSentAt, sample.sentAt < ended { pendingOutageLost += 1 }
    case .duplicate:
      window.duplicates += 1
      total.duplicates += 1
    case .unexpected(let receivedAt):
      window.unexpectedAnswers += 1
      total.unexpectedAnswers += 1
      lastUnexpectedAt = max(lastUnexpectedAt ?? receivedAt, receivedAt)
    case .late(let reply):
      lateAnswer(sample, reply)
    case .replied(let reply):
      answer(sample, reply, outageAfterSeconds: outageAfterSeconds)
    }
  }

  /// The sender began a new STAMP session to the same reflector (a reload changed the target's
  /// rate, size, DSCP, timeout or key: a new socket, so the reflector numbers it from 0 again,
  /// RFC 8762 section 4.3.2, and our own numbers start at 0 too). What is tied to the old
  /// session's numbers is let go: the reflector gaps already attributed, the latest answered
  /// sequence, the transit baselines; counts, histograms and the liveness times go on, so the
  /// peer's state and series do not notice.
  public mutating func startNewSession() {
    previous = nil
    lastAnsweredSequence = nil
    gapsAttributed = 0
    pendingStalled = 0
    pendingOutageLost = 0
    pendingDelayedBackward = 0
    forwardJitter.resynchronise()
    backwardJitter.resynchronise()
  }

  /// Starts a new scoring window.
  public mutating func startWindow() {
    window = ProbeCounts()
    forwardJitter.startWindow()
    backwardJitter.startWindow()
  }

  private mutating func answer(
    _ sample: ProbeSample, _ reply: ProbeReply, outageAfterSeconds: Double
  ) {
    // Silent since the latest answer in time, or since our first probe (a target that did not
    // answer at first), as the connection state judges a probe peer.
    let silence = reply.receivedAt.seconds(since: lastReplyAt ?? firstSentAt)
    let outage = silence >= outageAfterSeconds
    if outage { outageEndedSentAt = sample.sentAt }
    if attributeLoss(reflectorGaps: sample.reflectorGaps, outage: outage) || lastReplyAt == nil {
      resumedAt = reply.receivedAt
    }
    lastReplyAt = max(lastReplyAt ?? reply.receivedAt, reply.receivedAt)
    lastAnsweredSequence = sample.sequence
    kernelTimestamps = reply.kernelTimestamp
    clocksSynchronized = reply.clocksSynchronized
    var counts = ProbeCounts()
    counts.sent = 1
    counts.received = 1
    counts.reordered = reply.reordered ? 1 : 0
    let forwardTransit =
      reply.reflectorReceivedAt.nanosecondsSinceEpoch &- sample.sentAt.nanosecondsSinceEpoch
    let backwardTransit =
      reply.receivedAt.nanosecondsSinceEpoch &- reply.reflectorSentAt.nanosecondsSinceEpoch
    let turnaround = reply.reflectorSentAt.seconds(since: reply.reflectorReceivedAt)
    let roundTrip = reply.receivedAt.seconds(since: sample.sentAt) - turnaround
    guard turnaround >= 0, roundTrip >= 0 else {
      counts.badTimestamps = 1
      add(counts)
      // A clock step: the next answer starts new transit baselines.
      previous = nil
      forwardJitter.resynchronise()
      backwardJitter.resynchronise()
      return
    }
    counts.roundTrip.add(roundTrip)
    histograms.roundTrip.add(roundTrip)
    if reply.clocksSynchronized {
      let forward = Double(forwardTransit) * 1e-9
      let backward = Double(backwardTransit) * 1e-9
      counts.forwardDelay.add(forward)
      counts.backwardDelay.add(backward)
      histograms.forwardDelay.add(forward)
      histograms.backwardDelay.add(backward)
    }
    if let previous, sample.sequence == previous.sequence &+ 1 {
      let forward = Double(abs(forwardTransit &- previous.forwardTransitNanoseconds)) * 1e-9
      let backward = Double(abs(backwardTransit &- previous.backwardTransitNanoseconds)) * 1e-9
      counts.forwardDelayVariation.add(forward)
      counts.backwardDelayVariation.add(backward)
      histograms.forwardDelayVariation.add(forward)
      histograms.backwardDelayVariation.add(backward)
    }
    // Jitter in microsecond ticks: the send times' 32-bit differences stay right over 35
    // minutes between answers (the estimator resynchronises after 3 s anyway).
    forwardJitter.update(
      arrivalNanoseconds: reply.reflectorReceivedAt.nanosecondsSinceEpoch,
      timestamp: UInt32(truncatingIfNeeded: sample.sentAt.nanosecondsSinceEpoch / 1000),
      secondsPerTick: 1e-6, countsTowardsSummary: true)
    backwardJitter.update(
      arrivalNanoseconds: reply.receivedAt.nanosecondsSinceEpoch,
      timestamp: UInt32(truncatingIfNeeded: reply.reflectorSentAt.nanosecondsSinceEpoch / 1000),
      secondsPerTick: 1e-6, countsTowardsSummary: true)
    previous = Previous(
      sequence: sample.sequence, forwardTransitNanoseconds: forwardTransit,
      backwardTransitNanoseconds: backwardTransit)
    add(counts)
  }

  /// An answer after its probe settled lost: a stall of the reflector or a delay of the path
  /// (see the type's notes). Counted now; its probe's loss is split with the others pending
  /// at the next answer in time, or stands if that came first (a counter never goes back).
  private mutating func lateAnswer(_ sample: ProbeSample, _ reply: ProbeReply) {
    let turnaround = reply.reflectorSentAt.seconds(since: reply.reflectorReceivedAt)
    let pathRoundTrip = reply.receivedAt.seconds(since: sample.sentAt) - turnaround
    let stalled = turnaround > pathRoundTrip
    var counts = ProbeCounts()
    if stalled { counts.lateStalled = 1 } else { counts.lateDelayed = 1 }
    add(counts)
    let pending =
      pendingLost > 0
      && lastAnsweredSequence.map { Int32(bitPattern: sample.sequence &- $0) > 0 } ?? true
    guard pending else { return }
    if stalled {
      pendingStalled += 1
    } else if let previous {
      let forwardGrowth =
        reply.reflectorReceivedAt.nanosecondsSinceEpoch &- sample.sentAt.nanosecondsSinceEpoch
        &- previous.forwardTransitNanoseconds
      let backwardGrowth =
        reply.receivedAt.nanosecondsSinceEpoch &- reply.reflectorSentAt.nanosecondsSinceEpoch
        &- previous.backwardTransitNanoseconds
      if backwardGrowth > forwardGrowth { pendingDelayedBackward += 1 }
    }
  }

  /// Splits the probes lost since the previous answer between the directions, now that an
  /// answer came: the reflector's gaps not yet accounted for were lost backward (a gap filled
  /// after it was counted, by an answer that came late, is taken off the next split); of the
  /// others, those the reflector held past their deadline were lost neither way, those the
  /// path delayed in the direction that delayed them, the rest forward. After an `outage`
  /// they are counted as its loss too. True when there were any.
  private mutating func attributeLoss(reflectorGaps: Int64, outage: Bool) -> Bool {
    guard pendingLost > 0 else { return false }
    let gaps = min(max(reflectorGaps - gapsAttributed, 0), pendingLost)
    gapsAttributed += gaps
    let stalled = min(pendingStalled, pendingLost - gaps)
    let delayedBackward = min(pendingDelayedBackward, pendingLost - gaps - stalled)
    var counts = ProbeCounts()
    counts.backwardLost = gaps + delayedBackward
    counts.forwardLost = pendingLost - gaps - stalled - delayedBackward
    if outage {
      counts.outageForwardLost = counts.forwardLost
      counts.outageBackwardLost = counts.backwardLost
      counts.outagesEnded = 1
    } else if pendingOutageLost > 0 {
      let share = min(pendingOutageLost, pendingLost)
      counts.outageForwardLost = min(share, counts.forwardLost)
      counts.outageBackwardLost = min(share - counts.outageForwardLost, counts.backwardLost)
    }
    pendingOutageLost = 0
    add(counts)
    pendingLost = 0
    pendingStalled = 0
    pendingDelayedBackward = 0
    return true
  }

  private mutating func add(_ counts: ProbeCounts) {
    window.merge(counts)
    total.merge(counts)
  }
}
