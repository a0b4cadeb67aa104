/// One synthetic probe, settled by the probe session: answered by the reflector, or lost (no
/// answer by its deadline), or a second answer to a probe already answered, or an answer after
/// the deadline. The session hands the first two over in sequence order, so the engine can
/// tell which direction lost what (see `ProbeTracker`), and the others as they come.
///
/// Times follow RFC 8762 section 4: T1 our send, T2 the reflector's receive, T3 its send, T4
/// our receive. T1 and T4 are on our clock, T2 and T3 on the reflector's.
public struct ProbeSample: Sendable, Equatable {
  /// The reflector the probe went to; its address is the peer.
  public var target: Endpoint
  /// Our sequence number (RFC 8762 section 4.2.1: from 0, one more per packet sent).
  public var sequence: UInt32
  /// T1 (of a late answer whose probe the session no longer held: as the reflector echoed it).
  public var sentAt: CaptureTime
  public var outcome: Outcome
  /// Answers the reflector sent that never came, so far in the session: the gaps in its
  /// sequence numbers, counted in the order answers arrive like RTP sequence gaps (a late
  /// answer fills its gap back in). The engine splits lost probes by direction with it: a
  /// probe lost on the way back left a gap, one lost on the way there did not.
  public var reflectorGaps: Int64

  public enum Outcome: Sendable, Equatable {
    case replied(ProbeReply)
    /// No answer by the session's deadline.
    case lost
    /// Another answer to a probe already answered (duplicated on the way), at this time.
    case duplicate(receivedAt: CaptureTime)
    /// The answer to a probe settled `lost` before it came.
    case late(ProbeReply)
    /// An answer to no probe the session remembers, from the reflector's address (and with
    /// the session's key, if any), at this time: the answer to a packet someone else sent with
    /// our address and port (spoofed), or a copy replayed. Counted, never taken as ours.
    case unexpected(receivedAt: CaptureTime)
  }

  public init(
    target: Endpoint, sequence: UInt32, sentAt: CaptureTime, outcome: Outcome,
    reflectorGaps: Int64 = 0
  ) {
    self.target = target
    self.sequence = sequence
    self.sentAt = sentAt
    self.outcome = outcome
    self.reflectorGaps = reflectorGaps
  }
}

/// The reflector's answer to one probe (RFC 8762 section 4.3).
public struct ProbeReply: Sendable, Equatable {
  /// T2, on the reflector's clock.
  public var reflectorReceivedAt: CaptureTime
  /// T3, on the reflector's clock.
  public var reflectorSentAt: CaptureTime
  /// T4.
  public var receivedAt: CaptureTime
  /// The reflector's own sequence number: a stateful reflector (RFC 8762 section 4.3.2) counts
  /// the probes it received, which tells forward loss from backward loss.
  public var reflectorSequence: UInt32
  /// Both ends said their clocks are synchronised (the S bits of both error estimates, RFC
  /// 4656 section 4.1.2): only then are T2 - T1 and T4 - T3 one-way delays.
  public var clocksSynchronized: Bool
  /// Answered after a probe with a higher sequence number was.
  public var reordered: Bool
  /// T4 came from the kernel (SO_TIMESTAMPNS), not from a clock read after the receive call.
  public var kernelTimestamp: Bool

  public init(
    reflectorReceivedAt: CaptureTime, reflectorSentAt: CaptureTime, receivedAt: CaptureTime,
    reflectorSequence: UInt32, clocksSynchronized: Bool = false, reordered: Bool = false,
    kernelTimestamp: Bool = false
  ) {
    self.reflectorReceivedAt = reflectorReceivedAt
    self.reflectorSentAt = reflectorSentAt
    self.receivedAt = receivedAt
    self.reflectorSequence = reflectorSequence
    self.clocksSynchronized = clocksSynchronized
    self.reordered = reordered
    self.kernelTimestamp = kernelTimestamp
  }
}
