/// Counts over everything the analyser was fed, whether or not it became part of a stream.
public struct CaptureCounters: Sendable, Equatable, Encodable {
  public var frames: Int64 = 0
  public var udpDatagrams: Int64 = 0
  /// RTP packets of reported streams (candidates that never validated are not included).
  public var rtpPackets: Int64 = 0
  /// UDP datagrams that were neither reported RTP nor RTCP.
  public var nonRTPUDP: Int64 = 0
  /// RTCP compound packets (one per datagram).
  public var rtcpPackets: Int64 = 0
  /// RTCP whose packets do not tile the datagram (SRTCP, RFC 3711 section 3.4): counted, not
  /// parsed past the first header.
  public var unparsedRTCPPackets: Int64 = 0
  public var stunPackets: Int64 = 0
  public var dtlsPackets: Int64 = 0
  /// TURN ChannelData datagrams; their RTP, RTCP and DTLS are unwrapped and counted as such
  /// too.
  public var turnChannelDataPackets: Int64 = 0
  /// ICE Binding checks paired with their response (round trips, see `ingestSTUN`).
  public var stunRoundTrips: Int64 = 0
  /// DTLS alert records (close_notify at a hangup) and TURN allocations released: call ends.
  public var dtlsAlerts: Int64 = 0
  public var turnAllocationsReleased: Int64 = 0
  public var sipMessagesWithSDP: Int64 = 0
  /// The agent's own STAMP probes and reflector answers (`ProbeTrafficFilter`), not analysed.
  public var probePackets: Int64 = 0
  public var nonIP: Int64 = 0
  public var otherTransport: Int64 = 0
  public var ipFragments: Int64 = 0
  /// Frames the snap length cut short.
  public var truncated: Int64 = 0
  /// Frames or payloads whose headers contradict themselves, by reason.
  public var decodeErrors: [String: Int64] = [:]
  /// RTP packets not tracked because the stream table was full.
  public var streamTableFull: Int64 = 0
  /// RTCP report blocks about an SSRC with no RTP stream in the capture.
  public var unmatchedReportBlocks: Int64 = 0
  /// RTCP report blocks whose highest sequence ran further ahead of the last one than their
  /// stream sent packets (`ReportCoverage`): not about what was sent, not used.
  public var implausibleReportBlocks: Int64 = 0
  /// Streams forgotten after a long silence (the live agent's memory bound).
  public var forgottenStreams: Int64 = 0
  /// Times the capture clock stepped back and the analysis followed it (see `CaptureClock`).
  public var clockSteps: Int64 = 0
  /// Single packets stamped far behind their neighbours, placed in arrival order instead.
  public var outOfOrderTimestamps: Int64 = 0
  /// Capture records whose timestamp is no time (a sub-second field of a second or more, or
  /// negative as libpcap reads it): counted, and analysed at the latest record's time (among
  /// `frames`), so that they are neither lost packets nor jitter.
  public var badTimestampRecords: Int64 = 0
  /// RTP sequence numbers a stream skipped across the live capture's blind spans
  /// (`CaptureBlindSpan`): neither received nor lost, as far as the capture knows.
  public var packetsSkippedWhileBlind: Int64 = 0

  public init() {}

  public var decodeErrorTotal: Int64 { decodeErrors.values.reduce(0, +) }

  enum CodingKeys: String, CodingKey {
    case frames = "packets"
    case udpDatagrams = "udp_packets"
    case rtpPackets = "rtp_packets"
    case nonRTPUDP = "non_rtp_udp"
    case rtcpPackets = "rtcp_packets"
    case unparsedRTCPPackets = "rtcp_unparsed_packets"
    case stunPackets = "stun_packets"
    case dtlsPackets = "dtls_packets"
    case turnChannelDataPackets = "turn_channel_data_packets"
    case stunRoundTrips = "stun_round_trips"
    case dtlsAlerts = "dtls_alerts"
    case turnAllocationsReleased = "turn_allocations_released"
    case sipMessagesWithSDP = "sip_sdp_messages"
    case probePackets = "probe_packets"
    case nonIP = "non_ip"
    case otherTransport = "non_udp_ip"
    case ipFragments = "ip_fragments"
    case truncated
    case decodeErrors = "decode_errors_by_reason"
    case decodeErrorTotal = "decode_errors"
    case streamTableFull = "stream_table_full"
    case unmatchedReportBlocks = "unmatched_report_blocks"
    case implausibleReportBlocks = "implausible_report_blocks"
    case forgottenStreams = "forgotten_streams"
    case clockSteps = "clock_steps"
    case outOfOrderTimestamps = "out_of_order_timestamps"
    case badTimestampRecords = "bad_timestamp_records"
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(frames, forKey: .frames)
    try container.encode(udpDatagrams, forKey: .udpDatagrams)
    try container.encode(rtpPackets, forKey: .rtpPackets)
    try container.encode(nonRTPUDP, forKey: .nonRTPUDP)
    try container.encode(rtcpPackets, forKey: .rtcpPackets)
    try container.encode(unparsedRTCPPackets, forKey: .unparsedRTCPPackets)
    try container.encode(stunPackets, forKey: .stunPackets)
    try container.encode(dtlsPackets, forKey: .dtlsPackets)
    try container.encode(turnChannelDataPackets, forKey: .turnChannelDataPackets)
    try container.encode(stunRoundTrips, forKey: .stunRoundTrips)
    try container.encode(dtlsAlerts, forKey: .dtlsAlerts)
    try container.encode(turnAllocationsReleased, forKey: .turnAllocationsReleased)
    try container.encode(sipMessagesWithSDP, forKey: .sipMessagesWithSDP)
    try container.encode(probePackets, forKey: .probePackets)
    try container.encode(nonIP, forKey: .nonIP)
    try container.encode(otherTransport, forKey: .otherTransport)
    try container.encode(ipFragments, forKey: .ipFragments)
    try container.encode(truncated, forKey: .truncated)
    try container.encode(decodeErrorTotal, forKey: .decodeErrorTotal)
    try container.encode(decodeErrors, forKey: .decodeErrors)
    try container.encode(streamTableFull, forKey: .streamTableFull)
    try container.encode(unmatchedReportBlocks, forKey: .unmatchedReportBlocks)
    try container.encode(implausibleReportBlocks, forKey: .implausibleReportBlocks)
    try container.encode(forgottenStreams, forKey: .forgottenStreams)
    try container.encode(clockSteps, forKey: .clockSteps)
    try container.encode(outOfOrderTimestamps, forKey: .outOfOrderTimestamps)
    try container.encode(badTimestampRecords, forKey: .badTimestampRecords)
  }
}

/// Counters of decode errors kept as fixed fields on the hot path and turned into the
/// by-reason dictionary at report time.
struct DecodeErrorCounters {
  private var counts = InlineArray<8, Int64>(repeating: 0)

  @inline(__always)
  mutating func count(_ reason: MalformedReason) {
    counts[reason.slot] += 1
  }

  var byReason: [String: Int64] {
    var result: [String: Int64] = [:]
    for reason in MalformedReason.allCases where counts[reason.slot] > 0 {
      result[reason.rawValue] = counts[reason.slot]
    }
    return result
  }
}

extension MalformedReason {
  var slot: Int {
    switch self {
    case .linkHeader: 0
    case .ipHeader: 1
    case .ipLength: 2
    case .udpLength: 3
    case .rtpHeader: 4
    case .rtcpLength: 5
    case .rtcpFeedback: 6
    }
  }
}
