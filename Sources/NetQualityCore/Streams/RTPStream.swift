/// Per-packet state of one RTP stream: counters, sequence accounting, jitter. Kept small and
/// free of references so the stream array stays dense and updates happen in place.
struct RTPStream {
  // Layout: the fields every packet touches come first (about 250 bytes: key, counters, clock,
  // jitter and the sequence tracker's hot part); the rest follow. Swift keeps declaration
  // order, and with many streams interleaved a packet's stream is rarely in the L1 cache, so
  // fewer lines touched means fewer misses. (The gain was too small to separate from the noise
  // of the benchmark machine, but it costs nothing.)

  let key: StreamKey
  var packets: Int64 = 0
  var payloadBytes: Int64 = 0
  var wireBytes: Int64 = 0
  var lastArrivalNanoseconds: Int64 = 0
  var maxGapNanoseconds: Int64 = 0
  /// Payload types seen, one bit each (0...127).
  var payloadTypesLow: UInt64 = 0
  var payloadTypesHigh: UInt64 = 0
  /// Clock of the payload type of the previous packet, cached until the payload type or the
  /// SDP seen so far changes.
  var currentClock = PayloadClock.unknown
  var currentPayloadType: UInt8 = .max
  var previousWasComfortNoise = false
  /// How the stream was recognised as RTP; nil while it is only a candidate.
  var confirmation: StreamConfirmation?
  var inferenceState = InferenceState.notNeeded
  // Two cold bytes here, in the padding before `clockGeneration`: the record is 384 bytes (its
  // 16-byte alignment comes from the sequence tracker's window) instead of 400.
  /// The capture interface the stream was first seen on.
  let interface: UInt8
  /// Set while the clock rate of `inferencePayloadType` is being estimated.
  var inferencePayloadType: UInt8 = .max
  var clockGeneration = -1
  var jitter = JitterEstimator()
  var sequence = SequenceTracker()
  /// The highest RTP timestamp so far (modulo 2^32), for recognising streams that repeat it.
  var highestTimestamp: UInt32 = 0
  /// Media, or a stream that repairs another (decided over the first packets: `RepairCheck`).
  var role = StreamRole.media
  /// RTP because a validated stream shares its address pair, in either direction
  /// (`StreamConfirmation.flow`; see `StreamAnalyzer.confirm`). In the padding after `role`.
  var confirmedByFlow = false
  var repair = RepairCheck()

  // Cold: touched on the first packet, after a silence, or by reports.

  /// The stream's buffer in `StreamAnalyzer.inferences` while collecting, else -1.
  var inferenceSlot: Int32 = -1
  /// The stream's RTCP details in `StreamAnalyzer.feedbacks` once it had RTCP, else -1.
  var feedbackSlot: Int32 = -1
  var truncatedPackets: Int64 = 0
  var firstArrivalNanoseconds: Int64 = 0
  /// The arrival that ended the latest silence of a second or more: when traffic resumed.
  var resumedAtNanoseconds: Int64 = 0
  /// Packets lost across silences (the sequence jump at each resume): an outage's loss, which
  /// the scoring leaves to the connection state instead of charging it to the window after.
  var silenceLoss: Int64 = 0
  /// The clock rate reported for the stream: the first one used for jitter (set where a
  /// payload type's clock is resolved, or by inference).
  var reportedClock = PayloadClock.unknown
  /// The stream's media experience (`StreamAnalyzer.videoMedia`, `audioMedia`). Last: it fits
  /// in the 4 bytes after `reportedClock`, and the record stays 384 bytes.
  var mediaSlot = MediaSlot.none

  /// A gap this long is a silence whose end is worth remembering (connection states).
  static let silenceNanoseconds: Int64 = 1_000_000_000

  init(key: StreamKey, interface: UInt8 = 0) {
    self.key = key
    self.interface = interface
  }

  enum InferenceState {
    case notNeeded
    case collecting
    case done
    case failed
  }

  /// What the analyser must do after `record`, on the rare packets that need more.
  struct FollowUp: OptionSet {
    let rawValue: UInt8
    /// The stream just passed probation.
    static let validated = FollowUp(rawValue: 1)
    /// The packet's clock rate is unknown: feed the rate inference.
    static let inferClock = FollowUp(rawValue: 2)
    /// The payload type (or the SDP seen) changed: resolve its clock and record again. Nothing
    /// was recorded.
    static let resolveClock = FollowUp(rawValue: 4)
    /// The stream's role is still being decided: compare the packet with its siblings.
    static let checkRole = FollowUp(rawValue: 8)
    /// The packet was counted (in order or late; not a duplicate, not stray): media
    /// experience follows it (`StreamAnalyzer.recordMedia`).
    static let counted = FollowUp(rawValue: 16)
    /// ... and it was in order.
    static let inOrder = FollowUp(rawValue: 32)
  }

  /// Counters, sequence accounting and jitter for one packet. When the payload type's clock is
  /// not resolved for `clockGeneration`, records nothing and asks for `.resolveClock`.
  @inline(__always)
  mutating func record(
    _ header: RTPHeader, arrivalNanoseconds: Int64, wireBytes frameBytes: Int, truncated: Bool,
    clockGeneration generation: Int
  ) -> FollowUp {
    guard currentPayloadType == header.payloadType && clockGeneration == generation else {
      return .resolveClock
    }
    var followUp: FollowUp = []
    if !repair.isDecided { followUp.insert(.checkRole) }
    let outcome = recordArrival(
      header, arrivalNanoseconds: arrivalNanoseconds, wireBytes: frameBytes, truncated: truncated)
    if confirmation == nil && sequence.isValidated { followUp.insert(.validated) }
    switch outcome {
    case .stray:
      // A big jump not (yet) confirmed as a restart, or a packet far too late (RFC 3550 A.1):
      // it fed no loss figure, and it feeds no timing either.
      return followUp
    case .restart:
      // The restart's packets carry a new timestamp base: transit starts over from here.
      jitter.resynchronise()
      highestTimestamp = header.timestamp
      followUp.insert([.counted, .inOrder])
    case .inOrder, .late, .duplicate:
      switch outcome {
      case .inOrder: followUp.insert([.counted, .inOrder])
      case .late: followUp.insert(.counted)
      default: break
      }
      if packets == 1 || RepairCheck.lag(of: header.timestamp, behind: highestTimestamp) < 0 {
        highestTimestamp = header.timestamp
      }
    }
    let comfortNoise = StaticPayloadTypes.isComfortNoise(header.payloadType)
    defer { previousWasComfortNoise = comfortNoise }
    let clock = currentClock
    guard clock.rateHz > 0 else {
      if inferenceState != .failed { followUp.insert(.inferClock) }
      return followUp
    }
    // RFC 4733 events repeat their timestamp for the length of a tone: no jitter from them.
    guard !clock.isEvent else { return followUp }
    // Wireshark leaves talkspurt starts (marker) and comfort noise, and the packet after it,
    // out of the jitter maximum and mean: their transit says little about the network.
    jitter.update(
      arrivalNanoseconds: arrivalNanoseconds, timestamp: header.timestamp,
      secondsPerTick: clock.secondsPerTick,
      countsTowardsSummary: !header.marker && !comfortNoise && !previousWasComfortNoise)
    return followUp
  }

  @inline(__always)
  @discardableResult
  mutating func recordArrival(
    _ header: RTPHeader, arrivalNanoseconds: Int64, wireBytes frameBytes: Int, truncated: Bool
  ) -> SequenceTracker.Outcome {
    var resuming = false
    if packets == 0 {
      firstArrivalNanoseconds = arrivalNanoseconds
      resumedAtNanoseconds = arrivalNanoseconds
    } else {
      let gap = arrivalNanoseconds &- lastArrivalNanoseconds
      if gap > maxGapNanoseconds { maxGapNanoseconds = gap }
      if gap >= Self.silenceNanoseconds {
        resumedAtNanoseconds = arrivalNanoseconds
        resuming = true
      }
    }
    lastArrivalNanoseconds = arrivalNanoseconds
    wireBytes &+= Int64(frameBytes)
    if truncated { truncatedPackets &+= 1 }
    countArrival(header)
    if resuming { return recordResume(header) }
    return sequence.record(header.sequenceNumber)
  }

  @inline(__always)
  private mutating func countArrival(_ header: RTPHeader) {
    packets &+= 1
    payloadBytes &+= Int64(header.payloadLength)
    if header.payloadType < 64 {
      payloadTypesLow |= 1 << UInt64(header.payloadType)
    } else {
      payloadTypesHigh |= 1 << UInt64(header.payloadType - 64)
    }
  }

  /// The first packet after the capture's blind span (`CaptureBlindSpan`), `sequence` its
  /// number: the stream's silence was the capture's, so it is no silence of the stream (no
  /// resume, no outage) and the numbers it skipped are not lost (`SequenceTracker.skip(to:)`).
  /// Record the packet itself next. Returns the sequence numbers skipped.
  mutating func resumeAfterBlindness(sequence number: UInt16, arrivalNanoseconds: Int64) -> Int64 {
    lastArrivalNanoseconds = arrivalNanoseconds
    return sequence.skip(to: number)
  }

  /// Sequence accounting of the first packet after a silence, remembering the sequence jump it
  /// makes as silence loss.
  private mutating func recordResume(_ header: RTPHeader) -> SequenceTracker.Outcome {
    let expectedBefore = sequence.expected
    let outcome = sequence.record(header.sequenceNumber)
    if outcome == .inOrder { silenceLoss += max(0, sequence.expected - expectedBefore - 1) }
    return outcome
  }

  var payloadTypes: [Int] {
    (0..<128).filter { type in
      type < 64
        ? payloadTypesLow & (1 << UInt64(type)) != 0
        : payloadTypesHigh & (1 << UInt64(type - 64)) != 0
    }
  }
}

/// Why a stream counts as RTP.
public enum StreamConfirmation: String, Sendable, Codable {
  /// RFC 3550 A.1 probation: MIN_SEQUENTIAL packets in sequence.
  case sequence
  /// Its endpoint was announced in SDP seen in the capture.
  case sdp
  /// Another confirmed RTP stream uses the same address/port pair (either direction).
  case flow
}

/// The RTP clock of one payload type as the engine resolved it.
struct PayloadClock: Equatable {
  var rateHz: Double
  /// 1 / rateHz, kept so the per-packet jitter update multiplies instead of dividing.
  var secondsPerTick: Double
  var source: ClockRateSource
  /// RFC 4733 telephone events repeat their timestamp: no jitter from them.
  var isEvent: Bool

  init(rateHz: Double, source: ClockRateSource, isEvent: Bool) {
    self.rateHz = rateHz
    self.secondsPerTick = rateHz > 0 ? 1 / rateHz : 0
    self.source = source
    self.isEvent = isEvent
  }

  static let unknown = PayloadClock(rateHz: 0, source: .unknown, isEvent: false)
}
