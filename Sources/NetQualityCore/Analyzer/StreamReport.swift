/// Everything known about one RTP stream at the time of the report, in plain values.
public struct StreamReport: Sendable {
  public var key: StreamKey
  public var confirmation: StreamConfirmation
  /// Media, or a stream that repairs another: `repairedSSRC` (when recognised by behaviour).
  public var role: StreamRole
  public var repairedSSRC: UInt32?
  /// tx/rx relative to the local networks given, when any were.
  public var direction: StreamDirection?
  public var payloadTypes: [Int]
  /// Encoding name from SDP, or the RFC 3551 name of a static payload type.
  public var encodingName: String?
  public var packets: Int64
  public var payloadBytes: Int64
  public var wireBytes: Int64
  public var truncatedPackets: Int64
  public var firstTime: CaptureTime
  public var lastTime: CaptureTime
  public var expected: Int64
  public var lost: Int64
  public var duplicates: Int64
  /// Packets that arrived after a higher sequence number (late or reordered).
  public var reordered: Int64
  public var sequenceResets: Int64
  public var longestLossBurst: Int64
  public var clockRateHz: Int?
  public var clockRateSource: ClockRateSource
  /// nil when the clock rate is unknown: no jitter rather than a wrong one.
  public var maxJitterSeconds: Double?
  public var meanJitterSeconds: Double?
  public var lastJitterSeconds: Double?
  public var maxDeltaSeconds: Double
  public var feedback: ReceptionFeedback
  /// Video frames and freezes, or the audio concealment estimate (docs/media.md); nil for a
  /// stream without media tracking (repairs, events, unknown clock).
  public var media: MediaCounts? = nil
  /// Whether `media` counts video frames.
  public var isVideo = false

  public var durationSeconds: Double {
    lastTime.seconds(since: firstTime)
  }

  /// RTP payload bit rate over the stream's lifetime; nil for a single instant.
  public var payloadBitsPerSecond: Double? {
    durationSeconds > 0 ? Double(payloadBytes) * 8 / durationSeconds : nil
  }

  public var lossFraction: Double { expected > 0 ? Double(lost) / Double(expected) : 0 }

  /// Jitter receivers reported in RTCP, converted with the stream's clock rate.
  public var reportedJitterSeconds: Double? {
    guard let units = feedback.lastJitterTimestampUnits, let rate = clockRateHz else { return nil }
    return Double(units) / Double(rate)
  }
}

/// A stream's direction relative to the local networks.
public enum StreamDirection: String, Sendable, Codable {
  /// Local to remote: our uplink.
  case tx
  /// Remote to local: our downlink.
  case rx
  /// Both ends local.
  case local
  /// Neither end local.
  case transit

  public init(source: IPAddress, destination: IPAddress, localNetworks: [NetworkPrefix]) {
    let sourceLocal = localNetworks.contains { $0.contains(source) }
    let destinationLocal = localNetworks.contains { $0.contains(destination) }
    switch (sourceLocal, destinationLocal) {
    case (true, false): self = .tx
    case (false, true): self = .rx
    case (true, true): self = .local
    case (false, false): self = .transit
    }
  }
}

/// The result of analysing a capture or a live feed so far.
public struct AnalysisReport: Sendable {
  public var capture: CaptureCounters
  public var streams: [StreamReport]
  /// RTCP feedback between each pair of addresses (docs/media.md).
  public var feedbackByPair: [AddressPair: FeedbackCounts] = [:]

  public init(capture: CaptureCounters, streams: [StreamReport]) {
    self.capture = capture
    self.streams = streams
  }
}
