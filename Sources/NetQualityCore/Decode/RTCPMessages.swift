/// Sender information of an SR (RFC 3550 section 6.4.1).
public struct RTCPSenderInfo: Sendable, Equatable {
  public var ssrc: UInt32
  /// 64-bit NTP timestamp: seconds since 1900 in the high word, fraction in the low word.
  public var ntpTimestamp: UInt64
  public var rtpTimestamp: UInt32
  public var packetCount: UInt32
  public var octetCount: UInt32

  /// The middle 32 bits of the NTP timestamp, as echoed in LSR (RFC 3550 section 6.4.1).
  public var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }
}

/// One reception report block of an SR or RR (RFC 3550 section 6.4.1).
public struct RTCPReportBlock: Sendable, Equatable {
  /// SSRC of the RTCP packet's sender, who received the stream.
  public var reporterSSRC: UInt32
  /// SSRC of the stream the block describes.
  public var sourceSSRC: UInt32
  /// Fraction lost since the previous report, in 1/256 (8-bit fixed point).
  public var fractionLost: UInt8
  /// Cumulative packets lost, signed 24-bit (duplicates can make it negative).
  public var cumulativeLost: Int32
  public var extendedHighestSequence: UInt32
  /// Interarrival jitter in timestamp units.
  public var jitter: UInt32
  /// Middle 32 bits of the last SR's NTP timestamp, 0 when none was received.
  public var lastSR: UInt32
  /// Delay since that SR, in 1/65536 s.
  public var delaySinceLastSR: UInt32

  public init(
    reporterSSRC: UInt32, sourceSSRC: UInt32, fractionLost: UInt8, cumulativeLost: Int32,
    extendedHighestSequence: UInt32, jitter: UInt32, lastSR: UInt32, delaySinceLastSR: UInt32
  ) {
    self.reporterSSRC = reporterSSRC
    self.sourceSSRC = sourceSSRC
    self.fractionLost = fractionLost
    self.cumulativeLost = cumulativeLost
    self.extendedHighestSequence = extendedHighestSequence
    self.jitter = jitter
    self.lastSR = lastSR
    self.delaySinceLastSR = delaySinceLastSR
  }
}

/// RFC 3611 section 4.7: VoIP Metrics report block (XR block type 7).
public struct RTCPVoIPMetrics: Sendable, Equatable {
  public var reporterSSRC: UInt32
  public var sourceSSRC: UInt32
  /// Loss and discard rates in 1/256.
  public var lossRate: UInt8
  public var discardRate: UInt8
  public var burstDensity: UInt8
  public var gapDensity: UInt8
  public var burstDurationMilliseconds: UInt16
  public var gapDurationMilliseconds: UInt16
  public var roundTripDelayMilliseconds: UInt16
  public var endSystemDelayMilliseconds: UInt16
  /// dBm0, 127 = unavailable.
  public var signalLevel: Int8
  public var noiseLevel: Int8
  public var residualEchoReturnLoss: UInt8
  public var gmin: UInt8
  /// 0..100, 127 = unavailable.
  public var rFactor: UInt8
  public var externalRFactor: UInt8
  /// MOS times 10, 127 = unavailable.
  public var mosLQ: UInt8
  public var mosCQ: UInt8
  public var receiverConfiguration: UInt8
  public var jitterBufferNominalMilliseconds: UInt16
  public var jitterBufferMaximumMilliseconds: UInt16
  public var jitterBufferAbsoluteMaximumMilliseconds: UInt16
}

/// A transport- or payload-specific feedback message (RFC 4585 section 6, RFC 5104).
public struct RTCPFeedback: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// Generic NACK (RTPFB FMT 1), with the number of packets it asks for (PID + BLP bits).
    case nack(packets: Int)
    /// Picture Loss Indication (PSFB FMT 1).
    case pli
    /// Full Intra Request (PSFB FMT 4, RFC 5104 section 4.3.1).
    case fir
    /// Receiver Estimated Maximum Bitrate (PSFB FMT 15, draft-alvestrand-rmcat-remb).
    case remb(bitsPerSecond: Double)
    /// Transport-wide congestion control feedback (RTPFB FMT 15,
    /// draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
    case transportWide
    /// Any other feedback message.
    case other
  }

  public var kind: Kind

  /// The largest REMB estimate taken: 100 Gbit/s, the fastest Ethernet in common use (IEEE
  /// 802.3ba); no media path carries more. The field itself reaches 2.4e24 bit/s (an 18-bit
  /// mantissa times 2 to a 6-bit exponent, draft-alvestrand-rmcat-remb-03 section 2.2); an
  /// estimate above this is counted malformed (`rtcp_feedback`) and never shown (issue 39: a
  /// REMB of 2.4e24 bit/s was accepted and shown).
  public static let maximumEstimateBitsPerSecond = 100e9

  /// Whether every figure is within its bound (only REMB's estimate has a field wide enough
  /// to go beyond one: a NACK's packets are bounded by its length).
  public var isPlausible: Bool {
    if case .remb(let bitsPerSecond) = kind {
      return bitsPerSecond <= Self.maximumEstimateBitsPerSecond
    }
    return true
  }
  public var senderSSRC: UInt32
  /// The media source the feedback is about.
  public var mediaSSRC: UInt32
}
