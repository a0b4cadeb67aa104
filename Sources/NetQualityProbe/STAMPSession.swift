import NetQualityCore

/// The sender's side of one STAMP session (RFC 8762 section 4.2): its sequence numbers, the
/// probes in flight, and their settlement in sequence order: answered, or lost once past the
/// deadline. Pure: times come in with the calls, and nothing here touches a socket.
///
/// The engine takes the settled probes (`ProbeSample`) in order, which is what lets it split
/// the probes lost between two answers by direction (`ProbeTracker`).
public struct STAMPSession: Sendable {
  public let target: Endpoint
  /// How long an answer may take before its probe counts as lost.
  public let deadlineSeconds: Double
  /// Answers that came after their probe was settled as lost, however long after (a reflector
  /// that stalled answers its backlog when it goes on).
  public private(set) var late: Int64 = 0
  /// Answers to nothing we know: a sequence number never sent or older than `lostHorizon`, or
  /// a second answer to a probe `slots` no longer holds.
  public private(set) var unexpected: Int64 = 0
  /// Probes not sent because `capacity` were in flight (a target answering nothing at a rate
  /// the deadline cannot drain: the send loop is late, not the network).
  public private(set) var skipped: Int64 = 0
  /// Probes sent so far.
  public private(set) var sentCount: Int64 = 0

  private var slots: [Slot]
  /// One bit per probe of the last `lostHorizon` sent: settled lost, with no answer since.
  /// `slots` holds only the probes in flight and a little more (4 s at the agent's 50/s), and a
  /// reflector that stalled (stopped, swapped out) answers the probes queued in its socket when
  /// it goes on, long after: those answers are late, and their reflector numbers no gap (read as
  /// gaps, a 15 s stall's backlog was 400 probes lost backward).
  private var lostBits: [UInt64]
  /// RFC 8762 section 4.2.1: the sequence number starts with 0 and grows by 1 per packet.
  private var nextSequence: UInt32 = 0
  private var nextToSettle: UInt32 = 0
  private var highestAnswered: UInt32?
  /// The reflector's numbers as answers arrive (see `reflectorGaps`).
  private var reflectorHighest: UInt32?
  private var reflectorAnswers: Int64 = 0
  private var gapsBeforeRestart: Int64 = 0

  /// Answers the reflector sent that have not come: the gaps in its sequence numbers, like
  /// RTP's expected minus received (RFC 3550 A.3), counted from its first number, 0 (a
  /// stateful reflector numbers each session's probes from 0, RFC 8762 section 4.3.2). A late
  /// answer fills its gap back in. Handed to the engine with every settled probe.
  public var reflectorGaps: Int64 {
    guard let reflectorHighest else { return gapsBeforeRestart }
    return gapsBeforeRestart + max(0, Int64(reflectorHighest) + 1 - reflectorAnswers)
  }

  /// A reflector number this far below the highest is a new count (the reflector restarted,
  /// or dropped our session from its table), not an answer overtaken on the way.
  static let reflectorRestartDistance: Int64 = 1024

  /// Probes whose loss is remembered for a late answer: 65,536 (8 KiB), 21 minutes at 50/s,
  /// longer than a reflector keeps our session idle (`netquality reflect`: 300 s; after that its
  /// numbers begin again, see `reflectorRestartDistance`).
  public static let lostHorizon = 1 << 16

  /// The `capacity` that holds every probe until its deadline with room to spare: twice the
  /// probes of (deadline + 1) seconds at `ratePerSecond`, at least 64.
  public static func capacity(ratePerSecond: Double, deadlineSeconds: Double) -> Int {
    max(64, Int((ratePerSecond * (deadlineSeconds + 1)).rounded(.up) * 2))
  }

  private struct Slot {
    var sequence: UInt32
    var sentAt: CaptureTime
    var reply: ProbeReply?
    var settled: Bool
  }

  /// `capacity`: probes remembered at once (in flight, and settled ones for duplicate and
  /// late answers); at least the rate times the deadline.
  public init(target: Endpoint, deadlineSeconds: Double = 1, capacity: Int = 4096) {
    self.init(
      target: target, deadlineSeconds: deadlineSeconds, capacity: capacity, firstSequence: 0)
  }

  /// A session whose numbering starts elsewhere (tests of the wrap at 2^32).
  init(target: Endpoint, deadlineSeconds: Double, capacity: Int, firstSequence: UInt32) {
    self.target = target
    nextSequence = firstSequence
    nextToSettle = firstSequence
    self.deadlineSeconds = deadlineSeconds
    let size = max(16, capacity)
    slots = Array(
      repeating: Slot(sequence: .max, sentAt: .zero, reply: nil, settled: true), count: size)
    lostBits = Array(repeating: 0, count: Self.lostHorizon / 64)
  }

  /// Probes sent and not settled yet.
  public var inFlight: Int { Int(nextSequence &- nextToSettle) }

  /// The sequence number of the next probe, if it may be sent now.
  public var sequenceToSend: UInt32? {
    inFlight < slots.count ? nextSequence : nil
  }

  /// Records that the probe `sequenceToSend` left at `time` (T1). False, and counted as
  /// skipped, when the in-flight window is full.
  @discardableResult
  public mutating func sent(at time: CaptureTime) -> Bool {
    guard inFlight < slots.count else {
      skipped += 1
      return false
    }
    slots[index(nextSequence)] = Slot(
      sequence: nextSequence, sentAt: time, reply: nil, settled: false)
    // The bit of the probe `lostHorizon` before this one, forgotten now.
    setLost(nextSequence, false)
    nextSequence &+= 1
    sentCount += 1
    return true
  }

  /// What became of an answer.
  public enum Answer: Sendable, Equatable {
    /// The first answer to a probe in flight: it settles in order.
    case accepted
    /// A second answer to the same probe: the sample to hand to the engine now.
    case duplicate(ProbeSample)
    /// After its probe was settled as lost: the sample to hand to the engine now (it tells a
    /// stalled reflector from a slow path, see `ProbeTracker`).
    case late(ProbeSample)
    /// To no probe remembered.
    case unexpected
  }

  /// An answer to probe `sequence` (the Session-Sender Sequence Number the reflector echoed).
  /// `echoedSentAt`: its Session-Sender Timestamp (RFC 8762 section 4.3.1), our T1 as the
  /// reflector copied it, the send time of a late answer's probe that `slots` no longer holds
  /// (without it, T4 stands in).
  public mutating func receive(
    sequence: UInt32, reply: ProbeReply, echoedSentAt: CaptureTime? = nil
  ) -> Answer {
    let age = Int64(Int32(bitPattern: nextSequence &- sequence))
    guard age > 0, age <= max(Self.lostHorizon, slots.count) else {
      unexpected += 1
      countUnexpectedNumber(reply.reflectorSequence)
      return .unexpected
    }
    let slot = slots[index(sequence)]
    guard slot.sequence == sequence else {
      // Forgotten by `slots`: late if it settled lost and nothing answered it since. Anything
      // else (a second answer to a probe answered long ago) cannot be told apart.
      guard isLost(sequence) else {
        unexpected += 1
        countUnexpectedNumber(reply.reflectorSequence)
        return .unexpected
      }
      setLost(sequence, false)
      countReflectorNumber(reply.reflectorSequence)
      late += 1
      return .late(
        ProbeSample(
          target: target, sequence: sequence, sentAt: echoedSentAt ?? reply.receivedAt,
          outcome: .late(reply), reflectorGaps: reflectorGaps))
    }
    if let original = slot.reply {
      // Duplicated on the way there, the reflector numbered both copies: the second number is
      // no gap. Duplicated on the way back, both carry the same number.
      if reply.reflectorSequence != original.reflectorSequence {
        countReflectorNumber(reply.reflectorSequence)
      }
      return .duplicate(
        ProbeSample(
          target: target, sequence: sequence, sentAt: slot.sentAt,
          outcome: .duplicate(receivedAt: reply.receivedAt)))
    }
    countReflectorNumber(reply.reflectorSequence)
    if slot.settled {
      // Kept, so that a second copy of it is a duplicate.
      slots[index(sequence)].reply = reply
      setLost(sequence, false)
      late += 1
      return .late(
        ProbeSample(
          target: target, sequence: sequence, sentAt: slot.sentAt, outcome: .late(reply),
          reflectorGaps: reflectorGaps))
    }
    var reply = reply
    if let highestAnswered, Int32(bitPattern: sequence &- highestAnswered) < 0 {
      reply.reordered = true
    } else {
      highestAnswered = sequence
    }
    slots[index(sequence)].reply = reply
    return .accepted
  }

  /// Settles, in sequence order, the probes answered and those past their deadline at `now`,
  /// stopping at the first still waiting for its answer.
  public mutating func settle(now: CaptureTime, _ body: (ProbeSample) -> Void) {
    while nextToSettle != nextSequence {
      let position = index(nextToSettle)
      let slot = slots[position]
      let outcome: ProbeSample.Outcome
      if let reply = slot.reply {
        outcome = .replied(reply)
      } else if now.seconds(since: slot.sentAt) >= deadlineSeconds {
        outcome = .lost
        setLost(slot.sequence, true)
      } else {
        return
      }
      slots[position].settled = true
      body(
        ProbeSample(
          target: target, sequence: slot.sequence, sentAt: slot.sentAt, outcome: outcome,
          reflectorGaps: reflectorGaps))
      nextToSettle &+= 1
    }
  }

  /// When the oldest probe in flight reaches its deadline (nil: none in flight).
  public var nextDeadline: CaptureTime? {
    guard nextToSettle != nextSequence else { return nil }
    return slots[index(nextToSettle)].sentAt.advanced(bySeconds: deadlineSeconds)
  }

  /// An unexpected answer's reflector number, when it is a new one (above the highest so far,
  /// by less than `reflectorRestartDistance`): the reflector numbered a packet sent with our
  /// address and port that we never sent (spoofed, RFC 8762 section 4.3.2 counts every packet
  /// of the session) and its answer came, so it is no gap. Left uncounted, each such answer
  /// read as a probe of ours lost on the way back (issue 39: 14, 1 and 11 of 900). A number at
  /// or below the highest may be a second copy of an answer already counted: not counted.
  private mutating func countUnexpectedNumber(_ number: UInt32) {
    if let highest = reflectorHighest {
      let ahead = Int64(Int32(bitPattern: number &- highest))
      guard ahead > 0, ahead < Self.reflectorRestartDistance else { return }
    }
    countReflectorNumber(number)
  }

  private mutating func countReflectorNumber(_ number: UInt32) {
    if let highest = reflectorHighest,
      Int64(number) < Int64(highest) - Self.reflectorRestartDistance
    {
      gapsBeforeRestart = reflectorGaps
      reflectorHighest = nil
      reflectorAnswers = 0
    }
    reflectorHighest = max(reflectorHighest ?? number, number)
    reflectorAnswers += 1
  }

  private func index(_ sequence: UInt32) -> Int {
    Int(sequence % UInt32(slots.count))
  }

  private func isLost(_ sequence: UInt32) -> Bool {
    let bit = Int(sequence % UInt32(Self.lostHorizon))
    return lostBits[bit / 64] & (1 << UInt64(bit % 64)) != 0
  }

  private mutating func setLost(_ sequence: UInt32, _ lost: Bool) {
    let bit = Int(sequence % UInt32(Self.lostHorizon))
    if lost {
      lostBits[bit / 64] |= 1 << UInt64(bit % 64)
    } else {
      lostBits[bit / 64] &= ~(1 << UInt64(bit % 64))
    }
  }
}
