/// What RTCP says about one RTP stream: its sender's SRs, the report blocks receivers sent
/// about it, feedback messages and XR VoIP metrics, and the round-trip times they yield.
public struct ReceptionFeedback: Sendable {
  public var senderReports = 0
  public var lastSenderPacketCount: UInt32?
  public var lastSenderOctetCount: UInt32?
  public var reportBlocks = 0
  /// When the last report block about the stream arrived (for staleness).
  public var lastReportTime: CaptureTime?
  /// When the one before it arrived: the last report's fraction lost covers the time between.
  public var previousReportTime: CaptureTime?
  /// When the stream's sender last sent RTCP (an SR or SDES from it keeps the stream alive
  /// through silence suppression).
  public var lastSenderRTCPTime: CaptureTime?
  public var lastFractionLost: Double?
  public var maxFractionLost: Double?
  public var lastCumulativeLost: Int32?
  /// The extended highest sequence number received, of the last report block.
  public var lastExtendedHighestSequence: UInt32?
  /// The stream's packets the capture had seen when the last report block arrived.
  var packetsAtLastReport: Int64 = 0
  /// The stream's own loss as the capture counted it (RFC 3550 appendix A.3) when the last
  /// report block arrived: at a relay, the gaps its egress already had, which the far end's
  /// cumulative loss counts too (`CallRecord.Stream.downstreamLost`).
  public var streamLostAtLastReport: Int64 = 0
  /// What the last report covers beyond the one before it: the packets it counts and how many
  /// of them it counts lost (nil for the first report, whose start is unknown, and for one that
  /// cannot be read against the one before it: `ReportCoverage.init`).
  public var lastCoverage: ReportCoverage?
  /// Interarrival jitter reported by receivers, in timestamp units.
  public var lastJitterTimestampUnits: UInt32?
  public var maxJitterTimestampUnits: UInt32?
  public var roundTrip = RoundTripStatistics()
  public var canonicalName: String?
  public var goodbyeTime: CaptureTime?
  public var appPackets = 0
  public var nackMessages = 0
  public var nackedPackets = 0
  public var pictureLossIndications = 0
  public var fullIntraRequests = 0
  public var lastREMBBitsPerSecond: Double?
  public var voipMetrics: RTCPVoIPMetrics?

  public init() {}

  /// Records a report block about the stream, which had sent `streamPackets` when it arrived.
  /// A block whose highest sequence ran further ahead than the stream sent (`ReportCoverage`)
  /// is not about what was sent: it changes nothing, and false says so.
  mutating func record(
    _ block: RTCPReportBlock, at time: CaptureTime, streamPackets: Int64, streamLost: Int64 = 0
  ) -> Bool {
    var coverage: ReportCoverage?
    if let previous = lastExtendedHighestSequence {
      coverage = ReportCoverage(
        from: (previous, lastCumulativeLost ?? 0),
        to: (block.extendedHighestSequence, block.cumulativeLost),
        packetsSent: streamPackets - packetsAtLastReport)
      let advance = Int32(bitPattern: block.extendedHighestSequence &- previous)
      if coverage == nil, advance > 0 { return false }
    }
    lastCoverage = coverage
    packetsAtLastReport = streamPackets
    streamLostAtLastReport = streamLost
    reportBlocks += 1
    previousReportTime = lastReportTime
    lastReportTime = time
    // RFC 3550 section 6.4.1: fraction lost is an 8-bit fixed-point number, binary point at the
    // left edge.
    let fraction = Double(block.fractionLost) / 256
    lastFractionLost = fraction
    maxFractionLost = max(maxFractionLost ?? 0, fraction)
    lastExtendedHighestSequence = block.extendedHighestSequence
    lastCumulativeLost = block.cumulativeLost
    lastJitterTimestampUnits = block.jitter
    maxJitterTimestampUnits = max(maxJitterTimestampUnits ?? 0, block.jitter)
    return true
  }

  mutating func record(_ message: RTCPFeedback) {
    switch message.kind {
    case .nack(let packets):
      nackMessages += 1
      nackedPackets += packets
    case .pli: pictureLossIndications += 1
    case .fir: fullIntraRequests += 1
    case .remb(let bitsPerSecond): lastREMBBitsPerSecond = bitsPerSecond
    case .transportWide, .other: break
    }
  }
}

/// Round-trip samples from LSR/DLSR, seconds.
public struct RoundTripStatistics: Sendable, Equatable {
  public private(set) var samples = 0
  public private(set) var lastSeconds: Double?
  /// When the report that gave the last sample arrived.
  public private(set) var lastTime: CaptureTime?
  public private(set) var minSeconds: Double?
  public private(set) var maxSeconds: Double?
  private var sumSeconds = 0.0

  public init() {}

  public var meanSeconds: Double? { samples == 0 ? nil : sumSeconds / Double(samples) }

  mutating func add(_ seconds: Double, at time: CaptureTime) {
    samples += 1
    sumSeconds += seconds
    lastSeconds = seconds
    lastTime = time
    minSeconds = min(minSeconds ?? seconds, seconds)
    maxSeconds = max(maxSeconds ?? seconds, seconds)
  }
}
