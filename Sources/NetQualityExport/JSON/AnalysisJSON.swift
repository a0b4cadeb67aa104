import Foundation
import NetQualityCore

/// The JSON form of an analysis: `{"capture": {...}, "streams": [...]}`, keys in snake case,
/// times in Unix seconds, durations in milliseconds where the key says `_ms`.
public enum AnalysisJSON {
  public static func render(_ report: AnalysisReport, file: String? = nil, readError: String? = nil)
    throws -> String
  {
    let document = Document(
      file: file, readError: readError, capture: report.capture,
      streams: report.streams.map(StreamJSON.init),
      feedback: report.feedbackByPair.filter { !$0.value.isEmpty }.sorted {
        ($0.key.source, $0.key.destination) < ($1.key.source, $1.key.destination)
      }.map { FeedbackJSON(pair: $0.key, counts: $0.value) })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Encoding names and CNAMEs come from the wire: no raw control character of theirs.
    return JSONValue.escapingDELAndC1(String(decoding: try encoder.encode(document), as: UTF8.self))
  }

  struct Document: Encodable {
    var file: String?
    var readError: String?
    var capture: CaptureCounters
    var streams: [StreamJSON]
    var feedback: [FeedbackJSON]

    enum CodingKeys: String, CodingKey {
      case file
      case capture
      case streams
      case readError = "read_error"
      case feedback = "rtcp_feedback"
    }

    func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(file, forKey: .file)
      try container.encode(readError, forKey: .readError)
      try container.encode(capture, forKey: .capture)
      try container.encode(streams, forKey: .streams)
      try container.encode(feedback, forKey: .feedback)
    }
  }

  /// RTCP feedback one address sent another (docs/media.md).
  struct FeedbackJSON: Encodable {
    let pair: AddressPair
    let counts: FeedbackCounts

    enum Keys: String, CodingKey {
      case from, to
      case nack = "nack_count"
      case nacked = "nacked_packets"
      case pli = "pli_count"
      case fir = "fir_count"
      case remb = "remb_count"
      case rembBPS = "remb_bps"
      case transportCC = "transport_cc_count"
      case encrypted = "encrypted_count"
    }

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(pair.source.description, forKey: .from)
      try c.encode(pair.destination.description, forKey: .to)
      try c.encode(counts.nackMessages, forKey: .nack)
      try c.encode(counts.nackedPackets, forKey: .nacked)
      try c.encode(counts.pictureLossIndications, forKey: .pli)
      try c.encode(counts.fullIntraRequests, forKey: .fir)
      try c.encode(counts.estimateMessages, forKey: .remb)
      try c.encode(counts.lastEstimateBitsPerSecond, forKey: .rembBPS)
      try c.encode(counts.transportFeedbackMessages, forKey: .transportCC)
      try c.encode(counts.encryptedMessages, forKey: .encrypted)
    }
  }

  /// Milliseconds rounded to the nanosecond, so output is stable and readable.
  static func milliseconds(_ seconds: Double?) -> Double? {
    seconds.map { ($0 * 1e9).rounded() / 1e6 }
  }

  struct StreamJSON: Encodable {
    let stream: StreamReport

    init(_ stream: StreamReport) { self.stream = stream }

    enum Keys: String, CodingKey {
      case src
      case srcPort = "src_port"
      case dst
      case dstPort = "dst_port"
      case ssrc
      case payloadTypes = "payload_types"
      case encoding
      case direction
      case confirmedBy = "confirmed_by"
      case role
      case repairs
      case packets
      case payloadBytes = "payload_bytes"
      case wireBytes = "wire_bytes"
      case truncatedPackets = "truncated_packets"
      case expected
      case lost
      case lossRatio = "loss_ratio"
      case duplicates
      case reordered
      case sequenceResets = "sequence_resets"
      case longestLossBurst = "longest_loss_burst"
      case firstTime = "first_time"
      case lastTime = "last_time"
      case durationSeconds = "duration_s"
      case bitrate = "payload_bitrate_bps"
      case clockRate = "clock_rate"
      case clockRateSource = "clock_rate_source"
      case maxJitter = "max_jitter_ms"
      case meanJitter = "mean_jitter_ms"
      case lastJitter = "last_jitter_ms"
      case maxDelta = "max_delta_ms"
      case rtt = "rtt_ms"
      case rttMin = "rtt_min_ms"
      case rttMax = "rtt_max_ms"
      case rttSamples = "rtt_samples"
      case rtcp
      case media
    }

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(stream.key.source.address.description, forKey: .src)
      try c.encode(stream.key.source.port, forKey: .srcPort)
      try c.encode(stream.key.destination.address.description, forKey: .dst)
      try c.encode(stream.key.destination.port, forKey: .dstPort)
      try c.encode(SSRCFormat.text(stream.key.ssrc), forKey: .ssrc)
      try c.encode(stream.payloadTypes, forKey: .payloadTypes)
      try c.encode(stream.encodingName, forKey: .encoding)
      try c.encode(stream.direction, forKey: .direction)
      try c.encode(stream.confirmation, forKey: .confirmedBy)
      try c.encode(stream.role, forKey: .role)
      try c.encode(stream.repairedSSRC.map(SSRCFormat.text), forKey: .repairs)
      try c.encode(stream.packets, forKey: .packets)
      try c.encode(stream.payloadBytes, forKey: .payloadBytes)
      try c.encode(stream.wireBytes, forKey: .wireBytes)
      try c.encode(stream.truncatedPackets, forKey: .truncatedPackets)
      try c.encode(stream.expected, forKey: .expected)
      try c.encode(stream.lost, forKey: .lost)
      try c.encode(stream.lossFraction, forKey: .lossRatio)
      try c.encode(stream.duplicates, forKey: .duplicates)
      try c.encode(stream.reordered, forKey: .reordered)
      try c.encode(stream.sequenceResets, forKey: .sequenceResets)
      try c.encode(stream.longestLossBurst, forKey: .longestLossBurst)
      try c.encode(stream.firstTime.secondsSinceEpoch, forKey: .firstTime)
      try c.encode(stream.lastTime.secondsSinceEpoch, forKey: .lastTime)
      try c.encode(stream.durationSeconds, forKey: .durationSeconds)
      try c.encode(stream.payloadBitsPerSecond, forKey: .bitrate)
      try c.encode(stream.clockRateHz, forKey: .clockRate)
      try c.encode(stream.clockRateSource, forKey: .clockRateSource)
      try c.encode(milliseconds(stream.maxJitterSeconds), forKey: .maxJitter)
      try c.encode(milliseconds(stream.meanJitterSeconds), forKey: .meanJitter)
      try c.encode(milliseconds(stream.lastJitterSeconds), forKey: .lastJitter)
      try c.encode(milliseconds(stream.maxDeltaSeconds), forKey: .maxDelta)
      let roundTrip = stream.feedback.roundTrip
      try c.encode(milliseconds(roundTrip.meanSeconds), forKey: .rtt)
      try c.encode(milliseconds(roundTrip.minSeconds), forKey: .rttMin)
      try c.encode(milliseconds(roundTrip.maxSeconds), forKey: .rttMax)
      try c.encode(roundTrip.samples, forKey: .rttSamples)
      try c.encode(RTCPJSON(stream: stream), forKey: .rtcp)
      try c.encode(
        stream.media.map { MediaCountsJSON(counts: $0, isVideo: stream.isVideo) }, forKey: .media)
    }
  }

  struct RTCPJSON: Encodable {
    let stream: StreamReport

    enum Keys: String, CodingKey {
      case senderReports = "sender_reports"
      case reportBlocks = "report_blocks"
      case fractionLost = "fraction_lost"
      case maxFractionLost = "max_fraction_lost"
      case cumulativeLost = "cumulative_lost"
      case jitter = "reported_jitter_ms"
      case cname
      case byeTime = "bye_time"
      case app = "app_packets"
      case nack = "nack_messages"
      case nackPackets = "nack_packets"
      case pli
      case fir
      case remb = "remb_bps"
      case voip = "xr_voip_metrics"
    }

    func encode(to encoder: Encoder) throws {
      let feedback = stream.feedback
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(feedback.senderReports, forKey: .senderReports)
      try c.encode(feedback.reportBlocks, forKey: .reportBlocks)
      try c.encode(feedback.lastFractionLost, forKey: .fractionLost)
      try c.encode(feedback.maxFractionLost, forKey: .maxFractionLost)
      try c.encode(feedback.lastCumulativeLost, forKey: .cumulativeLost)
      try c.encode(milliseconds(stream.reportedJitterSeconds), forKey: .jitter)
      try c.encode(feedback.canonicalName, forKey: .cname)
      try c.encode(feedback.goodbyeTime?.secondsSinceEpoch, forKey: .byeTime)
      try c.encode(feedback.appPackets, forKey: .app)
      try c.encode(feedback.nackMessages, forKey: .nack)
      try c.encode(feedback.nackedPackets, forKey: .nackPackets)
      try c.encode(feedback.pictureLossIndications, forKey: .pli)
      try c.encode(feedback.fullIntraRequests, forKey: .fir)
      try c.encode(feedback.lastREMBBitsPerSecond, forKey: .remb)
      try c.encode(feedback.voipMetrics.map(VoIPMetricsJSON.init), forKey: .voip)
    }
  }

  /// A stream's media experience (docs/media.md): `MediaJSON.video` or `.audio`.
  struct MediaCountsJSON: Encodable {
    let counts: MediaCounts
    let isVideo: Bool

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: Key.self)
      try c.encode(isVideo ? "video" : "audio", forKey: Key(stringValue: "kind"))
      if isVideo {
        try c.encode(
          MediaTable.framesPerSecond(counts), forKey: Key(stringValue: "frames_per_second"))
      }
      for (name, value) in isVideo ? MediaJSON.video(counts) : MediaJSON.audio(counts) {
        switch value {
        case .integer(let number): try c.encode(number, forKey: Key(stringValue: name))
        case .number(let number): try c.encode(number, forKey: Key(stringValue: name))
        default: try c.encodeNil(forKey: Key(stringValue: name))
        }
      }
    }
  }

  /// RFC 3611 section 4.7 fields, scaled to plain units where the RFC scales them.
  struct VoIPMetricsJSON: Encodable {
    let metrics: RTCPVoIPMetrics

    enum Keys: String, CodingKey {
      case lossRate = "loss_ratio"
      case discardRate = "discard_ratio"
      case roundTrip = "round_trip_delay_ms"
      case endSystemDelay = "end_system_delay_ms"
      case rFactor = "r_factor"
      case mosLQ = "mos_lq"
      case mosCQ = "mos_cq"
      case jitterBufferNominal = "jitter_buffer_nominal_ms"
      case jitterBufferMaximum = "jitter_buffer_max_ms"
    }

    func encode(to encoder: Encoder) throws {
      var c = encoder.container(keyedBy: Keys.self)
      try c.encode(Double(metrics.lossRate) / 256, forKey: .lossRate)
      try c.encode(Double(metrics.discardRate) / 256, forKey: .discardRate)
      try c.encode(metrics.roundTripDelayMilliseconds, forKey: .roundTrip)
      try c.encode(metrics.endSystemDelayMilliseconds, forKey: .endSystemDelay)
      // 127 means "unavailable" for R and MOS (RFC 3611 section 4.7.5, 4.7.6).
      try c.encode(metrics.rFactor == 127 ? nil : Int(metrics.rFactor), forKey: .rFactor)
      try c.encode(metrics.mosLQ == 127 ? nil : Double(metrics.mosLQ) / 10, forKey: .mosLQ)
      try c.encode(metrics.mosCQ == 127 ? nil : Double(metrics.mosCQ) / 10, forKey: .mosCQ)
      try c.encode(metrics.jitterBufferNominalMilliseconds, forKey: .jitterBufferNominal)
      try c.encode(metrics.jitterBufferMaximumMilliseconds, forKey: .jitterBufferMaximum)
    }
  }
}
